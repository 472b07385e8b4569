//! Ferroce simulation: golden models of the hardware units and the Verilator co-simulation
//! harness. The wire-format model lives in [`ferroce_wire`] (re-exported as [`wire`]).

pub use ferroce_wire as wire;

pub mod axis;
pub mod bench;
pub mod icrc;
pub mod rx;
pub mod rx_rtl;
pub mod sched;
pub mod sched_rtl;
pub mod verilated;
