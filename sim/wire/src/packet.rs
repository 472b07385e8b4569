//! A whole RoCEv2 frame: Ethernet (+VLANs) / IPv4 or IPv6 / UDP 4791 / BTH / extension
//! headers / payload / pad / ICRC, followed by MAC padding up to 60 bytes.

use crate::ethernet::{self, ETHERTYPE_IPV4, ETHERTYPE_IPV6, MIN_FRAME_LEN};
use crate::icrc::{icrc, ICRC_LEN};
use crate::opcode::{ExtHeaders, Opcode, CNP_RESERVED_LEN};
use crate::udp::ROCEV2_PORT;
use crate::{aeth, atomic_ack_eth, atomic_eth, bth, deth, ieth, immdt, ipv4, ipv6, rdeth, reth, udp};
use crate::{Error, Result};

/// The IP layer of a RoCEv2 frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum IpRepr {
    /// IPv4 (IHL 5).
    V4(ipv4::Repr),
    /// IPv6 (no extension headers).
    V6(ipv6::Repr),
}

impl IpRepr {
    /// Header length: 20 or 40.
    pub fn header_len(&self) -> usize {
        match self {
            IpRepr::V4(_) => ipv4::HEADER_LEN,
            IpRepr::V6(_) => ipv6::HEADER_LEN,
        }
    }
    /// The ethertype that carries this IP version.
    pub fn ethertype(&self) -> u16 {
        match self {
            IpRepr::V4(_) => ETHERTYPE_IPV4,
            IpRepr::V6(_) => ETHERTYPE_IPV6,
        }
    }
    /// Payload length (after the IP header).
    pub fn payload_len(&self) -> usize {
        match self {
            IpRepr::V4(r) => r.payload_len,
            IpRepr::V6(r) => r.payload_len,
        }
    }
    fn set_udp_payload_len(&mut self, len: usize) {
        match self {
            IpRepr::V4(r) => {
                r.payload_len = len;
                r.protocol = ipv4::PROTO_UDP;
            }
            IpRepr::V6(r) => {
                r.payload_len = len;
                r.next_header = ipv4::PROTO_UDP;
            }
        }
    }
}

/// The extension headers of one packet, in wire order. Which ones must be present is given
/// by [`Opcode::ext_headers`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct ExtRepr {
    /// RDETH (RD).
    pub rdeth: Option<rdeth::Repr>,
    /// DETH (UD, RD requests).
    pub deth: Option<deth::Repr>,
    /// RETH.
    pub reth: Option<reth::Repr>,
    /// AtomicETH.
    pub atomic_eth: Option<atomic_eth::Repr>,
    /// AETH.
    pub aeth: Option<aeth::Repr>,
    /// AtomicAckETH.
    pub atomic_ack_eth: Option<atomic_ack_eth::Repr>,
    /// ImmDt.
    pub immdt: Option<immdt::Repr>,
    /// IETH.
    pub ieth: Option<ieth::Repr>,
    /// The 16 reserved bytes after a CNP's BTH (zero on the wire normally).
    pub cnp_reserved: Option<[u8; CNP_RESERVED_LEN]>,
}

impl ExtRepr {
    /// Which headers are present.
    pub fn layout(&self) -> ExtHeaders {
        ExtHeaders {
            rdeth: self.rdeth.is_some(),
            deth: self.deth.is_some(),
            reth: self.reth.is_some(),
            atomic_eth: self.atomic_eth.is_some(),
            aeth: self.aeth.is_some(),
            atomic_ack_eth: self.atomic_ack_eth.is_some(),
            immdt: self.immdt.is_some(),
            ieth: self.ieth.is_some(),
            cnp: self.cnp_reserved.is_some(),
        }
    }

    /// All headers required by `opcode`, with zero fields.
    pub fn default_for(opcode: Opcode) -> ExtRepr {
        let l = opcode.ext_headers();
        ExtRepr {
            rdeth: l.rdeth.then(Default::default),
            deth: l.deth.then(Default::default),
            reth: l.reth.then(Default::default),
            atomic_eth: l.atomic_eth.then(Default::default),
            aeth: l.aeth.then(Default::default),
            atomic_ack_eth: l.atomic_ack_eth.then(Default::default),
            immdt: l.immdt.then(Default::default),
            ieth: l.ieth.then(Default::default),
            cnp_reserved: l.cnp.then_some([0; CNP_RESERVED_LEN]),
        }
    }

