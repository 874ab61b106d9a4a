//! Every file indoubt writes goes through here: made fresh under an unpredictable name in the target's own directory (O_CREAT|O_EXCL|O_NOFOLLOW), written, fsynced, renamed over the target, the directory fsynced; and the checks that refuse a file or directory another user planted or can change.
//!
//! indoubt often runs as root in directories other users can write (node_exporter's
//! textfile directory is commonly group-writable). A fixed or guessable temporary name
//! there lets such a user pre-plant a symbolic link and have root overwrite any file, so
//! no file is ever opened for writing by a name someone else could have chosen: the
//! temporary name is random and created exclusively (a link or file already there makes
//! the create fail, never followed), and the rename replaces whatever is at the target's
//! name without following it. The directories above a shared target are trusted as
//! given; those above indoubt's own files are checked as OpenSSH checks the path to
//! `authorized_keys` (`safe_path`): whoever can rename one of them can move the files away.
//!
//! The files indoubt reads its settings and secrets from (the config, a properties
//! file, a file a config provider reads, a MySQL option file, a PostgreSQL service file)
//! are read through [`read_settings`], with the checks OpenSSH makes of its config:
//! another user's, or one others can write, is refused. The files a TLS or Kerberos
//! library reads (keys, keystores, CA files, keytabs), and the password file, are checked
//! the same way by [`check_secret_file`] before anything connects.
//!
//! This is the only module allowed to create, open for writing or rename files
//! (`clippy.toml` disallows the std calls everywhere else).

use crate::error::hinted;
use anyhow::{Context as _, Result};
use rustix::fs::OFlags;
use std::fs::{File, Metadata, OpenOptions};
use std::io::{self, BufWriter, Write};
use std::os::unix::fs::{FileTypeExt, MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::Path;

/// Who the written file is for, which decides its mode and what may stand at its path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Output for other programs and people (the Prometheus textfile, `--ids-out`,
    /// completions): mode 0644 (less the umask). A symbolic link or anything but a
    /// regular file at the path is refused.
    Shared,
    /// indoubt's own state (the audit head, the outbox state): mode 0600, in a directory
    /// made 0700. Refused besides: a file or directory that is not yours or root's, a file
    /// writable by group or others or with other hard links, a directory writable by
    /// group or others without the sticky bit.
    Private,
}

impl Kind {
    fn mode(self) -> u32 {
        match self {
            Kind::Shared => 0o644,
            Kind::Private => 0o600,
        }
    }
}

/// Replaces the file at `path` with what `write` produces, all or nothing: readers see
/// the old file or the whole new one, and after a crash one of the two is on disk.
/// `what` names the file in messages ("Prometheus file", "audit head").
pub fn replace(
    path: &Path,
    kind: Kind,
    what: &str,
    write: impl FnOnce(&mut dyn Write) -> io::Result<()>,
) -> Result<()> {
    let name = path
        .file_name()
        .with_context(|| format!("writing the {what} {}: not a file name", path.display()))?;
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    if kind == Kind::Private {
        check_dir(dir)?;
    }
    // What stands at the path now. The rename below replaces a name and never follows
    // it, so a link swapped in after this look is replaced, not written through.
    match std::fs::symlink_metadata(path) {
        Ok(meta) => check_file(path, &meta, kind, what)?,
        Err(e) if e.kind() == io::ErrorKind::NotFound => {}
        Err(e) => {
            return Err(e).with_context(|| format!("looking at the {what} {}", path.display()))
        }
    }
    let mut prefix = std::ffi::OsString::from(".");
    prefix.push(name);
    prefix.push(".");
    let mode = kind.mode();
    let tmp = tempfile::Builder::new()
        .prefix(&prefix)
        .suffix(".tmp")
        .make_in(dir, |p| create_exclusive(p, mode))
        .with_context(|| format!("creating a temporary file in {}", dir.display()))?;
    let written = (|| {
        let mut out = BufWriter::new(tmp.as_file());
        write(&mut out)?;
        out.flush()?;
        drop(out);
        tmp.as_file().sync_all()
    })();
    // On any error `tmp` is dropped here, which removes the temporary file.
    written.with_context(|| format!("writing the {what} {}", path.display()))?;
    tmp.persist(path)
        .map_err(|e| e.error)
        .with_context(|| format!("renaming into the {what} {}", path.display()))?;
    sync_dir(dir)
}

