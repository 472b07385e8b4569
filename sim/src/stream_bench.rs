//! Streams into remote memory between two engine tops back to back ([`EnginePair`]), as
//! `ferroce-sim stream` runs them: A's stream ports cut known bytes into messages of one remote
//! slot each (RDMA WRITE with immediate) on A's QPs, B's responders place them in rings of slots
//! in its memory, and B's host pops the receive completions and posts a receive buffer for each.
//! Everything goes through the engines' ports: the streams are set up through A's `stream`
//! registers, the QPs, regions and buffers through both register files.
//!
//! A run is checked against the golden model ([`StreamCutter`]) while it goes and at its end:
//! - every write into B's memory lies inside one slot and holds bytes of a message of that slot,
//!   at their place in it (no slot is written with data of another message);
//! - each stream's receive completions come in sequence order, with the message's immediate and
//!   length; on a perfect wire (or RC) they are all the messages, and on a lossy UC wire exactly
//!   the messages whose every packet crossed the wire (the others are the lost ones);
//! - on a perfect wire every slot holds the last message written into it;
//! - A's counters: every message cut, posted and completed, none failed or refused.
//!
//! The figures are those of `docs/performance.md`: the cycles from the first stream's start to
//! the last frame of the streams on wire A→B, the payload of the messages B completed, and the
//! wire bytes of A's frames with the Ethernet overhead, hence the goodput at the CMAC clock and on
//! a 100GbE wire against the RoCEv2 limit.

use crate::bench::{CMAC_CLOCK_HZ, LINE_RATE, WIRE_OVERHEAD};
use crate::contracts::regs::{Config, MAX_STREAM_BUFFER_BYTES};
use crate::contracts::responder::{completion_kind, message_operation, CheckFailure, ReceiveStatus, ResponderCounter, DEFAULT_REGIONS};
use crate::contracts::sched::pace_cost;
use crate::contracts::stream::{StreamCommand, StreamSettings};
use crate::contracts::tx::Pmtu;
use crate::engine_rtl::{EngineHost, EnginePair, EngineVariant, HostCompletion, Side, Surroundings};
use crate::faults::{FaultCounts, Faults};
use crate::loopback_bench::{b_context, LOSSY_TICK_CYCLES, LOSSY_TIMEOUT};
use crate::models::stream::{ImmediateFormat, MessageEnd, StreamConfig, StreamCutter, StreamMessage};
use crate::models::tx::LocalMemory;
use crate::peers::{distinct_qps, random_psn, Peer, BUFFER_BASE};
use crate::stream_feed::BusPackets;
use crate::wire::{RoceFrame, Transport};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::HashSet;
use std::path::Path;

/// Cycles without a receive completion, a frame on wire A→B or a memory write on B after which a
/// run fails.
pub const STALL_LIMIT: u64 = 200_000;
/// Receive completions B's register file queues (one fewer than its FIFO's entries).
pub const COMPLETION_QUEUE: usize = 31;
/// Cycles a lossy run waits after the streams' last frame for completions still on their way.
const DRAIN_CYCLES: u64 = 4_000;

/// What a stream run is.
#[derive(Debug, Clone, Copy)]
pub struct StreamRunConfig {
    /// The engine build of both engines.
    pub engine: EngineVariant,
    /// Streams that run (A's stream ports 0..): 1 to the build's stream ports.
    pub streams: usize,
    /// Bytes of a slot: whole beats, at most half a stream port's buffer (16 KiB in the
    /// default builds, 1 MiB in `c2048_q256_w512_slot1m`).
    pub slot_bytes: u32,
    /// Slots of each ring.
    pub slots: u32,
    /// Messages each stream sends.
    pub messages: usize,
    /// RC or UC.
    pub transport: Transport,
    /// Path MTU of every connection.
    pub pmtu: Pmtu,
    /// What the immediates count.
    pub immediate: ImmediateFormat,
    /// The solicited-event bit on every M-th message (0: never).
    pub solicited_every: u32,
    /// TX channels of each stream (1, 2 or 4: messages in flight at once).
    pub channels: u32,
    /// A bus build's packets: each of this many bytes (whole beats, a divisor of the slot), as
    /// a source of fixed frames sends them; `None`: 1 beat to
    /// [`BUS_PACKET_BYTES`](crate::engine_rtl::BUS_PACKET_BYTES) at random.
    pub bus_packet_bytes: Option<u32>,
    /// Each stream paced at this many payload bytes per second at [`CMAC_CLOCK_HZ`] (stream s
    /// posts on queue 1 + s, in the high table); `None`: not paced, the streams sharing queues.
    pub rate: Option<u64>,
    /// Faults on both wires (`None`: perfect wires). RC runs its retry timers fast then
    /// ([`LOSSY_TICK_CYCLES`], [`LOSSY_TIMEOUT`]).
    pub faults: Option<Faults>,
    /// What idles and pushes back around both engines; its seed also draws the bytes, QPs and
    /// PSNs.
    pub surroundings: Surroundings,
}

