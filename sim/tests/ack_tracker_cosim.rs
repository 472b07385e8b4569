//! The ACK tracker's RTL (`ferroce_ack_tracker_c64_q16`) against its model
//! (`ferroce_models::tx::acknowledge`), completion for completion, under random idle and
//! backpressure: transfers on RC and UC QPs as a requester sends them (PSNs contiguous per QP,
//! from near the 2^24 wrap; an RC transfer recorded before its packets, sometimes with ACKs of
//! older ones in between), coalesced ACKs, every NAK kind, reserved syndromes, ACKs outside
//! the window, for QPs that sent nothing and for QPs beyond the table; the retry timer's
//! actions of every kind (rewinds with and without a PSN acknowledged, exhausted retries
//! failing a QP) and the host's clears, with the releases, timer notices and rewinds that
//! come out.

use ferroce_sim::ack_tracker_rtl::{expected, run, TrackerEvent, CHANNELS, QPS};
use ferroce_sim::contracts::reliability::{TimerAction, TimerEvent};
use ferroce_sim::contracts::responder::{NakCode, Syndrome};
use ferroce_sim::contracts::tx::CompletionStatus;
use ferroce_sim::models::tx::acknowledge::AckTracker;
use ferroce_sim::verilated::Traffic;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

const PSN_MASK: u32 = 0xFF_FFFF;

/// A random requester's events: `transfers` transfers on `QPS` QPs (the odd ones UC), each
/// posted on a free channel, its packets, its sent event, and ACKs and NAKs in between. The
/// model runs alongside to know which channels are free again.
fn random_events(seed: u64, transfers: usize) -> Vec<TrackerEvent> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut model = AckTracker::new();
    let mut next_psn: Vec<u32> = (0..QPS).map(|_| rng.gen_range(0xFF_FF00..0xFF_FFFF)).collect();
    let mut busy = vec![false; CHANNELS as usize];
    let mut events = Vec::new();
    let syndromes = [
        Syndrome::ack().encode(),
        Syndrome::Ack { credit: 0 }.encode(),
        Syndrome::Nak(NakCode::PsnSequenceError).encode(),
        Syndrome::Nak(NakCode::InvalidRequest).encode(),
        Syndrome::Nak(NakCode::RemoteAccessError).encode(),
        Syndrome::Nak(NakCode::RemoteOperationalError).encode(),
        Syndrome::Nak(NakCode::InvalidRdRequest).encode(),
        Syndrome::RnrNak { timer: 14 }.encode(),
        0x80,
        0x45,
        0x7F,
    ];
    for _ in 0..transfers {
        // a transfer on a free channel
        let free: Vec<u16> = (0..CHANNELS).filter(|&c| !busy[c as usize]).collect();
        if let Some(&channel) = free.get(rng.gen_range(0..free.len().max(1))) {
            let qp = rng.gen_range(0..QPS);
            let reliable = qp % 2 == 0;
            let packets = rng.gen_range(1..=4);
            if reliable {
                let last_psn = (next_psn[qp as usize] + packets - 1) & PSN_MASK;
                push(&mut events, &mut busy, &mut model, TrackerEvent::Record { qp, last_psn });
                if rng.gen_bool(0.2) {
                    // an answer to what the QP sent before, while this transfer waits to leave
                    let psn = (next_psn[qp as usize] + PSN_MASK - rng.gen_range(0..3)) & PSN_MASK;
                    let syndrome = Syndrome::ack().encode();
                    push(&mut events, &mut busy, &mut model, TrackerEvent::Ack { qp, psn, syndrome });
                }
            }
            for p in 0..packets {
                let psn = next_psn[qp as usize];
                next_psn[qp as usize] = (psn + 1) & PSN_MASK;
                let last = p + 1 == packets;
                push(
                    &mut events,
                    &mut busy,
                    &mut model,
                    TrackerEvent::Packet {
                        channel,
                        qp,
                        psn,
                        last,
                        reliable,
                    },
                );
            }
            let status = if rng.gen_bool(0.05) {
                CompletionStatus::LocalMemoryError
            } else {
                CompletionStatus::Success
            };
            let last_psn = (next_psn[qp as usize] + PSN_MASK) & PSN_MASK;
            if model.transfer_sent(channel, qp, last_psn, reliable, status).is_none() {
                busy[channel as usize] = true;
            }
            push(&mut events, &mut busy, &mut model, TrackerEvent::Sent { channel, status });
        }
        // ACKs: mostly covering part of what was sent, some stale, ahead or odd
        for _ in 0..rng.gen_range(0..3) {
            let qp = if rng.gen_bool(0.03) {
                QPS + rng.gen_range(0..4)
            } else {
                rng.gen_range(0..QPS) & !1
            };
            let sent = next_psn.get(qp as usize).map_or(0, |n| (n + PSN_MASK) & PSN_MASK);
            let psn = match rng.gen_range(0..10) {
                0 => (sent + rng.gen_range(1..5)) & PSN_MASK,
                1 => (sent + PSN_MASK - rng.gen_range(8..64)) & PSN_MASK,
                _ => (sent + PSN_MASK + 1 - rng.gen_range(0..6)) & PSN_MASK,
            };
            let syndrome = if rng.gen_bool(0.7) {
                Syndrome::ack().encode()
            } else {
                syndromes[rng.gen_range(0..syndromes.len())]
            };
            push(&mut events, &mut busy, &mut model, TrackerEvent::Ack { qp, psn, syndrome });
        }
        // the retry timer acts now and then on an RC QP; the host resets one more rarely
        if rng.gen_bool(0.08) {
            let qp = rng.gen_range(0..QPS) & !1;
            let action = TimerAction::ALL[rng.gen_range(0..TimerAction::ALL.len())];
            push(&mut events, &mut busy, &mut model, TrackerEvent::Action { qp, action });
        }
        if rng.gen_bool(0.01) {
            let qp = rng.gen_range(0..QPS);
            push(&mut events, &mut busy, &mut model, TrackerEvent::Clear { qp });
        }
    }
    // every RC QP acknowledged up to what it sent
    for qp in (0..QPS).step_by(2) {
        let sent = (next_psn[qp as usize] + PSN_MASK) & PSN_MASK;
        push(
            &mut events,
            &mut busy,
            &mut model,
            TrackerEvent::Ack {
                qp,
                psn: sent,
                syndrome: Syndrome::ack().encode(),
            },
        );
    }
    events
}

