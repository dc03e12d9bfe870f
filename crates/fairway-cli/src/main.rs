//! The `fairway` command. Thin: arguments, output paths and printing; the work is in the
//! libraries (docs/architecture.md). This file holds the arguments and the dispatch; each
//! subcommand's body is in the file named after it (run.rs, sweep.rs, ...; send, recv and key in
//! live.rs).

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

mod check;
mod emulate;
mod hugepages;
mod interrupt;
mod live;
mod model;
mod plot;
mod reproduce;
mod run;
mod scenario_file;
mod suite;
mod sweep;
mod testbed;
mod testbed_report;

#[global_allocator]
static ALLOC: hugepages::HugePageAlloc = hugepages::HugePageAlloc;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use fairway_report::output;

use run::{TraceArgs, TraceEvent, TraceKind};

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
        /// A folder for what the sender did: sender.json, and a CSV of each series its protocol
        /// logs (MApp's scale.csv).
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
        /// Override the scenario's seed (both sides: the simulation's streams and the drawn
        /// start times the live flows keep too).
        #[arg(long)]
        seed: Option<u64>,
    },
    /// A protocol's closed-form model, tabulated and plotted.
    Model {
        #[command(subcommand)]
        which: ModelCmd,
    },
    /// Run a suite of test cases with each of several protocols over seeds: `rmcat`, RFC 8867's
    /// eleven cases for RTP media congestion control with NADA, SCReAM and GCC. Writes
    /// DIR/report.md (and .html) with the cases by controller, DIR/summary.csv (every run's
    /// measures), and per case DIR/<case>/report.md with its figures and runs.
    Suite {
        #[command(subcommand)]
        which: SuiteCmd,
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

#[derive(Subcommand)]
enum SuiteCmd {
    /// RFC 8867's test cases (scenarios/rfc8867/, built in), each with every controller asked
    /// for; the measures are RFC 8868's (docs/scenarios.md, "fairway suite rmcat").
    Rmcat {
        /// The controllers, comma-separated: nada, scream, gcc.
        #[arg(long, value_delimiter = ',', default_value = "nada,scream,gcc")]
        cc: Vec<String>,
        /// Only these cases (file stems, comma-separated) [default: all].
        #[arg(long, value_delimiter = ',')]
        cases: Vec<String>,
        /// Report folder [default: out/rmcat].
        #[arg(long)]
        out: Option<PathBuf>,
        /// Read the case files from DIR/rfc8867/ instead of the built-in ones.
        #[arg(long, value_name = "DIR")]
        scenarios: Option<PathBuf>,
        /// The first seed; each case runs --reps seeds from it.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Independent runs (seeds) per case and controller.
        #[arg(long, default_value_t = fairway_papers::DEFAULT_REPS as u64, value_parser = clap::value_parser!(u64).range(1..=1000))]
        reps: u64,
        /// Also run each case with ECN (RFC 8867 §6.2: every RTP flow ECN-capable, each one's
        /// bottleneck a marking CoDel) and with that CoDel dropping: variants "ECN" and "CoDel".
        #[arg(long)]
        ecn: bool,
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
            .and_then(|_| run::refuse_trace_with_reps(&trace, seed, reps))
            .and_then(|_| run::run_reps(&file, out, seed, reps, jobs, quiet)),
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
            run::run(&file, out, seed, quiet, &args, &figures.figures())
        }
        Cmd::Check { file } => check::check(&file),
        Cmd::Emulate { file, link, duration, name, out } => {
            emulate::emulate(&file, link.as_deref(), duration.as_deref(), &name, out.as_deref())
        }
        Cmd::Testbed { file, out, duration, link, name, seed } => {
            testbed::testbed(&file, out.as_deref(), duration.as_deref(), link.as_deref(), &name, seed)
        }
        Cmd::Send { file, flow, to, bind, out, key } => live::send(&file, &flow, to, bind, out.as_deref(), &key),
        Cmd::Recv { file, flow, listen, out, duration, hide_losses, key } => {
            live::recv(&file, &flow, listen, &out, duration.as_deref(), hide_losses, &key)
        }
        Cmd::Key { file } => live::make_key(file.as_deref()),
        Cmd::Sweep { file, out, jobs, quiet, reps, resume } => sweep::run_sweep(&file, out, jobs, quiet, reps, resume),
        Cmd::Reproduce { name, out, scenarios, seed, reps } => reproduce::reproduce(&name, out, scenarios, seed, reps),
        Cmd::Suite { which: SuiteCmd::Rmcat { cc, cases, out, scenarios, seed, reps, ecn } } => {
            suite::rmcat(suite::RmcatArgs { controllers: cc, cases, out, scenarios, seed, reps, ecn })
        }
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
            plot::plot(&dir, &req, &figures.formats())
        }
        Cmd::Model { which: ModelCmd::Iftp { packet_size, rtt, ssthresh, w_max, loss, access_rate, out } } => {
            model::model_iftp(&packet_size, &rtt, ssthresh, w_max, loss, &access_rate, out)
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

impl From<fairway_live::session::Failure> for Failure {
    fn from(e: fairway_live::session::Failure) -> Self {
        use fairway_live::session::Failure as Live;
        match e {
            Live::Input(s) => Failure::Input(s),
            Live::Other(s) => Failure::Other(anyhow::anyhow!(s)),
            Live::Interrupted(s) => Failure::Interrupted(s),
        }
    }
}

impl From<anyhow::Error> for Failure {
    fn from(e: anyhow::Error) -> Self {
        Failure::Other(e)
    }
}

/// This build: the version, and the commit and edits it was built from (build.rs).
const BUILD: &str = env!("FAIRWAY_BUILD");
