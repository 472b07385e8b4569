//! Runner of the stream set's Verilator models (`ferroce_stream_set_s2_w64`, `_s8_w512`, top
//! `stream_set`) and of the stream bus's set (`ferroce_stream_bus_set_s8_w64`, `_s256_w512`,
//! top `stream_bus_set`: the same registers, the streams' packets on one bus), used by their
//! co-simulations (`sim/tests/stream_set_cosim.rs`, `sim/tests/stream_bus_set_cosim.rs`).
//!
//! [`run`] programs streams over AXI4-Lite from the register map (`ferroce_contracts::regs`,
//! block `stream`), checks the answers the map promises (DECERR, SLVERR, settings read back,
//! the `running` refusal of `configure`), starts the streams and feeds each with random bytes under
//! random idle. A stand-in for the TX path takes posts under random backpressure, answers
//! them in order (now and then "channel busy"), reads each accepted message from the window
//! in packets, and completes it. Each stream's posts must be the golden model's messages
//! (`ferroce_models::stream::StreamCutter`) posted as `StreamTarget::post` does, and the bytes
//! read from the window each message's bytes; host posts pass through with their results.

use crate::engine_rtl::EngineHost;
use crate::models::contracts::regs::{Config, Map, STREAM_BLOCK, STREAM_STRIDE};
use crate::models::contracts::stream::{bus_first_channel, StreamCommand, StreamRefusal, MESSAGE_OP};
use crate::models::contracts::tx::{PostError, POST};
use crate::models::stream::{ImmediateFormat, MessageEnd, StreamConfig, StreamCutter, StreamMessage};
use crate::regs_rtl::{AxiLiteMaster, Request};
use crate::stream_feed::{BusPackets, StreamSources};
use crate::verilated::{Model, SimError, Traffic};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::VecDeque;

/// The co-simulated variants: (variant, streams, bytes per beat, buffer beats).
pub const VARIANTS: [(&str, usize, u32, u32); 2] = [("s2_w64", 2, 8, 4096), ("s8_w512", 8, 64, 512)];
/// The co-simulated variants of the stream bus's set (`stream_bus_set`): (variant, streams,
/// bytes per beat, beats of a stream's region).
pub const BUS_VARIANTS: [(&str, usize, u32, u32); 2] = [("s8_w64", 8, 8, 512), ("s256_w512", 256, 64, 256)];
/// Cycles without progress before a run is an error.
pub const PROGRESS_LIMIT: u64 = 20_000;
/// Largest packet the stand-in reads at once.
const PACKET_BYTES: u64 = 1024;

/// What a run did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SetRun {
    /// Messages posted and read, per stream.
    pub messages: Vec<u64>,
    /// Post attempts answered "channel busy".
    pub busy: u64,
    /// Host posts passed through.
    pub host_posts: u64,
    /// Cycles of the streaming part.
    pub cycles: u64,
}

/// A stream set's model with an AXI4-Lite master on its register port (for host tools).
pub struct Bench {
    m: Model,
    master: AxiLiteMaster,
    rng: ChaCha8Rng,
    cycle: u64,
    map: Map,
}

impl Bench {
    /// The model of `variant` after reset, blocks of 64 KiB, the master with `traffic`'s idle
    /// and backpressure.
    pub fn open(variant: &str, traffic: &Traffic) -> Result<Bench, String> {
        let &(_, streams, _, _) = VARIANTS.iter().find(|v| v.0 == variant).ok_or(format!("no variant {variant}"))?;
        let e = |e: SimError| e.to_string();
        let mut m = Model::new(&format!("ferroce_stream_set_{variant}")).map_err(e)?;
        let master = AxiLiteMaster::new(&mut m, traffic.idle_pct, traffic.bp_pct).map_err(e)?;
        let mut b = Bench {
            m,
            master,
            rng: ChaCha8Rng::seed_from_u64(traffic.seed),
            cycle: 0,
            map: Map::new(Config {
                streams: streams as u32,
                ..Config::DEFAULT
            }),
        };
        b.m.reset(2);
        Ok(b)
    }

    fn port(&self, name: &str) -> usize {
        self.m.port(name).unwrap_or_else(|e| panic!("{e}"))
    }

