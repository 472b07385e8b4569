//! RX front end (`RxParser`): the software model that the RTL must match frame for frame, and
//! the JSON line that `ferroce-sim rx` prints.
//!
//! The parser takes Ethernet frames without FCS. Every frame gets one [`RxVerdict`]: `Accept`
//! (a valid RoCEv2 packet), `Drop(reason)` (addressed to RoCEv2 but invalid) or `Pass` (not
//! RoCEv2: forwarded untouched on the pass-through stream). Accepted and dropped frames get a
//! header record ([`RxRecord`]) and the payload bytes the parser delivers on its payload stream.
//! The rules below use fixed offsets so that the RTL can evaluate them in one pass; docs/rx.md
//! states the same rules for readers of the hardware.
//!
//! # Classification (addressed to RoCEv2)
//!
//! 1. `l2 = 14 + 4·tags`: up to two VLAN tags (TPID 0x8100 or 0x88A8, in any order) precede the
//!    ethertype; `vlan` is the VID of the outer tag. A third TPID is not RoCEv2.
//! 2. The ethertype is 0x0800 (IPv4, `hl = 20`) or 0x86DD (IPv6, `hl = 40`). For IPv4 the UDP
//!    header is taken at `l2 + 20` whatever the IHL (IHL ≠ 5 is then dropped as `ip_header`).
//! 3. The frame holds the bytes up to the end of the UDP destination port (`l2 + hl + 4`),
//!    the IP protocol (byte `l2 + 9`) / IPv6 next header (byte `l2 + 6`) is 17 and the UDP
//!    destination port is 4791.
//!
//! Anything else is `Pass`, with no record (every other JSON key is null, the Ethernet ones
//! included). The IP version nibble is not part of the classification.
//!
//! # Drop reasons, in precedence order (the first that applies is reported)
//!
//! Notation: `len` = frame length, `iplen` = IPv4 total length or 40 + IPv6 payload length,
//! `ip_end = l2 + iplen`, `bth = l2 + hl + 8`, `ext` = length of the extension headers the
//! opcode implies (0 for an unsupported opcode, 16 reserved bytes for a CNP),
//! `hdr_end = bth + 12 + ext`, `min_iplen = hl + 8 + 12 + ext + 4`.
//!
//! | reason | condition |
//! |---|---|
//! | `ip_header` | IPv4: version ≠ 4 or IHL ≠ 5; IPv6: version ≠ 6 |
//! | `truncated` | `len < ip_end` or `len < hdr_end + 4` (a BTH not wholly in the frame counts as ending after it) |
//! | `ip_length` | `iplen < min_iplen`, or `len > ip_end` and `len > 60` (MAC padding is legal only up to the 60-byte minimum frame) |
//! | `ip_checksum` | IPv4 header checksum (20 bytes) does not verify |
//! | `ip_fragment` | IPv4 MF set or fragment offset ≠ 0 (DF and the reserved flag are ignored) |
//! | `udp_length` | UDP length ≠ `iplen − hl` |
//! | `tver` | BTH TVer ≠ 0 |
//! | `opcode` | reserved opcode, or an RD opcode (0x40–0x54): RD is not supported |
//! | `padcnt` | PadCnt > `iplen − min_iplen` (the payload-plus-pad bytes) |
//! | `icrc` | the ICRC at `ip_end − 4` (little-endian) differs from the one computed |
//!
//! Supported opcodes: every RC, UC and UD opcode of the ferroce-wire table and CNP (0x81).
//! Once `truncated` does not apply, every header field a later check reads is in the frame.
//! The payload length is not checked against the opcode (an ACK that carries bytes is
//! accepted and its bytes delivered): that belongs to the transport layer.
//!
//! # ICRC
//!
//! `icrc_ok` is null for `Pass`, for `ip_header` drops (the ICRC's masks and coverage assume a
//! valid IP header of 20 or 40 bytes), and when the ICRC is not in the frame (`len < ip_end`) or
//! `iplen < hl + 24`. Otherwise it compares [`icrc_fixed`] over `frame[l2..ip_end-4]` with the
//! wire value. The masks sit at fixed offsets chosen by the ethertype (IPv4: bytes 1, 8, 10,
//! 11, UDP checksum at 26–27, BTH byte 4 at 32; IPv6: low nibble of byte 0, bytes 1–3, 7, 46,
//! 47, 52), so the check is the same as `ferroce_wire::icrc` on every frame with IHL 5.
//!
//! # Payload delivered
//!
//! The payload is `frame[hdr_end .. ip_end − 4 − PadCnt]`. The *header checks* are those
//! decided from the headers alone: `ip_header`, the frame ending before `hdr_end`, `iplen <
//! min_iplen`, `ip_checksum`, `ip_fragment`, `udp_length`, `tver`, `opcode`, `padcnt`. If one of
//! them fails, nothing is delivered (`payload_len` 0, CRC `00000000`) whatever reason the
//! precedence reports. Otherwise the bytes of the payload region that are in the frame are
//! delivered, also when the packet is then dropped for a reason known only at the end
//! (`icrc`, `truncated` inside the payload/pad/ICRC, `ip_length` from excess bytes); the RTL
//! marks the last of those beats bad in `tuser`.
//!
//! # Record fields of a dropped frame
//!
//! Ethernet, IP and UDP port fields are always in the frame (classification reads them). The
//! BTH fields are null when the 12 BTH bytes are not all in the frame; an extension header is
//! null when the opcode is unsupported, does not carry it, or its bytes are not all in the frame.

