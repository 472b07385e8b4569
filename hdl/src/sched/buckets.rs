//! The token buckets, [`TokenBuckets`]: one per queue, 8.8 fixed point (`docs/sched.md`).
//!
//! Every cycle `level ← level + rate − 256` if the decision served the queue with its bucket
//! enabled, else `level ← min(level + rate, burst·256)`. `token_if_idle` / `token_if_served`
//! say whether the next decision may serve the queue (bucket disabled, or a whole token), for
//! both outcomes of this cycle's decision; the arbiter registers both and picks one with the
//! decision.
//!
//! At most 6 LUT levels; the decision (one-hot, LUT level 5) reaches only `spent` and the choice
//! between the clipped and the unclipped accrual of `pre`:
//! - The service is subtracted one cycle late. The registers hold `pre`, the level after the
//!   accrual and the clip (integer part `tokens`, 8-bit `fraction`), and `spent`, the service of
//!   the previous cycle; the level is `pre − 256·spent` (`tokens − 1` when both are set). Every
//!   flag of the level is a flag of `tokens` picked by `spent` (a register), so nothing waits
//!   for the decision.
//! - The rate (below one token per cycle) only adds to the fraction; its carry adds one token.
//!   The carry, `fraction ≥ 256 − rate`, is compared 2 bits at a time in LUTs (a carry chain
//!   would hide its depth from synthesis, which maps the logic after it as if it came from a
//!   register), so the token flags are at level 4: `min(tokens + carry, burst) ≥ 1` (not served)
//!   and `tokens + carry ≥ 2` (served).
//! - The clip needs no compare after the add: `tokens + carry` against `burst` is `tokens`
//!   against `burst` (and registered `burst − 1`, `burst + 1`), each one 8-bit compare.

use crate::common::elab::c;
use rust_hdl::prelude::*;

/// Token buckets for `Q` queues.
#[derive(LogicBlock)]
pub struct TokenBuckets<const Q: usize> {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous, active high: levels 0, buckets disabled.
    pub reset: Signal<In, Bit>,
    /// Register write: enable.
    pub cfg_we: Signal<In, Bit>,
    /// Register write: address.
    pub cfg_addr: Signal<In, Bits<7>>,
    /// Register write: data.
    pub cfg_wdata: Signal<In, Bits<32>>,
    /// This cycle's decision serves the queue of this bit (the arbiter's outputs, one-hot or 0).
    pub served_high: Signal<In, Bits<32>>,
    /// As `served_high`, for the low table.
    pub served_low: Signal<In, Bits<32>>,
    /// This cycle's decision serves the control queue.
    pub served_control: Signal<In, Bit>,
    /// Bit q: bucket q allows a service next cycle (disabled, or a whole token) if this decision
    /// does not serve q.
    pub token_if_idle: Signal<Out, Bits<32>>,
    /// Bit q: the same if this decision serves q.
    pub token_if_served: Signal<Out, Bits<32>>,

    /// Per queue: whole tokens of `pre` (the level before the last service is taken off).
    tokens: [DFF<Bits<8>>; Q],
    /// Per queue: fraction of a token (1/256).
    fraction: [DFF<Bits<8>>; Q],
    /// Per queue: the previous decision served it with its bucket enabled (a token to take off).
    spent: DFF<Bits<32>>,
    /// Per queue: rate (1/256 token per cycle).
    rate: [DFF<Bits<8>>; Q],
    /// Per queue: 256 − rate (mod 256).
    rate_negated: [DFF<Bits<8>>; Q],
    /// Per queue: burst (whole tokens).
    burst: [DFF<Bits<8>>; Q],
    /// Per queue: burst − 1 (mod 256).
    burst_less_one: [DFF<Bits<8>>; Q],
    /// Per queue: burst + 1 (mod 256).
    burst_plus_one: [DFF<Bits<8>>; Q],
    /// Per queue: bucket enabled.
    enabled: DFF<Bits<32>>,
    /// Per queue: rate ≠ 0.
    rate_nonzero: DFF<Bits<32>>,
    /// Per queue: burst ≥ 1.
    burst_ge1: DFF<Bits<32>>,

    /// Queue indices as register addresses.
    queue_addr: [Constant<Bits<7>>; 32],
    /// Bit 0: the control queue.
    control_bit: Constant<Bits<32>>,
    /// Per bit b of a token count: the bits below it.
    below_bit: [Constant<Bits<8>>; 8],