impl StreamRunConfig {
    /// An error for a run that cannot go.
    pub fn check(&self) -> Result<(), String> {
        let ports = self.engine.config.streams as usize;
        if self.streams == 0 || self.streams > ports {
            let what = if self.engine.config.stream_bus {
                "streams on its bus"
            } else {
                "stream ports"
            };
            return Err(format!("{} streams: this engine build has {ports} {what}", self.streams));
        }
        let (beat, buffer) = (self.engine.config.data_width / 8, self.engine.config.stream_buffer_bytes);
        if self.slot_bytes == 0 || !self.slot_bytes.is_multiple_of(beat) || self.slot_bytes > buffer / 2 {
            return Err(format!(
                "a slot of {} bytes: this engine build takes whole {beat}-byte beats up to {} KiB (half a stream's buffer{})",
                self.slot_bytes,
                buffer / 2048,
                if self.engine.config.stream_bus && self.engine.config.streams > 128 {
                    "; the bus build c2048_q256_w512_bus128 takes 16 KiB on 128 streams"
                } else if buffer < MAX_STREAM_BUFFER_BYTES {
                    "; the engine build c2048_q256_w512_slot1m takes slots up to 1 MiB"
                } else {
                    ""
                }
            ));
        }
        if let Some(packet) = self.bus_packet_bytes {
            if !self.engine.config.stream_bus {
                return Err("packets of a fixed length need a bus build (a stream port's bytes come in no packets)".into());
            }
            if packet == 0 || !packet.is_multiple_of(beat) || !self.slot_bytes.is_multiple_of(packet) {
                return Err(format!(
                    "packets of {packet} bytes: whole {beat}-byte beats that divide the {}-byte slot",
                    self.slot_bytes
                ));
            }
        }
        if self.messages == 0 || self.slots == 0 {
            return Err("no message to send (messages and slots from 1)".into());
        }
        if let Some(rate) = self.rate {
            let queues = self.engine.config.queues as usize;
            if self.streams >= queues {
                return Err(format!(
                    "{} paced streams: each needs a queue of its own, the build has {}",
                    self.streams,
                    queues - 1
                ));
            }
            pace_cost(rate, CMAC_CLOCK_HZ as u64)
                .try_into()
                .map(|_: u32| ())
                .map_err(|_| format!("a rate of {rate} B/s is below the pacer's least at the CMAC clock"))?;
        }
        if ![1, 2, 4].contains(&self.channels) {
            return Err(format!("{} channels per stream: 1, 2 or 4", self.channels));
        }
        let channels = self.engine.config.channels as usize;
        if self.streams * self.channels as usize > channels {
            return Err(format!(
                "{} streams of {} channels: the build has {channels}",
                self.streams, self.channels
            ));
        }
        if let Some(f) = self.faults {
            if !(0.0..1.0).contains(&f.loss) || [f.duplicate, f.reorder, f.corrupt].iter().any(|p| !(0.0..=1.0).contains(p)) {
                return Err(format!("fault probabilities from 0 to 1 (loss below 1): {f:?}"));
            }
            if self.transport == Transport::Uc && (f.duplicate > 0.0 || f.reorder > 0.0 || f.corrupt > 0.0) {
                return Err("a UC stream's wire may lose frames, not duplicate, reorder or corrupt them".into());
            }
        }
        Ok(())
    }
}

/// One stream's figures.
#[derive(Debug, Clone, Default)]
pub struct StreamFigures {
    /// B's QP it writes to.
    pub qp: u32,
    /// Messages A cut (`stream_messages`).
    pub messages: u64,
    /// Receive completions B gave for it.
    pub completed: u64,
    /// Sequence numbers of the messages B did not complete (lost on the wire), in order.
    pub lost: Vec<u64>,
    /// Its frames on wire A→B (with any sent again).
    pub frames: u64,
    /// Payload bytes of the messages B completed.
    pub payload_bytes: u64,
    /// Bytes of its frames on wire A→B with the Ethernet overhead.
    pub wire_bytes: u64,
    /// The cycles its first and last frames on wire A→B ended in.
    pub frame_ends: (u64, u64),
    /// Payload bytes of its frames on wire A→B after the first.
    pub later_payload: u64,
    /// The fewest cycles between the ends of two of its frames in a row (`u64::MAX`: one frame).
    pub closest_frames: u64,
    /// Paced runs: the largest burst above the rate, in payload bytes: the most that any run of
    /// its frames in a row carried beyond what the rate allows over the cycles from the first's
    /// end to the last's (one frame alone counts whole: a packet at the rate is a burst of one).
    pub largest_burst: u64,
}

