//! The one stream driver of the co-simulation: every unit's runner drives its model's streams
//! with these pieces, cycle by cycle from Rust.
//!
//! - [`FrameSource`] presents frames on an AXI-Stream input (byte 0 in `tdata[7:0]`, `tkeep`
//!   contiguous from bit 0), idles at random before a beat (garbage on the bus, valid low) and
//!   holds each beat until `tready` takes it.
//! - [`Channel`] is the sink side of any valid/ready interface whose payload is a list of ports
//!   (a header record, for example): it draws `ready` low at random and checks the AXI rules
//!   every cycle (valid held and payload stable while stalled).
//! - [`RecordSource`] presents records on a valid/ready input whose payload is a list of ports
//!   (idle at random, each record held until `ready`).
//! - [`FrameSink`] is a [`Channel`] on an AXI-Stream output that also checks the beat format
//!   (`tkeep` contiguous from lane 0, every beat but the last full) and assembles frames.
//!
//! A cycle of a runner: `drive` every piece (inputs for this cycle), [`Model::eval`], `sample`
//! every piece (handshakes of this cycle, read with [`Model::peek`]), [`Model::tick`].
//! [`run_frames`] is that loop for a unit with one stream in and one out.

use crate::verilated::{Model, SimError, Traffic};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// One beat of up to `bytes_per_beat` bytes as the words of `tdata` and `tkeep` (byte 0 in
/// `tdata[7:0]`, `tkeep` set from bit 0 for each byte).
pub fn pack_beat(chunk: &[u8], bytes_per_beat: usize) -> (Vec<u32>, Vec<u32>) {
    assert!(chunk.len() <= bytes_per_beat, "{} bytes in a beat of {bytes_per_beat}", chunk.len());
    let mut data = vec![0u32; bytes_per_beat.div_ceil(4)];
    for (i, &byte) in chunk.iter().enumerate() {
        data[i / 4] |= (byte as u32) << (8 * (i % 4));
    }
    let mut keep = vec![0u32; bytes_per_beat.div_ceil(32)];
    for i in 0..chunk.len() {
        keep[i / 32] |= 1 << (i % 32);
    }
    (data, keep)
}

/// A port value of at most 128 bits from its little-endian 32-bit words.
pub fn value(words: &[u32]) -> u128 {
    assert!(words.len() <= 4, "a value of {} words does not fit 128 bits", words.len());
    words.iter().enumerate().map(|(i, &w)| (w as u128) << (32 * i)).sum()
}

/// `, first difference at byte N: got [..], expected [..]` (eight bytes of each from there), or
/// the empty string when one is a prefix of the other.
pub fn first_difference(got: &[u8], want: &[u8]) -> String {
    match got.iter().zip(want).position(|(a, b)| a != b) {
        Some(at) => format!(
            ", first difference at byte {at}: got {:02x?}, expected {:02x?}",
            &got[at..(at + 8).min(got.len())],
            &want[at..(at + 8).min(want.len())]
        ),
        None => String::new(),
    }
}

/// The ports of one AXI-Stream interface `<prefix>_t*`.
#[derive(Debug, Clone, Copy)]
pub struct AxisPorts {
    /// `tvalid`.
    pub valid: usize,
    /// `tready`.
    pub ready: usize,
    /// `tdata`.
    pub data: usize,
    /// `tkeep`.
    pub keep: usize,
    /// `tlast`.
    pub last: usize,
    /// `<prefix>_tuser`, when the interface has one.
    pub user: Option<usize>,
    /// `tdata` bytes.
    pub bytes_per_beat: usize,
}

