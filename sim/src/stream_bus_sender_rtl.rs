//! Runner of the stream bus sender's Verilator models (`ferroce_stream_bus_sender_s8_w64`,
//! `_s256_w512`, top `stream_bus_sender`), used by its co-simulation
//! (`sim/tests/stream_bus_sender_cosim.rs`).
//!
//! [`run`] writes each stream's target once the sender has cleared its counts, presents the
//! records of many streams interleaved under random idle; a stand-in for the TX path takes
//! posts under random backpressure, answers each (accepted, channel busy now and then, refused
//! for the records named), and completes each stream's accepted posts in their order after a
//! random delay, with a status drawn at random, interleaving the streams; now and then it
//! sends a completion for a channel outside the bus's and for a stream with nothing in flight.
//! Every post attempt must be [`StreamTarget::post`] of its record (its index the stream's
//! accepted posts before it, its beat in the stream window `bus_window_beat`); a stream has at most its channel count in flight, on distinct
//! channels; releases come stream by stream in record order, each after its message's
//! completion or refusal; each cycle the messages a stream holds by its status are those posted
//! and not completed; at the end every stream holds nothing and its counters add up.

use crate::models::contracts::stream::{bus_first_channel, bus_window_beat, BUS_STREAM_CHANNELS};
use crate::models::contracts::tx::{CompletionStatus, PostError};
use crate::models::stream::StreamTarget;
pub use crate::stream_sender_rtl::Behaviour;
use crate::stream_sender_rtl::{self as sender, decode_post};
use crate::verilated::Model;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::{HashMap, VecDeque};

/// A co-simulated variant of the sender: the senders of the `stream_bus` variants.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BusSenderVariant {
    /// Its name (`s8_w64`).
    pub name: &'static str,
    /// Bytes a beat.
    pub lanes: u32,
    /// Streams.
    pub streams: usize,
    /// Bits of a region's beat count.
    pub region_bits: u32,
}

/// The co-simulated variants.
pub const VARIANTS: [BusSenderVariant; 2] = [
    BusSenderVariant {
        name: "s8_w64",
        lanes: 8,
        streams: 8,
        region_bits: 9,
    },
    BusSenderVariant {
        name: "s256_w512",
        lanes: 64,
        streams: 256,
        region_bits: 8,
    },
];
/// Cycles without progress before a run is an error.
pub const PROGRESS_LIMIT: u64 = 20_000;

/// A message record as the bus gives it: its stream, and the record (its `buffer_beat` in
/// the whole buffer).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Record {
    /// Its stream.
    pub stream: usize,
    /// The record.
    pub message: sender::Record,
}

/// What happened.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BusSenderRun {
    /// Post attempts accepted.
    pub posted: u64,
    /// Attempts answered busy.
    pub busy: u64,
    /// Completions with success.
    pub completed: u64,
    /// Completions with an error status.
    pub failed: u64,
    /// Completions the sender must ignore (another channel, or a stream with nothing in flight).
    pub ignored: u64,
    /// The most messages one stream had in flight at once.
    pub most_in_flight: usize,
    /// Cycles from the first record to the last release.
    pub cycles: u64,
}

const PORTS: [&str; 31] = [
    "settings_valid",
    "settings_stream",
    "settings_qp",
    "settings_queue",
    "settings_channel_mask",
    "settings_base_va",
    "settings_slot_beats",
    "channel_base",
    "window_base",
    "clearing",
    "s_message_valid",
    "s_message_ready",
    "s_message_entry",
    "s_message_stream",
    "post_valid",
    "post_ready",
    "post_entry",
    "post_result_valid",
    "post_result_code",
    "cpl_valid",
    "cpl_channel",
    "cpl_status",
    "release_valid",
    "release_stream",
    "release_beats",
    "status_stream",
    "status_held_messages",
    "status_posted",
    "status_completed",
    "status_failed",
    "status_refused",
];

/// The target of stream `stream` of a bus whose channels start at `channel_base` and whose
/// stream window is at `window_base`: `channels` of its four, its own QP, queue, ring and slot size.
pub fn target(stream: usize, channels: u32, beat_bytes: u32, channel_base: u32, window_base: u64) -> StreamTarget {
    StreamTarget {
        qp: 0x100 + stream as u32,
        queue: 1 + (stream as u32 % 31),
        first_channel: bus_first_channel(channel_base, stream as u32),
        channels,
        base_va: 0x7f00_0000_0000 + ((stream as u64) << 24),
        slot_bytes: (1 + stream as u32 % 16) * beat_bytes,
        window_base,
        beat_bytes,
    }
}

