//! Runner of the stream port's Verilator models (`ferroce_stream_port_w64`, `_w512`, top
//! `stream_port`), used by its co-simulation (`sim/tests/stream_port_cosim.rs`).
//!
//! [`run`] configures and starts the port, presents beats under random idle, takes the message
//! records under random backpressure, reads each message's beats back from the buffer's read
//! port (as the TX path's reads would) and releases them, in order, after a random delay (or
//! never, to fill the buffer). What came out is compared with [`StreamPortModel`] by the caller
//! or by [`compare`].

use crate::models::contracts::stream::{StreamCommand, STREAM_MESSAGE, STREAM_SETTINGS};
use crate::models::stream::{ImmediateFormat, MessageEnd, PortEvent, StreamConfig, StreamMessage, StreamPortModel};
use crate::verilated::{Model, Traffic};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::{HashMap, VecDeque};

/// The co-simulated variants: (variant, bytes per beat, beats in the buffer).
pub const VARIANTS: [(&str, usize, u32); 2] = [("w64", 8, 4096), ("w512", 64, 512)];
/// Cycles without progress before a run is an error.
pub const PROGRESS_LIMIT: u64 = 5_000;

/// A stream's settings (the fields of `STREAM_SETTINGS`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PortSettings {
    /// Bytes of a slot.
    pub slot_bytes: u32,
    /// Slots in the ring.
    pub slots: u32,
    /// The immediate counts `{wraps, slot}`.
    pub slot_and_wrap: bool,
    /// Messages end at `tlast` too.
    pub end_at_tlast: bool,
    /// The immediate's length bits (with `end_at_tlast`).
    pub length_bits: u32,
    /// Drop a message that finds no room.
    pub drop_on_overflow: bool,
    /// The solicited bit every this many messages (0: never).
    pub solicited_every: u32,
}

impl PortSettings {
    /// The model's settings (the ring's address, key and rate do not concern the port).
    pub fn config(&self) -> StreamConfig {
        StreamConfig {
            qp: 0,
            base_va: 0,
            rkey: 0,
            slot_bytes: self.slot_bytes,
            slots: self.slots,
            immediate: if self.slot_and_wrap {
                ImmediateFormat::SlotAndWrap
            } else {
                ImmediateFormat::Sequence
            },
            end: if self.end_at_tlast {
                MessageEnd::Tlast {
                    length_bits: self.length_bits,
                }
            } else {
                MessageEnd::Slot
            },
            solicited_every: self.solicited_every,
            rate_bytes_per_second: 1,
        }
    }

    /// The packed settings entry.
    pub fn encode(&self) -> Vec<u32> {
        STREAM_SETTINGS
            .encode(&[
                ("slot_bytes", u128::from(self.slot_bytes)),
                ("last_slot", u128::from(self.slots.saturating_sub(1))),
                ("slot_and_wrap", u128::from(self.slot_and_wrap)),
                ("end_at_tlast", u128::from(self.end_at_tlast)),
                ("length_bits", u128::from(self.length_bits)),
                ("drop_on_overflow", u128::from(self.drop_on_overflow)),
                ("solicited_every", u128::from(self.solicited_every)),
            ])
            .expect("settings fit their fields")
    }
}

/// One beat of the stream: its bytes (from lane 0) and `tlast`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Beat {
    /// The bytes.
    pub bytes: Vec<u8>,
    /// `tlast`.
    pub last: bool,
}

impl Beat {
    /// Its `tdata` words at `lanes` bytes a beat and its `tkeep` words (contiguous from lane 0).
    pub fn words(&self, lanes: usize) -> (Vec<u32>, [u32; 4]) {
        let mut data = vec![0u32; lanes / 4];
        for (i, b) in self.bytes.iter().enumerate() {
            data[i / 4] |= u32::from(*b) << (8 * (i % 4));
        }
        let keep: u128 = if self.bytes.len() >= 128 {
            u128::MAX
        } else {
            (1u128 << self.bytes.len()) - 1
        };
        (data, [keep as u32, (keep >> 32) as u32, (keep >> 64) as u32, (keep >> 96) as u32])
    }
}

/// How the bench treats the port.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Options {
    /// Source idle and record backpressure.
    pub traffic: Traffic,
    /// Up to this many cycles between a message read back and its release.
    pub release_delay: u32,
    /// Release nothing (the buffer fills).
    pub hold_releases: bool,
}

