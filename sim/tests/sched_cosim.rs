//! The scheduler RTL (Verilator model of `ferroce_sched_*`) against the cycle-accurate software
//! model: every output compared every cycle, on closed-loop random traffic, on proptest-generated
//! open-loop sequences, on saturated fairness runs, and on trace replay.

use ferroce_sim::sched::{
    cfg_word, cosim, fairness, parse_trace, run_trace, starvation_bound, SchedConfig, SchedEngine, SchedIn, SchedModel, DECISION_LATENCY,
    REG_LIMIT, REQUESTERS,
};
use ferroce_sim::sched_rtl::{SchedRtl, RTL_CONFIGS};
use proptest::prelude::*;
use proptest::test_runner::FileFailurePersistence;

fn engines(cfg: SchedConfig) -> (SchedRtl, SchedModel) {
    (
        SchedRtl::new(cfg).expect("Verilator scheduler model"),
        SchedModel::new(cfg).unwrap(),
    )
}

/// At least 100,000 operations (enqueue attempts that reach the commit stage, decisions,
/// register writes) per configuration, identical outputs every cycle.
#[test]
fn rtl_matches_model_on_random_traffic() {
    let variants = RTL_CONFIGS.iter().map(|&c| (c, true)).chain([(SchedConfig::default(), false)]);
    for (cfg, tb) in variants {
        let (mut rtl, mut model) = if tb {
            engines(cfg)
        } else {
            (
                SchedRtl::without_token_buckets(cfg).unwrap(),
                SchedModel::without_token_buckets(cfg).unwrap(),
            )
        };
        let mut ops = 0u64;
        let mut seed = 0;
        let (mut same_cycle_last, mut back_to_back, mut full, mut drained, mut dups, mut dup_deq, mut bad, mut writes) =
            (0, 0, 0, 0, 0, 0, 0, 0);
        while ops < 100_000 {
            seed += 1;
            let s = cosim(&mut rtl, &mut model, seed, 50_000).unwrap_or_else(|e| panic!("{cfg:?} seed {seed}: {e}"));
            ops += s.enqueues + s.dups + s.bad_queues + s.dequeues + s.empty_decisions + s.cfg_writes;
            same_cycle_last += s.same_cycle_enq_deq_last;
            back_to_back += s.back_to_back_same_queue;
            full += s.pool_full;
            drained += s.drained;
            dups += s.dups;
            dup_deq += s.dup_of_dequeued;
            bad += s.bad_queues;
            writes += s.cfg_writes;
        }
        eprintln!("{cfg:?} token buckets {tb}: {ops} operations over {seed} runs; same-cycle enq+deq on a 1-element queue {same_cycle_last}, back-to-back {back_to_back}, pool full {full}, drained {drained}, dups {dups} ({dup_deq} of the element being dequeued), bad queue {bad}, register writes {writes}");
        assert!(
            same_cycle_last > 0 && back_to_back > 0 && dups > 0 && dup_deq > 0 && writes > 0,
            "{cfg:?}: the random traffic missed a case"
        );
        if cfg.queues < 32 {
            assert!(
                bad > 0 && full > 0 && drained > 0,
                "{cfg:?}: the random traffic missed the full/empty/bad-queue edges"
            );
        }
    }
}

/// One open-loop cycle drawn by proptest: requests on every requester, a decision, a stall mask,
/// sometimes a register write.
fn cycle(nodes: u32, queues: u32) -> impl Strategy<Value = SchedIn> {
    let req = proptest::option::weighted(0.5, (0..queues + 1, 0..nodes));
    (
        [req.clone(), req.clone(), req.clone(), req],
        proptest::bool::weighted(0.6),
        prop_oneof![4 => Just(0u32), 1 => any::<u32>()],
        proptest::option::weighted(0.05, (prop_oneof![0..queues, Just(REG_LIMIT)], any::<u32>())),
    )
        .prop_map(|(enq, deq, stall, cfg)| SchedIn { enq, deq, stall, cfg })
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 64,
        failure_persistence: Some(Box::new(FileFailurePersistence::Direct("proptest-regressions/sched_cosim.txt"))),
        ..ProptestConfig::default()
    })]
    /// Shrunk failures are kept by proptest in `proptest-regressions/sched_cosim.txt` and replayed
    /// first on every run.
    #[test]
    fn rtl_matches_model_open_loop(ops in proptest::collection::vec(cycle(64, 5), 1..400)) {
        let cfg = SchedConfig::SMALL;
        let (mut rtl, mut model) = engines(cfg);
        for _ in 0..cfg.nodes() {
            prop_assert_eq!(rtl.step(&SchedIn::default()), model.step(&SchedIn::default()));
        }
        for (i, c) in ops.iter().enumerate() {
            let (a, b) = (rtl.step(c), model.step(c));
            prop_assert_eq!(a, b, "cycle {} after init, inputs {:?}", i, c);
        }
        let idle = SchedIn::default();
        prop_assert_eq!(rtl.step(&idle), model.step(&idle));
    }
}

