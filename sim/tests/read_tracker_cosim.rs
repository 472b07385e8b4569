//! Co-simulation of the READ tracker (`hdl/src/engine/read_tracker.rs`, Verilator model
//! `ferroce_read_tracker_q16`) against its model (`ferroce_models::tx::read_tracker`, 4 READs
//! per QP): READ requests leaving on random QPs, up to 4 outstanding on one (now and then a
//! fifth, which takes the newest's place; later ones sent again whole) (PSNs across the 2^24 wrap, every PMTU, lengths from 0 to
//! several packets, local addresses across 16-bit and 64-bit carries), their responses as a
//! lossy wire delivers them (lost, duplicated, ahead, wrong opcode or length, beyond the READ,
//! for no READ), requests sent again from the PSN a gap names, ACKs and NAKs around them, CNPs,
//! decisions that are not forwarded, clears and QPs beyond the table; with and without idle on
//! the inputs and backpressure on the outputs. Every decision, every `done` and the counters
//! must be the model's.

use ferroce_sim::contracts::responder::{NakCode, Syndrome};
use ferroce_sim::contracts::tx::READS_PER_QP;
use ferroce_sim::models::responder::Decision;
use ferroce_sim::models::tx::read_tracker::{ReadTracker, SentRead, GENERATIONS};
use ferroce_sim::read_tracker_rtl::{expected, random_pmtu, run, TrackerInput, QP_BITS};
use ferroce_sim::verilated::Traffic;
use ferroce_sim::wire::bth::PSN_MASK;
use ferroce_sim::wire::Opcode;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

const QPS: u32 = 1 << QP_BITS;
/// The READ response opcodes.
const RESPONSES: [Opcode; 4] = [
    Opcode::RC_READ_RESPONSE_FIRST,
    Opcode::RC_READ_RESPONSE_MIDDLE,
    Opcode::RC_READ_RESPONSE_LAST,
    Opcode::RC_READ_RESPONSE_ONLY,
];

/// A forwarded decision for QP `qp`: a READ response or ACK packet's.
fn forwarded(qp: u32, opcode: Opcode, psn: u32, syndrome: u8, length: u16, rng: &mut ChaCha8Rng) -> Decision {
    let with_aeth = opcode != Opcode::RC_READ_RESPONSE_MIDDLE && opcode != Opcode::CNP;
    Decision {
        forwarded: true,
        acknowledgement: with_aeth,
        forwarded_opcode: opcode.value(),
        qp,
        response_psn: psn & PSN_MASK,
        response_syndrome: if with_aeth { syndrome } else { 0 },
        response_msn: if with_aeth { rng.gen_range(0..1 << 24) } else { 0 },
        write_length: length,
        ..Decision::default()
    }
}

/// A decision the responder made for a request (not forwarded): anything.
fn executed(rng: &mut ChaCha8Rng) -> Decision {
    Decision {
        failure: rng.gen_range(0..20),
        write: rng.gen(),
        write_length: rng.gen(),
        write_address: rng.gen(),
        qp: rng.gen_range(0..1 << 24),
        response: rng.gen(),
        response_syndrome: rng.gen(),
        response_psn: rng.gen_range(0..1 << 24),
        response_msn: rng.gen_range(0..1 << 24),
        completion: rng.gen(),
        completion_length: rng.gen(),
        completion_immediate: rng.gen(),
        read: rng.gen(),
        read_va: rng.gen(),
        read_length: rng.gen(),
        ..Decision::default()
    }
}

/// A random syndrome an ACK packet carries.
fn ack_syndrome(rng: &mut ChaCha8Rng) -> u8 {
    match rng.gen_range(0..6) {
        0 | 1 => Syndrome::ack().encode(),
        2 => Syndrome::Ack {
            credit: rng.gen_range(0..31),
        }
        .encode(),
        3 => Syndrome::Nak(NakCode::PsnSequenceError).encode(),
        4 => Syndrome::RnrNak {
            timer: rng.gen_range(0..32),
        }
        .encode(),
        _ => [
            Syndrome::Nak(NakCode::RemoteAccessError).encode(),
            Syndrome::Nak(NakCode::InvalidRequest).encode(),
            0x40 | rng.gen_range(0..32), // reserved
        ][rng.gen_range(0..3)],
    }
}

