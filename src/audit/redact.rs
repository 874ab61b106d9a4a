//! The command line as the audit trail keeps it: argv walked the way clap parses it
//! (long and short options, `--opt=value`, `-Xvalue`, clusters, `--`, subcommands), and
//! each value masked by the grammar of what reads it, never by a pattern over the line.
//!
//! Which grammar is found from what clap parses the value to, not from the option's
//! name: a value that can carry a secret has a type of its own in `cli.rs` (a PostgreSQL
//! target or psql's `-d`: the conninfo parser; a MySQL target: the URL parser; `-X`: the
//! Kafka property table), so every option and every spelling of it that takes one is
//! masked alike. Any other value is masked where the whole of it reads as a connection
//! string or URL that sets a password.

use crate::cli::{ClientProperty, MysqlConn, PgConn, PgDbname};
use crate::pg::conninfo;
use crate::settings::kafka_client::target::redact_property_arg;
use std::any::TypeId;
use std::ffi::OsString;

/// How a value is shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// A target name, or a URL or conninfo string with its passwords masked.
    Conninfo,
    /// A database name, or a URL or conninfo string with its passwords masked.
    Dbname,
    /// `key=value` with a secret value masked.
    Property,
    /// A mysql target name, or a `mysql://` URL with its password masked.
    MysqlUrl,
    /// The value of any other option (`--reason`, `--topic`, a path): as typed, unless
    /// the whole of it reads as a connection string or URL with a password.
    Verbatim,
    /// A positional or an argument clap's model does not name: masked only where it
    /// reads as a connection string with a password.
    Bare,
}

/// Every argument of the process (the program name first), with secrets masked, walked
/// by `definition`: the command line's one definition (`help::command`), handed down
/// because the audit trail may not import the registry of commands it is made of.
pub fn command_line(
    definition: &clap::Command,
    args: impl IntoIterator<Item = OsString>,
) -> Vec<String> {
    let mut root = definition.clone();
    root.build();
    let mut current = &root;
    let mut args = args.into_iter().map(|a| a.to_string_lossy().into_owned());
    let mut out: Vec<String> = args.next().into_iter().collect();
    let mut pending: Option<Kind> = None;
    let mut only_positionals = false;
    for arg in args {
        if let Some(kind) = pending.take() {
            out.push(mask(kind, &arg));
            continue;
        }
        if only_positionals {
            out.push(mask(Kind::Bare, &arg));
            continue;
        }
        if arg == "--" {
            only_positionals = true;
            out.push(arg);
            continue;
        }
        if let Some(long) = arg.strip_prefix("--") {
            let (name, value) = match long.split_once('=') {
                Some((n, v)) => (n, Some(v)),
                None => (long, None),
            };
            match (find_long(current, name), value) {
                (Some((true, kind)), Some(value)) => {
                    out.push(format!("--{name}={}", mask(kind, value)))
                }
                (Some((true, kind)), None) => {
                    pending = Some(kind);
                    out.push(arg);
                }
                (Some((false, _)), None) => out.push(arg),
                _ => out.push(mask(Kind::Bare, &arg)),
            }
            continue;
        }
        if let Some(cluster) = arg.strip_prefix('-').filter(|c| !c.is_empty()) {
            out.push(short_cluster(current, cluster, &arg, &mut pending));
            continue;
        }
        match current.find_subcommand(&arg) {
            Some(sub) => {
                current = sub;
                out.push(arg);
            }
            None => out.push(mask(Kind::Bare, &arg)),
        }
    }
    out
}

/// `-vXkey=value`: flags until the first option that takes a value, which takes the rest
/// of the word (after an optional '=') or, when nothing is left, the next argument.
fn short_cluster(
    command: &clap::Command,
    cluster: &str,
    arg: &str,
    pending: &mut Option<Kind>,
) -> String {
    for (i, c) in cluster.char_indices() {
        match find_short(command, c) {
            Some((true, kind)) => {
                let split = i + c.len_utf8();
                let (head, rest) = (&cluster[..split], &cluster[split..]);
                if rest.is_empty() {
                    *pending = Some(kind);
                    return arg.to_string();
                }
                let (eq, value) = match rest.strip_prefix('=') {
                    Some(v) => ("=", v),
                    None => ("", rest),
                };
                return format!("-{head}{eq}{}", mask(kind, value));
            }
            Some((false, _)) => {}
            None => return mask(Kind::Bare, arg),
        }
    }
    arg.to_string()
}

