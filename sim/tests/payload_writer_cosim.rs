//! The payload writer (`PayloadWriter`, Verilator models `ferroce_payload_writer_w64` and
//! `ferroce_payload_writer_w512`, driven by `ferroce_sim::payload_writer_rtl`) against the
//! reference of its decisions (`payload_writer_rtl::expected`), at both widths.
//!
//! Random payloads of 1 to 4096 bytes (every case also holds the sizes around a beat boundary:
//! 1, K - 1, K, K + 1, 2K, 4095, 4096), random write or discard decisions at random addresses,
//! zero-length decisions interleaved (at the start, between payloads, at the end), under the
//! four traffic patterns (source idle × sink backpressure): the commands, the written frames
//! byte for byte and the counters must be the reference's; the runner checks the AXI rules and
//! the beat format on both outputs every cycle, and that nothing comes out after the last
//! expected command and frame. Decisions come either freely (before, during or after their
//! payload) or, as from the responder, some cycles after their payload's last beat.
//!
//! Then: discarded payloads never show a beat or a command; one-beat payloads move at about one
//! per two cycles and 4 KiB payloads at about one beat per cycle when nothing stalls (also with
//! the responder's latency between a payload and its decision); a reset in the middle of a run
//! leaves cleared counters, quiet outputs and a writer that runs a new case exactly.

use ferroce_sim::payload_writer_rtl::{expected, DecisionTiming, PayloadWriterRtl, WriteDecision, MAX_PAYLOAD, WIDTHS};
use ferroce_sim::verilated::Traffic;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Cycles from a payload's last beat to its decision when decisions come as from the responder
/// (it takes about 12 cycles per packet).
const RESPONDER_DELAY: u64 = 12;

/// A run's inputs.
struct Case {
    payloads: Vec<Vec<u8>>,
    decisions: Vec<WriteDecision>,
}

/// A payload size at `k` bytes per beat: uniform in 1–4096 half the time, else one byte either
/// side of a beat boundary, or at most two beats.
fn payload_size(rng: &mut ChaCha8Rng, k: usize) -> usize {
    match rng.gen_range(0..4) {
        0 | 1 => rng.gen_range(1..=MAX_PAYLOAD),
        2 => (rng.gen_range(1..=MAX_PAYLOAD / k) * k + rng.gen_range(0..=2)).clamp(2, MAX_PAYLOAD + 1) - 1,
        _ => rng.gen_range(1..=2 * k),
    }
}

/// Zero-length decisions: with a 20 % chance, one or two of them.
fn no_payload_decisions(rng: &mut ChaCha8Rng) -> Vec<WriteDecision> {
    let n = if rng.gen_range(0..100) < 20 { rng.gen_range(1..=2) } else { 0 };
    (0..n)
        .map(|_| WriteDecision {
            write: rng.gen(),
            address: rng.gen(),
            length: 0,
        })
        .collect()
}

/// Payloads of `sizes`, random bytes, each written (`write_pct` percent chance) at a random
/// address or discarded, zero-length decisions interleaved.
fn case_of_sizes(rng: &mut ChaCha8Rng, sizes: &[usize], write_pct: u32) -> Case {
    let mut case = Case {
        payloads: Vec::new(),
        decisions: Vec::new(),
    };
    for &size in sizes {
        case.decisions.extend(no_payload_decisions(rng));
        case.payloads.push((0..size).map(|_| rng.gen()).collect());
        let write = rng.gen_range(0..100) < write_pct;
        case.decisions.push(WriteDecision {
            write,
            address: rng.gen(),
            length: size as u16,
        });
    }
    case.decisions.extend(no_payload_decisions(rng));
    case
}

/// `n` random payloads (after the sizes around a beat boundary, in random order) at `k` bytes
/// per beat; 60 % written.
fn random_case(rng: &mut ChaCha8Rng, k: usize, n: usize) -> Case {
    let mut sizes = vec![1, k - 1, k, k + 1, 2 * k, MAX_PAYLOAD - 1, MAX_PAYLOAD];
    while sizes.len() < n {
        sizes.push(payload_size(rng, k));
    }
    for i in (1..sizes.len()).rev() {
        sizes.swap(i, rng.gen_range(0..=i));
    }
    case_of_sizes(rng, &sizes, 60)
}

fn describe(width: usize, traffic: Traffic, timing: DecisionTiming) -> String {
    format!(
        "{width} bits, idle {} % / backpressure {} %, seed {}, decisions {timing:?}",
        traffic.idle_pct, traffic.bp_pct, traffic.seed
    )
}

