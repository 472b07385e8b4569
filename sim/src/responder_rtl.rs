//! Runner of the responder's Verilator model (`ferroce_responder_q256`, top `responder`: 256
//! QPs, 64 memory regions, 16 receive buffers per QP), and [`Lockstep`], which drives it and the
//! golden model ([`crate::models::responder`]) with the same setup and records and compares
//! every decision word for word.
//!
//! [`ResponderRtl`] drives the model cycle by cycle from Rust, on one clock:
//!
//! ```text
//!  records (r_*) ──────────────►┌───────────┐──► decisions (d_valid/d_ready/d_entry)
//!  random idle, garbage when    │           │    random backpressure, AXI rules checked
//!  r_valid is low               │ responder │
//!  qp_read_entry ◄─ QL cycles ──│           │──► qp_read_valid/qp_read_index
//!  qp_commit, region_write,     │           │──► recv_result_valid/_full
//!  recv_* (between batches)     └───────────┘──► counter_value (index of the last cycle)
//! ```
//!
//! - **QP contexts**: the runner holds the context table and serves each read exactly
//!   [`QP_READ_LATENCY`] cycles after its request, with `0xDEADBEEF` garbage in every other
//!   cycle. A context is changed only with a commit ([`SetupHarness::commit`], through
//!   [`ResponderRtl::setup`]), as the host does.
//!   This side, the setup calls and the clock are [`SetupHarness`], which the runner of every
//!   top containing the responder shares (the RX path's, `crate::rx_path_rtl`, too).
//! - **Setup** (commits, region writes, receive posts) happens between batches of records, when
//!   no record is in flight, so the model can apply it at the same point of the record sequence.
//! - **Records** ([`ResponderRtl::deliver`]): a batch is presented with the traffic's idle and
//!   backpressure; the run ends when every record was taken and every final record has its
//!   decision, then the decision stream must stay quiet for [`DRAIN_CYCLES`]. No record taken
//!   and no decision for [`PROGRESS_LIMIT`] cycles is an error, not a hang.
//!
//! Every `r_*` input port the model has is driven from the record (the fields of the RX record
//! schema, `ferroce_contracts::rx::record`); `r_drop` is set for a record the golden model would
//! fail as malformed ([`is_well_formed`]), which is what the responder is told by the RX front
//! end.

use crate::axis::{Channel, RecordSource};
use crate::contracts::regs::QP_READ_LATENCY;
use crate::contracts::responder::{region_index, ResponderCounter, DECISION_WORDS, MEMORY_REGION_WORDS};
use crate::contracts::rx::{record, DropReason, RecordField};
use crate::contracts::tx::QP_CONTEXT_WORDS;
use crate::models::responder::{is_well_formed, Decision, MemoryRegion, Outcome, QpAttributes, Responder};
use crate::models::tx::QpContext;
use crate::rx::{RxBth, RxRecord};
use crate::verilated::{Model, Traffic};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use std::collections::VecDeque;
use std::net::IpAddr;

/// The Verilator model's name.
pub const MODEL: &str = "ferroce_responder_q256";
/// QPs of the model (2^QB, QB = 8).
pub const QPS: u32 = 256;
/// Memory region table entries of the model.
pub const REGIONS: u32 = 64;
/// Receive buffers a QP's receive queue holds in the RTL (the model's queue is unbounded).
pub const RECEIVE_QUEUE_DEPTH: usize = 1 << ferroce_hdl::tops::RESPONDER_RECEIVE_QUEUE_LOG2[0].1;
/// Idle cycles given to a commit, a region write or a receive post's result to be applied.
pub const SETUP_CYCLES: u64 = 16;
/// Cycles without a record taken or a decision after which a batch is an error.
pub const PROGRESS_LIMIT: u64 = 5_000;
/// Cycles the decision stream must stay quiet after a batch's last decision.
pub const DRAIN_CYCLES: u64 = 32;
/// Record ports the responder must have (other `r_*` ports of the RX record are driven when
/// present).
const REQUIRED_RECORD_PORTS: [RecordField; 14] = [
    record::FINAL,
    record::DROP,
    record::BTH_OK,
    record::BTH_OPCODE,
    record::BTH_SE,
    record::BTH_PKEY,
    record::BTH_DQPN,
    record::BTH_ACKREQ,
    record::BTH_PSN,
    record::RETH_VA,
    record::RETH_RKEY,
    record::RETH_DMALEN,
    record::IMMDT,
    record::PAY_LEN,
];

