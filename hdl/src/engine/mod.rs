//! The engine's transport layer (`docs/engine.md`). Today the RX side: [`Responder`], the
//! per-QP checks and state, and [`PayloadWriter`], which writes or discards each payload as the
//! responder decides.

pub mod payload_writer;
pub mod responder;
pub mod rx_path;

pub use payload_writer::PayloadWriter;
pub use responder::Responder;
pub use rx_path::RxPath;
