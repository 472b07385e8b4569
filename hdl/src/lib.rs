//! Ferroce: synthesizable RoCEv2 building blocks written with rust-hdl.
//!
//! Units are grouped by data path: [`rx`] (ICRC check, header decoder, RX front end), [`tx`]
//! (ICRC insertion), [`sched`] (shared-space scheduling FIFOs and the QoS arbiter), and
//! [`common`] (CRC matrices, the ICRC core, elaboration helpers). Offsets, codes and tables come
//! from `ferroce-contracts` at elaboration. Every top is listed in [`tops`]; `gen-verilog` writes
//! them out with unique `ferroce_` module names (see [`emit`]).

#![warn(missing_docs)]

pub mod common;
pub mod emit;
pub mod engine;
pub mod registers;
pub mod rx;
pub mod sched;
pub mod tops;
pub mod tx;
