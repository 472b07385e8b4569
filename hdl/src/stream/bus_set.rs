//! [`StreamBusSet`]: the streams of a [`StreamBus`] with their sender, the reader of their
//! window and the `stream` block of the register map, for up to 256 streams on one
//! AXI-Stream: what [`StreamSet`](super::StreamSet) is for ports of their own, with every
//! stream's registers in LUT RAM rather than flip-flops.
//!
//! ```text
//!  s_axil ─► AxiLiteFront ─► decode (stream, word) ─► staged settings (LUT RAM, a word each)
//!                               │                      └─► configure ─► the bus's settings, the sender's target
//!                               └─► status of the stream (two cycles) ─► read value / command checks
//!  s_axis (tdest) ─► StreamBus ─► records ─► StreamBusSender ─┐ PostTurns:
//!                      ▲    ▲ region reads                    ├─► held post ─► m_post ─► TX path
//!                      │    └──── StreamReader ◄─ s_read      │
//!                      └── releases ◄── cpl (TX completions)  │
//!  s_post (the register file's posts) ────────────────────────┘
//! ```
//!
//! - **Registers**: the `stream` block as the stream set serves it (`ferroce_contracts::regs`,
//!   [`STREAM_STRIDE`] bytes a stream), so host tools drive both alike. The settings are
//!   staged a word of LUT RAM each and read back as written; `configure` applies them all or
//!   none. A read takes about five cycles (the stream's status comes two cycles after it is
//!   named), a setting's write two, a command about ten.
//! - **Commands**: `configure` is refused `running` while the stream holds beats or messages,
//!   `channels_not_the_streams` when its first channel is not its own
//!   (`ferroce_contracts::stream::bus_first_channel` from `channel_base`) or its channel mask
//!   is 2; then the bus's own checks. `start` and `stop` go to the bus.
//! - **The window**: stream s's region is at `2^63 + s · 2^(RB + 1) × beat bytes`; the
//!   reader serves the TX path's reads of it as the set's reader serves a port's buffer.
//! - After `reset` the staged settings and results are cleared, a stream a cycle (S cycles,
//!   with the sender's counts); the register port answers once they are.

use super::bus::StreamBus;
use super::bus_sender::StreamBusSender;
use super::bus_staged::BusStagedSettings;
use super::port::{BEAT_BITS, POSITION_BITS};
use super::reader::WINDOW_BEAT_BITS;
use super::registers::{Layout, COUNT_WORDS};
use super::turns::POSTERS;
use super::{PostTurns, StreamReader};
use crate::common::elab::c;
use crate::common::lut_ram::LutRam;
use crate::registers::axil::AxiLiteFront;
use ferroce_contracts::regs::{ADDRESS_BITS, MAX_STREAMS, STREAM_BLOCK, STREAM_STRIDE};
use ferroce_contracts::stream::{StreamCommand, StreamRefusal, STREAM_CODE_BITS};
use ferroce_contracts::tx::{COMPLETION_STATUS_BITS, POST_BITS, POST_ERROR_BITS};
use rust_hdl::prelude::*;

/// The register operation's steps.
#[derive(Copy, Clone, PartialEq, Eq, Debug, LogicState)]
pub enum BusSetState {
    /// No operation.
    Idle,
    /// The address is decoded: a setting's write is done.
    Decoded,
    /// The stream's status is on its way.
    Waiting,
    /// A read's value is chosen.
    Reading,
    /// A command is checked against the stream's status and settings.
    Checking,
    /// A command is at the bus; its result is awaited.
    Commanding,
}

/// `S = 2^SB` streams at `W` bits (`K = W / 8` lanes) on a bus of `2^BB` beats (regions of
/// `2^RB` beats, positions of `PB` bits; `PL = SB + 2` bits name a stream's channel place).
#[derive(LogicBlock)]
pub struct StreamBusSet<
    const W: usize,
    const K: usize,
    const BB: usize,
    const S: usize,
    const SB: usize,
    const PB: usize,
    const PL: usize,
    const RB: usize,
