//! The crate's layers, checked by `cargo test --lib`: no module imports one that imports
//! it back (no circle), and the client libraries (src/kafka, src/pg, src/mysql,
//! src/reconcile) stay libraries: they import only each other and a few utilities, print
//! nothing, and name no flag of indoubt's (the application words their errors and gaps).
//! The few known exceptions are listed below, each with why.
//!
//! The import graph is read from the source, as a person would follow it: every path
//! starting with `crate::` or `super::` (brace groups expanded) is an edge to the deepest
//! module it names. Full-line comments and the `#[cfg(test)] mod tests` at the end of a
//! file are not read; a module naming one of its ancestors is no edge (a child is part
//! of its parent). A file's own `mod x;` is no edge either: only paths are.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// A module by its path from the crate root: `["pg", "session"]`; the root is `[]`.
type Module = Vec<String>;

/// Each module's imports, with the paths that make each edge (to say why it is one).
type Graph = BTreeMap<Module, BTreeMap<Module, BTreeSet<String>>>;

/// Utilities every layer may use, the libraries included: each imports nothing of the
/// crate but the others (checked below), so the libraries could be published with them.
const LEAVES: [&str; 11] = [
    "gid",
    "global_tx",
    "http",
    "metrics",
    "peer",
    "quote",
    "secret",
    "term::shown",
    "text",
    "tls",
    "units",
];

/// The client libraries: typed data and typed errors, for the application to judge and
/// word. src/kafka imports only itself and the leaves (it could be a crate of its own);
/// the others may also build on each other (reconcile reads PostgreSQL and Kafka, seata
/// its coordinator's store through PostgreSQL, appdb an application's database through
/// either PostgreSQL or MySQL).
const LIBRARIES: [&str; 10] = [
    "appdb",
    "camunda",
    "dbos",
    "kafka",
    "modulith",
    "mysql",
    "pg",
    "reconcile",
    "saga",
    "seata",
];

/// What the settings never import: they are resolved before any command runs, and a
/// command's types that the settings need live in src/settings.
const ABOVE_SETTINGS: [&str; 2] = ["commands", "resolve"];

/// Options of another program that a library names in that program's words, where
/// indoubt has a flag of the same name that mirrors it: (library, option). MySQL's TLS
/// settings are the mysql client's `--ssl-mode` and `--ssl-ca`.
const OTHER_PROGRAMS_OPTIONS: [(&str, &str); 2] = [("mysql", "--ssl-ca"), ("mysql", "--ssl-mode")];

/// Imports against the layers that are known and kept for now, and why. Any other fails
/// the test, and so does one of these that is gone: the list only shrinks.
const KNOWN_BREAKS: [(&str, &str, &str); 5] = [
    ("mysql::params", "fsafe", FILE_RULES),
    ("mysql::session", "fsafe", FILE_RULES),
    ("pg::conninfo", "fsafe", FILE_RULES),
    ("pg::service", "fsafe", FILE_RULES),
    ("pg::session", "fsafe", FILE_RULES),
];

/// Why pg and mysql import src/fsafe.rs.
const FILE_RULES: &str = "the checks of the files a connection reads settings or secrets \
    from (a password, service or option file, a key, a CA file) are the application's \
    (OpenSSH's rules, src/fsafe.rs), called from inside the library; the application \
    should pass its rules in, as it passes the environment to ConnParams::resolve";

/// What prints, in a library (the application decides what reaches a terminal); each
/// before any it contains.
const PRINTS: [&str; 7] = [
    "eprintln!",
    "println!",
    "eprint!(",
    "print!(",
    "term::status",
    "io::stdout",
    "io::stderr",
];

/// Operator prose a library must not hold: its gaps are typed, and the command words them.
const OPERATOR_PROSE: [&str; 1] = ["the monitoring role"];

fn name(module: &[String]) -> String {
    match module.is_empty() {
        true => "crate".to_string(),
        false => module.join("::"),
    }
}

