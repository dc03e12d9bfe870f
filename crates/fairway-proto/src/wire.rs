//! An endpoint seen only through bytes: the object-safe face of an [`Endpoint`] for a driver
//! that carries datagrams it cannot type (live mode's sockets). Every endpoint has it.

use fairway_core::{Bytes, Time};

use crate::endpoint::{AgentState, Arrival, Endpoint, Malformed, Transmit};

/// What an end handed over beside the bytes: what [`Transmit`] says of the datagram.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sent {
    /// Its size on the wire (as the simulator counts it: IP header included).
    pub size: Bytes,
    /// The application bytes in it.
    pub payload: Bytes,
    pub ect: bool,
    pub tagged: bool,
}

/// One end of a flow, driven with bytes. The same contract as [`Endpoint`]'s: after each call
/// that can make it send, drain [`poll_datagram`](Self::poll_datagram), then sleep until
/// [`poll_timeout`](Self::poll_timeout).
pub trait WireEnd {
    fn start(&mut self, now: Time);
    fn stop(&mut self, now: Time);
    /// A datagram from the peer, in the protocol's wire format.
    fn handle_datagram(&mut self, now: Time, bytes: &[u8], arrival: Arrival) -> Result<(), Malformed>;
    fn handle_timeout(&mut self, now: Time);
    /// The next datagram due now, written into `out` (cleared first).
    fn poll_datagram(&mut self, now: Time, out: &mut Vec<u8>) -> Option<Sent>;
    fn poll_timeout(&self) -> Option<Time>;
    fn state(&self) -> AgentState;
}

impl<E: Endpoint> WireEnd for E {
    fn start(&mut self, now: Time) {
        Endpoint::start(self, now)
    }

    fn stop(&mut self, now: Time) {
        Endpoint::stop(self, now)
    }

    fn handle_datagram(&mut self, now: Time, bytes: &[u8], arrival: Arrival) -> Result<(), Malformed> {
        Endpoint::handle_datagram(self, now, bytes, arrival)
    }

    fn handle_timeout(&mut self, now: Time) {
        Endpoint::handle_timeout(self, now)
    }

    fn poll_datagram(&mut self, now: Time, out: &mut Vec<u8>) -> Option<Sent> {
        let t: Transmit<E::Out> = Endpoint::poll_transmit(self, now)?;
        out.clear();
        self.encode(&t, out);
        Some(Sent { size: t.size, payload: t.payload, ect: t.ect, tagged: t.tagged })
    }

    fn poll_timeout(&self) -> Option<Time> {
        Endpoint::poll_timeout(self)
    }

    fn state(&self) -> AgentState {
        Endpoint::state(self)
    }
}