/// What came out of the port.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PortRun {
    /// The messages whole in the buffer, in order, their bytes read back from it.
    pub messages: Vec<StreamMessage>,
    /// Counter: messages.
    pub messages_counted: u64,
    /// Counter: dropped, no room.
    pub dropped_overflow: u64,
    /// Counter: dropped, a partial beat.
    pub dropped_partial_beat: u64,
    /// Beats presented that the port did not take before the run gave up (held releases,
    /// no drop).
    pub beats_not_taken: usize,
    /// Cycles.
    pub cycles: u64,
    /// Cycles from the first beat taken to the last one, both counted.
    pub beat_cycles: u64,
}

/// A message record read from `m_message_entry`, before its bytes are read back.
struct Record {
    buffer_beat: u32,
    beats: u32,
    length: usize,
    message: StreamMessage,
}

struct Bench {
    m: Model,
    ports: HashMap<&'static str, usize>,
    rng: ChaCha8Rng,
    options: Options,
    buffer_beats: u32,
    cycle: u64,
    /// Records taken, their bytes being read back (the front one), in order.
    reading: VecDeque<Record>,
    /// Messages read back: their beats and the cycle they may be released.
    releases: VecDeque<(u64, u32)>,
    /// The cycle the first beat was taken.
    first_beat: Option<u64>,
    got: PortRun,
}

const PORTS: [&str; 24] = [
    "command_valid",
    "command_code",
    "command_settings",
    "command_result_valid",
    "command_result_code",
    "running",
    "s_axis_tvalid",
    "s_axis_tready",
    "s_axis_tdata",
    "s_axis_tkeep",
    "s_axis_tlast",
    "m_message_valid",
    "m_message_ready",
    "m_message_entry",
    "release_valid",
    "release_beats",
    "read_address",
    "read_data",
    "next_sequence",
    "next_slot",
    "held_beats",
    "messages",
    "dropped_overflow",
    "dropped_partial_beat",
];

/// The first `n` bytes of little-endian words.
pub fn bytes_of(words: &[u32], n: usize) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).take(n).collect()
}

impl Bench {
    /// The bench of the port's variant `variant` (and its bytes per beat), not yet reset.
    fn open(variant: &str, options: Options) -> Result<(Bench, usize), String> {
        let &(_, lanes, buffer_beats) = VARIANTS
            .iter()
            .find(|v| v.0 == variant)
            .ok_or_else(|| format!("no variant {variant}"))?;
        let e = |e: crate::verilated::SimError| e.to_string();
        let m = Model::new(&format!("ferroce_stream_port_{variant}")).map_err(e)?;
        let mut ports = HashMap::new();
        for name in PORTS {
            ports.insert(name, m.port(name).map_err(e)?);
        }
        let bench = Bench {
            m,
            ports,
            rng: ChaCha8Rng::seed_from_u64(options.traffic.seed),
            options,
            buffer_beats,
            cycle: 0,
            reading: VecDeque::new(),
            releases: VecDeque::new(),
            first_beat: None,
            got: PortRun::default(),
        };
        Ok((bench, lanes))
    }

    fn set(&mut self, name: &str, v: u64) {
        let p = self.ports[name];
        self.m.set_u64(p, v);
    }

    fn get(&mut self, name: &str) -> u64 {
        let p = self.ports[name];
        self.m.get_u64(p)
    }

    /// One clock edge, with the record sink, the buffer reader and the releases around it.
    fn tick(&mut self) {
        // records: taken at this edge when valid and ready
        let ready = self.rng.gen_range(0..100) >= self.options.traffic.bp_pct;
        self.set("m_message_ready", u64::from(ready));
        if ready && self.get("m_message_valid") != 0 {
            let p = self.ports["m_message_entry"];
            let words = self.m.get(p);
            let field = |name: &str| STREAM_MESSAGE.decode(&words, name);
            let beats = field("beats") as u32;
            let buffer_beat = field("buffer_beat") as u32;
            // a buffer entry: the sender puts it in the window, which holds 2 × the buffer a port
            assert!(
                buffer_beat < self.buffer_beats,
                "a record's buffer_beat {buffer_beat} is not an entry of a buffer of {} beats",
                self.buffer_beats
            );
            self.reading.push_back(Record {
                buffer_beat,
                beats,
                length: field("length") as usize,
                message: StreamMessage {
                    sequence: field("sequence") as u64,
                    slot: field("slot") as u32,
                    remote_va: 0,
                    immediate: field("immediate") as u32,
                    solicited: field("solicited") != 0,
                    data: Vec::new(),
                },
            });
        }
        // the buffer: the front record's next beat
        let next_read = self.reading.front().map(|r| {
            let read = r.message.data.len().div_ceil(self.beat_bytes()) as u32;
            (r.buffer_beat + read) % self.buffer_beats
        });
        let reading_now = next_read;
        self.set("read_address", u64::from(reading_now.unwrap_or(0)));
        // releases, in order, when due
        let due = !self.options.hold_releases && self.releases.front().is_some_and(|&(at, _)| at <= self.cycle);
        self.set("release_valid", u64::from(due));
        if due {
            let (_, beats) = self.releases.pop_front().expect("due");
            self.set("release_beats", u64::from(beats));
        }
        self.m.step(1);
        self.cycle += 1;
        // the beat read at this edge
        if reading_now.is_some() {
            let p = self.ports["read_data"];
            let words = self.m.get(p);
            let beat_bytes = self.beat_bytes();
            let record = self.reading.front_mut().expect("a record being read");
            let take = (record.length - record.message.data.len()).min(beat_bytes);
            record.message.data.extend(bytes_of(&words, take));
            if record.message.data.len() == record.length {
                let record = self.reading.pop_front().expect("read");
                let delay = self.rng.gen_range(0..=self.options.release_delay);
                self.releases.push_back((self.cycle + u64::from(delay), record.beats));
                self.got.messages.push(record.message);
            }
        }
    }

