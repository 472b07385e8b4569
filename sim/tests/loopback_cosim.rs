//! Two engines back to back in Verilator ([`Loopback`]: A's TX path sends to B's RX path, B's
//! RX path's response decisions go to B's TX path, which sends the ACKs and NAKs to A's RX
//! path), checked against the models at every step and against the bytes A sent:
//!
//! - A's frames on wire A→B are the TX model's for the same posts, in order; A's completions
//!   the model's;
//! - B's decisions are the responder model's for the frames that crossed (`Responder::receive_rx`
//!   of the RX front end model's result), in order;
//! - B's frames on wire B→A are the TX model's frames of the model's responses on B's contexts;
//! - A's RX path gives one decision per response frame, each `forwarded` with the frame's PSN
//!   and AETH (what the requester will complete transfers from; and the model's), writes
//!   nothing;
//! - every transfer's bytes are in B's memory, byte-exact, compared with A's `PatternMemory`
//!   (WRITEs at their remote address, SENDs in their receive buffer), and nothing else is;
//! - RC: every response an ACK, a QP's last ACK the PSN of its last packet; UC: no response;
//!   one receive completion per SEND and WRITE with immediate message, with its length and
//!   immediate (counted from the TX model's packets, not from the responder model).
//!
//! The tests: random RC and UC transfers at 64 bits under random backpressure, wire stalls and
//! memory latency, and at full speed; large transfers at 512 bits; a WRITE with a wrong R_Key
//! and one outside its region (NAK remote access error, nothing written, another QP's transfers
//! still land); a return wire slower than the ACKs (responses wait for `s_resp_ready`); and a
//! run that cannot finish (the progress limit). `--nocapture` prints a line per round. Setting
//! `FERROCE_LOOPBACK_PCAP` to a directory writes each round's frames there.
//!
//! Each round restarts A's TX path (reset, scheduler rewritten): the TX model starts its
//! scheduler afresh with each setup, and the RTL's WRR state carried from one round to the next
//! would send the same frames in another order. B keeps its state across rounds.

use ferroce_sim::contracts::responder::{completion_kind, message_operation, MessageKind, NakCode, ReceiveStatus, Syndrome};
use ferroce_sim::contracts::tx::{CompletionStatus, Pmtu, PostOp};
use ferroce_sim::loopback_rtl::{Loopback, LoopbackRun, Surroundings, WireTiming};
use ferroce_sim::models::responder::{Decision, Responder, Response};
use ferroce_sim::models::tx::{LocalMemory, Post, QpContext, SparseMemory, TxEngine, TxModel, TxPacket, TxPlan, TxRun, TxSetup};
use ferroce_sim::peers::{random_psn, Peer, Requesters};
use ferroce_sim::responder_rtl::{compare_decisions, PairedSetup, RECEIVE_QUEUE_DEPTH, REGIONS};
use ferroce_sim::rx::rx_model;
use ferroce_sim::rx_path_rtl::QPS;
use ferroce_sim::sched::QueueCfg;
use ferroce_sim::tx_path_rtl::{MemoryTiming, DEFAULT, SMALL};
use ferroce_sim::wire::Transport;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Instant;

const SEED: u64 = 0x100b_bac4;

/// Where a test's transfers go: each WRITE in its own slot of its peer's region, each SEND in
/// its own MiB above [`BUFFER_BASE`].
#[derive(Debug, Clone, Copy)]
struct Sizes {
    /// Bytes of a WRITE slot (at least the longest WRITE).
    slot: u64,
    /// Bytes of a peer's region.
    region: u64,
}

/// The loopback, the requesters that make A's posts, the golden responder models of both
/// engines, and what B's memory must hold.
struct Bench {
    lb: Loopback,
    requesters: Requesters,
    /// A's responder model: its RX path's decisions on the ACKs and NAKs.
    model_a: Responder,
    /// B's responder model, set up as B is.
    model_b: Responder,
    /// B's contexts by B's QP: the responder's and the addresses its ACKs go to.
    b_contexts: BTreeMap<u32, QpContext>,
    /// Every round's TX setup but contexts, posts and memory (sizes, block, scheduler).
    template: TxSetup,
    sizes: Sizes,
    /// WRITE slots handed out.
    slots: u64,
    /// What B's memory must hold.
    expected: SparseMemory,
    /// Where transfers landed: (address, bytes).
    landed: Vec<(u64, usize)>,
    /// Decisions so far on A and on B (the index of the next).
    decided: [usize; 2],
    rounds: usize,
}

