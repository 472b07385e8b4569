//! [`StreamFeed`]: the data sources of a unit's packed stream ports (`<prefix>_tvalid` bit `s`
//! for stream `s`, `tdata` and `tkeep` packed `s × W` and `s × K` up, `tready`, `tlast`): each
//! stream's bytes in full beats, presented under random idle, a beat held until taken (the
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
