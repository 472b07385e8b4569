//! Runner of the RX path's Verilator model (`ferroce_rx_path_q256_w<W>`, top `rx_path`: RxFront,
//! Responder and PayloadWriter joined; 256 QPs, 64 memory regions, 16 receive buffers per QP;
//! simulated at 64 and 512 bits), and [`RxLockstep`], which drives it and the golden models (the
//! RX front end model, then the responder model: `Responder::receive_rx`) with the same setup
//! and frames and compares every decision, pass-through frame, memory write and counter. Its
//! co-simulation is `sim/tests/rx_path_cosim.rs`.
//!
//! [`RxPathRtl`] plays the path's surroundings cycle by cycle, with the one stream driver
//! ([`crate::axis`]) and the responder's [`SetupHarness`]:
//!
//! ```text
//!  MAC frames ─────────────────► s_axis ─┐           ┌─► m_pass: not RoCEv2 (FrameSink)
//!  (FrameSource: random idle,            │           ├─► m_dec: decisions (Channel)
//!  garbage while tvalid is low)          │  rx_path  ├─► m_cmd: write commands (Channel)
//!  qp_read_entry ◄── QL cycles ──────────┤           ├─► m_wr: write data (FrameSink)
//!  qp_commit, region_write, recv_* ─────►│           │   (random backpressure on all four,
//!  (between batches: SetupHarness)       │           │   AXI rules, beat format on m_pass, m_wr)
//!  counter_index ───────────────────────►└───────────┴─► counter_value, cnt_*
//! ```
//!
//! - **Setup** (commits, region writes, receive posts, counter reads) happens between batches,
//!   with nothing in flight, as [`SetupHarness`] does it for the responder alone: the context
//!   table is served on the read port [`QP_READ_LATENCY`] cycles after each request, garbage in
//!   every other cycle, and every output must stay quiet.
//! - **Frames** ([`RxPathRtl::deliver`]): a batch goes in with the traffic's idle; the four
//!   outputs are taken independently with its backpressure (the writer may send a command before
//!   or after its data, before or after `m_dec` shows its decision). The run ends when every
//!   frame was taken, every frame has come out as a decision or a pass-through frame, every
//!   decision that writes has its command and its data, and `cnt_written` and `cnt_discarded`
//!   have counted each decision's payload (a discard shows nowhere else); then every output must
//!   stay quiet for [`DRAIN_CYCLES`]. The end is read from the RTL's own outputs: the lockstep,
//!   not the runner, compares them with the model.
//! - **Progress**: no handshake on any interface and no count for [`PROGRESS_LIMIT`] cycles is
//!   an error that says where each interface stands, not a hang.
//!
//! [`QP_READ_LATENCY`]: crate::contracts::regs::QP_READ_LATENCY

use crate::axis::{first_difference, AxisPorts, Channel, FrameSink, FrameSource};
use crate::models::responder::{Decision, MemoryWrite, Outcome, Responder};
use crate::models::tx::SparseMemory;
use crate::payload_writer_rtl::WriteCommand;
use crate::responder_rtl::{compare_decisions, PairedSetup, RecordIn, SetupHarness, REGIONS};
use crate::rx::{rx_model, DropReason, RxCounters, RxResult};
use crate::verilated::{Model, SimError, Traffic, MODELS};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

pub use crate::responder_rtl::{QPS, RECEIVE_QUEUE_DEPTH};

/// Bus widths the model is built at.
pub const WIDTHS: [usize; 2] = [64, 512];
/// Cycles without a handshake on any interface or a count after which a batch is an error.
pub const PROGRESS_LIMIT: u64 = 5_000;
/// Cycles every output must stay quiet after a batch's last expected output.
pub const DRAIN_CYCLES: u64 = 64;

/// An emitted RX path: its variant and the sizes it was elaborated with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RxVariant {
    /// Variant suffix (`q256_w512`).
    pub name: &'static str,
    /// Bus width in bits.
    pub width: usize,
    /// QPs.
    pub qps: u32,
    /// Receive buffers a QP's queue holds.
    pub receive_depth: usize,
}

