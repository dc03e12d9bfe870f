//! `queue = ...` on a link: each discipline's keys, their defaults and checks. A kind names a
//! fairway-aqm discipline; a bad value is an error at its key.

use fairway_aqm::{
    CbtParams, CodelParams, ControlLaw, DcbtParams, DropTailParams, FqCodelParams, FredParams, Limit, PieFlavor,
    PieParams, RedFor, RedParams,
};
use fairway_engine::scenario::QueueSpec;

use crate::reader::{Res, Tbl, Val};

const DROPTAIL_KEYS: &[&str] = &["kind", "limit"];
/// CBT's keys beside RED's.
const CBT_OWN_KEYS: &[&str] = &["mm_th", "udp_th", "weight", "red_for"];
/// D-CBT's keys beside RED's.
const DCBT_OWN_KEYS: &[&str] = &["untagged_allowance", "refresh"];
const RED_KEYS: &[&str] = &[
    "kind",
    "limit",
    "thresh",
    "maxthresh",
    "q_weight",
    "linterm",
    "gentle",
    "wait",
    "mean_pktsize",
    "idle_pktsize",
    "bytes",
    "queue_in_bytes",
    "ecn",
    "mark_p",
    "use_mark_p",
    "targetdelay",
];

/// CoDel's keys (RFC 8289).
const CODEL_KEYS: &[&str] = &["kind", "limit", "target", "interval", "max_packet", "ecn", "control_law"];

/// FQ-CoDel's keys (RFC 8290).
const FQ_CODEL_KEYS: &[&str] = &[
    "kind",
    "limit",
    "target",
    "interval",
    "max_packet",
    "ecn",
    "flows",
    "quantum",
    "drop_batch",
    "perturbation",
    "control_law",
];

/// FRED's keys beside RED's.
const FRED_OWN_KEYS: &[&str] = &["min_q"];

/// PIE's keys (RFC 8033).
const PIE_KEYS: &[&str] = &[
    "kind",
    "limit",
    "target",
    "t_update",
    "alpha",
    "beta",
    "max_burst",
    "mean_pktsize",
    "ecn",
    "mark_ecn_threshold",
    "dq_rate_estimator",
    "dq_threshold",
    "cap_drop_adjustment",
    "derandomize",
    "flavor",
];

/// The queue kinds, as an error lists them.
const KINDS: &str = "droptail, red, cbt, dcbt, fred, pie, codel or fq_codel";

fn finish(t: &Tbl, keys: &[&str]) -> Res<()> {
    t.finish(keys)
}

/// A parameter check's error, at the key it names if the table has it.
fn at_key(t: &Tbl, e: fairway_aqm::ParamError) -> crate::reader::ScenarioError {
    match t.get(e.field) {
        Some(v) => v.error(e.reason),
        None => t.error(format!("{}: {}", e.field, e.reason)),
    }
}