> {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous, active high.
    pub reset: Signal<In, Bit>,
    /// The first channel of stream 0, a multiple of 4·S (held).
    pub channel_base: Signal<In, Bits<16>>,
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
    /// The streams, a packet at a time (`tdest` its stream, held to `tlast`): valid.
    pub s_axis_tvalid: Signal<In, Bit>,
    /// The streams: ready.
    pub s_axis_tready: Signal<Out, Bit>,
    /// The streams: data.
    pub s_axis_tdata: Signal<In, Bits<W>>,
    /// The streams: keep.
    pub s_axis_tkeep: Signal<In, Bits<K>>,
    /// The streams: a packet's last beat.
    pub s_axis_tlast: Signal<In, Bit>,
    /// The streams: the packet's stream.
    pub s_axis_tdest: Signal<In, Bits<8>>,
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
    /// A completion the TX path hands out this cycle.
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
    /// Window read data: valid.
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
    bus: StreamBus<W, K, BB, S, SB, PB>,
    sender: StreamBusSender<K, S, SB, PL, RB>,
    reader: StreamReader<W, K, RB>,
    turns: PostTurns,
    /// The staged settings, a word of LUT RAM each.
    staged: BusStagedSettings<K, SB>,
    /// Each stream's last command result and whether a `configure` was applied.
    results: LutRam<Bits<4>, SB>,
    // ---- the register operation ----
    state: DFF<BusSetState>,
    op_stream: DFF<Bits<8>>,
    op_in_streams: DFF<Bit>,
    op_word: DFF<Bits<32>>,
    op_write: DFF<Bit>,
    op_data: DFF<Bits<32>>,
    op_mask: DFF<Bits<32>>,
    finish: DFF<Bit>,
    finish_response: DFF<Bits<2>>,
    finish_data: DFF<Bits<32>>,
    command_code: DFF<Bits<STREAM_CODE_BITS>>,
    clearing: DFF<Bit>,
    // ---- combinational ----
    index: Signal<Local, Bits<SB>>,
    word_value: Signal<Local, Bits<32>>,
    result_valid: Signal<Local, Bit>,
    result_code: Signal<Local, Bits<STREAM_CODE_BITS>>,
    applied: Signal<Local, Bit>,
    result_word: Signal<Local, Bits<4>>,
    requests: Signal<Local, Bits<POSTERS>>,
    /// The status words' values, as [`COUNT_WORDS`].
    counts: [Signal<Local, Bits<32>>; 10],
    chosen_entry: Signal<Local, Bits<POST_BITS>>,
    // ---- constants ----
    last_stream: Constant<Bits<SB>>,
    stream_count: Constant<Bits<9>>,
    block_word: Constant<Bits<4>>,
    one: Constant<Bits<32>>,
    configure: Constant<Bits<STREAM_CODE_BITS>>,
    refused_running: Constant<Bits<STREAM_CODE_BITS>>,
    refused_channels: Constant<Bits<STREAM_CODE_BITS>>,
    known_words: Constant<Bits<32>>,
    writable_words: Constant<Bits<32>>,
    word_command: Constant<Bits<5>>,
    word_state: Constant<Bits<5>>,
    /// The status words of [`COUNT_WORDS`], in order.
    word_count: [Constant<Bits<5>>; 10],
    lsb_running: Constant<Bits<8>>,
    lsb_configured: Constant<Bits<8>>,
    lsb_held_messages: Constant<Bits<8>>,
    window_base: Constant<Bits<64>>,
    region_mask: Constant<Bits<WINDOW_BEAT_BITS>>,
    region_shift: Constant<Bits<8>>,
    stream_shift: Constant<Bits<8>>,
    configured_bit: Constant<Bits<4>>,
}

