//! Two hosts as network namespaces, joined only through the emulator: each has one TUN device
//! whose other end the emulator holds, an address, and a route to the other host through it.
//! Dropping the pair deletes the namespaces (and their devices with them).

use std::io;
use std::net::Ipv4Addr;
use std::process::Command;

use crate::tun::Tun;

/// Packets a host's device holds for the emulator to read (the tun driver's ring; Linux's
/// default is 500). The host's stack drops what does not fit, before the bottleneck sees it:
/// 4096 packets of 1500 bytes are about 50 ms at 1 Gb/s, room for the emulator's thread to be
/// kept off its core for a while.
pub const DEVICE_QUEUE: u32 = 4096;

/// One host: its namespace, its address, and the emulator's end of its device.
#[derive(Debug)]
pub struct Host {
    pub netns: String,
    pub addr: Ipv4Addr,
    pub tun: Tun,
}

impl Host {
    /// Packets the host's device dropped on their way to the emulator (its ring was full):
    /// lost before the emulated link, so counted apart from it. `None` if `ip` cannot tell.
    pub fn device_drops(&self) -> Option<u64> {
        let out =
            Command::new("ip").args(["-n", &self.netns, "-s", "link", "show", "dev", self.tun.name()]).output().ok()?;
        tx_dropped(&String::from_utf8_lossy(&out.stdout))
    }
}

/// The transmit side's `dropped` of `ip -s link show`: the line after the one that starts with
/// "TX:" names the columns, the next holds them.
fn tx_dropped(text: &str) -> Option<u64> {
    let mut lines = text.lines();
    let head = lines.find(|l| l.trim_start().starts_with("TX:"))?;
    let col = head.split_whitespace().skip(1).position(|c| c == "dropped")?;
    lines.next()?.split_whitespace().nth(col)?.parse().ok()
}

/// Hosts `a` (10.201.0.1) and `b` (10.201.1.1); namespaces named after `tag`.
#[derive(Debug)]
pub struct Pair {
    pub a: Host,
    pub b: Host,
}

fn ip(args: &[&str]) -> io::Result<()> {
    let out = Command::new("ip").args(args).output()?;
    if out.status.success() {
        Ok(())
    } else {
        Err(io::Error::other(format!("ip {}: {}", args.join(" "), String::from_utf8_lossy(&out.stderr).trim())))
    }
}

impl Pair {
    /// Creates the two namespaces `fw-<tag>-a` and `fw-<tag>-b` (root is needed). A namespace of
    /// either name that exists already is refused: another emulator may be using it.
    pub fn create(tag: &str) -> io::Result<Pair> {
        let a = host(tag, "a", [10, 201, 0, 1], "10.201.1.0/24")?;
        // `a` is deleted by its guard if `b` fails.
        let guard = Guard(a.netns.clone());
        let b = host(tag, "b", [10, 201, 1, 1], "10.201.0.0/24")?;
        std::mem::forget(guard);
        Ok(Pair { a, b })
    }
}

/// Deletes a namespace when dropped.
struct Guard(String);

impl Drop for Guard {
    fn drop(&mut self) {
        let _ = ip(&["netns", "del", &self.0]);
    }
}

fn host(tag: &str, side: &str, addr: [u8; 4], other: &str) -> io::Result<Host> {
    let netns = format!("fw-{tag}-{side}");
    let dev = format!("fw{side}{}", tag.chars().take(10).collect::<String>());
    if std::path::Path::new("/run/netns").join(&netns).exists() {
        return Err(io::Error::new(
            io::ErrorKind::AlreadyExists,
            format!(
                "namespace {netns} exists (another emulator's, or one left by a killed run: `ip netns del {netns}`)"
            ),
        ));
    }
    ip(&["netns", "add", &netns])?;
    let guard = Guard(netns.clone());
    let tun = Tun::create(&dev)?;
    let addr = std::net::Ipv4Addr::from(addr);
    let cidr = format!("{addr}/24");
    ip(&["link", "set", &dev, "netns", &netns])?;
    ip(&["-n", &netns, "link", "set", "lo", "up"])?;
    ip(&["-n", &netns, "addr", "add", &cidr, "dev", &dev])?;
    ip(&["-n", &netns, "link", "set", &dev, "txqueuelen", &DEVICE_QUEUE.to_string(), "up"])?;
    ip(&["-n", &netns, "route", "add", other, "dev", &dev])?;
    std::mem::forget(guard);
    Ok(Host { netns, addr, tun })
}

impl Drop for Pair {
    fn drop(&mut self) {
        let _ = ip(&["netns", "del", &self.a.netns]);
        let _ = ip(&["netns", "del", &self.b.netns]);
    }
}

/// Runs `f` on a thread that has entered namespace `netns`: sockets it opens belong there.
pub fn in_netns<T: Send>(netns: &str, f: impl FnOnce() -> T + Send) -> io::Result<T> {
    let file = std::fs::File::open(format!("/run/netns/{netns}"))?;
    std::thread::scope(|s| {
        s.spawn(|| {
            use std::os::fd::AsRawFd;
            // SAFETY: setns on an open namespace file; it changes only this thread's namespace.
            if unsafe { libc::setns(file.as_raw_fd(), libc::CLONE_NEWNET) } != 0 {
                return Err(io::Error::last_os_error());
            }
            Ok(f())
        })
        .join()
        .unwrap_or_else(|p| std::panic::resume_unwind(p))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_transmit_drops_are_read_from_ip_s_link() {
        // iproute2 6's layout, and the older one's spacing.
        let new = "196: fwaq: <POINTOPOINT,UP> mtu 1500 qdisc pfifo_fast state UNKNOWN qlen 4096
    link/none
    RX:  bytes packets errors dropped  missed   mcast
             0       0      0       3       0       0
    TX:  bytes packets errors dropped carrier collsns
          4800      10      0       7       0       0
";
        assert_eq!(tx_dropped(new), Some(7));
        let old = "    RX: bytes  packets  errors  dropped overrun mcast
    0          0        0       3       0       0
    TX: bytes  packets  errors  dropped carrier collsns
    4800       10       0       9       0       0
";
        assert_eq!(tx_dropped(old), Some(9));
        assert_eq!(tx_dropped("garbage"), None);
    }
}
