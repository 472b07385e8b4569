//! [`StreamSet`]: `S` stream ports with their senders, the reader of their window, the stream
//! block of the register map on an AXI4-Lite port of its own, and the post port shared with
//! the host: everything the engine adds to its TX path to stream into remote memory.
//!
//! ```text
//!  s_axil ─► AxiLiteFront ─► decode ─► staged settings (per stream) ─► configure ─► port's settings
//!                               │                                             └──► sender's settings (applied)
//!                               └───► command ─► checked (busy, slot and block) ─► port ─► result ─► stream_state
//!  s_axis[i] ─► StreamPort[i] ─► messages ─► StreamSender[i] ─┐
//!                  ▲    ▲ buffer reads                        ├─► round robin ─► held post ─► m_post ─► TX path
//!                  │    └──────────── StreamReader ◄─ s_read  │                      │ (who posted, in order)
//!                  └── releases ◄── cpl (TX completions)      │   m_post_result ─────┴─► the poster's result
//!  s_post (the register file's posts) ────────────────────────┘
//! ```
//!
//! - **Registers** (`ferroce_contracts::regs`, block `stream`, [`STREAM_STRIDE`] bytes per
//!   stream): the settings are staged in flip-flops and read back as written; the `configure`
//!   command applies all of them (the port's settings and the sender's) or none. A read takes
//!   three cycles, a setting's write two, a command about eight (its write is answered once it
//!   is done); an address outside the streams answers DECERR, a write to a read-only register
//!   SLVERR.
//! - **Commands**: `configure` is refused (`stream_state.result`) while the stream still holds
//!   messages (`running`: the port refuses it while it runs) and when a slot could span two
//!   blocks of the TX path (`slot_crosses_block`: the slot must be a power of two no larger
//!   than the block and the ring's base a multiple of it, so every message leaves as one WRITE
//!   with its immediate); then the port's own checks. `start` and `stop` go to the port.
//! - **Posts**: the senders' and the host's posts take turns (round robin) into one held post
//!   for the TX path; each post's result goes back to its poster (they come back in order).
//! - **Completions**: every sender sees each completion the TX path hands out and takes those
//!   of its channels; the register file takes the completion stream as before.
//! - **The window**: port `s`'s buffer lies at `2^63 + s × 2^(BB + 1) × beat bytes` (64 KiB
//!   apart at 512 bits); the reader serves the TX path's reads of it.

use super::port::BEAT_BITS;
use super::reader::WINDOW_BEAT_BITS;
use super::{StreamPort, StreamReader, StreamSender};
use crate::common::elab::c;
use crate::common::fifo::Fifo;
use crate::registers::axil::AxiLiteFront;
use ferroce_contracts::regs::{Config, Map, ADDRESS_BITS, MAX_STREAMS, STREAM_BLOCK, STREAM_STRIDE};
use ferroce_contracts::stream::{StreamCommand, StreamRefusal, STREAM_CODE_BITS, STREAM_SETTINGS, STREAM_SETTINGS_BITS};
use ferroce_contracts::tx::{COMPLETION_STATUS_BITS, POST_BITS, POST_ERROR_BITS};
use rust_hdl::prelude::*;

/// Posters the round robin can serve: the streams and the host.
const POSTERS: usize = 32;

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

/// The word offsets (in a stream's registers) and the fields of the stream block.
struct Layout {
    map: Map,
}

impl Layout {
    fn new(streams: usize) -> Layout {
        Layout {
            map: Map::new(Config {
                streams: streams as u32,
                ..Config::DEFAULT
            }),
        }
    }

    /// The word of register `name` in a stream's registers.
    fn word(&self, name: &str) -> Constant<Bits<5>> {
        c::<5>(u64::from((self.map.reg(name).offset - STREAM_BLOCK) / 4))
    }

    /// The least significant bit of field `field` of register `name`.
    fn lsb(&self, name: &str, field: &str) -> Constant<Bits<8>> {
        let register = self.map.reg(name);
        let field = register.field(field).unwrap_or_else(|| panic!("{name} has no field {field}"));
        c::<8>(u64::from(field.lsb))
    }