/// A new READ on `qp` (its first PSN the QP's next one): every PMTU, lengths from 0 to several
/// packets, local addresses across 16-bit and 64-bit carries; now and then marked sent again
/// (a late replay of a READ that has ended: ignored); its generation the QP's `generation`, now
/// and then the one before (cut before a reset the tracker has seen: ignored).
fn new_read(qp: u32, generation: u8, next_psn: &mut [u32], rng: &mut ChaCha8Rng) -> TrackerInput {
    let pmtu = random_pmtu(rng);
    let bytes = pmtu.bytes();
    let length = match rng.gen_range(0..6) {
        0 => 0,
        1 => rng.gen_range(1..=bytes),
        2 => bytes * rng.gen_range(1..6),
        3 => bytes * rng.gen_range(1..6) + rng.gen_range(1..bytes),
        _ => rng.gen_range(0..20_000),
    };
    let packets = length.div_ceil(bytes).max(1);
    let first_psn = next_psn[qp as usize];
    next_psn[qp as usize] = (first_psn + packets + rng.gen_range(0..3)) & PSN_MASK;
    let local_address = match rng.gen_range(0..3) {
        0 => u64::MAX - rng.gen_range(0..20_000),
        1 => 0xFFFF - rng.gen_range(0..8_000) + (rng.gen_range(0..1u64 << 40) << 16),
        _ => rng.gen(),
    };
    TrackerInput::Sent(SentRead {
        qp,
        first_psn,
        last_psn: (first_psn + packets - 1) & PSN_MASK,
        local_address,
        length,
        pmtu,
        // now and then a late replay of a READ that has ended: ignored
        again: rng.gen_bool(0.1),
        generation: if rng.gen_bool(0.1) {
            (generation + GENERATIONS - 1) % GENERATIONS
        } else {
            generation
        },
    })
}