impl AxisPorts {
    /// Finds `<prefix>_tvalid`, `_tready`, `_tdata`, `_tkeep`, `_tlast` and (if present)
    /// `_tuser`, and checks their widths against `tdata`'s.
    pub fn find(m: &Model, prefix: &str) -> Result<AxisPorts, SimError> {
        let port = |suffix: &str, width: Option<usize>| -> Result<usize, SimError> {
            let i = m.port(&format!("{prefix}_{suffix}"))?;
            match width {
                Some(w) if m.ports()[i].width != w => Err(SimError::PortWidth {
                    model: m.name().into(),
                    port: m.ports()[i].name.clone(),
                    width: m.ports()[i].width,
                    expected: w,
                }),
                _ => Ok(i),
            }
        };
        let data = port("tdata", None)?;
        let width = m.ports()[data].width;
        Ok(AxisPorts {
            valid: port("tvalid", Some(1))?,
            ready: port("tready", Some(1))?,
            data,
            keep: port("tkeep", Some(width / 8))?,
            last: port("tlast", Some(1))?,
            user: port("tuser", None).ok(),
            bytes_per_beat: width / 8,
        })
    }
}

/// A source beat that the model took.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Taken {
    /// Index of its frame.
    pub frame: usize,
    /// Index of the beat in the frame.
    pub beat: usize,
    /// The frame's last beat.
    pub last: bool,
}

/// Presents frames on an AXI-Stream input; see the module docs.
pub struct FrameSource<'a> {
    ports: AxisPorts,
    frames: &'a [Vec<u8>],
    idle_pct: u32,
    frame: usize,
    beat: usize,
    presenting: bool,
    /// Beats taken.
    pub beats: u64,
    /// Cycles the source idled (valid low) before a beat.
    pub idle_cycles: u64,
    /// Cycles a beat was presented and `tready` was low.
    pub stall_cycles: u64,
    /// Cycle at which each frame's last beat was taken (as far as the run got).
    pub last_cycles: Vec<u64>,
}

