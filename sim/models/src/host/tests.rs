//! Unit tests of the host path model: each rule, each near miss, the boundaries, VLAN tags,
//! the checksum examples, the unconfigured address, and the stream of [`HostPath`].
//!
//! The expected replies are rebuilt from ferroce-wire's representations (parse the request,
//! emit the reply's headers over a copy of it), not from the model's byte rewrite.

use super::craft::{random_crafted, HostCase, HostFrameGen};
use super::*;
use crate::wire::ethernet::{vlan_field, TPID_8021AD, TPID_8021Q};
use crate::wire::gen::FrameGen;
use proptest::prelude::*;
use rand::Rng;
use std::collections::BTreeMap;

const LOCAL: HostAddress = HostAddress::new([0x02, 0x00, 0x5e, 0x10, 0x20, 0x30], Ipv4Addr::new(10, 0, 0, 2));

/// Seeds per property.
const SEEDS: u64 = 40;

fn reply_of(frame: &[u8], address: &HostAddress) -> (ReplyKind, Vec<u8>) {
    match answer(frame, address) {
        HostVerdict::Reply { kind, frame } => (kind, frame),
        v => panic!("expected a reply, got {:?}", v.outcome()),
    }
}

/// The ARP reply built from representations; the padding is the request's.
fn expected_arp_reply(request: &[u8], local: &HostAddress) -> Vec<u8> {
    let eth = ethernet::Repr::parse(&ethernet::Packet::new_checked(request).unwrap()).unwrap();
    let l2 = eth.buffer_len();
    let asked = arp::Repr::parse(&arp::Packet::new_checked(&request[l2..]).unwrap()).unwrap();
    let mut reply = request.to_vec();
    let eth = ethernet::Repr {
        dst: asked.sender_mac,
        src: local.mac,
        ..eth
    };
    eth.emit(&mut ethernet::Packet::new_unchecked(&mut reply[..])).unwrap();
    let answer = arp::Repr {
        operation: arp::OPERATION_REPLY,
        sender_mac: local.mac,
        sender_ip: local.ipv4,
        target_mac: asked.sender_mac,
        target_ip: asked.sender_ip,
    };
    answer.emit(&mut arp::Packet::new_unchecked(&mut reply[l2..])).unwrap();
    reply
}

/// The echo reply built from representations (headers and ICMP checksum computed from
/// scratch); the padding and trailer are the request's. The request's checksums must verify.
fn expected_echo_reply(request: &[u8], local: &HostAddress) -> Vec<u8> {
    let eth = ethernet::Repr::parse(&ethernet::Packet::new_checked(request).unwrap()).unwrap();
    let l2 = eth.buffer_len();
    let ip = ipv4::Repr::parse(&ipv4::Packet::new_checked(&request[l2..]).unwrap()).unwrap();
    let (icmp_at, ip_end) = (l2 + ip.buffer_len(), l2 + ip.buffer_len() + ip.payload_len);
    let icmp::Repr::EchoRequest {
        identifier,
        sequence,
        data,
    } = icmp::Repr::parse(&icmp::Packet::new_checked(&request[icmp_at..ip_end]).unwrap()).unwrap()
    else {
        panic!("not an echo request");
    };
    let mut reply = request.to_vec();
    let eth = ethernet::Repr {
        dst: eth.src,
        src: local.mac,
        ..eth
    };
    eth.emit(&mut ethernet::Packet::new_unchecked(&mut reply[..])).unwrap();
    let ip = ipv4::Repr {
        src: ip.dst,
        dst: ip.src,
        ..ip
    };
    ip.emit(&mut ipv4::Packet::new_unchecked(&mut reply[l2..])).unwrap();
    let message = icmp::Repr::EchoReply {
        identifier,
        sequence,
        data,
    };
    message.emit(&mut icmp::Packet::new_unchecked(&mut reply[icmp_at..ip_end])).unwrap();
    reply
}

/// The ICMP message of an IPv4 frame with `tags` VLAN tags.
fn icmp_message(frame: &[u8], tags: usize) -> &[u8] {
    let l2 = ethernet::header_len(tags);
    let ip = ipv4::Packet::new_unchecked(&frame[l2..]);
    &frame[l2 + ip.header_len()..l2 + usize::from(ip.total_len())]
}

