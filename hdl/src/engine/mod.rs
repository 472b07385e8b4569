//! The engine's transport layer. Today: [`responder::Responder`], the per-QP checks and state of
//! the RX side (`docs/engine.md`).

pub mod responder;

pub use responder::Responder;
