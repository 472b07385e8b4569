//! Runner of the queue pacers' Verilator models (`ferroce_pacers_q32`, `_q8`, top `pacers`),
//! used by their co-simulation (`sim/tests/pacers_cosim.rs`).
//!
//! [`run`] sets each queue's cost, then charges groups at the cycles given and compares every
//! queue's `paused` bit in every cycle with the golden model: one
//! [`Pacer`](crate::models::stream::Pacer) per queue, each charge of a paced queue (cost not 0)
//! a group that starts in the cycle it came in, counted at its write-back: [`CHARGE_LATENCY`]
//! cycles after it came in or [`CHARGE_INTERVAL`] after the write-back before it, whichever is
//! later. Queue q is paused in cycle c when its pacer waits at `c + lead`, or when a charge
//! of q came in before c and is not yet counted. A charge up to the variant's slack late keeps
//! its queue's schedule (`Pacer::start_within`).

use crate::models::contracts::sched::PACE_COST_BITS;
use crate::models::stream::Pacer;
use crate::verilated::Model;
pub use ferroce_hdl::sched::pacers::{CHARGE_INTERVAL, CHARGE_LATENCY};

/// The variant of `queues` queues: its module, lead and slack.
pub fn variant(queues: usize) -> Result<(&'static str, u64, u64), String> {
    match queues {
        32 => Ok(("ferroce_pacers_q32", 0, 0)),
        8 => Ok(("ferroce_pacers_q8_lead3_slack256", 3, 256)),
        n => Err(format!("no pacers variant of {n} queues")),
    }
}

/// A group charged: its cycle on the inputs, its queue, its bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Charge {
    /// The cycle it is on the inputs (from 0, the first cycle after the costs are set).
    pub cycle: u64,
    /// The queue.
    pub queue: usize,
    /// The group's bytes (at most 4096).
    pub bytes: u32,
}

/// What a run saw.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PacersRun {
    /// Cycles run.
    pub cycles: u64,
    /// Queue-cycles paused (the sum over the queues).
    pub paused: u64,
    /// Charges of paced queues refused, the FIFO full.
    pub lost: u64,
    /// The cycle each charge of a paced queue was counted at (written back), in order; a lost
    /// charge has none.
    pub counted: Vec<u64>,
}

/// Runs the variant of `costs.len()` queues (32: `q32`, lead 0, no slack; 8:
/// `q8_lead3_slack256`) with those costs and `charges` (sorted by cycle, at most one a cycle),
/// for `cycles` cycles.
pub fn run(costs: &[u32], charges: &[Charge], cycles: u64) -> Result<PacersRun, String> {
    let (module, lead, slack) = variant(costs.len())?;
    let e = |e: crate::verilated::SimError| e.to_string();
    let mut m = Model::new(module).map_err(e)?;
    let p = |m: &Model, name: &str| m.port(name).map_err(e);
    let (cfg_we, cfg_queue, cfg_cost) = (p(&m, "cfg_we")?, p(&m, "cfg_queue")?, p(&m, "cfg_cost")?);
    let (charge_valid, charge_queue, charge_bytes) = (p(&m, "charge_valid")?, p(&m, "charge_queue")?, p(&m, "charge_bytes")?);
    let (paused, lost) = (p(&m, "paused")?, p(&m, "lost")?);
    const _: () = assert!(PACE_COST_BITS == 32);
    m.reset(2);
    for (q, &cost) in costs.iter().enumerate() {
        m.set_u64(cfg_we, 1);
        m.set_u64(cfg_queue, q as u64);
        m.set_u64(cfg_cost, u64::from(cost));
        m.step(1);
    }
    m.set_u64(cfg_we, 0);
    let mut model: Vec<Pacer> = costs.iter().map(|&c| Pacer::with_cost(u64::from(c))).collect();
    // charges taken in and not yet counted: (their write-back, queue, bytes, the cycle they came in)
    let mut pending: Vec<(u64, usize, u32, u64)> = Vec::new();
    let mut last_counted = None::<u64>;
    let mut next = charges.iter().peekable();
    let mut run = PacersRun {
        cycles,
        ..PacersRun::default()
    };
    let mut t = 0;
    while t < cycles {
        // a charge of the cycle before that was refused is taken out again
        if m.get_u64(lost) == 1 {
            if pending.last().is_none_or(|c| c.3 + 1 != t) {
                return Err(format!("cycle {t}: `lost`, but no paced charge came in the cycle before"));
            }
            pending.pop();
            last_counted = pending.last().map(|c| c.0).or(run.counted.last().copied());
            run.lost += 1;
        }
        let charge = next.next_if(|c| c.cycle == t);
        m.set_u64(charge_valid, u64::from(charge.is_some()));
        if let Some(c) = charge {
            m.set_u64(charge_queue, c.queue as u64);
            m.set_u64(charge_bytes, u64::from(c.bytes));
            if costs[c.queue] != 0 {
                let start = last_counted.map_or(t + CHARGE_LATENCY, |s| (t + CHARGE_LATENCY).max(s + CHARGE_INTERVAL));
                last_counted = Some(start);
                pending.push((start, c.queue, c.bytes, t));
            }
        }
        let got = m.get_u64(paused);
        let want = model.iter().enumerate().fold(0u64, |bits, (q, pacer)| {
            let held = pending.iter().any(|c| c.1 == q && c.3 < t);
            bits | u64::from(pacer.waits(t + lead) || held) << q
        });
        if got != want {
            return Err(format!(
                "cycle {t}: paused {got:#x}, the model {want:#x} (queues {:#x} differ)",
                got ^ want
            ));
        }
        run.paused += u64::from(got.count_ones());
        // the groups that start in this cycle
        for &(counted, queue, bytes, came) in pending.iter().filter(|c| c.0 == t) {
            model[queue].start_within(came, bytes, slack);
            run.counted.push(counted);
        }
        pending.retain(|c| c.0 > t);
        // a quiet stretch (nothing pending, nothing waiting, no charge) is run at once
        let quiet_until = next.peek().map_or(cycles, |c| c.cycle).min(cycles) - 1;
        if pending.is_empty() && got == 0 && quiet_until > t + 1 && model.iter().all(|p| !p.waits(t + 1 + lead)) {
            m.set_u64(charge_valid, 0);
            m.step(quiet_until - t);
            t = quiet_until;
            continue;
        }
        m.step(1);
        t += 1;
    }
    if let Some(c) = next.next() {
        return Err(format!("a charge after the run's {cycles} cycles: {c:?}"));
    }
    if !pending.is_empty() {
        return Err(format!("charges not counted by the run's end: {pending:?}"));
    }
    Ok(run)
}