// ---------------------------------------------------------------------------------------------
// The rules.

#[test]
fn arp_request_for_the_local_ip_is_answered_in_place() {
    let mut g = HostFrameGen::new(1);
    for tags in 0..=2 {
        for _ in 0..SEEDS {
            let request = g.arp_request(tags, LOCAL.ipv4);
            let (kind, reply) = reply_of(&request, &LOCAL);
            assert_eq!(kind, ReplyKind::Arp);
            assert_eq!(reply, expected_arp_reply(&request, &LOCAL), "tags {tags}");
        }
    }
}

#[test]
fn captured_arp_request_gets_the_captured_reply() {
    // A published capture of a normal ARP exchange, request and reply (60 bytes each):
    // who-has 172.16.1.50 tell 172.16.1.101; 172.16.1.50 is-at 00:90:27:3c:66:e1.
    let request = [
        "ff ff ff ff ff ff 00 a0 c9 22 b2 10 08 06 00 01",
        "08 00 06 04 00 01 00 a0 c9 22 b2 10 ac 10 01 65",
        "00 00 00 00 00 00 ac 10 01 32 00 00 00 00 00 00",
        "00 00 00 00 00 00 00 00 00 00 00 00",
    ];
    let reply = [
        "00 a0 c9 22 b2 10 00 90 27 3c 66 e1 08 06 00 01",
        "08 00 06 04 00 02 00 90 27 3c 66 e1 ac 10 01 32",
        "00 a0 c9 22 b2 10 ac 10 01 65 00 00 00 00 00 00",
        "00 00 00 00 00 00 00 00 00 00 00 00",
    ];
    let hex = |lines: [&str; 4]| -> Vec<u8> {
        lines
            .join(" ")
            .split_whitespace()
            .map(|b| u8::from_str_radix(b, 16).unwrap())
            .collect()
    };
    let local = HostAddress::new([0x00, 0x90, 0x27, 0x3c, 0x66, 0xe1], Ipv4Addr::new(172, 16, 1, 50));
    assert_eq!(reply_of(&hex(request), &local), (ReplyKind::Arp, hex(reply)));
}

#[test]
fn echo_request_to_the_local_ip_is_answered_in_place() {
    let mut g = HostFrameGen::new(2);
    for tags in 0..=2 {
        for data_len in [0, 1, 2, 3, 17, 18, 56, 1000, 1472] {
            let request = g.echo_request(tags, LOCAL.ipv4, data_len);
            let (kind, reply) = reply_of(&request, &LOCAL);
            assert_eq!(kind, ReplyKind::Echo);
            assert_eq!(reply, expected_echo_reply(&request, &LOCAL), "tags {tags}, {data_len} bytes");
        }
    }
}

#[test]
fn echo_reply_keeps_ttl_identification_and_header_checksum() {
    let mut g = HostFrameGen::new(3);
    for tags in 0..=2 {
        let request = g.echo_request(tags, LOCAL.ipv4, 56);
        let (_, reply) = reply_of(&request, &LOCAL);
        let l2 = ethernet::header_len(tags);
        let (q, r) = (
            ipv4::Packet::new_unchecked(&request[l2..]),
            ipv4::Packet::new_unchecked(&reply[l2..]),
        );
        assert_eq!((r.ttl(), r.ident(), r.checksum()), (q.ttl(), q.ident(), q.checksum()));
        assert_eq!((r.src_addr(), r.dst_addr()), (q.dst_addr(), q.src_addr()));
        assert!(r.verify_checksum());
    }
}

/// `ping localhost` on Linux (`tcpdump -i lo -X`, a published capture):
/// the echo request datagram, id 21780, seq 1, 56 bytes of data.
fn linux_ping_datagram() -> Vec<u8> {
    let mut v = vec![
        0x45, 0x00, 0x00, 0x54, 0x92, 0x10, 0x40, 0x00, 0x40, 0x01, 0xaa, 0x96, 0x7f, 0x00, 0x00, 0x01, 0x7f, 0x00, 0x00, 0x01, // IP
        0x08, 0x00, 0x49, 0x2b, 0x55, 0x14, 0x00, 0x01, // ICMP
        0x2d, 0x08, 0xf4, 0x60, 0x00, 0x00, 0x00, 0x00, 0x6c, 0x83, 0x0d, 0x00, 0x00, 0x00, 0x00, 0x00, // timeval
    ];
    v.extend(0x10..=0x37u8);
    v
}

