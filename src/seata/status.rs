//! Seata's status numbers, named as its sources name them (`GlobalStatus`,
//! `BranchStatus`, 2.0 through 2.5), and where a global transaction stands in its life.

use serde::Serialize;

/// Where a global transaction stands, from its status.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Stage {
    /// Begun and not yet asked to end (Begin), or not yet known (UnKnown).
    Open,
    /// Asked to commit or roll back, and the coordinator is doing it.
    Ending,
    /// A branch's phase two failed and the coordinator retries it.
    Retrying,
    /// The coordinator has given up: it retries no more, a person decides.
    GaveUp,
    /// Ended; the row is kept or not yet deleted.
    Ended,
    /// A number no Seata release up to 2.5 defines.
    Unknown,
}

/// A global transaction's status: its number, Seata's name for it and its stage.
pub fn global(status: i16) -> (&'static str, Stage) {
    use Stage::*;
    match status {
        0 => ("UnKnown", Open),
        1 => ("Begin", Open),
        2 => ("Committing", Ending),
        3 => ("CommitRetrying", Retrying),
        4 => ("Rollbacking", Ending),
        5 => ("RollbackRetrying", Retrying),
        6 => ("TimeoutRollbacking", Ending),
        7 => ("TimeoutRollbackRetrying", Retrying),
        8 => ("AsyncCommitting", Ending),
        9 => ("Committed", Ended),
        10 => ("CommitFailed", GaveUp),
        11 => ("Rollbacked", Ended),
        12 => ("RollbackFailed", GaveUp),
        13 => ("TimeoutRollbacked", Ended),
        14 => ("TimeoutRollbackFailed", GaveUp),
        15 => ("Finished", Ended),
        16 => ("CommitRetryTimeout", GaveUp),
        17 => ("RollbackRetryTimeout", GaveUp),
        // 2.4 (apache/incubator-seata PR 7024).
        18 => ("Deleting", Ending),
        19 => ("StopCommitOrCommitRetry", GaveUp),
        20 => ("StopRollbackOrRollbackRetry", GaveUp),
        _ => ("?", Unknown),
    }
}

/// What the coordinator decided for a global transaction, as its status says it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decided {
    Commit,
    Rollback,
    /// Begun, not yet asked to end: the coordinator rolls it back at its timeout.
    Undecided,
    /// A status that does not say which way it ended (Finished, Deleting, unknown).
    Unclear,
}

/// The coordinator's decision in a global's status: committing or committed (even when a
/// branch's commit then failed) is commit; rolling back or rolled back is rollback.
pub fn decided(status: i16) -> Decided {
    match status {
        2 | 3 | 8 | 9 | 10 | 16 | 19 => Decided::Commit,
        4..=7 | 11..=14 | 17 | 20 => Decided::Rollback,
        0 | 1 => Decided::Undecided,
        _ => Decided::Unclear,
    }
}

/// The statuses of a stage, from every number a release up to 2.5 defines: the store's
/// index on (status, gmt_modified) finds a global by them.
pub fn in_stage(stage: Stage) -> Vec<i16> {
    (0..=20).filter(|s| global(*s).1 == stage).collect()
}

/// A branch's status as Seata names it; None for a number it does not define.
pub fn branch(status: i16) -> Option<&'static str> {
    Some(match status {
        0 => "Unknown",
        1 => "Registered",
        2 => "PhaseOne_Done",
        3 => "PhaseOne_Failed",
        4 => "PhaseOne_Timeout",
        5 => "PhaseTwo_Committed",
        6 => "PhaseTwo_CommitFailed_Retryable",
        7 => "PhaseTwo_CommitFailed_Unretryable",
        8 => "PhaseTwo_Rollbacked",
        9 => "PhaseTwo_RollbackFailed_Retryable",
        10 => "PhaseTwo_RollbackFailed_Unretryable",
        11 => "PhaseTwo_CommitFailed_XAER_NOTA_Retryable",
        12 => "PhaseTwo_RollbackFailed_XAER_NOTA_Retryable",
        13 => "PhaseOne_RDONLY",
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_status_up_to_2_5_is_named_and_staged() {
        assert_eq!(global(5), ("RollbackRetrying", Stage::Retrying));
        assert_eq!(global(17), ("RollbackRetryTimeout", Stage::GaveUp));
        assert_eq!(global(18), ("Deleting", Stage::Ending));
        assert_eq!(global(21).1, Stage::Unknown);
        assert_eq!(global(-1).1, Stage::Unknown);
        assert_eq!(in_stage(Stage::Ended), [9, 11, 13, 15]);
        assert_eq!(in_stage(Stage::GaveUp), [10, 12, 14, 16, 17, 19, 20]);
        assert_eq!(branch(9), Some("PhaseTwo_RollbackFailed_Retryable"));
        assert_eq!(branch(14), None);
        assert_eq!(decided(3), Decided::Commit);
        assert_eq!(decided(6), Decided::Rollback);
        assert_eq!(decided(12), Decided::Rollback);
        assert_eq!(decided(1), Decided::Undecided);
        assert_eq!(decided(15), Decided::Unclear);
        assert_eq!(decided(18), Decided::Unclear);
    }
}
