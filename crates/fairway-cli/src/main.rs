//! The `fairway` command. Thin: arguments, output paths and printing; the work is in the
//! libraries (docs/architecture.md).

// The printing macros, shadowed so that a closed pipe (`fairway run x.toml | head -1`) ends the
// output quietly instead of panicking; std's versions panic on a write error.
macro_rules! println {
    () => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stdout());
    }};
    ($($t:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stdout(), $($t)*);
    }};
}
macro_rules! print {
    ($($t:tt)*) => {{
        use std::io::Write as _;
        let _ = write!(std::io::stdout(), $($t)*);
    }};
}
macro_rules! eprintln {
    () => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr());
    }};
    ($($t:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr(), $($t)*);
    }};
}
macro_rules! eprint {
    ($($t:tt)*) => {{
        use std::io::Write as _;
        let _ = write!(std::io::stderr(), $($t)*);
    }};
}

mod emulate;
mod hugepages;
mod interrupt;
mod live;
mod live_results;
mod testbed;
mod testbed_report;

#[global_allocator]
static ALLOC: hugepages::HugePageAlloc = hugepages::HugePageAlloc;

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use anyhow::Context;
use clap::{Parser, Subcommand};
use fairway_core::Time;
use fairway_engine::packet_trace::PacketOp;
use fairway_engine::RunOptions;
use fairway_report::output;
use fairway_report::output::folder::Staged;
use fairway_report::output::packet_files::PacketOutputs;
use fairway_report::output::stream::StreamWriter;
use fairway_scenario::estimate::{self, Footprint};
use fairway_scenario::{parse_scenario_file_warn, sweep, text_file};

