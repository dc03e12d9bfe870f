//! A UDP socket (IPv4) that sets each datagram's ToS byte (ECN-capable, tagged as multimedia)
//! and reads the ToS byte each datagram arrived with (a bottleneck may have marked it CE).

use std::io;
use std::mem::{size_of, zeroed};
use std::net::{SocketAddr, SocketAddrV4, UdpSocket};
use std::os::fd::{AsRawFd, RawFd};

/// ECT(0) in the ToS byte's ECN field (RFC 3168 §5).
pub const ECT0: u8 = 0b10;
/// The ECN field's value for Congestion Experienced.
pub const CE: u8 = 0b11;
/// The DSCP fairway's tagged datagrams carry: AF41, the class of interactive video (RFC 4594).
/// The emulator, like chung-dcbt's routers, counts any DSCP as tagged.
pub const TAGGED_DSCP: u8 = 34;

/// The ToS byte of a datagram: its DSCP and ECN fields.
pub fn tos(ect: bool, tagged: bool) -> u8 {
    (if tagged { TAGGED_DSCP << 2 } else { 0 }) | if ect { ECT0 } else { 0 }
}

/// A datagram read: its length in the buffer, its sender, its ToS byte, and how many datagrams
/// the socket had dropped for want of room before it (the kernel's count, since the socket was
/// made; `None` where the kernel does not say).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Received {
    pub len: usize,
    pub from: SocketAddr,
    pub tos: u8,
    pub overflow: Option<u32>,
}

/// Linux's SO_RXQ_OVFL (asm-generic/socket.h): each datagram read comes with the count of those
/// the socket dropped because its receive buffer was full.
const SO_RXQ_OVFL: libc::c_int = 40;

/// A non-blocking UDP socket on IPv4.
#[derive(Debug)]
pub struct Port {
    sock: UdpSocket,
    /// The ToS byte set on the socket now.
    tos: u8,
}

fn check(r: libc::c_int) -> io::Result<libc::c_int> {
    if r < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(r)
    }
}

/// Bytes of receive buffer a port asks for: some thousands of datagrams, so that an end the
/// scheduler keeps off its core for tens of milliseconds (many ends on few cores) does not lose
/// what arrives meanwhile at its host, which a flow would count as the network's loss. Linux's
/// default (net.core.rmem_default, about 200 kB) holds some hundred.
pub const RECEIVE_BUFFER: libc::c_int = 8 << 20;

/// Asks for [`RECEIVE_BUFFER`]: SO_RCVBUF, which the kernel caps at net.core.rmem_max, then, if
/// that capped it, SO_RCVBUFFORCE, which root may use past the cap. Neither is required: an end
/// works with the default, and loses more when it is kept waiting.
fn receive_buffer(sock: &UdpSocket) {
    let _ = set_int(sock, libc::SOL_SOCKET, libc::SO_RCVBUF, RECEIVE_BUFFER);
    if receive_buffer_len(sock).is_some_and(|n| n < RECEIVE_BUFFER) {
        let _ = set_int(sock, libc::SOL_SOCKET, libc::SO_RCVBUFFORCE, RECEIVE_BUFFER);
    }
}

/// Sets the int-valued socket option `opt` of `level` to `v`.
fn set_int(sock: &UdpSocket, level: libc::c_int, opt: libc::c_int, v: libc::c_int) -> io::Result<libc::c_int> {
    // SAFETY: every option set here reads an int from a pointer valid for its size.
    check(unsafe {
        libc::setsockopt(
            sock.as_raw_fd(),
            level,
            opt,
            &v as *const libc::c_int as *const libc::c_void,
            size_of::<libc::c_int>() as libc::socklen_t,
        )
    })
}

/// The receive buffer the kernel gave `sock` (it reports twice what was asked, its bookkeeping
/// included).
fn receive_buffer_len(sock: &UdpSocket) -> Option<libc::c_int> {
    let mut v: libc::c_int = 0;
    let mut len = size_of::<libc::c_int>() as libc::socklen_t;
    // SAFETY: getsockopt writes at most `len` bytes into `v`.
    let r = unsafe {
        libc::getsockopt(
            sock.as_raw_fd(),
            libc::SOL_SOCKET,
            libc::SO_RCVBUF,
            &mut v as *mut libc::c_int as *mut libc::c_void,
            &mut len,
        )
    };
    (r == 0).then_some(v)
}

impl Port {
    /// Binds `addr` (port 0: any free port).
    pub fn bind(addr: SocketAddr) -> io::Result<Port> {
        if !addr.is_ipv4() {
            return Err(io::Error::new(
                io::ErrorKind::Unsupported,
                format!("{addr}: fairway's live mode is IPv4 only"),
            ));
        }
        let sock = UdpSocket::bind(addr)?;
        sock.set_nonblocking(true)?;
        receive_buffer(&sock);
        // Without SO_RXQ_OVFL (an older kernel), datagrams come without the count.
        let _ = set_int(&sock, libc::SOL_SOCKET, SO_RXQ_OVFL, 1);
        set_int(&sock, libc::IPPROTO_IP, libc::IP_RECVTOS, 1)?;
        Ok(Port { sock, tos: 0 })
    }

