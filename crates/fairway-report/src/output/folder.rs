//! Results folders that are replaced whole or not at all. A run writes into a hidden folder
//! beside its target (`.<name>.partial-<pid>`); only when every file is written does that folder
//! take the target's place. A run that fails, or a process that dies, leaves the earlier results
//! as they were, and a rerun leaves nothing of the earlier run behind.
//!
//! The target is checked before anything runs, and only a folder that fairway wrote (or an empty
//! one) is ever replaced: `--out ~` must not remove a home directory. A folder is fairway's only
//! by the marker file fairway writes into every results folder ([`MARKER`]), not by a file name a
//! user may also use: a project folder with a report.md in it is not fairway's.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

/// The file that marks a folder as fairway's results, written into every results folder (a run's,
/// a sweep's, a reproduction's, the IFTP model's) before anything else.
pub const MARKER: &str = ".fairway-results";

/// What the marker holds; a folder is fairway's when its marker begins with the first line.
pub const MARKER_TEXT: &str = "fairway results folder\n\
fairway replaces this folder whole when asked to write results into it; remove this file to keep it.\n";

/// Files that results folders written before the marker existed hold: such a folder is refused
/// with a message that says how to adopt or remove it.
const EARLIER: [&str; 4] = ["summary.json", "sweep.csv", "report.md", "iftp-model-by-size.csv"];

/// Why a results folder cannot be written.
#[derive(Debug, thiserror::Error)]
pub enum FolderError {
    #[error("{}: is a file, not a folder; choose another --out", .0.display())]
    NotAFolder(PathBuf),
    #[error(
        "{}: refusing to replace a folder that fairway did not write (it has no {MARKER} file); choose another --out or empty it",
        .0.display()
    )]
    Foreign(PathBuf),
    #[error(
        "{}: refusing to replace it: it holds {} but no {MARKER} file, the mark of a results folder fairway may replace (an \
earlier fairway wrote none, and other tools write such files too). If it is fairway's results, adopt it with `printf \
'fairway results folder\\n' > {}/{MARKER}` or remove it; otherwise choose another --out",
        .0.display(), .1, .0.display()
    )]
    Unmarked(PathBuf, &'static str),
    #[error("{}: has no folder name; choose another --out", .0.display())]
    NoName(PathBuf),
    #[error("{}: {source}", .path.display())]
    Io { path: PathBuf, source: io::Error },
}

fn io_at(path: &Path) -> impl FnOnce(io::Error) -> FolderError + '_ {
    move |source| FolderError::Io { path: path.to_path_buf(), source }
}

/// A results folder being written. Dropped without [`Staged::commit`], it removes what it wrote.
#[derive(Debug)]
pub struct Staged {
    target: PathBuf,
    tmp: PathBuf,
    committed: bool,
}

impl Staged {
    /// Checks that `target` can receive results (a folder fairway wrote, an empty folder, or
    /// nothing yet; its parent writable) and creates the hidden folder to write them into.
    pub fn begin(target: &Path) -> Result<Staged, FolderError> {
        let name = target
            .file_name()
            .filter(|n| !matches!(n.to_str(), Some("." | "..")))
            .ok_or_else(|| FolderError::NoName(target.to_path_buf()))?
            .to_string_lossy()
            .into_owned();
        match fs::metadata(target) {
            Ok(m) if !m.is_dir() => return Err(FolderError::NotAFolder(target.to_path_buf())),
            Ok(_) => replaceable(target)?,
            _ => {}
        }
        let parent = match target.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        };
        fs::create_dir_all(&parent).map_err(io_at(&parent))?;
        remove_stale(&parent);
        let tmp = parent.join(format!(".{name}.partial-{}", std::process::id()));
        if tmp.exists() {
            fs::remove_dir_all(&tmp).map_err(io_at(&tmp))?;
        }
        fs::create_dir(&tmp).map_err(io_at(&tmp))?;
        let staged = Staged { target: target.to_path_buf(), tmp, committed: false };
        let marker = staged.tmp.join(MARKER);
        fs::write(&marker, MARKER_TEXT).map_err(io_at(&marker))?;
        Ok(staged)
    }

    /// Where to write the files.
    pub fn dir(&self) -> &Path {
        &self.tmp
    }

    /// Where they will be once committed.
    pub fn target(&self) -> &Path {
        &self.target
    }

    /// Puts the written folder in the target's place; the earlier folder, if any, is removed
    /// only once the new one is there.
    pub fn commit(mut self) -> Result<PathBuf, FolderError> {
        let old = self
            .tmp
            .with_file_name(self.tmp.file_name().unwrap_or_default().to_string_lossy().replace(".partial-", ".old-"));
        let had = self.target.exists();
        if had {
            // Checked again: the folder may have changed while the run ran.
            replaceable(&self.target)?;
            if old.exists() {
                fs::remove_dir_all(&old).map_err(io_at(&old))?;
            }
            fs::rename(&self.target, &old).map_err(io_at(&self.target))?;
        }
        if let Err(e) = fs::rename(&self.tmp, &self.target) {
            if had {
                // Put the earlier results back.
                let _ = fs::rename(&old, &self.target);
            }
            return Err(FolderError::Io { path: self.target.clone(), source: e });
        }
        self.committed = true;
        if had {
            fs::remove_dir_all(&old).map_err(io_at(&old))?;
        }
        Ok(self.target.clone())
    }
}

