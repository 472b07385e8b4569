//! The TX segmenter's Verilator model (`ferroce_tx_segmenter_*`) driven through a whole
//! [`TxSetup`]: posts on the post port, QP contexts served on the read port `QL` cycles after each
//! request, the scheduler side played by the cycle-accurate [`SchedModel`], random backpressure on
//! the descriptor and read-command outputs, random idle cycles between posts, and the packet
//! generator's completions (`done_*`) given back a random number of cycles after a transfer's
//! last descriptor is taken.
//!
//! The model makes every post before its first decision; so does the runner: until every post
//! has its result it answers the segmenter's decisions itself with "nothing eligible" (the
//! scheduler model does not see them), then lets the scheduler model decide. The descriptors and
//! read commands it collects compare with [`TxPlan::descriptors`] and [`TxPlan::reads`].

use crate::contracts::tx::{PostError, POST_ERROR_BITS};
use crate::models::tx::{TxPlan, TxSetup};
use crate::sched::{SchedConfig, SchedEngine, SchedIn, SchedModel, REG_LIMIT};
use crate::verilated::Model;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::VecDeque;

use ferroce_contracts::regs::QP_READ_LATENCY;

/// An emitted segmenter: its variant and the sizes it was elaborated with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SegmenterVariant {
    /// Variant suffix (`c64_q16`).
    pub name: &'static str,
    /// Channels (2^channel bits).
    pub channels: u32,
    /// Scheduler queues it admits.
    pub queues: usize,
    /// QP contexts.
    pub qps: u32,
}

/// 64 channels, 8 queues, 16 QPs.
pub const SMALL: SegmenterVariant = SegmenterVariant {
    name: "c64_q16",
    channels: 64,
    queues: 8,
    qps: 16,
};

/// 2048 channels, 32 queues, 256 QPs.
pub const DEFAULT: SegmenterVariant = SegmenterVariant {
    name: "c2048_q256",
    channels: 2048,
    queues: 32,
    qps: 256,
};

impl SegmenterVariant {
    /// The Verilator model's name.
    pub fn model_name(&self) -> String {
        format!("ferroce_tx_segmenter_{}", self.name)
    }

    /// `setup` with this variant's channel, queue and QP counts.
    pub fn fit(&self, setup: &TxSetup) -> TxSetup {
        TxSetup {
            channels: self.channels,
            queues: self.queues,
            qps: self.qps,
            ..setup.clone()
        }
    }
}

/// How hard the environment pushes back.
#[derive(Debug, Clone, Copy)]
pub struct Environment {
    /// Seed of every random choice.
    pub seed: u64,
    /// Probability that `m_desc_ready` is high in a cycle.
    pub desc_ready: f64,
    /// Probability that `m_read_ready` is high in a cycle.
    pub read_ready: f64,
    /// Probability that a post waits one more idle cycle before it is presented.
    pub post_idle: f64,
    /// Largest delay, in cycles, from a transfer's last descriptor to its `done`.
    pub done_delay: u32,
}

impl Environment {
    /// No backpressure, no idle, `done` in the next cycle.
    pub fn eager(seed: u64) -> Environment {
        Environment {
            seed,
            desc_ready: 1.0,
            read_ready: 1.0,
            post_idle: 0.0,
            done_delay: 0,
        }
    }
}

/// What the segmenter produced for a setup.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SegmenterRun {
    /// One result per post, in post order.
    pub post_results: Vec<Result<(), PostError>>,
    /// The descriptors, packed as `PACKET`, in output order.
    pub descriptors: Vec<Vec<u32>>,
    /// The read commands `(address, bytes)`, in output order.
    pub reads: Vec<(u64, u32)>,
    /// The refusal counters, `PostError::ALL` order.
    pub refused: [u32; 7],
    /// Cycles from the first decision the scheduler saw to the last descriptor taken.
    pub cycles: u64,
    /// Cycles in which a descriptor was taken.
    pub descriptor_cycles: u64,
    /// The records of the RC blocks cut, in order (the runner takes each at once).
    pub records: Vec<BlockRecord>,
    /// The pacers' charges `(queue, bytes)`, in order.
    pub charges: Vec<(u8, u32)>,
    /// With [`SegmenterRtl::read_done_delay`]: the most READ requests of one QP out whose
    /// `read_done` had not been given.
    pub most_reads_in_flight: usize,
    /// The READ requests offered to the READ tracker `(QP, generation)`, new ones only, in
    /// order.
    pub read_generations: Vec<(u32, u8)>,
}

