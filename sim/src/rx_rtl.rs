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

use crate::contracts::rx::{record, RecordField, NO_REASON};
use crate::models::FrameEngine;
use crate::rx::{crc32, DropReason, RxBth, RxCounters, RxEngine, RxRecord, RxResult, RxVerdict};
use crate::verilated::{Model, MODELS};
use crate::wire::{aeth, immdt, reth};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// The record ports (`r_<name>` of the RX record schema), in schema order.
pub fn record_ports() -> Vec<String> {
    record::front().map(|f| format!("{}{}", record::FRONT_PREFIX, f.name)).collect()
}

/// Looks a port up by name and (optionally) checks its width; gives its index.
type PortLookup<'a> = dyn FnMut(&str, Option<usize>) -> Result<usize, String> + 'a;

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

/// One header record as read from the `r_*` ports.
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
    fn from_values(cycle: u64, values: &[u128]) -> RtlRecord {
        let v = |f: RecordField| values[record::front_index(f)];
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

    /// The result this record and the payload bytes delivered for it make.
    pub fn to_result(&self, payload: Vec<u8>) -> Result<RxResult, String> {
        let verdict = self.verdict()?;
        let ip = |a: u128| {
            if self.ip_v6 {
                IpAddr::V6(Ipv6Addr::from(a))
            } else {
                IpAddr::V4(Ipv4Addr::from(a as u32))
            }
        };
        let record = RxRecord {
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
            payload_crc32: crc32(&payload),
        };
        Ok(RxResult {
            verdict,
            record: Some(record),
            payload,
        })
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
    let fields = |x: &RtlRecord| {
        let mut y = x.clone();
        (y.cycle, y.drop, y.reason, y.icrc_chk, y.icrc_ok, y.pay_len, y.fin) = (0, false, 0, false, false, 0, false);
        y
    };
    if fields(h) != fields(r) {
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

/// A frame that came out on the payload or pass-through stream.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutFrame {
    /// The bytes whose `tkeep` bit was set.
    pub bytes: Vec<u8>,
    /// `tuser` on the last beat (payload stream; always false on the pass-through stream).
    pub user_last: bool,
    /// Cycle of the last beat's handshake.
    pub last_cycle: u64,
}

/// When a frame went in and when its answer came out (absolute cycles of the runner).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct FrameTiming {
    /// Cycle at which the frame's last input beat was accepted.
    pub last_in_cycle: u64,
    /// Cycle at which its record was taken (`None` for a pass).
    pub record_cycle: Option<u64>,
    /// Frames longer than the 128-byte header capture: the cycle the beat completing the
    /// capture was accepted, and (RoCEv2 frames) the cycle its header record was taken.
    pub capture_cycle: Option<u64>,
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
    /// Beats and frames out on the payload stream, and cycles valid was high with ready low.
    pub pay_beats: u64,
    pub pay_frames: u64,
    pub pay_stall_cycles: u64,
    /// The same on the pass-through stream.
    pub pass_beats: u64,
    pub pass_frames: u64,
    pub pass_stall_cycles: u64,
    /// Records, and cycles `r_valid` was high with `r_ready` low.
    pub records: u64,
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
    s_valid: usize,
    s_data: usize,
    s_keep: usize,
    s_last: usize,
    s_ready: usize,
    pay: StreamPorts,
    pass: StreamPorts,
    r_valid: usize,
    r_ready: usize,
    rec: Vec<(usize, usize)>,
    cnt_frames_in: usize,
    cnt_accepted: usize,
    cnt_passed: usize,
    cnt_drop: Vec<usize>,
}

#[derive(Clone, Copy)]
struct StreamPorts {
    valid: usize,
    ready: usize,
    data: usize,
    keep: usize,
    last: usize,
    user: Option<usize>,
}

/// An output stream being collected: protocol checks and frame assembly.
struct Collector {
    name: &'static str,
    /// The beat seen last cycle while valid was high and ready low.
    held: Option<Vec<u32>>,
    cur: Vec<u8>,
    user_early: bool,
    frames: Vec<OutFrame>,
    beats: u64,
    stalls: u64,
}

impl Collector {
    fn new(name: &'static str) -> Collector {
        Collector {
            name,
            held: None,
            cur: Vec::new(),
            user_early: false,
            frames: Vec::new(),
            beats: 0,
            stalls: 0,
        }
    }

    /// One cycle: `beat` is the output's beat when valid is high. Returns an AXI-Stream or beat
    /// format violation.
    fn cycle(&mut self, cycle: u64, beat: Option<Vec<u32>>, ready: bool, bytes_per_beat: usize) -> Result<(), String> {
        if let Some(h) = self.held.take() {
            match &beat {
                None => return Err(format!("cycle {cycle}: {}_tvalid dropped while stalled (tready low)", self.name)),
                Some(b) if *b != h => return Err(format!("cycle {cycle}: {} beat changed while stalled (tready low)", self.name)),
                _ => {}
            }
        }
        let Some(b) = beat else { return Ok(()) };
        if !ready {
            self.stalls += 1;
            self.held = Some(b);
            return Ok(());
        }
        // Layout: data words, keep words, tlast, tuser.
        let dw = bytes_per_beat / 4;
        let kw = bytes_per_beat.div_ceil(32);
        let (d, rest) = b.split_at(dw);
        let (k, rest) = rest.split_at(kw);
        let (last, user) = (rest[0] & 1 != 0, rest[1] & 1 != 0);
        let keep_bit = |i: usize| (k[i / 32] >> (i % 32)) & 1 != 0;
        let n = (0..bytes_per_beat).take_while(|&i| keep_bit(i)).count();
        if n == 0 || (n..bytes_per_beat).any(keep_bit) || (!last && n != bytes_per_beat) {
            let keep: Vec<String> = k.iter().rev().map(|w| format!("{w:08x}")).collect();
            return Err(format!(
                "cycle {cycle}: {} beat {} of a frame has tkeep {} (tlast {}): not contiguous from lane 0, empty, or not full before the last beat",
                self.name,
                self.cur.len() / bytes_per_beat,
                keep.join("_"),
                u8::from(last)
            ));
        }
        for i in 0..n {
            self.cur.push((d[i / 4] >> (8 * (i % 4))) as u8);
        }
        self.beats += 1;
        if last {
            self.frames.push(OutFrame {
                bytes: std::mem::take(&mut self.cur),
                user_last: user,
                last_cycle: cycle,
            });
            if std::mem::take(&mut self.user_early) {
                return Err(format!(
                    "cycle {cycle}: {} frame {} has tuser set on a beat before its last",
                    self.name,
                    self.frames.len() - 1
                ));
            }
        } else if user {
            self.user_early = true;
        }
        Ok(())
    }
}

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
                "the RX front end RTL model {name} is not built into this binary (built: {}); rebuild ferroce-sim with rx_front in FERROCE_SIM_TOPS and {width} in FERROCE_SIM_WIDTHS (or unset them), or use --engine model",
                if MODELS.is_empty() { "none".to_string() } else { MODELS.join(", ") }
            )
        })?;
        let k = width / 8;
        let mut port = |n: &str, w: Option<usize>| -> Result<usize, String> {
            let i = m.port(n).map_err(|e| e.to_string())?;
            if let Some(w) = w {
                let have = m.ports()[i].width;
                if have != w {
                    return Err(format!("{name}: port {n} is {have} bits wide, expected {w}"));
                }
            }
            Ok(i)
        };
        let stream = |port: &mut PortLookup, pre: &str, user: bool| -> Result<StreamPorts, String> {
            Ok(StreamPorts {
                valid: port(&format!("{pre}_tvalid"), Some(1))?,
                ready: port(&format!("{pre}_tready"), Some(1))?,
                data: port(&format!("{pre}_tdata"), Some(width))?,
                keep: port(&format!("{pre}_tkeep"), Some(k))?,
                last: port(&format!("{pre}_tlast"), Some(1))?,
                user: if user {
                    Some(port(&format!("{pre}_tuser"), Some(1))?)
                } else {
                    None
                },
            })
        };
        let pay = stream(&mut port, "m_pay", true)?;
        let pass = stream(&mut port, "m_pass", false)?;
        let rec = record_ports()
            .iter()
            .map(|n| port(n, None))
            .collect::<Result<Vec<usize>, String>>()?;
        let cnt_drop = DropReason::ALL
            .iter()
            .map(|r| port(&r.counter_port(), None))
            .collect::<Result<Vec<usize>, String>>()?;
        let p = Ports {
            reset: port("reset", Some(1))?,
            s_valid: port("s_axis_tvalid", Some(1))?,
            s_data: port("s_axis_tdata", Some(width))?,
            s_keep: port("s_axis_tkeep", Some(k))?,
            s_last: port("s_axis_tlast", Some(1))?,
            s_ready: port("s_axis_tready", Some(1))?,
            pay,
            pass,
            r_valid: port("r_valid", Some(1))?,
            r_ready: port("r_ready", Some(1))?,
            rec: Vec::new(),
            cnt_frames_in: port("cnt_frames_in", None)?,
            cnt_accepted: port("cnt_accepted", None)?,
            cnt_passed: port("cnt_passed", None)?,
            cnt_drop,
        };
        let rec: Vec<(usize, usize)> = rec.into_iter().map(|i| (i, m.ports()[i].width)).collect();
        if let Some(&(i, w)) = rec.iter().find(|&&(_, w)| w > 128) {
            return Err(format!(
                "{name}: record port {} is {w} bits wide (at most 128 supported)",
                m.ports()[i].name
            ));
        }
        let mut dut = RxFrontRtl {
            m,
            width,
            p: Ports { rec, ..p },
            cycle: 0,
        };
        dut.reset(4);
        Ok(dut)
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
        self.m.set_u64(self.p.s_valid, 0);
        self.m.set_u64(self.p.s_last, 0);
        for r in [self.p.pay.ready, self.p.pass.ready, self.p.r_ready] {
            self.m.set_u64(r, 1);
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

    fn set_beat(&mut self, chunk: &[u8], last: bool) {
        let (d, k) = crate::axis::pack_beat(chunk, self.width / 8);
        self.m.set_u64(self.p.s_valid, 1);
        self.m.set(self.p.s_data, &d);
        self.m.set(self.p.s_keep, &k);
        self.m.set_u64(self.p.s_last, last as u64);
    }

    fn set_garbage(&mut self, rng: &mut ChaCha8Rng) {
        let b = self.width / 8;
        let d: Vec<u32> = (0..b / 4).map(|_| rng.gen()).collect();
        let k: Vec<u32> = (0..b.div_ceil(32)).map(|_| rng.gen()).collect();
        self.m.set_u64(self.p.s_valid, 0);
        self.m.set(self.p.s_data, &d);
        self.m.set(self.p.s_keep, &k);
        self.m.set_u64(self.p.s_last, rng.gen::<u64>() & 1);
    }

    /// Settles the logic after the inputs were set. Above 64 bits the payload data is read by
    /// the same evaluation (a `get`), so the common cycle costs one evaluation.
    fn settle(&mut self) -> Option<Vec<u32>> {
        if self.width > 64 {
            Some(self.m.get(self.p.pay.data))
        } else {
            self.m.eval();
            None
        }
    }

    /// Reads a port after [`RxFrontRtl::settle`] as 32-bit words (`words` of them).
    fn read_words(&mut self, port: usize, width: usize) -> Vec<u32> {
        if width <= 64 {
            let v = self.m.peek_u64(port);
            let mut w = vec![v as u32, (v >> 32) as u32];
            w.truncate(width.div_ceil(32));
            w
        } else {
            self.m.get(port)
        }
    }

    /// The beat of an output stream when its valid is high: data, keep, tlast, tuser words.
    fn read_beat(&mut self, s: StreamPorts, pre_data: Option<Vec<u32>>) -> Option<Vec<u32>> {
        if self.m.peek_u64(s.valid) == 0 {
            return None;
        }
        let k = self.width / 8;
        let mut w = match pre_data {
            Some(d) => d,
            None => self.read_words(s.data, self.width),
        };
        w.extend(self.read_words(s.keep, k));
        w.push(self.m.peek_u64(s.last) as u32 & 1);
        w.push(s.user.map_or(0, |u| self.m.peek_u64(u) as u32 & 1));
        Some(w)
    }

    fn read_record(&mut self) -> Option<Vec<u128>> {
        if self.m.peek_u64(self.p.r_valid) == 0 {
            return None;
        }
        let rec = self.p.rec.clone();
        Some(
            rec.iter()
                .map(|&(i, w)| {
                    if w <= 64 {
                        self.m.peek_u64(i) as u128
                    } else {
                        self.m.get(i).iter().enumerate().map(|(j, &x)| (x as u128) << (32 * j)).sum()
                    }
                })
                .collect(),
        )
    }

    /// Sends `frames` (none empty) with `idle_pct` percent chance of an idle cycle before each
    /// beat and `bp_pct` percent chance per cycle and per output of `tready` low; runs until the
    /// outputs are quiet, then rebuilds one result per frame (see the module docs).
    pub fn run(&mut self, frames: &[Vec<u8>], idle_pct: u32, bp_pct: u32, seed: u64) -> Result<RxRun, String> {
        if let Some(i) = frames.iter().position(|f| f.is_empty()) {
            return Err(format!("frame {i} is empty: AXI-Stream frames have at least one byte"));
        }
        let rng = &mut ChaCha8Rng::seed_from_u64(seed);
        let bpb = self.width / 8;
        let start = self.cycle;
        let mut stats = RxRunStats::default();
        let mut last_in = vec![0u64; frames.len()];
        let (mut fi, mut bi, mut presenting) = (0usize, 0usize, false);
        let mut pay = Collector::new("m_pay");
        let mut pass = Collector::new("m_pass");
        let mut held_rec: Option<Vec<u128>> = None;
        let mut records: Vec<RtlRecord> = Vec::new();
        let mut header_records: Vec<RtlRecord> = Vec::new();
        let mut capture_in = vec![None; frames.len()];
        let capture_beat = (128 / bpb).max(1) - 1;
        let (mut quiet, mut stall_run, mut drain) = (0u64, 0u64, 0u64);
        let mut first_beat = None;
        let mut readies = [true; 3];
        for (r, p) in readies.iter().zip([self.p.pay.ready, self.p.pass.ready, self.p.r_ready]) {
            self.m.set_u64(p, *r as u64);
        }
        loop {
            let done_in = fi >= frames.len();
            if done_in {
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
                if drain == 1 {
                    self.m.set_u64(self.p.s_valid, 0);
                }
            } else if !presenting {
                if idle_pct > 0 && rng.gen_range(0..100) < idle_pct {
                    self.set_garbage(rng);
                    stats.in_idle_cycles += 1;
                } else {
                    let f = &frames[fi];
                    let nb = f.len().div_ceil(bpb);
                    let chunk = f[bi * bpb..f.len().min((bi + 1) * bpb)].to_vec();
                    self.set_beat(&chunk, bi + 1 == nb);
                    presenting = true;
                }
            }
            if bp_pct > 0 {
                for (k, p) in [self.p.pay.ready, self.p.pass.ready, self.p.r_ready].into_iter().enumerate() {
                    let r = rng.gen_range(0..100) >= bp_pct;
                    if r != readies[k] {
                        readies[k] = r;
                        self.m.set_u64(p, r as u64);
                    }
                }
            }
            let pre = self.settle();
            let c = self.cycle;

            // Input handshake.
            if presenting {
                if self.m.peek_u64(self.p.s_ready) != 0 {
                    first_beat.get_or_insert(c);
                    stats.in_beats += 1;
                    stall_run = 0;
                    presenting = false;
                    if bi == capture_beat && frames[fi].len() > 128 {
                        capture_in[fi] = Some(c);
                    }
                    bi += 1;
                    if bi == frames[fi].len().div_ceil(bpb) {
                        last_in[fi] = c;
                        stats.input_cycles = c + 1 - start;
                        fi += 1;
                        bi = 0;
                    }
                } else {
                    stats.in_stall_cycles += 1;
                    if fi > 0 {
                        stats.in_stalls_after_first_frame += 1;
                        stats.first_stall_after_first_frame.get_or_insert(c);
                    }
                    stall_run += 1;
                    if stall_run > STALL_LIMIT {
                        return Err(format!(
                            "hang: s_axis_tready low for {STALL_LIMIT} cycles on frame {fi} beat {bi} ({} records, {} payload frames, {} pass-through frames out)",
                            records.len(),
                            pay.frames.len(),
                            pass.frames.len()
                        ));
                    }
                }
            }

            // Outputs.
            let pay_beat = self.read_beat(self.p.pay, pre);
            let pass_beat = self.read_beat(self.p.pass, None);
            let rec = self.read_record();
            let any = pay_beat.is_some() || pass_beat.is_some() || rec.is_some();
            pay.cycle(c, pay_beat, readies[0], bpb)?;
            pass.cycle(c, pass_beat, readies[1], bpb)?;
            if let Some(h) = held_rec.take() {
                match &rec {
                    None => return Err(format!("cycle {c}: r_valid dropped while stalled (r_ready low)")),
                    Some(r) if *r != h => {
                        let diff: Vec<String> = record_ports()
                            .into_iter()
                            .zip(r.iter().zip(&h))
                            .filter(|(_, (a, b))| a != b)
                            .map(|(n, _)| n)
                            .collect();
                        return Err(format!(
                            "cycle {c}: record changed while stalled (r_ready low): {}",
                            diff.join(", ")
                        ));
                    }
                    _ => {}
                }
            }
            if let Some(r) = rec {
                if readies[2] {
                    let rec = RtlRecord::from_values(c, &r);
                    if rec.fin {
                        records.push(rec);
                    } else {
                        header_records.push(rec);
                    }
                } else {
                    stats.rec_stall_cycles += 1;
                    held_rec = Some(r);
                }
            }
            quiet = if any { 0 } else { quiet + 1 };
            self.m.step(1);
            self.cycle += 1;
        }
        self.m.set_u64(self.p.s_valid, 0);
        stats.start_cycle = start;
        stats.cycles = self.cycle - start;
        stats.first_beat_cycle = first_beat.map_or(0, |c| c - start);
        stats.pay_beats = pay.beats;
        stats.pay_frames = pay.frames.len() as u64;
        stats.pay_stall_cycles = pay.stalls;
        stats.pass_beats = pass.beats;
        stats.pass_frames = pass.frames.len() as u64;
        stats.pass_stall_cycles = pass.stalls;
        stats.records = records.len() as u64;
        for c in [&pay, &pass] {
            if !c.cur.is_empty() {
                return Err(format!(
                    "{}: a frame of {} bytes has no tlast beat at the end of the run",
                    c.name,
                    c.cur.len()
                ));
            }
        }

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
                if p.user_last != r.drop {
                    return Err(format!(
                        "frame {i} ({} bytes): payload frame {} ends with tuser {} but the record says r_drop {}",
                        f.len(),
                        yi - 1,
                        u8::from(p.user_last),
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
        let bpb = self.width / 8;
        for r in [self.p.pay.ready, self.p.pass.ready, self.p.r_ready] {
            self.m.set_u64(r, 1);
        }
        for (j, chunk) in frame.chunks(bpb).take(beats).enumerate() {
            self.set_beat(chunk, false);
            let mut waited = 0;
            loop {
                self.m.eval();
                let ok = self.m.peek_u64(self.p.s_ready) != 0;
                self.m.step(1);
                self.cycle += 1;
                if ok {
                    break;
                }
                waited += 1;
                if waited > STALL_LIMIT {
                    return Err(format!("abort_with_reset: beat {j} not accepted in {STALL_LIMIT} cycles"));
                }
            }
        }
        self.m.set_u64(self.p.s_valid, 0);
        self.reset(2);
        for k in 0..QUIET_CYCLES {
            self.m.eval();
            for (n, v) in [
                ("m_pay_tvalid", self.p.pay.valid),
                ("m_pass_tvalid", self.p.pass.valid),
                ("r_valid", self.p.r_valid),
            ] {
                if self.m.peek_u64(v) != 0 {
                    return Err(format!("{n} high {k} cycles after a reset that cut a frame after {beats} beats"));
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

    fn beat(bytes: &[u8], bpb: usize, last: bool, user: bool) -> Vec<u32> {
        let mut w = vec![0u32; bpb / 4 + bpb.div_ceil(32)];
        for (i, &b) in bytes.iter().enumerate() {
            w[i / 4] |= (b as u32) << (8 * (i % 4));
            w[bpb / 4 + i / 32] |= 1 << (i % 32);
        }
        w.push(last as u32);
        w.push(user as u32);
        w
    }

    #[test]
    fn collector_assembles_frames_and_checks_the_rules() {
        let mut c = Collector::new("m_pay");
        c.cycle(0, Some(beat(&[1; 8], 8, false, false)), true, 8).unwrap();
        c.cycle(1, None, true, 8).unwrap();
        // Stalled, then taken unchanged.
        c.cycle(2, Some(beat(&[2, 3], 8, true, true)), false, 8).unwrap();
        c.cycle(3, Some(beat(&[2, 3], 8, true, true)), true, 8).unwrap();
        assert_eq!(
            c.frames,
            [OutFrame {
                bytes: vec![1, 1, 1, 1, 1, 1, 1, 1, 2, 3],
                user_last: true,
                last_cycle: 3
            }]
        );
        assert_eq!((c.beats, c.stalls), (2, 1));
        // Valid dropped while stalled.
        c.cycle(4, Some(beat(&[5], 8, true, false)), false, 8).unwrap();
        assert!(c.cycle(5, None, true, 8).unwrap_err().contains("dropped"));
        // Payload changed while stalled.
        let mut c = Collector::new("m_pass");
        c.cycle(0, Some(beat(&[5], 8, true, false)), false, 8).unwrap();
        assert!(c
            .cycle(1, Some(beat(&[6], 8, true, false)), true, 8)
            .unwrap_err()
            .contains("changed"));
        // A short beat before the last, a hole in tkeep, tuser before the last beat.
        let mut c = Collector::new("m_pay");
        assert!(c
            .cycle(0, Some(beat(&[1; 7], 8, false, false)), true, 8)
            .unwrap_err()
            .contains("tkeep"));
        let mut c = Collector::new("m_pay");
        let mut b = beat(&[1; 3], 8, true, false);
        b[2] = 0b1011;
        assert!(c.cycle(0, Some(b), true, 8).unwrap_err().contains("tkeep"));
        let mut c = Collector::new("m_pay");
        c.cycle(0, Some(beat(&[1; 8], 8, false, true)), true, 8).unwrap();
        assert!(c
            .cycle(1, Some(beat(&[1; 8], 8, true, true)), true, 8)
            .unwrap_err()
            .contains("tuser"));
    }

    /// The record ports' values as the RTL should give them for the model's result.
    fn values_of(r: &RxResult) -> Vec<u128> {
        let rec = r.record.as_ref().unwrap();
        let mac = |m: &[u8; 6]| m.iter().fold(0u128, |a, &b| (a << 8) | b as u128);
        let ip = |a: &IpAddr| match a {
            IpAddr::V4(a) => u32::from(*a) as u128,
            IpAddr::V6(a) => u128::from(*a),
        };
        let t = rec.bth.unwrap_or(RxBth {
            opcode: 0,
            se: false,
            m: false,
            padcnt: 0,
            tver: 0,
            pkey: 0,
            fecn: false,
            becn: false,
            dqpn: 0,
            ackreq: false,
            psn: 0,
        });
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
