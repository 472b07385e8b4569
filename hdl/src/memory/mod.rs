//! The engine's memory side on an AXI4 bus: [`Axi4Master`] turns the DataMover-style read and
//! write commands of the TX and RX paths into AXI4 bursts ([`BurstSplitter`]), moving the data
//! between lane 0 and the address's lane ([`BeatRealigner`]).

pub mod bursts;
pub mod master;
pub mod reader;
pub mod realign;
pub mod writer;

pub use bursts::{BurstSplitter, CommandBursts, CommandIntake};
pub use master::Axi4Master;
pub use reader::AxiReader;
pub use realign::BeatRealigner;
pub use writer::AxiWriter;