    /// One AXI4-Lite transaction, nothing else moving: (response, data).
    fn transaction(&mut self, request: Request) -> Result<(u8, u32), String> {
        let tag = self.master.push(request);
        let start = self.cycle;
        loop {
            self.master.drive(&mut self.m, &mut self.rng);
            self.m.eval();
            self.master.sample(&mut self.m, self.cycle).map_err(|e| e.to_string())?;
            self.m.tick();
            self.cycle += 1;
            if let Some(a) = self.master.answers.iter().find(|a| a.request == tag) {
                return Ok((a.resp, a.data));
            }
            if self.cycle - start > 200 {
                return Err(format!("{request:?}: no answer in 200 cycles"));
            }
        }
    }

    fn address(&self, stream: usize, register: &str) -> u32 {
        self.map.reg(register).address(stream as u32)
    }

    fn write(&mut self, stream: usize, register: &str, value: u32) -> Result<u8, String> {
        let address = self.address(stream, register);
        Ok(self.transaction(Request::write(address, value, 0xF))?.0)
    }

    fn read(&mut self, stream: usize, register: &str) -> Result<u32, String> {
        let address = self.address(stream, register);
        match self.transaction(Request::read(address))? {
            (0, data) => Ok(data),
            (resp, _) => Err(format!("read of {register}[{stream}]: response {resp}")),
        }
    }

    /// A field of a register's value.
    fn field(&self, register: &str, field: &str, value: u32) -> u32 {
        self.map.reg(register).field(field).expect("field").get(value)
    }

    /// A command; its result code.
    fn command(&mut self, stream: usize, command: StreamCommand) -> Result<u32, String> {
        let resp = self.write(stream, "stream_command", command as u32)?;
        if resp != 0 {
            return Err(format!("command {command:?} to stream {stream}: response {resp}"));
        }
        let state = self.read(stream, "stream_state")?;
        Ok(self.field("stream_state", "result", state))
    }

    /// Writes a stream's settings (a register value per field, as the map places them).
    fn settings(&mut self, stream: usize, config: &StreamConfig, first_channel: u32, channels: u32, queue: u32) -> Result<(), String> {
        let set = |map: &Map, register: &str, fields: &[(&str, u32)]| {
            let r = map.reg(register);
            fields
                .iter()
                .fold(0, |v, (name, value)| r.field(name).expect("field").set(v, *value))
        };
        let values = [
            ("stream_slot", set(&self.map, "stream_slot", &[("slot_bytes", config.slot_bytes)])),
            (
                "stream_ring",
                set(
                    &self.map,
                    "stream_ring",
                    &[("last_slot", config.slots - 1), ("solicited_every", config.solicited_every)],
                ),
            ),
            (
                "stream_format",
                set(
                    &self.map,
                    "stream_format",
                    &[("slot_and_wrap", u32::from(config.immediate == ImmediateFormat::SlotAndWrap))],
                ),
            ),
            (
                "stream_target",
                set(&self.map, "stream_target", &[("qp", config.qp), ("queue", queue)]),
            ),
            (
                "stream_channels",
                set(
                    &self.map,
                    "stream_channels",
                    &[("first_channel", first_channel), ("channel_mask", channels - 1)],
                ),
            ),
            ("stream_va_low", config.base_va as u32),
            ("stream_va_high", (config.base_va >> 32) as u32),
        ];
        for (register, value) in values {
            if self.write(stream, register, value)? != 0 {
                return Err(format!("write of {register}[{stream}] refused"));
            }
            let back = self.read(stream, register)?;
            if back != value {
                return Err(format!("{register}[{stream}] reads {back:#x}, {value:#x} written"));
            }
        }
        Ok(())
    }
}

impl EngineHost for Bench {
    fn map(&self) -> &Map {
        &self.map
    }

    fn label(&self) -> String {
        "the stream set".into()
    }

    fn transact(&mut self, request: Request) -> Result<(u8, u32), String> {
        self.transaction(request)
    }
}

/// One stream of the run: its model's messages and where the stand-in is with them.
struct Stream {
    config: StreamConfig,
    first_channel: u32,
    channels: u32,
    queue: u32,
    window_base: u64,
    bytes: Vec<u8>,
    messages: Vec<StreamMessage>,
    /// Posts accepted (the next message to be posted).
    posted: usize,
    completed: usize,
}

/// A read of the window in flight: the message, its stream and where its bytes start.
struct Read {
    stream: usize,
    message: usize,
    /// The window address read.
    address: u64,
    /// Where the read starts in its message.
    in_message: usize,
    length: usize,
    /// The message's last packet (it completes the message).
    last: bool,
}

