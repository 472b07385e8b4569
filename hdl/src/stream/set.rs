//! [`StreamSet`]: `S` stream ports with their senders, the reader of their window, the stream
//! block of the register map on an AXI4-Lite port of its own, and the post port shared with
//! the host: everything the engine adds to its TX path to stream into remote memory.
//!
//! ```text
//!  s_axil ─► AxiLiteFront ─► decode ─► StreamRegisters[i]: staged settings ─► configure ─► port's settings
//!                               │                        (and the word read)            └──► sender's settings (applied)
//!                               └───► command ─► checked (busy, slot and block) ─► port ─► result ─► stream_state
//!  s_axis[i] ─► StreamPort[i] ─► messages ─► StreamSender[i] ─┐  PostTurns:
//!                  ▲    ▲ buffer reads                        ├─► round robin ─► held post ─► m_post ─► TX path
//!                  │    └──────────── StreamReader ◄─ s_read  │                      │ (who posted, in order)
//!                  └── releases ◄── cpl (TX completions)      │   m_post_result ─────┴─► the poster's result (registered)
//!  s_post (the register file's posts) ────────────────────────┘
//! ```
//!
//! - **Registers** (`ferroce_contracts::regs`, block `stream`, [`STREAM_STRIDE`] bytes per
//!   stream; each stream's in a [`StreamRegisters`]): the settings are staged in flip-flops and
//!   read back as written; the `configure`
//!   command applies all of them (the port's settings and the sender's) or none. A read takes
//!   three cycles, a setting's write two, a command about eight (its write is answered once it
//!   is done); an address outside the streams answers DECERR, a write to a read-only register
//!   SLVERR.
//! - **Commands**: `configure` is refused (`stream_state.result`) while the stream still holds
//!   messages (`running`: the port refuses it while it runs); then the port's own checks.
//!   `start` and `stop` go to the port.
//! - **Posts** ([`PostTurns`]): the senders' and the host's posts take turns (round robin) into
//!   one held post for the TX path; each post's result goes back to its poster a cycle after the
//!   TX path gives it (they come back in order).
//! - **Completions**: every sender sees each completion the TX path hands out and takes those
//!   of its channels; the register file takes the completion stream as before.
//! - **The window**: port `s`'s buffer lies at `2^63 + s × 2^(BB + 1) × beat bytes` (64 KiB
//!   apart at 512 bits); the reader serves the TX path's reads of it.

use super::port::BEAT_BITS;
use super::reader::WINDOW_BEAT_BITS;
use super::registers::Layout;
use super::turns::POSTERS;
use super::{PostTurns, StreamPort, StreamReader, StreamRegisters, StreamSender};
use crate::common::elab::c;
use crate::registers::axil::AxiLiteFront;
use ferroce_contracts::regs::{ADDRESS_BITS, MAX_STREAMS, STREAM_BLOCK, STREAM_STRIDE};
use ferroce_contracts::stream::{StreamCommand, StreamRefusal, STREAM_CODE_BITS};
use ferroce_contracts::tx::{COMPLETION_STATUS_BITS, POST_BITS, POST_ERROR_BITS};
use rust_hdl::prelude::*;

/// The register operation's steps.
#[derive(Copy, Clone, PartialEq, Eq, Debug, LogicState)]
pub enum SetState {
    /// No operation.
    Idle,
    /// The address is decoded: a write of a setting is done, a read's words are picked.
    Decoded,
    /// A read's value is chosen among the streams.
    Reading,
    /// A command is checked.
    Checking,
    /// A command is at its port; its result is awaited.
    Commanding,
}