/// 256 QPs (16 receive buffers each) at 64 bits.
pub const Q256_W64: RxVariant = RxVariant {
    name: "q256_w64",
    width: 64,
    qps: QPS,
    receive_depth: RECEIVE_QUEUE_DEPTH,
};
/// 256 QPs (16 receive buffers each) at 512 bits.
pub const Q256_W512: RxVariant = RxVariant {
    name: "q256_w512",
    width: 512,
    ..Q256_W64
};
/// 2048 QPs (4 receive buffers each) at 512 bits; built when `FERROCE_SIM_ALL=1`.
pub const Q2048_W512: RxVariant = RxVariant {
    name: "q2048_w512",
    width: 512,
    qps: 2048,
    receive_depth: 1 << ferroce_hdl::tops::RESPONDER_RECEIVE_QUEUE_LOG2[1].1,
};

impl RxVariant {
    /// The 256-QP variant at `width` bits ([`WIDTHS`]).
    pub fn of_width(width: usize) -> Result<RxVariant, String> {
        [Q256_W64, Q256_W512]
            .into_iter()
            .find(|v| v.width == width)
            .ok_or_else(|| format!("no RX path model at {width} bits (built at {WIDTHS:?})"))
    }

    /// The Verilator model's name.
    pub fn model_name(&self) -> String {
        format!("ferroce_rx_path_{}", self.name)
    }
}

/// What a batch of frames produced, and its cycle figures (cycles counted from the batch's
/// first).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RxPathRun {
    /// The decisions on `m_dec`, packed as `DECISION`, in order.
    pub decisions: Vec<Vec<u32>>,
    /// The frames on `m_pass`, in order.
    pub passed: Vec<Vec<u8>>,
    /// The commands on `m_cmd`, in order.
    pub commands: Vec<WriteCommand>,
    /// The writes' data on `m_wr` (the bytes whose `tkeep` bit was set), one per `tlast`.
    pub data: Vec<Vec<u8>>,
    /// Payloads written in the batch: what `cnt_written` gained by the end of the drain.
    pub written: u32,
    /// Payloads discarded in the batch: what `cnt_discarded` gained.
    pub discarded: u32,
    /// Cycles from the batch's first cycle to its last handshake or count, plus one.
    pub cycles: u64,
    /// Beats taken on `s_axis`.
    pub beats_in: u64,
    /// Cycles `s_axis_tready` was low while a beat was offered.
    pub input_stall_cycles: u64,
    /// Cycle of each frame's last beat on `s_axis`.
    pub frame_cycles: Vec<u64>,
    /// Cycle of each decision's handshake on `m_dec`.
    pub decision_cycles: Vec<u64>,
    /// Beats taken on `m_wr`.
    pub beats_out: u64,
}

/// The counters of the RX path.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RxPathCounters {
    /// The responder's, in `ResponderCounter::ALL` order (read by index).
    pub responder: Vec<u32>,
    /// The front end's `cnt_*` ports.
    pub front: RxCounters,
    /// `cnt_written`.
    pub written: u32,
    /// `cnt_discarded`.
    pub discarded: u32,
}

struct Ports {
    input: AxisPorts,
    dec_valid: usize,
    cmd_valid: usize,
    wr_valid: usize,
    pass_valid: usize,
    cnt_frames_in: usize,
    cnt_accepted: usize,
    cnt_passed: usize,
    cnt_drop: Vec<usize>,
    cnt_written: usize,
    cnt_discarded: usize,
}

/// The RX path's Verilator model at one bus width, its context table and its cycle count.
pub struct RxPathRtl {
    h: SetupHarness,
    p: Ports,
    width: usize,
    traffic: Traffic,
    rng: ChaCha8Rng,
}

impl RxPathRtl {
    /// [`RxPathRtl::of`] the 256-QP variant at `width` bits.
    pub fn new(width: usize, traffic: Traffic) -> Result<RxPathRtl, String> {
        RxPathRtl::of(RxVariant::of_width(width)?, traffic)
    }

