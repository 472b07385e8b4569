//! The whole TX path RTL (`tx_path`: segmenter, scheduler, packet generator) against the TX
//! model, frame for frame: post results, every frame's bytes, completions and per-queue bytes,
//! over random setups (lengths 0 to a few hundred KiB, every PMTU, block sizes 4 KiB to 1 MiB,
//! unaligned and wrapping addresses, PSNs near the wrap, IPv4 and IPv6, several channels on one
//! QP, SENDs spread over many blocks, refused posts), with output backpressure, memory latency,
//! memory stalls and read-command backpressure; the responder's ACKs and NAKs offered at random
//! among the transfers' frames; QoS 1:2:5 on the wire; a control post made while bulk is on the
//! wire; memory latency of hundreds of cycles at full rate; the responder's READ responses
//! (0 B to a few hundred KiB, PSNs across the wrap) in their queue among the transfers.

use ferroce_sim::contracts::responder::{Aeth, NakCode, Syndrome};
use ferroce_sim::contracts::tx::{CompletionStatus, Pmtu, PostError, PostOp, QpState};
use ferroce_sim::models::responder::{ReadResponse, Response};
use ferroce_sim::models::tx::acknowledge::completion_set;
use ferroce_sim::models::tx::qos::{add_control_post, backlogged_bytes, deviation_from_weights, weighted_setup, wire_dest_qpn, wire_queue};
use ferroce_sim::models::tx::{PatternMemory, Post, QpContext, TxEngine, TxModel, TxRun, TxSetup};
use ferroce_sim::rx_rtl::RxFrontRtl;
use ferroce_sim::sched::QueueCfg;
use ferroce_sim::tx_path_rtl::{MemoryTiming, PathVariant, Surroundings, TxPathRtl, DEFAULT, SMALL};
use ferroce_sim::wire::Transport;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::sync::Arc;

/// A random QP context, mostly ready to send, IPv4 or IPv6, PSNs often near the wrap.
fn context(rng: &mut ChaCha8Rng, qp: u32) -> QpContext {
    let ip_v6 = rng.gen_bool(0.3);
    let addr = |rng: &mut ChaCha8Rng| if ip_v6 { rng.gen::<u128>() } else { u128::from(rng.gen::<u32>()) };
    let mut ctx = QpContext {
        state: QpState::Rts.code(),
        transport: if rng.gen_bool(0.5) {
            Transport::Rc.bits()
        } else {
            Transport::Uc.bits()
        },
        pmtu: Pmtu::ALL[rng.gen_range(0..Pmtu::ALL.len())].code(),
        ack_every: if rng.gen_bool(0.5) { 0 } else { rng.gen_range(1..6) },
        sq_psn: if rng.gen_bool(0.5) {
            (1 << 24) - rng.gen_range(1..40)
        } else {
            rng.gen_range(0..1 << 24)
        },
        rkey: rng.gen(),
        dest_qpn: wire_dest_qpn(qp),
        pkey: 0xFFFF,
        ip_v6,
        src_ip: addr(rng),
        dst_ip: addr(rng),
        src_mac: rng.gen::<u64>() & 0xFFFF_FFFF_FFFF,
        dst_mac: rng.gen::<u64>() & 0xFFFF_FFFF_FFFF,
        dscp: rng.gen_range(0..64),
        ecn: rng.gen_range(0..4),
        ttl: rng.gen_range(1..=255),
        udp_sport: rng.gen(),
        ..QpContext::default()
    };
    if rng.gen_ratio(1, 12) {
        ctx.state = QpState::Init.code();
    }
    ctx
}

