//! Writes the site: every file goes into a staging folder beside the output folder, which then
//! replaces the old site by rename, so a reader never sees a half-written site. Refuses to replace a
//! non-empty folder that fragstats did not make.

use std::path::{Component, Path, PathBuf};
use std::sync::{Mutex, OnceLock};
use std::thread::JoinHandle;

use anyhow::{Context, Result, bail};
use rayon::prelude::*;

mod file;
mod paths;
mod stamps;
mod streamed;

pub use file::OutputFile;
pub use paths::PathKeys;
use paths::PathList;
use stamps::{Stamps, Verdict};
pub use streamed::MakeParts;

/// Marker file that says "this folder is a fragstats site, safe to replace".
pub const MARKER: &str = ".fragstats-site";

/// Replaces the folder `out` with exactly `files`; returns how many files changed. Files whose
/// bytes did not change are hard links to the old ones, so they keep their modification time
/// (rsync and FTP uploads stay small); files no longer produced disappear.
pub fn write_site(out: &Path, files: &[OutputFile]) -> Result<usize> {
    let published = Staging::prepare(out).publish(files)?;
    let written = published.written;
    published.finish()?;
    Ok(written)
}

/// The staging folder of a build, filled in the background with hard links to the current
/// site while the new one is computed ([`Staging::prepare`]); [`Staging::publish`] then only
/// replaces the files that changed and swaps the folder in.
pub struct Staging {
    out: PathBuf,
    parent: PathBuf,
    name: String,
    path: PathBuf,
    /// The spare staging folder kept between builds ([`Staging::spare`]).
    spare: PathBuf,
    /// The removal of the files the previous build moved to its trash ([`trash_of`]), in the
    /// background from the start of the build.
    emptying: Mutex<Option<JoinHandle<()>>>,
    /// The published site, when there is one to link unchanged files from.
    previous: Option<PathBuf>,
    mirroring: Mutex<Option<JoinHandle<Mirror>>>,
    /// The staging folder is the spare folder: the mirroring only lists it.
    from_spare: bool,
    /// The staging folder exists and holds what the mirroring linked.
    ready: OnceLock<Mirror>,
    /// What the published files held (from the state folder, when there is one): read in the
    /// background once the logs are read ([`Staging::load_stamps`]), beside the ratings.
    stamps_loading: Mutex<Loading>,
    stamps: OnceLock<Option<Stamps>>,
}

/// The loading of the stamps: not begun (from this state folder), under way, or none to do.
enum Loading {
    From(PathBuf),
    Begun(JoinHandle<Stamps>),
    None,
}

/// What the background mirroring linked into the staging folder: files and folders, relative
/// to the site root. Files are held by the keys of their paths as [`safe_relative`] keys output
/// paths (`/`-separated text).
#[derive(Default)]
struct Mirror {
    files: PathKeys,
    dirs: Vec<PathBuf>,
    /// Files whose names are not text: no output has such a path, so publishing removes them.
    strays: Vec<PathBuf>,
}

/// The files of a [`Mirror`] as they are found: their paths' keys, and the files whose names
/// are not text.
#[derive(Default)]
struct Found {
    keys: Vec<(paths::PathKey, ())>,
    strays: Vec<PathBuf>,
}

impl Found {
    /// Records the file at `rel` (relative to the site root).
    fn add_file(&mut self, rel: PathBuf) {
        match key_of(rel) {
            Ok(rel) => self.keys.push((paths::key(&rel), ())),
            Err(stray) => self.strays.push(stray),
        }
    }

    /// The mirror of the files found, with the folders `dirs`.
    fn into_mirror(self, dirs: Vec<PathBuf>) -> Mirror {
        Mirror {
            files: PathKeys::new_any(self.keys),
            dirs,
            strays: self.strays,
        }
    }
}

/// The key of the relative path `rel` as [`safe_relative`] makes it (components joined by
/// `/`); the path itself when it is not text.
fn key_of(rel: PathBuf) -> std::result::Result<String, PathBuf> {
    if std::path::MAIN_SEPARATOR == '/' {
        return rel.into_os_string().into_string().map_err(PathBuf::from);
    }
    match rel.to_str() {
        Some(s) => Ok(s.replace(std::path::MAIN_SEPARATOR, "/")),
        None => Err(rel),
    }
}

/// A site just published: how many files were written, and the removal of the old site, which
/// goes on in the background until [`Published::finish`].
#[must_use = "finish() waits for the old site to be removed"]
pub struct Published {
    pub written: usize,
    removal: Option<JoinHandle<std::io::Result<()>>>,
    old: PathBuf,
}

impl Published {
    /// Waits until the old site is removed.
    pub fn finish(mut self) -> Result<()> {
        match self.removal.take().map(JoinHandle::join) {
            Some(Ok(Err(e))) => {
                Err(e).with_context(|| format!("cannot remove the old site {}", self.old.display()))
            }
            Some(Err(_)) => bail!("removing the old site {} failed", self.old.display()),
            _ => Ok(()),
        }
    }
}

impl Drop for Published {
    fn drop(&mut self) {
        if let Some(removal) = self.removal.take() {
            let _ = removal.join();
        }
    }
}

impl Staging {
    /// Starts mirroring the site in `out` (when it is one fragstats made) into a new staging
    /// folder beside it, in the background. First cleans up after a build that was killed.
    pub fn prepare(out: &Path) -> Staging {
        Staging::prepare_in(out, None)
    }