    /// Instantiates the model of `variant`, checks its ports, resets it and waits for
    /// `init_done`; every context all zero (in reset). Frame idle and output backpressure follow
    /// `traffic`.
    pub fn of(variant: RxVariant, traffic: Traffic) -> Result<RxPathRtl, String> {
        let (name, width) = (variant.model_name(), variant.width);
        let mut m = Model::new(&name).map_err(|_| {
            format!(
                "the RX path RTL model {name} is not built into this binary (built: {}); rebuild ferroce-sim with rx_path in \
                 FERROCE_SIM_TOPS (or unset it), and FERROCE_SIM_ALL=1 for a variant that is not co-simulated by default",
                if MODELS.is_empty() { "none".to_string() } else { MODELS.join(", ") }
            )
        })?;
        let e = |e: SimError| e.to_string();
        // no READ requests are sent here: the READ tracker's `done` (a clear's) is taken at once
        let done_ready = m.port("read_done_ready").map_err(e)?;
        m.set_u64(done_ready, 1);
        let input = AxisPorts::find(&m, "s_axis").map_err(e)?;
        for prefix in ["s_axis", "m_pass", "m_wr"] {
            let bytes = AxisPorts::find(&m, prefix).map_err(e)?.bytes_per_beat;
            if bytes * 8 != width {
                return Err(format!("{name}: {prefix}_tdata is {} bits wide, expected {width}", bytes * 8));
            }
        }
        for (port, width) in [
            ("m_cmd_address", 64),
            ("m_cmd_length", 16),
            ("cnt_written", 32),
            ("cnt_discarded", 32),
        ] {
            let w = m.ports()[m.port(port).map_err(e)?].width;
            if w != width {
                return Err(format!("{name}: port {port} is {w} bits wide, expected {width}"));
            }
        }
        let port = |n: &str| m.port(n).map_err(e);
        let p = Ports {
            input,
            dec_valid: port("m_dec_valid")?,
            cmd_valid: port("m_cmd_valid")?,
            wr_valid: port("m_wr_tvalid")?,
            pass_valid: port("m_pass_tvalid")?,
            cnt_frames_in: port("cnt_frames_in")?,
            cnt_accepted: port("cnt_accepted")?,
            cnt_passed: port("cnt_passed")?,
            cnt_drop: DropReason::ALL.iter().map(|r| port(&r.counter_port())).collect::<Result<_, _>>()?,
            cnt_written: port("cnt_written")?,
            cnt_discarded: port("cnt_discarded")?,
        };
        let h = SetupHarness::new(
            m,
            variant.qps,
            REGIONS,
            ("m_dec_valid", "m_dec_entry"),
            &["m_cmd_valid", "m_wr_tvalid", "m_pass_tvalid"],
            &[
                ("s_axis_tvalid", 0),
                ("m_dec_ready", 1),
                ("m_cmd_ready", 1),
                ("m_wr_tready", 1),
                ("m_pass_tready", 1),
            ],
        )?
        .with_receive_depth(variant.receive_depth);
        let mut rtl = RxPathRtl {
            h,
            p,
            width,
            traffic,
            rng: ChaCha8Rng::seed_from_u64(traffic.seed),
        };
        rtl.reset()?;
        Ok(rtl)
    }

    /// Bus width in bits.
    pub fn width(&self) -> usize {
        self.width
    }

    /// Cycles run since the model was made.
    pub fn cycle(&self) -> u64 {
        self.h.cycle()
    }

    /// The underlying Verilator model (to trace it, for example).
    pub fn model(&mut self) -> &mut Model {
        self.h.model()
    }

    /// The model's setup side: commits, region writes, receive posts and the responder's
    /// counters by index go through it ([`SetupHarness::commit`], ...).
    pub fn setup(&mut self) -> &mut SetupHarness {
        &mut self.h
    }

