//! Node movement: straight-line moves at constant speed towards a destination, as ns-2's
//! MobileNode makes them (`setdest X Y SPEED`, common/mobilenode.cc), given either as a list of
//! such commands (ns-2's movement files, as CMU's setdest writes them) or drawn as the run goes
//! by the random waypoint model with setdest's semantics (indep-utils/cmu-scen-gen/setdest,
//! version 1: a node starts where it stands, pauses, then moves to a point drawn uniformly in the
//! area at a drawn speed, pauses again on arrival, and so on). Positions are computed when asked
//! for, from the current move.

use fairway_core::{Dur, Rng, Time};

pub use fairway_model::wireless::mobility::{parse_moves, Initial, MobilitySpec, SetDest, Speed};

/// A node's current straight-line move.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Motion {
    pub(crate) since: Time,
    pub(crate) x: f64,
    pub(crate) y: f64,
    /// Unit direction and speed (m/s); zero speed stands still.
    pub(crate) ux: f64,
    pub(crate) uy: f64,
    pub(crate) speed: f64,
    pub(crate) dest_x: f64,
    pub(crate) dest_y: f64,
}

impl Motion {
    pub fn still(x: f64, y: f64) -> Motion {
        Motion { since: Time::ZERO, x, y, ux: 0.0, uy: 0.0, speed: 0.0, dest_x: x, dest_y: y }
    }

    /// Where the node is at `t` (not before the move began), stopping at the destination
    /// (ns-2's update_position clamps the overshoot). Without a branch (a transmission asks it
    /// of every node at once, physics.rs): standing still, the offset is zero, and a coordinate
    /// that does not change is not clamped.
    #[inline(always)]
    pub fn at(&self, t: Time) -> (f64, f64) {
        let s = t.saturating_since(self.since).as_secs_f64() * self.speed;
        let (x, y) = (self.x + self.ux * s, self.y + self.uy * s);
        let past = |v: f64, u: f64, dest: f64| (u > 0.0) & (v > dest) | (u < 0.0) & (v < dest);
        (
            if past(x, self.ux, self.dest_x) { self.dest_x } else { x },
            if past(y, self.uy, self.dest_y) { self.dest_y } else { y },
        )
    }

    /// From where it is at `now`, the node heads for (x, y) at `speed` (ns-2 set_destination).
    /// Returns when it gets there.
    pub fn head_for(&mut self, now: Time, x: f64, y: f64, speed: f64) -> Time {
        let (x0, y0) = self.at(now);
        let (dx, dy) = (x - x0, y - y0);
        let len = (dx * dx + dy * dy).sqrt();
        let (ux, uy) = if len > 0.0 { (dx / len, dy / len) } else { (0.0, 0.0) };
        *self = Motion { since: now, x: x0, y: y0, ux, uy, speed, dest_x: x, dest_y: y };
        if speed > 0.0 && len > 0.0 {
            now + Dur::from_secs_f64(len / speed)
        } else {
            now
        }
    }
}

/// Every node's current move, field by field: a transmission works out where every node is,
/// in a loop over these columns that the compiler vectorizes (physics.rs).
#[derive(Debug, Default)]
pub struct Motions {
    pub(crate) since: Vec<u64>,
    pub(crate) x: Vec<f64>,
    pub(crate) y: Vec<f64>,
    pub(crate) ux: Vec<f64>,
    pub(crate) uy: Vec<f64>,
    pub(crate) speed: Vec<f64>,
    pub(crate) dest_x: Vec<f64>,
    pub(crate) dest_y: Vec<f64>,
}

impl Motions {
    /// Nodes standing still at `start`.
    pub fn new(start: &[(f64, f64)]) -> Motions {
        let mut m = Motions::default();
        for &(x, y) in start {
            m.push(Motion::still(x, y));
        }
        m
    }

    fn push(&mut self, m: Motion) {
        self.since.push(m.since.0);
        self.x.push(m.x);
        self.y.push(m.y);
        self.ux.push(m.ux);
        self.uy.push(m.uy);
        self.speed.push(m.speed);
        self.dest_x.push(m.dest_x);
        self.dest_y.push(m.dest_y);
    }

    pub fn len(&self) -> usize {
        self.since.len()
    }

    pub fn is_empty(&self) -> bool {
        self.since.is_empty()
    }

    /// Node `i`'s move.
    pub fn get(&self, i: usize) -> Motion {
        Motion {
            since: Time(self.since[i]),
            x: self.x[i],
            y: self.y[i],
            ux: self.ux[i],
            uy: self.uy[i],
            speed: self.speed[i],
            dest_x: self.dest_x[i],
            dest_y: self.dest_y[i],
        }
    }

