//! Runner of the stream read router's Verilator models (`ferroce_stream_read_router_w64`,
//! `_w512`, top `stream_read_router`), used by its co-simulation
//! (`sim/tests/stream_read_router_cosim.rs`).
//!
//! [`run`] gives the router read commands (memory and stream-window addresses mixed) under
//! random idle; each side takes its commands under random backpressure and answers them in its
//! own order after its own latency, one beat a cycle but for random stalls (a side's byte at
//! an address is a hash of the two); the TX path's side takes the merged data under random
//! backpressure. Every read's bytes must come back whole, in command order, each command on
//! the side its address names, the AXI-Stream rule kept (a beat offered stays until taken).

use crate::verilated::{Model, Traffic};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::{HashMap, VecDeque};

/// The co-simulated variants: (variant, bytes per beat).
pub const VARIANTS: [(&str, usize); 2] = [("w64", 8), ("w512", 64)];
/// Cycles without progress before a run is an error.
pub const PROGRESS_LIMIT: u64 = 2_000;

/// A read command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Read {
    /// The address (bit 63: the stream window).
    pub address: u64,
    /// Bytes (1 to 4096).
    pub length: u32,
}

/// The byte a side holds at `address` (side 0: memory, 1: the window).
pub fn side_byte(side: usize, address: u64) -> u8 {
    let x = (address ^ (side as u64) << 40).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    (x >> 31) as u8
}

/// One side: its commands taken, answered in order after `latency` cycles.
struct Side {
    name: &'static str,
    latency: u64,
    /// (cycle it may start, the read's bytes, beats sent)
    pending: VecDeque<(u64, Vec<u8>, usize)>,
    held: Option<Vec<u32>>,
}

/// What a run measured.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RouterRun {
    /// Reads to memory and to the window.
    pub reads: [usize; 2],
    /// Cycles.
    pub cycles: u64,
}

