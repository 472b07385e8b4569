//! Runner of the stream bus's Verilator models (`ferroce_stream_bus_s8_w64`, `_s256_w512`, top
//! `stream_bus`), used by its co-simulation (`sim/tests/stream_bus_cosim.rs`).
//!
//! A [`Bus`] presents packets (a stream's beats, `tdest` its stream, `tlast` on the last) under
//! random idle, takes the message records under random backpressure, reads each message's beats
//! back from its stream's region of the buffer (as the TX path's reads would) and releases them,
//! in order, after a random delay. What came out, stream by stream, is compared with
//! [`StreamBusModel`] by the caller (with `stream_port_rtl::compare`).

use crate::models::contracts::stream::{StreamCommand, STREAM_MESSAGE};
use crate::models::stream::StreamMessage;
use crate::stream_port_rtl::{bytes_of, Beat, PortRun};
use crate::verilated::{Model, Traffic};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::{HashMap, VecDeque};

/// A co-simulated variant of the bus.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BusVariant {
    /// Its name (`s8_w64`).
    pub name: &'static str,
    /// Bytes a beat.
    pub lanes: usize,
    /// Streams.
    pub streams: usize,
    /// Beats of the whole buffer.
    pub buffer_beats: u32,
}

impl BusVariant {
    /// Beats of a stream's region.
    pub fn region_beats(&self) -> u32 {
        self.buffer_beats / self.streams as u32
    }

    /// The largest slot in bytes: half a region.
    pub fn max_slot_bytes(&self) -> u32 {
        self.region_beats() / 2 * self.lanes as u32
    }
}

/// The co-simulated variants.
pub const VARIANTS: [BusVariant; 2] = [
    BusVariant {
        name: "s8_w64",
        lanes: 8,
        streams: 8,
        buffer_beats: 1 << 12,
    },
    BusVariant {
        name: "s256_w512",
        lanes: 64,
        streams: 256,
        buffer_beats: 1 << 16,
    },
];
/// Cycles without progress before a run is an error.
pub const PROGRESS_LIMIT: u64 = 5_000;

/// How the bench treats the bus.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Options {
    /// Source idle and record backpressure.
    pub traffic: Traffic,
    /// Up to this many cycles between a message read back and its release.
    pub release_delay: u32,
}

/// A stream's status as the bus reports it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct StreamStatus {
    /// The stream takes data.
    pub running: bool,
    /// The next message's sequence number.
    pub next_sequence: u64,
    /// The next message's slot.
    pub next_slot: u64,
    /// Beats held in its region.
    pub held_beats: u64,
    /// Counter: messages.
    pub messages: u64,
    /// Counter: dropped, no room.
    pub dropped_overflow: u64,
    /// Counter: dropped, a partial beat.
    pub dropped_partial_beat: u64,
}

/// A message record read from `m_message_entry`, before its bytes are read back.
struct Record {
    stream: usize,
    buffer_beat: u32,
    beats: u32,
    length: usize,
    message: StreamMessage,
}

const PORTS: [&str; 30] = [
    "command_valid",
    "command_stream",
    "command_code",
    "command_settings",
    "command_result_valid",
    "command_result_code",
    "s_axis_tvalid",
    "s_axis_tready",
    "s_axis_tdata",
    "s_axis_tkeep",
    "s_axis_tlast",
    "s_axis_tdest",
    "m_message_valid",
    "m_message_ready",
    "m_message_entry",
    "m_message_stream",
    "release_valid",
    "release_stream",
    "release_beats",
    "read_address",
    "read_data",
    "status_stream",
    "status_running",
    "status_next_sequence",
    "status_next_slot",
    "status_held_beats",
    "status_messages",
    "status_dropped_overflow",
    "status_dropped_partial_beat",
    "discarded_beats",
];

