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
//!   cycle. A context is changed only with a commit ([`ResponderRtl::commit`]), as the host does.
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
use crate::contracts::responder::{region_index, ResponderCounter, DECISION_WORDS, MEMORY_REGION, MEMORY_REGION_WORDS};
use crate::contracts::rx::{record, DropReason, RecordField};
use crate::contracts::tx::QP_CONTEXT_WORDS;
use crate::models::responder::{is_well_formed, Decision, MemoryRegion, Outcome, QpAttributes, Responder};
use crate::models::tx::QpContext;
use crate::rx::RxRecord;
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
pub const RECEIVE_QUEUE_DEPTH: usize = 16;
/// Idle cycles given to a commit, a region write or a receive post's result to be applied.
pub const SETUP_CYCLES: u64 = 16;
/// Cycles without a record taken or a decision after which a batch is an error.
pub const PROGRESS_LIMIT: u64 = 5_000;
/// Cycles the decision stream must stay quiet after a batch's last decision.
pub const DRAIN_CYCLES: u64 = 32;
/// Cycles allowed for `init_done` after reset (the per-QP RAMs are cleared one entry a cycle).
const INIT_LIMIT: u64 = 16 * QPS as u64;
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
        // no BTH: its fields read 0
        let bth = r.bth.unwrap_or_default();
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

struct Ports {
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
    r_valid: usize,
    d_valid: usize,
    d_ready: usize,
    d_entry: usize,
    counter_index: usize,
    counter_value: usize,
    /// The `r_*` record ports the model has (not `r_valid`, `r_ready`), with their fields.
    record: Vec<(RecordField, String)>,
}

/// The responder's Verilator model, its QP context table and its cycle count.
pub struct ResponderRtl {
    m: Model,
    p: Ports,
    traffic: Traffic,
    rng: ChaCha8Rng,
    /// The context table served on the read port, packed.
    contexts: Vec<Vec<u32>>,
    /// Context reads in flight: the cycle each entry is due and its QP.
    reads: VecDeque<(u64, usize)>,
    cycle: u64,
}

impl ResponderRtl {
    /// The model, reset, its RAMs cleared (`init_done`), every context all zero (in reset).
    /// Record idle and decision backpressure follow `traffic`.
    pub fn new(traffic: Traffic) -> Result<ResponderRtl, String> {
        let m = Model::new(MODEL).map_err(|e| e.to_string())?;
        let port = |n: &str| m.port(n).map_err(|e| e.to_string());
        let mut record = Vec::new();
        for f in record::front() {
            let name = format!("{}{}", record::FRONT_PREFIX, f.name);
            match m.port(&name) {
                Ok(i) if m.ports()[i].input => record.push((f, name)),
                _ if REQUIRED_RECORD_PORTS.contains(&f) => return Err(format!("model {MODEL} has no input port {name}")),
                _ => {}
            }
        }
        let p = Ports {
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
            r_valid: port("r_valid")?,
            d_valid: port("d_valid")?,
            d_ready: port("d_ready")?,
            d_entry: port("d_entry")?,
            counter_index: port("counter_index")?,
            counter_value: port("counter_value")?,
            record,
        };
        let entry_width = m.ports()[p.d_entry].width;
        if entry_width != 32 * DECISION_WORDS {
            return Err(format!("d_entry is {entry_width} bits wide, DECISION has {}", 32 * DECISION_WORDS));
        }
        let mut rtl = ResponderRtl {
            m,
            p,
            traffic,
            rng: ChaCha8Rng::seed_from_u64(traffic.seed),
            contexts: vec![vec![0; QP_CONTEXT_WORDS]; QPS as usize],
            reads: VecDeque::new(),
            cycle: 0,
        };
        rtl.reset()?;
        Ok(rtl)
    }

    /// Resets the model (its per-QP state, receive queues, region table and counters) and waits
    /// for `init_done`. The context table is kept.
    pub fn reset(&mut self) -> Result<(), String> {
        self.idle_inputs();
        self.m.set_u64(self.p.reset, 1);
        self.m.step(2);
        self.m.set_u64(self.p.reset, 0);
        self.reads.clear();
        for _ in 0..INIT_LIMIT {
            self.settle();
            let done = self.m.peek_u64(self.p.init_done) != 0;
            self.tick();
            if done {
                return Ok(());
            }
        }
        Err(format!("{MODEL}: init_done not high {INIT_LIMIT} cycles after reset"))
    }

    /// Cycles run since the model was made.
    pub fn cycle(&self) -> u64 {
        self.cycle
    }

    /// The underlying Verilator model (to trace it, for example).
    pub fn model(&mut self) -> &mut Model {
        &mut self.m
    }

