//! Frames for the RX parser's tests: crafted frames with their expected outcome (every supported
//! opcode × IPv4/IPv6 × 0/1/2 VLAN tags, minimum-size frames, every drop reason, precedence
//! between reasons, pass-through), and a seeded random mix for co-simulation.
//!
//! Every malformed frame has one defect unless its name says otherwise: after a header field is
//! changed the IPv4 header checksum and the ICRC are recomputed ([`Built::fix`]), so the only
//! thing wrong is the defect under test.

use super::{icrc_fixed, supported_opcode, DropReason, RxVerdict};
use crate::wire::ethernet::{self, ETHERTYPE_ARP, ETHERTYPE_IPV4, MIN_FRAME_LEN};
use crate::wire::gen::{flip_bit, random_ip_repr, random_vlan_tags, FrameGen, FrameKind};
use crate::wire::opcode::{Opcode, Transport};
use crate::wire::packet::{natural_pad, IpRepr, RoceFrame};
use crate::wire::{bth, ipv4, ipv6, udp};
use rand::{Rng, RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::net::Ipv4Addr;

/// The expected outcome of a crafted frame.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Expect {
    /// Verdict (and drop reason).
    pub verdict: RxVerdict,
    /// Expected `icrc_ok` (`None` for pass and when the ICRC is not in the frame).
    pub icrc_ok: Option<bool>,
    /// The bytes the parser must deliver on its payload stream (`None` for pass).
    pub payload: Option<Vec<u8>>,
    /// For accepted frames, the representation the frame was emitted from: the header record
    /// must carry its fields.
    pub repr: Option<RoceFrame>,
}

/// One crafted frame.
#[derive(Debug, Clone)]
pub struct Crafted {
    /// Unique name: `accept/...`, `drop/<reason>/...`, `precedence/...`, `pass/...`.
    pub name: String,
    /// The frame (no FCS).
    pub frame: Vec<u8>,
    /// What the parser must do with it.
    pub expect: Expect,
}

/// An emitted RoCEv2 frame and the offsets the mutations need.
#[derive(Debug, Clone)]
pub struct Built {
    /// The representation it was emitted from.
    pub repr: RoceFrame,
    /// The frame bytes (mutated in place).
    pub bytes: Vec<u8>,
    /// Offset of the IP header.
    pub l2: usize,
    /// IPv6.
    pub v6: bool,
}

impl Built {
    /// Emits `repr`.
    pub fn new(repr: RoceFrame) -> Built {
        let repr = repr.normalized();
        Built {
            bytes: repr.emit(),
            l2: repr.eth.buffer_len(),
            v6: matches!(repr.ip, IpRepr::V6(_)),
            repr,
        }
    }
    /// IP header length (20 or 40).
    pub fn hl(&self) -> usize {
        if self.v6 {
            ipv6::HEADER_LEN
        } else {
            ipv4::HEADER_LEN
        }
    }
    /// Offset of the UDP header.
    pub fn udp_at(&self) -> usize {
        self.l2 + self.hl()
    }
    /// Offset of the BTH.
    pub fn bth_at(&self) -> usize {
        self.udp_at() + udp::HEADER_LEN
    }
    /// End of the extension headers as emitted.
    pub fn hdr_end(&self) -> usize {
        self.bth_at() + bth::HEADER_LEN + self.repr.ext.buffer_len()
    }
    /// End of the IP packet as emitted.
    pub fn ip_end(&self) -> usize {
        self.l2 + self.repr.ip_len()
    }
    /// The payload as emitted (without pad).
    pub fn payload(&self) -> Vec<u8> {
        self.repr.payload.clone()
    }
    /// The IP length field as `iplen` (IPv4 total length, or 40 + IPv6 payload length).
    pub fn iplen(&self) -> usize {
        let b = &self.bytes[self.l2..];
        let v = usize::from(u16::from_be_bytes([b[if self.v6 { 4 } else { 2 }], b[if self.v6 { 5 } else { 3 }]]));
        if self.v6 {
            v + ipv6::HEADER_LEN
        } else {
            v
        }
    }
    /// Writes the IP length field so that `iplen` is as given (wrapping to 16 bits).
    pub fn set_iplen(&mut self, iplen: usize) {
        let v = if self.v6 { iplen.wrapping_sub(ipv6::HEADER_LEN) } else { iplen } as u16;
        let at = self.l2 + if self.v6 { 4 } else { 2 };
        self.bytes[at..at + 2].copy_from_slice(&v.to_be_bytes());
    }
    /// Writes the UDP length field.
    pub fn set_udp_len(&mut self, v: u16) {
        let at = self.udp_at() + 4;
        self.bytes[at..at + 2].copy_from_slice(&v.to_be_bytes());
    }
    /// The UDP length field.
    pub fn udp_len(&self) -> u16 {
        let at = self.udp_at() + 4;
        u16::from_be_bytes([self.bytes[at], self.bytes[at + 1]])
    }
    /// Sets both length fields for an IP packet of `iplen` bytes (UDP length `iplen − hl`).
    pub fn set_lengths(&mut self, iplen: usize) {
        self.set_iplen(iplen);
        self.set_udp_len(iplen.wrapping_sub(self.hl()) as u16);
    }
    /// Mutable BTH byte `i`.
    pub fn bth_byte(&mut self, i: usize) -> &mut u8 {
        let at = self.bth_at() + i;
        &mut self.bytes[at]
    }
    /// The payload region per the current length fields and PadCnt (`hdr_end .. l2 + iplen −
    /// 4 − PadCnt`), cut at the frame end: what the parser delivers when no header check fails.
    pub fn region_in_frame(&self) -> Vec<u8> {
        let pad = usize::from((self.bytes[self.bth_at() + 1] >> 4) & 3);
        let end = (self.l2 + self.iplen() - 4 - pad).min(self.bytes.len());
        self.bytes[self.hdr_end()..end].to_vec()
    }
    /// Recomputes the IPv4 header checksum (over 20 bytes) and, when the IP packet per its
    /// length field is in the frame and at least `hl + 24` bytes long, the ICRC at its end
    /// (with the parser's fixed masks).
    pub fn fix(&mut self) {
        let l2 = self.l2;
        if !self.v6 {
            self.bytes[l2 + 10] = 0;
            self.bytes[l2 + 11] = 0;
            let c = ipv4::checksum(&self.bytes[l2..l2 + ipv4::HEADER_LEN]);
            self.bytes[l2 + 10..l2 + 12].copy_from_slice(&c.to_be_bytes());
        }
        let iplen = self.iplen();
        let end = l2 + iplen;
        if iplen >= self.hl() + 24 && end <= self.bytes.len() {
            let c = icrc_fixed(&self.bytes[l2..end - 4], self.v6);
            self.bytes[end - 4..end].copy_from_slice(&c.to_le_bytes());
        }
    }
}

