//! proptest round trips (repr → emit → parse → same repr) for every header and whole frames,
//! and the ICRC verdict under single-bit flips.

use ferroce_wire::ethernet::{self, VlanTag};
use ferroce_wire::gen::{flip_bit, FrameGen};
use ferroce_wire::icrc::{coverage, icrc_verdict};
use ferroce_wire::*;
use proptest::prelude::*;
use proptest::sample::select;
use std::net::{Ipv4Addr, Ipv6Addr};

fn vlan() -> impl Strategy<Value = VlanTag> {
    (select(vec![0x8100u16, 0x88A8]), 0..8u8, any::<bool>(), 0..4096u16).prop_map(|(tpid, pcp, dei, vid)| VlanTag { tpid, pcp, dei, vid })
}

fn eth() -> impl Strategy<Value = EthernetRepr> {
    (
        any::<[u8; 6]>(),
        any::<[u8; 6]>(),
        proptest::collection::vec(vlan(), 0..=2),
        any::<u16>().prop_filter("not a TPID", |t| !ethernet::is_vlan_tpid(*t)),
    )
        .prop_map(|(dst, src, vlans, ethertype)| EthernetRepr {
            dst,
            src,
            vlans,
            ethertype,
        })
}

fn ipv4() -> impl Strategy<Value = Ipv4Repr> {
    (
        any::<u32>(),
        any::<u32>(),
        any::<u8>(),
        any::<u16>(),
        any::<bool>(),
        any::<bool>(),
        0..0x2000u16,
        any::<u8>(),
        any::<u8>(),
        0..1500usize,
    )
        .prop_map(|(s, d, tos, ident, df, mf, fo, ttl, protocol, payload_len)| Ipv4Repr {
            src: Ipv4Addr::from(s),
            dst: Ipv4Addr::from(d),
            tos,
            ident,
            dont_frag: df,
            more_frags: mf,
            frag_offset: fo,
            ttl,
            protocol,
            payload_len,
        })
}

fn ipv6() -> impl Strategy<Value = Ipv6Repr> {
    (
        any::<u128>(),
        any::<u128>(),
        any::<u8>(),
        0..=0xF_FFFFu32,
        any::<u8>(),
        any::<u8>(),
        0..1500usize,
    )
        .prop_map(|(s, d, traffic_class, flow_label, next_header, hop_limit, payload_len)| Ipv6Repr {
            src: Ipv6Addr::from(s),
            dst: Ipv6Addr::from(d),
            traffic_class,
            flow_label,
            next_header,
            hop_limit,
            payload_len,
        })
}

fn bth() -> impl Strategy<Value = BthRepr> {
    (
        select(Opcode::all().to_vec()),
        any::<(bool, bool, bool, bool, bool)>(),
        0..4u8,
        any::<u16>(),
        0..64u8,
        0..1u32 << 24,
        0..128u8,
        0..1u32 << 24,
    )
        .prop_map(
            |(opcode, (solicited, migreq, fecn, becn, ack_req), pad_cnt, p_key, resv6, dest_qp, resv7, psn)| BthRepr {
                opcode,
                solicited,
                migreq,
                pad_cnt,
                p_key,
                fecn,
                becn,
                resv6,
                dest_qp,
                ack_req,
                resv7,
                psn,
            },
        )
}