    pub fn local_addr(&self) -> io::Result<SocketAddr> {
        self.sock.local_addr()
    }

    /// Sends `buf` to `to` with the ToS byte `tos`.
    pub fn send_to(&mut self, buf: &[u8], to: SocketAddr, tos: u8) -> io::Result<()> {
        if tos != self.tos {
            set_int(&self.sock, libc::IPPROTO_IP, libc::IP_TOS, tos as libc::c_int)?;
            self.tos = tos;
        }
        self.sock.send_to(buf, to).map(|_| ())
    }

    /// The next datagram, if one waits (`WouldBlock` otherwise). A datagram longer than `buf`
    /// is cut to it.
    pub fn recv(&mut self, buf: &mut [u8]) -> io::Result<Received> {
        // SAFETY: all-zero is a valid sockaddr_in, iovec and msghdr.
        let mut name: libc::sockaddr_in = unsafe { zeroed() };
        let mut iov = libc::iovec { iov_base: buf.as_mut_ptr() as *mut libc::c_void, iov_len: buf.len() };
        // Room for two cmsgs holding an int each (IP_TOS arrives as one byte, padded).
        let mut control = [0u64; 8];
        let mut msg: libc::msghdr = unsafe { zeroed() };
        msg.msg_name = &mut name as *mut libc::sockaddr_in as *mut libc::c_void;
        msg.msg_namelen = size_of::<libc::sockaddr_in>() as libc::socklen_t;
        msg.msg_iov = &mut iov;
        msg.msg_iovlen = 1;
        msg.msg_control = control.as_mut_ptr() as *mut libc::c_void;
        msg.msg_controllen = size_of::<[u64; 8]>() as _;
        // SAFETY: every pointer in `msg` points at a live buffer of the length it gives.
        let n = unsafe { libc::recvmsg(self.sock.as_raw_fd(), &mut msg, 0) };
        if n < 0 {
            return Err(io::Error::last_os_error());
        }
        let (mut tos, mut overflow) = (0, None);
        // SAFETY: the CMSG macros walk the control buffer the kernel filled, within
        // msg_controllen; an IP_TOS cmsg holds at least one byte, an SO_RXQ_OVFL one a u32
        // (read unaligned: CMSG_DATA promises no alignment).
        unsafe {
            let mut c = libc::CMSG_FIRSTHDR(&msg);
            while !c.is_null() {
                if (*c).cmsg_level == libc::IPPROTO_IP && (*c).cmsg_type == libc::IP_TOS {
                    tos = *libc::CMSG_DATA(c);
                }
                if (*c).cmsg_level == libc::SOL_SOCKET && (*c).cmsg_type == SO_RXQ_OVFL {
                    overflow = Some(std::ptr::read_unaligned(libc::CMSG_DATA(c) as *const u32));
                }
                c = libc::CMSG_NXTHDR(&msg, c);
            }
        }
        let ip = std::net::Ipv4Addr::from(u32::from_be(name.sin_addr.s_addr));
        let from = SocketAddr::V4(SocketAddrV4::new(ip, u16::from_be(name.sin_port)));
        Ok(Received { len: (n as usize).min(buf.len()), from, tos, overflow })
    }
}

impl AsRawFd for Port {
    fn as_raw_fd(&self) -> RawFd {
        self.sock.as_raw_fd()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_port_asks_for_room_for_thousands_of_datagrams() {
        let p = Port::bind("127.0.0.1:0".parse().unwrap()).unwrap();
        let got = receive_buffer_len(&p.sock).unwrap();
        // Root gets what it asks (the kernel reports double); others get net.core.rmem_max.
        let max: libc::c_int = std::fs::read_to_string("/proc/sys/net/core/rmem_max")
            .ok()
            .and_then(|t| t.trim().parse().ok())
            .unwrap_or(0);
        // SAFETY: geteuid has no preconditions.
        let root = unsafe { libc::geteuid() } == 0;
        if root {
            assert!(got >= RECEIVE_BUFFER, "{got}");
        } else {
            assert!(got >= RECEIVE_BUFFER.min(max), "{got}, rmem_max {max}");
        }
    }

    #[test]
    fn the_tos_byte_goes_with_each_datagram_and_is_read_back() {
        let mut a = Port::bind("127.0.0.1:0".parse().unwrap()).unwrap();
        let mut b = Port::bind("127.0.0.1:0".parse().unwrap()).unwrap();
        let to = b.local_addr().unwrap();
        let mut buf = [0u8; 64];
        for (ect, tagged) in [(true, false), (false, true), (true, true), (false, false)] {
            a.send_to(b"hello", to, tos(ect, tagged)).unwrap();
            let r = loop {
                match b.recv(&mut buf) {
                    Ok(r) => break r,
                    Err(e) if e.kind() == io::ErrorKind::WouldBlock => std::thread::yield_now(),
                    Err(e) => panic!("{e}"),
                }
            };
            assert_eq!((&buf[..r.len], r.from, r.tos), (&b"hello"[..], a.local_addr().unwrap(), tos(ect, tagged)));
        }
        assert!(Port::bind("[::1]:0".parse().unwrap()).is_err(), "IPv6 is refused");
    }
}