impl<'a> FrameSource<'a> {
    /// A source of `frames` (none empty: an AXI-Stream frame has at least one byte) that idles
    /// before a beat with `idle_pct` percent chance per cycle.
    pub fn new(ports: AxisPorts, frames: &'a [Vec<u8>], idle_pct: u32) -> Result<FrameSource<'a>, SimError> {
        if let Some(i) = frames.iter().position(|f| f.is_empty()) {
            return Err(SimError::EmptyFrame { index: i });
        }
        Ok(FrameSource {
            ports,
            frames,
            idle_pct,
            frame: 0,
            beat: 0,
            presenting: false,
            beats: 0,
            idle_cycles: 0,
            stall_cycles: 0,
            last_cycles: Vec::with_capacity(frames.len()),
        })
    }

    /// Every beat was taken.
    pub fn done(&self) -> bool {
        self.frame == self.frames.len()
    }

    /// Index of the frame being sent (the number of frames when done).
    pub fn frame(&self) -> usize {
        self.frame
    }

    /// Index of the next beat in the frame being sent.
    pub fn beat(&self) -> usize {
        self.beat
    }

    /// Drives the inputs for this cycle: the beat still waiting for `tready`, a new beat, or
    /// (idle, or every beat sent) valid low with garbage on the bus.
    pub fn drive(&mut self, m: &mut Model, rng: &mut ChaCha8Rng) {
        if self.presenting {
            return;
        }
        if self.done() {
            m.set_u64(self.ports.valid, 0);
            return;
        }
        if self.idle_pct > 0 && rng.gen_range(0..100) < self.idle_pct {
            self.idle_cycles += 1;
            let bytes = self.ports.bytes_per_beat;
            let garbage: Vec<u32> = (0..bytes.div_ceil(4)).map(|_| rng.gen()).collect();
            m.set_u64(self.ports.valid, 0);
            m.set(self.ports.data, &garbage);
            m.set(self.ports.keep, &garbage[..bytes.div_ceil(32)]);
            m.set_u64(self.ports.last, rng.gen::<u64>() & 1);
            return;
        }
        let bytes = self.ports.bytes_per_beat;
        let f = &self.frames[self.frame];
        let chunk = &f[self.beat * bytes..f.len().min((self.beat + 1) * bytes)];
        let (data, keep) = pack_beat(chunk, bytes);
        m.set_u64(self.ports.valid, 1);
        m.set(self.ports.data, &data);
        m.set(self.ports.keep, &keep);
        m.set_u64(self.ports.last, ((self.beat + 1) * bytes >= f.len()) as u64);
        self.presenting = true;
    }

    /// The handshake of this cycle (after [`Model::eval`]): the beat taken, if any.
    pub fn sample(&mut self, m: &mut Model, cycle: u64) -> Option<Taken> {
        if !self.presenting {
            return None;
        }
        if m.peek_u64(self.ports.ready) == 0 {
            self.stall_cycles += 1;
            return None;
        }
        self.presenting = false;
        self.beats += 1;
        let last = (self.beat + 1) * self.ports.bytes_per_beat >= self.frames[self.frame].len();
        let taken = Taken {
            frame: self.frame,
            beat: self.beat,
            last,
        };
        if last {
            self.last_cycles.push(cycle);
            self.frame += 1;
            self.beat = 0;
        } else {
            self.beat += 1;
        }
        Some(taken)
    }
}

/// The sink side of a valid/ready interface; see the module docs.
pub struct Channel {
    name: String,
    model: String,
    valid: usize,
    ready: Option<usize>,
    payload: Vec<usize>,
    bp_pct: u32,
    ready_now: bool,
    held: Option<Vec<Vec<u32>>>,
    /// Handshakes.
    pub beats: u64,
    /// Cycles valid was high and ready low.
    pub stall_cycles: u64,
}

impl Channel {
    /// The sink of `valid` with the payload ports `payload`, named `name` in errors, holding
    /// `ready` (when the interface has one) low with `bp_pct` percent chance per cycle.
    pub fn new(m: &Model, name: &str, valid: &str, ready: Option<&str>, payload: &[&str], bp_pct: u32) -> Result<Channel, SimError> {
        let ready = ready.map(|r| m.port(r)).transpose()?;
        assert!(ready.is_some() || bp_pct == 0, "{name}: backpressure on an interface without ready");
        Ok(Channel {
            name: name.into(),
            model: m.name().into(),
            valid: m.port(valid)?,
            ready,
            payload: payload.iter().map(|p| m.port(p)).collect::<Result<_, _>>()?,
            bp_pct,
            ready_now: true,
            held: None,
            beats: 0,
            stall_cycles: 0,
        })
    }

    /// The transfer completions `cpl_*` (channel, status) of the TX path and its parts.
    pub fn completions(m: &Model, bp_pct: u32) -> Result<Channel, SimError> {
        Channel::new(m, "cpl", "cpl_valid", Some("cpl_ready"), &["cpl_channel", "cpl_status"], bp_pct)
    }

    /// Drives `ready` for this cycle (high, or low with the backpressure chance).
    pub fn drive(&mut self, m: &mut Model, rng: &mut ChaCha8Rng) {
        let Some(ready) = self.ready else { return };
        let r = self.bp_pct == 0 || rng.gen_range(0..100) >= self.bp_pct;
        if r != self.ready_now {
            self.ready_now = r;
            m.set_u64(ready, r as u64);
        }
    }

    /// Drives `ready` low for this cycle, whatever [`Channel::drive`] chose (a sink whose
    /// buffer is full).
    pub fn hold(&mut self, m: &mut Model) {
        if let Some(ready) = self.ready {
            self.ready_now = false;
            m.set_u64(ready, 0);
        }
    }

    /// Drives `ready` high (before a reset, for example).
    pub fn always_ready(&mut self, m: &mut Model) {
        if let Some(ready) = self.ready {
            self.ready_now = true;
            m.set_u64(ready, 1);
        }
        self.held = None;
    }

    /// Valid is high this cycle (after [`Model::eval`]).
    pub fn valid(&self, m: &mut Model) -> bool {
        m.peek_u64(self.valid) != 0
    }