/// A random setup of `variant`'s sizes with about `budget` payload bytes.
fn random_setup(rng: &mut ChaCha8Rng, variant: &PathVariant, budget: u64) -> TxSetup {
    let mut setup = variant.fit(&TxSetup {
        block_log2: rng.gen_range(12..=20),
        memory: Arc::new(PatternMemory::new(rng.gen())),
        ..TxSetup::default()
    });
    let qps = rng.gen_range(1..=6);
    for qp in 0..qps {
        setup.contexts.insert(qp, context(rng, qp));
    }
    for queue in 0..variant.queues as u32 {
        setup.queue_config.insert(
            queue,
            QueueCfg {
                weight: rng.gen_range(1..=4),
                ..QueueCfg::default()
            },
        );
    }
    let mut left = budget;
    for _ in 0..rng.gen_range(1..=12) {
        let length = match rng.gen_range(0..9) {
            0 => 0,
            1..=3 => rng.gen_range(1..600),
            4..=6 => rng.gen_range(600..20_000),
            7 => rng.gen_range(20_000..200_000),
            _ => rng.gen_range(200_000..3_500_000),
        }
        .min(left as u32);
        left -= u64::from(length);
        let op = if rng.gen_ratio(1, 20) {
            5 // no operation
        } else {
            [0, 1, 2, 3, 6, 7][rng.gen_range(0..6)] // all but READ, which has a test of its own
        };
        setup.posts.push(Post {
            channel: rng.gen_range(0..16),
            queue: rng.gen_range(0..4),
            op,
            solicited: rng.gen_bool(0.2),
            imm_every_block: rng.gen_bool(0.3),
            qp: rng.gen_range(0..qps + 1),
            local_addr: if rng.gen_bool(0.2) {
                u64::MAX - rng.gen_range(0..5000)
            } else {
                rng.gen()
            },
            remote_addr: match rng.gen_range(0..3) {
                0 => rng.gen::<u64>() & !0xFFF,
                _ => rng.gen(),
            },
            length,
            immediate: rng.gen(),
        });
    }
    for _ in 0..rng.gen_range(0..=8) {
        let syndrome = match rng.gen_range(0..3) {
            0 => Syndrome::ack(),
            1 => Syndrome::RnrNak {
                timer: rng.gen_range(0..32),
            },
            _ => Syndrome::Nak(NakCode::ALL[rng.gen_range(0..NakCode::ALL.len())]),
        };
        setup.responses.push(Response {
            qp: rng.gen_range(0..qps),
            psn: rng.gen_range(0..1 << 24),
            aeth: Aeth {
                syndrome,
                msn: rng.gen_range(0..1 << 24),
            },
        });
    }
    setup
}

/// Runs `setup` on the model and on `rtl`, and compares everything the engines give.
fn same_as_model(rtl: &mut TxPathRtl, setup: &TxSetup, what: &str) -> TxRun {
    let model = TxModel.run(setup).unwrap();
    let (got, figures) = rtl.run_measured(setup).unwrap_or_else(|e| panic!("{what}: {e}"));
    assert_eq!(got.post_results, model.post_results, "{what}: post results");
    // the refusal counters count the refusals, by reason
    let refused: Vec<u32> = PostError::ALL
        .iter()
        .map(|&reason| model.post_results.iter().filter(|r| **r == Err(reason)).count() as u32)
        .collect();
    assert_eq!(figures.refused[..], refused[..], "{what}: refusal counters (PostError::ALL order)");
    for (i, (g, w)) in got.frames.iter().zip(&model.frames).enumerate() {
        assert_eq!(g, w, "{what}: frame {i} of {}", model.frames.len());
    }
    assert_eq!(got.frames.len(), model.frames.len(), "{what}: frames");
    assert_eq!(got.responses, model.responses, "{what}: response frames");
    // the same completions; an RC one comes when the peer acknowledges the transfer, after
    // its last frame, so the order may differ
    assert_eq!(
        completion_set(&got.completions),
        completion_set(&model.completions),
        "{what}: completions"
    );
    assert_eq!(got.queue_bytes, model.queue_bytes, "{what}: bytes per queue");
    // memory latency and stalls delay a frame's start, never its middle
    assert_eq!(figures.underflow_cycles, 0, "{what}: the MAC stream paused inside a frame");
    got
}

/// Idle, backpressure, stalls and latency around the path.
fn rough(seed: u64) -> Surroundings {
    Surroundings {
        memory: MemoryTiming {
            latency: 40 + seed % 200,
            outstanding: 4 + (seed % 5) as usize,
            stall_pct: 20,
        },
        post_idle_pct: 0,
        output_bp_pct: 30,
        read_bp_pct: 20,
        completion_bp_pct: 30,
        seed,
    }
}

