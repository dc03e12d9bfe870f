//! Fuzz targets that run on stable Rust. Each target takes arbitrary bytes and must neither panic
//! nor loop without end:
//!
//! - the wire decoders (UDPm, IFTP, UDP, TFRC data and feedback, DCCP, RTP, RFC 8888 feedback):
//!   whatever decodes must encode back to the same header;
//! - every endpoint (UDP, MApp, IFTP, TFRC, DCCP, and RTP with each of its controllers, sender
//!   and receiver), driven by the bytes read as
//!   a program: datagrams as raw bytes or as typed messages with arbitrary fields, time steps
//!   (Time::MAX among them), timeouts, start and stop; after every step the endpoint is polled
//!   until it has nothing to send, which must come within [`MAX_BURST`] datagrams;
//! - TCP, sender and sink together over a path the bytes make lossy, then lossless, on which
//!   the transfer must finish (tcp.rs);
//! - MApp, IFTP, TFRC, DCCP and RTP with each of its controllers, sender and receiver together
//!   in wire mode over such a path behind a drop-tail bottleneck, on which, once it is kind,
//!   the receiver must keep hearing (pair.rs);
//! - the scenario reader, on the bytes as a TOML file, then `check`'s estimate, and the run when
//!   the estimate is small.
//!
//! `fairway-fuzz` (src/main.rs) mutates a corpus (fuzz/corpus/<target>/) against these for a
//! time; tests/corpus.rs replays the corpus and the regressions on every `cargo test`.

pub mod pair;
pub mod tcp;

use fairway_core::{Bytes, Dur, Rate, Rng, Time};
use fairway_proto::dccp::packet::{AckVector, FeatureOp, FeatureOpt, PacketType};
use fairway_proto::dccp::{self, DccpConfig, DccpReceiver, DccpSender};
use fairway_proto::iftp::{self, IftpAck, IftpConfig, IftpData, IftpReceiver, IftpSender, Reading};
use fairway_proto::mapp::wire as udpm;
use fairway_proto::mapp::{MappConfig, MappReceiver, MappSender};
use fairway_proto::rtp::gcc::{Gcc, GccConfig};
use fairway_proto::rtp::header::RtpHeader;
use fairway_proto::rtp::nada::{Nada, NadaConfig};
use fairway_proto::rtp::rfc8888::{self, Ato, Ecn, Feedback, Report, StreamReport};
use fairway_proto::rtp::scream::{Scream, ScreamConfig};
use fairway_proto::rtp::synthetic::{SyntheticCodec, SyntheticCodecConfig};
use fairway_proto::rtp::{
    FeedbackInterval, RateController, RtpPacket, RtpReceiver, RtpReceiverConfig, RtpSender, RtpSenderConfig,
};
use fairway_proto::source::{Cbr, CbrConfig, Greedy};
use fairway_proto::tfrc::{self, TfrcConfig, TfrcData, TfrcFeedback, TfrcReceiver, TfrcSender};
use fairway_proto::udp::{UdpData, UdpReceiver, UdpSender};
use fairway_proto::{Arrival, Endpoint};

/// Datagrams an endpoint may send at one instant before the loop is called endless: a whole
/// window or frame is far fewer.
pub const MAX_BURST: usize = 100_000;

/// A fuzz target: a name (its corpus folder) and what it does with the bytes.
pub struct Target {
    pub name: &'static str,
    pub run: fn(&[u8]),
}

