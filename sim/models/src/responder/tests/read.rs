//! Unit tests of RDMA READ on the responder (`docs/engine.md`, "RDMA READ (responder)"). The
//! READ requests are the TX model's zero-length WRITE only packets with the opcode and RETH
//! changed (the TX model sends no READ); their frames go through the RX front end model.

use super::*;

/// A READ request at `psn` for `[va, va + length)`, with the requester's R_Key.
fn read_request(link: &Link, psn: u32, va: u64, length: u32) -> TxPacket {
    let mut packet = link.packets(vec![post(0, PostOp::Write, 0)])[0];
    packet.bth.opcode = Opcode::RC_READ_REQUEST;
    packet.bth.psn = psn;
    packet.reth = packet.reth.map(|r| RethRepr { va, dma_len: length, ..r });
    packet
}

/// A WRITE only packet of `length` bytes at `psn`, without AckReq unless `ack_req`.
fn write_at(link: &Link, psn: u32, length: u32, ack_req: bool) -> TxPacket {
    let mut packet = link.packets(vec![post(1, PostOp::Write, length)])[0];
    packet.bth.psn = psn;
    packet.bth.ack_req = ack_req;
    packet
}

/// A READ response packet as the tests compare it: opcode, PSN, address, payload, AETH word.
type Cut = (Opcode, u32, u64, Vec<u8>, Option<u32>);

/// The packets of a READ response, cut by hand from the rules: PMTU bytes each, the rest in the
/// last; FIRST, MIDDLE…, LAST or ONLY; an ACK AETH with `msn` on all but the middle ones.
fn reference(first_psn: u32, va: u64, length: u32, pmtu: Pmtu, msn: u32, memory: &dyn LocalMemory) -> Vec<Cut> {
    let (length, pmtu) = (u64::from(length), u64::from(pmtu.bytes()));
    let mut cuts = Vec::new();
    let mut offset = 0;
    loop {
        let take = (length - offset).min(pmtu);
        cuts.push((offset, take));
        offset += take;
        if offset == length {
            break;
        }
    }
    let last = cuts.len() - 1;
    cuts.into_iter()
        .enumerate()
        .map(|(i, (offset, take))| {
            let opcode = match i {
                0 if last == 0 => Opcode::RC_READ_RESPONSE_ONLY,
                0 => Opcode::RC_READ_RESPONSE_FIRST,
                i if i == last => Opcode::RC_READ_RESPONSE_LAST,
                _ => Opcode::RC_READ_RESPONSE_MIDDLE,
            };
            let aeth = (opcode != Opcode::RC_READ_RESPONSE_MIDDLE).then_some(0x1F00_0000 | msn);
            let address = va + offset;
            let psn = (first_psn + i as u32) & PSN_MASK;
            (opcode, psn, address, memory.bytes(address, take as usize), aeth)
        })
        .collect()
}

/// The model's packets of `response`, read from `memory`, as [`reference`] cuts them; their
/// offsets and lengths checked against the addresses and payloads.
fn cut(response: &ReadResponse, memory: &dyn LocalMemory) -> Vec<Cut> {
    let packets = response.packets(Some(memory));
    assert_eq!(packets.len() as u32, response.packet_count());
    assert_eq!(packets.last().map(|p| p.psn), Some(response.last_psn()));
    packets
        .into_iter()
        .map(|p| {
            let payload = p.payload.expect("read from memory");
            assert_eq!(p.address, response.va + u64::from(p.offset));
            assert_eq!(p.length as usize, payload.len());
            (p.opcode, p.psn, p.address, payload, p.aeth.map(Aeth::encode))
        })
        .collect()
}

/// The bytes of another pattern than the requester's, for the responder's memory.
fn pattern(seed: u64) -> PatternMemory {
    PatternMemory::new(SEED ^ seed)
}

fn ack(msn: u32) -> Aeth {
    Aeth {
        syndrome: Syndrome::ack(),
        msn,
    }
}

