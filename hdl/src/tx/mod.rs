//! The TX data path, in stream order: (transfer table, segmenter, packetizer: to come) →
//! [`generator`] (packet descriptors to frames: headers, payload funnel, pad) → [`icrc_insert`]
//! (appends the ICRC on the way to the MAC).

pub mod generator;
pub(crate) mod header_builder;
pub mod icrc_insert;

pub use generator::TxGenerator;
pub use icrc_insert::IcrcInsert;