/// A stream bus's Verilator model with the record sink, the buffer reader and the releases.
pub struct Bus {
    m: Model,
    ports: HashMap<&'static str, usize>,
    rng: ChaCha8Rng,
    options: Options,
    variant: BusVariant,
    cycle: u64,
    /// Records taken, their bytes being read back (the front one), in order.
    reading: VecDeque<Record>,
    /// Messages read back: the cycle each may be released, its stream and beats.
    releases: VecDeque<(u64, usize, u32)>,
    /// The messages of each stream, in the order their records came out.
    messages: Vec<Vec<StreamMessage>>,
    /// Cycles from the first beat taken to the last one, both counted.
    beat_cycles: u64,
    first_beat: Option<u64>,
    /// Beats taken.
    beats_taken: u64,
}

impl Bus {
    /// The bench of `variant` after reset.
    pub fn open(variant: BusVariant, options: Options) -> Result<Bus, String> {
        let e = |e: crate::verilated::SimError| e.to_string();
        let m = Model::new(&format!("ferroce_stream_bus_{}", variant.name)).map_err(e)?;
        let mut ports = HashMap::new();
        for name in PORTS {
            ports.insert(name, m.port(name).map_err(e)?);
        }
        let mut bus = Bus {
            m,
            ports,
            rng: ChaCha8Rng::seed_from_u64(options.traffic.seed),
            options,
            variant,
            cycle: 0,
            reading: VecDeque::new(),
            releases: VecDeque::new(),
            messages: vec![Vec::new(); variant.streams],
            beat_cycles: 0,
            first_beat: None,
            beats_taken: 0,
        };
        bus.m.reset(2);
        Ok(bus)
    }

    fn set(&mut self, name: &str, v: u64) {
        let p = self.ports[name];
        self.m.set_u64(p, v);
    }

    fn get(&mut self, name: &str) -> u64 {
        let p = self.ports[name];
        self.m.get_u64(p)
    }

    /// Cycles so far.
    pub fn cycle(&self) -> u64 {
        self.cycle
    }

    /// Cycles from the first beat taken to the last one, and the beats taken.
    pub fn beat_cycles(&self) -> (u64, u64) {
        (self.beat_cycles, self.beats_taken)
    }

