//! Writing a run's time series while it runs: flows.csv, classes.csv and queue.csv grow as the
//! bins end and the samples are taken, so a run holds none of them in memory, whatever its
//! length. The plots need the series too: they get a copy of at most [`PLOT_ROWS`] bins and as
//! many samples, consecutive bins merged and samples thinned when the run has more. The files are
//! the bytes [`super::write_all`] writes from a [`RunResult`] that kept everything.

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

use fairway_core::{Dur, Time};
use fairway_engine::results::{BinRow, QueueRow, RunResult, SeriesSink};
use fairway_engine::scenario::Scenario;

use super::csv;

/// Rows (flows x bins, and links x samples) kept for the plots, at most.
pub const PLOT_ROWS: u64 = 200_000;

/// A [`SeriesSink`] writing the series' files into a folder.
pub struct StreamWriter<'a> {
    sc: &'a Scenario,
    labels: Vec<String>,
    classes: Vec<&'static str>,
    link_names: Vec<(usize, String)>,
    /// Per link, its place in `link_names` (usize::MAX: not monitored).
    place: Vec<usize>,
    flows: BufWriter<File>,
    class_rows: BufWriter<File>,
    queue: BufWriter<File>,
    paths: [PathBuf; 3],
    buf: String,
    /// The first write that failed: the run goes on, and [`StreamWriter::finish`] reports it.
    error: Option<io::Error>,
    /// Bins merged into one for the plots, and samples per one kept.
    bins_per_plot_bin: usize,
    samples_per_plot_sample: usize,
    plot_bins: Vec<Vec<BinRow>>,
    merging: Vec<BinRow>,
    merged: usize,
    plot_samples: Vec<(usize, Vec<QueueRow>)>,
    sample_count: Vec<usize>,
}

impl<'a> StreamWriter<'a> {
    /// Creates flows.csv, classes.csv and queue.csv in `dir` with their headers.
    pub fn create(dir: &Path, sc: &'a Scenario) -> io::Result<StreamWriter<'a>> {
        let open = |name: &str, header: &str| -> io::Result<(BufWriter<File>, PathBuf)> {
            let path = dir.join(name);
            let mut w = BufWriter::with_capacity(1 << 20, File::create(&path)?);
            w.write_all(header.as_bytes())?;
            Ok((w, path))
        };
        let (flows, pf) = open("flows.csv", csv::FLOWS_HEADER)?;
        let (class_rows, pc) = open("classes.csv", csv::CLASSES_HEADER)?;
        let (queue, pq) = open("queue.csv", csv::QUEUE_HEADER)?;
        let nbins = sc.duration.0.div_ceil(sc.monitor.bin.0.max(1)).max(1);
        let samples = sc.duration.0 / sc.monitor.queue_interval.0.max(1) + 1;
        let mut place = vec![usize::MAX; sc.links.len()];
        for (i, &l) in sc.monitor.links.iter().enumerate() {
            place[l] = i;
        }
        let per = |n: u64, series: u64| (n.saturating_mul(series.max(1))).div_ceil(PLOT_ROWS).max(1) as usize;
        Ok(StreamWriter {
            sc,
            labels: csv::flow_labels(sc),
            classes: fairway_engine::class_names(sc),
            link_names: sc.monitor.links.iter().map(|&l| (l, sc.link_name(l))).collect(),
            place,
            flows,
            class_rows,
            queue,
            paths: [pf, pq, pc],
            buf: String::new(),
            error: None,
            bins_per_plot_bin: per(nbins, sc.flows.len() as u64),
            samples_per_plot_sample: per(samples, sc.monitor.links.len() as u64),
            plot_bins: vec![Vec::new(); sc.flows.len()],
            merging: vec![],
            merged: 0,
            plot_samples: sc.monitor.links.iter().map(|&l| (l, Vec::new())).collect(),
            sample_count: vec![0; sc.monitor.links.len()],
        })
    }

    fn put(error: &mut Option<io::Error>, w: &mut BufWriter<File>, s: &str) {
        if error.is_none() {
            if let Err(e) = w.write_all(s.as_bytes()) {
                *error = Some(e);
            }
        }
    }

    /// Flushes the files; returns their paths (flows.csv, queue.csv, classes.csv) and the
    /// series the plots draw: `res` with the kept bins and samples, its bin widened when bins
    /// were merged.
    pub fn finish(mut self, res: &mut RunResult) -> io::Result<[PathBuf; 3]> {
        if !self.merging.is_empty() {
            let rows = std::mem::take(&mut self.merging);
            for (bins, r) in self.plot_bins.iter_mut().zip(rows) {
                bins.push(r);
            }
        }
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        for w in [&mut self.flows, &mut self.class_rows, &mut self.queue] {
            w.flush()?;
        }
        res.flow_bins = std::mem::take(&mut self.plot_bins);
        res.queue_samples = std::mem::take(&mut self.plot_samples);
        res.bin = Dur(self.sc.monitor.bin.0.saturating_mul(self.bins_per_plot_bin as u64));
        Ok(self.paths)
    }
}

impl SeriesSink for StreamWriter<'_> {
    fn bin(&mut self, _k: usize, t0: Time, t1: Time, rows: &[BinRow]) {
        self.buf.clear();
        csv::flows_bin(&mut self.buf, &self.labels, t0.0, t1.0, rows);
        Self::put(&mut self.error, &mut self.flows, &self.buf);
        self.buf.clear();
        csv::classes_bin(&mut self.buf, self.sc, &self.classes, t0.0, t1.0, rows);
        Self::put(&mut self.error, &mut self.class_rows, &self.buf);
        // The plots' copy: `bins_per_plot_bin` bins summed into one (the window and the scale
        // as at the last one's end).
        if self.merging.is_empty() {
            self.merging = rows.to_vec();
        } else {
            for (m, r) in self.merging.iter_mut().zip(rows) {
                m.sent_pkts += r.sent_pkts;
                m.recv_pkts += r.recv_pkts;
                m.dropped_pkts += r.dropped_pkts;
                m.distinct_bytes += r.distinct_bytes;
                m.goodput_bytes += r.goodput_bytes;
                m.delay_sum_s += r.delay_sum_s;
                m.delay_n += r.delay_n;
                m.cwnd_pkts = r.cwnd_pkts;
                m.scale = r.scale;
            }
        }
        self.merged += 1;
        if self.merged == self.bins_per_plot_bin {
            let rows = std::mem::take(&mut self.merging);
            for (bins, r) in self.plot_bins.iter_mut().zip(rows) {
                bins.push(r);
            }
            self.merged = 0;
        }
    }

    fn queue(&mut self, link: usize, row: &QueueRow) {
        let Some(&i) = self.place.get(link).filter(|&&i| i != usize::MAX) else { return };
        self.buf.clear();
        csv::queue_row(&mut self.buf, &self.link_names[i].1, row);
        Self::put(&mut self.error, &mut self.queue, &self.buf);
        if self.sample_count[i].is_multiple_of(self.samples_per_plot_sample) {
            self.plot_samples[i].1.push(*row);
        }
        self.sample_count[i] += 1;
    }
}