    /// Per queue: served by this decision.
    served: Signal<Local, Bits<32>>,
    /// Loop: the queue's word is written.
    queue_write: Signal<Local, Bit>,
    /// Loop: a token is taken off `pre` (the previous service, `pre` not empty).
    take_off: Signal<Local, Bit>,
    /// Loop: `tokens`.
    tokens_now: Signal<Local, Bits<8>>,
    /// Loop: `fraction`.
    fraction_now: Signal<Local, Bits<8>>,
    /// Loop: `rate_negated`.
    rate_negated_now: Signal<Local, Bits<8>>,
    /// Loop, per 2-bit chunk: fraction chunk > 256 − rate chunk.
    chunk_greater: Signal<Local, Bits<4>>,
    /// Loop, per 2-bit chunk: fraction chunk = 256 − rate chunk.
    chunk_equal: Signal<Local, Bits<4>>,
    /// Loop: fraction + rate ≥ 256 (a token is added).
    carry: Signal<Local, Bit>,
    /// Loop: (fraction + rate) mod 256 ≠ 0.
    sum_nonzero: Signal<Local, Bit>,
    /// Loop: whole tokens of the level ≥ 1.
    has_token: Signal<Local, Bit>,
    /// Loop: whole tokens of the level ≥ 2.
    has_two_tokens: Signal<Local, Bit>,
    /// Loop: whole tokens of the level = burst.
    at_cap: Signal<Local, Bit>,
    /// Loop: whole tokens of the level = burst − 1 (burst ≥ 1).
    below_cap: Signal<Local, Bit>,
    /// Loop: whole tokens of the level ≥ burst.
    at_or_over_cap: Signal<Local, Bit>,
    /// Loop: level + rate > burst·256: the next `pre` is the cap.
    clip: Signal<Local, Bit>,
    /// Loop: `tokens` + 1.
    tokens_up: Signal<Local, Bits<8>>,
    /// Loop: `tokens` − 1.
    tokens_down: Signal<Local, Bits<8>>,
    /// Loop: whole tokens of the level + carry.
    tokens_sum: Signal<Local, Bits<8>>,
    /// Loop: a whole token next cycle if this decision does not serve the queue.
    token_idle: Signal<Local, Bit>,
    /// Per queue: this decision serves it with its bucket enabled.
    served_enabled: Signal<Local, Bits<32>>,
    /// Loop: a whole token next cycle if it does (and the bucket is enabled).
    token_spent: Signal<Local, Bit>,
    /// Loop: the bucket is enabled next cycle.
    enabled_next: Signal<Local, Bit>,
    /// Per queue: `enabled_next`.
    enabled_next_all: Signal<Local, Bits<32>>,
}

impl<const Q: usize> Default for TokenBuckets<Q> {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            cfg_we: Default::default(),
            cfg_addr: Default::default(),
            cfg_wdata: Default::default(),
            served_high: Default::default(),
            served_low: Default::default(),
            served_control: Default::default(),
            token_if_idle: Default::default(),
            token_if_served: Default::default(),
            tokens: std::array::from_fn(|_| Default::default()),
            fraction: std::array::from_fn(|_| Default::default()),
            spent: Default::default(),
            rate: std::array::from_fn(|_| Default::default()),
            rate_negated: std::array::from_fn(|_| Default::default()),
            burst: std::array::from_fn(|_| Default::default()),
            burst_less_one: std::array::from_fn(|_| Default::default()),
            burst_plus_one: std::array::from_fn(|_| Default::default()),
            enabled: Default::default(),
            rate_nonzero: Default::default(),
            burst_ge1: Default::default(),
            queue_addr: std::array::from_fn(|q| c::<7>(q as u64)),
            control_bit: c::<32>(1),
            below_bit: std::array::from_fn(|b| c::<8>((1u64 << b) - 1)),
            served: Default::default(),
            queue_write: Default::default(),
            take_off: Default::default(),
            tokens_now: Default::default(),
            fraction_now: Default::default(),
            rate_negated_now: Default::default(),
            chunk_greater: Default::default(),
            chunk_equal: Default::default(),
            carry: Default::default(),
            sum_nonzero: Default::default(),
            has_token: Default::default(),
            has_two_tokens: Default::default(),
            at_cap: Default::default(),
            below_cap: Default::default(),
            at_or_over_cap: Default::default(),
            clip: Default::default(),
            tokens_up: Default::default(),
            tokens_down: Default::default(),
            tokens_sum: Default::default(),
            token_idle: Default::default(),
            token_spent: Default::default(),
            served_enabled: Default::default(),
            enabled_next: Default::default(),
            enabled_next_all: Default::default(),
        }
    }
}

