//! Unit tests of the RX parser model against the crafted frames, ferroce-wire's own parser,
//! the scapy vectors and random input.

use super::craft::{crafted, issue_example, random_frames, random_labeled, supported_opcodes, Built, Label};
use super::*;
use crate::wire::gen::FrameGen;
use crate::wire::opcode::{Opcode, Transport};
use crate::wire::packet::{IpRepr, RoceFrame};
use proptest::prelude::*;
use std::collections::BTreeSet;

use super::craft::ISSUE_EXAMPLE_JSON as EXAMPLE;

/// The record of an accepted frame carries the fields of the representation it came from.
fn check_fields(what: &str, rec: &RxRecord, f: &RoceFrame) {
    assert_eq!(rec.eth_dst, f.eth.dst, "{what}");
    assert_eq!(rec.eth_src, f.eth.src, "{what}");
    assert_eq!(rec.vlan, f.eth.vlans.first().map(|v| v.vid), "{what}");
    match &f.ip {
        IpRepr::V4(ip) => {
            assert_eq!(rec.ip_version, 4, "{what}");
            assert_eq!(rec.ip_src, IpAddr::V4(ip.src), "{what}");
            assert_eq!(rec.ip_dst, IpAddr::V4(ip.dst), "{what}");
            assert_eq!((rec.ip_dscp, rec.ip_ecn, rec.ip_ttl), (ip.tos >> 2, ip.tos & 3, ip.ttl), "{what}");
        }
        IpRepr::V6(ip) => {
            assert_eq!(rec.ip_version, 6, "{what}");
            assert_eq!(rec.ip_src, IpAddr::V6(ip.src), "{what}");
            assert_eq!(rec.ip_dst, IpAddr::V6(ip.dst), "{what}");
            let tc = ip.traffic_class;
            assert_eq!((rec.ip_dscp, rec.ip_ecn, rec.ip_ttl), (tc >> 2, tc & 3, ip.hop_limit), "{what}");
        }
    }
    assert_eq!((rec.udp_sport, rec.udp_dport), (f.udp_src_port, 4791), "{what}");
    let b = rec.bth.unwrap_or_else(|| panic!("{what}: no BTH"));
    let t = &f.bth;
    assert_eq!(
        b,
        RxBth {
            opcode: t.opcode.value(),
            se: t.solicited,
            m: t.migreq,
            padcnt: t.pad_cnt,
            tver: 0,
            pkey: t.p_key,
            fecn: t.fecn,
            becn: t.becn,
            dqpn: t.dest_qp,
            ackreq: t.ack_req,
            psn: t.psn,
        },
        "{what}"
    );
    let e = &f.ext;
    assert_eq!(rec.deth, e.deth, "{what}");
    assert_eq!(rec.reth, e.reth, "{what}");
    assert_eq!(rec.atomic_eth, e.atomic_eth, "{what}");
    assert_eq!(rec.aeth, e.aeth, "{what}");
    assert_eq!(rec.atomic_ack_eth, e.atomic_ack_eth, "{what}");
    assert_eq!(rec.immdt, e.immdt, "{what}");
    assert_eq!(rec.ieth, e.ieth, "{what}");
    assert_eq!(rec.payload_len, f.payload.len(), "{what}");
}

#[test]
fn crafted_frames_get_their_expected_outcome() {
    for c in crafted() {
        let r = rx_model(&c.frame);
        let n = &c.name;
        assert_eq!(r.verdict, c.expect.verdict, "{n}");
        match &r.record {
            None => {
                assert_eq!(r.verdict, RxVerdict::Pass, "{n}");
                assert!(r.payload.is_empty(), "{n}");
                assert!(c.expect.payload.is_none(), "{n}");
            }
            Some(rec) => {
                assert_eq!(rec.icrc_ok, c.expect.icrc_ok, "{n}: icrc_ok");
                let want = c.expect.payload.as_ref().unwrap();
                assert!(r.payload == *want, "{n}: delivered {} bytes, want {}", r.payload.len(), want.len());
                assert_eq!(rec.payload_len, r.payload.len(), "{n}");
                assert_eq!(rec.payload_crc32, crc::Crc::<u32>::new(&crc::CRC_32_ISO_HDLC).checksum(want), "{n}");
            }
        }
        if let Some(f) = &c.expect.repr {
            check_fields(n, r.record.as_ref().unwrap(), f);
        }
    }
}