/// Creates `path`, which must not exist (not even as a dangling link), for writing.
#[allow(clippy::disallowed_methods)] // the one exclusive create
fn create_exclusive(path: &Path, mode: u32) -> io::Result<File> {
    OpenOptions::new()
        .read(true)
        .write(true)
        .create_new(true)
        .mode(mode)
        .custom_flags(OFlags::NOFOLLOW.bits() as i32)
        .open(path)
}

/// Makes the rename durable: a directory's entries are only on disk once it is fsynced.
fn sync_dir(dir: &Path) -> Result<()> {
    File::open(dir)
        .and_then(|d| d.sync_all())
        .with_context(|| format!("syncing the directory {}", dir.display()))
}

/// Opens indoubt's own file (the audit log) to append, creating it 0600 if it is missing
/// (and its directory 0700). A link at the path is never followed: a dangling one would
/// otherwise create its target.
#[allow(clippy::disallowed_methods)] // the one open for appending
pub fn open_append(path: &Path, what: &str) -> Result<File> {
    create_private_dir(parent_of(path))?;
    // O_NONBLOCK: a FIFO planted at the path must not hang the open.
    let flags = (OFlags::NOFOLLOW | OFlags::NONBLOCK).bits() as i32;
    let existing = || {
        OpenOptions::new()
            .read(true)
            .append(true)
            .custom_flags(flags)
            .open(path)
    };
    // An existing file is opened without O_CREAT, a missing one made with O_EXCL: each
    // open does only what it must (O_CREAT on another user's file in a sticky directory
    // is itself refused where fs.protected_regular is set, with a less useful error).
    let file = match existing() {
        Err(e) if e.kind() == io::ErrorKind::NotFound => match OpenOptions::new()
            .read(true)
            .append(true)
            .create_new(true)
            .mode(0o600)
            .custom_flags(flags)
            .open(path)
        {
            // Made by someone else in between: look at theirs.
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => existing(),
            other => other,
        },
        other => other,
    }
    .map_err(|e| opened(path, what, e))?;
    // The checks look at the file opened, not at the name: nothing can be swapped in between.
    let meta = file
        .metadata()
        .with_context(|| format!("looking at the {what} {}", path.display()))?;
    check_file(path, &meta, Kind::Private, what)?;
    Ok(file)
}

/// Opens indoubt's own file to read it, or None when there is none. The same checks as
/// for writing: what another user could have planted or changed is not read as ours.
#[allow(clippy::disallowed_methods)] // read-only, but O_NOFOLLOW needs OpenOptions
pub fn open_read(path: &Path, what: &str) -> Result<Option<File>> {
    let dir = parent_of(path);
    // Only a directory that is not there means no file; one that cannot be looked at
    // (permissions) is an error, not an empty log. A link there is not followed.
    match std::fs::symlink_metadata(dir) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => {
            return Err(e).with_context(|| format!("looking at the directory {}", dir.display()))
        }
        Ok(_) => check_dir(dir)?,
    }
    let file = match OpenOptions::new()
        .read(true)
        .custom_flags((OFlags::NOFOLLOW | OFlags::NONBLOCK).bits() as i32)
        .open(path)
    {
        Ok(f) => f,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(opened(path, what, e)),
    };
    let meta = file
        .metadata()
        .with_context(|| format!("looking at the {what} {}", path.display()))?;
    check_file(path, &meta, Kind::Private, what)?;
    Ok(Some(file))
}

