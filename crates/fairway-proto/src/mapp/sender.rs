//! The MApp sender (kadhum2015 Fig. 2): start at scale 0, send frames at the current scale's
//! rate, switch to the scale the receiver's feedback names.
//!
//! Pacing is a timer expressed through [`MappSender::poll_timeout`] (kadhum2015 §3.1: "the
//! multimedia sender uses a timer for scheduling the next transmission of the data packet"),
//! as ns-2's MmApp does with its `snd_timer_`.

use super::wire::{DataHeader, Feedback, Message, DATA_HEADER_LEN, FLAG_MULTIMEDIA};
use fairway_core::wire_clock::{extend_seq, wire_elapsed_us, wire_time_us};
use fairway_core::{Bytes, Dur, Rate, Rng, Time};

use super::{FrameLayout, MappConfig, ParamError};
use crate::endpoint::{Arrival, Endpoint, Malformed, Transmit};

/// Counters of a sender.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct SenderStats {
    pub datagrams_sent: u64,
    /// Bytes on the wire (UDPm header + payload).
    pub bytes_sent: u64,
    pub frames_sent: u64,
    /// Feedback messages acted on.
    pub feedback_received: u64,
    /// Feedback of another flow, naming a datagram never sent, or older than feedback already
    /// acted on (reordered).
    pub feedback_ignored: u64,
    /// Data datagrams handed to the sender (it ignores them).
    pub data_ignored: u64,
    pub scale_changes: u64,
    pub rtt_samples: u64,
}

/// The frame being handed out datagram by datagram.
#[derive(Debug, Clone, Copy)]
struct FrameInProgress {
    number: u64,
    scale: u8,
    layout: FrameLayout,
    next_index: u16,
    started: Time,
}

/// The sending end of one MApp flow.
#[derive(Debug, Clone)]
pub struct MappSender {
    cfg: MappConfig,
    /// Only for jitter (ns-2 mm-app.cc `random_`).
    rng: Rng,
    running: bool,
    scale: u8,
    /// When the next frame is due (meaningful while running).
    next_send: Time,
    frame: Option<FrameInProgress>,
    next_seq: u64,
    next_frame: u64,
    /// Frame slots begun since the start (MPEG's position in its GOP).
    next_slot: u64,
    first_send: Option<Time>,
    srtt: Option<Dur>,
    /// Highest datagram the latest accepted feedback acknowledged (extended).
    fb_highest: Option<u64>,
    /// The latest `now` seen: time that goes backwards is treated as no time passing.
    clock: Time,
    stats: SenderStats,
    scale_log: Vec<(Time, u8)>,
}

impl MappSender {
    /// A stopped sender; `rng` draws only the jitter of the intervals.
    pub fn new(cfg: MappConfig, rng: Rng) -> Result<MappSender, ParamError> {
        cfg.validate()?;
        Ok(MappSender {
            cfg,
            rng,
            running: false,
            scale: 0,
            next_send: Time::ZERO,
            frame: None,
            next_seq: 0,
            next_frame: 0,
            next_slot: 0,
            first_send: None,
            srtt: None,
            fb_highest: None,
            clock: Time::ZERO,
            stats: SenderStats::default(),
            scale_log: vec![],
        })
    }

    fn tick(&mut self, now: Time) -> Time {
        self.clock = self.clock.max(now);
        self.clock
    }

    pub fn is_running(&self) -> bool {
        self.running
    }

