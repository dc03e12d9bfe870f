//! The referee's target bitrate from its log (`rfc8867_5_1_default_params.csv`, a row every
//! 50 ms): (time s, target bitrate b/s). Shared by the tests that compare fairway's SCReAM with
//! it (fairway-proto's unit tests, fairway-scenario's scream_referee.rs), which include this
//! file by path.

/// Column 8 of each row after the header: `target_bitrate_kbps`, in b/s.
pub fn target_bitrate() -> Vec<(f64, f64)> {
    include_str!("rfc8867_5_1_default_params.csv")
        .lines()
        .skip(1)
        .map(|l| {
            let f: Vec<f64> = l.split(',').map(|x| x.parse().unwrap()).collect();
            (f[0], f[8] * 1000.0)
        })
        .collect()
}