/// One record on the responder's record port: an RX record (as the RX front end model gives it
/// for an accepted frame, or altered) and whether it is its packet's final record (else an
/// early header record, which the responder ignores).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RecordIn {
    /// The record.
    pub record: RxRecord,
    /// `r_final`.
    pub fin: bool,
}

impl RecordIn {
    /// The final record of a packet.
    pub fn fin(record: RxRecord) -> RecordIn {
        RecordIn { record, fin: true }
    }

    /// An early header record of a packet.
    pub fn header(record: RxRecord) -> RecordIn {
        RecordIn { record, fin: false }
    }

    /// The value of the port `r_<field>` for this record.
    pub fn port_value(&self, field: RecordField) -> u128 {
        let r = &self.record;
        let well_formed = is_well_formed(r);
        // no BTH: its ports carry whatever the front end captured (a truncated BTH's bytes), so
        // they are driven all ones here: the responder must not read them
        let bth = r.bth.unwrap_or(RxBth {
            opcode: 0xFF,
            se: true,
            m: true,
            padcnt: 3,
            tver: 0xF,
            pkey: 0xFFFF,
            fecn: true,
            becn: true,
            dqpn: 0xFF_FFFF,
            ackreq: true,
            psn: 0xFF_FFFF,
        });
        let mac = |m: [u8; 6]| m.iter().fold(0u128, |v, &b| v << 8 | u128::from(b));
        let ip = |a: IpAddr| match a {
            IpAddr::V4(a) => u128::from(u32::from(a)),
            IpAddr::V6(a) => u128::from(a),
        };
        let b = |v: bool| u128::from(v);
        match field {
            f if f == record::DROP => b(!well_formed),
            f if f == record::REASON => match (well_formed, r.icrc_ok) {
                (true, _) => 0,
                (false, Some(true)) => u128::from(DropReason::Truncated.code()),
                (false, _) => u128::from(DropReason::Icrc.code()),
            },
            f if f == record::ICRC_CHK => b(r.icrc_ok.is_some()),
            f if f == record::ICRC_OK => b(r.icrc_ok == Some(true)),
            f if f == record::ETH_DST => mac(r.eth_dst),
            f if f == record::ETH_SRC => mac(r.eth_src),
            f if f == record::VLAN_OK => b(r.vlan.is_some()),
            f if f == record::VLAN => u128::from(r.vlan.unwrap_or(0)),
            f if f == record::IP_V6 => b(r.ip_version == 6),
            f if f == record::IP_SRC => ip(r.ip_src),
            f if f == record::IP_DST => ip(r.ip_dst),
            f if f == record::IP_DSCP => u128::from(r.ip_dscp),
            f if f == record::IP_ECN => u128::from(r.ip_ecn),
            f if f == record::IP_TTL => u128::from(r.ip_ttl),
            f if f == record::UDP_SPORT => u128::from(r.udp_sport),
            f if f == record::UDP_DPORT => u128::from(r.udp_dport),
            f if f == record::BTH_OK => b(r.bth.is_some()),
            f if f == record::BTH_OPCODE => u128::from(bth.opcode),
            f if f == record::BTH_SE => b(bth.se),
            f if f == record::BTH_M => b(bth.m),
            f if f == record::BTH_PADCNT => u128::from(bth.padcnt),
            f if f == record::BTH_TVER => u128::from(bth.tver),
            f if f == record::BTH_PKEY => u128::from(bth.pkey),
            f if f == record::BTH_FECN => b(bth.fecn),
            f if f == record::BTH_BECN => b(bth.becn),
            f if f == record::BTH_DQPN => u128::from(bth.dqpn),
            f if f == record::BTH_ACKREQ => b(bth.ackreq),
            f if f == record::BTH_PSN => u128::from(bth.psn),
            f if f == record::RETH_OK => b(r.reth.is_some()),
            f if f == record::RETH_VA => u128::from(r.reth.map_or(0, |h| h.va)),
            f if f == record::RETH_RKEY => u128::from(r.reth.map_or(0, |h| h.r_key)),
            f if f == record::RETH_DMALEN => u128::from(r.reth.map_or(0, |h| h.dma_len)),
            f if f == record::IMMDT_OK => b(r.immdt.is_some()),
            f if f == record::IMMDT => u128::from(r.immdt.map_or(0, |h| h.imm)),
            f if f == record::AETH_OK => b(r.aeth.is_some()),
            f if f == record::AETH_SYNDROME => u128::from(r.aeth.map_or(0, |h| h.syndrome)),
            f if f == record::AETH_MSN => u128::from(r.aeth.map_or(0, |h| h.msn)),
            f if f == record::PAY_LEN => r.payload_len as u128,
            f if f == record::FINAL => b(self.fin),
            _ => 0,
        }
    }