    /// The handshake of this cycle (after [`Model::eval`]): the payload ports' words when valid
    /// and ready are high, or an error if the interface broke the AXI rules.
    pub fn sample(&mut self, m: &mut Model, cycle: u64) -> Result<Option<Vec<Vec<u32>>>, SimError> {
        let payload = self.valid(m).then(|| self.payload.iter().map(|&p| m.peek(p)).collect());
        self.check(cycle, payload)
    }

    /// The rule check of [`Channel::sample`] on what the interface shows this cycle: its
    /// payload when valid is high.
    fn check(&mut self, cycle: u64, payload: Option<Vec<Vec<u32>>>) -> Result<Option<Vec<Vec<u32>>>, SimError> {
        if let Some(held) = self.held.take() {
            let what = match &payload {
                None => Some("valid dropped while stalled (ready low)"),
                Some(p) if *p != held => Some("payload changed while stalled (ready low)"),
                _ => None,
            };
            if let Some(what) = what {
                return Err(self.rule(cycle, what.into()));
            }
        }
        let Some(payload) = payload else { return Ok(None) };
        if !self.ready_now {
            self.stall_cycles += 1;
            self.held = Some(payload);
            return Ok(None);
        }
        self.beats += 1;
        Ok(Some(payload))
    }

    /// An AXI rule or beat format error on this interface.
    pub fn rule(&self, cycle: u64, what: String) -> SimError {
        SimError::Rule {
            model: self.model.clone(),
            interface: self.name.clone(),
            cycle,
            what,
        }
    }
}

/// The source side of a valid/ready interface whose payload is a list of ports (a packet
/// descriptor, a post): presents records in order, idles at random before one (valid low,
/// garbage on the payload) and holds each until `ready` takes it.
pub struct RecordSource {
    valid: usize,
    ready: usize,
    payload: Vec<usize>,
    idle_pct: u32,
    presenting: bool,
    next: usize,
    /// Records taken.
    pub taken: u64,
    /// Cycle at which each record was taken.
    pub taken_cycles: Vec<u64>,
}

impl RecordSource {
    /// The source of `valid`/`ready` with the payload ports `payload`, idling before a record
    /// with `idle_pct` percent chance per cycle.
    pub fn new(m: &Model, valid: &str, ready: &str, payload: &[&str], idle_pct: u32) -> Result<RecordSource, SimError> {
        Ok(RecordSource {
            valid: m.port(valid)?,
            ready: m.port(ready)?,
            payload: payload.iter().map(|p| m.port(p)).collect::<Result<_, _>>()?,
            idle_pct,
            presenting: false,
            next: 0,
            taken: 0,
            taken_cycles: Vec::new(),
        })
    }

    /// Index of the next record to present (the number of records when all were taken).
    pub fn next(&self) -> usize {
        self.next
    }

    /// Drives this cycle's inputs from `records` (each a list of port values, as words): the
    /// record still waiting for `ready`, the next one, or valid low.
    pub fn drive(&mut self, m: &mut Model, rng: &mut ChaCha8Rng, records: &[Vec<Vec<u32>>]) {
        if self.presenting {
            return;
        }
        if self.next == records.len() || (self.idle_pct > 0 && rng.gen_range(0..100) < self.idle_pct) {
            m.set_u64(self.valid, 0);
            for &p in &self.payload {
                let garbage: Vec<u32> = (0..m.ports()[p].words()).map(|_| rng.gen()).collect();
                m.set(p, &garbage);
            }
            return;
        }
        m.set_u64(self.valid, 1);
        for (&p, words) in self.payload.iter().zip(&records[self.next]) {
            m.set(p, words);
        }
        self.presenting = true;
    }