/// Whether `module` is `root` (`"tls"`, `"term::shown"`) or inside it.
fn within(module: &[String], root: &str) -> bool {
    let root: Vec<&str> = root.split("::").collect();
    module.len() >= root.len() && module.iter().zip(&root).all(|(m, r)| m == r)
}

/// The source a module is read as: its text before `#[cfg(test)] mod tests` (tests
/// may use anything), without full-line comments (they explain, they import nothing).
fn code(text: &str) -> String {
    let mut cut = text;
    let mut from = 0;
    while let Some(at) = text[from..].find("#[cfg(test)]") {
        let at = from + at;
        let after = text[at + "#[cfg(test)]".len()..].trim_start();
        if after.starts_with("mod tests") {
            cut = &text[..at];
            break;
        }
        from = at + 1;
    }
    cut.lines()
        .filter(|line| !line.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Every module of the source tree (src/bin's programs are crates of their own), with its
/// code.
fn read_tree(src: &Path) -> BTreeMap<Module, (String, String)> {
    let mut modules = BTreeMap::new();
    let mut dirs = vec![src.to_path_buf()];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).expect("the source tree is readable") {
            let path = entry.expect("the source tree is readable").path();
            let relative = path.strip_prefix(src).expect("under src");
            if path.is_dir() {
                if relative != Path::new("bin") {
                    dirs.push(path);
                }
                continue;
            }
            if path.extension().is_none_or(|e| e != "rs") {
                continue;
            }
            let mut module: Module = relative
                .with_extension("")
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect();
            if module.last().is_some_and(|m| m == "mod") {
                module.pop();
            }
            if module == ["lib"] || module == ["main"] {
                module.clear();
            }
            let text = std::fs::read_to_string(&path).expect("the source is UTF-8");
            let file = relative.to_string_lossy().into_owned();
            modules.insert(module, (file, code(&text)));
        }
    }
    modules
}

/// The paths of the use tree (or plain path) at the start of `text`, which follows a
/// `crate::` or `super::`: `a::b` is `[a, b]`; `{a, b::{c, d}}` is `[a]`, `[b, c]`, `[b, d]`.
fn paths(text: &str) -> Vec<Vec<String>> {
    fn tree(text: &str, at: &mut usize, prefix: &[String], out: &mut Vec<Vec<String>>) {
        let bytes = text.as_bytes();
        let skip_blanks = |at: &mut usize| {
            while *at < bytes.len() && bytes[*at].is_ascii_whitespace() {
                *at += 1;
            }
        };
        let mut path = prefix.to_vec();
        loop {
            skip_blanks(at);
            if bytes.get(*at) == Some(&b'{') {
                *at += 1;
                loop {
                    skip_blanks(at);
                    match bytes.get(*at) {
                        None => return,
                        Some(b'}') => {
                            *at += 1;
                            return;
                        }
                        Some(b',') => *at += 1,
                        Some(_) => {
                            let before = *at;
                            tree(text, at, &path, out);
                            if *at == before {
                                *at += 1; // nothing a path is made of: step over it
                            }
                        }
                    }
                }
            }
            let start = *at;
            while *at < bytes.len() && (bytes[*at].is_ascii_alphanumeric() || bytes[*at] == b'_') {
                *at += 1;
            }
            if *at > start {
                path.push(text[start..*at].to_string());
            }
            if *at > start && text[*at..].starts_with("::") {
                *at += 2;
                if bytes.get(*at) == Some(&b'*') {
                    *at += 1;
                    out.push(path);
                    return;
                }
                continue;
            }
            // `a as b` imports `a`: the new name is stepped over.
            let mut look = *at;
            skip_blanks(&mut look);
            if *at > start && text[look..].starts_with("as ") {
                *at = look + "as ".len();
                skip_blanks(at);
                while *at < bytes.len()
                    && (bytes[*at].is_ascii_alphanumeric() || bytes[*at] == b'_')
                {
                    *at += 1;
                }
            }
            out.push(path);
            return;
        }
    }
    let mut out = Vec::new();
    tree(text, &mut 0, &[], &mut out);
    out
}

/// The import graph of `modules` (each with its code).
fn graph(modules: &BTreeMap<Module, (String, String)>) -> Graph {
    let mut graph = Graph::new();
    for (module, (_, code)) in modules {
        let edges = graph.entry(module.clone()).or_default();
        for keyword in ["crate::", "super::"] {
            for (at, _) in code.match_indices(keyword) {
                // `crate::` inside a longer name (`my_crate::`) is not the keyword.
                let before = code[..at].chars().next_back();
                if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
                    continue;
                }
                for parts in paths(&code[at + keyword.len()..]) {
                    let mut base: Module = match keyword {
                        "crate::" => Vec::new(),
                        _ => module[..module.len().saturating_sub(1)].to_vec(),
                    };
                    let mut parts = parts.as_slice();
                    while let Some((first, rest)) = parts.split_first() {
                        if first != "super" {
                            break;
                        }
                        base.pop();
                        parts = rest;
                    }
                    base.extend(parts.iter().cloned());
                    // The deepest module the path names (the rest is an item in it).
                    let target = (0..=base.len())
                        .rev()
                        .map(|n| base[..n].to_vec())
                        .find(|m| modules.contains_key(m))
                        .expect("the crate root is a module");
                    let ancestor = target.len() < module.len() && module.starts_with(&target);
                    if target != *module && !ancestor {
                        let why = format!("{}{}", keyword, parts.join("::"));
                        edges.entry(target).or_default().insert(why);
                    }
                }
            }
        }
    }
    graph
}