/// `S` streams at `W` bits (`K = W / 8` lanes, buffers of `2^BB` beats); `SW = S × W` and
/// `SK = S × K` are the widths of the packed stream inputs (stream `s` in bits
/// `s × W + W − 1 .. s × W`).
#[derive(LogicBlock)]
pub struct StreamSet<const W: usize, const K: usize, const BB: usize, const S: usize, const SW: usize, const SK: usize> {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous, active high.
    pub reset: Signal<In, Bit>,
    /// AXI4-Lite (the stream block): write address valid.
    pub s_axil_awvalid: Signal<In, Bit>,
    /// AXI4-Lite: write address ready.
    pub s_axil_awready: Signal<Out, Bit>,
    /// AXI4-Lite: write address.
    pub s_axil_awaddr: Signal<In, Bits<ADDRESS_BITS>>,
    /// AXI4-Lite: write data valid.
    pub s_axil_wvalid: Signal<In, Bit>,
    /// AXI4-Lite: write data ready.
    pub s_axil_wready: Signal<Out, Bit>,
    /// AXI4-Lite: write data.
    pub s_axil_wdata: Signal<In, Bits<32>>,
    /// AXI4-Lite: write strobes.
    pub s_axil_wstrb: Signal<In, Bits<4>>,
    /// AXI4-Lite: write response valid.
    pub s_axil_bvalid: Signal<Out, Bit>,
    /// AXI4-Lite: write response ready.
    pub s_axil_bready: Signal<In, Bit>,
    /// AXI4-Lite: write response: OKAY (0), SLVERR (2: a read-only register), DECERR (3).
    pub s_axil_bresp: Signal<Out, Bits<2>>,
    /// AXI4-Lite: read address valid.
    pub s_axil_arvalid: Signal<In, Bit>,
    /// AXI4-Lite: read address ready.
    pub s_axil_arready: Signal<Out, Bit>,
    /// AXI4-Lite: read address.
    pub s_axil_araddr: Signal<In, Bits<ADDRESS_BITS>>,
    /// AXI4-Lite: read data valid.
    pub s_axil_rvalid: Signal<Out, Bit>,
    /// AXI4-Lite: read data ready.
    pub s_axil_rready: Signal<In, Bit>,
    /// AXI4-Lite: read data (0 with DECERR).
    pub s_axil_rdata: Signal<Out, Bits<32>>,
    /// AXI4-Lite: read response: OKAY (0) or DECERR (3).
    pub s_axil_rresp: Signal<Out, Bits<2>>,
    /// The streams (AXI-Stream, `tkeep` contiguous from lane 0): valid, bit `s` for stream `s`.
    pub s_axis_tvalid: Signal<In, Bits<S>>,
    /// The streams: ready.
    pub s_axis_tready: Signal<Out, Bits<S>>,
    /// The streams: data.
    pub s_axis_tdata: Signal<In, Bits<SW>>,
    /// The streams: keep.
    pub s_axis_tkeep: Signal<In, Bits<SK>>,
    /// The streams: last beat (ends a message where `end_at_tlast` is set).
    pub s_axis_tlast: Signal<In, Bits<S>>,
    /// The host's posts (from the register file): valid.
    pub s_post_valid: Signal<In, Bit>,
    /// The host's posts: ready.
    pub s_post_ready: Signal<Out, Bit>,
    /// The host's posts: the entry (`POST`).
    pub s_post_entry: Signal<In, Bits<POST_BITS>>,
    /// The host's post's result: valid.
    pub s_post_result_valid: Signal<Out, Bit>,
    /// The host's post's result: code (`PostError`, 0 accepted).
    pub s_post_result_code: Signal<Out, Bits<POST_ERROR_BITS>>,
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
    /// A completion the TX path hands out this cycle (its `valid` and `ready` both high).
    pub cpl_valid: Signal<In, Bit>,
    /// The completion's channel.
    pub cpl_channel: Signal<In, Bits<16>>,
    /// The completion's status.
    pub cpl_status: Signal<In, Bits<COMPLETION_STATUS_BITS>>,
    /// The TX path's reads of the stream window: valid.
    pub s_read_valid: Signal<In, Bit>,
    /// Window reads: ready.
    pub s_read_ready: Signal<Out, Bit>,
    /// Window reads: address.
    pub s_read_addr: Signal<In, Bits<64>>,
    /// Window reads: bytes (1..=4096).
    pub s_read_len: Signal<In, Bits<13>>,
    /// Window read data (per read, from lane 0, `tlast` on its last beat): valid.
    pub m_pay_tvalid: Signal<Out, Bit>,
    /// Window read data: ready.
    pub m_pay_tready: Signal<In, Bit>,
    /// Window read data: data.
    pub m_pay_tdata: Signal<Out, Bits<W>>,
    /// Window read data: keep.
    pub m_pay_tkeep: Signal<Out, Bits<K>>,
    /// Window read data: a read's last beat.
    pub m_pay_tlast: Signal<Out, Bit>,

