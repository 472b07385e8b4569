//! [`RetryTimer`]: an RC requester's per-QP retransmission timer and retry counters (the rules:
//! `ferroce_contracts::reliability`; the model: `ferroce_models::tx::retry`).
//!
//! ```text
//!  cfg_tick_cycles ─► prescaler ─► tick ─► now (32-bit tick counter, 4.096 µs a tick)
//!  event (QP, kind, the QP's timeout and retry limits, RNR timer code) ─┐
//!  scan (every QP in turn, its deadline against now) ───────────────────┴─► one operation at a
//!                                                     time on the QP's entry ─► action (QP, kind)
//! ```
//!
//! - Per QP, in block RAM: armed, waiting out an RNR NAK, the deadline (a tick count), the
//!   timeout exponent and both retry limits kept from the last `Sent`, and the retries left.
//! - Deadlines are against the global tick count, so a timeout does not stretch when the unit is
//!   busy; an expiry is seen when the scan reaches the QP: at most one scan round late
//!   (`EVENTS_PER_SCAN + 1` operations per QP when events keep coming, six cycles each).
//! - Events go first, [`EVENTS_PER_SCAN`] in a row at most, then the scan takes a turn, so
//!   neither starves the other and an RC transfer's two events cost less than four operations.
//! - Each operation is six states: the entry is read, its deadline compared in two stages
//!   (32-bit serial arithmetic), the new deadline (`now` + the wait) added in two 16-bit halves,
//!   then the entry is written and the action, if any, is offered.

use crate::common::counter::EventCounter;
use crate::common::elab::{bits_from, c};
use ferroce_contracts::reliability::{
    rnr_wait_ticks, timeout_ticks, TimerAction, TimerEvent, EVENTS_PER_SCAN, RNR_RETRY_FOREVER, TIMER_ACTION_BITS, TIMER_EVENT_BITS,
    TIME_BITS,
};
use rust_hdl::prelude::*;

// `events_in_a_row` counts up to it in 4 bits
const _: () = assert!(EVENTS_PER_SCAN >= 1 && EVENTS_PER_SCAN <= 16);

mod entries {
    // the methods `LogicStruct` derives have no docs
    #![allow(missing_docs)]
    use rust_hdl::prelude::*;

    /// A QP's timer.
    #[derive(Clone, Copy, Debug, Default, PartialEq, LogicStruct)]
    pub struct TimerEntry {
        /// The deadline counts.
        pub armed: Bit,
        /// The deadline ends an RNR wait (else a transport timeout).
        pub rnr_waiting: Bit,
        /// The tick the deadline falls on.
        pub deadline: Bits<32>,
        /// The local ACK timeout exponent (0: none).
        pub timeout: Bits<5>,
        /// Transport retries allowed after a timeout or sequence NAK.
        pub retry_limit: Bits<3>,
        /// Transport retries left.
        pub retries_left: Bits<3>,
        /// RNR retries allowed (7: for ever).
        pub rnr_limit: Bits<3>,
        /// RNR retries left.
        pub rnr_left: Bits<3>,
    }
}
pub use entries::TimerEntry;

/// The timer's steps.
#[derive(Copy, Clone, PartialEq, Eq, Debug, LogicState)]
pub enum TimerState {
    /// Clearing the QP RAM after reset.
    Init,
    /// Choosing the next operation: an event or the scan's next QP.
    Idle,
    /// The entry is read; the deadline compare's first stage.
    Read,
    /// The compare's second stage; the wait chosen.
    Compare,
    /// `now` + the wait, low half.
    AddLow,
    /// `now` + the wait, high half.
    AddHigh,
    /// The entry is written; an action is offered.
    Decide,
    /// The action waits for `action_ready`.
    Emit,
}