pub(crate) fn parse_queue(v: &Val) -> Res<QueueSpec> {
    let (kind, t) = if v.is_str() {
        (v.string()?, None)
    } else {
        let t = v.table()?;
        let k = t.req("kind")?.string()?;
        (k, Some(t))
    };
    match kind.as_str() {
        "droptail" => {
            let mut p = DropTailParams::default();
            if let Some(t) = &t {
                if let Some(l) = t.get("limit") {
                    p.limit = if l.is_str() { Limit::Bytes(l.bytes_pos()?) } else { Limit::Packets(l.u32_min(1)?) };
                }
                p.validate().map_err(|e| v.error(e.to_string()))?;
            }
            if let Some(t) = t {
                finish(&t, DROPTAIL_KEYS)?;
            }
            Ok(QueueSpec::DropTail(p))
        }
        "red" => {
            let p = match &t {
                Some(t) => parse_red(t)?,
                None => RedParams::default(),
            };
            if let Some(t) = t {
                finish(&t, RED_KEYS)?;
            }
            Ok(QueueSpec::Red(Box::new(p)))
        }
        "cbt" => {
            // seed 003 §2: RED's keys, and a threshold per UDP class (required: the paper gives
            // no default).
            let Some(t) = t else {
                return Err(
                    v.error("CBT needs its class thresholds: queue = { kind = \"cbt\", mm_th = ..., udp_th = ... }")
                );
            };
            let red = parse_red(&t)?;
            let th = |key: &str| -> Res<f64> {
                let v = t.req(key)?;
                let x = v.f64()?;
                if x < 0.0 {
                    return Err(v.error(format!("{x} is not a number of packets (0 or more)")));
                }
                Ok(x)
            };
            let weight = match t.get("weight") {
                Some(v) => Some(v.f64()?),
                None => None,
            };
            // seed 003 §2's two variants: RED for all (the default, the one it simulates) or
            // RED for TCP only.
            let red_for = match t.get("red_for") {
                None => RedFor::All,
                Some(v) => match v.string()?.as_str() {
                    "all" => RedFor::All,
                    "tcp" => RedFor::Tcp,
                    other => return Err(v.error(format!("`{other}`: expected \"all\" or \"tcp\""))),
                },
            };
            let p = CbtParams { red, mm_th: th("mm_th")?, udp_th: th("udp_th")?, weight, red_for };
            p.validate().map_err(|e| match t.get(e.field) {
                Some(v) => v.error(e.reason),
                None => t.error(format!("{}: {}", e.field, e.reason)),
            })?;
            finish(&t, &[RED_KEYS, CBT_OWN_KEYS].concat())?;
            Ok(QueueSpec::Cbt(Box::new(p)))
        }
        "dcbt" => {
            // seed 003 §3: RED's keys; the class thresholds follow the active flows.
            let t = t.ok_or_else(|| {
                v.error("D-CBT counts packets: queue = { kind = \"dcbt\", bytes = false, queue_in_bytes = false, ... }")
            })?;
            let mut p = DcbtParams::new(parse_red(&t)?);
            if let Some(x) = t.get("untagged_allowance") {
                p.untagged_allowance = x.f64()?;
            }
            if let Some(x) = t.get("refresh") {
                p.refresh = x.dur_pos()?;
            }
            p.validate().map_err(|e| match t.get(e.field) {
                Some(x) => x.error(e.reason),
                None => t.error(format!("{}: {}", e.field, e.reason)),
            })?;
            finish(&t, &[RED_KEYS, DCBT_OWN_KEYS].concat())?;
            Ok(QueueSpec::Dcbt(Box::new(p)))
        }
        "fred" => {
            // Lin & Morris 1997: RED's keys from FRED's own defaults (packets, not gentle).
            let base = FredParams::default();
            let mut p = match &t {
                Some(t) => FredParams { red: parse_red_from(t, base.red)?, ..base },
                None => base,
            };
            if let Some(t) = &t {
                if let Some(x) = t.get("min_q") {
                    p.min_q = x.u32_min(1)?;
                }
                p.validate().map_err(|e| at_key(t, e))?;
                finish(t, &[RED_KEYS, FRED_OWN_KEYS].concat())?;
            }
            Ok(QueueSpec::Fred(Box::new(p)))
        }
        "pie" => {
            let p = match &t {
                Some(t) => parse_pie(t)?,
                None => PieParams::default(),
            };
            if let Some(t) = t {
                finish(&t, PIE_KEYS)?;
            }
            Ok(QueueSpec::Pie(Box::new(p)))
        }
        "codel" => {
            let p = match &t {
                Some(t) => parse_codel(t)?,
                None => CodelParams::default(),
            };
            if let Some(t) = t {
                finish(&t, CODEL_KEYS)?;
            }
            Ok(QueueSpec::Codel(Box::new(p)))
        }
        "fq_codel" => {
            let p = match &t {
                Some(t) => parse_fq_codel(t)?,
                None => FqCodelParams::default(),
            };
            if let Some(t) = t {
                finish(&t, FQ_CODEL_KEYS)?;
            }
            Ok(QueueSpec::FqCodel(Box::new(p)))
        }
        other => Err(v.error(format!("unknown queue kind `{other}`: expected {KINDS}"))),
    }
}

/// RED's keys are ns-2's variable names without the trailing underscore; what is not given
/// keeps ns-2 2.35's default (`RedParams::default`).
fn parse_red(t: &Tbl) -> Res<RedParams> {
    parse_red_from(t, RedParams::default())
}

/// RED's keys over `base`.
fn parse_red_from(t: &Tbl, base: RedParams) -> Res<RedParams> {
    let mut p = base;
    if let Some(v) = t.get("limit") {
        p.limit = v.u32_min(1)?;
    }
    for (key, field) in [
        ("thresh", &mut p.thresh),
        ("maxthresh", &mut p.maxthresh),
        ("q_weight", &mut p.q_weight),
        ("linterm", &mut p.linterm),
        ("mark_p", &mut p.mark_p),
    ] {
        if let Some(v) = t.get(key) {
            *field = v.f64()?;
        }
    }
    for (key, field) in [
        ("gentle", &mut p.gentle),
        ("wait", &mut p.wait),
        ("bytes", &mut p.bytes),
        ("queue_in_bytes", &mut p.queue_in_bytes),
        ("ecn", &mut p.ecn),
        ("use_mark_p", &mut p.use_mark_p),
    ] {
        if let Some(v) = t.get(key) {
            *field = v.bool()?;
        }
    }
    if let Some(v) = t.get("mean_pktsize") {
        p.mean_pktsize = v.bytes_pos()?;
    }
    if let Some(v) = t.get("idle_pktsize") {
        p.idle_pktsize = v.bytes_pos()?;
    }
    if let Some(v) = t.get("targetdelay") {
        p.targetdelay = v.dur_pos()?;
    }
    // The same checks RED makes when built, reported at the offending key.
    p.validate().map_err(|e| match t.get(e.field) {
        Some(v) => v.error(e.reason),
        None => t.error(format!("{}: {}", e.field, e.reason)),
    })?;
    Ok(p)
}

