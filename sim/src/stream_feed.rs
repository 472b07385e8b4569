//! The data sources of a unit's streams: [`StreamFeed`] for packed stream ports
//! (`<prefix>_tvalid` bit `s` for stream `s`, `tdata` and `tkeep` packed `s × W` and `s × K`
//! up, `tready`, `tlast`), [`BusFeed`] for streams sharing one AXI-Stream a packet at a time
//! (`tdest`), and [`StreamSources`] for either, as the unit's ports have them. Each stream's
//! bytes go in full beats, presented under random idle, a beat held until taken (the
//! AXI-Stream rule).

use crate::verilated::{Model, SimError};
use rand::Rng;
use rand_chacha::ChaCha8Rng;
use std::collections::VecDeque;

/// The sources of `streams` packed streams.
pub struct StreamFeed {
    valid: usize,
    ready: usize,
    data: usize,
    keep: usize,
    last: usize,
    beat_bytes: usize,
    /// Each stream's bytes still to send, a `tlast` after the byte at each marked end.
    queues: Vec<VecDeque<(u8, bool)>>,
    /// The streams presenting a beat (bit `s`).
    presenting: u64,
    data_words: Vec<u32>,
    last_bits: u64,
    /// Percent chance per cycle that a stream with bytes idles before its next beat.
    pub idle_pct: u32,
    /// Bytes each stream has had taken.
    pub taken: Vec<u64>,
}

impl StreamFeed {
    /// The sources on `<prefix>_t*` of `m`, `beat_bytes` bytes a beat per stream.
    pub fn new(m: &mut Model, prefix: &str, beat_bytes: usize, idle_pct: u32) -> Result<StreamFeed, SimError> {
        let port = |name: &str| m.port(&format!("{prefix}_{name}"));
        let valid = port("tvalid")?;
        let streams = m.ports()[valid].width;
        assert!(streams <= 64, "at most 64 packed streams");
        let feed = StreamFeed {
            valid,
            ready: port("tready")?,
            data: port("tdata")?,
            keep: port("tkeep")?,
            last: port("tlast")?,
            beat_bytes,
            queues: vec![VecDeque::new(); streams],
            presenting: 0,
            data_words: vec![0; (streams * beat_bytes).div_ceil(4)],
            last_bits: 0,
            idle_pct,
            taken: vec![0; streams],
        };
        let keep = vec![u32::MAX; (streams * beat_bytes).div_ceil(32)];
        m.set(feed.keep, &keep);
        m.set_u64(feed.valid, 0);
        Ok(feed)
    }

    /// Streams.
    pub fn streams(&self) -> usize {
        self.queues.len()
    }

    /// Queues `bytes` (whole beats) on `stream`, with `tlast` on the last beat when `last`.
    pub fn push(&mut self, stream: usize, bytes: &[u8], last: bool) {
        assert!(bytes.len().is_multiple_of(self.beat_bytes), "whole beats");
        let n = bytes.len();
        self.queues[stream].extend(bytes.iter().enumerate().map(|(i, &b)| (b, last && i + 1 == n)));
    }

    /// Bytes not yet taken, over every stream.
    pub fn pending(&self) -> usize {
        self.queues.iter().map(VecDeque::len).sum()
    }

    /// Drives this cycle's beats: a stream presenting keeps its beat; one with bytes starts
    /// presenting unless it idles.
    pub fn drive(&mut self, m: &mut Model, rng: &mut ChaCha8Rng) {
        for s in 0..self.streams() {
            if self.presenting >> s & 1 != 0 || self.queues[s].len() < self.beat_bytes || rng.gen_range(0..100) < self.idle_pct {
                continue;
            }
            self.presenting |= 1 << s;
            let beat: Vec<(u8, bool)> = self.queues[s].iter().take(self.beat_bytes).copied().collect();
            for (i, chunk) in beat.chunks(4).enumerate() {
                let word = chunk.iter().rev().fold(0u32, |w, &(b, _)| w << 8 | u32::from(b));
                self.data_words[(s * self.beat_bytes) / 4 + i] = word;
            }
            self.last_bits = self.last_bits & !(1 << s) | u64::from(beat.iter().any(|b| b.1)) << s;
        }
        m.set_u64(self.valid, self.presenting);
        m.set(self.data, &self.data_words);
        m.set_u64(self.last, self.last_bits);
    }