    // ---- sub-blocks ----
    axil: AxiLiteFront,
    ports: [StreamPort<W, K, BB>; S],
    senders: [StreamSender<K>; S],
    registers: [StreamRegisters<K>; S],
    reader: StreamReader<W, K, BB>,
    turns: PostTurns,
    // ---- the register operation ----
    state: DFF<SetState>,
    /// The operation's stream, one bit per stream (none: outside the streams).
    op_stream: DFF<Bits<S>>,
    /// The operation's word in its stream's registers, one bit per word.
    op_word: DFF<Bits<32>>,
    op_write: DFF<Bit>,
    op_data: DFF<Bits<32>>,
    op_mask: DFF<Bits<32>>,
    finish: DFF<Bit>,
    finish_response: DFF<Bits<2>>,
    finish_data: DFF<Bits<32>>,
    command_code: DFF<Bits<STREAM_CODE_BITS>>,
    /// The stream whose buffer the reader read in the cycle before, one bit per stream.
    read_stream: DFF<Bits<S>>,
    // ---- combinational ----
    stream_bits: Signal<Local, Bits<S>>,
    picked_busy: Signal<Local, Bit>,
    result_valid: Signal<Local, Bit>,
    result_code: Signal<Local, Bits<STREAM_CODE_BITS>>,
    requests: Signal<Local, Bits<POSTERS>>,
    chosen_entry: Signal<Local, Bits<POST_BITS>>,
    ready_bits: Signal<Local, Bits<S>>,
    read_data: Signal<Local, Bits<W>>,
    // ---- constants ----
    stream_index: [Constant<Bits<8>>; S],
    host_index: Constant<Bits<8>>,
    data_at: [Constant<Bits<16>>; S],
    keep_at: [Constant<Bits<16>>; S],
    window_base: [Constant<Bits<64>>; S],
    window_port: [Constant<Bits<WINDOW_BEAT_BITS>>; S],
    window_port_shift: Constant<Bits<8>>,
    buffer_mask: Constant<Bits<WINDOW_BEAT_BITS>>,
    /// The stream block's bits 16:13 of a word address.
    block_word: Constant<Bits<4>>,
    one: Constant<Bits<32>>,
    configure: Constant<Bits<STREAM_CODE_BITS>>,
    refused_running: Constant<Bits<STREAM_CODE_BITS>>,
    word_command: Constant<Bits<5>>,
    /// The words that are registers; those a write may change.
    known_words: Constant<Bits<32>>,
    writable_words: Constant<Bits<32>>,
}