/// Every target.
pub const TARGETS: &[Target] = &[
    Target { name: "decode-udpm", run: decode_udpm },
    Target { name: "decode-iftp", run: decode_iftp },
    Target { name: "decode-udp", run: decode_udp },
    Target { name: "decode-tfrc", run: decode_tfrc },
    Target { name: "udp-sender", run: |b| drive(UdpSender::new(1, cbr(b)), b, udp_in_sender) },
    Target { name: "udp-receiver", run: |b| drive(UdpReceiver::new(1), b, udp_data) },
    Target { name: "mapp-sender", run: |b| drive(mapp_sender(), b, mapp_feedback) },
    Target { name: "mapp-receiver", run: |b| drive(MappReceiver::new(mapp_cfg()).unwrap(), b, mapp_data) },
    Target { name: "iftp-sender", run: |b| drive(iftp_sender(b), b, iftp_ack) },
    Target { name: "iftp-receiver", run: |b| drive(IftpReceiver::new(1), b, iftp_data) },
    Target { name: "tfrc-sender", run: |b| drive(tfrc_sender(b), b, tfrc_feedback) },
    Target { name: "tfrc-receiver", run: |b| drive(TfrcReceiver::new(tfrc_cfg(b)).unwrap(), b, tfrc_data) },
    Target { name: "decode-dccp", run: decode_dccp },
    Target { name: "dccp-sender", run: |b| drive(dccp_sender(b), b, dccp_packet) },
    Target { name: "dccp-receiver", run: |b| drive(DccpReceiver::new(dccp_cfg(b)).unwrap(), b, dccp_packet) },
    Target { name: "decode-rfc8888", run: decode_rfc8888 },
    Target { name: "decode-rtp", run: decode_rtp },
    Target {
        name: "rtp-sender-nada",
        run: |b| drive(rtp_sender(b, Box::new(Nada::new(NadaConfig::default()).unwrap())), b, rtp_feedback),
    },
    Target {
        name: "rtp-sender-scream",
        run: |b| drive(rtp_sender(b, Box::new(Scream::new(ScreamConfig::default()).unwrap())), b, rtp_feedback),
    },
    Target {
        name: "rtp-sender-gcc",
        run: |b| drive(rtp_sender(b, Box::new(Gcc::new(GccConfig::default()).unwrap())), b, rtp_feedback),
    },
    Target { name: "rtp-receiver", run: |b| drive(rtp_receiver(b), b, rtp_packet) },
    Target { name: "tcp", run: tcp::pair },
    Target {
        name: "tfrc-pair",
        // ns-2's flavour keeps ns-2's long silences (docs/semantics.md): each nofeedback expiry
        // halves its rate without a floor, and a report that raises the rate again moves
        // neither the send timer nor the nofeedback timer set at the old rate. Checked for
        // panics and loops only.
        run: |b| {
            let quiet = (tfrc_cfg(b).flavor == tfrc::Flavor::Rfc5348).then_some(QUIET);
            pair(b, tfrc_sender(b), TfrcReceiver::new(tfrc_cfg(b)).unwrap(), quiet, |_| false)
        },
    },
    Target {
        name: "dccp-pair",
        // ns-2's flavour keeps ns-2's dead ends (docs/semantics.md): a lost handshake Ack
        // leaves its server dropping every Data packet, and its RTO has no ceiling. Checked
        // for panics and loops only.
        run: |b| {
            let quiet = (dccp_cfg(b).flavor == dccp::Flavor::Rfc4341).then_some(QUIET);
            pair(b, dccp_sender(b), DccpReceiver::new(dccp_cfg(b)).unwrap(), quiet, |s| s.stats().reset)
        },
    },
    Target {
        name: "mapp-pair",
        run: |b| pair(b, mapp_sender(), MappReceiver::new(mapp_cfg()).unwrap(), Some(QUIET), |_| false),
    },
    Target { name: "iftp-pair", run: |b| pair(b, iftp_sender(b), IftpReceiver::new(1), Some(QUIET), |_| false) },
    Target {
        name: "rtp-pair-nada",
        run: |b| {
            pair(
                b,
                rtp_sender(b, Box::new(Nada::new(NadaConfig::default()).unwrap())),
                rtp_receiver(b),
                Some(QUIET),
                |_| false,
            )
        },
    },
    Target {
        name: "rtp-pair-scream",
        run: |b| {
            pair(
                b,
                rtp_sender(b, Box::new(Scream::new(ScreamConfig::default()).unwrap())),
                rtp_receiver(b),
                Some(QUIET),
                |_| false,
            )
        },
    },
    Target {
        name: "rtp-pair-gcc",
        run: |b| {
            pair(
                b,
                rtp_sender(b, Box::new(Gcc::new(GccConfig::default()).unwrap())),
                rtp_receiver(b),
                Some(QUIET),
                |_| false,
            )
        },
    },
    Target { name: "scenario", run: scenario },
];

