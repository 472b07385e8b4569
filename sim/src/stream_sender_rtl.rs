//! Runner of the stream sender's Verilator models (`ferroce_stream_sender_w64`, `_w512`, top
//! `stream_sender`), used by its co-simulation (`sim/tests/stream_sender_cosim.rs`).
//!
//! [`run`] presents message records under random idle; a stand-in for the TX path takes posts
//! under random backpressure, answers each (accepted, channel busy now and then, refused for
//! the records named), completes accepted posts after a random delay with a status drawn at
//! random, and sends completions for channels that are not the sender's. Every post attempt
//! must be [`StreamTarget::post`] of its record; at most the channel count is in flight, on
//! distinct channels; releases come in record order, each after its message's completion or
//! refusal; the counters add up.

use crate::models::contracts::stream::{MESSAGE_OP, STREAM_MESSAGE};
use crate::models::contracts::tx::{CompletionStatus, PostError, POST};
use crate::models::stream::{StreamPost, StreamTarget};
use crate::verilated::{Model, Traffic};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::{HashMap, HashSet, VecDeque};

/// The co-simulated variants: (variant, bytes per beat).
pub const VARIANTS: [(&str, u32); 2] = [("w64", 8), ("w512", 64)];
/// Cycles without progress before a run is an error.
pub const PROGRESS_LIMIT: u64 = 20_000;

/// A message record as the port gives it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Record {
    /// The buffer beat of its first byte.
    pub buffer_beat: u32,
    /// Its beats.
    pub beats: u32,
    /// Its bytes.
    pub length: u32,
    /// Its slot.
    pub slot: u32,
    /// Its immediate.
    pub immediate: u32,
    /// Its solicited bit.
    pub solicited: bool,
}

impl Record {
    /// The record as the port gives it (`STREAM_MESSAGE`), message `sequence` of its stream.
    pub fn words(&self, sequence: u64) -> Vec<u32> {
        STREAM_MESSAGE
            .encode(&[
                ("buffer_beat", u128::from(self.buffer_beat)),
                ("beats", u128::from(self.beats)),
                ("length", u128::from(self.length)),
                ("solicited", u128::from(self.solicited)),
                ("sequence", u128::from(sequence)),
                ("slot", u128::from(self.slot)),
                ("immediate", u128::from(self.immediate)),
            ])
            .expect("record fields fit")
    }
}

/// How the TX path stand-in behaves.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Behaviour {
    /// Source idle and post backpressure.
    pub traffic: Traffic,
    /// Percent of post attempts answered "channel busy".
    pub busy_pct: u32,
    /// Records whose post is refused `qp_not_ready` (by index).
    pub refused: HashSet<usize>,
    /// Completions come this many cycles after the post at most.
    pub completion_delay: u64,
    /// Percent of completions with an error status.
    pub failed_pct: u32,
}

impl Behaviour {
    /// The answer to the `attempt`-th post of record `index`: refused (`qp_not_ready`) for the
    /// records named, "channel busy" at random for its first three attempts, else accepted (0).
    pub fn answer(&self, index: usize, attempt: u32, rng: &mut impl Rng) -> u64 {
        if self.refused.contains(&index) {
            u64::from(PostError::QpNotReady.code())
        } else if attempt < 4 && rng.gen_range(0..100) < self.busy_pct {
            u64::from(PostError::ChannelBusy.code())
        } else {
            0
        }
    }
}

/// What happened.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SenderRun {
    /// Post attempts accepted.
    pub posted: u64,
    /// Attempts answered busy.
    pub busy: u64,
    /// Completions with success and with an error, for the sender's posts.
    pub completed: u64,
    /// Completions with an error status.
    pub failed: u64,
    /// The most messages in flight at once.
    pub most_in_flight: usize,
    /// Cycles.
    pub cycles: u64,
}

