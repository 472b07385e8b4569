//! [`StatusTable`]: the status of every channel, in block RAM, updated by completions, post
//! acceptances and host polls, one operation per cycle.
//!
//! A channel's state lives in three bitmaps, 32 channels to a word (one word per poll group) in
//! one block RAM of `2^GB` × 96 bits: `busy` (a post was accepted, no completion yet),
//! `finished` (a completion came and was not polled) and `error` (that completion was not a
//! success). Its state is ERROR (finished and error), DONE (finished), BUSY (busy), else IDLE.
//! The cause of an error (the completion status) is kept per channel in a second block RAM.
//!
//! Operations, one per cycle, through a two-stage read-modify-write pipeline:
//!
//! | stage | what happens |
//! |---|---|
//! | `_s1` issue | the operation is chosen: a post acceptance, then a host operation, then a completion (`cpl_ready` is low while either of the first two waits); the bitmap word is addressed |
//! | `_s2` modify | the word (or the previous cycle's write of it, forwarded) is changed and written back; a host operation's result is registered |
//!
//! - completion of channel c: busy[c] ← 0, finished[c] ← 1, error[c] ← (status ≠ 0), cause[c] ← status;
//! - post accepted on channel c: busy[c] ← 1, finished[c] ← 0, error[c] ← 0;
//! - poll of group g: returns finished and error of the group, then clears both;
//! - status read of channel c: returns `{cause, 0b00, state}` (the `channel_status` register).
//!
//! A completion issued before a poll's issue cycle is in its result; one issued after is kept
//! for the next poll. After reset the bitmaps are cleared, one word per cycle (`init_done`).
//! A completion whose channel is beyond the table is dropped and counted
//! (`bad_channel_count`).

use crate::common::dual_port_ram::BlockRam;
use crate::common::elab::c;
use rust_hdl::prelude::*;

// Operation codes in the pipeline (`op_s1`, `op_s2`; literals, as `#[hdl_gen]` needs them):
// 0 completion, 1 post accepted, 2 poll, 3 status read (bit 1: a host operation).

/// The channel status table: `2^CB` channels in `2^GB` groups of 32 (`GB = CB − 5`).
#[derive(LogicBlock)]
pub struct StatusTable<const CB: usize, const GB: usize> {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous, active high: clears the bitmaps (one word per cycle after it).
    pub reset: Signal<In, Bit>,
    /// The bitmaps are cleared: operations run.
    pub init_done: Signal<Out, Bit>,
    /// Completion: valid.
    pub cpl_valid: Signal<In, Bit>,
    /// Completion: ready (low while a post acceptance or a host operation waits, and until `init_done`).
    pub cpl_ready: Signal<Out, Bit>,
    /// Completion: channel.
    pub cpl_channel: Signal<In, Bits<16>>,
    /// Completion: status code (0 success).
    pub cpl_status: Signal<In, Bits<4>>,
    /// A post was accepted on `accept_channel` (one cycle; at most one every two cycles).
    pub accept: Signal<In, Bit>,
    /// The channel of the accepted post.
    pub accept_channel: Signal<In, Bits<CB>>,
    /// A host operation (one cycle; the next only after `host_done`).
    pub host_valid: Signal<In, Bit>,
    /// The host operation is a poll of the group of `host_channel` (else a status read).
    pub host_poll: Signal<In, Bit>,
    /// The channel of a status read; for a poll, a channel of the group.
    pub host_channel: Signal<In, Bits<CB>>,
    /// The host operation's result is on `host_finished`, `host_error`, `host_status` (one cycle).
    pub host_done: Signal<Out, Bit>,
    /// Poll: finished bitmap of the group (before the poll cleared it).
    pub host_finished: Signal<Out, Bits<32>>,
    /// Poll: error bitmap of the group.
    pub host_error: Signal<Out, Bits<32>>,
    /// Status read: `{cause[3:0], 0b00, state[1:0]}`.
    pub host_status: Signal<Out, Bits<8>>,
    /// Completions dropped because their channel was beyond the table.
    pub bad_channel_count: Signal<Out, Bits<32>>,

