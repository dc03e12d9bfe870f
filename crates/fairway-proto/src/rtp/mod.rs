//! RTP media transport with congestion-control feedback (issue 35): the RMCAT setting of a media
//! encoder whose rate a congestion controller sets from the receiver's per-packet reports.
//!
//! - [`header`]: the RTP header with a transport-wide sequence number;
//! - [`rfc8888`]: RFC 8888's congestion-control feedback, the one report format;
//! - [`media`] and [`synthetic`]: the encoder seam and RFC 8593 §5's synthetic video encoder;
//! - [`trace`]: RFC 8593 §6's trace-driven video encoder;
//! - [`sender`] and [`receiver`]: the two endpoints;
//! - [`controller`]: the seam the controllers share; [`nada`]: NADA (RFC 8698); [`scream`]:
//!   SCReAM (RFC 8298); [`gcc`]: Google Congestion Control as WebRTC runs it;
//! - [`fse`]: RFC 8699's flow state exchange, which couples the controllers of one sender's
//!   flows and shares their rates by priority.

pub mod controller;
pub mod fse;
pub mod gcc;
pub mod header;
pub mod media;
pub mod nada;
pub mod receiver;
pub mod rfc8888;
pub mod scream;
pub mod sender;
pub mod synthetic;
pub mod trace;

pub use controller::{PacketResult, ProbeCluster, RateController, SenderView};
pub use receiver::{FeedbackInterval, RtpReceiver, RtpReceiverConfig, RtpReceiverStats};
pub use sender::{RtpPacket, RtpSender, RtpSenderConfig, RtpSenderStats};
