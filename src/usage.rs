//! Help asked for alongside other arguments. clap prints help and exits 0 wherever -h or
//! --help stands, so a monitor's command line written with a psql habit
//! (`indoubt kafka lso -h HOST …`) would read OK forever; here help comes only when
//! nothing but command names is given with it, and is otherwise refused (exit 3).

use std::ffi::OsString;

/// What the arguments (without the program name) ask of help.
#[derive(Debug, PartialEq, Eq)]
pub enum HelpAsked {
    /// No -h or --help among them: whatever clap printed was not asked for that way
    /// (`indoubt help pg`, or help in place of a missing subcommand).
    No,
    /// Only command names and the help flag: show it.
    Alone,
    /// With other arguments; `path` is the command they name ("kafka lso").
    WithOthers { path: String },
}

/// Walks the arguments down the command tree: a word that names a subcommand descends,
/// -h/--help is the flag, anything else is another argument.
pub fn help_asked(cmd: &clap::Command, args: &[OsString]) -> HelpAsked {
    let mut current = cmd;
    let mut path = Vec::new();
    let mut flag = false;
    let mut others = false;
    for arg in args {
        let Some(text) = arg.to_str() else {
            others = true;
            continue;
        };
        if text == "--" {
            break;
        }
        if text == "-h" || text == "--help" {
            flag = true;
            continue;
        }
        match current.find_subcommand(text) {
            Some(sub) if !others => {
                path.push(sub.get_name().to_string());
                current = sub;
            }
            _ => others = true,
        }
    }
    match (flag, others) {
        (false, _) => HelpAsked::No,
        (true, false) => HelpAsked::Alone,
        (true, true) => HelpAsked::WithOthers {
            path: path.join(" "),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn asked(args: &[&str]) -> HelpAsked {
        let args: Vec<OsString> = args.iter().map(OsString::from).collect();
        help_asked(
            &crate::help::command(&crate::commands::probes::REGISTRY),
            &args,
        )
    }

    #[test]
    fn help_is_alone_only_with_command_names() {
        assert_eq!(asked(&["-h"]), HelpAsked::Alone);
        assert_eq!(asked(&["kafka", "lso", "-h"]), HelpAsked::Alone);
        assert_eq!(asked(&["pg", "prepared", "--help"]), HelpAsked::Alone);
        assert_eq!(asked(&["--help", "check"]), HelpAsked::Alone);
        assert_eq!(
            asked(&["kafka", "lso", "-h", "127.0.0.1"]),
            HelpAsked::WithOthers {
                path: "kafka lso".into()
            }
        );
        assert_eq!(
            asked(&["check", "--only", "pg", "--help"]),
            HelpAsked::WithOthers {
                path: "check".into()
            }
        );
        // A word after another argument is a value, not a command ("--topic pg").
        assert_eq!(
            asked(&["kafka", "producers", "--topic", "pg", "-h"]),
            HelpAsked::WithOthers {
                path: "kafka producers".into()
            }
        );
        assert_eq!(asked(&["help", "pg"]), HelpAsked::No);
        assert_eq!(asked(&["resolve", "pg", "--", "-h"]), HelpAsked::No);
    }
}
