//! Cycle figures of the hardware units, measured in Verilator (`ferroce-sim bench`).

use crate::axis::FrameRun;
use crate::icrc_rtl::{check_rtl, insert_rtl};
use crate::verilated::Traffic;
use crate::wire::gen::FrameGen;
use crate::wire::icrc::coverage;
use crate::wire::opcode::Opcode;
use crate::wire::packet::IpRepr;
use std::time::Instant;

/// Payload sizes the ICRC figures are reported for.
pub const PAYLOADS: [usize; 8] = [0, 1, 63, 64, 65, 256, 1024, 4096];

/// A UC SEND-only frame over IPv4 without VLAN tag carrying `payload` bytes (with ICRC).
pub fn send_frame(g: &mut FrameGen, payload: usize) -> Vec<u8> {
    loop {
        let mut f = g.roce_frame_with(Opcode::UC_SEND_ONLY);
        if !matches!(f.ip, IpRepr::V4(_)) {
            continue;
        }
        f.eth.vlans.clear();
        f.payload = vec![0xA5; payload];
        f.normalize();
        return f.emit();
    }
}

/// One row of the ICRC benchmark.
pub struct Row {
    /// What the frames are.
    pub label: String,
    /// How many.
    pub frames: usize,
    /// Their length in bytes, or the range of lengths.
    pub frame_bytes: String,
    /// Input beats (check) or output beats (insert).
    pub beats: usize,
    /// Cycles of the run.
    pub cycles: u64,
    /// Input beats (check) or output beats (insert) per cycle, pipeline fill excluded.
    pub efficiency: f64,
    /// Cycles from a frame's last beat in to its last beat (with verdict / ICRC) out.
    pub latency: u64,
}

fn strip(frames: &[Vec<u8>]) -> Vec<Vec<u8>> {
    frames
        .iter()
        .map(|f| coverage(f).map_or(f.clone(), |c| f[..c.icrc_at].to_vec()))
        .collect()
}

/// Measures `IcrcCheck` and `IcrcInsert` at `width` bits: back-to-back frames, no idle, no
/// backpressure. Returns (check rows, insert rows, simulated cycles per wall-clock second).
pub fn icrc(width: usize, frames_per_row: usize) -> (Vec<Row>, Vec<Row>, f64) {
    let mut g = FrameGen::new(2024);
    let mut sets: Vec<(String, Vec<Vec<u8>>)> = PAYLOADS
        .iter()
        .map(|&p| (format!("payload {p}"), (0..frames_per_row).map(|_| send_frame(&mut g, p)).collect()))
        .collect();
    let mut mix_sizes = FrameGen::new(7);
    sets.push((
        "mix 0-4096".into(),
        (0..frames_per_row)
            .map(|i| send_frame(&mut g, PAYLOADS[(i * 5 + mix_sizes.payload_len()) % PAYLOADS.len()]))
            .collect(),
    ));
    sets.push(("mix random RoCEv2".into(), (0..frames_per_row).map(|_| g.roce()).collect()));
    let mut sim_cycles = 0u64;
    let t0 = Instant::now();
    let mut check_rows = Vec::new();
    let mut insert_rows = Vec::new();
    for (label, frames) in &sets {
        let lens: Vec<usize> = frames.iter().map(Vec::len).collect();
        let (lo, hi) = (lens.iter().min().unwrap(), lens.iter().max().unwrap());
        let frame_bytes = if lo == hi { lo.to_string() } else { format!("{lo}-{hi}") };
        let (run, _) = check_rtl(frames, width, Traffic::FULL).expect("check run");
        sim_cycles += run.cycles;
        check_rows.push(row(label, frames.len(), &frame_bytes, &run, run.beats_in));
        let run = insert_rtl(&strip(frames), width, Traffic::FULL).expect("insert run");
        sim_cycles += run.cycles;
        insert_rows.push(row(label, frames.len(), &frame_bytes, &run, run.beats_out));
    }
    let speed = sim_cycles as f64 / t0.elapsed().as_secs_f64();
    (check_rows, insert_rows, speed)
}

/// A row from a run: `beats` are the input beats (check) or output beats (insert).
fn row(label: &str, frames: usize, frame_bytes: &str, run: &FrameRun, beats: usize) -> Row {
    let fill = run.frames[0].last_cycle - run.in_last_cycle[0];
    let latency = run
        .frames
        .iter()
        .zip(&run.in_last_cycle)
        .map(|(o, i)| o.last_cycle - i)
        .max()
        .unwrap();
    Row {
        label: label.to_string(),
        frames,
        frame_bytes: frame_bytes.to_string(),
        beats,
        cycles: run.cycles,
        efficiency: beats as f64 / (run.cycles - fill) as f64,
        latency,
    }
}

/// Markdown table of rows.
pub fn table(rows: &[Row]) -> String {
    let mut s = String::from(
        "| frames | frame bytes | beats | cycles | cycles/frame | bus efficiency | max latency (cycles) |\n|---|---|---|---|---|---|---|\n",
    );
    for r in rows {
        s.push_str(&format!(
            "| {} × {} | {} | {} | {} | {:.2} | {:.3} | {} |\n",
            r.frames,
            r.label,
            r.frame_bytes,
            r.beats,
            r.cycles,
            r.cycles as f64 / r.frames as f64,
            r.efficiency,
            r.latency
        ));
    }
    s
}