/// B's context of QP `peer.qp`: the responder's, with the addresses of A's requester swapped,
/// DestQP A's QP `a_qp`: one context for both of B's halves.
fn b_context(peer: &Peer, a_qp: u32) -> QpContext {
    let r = &peer.requester;
    QpContext {
        src_mac: r.dst_mac,
        dst_mac: r.src_mac,
        src_ip: r.dst_ip,
        dst_ip: r.src_ip,
        ttl: r.ttl,
        udp_sport: 0xd000 | peer.qp as u16,
        dest_qpn: a_qp,
        ..peer.responder
    }
}

impl Bench {
    /// The loopback at `width` bits in `surroundings`, A's scheduler configured, A's requester
    /// contexts (A's QP `i` is peer `i`'s) and B's contexts committed, B's regions written.
    fn new(width: usize, surroundings: Surroundings, peers: Vec<Peer>, sizes: Sizes) -> Bench {
        let mut lb = Loopback::new(width, surroundings).unwrap_or_else(|e| panic!("{e}"));
        let mut template = lb.variant.fit(&TxSetup::default());
        template.queue_config.insert(
            2,
            QueueCfg {
                weight: 3,
                rate: 0,
                burst: 0,
                high: true,
                tb_en: false,
            },
        );
        lb.a.configure(&template);
        let mut model_a = Responder::new(QPS, REGIONS).unwrap();
        let mut model_b = Responder::new(QPS, REGIONS).unwrap();
        let mut b_contexts = BTreeMap::new();
        for (i, peer) in peers.iter().enumerate() {
            let mut a = lb.a.paired(&mut model_a);
            a.commit(i as u32, &peer.requester).unwrap();
            let context = b_context(peer, i as u32);
            let mut b = lb.b.paired(&mut model_b);
            b.add_region(peer.region).unwrap();
            b.commit(peer.qp, &context).unwrap();
            b_contexts.insert(peer.qp, context);
        }
        Bench {
            requesters: Requesters::new(surroundings.seed, peers),
            lb,
            model_a,
            model_b,
            b_contexts,
            template,
            sizes,
            slots: 0,
            expected: SparseMemory::new(),
            landed: Vec::new(),
            decided: [0; 2],
            rounds: 0,
        }
    }

    /// A post of `op` on peer `peer` (channel `channel`); a WRITE goes to a slot of its region
    /// no other post uses.
    fn post(&mut self, peer: usize, channel: u16, op: PostOp, length: u32) -> Post {
        let Sizes { slot, region } = self.sizes;
        assert!(u64::from(length) <= slot);
        self.slots += 1;
        let offset = (self.slots * slot) % region + self.requesters.rng.gen_range(0..=slot - u64::from(length));
        let base = self.requesters.peers[peer].region.base;
        self.requesters
            .post_at(peer, channel, op, length, base + offset.min(region - u64::from(length)))
    }