    /// One line about the record: what a mismatch report needs to find it.
    pub fn summary(&self) -> String {
        let r = &self.record;
        let mut s = match r.bth {
            Some(bth) => format!(
                "opcode {:#04x} dqpn {:#x} psn {:#x} pkey {:#06x} ackreq {} se {}",
                bth.opcode,
                bth.dqpn,
                bth.psn,
                bth.pkey,
                u8::from(bth.ackreq),
                u8::from(bth.se)
            ),
            None => "no BTH".into(),
        };
        if let Some(reth) = r.reth {
            s += &format!(" reth va {:#x} rkey {:#x} dmalen {}", reth.va, reth.r_key, reth.dma_len);
        }
        if let Some(imm) = r.immdt {
            s += &format!(" imm {:#x}", imm.imm);
        }
        s += &format!(" pay_len {}", r.payload_len);
        if !is_well_formed(r) {
            s += " (r_drop)";
        }
        if !self.fin {
            s += " (header record)";
        }
        s
    }
}

/// What a batch of records produced.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Decisions {
    /// The decisions, packed as `DECISION`, in output order.
    pub entries: Vec<Vec<u32>>,
    /// Cycles from the batch's first cycle to its last decision, plus one.
    pub cycles: u64,
    /// Cycles in which a decision was taken.
    pub decision_cycles: u64,
    /// Cycles the decision stream was stalled (valid high, ready low).
    pub stall_cycles: u64,
}

/// The ports of the responder's register-file side, which every top containing the responder
/// has under the same names.
struct SetupPortIndices {
    reset: usize,
    init_done: usize,
    qp_read_valid: usize,
    qp_read_index: usize,
    qp_read_entry: usize,
    qp_commit_valid: usize,
    qp_commit_index: usize,
    region_write_valid: usize,
    region_write_index: usize,
    region_write_entry: usize,
    recv_valid: usize,
    recv_ready: usize,
    recv_qp: usize,
    recv_address: usize,
    recv_length: usize,
    recv_result_valid: usize,
    recv_result_full: usize,
    counter_index: usize,
    counter_value: usize,
}

/// A Verilator model that contains the responder (the responder alone, or the RX path), with
/// what every runner of such a model does the same way: the clock, the QP context table served
/// on the read port, and the setup calls between runs (reset, commits, region writes, receive
/// posts, counter reads by index).
///
/// - **QP contexts**: each read is answered exactly [`QP_READ_LATENCY`] cycles after its request,
///   with `0xDEADBEEF` garbage in every other cycle ([`SetupHarness::settle`] does it each cycle).
/// - **Outside a run** the run's inputs rest at their idle values (valid low, ready high) and
///   the outputs it names must stay quiet: a decision, a write, a frame shown during setup is an
///   error.
pub struct SetupHarness {
    m: Model,
    p: SetupPortIndices,
    qps: u32,
    regions: u32,
    /// Receive buffers a QP's queue holds.
    receive_depth: usize,
    /// The context table served on the read port, packed.
    contexts: Vec<Vec<u32>>,
    /// Context reads in flight: the cycle each entry is due and its QP.
    reads: VecDeque<(u64, usize)>,
    cycle: u64,
    /// The decision output: valid and entry (shown in errors).
    decision: (usize, usize),
    /// Other outputs' valid ports that must be low outside a run.
    quiet: Vec<usize>,
    /// The run's inputs and their values outside a run.
    idle: Vec<(usize, u64)>,
}

