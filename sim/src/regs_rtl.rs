//! The register file's Verilator model (`ferroce_registers_*`) driven from Rust: an AXI4-Lite
//! master with independent random valid/ready on its five channels ([`AxiLiteMaster`]), the
//! AXI rule checks of [`crate::axis::Channel`] on every output, and [`TransferStandIn`], a
//! software stand-in for the TX path's transfer table on the post and completion ports.
//!
//! [`RegsRtl`] runs one transaction at a time for the host tool (`ferroce-sim serve`);
//! the co-simulation tests use the master with many transactions in flight.

use crate::axis::Channel;
use crate::verilated::{Model, SimError};
use ferroce_contracts::regs::{Config, Map, QP_READ_LATENCY};
use ferroce_contracts::tx::{self, PostError, PostOp, QpState, POST, QP_CONTEXT};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::VecDeque;

/// The Verilator model of a register file configuration (`ferroce_registers_c64_q16`, ...).
pub fn model_name(config: &Config) -> String {
    format!("ferroce_registers_c{}_q{}", config.channels, config.qps)
}

/// The configurations built as Verilator models (the variants of the `registers` top).
pub const RTL_CONFIGS: [Config; 2] = [Config::DEFAULT, Config::SMALL];

/// One AXI4-Lite transaction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Request {
    /// A write (else a read).
    pub write: bool,
    /// Byte address.
    pub address: u32,
    /// Write data.
    pub data: u32,
    /// Write strobes.
    pub strobes: u8,
}

impl Request {
    /// A read of `address`.
    pub fn read(address: u32) -> Request {
        Request {
            write: false,
            address,
            data: 0,
            strobes: 0,
        }
    }

    /// A write of `data` to `address` with byte strobes `strobes`.
    pub fn write(address: u32, data: u32, strobes: u8) -> Request {
        Request {
            write: true,
            address,
            data,
            strobes,
        }
    }
}

/// A transaction's answer, in the order the register file produced them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Answer {
    /// Index of the request in the order it was queued.
    pub request: usize,
    /// The request.
    pub what: Request,
    /// The response code.
    pub resp: u8,
    /// Read data.
    pub data: u32,
    /// The cycle the response appeared (the operation's end).
    pub cycle: u64,
}

/// Source side of one AXI channel (AW, W or AR): presents queued payloads, idles at random
/// before each, holds valid and the payload until ready.
struct Source {
    valid: usize,
    ready: usize,
    payload: Vec<usize>,
    queue: VecDeque<(usize, Vec<u64>)>,
    presenting: bool,
}

impl Source {
    fn new(m: &Model, valid: &str, ready: &str, payload: &[&str]) -> Result<Source, SimError> {
        Ok(Source {
            valid: m.port(valid)?,
            ready: m.port(ready)?,
            payload: payload.iter().map(|p| m.port(p)).collect::<Result<_, _>>()?,
            queue: VecDeque::new(),
            presenting: false,
        })
    }

    fn drive(&mut self, m: &mut Model, rng: &mut ChaCha8Rng, idle_pct: u32) {
        if !self.presenting && !self.queue.is_empty() && rng.gen_range(0..100) >= idle_pct {
            self.presenting = true;
        }
        match (self.presenting, self.queue.front()) {
            (true, Some((_, values))) => {
                for (&p, &v) in self.payload.iter().zip(values) {
                    m.set_u64(p, v);
                }
                m.set_u64(self.valid, 1);
            }
            _ => {
                // valid low: anything on the payload
                for &p in &self.payload {
                    let width = m.ports()[p].width;
                    m.set_u64(p, rng.gen::<u64>() & (u64::MAX >> (64 - width)));
                }
                m.set_u64(self.valid, 0);
            }
        }
    }

    /// The tag taken this cycle (after eval).
    fn sample(&mut self, m: &mut Model) -> Option<usize> {
        if self.presenting && m.peek_u64(self.ready) != 0 {
            self.presenting = false;
            return self.queue.pop_front().map(|(tag, _)| tag);
        }
        None
    }
}