/// (takes a value, how its value is shown) of `--name`.
fn find_long(command: &clap::Command, name: &str) -> Option<(bool, Kind)> {
    command
        .get_arguments()
        .find(|a| {
            a.get_long() == Some(name) || a.get_all_aliases().is_some_and(|all| all.contains(&name))
        })
        .map(describe)
}

fn find_short(command: &clap::Command, c: char) -> Option<(bool, Kind)> {
    command
        .get_arguments()
        .find(|a| {
            a.get_short() == Some(c)
                || a.get_all_short_aliases()
                    .is_some_and(|all| all.contains(&c))
        })
        .map(describe)
}

fn describe(arg: &clap::Arg) -> (bool, Kind) {
    (arg.get_action().takes_values(), kind_of(arg))
}

/// How a value of `arg` is shown: by the type clap parses it to.
fn kind_of(arg: &clap::Arg) -> Kind {
    let parsed = arg.get_value_parser().type_id();
    if parsed == TypeId::of::<PgConn>() {
        Kind::Conninfo
    } else if parsed == TypeId::of::<PgDbname>() {
        Kind::Dbname
    } else if parsed == TypeId::of::<MysqlConn>() {
        Kind::MysqlUrl
    } else if parsed == TypeId::of::<ClientProperty>() {
        Kind::Property
    } else {
        Kind::Verbatim
    }
}

fn mask(kind: Kind, value: &str) -> String {
    match kind {
        Kind::Verbatim => with_password_masked(value).unwrap_or_else(|| value.to_string()),
        Kind::Property => redact_property_arg(value),
        Kind::MysqlUrl if crate::mysql::params::looks_like_url(value) => {
            crate::mysql::params::redact(value)
                .unwrap_or_else(|| conninfo::NOT_ACCEPTED.to_string())
        }
        Kind::MysqlUrl if conninfo::is_plain_name(value) => value.to_string(),
        Kind::MysqlUrl => conninfo::NOT_ACCEPTED.to_string(),
        Kind::Conninfo | Kind::Dbname if conninfo::looks_like_conninfo(value) => {
            conninfo::redact(value)
        }
        // A target name; anything else here is a mistyped URL that may hold a password.
        Kind::Conninfo if conninfo::is_plain_name(value) => value.to_string(),
        Kind::Conninfo => conninfo::NOT_ACCEPTED.to_string(),
        // A database name (any text), unless it has the shape of a mistyped URL.
        Kind::Dbname | Kind::Bare => {
            conninfo::redact_if_it_holds_a_password(value).unwrap_or_else(|| value.to_string())
        }
    }
}

