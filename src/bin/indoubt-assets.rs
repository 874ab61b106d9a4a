//! Writes completions/ and man/ under the given directory (default: the current one).

// A build tool printing the paths it wrote, not indoubt's output (clippy.toml bans the
// print macros in indoubt).
#[allow(clippy::disallowed_macros)]
fn main() -> std::process::ExitCode {
    let root = std::path::PathBuf::from(std::env::args().nth(1).unwrap_or_else(|| ".".into()));
    for (path, contents) in indoubt::assets::render_all() {
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