    /// Like [`Staging::prepare`], keeping the spare folder between builds inside `state_dir`
    /// when that is on the same filesystem as the output (so it never lands in a web root that
    /// holds the output folder); beside the output otherwise.
    pub fn prepare_in(out: &Path, state_dir: Option<&Path>) -> Staging {
        let parent = match out.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        };
        let name = out
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "site".into());
        let path = parent.join(format!(".{name}.staging-{}", std::process::id()));
        let beside = parent.join(format!(".{name}.next"));
        let spare = match state_dir {
            Some(dir) if same_filesystem(dir, &parent) => {
                // A spare an earlier version kept beside the output is not needed there.
                if beside.join(SPARE_STAMP).is_file() {
                    let _ = std::fs::remove_dir_all(&beside);
                }
                dir.join(format!("{name}.next"))
            }
            _ => beside.clone(),
        };
        // Every trash a build may have left: beside this build's spare folder, and where the
        // spare was kept when the state folder was (or was not) on the output's filesystem.
        let trashes: Vec<PathBuf> = [Some(spare.clone()), Some(beside)]
            .into_iter()
            .chain([state_dir.map(|dir| dir.join(format!("{name}.next")))])
            .flatten()
            .map(|spare| trash_of(&spare))
            .filter(|trash| trash.symlink_metadata().is_ok())
            .collect();
        // Freeing the files costs processor time (on a public server's append, about 0.05 s
        // of 1.6 s): it is done only where a processor would otherwise wait, in the build's
        // single-threaded stretches (0.02 s less wall time over 16 alternating appends).
        let emptying = (!trashes.is_empty()).then(|| {
            std::thread::spawn(move || {
                crate::idle::lower_to_idle();
                for trash in trashes {
                    empty_trash(&trash);
                }
            })
        });
        let mut staging = Staging {
            spare,
            emptying: Mutex::new(emptying),
            out: out.to_path_buf(),
            parent,
            name,
            path,
            previous: out.is_dir().then(|| out.to_path_buf()),
            mirroring: Mutex::new(None),
            from_spare: false,
            ready: OnceLock::new(),
            stamps_loading: Mutex::new(match state_dir {
                Some(dir) => Loading::From(dir.to_path_buf()),
                None => Loading::None,
            }),
            stamps: OnceLock::new(),
        };
        // A folder left at this path by a killed build whose process id was the same.
        if staging.path.join(MARKER).is_file() {
            let _ = std::fs::remove_dir_all(&staging.path);
        }
        // Recovery errors are reported by `publish`, which runs it again.
        let spare = staging.spare();
        if recover(&staging.parent, &staging.name, out, &staging.path).is_ok()
            && is_replaceable(out).unwrap_or(false)
            && out.join(MARKER).is_file()
        {
            let (site, to) = (out.to_path_buf(), staging.path.clone());
            // A few system calls: whether the mirroring will only list (see `mirrored_files`).
            staging.from_spare = take_spare(&spare, &site, &to);
            let from_spare = staging.from_spare;
            staging.mirroring = Mutex::new(Some(std::thread::spawn(move || {
                crate::sys::helper(|| {
                    if from_spare {
                        list(&to)
                    } else {
                        let _ = std::fs::remove_dir_all(&spare);
                        mirror(&site, &to)
                    }
                })
            })));
        } else if spare.exists() {
            let _ = std::fs::remove_dir_all(&spare);
        }
        staging
    }

    /// The spare staging folder: the previous build's old site, brought up to date with the
    /// published one by hard links, and the next build's staging folder.
    fn spare(&self) -> PathBuf {
        self.spare.clone()
    }

    /// Waits until the previous build's trash is removed.
    fn emptied(&self) {
        let handle = self.emptying.lock().ok().and_then(|mut h| h.take());
        if let Some(h) = handle {
            let _ = h.join();
        }
    }

    /// Begins reading the stamps of the published files in the background, when there is a
    /// state folder and they are not being read yet. Called once the logs are read: held while
    /// they were read, the stamps of 64,000 pages (4.5 MB) added to the reading's peak, and
    /// they are first needed by the pages.
    pub fn load_stamps(&self) {
        if let Ok(mut loading) = self.stamps_loading.lock()
            && let Loading::From(dir) = &*loading
        {
            let dir = dir.clone();
            *loading = Loading::Begun(std::thread::spawn(move || {
                crate::sys::helper(|| Stamps::load(&dir))
            }));
        }
    }

    /// The stamps of the published files, once read (None without a state folder).
    fn stamps(&self) -> Option<&Stamps> {
        self.stamps
            .get_or_init(|| {
                self.load_stamps();
                let loading = self.stamps_loading.lock().ok();
                match loading.map(|mut l| std::mem::replace(&mut *l, Loading::None)) {
                    Some(Loading::Begun(handle)) => handle.join().ok(),
                    _ => None,
                }
            })
            .as_ref()
    }

    /// Waits for the mirroring; makes the staging folder if there was none.
    fn mirrored(&self) -> &Mirror {
        self.ready.get_or_init(|| {
            let handle = self.mirroring.lock().ok().and_then(|mut m| m.take());
            match handle {
                Some(m) => m.join().unwrap_or_default(),
                None => {
                    let _ = std::fs::create_dir_all(&self.path)
                        .and_then(|()| std::fs::write(self.path.join(MARKER), MARKER_TEXT));
                    Mirror::default()
                }
            }
        })
    }

    /// The files of the published site as the mirroring found them, once it is done: None
    /// while it links the site file by file, or when there was no site to mirror. Taken from
    /// the spare folder (only listed, so waited for: a walk of the output instead would be the
    /// same work again), they also include files an earlier build dropped (hard links to their
    /// last bytes, which publishing removes): a page listed here is in the staging folder with
    /// the bytes it was published with.
    pub fn mirrored_files(&self) -> Option<&PathKeys> {
        if self.ready.get().is_none() && !self.from_spare {
            let mirroring = self.mirroring.lock().ok()?;
            if !mirroring.as_ref()?.is_finished() {
                return None;
            }
        }
        Some(&self.mirrored().files)
    }

    /// Puts one rendered page into the staging folder now (see [`crate::render::PageSink`]);
    /// returns it without its bytes. Pages to keep as they are stay for [`Staging::publish`].
    pub fn stage(&self, file: OutputFile) -> Result<OutputFile> {
        // Kept pages are linked when publishing; a file staged already keeps what it wrote.
        if file.reuse || file.staged.is_some() {
            return Ok(file);
        }
        let mirrored = self.mirrored();
        let rel = self.place(&file.path)?;
        let written = stage_file(
            &self.path,
            &file,
            &rel,
            self.previous.as_deref(),
            mirrored.files.contains(&rel),
            self.stamps(),
        )?;
        Ok(file.into_staged(written))
    }

    /// Puts the file at `path` into the staging folder as `make` makes its parts, never whole
    /// in memory (see [`streamed`]); returns it without its bytes.
    pub fn stage_parts(&self, path: &str, make: &mut MakeParts) -> Result<OutputFile> {
        let mirrored = self.mirrored();
        let rel = self.place(path)?;
        let written = streamed::stage(
            &self.path,
            &rel,
            self.previous.as_deref(),
            mirrored.files.contains(&rel),
            self.stamps(),
            make,
        )?;
        Ok(OutputFile::without_bytes(
            path.to_string(),
            None,
            false,
            Some(written),
        ))
    }

    /// The key of the output path `path` ([`safe_relative`]), its folder made in the staging
    /// folder.
    fn place(&self, path: &str) -> Result<String> {
        let rel = safe_relative(path)?;
        if let Some((dir, _)) = rel.rsplit_once('/') {
            let dir = self.path.join(dir);
            std::fs::create_dir_all(&dir)
                .with_context(|| format!("cannot create {}", dir.display()))?;
        }
        Ok(rel)
    }

    /// Writes `files` into the staging folder (keeping the mirrored files whose bytes did not
    /// change, removing those no longer produced) and swaps it in for the old site.
    pub fn publish(self, files: &[OutputFile]) -> Result<Published> {
        self.publish_with(files, &NoneApart)
    }

    /// [`Staging::publish`] of `files` and of the files `apart` lists, staged already.
    pub fn publish_with(
        mut self,
        files: &[OutputFile],
        apart: &dyn StagedApart,
    ) -> Result<Published> {
        self.mirrored();
        // Done long before (it began with the build): the trash is about to be filled again.
        self.emptied();
        let mirrored = self.ready.take().unwrap_or_default();
        let out = self.out.clone();
        std::fs::create_dir_all(&self.parent)
            .with_context(|| format!("cannot create folder {}", self.parent.display()))?;
        recover(&self.parent, &self.name, &out, &self.path)?;
        if out.exists() && !is_replaceable(&out)? {
            bail!(
                "output folder {} exists, is not empty and was not made by fragstats; \
                 choose another --out (or `output` in site.toml) or empty it",
                out.display()
            );
        }
        let old = self
            .parent
            .join(format!(".{}.old-{}", self.name, std::process::id()));
        let timer = crate::progress::Timer::new();
        self.stamps();
        let stamps = self.stamps.take().flatten();
        let (targets, written) = match write_all(
            &self.path,
            files,
            apart,
            self.previous.as_deref(),
            &mirrored,
            stamps.as_ref(),
        ) {
            Ok(staged) => staged,
            Err(e) => {
                let _ = std::fs::remove_dir_all(&self.path);
                return Err(e);
            }
        };
        let staging = std::mem::take(&mut self.path);
        if out.exists() {
            timer.lap("  stage the site");
            if crate::sys::exchange(&staging, &out).is_ok() {
                timer.lap("  swap it in");
                // `staging` now holds the old site: it becomes the next build's staging folder
                // once the files this build wrote are linked into it, else it is removed. The
                // stamps are saved beside (a build that stops first leaves the older stamps,
                // which only make the next build read pages back).
                let (old, spare) = (staging.clone(), self.spare());
                let trash = trash_of(&spare);
                return Ok(Published {
                    written: written.len(),
                    removal: Some(std::thread::spawn(move || {
                        // Two independent jobs of about equal length, side by side.
                        std::thread::scope(|s| {
                            s.spawn(|| save_stamps(stamps, &targets));
                            let written = written.iter().map(|&i| targets.get(i));
                            if keep_as_spare(&old, &out, written, &spare, &trash).is_err() {
                                remove_tree(&old)?;
                            }
                            Ok(())
                        })
                    })),
                    old: staging,
                });
            }
            std::fs::rename(&out, &old)
                .with_context(|| format!("cannot move the old site {} aside", out.display()))?;
        }
        std::fs::rename(&staging, &out)
            .with_context(|| format!("cannot move the new site into {}", out.display()))?;
        save_stamps(stamps, &targets);
        if old.exists() {
            std::fs::remove_dir_all(&old)
                .with_context(|| format!("cannot remove the old site {}", old.display()))?;
        }
        Ok(Published {
            written: written.len(),
            removal: None,
            old,
        })
    }
}