/// Packets cut: their descriptors (packed `PACKET`) and read commands `(address, bytes)`, in
/// output order.
pub type CutPackets = (Vec<Vec<u32>>, Vec<(u64, u32)>);

/// A block the packetizer recorded for the send history.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BlockRecord {
    /// The QP.
    pub qp: u32,
    /// Its `SENT_BLOCK` record.
    pub block: Vec<u32>,
    /// PSN of its first packet.
    pub first_psn: u32,
    /// PSN of its last packet.
    pub last_psn: u32,
}

impl SegmenterRun {
    /// Compares with the model's plan: post results, descriptors and read commands. The error
    /// names the first difference.
    pub fn check(&self, plan: &TxPlan) -> Result<(), String> {
        if self.post_results != plan.post_results {
            return Err(format!("post results: rtl {:?}, model {:?}", self.post_results, plan.post_results));
        }
        let expected = plan.descriptors();
        for (i, (got, want)) in self.descriptors.iter().zip(&expected).enumerate() {
            if got != want {
                let fields = |w: &[u32]| {
                    crate::contracts::tx::PACKET
                        .fields
                        .iter()
                        .map(|f| (f.name, crate::contracts::tx::PACKET.decode(w, f.name)))
                        .collect::<Vec<_>>()
                };
                return Err(format!("descriptor {i}: rtl {:x?}\nmodel {:x?}", fields(got), fields(want)));
            }
        }
        if self.descriptors.len() != expected.len() {
            return Err(format!("{} descriptors, model {}", self.descriptors.len(), expected.len()));
        }
        let reads = plan.reads();
        if let Some(i) = (0..reads.len().min(self.reads.len())).find(|&i| self.reads[i] != reads[i]) {
            return Err(format!("read {i}: rtl {:x?}, model {:x?}", self.reads[i], reads[i]));
        }
        if self.reads.len() != reads.len() {
            return Err(format!("{} reads, model {}", self.reads.len(), reads.len()));
        }
        if self.charges != plan.charges {
            return Err(format!("charges: rtl {:?}\nmodel {:?}", self.charges, plan.charges));
        }
        Ok(())
    }
}

struct Ports {
    reset: usize,
    init_done: usize,
    cfg_block_log2: usize,
    post_valid: usize,
    post_ready: usize,
    post_entry: usize,
    post_result_valid: usize,
    post_result_code: usize,
    qp_read_valid: usize,
    qp_read_index: usize,
    qp_read_entry: usize,
    qp_commit_valid: usize,
    qp_commit_index: usize,
    enq_valid: usize,
    enq_queue: usize,
    enq_elem: usize,
    enq_ready: usize,
    deq_req: usize,
    deq_valid: usize,
    deq_ok: usize,
    deq_queue: usize,
    deq_elem: usize,
    paced_queues: usize,
    /// `charge_valid`, `_queue`, `_bytes`.
    charge: [usize; 3],
    done_valid: usize,
    done_channel: usize,
    m_desc_valid: usize,
    m_desc_ready: usize,
    m_desc: usize,
    m_read_valid: usize,
    m_read_ready: usize,
    m_read_addr: usize,
    m_read_len: usize,
    /// `record_valid`, `_qp`, `_block`, `_first_psn`, `_last_psn`.
    record: [usize; 5],
    /// `replay_valid`, `_ready`, `_qp`, `_block`, `_first_psn`, `_skip`.
    replay: [usize; 6],
    counters: [usize; 7],
}

