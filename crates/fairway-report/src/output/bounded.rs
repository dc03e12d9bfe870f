//! A trace file that holds at most a given number of records (`--trace-limit`): past it, records
//! are counted, not written. The first write that fails is kept and reported at the end; the
//! run goes on meanwhile.

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

pub(crate) struct Bounded {
    w: BufWriter<File>,
    path: PathBuf,
    limit: u64,
    rows: u64,
    left_out: u64,
    error: Option<io::Error>,
}

/// What a trace file came to: its path, the records written, and those its limit left out.
#[derive(Debug, Clone)]
pub struct TraceFile {
    pub path: PathBuf,
    pub rows: u64,
    pub left_out: u64,
}

impl Bounded {
    /// Creates `path` and writes `header` to it (not a record).
    pub(crate) fn create(path: &Path, header: &[u8], limit: u64) -> io::Result<Bounded> {
        let mut w = BufWriter::with_capacity(1 << 20, File::create(path)?);
        w.write_all(header)?;
        Ok(Bounded { w, path: path.to_path_buf(), limit, rows: 0, left_out: 0, error: None })
    }

    /// How many of `n` records offered fit; the rest are counted as left out.
    pub(crate) fn take(&mut self, n: usize) -> usize {
        let room = self.limit.saturating_sub(self.rows).min(n as u64) as usize;
        self.left_out += (n - room) as u64;
        if self.error.is_some() {
            return 0;
        }
        room
    }

    /// Writes `bytes`, which hold `records` of them.
    pub(crate) fn write(&mut self, records: usize, bytes: &[u8]) {
        if self.error.is_some() || bytes.is_empty() {
            return;
        }
        self.rows += records as u64;
        if let Err(e) = self.w.write_all(bytes) {
            self.error = Some(e);
        }
    }

    pub(crate) fn finish(mut self) -> io::Result<TraceFile> {
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        self.w.flush()?;
        Ok(TraceFile { path: self.path, rows: self.rows, left_out: self.left_out })
    }
}
