//! `fairway send`, `fairway recv` and `fairway key`: one datagram flow of a scenario between two
//! hosts, each end on a UDP socket (fairway-live's `session::flow` runs them).

use std::net::SocketAddr;
use std::path::Path;

use fairway_core::Dur;
use fairway_live::key::Key;
use fairway_live::session::{flow, Session};

use crate::scenario_file::load;
use crate::{interrupt, Failure, BUILD};

/// The key of a live flow, as `fairway send` and `fairway recv` take it.
#[derive(clap::Args, Debug, Clone, Default)]
pub struct KeyArgs {
    /// The flow's key, 64 hexadecimal digits (`fairway key` makes one; both ends need the same).
    #[arg(long, value_name = "HEX", conflicts_with = "key_file")]
    pub key: Option<String>,
    /// A file holding the flow's key (as `fairway key FILE` writes it).
    #[arg(long, value_name = "FILE")]
    pub key_file: Option<std::path::PathBuf>,
}

impl KeyArgs {
    /// The key given, if one was.
    fn given(&self) -> Result<Option<Key>, Failure> {
        match (&self.key, &self.key_file) {
            (Some(k), _) => Key::parse(k).map(Some).map_err(|e| Failure::Input(format!("--key: {e}"))),
            (None, Some(f)) => Key::read(f).map(Some).map_err(|e| Failure::Input(e.to_string())),
            (None, None) => Ok(None),
        }
    }
}

/// What every live command is given: this build, and the flag a signal sets.
pub(crate) fn session() -> Session<'static> {
    Session { build: BUILD, stop: &interrupt::INTERRUPTED }
}

/// `fairway send FILE --flow NAME --to ADDR`: the flow's sender, from its start to its stop
/// (the scenario's times, counted from now).
pub fn send(
    file: &Path,
    name: &str,
    to: SocketAddr,
    bind_to: Option<SocketAddr>,
    out: Option<&Path>,
    key: &KeyArgs,
) -> Result<(), Failure> {
    let key = key.given()?;
    let sc = load(file)?;
    Ok(flow::send(&sc, name, to, bind_to, out, key, session())?)
}

/// `fairway recv FILE --flow NAME --listen ADDR --out DIR`: the flow's receiver, until its
/// sender's end of flow (or `--duration`, or Ctrl-C); writes DIR/summary.json.
pub fn recv(
    file: &Path,
    name: &str,
    listen: SocketAddr,
    out: &Path,
    duration: Option<&str>,
    hide_losses: bool,
    key: &KeyArgs,
) -> Result<(), Failure> {
    let key = key.given()?;
    let sc = load(file)?;
    let limit = dur("--duration", duration)?;
    Ok(flow::recv(&sc, name, listen, out, limit, hide_losses, key, session())?)
}

/// `fairway key [FILE]`: a fresh key, written to FILE (mode 0600) or printed.
pub fn make_key(file: Option<&Path>) -> Result<(), Failure> {
    Ok(flow::make_key(file)?)
}

pub(crate) fn dur(what: &str, d: Option<&str>) -> Result<Option<Dur>, Failure> {
    d.map(|s| Dur::parse(s).map_err(|e| Failure::Input(format!("{what} {s}: {e}")))).transpose()
}