/// Names of the refusal counter ports (of `tx_segmenter` and `tx_path`), `PostError::ALL` order.
pub const REFUSAL_COUNTERS: [&str; 7] = [
    "cnt_channel_busy",
    "cnt_bad_channel",
    "cnt_bad_queue",
    "cnt_bad_qp",
    "cnt_qp_not_ready",
    "cnt_bad_operation",
    "cnt_too_long",
];

/// Cycles without any progress after which a run is declared finished (all posts answered,
/// scheduler empty, no output): several decisions' worth.
const QUIET_CYCLES: u64 = 400;

/// Runs `setup` (its channel, queue and QP counts must be `variant`'s) on a segmenter fresh
/// from reset.
pub fn run(variant: &SegmenterVariant, setup: &TxSetup, env: &Environment, max_cycles: u64) -> Result<SegmenterRun, String> {
    SegmenterRtl::new(variant)?.run(setup, env, &[], max_cycles)
}

/// A segmenter kept between runs: its PSNs carry over from one run to the next unless the QP is
/// committed.
pub struct SegmenterRtl {
    variant: SegmenterVariant,
    m: Model,
    p: Ports,
    /// The segmenter asked for a decision in the last cycle of the previous run: the next
    /// cycle answers "nothing eligible" (that run's scheduler was empty).
    answer_due: bool,
    /// A READ tracker stand-in: each READ request's `read_done` this many cycles after it left
    /// (taken when the segmenter is ready). `None`: no `done` ever (the default).
    pub read_done_delay: Option<u64>,
}

impl SegmenterRtl {
    /// The Verilator model of `variant`, reset, its RAMs cleared.
    pub fn new(variant: &SegmenterVariant) -> Result<SegmenterRtl, String> {
        let mut m = Model::new(&variant.model_name()).map_err(|e| e.to_string())?;
        let port = |n: &str| m.port(n).map_err(|e| e.to_string());
        let p = Ports {
            reset: port("reset")?,
            init_done: port("init_done")?,
            cfg_block_log2: port("cfg_block_log2")?,
            post_valid: port("post_valid")?,
            post_ready: port("post_ready")?,
            post_entry: port("post_entry")?,
            post_result_valid: port("post_result_valid")?,
            post_result_code: port("post_result_code")?,
            qp_read_valid: port("qp_read_valid")?,
            qp_read_index: port("qp_read_index")?,
            qp_read_entry: port("qp_read_entry")?,
            qp_commit_valid: port("qp_commit_valid")?,
            qp_commit_index: port("qp_commit_index")?,
            enq_valid: port("enq_valid")?,
            enq_queue: port("enq_queue")?,
            enq_elem: port("enq_elem")?,
            enq_ready: port("enq_ready")?,
            deq_req: port("deq_req")?,
            deq_valid: port("deq_valid")?,
            deq_ok: port("deq_ok")?,
            deq_queue: port("deq_queue")?,
            deq_elem: port("deq_elem")?,
            paced_queues: port("paced_queues")?,
            charge: [port("charge_valid")?, port("charge_queue")?, port("charge_bytes")?],
            done_valid: port("done_valid")?,
            done_channel: port("done_channel")?,
            m_desc_valid: port("m_desc_valid")?,
            m_desc_ready: port("m_desc_ready")?,
            m_desc: port("m_desc")?,
            m_read_valid: port("m_read_valid")?,
            m_read_ready: port("m_read_ready")?,
            m_read_addr: port("m_read_addr")?,
            m_read_len: port("m_read_len")?,
            record: [
                port("record_valid")?,
                port("record_qp")?,
                port("record_block")?,
                port("record_first_psn")?,
                port("record_last_psn")?,
            ],
            replay: [
                port("replay_valid")?,
                port("replay_ready")?,
                port("replay_qp")?,
                port("replay_block")?,
                port("replay_first_psn")?,
                port("replay_skip")?,
            ],
            counters: {
                let mut c = [0; 7];
                for (slot, name) in c.iter_mut().zip(REFUSAL_COUNTERS) {
                    *slot = port(name)?;
                }
                c
            },
        };
        m.set_u64(p.reset, 1);
        m.step(1);
        m.set_u64(p.reset, 0);
        let mut waited = 0;
        while m.get_u64(p.init_done) == 0 {
            m.step(1);
            waited += 1;
            if waited > 4 * (1 << 16) {
                return Err("init_done never rose".into());
            }
        }
        Ok(SegmenterRtl {
            variant: *variant,
            m,
            p,
            answer_due: false,
            read_done_delay: None,
        })
    }