    fn beat_bytes(&self) -> usize {
        VARIANTS.iter().find(|v| v.2 == self.buffer_beats).map_or(0, |v| v.1)
    }

    /// Presents a command; returns its result code.
    fn command(&mut self, command: StreamCommand, settings: &[u32]) -> Result<u64, String> {
        self.command_code(command as u64, settings)
    }

    /// Presents a command by its code; returns its result code.
    fn command_code(&mut self, code: u64, settings: &[u32]) -> Result<u64, String> {
        let p = self.ports["command_settings"];
        self.m.set(p, settings);
        self.set("command_code", code);
        self.set("command_valid", 1);
        self.tick();
        self.set("command_valid", 0);
        for _ in 0..4 {
            if self.get("command_result_valid") != 0 {
                let code = self.get("command_result_code");
                self.tick();
                return Ok(code);
            }
            self.tick();
        }
        Err(format!("cycle {}: no result for command {code}", self.cycle))
    }

    /// Presents a beat until it is taken (false: not taken within the progress limit).
    fn present(&mut self, beat: &Beat, lanes: usize) -> bool {
        while self.rng.gen_range(0..100) < self.options.traffic.idle_pct {
            self.tick();
        }
        let (data, keep) = beat.words(lanes);
        let p = self.ports["s_axis_tdata"];
        self.m.set(p, &data);
        let p = self.ports["s_axis_tkeep"];
        self.m.set(p, &keep);
        self.set("s_axis_tlast", u64::from(beat.last));
        self.set("s_axis_tvalid", 1);
        let start = self.cycle;
        loop {
            let taken = self.get("s_axis_tready") != 0;
            if taken {
                let first = *self.first_beat.get_or_insert(self.cycle);
                self.got.beat_cycles = self.cycle - first + 1;
            }
            self.tick();
            if taken {
                break;
            }
            if self.cycle - start > PROGRESS_LIMIT {
                self.set("s_axis_tvalid", 0);
                return false;
            }
        }
        self.set("s_axis_tvalid", 0);
        true
    }

    /// Runs until every record was taken and read back and every release made.
    fn drain(&mut self) -> Result<(), String> {
        let start = self.cycle;
        loop {
            let busy =
                !self.reading.is_empty() || self.get("m_message_valid") != 0 || (!self.options.hold_releases && !self.releases.is_empty());
            if !busy {
                // the record of a message that ended in the last cycles may still be on its way
                for _ in 0..4 {
                    self.tick();
                }
                if self.get("m_message_valid") == 0 && self.reading.is_empty() {
                    return Ok(());
                }
            }
            self.tick();
            if self.cycle - start > PROGRESS_LIMIT * 10 {
                return Err(format!("cycle {}: the records do not drain", self.cycle));
            }
        }
    }
}