    /// The bits of register `name` a write changes.
    fn write_mask(&self, name: &str) -> Constant<Bits<32>> {
        c::<32>(u64::from(self.map.reg(name).write_mask()))
    }
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
    /// The TX path's block size, log2 (the register file's `block_log2`).
    pub cfg_block_log2: Signal<In, Bits<5>>,
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
    reader: StreamReader<W, K, BB>,
    /// Who posted each post the TX path has taken and not yet answered.
    posters: Fifo<Bits<8>>,
    // ---- the register operation ----
    state: DFF<SetState>,
    /// The operation's stream, one bit per stream (none: outside the streams).
    op_stream: DFF<Bits<S>>,
    /// The operation's word in its stream's registers, one bit per word.
    op_word: DFF<Bits<32>>,
    op_write: DFF<Bit>,
    op_data: DFF<Bits<32>>,
    op_mask: DFF<Bits<32>>,
    /// Each stream's value of the word read.
    read_value: [DFF<Bits<32>>; S],
    finish: DFF<Bit>,
    finish_response: DFF<Bits<2>>,
    finish_data: DFF<Bits<32>>,
    command_code: DFF<Bits<STREAM_CODE_BITS>>,
    // ---- per stream: staged settings, applied settings, state ----
    slot_setting: [DFF<Bits<32>>; S],
    ring_setting: [DFF<Bits<32>>; S],
    format_setting: [DFF<Bits<32>>; S],
    target_setting: [DFF<Bits<32>>; S],
    channels_setting: [DFF<Bits<32>>; S],
    va_low_setting: [DFF<Bits<32>>; S],
    va_high_setting: [DFF<Bits<32>>; S],
    applied_target: [DFF<Bits<32>>; S],
    applied_channels: [DFF<Bits<32>>; S],
    applied_va: [DFF<Bits<64>>; S],
    applied_slot_beats: [DFF<Bits<16>>; S],
    configured: [DFF<Bit>; S],
    last_result: [DFF<Bits<STREAM_CODE_BITS>>; S],
    /// The staged slot size minus one.
    slot_less_one: [DFF<Bits<21>>; S],
    /// The staged slot could span two blocks: it is not a power of two, it is larger than the
    /// block, the ring's base is not a multiple of it (each registered on its own).
    not_power_of_two: [DFF<Bit>; S],
    larger_than_block: [DFF<Bit>; S],
    base_misaligned: [DFF<Bit>; S],
    /// The stream holds beats or messages (a configure waits for none).
    busy: [DFF<Bit>; S],
    block_bytes: DFF<Bits<21>>,
    // ---- posts ----
    /// The posters the round robin prefers (those after the last one served).
    preferred: DFF<Bits<POSTERS>>,
    /// The poster chosen, one bit (registered; it posts when the held post is free).
    chosen: DFF<Bits<POSTERS>>,
    held: DFF<Bit>,
    held_entry: DFF<Bits<POST_BITS>>,
    // ---- the window's reads ----
    /// The stream whose buffer the reader read in the cycle before, one bit per stream.
    read_stream: DFF<Bits<S>>,
    // ---- combinational ----
    requests: Signal<Local, Bits<POSTERS>>,
    offered: Signal<Local, Bits<POSTERS>>,
    preferred_offered: Signal<Local, Bits<POSTERS>>,
    /// The lowest of the posters offered (of those preferred), one bit.
    first_offered: Signal<Local, Bits<POSTERS>>,
    first_preferred: Signal<Local, Bits<POSTERS>>,
    load: Signal<Local, Bit>,
    chosen_entry: Signal<Local, Bits<POST_BITS>>,
    chosen_index: Signal<Local, Bits<8>>,
    settings: [Signal<Local, Bits<STREAM_SETTINGS_BITS>>; S],
    word_value: [Signal<Local, Bits<32>>; S],
    stream_bits: Signal<Local, Bits<S>>,
    ready_bits: Signal<Local, Bits<S>>,
    read_data: Signal<Local, Bits<W>>,
    result_valid: Signal<Local, Bit>,
    result_code: Signal<Local, Bits<STREAM_CODE_BITS>>,
    picked_busy: Signal<Local, Bit>,
    picked_crosses: Signal<Local, Bit>,
    write_bits: Signal<Local, Bits<32>>,
    /// A stream's values on their way through `bit_cast` (which takes no indexed operand).
    result_narrow: Signal<Local, Bits<STREAM_CODE_BITS>>,
    held_messages_narrow: Signal<Local, Bits<3>>,
    next_slot_narrow: Signal<Local, Bits<16>>,
    held_beats_narrow: Signal<Local, Bits<17>>,
    slot_word: Signal<Local, Bits<32>>,
    ring_word: Signal<Local, Bits<32>>,
    format_word: Signal<Local, Bits<32>>,
    va_low_word: Signal<Local, Bits<32>>,
    va_high_word: Signal<Local, Bits<32>>,
    // ---- constants ----
    stream_index: [Constant<Bits<8>>; S],
    host_index: Constant<Bits<8>>,
    /// The posters below poster i.
    below: [Constant<Bits<POSTERS>>; POSTERS],
    data_at: [Constant<Bits<16>>; S],
    keep_at: [Constant<Bits<16>>; S],
    window_base: [Constant<Bits<64>>; S],
    window_port: [Constant<Bits<WINDOW_BEAT_BITS>>; S],
    window_port_shift: Constant<Bits<8>>,
    buffer_mask: Constant<Bits<WINDOW_BEAT_BITS>>,
    /// The stream block's bits 16:13 of a word address.
    block_word: Constant<Bits<4>>,
    one: Constant<Bits<32>>,
    one_block: Constant<Bits<21>>,
    beat_log2: Constant<Bits<8>>,
    configure: Constant<Bits<STREAM_CODE_BITS>>,
    refused_running: Constant<Bits<STREAM_CODE_BITS>>,
    refused_crossing: Constant<Bits<STREAM_CODE_BITS>>,
    /// Words: settings, the command, the values read.
    word_slot: Constant<Bits<5>>,
    word_ring: Constant<Bits<5>>,
    word_format: Constant<Bits<5>>,
    word_target: Constant<Bits<5>>,
    word_channels: Constant<Bits<5>>,
    word_va_low: Constant<Bits<5>>,
    word_va_high: Constant<Bits<5>>,
    word_command: Constant<Bits<5>>,
    word_state: Constant<Bits<5>>,
    word_messages: Constant<Bits<5>>,
    word_dropped_overflow: Constant<Bits<5>>,
    word_dropped_partial_beat: Constant<Bits<5>>,
    word_posted: Constant<Bits<5>>,
    word_completed: Constant<Bits<5>>,
    word_failed: Constant<Bits<5>>,
    word_refused: Constant<Bits<5>>,
    word_next_sequence: Constant<Bits<5>>,
    word_next_slot: Constant<Bits<5>>,
    word_held_beats: Constant<Bits<5>>,
    /// The words that are registers; those a write may change.
    known_words: Constant<Bits<32>>,
    writable_words: Constant<Bits<32>>,
    mask_slot: Constant<Bits<32>>,
    mask_ring: Constant<Bits<32>>,
    mask_format: Constant<Bits<32>>,
    mask_target: Constant<Bits<32>>,
    mask_channels: Constant<Bits<32>>,
    /// Field positions: in the registers, and in the port's settings entry.
    lsb_last_slot: Constant<Bits<8>>,
    lsb_solicited_every: Constant<Bits<8>>,
    lsb_length_bits: Constant<Bits<8>>,
    lsb_slot_and_wrap: Constant<Bits<8>>,
    lsb_end_at_tlast: Constant<Bits<8>>,
    lsb_drop_on_overflow: Constant<Bits<8>>,
    lsb_queue: Constant<Bits<8>>,
    lsb_channel_mask: Constant<Bits<8>>,
    lsb_running: Constant<Bits<8>>,
    lsb_configured: Constant<Bits<8>>,
    lsb_held_messages: Constant<Bits<8>>,
    at_slot_bytes: Constant<Bits<8>>,
    at_last_slot: Constant<Bits<8>>,
    at_solicited_every: Constant<Bits<8>>,
    at_length_bits: Constant<Bits<8>>,
    at_slot_and_wrap: Constant<Bits<8>>,
    at_end_at_tlast: Constant<Bits<8>>,
    at_drop_on_overflow: Constant<Bits<8>>,
}

