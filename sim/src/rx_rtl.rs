//! Runner of the RX front end's Verilator model (`ferroce_rx_front_w<W>`, top `rx_front`), used
//! by `ferroce-sim rx --engine rtl` and by the co-simulation (`sim/tests/rx_front_cosim.rs`).
//!
//! [`RxFrontRtl`] drives the model cycle by cycle from Rust: the input stream with random idle
//! cycles (garbage on the bus while `s_axis_tvalid` is low), and random `tready` low on each of
//! the three outputs independently (payload `m_pay_*`, pass-through `m_pass_*`, header record
//! `r_*`). Every cycle it checks the AXI-Stream rules on the three outputs (valid held and payload
//! stable while stalled) and the beat format (`tkeep` contiguous from lane 0, full beats but the
//! last, `tuser` only on a last beat). It then rebuilds one [`RxResult`] per input frame, in
//! order: a frame whose bytes are the next pass-through frame is a pass; any other takes the next
//! record, and the next payload frame when the record's `r_pay_len` is not 0. The results print
//! the same JSON as [`crate::rx::rx_model`]'s (DETH, AtomicETH, AtomicAckETH and IETH, which the
//! JSON does not show and the RTL record does not carry, are `None`).

use crate::axis::{pack_beat, value, AxisPorts, Channel, FrameSink, FrameSource};
use crate::contracts::rx::{record, RecordField, NO_REASON};
use crate::models::FrameEngine;
use crate::rx::{crc32, DropReason, RxBth, RxCounters, RxEngine, RxRecord, RxResult, RxVerdict};
use crate::verilated::{Model, SimError, MODELS};
use crate::wire::{aeth, immdt, reth};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// The record ports (`r_<name>` of the RX record schema), in schema order.
pub fn record_ports() -> Vec<String> {
    record::front().map(|f| format!("{}{}", record::FRONT_PREFIX, f.name)).collect()
}

/// Cycles with no valid on any output after which a run is over.
const QUIET_CYCLES: u64 = 256;
/// Cycles after the last input beat within which the outputs must fall quiet.
const DRAIN_LIMIT: u64 = 200_000;
/// Consecutive cycles the input may be refused before the run is declared hung.
const STALL_LIMIT: u64 = 100_000;

/// Verilator model name at a bus width.
pub fn model_name(width: usize) -> String {
    format!("ferroce_rx_front_w{width}")
}

/// One header record as read from the `r_*` ports: each field but `cycle` is the port
/// `r_<name>` of the RX record schema (`ferroce_contracts::rx::record`), which documents it once
/// (`fin` is `r_final`).
#[allow(missing_docs)]
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RtlRecord {
    /// Cycle of the `r_valid`/`r_ready` handshake.
    pub cycle: u64,
    pub drop: bool,
    pub reason: u8,
    pub icrc_chk: bool,
    pub icrc_ok: bool,
    pub eth_dst: u64,
    pub eth_src: u64,
    pub vlan_ok: bool,
    pub vlan: u16,
    pub ip_v6: bool,
    pub ip_src: u128,
    pub ip_dst: u128,
    pub ip_dscp: u8,
    pub ip_ecn: u8,
    pub ip_ttl: u8,
    pub udp_sport: u16,
    pub udp_dport: u16,
    pub bth_ok: bool,
    pub bth_opcode: u8,
    pub bth_se: bool,
    pub bth_m: bool,
    pub bth_padcnt: u8,
    pub bth_tver: u8,
    pub bth_pkey: u16,
    pub bth_fecn: bool,
    pub bth_becn: bool,
    pub bth_dqpn: u32,
    pub bth_ackreq: bool,
    pub bth_psn: u32,
    pub reth_ok: bool,
    pub reth_va: u64,
    pub reth_rkey: u32,
    pub reth_dmalen: u32,
    pub immdt_ok: bool,
    pub immdt: u32,
    pub aeth_ok: bool,
    pub aeth_syndrome: u8,
    pub aeth_msn: u32,
    pub pay_len: usize,
    /// The packet's final record (else the header record of a frame longer than the capture).
    pub fin: bool,
}

fn mac_of(v: u64) -> [u8; 6] {
    let b = v.to_be_bytes();
    [b[2], b[3], b[4], b[5], b[6], b[7]]
}

impl RtlRecord {
    /// The record from the values of the `r_*` ports, in schema order ([`record_ports`]).
    fn from_values(cycle: u64, values: &[u128]) -> RtlRecord {
        RtlRecord::from_fields(cycle, |f| values[record::front_index(f)])
    }

