//! The RC requester's retry timer: per QP a retransmission deadline against a global tick
//! count and the transport and RNR retry counters (`contracts::reliability`), as the RTL
//! `RetryTimer` keeps them.
//!
//! Two layers:
//! - [`TimerEntry::apply`]: the rules, what one event or one expired deadline does to a QP's
//!   entry and which [`TimerAction`] it asks for;
//! - [`RetryTimer`]: the unit cycle by cycle (the time base, the turn between events and the
//!   scan over the QPs, an operation's six cycles, the action held until taken), for the
//!   co-simulation to compare every output of every cycle.

use crate::contracts::reliability::{
    rnr_wait_ticks, timeout_ticks, TimerAction, TimerEvent, EVENTS_PER_SCAN, MAX_WAIT_TICKS, RNR_RETRY_FOREVER,
};

/// A QP's timer state.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TimerEntry {
    /// The deadline counts.
    pub armed: bool,
    /// The deadline ends an RNR wait (else it is a transport timeout).
    pub rnr_waiting: bool,
    /// The tick the deadline falls on.
    pub deadline: u32,
    /// The local ACK timeout exponent (0: none).
    pub timeout: u8,
    /// Transport retries allowed.
    pub retry_limit: u8,
    /// Transport retries left.
    pub retries_left: u8,
    /// RNR retries allowed (7: for ever).
    pub rnr_limit: u8,
    /// RNR retries left.
    pub rnr_left: u8,
}

/// What happens to a QP's entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Operation {
    /// An event from the requester.
    Event(Event),
    /// The scan looks at the entry.
    Scan,
}

/// An event with its values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Event {
    /// The QP.
    pub qp: u32,
    /// What happened.
    pub kind: TimerEvent,
    /// `Sent`: the QP's timeout exponent (5 bits).
    pub timeout: u8,
    /// `Sent`: its transport retry count (0–7).
    pub retry: u8,
    /// `Sent`: its RNR retry count (0–7, 7: for ever).
    pub rnr_retry: u8,
    /// `RnrNak`: the NAK's timer code (5 bits).
    pub rnr_timer: u8,
}

impl Event {
    /// An event of `kind` for `qp` with no values.
    pub fn new(qp: u32, kind: TimerEvent) -> Event {
        Event {
            qp,
            kind,
            timeout: 0,
            retry: 0,
            rnr_retry: 0,
            rnr_timer: 0,
        }
    }
}

/// `deadline` is at or before `now` in 32-bit serial arithmetic.
pub fn due(deadline: u32, now: u32) -> bool {
    u64::from(now.wrapping_sub(deadline)) < MAX_WAIT_TICKS
}

impl TimerEntry {
    /// Applies `operation` at tick `now`; the action it asks for, if any.
    pub fn apply(&mut self, operation: Operation, now: u32) -> Option<TimerAction> {
        let after = |ticks: u64| now.wrapping_add(ticks as u32);
        let event = match operation {
            Operation::Scan => {
                if !(self.armed && due(self.deadline, now)) {
                    return None;
                }
                return Some(if self.rnr_waiting {
                    self.rnr_waiting = false;
                    self.armed = self.timeout != 0;
                    self.deadline = after(timeout_ticks(self.timeout));
                    TimerAction::RnrWaited
                } else if self.retries_left == 0 {
                    self.armed = false;
                    TimerAction::RetriesExhausted
                } else {
                    self.retries_left -= 1;
                    self.deadline = after(timeout_ticks(self.timeout));
                    TimerAction::Timeout
                });
            }
            Operation::Event(event) => event,
        };
        match event.kind {
            TimerEvent::Sent => {
                self.timeout = event.timeout;
                self.retry_limit = event.retry;
                self.rnr_limit = event.rnr_retry;
                if !self.armed {
                    self.armed = event.timeout != 0;
                    self.deadline = after(timeout_ticks(event.timeout));
                    self.retries_left = event.retry;
                    self.rnr_left = event.rnr_retry;
                }
                None
            }
            TimerEvent::Progress => {
                self.refill();
                if !self.rnr_waiting {
                    self.armed = self.timeout != 0;
                    self.deadline = after(timeout_ticks(self.timeout));
                }
                None
            }
            TimerEvent::Idle => {
                self.armed = false;
                self.rnr_waiting = false;
                self.refill();
                None
            }
            TimerEvent::SequenceNak => {
                self.rnr_waiting = false;
                Some(if self.retries_left == 0 {
                    self.armed = false;
                    TimerAction::RetriesExhausted
                } else {
                    self.retries_left -= 1;
                    self.armed = self.timeout != 0;
                    self.deadline = after(timeout_ticks(self.timeout));
                    TimerAction::Retransmit
                })
            }
            TimerEvent::RnrNak => {
                if self.rnr_left == 0 {
                    self.armed = false;
                    self.rnr_waiting = false;
                    return Some(TimerAction::RnrRetriesExhausted);
                }
                if self.rnr_limit != RNR_RETRY_FOREVER {
                    self.rnr_left -= 1;
                }
                self.armed = true;
                self.rnr_waiting = true;
                self.deadline = after(rnr_wait_ticks(event.rnr_timer));
                None
            }
            TimerEvent::Clear => {
                *self = TimerEntry::default();
                None
            }
        }
    }

