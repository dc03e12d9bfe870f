//! janani-tfrc's wireless figures whose findings §5.2 states only as orderings: Figures 8-10 (VoIP,
//! TFRC beside TCP, against the number of nodes), 12-14 (video conference, TFRC beside UDP,
//! against the speed) and 15-17 (video streaming, TFRC beside UDP, for "different sources").
//! The figures are lost and no x value is given for 8-10 or 15-17: the x each runs at is a
//! reading, named in the scenario files (scenarios/janani-tfrc/wireless-*-{tcp,udp}.toml) and
//! in every claim. Each runs under both readings of "TFRC rate is set to X".

use std::collections::BTreeMap;

use toml_edit::{value, DocumentMut, Item};

use super::super::claims::{Claim, Claims};
use super::super::rules::{Bounds, Phrase, Value};
use super::super::{run_text, scenario_text, ReproduceError, ReproduceOptions};
use super::{ClassMeasures, Reading};
use fairway_model::results::Summary;
use fairway_report::stats::Estimate;

/// The three sets of figures.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Figures {
    /// Figures 8-10: VoIP, TFRC beside TCP, against the number of nodes.
    VoipTcp,
    /// Figures 12-14: video conference, TFRC beside UDP, against the speed (pause 10 s).
    VideoconfUdp,
    /// Figures 15-17: video streaming, TFRC beside UDP, against the number of source pairs.
    VideostreamUdp,
}

impl Figures {
    pub const ALL: [Figures; 3] = [Figures::VoipTcp, Figures::VideoconfUdp, Figures::VideostreamUdp];

    /// The first of the three figures (delivery ratio; then delay, then loss ratio).
    pub fn first(self) -> u32 {
        match self {
            Figures::VoipTcp => 8,
            Figures::VideoconfUdp => 12,
            Figures::VideostreamUdp => 15,
        }
    }

    pub fn stem(self, reading: Reading) -> String {
        let base = match self {
            Figures::VoipTcp => "wireless-voip-tcp",
            Figures::VideoconfUdp => "wireless-videoconf-udp",
            Figures::VideostreamUdp => "wireless-videostream-udp",
        };
        format!("{base}{}", reading.suffix())
    }

    pub fn app(self) -> &'static str {
        match self {
            Figures::VoipTcp => "VoIP",
            Figures::VideoconfUdp => "video conference",
            Figures::VideostreamUdp => "video streaming",
        }
    }

    /// The comparator's class.
    pub fn comp(self) -> &'static str {
        match self {
            Figures::VoipTcp => "tcp",
            _ => "udp",
        }
    }

    /// The x values run: the wired runs' node counts (6 to 18, every other one), Table 6's
    /// speeds (its ends and middle), one to three source pairs.
    pub fn xs(self) -> &'static [u32] {
        match self {
            Figures::VoipTcp => &[6, 10, 14, 18],
            Figures::VideoconfUdp => &[10, 30, 60],
            Figures::VideostreamUdp => &[1, 2, 3],
        }
    }

    /// The x in "at every ...".
    pub fn x_each(self) -> &'static str {
        match self {
            Figures::VoipTcp => "node count",
            Figures::VideoconfUdp => "speed",
            Figures::VideostreamUdp => "number of source pairs",
        }
    }

    pub fn x_name(self) -> &'static str {
        match self {
            Figures::VoipTcp => "nodes",
            Figures::VideoconfUdp => "speed (m/s)",
            Figures::VideostreamUdp => "source pairs",
        }
    }

    /// The reading of the x axis, for the claims.
    pub fn x_reading(self) -> &'static str {
        match self {
            Figures::VoipTcp => "N = 6, 10, 14, 18 (the wired runs' node counts), speed 10, pause 10 s",
            Figures::VideoconfUdp => "N = 10, speed 10, 30, 60 m/s, pause 10 s, UDP at 1 Mb/s",
            Figures::VideostreamUdp => {
                "\"different sources\" as 1 to 3 TFRC and UDP source pairs among 12 nodes, UDP at 1 Mb/s"
            }
        }
    }
}

