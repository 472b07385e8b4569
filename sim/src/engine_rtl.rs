//! The engine top (`ferroce_engine_*`) in Verilator, driven only through its ports as a system
//! drives it: the host over AXI4-Lite ([`AxiLiteMaster`]: QP contexts, regions, receive
//! buffers, posts, polls, receive completions, counters, all by register name from the map),
//! a local memory behind its read side (`m_read`, `s_pay`: [`Memory`]) and its write side
//! (`m_cmd`, `m_wr`), the MAC. [`EnginePair`] puts two engines back to back (A's MAC TX to B's
//! MAC RX and back, through queues of beats) and clocks both together; its co-simulation is
//! `sim/tests/engine_cosim.rs`. A lossy wire ([`EnginePair::set_faults`]) takes each frame
//! whole and lets a [`FaultInjector`] lose, duplicate, hold back or corrupt it.
//!
//! Every stream around an engine draws random backpressure and has its AXI rules checked
//! ([`crate::axis`]); memory reads answer with random latency and stalls. Register accesses are
//! blocking: [`EnginePair::write`] and [`EnginePair::read`] run both engines until the answer.
//!
//! [`EngineLoop`] is one engine whose MAC TX comes back to its own MAC RX (a transfer from one
//! of its QPs to another of its QPs), behind `ferroce-sim serve --top engine`. Its wire is a
//! board's: the MAC TX is never held, and frames reach the RX through a buffer of the MAC
//! ingress's size that drops a frame it may not hold (as `ferroce_mac_ingress` in the board
//! tops does).

use crate::axis::{AxisPorts, Channel, FrameSink};
use crate::contracts::regs::{Config, Map, PostState, DEFAULT_STREAM_BUFFER_BYTES, MAX_STREAM_BUFFER_BYTES, POLL_CHANNELS};
use crate::contracts::responder::{receive_state, ResponderCounter, RECEIVE_COMPLETION, RECEIVE_POST};
use crate::contracts::rx::ingress::BUFFER_BYTES;
use crate::contracts::stream::{StreamCommand, StreamRefusal, StreamSettings};
use crate::contracts::tx::PostError;
use crate::faults::{FaultCounts, FaultInjector, Faults};
use crate::models::responder::MemoryRegion;
use crate::models::tx::{LocalMemory, Post, QpContext, SparseMemory};
use crate::regs_rtl::{AxiLiteMaster, Request};
use crate::stream_feed::{BusPackets, StreamSources};
use crate::tx_path_rtl::{Memory, MemoryTiming};
use crate::verilated::{Model, SimError};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::VecDeque;
use std::sync::Arc;

/// A build of the engine top: its register map's configuration and its Verilator model.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EngineVariant {
    /// The register file's configuration (channels, queues, QPs, bus width).
    pub config: Config,
    /// The variant suffix of the `engine` top.
    pub variant: &'static str,
}

impl EngineVariant {
    /// The Verilator model's name.
    pub fn model_name(&self) -> String {
        format!("ferroce_engine_{}", self.variant)
    }

    /// Whether its Verilator model is built into this binary.
    pub fn is_built(&self) -> bool {
        crate::verilated::MODELS.contains(&self.model_name().as_str())
    }

    /// The engine build `variant` (a variant of the `engine` top, as `gen-verilog --list`
    /// prints them), with its configuration.
    pub fn named(variant: &str) -> Option<EngineVariant> {
        let variant = *ferroce_hdl::tops::find("engine")?.variants.iter().find(|v| **v == variant)?;
        Some(EngineVariant {
            config: ferroce_hdl::tops::engine_config(variant),
            variant,
        })
    }

    /// The engine builds' variants, as `gen-verilog --list` prints them.
    pub fn names() -> &'static [&'static str] {
        ferroce_hdl::tops::find("engine").map_or(&[], |t| t.variants)
    }
}

/// The default engine: 512 bits, 2048 channels, 32 queues, 256 QPs (its model is built for
/// the tests).
pub const ENGINE_W512: EngineVariant = EngineVariant {
    config: Config::DEFAULT,
    variant: "c2048_q256_w512",
};

/// The 64-bit engine with 64 channels, 8 queues and 16 QPs (the ZCU102 build's).
pub const ENGINE_W64: EngineVariant = EngineVariant {
    config: Config {
        data_width: 64,
        channels: 64,
        queues: 8,
        qps: 16,
        streams: 2,
        stream_buffer_bytes: DEFAULT_STREAM_BUFFER_BYTES,
        stream_bus: false,
    },
    variant: "c64_q16_w64",
};

/// The 64-bit engine with 8 streams on one AXI-Stream, 4 KiB of buffer each (slots up to 2 KiB).
pub const ENGINE_W64_BUS8: EngineVariant = EngineVariant {
    config: Config {
        streams: 8,
        stream_buffer_bytes: 4096,
        stream_bus: true,
        ..ENGINE_W64.config
    },
    variant: "c64_q16_w64_bus8",
};

/// The default engine with 256 streams on one AXI-Stream, 16 KiB of buffer each (slots up to
/// 8 KiB).
pub const ENGINE_W512_BUS256: EngineVariant = EngineVariant {
    config: Config {
        streams: 256,
        stream_buffer_bytes: 16384,
        stream_bus: true,
        ..Config::DEFAULT
    },
    variant: "c2048_q256_w512_bus256",
};