pub mod craft;

use crate::wire::ethernet::{self, MacAddr, ETHERTYPE_IPV4, ETHERTYPE_IPV6, MIN_FRAME_LEN};
use crate::wire::icrc::{ICRC_LEN, LRH_MASK};
use crate::wire::opcode::{ExtHeaders, CNP_RESERVED_LEN};
use crate::wire::{aeth, atomic_ack_eth, atomic_eth, bth, deth, ieth, immdt, ipv4, ipv6, reth, udp};
use crate::FrameEngine;
use crc::{Crc, CRC_32_ISO_HDLC};
use std::fmt::Write as _;
use std::net::IpAddr;

const CRC32: Crc<u32> = Crc::<u32>::new(&CRC_32_ISO_HDLC);

pub use ferroce_contracts::rx::{supported_opcode, DropReason};

/// What the parser does with a frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RxVerdict {
    /// A valid RoCEv2 packet: header record and payload delivered.
    Accept,
    /// Addressed to RoCEv2 but invalid.
    Drop(DropReason),
    /// Not RoCEv2: forwarded untouched on the pass-through stream.
    Pass,
}

impl RxVerdict {
    /// `accept`, `drop` or `pass`.
    pub const fn name(self) -> &'static str {
        match self {
            RxVerdict::Accept => "accept",
            RxVerdict::Drop(_) => "drop",
            RxVerdict::Pass => "pass",
        }
    }
    /// The drop reason, if any.
    pub const fn reason(self) -> Option<DropReason> {
        match self {
            RxVerdict::Drop(r) => Some(r),
            _ => None,
        }
    }
}

/// The BTH fields of a header record (the opcode is kept raw: a dropped frame may carry a
/// reserved one). The default is all zero. A record without a BTH has none (`bth: None`); the
/// RTL's `r_bth_*` ports then hold whatever bytes the capture had and mean nothing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct RxBth {
    /// Opcode byte.
    pub opcode: u8,
    /// Solicited event.
    pub se: bool,
    /// MigReq.
    pub m: bool,
    /// Pad count (0–3).
    pub padcnt: u8,
    /// Transport header version.
    pub tver: u8,
    /// Partition key.
    pub pkey: u16,
    /// FECN.
    pub fecn: bool,
    /// BECN.
    pub becn: bool,
    /// Destination QP (24 bits).
    pub dqpn: u32,
    /// AckReq.
    pub ackreq: bool,
    /// PSN (24 bits).
    pub psn: u32,
}

impl RxBth {
    /// Reads the 12 BTH bytes at the start of `b` (panics if `b` is shorter).
    pub fn read(b: &[u8]) -> RxBth {
        let p = bth::Packet::new_checked(b).expect("12 BTH bytes");
        RxBth {
            opcode: p.opcode_raw(),
            se: p.solicited(),
            m: p.migreq(),
            padcnt: p.pad_cnt(),
            tver: p.tver(),
            pkey: p.p_key(),
            fecn: p.fecn(),
            becn: p.becn(),
            dqpn: p.dest_qp(),
            ackreq: p.ack_req(),
            psn: p.psn(),
        }
    }
}