/// CoDel's keys; what is not given keeps RFC 8289's value ([`CodelParams::default`]).
fn parse_codel(t: &Tbl) -> Res<CodelParams> {
    let mut p = CodelParams::default();
    if let Some(v) = t.get("limit") {
        p.limit = v.u32_min(1)?;
    }
    if let Some(v) = t.get("target") {
        p.target = v.dur_pos()?;
    }
    if let Some(v) = t.get("interval") {
        p.interval = v.dur_pos()?;
    }
    if let Some(v) = t.get("max_packet") {
        p.max_packet = v.bytes_pos()?;
    }
    if let Some(v) = t.get("ecn") {
        p.ecn = v.bool()?;
    }
    if let Some(v) = t.get("control_law") {
        p.control_law = control_law(&v)?;
    }
    p.validate().map_err(|e| at_key(t, e))?;
    Ok(p)
}

/// `control_law = "sqrt"` (RFC 8289's, exact) or `"newton"` (Linux's and ns-3's fixed point).
fn control_law(v: &Val) -> Res<ControlLaw> {
    match v.string()?.as_str() {
        "sqrt" => Ok(ControlLaw::Sqrt),
        "newton" => Ok(ControlLaw::Newton),
        other => Err(v.error(format!(
            "`{other}`: expected \"sqrt\" (RFC 8289, exact) or \"newton\" (Linux's and ns-3's fixed-point 1/sqrt)"
        ))),
    }
}

/// FQ-CoDel's keys; what is not given keeps RFC 8290's (and Linux's) value
/// ([`FqCodelParams::default`]).
fn parse_fq_codel(t: &Tbl) -> Res<FqCodelParams> {
    let mut p = FqCodelParams::default();
    if let Some(v) = t.get("limit") {
        p.limit = v.u32_min(1)?;
    }
    if let Some(v) = t.get("target") {
        p.target = v.dur_pos()?;
    }
    if let Some(v) = t.get("interval") {
        p.interval = v.dur_pos()?;
    }
    if let Some(v) = t.get("max_packet") {
        p.max_packet = v.bytes_pos()?;
    }
    if let Some(v) = t.get("ecn") {
        p.ecn = v.bool()?;
    }
    if let Some(v) = t.get("flows") {
        p.flows = v.u32_min(1)?;
    }
    if let Some(v) = t.get("quantum") {
        p.quantum = v.bytes_pos()?;
    }
    if let Some(v) = t.get("drop_batch") {
        p.drop_batch = v.u32_min(1)?;
    }
    if let Some(v) = t.get("perturbation") {
        p.perturbation = v.u32_min(0)? as u64;
    }
    if let Some(v) = t.get("control_law") {
        p.control_law = control_law(&v)?;
    }
    p.validate().map_err(|e| at_key(t, e))?;
    Ok(p)
}

/// PIE's keys; what is not given keeps RFC 8033's value ([`PieParams::default`]).
fn parse_pie(t: &Tbl) -> Res<PieParams> {
    let mut p = PieParams::default();
    if let Some(v) = t.get("limit") {
        p.limit = v.u32_min(1)?;
    }
    for (key, field) in [("target", &mut p.target), ("t_update", &mut p.t_update), ("max_burst", &mut p.max_burst)] {
        if let Some(v) = t.get(key) {
            *field = v.dur()?;
        }
    }
    for (key, field) in
        [("alpha", &mut p.alpha), ("beta", &mut p.beta), ("mark_ecn_threshold", &mut p.mark_ecn_threshold)]
    {
        if let Some(v) = t.get(key) {
            *field = v.f64()?;
        }
    }
    for (key, field) in [("mean_pktsize", &mut p.mean_pktsize), ("dq_threshold", &mut p.dq_threshold)] {
        if let Some(v) = t.get(key) {
            *field = v.bytes_pos()?;
        }
    }
    for (key, field) in [
        ("ecn", &mut p.ecn),
        ("dq_rate_estimator", &mut p.dq_rate_estimator),
        ("cap_drop_adjustment", &mut p.cap_drop_adjustment),
        ("derandomize", &mut p.derandomize),
    ] {
        if let Some(v) = t.get(key) {
            *field = v.bool()?;
        }
    }
    if let Some(v) = t.get("flavor") {
        p.flavor = match v.string()?.as_str() {
            "rfc" => PieFlavor::Rfc,
            "ns3" => PieFlavor::Ns3,
            other => {
                return Err(
                    v.error(format!("`{other}`: expected \"rfc\" (RFC 8033) or \"ns3\" (ns-3.37's PieQueueDisc)"))
                )
            }
        };
    }
    p.validate().map_err(|e| at_key(t, e))?;
    Ok(p)
}