/// Valid messages of each format, the seeds of the decoder targets' corpora (a random input
/// almost never gets past a checksum).
pub fn decoder_seeds() -> Vec<(&'static str, Vec<u8>)> {
    let mut out = vec![];
    let mut put = |target: &'static str, f: &dyn Fn(&mut Vec<u8>)| {
        let mut b = vec![];
        f(&mut b);
        out.push((target, b));
    };
    put("decode-udpm", &|b| {
        udpm::DataHeader {
            flow: 1,
            flags: 1,
            scale: 3,
            frag_index: 1,
            frag_count: 2,
            seq: 7,
            frame: 3,
            send_time_us: 9,
            rtt_us: 40_000,
        }
        .encode(b);
        b.extend_from_slice(&[0; 16]);
    });
    put("decode-udpm", &|b| {
        udpm::Feedback { flow: 1, scale: 2, highest_seq: 9, lost: 1, ..Default::default() }.encode(b)
    });
    put("decode-iftp", &|b| iftp::wire::DataHeader { flow: 1, seq: 5, send_time_us: 1000 }.encode(b));
    put("decode-iftp", &|b| iftp::wire::AckHeader { flow: 1, seq: 5, echo_time_us: 1000 }.encode(b));
    put("decode-udp", &|b| UdpSender::encode_data(&UdpData { flow: 1, seq: 3, sent_at: Time(5_000) }, Bytes(100), b));
    let d = TfrcData {
        flow: 1,
        seq: 4,
        ts: Time(2_000_000),
        rtt: Dur::from_millis(40),
        t_rto: Dur::from_millis(200),
        round: 2,
        urgent: false,
    };
    put("decode-tfrc", &|b| tfrc::wire::encode_data(&d, b));
    let f = TfrcFeedback {
        flow: 1,
        echo: Time(2_000_000),
        t_delay: Dur::from_micros(300),
        x_recv: 125_000.0,
        p: 0.01,
        loss_events: 1,
    };
    put("decode-tfrc", &|b| tfrc::wire::encode_feedback(&f, b));
    let mut p = dccp::Packet::new(PacketType::DataAck, 1, 40);
    p.ack = 9;
    p.options.features.push(FeatureOpt { op: FeatureOp::ChangeL, feature: 5, value: vec![0, 4] });
    p.options.ack_vector = Some(AckVector { nonce_echo: false, cells: vec![0x05, 0xc0, 0x02] });
    p.options.timestamp = Some(7);
    put("decode-dccp", &|b| dccp::wire::encode(&p, b));
    let mut q = dccp::Packet::new(PacketType::Request, 1, 0);
    q.service = dccp::SERVICE_CODE;
    q.options.features.push(FeatureOpt { op: FeatureOp::ChangeL, feature: 1, value: vec![2] });
    put("decode-dccp", &|b| dccp::wire::encode(&q, b));
    let fb = rfc8888::Feedback {
        sender_ssrc: 1,
        streams: vec![rfc8888::StreamReport {
            ssrc: 2,
            begin_seq: 65535,
            reports: vec![
                rfc8888::Report::Received { ecn: rfc8888::Ecn::Ect0, ato: rfc8888::Ato::Units(100) },
                rfc8888::Report::Lost,
                rfc8888::Report::Received { ecn: rfc8888::Ecn::Ce, ato: rfc8888::Ato::OverRange },
            ],
        }],
        report_timestamp: 0x1234_5678,
    };
    put("decode-rfc8888", &|b| fb.encode(b));
    let h = RtpHeader {
        padding: false,
        marker: true,
        payload_type: 96,
        seq: 65535,
        timestamp: 90_000,
        ssrc: 7,
        transport_seq: Some(3),
    };
    put("decode-rtp", &|b| {
        h.encode(b);
        b.extend_from_slice(b"frame");
    });
    out
}