/// The header record of an accepted or dropped frame.
///
/// The JSON prints `reth`, `immdt` and `aeth`; the other extension headers are decoded for the
/// transport layer and kept here.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct RxRecord {
    /// Whether the ICRC verifies; `None` when it is not in the frame (see the module docs).
    pub icrc_ok: Option<bool>,
    /// Ethernet destination.
    pub eth_dst: MacAddr,
    /// Ethernet source.
    pub eth_src: MacAddr,
    /// VID of the outer VLAN tag.
    pub vlan: Option<u16>,
    /// 4 or 6, from the ethertype.
    pub ip_version: u8,
    /// IP source address.
    pub ip_src: IpAddr,
    /// IP destination address.
    pub ip_dst: IpAddr,
    /// DSCP (IPv4 TOS or IPv6 traffic class, bits 7:2).
    pub ip_dscp: u8,
    /// ECN (bits 1:0).
    pub ip_ecn: u8,
    /// IPv4 TTL or IPv6 hop limit.
    pub ip_ttl: u8,
    /// UDP source port.
    pub udp_sport: u16,
    /// UDP destination port (4791).
    pub udp_dport: u16,
    /// BTH, when its 12 bytes are in the frame.
    pub bth: Option<RxBth>,
    /// DETH (UD).
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
    /// Bytes delivered on the payload stream.
    pub payload_len: usize,
    /// CRC-32 (zlib) of the delivered bytes.
    pub payload_crc32: u32,
}

/// The model's answer for one frame.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct RxResult {
    /// Accept, drop or pass.
    pub verdict: RxVerdict,
    /// Header record (`None` for `Pass`).
    pub record: Option<RxRecord>,
    /// The bytes delivered on the payload stream (empty for `Pass`; the frame itself goes to
    /// the pass-through stream).
    pub payload: Vec<u8>,
}

/// The keys of the JSON object, in order.
pub const JSON_KEYS: [&str; 31] = [
    "frame",
    "verdict",
    "reason",
    "icrc_ok",
    "eth_dst",
    "eth_src",
    "vlan",
    "ip_version",
    "ip_src",
    "ip_dst",
    "ip_dscp",
    "ip_ecn",
    "ip_ttl",
    "udp_sport",
    "udp_dport",
    "bth_opcode",
    "bth_se",
    "bth_m",
    "bth_padcnt",
    "bth_tver",
    "bth_pkey",
    "bth_fecn",
    "bth_becn",
    "bth_dqpn",
    "bth_ackreq",
    "bth_psn",
    "reth",
    "immdt",
    "aeth",
    "payload_len",
    "payload_crc32",
];

fn mac(m: &MacAddr) -> String {
    let s: Vec<String> = m.iter().map(|b| format!("{b:02x}")).collect();
    format!("\"{}\"", s.join(":"))
}

fn opt<T>(v: Option<T>, f: impl FnOnce(T) -> String) -> String {
    v.map_or_else(|| "null".to_string(), f)
}

impl RxResult {
    fn pass() -> RxResult {
        RxResult {
            verdict: RxVerdict::Pass,
            record: None,
            payload: Vec::new(),
        }
    }

    /// The JSON object `ferroce-sim rx` prints for this frame: the keys of [`JSON_KEYS`] in
    /// that order, no spaces.
    pub fn json(&self, frame: usize) -> String {
        let b = |v: bool| u8::from(v).to_string();
        let mut vals: Vec<String> = vec![
            frame.to_string(),
            format!("\"{}\"", self.verdict.name()),
            opt(self.verdict.reason(), |r| format!("\"{}\"", r.name())),
        ];
        match &self.record {
            None => vals.resize(JSON_KEYS.len(), "null".into()),
            Some(r) => {
                let t = r.bth;
                vals.extend([
                    opt(r.icrc_ok, |v| v.to_string()),
                    mac(&r.eth_dst),
                    mac(&r.eth_src),
                    opt(r.vlan, |v| v.to_string()),
                    r.ip_version.to_string(),
                    format!("\"{}\"", r.ip_src),
                    format!("\"{}\"", r.ip_dst),
                    r.ip_dscp.to_string(),
                    r.ip_ecn.to_string(),
                    r.ip_ttl.to_string(),
                    r.udp_sport.to_string(),
                    r.udp_dport.to_string(),
                    opt(t, |t| t.opcode.to_string()),
                    opt(t, |t| b(t.se)),
                    opt(t, |t| b(t.m)),
                    opt(t, |t| t.padcnt.to_string()),
                    opt(t, |t| t.tver.to_string()),
                    opt(t, |t| t.pkey.to_string()),
                    opt(t, |t| b(t.fecn)),
                    opt(t, |t| b(t.becn)),
                    opt(t, |t| t.dqpn.to_string()),
                    opt(t, |t| b(t.ackreq)),
                    opt(t, |t| t.psn.to_string()),
                    opt(r.reth, |e| {
                        format!("{{\"va\":\"0x{:016x}\",\"rkey\":{},\"dmalen\":{}}}", e.va, e.r_key, e.dma_len)
                    }),
                    opt(r.immdt, |e| e.imm.to_string()),
                    opt(r.aeth, |e| format!("{{\"syndrome\":{},\"msn\":{}}}", e.syndrome, e.msn)),
                    r.payload_len.to_string(),
                    format!("\"{:08x}\"", r.payload_crc32),
                ]);
            }
        }
        debug_assert_eq!(vals.len(), JSON_KEYS.len());
        let mut s = String::from("{");
        for (i, (k, v)) in JSON_KEYS.iter().zip(&vals).enumerate() {
            if i > 0 {
                s.push(',');
            }
            let _ = write!(s, "\"{k}\":{v}");
        }
        s.push('}');
        s
    }
}

