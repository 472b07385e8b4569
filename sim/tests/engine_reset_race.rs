//! A QP reset of both ends of a connection while a transfer is in flight on it: the engine looped
//! back on itself (`ferroce-sim serve --top engine`'s model), driven through `ferroce-ctl`'s
//! library (in this process: [`common::LoopBus`]). QP 1 (RC requester) WRITEs 192 KiB (three 64 KiB blocks at PMTU 1024) to QP 2;
//! after `delay` register reads (about six cycles each) both contexts are written again from
//! PSN 0x5000 (a reset of each: word 0 last), and QP 1 WRITEs 8 KiB more. A reset connection
//! works: the first transfer completes (flushed if the reset caught it), the second one
//! completes successfully, the QP is not in error, and nothing stays busy.
//!
//! Found 2026-12-04: a reset while the first transfer's blocks were still being cut or sent
//! left QP 1 failed with `TransportRetryExceeded` and both channels busy for ever (blocks cut
//! before the reset sent and recorded after it, with the old PSNs). `DELAYS=0,20,255 cargo
//! test -p ferroce-sim --test engine_reset_race -- --nocapture` picks the delays and prints a
//! line per trial; with `TRACE=1`, also the frames on the loop (cycle, opcode, destination QP,
//! PSN, an ACK's AETH). The second test resets each QP through a context of zeros first (state
//! RESET, as `Ferroce::qp_commit` and a verbs host do).
//!
//! Found 2026-12-06: with a reset 410 to 500 reads in, both channels stayed busy for ever or QP
//! 1 failed with `TransportRetryExceeded`. The loop's wire then pushed back (8 beats, held when
//! the RX stopped): the RX waited for the TX to take an ACK, the TX for the wire to take the
//! frame it was sending, the wire for the RX. No board has such a wire (its MAC ingress drops
//! what it has no room for); the loop now has a board's (`EngineLoop`), and the delays below
//! include that window. (The short timeout of this test fires before the first ACK comes back:
//! a 64 KiB block's packets take longer than 2^4 ticks of 16 cycles to leave, so the blocks are
//! sent twice, which is what a reset then lands in.)

mod common;

use common::LoopBus;
use ferroce_ctl::{Ferroce, PostOutcome};
use ferroce_sim::contracts::tx::{ChannelStatus, CompletionStatus, Pmtu, PostOp, POST};
use ferroce_sim::engine_rtl::{EngineLoop, ENGINE_W512};
use ferroce_sim::loopback_bench::b_context;
use ferroce_sim::peers::Peer;
use ferroce_sim::wire::Transport;
use std::cell::RefCell;
use std::rc::Rc;

/// What a trial ended with.
#[derive(Debug)]
struct Outcome {
    /// The two channels' completions `(channel, error)`, in the order polled.
    finished: Vec<(u32, bool)>,
    /// The channels still busy at the end.
    busy: Vec<u32>,
    /// QP 1's error state.
    failure: Option<CompletionStatus>,
    /// The counters that are not 0.
    counters: Vec<(String, u32)>,
    /// Frames the loop dropped (its buffer into the RX full).
    dropped: u64,
}