/// The timer of `2^QB` QPs.
#[derive(LogicBlock)]
pub struct RetryTimer<const QB: usize> {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous, active high: every timer stops (the RAM is cleared again), `now` restarts.
    pub reset: Signal<In, Bit>,
    /// The RAM is cleared.
    pub init_done: Signal<Out, Bit>,
    /// Clock cycles per tick of 4.096 µs (`contracts::reliability::tick_cycles`; 0 counts as 1).
    pub cfg_tick_cycles: Signal<In, Bits<16>>,
    /// Ticks since reset (registered).
    pub now: Signal<Out, Bits<32>>,
    /// An event: valid.
    pub event_valid: Signal<In, Bit>,
    /// Taken (depends on the state only).
    pub event_ready: Signal<Out, Bit>,
    /// Its QP.
    pub event_qp: Signal<In, Bits<24>>,
    /// Its kind (`TimerEvent` code).
    pub event_kind: Signal<In, Bits<TIMER_EVENT_BITS>>,
    /// `Sent`: the QP's timeout exponent.
    pub event_timeout: Signal<In, Bits<5>>,
    /// `Sent`: the QP's transport retry count.
    pub event_retry: Signal<In, Bits<3>>,
    /// `Sent`: the QP's RNR retry count.
    pub event_rnr_retry: Signal<In, Bits<3>>,
    /// `RnrNak`: the NAK's timer code.
    pub event_rnr_timer: Signal<In, Bits<5>>,
    /// An action: valid (held until taken).
    pub action_valid: Signal<Out, Bit>,
    /// Taken.
    pub action_ready: Signal<In, Bit>,
    /// Its QP.
    pub action_qp: Signal<Out, Bits<24>>,
    /// Its kind (`TimerAction` code).
    pub action_kind: Signal<Out, Bits<TIMER_ACTION_BITS>>,
    /// An event was ignored: its QP beyond the table or its kind no event (one cycle).
    pub ignored: Signal<Out, Bit>,

    time_base: TimeBase,
    entries: RAM<TimerEntry, QB>,
    state: DFF<TimerState>,
    init_index: DFF<Bits<QB>>,
    /// The next QP the scan looks at.
    scan_index: DFF<Bits<QB>>,
    /// An event goes first when both wait: until [`EVENTS_PER_SCAN`] in a row, then the scan.
    event_turn: DFF<Bit>,
    /// Events taken since the scan's last turn.
    events_in_a_row: DFF<Bits<4>>,
    /// [`EVENTS_PER_SCAN`] − 1: the count at which an event ends the events' turn.
    last_event_in_turn: Constant<Bits<4>>,
    /// The operation: an event (else the scan), its QP, kind and values.
    from_event: DFF<Bit>,
    qp: DFF<Bits<QB>>,
    kind: DFF<Bits<TIMER_EVENT_BITS>>,
    timeout: DFF<Bits<5>>,
    retry: DFF<Bits<3>>,
    rnr_retry: DFF<Bits<3>>,
    rnr_timer: DFF<Bits<5>>,
    /// `now` when the operation started.
    started_at: DFF<Bits<32>>,
    entry: DFF<TimerEntry>,
    /// `started_at − deadline`: the low 16 bits with the borrow, the high 16 bits.
    difference_low: DFF<Bits<17>>,
    difference_high: DFF<Bits<16>>,
    /// The deadline is at or before `started_at` (and armed).
    due: DFF<Bit>,
    /// The ticks the new deadline is away.
    wait_ticks: DFF<Bits<32>>,
    /// `started_at + wait_ticks`: the low half with its carry, then the whole.
    sum_low: DFF<Bits<17>>,
    sum: DFF<Bits<32>>,
    out_valid: DFF<Bit>,
    out_kind: DFF<Bits<TIMER_ACTION_BITS>>,
    ignore: DFF<Bit>,
    /// A stopped entry with no limits (after reset and `Clear`).
    blank: Signal<Local, TimerEntry>,
    /// The deadline of the entry read.
    read_deadline: Signal<Local, Bits<32>>,
    exponent: Signal<Local, Bits<5>>,
    timeout_wait: Signal<Local, Bits<32>>,
    rnr_wait: Signal<Local, Bits<32>>,
    known_kind: Signal<Local, Bit>,
    /// Over the 32 exponents: bit `n` of table `b` is bit `b` of `timeout_ticks(n)`.
    timeout_table: [Constant<Bits<32>>; 32],
    /// Over the 32 RNR timer codes: bit `n` of table `b` is bit `b` of `rnr_wait_ticks(n)`.
    rnr_table: [Constant<Bits<32>>; 32],
    /// Over the event codes: bit `k` is set when `k` is an event.
    kind_table: Constant<Bits<8>>,
    qp_limit: Constant<Bits<24>>,
    last_qp: Constant<Bits<QB>>,
    sent: Constant<Bits<TIMER_EVENT_BITS>>,
    progress: Constant<Bits<TIMER_EVENT_BITS>>,
    idle: Constant<Bits<TIMER_EVENT_BITS>>,
    sequence_nak: Constant<Bits<TIMER_EVENT_BITS>>,
    rnr_nak: Constant<Bits<TIMER_EVENT_BITS>>,
    clear: Constant<Bits<TIMER_EVENT_BITS>>,
    action_timeout: Constant<Bits<TIMER_ACTION_BITS>>,
    action_retransmit: Constant<Bits<TIMER_ACTION_BITS>>,
    action_rnr_waited: Constant<Bits<TIMER_ACTION_BITS>>,
    action_exhausted: Constant<Bits<TIMER_ACTION_BITS>>,
    action_rnr_exhausted: Constant<Bits<TIMER_ACTION_BITS>>,
    rnr_forever: Constant<Bits<3>>,
}