/// The inputs of one random run of `steps` steps: the model runs beside the generator, so
/// responses follow what each QP's READ expects and requests are sent again from a gap.
fn scenario(seed: u64, steps: usize) -> Vec<TrackerInput> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut model = ReadTracker::new(QP_BITS);
    let mut next_psn: Vec<u32> = (0..QPS)
        .map(|_| {
            if rng.gen_bool(0.4) {
                0xFF_FFF0 + rng.gen_range(0..16)
            } else {
                rng.gen_range(0..1 << 24)
            }
        })
        .collect();
    let mut inputs = Vec::with_capacity(steps);
    let push = |input: TrackerInput, model: &mut ReadTracker, inputs: &mut Vec<TrackerInput>| {
        match &input {
            TrackerInput::Sent(read) => model.sent(read),
            TrackerInput::Clear(qp) => model.clear(*qp),
            TrackerInput::Decision(d) => {
                model.decide(d);
            }
        }
        inputs.push(input);
    };
    for _ in 0..steps {
        let qp = rng.gen_range(0..QPS);
        let roll = rng.gen_range(0..100);
        let reads = model.outstanding_reads(qp);
        let input = match reads.first().copied() {
            _ if roll < 6 => TrackerInput::Decision(executed(&mut rng)),
            _ if roll < 8 => TrackerInput::Clear(qp),
            _ if roll < 10 => {
                // a QP beyond the table, a CNP
                let opcode = [Opcode::RC_READ_RESPONSE_ONLY, Opcode::RC_ACK, Opcode::CNP][rng.gen_range(0..3)];
                let beyond = rng.gen_range(QPS..1 << 24);
                let qp = if rng.gen_bool(0.5) { beyond } else { qp };
                let syndrome = ack_syndrome(&mut rng);
                TrackerInput::Decision(forwarded(qp, opcode, rng.gen_range(0..1 << 24), syndrome, 0, &mut rng))
            }
            None if roll < 60 => new_read(qp, model.generation(qp), &mut next_psn, &mut rng),
            // another READ behind the ones outstanding (now and then one more than the QP's
            // limit: it takes the newest's place)
            Some(_) if roll < 18 && (reads.len() < READS_PER_QP || roll < 11) => {
                new_read(qp, model.generation(qp), &mut next_psn, &mut rng)
            }
            Some(_) if roll < 22 && reads.len() > 1 => {
                // a later READ sent again whole (going back N from a PSN before it)
                let read = reads[rng.gen_range(1..reads.len())];
                TrackerInput::Sent(SentRead {
                    qp,
                    first_psn: read.expected,
                    last_psn: read.last,
                    local_address: read.local_address,
                    length: read.remaining,
                    pmtu: read.pmtu,
                    again: true,
                    generation: rng.gen_range(0..GENERATIONS),
                })
            }
            None => {
                // a response for no READ, an ACK
                let opcode = if rng.gen_bool(0.5) {
                    Opcode::RC_READ_RESPONSE_FIRST
                } else {
                    Opcode::RC_ACK
                };
                let syndrome = ack_syndrome(&mut rng);
                TrackerInput::Decision(forwarded(qp, opcode, rng.gen_range(0..1 << 24), syndrome, 256, &mut rng))
            }
            Some(read) => {
                let pmtu = read.pmtu.bytes();
                let (opcode, length) = match (read.open, read.remaining > pmtu) {
                    (false, false) => (Opcode::RC_READ_RESPONSE_ONLY, read.remaining),
                    (false, true) => (Opcode::RC_READ_RESPONSE_FIRST, pmtu),
                    (true, true) => (Opcode::RC_READ_RESPONSE_MIDDLE, pmtu),
                    (true, false) => (Opcode::RC_READ_RESPONSE_LAST, read.remaining),
                };
                let length = length as u16;
                let ack = Syndrome::ack().encode();
                // responses ahead reach up to the newest READ's last PSN
                let newest = reads.last().expect("outstanding").last;
                let span = newest.wrapping_sub(read.expected) & PSN_MASK;
                match rng.gen_range(0..100) {
                    0..=54 => TrackerInput::Decision(forwarded(qp, opcode, read.expected, ack, length, &mut rng)),
                    55..=62 => {
                        let behind = read.expected.wrapping_sub(rng.gen_range(1..4));
                        TrackerInput::Decision(forwarded(qp, Opcode::RC_READ_RESPONSE_MIDDLE, behind, ack, length, &mut rng))
                    }
                    63..=72 if span > 0 => {
                        let ahead = read.expected + rng.gen_range(1..=span);
                        TrackerInput::Decision(forwarded(qp, Opcode::RC_READ_RESPONSE_MIDDLE, ahead, ack, length, &mut rng))
                    }
                    73..=75 => {
                        let others: Vec<Opcode> = RESPONSES.into_iter().filter(|&o| o != opcode).collect();
                        let wrong = others[rng.gen_range(0..others.len())];
                        TrackerInput::Decision(forwarded(qp, wrong, read.expected, ack, length, &mut rng))
                    }
                    76..=78 => TrackerInput::Decision(forwarded(qp, opcode, read.expected, ack, length ^ 4, &mut rng)),
                    79..=80 => {
                        let beyond = newest + rng.gen_range(1..100);
                        TrackerInput::Decision(forwarded(qp, opcode, beyond, ack, length, &mut rng))
                    }
                    81..=90 => {
                        // an ACK or NAK around the PSN expected
                        let psn = read.expected.wrapping_add(rng.gen_range(0..8)).wrapping_sub(3);
                        let syndrome = ack_syndrome(&mut rng);
                        TrackerInput::Decision(forwarded(qp, Opcode::RC_ACK, psn, syndrome, 0, &mut rng))
                    }
                    _ => {
                        // the request sent again from the PSN expected (going back N), or now
                        // and then a late replay of the READ before (ignored)
                        let older = rng.gen_bool(0.3);
                        TrackerInput::Sent(SentRead {
                            qp,
                            first_psn: read.expected,
                            last_psn: if older {
                                read.last.wrapping_sub(rng.gen_range(1..5)) & PSN_MASK
                            } else {
                                read.last
                            },
                            local_address: read.local_address,
                            length: read.remaining,
                            pmtu: read.pmtu,
                            again: true,
                            generation: rng.gen_range(0..GENERATIONS),
                        })
                    }
                }
            }
        };
        push(input, &mut model, &mut inputs);
    }
    inputs
}