/// The target named `name`.
pub fn target(name: &str) -> Option<&'static Target> {
    TARGETS.iter().find(|t| t.name == name)
}

/// Reads the input as a stream of numbers; past its end, zeros.
pub struct Reader<'a> {
    b: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    pub fn new(b: &'a [u8]) -> Reader<'a> {
        Reader { b, at: 0 }
    }
    pub fn done(&self) -> bool {
        self.at >= self.b.len()
    }
    pub fn u8(&mut self) -> u8 {
        let v = self.b.get(self.at).copied().unwrap_or(0);
        self.at += 1;
        v
    }
    pub fn u16(&mut self) -> u16 {
        u16::from_be_bytes([self.u8(), self.u8()])
    }
    pub fn u32(&mut self) -> u32 {
        u32::from_be_bytes([self.u8(), self.u8(), self.u8(), self.u8()])
    }
    pub fn u64(&mut self) -> u64 {
        (u64::from(self.u32()) << 32) | u64::from(self.u32())
    }
    pub fn bytes(&mut self, n: usize) -> &'a [u8] {
        let start = self.at.min(self.b.len());
        let end = (self.at + n).min(self.b.len());
        self.at += n;
        &self.b[start..end]
    }
}

// ---- decoders --------------------------------------------------------------------------------

fn decode_udpm(b: &[u8]) {
    if let Ok((m, payload)) = udpm::Message::decode(b) {
        let mut again = vec![];
        match m {
            udpm::Message::Data(h) => h.encode(&mut again),
            udpm::Message::Feedback(f) => f.encode(&mut again),
        }
        assert_eq!(again[..], b[..b.len() - payload.len()], "UDPm re-encodes as it came");
    }
}

fn decode_iftp(b: &[u8]) {
    if let Ok((m, payload)) = iftp::wire::Message::decode(b) {
        let mut again = vec![];
        m.encode(&mut again);
        assert_eq!(again[..], b[..b.len() - payload.len()], "IFTP re-encodes as it came");
    }
}

fn decode_udp(b: &[u8]) {
    let mut r = UdpReceiver::new(1);
    let before = r.stats();
    if r.handle_datagram(Time(1 << 40), b, Arrival::default()).is_err() {
        assert_eq!(r.stats(), before, "a refused datagram changes nothing");
    }
}

fn decode_tfrc(b: &[u8]) {
    let now = Time(1 << 40);
    if let Ok(d) = tfrc::wire::decode_data(b, 0, now) {
        let mut again = vec![];
        tfrc::wire::encode_data(&d, &mut again);
        // The sequence number is extended near 0 and a timestamp ahead of `now` reads as
        // `now` (wire_clock::extend_seq, wire_clock::recover_time), and the checksum covers both: the
        // fields carried as they are come back as they came.
        for i in (6..10).chain(18..again.len()) {
            assert_eq!(again[i], b[i], "TFRC data byte {i} re-encodes as it came");
        }
    }
    if let Ok(f) = tfrc::wire::decode_feedback(b, now) {
        assert!(f.x_recv >= 0.0 && f.x_recv.is_finite() && (0.0..=1.0).contains(&f.p));
    }
}