/// The circles: each set of two or more modules that all reach each other (Tarjan's
/// strongly connected components).
fn circles(graph: &Graph) -> Vec<Vec<Module>> {
    struct Walk<'a> {
        graph: &'a Graph,
        index: BTreeMap<&'a Module, usize>,
        low: BTreeMap<&'a Module, usize>,
        stack: Vec<&'a Module>,
        on_stack: BTreeSet<&'a Module>,
        found: Vec<Vec<Module>>,
    }
    impl<'a> Walk<'a> {
        fn visit(&mut self, module: &'a Module) {
            let n = self.index.len();
            self.index.insert(module, n);
            self.low.insert(module, n);
            self.stack.push(module);
            self.on_stack.insert(module);
            for next in self.graph.get(module).into_iter().flat_map(|e| e.keys()) {
                if !self.index.contains_key(next) {
                    self.visit(next);
                    let low = self.low[module].min(self.low[next]);
                    self.low.insert(module, low);
                } else if self.on_stack.contains(next) {
                    let low = self.low[module].min(self.index[next]);
                    self.low.insert(module, low);
                }
            }
            if self.low[module] == self.index[module] {
                let mut component = Vec::new();
                while let Some(member) = self.stack.pop() {
                    self.on_stack.remove(member);
                    component.push(member.clone());
                    if member == module {
                        break;
                    }
                }
                if component.len() > 1 {
                    component.sort();
                    self.found.push(component);
                }
            }
        }
    }
    let mut walk = Walk {
        graph,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        found: Vec::new(),
    };
    for module in graph.keys() {
        if !walk.index.contains_key(module) {
            walk.visit(module);
        }
    }
    walk.found.sort();
    walk.found
}

/// Each circle with the imports that close it, for the failure message.
fn describe_circles(graph: &Graph, found: &[Vec<Module>]) -> String {
    let mut out = String::new();
    for circle in found {
        let names: Vec<String> = circle.iter().map(|m| name(m)).collect();
        out.push_str(&format!("circle: {}\n", names.join(", ")));
        for from in circle {
            for (to, why) in &graph[from] {
                if circle.contains(to) {
                    let why: Vec<&str> = why.iter().map(String::as_str).collect();
                    out.push_str(&format!(
                        "  {} -> {} ({})\n",
                        name(from),
                        name(to),
                        why.join(", ")
                    ));
                }
            }
        }
    }
    out
}