    /// Total length of the present headers.
    pub fn buffer_len(&self) -> usize {
        self.layout().len()
    }

    /// Parses the extension headers `opcode` requires from the start of `b`; returns them and
    /// their total length.
    pub fn parse(opcode: Opcode, b: &[u8]) -> Result<(ExtRepr, usize)> {
        let l = opcode.ext_headers();
        if b.len() < l.len() {
            return Err(Error::Truncated);
        }
        let mut at = 0;
        let mut e = ExtRepr::default();
        macro_rules! take {
            ($flag:ident, $m:ident) => {
                if l.$flag {
                    e.$flag = Some($m::Repr::parse(&$m::Packet::new_checked(&b[at..])?)?);
                    at += $m::HEADER_LEN;
                }
            };
        }
        take!(rdeth, rdeth);
        take!(deth, deth);
        take!(reth, reth);
        take!(atomic_eth, atomic_eth);
        take!(aeth, aeth);
        take!(atomic_ack_eth, atomic_ack_eth);
        take!(immdt, immdt);
        take!(ieth, ieth);
        if l.cnp {
            e.cnp_reserved = Some(b[at..at + CNP_RESERVED_LEN].try_into().unwrap());
            at += CNP_RESERVED_LEN;
        }
        Ok((e, at))
    }

    /// Writes the headers into the start of `b` after checking that they are exactly the
    /// ones `opcode` requires; returns the length written.
    pub fn emit(&self, opcode: Opcode, b: &mut [u8]) -> Result<usize> {
        let want = opcode.ext_headers();
        let have = self.layout();
        if want != have {
            return Err(Error::ExtMismatch(mismatch_name(want, have)));
        }
        if b.len() < have.len() {
            return Err(Error::Truncated);
        }
        let mut at = 0;
        macro_rules! put {
            ($flag:ident, $m:ident) => {
                if let Some(r) = &self.$flag {
                    r.emit(&mut $m::Packet::new_unchecked(&mut b[at..]))?;
                    at += $m::HEADER_LEN;
                }
            };
        }
        put!(rdeth, rdeth);
        put!(deth, deth);
        put!(reth, reth);
        put!(atomic_eth, atomic_eth);
        put!(aeth, aeth);
        put!(atomic_ack_eth, atomic_ack_eth);
        put!(immdt, immdt);
        put!(ieth, ieth);
        if let Some(r) = &self.cnp_reserved {
            b[at..at + CNP_RESERVED_LEN].copy_from_slice(r);
            at += CNP_RESERVED_LEN;
        }
        Ok(at)
    }
}

fn mismatch_name(want: ExtHeaders, have: ExtHeaders) -> &'static str {
    let pairs = [
        (want.rdeth, have.rdeth, "RDETH"),
        (want.deth, have.deth, "DETH"),
        (want.reth, have.reth, "RETH"),
        (want.atomic_eth, have.atomic_eth, "AtomicETH"),
        (want.aeth, have.aeth, "AETH"),
        (want.atomic_ack_eth, have.atomic_ack_eth, "AtomicAckETH"),
        (want.immdt, have.immdt, "ImmDt"),
        (want.ieth, have.ieth, "IETH"),
        (want.cnp, have.cnp, "CNP reserved bytes"),
    ];
    pairs.iter().find(|(w, h, _)| w != h).map(|p| p.2).unwrap_or("?")
}

/// Natural pad count for a payload length: `(4 - len % 4) % 4`.
pub fn natural_pad(payload_len: usize) -> usize {
    (4 - payload_len % 4) % 4
}

/// A complete RoCEv2 frame.
///
/// Derived fields are filled in by [`RoceFrame::emit`] whatever their value in the
/// representation: `eth.ethertype` (from the IP version), the IP payload length and
/// protocol / next header (17), the IPv4 header checksum, the UDP length and destination
/// port (4791), `bth.pad_cnt`, and the ICRC. [`RoceFrame::normalize`] sets them the same
/// way, so `RoceFrame::parse(&f.emit()) == Ok(f.normalized())`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct RoceFrame {
    /// Ethernet header with 0–2 VLAN tags.
    pub eth: ethernet::Repr,
    /// IPv4 or IPv6 header.
    pub ip: IpRepr,
    /// UDP source port (flow entropy).
    pub udp_src_port: u16,
    /// UDP checksum value, stored as is (0 on IPv4 normally; masked in the ICRC).
    pub udp_checksum: u16,
    /// Base transport header.
    pub bth: bth::Repr,
    /// Extension headers; must be exactly the ones the opcode requires.
    pub ext: ExtRepr,
    /// Payload (without pad).
    pub payload: Vec<u8>,
    /// Pad override. `None`: `natural_pad(payload.len())` zero bytes. `Some(bytes)`: exactly
    /// these 0–3 bytes, with PadCnt = their count.
    pub pad: Option<Vec<u8>>,
}