/// What a run measured.
#[derive(Debug, Clone, Default)]
pub struct StreamReport {
    /// Per stream.
    pub streams: Vec<StreamFigures>,
    /// Cycles from the first stream's start to the end of the streams' last frame on wire A→B.
    pub cycles: u64,
    /// What the lossy wires did, A→B and B→A.
    pub faults: [Option<FaultCounts>; 2],
    /// The rate each stream was paced at, bytes per second (`None`: not paced).
    pub rate: Option<u64>,
}

impl StreamFigures {
    /// Its payload rate on wire A→B in bytes per second at [`CMAC_CLOCK_HZ`]: the payload after
    /// its first frame over the cycles from the first frame's end to the last's.
    pub fn rate(&self) -> f64 {
        self.later_payload as f64 * CMAC_CLOCK_HZ / (self.frame_ends.1 - self.frame_ends.0).max(1) as f64
    }
}

impl StreamReport {
    /// Payload bytes B completed, all streams.
    pub fn payload_bytes(&self) -> u64 {
        self.streams.iter().map(|s| s.payload_bytes).sum()
    }

    /// Payload bytes per cycle.
    pub fn bytes_per_cycle(&self) -> f64 {
        self.payload_bytes() as f64 / self.cycles.max(1) as f64
    }

    /// Payload bit/s at [`CMAC_CLOCK_HZ`].
    pub fn bus_goodput(&self) -> f64 {
        self.bytes_per_cycle() * 8.0 * CMAC_CLOCK_HZ
    }

    /// The RoCEv2 limit on 100GbE for these frames: payload bit/s of a wire that carries them
    /// back to back.
    pub fn line_limit(&self) -> f64 {
        let wire: u64 = self.streams.iter().map(|s| s.wire_bytes).sum();
        self.payload_bytes() as f64 * LINE_RATE / wire.max(1) as f64
    }

    /// Payload bit/s on 100GbE: the bus goodput or the line limit, whichever is lower.
    pub fn wire_goodput(&self) -> f64 {
        self.bus_goodput().min(self.line_limit())
    }
}

/// One stream as the run follows it.
struct Stream {
    peer: Peer,
    /// The first slot's address in B's memory.
    ring_base: u64,
    messages: Vec<StreamMessage>,
    /// The messages of each slot (indices into `messages`).
    by_slot: Vec<Vec<usize>>,
    /// The sequence after the last one completed.
    next: usize,
    completed: Vec<usize>,
    /// Receive buffers posted on B for it.
    buffers: usize,
    /// Messages whose bytes went to A's stream port.
    fed: usize,
}

impl Stream {
    fn ring(&self) -> (u64, u64) {
        let base = self.ring_base;
        (base, base + self.by_slot.len() as u64 * self.slot_bytes())
    }

    fn slot_bytes(&self) -> u64 {
        self.messages[0].data.len() as u64
    }
}

/// The first channel of stream `stream` of `channels` channels in an engine build of `config`:
/// a stream port's are its place's (`channels × stream`), a bus stream's its own four
/// (`Config::bus_stream_channel`).
fn first_channel(config: &Config, stream: u32, channels: u32) -> u32 {
    config.bus_stream_channel(stream).unwrap_or(channels * stream)
}