/// Appends `event`, with its effect on the model and on the busy channels.
fn push(events: &mut Vec<TrackerEvent>, busy: &mut [bool], model: &mut AckTracker, event: TrackerEvent) {
    match event {
        TrackerEvent::Record { qp, last_psn } => model.request_sent(qp, last_psn),
        TrackerEvent::Packet { .. } => {}
        TrackerEvent::Sent { .. } => {}
        TrackerEvent::Ack { qp, psn, syndrome } if qp < QPS => {
            for (channel, _) in model.acknowledge(qp, psn, syndrome).completions {
                busy[channel as usize] = false;
            }
        }
        TrackerEvent::Ack { .. } => {}
        TrackerEvent::Action { qp, action } => {
            for (channel, _) in model.timer_action(qp, action).completions {
                busy[channel as usize] = false;
            }
        }
        TrackerEvent::Clear { qp } => {
            for (channel, _) in model.clear(qp) {
                busy[channel as usize] = false;
            }
        }
    }
    events.push(event);
}

fn compare(what: &str, events: &[TrackerEvent], traffic: Traffic) {
    let want = expected(events);
    let got = run(events, traffic).unwrap_or_else(|e| panic!("{what}: {e}"));
    if let Some(i) = (0..want.completions.len().max(got.completions.len())).find(|&i| want.completions.get(i) != got.completions.get(i)) {
        panic!(
            "{what}: completion {i} of {}: RTL {:?}, model {:?} (RTL {} completions, model {})",
            want.completions.len(),
            got.completions.get(i),
            want.completions.get(i),
            got.completions.len(),
            want.completions.len()
        );
    }
    assert_eq!(got.ignored, want.ignored, "{what}: ACKs ignored");
    assert_eq!(got.failures, want.failures, "{what}: the QPs' error state");
}