#[test]
fn linux_ping_gets_the_kernels_icmp_reply() {
    let local = HostAddress::new([0x02, 0, 0, 0, 0, 1], Ipv4Addr::LOCALHOST);
    let mut frame = vec![0x02, 0, 0, 0, 0, 1, 0x02, 0, 0, 0, 0, 2, 0x08, 0x00];
    frame.extend(linux_ping_datagram());
    let (_, reply) = reply_of(&frame, &local);
    // The kernel's reply in the same capture: type 0, checksum 0x512b, the rest unchanged.
    let mut kernel = linux_ping_datagram()[ipv4::HEADER_LEN..].to_vec();
    kernel[..4].copy_from_slice(&[0x00, 0x00, 0x51, 0x2b]);
    assert_eq!(icmp_message(&reply, 0), &kernel[..]);
    assert_eq!(
        &reply[..ethernet::HEADER_LEN],
        &[0x02, 0, 0, 0, 0, 2, 0x02, 0, 0, 0, 0, 1, 0x08, 0x00]
    );
}

#[test]
fn good_requests_get_replies_that_verify() {
    let mut g = HostFrameGen::new(4);
    for i in 0..300 {
        let tags = i % 3;
        let n = g.rng().gen_range(0..=1472);
        let request = g.echo_request(tags, LOCAL.ipv4, n);
        let (_, reply) = reply_of(&request, &LOCAL);
        assert!(
            icmp::Packet::new_checked(icmp_message(&reply, tags)).unwrap().verify_checksum(),
            "request {i}"
        );
    }
}

#[test]
fn bad_icmp_checksum_is_not_checked_and_stays_bad_in_the_reply() {
    let mut g = HostFrameGen::new(5);
    for _ in 0..SEEDS {
        let c = g.case(HostCase::EchoIcmpChecksum, &LOCAL);
        let request = icmp::Packet::new_checked(icmp_message(&c.frame, c.tags)).unwrap();
        assert!(!request.verify_checksum());
        let (_, reply) = reply_of(&c.frame, &LOCAL);
        let answered = icmp::Packet::new_checked(icmp_message(&reply, c.tags)).unwrap();
        assert!(!answered.verify_checksum());
        assert_eq!(answered.checksum(), icmp::update_checksum(request.checksum(), 0x0800, 0x0000));
    }
}

#[test]
fn all_zero_echo_gets_a_reply_that_verifies() {
    // Type 8 and every other word zero: the RFC 1624 update gives 0x0000, which does not
    // verify; the reply carries 0xFFFF (also zero in ones' complement), which does.
    let mut frame = HostFrameGen::new(6).echo_request(0, LOCAL.ipv4, 0);
    let at = ethernet::HEADER_LEN + ipv4::HEADER_LEN;
    let mut m = icmp::Packet::new_unchecked(&mut frame[at..at + icmp::ECHO_HEADER_LEN]);
    m.set_identifier(0);
    m.set_sequence(0);
    m.fill_checksum();
    assert_eq!(m.checksum(), 0xF7FF);
    let (_, reply) = reply_of(&frame, &LOCAL);
    let answered = icmp::Packet::new_unchecked(icmp_message(&reply, 0));
    assert_eq!(answered.checksum(), 0xFFFF);
    assert!(answered.verify_checksum());
}

// ---------------------------------------------------------------------------------------------
// One test per near miss: each breaks one condition of a rule (see `craft`).