    /// The record from the value of each schema field (`value` gives 0 for a field the ports
    /// read do not carry).
    pub fn from_fields(cycle: u64, value: impl Fn(RecordField) -> u128) -> RtlRecord {
        let v = &value;
        let b = |f: RecordField| v(f) != 0;
        RtlRecord {
            cycle,
            drop: b(record::DROP),
            reason: v(record::REASON) as u8,
            icrc_chk: b(record::ICRC_CHK),
            icrc_ok: b(record::ICRC_OK),
            eth_dst: v(record::ETH_DST) as u64,
            eth_src: v(record::ETH_SRC) as u64,
            vlan_ok: b(record::VLAN_OK),
            vlan: v(record::VLAN) as u16,
            ip_v6: b(record::IP_V6),
            ip_src: v(record::IP_SRC),
            ip_dst: v(record::IP_DST),
            ip_dscp: v(record::IP_DSCP) as u8,
            ip_ecn: v(record::IP_ECN) as u8,
            ip_ttl: v(record::IP_TTL) as u8,
            udp_sport: v(record::UDP_SPORT) as u16,
            udp_dport: v(record::UDP_DPORT) as u16,
            bth_ok: b(record::BTH_OK),
            bth_opcode: v(record::BTH_OPCODE) as u8,
            bth_se: b(record::BTH_SE),
            bth_m: b(record::BTH_M),
            bth_padcnt: v(record::BTH_PADCNT) as u8,
            bth_tver: v(record::BTH_TVER) as u8,
            bth_pkey: v(record::BTH_PKEY) as u16,
            bth_fecn: b(record::BTH_FECN),
            bth_becn: b(record::BTH_BECN),
            bth_dqpn: v(record::BTH_DQPN) as u32,
            bth_ackreq: b(record::BTH_ACKREQ),
            bth_psn: v(record::BTH_PSN) as u32,
            reth_ok: b(record::RETH_OK),
            reth_va: v(record::RETH_VA) as u64,
            reth_rkey: v(record::RETH_RKEY) as u32,
            reth_dmalen: v(record::RETH_DMALEN) as u32,
            immdt_ok: b(record::IMMDT_OK),
            immdt: v(record::IMMDT) as u32,
            aeth_ok: b(record::AETH_OK),
            aeth_syndrome: v(record::AETH_SYNDROME) as u8,
            aeth_msn: v(record::AETH_MSN) as u32,
            pay_len: v(record::PAY_LEN) as usize,
            fin: b(record::FINAL),
        }
    }

    /// The verdict the record carries (an error for a reason code that does not fit `r_drop`).
    pub fn verdict(&self) -> Result<RxVerdict, String> {
        match (self.drop, DropReason::from_code(self.reason)) {
            (false, None) if self.reason == NO_REASON => Ok(RxVerdict::Accept),
            (true, Some(r)) => Ok(RxVerdict::Drop(r)),
            (d, _) => Err(format!("record with r_drop={} and r_reason={}", u8::from(d), self.reason)),
        }
    }

    /// The same record with only the header fields: what decides the packet (`drop`, `reason`,
    /// the ICRC, `pay_len`, `final`) and the cycle cleared.
    pub fn header_fields(&self) -> RtlRecord {
        RtlRecord {
            cycle: 0,
            drop: false,
            reason: 0,
            icrc_chk: false,
            icrc_ok: false,
            pay_len: 0,
            fin: false,
            ..self.clone()
        }
    }

    /// The result this record and the payload bytes delivered for it make.
    pub fn to_result(&self, payload: Vec<u8>) -> Result<RxResult, String> {
        Ok(RxResult {
            verdict: self.verdict()?,
            record: Some(self.to_record(&payload)),
            payload,
        })
    }