/// An AXI4-Lite master with transactions in flight: AW, W and AR presented independently with
/// random idle, B and R taken with random backpressure, and the AXI rules checked on B and R.
pub struct AxiLiteMaster {
    aw: Source,
    w: Source,
    ar: Source,
    b: Channel,
    r: Channel,
    requests: Vec<Request>,
    writes: VecDeque<usize>,
    reads: VecDeque<usize>,
    b_seen: bool,
    r_seen: bool,
    /// Percent chance per cycle that a source idles before its next payload.
    pub idle_pct: u32,
    /// Answers, in the order the register file produced them.
    pub answers: Vec<Answer>,
}

impl AxiLiteMaster {
    /// A master on the `s_axil_*` ports of `m`.
    pub fn new(m: &mut Model, idle_pct: u32, bp_pct: u32) -> Result<AxiLiteMaster, SimError> {
        let mut master = AxiLiteMaster {
            aw: Source::new(m, "s_axil_awvalid", "s_axil_awready", &["s_axil_awaddr"])?,
            w: Source::new(m, "s_axil_wvalid", "s_axil_wready", &["s_axil_wdata", "s_axil_wstrb"])?,
            ar: Source::new(m, "s_axil_arvalid", "s_axil_arready", &["s_axil_araddr"])?,
            b: Channel::new(m, "s_axil_b", "s_axil_bvalid", Some("s_axil_bready"), &["s_axil_bresp"], bp_pct)?,
            r: Channel::new(
                m,
                "s_axil_r",
                "s_axil_rvalid",
                Some("s_axil_rready"),
                &["s_axil_rdata", "s_axil_rresp"],
                bp_pct,
            )?,
            requests: Vec::new(),
            writes: VecDeque::new(),
            reads: VecDeque::new(),
            b_seen: false,
            r_seen: false,
            idle_pct,
            answers: Vec::new(),
        };
        master.b.always_ready(m);
        master.r.always_ready(m);
        Ok(master)
    }

    /// Queues a transaction; its index is its place in [`AxiLiteMaster::answers`]' `request`.
    pub fn push(&mut self, r: Request) -> usize {
        let tag = self.requests.len();
        self.requests.push(r);
        if r.write {
            self.aw.queue.push_back((tag, vec![u64::from(r.address)]));
            self.w.queue.push_back((tag, vec![u64::from(r.data), u64::from(r.strobes)]));
            self.writes.push_back(tag);
        } else {
            self.ar.queue.push_back((tag, vec![u64::from(r.address)]));
            self.reads.push_back(tag);
        }
        tag
    }

    /// Transactions not answered yet.
    pub fn outstanding(&self) -> usize {
        self.writes.len() + self.reads.len()
    }

    /// Drives this cycle's inputs.
    pub fn drive(&mut self, m: &mut Model, rng: &mut ChaCha8Rng) {
        self.aw.drive(m, rng, self.idle_pct);
        self.w.drive(m, rng, self.idle_pct);
        self.ar.drive(m, rng, self.idle_pct);
        self.b.drive(m, rng);
        self.r.drive(m, rng);
    }

    /// Samples this cycle (after eval): handshakes, new responses (in order), rule checks.
    pub fn sample(&mut self, m: &mut Model, cycle: u64) -> Result<(), SimError> {
        self.aw.sample(m);
        self.w.sample(m);
        self.ar.sample(m);
        let b_valid = self.b.valid(m);
        if b_valid && !self.b_seen {
            let Some(&tag) = self.writes.front() else {
                return Err(self.b.rule(cycle, "a write response without a write".into()));
            };
            let resp = m.peek_u64(m.port("s_axil_bresp")?) as u8;
            self.answers.push(Answer {
                request: tag,
                what: self.requests[tag],
                resp,
                data: 0,
                cycle,
            });
            self.b_seen = true;
        }
        let r_valid = self.r.valid(m);
        if r_valid && !self.r_seen {
            let Some(&tag) = self.reads.front() else {
                return Err(self.r.rule(cycle, "a read response without a read".into()));
            };
            let (resp, data) = (
                m.peek_u64(m.port("s_axil_rresp")?) as u8,
                m.peek_u64(m.port("s_axil_rdata")?) as u32,
            );
            self.answers.push(Answer {
                request: tag,
                what: self.requests[tag],
                resp,
                data,
                cycle,
            });
            self.r_seen = true;
        }
        if self.b.sample(m, cycle)?.is_some() {
            self.writes.pop_front();
            self.b_seen = false;
        }
        if self.r.sample(m, cycle)?.is_some() {
            self.reads.pop_front();
            self.r_seen = false;
        }
        Ok(())
    }
}