#[test]
fn read_responses_are_cut_at_the_pmtu_with_an_aeth_on_first_last_and_only() {
    for pmtu in Pmtu::ALL {
        let p = pmtu.bytes();
        let mut link = Link::new(Transport::Rc, pmtu);
        let source = pattern(1);
        link.memory.write(REGION_BASE, &source.bytes(REGION_BASE, 8 * 4096 + 64));
        // (length, packets), one READ after the other
        let cases = [
            (0, 1),
            (1, 1),
            (p - 1, 1),
            (p, 1),
            (p + 1, 2),
            (2 * p, 2),
            (5 * p + 17, 6),
            (8 * p, 8),
        ];
        let mut psn = 0;
        for (msn, (length, packets)) in (1..).zip(cases) {
            let va = REGION_BASE + 3 * u64::from(msn); // not aligned
            let outcome = link.deliver(&read_request(&link, psn, va, length));
            assert_eq!((outcome.verdict, outcome.response, outcome.completion), (EXECUTED, None, None));
            assert_eq!(outcome.write, None);
            let response = outcome.read_response.unwrap();
            let region = (length > 0).then_some(region_index(RKEY));
            let want = ReadResponse {
                qp: QPN,
                first_psn: psn,
                va,
                length,
                pmtu,
                aeth: ack(msn),
                region,
                duplicate: false,
            };
            assert_eq!(response, want, "{} bytes at PMTU {p}", length);
            assert_eq!(response.packet_count(), packets);
            assert_eq!(cut(&response, &link.memory), reference(psn, va, length, pmtu, msn, &source));
            psn += packets;
            assert_eq!((link.qp().expected_psn, link.qp().msn), (psn, msn));
            // The decision of a READ: executed, no write, no ACK.
            let d = Decision::of(&outcome, QPN, 0);
            assert_eq!((d.failure, d.write, d.response), (0, false, false));
        }
        let counters = link.responder.counters();
        assert_eq!((counters.read_requests, counters.read_duplicates), (8, 0));
        assert_eq!((counters.packets_executed, counters.bytes_executed, counters.acks), (8, 0, 0));
    }
}

#[test]
fn read_response_packets_without_memory_have_no_payload() {
    let response = ReadResponse {
        qp: QPN,
        first_psn: 7,
        va: REGION_BASE,
        length: 600,
        pmtu: Pmtu::B256,
        aeth: ack(1),
        region: None,
        duplicate: false,
    };
    let packets = response.packets(None);
    assert_eq!(
        packets.iter().map(|p| (p.offset, p.length)).collect::<Vec<_>>(),
        [(0, 256), (256, 256), (512, 88)]
    );
    assert!(packets.iter().all(|p| p.payload.is_none()));
    assert_eq!(response.packet(3, None), None);
    assert_eq!(response.packet(1, None), Some(packets[1].clone()));
}

#[test]
fn read_returns_what_a_write_placed() {
    let mut link = Link::new(Transport::Rc, Pmtu::B1024);
    let w = post(0, PostOp::Write, 3000);
    let packets = link.packets(vec![w]);
    link.deliver_all(&packets);
    let outcome = link.deliver(&read_request(&link, 3, w.remote_addr, 3000));
    let response = outcome.read_response.unwrap();
    let bytes: Vec<u8> = response
        .packets(Some(&link.memory))
        .into_iter()
        .flat_map(|p| p.payload.unwrap())
        .collect();
    assert_eq!(bytes, link.sent(&w, 0..3000));
    // the MSN counts the WRITE and the READ
    assert_eq!(response.aeth, ack(2));
}

#[test]
fn read_consumes_one_psn_per_response_packet() {
    // 700 bytes at PMTU 256: 3 packets, PSNs 0 to 2; the next request is at PSN 3.
    let mut link = Link::new(Transport::Rc, Pmtu::B256);
    let outcome = link.deliver(&read_request(&link, 0, REGION_BASE, 700));
    assert_eq!(outcome.read_response.map(|r| r.last_psn()), Some(2));
    assert_eq!(link.qp().expected_psn, 3);
    let outcome = link.deliver(&write_at(&link, 3, 100, true));
    assert_eq!(outcome.verdict, EXECUTED);
    assert_eq!(responses(&[outcome]), [Some((3, Syndrome::ack(), 2))]);
    // After it, a WRITE at PSN 1 is behind the expected PSN 3: a duplicate, re-ACKed with the
    // last PSN of the READ, not executed. A WRITE at PSN 4 is ahead: one PSN sequence error
    // NAK for PSN 3, then silence.
    let mut link = Link::new(Transport::Rc, Pmtu::B256);
    link.deliver(&read_request(&link, 0, REGION_BASE, 700));
    let outcomes = [
        link.deliver(&write_at(&link, 1, 100, true)),
        link.deliver(&write_at(&link, 4, 100, true)),
        link.deliver(&read_request(&link, 5, REGION_BASE, 10)),
    ];
    assert_eq!(
        verdicts(&outcomes),
        [
            failed(CheckFailure::PsnDuplicate),
            failed(CheckFailure::PsnOutOfSequence),
            failed(CheckFailure::PsnOutOfSequence)
        ]
    );
    assert_eq!(
        responses(&outcomes),
        [Some((2, Syndrome::ack(), 1)), Some((3, nak(NakCode::PsnSequenceError), 1)), None]
    );
    assert!(outcomes.iter().all(|o| o.write.is_none()));
    assert!(outcomes.iter().all(|o| o.read_response.is_none()));
    assert_eq!((link.qp().expected_psn, link.qp().state), (3, QpState::Rtr));
    // The expected READ clears the flag and is executed.
    let outcome = link.deliver(&read_request(&link, 3, REGION_BASE, 10));
    assert_eq!((outcome.verdict, outcome.read_response.map(|r| r.first_psn)), (EXECUTED, Some(3)));
    assert!(!link.qp().nak_sent);
}

