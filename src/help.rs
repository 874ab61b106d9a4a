//! The command line's one definition ([`command`]): the registry's commands with every
//! command's examples at the end of its help (and its man page's EXAMPLES) — a probe's
//! from the registry (its `Pages`), the other commands' from one table by command path.
//! It parses, helps, completes and documents, and the audit trail reads a command line by
//! it. The registry is handed in (`commands::probes::REGISTRY`): the settings parse
//! `check`'s plans with it and may not import the commands. A test walks the whole command
//! tree: every leaf has examples, every argument a description, and every example parses
//! to the command it illustrates.

use crate::cli::Cli;
use crate::settings::probe::example as ex;
pub use crate::settings::probe::Example;
use crate::settings::probe::Registry;

/// The examples of the command at `path` ("" for indoubt itself, "pg prepared").
pub fn examples(registry: &Registry, path: &str) -> &'static [Example] {
    if let Some(probe) = registry.probe(path) {
        return probe.pages().examples;
    }
    match path {
        "" => &[
            ex!("Everything the config enables, worst first", "indoubt check"),
            ex!("Prepared transactions, psql's way of naming the server", "indoubt pg prepared -h db1 -p 5432 -U monitor -d postgres"),
            ex!("What a finding's code means and how to fix it", "indoubt explain prepared_xact_age"),
        ],
        "resolve pg" => &[
            ex!("The evidence and the coordinator's decision; changes nothing", "indoubt resolve pg '131077_orders_4711' --dry-run"),
            ex!("Apply the proposed decision, at the prompt, as its owner", "indoubt resolve pg '131077_orders_4711' -h db1 -U app --ticket INC-1234"),
            ex!("A runbook: an explicit decision, no prompt", "indoubt resolve pg '131077_orders_4711' --rollback --yes --reason 'coordinator log: rolled back'"),
        ],
        "resolve mysql" => &[
            ex!("The evidence and the coordinator's decision; changes nothing", "indoubt resolve mysql 0x6f72646572732d34373131,0x01,131077 --mysql prod --dry-run"),
            ex!("Every branch of its global transaction (PostgreSQL too), by the logged decision", "indoubt resolve mysql 0x6f72646572732d34373131,0x01,131077 --all-branches --commit --ticket INC-1234"),
            ex!("A runbook: an explicit decision, no prompt", "indoubt resolve mysql \"X'6f72646572732d34373131',X'01',131077\" --rollback --yes --reason 'coordinator log: rolled back'"),
        ],
        "resolve tcc" => &[
            ex!("What it would mark, and why; changes nothing", "indoubt resolve tcc 10.0.3.5:8091:2612345678901234567 --branch-id 2612345678901234570 --as cancelled --dry-run"),
            ex!("Mark it cancelled after releasing the reservation by hand, at the prompt", "indoubt resolve tcc 10.0.3.5:8091:2612345678901234567 --branch-id 2612345678901234570 --as cancelled --ticket INC-1234"),
        ],
        "resolve modulith" => &[
            ex!("How many it would delete, and how; changes nothing", "indoubt resolve modulith orders --dry-run"),
            ex!("Delete those completed more than 30 days ago, 5,000 a batch, at the prompt", "indoubt resolve modulith orders --older-than 30d --batch-size 5000 --ticket INC-1234"),
        ],
        "resolve camunda" => &[
            ex!("What the engine would be asked, for a job named by its incident; changes nothing", "indoubt resolve camunda billing 5b0c2f6e-8a1d-11ef-9f3a-0242ac120002 --dry-run"),
            ex!("Give a job and an external task their retries back through the REST API, at the prompt", "indoubt resolve camunda billing 5b0c2f6e-8a1d-11ef-9f3a-0242ac120002 7e41d0c2-8a1d-11ef-9f3a-0242ac120002 --ticket INC-1234"),
            ex!("Stop a job that kills its executor: no retries left, it becomes an incident", "indoubt resolve camunda billing 5b0c2f6e-8a1d-11ef-9f3a-0242ac120002 --retries 0 --reason 'job OOMs the executor'"),
        ],
        "resolve dbos" => &[
            ex!("What DBOS's CLI would be asked, and why; runs nothing", "indoubt resolve dbos orders order-4711 --resume --dry-run"),
            ex!("Resume workflows DBOS gave up on, once what killed them is fixed, at the prompt", "indoubt resolve dbos orders order-4711 order-4712 --resume --ticket INC-1234"),
            ex!("Cancel a workflow stranded under a version no process runs", "indoubt resolve dbos orders order-4650 --cancel --reason 'v1 retired; refund issued by hand'"),
        ],
        "resolve saga" => &[
            ex!("What it would insert into the manual queue, and why; changes nothing", "indoubt resolve saga order_saga 4711 4712 --escalate --dry-run"),
            ex!("Raise failed sagas in the manual queue, at the prompt", "indoubt resolve saga order_saga 4711 4712 --escalate --ticket INC-1234"),
            ex!("Free seats held for a saga that has ended", "indoubt resolve saga order_saga 17 18 --release --lock public.seats --reason 'saga 4690 compensated; seats never freed'"),
        ],
        "resolve reconcile" => &[
            ex!("The ids it would publish (found missing now), their messages and what it leaves out; sends nothing", "indoubt resolve reconcile orders --dry-run"),
            ex!("Publish them, at the prompt", "indoubt resolve reconcile orders --ticket INC-1234"),
            ex!("The ids a comparison wrote to a file earlier, each batch in one Kafka transaction", "indoubt resolve reconcile orders --ids-from reconcile-ids.tsv --transactional --reason 'events lost in the 02:00 failover'"),
        ],
        "resolve outbox" => &[
            ex!("The rows it would publish, to which topic, and the UPDATE that marks them; changes nothing", "indoubt resolve outbox orders_outbox --dry-run"),
            ex!("Publish them, at the prompt", "indoubt resolve outbox orders_outbox --ticket INC-1234"),
            ex!("In one Kafka transaction per batch, for read_committed consumers", "indoubt resolve outbox orders_outbox --transactional --reason 'relay skipped ids 20 and 35'"),
        ],
        "resolve at" => &[
            ex!("What it would write, and why; changes nothing", "indoubt resolve at 10.0.3.5:8091:2612345678901234567 --branch-id 2612345678901234570 --fix after-image --dry-run"),
            ex!("Set the changed rows back so the coordinator's retry can roll the branch back, at the prompt", "indoubt resolve at 10.0.3.5:8091:2612345678901234567 --branch-id 2612345678901234570 --fix after-image --ticket INC-1234"),
            ex!("Keep the later change: delete the branch's undo log", "indoubt resolve at 10.0.3.5:8091:2612345678901234567 --branch-id 2612345678901234570 --fix undo-log --reason 'amount kept as corrected by finance'"),
        ],
        "resolve kafka" => &[
            ex!("The marker it would send; changes nothing", "indoubt resolve kafka -b kafka1:9092 --topic orders --partition 3 --start-offset 41234 --dry-run"),
            ex!("Abort it, at the prompt", "indoubt resolve kafka -b kafka1:9092 --topic orders --partition 3 --start-offset 41234 --ticket INC-1234"),
            ex!("A runbook, naming the producer", "indoubt resolve kafka --kafka prod --topic orders --partition 3 --producer-id 4001 --producer-epoch 0 --coordinator-epoch 2 --yes --reason 'producer gone'"),
        ],
        "audit list" => &[
            ex!("The last day's records", "indoubt audit list --since 24h"),
            ex!("Records about one object, as JSON", "indoubt -o json audit list --object 131077_orders_4711"),
        ],
        "audit verify" => &[
            ex!("The audit log of the config (or the default path)", "indoubt audit verify"),
            ex!("Another log", "indoubt audit verify --audit-log /var/lib/indoubt/audit.jsonl"),
        ],
        "audit reseal" => &[
            ex!("A new head after the old one was lost", "indoubt audit reseal --reason 'head lost when the disk filled, INC-1234'"),
            ex!("Another log", "indoubt audit reseal --audit-log /var/lib/indoubt/audit.jsonl --reason 'restored from backup'"),
        ],
        "config show" => &[
            ex!("The config in force", "indoubt config show"),
            ex!("Another config file, as YAML", "indoubt --config /etc/indoubt/config.yaml -o yaml config show"),
            ex!("Connect to every target and say what its role or principal lacks", "indoubt config show --check --timeout 5s"),
        ],
        "check" => &[
            ex!("Everything the config enables, worst first", "indoubt check"),
            ex!("Only PostgreSQL and Kafka, only what is not OK", "indoubt check --only pg,kafka --quiet"),
            ex!("A Nagios/Icinga plugin line, under a 20-second deadline, 16 checks at once", "indoubt -o nagios check --deadline 20s --concurrency 16"),
        ],
        "serve" => &[
            ex!("The exporter for Prometheus on the default port, checks every minute", "indoubt --config /etc/indoubt.yaml serve"),
            ex!("On every address of a pod, every 30 seconds", "indoubt serve --listen 0.0.0.0:9985 --interval 30s"),
            ex!("Only PostgreSQL, each run within 20 seconds", "indoubt serve --only pg --deadline 20s"),
        ],
        "explain" => &[
            ex!("What a code means, why it matters, how to fix it", "indoubt explain prepared_xact_age"),
            ex!("Every code", "indoubt explain"),
            ex!("One code, as JSON", "indoubt -o json explain lso_gap"),
        ],
        _ => &[],
    }
}