#[test]
fn random_requests_and_acknowledgements_match_the_model() {
    let mut statuses = std::collections::BTreeSet::new();
    let mut ignored = 0;
    let mut notices = std::collections::BTreeSet::new();
    let (mut releases, mut rewinds, mut whole) = (0, 0, 0);
    let mut failed_at_end = std::collections::BTreeSet::new();
    for seed in 0..6u64 {
        let events = random_events(seed, 400);
        let want = expected(&events);
        statuses.extend(want.completions.iter().map(|c| c.1.code()));
        ignored += want.ignored;
        notices.extend(want.notices.iter().map(|n| n.1.code()));
        releases += want.releases.len();
        rewinds += want.rewinds.len();
        whole += want.rewinds.iter().filter(|r| r.1.is_none()).count();
        failed_at_end.extend(want.failures.iter().flatten().map(|s| s.code()));
        let traffic = Traffic {
            idle_pct: [0, 30][seed as usize % 2],
            bp_pct: [0, 40, 80][seed as usize % 3],
            seed,
        };
        compare(&format!("seed {seed}"), &events, traffic);
    }
    // the runs exercised every way a transfer ends, ignored ACKs, every notice to the timer,
    // releases and rewinds of both kinds
    assert_eq!(statuses.len(), CompletionStatus::ALL.len(), "{statuses:?}");
    assert!(ignored > 0);
    let timer_told = [TimerEvent::Progress, TimerEvent::Idle, TimerEvent::SequenceNak, TimerEvent::RnrNak];
    assert!(timer_told.iter().all(|e| notices.contains(&e.code())), "{notices:?}");
    println!("{releases} releases, {rewinds} rewinds ({whole} whole); QPs left in error with {failed_at_end:?}");
    assert!(!failed_at_end.is_empty(), "some QP ends a run in error");
    assert!(
        releases > 100 && rewinds > 20 && whole > 0,
        "{releases} releases, {rewinds} rewinds ({whole} whole)"
    );
}

#[test]
fn an_ack_presented_with_the_sent_transfer_it_covers_completes_it() {
    let mut events = vec![TrackerEvent::Record {
        qp: 2,
        last_psn: 0xFF_FFFF,
    }];
    events.push(TrackerEvent::Packet {
        channel: 3,
        qp: 2,
        psn: 0xFF_FFFF,
        last: true,
        reliable: true,
    });
    events.push(TrackerEvent::Sent {
        channel: 3,
        status: CompletionStatus::Success,
    });
    events.push(TrackerEvent::Ack {
        qp: 2,
        psn: 0xFF_FFFF,
        syndrome: Syndrome::ack().encode(),
    });
    assert_eq!(expected(&events).completions, [(3, CompletionStatus::Success)]);
    compare("simultaneous", &events, Traffic::FULL);
}

/// Events of one RC QP, each transfer a single packet, for the hand-written cases.
struct OneQp(u32);

impl OneQp {
    fn record(&self, last_psn: u32) -> TrackerEvent {
        TrackerEvent::Record { qp: self.0, last_psn }
    }

    fn packet(&self, channel: u16, psn: u32) -> TrackerEvent {
        TrackerEvent::Packet {
            channel,
            qp: self.0,
            psn,
            last: true,
            reliable: true,
        }
    }

    fn sent(&self, channel: u16) -> TrackerEvent {
        TrackerEvent::Sent {
            channel,
            status: CompletionStatus::Success,
        }
    }

    fn ack(&self, psn: u32) -> TrackerEvent {
        self.answer(psn, Syndrome::ack())
    }

    fn answer(&self, psn: u32, syndrome: Syndrome) -> TrackerEvent {
        TrackerEvent::Ack {
            qp: self.0,
            psn,
            syndrome: syndrome.encode(),
        }
    }
}

/// [`compare`] with nothing stalled and under idle and backpressure.
fn compare_stalled_and_not(what: &str, events: &[TrackerEvent], seed: u64) {
    for (i, traffic) in [
        Traffic::FULL,
        Traffic {
            idle_pct: 30,
            bp_pct: 60,
            seed,
        },
    ]
    .into_iter()
    .enumerate()
    {
        compare(&format!("{what} {i}"), events, traffic);
    }
}

/// A QP reset forgets the last PSN sent: a late ACK of a request from before it is outside the
/// window (a stale PSN after a reconnect), and the QP's next request opens it again.
#[test]
fn a_reset_qp_ignores_late_answers_until_it_sends_again() {
    let q = OneQp(2);
    let events = vec![
        q.record(10),
        q.packet(3, 10),
        q.sent(3),
        TrackerEvent::Clear { qp: 2 },
        q.ack(10),
        q.record(500),
        q.packet(4, 500),
        q.sent(4),
        q.ack(500),
    ];
    let want = expected(&events);
    assert_eq!(want.completions, [(3, CompletionStatus::Flushed), (4, CompletionStatus::Success)]);
    assert_eq!(want.ignored, 1);
    compare_stalled_and_not("reset", &events, 5);
}