fn decode_dccp(b: &[u8]) {
    if let Ok(p) = dccp::wire::decode(b) {
        // What decodes re-encodes to a packet that decodes the same (the options' order and
        // padding may differ from what came in).
        let mut again = vec![];
        dccp::wire::encode(&p, &mut again);
        assert_eq!(dccp::wire::decode(&again).as_ref(), Ok(&p), "DCCP re-encodes to the same packet");
    }
}

fn decode_rfc8888(b: &[u8]) {
    if let Ok(f) = rfc8888::Feedback::decode(b) {
        // What decodes re-encodes to a report that decodes the same (a lost packet's other bits
        // and the alignment block may differ from what came in).
        let mut again = vec![];
        f.encode(&mut again);
        assert_eq!(again.len(), f.len());
        assert_eq!(rfc8888::Feedback::decode(&again).as_ref(), Ok(&f), "RFC 8888 re-encodes to the same report");
    }
}

fn decode_rtp(b: &[u8]) {
    if let Ok((h, payload)) = RtpHeader::decode(b) {
        // What decodes re-encodes (without what fairway does not write: CSRCs, other extension
        // elements; padding, when the P bit says there is some, as one byte counting itself) to
        // a packet that decodes to the same header and payload.
        let mut again = vec![];
        h.encode(&mut again);
        assert_eq!(again.len(), h.len());
        again.extend_from_slice(payload);
        if h.padding {
            again.push(1);
        }
        assert_eq!(RtpHeader::decode(&again), Ok((h, payload)), "RTP re-encodes to the same header");
    }
}

// ---- endpoints ------------------------------------------------------------------------------

/// Runs `e` through the program in `b`. Each step is one byte, its low three bits the step:
///
/// 0: a datagram of the next byte's length in raw bytes; 1: a typed message made by `forge`;
/// 2: time moves on by the next 32 bits in microseconds; 3: a timeout; 4: start; 5: stop;
/// 6: time jumps to Time::MAX; 7: time moves to what `poll_timeout` asks, and the timeout.
///
/// After every step the endpoint is polled until it sends nothing more.
pub fn drive<E: Endpoint>(mut e: E, b: &[u8], forge: fn(&mut Reader, Time) -> E::In) {
    let mut r = Reader::new(b);
    // The first bytes configure the endpoint (see each constructor); the program follows.
    let mut now = Time(u64::from(r.u32()));
    e.start(now);
    drain(&mut e, now);
    let mut steps = 0;
    while !r.done() && steps < 10_000 {
        steps += 1;
        let op = r.u8();
        let arrival = Arrival { ce: op & 0x80 != 0, size: Bytes(1000), payload: Bytes(960) };
        match op & 7 {
            0 => {
                let n = r.u8() as usize;
                let _ = e.handle_datagram(now, r.bytes(n), arrival);
            }
            1 => {
                let m = forge(&mut r, now);
                e.handle(now, &m, arrival);
            }
            2 => now = Time(now.0.saturating_add(u64::from(r.u32()) * 1_000)),
            3 => e.handle_timeout(now),
            4 => e.start(now),
            5 => e.stop(now),
            6 => now = Time::MAX,
            _ => {
                if let Some(t) = e.poll_timeout() {
                    now = now.max(t);
                }
                e.handle_timeout(now);
            }
        }
        drain(&mut e, now);
        let _ = e.stats();
    }
}

/// A sender and its receiver over a hostile, then kind path (pair.rs). The ends' settings come
/// from the first eight bytes (see each constructor), the path and its program after them; a
/// sender always has data, so a silence longer than two of the longest back-offs these
/// protocols have (64 s: RFC 5348's t_mbi, RFC 4340's Request interval) is a stall.
fn pair<S: Endpoint, R: Endpoint>(b: &[u8], s: S, r: R, quiet: Option<Dur>, ended: fn(&S) -> bool) {
    let mut reader = Reader::new(b.get(8..).unwrap_or(&[]));
    pair::run(s, r, &mut reader, quiet, ended);
}

/// The longest silence a pair target allows once its path is kind.
const QUIET: Dur = Dur::from_secs(130);

