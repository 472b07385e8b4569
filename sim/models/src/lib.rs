//! Ferroce golden models: the software twins of the hardware units, in pure Rust (no build
//! script, no Verilator), so host tools and quick tests can use them.
//!
//! * [`icrc`]: what `IcrcCheck` and `IcrcInsert` must produce.
//! * [`rx`]: the RX front end (`RxFront`): verdicts, drop reasons, header records, payload.
//! * [`regs`]: the register file (`Registers`), transaction by transaction.
//! * [`sched`]: the scheduler (`Sched`), cycle-accurate, behind the [`sched::SchedEngine`] trait
//!   that the Verilator runner implements too.
//! * [`tx`]: the TX path (transfer table, scheduling by block, segmenter, packetizer, packet
//!   generator) from posts to frames, behind the [`tx::TxEngine`] trait.
//! * [`host`]: the host path (`HostResponder`): the ARP and ICMP echo requests the engine
//!   answers for its own address, the replies it builds, and the frames it passes to the host.
//! * [`responder`]: the RX transport layer (RC and UC responder): per accepted request, the
//!   checks, the memory write, the receive completion and the ACK or NAK.
//! * [`ingress`]: the MAC ingress (`MacIngress`): the frames of a MAC's receive stream that
//!   reach the RX path, and its drop counters.
//! * [`serial`]: the serial bridge (`SerialBridge`): register accesses over a UART, and the
//!   bytes it discards.
//! * [`stream`]: stream ports (streaming into a ring of remote slots with no CPU): how a stream
//!   is cut into messages, their slots and immediates, and the pacer of a stream's packets.
//!
//! Wire formats come from [`ferroce_wire`] (re-exported as [`wire`]); codes, field ranges and
//! record schemas from [`ferroce_contracts`] (re-exported as [`contracts`]).
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub use ferroce_contracts as contracts;
pub use ferroce_wire as wire;

pub mod host;
pub mod icrc;
pub mod ingress;
pub mod regs;
pub mod responder;
pub mod rx;
pub mod sched;
pub mod sched_build;
pub mod serial;
pub mod stream;
pub mod tx;

/// A unit that takes whole frames and gives one result per frame. The golden model and the
/// unit's Verilator runner (in `ferroce-sim`) both implement it, so the command line, replay and
/// co-simulation code are written once and run on either engine (the scheduler's twin of this
/// is [`sched::SchedEngine`]).
pub trait FrameEngine {
    /// One frame's result.
    type Output;
    /// Runs the frames through the unit; one result per frame, in order.
    fn run(&mut self, frames: &[Vec<u8>]) -> Result<Vec<Self::Output>, String>;
}