    /// One round: A's TX half restarts (its scheduler state as the TX model's, which starts
    /// afresh with each setup), A's requesters go on from the PSNs B expects (a commit on both
    /// of A's halves), B gets the receive buffers the messages need, the posts run; then every
    /// check of the module docs but the transport's ([`Bench::check_transport`]). `lands` says
    /// which posts' bytes must land in B's memory.
    fn round(&mut self, label: &str, posts: &[Post], lands: impl Fn(&Post) -> bool) -> (TxPlan, LoopbackRun) {
        self.lb.a.restart_tx().unwrap();
        for i in 0..self.requesters.peers.len() {
            self.requesters.resync(&self.model_b, i);
            let context = self.requesters.peers[i].requester;
            self.lb.a.paired(&mut self.model_a).commit(i as u32, &context).unwrap();
        }
        let setup = TxSetup {
            contexts: (0u32..).zip(self.requesters.peers.iter().map(|p| p.requester)).collect(),
            posts: posts.to_vec(),
            memory: Arc::new(self.requesters.source),
            ..self.template.clone()
        };
        let plan = TxModel::plan(&setup).unwrap();
        let model = TxModel.run(&setup).unwrap();
        let buffers = self
            .requesters
            .post_buffers(&mut self.lb.b.paired(&mut self.model_b), posts, &plan.packets, |p| {
                Some(p.length + 8)
            });
        let started = Instant::now();
        let run = self
            .lb
            .run(posts, Arc::new(self.requesters.source))
            .unwrap_or_else(|e| panic!("{label}: {e}"));
        let took = started.elapsed();
        if let Ok(dir) = std::env::var("FERROCE_LOOPBACK_PCAP") {
            let path = std::path::Path::new(&dir).join(format!("loopback_{}.pcap", label.replace([' ', '/'], "_")));
            run.write_pcap(&path).unwrap();
        }
        self.check_requester(label, &model, &run);
        let responses = self.check_responder(label, &run);
        self.check_response_frames(label, &run, &responses);
        self.check_acknowledgements(label, &run);
        for post in posts.iter().filter(|p| lands(p)) {
            self.landed_whole(post, buffers.get(&post.channel).copied());
        }
        self.check_memory(label);
        self.rounds += 1;
        let bytes: u64 = posts.iter().map(|p| u64::from(p.length)).sum();
        println!(
            "{label}: {} transfers, {bytes} B; {} frames A→B ({} beats), {} frames B→A ({} NAKs; responses waited {} cycles \
             for s_resp_ready); {} cycles ({} per transfer, {:.2} payload B/cycle); {:.1} s, {:.0} cycles/s",
            posts.len(),
            run.a_to_b.len(),
            run.wire_beats[0],
            run.b_to_a.len(),
            responses.iter().filter(|r| r.aeth.syndrome.is_nak()).count(),
            run.response_waits[1],
            run.cycles,
            run.cycles / posts.len().max(1) as u64,
            bytes as f64 / run.cycles.max(1) as f64,
            took.as_secs_f64(),
            run.cycles as f64 / took.as_secs_f64()
        );
        (plan, run)
    }

    /// A's side: post results, its frames on wire A→B and its completions are the TX model's.
    fn check_requester(&self, label: &str, model: &TxRun, run: &LoopbackRun) {
        assert_eq!(run.post_results, model.post_results, "{label}: post results");
        assert!(model.post_results.iter().all(Result::is_ok), "{label}: {:?}", model.post_results);
        assert!(run.a_to_b.iter().all(|f| !f.response), "{label}: A sent a response frame");
        for (i, (got, want)) in run.a_to_b.iter().zip(&model.frames).enumerate() {
            assert!(
                got.bytes == *want,
                "{label}: frame {i} of {} on wire A→B differs from the TX model's ({} and {} bytes){}",
                model.frames.len(),
                got.bytes.len(),
                want.len(),
                first_difference(&got.bytes, want)
            );
        }
        assert_eq!(run.a_to_b.len(), model.frames.len(), "{label}: frames on wire A→B");
        assert_eq!(run.completions, model.completions, "{label}: A's completions");
        assert!(model.completions.iter().all(|(_, s)| *s == CompletionStatus::Success));
    }

    /// B's decisions are the responder model's for the frames that crossed wire A→B, and B
    /// passed nothing through. Returns the model's responses, in order.
    fn check_responder(&mut self, label: &str, run: &LoopbackRun) -> Vec<Response> {
        let mut want = Vec::new();
        let mut what = Vec::new();
        let mut responses = Vec::new();
        for (i, frame) in run.a_to_b.iter().enumerate() {
            let rx = rx_model(&frame.bytes);
            let outcome = self
                .model_b
                .receive_rx(&rx)
                .unwrap_or_else(|| panic!("{label}: frame {i} A→B is not RoCEv2"));
            let record = rx.record.expect("a decided frame has a record");
            let bth = record.bth.expect("a BTH");
            want.push(Decision::of(&outcome, bth.dqpn, record.payload_len as u16));
            what.push(format!(
                "frame {i} A→B: opcode {:#04x} dqpn {} psn {:#x}",
                bth.opcode, bth.dqpn, bth.psn
            ));
            responses.extend(outcome.response);
        }
        compare_decisions(&run.b_decisions, &want, self.decided[1], |i| what[i].clone()).unwrap_or_else(|e| panic!("{label}: B: {e}"));
        self.decided[1] += want.len();
        assert!(run.b_passed.is_empty(), "{label}: B passed {} frames through", run.b_passed.len());
        responses
    }