impl RoceFrame {
    /// A frame with the given headers and payload, no pad override, and the extension
    /// headers the opcode requires with zero fields.
    pub fn new(eth: ethernet::Repr, ip: IpRepr, bth: bth::Repr, payload: Vec<u8>) -> RoceFrame {
        let ext = ExtRepr::default_for(bth.opcode);
        let mut f = RoceFrame {
            eth,
            ip,
            udp_src_port: 0,
            udp_checksum: 0,
            bth,
            ext,
            payload,
            pad: None,
        };
        f.normalize();
        f
    }

    /// The pad bytes that will be emitted.
    pub fn pad_bytes(&self) -> Vec<u8> {
        match &self.pad {
            Some(p) => p.clone(),
            None => vec![0; natural_pad(self.payload.len())],
        }
    }

    /// Length of the UDP payload: BTH + ext + payload + pad + ICRC.
    pub fn udp_payload_len(&self) -> usize {
        bth::HEADER_LEN + self.ext.buffer_len() + self.payload.len() + self.pad_bytes().len() + ICRC_LEN
    }

    /// Length of the IP packet (header through ICRC).
    pub fn ip_len(&self) -> usize {
        self.ip.header_len() + udp::HEADER_LEN + self.udp_payload_len()
    }

    /// Length of the emitted frame (MAC padding included).
    pub fn frame_len(&self) -> usize {
        (self.eth.buffer_len() + self.ip_len()).max(MIN_FRAME_LEN)
    }

    /// Sets the derived fields (see the type's documentation) to what `emit` writes.
    pub fn normalize(&mut self) {
        self.eth.ethertype = self.ip.ethertype();
        self.ip.set_udp_payload_len(udp::HEADER_LEN + self.udp_payload_len());
        self.bth.pad_cnt = self.pad_bytes().len() as u8;
    }

    /// A copy with the derived fields set (see [`RoceFrame::normalize`]).
    pub fn normalized(&self) -> RoceFrame {
        let mut f = self.clone();
        f.normalize();
        f
    }

    /// Emits the complete frame; panics if the representation is invalid (see
    /// [`RoceFrame::try_emit`]).
    pub fn emit(&self) -> Vec<u8> {
        self.try_emit().unwrap_or_else(|e| panic!("RoceFrame::emit: {e}"))
    }

    /// Emits the complete frame: headers, payload, pad, ICRC, IP/UDP lengths, then zero MAC
    /// padding to 60 bytes. Fails if the extension headers do not match the opcode, the pad
    /// override is longer than 3 bytes, the frame exceeds the IP length limit, or a field is
    /// out of range.
    pub fn try_emit(&self) -> Result<Vec<u8>> {
        let pad = self.pad_bytes();
        if pad.len() > 3 {
            return Err(Error::FieldRange("pad longer than 3 bytes"));
        }
        let f = self.normalized();
        let l2 = f.eth.buffer_len();
        let ip_len = f.ip_len();
        if ip_len > usize::from(u16::MAX) {
            return Err(Error::FieldRange("IP packet longer than 65535 bytes"));
        }
        let mut out = vec![0u8; f.frame_len()];
        f.eth.emit(&mut ethernet::Packet::new_unchecked(&mut out[..]))?;
        let ip_hl = f.ip.header_len();
        match &f.ip {
            IpRepr::V4(r) => r.emit(&mut ipv4::Packet::new_unchecked(&mut out[l2..]))?,
            IpRepr::V6(r) => r.emit(&mut ipv6::Packet::new_unchecked(&mut out[l2..]))?,
        }
        let u = l2 + ip_hl;
        let udp_repr = udp::Repr {
            src_port: f.udp_src_port,
            dst_port: ROCEV2_PORT,
            checksum: f.udp_checksum,
            payload_len: f.udp_payload_len(),
        };
        udp_repr.emit(&mut udp::Packet::new_unchecked(&mut out[u..]))?;
        let b = u + udp::HEADER_LEN;
        f.bth.emit(&mut bth::Packet::new_unchecked(&mut out[b..]))?;
        let mut at = b + bth::HEADER_LEN;
        at += f.ext.emit(f.bth.opcode, &mut out[at..])?;
        out[at..at + f.payload.len()].copy_from_slice(&f.payload);
        at += f.payload.len();
        out[at..at + pad.len()].copy_from_slice(&pad);
        at += pad.len();
        debug_assert_eq!(at + ICRC_LEN, l2 + ip_len);
        let c = icrc(&out[l2..at]);
        out[at..at + ICRC_LEN].copy_from_slice(&c.to_le_bytes());
        Ok(out)
    }

