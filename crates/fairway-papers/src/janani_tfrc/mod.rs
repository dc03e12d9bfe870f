//! janani-tfrc (Janani & Chenna Reddy): TFRC for VoIP, video conference and video streaming beside
//! TCP and beside UDP on a 4 Mb/s dumbbell (§5.1, Tables 1 to 4, Figs 2 to 7) and among mobile
//! ad hoc nodes ([`wireless`]: §5.2, Tables 5 and 6). Each wired file of scenarios/janani-tfrc/
//! is one application, one comparator and one reading of "TFRC rate is set to X"
//! (application-limited, or ns-2's greedy default); each runs at every N of the paper, the flow
//! counts set from N. [`claims`] checks the tables cell by cell and the stated orderings against
//! the reading closer to the tables; [`report`] shows both.

pub mod claims;
mod report;
pub mod wireless;
pub mod wireless_claims;
pub mod wireless_figures;
mod wireless_report;

use std::collections::BTreeMap;
use std::path::PathBuf;

use toml_edit::{value, DocumentMut};

use super::{run_text, scenario_text, ReproduceError, ReproduceOptions};
use fairway_model::results::Summary;
use fairway_report::stats::Estimate;

pub const PAPER: &str = "janani-tfrc";

/// The paper's "number of nodes".
pub const NODES: [u32; 7] = [6, 8, 10, 12, 14, 16, 18];

/// The applications of §5.1.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum App {
    Voip,
    VideoConference,
    VideoStream,
}

impl App {
    pub const ALL: [App; 3] = [App::Voip, App::VideoConference, App::VideoStream];

    pub fn stem(self) -> &'static str {
        match self {
            App::Voip => "voip",
            App::VideoConference => "videoconf",
            App::VideoStream => "videostream",
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            App::Voip => "VoIP",
            App::VideoConference => "video conference",
            App::VideoStream => "video streaming",
        }
    }
}

/// What TFRC shares the bottleneck with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Comparator {
    Tcp,
    Udp,
}

impl Comparator {
    pub fn stem(self) -> &'static str {
        match self {
            Comparator::Tcp => "tcp",
            Comparator::Udp => "udp",
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            Comparator::Tcp => "TCP",
            Comparator::Udp => "UDP",
        }
    }
}

/// The two readings of "TFRC rate is set to X" (shared/notes/seed004_spec.md, C1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Reading {
    /// An application at X feeds TFRC, which is application-limited (ns-2's SndrType_ 1).
    AppLimited,
    /// TFRC is greedy whatever the application (ns-2's default SndrType_ 0).
    Greedy,
}

impl Reading {
    pub const ALL: [Reading; 2] = [Reading::AppLimited, Reading::Greedy];

    pub fn suffix(self) -> &'static str {
        match self {
            Reading::AppLimited => "",
            Reading::Greedy => "-greedy",
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            Reading::AppLimited => "A: application-limited TFRC",
            Reading::Greedy => "B: greedy TFRC (ns-2's default)",
        }
    }
}

/// One experiment: a scenario file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Experiment {
    pub app: App,
    pub comp: Comparator,
    pub reading: Reading,
}

impl Experiment {
    pub fn stem(&self) -> String {
        format!("{}-{}{}", self.app.stem(), self.comp.stem(), self.reading.suffix())
    }

    pub fn all() -> Vec<Experiment> {
        let mut v = vec![];
        for app in App::ALL {
            for comp in [Comparator::Tcp, Comparator::Udp] {
                for reading in Reading::ALL {
                    v.push(Experiment { app, comp, reading });
                }
            }
        }
        v
    }
}

/// TFRC and comparator flows at N nodes: N = 2 routers + k senders + k receivers, k = (N - 2) / 2
/// flows alternating TFRC and the comparator, TFRC first (the scenario files say why).
pub fn flows_at(n: u32) -> (u32, u32) {
    let k = n.saturating_sub(2) / 2;
    (k.div_ceil(2), k / 2)
}

/// A class's measures over the seeds of one point.
#[derive(Debug, Clone)]
pub struct ClassMeasures {
    pub pdr: Estimate,
    pub plr: Estimate,
    pub delay_ms: Estimate,
    pub kbps: Estimate,
}

