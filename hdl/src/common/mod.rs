//! Pieces shared by the data paths: CRC matrices, elaboration helpers, the ICRC core.

pub mod classify;
pub mod counter;
pub mod crc;
pub mod delay;
pub mod elab;
pub mod fifo;
pub mod icrc_core;