    /// Parses a frame (no FCS), verifying the ICRC. Inverse of [`RoceFrame::emit`]: strips
    /// the pad and the MAC padding.
    pub fn parse(frame: &[u8]) -> Result<RoceFrame> {
        RoceFrame::parse_with(frame, true)
    }

    /// Parses a frame; verifies the ICRC only if `verify_icrc`.
    ///
    /// Checks: at most 2 VLAN tags; IPv4 (version 4, IHL 5, valid header checksum) or IPv6;
    /// protocol UDP; destination port 4791; UDP length equal to the IP payload length;
    /// valid opcode; TVer 0; the extension headers and PadCnt fit.
    pub fn parse_with(frame: &[u8], verify_icrc: bool) -> Result<RoceFrame> {
        let ep = ethernet::Packet::new_checked(frame)?;
        let eth = ethernet::Repr::parse(&ep)?;
        let l2 = eth.buffer_len();
        let (ip, ip_pkt): (IpRepr, &[u8]) = match eth.ethertype {
            ETHERTYPE_IPV4 => {
                let p = ipv4::Packet::new_checked(&frame[l2..])?;
                let r = ipv4::Repr::parse(&p)?;
                if r.protocol != ipv4::PROTO_UDP {
                    return Err(Error::NotUdp(r.protocol));
                }
                (IpRepr::V4(r), &frame[l2..l2 + ipv4::HEADER_LEN + r.payload_len])
            }
            ETHERTYPE_IPV6 => {
                let p = ipv6::Packet::new_checked(&frame[l2..])?;
                let r = ipv6::Repr::parse(&p)?;
                if r.next_header != ipv4::PROTO_UDP {
                    return Err(Error::NotUdp(r.next_header));
                }
                (IpRepr::V6(r), &frame[l2..l2 + ipv6::HEADER_LEN + r.payload_len])
            }
            t => return Err(Error::UnknownEthertype(t)),
        };
        let ip_payload = &ip_pkt[ip.header_len()..];
        let up = udp::Packet::new_checked(ip_payload)?;
        let ur = udp::Repr::parse(&up)?;
        if ur.dst_port != ROCEV2_PORT {
            return Err(Error::NotRoceV2Port(ur.dst_port));
        }
        if udp::HEADER_LEN + ur.payload_len != ip_payload.len() {
            return Err(Error::BadLength);
        }
        let up = up.payload();
        if up.len() < bth::HEADER_LEN + ICRC_LEN {
            return Err(Error::Truncated);
        }
        let bth = bth::Repr::parse(&bth::Packet::new_checked(up)?)?;
        let body = &up[bth::HEADER_LEN..up.len() - ICRC_LEN];
        let (ext, ext_len) = ExtRepr::parse(bth.opcode, body)?;
        let rest = &body[ext_len..];
        let padn = usize::from(bth.pad_cnt);
        if padn > rest.len() {
            return Err(Error::BadPadCnt(bth.pad_cnt));
        }
        let (payload, pad) = rest.split_at(rest.len() - padn);
        if verify_icrc {
            let n = ip_pkt.len();
            let computed = icrc(&ip_pkt[..n - ICRC_LEN]);
            let wire = u32::from_le_bytes(ip_pkt[n - ICRC_LEN..].try_into().unwrap());
            if computed != wire {
                return Err(Error::BadIcrc { wire, computed });
            }
        }
        let pad = if padn == natural_pad(payload.len()) && pad.iter().all(|&b| b == 0) {
            None
        } else {
            Some(pad.to_vec())
        };
        Ok(RoceFrame {
            eth,
            ip,
            udp_src_port: ur.src_port,
            udp_checksum: ur.checksum,
            bth,
            ext,
            payload: payload.to_vec(),
            pad,
        })
    }
}