    /// B's frames on wire B→A are the TX model's frames of `responses` on B's contexts.
    fn check_response_frames(&self, label: &str, run: &LoopbackRun, responses: &[Response]) {
        let setup = TxSetup {
            contexts: self.b_contexts.clone(),
            responses: responses.to_vec(),
            ..self.template.clone()
        };
        let model = TxModel.run(&setup).unwrap();
        assert!(model.frames.is_empty());
        assert!(
            run.b_to_a.iter().all(|f| f.response),
            "{label}: B sent a frame not marked m_packet_response"
        );
        for (i, (got, want)) in run.b_to_a.iter().zip(&model.responses).enumerate() {
            assert!(
                got.bytes == *want,
                "{label}: response frame {i} of {} on wire B→A ({:?}) differs from the TX model's{}",
                model.responses.len(),
                responses[i],
                first_difference(&got.bytes, want)
            );
        }
        assert_eq!(run.b_to_a.len(), model.responses.len(), "{label}: response frames on wire B→A");
    }

    /// A's RX path: one decision per response frame, each `forwarded` on A's QP the frame names,
    /// no failure, nothing written or passed through; and the responder model's decisions.
    fn check_acknowledgements(&mut self, label: &str, run: &LoopbackRun) {
        assert_eq!(run.a_decisions.len(), run.b_to_a.len(), "{label}: A's decisions, one per frame B→A");
        let mut want = Vec::new();
        for (i, (entry, frame)) in run.a_decisions.iter().zip(&run.b_to_a).enumerate() {
            let d = Decision::from_words(entry);
            let rx = rx_model(&frame.bytes);
            let record = rx.record.expect("a response frame has a record");
            let dqpn = record.bth.expect("a BTH").dqpn;
            assert!(
                d.forwarded && d.failure == 0 && !d.write && !d.response && !d.completion && d.qp == dqpn,
                "{label}: A's decision {i} on response frame {i} (DestQP {dqpn}): {d}"
            );
            // what the requester reads of it: the frame's PSN and AETH
            let aeth = record.aeth.expect("a response frame has an AETH");
            assert_eq!(
                (d.response_psn, d.response_syndrome, d.response_msn),
                (record.bth.expect("a BTH").psn, aeth.syndrome, aeth.msn),
                "{label}: A's decision {i}: {d}"
            );
            let outcome = self.model_a.receive_rx(&rx).expect("RoCEv2");
            want.push(Decision::of(&outcome, dqpn, record.payload_len as u16));
        }
        compare_decisions(&run.a_decisions, &want, self.decided[0], |i| format!("response frame {i}"))
            .unwrap_or_else(|e| panic!("{label}: A: {e}"));
        self.decided[0] += want.len();
        assert!(run.a_writes.is_empty(), "{label}: A's RX path wrote {:?}", run.a_writes);
        assert!(self.lb.a.memory == SparseMemory::new(), "{label}: A's memory was written");
        assert!(run.a_passed.is_empty(), "{label}: A passed {} frames through", run.a_passed.len());
    }

    /// RC: every response of B an ACK, each QP's last one the PSN of its last packet; UC: none.
    /// Per QP, one receive completion per SEND and WRITE with immediate message, with its
    /// length and immediate, in order.
    fn check_transport(&self, label: &str, plan: &TxPlan, run: &LoopbackRun) {
        let decisions: Vec<Decision> = run.b_decisions.iter().map(|e| Decision::from_words(e)).collect();
        for (i, peer) in self.requesters.peers.iter().enumerate() {
            let responses: Vec<&Decision> = decisions.iter().filter(|d| d.response && d.qp == peer.qp).collect();
            let last_packet = plan.packets.iter().rev().find(|p| p.qp == i as u32);
            if peer.requester.transport == Transport::Rc.bits() {
                for d in &responses {
                    assert!(
                        matches!(Syndrome::decode(d.response_syndrome), Some(Syndrome::Ack { .. })),
                        "{label}: RC QP {}: a response that is not an ACK: {d}",
                        peer.qp
                    );
                }
                if let Some(p) = last_packet {
                    let last_ack = responses.last().map(|d| d.response_psn);
                    assert_eq!(last_ack, Some(p.bth.psn), "{label}: RC QP {}: the last ACK's PSN", peer.qp);
                }
            } else {
                assert!(responses.is_empty(), "{label}: UC QP {} answered: {}", peer.qp, responses[0]);
            }
            let got: Vec<(u8, u32, Option<u32>)> = decisions
                .iter()
                .filter(|d| d.completion && d.qp == peer.qp)
                .map(|d| {
                    assert_eq!(d.completion_status, ReceiveStatus::Success.code(), "{label}: {d}");
                    (
                        d.completion_kind,
                        d.completion_length,
                        d.completion_immediate_valid.then_some(d.completion_immediate),
                    )
                })
                .collect();
            assert_eq!(
                got,
                expected_completions(&plan.packets, i as u32),
                "{label}: QP {}: receive completions (kind, length, immediate)",
                peer.qp
            );
        }
    }