impl<const Q: usize> Logic for TokenBuckets<Q> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, spent, enabled, rate_nonzero, burst_ge1);
        for q in 0..Q {
            self.tokens[q].clock.next = self.clock.val();
            self.fraction[q].clock.next = self.clock.val();
            self.rate[q].clock.next = self.clock.val();
            self.rate_negated[q].clock.next = self.clock.val();
            self.burst[q].clock.next = self.clock.val();
            self.burst_less_one[q].clock.next = self.clock.val();
            self.burst_plus_one[q].clock.next = self.clock.val();
            self.rate[q].d.next = self.rate[q].q.val();
            self.rate_negated[q].d.next = self.rate_negated[q].q.val();
            self.burst[q].d.next = self.burst[q].q.val();
            self.burst_less_one[q].d.next = self.burst_less_one[q].q.val();
            self.burst_plus_one[q].d.next = self.burst_plus_one[q].q.val();
        }
        self.token_if_idle.next = 0.into();
        self.token_if_served.next = 0.into();
        self.enabled_next_all.next = 0.into();
        self.served.next = self.served_high.val() | self.served_low.val();
        if self.served_control.val() {
            self.served.next = self.control_bit.val();
        }
        // the only register the decision reaches: the token comes off next cycle
        self.served_enabled.next = self.served.val() & self.enabled.q.val();
        self.spent.d.next = self.served_enabled.val();

        for q in 0..Q {
            // ---- the level: `pre` less the previous service (flags picked by `spent`) ----
            self.tokens_now.next = self.tokens[q].q.val();
            self.fraction_now.next = self.fraction[q].q.val();
            self.rate_negated_now.next = self.rate_negated[q].q.val();
            self.take_off.next = self.spent.q.val().get_bit(q) & self.tokens_now.val().any();
            self.has_token.next = self.tokens_now.val().any();
            self.has_two_tokens.next = self.tokens_now.val().get_bits::<7>(1).any();
            self.at_cap.next = self.tokens_now.val() == self.burst[q].q.val();
            self.below_cap.next = (self.tokens_now.val() == self.burst_less_one[q].q.val()) & self.burst_ge1.q.val().get_bit(q);
            self.at_or_over_cap.next = self.tokens_now.val() >= self.burst[q].q.val();
            if self.take_off.val() {
                self.has_token.next = self.tokens_now.val().get_bits::<7>(1).any();
                self.has_two_tokens.next = (self.tokens_now.val() >= 3) & self.tokens_now.val().any();
                self.at_cap.next = self.tokens_now.val() == self.burst_plus_one[q].q.val();
                self.below_cap.next = (self.tokens_now.val() == self.burst[q].q.val()) & self.burst_ge1.q.val().get_bit(q);
                self.at_or_over_cap.next = self.tokens_now.val() > self.burst[q].q.val();
            }

            // ---- the accrual: carry of fraction + rate, compared 2 bits at a time ----
            self.chunk_greater.next = 0.into();
            self.chunk_equal.next = 0.into();
            for k in 0..4 {
                self.chunk_greater.next = self.chunk_greater.val().replace_bit(
                    k,
                    self.fraction_now.val().get_bits::<2>(2 * k) > self.rate_negated_now.val().get_bits::<2>(2 * k),
                );
                self.chunk_equal.next = self.chunk_equal.val().replace_bit(
                    k,
                    self.fraction_now.val().get_bits::<2>(2 * k) == self.rate_negated_now.val().get_bits::<2>(2 * k),
                );
            }
            self.carry.next = self.rate_nonzero.q.val().get_bit(q)
                & (self.chunk_greater.val().get_bit(3)
                    | (self.chunk_equal.val().get_bit(3)
                        & (self.chunk_greater.val().get_bit(2)
                            | (self.chunk_equal.val().get_bit(2)
                                & (self.chunk_greater.val().get_bit(1)
                                    | (self.chunk_equal.val().get_bit(1)
                                        & (self.chunk_greater.val().get_bit(0) | self.chunk_equal.val().get_bit(0))))))));
            self.sum_nonzero.next = !self.chunk_equal.val().all();

            // ---- the next `pre`: clipped to the burst ----
            self.clip.next = (self.at_or_over_cap.val() & !self.at_cap.val()) | (self.at_cap.val() & self.sum_nonzero.val());
            if self.carry.val() {
                self.clip.next = self.at_or_over_cap.val() | (self.below_cap.val() & self.sum_nonzero.val());
            }
            // tokens ± 1 as logic (bit b flips when the bits below are all ones / all zeros):
            // synthesis would merge two muxed adds into one add after the mux
            self.tokens_up.next = 0.into();
            self.tokens_down.next = 0.into();
            for b in 0..8 {
                self.tokens_up.next = self.tokens_up.val().replace_bit(
                    b,
                    self.tokens_now.val().get_bit(b) ^ ((self.tokens_now.val() | !self.below_bit[b].val()).all()),
                );
                self.tokens_down.next = self.tokens_down.val().replace_bit(
                    b,
                    self.tokens_now.val().get_bit(b) ^ !(self.tokens_now.val() & self.below_bit[b].val()).any(),
                );
            }
            self.tokens_sum.next = self.tokens_now.val();
            if self.take_off.val() & !self.carry.val() {
                self.tokens_sum.next = self.tokens_down.val();
            }
            if !self.take_off.val() & self.carry.val() {
                self.tokens_sum.next = self.tokens_up.val();
            }
            self.tokens[q].d.next = self.tokens_sum.val();
            self.fraction[q].d.next = self.fraction_now.val() + self.rate[q].q.val();
            // a served level is not clipped in this cycle
            if self.clip.val() & !self.served_enabled.val().get_bit(q) {
                self.tokens[q].d.next = self.burst[q].q.val();
                self.fraction[q].d.next = 0.into();
            }

            // ---- register write: rate, burst, enable from the next cycle ----
            self.queue_write.next = self.cfg_we.val() & (self.cfg_addr.val() == self.queue_addr[q].val());
            self.enabled_next.next = self.enabled.q.val().get_bit(q);
            if self.queue_write.val() {
                self.enabled_next.next = self.cfg_wdata.val().get_bit(25);
                self.rate[q].d.next = self.cfg_wdata.val().get_bits::<8>(8);
                self.rate_negated[q].d.next = !self.cfg_wdata.val().get_bits::<8>(8) + 1;
                self.burst[q].d.next = self.cfg_wdata.val().get_bits::<8>(16);
                self.burst_less_one[q].d.next = self.cfg_wdata.val().get_bits::<8>(16) - 1;
                self.burst_plus_one[q].d.next = self.cfg_wdata.val().get_bits::<8>(16) + 1;
                self.rate_nonzero.d.next = self
                    .rate_nonzero
                    .d
                    .val()
                    .replace_bit(q, self.cfg_wdata.val().get_bits::<8>(8).any());
                self.burst_ge1.d.next = self.burst_ge1.d.val().replace_bit(q, self.cfg_wdata.val().get_bits::<8>(16).any());
            }
            self.enabled_next_all.next = self.enabled_next_all.val().replace_bit(q, self.enabled_next.val());

            // ---- token flags of the next cycle: the next level is min(tokens + carry, burst)
            // whole tokens, or tokens + carry − 1 if this decision serves the queue ----
            self.token_idle.next = self.burst_ge1.q.val().get_bit(q) & (self.carry.val() | self.has_token.val());
            self.token_spent.next = self.has_two_tokens.val() | (self.carry.val() & self.has_token.val());
            if !self.enabled.q.val().get_bit(q) {
                self.token_spent.next = self.token_idle.val();
            }
            self.token_if_idle.next = self
                .token_if_idle
                .val()
                .replace_bit(q, !self.enabled_next.val() | self.token_idle.val());
            self.token_if_served.next = self
                .token_if_served
                .val()
                .replace_bit(q, !self.enabled_next.val() | self.token_spent.val());
        }
        self.enabled.d.next = self.enabled_next_all.val();

        if self.reset.val() {
            for q in 0..Q {
                self.tokens[q].d.next = 0.into();
                self.fraction[q].d.next = 0.into();
                self.rate[q].d.next = 0.into();
                self.rate_negated[q].d.next = 0.into();
                self.burst[q].d.next = 0.into();
                self.burst_less_one[q].d.next = 0xff.into();
                self.burst_plus_one[q].d.next = 1.into();
            }
            self.spent.d.next = 0.into();
            self.enabled.d.next = 0.into();
            self.rate_nonzero.d.next = 0.into();
            self.burst_ge1.d.next = 0.into();
        }
    }
}