/// An accepted post waiting for its completion.
struct InFlight {
    due: u64,
    channel: u32,
    status: u8,
    record: usize,
}

/// Runs `records` through the variant `variant` with `targets` (stream → target; each
/// `first_channel` is the bus's layout from `channel_base`) against a TX path behaving as
/// `behaviour`.
pub fn run(
    variant: &BusSenderVariant,
    channel_base: u32,
    window_base: u64,
    targets: &HashMap<usize, StreamTarget>,
    records: &[Record],
    behaviour: &Behaviour,
) -> Result<BusSenderRun, String> {
    let streams = variant.streams;
    let e = |e: crate::verilated::SimError| e.to_string();
    let mut m = Model::new(&format!("ferroce_stream_bus_sender_{}", variant.name)).map_err(e)?;
    let mut ports = HashMap::new();
    for name in PORTS {
        ports.insert(name, m.port(name).map_err(e)?);
    }
    let set = |m: &mut Model, name: &str, v: u64| m.set_u64(ports[name], v);
    let get = |m: &mut Model, name: &str| m.get_u64(ports[name]);
    set(&mut m, "channel_base", u64::from(channel_base));
    set(&mut m, "window_base", window_base);
    m.reset(2);
    // the counts are cleared a stream a cycle; no record is taken meanwhile
    let mut clearing_cycles = 0;
    while get(&mut m, "clearing") != 0 {
        set(&mut m, "s_message_valid", 1);
        if get(&mut m, "s_message_ready") != 0 {
            return Err("a record taken while the counts are cleared".into());
        }
        m.step(1);
        clearing_cycles += 1;
        if clearing_cycles > streams + 4 {
            return Err(format!("still clearing after {clearing_cycles} cycles"));
        }
    }
    set(&mut m, "s_message_valid", 0);
    for (&stream, t) in targets {
        if t.first_channel != bus_first_channel(channel_base, stream as u32) || t.window_base != window_base {
            return Err(format!("stream {stream}'s target {t:?} is not the bus's layout"));
        }
        set(&mut m, "settings_valid", 1);
        set(&mut m, "settings_stream", stream as u64);
        set(&mut m, "settings_qp", u64::from(t.qp));
        set(&mut m, "settings_queue", u64::from(t.queue));
        set(&mut m, "settings_channel_mask", u64::from(t.channels - 1));
        set(&mut m, "settings_base_va", t.base_va);
        set(&mut m, "settings_slot_beats", u64::from(t.slot_bytes / t.beat_bytes));
        m.step(1);
    }
    set(&mut m, "settings_valid", 0);

    let mut rng = ChaCha8Rng::seed_from_u64(behaviour.traffic.seed);
    let mut got = BusSenderRun::default();
    let mut next_record = 0usize;
    let mut presenting = false;
    let mut taken: Option<usize> = None;
    // the post being answered: (cycle of the answer, code, record index)
    let mut answer: Option<(u64, u64, usize)> = None;
    let mut in_flight: HashMap<usize, VecDeque<InFlight>> = HashMap::new();
    let mut accepted_of: HashMap<usize, u64> = HashMap::new();
    let mut attempts_of = vec![0u32; records.len()];
    let mut finished = vec![false; records.len()];
    // per stream: its records taken, not yet released, in order
    let mut unreleased: HashMap<usize, VecDeque<usize>> = HashMap::new();
    let mut released = 0usize;
    let mut last_progress = 0u64;
    let mut cycle = 0u64;
    let mut want_failed = 0u64;
    // the status: messages held per stream as the sender counts them (a post when its result
    // comes, a completion two cycles after it), and each cycle's stream and expected answer
    let watched: Vec<usize> = {
        let mut v: Vec<usize> = targets.keys().copied().collect();
        v.sort_unstable();
        v
    };
    let mut held_now: HashMap<usize, u64> = HashMap::new();
    let mut completions_counted: VecDeque<(u64, usize)> = VecDeque::new();
    let mut status_expected: VecDeque<(usize, u64)> = VecDeque::new();
    // per stream: posted, completed, failed, refused
    let mut counted: HashMap<usize, [u64; 4]> = HashMap::new();
    while released < records.len() {
        if !presenting && next_record < records.len() && rng.gen_range(0..100) >= behaviour.traffic.idle_pct {
            let r = &records[next_record];
            m.set(ports["s_message_entry"], &r.message.words(next_record as u64));
            set(&mut m, "s_message_stream", r.stream as u64);
            presenting = true;
        }
        set(&mut m, "s_message_valid", u64::from(presenting));
        let record_taken = presenting && get(&mut m, "s_message_ready") != 0;
        // the TX path's post port: one post answered at a time
        let post_ready = answer.is_none() && rng.gen_range(0..100) >= behaviour.traffic.bp_pct;
        set(&mut m, "post_ready", u64::from(post_ready));
        if post_ready && get(&mut m, "post_valid") != 0 {
            let index = taken.ok_or("a post before any record was taken")?;
            let post = decode_post(&m.get(ports["post_entry"]));
            let (stream, r) = (records[index].stream, &records[index].message);
            let t = &targets[&stream];
            let accepted = accepted_of.get(&stream).copied().unwrap_or(0);
            let window_beat = bus_window_beat(r.buffer_beat, variant.region_bits);
            let want = t.post(accepted, window_beat, r.slot, r.length, r.immediate, r.solicited);
            if post != want {
                return Err(format!(
                    "cycle {cycle}: record {index} (stream {stream}) posted as {post:?}, the model's {want:?}"
                ));
            }
            let flying = in_flight.entry(stream).or_default();
            if flying.iter().any(|f| f.channel == post.channel) {
                return Err(format!("cycle {cycle}: a post on channel {} while it is in flight", post.channel));
            }
            attempts_of[index] += 1;
            let code = behaviour.answer(index, attempts_of[index], &mut rng);
            got.busy += u64::from(code == u64::from(PostError::ChannelBusy.code()));
            answer = Some((cycle + rng.gen_range(1..4), code, index));
            if code == 0 {
                got.posted += 1;
                *accepted_of.entry(stream).or_default() += 1;
                let status = if rng.gen_range(0..100) < behaviour.failed_pct {
                    want_failed += 1;
                    CompletionStatus::TransportRetryExceeded.code()
                } else {
                    0
                };
                let earliest = flying.back().map_or(0, |f| f.due + 1);
                flying.push_back(InFlight {
                    due: earliest.max(cycle + rng.gen_range(8..=behaviour.completion_delay.max(8))),
                    channel: post.channel,
                    status,
                    record: index,
                });
                got.most_in_flight = got.most_in_flight.max(flying.len());
                if flying.len() > t.channels as usize {
                    return Err(format!("cycle {cycle}: stream {stream} has {} in flight", flying.len()));
                }
            }
        }
        // the post's result, when due
        let result = answer.take_if(|a| a.0 <= cycle).map(|(_, code, index)| (code, index));
        set(&mut m, "post_result_valid", u64::from(result.is_some()));
        set(&mut m, "post_result_code", result.map_or(0, |r| r.0));
        if let Some((code, index)) = result {
            if code == u64::from(PostError::QpNotReady.code()) {
                finished[index] = true;
            }
            if code != u64::from(PostError::ChannelBusy.code()) {
                taken = None;
            }
            if code == 0 {
                *held_now.entry(records[index].stream).or_default() += 1;
                counted.entry(records[index].stream).or_default()[0] += 1;
            }
            if code == u64::from(PostError::QpNotReady.code()) {
                counted.entry(records[index].stream).or_default()[3] += 1;
            }
        }
        // completions: each stream's oldest when due, streams interleaved; now and then one
        // the sender must ignore
        let due: Vec<usize> = in_flight
            .iter()
            .filter(|(_, q)| q.front().is_some_and(|f| f.due <= cycle))
            .map(|(&s, _)| s)
            .collect();
        let mut cpl = None;
        if !due.is_empty() && rng.gen_range(0..100) < 90 {
            let mut due = due;
            due.sort_unstable();
            let stream = due[rng.gen_range(0..due.len())];
            let f = in_flight.get_mut(&stream).and_then(VecDeque::pop_front).expect("due");
            finished[f.record] = true;
            completions_counted.push_back((cycle + 3, stream));
            counted.entry(stream).or_default()[if f.status == 0 { 1 } else { 2 }] += 1;
            if f.status == 0 {
                got.completed += 1;
            } else {
                got.failed += 1;
            }
            cpl = Some((f.channel, f.status));
        } else if rng.gen_range(0..100) < 5 {
            got.ignored += 1;
            let bus_channels = BUS_STREAM_CHANNELS * streams as u32;
            let quiet: Vec<usize> = (0..streams)
                .filter(|s| in_flight.get(s).is_none_or(VecDeque::is_empty))
                .filter(|s| taken.is_none_or(|i| records[i].stream != *s))
                .collect();
            let channel = match rng.gen_range(0..3) {
                0 if channel_base > 0 => channel_base - 1 - rng.gen_range(0..channel_base.min(4)),
                1 if !quiet.is_empty() => {
                    bus_first_channel(channel_base, quiet[rng.gen_range(0..quiet.len())] as u32) + rng.gen_range(0..4)
                }
                _ => channel_base + bus_channels + rng.gen_range(0..4),
            };
            cpl = Some((channel, 0));
        }
        set(&mut m, "cpl_valid", u64::from(cpl.is_some()));
        set(&mut m, "cpl_channel", u64::from(cpl.map_or(0, |c| c.0)));
        set(&mut m, "cpl_status", u64::from(cpl.map_or(0, |c| c.1)));
        // the status of a stream two cycles after naming it, as of that cycle
        while completions_counted.front().is_some_and(|c| c.0 <= cycle) {
            let (_, stream) = completions_counted.pop_front().expect("due");
            *held_now.get_mut(&stream).expect("a completion after its post") -= 1;
        }
        if status_expected.len() == 2 {
            let (stream, want) = status_expected.pop_front().expect("two");
            let held = get(&mut m, "status_held_messages");
            if held != want {
                return Err(format!(
                    "cycle {cycle}: stream {stream} holds {held} messages by its status, {want} posted and not completed"
                ));
            }
        }
        let watch = watched[rng.gen_range(0..watched.len())];
        set(&mut m, "status_stream", watch as u64);
        status_expected.push_back((watch, held_now.get(&watch).copied().unwrap_or(0)));
        // releases: stream by stream in record order, each after its message finished
        if get(&mut m, "release_valid") != 0 {
            let stream = get(&mut m, "release_stream") as usize;
            let beats = get(&mut m, "release_beats") as u32;
            let index = unreleased
                .get_mut(&stream)
                .and_then(VecDeque::pop_front)
                .ok_or(format!("cycle {cycle}: a release for stream {stream}, which holds nothing"))?;
            if !finished[index] {
                return Err(format!(
                    "cycle {cycle}: record {index} (stream {stream}) released before it finished"
                ));
            }
            if beats != records[index].message.beats {
                return Err(format!(
                    "cycle {cycle}: record {index} released {beats} beats, it holds {}",
                    records[index].message.beats
                ));
            }
            released += 1;
            last_progress = cycle;
        }
        m.step(1);
        cycle += 1;
        if record_taken {
            taken = Some(next_record);
            unreleased.entry(records[next_record].stream).or_default().push_back(next_record);
            next_record += 1;
            presenting = false;
            last_progress = cycle;
        }
        if cycle - last_progress > PROGRESS_LIMIT {
            return Err(format!("cycle {cycle}: no progress ({released} of {} released)", records.len()));
        }
    }
    set(&mut m, "cpl_valid", 0);
    m.step(4);
    if got.failed != want_failed {
        return Err(format!("{} failed completions, {want_failed} sent", got.failed));
    }
    for &stream in &watched {
        set(&mut m, "status_stream", stream as u64);
        m.step(2);
        let counts = &counted.get(&stream).copied().unwrap_or_default();
        let want = [
            ("status_held_messages", 0),
            ("status_posted", counts[0]),
            ("status_completed", counts[1]),
            ("status_failed", counts[2]),
            ("status_refused", counts[3]),
        ];
        for (name, want) in want {
            let v = get(&mut m, name);
            if v != want {
                return Err(format!("stream {stream}'s {name}: {v}, expected {want}"));
            }
        }
    }
    got.cycles = cycle;
    Ok(got)
}