/// Runs `config`, its frames (both wires, as the engines sent them) written to the pcap file
/// `pcap` when given; `progress(completed, total)` is called as receive completions come.
pub fn run(config: &StreamRunConfig, pcap: Option<&Path>, mut progress: impl FnMut(usize, usize)) -> Result<StreamReport, String> {
    config.check()?;
    let seed = config.surroundings.seed;
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut pair = EnginePair::new(&config.engine, &config.surroundings)?;
    if let Some(bytes) = config.bus_packet_bytes {
        pair.a
            .streams
            .cut_packets(BusPackets::Exactly((bytes / (config.engine.config.data_width / 8)) as usize));
    }
    if let Some(faults) = config.faults {
        pair.set_faults(Some(faults), Some(faults), seed);
        if config.transport == Transport::Rc {
            pair.write(Side::A, "retry_tick", 0, LOSSY_TICK_CYCLES as u32)?;
        }
    }
    let ring_bytes = u64::from(config.slot_bytes) * u64::from(config.slots);
    // B's completion queue must never overflow: the buffers waiting, over all streams, fit it
    let waiting_buffers = (COMPLETION_QUEUE / config.streams).max(1);
    let mut staged = None;
    let qps = distinct_qps(&mut rng, config.streams, config.engine.config.qps);
    // B's memory regions (entry 0 left unused): more streams than that share them, each
    // stream's ring at a place of its own in its region, under the region's key and PD
    let regions = DEFAULT_REGIONS as usize - 1;
    let shares = config.streams.div_ceil(regions) as u64;
    let mut streams = Vec::new();
    for (s, &qp) in qps.iter().enumerate() {
        let entry = 1 + (s % regions) as u32;
        let mut peer = Peer::new(qp, config.transport, config.pmtu, entry as u16, entry, random_psn(&mut rng))
            .region_length(ring_bytes * shares)
            .retries(if config.faults.is_some() { LOSSY_TIMEOUT } else { 0 }, 7, 7);
        peer.region.rkey = entry << 8 | (0x40 + qps[s % regions] % 0x80);
        peer.requester.rkey = peer.region.rkey;
        let ring_base = peer.region.base + (s / regions) as u64 * ring_bytes;
        pair.commit(Side::A, s as u32, &peer.requester)?;
        pair.commit(Side::B, qp, &b_context(&peer, s as u32))?;
        if s < regions {
            pair.add_region(Side::B, &peer.region)?;
        }
        let model = StreamConfig {
            qp: s as u32,
            base_va: ring_base,
            rkey: peer.region.rkey,
            slot_bytes: config.slot_bytes,
            slots: config.slots,
            immediate: config.immediate,
            end: MessageEnd::Slot,
            solicited_every: config.solicited_every,
            rate_bytes_per_second: u64::MAX,
        };
        let settings = StreamSettings {
            qp: s as u32,
            queue: if config.rate.is_some() {
                1 + s as u32
            } else {
                1 + s as u32 % (config.engine.config.queues - 1)
            },
            first_channel: first_channel(&config.engine.config, s as u32, config.channels),
            channels: config.channels,
            base_va: model.base_va,
            slot_bytes: config.slot_bytes,
            slots: config.slots,
            slot_and_wrap: config.immediate == ImmediateFormat::SlotAndWrap,
            end_at_tlast: None,
            drop_on_overflow: false,
            solicited_every: config.solicited_every,
        };
        pair.host(Side::A).configure_stream(s as u32, &settings)?;
        if let Some(rate) = config.rate {
            let cost = pace_cost(rate, CMAC_CLOCK_HZ as u64) as u32;
            pair.write(Side::A, "pace_cost", settings.queue, cost)?;
        }
        let bytes: Vec<u8> = (0..config.slot_bytes as usize * config.messages).map(|_| rng.gen()).collect();
        let messages = StreamCutter::new(model)
            .map_err(|e| format!("stream {s}: {e}"))?
            .push(&bytes, false);
        let mut by_slot = vec![Vec::new(); config.slots as usize];
        for (i, m) in messages.iter().enumerate() {
            by_slot[m.slot as usize].push(i);
        }
        let stream = Stream {
            peer,
            ring_base,
            messages,
            by_slot,
            next: 0,
            completed: Vec::new(),
            buffers: 0,
            fed: 0,
        };
        streams.push(stream);
    }
    let mut turn = 0;
    post_buffers(&mut pair, &mut streams, waiting_buffers, &mut turn, &mut staged)?;

    let start = pair.cycle();
    for s in 0..config.streams {
        pair.host(Side::A).stream_command(s as u32, StreamCommand::Start)?;
    }
    let total = config.streams * config.messages;
    let (mut completed, mut last_move, mut moves) = (0, pair.cycle(), (0, 0));
    let mut drained_at: Option<u64> = None;
    let mut crossing = Crossing::new(streams.len());
    let lossy_uc = config.faults.is_some() && config.transport == Transport::Uc;
    loop {
        for (address, bytes) in pair.b.take_writes() {
            check_write(&streams, address, &bytes)?;
        }
        crossing.count(&mut pair, &streams);
        // a message's bytes go to A's stream port once B has a buffer for it (UC drops a
        // message that finds none), so the source waits for a host slow to post them; a lost
        // message leaves its buffer to the next
        for (s, stream) in streams.iter_mut().enumerate() {
            let lost = if lossy_uc { crossing.lost(s) } else { 0 };
            while stream.fed < stream.messages.len() && stream.fed - lost < stream.buffers {
                pair.a.streams.push(s, &stream.messages[stream.fed].data, false);
                stream.fed += 1;
            }
        }
        let completions = pair.receive_completions(Side::B)?;
        for c in &completions {
            let stream = streams
                .iter_mut()
                .find(|s| s.peer.qp == c.qp)
                .ok_or_else(|| format!("a receive completion on B's QP {}, no stream's: {c:?}", c.qp))?;
            if let Err(e) = complete(stream, c, lossy_uc) {
                return Err(format!("{e} ({})", receiver_drops(&mut pair)?));
            }
        }
        post_buffers(&mut pair, &mut streams, waiting_buffers, &mut turn, &mut staged)?;
        completed += completions.len();
        if !completions.is_empty() {
            progress(completed, total);
        }
        let now_moves = (completed, pair.a.frames_out().count());
        if now_moves != moves {
            (moves, last_move) = (now_moves, pair.cycle());
        }
        if completed == total {
            break;
        }
        // a lossy UC wire: done once every message has left A and the wire is quiet
        if lossy_uc && crossing.whole.iter().all(|w| w.len() == config.messages) {
            let since = *drained_at.get_or_insert(pair.cycle());
            if pair.cycle() - since > DRAIN_CYCLES {
                break;
            }
        }
        if pair.cycle() - last_move > STALL_LIMIT {
            return Err(stall_report(&mut pair, &streams, completed, total));
        }
        if completions.is_empty() {
            pair.idle(64)?;
        }
    }
    for (address, bytes) in pair.b.take_writes() {
        check_write(&streams, address, &bytes)?;
    }
    crossing.count(&mut pair, &streams);
    let mut report = StreamReport {
        streams: Vec::new(),
        cycles: crossing.end.max(start) - start,
        faults: pair.fault_counts(),
        rate: config.rate,
    };
    let mut figures: Vec<StreamFigures> = streams
        .iter()
        .enumerate()
        .map(|(s, stream)| StreamFigures {
            qp: stream.peer.qp,
            frames: crossing.frames[s],
            wire_bytes: crossing.wire_bytes[s],
            frame_ends: crossing.frame_ends[s].unwrap_or_default(),
            later_payload: crossing.later_payload[s],
            closest_frames: crossing.closest[s],
            largest_burst: config.rate.map_or(0, |rate| largest_burst(&crossing.departures[s], rate)),
            ..StreamFigures::default()
        })
        .collect();

    for (s, stream) in streams.iter().enumerate() {
        let label = format!("stream {s} (B's QP {})", stream.peer.qp);
        let expected: Vec<usize> = if config.faults.is_some() && config.transport == Transport::Uc {
            (0..stream.messages.len())
                .filter(|&i| crossing.whole[s].get(i) == Some(&true))
                .collect()
        } else {
            (0..stream.messages.len()).collect()
        };
        if stream.completed != expected {
            return Err(format!(
                "{label}: B completed messages {:?}, the messages that crossed whole are {:?}",
                stream.completed, expected
            ));
        }
        let f = &mut figures[s];
        f.completed = stream.completed.len() as u64;
        f.payload_bytes = stream.completed.iter().map(|&i| stream.messages[i].data.len() as u64).sum();
        f.lost = (0..stream.messages.len())
            .filter(|i| !stream.completed.contains(i))
            .map(|i| i as u64)
            .collect();
        if config.faults.is_none() {
            // every slot holds the last message written into it
            for indices in &stream.by_slot {
                if let Some(&i) = indices.last() {
                    let m = &stream.messages[i];
                    if pair.b.memory.bytes(m.remote_va, m.data.len()) != m.data {
                        return Err(format!("{label}: slot {} does not hold message {}", m.slot, m.sequence));
                    }
                }
            }
        }
    }
    check_counters(&mut pair, &mut figures, config)?;
    if let Some(path) = pcap {
        let mut frames: Vec<(u64, &[u8])> = pair.a.frames_out_with_cycles().map(|(f, c)| (c, f)).collect();
        frames.extend(pair.b.frames_out_with_cycles().map(|(f, c)| (c, f)));
        frames.sort_by_key(|&(c, _)| c);
        let frames: Vec<Vec<u8>> = frames.into_iter().map(|(_, f)| f.to_vec()).collect();
        crate::wire::pcap::write_pcap(path, &frames).map_err(|e| format!("{}: {e}", path.display()))?;
    }
    report.streams = figures;
    Ok(report)
}