impl<const W: usize, const K: usize, const BB: usize, const S: usize, const SW: usize, const SK: usize> Default
    for StreamSet<W, K, BB, S, SW, SK>
{
    fn default() -> Self {
        assert!(S >= 1 && S < POSTERS, "streams {S}");
        assert_eq!(SW, S * W);
        assert_eq!(SK, S * K);
        let layout = Layout::new(S);
        let words = [
            "stream_slot",
            "stream_ring",
            "stream_format",
            "stream_target",
            "stream_channels",
            "stream_va_low",
            "stream_va_high",
            "stream_command",
            "stream_state",
            "stream_messages",
            "stream_dropped_overflow",
            "stream_dropped_partial_beat",
            "stream_posted",
            "stream_completed",
            "stream_failed",
            "stream_refused",
            "stream_next_sequence",
            "stream_next_slot",
            "stream_held_beats",
        ];
        // every register of the block is served here, and only those
        let stream_block = layout.map.blocks.iter().find(|b| b.name == "stream").expect("a stream block");
        let block: Vec<&str> = stream_block.registers.iter().map(|r| r.name.as_str()).collect();
        assert_eq!(block, words, "StreamSet: the stream block's registers");
        let bit_of = |name: &str| 1u64 << ((layout.map.reg(name).offset - STREAM_BLOCK) / 4);
        let known = words.iter().fold(0, |m, n| m | bit_of(n));
        let writable = words.iter().filter(|n| layout.map.reg(n).writable()).fold(0, |m, n| m | bit_of(n));
        let at = |field: &str| c::<8>(STREAM_SETTINGS.offset(field) as u64);
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
            cfg_block_log2: Default::default(),
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
            reader: Default::default(),
            posters: Default::default(),
            state: Default::default(),
            op_stream: Default::default(),
            op_word: Default::default(),
            op_write: Default::default(),
            op_data: Default::default(),
            op_mask: Default::default(),
            read_value: std::array::from_fn(|_| Default::default()),
            finish: Default::default(),
            finish_response: Default::default(),
            finish_data: Default::default(),
            command_code: Default::default(),
            slot_setting: std::array::from_fn(|_| Default::default()),
            ring_setting: std::array::from_fn(|_| Default::default()),
            format_setting: std::array::from_fn(|_| Default::default()),
            target_setting: std::array::from_fn(|_| Default::default()),
            channels_setting: std::array::from_fn(|_| Default::default()),
            va_low_setting: std::array::from_fn(|_| Default::default()),
            va_high_setting: std::array::from_fn(|_| Default::default()),
            applied_target: std::array::from_fn(|_| Default::default()),
            applied_channels: std::array::from_fn(|_| Default::default()),
            applied_va: std::array::from_fn(|_| Default::default()),
            applied_slot_beats: std::array::from_fn(|_| Default::default()),
            configured: std::array::from_fn(|_| Default::default()),
            last_result: std::array::from_fn(|_| Default::default()),
            slot_less_one: std::array::from_fn(|_| Default::default()),
            not_power_of_two: std::array::from_fn(|_| Default::default()),
            larger_than_block: std::array::from_fn(|_| Default::default()),
            base_misaligned: std::array::from_fn(|_| Default::default()),
            busy: std::array::from_fn(|_| Default::default()),
            block_bytes: Default::default(),
            preferred: Default::default(),
            chosen: Default::default(),
            held: Default::default(),
            held_entry: Default::default(),
            read_stream: Default::default(),
            requests: Default::default(),
            offered: Default::default(),
            preferred_offered: Default::default(),
            first_offered: Default::default(),
            first_preferred: Default::default(),
            load: Default::default(),
            chosen_entry: Default::default(),
            chosen_index: Default::default(),
            settings: std::array::from_fn(|_| Default::default()),
            word_value: std::array::from_fn(|_| Default::default()),
            stream_bits: Default::default(),
            ready_bits: Default::default(),
            read_data: Default::default(),
            result_valid: Default::default(),
            result_code: Default::default(),
            picked_busy: Default::default(),
            picked_crosses: Default::default(),
            write_bits: Default::default(),
            result_narrow: Default::default(),
            held_messages_narrow: Default::default(),
            next_slot_narrow: Default::default(),
            held_beats_narrow: Default::default(),
            slot_word: Default::default(),
            ring_word: Default::default(),
            format_word: Default::default(),
            va_low_word: Default::default(),
            va_high_word: Default::default(),
            stream_index: std::array::from_fn(|s| c::<8>(s as u64)),
            host_index: c::<8>(S as u64),
            below: std::array::from_fn(|i| c::<POSTERS>((1u64 << i) - 1)),
            data_at: std::array::from_fn(|s| c::<16>((s * W) as u64)),
            keep_at: std::array::from_fn(|s| c::<16>((s * K) as u64)),
            window_base: std::array::from_fn(|s| c::<64>((1 << 63) | ((s as u64) << (BB + 1) << beat_log2))),
            window_port: std::array::from_fn(|s| c::<WINDOW_BEAT_BITS>(s as u64)),
            window_port_shift: c::<8>((BB + 1) as u64),
            buffer_mask: c::<WINDOW_BEAT_BITS>((1 << BB) - 1),
            block_word: c::<4>(u64::from(STREAM_BLOCK / (STREAM_STRIDE * MAX_STREAMS))),
            one: c::<32>(1),
            one_block: c::<21>(1),
            beat_log2: c::<8>(beat_log2),
            configure: c::<STREAM_CODE_BITS>(StreamCommand::Configure as u64),
            refused_running: c::<STREAM_CODE_BITS>(u64::from(StreamRefusal::Running.code())),
            refused_crossing: c::<STREAM_CODE_BITS>(u64::from(StreamRefusal::SlotCrossesBlock.code())),
            word_slot: layout.word("stream_slot"),
            word_ring: layout.word("stream_ring"),
            word_format: layout.word("stream_format"),
            word_target: layout.word("stream_target"),
            word_channels: layout.word("stream_channels"),
            word_va_low: layout.word("stream_va_low"),
            word_va_high: layout.word("stream_va_high"),
            word_command: layout.word("stream_command"),
            word_state: layout.word("stream_state"),
            word_messages: layout.word("stream_messages"),
            word_dropped_overflow: layout.word("stream_dropped_overflow"),
            word_dropped_partial_beat: layout.word("stream_dropped_partial_beat"),
            word_posted: layout.word("stream_posted"),
            word_completed: layout.word("stream_completed"),
            word_failed: layout.word("stream_failed"),
            word_refused: layout.word("stream_refused"),
            word_next_sequence: layout.word("stream_next_sequence"),
            word_next_slot: layout.word("stream_next_slot"),
            word_held_beats: layout.word("stream_held_beats"),
            known_words: c::<32>(known),
            writable_words: c::<32>(writable),
            mask_slot: layout.write_mask("stream_slot"),
            mask_ring: layout.write_mask("stream_ring"),
            mask_format: layout.write_mask("stream_format"),
            mask_target: layout.write_mask("stream_target"),
            mask_channels: layout.write_mask("stream_channels"),
            lsb_last_slot: layout.lsb("stream_ring", "last_slot"),
            lsb_solicited_every: layout.lsb("stream_ring", "solicited_every"),
            lsb_length_bits: layout.lsb("stream_format", "length_bits"),
            lsb_slot_and_wrap: layout.lsb("stream_format", "slot_and_wrap"),
            lsb_end_at_tlast: layout.lsb("stream_format", "end_at_tlast"),
            lsb_drop_on_overflow: layout.lsb("stream_format", "drop_on_overflow"),
            lsb_queue: layout.lsb("stream_target", "queue"),
            lsb_channel_mask: layout.lsb("stream_channels", "channel_mask"),
            lsb_running: layout.lsb("stream_state", "running"),
            lsb_configured: layout.lsb("stream_state", "configured"),
            lsb_held_messages: layout.lsb("stream_state", "held_messages"),
            at_slot_bytes: at("slot_bytes"),
            at_last_slot: at("last_slot"),
            at_solicited_every: at("solicited_every"),
            at_length_bits: at("length_bits"),
            at_slot_and_wrap: at("slot_and_wrap"),
            at_end_at_tlast: at("end_at_tlast"),
            at_drop_on_overflow: at("drop_on_overflow"),
        }
    }
}

