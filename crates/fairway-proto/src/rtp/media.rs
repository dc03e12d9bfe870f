//! What an RTP sender packetises: a media encoder that produces frames at the times it chooses
//! and follows (as it can) the target rate its congestion controller sets. RFC 8593 §5's
//! synthetic video encoder ([`super::synthetic`]) is one; a trace-driven source (§6) is another.

use fairway_core::{Bytes, Time};

/// A media encoder as the RTP sender sees it. Rates are bits per second of media payload.
pub trait MediaSource: Send {
    /// Starts (or resumes) at `now` at `target`: its first frame is due at once.
    fn start(&mut self, now: Time, target: f64);

    /// When the next frame is due; `None` when it has nothing more.
    fn next_frame_at(&self) -> Option<Time>;

    /// The frame due now (called at or after [`next_frame_at`](Self::next_frame_at)): its size.
    fn frame(&mut self, now: Time) -> Bytes;

    /// The encoder did not run until `now` (its sender was held up): the frames due before
    /// `now` are not made; the next is due at `now` at the earliest.
    fn skip_to(&mut self, now: Time);

    /// The controller asks for `target` at `now`; the encoder takes it as its model allows.
    fn set_target(&mut self, now: Time, target: f64);

    /// The rate it encodes at now.
    fn rate(&self) -> f64;

    /// Its nominal frame rate (NADA's FPS, RFC 8698 §5.2.2).
    fn fps(&self) -> f64;
}
