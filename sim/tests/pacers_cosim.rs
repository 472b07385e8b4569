//! The queue pacers' Verilog (`ferroce_pacers_q32`, lead 0; `ferroce_pacers_q8_lead3`) against
//! the golden model (`ferroce_models::stream::Pacer`, one per queue), every queue's `paused` bit
//! in every cycle: random costs (0: not paced, up to 4 cycles a byte with any fraction), groups
//! of 0 to 4096 bytes charged at random, most once their queue may start, some while it waits,
//! some in bursts over many queues and on one queue; a FIFO that overflows; a deadline left
//! 2^23 cycles and more behind; and a backlogged queue whose groups are charged as soon as it
//! may start leaves at its rate.

use ferroce_sim::models::contracts::sched::{pace_cost, PACE_FRACTION_BITS};
use ferroce_sim::models::stream::Pacer;
use ferroce_sim::pacers_rtl::{run, variant, Charge, CHARGE_INTERVAL, CHARGE_LATENCY};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// A random cost: 0 one time in eight, else up to `whole` cycles a byte with any fraction.
fn cost(rng: &mut ChaCha8Rng, whole: u32) -> u32 {
    if rng.gen_ratio(1, 8) {
        0
    } else {
        rng.gen_range(1..whole << PACE_FRACTION_BITS)
    }
}

fn bytes(rng: &mut ChaCha8Rng) -> u32 {
    match rng.gen_range(0..5) {
        0 => 0,
        1 => 4096,
        2 => rng.gen_range(1..64),
        _ => rng.gen_range(1..4096),
    }
}

#[test]
fn every_queue_waits_as_the_model_says() {
    for (queues, seed) in [(32, 1u64), (8, 2), (8, 3)] {
        let (_, lead, slack) = variant(queues).unwrap();
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let costs: Vec<u32> = (0..queues).map(|_| cost(&mut rng, 4)).collect();
        // the schedule's own pacers tell when a queue may start (pending charges aside)
        let mut pacers: Vec<Pacer> = costs.iter().map(|&c| Pacer::with_cost(u64::from(c))).collect();
        let mut charges = Vec::new();
        let mut t = 0;
        while t < 150_000 {
            t += rng.gen_range(1..40);
            let queue = rng.gen_range(0..queues);
            // one time in eight also while it waits (as a decision in flight when the pause shows)
            if pacers[queue].waits(t + lead) && !rng.gen_ratio(1, 8) {
                continue;
            }
            let group = bytes(&mut rng);
            charges.push(Charge {
                cycle: t,
                queue,
                bytes: group,
            });
            pacers[queue].start(t, group);
            // now and then a burst: charges in back-to-back cycles, on many queues or on this one
            if rng.gen_ratio(1, 10) {
                let same = rng.gen_bool(0.5);
                for _ in 0..rng.gen_range(1..8) {
                    t += 1;
                    let queue = if same { queue } else { rng.gen_range(0..queues) };
                    let group = bytes(&mut rng);
                    charges.push(Charge {
                        cycle: t,
                        queue,
                        bytes: group,
                    });
                    pacers[queue].start(t, group);
                }
            }
        }
        let cycles = t + 300_000;
        let got = run(&costs, &charges, cycles).unwrap_or_else(|e| panic!("q{queues} seed {seed}: {e}"));
        println!(
            "q{queues} lead {lead} slack {slack} seed {seed}: {} charges, {} counted, {} queue-cycles paused",
            charges.len(),
            got.counted.len(),
            got.paused
        );
        assert_eq!(got.lost, 0);
        assert!(got.paused > cycles, "the queues were paced: {}", got.paused);
    }
}

/// 48 charges in 48 back-to-back cycles: the FIFO holds 32 and takes one each
/// `CHARGE_INTERVAL` cycles, so the last ones are refused (`lost`), their queues not paused for
/// them; those taken are counted in order, `CHARGE_INTERVAL` apart.
#[test]
fn a_full_fifo_refuses_charges_and_counts_the_rest_in_order() {
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let costs: Vec<u32> = (0..32).map(|_| rng.gen_range(1..2 << PACE_FRACTION_BITS)).collect();
    let charges: Vec<Charge> = (0..48)
        .map(|i| Charge {
            cycle: 10 + i,
            queue: rng.gen_range(0..32),
            bytes: rng.gen_range(0..=4096),
        })
        .collect();
    let got = run(&costs, &charges, 40_000).unwrap_or_else(|e| panic!("{e}"));
    println!("48 charges: {} lost, counted at {:?}", got.lost, got.counted);
    assert!(got.lost > 0 && got.lost < 16, "{}", got.lost);
    assert_eq!(got.counted.len() as u64 + got.lost, 48);
    assert_eq!(got.counted[0], 10 + CHARGE_LATENCY);
    assert!(got.counted.windows(2).all(|w| w[1] - w[0] == CHARGE_INTERVAL));
}