/// Frames of `case` over every tag count get the case's outcome; answered ones get the reply
/// rebuilt from representations.
fn check_case(case: HostCase) {
    let mut g = HostFrameGen::new(case as u64 + 100);
    let mut tags_seen = [false; 4];
    for _ in 0..SEEDS {
        let c = g.case(case, &LOCAL);
        tags_seen[c.tags] = true;
        let verdict = answer(&c.frame, &LOCAL);
        assert_eq!(verdict.outcome(), c.expect, "{case:?}, {} tags, {} bytes", c.tags, c.frame.len());
        if let HostVerdict::Reply { kind, frame } = verdict {
            assert_eq!(frame.len(), c.frame.len());
            if case != HostCase::EchoIcmpChecksum {
                let expected = match kind {
                    ReplyKind::Arp => expected_arp_reply(&c.frame, &LOCAL),
                    ReplyKind::Echo => expected_echo_reply(&c.frame, &LOCAL),
                };
                assert_eq!(frame, expected, "{case:?}");
            }
        }
    }
    let expected_tags: &[usize] = match case {
        HostCase::ArpThreeTags | HostCase::EchoThreeTags => &[3],
        HostCase::Other => &[0],
        _ => &[0, 1, 2],
    };
    for &t in expected_tags {
        assert!(tags_seen[t], "{case:?}: no frame with {t} tags");
    }
}

macro_rules! near_miss {
    ($($name:ident: $case:ident,)*) => {$(
        #[test]
        fn $name() {
            check_case(HostCase::$case);
        }
    )*};
}

near_miss! {
    arp_request_with_another_ethertype_passes: ArpEthertype,
    arp_request_for_another_ip_passes: ArpOtherTarget,
    arp_reply_to_the_local_ip_passes: ArpReplyOperation,
    arp_with_another_operation_passes: ArpOtherOperation,
    arp_with_a_hardware_type_other_than_ethernet_passes: ArpHardwareType,
    arp_with_a_protocol_type_other_than_ipv4_passes: ArpProtocolType,
    arp_with_hardware_length_not_6_passes: ArpHardwareLen,
    arp_with_protocol_length_not_4_passes: ArpProtocolLen,
    arp_request_shorter_than_28_bytes_passes: ArpShort,
    arp_request_behind_three_vlan_tags_passes: ArpThreeTags,
    echo_request_with_another_ethertype_passes: EchoEthertype,
    echo_request_to_another_ip_passes: EchoOtherDestination,
    echo_request_with_ihl_6_passes: EchoIhl6,
    echo_request_with_another_ip_version_passes: EchoVersion,
    echo_request_with_more_fragments_passes: EchoMoreFragments,
    echo_request_with_a_fragment_offset_passes: EchoFragmentOffset,
    echo_request_with_the_reserved_flag_passes: EchoReservedFlag,
    echo_request_with_dont_fragment_is_answered: EchoDontFragment,
    echo_request_over_another_protocol_passes: EchoProtocol,
    echo_request_with_a_bad_ip_checksum_passes: EchoIpChecksum,
    echo_request_with_a_bad_icmp_checksum_is_answered: EchoIcmpChecksum,
    echo_request_with_total_length_below_28_passes: EchoShortDatagram,
    echo_reply_to_the_local_ip_passes: EchoReplyType,
    other_icmp_types_pass: EchoOtherType,
    echo_request_with_a_code_other_than_0_passes: EchoCode,
    frame_shorter_than_the_classified_head_passes: EchoShortHead,
    echo_request_behind_three_vlan_tags_passes: EchoThreeTags,
    echo_request_not_fitting_the_reply_buffer_passes: EchoOverCapacity,
    echo_request_filling_the_reply_buffer_is_answered: EchoFullBuffer,
    echo_request_with_a_trailer_is_answered_trailer_kept: EchoTrailer,
    echo_request_cut_inside_its_datagram_is_dropped_truncated: EchoTruncated,
    echo_request_with_a_trailer_beyond_2048_bytes_is_dropped_too_long: EchoTooLong,
    other_frames_pass: Other,
    plain_arp_requests_are_answered: ArpRequest,
    plain_echo_requests_are_answered: EchoRequest,
}

#[test]
fn every_case_has_a_test_and_random_mixes_hold_every_case() {
    // The macro above names 35 cases; HostCase::ALL must not outgrow it unnoticed.
    assert_eq!(HostCase::ALL.len(), 35);
    let mut seen = BTreeMap::new();
    for c in random_crafted(9, 3000, &LOCAL) {
        *seen.entry(c.case).or_insert(0) += 1;
        assert_eq!(answer(&c.frame, &LOCAL).outcome(), c.expect, "{:?}", c.case);
    }
    assert_eq!(seen.len(), HostCase::ALL.len());
}

