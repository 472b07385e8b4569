//! The retry timer's RTL (`ferroce_retry_timer_q16`) against its cycle model
//! (`ferroce_models::tx::retry`), every output of every cycle, under random idle and
//! backpressure; and its waits against the InfiniBand numbers themselves (4.096 µs × 2^n for the
//! local ACK timeout, the RNR timer table in milliseconds), not against the contract's tables.

use ferroce_sim::contracts::reliability::{TimerAction, TimerEvent, EVENTS_PER_SCAN, TICK_NANOS};
use ferroce_sim::models::tx::retry::{Event, RawEvent, OPERATION_CYCLES};
use ferroce_sim::retry_timer_rtl::{run, Exchange, Stimulus, TimerRun, QPS};
use ferroce_sim::verilated::Traffic;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::BTreeSet;

/// A requester's events at random: sends with short timeouts, progress, idle, both NAKs,
/// clears; now and then a QP beyond the table, a code that is no event, or a reset.
fn random_script(seed: u64, events: usize) -> Vec<Stimulus> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut script = Vec::with_capacity(events);
    for _ in 0..events {
        if rng.gen_bool(0.005) {
            script.push(Stimulus::Reset);
            continue;
        }
        let qp = match rng.gen_range(0..100) {
            0 => rng.gen_range(QPS..0x100_0000),
            _ => rng.gen_range(0..QPS),
        };
        let kind = match rng.gen_range(0..100) {
            0..=39 => TimerEvent::Sent.code(),
            40..=59 => TimerEvent::Progress.code(),
            60..=69 => TimerEvent::Idle.code(),
            70..=81 => TimerEvent::SequenceNak.code(),
            82..=94 => TimerEvent::RnrNak.code(),
            95..=97 => TimerEvent::Clear.code(),
            _ => rng.gen_range(6..8),
        };
        let event = RawEvent {
            qp,
            kind,
            timeout: [0, 1, 2, 3, 4, 5, 31][rng.gen_range(0..7)],
            retry: rng.gen_range(0..8),
            rnr_retry: rng.gen_range(0..8),
            rnr_timer: [0, 1, 2, 3, 5, 31][rng.gen_range(0..6)],
        };
        script.push(Stimulus::Event {
            gap: rng.gen_range(0..60),
            event,
        });
    }
    script
}

#[test]
fn random_events_match_the_model_cycle_by_cycle() {
    let mut actions = BTreeSet::new();
    let mut ignored = 0;
    for (i, traffic) in Traffic::four_ways(7).into_iter().enumerate() {
        for tick_cycles in [1u16, 3] {
            let seed = i as u64 * 10 + u64::from(tick_cycles);
            let script = random_script(seed, 1500);
            let got = run(&script, tick_cycles, 2_000, Traffic { seed, ..traffic })
                .unwrap_or_else(|e| panic!("{traffic:?}, {tick_cycles} cycles a tick: {e}"));
            actions.extend(got.actions().iter().map(|a| a.1.code()));
            ignored += got.exchanges.iter().filter(|x| x.2 == Exchange::Ignored).count();
        }
    }
    // the runs saw every action and ignored events
    assert_eq!(actions.len(), TimerAction::ALL.len(), "{actions:?}");
    assert!(ignored > 0);
}

/// The IBTA's RNR timer values of some codes, in microseconds, as the table prints them.
const RNR_MICROS: [(u8, u64); 4] = [(1, 10), (3, 30), (7, 120), (9, 240)];

/// Nanoseconds of `cycles` at `tick_cycles` cycles per 4.096 µs.
fn nanos(cycles: u64, tick_cycles: u16) -> u64 {
    cycles * TICK_NANOS / u64::from(tick_cycles)
}

/// The cycle of each exchange that matches `f`.
fn cycles_of(run: &TimerRun, f: impl Fn(&Exchange) -> bool) -> Vec<u64> {
    run.exchanges.iter().filter(|x| f(&x.2)).map(|x| x.0).collect()
}

/// How late an expiry may be seen: the tick's phase, a scan round with events in between
/// (`EVENTS_PER_SCAN + 1` operations per QP), and the action's hand-over.
fn lateness(tick_cycles: u16) -> u64 {
    let round = u64::from(QPS) * u64::from(EVENTS_PER_SCAN + 1) * u64::from(OPERATION_CYCLES + 1);
    nanos(2 * u64::from(tick_cycles), tick_cycles) + nanos(round + 4, tick_cycles)
}

fn sent(qp: u32, timeout: u8, retry: u8, rnr_retry: u8) -> Stimulus {
    let event = Event {
        timeout,
        retry,
        rnr_retry,
        ..Event::new(qp, TimerEvent::Sent)
    };
    Stimulus::Event {
        gap: 0,
        event: event.into(),
    }
}

fn event(qp: u32, kind: TimerEvent, gap: u32, rnr_timer: u8) -> Stimulus {
    let event = Event {
        rnr_timer,
        ..Event::new(qp, kind)
    };
    Stimulus::Event { gap, event: event.into() }
}