/// A queue charged, then idle for about 2^23 + 2^22 cycles (where a 24-bit comparison of its
/// old deadline with the arrival wraps), charged again: the old deadline counts as passed; and
/// again after some 2^22 cycles.
#[test]
fn a_deadline_left_far_behind_counts_as_passed() {
    let mut costs = [0u32; 8];
    costs[2] = 3 << PACE_FRACTION_BITS;
    let mut charges = Vec::new();
    for (i, at) in [100u64, (1 << 23) + (1 << 22) + 5000, (1 << 24) + 77].into_iter().enumerate() {
        for k in 0..3 {
            charges.push(Charge {
                cycle: at + 20_000 * k,
                queue: 2,
                bytes: 1000 + i as u32,
            });
        }
    }
    let cycles = (1 << 24) + 200_000;
    let got = run(&costs, &charges, cycles).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(got.counted.len(), charges.len());
}

/// The CMAC's clock.
const CLOCK: u64 = 322_265_625;

/// The charges of a backlogged queue at 1 GB/s on the 8-queue variant (lead 3, slack 256): each
/// group of 1024 bytes charged the first cycle its `paused` bit allows (as the scheduler would
/// decide it; a charge is pending until `CHARGE_LATENCY` after it, then the queue waits while
/// its pacer waits at c + lead), `late(i)` cycles later. Returns the cost, the charges and the
/// cycle after the last one's wait.
fn backlogged(queue: usize, groups: usize, mut late: impl FnMut(usize) -> u64) -> (u32, Vec<Charge>, u64) {
    let (_, lead, slack) = variant(8).unwrap();
    let cost = pace_cost(1_000_000_000, CLOCK) as u32;
    let mut pacer = Pacer::with_cost(u64::from(cost));
    let mut charges = Vec::new();
    let mut r = 100;
    for i in 0..groups {
        charges.push(Charge {
            cycle: r,
            queue,
            bytes: 1024,
        });
        pacer.start_within(r, 1024, slack);
        r += CHARGE_LATENCY + 1;
        while pacer.waits(r + lead) {
            r += 1;
        }
        r += late(i);
    }
    (cost, charges, r)
}

/// Payload bytes per second of 1024-byte groups charged from `charges[first]` to the last.
fn rate_from(charges: &[Charge], first: usize) -> f64 {
    let span = charges.last().unwrap().cycle - charges[first].cycle;
    (charges.len() - 1 - first) as f64 * 1024.0 * CLOCK as f64 / span as f64
}

/// One backlogged queue at 1 GB/s on the variant whose pauses lift 3 cycles early: each group is
/// charged before the queue's `next` and counts from there: from the second group on (the
/// first starts the queue from idle), the rate is the set rate to the fraction of a cycle.
#[test]
fn a_backlogged_queue_leaves_at_its_rate() {
    let (cost, charges, end) = backlogged(0, 200, |_| 0);
    let mut costs = [0; 8];
    costs[0] = cost;
    let got = run(&costs, &charges, end + 2000).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(got.counted.len(), 200);
    let rate = rate_from(&charges, 1);
    println!(
        "198 groups of 1024 bytes charged over {} cycles: {:.6} GB/s",
        charges[199].cycle - charges[1].cycle,
        rate / 1e9
    );
    assert!((rate / 1e9 - 1.0).abs() < 2e-5, "{rate}");
}

/// A backlogged queue whose charges come late, up to 250 cycles after its `next` (its decisions
/// delayed by other traffic), on the variant with 256 cycles of slack: it keeps its schedule and
/// its rate; charges 300 cycles late and more restart it from the charge.
#[test]
fn late_charges_within_the_slack_keep_the_rate() {
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    // within the slack, but from group 300 on beyond it
    let (cost, charges, end) = backlogged(5, 400, |i| if i < 300 { rng.gen_range(0..250) } else { rng.gen_range(300..400) });
    let mut costs = [0; 8];
    costs[5] = cost;
    let got = run(&costs, &charges, end + 2000).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(got.counted.len(), 400);
    // within the slack the lateness is caught up: the groups to the end of the late stretch
    // leave at the rate; beyond it each group loses its lateness
    let within = rate_from(&charges[..300], 101);
    let beyond = rate_from(&charges, 301);
    println!(
        "late within the slack: {:.4} GB/s; beyond it: {:.4} GB/s",
        within / 1e9,
        beyond / 1e9
    );
    assert!((within / 1e9 - 1.0).abs() < 0.002, "{within}");
    assert!(beyond / 1e9 < 0.6, "{beyond}");
}
