//! [`PostTurns`]: up to [`POSTERS`] posters (the stream senders and the host) take turns, round
//! robin, into one held post for the TX path; each post's result goes back to its poster.
//!
//! ```text
//!  requests ─► offered (not the poster chosen) ─► first preferred, else first ─► chosen (one bit)
//!  chosen_entry (the chosen poster's, from outside) ─► load ─► held post ─► m_post ─► TX path
//!                                                       └─► posters FIFO (who posted, in order)
//!  m_post_result ─► the FIFO's head ─► result_valid (one bit per poster), result_code (registered)
//! ```
//!
//! - **Turns**: the poster chosen keeps its turn until its post is taken (`load`: the held post
//!   is free or leaving, and the choice is a cycle old, by when `preferred` follows it); the
//!   next choice is among the others, first those after the one chosen: round robin, no poster
//!   waits while more than one post of each other poster is taken. A poster's post is taken in
//!   a cycle where `load` is high and its `chosen` bit is set.
//! - **Results**: the TX path answers in the order it took the posts, the held post's order;
//!   each answer reaches its poster one cycle after the TX path gives it.

use crate::common::elab::c;
use crate::common::fifo::Fifo;
use ferroce_contracts::tx::{POST_BITS, POST_ERROR_BITS};
use rust_hdl::prelude::*;

/// Posters that can take turns.
pub const POSTERS: usize = 32;

/// The round robin of posts and the routing of their results.
#[derive(LogicBlock)]
pub struct PostTurns {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous, active high.
    pub reset: Signal<In, Bit>,
    /// The posters offering a post, bit `p` for poster `p`.
    pub requests: Signal<In, Bits<POSTERS>>,
    /// The poster whose post is offered for the held post, one bit (registered).
    pub chosen: Signal<Out, Bits<POSTERS>>,
    /// The chosen poster's entry.
    pub chosen_entry: Signal<In, Bits<POST_BITS>>,
    /// The chosen poster's post is taken this cycle.
    pub load: Signal<Out, Bit>,
    /// Posts to the TX path: valid.
    pub m_post_valid: Signal<Out, Bit>,
    /// Posts to the TX path: ready.
    pub m_post_ready: Signal<In, Bit>,
    /// Posts to the TX path: the entry.
    pub m_post_entry: Signal<Out, Bits<POST_BITS>>,
    /// The TX path's post results (in the order of the posts): valid.
    pub m_post_result_valid: Signal<In, Bit>,
    /// The TX path's post results: code.
    pub m_post_result_code: Signal<In, Bits<POST_ERROR_BITS>>,
    /// A result for poster `p` (bit `p`; one cycle, registered).
    pub result_valid: Signal<Out, Bits<POSTERS>>,
    /// The result's code (registered).
    pub result_code: Signal<Out, Bits<POST_ERROR_BITS>>,

    /// Who posted each post the TX path has taken and not yet answered.
    posters: Fifo<Bits<8>>,
    /// The posters preferred (those after the last one served).
    preferred: DFF<Bits<POSTERS>>,
    picked: DFF<Bits<POSTERS>>,
    /// The choice was made in the last cycle: its poster is taken from the next (by when
    /// `preferred` follows it).
    fresh: DFF<Bit>,
    held: DFF<Bit>,
    held_entry: DFF<Bits<POST_BITS>>,
    answer_valid: DFF<Bits<POSTERS>>,
    answer_code: DFF<Bits<POST_ERROR_BITS>>,
    // ---- combinational ----
    offered: Signal<Local, Bits<POSTERS>>,
    preferred_offered: Signal<Local, Bits<POSTERS>>,
    /// The lowest of the posters offered (of those preferred), one bit.
    first_offered: Signal<Local, Bits<POSTERS>>,
    first_preferred: Signal<Local, Bits<POSTERS>>,
    taking: Signal<Local, Bit>,
    picked_index: Signal<Local, Bits<8>>,
    // ---- constants ----
    /// The posters below poster p.
    below: [Constant<Bits<POSTERS>>; POSTERS],
    index: [Constant<Bits<8>>; POSTERS],
    one: Constant<Bits<POSTERS>>,
}