/// The default engine with two stream ports whose 2 MiB buffers hold two 1 MiB slots each.
pub const ENGINE_W512_SLOT1M: EngineVariant = EngineVariant {
    config: Config {
        streams: 2,
        stream_buffer_bytes: MAX_STREAM_BUFFER_BYTES,
        ..Config::DEFAULT
    },
    variant: "c2048_q256_w512_slot1m",
};

/// The engines whose Verilator model is built into this binary (both by default; a build
/// with `FERROCE_SIM_TOPS` may leave one out): the default one at 512 bits and the one at 64.
pub fn built_engines() -> Vec<EngineVariant> {
    [ENGINE_W512, ENGINE_W64].into_iter().filter(EngineVariant::is_built).collect()
}

/// Bytes of the packets into which a bus build's source cuts its streams' bytes at most (each
/// packet 1 to this many, in random turns between the streams).
pub const BUS_PACKET_BYTES: usize = 1024;

/// Cycles without any handshake on either engine after which [`EnginePair::run_until`] fails.
pub const PROGRESS_LIMIT: u64 = 20_000;
/// Bytes of the longest frame a lossy wire takes whole before it passes it on: a 4,096-byte
/// payload and every header.
const LOSSY_FRAME_BYTES: usize = 4096 + 128;

/// A beat on a wire: `tdata`, `tkeep`, `tlast`.
type Beat = (Vec<u32>, Vec<u32>, bool);

/// What a receive completion read from the registers says (`RECEIVE_COMPLETION`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HostCompletion {
    /// The QP.
    pub qp: u32,
    /// `completion_kind`: 0 SEND, 1 WRITE with immediate.
    pub kind: u8,
    /// `ReceiveStatus` code.
    pub status: u8,
    /// The immediate, when the message had one.
    pub immediate: Option<u32>,
    /// The message's bytes.
    pub length: u32,
}

/// Random backpressure and memory timing around both engines.
#[derive(Debug, Clone, Copy)]
pub struct Surroundings {
    /// The local memories' read timing.
    pub memory: MemoryTiming,
    /// Percent chance per cycle that a stream into the system (`m_read`, `m_cmd`, `m_wr`,
    /// `m_pass`, the AXI4-Lite responses) is held back.
    pub bp_pct: u32,
    /// Percent chance per cycle that the AXI4-Lite master idles before a request.
    pub idle_pct: u32,
    /// Seed of the draws.
    pub seed: u64,
}

impl Surroundings {
    /// Memory reads 12 cycles late (4 in flight, stalled half as often as the streams), the
    /// streams and the AXI4-Lite master held back `bp_pct` percent of the cycles.
    pub fn stalling(seed: u64, bp_pct: u32) -> Surroundings {
        Surroundings {
            memory: MemoryTiming {
                latency: 12,
                outstanding: 4,
                stall_pct: bp_pct / 2,
            },
            bp_pct,
            idle_pct: bp_pct,
            seed,
        }
    }
}

/// One engine and everything a system puts around it.
pub struct EngineRtl {
    name: &'static str,
    pub(crate) m: Model,
    pub(crate) axil: AxiLiteMaster,
    reads: Channel,
    read_memory: Memory,
    read_latency: u64,
    commands: Channel,
    data: FrameSink,
    pass: FrameSink,
    mac: FrameSink,
    input: AxisPorts,
    output: AxisPorts,
    /// Beats on the wire into this engine.
    incoming: VecDeque<Beat>,
    /// The wire into this engine is inside a frame (its last beat not yet on it).
    incoming_mid_frame: bool,
    /// Frames put on the wire by [`EnginePair::inject`], waiting for a frame boundary.
    injected: VecDeque<Vec<Beat>>,
    presenting: bool,
    pending_commands: VecDeque<(u64, usize)>,
    written_frames: usize,
    /// Handshakes so far (progress).
    events: u64,
    /// The engine's local memory: what it sends is read from here, what it receives written.
    pub memory: SparseMemory,
    /// Where payloads to send come from (`None`: [`EngineRtl::memory`]).
    pub source: Option<Arc<dyn LocalMemory>>,
    /// Memory writes `(address, bytes)`, in order.
    pub writes: Vec<(u64, usize)>,
    /// The sources of the streams (`s_stream_*`: ports, or a bus in a bus build).
    pub streams: StreamSources,
}

