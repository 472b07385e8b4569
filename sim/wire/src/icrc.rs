//! Invariant CRC (ICRC) of RoCEv2 packets, as `ferroce_contracts::icrc` defines it.
//!
//! Input = `FF×8` (the masked LRH) ‖ IP header ‖ UDP header ‖ BTH ‖ extension headers ‖
//! payload ‖ pad, with these bits forced to one first: IPv4 TOS (byte 1), TTL (byte 8) and
//! header checksum (bytes 10–11); IPv6 traffic class and flow label (low nibble of byte 0,
//! bytes 1–3) and hop limit (byte 7); UDP checksum; all of BTH byte 4. The CRC is
//! CRC-32/IEEE 802.3 (`crc::CRC_32_ISO_HDLC`, same as `zlib.crc32`); the four wire bytes are
//! `value.to_le_bytes()`.

use crate::ethernet::{self, is_vlan_tpid, ETHERTYPE_IPV4, ETHERTYPE_IPV6, MAX_VLANS};
use crate::field::{be16, shift};
use crate::{bth, ipv4, ipv6, udp};
use crc::{Crc, CRC_32_ISO_HDLC};

/// The 8 bytes that stand for the masked LRH (the contracts' `LRH_PREFIX`).
pub use ferroce_contracts::icrc::LRH_PREFIX as LRH_MASK;
pub use ferroce_contracts::icrc::{ICRC_LEN, PREFIX_STATE};

const CRC32: Crc<u32> = Crc::<u32>::new(&CRC_32_ISO_HDLC);

/// The largest IPv4 header (IHL 15).
const IPV4_MAX_HEADER_LEN: usize = ipv4::IHL_MASK as usize * ipv4::IHL_UNIT;
/// End (exclusive, from the IP header start) of the last masked byte, BTH byte 4, after an IP
/// header of `ip_header_len` bytes.
const fn masked_end(ip_header_len: usize) -> usize {
    ip_header_len + udp::HEADER_LEN + bth::field::FECN_BECN + 1
}
/// Every masked byte lies before this offset from the IP header start.
const MASKED_END: usize = masked_end(IPV4_MAX_HEADER_LEN);
const _: () = assert!(masked_end(ipv6::HEADER_LEN) <= MASKED_END);

/// Byte offsets (from the IP header start) and bit masks of the ICRC-masked bits for an IP
/// packet, chosen by its version nibble: IPv4 (UDP after IHL×4 bytes, IHL taken as at least 5)
/// or IPv6 (UDP at 40). Other versions, or an empty input, give no masks.
pub fn masks(ip_packet: &[u8]) -> Vec<(usize, u8)> {
    let Some(&b0) = ip_packet.first() else {
        return Vec::new();
    };
    let (v6, header_len) = match b0 >> 4 {
        ipv4::VERSION => {
            let ihl = ipv4::Packet::new_unchecked(ip_packet).ihl().max(ipv4::IHL);
            (false, usize::from(ihl) * ipv4::IHL_UNIT)
        }
        ipv6::VERSION => (true, ipv6::HEADER_LEN),
        _ => return Vec::new(),
    };
    ferroce_contracts::icrc::masks(v6, header_len)
        .filter(|&(o, _)| o < ip_packet.len())
        .collect()
}

/// Applies the ICRC masks of [`masks`] to an IP packet in place.
pub fn mask_in_place(ip_packet: &mut [u8]) {
    for (o, m) in masks(ip_packet) {
        ip_packet[o] |= m;
    }
}

/// The exact byte string the ICRC is the CRC-32 of: `FF×8` ‖ masked IP packet.
pub fn masked_input(ip_packet_without_icrc: &[u8]) -> Vec<u8> {
    let mut v = Vec::with_capacity(LRH_MASK.len() + ip_packet_without_icrc.len());
    v.extend_from_slice(&LRH_MASK);
    v.extend_from_slice(ip_packet_without_icrc);
    mask_in_place(&mut v[LRH_MASK.len()..]);
    v
}