/// A software stand-in for the TX path's transfer table, until the TX path is joined to the
/// register file: it takes every post (`post_ready` high), checks it as the transfer table will
/// (channel busy or beyond the channels, queue, QP beyond the table or not in RTS, operation,
/// SEND length) reading the QP's state through the QP table read port, answers on
/// `post_result_*`, and completes an accepted post with a success `latency` cycles later on
/// `cpl_*` (one per cycle while `cpl_ready`). It moves no data: it only closes the loop of the
/// register file's posting and status registers for the host tool and the tests.
pub struct TransferStandIn {
    config: Config,
    /// Cycles from an accepted post to its completion.
    pub latency: u64,
    busy: Vec<bool>,
    checking: Option<(u64, Vec<u32>)>,
    completions: VecDeque<(u64, u32)>,
    ports: StandInPorts,
    /// Posts taken, with their answer code.
    pub answered: Vec<(Vec<u32>, u8)>,
}

struct StandInPorts {
    post_valid: usize,
    post_ready: usize,
    post_entry: usize,
    result_valid: usize,
    result_code: usize,
    cpl_valid: usize,
    cpl_ready: usize,
    cpl_channel: usize,
    cpl_status: usize,
    qp_read_index: usize,
    qp_read_entry: usize,
}

impl TransferStandIn {
    /// A stand-in on `m`'s post, completion and QP read ports.
    pub fn new(m: &Model, config: Config, latency: u64) -> Result<TransferStandIn, SimError> {
        let p = |n: &str| m.port(n);
        Ok(TransferStandIn {
            config,
            latency,
            busy: vec![false; config.channels as usize],
            checking: None,
            completions: VecDeque::new(),
            ports: StandInPorts {
                post_valid: p("post_valid")?,
                post_ready: p("post_ready")?,
                post_entry: p("post_entry")?,
                result_valid: p("post_result_valid")?,
                result_code: p("post_result_code")?,
                cpl_valid: p("cpl_valid")?,
                cpl_ready: p("cpl_ready")?,
                cpl_channel: p("cpl_channel")?,
                cpl_status: p("cpl_status")?,
                qp_read_index: p("qp_read_index")?,
                qp_read_entry: p("qp_read_entry")?,
            },
            answered: Vec::new(),
        })
    }

    /// The answer to a post, given its QP's context entry.
    pub fn check(&self, post: &[u32], qp_entry: &[u32]) -> u8 {
        let field = |n: &str| POST.decode(post, n);
        let channel = field("channel") as u32;
        let op = PostOp::from_code(field("op") as u8);
        let refusal = if channel >= self.config.channels {
            Some(PostError::BadChannel)
        } else if self.busy[channel as usize] {
            Some(PostError::ChannelBusy)
        } else if field("queue") >= u128::from(self.config.queues) {
            Some(PostError::BadQueue)
        } else if field("qp") >= u128::from(self.config.qps) {
            Some(PostError::BadQp)
        } else if QP_CONTEXT.decode(qp_entry, "state") != u128::from(QpState::Rts.code()) {
            Some(PostError::QpNotReady)
        } else if op.is_none() {
            Some(PostError::BadOperation)
        } else if op.is_some_and(|o| o.is_length_bounded()) && field("length") > u128::from(tx::MAX_MESSAGE_BYTES) {
            Some(PostError::TooLong)
        } else {
            None
        };
        refusal.map_or(0, |e| e.code())
    }

    /// Drives this cycle's inputs of the register file.
    pub fn drive(&mut self, m: &mut Model, cycle: u64) {
        let p = &self.ports;
        m.set_u64(p.post_ready, u64::from(self.checking.is_none()));
        m.set_u64(p.result_valid, 0);
        if let Some((taken, post)) = &self.checking {
            let qp = POST.decode(post, "qp") as u64 % u64::from(self.config.qps);
            m.set_u64(p.qp_read_index, qp);
            if cycle == taken + 1 + QP_READ_LATENCY as u64 {
                let entry = m.get(p.qp_read_entry);
                let code = self.check(post, &entry);
                let post = post.clone();
                m.set_u64(p.result_valid, 1);
                m.set_u64(p.result_code, u64::from(code));
                if code == 0 {
                    let channel = POST.decode(&post, "channel") as u32;
                    self.busy[channel as usize] = true;
                    self.completions.push_back((cycle + self.latency, channel));
                }
                self.answered.push((post, code));
                self.checking = None;
            }
        }
        let due = self.completions.front().filter(|(at, _)| *at <= cycle).map(|&(_, c)| c);
        m.set_u64(p.cpl_valid, u64::from(due.is_some()));
        m.set_u64(p.cpl_channel, u64::from(due.unwrap_or(0)));
        m.set_u64(p.cpl_status, 0);
    }

