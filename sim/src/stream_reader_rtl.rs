//! Runner of the stream reader's Verilator models (`ferroce_stream_reader_w64`, `_w512`, top
//! `stream_reader`), used by its co-simulation (`sim/tests/stream_reader_cosim.rs`).
//!
//! [`run`] gives the reader read commands under random idle, answers its buffer reads a cycle
//! later from a window of random bytes (as the ports' buffers would), takes the payload under
//! random backpressure, and checks the AXI-Stream rules and that each read's bytes are the
//! window's `length` bytes from its address's beat (round its port's buffer, the ports twice a
//! buffer's size apart), from lane 0, the
//! last beat with `tlast` and the keep of the bytes left (the DataMover read the TX path
//! expects). The window's byte at (beat, lane) is a hash of the two.

use crate::verilated::{Model, Traffic};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::HashMap;

/// The co-simulated variants: (variant, bytes per beat, beats of a port's buffer).
pub const VARIANTS: [(&str, usize, u64); 2] = [("w64", 8, 4096), ("w512", 64, 512)];
/// Cycles without progress before a run is an error.
pub const PROGRESS_LIMIT: u64 = 2_000;

/// A read command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Read {
    /// The address.
    pub address: u64,
    /// Bytes (1 to 4096).
    pub length: u32,
}

/// What came out.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ReaderRun {
    /// Payload beats.
    pub beats: u64,
    /// Cycles from the first command taken to the last beat taken.
    pub busy_cycles: u64,
    /// The counter of misaligned reads.
    pub misaligned: u64,
}

/// Runs `reads` through the reader's variant `variant` under `traffic`.
pub fn run(variant: &str, reads: &[Read], traffic: Traffic) -> Result<ReaderRun, String> {
    let &(_, lanes, buffer_beats) = VARIANTS
        .iter()
        .find(|v| v.0 == variant)
        .ok_or_else(|| format!("no variant {variant}"))?;
    let e = |e: crate::verilated::SimError| e.to_string();
    let mut m = Model::new(&format!("ferroce_stream_reader_{variant}")).map_err(e)?;
    let mut ports = HashMap::new();
    for name in [
        "s_read_valid",
        "s_read_ready",
        "s_read_addr",
        "s_read_len",
        "buffer_address",
        "buffer_data",
        "m_pay_tvalid",
        "m_pay_tready",
        "m_pay_tdata",
        "m_pay_tkeep",
        "m_pay_tlast",
        "misaligned_reads",
    ] {
        ports.insert(name, m.port(name).map_err(e)?);
    }
    let mut rng = ChaCha8Rng::seed_from_u64(traffic.seed);
    let byte = |beat: u64, lane: usize| -> u8 {
        let x =
            (beat ^ traffic.seed.rotate_left(17)).wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ (lane as u64).wrapping_mul(0xD1B5_4A32_D192_ED03);
        (x >> 29) as u8
    };
    let beat_words = |beat: u64| -> Vec<u32> {
        (0..lanes)
            .map(|lane| byte(beat, lane))
            .collect::<Vec<u8>>()
            .chunks(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect()
    };
    // the bytes each read must give, in order: from its first beat on, round its buffer
    let mut expected: std::collections::VecDeque<Vec<u8>> = reads
        .iter()
        .map(|r| {
            let first = r.address / lanes as u64 % (1 << 24);
            // the port's bits lie above the buffer's beats and one spare bit
            let (buffer, beat) = (first & !(2 * buffer_beats - 1), first & (buffer_beats - 1));
            (0..r.length as usize)
                .map(|i| byte(buffer | ((beat + (i / lanes) as u64) & (buffer_beats - 1)), i % lanes))
                .collect()
        })
        .collect();
    m.reset(2);
    let mut got = ReaderRun::default();
    let mut next = 0usize;
    let mut presenting = false;
    let mut current: Vec<u8> = Vec::new();
    let mut held: Option<(Vec<u32>, u64, bool)> = None;
    let mut first_cycle = None;
    let mut cycle = 0u64;
    let mut last_progress = 0u64;
    while !expected.is_empty() {
        if !presenting && next < reads.len() && rng.gen_range(0..100) >= traffic.idle_pct {
            m.set_u64(ports["s_read_addr"], reads[next].address);
            m.set_u64(ports["s_read_len"], u64::from(reads[next].length));
            presenting = true;
        }
        m.set_u64(ports["s_read_valid"], u64::from(presenting));
        let command_taken = presenting && m.get_u64(ports["s_read_ready"]) != 0;
        let ready = rng.gen_range(0..100) >= traffic.bp_pct;
        m.set_u64(ports["m_pay_tready"], u64::from(ready));
        // the buffer answers the address of the last cycle (set before this edge)
        let address = m.get_u64(ports["buffer_address"]);
        let valid = m.get_u64(ports["m_pay_tvalid"]) != 0;
        if let Some((data, keep, last)) = &held {
            // a beat offered must stay until taken
            if !valid
                || m.get(ports["m_pay_tdata"]) != *data
                || m.get_u64(ports["m_pay_tkeep"]) != *keep && lanes <= 64
                || (m.get_u64(ports["m_pay_tlast"]) != 0) != *last
            {
                return Err(format!("cycle {cycle}: a payload beat changed or went while stalled"));
            }
        }
        if valid {
            let data = m.get(ports["m_pay_tdata"]);
            let keep_words = m.get(ports["m_pay_tkeep"]);
            let keep = keep_words[0] as u64 | (keep_words.get(1).copied().unwrap_or(0) as u64) << 32;
            let last = m.get_u64(ports["m_pay_tlast"]) != 0;
            if ready {
                held = None;
                let bytes: Vec<u8> = data.iter().flat_map(|w| w.to_le_bytes()).collect();
                let n = keep.count_ones() as usize;
                if keep != u64::MAX >> (64 - n.max(1)) && n != 0 {
                    return Err(format!("cycle {cycle}: keep {keep:#x} not contiguous from lane 0"));
                }
                current.extend_from_slice(&bytes[..n]);
                got.beats += 1;
                last_progress = cycle;
                if last {
                    let want = expected.pop_front().ok_or("a read too many")?;
                    if current != want {
                        let at = current.iter().zip(&want).position(|(a, b)| a != b);
                        return Err(format!(
                            "cycle {cycle}: read {} gave {} bytes (first differing at {at:?}), {} expected",
                            reads.len() - expected.len() - 1,
                            current.len(),
                            want.len()
                        ));
                    }
                    current.clear();
                    got.busy_cycles = cycle + 1 - first_cycle.unwrap_or(cycle);
                } else if current.len() >= expected.front().map_or(0, |w| w.len()) {
                    return Err(format!("cycle {cycle}: no tlast on a read's last beat"));
                }
            } else {
                held = Some((data, keep, last));
            }
        }
        m.step(1);
        m.set(ports["buffer_data"], &beat_words(address));
        cycle += 1;
        if command_taken {
            first_cycle.get_or_insert(cycle - 1);
            presenting = false;
            next += 1;
            last_progress = cycle;
        }
        if cycle - last_progress > PROGRESS_LIMIT {
            return Err(format!("cycle {cycle}: no progress, {} reads left", expected.len()));
        }
    }
    got.misaligned = m.get_u64(ports["misaligned_reads"]);
    Ok(got)
}