    /// The model's record for these fields and the payload bytes delivered (DETH, AtomicETH,
    /// AtomicAckETH and IETH, which the RTL record does not carry, are `None`).
    pub fn to_record(&self, payload: &[u8]) -> RxRecord {
        let ip = |a: u128| {
            if self.ip_v6 {
                IpAddr::V6(Ipv6Addr::from(a))
            } else {
                IpAddr::V4(Ipv4Addr::from(a as u32))
            }
        };
        RxRecord {
            icrc_ok: self.icrc_chk.then_some(self.icrc_ok),
            eth_dst: mac_of(self.eth_dst),
            eth_src: mac_of(self.eth_src),
            vlan: self.vlan_ok.then_some(self.vlan),
            ip_version: if self.ip_v6 { 6 } else { 4 },
            ip_src: ip(self.ip_src),
            ip_dst: ip(self.ip_dst),
            ip_dscp: self.ip_dscp,
            ip_ecn: self.ip_ecn,
            ip_ttl: self.ip_ttl,
            udp_sport: self.udp_sport,
            udp_dport: self.udp_dport,
            bth: self.bth_ok.then_some(RxBth {
                opcode: self.bth_opcode,
                se: self.bth_se,
                m: self.bth_m,
                padcnt: self.bth_padcnt,
                tver: self.bth_tver,
                pkey: self.bth_pkey,
                fecn: self.bth_fecn,
                becn: self.bth_becn,
                dqpn: self.bth_dqpn,
                ackreq: self.bth_ackreq,
                psn: self.bth_psn,
            }),
            deth: None,
            reth: self.reth_ok.then_some(reth::Repr {
                va: self.reth_va,
                r_key: self.reth_rkey,
                dma_len: self.reth_dmalen,
            }),
            atomic_eth: None,
            aeth: self.aeth_ok.then_some(aeth::Repr {
                syndrome: self.aeth_syndrome,
                msn: self.aeth_msn,
            }),
            atomic_ack_eth: None,
            immdt: self.immdt_ok.then_some(immdt::Repr { imm: self.immdt }),
            ieth: None,
            payload_len: self.pay_len,
            payload_crc32: crc32(payload),
        }
    }
}

/// Checks a header record against its frame's final record: it came first, every header field
/// is the same, and it drops the packet only if the final record does (a header check that
/// failed cannot pass later; the final record may still drop a packet its headers accepted).
fn check_header_record(h: &RtlRecord, r: &RtlRecord) -> Result<(), String> {
    if h.fin || h.cycle >= r.cycle {
        return Err(format!(
            "header record (cycle {}, final {}) does not precede the final one (cycle {})",
            h.cycle, h.fin, r.cycle
        ));
    }
    if h.header_fields() != r.header_fields() {
        return Err(format!("header record fields differ from the final record's:\n  {h:?}\n  {r:?}"));
    }
    if h.icrc_chk {
        return Err("header record with r_icrc_chk set".into());
    }
    if h.drop && !r.drop {
        return Err(format!("header record drops (reason {}) but the final record accepts", h.reason));
    }
    if h.drop != (h.reason != 0) {
        return Err(format!("header record with r_drop {} and r_reason {}", h.drop, h.reason));
    }
    Ok(())
}

/// When a frame went in and when its answer came out (absolute cycles of the runner).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct FrameTiming {
    /// Cycle at which the frame's last input beat was accepted.
    pub last_in_cycle: u64,
    /// Cycle at which its record was taken (`None` for a pass).
    pub record_cycle: Option<u64>,
    /// Frames longer than the 128-byte header capture: the cycle the beat completing the
    /// capture was accepted.
    pub capture_cycle: Option<u64>,
    /// The same frames, when RoCEv2: the cycle their header record was taken.
    pub header_record_cycle: Option<u64>,
    /// Cycle at which the last beat of its pass-through frame or payload was taken (`None` when
    /// it has neither).
    pub out_cycle: Option<u64>,
}

impl FrameTiming {
    /// Record latency: cycles from the last input beat to the record handshake.
    pub fn record_latency(&self) -> Option<u64> {
        self.record_cycle.map(|c| c - self.last_in_cycle)
    }

    /// Header record latency: cycles from the beat that completes the header capture to the
    /// header record's handshake (frames longer than the capture).
    pub fn header_record_latency(&self) -> Option<u64> {
        Some(self.header_record_cycle? - self.capture_cycle?)
    }
}