/// A valid RoCEv2 frame representation with random field values (masked fields included) and
/// the given opcode, IP version, number of VLAN tags and payload length.
pub fn roce_repr(rng: &mut ChaCha8Rng, op: Opcode, v6: bool, nvlans: usize, payload_len: usize) -> RoceFrame {
    let mut f = FrameGen::new(rng.gen()).roce_frame_with(op);
    f.eth.vlans = random_vlan_tags(rng, nvlans);
    f.ip = random_ip_repr(rng, v6);
    f.payload = vec![0; payload_len];
    rng.fill_bytes(&mut f.payload);
    f.pad = None;
    f.normalize();
    f
}

/// The opcodes the parser accepts: RC, UC, UD and CNP (every valid one but RD).
pub fn supported_opcodes() -> Vec<Opcode> {
    Opcode::all().iter().copied().filter(|o| o.transport() != Transport::Rd).collect()
}

/// The issue's example `ferroce-sim rx` line, verbatim: what [`issue_example`] must print.
pub const ISSUE_EXAMPLE_JSON: &str = concat!(
    r#"{"frame":0,"verdict":"accept","reason":null,"icrc_ok":true,"#,
    r#""eth_dst":"aa:bb:cc:dd:ee:ff","eth_src":"11:22:33:44:55:66","vlan":null,"#,
    r#""ip_version":4,"ip_src":"10.0.0.1","ip_dst":"10.0.0.2","ip_dscp":26,"ip_ecn":0,"ip_ttl":64,"#,
    r#""udp_sport":49152,"udp_dport":4791,"#,
    r#""bth_opcode":10,"bth_se":0,"bth_m":0,"bth_padcnt":0,"bth_tver":0,"bth_pkey":65535,"#,
    r#""bth_fecn":0,"bth_becn":0,"bth_dqpn":17,"bth_ackreq":1,"bth_psn":12345,"#,
    r#""reth":{"va":"0x00007f0000001000","rkey":4660,"dmalen":4096},"immdt":null,"aeth":null,"#,
    r#""payload_len":1024,"payload_crc32":"1c291ca3"}"#
);

/// The frame of the issue's example line (RC RDMA WRITE only, 1024 payload bytes whose zlib
/// CRC-32 is 1c291ca3).
pub fn issue_example() -> RoceFrame {
    use crate::wire::{ethernet, reth};
    // 1020 pattern bytes, then 4 bytes chosen so that the CRC-32 of the whole is 0x1c291ca3.
    let mut payload: Vec<u8> = (0..1020u32).map(|i| ((i * 7 + 3) % 256) as u8).collect();
    payload.extend_from_slice(&[0xfc, 0xf4, 0x8f, 0x3f]);
    let mut f = RoceFrame::new(
        ethernet::Repr {
            dst: [0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff],
            src: [0x11, 0x22, 0x33, 0x44, 0x55, 0x66],
            vlans: vec![],
            ethertype: ETHERTYPE_IPV4,
        },
        IpRepr::V4(ipv4::Repr {
            src: Ipv4Addr::new(10, 0, 0, 1),
            dst: Ipv4Addr::new(10, 0, 0, 2),
            tos: 26 << 2,
            ident: 0x1234,
            dont_frag: true,
            more_frags: false,
            frag_offset: 0,
            ttl: 64,
            protocol: ipv4::PROTO_UDP,
            payload_len: 0,
        }),
        bth::Repr {
            opcode: Opcode::RC_WRITE_ONLY,
            solicited: false,
            migreq: false,
            pad_cnt: 0,
            p_key: 0xFFFF,
            fecn: false,
            becn: false,
            resv6: 0,
            dest_qp: 17,
            ack_req: true,
            resv7: 0,
            psn: 12345,
        },
        payload,
    );
    f.udp_src_port = 49152;
    f.ext.reth = Some(reth::Repr {
        va: 0x0000_7f00_0000_1000,
        r_key: 4660,
        dma_len: 4096,
    });
    f.normalize();
    f
}

fn accept(name: String, b: &Built) -> Crafted {
    Crafted {
        name,
        frame: b.bytes.clone(),
        expect: Expect {
            verdict: RxVerdict::Accept,
            icrc_ok: Some(true),
            payload: Some(b.payload()),
            repr: Some(b.repr.clone()),
        },
    }
}

fn drop_case(name: &str, frame: Vec<u8>, r: DropReason, icrc_ok: Option<bool>, payload: Vec<u8>) -> Crafted {
    Crafted {
        name: name.to_string(),
        frame,
        expect: Expect {
            verdict: RxVerdict::Drop(r),
            icrc_ok,
            payload: Some(payload),
            repr: None,
        },
    }
}

fn pass_case(name: &str, frame: Vec<u8>) -> Crafted {
    Crafted {
        name: name.to_string(),
        frame,
        expect: Expect {
            verdict: RxVerdict::Pass,
            icrc_ok: None,
            payload: None,
            repr: None,
        },
    }
}

fn pad60(mut v: Vec<u8>) -> Vec<u8> {
    if v.len() < MIN_FRAME_LEN {
        v.resize(MIN_FRAME_LEN, 0);
    }
    v
}

fn l2_header(nvlans: usize, ethertype: u16, rng: &mut ChaCha8Rng) -> Vec<u8> {
    let e = ethernet::Repr {
        dst: rng.gen(),
        src: rng.gen(),
        vlans: random_vlan_tags(rng, nvlans),
        ethertype,
    };
    let mut v = vec![0u8; e.buffer_len()];
    e.emit(&mut ethernet::Packet::new_unchecked(&mut v[..])).unwrap();
    v
}

const SIZES: [usize; 16] = [0, 1, 2, 3, 4, 5, 7, 13, 64, 255, 256, 1023, 1024, 1500, 2048, 4096];

