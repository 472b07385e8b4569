//! The TX data path, in stream order: [`segmenter`] takes transfer posts, keeps the transfer
//! table and cuts the transfers the scheduler picks into blocks; [`packetizer`] cuts blocks into
//! packet descriptors and memory read commands; [`generator`] turns descriptors into frames
//! (headers, payload funnel, pad); [`icrc_insert`] appends the ICRC on the way to the MAC;
//! [`ack_tracker`] holds an RC transfer's completion until its last PSN is acknowledged;
//! [`retry_timer`] keeps an RC QP's retransmission timer and retry counters, [`send_history`]
//! its blocks not yet acknowledged, to cut them again;
//! [`path`] joins them (and the scheduler) into the whole TX path.

pub mod ack_tracker;
pub mod generator;
pub(crate) mod header_builder;
pub mod icrc_insert;
pub mod packetizer;
pub mod path;
pub mod payload_buffer;
pub mod retry_timer;
pub mod segmenter;
pub mod send_history;

pub use ack_tracker::AckTracker;
pub use generator::TxGenerator;
pub use icrc_insert::IcrcInsert;
pub use packetizer::TxPacketizer;
pub use path::TxPath;
pub use retry_timer::RetryTimer;
pub use segmenter::TxSegmenter;
pub use send_history::SendHistory;