/// Cycle counts of a run.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RxRunStats {
    /// Absolute cycle at which the run started (the cycles below are relative to it).
    pub start_cycle: u64,
    /// Cycles the run took (input, then draining until the outputs were quiet for a while).
    pub cycles: u64,
    /// Cycle of the first input beat's handshake minus the run's first cycle.
    pub first_beat_cycle: u64,
    /// Cycle of the last input beat's handshake minus the run's first cycle, plus one: the
    /// input phase.
    pub input_cycles: u64,
    /// Input beats.
    pub in_beats: u64,
    /// Cycles the source idled (valid low) before a beat.
    pub in_idle_cycles: u64,
    /// Cycles the source presented a beat and `s_axis_tready` was low.
    pub in_stall_cycles: u64,
    /// The same, counted only once the first frame's last beat was accepted.
    pub in_stalls_after_first_frame: u64,
    /// First such cycle (absolute).
    pub first_stall_after_first_frame: Option<u64>,
    /// Beats out on the payload stream.
    pub pay_beats: u64,
    /// Frames out on the payload stream.
    pub pay_frames: u64,
    /// Cycles the payload stream's valid was high with ready low.
    pub pay_stall_cycles: u64,
    /// Beats out on the pass-through stream.
    pub pass_beats: u64,
    /// Frames out on the pass-through stream.
    pub pass_frames: u64,
    /// Cycles the pass-through stream's valid was high with ready low.
    pub pass_stall_cycles: u64,
    /// Final records taken.
    pub records: u64,
    /// Cycles `r_valid` was high with `r_ready` low.
    pub rec_stall_cycles: u64,
}

/// What [`RxFrontRtl::run`] produced.
#[derive(Debug, Clone)]
pub struct RxRun {
    /// One result per input frame, in order.
    pub results: Vec<RxResult>,
    /// One timing per input frame.
    pub timing: Vec<FrameTiming>,
    /// The final records as read, in output order.
    pub records: Vec<RtlRecord>,
    /// The header records (`r_final` = 0) as read, in output order.
    pub header_records: Vec<RtlRecord>,
    /// Cycle figures.
    pub stats: RxRunStats,
}

impl RxRun {
    /// (min, max) record latency over the frames that have a record.
    pub fn record_latency(&self) -> Option<(u64, u64)> {
        let l = self.timing.iter().filter_map(FrameTiming::record_latency);
        let (mut lo, mut hi, mut any) = (u64::MAX, 0, false);
        for x in l {
            lo = lo.min(x);
            hi = hi.max(x);
            any = true;
        }
        any.then_some((lo, hi))
    }

    /// (min, max) header record latency over the frames that have a header record.
    pub fn header_record_latency(&self) -> Option<(u64, u64)> {
        let mut l = self.timing.iter().filter_map(FrameTiming::header_record_latency).peekable();
        l.peek()?;
        Some(l.fold((u64::MAX, 0), |(lo, hi), x| (lo.min(x), hi.max(x))))
    }
}

struct Ports {
    reset: usize,
    input: AxisPorts,
    cnt_frames_in: usize,
    cnt_accepted: usize,
    cnt_passed: usize,
    cnt_drop: Vec<usize>,
}

/// Names of the output interfaces, as the stream driver reports them.
const PAYLOAD: &str = "m_pay";
const PASS_THROUGH: &str = "m_pass";
const RECORD: &str = "record (r_*)";

/// The Verilator model of the RX front end at one bus width, stepped cycle by cycle.
pub struct RxFrontRtl {
    m: Model,
    width: usize,
    p: Ports,
    cycle: u64,
}

impl RxFrontRtl {
    /// Instantiates `ferroce_rx_front_w<width>` and resets it.
    pub fn new(width: usize) -> Result<RxFrontRtl, String> {
        let name = model_name(width);
        let m = Model::new(&name).map_err(|_| {
            format!(
                "the RX front end RTL model {name} is not built into this binary (built: {}); rebuild ferroce-sim with FERROCE_SIM_ALL=1 (1024 bits) or with rx_front in FERROCE_SIM_TOPS and {width} in FERROCE_SIM_WIDTHS (or unset them), or use --engine model",
                if MODELS.is_empty() { "none".to_string() } else { MODELS.join(", ") }
            )
        })?;
        let port = |n: &str| m.port(n).map_err(|e| e.to_string());
        let input = AxisPorts::find(&m, "s_axis").map_err(|e| e.to_string())?;
        if input.bytes_per_beat != width / 8 {
            return Err(format!(
                "{name}: s_axis_tdata is {} bits wide, expected {width}",
                input.bytes_per_beat * 8
            ));
        }
        for n in record_ports() {
            let w = m.ports()[port(&n)?].width;
            if w > 128 {
                return Err(format!("{name}: record port {n} is {w} bits wide (at most 128 supported)"));
            }
        }
        let p = Ports {
            reset: port("reset")?,
            input,
            cnt_frames_in: port("cnt_frames_in")?,
            cnt_accepted: port("cnt_accepted")?,
            cnt_passed: port("cnt_passed")?,
            cnt_drop: DropReason::ALL.iter().map(|r| port(&r.counter_port())).collect::<Result<_, _>>()?,
        };
        let mut dut = RxFrontRtl { m, width, p, cycle: 0 };
        dut.outputs(0).map_err(|e| e.to_string())?;
        dut.reset(4);
        Ok(dut)
    }

