//! Writing a run's time series while it runs: flows.csv, classes.csv and queue.csv grow as the
//! bins end and the samples are taken, so a run holds none of them in memory, whatever its
//! length. The plots need the series too: they get a copy of at most [`PLOT_ROWS`] bins and as
//! many samples, consecutive bins merged and samples thinned when the run has more. The files are
//! the bytes [`super::write_all`] writes from a [`RunResult`] that kept everything.

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::mpsc::{sync_channel, Receiver, SyncSender};
use std::thread::JoinHandle;

use fairway_core::{Dur, Time};
use fairway_model::packet_trace::PacketEvent;
use fairway_model::results::{AgentRow, BinRow, QueueRow, RunResult, SeriesSink};
use fairway_model::scenario::Scenario;

use super::bounded::{Bounded, TraceFile};
use super::csv;
use super::packet_files::{PacketFiles, PacketOutputs};

/// Rows (flows x bins, and links x samples) kept for the plots, at most.
pub const PLOT_ROWS: u64 = 200_000;

/// What the run hands the writer thread.
enum Rows {
    Bin(u64, u64, Vec<BinRow>),
    Sample(usize, QueueRow),
}

/// Batches in flight to the writer thread, at most: past that the run waits for it, so that a
/// slow disk cannot make memory grow.
const IN_FLIGHT: usize = 8;
/// Rows (a flow's bin, or a sample) per batch: one hand-over per batch, not per row, which would
/// cost more than the formatting it moves off the run's thread. Small enough that a short run's
/// rows are formatted while it runs, not after it (100 s of nine flows in 0.1 s bins are 9000).
const BATCH_ROWS: usize = 512;

/// A [`SeriesSink`] writing the series' files into a folder. The rows are formatted and written
/// on a thread of their own, as the run goes on (the run is single-threaded: the second core
/// does the writing, as it did when the files were written after the run).
pub struct StreamWriter<'a> {
    sc: &'a Scenario,
    /// Per link, its place among the monitored links (usize::MAX: not monitored).
    place: Vec<usize>,
    to_writer: Option<SyncSender<Vec<Rows>>>,
    batch: Vec<Rows>,
    /// The rows in `batch`.
    batch_rows: usize,
    writer: Option<JoinHandle<io::Result<()>>>,
    paths: [PathBuf; 3],
    /// Bins merged into one for the plots, and samples per one kept.
    bins_per_plot_bin: usize,
    samples_per_plot_sample: usize,
    plot_bins: Vec<Vec<BinRow>>,
    merging: Vec<BinRow>,
    merged: usize,
    plot_samples: Vec<(usize, Vec<QueueRow>)>,
    sample_count: Vec<usize>,
    /// trace-agents.csv, written on the run's thread: only a traced run pays for it.
    agents: Option<Bounded>,
    /// The plots' copy of the agent trace: its first [`PLOT_ROWS`] rows.
    plot_agents: Vec<AgentRow>,
    /// The packet trace's files, likewise.
    packets: Option<PacketFiles>,
    buf: String,
}

/// The writer thread: formats each bin's rows into flows.csv and classes.csv and each sample
/// into queue.csv. Stops at the first write that fails and reports it when joined; the run goes
/// on (its sends then fail, which the sink ignores).
fn write_rows(sc: Scenario, mut files: [BufWriter<File>; 3], batches: Receiver<Vec<Rows>>) -> io::Result<()> {
    let labels = csv::flow_labels(&sc);
    let classes = fairway_model::results::class_names(&sc);
    let names: Vec<String> = sc.monitor.links.iter().map(|&l| sc.link_name(l)).collect();
    let [flows, class_rows, queue] = &mut files;
    let mut buf = String::new();
    for r in batches.into_iter().flatten() {
        buf.clear();
        match r {
            Rows::Bin(t0, t1, rows) => {
                csv::flows_bin(&mut buf, &labels, &sc.monitor.series, t0, t1, &rows);
                flows.write_all(buf.as_bytes())?;
                buf.clear();
                csv::classes_bin(&mut buf, &sc, &classes, t0, t1, &rows);
                class_rows.write_all(buf.as_bytes())?;
            }
            Rows::Sample(i, row) => {
                csv::queue_row(&mut buf, &names[i], &row);
                queue.write_all(buf.as_bytes())?;
            }
        }
    }
    for w in &mut files {
        w.flush()?;
    }
    Ok(())
}

