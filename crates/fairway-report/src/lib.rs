//! fairway-report: what a run writes ([`output`]: summary.json, CSV files, SVG plots, the short
//! table), `fairway model iftp`'s tables ([`iftp_model`]), and the seed papers' reproductions
//! with their claims ([`reproduce`]). [`stats`]: the mean and 95% intervals over seeds that a
//! `--reps` run's replications.csv and the reproductions share.

pub mod iftp_model;
pub mod output;
pub mod reproduce;
pub mod stats;
