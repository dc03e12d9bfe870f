//! Figures as PNG and PDF beside their SVG, drawn by rsvg-convert (Debian's librsvg2-bin).

use std::io;
use std::path::{Path, PathBuf};
use std::process::Command;

/// A figure's other formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Png,
    Pdf,
}

impl Format {
    pub fn ext(self) -> &'static str {
        match self {
            Format::Png => "png",
            Format::Pdf => "pdf",
        }
    }
}

/// Whether rsvg-convert runs here; the error says what to install. Asked before a run, so
/// that a long one is not wasted on figures that cannot be converted.
pub fn available(formats: &[Format]) -> Result<(), String> {
    let Some(first) = formats.first() else { return Ok(()) };
    match Command::new("rsvg-convert").arg("--version").output() {
        Ok(o) if o.status.success() => Ok(()),
        _ => {
            Err(format!("--format {} needs rsvg-convert (Debian's librsvg2-bin), which does not run here", first.ext()))
        }
    }
}

/// Writes `svg` in each of `formats` beside it (same name, the format's extension) and returns
/// the paths written.
pub fn convert(svg: &Path, formats: &[Format]) -> io::Result<Vec<PathBuf>> {
    let mut written = vec![];
    for f in formats {
        let to = svg.with_extension(f.ext());
        let o = Command::new("rsvg-convert")
            .args(["-f", f.ext(), "-o"])
            .arg(&to)
            .arg(svg)
            .output()
            .map_err(|e| io::Error::other(format!("rsvg-convert (Debian's librsvg2-bin) does not run: {e}")))?;
        if !o.status.success() {
            return Err(io::Error::other(format!(
                "rsvg-convert failed on {}: {}",
                svg.display(),
                String::from_utf8_lossy(&o.stderr).trim()
            )));
        }
        written.push(to);
    }
    Ok(written)
}