#[derive(Parser)]
#[command(name = "fairway", version = env!("FAIRWAY_BUILD"), about = "TCP-friendly multimedia over UDP: simulate, compare, reproduce")]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Run a scenario file and write its results folder.
    Run {
        /// The scenario (TOML).
        file: PathBuf,
        /// Results folder [default: out/<scenario name>].
        #[arg(long)]
        out: Option<PathBuf>,
        /// Override the scenario's seed.
        #[arg(long)]
        seed: Option<u64>,
        /// Print nothing but errors.
        #[arg(long, short)]
        quiet: bool,
        /// Trace as the run goes (repeat for more than one): `agents` writes trace-agents.csv,
        /// every change of each sender's cwnd, ssthresh, srtt, rttvar and RTO (TCP, CCID2,
        /// IFTP) or rate and loss event rate (TFRC, CCID3); `packets` writes trace.tr, every
        /// packet's enqueue, dequeue, receive and drop on the wired links in ns-2's trace
        /// format; `pcap` writes trace-<from>-<to>.pcap per link (--trace-link, or the
        /// monitored links), the packets leaving its queue with their IP and TCP, UDP or DCCP
        /// headers, for tcpdump and Wireshark.
        #[arg(long, value_enum, value_name = "WHAT")]
        trace: Vec<TraceKind>,
        /// Trace only this flow (its name, or its [[flow]] entry's name for all of a group);
        /// repeat for more [default: every flow].
        #[arg(long, value_name = "NAME", requires = "trace")]
        trace_flow: Vec<String>,
        /// Trace packets only on this link ("from->to"); repeat for more [default: every
        /// link for trace.tr, the monitored links for pcap].
        #[arg(long, value_name = "FROM->TO", requires = "trace")]
        trace_link: Vec<String>,
        /// Keep only these events in trace.tr; repeat for more [default: all four].
        #[arg(long, value_enum, value_name = "EVENT", requires = "trace")]
        trace_event: Vec<TraceEvent>,
        /// Rows (or packets) a trace file holds at most; the rest are counted, not written.
        #[arg(long, value_name = "ROWS", default_value_t = 2_000_000, requires = "trace")]
        trace_limit: u64,
        /// Run N replications (seeds from --seed or the file's) in parallel: a folder per seed
        /// and replications.csv, each figure's mean and 95% confidence half-width
        /// [default folder: out/<scenario name>-reps].
        #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(2..=100_000))]
        reps: Option<u64>,
        /// Worker threads for --reps [default: the available cores].
        #[arg(long, short, value_parser = clap::value_parser!(u64).range(1..), requires = "reps")]
        jobs: Option<u64>,
        #[command(flatten)]
        figures: FigureArgs,
    },
    /// Check a scenario file without running it.
    Check { file: PathBuf },
    /// Run every point of a scenario's [sweep] grid in parallel; write each point's results
    /// folder, one combined sweep.csv and the monitored links' sweep-links.csv.
    Sweep {
        /// The scenario (TOML) with a [sweep] table.
        file: PathBuf,
        /// Output folder [default: out/<scenario name>-sweep].
        #[arg(long)]
        out: Option<PathBuf>,
        /// Worker threads [default: the available cores].
        #[arg(long, short, value_parser = clap::value_parser!(u64).range(1..))]
        jobs: Option<u64>,
        /// Print nothing but errors.
        #[arg(long, short)]
        quiet: bool,
        /// Run every point at N seeds (from the file's seed; a seed axis in [sweep] gives way)
        /// and write replications.csv: per point, each figure's mean and 95% half-width.
        #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(2..=100_000))]
        reps: Option<u64>,
        /// Resume the sweep in --out: points that folder holds finished (the same scenario, run
        /// by this build of fairway) are kept as they are; the others run.
        #[arg(long)]
        resume: bool,
    },
    /// Draw a sweep's or replications' folder: a measure against a swept setting, a line per
    /// flow (or class), each point the mean over the seeds with its 95% confidence interval
    /// (replications.csv), or each run's value (sweep.csv). Writes DIR/plot-<y>-vs-<x>.svg; for
    /// a `run --reps` folder, which sweeps nothing, each flow's mean and interval side by side,
    /// DIR/plot-<y>-per-flow.svg.
    Plot {
        /// The folder `fairway sweep` (or `fairway run --reps`) wrote.
        dir: PathBuf,
        /// The swept setting on the x axis [default: the first].
        #[arg(long, value_name = "SETTING")]
        x: Option<String>,
        /// The measure on the y axis: a column of the folder's CSV [default: throughput_bps].
        #[arg(long, value_name = "COLUMN")]
        y: Option<String>,
        /// Lines per `flow` or per `class` (replications.csv) [default: flow].
        #[arg(long, value_name = "flow|class")]
        rows: Option<String>,
        /// The figure's title [default: what it shows].
        #[arg(long)]
        title: Option<String>,
        #[command(flatten)]
        figures: FigureArgs,
    },
    /// Run a scenario's link live between two network namespaces, for real programs to send
    /// through (root needed): host a's packets to host b cross the link's queue, rate, delay
    /// and loss; b's packets cross the link back.
    Emulate {
        /// The scenario whose link to emulate.
        file: PathBuf,
        /// The link, as `from->to` [default: the first monitored link].
        #[arg(long)]
        link: Option<String>,
        /// Stop after this long (e.g. 60s) [default: at Ctrl-C].
        #[arg(long)]
        duration: Option<String>,
        /// The namespaces are fw-NAME-a and fw-NAME-b.
        #[arg(long, default_value = "fw")]
        name: String,
        /// A folder for the links' counters (summary.json) and the forward link's queue
        /// sampled at the scenario's queue_interval (queue.csv), as a simulated run writes them.
        #[arg(long)]
        out: Option<PathBuf>,
    },
    /// Send one datagram flow of a scenario to its receiver over UDP (`fairway recv` at the
    /// other end, given the same scenario): the flow's protocol and application, live, from its
    /// start to its stop (counted from now).
    Send {
        /// The scenario that defines the flow.
        file: PathBuf,
        /// The flow, by name.
        #[arg(long)]
        flow: String,
        /// The receiver's address (IPv4), e.g. 10.201.1.1:5000.
        #[arg(long, value_name = "ADDR:PORT")]
        to: std::net::SocketAddr,
        /// The local address to send from [default: any].
        #[arg(long, value_name = "ADDR:PORT")]
        bind: Option<std::net::SocketAddr>,
        /// A folder for what the sender did (sender.json; scale.csv for a MApp flow).
        #[arg(long)]
        out: Option<PathBuf>,
        #[command(flatten)]
        key: live::KeyArgs,
    },
    /// Receive one datagram flow of a scenario over UDP (the other end of `fairway send`), and
    /// write its results (summary.json, marked "mode": "live") into a folder.
    Recv {
        /// The scenario that defines the flow.
        file: PathBuf,
        /// The flow, by name.
        #[arg(long)]
        flow: String,
        /// The address to listen on (IPv4; port 0 picks one and prints it).
        #[arg(long, value_name = "ADDR:PORT")]
        listen: std::net::SocketAddr,
        /// The results folder.
        #[arg(long)]
        out: PathBuf,
        /// Stop after this long [default: when the sender says it has stopped, or 10 s after
        /// its last datagram].
        #[arg(long)]
        duration: Option<String>,
        /// Misbehave: claim in every echo that all data arrived, as a receiver that hides
        /// losses would (elaarag2002 §7); the sender's nonce check should catch it.
        #[arg(long)]
        hide_losses: bool,
        /// The flow's key [default: a fresh one, printed for the sender].
        #[command(flatten)]
        key: live::KeyArgs,
    },
    /// Make a key for a live flow (`fairway send` and `fairway recv` take it with --key-file):
    /// 32 random bytes as 64 hexadecimal digits, written to FILE (readable by its owner only)
    /// or printed.
    Key {
        /// Where to write it; a file there is replaced only if it holds a key.
        file: Option<PathBuf>,
    },
    /// Run a dumbbell scenario live (root needed) and simulated, and put them side by side: its
    /// bottleneck emulated between two network namespaces, its TCP flows Linux's TCP, its
    /// datagram flows fairway's endpoints on UDP sockets. Writes DIR/simulated (a run's
    /// results), DIR/live/summary.json ("mode": "live") and DIR/comparison.md and .csv.
    Testbed {
        /// The scenario.
        file: PathBuf,
        /// The results folder [default: out/<name>-testbed].
        #[arg(long)]
        out: Option<PathBuf>,
        /// Run this long instead of the scenario's duration (e.g. 20s).
        #[arg(long)]
        duration: Option<String>,
        /// The bottleneck, as `from->to` [default: the first monitored link].
        #[arg(long)]
        link: Option<String>,
        /// The namespaces are fw-NAME-a and fw-NAME-b.
        #[arg(long, default_value = "tb")]
        name: String,
    },
    /// A protocol's closed-form model, tabulated and plotted.
    Model {
        #[command(subcommand)]
        which: ModelCmd,
    },
    /// Run a paper's experiments over several seeds; write report.md and claims.csv, every claim
    /// of the paper beside fairway's value with a band and a verdict.
    #[command(after_help = fairway_papers::HELP)]
    Reproduce {
        /// Which paper (listed below).
        name: String,
        /// Report folder [default: out/<name>].
        #[arg(long)]
        out: Option<PathBuf>,
        /// Read the scenario files from DIR/<name>/ instead of the built-in ones.
        #[arg(long, value_name = "DIR")]
        scenarios: Option<PathBuf>,
        /// The first seed; each experiment point runs --reps seeds from it.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Independent runs (seeds) per experiment point.
        #[arg(long, default_value_t = fairway_papers::DEFAULT_REPS as u64, value_parser = clap::value_parser!(u64).range(2..=1000))]
        reps: u64,
    },
}