    /// Runs `setup` from the segmenter's current state: first the QP context commits of
    /// `commits` (one a cycle), then the posts, then the decisions until nothing is left.
    pub fn run(&mut self, setup: &TxSetup, env: &Environment, commits: &[u32], max_cycles: u64) -> Result<SegmenterRun, String> {
        let variant = self.variant;
        setup.check().map_err(|e| e.to_string())?;
        if (setup.channels, setup.queues, setup.qps) != (variant.channels, variant.queues, variant.qps) {
            return Err(format!("the setup's sizes are not those of {}", variant.name));
        }
        let (m, p) = (&mut self.m, &self.p);

        // the scheduler model, configured as the TX model's arbiter configures its own
        let node_bits = setup.channels.next_power_of_two().trailing_zeros().max(1);
        let mut sched = SchedModel::new(SchedConfig {
            node_bits,
            queues: setup.queues,
        })
        .map_err(|e| e.to_string())?;
        crate::sched::reset_and_init(&mut sched)?;
        for (&q, &cfg) in &setup.queue_config {
            sched.step(&SchedIn {
                cfg: Some((q, cfg.word())),
                ..SchedIn::default()
            });
        }
        sched.step(&SchedIn {
            cfg: Some((REG_LIMIT, u32::from(setup.limit))),
            ..SchedIn::default()
        });

        let contexts: Vec<Vec<u32>> = (0..setup.qps)
            .map(|q| setup.context(q).to_words().map_err(|e| format!("context of QP {q}: {e}")))
            .collect::<Result<_, _>>()?;
        let posts: Vec<Vec<u32>> = setup
            .posts
            .iter()
            .map(|post| post.to_words().map_err(|e| format!("post: {e}")))
            .collect::<Result<_, _>>()?;

        m.set_u64(p.cfg_block_log2, u64::from(setup.block_log2));
        let paced = (0..32).filter(|&q| setup.paced(q)).fold(0u64, |bits, q| bits | 1 << q);
        m.set_u64(p.paced_queues, paced);
        // no send history here: every RC block's record is taken at once, no ring is full
        let record_ready = m.port("record_ready").map_err(|e| e.to_string())?;
        m.set_u64(record_ready, 1);
        // no READ tracker here: each READ request is taken at once
        let read_sent_ready = m.port("read_sent_ready").map_err(|e| e.to_string())?;
        m.set_u64(read_sent_ready, 1);
        let read_sent: Vec<usize> = ["read_sent_valid", "read_sent_again", "read_sent_qp", "read_sent_generation"]
            .into_iter()
            .map(|name| m.port(name).map_err(|e| e.to_string()))
            .collect::<Result<_, _>>()?;
        m.set_u64(p.replay[0], 0);

        let mut rng = ChaCha8Rng::seed_from_u64(env.seed);
        let mut run = SegmenterRun::default();
        let mut next_post = 0;
        let mut post_presented = false;
        // context reads in flight: the cycle each entry is due and its QP
        let mut context_reads: VecDeque<(u64, usize)> = VecDeque::new();
        // the decision the runner answers itself (posting phase): due next cycle
        let mut declined = self.answer_due;
        // the segmenter waits for an answer to a decision request (the scheduler may take more
        // than a cycle): if a run ends meanwhile, the next answers it "nothing eligible"
        let mut awaiting = self.answer_due;
        let mut dones: VecDeque<(u64, u64)> = VecDeque::new();
        // READ requests out per QP without their `read_done`, and the dones due `(cycle, QP)`
        let mut reads_in_flight: std::collections::HashMap<u32, usize> = std::collections::HashMap::new();
        let mut read_dones: VecDeque<(u64, u32)> = VecDeque::new();
        let read_done_valid = m.port("read_done_valid").map_err(|e| e.to_string())?;
        let read_done_ready = m.port("read_done_ready").map_err(|e| e.to_string())?;
        let read_done_qp = m.port("read_done_qp").map_err(|e| e.to_string())?;
        let mut first_decision: Option<u64> = None;
        let mut last_progress = 0u64;
        let mut last_descriptor = 0u64;
        for cycle in 0..max_cycles {
            let posting = run.post_results.len() < posts.len();
            // inputs
            // the commits first, one a cycle, then the posts
            let commit = commits.get(cycle as usize);
            m.set_u64(p.qp_commit_valid, u64::from(commit.is_some()));
            m.set_u64(p.qp_commit_index, u64::from(commit.copied().unwrap_or(0)));
            if commit.is_none() && !post_presented && next_post < posts.len() && !rng.gen_bool(env.post_idle) {
                post_presented = true;
            }
            m.set_u64(p.post_valid, u64::from(post_presented));
            m.set(p.post_entry, posts.get(next_post).map_or(&[][..], |w| w.as_slice()));
            match context_reads.front() {
                Some(&(due, qp)) if due == cycle => {
                    m.set(p.qp_read_entry, &contexts[qp]);
                    context_reads.pop_front();
                }
                _ => m.set(p.qp_read_entry, &[0xDEAD_BEEF; 20]),
            }
            let mut probe = sched.clone();
            let shown = probe.step(&SchedIn::default());
            let (deq_valid, deq_ok, deq_queue, deq_elem) = if declined {
                (true, false, 0, 0)
            } else {
                (shown.deq_valid, shown.deq_ok, shown.deq_queue, shown.deq_elem)
            };
            m.set_u64(p.deq_valid, u64::from(deq_valid));
            m.set_u64(p.deq_ok, u64::from(deq_ok));
            m.set_u64(p.deq_queue, u64::from(deq_queue));
            m.set_u64(p.deq_elem, u64::from(deq_elem));
            m.set_u64(p.enq_ready, u64::from(shown.enq_ready[0]));
            let done = dones.front().filter(|&&(due, _)| due <= cycle).map(|&(_, ch)| ch);
            m.set_u64(p.done_valid, u64::from(done.is_some()));
            m.set_u64(p.done_channel, done.unwrap_or(0));
            if done.is_some() {
                dones.pop_front();
            }
            let read_done = read_dones.front().filter(|&&(due, _)| due <= cycle).map(|&(_, qp)| qp);
            m.set_u64(read_done_valid, u64::from(read_done.is_some()));
            m.set_u64(read_done_qp, u64::from(read_done.unwrap_or(0)));
            let desc_ready = rng.gen_bool(env.desc_ready);
            let read_ready = rng.gen_bool(env.read_ready);
            m.set_u64(p.m_desc_ready, u64::from(desc_ready));
            m.set_u64(p.m_read_ready, u64::from(read_ready));
            m.eval();

            // outputs of this cycle
            if post_presented && m.peek_u64(p.post_ready) != 0 {
                post_presented = false;
                next_post += 1;
            }
            if let Some(qp) = read_done.filter(|_| m.peek_u64(read_done_ready) != 0) {
                read_dones.pop_front();
                *reads_in_flight.entry(qp).or_default() -= 1;
                last_progress = cycle;
            }
            if m.peek_u64(p.post_result_valid) != 0 {
                let code = m.peek_u64(p.post_result_code) as u8;
                debug_assert!(u32::from(code) < 1 << POST_ERROR_BITS);
                run.post_results.push(match code {
                    0 => Ok(()),
                    c => Err(PostError::from_code(c).ok_or_else(|| format!("unknown refusal code {c}"))?),
                });
                last_progress = cycle;
            }
            if m.peek_u64(p.qp_read_valid) != 0 {
                let qp = m.peek_u64(p.qp_read_index) as usize;
                context_reads.push_back((cycle + QP_READ_LATENCY as u64, qp.min(contexts.len() - 1)));
            }
            let mut request = SchedIn::default();
            if m.peek_u64(p.enq_valid) != 0 {
                request.enq[0] = Some((m.peek_u64(p.enq_queue) as u32, m.peek_u64(p.enq_elem) as u32));
                last_progress = cycle;
            }
            let deq_req = m.peek_u64(p.deq_req) != 0;
            declined = deq_req && posting;
            awaiting = (awaiting && !deq_valid) || deq_req;
            request.deq = deq_req && !posting;
            if request.deq && first_decision.is_none() {
                first_decision = Some(cycle);
            }
            if m.peek_u64(p.m_desc_valid) != 0 && desc_ready {
                let words = m.peek(p.m_desc);
                let opcode = crate::contracts::tx::PACKET.decode(&words, "opcode") as u8;
                if let Some(delay) = self
                    .read_done_delay
                    .filter(|_| opcode == crate::wire::Opcode::RC_READ_REQUEST.value())
                {
                    let qp = crate::contracts::tx::PACKET.decode(&words, "qp") as u32;
                    let in_flight = reads_in_flight.entry(qp).or_default();
                    *in_flight += 1;
                    run.most_reads_in_flight = run.most_reads_in_flight.max(*in_flight);
                    read_dones.push_back((cycle + delay, qp));
                }
                let last = crate::contracts::tx::PACKET.decode(&words, "last_of_transfer") != 0;
                if last {
                    let channel = crate::contracts::tx::PACKET.decode(&words, "channel") as u64;
                    let due = cycle + 1 + rng.gen_range(0..=u64::from(env.done_delay));
                    let due = dones.back().map_or(due, |&(d, _)| due.max(d + 1));
                    dones.push_back((due, channel));
                }
                run.descriptors.push(words);
                run.descriptor_cycles += 1;
                last_progress = cycle;
                last_descriptor = cycle;
            }
            if m.peek_u64(p.m_read_valid) != 0 && read_ready {
                run.reads.push((m.peek_u64(p.m_read_addr), m.peek_u64(p.m_read_len) as u32));
                last_progress = cycle;
            }
            if m.peek_u64(p.charge[0]) != 0 {
                run.charges.push((m.peek_u64(p.charge[1]) as u8, m.peek_u64(p.charge[2]) as u32));
            }
            if m.peek_u64(read_sent[0]) != 0 && m.peek_u64(read_sent[1]) == 0 {
                run.read_generations
                    .push((m.peek_u64(read_sent[2]) as u32, m.peek_u64(read_sent[3]) as u8));
            }
            if m.peek_u64(p.record[0]) != 0 {
                run.records.push(BlockRecord {
                    qp: m.peek_u64(p.record[1]) as u32,
                    block: m.peek(p.record[2]),
                    first_psn: m.peek_u64(p.record[3]) as u32,
                    last_psn: m.peek_u64(p.record[4]) as u32,
                });
            }
            let out = sched.step(&request);
            if (out.deq_valid, out.deq_ok, out.deq_queue, out.deq_elem) != (shown.deq_valid, shown.deq_ok, shown.deq_queue, shown.deq_elem)
            {
                return Err("the scheduler model's registered outputs changed with its inputs".into());
            }
            m.step(1);

            if !posting && sched.occupancy() == 0 && dones.is_empty() && read_dones.is_empty() && cycle - last_progress > QUIET_CYCLES {
                for (slot, &port) in run.refused.iter_mut().zip(&p.counters) {
                    *slot = m.get_u64(port) as u32;
                }
                run.cycles = first_decision.map_or(0, |f| last_descriptor.saturating_sub(f) + 1);
                self.answer_due = awaiting;
                return Ok(run);
            }
        }
        Err(format!(
            "not finished in {max_cycles} cycles: {} of {} posts answered, {} descriptors",
            run.post_results.len(),
            posts.len(),
            run.descriptors.len()
        ))
    }

