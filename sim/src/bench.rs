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

/// PMTUs of the TX path figures.
pub const TX_PMTUS: [u32; 5] = [256, 512, 1024, 2048, 4096];
/// Transfer sizes of the TX path figures.
pub const TX_SIZES: [u32; 7] = [64, 256, 1024, 4096, 16 << 10, 64 << 10, 1 << 20];
/// The CMAC's clock at 100 Gb/s with a 512-bit bus, in Hz.
pub const CMAC_CLOCK_HZ: f64 = 322_265_625.0;
/// Bytes a frame costs on an Ethernet wire beyond its bytes without FCS: FCS 4, preamble and
/// start delimiter 8, inter-frame gap 12.
pub const WIRE_OVERHEAD: u64 = 24;
/// The 100GbE line rate, in bit/s.
pub const LINE_RATE: f64 = 100e9;

/// One row of the TX path benchmark.
pub struct TxRow {
    /// Path MTU.
    pub pmtu: u32,
    /// Bytes per transfer.
    pub size: u32,
    /// Transfers posted.
    pub transfers: usize,
    /// Frames on the wire.
    pub frames: usize,
    /// Payload bytes.
    pub payload: u64,
    /// Cycles from the first output beat to the last, plus one.
    pub cycles: u64,
    /// Output beats.
    pub beats: u64,
    /// Most memory reads in flight.
    pub reads_in_flight: usize,
    /// Bytes of the frames with the wire overhead.
    pub wire_bytes: u64,
}

impl TxRow {
    /// Output beats per cycle.
    pub fn occupancy(&self) -> f64 {
        self.beats as f64 / self.cycles as f64
    }

    /// Payload bit/s at [`CMAC_CLOCK_HZ`] on the bus.
    pub fn bus_goodput(&self) -> f64 {
        self.payload as f64 * 8.0 * CMAC_CLOCK_HZ / self.cycles as f64
    }

    /// Payload bit/s on a 100GbE wire: the bus time or the wire time (frames, FCS, preamble,
    /// gap at [`LINE_RATE`]), whichever is longer.
    pub fn wire_goodput(&self) -> f64 {
        let bus_time = self.cycles as f64 / CMAC_CLOCK_HZ;
        let wire_time = self.wire_bytes as f64 * 8.0 / LINE_RATE;
        self.payload as f64 * 8.0 / bus_time.max(wire_time)
    }
}

/// What the TX path benchmark sends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TxLoad {
    /// UC WRITE transfers posted by the host, one channel each.
    Writes,
    /// The responder's READ responses on the responder channel (one after another, as the TX
    /// path takes them), in the READ response queue.
    ReadResponses,
}

/// Runs the TX path RTL (`variant`) over each PMTU and transfer size of `(pmtus, sizes)` (the
/// figures': [`TX_PMTUS`], [`TX_SIZES`]): per row, transfers of
/// `size` bytes on one QP (`load`: UC WRITE posts on one channel each, or READ responses),
/// about `bytes` in all (at least 64 transfers), given before the first decision; the memory
/// answers after `latency` cycles with up to `outstanding` reads in flight; nothing pushes
/// back. `progress` is called after each row. Returns the rows and the simulated cycles per
/// wall-clock second.
pub fn tx_path(
    variant: &crate::tx_path_rtl::PathVariant,
    load: TxLoad,
    (pmtus, sizes): (&[u32], &[u32]),
    bytes: u64,
    latency: u64,
    outstanding: usize,
    mut progress: impl FnMut(&TxRow),
) -> Result<(Vec<TxRow>, f64), String> {
    use crate::contracts::opcode::Transport;
    use crate::contracts::tx::{Pmtu, PostOp, QpState};
    use crate::models::responder::{Aeth, ReadResponse, Syndrome};
    use crate::models::tx::{Post, QpContext, TxSetup};
    use crate::tx_path_rtl::{MemoryTiming, Surroundings, TxPathRtl};
    let rtl = TxPathRtl::new(
        *variant,
        Surroundings {
            memory: MemoryTiming {
                latency,
                outstanding,
                stall_pct: 0,
            },
            ..Surroundings::FULL
        },
    );
    let (mut rows, mut sim_cycles) = (Vec::new(), 0u64);
    let t0 = Instant::now();
    for &pmtu in pmtus {
        for &size in sizes {
            // one channel per WRITE; the responder channel is the last
            let transfers = (bytes / u64::from(size)).clamp(64, u64::from(variant.channels) - 1) as usize;
            let mut setup = variant.fit(&TxSetup::default());
            let transport = match load {
                TxLoad::Writes => Transport::Uc,
                TxLoad::ReadResponses => Transport::Rc,
            };
            let pmtu = Pmtu::from_bytes(pmtu).expect("a PMTU");
            setup.contexts.insert(
                1,
                QpContext {
                    state: QpState::Rts.code(),
                    transport: transport.bits(),
                    pmtu: pmtu.code(),
                    src_ip: 0x0a00_0001,
                    dst_ip: 0x0a00_0002,
                    ..QpContext::default()
                },
            );
            match load {
                TxLoad::Writes => {
                    setup.posts = (0..transfers)
                        .map(|t| Post {
                            channel: t as u16,
                            queue: 1,
                            op: PostOp::Write.code(),
                            qp: 1,
                            local_addr: (t as u64) << 32,
                            remote_addr: (t as u64) << 32,
                            length: size,
                            ..Post::default()
                        })
                        .collect();
                }
                TxLoad::ReadResponses => {
                    let mut psn = 0;
                    setup.read_responses = (0..transfers)
                        .map(|t| {
                            let response = ReadResponse {
                                qp: 1,
                                first_psn: psn,
                                va: (t as u64) << 32,
                                length: size,
                                pmtu,
                                aeth: Aeth {
                                    syndrome: Syndrome::ack(),
                                    msn: t as u32 + 1,
                                },
                                region: Some(0),
                                duplicate: false,
                            };
                            psn = (psn + response.packet_count()) & crate::contracts::header::bth::PSN_MASK;
                            response
                        })
                        .collect();
                }
            }
            let (run, figures) = rtl.run_measured(&setup)?;
            let first = figures.first_beat.ok_or("no frame")?;
            let row = TxRow {
                pmtu: pmtu.bytes(),
                size,
                transfers,
                frames: run.frames.len(),
                payload: u64::from(size) * transfers as u64,
                cycles: figures.cycles - first,
                beats: figures.beats,
                reads_in_flight: figures.reads_in_flight,
                wire_bytes: run.frames.iter().map(|f| f.len() as u64 + WIRE_OVERHEAD).sum(),
            };
            sim_cycles += figures.cycles;
            progress(&row);
            rows.push(row);
        }
    }
    Ok((rows, sim_cycles as f64 / t0.elapsed().as_secs_f64()))
}

/// Markdown table of TX path rows.
pub fn tx_table(rows: &[TxRow]) -> String {
    let mut s = String::from(
        "| PMTU | transfer bytes | transfers | frames | cycles | beats/cycle | goodput on the bus (Gb/s) | goodput on 100GbE (Gb/s) |\n|---|---|---|---|---|---|---|---|\n",
    );
    for r in rows {
        s.push_str(&format!(
            "| {} | {} | {} | {} | {} | {:.3} | {:.1} | {:.1} |\n",
            r.pmtu,
            r.size,
            r.transfers,
            r.frames,
            r.cycles,
            r.occupancy(),
            r.bus_goodput() / 1e9,
            r.wire_goodput() / 1e9
        ));
    }
    s
}