    /// The handshake of this cycle (after [`Model::eval`]): the index of the record taken.
    pub fn sample(&mut self, m: &mut Model, cycle: u64) -> Option<usize> {
        if !self.presenting || m.peek_u64(self.ready) == 0 {
            return None;
        }
        self.presenting = false;
        self.taken += 1;
        self.taken_cycles.push(cycle);
        self.next += 1;
        Some(self.next - 1)
    }
}

/// A frame that came out of an AXI-Stream output.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutFrame {
    /// The bytes whose `tkeep` bit was set.
    pub bytes: Vec<u8>,
    /// `tuser` on the last beat (0 without `tuser`).
    pub user: u64,
    /// `tuser` was not 0 on a beat before the last.
    pub user_before_last: bool,
    /// The side ports (each at most 128 bits) on the last beat, in the order given.
    pub side: Vec<u128>,
    /// Cycle of the last beat's handshake.
    pub last_cycle: u64,
}

/// Collects frames from an AXI-Stream output; see the module docs.
pub struct FrameSink {
    channel: Channel,
    bytes_per_beat: usize,
    user: bool,
    current: Vec<u8>,
    user_before_last: bool,
    /// The frames taken so far.
    pub frames: Vec<OutFrame>,
    /// Cycles valid was low inside a frame (after a beat that was not its last): what a MAC
    /// that must not underflow (Xilinx CMAC) cannot take.
    pub underflow_cycles: u64,
}

impl FrameSink {
    /// The sink of the AXI-Stream output `<prefix>_t*` that also reads the `side` ports on
    /// each last beat, holding `tready` low with `bp_pct` percent chance per cycle.
    pub fn new(m: &Model, prefix: &str, side: &[&str], bp_pct: u32) -> Result<FrameSink, SimError> {
        let ports = AxisPorts::find(m, prefix)?;
        let names: Vec<String> = ["tdata", "tkeep", "tlast"].iter().map(|s| format!("{prefix}_{s}")).collect();
        let mut payload: Vec<&str> = names.iter().map(String::as_str).collect();
        let user = format!("{prefix}_tuser");
        if ports.user.is_some() {
            payload.push(&user);
        }
        payload.extend_from_slice(side);
        let valid = format!("{prefix}_tvalid");
        let ready = format!("{prefix}_tready");
        Ok(FrameSink {
            channel: Channel::new(m, prefix, &valid, Some(&ready), &payload, bp_pct)?,
            bytes_per_beat: ports.bytes_per_beat,
            user: ports.user.is_some(),
            current: Vec::new(),
            user_before_last: false,
            frames: Vec::new(),
            underflow_cycles: 0,
        })
    }

    /// See [`Channel::drive`].
    pub fn drive(&mut self, m: &mut Model, rng: &mut ChaCha8Rng) {
        self.channel.drive(m, rng);
    }

    /// See [`Channel::always_ready`].
    pub fn always_ready(&mut self, m: &mut Model) {
        self.channel.always_ready(m);
    }

    /// See [`Channel::hold`].
    pub fn hold(&mut self, m: &mut Model) {
        self.channel.hold(m);
    }

    /// Valid is high this cycle (after [`Model::eval`]).
    pub fn valid(&self, m: &mut Model) -> bool {
        self.channel.valid(m)
    }

    /// Beats taken and cycles stalled (valid high, ready low).
    pub fn counts(&self) -> (u64, u64) {
        (self.channel.beats, self.channel.stall_cycles)
    }

    /// Bytes of a frame that has not ended yet.
    pub fn pending_bytes(&self) -> usize {
        self.current.len()
    }

    /// The handshake of this cycle (after [`Model::eval`]): whether a beat was taken, or an
    /// error if the output broke the AXI rules or the beat format.
    pub fn sample(&mut self, m: &mut Model, cycle: u64) -> Result<bool, SimError> {
        if !self.current.is_empty() && !self.channel.valid(m) {
            self.underflow_cycles += 1;
        }
        let Some(ports) = self.channel.sample(m, cycle)? else {
            return Ok(false);
        };
        self.take(cycle, ports)?;
        Ok(true)
    }