/// The columns an example's command line takes at most on one line: with the help's
/// indent (2) or the man page's (11) it fits 80 columns, where clap or man would
/// otherwise break it anywhere.
pub const ROOM: usize = 68;

/// The examples as help text.
pub fn render(examples: &[Example]) -> String {
    let mut out = String::from("Examples:");
    for e in examples {
        out.push_str(&format!("\n  # {}", e.what));
        for line in lines(e.line) {
            out.push_str(&format!("\n  {line}"));
        }
    }
    out
}

/// An example's command line in lines of at most [`ROOM`] columns, broken between shell
/// words with ` \` and indented, so the block pasted into a shell is still the one
/// command. Quoted words stay whole (a word wider than ROOM gets a line of its own).
pub fn lines(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current = String::new();
    // A flag and its value stay on one line (`-b kafka1:9092`).
    let mut units: Vec<String> = Vec::new();
    for word in raw_words(line) {
        match units.last_mut() {
            Some(last)
                if last.starts_with('-') && !last.contains(' ') && !word.starts_with('-') =>
            {
                last.push(' ');
                last.push_str(word);
            }
            _ => units.push(word.to_string()),
        }
    }
    for word in &units {
        let indent = if out.is_empty() { 0 } else { 4 };
        if !current.is_empty() && indent + current.len() + 1 + word.len() + 2 > ROOM {
            out.push(format!("{}{current} \\", " ".repeat(indent)));
            current.clear();
        }
        if !current.is_empty() {
            current.push(' ');
        }
        current.push_str(word);
    }
    let indent = if out.is_empty() { 0 } else { 4 };
    out.push(format!("{}{current}", " ".repeat(indent)));
    out
}