    /// The whole of `post` landed: a WRITE at its remote address, a SEND in `buffer`.
    fn landed_whole(&mut self, post: &Post, buffer: Option<u64>) {
        let address = match PostOp::from_code(post.op) {
            Some(PostOp::Send | PostOp::SendImm) => buffer.expect("a SEND's buffer"),
            _ => post.remote_addr,
        };
        let bytes = self.requesters.source.bytes(post.local_addr, post.length as usize);
        self.expected.write(address, &bytes);
        self.landed.push((address, bytes.len()));
    }

    /// B's memory holds every landed transfer's bytes, byte-exact, and nothing else.
    fn check_memory(&self, label: &str) {
        let memory = &self.lb.b.memory;
        for &(address, len) in &self.landed {
            let (got, want) = (memory.bytes(address, len), self.expected.bytes(address, len));
            if let Some(at) = got.iter().zip(&want).position(|(a, b)| a != b) {
                panic!(
                    "{label}: {len} bytes sent to {address:#x}: byte {at} is {:#04x} in B's memory, {:#04x} sent",
                    got[at], want[at]
                );
            }
        }
        assert!(
            *memory == self.expected,
            "{label}: B's memory holds bytes outside every transfer's destination"
        );
    }
}

/// Per message of local QP `qp` that completes at the responder (a SEND, a WRITE with
/// immediate), in order: its completion kind, its bytes and its immediate.
fn expected_completions(packets: &[TxPacket], qp: u32) -> Vec<(u8, u32, Option<u32>)> {
    let mut bytes = 0;
    let mut completions = Vec::new();
    for p in packets.iter().filter(|p| p.qp == qp) {
        let Some((kind, position)) = message_operation(p.bth.opcode.operation()) else {
            continue;
        };
        if position.starts() {
            bytes = 0;
        }
        bytes += p.payload_len;
        let completes = matches!(kind, MessageKind::Send) || p.immediate.is_some();
        if position.ends() && completes {
            let kind = match kind {
                MessageKind::Send => completion_kind::SEND,
                MessageKind::Write => completion_kind::WRITE,
            };
            completions.push((kind, bytes, p.immediate));
        }
    }
    completions
}

/// `, first difference at byte N: ...`, or the empty string when one is a prefix of the other.
fn first_difference(got: &[u8], want: &[u8]) -> String {
    match got.iter().zip(want).position(|(a, b)| a != b) {
        Some(at) => format!(
            ", first difference at byte {at}: got {:02x?}, expected {:02x?}",
            &got[at..(at + 8).min(got.len())],
            &want[at..(at + 8).min(want.len())]
        ),
        None => String::new(),
    }
}

/// `count` different QP numbers of B below `qps`.
fn distinct_qps(rng: &mut ChaCha8Rng, count: usize, qps: u32) -> Vec<u32> {
    let mut drawn: Vec<u32> = Vec::new();
    while drawn.len() < count {
        let qp = rng.gen_range(0..qps);
        if !drawn.contains(&qp) {
            drawn.push(qp);
        }
    }
    drawn
}

/// Six connections to B's QPs below `qps`: RC and UC in turn (from a random one), the five
/// PMTUs in a row from a random one, ACK coalescing on some, PSNs near the wrap or anywhere.
fn random_peers(rng: &mut ChaCha8Rng, qps: u32, region: u64) -> Vec<Peer> {
    let b_qps = distinct_qps(rng, 6, qps);
    let first_pmtu = rng.gen_range(0..Pmtu::ALL.len());
    let first_transport = rng.gen_range(0..2);
    b_qps
        .iter()
        .enumerate()
        .map(|(i, &qp)| {
            let transport = if (i + first_transport) % 2 == 0 {
                Transport::Rc
            } else {
                Transport::Uc
            };
            let pmtu = Pmtu::ALL[(first_pmtu + i) % Pmtu::ALL.len()];
            let mut peer = Peer::new(qp, transport, pmtu, 1 + i as u16, 1 + i as u32, random_psn(rng))
                .ack_every([0, 1, 3, 2, 0, 1][i])
                .region_length(region);
            peer.requester.ack_every = rng.gen_range(0..4);
            peer
        })
        .collect()
}