    /// After the evaluation: the beats taken leave their queues.
    pub fn sample(&mut self, m: &mut Model) {
        let taken = self.presenting & m.peek_u64(self.ready);
        for s in 0..self.streams() {
            if taken >> s & 1 != 0 {
                self.queues[s].drain(..self.beat_bytes);
                self.taken[s] += self.beat_bytes as u64;
            }
        }
        self.presenting &= !taken;
    }
}

/// How a bus source cuts each stream's bytes into packets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BusPackets {
    /// Each of 1 to this many beats, drawn at random.
    UpTo(usize),
    /// Each of this many beats (fewer only where a stream's queued bytes end), as a source of
    /// fixed frames sends them.
    Exactly(usize),
}

impl BusPackets {
    /// The beats of the next packet.
    fn draw(self, rng: &mut ChaCha8Rng) -> usize {
        match self {
            BusPackets::UpTo(beats) => rng.gen_range(1..=beats),
            BusPackets::Exactly(beats) => beats,
        }
    }
}

/// The source of a stream bus (`<prefix>_tvalid`, `tready`, `tdata`, `tkeep`, `tlast`,
/// `tdest`): each stream's bytes in whole beats, cut into packets as `packets` says, the
/// packets of the streams with bytes taken in random turns, a packet's beats in a row (`tdest`
/// its stream, `tlast` on its last beat) under random idle, a beat held until taken.
pub struct BusFeed {
    valid: usize,
    ready: usize,
    data: usize,
    last: usize,
    dest: usize,
    beat_bytes: usize,
    /// How each stream's bytes are cut into packets.
    packets: BusPackets,
    queues: Vec<VecDeque<u8>>,
    /// The packet being sent: its stream and beats left.
    packet: Option<(usize, usize)>,
    presenting: bool,
    /// Percent chance per cycle that the source idles before its next beat.
    pub idle_pct: u32,
    /// Bytes each stream has had taken.
    pub taken: Vec<u64>,
}

impl BusFeed {
    /// The source on `<prefix>_t*` of `m` for `streams` streams, `beat_bytes` bytes a beat.
    pub fn new(
        m: &mut Model,
        prefix: &str,
        streams: usize,
        beat_bytes: usize,
        packets: BusPackets,
        idle_pct: u32,
    ) -> Result<BusFeed, SimError> {
        let port = |name: &str| m.port(&format!("{prefix}_{name}"));
        let feed = BusFeed {
            valid: port("tvalid")?,
            ready: port("tready")?,
            data: port("tdata")?,
            last: port("tlast")?,
            dest: port("tdest")?,
            beat_bytes,
            packets,
            queues: vec![VecDeque::new(); streams],
            packet: None,
            presenting: false,
            idle_pct,
            taken: vec![0; streams],
        };
        let keep = port("tkeep")?;
        m.set(keep, &vec![u32::MAX; beat_bytes.div_ceil(32)]);
        m.set_u64(feed.valid, 0);
        Ok(feed)
    }

    /// Queues `bytes` (whole beats) on `stream`.
    pub fn push(&mut self, stream: usize, bytes: &[u8]) {
        assert!(bytes.len().is_multiple_of(self.beat_bytes), "whole beats");
        self.queues[stream].extend(bytes);
    }

    /// Bytes not yet taken, over every stream.
    pub fn pending(&self) -> usize {
        self.queues.iter().map(VecDeque::len).sum()
    }