/// Polls until nothing is due; more than [`MAX_BURST`] datagrams at one instant is a loop.
fn drain<E: Endpoint>(e: &mut E, now: Time) {
    let mut out = vec![];
    for _ in 0..MAX_BURST {
        match e.poll_transmit(now) {
            Some(t) => {
                out.clear();
                e.encode(&t, &mut out);
            }
            None => return,
        }
    }
    panic!("still sending after {MAX_BURST} datagrams at {now:?}: an endless loop");
}

fn time(r: &mut Reader, now: Time) -> Time {
    // Near now mostly, anywhere sometimes.
    match r.u8() & 3 {
        0 => Time(r.u64()),
        _ => Time(now.0.saturating_sub(u64::from(r.u32()))),
    }
}

fn cbr(b: &[u8]) -> Box<Cbr> {
    let mut r = Reader::new(b.get(4..).unwrap_or(&[]));
    let cfg = CbrConfig {
        packet_size: Bytes(1 + u64::from(r.u8()) * 8),
        interval: Dur::from_micros(1 + u64::from(r.u32() % 1_000_000)),
        jitter: r.u8() & 1 == 1,
        max_packets: None,
        frame_interval: None,
    };
    Box::new(Cbr::new(cfg, Rng::from_seed(1)))
}

fn udp_in_sender(_: &mut Reader, _: Time) {}

fn udp_data(r: &mut Reader, now: Time) -> UdpData {
    UdpData { flow: u32::from(r.u8() & 1), seq: r.u64() >> (r.u8() & 63), sent_at: time(r, now) }
}

fn mapp_cfg() -> MappConfig {
    MappConfig { flow: 1, ..Default::default() }
}

fn mapp_sender() -> MappSender {
    MappSender::new(mapp_cfg(), Rng::from_seed(2)).unwrap()
}

fn mapp_feedback(r: &mut Reader, _: Time) -> udpm::Feedback {
    udpm::Feedback {
        flow: u32::from(r.u8() & 1),
        scale: r.u8(),
        flags: 0,
        echo_time_us: r.u32(),
        hold_us: r.u32(),
        highest_seq: r.u32(),
        lost: r.u32(),
        marked: r.u32(),
    }
}

fn mapp_data(r: &mut Reader, _: Time) -> udpm::DataHeader {
    let count = 1 + u16::from(r.u8() & 7);
    udpm::DataHeader {
        flow: u32::from(r.u8() & 1),
        flags: r.u8() & 1,
        scale: r.u8(),
        frag_index: u16::from(r.u8()) % count,
        frag_count: count,
        seq: r.u32(),
        frame: r.u32(),
        send_time_us: r.u32(),
        rtt_us: r.u32(),
    }
}

fn iftp_sender(b: &[u8]) -> IftpSender {
    let mut r = Reader::new(b.get(4..).unwrap_or(&[]));
    let cfg = IftpConfig {
        flow: 1,
        w_max: 1 + u32::from(r.u8() % 64),
        ssthresh: 1 + u32::from(r.u8() % 64),
        scale: [1.0, 0.5, 1.5, 3.0][usize::from(r.u8() & 3)],
        link_rate: Rate(1_000_000 + u64::from(r.u32() % 1_000_000_000)),
        reading: if r.u8() & 1 == 1 { Reading::Figure1 } else { Reading::Prose },
        ..Default::default()
    };
    IftpSender::new(cfg).unwrap()
}

fn iftp_ack(r: &mut Reader, now: Time) -> IftpAck {
    IftpAck { flow: u32::from(r.u8() & 1), seq: u64::from(r.u32() % 4096), echo: time(r, now) }
}

fn iftp_data(r: &mut Reader, now: Time) -> IftpData {
    IftpData { flow: u32::from(r.u8() & 1), seq: r.u64() >> (r.u8() & 63), sent_at: time(r, now) }
}