    /// The sinks of the three outputs (payload, pass-through, header record), each holding its
    /// ready low with `bp_pct` percent chance per cycle.
    fn outputs(&self, bp_pct: u32) -> Result<(FrameSink, FrameSink, Channel), SimError> {
        let names = record_ports();
        let record: Vec<&str> = names.iter().map(String::as_str).collect();
        Ok((
            FrameSink::new(&self.m, PAYLOAD, &[], bp_pct)?,
            FrameSink::new(&self.m, PASS_THROUGH, &[], bp_pct)?,
            Channel::new(&self.m, RECORD, "r_valid", Some("r_ready"), &record, bp_pct)?,
        ))
    }

    /// Bus width in bits.
    pub fn width(&self) -> usize {
        self.width
    }

    /// The current cycle (cycles stepped since the model was created).
    pub fn cycle(&self) -> u64 {
        self.cycle
    }

    /// The underlying model (to trace it, for example).
    pub fn model(&mut self) -> &mut Model {
        &mut self.m
    }

    /// Input valid low, every output ready, `reset` high for `cycles` cycles.
    pub fn reset(&mut self, cycles: u64) {
        self.m.set_u64(self.p.input.valid, 0);
        self.m.set_u64(self.p.input.last, 0);
        if let Ok((mut pay, mut pass, mut record)) = self.outputs(0) {
            pay.always_ready(&mut self.m);
            pass.always_ready(&mut self.m);
            record.always_ready(&mut self.m);
        }
        self.m.set_u64(self.p.reset, 1);
        self.m.step(cycles);
        self.m.set_u64(self.p.reset, 0);
        self.cycle += cycles;
    }

    /// The `cnt_*` ports.
    pub fn counters(&mut self) -> RxCounters {
        let mut c = RxCounters {
            frames_in: self.m.get_u64(self.p.cnt_frames_in),
            accepted: self.m.get_u64(self.p.cnt_accepted),
            passed: self.m.get_u64(self.p.cnt_passed),
            ..RxCounters::default()
        };
        for (i, &p) in self.p.cnt_drop.iter().enumerate() {
            c.dropped[i] = self.m.get_u64(p);
        }
        c
    }