impl EngineRtl {
    pub(crate) fn new(name: &'static str, variant: &EngineVariant, s: &Surroundings) -> Result<EngineRtl, String> {
        let e = |e: SimError| format!("engine {name}: {e}");
        let mut m = Model::new(&variant.model_name()).map_err(e)?;
        let input = AxisPorts::find(&m, "s_axis").map_err(e)?;
        let bytes = input.bytes_per_beat;
        let axil = AxiLiteMaster::new(&mut m, s.idle_pct, s.bp_pct).map_err(e)?;
        let reads = Channel::new(
            &m,
            "m_read",
            "m_read_valid",
            Some("m_read_ready"),
            &["m_read_addr", "m_read_len"],
            s.bp_pct,
        )
        .map_err(e)?;
        let read_memory = Memory::new(&m, s.memory, bytes).map_err(e)?;
        let commands = Channel::new(
            &m,
            "m_cmd",
            "m_cmd_valid",
            Some("m_cmd_ready"),
            &["m_cmd_address", "m_cmd_length"],
            s.bp_pct,
        )
        .map_err(e)?;
        let streams = StreamSources::new(
            &mut m,
            "s_stream",
            variant.config.streams as usize,
            bytes,
            BusPackets::UpTo((BUS_PACKET_BYTES / bytes).max(1)),
            s.idle_pct,
        )
        .map_err(e)?;
        let mut engine = EngineRtl {
            name,
            streams,
            data: FrameSink::new(&m, "m_wr", &[], s.bp_pct).map_err(e)?,
            pass: FrameSink::new(&m, "m_pass", &[], s.bp_pct).map_err(e)?,
            mac: FrameSink::new(&m, "m_axis", &[], 0).map_err(e)?,
            output: AxisPorts::find(&m, "m_axis").map_err(e)?,
            m,
            axil,
            reads,
            read_memory,
            read_latency: s.memory.latency,
            commands,
            input,
            incoming: VecDeque::new(),
            incoming_mid_frame: false,
            injected: VecDeque::new(),
            presenting: false,
            pending_commands: VecDeque::new(),
            written_frames: 0,
            events: 0,
            memory: SparseMemory::new(),
            source: None,
            writes: Vec::new(),
        };
        engine.m.set_u64(engine.input.valid, 0);
        let m = &mut engine.m;
        engine.reads.always_ready(m);
        engine.commands.always_ready(m);
        engine.data.always_ready(m);
        engine.pass.always_ready(m);
        engine.mac.always_ready(m);
        engine.m.reset(4);
        let init_done = engine.m.port("init_done").map_err(e)?;
        let mut waited = 0;
        while engine.m.get_u64(init_done) == 0 {
            engine.m.step(1);
            waited += 1;
            if waited > 1 << 16 {
                return Err(format!("engine {name}: init_done never rose"));
            }
        }
        Ok(engine)
    }

    /// The Verilator model (to look at any port).
    pub fn model(&mut self) -> &mut Model {
        &mut self.m
    }

    /// Frames this engine put on its MAC TX, in order.
    pub fn frames_out(&self) -> impl Iterator<Item = &[u8]> {
        self.mac.frames.iter().map(|f| f.bytes.as_slice())
    }

    /// Frames this engine put on its MAC TX, in order, with the cycle of each one's last beat.
    pub fn frames_out_with_cycles(&self) -> impl Iterator<Item = (&[u8], u64)> {
        self.mac.frames.iter().map(|f| (f.bytes.as_slice(), f.last_cycle))
    }

    /// Frames this engine passed to the host (`m_pass`).
    pub fn passed(&self) -> impl Iterator<Item = &[u8]> {
        self.pass.frames.iter().map(|f| f.bytes.as_slice())
    }

    /// Puts `frame` on the wire into the MAC RX, at the next frame boundary.
    pub(crate) fn inject(&mut self, frame: &[u8]) {
        let bytes = self.input.bytes_per_beat;
        let beats = frame.len().div_ceil(bytes);
        let frame: Vec<Beat> = frame
            .chunks(bytes)
            .enumerate()
            .map(|(k, chunk)| {
                let (data, keep) = crate::axis::pack_beat(chunk, bytes);
                (data, keep, k + 1 == beats)
            })
            .collect();
        self.injected.push_back(frame);
        self.flush_injected();
    }

    /// Bytes per beat of the MAC RX.
    pub(crate) fn input_bytes_per_beat(&self) -> usize {
        self.input.bytes_per_beat
    }

    /// Beats waiting on the wire into the MAC RX.
    pub(crate) fn incoming_beats(&self) -> usize {
        self.incoming.len() + self.injected.iter().map(Vec::len).sum::<usize>()
    }

    /// Handshakes so far, on every port (a count that moves while the engine works).
    pub(crate) fn events(&self) -> u64 {
        self.events
    }

    /// Takes the frames put on the MAC TX since the last call.
    pub(crate) fn take_frames_out(&mut self) -> Vec<Vec<u8>> {
        self.mac.frames.drain(..).map(|f| f.bytes).collect()
    }

    /// Takes the memory writes `(address, bytes)` made since the last call (their bytes are in
    /// [`EngineRtl::memory`] too).
    pub fn take_writes(&mut self) -> Vec<(u64, Vec<u8>)> {
        let data = self.data.frames.drain(..self.written_frames);
        let writes = self
            .writes
            .drain(..)
            .zip(data)
            .map(|((address, _), f)| (address, f.bytes))
            .collect();
        self.written_frames = 0;
        writes
    }

    /// Takes the frames passed to the host (`m_pass`) since the last call.
    pub(crate) fn take_passed(&mut self) -> Vec<Vec<u8>> {
        self.pass.frames.drain(..).map(|f| f.bytes).collect()
    }

    /// Forgets the memory write data already written (a long run keeps only `memory`).
    pub(crate) fn forget_written(&mut self) {
        self.data.frames.drain(..self.written_frames);
        self.written_frames = 0;
        self.writes.clear();
    }

    /// A beat from the other engine onto the wire into this one; injected frames follow at
    /// the next frame boundary.
    fn arrive(&mut self, beat: Beat) {
        self.incoming_mid_frame = !beat.2;
        self.incoming.push_back(beat);
        self.flush_injected();
    }

    /// Injected frames onto the wire, when it is between frames.
    fn flush_injected(&mut self) {
        if !self.incoming_mid_frame {
            while let Some(frame) = self.injected.pop_front() {
                self.incoming.extend(frame);
            }
        }
    }

