//! Every shipped paper's claims.csv against the one rule set (docs/reproductions.md): each row
//! names its reading, keeps its band inside its quantity's bounds, gives a phrase the band the
//! rules give it and a verdict its own numbers give, and no run counts twice; the report's
//! counts are the counted rows'. The five reproductions run here at the default five seeds, as
//! a user runs them.

use fairway_papers::claims::{check_csv, read_csv};
use fairway_papers::{dccp_ns2, elaarag2002, reproduce, ReproduceOptions, PAPERS};

#[test]
fn every_row_of_every_paper_follows_the_rules() {
    let root = std::env::temp_dir().join(format!("fairway-claims-rules-{}", std::process::id()));
    let mut problems = vec![];
    for paper in PAPERS {
        let out = root.join(paper.name);
        let report = reproduce(paper.name, &ReproduceOptions::new(out.clone()), &mut |_| {})
            .unwrap_or_else(|e| panic!("{}: {e}", paper.name));
        let csv = std::fs::read_to_string(out.join("claims.csv")).unwrap();
        match check_csv(&csv) {
            Ok(counts) => {
                // The report opens with the counted rows' counts.
                let text = std::fs::read_to_string(&report).unwrap();
                let first = text.lines().find(|l| l.starts_with("**Of ")).unwrap_or("");
                let total: usize = counts.iter().map(|c| c.1).sum();
                let mut want = format!("**Of {total} claims: ");
                want.push_str(&counts.iter().map(|(v, n)| format!("{n} {}", v.name())).collect::<Vec<_>>().join(", "));
                assert!(first.starts_with(&want), "{}: {first} against {want}", paper.name);
                // Every claim of a reading other than the primary one is shown and not counted.
                let rows = read_csv(&csv).unwrap();
                assert!(rows.iter().filter(|r| r["counted"] == "yes").count() == total);
                // The second readings the issue named: elaarag2002's Fig. 1 sender, dccp-ns2's
                // random wait; each shown beside the primary reading's rows, none counted.
                let second = match paper.name {
                    "elaarag2002" => Some(elaarag2002::claims::FIGURE1),
                    "dccp-ns2" => Some(dccp_ns2::claims::JITTERED),
                    _ => None,
                };
                if let Some(second) = second {
                    let under: Vec<_> = rows.iter().filter(|r| r["reading"] == second).collect();
                    assert!(under.len() >= 20, "{}: {} rows under {second}", paper.name, under.len());
                    assert!(under.iter().all(|r| r["counted"] == "no"), "{}", paper.name);
                }
            }
            Err(p) => problems.extend(p.into_iter().map(|m| format!("{}: {m}", paper.name))),
        }
    }
    let _ = std::fs::remove_dir_all(&root);
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