/// The scenario text with its x set: the node count, the speed, or `x` source pairs (pair j:
/// TFRC from n(4j) to n(4j + 1), the comparator from n(4j + 2) to n(4j + 3)).
pub fn text_at(text: &str, f: Figures, x: u32) -> Result<String, String> {
    let mut doc: DocumentMut = text.parse().map_err(|e| format!("{e}"))?;
    match f {
        Figures::VoipTcp => {
            let node = doc
                .get_mut("node")
                .and_then(|n| n.as_array_of_tables_mut())
                .and_then(|a| a.get_mut(0))
                .ok_or("no [[node]] entry")?;
            node["count"] = value(x as i64);
        }
        Figures::VideoconfUdp => {
            let mobility = doc
                .get_mut("wireless")
                .and_then(|w| w.get_mut("mobility"))
                .and_then(|m| m.as_inline_table_mut())
                .ok_or("no [wireless] mobility = { ... }")?;
            mobility.insert("speed", (x as i64).into());
        }
        Figures::VideostreamUdp => {
            let flows = doc.get_mut("flow").and_then(Item::as_array_of_tables_mut).ok_or("no [[flow]] entries")?;
            let first: Vec<_> = flows.iter().cloned().collect();
            if first.len() != 2 {
                return Err("a TFRC flow and a comparator flow".into());
            }
            for j in 1..x {
                for (k, t) in first.iter().enumerate() {
                    let mut t = t.clone();
                    let name =
                        t.get("name").and_then(|n| n.as_str()).unwrap_or("flow").trim_end_matches('0').to_string();
                    t["name"] = value(format!("{name}{j}"));
                    t["from"] = value(format!("n{}", 4 * j + 2 * k as u32));
                    t["to"] = value(format!("n{}", 4 * j + 2 * k as u32 + 1));
                    flows.push(t);
                }
            }
        }
    }
    Ok(doc.to_string())
}

/// TFRC's and the comparator's measures at one point.
#[derive(Debug, Clone)]
pub struct Point {
    pub tfrc: ClassMeasures,
    pub comp: ClassMeasures,
    /// Per seed: (TFRC, comparator) delivery ratio, mean delay (ms) and loss ratio.
    pub pairs: Vec<[(f64, f64); 3]>,
}

pub struct Results {
    pub points: BTreeMap<(Figures, Reading, u32), Point>,
}

impl Results {
    pub fn get(&self, f: Figures, r: Reading, x: u32) -> &Point {
        &self.points[&(f, r, x)]
    }
}

pub fn run(opts: &ReproduceOptions, progress: &mut dyn FnMut(&str)) -> Result<Results, ReproduceError> {
    let mut points = BTreeMap::new();
    for f in Figures::ALL {
        for reading in Reading::ALL {
            let stem = f.stem(reading);
            let (file, text) = scenario_text(opts, super::PAPER, &stem)?;
            for &x in f.xs() {
                let t = text_at(&text, f, x).map_err(|m| super::edit_error(&file, m))?;
                let runs = run_text(opts, &format!("{stem}-x{x}"), &file, &t, false, progress)?;
                let s: Vec<&Summary> = runs.summaries.iter().collect();
                let class = |s: &Summary, c: &str, g: fn(&fairway_model::results::ClassSummary) -> Option<f64>| {
                    s.classes.iter().find(|k| k.class == c).and_then(g).unwrap_or(f64::NAN)
                };
                let pairs = s
                    .iter()
                    .map(|s| {
                        let both = |g: fn(&fairway_model::results::ClassSummary) -> Option<f64>| {
                            (class(s, "tfrc", g), class(s, f.comp(), g))
                        };
                        [both(|c| c.pdr), both(|c| c.mean_delay_s.map(|d| d * 1e3)), both(|c| c.plr)]
                    })
                    .collect();
                let point = Point { tfrc: ClassMeasures::of(&s, "tfrc"), comp: ClassMeasures::of(&s, f.comp()), pairs };
                points.insert((f, reading, x), point);
            }
        }
    }
    Ok(Results { points })
}

