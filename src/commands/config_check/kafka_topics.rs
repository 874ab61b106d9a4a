//! The topics rows of a kafka target: the topics the broker lists (those `check` reads,
//! matching check_topic_regex) and each topic a reconcile job reads, as the broker
//! reports what the principal may do with them.

use super::checks::Check;
use super::kafka_acls::{allow, names};
use crate::codes;
use crate::findings::Severity;
use crate::kafka::access::{Access, Operation, Operations, TopicAccess};
use crate::next::Word;
use crate::text::Text;

/// Every topic the broker lists (matching check_topic_regex, when the target has one, as
/// `check` matches it: a search, anchored only by the expression's own ^ and $):
/// those without READ are where kafka lso cannot name a gap's transaction.
pub(super) fn listed(access: &Access, principal: &Option<String>, regex: &Option<String>) -> Check {
    const WHAT: &str = "topics";
    let matcher = regex.as_deref().and_then(|r| regex::Regex::new(r).ok());
    let listed: Vec<(&String, &(Operations, bool))> = access
        .listed
        .iter()
        .filter(|(name, _)| matcher.as_ref().is_none_or(|m| m.is_match(name)))
        .collect();
    // The expression as written: its backslashes are its own (Text::push_regex).
    let mut scope = Text::from(format!("{} listed", listed.len()));
    if let Some(r) = regex {
        scope.push_str(" matching check_topic_regex ");
        scope.push_regex(r);
    }
    if !access.topic_operations_reported {
        return Check::failed(
            WHAT,
            Severity::Unknown,
            codes::KAFKA_ACCESS_UNKNOWN,
            crate::text![scope, "; the broker's Metadata version carries no topic authorized operations (before v8)"],
        );
    }
    let unreadable: Vec<&str> = listed
        .iter()
        .filter(|(_, (ops, _))| !ops.allows(Operation::Read))
        .map(|(name, _)| name.as_str())
        .collect();
    let head = crate::text![
        "the broker lists only topics this principal may DESCRIBE: ",
        scope
    ];
    match unreadable.is_empty() {
        true => Check::ok(WHAT, crate::text![head, "; READ on all of them"]),
        false => {
            let first = unreadable[0].to_string();
            Check::failed(
                WHAT,
                Severity::Warning,
                codes::KAFKA_ACL_MISSING,
                crate::text![
                    head,
                    format!(
                        "; no READ on {}: there kafka lso cannot name the transaction behind a gap, kafka producers and kafka hanging cannot read producers (DescribeProducers needs READ)",
                        unreadable.join(", ")
                    )
                ],
            )
            .next(allow(
                &access.address,
                principal,
                &[Operation::Read],
                &[Word::Lit("--topic"), Word::Value(&first)],
            ))
        }
    }
}

/// A reconcile job's topic: whether the jobs that read it may (READ, DESCRIBE_CONFIGS).
pub(super) fn reconcile(
    access: &Access,
    principal: &Option<String>,
    topic: &str,
    jobs: &[String],
) -> Check {
    let what = format!("topic {topic}");
    let by = format!("reconcile job {}", jobs.join(", "));
    let grant = |ops: &[Operation]| {
        allow(
            &access.address,
            principal,
            ops,
            &[Word::Lit("--topic"), Word::Value(topic)],
        )
    };
    match access.topics.get(topic) {
        None => Check::failed(
            what,
            Severity::Unknown,
            codes::KAFKA_ACCESS_UNKNOWN,
            "the broker's Metadata did not answer for it",
        ),
        Some(TopicAccess::Refused(e))
            if e.error == kafka_protocol::error::ResponseError::TopicAuthorizationFailed =>
        {
            Check::failed(
                what,
                Severity::Critical,
                codes::KAFKA_ACL_MISSING,
                format!("{by} cannot read it: DESCRIBE denied ({})", e.name()),
            )
            .next(grant(&[
                Operation::Describe,
                Operation::Read,
                Operation::DescribeConfigs,
            ]))
        }
        Some(TopicAccess::Refused(e))
            if e.error == kafka_protocol::error::ResponseError::UnknownTopicOrPartition =>
        {
            Check::failed(
                what,
                Severity::Critical,
                codes::KAFKA_ACL_MISSING,
                format!("{by} cannot read it: it does not exist ({})", e.name()),
            )
        }
        Some(TopicAccess::Refused(e)) => Check::failed(
            what,
            Severity::Unknown,
            codes::KAFKA_ACCESS_UNKNOWN,
            format!("Metadata answered {} for it", e.name()),
        ),
        Some(TopicAccess::Described { operations, .. }) if !operations.reported() => Check::failed(
            what,
            Severity::Unknown,
            codes::KAFKA_ACCESS_UNKNOWN,
            "the broker's Metadata version carries no topic authorized operations (before v8)",
        ),
        Some(TopicAccess::Described { operations, .. }) => {
            let ops = operations.list();
            if !operations.allows(Operation::Read) {
                Check::failed(
                    what,
                    Severity::Critical,
                    codes::KAFKA_ACL_MISSING,
                    format!(
                        "{by} cannot read it: no READ (Fetch needs it; the broker reports {}); kafka lso cannot name the transaction behind a gap there",
                        names(&ops)
                    ),
                )
                .next(grant(&[Operation::Read]))
            } else if !operations.allows(Operation::DescribeConfigs) {
                Check::failed(
                    what,
                    Severity::Warning,
                    codes::KAFKA_ACL_MISSING,
                    format!(
                        "{by} cannot read its cleanup.policy and retention (DescribeConfigs needs DESCRIBE_CONFIGS; the broker reports {})",
                        names(&ops)
                    ),
                )
                .next(grant(&[Operation::DescribeConfigs]))
            } else {
                Check::ok(
                    what,
                    format!("{by} may read it: the broker reports {}", names(&ops)),
                )
            }
        }
    }
}
