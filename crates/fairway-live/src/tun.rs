//! A TUN device (Linux's tun driver): IPv4 packets read from and written to a file descriptor,
//! with no packet-information prefix (IFF_NO_PI), non-blocking.

use std::fs::{File, OpenOptions};
use std::io::{self, Read, Write};
use std::os::fd::{AsRawFd, RawFd};
use std::os::unix::fs::OpenOptionsExt;

/// `TUNSETIFF`, `_IOW('T', 202, int)` in linux/if_tun.h.
const TUNSETIFF: libc::c_ulong = 0x4004_54ca;
const IFF_TUN: libc::c_short = 0x0001;
const IFF_NO_PI: libc::c_short = 0x1000;
/// Interface names are at most 15 bytes and a NUL (IFNAMSIZ).
const IFNAMSIZ: usize = 16;

/// `struct ifreq` as TUNSETIFF reads it: the name, then the flags (the rest of the union unused).
#[repr(C)]
struct IfReq {
    name: [u8; IFNAMSIZ],
    flags: libc::c_short,
    _pad: [u8; 22],
}

/// An open TUN device.
#[derive(Debug)]
pub struct Tun {
    file: File,
    name: String,
}

impl Tun {
    /// Creates the device `name` in the calling thread's network namespace (root, or
    /// CAP_NET_ADMIN, is needed).
    pub fn create(name: &str) -> io::Result<Tun> {
        if name.is_empty() || name.len() >= IFNAMSIZ {
            return Err(io::Error::new(io::ErrorKind::InvalidInput, format!("{name:?}: a name of 1 to 15 bytes")));
        }
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .custom_flags(libc::O_NONBLOCK | libc::O_CLOEXEC)
            .open("/dev/net/tun")?;
        let mut req = IfReq { name: [0; IFNAMSIZ], flags: IFF_TUN | IFF_NO_PI, _pad: [0; 22] };
        req.name[..name.len()].copy_from_slice(name.as_bytes());
        // SAFETY: TUNSETIFF reads an ifreq, which `req` is laid out as, and writes the name back
        // into it; the pointer is valid for the call.
        if unsafe { libc::ioctl(file.as_raw_fd(), TUNSETIFF, &mut req as *mut IfReq) } < 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(Tun { file, name: name.to_string() })
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    /// The next packet, if one waits (`WouldBlock` otherwise).
    pub fn recv(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.file.read(buf)
    }

    /// Hands a packet to the kernel as if it had arrived on the device.
    pub fn send(&mut self, packet: &[u8]) -> io::Result<()> {
        self.file.write(packet).map(|_| ())
    }
}

impl AsRawFd for Tun {
    fn as_raw_fd(&self) -> RawFd {
        self.file.as_raw_fd()
    }
}