/// A figure's other formats.
#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum FigureFormat {
    Png,
    Pdf,
}

/// How figures are drawn (`run` and `plot`).
#[derive(clap::Args)]
struct FigureArgs {
    /// Figure width in pixels [default: 800].
    #[arg(long, value_parser = clap::value_parser!(u32).range(160..=20_000))]
    width: Option<u32>,
    /// Figure height in pixels (per panel of a stacked figure) [default: 400].
    #[arg(long, value_parser = clap::value_parser!(u32).range(100..=20_000))]
    height: Option<u32>,
    /// Text size in pixels at that size; lines grow with it [default: 11].
    #[arg(long, value_name = "PX", value_parser = font_size)]
    font_size: Option<f64>,
    /// Leave the titles off the figures (a paper's captions say what they show).
    #[arg(long)]
    no_titles: bool,
    /// Also write each figure as PNG or PDF (repeat for both), converted with rsvg-convert
    /// (Debian's librsvg2-bin).
    #[arg(long, value_enum, value_name = "FORMAT")]
    format: Vec<FigureFormat>,
}

fn font_size(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(x) if (4.0..=40.0).contains(&x) => Ok(x),
        _ => Err(format!("`{s}`: a text size in pixels from 4 to 40")),
    }
}

impl FigureArgs {
    fn formats(&self) -> Vec<output::convert::Format> {
        self.format
            .iter()
            .map(|f| match f {
                FigureFormat::Png => output::convert::Format::Png,
                FigureFormat::Pdf => output::convert::Format::Pdf,
            })
            .collect()
    }

    fn figures(&self) -> output::Figures {
        let d = output::plots::FigureStyle::default();
        output::Figures {
            style: output::plots::FigureStyle {
                width: self.width.unwrap_or(d.width),
                height: self.height.unwrap_or(d.height),
                font_size: self.font_size.unwrap_or(d.font_size),
                titles: !self.no_titles,
            },
            formats: self.formats(),
        }
    }

    /// Refuses what `--reps` would not honour: its runs' figures are drawn the usual way.
    fn check_unused_with_reps(&self) -> Result<(), Failure> {
        if self.width.is_some()
            || self.height.is_some()
            || self.font_size.is_some()
            || self.no_titles
            || !self.format.is_empty()
        {
            return Err(Failure::Input(
                "--width, --height, --font-size, --no-titles and --format set a single run's figures; with --reps, draw the replications with `fairway plot`".into(),
            ));
        }
        Ok(())
    }
}

/// `--trace` traces one run; with `--reps` it would write a trace per seed, which nothing reads
/// together: the error says how to trace one of the replications instead.
fn refuse_trace_with_reps(trace: &[TraceKind], seed: Option<u64>, reps: u64) -> Result<(), Failure> {
    if trace.is_empty() {
        return Ok(());
    }
    let from = seed.map_or("the file's seed".to_string(), |s| format!("seed {s}"));
    Err(Failure::Input(format!(
        "--trace traces one run, and --reps {reps} makes {reps} (seeds from {from} on), which would each write a trace: \
run the replications without --trace, then trace the one to look into with `fairway run FILE --seed S --trace ...`"
    )))
}

/// What `fairway run --trace` can trace.
#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum TraceKind {
    /// Senders' congestion-control state at every change (trace-agents.csv).
    Agents,
    /// Every packet event on the wired links, in ns-2's trace format (trace.tr).
    Packets,
    /// The packets leaving a link's queue, as a pcap per link (trace-<from>-<to>.pcap).
    Pcap,
}

/// A packet event `--trace-event` keeps (ns-2's letter in brackets).
#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum TraceEvent {
    /// Offered to a queue (+).
    Enqueue,
    /// Leaves the queue for the wire (-).
    Dequeue,
    /// Reaches the link's far end (r).
    Receive,
    /// Thrown away by the queue or lost on the wire (d).
    Drop,
}

/// What a run traces, from the command line.
struct TraceArgs {
    kinds: Vec<TraceKind>,
    flows: Vec<String>,
    links: Vec<String>,
    events: Vec<TraceEvent>,
    limit: u64,
}