/// Where the headers of a frame addressed to RoCEv2 are.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Layout {
    /// Offset of the IP header (14 + 4 per VLAN tag).
    pub l2: usize,
    /// IPv6 (ethertype 0x86DD) rather than IPv4.
    pub v6: bool,
    /// VID of the outer VLAN tag.
    pub vlan: Option<u16>,
}

impl Layout {
    /// IP header length the parser assumes: 20 or 40.
    pub const fn ip_header_len(&self) -> usize {
        if self.v6 {
            ipv6::HEADER_LEN
        } else {
            ipv4::HEADER_LEN
        }
    }
    /// Offset of the UDP header.
    pub const fn udp(&self) -> usize {
        self.l2 + self.ip_header_len()
    }
    /// Offset of the BTH.
    pub const fn bth(&self) -> usize {
        self.udp() + udp::HEADER_LEN
    }
}

/// The classification rule (module docs): `Some` for a frame addressed to RoCEv2.
pub fn classify(frame: &[u8]) -> Option<Layout> {
    let eth = ethernet::Packet::new_checked(frame).ok()?;
    let v6 = match eth.ethertype() {
        ETHERTYPE_IPV4 => false,
        ETHERTYPE_IPV6 => true,
        _ => return None,
    };
    let lay = Layout {
        l2: eth.header_len(),
        v6,
        vlan: (eth.vlan_count() > 0).then(|| eth.vlan(0).vid),
    };
    if frame.len() < lay.udp() + 4 {
        return None;
    }
    let proto = if v6 {
        ipv6::Packet::new_unchecked(&frame[lay.l2..]).next_header()
    } else {
        ipv4::Packet::new_unchecked(&frame[lay.l2..]).protocol()
    };
    let dport = udp::Packet::new_unchecked(&frame[lay.udp()..]).dst_port();
    (proto == ipv4::PROTO_UDP && dport == udp::ROCEV2_PORT).then_some(lay)
}

/// Byte offsets (from the IP header) and bit masks of the ICRC-masked bits, fixed per IP
/// version as the parser uses them (IPv4 with IHL taken as 5): the ICRC contract's masks.
pub fn icrc_masks(v6: bool) -> impl Iterator<Item = (usize, u8)> {
    ferroce_contracts::icrc::masks(v6, if v6 { ipv6::HEADER_LEN } else { ipv4::HEADER_LEN })
}

/// ICRC of an IP packet without its ICRC, with the masks of [`icrc_masks`]. The wire bytes are
/// `icrc_fixed(..).to_le_bytes()`.
pub fn icrc_fixed(ip_packet_without_icrc: &[u8], v6: bool) -> u32 {
    let p = ip_packet_without_icrc;
    let n = p.len().min(64);
    let mut head = [0u8; 64];
    head[..n].copy_from_slice(&p[..n]);
    for (o, m) in icrc_masks(v6) {
        if o < n {
            head[o] |= m;
        }
    }
    let mut d = CRC32.digest();
    d.update(&LRH_MASK);
    d.update(&head[..n]);
    d.update(&p[n..]);
    d.finalize()
}

/// CRC-32 as zlib computes it (`payload_crc32`).
pub fn crc32(bytes: &[u8]) -> u32 {
    CRC32.checksum(bytes)
}

