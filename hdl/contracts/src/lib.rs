//! The contracts of Ferroce, written once.
//!
//! Everything that the RTL (`ferroce-hdl`), the golden models (`ferroce-models`, `ferroce-wire`),
//! the Verilator harness (`ferroce-sim`) and the host tools must agree on lives here as Rust data:
//!
//! * [`header`]: per header, a `field` module of byte ranges (as smoltcp's `wire` does), its
//!   length and its well-known values (ethertypes, TPIDs, UDP port 4791).
//! * [`host`]: the host path: which frames the engine answers itself (ARP, ICMP echo), the
//!   reply buffer and the reasons an accepted echo request is dropped.
//! * [`memory`]: how the AXI4 master cuts memory commands into bursts (4 KiB boundaries, 256
//!   beats).
//! * [`opcode`]: BTH opcodes, their transport, operation and extension headers.
//! * [`icrc`]: the ICRC's masked fields, prefix and constants.
//! * [`rx`]: the RX drop reasons with their codes, the verdict codes of the ICRC check, and the
//!   schema of the RX header record (field names, widths, meanings).
//! * [`served`]: the line protocol of the simulated device (`ferroce-ctl --device sim:PATH`),
//!   registers and the engine's memory.
//! * [`serial`]: the serial register protocol (AXI4-Lite accesses over a UART) and the reasons
//!   its bridge discards bytes.
//! * [`schema`]: records as tables of fields, and how a record is packed into 32-bit words.
//! * [`sched`]: the layout of the scheduler's configuration registers.
//! * [`regs`]: the register map of the AXI4-Lite register file, and the C header, SystemRDL and
//!   Markdown generated from it.
//! * [`tx`]: the QP context, the transfer post, and the codes of the TX path (post refusals,
//!   completion status, channel status, path MTU).
//! * [`responder`]: the responder's check failures in precedence order with the RC answer to
//!   each, the AETH syndrome and its encoding, RNR timer codes, receive completion status and
//!   the memory region table entry.
//!
//! The RTL computes its offsets, tables and codes from these definitions at elaboration; the
//! models and runners read the same definitions, so a field or a code exists in one place.
//! This crate depends on nothing.
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod header;
pub mod host;
pub mod icrc;
pub mod memory;
pub mod opcode;
pub mod regs;
pub mod reliability;
pub mod responder;
pub mod rx;
pub mod sched;
pub mod schema;
pub mod serial;
pub mod served;
pub mod stream;
pub mod tx;

pub use header::{aeth, arp, atomic_ack_eth, atomic_eth, bth, deth, ethernet, icmp, ieth, immdt, ipv4, ipv6, rdeth, reth, udp};
pub use opcode::{ExtHeaders, Opcode, Operation, ReservedOpcode, Transport};

/// A byte range of a header field, from the first byte of its header.
pub type Field = core::ops::Range<usize>;