impl SetupHarness {
    /// Takes `m` (with `qps` QPs and `regions` region entries), finds its register-file ports,
    /// its decision output `decision` (valid, entry), the outputs `quiet` (valid ports) that
    /// must stay low outside a run and the run's inputs `idle` with their idle values; every
    /// context all zero (in reset). The model is not reset.
    pub fn new(
        m: Model,
        qps: u32,
        regions: u32,
        decision: (&str, &str),
        quiet: &[&str],
        idle: &[(&str, u64)],
    ) -> Result<SetupHarness, String> {
        let port = |n: &str| m.port(n).map_err(|e| e.to_string());
        let p = SetupPortIndices {
            reset: port("reset")?,
            init_done: port("init_done")?,
            qp_read_valid: port("qp_read_valid")?,
            qp_read_index: port("qp_read_index")?,
            qp_read_entry: port("qp_read_entry")?,
            qp_commit_valid: port("qp_commit_valid")?,
            qp_commit_index: port("qp_commit_index")?,
            region_write_valid: port("region_write_valid")?,
            region_write_index: port("region_write_index")?,
            region_write_entry: port("region_write_entry")?,
            recv_valid: port("recv_valid")?,
            recv_ready: port("recv_ready")?,
            recv_qp: port("recv_qp")?,
            recv_address: port("recv_address")?,
            recv_length: port("recv_length")?,
            recv_result_valid: port("recv_result_valid")?,
            recv_result_full: port("recv_result_full")?,
            counter_index: port("counter_index")?,
            counter_value: port("counter_value")?,
        };
        let decision = (port(decision.0)?, port(decision.1)?);
        let entry_width = m.ports()[decision.1].width;
        if entry_width != 32 * DECISION_WORDS {
            return Err(format!(
                "{}: {} is {entry_width} bits wide, DECISION has {}",
                m.name(),
                m.ports()[decision.1].name,
                32 * DECISION_WORDS
            ));
        }
        let quiet = quiet.iter().map(|n| port(n)).collect::<Result<_, _>>()?;
        let idle = idle.iter().map(|&(n, v)| Ok((port(n)?, v))).collect::<Result<_, String>>()?;
        Ok(SetupHarness {
            m,
            p,
            qps,
            regions,
            receive_depth: RECEIVE_QUEUE_DEPTH,
            contexts: vec![vec![0; QP_CONTEXT_WORDS]; qps as usize],
            reads: VecDeque::new(),
            cycle: 0,
            decision,
            quiet,
            idle,
        })
    }

    /// The Verilator model.
    pub fn model(&mut self) -> &mut Model {
        &mut self.m
    }

    /// The packed context the read port serves for QP `qp` (modulo the table's size): what a
    /// second reader of the same table (the engine's TX half) is served.
    pub fn context(&self, qp: usize) -> &[u32] {
        &self.contexts[qp % self.contexts.len()]
    }

    /// Cycles run since the model was made (reset cycles included).
    pub fn cycle(&self) -> u64 {
        self.cycle
    }

    /// Resets the model (`reset` high two cycles, the run's inputs idle) and waits for
    /// `init_done`. The context table is kept.
    pub fn reset(&mut self) -> Result<(), String> {
        let init_limit = 16 * u64::from(self.qps);
        self.idle_inputs();
        self.m.set_u64(self.p.reset, 1);
        self.m.step(2);
        self.cycle += 2;
        self.m.set_u64(self.p.reset, 0);
        self.reads.clear();
        for _ in 0..init_limit {
            self.settle();
            let done = self.m.peek_u64(self.p.init_done) != 0;
            self.tick();
            if done {
                return Ok(());
            }
        }
        Err(format!("{}: init_done not high {init_limit} cycles after reset", self.m.name()))
    }

    /// Sets QP `qp`'s context and pulses `qp_commit` for it: the responder restarts the QP
    /// from the context (expected PSN `rq_psn`, MSN 0, nothing open, receive queue emptied).
    pub fn commit(&mut self, qp: u32, context: &QpContext) -> Result<(), String> {
        if qp >= self.qps {
            return Err(format!("QP {qp} is beyond the model's {}", self.qps));
        }
        self.contexts[qp as usize] = context.to_words().map_err(|e| format!("context of QP {qp}: {e}"))?;
        self.idle_inputs();
        self.m.set_u64(self.p.qp_commit_valid, 1);
        self.m.set_u64(self.p.qp_commit_index, u64::from(qp));
        self.idle(1)?;
        self.m.set_u64(self.p.qp_commit_valid, 0);
        self.idle(SETUP_CYCLES)
    }

    /// Writes a memory region table entry: `region` (valid) in entry `region_index(rkey)`.
    pub fn write_region(&mut self, region: &MemoryRegion) -> Result<(), String> {
        self.write_region_entry(region_index(region.rkey), &region.words())
    }

    /// Writes the packed entry `entry` (`MEMORY_REGION`) in entry `index` (all zero: clears it).
    pub fn write_region_entry(&mut self, index: u32, entry: &[u32]) -> Result<(), String> {
        if index >= self.regions {
            return Err(format!("region entry {index} is beyond the model's {}", self.regions));
        }
        self.idle_inputs();
        self.m.set_u64(self.p.region_write_valid, 1);
        self.m.set_u64(self.p.region_write_index, u64::from(index));
        self.m.set(self.p.region_write_entry, entry);
        self.idle(1)?;
        self.m.set_u64(self.p.region_write_valid, 0);
        self.idle(SETUP_CYCLES)
    }