/// Every crafted frame with its expected outcome. Names are unique.
pub fn crafted() -> Vec<Crafted> {
    use DropReason::{Icrc, IpChecksum, IpFragment, IpHeader, IpLength, Padcnt, Truncated, Tver, UdpLength};
    let rng = &mut ChaCha8Rng::seed_from_u64(0x5258_4352);
    let mut out = Vec::new();

    // Accept: every supported opcode × IPv4/IPv6 × 0/1/2 VLAN tags.
    let mut k = 0;
    for op in supported_opcodes() {
        for v6 in [false, true] {
            for nv in 0..=2 {
                let n = if op.has_payload() { SIZES[k % SIZES.len()] } else { 0 };
                k += 1;
                let b = Built::new(roce_repr(rng, op, v6, nv, n));
                let ipv = if v6 { "ipv6" } else { "ipv4" };
                out.push(accept(format!("accept/{}/{ipv}/vlan{nv}/payload{n}", op.name()), &b));
            }
        }
    }
    out.push(accept("accept/issue-example".into(), &Built::new(issue_example())));
    // Minimum-size frames: 58 bytes of IP packet and headers, MAC padding to 60 (zeros or not).
    for (i, op) in [Opcode::RC_SEND_ONLY, Opcode::RC_WRITE_MIDDLE, Opcode::UC_SEND_MIDDLE]
        .into_iter()
        .enumerate()
    {
        let mut b = Built::new(roce_repr(rng, op, false, 0, 0));
        assert_eq!((b.ip_end(), b.bytes.len()), (58, 60));
        if i > 0 {
            b.bytes[58] = 0xA5;
            b.bytes[59] = 0x5A;
        }
        out.push(accept(
            format!("accept/min-frame/{}/mac-pad-{}", op.name(), if i > 0 { "nonzero" } else { "zero" }),
            &b,
        ));
    }
    // One byte of payload: 62 bytes, no MAC padding; and 3 pad bytes that are not zero.
    let mut r = roce_repr(rng, Opcode::UC_SEND_ONLY, false, 0, 1);
    r.pad = Some(vec![0xDE, 0xAD, 0xBE]);
    out.push(accept("accept/nonzero-pad-bytes".into(), &Built::new(r)));
    // Jumbo frames of 9000 bytes.
    for (v6, nv) in [(false, 0), (true, 2)] {
        let r = roce_repr(rng, Opcode::RC_WRITE_FIRST, v6, nv, 0);
        let n = 9000 - r.frame_len() - 3;
        let mut r = roce_repr(rng, Opcode::RC_WRITE_FIRST, v6, nv, n);
        r.pad = Some(vec![0; 3]);
        let b = Built::new(r);
        assert_eq!(b.bytes.len(), 9000);
        out.push(accept(format!("accept/jumbo-9000/{}", if v6 { "ipv6-vlan2" } else { "ipv4" }), &b));
    }
    // The ICRC-masked fields rewritten after the ICRC was computed (as a switch would).
    for v6 in [false, true] {
        let mut b = Built::new(roce_repr(rng, Opcode::RC_SEND_ONLY, v6, 1, 40));
        let (l2, u) = (b.l2, b.udp_at());
        match &mut b.repr.ip {
            IpRepr::V4(ip) => {
                ip.tos ^= 0xFF;
                ip.ttl ^= 0x55;
                b.bytes[l2 + 1] ^= 0xFF;
                b.bytes[l2 + 8] ^= 0x55;
                b.bytes[l2 + 10] = 0;
                b.bytes[l2 + 11] = 0;
                let c = ipv4::checksum(&b.bytes[l2..l2 + 20]);
                b.bytes[l2 + 10..l2 + 12].copy_from_slice(&c.to_be_bytes());
            }
            IpRepr::V6(ip) => {
                ip.traffic_class ^= 0xFF;
                ip.flow_label ^= 0xABCDE;
                ip.hop_limit ^= 0x55;
                let mut p = ipv6::Packet::new_unchecked(&mut b.bytes[l2..]);
                p.set_version_tc_flow(6, ip.traffic_class, ip.flow_label);
                p.set_hop_limit(ip.hop_limit);
            }
        }
        b.repr.udp_checksum ^= 0xFFFF;
        b.bytes[u + 6] ^= 0xFF;
        b.bytes[u + 7] ^= 0xFF;
        b.repr.bth.fecn = !b.repr.bth.fecn;
        b.repr.bth.becn = !b.repr.bth.becn;
        *b.bth_byte(4) ^= 0xC0;
        out.push(accept(
            format!("accept/masked-fields-rewritten/{}", if v6 { "ipv6" } else { "ipv4" }),
            &b,
        ));
    }

    let good = |rng: &mut ChaCha8Rng, op: Opcode, v6: bool, nv: usize, n: usize| Built::new(roce_repr(rng, op, v6, nv, n));

    // ip_header
    {
        let mut b = good(rng, Opcode::RC_SEND_ONLY, false, 0, 100);
        b.bytes[b.l2] = 0x55;
        b.fix();
        out.push(drop_case("drop/ip_header/ipv4-version-5", b.bytes, IpHeader, None, vec![]));
        for ihl in [4u8, 6, 15] {
            let mut b = good(rng, Opcode::RC_WRITE_ONLY, false, 1, 64);
            b.bytes[b.l2] = 0x40 | ihl;
            b.fix();
            out.push(drop_case(
                &format!("drop/ip_header/ipv4-ihl-{ihl}-udp-at-20"),
                b.bytes,
                IpHeader,
                None,
                vec![],
            ));
        }
        // Real IPv4 options (IHL 6) whose last two bytes read as port 4791 at the fixed offset.
        let mut b = good(rng, Opcode::RC_SEND_ONLY, false, 0, 32);
        let l2 = b.l2;
        b.bytes.splice(l2 + 20..l2 + 20, [1u8, 1, 0x12, 0xB7]);
        b.bytes[l2] = 0x46;
        let iplen = b.iplen() + 4;
        b.set_iplen(iplen);
        b.bytes[l2 + 10] = 0;
        b.bytes[l2 + 11] = 0;
        let c = ipv4::checksum(&b.bytes[l2..l2 + 24]);
        b.bytes[l2 + 10..l2 + 12].copy_from_slice(&c.to_be_bytes());
        let c = icrc_fixed(&b.bytes[l2..l2 + iplen - 4], false);
        b.bytes[l2 + iplen - 4..l2 + iplen].copy_from_slice(&c.to_le_bytes());
        out.push(drop_case("drop/ip_header/ipv4-options-ihl-6", b.bytes, IpHeader, None, vec![]));
        let mut b = good(rng, Opcode::UD_SEND_ONLY, true, 2, 20);
        b.bytes[b.l2] = 0x40 | (b.bytes[b.l2] & 0x0F);
        b.fix();
        out.push(drop_case("drop/ip_header/ipv6-version-4", b.bytes, IpHeader, None, vec![]));
    }
    // truncated
    {
        let b = good(rng, Opcode::RC_WRITE_ONLY, false, 0, 100);
        let cut = b.hdr_end() + 40;
        out.push(drop_case(
            "drop/truncated/in-payload",
            b.bytes[..cut].to_vec(),
            Truncated,
            None,
            b.repr.payload[..40].to_vec(),
        ));
        let b = good(rng, Opcode::UC_SEND_ONLY_IMM, true, 2, 333);
        let cut = b.hdr_end() + 1;
        out.push(drop_case(
            "drop/truncated/in-payload-ipv6",
            b.bytes[..cut].to_vec(),
            Truncated,
            None,
            b.repr.payload[..1].to_vec(),
        ));
        let b = good(rng, Opcode::RC_SEND_ONLY, false, 1, 5);
        assert_eq!(b.repr.bth.pad_cnt, 3);
        let cut = b.hdr_end() + 5 + 2;
        out.push(drop_case(
            "drop/truncated/in-pad",
            b.bytes[..cut].to_vec(),
            Truncated,
            None,
            b.payload(),
        ));
        let b = good(rng, Opcode::RC_SEND_LAST, false, 0, 50);
        let cut = b.ip_end() - 2;
        out.push(drop_case(
            "drop/truncated/in-icrc",
            b.bytes[..cut].to_vec(),
            Truncated,
            None,
            b.payload(),
        ));
        let b = good(rng, Opcode::RC_SEND_LAST, false, 0, 50);
        let cut = b.ip_end() - 4;
        out.push(drop_case(
            "drop/truncated/before-icrc",
            b.bytes[..cut].to_vec(),
            Truncated,
            None,
            b.payload(),
        ));
        let b = good(rng, Opcode::RC_WRITE_ONLY, true, 1, 100);
        let cut = b.bth_at() + 12 + 8;
        out.push(drop_case(
            "drop/truncated/in-reth",
            b.bytes[..cut].to_vec(),
            Truncated,
            None,
            vec![],
        ));
        let b = good(rng, Opcode::CNP, false, 0, 0);
        let cut = b.bth_at() + 12 + 10;
        out.push(drop_case(
            "drop/truncated/in-cnp-reserved",
            b.bytes[..cut].to_vec(),
            Truncated,
            None,
            vec![],
        ));
        let b = good(rng, Opcode::RC_ACK, false, 2, 0);
        let cut = b.bth_at() + 6;
        out.push(drop_case("drop/truncated/in-bth", b.bytes[..cut].to_vec(), Truncated, None, vec![]));
        let b = good(rng, Opcode::RC_SEND_ONLY, false, 0, 10);
        let cut = b.udp_at() + 4;
        out.push(drop_case(
            "drop/truncated/after-udp-dport-ipv4",
            b.bytes[..cut].to_vec(),
            Truncated,
            None,
            vec![],
        ));
        let b = good(rng, Opcode::RC_SEND_ONLY, true, 0, 10);
        let cut = b.udp_at() + 4;
        out.push(drop_case(
            "drop/truncated/after-udp-dport-ipv6",
            b.bytes[..cut].to_vec(),
            Truncated,
            None,
            vec![],
        ));
        // A 60-byte frame (MAC padding) whose IP length runs past it.
        let mut b = good(rng, Opcode::RC_SEND_ONLY, false, 0, 0);
        b.set_lengths(48);
        b.fix();
        assert_eq!(b.bytes.len(), 60);
        let pay = b.region_in_frame();
        out.push(drop_case("drop/truncated/ip-length-past-min-frame", b.bytes, Truncated, None, pay));
        // The IP length says 8 more bytes than the frame holds: everything after the headers
        // (payload, pad, old ICRC) is payload region.
        let mut b = good(rng, Opcode::RC_SEND_ONLY, true, 1, 77);
        let iplen = b.iplen() + 8;
        b.set_lengths(iplen);
        b.fix();
        let pay = b.region_in_frame();
        out.push(drop_case("drop/truncated/ip-length-past-frame", b.bytes, Truncated, None, pay));
    }
    // ip_length
    {
        // IP length too small for the headers and ICRC, frame not longer than 60 bytes.
        let mut b = good(rng, Opcode::RC_SEND_ONLY, false, 0, 0);
        b.set_lengths(42);
        b.fix();
        out.push(drop_case("drop/ip_length/too-small-min-frame", b.bytes, IpLength, None, vec![]));
        // Too small for the RETH the opcode implies (the ICRC check runs at the stated end).
        let mut b = good(rng, Opcode::RC_WRITE_ONLY, false, 0, 64);
        b.set_lengths(20 + 8 + 12 + 8 + 4);
        b.fix();
        out.push(drop_case(
            "drop/ip_length/too-small-for-reth",
            b.bytes,
            IpLength,
            Some(true),
            vec![],
        ));
        let mut b = good(rng, Opcode::UD_SEND_ONLY, true, 0, 64);
        b.bytes.push(0);
        out.push(drop_case(
            "drop/ip_length/one-excess-byte",
            b.bytes.clone(),
            IpLength,
            Some(true),
            b.payload(),
        ));
        let mut b = good(rng, Opcode::RC_SEND_ONLY, false, 0, 0);
        b.bytes.resize(64, 0);
        out.push(drop_case(
            "drop/ip_length/mac-padding-past-60",
            b.bytes,
            IpLength,
            Some(true),
            vec![],
        ));
        let mut b = good(rng, Opcode::RC_SEND_ONLY, false, 0, 0);
        b.bytes.push(0);
        out.push(drop_case("drop/ip_length/61-byte-frame", b.bytes, IpLength, Some(true), vec![]));
        let mut b = good(rng, Opcode::RC_SEND_ONLY, false, 2, 3000);
        let iplen = b.iplen() - 100;
        b.set_lengths(iplen);
        b.fix();
        let hdr = b.hdr_end();
        let pay = b.bytes[hdr..b.l2 + iplen - 4].to_vec();
        out.push(drop_case(
            "drop/ip_length/ip-length-short-of-frame",
            b.bytes,
            IpLength,
            Some(true),
            pay,
        ));
    }
    // ip_checksum
    for (i, nv) in [0usize, 2].into_iter().enumerate() {
        let mut b = good(rng, Opcode::RC_SEND_ONLY, false, nv, 30 + i);
        let at = b.l2 + 10 + i;
        b.bytes[at] ^= 0x01;
        out.push(drop_case(
            &format!("drop/ip_checksum/vlan{nv}"),
            b.bytes,
            IpChecksum,
            Some(true),
            vec![],
        ));
    }
    // ip_fragment
    for (name, mf, off) in [("mf", true, 0u16), ("offset", false, 185), ("mf-and-offset", true, 1)] {
        let mut b = good(rng, Opcode::RC_SEND_FIRST, false, 1, 256);
        let df = b.bytes[b.l2 + 6] & 0x40 != 0;
        let l2 = b.l2;
        ipv4::Packet::new_unchecked(&mut b.bytes[l2..]).set_flags_frag(false, df, mf, off);
        b.fix();
        out.push(drop_case(
            &format!("drop/ip_fragment/{name}"),
            b.bytes,
            IpFragment,
            Some(true),
            vec![],
        ));
    }
    // udp_length
    for (name, v6, delta) in [
        ("ipv4-plus-1", false, 1i32),
        ("ipv4-minus-1", false, -1),
        ("ipv6-plus-4", true, 4),
        ("ipv6-zero", true, i32::MIN),
    ] {
        let mut b = good(rng, Opcode::RC_SEND_ONLY_IMM, v6, 0, 17);
        let v = if delta == i32::MIN {
            0
        } else {
            (i32::from(b.udp_len()) + delta) as u16
        };
        b.set_udp_len(v);
        b.fix();
        out.push(drop_case(
            &format!("drop/udp_length/{name}"),
            b.bytes,
            UdpLength,
            Some(true),
            vec![],
        ));
    }
    // tver
    for (v6, tver) in [(false, 1u8), (true, 15)] {
        let mut b = good(rng, Opcode::UC_WRITE_ONLY, v6, 1, 99);
        *b.bth_byte(1) = (*b.bth_byte(1) & 0xF0) | tver;
        b.fix();
        out.push(drop_case(
            &format!("drop/tver/{tver}-{}", if v6 { "ipv6" } else { "ipv4" }),
            b.bytes,
            Tver,
            Some(true),
            vec![],
        ));
    }
    // opcode: reserved values and RD
    for op in [
        0x15u8, 0x18, 0x1F, 0x2C, 0x3F, 0x40, 0x4A, 0x51, 0x54, 0x60, 0x66, 0x80, 0x82, 0xA0, 0xFF,
    ] {
        assert!(supported_opcode(op).is_none());
        let mut b = good(rng, Opcode::RC_SEND_ONLY, op % 2 == 1, 0, 48);
        *b.bth_byte(0) = op;
        b.fix();
        out.push(drop_case(
            &format!("drop/opcode/{op:#04x}"),
            b.bytes,
            DropReason::Opcode,
            Some(true),
            vec![],
        ));
    }
    // padcnt: more pad than payload bytes
    for (name, op, n, pad) in [
        ("ack-pad-1", Opcode::RC_ACK, 0usize, 1u8),
        ("send-1-byte-pad-3", Opcode::RC_SEND_ONLY, 1, 3),
        ("cnp-pad-2", Opcode::CNP, 0, 2),
        ("ud-2-bytes-pad-3", Opcode::UD_SEND_ONLY, 2, 3),
    ] {
        let mut r = roce_repr(rng, op, n == 2, 0, n);
        r.pad = Some(vec![]);
        let mut b = Built::new(r);
        *b.bth_byte(1) = (*b.bth_byte(1) & !0x30) | (pad << 4);
        b.fix();
        out.push(drop_case(&format!("drop/padcnt/{name}"), b.bytes, Padcnt, Some(true), vec![]));
    }
    // icrc: one protected bit flipped (payload, pad, ICRC, covered header fields)
    {
        let mut b = good(rng, Opcode::RC_WRITE_ONLY_IMM, false, 1, 500);
        let bit = (b.hdr_end() + 123) * 8 + 5;
        flip_bit(&mut b.bytes, bit);
        let pay = b.bytes[b.hdr_end()..b.hdr_end() + 500].to_vec();
        out.push(drop_case("drop/icrc/payload-bit", b.bytes, Icrc, Some(false), pay));
        let mut b = good(rng, Opcode::UC_SEND_LAST, true, 2, 1);
        let at = b.ip_end() - 1;
        b.bytes[at] ^= 0x80;
        out.push(drop_case(
            "drop/icrc/icrc-byte-ipv6",
            b.bytes.clone(),
            Icrc,
            Some(false),
            b.payload(),
        ));
        let mut b = good(rng, Opcode::RC_SEND_ONLY, false, 0, 2);
        let at = b.hdr_end() + 3;
        b.bytes[at] ^= 1;
        out.push(drop_case("drop/icrc/pad-byte", b.bytes.clone(), Icrc, Some(false), b.payload()));
        let mut b = good(rng, Opcode::RC_ACK, false, 0, 0);
        *b.bth_byte(11) ^= 1;
        out.push(drop_case("drop/icrc/psn-bit", b.bytes, Icrc, Some(false), vec![]));
        let mut b = good(rng, Opcode::UD_SEND_ONLY_IMM, true, 0, 8);
        let at = b.l2 + 8;
        b.bytes[at] ^= 0x10;
        out.push(drop_case("drop/icrc/ipv6-src-bit", b.bytes.clone(), Icrc, Some(false), b.payload()));
        let mut b = good(rng, Opcode::RC_SEND_MIDDLE, false, 0, 0);
        b.bytes[56] ^= 4;
        out.push(drop_case("drop/icrc/min-frame-icrc-bit", b.bytes, Icrc, Some(false), vec![]));
        let mut b = good(rng, Opcode::CNP, false, 0, 0);
        let at = b.bth_at() + 12 + 7;
        b.bytes[at] ^= 0x20;
        out.push(drop_case("drop/icrc/cnp-reserved-bit", b.bytes, Icrc, Some(false), vec![]));
    }
    // precedence: two defects, the first by precedence is reported
    {
        let mut b = good(rng, Opcode::RC_SEND_ONLY, false, 0, 40);
        b.bytes[b.l2] = 0x65;
        b.fix();
        b.bytes[b.l2 + 10] ^= 0xFF;
        out.push(drop_case("precedence/ip_header-over-ip_checksum", b.bytes, IpHeader, None, vec![]));
        // Truncated inside the payload with a bad checksum: nothing is delivered.
        let mut b = good(rng, Opcode::RC_SEND_ONLY, false, 0, 200);
        b.bytes[b.l2 + 10] ^= 0xFF;
        let cut = b.hdr_end() + 100;
        out.push(drop_case(
            "precedence/truncated-over-ip_checksum",
            b.bytes[..cut].to_vec(),
            Truncated,
            None,
            vec![],
        ));
        let mut b = good(rng, Opcode::RC_SEND_ONLY, false, 0, 200);
        *b.bth_byte(1) |= 0x02;
        b.fix();
        let cut = b.hdr_end() + 100;
        out.push(drop_case(
            "precedence/truncated-over-tver",
            b.bytes[..cut].to_vec(),
            Truncated,
            None,
            vec![],
        ));
        // Excess bytes with a bad UDP length: ip_length, nothing delivered.
        let mut b = good(rng, Opcode::RC_SEND_ONLY, false, 0, 200);
        let v = b.udp_len() + 1;
        b.set_udp_len(v);
        b.fix();
        b.bytes.extend_from_slice(&[1, 2, 3]);
        out.push(drop_case(
            "precedence/ip_length-over-udp_length",
            b.bytes,
            IpLength,
            Some(true),
            vec![],
        ));
        // Excess bytes and a bad ICRC: ip_length, payload delivered.
        let mut b = good(rng, Opcode::RC_SEND_ONLY, true, 0, 200);
        let at = b.hdr_end();
        b.bytes[at] ^= 1;
        b.bytes.extend_from_slice(&[0; 7]);
        let pay = b.bytes[at..at + 200].to_vec();
        out.push(drop_case("precedence/ip_length-over-icrc", b.bytes, IpLength, Some(false), pay));
        let mut b = good(rng, Opcode::RC_SEND_ONLY, false, 0, 40);
        b.set_lengths(41);
        b.fix();
        b.bytes[b.l2 + 10] ^= 1;
        out.push(drop_case("precedence/ip_length-over-ip_checksum", b.bytes, IpLength, None, vec![]));
        let mut b = good(rng, Opcode::RC_SEND_ONLY, false, 0, 40);
        let l2 = b.l2;
        ipv4::Packet::new_unchecked(&mut b.bytes[l2..]).set_flags_frag(false, false, true, 0);
        b.fix();
        b.bytes[b.l2 + 11] ^= 1;
        out.push(drop_case(
            "precedence/ip_checksum-over-ip_fragment",
            b.bytes,
            IpChecksum,
            Some(true),
            vec![],
        ));
        let mut b = good(rng, Opcode::RC_SEND_ONLY, false, 0, 40);
        let l2 = b.l2;
        ipv4::Packet::new_unchecked(&mut b.bytes[l2..]).set_flags_frag(false, false, false, 3);
        let v = b.udp_len() - 2;
        b.set_udp_len(v);
        b.fix();
        out.push(drop_case(
            "precedence/ip_fragment-over-udp_length",
            b.bytes,
            IpFragment,
            Some(true),
            vec![],
        ));
        let mut b = good(rng, Opcode::RC_SEND_ONLY, true, 0, 40);
        let v = b.udp_len() + 2;
        b.set_udp_len(v);
        *b.bth_byte(1) |= 0x01;
        b.fix();
        out.push(drop_case("precedence/udp_length-over-tver", b.bytes, UdpLength, Some(true), vec![]));
        let mut b = good(rng, Opcode::RC_SEND_ONLY, false, 0, 40);
        *b.bth_byte(0) = 0x1E;
        *b.bth_byte(1) |= 0x08;
        b.fix();
        out.push(drop_case("precedence/tver-over-opcode", b.bytes, Tver, Some(true), vec![]));
        let mut b = good(rng, Opcode::RC_SEND_ONLY, false, 0, 0);
        *b.bth_byte(0) = 0x55;
        *b.bth_byte(1) |= 0x30;
        b.fix();
        out.push(drop_case(
            "precedence/opcode-over-padcnt",
            b.bytes,
            DropReason::Opcode,
            Some(true),
            vec![],
        ));
        let mut r = roce_repr(rng, Opcode::RC_ACK, true, 0, 0);
        r.pad = Some(vec![]);
        let mut b = Built::new(r);
        *b.bth_byte(1) |= 0x20;
        b.fix();
        let at = b.ip_end() - 3;
        b.bytes[at] ^= 0xFF;
        out.push(drop_case("precedence/padcnt-over-icrc", b.bytes, Padcnt, Some(false), vec![]));
    }
    // pass-through
    {
        let mut arp = l2_header(0, ETHERTYPE_ARP, rng);
        arp.extend_from_slice(&[0, 1, 8, 0, 6, 4, 0, 1]);
        arp.extend((0..20).map(|i| i as u8));
        out.push(pass_case("pass/arp", pad60(arp)));
        let mut arp = l2_header(1, ETHERTYPE_ARP, rng);
        arp.extend_from_slice(&[0, 1, 8, 0, 6, 4, 0, 2]);
        arp.extend((0..20).map(|i| (i * 3) as u8));
        out.push(pass_case("pass/arp-vlan", pad60(arp)));
        for (name, v6, port) in [("udp-4790-ipv4", false, 4790u16), ("udp-53-ipv6", true, 53)] {
            let mut b = good(rng, Opcode::RC_SEND_ONLY, v6, 1, 30);
            let at = b.udp_at() + 2;
            b.bytes[at..at + 2].copy_from_slice(&port.to_be_bytes());
            out.push(pass_case(&format!("pass/{name}"), b.bytes));
        }
        // Source port 4791, destination another port.
        let mut b = good(rng, Opcode::RC_SEND_ONLY, false, 0, 30);
        let at = b.udp_at();
        b.bytes[at..at + 4].copy_from_slice(&[0x12, 0xB7, 0xC0, 0x00]);
        out.push(pass_case("pass/udp-sport-4791", b.bytes));
        let mut b = good(rng, Opcode::RC_SEND_ONLY, false, 0, 30);
        b.bytes[b.l2 + 9] = ipv4::PROTO_TCP;
        out.push(pass_case("pass/ipv4-tcp-port-4791", b.bytes));
        let mut b = good(rng, Opcode::RC_SEND_ONLY, true, 0, 30);
        b.bytes[b.l2 + 6] = 58;
        out.push(pass_case("pass/ipv6-icmpv6", b.bytes));
        // IPv6 hop-by-hop options header before a UDP 4791 datagram.
        let mut b = good(rng, Opcode::RC_SEND_ONLY, true, 0, 30);
        let l2 = b.l2;
        b.bytes[l2 + 6] = 0;
        let iplen = b.iplen() + 8;
        b.set_iplen(iplen);
        b.bytes.splice(l2 + 40..l2 + 40, [17u8, 0, 1, 4, 0, 0, 0, 0]);
        out.push(pass_case("pass/ipv6-hop-by-hop-then-udp-4791", b.bytes));
        for (name, et) in [
            ("ethertype-roce-v1-8915", 0x8915u16),
            ("ethertype-lldp-88cc", 0x88CC),
            ("ethertype-mpls-8847", 0x8847),
        ] {
            let mut v = l2_header(0, et, rng);
            v.extend((0..80).map(|i| (i * 7) as u8));
            out.push(pass_case(&format!("pass/{name}"), v));
        }
        // An IPv4 RoCEv2 packet behind three VLAN tags.
        let b = good(rng, Opcode::RC_SEND_ONLY, false, 2, 30);
        let mut v = b.bytes.clone();
        v.splice(12..12, [0x81, 0x00, 0x00, 0x05]);
        out.push(pass_case("pass/three-vlan-tags", v));
        out.push(pass_case("pass/empty-frame", vec![]));
        out.push(pass_case("pass/runt-1-byte", vec![0xFF]));
        out.push(pass_case("pass/runt-13-bytes", vec![0xAB; 13]));
        let b = good(rng, Opcode::RC_SEND_ONLY, false, 0, 30);
        out.push(pass_case("pass/runt-ends-inside-udp-dport", b.bytes[..b.udp_at() + 3].to_vec()));
        let b = good(rng, Opcode::RC_SEND_ONLY, true, 1, 30);
        out.push(pass_case("pass/runt-ends-inside-ipv6-header", b.bytes[..b.l2 + 30].to_vec()));
    }
    out
}

