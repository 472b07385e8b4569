//! How long the engine's own requests hold its ACKs back: the engine looped back on itself
//! (`ferroce-sim serve --top engine`'s model, driven through `ferroce-ctl`'s library), QP 1 (RC)
//! WRITEs 192 KiB at PMTU 1024 to QP 2, so its TX path carries QP 1's request frames and QP 2's
//! ACKs of them at once. An ACK's latency is the cycles from the last beat of the request it
//! acknowledges (the frame is back on the MAC RX as it leaves) to the ACK's last beat. A response
//! goes to the packet generator before the next request descriptor, and the generator takes a
//! descriptor only while the frames it holds add up to fewer than `PENDING_BEATS` beats: so an
//! ACK waits behind a few frames, not behind the 32 its header FIFO may hold (about 380 cycles
//! of 1 KiB frames at 512 bits when it took up to its room).
//!
//! `cargo test -p ferroce-sim --test engine_ack_latency -- --nocapture` prints the figures.

mod common;

use common::LoopBus;
use ferroce_ctl::{Ferroce, PostOutcome};
use ferroce_sim::contracts::tx::{Pmtu, PostOp, POST};
use ferroce_sim::engine_rtl::{EngineLoop, ENGINE_W512};
use ferroce_sim::loopback_bench::b_context;
use ferroce_sim::peers::Peer;
use ferroce_sim::wire::Transport;
use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

/// The opcode of an RC ACK.
const ACKNOWLEDGE: u8 = 0x11;

#[test]
fn acks_wait_behind_a_few_of_the_engines_own_frames() {
    let engine = Rc::new(RefCell::new(EngineLoop::new(&ENGINE_W512).unwrap()));
    let mut dev = Ferroce::open(Box::new(LoopBus(engine.clone()))).unwrap();
    let peer = Peer::new(2, Transport::Rc, Pmtu::B1024, 7, 1, 0x100);
    dev.qp_write(1, &peer.requester.to_words().unwrap()).unwrap();
    dev.qp_write(2, &b_context(&peer, 1).to_words().unwrap()).unwrap();
    dev.region_write(1, &common::host_region(&peer.region)).unwrap();
    let words = POST
        .encode(&[
            ("channel", 5),
            ("queue", 1),
            ("op", PostOp::Write.code().into()),
            ("qp", 1),
            ("local_addr", 0x2000),
            ("remote_addr", peer.region.base.into()),
            ("length", 196_608),
        ])
        .unwrap();
    assert_eq!(dev.post(&words, 100_000).unwrap(), PostOutcome::Accepted);
    let mut finished = Vec::new();
    for _ in 0..5_000 {
        finished.extend(dev.poll(0, 63).unwrap());
        if !finished.is_empty() {
            break;
        }
    }
    assert!(
        finished.len() == 1 && finished[0].channel == 5 && !finished[0].error,
        "the transfer completes: {finished:?}"
    );

    // each request's last beat (its first transmission), then each ACK's latency after it
    let engine = engine.borrow();
    let mut sent: HashMap<u32, u64> = HashMap::new();
    let mut latencies = Vec::new();
    for (frame, cycle) in engine.engine.frames_out_with_cycles() {
        let psn = u32::from_be_bytes([0, frame[51], frame[52], frame[53]]);
        if frame[42] == ACKNOWLEDGE {
            latencies.push(cycle - sent[&psn]);
        } else {
            sent.entry(psn).or_insert(cycle);
        }
    }
    let retransmitted = sent.len() != 192;
    assert!(
        !retransmitted && latencies.len() >= 96,
        "{} requests, {} ACKs",
        sent.len(),
        latencies.len()
    );
    let mean = latencies.iter().sum::<u64>() as f64 / latencies.len() as f64;
    let max = *latencies.iter().max().unwrap();
    eprintln!(
        "engine_ack_latency: {} ACKs of 192 requests of 1 KiB, their latency after the request's last beat: mean {mean:.1} cycles, max {max}",
        latencies.len()
    );
    // the RX path (the frame's ICRC, the responder, its payload written before the decision
    // leaves), then in the TX path fewer than `PENDING_BEATS` beats of frames not started, the
    // frame being sequenced and the command and output FIFOs (about 25 beats each): 224.9
    // cycles on average, 298 at most (457.8 and 576 when the generator took descriptors up to
    // its header FIFO's room)
    assert!(max < 350, "an ACK waited {max} cycles behind the engine's own frames");
}