fn trial(delay: u32, via_reset: bool) -> Outcome {
    let engine = Rc::new(RefCell::new(EngineLoop::new(&ENGINE_W512).unwrap()));
    let mut dev = Ferroce::open(Box::new(LoopBus(engine.clone()))).unwrap();
    // timeouts of 4.096 µs × 2^4 in ticks of 16 cycles, 3 retries: a failure shows in time
    let tick = dev.target("retry_tick").unwrap().address();
    dev.write(tick, 16).unwrap();
    let connect = |dev: &mut Ferroce, psn: u32| {
        let mut peer = Peer::new(2, Transport::Rc, Pmtu::B1024, 7, 1, psn);
        peer.requester.timeout = 4;
        peer.requester.retry_count = 3;
        if via_reset {
            let zeros = vec![0; peer.requester.to_words().unwrap().len()];
            dev.qp_write(1, &zeros).unwrap();
            dev.qp_write(2, &zeros).unwrap();
        }
        dev.qp_write(1, &peer.requester.to_words().unwrap()).unwrap();
        dev.qp_write(2, &b_context(&peer, 1).to_words().unwrap()).unwrap();
        peer
    };
    let peer = connect(&mut dev, 0x100);
    let region = common::host_region(&peer.region);
    dev.region_write(1, &region).unwrap();
    let post = |dev: &mut Ferroce, channel: u128, length: u128| {
        let words = POST
            .encode(&[
                ("channel", channel),
                ("queue", 1),
                ("op", PostOp::Write.code().into()),
                ("qp", 1),
                ("local_addr", 0x2000),
                ("remote_addr", peer.region.base.into()),
                ("length", length),
            ])
            .unwrap();
        assert_eq!(dev.post(&words, 100_000).unwrap(), PostOutcome::Accepted);
    };
    post(&mut dev, 5, 196_608);
    for _ in 0..delay {
        dev.read(tick).unwrap();
    }
    connect(&mut dev, 0x5000);
    post(&mut dev, 6, 8192);
    // long enough for both transfers, or for a timeout and its retries
    let mut finished = Vec::new();
    // until both have completed, then as long again as a timeout and its retries take (a
    // stale PSN would fail the QP then)
    let mut after = None;
    for poll in 0..25_000 {
        finished.extend(dev.poll(0, 63).unwrap().into_iter().map(|f| (f.channel, f.error)));
        if after.is_none() && finished.len() >= 2 {
            after = Some(poll + 1_000);
        }
        if after == Some(poll) {
            break;
        }
    }
    let busy = [5, 6]
        .into_iter()
        .filter(|&channel| dev.channel_status(channel).unwrap().0 == ChannelStatus::Busy)
        .collect();
    let mut counters: Vec<(String, u32)> = dev.counters().unwrap().into_iter().filter(|(_, v)| *v != 0).collect();
    counters.sort();
    let failure = dev.qp_failure(1).unwrap();
    if std::env::var("TRACE").is_ok() {
        trace(&engine.borrow().engine);
    }
    let dropped = engine.borrow().dropped_frames();
    Outcome {
        finished,
        busy,
        failure,
        counters,
        dropped,
    }
}

/// The frames on the loop, one line a run of packets in sequence: cycle, opcode, destination
/// QP, PSN (and an ACK's syndrome and MSN).
fn trace(engine: &ferroce_sim::engine_rtl::EngineRtl) {
    let mut last: Option<(u8, u32, u32)> = None;
    for (frame, cycle) in engine.frames_out_with_cycles() {
        if frame.len() < 54 {
            continue;
        }
        let opcode = frame[42];
        let qp = u32::from_be_bytes([0, frame[47], frame[48], frame[49]]);
        let psn = u32::from_be_bytes([0, frame[51], frame[52], frame[53]]);
        let ack = opcode == 0x11;
        if let Some((o, q, p)) = last {
            if !ack && o & 0xe0 == opcode & 0xe0 && q == qp && psn == p + 1 {
                last = Some((opcode, qp, psn));
                continue;
            }
            eprintln!("            .. {p:#x}");
        }
        let extra = if ack {
            format!(
                " AETH {:#04x} MSN {:#x}",
                frame[54],
                u32::from_be_bytes([0, frame[55], frame[56], frame[57]])
            )
        } else {
            String::new()
        };
        eprintln!("  {cycle:7} op {opcode:#04x} QP {qp} PSN {psn:#x}{extra}");
        last = Some((opcode, qp, psn));
    }
}

/// Runs a trial per delay (`DELAYS`, or 0, 20, 120, 240, 400, 420, 470 and 600 reads) and fails with those
/// that broke the connection.
fn reset_in_flight(via_reset: bool) {
    let delays: Vec<u32> = std::env::var("DELAYS")
        .map(|d| {
            d.split(',')
                .map(|x| x.trim().parse().expect("DELAYS: register reads, comma-separated"))
                .collect()
        })
        .unwrap_or_else(|_| vec![0, 20, 120, 240, 400, 420, 470, 600]);
    let mut broken = Vec::new();
    for delay in delays {
        let outcome = trial(delay, via_reset);
        eprintln!("delay {delay}: {outcome:?}");
        let completed: Vec<u32> = outcome.finished.iter().map(|&(channel, _)| channel).collect();
        if outcome.failure.is_some() || !outcome.busy.is_empty() || completed != [5, 6] || outcome.finished[1].1 {
            broken.push((delay, outcome.failure, outcome.counters, outcome.dropped));
        }
    }
    assert!(
        broken.is_empty(),
        "broken after a reset (delay, failure, counters, frames the loop dropped): {broken:?}"
    );
}

#[test]
fn a_connection_reset_while_a_transfer_is_in_flight_works_afterwards() {
    reset_in_flight(false);
}

#[test]
fn a_connection_reset_through_a_context_of_zeros_while_a_transfer_is_in_flight_works_afterwards() {
    reset_in_flight(true);
}
