//! The host path: the frames the engine answers itself (ARP requests and ICMP echo requests
//! for its own IPv4 address) and what it does with the others (they go to the host untouched).
//!
//! A reply is the request frame, byte for byte and of the same length, with the fields a reply
//! changes rewritten: both the ARP reply and the echo reply go to the sender's MAC from the
//! engine's, keep the request's VLAN tags, padding and trailer. An echo reply keeps the IP
//! header (addresses swapped, so the header checksum holds), the identifier, sequence number
//! and data; its ICMP checksum is updated for the new type (RFC 1624), so a request whose ICMP
//! checksum was wrong gets a reply whose checksum is wrong too and the requester drops it.

use crate::{arp, ethernet, icmp, ipv4};

/// Beats of the reply buffer.
pub const REPLY_BEATS: usize = 32;

/// Bytes of the reply buffer at a bus width of `bytes_per_beat` bytes: the longest frame the
/// engine answers itself (2 KiB at 512 bits, 256 bytes at 64). An echo request whose IP
/// datagram does not fit goes to the host.
pub const fn reply_capacity(bytes_per_beat: usize) -> usize {
    REPLY_BEATS * bytes_per_beat
}

/// The reply buffer at 512 bits.
pub const REPLY_CAPACITY: usize = reply_capacity(64);

/// The head of a frame the classifier looks at: Ethernet with two VLAN tags and an ARP packet
/// (the longest of the headers it checks).
pub const WINDOW_BYTES: usize = ethernet::header_len(ethernet::MAX_VLANS) + arp::PACKET_LEN;

/// The head of an echo request the classifier needs (after the VLAN tags): the IP header and
/// the ICMP type, code and checksum.
pub const ECHO_CLASSIFY_LEN: usize = ethernet::HEADER_LEN + ipv4::HEADER_LEN + icmp::field::CHECKSUM.end;

/// The shortest IP datagram of an echo request: the IP header and the echo header.
pub const ECHO_MIN_DATAGRAM: usize = ipv4::HEADER_LEN + icmp::ECHO_HEADER_LEN;

/// The 16-bit word of the ICMP type and code that an echo reply changes: request (type 8,
/// code 0) to reply (type 0, code 0).
pub const ECHO_TYPE_WORD: (u16, u16) = ((icmp::ECHO_REQUEST as u16) << 8, (icmp::ECHO_REPLY as u16) << 8);

/// Why an echo request the classifier accepted was not answered. The classifier sees only the
/// head of a frame; these are found at its end, after the frame went to the reply buffer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum HostDrop {
    /// The frame ends before the IP datagram its total length announces.
    Truncated = 1,
    /// The frame (with what follows the IP datagram) is longer than the reply buffer.
    TooLong = 2,
}

impl HostDrop {
    /// Every reason, in code order.
    pub const ALL: [HostDrop; 2] = [HostDrop::Truncated, HostDrop::TooLong];

    /// The reason's name (counters, JSON).
    pub const fn name(self) -> &'static str {
        match self {
            HostDrop::Truncated => "truncated",
            HostDrop::TooLong => "too_long",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn window_holds_every_checked_header() {
        assert_eq!(WINDOW_BYTES, 50);
        assert!(ethernet::header_len(ethernet::MAX_VLANS) - ethernet::HEADER_LEN + ECHO_CLASSIFY_LEN <= WINDOW_BYTES);
        assert_eq!(ECHO_TYPE_WORD, (0x0800, 0x0000));
    }
}