/// The time base: a tick every `cfg_tick_cycles` cycles (0 counts as 1), counted in `now`.
#[derive(LogicBlock, Default)]
pub struct TimeBase {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous, active high: `now` restarts at 0, a tick comes in the first cycle after.
    pub reset: Signal<In, Bit>,
    /// Clock cycles per tick.
    pub cfg_tick_cycles: Signal<In, Bits<16>>,
    /// Ticks since reset (registered).
    pub now: Signal<Out, Bits<32>>,
    /// Cycles left in the current tick.
    prescale: DFF<Bits<16>>,
    tick: DFF<Bit>,
    ticks: EventCounter,
    reload: Signal<Local, Bits<16>>,
}

impl Logic for TimeBase {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, prescale, tick);
        self.ticks.clock.next = self.clock.val();
        self.reload.next = self.cfg_tick_cycles.val() - 1;
        if self.cfg_tick_cycles.val() == 0 {
            self.reload.next = 0.into();
        }
        self.tick.d.next = self.prescale.q.val() == 0;
        self.prescale.d.next = self.prescale.q.val() - 1;
        if self.prescale.q.val() == 0 {
            self.prescale.d.next = self.reload.val();
        }
        if self.reset.val() {
            self.prescale.d.next = 0.into();
        }
        self.ticks.increment.next = self.tick.q.val();
        self.ticks.reset.next = self.reset.val();
        self.now.next = self.ticks.count.val();
    }
}

/// Per bit `b` of a 32-bit value: a table over the 32 codes of a 5-bit field.
fn tick_tables(ticks: fn(u8) -> u64) -> [Constant<Bits<32>>; 32] {
    std::array::from_fn(|b| Constant::new(bits_from::<32>(|n| ticks(n as u8) >> b & 1 == 1)))
}

impl<const QB: usize> Default for RetryTimer<QB> {
    fn default() -> Self {
        assert!(QB <= 16 && TIME_BITS == 32);
        let event = |e: TimerEvent| c::<TIMER_EVENT_BITS>(u64::from(e.code()));
        let action = |a: TimerAction| c::<TIMER_ACTION_BITS>(u64::from(a.code()));
        Self {
            clock: Default::default(),
            reset: Default::default(),
            init_done: Default::default(),
            cfg_tick_cycles: Default::default(),
            now: Default::default(),
            event_valid: Default::default(),
            event_ready: Default::default(),
            event_qp: Default::default(),
            event_kind: Default::default(),
            event_timeout: Default::default(),
            event_retry: Default::default(),
            event_rnr_retry: Default::default(),
            event_rnr_timer: Default::default(),
            action_valid: Default::default(),
            action_ready: Default::default(),
            action_qp: Default::default(),
            action_kind: Default::default(),
            ignored: Default::default(),
            time_base: Default::default(),
            entries: Default::default(),
            state: Default::default(),
            init_index: Default::default(),
            scan_index: Default::default(),
            event_turn: Default::default(),
            events_in_a_row: Default::default(),
            last_event_in_turn: c::<4>(u64::from(EVENTS_PER_SCAN) - 1),
            from_event: Default::default(),
            qp: Default::default(),
            kind: Default::default(),
            timeout: Default::default(),
            retry: Default::default(),
            rnr_retry: Default::default(),
            rnr_timer: Default::default(),
            started_at: Default::default(),
            entry: Default::default(),
            difference_low: Default::default(),
            difference_high: Default::default(),
            due: Default::default(),
            wait_ticks: Default::default(),
            sum_low: Default::default(),
            sum: Default::default(),
            out_valid: Default::default(),
            out_kind: Default::default(),
            ignore: Default::default(),
            blank: Default::default(),
            read_deadline: Default::default(),
            exponent: Default::default(),
            timeout_wait: Default::default(),
            rnr_wait: Default::default(),
            known_kind: Default::default(),
            timeout_table: tick_tables(timeout_ticks),
            rnr_table: tick_tables(rnr_wait_ticks),
            kind_table: Constant::new(bits_from::<8>(|k| TimerEvent::from_code(k as u8).is_some())),
            qp_limit: c::<24>(1 << QB),
            last_qp: c::<QB>((1 << QB) - 1),
            sent: event(TimerEvent::Sent),
            progress: event(TimerEvent::Progress),
            idle: event(TimerEvent::Idle),
            sequence_nak: event(TimerEvent::SequenceNak),
            rnr_nak: event(TimerEvent::RnrNak),
            clear: event(TimerEvent::Clear),
            action_timeout: action(TimerAction::Timeout),
            action_retransmit: action(TimerAction::Retransmit),
            action_rnr_waited: action(TimerAction::RnrWaited),
            action_exhausted: action(TimerAction::RetriesExhausted),
            action_rnr_exhausted: action(TimerAction::RnrRetriesExhausted),
            rnr_forever: c::<3>(u64::from(RNR_RETRY_FOREVER)),
        }
    }
}