/// Runs `beats` through the port's variant `variant` with `settings`.
pub fn run(variant: &str, settings: &PortSettings, beats: &[Beat], options: Options) -> Result<PortRun, String> {
    let (mut bench, lanes) = Bench::open(variant, options)?;
    bench.m.reset(2);
    let code = bench.command(StreamCommand::Configure, &settings.encode())?;
    if code != 0 {
        return Err(format!("configure refused with code {code}"));
    }
    let code = bench.command(StreamCommand::Start, &[])?;
    if code != 0 {
        return Err(format!("start refused with code {code}"));
    }
    for (i, beat) in beats.iter().enumerate() {
        if !bench.present(beat, lanes) {
            bench.got.beats_not_taken = beats.len() - i;
            break;
        }
    }
    bench.drain()?;
    bench.got.messages_counted = bench.get("messages");
    bench.got.dropped_overflow = bench.get("dropped_overflow");
    bench.got.dropped_partial_beat = bench.get("dropped_partial_beat");
    bench.got.cycles = bench.cycle;
    Ok(bench.got)
}

/// What the model says of `beats`: every message (with room for all) and every drop.
pub fn model_events(variant: &str, settings: &PortSettings, beats: &[Beat]) -> Vec<PortEvent> {
    let lanes = VARIANTS.iter().find(|v| v.0 == variant).map_or(8, |v| v.1);
    let mut model = StreamPortModel::new(settings.config(), lanes).expect("settings the model takes");
    beats.iter().filter_map(|b| model.beat(&b.bytes, b.last)).collect()
}

/// Checks a run against the model: every message the port kept is the model's message of that
/// sequence number, in order; partial-beat drops are the model's; the rest of the model's
/// messages were dropped for room (none unless `drop_on_overflow`).
pub fn compare(run: &PortRun, events: &[PortEvent], settings: &PortSettings) -> Result<(), String> {
    let want: HashMap<u64, &StreamMessage> = events
        .iter()
        .filter_map(|e| match e {
            PortEvent::Message(m) => Some((m.sequence, m)),
            _ => None,
        })
        .collect();
    let partial = events.iter().filter(|e| matches!(e, PortEvent::Dropped { .. })).count() as u64;
    let mut last = None;
    for got in &run.messages {
        let Some(want) = want.get(&got.sequence) else {
            return Err(format!("message {} is not one of the model's", got.sequence));
        };
        let want = StreamMessage {
            remote_va: 0,
            ..(*want).clone()
        };
        if *got != want {
            let at = got.data.iter().zip(&want.data).position(|(a, b)| a != b);
            return Err(format!(
                "message {}: slot {} immediate {:#x} solicited {} length {} (first byte differing {at:?}), the model's slot {} immediate {:#x} solicited {} length {}",
                got.sequence,
                got.slot,
                got.immediate,
                got.solicited,
                got.data.len(),
                want.slot,
                want.immediate,
                want.solicited,
                want.data.len()
            ));
        }
        if last.is_some_and(|l| got.sequence <= l) {
            return Err(format!("message {} after {last:?}", got.sequence));
        }
        last = Some(got.sequence);
    }
    if run.dropped_partial_beat != partial {
        return Err(format!("{} partial-beat drops, the model's {partial}", run.dropped_partial_beat));
    }
    if run.messages_counted != run.messages.len() as u64 {
        return Err(format!(
            "{} messages counted, {} came out",
            run.messages_counted,
            run.messages.len()
        ));
    }
    if run.beats_not_taken == 0 && run.messages.len() as u64 + run.dropped_overflow != want.len() as u64 {
        return Err(format!(
            "{} messages and {} dropped for room, the model has {}",
            run.messages.len(),
            run.dropped_overflow,
            want.len()
        ));
    }
    if !settings.drop_on_overflow && run.dropped_overflow != 0 {
        return Err(format!("{} messages dropped without drop_on_overflow", run.dropped_overflow));
    }
    Ok(())
}

/// A step of a [`script`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    /// A command by its code, with its settings entry (its result code is recorded).
    Command(u64, Vec<u32>),
    /// A beat, presented until taken (1 is recorded when it was, 0 when not).
    Beat(Beat),
    /// A few cycles, then whether the port runs (recorded as 1 or 0).
    Running,
}

/// Plays `steps` on the port's variant `variant` after reset, records taken at once and
/// released after reading; returns what each step recorded.
pub fn script(variant: &str, steps: &[Step]) -> Result<Vec<u64>, String> {
    let options = Options {
        traffic: Traffic::FULL,
        release_delay: 0,
        hold_releases: false,
    };
    let (mut bench, lanes) = Bench::open(variant, options)?;
    bench.m.reset(2);
    let mut out = Vec::new();
    for step in steps {
        out.push(match step {
            Step::Command(code, settings) => bench.command_code(*code, settings)?,
            Step::Beat(beat) => u64::from(bench.present(beat, lanes)),
            Step::Running => {
                for _ in 0..4 {
                    bench.tick();
                }
                bench.get("running")
            }
        });
    }
    Ok(out)
}