    /// One clock edge, with the record sink, the buffer reader and the releases around it.
    pub fn tick(&mut self) {
        let ready = self.rng.gen_range(0..100) >= self.options.traffic.bp_pct;
        self.set("m_message_ready", u64::from(ready));
        if ready && self.get("m_message_valid") != 0 {
            let p = self.ports["m_message_entry"];
            let words = self.m.get(p);
            let field = |name: &str| STREAM_MESSAGE.decode(&words, name);
            let stream = self.get("m_message_stream") as usize;
            let buffer_beat = field("buffer_beat") as u32;
            let region = self.variant.region_beats();
            assert!(
                stream < self.variant.streams && buffer_beat / region == stream as u32,
                "a record of stream {stream} starts at beat {buffer_beat}, outside its region"
            );
            self.reading.push_back(Record {
                stream,
                buffer_beat,
                beats: field("beats") as u32,
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
        // the buffer: the front record's next beat, round its stream's region
        let lanes = self.variant.lanes;
        let region = self.variant.region_beats();
        let next_read = self.reading.front().map(|r| {
            let read = r.message.data.len().div_ceil(lanes) as u32;
            let base = r.buffer_beat / region * region;
            base + (r.buffer_beat - base + read) % region
        });
        self.set("read_address", u64::from(next_read.unwrap_or(0)));
        let due = self.releases.front().is_some_and(|&(at, _, _)| at <= self.cycle);
        self.set("release_valid", u64::from(due));
        if due {
            let (_, stream, beats) = self.releases.pop_front().expect("due");
            self.set("release_stream", stream as u64);
            self.set("release_beats", u64::from(beats));
        }
        self.m.step(1);
        self.cycle += 1;
        if next_read.is_some() {
            let p = self.ports["read_data"];
            let words = self.m.get(p);
            let record = self.reading.front_mut().expect("a record being read");
            let take = (record.length - record.message.data.len()).min(lanes);
            record.message.data.extend(bytes_of(&words, take));
            if record.message.data.len() == record.length {
                let record = self.reading.pop_front().expect("read");
                let delay = self.rng.gen_range(0..=self.options.release_delay);
                self.releases
                    .push_back((self.cycle + u64::from(delay), record.stream, record.beats));
                self.messages[record.stream].push(record.message);
            }
        }
    }

    /// Presents a command to `stream`; returns its result code.
    pub fn command(&mut self, stream: usize, command: StreamCommand, settings: &[u32]) -> Result<u64, String> {
        let p = self.ports["command_settings"];
        let mut words = settings.to_vec();
        words.resize(2, 0);
        self.m.set(p, &words);
        self.set("command_stream", stream as u64);
        self.set("command_code", command as u64);
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
        Err(format!(
            "cycle {}: no result for command {command:?} of stream {stream}",
            self.cycle
        ))
    }

    /// Presents a packet of `stream` (`tdest`), a beat at a time until each is taken; false
    /// if a beat was not taken within the progress limit.
    pub fn packet(&mut self, stream: u8, beats: &[Beat]) -> bool {
        let lanes = self.variant.lanes;
        for beat in beats {
            while self.rng.gen_range(0..100) < self.options.traffic.idle_pct {
                self.set("s_axis_tvalid", 0);
                self.tick();
            }
            let (data, keep) = beat.words(lanes);
            let p = self.ports["s_axis_tdata"];
            self.m.set(p, &data);
            let p = self.ports["s_axis_tkeep"];
            self.m.set(p, &keep);
            self.set("s_axis_tlast", u64::from(beat.last));
            self.set("s_axis_tdest", u64::from(stream));
            self.set("s_axis_tvalid", 1);
            let start = self.cycle;
            loop {
                let taken = self.get("s_axis_tready") != 0;
                if taken {
                    let first = *self.first_beat.get_or_insert(self.cycle);
                    self.beat_cycles = self.cycle - first + 1;
                    self.beats_taken += 1;
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
        }
        self.set("s_axis_tvalid", 0);
        true
    }

    /// Runs until every record was taken and read back and every release made.
    pub fn drain(&mut self) -> Result<(), String> {
        let start = self.cycle;
        loop {
            let busy = !self.reading.is_empty() || self.get("m_message_valid") != 0 || !self.releases.is_empty();
            if !busy {
                for _ in 0..6 {
                    self.tick();
                }
                if self.get("m_message_valid") == 0 && self.reading.is_empty() && self.releases.is_empty() {
                    return Ok(());
                }
            }
            self.tick();
            if self.cycle - start > PROGRESS_LIMIT * 10 {
                return Err(format!("cycle {}: the records do not drain", self.cycle));
            }
        }
    }

    /// The status of `stream`.
    pub fn status(&mut self, stream: usize) -> StreamStatus {
        self.set("status_stream", stream as u64);
        for _ in 0..3 {
            self.tick();
        }
        StreamStatus {
            running: self.get("status_running") != 0,
            next_sequence: self.get("status_next_sequence"),
            next_slot: self.get("status_next_slot"),
            held_beats: self.get("status_held_beats"),
            messages: self.get("status_messages"),
            dropped_overflow: self.get("status_dropped_overflow"),
            dropped_partial_beat: self.get("status_dropped_partial_beat"),
        }
    }

    /// The bus's count of discarded beats.
    pub fn discarded_beats(&mut self) -> u64 {
        self.get("discarded_beats")
    }

    /// What came out of `stream` so far, with its counters from its status, for
    /// `stream_port_rtl::compare`.
    pub fn run_of(&mut self, stream: usize) -> PortRun {
        let status = self.status(stream);
        PortRun {
            messages: self.messages[stream].clone(),
            messages_counted: status.messages,
            dropped_overflow: status.dropped_overflow,
            dropped_partial_beat: status.dropped_partial_beat,
            beats_not_taken: 0,
            cycles: self.cycle,
            beat_cycles: self.beat_cycles,
        }
    }
}
