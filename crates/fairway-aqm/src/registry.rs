//! What a discipline says about itself, and the list that registers each one.
//!
//! A discipline is one file: its state machine ([`QueueDiscipline`]), its settings and how they
//! are read and checked, and what the rest of fairway asks of it ([`Discipline`]). The list in
//! lib.rs (`disciplines!`) gives it a variant of [`Qdisc`](crate::Qdisc) and of
//! [`QueueSpec`](crate::QueueSpec), so the simulator dispatches without a vtable, and every
//! caller (the scenario reader, the estimate, the figures, the drawing, the emulator) asks the
//! discipline instead of naming it.

use std::fmt::Debug;

use fairway_core::{Dur, Rate};

use crate::keys::{Keys, Read};
use crate::{Decides, Limit, PacketMeta, ParamError, QueueDiscipline, Verdict};

/// The link a discipline sits in front of.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OnLink {
    pub rate: Rate,
    pub delay: Dur,
}

/// A level a queue-length figure draws across, with its label (RED's thresholds, a limit).
#[derive(Debug, Clone, PartialEq)]
pub struct Level {
    pub label: String,
    /// In packets.
    pub packets: f64,
}

/// A queue discipline as fairway knows it. Registered in lib.rs's `disciplines!` list.
pub trait Discipline: QueueDiscipline + Clone + Debug + Sized {
    /// Its settings (where they have defaults, `Default` gives the referee's, and says which).
    type Params: Clone + Debug;

    /// `kind = "..."` in a scenario.
    const KIND: &'static str;
    /// Its name in drawings and figures ("FQ-CoDel"); `None` for the plain FIFO, drawn unlabelled.
    const LABEL: Option<&'static str>;
    /// When it decides a packet's fate.
    const DECIDES: Decides;
    /// Whether packets leave in the order they were admitted (those dropped on the way apart).
    const FIFO: bool;
    /// Whether it ever draws from the random stream `enqueue` is given (a simulator need not
    /// derive a stream for one that does not).
    const DRAWS: bool;
    /// Whether it keeps state about idle periods, so the link must tell it, by an empty
    /// dequeue, when it goes idle.
    const TRACKS_IDLE: bool;
    /// Whether it keeps an average queue ([`QueueDiscipline::average_pkts`]), which the run's
    /// summary then reports.
    const KEEPS_AVERAGE: bool;

    /// The keys it reads besides `kind` (an unknown key's error lists them).
    fn keys() -> Vec<&'static str>;

    /// Its settings from `keys`, with its defaults for what is not given and its checks.
    fn read(keys: &mut dyn Keys) -> Read<Self::Params>;

    /// Checks that need the link (RED's automatic thresholds), refusing or warning at a key.
    fn check_on_link(_p: &Self::Params, _link: OnLink, _keys: &mut dyn Keys) -> Read<()> {
        Ok(())
    }

    /// The discipline, ready in front of `link`; a bad setting names its field.
    fn build(p: &Self::Params, link: OnLink) -> Result<Self, ParamError>;

    /// The buffer's size.
    fn limit(p: &Self::Params) -> Limit;

    /// Whether it marks ECN-capable packets instead of dropping them.
    fn marks_ecn(p: &Self::Params) -> bool;

    /// Timer events a second of its own (PIE's periodic update) with at most `flows` flows
    /// through it, for the event estimate.
    fn timers_per_s(_p: &Self::Params, _flows: usize) -> f64 {
        0.0
    }

    /// What a queue-length figure draws across: thresholds and limits in packets.
    fn levels(p: &Self::Params) -> Vec<Level> {
        match Self::limit(p) {
            Limit::Packets(n) => vec![Level { label: format!("limit {n}"), packets: n as f64 }],
            Limit::Bytes(_) => vec![],
        }
    }

    /// An arrival to an empty queue in front of an idle transmitter, which would be enqueued
    /// and dequeued at once: its verdict and counts without the round trip, or `None` for a
    /// discipline that must see both calls.
    #[inline]
    fn pass_through(&mut self, _meta: &PacketMeta) -> Option<Verdict> {
        None
    }
}

