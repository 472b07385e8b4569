//! Pieces shared by the data paths: CRC matrices, elaboration helpers, the ICRC core.

pub mod crc;
pub mod elab;
pub mod icrc_core;