    /// Drives this cycle's inputs (nothing outside holds the MAC TX but its random
    /// backpressure: a wire never does).
    pub(crate) fn drive(&mut self, rng: &mut ChaCha8Rng, cycle: u64) {
        let m = &mut self.m;
        self.axil.drive(m, rng);
        self.read_memory.drive(m, rng, cycle);
        self.reads.drive(m, rng);
        if !self.read_memory.room() {
            self.reads.hold(m);
        }
        self.commands.drive(m, rng);
        self.data.drive(m, rng);
        self.pass.drive(m, rng);
        self.mac.drive(m, rng);
        self.streams.drive(m, rng);
        let p = &self.input;
        if !self.presenting {
            match self.incoming.front() {
                Some((data, keep, last)) => {
                    m.set_u64(p.valid, 1);
                    m.set(p.data, data);
                    m.set(p.keep, keep);
                    m.set_u64(p.last, u64::from(*last));
                    self.presenting = true;
                }
                None => m.set_u64(p.valid, 0),
            }
        }
    }

    /// This cycle's handshakes; returns the beat that left on the MAC TX.
    pub(crate) fn sample(&mut self, cycle: u64) -> Result<Option<Beat>, String> {
        let name = self.name;
        let e = |e: SimError| format!("engine {name}: {e}");
        let m = &mut self.m;
        let answers = self.axil.answers.len();
        self.axil.sample(m, cycle).map_err(e)?;
        self.events += (self.axil.answers.len() - answers) as u64;
        if let Some(command) = self.reads.sample(m, cycle).map_err(e)? {
            let (address, length) = (crate::axis::value(&command[0]) as u64, command[1][0] as usize);
            let bytes = match &self.source {
                Some(source) => source.bytes(address, length),
                None => self.memory.bytes(address, length),
            };
            self.read_memory.take_command(cycle + self.read_latency, bytes);
            self.events += 1;
        }
        let in_flight = self.read_memory.in_flight();
        self.read_memory.sample(m);
        self.events += u64::from(self.read_memory.in_flight() != in_flight);
        if let Some(command) = self.commands.sample(m, cycle).map_err(e)? {
            self.pending_commands
                .push_back((crate::axis::value(&command[0]) as u64, command[1][0] as usize));
            self.events += 1;
        }
        self.events += u64::from(self.data.sample(m, cycle).map_err(e)?);
        self.events += u64::from(self.pass.sample(m, cycle).map_err(e)?);
        while self.written_frames < self.data.frames.len() && !self.pending_commands.is_empty() {
            let (address, length) = self.pending_commands.pop_front().expect("a command");
            let bytes = &self.data.frames[self.written_frames].bytes;
            if bytes.len() != length {
                return Err(format!(
                    "engine {name}: a write command of {length} bytes at {address:#x} got {} bytes of data",
                    bytes.len()
                ));
            }
            self.memory.write(address, bytes);
            self.writes.push((address, length));
            self.written_frames += 1;
        }
        let pending = self.streams.pending();
        self.streams.sample(m);
        self.events += u64::from(self.streams.pending() != pending);
        let p = &self.input;
        if self.presenting && m.peek_u64(p.ready) != 0 {
            self.incoming.pop_front();
            self.presenting = false;
            self.events += 1;
        }
        let out = &self.output;
        if self.mac.sample(m, cycle).map_err(e)? {
            self.events += 1;
            return Ok(Some((m.peek(out.data), m.peek(out.keep), m.peek_u64(out.last) != 0)));
        }
        Ok(None)
    }
}

/// The answer to request `index`, the last one `master` got (transactions are blocking: one at
/// a time per engine, so no search through a long-running server's answers).
pub(crate) fn answer_of(master: &AxiLiteMaster, index: usize) -> Result<(u8, u32), String> {
    match master.answers.last() {
        Some(a) if a.request == index => Ok((a.resp, a.data)),
        a => Err(format!("request {index}: the last answer is {a:?}")),
    }
}

/// What a host does with an engine over AXI4-Lite, by register name from the map: every
/// access blocks (the engine runs) until its answer. Implemented for one engine of an
/// [`EnginePair`] ([`PairHost`]) and for the engine of a [`crate::wire_bridge::WireBridge`].
pub trait EngineHost {
    /// The register map the engine implements.
    fn map(&self) -> &Map;
    /// Which engine, for error messages.
    fn label(&self) -> String;
    /// One AXI4-Lite transaction, the engine running until its answer: `(resp, data)`.
    fn transact(&mut self, request: Request) -> Result<(u8, u32), String>;

    /// The address of register `name`, element `index`.
    fn address(&self, name: &str, index: u32) -> Result<u32, String> {
        let r = self.map().get(name).ok_or_else(|| format!("no register {name}"))?;
        if index >= r.count {
            return Err(format!("{name}[{index}]: the register has {} elements", r.count));
        }
        Ok(r.address(index))
    }

    /// Writes register `name` (element `index`); an error unless the answer is OKAY.
    fn write(&mut self, name: &str, index: u32, value: u32) -> Result<(), String> {
        let address = self.address(name, index)?;
        let (resp, _) = self.transact(Request::write(address, value, 0xf))?;
        match resp {
            0 => Ok(()),
            r => Err(format!("{}: write of {value:#x} to {name}[{index}] answered {r}", self.label())),
        }
    }