/// A condition of a classification rule (module docs), for [`broken_conditions`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Condition {
    Ethertype,
    HeadLength,
    HardwareType,
    ProtocolType,
    HardwareLen,
    ProtocolLen,
    Operation,
    Target,
    VersionIhl,
    Fragment,
    ReservedFlag,
    Protocol,
    Destination,
    IpChecksum,
    MinDatagram,
    Capacity,
    IcmpType,
    IcmpCode,
}

/// The conditions of the ARP rule (`arp`) or the echo rule that `frame` breaks, read field by
/// field with the rules' literal values (not the contract's constants, so that a wrong constant
/// shows); after a wrong ethertype or a short head nothing else is read.
fn broken_conditions(frame: &[u8], arp: bool, local: Ipv4Addr) -> Vec<Condition> {
    use Condition::*;
    let eth = ethernet::Packet::new_unchecked(frame);
    let l2 = ethernet::header_len(eth.vlan_count());
    let ethertype = if arp { ETHERTYPE_ARP } else { ETHERTYPE_IPV4 };
    if frame.len() < l2 || eth.ethertype() != ethertype {
        return vec![Ethertype];
    }
    let head = if arp {
        arp::PACKET_LEN
    } else {
        ECHO_CLASSIFY_LEN - ethernet::HEADER_LEN
    };
    if frame.len() < l2 + head {
        return vec![HeadLength];
    }
    let checks: Vec<(bool, Condition)> = if arp {
        let p = arp::Packet::new_unchecked(&frame[l2..]);
        vec![
            (p.hardware_type() == 1, HardwareType),
            (p.protocol_type() == 0x0800, ProtocolType),
            (p.hardware_len() == 6, HardwareLen),
            (p.protocol_len() == 4, ProtocolLen),
            (p.operation() == 1, Operation),
            (p.target_ip() == local, Target),
        ]
    } else {
        let ip = ipv4::Packet::new_unchecked(&frame[l2..]);
        let m = icmp::Packet::new_unchecked(&frame[l2 + ipv4::HEADER_LEN..]);
        let total = usize::from(ip.total_len());
        vec![
            (ip.version() == 4 && ip.ihl() == 5, VersionIhl),
            (!ip.more_frags() && ip.frag_offset() == 0, Fragment),
            (!ip.reserved_flag(), ReservedFlag),
            (ip.protocol() == 1, Protocol),
            (ip.dst_addr() == local, Destination),
            (ipv4::checksum(&frame[l2..l2 + ipv4::HEADER_LEN]) == 0, IpChecksum),
            (total >= 28, MinDatagram),
            (l2 + total <= 2048, Capacity),
            (m.msg_type() == 8, IcmpType),
            (m.code() == 0, IcmpCode),
        ]
    };
    checks.into_iter().filter(|(ok, _)| !ok).map(|(_, c)| c).collect()
}