    /// The READ tracker's `done` of a reset QP (`read_done_cleared`), presented until taken,
    /// then 8 idle cycles: the segmenter counts every READ of `qp` over and its generation on.
    pub fn clear_reads(&mut self, qp: u32) -> Result<(), String> {
        let (m, p) = (&mut self.m, &self.p);
        let ports: Vec<usize> = ["read_done_valid", "read_done_qp", "read_done_cleared", "read_done_ready"]
            .into_iter()
            .map(|name| m.port(name).map_err(|e| e.to_string()))
            .collect::<Result<_, _>>()?;
        m.set_u64(ports[1], u64::from(qp));
        // the segmenter's decision requests are answered "nothing eligible", as between runs
        let mut declined = self.answer_due;
        m.set_u64(p.deq_ok, 0);
        let (mut offered, mut idle) = (true, 0);
        for _ in 0..64 {
            m.set_u64(ports[0], u64::from(offered));
            m.set_u64(ports[2], u64::from(offered));
            m.set_u64(p.deq_valid, u64::from(declined));
            m.eval();
            declined = m.peek_u64(p.deq_req) != 0;
            if offered && m.peek_u64(ports[3]) != 0 {
                offered = false;
            }
            m.step(1);
            if !offered {
                idle += 1;
                if idle == 8 {
                    m.set_u64(ports[0], 0);
                    m.set_u64(ports[2], 0);
                    self.answer_due = declined;
                    return Ok(());
                }
            }
        }
        Err(format!("the cleared done of QP {qp} was not taken in 64 cycles"))
    }

