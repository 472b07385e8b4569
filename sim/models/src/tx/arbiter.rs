//! The scheduler as the TX model uses it: the cycle-accurate [`SchedModel`], driven through its
//! public interface by one function (`Arbiter::decide`) that lets each decision see every
//! enqueue made before it. The model's cycle timing is known only there.

use super::TxError;
use crate::sched::{reset_and_init, QueueCfg, SchedConfig, SchedEngine, SchedIn, SchedModel, CONTROL_QUEUE, REG_LIMIT};
use std::collections::BTreeMap;

/// Cycles the scheduler may take to accept an enqueue, show it queued, or answer a decision
/// before the model reports it as broken.
const PATIENCE: u32 = 64;

/// A decision with nothing eligible while queued transfers can become eligible (token buckets
/// filling) is retried; this many in a row mean the scheduler is stuck.
const EMPTY_DECISIONS_LIMIT: u32 = 1 << 16;

/// The scheduler with the transfers waiting in it.
#[derive(Debug, Clone)]
pub struct Arbiter {
    sched: SchedModel,
    /// Enqueues `(queue, channel)` not yet given to the scheduler.
    pending: Vec<(u32, u32)>,
    /// Transfers queued (or pending) per queue.
    queued: Vec<usize>,
    /// Per queue: a transfer in it can ever be served (queue 0 or weight > 0, and no token bucket
    /// or one with a rate and a burst).
    servable: Vec<bool>,
}

impl Arbiter {
    /// The scheduler of `channels` elements (rounded up to a power of two) and `queues` queues,
    /// configured with the queue words of `config` (others keep their reset value) and the limit
    /// of high priority `limit`.
    pub fn new(channels: u32, queues: usize, config: &BTreeMap<u32, QueueCfg>, limit: u8) -> Result<Arbiter, TxError> {
        let node_bits = channels.next_power_of_two().trailing_zeros().max(1);
        let mut sched = SchedModel::new(SchedConfig { node_bits, queues }).map_err(|e| TxError::Scheduler(e.to_string()))?;
        reset_and_init(&mut sched).map_err(TxError::Scheduler)?;
        let mut words = vec![QueueCfg::default(); queues];
        for (&q, &cfg) in config {
            words[q as usize] = cfg;
            sched.step(&SchedIn {
                cfg: Some((q, cfg.word())),
                ..SchedIn::default()
            });
        }
        sched.step(&SchedIn {
            cfg: Some((REG_LIMIT, u32::from(limit))),
            ..SchedIn::default()
        });
        let servable = words
            .iter()
            .enumerate()
            .map(|(q, c)| (q as u32 == CONTROL_QUEUE || c.weight > 0) && (!c.tb_en || (c.rate > 0 && c.burst > 0)))
            .collect();
        Ok(Arbiter {
            sched,
            pending: Vec::new(),
            queued: vec![0; queues],
            servable,
        })
    }

    /// Puts `channel` at the tail of `queue` (seen by the next decision).
    pub fn enqueue(&mut self, queue: u32, channel: u32) {
        self.pending.push((queue, channel));
        self.queued[queue as usize] += 1;
    }

    /// The next transfer to serve, `(queue, channel)`; `None` when no queued transfer can ever
    /// be served (all queues empty, or the rest in queues that are never eligible).
    pub fn serve(&mut self) -> Result<Option<(u32, u32)>, TxError> {
        for _ in 0..EMPTY_DECISIONS_LIMIT {
            if !self.queued.iter().zip(&self.servable).any(|(&n, &s)| n > 0 && s) {
                return Ok(None);
            }
            if let Some((queue, channel)) = self.decide()? {
                self.queued[queue as usize] -= 1;
                return Ok(Some((queue, channel)));
            }
        }
        Err(TxError::Scheduler(format!("served nothing in {EMPTY_DECISIONS_LIMIT} decisions")))
    }

    /// The adapter: gives the pending enqueues to the scheduler in order (requester 0), waits
    /// until each is in its queue, then makes one decision and returns its result. Every step
    /// count comes from the scheduler's outputs (`enq_ready`, `home`, `deq_valid`), none is
    /// assumed.
    fn decide(&mut self) -> Result<Option<(u32, u32)>, TxError> {
        let idle = SchedIn::default();
        let stuck = |what: &str| TxError::Scheduler(format!("did not {what} within {PATIENCE} cycles"));
        for &(queue, channel) in &self.pending {
            let mut request = idle.clone();
            request.enq[0] = Some((queue, channel));
            (0..PATIENCE)
                .find(|_| self.sched.step(&request).enq_ready[0])
                .ok_or_else(|| stuck("accept an enqueue"))?;
        }
        for (queue, channel) in self.pending.drain(..) {
            let mut waited = 0;
            while self.sched.home(channel) != Some(queue) {
                if waited == PATIENCE {
                    return Err(stuck("queue an element"));
                }
                self.sched.step(&idle);
                waited += 1;
            }
        }
        self.sched.step(&SchedIn { deq: true, ..idle.clone() });
        for _ in 0..PATIENCE {
            let out = self.sched.step(&idle);
            if out.deq_valid {
                return Ok(out.deq_ok.then_some((out.deq_queue, out.deq_elem)));
            }
        }
        Err(stuck("answer a decision"))
    }
}
