//! A kafka target's checks, one connection per cluster and principal: the broker's APIs,
//! what the principal may do on the cluster and with transactional ids (as the broker
//! reports it), then the topics (kafka_topics).

use super::checks::{Also, Check, TargetChecks};
use super::kafka_acls::{allow, names, principal};
use super::kafka_topics;
use super::union;
use crate::codes;
use crate::context::Context;
use crate::findings::Severity;
use crate::kafka::access::{self, Access, Operation, Operations, TransactionalIdProbe};
use crate::next::Word;
use crate::settings::config_check::KafkaPlan;

/// A group of kafka targets with the same bootstrap servers and client settings (one
/// cluster, one principal): one connection, the cluster's checks once, every reconcile
/// topic of any of them, and the topics row of each check_topic_regex among them.
pub(super) async fn check(ctx: &Context, group: &[&KafkaPlan]) -> TargetChecks {
    let first = group[0];
    let target = match &first.target {
        Ok(t) => t,
        Err(e) => {
            return TargetChecks::unusable("kafka", &first.name, &first.used_by, format!("{e:#}"));
        }
    };
    let address = Some(target.bootstrap.join(","));
    let mut topics: Vec<(String, Vec<String>)> = Vec::new();
    for (topic, jobs) in group.iter().flat_map(|k| &k.topics) {
        match topics.iter_mut().find(|(t, _)| t == topic) {
            Some((_, all)) => all.extend(
                jobs.iter()
                    .filter(|j| !all.contains(j))
                    .cloned()
                    .collect::<Vec<_>>(),
            ),
            None => topics.push((topic.clone(), jobs.clone())),
        }
    }
    // Each expression once, with the targets that give it (the first's row is "topics").
    let mut regexes: Vec<(Option<String>, Vec<&str>)> = Vec::new();
    for k in group {
        match regexes.iter_mut().find(|(r, _)| *r == k.check_topic_regex) {
            Some((_, names)) => names.push(&k.name),
            None => regexes.push((k.check_topic_regex.clone(), vec![&k.name])),
        }
    }
    let names: Vec<String> = topics.iter().map(|(t, _)| t.clone()).collect();
    let probe_id = format!("indoubt-config-check-{}", std::process::id());
    let checks = match access::read(target, &names, &probe_id, ctx.timeout).await {
        Err(e) => vec![Check::unreachable(&e)],
        Ok(access) => {
            let principal = principal(&target.security);
            let protocol = target.security.protocol();
            checks(&access, &topics, &principal, protocol, &probe_id, &regexes)
        }
    };
    let mut checked = TargetChecks::new(
        "kafka",
        &first.name,
        address.clone(),
        &union(group.iter().map(|k| &k.used_by)),
        checks,
    );
    checked.also = group
        .iter()
        .skip(1)
        .map(|k| Also {
            name: k.name.clone(),
            address: address.clone(),
        })
        .collect();
    checked
}