    /// Cuts `record` again (as the send history replays it) with its first `skip` packets not
    /// sent, from the segmenter's idle state: the descriptors and read commands that come out,
    /// every one taken at once.
    pub fn replay(&mut self, record: &BlockRecord, skip: u32) -> Result<CutPackets, String> {
        let (m, p) = (&mut self.m, &self.p);
        m.set_u64(p.m_desc_ready, 1);
        m.set_u64(p.m_read_ready, 1);
        m.set_u64(p.replay[0], 1);
        m.set_u64(p.replay[2], u64::from(record.qp));
        m.set(p.replay[3], &record.block);
        m.set_u64(p.replay[4], u64::from(record.first_psn));
        m.set_u64(p.replay[5], u64::from(skip));
        let (mut descriptors, mut reads) = (Vec::new(), Vec::new());
        let (mut presented, mut quiet) = (true, 0);
        // the segmenter's decision requests are answered "nothing eligible", as between runs
        let mut declined = self.answer_due;
        m.set_u64(p.deq_ok, 0);
        for _ in 0..200_000 {
            m.set_u64(p.deq_valid, u64::from(declined));
            m.eval();
            declined = m.peek_u64(p.deq_req) != 0;
            if presented && m.peek_u64(p.replay[1]) != 0 {
                presented = false;
                quiet = 0;
            }
            let mut moved = false;
            if m.peek_u64(p.m_desc_valid) != 0 {
                descriptors.push(m.peek(p.m_desc));
                moved = true;
            }
            if m.peek_u64(p.m_read_valid) != 0 {
                reads.push((m.peek_u64(p.m_read_addr), m.peek_u64(p.m_read_len) as u32));
                moved = true;
            }
            m.step(1);
            m.set_u64(p.replay[0], u64::from(presented));
            quiet = if moved { 0 } else { quiet + 1 };
            // skipped packets take two cycles each and show nothing
            if !presented && quiet > QUIET_CYCLES + 2 * u64::from(skip) {
                self.answer_due = declined;
                return Ok((descriptors, reads));
            }
        }
        Err("the replay does not end".into())
    }
}
