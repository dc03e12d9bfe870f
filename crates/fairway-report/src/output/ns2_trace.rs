//! Packet events as lines of ns-2's trace format (ns-2 2.35 trace/trace.cc, `Trace::format`
//! without TCP headers shown), so that awk scripts written for `$ns trace-all` read them:
//!
//! `event time from to type size flags fid src.port dst.port seq uid`
//!
//! `from` and `to` are the link's nodes and `src`, `dst` the flow's ends, as node numbers in the
//! scenario's order of nodes; `fid` is the flow's number in scenario order. Ports are 0 but for a
//! web flow's sessions, whose source port is the session's number.

use fairway_model::packet_trace::PacketEvent;
use fairway_model::scenario::{AppSpec, Scenario};

/// Per flow, what its lines say of it.
pub struct FlowLabels {
    /// ns-2's packet type names for its data and for its acknowledgements or feedback.
    pub data: String,
    pub back: String,
    pub from: usize,
    pub to: usize,
    /// A DCCP flow: each packet is named by its type.
    pub dccp: bool,
}

/// ns-2's name of a DCCP packet of RFC 4340 §5.1's type `t` (packet.h: DCCP_Request ...
/// DCCP_Reset; ns-2 has no Sync or SyncAck and names them by the protocol).
fn dccp_name(t: u8) -> &'static str {
    match t {
        0 => "DCCP_Request",
        1 => "DCCP_Response",
        2 => "DCCP_Data",
        3 => "DCCP_Ack",
        4 => "DCCP_DataAck",
        5 => "DCCP_CloseReq",
        6 => "DCCP_Close",
        7 => "DCCP_Reset",
        _ => "DCCP",
    }
}

/// ns-2's names where ns-2 has the protocol (packet.h's `packet_info`): `tcp` and `ack`, `cbr`
/// for CBR over UDP, `tcpFriend` and `tcpFriendCtl` for TFRC, DCCP's by each packet's type
/// (`DCCP_Request`, `DCCP_Response`, `DCCP_Data`, `DCCP_Ack`, `DCCP_DataAck`, ...); other
/// datagram protocols by their transport's name, their feedback with `_fb` after it.
pub fn flow_labels(sc: &Scenario) -> Vec<FlowLabels> {
    sc.flows
        .iter()
        .map(|f| {
            let (data, back) = match &f.app {
                AppSpec::Datagram(d) => match (d.spec.transport(), d.spec.app()) {
                    ("udp", "cbr") => ("cbr", "udp"),
                    ("udp", _) => ("udp", "udp"),
                    ("tfrc" | "tfrc-sp", _) => ("tcpFriend", "tcpFriendCtl"),
                    ("ccid2" | "ccid3", _) => ("DCCP_Data", "DCCP_Ack"),
                    (t, _) => (t, ""),
                },
                AppSpec::Ftp { .. } | AppSpec::Transfer { .. } | AppSpec::Web { .. } => ("tcp", "ack"),
            };
            let back = if back.is_empty() { format!("{data}_fb") } else { back.to_string() };
            let dccp = data == "DCCP_Data";
            FlowLabels { data: data.to_string(), back, from: f.from.0 as usize, to: f.to.0 as usize, dccp }
        })
        .collect()
}

/// Appends `e`'s line to `s`.
pub fn line(s: &mut String, sc: &Scenario, labels: &[FlowLabels], e: &PacketEvent) {
    use std::fmt::Write;
    let f = &labels[e.flow as usize];
    let link = &sc.links[e.link as usize];
    let data = e.kind.is_data();
    let (name, src, dst) = if data { (f.data.as_str(), f.from, f.to) } else { (f.back.as_str(), f.to, f.from) };
    let name = match e.wire_type {
        Some(t) if f.dccp => dccp_name(t),
        _ => name,
    };
    // trace.cc: C ECN-Echo, A congestion action (CWR), E congestion experienced, N ECN-capable.
    let flags = [
        if e.ece { 'C' } else { '-' },
        '-',
        '-',
        if e.cwr { 'A' } else { '-' },
        if e.ce { 'E' } else { '-' },
        '-',
        if e.ect { 'N' } else { '-' },
    ];
    let (sport, dport) = if data { (e.conn, 0) } else { (0, e.conn) };
    s.push(e.op.letter());
    s.push(' ');
    time(s, e.t.0);
    let _ = write!(s, " {} {} {name} {} ", link.from.0, link.to.0, e.size);
    s.extend(flags);
    // A TCP ACK's number is the one it acknowledges (as ns-2 prints it); a datagram's is its
    // count in its flow, feedback counted apart from data.
    let _ = writeln!(s, " {} {src}.{sport} {dst}.{dport} {} {}", e.flow, e.seq, e.uid);
}

/// ns-2's time: rounded to the microsecond (basetrace.h's `round`), printed with `%.15g`.
pub fn time(s: &mut String, ns: u64) {
    use std::fmt::Write;
    let us = (ns + 500) / 1000;
    let (whole, frac) = (us / 1_000_000, us % 1_000_000);
    if whole == 0 && frac > 0 && frac < 100 {
        // %g goes to an exponent below 1e-4.
        let (m, e) = if frac < 10 { (frac as f64, 6) } else { (frac as f64 / 10.0, 5) };
        let _ = write!(s, "{m}e-0{e}");
        return;
    }
    let _ = write!(s, "{whole}");
    if frac > 0 {
        let digits = format!("{frac:06}");
        s.push('.');
        s.push_str(digits.trim_end_matches('0'));
    }
}

#[cfg(test)]
mod tests {
    use super::time;

    fn t(ns: u64) -> String {
        let mut s = String::new();
        time(&mut s, ns);
        s
    }

    /// What C's `printf("%.15g", x)` prints for these times, x rounded to the microsecond.
    #[test]
    fn times_print_as_ns2_prints_them() {
        assert_eq!(t(0), "0");
        assert_eq!(t(1_000_000_000), "1");
        assert_eq!(t(1_500_000_000), "1.5");
        assert_eq!(t(12_345_678_901), "12.345679");
        assert_eq!(t(100_000), "0.0001");
        assert_eq!(t(12_000), "1.2e-05");
        assert_eq!(t(10_000), "1e-05");
        assert_eq!(t(3_000), "3e-06");
        assert_eq!(t(400), "0");
        assert_eq!(t(250_000_000), "0.25");
    }
}