#[test]
fn read_check_failures_get_their_naks() {
    let (unknown, write_only, other_pd, short, big) = (0x0942, 0x0301, 0x0677, 0x0744, 0x0800);
    let regions = [
        MemoryRegion {
            access: Access {
                remote_write: true,
                remote_read: false,
            },
            ..region(write_only, PD, true)
        },
        region(other_pd, PD + 1, true),
        MemoryRegion {
            length: 1000,
            ..region(short, PD, true)
        },
        MemoryRegion {
            base: 1 << 40,
            length: 1 << 33,
            ..region(big, PD, true)
        },
    ];
    let (access_error, invalid_request) = (nak(NakCode::RemoteAccessError), nak(NakCode::InvalidRequest));
    // (R_Key, VA, DMA length, payload bytes, failure, NAK)
    let cases = [
        (unknown, REGION_BASE, 64, 0, CheckFailure::RkeyInvalid, access_error),
        (RKEY + 1, REGION_BASE, 64, 0, CheckFailure::RkeyInvalid, access_error), // wrong key byte
        (other_pd, REGION_BASE, 64, 0, CheckFailure::RkeyDomain, access_error),
        (write_only, REGION_BASE, 64, 0, CheckFailure::RkeyAccess, access_error),
        (short, REGION_BASE + 900, 101, 0, CheckFailure::RkeyBounds, access_error),
        (RKEY, REGION_BASE - 1, 1, 0, CheckFailure::RkeyBounds, access_error),
        (RKEY, REGION_BASE + REGION_LEN - 10, 11, 0, CheckFailure::RkeyBounds, access_error),
        (big, 1 << 40, MAX_READ_LENGTH + 1, 0, CheckFailure::DmaLength, invalid_request),
        (RKEY, REGION_BASE, 64, 8, CheckFailure::PayloadLength, invalid_request),
        (RKEY, REGION_BASE, 0, 1, CheckFailure::PayloadLength, invalid_request),
        (unknown, REGION_BASE, 64, 8, CheckFailure::RkeyInvalid, access_error), // the R_Key first
    ];
    for (rkey, va, length, payload, failure, syndrome) in cases {
        let mut link = Link::new(Transport::Rc, Pmtu::B256);
        for r in regions {
            link.responder.add_memory_region(r).unwrap();
        }
        link.deliver(&write_at(&link, 0, 10, false));
        let mut request = read_request(&link, 1, va, length);
        request.reth = request.reth.map(|r| RethRepr { r_key: rkey, ..r });
        request.payload_len = payload;
        let outcome = link.deliver(&request);
        let case = format!("{rkey:#x} {va:#x}+{length}, {payload} payload bytes");
        assert_eq!(outcome.verdict, failed(failure), "{case}");
        assert_eq!(responses(std::slice::from_ref(&outcome)), [Some((1, syndrome, 1))], "{case}");
        assert_eq!(outcome.read_response, None, "{case}");
        let qp = link.qp();
        assert_eq!((qp.state, qp.expected_psn, qp.msn), (QpState::Error, 1, 1), "{case}");
    }
    // Inside the region, to its last byte; the largest length; length 0 with any R_Key.
    let mut link = Link::new(Transport::Rc, Pmtu::B256);
    link.responder.add_memory_region(regions[3]).unwrap();
    let cases = [
        (RKEY, REGION_BASE + REGION_LEN - 11, 11, 1),
        (big, 1 << 40, MAX_READ_LENGTH, 1 << 23),
        (unknown, 0, 0, 1),
        (write_only, u64::MAX, 0, 1),
    ];
    let mut psn = 0;
    for (rkey, va, length, packets) in cases {
        let mut request = read_request(&link, psn, va, length);
        request.reth = request.reth.map(|r| RethRepr { r_key: rkey, ..r });
        let outcome = link.deliver(&request);
        assert_eq!(outcome.verdict, EXECUTED, "{rkey:#x} {va:#x}+{length}");
        let response = outcome.read_response.unwrap();
        assert_eq!((response.packet_count(), response.region.is_some()), (packets, length > 0));
        psn = (psn + packets) & PSN_MASK;
        assert_eq!(link.qp().expected_psn, psn);
    }
    assert_eq!(psn, (2 + (1 << 23) + 1) & PSN_MASK);
    // A zero-length READ: one READ response only packet without payload.
    let response = link.deliver(&read_request(&link, psn, 0, 0)).read_response.unwrap();
    let packets = response.packets(Some(&link.memory));
    assert_eq!(packets.len(), 1);
    assert_eq!(
        (packets[0].opcode, packets[0].length, &packets[0].payload, packets[0].aeth),
        (Opcode::RC_READ_RESPONSE_ONLY, 0, &Some(vec![]), Some(ack(5)))
    );
}

