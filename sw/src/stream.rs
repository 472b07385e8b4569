//! The stream ports from the host: each stream's settings, its commands (`configure`, `start`,
//! `stop`) and its state and counters, through the register map's `stream` block
//! (`ferroce_contracts::regs`, [`STREAM_STRIDE`] bytes per stream).
//!
//! [`Streams::set`] checks the settings as the device will (the slot a multiple of 4 bytes up to
//! 1 MiB; 1, 2 or 4 channels; 1 to 65,536 slots) and refuses them before any write, then writes them and applies them with `configure`: the
//! device applies all of them or none, and a refusal comes back as an error naming its reason.

use crate::bus::{Bus, Cause, Error};
use ferroce_contracts::regs::{Map, Register, STREAM_STRIDE};
pub use ferroce_contracts::stream::StreamSettings;
use ferroce_contracts::stream::{StreamCommand, StreamRefusal, MAX_SLOTS, MAX_SLOT_BYTES};

/// A stream's state and counters, as its registers read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct StreamStatus {
    /// The last command's result: `None` done, else why it was refused.
    pub refused: Option<u8>,
    /// The stream takes data.
    pub running: bool,
    /// Settings have been applied.
    pub configured: bool,
    /// Messages posted and not yet completed.
    pub held_messages: u32,
    /// Messages cut (sent or dropped) since `configure`.
    pub messages: u32,
    /// Messages dropped whole for want of room.
    pub dropped_overflow: u32,
    /// Messages dropped for a beat with bytes missing in their middle.
    pub dropped_partial_beat: u32,
    /// Messages posted.
    pub posted: u32,
    /// Messages completed.
    pub completed: u32,
    /// Messages completed with an error.
    pub failed: u32,
    /// Messages given up (their post refused).
    pub refused_posts: u32,
    /// The next message's sequence number.
    pub next_sequence: u32,
    /// The next message's slot.
    pub next_slot: u32,
    /// Buffer beats held.
    pub held_beats: u32,
}

/// The name and meaning of a `configure`, `start` or `stop` refusal code.
pub fn refusal_text(code: u8) -> String {
    match StreamRefusal::from_code(code) {
        Some(StreamRefusal::Running) => "running: the stream runs or still holds messages (stop it and let them go)".into(),
        Some(StreamRefusal::SlotNotMultipleOfBeat) => {
            "slot_not_multiple_of_beat: the slot size must be a non-zero multiple of the data path's beat".into()
        }
        Some(StreamRefusal::SlotTooLarge) => {
            "slot_too_large: the slot must fit twice in the port's buffer (`build_streams.buffer_log2`)".into()
        }
        Some(StreamRefusal::LengthBitsTooFew) => "length_bits_too_few: the immediate's length bits cannot hold a full slot's length".into(),
        Some(StreamRefusal::NotConfigured) => "not_configured: configure the stream before starting it".into(),
        Some(StreamRefusal::UnknownCommand) => "unknown_command".into(),
        Some(StreamRefusal::ChannelsNotTheStreams) => {
            "channels_not_the_streams: on a stream bus each stream posts on channels of its own, from channel_base + 4 × stream, 1, 2 or 4 of them".into()
        }
        None => format!("code {code}"),
    }
}

/// The command's name as the tool spells it.
pub fn command_name(command: StreamCommand) -> &'static str {
    match command {
        StreamCommand::Configure => "configure",
        StreamCommand::Start => "start",
        StreamCommand::Stop => "stop",
    }
}

/// The stream block of a device.
pub struct Streams<'a> {
    bus: &'a mut dyn Bus,
    map: &'a Map,
}

/// The `pace_cost` register value for `rate` payload bytes per second on an engine clocked at
/// `clock_hz` (cycles per byte, 24 fraction bits), or why the rate cannot be paced: 0, or below
/// `clock_hz / 256` (256 cycles a byte, the most the register holds).
pub fn pace_cost_for(rate: u64, clock_hz: u64) -> Result<u32, String> {
    if rate == 0 {
        return Err("a rate of 0 bytes per second sends nothing: leave --rate out to not pace".into());
    }
    u32::try_from(ferroce_contracts::sched::pace_cost(rate, clock_hz)).map_err(|_| {
        format!(
            "a rate of {rate} bytes per second is below the pacer's least, {} at {clock_hz} Hz (256 cycles a byte)",
            clock_hz.div_ceil(256)
        )
    })
}