    /// Posts a receive buffer to QP `qp`: `Ok(true)` if it was accepted, `Ok(false)` if the
    /// responder refused it (`recv_result_full`: the receive queue already holds
    /// [`RECEIVE_QUEUE_DEPTH`] buffers).
    pub fn post_receive(&mut self, qp: u32, address: u64, length: u32) -> Result<bool, String> {
        self.idle_inputs();
        self.m.set_u64(self.p.recv_qp, u64::from(qp));
        self.m.set_u64(self.p.recv_address, address);
        self.m.set_u64(self.p.recv_length, u64::from(length));
        self.m.set_u64(self.p.recv_valid, 1);
        let mut taken = false;
        for _ in 0..PROGRESS_LIMIT {
            self.settle();
            self.check_quiet("a receive post")?;
            let result = (self.m.peek_u64(self.p.recv_result_valid) != 0).then(|| self.m.peek_u64(self.p.recv_result_full) != 0);
            if !taken && self.m.peek_u64(self.p.recv_ready) != 0 {
                taken = true;
                self.tick();
                self.m.set_u64(self.p.recv_valid, 0);
            } else {
                self.tick();
            }
            match result {
                Some(_) if !taken => return Err(format!("recv_result_valid at cycle {} before the post was taken", self.cycle - 1)),
                Some(full) => return Ok(!full),
                None => {}
            }
        }
        let what = if taken { "no recv_result_valid" } else { "recv_ready never high" };
        Err(format!("receive post to QP {qp}: {what} in {PROGRESS_LIMIT} cycles"))
    }

    /// The responder's counters, in [`ResponderCounter::ALL`] order (`counter_value` shows the
    /// counter of the index presented in the previous cycle).
    pub fn counters(&mut self) -> Result<Vec<u32>, String> {
        self.idle_inputs();
        let n = ResponderCounter::ALL.len();
        let mut values = Vec::with_capacity(n);
        for i in 0..=n {
            self.m.set_u64(self.p.counter_index, i.min(n - 1) as u64);
            self.settle();
            self.check_quiet("a counter read")?;
            if i > 0 {
                values.push(self.m.peek_u64(self.p.counter_value) as u32);
            }
            self.tick();
        }
        Ok(values)
    }

    /// `cycles` cycles with every request input idle (the context reads still served), the
    /// outputs quiet.
    pub fn idle(&mut self, cycles: u64) -> Result<(), String> {
        for _ in 0..cycles {
            self.settle();
            self.check_quiet("setup")?;
            self.tick();
        }
        Ok(())
    }

    /// Every request input low (commit, region write, post), the run's inputs at their idle
    /// values.
    pub fn idle_inputs(&mut self) {
        for port in [self.p.recv_valid, self.p.qp_commit_valid, self.p.region_write_valid] {
            self.m.set_u64(port, 0);
        }
        for &(port, value) in &self.idle {
            self.m.set_u64(port, value);
        }
    }

    /// After [`SetupHarness::settle`]: an error naming `during` if the decision output or
    /// another quiet output shows valid (setup happens with nothing in flight).
    pub fn check_quiet(&mut self, during: &str) -> Result<(), String> {
        if self.m.peek_u64(self.decision.0) != 0 {
            return Err(format!(
                "decision at cycle {} during {during}: {}",
                self.cycle,
                Decision::from_words(&self.m.peek(self.decision.1))
            ));
        }
        if let Some(&port) = self.quiet.iter().find(|&&p| self.m.peek_u64(p) != 0) {
            return Err(format!(
                "{} high at cycle {} during {during}",
                self.m.ports()[port].name,
                self.cycle
            ));
        }
        Ok(())
    }

    /// The context read port's input for this cycle, then the logic settled and this cycle's
    /// read request, if any, queued.
    pub fn settle(&mut self) {
        match self.reads.front() {
            Some(&(due, qp)) if due == self.cycle => {
                self.m.set(self.p.qp_read_entry, &self.contexts[qp]);
                self.reads.pop_front();
            }
            _ => self.m.set(self.p.qp_read_entry, &[0xDEAD_BEEF; QP_CONTEXT_WORDS]),
        }
        self.m.eval();
        if self.m.peek_u64(self.p.qp_read_valid) != 0 {
            let qp = self.m.peek_u64(self.p.qp_read_index) as usize;
            self.reads.push_back((self.cycle + QP_READ_LATENCY as u64, qp % self.qps as usize));
        }
    }

    /// The clock edge that ends this cycle.
    pub fn tick(&mut self) {
        self.m.tick();
        self.cycle += 1;
    }