/// The RX parser model: verdict, header record and delivered payload of one frame (no FCS).
pub fn rx_model(frame: &[u8]) -> RxResult {
    let Some(lay) = classify(frame) else {
        return RxResult::pass();
    };
    let len = frame.len();
    let (l2, hl) = (lay.l2, lay.ip_header_len());
    let eth = ethernet::Packet::new_unchecked(frame);

    // The IP header is in the frame (classification read up to l2 + hl + 4).
    let ip = &frame[l2..];
    let (version_ok, iplen, ip_src, ip_dst, tc, ttl, checksum_ok, fragment) = if lay.v6 {
        let p = ipv6::Packet::new_unchecked(ip);
        let iplen = ipv6::HEADER_LEN + usize::from(p.payload_len());
        (
            p.version() == 6,
            iplen,
            IpAddr::V6(p.src_addr()),
            IpAddr::V6(p.dst_addr()),
            p.traffic_class(),
            p.hop_limit(),
            true,
            false,
        )
    } else {
        let p = ipv4::Packet::new_unchecked(ip);
        let iplen = usize::from(p.total_len());
        let checksum_ok = ipv4::checksum(&ip[..ipv4::HEADER_LEN]) == 0;
        let fragment = p.more_frags() || p.frag_offset() != 0;
        let ok = p.version() == 4 && p.ihl() == 5;
        (
            ok,
            iplen,
            IpAddr::V4(p.src_addr()),
            IpAddr::V4(p.dst_addr()),
            p.tos(),
            p.ttl(),
            checksum_ok,
            fragment,
        )
    };
    let udp_at = lay.udp();
    let udp_p = udp::Packet::new_unchecked(&frame[udp_at..]);

    let bth_at = lay.bth();
    let bth = (len >= bth_at + bth::HEADER_LEN).then(|| RxBth::read(&frame[bth_at..]));
    let opcode = bth.and_then(|b| supported_opcode(b.opcode));
    let ext = opcode.map_or(ExtHeaders::default(), |o| o.ext_headers());
    let hdr_end = bth_at + bth::HEADER_LEN + ext.len();
    let min_iplen = hl + udp::HEADER_LEN + bth::HEADER_LEN + ext.len() + ICRC_LEN;
    let ip_end = l2 + iplen;

    let truncated = len < ip_end || len < hdr_end + ICRC_LEN;
    let too_small = iplen < min_iplen;
    let excess = len > ip_end && len > MIN_FRAME_LEN;

    // The checks decided from the headers alone; every field they read is in the frame once
    // `len >= hdr_end` (the UDP length ends before the BTH).
    let header_fail = if !version_ok {
        Some(DropReason::IpHeader)
    } else if len < hdr_end {
        Some(DropReason::Truncated)
    } else {
        let b = bth.expect("BTH in the frame");
        if too_small {
            Some(DropReason::IpLength)
        } else if !checksum_ok {
            Some(DropReason::IpChecksum)
        } else if fragment {
            Some(DropReason::IpFragment)
        } else if usize::from(udp_p.len()) != iplen - hl {
            Some(DropReason::UdpLength)
        } else if b.tver != 0 {
            Some(DropReason::Tver)
        } else if opcode.is_none() {
            Some(DropReason::Opcode)
        } else if usize::from(b.padcnt) > iplen - min_iplen {
            Some(DropReason::Padcnt)
        } else {
            None
        }
    };

    let icrc_ok = (version_ok && iplen >= hl + udp::HEADER_LEN + bth::HEADER_LEN + ICRC_LEN && len >= ip_end).then(|| {
        let wire = u32::from_le_bytes(frame[ip_end - ICRC_LEN..ip_end].try_into().unwrap());
        icrc_fixed(&frame[l2..ip_end - ICRC_LEN], lay.v6) == wire
    });

    let verdict = if !version_ok {
        RxVerdict::Drop(DropReason::IpHeader)
    } else if truncated {
        RxVerdict::Drop(DropReason::Truncated)
    } else if too_small || excess {
        RxVerdict::Drop(DropReason::IpLength)
    } else if let Some(r) = header_fail {
        RxVerdict::Drop(r)
    } else if icrc_ok != Some(true) {
        RxVerdict::Drop(DropReason::Icrc)
    } else {
        RxVerdict::Accept
    };

    let payload = match (header_fail, bth) {
        (None, Some(b)) => {
            let end = (ip_end - ICRC_LEN - usize::from(b.padcnt)).min(len);
            frame[hdr_end..end.max(hdr_end)].to_vec()
        }
        _ => Vec::new(),
    };

    // Extension headers, in wire order, each decoded when wholly in the frame.
    let mut at = bth_at + bth::HEADER_LEN;
    macro_rules! take {
        ($flag:ident, $m:ident) => {{
            let v = (ext.$flag && len >= at + $m::HEADER_LEN)
                .then(|| $m::Repr::parse(&$m::Packet::new_unchecked(&frame[at..])).expect("header in frame"));
            if ext.$flag {
                at += $m::HEADER_LEN;
            }
            v
        }};
    }
    let deth = take!(deth, deth);
    let reth = take!(reth, reth);
    let atomic_eth = take!(atomic_eth, atomic_eth);
    let aeth = take!(aeth, aeth);
    let atomic_ack_eth = take!(atomic_ack_eth, atomic_ack_eth);
    let immdt = take!(immdt, immdt);
    let ieth = take!(ieth, ieth);
    if ext.cnp {
        at += CNP_RESERVED_LEN;
    }
    debug_assert_eq!(at, hdr_end);

    let record = RxRecord {
        icrc_ok,
        eth_dst: eth.dst_addr(),
        eth_src: eth.src_addr(),
        vlan: lay.vlan,
        ip_version: if lay.v6 { 6 } else { 4 },
        ip_src,
        ip_dst,
        ip_dscp: tc >> 2,
        ip_ecn: tc & 3,
        ip_ttl: ttl,
        udp_sport: udp_p.src_port(),
        udp_dport: udp_p.dst_port(),
        bth,
        deth,
        reth,
        atomic_eth,
        aeth,
        atomic_ack_eth,
        immdt,
        ieth,
        payload_len: payload.len(),
        payload_crc32: crc32(&payload),
    };
    RxResult {
        verdict,
        record: Some(record),
        payload,
    }
}

