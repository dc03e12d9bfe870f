//! A discipline as a scenario configures it: its kind and checked parameters, built for the link
//! it sits in front of (RED and the disciplines built on it take the link's rate and delay to
//! size their idle-time estimate, as ns-2's `ptc_` does).

use fairway_core::{Dur, Rate};

use crate::{
    Cbt, CbtParams, Codel, CodelParams, Dcbt, DcbtParams, DropTail, DropTailParams, FqCodel, FqCodelParams, Fred,
    FredParams, ParamError, Pie, PieParams, Qdisc, Red, RedParams,
};

#[derive(Debug, Clone)]
pub enum QueueSpec {
    DropTail(DropTailParams),
    /// Boxed: RED's parameters are several times the size of DropTail's, which large
    /// topologies use on their thousands of access links.
    Red(Box<RedParams>),
    /// CBT with RED for all (seed 003 §2).
    Cbt(Box<CbtParams>),
    /// Dynamic-CBT (seed 003 §3).
    Dcbt(Box<DcbtParams>),
    /// CoDel (RFC 8289).
    Codel(Box<CodelParams>),
    /// FQ-CoDel (RFC 8290).
    FqCodel(Box<FqCodelParams>),
    /// FRED (Lin & Morris 1997).
    Fred(Box<FredParams>),
    /// PIE (RFC 8033).
    Pie(Box<PieParams>),
}

impl QueueSpec {
    pub fn kind(&self) -> &'static str {
        match self {
            QueueSpec::DropTail(_) => "droptail",
            QueueSpec::Red(_) => "red",
            QueueSpec::Cbt(_) => "cbt",
            QueueSpec::Dcbt(_) => "dcbt",
            QueueSpec::Codel(_) => "codel",
            QueueSpec::FqCodel(_) => "fq_codel",
            QueueSpec::Fred(_) => "fred",
            QueueSpec::Pie(_) => "pie",
        }
    }
}

impl QueueSpec {
    /// The discipline, ready in front of a link of `rate` and `delay`; a bad parameter names
    /// its field.
    pub fn build(&self, rate: Rate, delay: Dur) -> Result<Qdisc, ParamError> {
        Ok(match self {
            QueueSpec::DropTail(p) => Qdisc::DropTail(DropTail::new(*p)?),
            QueueSpec::Red(p) => Qdisc::Red(Box::new(Red::new(**p, rate, delay)?)),
            QueueSpec::Cbt(p) => Qdisc::Cbt(Box::new(Cbt::new(**p, rate, delay)?)),
            QueueSpec::Dcbt(p) => Qdisc::Dcbt(Box::new(Dcbt::new(**p, rate, delay)?)),
            QueueSpec::Codel(p) => Qdisc::Codel(Box::new(Codel::new(**p)?)),
            QueueSpec::FqCodel(p) => Qdisc::FqCodel(Box::new(FqCodel::new(**p)?)),
            QueueSpec::Fred(p) => Qdisc::Fred(Box::new(Fred::new(**p, rate, delay)?)),
            QueueSpec::Pie(p) => Qdisc::Pie(Box::new(Pie::new(**p)?)),
        })
    }
}
