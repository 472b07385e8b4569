//! Runner of the retry timer's Verilator model (`ferroce_retry_timer_q16`, top `retry_timer`),
//! used by its co-simulation (`sim/tests/retry_timer_cosim.rs`).
//!
//! [`run`] plays a list of [`Stimulus`] into the timer as a requester would (an event held on
//! the port until taken, random idle before each, random backpressure on the actions, a reset
//! between two events if asked) and steps the cycle model ([`RetryTimer`]) in lock step: every
//! output of every cycle must be the model's. It returns what was exchanged, with the cycle of
//! each, for checks against the protocol's rules.

use crate::contracts::reliability::TimerAction;
use crate::models::tx::retry::{RawEvent, RetryTimer, TimerInputs, TimerOutputs};
use crate::verilated::{Model, Traffic};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// The co-simulated build: 16 QPs.
pub const MODEL: &str = "ferroce_retry_timer_q16";
/// QPs of [`MODEL`].
pub const QPS: u32 = 16;

/// What the requester does next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stimulus {
    /// Offer an event (held until taken), after `gap` idle cycles at least.
    Event {
        /// Cycles with nothing offered before it.
        gap: u32,
        /// The event as it is on the port.
        event: RawEvent,
    },
    /// Pulse `reset` for two cycles and wait for the RAM to be cleared.
    Reset,
}

/// An exchange on one of the ports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exchange {
    /// An event was taken.
    Event(RawEvent),
    /// An action was taken: QP and kind.
    Action(u32, TimerAction),
    /// An event was ignored.
    Ignored,
    /// The unit was reset (its `now` restarts).
    Reset,
}

/// The exchanges of a run, each with its cycle and the unit's `now` then.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TimerRun {
    /// `(cycle, now, exchange)` in order.
    pub exchanges: Vec<(u64, u32, Exchange)>,
    /// Cycles run.
    pub cycles: u64,
}

impl TimerRun {
    /// The actions taken, in order.
    pub fn actions(&self) -> Vec<(u32, TimerAction)> {
        let actions = self.exchanges.iter().filter_map(|&(_, _, x)| match x {
            Exchange::Action(qp, kind) => Some((qp, kind)),
            _ => None,
        });
        actions.collect()
    }
}

struct Ports {
    reset: usize,
    tick_cycles: usize,
    init_done: usize,
    now: usize,
    event_valid: usize,
    event_ready: usize,
    event: [usize; 6],
    action_valid: usize,
    action_ready: usize,
    action_qp: usize,
    action_kind: usize,
    ignored: usize,
}

impl Ports {
    fn new(m: &Model) -> Result<Ports, String> {
        let port = |name: &str| m.port(name).map_err(|e| e.to_string());
        Ok(Ports {
            reset: port("reset")?,
            tick_cycles: port("cfg_tick_cycles")?,
            init_done: port("init_done")?,
            now: port("now")?,
            event_valid: port("event_valid")?,
            event_ready: port("event_ready")?,
            event: [
                port("event_qp")?,
                port("event_kind")?,
                port("event_timeout")?,
                port("event_retry")?,
                port("event_rnr_retry")?,
                port("event_rnr_timer")?,
            ],
            action_valid: port("action_valid")?,
            action_ready: port("action_ready")?,
            action_qp: port("action_qp")?,
            action_kind: port("action_kind")?,
            ignored: port("ignored")?,
        })
    }

    fn outputs(&self, m: &mut Model) -> Result<TimerOutputs, String> {
        let action = if m.peek_u64(self.action_valid) != 0 {
            let code = m.peek_u64(self.action_kind) as u8;
            let kind = TimerAction::from_code(code).ok_or(format!("action code {code} is no action"))?;
            Some((m.peek_u64(self.action_qp) as u32, kind))
        } else {
            None
        };
        Ok(TimerOutputs {
            init_done: m.peek_u64(self.init_done) != 0,
            now: m.peek_u64(self.now) as u32,
            event_ready: m.peek_u64(self.event_ready) != 0,
            action,
            ignored: m.peek_u64(self.ignored) != 0,
        })
    }
}

