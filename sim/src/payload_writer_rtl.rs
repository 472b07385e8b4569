//! Runner of the payload writer's Verilator model (`ferroce_payload_writer_w<W>`, top
//! `payload_writer`, simulated at 64 and 512 bits), used by its co-simulation
//! (`sim/tests/payload_writer_cosim.rs`).
//!
//! [`PayloadWriterRtl`] plays the writer's surroundings cycle by cycle, with the one stream
//! driver ([`crate::axis`]):
//!
//! ```text
//!  payloads (FrameSource: random idle, ──► s_pay ─┐                ┌─► m_cmd (Channel: random
//!  random tuser, which is not read)               │ payload_writer │   backpressure, AXI rules)
//!  decisions (RecordSource: random idle, ─► s_dec ┘                └─► m_wr (FrameSink: random
//!  optionally held until their payload is in)                          backpressure, AXI rules,
//!                                                                      beat format)
//! ```
//!
//! - **Inputs**: the payloads as RX front end gives them (bytes from lane 0, full beats but the
//!   last, `tlast`), and one decision per packet ([`WriteDecision`]): the `i`-th decision whose
//!   length is not 0 belongs to the `i`-th payload and says its byte count; zero-length
//!   decisions (no payload) may stand anywhere. [`DecisionTiming`] says whether a decision may be
//!   offered before its payload is in (the general case) or only some cycles after (the
//!   responder's order: it decides from the packet's final record).
//! - **Outputs**: the commands on `m_cmd` and the frames on `m_wr` (`tkeep` applied) are
//!   collected independently (the writer may send a command before or after its data). A command
//!   or a beat beyond the written payloads is an error at once; so is either output showing valid
//!   during the [`DRAIN_CYCLES`] after the last expected one.
//! - **End**: every input taken, every command and frame out, and `cnt_written` and
//!   `cnt_discarded` grown by the written and discarded payloads (a discard, which leaves no
//!   other trace, ends when its last beat leaves the buffer). A counter beyond its count is an
//!   error at once.
//! - **Progress**: no handshake on any interface and no count for [`PROGRESS_LIMIT`] cycles is an
//!   error that says where each interface stands, not a hang.
//!
//! [`expected`] is the reference: which commands, frames and counts a list of decisions must
//! give; [`WriterRun::check`] names the first difference.

use crate::axis::{first_difference, AxisPorts, Channel, FrameSink, FrameSource, RecordSource};
use crate::contracts::tx::MAX_PACKET_PAYLOAD;
use crate::verilated::{Model, Traffic, MODELS};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::fmt;

/// Bus widths the model is built at.
pub const WIDTHS: [usize; 2] = [64, 512];
/// The largest payload: the writer's buffer is sized for two of them.
pub const MAX_PAYLOAD: usize = MAX_PACKET_PAYLOAD as usize;
/// Cycles without a handshake on any interface after which a run is an error.
pub const PROGRESS_LIMIT: u64 = 5_000;
/// Cycles both outputs must stay quiet after the last expected command and frame.
pub const DRAIN_CYCLES: u64 = 64;
/// Cycles `reset` is held high.
const RESET_CYCLES: u64 = 2;

/// The model name at a bus width.
pub fn model_name(width: usize) -> String {
    format!("ferroce_payload_writer_w{width}")
}

/// One decision on `s_dec`: write the next payload at `address`, discard it, or (length 0)
/// take no payload.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WriteDecision {
    /// `s_dec_write`: write the payload (else discard it).
    pub write: bool,
    /// `s_dec_address`: where its first byte goes.
    pub address: u64,
    /// `s_dec_length`: its bytes (0: no payload).
    pub length: u16,
}

impl WriteDecision {
    /// Write the next payload, of `length` bytes, at `address`.
    pub fn write(address: u64, length: u16) -> WriteDecision {
        WriteDecision {
            write: true,
            address,
            length,
        }
    }

    /// Discard the next payload, of `length` bytes (the address is not used).
    pub fn discard(address: u64, length: u16) -> WriteDecision {
        WriteDecision {
            write: false,
            address,
            length,
        }
    }

    /// Consumes a payload.
    pub fn has_payload(&self) -> bool {
        self.length > 0
    }

    /// The port values, in the order `s_dec_write`, `s_dec_address`, `s_dec_length`.
    fn words(&self) -> Vec<Vec<u32>> {
        vec![
            vec![u32::from(self.write)],
            vec![self.address as u32, (self.address >> 32) as u32],
            vec![u32::from(self.length)],
        ]
    }
}