impl<const QB: usize> Logic for RetryTimer<QB> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            state,
            init_index,
            scan_index,
            event_turn,
            events_in_a_row,
            from_event,
            qp,
            kind,
            timeout,
            retry,
            rnr_retry,
            rnr_timer,
            started_at,
            entry,
            difference_low,
            difference_high,
            due,
            wait_ticks,
            sum_low,
            sum,
            out_valid,
            out_kind,
            ignore
        );
        self.entries.read_clock.next = self.clock.val();
        self.entries.write_clock.next = self.clock.val();
        self.time_base.clock.next = self.clock.val();
        self.time_base.reset.next = self.reset.val();
        self.time_base.cfg_tick_cycles.next = self.cfg_tick_cycles.val();

        // ---- the waits a deadline can be set to, from the elaborated tables ----
        self.exponent.next = self.entry.q.val().timeout;
        if self.from_event.q.val() && (self.kind.q.val() == self.sent.val()) {
            self.exponent.next = self.timeout.q.val();
        }
        self.timeout_wait.next = 0.into();
        self.rnr_wait.next = 0.into();
        for b in 0..32 {
            self.timeout_wait.next = self
                .timeout_wait
                .val()
                .replace_bit(b, self.timeout_table[b].val().get_bit(self.exponent.val().index()));
            self.rnr_wait.next = self
                .rnr_wait
                .val()
                .replace_bit(b, self.rnr_table[b].val().get_bit(self.rnr_timer.q.val().index()));
        }
        self.known_kind.next = self.kind_table.val().get_bit(self.event_kind.val().index());

        self.blank.next.armed = false;
        self.blank.next.rnr_waiting = false;
        self.blank.next.deadline = 0.into();
        self.blank.next.timeout = 0.into();
        self.blank.next.retry_limit = 0.into();
        self.blank.next.retries_left = 0.into();
        self.blank.next.rnr_limit = 0.into();
        self.blank.next.rnr_left = 0.into();

        // ---- defaults: the RAM read at the operation's QP, nothing written or taken ----
        self.entries.read_address.next = self.qp.q.val();
        self.entries.write_address.next = self.qp.q.val();
        self.entries.write_enable.next = false;
        self.read_deadline.next = self.entries.read_data.val().deadline;
        self.entries.write_data.next = self.entry.q.val();
        self.event_ready.next = false;
        self.ignore.d.next = false;

        match self.state.q.val() {
            TimerState::Init => {
                self.entries.write_enable.next = true;
                self.entries.write_address.next = self.init_index.q.val();
                self.entries.write_data.next = self.blank.val();
                self.init_index.d.next = self.init_index.q.val() + 1;
                if self.init_index.q.val() == self.last_qp.val() {
                    self.state.d.next = TimerState::Idle;
                }
            }
            TimerState::Idle => {
                self.event_ready.next = self.event_turn.q.val();
                self.started_at.d.next = self.time_base.now.val();
                if self.event_turn.q.val() && self.event_valid.val() {
                    self.from_event.d.next = true;
                    self.qp.d.next = self.event_qp.val().get_bits::<QB>(0);
                    self.kind.d.next = self.event_kind.val();
                    self.timeout.d.next = self.event_timeout.val();
                    self.retry.d.next = self.event_retry.val();
                    self.rnr_retry.d.next = self.event_rnr_retry.val();
                    self.rnr_timer.d.next = self.event_rnr_timer.val();
                    self.entries.read_address.next = self.event_qp.val().get_bits::<QB>(0);
                    if (self.event_qp.val() >= self.qp_limit.val()) || !self.known_kind.val() {
                        self.ignore.d.next = true;
                    } else {
                        self.state.d.next = TimerState::Read;
                    }
                } else {
                    self.from_event.d.next = false;
                    self.qp.d.next = self.scan_index.q.val();
                    self.entries.read_address.next = self.scan_index.q.val();
                    self.scan_index.d.next = self.scan_index.q.val() + 1;
                    self.state.d.next = TimerState::Read;
                }
            }
            TimerState::Read => {
                self.entry.d.next = self.entries.read_data.val();
                self.difference_low.d.next = bit_cast::<17, 16>(self.started_at.q.val().get_bits::<16>(0))
                    - bit_cast::<17, 16>(self.read_deadline.val().get_bits::<16>(0));
                self.difference_high.d.next = self.started_at.q.val().get_bits::<16>(16) - self.read_deadline.val().get_bits::<16>(16);
                self.state.d.next = TimerState::Compare;
            }
            TimerState::Compare => {
                // due: `started_at − deadline` below 2^31 (its sign, the borrow run through)
                self.due.d.next = self.entry.q.val().armed
                    && !(self.difference_high.q.val().get_bit(15)
                        ^ (self.difference_low.q.val().get_bit(16) && (self.difference_high.q.val().get_bits::<15>(0) == 0)));
                self.wait_ticks.d.next = self.timeout_wait.val();
                if self.from_event.q.val() && (self.kind.q.val() == self.rnr_nak.val()) {
                    self.wait_ticks.d.next = self.rnr_wait.val();
                }
                self.state.d.next = TimerState::AddLow;
            }
            TimerState::AddLow => {
                self.sum_low.d.next = bit_cast::<17, 16>(self.started_at.q.val().get_bits::<16>(0))
                    + bit_cast::<17, 16>(self.wait_ticks.q.val().get_bits::<16>(0));
                self.state.d.next = TimerState::AddHigh;
            }
            TimerState::AddHigh => {
                self.sum.d.next = (bit_cast::<32, 16>(
                    self.started_at.q.val().get_bits::<16>(16)
                        + self.wait_ticks.q.val().get_bits::<16>(16)
                        + bit_cast::<16, 1>(self.sum_low.q.val().get_bit(16).into()),
                ) << 16)
                    | bit_cast::<32, 16>(self.sum_low.q.val().get_bits::<16>(0));
                self.state.d.next = TimerState::Decide;
            }
            TimerState::Decide => {
                self.entries.write_enable.next = true;
                self.state.d.next = TimerState::Idle;
                self.events_in_a_row.d.next = 0.into();
                self.event_turn.d.next = true;
                if self.from_event.q.val() {
                    self.events_in_a_row.d.next = self.events_in_a_row.q.val() + 1;
                    self.event_turn.d.next = self.events_in_a_row.q.val() != self.last_event_in_turn.val();
                }
                if !self.from_event.q.val() {
                    // the scan: a deadline passed
                    self.entries.write_enable.next = self.due.q.val();
                    if self.entry.q.val().rnr_waiting {
                        self.entries.write_data.next.rnr_waiting = false;
                        self.entries.write_data.next.armed = self.entry.q.val().timeout != 0;
                        self.entries.write_data.next.deadline = self.sum.q.val();
                        self.out_kind.d.next = self.action_rnr_waited.val();
                    } else if self.entry.q.val().retries_left == 0 {
                        self.entries.write_data.next.armed = false;
                        self.out_kind.d.next = self.action_exhausted.val();
                    } else {
                        self.entries.write_data.next.retries_left = self.entry.q.val().retries_left - 1;
                        self.entries.write_data.next.deadline = self.sum.q.val();
                        self.out_kind.d.next = self.action_timeout.val();
                    }
                    if self.due.q.val() {
                        self.out_valid.d.next = true;
                        self.state.d.next = TimerState::Emit;
                    }
                } else if self.kind.q.val() == self.sent.val() {
                    // the limits kept; a stopped timer starts with its counters full
                    self.entries.write_data.next.timeout = self.timeout.q.val();
                    self.entries.write_data.next.retry_limit = self.retry.q.val();
                    self.entries.write_data.next.rnr_limit = self.rnr_retry.q.val();
                    if !self.entry.q.val().armed {
                        self.entries.write_data.next.armed = self.timeout.q.val() != 0;
                        self.entries.write_data.next.deadline = self.sum.q.val();
                        self.entries.write_data.next.retries_left = self.retry.q.val();
                        self.entries.write_data.next.rnr_left = self.rnr_retry.q.val();
                    }
                } else if self.kind.q.val() == self.progress.val() {
                    self.entries.write_data.next.retries_left = self.entry.q.val().retry_limit;
                    self.entries.write_data.next.rnr_left = self.entry.q.val().rnr_limit;
                    if !self.entry.q.val().rnr_waiting {
                        self.entries.write_data.next.armed = self.entry.q.val().timeout != 0;
                        self.entries.write_data.next.deadline = self.sum.q.val();
                    }
                } else if self.kind.q.val() == self.idle.val() {
                    self.entries.write_data.next.armed = false;
                    self.entries.write_data.next.rnr_waiting = false;
                    self.entries.write_data.next.retries_left = self.entry.q.val().retry_limit;
                    self.entries.write_data.next.rnr_left = self.entry.q.val().rnr_limit;
                } else if self.kind.q.val() == self.sequence_nak.val() {
                    self.out_valid.d.next = true;
                    self.state.d.next = TimerState::Emit;
                    self.entries.write_data.next.rnr_waiting = false;
                    if self.entry.q.val().retries_left == 0 {
                        self.entries.write_data.next.armed = false;
                        self.out_kind.d.next = self.action_exhausted.val();
                    } else {
                        self.entries.write_data.next.retries_left = self.entry.q.val().retries_left - 1;
                        self.entries.write_data.next.armed = self.entry.q.val().timeout != 0;
                        self.entries.write_data.next.deadline = self.sum.q.val();
                        self.out_kind.d.next = self.action_retransmit.val();
                    }
                } else if self.kind.q.val() == self.rnr_nak.val() {
                    if self.entry.q.val().rnr_left == 0 {
                        self.entries.write_data.next.armed = false;
                        self.entries.write_data.next.rnr_waiting = false;
                        self.out_kind.d.next = self.action_rnr_exhausted.val();
                        self.out_valid.d.next = true;
                        self.state.d.next = TimerState::Emit;
                    } else {
                        if self.entry.q.val().rnr_limit != self.rnr_forever.val() {
                            self.entries.write_data.next.rnr_left = self.entry.q.val().rnr_left - 1;
                        }
                        self.entries.write_data.next.armed = true;
                        self.entries.write_data.next.rnr_waiting = true;
                        self.entries.write_data.next.deadline = self.sum.q.val();
                    }
                } else if self.kind.q.val() == self.clear.val() {
                    self.entries.write_data.next = self.blank.val();
                }
            }
            TimerState::Emit => {
                if self.action_ready.val() {
                    self.out_valid.d.next = false;
                    self.state.d.next = TimerState::Idle;
                }
            }
        }
        if self.reset.val() {
            self.state.d.next = TimerState::Init;
            self.init_index.d.next = 0.into();
            self.scan_index.d.next = 0.into();
            self.event_turn.d.next = true;
            self.events_in_a_row.d.next = 0.into();
            self.out_valid.d.next = false;
            self.ignore.d.next = false;
        }
        self.init_done.next = self.state.q.val() != TimerState::Init;
        self.now.next = self.time_base.now.val();
        self.action_valid.next = self.out_valid.q.val();
        self.action_qp.next = bit_cast::<24, QB>(self.qp.q.val());
        self.action_kind.next = self.out_kind.q.val();
        self.ignored.next = self.ignore.q.val();
    }
}