impl Drop for Staging {
    /// A build that stops before publishing leaves no staging folder behind.
    fn drop(&mut self) {
        if let Some(m) = self.mirroring.get_mut().ok().and_then(Option::take) {
            let _ = m.join();
        }
        self.emptied();
        if let Ok(loading) = self.stamps_loading.get_mut()
            && let Loading::Begun(handle) = std::mem::replace(loading, Loading::None)
        {
            let _ = handle.join();
        }
        if !self.path.as_os_str().is_empty() && self.path.join(MARKER).is_file() {
            let _ = std::fs::remove_dir_all(&self.path);
        }
    }
}

/// Creates `staging` (with the marker first, so an interrupted build's folder is recognised and
/// removed) and hard-links every file of the site `site` into it. Files that cannot be linked
/// are left out: publishing writes them.
fn mirror(site: &Path, staging: &Path) -> Mirror {
    if std::fs::create_dir_all(staging).is_err()
        || std::fs::write(staging.join(MARKER), MARKER_TEXT).is_err()
    {
        return Mirror::default();
    }
    let (mut found, mut dirs) = (Found::default(), Vec::new());
    for (entry, rel) in walk(site) {
        let to = staging.join(&rel);
        let kind = entry.file_type();
        if kind.is_dir() {
            if std::fs::create_dir(&to).is_ok() {
                dirs.push(rel);
            }
        } else if kind.is_file()
            && rel != Path::new(MARKER)
            && std::fs::hard_link(entry.path(), &to).is_ok()
        {
            found.add_file(rel);
        }
    }
    found.into_mirror(dirs)
}

/// Name of the file in the spare folder that names the published site it mirrors.
const SPARE_STAMP: &str = ".fragstats-next";

/// What identifies a published site folder: its device and inode (a new folder is swapped in
/// by every build).
#[cfg(unix)]
fn site_identity(site: &Path) -> Option<String> {
    use std::os::unix::fs::MetadataExt;
    let meta = std::fs::metadata(site).ok()?;
    Some(format!("{} {}\n", meta.dev(), meta.ino()))
}

#[cfg(not(unix))]
fn site_identity(_: &Path) -> Option<String> {
    None
}

/// Turns `old` (the site this build replaced, at the path of its staging folder) into the
/// mirror of the site now published in `site`: the files this build `written` are hard-linked
/// into it in place of theirs, it is stamped with the site's identity and renamed to `spare`.
/// Their old versions (each the last link to its bytes) are moved to `trash`, which the next
/// build empties in the background: freeing a file's blocks can stall (ext4 with online
/// discard: 40-110 ms for the 500-1,000 files of an append to a public server's site, against
/// 15-35 ms to move them), and the build waits for this. Files and folders the new site no
/// longer has stay: the next build removes them from its staging folder. Interrupted, it
/// leaves a staging folder and a trash that the next build removes.
fn keep_as_spare<'a>(
    old: &Path,
    site: &Path,
    written: impl ExactSizeIterator<Item = &'a str>,
    spare: &Path,
    trash: &Path,
) -> Result<()> {
    if written.len() > 0 {
        std::fs::create_dir_all(trash)?;
    }
    // Each folder is made once per run of its files (the written files come folder by folder).
    let mut made: Option<&Path> = None;
    // Named by this process and a count, so a trash the last emptying left part of (say, a
    // file it could not remove) clashes with nothing.
    let pid = std::process::id();
    for (n, rel) in written.enumerate() {
        let to = old.join(rel);
        match std::fs::rename(&to, trash.join(format!("{pid}-{n}"))) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(e.into()),
            _ => {}
        }
        let folder = Path::new(rel).parent();
        if let Some(dir) = to.parent()
            && made != folder
        {
            std::fs::create_dir_all(dir)?;
            made = folder;
        }
        std::fs::hard_link(site.join(rel), &to)?;
    }
    let identity = site_identity(site).context("the site cannot be read")?;
    std::fs::write(old.join(SPARE_STAMP), identity)?;
    if spare.exists() {
        std::fs::remove_dir_all(spare)?;
    }
    std::fs::rename(old, spare)?;
    Ok(())
}

/// Where [`keep_as_spare`] moves the old versions of the files a build wrote: beside the
/// `spare` folder (on its filesystem), named after it.
fn trash_of(spare: &Path) -> PathBuf {
    let mut name = spare.as_os_str().to_owned();
    name.push(".trash");
    PathBuf::from(name)
}

/// Removes the trash at `trash`, whatever is there: a folder with all it holds, or a file or
/// link in its place (which would otherwise keep every later build from keeping its spare).
fn empty_trash(trash: &Path) {
    match trash.symlink_metadata() {
        Ok(meta) if meta.is_dir() => {
            let _ = std::fs::remove_dir_all(trash);
        }
        Ok(_) => {
            let _ = std::fs::remove_file(trash);
        }
        Err(_) => {}
    }
}

/// Moves the spare folder to `staging` when it mirrors exactly the site published in `site`
/// (its stamp names that folder); false when there is none or it does not.
fn take_spare(spare: &Path, site: &Path, staging: &Path) -> bool {
    let stamp = spare.join(SPARE_STAMP);
    std::fs::read_to_string(&stamp).ok() == site_identity(site)
        && std::fs::remove_file(&stamp).is_ok()
        && std::fs::rename(spare, staging).is_ok()
}

/// Every file and folder under `root` (not itself, links not followed), with its path relative
/// to `root`.
fn walk(root: &Path) -> impl Iterator<Item = (walkdir::DirEntry, PathBuf)> + '_ {
    walkdir::WalkDir::new(root)
        .min_depth(1)
        .into_iter()
        .flatten()
        .filter_map(move |e| {
            let rel = e.path().strip_prefix(root).ok()?.to_path_buf();
            Some((e, rel))
        })
}

/// Every file under `root` (links not followed) whose path is text, relative to it and
/// `/`-separated (as output paths are): one listing of each folder, where asking for each file
/// apart costs a system call per page (100,000 on a big site).
pub fn files_in(root: &Path) -> PathKeys {
    walk(root)
        .filter(|(entry, _)| entry.file_type().is_file())
        .filter_map(|(_, rel)| key_of(rel).ok())
        .collect()
}

/// The files and folders of a staging folder taken from the spare.
fn list(staging: &Path) -> Mirror {
    let (mut found, mut dirs) = (Found::default(), Vec::new());
    for (entry, rel) in walk(staging) {
        if entry.file_type().is_dir() {
            dirs.push(rel);
        } else if entry.file_type().is_file() && rel != Path::new(MARKER) {
            found.add_file(rel);
        }
    }
    found.into_mirror(dirs)
}

/// Whether `a` and `b` (created if missing) are folders on one filesystem, so that a rename
/// between them works.
#[cfg(unix)]
fn same_filesystem(a: &Path, b: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    let device = |p: &Path| {
        std::fs::create_dir_all(p).ok()?;
        std::fs::metadata(p).ok().map(|m| m.dev())
    };
    matches!((device(a), device(b)), (Some(x), Some(y)) if x == y)
}

