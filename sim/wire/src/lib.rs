//! Wire formats of RoCEv2 for the Ferroce engine's simulations and tests.
//!
//! In the style of smoltcp's `wire` module: for each header a checked view over bytes
//! (`Packet<T: AsRef<[u8]>>` with `new_checked`, field getters, and setters when the buffer
//! is `AsMut`) and a parsed representation (`Repr`) with symmetric `parse` / `emit` and
//! `buffer_len`. Multi-byte header fields are big-endian; the ICRC is little-endian.
//!
//! * [`ethernet`] (0–2 VLAN tags), [`ipv4`], [`ipv6`], [`udp`]
//! * [`arp`] and [`icmp`] (echo): the frames the engine answers for its own address
//! * [`bth`], [`opcode`] and the extension headers [`rdeth`], [`deth`], [`reth`],
//!   [`atomic_eth`], [`aeth`], [`atomic_ack_eth`], [`immdt`], [`ieth`]
//! * [`mod@icrc`]: the ICRC and the frame-level [`icrc::icrc_verdict`]
//! * [`packet`]: a whole frame, [`RoceFrame`]
//! * [`pcap`]: pcap file I/O; [`gen`]: seeded random frames
//!
//! ```
//! use ferroce_wire::{gen::FrameGen, icrc_verdict, Opcode, RoceFrame};
//!
//! let mut f = FrameGen::new(1).roce_frame_with(Opcode::RC_WRITE_ONLY_IMM);
//! f.payload = b"hello".to_vec();
//! f.normalize(); // PadCnt 3, lengths
//! let bytes = f.emit(); // headers, payload, pad, ICRC, MAC padding
//! assert!(icrc_verdict(&bytes).is_ok());
//! assert_eq!(RoceFrame::parse(&bytes).unwrap(), f);
//! assert_eq!(f.bth.pad_cnt, 3);
//! ```
#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod error;
mod field;
mod view;

pub mod aeth;
pub mod arp;
pub mod atomic_ack_eth;
pub mod atomic_eth;
pub mod bth;
pub mod deth;
pub mod ethernet;
pub mod gen;
pub mod icmp;
pub mod icrc;
pub mod ieth;
pub mod immdt;
pub mod ipv4;
pub mod ipv6;
pub mod opcode;
pub mod packet;
pub mod pcap;
pub mod rdeth;
pub mod reth;
pub mod udp;

pub use aeth::Repr as AethRepr;
pub use arp::Repr as ArpRepr;
pub use atomic_ack_eth::Repr as AtomicAckEthRepr;
pub use atomic_eth::Repr as AtomicEthRepr;
pub use bth::Repr as BthRepr;
pub use deth::Repr as DethRepr;
pub use error::{Error, Result};
pub use ethernet::{Repr as EthernetRepr, VlanTag};
pub use icmp::Repr as IcmpRepr;
pub use icrc::{icrc, icrc_verdict, IcrcVerdict};
pub use ieth::Repr as IethRepr;
pub use immdt::Repr as ImmDtRepr;
pub use ipv4::Repr as Ipv4Repr;
pub use ipv6::Repr as Ipv6Repr;
pub use opcode::{ExtHeaders, Opcode, Operation, Transport};
pub use packet::{ExtRepr, IpRepr, RoceFrame};
pub use rdeth::Repr as RdethRepr;
pub use reth::Repr as RethRepr;
pub use udp::{Repr as UdpRepr, ROCEV2_PORT};