impl Drop for Staged {
    fn drop(&mut self) {
        if !self.committed {
            let _ = fs::remove_dir_all(&self.tmp);
        }
    }
}

/// Removes the hidden folders (`.<name>.partial-<pid>`, `.<name>.old-<pid>`) that processes no
/// longer running left in `parent`: a run killed while writing (SIGKILL, a second Ctrl-C) leaves
/// one. Only folders holding fairway's marker are removed, and only when no process has that pid
/// (a pid taken again by another process keeps its folder for a later run). Errors are ignored:
/// a folder that cannot be removed is only clutter.
fn remove_stale(parent: &Path) {
    let Ok(entries) = fs::read_dir(parent) else { return };
    for e in entries.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        let Some(rest) = name.strip_prefix('.') else { continue };
        let pid = rest.rsplit_once(".partial-").or_else(|| rest.rsplit_once(".old-")).map(|(_, pid)| pid);
        let Some(pid) = pid.filter(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit())) else { continue };
        let dir = e.path();
        let alive = Path::new("/proc").join(pid).exists();
        let ours = fs::symlink_metadata(&dir).is_ok_and(|m| m.is_dir()) && dir.join(MARKER).is_file();
        if !alive && ours && pid != std::process::id().to_string() {
            let _ = fs::remove_dir_all(&dir);
        }
    }
}