fn tfrc_cfg(b: &[u8]) -> TfrcConfig {
    let base = if b.get(4).is_some_and(|x| x & 1 == 1) { TfrcConfig::ns2() } else { TfrcConfig::rfc5348() };
    TfrcConfig { flow: 1, ..base }
}

fn tfrc_sender(b: &[u8]) -> TfrcSender {
    let cfg = tfrc_cfg(b);
    let size = cfg.packet_size;
    TfrcSender::new(cfg, Box::new(Greedy::new(size, None))).unwrap()
}

fn tfrc_feedback(r: &mut Reader, now: Time) -> TfrcFeedback {
    TfrcFeedback {
        flow: u32::from(r.u8() & 1),
        echo: time(r, now),
        t_delay: Dur::from_micros(u64::from(r.u32())),
        x_recv: f64::from(r.u32()) * [1.0, 1e-6, 1e6][usize::from(r.u8() % 3)],
        p: f64::from(r.u32()) / f64::from(u32::MAX),
        loss_events: r.u32(),
    }
}

fn tfrc_data(r: &mut Reader, now: Time) -> TfrcData {
    TfrcData {
        flow: u32::from(r.u8() & 1),
        seq: r.u64() >> (r.u8() & 63),
        ts: time(r, now),
        rtt: Dur::from_micros(u64::from(r.u32())),
        t_rto: Dur::from_micros(u64::from(r.u32())),
        round: r.u32(),
        urgent: r.u8() & 1 == 1,
    }
}

/// An RTP sender of stream 1 with `cc`, its encoder's frame rate and packet size from the bytes.
fn rtp_sender(b: &[u8], cc: Box<dyn RateController>) -> RtpSender {
    let mut r = Reader::new(b.get(4..).unwrap_or(&[]));
    let codec = SyntheticCodecConfig { fps: 1.0 + f64::from(r.u8()), ..SyntheticCodecConfig::default() };
    let codec = SyntheticCodec::new(codec, Rng::from_seed(1), Time::ZERO, Rate::from_bps(150_000)).unwrap();
    let cfg = RtpSenderConfig { ssrc: 1, max_payload: Bytes(1 + u64::from(r.u16())), ..RtpSenderConfig::default() };
    RtpSender::new(cfg, Box::new(codec), cc).unwrap()
}

/// A report on stream 1 (or another) of arbitrary blocks, arrival offsets and timestamp.
fn rtp_feedback(r: &mut Reader, _now: Time) -> Feedback {
    let n = usize::from(r.u8());
    let reports = (0..n)
        .map(|_| match r.u8() & 3 {
            0 => Report::Lost,
            k => Report::Received {
                ecn: [Ecn::NotEct, Ecn::Ect0, Ecn::Ce][usize::from(k - 1)],
                ato: match r.u8() & 7 {
                    0 => Ato::OverRange,
                    1 => Ato::Unavailable,
                    _ => Ato::Units(r.u16() & 0x1FFF),
                },
            },
        })
        .collect();
    let ssrc = u32::from(r.u8() & 1);
    Feedback {
        sender_ssrc: 2,
        streams: vec![StreamReport { ssrc: ssrc.max(1) + u32::from(r.u8() & 1), begin_seq: r.u16(), reports }],
        report_timestamp: r.u32(),
    }
}

fn rtp_receiver(b: &[u8]) -> RtpReceiver {
    let interval = match b.get(4).copied().unwrap_or(0) & 1 {
        0 => FeedbackInterval::Fixed(Dur::from_millis(1 + u64::from(b.get(5).copied().unwrap_or(0)))),
        _ => FeedbackInterval::MediaRate,
    };
    RtpReceiver::new(RtpReceiverConfig { ssrc: 1, own_ssrc: 2, interval, ecn: true }).unwrap()
}