/// Registers the disciplines: `Variant(module::Type)`, the first stored inline in [`Qdisc`]
/// (the plain FIFO of the thousands of access links a large topology has), the others boxed so
/// that the enum stays that small. Declares each module, and makes [`Qdisc`], [`QueueSpec`] and
/// their dispatch.
///
/// [`Qdisc`]: crate::Qdisc
/// [`QueueSpec`]: crate::QueueSpec
macro_rules! disciplines {
    ($first:ident($fm:ident::$ft:ident), $($v:ident($m:ident::$t:ident)),* $(,)?) => {
        pub mod $fm;
        $(pub mod $m;)*

        /// The registered disciplines, built, dispatched without a vtable. `repr(u8)`: the tag
        /// comes first, then the variant, so that the inline one's fields that come first
        /// share a cache line with it.
        #[derive(Debug, Clone)]
        #[repr(u8)]
        pub enum Qdisc {
            $first($fm::$ft),
            $($v(Box<$m::$t>),)*
        }

        /// A discipline as a scenario configures it: its kind and checked settings.
        #[derive(Debug, Clone)]
        pub enum QueueSpec {
            $first(<$fm::$ft as Discipline>::Params),
            $($v(Box<<$m::$t as Discipline>::Params>),)*
        }

        /// Every registered kind, as `kind = "..."` names it.
        pub const KINDS: &[&str] = &[<$fm::$ft as Discipline>::KIND, $(<$m::$t as Discipline>::KIND),*];

        impl Default for QueueSpec {
            fn default() -> Self {
                QueueSpec::$first(Default::default())
            }
        }

        impl QueueSpec {
            /// Reads `kind`'s settings from `keys`; `None` for a kind nobody registered.
            pub fn read(kind: &str, keys: &mut dyn Keys) -> Option<Read<QueueSpec>> {
                if kind == <$fm::$ft as Discipline>::KIND {
                    return Some(<$fm::$ft as Discipline>::read(keys).map(QueueSpec::$first));
                }
                $(if kind == <$m::$t as Discipline>::KIND {
                    return Some(<$m::$t as Discipline>::read(keys).map(|p| QueueSpec::$v(Box::new(p))));
                })*
                None
            }

            /// The keys `kind` reads besides `kind` itself.
            pub fn keys_of(kind: &str) -> Option<Vec<&'static str>> {
                if kind == <$fm::$ft as Discipline>::KIND {
                    return Some(<$fm::$ft as Discipline>::keys());
                }
                $(if kind == <$m::$t as Discipline>::KIND {
                    return Some(<$m::$t as Discipline>::keys());
                })*
                None
            }

            pub fn kind(&self) -> &'static str {
                match self {
                    QueueSpec::$first(_) => <$fm::$ft as Discipline>::KIND,
                    $(QueueSpec::$v(_) => <$m::$t as Discipline>::KIND,)*
                }
            }

            /// Its name in drawings and figures (`None`: the plain FIFO).
            pub fn label(&self) -> Option<&'static str> {
                match self {
                    QueueSpec::$first(_) => <$fm::$ft as Discipline>::LABEL,
                    $(QueueSpec::$v(_) => <$m::$t as Discipline>::LABEL,)*
                }
            }

            pub fn decides(&self) -> Decides {
                match self {
                    QueueSpec::$first(_) => <$fm::$ft as Discipline>::DECIDES,
                    $(QueueSpec::$v(_) => <$m::$t as Discipline>::DECIDES,)*
                }
            }

            pub fn fifo(&self) -> bool {
                match self {
                    QueueSpec::$first(_) => <$fm::$ft as Discipline>::FIFO,
                    $(QueueSpec::$v(_) => <$m::$t as Discipline>::FIFO,)*
                }
            }

            /// Whether each admitted packet's departure is known when it is admitted: a FIFO
            /// that decides at enqueue. A simulator may then schedule it at once.
            pub fn departure_known_on_admission(&self) -> bool {
                self.decides() == Decides::AtEnqueue && self.fifo()
            }

            pub fn keeps_average(&self) -> bool {
                match self {
                    QueueSpec::$first(_) => <$fm::$ft as Discipline>::KEEPS_AVERAGE,
                    $(QueueSpec::$v(_) => <$m::$t as Discipline>::KEEPS_AVERAGE,)*
                }
            }

            pub fn limit(&self) -> Limit {
                match self {
                    QueueSpec::$first(p) => <$fm::$ft as Discipline>::limit(p),
                    $(QueueSpec::$v(p) => <$m::$t as Discipline>::limit(p),)*
                }
            }

            pub fn marks_ecn(&self) -> bool {
                match self {
                    QueueSpec::$first(p) => <$fm::$ft as Discipline>::marks_ecn(p),
                    $(QueueSpec::$v(p) => <$m::$t as Discipline>::marks_ecn(p),)*
                }
            }

            pub fn timers_per_s(&self, flows: usize) -> f64 {
                match self {
                    QueueSpec::$first(p) => <$fm::$ft as Discipline>::timers_per_s(p, flows),
                    $(QueueSpec::$v(p) => <$m::$t as Discipline>::timers_per_s(p, flows),)*
                }
            }

            pub fn levels(&self) -> Vec<Level> {
                match self {
                    QueueSpec::$first(p) => <$fm::$ft as Discipline>::levels(p),
                    $(QueueSpec::$v(p) => <$m::$t as Discipline>::levels(p),)*
                }
            }

            /// The checks that need the link.
            pub fn check_on_link(&self, link: OnLink, keys: &mut dyn Keys) -> Read<()> {
                match self {
                    QueueSpec::$first(p) => <$fm::$ft as Discipline>::check_on_link(p, link, keys),
                    $(QueueSpec::$v(p) => <$m::$t as Discipline>::check_on_link(p, link, keys),)*
                }
            }

            /// The discipline, ready in front of a link of `rate` and `delay`; a bad parameter
            /// names its field.
            pub fn build(&self, rate: ::fairway_core::Rate, delay: ::fairway_core::Dur) -> Result<Qdisc, ParamError> {
                let link = OnLink { rate, delay };
                Ok(match self {
                    QueueSpec::$first(p) => Qdisc::$first(<$fm::$ft as Discipline>::build(p, link)?),
                    $(QueueSpec::$v(p) => Qdisc::$v(Box::new(<$m::$t as Discipline>::build(p, link)?)),)*
                })
            }
        }

        impl Qdisc {
            pub fn kind(&self) -> &'static str {
                match self {
                    Qdisc::$first(_) => <$fm::$ft as Discipline>::KIND,
                    $(Qdisc::$v(_) => <$m::$t as Discipline>::KIND,)*
                }
            }

            /// See [`Discipline::pass_through`].
            #[inline]
            pub fn pass_through(&mut self, meta: &PacketMeta) -> Option<Verdict> {
                match self {
                    Qdisc::$first(q) => Discipline::pass_through(q, meta),
                    $(Qdisc::$v(q) => Discipline::pass_through(&mut **q, meta),)*
                }
            }

            /// See [`Discipline::TRACKS_IDLE`].
            #[inline]
            pub fn tracks_idle(&self) -> bool {
                match self {
                    Qdisc::$first(_) => <$fm::$ft as Discipline>::TRACKS_IDLE,
                    $(Qdisc::$v(_) => <$m::$t as Discipline>::TRACKS_IDLE,)*
                }
            }

            /// See [`Discipline::DECIDES`].
            pub fn decides(&self) -> Decides {
                match self {
                    Qdisc::$first(_) => <$fm::$ft as Discipline>::DECIDES,
                    $(Qdisc::$v(_) => <$m::$t as Discipline>::DECIDES,)*
                }
            }

            /// See [`Discipline::FIFO`].
            pub fn fifo(&self) -> bool {
                match self {
                    Qdisc::$first(_) => <$fm::$ft as Discipline>::FIFO,
                    $(Qdisc::$v(_) => <$m::$t as Discipline>::FIFO,)*
                }
            }

            /// Whether each admitted packet's departure is known when it is admitted: a FIFO
            /// that decides at enqueue. A simulator may then schedule it at once.
            pub fn departure_known_on_admission(&self) -> bool {
                self.decides() == Decides::AtEnqueue && self.fifo()
            }

            /// See [`Discipline::DRAWS`].
            pub fn draws(&self) -> bool {
                match self {
                    Qdisc::$first(_) => <$fm::$ft as Discipline>::DRAWS,
                    $(Qdisc::$v(_) => <$m::$t as Discipline>::DRAWS,)*
                }
            }

            /// See [`Discipline::KEEPS_AVERAGE`].
            pub fn keeps_average(&self) -> bool {
                match self {
                    Qdisc::$first(_) => <$fm::$ft as Discipline>::KEEPS_AVERAGE,
                    $(Qdisc::$v(_) => <$m::$t as Discipline>::KEEPS_AVERAGE,)*
                }
            }
        }

        impl QueueDiscipline for Qdisc {
            #[inline]
            fn enqueue(&mut self, now: Time, meta: &PacketMeta, pkt: PacketRef, rng: &mut Rng) -> Verdict {
                match self {
                    Qdisc::$first(q) => q.enqueue(now, meta, pkt, rng),
                    $(Qdisc::$v(q) => q.enqueue(now, meta, pkt, rng),)*
                }
            }
            #[inline]
            fn dequeue(&mut self, now: Time) -> Option<Departure> {
                match self {
                    Qdisc::$first(q) => q.dequeue(now),
                    $(Qdisc::$v(q) => q.dequeue(now),)*
                }
            }
            fn take_dropped(&mut self) -> Option<Dropped> {
                match self {
                    Qdisc::$first(q) => q.take_dropped(),
                    $(Qdisc::$v(q) => q.take_dropped(),)*
                }
            }
            fn len(&self) -> usize {
                match self {
                    Qdisc::$first(q) => q.len(),
                    $(Qdisc::$v(q) => q.len(),)*
                }
            }
            fn bytes(&self) -> Bytes {
                match self {
                    Qdisc::$first(q) => q.bytes(),
                    $(Qdisc::$v(q) => q.bytes(),)*
                }
            }
            fn stats(&self) -> &QueueStats {
                match self {
                    Qdisc::$first(q) => q.stats(),
                    $(Qdisc::$v(q) => q.stats(),)*
                }
            }
            fn average_pkts(&self) -> Option<f64> {
                match self {
                    Qdisc::$first(q) => q.average_pkts(),
                    $(Qdisc::$v(q) => q.average_pkts(),)*
                }
            }
        }
    };
}