/// Posts receive buffers for `stream` on B until it has `most` waiting (or its queue is full),
/// or every message has one.
/// Every buffer is the same (a WRITE with immediate writes none), so that a post of the same
/// QP's buffer rings the post register alone (`staged`: the receive words B holds).
/// Posts B's receive buffers: at most `most` waiting for each stream and [`COMPLETION_QUEUE`]
/// over all of them (so B's completion queue never overflows), the streams served in turn from
/// `turn` (more streams than the queue wait theirs).
fn post_buffers(
    pair: &mut EnginePair,
    streams: &mut [Stream],
    most: usize,
    turn: &mut usize,
    staged: &mut Option<Vec<u32>>,
) -> Result<(), String> {
    let mut waiting: usize = streams.iter().map(|s| s.buffers - s.completed.len()).sum();
    let count = streams.len();
    for k in 0..count {
        let s = (*turn + k) % count;
        let stream = &mut streams[s];
        while waiting < COMPLETION_QUEUE && stream.buffers < stream.messages.len() && stream.buffers - stream.completed.len() < most {
            if !pair.host(Side::B).post_receive_staged(stream.peer.qp, BUFFER_BASE, 4096, staged)? {
                return Ok(());
            }
            stream.buffers += 1;
            waiting += 1;
            *turn = (s + 1) % count;
        }
    }
    Ok(())
}

