//! Runner of the packet generator's Verilator model (`ferroce_tx_generator_w<W>`, top
//! `tx_generator`), used by its co-simulation (`sim/tests/tx_generator_cosim.rs`).
//!
//! The runner plays the generator's surroundings cycle by cycle: the packetizer (descriptors
//! on `s_desc`, with random idle), the QP context table (`qp_read_index` → `qp_read_entry`
//! [`QP_READ_LATENCY`] cycles later, from a table of packed contexts), the memory (each
//! descriptor's payload on `s_pay`, lane-0 aligned, with random stalls), the MAC (`m_axis`, with
//! random backpressure) and the transfer table (completions on `cpl`, with random
//! backpressure); the stream driver checks the AXI rules on every output.

use crate::axis::{AxisPorts, Channel, FrameSink, FrameSource, RecordSource};
use crate::verilated::{Model, SimError};
use ferroce_contracts::regs::QP_READ_LATENCY;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use std::collections::{HashMap, VecDeque};

/// The model name at a bus width.
pub fn model_name(width: usize) -> String {
    format!("ferroce_tx_generator_w{width}")
}

/// One packet for the generator: its descriptor (`contracts::tx::PACKET`, packed) and the
/// payload the memory returns for it (`payload_len` bytes).
#[derive(Debug, Clone)]
pub struct GeneratorJob {
    /// The packed descriptor.
    pub descriptor: Vec<u32>,
    /// The payload.
    pub payload: Vec<u8>,
}

/// Random idle, stalls and backpressure around the generator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GeneratorTraffic {
    /// Percent chance per cycle that no descriptor is offered.
    pub descriptor_idle_pct: u32,
    /// Percent chance per cycle that the memory holds the next payload beat back.
    pub payload_idle_pct: u32,
    /// Percent chance per cycle that the MAC holds `m_axis_tready` low.
    pub output_bp_pct: u32,
    /// Percent chance per cycle that the transfer table holds `cpl_ready` low.
    pub completion_bp_pct: u32,
    /// Seed of the random draws.
    pub seed: u64,
}

impl GeneratorTraffic {
    /// Everything ready, nothing idle.
    pub const FULL: GeneratorTraffic = GeneratorTraffic {
        descriptor_idle_pct: 0,
        payload_idle_pct: 0,
        output_bp_pct: 0,
        completion_bp_pct: 0,
        seed: 1,
    };
}

/// What a run produced.
#[derive(Debug, Clone)]
pub struct GeneratorRun {
    /// The frames on `m_axis`, in order.
    pub frames: Vec<Vec<u8>>,
    /// The completions' channels, in order.
    pub completions: Vec<u16>,
    /// Cycles from the end of reset to the last frame's last beat, plus one.
    pub cycles: u64,
    /// Output beats.
    pub beats_out: u64,
    /// Cycle of the first output beat.
    pub first_beat_cycle: Option<u64>,
    /// Cycles `m_axis_tvalid` was low between the first and the last output beat.
    pub output_gaps: u64,
    /// Cycles `m_axis_tvalid` was low inside a frame ([`FrameSink::underflow_cycles`]).
    pub underflow_cycles: u64,
}

/// Runs `jobs` through the generator at `width` bits, with the QP contexts `contexts` (QP
/// number → packed `QP_CONTEXT` words), until every frame and completion is out.
pub fn run_generator(
    width: usize,
    jobs: &[GeneratorJob],
    contexts: &HashMap<u32, Vec<u32>>,
    completions_expected: usize,
    traffic: GeneratorTraffic,
) -> Result<GeneratorRun, SimError> {
    let name = model_name(width);
    let mut m = Model::new(&name)?;
    let rng = &mut ChaCha8Rng::seed_from_u64(traffic.seed);
    let records: Vec<Vec<Vec<u32>>> = jobs.iter().map(|j| vec![j.descriptor.clone()]).collect();
    let payloads: Vec<Vec<u8>> = jobs.iter().filter(|j| !j.payload.is_empty()).map(|j| j.payload.clone()).collect();
    let mut descriptors = RecordSource::new(&m, "s_desc_valid", "s_desc_ready", &["s_desc"], traffic.descriptor_idle_pct)?;
    let mut memory = FrameSource::new(AxisPorts::find(&m, "s_pay")?, &payloads, traffic.payload_idle_pct)?;
    let mut mac = FrameSink::new(&m, "m_axis", &[], traffic.output_bp_pct)?;
    let mut transfers = Channel::new(
        &m,
        "cpl",
        "cpl_valid",
        Some("cpl_ready"),
        &["cpl_channel"],
        traffic.completion_bp_pct,
    )?;
    let index_port = m.port("qp_read_index")?;
    let entry_port = m.port("qp_read_entry")?;
    let entry_words = m.ports()[entry_port].words();
    let valid_port = m.port("m_axis_tvalid")?;

    mac.always_ready(&mut m);
    transfers.always_ready(&mut m);
    m.set_u64(m.port("s_desc_valid")?, 0);
    m.set_u64(m.port("s_pay_tvalid")?, 0);
    m.reset(4);

    let zero = vec![0u32; entry_words];
    let mut reads: VecDeque<u32> = std::iter::repeat_n(u32::MAX, QP_READ_LATENCY).collect();
    let mut completions = Vec::new();
    let beats_in: u64 = jobs.iter().map(|j| (j.payload.len() as u64 + 150).div_ceil(width as u64 / 8)).sum();
    let slack =
        100 + 4 * (traffic.descriptor_idle_pct + traffic.payload_idle_pct + traffic.output_bp_pct + traffic.completion_bp_pct) as u64;
    let budget = 500 + 4 * beats_in * slack / 100;
    let (mut first_beat_cycle, mut last_beat_cycle, mut gaps) = (None, 0, 0u64);
    let mut cycle = 0u64;
    while mac.frames.len() < jobs.len() || completions.len() < completions_expected {
        if cycle > budget {
            return Err(SimError::Hang {
                model: name,
                cycles: cycle,
                sent: descriptors.taken,
                received: mac.frames.len() as u64,
            });
        }
        descriptors.drive(&mut m, rng, &records);
        memory.drive(&mut m, rng);
        let read = reads.pop_front().expect("read pipeline");
        m.set(entry_port, contexts.get(&read).unwrap_or(&zero));
        mac.drive(&mut m, rng);
        transfers.drive(&mut m, rng);
        m.eval();
        descriptors.sample(&mut m, cycle);
        memory.sample(&mut m, cycle);
        let valid = m.peek_u64(valid_port) != 0;
        if mac.sample(&mut m, cycle)? {
            first_beat_cycle.get_or_insert(cycle);
            last_beat_cycle = cycle;
        }
        if !valid && first_beat_cycle.is_some() {
            gaps += 1;
        }
        if let Some(p) = transfers.sample(&mut m, cycle)? {
            completions.push(p[0][0] as u16);
        }
        reads.push_back(m.peek_u64(index_port) as u32);
        m.tick();
        cycle += 1;
    }
    // gaps counted after the last beat are not between beats
    let trailing = cycle - 1 - last_beat_cycle;
    Ok(GeneratorRun {
        frames: mac.frames.iter().map(|f| f.bytes.clone()).collect(),
        completions,
        cycles: last_beat_cycle + 1,
        beats_out: mac.counts().0,
        first_beat_cycle,
        output_gaps: gaps.saturating_sub(trailing),
        underflow_cycles: mac.underflow_cycles,
    })
}