    /// Drives this cycle's beat: a beat presented stays; else the packet's next beat, or a new
    /// packet of a stream with bytes, unless the source idles.
    pub fn drive(&mut self, m: &mut Model, rng: &mut ChaCha8Rng) {
        if !self.presenting && rng.gen_range(0..100) >= self.idle_pct {
            if self.packet.is_none() {
                let waiting: Vec<usize> = (0..self.queues.len()).filter(|&s| !self.queues[s].is_empty()).collect();
                if !waiting.is_empty() {
                    let stream = waiting[rng.gen_range(0..waiting.len())];
                    let beats = (self.queues[stream].len() / self.beat_bytes).min(self.packets.draw(rng));
                    self.packet = Some((stream, beats));
                }
            }
            if let Some((stream, beats)) = self.packet {
                let beat: Vec<u8> = self.queues[stream].iter().take(self.beat_bytes).copied().collect();
                let words: Vec<u32> = beat
                    .chunks(4)
                    .map(|c| c.iter().rev().fold(0u32, |w, &b| w << 8 | u32::from(b)))
                    .collect();
                m.set(self.data, &words);
                m.set_u64(self.dest, stream as u64);
                m.set_u64(self.last, u64::from(beats == 1));
                self.presenting = true;
            }
        }
        m.set_u64(self.valid, u64::from(self.presenting));
    }

    /// After the evaluation: a beat taken leaves its queue.
    pub fn sample(&mut self, m: &mut Model) {
        if !self.presenting || m.peek_u64(self.ready) == 0 {
            return;
        }
        let (stream, beats) = self.packet.expect("a packet presented");
        self.queues[stream].drain(..self.beat_bytes);
        self.taken[stream] += self.beat_bytes as u64;
        self.packet = (beats > 1).then_some((stream, beats - 1));
        self.presenting = false;
    }
}

/// The sources of a unit's streams: ports of their own ([`StreamFeed`]), or one bus
/// ([`BusFeed`]) where the unit has a `<prefix>_tdest`.
pub enum StreamSources {
    /// Packed stream ports.
    Ports(StreamFeed),
    /// Streams sharing one AXI-Stream.
    Bus(BusFeed),
}

impl StreamSources {
    /// The sources on `<prefix>_t*` of `m`: a bus of `streams` streams in `packets` if `m` has
    /// `<prefix>_tdest`, else its packed ports.
    pub fn new(
        m: &mut Model,
        prefix: &str,
        streams: usize,
        beat_bytes: usize,
        packets: BusPackets,
        idle_pct: u32,
    ) -> Result<StreamSources, SimError> {
        Ok(if m.port(&format!("{prefix}_tdest")).is_ok() {
            StreamSources::Bus(BusFeed::new(m, prefix, streams, beat_bytes, packets, idle_pct)?)
        } else {
            StreamSources::Ports(StreamFeed::new(m, prefix, beat_bytes, idle_pct)?)
        })
    }

    /// Queues `bytes` (whole beats) on `stream`, with `tlast` on the last beat when `last` (a
    /// port's; the bus cuts its own packets, so `last` is for ports only).
    pub fn push(&mut self, stream: usize, bytes: &[u8], last: bool) {
        match self {
            StreamSources::Ports(feed) => feed.push(stream, bytes, last),
            StreamSources::Bus(feed) => {
                assert!(!last, "a bus's packets end where its source cuts them");
                feed.push(stream, bytes)
            }
        }
    }

    /// A bus's packets from now on cut as `packets` says (ports have no packets of their own).
    pub fn cut_packets(&mut self, packets: BusPackets) {
        if let StreamSources::Bus(feed) = self {
            feed.packets = packets;
        }
    }

    /// Bytes not yet taken, over every stream.
    pub fn pending(&self) -> usize {
        match self {
            StreamSources::Ports(feed) => feed.pending(),
            StreamSources::Bus(feed) => feed.pending(),
        }
    }

    /// Drives this cycle's beats.
    pub fn drive(&mut self, m: &mut Model, rng: &mut ChaCha8Rng) {
        match self {
            StreamSources::Ports(feed) => feed.drive(m, rng),
            StreamSources::Bus(feed) => feed.drive(m, rng),
        }
    }

    /// After the evaluation: the beats taken leave their queues.
    pub fn sample(&mut self, m: &mut Model) {
        match self {
            StreamSources::Ports(feed) => feed.sample(m),
            StreamSources::Bus(feed) => feed.sample(m),
        }
    }

    /// Bytes each stream has had taken.
    pub fn taken(&self) -> &[u64] {
        match self {
            StreamSources::Ports(feed) => &feed.taken,
            StreamSources::Bus(feed) => &feed.taken,
        }
    }
}