    bitmaps: BlockRam<Bits<96>, GB>,
    causes: BlockRam<Bits<4>, CB>,
    accept_pending: DFF<Bit>,
    accept_channel_held: DFF<Bits<CB>>,
    host_pending: DFF<Bit>,
    host_poll_held: DFF<Bit>,
    host_channel_held: DFF<Bits<CB>>,
    init_running: DFF<Bit>,
    init_group: DFF<Bits<GB>>,
    /// The count of dropped completions in two halves, so that no adder is wider than 16 bits
    /// (6 LUT levels): the high half counts when the low half wraps, in the same cycle.
    bad_low: DFF<Bits<16>>,
    bad_high: DFF<Bits<16>>,
    /// `bad_low` is 0xFFFF.
    bad_low_full: DFF<Bit>,
    all_but_one: Constant<Bits<16>>,
    /// Bits of a 16-bit channel number beyond the table.
    beyond_table: Constant<Bits<16>>,
    /// The last group.
    last_group: Constant<Bits<GB>>,
    one: Constant<Bits<32>>,
    completion_taken: Signal<Local, Bit>,
    completion_in_table: Signal<Local, Bit>,
    issue_s1: Signal<Local, Bit>,
    op_s1: Signal<Local, Bits<2>>,
    channel_s1: Signal<Local, Bits<CB>>,
    valid_s2: DFF<Bit>,
    op_s2: DFF<Bits<2>>,
    channel_s2: DFF<Bits<CB>>,
    error_s2: DFF<Bit>,
    written_valid: DFF<Bit>,
    written_group: DFF<Bits<GB>>,
    written_word: DFF<Bits<96>>,
    word_s2: Signal<Local, Bits<96>>,
    busy_s2: Signal<Local, Bits<32>>,
    finished_s2: Signal<Local, Bits<32>>,
    error_bits_s2: Signal<Local, Bits<32>>,
    bit_s2: Signal<Local, Bits<32>>,
    new_word_s2: Signal<Local, Bits<96>>,
    state_s2: Signal<Local, Bits<2>>,
    done: DFF<Bit>,
    finished_result: DFF<Bits<32>>,
    error_result: DFF<Bits<32>>,
    status_result: DFF<Bits<8>>,
}

impl<const CB: usize, const GB: usize> Default for StatusTable<CB, GB> {
    fn default() -> Self {
        assert!(
            GB + 5 == CB && (5..=16).contains(&CB),
            "StatusTable: GB = CB − 5, 32 to 65536 channels"
        );
        Self {
            clock: Default::default(),
            reset: Default::default(),
            init_done: Default::default(),
            cpl_valid: Default::default(),
            cpl_ready: Default::default(),
            cpl_channel: Default::default(),
            cpl_status: Default::default(),
            accept: Default::default(),
            accept_channel: Default::default(),
            host_valid: Default::default(),
            host_poll: Default::default(),
            host_channel: Default::default(),
            host_done: Default::default(),
            host_finished: Default::default(),
            host_error: Default::default(),
            host_status: Default::default(),
            bad_channel_count: Default::default(),
            bitmaps: Default::default(),
            causes: Default::default(),
            accept_pending: Default::default(),
            accept_channel_held: Default::default(),
            host_pending: Default::default(),
            host_poll_held: Default::default(),
            host_channel_held: Default::default(),
            init_running: Default::default(),
            init_group: Default::default(),
            bad_low: Default::default(),
            bad_high: Default::default(),
            bad_low_full: Default::default(),
            all_but_one: c::<16>(0xfffe),
            beyond_table: c::<16>(0xffff & !((1u64 << CB) - 1)),
            last_group: c::<GB>((1u64 << GB) - 1),
            one: c::<32>(1),
            completion_taken: Default::default(),
            completion_in_table: Default::default(),
            issue_s1: Default::default(),
            op_s1: Default::default(),
            channel_s1: Default::default(),
            valid_s2: Default::default(),
            op_s2: Default::default(),
            channel_s2: Default::default(),
            error_s2: Default::default(),
            written_valid: Default::default(),
            written_group: Default::default(),
            written_word: Default::default(),
            word_s2: Default::default(),
            busy_s2: Default::default(),
            finished_s2: Default::default(),
            error_bits_s2: Default::default(),
            bit_s2: Default::default(),
            new_word_s2: Default::default(),
            state_s2: Default::default(),
            done: Default::default(),
            finished_result: Default::default(),
            error_result: Default::default(),
            status_result: Default::default(),
        }
    }
}