    /// (Re)starts QP `qp` from `context` on the golden model (reset, then added with the
    /// context's attributes) and on the RTL (the context and a commit).
    pub fn commit_paired(&mut self, model: &mut Responder, qp: u32, context: &QpContext) -> Result<(), String> {
        let attributes = QpAttributes::from_context(context).map_err(|e| format!("context of QP {qp}: {e}"))?;
        model.reset_qp(qp).map_err(|e| e.to_string())?;
        model.add_qp(qp, attributes).map_err(|e| format!("QP {qp}: {e}"))?;
        self.commit(qp, context)
    }

    /// Registers a memory region on the golden model and the RTL.
    pub fn add_region_paired(&mut self, model: &mut Responder, region: MemoryRegion) -> Result<(), String> {
        model.add_memory_region(region).map_err(|e| e.to_string())?;
        self.write_region(&region)
    }

    /// The harness of a model whose QPs hold `depth` receive buffers each (not
    /// [`RECEIVE_QUEUE_DEPTH`]).
    pub fn with_receive_depth(mut self, depth: usize) -> SetupHarness {
        self.receive_depth = depth;
        self
    }

    /// Receive buffers a QP's queue holds.
    pub fn receive_depth(&self) -> usize {
        self.receive_depth
    }

    /// Empties region table entry `index` on the golden model and the RTL (written all zero).
    pub fn clear_region_paired(&mut self, model: &mut Responder, index: u32) -> Result<(), String> {
        model.clear_memory_region(index).map_err(|e| e.to_string())?;
        self.write_region_entry(index, &[0; MEMORY_REGION_WORDS])
    }

    /// Posts a receive buffer on the golden model and the RTL. The RTL must accept it when the
    /// model's queue holds fewer than [`SetupHarness::receive_depth`] buffers and refuse it
    /// otherwise (the model then does not get it); returns whether it was accepted.
    pub fn post_receive_paired(&mut self, model: &mut Responder, qp: u32, address: u64, length: u32) -> Result<bool, String> {
        let queued = model.qp(qp).map_or(0, |q| q.receive_queue.len());
        let accepted = self.post_receive(qp, address, length)?;
        if accepted != (queued < self.receive_depth) {
            return Err(format!(
                "receive post to QP {qp} with {queued} buffers queued: the RTL {} it",
                if accepted { "accepted" } else { "refused" }
            ));
        }
        if accepted {
            model.post_receive(qp, address, length).map_err(|e| e.to_string())?;
        }
        Ok(accepted)
    }

    /// Compares the RTL's responder counters with the golden model's (modulo 2^32).
    pub fn check_counters(&mut self, model: &Responder) -> Result<(), String> {
        let rtl = self.counters()?;
        let model = model.counters();
        let wrong: Vec<String> = ResponderCounter::ALL
            .iter()
            .zip(&rtl)
            .filter(|(c, &v)| model.value(**c) as u32 != v)
            .map(|(c, v)| format!("{}: rtl {v}, model {}", c.name(), model.value(*c)))
            .collect();
        if wrong.is_empty() {
            Ok(())
        } else {
            Err(format!("counters differ: {}", wrong.join("; ")))
        }
    }
}

/// The responder's Verilator model: its [`SetupHarness`] and the record and decision streams.
pub struct ResponderRtl {
    h: SetupHarness,
    traffic: Traffic,
    rng: ChaCha8Rng,
    /// The `r_*` record ports the model has (not `r_valid`, `r_ready`), with their fields.
    record: Vec<(RecordField, String)>,
}

impl ResponderRtl {
    /// The model, reset, its RAMs cleared (`init_done`), every context all zero (in reset).
    /// Record idle and decision backpressure follow `traffic`.
    pub fn new(traffic: Traffic) -> Result<ResponderRtl, String> {
        let m = Model::new(MODEL).map_err(|e| e.to_string())?;
        let mut record = Vec::new();
        for f in record::front() {
            let name = format!("{}{}", record::FRONT_PREFIX, f.name);
            match m.port(&name) {
                Ok(i) if m.ports()[i].input => record.push((f, name)),
                _ if REQUIRED_RECORD_PORTS.contains(&f) => return Err(format!("model {MODEL} has no input port {name}")),
                _ => {}
            }
        }
        let h = SetupHarness::new(m, QPS, REGIONS, ("d_valid", "d_entry"), &[], &[("r_valid", 0), ("d_ready", 1)])?;
        let mut rtl = ResponderRtl {
            h,
            traffic,
            rng: ChaCha8Rng::seed_from_u64(traffic.seed),
            record,
        };
        rtl.reset()?;
        Ok(rtl)
    }

    /// Resets the model (its per-QP state, receive queues, region table and counters) and waits
    /// for `init_done`. The context table is kept.
    pub fn reset(&mut self) -> Result<(), String> {
        self.h.reset()
    }