#[test]
fn a_timeout_lasts_4_096_us_times_two_to_the_exponent_and_retries_as_counted() {
    for tick_cycles in [16u16, 64] {
        for exponent in [3u8, 6] {
            let timeout = 4096 * (1u64 << exponent);
            let tail = 4 * nanos_to_cycles(timeout + lateness(tick_cycles), tick_cycles);
            let got = run(&[sent(3, exponent, 2, 0)], tick_cycles, tail, Traffic::FULL).unwrap();
            // two retries, then the error; nothing else
            let actions = got.actions();
            let kinds: Vec<TimerAction> = actions.iter().map(|a| a.1).collect();
            assert_eq!(
                kinds,
                [TimerAction::Timeout, TimerAction::Timeout, TimerAction::RetriesExhausted],
                "2^{exponent}"
            );
            assert!(actions.iter().all(|a| a.0 == 3));
            let mut at = cycles_of(&got, |x| matches!(x, Exchange::Event(_)));
            at.extend(cycles_of(&got, |x| matches!(x, Exchange::Action(..))));
            for (i, pair) in at.windows(2).enumerate() {
                let waited = nanos(pair[1] - pair[0], tick_cycles);
                // after a retry the timer restarts when its operation reads the time, up to
                // an operation before the action is handed over
                let early = if i == 0 {
                    0
                } else {
                    nanos(u64::from(OPERATION_CYCLES) + 1, tick_cycles)
                };
                let what = format!("2^{exponent} at {tick_cycles} cycles a tick, wait {i}: {waited} ns for {timeout} ns");
                assert!(waited + early >= timeout, "{what}");
                assert!(waited <= timeout + lateness(tick_cycles), "{what}: late");
            }
        }
    }
}

fn nanos_to_cycles(nanos: u64, tick_cycles: u16) -> u64 {
    (nanos * u64::from(tick_cycles)).div_ceil(TICK_NANOS)
}

#[test]
fn an_rnr_nak_waits_its_timer_and_the_rnr_retries_run_out() {
    let tick_cycles = 4;
    for (code, micros) in RNR_MICROS {
        let wait = micros * 1000;
        let gap = nanos_to_cycles(wait + lateness(tick_cycles), tick_cycles) as u32;
        // no transport timeout; two RNR retries: two waits, then the error at the third NAK
        let script = [
            sent(5, 0, 0, 2),
            event(5, TimerEvent::RnrNak, 0, code),
            event(5, TimerEvent::RnrNak, gap, code),
            event(5, TimerEvent::RnrNak, gap, code),
        ];
        let got = run(&script, tick_cycles, 100, Traffic::FULL).unwrap();
        let kinds: Vec<TimerAction> = got.actions().iter().map(|a| a.1).collect();
        assert_eq!(
            kinds,
            [TimerAction::RnrWaited, TimerAction::RnrWaited, TimerAction::RnrRetriesExhausted],
            "code {code}"
        );
        let naks = cycles_of(&got, |x| matches!(x, Exchange::Event(e) if e.kind == TimerEvent::RnrNak.code()));
        let waited = cycles_of(&got, |x| matches!(x, Exchange::Action(_, TimerAction::RnrWaited)));
        for (nak, done) in naks.iter().zip(&waited) {
            let ns = nanos(done - nak, tick_cycles);
            assert!(
                ns >= wait && ns <= wait + lateness(tick_cycles),
                "code {code}: waited {ns} ns for {wait} ns"
            );
        }
    }
}

#[test]
fn rnr_retry_seven_retries_for_ever() {
    let mut script = vec![sent(9, 0, 0, 7)];
    for _ in 0..12 {
        script.push(event(9, TimerEvent::RnrNak, 300, 1));
    }
    let got = run(&script, 1, 200, Traffic::FULL).unwrap();
    assert_eq!(got.actions(), vec![(9, TimerAction::RnrWaited); 12]);
}

#[test]
fn progress_restarts_the_timeout_and_idle_stops_it() {
    let tick_cycles = 2;
    let timeout = 4096 * 32;
    let short = nanos_to_cycles(timeout / 2, tick_cycles) as u32;
    let mut script = vec![sent(1, 5, 0, 0)];
    for _ in 0..10 {
        script.push(event(1, TimerEvent::Progress, short, 0));
    }
    script.push(event(1, TimerEvent::Idle, short, 0));
    let got = run(&script, tick_cycles, 8 * nanos_to_cycles(timeout, tick_cycles), Traffic::FULL).unwrap();
    assert!(got.actions().is_empty(), "{:?}", got.actions());
    // without the progress, the same QP times out (no retries: the error at once)
    let got = run(
        &[sent(1, 5, 0, 0)],
        tick_cycles,
        2 * nanos_to_cycles(timeout + lateness(tick_cycles), tick_cycles),
        Traffic::FULL,
    )
    .unwrap();
    assert_eq!(got.actions(), [(1, TimerAction::RetriesExhausted)]);
}

#[test]
fn a_sequence_nak_retries_at_once_within_the_same_count() {
    let script = [
        sent(2, 0, 1, 0),
        event(2, TimerEvent::SequenceNak, 0, 0),
        event(2, TimerEvent::SequenceNak, 0, 0),
        event(2, TimerEvent::Progress, 0, 0),
        event(2, TimerEvent::SequenceNak, 0, 0),
    ];
    let got = run(&script, 1, 100, Traffic::FULL).unwrap();
    assert_eq!(
        got.actions(),
        [
            (2, TimerAction::Retransmit),
            (2, TimerAction::RetriesExhausted),
            (2, TimerAction::Retransmit)
        ]
    );
}