#[test]
fn random_setups_give_the_models_frames_under_backpressure_and_memory_latency() {
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    for round in 0..40u64 {
        let setup = random_setup(&mut rng, &SMALL, 400_000);
        let surroundings = if round % 2 == 0 { Surroundings::FULL } else { rough(round) };
        let run = same_as_model(&mut TxPathRtl::new(SMALL, surroundings), &setup, &format!("round {round}"));
        println!(
            "round {round}: {} posts, {} frames, {} bytes, {:?} cycles",
            setup.posts.len(),
            run.frames.len(),
            run.bytes(),
            run.cycles
        );
    }
}

/// The default configuration at 512 bits; every frame, responses included, is accepted by the RX front end RTL
/// (`rx_front` at 512 bits: ICRC, checksums, lengths, opcodes), with no drop reason.
#[test]
fn default_configuration_at_512_bits_gives_the_models_frames_and_rx_accepts_them() {
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    let mut rx = RxFrontRtl::new(512).unwrap();
    for round in 0..3u64 {
        let setup = random_setup(&mut rng, &DEFAULT, 6_000_000);
        let surroundings = if round == 0 { Surroundings::FULL } else { rough(round) };
        let run = same_as_model(&mut TxPathRtl::new(DEFAULT, surroundings), &setup, &format!("round {round}"));
        let frames: Vec<Vec<u8>> = run.frames.iter().chain(&run.responses).cloned().collect();
        if frames.is_empty() {
            continue;
        }
        let before = rx.counters();
        rx.run(&frames, 10, 10, round).unwrap();
        let after = rx.counters();
        assert_eq!(
            (after.frames_in - before.frames_in, after.accepted - before.accepted),
            (frames.len() as u64, frames.len() as u64),
            "round {round}: the RX front end accepts every frame ({after:?})"
        );
    }
}

#[test]
fn weights_1_2_5_share_the_wire_by_bytes_on_the_rtl() {
    // 4 KiB blocks, at least 4 MiB of the lightest queue while all are backlogged
    let setup = weighted_setup(12, 4 << 20, 256 << 10, 1 << 20);
    let run = same_as_model(&mut TxPathRtl::new(DEFAULT, Surroundings::FULL), &setup, "1:2:5");
    let wire: Vec<(u32, u64)> = run.frames.iter().map(|f| (wire_queue(f), f.len() as u64)).collect();
    let bytes = backlogged_bytes(&wire, &[1, 2, 3]).unwrap();
    let deviation = deviation_from_weights(&bytes, &[1, 2, 5]);
    println!(
        "RTL, 4 KiB blocks, weights 1:2:5: bytes {bytes:?}, largest deviation {:.3} %",
        deviation * 100.0
    );
    assert!(bytes[0] >= 4 << 20, "{bytes:?}");
    assert!(deviation < 0.02, "{bytes:?}: {:.2} %", deviation * 100.0);
}

#[test]
fn a_control_post_made_during_bulk_overtakes_it_within_a_block() {
    let mut setup = weighted_setup(12, 1 << 20, 0, 1 << 20);
    add_control_post(&mut setup);
    // the control post waits until bulk has been on the wire for a while
    let mut rtl = TxPathRtl::new(DEFAULT, Surroundings::FULL);
    rtl.release = vec![0; setup.posts.len() - 1];
    rtl.release.push(20_000);
    let run = rtl.run(&setup).unwrap();
    let queues: Vec<u32> = run.frames.iter().map(|f| wire_queue(f)).collect();
    let first = queues.iter().position(|&q| q == 4).unwrap();
    let last = queues.iter().rposition(|&q| q == 4).unwrap();
    assert!(first > 100, "the bulk was on the wire before the control post: {first}");
    // a 4 KiB bulk block (one 4 KiB packet) may be in the generator; one more may be decided
    // while the post is checked
    let bulk_between = (first..=last).filter(|&i| queues[i] != 4).count();
    assert!(bulk_between <= 3, "{bulk_between} bulk packets among the control transfer's");
    let control_completion = run.completions.iter().position(|c| c.0 == 100).unwrap();
    assert_eq!(run.completions[control_completion].1, CompletionStatus::Success);
    // bulk transfers of a queue share it block by block: none is done before the control one
    assert_eq!(control_completion, 0, "the control transfer completes first");
    println!("control post at cycle 20,000: its frames {first}..={last} of {}", queues.len());
}