    /// Resets the model (every frame, record, payload and decision in flight, the per-QP state,
    /// the region table, the counters) and waits for `init_done`. The context table is kept.
    pub fn reset(&mut self) -> Result<(), String> {
        self.h.reset()
    }

    /// `cycles` idle cycles: no frame offered, every output ready and required to stay quiet.
    pub fn idle(&mut self, cycles: u64) -> Result<(), String> {
        self.h.idle_inputs();
        self.h.idle(cycles)
    }

    /// Every counter: the responder's by index, the front end's and the writer's ports.
    pub fn counters(&mut self) -> Result<RxPathCounters, String> {
        let responder = self.h.counters()?;
        let m = self.h.model();
        m.eval();
        let mut front = RxCounters {
            frames_in: m.peek_u64(self.p.cnt_frames_in),
            accepted: m.peek_u64(self.p.cnt_accepted),
            passed: m.peek_u64(self.p.cnt_passed),
            ..RxCounters::default()
        };
        for (i, &p) in self.p.cnt_drop.iter().enumerate() {
            front.dropped[i] = m.peek_u64(p);
        }
        let (written, discarded) = self.writer_counts();
        Ok(RxPathCounters {
            responder,
            front,
            written,
            discarded,
        })
    }

    /// `cnt_written` and `cnt_discarded` as the last evaluation shows them.
    fn writer_counts(&mut self) -> (u32, u32) {
        let m = self.h.model();
        (m.peek_u64(self.p.cnt_written) as u32, m.peek_u64(self.p.cnt_discarded) as u32)
    }

