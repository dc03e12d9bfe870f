//! Linux's TCP as a scenario's TCP flow: a bulk transfer with the scenario's congestion control
//! (Reno), segment size and window, and what the kernel counted of it.

use std::io::{self, Read, Write};
use std::mem::size_of;
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::os::fd::{AsRawFd, FromRawFd, RawFd};
use std::time::{Duration, Instant};

use crate::sampler::Sampler;

/// How a transfer's connection is set up.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TcpSettings {
    /// The maximum segment size (TCP_MAXSEG): a full segment's data and the options it carries
    /// (the timestamps' 12 bytes when they are on).
    pub mss: u32,
    /// The most the receiver advertises, bytes (the scenario's window x the segment); `None`:
    /// Linux's own.
    pub window: Option<u32>,
    /// Linux's congestion control for the sender (TCP_CONGESTION): "reno" (Linux's NewReno, for
    /// ns-2's AIMD senders), "cubic" or "bbr".
    pub cc: &'static str,
}

impl TcpSettings {
    /// The Linux congestion control for a scenario's `cc`, as its registration names it.
    pub fn linux_cc(cc: &str) -> Option<&'static str> {
        fairway_proto::tcp::cc::algorithm(cc)?.linux
    }

    /// The MSS whose full segments carry `payload` bytes of data: Linux's segments carry the MSS
    /// less the options in them, the timestamps' 12 bytes when they are on.
    pub fn mss_for(payload: u32, timestamps: bool) -> u32 {
        payload + if timestamps { fairway_proto::tcp::options::TIMESTAMPS_BYTES as u32 } else { 0 }
    }
}

fn setsockopt<T>(fd: RawFd, level: libc::c_int, name: libc::c_int, v: &T) -> io::Result<()> {
    // SAFETY: `v` is valid for reads of size_of::<T>() bytes during the call.
    let r = unsafe {
        libc::setsockopt(fd, level, name, v as *const T as *const libc::c_void, size_of::<T>() as libc::socklen_t)
    };
    if r < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// Listens on `addr` (in the calling thread's namespace), advertising at most `s.window`.
pub fn listen(addr: SocketAddr, s: TcpSettings) -> io::Result<TcpListener> {
    let l = TcpListener::bind(addr)?;
    if let Some(w) = s.window {
        // Accepted connections take the listener's clamp.
        setsockopt(l.as_raw_fd(), libc::IPPROTO_TCP, libc::TCP_WINDOW_CLAMP, &(w as libc::c_int))?;
    }
    Ok(l)
}

/// Connects to `to` with the congestion control `s.cc` and segments of `s.mss` (in the calling
/// thread's namespace).
pub fn connect(to: SocketAddr, s: TcpSettings, timeout: Duration) -> io::Result<TcpStream> {
    // SAFETY: a plain socket(2) call; the descriptor is owned by the TcpStream made from it.
    let fd = unsafe { libc::socket(libc::AF_INET, libc::SOCK_STREAM | libc::SOCK_CLOEXEC, 0) };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: `fd` is a new socket nobody else owns.
    let sock = unsafe { TcpStream::from_raw_fd(fd) };
    let cc = s.cc.as_bytes();
    // SAFETY: TCP_CONGESTION reads a name of the given length.
    if unsafe {
        libc::setsockopt(
            fd,
            libc::IPPROTO_TCP,
            libc::TCP_CONGESTION,
            cc.as_ptr() as *const libc::c_void,
            cc.len() as u32,
        )
    } < 0
    {
        let e = io::Error::last_os_error();
        return Err(io::Error::new(e.kind(), format!("TCP_CONGESTION {}: {e}", s.cc)));
    }
    setsockopt(fd, libc::IPPROTO_TCP, libc::TCP_MAXSEG, &(s.mss as libc::c_int))?;
    setsockopt(fd, libc::IPPROTO_TCP, libc::TCP_NODELAY, &(1 as libc::c_int))?;
    let SocketAddr::V4(v4) = to else {
        return Err(io::Error::new(io::ErrorKind::Unsupported, "IPv4 only"));
    };
    let sa = libc::sockaddr_in {
        sin_family: libc::AF_INET as libc::sa_family_t,
        sin_port: v4.port().to_be(),
        sin_addr: libc::in_addr { s_addr: u32::from(*v4.ip()).to_be() },
        sin_zero: [0; 8],
    };
    let tv = libc::timeval {
        tv_sec: timeout.as_secs() as libc::time_t,
        tv_usec: timeout.subsec_micros() as libc::suseconds_t,
    };
    // A blocking connect gives up after SO_SNDTIMEO.
    setsockopt(fd, libc::SOL_SOCKET, libc::SO_SNDTIMEO, &tv)?;
    // SAFETY: `sa` is a valid sockaddr_in for the call.
    let r = unsafe {
        libc::connect(
            fd,
            &sa as *const libc::sockaddr_in as *const libc::sockaddr,
            size_of::<libc::sockaddr_in>() as libc::socklen_t,
        )
    };
    if r < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(sock)
}

/// A call that timed out or was interrupted: try again (or see whether time is up).
fn again(e: &io::Error) -> bool {
    matches!(e.kind(), io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut | io::ErrorKind::Interrupted)
}

/// What the kernel counted of a connection.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TcpCounts {
    /// Data the receiver acknowledged.
    pub bytes_acked: u64,
    /// Segments sent, retransmissions included, and the retransmissions.
    pub segs_out: u64,
    pub retransmits: u64,
    /// The congestion window, segments.
    pub cwnd: u32,
}

