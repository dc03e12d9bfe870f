//! `fairway model iftp`: elaarag2002 §5's closed forms, tabulated and plotted like its Figure 3.
//! The formulas are in fairway-proto (`iftp::model`); this module chooses the points and writes
//! the CSV and SVG.

use std::fmt::Write as _;

use fairway_core::{Bytes, Dur, Rate};
use fairway_proto::iftp::model;

use fairway_report::output::svg::{Plot, Series, Style};

/// The model's inputs, in the paper's symbols.
#[derive(Debug, Clone)]
pub struct IftpModelParams {
    /// P, the packet size.
    pub packet_size: Bytes,
    /// R, the round trip time (the adjustment period).
    pub rtt: Dur,
    /// W_s, the slow-start threshold (a power of two for eqs. (12)-(19)).
    pub ssthresh: u32,
    /// W_max, the largest window.
    pub w_max: u32,
    /// p, the packet drop rate of the non-ideal case.
    pub loss: f64,
    /// The access rate giving tau = P x 8 / rate for the worst case, eq. (27).
    pub access_rate: Rate,
}

impl Default for IftpModelParams {
    /// elaarag2002 §6.1's parameters (P = 1000 bytes, W_s = 32, W_max = 50) with R = 100 ms,
    /// p = 1% and a 10 Mb/s access link.
    fn default() -> Self {
        IftpModelParams {
            packet_size: Bytes(1000),
            rtt: Dur::from_millis(100),
            ssthresh: 32,
            w_max: 50,
            loss: 0.01,
            access_rate: Rate(10_000_000),
        }
    }
}

impl IftpModelParams {
    pub fn validate(&self) -> Result<(), String> {
        if self.packet_size.0 == 0 {
            return Err("--packet-size must be above zero".into());
        }
        if self.rtt.is_zero() {
            return Err("--rtt must be above zero".into());
        }
        if self.ssthresh == 0 || !self.ssthresh.is_power_of_two() {
            return Err(format!("--ssthresh {} must be a power of two (elaarag2002 §5.1 assumes it)", self.ssthresh));
        }
        if self.w_max < self.ssthresh {
            return Err(format!("--w-max {} is below --ssthresh {}", self.w_max, self.ssthresh));
        }
        if !(self.loss > 0.0 && self.loss < 1.0) {
            return Err(format!("--loss {} must be a drop rate between 0 and 1", self.loss));
        }
        if self.access_rate.0 == 0 {
            return Err("--access-rate must be above zero".into());
        }
        Ok(())
    }
}

/// What `fairway model iftp` writes.
pub struct IftpModelOutput {
    /// Per file size N: case, rounds, ideal and worst-case bandwidth, and bandwidth x RTT.
    pub by_size_csv: String,
    /// Per drop rate p: eq. (25)'s window and eq. (26)'s bound (with the exact n of (25)).
    pub by_loss_csv: String,
    /// Figure 3's counterpart: bandwidth x RTT against N, ideal and worst case.
    pub figure3_svg: String,
    /// The non-ideal bound against p.
    pub loss_svg: String,
    /// A few lines for the terminal.
    pub summary: String,
}

/// File sizes of Figure 3 (N = 8 ... 5000) and the powers of two between.
const SIZES: [u64; 11] = [8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 5000];