/// What [`random_labeled`] made a frame as.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Label {
    /// A valid RoCEv2 frame (60–9000 bytes); the representation it was emitted from.
    Good(Box<RoceFrame>),
    /// A valid frame with one defect of this reason.
    Malformed(DropReason),
    /// A frame that is not RoCEv2 by the classification rule.
    Pass,
    /// Anything else: two defects, runts, random bytes.
    Other,
}

fn good_random(rng: &mut ChaCha8Rng, v6: Option<bool>) -> Built {
    if v6 != Some(true) && rng.gen_range(0..16) == 0 {
        // A minimum frame: IPv4, no VLAN tag, no extension header, no payload (58 bytes and
        // MAC padding to 60).
        let ops: Vec<Opcode> = supported_opcodes().into_iter().filter(|o| o.ext_len() == 0).collect();
        let op = ops[rng.gen_range(0..ops.len())];
        let mut b = Built::new(roce_repr(rng, op, false, 0, 0));
        if rng.gen() {
            rng.fill_bytes(&mut b.bytes[58..]);
        }
        return b;
    }
    let ops = supported_opcodes();
    let op = ops[rng.gen_range(0..ops.len())];
    let v6 = v6.unwrap_or_else(|| rng.gen());
    let nv = rng.gen_range(0..=2);
    let base = roce_repr(rng, op, v6, nv, 0).frame_len();
    let max = 9000 - base - 3;
    let n = if !op.has_payload() {
        0
    } else {
        match rng.gen_range(0..4) {
            0 => rng.gen_range(0..=64),
            1 => rng.gen_range(65..=1500),
            2 => rng.gen_range(1501..=4096),
            _ => rng.gen_range(4097..=max),
        }
    };
    let mut r = roce_repr(rng, op, v6, nv, n);
    if rng.gen_range(0..8) == 0 && n > 0 {
        // An explicit pad of random bytes (PadCnt as long as the natural one).
        let mut pad = vec![0u8; natural_pad(n)];
        rng.fill_bytes(&mut pad);
        r.pad = Some(pad);
    }
    let mut b = Built::new(r);
    if b.bytes.len() > b.ip_end() && rng.gen() {
        let at = b.ip_end();
        rng.fill_bytes(&mut b.bytes[at..]);
    }
    b
}