    /// Samples this cycle's handshakes (after eval).
    pub fn sample(&mut self, m: &mut Model, cycle: u64) {
        let p = &self.ports;
        if self.checking.is_none() && m.peek_u64(p.post_valid) != 0 {
            // post_ready was high: the post is taken
            self.checking = Some((cycle, m.peek(p.post_entry)));
        }
        if m.peek_u64(p.cpl_valid) != 0 && m.peek_u64(p.cpl_ready) != 0 {
            if let Some((_, channel)) = self.completions.pop_front() {
                self.busy[channel as usize] = false;
            }
        }
    }
}

/// The register file with a stand-in transfer table, one transaction at a time (the host
/// tool's view). Counter inputs stay 0.
pub struct RegsRtl {
    m: Model,
    config: Config,
    map: Map,
    master: AxiLiteMaster,
    standin: TransferStandIn,
    rng: ChaCha8Rng,
    cycle: u64,
}

/// Cycles a transaction may take before the runner calls it a hang.
const TRANSACTION_BUDGET: u64 = 10_000;

impl RegsRtl {
    /// The Verilator model of `config` (one of [`RTL_CONFIGS`]), reset and initialized.
    pub fn new(config: Config) -> Result<RegsRtl, SimError> {
        RegsRtl::with_latency(config, 32)
    }

    /// The same, the stand-in completing each accepted post `latency` cycles later.
    pub fn with_latency(config: Config, latency: u64) -> Result<RegsRtl, SimError> {
        let mut m = Model::new(&model_name(&config))?;
        let master = AxiLiteMaster::new(&mut m, 0, 0)?;
        let standin = TransferStandIn::new(&m, config, latency)?;
        let mut r = RegsRtl {
            m,
            config,
            map: Map::new(config),
            master,
            standin,
            rng: ChaCha8Rng::seed_from_u64(1),
            cycle: 0,
        };
        r.m.reset(2);
        // the status table clears its bitmaps after reset
        for _ in 0..(config.channels / 32 + 4) {
            r.step()?;
        }
        Ok(r)
    }

    /// The configuration.
    pub fn config(&self) -> Config {
        self.config
    }

    /// The register map.
    pub fn map(&self) -> &Map {
        &self.map
    }

    /// Runs one cycle.
    pub fn step(&mut self) -> Result<(), SimError> {
        self.master.drive(&mut self.m, &mut self.rng);
        self.standin.drive(&mut self.m, self.cycle);
        self.m.eval();
        self.master.sample(&mut self.m, self.cycle)?;
        self.standin.sample(&mut self.m, self.cycle);
        self.m.tick();
        self.cycle += 1;
        Ok(())
    }

    fn transact(&mut self, r: Request) -> Result<Answer, SimError> {
        self.master.push(r);
        let start = self.cycle;
        while self.master.outstanding() > 0 {
            if self.cycle - start > TRANSACTION_BUDGET {
                return Err(SimError::Hang {
                    model: self.m.name().into(),
                    cycles: self.cycle - start,
                    sent: 1,
                    received: 0,
                });
            }
            self.step()?;
        }
        Ok(*self.master.answers.last().expect("an answer"))
    }

    /// A read: (response code, data).
    pub fn read(&mut self, address: u32) -> Result<(u8, u32), SimError> {
        let a = self.transact(Request {
            write: false,
            address,
            data: 0,
            strobes: 0,
        })?;
        Ok((a.resp, a.data))
    }

    /// A write: the response code.
    pub fn write(&mut self, address: u32, data: u32, strobes: u8) -> Result<u8, SimError> {
        Ok(self
            .transact(Request {
                write: true,
                address,
                data,
                strobes,
            })?
            .resp)
    }
}
