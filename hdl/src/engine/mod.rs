//! The engine's transport layer (`docs/engine.md`): the RX side ([`Responder`], the per-QP
//! checks and state, and [`PayloadWriter`], which writes or discards each payload as the
//! responder decides, joined in [`RxPath`]), the host's receive side ([`host`]), the frames answered in hardware
//! ([`HostResponder`]: ARP and ICMP echo) and the whole
//! engine ([`Engine`]: the register file, the TX path and the RX path).

pub mod host;
pub mod host_responder;
pub mod payload_writer;
pub mod read_tracker;
pub mod responder;
pub mod rx_path;
pub mod top;

pub use host_responder::HostResponder;
pub use payload_writer::PayloadWriter;
pub use read_tracker::ReadTracker;
pub use responder::Responder;
pub use rx_path::RxPath;
pub use top::{Engine, EngineBus};