/// Reads a data file the operator names (`resolve reconcile --ids-from`), whole: a
/// regular file, never a link (one planted in a shared directory would make indoubt read
/// any file the operator can, and send its lines on as ids), nor a FIFO or a device (one
/// hangs the open or the read, the other never ends), of at most `limit` bytes.
#[allow(clippy::disallowed_methods)] // read-only, but O_NOFOLLOW needs OpenOptions
pub fn read_input(path: &Path, what: &str, limit: u64) -> Result<Vec<u8>> {
    let file = OpenOptions::new()
        .read(true)
        .custom_flags((OFlags::NOFOLLOW | OFlags::NONBLOCK).bits() as i32)
        .open(path)
        .map_err(|e| opened(path, what, e))?;
    let meta = file
        .metadata()
        .with_context(|| format!("looking at the {what} {}", path.display()))?;
    if !meta.is_file() {
        return Err(refused(
            format!("the {what} {} is not a regular file", path.display()),
            "name a file (a FIFO, a device or a directory is not read)",
        ));
    }
    if meta.len() > limit {
        return Err(refused(
            format!(
                "the {what} {} holds {} bytes: more than the {limit} read",
                path.display(),
                meta.len()
            ),
            "split it",
        ));
    }
    let mut bytes = Vec::new();
    io::Read::read_to_end(&mut io::Read::take(file, limit), &mut bytes)
        .with_context(|| format!("reading the {what} {}", path.display()))?;
    Ok(bytes)
}

/// A file indoubt read its settings or secrets from, whole: its text (a `String`, or the
/// bytes of a file that need not be UTF-8, as a service file).
#[derive(Debug)]
pub struct SettingsFile<T = String> {
    pub text: T,
    path: std::path::PathBuf,
    what: String,
    mode: u32,
}

impl<T> SettingsFile<T> {
    /// Says on stderr, once per file and run, that group or others can read it: for a
    /// file that writes a secret out (a password in the YAML or a properties file)
    /// rather than naming where one is.
    pub fn warn_if_others_can_read(&self) {
        warn_readable(
            &self.path,
            &self.what,
            self.mode,
            "holds a secret",
            "chmod go-r it (or name the secret with ${file:…} / ${env:…} from a file only you can read)",
        );
    }

    /// The same warning, with what to do said for this kind of file.
    pub fn warn_if_others_can_read_as(&self, remedy: &str) {
        warn_readable(&self.path, &self.what, self.mode, "holds a secret", remedy);
    }
}

/// The warning of a file holding a secret that group or others can read, once per file
/// and run.
fn warn_readable(path: &Path, what: &str, mode: u32, holds: &str, remedy: &str) {
    if mode & 0o044 == 0 {
        return;
    }
    static WARNED: std::sync::Mutex<Vec<std::path::PathBuf>> = std::sync::Mutex::new(Vec::new());
    let mut warned = WARNED.lock().unwrap_or_else(|p| p.into_inner());
    if warned.iter().any(|w| w == path) {
        return;
    }
    warned.push(path.to_path_buf());
    crate::term::status(&crate::shown!(
        "indoubt: warning: the {} {} {} and is readable by {} (mode {}): {}",
        what,
        path.display(),
        holds,
        readers(mode),
        format!("{:04o}", mode & 0o7777),
        remedy
    ));
}

/// Reads a file of settings or secrets (the config, a properties file, a file a config
/// provider reads, a MySQL option file) whole, refusing, as OpenSSH refuses a config
/// file, one that belongs to another user (root aside) or that group or others can write:
/// whoever can change it decides where indoubt connects and which secrets it sends there.
/// A link is followed (a config may be one, as Kubernetes mounts them): the file it leads
/// to is checked, on the descriptor read. A device (`/dev/null`) is checked for its owner
/// only.
pub fn read_settings(path: &Path, what: &str) -> Result<SettingsFile> {
    let file = read_settings_bytes(path, what)?;
    let text = String::from_utf8(file.text).map_err(|_| {
        io::Error::new(
            io::ErrorKind::InvalidData,
            "stream did not contain valid UTF-8",
        )
    })?;
    Ok(SettingsFile {
        text,
        path: file.path,
        what: file.what,
        mode: file.mode,
    })
}

