//! Frame classification patterns shared by the units that decode a frame head (the ICRC core,
//! the RX header decoder): compares `(register & mask) == value` computed from the contracts.

use super::elab::BytePattern;
use ferroce_contracts::{ethernet, ipv4, ipv6, udp};

/// The ethertype (or TPID) after `tags` VLAN tags equals `value`.
pub fn ethertype(tags: usize, value: u16) -> BytePattern {
    let at = ethernet::field::ETHERTYPE;
    let shift = ethernet::VLAN_TAG_LEN * tags;
    BytePattern::new().field(at.start + shift..at.end + shift, value.into())
}

/// RoCEv2 after `tags` VLAN tags: the IP ethertype, UDP and the RoCEv2 port, and with
/// `with_version` the IP version (and IHL 5 for IPv4).
pub fn roce_pattern(tags: usize, v6: bool, with_version: bool) -> BytePattern {
    let l2 = ethernet::header_len(tags);
    let (ethertype_value, ip_header_len, protocol_at) = if v6 {
        (ethernet::ETHERTYPE_IPV6, ipv6::HEADER_LEN, ipv6::field::NEXT_HEADER)
    } else {
        (ethernet::ETHERTYPE_IPV4, ipv4::HEADER_LEN, ipv4::field::PROTOCOL)
    };
    let udp_at = l2 + ip_header_len;
    let pattern = ethertype(tags, ethertype_value)
        .bits(l2 + protocol_at, 0xFF, ipv4::PROTO_UDP)
        .field(
            udp_at + udp::field::DST_PORT.start..udp_at + udp::field::DST_PORT.end,
            udp::ROCEV2_PORT.into(),
        );
    match (with_version, v6) {
        (false, _) => pattern,
        (true, true) => pattern.bits(l2, 0xF0, ipv6::VERSION << 4),
        (true, false) => pattern.bits(l2 + ipv4::field::VERSION_IHL, 0xFF, ipv4::VERSION << 4 | ipv4::IHL),
    }
}