/// The words of a command line as typed, quotes kept: split at spaces outside quotes.
fn raw_words(line: &str) -> Vec<&str> {
    let mut words = Vec::new();
    let mut start = None;
    let mut quote: Option<char> = None;
    for (i, c) in line.char_indices() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, ' ') => {
                if let Some(s) = start.take() {
                    words.push(&line[s..i]);
                }
            }
            (None, c) => {
                if c == '\'' || c == '"' {
                    quote = Some(c);
                }
                start.get_or_insert(i);
            }
        }
    }
    if let Some(s) = start {
        words.push(&line[s..]);
    }
    words
}

/// The command-line definition with every command's examples at the end of its help:
/// `-h` shows them alone, `--help` after the exit codes.
pub fn command(registry: &Registry) -> clap::Command {
    with_examples(registry, registry.definition(), "")
}

/// `argv` (the program's name first) parsed by [`command`]: the run's command line.
pub fn parse_from<I, T>(registry: &Registry, argv: I) -> Result<Cli, clap::Error>
where
    I: IntoIterator<Item = T>,
    T: Into<std::ffi::OsString> + Clone,
{
    registry.invocation(&command(registry).try_get_matches_from(argv)?)
}

fn with_examples(registry: &Registry, mut cmd: clap::Command, path: &str) -> clap::Command {
    let names: Vec<String> = cmd
        .get_subcommands()
        .map(|s| s.get_name().to_string())
        .collect();
    for name in names {
        let sub_path = match path {
            "" => name.clone(),
            _ => format!("{path} {name}"),
        };
        cmd = cmd.mut_subcommand(&name, |sub| with_examples(registry, sub, &sub_path));
    }
    let examples = examples(registry, path);
    if examples.is_empty() {
        return cmd;
    }
    let text = render(examples);
    let long = match cmd.get_after_long_help() {
        Some(before) => format!("{before}\n\n{text}"),
        None => text.clone(),
    };
    cmd.after_help(text).after_long_help(long)
}