/// A valid frame with one random defect of the given reason.
pub fn malformed(rng: &mut ChaCha8Rng, reason: DropReason) -> Vec<u8> {
    use DropReason::{Icrc, IpChecksum, IpFragment, IpHeader, IpLength, Padcnt, Truncated, Tver, UdpLength};
    let v4_only = matches!(reason, IpChecksum | IpFragment);
    let mut b = good_random(rng, v4_only.then_some(false));
    let (l2, hl) = (b.l2, b.hl());
    match reason {
        IpHeader => {
            if b.v6 {
                let v = loop {
                    let v: u8 = rng.gen_range(0..16);
                    if v != 6 {
                        break v;
                    }
                };
                b.bytes[l2] = (v << 4) | (b.bytes[l2] & 0x0F);
            } else if rng.gen() {
                let v = loop {
                    let v: u8 = rng.gen_range(0..16);
                    if v != 4 {
                        break v;
                    }
                };
                b.bytes[l2] = (v << 4) | 5;
            } else {
                let ihl = loop {
                    let v: u8 = rng.gen_range(0..16);
                    if v != 5 {
                        break v;
                    }
                };
                b.bytes[l2] = 0x40 | ihl;
            }
            b.fix();
        }
        Truncated => {
            if rng.gen_range(0..3) > 0 {
                let cut = rng.gen_range(l2 + hl + 4..b.ip_end());
                b.bytes.truncate(cut);
            } else {
                let k = rng.gen_range(1..=64) + (b.bytes.len() - b.ip_end());
                let iplen = b.iplen() + k;
                b.set_lengths(iplen);
                b.fix();
            }
        }
        IpLength => {
            if rng.gen() {
                let k = rng.gen_range(1..=64).max(MIN_FRAME_LEN + 1 - b.bytes.len().min(MIN_FRAME_LEN + 1));
                let extra: Vec<u8> = (0..k).map(|_| rng.gen()).collect();
                b.bytes.extend_from_slice(&extra);
            } else {
                let min = hl + 8 + 12 + b.repr.ext.buffer_len() + 4;
                let iplen = rng.gen_range(if b.v6 { ipv6::HEADER_LEN } else { 0 }..min);
                b.set_lengths(iplen);
                b.fix();
            }
        }
        IpChecksum => {
            let x: u16 = rng.gen_range(1..=0xFFFF);
            b.bytes[l2 + 10] ^= (x >> 8) as u8;
            b.bytes[l2 + 11] ^= x as u8;
        }
        IpFragment => {
            let (mf, off) = match rng.gen_range(0..3) {
                0 => (true, 0),
                1 => (false, rng.gen_range(1..0x2000)),
                _ => (true, rng.gen_range(1..0x2000)),
            };
            let df = b.bytes[l2 + 6] & 0x40 != 0;
            ipv4::Packet::new_unchecked(&mut b.bytes[l2..]).set_flags_frag(false, df, mf, off);
            b.fix();
        }
        UdpLength => {
            let d: u16 = rng.gen_range(1..=0xFFFF);
            let v = b.udp_len().wrapping_add(d);
            b.set_udp_len(v);
            b.fix();
        }
        Tver => {
            let t = rng.gen_range(1..16);
            *b.bth_byte(1) = (*b.bth_byte(1) & 0xF0) | t;
            b.fix();
        }
        DropReason::Opcode => {
            let op = loop {
                let v: u8 = rng.gen();
                if supported_opcode(v).is_none() {
                    break v;
                }
            };
            *b.bth_byte(0) = op;
            b.fix();
        }
        Padcnt => {
            let ops = supported_opcodes();
            let op = ops[rng.gen_range(0..ops.len())];
            let n = rng.gen_range(0..=2);
            let (v6, nv) = (rng.gen(), rng.gen_range(0..=2));
            let mut r = roce_repr(rng, op, v6, nv, n);
            r.pad = Some(vec![]);
            b = Built::new(r);
            let pad = rng.gen_range(n as u8 + 1..=3);
            *b.bth_byte(1) = (*b.bth_byte(1) & !0x30) | (pad << 4);
            b.fix();
        }
        Icrc => {
            // A bit of a field no check reads: IP addresses, P_Key, DestQP, PSN, extension
            // headers, payload, pad, ICRC.
            let (bth, hdr, end) = (b.bth_at(), b.hdr_end(), b.ip_end());
            let ranges = if b.v6 {
                [
                    (l2 + 8, l2 + 40),
                    (bth + 2, bth + 4),
                    (bth + 5, bth + 8),
                    (bth + 9, hdr),
                    (hdr, end),
                ]
            } else {
                [
                    (l2 + 12, l2 + 20),
                    (bth + 2, bth + 4),
                    (bth + 5, bth + 8),
                    (bth + 9, hdr),
                    (hdr, end),
                ]
            };
            let (lo, hi) = ranges[rng.gen_range(0..ranges.len())];
            let bit = rng.gen_range(lo * 8..hi * 8);
            flip_bit(&mut b.bytes, bit);
            if !b.v6 {
                // The IPv4 checksum covers the addresses; it is masked in the ICRC.
                b.bytes[l2 + 10] = 0;
                b.bytes[l2 + 11] = 0;
                let c = ipv4::checksum(&b.bytes[l2..l2 + ipv4::HEADER_LEN]);
                b.bytes[l2 + 10..l2 + 12].copy_from_slice(&c.to_be_bytes());
            }
        }
    }
    b.bytes
}

