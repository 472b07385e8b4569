//! Pieces shared by the data paths: CRC matrices, elaboration helpers, the ICRC core, FIFOs,
//! delay lines, a LUT RAM read without a clock, an event counter and a PSN order compare.

pub mod attributes;
pub mod checksum;
pub mod classify;
pub mod counter;
pub mod counter_bank;
pub mod crc;
pub mod delay;
pub mod dual_port_ram;
pub mod elab;
pub mod fifo;
pub mod frame_merge;
pub mod icrc_core;
pub mod lut_ram;
pub mod psn;
pub mod wide;
