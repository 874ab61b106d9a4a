//! What `resolve` says of an object that is not there to resolve. Gone is "already
//! resolved" only with evidence: the audit trail's record of who resolved it, when and
//! how. Otherwise it is "not there", with the closest ids that are (a digit mistyped, a
//! GID pasted with its quotes), and nothing is OK about it.

use crate::audit::log;
use crate::audit::record::Record;
use crate::codes;
use crate::commands::Addressing;
use crate::findings::{Finding, Severity};
use crate::next::{Next, Word};
use crate::report::Target;
use crate::text::Text;
use std::path::Path;

/// The object asked for, and what is there instead.
pub struct Absent<'a> {
    /// The object, as findings name it.
    pub subject: Text,
    /// What was read and did not list it: `no prepared transaction has this GID`.
    pub missing: &'static str,
    /// Where that was read (the finding's `source`): `pg_prepared_xacts`.
    pub source: &'static str,
    /// The server's identity (the audit trail's `server`), when read.
    pub server: Option<String>,
    /// The object's id as the audit trail keys it (escaped form), or as it was asked for.
    pub key: String,
    /// How the audit trail's record of its resolution names it.
    pub named: Named,
    pub target: &'a Target,
    /// The ids that are there, in the escaped form (the candidates for "did you mean").
    pub present: Vec<String>,
    /// The command that lists what is there (`indoubt pg prepared`), addressed as this
    /// run addressed the server: the finding's next.
    pub lister: Next,
}