    /// Cycles run since the model was made.
    pub fn cycle(&self) -> u64 {
        self.h.cycle()
    }

    /// The underlying Verilator model (to trace it, for example).
    pub fn model(&mut self) -> &mut Model {
        self.h.model()
    }

    /// The model's setup side: commits, region writes, receive posts and counters go through it
    /// ([`SetupHarness::commit`], [`SetupHarness::write_region`], ...).
    pub fn setup(&mut self) -> &mut SetupHarness {
        &mut self.h
    }

    /// See [`SetupHarness::counters`].
    pub fn counters(&mut self) -> Result<Vec<u32>, String> {
        self.h.counters()
    }

    /// See [`SetupHarness::idle`].
    pub fn idle(&mut self, cycles: u64) -> Result<(), String> {
        self.h.idle(cycles)
    }

    /// Presents `records` in order (random idle before each, per the traffic) and takes the
    /// decisions (random backpressure), until every record was taken and every final record
    /// has its decision; then checks that the decision stream stays quiet.
    pub fn deliver(&mut self, records: &[RecordIn]) -> Result<Decisions, String> {
        let expected = records.iter().filter(|r| r.fin).count();
        let values: Vec<Vec<Vec<u32>>> = records
            .iter()
            .map(|r| {
                self.record
                    .iter()
                    .map(|(f, _)| {
                        let v = r.port_value(*f);
                        vec![v as u32, (v >> 32) as u32, (v >> 64) as u32, (v >> 96) as u32]
                    })
                    .collect()
            })
            .collect();
        let names: Vec<&str> = self.record.iter().map(|(_, n)| n.as_str()).collect();
        let m = &mut self.h.m;
        let mut source = RecordSource::new(m, "r_valid", "r_ready", &names, self.traffic.idle_pct).map_err(|e| e.to_string())?;
        let mut sink =
            Channel::new(m, "decision", "d_valid", Some("d_ready"), &["d_entry"], self.traffic.bp_pct).map_err(|e| e.to_string())?;
        self.h.idle_inputs();
        sink.always_ready(&mut self.h.m);
        let start = self.h.cycle;
        let mut run = Decisions::default();
        let mut last_progress = self.h.cycle;
        while source.next() < records.len() || run.entries.len() < expected {
            if self.h.cycle - last_progress > PROGRESS_LIMIT {
                return Err(format!(
                    "no progress for {PROGRESS_LIMIT} cycles (cycle {}): {} of {} records taken, {} of {expected} decisions; \
                     next record: {}",
                    self.h.cycle,
                    source.next(),
                    records.len(),
                    run.entries.len(),
                    records.get(source.next()).map_or("none".into(), RecordIn::summary),
                ));
            }
            source.drive(&mut self.h.m, &mut self.rng, &values);
            sink.drive(&mut self.h.m, &mut self.rng);
            self.h.settle();
            let cycle = self.h.cycle;
            if source.sample(&mut self.h.m, cycle).is_some() {
                last_progress = cycle;
            }
            if let Some(mut ports) = sink.sample(&mut self.h.m, cycle).map_err(|e| e.to_string())? {
                if run.entries.len() == expected {
                    return Err(format!(
                        "decision {} at cycle {cycle} after {} records taken: more decisions than final records ({expected}); {}",
                        run.entries.len(),
                        source.next(),
                        Decision::from_words(&ports[0])
                    ));
                }
                run.entries.push(ports.swap_remove(0));
                run.decision_cycles += 1;
                run.cycles = cycle - start + 1;
                last_progress = cycle;
            }
            self.h.tick();
        }
        run.stall_cycles = sink.stall_cycles;
        self.h.idle_inputs();
        for _ in 0..DRAIN_CYCLES {
            self.h.settle();
            self.h.check_quiet("the drain after the batch's last decision")?;
            self.h.tick();
        }
        Ok(run)
    }
}

/// The golden model and the RTL driven with the same setup and records: every decision is
/// compared word for word, and [`Lockstep::check_counters`] compares the counters. The setup
/// calls go to both through [`PairedSetup`].
pub struct Lockstep {
    /// The golden model (`Responder::new(QPS, REGIONS)`).
    pub model: Responder,
    /// The RTL.
    pub rtl: ResponderRtl,
    /// Final records delivered so far (the index of the next decision).
    pub decided: usize,
    /// The RTL's last batch: its decisions and cycle counts.
    pub last: Decisions,
    zeros: Vec<u8>,
}