    /// Sends `frames` (none empty) with `idle_pct` percent chance of an idle cycle before each
    /// beat and `bp_pct` percent chance per cycle and per output of `tready` low; runs until the
    /// outputs are quiet, then rebuilds one result per frame (see the module docs).
    pub fn run(&mut self, frames: &[Vec<u8>], idle_pct: u32, bp_pct: u32, seed: u64) -> Result<RxRun, String> {
        let rng = &mut ChaCha8Rng::seed_from_u64(seed);
        let start = self.cycle;
        let mut source = FrameSource::new(self.p.input, frames, idle_pct).map_err(|e| e.to_string())?;
        let (mut pay, mut pass, mut record) = self.outputs(bp_pct).map_err(|e| e.to_string())?;
        let mut stats = RxRunStats::default();
        let mut records: Vec<RtlRecord> = Vec::new();
        let mut header_records: Vec<RtlRecord> = Vec::new();
        let mut capture_in = vec![None; frames.len()];
        let capture_beat = (128 / self.p.input.bytes_per_beat).max(1) - 1;
        let (mut quiet, mut stall_run, mut drain) = (0u64, 0u64, 0u64);
        let mut first_beat = None;
        loop {
            if source.done() {
                if quiet >= QUIET_CYCLES {
                    break;
                }
                if drain >= DRAIN_LIMIT {
                    return Err(format!(
                        "hang: the outputs are still busy {DRAIN_LIMIT} cycles after the last input beat ({} records, {} payload frames, {} pass-through frames so far for {} frames)",
                        records.len(),
                        pay.frames.len(),
                        pass.frames.len(),
                        frames.len()
                    ));
                }
                drain += 1;
            }
            source.drive(&mut self.m, rng);
            pay.drive(&mut self.m, rng);
            pass.drive(&mut self.m, rng);
            record.drive(&mut self.m, rng);
            self.m.eval();
            let c = self.cycle;

            // Input handshake.
            let stalls = source.stall_cycles;
            if let Some(taken) = source.sample(&mut self.m, c) {
                first_beat.get_or_insert(c);
                stall_run = 0;
                if taken.beat == capture_beat && frames[taken.frame].len() > 128 {
                    capture_in[taken.frame] = Some(c);
                }
                if taken.last {
                    stats.input_cycles = c + 1 - start;
                }
            } else if source.stall_cycles > stalls {
                if source.frame() > 0 {
                    stats.in_stalls_after_first_frame += 1;
                    stats.first_stall_after_first_frame.get_or_insert(c);
                }
                stall_run += 1;
                if stall_run > STALL_LIMIT {
                    return Err(format!(
                        "hang: s_axis_tready low for {STALL_LIMIT} cycles on frame {} beat {} ({} records, {} payload frames, {} pass-through frames out)",
                        source.frame(),
                        source.beat(),
                        records.len(),
                        pay.frames.len(),
                        pass.frames.len()
                    ));
                }
            }

            // Outputs.
            let busy = pay.valid(&mut self.m) || pass.valid(&mut self.m) || record.valid(&mut self.m);
            pay.sample(&mut self.m, c).map_err(|e| e.to_string())?;
            pass.sample(&mut self.m, c).map_err(|e| e.to_string())?;
            if let Some(ports) = record.sample(&mut self.m, c).map_err(|e| e.to_string())? {
                let values: Vec<u128> = ports.iter().map(|w| value(w)).collect();
                let rec = RtlRecord::from_values(c, &values);
                if rec.fin {
                    records.push(rec);
                } else {
                    header_records.push(rec);
                }
            }
            quiet = if busy { 0 } else { quiet + 1 };
            self.m.tick();
            self.cycle += 1;
        }
        stats.start_cycle = start;
        stats.cycles = self.cycle - start;
        stats.first_beat_cycle = first_beat.map_or(0, |c| c - start);
        stats.in_beats = source.beats;
        stats.in_idle_cycles = source.idle_cycles;
        stats.in_stall_cycles = source.stall_cycles;
        (stats.pay_beats, stats.pay_stall_cycles) = pay.counts();
        stats.pay_frames = pay.frames.len() as u64;
        (stats.pass_beats, stats.pass_stall_cycles) = pass.counts();
        stats.pass_frames = pass.frames.len() as u64;
        stats.records = records.len() as u64;
        stats.rec_stall_cycles = record.stall_cycles;
        for (name, sink) in [(PAYLOAD, &pay), (PASS_THROUGH, &pass)] {
            if sink.pending_bytes() > 0 {
                return Err(format!(
                    "{name}: a frame of {} bytes has no tlast beat at the end of the run",
                    sink.pending_bytes()
                ));
            }
        }
        if let Some(i) = pay.frames.iter().position(|f| f.user_before_last) {
            return Err(format!("{PAYLOAD} frame {i} has tuser set on a beat before its last"));
        }
        let last_in = source.last_cycles;
        // Rebuild one result per input frame.
        let counts = format!(
            "{} records, {} payload frames, {} pass-through frames for {} input frames",
            records.len(),
            pay.frames.len(),
            pass.frames.len(),
            frames.len()
        );
        let (mut ri, mut yi, mut pi, mut hi) = (0, 0, 0, 0);
        let mut results = Vec::with_capacity(frames.len());
        let mut timing = Vec::with_capacity(frames.len());
        for (i, f) in frames.iter().enumerate() {
            let mut t = FrameTiming {
                last_in_cycle: last_in[i],
                capture_cycle: capture_in[i],
                ..FrameTiming::default()
            };
            if pass.frames.get(pi).is_some_and(|p| p.bytes == *f) {
                t.out_cycle = Some(pass.frames[pi].last_cycle);
                pi += 1;
                results.push(RxResult {
                    verdict: RxVerdict::Pass,
                    record: None,
                    payload: Vec::new(),
                });
                timing.push(t);
                continue;
            }
            let Some(r) = records.get(ri) else {
                return Err(format!(
                    "frame {i} ({} bytes): neither the next pass-through frame nor a record is left for it ({counts})",
                    f.len()
                ));
            };
            ri += 1;
            t.record_cycle = Some(r.cycle);
            if f.len() > 128 {
                let Some(h) = header_records.get(hi) else {
                    return Err(format!("frame {i} ({} bytes): no header record before the final one", f.len()));
                };
                hi += 1;
                check_header_record(h, r).map_err(|e| format!("frame {i} ({} bytes): {e}", f.len()))?;
                t.header_record_cycle = Some(h.cycle);
            }
            let payload = if r.pay_len > 0 {
                let Some(p) = pay.frames.get(yi) else {
                    return Err(format!(
                        "frame {i} ({} bytes): record {} says r_pay_len {} but no payload frame is left ({counts})",
                        f.len(),
                        ri - 1,
                        r.pay_len
                    ));
                };
                yi += 1;
                if p.bytes.len() != r.pay_len {
                    return Err(format!(
                        "frame {i} ({} bytes): payload frame {} has {} bytes, record says r_pay_len {}",
                        f.len(),
                        yi - 1,
                        p.bytes.len(),
                        r.pay_len
                    ));
                }
                if (p.user != 0) != r.drop {
                    return Err(format!(
                        "frame {i} ({} bytes): payload frame {} ends with tuser {} but the record says r_drop {}",
                        f.len(),
                        yi - 1,
                        p.user,
                        u8::from(r.drop)
                    ));
                }
                t.out_cycle = Some(p.last_cycle);
                p.bytes.clone()
            } else {
                Vec::new()
            };
            results.push(r.to_result(payload).map_err(|e| format!("frame {i} ({} bytes): {e}", f.len()))?);
            timing.push(t);
        }
        if ri < records.len() || hi < header_records.len() || yi < pay.frames.len() || pi < pass.frames.len() {
            return Err(format!(
                "left over after the last frame: {} records, {} header records, {} payload frames, {} pass-through frames ({counts})",
                records.len() - ri,
                header_records.len() - hi,
                pay.frames.len() - yi,
                pass.frames.len() - pi
            ));
        }
        Ok(RxRun {
            results,
            timing,
            records,
            header_records,
            stats,
        })
    }