/// Saturated queues: each queue's share over 100,000 decisions matches its weight within 1 %,
/// the largest gap between two services of a queue stays within the stated bound, and the RTL
/// makes the same decisions as the model.
#[test]
fn fairness_and_starvation_bound_in_rtl() {
    let cfg = SchedConfig::default();
    let (mut rtl, mut model) = engines(cfg);
    let weights: Vec<(u32, u8, bool)> = vec![
        (1, 1, true),
        (2, 2, true),
        (3, 5, true),
        (7, 17, true),
        (9, 3, false),
        (20, 1, false),
        (31, 255, true),
    ];
    for limit in [0u8, 3, 255] {
        let r = fairness(&mut rtl, &weights, limit, 100_000);
        let m = fairness(&mut model, &weights, limit, 100_000);
        assert_eq!(r, m, "limit {limit}: RTL and model decided differently");
        assert_eq!((r.empty, r.other), (0, 0));
        let total = |high: bool| weights.iter().filter(|w| w.2 == high).map(|w| w.1 as f64).sum::<f64>();
        let high_share: f64 = weights.iter().filter(|w| w.2).map(|w| r.get(w.0).unwrap().share).sum();
        for &(q, w, high) in &weights {
            let s = r.get(q).unwrap();
            // inside its table, the queue's part of the table's decisions matches its weight
            let table_share = if high { high_share } else { 1.0 - high_share };
            let expect = w as f64 / total(high);
            let got = s.share / table_share;
            assert!(
                (got - expect).abs() <= 0.01 * expect,
                "limit {limit} queue {q}: {got:.5} of its table vs weight share {expect:.5}"
            );
            let bound = starvation_bound(&weights, limit, q);
            let gap = s.max_gap.expect("served at least twice");
            assert!(gap <= bound, "limit {limit} queue {q}: gap {gap} over the bound {bound}");
        }
        // the limit of high priority: with both tables saturated, low gets 1 decision in L + 2
        let low = 1.0 - high_share;
        let expect_low = 1.0 / (limit as f64 + 2.0);
        assert!(
            (low - expect_low).abs() <= 0.01 * expect_low + 1e-4,
            "limit {limit}: low share {low:.5}, expected {expect_low:.5}"
        );
    }
}

/// Trace replay prints the same lines on both engines (the CLI runs exactly this).
#[test]
fn trace_replay_identical_on_both_engines() {
    let cfg = SchedConfig::default();
    let mut text = String::from("# generated\n");
    let mut x = 0x2545_f491_4f6c_dd1du64;
    let mut rnd = |n: u64| {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x % n
    };
    for _ in 0..3000 {
        match rnd(10) {
            0..=4 => text += &format!("enq {} {}\n", rnd(32), rnd(2048)),
            5..=7 => text += "deq\n",
            8 => text += &format!("weight {} {}\n", 1 + rnd(31), rnd(256)),
            _ => text += &format!("tick {}\n", rnd(4)),
        }
    }
    let ops = parse_trace(&text, &cfg).unwrap();
    let (mut rtl, mut model) = engines(cfg);
    let a = run_trace(&mut rtl, &ops);
    let b = run_trace(&mut model, &ops);
    assert!(a.iter().filter(|l| *l != "empty").count() > 500);
    assert_eq!(a, b);
}

/// Enqueue-to-dequeue latency and sustained operations per cycle, measured on the RTL (the
/// figures of docs/performance.md).
#[test]
fn rtl_throughput_and_latency() {
    let cfg = SchedConfig::default();
    let (mut rtl, _) = engines(cfg);
    let idle = SchedIn::default();
    while !rtl.step(&idle).init_done {}
    // latency: request in cycle 0, the earliest decision that serves it, its result visible
    let mut i = idle.clone();
    i.enq[0] = Some((5, 77));
    rtl.step(&i);
    let mut cycles = 1;
    let mut deq = idle.clone();
    deq.deq = true;
    loop {
        let o = rtl.step(&deq);
        if o.deq_ok {
            assert_eq!((o.deq_queue, o.deq_elem), (5, 77));
            break;
        }
        cycles += 1;
        assert!(cycles < 10);
    }
    // accepted in 0, committed in 1, decided in 2, on the outputs DECISION_LATENCY later
    assert_eq!(cycles, 2 + DECISION_LATENCY, "enqueue request to dequeued result");
    assert_eq!(
        DECISION_LATENCY,
        ferroce_hdl::sched::DECISION_LATENCY,
        "the model's and the RTL's latency"
    );
    // sustained: one enqueue and one decision every cycle, elements recirculating through 8 queues
    let _ = rtl.step(&idle);
    let (mut enq, mut served) = (0u64, 0u64);
    let mut pending: std::collections::VecDeque<(u32, u32)> = (0..512).map(|e| (1 + e % 8, e)).collect();
    let n = 20_000;
    for _ in 0..n {
        let mut c = idle.clone();
        c.deq = true;
        c.enq[0] = pending.front().copied();
        let o = rtl.step(&c);
        if o.enq_ready[0] && c.enq[0].is_some() {
            pending.pop_front();
            enq += 1;
        }
        if o.deq_ok {
            served += 1;
            pending.push_back((o.deq_queue, o.deq_elem));
        }
        assert_eq!(o.cnt_dup, 0);
    }
    assert_eq!(cfg_word(1, 0, 0, true, false), 0x0100_0001);
    let (e, d) = (enq as f64 / n as f64, served as f64 / n as f64);
    eprintln!("sustained: {e:.4} enqueues and {d:.4} dequeues per cycle");
    assert!(e > 0.999 && d > 0.999, "{e} {d}");
    let _ = REQUESTERS;
}