macro_rules! roundtrip {
    ($repr:expr, $m:ident, $extra:expr) => {{
        let r = $repr;
        let mut buf = vec![0u8; r.buffer_len() + $extra];
        r.emit(&mut $m::Packet::new_unchecked(&mut buf[..])).unwrap();
        let p = $m::Packet::new_checked(&buf[..]).unwrap();
        prop_assert_eq!($m::Repr::parse(&p).unwrap(), r);
        // Too short a buffer is an error, not a panic.
        prop_assert_eq!($m::Packet::new_checked(&buf[..r.buffer_len() - 1]).err(), Some(Error::Truncated));
    }};
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn ethernet_roundtrip(r in eth()) {
        let mut buf = vec![0u8; r.buffer_len()];
        r.emit(&mut ethernet::Packet::new_unchecked(&mut buf[..])).unwrap();
        let p = ethernet::Packet::new_checked(&buf[..]).unwrap();
        prop_assert_eq!(p.header_len(), r.buffer_len());
        prop_assert_eq!(EthernetRepr::parse(&p).unwrap(), r.clone());
        prop_assert!(ethernet::Packet::new_checked(&buf[..buf.len() - 1]).is_err());
    }

    #[test]
    fn ipv4_roundtrip(r in ipv4()) {
        let pl = r.payload_len;
        roundtrip!(r, ipv4, pl);
        let mut buf = vec![0u8; 20 + pl];
        r.emit(&mut ipv4::Packet::new_unchecked(&mut buf[..])).unwrap();
        prop_assert!(ipv4::Packet::new_checked(&buf[..]).unwrap().verify_checksum());
        prop_assert_eq!(ipv4::checksum(&buf[..20]), 0);
    }

    #[test]
    fn ipv6_roundtrip(r in ipv6()) {
        let pl = r.payload_len;
        roundtrip!(r, ipv6, pl);
    }

    #[test]
    fn udp_roundtrip(src_port: u16, dst_port: u16, checksum: u16, payload_len in 0..1500usize) {
        roundtrip!(UdpRepr { src_port, dst_port, checksum, payload_len }, udp, payload_len);
    }

    #[test]
    fn bth_roundtrip(r in bth()) {
        roundtrip!(r, bth, 0);
    }

    #[test]
    fn ext_roundtrips(a: u64, b: u32, c: u32, d: u64, e: u64, s: u8, q in 0..1u32 << 24) {
        roundtrip!(RethRepr { va: a, r_key: b, dma_len: c }, reth, 0);
        roundtrip!(DethRepr { q_key: b, reserved: s, src_qp: q }, deth, 0);
        roundtrip!(RdethRepr { reserved: s, ee_context: q }, rdeth, 0);
        roundtrip!(AethRepr { syndrome: s, msn: q }, aeth, 0);
        roundtrip!(ImmDtRepr { imm: c }, immdt, 0);
        roundtrip!(IethRepr { r_key: b }, ieth, 0);
        roundtrip!(AtomicEthRepr { va: a, r_key: b, swap_add: d, compare: e }, atomic_eth, 0);
        roundtrip!(AtomicAckEthRepr { orig_data: d }, atomic_ack_eth, 0);
        prop_assert_eq!(aeth::Syndrome::from_byte(s).to_byte(), s);
    }

    #[test]
    fn frame_roundtrip(seed: u64, pad_override in proptest::option::of(proptest::collection::vec(any::<u8>(), 0..=3))) {
        let mut f = FrameGen::new(seed).roce_frame();
        f.pad = pad_override;
        f.normalize();
        let v = f.emit();
        prop_assert_eq!(v.len(), f.frame_len());
        prop_assert!(v.len() >= 60);
        prop_assert!(icrc_verdict(&v).is_ok());
        let mut back = RoceFrame::parse(&v).unwrap();
        // A pad override equal to the automatic pad parses back as None.
        if f.pad.as_ref().is_some_and(|p| p.len() == (4 - f.payload.len() % 4) % 4 && p.iter().all(|&b| b == 0)) {
            back.pad = f.pad.clone();
        }
        prop_assert_eq!(&back, &f);
        prop_assert_eq!(back.emit(), v);
    }

    #[test]
    fn frame_roundtrip_mac_padding_ignored(seed: u64, junk: [u8; 8]) {
        let f = FrameGen::new(seed).roce_frame();
        let mut v = f.emit();
        let end = f.eth.buffer_len() + f.ip_len();
        v.truncate(end);
        v.extend_from_slice(&junk);
        prop_assert!(icrc_verdict(&v).is_ok());
        prop_assert_eq!(RoceFrame::parse(&v).unwrap(), f);
    }

    /// Every single-bit flip in the ICRC-protected bits makes the verdict not ok; flips in
    /// masked bits, MAC addresses, VLAN TCIs and MAC padding keep it ok.
    #[test]
    fn bit_flips(seed: u64) {
        let mut g = FrameGen::new(seed);
        let v = g.roce();
        let cov = coverage(&v).unwrap();
        let (lo, hi) = (cov.ip_start * 8, cov.ip_end() * 8);
        // Small frames: every bit of the IP packet. Large: the first 128 bytes, the last 16
        // bytes and 256 random bits.
        let bits: Vec<usize> = if hi - lo <= 300 * 8 {
            (lo..hi).collect()
        } else {
            use rand::Rng;
            let mut b: Vec<usize> = (lo..lo + 128 * 8).chain(hi - 16 * 8..hi).collect();
            b.extend((0..256).map(|_| g.rng().gen_range(lo..hi)));
            b
        };
        for bit in bits {
            let mut f = v.clone();
            flip_bit(&mut f, bit);
            let ok = icrc_verdict(&f).is_ok();
            prop_assert_eq!(ok, !cov.is_protected_bit(bit), "bit {} (byte {}): {:?}", bit, bit / 8, icrc_verdict(&f));
        }
        // Masked bits: all of them.
        for &(at, m) in &cov.masked {
            for k in 0..8 {
                if m & (0x80 >> k) != 0 {
                    let mut f = v.clone();
                    flip_bit(&mut f, at * 8 + k);
                    prop_assert!(icrc_verdict(&f).is_ok(), "masked byte {}", at);
                }
            }
        }
        // Outside the ICRC: MACs, VLAN TCIs, MAC padding.
        let p = ethernet::Packet::new_checked(&v[..]).unwrap();
        let mut outside: Vec<usize> = (0..96).collect();
        for i in 0..p.vlan_count() {
            outside.extend((14 + 4 * i) * 8..(16 + 4 * i) * 8);
        }
        outside.extend(hi..v.len() * 8);
        for bit in outside {
            let mut f = v.clone();
            flip_bit(&mut f, bit);
            prop_assert!(icrc_verdict(&f).is_ok(), "bit {}", bit);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    /// Parsing never panics: on random bytes, on any frame kind from the generator, and on
    /// generated frames that are cut short or have a bit flipped.
    #[test]
    fn parse_never_panics(seed: u64, junk in proptest::collection::vec(any::<u8>(), 0..200), cut: usize, bit: usize) {
        let _ = RoceFrame::parse(&junk);
        let _ = icrc_verdict(&junk);
        let _ = coverage(&junk);
        let mut g = FrameGen::new(seed);
        let v = g.any();
        let _ = RoceFrame::parse(&v);
        let v = g.roce();
        let mut w = v[..cut % (v.len() + 1)].to_vec();
        let _ = RoceFrame::parse(&w);
        let _ = icrc_verdict(&w);
        if !w.is_empty() {
            let n = w.len() * 8;
            flip_bit(&mut w, bit % n);
            let _ = RoceFrame::parse(&w);
            let _ = icrc_verdict(&w);
            let _ = coverage(&w);
        }
    }
}

#[test]
fn ext_mismatch_is_an_error() {
    let mut f = FrameGen::new(1).roce_frame_with(Opcode::RC_WRITE_ONLY);
    f.ext.reth = None;
    assert_eq!(f.try_emit(), Err(Error::ExtMismatch("RETH")));
    f.ext.reth = Some(Default::default());
    f.ext.immdt = Some(Default::default());
    assert_eq!(f.try_emit(), Err(Error::ExtMismatch("ImmDt")));
}

#[test]
fn parse_errors_name_the_problem() {
    let f = FrameGen::new(2).roce_frame_with(Opcode::RC_SEND_ONLY);
    let v = f.emit();
    let l2 = f.eth.buffer_len();
    let icrc_at = l2 + f.ip_len() - 4;
    let mut bad = v.clone();
    bad[icrc_at] ^= 1;
    assert!(matches!(RoceFrame::parse(&bad), Err(Error::BadIcrc { .. })));
    assert!(RoceFrame::parse_with(&bad, false).is_ok());
    let (udp_at, bth_at) = match f.ip {
        IpRepr::V4(_) => (l2 + 20, l2 + 28),
        IpRepr::V6(_) => (l2 + 40, l2 + 48),
    };
    let mut bad = v.clone();
    bad[bth_at] = 0x15;
    assert_eq!(RoceFrame::parse_with(&bad, false), Err(Error::UnknownOpcode(0x15)));
    let mut bad = v.clone();
    bad[bth_at + 1] |= 0x01;
    assert_eq!(RoceFrame::parse_with(&bad, false), Err(Error::BadTver(1)));
    let mut bad = v.clone();
    bad[udp_at + 3] = 0xb8;
    assert_eq!(RoceFrame::parse(&bad), Err(Error::NotRoceV2Port(0x12b8)));
    assert_eq!(RoceFrame::parse(&v[..10]), Err(Error::Truncated));
    assert!(Error::UnknownOpcode(0x15).to_string().contains("0x15"));
    // Frames the generator makes non-RoCE on purpose.
    let mut g = FrameGen::new(4);
    for _ in 0..20 {
        let v = g.of_kind(ferroce_wire::gen::FrameKind::Ipv4Ihl6);
        assert_eq!(RoceFrame::parse(&v), Err(Error::BadIhl(6)));
        let v = g.of_kind(ferroce_wire::gen::FrameKind::ThreeVlans);
        assert_eq!(RoceFrame::parse(&v), Err(Error::TooManyVlans));
        let v = g.of_kind(ferroce_wire::gen::FrameKind::Arp);
        assert_eq!(RoceFrame::parse(&v), Err(Error::UnknownEthertype(0x0806)));
    }
    // A bad IPv4 header checksum (masked by the ICRC, but parse checks it).
    let f = loop {
        let f = g.roce_frame();
        if matches!(f.ip, IpRepr::V4(_)) {
            break f;
        }
    };
    let mut v = f.emit();
    let l2 = f.eth.buffer_len();
    v[l2 + 10] ^= 0xFF;
    assert!(icrc_verdict(&v).is_ok());
    assert!(matches!(RoceFrame::parse(&v), Err(Error::BadChecksum { .. })));
}