#[test]
fn read_while_a_message_is_open_is_an_opcode_sequence_error() {
    let mut link = Link::new(Transport::Rc, Pmtu::B256);
    link.responder.post_receive(QPN, BUFFER_BASE, 4096).unwrap();
    let packets = link.packets(vec![post(0, PostOp::Send, 600)]);
    assert_eq!(link.deliver(&packets[0]).verdict, EXECUTED);
    let outcome = link.deliver(&read_request(&link, 1, REGION_BASE, 64));
    assert_eq!(outcome.verdict, failed(CheckFailure::OpcodeSequence));
    assert_eq!(
        responses(std::slice::from_ref(&outcome)),
        [Some((1, nak(NakCode::InvalidRequest), 0))]
    );
    assert_eq!(
        outcome.completion.map(|c| (c.length, c.status)),
        Some((256, ReceiveStatus::InvalidRequest))
    );
    assert_eq!(link.qp().state, QpState::Error);
}

#[test]
fn duplicate_read_is_read_again_from_memory_at_its_own_psn() {
    let mut link = Link::new(Transport::Rc, Pmtu::B256);
    let (before, after) = (pattern(2), pattern(3));
    link.memory.write(REGION_BASE, &before.bytes(REGION_BASE, 768));
    // READ of 768 bytes at PSNs 0 to 2, then a WRITE elsewhere at PSN 3.
    let read = read_request(&link, 0, REGION_BASE, 768);
    let response = link.deliver(&read).read_response.unwrap();
    assert_eq!(cut(&response, &link.memory), reference(0, REGION_BASE, 768, Pmtu::B256, 1, &before));
    let write = write_at(&link, 3, 100, true);
    assert_eq!(link.deliver(&write).verdict, EXECUTED);
    // The host changes the bytes; the requester asks again (its response was lost).
    link.memory.write(REGION_BASE, &after.bytes(REGION_BASE, 768));
    let outcome = link.deliver(&read);
    assert_eq!((outcome.verdict, outcome.response), (EXECUTED, None));
    let again = outcome.read_response.unwrap();
    assert_eq!(
        again,
        ReadResponse {
            aeth: ack(2), // the current MSN
            duplicate: true,
            ..response
        }
    );
    assert_eq!(cut(&again, &link.memory), reference(0, REGION_BASE, 768, Pmtu::B256, 2, &after));
    // A sub-range: the requester asks again from the second response packet on.
    let partial = link.deliver(&read_request(&link, 1, REGION_BASE + 256, 512)).read_response.unwrap();
    assert!(partial.duplicate);
    assert_eq!(
        cut(&partial, &link.memory),
        reference(1, REGION_BASE + 256, 512, Pmtu::B256, 2, &after)
    );
    let qp = link.qp();
    assert_eq!((qp.expected_psn, qp.msn, qp.state), (4, 2, QpState::Rtr));
    // A duplicate WRITE is still re-ACKed.
    let outcome = link.deliver(&write);
    assert_eq!(outcome.verdict, failed(CheckFailure::PsnDuplicate));
    assert_eq!(responses(&[outcome]), [Some((3, Syndrome::ack(), 2))]);
    let counters = link.responder.counters();
    assert_eq!((counters.read_requests, counters.read_duplicates), (1, 2));
    assert_eq!((counters.duplicates(), counters.packets_executed), (1, 4));
    // A duplicate is checked as a new request: with its region gone, a NAK at its own PSN.
    link.responder.clear_memory_region(region_index(RKEY)).unwrap();
    let outcome = link.deliver(&read_request(&link, 1, REGION_BASE + 256, 512));
    assert_eq!(outcome.verdict, failed(CheckFailure::RkeyInvalid));
    assert_eq!(responses(&[outcome]), [Some((1, nak(NakCode::RemoteAccessError), 2))]);
    assert_eq!((link.qp().state, link.qp().expected_psn), (QpState::Error, 4));
}