#[test]
fn each_near_miss_breaks_exactly_its_condition() {
    use Condition::*;
    let mut g = HostFrameGen::new(20);
    for case in HostCase::ALL {
        let expected: &[Condition] = match case {
            HostCase::Other => continue,
            HostCase::ArpEthertype | HostCase::ArpThreeTags | HostCase::EchoEthertype | HostCase::EchoThreeTags => &[Ethertype],
            HostCase::ArpShort | HostCase::EchoShortHead => &[HeadLength],
            HostCase::ArpOtherTarget => &[Target],
            HostCase::ArpReplyOperation | HostCase::ArpOtherOperation => &[Operation],
            HostCase::ArpHardwareType => &[HardwareType],
            HostCase::ArpProtocolType => &[ProtocolType],
            HostCase::ArpHardwareLen => &[HardwareLen],
            HostCase::ArpProtocolLen => &[ProtocolLen],
            HostCase::EchoOtherDestination => &[Destination],
            HostCase::EchoVersion | HostCase::EchoIhl6 => &[VersionIhl],
            HostCase::EchoMoreFragments | HostCase::EchoFragmentOffset => &[Fragment],
            HostCase::EchoReservedFlag => &[ReservedFlag],
            HostCase::EchoProtocol => &[Protocol],
            HostCase::EchoIpChecksum => &[IpChecksum],
            HostCase::EchoShortDatagram => &[MinDatagram],
            HostCase::EchoOverCapacity => &[Capacity],
            HostCase::EchoReplyType | HostCase::EchoOtherType => &[IcmpType],
            HostCase::EchoCode => &[IcmpCode],
            HostCase::ArpRequest
            | HostCase::EchoRequest
            | HostCase::EchoDontFragment
            | HostCase::EchoIcmpChecksum
            | HostCase::EchoFullBuffer
            | HostCase::EchoTrailer
            | HostCase::EchoTruncated
            | HostCase::EchoTooLong => &[],
        };
        for _ in 0..SEEDS {
            let c = g.case(case, &LOCAL);
            let mut broken = broken_conditions(&c.frame, case.is_arp(), LOCAL.ipv4);
            if case == HostCase::EchoIhl6 {
                // The options move the ICMP header and the 20-byte checksum: IHL comes first.
                broken.truncate(1);
            }
            assert_eq!(broken, expected, "{case:?}, {} tags", c.tags);
        }
    }
}

#[test]
fn mutated_gives_near_misses_and_other_frames_only() {
    let mut g = HostFrameGen::new(10);
    for _ in 0..500 {
        let c = g.mutated(&LOCAL);
        assert!(c.case.is_near_miss() || c.case == HostCase::Other, "{:?}", c.case);
        assert_eq!(answer(&c.frame, &LOCAL).outcome(), c.expect, "{:?}", c.case);
    }
}

// ---------------------------------------------------------------------------------------------
// Boundaries.

#[test]
fn arp_request_of_exactly_28_bytes_is_answered_and_27_passes() {
    let mut g = HostFrameGen::new(11);
    for tags in 0..=2 {
        let l2 = ethernet::header_len(tags);
        let mut request = g.arp_request(tags, LOCAL.ipv4);
        request.truncate(l2 + arp::PACKET_LEN);
        assert_eq!(answer(&request, &LOCAL).outcome(), HostOutcome::Reply(ReplyKind::Arp));
        request.pop();
        assert_eq!(answer(&request, &LOCAL), HostVerdict::Pass);
    }
}

#[test]
fn echo_frame_lengths_around_the_head_the_datagram_and_the_buffer() {
    let mut g = HostFrameGen::new(12);
    for tags in 0..=2 {
        let l2 = ethernet::header_len(tags);
        // No data: the datagram ends at l2 + 28, the classified head at l2 + 24.
        let mut request = g.echo_request(tags, LOCAL.ipv4, 0);
        request.truncate(l2 + ECHO_MIN_DATAGRAM);
        assert_eq!(answer(&request, &LOCAL).outcome(), HostOutcome::Reply(ReplyKind::Echo));
        request.truncate(l2 + ECHO_MIN_DATAGRAM - 1);
        assert_eq!(answer(&request, &LOCAL), HostVerdict::Drop(HostDrop::Truncated));
        request.truncate(l2 + ECHO_CLASSIFY_LEN - ethernet::HEADER_LEN);
        assert_eq!(answer(&request, &LOCAL), HostVerdict::Drop(HostDrop::Truncated));
        request.pop();
        assert_eq!(answer(&request, &LOCAL), HostVerdict::Pass);

        // The datagram filling the buffer, then one byte more.
        let fits = REPLY_CAPACITY - l2 - ECHO_MIN_DATAGRAM;
        let full = g.echo_request(tags, LOCAL.ipv4, fits);
        assert_eq!(full.len(), REPLY_CAPACITY);
        assert_eq!(answer(&full, &LOCAL).outcome(), HostOutcome::Reply(ReplyKind::Echo));
        let over = g.echo_request(tags, LOCAL.ipv4, fits + 1);
        assert_eq!(answer(&over, &LOCAL), HostVerdict::Pass);

        // A short datagram with a trailer up to 2048 bytes, then one byte more.
        let mut trailed = g.echo_request(tags, LOCAL.ipv4, 56);
        trailed.resize(REPLY_CAPACITY, 0xA5);
        assert_eq!(answer(&trailed, &LOCAL).outcome(), HostOutcome::Reply(ReplyKind::Echo));
        trailed.push(0xA5);
        assert_eq!(answer(&trailed, &LOCAL), HostVerdict::Drop(HostDrop::TooLong));
    }
}