/// ICRC of an IP packet (IP header through pad, without the ICRC itself). Masks are chosen
/// by the version nibble (see [`masks`]). The wire bytes are `icrc(..).to_le_bytes()`.
pub fn icrc(ip_packet_without_icrc: &[u8]) -> u32 {
    let p = ip_packet_without_icrc;
    // Masks only touch the first MASKED_END bytes.
    let head_len = p.len().min(MASKED_END);
    let mut head = [0u8; MASKED_END];
    head[..head_len].copy_from_slice(&p[..head_len]);
    mask_in_place(&mut head[..head_len]);
    let mut d = CRC32.digest();
    d.update(&LRH_MASK);
    d.update(&head[..head_len]);
    d.update(&p[head_len..]);
    d.finalize()
}

/// ICRC verdict on an Ethernet frame (no FCS). See [`icrc_verdict`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum IcrcVerdict {
    /// Not a RoCEv2 frame by the rules of [`icrc_verdict`].
    NotRoce,
    /// A RoCEv2 frame.
    Roce {
        /// ICRC computed over the IP packet, or `None` if the IP length is too small or runs
        /// past the frame end.
        computed: Option<u32>,
        /// ICRC read from the wire (`u32::from_le_bytes` of the 4 bytes before the IP end).
        wire: Option<u32>,
        /// `computed == wire`, both present.
        ok: bool,
    },
}

impl IcrcVerdict {
    /// True only for a RoCE frame whose ICRC verifies.
    pub fn is_ok(&self) -> bool {
        matches!(self, IcrcVerdict::Roce { ok: true, .. })
    }
    /// True for any RoCE verdict.
    pub fn is_roce(&self) -> bool {
        matches!(self, IcrcVerdict::Roce { .. })
    }
}

/// Where the L2 header ends and which ethertype follows, per rule 1 of [`icrc_verdict`].
fn l2_walk(frame: &[u8]) -> Option<(usize, u16)> {
    let mut tags = 0;
    loop {
        let f = ethernet::ethertype_field(tags);
        if f.end > frame.len() {
            return None;
        }
        let et = be16(frame, f);
        if !is_vlan_tpid(et) {
            return Some((ethernet::header_len(tags), et));
        }
        tags += 1;
        if tags > MAX_VLANS {
            return None;
        }
    }
}

/// Locates the RoCE IP packet per rules 1–2 of [`icrc_verdict`]: `(l2, iplen, minlen)`;
/// `None` for a frame that is not RoCEv2 by those rules.
pub fn locate(frame: &[u8]) -> Option<(usize, usize, usize)> {
    let (l2, et) = l2_walk(frame)?;
    let ip = &frame[l2..];
    // The headers after the IP header that a RoCE IP packet holds at least, ICRC included.
    let min_rest = udp::HEADER_LEN + bth::HEADER_LEN + ICRC_LEN;
    match et {
        ETHERTYPE_IPV4 => {
            use ipv4::field;
            let port = shift(udp::field::DST_PORT, ipv4::HEADER_LEN);
            if ip.len() < port.end {
                return None;
            }
            let roce = ip[field::VERSION_IHL] == (ipv4::VERSION << 4) | ipv4::IHL
                && ip[field::PROTOCOL] == ipv4::PROTO_UDP
                && be16(ip, port) == udp::ROCEV2_PORT;
            let iplen = usize::from(be16(ip, field::TOTAL_LEN));
            roce.then_some((l2, iplen, ipv4::HEADER_LEN + min_rest))
        }
        ETHERTYPE_IPV6 => {
            use ipv6::field;
            let port = shift(udp::field::DST_PORT, ipv6::HEADER_LEN);
            if ip.len() < port.end {
                return None;
            }
            let roce = ip[field::VERSION_CLASS_FLOW.start] >> 4 == ipv6::VERSION
                && ip[field::NEXT_HEADER] == ipv4::PROTO_UDP
                && be16(ip, port) == udp::ROCEV2_PORT;
            let iplen = ipv6::HEADER_LEN + usize::from(be16(ip, field::PAYLOAD_LEN));
            roce.then_some((l2, iplen, ipv6::HEADER_LEN + min_rest))
        }
        _ => None,
    }
}