/// [`read_settings`] of a file whose text need not be UTF-8 (a PostgreSQL service file,
/// read as libpq reads it, byte by byte).
pub fn read_settings_bytes(path: &Path, what: &str) -> Result<SettingsFile<Vec<u8>>> {
    // Looked at before it is opened: another user's FIFO must not hang the open.
    let before = std::fs::metadata(path)?;
    check_settings(path, &before, what)?;
    let mut file = File::open(path)?;
    let meta = file.metadata()?;
    check_settings(path, &meta, what)?;
    let mut bytes = Vec::new();
    io::Read::read_to_end(&mut file, &mut bytes)?;
    Ok(SettingsFile {
        text: bytes,
        path: path.to_path_buf(),
        what: what.to_string(),
        mode: meta.permissions().mode(),
    })
}

/// Who may read a file that holds a secret or unlocks one (a private key, a keystore, a
/// keytab), beside its owner.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Readers {
    /// libpq's rule for a client key (sslkey), which it refuses otherwise: no one, or, for
    /// a file of root's read by another user, root's group (at most 0640).
    LikeLibpq,
    /// Anyone, with a warning: the tools that read it accept it too (librdkafka's keys and
    /// keystores, MIT Kerberos's keytabs), and refusing would break a setup that works.
    Warned,
}

/// Checks a file that indoubt, or a library it calls, will read a secret from, or what
/// decides whom it trusts (a CA file), before anything connects: refused, as
/// [`read_settings`] refuses, when another user owns it (root aside) or group or others
/// can write it: whoever can change a key or a CA file can have indoubt talk to their
/// server as you. `readers` says what is made of group or others reading it (None: a CA
/// file, public). A file that is not there, or cannot be looked at, is left to its
/// reader to say so.
pub fn check_secret_file(path: &Path, what: &str, readers: Option<Readers>) -> Result<()> {
    let Ok(meta) = std::fs::metadata(path) else {
        return Ok(());
    };
    check_settings(path, &meta, what)?;
    if !meta.is_file() {
        return Ok(());
    }
    let mode = meta.permissions().mode();
    let me = rustix::process::geteuid().as_raw();
    match readers {
        None => Ok(()),
        Some(Readers::Warned) => {
            warn_readable(
                path,
                what,
                mode,
                "holds a secret",
                "whoever can read it can use it; chmod go-r it",
            );
            Ok(())
        }
        // As libpq's fe-secure-openssl.c: the current user's with no group or other
        // access, or root's with at most read by root's group.
        Some(Readers::LikeLibpq) => {
            let (too_open, allowed) = match meta.uid() {
                uid if uid == me => (
                    mode & 0o077 != 0,
                    "0600 (u=rw) or less for a key of your own",
                ),
                0 => (
                    mode & 0o037 != 0,
                    "0640 (u=rw,g=r) or less for a key of root's",
                ),
                _ => (false, ""),
            };
            if too_open {
                return Err(refused(
                    format!(
                        "the {what} {} has group or world access (mode {:04o}): whoever can read it can use it",
                        path.display(),
                        mode & 0o7777
                    ),
                    format!(
                        "chmod go-rwx {}: libpq requires {allowed}, and refuses it too",
                        path.display()
                    ),
                ));
            }
            Ok(())
        }
    }
}

fn check_settings(path: &Path, meta: &Metadata, what: &str) -> Result<()> {
    let shown = format!("the {what} {}", path.display());
    if let Some(owner) = foreign_owner(meta) {
        return Err(refused(
            format!("{shown} is owned by uid {owner}, not by you or root: that user decides what it says (where indoubt connects, which secrets it sends)"),
            "if it is genuinely yours, `chown` it to you and `chmod go-w` it; otherwise keep it as evidence and find out who made it",
        ));
    }
    let mode = meta.permissions().mode();
    if mode & 0o022 != 0 && !meta.file_type().is_char_device() {
        return Err(refused(
            format!(
                "{shown} is writable by {} (mode {:04o}): any of them could have changed it",
                writers(mode),
                mode & 0o7777
            ),
            format!("check what it says, then `chmod go-w {}`", path.display()),
        ));
    }
    Ok(())
}

fn readers(mode: u32) -> &'static str {
    match (mode & 0o040 != 0, mode & 0o004 != 0) {
        (true, true) => "group and others",
        (true, false) => "its group",
        _ => "others",
    }
}

