//! The TX data path: [`icrc_insert`] appends the ICRC to RoCEv2 frames on their way to the MAC.
//! The transfer table, segmenter and packet generator will come before it.

pub mod icrc_insert;

pub use icrc_insert::IcrcInsert;