#[cfg(not(unix))]
fn same_filesystem(_: &Path, _: &Path) -> bool {
    false
}

/// Whether no process has the id `pid` (a decimal number) any more. False when unsure.
pub(crate) fn process_is_gone(pid: &str) -> bool {
    let Ok(pid) = pid.parse::<libc::pid_t>() else {
        return false;
    };
    if pid <= 0 {
        return false;
    }
    // SAFETY: signal 0 only checks whether the process exists; nothing is sent.
    let alive = unsafe { libc::kill(pid, 0) } == 0;
    !alive && std::io::Error::last_os_error().raw_os_error() == Some(libc::ESRCH)
}

/// Cleans up after a build that was killed: staging folders other than `own` are removed, and
/// an old site moved aside (killed between the two renames of the fallback swap) is put back.
fn recover(parent: &Path, name: &str, out: &Path, own: &Path) -> Result<()> {
    let staging_prefix = format!(".{name}.staging-");
    let old_prefix = format!(".{name}.old-");
    let Ok(entries) = std::fs::read_dir(parent) else {
        return Ok(());
    };
    for entry in entries.flatten() {
        let file_name = entry.file_name().to_string_lossy().into_owned();
        let path = entry.path();
        if path == own {
            continue;
        }
        if let Some(pid) = file_name.strip_prefix(&staging_prefix)
            && (path.join(MARKER).is_file() || process_is_gone(pid))
        {
            // A build killed after creating its staging folder, before marking it, leaves it
            // unmarked: its process id, no longer running, shows it is stale.
            let _ = std::fs::remove_dir_all(&path);
        } else if file_name.starts_with(&old_prefix) && path.join(MARKER).is_file() {
            if out.exists() {
                let _ = std::fs::remove_dir_all(&path);
            } else {
                std::fs::rename(&path, out).with_context(|| {
                    format!("cannot restore the previous site {}", path.display())
                })?;
            }
        }
    }
    Ok(())
}

fn is_replaceable(out: &Path) -> Result<bool> {
    if !out.is_dir() {
        return Ok(false);
    }
    if out.join(MARKER).is_file() {
        return Ok(true);
    }
    let mut entries = std::fs::read_dir(out)
        .with_context(|| format!("cannot read output folder {}", out.display()))?;
    Ok(entries.next().is_none())
}

/// Text of the marker file.
const MARKER_TEXT: &[u8] = b"made by fragstats; replaced on every build\n";

/// Files a build lists apart from the others, each put into the staging folder as it was made
/// or kept as published (a site's match pages: tens of thousands, each path made from its
/// match's id when asked for).
pub trait StagedApart: Sync {
    /// How many there are.
    fn count(&self) -> usize;

    /// The output path of file `i`.
    fn path(&self, i: usize) -> String;

    /// File `i` is staged, its bytes new there (`Some(true)`) or not; None: the published
    /// file is kept (as an [`OutputFile`] to `reuse`).
    fn staged(&self, i: usize) -> Option<bool>;
}

/// No file staged apart.
struct NoneApart;

impl StagedApart for NoneApart {
    fn count(&self) -> usize {
        0
    }

    fn path(&self, _: usize) -> String {
        String::new()
    }

    fn staged(&self, _: usize) -> Option<bool> {
        None
    }
}

/// Writes `files` into `staging`, which may already hold `mirrored` hard links to the previous
/// site: those are kept where the bytes did not change, replaced where they did, and removed
/// where the file is no longer produced. Other files are hard-linked from `previous` when their
/// bytes equal the file of the same path there. The files `apart` lists are in the staging
/// folder already, or kept as published. Returns the keys ([`safe_relative`]) of all `files`
/// and of those `apart`, and where among them are those written (new or changed).
fn write_all(
    staging: &Path,
    files: &[OutputFile],
    apart: &dyn StagedApart,
    previous: Option<&Path>,
    mirrored: &Mirror,
    stamps: Option<&Stamps>,
) -> Result<(PathList, Vec<usize>)> {
    std::fs::create_dir_all(staging)
        .with_context(|| format!("cannot create {}", staging.display()))?;
    // Replaced, not rewritten: a marker taken over from a spare folder may be a link.
    let _ = std::fs::remove_file(staging.join(MARKER));
    std::fs::write(staging.join(MARKER), MARKER_TEXT)?;
    // Folders first (once each), then the files in parallel: most are hard links to the
    // previous site, and a big site has tens of thousands of them.
    let mut targets = PathList::with_capacity(files.len() + apart.count());
    for f in files {
        targets.push(&safe_relative(&f.path)?);
    }
    for i in 0..apart.count() {
        targets.push(&safe_relative(&apart.path(i))?);
    }
    targets.shrink_to_fit();
    // Files come grouped by folder (100,000 pages in a handful of folders): a folder met again
    // right away is not looked up in the set.
    let mut dirs: std::collections::BTreeSet<&str> = Default::default();
    let mut last = None;
    for dir in targets
        .iter()
        .filter_map(|rel| Some(rel.rsplit_once('/')?.0))
    {
        if last != Some(dir) {
            dirs.insert(dir);
            last = Some(dir);
        }
    }
    for dir in &dirs {
        let dir = staging.join(dir);
        std::fs::create_dir_all(&dir)
            .with_context(|| format!("cannot create {}", dir.display()))?;
    }
    let mut written: Vec<bool> = files
        .par_iter()
        .enumerate()
        .map(|(i, f)| match f.staged {
            Some(written) => Ok(written),
            None => {
                let rel = targets.get(i);
                let mirrored = mirrored.files.contains(rel);
                stage_file(staging, f, rel, previous, mirrored, stamps)
            }
        })
        .collect::<Result<_>>()?;
    let apart_written = (files.len()..targets.len())
        .into_par_iter()
        .map(|t| {
            let (i, rel) = (t - files.len(), targets.get(t));
            match apart.staged(i) {
                Some(written) => Ok(written),
                // Kept as published: already there when mirrored, else linked as a file to
                // reuse is.
                None if mirrored.files.contains(rel) => Ok(false),
                None => {
                    let kept = OutputFile::without_bytes(rel.to_string(), None, true, None);
                    stage_file(staging, &kept, rel, previous, false, stamps)
                }
            }
        })
        .collect::<Result<Vec<bool>>>()?;
    written.extend(apart_written);
    // Mirrored files no longer produced go, then the folders they leave empty (deepest first).
    for path in
        gone(staging, mirrored, &targets).chain(mirrored.strays.iter().map(|p| staging.join(p)))
    {
        std::fs::remove_file(&path).with_context(|| format!("cannot remove {}", path.display()))?;
    }
    for dir in mirrored.dirs.iter().rev() {
        let _ = std::fs::remove_dir(staging.join(dir));
    }
    let written = (written.into_iter().enumerate())
        .filter_map(|(i, w)| w.then_some(i))
        .collect();
    Ok((targets, written))
}

/// The files of the staging folder that `mirrored` holds and are not `produced`. The mirror
/// holds its paths' keys, not the paths: each mirrored path produced is marked (a flag a
/// mirrored file, where a set of the produced paths held 131,072 slots of 17 bytes at 65,000
/// files, 2.2 MB: issue 41), and
/// only when some are not is the staging folder listed to find them.
fn gone(staging: &Path, mirrored: &Mirror, produced: &PathList) -> impl Iterator<Item = PathBuf> {
    let mut kept = vec![false; mirrored.files.len()];
    for rel in produced.iter() {
        if let Some(i) = mirrored.files.position_of(rel) {
            kept[i] = true;
        }
    }
    let listed = kept.contains(&false).then(|| {
        walk(staging)
            .filter(|(entry, rel)| entry.file_type().is_file() && rel != Path::new(MARKER))
            .filter_map(|(_, rel)| key_of(rel).ok())
            .filter(|rel| (mirrored.files.position_of(rel)).is_some_and(|i| !kept[i]))
            .map(|rel| staging.join(rel))
            .collect::<Vec<_>>()
    });
    listed.into_iter().flatten()
}