    /// Acts on a feedback message: an RTT sample, and the scale the receiver expects next.
    pub fn handle_feedback(&mut self, now: Time, fb: &Feedback) {
        let now = self.tick(now);
        if fb.flow != self.cfg.flow || self.next_seq == 0 {
            self.stats.feedback_ignored += 1;
            return;
        }
        let sent_highest = self.next_seq - 1;
        let acked = extend_seq(sent_highest, fb.highest_seq);
        if acked > sent_highest || self.fb_highest.is_some_and(|h| acked < h) {
            // Names a datagram never sent, or is older than feedback already acted on.
            self.stats.feedback_ignored += 1;
            return;
        }
        self.fb_highest = Some(acked);
        self.stats.feedback_received += 1;

        // RTT = now - echo - hold, on the wrapping 32-bit microsecond clock (wire.rs). The echo
        // must be one of our send times: not in the future, not before the first send.
        let elapsed = wire_elapsed_us(wire_time_us(now.0), fb.echo_time_us);
        let since_first = self.first_send.map_or(0, |t| (now - t).0 / 1_000 + 1);
        if elapsed < 1 << 31 && u64::from(elapsed) <= since_first && fb.hold_us <= elapsed {
            let sample = Dur::from_micros(u64::from(elapsed - fb.hold_us));
            self.srtt = Some(match self.srtt {
                // RFC 6298 §2 (2.2): the first measurement R gives SRTT <- R.
                None => sample,
                // RFC 6298 §2 (2.3): SRTT <- (1 - alpha) SRTT + alpha R', alpha = 1/8
                // (in integer nanoseconds: (7 SRTT + R') / 8, rounded down).
                Some(s) => Dur(((7 * s.0 as u128 + sample.0 as u128) / 8) as u64),
            });
            self.stats.rtt_samples += 1;
        }

        // kadhum2015 Fig. 2 / §2.2: "the sender has to change its transmission rates according to
        // the rate value announced by the receiver" (ns-2 mm-app.cc set_scale); a scale beyond
        // the table is clamped to its top. The pending timer is kept: the new rate applies from
        // the next frame's scheduling, as in MmApp (next_snd_time recomputes the interval).
        let scale = self.cfg.table.clamp(fb.scale);
        // Without flow control (chung-dcbt §5, run (a)) the sender keeps its top scale.
        if self.cfg.flow_control && scale != self.scale {
            self.scale = scale;
            self.stats.scale_changes += 1;
            self.log_scale(now);
        }
    }

    fn start_due_frame(&mut self, now: Time) {
        if !self.running || self.frame.is_some() || now < self.next_send {
            return;
        }
        let rate = self.rate();
        // One frame per interval; with MPEG, per frame slot, which the scale's policy may skip
        // (chung-dcbt §5: "determines whether or not to transmit this frame using the current
        // scale value and the transmission policy").
        let (layout, interval) = self.cfg.pacing.frame(self.scale, rate, self.next_slot);
        self.next_slot += 1;
        if let Some(layout) = layout {
            self.frame = Some(FrameInProgress {
                number: self.next_frame,
                scale: self.scale,
                layout,
                next_index: 0,
                started: now,
            });
            self.next_frame += 1;
            self.stats.frames_sent += 1;
        }
        // ns-2 mm-app.cc next_snd_time: interval_ = pktsize_ x 8 / rate[scale_] (or the fixed
        // frame interval), plus interval_ x U(-0.5, 0.5) when random_.
        let gap = if self.cfg.jitter {
            let factor = 1.0 + self.rng.uniform_range(-0.5, 0.5);
            Dur((interval.0 as f64 * factor).round() as u64).max(Dur(1))
        } else {
            interval
        };
        // Keep the schedule when woken a little late; a missed frame is not made up later.
        let next = self.next_send + gap;
        self.next_send = if next <= now { now + gap } else { next };
        if self.next_send <= now {
            // The clock is at its end (`now + gap` saturated): no later frame can be scheduled,
            // and another at `now` would follow forever.
            self.running = false;
        }
    }

    /// Notes the scale in effect from `now`, if it changed.
    fn log_scale(&mut self, now: Time) {
        if self.scale_log.last().is_none_or(|&(_, s)| s != self.scale) {
            self.scale_log.push((now, self.scale));
        }
    }

    /// The scale over time: (when it took effect, scale), from the first start.
    pub fn scale_log(&self) -> &[(Time, u8)] {
        &self.scale_log
    }

    /// The current scale value.
    pub fn scale(&self) -> u8 {
        self.scale
    }

    /// The on-the-wire rate of the current scale.
    pub fn rate(&self) -> Rate {
        self.cfg.table.rate(self.scale)
    }

    /// The smoothed RTT, once a feedback message has given a sample.
    pub fn srtt(&self) -> Option<Dur> {
        self.srtt
    }