impl<const CB: usize, const GB: usize> Logic for StatusTable<CB, GB> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            accept_pending,
            accept_channel_held,
            host_pending,
            host_poll_held,
            host_channel_held,
            init_running,
            init_group,
            bad_low,
            bad_high,
            bad_low_full,
            valid_s2,
            op_s2,
            channel_s2,
            error_s2,
            written_valid,
            written_group,
            written_word,
            done,
            finished_result,
            error_result,
            status_result
        );
        self.bitmaps.clock.next = self.clock.val();
        self.causes.clock.next = self.clock.val();

        // requests wait in a register each until the pipeline takes them
        if self.accept.val() {
            self.accept_pending.d.next = true;
            self.accept_channel_held.d.next = self.accept_channel.val();
        }
        if self.host_valid.val() {
            self.host_pending.d.next = true;
            self.host_poll_held.d.next = self.host_poll.val();
            self.host_channel_held.d.next = self.host_channel.val();
        }
        self.cpl_ready.next = !(self.accept_pending.q.val() | self.host_pending.q.val() | self.init_running.q.val() | self.reset.val());
        self.completion_taken.next = self.cpl_valid.val() & self.cpl_ready.val();
        self.completion_in_table.next = !(self.cpl_channel.val() & self.beyond_table.val()).any();

        // s1: issue (acceptance, then host operation, then completion)
        self.issue_s1.next = false;
        self.op_s1.next = 0.into();
        self.channel_s1.next = self.cpl_channel.val().get_bits::<CB>(0);
        if !self.init_running.q.val() {
            if self.accept_pending.q.val() {
                self.issue_s1.next = true;
                self.op_s1.next = 1.into();
                self.channel_s1.next = self.accept_channel_held.q.val();
                self.accept_pending.d.next = false;
            } else if self.host_pending.q.val() {
                self.issue_s1.next = true;
                self.op_s1.next = 3.into();
                if self.host_poll_held.q.val() {
                    self.op_s1.next = 2.into();
                }
                self.channel_s1.next = self.host_channel_held.q.val();
                self.host_pending.d.next = false;
            } else if self.completion_taken.val() {
                self.issue_s1.next = self.completion_in_table.val();
                if !self.completion_in_table.val() {
                    self.bad_low.d.next = self.bad_low.q.val() + 1;
                    self.bad_low_full.d.next = self.bad_low.q.val() == self.all_but_one.val();
                    if self.bad_low_full.q.val() {
                        self.bad_high.d.next = self.bad_high.q.val() + 1;
                    }
                }
            }
        }
        self.bitmaps.read_address.next = self.channel_s1.val().get_bits::<GB>(5);
        self.causes.write.next = self.completion_taken.val() & self.completion_in_table.val();
        self.causes.write_address.next = self.cpl_channel.val().get_bits::<CB>(0);
        self.causes.write_data.next = self.cpl_status.val();
        self.causes.read_address.next = self.host_channel_held.q.val();
        self.valid_s2.d.next = self.issue_s1.val();
        self.op_s2.d.next = self.op_s1.val();
        self.channel_s2.d.next = self.channel_s1.val();
        self.error_s2.d.next = self.cpl_status.val().any();

        // s2: modify the word (the previous cycle's write forwarded) and write it back
        self.word_s2.next = self.bitmaps.read_data.val();
        if self.written_valid.q.val() & (self.written_group.q.val() == self.channel_s2.q.val().get_bits::<GB>(5)) {
            self.word_s2.next = self.written_word.q.val();
        }
        self.busy_s2.next = self.word_s2.val().get_bits::<32>(0);
        self.finished_s2.next = self.word_s2.val().get_bits::<32>(32);
        self.error_bits_s2.next = self.word_s2.val().get_bits::<32>(64);
        self.bit_s2.next = self.one.val() << bit_cast::<32, 5>(self.channel_s2.q.val().get_bits::<5>(0));
        self.new_word_s2.next = self.word_s2.val();
        if self.op_s2.q.val() == 0 {
            self.new_word_s2.next = bit_cast::<96, 32>(self.busy_s2.val() & !self.bit_s2.val())
                | (bit_cast::<96, 32>(self.finished_s2.val() | self.bit_s2.val()) << 32)
                | (bit_cast::<96, 32>(self.error_bits_s2.val() & !self.bit_s2.val()) << 64);
            if self.error_s2.q.val() {
                self.new_word_s2.next = self.new_word_s2.val() | (bit_cast::<96, 32>(self.bit_s2.val()) << 64);
            }
        }
        if self.op_s2.q.val() == 1 {
            self.new_word_s2.next = bit_cast::<96, 32>(self.busy_s2.val() | self.bit_s2.val())
                | (bit_cast::<96, 32>(self.finished_s2.val() & !self.bit_s2.val()) << 32)
                | (bit_cast::<96, 32>(self.error_bits_s2.val() & !self.bit_s2.val()) << 64);
        }
        if self.op_s2.q.val() == 2 {
            self.new_word_s2.next = bit_cast::<96, 32>(self.busy_s2.val());
        }
        self.bitmaps.write.next = self.valid_s2.q.val();
        self.bitmaps.write_address.next = self.channel_s2.q.val().get_bits::<GB>(5);
        self.bitmaps.write_data.next = self.new_word_s2.val();
        self.written_valid.d.next = self.valid_s2.q.val();
        self.written_group.d.next = self.channel_s2.q.val().get_bits::<GB>(5);
        self.written_word.d.next = self.new_word_s2.val();

        // s2: a host operation's result
        self.state_s2.next = 0.into();
        if self.finished_s2.val().get_bit(self.channel_s2.q.val().get_bits::<5>(0).index()) {
            self.state_s2.next = 2.into();
            if self.error_bits_s2.val().get_bit(self.channel_s2.q.val().get_bits::<5>(0).index()) {
                self.state_s2.next = 3.into();
            }
        } else if self.busy_s2.val().get_bit(self.channel_s2.q.val().get_bits::<5>(0).index()) {
            self.state_s2.next = 1.into();
        }
        self.done.d.next = self.valid_s2.q.val() & self.op_s2.q.val().get_bit(1);
        self.finished_result.d.next = self.finished_s2.val();
        self.error_result.d.next = self.error_bits_s2.val();
        self.status_result.d.next = bit_cast::<8, 2>(self.state_s2.val());
        if self.state_s2.val() == 3 {
            self.status_result.d.next = bit_cast::<8, 2>(self.state_s2.val()) | (bit_cast::<8, 4>(self.causes.read_data.val()) << 4);
        }
        self.host_done.next = self.done.q.val();
        self.host_finished.next = self.finished_result.q.val();
        self.host_error.next = self.error_result.q.val();
        self.host_status.next = self.status_result.q.val();
        self.bad_channel_count.next = bit_cast::<32, 16>(self.bad_low.q.val()) | (bit_cast::<32, 16>(self.bad_high.q.val()) << 16);

        // initializer: after reset, clear one bitmap word per cycle
        if self.init_running.q.val() {
            self.bitmaps.write.next = true;
            self.bitmaps.write_address.next = self.init_group.q.val();
            self.bitmaps.write_data.next = 0.into();
            self.init_group.d.next = self.init_group.q.val() + 1;
            if self.init_group.q.val() == self.last_group.val() {
                self.init_running.d.next = false;
            }
        }
        self.init_done.next = !self.init_running.q.val();
        if self.reset.val() {
            self.accept_pending.d.next = false;
            self.host_pending.d.next = false;
            self.init_running.d.next = true;
            self.init_group.d.next = 0.into();
            self.bad_low.d.next = 0.into();
            self.bad_high.d.next = 0.into();
            self.bad_low_full.d.next = false;
            self.valid_s2.d.next = false;
            self.written_valid.d.next = false;
            self.done.d.next = false;
        }
    }
}
