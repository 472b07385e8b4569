//! The two-engine loopback ([`Loopback`]) with what checks it: A's requesters, the golden
//! responder models of both engines and what B's memory must hold. `sim/tests/loopback_cosim.rs`
//! and `ferroce-sim loopback` run it.
//!
//! A round ([`LoopbackBench::round`]) runs a set of posts on A and checks, against the models and
//! the bytes A sent:
//!
//! - A's frames on wire A→B are the TX model's for the same posts, in order; A's completions
//!   those of the TX model's transfers through the ACK tracker's model (RC ones on B's ACKs);
//! - B's decisions are the responder model's for the frames that crossed (`Responder::receive_rx`
//!   of the RX front end model's result), in order;
//! - B's frames on wire B→A are the TX model's frames of the model's responses on B's contexts;
//! - A's RX path gives one decision per response frame, each `forwarded` with the frame's PSN
//!   and AETH (what the requester will complete transfers from; and the model's), writes
//!   nothing;
//! - every transfer's bytes are in B's memory, byte-exact, compared with A's `PatternMemory`
//!   (WRITEs at their remote address, SENDs in their receive buffer), and nothing else is.
//!
//! [`LoopbackBench::check_transport`] adds the transport's checks: RC, every response an ACK, a
//! QP's last ACK the PSN of its last packet; UC, no response; one receive completion per SEND
//! and WRITE with immediate message, with its length and immediate (counted from the TX
//! model's packets, not from the responder model).
//!
//! Each round restarts A's TX path (reset, scheduler rewritten): the TX model starts its
//! scheduler afresh with each setup, and the RTL's WRR state carried from one round to the next
//! would send the same frames in another order. B keeps its state across rounds.

use crate::axis::first_difference;
use crate::bench::{CMAC_CLOCK_HZ, LINE_RATE, WIRE_OVERHEAD};
use crate::contracts::responder::{completion_kind, message_operation, MessageKind, ReceiveStatus, Syndrome};
use crate::contracts::tx::{CompletionStatus, Pmtu, PostOp};
use crate::faults::Faults;
use crate::loopback_rtl::{variant_of_width, Loopback, LoopbackRun, LoopbackVariant, Surroundings, WireTiming};
use crate::models::responder::{Decision, Responder, Response};
use crate::models::tx::acknowledge::{completion_set, AckTracker};
use crate::models::tx::{LocalMemory, Post, QpContext, SparseMemory, TxEngine, TxModel, TxPacket, TxPlan, TxRun, TxSetup};
use crate::peers::{distinct_qps, random_op, random_psn, Peer, Requesters};
use crate::responder_rtl::{compare_decisions, PairedSetup, REGIONS};
use crate::rx::rx_model;
use crate::sched::QueueCfg;
use crate::tx_path_rtl::MemoryTiming;
use crate::wire::Transport;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Returns `Err(format!(...))` from the enclosing function unless `cond` holds.
macro_rules! ensure {
    ($cond:expr, $($message:tt)+) => {
        if !$cond {
            return Err(format!($($message)+));
        }
    };
}

/// Where a bench's transfers go: each WRITE in its own slot of its peer's region, each SEND in
/// its own MiB of receive buffers ([`crate::peers::BUFFER_BASE`]).
#[derive(Debug, Clone, Copy)]
pub struct Sizes {
    /// Bytes of a WRITE slot (at least the longest WRITE).
    pub slot: u64,
    /// Bytes of a peer's region.
    pub region: u64,
}

/// What one round ran and how long it took.
pub struct Round {
    /// The TX model's plan of the round's posts (its packets in wire order).
    pub plan: TxPlan,
    /// What the loopback produced.
    pub run: LoopbackRun,
    /// The responder model's responses on B, in order.
    pub responses: Vec<Response>,
    /// Payload bytes posted.
    pub bytes: u64,
    /// Posts.
    pub transfers: usize,
    /// Wall-clock time of the simulation.
    pub took: Duration,
}

impl Round {
    /// One line: transfers, frames each way, NAKs, cycles, payload bytes per cycle, speed.
    pub fn summary(&self, label: &str) -> String {
        let run = &self.run;
        format!(
            "{label}: {} transfers, {} B; {} frames A→B ({} beats), {} frames B→A ({} NAKs; responses waited {} cycles \
             for s_resp_ready); {} cycles ({} per transfer, {:.2} payload B/cycle); {:.1} s, {:.0} cycles/s",
            self.transfers,
            self.bytes,
            run.a_to_b.len(),
            run.wire_beats[0],
            run.b_to_a.len(),
            self.responses.iter().filter(|r| r.aeth.syndrome.is_nak()).count(),
            run.response_waits[1],
            run.cycles,
            run.cycles / self.transfers.max(1) as u64,
            self.bytes as f64 / run.cycles.max(1) as f64,
            self.took.as_secs_f64(),
            run.cycles as f64 / self.took.as_secs_f64()
        )
    }