    /// Reads register `name` (element `index`); an error unless the answer is OKAY.
    fn read(&mut self, name: &str, index: u32) -> Result<u32, String> {
        let address = self.address(name, index)?;
        let (resp, data) = self.transact(Request::read(address))?;
        match resp {
            0 => Ok(data),
            r => Err(format!("{}: read of {name}[{index}] answered {r}", self.label())),
        }
    }

    /// Sets the engine's own MAC and IPv4 address (`local_mac_*`, `local_ipv4`).
    fn set_local_address(&mut self, mac: [u8; 6], ipv4: std::net::Ipv4Addr) -> Result<(), String> {
        self.write("local_mac_low", 0, u32::from_be_bytes([mac[2], mac[3], mac[4], mac[5]]))?;
        self.write("local_mac_high", 0, u32::from(u16::from_be_bytes([mac[0], mac[1]])))?;
        self.write("local_ipv4", 0, u32::from(ipv4))
    }

    /// Writes QP `qp`'s context: every word but word 0, then word 0 (which commits it).
    fn commit(&mut self, qp: u32, context: &QpContext) -> Result<(), String> {
        let words = context.to_words().map_err(|e| format!("QP context: {e}"))?;
        for (w, &word) in words.iter().enumerate().skip(1).chain(words.iter().enumerate().take(1)) {
            self.write(&format!("qp_word{w}"), qp, word)?;
        }
        Ok(())
    }

    /// Writes `region` into the memory region table (its entry is its R_Key's index).
    fn add_region(&mut self, region: &MemoryRegion) -> Result<(), String> {
        for (w, &word) in region.words().iter().enumerate() {
            self.write(&format!("region_word{w}"), 0, word)?;
        }
        self.write("region_write", 0, crate::contracts::responder::region_index(region.rkey))
    }

    /// Posts a receive buffer; `Ok(true)` when accepted, `Ok(false)` when refused (queue full).
    fn post_receive(&mut self, qp: u32, address: u64, length: u32) -> Result<bool, String> {
        self.post_receive_staged(qp, address, length, &mut None)
    }

    /// Posts a receive buffer as [`EngineHost::post_receive`] does, writing only the receive
    /// words that differ from `staged` (what the last post left in the register file; `None`:
    /// unknown), which it then holds: a host that posts the same buffer again rings the post
    /// register alone.
    fn post_receive_staged(&mut self, qp: u32, address: u64, length: u32, staged: &mut Option<Vec<u32>>) -> Result<bool, String> {
        let words = RECEIVE_POST
            .encode(&[
                ("qp", u128::from(qp)),
                ("length", u128::from(length)),
                ("address", u128::from(address)),
            ])
            .map_err(|e| format!("receive post: {e}"))?;
        for (w, &word) in words.iter().enumerate() {
            if staged.as_ref().is_none_or(|s| s[w] != word) {
                self.write(&format!("receive_word{w}"), 0, word)?;
            }
        }
        *staged = Some(words);
        self.write("receive_post", 0, 1)?;
        loop {
            let status = self.read("receive_status", 0)?;
            match status & 3 {
                receive_state::PENDING => continue,
                receive_state::ACCEPTED => return Ok(true),
                receive_state::REFUSED => return Ok(false),
                s => return Err(format!("{}: receive_status {s} after a post", self.label())),
            }
        }
    }

    /// Posts a transfer through the post words and the doorbell; its result.
    fn post(&mut self, post: &Post) -> Result<Result<(), PostError>, String> {
        let words = post.to_words().map_err(|e| format!("post: {e}"))?;
        for (w, &word) in words.iter().enumerate() {
            self.write(&format!("post_word{w}"), 0, word)?;
        }
        self.write("doorbell", 0, 1)?;
        loop {
            let status = self.read("post_status", 0)?;
            match PostState::from_code(status & 3) {
                Some(PostState::Pending) => continue,
                Some(PostState::Accepted) => return Ok(Ok(())),
                Some(PostState::Refused) => {
                    let code = (status >> 2 & 7) as u8;
                    return Ok(Err(PostError::from_code(code).ok_or_else(|| format!("refusal code {code}"))?));
                }
                s => return Err(format!("{}: post_status {s:?} after a doorbell", self.label())),
            }
        }
    }

    /// Polls every channel group once: the finished channels `(channel, error)`.
    fn poll(&mut self) -> Result<Vec<(u32, bool)>, String> {
        let mut finished = Vec::new();
        for group in 0..self.map().config.poll_groups() {
            let bits = self.read("poll", group)?;
            if bits == 0 {
                continue;
            }
            let errors = self.read("poll_error", 0)?;
            finished.extend(
                (0..POLL_CHANNELS)
                    .filter(|i| bits >> i & 1 == 1)
                    .map(|i| (group * POLL_CHANNELS + i, errors >> i & 1 == 1)),
            );
        }
        Ok(finished)
    }

    /// Reads and pops every receive completion queued; errors if the overflow flag is set.
    fn receive_completions(&mut self) -> Result<Vec<HostCompletion>, String> {
        let mut out = Vec::new();
        // `valid` and `overflow` are in word 0: the other words are read only for a completion
        debug_assert!(RECEIVE_COMPLETION.offset("valid") < 32 && RECEIVE_COMPLETION.offset("overflow") < 32);
        loop {
            let mut words = vec![self.read("receive_completion0", 0)?];
            let flag = |words: &[u32], name: &str| words[0] >> RECEIVE_COMPLETION.offset(name) & 1 != 0;
            if flag(&words, "overflow") {
                return Err(format!("{}: receive completions were lost", self.label()));
            }
            if !flag(&words, "valid") {
                return Ok(out);
            }
            for w in 1..RECEIVE_COMPLETION.words() {
                words.push(self.read(&format!("receive_completion{w}"), 0)?);
            }
            let field = |name: &str| RECEIVE_COMPLETION.decode(&words, name) as u32;
            out.push(HostCompletion {
                qp: field("qp"),
                kind: field("kind") as u8,
                status: field("status") as u8,
                immediate: (field("immediate_valid") != 0).then(|| field("immediate")),
                length: field("length"),
            });
            self.write("receive_completion_pop", 0, 1)?;
        }
    }

