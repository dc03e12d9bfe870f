//! Results folders that are replaced whole or not at all. A run writes into a hidden folder
//! beside its target (`.<name>.partial-<pid>`); only when every file is written does that folder
//! take the target's place. A run that fails, or a process that dies, leaves the earlier results
//! as they were, and a rerun leaves nothing of the earlier run behind.
//!
//! The target is checked before anything runs, and only a folder that fairway wrote (or an empty
//! one) is ever replaced: `--out ~` must not remove a home directory.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

/// Files one of which marks a folder as fairway's results: a run's, a sweep's, a reproduction's,
/// the IFTP model's.
const MARKERS: [&str; 4] = ["summary.json", "sweep.csv", "report.md", "iftp-model-by-size.csv"];

/// Why a results folder cannot be written.
#[derive(Debug, thiserror::Error)]
pub enum FolderError {
    #[error("{}: is a file, not a folder; choose another --out", .0.display())]
    NotAFolder(PathBuf),
    #[error(
        "{}: refusing to replace a folder that fairway did not write (it holds none of {}); choose another --out or empty it",
        .0.display(), MARKERS.join(", ")
    )]
    Foreign(PathBuf),
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
            Ok(_) if !replaceable(target).map_err(io_at(target))? => {
                return Err(FolderError::Foreign(target.to_path_buf()))
            }
            _ => {}
        }
        let parent = match target.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        };
        fs::create_dir_all(&parent).map_err(io_at(&parent))?;
        let tmp = parent.join(format!(".{name}.partial-{}", std::process::id()));
        if tmp.exists() {
            fs::remove_dir_all(&tmp).map_err(io_at(&tmp))?;
        }
        fs::create_dir(&tmp).map_err(io_at(&tmp))?;
        Ok(Staged { target: target.to_path_buf(), tmp, committed: false })
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
            if !replaceable(&self.target).map_err(io_at(&self.target))? {
                return Err(FolderError::Foreign(self.target.clone()));
            }
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

/// An empty folder, or one holding one of fairway's marker files.
fn replaceable(dir: &Path) -> io::Result<bool> {
    let mut entries = fs::read_dir(dir)?;
    if entries.next().is_none() {
        return Ok(true);
    }
    Ok(MARKERS.iter().any(|m| dir.join(m).is_file()))
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