pub fn iftp_model(p: &IftpModelParams) -> IftpModelOutput {
    let bits = p.packet_size.bits() as f64;
    let r = p.rtt.as_secs_f64();
    let tau = p.access_rate.tx_time(p.packet_size).as_secs_f64();
    let worst = model::worst_case(bits, tau);
    let mut by_size =
        String::from("n_packets,case,rounds,ideal_bps,ideal_bw_x_rtt_bits,worst_bps,worst_bw_x_rtt_bits\n");
    let (mut ideal_pts, mut worst_pts) = (vec![], vec![]);
    for n in SIZES {
        let case = model::ideal_case(n, p.ssthresh, p.w_max).map_or(String::new(), |c| c.to_string());
        let rounds = model::ideal_rounds(n, p.ssthresh, p.w_max).map_or(String::new(), |x| x.to_string());
        let ideal = model::ideal_bandwidth(n, bits, r, p.ssthresh, p.w_max);
        let _ = writeln!(by_size, "{n},{case},{rounds},{ideal:.3},{:.3},{worst:.3},{:.3}", ideal * r, worst * r);
        let x = (n as f64).log2();
        ideal_pts.push((x, ideal * r / bits));
        worst_pts.push((x, worst * r / bits));
    }
    let limit = model::ideal_limit(bits, r, p.w_max);
    let mut by_loss = String::from("drop_rate,window_exact,window_approx,bound_bps,exact_bps\n");
    let mut bound_pts = vec![];
    for k in 0..=40 {
        // p from 1e-4 to 1e-1, log-spaced.
        let q = 10f64.powf(-4.0 + 3.0 * k as f64 / 40.0);
        let b = model::nonideal_bound(q, bits, r);
        let _ = writeln!(
            by_loss,
            "{q:.6e},{:.4},{:.4},{b:.3},{:.3}",
            model::window_at_drop_rate(q),
            model::window_at_drop_rate_approx(q),
            model::nonideal_exact(q, bits, r)
        );
        bound_pts.push((q.log10(), b / 1e3));
    }
    let title3 = format!(
        "elaarag2002 Fig. 3: bandwidth x RTT (packets) for P = {}, W_s = {}, W_max = {}",
        p.packet_size, p.ssthresh, p.w_max
    );
    let figure3_svg = Plot::new(&title3, "lg N (N = packets in the file)", "bandwidth x RTT / P (packets)")
        .series(Series::new("ideal, eqs. (17)-(19)", &ideal_pts, Style::Line))
        .series(Series::new("worst case, eq. (27)", &worst_pts, Style::Line))
        .to_svg();
    let title_loss = format!("elaarag2002 eq. (26): non-ideal bound for P = {}, R = {}", p.packet_size, p.rtt);
    let loss_svg = Plot::new(&title_loss, "log10 p (drop rate)", "bandwidth bound (kb/s)")
        .series(Series::new("eq. (26)", &bound_pts, Style::Line))
        .to_svg();
    let mut summary = String::new();
    let _ = writeln!(
        summary,
        "IFTP model (elaarag2002 §5), P = {}, R = {}, W_s = {}, W_max = {}:",
        p.packet_size, p.rtt, p.ssthresh, p.w_max
    );
    let _ = writeln!(summary, "  ideal, long files (eq. 20):      {:.1} kb/s", limit / 1e3);
    for n in [16, 256, 5000] {
        let _ = writeln!(
            summary,
            "  ideal, N = {n:<5} (eqs. 17-19):   {:.1} kb/s",
            model::ideal_bandwidth(n, bits, r, p.ssthresh, p.w_max) / 1e3
        );
    }
    let _ = writeln!(
        summary,
        "  non-ideal bound at p = {} (eq. 26): {:.1} kb/s",
        p.loss,
        model::nonideal_bound(p.loss, bits, r) / 1e3
    );
    let _ = writeln!(summary, "  worst case (eq. 27, tau = {:.3} ms): {:.1} kb/s", tau * 1e3, worst / 1e3);
    IftpModelOutput { by_size_csv: by_size, by_loss_csv: by_loss, figure3_svg, loss_svg, summary }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_valid_and_bad_inputs_are_named() {
        assert!(IftpModelParams::default().validate().is_ok());
        let bad = IftpModelParams { ssthresh: 30, ..Default::default() };
        assert!(bad.validate().unwrap_err().contains("power of two"));
        let bad = IftpModelParams { loss: 0.0, ..Default::default() };
        assert!(bad.validate().unwrap_err().contains("--loss"));
        let bad = IftpModelParams { w_max: 16, ..Default::default() };
        assert!(bad.validate().unwrap_err().contains("--w-max"));
    }

    #[test]
    fn tables_cover_figure_3_and_grow_towards_the_limit() {
        let p = IftpModelParams::default();
        let out = iftp_model(&p);
        let rows: Vec<Vec<f64>> = out
            .by_size_csv
            .lines()
            .skip(1)
            .map(|l| l.split(',').map(|x| x.parse().unwrap_or(f64::NAN)).collect())
            .collect();
        assert_eq!(rows.len(), SIZES.len());
        // Cases 1, 2 and 3 as Figure 3's text places them: N = 8-32, 64-512, 1024-5000.
        let cases: Vec<u64> = rows.iter().map(|r| r[1] as u64).collect();
        assert_eq!(cases, vec![1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3]);
        // Ideal bandwidth grows with N and stays below W_max x P / R (eq. 20).
        let limit = 50.0 * 8000.0 / 0.1;
        for w in rows.windows(2) {
            assert!(w[1][3] >= w[0][3]);
        }
        assert!(rows.iter().all(|r| r[3] < limit));
        // The worst case is the same for all N: one packet per 64 ms + tau (eq. 27).
        let worst = 8000.0 / (0.0008 + 0.064);
        assert!(rows.iter().all(|r| (r[5] - worst).abs() < 1e-3));
        // The loss table's bound falls as 1/sqrt(p).
        let b: Vec<f64> =
            out.by_loss_csv.lines().skip(1).map(|l| l.split(',').nth(3).unwrap().parse().unwrap()).collect();
        assert!(b.windows(2).all(|w| w[1] < w[0]));
        assert!(out.figure3_svg.starts_with("<svg") && out.loss_svg.starts_with("<svg"));
    }
}