#[test]
fn duplicate_read_while_a_message_is_open_leaves_it_open() {
    // Go back N: the requester resends from a READ whose response was lost, while the SEND
    // after it is open at the responder.
    let mut link = Link::new(Transport::Rc, Pmtu::B256);
    link.responder.post_receive(QPN, BUFFER_BASE, 4096).unwrap();
    let read = read_request(&link, 0, REGION_BASE, 10);
    link.deliver(&read);
    let mut send = link.packets(vec![post(0, PostOp::Send, 600)]);
    for (psn, packet) in (1..).zip(send.iter_mut()) {
        packet.bth.psn = psn;
    }
    assert_eq!(link.deliver(&send[0]).verdict, EXECUTED);
    let outcome = link.deliver(&read);
    assert_eq!(outcome.read_response.map(|r| (r.first_psn, r.duplicate)), Some((0, true)));
    assert_eq!(link.deliver(&send[0]).verdict, failed(CheckFailure::PsnDuplicate));
    let outcomes = link.deliver_all(&send[1..]);
    assert_eq!(verdicts(&outcomes), [EXECUTED; 2]);
    assert_eq!(outcomes[1].completion.map(|c| c.length), Some(600));
    assert_eq!((link.qp().expected_psn, link.qp().msn), (4, 2));
}

#[test]
fn read_response_acknowledges_the_coalesced_packets() {
    // The responder ACKs every 3 executed packets; no packet has AckReq.
    let mut link = Link::with(requester(Transport::Rc, Pmtu::B256), 3);
    let outcomes = link.deliver_all(&[write_at(&link, 0, 10, false), write_at(&link, 1, 10, false)]);
    assert_eq!(responses(&outcomes), [None, None]);
    assert_eq!(link.qp().unacknowledged, 2);
    // The READ's response acknowledges them: the count restarts.
    let outcome = link.deliver(&read_request(&link, 2, REGION_BASE, 10));
    assert_eq!((outcome.response, outcome.read_response.map(|r| r.aeth)), (None, Some(ack(3))));
    assert_eq!(link.qp().unacknowledged, 0);
    let outcomes = link.deliver_all(&[3, 4, 5].map(|psn| write_at(&link, psn, 10, false)));
    assert_eq!(responses(&outcomes), [None, None, Some((5, Syndrome::ack(), 6))]);
    // A duplicate's response acknowledges only up to its own PSNs: the count stays.
    link.deliver(&write_at(&link, 6, 10, false));
    let outcome = link.deliver(&read_request(&link, 2, REGION_BASE, 10));
    assert!(outcome.read_response.unwrap().duplicate);
    assert_eq!(link.qp().unacknowledged, 1);
    let outcomes = link.deliver_all(&[7, 8].map(|psn| write_at(&link, psn, 10, false)));
    assert_eq!(responses(&outcomes), [None, Some((8, Syndrome::ack(), 9))]);
}

#[test]
fn read_psn_range_wraps_at_2_24() {
    let mut ctx = requester(Transport::Rc, Pmtu::B256);
    ctx.sq_psn = 0xFF_FFFE;
    let mut link = Link::with(ctx, 0);
    let source = pattern(4);
    link.memory.write(REGION_BASE, &source.bytes(REGION_BASE, 1000));
    let response = link
        .deliver(&read_request(&link, 0xFF_FFFE, REGION_BASE, 1000))
        .read_response
        .unwrap();
    let psns: Vec<u32> = response.packets(None).iter().map(|p| p.psn).collect();
    assert_eq!(psns, [0xFF_FFFE, 0xFF_FFFF, 0, 1]);
    assert_eq!(response.last_psn(), 1);
    assert_eq!(
        cut(&response, &link.memory),
        reference(0xFF_FFFE, REGION_BASE, 1000, Pmtu::B256, 1, &source)
    );
    assert_eq!(link.qp().expected_psn, 2);
    assert_eq!(link.deliver(&write_at(&link, 2, 10, true)).verdict, EXECUTED);
    // a duplicate from PSN 0xFF_FFFF (4 behind the expected 3)
    let again = link
        .deliver(&read_request(&link, 0xFF_FFFF, REGION_BASE + 256, 744))
        .read_response
        .unwrap();
    assert!(again.duplicate);
    assert_eq!(
        cut(&again, &link.memory),
        reference(0xFF_FFFF, REGION_BASE + 256, 744, Pmtu::B256, 2, &source)
    );
    assert_eq!(link.qp().expected_psn, 3);
}