/// A control-queue SEND posted on a QP while a data queue's SEND of 1 MiB is in progress on it
/// (cut in 4 KiB groups, holding the QP): it waits in the QP's line, off the scheduler, and
/// follows the message. Without the line it went round the control queue, which the scheduler
/// serves always first, and the data queue was never served again: the run never ended.
#[test]
fn a_control_post_on_a_qp_with_a_message_in_progress_waits_in_its_line() {
    let mut setup = weighted_setup(12, 1 << 20, 0, 1 << 20);
    setup.posts.truncate(1);
    setup.posts[0].op = PostOp::Send.code();
    let message = setup.posts[0];
    setup.posts.push(Post {
        channel: 100,
        queue: 0,
        op: PostOp::Send.code(),
        qp: message.qp,
        length: 3 * 4096 + 1,
        ..Post::default()
    });
    // the message takes at least 16,384 cycles on the 512-bit bus: posted at 4,000, the control
    // SEND finds it in progress
    let mut rtl = TxPathRtl::new(DEFAULT, Surroundings::FULL);
    rtl.release = vec![0, 4_000];
    let run = rtl.run(&setup).unwrap();
    let plan = TxModel::plan(&setup).unwrap();
    assert_eq!(run.frames, TxModel.run(&setup).unwrap().frames, "as the model");
    let channels: Vec<u16> = plan.packets.iter().map(|p| p.channel).collect();
    assert_eq!(
        channels,
        [vec![message.channel; 256], vec![100; 4]].concat(),
        "the message whole, then the control SEND"
    );
    assert_eq!(
        run.completions,
        [(message.channel, CompletionStatus::Success), (100, CompletionStatus::Success)]
    );
}

#[test]
fn memory_latency_of_hundreds_of_cycles_keeps_the_wire_busy_at_pmtu_4096() {
    // one 1 MiB WRITE on PMTU 4096: with 500 cycles of memory latency the output still has no
    // gap once frames flow, given enough reads in flight
    let mut setup = weighted_setup(16, 1 << 20, 0, 1 << 20);
    setup.posts.truncate(1);
    let surroundings = Surroundings {
        memory: MemoryTiming {
            latency: 500,
            outstanding: 16,
            stall_pct: 0,
        },
        ..Surroundings::FULL
    };
    let (run, figures) = TxPathRtl::new(DEFAULT, surroundings).run_measured(&setup).unwrap();
    let model = TxModel.run(&setup).unwrap();
    assert_eq!(run.frames, model.frames);
    println!("1 MiB, latency 500: {figures:?}");
    let busy = figures.beats as f64 / (figures.cycles - figures.first_beat.unwrap()) as f64;
    assert!(busy > 0.97, "bus occupancy {busy:.3} after the first beat");
}