/// Puts one file into the staging folder: a hard link to the previous site's file when that is
/// to be kept or already holds the same bytes, else the new bytes. `mirrored`: the staging
/// folder already holds a hard link to the previous file. Whatever is at the path is replaced,
/// never written through: it may be a link to a published file. True when written anew.
/// With `stamps`, a mirrored file unchanged since stamped is compared by its stamp, unread;
/// every file staged from bytes is stamped.
fn stage_file(
    staging: &Path,
    f: &OutputFile,
    rel: &str,
    previous: Option<&Path>,
    mirrored: bool,
    stamps: Option<&Stamps>,
) -> Result<bool> {
    if mirrored && f.reuse {
        return Ok(false);
    }
    let path = staging.join(rel);
    // The bytes' hash is taken once, and only where needed: a stamp of another size tells a
    // changed file without it, and a file written anew is hashed part by part as each is
    // written (read from memory once, where hashing first read players.json's 45 MB twice).
    let mut hash: Option<u64> = None;
    let mut hash_of = |f: &OutputFile| *hash.get_or_insert_with(|| stamps::hash(f.parts()));
    if mirrored {
        let meta = std::fs::symlink_metadata(&path).ok();
        let verdict = match (stamps, &meta) {
            (Some(stamps), Some(meta)) => stamps.check(rel, meta, f.len() as u64, || hash_of(f)),
            _ => Verdict::Unknown,
        };
        let same = match verdict {
            Verdict::Same => true,
            Verdict::Different => false,
            Verdict::Unknown => meta.is_some_and(|m| same_file_bytes(&path, &m, f)),
        };
        if same {
            if verdict == Verdict::Unknown
                && let Some(stamps) = stamps
            {
                stamps.stamp(rel, &path, hash_of(f));
            }
            return Ok(false);
        }
    }
    match std::fs::remove_file(&path) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
            return Err(e).with_context(|| format!("cannot replace {}", path.display()));
        }
        _ => {}
    }
    if f.reuse {
        let old = previous
            .map(|p| p.join(rel))
            .with_context(|| format!("no previous {} to keep", f.path))?;
        if std::fs::hard_link(&old, &path).is_err() {
            std::fs::copy(&old, &path).with_context(|| format!("cannot keep {}", old.display()))?;
        }
        return Ok(false);
    }
    // A mirrored file was just compared: the previous one holds the same (different) bytes.
    if !mirrored
        && let Some(old) = previous.map(|p| p.join(rel))
        && same_bytes(&old, f)
        && std::fs::hard_link(&old, &path).is_ok()
    {
        if let Some(stamps) = stamps {
            stamps.stamp(rel, &path, hash_of(f));
        }
        return Ok(false);
    }
    let mut hasher = (stamps.is_some() && hash.is_none()).then(stamps::PartsHasher::new);
    write_parts(&path, f, hasher.as_mut())
        .with_context(|| format!("cannot write {}", path.display()))?;
    if let Some(stamps) = stamps {
        let hash = hash.or(hasher.map(stamps::PartsHasher::finish));
        stamps.stamp(rel, &path, hash.unwrap_or_else(|| stamps::hash(f.parts())));
    }
    Ok(true)
}

/// Saves the stamps of the site just published, made of the files at `keys`.
fn save_stamps(stamps: Option<Stamps>, keys: &PathList) {
    if let Some(stamps) = stamps {
        stamps.save(keys);
    }
}

/// Removes a folder tree, its subfolders in parallel.
fn remove_tree(dir: &Path) -> std::io::Result<()> {
    let subdirs: Vec<PathBuf> = std::fs::read_dir(dir)?
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .map(|e| e.path())
        .collect();
    subdirs.par_iter().try_for_each(std::fs::remove_dir_all)?;
    std::fs::remove_dir_all(dir)
}

/// Creates the file at `path` with `f`'s bytes, written part after part, each given to
/// `hasher` (when there is one) just before it is written.
fn write_parts(
    path: &Path,
    f: &OutputFile,
    mut hasher: Option<&mut stamps::PartsHasher>,
) -> std::io::Result<()> {
    use std::io::Write as _;
    let mut file = std::fs::File::create(path)?;
    for part in f.parts() {
        if let Some(h) = hasher.as_deref_mut() {
            h.write(part);
        }
        file.write_all(part)?;
    }
    Ok(())
}

/// The file at `path` exists and holds exactly `f`'s bytes.
fn same_bytes(path: &Path, f: &OutputFile) -> bool {
    std::fs::symlink_metadata(path).is_ok_and(|m| same_file_bytes(path, &m, f))
}

/// The file at `path`, of metadata `meta`, holds exactly `f`'s bytes.
fn same_file_bytes(path: &Path, meta: &std::fs::Metadata, f: &OutputFile) -> bool {
    meta.is_file()
        && meta.len() == f.len() as u64
        && std::fs::read(path).is_ok_and(|old| {
            let mut rest = old.as_slice();
            f.parts()
                .all(|part| match rest.split_at_checked(part.len()) {
                    Some((head, tail)) if head == part => {
                        rest = tail;
                        true
                    }
                    _ => false,
                })
        })
}