#[test]
fn total_length_of_exactly_28_is_answered_and_27_passes() {
    let mut g = HostFrameGen::new(13);
    let mut request = g.echo_request(0, LOCAL.ipv4, 0);
    assert_eq!(answer(&request, &LOCAL).outcome(), HostOutcome::Reply(ReplyKind::Echo));
    let mut ip = ipv4::Packet::new_unchecked(&mut request[ethernet::HEADER_LEN..]);
    ip.set_total_len((ECHO_MIN_DATAGRAM - 1) as u16);
    ip.fill_checksum();
    assert_eq!(answer(&request, &LOCAL), HostVerdict::Pass);
}

// ---------------------------------------------------------------------------------------------
// VLAN tags and the local address.

#[test]
fn requests_behind_0_1_2_tags_of_either_tpid_are_answered_tags_kept() {
    let stacks: [&[u16]; 7] = [
        &[],
        &[TPID_8021Q],
        &[TPID_8021AD],
        &[TPID_8021Q, TPID_8021Q],
        &[TPID_8021AD, TPID_8021Q],
        &[TPID_8021Q, TPID_8021AD],
        &[TPID_8021AD, TPID_8021AD],
    ];
    let mut g = HostFrameGen::new(14);
    for stack in stacks {
        let tags = stack.len();
        for mut request in [g.arp_request(tags, LOCAL.ipv4), g.echo_request(tags, LOCAL.ipv4, 32)] {
            for (i, tpid) in stack.iter().enumerate() {
                let at = ethernet::header_len(i) - ethernet::HEADER_LEN + ethernet::field::ETHERTYPE.start + vlan_field::TPID.start;
                request[at..at + 2].copy_from_slice(&tpid.to_be_bytes());
            }
            let (_, reply) = reply_of(&request, &LOCAL);
            let l2 = ethernet::header_len(tags);
            assert_eq!(
                reply[ethernet::field::SOURCE.end..l2],
                request[ethernet::field::SOURCE.end..l2],
                "tags {stack:x?}"
            );
        }
    }
}

#[test]
fn unconfigured_local_ip_passes_everything() {
    let unconfigured = HostAddress::new(LOCAL.mac, Ipv4Addr::UNSPECIFIED);
    assert!(!unconfigured.is_configured());
    let mut g = HostFrameGen::new(15);
    for tags in 0..=2 {
        assert_eq!(
            answer(&g.arp_request(tags, Ipv4Addr::UNSPECIFIED), &unconfigured),
            HostVerdict::Pass
        );
        assert_eq!(
            answer(&g.echo_request(tags, Ipv4Addr::UNSPECIFIED, 8), &unconfigured),
            HostVerdict::Pass
        );
    }
    for c in random_crafted(16, 500, &LOCAL) {
        assert_eq!(answer(&c.frame, &unconfigured), HostVerdict::Pass, "{:?}", c.case);
    }
}

#[test]
fn requests_for_other_macs_are_answered_too() {
    // The rules do not read the Ethernet destination: a unicast ARP request (cache refresh) and
    // an echo request to any MAC are answered.
    let mut g = HostFrameGen::new(17);
    let mut request = g.arp_request(0, LOCAL.ipv4);
    ethernet::Packet::new_unchecked(&mut request[..]).set_dst_addr([0x0a; 6]);
    assert_eq!(answer(&request, &LOCAL).outcome(), HostOutcome::Reply(ReplyKind::Arp));
    let mut request = g.echo_request(0, LOCAL.ipv4, 8);
    ethernet::Packet::new_unchecked(&mut request[..]).set_dst_addr([0xff; 6]);
    assert_eq!(answer(&request, &LOCAL).outcome(), HostOutcome::Reply(ReplyKind::Echo));
}

// ---------------------------------------------------------------------------------------------
// The stream and the counters.