    /// A responder counter.
    fn responder_counter(&mut self, counter: ResponderCounter) -> Result<u32, String> {
        self.read("responder_counter", counter.index() as u32)
    }

    /// Writes stream `index`'s settings and applies them (`configure`); an error that names
    /// the refusal when the engine refuses them.
    fn configure_stream(&mut self, index: u32, settings: &StreamSettings) -> Result<(), String> {
        for (register, value) in settings.register_words(self.map()) {
            self.write(register, index, value)?;
        }
        self.stream_command(index, StreamCommand::Configure)
    }

    /// Sends `command` to stream `index`; an error that names the refusal.
    fn stream_command(&mut self, index: u32, command: StreamCommand) -> Result<(), String> {
        let field = |map: &Map, register: &str, name: &str| map.reg(register).field(name).expect("a stream field").clone();
        let value = field(self.map(), "stream_command", "code").set(0, command as u32);
        self.write("stream_command", index, value)?;
        let state = self.read("stream_state", index)?;
        match field(self.map(), "stream_state", "result").get(state) {
            0 => Ok(()),
            code => Err(format!(
                "{}: stream {index}: {command:?} refused: {}",
                self.label(),
                StreamRefusal::from_code(code as u8).map_or("an unknown code", StreamRefusal::name)
            )),
        }
    }
}

/// The host of one engine of an [`EnginePair`] (both engines run while it waits).
pub struct PairHost<'a> {
    pair: &'a mut EnginePair,
    side: Side,
}

impl EngineHost for PairHost<'_> {
    fn map(&self) -> &Map {
        &self.pair.map
    }

    fn label(&self) -> String {
        format!("engine {:?}", self.side)
    }

    fn transact(&mut self, request: Request) -> Result<(u8, u32), String> {
        self.pair.transact(self.side, request)
    }
}

/// Which engine of a pair.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    /// Engine A.
    A,
    /// Engine B.
    B,
}

/// Two engines back to back; see the module docs.
///
/// Each wire is a lossless link whose buffer holds whatever the run puts on it: the MAC TX is
/// never held by the wire (only by the random backpressure of [`Surroundings`], as a MAC's
/// TX is now and then), and frames wait in the wire's queue until the far MAC RX takes them.
/// A wire that pushed back when a few beats waited would close a loop no board has: each
/// engine's RX waiting for its TX to take an ACK, each TX for its wire, each wire for the far
/// RX.
pub struct EnginePair {
    /// Engine A.
    pub a: EngineRtl,
    /// Engine B.
    pub b: EngineRtl,
    map: Map,
    rng: ChaCha8Rng,
    cycle: u64,
    /// The lossy wires, A→B and B→A (`None`: a perfect wire).
    lossy: [Option<LossyWire>; 2],
}

/// A lossy wire: the frame arriving from the sending engine, taken whole before its faults.
struct LossyWire {
    injector: FaultInjector,
    arriving: Vec<u8>,
    /// The frames it delivered, until taken.
    delivered: Vec<Vec<u8>>,
}

impl LossyWire {
    /// A beat from the sender; the frames for the receiver when it ends a frame.
    fn take(&mut self, beat: &Beat, cycle: u64) -> Vec<Vec<u8>> {
        let (data, keep, last) = beat;
        let bytes = data.iter().flat_map(|w| w.to_le_bytes());
        let kept = bytes.enumerate().filter(|(i, _)| keep[i / 32] >> (i % 32) & 1 == 1);
        self.arriving.extend(kept.map(|(_, b)| b));
        if *last {
            self.injector.apply(std::mem::take(&mut self.arriving), cycle)
        } else {
            Vec::new()
        }
    }
}

impl EnginePair {
    /// Two engines of `variant` in `surroundings`, reset, their RAMs cleared.
    pub fn new(variant: &EngineVariant, surroundings: &Surroundings) -> Result<EnginePair, String> {
        Ok(EnginePair {
            a: EngineRtl::new("A", variant, surroundings)?,
            b: EngineRtl::new("B", variant, surroundings)?,
            map: Map::new(variant.config),
            rng: ChaCha8Rng::seed_from_u64(surroundings.seed),
            cycle: 0,
            lossy: [None, None],
        })
    }

    /// Makes the wires A→B (`ab`) and B→A (`ba`) lossy, their faults drawn from `seed`; `None`:
    /// a perfect wire. Frames already on a wire are not touched.
    pub fn set_faults(&mut self, ab: Option<Faults>, ba: Option<Faults>, seed: u64) {
        let wire = |faults: Option<Faults>, seed: u64| {
            faults.map(|f| LossyWire {
                injector: FaultInjector::new(f, seed),
                arriving: Vec::new(),
                delivered: Vec::new(),
            })
        };
        self.lossy = [wire(ab, seed), wire(ba, seed.wrapping_add(1))];
    }