/// The frame-level ICRC verdict that the hardware checker must match bit for bit.
///
/// Offsets are bytes from the frame start; the frame has no FCS.
/// 1. `l2 = 14`, `et = be16[12..14]`; on TPID 0x8100/0x88A8 `l2 = 18`, `et = be16[16..18]`;
///    on a second TPID `l2 = 22`, `et = be16[20..22]`; a third TPID is `NotRoce`.
/// 2. IPv4 (0x0800): RoCE iff `frame[l2] == 0x45`, `frame[l2+9] == 17` and
///    `be16[l2+22..l2+24] == 4791`; `iplen = be16[l2+2..l2+4]`, `minlen = 44`.
///    IPv6 (0x86DD): RoCE iff `frame[l2] >> 4 == 6`, `frame[l2+6] == 17` and
///    `be16[l2+42..l2+44] == 4791`; `iplen = 40 + be16[l2+4..l2+6]`, `minlen = 64`.
///    Anything else, or any read beyond the frame end, is `NotRoce`.
/// 3. `e = l2 + iplen`. If `iplen >= minlen` and `e <= frame.len()`: computed =
///    `icrc(frame[l2..e-4])`, wire = `u32::from_le_bytes(frame[e-4..e])`, ok = equal;
///    otherwise both `None` and ok false. Bytes after `e` (MAC padding) are ignored.
pub fn icrc_verdict(frame: &[u8]) -> IcrcVerdict {
    let Some((l2, iplen, minlen)) = locate(frame) else {
        return IcrcVerdict::NotRoce;
    };
    let e = l2 + iplen;
    if iplen >= minlen && e <= frame.len() {
        let computed = icrc(&frame[l2..e - ICRC_LEN]);
        let wire = u32::from_le_bytes(frame[e - ICRC_LEN..e].try_into().unwrap());
        IcrcVerdict::Roce {
            computed: Some(computed),
            wire: Some(wire),
            ok: computed == wire,
        }
    } else {
        IcrcVerdict::Roce {
            computed: None,
            wire: None,
            ok: false,
        }
    }
}

/// Which bytes of a frame the ICRC covers and which bits of them are masked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IcrcCoverage {
    /// Frame offset of the IP header (`l2`).
    pub ip_start: usize,
    /// Frame offset of the ICRC (`e - 4`); the covered bytes are `ip_start..icrc_at`.
    pub icrc_at: usize,
    /// Frame offsets and bit masks of the masked (don't-care) bits.
    pub masked: Vec<(usize, u8)>,
}

impl IcrcCoverage {
    /// End of the IP packet (`e`): the ICRC occupies `icrc_at..ip_end`.
    pub fn ip_end(&self) -> usize {
        self.icrc_at + ICRC_LEN
    }
    /// The mask of don't-care bits in frame byte `at` (0 if none).
    pub fn masked_bits(&self, at: usize) -> u8 {
        self.masked.iter().filter(|(o, _)| *o == at).fold(0, |a, (_, m)| a | m)
    }
    /// True when frame bit `bit` (byte `bit / 8`, MSB first, as in [`crate::gen::flip_bit`])
    /// lies in the covered bytes or the ICRC and is not masked.
    pub fn is_protected_bit(&self, bit: usize) -> bool {
        let at = bit / 8;
        let m = 0x80u8 >> (bit % 8);
        (self.ip_start..self.ip_end()).contains(&at) && self.masked_bits(at) & m == 0
    }
}

/// The ICRC coverage of a frame that [`icrc_verdict`] treats as RoCE with an ICRC present
/// (`computed` is `Some`); `None` otherwise.
pub fn coverage(frame: &[u8]) -> Option<IcrcCoverage> {
    let (l2, iplen, minlen) = locate(frame)?;
    let e = l2 + iplen;
    if iplen < minlen || e > frame.len() {
        return None;
    }
    let masked = masks(&frame[l2..e - ICRC_LEN]).into_iter().map(|(o, m)| (l2 + o, m)).collect();
    Some(IcrcCoverage {
        ip_start: l2,
        icrc_at: e - ICRC_LEN,
        masked,
    })
}
