//! [`Decoder`]: the register file's address decode, elaborated from the map. Every cycle it
//! compares the operation's word address with every register's (constants computed from
//! `contracts::regs::Map`: plain registers by address, arrays by a masked compare on their
//! window and an element count) and registers one-hot hits, the array indices, "decodes to
//! nothing" and "read only", which the operation uses in the next cycle (`execute`).

use super::{window, word_address, CONSTANTS, FLOPS, INPUTS, STROBES, WORD_BITS};
use crate::common::elab::c;
use ferroce_contracts::regs::{Kind, Map, Register, QP_STATUS};
use ferroce_contracts::tx::{POST_WORDS, QP_CONTEXT_WORDS};
use rust_hdl::prelude::*;

/// The address decode of a register file with `2^CB` channels and `2^QB` QPs.
#[derive(LogicBlock)]
pub struct Decoder<const CB: usize, const QB: usize> {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// The operation's word address.
    pub address: Signal<In, Bits<WORD_BITS>>,
    /// Queue words written since reset (bit q).
    pub queue_written: Signal<In, Bits<64>>,
    /// Hit: the flip-flop registers (one bit each, map order).
    pub hit_flop: Signal<Out, Bits<FLOPS>>,
    /// Hit: the post descriptor words.
    pub hit_post_word: Signal<Out, Bits<POST_WORDS>>,
    /// Hit: the input (counter) registers.
    pub hit_input: Signal<Out, Bits<INPUTS>>,
    /// Hit: the ID block's constants.
    pub hit_constant: Signal<Out, Bits<CONSTANTS>>,
    /// Hit: `completion_bad_channel`.
    pub hit_bad_channel: Signal<Out, Bit>,
    /// Hit: `post_status`.
    pub hit_post_status: Signal<Out, Bit>,
    /// Hit: `poll_error`.
    pub hit_poll_error: Signal<Out, Bit>,
    /// Hit: the doorbell.
    pub hit_doorbell: Signal<Out, Bit>,
    /// Hit: the strobe registers (one bit each, map order).
    pub hit_strobe: Signal<Out, Bits<STROBES>>,
    /// Hit: a `queue_config` or `pace_cost` element below the queue count.
    pub hit_queue: Signal<Out, Bit>,
    /// The `hit_queue` element is a `pace_cost` (its word is 32 + the queue in the LUTRAM).
    pub hit_pace: Signal<Out, Bit>,
    /// Hit: a `responder_counter` element below the counter count.
    pub hit_indexed: Signal<Out, Bit>,
    /// Hit: a QP's `qp_status` word (of QP `qp_index`).
    pub hit_qp_status: Signal<Out, Bit>,
    /// Hit: a `poll` element.
    pub hit_poll: Signal<Out, Bit>,
    /// Hit: a `channel_status` element.
    pub hit_channel: Signal<Out, Bit>,
    /// Hit: QP context word w (bit w) of an entry below the QP count.
    pub hit_qp_word: Signal<Out, Bits<QP_CONTEXT_WORDS>>,
    /// The address decodes to nothing (DECERR).
    pub decoded_nothing: Signal<Out, Bit>,
    /// The register has no writable field (a write answers SLVERR).
    pub decoded_read_only: Signal<Out, Bit>,
    /// The queue of a `queue_config` element; the counter of a `responder_counter` element.
    pub queue_index: Signal<Out, Bits<5>>,
    /// That queue word was written since reset (else it reads its reset value).
    pub queue_was_written: Signal<Out, Bit>,
    /// The QP of a QP context word.
    pub qp_index: Signal<Out, Bits<QB>>,
    /// The channel of a `channel_status` element; for `poll`, the group in the low bits.
    pub channel_index: Signal<Out, Bits<CB>>,
    hit_flop_register: DFF<Bits<FLOPS>>,
    hit_post_word_register: DFF<Bits<POST_WORDS>>,
    hit_input_register: DFF<Bits<INPUTS>>,
    hit_constant_register: DFF<Bits<CONSTANTS>>,
    hit_bad_channel_register: DFF<Bit>,
    hit_post_status_register: DFF<Bit>,
    hit_poll_error_register: DFF<Bit>,
    hit_doorbell_register: DFF<Bit>,
    hit_strobe_register: DFF<Bits<STROBES>>,
    hit_queue_register: DFF<Bit>,
    hit_pace_register: DFF<Bit>,
    hit_indexed_register: DFF<Bit>,
    hit_qp_status_register: DFF<Bit>,
    hit_poll_register: DFF<Bit>,
    hit_channel_register: DFF<Bit>,
    hit_qp_word_register: DFF<Bits<QP_CONTEXT_WORDS>>,
    decoded_nothing_register: DFF<Bit>,
    decoded_read_only_register: DFF<Bit>,
    queue_index_register: DFF<Bits<5>>,
    queue_was_written_register: DFF<Bit>,
    qp_index_register: DFF<Bits<QB>>,
    channel_index_register: DFF<Bits<CB>>,
    hit_flop_now: Signal<Local, Bits<FLOPS>>,
    hit_post_word_now: Signal<Local, Bits<POST_WORDS>>,
    hit_input_now: Signal<Local, Bits<INPUTS>>,
    hit_constant_now: Signal<Local, Bits<CONSTANTS>>,
    hit_single_now: Signal<Local, Bits<4>>,
    hit_strobe_now: Signal<Local, Bits<STROBES>>,
    hit_queue_now: Signal<Local, Bit>,
    /// The address is in the `pace_cost` window.
    pace_window_now: Signal<Local, Bit>,
    /// `queue_written`'s halves: the queue words', the pacer costs'.
    written_queues: Signal<Local, Bits<32>>,
    written_paces: Signal<Local, Bits<32>>,
    hit_indexed_now: Signal<Local, Bit>,
    hit_qp_status_now: Signal<Local, Bit>,
    hit_poll_now: Signal<Local, Bit>,
    hit_channel_now: Signal<Local, Bit>,
    hit_qp_now: Signal<Local, Bit>,
    hit_qp_word_now: Signal<Local, Bits<QP_CONTEXT_WORDS>>,
    flop_address: [Constant<Bits<WORD_BITS>>; FLOPS],
    post_word_address: [Constant<Bits<WORD_BITS>>; POST_WORDS],
    input_address: [Constant<Bits<WORD_BITS>>; INPUTS],
    constant_address: [Constant<Bits<WORD_BITS>>; CONSTANTS],
    bad_channel_address: Constant<Bits<WORD_BITS>>,
    post_status_address: Constant<Bits<WORD_BITS>>,
    poll_error_address: Constant<Bits<WORD_BITS>>,
    doorbell_address: Constant<Bits<WORD_BITS>>,
    strobe_address: [Constant<Bits<WORD_BITS>>; STROBES],
    queue_window: [Constant<Bits<WORD_BITS>>; 2],
    pace_window: [Constant<Bits<WORD_BITS>>; 2],
    indexed_window: [Constant<Bits<WORD_BITS>>; 2],
    indexed_count: Constant<Bits<6>>,
    poll_window: [Constant<Bits<WORD_BITS>>; 2],
    channel_window: [Constant<Bits<WORD_BITS>>; 2],
    qp_window: [Constant<Bits<WORD_BITS>>; 2],
    queue_count: Constant<Bits<6>>,
    qp_word_number: [Constant<Bits<5>>; QP_CONTEXT_WORDS],
    qp_status_number: Constant<Bits<5>>,
}