    /// What the lossy wires' injectors did so far, A→B and B→A.
    pub fn fault_counts(&self) -> [Option<FaultCounts>; 2] {
        [0, 1].map(|d| self.lossy[d].as_ref().map(|w| w.injector.counts))
    }

    /// Takes the frames a lossy wire delivered since the last call (0: A→B, 1: B→A; none for
    /// a perfect wire).
    pub fn take_delivered(&mut self, direction: usize) -> Vec<Vec<u8>> {
        self.lossy[direction]
            .as_mut()
            .map(|w| std::mem::take(&mut w.delivered))
            .unwrap_or_default()
    }

    /// The register map both engines implement.
    pub fn map(&self) -> &Map {
        &self.map
    }

    /// Cycles run so far.
    pub fn cycle(&self) -> u64 {
        self.cycle
    }

    /// One engine.
    pub fn engine(&mut self, side: Side) -> &mut EngineRtl {
        match side {
            Side::A => &mut self.a,
            Side::B => &mut self.b,
        }
    }

    /// One cycle of both engines and both wires (neither wire holds the MAC TX).
    pub fn step(&mut self) -> Result<(), String> {
        self.a.drive(&mut self.rng, self.cycle);
        self.b.drive(&mut self.rng, self.cycle);
        self.a.m.eval();
        self.b.m.eval();
        let cycle = self.cycle;
        let out = [self.a.sample(cycle)?, self.b.sample(cycle)?];
        for (direction, beat) in out.into_iter().enumerate() {
            let into = if direction == 0 { &mut self.b } else { &mut self.a };
            match (&mut self.lossy[direction], beat) {
                (None, Some(beat)) => into.arrive(beat),
                (Some(wire), beat) => {
                    let frames = beat.map(|b| wire.take(&b, cycle)).unwrap_or_default();
                    for frame in frames.into_iter().chain(wire.injector.due(cycle)) {
                        into.inject(&frame);
                        wire.delivered.push(frame);
                    }
                }
                (None, None) => {}
            }
        }
        self.a.m.tick();
        self.b.m.tick();
        self.cycle += 1;
        Ok(())
    }

    /// Runs until `done` holds (checked every cycle); an error when nothing moves on either
    /// engine for [`PROGRESS_LIMIT`] cycles.
    pub fn run_until(&mut self, what: &str, mut done: impl FnMut(&mut EnginePair) -> bool) -> Result<(), String> {
        let (mut events, mut still) = (self.a.events + self.b.events, 0);
        while !done(self) {
            self.step()?;
            let now = self.a.events + self.b.events;
            still = if now == events { still + 1 } else { 0 };
            events = now;
            if still > PROGRESS_LIMIT {
                return Err(format!(
                    "waiting for {what}: nothing moved for {PROGRESS_LIMIT} cycles (cycle {}; wire A→B {} beats, B→A {}; \
                     A {} frames out, B {} frames out; B {} writes)",
                    self.cycle,
                    self.b.incoming.len(),
                    self.a.incoming.len(),
                    self.a.mac.frames.len(),
                    self.b.mac.frames.len(),
                    self.b.writes.len()
                ));
            }
        }
        Ok(())
    }

    /// Runs `cycles` cycles.
    pub fn idle(&mut self, cycles: u64) -> Result<(), String> {
        (0..cycles).try_for_each(|_| self.step())
    }

    /// Puts `frame` on the wire into `side`'s MAC RX, after what is already on it (a third
    /// station's frame, such as an ARP request).
    /// Frames from the other engine keep their beats together: an injected frame goes on the
    /// wire between two of them.
    pub fn inject(&mut self, side: Side, frame: &[u8]) {
        self.engine(side).inject(frame);
    }

    fn transact(&mut self, side: Side, request: Request) -> Result<(u8, u32), String> {
        let index = self.engine(side).axil.push(request);
        let what = format!("the answer to {request:x?} on engine {side:?}");
        self.run_until(&what, |p| p.engine(side).axil.outstanding() == 0)?;
        answer_of(&self.engine(side).axil, index)
    }

    /// The host of one engine: register accesses run both engines until their answer.
    pub fn host(&mut self, side: Side) -> PairHost<'_> {
        PairHost { pair: self, side }
    }

    /// Writes register `name` (element `index`); an error unless the answer is OKAY.
    pub fn write(&mut self, side: Side, name: &str, index: u32, value: u32) -> Result<(), String> {
        self.host(side).write(name, index, value)
    }

    /// Reads register `name` (element `index`); an error unless the answer is OKAY.
    pub fn read(&mut self, side: Side, name: &str, index: u32) -> Result<u32, String> {
        self.host(side).read(name, index)
    }

    /// Writes QP `qp`'s context: every word but word 0, then word 0 (which commits it).
    pub fn commit(&mut self, side: Side, qp: u32, context: &QpContext) -> Result<(), String> {
        self.host(side).commit(qp, context)
    }

    /// Writes `region` into the memory region table (its entry is its R_Key's index).
    pub fn add_region(&mut self, side: Side, region: &MemoryRegion) -> Result<(), String> {
        self.host(side).add_region(region)
    }

    /// Posts a receive buffer; `Ok(true)` when accepted, `Ok(false)` when refused (queue full).
    pub fn post_receive(&mut self, side: Side, qp: u32, address: u64, length: u32) -> Result<bool, String> {
        self.host(side).post_receive(qp, address, length)
    }

    /// Posts a transfer through the post words and the doorbell; its result.
    pub fn post(&mut self, side: Side, post: &Post) -> Result<Result<(), PostError>, String> {
        self.host(side).post(post)
    }

    /// Polls every channel group once: the finished channels `(channel, error)`.
    pub fn poll(&mut self, side: Side) -> Result<Vec<(u32, bool)>, String> {
        self.host(side).poll()
    }

    /// Reads and pops every receive completion queued; errors if the overflow flag is set.
    pub fn receive_completions(&mut self, side: Side) -> Result<Vec<HostCompletion>, String> {
        self.host(side).receive_completions()
    }

    /// A responder counter.
    pub fn responder_counter(&mut self, side: Side, counter: ResponderCounter) -> Result<u32, String> {
        self.host(side).responder_counter(counter)
    }

    /// Draws from the pair's random generator.
    pub fn rng(&mut self) -> &mut impl Rng {
        &mut self.rng
    }
}