impl PairedSetup for Lockstep {
    fn sides(&mut self) -> (&mut SetupHarness, &mut Responder) {
        (&mut self.rtl.h, &mut self.model)
    }
}

impl Lockstep {
    /// A fresh model and RTL; `traffic` for the record batches.
    pub fn new(traffic: Traffic) -> Result<Lockstep, String> {
        Ok(Lockstep {
            model: Responder::new(QPS, REGIONS).map_err(|e| e.to_string())?,
            rtl: ResponderRtl::new(traffic)?,
            decided: 0,
            last: Decisions::default(),
            zeros: vec![0; 1 << 16],
        })
    }

    /// Delivers `records` to both (the model skips header records and gets zero payload bytes
    /// of each record's length) and compares the decisions in order. Returns the model's
    /// outcomes, one per final record.
    pub fn deliver(&mut self, records: &[RecordIn]) -> Result<Vec<Outcome>, String> {
        let finals: Vec<&RecordIn> = records.iter().filter(|r| r.fin).collect();
        let mut outcomes = Vec::with_capacity(finals.len());
        let mut expected = Vec::with_capacity(finals.len());
        for r in &finals {
            let len = r.record.payload_len;
            if len >= self.zeros.len() {
                return Err(format!("a payload of {len} bytes does not fit r_pay_len"));
            }
            let outcome = self.model.receive(&r.record, &self.zeros[..len]);
            let dqpn = r.record.bth.map_or(0, |b| b.dqpn);
            expected.push(Decision::of(&outcome, dqpn, len as u16));
            outcomes.push(outcome);
        }
        let run = self.rtl.deliver(records)?;
        let summaries: Vec<String> = finals.iter().map(|r| r.summary()).collect();
        compare_decisions(&run.entries, &expected, self.decided, |i| {
            format!("final record {i} of the batch: {}", summaries[i])
        })?;
        self.decided += expected.len();
        self.last = run;
        Ok(outcomes)
    }

    /// Compares the RTL's counters with the model's (modulo 2^32).
    pub fn check_counters(&mut self) -> Result<(), String> {
        self.rtl.h.check_counters(&self.model)
    }
}

/// The setup calls of a lockstep ([`Lockstep`], [`RxLockstep`](crate::rx_path_rtl::RxLockstep)): each made
/// on the golden responder model and on the RTL's [`SetupHarness`], at the same point of the
/// record sequence.
pub trait PairedSetup {
    /// The RTL's setup side and the golden model.
    fn sides(&mut self) -> (&mut SetupHarness, &mut Responder);

    /// (Re)starts QP `qp` from `context` on both ([`SetupHarness::commit_paired`]).
    fn commit(&mut self, qp: u32, context: &QpContext) -> Result<(), String> {
        let (harness, model) = self.sides();
        harness.commit_paired(model, qp, context)
    }

    /// Registers a memory region on both.
    fn add_region(&mut self, region: MemoryRegion) -> Result<(), String> {
        let (harness, model) = self.sides();
        harness.add_region_paired(model, region)
    }

    /// Empties region table entry `index` on both (the RTL's entry is written all zero).
    fn clear_region(&mut self, index: u32) -> Result<(), String> {
        let (harness, model) = self.sides();
        harness.clear_region_paired(model, index)
    }

    /// Posts a receive buffer on both ([`SetupHarness::post_receive_paired`]); returns whether
    /// it was accepted.
    fn post_receive(&mut self, qp: u32, address: u64, length: u32) -> Result<bool, String> {
        let (harness, model) = self.sides();
        harness.post_receive_paired(model, qp, address, length)
    }
}

/// Compares a batch's decisions (`got`, packed) with the model's (`want`), in order; the error
/// names the first that differs (number `first + i` since the start, `what(i)` says what it was
/// the decision of) and each field that differs. A count mismatch is an error too.
pub fn compare_decisions(got: &[Vec<u32>], want: &[Decision], first: usize, what: impl Fn(usize) -> String) -> Result<(), String> {
    for (i, (got, want)) in got.iter().zip(want).enumerate() {
        let got = Decision::from_words(got);
        if got != *want {
            let fields: Vec<String> = got
                .differences(want)
                .iter()
                .map(|(name, g, w)| format!("{name}: rtl {g:#x}, model {w:#x}"))
                .collect();
            return Err(format!(
                "decision {} ({}):\n  rtl   {got}\n  model {want}\n  {}",
                first + i,
                what(i),
                fields.join("; ")
            ));
        }
    }
    if got.len() != want.len() {
        return Err(format!("{} decisions, the model made {}", got.len(), want.len()));
    }
    Ok(())
}
