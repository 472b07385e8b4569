//! The error type shared by every header module.

use crate::ethernet::{TPID_8021AD, TPID_8021Q};
use crate::udp::ROCEV2_PORT;
use core::fmt;
use ferroce_contracts::ReservedOpcode;

/// What is wrong with a buffer being parsed or a representation being emitted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Error {
    /// The buffer is shorter than the header (or than a length field says).
    Truncated,
    /// More than two VLAN tags precede the ethertype (`vlan_count` tags were seen).
    TooManyVlans,
    /// A VLAN tag's TPID is neither 0x8100 nor 0x88A8 (emit side).
    BadTpid(u16),
    /// The ethertype is not one this crate handles here (e.g. neither IPv4 nor IPv6).
    UnknownEthertype(u16),
    /// The IP version nibble is not the expected one.
    BadVersion(u8),
    /// The IPv4 IHL is below 5, or not supported (only IHL 5 is emitted / accepted for RoCEv2).
    BadIhl(u8),
    /// The IPv4 header checksum does not verify.
    BadChecksum {
        /// Checksum field on the wire.
        wire: u16,
        /// Checksum computed over the header.
        computed: u16,
    },
    /// The ICMP checksum does not verify over the message.
    BadIcmpChecksum {
        /// Checksum field on the wire.
        wire: u16,
        /// Checksum computed over the message.
        computed: u16,
    },
    /// An IP total/payload length or UDP length is inconsistent with the buffer or the header.
    BadLength,
    /// The IP protocol / IPv6 next header is not UDP (17).
    NotUdp(u8),
    /// The UDP destination port is not 4791 (RoCEv2).
    NotRoceV2Port(u16),
    /// The BTH opcode is reserved or unknown.
    UnknownOpcode(u8),
    /// The BTH transport header version is not 0.
    BadTver(u8),
    /// The BTH PadCnt is larger than the payload it would strip.
    BadPadCnt(u8),
    /// The ICRC on the wire does not match the computed one.
    BadIcrc {
        /// ICRC read from the wire (as `u32::from_le_bytes`).
        wire: u32,
        /// ICRC computed over the masked packet.
        computed: u32,
    },
    /// The extension headers given in a representation do not match what the opcode requires.
    ExtMismatch(&'static str),
    /// A field value does not fit its wire width (e.g. a 24-bit QPN above 0xFF_FFFF).
    FieldRange(&'static str),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Truncated => write!(f, "buffer truncated"),
            Error::TooManyVlans => write!(f, "more than two VLAN tags"),
            Error::BadTpid(t) => write!(f, "bad VLAN TPID {t:#06x} (want {TPID_8021Q:#06x} or {TPID_8021AD:#06x})"),
            Error::UnknownEthertype(t) => write!(f, "unsupported ethertype {t:#06x}"),
            Error::BadVersion(v) => write!(f, "bad IP version {v}"),
            Error::BadIhl(i) => write!(f, "unsupported IPv4 IHL {i} (RoCEv2 needs 5)"),
            Error::BadChecksum { wire, computed } => {
                write!(f, "IPv4 header checksum {wire:#06x}, computed {computed:#06x}")
            }
            Error::BadIcmpChecksum { wire, computed } => {
                write!(f, "ICMP checksum {wire:#06x}, computed {computed:#06x}")
            }
            Error::BadLength => write!(f, "inconsistent length field"),
            Error::NotUdp(p) => write!(f, "IP protocol {p} is not UDP"),
            Error::NotRoceV2Port(p) => {
                write!(f, "UDP destination port {p} is not {ROCEV2_PORT}")
            }
            Error::UnknownOpcode(o) => write!(f, "reserved or unknown BTH opcode {o:#04x}"),
            Error::BadTver(v) => write!(f, "BTH TVer {v} is not 0"),
            Error::BadPadCnt(p) => write!(f, "BTH PadCnt {p} exceeds the payload"),
            Error::BadIcrc { wire, computed } => {
                write!(f, "ICRC mismatch: wire {wire:#010x}, computed {computed:#010x}")
            }
            Error::ExtMismatch(what) => write!(f, "extension headers do not match opcode: {what}"),
            Error::FieldRange(what) => write!(f, "field out of range: {what}"),
        }
    }
}

impl std::error::Error for Error {}

impl From<ReservedOpcode> for Error {
    fn from(e: ReservedOpcode) -> Error {
        Error::UnknownOpcode(e.0)
    }
}

/// Result alias used throughout the crate.
pub type Result<T> = core::result::Result<T, Error>;