    pub fn config(&self) -> &MappConfig {
        &self.cfg
    }
}

impl Endpoint for MappSender {
    type In = Feedback;
    type Out = DataHeader;
    type Stats = SenderStats;

    /// Starts sending: the first frame is due at once, at scale 0 (kadhum2015 §2.2: "the
    /// multimedia source (sender) starts its transmission rate that is mapped to scale 0"; ns-2
    /// mm-app.cc start(): init() then send_mm_pkt()). A restart after [`stop`](Self::stop) also
    /// begins at scale 0, but sequence and frame numbers continue (MmApp resets them to 0, which a
    /// receiver would take for late datagrams).
    fn start(&mut self, now: Time) {
        let now = self.tick(now);
        if self.running {
            return;
        }
        self.running = true;
        // ns-2 mm-app.cc init(): scale_ = 0; without flow control, the top scale throughout.
        self.scale = if self.cfg.flow_control { 0 } else { self.cfg.table.top() };
        // A (re)start begins a GOP.
        self.next_slot = 0;
        self.next_send = now;
        self.log_scale(now);
    }

    /// Stops sending (ns-2 mm-app.cc stop(): running_ = 0). The datagrams of a frame already
    /// begun are still handed out.
    fn stop(&mut self, now: Time) {
        self.tick(now);
        self.running = false;
    }

    /// Feedback: [`handle_feedback`](MappSender::handle_feedback).
    fn handle(&mut self, now: Time, fb: &Feedback, _arrival: Arrival) {
        self.handle_feedback(now, fb);
    }

    /// Decodes one datagram from the receiver and acts on it. Data sent to a sender is ignored.
    fn handle_datagram(&mut self, now: Time, bytes: &[u8], _arrival: Arrival) -> Result<(), Malformed> {
        match Message::decode(bytes).map_err(Malformed::from)?.0 {
            Message::Feedback(fb) => self.handle_feedback(now, &fb),
            Message::Data(_) => {
                self.tick(now);
                self.stats.data_ignored += 1;
            }
        }
        Ok(())
    }

    /// Starts the frame that is due, if any.
    fn handle_timeout(&mut self, now: Time) {
        let now = self.tick(now);
        self.start_due_frame(now);
    }

    /// The next datagram to send, if one is due.
    fn poll_transmit(&mut self, now: Time) -> Option<Transmit<DataHeader>> {
        let now = self.tick(now);
        if self.frame.is_none() {
            self.start_due_frame(now);
        }
        let fr = self.frame.as_mut()?;
        let index = fr.next_index;
        let (number, scale, layout) = (fr.number, fr.scale, fr.layout);
        fr.next_index += 1;
        if fr.next_index >= layout.fragments {
            self.frame = None;
        }
        let header = DataHeader {
            flow: self.cfg.flow,
            // kadhum2015 §5: multimedia packets "identified (or labeled) by transport layer".
            flags: if self.cfg.multimedia_tag { FLAG_MULTIMEDIA } else { 0 },
            scale,
            frag_index: index,
            frag_count: layout.fragments,
            seq: self.next_seq as u32,
            frame: number as u32,
            send_time_us: wire_time_us(now.0),
            // The receiver paces its once-per-RTT decisions with this (wire.rs); 0 = unknown.
            rtt_us: self.srtt.map_or(0, |s| (s.0 / 1_000).clamp(1, u32::MAX as u64) as u32),
        };
        let len = layout.fragment_len(index);
        self.next_seq += 1;
        self.first_send.get_or_insert(now);
        self.stats.datagrams_sent += 1;
        self.stats.bytes_sent += len.0;
        let payload = Bytes(len.0.saturating_sub(DATA_HEADER_LEN as u64));
        Some(Transmit { size: len, payload, ect: self.cfg.ect, tagged: self.cfg.multimedia_tag, msg: header })
    }

    /// When to call [`handle_timeout`](Self::handle_timeout) next: the next frame's time, or a
    /// past time while datagrams of the current frame wait to be polled.
    fn poll_timeout(&self) -> Option<Time> {
        match (&self.frame, self.running) {
            (Some(f), _) => Some(f.started),
            (None, true) => Some(self.next_send),
            (None, false) => None,
        }
    }