/// A second post to a channel, made at every cycle around the completion of the channel's
/// first transfer: before it, the post is refused (`channel_busy`); from the cycle the
/// completion is taken on, it is accepted and its frames follow the first transfer's. Never a
/// hang, never a lost completion, and both outcomes happen.
#[test]
fn a_post_racing_its_channels_completion_is_refused_or_served_whole() {
    let ctx = |qp: u32| QpContext {
        state: QpState::Rts.code(),
        transport: Transport::Uc.bits(),
        pmtu: Pmtu::B1024.code(),
        dest_qpn: wire_dest_qpn(qp),
        src_ip: 0x0a00_0001,
        dst_ip: 0x0a00_0002,
        ..QpContext::default()
    };
    let write = |channel: u16, qp: u32, length: u32| Post {
        channel,
        queue: 1,
        op: PostOp::Write.code(),
        qp,
        local_addr: u64::from(qp) << 20,
        remote_addr: u64::from(qp) << 24,
        length,
        ..Post::default()
    };
    let mut setup = SMALL.fit(&TxSetup::default());
    setup.contexts.insert(1, ctx(1));
    setup.contexts.insert(2, ctx(2));
    setup.posts = vec![write(5, 1, 3000), write(5, 2, 2000)];
    // what each outcome must give: the first transfer alone, or both (as if on two channels)
    let alone = TxModel
        .run(&TxSetup {
            posts: setup.posts[..1].to_vec(),
            ..setup.clone()
        })
        .unwrap();
    let both = TxModel
        .run(&TxSetup {
            posts: vec![setup.posts[0], write(6, 2, 2000)],
            ..setup.clone()
        })
        .unwrap();
    let (mut refused, mut served) = (0, 0);
    for release in 0..700u64 {
        let mut rtl = TxPathRtl::new(SMALL, Surroundings::FULL);
        rtl.release = vec![0, release];
        let run = rtl.run(&setup).unwrap_or_else(|e| panic!("post at cycle {release}: {e}"));
        match run.post_results[1] {
            Err(PostError::ChannelBusy) => {
                refused += 1;
                assert_eq!(run.frames, alone.frames, "refused at cycle {release}");
                assert_eq!(run.completions, alone.completions);
            }
            Ok(()) => {
                served += 1;
                assert_eq!(run.frames, both.frames, "accepted at cycle {release}");
                assert_eq!(run.completions, [(5, CompletionStatus::Success); 2]);
            }
            Err(e) => panic!("post at cycle {release}: {e:?}"),
        }
    }
    assert!(refused > 0 && served > 0, "{refused} refused, {served} served");
    println!("second post: refused at {refused} cycles, served at {served}");
}

/// `count` READ responses on the RC QPs of `setup` (none without one): random lengths, PSNs
/// often near the wrap, the QP's PMTU; in a random data queue.
fn add_read_responses(rng: &mut ChaCha8Rng, setup: &mut TxSetup, count: usize) {
    let rc: Vec<(u32, Pmtu)> = setup
        .contexts
        .iter()
        .filter(|(_, c)| c.transport == Transport::Rc.bits() && c.path_mtu().is_some())
        .map(|(&qp, c)| (qp, c.path_mtu().unwrap()))
        .collect();
    if rc.is_empty() {
        return;
    }
    setup.read_response_queue = rng.gen_range(1..setup.queues as u8);
    for _ in 0..count {
        let (qp, pmtu) = rc[rng.gen_range(0..rc.len())];
        setup.read_responses.push(ReadResponse {
            qp,
            first_psn: if rng.gen_bool(0.5) {
                (1 << 24) - rng.gen_range(1..40)
            } else {
                rng.gen_range(0..1 << 24)
            },
            va: rng.gen(),
            length: match rng.gen_range(0..4) {
                0 => 0,
                1 => rng.gen_range(1..5000),
                2 => rng.gen_range(5000..100_000),
                _ => rng.gen_range(100_000..400_000),
            },
            pmtu,
            aeth: Aeth {
                syndrome: Syndrome::ack(),
                msn: rng.gen_range(0..1 << 24),
            },
            region: None,
            duplicate: false,
        });
    }
}

#[test]
fn read_responses_leave_in_their_queue_as_the_model_cuts_them() {
    let mut rng = ChaCha8Rng::seed_from_u64(17);
    let mut rounds_with_reads = 0;
    for round in 0..16u64 {
        // at most 100 KB of posts: fewer 4 KiB blocks on a QP than its send history holds (a
        // full history holds a QP's blocks back until ACKs come, which the model does not
        // time, and the READ responses would then overtake them)
        let mut setup = random_setup(&mut rng, &SMALL, 100_000);
        let count = rng.gen_range(1..=4);
        add_read_responses(&mut rng, &mut setup, count);
        rounds_with_reads += usize::from(!setup.read_responses.is_empty());
        let surroundings = if round % 2 == 0 { Surroundings::FULL } else { rough(round) };
        let run = same_as_model(&mut TxPathRtl::new(SMALL, surroundings), &setup, &format!("round {round}"));
        println!(
            "round {round}: {} posts, {} READ responses, {} frames",
            setup.posts.len(),
            setup.read_responses.len(),
            run.frames.len()
        );
    }
    assert!(rounds_with_reads >= 10, "{rounds_with_reads} rounds had an RC QP");
}