impl<'a> StreamWriter<'a> {
    /// Creates flows.csv, classes.csv and queue.csv in `dir` with their headers, and the thread
    /// that writes them.
    pub fn create(dir: &Path, sc: &'a Scenario) -> io::Result<StreamWriter<'a>> {
        let open = |name: &str, header: &str| -> io::Result<(BufWriter<File>, PathBuf)> {
            let path = dir.join(name);
            let mut w = BufWriter::with_capacity(1 << 20, File::create(&path)?);
            w.write_all(header.as_bytes())?;
            Ok((w, path))
        };
        let (flows, pf) = open("flows.csv", &csv::flows_header(&sc.monitor.series))?;
        let (class_rows, pc) = open("classes.csv", csv::CLASSES_HEADER)?;
        let (queue, pq) = open("queue.csv", csv::QUEUE_HEADER)?;
        let nbins = sc.duration.0.div_ceil(sc.monitor.bin.0.max(1)).max(1);
        let samples = sc.duration.0 / sc.monitor.queue_interval.0.max(1) + 1;
        let mut place = vec![usize::MAX; sc.links.len()];
        for (i, &l) in sc.monitor.links.iter().enumerate() {
            place[l] = i;
        }
        let per = |n: u64, series: u64| (n.saturating_mul(series.max(1))).div_ceil(PLOT_ROWS).max(1) as usize;
        let (tx, rx) = sync_channel(IN_FLIGHT);
        let owned = sc.clone();
        let writer = std::thread::spawn(move || write_rows(owned, [flows, class_rows, queue], rx));
        Ok(StreamWriter {
            sc,
            place,
            to_writer: Some(tx),
            batch: vec![],
            batch_rows: 0,
            writer: Some(writer),
            paths: [pf, pq, pc],
            bins_per_plot_bin: per(nbins, sc.flows.len() as u64),
            samples_per_plot_sample: per(samples, sc.monitor.links.len() as u64),
            plot_bins: vec![Vec::new(); sc.flows.len()],
            merging: vec![],
            merged: 0,
            plot_samples: sc.monitor.links.iter().map(|&l| (l, Vec::new())).collect(),
            sample_count: vec![0; sc.monitor.links.len()],
            agents: None,
            plot_agents: vec![],
            packets: None,
            buf: String::new(),
        })
    }

    /// Also writes trace-agents.csv in `dir`, the traced senders' state changes (the run's
    /// fairway-engine's `RunOptions::trace_agents`), at most `limit` rows after its header.
    pub fn trace_agents(&mut self, dir: &Path, limit: u64) -> io::Result<()> {
        self.agents = Some(Bounded::create(&dir.join("trace-agents.csv"), csv::AGENTS_HEADER.as_bytes(), limit)?);
        Ok(())
    }

    /// Also writes the packet trace's files in `dir` (the run's
    /// fairway-engine's `RunOptions::trace_packets` has to cover them:
    /// [`PacketOutputs::engine_spec`]), each at most `limit` records.
    pub fn trace_packets(&mut self, dir: &Path, out: &PacketOutputs, limit: u64) -> io::Result<()> {
        self.packets = Some(PacketFiles::create(dir, self.sc, out, limit)?);
        Ok(())
    }

    /// Closes the trace files, if the run traced: each one's path, records written and records
    /// left out (trace-agents.csv first); the first write that failed, if one did.
    pub fn finish_trace(&mut self) -> io::Result<Vec<TraceFile>> {
        let mut v = vec![];
        if let Some(a) = self.agents.take() {
            v.push(a.finish()?);
        }
        if let Some(p) = self.packets.take() {
            v.extend(p.finish()?);
        }
        Ok(v)
    }

    fn send(&mut self, rows: Rows) {
        self.batch_rows += match &rows {
            Rows::Bin(_, _, r) => r.len().max(1),
            Rows::Sample(..) => 1,
        };
        self.batch.push(rows);
        if self.batch_rows >= BATCH_ROWS {
            self.flush_batch();
        }
    }

    fn flush_batch(&mut self) {
        let batch = std::mem::take(&mut self.batch);
        self.batch_rows = 0;
        if let Some(tx) = &self.to_writer {
            // A closed channel means the writer stopped on an error, which `finish` reports.
            let _ = tx.send(batch);
        }
    }

    /// Waits for the files to be written; returns their paths (flows.csv, queue.csv,
    /// classes.csv) and the series the plots draw: `res` with the kept bins and samples, its bin
    /// widened when bins were merged.
    pub fn finish(mut self, res: &mut RunResult) -> io::Result<[PathBuf; 3]> {
        if !self.merging.is_empty() {
            let rows = std::mem::take(&mut self.merging);
            for (bins, r) in self.plot_bins.iter_mut().zip(rows) {
                bins.push(r);
            }
        }
        self.flush_batch();
        drop(self.to_writer.take());
        if let Some(w) = self.writer.take() {
            w.join().map_err(|_| io::Error::other("the thread writing the series failed"))??;
        }
        res.flow_bins = std::mem::take(&mut self.plot_bins);
        res.queue_samples = std::mem::take(&mut self.plot_samples);
        res.agent_trace = std::mem::take(&mut self.plot_agents);
        res.bin = Dur(self.sc.monitor.bin.0.saturating_mul(self.bins_per_plot_bin as u64));
        Ok(self.paths)
    }
}

impl SeriesSink for StreamWriter<'_> {
    fn bin(&mut self, _k: usize, t0: Time, t1: Time, rows: &[BinRow]) {
        self.send(Rows::Bin(t0.0, t1.0, rows.to_vec()));
        // The plots' copy: `bins_per_plot_bin` bins summed into one (the window and the series
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
                m.series = r.series.clone();
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

    fn agent(&mut self, rows: &[AgentRow]) {
        let Some(a) = &mut self.agents else { return };
        let room = (PLOT_ROWS as usize).saturating_sub(self.plot_agents.len());
        self.plot_agents.extend_from_slice(&rows[..rows.len().min(room)]);
        let kept = a.take(rows.len());
        self.buf.clear();
        for r in &rows[..kept] {
            csv::agent_row(&mut self.buf, self.sc, r);
        }
        a.write(kept, self.buf.as_bytes());
    }

    fn packets(&mut self, rows: &[PacketEvent]) {
        if let Some(p) = &mut self.packets {
            p.write(self.sc, rows);
        }
    }

    fn queue(&mut self, link: usize, row: &QueueRow) {
        let Some(&i) = self.place.get(link).filter(|&&i| i != usize::MAX) else { return };
        self.send(Rows::Sample(i, *row));
        if self.sample_count[i].is_multiple_of(self.samples_per_plot_sample) {
            self.plot_samples[i].1.push(*row);
        }
        self.sample_count[i] += 1;
    }
}