/// ELOOP from O_NOFOLLOW means a symbolic link stands at the path: say so.
fn opened(path: &Path, what: &str, e: io::Error) -> anyhow::Error {
    if e.raw_os_error() == Some(rustix::io::Errno::LOOP.raw_os_error()) {
        symlink_refused(path, what)
    } else {
        anyhow::Error::new(e).context(format!("opening the {what} {}", path.display()))
    }
}

fn symlink_refused(path: &Path, what: &str) -> anyhow::Error {
    refused(
        format!(
            "the {what} {} is a symbolic link, which indoubt never follows",
            path.display()
        ),
        "someone may have planted it to make indoubt write elsewhere: look at where it points, remove it, and give the real path",
    )
}

/// The directory a file is in: "." for a bare name.
fn parent_of(path: &Path) -> &Path {
    path.parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."))
}

/// Creates indoubt's own directory (and its missing parents) 0700, then checks it. The
/// deepest directory already there is checked first, with every one above it: nothing
/// is made where another user could rename it away (another user's HOME, say).
pub fn create_private_dir(dir: &Path) -> Result<()> {
    use std::os::unix::fs::DirBuilderExt;
    let mut missing = Vec::new();
    let mut existing = dir;
    loop {
        match std::fs::symlink_metadata(existing) {
            Ok(_) => break,
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                missing.push(existing);
                existing = parent_of(existing);
            }
            Err(e) => {
                return Err(e)
                    .with_context(|| format!("looking at the directory {}", existing.display()))
            }
        }
    }
    if !missing.is_empty() {
        check_tree(existing, dir)?;
    }
    for made in missing.iter().rev() {
        match std::fs::DirBuilder::new().mode(0o700).create(made) {
            // Made by someone else meanwhile: checked below like any other.
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
            other => other.with_context(|| format!("creating {}", made.display()))?,
        }
    }
    check_dir(dir)
}

/// The scratch directories alive now, for `remove_scratch_dirs` at exit.
static SCRATCH: std::sync::Mutex<Vec<std::path::PathBuf>> = std::sync::Mutex::new(Vec::new());

/// A directory of one run's own for data too large for memory (reconcile's sorted runs):
/// made 0700 under a random name in a parent that passes `check_dir` (so nobody else can
/// enter it, or rename or replace it), its files nameless, and removed when dropped — or
/// by `remove_scratch_dirs` when a signal ends the process before the drop.
pub struct ScratchDir {
    path: std::path::PathBuf,
}

impl ScratchDir {
    pub fn create(parent: &Path, prefix: &str) -> Result<ScratchDir> {
        check_dir(parent)?;
        let path = tempfile::Builder::new()
            .prefix(prefix)
            .permissions(std::fs::Permissions::from_mode(0o700))
            .tempdir_in(parent)
            .with_context(|| format!("creating a scratch directory in {}", parent.display()))?
            .keep();
        SCRATCH
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push(path.clone());
        Ok(ScratchDir { path })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Whether `parent` can hold a scratch directory, asked before a long run starts
    /// rather than at its first spill minutes in.
    pub fn check_parent(parent: &Path, flag: &str) -> Result<()> {
        check_dir(parent).map_err(|e| {
            hinted(
                format!("{e:#}"),
                format!("give {flag} a directory of your own (mode 0700), or a sticky one as /tmp is (mode 1777); a Kubernetes emptyDir is 0777: chmod 1777 it first, or use a subdirectory made 0700"),
            )
        })
    }

    /// A file without a name (O_TMPFILE, or made and unlinked at once where the file
    /// system lacks it), read and written through its handle: its space is given back
    /// when the handle closes, even when indoubt is killed.
    pub fn nameless_file(&self) -> io::Result<File> {
        tempfile::tempfile_in(&self.path)
    }
}

impl Drop for ScratchDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.path);
        SCRATCH
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .retain(|p| p != &self.path);
    }
}

