//! Ferroce: synthesizable RoCEv2 building blocks written with rust-hdl.
//!
//! Units are grouped by data path: [`rx`] (ICRC check, header decoder, RX front end), [`tx`]
//! (segmenter, packet generator, ICRC insertion, ACK tracker), [`sched`] (shared-space scheduling
//! FIFOs and the QoS arbiter), [`registers`] (the AXI4-Lite register file), [`engine`] (the
//! responder, the RX path and the engine top), [`memory`] (the AXI4 master of the engine's memory
//! side), and [`common`] (FIFOs, RAMs, CRC matrices, the ICRC core, elaboration helpers). Offsets, codes and tables come
//! from `ferroce-contracts` at elaboration. Every top is listed in [`tops`]; `gen-verilog` writes
//! them out with unique `ferroce_` module names (see [`emit`]).

#![warn(missing_docs)]

pub mod boards;
pub mod common;
pub mod emit;
pub mod engine;
pub mod memory;
pub mod registers;
pub mod rx;
pub mod sched;
pub mod stream;
pub mod tops;
pub mod tx;
