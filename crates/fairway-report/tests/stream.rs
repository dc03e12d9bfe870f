//! `fairway run` writes the time series while the run goes (output::stream), the library keeps
//! them (output::write_all): every shipped scenario gives the same files, to the byte, both
//! ways. A run with more bins than the plots keep merges them for the plots only. Each
//! summary.json reads back (as `fairway sweep --resume` reads a finished point's) into a summary
//! that writes the same bytes.

use std::path::{Path, PathBuf};

use fairway_engine::{run, run_into, RunOptions, Scenario};
use fairway_model::results::Summary;
use fairway_report::output::stream::{StreamWriter, PLOT_ROWS};
use fairway_report::output::{write_after_stream, write_all};
use fairway_scenario::{parse_scenario, parse_scenario_file};

fn shipped() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios");
    let mut files = vec![];
    for dir in std::fs::read_dir(&root).unwrap() {
        for f in std::fs::read_dir(dir.unwrap().path()).unwrap() {
            let p = f.unwrap().path();
            // The 10 000-flow benchmark takes long in a test build; the 1 000 one covers it.
            if p.extension().is_some_and(|e| e == "toml") && !p.ends_with("series-10000.toml") {
                files.push(p);
            }
        }
    }
    files.sort();
    files
}

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("fairway-stream-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// The files of a folder, by name, with their bytes.
fn files(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut v: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .map(|p| (p.file_name().unwrap().to_string_lossy().into_owned(), std::fs::read(&p).unwrap()))
        .collect();
    v.sort();
    v
}

/// Writes `sc`'s results both ways; returns the two folders.
fn both(sc: &Scenario, tag: &str) -> (PathBuf, PathBuf) {
    let (kept, streamed) = (tmp(&format!("{tag}-kept")), tmp(&format!("{tag}-streamed")));
    let res = run(sc, &RunOptions::default(), &mut |_| {}).unwrap();
    let a = write_all(&res, sc, &kept).unwrap();
    let mut w = StreamWriter::create(&streamed, sc).unwrap();
    let mut res2 = run_into(sc, &RunOptions::default(), &mut |_| {}, &mut w).unwrap();
    assert!(res2.flow_bins.is_empty() && res2.queue_samples.is_empty(), "nothing kept");
    let paths = w.finish(&mut res2).unwrap();
    let b = write_after_stream(&res2, sc, &streamed, paths, &[], &Default::default()).unwrap();
    let names = |v: &[PathBuf]| v.iter().map(|p| p.file_name().unwrap().to_owned()).collect::<Vec<_>>();
    assert_eq!(names(&a), names(&b), "the same files, in the same order");
    (kept, streamed)
}

#[test]
fn every_shipped_scenario_writes_the_same_bytes_streamed_or_kept() {
    for f in shipped() {
        let sc = parse_scenario_file(&f).unwrap();
        let (kept, streamed) = both(&sc, "shipped");
        let (a, b) = (files(&kept), files(&streamed));
        assert_eq!(a.len(), b.len(), "{}", f.display());
        for ((na, ba), (nb, bb)) in a.iter().zip(&b) {
            assert_eq!(na, nb);
            assert!(ba == bb, "{}: {na} differs", f.display());
        }
        let json = std::fs::read_to_string(kept.join("summary.json")).unwrap();
        let back = Summary::from_json(&json).unwrap_or_else(|e| panic!("{}: summary.json: {e}", f.display()));
        let again = serde_json::to_string_pretty(&back).unwrap() + "\n";
        assert!(again == json, "{}: summary.json read back writes other bytes", f.display());
        let _ = std::fs::remove_dir_all(kept);
        let _ = std::fs::remove_dir_all(streamed);
    }
}

#[test]
fn a_long_run_keeps_a_merged_copy_for_its_plots_and_every_row_in_its_files() {
    // 30 flows x 10 000 bins of 10 ms: 300 000 rows, more than the plots keep.
    let mut text = String::from("duration = \"100s\"\n[monitor]\nbin = \"10ms\"\n");
    text.push_str("[[link]]\nbetween = [\"s{i}\", \"r\"]\ncount = 30\nrate = \"10Mb\"\ndelay = \"1ms\"\n");
    text.push_str("[[link]]\nbetween = [\"r\", \"d\"]\nrate = \"10Mb\"\ndelay = \"5ms\"\n");
    text.push_str(
        "[[flow]]\nname = \"c{i}\"\ncount = 30\napp = \"cbr\"\nfrom = \"s{i}\"\nto = \"d\"\nrate = \"0.2Mb\"\n",
    );
    let sc = parse_scenario("long.toml", &text, "long").unwrap();
    const { assert!(30 * 10_000 > PLOT_ROWS) };
    let (kept, streamed) = both(&sc, "long");
    for name in ["flows.csv", "classes.csv", "queue.csv", "summary.json", "links.csv"] {
        let (a, b) = (std::fs::read(kept.join(name)).unwrap(), std::fs::read(streamed.join(name)).unwrap());
        assert!(a == b, "{name} differs");
    }
    let rows = std::fs::read_to_string(streamed.join("flows.csv")).unwrap().lines().count() - 1;
    assert_eq!(rows, 30 * 10_000);
    // The plots are drawn from two bins merged into one (20 ms).
    let svg = std::fs::read_to_string(streamed.join("throughput.svg")).unwrap();
    assert!(svg.contains("<svg"), "a plot");
    let _ = std::fs::remove_dir_all(kept);
    let _ = std::fs::remove_dir_all(streamed);
}