/// Whether fairway may replace `dir`: an empty folder, or one holding fairway's marker (a regular
/// file, not a link, that begins with the marker's first line).
fn replaceable(dir: &Path) -> Result<(), FolderError> {
    let mut entries = fs::read_dir(dir).map_err(io_at(dir))?;
    if entries.next().is_none() {
        return Ok(());
    }
    let marker = dir.join(MARKER);
    let first = MARKER_TEXT.lines().next().unwrap_or_default();
    let marked = fs::symlink_metadata(&marker).is_ok_and(|m| m.is_file())
        && fs::read(&marker).is_ok_and(|b| b.starts_with(first.as_bytes()));
    if marked {
        return Ok(());
    }
    match EARLIER.iter().find(|m| dir.join(m).is_file()) {
        Some(m) => Err(FolderError::Unmarked(dir.to_path_buf(), m)),
        None => Err(FolderError::Foreign(dir.to_path_buf())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("fairway-folder-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&d);
        fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn a_commit_replaces_the_whole_folder() {
        let root = scratch("replace");
        let target = root.join("out");
        fs::create_dir(&target).unwrap();
        fs::write(target.join(MARKER), MARKER_TEXT).unwrap();
        fs::write(target.join("summary.json"), "old").unwrap();
        fs::write(target.join("scale.csv"), "stale").unwrap();
        let s = Staged::begin(&target).unwrap();
        fs::write(s.dir().join("summary.json"), "new").unwrap();
        s.commit().unwrap();
        assert_eq!(fs::read_to_string(target.join("summary.json")).unwrap(), "new");
        assert!(!target.join("scale.csv").exists(), "the earlier run's files are gone");
        assert_eq!(fs::read_dir(&root).unwrap().count(), 1, "no hidden folder is left");
        fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn without_a_commit_the_earlier_results_stay_whole() {
        let root = scratch("abandon");
        let target = root.join("out");
        fs::create_dir(&target).unwrap();
        fs::write(target.join(MARKER), MARKER_TEXT).unwrap();
        fs::write(target.join("summary.json"), "old").unwrap();
        {
            let s = Staged::begin(&target).unwrap();
            fs::write(s.dir().join("summary.json"), "half").unwrap();
        }
        assert_eq!(fs::read_to_string(target.join("summary.json")).unwrap(), "old");
        assert_eq!(fs::read_dir(&root).unwrap().count(), 1);
        fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn a_folder_fairway_did_not_write_or_a_file_is_refused_before_anything_is_written() {
        let root = scratch("refuse");
        let mine = root.join("notes");
        fs::create_dir(&mine).unwrap();
        fs::write(mine.join("thesis.tex"), "precious").unwrap();
        assert!(matches!(Staged::begin(&mine), Err(FolderError::Foreign(_))));
        let file = root.join("file");
        fs::write(&file, "x").unwrap();
        assert!(matches!(Staged::begin(&file), Err(FolderError::NotAFolder(_))));
        assert!(matches!(Staged::begin(&root.join("..")), Err(FolderError::NoName(_))));
        assert_eq!(fs::read_to_string(mine.join("thesis.tex")).unwrap(), "precious");
        assert_eq!(fs::read_dir(&root).unwrap().count(), 2, "nothing was created");
        fs::remove_dir_all(&root).unwrap();
    }

    /// A project folder that happens to hold a report.md is not fairway's: nothing in it is
    /// touched, and the error says how to adopt a folder an earlier fairway wrote. A marker that
    /// is a link, or says something else, is no marker.
    #[test]
    fn only_the_marker_makes_a_folder_fairways() {
        let root = scratch("marker");
        let proj = root.join("proj");
        fs::create_dir_all(proj.join("src")).unwrap();
        fs::write(proj.join("report.md"), "x").unwrap();
        fs::write(proj.join("src/thesis.tex"), "important").unwrap();
        let e = Staged::begin(&proj).unwrap_err();
        assert!(matches!(e, FolderError::Unmarked(_, "report.md")), "{e}");
        let msg = e.to_string();
        assert!(msg.contains(MARKER) && msg.contains("adopt") && msg.contains("remove"), "{msg}");
        let elsewhere = root.join("elsewhere");
        fs::write(&elsewhere, MARKER_TEXT).unwrap();
        std::os::unix::fs::symlink(&elsewhere, proj.join(MARKER)).unwrap();
        assert!(matches!(Staged::begin(&proj), Err(FolderError::Unmarked(..))), "a linked marker");
        fs::remove_file(proj.join(MARKER)).unwrap();
        fs::write(proj.join(MARKER), "something else").unwrap();
        assert!(matches!(Staged::begin(&proj), Err(FolderError::Unmarked(..))), "another text");
        assert_eq!(fs::read_to_string(proj.join("src/thesis.tex")).unwrap(), "important");
        // Adopted as the message says, it is replaced whole; what fairway writes is marked.
        fs::write(proj.join(MARKER), "fairway results folder\n").unwrap();
        let s = Staged::begin(&proj).unwrap();
        assert!(s.dir().join(MARKER).is_file(), "written first");
        s.commit().unwrap();
        assert!(!proj.join("src").exists());
        assert_eq!(fs::read_to_string(proj.join(MARKER)).unwrap(), MARKER_TEXT);
        fs::remove_dir_all(&root).unwrap();
    }

    /// A process killed while writing leaves its hidden folder; the next run into that parent
    /// removes it, and nothing else: a live process's, or a folder without the marker.
    #[test]
    fn hidden_folders_of_dead_processes_are_removed_by_the_next_run() {
        let root = scratch("stale");
        let dead = std::process::Command::new("true").spawn().unwrap();
        let pid = dead.id();
        let mut dead = dead;
        dead.wait().unwrap();
        let stale = root.join(format!(".res.partial-{pid}"));
        let old = root.join(format!(".other.old-{pid}"));
        let live = root.join(format!(".res.old-{}", std::process::id()));
        let unmarked = root.join(format!(".notes.partial-{pid}"));
        for d in [&stale, &old, &live, &unmarked] {
            fs::create_dir(d).unwrap();
        }
        for d in [&stale, &old] {
            fs::write(d.join(MARKER), MARKER_TEXT).unwrap();
            fs::write(d.join("summary.json"), "{}").unwrap();
        }
        fs::write(live.join(MARKER), MARKER_TEXT).unwrap();
        fs::write(unmarked.join("thesis.tex"), "important").unwrap();
        Staged::begin(&root.join("res")).unwrap().commit().unwrap();
        assert!(!stale.exists() && !old.exists(), "the dead process's folders are gone");
        assert!(live.exists(), "this process is alive");
        assert!(unmarked.join("thesis.tex").is_file(), "a folder without the marker is not fairway's");
        fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn an_empty_or_missing_target_is_fine_and_parents_are_created() {
        let root = scratch("fresh");
        let target = root.join("a/b/out");
        let s = Staged::begin(&target).unwrap();
        fs::write(s.dir().join("summary.json"), "{}").unwrap();
        assert_eq!(s.commit().unwrap(), target);
        assert!(target.join("summary.json").is_file());
        let empty = root.join("empty");
        fs::create_dir(&empty).unwrap();
        Staged::begin(&empty).unwrap().commit().unwrap();
        fs::remove_dir_all(&root).unwrap();
    }
}