    /// Sends `frames` (none empty) with the traffic's idle and takes every output with its
    /// backpressure until the batch's end (see the module docs), then checks that the outputs
    /// stay quiet for [`DRAIN_CYCLES`].
    pub fn deliver(&mut self, frames: &[Vec<u8>]) -> Result<RxPathRun, String> {
        let e = |e: SimError| e.to_string();
        let (idle_pct, bp_pct) = (self.traffic.idle_pct, self.traffic.bp_pct);
        let m = self.h.model();
        let mut source = FrameSource::new(self.p.input, frames, idle_pct).map_err(e)?;
        let mut pass = FrameSink::new(m, "m_pass", &[], bp_pct).map_err(e)?;
        let mut data = FrameSink::new(m, "m_wr", &[], bp_pct).map_err(e)?;
        let mut commands = Channel::new(
            m,
            "m_cmd",
            "m_cmd_valid",
            Some("m_cmd_ready"),
            &["m_cmd_address", "m_cmd_length"],
            bp_pct,
        )
        .map_err(e)?;
        let mut decisions = Channel::new(m, "m_dec", "m_dec_valid", Some("m_dec_ready"), &["m_dec_entry"], bp_pct).map_err(e)?;
        self.h.idle_inputs();
        self.h.model().eval();
        let before = self.writer_counts();
        let gained = |now: (u32, u32)| (now.0.wrapping_sub(before.0), now.1.wrapping_sub(before.1));
        let start = self.h.cycle();
        let mut command_cycles = Vec::new();
        let mut run = RxPathRun::default();
        // what the decisions so far ask of the writer: payloads written and discarded
        let mut owed = (0u32, 0u32);
        let mut counted = (0u32, 0u32);
        let (mut last_progress, mut last_event) = (start, None);
        loop {
            let outputs = run.decisions.len() + pass.frames.len();
            let writes = owed.0 as usize;
            let done = source.done()
                && outputs == frames.len()
                && run.commands.len() == writes
                && data.frames.len() == writes
                && data.pending_bytes() == 0
                && counted == owed;
            if done {
                break;
            }
            let at = self.h.cycle() - start;
            if self.h.cycle() - last_progress > PROGRESS_LIMIT {
                let m = self.h.model();
                m.eval();
                let [ready, dec, pass_valid, cmd, wr] = [
                    self.p.input.ready,
                    self.p.dec_valid,
                    self.p.pass_valid,
                    self.p.cmd_valid,
                    self.p.wr_valid,
                ]
                .map(|p| m.peek_u64(p));
                return Err(format!(
                    "{}: no handshake and no count for {PROGRESS_LIMIT} cycles (cycle {at} of the batch): frame {} of {} at beat {} \
                     (s_axis_tready {ready}); {} decisions (m_dec_valid {dec}) and {} pass-through frames (m_pass_tvalid \
                     {pass_valid}, {} bytes of the next) out for {} frames; {} commands (m_cmd_valid {cmd}) and {} data frames \
                     (m_wr_tvalid {wr}, {} bytes of the next) for {} writes; written {} and discarded {} of {} and {}",
                    m.name(),
                    source.frame(),
                    frames.len(),
                    source.beat(),
                    run.decisions.len(),
                    pass.frames.len(),
                    pass.pending_bytes(),
                    frames.len(),
                    run.commands.len(),
                    data.frames.len(),
                    data.pending_bytes(),
                    owed.0,
                    counted.0,
                    counted.1,
                    owed.0,
                    owed.1
                ));
            }
            let m = self.h.model();
            source.drive(m, &mut self.rng);
            pass.drive(m, &mut self.rng);
            data.drive(m, &mut self.rng);
            commands.drive(m, &mut self.rng);
            decisions.drive(m, &mut self.rng);
            self.h.settle();
            let now = gained(self.writer_counts());
            let m = self.h.model();
            let mut progress = now != counted;
            counted = now;
            if let Some(taken) = source.sample(m, at) {
                progress = true;
                if taken.last {
                    run.frame_cycles.push(at);
                }
            }
            progress |= pass.sample(m, at).map_err(e)?;
            progress |= data.sample(m, at).map_err(e)?;
            if let Some(ports) = commands.sample(m, at).map_err(e)? {
                command_cycles.push(at);
                run.commands.push(WriteCommand {
                    address: u64::from(ports[0][0]) | u64::from(ports[0][1]) << 32,
                    length: ports[1][0] as u16,
                });
                progress = true;
            }
            if let Some(mut ports) = decisions.sample(m, at).map_err(e)? {
                let entry = ports.swap_remove(0);
                let decision = Decision::from_words(&entry);
                if decision.write_length > 0 {
                    if decision.write {
                        owed.0 += 1;
                    } else {
                        owed.1 += 1;
                    }
                }
                run.decisions.push(entry);
                run.decision_cycles.push(at);
                progress = true;
            }
            if run.decisions.len() + pass.frames.len() > frames.len() {
                return Err(format!(
                    "{}, cycle {at} of the batch: {} decisions and {} pass-through frames out for {} frames ({} taken)",
                    m.name(),
                    run.decisions.len(),
                    pass.frames.len(),
                    frames.len(),
                    source.frame()
                ));
            }
            if progress {
                last_progress = self.h.cycle();
                last_event = Some(at);
            }
            self.h.tick();
        }
        run.cycles = last_event.map_or(0, |c| c + 1);
        // the ordering rule: a decision leaves m_dec only after memory took its payload's
        // command and last beat, so its ACK or receive completion never comes first
        let mut writes = data.frames.iter().map(|f| f.last_cycle).zip(&command_cycles);
        for (k, (entry, &at)) in run.decisions.iter().zip(&run.decision_cycles).enumerate() {
            let decision = Decision::from_words(entry);
            if !decision.write || decision.write_length == 0 {
                continue;
            }
            match writes.next() {
                Some((data_at, &command_at)) if data_at < at && command_at < at => {}
                Some((data_at, command_at)) => {
                    return Err(format!(
                        "{}: decision {k} left m_dec in cycle {at} of the batch, its write's command was taken in \
                         cycle {command_at} and its last beat in cycle {data_at}",
                        self.h.model().name()
                    ))
                }
                None => return Err(format!("{}: decision {k} writes, but no write followed", self.h.model().name())),
            }
        }
        run.passed = pass.frames.into_iter().map(|f| f.bytes).collect();
        run.data = data.frames.iter().map(|f| f.bytes.clone()).collect();
        run.beats_in = source.beats;
        run.input_stall_cycles = source.stall_cycles;
        run.beats_out = data.counts().0;
        self.h.idle_inputs();
        for _ in 0..DRAIN_CYCLES {
            self.h.settle();
            self.h.check_quiet("the drain after the batch's last expected output")?;
            self.h.tick();
        }
        (run.written, run.discarded) = gained(self.writer_counts());
        Ok(run)
    }
}

