//! Known-answer vectors (a real NIC's CNP and scapy's UC SEND-only frame), the literal verdict rules, and the
//! opcode table.

mod common;
use common::*;
use ferroce_wire::icrc::{coverage, icrc, icrc_verdict, IcrcVerdict, PREFIX_STATE};
use ferroce_wire::opcode::{Operation, Transport};
use ferroce_wire::{IpRepr, Opcode, RoceFrame};

fn check_vector(hexstr: &str, icrc_wire: [u8; 4]) -> RoceFrame {
    let f = unhex(hexstr);
    let want = u32::from_le_bytes(icrc_wire);
    match icrc_verdict(&f) {
        IcrcVerdict::Roce { computed, wire, ok } => {
            assert_eq!(wire, Some(want));
            assert_eq!(computed, Some(want), "computed ICRC differs from the wire bytes");
            assert!(ok);
        }
        v => panic!("not RoCE: {v:?}"),
    }
    let r = RoceFrame::parse(&f).expect("parse");
    assert_eq!(r.emit(), f, "re-emit is not byte-identical");
    // ICRC over the IP packet, directly.
    let l2 = r.eth.buffer_len();
    let e = l2 + r.ip_len();
    assert_eq!(icrc(&f[l2..e - 4]).to_le_bytes(), icrc_wire);
    r
}

#[test]
fn connectx4_cnp() {
    let r = check_vector(CX4_CNP, [0x82, 0xfd, 0x00, 0x2a]);
    assert_eq!(r.bth.opcode, Opcode::CNP);
    assert!(r.bth.becn && !r.bth.fecn);
    assert_eq!(r.bth.dest_qp, 0x118);
    assert_eq!(r.bth.p_key, 0xffff);
    assert_eq!(r.ext.cnp_reserved, Some([0; 16]));
    assert!(r.payload.is_empty());
    assert!(r.eth.vlans.is_empty());
    match r.ip {
        IpRepr::V4(ip) => {
            assert_eq!(ip.tos, 0xc2);
            assert_eq!(ip.ttl, 0x40);
            assert!(ip.dont_frag);
            assert_eq!(ip.src.octets(), [10, 0, 17, 1]);
        }
        _ => panic!("not IPv4"),
    }
    assert_eq!(r.udp_src_port, 0);
    assert_eq!(r.udp_checksum, 0);
}

#[test]
fn scapy_uc_send_only() {
    let r = check_vector(SCAPY_UC_SEND, [0x78, 0xf3, 0x53, 0xf3]);
    assert_eq!(r.bth.opcode, Opcode::UC_SEND_ONLY);
    assert_eq!(r.bth.pad_cnt, 2);
    assert!(r.bth.migreq);
    assert_eq!(r.payload.len(), 18);
    assert_eq!(r.pad, None);
    assert_eq!(r.bth.dest_qp, 0xd3);
    assert_eq!(r.bth.psn, 0xcf1710);
}

#[test]
fn prefix_state_is_deadbeef_like_constant() {
    // Bitwise reflected CRC-32 register after FF×8 from 0xFFFFFFFF.
    let mut s: u32 = 0xFFFF_FFFF;
    for _ in 0..8 {
        s ^= 0xFF;
        for _ in 0..8 {
            s = if s & 1 != 0 { (s >> 1) ^ 0xEDB8_8320 } else { s >> 1 };
        }
    }
    assert_eq!(s, PREFIX_STATE);
}

#[test]
fn residue_is_constant() {
    // CRC over (masked input ‖ ICRC) is the same for every packet.
    let mut g = ferroce_wire::gen::FrameGen::new(7);
    let mut residues = std::collections::HashSet::new();
    for _ in 0..20 {
        let f = g.roce();
        let c = coverage(&f).unwrap();
        let mut input = ferroce_wire::icrc::masked_input(&f[c.ip_start..c.icrc_at]);
        input.extend_from_slice(&f[c.icrc_at..c.ip_end()]);
        residues.insert(crc::Crc::<u32>::new(&crc::CRC_32_ISO_HDLC).checksum(&input));
    }
    assert_eq!(residues.len(), 1);
}

fn cx4() -> Vec<u8> {
    unhex(CX4_CNP)
}

