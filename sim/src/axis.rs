//! Frames over an AXI-Stream bus: splitting frames into beats (byte 0 in `tdata[7:0]`, `tkeep`
//! contiguous from bit 0) and collecting beats back into frames.

use crate::verilated::{Model, SimError, Stream, Traffic};

/// One beat of up to `bytes_per_beat` bytes as the words of `tdata` and `tkeep` (byte 0 in
/// `tdata[7:0]`, `tkeep` set from bit 0 for each byte).
pub fn pack_beat(chunk: &[u8], bytes_per_beat: usize) -> (Vec<u32>, Vec<u32>) {
    assert!(chunk.len() <= bytes_per_beat, "{} bytes in a beat of {bytes_per_beat}", chunk.len());
    let mut d = vec![0u32; bytes_per_beat.div_ceil(4)];
    for (i, &byte) in chunk.iter().enumerate() {
        d[i / 4] |= (byte as u32) << (8 * (i % 4));
    }
    let mut k = vec![0u32; bytes_per_beat.div_ceil(32)];
    for i in 0..chunk.len() {
        k[i / 32] |= 1 << (i % 32);
    }
    (d, k)
}

/// Splits frames into beats of `width / 8` bytes and packs them as the words of the ports
/// `tdata`, `tkeep`, `tlast` (in that order).
pub fn pack_frames(frames: &[Vec<u8>], width: usize) -> (Vec<u32>, usize) {
    let b = width / 8;
    let mut words = Vec::new();
    let mut beats = 0;
    for f in frames {
        assert!(!f.is_empty(), "an AXI-Stream frame has at least one byte");
        let nbeats = f.len().div_ceil(b);
        for (j, chunk) in f.chunks(b).enumerate() {
            let (d, k) = pack_beat(chunk, b);
            words.extend_from_slice(&d);
            words.extend_from_slice(&k);
            words.push((j + 1 == nbeats) as u32);
            beats += 1;
        }
    }
    (words, beats)
}

/// A frame received on the sink.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RxFrame {
    /// Bytes whose `tkeep` bit was set.
    pub bytes: Vec<u8>,
    /// Every beat's `tkeep` was contiguous from bit 0, and all but the last beat were full.
    pub keep_ok: bool,
    /// Values of the extra sink ports on the last beat, in the order they were asked for.
    pub side: Vec<u64>,
    /// Cycle at which the last beat was taken.
    pub last_cycle: u64,
}

/// Result of [`run_frames`].
pub struct FrameRun {
    pub frames: Vec<RxFrame>,
    pub cycles: u64,
    pub beats_in: usize,
    pub beats_out: usize,
    /// Cycle at which each input frame's last beat was accepted.
    pub in_last_cycle: Vec<u64>,
}

/// Sends `frames` through a model with `s_axis_*` and `m_axis_*` ports and collects what comes
/// out, reading the extra sink ports `side` (each ≤ 32 bits) on every last beat. The model is
/// reset first. `expect_beats` (if known) stops the run as soon as that many beats arrived.
pub fn run_frames(
    model: &mut Model,
    frames: &[Vec<u8>],
    width: usize,
    traffic: Traffic,
    side: &[&str],
    expect_beats: usize,
) -> Result<FrameRun, SimError> {
    model.reset(2);
    let (src_words, n_src_beats) = pack_frames(frames, width);
    let mut snk_payload = vec!["m_axis_tdata", "m_axis_tkeep", "m_axis_tlast"];
    snk_payload.extend_from_slice(side);
    let s = Stream {
        src_valid: "s_axis_tvalid",
        src_ready: "s_axis_tready",
        src_payload: vec!["s_axis_tdata", "s_axis_tkeep", "s_axis_tlast"],
        snk_valid: "m_axis_tvalid",
        snk_ready: "m_axis_tready",
        snk_payload,
        src_words,
        n_src_beats,
        expect_snk_beats: expect_beats,
        traffic,
        max_cycles: 64 + 20 * (n_src_beats as u64 + 16) * (100 + traffic.idle_pct as u64 * 4 + traffic.bp_pct as u64 * 4) / 100,
    };
    let r = model.run_stream(&s)?;
    let b = width / 8;
    let dw = width / 32;
    let kw = b.div_ceil(32);
    let mut frames_out = Vec::new();
    let mut cur = Vec::new();
    let mut keep_ok = true;
    for i in 0..r.beats {
        let w = r.beat(i);
        let (d, rest) = w.split_at(dw);
        let (k, rest) = rest.split_at(kw);
        let last = rest[0] & 1 != 0;
        let keep_bit = |i: usize| (k[i / 32] >> (i % 32)) & 1 != 0;
        let n = (0..b).take_while(|&i| keep_bit(i)).count();
        if (n..b).any(keep_bit) || (!last && n != b) || n == 0 {
            keep_ok = false;
        }
        for i in 0..b {
            if keep_bit(i) {
                cur.push((d[i / 4] >> (8 * (i % 4))) as u8);
            }
        }
        if last {
            // Side ports are at most 32 bits wide: one word each after tlast.
            let vals = rest[1..=side.len()].iter().map(|&v| v as u64).collect();
            frames_out.push(RxFrame {
                bytes: std::mem::take(&mut cur),
                keep_ok,
                side: vals,
                last_cycle: r.snk_cycle[i],
            });
            keep_ok = true;
        }
    }
    // Input last-beat cycles.
    let mut in_last = Vec::new();
    let mut beat = 0;
    for f in frames {
        beat += f.len().div_ceil(b);
        in_last.push(r.src_cycle[beat - 1]);
    }
    Ok(FrameRun {
        frames: frames_out,
        cycles: r.cycles,
        beats_in: n_src_beats,
        beats_out: r.beats,
        in_last_cycle: in_last,
    })
}