    /// Sends the first `beats` beats of `frame` without `tlast` (every output ready, whatever
    /// comes out is ignored), pulses `reset`, and checks that nothing comes out in the next
    /// cycles: the cut frame leaves no trace.
    pub fn abort_with_reset(&mut self, frame: &[u8], beats: usize) -> Result<(), String> {
        let input = self.p.input;
        let (mut pay, mut pass, mut record) = self.outputs(0).map_err(|e| e.to_string())?;
        pay.always_ready(&mut self.m);
        pass.always_ready(&mut self.m);
        record.always_ready(&mut self.m);
        for (j, chunk) in frame.chunks(input.bytes_per_beat).take(beats).enumerate() {
            let (data, keep) = pack_beat(chunk, input.bytes_per_beat);
            self.m.set_u64(input.valid, 1);
            self.m.set(input.data, &data);
            self.m.set(input.keep, &keep);
            self.m.set_u64(input.last, 0);
            let mut waited = 0;
            loop {
                self.m.eval();
                let taken = self.m.peek_u64(input.ready) != 0;
                self.m.step(1);
                self.cycle += 1;
                if taken {
                    break;
                }
                waited += 1;
                if waited > STALL_LIMIT {
                    return Err(format!("abort_with_reset: beat {j} not accepted in {STALL_LIMIT} cycles"));
                }
            }
        }
        self.m.set_u64(input.valid, 0);
        self.reset(2);
        for k in 0..QUIET_CYCLES {
            self.m.eval();
            for (name, busy) in [
                (PAYLOAD, pay.valid(&mut self.m)),
                (PASS_THROUGH, pass.valid(&mut self.m)),
                (RECORD, record.valid(&mut self.m)),
            ] {
                if busy {
                    return Err(format!(
                        "{name} valid high {k} cycles after a reset that cut a frame after {beats} beats"
                    ));
                }
            }
            self.m.step(1);
            self.cycle += 1;
        }
        Ok(())
    }
}

/// Bus width of `ferroce-sim rx --engine rtl`.
pub const CLI_WIDTH: usize = 512;

/// The Verilator model of `RxFront` as an [`RxEngine`]: each run starts from reset, with every
/// output always ready. Empty frames cannot travel on AXI-Stream: they get the model's result
/// (pass) and are counted with it.
pub struct RxFrontEngine {
    width: usize,
    counters: RxCounters,
}