#[cfg(test)]
mod tests {
    use fairway_core::{Bytes, Dur, FlowId, PacketRef, Rate, Rng, Time};

    use crate::keys::{Keys, NoKeys, Read, Refused};
    use crate::{Class, Decides, PacketMeta, ParamError, Qdisc, QueueDiscipline, QueueSpec, KINDS};

    /// A reader that gives what a discipline may require and nothing else (CBT's class
    /// thresholds, D-CBT's packet counting), and records every key it was asked for.
    struct Thresholds(NoKeys, std::collections::BTreeSet<&'static str>);

    impl Keys for Thresholds {
        fn has(&self, key: &str) -> bool {
            matches!(key, "mm_th" | "udp_th" | "bytes" | "queue_in_bytes")
        }
        fn is_str(&self, _: &str) -> bool {
            false
        }
        fn int(&mut self, k: &'static str, a: i64, b: i64) -> Read<Option<i64>> {
            self.1.insert(k);
            self.0.int(k, a, b)
        }
        fn float(&mut self, key: &'static str) -> Read<Option<f64>> {
            self.1.insert(key);
            Ok(self.has(key).then_some(5.0))
        }
        fn boolean(&mut self, key: &'static str) -> Read<Option<bool>> {
            self.1.insert(key);
            Ok(self.has(key).then_some(false))
        }
        fn duration(&mut self, k: &'static str, p: bool) -> Read<Option<Dur>> {
            self.1.insert(k);
            self.0.duration(k, p)
        }
        fn size(&mut self, k: &'static str, p: bool) -> Read<Option<Bytes>> {
            self.1.insert(k);
            self.0.size(k, p)
        }
        fn text(&mut self, k: &'static str) -> Read<Option<String>> {
            self.1.insert(k);
            self.0.text(k)
        }
        fn refuse(&mut self, e: ParamError) -> Refused {
            self.0.refuse(e)
        }
        fn warn(&mut self, f: &'static str, m: String) {
            self.0.warn(f, m)
        }
    }

    fn built(kind: &str) -> (QueueSpec, Qdisc) {
        let spec = match QueueSpec::read(kind, &mut Thresholds(NoKeys::default(), Default::default())) {
            Some(Ok(s)) => s,
            other => panic!("{kind}: {other:?}"),
        };
        let q = spec.build(Rate::from_bps(10_000_000), Dur::from_millis(10)).unwrap();
        (spec, q)
    }

    #[test]
    fn kinds_are_unique_and_each_reads_and_builds_itself() {
        let mut seen = std::collections::HashSet::new();
        for &kind in KINDS {
            assert!(seen.insert(kind), "{kind} registered twice");
            let (spec, q) = built(kind);
            assert_eq!((spec.kind(), q.kind()), (kind, kind));
            assert_eq!((spec.decides(), spec.fifo(), spec.keeps_average()), (q.decides(), q.fifo(), q.keeps_average()));
            let keys = QueueSpec::keys_of(kind).unwrap();
            assert!(!keys.contains(&"kind"), "{kind}");
            assert!(keys.contains(&"limit"), "{kind}: every discipline's buffer is bounded by `limit`");
        }
        assert!(QueueSpec::read("no_such_kind", &mut NoKeys::default()).is_none());
    }

    /// A discipline reads exactly the keys it lists: a key listed and never read would be an
    /// "unknown key" that the error says is accepted; one read and not listed is missing from
    /// the list the error gives.
    #[test]
    fn each_discipline_reads_the_keys_it_lists() {
        for &kind in KINDS {
            let mut keys = Thresholds(NoKeys::default(), Default::default());
            assert!(matches!(QueueSpec::read(kind, &mut keys), Some(Ok(_))), "{kind}");
            let listed: std::collections::BTreeSet<&str> = QueueSpec::keys_of(kind).unwrap().into_iter().collect();
            assert_eq!(keys.1, listed, "{kind}");
        }
    }

    /// What each discipline says of itself holds when it runs: a burst from four flows into a
    /// 10 Mb/s link, served at the link's rate, with every fifth packet ECN-capable.
    #[test]
    fn each_discipline_behaves_as_it_says() {
        for &kind in KINDS {
            let (spec, mut q) = built(kind);
            let mut rng = Rng::from_seed(7);
            let untouched = Rng::from_seed(7);
            let (mut admitted, mut departed, mut dropped_later) = (vec![], vec![], 0);
            let mut t = Time::ZERO;
            for i in 0..3000u32 {
                let meta = PacketMeta {
                    size: Bytes(1000),
                    ecn_capable: i % 5 == 0,
                    flow: FlowId(i % 4),
                    class: [Class::Tcp, Class::Tagged, Class::Untagged][i as usize % 3],
                };
                if q.enqueue(t, &meta, PacketRef(i), &mut rng) != crate::Verdict::Drop(crate::DropReason::Overflow) {
                    admitted.push(i);
                }
                while q.take_dropped().is_some() {
                    dropped_later += 1;
                }
                // Two arrivals per departure: the queue builds until the discipline acts.
                if i % 2 == 1 {
                    t += Dur::from_micros(800);
                    if let Some(d) = q.dequeue(t) {
                        departed.push(d.pkt.0);
                    }
                    while q.take_dropped().is_some() {
                        dropped_later += 1;
                    }
                }
            }
            assert!(!departed.is_empty(), "{kind}");
            if spec.fifo() {
                assert!(departed.windows(2).all(|w| w[0] < w[1]), "{kind} says it is a FIFO");
            }
            if spec.decides() == Decides::AtEnqueue {
                assert_eq!(dropped_later, 0, "{kind} says it decides at enqueue");
            }
            if !q.draws() {
                assert_eq!(rng.next_u64(), untouched.clone().next_u64(), "{kind} says it never draws");
            }
            assert_eq!(q.average_pkts().is_some(), spec.keeps_average(), "{kind}");
            let s = q.stats();
            assert_eq!(s.arrivals_pkts, s.departures_pkts + s.drops() + q.len() as u64, "{kind}");
            if let crate::Limit::Packets(n) = spec.limit() {
                assert!(q.len() <= n as usize, "{kind}: {} waiting, limit {n}", q.len());
            }
        }
    }
}