/// The value with its password masked when the whole of it reads as a connection string
/// (a postgres URL or key=value settings) or a URL (`mysql://u:pw@h`) that sets one.
fn with_password_masked(value: &str) -> Option<String> {
    conninfo::redact_password(value).or_else(|| {
        let mut url = url::Url::parse(value).ok()?;
        url.password()?;
        url.set_password(Some("<redacted>")).ok()?;
        Some(url.to_string())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn definition() -> clap::Command {
        crate::help::command(&crate::commands::probes::REGISTRY)
    }

    fn line(args: &[&str]) -> Vec<String> {
        command_line(
            &definition(),
            std::iter::once("indoubt")
                .chain(args.iter().copied())
                .map(OsString::from),
        )
    }

    fn assert_clean(args: &[&str]) -> Vec<String> {
        let shown = line(args);
        let joined = shown.join(" ");
        assert!(!joined.contains("hunter2"), "{joined}");
        shown
    }

    #[test]
    fn every_spelling_of_a_postgres_password_is_masked() {
        for pg in [
            "host=db password=hunter2 user=x",
            "host=db password = 'a hunter2 b' user=x",
            "host=db password='it\\'s hunter2' user=x",
            "host=db password=hunter2\\ x user=x",
            "postgres://app:hunter2@db/shop",
            "postgresql://app:hunter2%40x@db/shop",
            "postgres://app@db/shop?password=hunter2",
            "postgres://app@db/shop?sslmode=disable&pass%77ord=hunter2",
            "postgres:/app:hunter2@db/shop",
            "postgresql//app:hunter2@db/shop",
            "http://app:hunter2@db/shop",
            "host=db password='hunter2",
        ] {
            assert_clean(&["resolve", "pg", "gid", "--pg", pg]);
            assert_clean(&["resolve", "pg", "gid", &format!("--pg={pg}")]);
            assert_clean(&["reconcile", "--pg", pg, "--no-progress"]);
        }
        let shown = assert_clean(&[
            "resolve",
            "pg",
            "gid",
            "--pg",
            "host=db password=hunter2 user=x",
        ]);
        assert_eq!(shown[5], "host=db password=<redacted> user=x");
        assert_eq!(
            line(&["resolve", "pg", "gid", "--pg", "prod-db1"])[5],
            "prod-db1"
        );
    }

    #[test]
    fn a_mysql_password_in_a_url_is_masked() {
        for mysql in [
            "mysql://app:hunter2@db/shop",
            "mariadb://app:hunter2%40x@db:3307/",
            "mysql:/app:hunter2@db",
            "mysql://app:hunter2@[::1/",
        ] {
            assert_clean(&["resolve", "mysql", "0x67,0x,1", "--mysql", mysql]);
            assert_clean(&["resolve", "mysql", "0x67,0x,1", &format!("--mysql={mysql}")]);
        }
        assert_eq!(
            line(&[
                "resolve",
                "mysql",
                "0x67,0x,1",
                "--mysql",
                "mysql://app:hunter2@db/shop"
            ])[5],
            "mysql://app:%3Credacted%3E@db/shop"
        );
        assert_eq!(
            line(&["resolve", "mysql", "0x67,0x,1", "--mysql", "orders"])[5],
            "orders"
        );
    }

    #[test]
    fn every_spelling_of_a_kafka_secret_is_masked() {
        for spelled in [
            vec!["-X", "sasl.password=hunter2"],
            vec!["-Xsasl.password=hunter2"],
            vec!["-X=sasl.password=hunter2"],
            vec!["-X", "sasl.password = hunter2"],
            vec!["-vX", "sasl.password=hunter2"],
            vec!["-vXsasl.password=hunter2"],
            vec!["-X", "sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username=\"u\" password=\"hunter2\";"],
            vec!["-X", "sasl.jaas.config=PlainLoginModule required username=u password='hunter2 \\' x';"],
            vec!["-X", "sasl.oauthbearer.client.secret=hunter2"],
            vec!["-X", "ssl.key.password=hunter2"],
            vec!["-X", "ssl.keystore.password=hunter2"],
            vec!["-X", "ssl.truststore.password=hunter2"],
            vec!["-X", "sasl.pasword=hunter2"],
            vec!["-X", "hunter2"],
        ] {
            let mut args = vec!["resolve", "kafka", "-b", "k:9092"];
            args.extend(spelled.iter().copied());
            args.extend(["--topic", "t", "--partition", "0", "--start-offset", "1"]);
            assert_clean(&args);
        }
        let shown = line(&[
            "kafka",
            "lso",
            "-b",
            "k:9092",
            "-Xsasl.username=svc",
            "-X",
            "sasl.jaas.config=PlainLoginModule required username=\"svc\" password=\"hunter2\";",
        ]);
        assert_eq!(shown[5], "-Xsasl.username=svc");
        assert_eq!(
            shown[7],
            "sasl.jaas.config=PlainLoginModule required username=\"svc\" password=\"<redacted>\";"
        );
    }

    #[test]
    fn everything_else_is_kept_as_typed() {
        let args = [
            "-o",
            "json",
            "resolve",
            "pg",
            "xa-commit-me",
            "--pg",
            "prod-db1",
            "--commit",
            "--yes",
            "--reason",
            "INC-1 password = 'not a secret' as the operator wrote it",
            "--audit-log",
            "/var/lib/indoubt/audit.jsonl",
            "--ticket",
            "INC-1",
        ];
        let shown = line(&args);
        assert_eq!(shown[1..], args.map(String::from), "nothing masked");
        let args = [
            "resolve",
            "kafka",
            "--command-config",
            "/etc/kafka/password.properties",
            "-b",
            "k:9092",
            "--topic",
            "password-resets",
        ];
        assert_eq!(
            line(&args)[1..],
            args.map(String::from),
            "a path and a topic are no secrets"
        );
        // After `--`, and for what clap's model does not name: masked only if it is one.
        let shown = line(&["resolve", "pg", "--", "host=h password=hunter2", "--pg"]);
        assert_eq!(shown[3..], ["--", "host=h password=<redacted>", "--pg"]);
        let shown = line(&["--no-such-option=postgres://u:hunter2@h/db"]);
        assert!(!shown[1].contains("hunter2"), "{shown:?}");
    }

    #[cfg(unix)]
    #[test]
    fn non_utf8_arguments_do_not_panic() {
        use std::os::unix::ffi::OsStringExt;
        let shown = command_line(
            &definition(),
            [
                OsString::from("indoubt"),
                OsString::from("--audit-log"),
                OsString::from_vec(vec![b'/', 0xff]),
            ],
        );
        assert_eq!(shown.len(), 3);
    }

    #[test]
    fn every_option_that_takes_a_connection_string_is_masked_as_one() {
        fn walk(command: &clap::Command) {
            for arg in command.get_arguments() {
                let help = arg
                    .get_long_help()
                    .or(arg.get_help())
                    .map(|h| h.to_string())
                    .unwrap_or_default();
                let kind = kind_of(arg);
                let expected = if help.contains("conninfo")
                    || help.contains("postgres://")
                    || help.contains("connection string")
                {
                    Some(if arg.get_short() == Some('d') {
                        Kind::Dbname
                    } else {
                        Kind::Conninfo
                    })
                } else if help.contains("mysql://") {
                    Some(Kind::MysqlUrl)
                } else if help.contains("Client property") {
                    Some(Kind::Property)
                } else {
                    None
                };
                if let Some(expected) = expected {
                    assert_eq!(
                        kind,
                        expected,
                        "{} --{:?}: its value needs a type of cli.rs's secret_bearing!",
                        command.get_name(),
                        arg.get_long()
                    );
                }
            }
            command.get_subcommands().for_each(walk);
        }
        walk(&definition());
    }

    /// psql's -d takes a whole connection string as --pg does: masked alike in every
    /// spelling clap accepts, a plain database name kept.
    #[test]
    fn a_connection_string_given_to_d_is_masked_in_every_spelling() {
        let url = "postgresql://u:hunter2@h/db";
        let conninfo = "host=h password=hunter2 dbname=db";
        for command in [
            &["resolve", "pg", "gid"][..],
            &["pg", "prepared"],
            &["pg", "slots"],
            &["pg", "horizon"],
        ] {
            for value in [url, conninfo] {
                for spelled in [
                    vec!["-d".to_string(), value.to_string()],
                    vec![format!("-d{value}")],
                    vec![format!("-d={value}")],
                    vec!["--dbname".to_string(), value.to_string()],
                    vec![format!("--dbname={value}")],
                ] {
                    let mut args: Vec<&str> = command.to_vec();
                    args.extend(spelled.iter().map(String::as_str));
                    let shown = assert_clean(&args);
                    assert!(shown.join(" ").contains("<redacted>"), "{shown:?}");
                }
            }
        }
        let shown = line(&["resolve", "pg", "gid", "-d", conninfo]);
        assert_eq!(shown[5], "host=h password=<redacted> dbname=db");
        let shown = line(&["resolve", "pg", "gid", "-dmy db", "--dbname", "shop"]);
        assert_eq!(shown[4..], ["-dmy db", "--dbname", "shop"], "names kept");
    }

    /// What no type marks still has its password masked when the whole value reads as a
    /// connection string or URL that sets one; free text that merely mentions one stays.
    #[test]
    fn any_value_that_is_a_connection_string_with_a_password_is_masked() {
        for value in [
            "postgres://u:hunter2@h/db",
            "host=h password=hunter2",
            "mysql://u:hunter2@h/db",
            "https://u:hunter2@example.com/",
        ] {
            assert_clean(&["resolve", "pg", "gid", "--ticket", value]);
            assert_clean(&["resolve", "pg", "gid", &format!("--ticket={value}")]);
            assert_clean(&["resolve", "pg", "gid", "-h", value]);
        }
        let reason = "INC-1: rotated the password = hunter2 was wrong";
        assert_eq!(
            line(&["resolve", "pg", "gid", "--reason", reason])[5],
            reason
        );
    }
}