impl From<(bool, u64, u16)> for WriteDecision {
    fn from((write, address, length): (bool, u64, u16)) -> WriteDecision {
        WriteDecision { write, address, length }
    }
}

impl fmt::Display for WriteDecision {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.length, self.write) {
            (0, _) => write!(f, "no payload (write {}, address {:#x})", u8::from(self.write), self.address),
            (n, true) => write!(f, "write {n} bytes at {:#x}", self.address),
            (n, false) => write!(f, "discard {n} bytes"),
        }
    }
}

/// One command on `m_cmd`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WriteCommand {
    /// `m_cmd_address`.
    pub address: u64,
    /// `m_cmd_length`.
    pub length: u16,
}

/// When a decision may be offered on `s_dec`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DecisionTiming {
    /// Whenever the decision source is not idle: before, during or after its payload.
    Free,
    /// A decision with a payload no earlier than `delay` cycles (at least 1) after the cycle its
    /// payload's last beat was taken, as the responder decides from the packet's final record;
    /// zero-length decisions as soon as the ones before them were offered.
    AfterPayload {
        /// Cycles from the payload's last beat.
        delay: u64,
    },
}

/// What the writer must produce for a list of decisions ([`expected`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Expected {
    /// One command per written payload, in decision order.
    pub commands: Vec<WriteCommand>,
    /// The written payloads' bytes, in decision order.
    pub frames: Vec<Vec<u8>>,
    /// `cnt_written`.
    pub written: u32,
    /// `cnt_discarded`.
    pub discarded: u32,
}

/// The commands, frames and counts that `decisions` make of `payloads`, or why the two do not
/// fit together (a payload empty or beyond [`MAX_PAYLOAD`], a decision's length not its
/// payload's byte count, more or fewer payload-bearing decisions than payloads).
pub fn expected(payloads: &[Vec<u8>], decisions: &[WriteDecision]) -> Result<Expected, String> {
    if let Some(i) = payloads.iter().position(Vec::is_empty) {
        return Err(format!("payload {i} is empty: a payload has at least one byte"));
    }
    let mut e = Expected::default();
    let mut next = 0;
    for (i, d) in decisions.iter().enumerate().filter(|(_, d)| d.has_payload()) {
        let Some(p) = payloads.get(next) else {
            return Err(format!("decision {i} ({d}) has no payload: only {} payloads", payloads.len()));
        };
        if p.len() != usize::from(d.length) {
            return Err(format!("decision {i} ({d}) is for payload {next}, which has {} bytes", p.len()));
        }
        if p.len() > MAX_PAYLOAD {
            return Err(format!(
                "payload {next} has {} bytes, more than the {MAX_PAYLOAD} the writer holds",
                p.len()
            ));
        }
        if d.write {
            e.commands.push(WriteCommand {
                address: d.address,
                length: d.length,
            });
            e.frames.push(p.clone());
            e.written += 1;
        } else {
            e.discarded += 1;
        }
        next += 1;
    }
    if next != payloads.len() {
        return Err(format!("{} payloads but {next} decisions with a payload", payloads.len()));
    }
    Ok(e)
}

/// What a run produced.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WriterRun {
    /// The commands on `m_cmd`, in order.
    pub commands: Vec<WriteCommand>,
    /// The frames on `m_wr` (the bytes whose `tkeep` bit was set), in order.
    pub frames: Vec<Vec<u8>>,
    /// Payloads written in the run: what `cnt_written` gained from its first cycle to the end
    /// of the drain.
    pub written: u32,
    /// Payloads discarded in the run: what `cnt_discarded` gained.
    pub discarded: u32,
    /// Cycles from the run's first cycle to its last handshake on any interface or count on a
    /// counter, plus one.
    pub cycles: u64,
    /// The run reached its end (every input taken, every output out); false when it was cut
    /// short ([`PayloadWriterRtl::run_for`]).
    pub complete: bool,
    /// Payload beats taken on `s_pay`.
    pub beats_in: u64,
    /// Beats taken on `m_wr`.
    pub beats_out: u64,
    /// Decisions taken on `s_dec`.
    pub decisions_taken: usize,
    /// Cycles `s_pay_tready` was low while a beat was offered.
    pub input_stall_cycles: u64,
    /// Cycles `m_cmd_valid` was high (taken or stalled).
    pub cmd_valid_cycles: u64,
    /// Cycles `m_wr_tvalid` was high (taken or stalled).
    pub wr_valid_cycles: u64,
    /// Cycle (from the run's first) of the first beat on `m_wr`.
    pub first_beat_out: Option<u64>,
    /// Cycle (from the run's first) of the last beat on `m_wr`.
    pub last_beat_out: Option<u64>,
}