/// What the golden models expect of one batch of frames.
struct Expected {
    /// Per frame, the front end model's result.
    results: Vec<RxResult>,
    /// Per frame, the responder model's outcome (`None`: passed through).
    outcomes: Vec<Option<Outcome>>,
    /// The decisions, in frame order, and the frame each belongs to.
    decisions: Vec<(Decision, usize)>,
    /// The frames passed through, by index.
    passed: Vec<usize>,
}

/// The golden models and the RTL driven with the same setup and frames: per batch, every
/// decision word for word, every pass-through frame byte for byte, every memory write (command
/// and data) against the model's; [`RxLockstep::check_counters`] compares every counter. The
/// setup calls go to both through [`PairedSetup`].
pub struct RxLockstep {
    /// The responder model (`Responder::new(QPS, REGIONS)`); the front end model is
    /// [`rx_model`].
    pub model: Responder,
    /// The RTL.
    pub rtl: RxPathRtl,
    /// The memory as the RTL's writes left it (each command's data applied at its address).
    pub memory: SparseMemory,
    /// The front end model's counters over every frame delivered.
    pub front: RxCounters,
    /// Payloads the model's decisions wrote so far (`cnt_written` must equal it).
    pub written: u32,
    /// Payloads the model's decisions discarded so far (`cnt_discarded`).
    pub discarded: u32,
    /// Decisions so far (the index of the next).
    pub decided: usize,
    /// The RTL's last batch.
    pub last: RxPathRun,
}

impl PairedSetup for RxLockstep {
    fn sides(&mut self) -> (&mut SetupHarness, &mut Responder) {
        (&mut self.rtl.h, &mut self.model)
    }
}

impl RxLockstep {
    /// A fresh model and RTL at `width` bits; `traffic` for the frame batches.
    pub fn new(width: usize, traffic: Traffic) -> Result<RxLockstep, String> {
        Ok(RxLockstep {
            model: Responder::new(QPS, REGIONS).map_err(|e| e.to_string())?,
            rtl: RxPathRtl::new(width, traffic)?,
            memory: SparseMemory::new(),
            front: RxCounters::default(),
            written: 0,
            discarded: 0,
            decided: 0,
            last: RxPathRun::default(),
        })
    }

    /// The models' view of `frames`, advancing the responder model and the expected counts.
    fn expect(&mut self, frames: &[Vec<u8>]) -> Expected {
        let results: Vec<RxResult> = frames.iter().map(|f| rx_model(f)).collect();
        let mut expected = Expected {
            outcomes: Vec::with_capacity(frames.len()),
            decisions: Vec::new(),
            passed: Vec::new(),
            results: Vec::new(),
        };
        for (i, rx) in results.iter().enumerate() {
            self.front.count(rx.verdict);
            let outcome = self.model.receive_rx(rx);
            match (&outcome, &rx.record) {
                (Some(outcome), Some(record)) => {
                    let dqpn = record.bth.map_or(0, |b| b.dqpn);
                    let decision = Decision::of(outcome, dqpn, record.payload_len as u16);
                    if decision.write_length > 0 {
                        if decision.write {
                            self.written += 1;
                        } else {
                            self.discarded += 1;
                        }
                    }
                    expected.decisions.push((decision, i));
                }
                _ => expected.passed.push(i),
            }
            expected.outcomes.push(outcome);
        }
        expected.results = results;
        expected
    }