/// B's counters of messages it could not complete.
fn receiver_drops(pair: &mut EnginePair) -> Result<String, String> {
    let counters = [
        ResponderCounter::Failures(CheckFailure::NoReceiveBuffer),
        ResponderCounter::UcMessagesDropped,
        ResponderCounter::RnrNaks,
    ];
    let mut values = Vec::new();
    for counter in counters {
        values.push(format!("{} {}", counter.name(), pair.responder_counter(Side::B, counter)?));
    }
    Ok(format!("B's counters: {}", values.join(", ")))
}

/// A receive completion of `stream`: its next message (on a lossy UC wire a later one: the
/// messages between were lost), with its immediate and length.
fn complete(stream: &mut Stream, c: &HostCompletion, lossy: bool) -> Result<(), String> {
    let label = format!("B's QP {}", stream.peer.qp);
    if c.kind != completion_kind::WRITE || c.status != ReceiveStatus::Success as u8 {
        return Err(format!(
            "{label}: a receive completion not of a successful WRITE with immediate: {c:?}"
        ));
    }
    let matches = |m: &StreamMessage| c.immediate == Some(m.immediate) && c.length as usize == m.data.len();
    let found = if lossy {
        (stream.next..stream.messages.len()).find(|&i| matches(&stream.messages[i]))
    } else {
        Some(stream.next).filter(|&i| i < stream.messages.len() && matches(&stream.messages[i]))
    };
    let Some(i) = found else {
        let want = stream.messages.get(stream.next).map(|m| (m.immediate, m.data.len()));
        return Err(format!(
            "{label}: a receive completion {c:?} where message {} (immediate, length) {want:?} was due",
            stream.next
        ));
    };
    stream.completed.push(i);
    stream.next = i + 1;
    Ok(())
}

/// A write into B's memory: inside one slot of a ring, its bytes those of a message of that
/// slot at their place in it.
fn check_write(streams: &[Stream], address: u64, bytes: &[u8]) -> Result<(), String> {
    let what = format!("B wrote {} bytes at {address:#x}", bytes.len());
    let (s, stream) = streams
        .iter()
        .enumerate()
        .find(|(_, s)| (s.ring().0..s.ring().1).contains(&address))
        .ok_or_else(|| format!("{what}: outside every ring"))?;
    let slot_bytes = stream.slot_bytes();
    let (slot, offset) = ((address - stream.ring().0) / slot_bytes, (address - stream.ring().0) % slot_bytes);
    if offset + bytes.len() as u64 > slot_bytes {
        return Err(format!("{what}: past the end of slot {slot} of stream {s}"));
    }
    let range = offset as usize..offset as usize + bytes.len();
    if stream.by_slot[slot as usize]
        .iter()
        .any(|&i| stream.messages[i].data[range.clone()] == *bytes)
    {
        Ok(())
    } else {
        // whose bytes they are, for the error
        let owner = streams.iter().enumerate().find_map(|(t, other)| {
            other.messages.iter().find_map(|m| {
                m.data
                    .windows(bytes.len().min(64))
                    .position(|w| w == &bytes[..bytes.len().min(64)])
                    .map(|at| format!("stream {t}'s message {} (slot {}) from its byte {at}", m.sequence, m.slot))
            })
        });
        Err(format!(
            "{what}: slot {slot} of stream {s} at offset {offset} written with bytes of no message of that slot ({})",
            owner.unwrap_or_else(|| format!("bytes of no message: {:02x?}", &bytes[..16.min(bytes.len())]))
        ))
    }
}

