//! Two hosts as network namespaces, joined only through the emulator: each has one TUN device
//! whose other end the emulator holds, an address, and a route to the other host through it.
//! Dropping the pair deletes the namespaces (and their devices with them).

use std::io;
use std::net::Ipv4Addr;
use std::process::Command;

use crate::tun::Tun;

/// One host: its namespace, its address, and the emulator's end of its device.
#[derive(Debug)]
pub struct Host {
    pub netns: String,
    pub addr: Ipv4Addr,
    pub tun: Tun,
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
    ip(&["-n", &netns, "link", "set", &dev, "up"])?;
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