fn leaf(module: &[String]) -> bool {
    LEAVES.iter().any(|l| within(module, l))
}

fn library(module: &[String]) -> bool {
    LIBRARIES.iter().any(|l| within(module, l))
}

/// A layer rule: what it says, and whether it lets a module import another.
struct Rule {
    says: &'static str,
    may_import: fn(&[String]) -> bool,
}

/// The rule over what `from` imports; None when it may import any module (a circle
/// aside).
fn rule(from: &[String]) -> Option<Rule> {
    if leaf(from) {
        return Some(Rule {
            says: "a leaf utility imports only leaves",
            may_import: leaf,
        });
    }
    if within(from, "kafka") {
        return Some(Rule {
            says: "src/kafka imports only itself and the leaves",
            may_import: |m| within(m, "kafka") || leaf(m),
        });
    }
    if library(from) {
        return Some(Rule {
            says: "a library imports only the libraries and the leaves",
            may_import: |m| library(m) || leaf(m),
        });
    }
    if within(from, "settings") {
        return Some(Rule {
            says: "the settings import no command and nothing of resolve",
            may_import: |m| !ABOVE_SETTINGS.iter().any(|a| within(m, a)),
        });
    }
    None
}

/// The imports that break a layer rule, one line each.
fn layer_breaks(graph: &Graph) -> Vec<String> {
    let mut out = Vec::new();
    for (from, edges) in graph {
        let Some(rule) = rule(from) else {
            continue;
        };
        for (to, why) in edges {
            let known = KNOWN_BREAKS
                .iter()
                .any(|(f, t, _)| name(from) == *f && name(to) == *t);
            if !(rule.may_import)(to) && !known {
                let why: Vec<&str> = why.iter().map(String::as_str).collect();
                out.push(format!(
                    "{} -> {} ({}): {}",
                    name(from),
                    name(to),
                    why.join(", "),
                    rule.says
                ));
            }
        }
    }
    out
}

/// Every long flag of indoubt's, as `--name`, from the CLI's own definitions.
fn long_flags() -> BTreeSet<String> {
    let mut flags = BTreeSet::new();
    let mut commands = vec![crate::help::command(&crate::commands::probes::REGISTRY)];
    while let Some(command) = commands.pop() {
        for arg in command.get_arguments() {
            for long in arg.get_long_and_visible_aliases().into_iter().flatten() {
                flags.insert(format!("--{long}"));
            }
        }
        commands.extend(command.get_subcommands().cloned());
    }
    flags
}

/// Whether `line` holds `flag` as a whole word (`--since`, not `--since-x`).
fn names_flag(line: &str, flag: &str) -> bool {
    line.match_indices(flag).any(|(at, _)| {
        let after = line[at + flag.len()..].chars().next();
        let before = line[..at].chars().next_back();
        !after.is_some_and(|c| c.is_alphanumeric() || c == '-' || c == '_')
            && !before.is_some_and(|c| c.is_alphanumeric() || c == '-')
    })
}

/// The lines of the libraries that print, name a flag of indoubt's, or hold operator prose.
fn voice_breaks(modules: &BTreeMap<Module, (String, String)>) -> Vec<String> {
    let flags = long_flags();
    let mut out = Vec::new();
    for (module, (file, code)) in modules {
        if !LIBRARIES.iter().any(|l| within(module, l)) {
            continue;
        }
        for line in code.lines() {
            let mut problems = Vec::new();
            // The first that matches (`println!` is in `eprintln!`).
            problems.extend(
                PRINTS
                    .iter()
                    .find(|p| line.contains(**p))
                    .map(|p| format!("prints ({p})")),
            );
            let other_program = |flag: &str| {
                OTHER_PROGRAMS_OPTIONS
                    .iter()
                    .any(|(library, option)| within(module, library) && flag == *option)
            };
            problems.extend(
                flags
                    .iter()
                    .filter(|f| names_flag(line, f) && !other_program(f))
                    .map(|f| format!("names the flag {f}")),
            );
            problems.extend(
                OPERATOR_PROSE
                    .iter()
                    .filter(|p| line.contains(**p))
                    .map(|p| format!("holds operator prose ({p:?})")),
            );
            for problem in problems {
                out.push(format!("src/{file}: {problem}: {}", line.trim()));
            }
        }
    }
    out
}