/// The streams' frames on wire A→B, followed as they leave A: which messages crossed whole.
struct Crossing {
    /// A's frames counted.
    seen: usize,
    /// The frames the wire delivered to B, `(QP, PSN)`.
    delivered: HashSet<(u32, u32)>,
    /// Per stream: frames, their wire bytes with the Ethernet overhead, whether every frame of
    /// the message in progress crossed, and per message that left A whether it crossed whole.
    frames: Vec<u64>,
    wire_bytes: Vec<u64>,
    /// Per stream: the cycles its first and last frames ended in, the payload after the first.
    frame_ends: Vec<Option<(u64, u64)>>,
    later_payload: Vec<u64>,
    closest: Vec<u64>,
    /// Per stream: each frame's end cycle and payload bytes.
    departures: Vec<Vec<(u64, u64)>>,
    crossing: Vec<bool>,
    whole: Vec<Vec<bool>>,
    /// The cycle after the streams' last frame.
    end: u64,
}

impl Crossing {
    fn new(streams: usize) -> Crossing {
        Crossing {
            seen: 0,
            delivered: HashSet::new(),
            frames: vec![0; streams],
            wire_bytes: vec![0; streams],
            frame_ends: vec![None; streams],
            later_payload: vec![0; streams],
            closest: vec![u64::MAX; streams],
            departures: vec![Vec::new(); streams],
            crossing: vec![true; streams],
            whole: vec![Vec::new(); streams],
            end: 0,
        }
    }

    /// A's frames since the last call (a lossy wire decides a frame's fate as it leaves A).
    fn count(&mut self, pair: &mut EnginePair, streams: &[Stream]) {
        for frame in pair.take_delivered(0) {
            if let Ok(f) = RoceFrame::parse(&frame) {
                self.delivered.insert((f.bth.dest_qp, f.bth.psn));
            }
        }
        for (frame, cycle) in pair.a.frames_out_with_cycles().skip(self.seen) {
            self.seen += 1;
            let Ok(f) = RoceFrame::parse(frame) else { continue };
            let Some(s) = streams.iter().position(|s| s.peer.qp == f.bth.dest_qp) else {
                continue;
            };
            self.end = self.end.max(cycle + 1);
            self.frames[s] += 1;
            self.wire_bytes[s] += frame.len() as u64 + WIRE_OVERHEAD;
            match &mut self.frame_ends[s] {
                Some(ends) => {
                    self.closest[s] = self.closest[s].min(cycle - ends.1);
                    ends.1 = cycle;
                    self.later_payload[s] += f.payload.len() as u64;
                }
                none => *none = Some((cycle, cycle)),
            }
            self.departures[s].push((cycle, f.payload.len() as u64));
            let Some((_, position)) = message_operation(f.bth.opcode.operation()) else {
                continue;
            };
            if position.starts() {
                self.crossing[s] = true;
            }
            // a perfect wire delivers everything (and records nothing)
            let lossy = pair.fault_counts()[0].is_some();
            self.crossing[s] &= !lossy || self.delivered.contains(&(f.bth.dest_qp, f.bth.psn));
            if position.ends() {
                self.whole[s].push(self.crossing[s]);
            }
        }
    }

    /// Messages of stream `s` that left A and did not cross whole.
    fn lost(&self, s: usize) -> usize {
        self.whole[s].iter().filter(|&&w| !w).count()
    }
}

