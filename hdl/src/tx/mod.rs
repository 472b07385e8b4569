//! The TX data path: [`segmenter`] takes transfer posts, keeps the transfer table, cuts the
//! transfers the scheduler picks into blocks and [`packetizer`] cuts blocks into packet
//! descriptors; [`icrc_insert`] appends the ICRC to RoCEv2 frames on their way to the MAC. The
//! packet generator will come between them.

pub mod icrc_insert;
pub mod packetizer;
pub mod segmenter;

pub use icrc_insert::IcrcInsert;
pub use packetizer::TxPacketizer;
pub use segmenter::TxSegmenter;