fn source_tree() -> BTreeMap<Module, (String, String)> {
    read_tree(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src"))
}

#[test]
fn no_module_imports_one_that_imports_it_back() {
    let graph = graph(&source_tree());
    let found = circles(&graph);
    assert!(
        found.is_empty(),
        "import circles (move what both use into a lower module):\n{}",
        describe_circles(&graph, &found)
    );
}

#[test]
fn layers_point_one_way() {
    let graph = graph(&source_tree());
    let gone: Vec<String> = KNOWN_BREAKS
        .iter()
        .filter(|(from, to, _)| {
            let (from, to) = (from.split("::"), to.split("::"));
            let (from, to): (Module, Module) = (
                from.map(String::from).collect(),
                to.map(String::from).collect(),
            );
            !graph
                .get(&from)
                .is_some_and(|edges| edges.contains_key(&to))
        })
        .map(|(from, to, _)| format!("{from} -> {to}"))
        .collect();
    assert!(
        gone.is_empty(),
        "known imports against the layers that are gone (take them off KNOWN_BREAKS): {}",
        gone.join(", ")
    );
    let breaks = layer_breaks(&graph);
    assert!(
        breaks.is_empty(),
        "imports against the layers:\n{}",
        breaks.join("\n")
    );
}

#[test]
fn libraries_speak_in_no_voice_of_the_cli() {
    let breaks = voice_breaks(&source_tree());
    assert!(
        breaks.is_empty(),
        "the libraries return typed data and errors; the application words them:\n{}",
        breaks.join("\n")
    );
}

/// The checker itself: a planted circle (through a brace group, a `super::` and a nested
/// `super::super::`) is found; a child naming its parent, a comment and the tests at the
/// end of a file are no edges.
#[test]
fn a_planted_circle_is_found() {
    let tree: BTreeMap<Module, (String, String)> = [
        (vec![], ""),
        (vec!["a"], "use crate::b::{self, Thing};"),
        (vec!["b"], "use super::c::deep::Item;"),
        (vec!["c"], "use crate::units;"),
        (vec!["c", "deep"], "fn f() { super::super::a::g() }\nuse super::Parent;"),
        (
            vec!["units"],
            "// use crate::a; (a comment imports nothing)\n#[cfg(test)]\nmod tests {\n    use crate::a;\n}",
        ),
    ]
    .into_iter()
    .map(|(m, text)| {
        let m: Module = m.into_iter().map(String::from).collect();
        (m.clone(), (m.join("/"), code(text)))
    })
    .collect();
    let graph = graph(&tree);
    let module = |s: &str| -> Module { s.split("::").map(String::from).collect() };
    assert_eq!(
        circles(&graph),
        [vec![module("a"), module("b"), module("c::deep")]]
    );
    assert!(!graph[&module("c::deep")].contains_key(&module("c")));
    assert!(graph[&module("units")].is_empty());
}

#[test]
fn use_trees_are_expanded() {
    let text = "{self, a::{b, c as d}, e::*}, f";
    let found: Vec<String> = paths(text).iter().map(|p| p.join("::")).collect();
    assert_eq!(found, ["self", "a::b", "a::c", "e"]);
    assert_eq!(paths("gid::hex(&x)"), [vec!["gid", "hex"]]);
}
