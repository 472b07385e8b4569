//! Streaming into remote memory: [`port`] cuts an AXI-Stream into messages of one remote slot
//! each and keeps them in its buffer until they are sent (the contracts:
//! `ferroce_contracts::stream`; the golden model: `ferroce_models::stream`).

pub mod port;

pub use port::StreamPort;