impl RxFrontEngine {
    /// An engine at a bus width (the command line uses 512 bits).
    pub fn new(width: usize) -> RxFrontEngine {
        RxFrontEngine {
            width,
            counters: RxCounters::default(),
        }
    }
}

impl FrameEngine for RxFrontEngine {
    type Output = RxResult;
    fn run(&mut self, frames: &[Vec<u8>]) -> Result<Vec<RxResult>, String> {
        let mut dut = RxFrontRtl::new(self.width)?;
        let nonempty: Vec<Vec<u8>> = frames.iter().filter(|f| !f.is_empty()).cloned().collect();
        let run = if nonempty.is_empty() {
            Vec::new()
        } else {
            dut.run(&nonempty, 0, 0, 1)?.results
        };
        self.counters = dut.counters();
        let mut it = run.into_iter();
        let mut out = Vec::with_capacity(frames.len());
        for f in frames {
            if f.is_empty() {
                let r = crate::rx::rx_model(f);
                self.counters.count(r.verdict);
                out.push(r);
            } else {
                out.push(it.next().ok_or("the RTL run returned too few results")?);
            }
        }
        Ok(out)
    }
}

impl RxEngine for RxFrontEngine {
    fn counters(&mut self) -> RxCounters {
        self.counters.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rx::craft::crafted;
    use crate::rx::rx_model;

    /// The record ports' values as the RTL should give them for the model's result.
    fn values_of(r: &RxResult) -> Vec<u128> {
        let rec = r.record.as_ref().unwrap();
        let mac = |m: &[u8; 6]| m.iter().fold(0u128, |a, &b| (a << 8) | b as u128);
        let ip = |a: &IpAddr| match a {
            IpAddr::V4(a) => u32::from(*a) as u128,
            IpAddr::V6(a) => u128::from(*a),
        };
        let t = rec.bth.unwrap_or_default();
        let re = rec.reth.unwrap_or(reth::Repr {
            va: 0,
            r_key: 0,
            dma_len: 0,
        });
        let ae = rec.aeth.unwrap_or(aeth::Repr { syndrome: 0, msn: 0 });
        let b = |v: bool| v as u128;
        vec![
            b(r.verdict != RxVerdict::Accept),
            r.verdict.reason().map_or(0, |d| d.code().into()),
            b(rec.icrc_ok.is_some()),
            b(rec.icrc_ok == Some(true)),
            mac(&rec.eth_dst),
            mac(&rec.eth_src),
            b(rec.vlan.is_some()),
            rec.vlan.unwrap_or(0) as u128,
            b(rec.ip_version == 6),
            ip(&rec.ip_src),
            ip(&rec.ip_dst),
            rec.ip_dscp as u128,
            rec.ip_ecn as u128,
            rec.ip_ttl as u128,
            rec.udp_sport as u128,
            rec.udp_dport as u128,
            b(rec.bth.is_some()),
            t.opcode as u128,
            b(t.se),
            b(t.m),
            t.padcnt as u128,
            t.tver as u128,
            t.pkey as u128,
            b(t.fecn),
            b(t.becn),
            t.dqpn as u128,
            b(t.ackreq),
            t.psn as u128,
            b(rec.reth.is_some()),
            re.va as u128,
            re.r_key as u128,
            re.dma_len as u128,
            b(rec.immdt.is_some()),
            rec.immdt.map_or(0, |i| i.imm) as u128,
            b(rec.aeth.is_some()),
            ae.syndrome as u128,
            ae.msn as u128,
            rec.payload_len as u128,
            1, // r_final
        ]
    }

    #[test]
    fn records_rebuild_the_models_json() {
        let mut n = 0;
        for c in crafted() {
            let m = rx_model(&c.frame);
            if m.verdict == RxVerdict::Pass {
                continue;
            }
            let v = values_of(&m);
            assert_eq!(v.len(), record_ports().len());
            let r = RtlRecord::from_values(0, &v).to_result(m.payload.clone()).unwrap();
            assert_eq!(r.json(7), m.json(7), "{}", c.name);
            n += 1;
        }
        assert!(n > 200);
        let bad = RtlRecord {
            drop: true,
            reason: 0,
            ..RtlRecord::default()
        };
        assert!(bad.to_result(vec![]).is_err());
        let bad = RtlRecord {
            drop: false,
            reason: 3,
            ..RtlRecord::default()
        };
        assert!(bad.to_result(vec![]).is_err());
    }
}