impl WriterRun {
    /// Compares with `want`: commands, frames byte for byte, counters. The error names the
    /// first difference.
    pub fn check(&self, want: &Expected) -> Result<(), String> {
        if let Some(i) = (0..self.commands.len().min(want.commands.len())).find(|&i| self.commands[i] != want.commands[i]) {
            return Err(format!(
                "command {i}: rtl {:x?}, expected {:x?}",
                self.commands[i], want.commands[i]
            ));
        }
        if self.commands.len() != want.commands.len() {
            return Err(format!("{} commands, expected {}", self.commands.len(), want.commands.len()));
        }
        for (i, (got, want)) in self.frames.iter().zip(&want.frames).enumerate() {
            if got != want {
                return Err(format!(
                    "frame {i}: {} bytes, expected {}{}",
                    got.len(),
                    want.len(),
                    first_difference(got, want)
                ));
            }
        }
        if self.frames.len() != want.frames.len() {
            return Err(format!("{} frames, expected {}", self.frames.len(), want.frames.len()));
        }
        if (self.written, self.discarded) != (want.written, want.discarded) {
            return Err(format!(
                "counters: written {} discarded {}, expected {} and {}",
                self.written, self.discarded, want.written, want.discarded
            ));
        }
        Ok(())
    }
    /// The frames and the interface counts as the run left them.
    fn fill(&mut self, source: &FrameSource, decider: &RecordSource, data: &FrameSink) {
        self.frames = data.frames.iter().map(|f| f.bytes.clone()).collect();
        self.beats_in = source.beats;
        self.beats_out = data.counts().0;
        self.decisions_taken = decider.next();
        self.input_stall_cycles = source.stall_cycles;
    }
}

struct Ports {
    reset: usize,
    pay: AxisPorts,
    dec_valid: usize,
    dec_ready: usize,
    cmd_valid: usize,
    cmd_ready: usize,
    wr_valid: usize,
    wr_ready: usize,
    cnt_written: usize,
    cnt_discarded: usize,
}

/// The writer's Verilator model and its cycle count.
pub struct PayloadWriterRtl {
    m: Model,
    p: Ports,
    width: usize,
    cycle: u64,
}

impl PayloadWriterRtl {
    /// Instantiates `ferroce_payload_writer_w<width>`, checks its ports and resets it.
    pub fn new(width: usize) -> Result<PayloadWriterRtl, String> {
        let name = model_name(width);
        let m = Model::new(&name).map_err(|_| {
            format!(
                "the payload writer RTL model {name} is not built into this binary (built: {}); rebuild ferroce-sim with \
                 payload_writer in FERROCE_SIM_TOPS (or unset it)",
                if MODELS.is_empty() { "none".to_string() } else { MODELS.join(", ") }
            )
        })?;
        let port = |n: &str, width: usize| -> Result<usize, String> {
            let i = m.port(n).map_err(|e| e.to_string())?;
            match m.ports()[i].width {
                w if w == width => Ok(i),
                w => Err(format!("{name}: port {n} is {w} bits wide, expected {width}")),
            }
        };
        let pay = AxisPorts::find(&m, "s_pay").map_err(|e| e.to_string())?;
        let wr = AxisPorts::find(&m, "m_wr").map_err(|e| e.to_string())?;
        for (ports, prefix) in [(&pay, "s_pay"), (&wr, "m_wr")] {
            if ports.bytes_per_beat * 8 != width {
                return Err(format!(
                    "{name}: {prefix}_tdata is {} bits wide, expected {width}",
                    ports.bytes_per_beat * 8
                ));
            }
        }
        if pay.user.is_none() {
            return Err(format!("{name}: no port s_pay_tuser"));
        }
        port("s_dec_write", 1)?;
        port("s_dec_address", 64)?;
        port("s_dec_length", 16)?;
        port("m_cmd_address", 64)?;
        port("m_cmd_length", 16)?;
        let p = Ports {
            reset: port("reset", 1)?,
            pay,
            dec_valid: port("s_dec_valid", 1)?,
            dec_ready: port("s_dec_ready", 1)?,
            cmd_valid: port("m_cmd_valid", 1)?,
            cmd_ready: port("m_cmd_ready", 1)?,
            wr_valid: wr.valid,
            wr_ready: wr.ready,
            cnt_written: port("cnt_written", 32)?,
            cnt_discarded: port("cnt_discarded", 32)?,
        };
        let mut dut = PayloadWriterRtl { m, p, width, cycle: 0 };
        dut.reset();
        Ok(dut)
    }