/// The RX front end as a [`FrameEngine`] that also counts: the model ([`RxModel`]) and the
/// Verilator runner of `RxFront` implement it.
pub trait RxEngine: FrameEngine<Output = RxResult> {
    /// The counters after the last run (the RTL reads its `cnt_*` ports).
    fn counters(&mut self) -> RxCounters;
}

/// [`rx_model`] as an [`RxEngine`]; its counters count the results of its last run.
#[derive(Debug, Clone, Default)]
pub struct RxModel {
    counters: RxCounters,
}

impl FrameEngine for RxModel {
    type Output = RxResult;
    fn run(&mut self, frames: &[Vec<u8>]) -> Result<Vec<RxResult>, String> {
        let results: Vec<RxResult> = frames.iter().map(|f| rx_model(f)).collect();
        self.counters = RxCounters::of(&results);
        Ok(results)
    }
}

impl RxEngine for RxModel {
    fn counters(&mut self) -> RxCounters {
        self.counters.clone()
    }
}

/// The parser's counters: frames in, accepted, passed, and drops per reason.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct RxCounters {
    /// Every frame seen.
    pub frames_in: u64,
    /// Accepted RoCEv2 packets.
    pub accepted: u64,
    /// Frames sent to the pass-through stream.
    pub passed: u64,
    /// Drops, indexed by [`DropReason::index`].
    pub dropped: [u64; DropReason::ALL.len()],
}

impl RxCounters {
    /// Counts one frame.
    pub fn count(&mut self, v: RxVerdict) {
        self.frames_in += 1;
        match v {
            RxVerdict::Accept => self.accepted += 1,
            RxVerdict::Pass => self.passed += 1,
            RxVerdict::Drop(r) => self.dropped[r.index()] += 1,
        }
    }

    /// Counters of a sequence of results.
    pub fn of<'a>(results: impl IntoIterator<Item = &'a RxResult>) -> RxCounters {
        let mut c = RxCounters::default();
        for r in results {
            c.count(r.verdict);
        }
        c
    }

    /// Drops for one reason.
    pub fn drops(&self, r: DropReason) -> u64 {
        self.dropped[r.index()]
    }

    /// All drops.
    pub fn total_drops(&self) -> u64 {
        self.dropped.iter().sum()
    }

    /// `{"frames_in":N,"accepted":N,"passed":N,"dropped":{"ip_header":N,...}}`, reasons in
    /// precedence order.
    pub fn json(&self) -> String {
        let drops: Vec<String> = DropReason::ALL
            .iter()
            .map(|r| format!("\"{}\":{}", r.name(), self.drops(*r)))
            .collect();
        format!(
            "{{\"frames_in\":{},\"accepted\":{},\"passed\":{},\"dropped\":{{{}}}}}",
            self.frames_in,
            self.accepted,
            self.passed,
            drops.join(",")
        )
    }
}

#[cfg(test)]
mod tests;