    fn refill(&mut self) {
        self.retries_left = self.retry_limit;
        self.rnr_left = self.rnr_limit;
    }
}

/// Cycles of an operation after the cycle that picks it: read, compare, two additions, write.
pub const OPERATION_CYCLES: u32 = 5;

/// The unit's inputs in one cycle.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TimerInputs {
    /// Synchronous reset.
    pub reset: bool,
    /// Cycles per tick (0 counts as 1).
    pub tick_cycles: u16,
    /// An event is offered (its code may be no event; the QP may be beyond the table).
    pub event: Option<RawEvent>,
    /// The action, if offered, is taken.
    pub action_ready: bool,
}

/// An event as it is on the port: codes, not checked.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RawEvent {
    /// The QP (24 bits).
    pub qp: u32,
    /// The event code.
    pub kind: u8,
    /// Timeout exponent.
    pub timeout: u8,
    /// Transport retry count.
    pub retry: u8,
    /// RNR retry count.
    pub rnr_retry: u8,
    /// RNR timer code.
    pub rnr_timer: u8,
}

impl From<Event> for RawEvent {
    fn from(e: Event) -> RawEvent {
        RawEvent {
            qp: e.qp,
            kind: e.kind.code(),
            timeout: e.timeout,
            retry: e.retry,
            rnr_retry: e.rnr_retry,
            rnr_timer: e.rnr_timer,
        }
    }
}

/// The unit's outputs in one cycle (before its clock edge).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TimerOutputs {
    /// The RAM is cleared.
    pub init_done: bool,
    /// Ticks since reset.
    pub now: u32,
    /// An event would be taken.
    pub event_ready: bool,
    /// The action offered: QP and kind.
    pub action: Option<(u32, TimerAction)>,
    /// An event was ignored in the cycle before.
    pub ignored: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Step {
    Init(u32),
    Idle,
    /// An operation on a QP, with the cycles left until its write and `now` when it started.
    Busy {
        qp: u32,
        operation: Operation,
        started_at: u32,
        left: u32,
    },
    Emit,
}

/// The unit of `qps` QPs, cycle by cycle.
#[derive(Debug, Clone)]
pub struct RetryTimer {
    entries: Vec<TimerEntry>,
    step: Step,
    prescale: u16,
    tick: bool,
    count: u32,
    scan: u32,
    /// Events taken since the scan's last turn (up to `EVENTS_PER_SCAN`).
    events_in_a_row: u32,
    action: Option<(u32, TimerAction)>,
    ignored: bool,
}

