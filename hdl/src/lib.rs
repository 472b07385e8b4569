//! Ferroce: synthesizable RoCEv2 building blocks written with rust-hdl.
//!
//! Every top is listed in [`tops`]; `gen-verilog` writes them out with unique `ferroce_` module
//! names (see [`emit`]).

pub mod crc;
pub mod elab;
pub mod emit;
pub mod icrc;
pub mod rx;
pub mod rx_front;
pub mod sched;
pub mod tops;