    /// Sets QP `qp`'s context and pulses `qp_commit` for it: the responder restarts the QP
    /// from the context (expected PSN `rq_psn`, MSN 0, nothing open, receive queue emptied).
    pub fn commit(&mut self, qp: u32, context: &QpContext) -> Result<(), String> {
        if qp >= QPS {
            return Err(format!("QP {qp} is beyond the model's {QPS}"));
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
        let entry = MEMORY_REGION
            .encode(&[
                ("valid", 1),
                ("access", u128::from(region.access.code())),
                ("pd", u128::from(region.pd)),
                ("rkey", u128::from(region.rkey)),
                ("base", u128::from(region.base)),
                ("length", u128::from(region.length)),
            ])
            .map_err(|e| format!("memory region: {e}"))?;
        self.write_region_entry(region_index(region.rkey), &entry)
    }

    /// Writes the packed entry `entry` (`MEMORY_REGION`) in entry `index` (all zero: clears it).
    pub fn write_region_entry(&mut self, index: u32, entry: &[u32]) -> Result<(), String> {
        if index >= REGIONS {
            return Err(format!("region entry {index} is beyond the model's {REGIONS}"));
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
            self.check_no_decision("a receive post")?;
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

    /// Presents `records` in order (random idle before each, per the traffic) and takes the
    /// decisions (random backpressure), until every record was taken and every final record
    /// has its decision; then checks that the decision stream stays quiet.
    pub fn deliver(&mut self, records: &[RecordIn]) -> Result<Decisions, String> {
        let expected = records.iter().filter(|r| r.fin).count();
        let values: Vec<Vec<Vec<u32>>> = records
            .iter()
            .map(|r| {
                self.p
                    .record
                    .iter()
                    .map(|(f, _)| {
                        let v = r.port_value(*f);
                        vec![v as u32, (v >> 32) as u32, (v >> 64) as u32, (v >> 96) as u32]
                    })
                    .collect()
            })
            .collect();
        let names: Vec<&str> = self.p.record.iter().map(|(_, n)| n.as_str()).collect();
        let mut source = RecordSource::new(&self.m, "r_valid", "r_ready", &names, self.traffic.idle_pct).map_err(|e| e.to_string())?;
        let mut sink =
            Channel::new(&self.m, "decision", "d_valid", Some("d_ready"), &["d_entry"], self.traffic.bp_pct).map_err(|e| e.to_string())?;
        self.idle_inputs();
        sink.always_ready(&mut self.m);
        let start = self.cycle;
        let mut run = Decisions::default();
        let mut last_progress = self.cycle;
        while source.next() < records.len() || run.entries.len() < expected {
            if self.cycle - last_progress > PROGRESS_LIMIT {
                return Err(format!(
                    "no progress for {PROGRESS_LIMIT} cycles (cycle {}): {} of {} records taken, {} of {expected} decisions; \
                     next record: {}",
                    self.cycle,
                    source.next(),
                    records.len(),
                    run.entries.len(),
                    records.get(source.next()).map_or("none".into(), RecordIn::summary),
                ));
            }
            source.drive(&mut self.m, &mut self.rng, &values);
            sink.drive(&mut self.m, &mut self.rng);
            self.settle();
            if source.sample(&mut self.m, self.cycle).is_some() {
                last_progress = self.cycle;
            }
            if let Some(mut ports) = sink.sample(&mut self.m, self.cycle).map_err(|e| e.to_string())? {
                if run.entries.len() == expected {
                    return Err(format!(
                        "decision {} at cycle {} after {} records taken: more decisions than final records ({expected}); {}",
                        run.entries.len(),
                        self.cycle,
                        source.next(),
                        Decision::from_words(&ports[0])
                    ));
                }
                run.entries.push(ports.swap_remove(0));
                run.decision_cycles += 1;
                run.cycles = self.cycle - start + 1;
                last_progress = self.cycle;
            }
            self.tick();
        }
        run.stall_cycles = sink.stall_cycles;
        self.idle_inputs();
        for _ in 0..DRAIN_CYCLES {
            self.settle();
            self.check_no_decision("the drain after the batch's last decision")?;
            self.tick();
        }
        Ok(run)
    }

    /// The counters, in [`ResponderCounter::ALL`] order (`counter_value` shows the counter of
    /// the index presented in the previous cycle).
    pub fn counters(&mut self) -> Result<Vec<u32>, String> {
        self.idle_inputs();
        let n = ResponderCounter::ALL.len();
        let mut values = Vec::with_capacity(n);
        for i in 0..=n {
            self.m.set_u64(self.p.counter_index, i.min(n - 1) as u64);
            self.settle();
            self.check_no_decision("a counter read")?;
            if i > 0 {
                values.push(self.m.peek_u64(self.p.counter_value) as u32);
            }
            self.tick();
        }
        Ok(values)
    }

    /// `cycles` cycles with every request input idle (the context reads still served).
    pub fn idle(&mut self, cycles: u64) -> Result<(), String> {
        for _ in 0..cycles {
            self.settle();
            self.check_no_decision("setup")?;
            self.tick();
        }
        Ok(())
    }

    /// Every request input low, decisions taken at once.
    fn idle_inputs(&mut self) {
        for port in [self.p.r_valid, self.p.recv_valid, self.p.qp_commit_valid, self.p.region_write_valid] {
            self.m.set_u64(port, 0);
        }
        self.m.set_u64(self.p.d_ready, 1);
    }

    /// A decision shown outside a batch is an error (setup happens with no record in flight).
    fn check_no_decision(&mut self, during: &str) -> Result<(), String> {
        if self.m.peek_u64(self.p.d_valid) != 0 {
            return Err(format!(
                "decision at cycle {} during {during}: {}",
                self.cycle,
                Decision::from_words(&self.m.peek(self.p.d_entry))
            ));
        }
        Ok(())
    }

    /// The context read port's input for this cycle, then the logic settled and this cycle's
    /// read request, if any, queued.
    fn settle(&mut self) {
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
            self.reads.push_back((self.cycle + QP_READ_LATENCY as u64, qp % QPS as usize));
        }
    }

    fn tick(&mut self) {
        self.m.tick();
        self.cycle += 1;
    }
}

/// The golden model and the RTL driven with the same setup and records: every decision is
/// compared word for word, and [`Lockstep::check_counters`] compares the counters.
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

    /// (Re)starts QP `qp` from `context` on both: the model resets the QP and adds it with the
    /// context's attributes; the RTL gets the context and a commit.
    pub fn commit(&mut self, qp: u32, context: &QpContext) -> Result<(), String> {
        let attributes = QpAttributes::from_context(context).map_err(|e| format!("context of QP {qp}: {e}"))?;
        self.model.reset_qp(qp).map_err(|e| e.to_string())?;
        self.model.add_qp(qp, attributes).map_err(|e| format!("QP {qp}: {e}"))?;
        self.rtl.commit(qp, context)
    }

    /// Registers a memory region on both.
    pub fn add_region(&mut self, region: MemoryRegion) -> Result<(), String> {
        self.model.add_memory_region(region).map_err(|e| e.to_string())?;
        self.rtl.write_region(&region)
    }

    /// Empties region table entry `index` on both (the RTL's entry is written all zero).
    pub fn clear_region(&mut self, index: u32) -> Result<(), String> {
        self.model.clear_memory_region(index).map_err(|e| e.to_string())?;
        self.rtl.write_region_entry(index, &[0; MEMORY_REGION_WORDS])
    }

    /// Posts a receive buffer on both. The RTL must accept it when the model's queue holds
    /// fewer than [`RECEIVE_QUEUE_DEPTH`] buffers and refuse it otherwise (the model then
    /// does not get it); returns whether it was accepted.
    pub fn post_receive(&mut self, qp: u32, address: u64, length: u32) -> Result<bool, String> {
        let queued = self.model.qp(qp).map_or(0, |q| q.receive_queue.len());
        let accepted = self.rtl.post_receive(qp, address, length)?;
        if accepted != (queued < RECEIVE_QUEUE_DEPTH) {
            return Err(format!(
                "receive post to QP {qp} with {queued} buffers queued: the RTL {} it",
                if accepted { "accepted" } else { "refused" }
            ));
        }
        if accepted {
            self.model.post_receive(qp, address, length).map_err(|e| e.to_string())?;
        }
        Ok(accepted)
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
        for (i, (got, want)) in run.entries.iter().zip(&expected).enumerate() {
            let got = Decision::from_words(got);
            if got != *want {
                let fields: Vec<String> = got
                    .differences(want)
                    .iter()
                    .map(|(name, g, w)| format!("{name}: rtl {g:#x}, model {w:#x}"))
                    .collect();
                return Err(format!(
                    "decision {} (final record {i} of the batch: {}):\n  rtl   {got}\n  model {want}\n  {}",
                    self.decided + i,
                    finals[i].summary(),
                    fields.join("; ")
                ));
            }
        }
        self.decided += expected.len();
        self.last = run;
        Ok(outcomes)
    }

    /// Compares the RTL's counters with the model's (modulo 2^32).
    pub fn check_counters(&mut self) -> Result<(), String> {
        let rtl = self.rtl.counters()?;
        let model = self.model.counters();
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