/// Runs `reads` through the router's variant `variant`.
pub fn run(variant: &str, reads: &[Read], traffic: Traffic) -> Result<RouterRun, String> {
    let &(_, lanes) = VARIANTS
        .iter()
        .find(|v| v.0 == variant)
        .ok_or_else(|| format!("no variant {variant}"))?;
    let e = |e: crate::verilated::SimError| e.to_string();
    let mut m = Model::new(&format!("ferroce_stream_read_router_{variant}")).map_err(e)?;
    let mut names: Vec<String> = Vec::new();
    for side in ["mem", "win"] {
        names.extend(["read_valid", "read_ready", "read_addr", "read_len"].map(|s| format!("m_{side}_{s}")));
        names.extend(["tvalid", "tready", "tdata", "tkeep", "tlast"].map(|s| format!("s_{side}_pay_{s}")));
    }
    names.extend(
        [
            "s_read_valid",
            "s_read_ready",
            "s_read_addr",
            "s_read_len",
            "m_pay_tvalid",
            "m_pay_tready",
            "m_pay_tdata",
            "m_pay_tkeep",
            "m_pay_tlast",
        ]
        .map(String::from),
    );
    let mut ports: HashMap<String, usize> = HashMap::new();
    for name in names {
        let port = m.port(&name).map_err(e)?;
        ports.insert(name, port);
    }
    let p = |name: &str| ports[name];
    let mut rng = ChaCha8Rng::seed_from_u64(traffic.seed);
    let bytes_of = |r: &Read| -> Vec<u8> {
        let side = usize::from(r.address >> 63 == 1);
        (0..u64::from(r.length)).map(|i| side_byte(side, r.address + i)).collect()
    };
    let mut expected: VecDeque<Vec<u8>> = reads.iter().map(bytes_of).collect();
    let mut sides = [
        Side {
            name: "mem",
            latency: 30,
            pending: VecDeque::new(),
            held: None,
        },
        Side {
            name: "win",
            latency: 3,
            pending: VecDeque::new(),
            held: None,
        },
    ];
    m.reset(2);
    let mut got = RouterRun::default();
    let (mut next, mut presenting, mut cycle, mut last_progress) = (0usize, false, 0u64, 0u64);
    let mut current: Vec<u8> = Vec::new();
    let mut out_held: Option<Vec<u32>> = None;
    while !expected.is_empty() {
        // the TX path's commands
        if !presenting && next < reads.len() && rng.gen_range(0..100) >= traffic.idle_pct {
            m.set_u64(p("s_read_addr"), reads[next].address);
            m.set_u64(p("s_read_len"), u64::from(reads[next].length));
            presenting = true;
        }
        m.set_u64(p("s_read_valid"), u64::from(presenting));
        // each side: command backpressure, its data
        let mut taken_by = None;
        for (i, side) in sides.iter_mut().enumerate() {
            let ready = rng.gen_range(0..100) >= traffic.bp_pct;
            m.set_u64(p(&format!("m_{}_read_ready", side.name)), u64::from(ready));
            let offer = side
                .pending
                .front()
                .filter(|f| f.0 <= cycle)
                .map(|(_, bytes, sent)| (bytes.clone(), *sent))
                .filter(|_| side.held.is_some() || rng.gen_range(0..100) >= traffic.idle_pct);
            match offer {
                Some((bytes, sent)) => {
                    let chunk = &bytes[sent * lanes..(sent * lanes + lanes).min(bytes.len())];
                    let mut words = vec![0u32; lanes / 4];
                    for (k, b) in chunk.iter().enumerate() {
                        words[k / 4] |= u32::from(*b) << (8 * (k % 4));
                    }
                    let keep: u64 = if chunk.len() == 64 { u64::MAX } else { (1u64 << chunk.len()) - 1 };
                    m.set(p(&format!("s_{}_pay_tdata", side.name)), &words);
                    m.set_u64(p(&format!("s_{}_pay_tkeep", side.name)), keep);
                    m.set_u64(
                        p(&format!("s_{}_pay_tlast", side.name)),
                        u64::from((sent + 1) * lanes >= bytes.len()),
                    );
                    m.set_u64(p(&format!("s_{}_pay_tvalid", side.name)), 1);
                    side.held = Some(words);
                }
                None => m.set_u64(p(&format!("s_{}_pay_tvalid", side.name)), 0),
            }
            if ready && presenting && m.get_u64(p(&format!("m_{}_read_valid", side.name))) != 0 {
                taken_by = Some(i);
            }
        }
        let out_ready = rng.gen_range(0..100) >= traffic.bp_pct;
        m.set_u64(p("m_pay_tready"), u64::from(out_ready));
        let command_taken = presenting && m.get_u64(p("s_read_ready")) != 0;
        if command_taken != taken_by.is_some() {
            return Err(format!("cycle {cycle}: the command's handshake differs on its two ports"));
        }
        if let Some(i) = taken_by {
            let r = reads[next];
            let side = usize::from(r.address >> 63 == 1);
            if side != i {
                return Err(format!("cycle {cycle}: read of {:#x} sent to {}", r.address, sides[i].name));
            }
            let addr = m.get_u64(p(&format!("m_{}_read_addr", sides[i].name)));
            let len = m.get_u64(p(&format!("m_{}_read_len", sides[i].name))) as u32;
            if (addr, len) != (r.address, r.length) {
                return Err(format!(
                    "cycle {cycle}: command {addr:#x}/{len}, {:#x}/{} presented",
                    r.address, r.length
                ));
            }
            let latency = sides[i].latency;
            sides[i].pending.push_back((cycle + latency, bytes_of(&r), 0));
            got.reads[i] += 1;
        }
        // each side's beat taken?
        for side in sides.iter_mut() {
            if side.held.is_some() && m.get_u64(p(&format!("s_{}_pay_tready", side.name))) != 0 {
                side.held = None;
                let front = side.pending.front_mut().expect("a beat offered");
                front.2 += 1;
                if front.2 * lanes >= front.1.len() {
                    side.pending.pop_front();
                }
            }
        }
        // the merged data
        if m.get_u64(p("m_pay_tvalid")) != 0 {
            let data = m.get(p("m_pay_tdata"));
            if let Some(held) = &out_held {
                if *held != data {
                    return Err(format!("cycle {cycle}: a beat changed while stalled"));
                }
            }
            if out_ready {
                out_held = None;
                let keep = m.get_u64(p("m_pay_tkeep"));
                let n = if lanes == 64 {
                    keep.count_ones()
                } else {
                    (keep & ((1 << lanes) - 1)).count_ones()
                } as usize;
                current.extend(data.iter().flat_map(|w| w.to_le_bytes()).take(n));
                last_progress = cycle;
                if m.get_u64(p("m_pay_tlast")) != 0 {
                    let want = expected.pop_front().ok_or("a read too many")?;
                    if current != want {
                        return Err(format!(
                            "cycle {cycle}: read {} came back as {} bytes, {} expected (or other bytes)",
                            reads.len() - expected.len() - 1,
                            current.len(),
                            want.len()
                        ));
                    }
                    current.clear();
                }
            } else {
                out_held = Some(data);
            }
        } else if out_held.is_some() {
            return Err(format!("cycle {cycle}: a beat went while stalled"));
        }
        m.step(1);
        cycle += 1;
        if command_taken {
            presenting = false;
            next += 1;
            last_progress = cycle;
        }
        if cycle - last_progress > PROGRESS_LIMIT {
            return Err(format!("cycle {cycle}: no progress, {} reads left", expected.len()));
        }
    }
    got.cycles = cycle;
    Ok(got)
}