#[test]
fn verdict_rules_literal() {
    use IcrcVerdict::*;
    let good = cx4();
    assert!(icrc_verdict(&good).is_ok());
    // Too short for an ethertype; every prefix shorter than the IP end is not ok.
    for n in 0..good.len() {
        assert!(!icrc_verdict(&good[..n]).is_ok(), "prefix {n}");
    }
    assert_eq!(icrc_verdict(&good[..13]), NotRoce);
    assert_eq!(icrc_verdict(&good[..14 + 23]), NotRoce);
    assert_eq!(
        icrc_verdict(&good[..14 + 24]),
        Roce {
            computed: None,
            wire: None,
            ok: false
        }
    );
    // MAC padding after e is ignored.
    let mut padded = good.clone();
    padded.extend_from_slice(&[0xAB; 30]);
    assert!(icrc_verdict(&padded).is_ok());
    // iplen < minlen (44) -> Roce with no ICRC.
    let mut short = good.clone();
    short[14 + 3] = 43;
    assert_eq!(
        icrc_verdict(&short),
        Roce {
            computed: None,
            wire: None,
            ok: false
        }
    );
    // IHL 6, protocol TCP, other port -> NotRoce.
    for (at, v) in [(14, 0x46u8), (14 + 9, 6), (14 + 23, 0xb8)] {
        let mut f = good.clone();
        f[at] = v;
        assert_eq!(icrc_verdict(&f), NotRoce, "byte {at} = {v:#x}");
    }
    // Unknown ethertype.
    let mut f = good.clone();
    f[12] = 0x08;
    f[13] = 0x06;
    assert_eq!(icrc_verdict(&f), NotRoce);
    // One, two, three VLAN tags.
    let tag = |tpid: u16| -> [u8; 4] {
        let t = tpid.to_be_bytes();
        [t[0], t[1], 0x20, 0x05]
    };
    let mut one = good.clone();
    one.splice(12..12, tag(0x8100));
    assert!(icrc_verdict(&one).is_ok());
    let mut two = one.clone();
    two.splice(12..12, tag(0x88A8));
    assert!(icrc_verdict(&two).is_ok());
    let mut three = two.clone();
    three.splice(12..12, tag(0x8100));
    assert_eq!(icrc_verdict(&three), NotRoce);
    // A 3rd TPID with nothing after it.
    assert_eq!(icrc_verdict(&three[..21]), NotRoce);
    // Corrupt ICRC.
    let mut bad = good.clone();
    let n = bad.len();
    bad[n - 1] ^= 1;
    match icrc_verdict(&bad) {
        Roce {
            computed: Some(c),
            wire: Some(w),
            ok: false,
        } => assert_ne!(c, w),
        v => panic!("{v:?}"),
    }
}

#[test]
fn verdict_ipv6_minlen() {
    let mut g = ferroce_wire::gen::FrameGen::new(3);
    let mut f = loop {
        let r = g.roce_frame_with(Opcode::RC_SEND_ONLY);
        if matches!(r.ip, IpRepr::V6(_)) && r.eth.vlans.is_empty() {
            break r;
        }
    };
    f.payload.clear();
    f.normalize();
    let v = f.emit();
    assert_eq!(v.len(), 14 + 64);
    assert!(icrc_verdict(&v).is_ok());
    let mut s = v.clone();
    s[14 + 5] -= 1; // payload length 23 -> iplen 63 < 64
    assert_eq!(
        icrc_verdict(&s),
        IcrcVerdict::Roce {
            computed: None,
            wire: None,
            ok: false
        }
    );
    let mut s = v.clone();
    s[14] = 0x40 | (s[14] & 0x0F);
    assert_eq!(icrc_verdict(&s), IcrcVerdict::NotRoce);
    assert_eq!(icrc_verdict(&v[..14 + 43]), IcrcVerdict::NotRoce);
}

#[test]
fn opcode_table() {
    let all = Opcode::all();
    assert_eq!(all.len(), 59);
    let valid: Vec<u8> = (0..=255u8).filter(|&v| Opcode::is_valid(v)).collect();
    assert_eq!(valid, all.iter().map(|o| o.value()).collect::<Vec<_>>());
    for v in [0x15u8, 0x18, 0x1F, 0x2C, 0x2D, 0x35, 0x55, 0x60, 0x63, 0x66, 0x80, 0x82, 0xA0, 0xFF] {
        assert_eq!(Opcode::new(v), Err(ferroce_wire::opcode::ReservedOpcode(v)));
    }
    let count = |t| all.iter().filter(|o| o.transport() == t).count();
    assert_eq!(count(Transport::Rc), 23);
    assert_eq!(count(Transport::Uc), 12);
    assert_eq!(count(Transport::Rd), 21);
    assert_eq!(count(Transport::Ud), 2);
    assert_eq!(count(Transport::Cnp), 1);
    let len = |v: u8| Opcode::new(v).unwrap().ext_len();
    // The RoCEv2 opcode table (IBTA).
    for (v, n) in [
        (0x00, 0),
        (0x01, 0),
        (0x02, 0),
        (0x03, 4),
        (0x04, 0),
        (0x05, 4),
        (0x06, 16),
        (0x07, 0),
        (0x08, 0),
        (0x09, 4),
        (0x0A, 16),
        (0x0B, 20),
        (0x0C, 16),
        (0x0D, 4),
        (0x0E, 0),
        (0x0F, 4),
        (0x10, 4),
        (0x11, 4),
        (0x12, 12),
        (0x13, 28),
        (0x14, 28),
        (0x16, 4),
        (0x17, 4),
        (0x24, 0),
        (0x25, 4),
        (0x26, 16),
        (0x2B, 20),
        (0x64, 8),
        (0x65, 12),
        (0x81, 16),
        // RD: RDETH on all, DETH on requests.
        (0x40, 12),
        (0x46, 28),
        (0x4B, 32),
        (0x4C, 28),
        (0x4D, 8),
        (0x4E, 4),
        (0x51, 8),
        (0x52, 16),
        (0x53, 40),
    ] {
        assert_eq!(len(v), n, "opcode {v:#04x}");
    }
    assert!(Opcode::from_parts(Transport::Uc, Operation::ReadRequest).is_err());
    assert_eq!(
        Opcode::from_parts(Transport::Ud, Operation::SendOnlyImm),
        Ok(Opcode::UD_SEND_ONLY_IMM)
    );
    assert_eq!(Opcode::from_parts(Transport::Cnp, Operation::Cnp), Ok(Opcode::CNP));
    for o in all {
        assert_eq!(Opcode::from_parts(o.transport(), o.operation()), Ok(*o));
    }
    assert_eq!(Opcode::RC_WRITE_ONLY_IMM.to_string(), "RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE (0x0b)");
}