impl<
        const W: usize,
        const K: usize,
        const BB: usize,
        const S: usize,
        const SB: usize,
        const PB: usize,
        const PL: usize,
        const RB: usize,
    > Default for StreamBusSet<W, K, BB, S, SB, PB, PL, RB>
{
    fn default() -> Self {
        assert_eq!(RB + SB, BB, "regions of 2^{RB} beats, 2^{SB} of them in 2^{BB}");
        assert!(S <= MAX_STREAMS as usize, "streams {S}");
        let layout = Layout::new(S);
        // every register of the block is served, and only those
        let (known, writable) = layout.served_words("StreamBusSet");
        StreamBusSet {
            clock: Default::default(),
            reset: Default::default(),
            channel_base: Default::default(),
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
            s_axis_tdest: Default::default(),
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
            bus: Default::default(),
            sender: Default::default(),
            reader: Default::default(),
            turns: Default::default(),
            staged: Default::default(),
            results: Default::default(),
            state: Default::default(),
            op_stream: Default::default(),
            op_in_streams: Default::default(),
            op_word: Default::default(),
            op_write: Default::default(),
            op_data: Default::default(),
            op_mask: Default::default(),
            finish: Default::default(),
            finish_response: Default::default(),
            finish_data: Default::default(),
            command_code: Default::default(),
            clearing: Default::default(),
            index: Default::default(),
            word_value: Default::default(),
            result_valid: Default::default(),
            result_code: Default::default(),
            applied: Default::default(),
            result_word: Default::default(),
            requests: Default::default(),
            counts: std::array::from_fn(|_| Default::default()),
            chosen_entry: Default::default(),
            last_stream: c::<SB>(S as u64 - 1),
            stream_count: c::<9>(S as u64),
            block_word: c::<4>(u64::from(STREAM_BLOCK / (STREAM_STRIDE * MAX_STREAMS))),
            one: c::<32>(1),
            configure: c::<STREAM_CODE_BITS>(StreamCommand::Configure as u64),
            refused_running: c::<STREAM_CODE_BITS>(u64::from(StreamRefusal::Running.code())),
            refused_channels: c::<STREAM_CODE_BITS>(u64::from(StreamRefusal::ChannelsNotTheStreams.code())),
            known_words: c::<32>(known),
            writable_words: c::<32>(writable),
            word_command: layout.word("stream_command"),
            word_state: layout.word("stream_state"),
            word_count: std::array::from_fn(|i| layout.word(COUNT_WORDS[i])),
            lsb_running: layout.lsb("stream_state", "running"),
            lsb_configured: layout.lsb("stream_state", "configured"),
            lsb_held_messages: layout.lsb("stream_state", "held_messages"),
            window_base: c::<64>(1 << 63),
            region_mask: c::<WINDOW_BEAT_BITS>((1 << RB) - 1),
            region_shift: c::<8>(RB as u64),
            stream_shift: c::<8>(RB as u64 + 1),
            configured_bit: c::<4>(8),
        }
    }
}