/// A block is recorded before its packets leave; an ACK of the blocks before it, taken in
/// between, tells the retry timer `progress`, not `idle` (the block still waits for its own),
/// and the block's own ACK then tells it `idle`.
#[test]
fn an_ack_between_a_record_and_its_packets_is_progress_not_idle() {
    let q = OneQp(4);
    let events = vec![
        q.record(20),
        q.packet(1, 20),
        q.sent(1),
        q.record(21),
        q.ack(20),
        q.packet(2, 21),
        q.sent(2),
        q.ack(21),
    ];
    let want = expected(&events);
    assert_eq!(want.completions, [(1, CompletionStatus::Success), (2, CompletionStatus::Success)]);
    assert_eq!(want.notices, [(4, TimerEvent::Progress, 0), (4, TimerEvent::Idle, 0)]);
    compare_stalled_and_not("record before its packets", &events, 9);
}

/// A PSN sequence error or RNR NAK that acknowledges less than the QP already has (a duplicate,
/// or one overtaken on the wire) tells the retry timer nothing; one of the next PSN expected
/// still does.
#[test]
fn a_stale_sequence_or_rnr_nak_tells_the_timer_nothing() {
    let q = OneQp(6);
    let sequence = Syndrome::Nak(NakCode::PsnSequenceError);
    let rnr = Syndrome::RnrNak { timer: 9 };
    let events = vec![
        q.record(30),
        q.packet(1, 30),
        q.sent(1),
        q.ack(20),
        q.answer(18, sequence),
        q.answer(19, rnr),
        q.answer(21, sequence),
        q.answer(21, rnr),
        q.ack(30),
    ];
    let want = expected(&events);
    assert_eq!(
        want.notices,
        [
            (6, TimerEvent::Progress, 0),
            (6, TimerEvent::SequenceNak, 0),
            (6, TimerEvent::RnrNak, 9),
            (6, TimerEvent::Idle, 0)
        ]
    );
    compare_stalled_and_not("stale NAKs", &events, 11);
}

/// Cycles per RC transfer, printed for docs/performance.md and bounded: single-packet
/// transfers on one QP, each sent and then acknowledged alone, or all sent and then
/// acknowledged by one ACK.
#[test]
fn cycles_per_transfer() {
    let transfers = 200u16;
    let packets = |channel: u16| TrackerEvent::Packet {
        channel: channel % CHANNELS,
        qp: 0,
        psn: u32::from(channel),
        last: true,
        reliable: true,
    };
    let sent = |channel: u16| TrackerEvent::Sent {
        channel: channel % CHANNELS,
        status: CompletionStatus::Success,
    };
    let ack = |psn: u16| TrackerEvent::Ack {
        qp: 0,
        psn: u32::from(psn),
        syndrome: Syndrome::ack().encode(),
    };
    let record = |psn: u16| TrackerEvent::Record {
        qp: 0,
        last_psn: u32::from(psn),
    };
    let alone: Vec<TrackerEvent> = (0..transfers).flat_map(|c| [record(c), packets(c), sent(c), ack(c)]).collect();
    let coalesced: Vec<TrackerEvent> = (0..CHANNELS)
        .flat_map(|c| [record(c), packets(c)])
        .chain((0..CHANNELS).map(sent))
        .chain([ack(CHANNELS - 1)])
        .collect();
    // the bounds: 14.0 and 10.1 cycles measured (an ACK's three PSN compares overlapping, a
    // covered head completed as they end, a `sent` written as the QP's entry arrives)
    for (what, events, count, bound) in [
        ("each acknowledged alone", alone, transfers, 14.5),
        ("one ACK for all", coalesced, CHANNELS, 10.5),
    ] {
        let want = expected(&events);
        let got = run(&events, Traffic::FULL).unwrap();
        assert_eq!(got.completions, want.completions, "{what}");
        let pace = got.cycles as f64 / f64::from(count);
        println!(
            "RC transfers {what}: {count} in {} cycles, {pace:.1} cycles per transfer",
            got.cycles
        );
        assert!(pace < bound, "{what}: {pace:.1} cycles per transfer (at most {bound})");
    }
}