/// The claims of the three sets of figures: TFRC above the comparator on delivery and below it
/// on delay and loss (§5.2), at every x, under `primary` (counted) and the other reading (shown,
/// not counted). Each is the paired difference over the seeds (both flows share each run), the
/// worst x.
pub fn claims(c: &mut Claims, r: &Results, primary: Reading) {
    let others: Vec<Reading> = Reading::ALL.into_iter().filter(|x| *x != primary).collect();
    for reading in std::iter::once(primary).chain(others) {
        for f in Figures::ALL {
            let comp = f.comp().to_uppercase();
            let measures: [(&str, &str, f64, usize); 3] = [
                ("delivery ratio", "higher", 1.0, 4),
                ("mean delay", "lower", -1.0, 1),
                ("loss ratio", "lower", -1.0, 4),
            ];
            for (k, (what, dir, sign, digits)) in measures.into_iter().enumerate() {
                let per_x: Vec<(u32, Estimate, &Point)> = f
                    .xs()
                    .iter()
                    .map(|&x| {
                        let p = r.get(f, reading, x);
                        (x, Estimate::of(p.pairs.iter().map(|q| sign * (q[k].0 - q[k].1))), p)
                    })
                    .collect();
                let value = Value::least(&per_x.iter().map(|(_, e, _)| Value::of(e, Bounds::FREE)).collect::<Vec<_>>());
                let pick = |m: &ClassMeasures| match k {
                    0 => m.pdr.clone(),
                    1 => m.delay_ms.clone(),
                    _ => m.plr.clone(),
                };
                let shown = per_x
                    .iter()
                    .map(|(x, _, p)| format!("{x}: {} vs {}", pick(&p.tfrc).show(digits), pick(&p.comp).show(digits)))
                    .collect::<Vec<_>>()
                    .join("; ");
                let fig = f.first() + k as u32;
                let mut row = Claim::words(
                    format!("Wireless {}: TFRC's {what} is {dir} than {comp}'s at every {}", f.app(), f.x_each()),
                    format!("§5.2, Fig. {fig}"),
                    format!("TFRC {dir} than {comp}"),
                    Phrase::Higher,
                    format!(
                        "TFRC's {what} less {comp}'s{}, run by run, the least over the {}",
                        if sign < 0.0 { ", negated" } else { "" },
                        f.x_name()
                    ),
                    Bounds::FREE,
                    value,
                )
                .shown(format!("TFRC vs {comp} per {}: {shown}", f.x_name()))
                .reading(format!("{}; {}", reading.label(), f.x_reading()))
                .why(format!("TFRC's {what} is not surely {dir} than {comp}'s at every {}", f.x_each()));
                if reading != primary {
                    row = row.uncounted();
                }
                c.push(row);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_figure_has_its_files_and_its_x_can_be_set() {
        for f in Figures::ALL {
            for reading in Reading::ALL {
                let stem = f.stem(reading);
                let text = super::super::super::embedded::file(super::super::PAPER, &stem).unwrap();
                let x = *f.xs().last().unwrap();
                let t = text_at(text, f, x).unwrap();
                let sc = fairway_scenario::parse_scenario(&stem, &t, "x").unwrap_or_else(|e| panic!("{stem}: {e}"));
                let w = sc.wireless.as_ref().unwrap();
                match f {
                    Figures::VoipTcp => assert_eq!(w.nodes.len(), 18),
                    Figures::VideoconfUdp => assert!(t.contains("speed = 60")),
                    Figures::VideostreamUdp => {
                        assert_eq!(sc.flows.len(), 6, "{stem}");
                        assert!(t.contains("from = \"n10\"") && t.contains("to = \"n11\""), "{t}");
                    }
                }
            }
        }
    }
}