#[derive(Subcommand)]
enum ModelCmd {
    /// IFTP's bandwidth model (elaarag2002 §5): ideal (eqs. 17-20), non-ideal (26), worst case (27).
    Iftp {
        /// P, the packet size.
        #[arg(long, default_value = "1000B")]
        packet_size: String,
        /// R, the round trip time.
        #[arg(long, default_value = "100ms")]
        rtt: String,
        /// W_s, the slow-start threshold in packets (a power of two).
        #[arg(long, default_value_t = 32)]
        ssthresh: u32,
        /// W_max, the largest window in packets.
        #[arg(long, default_value_t = 50)]
        w_max: u32,
        /// p, the drop rate of the non-ideal case.
        #[arg(long, default_value_t = 0.01)]
        loss: f64,
        /// The access rate (tau = P x 8 / rate) for the worst case.
        #[arg(long, default_value = "10Mb")]
        access_rate: String,
        /// Output folder [default: out/model-iftp].
        #[arg(long)]
        out: Option<PathBuf>,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    interrupt::install();
    let result = match cli.cmd {
        Cmd::Run { file, out, seed, quiet, reps: Some(reps), jobs, figures, trace, .. } => figures
            .check_unused_with_reps()
            .and_then(|_| refuse_trace_with_reps(&trace, seed, reps))
            .and_then(|_| run_reps(&file, out, seed, reps, jobs, quiet)),
        Cmd::Run {
            file,
            out,
            seed,
            quiet,
            trace,
            trace_flow,
            trace_link,
            trace_event,
            trace_limit,
            reps: None,
            figures,
            ..
        } => {
            let args = TraceArgs {
                kinds: trace,
                flows: trace_flow,
                links: trace_link,
                events: trace_event,
                limit: trace_limit,
            };
            run(&file, out, seed, quiet, &args, &figures.figures())
        }
        Cmd::Check { file } => check(&file),
        Cmd::Emulate { file, link, duration, name, out } => {
            emulate::emulate(&file, link.as_deref(), duration.as_deref(), &name, out.as_deref())
        }
        Cmd::Testbed { file, out, duration, link, name } => {
            testbed::testbed(&file, out.as_deref(), duration.as_deref(), link.as_deref(), &name)
        }
        Cmd::Send { file, flow, to, bind, out, key } => live::send(&file, &flow, to, bind, out.as_deref(), &key),
        Cmd::Recv { file, flow, listen, out, duration, hide_losses, key } => {
            live::recv(&file, &flow, listen, &out, duration.as_deref(), hide_losses, &key)
        }
        Cmd::Key { file } => live::make_key(file.as_deref()),
        Cmd::Sweep { file, out, jobs, quiet, reps, resume } => run_sweep(&file, out, jobs, quiet, reps, resume),
        Cmd::Reproduce { name, out, scenarios, seed, reps } => reproduce(&name, out, scenarios, seed, reps),
        Cmd::Plot { dir, x, y, rows, title, figures } => {
            let req = output::sweep_plot::PlotRequest {
                x,
                y,
                rows,
                title: if figures.no_titles { Some(String::new()) } else { title },
                width: figures.width,
                height: figures.height,
                font_size: figures.font_size,
            };
            plot(&dir, &req, &figures.formats())
        }
        Cmd::Model { which: ModelCmd::Iftp { packet_size, rtt, ssthresh, w_max, loss, access_rate, out } } => {
            model_iftp(&packet_size, &rtt, ssthresh, w_max, loss, &access_rate, out)
        }
    };
    match result {
        Ok(()) if interrupt::interrupted() => ExitCode::from(interrupt::EXIT_INTERRUPTED),
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure::Input(msg)) => {
            eprintln!("error: {msg}");
            ExitCode::from(2)
        }
        Err(Failure::Other(e)) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
        Err(Failure::Interrupted(msg)) => {
            eprintln!("{msg}");
            ExitCode::from(interrupt::EXIT_INTERRUPTED)
        }
    }
}

enum Failure {
    /// The user's input is wrong (exit code 2).
    Input(String),
    Other(anyhow::Error),
    /// A signal stopped the command before it had anything whole to write (exit code 130).
    Interrupted(String),
}

impl From<anyhow::Error> for Failure {
    fn from(e: anyhow::Error) -> Self {
        Failure::Other(e)
    }
}

/// Reads and checks a scenario file and prints its warnings.
fn load(file: &Path) -> Result<fairway_engine::Scenario, Failure> {
    let (sc, warnings) = parse_scenario_file_warn(file).map_err(|e| Failure::Input(e.to_string()))?;
    for w in warnings {
        eprintln!("warning: {w}");
    }
    Ok(sc)
}

/// Refuses a run that would not fit in this machine's memory, or its results on the disk
/// holding `out`; returns the estimate.
fn fits(file: &Path, sc: &fairway_engine::Scenario, out: &Path) -> Result<Footprint, Failure> {
    let refuse = |e: String| Failure::Input(format!("{}: {e}", file.display()));
    let f = match estimate::available_memory() {
        Some(avail) => estimate::fits(sc, avail, true).map_err(refuse)?,
        None => estimate::estimate(sc),
    };
    // The nearest folder that exists: the results go below it.
    let mut at = out.to_path_buf();
    while !at.is_dir() {
        if !at.pop() || at.as_os_str().is_empty() {
            at = PathBuf::from(".");
            break;
        }
    }
    if let Some(free) = free_disk(&at) {
        estimate::fits_disk(sc, free, &at.display().to_string()).map_err(refuse)?;
    }
    Ok(f)
}

/// A run that may take more than `LONG_RUN_S` says so before it starts. The calibration that
/// prices an event takes some tens of milliseconds, so it is made only for runs of at least 10^9
/// events, which take tens of seconds anyway.
fn long_run_note(sc: &fairway_engine::Scenario) {
    const LONG_RUN_S: f64 = 600.0;
    let events = estimate::events(sc);
    if events < 1e9 {
        return;
    }
    let secs = events * estimate::ns_per_event() * estimate::COST_MARGIN * 1e-9;
    if secs > LONG_RUN_S {
        eprintln!(
            "note: this run may take up to about {} on this machine (at most about {events:.2e} events); Ctrl-C stops it and writes what it has",
            estimate::human_time(secs)
        );
    }
}

/// Bytes free to an unprivileged user on the file system holding `dir`.
#[cfg(target_os = "linux")]
fn free_disk(dir: &Path) -> Option<u64> {
    use std::os::unix::ffi::OsStrExt;
    let c = std::ffi::CString::new(dir.as_os_str().as_bytes()).ok()?;
    // SAFETY: statvfs writes into the zeroed struct it is given; `c` is a valid C string.
    unsafe {
        let mut st: libc::statvfs = std::mem::zeroed();
        (libc::statvfs(c.as_ptr(), &mut st) == 0).then(|| (st.f_bavail as u64).saturating_mul(st.f_frsize as u64))
    }
}

#[cfg(not(target_os = "linux"))]
fn free_disk(_: &Path) -> Option<u64> {
    None
}