impl<const W: usize, const K: usize, const BB: usize, const S: usize, const SW: usize, const SK: usize> Logic
    for StreamSet<W, K, BB, S, SW, SK>
{
    #[hdl_gen]
    fn update(&mut self) {
        clock!(self, clock, axil, reader, posters);
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
            block_bytes,
            preferred,
            chosen,
            held,
            held_entry,
            read_stream
        );
        for i in 0..S {
            self.ports[i].clock.next = self.clock.val();
            self.senders[i].clock.next = self.clock.val();
            self.ports[i].reset.next = self.reset.val();
            self.senders[i].reset.next = self.reset.val();
            self.read_value[i].clock.next = self.clock.val();
            self.read_value[i].d.next = self.read_value[i].q.val();
            self.slot_setting[i].clock.next = self.clock.val();
            self.slot_setting[i].d.next = self.slot_setting[i].q.val();
            self.ring_setting[i].clock.next = self.clock.val();
            self.ring_setting[i].d.next = self.ring_setting[i].q.val();
            self.format_setting[i].clock.next = self.clock.val();
            self.format_setting[i].d.next = self.format_setting[i].q.val();
            self.target_setting[i].clock.next = self.clock.val();
            self.target_setting[i].d.next = self.target_setting[i].q.val();
            self.channels_setting[i].clock.next = self.clock.val();
            self.channels_setting[i].d.next = self.channels_setting[i].q.val();
            self.va_low_setting[i].clock.next = self.clock.val();
            self.va_low_setting[i].d.next = self.va_low_setting[i].q.val();
            self.va_high_setting[i].clock.next = self.clock.val();
            self.va_high_setting[i].d.next = self.va_high_setting[i].q.val();
            self.applied_target[i].clock.next = self.clock.val();
            self.applied_target[i].d.next = self.applied_target[i].q.val();
            self.applied_channels[i].clock.next = self.clock.val();
            self.applied_channels[i].d.next = self.applied_channels[i].q.val();
            self.applied_va[i].clock.next = self.clock.val();
            self.applied_va[i].d.next = self.applied_va[i].q.val();
            self.applied_slot_beats[i].clock.next = self.clock.val();
            self.applied_slot_beats[i].d.next = self.applied_slot_beats[i].q.val();
            self.configured[i].clock.next = self.clock.val();
            self.configured[i].d.next = self.configured[i].q.val();
            self.last_result[i].clock.next = self.clock.val();
            self.last_result[i].d.next = self.last_result[i].q.val();
            self.slot_less_one[i].clock.next = self.clock.val();
            self.not_power_of_two[i].clock.next = self.clock.val();
            self.larger_than_block[i].clock.next = self.clock.val();
            self.base_misaligned[i].clock.next = self.clock.val();
            self.busy[i].clock.next = self.clock.val();
        }
        self.axil.reset.next = self.reset.val();
        self.reader.reset.next = self.reset.val();
        self.posters.reset.next = self.reset.val();

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

        // ---- each stream: its settings written, its word's value, its checks ----
        // (locals assigned on some paths only get a value on every path)
        self.write_bits.next = 0.into();
        self.va_low_word.next = 0.into();
        self.va_high_word.next = 0.into();
        for i in 0..S {
            if (self.state.q.val() == SetState::Decoded) & self.op_write.q.val() & self.op_stream.q.val().get_bit(i) {
                self.write_bits.next = self.op_mask.q.val() & self.mask_slot.val();
                if self.op_word.q.val().get_bit(self.word_slot.val().index()) {
                    self.slot_setting[i].d.next =
                        (self.slot_setting[i].q.val() & !self.write_bits.val()) | (self.op_data.q.val() & self.write_bits.val());
                }
                self.write_bits.next = self.op_mask.q.val() & self.mask_ring.val();
                if self.op_word.q.val().get_bit(self.word_ring.val().index()) {
                    self.ring_setting[i].d.next =
                        (self.ring_setting[i].q.val() & !self.write_bits.val()) | (self.op_data.q.val() & self.write_bits.val());
                }
                self.write_bits.next = self.op_mask.q.val() & self.mask_format.val();
                if self.op_word.q.val().get_bit(self.word_format.val().index()) {
                    self.format_setting[i].d.next =
                        (self.format_setting[i].q.val() & !self.write_bits.val()) | (self.op_data.q.val() & self.write_bits.val());
                }
                self.write_bits.next = self.op_mask.q.val() & self.mask_target.val();
                if self.op_word.q.val().get_bit(self.word_target.val().index()) {
                    self.target_setting[i].d.next =
                        (self.target_setting[i].q.val() & !self.write_bits.val()) | (self.op_data.q.val() & self.write_bits.val());
                }
                self.write_bits.next = self.op_mask.q.val() & self.mask_channels.val();
                if self.op_word.q.val().get_bit(self.word_channels.val().index()) {
                    self.channels_setting[i].d.next =
                        (self.channels_setting[i].q.val() & !self.write_bits.val()) | (self.op_data.q.val() & self.write_bits.val());
                }
                if self.op_word.q.val().get_bit(self.word_va_low.val().index()) {
                    self.va_low_setting[i].d.next =
                        (self.va_low_setting[i].q.val() & !self.op_mask.q.val()) | (self.op_data.q.val() & self.op_mask.q.val());
                }
                if self.op_word.q.val().get_bit(self.word_va_high.val().index()) {
                    self.va_high_setting[i].d.next =
                        (self.va_high_setting[i].q.val() & !self.op_mask.q.val()) | (self.op_data.q.val() & self.op_mask.q.val());
                }
            }
            // the word read (one word bit is set: the values OR together)
            self.word_value[i].next = 0.into();
            if self.op_word.q.val().get_bit(self.word_slot.val().index()) {
                self.word_value[i].next = self.word_value[i].val() | self.slot_setting[i].q.val();
            }
            if self.op_word.q.val().get_bit(self.word_ring.val().index()) {
                self.word_value[i].next = self.word_value[i].val() | self.ring_setting[i].q.val();
            }
            if self.op_word.q.val().get_bit(self.word_format.val().index()) {
                self.word_value[i].next = self.word_value[i].val() | self.format_setting[i].q.val();
            }
            if self.op_word.q.val().get_bit(self.word_target.val().index()) {
                self.word_value[i].next = self.word_value[i].val() | self.target_setting[i].q.val();
            }
            if self.op_word.q.val().get_bit(self.word_channels.val().index()) {
                self.word_value[i].next = self.word_value[i].val() | self.channels_setting[i].q.val();
            }
            if self.op_word.q.val().get_bit(self.word_va_low.val().index()) {
                self.word_value[i].next = self.word_value[i].val() | self.va_low_setting[i].q.val();
            }
            if self.op_word.q.val().get_bit(self.word_va_high.val().index()) {
                self.word_value[i].next = self.word_value[i].val() | self.va_high_setting[i].q.val();
            }
            // (bit_cast takes no indexed operand: the narrow values pass through locals)
            self.result_narrow.next = self.last_result[i].q.val();
            self.held_messages_narrow.next = self.senders[i].held_messages.val();
            self.next_slot_narrow.next = self.ports[i].next_slot.val();
            self.held_beats_narrow.next = self.ports[i].held_beats.val();
            if self.op_word.q.val().get_bit(self.word_state.val().index()) {
                self.word_value[i].next = self.word_value[i].val()
                    | bit_cast::<32, STREAM_CODE_BITS>(self.result_narrow.val())
                    | (bit_cast::<32, 3>(self.held_messages_narrow.val()) << self.lsb_held_messages.val());
                if self.ports[i].running.val() {
                    self.word_value[i].next = self.word_value[i].val() | (self.one.val() << self.lsb_running.val());
                }
                if self.configured[i].q.val() {
                    self.word_value[i].next = self.word_value[i].val() | (self.one.val() << self.lsb_configured.val());
                }
            }
            if self.op_word.q.val().get_bit(self.word_messages.val().index()) {
                self.word_value[i].next = self.word_value[i].val() | self.ports[i].messages.val();
            }
            if self.op_word.q.val().get_bit(self.word_dropped_overflow.val().index()) {
                self.word_value[i].next = self.word_value[i].val() | self.ports[i].dropped_overflow.val();
            }
            if self.op_word.q.val().get_bit(self.word_dropped_partial_beat.val().index()) {
                self.word_value[i].next = self.word_value[i].val() | self.ports[i].dropped_partial_beat.val();
            }
            if self.op_word.q.val().get_bit(self.word_posted.val().index()) {
                self.word_value[i].next = self.word_value[i].val() | self.senders[i].posted.val();
            }
            if self.op_word.q.val().get_bit(self.word_completed.val().index()) {
                self.word_value[i].next = self.word_value[i].val() | self.senders[i].completed.val();
            }
            if self.op_word.q.val().get_bit(self.word_failed.val().index()) {
                self.word_value[i].next = self.word_value[i].val() | self.senders[i].failed.val();
            }
            if self.op_word.q.val().get_bit(self.word_refused.val().index()) {
                self.word_value[i].next = self.word_value[i].val() | self.senders[i].refused.val();
            }
            if self.op_word.q.val().get_bit(self.word_next_sequence.val().index()) {
                self.word_value[i].next = self.word_value[i].val() | self.ports[i].next_sequence.val();
            }
            if self.op_word.q.val().get_bit(self.word_next_slot.val().index()) {
                self.word_value[i].next = self.word_value[i].val() | bit_cast::<32, 16>(self.next_slot_narrow.val());
            }
            if self.op_word.q.val().get_bit(self.word_held_beats.val().index()) {
                self.word_value[i].next = self.word_value[i].val() | bit_cast::<32, 17>(self.held_beats_narrow.val());
            }
            self.read_value[i].d.next = self.word_value[i].val();
            // a slot could span two blocks: not a power of two, larger than the block, or the
            // ring's base not a multiple of it (two registered steps)
            self.slot_less_one[i].d.next = self.slot_setting[i].q.val().get_bits::<21>(0) - 1;
            self.not_power_of_two[i].d.next = (self.slot_setting[i].q.val().get_bits::<21>(0) & self.slot_less_one[i].q.val()) != 0;
            self.larger_than_block[i].d.next = self.slot_setting[i].q.val().get_bits::<21>(0) > self.block_bytes.q.val();
            self.base_misaligned[i].d.next = (self.va_low_setting[i].q.val().get_bits::<21>(0) & self.slot_less_one[i].q.val()) != 0;
            self.busy[i].d.next = (self.ports[i].held_beats.val() != 0) | (self.senders[i].held_messages.val() != 0);
        }
        self.block_bytes.d.next = self.one_block.val() << bit_cast::<21, 5>(self.cfg_block_log2.val());

        // ---- the operation's steps ----
        self.picked_busy.next = false;
        self.picked_crosses.next = false;
        for i in 0..S {
            if self.op_stream.q.val().get_bit(i) & self.busy[i].q.val() {
                self.picked_busy.next = true;
            }
            if self.op_stream.q.val().get_bit(i)
                & (self.not_power_of_two[i].q.val() | self.larger_than_block[i].q.val() | self.base_misaligned[i].q.val())
            {
                self.picked_crosses.next = true;
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
                        self.finish_data.d.next = self.finish_data.d.val() | self.read_value[i].q.val();
                    }
                }
            }
            SetState::Checking => {
                self.state.d.next = SetState::Commanding;
                if self.command_code.q.val() == self.configure.val() {
                    if self.picked_busy.val() {
                        self.result_valid.next = true;
                        self.result_code.next = self.refused_running.val();
                    } else if self.picked_crosses.val() {
                        self.result_valid.next = true;
                        self.result_code.next = self.refused_crossing.val();
                    }
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
        for i in 0..S {
            self.ports[i].command_valid.next =
                (self.state.q.val() == SetState::Checking) & !self.result_valid.val() & self.op_stream.q.val().get_bit(i);
            self.ports[i].command_code.next = self.command_code.q.val();
        }
        if self.result_valid.val() {
            self.state.d.next = SetState::Idle;
            self.finish.d.next = true;
            for i in 0..S {
                self.va_high_word.next = self.va_high_setting[i].q.val();
                self.va_low_word.next = self.va_low_setting[i].q.val();
                self.slot_word.next = self.slot_setting[i].q.val();
                if self.op_stream.q.val().get_bit(i) {
                    self.last_result[i].d.next = self.result_code.val();
                    if (self.command_code.q.val() == self.configure.val()) & (self.result_code.val() == 0) {
                        self.configured[i].d.next = true;
                        self.applied_target[i].d.next = self.target_setting[i].q.val();
                        self.applied_channels[i].d.next = self.channels_setting[i].q.val();
                        self.applied_va[i].d.next =
                            (bit_cast::<64, 32>(self.va_high_word.val()) << 32) | bit_cast::<64, 32>(self.va_low_word.val());
                        self.applied_slot_beats[i].d.next =
                            bit_cast::<16, 21>(self.slot_word.val().get_bits::<21>(0) >> self.beat_log2.val());
                    }
                }
            }
        }

        // ---- each stream: its port (settings, data, buffer reads) and its sender ----
        self.ready_bits.next = 0.into();
        for i in 0..S {
            self.slot_word.next = self.slot_setting[i].q.val();
            self.ring_word.next = self.ring_setting[i].q.val();
            self.format_word.next = self.format_setting[i].q.val();
            self.settings[i].next = (bit_cast::<STREAM_SETTINGS_BITS, 21>(self.slot_word.val().get_bits::<21>(0))
                << self.at_slot_bytes.val())
                | (bit_cast::<STREAM_SETTINGS_BITS, 16>(self.ring_word.val().get_bits::<16>(self.lsb_last_slot.val().index()))
                    << self.at_last_slot.val())
                | (bit_cast::<STREAM_SETTINGS_BITS, 16>(self.ring_word.val().get_bits::<16>(self.lsb_solicited_every.val().index()))
                    << self.at_solicited_every.val())
                | (bit_cast::<STREAM_SETTINGS_BITS, 6>(self.format_word.val().get_bits::<6>(self.lsb_length_bits.val().index()))
                    << self.at_length_bits.val())
                | (bit_cast::<STREAM_SETTINGS_BITS, 1>(self.format_word.val().get_bits::<1>(self.lsb_slot_and_wrap.val().index()))
                    << self.at_slot_and_wrap.val())
                | (bit_cast::<STREAM_SETTINGS_BITS, 1>(self.format_word.val().get_bits::<1>(self.lsb_end_at_tlast.val().index()))
                    << self.at_end_at_tlast.val())
                | (bit_cast::<STREAM_SETTINGS_BITS, 1>(self.format_word.val().get_bits::<1>(self.lsb_drop_on_overflow.val().index()))
                    << self.at_drop_on_overflow.val());
            self.ports[i].command_settings.next = self.settings[i].val();
            self.ports[i].s_axis_tvalid.next = self.s_axis_tvalid.val().get_bit(i);
            self.ports[i].s_axis_tdata.next = self.s_axis_tdata.val().get_bits::<W>(self.data_at[i].val().index());
            self.ports[i].s_axis_tkeep.next = self.s_axis_tkeep.val().get_bits::<K>(self.keep_at[i].val().index());
            self.ports[i].s_axis_tlast.next = self.s_axis_tlast.val().get_bit(i);
            self.ready_bits.next = self.ready_bits.val().replace_bit(i, self.ports[i].s_axis_tready.val());
            self.ports[i].read_address.next =
                bit_cast::<BEAT_BITS, WINDOW_BEAT_BITS>(self.reader.buffer_address.val() & self.buffer_mask.val());
            self.senders[i].s_message_valid.next = self.ports[i].m_message_valid.val();
            self.ports[i].m_message_ready.next = self.senders[i].s_message_ready.val();
            self.senders[i].s_message_entry.next = self.ports[i].m_message_entry.val();
            self.ports[i].release_valid.next = self.senders[i].release_valid.val();
            self.ports[i].release_beats.next = self.senders[i].release_beats.val();
            self.senders[i].enable.next = self.configured[i].q.val();
            self.senders[i].qp.next = self.applied_target[i].q.val().get_bits::<24>(0);
            self.senders[i].scheduler_queue.next = self.applied_target[i].q.val().get_bits::<5>(self.lsb_queue.val().index());
            self.senders[i].first_channel.next = self.applied_channels[i].q.val().get_bits::<16>(0);
            self.senders[i].channel_mask.next = self.applied_channels[i].q.val().get_bits::<2>(self.lsb_channel_mask.val().index());
            self.senders[i].base_va.next = self.applied_va[i].q.val();
            self.senders[i].slot_beats.next = self.applied_slot_beats[i].q.val();
            self.senders[i].window_base.next = self.window_base[i].val();
            self.senders[i].cpl_valid.next = self.cpl_valid.val();
            self.senders[i].cpl_channel.next = self.cpl_channel.val();
            self.senders[i].cpl_status.next = self.cpl_status.val();
            self.senders[i].post_result_code.next = self.m_post_result_code.val();
            self.senders[i].post_result_valid.next =
                self.m_post_result_valid.val() & (self.posters.head.val() == self.stream_index[i].val());
        }
        self.s_axis_tready.next = self.ready_bits.val();

        // ---- posts: the senders and the host in turn (round robin) into the held post ----
        self.requests.next = 0.into();
        for i in 0..S {
            self.requests.next = self.requests.val().replace_bit(i, self.senders[i].post_valid.val());
        }
        self.requests.next = self
            .requests
            .val()
            .replace_bit(self.host_index.val().index(), self.s_post_valid.val());
        // the poster chosen in the cycle before still offers its post (until it is taken); the
        // next choice is among the others, first those after the last one served
        self.load.next = (!self.held.q.val() | self.m_post_ready.val()) & ((self.chosen.q.val() & self.requests.val()) != 0);
        self.offered.next = self.requests.val() & !self.chosen.q.val();
        self.preferred_offered.next = self.offered.val() & self.preferred.q.val();
        self.first_offered.next = 0.into();
        self.first_preferred.next = 0.into();
        for i in 0..POSTERS {
            self.first_offered.next = self
                .first_offered
                .val()
                .replace_bit(i, self.offered.val().get_bit(i) & ((self.offered.val() & self.below[i].val()) == 0));
            self.first_preferred.next = self.first_preferred.val().replace_bit(
                i,
                self.preferred_offered.val().get_bit(i) & ((self.preferred_offered.val() & self.below[i].val()) == 0),
            );
        }
        self.chosen.d.next = self.first_offered.val();
        if self.preferred_offered.val() != 0 {
            self.chosen.d.next = self.first_preferred.val();
        }
        self.chosen_entry.next = 0.into();
        self.chosen_index.next = 0.into();
        for i in 0..S {
            if self.chosen.q.val().get_bit(i) {
                self.chosen_entry.next = self.chosen_entry.val() | self.senders[i].post_entry.val();
                self.chosen_index.next = self.chosen_index.val() | self.stream_index[i].val();
            }
            self.senders[i].post_ready.next = self.load.val() & self.chosen.q.val().get_bit(i);
        }
        if self.chosen.q.val().get_bit(self.host_index.val().index()) {
            self.chosen_entry.next = self.chosen_entry.val() | self.s_post_entry.val();
            self.chosen_index.next = self.chosen_index.val() | self.host_index.val();
        }
        self.s_post_ready.next = self.load.val() & self.chosen.q.val().get_bit(self.host_index.val().index());
        if self.m_post_ready.val() {
            self.held.d.next = false;
        }
        if self.load.val() {
            self.held.d.next = true;
            self.held_entry.d.next = self.chosen_entry.val();
            // the posters after this one come first next time
            self.preferred.d.next = !(self.chosen.q.val() | (self.chosen.q.val() - 1));
        }
        self.m_post_valid.next = self.held.q.val();
        self.m_post_entry.next = self.held_entry.q.val();
        // each result goes back to its poster: the TX path answers in the order it took them,
        // the held post's order (listed as it is held: the FIFO shows an entry two cycles after
        // its push, by when a result for it can come at the earliest)
        self.posters.push.next = self.load.val();
        self.posters.push_value.next = self.chosen_index.val();
        self.posters.pop.next = self.m_post_result_valid.val();
        self.s_post_result_valid.next = self.m_post_result_valid.val() & (self.posters.head.val() == self.host_index.val());
        self.s_post_result_code.next = self.m_post_result_code.val();

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
            self.held.d.next = false;
            self.chosen.d.next = 0.into();
            self.preferred.d.next = 0.into();
            for i in 0..S {
                self.configured[i].d.next = false;
                self.last_result[i].d.next = 0.into();
                self.slot_setting[i].d.next = 0.into();
                self.ring_setting[i].d.next = 0.into();
                self.format_setting[i].d.next = 0.into();
                self.target_setting[i].d.next = 0.into();
                self.channels_setting[i].d.next = 0.into();
                self.va_low_setting[i].d.next = 0.into();
                self.va_high_setting[i].d.next = 0.into();
            }
        }
    }
}
