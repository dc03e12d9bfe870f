//! A simplex link as ns-2 builds one: a queue discipline in front of a store-and-forward
//! transmitter (serialisation = size x 8 / rate), then a constant propagation delay.
//!
//! Packets propagating are kept in a FIFO: the delay is constant, so they arrive in the order
//! they left and only the head needs an event (DESIGN.md, "Speed is a feature").

use std::collections::VecDeque;

use fairway_aqm::{Qdisc, QueueDiscipline};
use fairway_core::{Dur, NodeId, PacketRef, Rate, Rng, Time};

use crate::scenario::LinkSpec;

pub struct LinkState {
    pub from: NodeId,
    pub to: NodeId,
    pub rate: Rate,
    pub delay: Dur,
    pub qdisc: Qdisc,
    /// The discipline's own random stream (RED draws from it).
    pub rng: Rng,
    /// The packet being serialised, if any.
    pub tx: Option<PacketRef>,
    /// Packets propagating, with their arrival time at the far end.
    pub inflight: VecDeque<(Time, PacketRef)>,
    /// Packets handed to the far node.
    pub delivered: u64,
    /// Random loss on the wire: probability and the packets it took.
    pub loss: f64,
    pub lost: u64,
    /// The loss model's own stream.
    pub loss_rng: Rng,
    /// Total serialisation time, for utilisation.
    pub busy: Dur,
    pub integ: QueueIntegral,
}

impl LinkState {
    /// The link `spec` with its discipline; its random streams (the discipline's, the loss
    /// model's) derive from the scenario seed and the link's name.
    pub fn new(spec: &LinkSpec, qdisc: Qdisc, seed: u64, name: &str) -> LinkState {
        LinkState {
            from: spec.from,
            to: spec.to,
            rate: spec.rate,
            delay: spec.delay,
            qdisc,
            rng: Rng::stream(seed, &format!("queue:{name}")),
            tx: None,
            inflight: VecDeque::new(),
            delivered: 0,
            loss: spec.loss,
            lost: 0,
            loss_rng: Rng::stream(seed, &format!("loss:{name}")),
            busy: Dur::ZERO,
            integ: QueueIntegral::default(),
        }
    }

    /// Call before the queue changes: accumulates the time-weighted queue and average.
    #[inline]
    pub fn integrate(&mut self, now: Time) {
        self.integ.advance(now);
    }

    /// Call after the queue changed.
    #[inline]
    pub fn observe(&mut self) {
        self.integ.len = self.qdisc.len() as f64;
        if let Some(a) = self.qdisc.average_pkts() {
            self.integ.avg = a;
        }
    }
}

/// Time integrals of the instantaneous queue (packets waiting) and of the discipline's average,
/// both piecewise constant between arrivals and departures.
#[derive(Debug, Clone, Default)]
pub struct QueueIntegral {
    pub last: Time,
    pub len: f64,
    pub avg: f64,
    pub len_area: f64,
    pub avg_area: f64,
}

impl QueueIntegral {
    #[inline]
    pub fn advance(&mut self, now: Time) {
        let dt = (now - self.last).as_secs_f64();
        self.len_area += self.len * dt;
        self.avg_area += self.avg * dt;
        self.last = now;
    }

    /// Time-averages over [0, end].
    pub fn means(&self, end: Time) -> (f64, f64) {
        let mut c = self.clone();
        c.advance(end);
        let t = end.as_secs_f64();
        if t <= 0.0 {
            return (0.0, 0.0);
        }
        (c.len_area / t, c.avg_area / t)
    }
}