impl<'a> Streams<'a> {
    /// The streams of the device behind `bus`, whose map is `map`.
    pub fn new(bus: &'a mut dyn Bus, map: &'a Map) -> Streams<'a> {
        Streams { bus, map }
    }

    /// Stream ports the build has.
    pub fn count(&self) -> u32 {
        self.map.config.streams
    }

    fn invalid(&self, message: String) -> Error {
        self.bus.error(None, Cause::Invalid(message))
    }

    fn check_index(&self, index: u32) -> Result<(), Error> {
        match self.count() {
            0 => Err(self.invalid("this build has no stream ports".into())),
            n if index >= n => Err(self.invalid(format!("stream {index}: the build has {n} streams (0 to {})", n - 1))),
            _ => Ok(()),
        }
    }

    /// The pacers' `pace_cost` register (the engine's; the scheduler build has no pacers).
    fn pace_cost(&self) -> Result<&'a Register, Error> {
        let map: &'a Map = self.map;
        map.get("pace_cost")
            .ok_or_else(|| self.invalid("this build has no queue pacers (pace_cost)".into()))
    }

    fn address(&self, index: u32, register: &str) -> u32 {
        let r = self.map.reg(register);
        debug_assert_eq!(r.stride, STREAM_STRIDE);
        r.address(index)
    }

    fn value(&self, register: &str, fields: &[(&str, u32)]) -> u32 {
        let r = self.map.reg(register);
        fields
            .iter()
            .fold(0, |v, (name, value)| r.field(name).expect("stream field").set(v, *value))
    }

    fn field(&self, register: &str, field: &str, value: u32) -> u32 {
        self.map.reg(register).field(field).expect("stream field").get(value)
    }

    /// Refuses settings the device would refuse for reasons the host can see.
    pub fn check(&self, settings: &StreamSettings) -> Result<(), String> {
        let s = settings;
        if s.slot_bytes == 0 || !s.slot_bytes.is_multiple_of(4) || s.slot_bytes > MAX_SLOT_BYTES {
            return Err(format!("slot of {} bytes: a multiple of 4 bytes, 4 B to 1 MiB", s.slot_bytes));
        }
        let buffer = self.map.config.stream_buffer_bytes;
        if s.slot_bytes > buffer / 2 {
            return Err(format!(
                "slot of {} bytes: at most half a stream port's buffer, {} KiB in this build",
                s.slot_bytes,
                buffer / 2048
            ));
        }
        if !(1..=MAX_SLOTS).contains(&s.slots) {
            return Err(format!("{} slots: 1 to {MAX_SLOTS}", s.slots));
        }
        if ![1, 2, 4].contains(&s.channels) || !s.first_channel.is_multiple_of(s.channels) {
            return Err(format!(
                "{} channels from {}: 1, 2 or 4, the first a multiple of the count",
                s.channels, s.first_channel
            ));
        }
        if s.first_channel + s.channels > self.map.config.channels {
            return Err(format!(
                "channels {} to {}: the build has {}",
                s.first_channel,
                s.first_channel + s.channels - 1,
                self.map.config.channels
            ));
        }
        if s.qp >= self.map.config.qps {
            return Err(format!("QP {}: the build has {}", s.qp, self.map.config.qps));
        }
        if !(1..self.map.config.queues).contains(&s.queue) {
            return Err(format!(
                "queue {}: 1 to {} (0 is the control class)",
                s.queue,
                self.map.config.queues - 1
            ));
        }
        if s.solicited_every > 0xFFFF {
            return Err(format!("solicited every {}: at most 65535", s.solicited_every));
        }
        if let Some(bits) = s.end_at_tlast {
            if bits > 32 || (bits != 0 && u64::from(s.slot_bytes) >> bits != 0) {
                return Err(format!("{bits} length bits cannot hold a slot of {} bytes", s.slot_bytes));
            }
        }
        Ok(())
    }

    /// Writes stream `index`'s settings and applies them (`configure`). Refused before any
    /// write when [`Streams::check`] refuses them; a refusal of the device is an error that
    /// names its reason.
    pub fn set(&mut self, index: u32, settings: &StreamSettings) -> Result<(), Error> {
        self.check_index(index)?;
        self.check(settings).map_err(|m| self.invalid(format!("stream {index}: {m}")))?;
        let words = settings.register_words(self.map);
        for (register, value) in words {
            let address = self.address(index, register);
            self.bus.write32(address, value)?;
        }
        self.command(index, StreamCommand::Configure)
    }

    /// Paces scheduler queue `queue` (every stream and post on it) at `rate` payload bytes per
    /// second on an engine clocked at `clock_hz`, a packet at a time (`None`: not paced); returns
    /// the cost written to `pace_cost`. A rate [`pace_cost_for`] refuses writes nothing.
    pub fn pace(&mut self, queue: u32, rate: Option<u64>, clock_hz: u64) -> Result<u32, Error> {
        let register = self.pace_cost()?;
        if queue >= register.count {
            return Err(self.invalid(format!("queue {queue}: the build has {} queues", register.count)));
        }
        let cost = match rate {
            None => 0,
            Some(r) => pace_cost_for(r, clock_hz).map_err(|m| self.invalid(m))?,
        };
        self.bus.write32(register.address(queue), cost)?;
        Ok(cost)
    }

    /// The data queues in the same table of the scheduler as `queue` (high or low, from
    /// `queue_config`) that are not paced (`pace_cost` 0). Weighted round robin counts
    /// decisions: a paced queue skipped while paused waits out their turns of the round, so
    /// bulk traffic on them delays its packets (docs/sched.md, "Pacing").
    pub fn unpaced_table_mates(&mut self, queue: u32) -> Result<Vec<u32>, Error> {
        let costs = self.pace_cost()?;
        let config = self.map.reg("queue_config");
        let table = |word: u32| ferroce_contracts::sched::QUEUE_CONFIG.decode(&[word], "high_table");
        let own = table(self.bus.read32(config.address(queue))?);
        let mut mates = Vec::new();
        for q in (1..config.count).filter(|&q| q != queue) {
            if table(self.bus.read32(config.address(q))?) == own && self.bus.read32(costs.address(q))? == 0 {
                mates.push(q);
            }
        }
        Ok(mates)
    }

    /// Sends `command` to stream `index`; a refusal is an error that names its reason.
    pub fn command(&mut self, index: u32, command: StreamCommand) -> Result<(), Error> {
        self.check_index(index)?;
        let address = self.address(index, "stream_command");
        let value = self.value("stream_command", &[("code", command as u32)]);
        self.bus.write32(address, value)?;
        let status = self.status(index)?;
        match status.refused {
            None => Ok(()),
            Some(code) => Err(self.invalid(format!("stream {index}: {} refused: {}", command_name(command), refusal_text(code)))),
        }
    }

    /// Starts stream `index` taking data.
    pub fn start(&mut self, index: u32) -> Result<(), Error> {
        self.command(index, StreamCommand::Start)
    }

    /// Stops stream `index` once its message in progress has ended (the messages it holds still go).
    pub fn stop(&mut self, index: u32) -> Result<(), Error> {
        self.command(index, StreamCommand::Stop)
    }

    /// Stream `index`'s state and counters.
    pub fn status(&mut self, index: u32) -> Result<StreamStatus, Error> {
        self.check_index(index)?;
        let mut read = |register: &str| -> Result<u32, Error> {
            let address = self.map.reg(register).address(index);
            self.bus.read32(address)
        };
        let state = read("stream_state")?;
        let mut status = StreamStatus {
            messages: read("stream_messages")?,
            dropped_overflow: read("stream_dropped_overflow")?,
            dropped_partial_beat: read("stream_dropped_partial_beat")?,
            posted: read("stream_posted")?,
            completed: read("stream_completed")?,
            failed: read("stream_failed")?,
            refused_posts: read("stream_refused")?,
            next_sequence: read("stream_next_sequence")?,
            next_slot: read("stream_next_slot")?,
            held_beats: read("stream_held_beats")?,
            ..StreamStatus::default()
        };
        let result = self.field("stream_state", "result", state) as u8;
        status.refused = (result != 0).then_some(result);
        status.running = self.field("stream_state", "running", state) != 0;
        status.configured = self.field("stream_state", "configured", state) != 0;
        status.held_messages = self.field("stream_state", "held_messages", state);
        Ok(status)
    }
}