fn check(file: &Path) -> Result<(), Failure> {
    let sc = load(file)?;
    let f = fits(file, &sc, &PathBuf::from("out").join(&sc.name))?;
    let sweep =
        if has_sweep(file) { Some(sweep::load_sweep(file).map_err(|e| Failure::Input(e.to_string()))?) } else { None };
    let events = estimate::events(&sc);
    println!(
        "{}: ok ({} nodes, {} simplex links, {} flows, {} simulated; about {} of memory and {} of results; at most about {:.2e} events, {} on this machine)",
        file.display(),
        sc.nodes.len(),
        sc.links.len(),
        sc.flows.len(),
        sc.duration,
        estimate::human(f.streamed_memory()),
        estimate::human(f.output),
        events,
        estimate::human_time(events * estimate::ns_per_event() * estimate::COST_MARGIN * 1e-9)
    );
    if let Some(sw) = sweep {
        println!("{}: sweep ok ({} points over {})", file.display(), sw.points.len(), sw.keys.join(", "));
    }
    Ok(())
}

/// A scenario file's text, read to its bound.
fn read_scenario(file: &Path) -> Result<String, Failure> {
    text_file::read(file, text_file::MAX_SCENARIO_BYTES, "a scenario file")
        .map_err(|e| Failure::Input(format!("{}: {e}", file.display())))
}

fn has_sweep(file: &Path) -> bool {
    read_scenario(file).is_ok_and(|t| sweep::has_sweep(&t))
}

/// Runs a sweep's points into `dir` on `jobs` workers, with a progress line on a terminal: the
/// result, and the points that failed (the others still ran).
fn run_points(
    sw: &sweep::Sweep,
    dir: &Path,
    resume: Option<&Path>,
    jobs: usize,
    quiet: bool,
    started: Instant,
    what: &'static str,
) -> Result<(sweep::SweepResult, Option<Vec<String>>), Failure> {
    let show = !quiet && std::io::stderr().is_terminal();
    let mut progress = |done: usize, total: usize| {
        if show {
            eprint!("\r  {}", sweep::progress_line(done, total, started.elapsed()));
            let _ = std::io::stderr().flush();
        }
    };
    let opts = sweep::SweepOptions {
        jobs,
        keep_runs: false,
        write: output::write_point,
        interrupt: Some(&interrupt::INTERRUPTED),
        resume,
    };
    let res = match sweep::run_sweep_with(sw, dir, &opts, &mut progress) {
        Ok(res) => (res, None),
        Err(sweep::SweepError::Failed { failed, result }) => (*result, Some(failed)),
        Err(e) => return Err(anyhow::Error::new(e).context(what).into()),
    };
    if show {
        eprintln!();
    }
    Ok(res)
}

fn plot(dir: &Path, req: &output::sweep_plot::PlotRequest, formats: &[output::convert::Format]) -> Result<(), Failure> {
    output::convert::available(formats).map_err(Failure::Input)?;
    let (path, svg) = output::sweep_plot::plot(dir, req).map_err(Failure::Input)?;
    std::fs::write(&path, svg).with_context(|| format!("writing {}", path.display()))?;
    let mut written = vec![path.clone()];
    written.extend(output::convert::convert(&path, formats).map_err(anyhow::Error::new)?);
    for w in written {
        println!("{}", w.display());
    }
    Ok(())
}

/// report.html of a sweep's or replications' folder: `fairway plot`'s figure of it (each flow's
/// throughput against the first swept setting, with intervals over the seeds), its tables, and
/// each point's page.
fn folder_page(dir: &Path, title: &str) -> Result<(), Failure> {
    let tables = ["replications.csv", sweep::SWEEP_CSV, "sweep-links.csv"];
    let mut figures = vec![];
    let mut why = None;
    match output::sweep_plot::plot(dir, &Default::default()) {
        Ok((path, svg)) => {
            std::fs::write(&path, &svg).with_context(|| format!("writing {}", path.display()))?;
            let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
            figures.push((name, svg));
        }
        Err(e) => why = Some(e),
    }
    output::html_pages::write_folder_page(dir, title, &figures, why.as_deref(), &tables)
        .with_context(|| format!("writing {}", dir.join("report.html").display()))?;
    Ok(())
}

fn run_sweep(
    file: &Path,
    out: Option<PathBuf>,
    jobs: Option<u64>,
    quiet: bool,
    reps: Option<u64>,
    resume: bool,
) -> Result<(), Failure> {
    let sw = sweep::load_sweep(file).map_err(|e| Failure::Input(e.to_string()))?;
    // With replications: the grid, and the seeds from the file's as its last axis.
    let sw = match reps {
        None => sw,
        Some(reps) => {
            let first = load(file)?.seed;
            if first.checked_add(reps - 1).is_none_or(|last| last > i64::MAX as u64) {
                return Err(Failure::Input(format!("seed {first}, --reps {reps}: the seeds must stay below 2^63")));
            }
            let text = read_scenario(file)?;
            sweep::replicated(&file.display().to_string(), &text, first, reps as usize)
                .map_err(|e| Failure::Input(e.to_string()))?
        }
    };
    let out = out.unwrap_or_else(|| PathBuf::from("out").join(format!("{}-sweep", sw.name)));
    let staged = Staged::begin(&out).map_err(|e| Failure::Input(e.to_string()))?;
    let earlier = if resume { resumable(&out, quiet)? } else { None };
    let jobs = jobs.map_or_else(sweep::default_jobs, |j| j as usize);
    let started = Instant::now();
    let (res, failed) = run_points(&sw, staged.dir(), earlier, jobs, quiet, started, "the sweep failed")?;
    let taken = res.points.iter().filter(|p| p.taken).count();
    write_sweep_json(staged.dir(), file, &res, taken)?;
    if reps.is_some() {
        // Per point of the grid without the seed (the last key): its runs' means and intervals.
        let csv = staged.dir().join("replications.csv");
        std::fs::write(&csv, output::replications::csv_of_sweep(&sw, &res.points))
            .with_context(|| format!("writing {}", csv.display()))?;
    }
    folder_page(staged.dir(), &format!("fairway sweep {}", file.display()))?;
    staged.commit().context("the sweep's results are complete but could not take their folder's place")?;
    if res.interrupted {
        let done = res.points.iter().filter(|p| p.outcome.is_ok()).count();
        eprintln!(
            "interrupted: {done} of {} points ended; {}/{} has their rows, the others are left out \
(`fairway sweep {} --out {} --resume` runs them)",
            sw.points.len(),
            out.display(),
            sweep::SWEEP_CSV,
            file.display(),
            out.display(),
        );
    }
    if !quiet {
        print!("{}", sweep::table(&sw, &res));
        println!();
        let kept = if taken > 0 { format!(" ({taken} kept from the earlier run)") } else { String::new() };
        println!(
            "{} points{kept} in {:.1} s on {} workers; results in {}/ ({}{} and a folder per point)",
            sw.points.len(),
            started.elapsed().as_secs_f64(),
            jobs.min(sw.points.len()),
            out.display(),
            sweep::SWEEP_CSV,
            if reps.is_some() { ", replications.csv" } else { "" }
        );
    }
    match failed {
        None => Ok(()),
        Some(f) => {
            Err(anyhow::anyhow!("{} of {} sweep points failed:\n{}", f.len(), sw.points.len(), f.join("\n")).into())
        }
    }
}