#[test]
fn crafted_frames_cover_the_issue() {
    let all = crafted();
    let names: BTreeSet<&str> = all.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names.len(), all.len(), "duplicate names");
    // Accept: every supported opcode × IPv4/IPv6 × 0/1/2 VLAN tags.
    let mut combos = BTreeSet::new();
    for c in all.iter().filter(|c| c.expect.verdict == RxVerdict::Accept) {
        let f = c.expect.repr.as_ref().unwrap();
        combos.insert((f.bth.opcode, matches!(f.ip, IpRepr::V6(_)), f.eth.vlans.len()));
    }
    for op in supported_opcodes() {
        for v6 in [false, true] {
            for nv in 0..=2 {
                assert!(combos.contains(&(op, v6, nv)), "{op} v6={v6} vlans={nv}");
            }
        }
    }
    assert_eq!(supported_opcodes().len(), 38, "23 RC + 12 UC + 2 UD + CNP");
    // Every drop reason, named after it; minimum frames with MAC padding; pass-through kinds.
    for r in DropReason::ALL {
        let n = all.iter().filter(|c| c.name.starts_with(&format!("drop/{}/", r.name()))).count();
        assert!(n >= 2, "{}: {n} frames", r.name());
        for c in all.iter().filter(|c| c.name.starts_with(&format!("drop/{}/", r.name()))) {
            assert_eq!(c.expect.verdict, RxVerdict::Drop(r), "{}", c.name);
        }
    }
    let min = all.iter().filter(|c| c.name.starts_with("accept/min-frame/")).count();
    assert!(min >= 2);
    for c in all.iter().filter(|c| c.name.starts_with("accept/min-frame/")) {
        assert_eq!(c.frame.len(), 60);
    }
    for p in [
        "arp",
        "udp-4790-ipv4",
        "ipv6-icmpv6",
        "ethertype-lldp-88cc",
        "runt-13-bytes",
        "empty-frame",
        "three-vlan-tags",
    ] {
        assert!(names.contains(format!("pass/{p}").as_str()), "{p}");
    }
    assert!(all.iter().filter(|c| c.name.starts_with("precedence/")).count() >= 10);
}

#[test]
fn issue_example_line_is_exact() {
    let f = issue_example().emit();
    assert_eq!(rx_model(&f).json(0), EXAMPLE);
    let v: serde_json::Value = serde_json::from_str(EXAMPLE).unwrap();
    assert_eq!(v.as_object().unwrap().len(), JSON_KEYS.len());
}