    /// Writes a datagram as it goes on the wire: its header, then zero bytes up to its size.
    fn stats(&self) -> SenderStats {
        self.stats
    }

    fn encode(&self, t: &Transmit<DataHeader>, out: &mut Vec<u8>) {
        let start = out.len();
        t.msg.encode(out);
        out.resize(start + (t.size.0 as usize).max(DATA_HEADER_LEN), 0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::endpoint::{Arrival, Endpoint};
    use crate::mapp::{Pacing, ScaleTable};
    use fairway_core::Bytes;

    const MS: u64 = 1_000_000;

    fn sender(cfg: MappConfig) -> MappSender {
        MappSender::new(cfg, Rng::from_seed(1)).unwrap()
    }

    /// Runs the sender's timer until `end`, returning every datagram with its send time.
    fn run(s: &mut MappSender, end: Time) -> Vec<(Time, Transmit<DataHeader>)> {
        let mut out = vec![];
        while let Some(t) = s.poll_timeout() {
            if t > end {
                break;
            }
            s.handle_timeout(t);
            while let Some(d) = s.poll_transmit(t) {
                out.push((t, d));
            }
        }
        out
    }

    fn fb(scale: u8, echo: u32, hold: u32, highest: u32) -> Feedback {
        Feedback {
            flow: 0,
            scale,
            flags: 0,
            echo_time_us: echo,
            hold_us: hold,
            highest_seq: highest,
            lost: 0,
            marked: 0,
        }
    }

    #[test]
    fn constant_size_interval_per_scale_is_exact() {
        let mut s = sender(MappConfig::default());
        s.start(Time(0));
        let sent = run(&mut s, Time(200 * MS));
        // Scale 0: 1000 B at 160 kb/s = every 50 ms from t = 0.
        let times: Vec<u64> = sent.iter().map(|(t, _)| t.0 / MS).collect();
        assert_eq!(times, [0, 50, 100, 150, 200]);
        assert!(sent.iter().all(|(_, d)| d.size == Bytes(1000) && d.msg.frag_count == 1 && d.msg.scale == 0));
        for k in 1..10u8 {
            s.handle_feedback(Time(200 * MS), &fb(k, 0, 0, 4));
            assert_eq!(s.scale(), k);
            let from = s.poll_timeout().unwrap();
            let sent = run(&mut s, from + Dur::from_secs(1));
            // The pending frame keeps its time; from then on frames are interval(k) apart.
            let want = Pacing::default().interval(ScaleTable::kadhum2015().rate(k));
            for w in sent.windows(2).skip(1) {
                assert_eq!(w[1].0 - w[0].0, want, "scale {k}");
            }
            assert!(sent.iter().skip(1).all(|(_, d)| d.msg.scale == k));
        }
        assert_eq!(Pacing::default().interval(Rate(1_600_000)), Dur::from_millis(5));
    }

    fn mpeg(flow_control: bool) -> MappConfig {
        let g = crate::mapp::Gop::chung_figure7();
        MappConfig { table: g.table(), pacing: Pacing::Mpeg(g), flow_control, ..Default::default() }
    }

    /// (slot, frame number, fragments) of each frame sent up to `end`.
    fn frames(sent: &[(Time, Transmit<DataHeader>)]) -> Vec<(u64, u32, u16)> {
        let slot = 1_000_000_000 / 30;
        sent.iter()
            .filter(|(_, d)| d.msg.frag_index == 0)
            .map(|(t, d)| (t.0 / slot, d.msg.frame, d.msg.frag_count))
            .collect()
    }

    #[test]
    fn mpeg_sends_the_frames_its_scale_keeps_one_slot_apart_numbered_as_sent() {
        // Scale 0 (chung-dcbt Figure 7(b)): the I frame of each 9-slot GOP, 8 datagrams each.
        let mut s = sender(mpeg(true));
        s.start(Time(0));
        let sent = run(&mut s, Time(999 * MS));
        assert_eq!(frames(&sent), [(0, 0, 8), (9, 1, 8), (18, 2, 8), (27, 3, 8)]);
        assert!(sent.iter().all(|(_, d)| d.size.0 <= 1500 && d.msg.scale == 0 && d.tagged));
        // Scale 2 from slot 30 on (the slots up to 29 are past at 999 ms): I P P of each GOP,
        // positions 0, 3 and 6, in 8, 6 and 6 datagrams; slot 30 is position 3.
        let last = sent.last().unwrap().1.msg.seq;
        s.handle_feedback(Time(999 * MS), &fb(2, 0, 0, last));
        let sent = run(&mut s, Time(1_300 * MS));
        assert_eq!(frames(&sent), [(30, 4, 6), (33, 5, 6), (36, 6, 8), (39, 7, 6)]);
    }

    #[test]
    fn mpeg_without_flow_control_sends_everything_whatever_the_receiver_says() {
        // chung-dcbt §5 run (a): at the top scale throughout, 39 000 B of frames per 0.3 s GOP.
        let mut s = sender(mpeg(false));
        s.start(Time(0));
        let sent = run(&mut s, Time(290 * MS));
        assert_eq!(frames(&sent).len(), 9);
        let last = sent.last().unwrap().1.msg.seq;
        s.handle_feedback(Time(290 * MS), &fb(0, 0, 0, last));
        assert_eq!(s.scale(), 4, "the named scale is ignored");
        assert_eq!(s.stats().feedback_received, 1, "the feedback was still acted on (RTT)");
        let sent = run(&mut s, Time(590 * MS));
        assert_eq!(frames(&sent).len(), 9);
        let payload: u64 = sent.iter().map(|(_, d)| d.payload.0).sum();
        assert_eq!(payload, 39_000);
    }

    #[test]
    fn constant_rate_frames_split_into_fragments_with_the_table_rate_on_the_wire() {
        let cfg = MappConfig {
            table: ScaleTable::chung_mm_app(),
            pacing: Pacing::ConstantRate { interval: Dur::from_millis(20), max_datagram: Bytes(1200) },
            ..Default::default()
        };
        let mut s = sender(cfg);
        s.start(Time(0));
        s.handle_feedback(Time(0), &fb(0, 0, 0, 0)); // nothing sent yet: ignored
        assert_eq!(s.stats().feedback_ignored, 1);
        let first = run(&mut s, Time(0));
        assert_eq!(first.len(), 1, "300 kb/s x 20 ms = 750 B: one datagram");
        assert_eq!(first[0].1.size, Bytes(750));
        s.handle_feedback(Time(MS), &fb(4, 0, 0, 0));
        let sent = run(&mut s, Time(60 * MS));
        // Frames at 20, 40, 60 ms; 1.1 Mb/s x 20 ms = 2750 B in 3 datagrams of 917, 917, 916.
        assert_eq!(sent.len(), 9);
        for (k, (t, d)) in sent.iter().enumerate() {
            let h = d.msg;
            assert_eq!(t.0, (20 + 20 * (k as u64 / 3)) * MS);
            assert_eq!((h.frame, h.frag_index, h.frag_count, h.seq), (1 + k as u32 / 3, k as u16 % 3, 3, 1 + k as u32));
            assert_eq!(d.size.0, [917, 917, 916][k % 3]);
            assert_eq!(h.scale, 4);
        }
        let wire_bits: u64 = sent.iter().map(|(_, d)| d.size.bits()).sum();
        assert_eq!(wire_bits, 3 * 1_100_000 / 50, "three frames of 20 ms at the table's rate");
        assert_eq!(s.stats().frames_sent, 4);
        assert_eq!(s.stats().datagrams_sent, 10);
    }

    #[test]
    fn jitter_stays_within_half_an_interval_and_is_reproducible() {
        let cfg = MappConfig { jitter: true, ..Default::default() };
        let gaps = |seed| {
            let mut s = MappSender::new(cfg.clone(), Rng::from_seed(seed)).unwrap();
            s.start(Time(0));
            let sent = run(&mut s, Time::from_secs_f64(100.0));
            sent.windows(2).map(|w| (w[1].0 - w[0].0).0).collect::<Vec<u64>>()
        };
        let a = gaps(7);
        assert!(a.len() > 1000);
        let nominal = 50 * MS;
        assert!(a.iter().all(|&g| g >= nominal / 2 && g <= nominal * 3 / 2), "within +-50%");
        let (lo, hi) = (a.iter().min().unwrap(), a.iter().max().unwrap());
        assert!(*lo < nominal * 11 / 20 && *hi > nominal * 29 / 20, "spread over the range: {lo} {hi}");
        let mean = a.iter().sum::<u64>() as f64 / a.len() as f64;
        assert!((mean / nominal as f64 - 1.0).abs() < 0.03, "mean interval {mean}");
        assert_eq!(a, gaps(7), "same seed, same schedule");
        assert_ne!(a, gaps(8));
    }

    #[test]
    fn scale_switches_on_feedback_and_clamps() {
        let mut s = sender(MappConfig { table: ScaleTable::chung_mm_app(), ..Default::default() });
        s.start(Time(0));
        run(&mut s, Time(0));
        s.handle_feedback(Time(MS), &fb(3, 0, 0, 0));
        assert_eq!((s.scale(), s.rate()), (3, Rate(900_000)));
        s.handle_feedback(Time(2 * MS), &fb(200, 0, 0, 0));
        assert_eq!((s.scale(), s.rate()), (4, Rate(1_100_000)), "clamped to the top");
        s.handle_feedback(Time(3 * MS), &fb(0, 0, 0, 0));
        assert_eq!(s.scale(), 0);
        assert_eq!(s.stats().scale_changes, 3);
        // Other flows, acknowledgements of datagrams never sent, and reordered feedback.
        s.handle_feedback(Time(4 * MS), &Feedback { flow: 9, scale: 2, ..fb(2, 0, 0, 0) });
        s.handle_feedback(Time(4 * MS), &fb(2, 0, 0, 5));
        assert_eq!(s.scale(), 0);
        let sent = run(&mut s, Time(200 * MS));
        let last = sent.last().unwrap().1.msg.seq;
        s.handle_feedback(Time(200 * MS), &fb(2, 0, 0, last));
        s.handle_feedback(Time(201 * MS), &fb(1, 0, 0, last - 1));
        assert_eq!(s.scale(), 2, "older feedback arriving late is ignored");
        assert_eq!(s.stats().feedback_ignored, 3);
    }

    #[test]
    fn rtt_is_measured_with_the_hold_subtracted_and_smoothed() {
        let mut s = sender(MappConfig::default());
        s.start(Time(1_000 * MS));
        let d = s.poll_transmit(Time(1_000 * MS)).unwrap();
        assert_eq!(d.msg.rtt_us, 0, "unknown until a sample");
        assert_eq!(d.msg.send_time_us, 1_000_000);
        // Echo of the 1 s send, held 100 ms at the receiver, back at 1.3 s: 200 ms.
        s.handle_feedback(Time(1_300 * MS), &fb(0, 1_000_000, 100_000, 0));
        assert_eq!(s.srtt(), Some(Dur::from_millis(200)));
        let d = run(&mut s, Time(1_300 * MS)).pop().unwrap().1;
        assert_eq!(d.msg.rtt_us, 200_000);
        // A 100 ms sample: 7/8 x 200 + 1/8 x 100 = 187.5 ms.
        s.handle_feedback(Time(1_400 * MS), &fb(0, 1_250_000, 50_000, d.msg.seq));
        assert_eq!(s.srtt(), Some(Dur(187_500_000)));
        // A hold longer than the time since the echoed send gives no sample.
        s.handle_feedback(Time(1_401 * MS), &fb(0, 1_400_000, 5_000, d.msg.seq));
        // An echo from the future or before the first send gives none either.
        s.handle_feedback(Time(1_402 * MS), &fb(0, 1_500_000, 0, d.msg.seq));
        s.handle_feedback(Time(1_403 * MS), &fb(0, 900_000, 0, d.msg.seq));
        assert_eq!(s.srtt(), Some(Dur(187_500_000)));
        assert_eq!(s.stats().rtt_samples, 2);
    }

    #[test]
    fn rtt_survives_the_wrap_of_the_microsecond_clock() {
        let mut s = sender(MappConfig::default());
        let t0 = Time(((1u64 << 32) - 50_000) * 1_000); // 50 ms before the 32-bit us clock wraps
        s.start(t0);
        let d = s.poll_transmit(t0).unwrap();
        assert_eq!(d.msg.send_time_us, u32::MAX - 49_999);
        // Back 120 ms later (the clock reads 70 000 us), held 20 ms: 100 ms.
        let back = t0 + Dur::from_millis(120);
        assert_eq!(wire_time_us(back.0), 70_000);
        s.handle_feedback(back, &fb(0, d.msg.send_time_us, 20_000, 0));
        assert_eq!(s.srtt(), Some(Dur::from_millis(100)));
    }

    #[test]
    fn headers_carry_flow_tag_ect_and_rtt() {
        let cfg = MappConfig { flow: 42, ect: true, ..Default::default() };
        let mut s = sender(cfg.clone());
        s.start(Time(0));
        let d = s.poll_transmit(Time(0)).unwrap();
        assert!(d.ect && d.msg.is_multimedia() && d.msg.flags == FLAG_MULTIMEDIA);
        assert_eq!((d.msg.flow, d.msg.seq, d.msg.frame), (42, 0, 0));
        let mut s = sender(MappConfig { multimedia_tag: false, ect: false, ..cfg });
        s.start(Time(0));
        let d = s.poll_transmit(Time(0)).unwrap();
        assert!(!d.ect && d.msg.flags == 0);
        let mut b = vec![];
        s.encode(&d, &mut b);
        assert_eq!(b.len(), 1000);
        assert_eq!(Message::decode(&b).unwrap().0, Message::Data(d.msg));
    }

    #[test]
    fn stop_start_late_and_backward_calls() {
        let mut s = sender(MappConfig::default());
        assert_eq!(s.poll_timeout(), None);
        assert!(s.poll_transmit(Time(0)).is_none(), "not started");
        s.start(Time(0));
        assert_eq!(run(&mut s, Time(100 * MS)).len(), 3);
        // Early: nothing is due.
        s.handle_timeout(Time(120 * MS));
        assert!(s.poll_transmit(Time(120 * MS)).is_none());
        // Late by 10 ms: one frame, and the schedule keeps its 50 ms grid.
        assert!(s.poll_transmit(Time(160 * MS)).is_some());
        assert_eq!(s.poll_timeout(), Some(Time(200 * MS)));
        // Late by more than an interval: one frame, no burst to catch up.
        assert!(s.poll_transmit(Time(330 * MS)).is_some());
        assert!(s.poll_transmit(Time(330 * MS)).is_none());
        assert_eq!(s.poll_timeout(), Some(Time(380 * MS)));
        // Time going backwards is no time passing.
        s.handle_timeout(Time(10 * MS));
        assert!(s.poll_transmit(Time(10 * MS)).is_none());
        s.handle_feedback(Time(400 * MS), &fb(5, 0, 0, 4));
        s.stop(Time(400 * MS));
        assert_eq!(s.poll_timeout(), None);
        assert!(s.poll_transmit(Time(1_000 * MS)).is_none());
        s.start(Time(1_000 * MS));
        let d = s.poll_transmit(Time(1_000 * MS)).unwrap();
        assert_eq!((d.msg.scale, d.msg.seq, d.msg.frame), (0, 5, 5), "restart at scale 0, numbering goes on");
    }

    #[test]
    fn datagrams_in_are_decoded_and_data_is_ignored() {
        let mut s = sender(MappConfig::default());
        s.start(Time(0));
        let d = s.poll_transmit(Time(0)).unwrap();
        let mut b = vec![];
        fb(3, 0, 0, 0).encode(&mut b);
        s.handle_datagram(Time(MS), &b, Arrival::default()).unwrap();
        assert_eq!(s.scale(), 3);
        let mut b = vec![];
        s.encode(&d, &mut b);
        s.handle_datagram(Time(MS), &b, Arrival::default()).unwrap();
        assert_eq!(s.stats().data_ignored, 1);
        assert!(s.handle_datagram(Time(MS), &[1, 1, 0], Arrival::default()).is_err());
        assert_eq!(s.scale(), 3);
    }
}