/// RDMA READs beside WRITEs and SENDs on RC QPs, at 64 and 512 bits: each READ of one block
/// (one per QP) is one READ request frame, byte for byte the model's, with the frames after it
/// on its QP going on from its response's last PSN; the READ completes when the peer
/// acknowledges that last PSN (the runner's stand-in for the READ tracker, which also says the
/// QP's READ is over); the frames pass the RX front end and decode in tshark.
#[test]
fn read_requests_are_the_models_frames_and_complete_on_their_last_psn() {
    let mut rng = ChaCha8Rng::seed_from_u64(48);
    for (round, variant) in [SMALL, DEFAULT].into_iter().enumerate() {
        let mut setup = random_setup(&mut rng, &variant, 0);
        setup.posts.clear();
        setup.responses.clear();
        // four ready RC QPs, one per PMTU from 512 up
        let reliable: Vec<u32> = (1..5).collect();
        for &qp in &reliable {
            let ctx = setup.contexts.entry(qp).or_insert_with(|| context(&mut rng, qp));
            ctx.state = QpState::Rts.code();
            ctx.transport = Transport::Rc.bits();
            ctx.pmtu = [Pmtu::B512, Pmtu::B1024, Pmtu::B2048, Pmtu::B4096][qp as usize - 1].code();
        }
        let block = 1u64 << setup.block_log2;
        for (k, &qp) in reliable.iter().enumerate() {
            let length = [0, 1, 3000, 20_000][k % 4].min(block as u32);
            let channel = 3 * k as u16;
            let post = |channel: u16, op: PostOp, length: u32, remote_addr: u64, rng: &mut ChaCha8Rng| Post {
                channel,
                queue: rng.gen_range(1..4),
                op: op.code(),
                qp,
                length,
                local_addr: rng.gen(),
                remote_addr,
                immediate: rng.gen(),
                ..Post::default()
            };
            let remote = (rng.gen::<u64>() & !(block - 1)) + rng.gen_range(0..=block - u64::from(length));
            setup.posts.push(post(channel, PostOp::Read, length, remote, &mut rng));
            setup
                .posts
                .push(post(channel + 1, PostOp::Write, rng.gen_range(0..5000), rng.gen(), &mut rng));
            setup
                .posts
                .push(post(channel + 2, PostOp::SendImm, rng.gen_range(0..5000), 0, &mut rng));
        }
        let surroundings = if round == 0 { Surroundings::FULL } else { rough(7) };
        let run = same_as_model(&mut TxPathRtl::new(variant, surroundings), &setup, &format!("READ round {round}"));
        let requests = run
            .frames
            .iter()
            .filter(|f| ferroce_sim::wire::RoceFrame::parse(f).unwrap().bth.opcode == ferroce_sim::wire::Opcode::RC_READ_REQUEST)
            .count();
        assert_eq!(requests, reliable.len(), "round {round}: one READ request per READ");
        ferroce_sim::tshark::check_roce_frames("tx_path READ", &run.frames).unwrap();
    }
}

/// Queue 1 of the 1:2:5 setup (PMTU 4096) paced at 4 GB/s on a 322.27 MHz clock: its frames
/// are the model's (its transfers cut a PMTU at a time) and leave `(queue 1's frame end cycles,
/// its group time in cycles)`.
fn paced_run(setup: &TxSetup) -> (Vec<u64>, f64, TxRun, ferroce_sim::tx_path_rtl::PathFigures) {
    use ferroce_sim::models::contracts::sched::PACE_FRACTION_BITS;
    let (run, figures) = TxPathRtl::new(DEFAULT, Surroundings::FULL).run_measured(setup).unwrap();
    let model = TxModel.run(setup).unwrap();
    for queue in 1..=3 {
        let of = |frames: &[Vec<u8>]| frames.iter().filter(|f| wire_queue(f) == queue).cloned().collect::<Vec<_>>();
        assert!(of(&run.frames) == of(&model.frames), "queue {queue}'s frames are not the model's");
    }
    let paced: Vec<u64> = figures.frame_ends.iter().filter(|e| e.0 == Some(1)).map(|e| e.1).collect();
    let group_cycles = (4096 * u64::from(setup.pace_costs[&1])) as f64 / f64::from(1u32 << PACE_FRACTION_BITS);
    (paced, group_cycles, run, figures)
}