/// The folder `fairway sweep --resume` takes finished points from: `out`, when it holds a
/// sweep this build wrote (sweep.json says which build); otherwise every point runs, and a note
/// says why.
fn resumable(out: &Path, quiet: bool) -> Result<Option<&Path>, Failure> {
    let note = |why: String| {
        if !quiet {
            eprintln!("note: {why}: every point runs");
        }
        Ok(None)
    };
    let json = out.join(SWEEP_JSON);
    if !out.join(sweep::SWEEP_CSV).is_file() {
        return note(format!("{} holds no sweep to resume", out.display()));
    }
    let Ok(text) = std::fs::read_to_string(&json) else {
        return note(format!("{} is missing, so the build that wrote the sweep is unknown", json.display()));
    };
    let v: serde_json::Value =
        serde_json::from_str(&text).map_err(|e| Failure::Input(format!("{}: {e}", json.display())))?;
    match v.get("fairway").and_then(|b| b.as_str()) {
        Some(BUILD) => Ok(Some(out)),
        Some(other) => note(format!("{} was written by fairway {other}; this is {BUILD}", out.display())),
        None => note(format!("{}: no `fairway` build named", json.display())),
    }
}

/// This build: the version, and the commit and edits it was built from (build.rs).
const BUILD: &str = env!("FAIRWAY_BUILD");

/// A sweep folder's record of itself: the build that wrote it (what `--resume` checks), the
/// scenario, and how its points ended.
const SWEEP_JSON: &str = "sweep.json";

fn write_sweep_json(dir: &Path, file: &Path, res: &sweep::SweepResult, taken: usize) -> Result<(), Failure> {
    let count = |f: fn(&sweep::PointRun) -> bool| res.points.iter().filter(|p| f(p)).count();
    let json = serde_json::json!({
        "fairway": BUILD,
        "scenario": file.display().to_string(),
        "points": res.points.len(),
        "finished": count(|p| p.outcome.is_ok()),
        "kept_from_earlier_run": taken,
        "failed": count(|p| p.outcome.is_err() && !p.interrupted),
        "interrupted": count(|p| p.interrupted),
    });
    let path = dir.join(SWEEP_JSON);
    let mut text = serde_json::to_string_pretty(&json).map_err(anyhow::Error::new)?;
    text.push('\n');
    std::fs::write(&path, text).with_context(|| format!("writing {}", path.display()))?;
    Ok(())
}

/// `fairway run --reps N`: the scenario's base values at N seeds, run like a sweep's points,
/// then each figure's mean and 95% confidence half-width over them.
fn run_reps(
    file: &Path,
    out: Option<PathBuf>,
    seed: Option<u64>,
    reps: u64,
    jobs: Option<u64>,
    quiet: bool,
) -> Result<(), Failure> {
    let sc = load(file)?;
    let first = seed.unwrap_or(sc.seed);
    if first.checked_add(reps - 1).is_none_or(|last| last > i64::MAX as u64) {
        return Err(Failure::Input(format!("--seed {first} --reps {reps}: the seeds must stay below 2^63")));
    }
    let text = read_scenario(file)?;
    if !quiet && sweep::has_sweep(&text) {
        eprintln!("note: {} has a [sweep] table, ignored here: the replications run its base values", file.display());
    }
    let sw = sweep::replications(&file.display().to_string(), &text, first, reps as usize)
        .map_err(|e| Failure::Input(e.to_string()))?;
    let out = out.unwrap_or_else(|| PathBuf::from("out").join(format!("{}-reps", sc.name)));
    fits(file, &sc, &out)?;
    let staged = Staged::begin(&out).map_err(|e| Failure::Input(e.to_string()))?;
    let jobs = jobs.map_or_else(sweep::default_jobs, |j| j as usize);
    let started = Instant::now();
    let (res, failed) = run_points(&sw, staged.dir(), None, jobs, quiet, started, "the replications failed")?;
    let runs: Vec<&fairway_engine::Summary> = res.points.iter().filter_map(|p| p.outcome.as_ref().ok()).collect();
    let csv = staged.dir().join("replications.csv");
    std::fs::write(&csv, output::replications::csv(&runs)).with_context(|| format!("writing {}", csv.display()))?;
    folder_page(staged.dir(), &format!("fairway run {} --reps {reps}", file.display()))?;
    staged.commit().context("the replications' results are complete but could not take their folder's place")?;
    if res.interrupted {
        eprintln!("interrupted: {} of {reps} replications ended; replications.csv covers those", runs.len());
    }
    if !quiet {
        print!("{}", output::replications::table(&runs));
        println!();
        println!(
            "{} replications (seeds {first} to {}) in {:.1} s on {} workers: mean ± 95% confidence half-width; results \
in {}/ (replications.csv, sweep.csv and a folder per seed)",
            runs.len(),
            first + reps - 1,
            started.elapsed().as_secs_f64(),
            jobs.min(reps as usize),
            out.display()
        );
    }
    match failed {
        None => Ok(()),
        Some(f) => Err(anyhow::anyhow!("{} of {reps} replications failed:\n{}", f.len(), f.join("\n")).into()),
    }
}