/// Removes the scratch directories still alive: the exit path calls it, since a signal
/// ends the process with work on other threads that still holds them.
pub fn remove_scratch_dirs() {
    let dirs = std::mem::take(&mut *SCRATCH.lock().unwrap_or_else(|p| p.into_inner()));
    for dir in dirs {
        let _ = std::fs::remove_dir_all(dir);
    }
}

/// A directory holding indoubt's own files: whoever can replace entries in it can
/// replace the files, so it must be yours or root's and not writable by group or others
/// (unless sticky, as /tmp is: then others cannot rename or remove what is not theirs).
/// It must not be a symbolic link (whoever made the link decides where the files go),
/// and every directory above it must pass the same owner and mode checks: whoever can
/// rename one of them can move the whole directory away, or put another in its place.
fn check_dir(dir: &Path) -> Result<()> {
    let meta =
        std::fs::symlink_metadata(dir).with_context(|| format!("looking at {}", dir.display()))?;
    if meta.file_type().is_symlink() {
        return Err(refused(
            format!(
                "the directory {} is a symbolic link, which indoubt never follows to its own files",
                dir.display()
            ),
            "whoever can change the link decides where indoubt's files go: give the real directory (`realpath` shows it) in --audit-log, audit.path or --spill-dir",
        ));
    }
    if !meta.is_dir() {
        return Err(refused(
            format!("{} is not a directory", dir.display()),
            "give a path in a directory",
        ));
    }
    check_tree(dir, dir)
}

/// `dir` and every directory above it, as OpenSSH's `safe_path` walks the path to
/// `authorized_keys`: each yours or root's, and not writable by group or others unless
/// sticky. The path is walked as given (a link on it is followed, the directory holding
/// the link checked too) and as it resolves. `holding` names the directory the files
/// are in, for messages.
fn check_tree(dir: &Path, holding: &Path) -> Result<()> {
    let absolute =
        std::path::absolute(dir).with_context(|| format!("looking at {}", dir.display()))?;
    let resolved =
        std::fs::canonicalize(dir).with_context(|| format!("looking at {}", dir.display()))?;
    let holding_absolute = std::path::absolute(holding).unwrap_or_else(|_| holding.into());
    let holding_resolved = std::fs::canonicalize(holding).unwrap_or_else(|_| holding.into());
    for ancestor in absolute.ancestors().chain(resolved.ancestors()) {
        let meta = std::fs::metadata(ancestor)
            .with_context(|| format!("looking at {}", ancestor.display()))?;
        let itself = ancestor == holding_absolute || ancestor == holding_resolved;
        check_dir_meta(ancestor, &meta, (!itself).then_some(&holding_absolute))?;
    }
    Ok(())
}

/// One directory's owner and mode; `above` is the directory of indoubt's files when this
/// one is above it.
fn check_dir_meta(dir: &Path, meta: &Metadata, above: Option<&Path>) -> Result<()> {
    let mode = meta.permissions().mode();
    let (shown, can) = match above {
        Some(holding) => (
            format!(
                "the directory {}, above {},",
                dir.display(),
                holding.display()
            ),
            "rename it, and indoubt's files with it, away",
        ),
        _ => (
            format!("the directory {}", dir.display()),
            "replace indoubt's files in it",
        ),
    };
    if let Some(owner) = foreign_owner(meta) {
        return Err(refused(
            format!("{shown} is owned by uid {owner}, not by you or root: that user can {can}"),
            "keep indoubt's files where only you or root can change the path to them (--audit-log, audit.path in the config, or XDG_STATE_HOME; running as root with another user's HOME puts the default in their home)",
        ));
    }
    if mode & 0o022 != 0 && mode & 0o1000 == 0 {
        return Err(refused(
            format!(
                "{shown} is writable by {} (mode {:04o}): they can {can}",
                writers(mode),
                mode & 0o7777
            ),
            format!(
                "chmod go-w {} (or use a directory of your own)",
                dir.display()
            ),
        ));
    }
    Ok(())
}