/// One engine with its MAC TX looped back to its MAC RX, memory answering at once: what
/// `ferroce-sim serve --top engine` serves (a host tool posts from one of its QPs to another
/// and reads the receive completions back).
///
/// The wire is a board's, not a lossless link: a MAC's TX is never held by the far end, and a
/// board top's MAC ingress never holds the MAC RX (it drops what it has no room for). So the
/// TX is never held here either; frames wait for the RX in a buffer of the ingress's
/// [`BUFFER_BYTES`], and a frame that arrives when the buffer may not hold one of
/// [`LOOP_FRAME_BYTES`] is dropped whole ([`EngineLoop::dropped_frames`]). A wire that pushed
/// back would close a loop the engine cannot leave: its RX waits for its TX to take an ACK,
/// its TX for the wire to take the frame it is sending, the wire for the RX.
pub struct EngineLoop {
    /// The engine.
    pub engine: EngineRtl,
    rng: ChaCha8Rng,
    cycle: u64,
    /// The frame arriving is dropped (its first beat found no room).
    dropping: bool,
    /// Frames dropped for want of room.
    dropped: u64,
}

/// The longest frame on the loop: a 4,096-byte payload and every header.
pub const LOOP_FRAME_BYTES: usize = LOSSY_FRAME_BYTES;

impl EngineLoop {
    /// The engine of `variant`, reset, its RAMs cleared, its memory empty (reads of bytes never
    /// written return 0).
    pub fn new(variant: &EngineVariant) -> Result<EngineLoop, String> {
        let surroundings = Surroundings {
            memory: MemoryTiming::IMMEDIATE,
            bp_pct: 0,
            idle_pct: 0,
            seed: 1,
        };
        Ok(EngineLoop {
            engine: EngineRtl::new("loop", variant, &surroundings)?,
            rng: ChaCha8Rng::seed_from_u64(1),
            cycle: 0,
            dropping: false,
            dropped: 0,
        })
    }

    /// One cycle; a beat out on MAC TX comes back on MAC RX, unless its frame is dropped.
    pub fn step(&mut self) -> Result<(), String> {
        let e = &mut self.engine;
        e.drive(&mut self.rng, self.cycle);
        e.m.eval();
        if let Some(beat) = e.sample(self.cycle)? {
            if !e.incoming_mid_frame {
                let bytes = e.incoming.len() * e.input.bytes_per_beat;
                self.dropping = bytes + LOOP_FRAME_BYTES > BUFFER_BYTES;
                self.dropped += u64::from(self.dropping);
            }
            if self.dropping {
                e.incoming_mid_frame = !beat.2;
            } else {
                e.arrive(beat);
            }
        }
        e.m.tick();
        self.cycle += 1;
        Ok(())
    }

    /// Frames the loop dropped because the buffer into the RX had no room for them.
    pub fn dropped_frames(&self) -> u64 {
        self.dropped
    }

    /// One AXI4-Lite transaction, the clock running until its answer: `(resp, data)`.
    pub fn transact(&mut self, request: Request) -> Result<(u8, u32), String> {
        transact_stepping(self, request, |l| &mut l.engine, EngineLoop::step)
    }
}

/// One AXI4-Lite transaction on the engine `engine` finds in `system`, `step` running the
/// system a cycle at a time until the answer (at most [`PROGRESS_LIMIT`] cycles).
pub(crate) fn transact_stepping<S>(
    system: &mut S,
    request: Request,
    engine: fn(&mut S) -> &mut EngineRtl,
    step: fn(&mut S) -> Result<(), String>,
) -> Result<(u8, u32), String> {
    let index = engine(system).axil.push(request);
    for _ in 0..PROGRESS_LIMIT {
        step(system)?;
        let axil = &engine(system).axil;
        if axil.outstanding() == 0 {
            return answer_of(axil, index);
        }
    }
    Err(format!("no answer to {request:x?} in {PROGRESS_LIMIT} cycles"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_named_engines_are_the_generated_builds() {
        for engine in [ENGINE_W512, ENGINE_W64, ENGINE_W512_SLOT1M, ENGINE_W64_BUS8, ENGINE_W512_BUS256] {
            assert_eq!(EngineVariant::named(engine.variant), Some(engine), "{}", engine.variant);
        }
        assert_eq!(EngineVariant::named("c1_q1_w8"), None);
        assert!(EngineVariant::names().contains(&"c2048_q2048_w512"));
    }
}