/// A command line split into words the way a POSIX shell would for these examples:
/// single and double quotes, no expansions.
pub fn words(line: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut quote: Option<char> = None;
    for c in line.chars() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), c) => word.push(c),
            (None, '\'' | '"') => {
                quote = Some(c);
                in_word = true;
            }
            (None, ' ') => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            (None, c) => {
                word.push(c);
                in_word = true;
            }
        }
    }
    if in_word {
        words.push(word);
    }
    words
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::commands::probes::REGISTRY;

    /// Every command and subcommand, with its path ("" for the root).
    fn walk(cmd: &clap::Command, path: String, out: &mut Vec<(String, clap::Command)>) {
        out.push((path.clone(), cmd.clone()));
        for sub in cmd.get_subcommands().filter(|s| s.get_name() != "help") {
            let sub_path = match path.as_str() {
                "" => sub.get_name().to_string(),
                _ => format!("{path} {}", sub.get_name()),
            };
            walk(sub, sub_path, out);
        }
    }

    fn tree() -> Vec<(String, clap::Command)> {
        let mut cmd = command(&REGISTRY);
        cmd.build();
        let mut all = Vec::new();
        walk(&cmd, String::new(), &mut all);
        all
    }

    #[test]
    fn every_argument_is_described_and_every_leaf_has_examples() {
        let mut undescribed = Vec::new();
        let mut without_examples = Vec::new();
        for (path, cmd) in tree() {
            for arg in cmd.get_arguments() {
                let id = arg.get_id().as_str();
                if matches!(id, "help" | "version") && arg.get_help().is_some() {
                    continue;
                }
                if arg
                    .get_help()
                    .is_none_or(|h| h.to_string().trim().is_empty())
                {
                    undescribed.push(format!("indoubt {path}: {id}"));
                }
            }
            if cmd.get_subcommands().all(|s| s.get_name() == "help") {
                let n = examples(&REGISTRY, &path).len();
                let help = cmd
                    .get_after_help()
                    .map(|h| h.to_string())
                    .unwrap_or_default();
                let long = cmd
                    .get_after_long_help()
                    .map(|h| h.to_string())
                    .unwrap_or_default();
                let text = render(examples(&REGISTRY, &path));
                if !(2..=3).contains(&n) || help != text || !long.ends_with(&text) {
                    without_examples.push(path.clone());
                }
            }
        }
        assert!(
            undescribed.is_empty(),
            "arguments without help: {undescribed:#?}"
        );
        assert!(
            without_examples.is_empty(),
            "commands whose help does not end with 2 or 3 examples: {without_examples:?}"
        );
    }

    /// Each example is a command line clap accepts, and it runs the command it is shown
    /// under (not a neighbour's): the examples cannot drift from the flags.
    #[test]
    fn every_example_parses_to_its_own_command() {
        let mut checked = 0;
        for (path, _) in tree() {
            for e in examples(&REGISTRY, &path) {
                let words = words(e.line);
                assert_eq!(words[0], "indoubt", "{}", e.line);
                let matches = command(&REGISTRY)
                    .try_get_matches_from(&words)
                    .unwrap_or_else(|err| panic!("{}: {err}", e.line));
                assert!(REGISTRY.invocation(&matches).is_ok(), "{}", e.line);
                let mut ran = Vec::new();
                let mut m = &matches;
                while let Some((name, sub)) = m.subcommand() {
                    ran.push(name);
                    m = sub;
                }
                if !path.is_empty() {
                    assert_eq!(
                        ran.join(" "),
                        path,
                        "{} is not an example of {path}",
                        e.line
                    );
                }
                checked += 1;
            }
        }
        assert!(checked > 30, "{checked}");
    }

    #[test]
    fn global_options_have_their_own_section_in_every_command() {
        for (path, cmd) in tree() {
            for id in [
                "config", "output", "color", "no_color", "width", "verbose", "timeout",
            ] {
                let arg = cmd
                    .get_arguments()
                    .find(|a| a.get_id() == id)
                    .unwrap_or_else(|| panic!("indoubt {path} lacks --{id}"));
                assert_eq!(
                    arg.get_help_heading(),
                    Some("Global options"),
                    "indoubt {path}: --{id}"
                );
            }
            for arg in cmd.get_arguments() {
                if arg.get_help_heading() == Some("Global options") {
                    assert!(
                        arg.is_global_set(),
                        "indoubt {path}: {} is not global",
                        arg.get_id()
                    );
                }
            }
        }
    }

    /// An example is never broken by clap (at 80 columns) or man: its lines fit, are
    /// joined by ` \\`, and read back as the same words.
    #[test]
    fn long_examples_are_continued_lines_that_read_back_whole() {
        let mut continued = 0;
        for (path, _) in tree() {
            for e in examples(&REGISTRY, &path) {
                let lines = lines(e.line);
                for l in &lines {
                    assert!(
                        l.chars().count() <= ROOM,
                        "{path}: {l:?} is wider than {ROOM}"
                    );
                }
                continued += usize::from(lines.len() > 1);
                let joined = lines
                    .iter()
                    .map(|l| l.trim().trim_end_matches('\\').trim_end())
                    .collect::<Vec<_>>()
                    .join(" ");
                assert_eq!(words(&joined), words(e.line), "{}", e.line);
            }
        }
        assert!(continued > 0);
        assert_eq!(
            lines("indoubt reconcile --query 'SELECT a, b FROM t WHERE x >= $1 AND x < $2 AND y IS NOT NULL' --topic t"),
            [
                "indoubt reconcile \\",
                "    --query 'SELECT a, b FROM t WHERE x >= $1 AND x < $2 AND y IS NOT NULL' \\",
                "    --topic t"
            ]
        );
    }

    #[test]
    fn words_are_split_as_a_shell_would() {
        assert_eq!(
            words("indoubt resolve pg 'a b' --reason \"it's\" x"),
            ["indoubt", "resolve", "pg", "a b", "--reason", "it's", "x"]
        );
        assert_eq!(words("a ''"), ["a", ""]);
    }
}