/// What may stand at the path of a file indoubt is about to read, append to or replace.
fn check_file(path: &Path, meta: &Metadata, kind: Kind, what: &str) -> Result<()> {
    let shown = format!("the {what} {}", path.display());
    if meta.file_type().is_symlink() {
        return Err(symlink_refused(path, what));
    }
    if !meta.is_file() {
        return Err(refused(
            format!("{shown} is not a regular file"),
            "give the path of a regular file (it is replaced whole)",
        ));
    }
    if kind == Kind::Shared {
        return Ok(());
    }
    if let Some(owner) = foreign_owner(meta) {
        return Err(refused(
            format!("{shown} is owned by uid {owner}, not by you or root: that user may have planted or changed it"),
            "if it is genuinely yours, `chown` it to you; otherwise move it aside, keep it as evidence, and find out who made it",
        ));
    }
    let mode = meta.permissions().mode();
    if mode & 0o022 != 0 {
        return Err(refused(
            format!(
                "{shown} is writable by {} (mode {:04o}): any of them could have changed it",
                writers(mode),
                mode & 0o7777
            ),
            format!(
                "check its content (`indoubt audit verify` for an audit log), then `chmod go-w {}`",
                path.display()
            ),
        ));
    }
    if meta.nlink() > 1 {
        return Err(refused(
            format!(
                "{shown} has {} hard links: it may be another file under a second name",
                meta.nlink()
            ),
            "find the other names (`find / -xdev -samefile FILE`) and keep indoubt's file under one name only",
        ));
    }
    Ok(())
}

/// The owner of a file or directory when it is neither this process's user nor root.
fn foreign_owner(meta: &Metadata) -> Option<u32> {
    let me = rustix::process::geteuid().as_raw();
    (meta.uid() != me && meta.uid() != 0).then_some(meta.uid())
}

fn writers(mode: u32) -> &'static str {
    match (mode & 0o020 != 0, mode & 0o002 != 0) {
        (true, true) => "group and others",
        (true, false) => "its group",
        _ => "others",
    }
}

