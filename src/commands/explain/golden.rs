//! Golden output of `explain` (report::golden): the list of codes and the codes an
//! on-call engineer meets first, at 80 and 120 columns (explain draws no table, so it
//! has no frame); every command or statement in backticks is whole on one line.

use super::*;
use crate::report::golden::{self, Expect};

/// The spans in backticks of a text: commands and SQL, kept whole by the layout.
fn ticked(text: &str) -> Vec<String> {
    text.split('`')
        .skip(1)
        .step_by(2)
        .map(|s| format!("`{s}`"))
        .collect()
}

#[test]
fn explain() {
    let mut all_ticked: Vec<String> = Vec::new();
    for code in probes::codes() {
        let doc = code.doc();
        for text in [doc.meaning, doc.why, doc.fix] {
            all_ticked.extend(ticked(text));
        }
    }
    for width in [80usize, 120] {
        let text = listed(width);
        golden::snapshot(&format!("explain__list_{width}"), &text);
        if width == 80 {
            golden::promises("explain__list_80", &text, &Expect::default(), 80);
        }
    }
    for code in [
        crate::codes::PREPARED_XACT_AGE,
        crate::codes::SLOT_RETAINED_WAL,
        crate::codes::HANGING_TRANSACTION,
        crate::codes::CHECK_FAILED,
    ] {
        let doc = code.doc();
        let mut whole = Vec::new();
        for text in [doc.meaning, doc.why, doc.fix] {
            whole.extend(ticked(text));
        }
        let may_overflow = whole.iter().map(String::as_str).collect();
        let expect = Expect {
            whole: whole.clone(),
            may_overflow,
        };
        for width in [80usize, 120] {
            let text = explained(doc, width);
            golden::snapshot(&format!("explain__{}_{width}", doc.name), &text);
            if width == 80 {
                golden::promises(&format!("explain__{}_80", doc.name), &text, &expect, 80);
            }
        }
    }
    // Every code's text at 80 columns: each span in backticks on one line.
    for code in probes::codes() {
        let doc = code.doc();
        let text = explained(doc, 80);
        let mut whole = Vec::new();
        for part in [doc.meaning, doc.why, doc.fix] {
            whole.extend(ticked(part));
        }
        let may_overflow = whole.iter().map(String::as_str).collect();
        golden::promises(
            doc.name,
            &text,
            &Expect {
                whole: whole.clone(),
                may_overflow,
            },
            80,
        );
    }
    assert!(!all_ticked.is_empty());
}