#[test]
fn decisions_done_and_counters_match_the_model_under_idle_and_backpressure() {
    for (round, traffic) in Traffic::four_ways(0x4EAD).into_iter().enumerate() {
        for seed in 0..3u64 {
            let inputs = scenario(seed * 7 + round as u64, 1_500);
            let want = expected(&inputs);
            let c = want.counters;
            assert!(
                c.taken > 200 && c.duplicates > 20 && c.gaps > 20 && c.bad > 20 && want.done.len() > 50,
                "the scenario reaches every case: {c:?}, {} done",
                want.done.len()
            );
            // several READs outstanding on a QP, up to the limit
            let mut model = ReadTracker::new(QP_BITS);
            let mut most = 0;
            for input in &inputs {
                match input {
                    TrackerInput::Sent(read) => model.sent(read),
                    TrackerInput::Clear(qp) => model.clear(*qp),
                    TrackerInput::Decision(d) => {
                        model.decide(d);
                    }
                }
                most = most.max((0..QPS).map(|qp| model.outstanding_reads(qp).len()).max().unwrap_or(0));
            }
            assert_eq!(most, READS_PER_QP, "a QP reaches the limit");
            let got = run(&inputs, traffic).unwrap_or_else(|e| panic!("seed {seed}, {traffic:?}: {e}"));
            assert_eq!(
                got.decisions.len(),
                inputs.iter().filter(|i| matches!(i, TrackerInput::Decision(_))).count()
            );
            assert_eq!((got.done, got.counters), (want.done, want.counters));
        }
    }
}

#[test]
fn a_response_lands_at_its_place_and_the_last_one_ends_the_read() {
    // first principles, not the model: 3 packets of PMTU 1024 into 0xFFFF_FFFF_FFFF_FC00,
    // across the 64-bit wrap and the 2^24 PSN wrap
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    let read = SentRead {
        qp: 9,
        first_psn: 0xFF_FFFF,
        last_psn: 1,
        local_address: 0xFFFF_FFFF_FFFF_FC00,
        length: 2100,
        pmtu: ferroce_sim::contracts::tx::Pmtu::B1024,
        again: false,
        generation: 0,
    };
    let ack = Syndrome::ack().encode();
    let inputs = [
        TrackerInput::Sent(read),
        TrackerInput::Decision(forwarded(9, Opcode::RC_READ_RESPONSE_FIRST, 0xFF_FFFF, ack, 1024, &mut rng)),
        TrackerInput::Decision(forwarded(9, Opcode::RC_READ_RESPONSE_MIDDLE, 0, 0, 1024, &mut rng)),
        TrackerInput::Decision(forwarded(9, Opcode::RC_READ_RESPONSE_LAST, 1, ack, 52, &mut rng)),
        TrackerInput::Decision(forwarded(9, Opcode::RC_READ_RESPONSE_LAST, 1, ack, 52, &mut rng)),
    ];
    let got = run(&inputs, Traffic::FULL).unwrap();
    let places: Vec<(bool, u64, bool, u32)> = got
        .decisions
        .iter()
        .map(|d| (d.write, d.write_address, d.acknowledgement, d.response_psn))
        .collect();
    assert_eq!(
        places,
        [
            (true, 0xFFFF_FFFF_FFFF_FC00, true, 0xFF_FFFF),
            (true, 0, true, 0),
            (true, 0x400, true, 1),
            (false, 0, false, 1),
        ],
        "the last one again is for no READ: nothing written"
    );
    assert_eq!(got.done, [(9, false)]);
}