impl RetryTimer {
    /// A timer of `qps` QPs (a power of two) just out of reset.
    pub fn new(qps: u32) -> RetryTimer {
        assert!(qps.is_power_of_two());
        RetryTimer {
            entries: vec![TimerEntry::default(); qps as usize],
            step: Step::Init(0),
            prescale: 0,
            tick: false,
            count: 0,
            scan: 0,
            events_in_a_row: 0,
            action: None,
            ignored: false,
        }
    }

    /// An event is taken when one waits (else the scan goes on): until `EVENTS_PER_SCAN` in a
    /// row, then the scan's turn.
    fn event_turn(&self) -> bool {
        self.events_in_a_row < EVENTS_PER_SCAN
    }

    /// A QP's entry.
    pub fn entry(&self, qp: u32) -> TimerEntry {
        self.entries[qp as usize]
    }

    /// The outputs in the current cycle.
    pub fn outputs(&self) -> TimerOutputs {
        TimerOutputs {
            init_done: !matches!(self.step, Step::Init(_)),
            now: self.count,
            event_ready: self.step == Step::Idle && self.event_turn(),
            action: if self.step == Step::Emit { self.action } else { None },
            ignored: self.ignored,
        }
    }

    /// One clock edge with `inputs`; the event was taken when the outputs before it said
    /// `event_ready` and one was offered.
    pub fn clock(&mut self, inputs: &TimerInputs) {
        let qps = self.entries.len() as u32;
        let now = self.count;
        // the time base
        self.count = if inputs.reset {
            0
        } else {
            self.count.wrapping_add(u32::from(self.tick))
        };
        self.tick = self.prescale == 0;
        self.prescale = match self.prescale {
            0 => inputs.tick_cycles.saturating_sub(1),
            p => p - 1,
        };
        self.ignored = false;
        self.step = match self.step {
            Step::Init(index) => {
                self.entries[index as usize] = TimerEntry::default();
                if index + 1 == qps {
                    Step::Idle
                } else {
                    Step::Init(index + 1)
                }
            }
            Step::Idle => match inputs.event.filter(|_| self.event_turn()) {
                Some(raw) => match TimerEvent::from_code(raw.kind).filter(|_| raw.qp < qps) {
                    None => {
                        self.ignored = true;
                        Step::Idle
                    }
                    Some(kind) => Step::Busy {
                        qp: raw.qp,
                        operation: Operation::Event(Event {
                            qp: raw.qp,
                            kind,
                            timeout: raw.timeout,
                            retry: raw.retry,
                            rnr_retry: raw.rnr_retry,
                            rnr_timer: raw.rnr_timer,
                        }),
                        started_at: now,
                        left: OPERATION_CYCLES,
                    },
                },
                None => {
                    let qp = self.scan;
                    self.scan = (self.scan + 1) % qps;
                    Step::Busy {
                        qp,
                        operation: Operation::Scan,
                        started_at: now,
                        left: OPERATION_CYCLES,
                    }
                }
            },
            Step::Busy {
                qp,
                operation,
                started_at,
                left,
            } if left > 1 => Step::Busy {
                qp,
                operation,
                started_at,
                left: left - 1,
            },
            Step::Busy {
                qp, operation, started_at, ..
            } => {
                self.events_in_a_row = match operation {
                    Operation::Scan => 0,
                    _ => self.events_in_a_row + 1,
                };
                match self.entries[qp as usize].apply(operation, started_at) {
                    Some(action) => {
                        self.action = Some((qp, action));
                        Step::Emit
                    }
                    None => Step::Idle,
                }
            }
            Step::Emit if inputs.action_ready => Step::Idle,
            Step::Emit => Step::Emit,
        };
        if inputs.reset {
            self.step = Step::Init(0);
            self.scan = 0;
            self.events_in_a_row = 0;
            self.prescale = 0;
            self.ignored = false;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sent(qp: u32, timeout: u8, retry: u8, rnr_retry: u8) -> Operation {
        Operation::Event(Event {
            timeout,
            retry,
            rnr_retry,
            ..Event::new(qp, TimerEvent::Sent)
        })
    }

    #[test]
    fn a_timeout_retries_then_exhausts() {
        let mut e = TimerEntry::default();
        assert_eq!(e.apply(sent(0, 2, 1, 0), 100), None);
        assert_eq!(e.deadline, 105);
        assert_eq!(e.apply(Operation::Scan, 104), None);
        assert_eq!(e.apply(Operation::Scan, 105), Some(TimerAction::Timeout));
        assert_eq!(e.deadline, 110);
        // a later send does not restart it
        assert_eq!(e.apply(sent(0, 2, 1, 0), 108), None);
        assert_eq!(e.apply(Operation::Scan, 110), Some(TimerAction::RetriesExhausted));
        assert!(!e.armed);
    }

    #[test]
    fn progress_refills_and_restarts_idle_stops() {
        let mut e = TimerEntry::default();
        e.apply(sent(0, 3, 2, 0), 0);
        assert_eq!(
            e.apply(Operation::Event(Event::new(0, TimerEvent::SequenceNak)), 1),
            Some(TimerAction::Retransmit)
        );
        assert_eq!(e.retries_left, 1);
        e.apply(Operation::Event(Event::new(0, TimerEvent::Progress)), 5);
        assert_eq!((e.retries_left, e.deadline, e.armed), (2, 14, true));
        e.apply(Operation::Event(Event::new(0, TimerEvent::Idle)), 6);
        assert!(!e.armed);
        assert_eq!(e.apply(Operation::Scan, 100), None);
    }

    #[test]
    fn rnr_waits_then_sends_again_and_seven_is_for_ever() {
        let mut e = TimerEntry::default();
        e.apply(sent(0, 0, 0, 7), 0);
        for round in 0..20 {
            let nak = Event {
                rnr_timer: 1,
                ..Event::new(0, TimerEvent::RnrNak)
            };
            assert_eq!(e.apply(Operation::Event(nak), round * 10), None);
            assert_eq!(e.apply(Operation::Scan, round * 10 + 3), None);
            assert_eq!(e.apply(Operation::Scan, round * 10 + 4), Some(TimerAction::RnrWaited));
            // no transport timeout (exponent 0): stopped after the wait
            assert!(!e.armed);
        }
        let mut once = TimerEntry::default();
        once.apply(sent(0, 0, 0, 1), 0);
        let nak = Operation::Event(Event::new(0, TimerEvent::RnrNak));
        assert_eq!(once.apply(nak, 0), None);
        assert_eq!(once.apply(nak, 1), Some(TimerAction::RnrRetriesExhausted));
    }

    #[test]
    fn deadlines_wrap_in_serial_arithmetic() {
        assert!(due(u32::MAX, 0));
        assert!(!due(0, u32::MAX));
        let mut e = TimerEntry::default();
        e.apply(sent(0, 31, 0, 0), u32::MAX - 5);
        assert_eq!(e.apply(Operation::Scan, (u32::MAX - 5).wrapping_add(1 << 30)), None);
        assert_eq!(
            e.apply(Operation::Scan, (u32::MAX - 5).wrapping_add(1 << 31)),
            Some(TimerAction::RetriesExhausted)
        );
    }

    #[test]
    fn the_unit_scans_every_qp_and_takes_turns() {
        let mut timer = RetryTimer::new(4);
        let idle = TimerInputs {
            tick_cycles: 1,
            action_ready: true,
            ..TimerInputs::default()
        };
        while !timer.outputs().init_done {
            timer.clock(&idle);
        }
        let event = RawEvent::from(Event {
            timeout: 1,
            retry: 0,
            ..Event::new(2, TimerEvent::Sent)
        });
        assert!(timer.outputs().event_ready);
        timer.clock(&TimerInputs {
            event: Some(event),
            ..idle
        });
        let mut actions = Vec::new();
        for _ in 0..200 {
            if let Some(a) = timer.outputs().action {
                actions.push(a);
            }
            timer.clock(&idle);
        }
        assert_eq!(actions, [(2, TimerAction::RetriesExhausted)]);
    }
}