/// The key of a relative path made only of normal components (so nothing can land outside the
/// output folder): its components joined by `/`, which is the path itself unless it holds
/// `//`, `/./` or a trailing `/`. Two paths of one file have one key.
fn safe_relative(path: &str) -> Result<String> {
    // Nearly every output path is already its key: `/`-separated names, none empty, `.` or
    // `..` (and no `\`, a separator elsewhere, nor `:`, which starts a drive prefix on
    // Windows). Told by one scan, where taking it apart into components cost a share of
    // publishing a site of 100,000 files (each is keyed twice).
    if !path.contains(['\\', ':'])
        && path
            .split('/')
            .all(|part| !part.is_empty() && part != "." && part != "..")
    {
        return Ok(path.to_string());
    }
    let mut key = String::with_capacity(path.len());
    for c in Path::new(path).components() {
        let Component::Normal(part) = c else {
            bail!("refusing to write unsafe output path {path:?}");
        };
        // A component of a `str` is text.
        let part = part.to_str().unwrap_or_default();
        if !key.is_empty() {
            key.push('/');
        }
        key.push_str(part);
    }
    if key.is_empty() {
        bail!("refusing to write unsafe output path {path:?}");
    }
    Ok(key)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A page of `bytes` at `path`.
    fn page(path: &str, bytes: &[u8]) -> OutputFile {
        OutputFile::new(path, bytes.to_vec())
    }

    /// Publishes `files` to `out` as a build with the state folder `state` does; returns how
    /// many were written.
    fn build_with_state(out: &Path, state: &Path, files: &[OutputFile]) -> usize {
        let published = Staging::prepare_in(out, Some(state))
            .publish(files)
            .unwrap();
        let written = published.written;
        published.finish().unwrap();
        written
    }

    fn file(path: &str) -> OutputFile {
        page(path, b"x")
    }

    #[test]
    fn replaces_own_site_and_refuses_foreign_folders() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("public");
        assert_eq!(
            write_site(&out, &[file("a.html"), file("players/b.html")]).unwrap(),
            2
        );
        assert!(out.join("players/b.html").is_file());
        let before = std::fs::metadata(out.join("players/b.html"))
            .unwrap()
            .modified()
            .unwrap();
        std::thread::sleep(std::time::Duration::from_millis(20));
        let changed = page("c.html", b"new");
        assert_eq!(
            write_site(&out, &[changed, file("players/b.html")]).unwrap(),
            1
        );
        assert!(
            !out.join("a.html").exists(),
            "pages no longer produced are gone"
        );
        assert!(out.join("c.html").is_file());
        let after = std::fs::metadata(out.join("players/b.html"))
            .unwrap()
            .modified()
            .unwrap();
        assert_eq!(
            before, after,
            "unchanged pages keep their modification time"
        );
        // Nothing left beside it but the next build's staging folder and the trash.
        let beside = crate::testdata::names_in(dir.path());
        assert_eq!(beside, [".public.next", ".public.next.trash", "public"]);

        let foreign = dir.path().join("home");
        std::fs::create_dir(&foreign).unwrap();
        std::fs::write(foreign.join("precious.txt"), "keep").unwrap();
        let err = write_site(&foreign, &[file("x.html")]).unwrap_err();
        assert!(
            err.to_string().contains("was not made by fragstats"),
            "{err}"
        );
        assert!(foreign.join("precious.txt").is_file());
    }

    /// Files listed apart ([`StagedApart`]), staged as they were made or kept as published,
    /// are published with the others and counted when written; a mirrored file neither list
    /// names goes.
    #[test]
    fn files_staged_apart_are_published_with_the_others() {
        struct Listed(Vec<(String, Option<bool>)>);
        impl StagedApart for Listed {
            fn count(&self) -> usize {
                self.0.len()
            }
            fn path(&self, i: usize) -> String {
                self.0[i].0.clone()
            }
            fn staged(&self, i: usize) -> Option<bool> {
                self.0[i].1
            }
        }
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("public");
        let old = ["a", "1", "2", "3"].map(|n| page(&format!("matches/{n}.html"), n.as_bytes()));
        write_site(&out, &old).unwrap();
        let staging = Staging::prepare(&out);
        let kept = OutputFile::without_bytes("matches/2.html".into(), Some(2), true, None);
        let staged = [
            page("matches/1.html", b"one"),
            kept,
            page("matches/4.html", b"4"),
        ]
        .map(|f| staging.stage(f).unwrap());
        assert!(staged.iter().all(|f| f.is_empty()));
        // The page to keep is not staged: it is kept when publishing.
        assert!(staged[1].reuse && staged[1].staged.is_none());
        let apart = Listed(
            (staged.iter())
                .map(|f| (f.path.clone(), f.staged))
                .collect(),
        );
        assert_eq!(
            apart.0.iter().map(|f| f.1).collect::<Vec<_>>(),
            [Some(true), None, Some(true)]
        );
        let published = staging
            .publish_with(&[page("matches/a.html", b"a")], &apart)
            .unwrap();
        assert_eq!(published.written, 2);
        published.finish().unwrap();
        let read = |n: &str| std::fs::read(out.join(format!("matches/{n}.html"))).ok();
        assert_eq!(
            ["a", "1", "2", "3", "4"].map(read),
            [
                Some(b"a".to_vec()),
                Some(b"one".to_vec()),
                Some(b"2".to_vec()),
                None,
                Some(b"4".to_vec())
            ]
        );
    }

    /// Staging starts as hard links to the published files: a changed file is replaced, never
    /// written through the link (the published site, and any other link to its files, keep
    /// their bytes), and folders left empty go.
    #[test]
    fn changed_files_replace_the_mirrored_links() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("public");
        write_site(
            &out,
            &[page("a.html", b"old"), page("players/b.html", b"b")],
        )
        .unwrap();
        let elsewhere = dir.path().join("kept-link");
        std::fs::hard_link(out.join("a.html"), &elsewhere).unwrap();
        let staging = Staging::prepare(&out);
        assert_eq!(std::fs::read(out.join("a.html")).unwrap(), b"old");
        let published = staging.publish(&[page("a.html", b"new")]).unwrap();
        assert_eq!(published.written, 1);
        published.finish().unwrap();
        assert_eq!(std::fs::read(out.join("a.html")).unwrap(), b"new");
        assert_eq!(std::fs::read(&elsewhere).unwrap(), b"old");
        assert!(!out.join("players").exists(), "a folder left empty goes");
        // A build that stops before publishing leaves no staging folder.
        drop(Staging::prepare(&out));
        let mut names: Vec<String> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        assert_eq!(names, ["kept-link", "public"]);
    }

    /// A file given to the sink twice (staged while rendering, then passed on again) keeps the
    /// bytes it was staged with: the second staging, of a file whose bytes went to the staging
    /// folder, writes nothing.
    #[test]
    fn a_staged_file_staged_again_keeps_its_bytes() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("public");
        write_site(&out, &[page("a.html", b"old")]).unwrap();
        let staging = Staging::prepare(&out);
        let once = staging.stage(page("servers/s.html", b"server")).unwrap();
        assert!(once.is_empty() && once.staged.is_some());
        let twice = staging.stage(once).unwrap();
        assert_eq!(twice.staged, Some(true));
        staging.publish(&[twice]).unwrap().finish().unwrap();
        assert_eq!(
            std::fs::read(out.join("servers/s.html")).unwrap(),
            b"server"
        );
    }

    /// The replaced versions of the files a build wrote go to the trash beside the spare folder
    /// (in the state folder), and only there: the next build empties it before it puts the
    /// versions it replaces there, and a build that writes nothing leaves it empty.
    #[cfg(target_os = "linux")]
    #[test]
    fn replaced_versions_wait_in_the_trash_for_the_next_build() {
        use std::os::unix::fs::MetadataExt;
        let dir = tempfile::tempdir().unwrap();
        let (out, state) = (dir.path().join("public"), dir.path().join("state"));
        std::fs::create_dir_all(&state).unwrap();
        let build = |files: &[OutputFile]| build_with_state(&out, &state, files);
        let trash = state.join("public.next.trash");
        let in_trash = || -> Vec<Vec<u8>> {
            let mut held: Vec<Vec<u8>> = std::fs::read_dir(&trash)
                .map(|d| {
                    d.map(|e| std::fs::read(e.unwrap().path()).unwrap())
                        .collect()
                })
                .unwrap_or_default();
            held.sort();
            held
        };
        let site = |a: &[u8], b: &[u8]| [page("a.html", a), page("players/b.html", b)];
        assert_eq!(build(&site(b"a1", b"b1")), 2);
        assert!(in_trash().is_empty(), "a first build replaces nothing");
        // A file in the trash's place is removed, not left to keep every build from keeping
        // its spare folder.
        std::fs::write(&trash, b"in the way").unwrap();
        assert_eq!(build(&site(b"a2", b"b1")), 1);
        assert_eq!(in_trash(), [b"a1".to_vec()]);
        assert!(
            state.join("public.next").join(SPARE_STAMP).is_file(),
            "spare kept"
        );
        assert_eq!(build(&site(b"a3", b"b2")), 2);
        assert_eq!(
            in_trash(),
            [b"a2".to_vec(), b"b1".to_vec()],
            "emptied, then refilled"
        );
        assert_eq!(std::fs::read(out.join("a.html")).unwrap(), b"a3");
        assert_eq!(std::fs::read(out.join("players/b.html")).unwrap(), b"b2");
        // The spare folder mirrors the site: its files are the published ones (not copies).
        let spare = state.join("public.next");
        for rel in ["a.html", "players/b.html"] {
            assert_eq!(
                std::fs::metadata(spare.join(rel)).unwrap().ino(),
                std::fs::metadata(out.join(rel)).unwrap().ino(),
                "{rel}"
            );
        }
        assert_eq!(build(&site(b"a3", b"b2")), 0);
        assert!(
            in_trash().is_empty(),
            "a build that writes nothing leaves none"
        );
        let beside = crate::testdata::names_in(dir.path());
        assert_eq!(beside, ["public", "state"], "nothing beside the output");
    }

    /// Builds with a state folder compare pages with their stamps (`outputs.bin`), not by reading
    /// the published files: a page the admin edited (same size or not) or deleted is still
    /// written again, an unchanged one kept (same inode and time), a changed one replaced. A
    /// file altered while its size, time and inode stay those stamped is not read (its stamp
    /// vouches for it): the stamp is what is compared.
    #[test]
    fn stamps_stand_in_for_reading_the_published_files() {
        let dir = tempfile::tempdir().unwrap();
        let (out, state) = (dir.path().join("public"), dir.path().join("state"));
        std::fs::create_dir_all(&state).unwrap();
        let build = |files: &[OutputFile]| build_with_state(&out, &state, files);
        let site = [
            page("a.html", b"alpha"),
            page("b.html", b"bravo"),
            page("c.html", b"charlie"),
            page("players/d.html", b"delta"),
        ];
        assert_eq!(build(&site), 4);
        assert!(state.join("outputs.bin").is_file());
        let modified = |p: &str| std::fs::metadata(out.join(p)).unwrap().modified().unwrap();
        let before = modified("players/d.html");
        std::thread::sleep(std::time::Duration::from_millis(20));
        assert_eq!(build(&site), 0, "nothing changed");
        assert_eq!(modified("players/d.html"), before, "kept, not rewritten");

        // The admin edits one page in place (same size), another to a new size, deletes one.
        std::fs::write(out.join("a.html"), b"ALPHA").unwrap();
        std::fs::write(out.join("b.html"), b"bravo!!").unwrap();
        std::fs::remove_file(out.join("c.html")).unwrap();
        let written = build(&site);
        for f in &site {
            assert_eq!(
                std::fs::read(out.join(&f.path)).unwrap(),
                f.to_vec(),
                "{}",
                f.path
            );
        }
        // The deleted page comes back as the spare staging folder's link to its file.
        assert_eq!(written, 2, "the edited pages are written again");
        let changed = [
            page("a.html", b"alpha"),
            page("b.html", b"BRAVO"),
            page("c.html", b"charlie"),
            page("players/d.html", b"delta"),
        ];
        assert_eq!(build(&changed), 1);
        assert_eq!(std::fs::read(out.join("b.html")).unwrap(), b"BRAVO");

        // Altered behind fragstats' back with its size and time put back: the stamp still
        // says "alpha", so the page counts as unchanged, unread.
        let a = out.join("a.html");
        let time = modified("a.html");
        let file = std::fs::OpenOptions::new().write(true).open(&a).unwrap();
        std::io::Write::write_all(&mut &file, b"ALPHA").unwrap();
        file.set_modified(time).unwrap();
        drop(file);
        assert_eq!(build(&changed), 0);
        assert_eq!(std::fs::read(&a).unwrap(), b"ALPHA");

        // Without stamps (a damaged file) every page is read back and compared again.
        std::fs::write(state.join("outputs.bin"), b"\xff\xff damaged").unwrap();
        assert_eq!(build(&changed), 1);
        assert_eq!(std::fs::read(&a).unwrap(), b"alpha");
    }

    /// A file staged as its parts come is the parts' bytes; unchanged, it keeps the published
    /// file (compared by its stamp, else read back), changed or new it is written; a failure
    /// while it is made leaves nothing of it in the staging folder.
    #[test]
    fn a_file_staged_part_by_part_is_kept_when_unchanged() {
        let dir = tempfile::tempdir().unwrap();
        let (out, state) = (dir.path().join("public"), dir.path().join("state"));
        std::fs::create_dir_all(&state).unwrap();
        // Publishes `data/m.json` made of `parts` (and a page); Some(written) when staged.
        let build = |state: Option<&Path>, parts: &[&str]| {
            let staging = Staging::prepare_in(&out, state);
            let mut make = |emit: &mut dyn FnMut(Vec<u8>) -> Result<()>| {
                parts.iter().try_for_each(|p| emit(p.as_bytes().to_vec()))
            };
            let m = staging.stage_parts("data/m.json", &mut make).unwrap();
            assert!(m.is_empty());
            let staged = m.staged;
            staging
                .publish(&[m, page("a.html", b"a")])
                .unwrap()
                .finish()
                .unwrap();
            staged
        };
        let m = out.join("data/m.json");
        let modified = || std::fs::metadata(&m).unwrap().modified().unwrap();
        assert_eq!(build(Some(&state), &["[1,", "2]"]), Some(true), "new");
        assert_eq!(std::fs::read(&m).unwrap(), b"[1,2]");
        let before = modified();
        std::thread::sleep(std::time::Duration::from_millis(20));
        assert_eq!(build(Some(&state), &["[1", ",2", "]"]), Some(false));
        assert_eq!(modified(), before, "kept, not rewritten");
        assert_eq!(build(Some(&state), &["[1,", "3]"]), Some(true), "same size");
        assert_eq!(std::fs::read(&m).unwrap(), b"[1,3]");
        // Altered with its size and time put back: the stamp says it is unchanged, unread.
        let time = modified();
        let file = std::fs::OpenOptions::new().write(true).open(&m).unwrap();
        std::io::Write::write_all(&mut &file, b"[9,9]").unwrap();
        file.set_modified(time).unwrap();
        drop(file);
        assert_eq!(build(Some(&state), &["[1,3]"]), Some(false));
        assert_eq!(std::fs::read(&m).unwrap(), b"[9,9]");
        // Without stamps the published file is read back: its bytes differ, then they match,
        // then it is shorter, then longer than the new bytes.
        assert_eq!(build(None, &["[1,", "3]"]), Some(true));
        assert_eq!(std::fs::read(&m).unwrap(), b"[1,3]");
        let before = modified();
        assert_eq!(build(None, &["[1,", "3]"]), Some(false));
        assert_eq!(modified(), before);
        assert_eq!(build(None, &["[1,", "3]", "\n"]), Some(true));
        assert_eq!(build(None, &["[1,", "3]"]), Some(true));
        assert_eq!(std::fs::read(&m).unwrap(), b"[1,3]");

        // A failure while the parts are made: an error, and no file of its parts is left.
        let staging = Staging::prepare_in(&out, Some(&state));
        let mut failing = |emit: &mut dyn FnMut(Vec<u8>) -> Result<()>| {
            emit(b"[1,".to_vec())?;
            anyhow::bail!("no more parts")
        };
        let err = staging
            .stage_parts("data/m.json", &mut failing)
            .unwrap_err();
        assert!(format!("{err:#}").contains("no more parts"), "{err:#}");
        let left = crate::testdata::names_in(&staging.path.join("data"));
        assert_eq!(left, ["m.json"], "the mirrored file only");
        drop(staging);
        assert_eq!(
            std::fs::read(&m).unwrap(),
            b"[1,3]",
            "the site is as it was"
        );
    }

    /// The old site becomes the next build's staging folder: after each build it holds the
    /// published files (the same inodes); a build starting from it publishes exactly its files;
    /// a spare that does not match the published site, or holds files no longer produced, never
    /// leaks into it.
    #[cfg(target_os = "linux")]
    #[test]
    fn the_old_site_is_kept_as_the_next_staging_folder() {
        use std::os::unix::fs::MetadataExt;
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("public");
        let spare = dir.path().join(".public.next");
        let ino = |p: &Path| std::fs::metadata(p).unwrap().ino();
        let same_tree = |files: &[OutputFile]| {
            for f in files {
                assert_eq!(
                    std::fs::read(out.join(&f.path)).unwrap(),
                    f.to_vec(),
                    "{}",
                    f.path
                );
                assert_eq!(
                    ino(&out.join(&f.path)),
                    ino(&spare.join(&f.path)),
                    "{}",
                    f.path
                );
            }
            let published = walkdir::WalkDir::new(&out).into_iter().count();
            assert_eq!(
                published,
                files.len() + 2 + usize::from(files.iter().any(|f| f.path.contains('/')))
            );
        };
        let v1 = [page("a.html", b"a1"), page("players/b.html", b"b1")];
        write_site(&out, &v1).unwrap();
        let v2 = [page("a.html", b"a2"), page("c.html", b"c2")];
        assert_eq!(write_site(&out, &v2).unwrap(), 2);
        same_tree(&v2);
        let a_time = std::fs::metadata(out.join("a.html"))
            .unwrap()
            .modified()
            .unwrap();
        std::thread::sleep(std::time::Duration::from_millis(20));
        let v3 = [
            page("a.html", b"a2"),
            page("c.html", b"c3"),
            page("maps/d.html", b"d3"),
        ];
        assert_eq!(write_site(&out, &v3).unwrap(), 2);
        same_tree(&v3);
        assert!(!out.join("players").exists());
        assert_eq!(
            std::fs::metadata(out.join("a.html"))
                .unwrap()
                .modified()
                .unwrap(),
            a_time
        );

        // A file the spare holds but the site no longer produces is not published.
        std::fs::write(spare.join("stale.html"), b"x").unwrap();
        write_site(&out, &v3).unwrap();
        assert!(!out.join("stale.html").exists());
        // A spare stamped for another site is not used.
        std::fs::write(spare.join(SPARE_STAMP), b"0 0\n").unwrap();
        std::fs::remove_file(spare.join("c.html")).unwrap();
        std::fs::write(spare.join("c.html"), b"wrong").unwrap();
        let v4 = [
            page("a.html", b"a2"),
            page("c.html", b"c3"),
            page("e.html", b"e4"),
        ];
        assert_eq!(write_site(&out, &v4).unwrap(), 1);
        same_tree(&v4);
        assert!(!out.join(SPARE_STAMP).exists());
    }

    /// Pages staged while the site is rendered are published with the rest, without their
    /// bytes kept in memory; an unchanged one keeps its file.
    #[test]
    fn pages_staged_while_rendering_are_published() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("public");
        write_site(
            &out,
            &[page("a.html", b"a1"), page("players/b.html", b"b1")],
        )
        .unwrap();
        let b_time = std::fs::metadata(out.join("players/b.html"))
            .unwrap()
            .modified()
            .unwrap();
        std::thread::sleep(std::time::Duration::from_millis(20));
        let staging = Staging::prepare(&out);
        let b = staging.stage(page("players/b.html", b"b1")).unwrap();
        let c = staging.stage(page("maps/c.html", b"c2")).unwrap();
        assert_eq!((b.staged, c.staged), (Some(false), Some(true)));
        assert!(b.is_empty() && c.is_empty());
        // Staging never shows through before the swap.
        assert!(!out.join("maps").exists());
        let published = staging.publish(&[page("a.html", b"a2"), b, c]).unwrap();
        assert_eq!(published.written, 2);
        published.finish().unwrap();
        assert_eq!(std::fs::read(out.join("a.html")).unwrap(), b"a2");
        assert_eq!(std::fs::read(out.join("maps/c.html")).unwrap(), b"c2");
        assert_eq!(
            std::fs::metadata(out.join("players/b.html"))
                .unwrap()
                .modified()
                .unwrap(),
            b_time
        );
        // The first build of a site stages into a fresh folder.
        let fresh = dir.path().join("fresh");
        let staging = Staging::prepare(&fresh);
        let d = staging.stage(page("d.html", b"d")).unwrap();
        staging.publish(&[d]).unwrap().finish().unwrap();
        assert_eq!(std::fs::read(fresh.join("d.html")).unwrap(), b"d");
    }

    /// A staging folder left under this process's id (a killed build whose id was reused) may
    /// hold links to published files: they are replaced, never written through.
    #[test]
    fn a_stale_staging_folder_of_the_same_id_is_not_written_through() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("public");
        write_site(&out, &[page("a.html", b"old")]).unwrap();
        let elsewhere = dir.path().join("kept-link");
        std::fs::hard_link(out.join("a.html"), &elsewhere).unwrap();
        let _ = std::fs::remove_dir_all(dir.path().join(".public.next"));
        let stale = dir
            .path()
            .join(format!(".public.staging-{}", std::process::id()));
        std::fs::create_dir(&stale).unwrap();
        std::fs::write(stale.join(MARKER), MARKER_TEXT).unwrap();
        std::fs::hard_link(out.join("a.html"), stale.join("a.html")).unwrap();
        write_site(&out, &[page("a.html", b"new")]).unwrap();
        assert_eq!(std::fs::read(out.join("a.html")).unwrap(), b"new");
        assert_eq!(std::fs::read(&elsewhere).unwrap(), b"old");
    }

    #[test]
    fn recovers_from_a_build_killed_between_renames() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("public");
        write_site(&out, &[file("a.html")]).unwrap();
        // As if killed after moving the old site aside, before moving the new one in.
        std::fs::rename(&out, dir.path().join(".public.old-99999")).unwrap();
        std::fs::create_dir(dir.path().join(".public.staging-99999")).unwrap();
        std::fs::write(dir.path().join(".public.staging-99999").join(MARKER), "x").unwrap();
        recover(dir.path(), "public", &out, Path::new("")).unwrap();
        assert!(out.join("a.html").is_file(), "previous site restored");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    /// Output paths are compared as keys: `a//b` and `a/./b` are the file `a/b` the mirroring
    /// found (kept, not written again), and a file of the spare whose name is not text (no
    /// output has one) does not reach the published site.
    #[cfg(target_os = "linux")]
    #[test]
    fn spelled_paths_are_one_file_and_strays_are_removed() {
        use std::os::unix::ffi::OsStrExt;
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("public");
        let v1 = [page("a.html", b"a"), page("players/b.html", b"b")];
        write_site(&out, &v1).unwrap();
        write_site(&out, &v1).unwrap();
        let spare = dir.path().join(".public.next");
        let stray = std::ffi::OsStr::from_bytes(b"players/\xff.html");
        std::fs::write(spare.join(stray), b"x").unwrap();
        let v2 = [page("a.html", b"a"), page("players//./b.html", b"b")];
        assert_eq!(write_site(&out, &v2).unwrap(), 0);
        assert_eq!(std::fs::read(out.join("players/b.html")).unwrap(), b"b");
        assert!(!out.join(stray).exists());
        assert_eq!(std::fs::read_dir(out.join("players")).unwrap().count(), 1);
        assert_eq!(
            safe_relative("players//./b.html").unwrap(),
            "players/b.html"
        );
    }

    /// The quick way to a key agrees with taking the path apart, for paths already keys and
    /// for every other spelling.
    #[test]
    fn keys_of_plain_paths_are_the_paths() {
        let slow = |path: &str| -> Option<String> {
            let parts: Option<Vec<&str>> = (Path::new(path).components())
                .map(|c| match c {
                    Component::Normal(p) => p.to_str(),
                    _ => None,
                })
                .collect();
            parts.filter(|p| !p.is_empty()).map(|p| p.join("/"))
        };
        for path in [
            "index.html",
            "players/a.html",
            "data/search/12.js",
            "a b/c.d.html",
            ".hidden/x",
            "a..b/c",
            "players//b.html",
            "a/./b",
            "./a",
            "a/",
            "/a",
            "a/../b",
            "..",
            ".",
            "",
            "a\\b",
            // A drive prefix on Windows: taken apart there, a plain name elsewhere.
            "C:x",
            "a/b:c.html",
        ] {
            assert_eq!(safe_relative(path).ok(), slow(path), "{path:?}");
        }
    }

    #[test]
    fn unsafe_paths_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        for bad in ["../x.html", "/etc/x", "a/../../x", ""] {
            let err = write_site(&dir.path().join("o"), &[file(bad)]).unwrap_err();
            assert!(
                err.to_string().contains("unsafe output path"),
                "{bad}: {err}"
            );
        }
        assert!(!dir.path().join("x.html").exists());
    }
}