#[test]
fn host_path_collects_replies_and_passed_frames_in_order() {
    let crafted = random_crafted(18, 2000, &LOCAL);
    let frames: Vec<Vec<u8>> = crafted.iter().map(|c| c.frame.clone()).collect();
    let mut path = HostPath::new(LOCAL);
    let verdicts = path.run(&frames).unwrap();
    assert_eq!(path.frames(), frames.len());

    let mut expected = HostCounters::default();
    for (c, v) in crafted.iter().zip(&verdicts) {
        assert_eq!(v.outcome(), c.expect);
        expected.count(c.expect);
    }
    assert_eq!(path.counters, expected);
    assert!(expected.arp_replies > 0 && expected.echo_replies > 0 && expected.total_drops() > 0);

    let replied: Vec<usize> = (0..frames.len())
        .filter(|&i| matches!(crafted[i].expect, HostOutcome::Reply(_)))
        .collect();
    assert_eq!(path.replies.iter().map(|r| r.index).collect::<Vec<_>>(), replied);
    let passed: Vec<usize> = (0..frames.len()).filter(|&i| crafted[i].expect == HostOutcome::Pass).collect();
    assert_eq!(path.passed.iter().map(|p| p.index).collect::<Vec<_>>(), passed);
    for p in &path.passed {
        assert_eq!(p.frame, frames[p.index]);
    }
    for r in &path.replies {
        assert_eq!(r.frame.len(), frames[r.index].len());
    }
}

#[test]
fn counters_agree_with_hardware_up_to_deferrals() {
    let mut model = HostCounters::default();
    for o in [
        HostOutcome::Reply(ReplyKind::Arp),
        HostOutcome::Reply(ReplyKind::Echo),
        HostOutcome::Reply(ReplyKind::Echo),
        HostOutcome::Drop(HostDrop::TooLong),
        HostOutcome::Pass,
    ] {
        model.count(o);
    }
    assert_eq!(
        model.json(),
        r#"{"arp_replies":1,"echo_replies":2,"deferred":0,"dropped":{"truncated":0,"too_long":1}}"#
    );
    assert!(model.consistent_with(&model));
    let mut deferred_echo = model.clone();
    deferred_echo.echo_replies -= 1;
    deferred_echo.deferred = 1;
    assert!(model.consistent_with(&deferred_echo));
    let mut deferred_drop = model.clone();
    deferred_drop.dropped[1] = 0;
    deferred_drop.deferred = 1;
    assert!(model.consistent_with(&deferred_drop));
    let mut unexplained = model.clone();
    unexplained.deferred = 1;
    assert!(!model.consistent_with(&unexplained));
    let mut extra = model.clone();
    extra.arp_replies += 1;
    assert!(!model.consistent_with(&extra));
}

// ---------------------------------------------------------------------------------------------
// Any input.

#[test]
fn frames_from_the_wire_generator_pass_unless_they_are_requests() {
    let mut g = FrameGen::new(19);
    for _ in 0..3000 {
        let f = g.any();
        let v = answer(&f, &LOCAL);
        let ip = LOCAL.ipv4.octets();
        if !f.windows(ip.len()).any(|w| w == ip) {
            assert_eq!(v, HostVerdict::Pass);
        }
    }
}

proptest! {
    #[test]
    fn any_bytes_get_a_verdict_and_replies_keep_the_length(frame in proptest::collection::vec(any::<u8>(), 0..200)) {
        if let HostVerdict::Reply { frame: reply, .. } = answer(&frame, &LOCAL) {
            prop_assert_eq!(reply.len(), frame.len());
        }
    }

    #[test]
    fn one_flipped_byte_in_a_request_never_panics(seed in any::<u64>(), at in any::<usize>(), x in 1..=255u8, arp in any::<bool>()) {
        let mut g = HostFrameGen::new(seed);
        let tags = (seed % 3) as usize;
        let mut frame = if arp { g.arp_request(tags, LOCAL.ipv4) } else { g.echo_request(tags, LOCAL.ipv4, (seed % 100) as usize) };
        let at = at % frame.len();
        frame[at] ^= x;
        if let HostVerdict::Reply { frame: reply, .. } = answer(&frame, &LOCAL) {
            prop_assert_eq!(reply.len(), frame.len());
        }
    }
}