/// Random memory latency and stalls, wire latency, room and stalls, backpressure everywhere
/// (posts back to back: the TX model's order).
fn random_surroundings(rng: &mut ChaCha8Rng, seed: u64) -> Surroundings {
    Surroundings {
        memory: MemoryTiming {
            latency: rng.gen_range(1..80),
            outstanding: rng.gen_range(1..12),
            stall_pct: rng.gen_range(0..30),
        },
        wire_ab: WireTiming {
            latency: rng.gen_range(1..12),
            beats: rng.gen_range(2..16),
            stall_pct: rng.gen_range(0..25),
        },
        // a slow return wire at times: B's TX path backs up, its responses wait for it
        wire_ba: WireTiming {
            latency: rng.gen_range(1..12),
            beats: rng.gen_range(2..16),
            stall_pct: if rng.gen_bool(0.5) {
                rng.gen_range(85..97)
            } else {
                rng.gen_range(0..25)
            },
        },
        post_idle_pct: 0,
        read_bp_pct: rng.gen_range(0..30),
        completion_bp_pct: rng.gen_range(0..50),
        host_bp_pct: rng.gen_range(0..40),
        write_bp_pct: rng.gen_range(0..30),
        seed,
    }
}

/// Random posts on random peers, one channel each: every operation, lengths from `length`,
/// at most [`RECEIVE_QUEUE_DEPTH`] messages needing a receive buffer per QP.
fn random_posts(bench: &mut Bench, rng: &mut ChaCha8Rng, count: u16, length: impl Fn(&mut ChaCha8Rng, PostOp) -> u32) -> Vec<Post> {
    let mut buffers = vec![0usize; bench.requesters.peers.len()];
    (0..count)
        .map(|channel| {
            let peer = rng.gen_range(0..bench.requesters.peers.len());
            let mut op = PostOp::ALL[rng.gen_range(0..4)];
            if op != PostOp::Write {
                if buffers[peer] < RECEIVE_QUEUE_DEPTH {
                    buffers[peer] += 1;
                } else {
                    op = PostOp::Write;
                }
            }
            let len = length(rng, op);
            bench.post(peer, channel, op, len)
        })
        .collect()
}

/// A payload length up to 64 KiB: a few empty, most small, some long.
fn length_64k(rng: &mut ChaCha8Rng, _: PostOp) -> u32 {
    match rng.gen_range(0..10) {
        0 => 0,
        1..=4 => rng.gen_range(1..600),
        5..=8 => rng.gen_range(600..9000),
        _ => rng.gen_range(9000..=65536),
    }
}

/// `rounds` rounds of `posts` random posts (lengths from `length`) on six random peers, in
/// `surroundings` (random ones drawn from `seed` if `None`).
fn random_rounds(
    width: usize,
    seed: u64,
    surroundings: Option<Surroundings>,
    rounds: usize,
    posts: u16,
    sizes: Sizes,
    length: impl Fn(&mut ChaCha8Rng, PostOp) -> u32 + Copy,
) {
    let variant = if width == 64 { SMALL } else { DEFAULT };
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let surroundings = surroundings.unwrap_or_else(|| random_surroundings(&mut rng, seed));
    println!("{width} bits, {}: {surroundings:?}", variant.name);
    let peers = random_peers(&mut rng, variant.qps, sizes.region);
    let mut bench = Bench::new(width, surroundings, peers, sizes);
    let (mut total_cycles, mut transfers, mut bytes) = (0u64, 0usize, 0u64);
    for round in 0..rounds {
        let posts = random_posts(&mut bench, &mut rng, posts, length);
        let label = format!("{width} bits, seed {seed:#x}, round {round}");
        let (plan, run) = bench.round(&label, &posts, |_| true);
        bench.check_transport(&label, &plan, &run);
        total_cycles += run.cycles;
        transfers += posts.len();
        bytes += posts.iter().map(|p| u64::from(p.length)).sum::<u64>();
    }
    println!(
        "{width} bits, seed {seed:#x}: {transfers} transfers, {bytes} B in {total_cycles} cycles: {} cycles per transfer, {:.2} B/cycle",
        total_cycles / transfers as u64,
        bytes as f64 / total_cycles as f64
    );
}

