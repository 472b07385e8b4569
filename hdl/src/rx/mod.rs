//! The RX data path, in stream order: [`mac_ingress`] (whole good frames from a MAC without
//! backpressure, in boards' tops), [`icrc_check`] → [`header`] → [`front`] (the RX front
//! end: header records, realigned payload, pass-through, counters).

pub mod front;
pub mod header;
pub mod icrc_check;
pub mod mac_ingress;
pub mod payload_queue;
pub(crate) mod realign;

pub use front::RxFront;
pub use header::RxHeader;
pub use icrc_check::IcrcCheck;
pub use mac_ingress::MacIngress;