/// The rate of 4 KiB groups ending at `ends` (from the second on), in bytes per second.
fn group_rate(ends: &[u64], clock: u64) -> f64 {
    ((ends.len() - 2) * 4096) as f64 * clock as f64 / (ends.last().unwrap() - ends[1]) as f64
}

const CLOCK: u64 = 322_265_625;
const RATE: u64 = 4_000_000_000;

/// Queue 1 paced at 4 GB/s, alone: one 4 KiB group every 330 cycles, never closer, the rate
/// the set one.
#[test]
fn a_paced_queue_alone_leaves_a_group_at_a_time_at_its_rate() {
    use ferroce_sim::models::contracts::sched::pace_cost;
    let mut setup = weighted_setup(16, 1 << 20, 0, 256 << 10);
    setup.posts.retain(|p| p.queue == 1);
    setup.pace_costs.insert(1, pace_cost(RATE, CLOCK) as u32);
    let (paced, group_cycles, _, figures) = paced_run(&setup);
    let closest = paced.windows(2).map(|w| w[1] - w[0]).min().unwrap();
    let got = group_rate(&paced, CLOCK);
    println!(
        "queue 1 alone at {RATE} B/s: {} frames, a group every {group_cycles:.2} cycles, closest {closest}, {:.6} GB/s; {} cycles",
        paced.len(),
        got / 1e9,
        figures.cycles
    );
    assert_eq!(paced.len(), 256);
    // the path between the charge and the wire moves a frame by a few cycles
    assert!(closest as f64 >= group_cycles - 16.0, "two groups {closest} cycles apart");
    assert!((got / RATE as f64 - 1.0).abs() < 0.001, "{got}");
}

/// Queue 1 paced at 4 GB/s in the high table, queues 2 and 3 (weights 2 and 5, 4 KiB blocks)
/// in the low table keeping the wire full: every queue's frames are the model's; queue 1 is
/// decided as soon as its pause ends and leaves at its rate (a paced queue among bulk ones in
/// its own table would wait out the others' turns: a round-robin turn skipped while paused);
/// its frames queue behind blocks already cut for the others, so they leave closer or further
/// apart than its group time by up to the packet generator's look-ahead; queues 2 and 3 take
/// the rest.
#[test]
fn a_paced_queue_leaves_at_its_rate_between_the_others() {
    use ferroce_sim::models::contracts::sched::pace_cost;
    let mut setup = weighted_setup(12, 1 << 20, 0, 256 << 10);
    for q in [2, 3] {
        setup.queue_config.get_mut(&q).unwrap().high = false;
    }
    setup.pace_costs.insert(1, pace_cost(RATE, CLOCK) as u32);
    let (paced, group_cycles, _, figures) = paced_run(&setup);
    let gaps: Vec<u64> = paced.windows(2).map(|w| w[1] - w[0]).collect();
    // from the 16th group on, once the others' blocks fill the generator's look-ahead
    let got = group_rate(&paced[15..], CLOCK);
    // each frame's lateness against a group every `group_cycles` from the 16th
    let behind: Vec<i64> = paced[16..]
        .iter()
        .enumerate()
        .map(|(k, &e)| e as i64 - paced[16] as i64 - (k as f64 * group_cycles) as i64)
        .collect();
    println!(
        "queue 1 at {RATE} B/s among queues 2, 3: {} frames, a group every {group_cycles:.2} cycles, gaps {} to {}, from the 16th {} to {} cycles off schedule, {:.5} GB/s; {} cycles, {} beats",
        paced.len(),
        gaps.iter().min().unwrap(),
        gaps.iter().max().unwrap(),
        behind.iter().min().unwrap(),
        behind.iter().max().unwrap(),
        got / 1e9,
        figures.cycles,
        figures.beats
    );
    assert_eq!(paced.len(), 256);
    assert!((got / RATE as f64 - 1.0).abs() < 0.005, "{got}");
    assert!(
        figures.beats as f64 > 0.95 * figures.cycles as f64,
        "the wire kept full: {figures:?}"
    );
}
