//! Video trace files for RFC 8593 §6's trace-driven encoder ([`fairway_proto::rtp::trace`]): the
//! map Traces as CSV that pandas reads as it is (`pd.read_csv(path)`).
//!
//! The layout is long (tidy): a header naming the columns `rate_bps`, `frame` and `size_bytes`,
//! then one row per frame per rate: the encoder's target rate in bits per second, the frame's
//! index in encoding order (0 for the first, the I-frame) and its size in bytes. Each rate's
//! rows come together, frames 0, 1, ..., n-1 in order, the rates increasing, every rate with the
//! same n (what `df.sort_values(["rate_bps", "frame"]).to_csv(path, index=False)` writes). Other
//! columns are ignored (pandas' index, if written, or notes), so are blank lines; the columns
//! may come in any order. Long rather than wide (a column per rate) because the rates are data,
//! not names: `df.pivot(index="frame", columns="rate_bps", values="size_bytes")` gives the wide
//! table, `df.groupby("rate_bps").size_bytes.mean()` each rate's mean frame, and a new rate is
//! more rows, not a new column.

use fairway_proto::rtp::trace::Traces;

/// The largest trace file read: some minutes of frames at some tens of rates.
pub const MAX_TRACE_BYTES: u64 = 64 << 20;

/// The columns a trace file must have.
pub const COLUMNS: [&str; 3] = ["rate_bps", "frame", "size_bytes"];

/// The map in a trace file's text, checked; or the line (1-based; 0 for the file as a whole)
/// and what is wrong there.
pub fn parse(text: &str) -> Result<Traces, (usize, String)> {
    let mut lines = text.lines().enumerate().map(|(i, l)| (i + 1, l.trim_end_matches('\r')));
    let Some((_, header)) = lines.by_ref().find(|(_, l)| !l.trim().is_empty()) else {
        return Err((0, format!("the file is empty: expected a header {}", COLUMNS.join(","))));
    };
    let names: Vec<&str> = header.split(',').map(|s| s.trim().trim_matches('"')).collect();
    let mut col = [0usize; 3];
    for (c, want) in col.iter_mut().zip(COLUMNS) {
        *c = names.iter().position(|n| *n == want).ok_or_else(|| {
            (1, format!("the header `{header}` has no column `{want}`: expected {}", COLUMNS.join(",")))
        })?;
    }
    let width = names.len();
    let mut traces: Vec<(u64, Vec<u32>)> = vec![];
    for (line, row) in lines {
        if row.trim().is_empty() {
            continue;
        }
        let cells: Vec<&str> = row.split(',').map(str::trim).collect();
        if cells.len() != width {
            return Err((line, format!("{} fields where the header has {width}", cells.len())));
        }
        let num = |k: usize| -> Result<u64, (usize, String)> {
            let cell = cells[col[k]];
            cell.parse::<u64>().map_err(|_| (line, format!("{} `{cell}` is not a non-negative integer", COLUMNS[k])))
        };
        let (rate, frame, size) = (num(0)?, num(1)?, num(2)?);
        let size = u32::try_from(size).map_err(|_| (line, format!("size_bytes {size} is too large for a frame")))?;
        if let Some((r, sizes)) = traces.last_mut().filter(|(r, _)| *r == rate) {
            if frame != sizes.len() as u64 {
                return Err((line, format!("frame {frame} of rate {r}: expected frame {}", sizes.len())));
            }
            sizes.push(size);
            continue;
        }
        // A new rate: the one before must be complete, and this one new and higher.
        if let Some((r, sizes)) = traces.last() {
            if rate < *r || traces.iter().any(|(x, _)| *x == rate) {
                return Err((
                    line,
                    format!("rate {rate} after rate {r}: rows must come grouped by rate, the rates increasing"),
                ));
            }
            let (r0, n) = (traces[0].0, traces[0].1.len());
            if sizes.len() != n {
                return Err((
                    line,
                    format!(
                        "rate {r} has {} and rate {r0} has {}: every rate needs the same frames",
                        frames(sizes.len()),
                        frames(n)
                    ),
                ));
            }
        }
        if frame != 0 {
            return Err((line, format!("rate {rate} starts at frame {frame}: expected frame 0")));
        }
        traces.push((rate, vec![size]));
    }
    if traces.is_empty() {
        return Err((0, "the file has a header and no frames".into()));
    }
    // The last rate's count, the rates' order, positive rates: as the map checks them.
    Traces::new(traces).map_err(|e| (0, e))
}

/// "1 frame", "2 frames".
fn frames(n: usize) -> String {
    if n == 1 {
        "1 frame".to_string()
    } else {
        format!("{n} frames")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_csv_reads_into_the_map() {
        let t = parse("rate_bps,frame,size_bytes\n150000,0,900\n150000,1,20\n350000,0,1900\n350000,1,40\n").unwrap();
        assert_eq!(t.rates(), [150_000, 350_000]);
        assert_eq!(t.sizes(1), [1900, 40]);
        // pandas' index column, columns in another order, CRLF, blank lines and quotes.
        let t = parse("\"\",\"frame\",\"size_bytes\",\"rate_bps\"\r\n0,0,7,100\r\n\r\n1,1,8,100\r\n").unwrap();
        assert_eq!((t.rates(), t.sizes(0)), (&[100][..], &[7, 8][..]));
    }

    #[test]
    fn a_bad_file_is_refused_at_its_line() {
        let bad = |s: &str| parse(s).unwrap_err();
        assert_eq!(bad(""), (0, "the file is empty: expected a header rate_bps,frame,size_bytes".into()));
        assert!(bad("rate,frame,size_bytes\n").1.contains("no column `rate_bps`"));
        assert_eq!(bad("rate_bps,frame,size_bytes\n"), (0, "the file has a header and no frames".into()));
        let h = "rate_bps,frame,size_bytes\n";
        assert_eq!(bad(&format!("{h}100,0,5\n100,1\n")), (3, "2 fields where the header has 3".into()));
        assert_eq!(bad(&format!("{h}100,0,5\n100,1,x\n")), (3, "size_bytes `x` is not a non-negative integer".into()));
        assert_eq!(bad(&format!("{h}100,0,5\n100,1,-5\n")).0, 3);
        assert_eq!(bad(&format!("{h}1e5,0,5\n")), (2, "rate_bps `1e5` is not a non-negative integer".into()));
        assert_eq!(bad(&format!("{h}100,0,5\n100,2,5\n")), (3, "frame 2 of rate 100: expected frame 1".into()));
        assert_eq!(bad(&format!("{h}100,1,5\n")), (2, "rate 100 starts at frame 1: expected frame 0".into()));
        let e = bad(&format!("{h}200,0,5\n100,0,5\n"));
        assert_eq!(e, (3, "rate 100 after rate 200: rows must come grouped by rate, the rates increasing".into()));
        assert_eq!(bad(&format!("{h}100,0,5\n200,0,5\n100,0,5\n")).0, 4);
        let e = bad(&format!("{h}100,0,5\n100,1,5\n200,0,5\n300,0,5\n"));
        assert_eq!(e, (5, "rate 200 has 1 frame and rate 100 has 2 frames: every rate needs the same frames".into()));
        // The last rate short: the map's own check, for the file as a whole.
        let e = bad(&format!("{h}100,0,5\n100,1,5\n200,0,5\n"));
        assert_eq!(e, (0, "every rate needs the same number of frames: 200 b/s has 1, 100 b/s has 2".into()));
        assert_eq!(bad(&format!("{h}0,0,5\n")).0, 0);
    }
}