    pub fn set(&mut self, i: usize, m: Motion) {
        self.since[i] = m.since.0;
        self.x[i] = m.x;
        self.y[i] = m.y;
        self.ux[i] = m.ux;
        self.uy[i] = m.uy;
        self.speed[i] = m.speed;
        self.dest_x[i] = m.dest_x;
        self.dest_y[i] = m.dest_y;
    }

    /// Where node `i` is at `t`.
    pub fn at(&self, i: usize, t: Time) -> (f64, f64) {
        self.get(i).at(t)
    }
}

/// A random waypoint node between events: pausing, or on its way.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    Pausing,
    Moving,
}

/// What draws one node's random waypoint moves during a run (its [`Motion`] is kept apart: a
/// transmission reads every node's, side by side).
pub struct Mover {
    phase: Phase,
    rng: Rng,
}

impl Mover {
    pub fn new(rng: Rng) -> Mover {
        Mover { phase: Phase::Pausing, rng }
    }

    /// Random waypoint: the node's first event (setdest version 1 begins with a pause).
    pub fn first(&self, pause: Dur) -> Time {
        Time::ZERO + pause
    }

    /// Random waypoint: the pause or the move of `motion` that ended at `now` is followed by
    /// the next; returns when that one ends.
    pub fn next(&mut self, motion: &mut Motion, now: Time, width: f64, height: f64, speed: Speed, pause: Dur) -> Time {
        if self.phase == Phase::Moving && !pause.is_zero() {
            // Arrived: stand still for the pause.
            let (x, y) = motion.at(now);
            *motion = Motion { since: now, ..Motion::still(x, y) };
            self.phase = Phase::Pausing;
            return now + pause;
        }
        let x = self.rng.uniform() * width;
        let y = self.rng.uniform() * height;
        let v = match speed {
            Speed::Constant(v) => v,
            Speed::Uniform { min, max } => {
                // (min, max]: never zero, as setdest asserts.
                max - self.rng.uniform() * (max - min)
            }
        };
        self.phase = Phase::Moving;
        let arrive = motion.head_for(now, x, y, v);
        // A destination drawn where the node stands: move on at the next instant.
        arrive.max(now + Dur(1))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(s: f64) -> Time {
        Time::from_secs_f64(s)
    }

    #[test]
    fn a_move_is_a_straight_line_that_stops_at_its_end() {
        let mut m = Motion::still(0.0, 0.0);
        let arrive = m.head_for(t(1.0), 30.0, 40.0, 10.0);
        assert_eq!(arrive, t(6.0));
        let (x, y) = m.at(t(3.5));
        assert!((x - 15.0).abs() < 1e-9 && (y - 20.0).abs() < 1e-9, "{x} {y}");
        assert_eq!(m.at(t(100.0)), (30.0, 40.0));
        // Turning half-way starts the new leg where the node is.
        m.head_for(t(3.5), 15.0, 0.0, 5.0);
        let (x, y) = m.at(t(5.5));
        assert!((x - 15.0).abs() < 1e-9 && (y - 10.0).abs() < 1e-9, "{x} {y}");
    }

    /// setdest version 1: pause first, then move at a constant speed to a point in the area,
    /// pause again on arrival.
    #[test]
    fn random_waypoint_pauses_then_moves_inside_the_area() {
        let pause = Dur::from_secs(10);
        let (mut m, mut motion) = (Mover::new(Rng::stream(1, "rw")), Motion::still(500.0, 500.0));
        let mut now = m.first(pause);
        assert_eq!(now, t(10.0));
        for _ in 0..50 {
            let start = motion.at(now);
            let end = m.next(&mut motion, now, 1000.0, 1000.0, Speed::Constant(20.0), pause);
            let (x, y) = motion.at(end);
            assert!((0.0..1000.0).contains(&x) && (0.0..1000.0).contains(&y));
            let d = ((x - start.0).powi(2) + (y - start.1).powi(2)).sqrt();
            assert!(((end - now).as_secs_f64() - d / 20.0).abs() < 1e-6);
            // The pause on arrival.
            let resume = m.next(&mut motion, end, 1000.0, 1000.0, Speed::Constant(20.0), pause);
            assert_eq!(resume, end + pause);
            assert_eq!(motion.at(resume), (x, y));
            now = resume;
        }
    }

    #[test]
    fn uniform_speeds_stay_in_their_range() {
        let (mut m, mut motion) = (Mover::new(Rng::stream(2, "rw")), Motion::still(0.0, 0.0));
        let mut now = Time::ZERO;
        for _ in 0..200 {
            let end = m.next(&mut motion, now, 100.0, 100.0, Speed::Uniform { min: 0.0, max: 5.0 }, Dur::ZERO);
            assert!(motion.speed > 0.0 && motion.speed <= 5.0);
            now = end;
        }
    }
}