/// Runs `case` on `dut` and checks it against the reference; returns the run.
fn run_checked(
    dut: &mut PayloadWriterRtl,
    case: &Case,
    traffic: Traffic,
    timing: DecisionTiming,
) -> ferroce_sim::payload_writer_rtl::WriterRun {
    let ctx = describe(dut.width(), traffic, timing);
    let want = expected(&case.payloads, &case.decisions).unwrap_or_else(|e| panic!("{ctx}: the case is inconsistent: {e}"));
    let run = dut
        .run(&case.payloads, &case.decisions, traffic, timing)
        .unwrap_or_else(|e| panic!("{ctx}: {e}"));
    run.check(&want).unwrap_or_else(|e| panic!("{ctx}: {e}"));
    run
}

/// Cases of a run per width and traffic pattern: each a new case on the same writer (no reset
/// between them: a run must leave it idle).
const RUNS: u64 = 3;

/// Random cases at both widths under the four traffic patterns.
fn random_cases_match(timing: DecisionTiming, seed: u64) {
    for width in WIDTHS {
        let k = width / 8;
        let payloads = if width == 64 { 40 } else { 80 };
        for pattern in Traffic::four_ways(seed) {
            let mut dut = PayloadWriterRtl::new(width).unwrap_or_else(|e| panic!("{e}"));
            for run_index in 0..RUNS {
                let traffic = Traffic {
                    seed: pattern.seed ^ run_index << 16 ^ (width as u64) << 32 ^ u64::from(pattern.idle_pct << 8 | pattern.bp_pct),
                    ..pattern
                };
                let case = random_case(&mut ChaCha8Rng::seed_from_u64(traffic.seed), k, payloads);
                let run = run_checked(&mut dut, &case, traffic, timing);
                println!(
                    "{}: {} payloads ({} written, {} discarded), {} decisions, {} beats in, {} out, {} cycles",
                    describe(width, traffic, timing),
                    case.payloads.len(),
                    run.written,
                    run.discarded,
                    case.decisions.len(),
                    run.beats_in,
                    run.beats_out,
                    run.cycles
                );
            }
        }
    }
}

#[test]
fn every_payload_is_written_or_discarded_as_its_decision_says() {
    random_cases_match(DecisionTiming::Free, 0x5eed_0001);
}

#[test]
fn decisions_after_their_payloads_give_the_same_writes() {
    random_cases_match(DecisionTiming::AfterPayload { delay: RESPONDER_DELAY }, 0x5eed_0002);
}

#[test]
fn discarded_payloads_never_produce_a_beat_or_a_command() {
    for width in WIDTHS {
        let k = width / 8;
        for timing in [DecisionTiming::Free, DecisionTiming::AfterPayload { delay: RESPONDER_DELAY }] {
            for traffic in Traffic::four_ways(0x5eed_0003) {
                let rng = &mut ChaCha8Rng::seed_from_u64(traffic.seed ^ width as u64);
                let sizes: Vec<usize> = (0..24).map(|_| payload_size(rng, k)).collect();
                let case = case_of_sizes(rng, &sizes, 0);
                let mut dut = PayloadWriterRtl::new(width).unwrap_or_else(|e| panic!("{e}"));
                let run = run_checked(&mut dut, &case, traffic, timing);
                let ctx = describe(width, traffic, timing);
                assert_eq!(
                    (run.cmd_valid_cycles, run.wr_valid_cycles),
                    (0, 0),
                    "{ctx}: m_cmd_valid or m_wr_tvalid was high"
                );
                assert_eq!((run.written, run.discarded), (0, sizes.len() as u32), "{ctx}: counters");
            }
        }
    }
}

#[test]
fn one_beat_payloads_move_at_one_per_two_cycles() {
    const PAYLOADS: usize = 256;
    for width in WIDTHS {
        let k = width / 8;
        for (what, write_pct) in [("written", 100), ("discarded", 0), ("half written", 50)] {
            let rng = &mut ChaCha8Rng::seed_from_u64(0x5eed_0004 ^ width as u64);
            let sizes: Vec<usize> = (0..PAYLOADS).map(|_| rng.gen_range(1..=k)).collect();
            let mut case = case_of_sizes(rng, &sizes, write_pct);
            case.decisions.retain(WriteDecision::has_payload);
            let mut dut = PayloadWriterRtl::new(width).unwrap_or_else(|e| panic!("{e}"));
            let run = run_checked(&mut dut, &case, Traffic::FULL, DecisionTiming::Free);
            let per_payload = run.cycles as f64 / PAYLOADS as f64;
            println!(
                "{width} bits, one-beat payloads {what}: {} cycles for {PAYLOADS}, {per_payload:.2} cycles per payload",
                run.cycles
            );
            assert!(
                per_payload <= 4.0,
                "{width} bits, {what}: {per_payload:.2} cycles per one-beat payload (at most 4)"
            );
        }
    }
}