/// `indoubt [--config F] COMMAND… TARGET-FLAGS…`: the command that lists what is there,
/// addressing the server as this run did.
pub fn lister(addressing: &Addressing, command: &[&'static str]) -> Next {
    let words: Vec<Word> = command.iter().map(|w| Word::Lit(w)).collect();
    addressing.indoubt(&words, &[])
}

/// How the audit trail's records name the object asked for.
pub enum Named {
    /// By `Absent::key`, on the server.
    Key,
    /// A Kafka transaction asked for by its producer (`resolve kafka --producer-id`): the
    /// records keep it by its start offset, the producer in their evidence.
    Producer {
        /// `topic-p`.
        partition: String,
        id: i64,
        epoch: Option<i32>,
    },
}

/// The finding: OK with the audit record that resolved it, else UNKNOWN (exit 3),
/// naming the closest ids that are there.
pub fn finding(audit_log: Option<&Path>, absent: Absent) -> Finding {
    let server = absent.server.as_deref();
    let about = |r: &Record| match &absent.named {
        Named::Key => r.is_about(server, &absent.key, absent.target),
        Named::Producer {
            partition,
            id,
            epoch,
        } => r.is_about_producer(server, absent.target, partition, *id, *epoch),
    };
    let record = audit_log.map(|path| (path, log::resolution_of(path, &about)));
    if let Some((path, Ok(Some(record)))) = &record {
        return resolved_earlier(&absent, path, record);
    }
    let trail = match &record {
        None => "no audit trail is configured to say whether indoubt resolved it".to_string(),
        Some((path, Ok(_))) => format!(
            "the audit trail at {} has no resolution of it",
            path.display()
        ),
        Some((path, Err(e))) => format!(
            "the audit trail at {} could not be read ({e:#})",
            path.display()
        ),
    };
    let near = closest(&absent.key, &absent.present);
    let mut message = format!(
        "{} on this server, and {trail}: nothing was done, and whether it was ever there is not known",
        absent.missing
    );
    if !near.is_empty() {
        let quoted: Vec<String> = near.iter().map(|n| format!("'{n}'")).collect();
        message.push_str(&format!("; did you mean {}?", quoted.join(" or ")));
    }
    Finding::new(Severity::Unknown, codes::NOT_THERE, absent.subject, message)
        .evidence("source", absent.source)
        .evidence("did_you_mean", near)
        .advice("check the id: the next command lists what is there now")
        .next(absent.lister)
}

fn resolved_earlier(absent: &Absent, path: &Path, record: &Record) -> Finding {
    let who = match &record.operator.sudo_user {
        Some(sudo) => format!("{} (sudo from {sudo})", record.operator.user),
        None => record.operator.user.clone(),
    };
    let status = record
        .outcome
        .as_ref()
        .map_or("recorded", |o| o.status.name());
    Finding::new(
        Severity::Ok,
        codes::ALREADY_RESOLVED,
        absent.subject.clone(),
        format!(
            "{} now: already resolved — {who} on {} ran {} at {} ({status}; audit record {} in {})",
            absent.missing,
            record.operator.host,
            record.decision,
            record.time.format("%Y-%m-%d %H:%M:%S UTC"),
            record.seq,
            path.display()
        ),
    )
    .evidence("source", absent.source)
    .evidence("audit_action_id", record.action_id.clone())
    .evidence("audit_seq", record.seq)
    .evidence("resolved_at", record.time.to_rfc3339())
    .evidence("resolved_by", record.operator.user.clone())
    .evidence("decision", record.decision.clone())
}

/// The ids of `present` closest to `asked`, best first (at most 3): the same once quotes
/// and blanks around it are stripped, or a few characters apart.
pub fn closest(asked: &str, present: &[String]) -> Vec<String> {
    let stripped = strip(asked);
    let asked: Vec<char> = stripped.chars().collect();
    let most = (asked.len() / 4).clamp(1, 3);
    let mut scored: Vec<(usize, &String)> = present
        .iter()
        .filter_map(|p| {
            let candidate: Vec<char> = p.chars().collect();
            let d = distance(&asked, &candidate);
            (d <= most).then_some((d, p))
        })
        .collect();
    scored.sort();
    scored.dedup_by(|a, b| a.1 == b.1);
    scored.into_iter().take(3).map(|(_, p)| p.clone()).collect()
}

/// `text` without the blanks and quotes a copy from a shell, SQL or a table adds.
fn strip(text: &str) -> &str {
    let mut text = text.trim();
    loop {
        let inner = ['\'', '"', '`']
            .iter()
            .find_map(|q| text.strip_prefix(*q).and_then(|t| t.strip_suffix(*q)));
        match inner {
            Some(inner) => text = inner.trim(),
            None => return text,
        }
    }
}

/// Levenshtein distance (insertions, deletions, substitutions), in characters.
fn distance(a: &[char], b: &[char]) -> usize {
    let mut previous: Vec<usize> = (0..=b.len()).collect();
    let mut current = vec![0; b.len() + 1];
    for (i, ca) in a.iter().enumerate() {
        current[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let substitution = previous[j] + usize::from(ca != cb);
            current[j + 1] = substitution.min(previous[j + 1] + 1).min(current[j] + 1);
        }
        std::mem::swap(&mut previous, &mut current);
    }
    previous[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn a_mistyped_digit_or_a_pasted_quote_finds_the_gid_meant() {
        let present = ids(&["131077_orders_4711", "131077_orders_9999", "other"]);
        assert_eq!(
            closest("131077_orders_4771", &present),
            ["131077_orders_4711"]
        );
        assert_eq!(
            closest("'131077_orders_4711'", &present),
            ["131077_orders_4711"]
        );
        assert_eq!(
            closest(" \"131077_orders_4711\" ", &present),
            ["131077_orders_4711"]
        );
        assert!(closest("completely-different", &present).is_empty());
        assert!(closest("x", &ids(&[])).is_empty());
    }

    #[test]
    fn distance_counts_edits() {
        let d = |a: &str, b: &str| {
            distance(
                &a.chars().collect::<Vec<_>>(),
                &b.chars().collect::<Vec<_>>(),
            )
        };
        assert_eq!(d("kitten", "sitting"), 3);
        assert_eq!(d("", "abc"), 3);
        assert_eq!(d("abc", "abc"), 0);
    }
}