/// A seeded mix of labelled frames: about 55 % valid RoCEv2 frames of 60–9000 bytes (every
/// supported opcode, IPv4/IPv6, 0–2 VLAN tags, MAC padding zero or random, pad bytes zero or
/// random), 30 % frames with one defect (every drop reason in turn), 5 % with one defect
/// and one more random bit flipped, 10 % not RoCEv2 (ARP, UDP to other ports, TCP, IPv6 without UDP, IPv4 options, three VLAN tags,
/// runts, random bytes).
pub fn random_labeled(seed: u64, n: usize) -> Vec<(Label, Vec<u8>)> {
    let rng = &mut ChaCha8Rng::seed_from_u64(seed);
    let mut gen = FrameGen::new(rng.gen());
    let mut next_reason = 0;
    (0..n)
        .map(|_| match rng.gen_range(0..100) {
            0..=54 => {
                let b = good_random(rng, None);
                (Label::Good(Box::new(b.repr)), b.bytes)
            }
            55..=84 => {
                let r = DropReason::ALL[next_reason % DropReason::ALL.len()];
                next_reason += 1;
                (Label::Malformed(r), malformed(rng, r))
            }
            85..=89 => {
                // A frame with one defect and one more random bit flipped after the L2 header.
                let r1 = DropReason::ALL[rng.gen_range(0..DropReason::ALL.len())];
                let mut f = malformed(rng, r1);
                if f.len() > 40 {
                    let bit = rng.gen_range(14 * 8..f.len() * 8);
                    flip_bit(&mut f, bit);
                }
                (Label::Other, f)
            }
            _ => {
                let kinds: Vec<FrameKind> = FrameKind::ALL.into_iter().filter(|k| !matches!(k, FrameKind::Roce)).collect();
                let k = kinds[rng.gen_range(0..kinds.len())];
                let label = if matches!(k, FrameKind::Runt | FrameKind::Garbage) {
                    Label::Other
                } else {
                    Label::Pass
                };
                (label, gen.of_kind(k))
            }
        })
        .collect()
}

/// The frames of [`random_labeled`] (for the co-simulation).
pub fn random_frames(seed: u64, n: usize) -> Vec<Vec<u8>> {
    random_labeled(seed, n).into_iter().map(|(_, f)| f).collect()
}