    /// Checks the format of a beat taken and adds it to the frame being assembled.
    fn take(&mut self, cycle: u64, mut ports: Vec<Vec<u32>>) -> Result<(), SimError> {
        let side = ports.split_off(3 + self.user as usize);
        let user = if self.user { value(&ports[3]) as u64 } else { 0 };
        let (data, keep, last) = (&ports[0], &ports[1], ports[2][0] & 1 != 0);
        let bytes = self.bytes_per_beat;
        let keep_bit = |i: usize| (keep[i / 32] >> (i % 32)) & 1 != 0;
        let n = (0..bytes).take_while(|&i| keep_bit(i)).count();
        if n == 0 || (n..bytes).any(keep_bit) || (!last && n != bytes) {
            let shown: Vec<String> = keep.iter().rev().map(|w| format!("{w:08x}")).collect();
            return Err(self.channel.rule(
                cycle,
                format!(
                    "beat {} of a frame has tkeep {} (tlast {}): not contiguous from lane 0, empty, or not full before the last beat",
                    self.current.len() / bytes,
                    shown.join("_"),
                    u8::from(last)
                ),
            ));
        }
        self.current.extend((0..n).map(|i| (data[i / 4] >> (8 * (i % 4))) as u8));
        if !last {
            self.user_before_last |= user != 0;
            return Ok(());
        }
        self.frames.push(OutFrame {
            bytes: std::mem::take(&mut self.current),
            user,
            user_before_last: std::mem::take(&mut self.user_before_last),
            side: side.iter().map(|w| value(w)).collect(),
            last_cycle: cycle,
        });
        Ok(())
    }
}

/// Result of [`run_frames`].
pub struct FrameRun {
    /// The frames that came out, in order.
    pub frames: Vec<OutFrame>,
    /// Cycles from the end of reset to the last output beat's handshake, plus one.
    pub cycles: u64,
    /// Input beats.
    pub beats_in: usize,
    /// Output beats.
    pub beats_out: usize,
    /// Cycle at which each input frame's last beat was taken.
    pub in_last_cycle: Vec<u64>,
}