impl ClassMeasures {
    pub(super) fn of(summaries: &[&Summary], class: &str) -> ClassMeasures {
        let get = |f: &dyn Fn(&fairway_model::results::ClassSummary) -> Option<f64>| {
            Estimate::of(summaries.iter().filter_map(|s| s.classes.iter().find(|c| c.class == class)).filter_map(f))
        };
        ClassMeasures {
            pdr: get(&|c| c.pdr),
            plr: get(&|c| c.plr),
            delay_ms: get(&|c| c.mean_delay_s.map(|d| d * 1e3)),
            kbps: get(&|c| Some(c.throughput_bps / 1e3)),
        }
    }
}

/// TFRC's and the comparator's measures at one N.
#[derive(Debug, Clone)]
pub struct Point {
    pub tfrc: ClassMeasures,
    pub comp: ClassMeasures,
}

/// Every experiment at every N.
pub struct Results {
    pub points: BTreeMap<(Experiment, u32), Point>,
    pub reps: usize,
}

impl Results {
    pub fn get(&self, e: Experiment, n: u32) -> &Point {
        &self.points[&(e, n)]
    }
}

/// The scenario text with the TFRC group's and the comparator group's `count` for N nodes.
pub fn text_at(text: &str, comp: Comparator, n: u32) -> Result<String, String> {
    let mut doc: DocumentMut = text.parse().map_err(|e| format!("{e}"))?;
    let (t, c) = flows_at(n);
    let flows = doc["flow"].as_array_of_tables_mut().ok_or("no [[flow]] entries")?;
    let mut set = 0;
    for f in flows.iter_mut() {
        let name = f.get("name").and_then(|v| v.as_str()).unwrap_or("").to_string();
        if name == "tfrc{i}" {
            f["count"] = value(t as i64);
            set += 1;
        } else if name == format!("{}{{i}}", comp.stem()) {
            f["count"] = value(c as i64);
            set += 1;
        }
    }
    if set != 2 {
        return Err(format!("expected flows named tfrc{{i}} and {}{{i}}", comp.stem()));
    }
    Ok(doc.to_string())
}

/// A scenario file the reproduction could not set its points in (an edited copy, `--scenarios`).
fn edit_error(file: &str, message: String) -> ReproduceError {
    ReproduceError::Scenario(fairway_scenario::ScenarioError {
        file: file.to_string(),
        line: 0,
        col: 0,
        field: String::new(),
        message,
    })
}

pub fn reproduce(opts: &ReproduceOptions, progress: &mut dyn FnMut(&str)) -> Result<PathBuf, ReproduceError> {
    let mut points = BTreeMap::new();
    for e in Experiment::all() {
        let stem = e.stem();
        let (file, text) = scenario_text(opts, PAPER, &stem)?;
        for n in NODES {
            let t = text_at(&text, e.comp, n).map_err(|m| edit_error(&file, m))?;
            let runs = run_text(opts, &format!("{stem}-n{n}"), &file, &t, false, progress)?;
            let s: Vec<&Summary> = runs.summaries.iter().collect();
            let point = Point { tfrc: ClassMeasures::of(&s, "tfrc"), comp: ClassMeasures::of(&s, e.comp.stem()) };
            points.insert((e, n), point);
        }
    }
    let r = Results { points, reps: opts.reps };
    let w = wireless::run(opts, progress)?;
    report::write_all(&r, &w, opts)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_flows_alternate_from_tfrc() {
        let got: Vec<(u32, u32)> = NODES.iter().map(|&n| flows_at(n)).collect();
        assert_eq!(got, [(1, 1), (2, 1), (2, 2), (3, 2), (3, 3), (4, 3), (4, 4)]);
    }

    #[test]
    fn every_experiment_has_its_file_and_counts_can_be_set() {
        for e in Experiment::all() {
            let text = super::super::embedded::file(PAPER, &e.stem()).unwrap_or_else(|| panic!("{}", e.stem()));
            let t = text_at(text, e.comp, 18).unwrap();
            let sc = fairway_scenario::parse_scenario(&e.stem(), &t, "x").unwrap();
            let count = |class: &str| sc.flows.iter().filter(|f| f.class() == class).count();
            assert_eq!((count("tfrc"), count(e.comp.stem())), (4, 4), "{}", e.stem());
            assert!(text_at(text, Comparator::Tcp, 6).is_ok() == (e.comp == Comparator::Tcp));
        }
    }
}