/// Runs the register checks and `messages` messages on each of the first `used` streams of
/// the stream set's `variant` under `traffic`.
pub fn run(variant: &str, used: usize, messages: usize, traffic: &Traffic) -> Result<SetRun, String> {
    let &(_, streams, beat_bytes, buffer_beats) = VARIANTS.iter().find(|v| v.0 == variant).ok_or(format!("no variant {variant}"))?;
    run_on(
        "ferroce_stream_set",
        variant,
        None,
        (streams, beat_bytes, buffer_beats),
        used,
        messages,
        traffic,
    )
}

/// Runs the register checks and `messages` messages on each of the first `used` streams of
/// the stream bus's set's `variant` under `traffic`: the streams' packets interleaved on the
/// bus, their channels from 4 × streams (`bus_first_channel`), and a `configure` with another
/// first channel refused.
pub fn run_bus(variant: &str, used: usize, messages: usize, traffic: &Traffic) -> Result<SetRun, String> {
    let &(_, streams, beat_bytes, region_beats) = BUS_VARIANTS
        .iter()
        .find(|v| v.0 == variant)
        .ok_or(format!("no variant {variant}"))?;
    let channel_base = 4 * streams as u32;
    run_on(
        "ferroce_stream_bus_set",
        variant,
        Some(channel_base),
        (streams, beat_bytes, region_beats),
        used,
        messages,
        traffic,
    )
}