#[test]
fn reads_in_flight_on_one_qp_are_answered_in_turn() {
    // first principles, not the model: three READs on QP 5 (PMTU 1024) of 2, 1 and 3 packets;
    // their responses in PSN order land at each READ's address, each READ's last one ends it
    let mut rng = ChaCha8Rng::seed_from_u64(6);
    let read = |first_psn: u32, length: u32, local_address: u64| SentRead {
        qp: 5,
        first_psn,
        last_psn: first_psn + length.div_ceil(1024).max(1) - 1,
        local_address,
        length,
        pmtu: ferroce_sim::contracts::tx::Pmtu::B1024,
        again: false,
        generation: 0,
    };
    let ack = Syndrome::ack().encode();
    let mut response = |opcode: Opcode, psn: u32, length: u16| TrackerInput::Decision(forwarded(5, opcode, psn, ack, length, &mut rng));
    use Opcode as O;
    let inputs = [
        TrackerInput::Sent(read(100, 1500, 0x1_0000)),
        TrackerInput::Sent(read(102, 10, 0x2_0000)),
        TrackerInput::Sent(read(103, 2100, 0x3_0000)),
        response(O::RC_READ_RESPONSE_FIRST, 100, 1024),
        response(O::RC_READ_RESPONSE_LAST, 101, 476),
        response(O::RC_READ_RESPONSE_ONLY, 102, 10),
        response(O::RC_READ_RESPONSE_FIRST, 103, 1024),
        response(O::RC_READ_RESPONSE_MIDDLE, 104, 1024),
        response(O::RC_READ_RESPONSE_LAST, 105, 52),
    ];
    let got = run(&inputs, Traffic::FULL).unwrap();
    let places: Vec<(bool, u64)> = got.decisions.iter().map(|d| (d.write, d.write_address)).collect();
    assert_eq!(
        places,
        [
            (true, 0x1_0000),
            (true, 0x1_0400),
            (true, 0x2_0000),
            (true, 0x3_0000),
            (true, 0x3_0400),
            (true, 0x3_0800)
        ]
    );
    assert_eq!(got.done, [(5, false), (5, false), (5, false)]);
}

#[test]
fn a_read_cut_before_its_qp_was_reset_is_not_loaded_after_the_reset() {
    // first principles, not the model: QP 7 reset twice (generation 2); a READ of generation 1
    // (cut before the second reset, through the packetizer after it) is not loaded: its
    // response is for no READ; one of generation 2 is
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let read = |first_psn: u32, generation: u8| SentRead {
        qp: 7,
        first_psn,
        last_psn: first_psn,
        local_address: 0x4000,
        length: 100,
        pmtu: ferroce_sim::contracts::tx::Pmtu::B1024,
        again: false,
        generation,
    };
    let ack = Syndrome::ack().encode();
    let mut response = |psn: u32| TrackerInput::Decision(forwarded(7, Opcode::RC_READ_RESPONSE_ONLY, psn, ack, 100, &mut rng));
    let inputs = [
        TrackerInput::Clear(7),
        TrackerInput::Sent(read(10, 1)),
        TrackerInput::Clear(7),
        TrackerInput::Sent(read(20, 1)),
        response(20),
        TrackerInput::Sent(read(30, 2)),
        response(30),
    ];
    let got = run(&inputs, Traffic::FULL).unwrap();
    let places: Vec<(bool, bool)> = got.decisions.iter().map(|d| (d.write, d.acknowledgement)).collect();
    assert_eq!(places, [(false, false), (true, true)]);
    assert_eq!(got.done, [(7, true), (7, true), (7, false)]);
    assert_eq!(got.counters.bad, 1);
}
