//! fairway-report: what a run writes ([`output`]: summary.json, CSV files, SVG plots, the short
//! table, report.html, traces, pcap), and [`stats`]: the mean and 95% intervals over seeds that a
//! `--reps` run's replications.csv and the reproductions share. The seed papers' reproductions
//! are fairway-papers', which draws, pages and runs through this crate.

pub mod output;
pub mod stats;