/// Random RC and UC transfers at 64 bits, twice under random surroundings, once with nothing
/// pushing back (the cycle figures of the path at full speed).
#[test]
fn random_rc_and_uc_transfers_land_and_are_acknowledged_at_64_bits() {
    let sizes = Sizes {
        slot: 0x2_0000,
        region: 1 << 24,
    };
    random_rounds(64, SEED, None, 4, 12, sizes, length_64k);
    random_rounds(64, SEED + 1, None, 4, 16, sizes, length_64k);
    random_rounds(64, SEED + 8, None, 3, 16, sizes, length_64k);
    random_rounds(
        64,
        SEED + 5,
        Some(Surroundings {
            seed: SEED + 5,
            ..Surroundings::FULL
        }),
        2,
        16,
        sizes,
        length_64k,
    );
}

/// Transfers up to 1 MiB at 512 bits (the default TX path), under random surroundings and
/// with nothing pushing back.
#[test]
fn large_transfers_land_and_are_acknowledged_at_512_bits() {
    const MIB: u32 = 1 << 20;
    let sizes = Sizes {
        slot: 2 << 20,
        region: 1 << 26,
    };
    // a SEND fits its MiB of buffers (at most 4 KiB in, 8 bytes longer than the message)
    let length = |rng: &mut ChaCha8Rng, op: PostOp| match (rng.gen_range(0..4), op) {
        (0, _) => rng.gen_range(0..4096),
        (1 | 2, _) => rng.gen_range(4096..256 << 10),
        (_, PostOp::Send | PostOp::SendImm) => rng.gen_range(256 << 10..MIB - 8192),
        _ => rng.gen_range(256 << 10..=MIB),
    };
    random_rounds(512, SEED + 2, None, 2, 6, sizes, length);
    random_rounds(
        512,
        SEED + 6,
        Some(Surroundings {
            seed: SEED + 6,
            ..Surroundings::FULL
        }),
        1,
        6,
        sizes,
        length,
    );
}

/// RC: a WRITE whose requester has a wrong R_Key and one past its region's end are
/// answered with a NAK (remote access error, syndrome 0x62) that reaches A as a `forwarded`
/// decision, and write nothing; a good WRITE on a third QP in the same run and a SEND and a
/// WRITE on it in the next land.
#[test]
fn a_wrong_r_key_or_a_write_outside_the_region_is_nakked_and_writes_nothing() {
    let mut rng = ChaCha8Rng::seed_from_u64(SEED + 3);
    let b_qps = distinct_qps(&mut rng, 3, SMALL.qps);
    let peers: Vec<Peer> = b_qps
        .iter()
        .enumerate()
        .map(|(i, &qp)| Peer::new(qp, Transport::Rc, Pmtu::B256, 1 + i as u16, 1 + i as u32, random_psn(&mut rng)).ack_every(0))
        .collect();
    let (wrong_key, outside, good) = (0usize, 1usize, 2usize);
    let sizes = Sizes {
        slot: 0x2_0000,
        region: peers[0].region.length,
    };
    let surroundings = random_surroundings(&mut rng, SEED + 3);
    let mut bench = Bench::new(64, surroundings, peers, sizes);
    // A's requester on the first QP has the R_Key of another region entry
    bench.requesters.peers[wrong_key].requester.rkey ^= 1 << 8;
    let nak = Syndrome::Nak(NakCode::RemoteAccessError).encode();
    assert_eq!(nak, 0x62);

    let region = bench.requesters.peers[outside].region;
    // (a WRITE across the region's end is two messages, the TX path cutting blocks at 64 KiB
    // boundaries: its first would land)
    let posts = vec![
        bench.post(wrong_key, 0, PostOp::Write, 1000),
        bench
            .requesters
            .post_at(outside, 1, PostOp::Write, 700, region.base + region.length),
        bench.post(good, 2, PostOp::Write, 3000),
    ];
    let (plan, run) = bench.round("wrong R_Key", &posts, |p| p.qp == good as u32);
    let decisions: Vec<Decision> = run.b_decisions.iter().map(|e| Decision::from_words(e)).collect();
    for bad in [wrong_key, outside] {
        let qp = bench.requesters.peers[bad].qp;
        let first_psn = plan.packets.iter().find(|p| p.qp == bad as u32).expect("a packet").bth.psn;
        let naks: Vec<&Decision> = decisions.iter().filter(|d| d.qp == qp && d.response).collect();
        assert_eq!(naks.len(), 1, "QP {qp}: one NAK: {naks:?}");
        assert_eq!(
            (naks[0].response_syndrome, naks[0].response_psn),
            (nak, first_psn),
            "QP {qp}: {}",
            naks[0]
        );
        assert!(decisions.iter().filter(|d| d.qp == qp).all(|d| !d.write), "QP {qp} wrote");
        // its frame on wire B→A carries the NAK, and A forwarded it
        let at = run
            .b_to_a
            .iter()
            .position(|f| rx_model(&f.bytes).record.and_then(|r| r.bth).map(|b| b.psn) == Some(first_psn))
            .expect("the NAK's frame on wire B→A");
        let record = rx_model(&run.b_to_a[at].bytes).record.unwrap();
        assert_eq!(record.aeth.map(|a| a.syndrome), Some(nak), "the NAK frame's AETH");
        assert_eq!(record.bth.unwrap().dqpn, bad as u32, "the NAK goes to A's QP");
        let forwarded = Decision::from_words(&run.a_decisions[at]);
        assert!(
            forwarded.forwarded && forwarded.failure == 0 && forwarded.qp == bad as u32,
            "A: {forwarded}"
        );
        assert_eq!(
            (forwarded.response_syndrome, forwarded.response_psn),
            (nak, first_psn),
            "A reads the NAK: {forwarded}"
        );
    }
    let good_qp = bench.requesters.peers[good].qp;
    assert!(
        decisions
            .iter()
            .any(|d| d.qp == good_qp && d.response && d.response_syndrome != nak),
        "the good QP was acknowledged"
    );
    // the next run: the good QP's transfers still land
    let posts = vec![bench.post(good, 0, PostOp::Send, 2000), bench.post(good, 1, PostOp::Write, 5000)];
    let (plan, run) = bench.round("after the NAKs", &posts, |_| true);
    bench.check_transport("after the NAKs", &plan, &run);
}