    /// Bytes of wire A→B's frames with the Ethernet overhead (FCS, preamble, gap).
    pub fn wire_bytes(&self) -> u64 {
        self.run.a_to_b.iter().map(|f| f.bytes.len() as u64 + WIRE_OVERHEAD).sum()
    }
}

/// The loopback, the requesters that make A's posts, the golden responder models of both
/// engines, and what B's memory must hold.
pub struct LoopbackBench {
    /// The engines and the wires.
    pub lb: Loopback,
    /// A's requesters: A's QP `i` is peer `i`'s.
    pub requesters: Requesters,
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
    /// A's memory as the READs so far leave it, and where they landed.
    read_expected: SparseMemory,
    read_landed: Vec<(u64, usize)>,
    /// Decisions so far on A and on B (the index of the next).
    decided: [usize; 2],
    /// Each round's frames go to a pcap file in this directory when set.
    pub pcap_dir: Option<PathBuf>,
}

/// B's context of QP `peer.qp`: the responder's, with the addresses of A's requester swapped,
/// DestQP A's QP `a_qp`: one context for both of B's halves.
pub fn b_context(peer: &Peer, a_qp: u32) -> QpContext {
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

impl LoopbackBench {
    /// The loopback at `width` bits in `surroundings`, A's scheduler configured (queue 2 high
    /// priority, weight 3), A's requester contexts and B's contexts committed, B's regions
    /// written.
    pub fn new(width: usize, surroundings: Surroundings, peers: Vec<Peer>, sizes: Sizes) -> Result<LoopbackBench, String> {
        LoopbackBench::of(variant_of_width(width)?, surroundings, peers, sizes)
    }

    /// [`LoopbackBench::new`] with the engines of `variant`.
    pub fn of(variant: LoopbackVariant, surroundings: Surroundings, peers: Vec<Peer>, sizes: Sizes) -> Result<LoopbackBench, String> {
        let mut lb = Loopback::of(variant, surroundings)?;
        let mut template = lb.variant.tx.fit(&TxSetup::default());
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
        let model = || Responder::new(variant.rx.qps, REGIONS).map_err(|e| format!("the responder model: {e:?}"));
        let (mut model_a, mut model_b) = (model()?, model()?);
        let mut b_contexts = BTreeMap::new();
        for (i, peer) in peers.iter().enumerate() {
            lb.a.paired(&mut model_a).commit(i as u32, &peer.requester)?;
            let context = b_context(peer, i as u32);
            let mut b = lb.b.paired(&mut model_b);
            b.add_region(peer.region)?;
            b.commit(peer.qp, &context)?;
            b_contexts.insert(peer.qp, context);
        }
        Ok(LoopbackBench {
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
            read_expected: SparseMemory::new(),
            read_landed: Vec::new(),
            decided: [0; 2],
            pcap_dir: None,
        })
    }

    /// A post of `op` on peer `peer` (channel `channel`); a WRITE goes to a slot of its region
    /// no other post uses.
    pub fn post(&mut self, peer: usize, channel: u16, op: PostOp, length: u32) -> Post {
        let Sizes { slot, region } = self.sizes;
        assert!(u64::from(length) <= slot, "a post of {length} bytes in slots of {slot}");
        self.slots += 1;
        let offset = (self.slots * slot) % region + self.requesters.rng.gen_range(0..=slot - u64::from(length));
        let base = self.requesters.peers[peer].region.base;
        self.requesters
            .post_at(peer, channel, op, length, base + offset.min(region - u64::from(length)))
    }

    /// One round: A's TX half restarts (its scheduler state as the TX model's, which starts
    /// afresh with each setup), A's requesters go on from the PSNs B expects (a commit on both
    /// of A's halves), B gets the receive buffers the messages need, the posts run; then every
    /// check of the module docs but the transport's ([`LoopbackBench::check_transport`]).
    /// `lands` says which posts' bytes must land in B's memory.
    pub fn round(&mut self, label: &str, posts: &[Post], lands: impl Fn(&Post) -> bool) -> Result<Round, String> {
        let (setup, plan, buffers) = self.prepare(label, posts)?;
        let model = TxModel.run(&setup)?;
        let started = Instant::now();
        let run = self
            .lb
            .run(posts, Arc::new(self.requesters.source))
            .map_err(|e| format!("{label}: {e}"))?;
        let took = started.elapsed();
        if let Some(dir) = &self.pcap_dir {
            let path = dir.join(format!("loopback_{}.pcap", label.replace([' ', '/', ','], "_")));
            run.write_pcap(&path)?;
        }
        self.check_requester(&model, &run).map_err(|e| format!("{label}: {e}"))?;
        let responses = self.check_responder(&run).map_err(|e| format!("{label}: B: {e}"))?;
        self.check_response_frames(&run, &responses).map_err(|e| format!("{label}: {e}"))?;
        self.check_acknowledgements(&run).map_err(|e| format!("{label}: A: {e}"))?;
        self.check_completions(&plan, &run).map_err(|e| format!("{label}: {e}"))?;
        for post in posts.iter().filter(|p| lands(p)) {
            self.landed_whole(post, buffers.get(&post.channel).copied());
        }
        self.check_memory().map_err(|e| format!("{label}: {e}"))?;
        if run.write_latencies.len() != run.b_writes.len() {
            return Err(format!(
                "{label}: {} write latencies for {} writes of B",
                run.write_latencies.len(),
                run.b_writes.len()
            ));
        }
        Ok(Round {
            plan,
            run,
            responses,
            bytes: posts.iter().map(|p| u64::from(p.length)).sum(),
            transfers: posts.len(),
            took,
        })
    }

    /// What a round does before it runs: A's TX half restarts, A's requesters go on from the
    /// PSNs B expects (a commit on both of A's halves), B gets the receive buffers the messages
    /// need. Returns the round's TX setup, the TX model's plan of it and the buffers (by channel).
    fn prepare(&mut self, label: &str, posts: &[Post]) -> Result<(TxSetup, TxPlan, HashMap<u16, u64>), String> {
        self.lb.a.restart_tx()?;
        for i in 0..self.requesters.peers.len() {
            self.requesters.resync(&self.model_b, i);
            let context = self.requesters.peers[i].requester;
            self.lb.a.paired(&mut self.model_a).commit(i as u32, &context)?;
        }
        let setup = TxSetup {
            contexts: (0u32..).zip(self.requesters.peers.iter().map(|p| p.requester)).collect(),
            posts: posts.to_vec(),
            memory: Arc::new(self.requesters.source),
            ..self.template.clone()
        };
        let plan = TxModel::plan(&setup).map_err(|e| format!("{label}: the TX model: {e:?}"))?;
        let buffers = self
            .requesters
            .post_buffers(&mut self.lb.b.paired(&mut self.model_b), posts, &plan.packets, |p| {
                Some(p.length + 8)
            });
        Ok((setup, plan, buffers))
    }

    /// A round on lossy wires ([`Loopback::set_faults`]): set up as [`LoopbackBench::round`]
    /// does, then only what must hold whatever was lost: every post accepted, one successful
    /// completion per post, every transfer's bytes in B's memory and nothing else. (The frames
    /// are not the TX model's: lost ones are sent again.) B's responder model is not fed, so a
    /// bench runs one lossy round.
    pub fn lossy_round(&mut self, label: &str, posts: &[Post]) -> Result<LoopbackRun, String> {
        let (_, _, buffers) = self.prepare(label, posts)?;
        let run = self
            .lb
            .run(posts, Arc::new(self.requesters.source))
            .map_err(|e| format!("{label}: {e}"))?;
        ensure!(
            run.post_results.iter().all(Result::is_ok),
            "{label}: post results {:?}",
            run.post_results
        );
        let mut channels: Vec<u16> = run.completions.iter().map(|c| c.0).collect();
        channels.sort_unstable();
        let mut posted: Vec<u16> = posts.iter().map(|p| p.channel).collect();
        posted.sort_unstable();
        ensure!(
            channels == posted,
            "{label}: completions {:?} for posts on channels {posted:?}",
            run.completions
        );
        ensure!(
            run.completions.iter().all(|c| c.1 == CompletionStatus::Success),
            "{label}: completions {:?}",
            run.completions
        );
        for post in posts {
            self.landed_whole(post, buffers.get(&post.channel).copied());
        }
        self.check_memory().map_err(|e| format!("{label}: {e}"))?;
        Ok(run)
    }

    /// A's side: post results, its frames on wire A→B and its completions are the TX model's.
    fn check_requester(&self, model: &TxRun, run: &LoopbackRun) -> Result<(), String> {
        ensure!(
            run.post_results == model.post_results,
            "post results {:?}, the model's {:?}",
            run.post_results,
            model.post_results
        );
        ensure!(
            model.post_results.iter().all(Result::is_ok),
            "the model refused posts: {:?}",
            model.post_results
        );
        ensure!(run.a_to_b.iter().all(|f| !f.response), "A sent a response frame");
        for (i, (got, want)) in run.a_to_b.iter().zip(&model.frames).enumerate() {
            ensure!(
                got.bytes == *want,
                "frame {i} of {} on wire A→B differs from the TX model's ({} and {} bytes){}",
                model.frames.len(),
                got.bytes.len(),
                want.len(),
                first_difference(&got.bytes, want)
            );
        }
        ensure!(
            run.a_to_b.len() == model.frames.len(),
            "{} frames on wire A→B, the TX model's {}",
            run.a_to_b.len(),
            model.frames.len()
        );
        ensure!(
            model.completions.iter().all(|(_, s)| *s == CompletionStatus::Success),
            "the model's completions are not all successes: {:?}",
            model.completions
        );
        Ok(())
    }

    /// B's decisions are the responder model's for the frames that crossed wire A→B, and B
    /// passed nothing through. Returns the model's responses, in order.
    fn check_responder(&mut self, run: &LoopbackRun) -> Result<Vec<Response>, String> {
        let mut want = Vec::new();
        let mut what = Vec::new();
        let mut responses = Vec::new();
        for (i, frame) in run.a_to_b.iter().enumerate() {
            let rx = rx_model(&frame.bytes);
            let outcome = self.model_b.receive_rx(&rx).ok_or_else(|| format!("frame {i} A→B is not RoCEv2"))?;
            let record = rx.record.expect("a decided frame has a record");
            let bth = record.bth.expect("a BTH");
            want.push(Decision::of(&outcome, bth.dqpn, record.payload_len as u16));
            what.push(format!(
                "frame {i} A→B: opcode {:#04x} dqpn {} psn {:#x}",
                bth.opcode, bth.dqpn, bth.psn
            ));
            responses.extend(outcome.response);
        }
        compare_decisions(&run.b_decisions, &want, self.decided[1], |i| what[i].clone())?;
        self.decided[1] += want.len();
        ensure!(run.b_passed.is_empty(), "B passed {} frames through", run.b_passed.len());
        Ok(responses)
    }

    /// B's frames on wire B→A are the TX model's frames of `responses` on B's contexts.
    fn check_response_frames(&self, run: &LoopbackRun, responses: &[Response]) -> Result<(), String> {
        let setup = TxSetup {
            contexts: self.b_contexts.clone(),
            responses: responses.to_vec(),
            ..self.template.clone()
        };
        let model = TxModel.run(&setup)?;
        ensure!(model.frames.is_empty(), "the TX model sent data frames for responses");
        ensure!(run.b_to_a.iter().all(|f| f.response), "B sent a frame not marked m_packet_response");
        for (i, (got, want)) in run.b_to_a.iter().zip(&model.responses).enumerate() {
            ensure!(
                got.bytes == *want,
                "response frame {i} of {} on wire B→A ({:?}) differs from the TX model's{}",
                model.responses.len(),
                responses[i],
                first_difference(&got.bytes, want)
            );
        }
        ensure!(
            run.b_to_a.len() == model.responses.len(),
            "{} response frames on wire B→A, the TX model's {}",
            run.b_to_a.len(),
            model.responses.len()
        );
        Ok(())
    }

    /// A's RX path: one decision per response frame, each `forwarded` on A's QP the frame names,
    /// no failure, nothing written or passed through; and the responder model's decisions.
    fn check_acknowledgements(&mut self, run: &LoopbackRun) -> Result<(), String> {
        ensure!(
            run.a_decisions.len() == run.b_to_a.len(),
            "{} decisions for {} frames B→A",
            run.a_decisions.len(),
            run.b_to_a.len()
        );
        let mut want = Vec::new();
        for (i, (entry, frame)) in run.a_decisions.iter().zip(&run.b_to_a).enumerate() {
            let d = Decision::from_words(entry);
            let rx = rx_model(&frame.bytes);
            let record = rx.record.expect("a response frame has a record");
            let bth = record.bth.expect("a BTH");
            ensure!(
                d.forwarded && d.failure == 0 && !d.write && !d.response && !d.completion && d.qp == bth.dqpn,
                "decision {i} on response frame {i} (DestQP {}): {d}",
                bth.dqpn
            );
            // what the requester reads of it: the frame's PSN and AETH
            let aeth = record.aeth.expect("a response frame has an AETH");
            ensure!(
                (d.response_psn, d.response_aeth()) == (bth.psn, aeth.word()),
                "decision {i}: {d}; the frame's PSN {:#x}, AETH {:#010x}",
                bth.psn,
                aeth.word()
            );
            let outcome = self.model_a.receive_rx(&rx).ok_or("a response frame is not RoCEv2")?;
            want.push(Decision::of(&outcome, bth.dqpn, record.payload_len as u16));
        }
        compare_decisions(&run.a_decisions, &want, self.decided[0], |i| format!("response frame {i}"))?;
        self.decided[0] += want.len();
        ensure!(run.a_writes.is_empty(), "A's RX path wrote {:?}", run.a_writes);
        ensure!(self.lb.a.memory == SparseMemory::new(), "A's memory was written");
        ensure!(run.a_passed.is_empty(), "A passed {} frames through", run.a_passed.len());
        Ok(())
    }

    /// A's completions: the TX model's transfers through the ACK tracker's model, fed A's
    /// request packets, each transfer's end after its last packet, then the acknowledgements
    /// A's RX path forwarded (checked against the responder model before). Compared as a set:
    /// an RC transfer completes when its ACK comes back, after UC transfers that left later.
    fn check_completions(&self, plan: &TxPlan, run: &LoopbackRun) -> Result<(), String> {
        let mut last_packet: HashMap<u16, usize> = HashMap::new();
        for (i, p) in plan.packets.iter().enumerate() {
            last_packet.insert(p.channel, i);
        }
        let mut tracker = AckTracker::new();
        let mut want = Vec::new();
        for (i, p) in plan.packets.iter().enumerate() {
            tracker.request_sent(p.qp, p.bth.psn);
            if last_packet[&p.channel] == i {
                let reliable = self.requesters.peers[p.qp as usize].requester.transport == Transport::Rc.bits();
                want.extend(tracker.transfer_sent(p.channel, p.qp, p.bth.psn, reliable, CompletionStatus::Success));
            }
        }
        for d in run
            .a_decisions
            .iter()
            .map(|e| Decision::from_words(e))
            .filter(|d| d.acknowledgement)
        {
            want.extend(tracker.acknowledge(d.qp, d.response_psn, d.response_syndrome).completions);
        }
        ensure!(
            completion_set(&run.completions) == completion_set(&want),
            "A's completions {:?}, the models' {:?}",
            run.completions,
            want
        );
        Ok(())
    }

    /// RC: every response of B an ACK, each QP's last one the PSN of its last packet; UC: none.
    /// Per QP, one receive completion per SEND and WRITE with immediate message, with its
    /// length and immediate, in order.
    pub fn check_transport(&self, round: &Round) -> Result<(), String> {
        let decisions: Vec<Decision> = round.run.b_decisions.iter().map(|e| Decision::from_words(e)).collect();
        for (i, peer) in self.requesters.peers.iter().enumerate() {
            let responses: Vec<&Decision> = decisions.iter().filter(|d| d.response && d.qp == peer.qp).collect();
            let last_packet = round.plan.packets.iter().rev().find(|p| p.qp == i as u32);
            if peer.requester.transport == Transport::Rc.bits() {
                for d in &responses {
                    ensure!(
                        matches!(Syndrome::decode(d.response_syndrome), Some(Syndrome::Ack { .. })),
                        "RC QP {}: a response that is not an ACK: {d}",
                        peer.qp
                    );
                }
                if let Some(p) = last_packet {
                    let last_ack = responses.last().map(|d| d.response_psn);
                    ensure!(
                        last_ack == Some(p.bth.psn),
                        "RC QP {}: the last ACK's PSN {last_ack:?}, the last packet's {:#x}",
                        peer.qp,
                        p.bth.psn
                    );
                }
            } else {
                ensure!(responses.is_empty(), "UC QP {} answered: {}", peer.qp, responses[0]);
            }
            let mut got = Vec::new();
            for d in decisions.iter().filter(|d| d.completion && d.qp == peer.qp) {
                ensure!(
                    d.completion_status == ReceiveStatus::Success.code(),
                    "QP {}: a failed receive completion: {d}",
                    peer.qp
                );
                got.push((
                    d.completion_kind,
                    d.completion_length,
                    d.completion_immediate_valid.then_some(d.completion_immediate),
                ));
            }
            let want = expected_completions(&round.plan.packets, i as u32);
            ensure!(
                got == want,
                "QP {}: receive completions (kind, length, immediate) {got:?}, expected {want:?}",
                peer.qp
            );
        }
        Ok(())
    }

    /// The whole of `post` landed: a WRITE at its remote address, a SEND in `buffer`.
    fn landed_whole(&mut self, post: &Post, buffer: Option<u64>) {
        if PostOp::from_code(post.op) == Some(PostOp::Read) {
            // a READ lands in A: the source's bytes at its remote address
            let bytes = self.requesters.source.bytes(post.remote_addr, post.length as usize);
            self.read_expected.write(post.local_addr, &bytes);
            self.read_landed.push((post.local_addr, bytes.len()));
            return;
        }
        let address = match PostOp::from_code(post.op) {
            Some(PostOp::Send | PostOp::SendImm) => buffer.expect("a SEND's buffer"),
            _ => post.remote_addr,
        };
        let bytes = self.requesters.source.bytes(post.local_addr, post.length as usize);
        self.expected.write(address, &bytes);
        self.landed.push((address, bytes.len()));
    }

    /// B's memory holds every landed transfer's bytes, byte-exact, and nothing else.
    fn check_memory(&self) -> Result<(), String> {
        landed_exactly(&self.lb.b.memory, &self.expected, &self.landed, "B", "transfer")?;
        landed_exactly(&self.lb.a.memory, &self.read_expected, &self.read_landed, "A", "READ")
    }
}

/// `memory` (engine `engine`'s) holds `expected`'s bytes at every place of `landed` (address,
/// bytes), and nothing else: what each `what` (a transfer, a READ) put there.
fn landed_exactly(memory: &SparseMemory, expected: &SparseMemory, landed: &[(u64, usize)], engine: &str, what: &str) -> Result<(), String> {
    for &(address, len) in landed {
        let (got, want) = (memory.bytes(address, len), expected.bytes(address, len));
        if let Some(at) = got.iter().zip(&want).position(|(a, b)| a != b) {
            return Err(format!(
                "a {what} of {len} bytes to {address:#x}: byte {at} is {:#04x} in {engine}'s memory, {:#04x} expected",
                got[at], want[at]
            ));
        }
    }
    ensure!(
        memory == expected,
        "{engine}'s memory holds bytes outside every {what}'s destination"
    );
    Ok(())
}

/// Per message of local QP `qp` that completes at the responder (a SEND, a WRITE with
/// immediate), in order: its completion kind, its bytes and its immediate.
pub fn expected_completions(packets: &[TxPacket], qp: u32) -> Vec<(u8, u32, Option<u32>)> {
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

/// Six connections to B's QPs below `qps`: RC and UC in turn (from a random one), the five
/// PMTUs in a row from a random one, ACK coalescing on some, PSNs near the wrap or anywhere.
pub fn random_peers(rng: &mut ChaCha8Rng, qps: u32, region: u64) -> Vec<Peer> {
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
pub fn random_surroundings(rng: &mut ChaCha8Rng, seed: u64) -> Surroundings {
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

/// Random posts on the bench's peers, one channel each: every operation, lengths from
/// `length`, at most as many messages needing a receive buffer per QP as its queue holds.
pub fn random_posts(
    bench: &mut LoopbackBench,
    rng: &mut ChaCha8Rng,
    count: u16,
    length: impl Fn(&mut ChaCha8Rng, PostOp) -> u32,
) -> Vec<Post> {
    let mut buffers = vec![0usize; bench.requesters.peers.len()];
    let depth = bench.lb.variant.rx.receive_depth;
    (0..count)
        .map(|channel| {
            let peer = rng.gen_range(0..bench.requesters.peers.len());
            let op = random_op(rng, peer, &mut buffers, depth);
            let len = length(rng, op);
            bench.post(peer, channel, op, len)
        })
        .collect()
}

/// A loopback of `variant` under test: the bench of random peers and surroundings drawn from
/// `seed` (`surroundings` instead, when given), with the generator of its posts.
pub fn random_bench(
    variant: LoopbackVariant,
    seed: u64,
    surroundings: Option<Surroundings>,
    sizes: Sizes,
) -> Result<(LoopbackBench, ChaCha8Rng), String> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let surroundings = surroundings.unwrap_or_else(|| random_surroundings(&mut rng, seed));
    let peers = random_peers(&mut rng, variant.qps(), sizes.region);
    Ok((LoopbackBench::of(variant, surroundings, peers, sizes)?, rng))
}

/// What `ferroce-sim loopback` runs: per size, `transfers` posts of `op` of that size, spread
/// over `qps` connections of one transport and PMTU, each round checked as the tests check them.
#[derive(Debug, Clone)]
pub struct GoodputConfig {
    /// What both engines are made of.
    pub variant: LoopbackVariant,
    /// RC or UC.
    pub transport: Transport,
    /// Path MTU of every connection.
    pub pmtu: Pmtu,
    /// What each post is.
    pub op: PostOp,
    /// Bytes per transfer, one row each.
    pub sizes: Vec<u32>,
    /// Transfers per size.
    pub transfers: usize,
    /// Connections (A's QPs 0.., B's QPs drawn at random).
    pub qps: usize,
    /// What idles and pushes back; its seed also draws the QPs, PSNs and payloads.
    pub surroundings: Surroundings,
    /// Faults on both wires (RC only): each round then runs on a bench of its own with the
    /// retry timer scaled down ([`LOSSY_TICK_CYCLES`], [`LOSSY_TIMEOUT`]) and is checked as
    /// [`LoopbackBench::lossy_round`] checks.
    pub faults: Option<Faults>,
}

/// Cycles per retry timer tick on a lossy wire: 16, so that a run stays short.
pub const LOSSY_TICK_CYCLES: u64 = 16;
/// The requesters' local ACK timeout exponent on a lossy wire: 2^10 + 1 ticks, 16,400 cycles
/// (51 µs at 322 MHz; a real QP's timeout is milliseconds, which a lost last packet then
/// costs). The timer starts when a block's record is taken, before its first packet, and its
/// packets may then wait in the TX path's descriptor FIFO for up to about 4,000 cycles at 64
/// bits before they leave: a timeout much shorter would expire on a perfect wire.
pub const LOSSY_TIMEOUT: u8 = 10;
/// The loopback's progress limit on a lossy wire: above a timeout and the timer's scan.
pub const LOSSY_PROGRESS_LIMIT: u64 = 20_000;

/// Makes `bench`'s wires lossy with `faults` from `seed`, its retry timers fast
/// ([`LOSSY_TICK_CYCLES`]) and its progress limit above a timeout.
pub fn make_lossy(bench: &mut LoopbackBench, faults: Option<Faults>, seed: u64) {
    bench.lb.a.tick_cycles = LOSSY_TICK_CYCLES;
    bench.lb.b.tick_cycles = LOSSY_TICK_CYCLES;
    bench.lb.progress_limit = LOSSY_PROGRESS_LIMIT;
    bench.lb.set_faults(faults, faults, seed);
}

/// Bytes of each connection's receive buffers: a SEND must fit one (see
/// [`crate::peers::BUFFER_BASE`]: one MiB each, at an offset below 4 KiB, 8 bytes to spare).
pub const MAX_SEND: u32 = (1 << 20) - 4096 - 8;

/// One size's figures.
#[derive(Debug, Clone, Default)]
pub struct GoodputRow {
    /// Bytes per transfer.
    pub size: u32,
    /// Transfers.
    pub transfers: usize,
    /// Rounds they ran in (at most a TX path's channels each).
    pub rounds: usize,
    /// Frames on wire A→B.
    pub frames: usize,
    /// Response frames on wire B→A.
    pub responses: usize,
    /// Cycles of the rounds (first post to last handshake, each).
    pub cycles: u64,
    /// Payload bytes.
    pub bytes: u64,
    /// Bytes of wire A→B's frames with the Ethernet overhead.
    pub wire_bytes: u64,
    /// Packets A sent again (a lossy wire).
    pub sent_again: u64,
    /// Fewest cycles from a round's first post to its first byte on wire A→B.
    pub first_byte_latency: Option<u64>,
    /// Fewest and most cycles from the last byte of a packet into B to the last byte of its
    /// memory write.
    pub write_latency: Option<(u64, u64)>,
}

impl GoodputRow {
    /// Payload bytes per cycle.
    pub fn bytes_per_cycle(&self) -> f64 {
        self.bytes as f64 / self.cycles.max(1) as f64
    }

    /// Payload bit/s at [`CMAC_CLOCK_HZ`].
    pub fn bus_goodput(&self) -> f64 {
        self.bytes_per_cycle() * 8.0 * CMAC_CLOCK_HZ
    }

    /// The RoCEv2 limit on 100GbE for these transfers: payload bit/s of a wire that carries
    /// their frames back to back.
    pub fn line_limit(&self) -> f64 {
        self.bytes as f64 * LINE_RATE / self.wire_bytes.max(1) as f64
    }

    /// Payload bit/s on 100GbE: the bus goodput or the line limit, whichever is lower.
    pub fn wire_goodput(&self) -> f64 {
        self.bus_goodput().min(self.line_limit())
    }
}

impl GoodputConfig {
    /// Connections at most: connection `i` has region table entry `i + 1` and A's QP `i`.
    pub fn most_qps(&self) -> usize {
        self.variant.qps().min(REGIONS - 1) as usize
    }

    /// An error for a configuration that cannot run.
    pub fn check(&self) -> Result<(), String> {
        for model in [self.variant.tx.model_name(), self.variant.rx.model_name()] {
            if !crate::verilated::MODELS.contains(&model.as_str()) {
                return Err(format!(
                    "the Verilator model {model} is not built into this binary: build ferroce-sim with FERROCE_SIM_ALL=1 \
                     (the 2048-QP variants) and no FERROCE_SIM_TOPS that leaves tx_path or rx_path out"
                ));
            }
        }
        let most_qps = self.most_qps();
        if self.qps == 0 || self.qps > most_qps {
            return Err(format!("{} connections: from 1 to {most_qps}", self.qps));
        }
        if self.transfers == 0 || self.sizes.is_empty() {
            return Err("no transfer to run".into());
        }
        if self.op == PostOp::Read && self.transport != Transport::Rc {
            return Err("RDMA READ needs RC".into());
        }
        let sends = matches!(self.op, PostOp::Send | PostOp::SendImm);
        if let Some(size) = self.sizes.iter().find(|&&s| sends && s > MAX_SEND) {
            return Err(format!("a SEND of {size} bytes: a receive buffer holds {MAX_SEND} bytes at most"));
        }
        if let Some(f) = self.faults {
            if self.transport != Transport::Rc {
                return Err("faults on the wire need RC: UC does not send again".into());
            }
            let probabilities = [f.loss, f.duplicate, f.reorder, f.corrupt];
            if probabilities.iter().any(|p| !(0.0..=1.0).contains(p)) || f.loss >= 1.0 {
                return Err(format!("fault probabilities from 0 to 1 (loss below 1): {f:?}"));
            }
        }
        Ok(())
    }

    /// Transfers per round: at most one per channel, and one per receive buffer a connection
    /// holds when every message needs a buffer.
    fn per_round(&self) -> usize {
        let channels = self.variant.tx.channels as usize;
        match self.op {
            PostOp::Write | PostOp::WriteMessage | PostOp::Read => channels,
            _ => channels.min(self.qps * self.variant.rx.receive_depth),
        }
    }
}

/// Runs `config`, a fresh pair of engines per size, each round's frames written to a pcap file
/// in `pcap` when given; `progress` is called after each round with the size's row so far.
/// The first check that fails ends the run: the error has the rows done and the message.
pub fn goodput(
    config: &GoodputConfig,
    pcap: Option<&Path>,
    mut progress: impl FnMut(&GoodputRow),
) -> Result<Vec<GoodputRow>, (Vec<GoodputRow>, String)> {
    let mut rows = Vec::new();
    for &size in &config.sizes {
        match goodput_of(config, size, pcap, &mut progress) {
            Ok(row) => rows.push(row),
            Err(e) => return Err((rows, e)),
        }
    }
    Ok(rows)
}

/// One size of [`goodput`].
fn goodput_of(
    config: &GoodputConfig,
    size: u32,
    pcap: Option<&Path>,
    progress: &mut impl FnMut(&GoodputRow),
) -> Result<GoodputRow, String> {
    config.check()?;
    let slot = u64::from(size).next_power_of_two().max(4096);
    let sizes = Sizes {
        slot,
        region: slot * (config.transfers as u64 + 1),
    };
    let mut rng = ChaCha8Rng::seed_from_u64(config.surroundings.seed);
    let peers: Vec<Peer> = distinct_qps(&mut rng, config.qps, config.variant.qps())
        .into_iter()
        .enumerate()
        .map(|(i, qp)| {
            let peer = Peer::new(qp, config.transport, config.pmtu, 1 + i as u16, 1 + i as u32, random_psn(&mut rng))
                .region_length(sizes.region)
                .retries(LOSSY_TIMEOUT, 7, 7);
            if config.op == PostOp::Read {
                peer.readable()
            } else {
                peer
            }
        })
        .collect();
    // a bench for round `r`: lossy wires and a fast timer when there are faults
    let new_bench = |r: usize| -> Result<LoopbackBench, String> {
        let mut bench = LoopbackBench::of(config.variant, config.surroundings, peers.clone(), sizes)?;
        bench.pcap_dir = pcap.map(Path::to_path_buf);
        if config.faults.is_some() {
            make_lossy(&mut bench, config.faults, config.surroundings.seed.wrapping_add(r as u64));
        }
        Ok(bench)
    };
    let mut bench = new_bench(0)?;
    let mut row = GoodputRow {
        size,
        ..GoodputRow::default()
    };
    while row.transfers < config.transfers {
        let count = config.per_round().min(config.transfers - row.transfers);
        let posts: Vec<Post> = (0..count)
            .map(|i| bench.post((row.transfers + i) % config.qps, i as u16, config.op, size))
            .collect();
        let label = format!("{size} B, round {}", row.rounds);
        // READs are checked as a lossy round is (each completes, A's memory holds B's bytes,
        // nothing else): a round's checks compare B's answers with its ACKs only
        let run = if config.faults.is_none() && config.op != PostOp::Read {
            let round = bench.round(&label, &posts, |_| true)?;
            bench.check_transport(&round).map_err(|e| format!("{label}: {e}"))?;
            round.run
        } else {
            let run = bench.lossy_round(&label, &posts)?;
            row.sent_again += bench.lb.a.tx_counter("cnt_retransmitted")?;
            // the next round on a bench of its own: the responder model did not see this one
            bench = new_bench(row.rounds + 1)?;
            run
        };
        row.transfers += count;
        row.rounds += 1;
        row.frames += run.a_to_b.len();
        row.responses += run.b_to_a.len();
        row.cycles += run.cycles;
        row.bytes += posts.iter().map(|p| u64::from(p.length)).sum::<u64>();
        // the payload's wire: B→A for READs (their responses)
        let payload_wire = if config.op == PostOp::Read { &run.b_to_a } else { &run.a_to_b };
        row.wire_bytes += payload_wire.iter().map(|f| f.bytes.len() as u64 + WIRE_OVERHEAD).sum::<u64>();

        row.first_byte_latency = row.first_byte_latency.into_iter().chain(run.first_byte_latency).min();
        for &latency in &run.write_latencies {
            let (low, high) = row.write_latency.unwrap_or((latency, latency));
            row.write_latency = Some((low.min(latency), high.max(latency)));
        }
        progress(&row);
    }
    Ok(row)
}

/// Markdown table of goodput rows.
pub fn goodput_table(rows: &[GoodputRow]) -> String {
    let mut s = String::from(
        "| transfer bytes | transfers | frames A→B | sent again | responses B→A | cycles | payload B/cycle | goodput at 322.27 MHz (Gb/s) | goodput on 100GbE (Gb/s) | RoCEv2 limit on 100GbE (Gb/s) | doorbell → first byte (cycles) | last byte in → written (cycles) |\n\
         |---|---|---|---|---|---|---|---|---|---|---|---|\n",
    );
    for r in rows {
        s.push_str(&format!(
            "| {} | {} | {} | {} | {} | {} | {:.2} | {:.1} | {:.1} | {:.1} | {} | {} |\n",
            r.size,
            r.transfers,
            r.frames,
            r.sent_again,
            r.responses,
            r.cycles,
            r.bytes_per_cycle(),
            r.bus_goodput() / 1e9,
            r.wire_goodput() / 1e9,
            r.line_limit() / 1e9,
            r.first_byte_latency.map_or("–".into(), |c| c.to_string()),
            r.write_latency.map_or("–".into(), |(low, high)| if low == high {
                low.to_string()
            } else {
                format!("{low}–{high}")
            })
        ));
    }
    s
}
