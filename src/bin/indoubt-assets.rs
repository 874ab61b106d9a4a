//! Writes completions/, man/, the README's runbook table and the alert rules' runbook
//! annotations under the given directory (default: the current one).

// A build tool printing the paths it wrote, not indoubt's output (clippy.toml bans the
// print macros in indoubt).
#[allow(clippy::disallowed_macros)]
fn main() -> std::process::ExitCode {
    let root = std::path::PathBuf::from(std::env::args().nth(1).unwrap_or_else(|| ".".into()));
    let files = match indoubt::assets::render_all() {
        Ok(files) => files,
        Err(e) => {
            eprintln!("indoubt-assets: {e}");
            return std::process::ExitCode::from(1);
        }
    };
    for (path, contents) in files {
        let target = root.join(&path);
        let written = target
            .parent()
            .map_or(Ok(()), std::fs::create_dir_all)
            .map_err(anyhow::Error::from)
            .and_then(|()| {
                indoubt::fsafe::replace(&target, indoubt::fsafe::Kind::Shared, "asset", |w| {
                    w.write_all(&contents)
                })
            });
        if let Err(e) = written {
            eprintln!("indoubt-assets: writing {}: {e:#}", target.display());
            return std::process::ExitCode::from(1);
        }
        println!("{}", path.display());
    }
    std::process::ExitCode::SUCCESS
}
