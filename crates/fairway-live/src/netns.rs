//! Two hosts as network namespaces, joined only through the emulator: each has one TUN device
//! whose other end the emulator holds, an address, and a route to the other host through it.
//! Dropping the pair deletes the namespaces (and their devices with them).
//!
//! A process killed without a chance to drop its pair (SIGKILL, a crash) leaves the namespaces.
//! So a pair records its owner (pid and start time) in a file under [`OWNERS`] before it makes
//! them, and the next pair of that name removes what an owner that is no longer running left.
//! Namespaces of the name without such a record are someone else's and are refused.

use std::io::{self, Write};
use std::net::Ipv4Addr;
use std::path::{Path, PathBuf};
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
    /// The file that records this process as their owner.
    owner: PathBuf,
    /// The pid of an emulator no longer running whose namespaces of this name were removed.
    pub reclaimed_from: Option<u32>,
}

/// Where pairs record their owners: a file per pair, beside the namespaces' folder (/run/netns)
/// and not in it, where `ip netns list` would take it for a namespace. /run is a tmpfs: a reboot
/// empties it along with the namespaces.
pub const OWNERS: &str = "/run/fairway/netns";

/// A process, told apart from a later one given the same pid by its start time (field 22 of
/// /proc/PID/stat, in clock ticks since boot).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Owner {
    pid: u32,
    start: u64,
}

impl Owner {
    fn me() -> io::Result<Owner> {
        let pid = std::process::id();
        let start = start_time(pid).ok_or_else(|| io::Error::other("cannot read this process's start time"))?;
        Ok(Owner { pid, start })
    }

    fn running(&self) -> bool {
        start_time(self.pid) == Some(self.start)
    }

    fn read(path: &Path) -> Option<Owner> {
        let text = std::fs::read_to_string(path).ok()?;
        let mut w = text.split_whitespace();
        Some(Owner { pid: w.next()?.parse().ok()?, start: w.next()?.parse().ok()? })
    }
}

/// The start time of process `pid`, if it is running.
fn start_time(pid: u32) -> Option<u64> {
    stat_start(&std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?)
}

/// The start time in a /proc/PID/stat line. The command name (field 2) is in parentheses and
/// may hold spaces and parentheses; the fields are counted after the last closing one.
fn stat_start(stat: &str) -> Option<u64> {
    let rest = &stat[stat.rfind(')')? + 1..];
    // `rest` starts at field 3 (the state); field 22 is the 20th from there.
    rest.split_whitespace().nth(19)?.parse().ok()
}

fn netns_exists(name: &str) -> bool {
    Path::new("/run/netns").join(name).exists()
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
    /// Creates the two namespaces `fw-<tag>-a` and `fw-<tag>-b` (root is needed). Namespaces of
    /// these names that a pair of a process no longer running left are removed first; any
    /// others of these names are refused: another emulator is using them, or they are not
    /// fairway's.
    pub fn create(tag: &str) -> io::Result<Pair> {
        let names = [format!("fw-{tag}-a"), format!("fw-{tag}-b")];
        let owner = Path::new(OWNERS).join(format!("fw-{tag}"));
        let mut reclaimed_from = None;
        if let Some(o) = Owner::read(&owner) {
            if o.running() {
                return Err(io::Error::new(
                    io::ErrorKind::AlreadyExists,
                    format!("namespaces {} and {} belong to process {}, still running", names[0], names[1], o.pid),
                ));
            }
            for n in names.iter().filter(|n| netns_exists(n)) {
                ip(&["netns", "del", n])?;
            }
            std::fs::remove_file(&owner)?;
            reclaimed_from = Some(o.pid);
        }
        if let Some(n) = names.iter().find(|n| netns_exists(n)) {
            return Err(io::Error::new(
                io::ErrorKind::AlreadyExists,
                format!("namespace {n} exists and no emulator recorded it as its own: another program's, or left by a fairway older than the record (`ip netns del {n}` if it is not in use)"),
            ));
        }
        record(&owner)?;
        let owner_guard = FileGuard(owner.clone());
        let a = host(tag, "a", [10, 201, 0, 1], "10.201.1.0/24")?;
        // `a` is deleted by its guard if `b` fails.
        let guard = Guard(a.netns.clone());
        let b = host(tag, "b", [10, 201, 1, 1], "10.201.0.0/24")?;
        std::mem::forget(guard);
        std::mem::forget(owner_guard);
        Ok(Pair { a, b, owner, reclaimed_from })
    }
}

/// Records this process as the owner at `path`; refused if a record is there (another process
/// made one since this one looked).
fn record(path: &Path) -> io::Result<()> {
    std::fs::create_dir_all(OWNERS)?;
    let me = Owner::me()?;
    let mut f = std::fs::OpenOptions::new().write(true).create_new(true).open(path).map_err(|e| {
        if e.kind() == io::ErrorKind::AlreadyExists {
            io::Error::new(e.kind(), format!("{}: another emulator of this name is starting", path.display()))
        } else {
            io::Error::new(e.kind(), format!("{}: {e}", path.display()))
        }
    })?;
    writeln!(f, "{} {}", me.pid, me.start)
}

/// Removes a file when dropped.
struct FileGuard(PathBuf);

impl Drop for FileGuard {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
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
        let _ = std::fs::remove_file(&self.owner);
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

    #[test]
    fn an_owner_is_told_from_a_later_process_with_its_pid() {
        let me = Owner::me().unwrap();
        assert!(me.running());
        assert!(!Owner { start: me.start + 1, ..me }.running(), "same pid, another start: not the owner");
        // A child that has ended (and been reaped) is not running.
        let mut c = Command::new("true").spawn().unwrap();
        let pid = c.id();
        let start = start_time(pid);
        c.wait().unwrap();
        if let Some(start) = start {
            assert!(!Owner { pid, start }.running());
        }
        // A command name with spaces and parentheses does not shift the fields.
        let stat = "42 (a ) b (c)) S 1 42 42 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0 987654 1000 50";
        assert_eq!(stat_start(stat), Some(987654));
        let dir = std::env::temp_dir().join(format!("fw-owner-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join("rec");
        std::fs::write(&p, format!("{} {}\n", me.pid, me.start)).unwrap();
        assert_eq!(Owner::read(&p), Some(me));
        std::fs::write(&p, "junk").unwrap();
        assert_eq!(Owner::read(&p), None);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