impl<const W: usize, const K: usize, const BB: usize, const S: usize, const SW: usize, const SK: usize> Default
    for StreamSet<W, K, BB, S, SW, SK>
{
    fn default() -> Self {
        assert!(S >= 1 && S < POSTERS, "streams {S}");
        assert_eq!(SW, S * W);
        assert_eq!(SK, S * K);
        let layout = Layout::new(S);
        // every register of the block is served (here and by `StreamRegisters`), and only those
        let (known, writable) = layout.served_words("StreamSet");
        let beat_log2 = K.trailing_zeros() as u64;
        StreamSet {
            clock: Default::default(),
            reset: Default::default(),
            s_axil_awvalid: Default::default(),
            s_axil_awready: Default::default(),
            s_axil_awaddr: Default::default(),
            s_axil_wvalid: Default::default(),
            s_axil_wready: Default::default(),
            s_axil_wdata: Default::default(),
            s_axil_wstrb: Default::default(),
            s_axil_bvalid: Default::default(),
            s_axil_bready: Default::default(),
            s_axil_bresp: Default::default(),
            s_axil_arvalid: Default::default(),
            s_axil_arready: Default::default(),
            s_axil_araddr: Default::default(),
            s_axil_rvalid: Default::default(),
            s_axil_rready: Default::default(),
            s_axil_rdata: Default::default(),
            s_axil_rresp: Default::default(),
            s_axis_tvalid: Default::default(),
            s_axis_tready: Default::default(),
            s_axis_tdata: Default::default(),
            s_axis_tkeep: Default::default(),
            s_axis_tlast: Default::default(),
            s_post_valid: Default::default(),
            s_post_ready: Default::default(),
            s_post_entry: Default::default(),
            s_post_result_valid: Default::default(),
            s_post_result_code: Default::default(),
            m_post_valid: Default::default(),
            m_post_ready: Default::default(),
            m_post_entry: Default::default(),
            m_post_result_valid: Default::default(),
            m_post_result_code: Default::default(),
            cpl_valid: Default::default(),
            cpl_channel: Default::default(),
            cpl_status: Default::default(),
            s_read_valid: Default::default(),
            s_read_ready: Default::default(),
            s_read_addr: Default::default(),
            s_read_len: Default::default(),
            m_pay_tvalid: Default::default(),
            m_pay_tready: Default::default(),
            m_pay_tdata: Default::default(),
            m_pay_tkeep: Default::default(),
            m_pay_tlast: Default::default(),
            axil: Default::default(),
            ports: std::array::from_fn(|_| Default::default()),
            senders: std::array::from_fn(|_| Default::default()),
            registers: std::array::from_fn(|_| Default::default()),
            reader: Default::default(),
            turns: Default::default(),
            state: Default::default(),
            op_stream: Default::default(),
            op_word: Default::default(),
            op_write: Default::default(),
            op_data: Default::default(),
            op_mask: Default::default(),
            finish: Default::default(),
            finish_response: Default::default(),
            finish_data: Default::default(),
            command_code: Default::default(),
            read_stream: Default::default(),
            stream_bits: Default::default(),
            picked_busy: Default::default(),
            result_valid: Default::default(),
            result_code: Default::default(),
            requests: Default::default(),
            chosen_entry: Default::default(),
            ready_bits: Default::default(),
            read_data: Default::default(),
            stream_index: std::array::from_fn(|s| c::<8>(s as u64)),
            host_index: c::<8>(S as u64),
            data_at: std::array::from_fn(|s| c::<16>((s * W) as u64)),
            keep_at: std::array::from_fn(|s| c::<16>((s * K) as u64)),
            window_base: std::array::from_fn(|s| c::<64>((1 << 63) | ((s as u64) << (BB + 1) << beat_log2))),
            window_port: std::array::from_fn(|s| c::<WINDOW_BEAT_BITS>(s as u64)),
            window_port_shift: c::<8>((BB + 1) as u64),
            buffer_mask: c::<WINDOW_BEAT_BITS>((1 << BB) - 1),
            block_word: c::<4>(u64::from(STREAM_BLOCK / (STREAM_STRIDE * MAX_STREAMS))),
            one: c::<32>(1),
            configure: c::<STREAM_CODE_BITS>(StreamCommand::Configure as u64),
            refused_running: c::<STREAM_CODE_BITS>(u64::from(StreamRefusal::Running.code())),
            word_command: layout.word("stream_command"),
            known_words: c::<32>(known),
            writable_words: c::<32>(writable),
        }
    }
}