    /// Bus width in bits.
    pub fn width(&self) -> usize {
        self.width
    }

    /// Cycles stepped since the model was made.
    pub fn cycle(&self) -> u64 {
        self.cycle
    }

    /// The underlying model (to trace it, for example).
    pub fn model(&mut self) -> &mut Model {
        &mut self.m
    }

    /// Inputs idle (valid low, both outputs ready), `reset` high for two cycles: the writer
    /// forgets its payloads and the decision in progress, and clears its counters.
    pub fn reset(&mut self) {
        self.idle_inputs();
        self.m.set_u64(self.p.reset, 1);
        self.m.step(RESET_CYCLES);
        self.m.set_u64(self.p.reset, 0);
        self.cycle += RESET_CYCLES;
    }

    /// `cnt_written` and `cnt_discarded`.
    pub fn counters(&mut self) -> (u32, u32) {
        self.m.eval();
        (
            self.m.peek_u64(self.p.cnt_written) as u32,
            self.m.peek_u64(self.p.cnt_discarded) as u32,
        )
    }

    /// `cycles` cycles with the inputs idle and both outputs ready; either output showing valid
    /// is an error (the writer has nothing to write).
    pub fn idle(&mut self, cycles: u64) -> Result<(), String> {
        self.idle_inputs();
        for _ in 0..cycles {
            self.m.eval();
            self.check_quiet("an idle cycle")?;
            self.tick();
        }
        Ok(())
    }

    /// Runs `payloads` and `decisions` (which must fit together, see [`expected`]) until every
    /// input is taken, every command and frame is out and the counters have counted every
    /// payload (a discard shows nowhere else), then checks that the outputs stay quiet for
    /// [`DRAIN_CYCLES`]. Source idle (payloads and decisions) and sink backpressure (commands
    /// and data) follow `traffic`; `tuser` is random (held while a beat waits: the writer does
    /// not read it). The writer need not be fresh from reset: the counts are what the counters
    /// gain during the run.
    pub fn run(
        &mut self,
        payloads: &[Vec<u8>],
        decisions: &[WriteDecision],
        traffic: Traffic,
        timing: DecisionTiming,
    ) -> Result<WriterRun, String> {
        self.run_for(payloads, decisions, traffic, timing, None)
    }