/// A return wire much slower than the ACKs B makes (RC, every packet acknowledged): B's TX path
/// backs up, response decisions wait on `m_dec` for `s_resp_ready` (and B's RX path, and A's TX
/// path behind it, for them), and everything still lands and is acknowledged in order.
#[test]
fn responses_wait_for_a_slow_return_wire() {
    let mut rng = ChaCha8Rng::seed_from_u64(SEED + 7);
    let b_qps = distinct_qps(&mut rng, 2, SMALL.qps);
    let peers: Vec<Peer> = b_qps
        .iter()
        .enumerate()
        .map(|(i, &qp)| {
            let mut peer = Peer::new(qp, Transport::Rc, Pmtu::B256, 1 + i as u16, 1 + i as u32, random_psn(&mut rng)).ack_every(1);
            peer.requester.ack_every = 1;
            peer
        })
        .collect();
    let surroundings = Surroundings {
        wire_ba: WireTiming {
            latency: 4,
            beats: 2,
            stall_pct: 97,
        },
        seed: SEED + 7,
        ..Surroundings::FULL
    };
    let sizes = Sizes {
        slot: 0x2_0000,
        region: peers[0].region.length,
    };
    let mut bench = Bench::new(64, surroundings, peers, sizes);
    let posts = vec![
        bench.post(0, 0, PostOp::Write, 12000),
        bench.post(1, 1, PostOp::Send, 9000),
        bench.post(0, 2, PostOp::WriteImm, 3000),
    ];
    let (plan, run) = bench.round("slow return wire", &posts, |_| true);
    bench.check_transport("slow return wire", &plan, &run);
    assert!(run.response_waits[1] > 0, "no response waited for s_resp_ready");
}

/// A host that never takes a decision: B's RX path stops at its first, and the run is an error
/// that says where each stream stands, not a hang.
#[test]
fn a_run_that_cannot_finish_is_an_error() {
    let mut rng = ChaCha8Rng::seed_from_u64(SEED + 4);
    let peers = vec![Peer::new(3, Transport::Uc, Pmtu::B1024, 1, 1, random_psn(&mut rng))];
    let surroundings = Surroundings {
        host_bp_pct: 100,
        ..Surroundings::FULL
    };
    let sizes = Sizes {
        slot: 0x2_0000,
        region: peers[0].region.length,
    };
    let mut bench = Bench::new(64, surroundings, peers, sizes);
    let posts = vec![bench.post(0, 0, PostOp::Write, 3000)];
    let err = match bench.lb.run(&posts, Arc::new(bench.requesters.source)) {
        Ok(run) => panic!("the run finished: {} decisions", run.b_decisions.len()),
        Err(e) => e,
    };
    assert!(
        err.contains("nothing moved") && err.contains("engine B") && err.contains("held"),
        "{err}"
    );
}