    /// Delivers `frames` to both and compares, in this order: the decisions (the first that
    /// differs, with its frame and the fields), the pass-through frames, the memory writes
    /// (commands, then data). The RTL's writes are applied to [`RxLockstep::memory`]. Returns
    /// the responder model's outcome per frame (`None`: passed through).
    pub fn deliver(&mut self, frames: &[Vec<u8>]) -> Result<Vec<Option<Outcome>>, String> {
        let expected = self.expect(frames);
        let run = self.rtl.deliver(frames)?;
        let want: Vec<Decision> = expected.decisions.iter().map(|(d, _)| *d).collect();
        compare_decisions(&run.decisions, &want, self.decided, |i| {
            let frame = expected.decisions[i].1;
            let rx = &expected.results[frame];
            let record = rx.record.expect("a decided frame has a record");
            format!(
                "frame {frame} of the batch, {} bytes, front end {}: {}",
                frames[frame].len(),
                match rx.verdict.reason() {
                    Some(r) => format!("drop {}", r.name()),
                    None => rx.verdict.name().to_string(),
                },
                RecordIn::fin(record).summary()
            )
        })?;
        for (k, (&i, got)) in expected.passed.iter().zip(&run.passed).enumerate() {
            if *got != frames[i] {
                return Err(format!(
                    "pass-through frame {k} (frame {i} of the batch, {} bytes): the RTL's has {} bytes{}",
                    frames[i].len(),
                    got.len(),
                    first_difference(got, &frames[i])
                ));
            }
        }
        if run.passed.len() != expected.passed.len() {
            return Err(format!(
                "{} pass-through frames, the model passed {}",
                run.passed.len(),
                expected.passed.len()
            ));
        }
        let writes: Vec<(usize, &MemoryWrite)> = expected
            .outcomes
            .iter()
            .enumerate()
            .filter_map(|(i, o)| Some((i, o.as_ref()?.write.as_ref()?)))
            .collect();
        for (k, ((i, write), command)) in writes.iter().zip(&run.commands).enumerate() {
            if (command.address, usize::from(command.length)) != (write.address, write.bytes.len()) {
                return Err(format!(
                    "write command {k} (frame {i} of the batch): rtl {} bytes at {:#x}, model {} bytes at {:#x}",
                    command.length,
                    command.address,
                    write.bytes.len(),
                    write.address
                ));
            }
        }
        if run.commands.len() != writes.len() {
            return Err(format!(
                "{} write commands, the model wrote {} payloads",
                run.commands.len(),
                writes.len()
            ));
        }
        for (k, ((i, write), data)) in writes.iter().zip(&run.data).enumerate() {
            if *data != write.bytes {
                return Err(format!(
                    "write data {k} (frame {i} of the batch, {} bytes at {:#x}): the RTL's has {} bytes{}",
                    write.bytes.len(),
                    write.address,
                    data.len(),
                    first_difference(data, &write.bytes)
                ));
            }
        }
        if run.data.len() != writes.len() {
            return Err(format!(
                "{} write data frames, the model wrote {} payloads",
                run.data.len(),
                writes.len()
            ));
        }
        for (command, data) in run.commands.iter().zip(&run.data) {
            self.memory.write(command.address, data);
        }
        self.decided += want.len();
        self.last = run;
        Ok(expected.outcomes)
    }

    /// Compares every counter with the models': the responder's (modulo 2^32), the front
    /// end's, and the writer's payloads written and discarded.
    pub fn check_counters(&mut self) -> Result<(), String> {
        self.rtl.h.check_counters(&self.model)?;
        let rtl = self.rtl.counters()?;
        if rtl.front != self.front {
            return Err(format!("front end counters: rtl {}, model {}", rtl.front.json(), self.front.json()));
        }
        if (rtl.written, rtl.discarded) != (self.written, self.discarded) {
            return Err(format!(
                "writer counters: rtl written {} discarded {}, model {} and {}",
                rtl.written, rtl.discarded, self.written, self.discarded
            ));
        }
        Ok(())
    }
}