/// Eight 4 KiB payloads written with nothing stalling: output beats per cycle from the first
/// beat out to the last (the first payload's wait for its decision is latency, not rate).
fn four_kib_rate(width: usize, timing: DecisionTiming) -> f64 {
    let rng = &mut ChaCha8Rng::seed_from_u64(0x5eed_0005 ^ width as u64);
    let case = case_of_sizes(rng, &[MAX_PAYLOAD; 8], 100);
    let mut dut = PayloadWriterRtl::new(width).unwrap_or_else(|e| panic!("{e}"));
    let run = run_checked(&mut dut, &case, Traffic::FULL, timing);
    let (first, last) = (run.first_beat_out.expect("beats out"), run.last_beat_out.expect("beats out"));
    let rate = run.beats_out as f64 / (last - first + 1) as f64;
    println!(
        "{width} bits, 8 payloads of 4 KiB written, decisions {timing:?}: {} beats out in cycles {first} to {last} \
         ({rate:.3} beats per cycle), s_pay refused {} cycles",
        run.beats_out, run.input_stall_cycles
    );
    rate
}

#[test]
fn four_kib_payloads_are_written_at_one_beat_per_cycle() {
    for width in WIDTHS {
        let rate = four_kib_rate(width, DecisionTiming::Free);
        assert!(rate >= 0.9, "{width} bits: {rate:.3} beats per cycle (at least 0.9)");
    }
}

#[test]
fn the_responder_latency_is_hidden_behind_the_next_payload() {
    for width in WIDTHS {
        let rate = four_kib_rate(width, DecisionTiming::AfterPayload { delay: RESPONDER_DELAY });
        assert!(
            rate >= 0.9,
            "{width} bits, decisions {RESPONDER_DELAY} cycles after their payload: {rate:.3} beats per cycle (at least 0.9)"
        );
    }
}

#[test]
fn a_reset_mid_run_leaves_a_clean_writer() {
    for width in WIDTHS {
        let k = width / 8;
        let rng = &mut ChaCha8Rng::seed_from_u64(0x5eed_0006 ^ width as u64);
        let traffic = Traffic {
            idle_pct: 30,
            bp_pct: 30,
            seed: 0x5eed_0006,
        };
        let mut dut = PayloadWriterRtl::new(width).unwrap_or_else(|e| panic!("{e}"));
        let cut_case = random_case(rng, k, 12);
        let whole = run_checked(&mut dut, &cut_case, traffic, DecisionTiming::Free);
        // cuts early (a payload half in, a decision taken, a command pending) and anywhere
        let mut cuts = vec![1, 2, 3, 5, 8, 13];
        cuts.extend((0..6).map(|_| rng.gen_range(1..whole.cycles)));
        for cut in cuts {
            let ctx = format!("{width} bits, reset after {cut} of {} cycles", whole.cycles);
            dut.reset();
            let part = dut
                .run_for(&cut_case.payloads, &cut_case.decisions, traffic, DecisionTiming::Free, Some(cut))
                .unwrap_or_else(|e| panic!("{ctx}: the cut run: {e}"));
            assert!(!part.complete, "{ctx}: the run ended before the cut");
            dut.reset();
            assert_eq!(dut.counters(), (0, 0), "{ctx}: counters after reset");
            dut.idle(32).unwrap_or_else(|e| panic!("{ctx}: {e}"));
            let clean = random_case(rng, k, 8);
            for timing in [DecisionTiming::Free, DecisionTiming::AfterPayload { delay: RESPONDER_DELAY }] {
                let want = expected(&clean.payloads, &clean.decisions).expect("consistent case");
                let run = dut
                    .run(&clean.payloads, &clean.decisions, traffic, timing)
                    .unwrap_or_else(|e| panic!("{ctx}, then a clean run ({timing:?}): {e}"));
                run.check(&want)
                    .unwrap_or_else(|e| panic!("{ctx}, then a clean run ({timing:?}): {e}"));
                dut.reset();
            }
        }
    }
}