impl<const CB: usize, const QB: usize> Decoder<CB, QB> {
    /// The decoder of `map`'s registers (their kinds and order as `Registers` checks them).
    pub fn new(map: &Map) -> Self {
        let flops: Vec<&Register> = map
            .of_kind(Kind::Flops)
            .into_iter()
            .filter(|r| !r.name.starts_with("post_word"))
            .collect();
        let post_words: Vec<&Register> = (0..POST_WORDS).map(|w| map.reg(&format!("post_word{w}"))).collect();
        let inputs = map.of_kind(Kind::Input);
        let strobes = map.of_kind(Kind::Strobe);
        let counter = map.reg("responder_counter");
        let qp_status = map.reg(QP_STATUS);
        assert_eq!(
            map.of_kind(Kind::Indexed).len(),
            2,
            "Decoder: the indexed registers are the responder's counters and the QPs' status"
        );
        assert!(counter.max_count <= 32, "Decoder: the responder counter's index in 5 bits");
        let constants = map.of_kind(Kind::Constant);
        let qp_words = map.of_kind(Kind::QpContext);
        let (queue, poll, channel) = (map.reg("queue_config"), map.reg("poll"), map.reg("channel_status"));
        let pace = map.reg("pace_cost");
        assert_eq!(
            (queue.max_count, pace.max_count),
            (32, 32),
            "Decoder: 32 queue words and 32 pacer costs"
        );
        let config = map.config;
        Self {
            clock: Default::default(),
            address: Default::default(),
            queue_written: Default::default(),
            hit_flop: Default::default(),
            hit_flop_register: Default::default(),
            hit_post_word: Default::default(),
            hit_post_word_register: Default::default(),
            hit_input: Default::default(),
            hit_input_register: Default::default(),
            hit_constant: Default::default(),
            hit_constant_register: Default::default(),
            hit_bad_channel: Default::default(),
            hit_bad_channel_register: Default::default(),
            hit_post_status: Default::default(),
            hit_post_status_register: Default::default(),
            hit_poll_error: Default::default(),
            hit_poll_error_register: Default::default(),
            hit_doorbell: Default::default(),
            hit_doorbell_register: Default::default(),
            hit_strobe: Default::default(),
            hit_strobe_register: Default::default(),
            hit_queue: Default::default(),
            hit_queue_register: Default::default(),
            hit_pace: Default::default(),
            hit_pace_register: Default::default(),
            hit_indexed: Default::default(),
            hit_indexed_register: Default::default(),
            hit_qp_status: Default::default(),
            hit_qp_status_register: Default::default(),
            hit_poll: Default::default(),
            hit_poll_register: Default::default(),
            hit_channel: Default::default(),
            hit_channel_register: Default::default(),
            hit_qp_word: Default::default(),
            hit_qp_word_register: Default::default(),
            decoded_nothing: Default::default(),
            decoded_nothing_register: Default::default(),
            decoded_read_only: Default::default(),
            decoded_read_only_register: Default::default(),
            queue_index: Default::default(),
            queue_index_register: Default::default(),
            queue_was_written: Default::default(),
            queue_was_written_register: Default::default(),
            qp_index: Default::default(),
            qp_index_register: Default::default(),
            channel_index: Default::default(),
            channel_index_register: Default::default(),
            hit_flop_now: Default::default(),
            hit_post_word_now: Default::default(),
            hit_input_now: Default::default(),
            hit_constant_now: Default::default(),
            hit_single_now: Default::default(),
            hit_strobe_now: Default::default(),
            hit_queue_now: Default::default(),
            pace_window_now: Default::default(),
            written_queues: Default::default(),
            written_paces: Default::default(),
            hit_indexed_now: Default::default(),
            hit_qp_status_now: Default::default(),
            hit_poll_now: Default::default(),
            hit_channel_now: Default::default(),
            hit_qp_now: Default::default(),
            hit_qp_word_now: Default::default(),
            flop_address: std::array::from_fn(|i| word_address(flops[i])),
            post_word_address: std::array::from_fn(|w| word_address(post_words[w])),
            input_address: std::array::from_fn(|i| word_address(inputs[i])),
            constant_address: std::array::from_fn(|i| word_address(constants[i])),
            bad_channel_address: word_address(map.reg("completion_bad_channel")),
            post_status_address: word_address(map.reg("post_status")),
            poll_error_address: word_address(map.reg("poll_error")),
            doorbell_address: word_address(map.reg("doorbell")),
            strobe_address: std::array::from_fn(|i| word_address(strobes[i])),
            queue_window: window(queue, queue.max_count),
            pace_window: window(pace, pace.max_count),
            indexed_window: window(counter, counter.max_count),
            indexed_count: c::<6>(u64::from(counter.count)),
            poll_window: window(poll, poll.count),
            channel_window: window(channel, channel.count),
            qp_window: window(qp_words[0], qp_words[0].count),
            queue_count: c::<6>(u64::from(config.queues)),
            qp_word_number: std::array::from_fn(|w| c::<5>(w as u64)),
            qp_status_number: c::<5>(u64::from((qp_status.offset - qp_words[0].offset) / 4)),
        }
    }
}