/// Cycles without an event taken after which a run is an error (an event waits at most for the
/// action before it and one operation).
pub const PROGRESS_LIMIT: u64 = 10_000;

/// Runs `script` through [`MODEL`] with `tick_cycles` cycles a tick under `traffic`, then
/// `tail` cycles more with nothing offered; every cycle's outputs against [`RetryTimer`].
pub fn run(script: &[Stimulus], tick_cycles: u16, tail: u64, traffic: Traffic) -> Result<TimerRun, String> {
    let mut m = Model::new(MODEL).map_err(|e| e.to_string())?;
    let ports = Ports::new(&m)?;
    let mut model = RetryTimer::new(QPS);
    let mut rng = ChaCha8Rng::seed_from_u64(traffic.seed);
    let mut inputs = TimerInputs {
        reset: true,
        tick_cycles,
        event: None,
        action_ready: true,
    };
    let mut got = TimerRun::default();
    let mut next = 0usize;
    let mut gap = None::<u32>;
    let mut resetting = 2u32;
    let (mut cycle, mut last_taken, mut tail_left) = (0u64, 0u64, tail);
    loop {
        // this cycle's inputs
        inputs.reset = resetting > 0;
        inputs.event = None;
        let mut outputs = model.outputs();
        if !inputs.reset && outputs.init_done {
            match script.get(next) {
                Some(Stimulus::Reset) => {
                    resetting = 2;
                    inputs.reset = true;
                    got.exchanges.push((cycle, outputs.now, Exchange::Reset));
                    next += 1;
                    last_taken = cycle;
                }
                Some(&Stimulus::Event { gap: g, event }) => {
                    let left = gap.get_or_insert(g);
                    if *left > 0 || rng.gen_range(0..100) < traffic.idle_pct {
                        *left = left.saturating_sub(1);
                    } else {
                        inputs.event = Some(event);
                    }
                }
                None => {
                    if tail_left == 0 {
                        break;
                    }
                    tail_left -= 1;
                }
            }
        }
        inputs.action_ready = traffic.bp_pct == 0 || rng.gen_range(0..100) >= traffic.bp_pct;
        m.set_u64(ports.reset, u64::from(inputs.reset));
        m.set_u64(ports.tick_cycles, u64::from(tick_cycles));
        m.set_u64(ports.event_valid, u64::from(inputs.event.is_some()));
        let event = inputs.event.unwrap_or_default();
        for (&p, v) in ports.event.iter().zip([
            event.qp,
            event.kind.into(),
            event.timeout.into(),
            event.retry.into(),
            event.rnr_retry.into(),
            event.rnr_timer.into(),
        ]) {
            m.set_u64(p, u64::from(v));
        }
        m.set_u64(ports.action_ready, u64::from(inputs.action_ready));
        m.eval();
        let rtl = ports.outputs(&mut m)?;
        if rtl != outputs {
            return Err(format!("cycle {cycle}: the RTL's outputs {rtl:?}, the model's {outputs:?}"));
        }
        // what is exchanged at this edge
        if outputs.ignored {
            got.exchanges.push((cycle, outputs.now, Exchange::Ignored));
        }
        if let (Some(event), true) = (inputs.event, outputs.event_ready) {
            got.exchanges.push((cycle, outputs.now, Exchange::Event(event)));
            next += 1;
            gap = None;
            last_taken = cycle;
        }
        if let (Some((qp, kind)), true) = (outputs.action.take(), inputs.action_ready) {
            got.exchanges.push((cycle, outputs.now, Exchange::Action(qp, kind)));
        }
        m.tick();
        model.clock(&inputs);
        resetting = resetting.saturating_sub(1);
        cycle += 1;
        if next < script.len() && cycle - last_taken > PROGRESS_LIMIT {
            return Err(format!(
                "cycle {cycle}: no event taken for {PROGRESS_LIMIT} cycles (next: {:?})",
                script[next]
            ));
        }
    }
    got.cycles = cycle;
    Ok(got)
}
