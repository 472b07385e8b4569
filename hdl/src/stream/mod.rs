//! Streaming into remote memory: [`port`] cuts an AXI-Stream into messages of one remote slot
//! each and keeps them in its buffer until they are sent; [`sender`] posts each as an RDMA
//! WRITE with immediate into its slot and releases it once completed; [`reader`] serves the TX
//! path's reads of the messages from the ports' buffers; [`router`] splits the TX path's reads
//! between memory and the stream window and merges their data in order; [`set`] puts them
//! together with each stream's [`registers`] and the [`turns`] of the senders' and the host's
//! posts (the contracts:
//! `ferroce_contracts::stream`; the golden model: `ferroce_models::stream`).

pub mod bus;
pub mod bus_commands;
pub mod bus_completions;
pub mod bus_sender;
pub mod bus_set;
pub mod bus_staged;
pub mod commands;
pub mod numbers;
pub mod port;
pub mod reader;
pub mod registers;
pub mod router;
pub mod sender;
pub mod set;
pub mod turns;

pub use bus::StreamBus;
pub use bus_sender::StreamBusSender;
pub use bus_set::StreamBusSet;
pub use port::StreamPort;
pub use reader::StreamReader;
pub use registers::StreamRegisters;
pub use router::StreamReadRouter;
pub use sender::StreamSender;
pub use set::StreamSet;
pub use turns::PostTurns;