#[test]
fn json_nulls_for_pass_and_short_frames() {
    let pass = rx_model(&[0u8; 60]).json(7);
    let mut want = String::from(r#"{"frame":7,"verdict":"pass","reason":null"#);
    for k in &JSON_KEYS[3..] {
        want += &format!(",\"{k}\":null");
    }
    want.push('}');
    assert_eq!(pass, want);
    // A frame cut inside the BTH: IP and UDP fields, BTH and extension headers null, nothing
    // delivered.
    let c = crafted().into_iter().find(|c| c.name == "drop/truncated/in-bth").unwrap();
    let j: serde_json::Value = serde_json::from_str(&rx_model(&c.frame).json(1)).unwrap();
    assert_eq!(j["verdict"], "drop");
    assert_eq!(j["reason"], "truncated");
    assert!(j["icrc_ok"].is_null());
    assert_eq!(j["udp_dport"], 4791);
    assert!(j["ip_src"].is_string());
    for k in JSON_KEYS.iter().filter(|k| k.starts_with("bth_")) {
        assert!(j[k].is_null(), "{k}");
    }
    assert!(j["reth"].is_null() && j["aeth"].is_null());
    assert_eq!(j["payload_len"], 0);
    assert_eq!(j["payload_crc32"], "00000000");
    // AETH and ImmDt print as objects / numbers.
    let mut g = FrameGen::new(3);
    let mut f = g.roce_frame_with(Opcode::RC_ACK);
    f.ext.aeth = Some(aeth::Repr {
        syndrome: 0x61,
        msn: 0xABCDEF,
    });
    let j: serde_json::Value = serde_json::from_str(&rx_model(&f.emit()).json(0)).unwrap();
    assert_eq!(j["aeth"], serde_json::json!({"syndrome": 0x61, "msn": 0xABCDEF}));
    let mut f = g.roce_frame_with(Opcode::UC_SEND_ONLY_IMM);
    f.ext.immdt = Some(immdt::Repr { imm: 0xDEADBEEF });
    let j: serde_json::Value = serde_json::from_str(&rx_model(&f.emit()).json(0)).unwrap();
    assert_eq!(j["immdt"], 0xDEADBEEFu32);
}

#[test]
fn drop_reason_names() {
    let names: Vec<&str> = DropReason::ALL.iter().map(|r| r.name()).collect();
    assert_eq!(
        names,
        [
            "ip_header",
            "truncated",
            "ip_length",
            "ip_checksum",
            "ip_fragment",
            "udp_length",
            "tver",
            "opcode",
            "padcnt",
            "icrc"
        ]
    );
    for (i, r) in DropReason::ALL.iter().enumerate() {
        assert_eq!(r.index(), i);
        assert_eq!(DropReason::from_name(r.name()), Some(*r));
    }
    assert_eq!(DropReason::from_name("bogus"), None);
}

#[test]
fn fixed_mask_icrc_equals_wire_icrc() {
    let mut g = FrameGen::new(0x1C2C);
    for _ in 0..500 {
        let f = g.roce_frame();
        let b = f.emit();
        let l2 = f.eth.buffer_len();
        let ip = &b[l2..l2 + f.ip_len() - 4];
        assert_eq!(icrc_fixed(ip, matches!(f.ip, IpRepr::V6(_))), crate::wire::icrc(ip));
    }
}

/// ferroce-wire's own parser (separate code, verifying everything itself) agrees on random
/// valid frames of every opcode: RD is dropped as `opcode`, everything else accepted with the
/// same fields and payload.
#[test]
fn agrees_with_wire_parser_on_random_valid_frames() {
    let mut g = FrameGen::new(0x2C);
    let mut rd = 0;
    for i in 0..3000 {
        let bytes = g.roce();
        let parsed = RoceFrame::parse(&bytes).unwrap();
        let r = rx_model(&bytes);
        if parsed.bth.opcode.transport() == Transport::Rd {
            rd += 1;
            assert_eq!(r.verdict, RxVerdict::Drop(DropReason::Opcode), "frame {i}");
            assert!(r.payload.is_empty());
            continue;
        }
        assert_eq!(r.verdict, RxVerdict::Accept, "frame {i}");
        check_fields(&format!("frame {i}"), r.record.as_ref().unwrap(), &parsed);
        assert_eq!(r.payload, parsed.payload, "frame {i}");
    }
    assert!(rd > 50);
}

#[test]
fn scapy_vectors_are_accepted() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../wire/vectors/scapy_roce.pcap");
    let frames = crate::wire::pcap::read_pcap(path, false).unwrap();
    assert!(frames.len() >= 40);
    for (i, f) in frames.iter().enumerate() {
        let parsed = RoceFrame::parse(f).unwrap();
        let r = rx_model(f);
        assert_eq!(r.verdict, RxVerdict::Accept, "frame {i}");
        check_fields(&format!("scapy frame {i}"), r.record.as_ref().unwrap(), &parsed);
        assert_eq!(r.payload, parsed.payload, "frame {i}");
    }
}

#[test]
fn random_mix_is_labelled_right_and_covers_every_reason() {
    let mix = random_labeled(0x5EED, 4000);
    let mut per_reason = [0usize; 10];
    let (mut good, mut pass, mut sizes) = (0, 0, (usize::MAX, 0));
    for (i, (label, f)) in mix.iter().enumerate() {
        let r = rx_model(f);
        match label {
            Label::Good(repr) => {
                good += 1;
                assert_eq!(r.verdict, RxVerdict::Accept, "frame {i}");
                check_fields(&format!("frame {i}"), r.record.as_ref().unwrap(), repr);
                assert_eq!(r.payload, repr.payload, "frame {i}");
                assert!((60..=9000).contains(&f.len()), "frame {i}: {} bytes", f.len());
                sizes = (sizes.0.min(f.len()), sizes.1.max(f.len()));
            }
            Label::Malformed(reason) => {
                per_reason[reason.index()] += 1;
                assert_eq!(r.verdict, RxVerdict::Drop(*reason), "frame {i}");
            }
            Label::Pass => {
                pass += 1;
                assert_eq!(r.verdict, RxVerdict::Pass, "frame {i}");
            }
            Label::Other => {}
        }
    }
    assert!(good > 1800 && pass > 200, "{good} good, {pass} pass");
    assert!(per_reason.iter().all(|&n| n > 80), "{per_reason:?}");
    assert_eq!(sizes.0, 60);
    assert!(sizes.1 > 8500, "largest good frame {}", sizes.1);
    let c = RxCounters::of(&mix.iter().map(|(_, f)| rx_model(f)).collect::<Vec<_>>());
    assert!(DropReason::ALL.iter().all(|r| c.drops(*r) > 0));
    assert_eq!(
        random_frames(0x5EED, 300),
        mix[..300].iter().map(|(_, f)| f.clone()).collect::<Vec<_>>()
    );
    assert_ne!(random_frames(1, 50), random_frames(2, 50));
}

