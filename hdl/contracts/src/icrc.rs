//! The ICRC (invariant CRC) of RoCEv2: what it covers, which bits are masked, its constants.
//!
//! Input = `FF×8` (stands for the masked LRH) ‖ IP header ‖ UDP header ‖ BTH ‖ extension
//! headers ‖ payload ‖ pad, with the masked bits below replaced by ones. CRC-32/IEEE 802.3
//! (reflected, init and xorout `0xFFFFFFFF`); the 4 wire bytes are the value little-endian, at
//! the end of the IP packet (before any MAC padding).

use crate::header::{bth, ipv4, ipv6, udp};
use crate::Field;

/// ICRC length on the wire.
pub const ICRC_LEN: usize = 4;
/// The 8 bytes that stand for the masked LRH.
pub const LRH_PREFIX: [u8; 8] = [0xFF; 8];
/// Raw CRC register after the `FF×8` prefix (from the init `0xFFFFFFFF`): a unit that starts at
/// the IP header starts from this state.
pub const PREFIX_STATE: u32 = 0xDEBB_20E3;

/// Bytes of a header whose bits `bits` are replaced by ones in the ICRC input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Masked {
    /// The bytes, from the first byte of their header.
    pub bytes: Field,
    /// The masked bits of each of these bytes.
    pub bits: u8,
}

const fn byte(at: usize) -> Field {
    at..at + 1
}

/// IPv4: DSCP/ECN, TTL, header checksum.
pub const IPV4_MASKED: [Masked; 3] = [
    Masked {
        bytes: byte(ipv4::field::DSCP_ECN),
        bits: 0xFF,
    },
    Masked {
        bytes: byte(ipv4::field::TTL),
        bits: 0xFF,
    },
    Masked {
        bytes: ipv4::field::CHECKSUM,
        bits: 0xFF,
    },
];
/// IPv6: traffic class and flow label (the low nibble of byte 0, bytes 1–3), hop limit.
pub const IPV6_MASKED: [Masked; 3] = [
    Masked { bytes: 0..1, bits: 0x0F },
    Masked { bytes: 1..4, bits: 0xFF },
    Masked {
        bytes: byte(ipv6::field::HOP_LIMIT),
        bits: 0xFF,
    },
];
/// UDP: the checksum.
pub const UDP_MASKED: [Masked; 1] = [Masked {
    bytes: udp::field::CHECKSUM,
    bits: 0xFF,
}];
/// BTH: FECN, BECN and the reserved bits (byte 4).
pub const BTH_MASKED: [Masked; 1] = [Masked {
    bytes: byte(bth::field::FECN_BECN),
    bits: 0xFF,
}];

/// The masked bytes of an IP packet as (offset from the IP header start, masked bits), in
/// ascending offset: the IP header's own, then UDP's at `ip_header_len`, then the BTH's after
/// the UDP header. `ip_header_len` is 20 for IPv4 without options and 40 for IPv6.
pub fn masks(v6: bool, ip_header_len: usize) -> impl Iterator<Item = (usize, u8)> {
    let ip: &'static [Masked] = if v6 { &IPV6_MASKED } else { &IPV4_MASKED };
    let at = |base: usize, list: &'static [Masked]| list.iter().flat_map(move |m| m.bytes.clone().map(move |o| (base + o, m.bits)));
    at(0, ip)
        .chain(at(ip_header_len, &UDP_MASKED))
        .chain(at(ip_header_len + udp::HEADER_LEN, &BTH_MASKED))
}

/// The masked bits of the byte at `offset` from the IP header start (0 if none).
pub fn masked_bits(v6: bool, ip_header_len: usize, offset: usize) -> u8 {
    masks(v6, ip_header_len).find(|&(o, _)| o == offset).map_or(0, |(_, m)| m)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn masked_offsets_are_the_published_ones() {
        let v4: Vec<_> = masks(false, 20).collect();
        assert_eq!(
            v4,
            [(1, 0xFF), (8, 0xFF), (10, 0xFF), (11, 0xFF), (26, 0xFF), (27, 0xFF), (32, 0xFF)]
        );
        let v6: Vec<_> = masks(true, 40).collect();
        assert_eq!(
            v6,
            [
                (0, 0x0F),
                (1, 0xFF),
                (2, 0xFF),
                (3, 0xFF),
                (7, 0xFF),
                (46, 0xFF),
                (47, 0xFF),
                (52, 0xFF)
            ]
        );
        assert_eq!(masked_bits(true, 40, 0), 0x0F);
        assert_eq!(masked_bits(false, 20, 9), 0);
    }
}