#[test]
fn read_request_on_a_uc_qp_is_a_transport_failure() {
    // An RC opcode on a UC QP, as for any RC request (UC has no READ opcode).
    let mut link = Link::new(Transport::Uc, Pmtu::B256);
    let request = read_request(&link, 0, REGION_BASE, 64);
    assert_eq!(request.bth.opcode.transport(), Transport::Rc);
    let outcome = link.deliver(&request);
    assert_eq!(
        (outcome.verdict, outcome.response, outcome.read_response),
        (failed(CheckFailure::Transport), None, None)
    );
    assert_eq!(link.responder.counters().read_requests, 0);
}

#[test]
fn atomics_and_send_with_invalidate_stay_unsupported() {
    let mut link = Link::new(Transport::Rc, Pmtu::B256);
    let base = link.frame(&link.packets(vec![post(0, PostOp::Write, 0)])[0]);
    for opcode in [Opcode::RC_COMPARE_SWAP, Opcode::RC_FETCH_ADD, Opcode::RC_SEND_ONLY_INV] {
        let mut frame = base.clone();
        frame.bth.opcode = opcode;
        frame.ext = ExtRepr::default_for(opcode);
        frame.normalize();
        let outcome = link.deliver_frame(&frame);
        assert_eq!(outcome.verdict, failed(CheckFailure::UnsupportedOpcode), "{}", opcode.name());
        assert_eq!(responses(&[outcome]), [Some((0, nak(NakCode::InvalidRequest), 0))]);
        link.responder.reset_qp(QPN).unwrap();
        link.responder
            .add_qp(QPN, QpAttributes::from_context(&link.requester).unwrap())
            .unwrap();
    }
}

/// A READ length: any, or a few bytes around a multiple of the PMTU.
fn read_length() -> impl Strategy<Value = (bool, u32, u32, i64)> {
    (any::<bool>(), 0u32..70_000, 0u32..20, -2i64..=2)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    /// Random READs, one after the other, then the first again: each response is the
    /// straightforward expansion, and the expected PSN moves by the packet count.
    #[test]
    fn random_reads_match_a_straightforward_expansion(
        pmtu in prop::sample::select(Pmtu::ALL.to_vec()),
        start_psn in prop_oneof![Just(PSN_MASK - 2), 0..=PSN_MASK],
        reads in prop::collection::vec((read_length(), 0u64..(1 << 20)), 1..6),
    ) {
        let mut ctx = requester(Transport::Rc, pmtu);
        ctx.sq_psn = start_psn;
        let mut link = Link::with(ctx, 0);
        let source = pattern(5);
        let p = u64::from(pmtu.bytes());
        let mut psn = start_psn;
        let mut first = None;
        for (msn, ((any_length, length, packets, delta), offset)) in (1..).zip(reads) {
            let length = if any_length { length } else { (i64::from(packets) * p as i64 + delta).max(0) as u32 };
            let va = REGION_BASE + offset;
            let request = read_request(&link, psn, va, length);
            let outcome = link.deliver(&request);
            prop_assert_eq!(outcome.verdict, EXECUTED);
            let response = outcome.read_response.unwrap();
            let want = reference(psn, va, length, pmtu, msn, &source);
            prop_assert_eq!(cut(&response, &source), want.clone());
            psn = (psn + want.len() as u32) & PSN_MASK;
            prop_assert_eq!((link.qp().expected_psn, link.qp().msn), (psn, msn));
            first.get_or_insert((request, want));
        }
        let (request, mut want) = first.unwrap();
        let msn = link.qp().msn;
        for packet in &mut want {
            packet.4 = packet.4.map(|_| 0x1F00_0000 | msn);
        }
        let again = link.deliver(&request).read_response.unwrap();
        prop_assert!(again.duplicate);
        prop_assert_eq!(cut(&again, &source), want);
        prop_assert_eq!(link.qp().expected_psn, psn);
    }
}
