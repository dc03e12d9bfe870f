//! `fairway model`: a protocol's closed-form model tabulated and plotted (IFTP's, `model iftp`).

use std::path::PathBuf;

use anyhow::Context;
use fairway_report::output::folder::Staged;

use crate::Failure;

pub(crate) fn model_iftp(
    packet_size: &str,
    rtt: &str,
    ssthresh: u32,
    w_max: u32,
    loss: f64,
    access_rate: &str,
    out: Option<PathBuf>,
) -> Result<(), Failure> {
    use fairway_core::{Bytes, Dur, Rate};
    use fairway_papers::iftp_model::{iftp_model, IftpModelParams};
    let bad = |flag: &str, e: fairway_core::UnitError| Failure::Input(format!("{flag}: {e}"));
    let p = IftpModelParams {
        packet_size: Bytes::parse(packet_size).map_err(|e| bad("--packet-size", e))?,
        rtt: Dur::parse(rtt).map_err(|e| bad("--rtt", e))?,
        ssthresh,
        w_max,
        loss,
        access_rate: Rate::parse(access_rate).map_err(|e| bad("--access-rate", e))?,
    };
    p.validate().map_err(Failure::Input)?;
    let out = out.unwrap_or_else(|| PathBuf::from("out").join("model-iftp"));
    let staged = Staged::begin(&out).map_err(|e| Failure::Input(e.to_string()))?;
    let m = iftp_model(&p);
    for (name, body) in [
        ("iftp-model-by-size.csv", &m.by_size_csv),
        ("iftp-model-by-loss.csv", &m.by_loss_csv),
        ("iftp-model-fig3.svg", &m.figure3_svg),
        ("iftp-model-by-loss.svg", &m.loss_svg),
    ] {
        let path = staged.dir().join(name);
        std::fs::write(&path, body).with_context(|| format!("writing {}", out.join(name).display()))?;
    }
    staged.commit().context("the model's tables could not take their folder's place")?;
    print!("{}", m.summary);
    println!("tables and plots in {}/", out.display());
    Ok(())
}