impl<const W: usize, const K: usize, const BB: usize, const S: usize, const SW: usize, const SK: usize> Logic
    for StreamSet<W, K, BB, S, SW, SK>
{
    #[hdl_gen]
    fn update(&mut self) {
        clock!(self, clock, axil, reader, turns);
        dff_setup!(
            self,
            clock,
            state,
            op_stream,
            op_word,
            op_write,
            op_data,
            op_mask,
            finish,
            finish_response,
            finish_data,
            command_code,
            read_stream
        );
        for i in 0..S {
            self.ports[i].clock.next = self.clock.val();
            self.senders[i].clock.next = self.clock.val();
            self.registers[i].clock.next = self.clock.val();
            self.ports[i].reset.next = self.reset.val();
            self.senders[i].reset.next = self.reset.val();
            self.registers[i].reset.next = self.reset.val();
        }
        self.axil.reset.next = self.reset.val();
        self.reader.reset.next = self.reset.val();
        self.turns.reset.next = self.reset.val();

        // ---- AXI4-Lite ----
        self.axil.awvalid.next = self.s_axil_awvalid.val();
        self.axil.awaddr.next = self.s_axil_awaddr.val();
        self.axil.wvalid.next = self.s_axil_wvalid.val();
        self.axil.wdata.next = self.s_axil_wdata.val();
        self.axil.wstrb.next = self.s_axil_wstrb.val();
        self.axil.bready.next = self.s_axil_bready.val();
        self.axil.arvalid.next = self.s_axil_arvalid.val();
        self.axil.araddr.next = self.s_axil_araddr.val();
        self.axil.rready.next = self.s_axil_rready.val();
        self.s_axil_awready.next = self.axil.awready.val();
        self.s_axil_wready.next = self.axil.wready.val();
        self.s_axil_bvalid.next = self.axil.bvalid.val();
        self.s_axil_bresp.next = self.axil.bresp.val();
        self.s_axil_arready.next = self.axil.arready.val();
        self.s_axil_rvalid.next = self.axil.rvalid.val();
        self.s_axil_rdata.next = self.axil.rdata.val();
        self.s_axil_rresp.next = self.axil.rresp.val();
        self.axil.idle.next = (self.state.q.val() == SetState::Idle) & !self.axil.op_start.val() & !self.finish.q.val() & !self.reset.val();
        self.axil.finish.next = self.finish.q.val();
        self.axil.finish_response.next = self.finish_response.q.val();
        self.axil.finish_data.next = self.finish_data.q.val();
        self.finish.d.next = false;
        self.finish_response.d.next = 0.into();
        self.finish_data.d.next = 0.into();

        // ---- decode: the stream (one bit each, none outside the block) and the word ----
        self.stream_bits.next = 0.into();
        for i in 0..S {
            self.stream_bits.next = self.stream_bits.val().replace_bit(
                i,
                (self.axil.op_address.val().get_bits::<8>(5) == self.stream_index[i].val())
                    & (self.axil.op_address.val().get_bits::<4>(13) == self.block_word.val()),
            );
        }
        if self.axil.op_start.val() {
            self.state.d.next = SetState::Decoded;
            self.op_stream.d.next = self.stream_bits.val();
            self.op_word.d.next = self.one.val() << bit_cast::<32, 5>(self.axil.op_address.val().get_bits::<5>(0));
            self.op_write.d.next = self.axil.op_write.val();
            self.op_data.d.next = self.axil.op_data.val();
            self.op_mask.d.next = self.axil.op_mask.val();
        }

        // ---- the operation's steps (a setting's write and a word's value: `StreamRegisters`) ----
        self.picked_busy.next = false;
        for i in 0..S {
            if self.op_stream.q.val().get_bit(i) & self.registers[i].busy.val() {
                self.picked_busy.next = true;
            }
        }
        self.result_valid.next = false;
        self.result_code.next = 0.into();
        match self.state.q.val() {
            SetState::Idle => {}
            SetState::Decoded => {
                self.state.d.next = SetState::Idle;
                self.finish.d.next = true;
                if ((self.op_word.q.val() & self.known_words.val()) == 0) | (self.op_stream.q.val() == 0) {
                    self.finish_response.d.next = 3.into(); // DECERR
                } else if self.op_write.q.val() & ((self.op_word.q.val() & self.writable_words.val()) == 0) {
                    self.finish_response.d.next = 2.into(); // SLVERR
                } else if self.op_write.q.val() & self.op_word.q.val().get_bit(self.word_command.val().index()) {
                    self.finish.d.next = false;
                    self.command_code.d.next = self.op_data.q.val().get_bits::<STREAM_CODE_BITS>(0);
                    self.state.d.next = SetState::Checking;
                } else if !self.op_write.q.val() {
                    self.finish.d.next = false;
                    self.state.d.next = SetState::Reading;
                }
            }
            SetState::Reading => {
                self.state.d.next = SetState::Idle;
                self.finish.d.next = true;
                for i in 0..S {
                    if self.op_stream.q.val().get_bit(i) {
                        self.finish_data.d.next = self.finish_data.d.val() | self.registers[i].read_value.val();
                    }
                }
            }
            SetState::Checking => {
                self.state.d.next = SetState::Commanding;
                if (self.command_code.q.val() == self.configure.val()) & self.picked_busy.val() {
                    self.result_valid.next = true;
                    self.result_code.next = self.refused_running.val();
                }
            }
            SetState::Commanding => {
                for i in 0..S {
                    if self.ports[i].command_result_valid.val() {
                        self.result_valid.next = true;
                        self.result_code.next = self.result_code.val() | self.ports[i].command_result_code.val();
                    }
                }
            }
        }
        if self.result_valid.val() {
            self.state.d.next = SetState::Idle;
            self.finish.d.next = true;
        }

        // ---- each stream: its registers, its port (settings, data, buffer reads), its sender ----
        self.ready_bits.next = 0.into();
        for i in 0..S {
            self.registers[i].op_word.next = self.op_word.q.val();
            self.registers[i].write.next =
                (self.state.q.val() == SetState::Decoded) & self.op_write.q.val() & self.op_stream.q.val().get_bit(i);
            self.registers[i].write_data.next = self.op_data.q.val();
            self.registers[i].write_mask.next = self.op_mask.q.val();
            self.registers[i].done.next = self.result_valid.val() & self.op_stream.q.val().get_bit(i);
            self.registers[i].done_command.next = self.command_code.q.val();
            self.registers[i].done_result.next = self.result_code.val();
            self.registers[i].running.next = self.ports[i].running.val();
            self.registers[i].held_messages.next = self.senders[i].held_messages.val();
            self.registers[i].held_beats.next = self.ports[i].held_beats.val();
            self.registers[i].next_sequence.next = self.ports[i].next_sequence.val();
            self.registers[i].next_slot.next = self.ports[i].next_slot.val();
            self.registers[i].messages.next = self.ports[i].messages.val();
            self.registers[i].dropped_overflow.next = self.ports[i].dropped_overflow.val();
            self.registers[i].dropped_partial_beat.next = self.ports[i].dropped_partial_beat.val();
            self.registers[i].posted.next = self.senders[i].posted.val();
            self.registers[i].completed.next = self.senders[i].completed.val();
            self.registers[i].failed.next = self.senders[i].failed.val();
            self.registers[i].refused.next = self.senders[i].refused.val();

            self.ports[i].command_valid.next =
                (self.state.q.val() == SetState::Checking) & !self.result_valid.val() & self.op_stream.q.val().get_bit(i);
            self.ports[i].command_code.next = self.command_code.q.val();
            self.ports[i].command_settings.next = self.registers[i].settings.val();
            self.ports[i].s_axis_tvalid.next = self.s_axis_tvalid.val().get_bit(i);
            self.ports[i].s_axis_tdata.next = self.s_axis_tdata.val().get_bits::<W>(self.data_at[i].val().index());
            self.ports[i].s_axis_tkeep.next = self.s_axis_tkeep.val().get_bits::<K>(self.keep_at[i].val().index());
            self.ports[i].s_axis_tlast.next = self.s_axis_tlast.val().get_bit(i);
            self.ready_bits.next = self.ready_bits.val().replace_bit(i, self.ports[i].s_axis_tready.val());
            self.ports[i].read_address.next =
                bit_cast::<BEAT_BITS, WINDOW_BEAT_BITS>(self.reader.buffer_address.val() & self.buffer_mask.val());
            self.ports[i].release_valid.next = self.senders[i].release_valid.val();
            self.ports[i].release_beats.next = self.senders[i].release_beats.val();

            self.senders[i].s_message_valid.next = self.ports[i].m_message_valid.val();
            self.ports[i].m_message_ready.next = self.senders[i].s_message_ready.val();
            self.senders[i].s_message_entry.next = self.ports[i].m_message_entry.val();
            self.senders[i].enable.next = self.registers[i].configured.val();
            self.senders[i].qp.next = self.registers[i].qp.val();
            self.senders[i].scheduler_queue.next = self.registers[i].scheduler_queue.val();
            self.senders[i].first_channel.next = self.registers[i].first_channel.val();
            self.senders[i].channel_mask.next = self.registers[i].channel_mask.val();
            self.senders[i].base_va.next = self.registers[i].base_va.val();
            self.senders[i].slot_beats.next = self.registers[i].slot_beats.val();
            self.senders[i].window_base.next = self.window_base[i].val();
            self.senders[i].cpl_valid.next = self.cpl_valid.val();
            self.senders[i].cpl_channel.next = self.cpl_channel.val();
            self.senders[i].cpl_status.next = self.cpl_status.val();
        }
        self.s_axis_tready.next = self.ready_bits.val();

        // ---- posts: the senders and the host take turns (`PostTurns`); results go back ----
        self.requests.next = 0.into();
        self.chosen_entry.next = 0.into();
        for i in 0..S {
            self.requests.next = self.requests.val().replace_bit(i, self.senders[i].post_valid.val());
            if self.turns.chosen.val().get_bit(i) {
                self.chosen_entry.next = self.chosen_entry.val() | self.senders[i].post_entry.val();
            }
            self.senders[i].post_ready.next = self.turns.load.val() & self.turns.chosen.val().get_bit(i);
            self.senders[i].post_result_valid.next = self.turns.result_valid.val().get_bit(i);
            self.senders[i].post_result_code.next = self.turns.result_code.val();
        }
        self.requests.next = self
            .requests
            .val()
            .replace_bit(self.host_index.val().index(), self.s_post_valid.val());
        if self.turns.chosen.val().get_bit(self.host_index.val().index()) {
            self.chosen_entry.next = self.chosen_entry.val() | self.s_post_entry.val();
        }
        self.s_post_ready.next = self.turns.load.val() & self.turns.chosen.val().get_bit(self.host_index.val().index());
        self.s_post_result_valid.next = self.turns.result_valid.val().get_bit(self.host_index.val().index());
        self.s_post_result_code.next = self.turns.result_code.val();
        self.turns.requests.next = self.requests.val();
        self.turns.chosen_entry.next = self.chosen_entry.val();
        self.m_post_valid.next = self.turns.m_post_valid.val();
        self.turns.m_post_ready.next = self.m_post_ready.val();
        self.m_post_entry.next = self.turns.m_post_entry.val();
        self.turns.m_post_result_valid.next = self.m_post_result_valid.val();
        self.turns.m_post_result_code.next = self.m_post_result_code.val();

        // ---- the window's reads: the reader's beat from the buffer of its stream ----
        self.reader.s_read_valid.next = self.s_read_valid.val();
        self.s_read_ready.next = self.reader.s_read_ready.val();
        self.reader.s_read_addr.next = self.s_read_addr.val();
        self.reader.s_read_len.next = self.s_read_len.val();
        self.m_pay_tvalid.next = self.reader.m_pay_tvalid.val();
        self.reader.m_pay_tready.next = self.m_pay_tready.val();
        self.m_pay_tdata.next = self.reader.m_pay_tdata.val();
        self.m_pay_tkeep.next = self.reader.m_pay_tkeep.val();
        self.m_pay_tlast.next = self.reader.m_pay_tlast.val();
        self.read_data.next = 0.into();
        for i in 0..S {
            self.read_stream.d.next = self.read_stream.d.val().replace_bit(
                i,
                (self.reader.buffer_address.val() >> self.window_port_shift.val()) == self.window_port[i].val(),
            );
            if self.read_stream.q.val().get_bit(i) {
                self.read_data.next = self.read_data.val() | self.ports[i].read_data.val();
            }
        }
        self.reader.buffer_data.next = self.read_data.val();

        if self.reset.val() {
            self.state.d.next = SetState::Idle;
            self.finish.d.next = false;
        }
    }
}