fn rtp_packet(r: &mut Reader, _now: Time) -> RtpPacket {
    // One byte: the marker, and the padding bit (a probe's padding packet).
    let flags = r.u8();
    RtpPacket {
        header: RtpHeader {
            padding: flags & 2 == 2,
            marker: flags & 1 == 1,
            payload_type: 96,
            seq: r.u16(),
            timestamp: r.u32(),
            ssrc: 1 + u32::from(r.u8() & 1),
            transport_seq: Some(r.u16()),
        },
    }
}

fn dccp_cfg(b: &[u8]) -> DccpConfig {
    let base = if b.get(4).is_some_and(|x| x & 1 == 1) { DccpConfig::ns2() } else { DccpConfig::default() };
    // Bit 1 picks CCID3.
    let ccid = if b.get(4).is_some_and(|x| x & 2 == 2) { dccp::Ccid::Three } else { dccp::Ccid::Two };
    DccpConfig { flow: 1, ccid, ..base }
}

fn dccp_sender(b: &[u8]) -> DccpSender {
    DccpSender::new(dccp_cfg(b), Box::new(Greedy::new(Bytes(500), None)), fairway_core::Rng::from_seed(1)).unwrap()
}

/// A packet of any type with numbers near or far, any window counter, an Ack Vector of any
/// cells and CCID3's feedback options of any values.
fn dccp_packet(r: &mut Reader, _now: Time) -> dccp::Packet {
    let kind = PacketType::ALL[usize::from(r.u8()) % PacketType::ALL.len()];
    let mut p = dccp::Packet::new(kind, u32::from(r.u8() & 1), r.u64() >> (r.u8() & 63));
    p.ack = r.u64() >> (r.u8() & 63) & dccp::packet::SEQ_MASK;
    p.ccval = r.u8() & 0x0f;
    if r.u8() & 1 == 1 {
        p.options.elapsed_time = Some(r.u64() as u32 >> (r.u8() & 31));
        p.options.receive_rate = Some(r.u64() as u32 >> (r.u8() & 31));
        let n = usize::from(r.u8() % 29);
        let intervals = (0..n)
            .map(|_| {
                let v = r.u64();
                dccp::packet::LossIntervalOpt {
                    lossless_length: (v & 0xff_ffff) as u32,
                    nonce_echo: false,
                    loss_length: (v >> 24 & 0x7f_ffff) as u32,
                    data_length: (v >> 40 & 0xff_ffff) as u32,
                }
            })
            .collect();
        p.options.loss_intervals = Some(dccp::packet::LossIntervals { skip: 0, intervals });
    }
    if r.u8() & 1 == 1 {
        let n = usize::from(r.u8());
        p.options.ack_vector = Some(AckVector { nonce_echo: false, cells: r.bytes(n).to_vec() });
    }
    if r.u8() & 3 == 0 {
        let v = r.bytes(2).to_vec();
        p.options.features.push(FeatureOpt { op: FeatureOp::ConfirmR, feature: 5, value: v });
    }
    p
}

// ---- the scenario reader ----------------------------------------------------------------------

/// Events below which an accepted scenario is also run (a few milliseconds).
const RUN_EVENTS: f64 = 200_000.0;

fn scenario(b: &[u8]) {
    let text = String::from_utf8_lossy(b);
    let parsed = fairway_scenario::parse_scenario_warn("fuzz.toml", &text, "fuzz");
    let _ = fairway_scenario::sweep::has_sweep(&text);
    // What `check` does after the parse, and, when the estimate is small, the run itself: a
    // scenario check accepts must not make the estimate or the engine panic.
    if let Ok((sc, _)) = parsed {
        let f = fairway_scenario::estimate::estimate(&sc);
        let events = fairway_scenario::estimate::events(&sc);
        if events < RUN_EVENTS && f.memory() < 64 << 20 {
            let _ = fairway_engine::run(&sc, &fairway_engine::RunOptions::default(), &mut |_| {});
        }
    }
}