/// The run of [`run`] and [`run_bus`] on the module `prefix_variant` of `streams` streams,
/// `beat_bytes` bytes a beat and `buffer_beats` beats a stream's buffer (or region), a bus's
/// when `channel_base` is given.
fn run_on(
    prefix: &str,
    variant: &str,
    channel_base: Option<u32>,
    (streams, beat_bytes, buffer_beats): (usize, u32, u32),
    used: usize,
    messages: usize,
    traffic: &Traffic,
) -> Result<SetRun, String> {
    assert!(used <= streams);
    let e = |e: SimError| e.to_string();
    let mut m = Model::new(&format!("{prefix}_{variant}")).map_err(e)?;
    let master = AxiLiteMaster::new(&mut m, traffic.idle_pct, traffic.bp_pct).map_err(e)?;
    let map = Map::new(Config {
        streams: streams as u32,
        ..Config::DEFAULT
    });
    let mut b = Bench {
        m,
        master,
        rng: ChaCha8Rng::seed_from_u64(traffic.seed),
        cycle: 0,
        map,
    };
    if let Some(base) = channel_base {
        let port = b.port("channel_base");
        b.m.set_u64(port, u64::from(base));
    }
    b.m.reset(2);
    // a bus's set clears its streams' settings, a stream a cycle, before it answers
    b.m.step(streams as u64 + 4);
    b.cycle += streams as u64 + 4;

    // ---- the map's answers ----
    let outside = STREAM_BLOCK + streams as u32 * STREAM_STRIDE;
    if b.transaction(Request::read(outside))?.0 != 3 {
        return Err("a read past the last stream is not DECERR".into());
    }
    if b.transaction(Request::read(STREAM_BLOCK + 0x7C))?.0 != 3 {
        return Err("a read of a word that is no register is not DECERR".into());
    }
    let messages_address = b.address(0, "stream_messages");
    if b.transaction(Request::write(messages_address, 1, 0xF))?.0 != 2 {
        return Err("a write of a read-only register is not SLVERR".into());
    }

    // ---- each stream's settings, refusals, configure and start ----
    let mut set: Vec<Stream> = Vec::new();
    for s in 0..used {
        // any multiple of the beat, anywhere (each message is one WRITE wherever the blocks fall)
        let slot_bytes = beat_bytes * b.rng.gen_range(1..=16u32);
        let config = StreamConfig {
            qp: 10 + s as u32,
            base_va: 0x1_0000_0000 * (s as u64 + 1) + u64::from(beat_bytes) * b.rng.gen_range(0..4u64),
            rkey: 0,
            slot_bytes,
            slots: b.rng.gen_range(1..=5),
            immediate: if b.rng.gen_bool(0.5) {
                ImmediateFormat::SlotAndWrap
            } else {
                ImmediateFormat::Sequence
            },
            end: MessageEnd::Slot,
            solicited_every: b.rng.gen_range(0..=3),
            rate_bytes_per_second: 1,
        };
        let channels = [1, 2, 4][b.rng.gen_range(0..3)];
        let queue = 1 + s as u32 % 4;
        let first_channel = channel_base.map_or(8 * s as u32, |base| bus_first_channel(base, s as u32));
        if channel_base.is_some() && s == 0 {
            // on a bus a stream's channels are its own: another first channel is refused
            b.settings(s, &config, first_channel + 4, channels, queue)?;
            let result = b.command(s, StreamCommand::Configure)?;
            if result != u32::from(StreamRefusal::ChannelsNotTheStreams.code()) {
                return Err(format!("stream {s}: configure on another stream's channels answered {result}"));
            }
        }
        b.settings(s, &config, first_channel, channels, queue)?;
        for (command, want) in [
            (StreamCommand::Configure, 0),
            (StreamCommand::Start, 0),
            (StreamCommand::Configure, u32::from(StreamRefusal::Running.code())),
        ] {
            let result = b.command(s, command)?;
            if result != want {
                return Err(format!("stream {s}: {command:?} answered {result}, expected {want}"));
            }
        }
        let state = b.read(s, "stream_state")?;
        if b.field("stream_state", "running", state) != 1 || b.field("stream_state", "configured", state) != 1 {
            return Err(format!("stream {s}: state {state:#x} after start"));
        }
        let bytes: Vec<u8> = (0..slot_bytes as usize * messages).map(|_| b.rng.gen()).collect();
        let mut cutter = StreamCutter::new(config).map_err(|e| e.to_string())?;
        let cut = cutter.push(&bytes, false);
        let window_base = (1 << 63) | (s as u64 * 2 * u64::from(buffer_beats) * u64::from(beat_bytes));
        set.push(Stream {
            config,
            first_channel,
            channels,
            queue,
            window_base,
            bytes,
            messages: cut,
            posted: 0,
            completed: 0,
        });
    }

    // ---- streaming: the sources, the TX path stand-in, host posts ----
    let p = |name: &str| b.port(name);
    let tvalid = p("s_axis_tvalid");
    let (post_valid, post_ready, post_entry) = (p("m_post_valid"), p("m_post_ready"), p("m_post_entry"));
    let (result_valid, result_code) = (p("m_post_result_valid"), p("m_post_result_code"));
    let (host_valid, host_ready, host_entry) = (p("s_post_valid"), p("s_post_ready"), p("s_post_entry"));
    let (host_result_valid, host_result_code) = (p("s_post_result_valid"), p("s_post_result_code"));
    let (cpl_valid, cpl_channel, cpl_status) = (p("cpl_valid"), p("cpl_channel"), p("cpl_status"));
    let (read_valid, read_ready, read_addr, read_len) = (p("s_read_valid"), p("s_read_ready"), p("s_read_addr"), p("s_read_len"));
    let (pay_valid, pay_ready, pay_data, pay_last) = (p("m_pay_tvalid"), p("m_pay_tready"), p("m_pay_tdata"), p("m_pay_tlast"));
    let mut feed = StreamSources::new(
        &mut b.m,
        "s_axis",
        streams,
        beat_bytes as usize,
        BusPackets::UpTo(8),
        traffic.idle_pct,
    )
    .map_err(e)?;
    for (s, stream) in set.iter().enumerate() {
        feed.push(s, &stream.bytes, false);
    }
    let mut run = SetRun::default();
    let mut answers: VecDeque<(u64, u64, bool)> = VecDeque::new(); // (cycle, code, the host's)
    let mut reads: VecDeque<Read> = VecDeque::new();
    let mut issued: VecDeque<Read> = VecDeque::new();
    let mut received: Vec<u8> = Vec::new();
    let mut completions: VecDeque<(u64, u32)> = VecDeque::new();
    let host_posts = 6u64;
    let mut host_presenting: Option<Vec<u32>> = None;
    let mut host_sent = 0u64;
    let mut host_answered = 0u64;
    let start = b.cycle;
    let mut last_progress = b.cycle;
    let total: usize = set.iter().map(|s| s.messages.len()).sum();
    loop {
        let done: usize = set.iter().map(|s| s.completed).sum();
        if done == total && completions.is_empty() && host_answered == host_posts {
            break;
        }
        let cycle = b.cycle;
        // the sources: a beat per stream now and then
        feed.drive(&mut b.m, &mut b.rng);
        // host posts: a SEND on a channel of its own now and then
        if host_presenting.is_none() && host_sent < host_posts && b.rng.gen_range(0..100) < 2 {
            let entry = POST
                .encode(&[
                    ("channel", 1000 + u128::from(host_sent)),
                    ("op", 0),
                    ("qp", 3),
                    ("length", 100 + u128::from(host_sent)),
                ])
                .map_err(|e| format!("{e:?}"))?;
            host_presenting = Some(entry);
        }
        b.m.set_u64(host_valid, u64::from(host_presenting.is_some()));
        if let Some(entry) = &host_presenting {
            b.m.set(host_entry, entry);
        }
        // the stand-in's post port, results, completions, window reads
        let ready = b.rng.gen_range(0..100) >= traffic.bp_pct;
        b.m.set_u64(post_ready, u64::from(ready));
        let answer = answers.front().filter(|a| a.0 <= cycle).copied();
        b.m.set_u64(result_valid, u64::from(answer.is_some()));
        b.m.set_u64(result_code, answer.map_or(0, |a| a.1));
        let completion = completions.front().filter(|c| c.0 <= cycle).copied();
        b.m.set_u64(cpl_valid, u64::from(completion.is_some()));
        b.m.set_u64(cpl_channel, completion.map_or(0, |c| u64::from(c.1)));
        b.m.set_u64(cpl_status, 0);
        if let Some(read) = reads.front() {
            b.m.set_u64(read_addr, read.address);
            b.m.set_u64(read_len, read.length as u64);
        }
        let read_offered = !reads.is_empty();
        b.m.set_u64(read_valid, u64::from(read_offered));
        b.m.set_u64(pay_ready, u64::from(b.rng.gen_range(0..100) >= traffic.bp_pct));
        b.master.drive(&mut b.m, &mut b.rng);
        b.m.eval();
        b.master.sample(&mut b.m, cycle).map_err(|e| e.to_string())?;

        // ---- sample ----
        let pending = feed.pending();
        feed.sample(&mut b.m);
        if feed.pending() < pending {
            last_progress = cycle;
        }
        if host_presenting.is_some() && b.m.peek_u64(host_ready) != 0 {
            host_presenting = None;
            host_sent += 1;
            last_progress = cycle;
        }
        if answer.is_some() {
            answers.pop_front();
        }
        if b.m.peek_u64(host_result_valid) != 0 {
            if b.m.peek_u64(host_result_code) != u64::from(PostError::BadQueue.code()) {
                return Err(format!("cycle {cycle}: the host's post result is not the stand-in's"));
            }
            host_answered += 1;
        }
        if completion.is_some() {
            completions.pop_front();
        }
        if ready && b.m.peek_u64(post_valid) != 0 {
            let entry = b.m.peek(post_entry);
            let field = |name: &str| POST.decode(&entry, name) as u64;
            let channel = field("channel") as u32;
            if (1000..1000 + host_posts as u32).contains(&channel) {
                if field("length") != 100 + u64::from(channel - 1000) || field("op") != 0 || field("qp") != 3 {
                    return Err(format!("cycle {cycle}: the host's post on channel {channel} changed on its way"));
                }
                run.host_posts += 1;
                answers.push_back((cycle + b.rng.gen_range(1..4), u64::from(PostError::BadQueue.code()), true));
            } else {
                let s = match channel_base {
                    None => (channel / 8) as usize,
                    Some(base) => (channel.wrapping_sub(base) / 4) as usize,
                };
                let stream = set.get_mut(s).ok_or(format!("cycle {cycle}: a post on channel {channel}"))?;
                let index = stream.posted;
                let message = stream
                    .messages
                    .get(index)
                    .ok_or(format!("stream {s}: a post beyond its messages"))?;
                let want = [
                    (
                        "channel",
                        u64::from(stream.first_channel) + index as u64 % u64::from(stream.channels),
                    ),
                    ("queue", u64::from(stream.queue)),
                    ("op", u64::from(MESSAGE_OP.code())),
                    ("qp", u64::from(stream.config.qp)),
                    ("remote_addr", message.remote_va),
                    ("length", message.data.len() as u64),
                    ("immediate", u64::from(message.immediate)),
                    ("solicited", u64::from(message.solicited)),
                ];
                for (name, value) in want {
                    if field(name) != value {
                        let got = field(name);
                        let mut counts = String::new();
                        for register in [
                            "stream_messages",
                            "stream_dropped_overflow",
                            "stream_dropped_partial_beat",
                            "stream_refused",
                        ] {
                            counts += &format!(", {register} {}", b.read(s, register)?);
                        }
                        return Err(format!(
                            "cycle {cycle}: stream {s} message {index}: {name} {got:#x}, the model's {value:#x}{counts}"
                        ));
                    }
                }
                let local = field("local_addr");
                if local & !(2 * u64::from(buffer_beats * beat_bytes) - 1) != stream.window_base {
                    return Err(format!("cycle {cycle}: stream {s}: local address {local:#x} outside its window"));
                }
                let busy = b.rng.gen_range(0..100) < 10;
                let code = if busy { u64::from(PostError::ChannelBusy.code()) } else { 0 };
                answers.push_back((cycle + b.rng.gen_range(1..4), code, false));
                if busy {
                    run.busy += 1;
                } else {
                    stream.posted += 1;
                    let length = message.data.len();
                    let mut offset = 0;
                    while offset < length {
                        let chunk = (length - offset).min(PACKET_BYTES as usize);
                        reads.push_back(Read {
                            stream: s,
                            message: index,
                            address: local + offset as u64,
                            in_message: offset,
                            length: chunk,
                            last: offset + chunk == length,
                        });
                        offset += chunk;
                    }
                }
                last_progress = cycle;
            }
        }
        if read_offered && b.m.peek_u64(read_ready) != 0 {
            issued.push_back(reads.pop_front().expect("a read"));
        }
        if b.m.peek_u64(pay_valid) != 0 && b.m.peek_u64(pay_ready) != 0 {
            let beat = b.m.peek(pay_data);
            received.extend(beat.iter().flat_map(|w| w.to_le_bytes()).take(beat_bytes as usize));
            if b.m.peek_u64(pay_last) != 0 {
                let read = issued.pop_front().ok_or(format!("cycle {cycle}: window data without a read"))?;
                let stream = &mut set[read.stream];
                let message = &stream.messages[read.message];
                let want = &message.data[read.in_message..read.in_message + read.length];
                if received.len() < read.length || &received[..read.length] != want {
                    return Err(format!(
                        "cycle {cycle}: stream {} message {}: window bytes {}",
                        read.stream,
                        read.message,
                        crate::axis::first_difference(&received[..read.length.min(received.len())], want)
                    ));
                }
                received.clear();
                if read.last {
                    let channel = stream.first_channel + read.message as u32 % stream.channels;
                    completions.push_back((cycle + b.rng.gen_range(2..10), channel));
                    stream.completed += 1;
                }
                last_progress = cycle;
            }
        }
        b.m.tick();
        b.cycle += 1;
        if b.cycle - last_progress > PROGRESS_LIMIT {
            let fed = feed.taken();
            let posted: Vec<usize> = set.iter().map(|s| s.posted).collect();
            let completed: Vec<usize> = set.iter().map(|s| s.completed).collect();
            return Err(format!(
                "cycle {}: no progress (fed {fed:?}, posted {posted:?}, completed {completed:?}, {} reads waiting, {} issued, {} bytes received, {} completions due, host posts {host_sent} sent, {} passed, {host_answered} answered)",
                b.cycle,
                reads.len(),
                issued.len(),
                received.len(),
                completions.len(),
                run.host_posts
            ));
        }
    }
    run.cycles = b.cycle - start;
    for _ in 0..20 {
        b.m.set_u64(tvalid, 0);
        b.m.set_u64(cpl_valid, 0);
        b.m.set_u64(read_valid, 0);
        b.m.set_u64(host_valid, 0);
        b.m.set_u64(result_valid, 0);
        b.m.step(1);
        b.cycle += 1;
    }

    // ---- the counters, a stop ----
    for (s, stream) in set.iter().enumerate() {
        let n = stream.messages.len() as u32;
        for (register, want) in [
            ("stream_messages", n),
            ("stream_posted", n),
            ("stream_completed", n),
            ("stream_refused", 0),
            ("stream_next_sequence", n),
            ("stream_next_slot", n % stream.config.slots),
            ("stream_held_beats", 0),
        ] {
            let got = b.read(s, register)?;
            if got != want {
                return Err(format!("stream {s}: {register} {got}, expected {want}"));
            }
        }
        if b.command(s, StreamCommand::Stop)? != 0 {
            return Err(format!("stream {s}: stop refused"));
        }
        let state = b.read(s, "stream_state")?;
        if b.field("stream_state", "running", state) != 0 {
            return Err(format!("stream {s}: still running after stop"));
        }
        run.messages.push(u64::from(n));
    }
    Ok(run)
}