    /// [`PayloadWriterRtl::run`], cut short after `limit` cycles when given (whatever is in
    /// flight: the model keeps its state, and a [`PayloadWriterRtl::reset`] must follow before
    /// another run). A run cut short has `complete` false and no drain.
    pub fn run_for(
        &mut self,
        payloads: &[Vec<u8>],
        decisions: &[WriteDecision],
        traffic: Traffic,
        timing: DecisionTiming,
        limit: Option<u64>,
    ) -> Result<WriterRun, String> {
        let name = self.m.name().to_string();
        let want = expected(payloads, decisions)?;
        let records: Vec<Vec<Vec<u32>>> = decisions.iter().map(WriteDecision::words).collect();
        // the payload each decision consumes (None: zero length)
        let payload_of: Vec<Option<usize>> = decisions
            .iter()
            .scan(0, |next, d| {
                Some(d.has_payload().then(|| {
                    *next += 1;
                    *next - 1
                }))
            })
            .collect();
        let rng = &mut ChaCha8Rng::seed_from_u64(traffic.seed);
        let e = |e: crate::verilated::SimError| e.to_string();
        let mut source = FrameSource::new(self.p.pay, payloads, traffic.idle_pct).map_err(e)?;
        let mut decider = RecordSource::new(
            &self.m,
            "s_dec_valid",
            "s_dec_ready",
            &["s_dec_write", "s_dec_address", "s_dec_length"],
            traffic.idle_pct,
        )
        .map_err(e)?;
        let mut commands = Channel::new(
            &self.m,
            "m_cmd",
            "m_cmd_valid",
            Some("m_cmd_ready"),
            &["m_cmd_address", "m_cmd_length"],
            traffic.bp_pct,
        )
        .map_err(e)?;
        let mut data = FrameSink::new(&self.m, "m_wr", &[], traffic.bp_pct).map_err(e)?;
        let tuser = self.p.pay.user.expect("checked in new");
        commands.always_ready(&mut self.m);
        data.always_ready(&mut self.m);

        let start = self.cycle;
        let counters_before = self.counters();
        let gained = |now: (u32, u32)| (now.0.wrapping_sub(counters_before.0), now.1.wrapping_sub(counters_before.1));
        let mut counted = (0, 0); // counts gained since the run's first cycle
        let mut run = WriterRun::default();
        let mut offered = 0; // decisions that may be offered (a prefix)
        let mut last_progress = start;
        let mut last_event = None;
        let mut pay_stalled = false; // a beat was offered and refused in the last cycle
        loop {
            let done = source.done()
                && decider.next() == decisions.len()
                && run.commands.len() == want.commands.len()
                && data.frames.len() == want.frames.len()
                && counted == (want.written, want.discarded);
            if done {
                break;
            }
            let at = self.cycle - start;
            if limit.is_some_and(|l| at >= l) {
                run.fill(&source, &decider, &data);
                run.cycles = last_event.map_or(0, |c| c + 1);
                (run.written, run.discarded) = counted;
                return Ok(run);
            }
            if self.cycle - last_progress > PROGRESS_LIMIT {
                self.m.eval();
                let next = decisions.get(decider.next()).map_or("none".into(), |d| d.to_string());
                return Err(format!(
                    "{name}: no handshake and no count for {PROGRESS_LIMIT} cycles (cycle {at} of the run): payload {} of {} at \
                     beat {} (s_pay_tready {}), decision {} of {} offered up to {offered} (next: {next}; s_dec_ready {}), {} of {} \
                     commands (m_cmd_valid {}), {} of {} frames and {} bytes of the next (m_wr_tvalid {}), written {} of {}, \
                     discarded {} of {}",
                    source.frame(),
                    payloads.len(),
                    source.beat(),
                    self.m.peek_u64(self.p.pay.ready),
                    decider.next(),
                    decisions.len(),
                    self.m.peek_u64(self.p.dec_ready),
                    run.commands.len(),
                    want.commands.len(),
                    self.m.peek_u64(self.p.cmd_valid),
                    data.frames.len(),
                    want.frames.len(),
                    data.pending_bytes(),
                    self.m.peek_u64(self.p.wr_valid),
                    counted.0,
                    want.written,
                    counted.1,
                    want.discarded,
                ));
            }
            // which decisions may be offered this cycle
            while offered < decisions.len() {
                let open = match (timing, payload_of[offered]) {
                    (DecisionTiming::Free, _) | (_, None) => true,
                    (DecisionTiming::AfterPayload { delay }, Some(p)) => {
                        source.last_cycles.get(p).is_some_and(|&c| self.cycle >= c + delay.max(1))
                    }
                };
                if !open {
                    break;
                }
                offered += 1;
            }

            source.drive(&mut self.m, rng);
            decider.drive(&mut self.m, rng, &records[..offered]);
            if !pay_stalled {
                self.m.set_u64(tuser, rng.gen::<u64>() & 1);
            }
            commands.drive(&mut self.m, rng);
            data.drive(&mut self.m, rng);
            self.m.eval();
            let mut progress = false;
            // a discard shows only on the counter, which counts it as it ends
            let now = gained((
                self.m.peek_u64(self.p.cnt_written) as u32,
                self.m.peek_u64(self.p.cnt_discarded) as u32,
            ));
            if now != counted {
                if now.0 > want.written || now.1 > want.discarded {
                    return Err(format!(
                        "{name}, cycle {at}: counters gained {} written and {} discarded, beyond the {} and {} of the decisions \
                         ({} taken)",
                        now.0,
                        now.1,
                        want.written,
                        want.discarded,
                        decider.next()
                    ));
                }
                counted = now;
                progress = true;
            }
            run.cmd_valid_cycles += self.m.peek_u64(self.p.cmd_valid);
            run.wr_valid_cycles += self.m.peek_u64(self.p.wr_valid);
            pay_stalled = self.m.peek_u64(self.p.pay.valid) != 0 && self.m.peek_u64(self.p.pay.ready) == 0;
            progress |= source.sample(&mut self.m, self.cycle).is_some();
            progress |= decider.sample(&mut self.m, self.cycle).is_some();
            if let Some(ports) = commands.sample(&mut self.m, at).map_err(e)? {
                let command = WriteCommand {
                    address: u64::from(ports[0][0]) | u64::from(ports[0][1]) << 32,
                    length: ports[1][0] as u16,
                };
                if run.commands.len() == want.commands.len() {
                    return Err(format!(
                        "{name}, m_cmd, cycle {at}: command {} {command:x?} beyond the {} written payloads ({} decisions taken)",
                        run.commands.len(),
                        want.commands.len(),
                        decider.next()
                    ));
                }
                run.commands.push(command);
                progress = true;
            }
            if data.sample(&mut self.m, at).map_err(e)? {
                if data.frames.len() > want.frames.len() || (data.frames.len() == want.frames.len() && data.pending_bytes() > 0) {
                    return Err(format!(
                        "{name}, m_wr, cycle {at}: a beat beyond the {} written payloads ({} decisions taken)",
                        want.frames.len(),
                        decider.next()
                    ));
                }
                run.first_beat_out.get_or_insert(at);
                run.last_beat_out = Some(at);
                progress = true;
            }
            if progress {
                last_progress = self.cycle;
                last_event = Some(at);
            }
            self.tick();
        }
        run.fill(&source, &decider, &data);
        run.cycles = last_event.map_or(0, |c| c + 1);
        run.complete = true;
        self.idle_inputs();
        for _ in 0..DRAIN_CYCLES {
            self.m.eval();
            self.check_quiet("the drain after the last expected command and frame")?;
            self.tick();
        }
        (run.written, run.discarded) = gained(self.counters());
        Ok(run)
    }