impl<const CB: usize, const QB: usize> Logic for Decoder<CB, QB> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            hit_flop_register,
            hit_post_word_register,
            hit_input_register,
            hit_constant_register,
            hit_bad_channel_register,
            hit_post_status_register,
            hit_poll_error_register,
            hit_doorbell_register,
            hit_strobe_register,
            hit_queue_register,
            hit_pace_register,
            hit_indexed_register,
            hit_qp_status_register,
            hit_poll_register,
            hit_channel_register,
            hit_qp_word_register,
            decoded_nothing_register,
            decoded_read_only_register,
            queue_index_register,
            queue_was_written_register,
            qp_index_register,
            channel_index_register
        );
        self.hit_flop_now.next = 0.into();
        for i in 0..FLOPS {
            self.hit_flop_now.next = self
                .hit_flop_now
                .val()
                .replace_bit(i, self.address.val() == self.flop_address[i].val());
        }
        self.hit_post_word_now.next = 0.into();
        for w in 0..POST_WORDS {
            self.hit_post_word_now.next = self
                .hit_post_word_now
                .val()
                .replace_bit(w, self.address.val() == self.post_word_address[w].val());
        }
        self.hit_input_now.next = 0.into();
        for i in 0..INPUTS {
            self.hit_input_now.next = self
                .hit_input_now
                .val()
                .replace_bit(i, self.address.val() == self.input_address[i].val());
        }
        self.hit_constant_now.next = 0.into();
        for i in 0..CONSTANTS {
            self.hit_constant_now.next = self
                .hit_constant_now
                .val()
                .replace_bit(i, self.address.val() == self.constant_address[i].val());
        }
        self.hit_single_now.next = 0.into();
        self.hit_single_now.next = self
            .hit_single_now
            .val()
            .replace_bit(0, self.address.val() == self.bad_channel_address.val())
            .replace_bit(1, self.address.val() == self.post_status_address.val())
            .replace_bit(2, self.address.val() == self.poll_error_address.val())
            .replace_bit(3, self.address.val() == self.doorbell_address.val());
        self.hit_strobe_now.next = 0.into();
        for i in 0..STROBES {
            self.hit_strobe_now.next = self
                .hit_strobe_now
                .val()
                .replace_bit(i, self.address.val() == self.strobe_address[i].val());
        }
        self.pace_window_now.next = (self.address.val() & self.pace_window[0].val()) == self.pace_window[1].val();
        self.hit_queue_now.next = (((self.address.val() & self.queue_window[0].val()) == self.queue_window[1].val())
            | self.pace_window_now.val())
            & (bit_cast::<6, 5>(self.address.val().get_bits::<5>(0)) < self.queue_count.val());
        self.hit_indexed_now.next = ((self.address.val() & self.indexed_window[0].val()) == self.indexed_window[1].val())
            & (bit_cast::<6, 5>(self.address.val().get_bits::<5>(0)) < self.indexed_count.val());
        self.hit_poll_now.next = (self.address.val() & self.poll_window[0].val()) == self.poll_window[1].val();
        self.hit_channel_now.next = (self.address.val() & self.channel_window[0].val()) == self.channel_window[1].val();
        self.hit_qp_now.next = (self.address.val() & self.qp_window[0].val()) == self.qp_window[1].val();
        self.hit_qp_word_now.next = 0.into();
        for w in 0..QP_CONTEXT_WORDS {
            self.hit_qp_word_now.next = self.hit_qp_word_now.val().replace_bit(
                w,
                self.hit_qp_now.val() & (self.address.val().get_bits::<5>(0) == self.qp_word_number[w].val()),
            );
        }
        self.hit_flop_register.d.next = self.hit_flop_now.val();
        self.hit_post_word_register.d.next = self.hit_post_word_now.val();
        self.hit_input_register.d.next = self.hit_input_now.val();
        self.hit_constant_register.d.next = self.hit_constant_now.val();
        self.hit_bad_channel_register.d.next = self.hit_single_now.val().get_bit(0);
        self.hit_post_status_register.d.next = self.hit_single_now.val().get_bit(1);
        self.hit_poll_error_register.d.next = self.hit_single_now.val().get_bit(2);
        self.hit_doorbell_register.d.next = self.hit_single_now.val().get_bit(3);
        self.hit_strobe_register.d.next = self.hit_strobe_now.val();
        self.hit_queue_register.d.next = self.hit_queue_now.val();
        self.hit_pace_register.d.next = self.pace_window_now.val();
        self.hit_indexed_register.d.next = self.hit_indexed_now.val();
        self.hit_poll_register.d.next = self.hit_poll_now.val();
        self.hit_channel_register.d.next = self.hit_channel_now.val();
        self.hit_qp_word_register.d.next = self.hit_qp_word_now.val();
        self.hit_qp_status_now.next = self.hit_qp_now.val() & (self.address.val().get_bits::<5>(0) == self.qp_status_number.val());
        self.hit_qp_status_register.d.next = self.hit_qp_status_now.val();
        self.decoded_nothing_register.d.next = !(self.hit_flop_now.val().any()
            | self.hit_post_word_now.val().any()
            | self.hit_input_now.val().any()
            | self.hit_constant_now.val().any()
            | self.hit_single_now.val().any()
            | self.hit_strobe_now.val().any()
            | self.hit_queue_now.val()
            | self.hit_indexed_now.val()
            | self.hit_poll_now.val()
            | self.hit_channel_now.val()
            | self.hit_qp_word_now.val().any()
            | self.hit_qp_status_now.val());
        self.decoded_read_only_register.d.next = self.hit_input_now.val().any()
            | self.hit_constant_now.val().any()
            | self.hit_single_now.val().get_bit(0)
            | self.hit_single_now.val().get_bit(2)
            | self.hit_poll_now.val()
            | self.hit_channel_now.val()
            | self.hit_indexed_now.val()
            | self.hit_qp_status_now.val();
        self.queue_index_register.d.next = self.address.val().get_bits::<5>(0);
        // the word's written bit: queue words at 0..31, pacer costs at 32..63
        self.written_queues.next = self.queue_written.val().get_bits::<32>(0);
        self.written_paces.next = self.queue_written.val().get_bits::<32>(32);
        self.queue_was_written_register.d.next = self.written_queues.val().get_bit(self.address.val().get_bits::<5>(0).index());
        if self.pace_window_now.val() {
            self.queue_was_written_register.d.next = self.written_paces.val().get_bit(self.address.val().get_bits::<5>(0).index());
        }
        self.qp_index_register.d.next = self.address.val().get_bits::<QB>(5);
        self.channel_index_register.d.next = self.address.val().get_bits::<CB>(0);
        self.hit_flop.next = self.hit_flop_register.q.val();
        self.hit_post_word.next = self.hit_post_word_register.q.val();
        self.hit_input.next = self.hit_input_register.q.val();
        self.hit_constant.next = self.hit_constant_register.q.val();
        self.hit_bad_channel.next = self.hit_bad_channel_register.q.val();
        self.hit_post_status.next = self.hit_post_status_register.q.val();
        self.hit_poll_error.next = self.hit_poll_error_register.q.val();
        self.hit_doorbell.next = self.hit_doorbell_register.q.val();
        self.hit_strobe.next = self.hit_strobe_register.q.val();
        self.hit_queue.next = self.hit_queue_register.q.val();
        self.hit_pace.next = self.hit_pace_register.q.val();
        self.hit_indexed.next = self.hit_indexed_register.q.val();
        self.hit_qp_status.next = self.hit_qp_status_register.q.val();
        self.hit_poll.next = self.hit_poll_register.q.val();
        self.hit_channel.next = self.hit_channel_register.q.val();
        self.hit_qp_word.next = self.hit_qp_word_register.q.val();
        self.decoded_nothing.next = self.decoded_nothing_register.q.val();
        self.decoded_read_only.next = self.decoded_read_only_register.q.val();
        self.queue_index.next = self.queue_index_register.q.val();
        self.queue_was_written.next = self.queue_was_written_register.q.val();
        self.qp_index.next = self.qp_index_register.q.val();
        self.channel_index.next = self.channel_index_register.q.val();
    }
}