/// The flows a trace covers (scenario indices): those named, by flow or by [[flow]] entry, or
/// every flow when none is.
fn traced_flows(sc: &fairway_engine::scenario::Scenario, names: &[String]) -> Result<Vec<usize>, Failure> {
    sc.flows_named(names).map_err(|(n, known)| {
        Failure::Input(format!("--trace-flow {n}: no flow or [[flow]] entry of that name (flows: {known})"))
    })
}

/// The links a packet trace covers (scenario indices), by their names.
fn traced_links(sc: &fairway_engine::scenario::Scenario, names: &[String]) -> Result<Vec<usize>, Failure> {
    let mut v = vec![];
    for n in names {
        let Some(l) = (0..sc.links.len()).find(|&l| sc.link_name(l) == *n) else {
            let mut known: Vec<String> = (0..sc.links.len().min(20)).map(|l| sc.link_name(l)).collect();
            if sc.links.len() > 20 {
                known.push("...".into());
            }
            return Err(Failure::Input(if sc.links.is_empty() {
                format!("--trace-link {n}: the scenario has no wired links")
            } else {
                format!("--trace-link {n}: no link of that name (links: {})", known.join(", "))
            }));
        };
        v.push(l);
    }
    v.sort_unstable();
    v.dedup();
    Ok(v)
}

/// The packet trace's files a run writes, from the command line; `None` when it writes none.
fn packet_outputs(
    sc: &fairway_engine::scenario::Scenario,
    trace: &TraceArgs,
) -> Result<Option<PacketOutputs>, Failure> {
    let text = trace.kinds.contains(&TraceKind::Packets);
    let pcap = trace.kinds.contains(&TraceKind::Pcap);
    if !text && !pcap {
        if !trace.links.is_empty() || !trace.events.is_empty() {
            return Err(Failure::Input(
                "--trace-link and --trace-event choose what a packet trace holds: add --trace packets or --trace pcap"
                    .into(),
            ));
        }
        return Ok(None);
    }
    if !text && !trace.events.is_empty() {
        return Err(Failure::Input(
            "--trace-event chooses the events trace.tr holds (a pcap holds the packets leaving the queue): add --trace packets".into(),
        ));
    }
    if sc.links.is_empty() {
        return Err(Failure::Input(
            "--trace packets and --trace pcap cover wired links, and this scenario has none (wireless packet traces are not built yet: docs/not-yet.md)".into(),
        ));
    }
    let links = traced_links(sc, &trace.links)?;
    let pcap_links = if !pcap {
        vec![]
    } else if !links.is_empty() {
        links.clone()
    } else if !sc.monitor.links.is_empty() {
        sc.monitor.links.clone()
    } else {
        return Err(Failure::Input(
            "--trace pcap: name the links to capture with --trace-link FROM->TO (the scenario monitors none)".into(),
        ));
    };
    let ops = trace
        .events
        .iter()
        .map(|e| match e {
            TraceEvent::Enqueue => PacketOp::Enqueue,
            TraceEvent::Dequeue => PacketOp::Dequeue,
            TraceEvent::Receive => PacketOp::Receive,
            TraceEvent::Drop => PacketOp::Drop,
        })
        .collect();
    Ok(Some(PacketOutputs { text, text_links: links, ops, pcap_links, flows: vec![] }))
}