    /// Both outputs' valid low, or an error naming `during`.
    fn check_quiet(&mut self, during: &str) -> Result<(), String> {
        let (cmd, wr) = (self.m.peek_u64(self.p.cmd_valid), self.m.peek_u64(self.p.wr_valid));
        if cmd != 0 || wr != 0 {
            return Err(format!(
                "{}, cycle {}: m_cmd_valid {cmd}, m_wr_tvalid {wr} during {during}",
                self.m.name(),
                self.cycle
            ));
        }
        Ok(())
    }

    /// Input valids low, both outputs ready.
    fn idle_inputs(&mut self) {
        self.m.set_u64(self.p.pay.valid, 0);
        self.m.set_u64(self.p.dec_valid, 0);
        self.m.set_u64(self.p.cmd_ready, 1);
        self.m.set_u64(self.p.wr_ready, 1);
    }

    fn tick(&mut self) {
        self.m.tick();
        self.cycle += 1;
    }
}

/// Runs `payloads` and `decisions` on a fresh model at `width` bits (see
/// [`PayloadWriterRtl::run`]).
pub fn run_writer(
    width: usize,
    payloads: &[Vec<u8>],
    decisions: &[WriteDecision],
    traffic: Traffic,
    timing: DecisionTiming,
) -> Result<WriterRun, String> {
    PayloadWriterRtl::new(width)?.run(payloads, decisions, traffic, timing)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expected_follows_the_decisions_in_order() {
        let payloads = vec![vec![1; 3], vec![2; 9], vec![3; 1]];
        let decisions = [
            WriteDecision::write(0x10, 0),
            WriteDecision::write(0x100, 3),
            WriteDecision::discard(0, 9),
            WriteDecision::discard(0, 0),
            WriteDecision::write(0x200, 1),
        ];
        let e = expected(&payloads, &decisions).unwrap();
        assert_eq!(
            e.commands,
            [
                WriteCommand { address: 0x100, length: 3 },
                WriteCommand { address: 0x200, length: 1 }
            ]
        );
        assert_eq!(e.frames, [vec![1; 3], vec![3; 1]]);
        assert_eq!((e.written, e.discarded), (2, 1));
        // a length that is not its payload's, a payload without a decision, an empty payload
        assert!(expected(&payloads, &decisions[..4]).unwrap_err().contains("3 payloads but 2"));
        let mut wrong = decisions;
        wrong[2].length = 8;
        assert!(expected(&payloads, &wrong).unwrap_err().contains("has 9 bytes"));
        assert!(expected(&[vec![]], &[]).unwrap_err().contains("empty"));
    }
}