/// A refusal: nothing was done; the hint says what to do.
fn refused(message: String, hint: impl Into<String>) -> anyhow::Error {
    hinted(format!("refused: {message}"), hint)
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)] // the tests make their fixtures directly
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    #[test]
    fn replace_writes_whole_files_and_leaves_no_temporary_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.prom");
        replace(&path, Kind::Shared, "file", |w| w.write_all(b"one\n")).unwrap();
        replace(&path, Kind::Shared, "file", |w| w.write_all(b"two\n")).unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "two\n");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
        let private = dir.path().join("state.json");
        replace(&private, Kind::Private, "file", |w| w.write_all(b"{}")).unwrap();
        assert_eq!(
            std::fs::metadata(&private).unwrap().permissions().mode() & 0o777,
            0o600
        );
    }

    #[test]
    fn a_failed_write_keeps_the_old_file_and_removes_the_temporary_one() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out");
        replace(&path, Kind::Shared, "file", |w| w.write_all(b"old")).unwrap();
        let err = replace(&path, Kind::Shared, "file", |w| {
            w.write_all(b"half")?;
            Err(io::Error::other("no space"))
        })
        .unwrap_err();
        assert!(format!("{err:#}").contains("no space"), "{err:#}");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "old");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[test]
    fn links_and_special_files_at_the_path_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let victim = dir.path().join("victim");
        std::fs::write(&victim, "precious").unwrap();
        let link = dir.path().join("link");
        symlink(&victim, &link).unwrap();
        for kind in [Kind::Shared, Kind::Private] {
            let err = replace(&link, kind, "file", |w| w.write_all(b"x")).unwrap_err();
            assert!(err.to_string().contains("symbolic link"), "{err}");
        }
        assert!(open_append(&link, "audit log").is_err());
        assert!(open_read(&link, "audit log").is_err());
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious");
        let dangling = dir.path().join("dangling");
        symlink(dir.path().join("created-by-attack"), &dangling).unwrap();
        let err = open_append(&dangling, "audit log").unwrap_err();
        assert!(err.to_string().contains("symbolic link"), "{err}");
        assert!(!dir.path().join("created-by-attack").exists());
        let err = replace(Path::new("/dev/null"), Kind::Shared, "file", |w| {
            w.write_all(b"x")
        })
        .unwrap_err();
        assert!(err.to_string().contains("not a regular file"), "{err}");
    }

    #[test]
    fn private_files_writable_by_others_or_hard_linked_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("audit.jsonl");
        std::fs::write(&path, "").unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o666)).unwrap();
        let err = open_append(&path, "audit log").unwrap_err();
        assert!(
            format!("{err:#}").contains("writable by group and others"),
            "{err:#}"
        );
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
        open_append(&path, "audit log").unwrap();
        std::fs::hard_link(&path, dir.path().join("second")).unwrap();
        let err = open_append(&path, "audit log").unwrap_err();
        assert!(format!("{err:#}").contains("hard links"), "{err:#}");
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o777)).unwrap();
        let err = replace(&dir.path().join("x"), Kind::Private, "file", |w| {
            w.write_all(b"x")
        })
        .unwrap_err();
        assert!(err.to_string().contains("the directory"), "{err}");
    }

    #[test]
    fn a_linked_directory_or_one_under_another_users_directory_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("real");
        std::fs::create_dir(&real).unwrap();
        let link = dir.path().join("link");
        symlink(&real, &link).unwrap();
        let err = open_append(&link.join("audit.jsonl"), "audit log").unwrap_err();
        assert!(err.to_string().contains("is a symbolic link"), "{err:#}");
        assert!(open_read(&link.join("audit.jsonl"), "audit log").is_err());
        assert!(ScratchDir::create(&link, "x-").is_err());
        assert!(!real.join("audit.jsonl").exists());

        // Another user's directory above: nothing is made in it.
        let home = dir.path().join("home");
        std::fs::create_dir(&home).unwrap();
        rustix::fs::chown(&home, Some(rustix::process::Uid::from_raw(65534)), None).unwrap();
        let log = home.join(".local/state/indoubt/audit.jsonl");
        let err = open_append(&log, "audit log").unwrap_err();
        assert!(
            err.to_string()
                .contains(&format!("the directory {}, above", home.display()))
                && err.to_string().contains("owned by uid 65534"),
            "{err:#}"
        );
        assert!(!home.join(".local").exists(), "nothing made there");
        // Made before (by root, 0700): still refused, for reading too.
        std::fs::create_dir_all(log.parent().unwrap()).unwrap();
        assert!(open_append(&log, "audit log").is_err());
        assert!(open_read(&log, "audit log").is_err());

        // A sticky directory above is fine (/tmp); a group-writable one is not.
        let shared = dir.path().join("shared");
        std::fs::create_dir(&shared).unwrap();
        std::fs::set_permissions(&shared, std::fs::Permissions::from_mode(0o1777)).unwrap();
        open_append(&shared.join("mine/audit.jsonl"), "audit log").unwrap();
        std::fs::set_permissions(&shared, std::fs::Permissions::from_mode(0o775)).unwrap();
        let err = open_append(&shared.join("mine/audit.jsonl"), "audit log").unwrap_err();
        assert!(
            err.to_string().contains("is writable by its group"),
            "{err:#}"
        );
    }

    #[test]
    fn settings_files_of_another_user_or_writable_by_others_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("config.yaml");
        std::fs::write(&path, "a: 1\n").unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
        assert_eq!(read_settings(&path, "config file").unwrap().text, "a: 1\n");
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o664)).unwrap();
        let err = read_settings(&path, "config file").unwrap_err();
        assert!(
            err.to_string()
                .contains("is writable by its group (mode 0664)"),
            "{err:#}"
        );
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
        rustix::fs::chown(&path, Some(rustix::process::Uid::from_raw(65534)), None).unwrap();
        let err = read_settings(&path, "config file").unwrap_err();
        assert!(err.to_string().contains("owned by uid 65534"), "{err:#}");
        // Through a link: the file it leads to is what counts.
        let link = dir.path().join("link.yaml");
        symlink(&path, &link).unwrap();
        assert!(read_settings(&link, "config file").is_err());
        // A device: its owner only (`--config /dev/null`).
        assert_eq!(
            read_settings(Path::new("/dev/null"), "config file")
                .unwrap()
                .text,
            ""
        );
    }
}