/// The rows of a cluster that answered: the connection, the broker's APIs, the cluster's
/// operations, transactional ids, then the topics rows (kafka_topics).
pub(super) fn checks(
    access: &Access,
    topics: &[(String, Vec<String>)],
    principal: &Option<String>,
    protocol: &str,
    probe_id: &str,
    regexes: &[(Option<String>, Vec<&str>)],
) -> Vec<Check> {
    let bootstrap = access.address.as_str();
    let mut checks = vec![Check::ok(
        "connection",
        format!(
            "connected to {bootstrap} over {protocol} as {}; {} broker(s){}",
            principal
                .as_deref()
                .unwrap_or("the principal of the TLS client certificate"),
            access.brokers,
            access
                .cluster_id
                .as_deref()
                .map(|c| format!(", cluster {c}"))
                .unwrap_or_default()
        ),
    )];
    checks.push(apis(access));
    let cluster = match &access.cluster {
        Ok(ops) => *ops,
        Err(_) => Operations::NOT_REPORTED,
    };
    checks.push(match &access.cluster {
        Err(e) => Check::failed(
            "cluster",
            Severity::Unknown,
            codes::KAFKA_ACCESS_UNKNOWN,
            format!("DescribeCluster failed, so the cluster operations are not known: {e}"),
        ),
        Ok(ops) if !ops.reported() => Check::failed(
            "cluster",
            Severity::Unknown,
            codes::KAFKA_ACCESS_UNKNOWN,
            "DescribeCluster carried no cluster authorized operations",
        ),
        Ok(ops) if ops.list().is_empty() => Check::failed(
            "cluster",
            Severity::Unknown,
            codes::KAFKA_ACCESS_UNKNOWN,
            "the broker reports no operation on the cluster, as it does when DESCRIBE on the cluster is denied: whether resolve kafka may write abort markers is not known",
        )
        .next(allow(bootstrap, principal, &[Operation::Describe], &[Word::Lit("--cluster")])),
        Ok(ops) => Check::ok(
            "cluster",
            format!("the broker reports these cluster operations: {}", names(&ops.list())),
        ),
    });
    if cluster.reported() && !cluster.list().is_empty() {
        let may = cluster.allows(Operation::Alter) || cluster.allows(Operation::ClusterAction);
        checks.push(match may {
            true => Check::ok(
                "resolve kafka",
                "may write abort markers: WriteTxnMarkers needs ALTER or CLUSTER_ACTION on the cluster, and the broker reports one",
            ),
            false => Check::failed(
                "resolve kafka",
                Severity::Warning,
                codes::KAFKA_ACL_MISSING,
                "cannot abort a hanging transaction: WriteTxnMarkers needs ALTER or CLUSTER_ACTION on the cluster, and the broker reports neither",
            )
            .next(allow(bootstrap, principal, &[Operation::ClusterAction], &[Word::Lit("--cluster")])),
        });
    }
    checks.push(match &access.transactional_id {
        TransactionalIdProbe::Allowed { answer } => Check::ok(
            "transactional ids",
            format!(
                "DESCRIBE allowed: a DescribeTransactions of {probe_id} (an id no producer uses) passed the broker's DESCRIBE check (it answered {answer}); the broker lists only transactional ids this principal may DESCRIBE, so one an ACL of its own denies stays unseen"
            ),
        ),
        TransactionalIdProbe::Denied => Check::failed(
            "transactional ids",
            Severity::Warning,
            codes::KAFKA_ACL_MISSING,
            format!(
                "DESCRIBE denied: a DescribeTransactions of {probe_id} was refused (TRANSACTIONAL_ID_AUTHORIZATION_FAILED); the broker lists only transactional ids this principal may DESCRIBE, so kafka transactions lists none of those, and kafka hanging (and resolve kafka) take an open transaction whose id it cannot see for a hanging one"
            ),
        )
        .next(allow(
            bootstrap,
            principal,
            &[Operation::Describe],
            &[Word::Lit("--transactional-id"), Word::Value("*")],
        )),
        TransactionalIdProbe::Unsupported(e) => Check::failed(
            "transactional ids",
            Severity::Warning,
            codes::KAFKA_API_MISSING,
            format!("{e}: kafka transactions and kafka hanging cannot name transactional ids on this cluster"),
        ),
        TransactionalIdProbe::Failed(e) => Check::failed(
            "transactional ids",
            Severity::Unknown,
            codes::KAFKA_ACCESS_UNKNOWN,
            format!("whether DESCRIBE on transactional ids is allowed is not known: {e}"),
        ),
    });
    for (i, (regex, targets)) in regexes.iter().enumerate() {
        let mut check = kafka_topics::listed(access, principal, regex);
        if i > 0 {
            check.what = format!("topics of {}", targets.join(", "));
        }
        checks.push(check);
    }
    for (topic, jobs) in topics {
        checks.push(kafka_topics::reconcile(access, principal, topic, jobs));
    }
    checks
}

fn apis(access: &Access) -> Check {
    let offered: Vec<String> = access
        .apis
        .iter()
        .map(|a| match (a.min, a.max) {
            (Some(min), Some(max)) => format!("{} v{min}-{max}", a.api),
            _ => format!("{} none", a.api),
        })
        .collect();
    let needed = [
        (
            "DescribeProducers",
            "kafka producers, kafka hanging, kafka lso (naming a gap's transaction)",
        ),
        ("ListTransactions", "kafka transactions, kafka hanging"),
        ("DescribeTransactions", "kafka transactions, kafka hanging"),
        ("WriteTxnMarkers", "resolve kafka"),
    ];
    let missing: Vec<String> = needed
        .iter()
        .filter(|(api, _)| access.apis.iter().any(|a| a.api == *api && a.max.is_none()))
        .map(|(api, users)| format!("{api} (used by {users})"))
        .collect();
    match missing.is_empty() {
        true => Check::ok(
            "broker APIs",
            format!("ApiVersions: {}", offered.join(", ")),
        ),
        false => Check::failed(
            "broker APIs",
            Severity::Warning,
            codes::KAFKA_API_MISSING,
            format!(
                "the broker does not offer {}; it offers {}",
                missing.join(", "),
                offered.join(", ")
            ),
        ),
    }
}