impl<
        const W: usize,
        const K: usize,
        const BB: usize,
        const S: usize,
        const SB: usize,
        const PB: usize,
        const PL: usize,
        const RB: usize,
    > Logic for StreamBusSet<W, K, BB, S, SB, PB, PL, RB>
{
    #[hdl_gen]
    fn update(&mut self) {
        clock!(self, clock, axil, bus, sender, reader, turns, staged);
        dff_setup!(
            self,
            clock,
            state,
            op_stream,
            op_in_streams,
            op_word,
            op_write,
            op_data,
            op_mask,
            finish,
            finish_response,
            finish_data,
            command_code,
            clearing
        );
        self.results.write_clock.next = self.clock.val();
        self.axil.reset.next = self.reset.val();
        self.bus.reset.next = self.reset.val();
        self.sender.reset.next = self.reset.val();
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
        self.axil.idle.next = (self.state.q.val() == BusSetState::Idle)
            & !self.axil.op_start.val()
            & !self.finish.q.val()
            & !self.reset.val()
            & !self.clearing.q.val();
        self.axil.finish.next = self.finish.q.val();
        self.axil.finish_response.next = self.finish_response.q.val();
        self.axil.finish_data.next = self.finish_data.q.val();
        self.finish.d.next = false;
        self.finish_response.d.next = 0.into();
        self.finish_data.d.next = 0.into();

        // ---- decode: the stream, inside the block and the streams, and the word ----
        if self.axil.op_start.val() {
            self.state.d.next = BusSetState::Decoded;
            self.op_stream.d.next = self.axil.op_address.val().get_bits::<8>(5);
            self.op_in_streams.d.next = (bit_cast::<9, 8>(self.axil.op_address.val().get_bits::<8>(5)) < self.stream_count.val())
                & (self.axil.op_address.val().get_bits::<4>(13) == self.block_word.val());
            self.op_word.d.next = self.one.val() << bit_cast::<32, 5>(self.axil.op_address.val().get_bits::<5>(0));
            self.op_write.d.next = self.axil.op_write.val();
            self.op_data.d.next = self.axil.op_data.val();
            self.op_mask.d.next = self.axil.op_mask.val();
        }
        self.index.next = bit_cast::<SB, 8>(self.op_stream.q.val());

        // ---- the staged settings: read at the operation's stream, a write merged in ----
        self.staged.index.next = self.index.val();
        self.staged.write.next = (self.state.q.val() == BusSetState::Decoded) & self.op_write.q.val() & self.op_in_streams.q.val();
        self.staged.word.next = self.op_word.q.val();
        self.staged.mask.next = self.op_mask.q.val();
        self.staged.data.next = self.op_data.q.val();
        // the operation's stream sweeps the streams while clearing
        self.staged.clearing.next = self.clearing.q.val();
        self.staged.channel_base.next = self.channel_base.val();

        // ---- the stream's status, two cycles after it is named; its last result ----
        self.bus.status_stream.next = self.op_stream.q.val();
        self.sender.status_stream.next = self.op_stream.q.val();
        self.results.read_address.next = self.index.val();

        // ---- the word read (one word bit is set: the values OR together) ----
        self.word_value.next = self.staged.value.val();
        if self.op_word.q.val().get_bit(self.word_state.val().index()) {
            self.word_value.next = self.word_value.val()
                | bit_cast::<32, STREAM_CODE_BITS>(self.results.read_data.val().get_bits::<STREAM_CODE_BITS>(0))
                | (bit_cast::<32, 3>(self.sender.status_held_messages.val()) << self.lsb_held_messages.val());
            if self.bus.status_running.val() {
                self.word_value.next = self.word_value.val() | (self.one.val() << self.lsb_running.val());
            }
            if (self.results.read_data.val() & self.configured_bit.val()) != 0 {
                self.word_value.next = self.word_value.val() | (self.one.val() << self.lsb_configured.val());
            }
        }
        self.counts[0].next = self.bus.status_messages.val();
        self.counts[1].next = self.bus.status_dropped_overflow.val();
        self.counts[2].next = self.bus.status_dropped_partial_beat.val();
        self.counts[3].next = self.sender.status_posted.val();
        self.counts[4].next = self.sender.status_completed.val();
        self.counts[5].next = self.sender.status_failed.val();
        self.counts[6].next = self.sender.status_refused.val();
        self.counts[7].next = self.bus.status_next_sequence.val();
        self.counts[8].next = bit_cast::<32, 16>(self.bus.status_next_slot.val());
        self.counts[9].next = bit_cast::<32, POSITION_BITS>(self.bus.status_held_beats.val());
        for i in 0..10 {
            if self.op_word.q.val().get_bit(self.word_count[i].val().index()) {
                self.word_value.next = self.word_value.val() | self.counts[i].val();
            }
        }

        // ---- the operation's steps ----
        self.result_valid.next = false;
        self.result_code.next = 0.into();
        self.bus.command_valid.next = false;
        self.bus.command_stream.next = self.op_stream.q.val();
        self.bus.command_code.next = self.command_code.q.val();
        self.bus.command_settings.next = self.staged.settings.val();
        match self.state.q.val() {
            BusSetState::Idle => {}
            BusSetState::Decoded => {
                self.state.d.next = BusSetState::Idle;
                self.finish.d.next = true;
                if ((self.op_word.q.val() & self.known_words.val()) == 0) | !self.op_in_streams.q.val() {
                    self.finish_response.d.next = 3.into(); // DECERR
                } else if self.op_write.q.val() & ((self.op_word.q.val() & self.writable_words.val()) == 0) {
                    self.finish_response.d.next = 2.into(); // SLVERR
                } else if self.op_write.q.val() & self.op_word.q.val().get_bit(self.word_command.val().index()) {
                    self.finish.d.next = false;
                    self.command_code.d.next = self.op_data.q.val().get_bits::<STREAM_CODE_BITS>(0);
                    self.state.d.next = BusSetState::Waiting;
                } else if !self.op_write.q.val() {
                    self.finish.d.next = false;
                    self.state.d.next = BusSetState::Waiting;
                }
            }
            BusSetState::Waiting => {
                if self.op_write.q.val() {
                    self.state.d.next = BusSetState::Checking;
                } else {
                    self.state.d.next = BusSetState::Reading;
                }
            }
            BusSetState::Reading => {
                self.state.d.next = BusSetState::Idle;
                self.finish.d.next = true;
                self.finish_data.d.next = self.word_value.val();
            }
            BusSetState::Checking => {
                self.state.d.next = BusSetState::Commanding;
                if (self.command_code.q.val() == self.configure.val())
                    & ((self.bus.status_held_beats.val() != 0) | (self.sender.status_held_messages.val() != 0))
                {
                    self.result_valid.next = true;
                    self.result_code.next = self.refused_running.val();
                } else if (self.command_code.q.val() == self.configure.val()) & self.staged.channels_wrong.val() {
                    self.result_valid.next = true;
                    self.result_code.next = self.refused_channels.val();
                } else {
                    self.bus.command_valid.next = true;
                }
            }
            BusSetState::Commanding => {
                if self.bus.command_result_valid.val() {
                    self.result_valid.next = true;
                    self.result_code.next = self.bus.command_result_code.val();
                }
            }
        }
        if self.result_valid.val() {
            self.state.d.next = BusSetState::Idle;
            self.finish.d.next = true;
        }

        // ---- a command's result kept; a configure applied: the sender's target ----
        self.results.write_enable.next = self.result_valid.val() | self.clearing.q.val();
        self.results.write_address.next = self.index.val();
        self.result_word.next =
            bit_cast::<4, STREAM_CODE_BITS>(self.result_code.val()) | (self.results.read_data.val() & self.configured_bit.val());
        self.applied.next = self.result_valid.val() & (self.command_code.q.val() == self.configure.val()) & (self.result_code.val() == 0);
        self.sender.settings_valid.next = self.applied.val();
        if self.applied.val() {
            self.result_word.next = self.result_word.val() | self.configured_bit.val();
        }
        self.results.write_data.next = self.result_word.val();
        if self.clearing.q.val() {
            self.results.write_data.next = 0.into();
        }
        self.sender.settings_stream.next = self.op_stream.q.val();
        self.sender.settings_qp.next = self.staged.qp.val();
        self.sender.settings_queue.next = self.staged.queue.val();
        self.sender.settings_channel_mask.next = self.staged.channel_mask.val();
        self.sender.settings_base_va.next = self.staged.base_va.val();
        self.sender.settings_slot_beats.next = self.staged.slot_beats.val();

        // ---- the bus, its sender, the reader of its regions ----
        self.bus.s_axis_tvalid.next = self.s_axis_tvalid.val();
        self.s_axis_tready.next = self.bus.s_axis_tready.val();
        self.bus.s_axis_tdata.next = self.s_axis_tdata.val();
        self.bus.s_axis_tkeep.next = self.s_axis_tkeep.val();
        self.bus.s_axis_tlast.next = self.s_axis_tlast.val();
        self.bus.s_axis_tdest.next = self.s_axis_tdest.val();
        self.sender.s_message_valid.next = self.bus.m_message_valid.val();
        self.bus.m_message_ready.next = self.sender.s_message_ready.val();
        self.sender.s_message_entry.next = self.bus.m_message_entry.val();
        self.sender.s_message_stream.next = self.bus.m_message_stream.val();
        self.bus.release_valid.next = self.sender.release_valid.val();
        self.bus.release_stream.next = self.sender.release_stream.val();
        self.bus.release_beats.next = self.sender.release_beats.val();
        self.sender.channel_base.next = self.channel_base.val();
        self.sender.window_base.next = self.window_base.val();
        self.sender.cpl_valid.next = self.cpl_valid.val();
        self.sender.cpl_channel.next = self.cpl_channel.val();
        self.sender.cpl_status.next = self.cpl_status.val();
        self.reader.s_read_valid.next = self.s_read_valid.val();
        self.s_read_ready.next = self.reader.s_read_ready.val();
        self.reader.s_read_addr.next = self.s_read_addr.val();
        self.reader.s_read_len.next = self.s_read_len.val();
        self.m_pay_tvalid.next = self.reader.m_pay_tvalid.val();
        self.reader.m_pay_tready.next = self.m_pay_tready.val();
        self.m_pay_tdata.next = self.reader.m_pay_tdata.val();
        self.m_pay_tkeep.next = self.reader.m_pay_tkeep.val();
        self.m_pay_tlast.next = self.reader.m_pay_tlast.val();
        // the window's beat (stream above the region's beat and a spare bit) in the bus's buffer
        self.bus.read_address.next = bit_cast::<BEAT_BITS, WINDOW_BEAT_BITS>(
            ((self.reader.buffer_address.val() >> self.stream_shift.val()) << self.region_shift.val())
                | (self.reader.buffer_address.val() & self.region_mask.val()),
        );
        self.reader.buffer_data.next = self.bus.read_data.val();

        // ---- posts: the sender and the host take turns ----
        self.requests.next = 0.into();
        self.requests.next = self.requests.val().replace_bit(0, self.sender.post_valid.val());
        self.requests.next = self.requests.val().replace_bit(1, self.s_post_valid.val());
        self.chosen_entry.next = 0.into();
        if self.turns.chosen.val().get_bit(0) {
            self.chosen_entry.next = self.sender.post_entry.val();
        }
        if self.turns.chosen.val().get_bit(1) {
            self.chosen_entry.next = self.s_post_entry.val();
        }
        self.sender.post_ready.next = self.turns.load.val() & self.turns.chosen.val().get_bit(0);
        self.sender.post_result_valid.next = self.turns.result_valid.val().get_bit(0);
        self.sender.post_result_code.next = self.turns.result_code.val();
        self.s_post_ready.next = self.turns.load.val() & self.turns.chosen.val().get_bit(1);
        self.s_post_result_valid.next = self.turns.result_valid.val().get_bit(1);
        self.s_post_result_code.next = self.turns.result_code.val();
        self.turns.requests.next = self.requests.val();
        self.turns.chosen_entry.next = self.chosen_entry.val();
        self.m_post_valid.next = self.turns.m_post_valid.val();
        self.turns.m_post_ready.next = self.m_post_ready.val();
        self.m_post_entry.next = self.turns.m_post_entry.val();
        self.turns.m_post_result_valid.next = self.m_post_result_valid.val();
        self.turns.m_post_result_code.next = self.m_post_result_code.val();

        // ---- clearing the staged settings and results after reset, a stream a cycle ----
        if self.clearing.q.val() {
            self.op_stream.d.next = self.op_stream.q.val() + 1;
            if self.index.val() == self.last_stream.val() {
                self.clearing.d.next = false;
            }
        }
        if self.reset.val() {
            self.state.d.next = BusSetState::Idle;
            self.finish.d.next = false;
            self.clearing.d.next = true;
            self.op_stream.d.next = 0.into();
        }
    }
}