/// A's stream counters once every post has completed: messages cut, posted and completed, none
/// failed or refused; `figures` get the messages.
fn check_counters(pair: &mut EnginePair, figures: &mut [StreamFigures], config: &StreamRunConfig) -> Result<(), String> {
    let n = config.messages as u32;
    for (s, figure) in figures.iter_mut().enumerate() {
        let index = s as u32;
        // RC posts complete when their ACK arrives, which may follow B's completion
        let mut completed = 0;
        for _ in 0..100 {
            completed = pair.read(Side::A, "stream_completed", index)?;
            if completed == n {
                break;
            }
            pair.idle(500)?;
        }
        let read = |pair: &mut EnginePair, name: &str| pair.read(Side::A, name, index);
        let counters = (
            read(pair, "stream_messages")?,
            read(pair, "stream_posted")?,
            completed,
            read(pair, "stream_failed")?,
            read(pair, "stream_refused")?,
        );
        if counters != (n, n, n, 0, 0) {
            return Err(format!(
                "stream {s}: A's counters (messages, posted, completed, failed, refused) read {counters:?}, not ({n}, {n}, {n}, 0, 0)"
            ));
        }
        figure.messages = u64::from(counters.0);
    }
    Ok(())
}

/// Why a run stopped moving: each stream's counters on A and completions on B.
fn stall_report(pair: &mut EnginePair, streams: &[Stream], completed: usize, total: usize) -> String {
    let mut report = format!(
        "nothing moved for {STALL_LIMIT} cycles (cycle {}): {completed} of {total} receive completions ({})",
        pair.cycle(),
        receiver_drops(pair).unwrap_or_else(|e| e)
    );
    for (s, stream) in streams.iter().enumerate() {
        let names = [
            "stream_messages",
            "stream_posted",
            "stream_completed",
            "stream_failed",
            "stream_held_beats",
        ];
        let values: Vec<String> = names
            .iter()
            .map(|n| pair.read(Side::A, n, s as u32).map_or_else(|e| e, |v| format!("{n} {v}")))
            .collect();
        report.push_str(&format!(
            "; stream {s}: {} completed on B, {}",
            stream.completed.len(),
            values.join(", ")
        ));
    }
    report
}

/// The largest burst above `rate` (bytes per second at [`CMAC_CLOCK_HZ`]) of frames leaving at
/// `departures` (end cycle, payload bytes): the most, over runs of frames in a row, of their
/// payload less what the rate allows from the first's end to the last's.
pub fn largest_burst(departures: &[(u64, u64)], rate: u64) -> u64 {
    let per_cycle = rate as f64 / CMAC_CLOCK_HZ;
    // over the last frame b: the payload of frames a..=b less the rate's bytes from a's end to b's
    // = (sent to b − allowed to b) + best over a of (allowed to a − sent before a)
    let (mut sent, mut best_start, mut largest) = (0.0, f64::MIN, 0.0f64);
    for &(cycle, payload) in departures {
        let allowed = cycle as f64 * per_cycle;
        best_start = best_start.max(allowed - sent);
        sent += payload as f64;
        largest = largest.max(sent - allowed + best_start);
    }
    largest.round() as u64
}

/// A table of a run's figures (markdown); paced runs add each stream's rate on wire A→B and
/// its largest burst above the rate.
pub fn figures_table(report: &StreamReport) -> String {
    let paced = report.rate.is_some();
    let mut s = String::from("| stream | B's QP | messages | completed | lost | frames A→B | payload bytes |");
    s.push_str(if paced { " rate (GB/s) | largest burst (B) |\n" } else { "\n" });
    s.push_str(if paced {
        "|---|---|---|---|---|---|---|---|---|\n"
    } else {
        "|---|---|---|---|---|---|---|\n"
    });
    for (i, f) in report.streams.iter().enumerate() {
        s.push_str(&format!(
            "| {i} | {} | {} | {} | {} | {} | {} |",
            f.qp,
            f.messages,
            f.completed,
            f.lost.len(),
            f.frames,
            f.payload_bytes
        ));
        if paced {
            s.push_str(&format!(" {:.4} | {} |", f.rate() / 1e9, f.largest_burst));
        }
        s.push('\n');
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_burst_is_what_frames_in_a_row_carry_beyond_the_rate() {
        // 1,000 bytes every 100 cycles is the rate: each frame alone is the largest burst
        let rate = (10.0 * CMAC_CLOCK_HZ) as u64;
        let even: Vec<(u64, u64)> = (0..10).map(|i| (1_000 + 100 * i, 1_000)).collect();
        assert_eq!(largest_burst(&even, rate), 1_000);
        // two frames 40 cycles apart in the middle: 2,000 bytes less 400 the rate allows
        let mut close = even.clone();
        close[5].0 = close[4].0 + 40;
        assert_eq!(largest_burst(&close, rate), 1_600);
        // a frame 90 cycles late, the next on time: 2,000 bytes in 10 cycles
        let mut late = even;
        late[3].0 += 90;
        assert_eq!(largest_burst(&late, rate), 1_900);
        assert_eq!(largest_burst(&[], rate), 0);
    }
}
