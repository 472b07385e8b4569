//! The TX data path, in stream order: [`segmenter`] takes transfer posts, keeps the transfer
//! table and cuts the transfers the scheduler picks into blocks; [`packetizer`] cuts blocks into
//! packet descriptors and memory read commands; [`generator`] turns descriptors into frames
//! (headers, payload funnel, pad); [`icrc_insert`] appends the ICRC on the way to the MAC.

pub mod generator;
pub(crate) mod header_builder;
pub mod icrc_insert;
pub mod packetizer;
pub mod segmenter;

pub use generator::TxGenerator;
pub use icrc_insert::IcrcInsert;
pub use packetizer::TxPacketizer;
pub use segmenter::TxSegmenter;
