//! The kafka-acls.sh line that gives a principal what a check found missing, and the
//! principal as the broker sees it.

use crate::kafka::access::Operation;
use crate::kafka::security::Security;
use crate::next::{Next, Word};

/// The principal the broker sees, as kafka-acls.sh names it: `User:NAME` for SASL
/// PLAIN/SCRAM, `User:ANONYMOUS` for PLAINTEXT; None for a TLS client certificate (its
/// principal depends on the broker's ssl.principal.mapping.rules).
pub(super) fn principal(security: &Security) -> Option<String> {
    match (&security.sasl, &security.tls) {
        (Some(sasl), _) => Some(format!("User:{}", sasl.username)),
        (None, None) => Some("User:ANONYMOUS".to_string()),
        (None, Some(_)) => None,
    }
}

/// `kafka-acls.sh --bootstrap-server B --add --allow-principal P --operation OP… RESOURCE`.
pub(super) fn allow(
    bootstrap: &str,
    principal: &Option<String>,
    ops: &[Operation],
    resource: &[Word],
) -> Option<Next> {
    let principal = principal.as_deref()?;
    let mut words = vec![
        Word::Lit("--bootstrap-server"),
        Word::Value(bootstrap),
        Word::Lit("--add"),
        Word::Lit("--allow-principal"),
        Word::Value(principal),
    ];
    for op in ops {
        words.push(Word::Lit("--operation"));
        words.push(Word::Lit(op.name()));
    }
    for w in resource {
        words.push(match w {
            Word::Lit(l) => Word::Lit(l),
            Word::Value(v) => Word::Value(v),
            Word::Raw(r) => Word::Raw(r),
        });
    }
    Some(Next::tool("kafka-acls.sh", &words))
}

/// The operations as kafka-acls.sh names them, or `none`.
pub(super) fn names(ops: &[Operation]) -> String {
    match ops.is_empty() {
        true => "none".to_string(),
        false => ops.iter().map(|o| o.name()).collect::<Vec<_>>().join(", "),
    }
}