fn run(
    file: &Path,
    out: Option<PathBuf>,
    seed: Option<u64>,
    quiet: bool,
    trace: &TraceArgs,
    figures: &output::Figures,
) -> Result<(), Failure> {
    let sc = load(file)?;
    output::convert::available(&figures.formats).map_err(Failure::Input)?;
    let trace_agents = if trace.kinds.contains(&TraceKind::Agents) { traced_flows(&sc, &trace.flows)? } else { vec![] };
    let packets = match packet_outputs(&sc, trace)? {
        Some(mut p) => {
            if !trace.flows.is_empty() {
                p.flows = traced_flows(&sc, &trace.flows)?;
            }
            Some(p)
        }
        None => None,
    };
    if !quiet && has_sweep(file) {
        eprintln!(
            "note: {} has a [sweep] table, ignored here: this runs its base values (`fairway sweep` runs the grid)",
            file.display()
        );
    }
    let out = out.unwrap_or_else(|| PathBuf::from("out").join(&sc.name));
    fits(file, &sc, &out)?;
    if !quiet {
        long_run_note(&sc);
    }
    // The folder is checked (and its hidden twin made) before the run, not after it.
    let staged = Staged::begin(&out).map_err(|e| Failure::Input(e.to_string()))?;
    let started = Instant::now();
    let show = !quiet && std::io::stderr().is_terminal();
    let total = sc.duration.as_secs_f64();
    let mut shown = false;
    let mut progress = |t: Time| {
        // A run longer than a second shows progress (docs/architecture.md, "Outputs").
        if show && started.elapsed().as_secs_f64() > 1.0 {
            let frac = (t.as_secs_f64() / total).clamp(0.0, 1.0);
            let n = (frac * 30.0) as usize;
            eprint!(
                "\r  [{}{}] {:>3.0}%  {:.1}/{:.1} s simulated",
                "#".repeat(n),
                ".".repeat(30 - n),
                frac * 100.0,
                t.as_secs_f64(),
                total
            );
            let _ = std::io::stderr().flush();
            shown = true;
        }
    };
    // The command ends soon after the run (see below): the simulator's state is left to the exit.
    let opts = RunOptions {
        seed,
        leave_state: true,
        interrupt: Some(&interrupt::INTERRUPTED),
        trace_agents,
        trace_packets: packets.as_ref().and_then(PacketOutputs::engine_spec),
        ..Default::default()
    };
    // The time series go to their files as the run makes them (memory does not grow with the
    // run's length).
    let kept = if out.exists() { "; the earlier results there are unchanged" } else { "" };
    let mut stream = StreamWriter::create(staged.dir(), &sc)
        .with_context(|| format!("writing results to {}{kept}", out.display()))?;
    if !opts.trace_agents.is_empty() {
        stream
            .trace_agents(staged.dir(), trace.limit)
            .with_context(|| format!("writing results to {}{kept}", out.display()))?;
    }
    if let Some(p) = &packets {
        stream
            .trace_packets(staged.dir(), p, trace.limit)
            .with_context(|| format!("writing results to {}{kept}", out.display()))?;
    }
    let mut res = fairway_engine::run_into(&sc, &opts, &mut progress, &mut stream).context("the run failed")?;
    if shown {
        eprintln!();
    }
    let wall = started.elapsed().as_secs_f64();
    if !res.summary.complete {
        eprintln!(
            "interrupted at {} s of {} s simulated: writing the results so far (summary.json says \"complete\": false)",
            res.summary.duration_s, total
        );
    }
    let traced = stream.finish_trace().with_context(|| format!("writing results to {}{kept}", out.display()))?;
    let written = stream
        .finish(&mut res)
        .and_then(|streamed| {
            let traces: Vec<PathBuf> = traced.iter().map(|t| t.path.clone()).collect();
            output::write_after_stream(&res, &sc, staged.dir(), streamed, &traces, figures)
        })
        .map_err(anyhow::Error::new)
        .and_then(|w| staged.commit().map(|_| w).map_err(anyhow::Error::new))
        .with_context(|| format!("writing results to {}{kept}", out.display()))?;
    if !quiet {
        let s = &res.summary;
        println!(
            "{}: seed {}, {} s simulated, {} events, {:.2} s wall ({:.1} M events/s)",
            s.scenario,
            s.seed,
            s.duration_s,
            s.events,
            wall,
            s.events as f64 / wall.max(1e-9) / 1e6
        );
        if s.measure_from_s > 0.0 {
            println!("figures from {} s on (measure_from): the warm-up before it is left out", s.measure_from_s);
        }
        println!();
        print!("{}", output::table::render(&res));
        println!();
        println!("results in {}/ ({} files: {})", out.display(), written.len(), names(&written));
        for t in traced.iter().filter(|t| t.left_out > 0) {
            let name = t.path.file_name().unwrap_or_default().to_string_lossy();
            let what = if name.ends_with(".csv") { "state changes" } else { "packet events" };
            eprintln!(
                "warning: {name} holds the first {} {what}; {} more were left out (--trace-limit)",
                t.rows, t.left_out
            );
        }
    }
    // The command ends here: with many flows the scenario and the results are tens of
    // thousands of small allocations, which the process's exit returns at once.
    std::mem::forget(res);
    std::mem::forget(sc);
    Ok(())
}

fn reproduce(
    name: &str,
    out: Option<PathBuf>,
    scenarios: Option<PathBuf>,
    seed: u64,
    reps: u64,
) -> Result<(), Failure> {
    use fairway_papers::{self as reproduce, ReproduceError, ReproduceOptions};
    reproduce::check_ready(name).map_err(|e| Failure::Input(e.to_string()))?;
    let out = out.unwrap_or_else(|| PathBuf::from("out").join(name));
    let staged = Staged::begin(&out).map_err(|e| Failure::Input(e.to_string()))?;
    let opts = ReproduceOptions {
        scenarios,
        out: staged.dir().to_path_buf(),
        first_seed: seed,
        reps: reps as usize,
        interrupt: Some(&interrupt::INTERRUPTED),
    };
    let started = Instant::now();
    let kept =
        if out.exists() { format!("; the earlier report in {} is unchanged", out.display()) } else { String::new() };
    let report = reproduce::reproduce(name, &opts, &mut |stem| eprintln!("  running {stem}")).map_err(|e| match e {
        ReproduceError::Unknown(_) | ReproduceError::Planned(..) | ReproduceError::Scenario(_) => {
            Failure::Input(e.to_string())
        }
        ReproduceError::Interrupted(_) => Failure::Interrupted(format!("{e}: nothing written{kept}")),
        other => Failure::Other(anyhow::Error::new(other).context(format!("the reproduction failed{kept}"))),
    })?;
    let report = out.join(report.strip_prefix(staged.dir()).unwrap_or(&report));
    staged.commit().context("the report is complete but could not take its folder's place")?;
    println!("report: {} ({:.1} s)", report.display(), started.elapsed().as_secs_f64());
    Ok(())
}

fn model_iftp(
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

fn names(paths: &[PathBuf]) -> String {
    paths.iter().filter_map(|p| p.file_name()?.to_str().map(str::to_string)).collect::<Vec<_>>().join(", ")
}