impl Default for PostTurns {
    fn default() -> Self {
        PostTurns {
            clock: Default::default(),
            reset: Default::default(),
            requests: Default::default(),
            chosen: Default::default(),
            chosen_entry: Default::default(),
            load: Default::default(),
            m_post_valid: Default::default(),
            m_post_ready: Default::default(),
            m_post_entry: Default::default(),
            m_post_result_valid: Default::default(),
            m_post_result_code: Default::default(),
            result_valid: Default::default(),
            result_code: Default::default(),
            posters: Default::default(),
            preferred: Default::default(),
            picked: Default::default(),
            fresh: Default::default(),
            held: Default::default(),
            held_entry: Default::default(),
            answer_valid: Default::default(),
            answer_code: Default::default(),
            offered: Default::default(),
            preferred_offered: Default::default(),
            first_offered: Default::default(),
            first_preferred: Default::default(),
            taking: Default::default(),
            picked_index: Default::default(),
            below: std::array::from_fn(|p| c::<POSTERS>((1u64 << p) - 1)),
            index: std::array::from_fn(|p| c::<8>(p as u64)),
            one: c::<POSTERS>(1),
        }
    }
}

impl Logic for PostTurns {
    #[hdl_gen]
    fn update(&mut self) {
        clock!(self, clock, posters);
        dff_setup!(self, clock, preferred, picked, fresh, held, held_entry, answer_valid, answer_code);
        self.posters.reset.next = self.reset.val();

        // ---- the turn: the poster picked offers its post; the next is picked among the others ----
        self.taking.next =
            (!self.held.q.val() | self.m_post_ready.val()) & ((self.picked.q.val() & self.requests.val()) != 0) & !self.fresh.q.val();
        self.offered.next = self.requests.val() & !self.picked.q.val();
        self.preferred_offered.next = self.offered.val() & self.preferred.q.val();
        self.first_offered.next = 0.into();
        self.first_preferred.next = 0.into();
        for p in 0..POSTERS {
            self.first_offered.next = self
                .first_offered
                .val()
                .replace_bit(p, self.offered.val().get_bit(p) & ((self.offered.val() & self.below[p].val()) == 0));
            self.first_preferred.next = self.first_preferred.val().replace_bit(
                p,
                self.preferred_offered.val().get_bit(p) & ((self.preferred_offered.val() & self.below[p].val()) == 0),
            );
        }
        self.picked.d.next = self.first_offered.val();
        if self.preferred_offered.val() != 0 {
            self.picked.d.next = self.first_preferred.val();
        }
        // the choice stays while its poster offers and is not taken: it is the first of the round
        self.fresh.d.next = true;
        if !self.taking.val() & ((self.picked.q.val() & self.requests.val()) != 0) {
            self.picked.d.next = self.picked.q.val();
            self.fresh.d.next = false;
        }
        // the posters after the one chosen come first next time
        if self.picked.q.val() != 0 {
            self.preferred.d.next = !(self.picked.q.val() | (self.picked.q.val() - 1));
        }
        self.chosen.next = self.picked.q.val();
        self.load.next = self.taking.val();

        // ---- the held post ----
        if self.m_post_ready.val() {
            self.held.d.next = false;
        }
        if self.taking.val() {
            self.held.d.next = true;
            self.held_entry.d.next = self.chosen_entry.val();
        }
        self.m_post_valid.next = self.held.q.val();
        self.m_post_entry.next = self.held_entry.q.val();

        // ---- results: to the poster at the FIFO's head (listed as its post is held: the FIFO
        // shows an entry two cycles after its push, by when a result for it can come at the
        // earliest) ----
        self.picked_index.next = 0.into();
        for p in 0..POSTERS {
            if self.picked.q.val().get_bit(p) {
                self.picked_index.next = self.picked_index.val() | self.index[p].val();
            }
        }
        self.posters.push.next = self.taking.val();
        self.posters.push_value.next = self.picked_index.val();
        self.posters.pop.next = self.m_post_result_valid.val();
        self.answer_valid.d.next = 0.into();
        if self.m_post_result_valid.val() {
            self.answer_valid.d.next = self.one.val() << bit_cast::<POSTERS, 8>(self.posters.head.val());
        }
        self.answer_code.d.next = self.m_post_result_code.val();
        self.result_valid.next = self.answer_valid.q.val();
        self.result_code.next = self.answer_code.q.val();

        if self.reset.val() {
            self.held.d.next = false;
            self.picked.d.next = 0.into();
            self.preferred.d.next = 0.into();
            self.answer_valid.d.next = 0.into();
        }
    }
}