/// A sender's counts over time.
pub type SenderSamples = Sampler<Instant, TcpCounts>;
/// A receiver's bytes so far, over time.
pub type ReceiverSamples = Sampler<Instant, u64>;

/// The kernel's counts of `s` now.
pub fn counts(s: &TcpStream) -> io::Result<TcpCounts> {
    // SAFETY: all-zero is a valid tcp_info; TCP_INFO writes at most `len` bytes into it.
    let mut info: libc::tcp_info = unsafe { std::mem::zeroed() };
    let mut len = size_of::<libc::tcp_info>() as libc::socklen_t;
    let r = unsafe {
        libc::getsockopt(
            s.as_raw_fd(),
            libc::IPPROTO_TCP,
            libc::TCP_INFO,
            &mut info as *mut libc::tcp_info as *mut libc::c_void,
            &mut len,
        )
    };
    if r < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(TcpCounts {
        bytes_acked: info.tcpi_bytes_acked,
        segs_out: info.tcpi_segs_out as u64,
        retransmits: info.tcpi_total_retrans as u64,
        cwnd: info.tcpi_snd_cwnd,
    })
}

/// Writes to `s` as fast as it takes data (an FTP) until `stop`, or until `limit` bytes (a
/// finite transfer); returns the bytes written and the kernel's counts at that moment. The
/// connection is then closed for writing. `samples` takes the kernel's counts at its moments
/// (those after the end take the final counts).
pub fn send_bulk(
    s: &mut TcpStream,
    stop: Instant,
    limit: Option<u64>,
    samples: &mut SenderSamples,
) -> io::Result<(u64, TcpCounts)> {
    let chunk = [0x5au8; 16384];
    let mut written = 0u64;
    loop {
        let now = Instant::now();
        if samples.next().is_some_and(|t| t <= now) {
            let c = counts(s)?;
            samples.record(now, || c);
        }
        if now >= stop || limit.is_some_and(|l| written >= l) {
            break;
        }
        let until = samples.next().map_or(stop, |t| t.min(stop));
        s.set_write_timeout(Some((until.saturating_duration_since(now)).max(Duration::from_millis(1))))?;
        let n = limit.map_or(chunk.len() as u64, |l| (l - written).min(chunk.len() as u64)) as usize;
        match s.write(&chunk[..n]) {
            Ok(k) => written += k as u64,
            Err(e) if again(&e) => {}
            Err(e) => return Err(e),
        }
    }
    let c = counts(s)?;
    let _ = s.shutdown(Shutdown::Write);
    samples.finish(c);
    Ok((written, c))
}

/// What a receiver got: bytes, and when the first and last arrived.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TcpReceived {
    pub bytes: u64,
    pub first: Option<Instant>,
    pub last: Option<Instant>,
}

/// Accepts one connection on `l` and reads it until the sender closes or `end` passes; bytes
/// arriving after `end` are not counted. `samples` takes the bytes received so far at its
/// moments.
pub fn receive(l: &TcpListener, end: Instant, samples: &mut ReceiverSamples) -> io::Result<TcpReceived> {
    l.set_nonblocking(true)?;
    let mut c = loop {
        match l.accept() {
            Ok((c, _)) => break c,
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                let now = Instant::now();
                samples.record(now, || 0);
                if now >= end {
                    samples.finish(0);
                    return Ok(TcpReceived::default());
                }
                std::thread::sleep(Duration::from_millis(5));
            }
            Err(e) => return Err(e),
        }
    };
    c.set_nonblocking(false)?;
    let mut got = TcpReceived::default();
    let mut buf = vec![0u8; 65536];
    loop {
        let now = Instant::now();
        samples.record(now, || got.bytes);
        if now >= end {
            samples.finish(got.bytes);
            return Ok(got);
        }
        let until = samples.next().map_or(end, |t| t.min(end));
        c.set_read_timeout(Some((until.saturating_duration_since(now)).max(Duration::from_millis(1))))?;
        match c.read(&mut buf) {
            Ok(0) => {
                samples.finish(got.bytes);
                return Ok(got);
            }
            Ok(n) => {
                let t = Instant::now();
                if t <= end {
                    got.bytes += n as u64;
                    got.first.get_or_insert(t);
                    got.last = Some(t);
                }
            }
            Err(e) if again(&e) => {}
            Err(e) => return Err(e),
        }
    }
}