/// Every prefix of a valid frame: never a panic, never accepted before the IP packet ends,
/// accepted from there on (MAC padding is optional), and the delivered bytes are a prefix of
/// the payload.
#[test]
fn every_prefix_of_valid_frames() {
    let cases: Vec<_> = crafted()
        .into_iter()
        .filter(|c| c.expect.verdict == RxVerdict::Accept && c.frame.len() < 1200)
        .step_by(5)
        .collect();
    assert!(cases.len() > 20);
    for c in cases {
        let f = c.expect.repr.as_ref().unwrap();
        let ip_end = f.eth.buffer_len() + f.ip_len();
        for n in 0..=c.frame.len() {
            let r = rx_model(&c.frame[..n]);
            if n >= ip_end {
                assert_eq!(r.verdict, RxVerdict::Accept, "{} cut at {n}", c.name);
            } else {
                assert_ne!(r.verdict, RxVerdict::Accept, "{} cut at {n}", c.name);
            }
            assert!(f.payload.starts_with(&r.payload), "{} cut at {n}", c.name);
            if let Some(rec) = r.record {
                assert_eq!(rec.payload_len, r.payload.len());
            }
        }
    }
}

#[test]
fn counters_add_up() {
    let results: Vec<RxResult> = crafted().iter().map(|c| rx_model(&c.frame)).collect();
    let c = RxCounters::of(&results);
    assert_eq!(c.frames_in as usize, results.len());
    assert_eq!(c.accepted + c.passed + c.total_drops(), c.frames_in);
    assert_eq!(
        c.accepted as usize,
        results.iter().filter(|r| r.verdict == RxVerdict::Accept).count()
    );
    let mut k = RxCounters::default();
    k.count(RxVerdict::Accept);
    k.count(RxVerdict::Pass);
    k.count(RxVerdict::Drop(DropReason::Icrc));
    k.count(RxVerdict::Drop(DropReason::Icrc));
    k.count(RxVerdict::Drop(DropReason::IpHeader));
    assert_eq!(
        k.json(),
        concat!(
            r#"{"frames_in":5,"accepted":1,"passed":1,"dropped":{"ip_header":1,"truncated":0,"ip_length":0,"#,
            r#""ip_checksum":0,"ip_fragment":0,"udp_length":0,"tver":0,"opcode":0,"padcnt":0,"icrc":2}}"#
        )
    );
}

#[test]
fn built_fix_recomputes_checksum_and_icrc() {
    let rng = &mut rand_chacha::ChaCha8Rng::seed_from_u64(9);
    use rand::SeedableRng;
    let mut b = Built::new(super::craft::roce_repr(rng, Opcode::RC_SEND_ONLY, false, 1, 10));
    let orig = b.bytes.clone();
    b.bytes[b.l2 + 10] ^= 0xFF;
    let at = b.ip_end() - 1;
    b.bytes[at] ^= 0xFF;
    b.fix();
    assert_eq!(b.bytes, orig);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    /// Arbitrary bytes: never a panic; a pass has no record and no payload.
    #[test]
    fn arbitrary_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..200)) {
        let r = rx_model(&bytes);
        prop_assert_eq!(r.record.is_none(), r.verdict == RxVerdict::Pass);
        if r.verdict == RxVerdict::Pass { prop_assert!(r.payload.is_empty()); }
    }

    /// A valid frame with a few bytes overwritten: never a panic, accepted only with a good
    /// ICRC, and the delivered bytes are never more than the frame after the headers.
    #[test]
    fn corrupted_valid_frames(seed in any::<u64>(), edits in proptest::collection::vec((any::<u16>(), any::<u8>()), 1..4)) {
        let mut f = FrameGen::new(seed).roce();
        for (at, v) in edits {
            let at = usize::from(at) % f.len();
            f[at] = v;
        }
        let r = rx_model(&f);
        if let Some(rec) = &r.record {
            prop_assert_eq!(rec.payload_len, r.payload.len());
            prop_assert!(r.payload.len() < f.len());
            if r.verdict == RxVerdict::Accept { prop_assert_eq!(rec.icrc_ok, Some(true)); }
        }
    }
}