const PORTS: [&str; 27] = [
    "enable",
    "qp",
    "scheduler_queue",
    "first_channel",
    "channel_mask",
    "base_va",
    "slot_beats",
    "window_base",
    "s_message_valid",
    "s_message_ready",
    "s_message_entry",
    "post_valid",
    "post_ready",
    "post_entry",
    "post_result_valid",
    "post_result_code",
    "cpl_valid",
    "cpl_channel",
    "cpl_status",
    "release_valid",
    "release_beats",
    "held_messages",
    "posted",
    "completed",
    "failed",
    "refused",
    "reset",
];

pub(crate) fn decode_post(words: &[u32]) -> StreamPost {
    let field = |name: &str| POST.decode(words, name);
    assert_eq!(
        field("op"),
        u128::from(MESSAGE_OP.code()),
        "a stream post is a WRITE with immediate as one message"
    );
    assert_eq!(field("imm_every_block"), 0);
    StreamPost {
        channel: field("channel") as u32,
        queue: field("queue") as u32,
        qp: field("qp") as u32,
        local_addr: field("local_addr") as u64,
        remote_addr: field("remote_addr") as u64,
        length: field("length") as u32,
        immediate: field("immediate") as u32,
        solicited: field("solicited") != 0,
    }
}

/// Runs `records` through the sender's variant `variant` with `target` (its `beat_bytes` is the
/// variant's) against a TX path behaving as `behaviour`.
pub fn run(variant: &str, target: &StreamTarget, records: &[Record], behaviour: &Behaviour) -> Result<SenderRun, String> {
    let e = |e: crate::verilated::SimError| e.to_string();
    let mut m = Model::new(&format!("ferroce_stream_sender_{variant}")).map_err(e)?;
    let mut ports = HashMap::new();
    for name in PORTS {
        ports.insert(name, m.port(name).map_err(e)?);
    }
    let set = |m: &mut Model, name: &str, v: u64| m.set_u64(ports[name], v);
    m.reset(2);
    set(&mut m, "qp", u64::from(target.qp));
    set(&mut m, "scheduler_queue", u64::from(target.queue));
    set(&mut m, "first_channel", u64::from(target.first_channel));
    set(&mut m, "channel_mask", u64::from(target.channels - 1));
    set(&mut m, "base_va", target.base_va);
    set(&mut m, "slot_beats", u64::from(target.slot_bytes / target.beat_bytes));
    set(&mut m, "window_base", target.window_base);
    set(&mut m, "enable", 1);
    let get = |m: &mut Model, name: &str| m.get_u64(ports[name]);

    let mut rng = ChaCha8Rng::seed_from_u64(behaviour.traffic.seed);
    let mut got = SenderRun::default();
    let mut next_record = 0usize;
    let mut presenting = false;
    // the post being answered: (cycle of the answer, code, record index)
    let mut answer: Option<(u64, u64, usize)> = None;
    // accepted posts waiting for their completion: (cycle, channel, status, record index)
    let mut completions: Vec<(u64, u32, u8, usize)> = Vec::new();
    let mut in_flight: HashMap<u32, usize> = HashMap::new();
    // per record: finished (completed or refused), released
    let mut finished = vec![false; records.len()];
    let mut attempts_of = vec![0u32; records.len()];
    let mut taken: VecDeque<usize> = VecDeque::new();
    let mut released = 0usize;
    let mut last_progress = 0u64;
    let mut cycle = 0u64;
    let mut want_failed = 0u64;
    while released < records.len() {
        // the source of records
        if !presenting && next_record < records.len() && rng.gen_range(0..100) >= behaviour.traffic.idle_pct {
            m.set(ports["s_message_entry"], &records[next_record].words(next_record as u64));
            presenting = true;
        }
        set(&mut m, "s_message_valid", u64::from(presenting));
        let record_taken = presenting && get(&mut m, "s_message_ready") != 0;
        // the TX path's post port: one post answered at a time
        let post_ready = answer.is_none() && rng.gen_range(0..100) >= behaviour.traffic.bp_pct;
        set(&mut m, "post_ready", u64::from(post_ready));
        if post_ready && get(&mut m, "post_valid") != 0 {
            let index = *taken.back().ok_or("a post before any record was taken")?;
            let post = decode_post(&m.get(ports["post_entry"]));
            let r = &records[index];
            let want = target.post(index as u64, r.buffer_beat, r.slot, r.length, r.immediate, r.solicited);
            if post != want {
                return Err(format!("cycle {cycle}: record {index} posted as {post:?}, the model's {want:?}"));
            }
            if in_flight.contains_key(&post.channel) {
                return Err(format!("cycle {cycle}: a post on channel {} while it is in flight", post.channel));
            }
            attempts_of[index] += 1;
            let code = behaviour.answer(index, attempts_of[index], &mut rng);
            got.busy += u64::from(code == u64::from(PostError::ChannelBusy.code()));
            answer = Some((cycle + rng.gen_range(1..4), code, index));
            if code == 0 {
                got.posted += 1;
                in_flight.insert(post.channel, index);
                got.most_in_flight = got.most_in_flight.max(in_flight.len());
                let status = if rng.gen_range(0..100) < behaviour.failed_pct {
                    want_failed += 1;
                    CompletionStatus::TransportRetryExceeded.code()
                } else {
                    0
                };
                completions.push((
                    cycle + rng.gen_range(8..=behaviour.completion_delay.max(8)),
                    post.channel,
                    status,
                    index,
                ));
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
        }
        // completions: the sender's, and now and then one for a channel that is not its own
        let due = completions.iter().position(|c| c.0 <= cycle);
        let mut cpl = None;
        if let Some(i) = due {
            let (_, channel, status, index) = completions.remove(i);
            in_flight.remove(&channel);
            finished[index] = true;
            if status == 0 {
                got.completed += 1;
            } else {
                got.failed += 1;
            }
            cpl = Some((channel, status));
        } else if rng.gen_range(0..100) < 5 {
            cpl = Some((target.first_channel + target.channels + rng.gen_range(0..3), 0));
        }
        set(&mut m, "cpl_valid", u64::from(cpl.is_some()));
        set(&mut m, "cpl_channel", u64::from(cpl.map_or(0, |c| c.0)));
        set(&mut m, "cpl_status", u64::from(cpl.map_or(0, |c| c.1)));
        // releases: in record order, each after its message finished
        if get(&mut m, "release_valid") != 0 {
            let beats = get(&mut m, "release_beats") as u32;
            let index = released;
            if index >= next_record + usize::from(record_taken) || !finished[index] {
                return Err(format!("cycle {cycle}: record {index} released before it finished"));
            }
            if beats != records[index].beats {
                return Err(format!(
                    "cycle {cycle}: record {index} released {beats} beats, it holds {}",
                    records[index].beats
                ));
            }
            released += 1;
            last_progress = cycle;
        }
        m.step(1);
        cycle += 1;
        if record_taken {
            taken.push_back(next_record);
            next_record += 1;
            presenting = false;
            last_progress = cycle;
        }
        if cycle - last_progress > PROGRESS_LIMIT {
            return Err(format!("cycle {cycle}: no progress ({released} of {} released)", records.len()));
        }
    }
    for _ in 0..4 {
        m.step(1);
    }
    let counters = [
        ("posted", got.posted),
        ("completed", got.completed),
        ("failed", got.failed),
        ("refused", behaviour.refused.iter().filter(|&&i| i < records.len()).count() as u64),
        ("held_messages", 0),
    ];
    for (name, want) in counters {
        let v = get(&mut m, name);
        if v != want {
            return Err(format!("counter {name}: {v}, expected {want}"));
        }
    }
    if got.failed != want_failed {
        return Err(format!("{} failed completions, {want_failed} sent", got.failed));
    }
    if got.most_in_flight > target.channels as usize {
        return Err(format!("{} in flight with {} channels", got.most_in_flight, target.channels));
    }
    got.cycles = cycle;
    Ok(got)
}