/// Sends `frames` through a model with one AXI-Stream input `s_axis_*` and one output
/// `m_axis_*` (reading the `side` ports on every last beat) and collects what comes out. The
/// model is reset first. The run ends when `expect_beats` output beats arrived, or (0) when
/// the output has been quiet for 1,000 cycles after the last input beat; it is a hang when that
/// takes more than a generous budget.
pub fn run_frames(
    model: &mut Model,
    frames: &[Vec<u8>],
    traffic: Traffic,
    side: &[&str],
    expect_beats: usize,
) -> Result<FrameRun, SimError> {
    const QUIET_CYCLES: u64 = 1000;
    let input = AxisPorts::find(model, "s_axis")?;
    let mut source = FrameSource::new(input, frames, traffic.idle_pct)?;
    let mut sink = FrameSink::new(model, "m_axis", side, traffic.bp_pct)?;
    let rng = &mut ChaCha8Rng::seed_from_u64(traffic.seed);
    let beats_in: usize = frames.iter().map(|f| f.len().div_ceil(input.bytes_per_beat)).sum();
    let budget = 64 + 20 * (beats_in as u64 + 16) * (100 + traffic.idle_pct as u64 * 4 + traffic.bp_pct as u64 * 4) / 100;
    model.set_u64(input.valid, 0);
    sink.always_ready(model);
    model.reset(2);
    let (mut cycle, mut quiet) = (0u64, 0u64);
    loop {
        let (beats_out, _) = sink.counts();
        let finished = if expect_beats > 0 {
            beats_out as usize >= expect_beats
        } else {
            quiet > QUIET_CYCLES
        };
        if source.done() && finished {
            break;
        }
        if cycle >= budget {
            return Err(SimError::Hang {
                model: model.name().into(),
                cycles: cycle,
                sent: source.beats,
                received: beats_out,
            });
        }
        source.drive(model, rng);
        sink.drive(model, rng);
        model.eval();
        source.sample(model, cycle);
        quiet = if sink.sample(model, cycle)? { 0 } else { quiet + 1 };
        model.tick();
        cycle += 1;
    }
    let (beats_out, _) = sink.counts();
    Ok(FrameRun {
        frames: sink.frames,
        cycles: cycle,
        beats_in,
        beats_out: beats_out as usize,
        in_last_cycle: source.last_cycles,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_difference_names_the_byte() {
        assert_eq!(first_difference(&[1, 2, 3], &[1, 2, 3]), "");
        assert_eq!(first_difference(&[1, 2], &[1, 2, 3]), "");
        assert!(first_difference(&[1, 9, 3], &[1, 2, 3]).contains("byte 1: got [09, 03], expected [02, 03]"));
    }

    /// A sink of 8-byte beats with `tuser`, on no model: the checks see the beats given.
    fn sink() -> FrameSink {
        FrameSink {
            channel: Channel {
                name: "m_pay".into(),
                model: "none".into(),
                valid: 0,
                ready: Some(1),
                payload: Vec::new(),
                bp_pct: 0,
                ready_now: true,
                held: None,
                beats: 0,
                stall_cycles: 0,
            },
            bytes_per_beat: 8,
            user: true,
            current: Vec::new(),
            user_before_last: false,
            frames: Vec::new(),
            underflow_cycles: 0,
        }
    }

    fn beat(bytes: &[u8], last: bool, user: bool) -> Option<Vec<Vec<u32>>> {
        let (data, keep) = pack_beat(bytes, 8);
        Some(vec![data, keep, vec![last as u32], vec![user as u32]])
    }

    /// One cycle with the output showing `shown` and `tready` at `ready`.
    fn cycle(s: &mut FrameSink, cycle: u64, shown: Option<Vec<Vec<u32>>>, ready: bool) -> Result<(), String> {
        s.channel.ready_now = ready;
        match s.channel.check(cycle, shown).map_err(|e| e.to_string())? {
            Some(ports) => s.take(cycle, ports).map_err(|e| e.to_string()),
            None => Ok(()),
        }
    }

    #[test]
    fn frame_sink_assembles_frames_and_checks_the_rules() {
        let mut s = sink();
        cycle(&mut s, 0, beat(&[1; 8], false, false), true).unwrap();
        cycle(&mut s, 1, None, true).unwrap();
        // Stalled, then taken unchanged.
        cycle(&mut s, 2, beat(&[2, 3], true, true), false).unwrap();
        cycle(&mut s, 3, beat(&[2, 3], true, true), true).unwrap();
        assert_eq!(
            s.frames,
            [OutFrame {
                bytes: vec![1, 1, 1, 1, 1, 1, 1, 1, 2, 3],
                user: 1,
                user_before_last: false,
                side: vec![],
                last_cycle: 3
            }]
        );
        assert_eq!(s.counts(), (2, 1));
        // Valid dropped while stalled.
        cycle(&mut s, 4, beat(&[5], true, false), false).unwrap();
        assert!(cycle(&mut s, 5, None, true).unwrap_err().contains("valid dropped"));
        // Payload changed while stalled.
        let mut s = sink();
        cycle(&mut s, 0, beat(&[5], true, false), false).unwrap();
        assert!(cycle(&mut s, 1, beat(&[6], true, false), true).unwrap_err().contains("changed"));
        // A short beat before the last, a hole in tkeep.
        let mut s = sink();
        assert!(cycle(&mut s, 0, beat(&[1; 7], false, false), true).unwrap_err().contains("tkeep"));
        let mut s = sink();
        let mut b = beat(&[1; 3], true, false).unwrap();
        b[1][0] = 0b1011;
        assert!(cycle(&mut s, 0, Some(b), true).unwrap_err().contains("tkeep"));
        // tuser on a beat before the last is reported with the frame.
        let mut s = sink();
        cycle(&mut s, 0, beat(&[1; 8], false, true), true).unwrap();
        cycle(&mut s, 1, beat(&[1; 8], true, false), true).unwrap();
        assert!(s.frames[0].user_before_last);
    }
}
