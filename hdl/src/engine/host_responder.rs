//! [`HostResponder`]: on the RX front end's pass-through stream (every frame that is not
//! RoCEv2), answers ARP requests and ICMP echo requests for the engine's IPv4 address itself
//! and hands every other frame to the host untouched.
//!
//! ```text
//!  s_axis ─► capture ─► hold FIFO (32 beats, LUTRAM) ──────────────► output ─┬─► m_pass (to the host)
//!  (pass)      │                                                       ▲     └─► reply RAM (32 beats) ─► m_reply
//!              └─► window ─► _1 tags ─► _2 untag, match ─► _3 rewrite ─► _4 retag, hold ─► _5 decide
//!                                        └─► Ipv4HeaderCheck ────────────────────────────┘  (decision FIFO)
//! ```
//!
//! A reply is the request frame rewritten in place (`ferroce_contracts::host` says which
//! bytes), so it has the request's length, tags and padding. Stages (suffix `_k`: registered at
//! the end of stage k):
//!
//! | stage | work |
//! |---|---|
//! | capture | each frame's first beats shift into `window` until it holds the first [`WINDOW_BYTES`] bytes (a frame shorter than that: zeros, `s_axis_tready` low meanwhile); every beat goes to the hold FIFO |
//! | `_1` | VLAN tags counted; the frame's head and whether it holds the last byte an ARP or echo check reads |
//! | `_2` | the tags taken out (an untagged head, `HEAD_BYTES`); ARP request and echo request patterns, target address against the engine's; IPv4 header to the checksum check |
//! | `_3` | ARP reply or echo reply written over the untagged head (the ICMP checksum updated, RFC 1624); the IP datagram's last byte (total length + header bytes − 1) |
//! | `_4` | the tags put back: the reply head; a candidate takes the reply buffer if it is free (else it goes to the host: `cnt_deferred`) |
//! | `_5` | the checksum's verdict and the length checks: the decision (reply or pass) into the decision FIFO; a failed candidate frees the buffer |
//! | output | per frame, its decision: beats to `m_pass`, or into the reply RAM with the reply head laid over its first bytes; at the frame's end the reply is sent, or dropped when the frame ended before its IP datagram (`cnt_drop_truncated`) or did not fit (`cnt_drop_too_long`) |
//!
//! The reply buffer holds one frame of up to 32 beats (2 KiB at 512 bits, 256 bytes at 64):
//! while it is taken, a further candidate goes to the host, whose stack answers it. Every frame
//! keeps at least one beat in the hold FIFO until its decision is taken, so the decision FIFO
//! (32 entries) never fills before the hold FIFO stops the input.

use crate::common::checksum::{Ipv4HeaderCheck, IPV4_HEADER_BITS};
use crate::common::classify::ethertype;
use crate::common::counter::EventCounter;
use crate::common::elab::{bits_from, c, BytePattern};
use crate::common::fifo::{BeatFifo, Fifo, ADDRESS_BITS, CAPACITY};

const _: () = assert!(ADDRESS_BITS == 5, "the output stage counts reply beats in 6 bits");
use crate::common::lut_ram::LutRam;
use ferroce_contracts::host::WINDOW_BYTES;
use ferroce_contracts::{arp, ethernet, icmp, ipv4};
use rust_hdl::prelude::*;

/// Bytes of the window register: the widest beat (1024 bits).
const WINDOW_REGISTER_BYTES: usize = 128;
const WINDOW_REGISTER_BITS: usize = 8 * WINDOW_REGISTER_BYTES;
/// Bits of the frame's head as the classifier keeps it: [`WINDOW_BYTES`].
const FRAME_HEAD_BITS: usize = 8 * WINDOW_BYTES;
/// The untagged head: Ethernet and the ARP packet (the echo checks read less).
const HEAD_BYTES: usize = ethernet::HEADER_LEN + arp::PACKET_LEN;
const HEAD_BITS: usize = 8 * HEAD_BYTES;
/// Bytes before the VLAN tags: the two MAC addresses.
const MAC_BYTES: usize = ethernet::field::ETHERTYPE.start;
/// Beats of the reply buffer.
pub const REPLY_BEATS: usize = ferroce_contracts::host::REPLY_BEATS;
const _: () = assert!(REPLY_BEATS == CAPACITY, "the reply buffer is a LUT RAM of a FIFO's depth");

mod entries {
    // the methods `LogicStruct` derives have no docs
    #![allow(missing_docs)]
    use rust_hdl::prelude::*;

    /// What the output stage does with a frame.
    #[derive(Clone, Copy, Debug, Default, PartialEq, LogicStruct)]
    pub struct HostDecision {
        /// Into the reply buffer (else to the host).
        pub reply: Bit,
        /// The reply is an echo reply (else an ARP reply).
        pub echo: Bit,
        /// Beat of the IP datagram's last byte (echo).
        pub end_beat: Bits<5>,
        /// Lane of the IP datagram's last byte (echo).
        pub end_lane: Bits<7>,
    }
}
pub use entries::HostDecision;

/// Where the reply buffer is.
#[derive(Copy, Clone, PartialEq, Eq, Debug, LogicState)]
pub enum SlotState {
    /// Free: the next candidate may take it.
    Free,
    /// A candidate in `_5` holds it (the reply head is written).
    Held,
    /// Its frame's decision is in the decision FIFO.
    Claimed,
    /// Its frame's beats are being written.
    Filling,
    /// The reply leaves on `m_reply`.
    Sending,
}

/// The host responder of a `W`-bit stream (`K = W / 8` bytes per beat).
#[derive(LogicBlock)]
pub struct HostResponder<const W: usize, const K: usize> {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous, active high: forgets every frame and reply, clears the counters.
    pub reset: Signal<In, Bit>,
    /// The engine's MAC (bits 47:40 first on the wire).
    pub cfg_local_mac: Signal<In, Bits<48>>,
    /// The engine's IPv4 address (bits 31:24 first on the wire); 0: nothing is answered.
    pub cfg_local_ipv4: Signal<In, Bits<32>>,
    /// Frames (`RxFront`'s `m_pass`): valid.
    pub s_axis_tvalid: Signal<In, Bit>,
    /// Frames: ready.
    pub s_axis_tready: Signal<Out, Bit>,
    /// Frames: data.
    pub s_axis_tdata: Signal<In, Bits<W>>,
    /// Frames: keep.
    pub s_axis_tkeep: Signal<In, Bits<K>>,
    /// Frames: last beat.
    pub s_axis_tlast: Signal<In, Bit>,
    /// To the host, untouched: valid.
    pub m_pass_tvalid: Signal<Out, Bit>,
    /// To the host: ready.
    pub m_pass_tready: Signal<In, Bit>,
    /// To the host: data.
    pub m_pass_tdata: Signal<Out, Bits<W>>,
    /// To the host: keep.
    pub m_pass_tkeep: Signal<Out, Bits<K>>,
    /// To the host: last beat.
    pub m_pass_tlast: Signal<Out, Bit>,
    /// Replies to transmit: valid (a whole frame is ready: no gap inside it).
    pub m_reply_tvalid: Signal<Out, Bit>,
    /// Replies: ready.
    pub m_reply_tready: Signal<In, Bit>,
    /// Replies: data.
    pub m_reply_tdata: Signal<Out, Bits<W>>,
    /// Replies: keep.
    pub m_reply_tkeep: Signal<Out, Bits<K>>,
    /// Replies: last beat.
    pub m_reply_tlast: Signal<Out, Bit>,
    /// Counter: ARP replies sent.
    pub cnt_arp_replies: Signal<Out, Bits<32>>,
    /// Counter: echo replies sent.
    pub cnt_echo_replies: Signal<Out, Bits<32>>,
    /// Counter: requests given to the host because the reply buffer was taken.
    pub cnt_deferred: Signal<Out, Bits<32>>,
    /// Counter: echo requests dropped, the frame ending before the IP datagram.
    pub cnt_drop_truncated: Signal<Out, Bits<32>>,
    /// Counter: echo requests dropped, the frame longer than the reply buffer.
    pub cnt_drop_too_long: Signal<Out, Bits<32>>,

    hold: BeatFifo<W, K>,
    decisions: Fifo<HostDecision>,
    replies: LutRam<Bits<W>, ADDRESS_BITS>,
    checksum: Ipv4HeaderCheck,
    arp_replies: EventCounter,
    echo_replies: EventCounter,
    deferred: EventCounter,
    drop_truncated: EventCounter,
    drop_too_long: EventCounter,

    // ---- configuration in wire order (frame byte p of a field at bits 8p) ----
    local_mac_wire: DFF<Bits<48>>,
    local_ip_wire: DFF<Bits<32>>,
    local_ip_set: DFF<Bit>,
    mac_wire: Signal<Local, Bits<48>>,
    config_byte: Signal<Local, Bits<8>>,
    ip_wire: Signal<Local, Bits<32>>,

    // ---- capture ----
    window: DFF<Bits<WINDOW_REGISTER_BITS>>,
    window_keep: DFF<Bits<WINDOW_REGISTER_BYTES>>,
    /// Window shifts done for the current frame (saturates at the window's beats).
    window_shifts: DFF<Bits<4>>,
    /// The frame ended before the window was full: zeros shift in, the input waits.
    padding: DFF<Bit>,
    /// The window holds a frame's head (one cycle).
    window_done: DFF<Bit>,
    accept: Signal<Local, Bit>,
    shift: Signal<Local, Bit>,
    beat_in: Signal<Local, Bits<W>>,
    keep_in: Signal<Local, Bits<K>>,

    // ---- _1 ----
    frame_head: Signal<Local, Bits<FRAME_HEAD_BITS>>,
    frame_keep: Signal<Local, Bits<WINDOW_BYTES>>,
    tag_first: Signal<Local, Bit>,
    tag_second: Signal<Local, Bit>,
    valid_1: DFF<Bit>,
    frame_head_1: DFF<Bits<FRAME_HEAD_BITS>>,
    tags_1: DFF<Bits<2>>,
    arp_long_1: DFF<Bit>,
    echo_long_1: DFF<Bit>,

    // ---- _2 ----
    head: Signal<Local, Bits<HEAD_BITS>>,
    valid_2: DFF<Bit>,
    head_2: DFF<Bits<HEAD_BITS>>,
    /// The raw bytes the untagged head lacks: the tags and the bytes after the head.
    raw_2: DFF<Bits<FRAME_HEAD_BITS>>,
    tags_2: DFF<Bits<2>>,
    arp_2: DFF<Bit>,
    echo_2: DFF<Bit>,
    /// The IP total length's low 13 bits, and whether the high 3 are set (longer than any
    /// reply buffer: the add below stays short).
    total_length_2: DFF<Bits<13>>,
    total_large_2: DFF<Bit>,
    /// The header bytes before the IP datagram, minus one (by the tags).
    l2_last_2: DFF<Bits<13>>,

    // ---- _3 ----
    checksum_field: Signal<Local, Bits<16>>,
    checksum_new: Signal<Local, Bits<16>>,
    valid_3: DFF<Bit>,
    rewritten_3: DFF<Bits<HEAD_BITS>>,
    raw_3: DFF<Bits<FRAME_HEAD_BITS>>,
    tags_3: DFF<Bits<2>>,
    arp_3: DFF<Bit>,
    echo_3: DFF<Bit>,
    total_ok_3: DFF<Bit>,
    datagram_last_3: DFF<Bits<13>>,
    total_large_3: DFF<Bit>,

    // ---- _4 ----
    reply_frame_head: Signal<Local, Bits<FRAME_HEAD_BITS>>,
    datagram_last_beat: Signal<Local, Bits<13>>,
    datagram_last_lane: Signal<Local, Bits<13>>,
    valid_4: DFF<Bit>,
    arp_4: DFF<Bit>,
    echo_4: DFF<Bit>,
    holder_4: DFF<Bit>,
    deferred_4: DFF<Bit>,
    total_ok_4: DFF<Bit>,
    fits_4: DFF<Bit>,
    end_beat_4: DFF<Bits<5>>,
    end_lane_4: DFF<Bits<7>>,

    // ---- _5 ----
    answer: Signal<Local, Bit>,

    // ---- the reply buffer ----
    slot: DFF<SlotState>,
    /// The reply's first bytes, laid over the request's beats as they are written (shifts a
    /// beat down per beat).
    reply_head: DFF<Bits<FRAME_HEAD_BITS>>,
    reply_echo: DFF<Bit>,
    reply_last_beat: DFF<Bits<ADDRESS_BITS>>,
    reply_last_keep: DFF<Bits<K>>,

    // ---- output ----
    /// Inside a frame (its first beat has gone).
    mid_frame: DFF<Bit>,
    current_reply: DFF<Bit>,
    out_beat: DFF<Bits<6>>,
    end_beat: DFF<Bits<5>>,
    end_lane: DFF<Bits<7>>,
    datagram_seen: DFF<Bit>,
    decision: Signal<Local, HostDecision>,
    decision_head: Signal<Local, HostDecision>,
    decision_reply: Signal<Local, Bit>,
    decision_end_beat: Signal<Local, Bits<5>>,
    decision_end_lane: Signal<Local, Bits<7>>,
    out_beat_full: Signal<Local, Bit>,
    beat_ready: Signal<Local, Bit>,
    reply_now: Signal<Local, Bit>,
    popping: Signal<Local, Bit>,
    /// The beat being written holds the IP datagram's last byte.
    ends_datagram: Signal<Local, Bit>,
    head_beat: Signal<Local, Bits<W>>,
    mask_beat: Signal<Local, Bits<W>>,

    // ---- sending ----
    send_beat: DFF<Bits<ADDRESS_BITS>>,
    send_pending: DFF<Bit>,
    reply_valid: DFF<Bit>,
    reply_data: DFF<Bits<W>>,
    reply_keep: DFF<Bits<K>>,
    reply_last: DFF<Bit>,

    // ---- constants ----
    beat_bits: Constant<Bits<11>>,
    beat_in_at: Constant<Bits<11>>,
    keep_in_at: Constant<Bits<8>>,
    beat_bytes: Constant<Bits<8>>,
    window_beats: Constant<Bits<4>>,
    last_window_shift: Constant<Bits<4>>,
    frame_head_at: Constant<Bits<11>>,
    frame_keep_at: Constant<Bits<8>>,
    tpid_mask: [Constant<Bits<FRAME_HEAD_BITS>>; 2],
    /// TPID values: the first tag's two, then the second tag's.
    tpid_value: [Constant<Bits<FRAME_HEAD_BITS>>; 4],
    /// Per tag count: the frame byte an ARP check reads last, and an echo check.
    arp_last_byte: [Constant<Bits<8>>; 3],
    echo_last_byte: [Constant<Bits<8>>; 3],
    /// Per tag count: how far the bytes after the tags move down.
    tag_shift: [Constant<Bits<11>>; 3],
    mac_bits: Constant<Bits<FRAME_HEAD_BITS>>,
    after_macs: Constant<Bits<FRAME_HEAD_BITS>>,
    arp_mask: Constant<Bits<HEAD_BITS>>,
    arp_value: Constant<Bits<HEAD_BITS>>,
    echo_mask: Constant<Bits<HEAD_BITS>>,
    echo_value: Constant<Bits<HEAD_BITS>>,
    arp_target_ip_at: Constant<Bits<11>>,
    echo_destination_at: Constant<Bits<11>>,
    ip_header_at: Constant<Bits<11>>,
    total_length_high_at: Constant<Bits<11>>,
    total_length_low_at: Constant<Bits<11>>,
    arp_sender_mac_at: Constant<Bits<11>>,
    arp_sender_ip_at: Constant<Bits<11>>,
    arp_target_mac_at: Constant<Bits<11>>,
    ethernet_source_at: Constant<Bits<11>>,
    ip_source_at: Constant<Bits<11>>,
    ip_destination_at: Constant<Bits<11>>,
    icmp_checksum_high_at: Constant<Bits<11>>,
    icmp_checksum_low_at: Constant<Bits<11>>,
    arp_kept: Constant<Bits<HEAD_BITS>>,
    arp_operation_reply: Constant<Bits<HEAD_BITS>>,
    echo_kept: Constant<Bits<HEAD_BITS>>,
    byte_bits: Constant<Bits<11>>,
    echo_type_word: Constant<Bits<16>>,
    checksum_wrap_from: Constant<Bits<16>>,
    all_checksum: Constant<Bits<16>>,
    min_datagram: Constant<Bits<13>>,
    l2_minus_one: [Constant<Bits<13>>; 3],
    capacity: Constant<Bits<13>>,
    lane_bits: Constant<Bits<13>>,
    lane_mask: Constant<Bits<13>>,
    /// Reply beats the reply head covers whole (bit j: beat j; a table, not `beat < n`, which
    /// would compare with a constant 0 at the widths where the head fits in a beat), their
    /// count, and the bits it covers of the next one.
    head_whole_beats: Constant<Bits<64>>,
    head_full_beats: Constant<Bits<6>>,
    head_partial: Constant<Bits<W>>,
    total_length_field: Signal<Local, Bits<16>>,
    /// Per tag count: the raw bytes of the reply head (the tags, and the bytes after the head).
    raw_bytes: [Constant<Bits<FRAME_HEAD_BITS>>; 3],
    /// The untagged head's bytes after the MACs, as a frame head.
    head_after_macs: Constant<Bits<FRAME_HEAD_BITS>>,
    all_keep: Constant<Bits<K>>,
    all_beat: Constant<Bits<W>>,
    mac_byte_at: [Constant<Bits<6>>; 6],
    ip_byte_at: [Constant<Bits<6>>; 4],
    wire_byte_at: [Constant<Bits<6>>; 6],
}

/// A mask of the bytes `range` of an `N`-bit little-endian byte register.
fn byte_mask<const N: usize>(range: std::ops::Range<usize>) -> Constant<Bits<N>> {
    Constant::new(bits_from::<N>(|k| range.contains(&(k / 8))))
}

/// A bit position in a byte register.
fn at(byte: usize) -> Constant<Bits<11>> {
    c::<11>(8 * byte as u64)
}

impl<const W: usize, const K: usize> Default for HostResponder<W, K> {
    fn default() -> Self {
        assert_eq!(W, 8 * K, "K must be W / 8");
        assert!(K.is_power_of_two() && (8..=WINDOW_REGISTER_BYTES).contains(&K));
        let window_beats = WINDOW_BYTES.div_ceil(K);
        let window_base = WINDOW_REGISTER_BYTES - window_beats * K;
        let l2 = ethernet::HEADER_LEN;
        let ip = |f: std::ops::Range<usize>| l2 + f.start..l2 + f.end;
        let arp_at = |f: std::ops::Range<usize>| l2 + f.start..l2 + f.end;
        let icmp_at = l2 + ipv4::HEADER_LEN;
        let tpid = |tag: usize, value: u16| ethertype(tag, value);
        let arp_pattern = ethertype(0, ethernet::ETHERTYPE_ARP)
            .field(arp_at(arp::field::HARDWARE_TYPE), arp::HARDWARE_ETHERNET.into())
            .field(arp_at(arp::field::PROTOCOL_TYPE), ethernet::ETHERTYPE_IPV4.into())
            .bits(l2 + arp::field::HARDWARE_LEN, 0xFF, arp::MAC_LEN)
            .bits(l2 + arp::field::PROTOCOL_LEN, 0xFF, arp::IPV4_LEN)
            .field(arp_at(arp::field::OPERATION), arp::OPERATION_REQUEST.into());
        let fragment_bits = ipv4::FLAG_RESERVED | ipv4::FLAG_MF | ipv4::FRAGMENT_OFFSET_MASK;
        let fragment_at = ip(ipv4::field::FLAGS_FRAGMENT).start;
        let echo_pattern = ethertype(0, ethernet::ETHERTYPE_IPV4)
            .bits(l2 + ipv4::field::VERSION_IHL, 0xFF, ipv4::VERSION << 4 | ipv4::IHL)
            .bits(fragment_at, (fragment_bits >> 8) as u8, 0)
            .bits(fragment_at + 1, fragment_bits as u8, 0)
            .bits(l2 + ipv4::field::PROTOCOL, 0xFF, ipv4::PROTO_ICMP)
            .bits(icmp_at + icmp::field::TYPE, 0xFF, icmp::ECHO_REQUEST)
            .bits(icmp_at + icmp::field::CODE, 0xFF, 0);
        let operation = arp_at(arp::field::OPERATION);
        let arp_rewritten = [
            ethernet::field::DESTINATION,
            ethernet::field::SOURCE,
            operation.clone(),
            arp_at(arp::field::SENDER_MAC),
            arp_at(arp::field::SENDER_IP),
            arp_at(arp::field::TARGET_MAC),
            arp_at(arp::field::TARGET_IP),
        ];
        let echo_rewritten = [
            ethernet::field::DESTINATION,
            ethernet::field::SOURCE,
            ip(ipv4::field::SOURCE),
            ip(ipv4::field::DESTINATION),
            icmp_at + icmp::field::TYPE..icmp_at + icmp::field::TYPE + 1,
            icmp_at + icmp::field::CHECKSUM.start..icmp_at + icmp::field::CHECKSUM.end,
        ];
        let kept = |rewritten: &[std::ops::Range<usize>]| {
            Constant::new(bits_from::<HEAD_BITS>(|k| !rewritten.iter().any(|r| r.contains(&(k / 8)))))
        };
        let tag_len = ethernet::VLAN_TAG_LEN;
        let (type_word_request, type_word_reply) = ferroce_contracts::host::ECHO_TYPE_WORD;
        Self {
            clock: Default::default(),
            reset: Default::default(),
            cfg_local_mac: Default::default(),
            cfg_local_ipv4: Default::default(),
            s_axis_tvalid: Default::default(),
            s_axis_tready: Default::default(),
            s_axis_tdata: Default::default(),
            s_axis_tkeep: Default::default(),
            s_axis_tlast: Default::default(),
            m_pass_tvalid: Default::default(),
            m_pass_tready: Default::default(),
            m_pass_tdata: Default::default(),
            m_pass_tkeep: Default::default(),
            m_pass_tlast: Default::default(),
            m_reply_tvalid: Default::default(),
            m_reply_tready: Default::default(),
            m_reply_tdata: Default::default(),
            m_reply_tkeep: Default::default(),
            m_reply_tlast: Default::default(),
            cnt_arp_replies: Default::default(),
            cnt_echo_replies: Default::default(),
            cnt_deferred: Default::default(),
            cnt_drop_truncated: Default::default(),
            cnt_drop_too_long: Default::default(),
            hold: Default::default(),
            decisions: Default::default(),
            replies: Default::default(),
            checksum: Default::default(),
            arp_replies: Default::default(),
            echo_replies: Default::default(),
            deferred: Default::default(),
            drop_truncated: Default::default(),
            drop_too_long: Default::default(),
            local_mac_wire: Default::default(),
            local_ip_wire: Default::default(),
            local_ip_set: Default::default(),
            mac_wire: Default::default(),
            config_byte: Default::default(),
            ip_wire: Default::default(),
            window: Default::default(),
            window_keep: Default::default(),
            window_shifts: Default::default(),
            padding: Default::default(),
            window_done: Default::default(),
            accept: Default::default(),
            shift: Default::default(),
            beat_in: Default::default(),
            keep_in: Default::default(),
            frame_head: Default::default(),
            frame_keep: Default::default(),
            tag_first: Default::default(),
            tag_second: Default::default(),
            valid_1: Default::default(),
            frame_head_1: Default::default(),
            tags_1: Default::default(),
            arp_long_1: Default::default(),
            echo_long_1: Default::default(),
            head: Default::default(),
            valid_2: Default::default(),
            head_2: Default::default(),
            raw_2: Default::default(),
            tags_2: Default::default(),
            arp_2: Default::default(),
            echo_2: Default::default(),
            total_length_2: Default::default(),
            total_large_2: Default::default(),
            l2_last_2: Default::default(),
            total_length_field: Default::default(),
            checksum_field: Default::default(),
            checksum_new: Default::default(),
            valid_3: Default::default(),
            rewritten_3: Default::default(),
            raw_3: Default::default(),
            tags_3: Default::default(),
            arp_3: Default::default(),
            echo_3: Default::default(),
            total_ok_3: Default::default(),
            datagram_last_3: Default::default(),
            total_large_3: Default::default(),
            reply_frame_head: Default::default(),
            datagram_last_beat: Default::default(),
            datagram_last_lane: Default::default(),
            valid_4: Default::default(),
            arp_4: Default::default(),
            echo_4: Default::default(),
            holder_4: Default::default(),
            deferred_4: Default::default(),
            total_ok_4: Default::default(),
            fits_4: Default::default(),
            end_beat_4: Default::default(),
            end_lane_4: Default::default(),
            answer: Default::default(),
            slot: Default::default(),
            reply_head: Default::default(),
            reply_echo: Default::default(),
            reply_last_beat: Default::default(),
            reply_last_keep: Default::default(),
            mid_frame: Default::default(),
            current_reply: Default::default(),
            out_beat: Default::default(),
            end_beat: Default::default(),
            end_lane: Default::default(),
            datagram_seen: Default::default(),
            decision: Default::default(),
            decision_head: Default::default(),
            decision_reply: Default::default(),
            decision_end_beat: Default::default(),
            decision_end_lane: Default::default(),
            out_beat_full: Default::default(),
            beat_ready: Default::default(),
            reply_now: Default::default(),
            popping: Default::default(),
            ends_datagram: Default::default(),
            head_beat: Default::default(),
            mask_beat: Default::default(),
            send_beat: Default::default(),
            send_pending: Default::default(),
            reply_valid: Default::default(),
            reply_data: Default::default(),
            reply_keep: Default::default(),
            reply_last: Default::default(),
            beat_bits: c::<11>(W as u64),
            beat_in_at: c::<11>((WINDOW_REGISTER_BITS - W) as u64),
            keep_in_at: c::<8>((WINDOW_REGISTER_BYTES - K) as u64),
            beat_bytes: c::<8>(K as u64),
            window_beats: c::<4>(window_beats as u64),
            last_window_shift: c::<4>(window_beats as u64 - 1),
            frame_head_at: at(window_base),
            frame_keep_at: c::<8>(window_base as u64),
            tpid_mask: std::array::from_fn(|tag| tpid(tag, 0).mask()),
            tpid_value: std::array::from_fn(|i| tpid(i / 2, ethernet::VLAN_TPIDS[i % 2]).value()),
            arp_last_byte: std::array::from_fn(|tags| c::<8>((ethernet::header_len(tags) + arp::PACKET_LEN - 1) as u64)),
            echo_last_byte: std::array::from_fn(|tags| c::<8>((ferroce_contracts::host::ECHO_CLASSIFY_LEN + tag_len * tags - 1) as u64)),
            tag_shift: std::array::from_fn(|tags| at(tag_len * tags)),
            mac_bits: byte_mask(0..MAC_BYTES),
            after_macs: byte_mask(MAC_BYTES..WINDOW_BYTES),
            arp_mask: arp_pattern.mask(),
            arp_value: arp_pattern.value(),
            echo_mask: echo_pattern.mask(),
            echo_value: echo_pattern.value(),
            arp_target_ip_at: at(arp_at(arp::field::TARGET_IP).start),
            echo_destination_at: at(ip(ipv4::field::DESTINATION).start),
            ip_header_at: at(l2),
            total_length_high_at: at(ip(ipv4::field::TOTAL_LEN).start),
            total_length_low_at: at(ip(ipv4::field::TOTAL_LEN).start + 1),
            arp_sender_mac_at: at(arp_at(arp::field::SENDER_MAC).start),
            arp_sender_ip_at: at(arp_at(arp::field::SENDER_IP).start),
            arp_target_mac_at: at(arp_at(arp::field::TARGET_MAC).start),
            ethernet_source_at: at(ethernet::field::SOURCE.start),
            ip_source_at: at(ip(ipv4::field::SOURCE).start),
            ip_destination_at: at(ip(ipv4::field::DESTINATION).start),
            icmp_checksum_high_at: at(icmp_at + icmp::field::CHECKSUM.start),
            icmp_checksum_low_at: at(icmp_at + icmp::field::CHECKSUM.start + 1),
            arp_kept: kept(&arp_rewritten),
            arp_operation_reply: BytePattern::new().field(operation, arp::OPERATION_REPLY.into()).value(),
            echo_kept: kept(&echo_rewritten),
            byte_bits: c::<11>(8),
            echo_type_word: c::<16>(u64::from(type_word_request ^ type_word_reply)),
            // HC' = HC + 0x0800 with the end-around carry: + 1 more from HC = 0xF7FF up
            checksum_wrap_from: c::<16>(u64::from(!(type_word_request ^ type_word_reply))),
            all_checksum: c::<16>(0xFFFF),
            min_datagram: c::<13>(ferroce_contracts::host::ECHO_MIN_DATAGRAM as u64),
            l2_minus_one: std::array::from_fn(|tags| c::<13>(ethernet::header_len(tags) as u64 - 1)),
            capacity: c::<13>(ferroce_contracts::host::reply_capacity(K) as u64),
            lane_bits: c::<13>(K.trailing_zeros() as u64),
            lane_mask: c::<13>(K as u64 - 1),
            head_whole_beats: Constant::new(bits_from::<64>(|j| j < FRAME_HEAD_BITS / W)),
            head_full_beats: c::<6>((FRAME_HEAD_BITS / W) as u64),
            head_partial: Constant::new(bits_from::<W>(|k| k < FRAME_HEAD_BITS % W)),
            raw_bytes: std::array::from_fn(|tags| {
                Constant::new(bits_from::<FRAME_HEAD_BITS>(|k| {
                    let p = k / 8;
                    (MAC_BYTES..MAC_BYTES + tag_len * tags).contains(&p) || p >= HEAD_BYTES + tag_len * tags
                }))
            }),
            head_after_macs: byte_mask(MAC_BYTES..HEAD_BYTES),
            all_keep: Constant::new(Bits::<K>::mask()),
            all_beat: Constant::new(Bits::<W>::mask()),
            mac_byte_at: std::array::from_fn(|i| c::<6>(8 * (5 - i) as u64)),
            ip_byte_at: std::array::from_fn(|i| c::<6>(8 * (3 - i) as u64)),
            wire_byte_at: std::array::from_fn(|i| c::<6>(8 * i as u64)),
        }
    }
}

impl<const W: usize, const K: usize> Logic for HostResponder<W, K> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            local_mac_wire,
            local_ip_wire,
            local_ip_set,
            window,
            window_keep,
            window_shifts,
            padding,
            window_done,
            valid_1,
            frame_head_1,
            tags_1,
            arp_long_1,
            echo_long_1,
            valid_2,
            head_2,
            raw_2,
            tags_2,
            arp_2,
            echo_2,
            total_length_2,
            total_large_2,
            l2_last_2,
            valid_3,
            rewritten_3,
            raw_3,
            tags_3,
            arp_3,
            echo_3,
            total_ok_3,
            datagram_last_3,
            total_large_3,
            valid_4,
            arp_4,
            echo_4,
            holder_4,
            deferred_4,
            total_ok_4,
            fits_4,
            end_beat_4,
            end_lane_4,
            slot,
            reply_head,
            reply_echo,
            reply_last_beat,
            reply_last_keep,
            mid_frame,
            current_reply,
            out_beat,
            end_beat,
            end_lane,
            datagram_seen,
            send_beat,
            send_pending,
            reply_valid,
            reply_data,
            reply_keep,
            reply_last
        );
        clock!(
            self,
            clock,
            hold,
            decisions,
            checksum,
            arp_replies,
            echo_replies,
            deferred,
            drop_truncated,
            drop_too_long
        );
        self.replies.write_clock.next = self.clock.val();
        self.hold.reset.next = self.reset.val();
        self.decisions.reset.next = self.reset.val();
        self.arp_replies.reset.next = self.reset.val();
        self.echo_replies.reset.next = self.reset.val();
        self.deferred.reset.next = self.reset.val();
        self.drop_truncated.reset.next = self.reset.val();
        self.drop_too_long.reset.next = self.reset.val();

        // ---- configuration in wire order ----
        self.mac_wire.next = 0.into();
        for i in 0..6 {
            self.config_byte.next = self.cfg_local_mac.val().get_bits::<8>(self.mac_byte_at[i].val().index());
            self.mac_wire.next = self.mac_wire.val() | (bit_cast::<48, 8>(self.config_byte.val()) << self.wire_byte_at[i].val());
        }
        self.ip_wire.next = 0.into();
        for i in 0..4 {
            self.config_byte.next = self.cfg_local_ipv4.val().get_bits::<8>(self.ip_byte_at[i].val().index());
            self.ip_wire.next = self.ip_wire.val() | (bit_cast::<32, 8>(self.config_byte.val()) << self.wire_byte_at[i].val());
        }
        self.local_mac_wire.d.next = self.mac_wire.val();
        self.local_ip_wire.d.next = self.ip_wire.val();
        self.local_ip_set.d.next = self.cfg_local_ipv4.val() != 0;

        // ================= capture: beats into the hold FIFO, the head into the window =================
        self.s_axis_tready.next = !self.padding.q.val() && !self.hold.fill.val().get_bit(28);
        self.accept.next = self.s_axis_tvalid.val() && !self.padding.q.val() && !self.hold.fill.val().get_bit(28);
        self.hold.push.next = self.accept.val();
        self.hold.push_data.next = self.s_axis_tdata.val();
        self.hold.push_keep.next = self.s_axis_tkeep.val();
        self.hold.push_last.next = self.s_axis_tlast.val();
        self.hold.push_bytes.next = 0.into();
        self.shift.next = (self.accept.val() && self.window_shifts.q.val() != self.window_beats.val()) || self.padding.q.val();
        self.beat_in.next = self.s_axis_tdata.val();
        self.keep_in.next = self.s_axis_tkeep.val();
        if self.padding.q.val() {
            self.beat_in.next = 0.into();
            self.keep_in.next = 0.into();
        }
        if self.shift.val() {
            self.window.d.next = (self.window.q.val() >> self.beat_bits.val())
                | (bit_cast::<WINDOW_REGISTER_BITS, W>(self.beat_in.val()) << self.beat_in_at.val());
            self.window_keep.d.next = (self.window_keep.q.val() >> self.beat_bytes.val())
                | (bit_cast::<WINDOW_REGISTER_BYTES, K>(self.keep_in.val()) << self.keep_in_at.val());
            self.window_shifts.d.next = self.window_shifts.q.val() + 1;
        }
        self.window_done.d.next = self.shift.val() && self.window_shifts.q.val() == self.last_window_shift.val();
        if self.accept.val() && self.s_axis_tlast.val() {
            // the frame ends: a short one pads its window, the next frame starts a new one
            if self.shift.val() && self.window_shifts.q.val() != self.last_window_shift.val() {
                self.padding.d.next = true;
            } else {
                self.window_shifts.d.next = 0.into();
            }
        }
        if self.padding.q.val() && self.window_shifts.q.val() == self.last_window_shift.val() {
            self.padding.d.next = false;
            self.window_shifts.d.next = 0.into();
        }

        // ================= _1: tags; the head and the bytes the checks read =================
        self.frame_head.next = self.window.q.val().get_bits::<FRAME_HEAD_BITS>(self.frame_head_at.val().index());
        self.frame_keep.next = self.window_keep.q.val().get_bits::<WINDOW_BYTES>(self.frame_keep_at.val().index());
        self.tag_first.next = ((self.frame_head.val() & self.tpid_mask[0].val()) == self.tpid_value[0].val())
            || ((self.frame_head.val() & self.tpid_mask[0].val()) == self.tpid_value[1].val());
        self.tag_second.next = self.tag_first.val()
            && (((self.frame_head.val() & self.tpid_mask[1].val()) == self.tpid_value[2].val())
                || ((self.frame_head.val() & self.tpid_mask[1].val()) == self.tpid_value[3].val()));
        self.valid_1.d.next = self.window_done.q.val();
        self.frame_head_1.d.next = self.frame_head.val();
        self.tags_1.d.next = 0.into();
        self.arp_long_1.d.next = self.frame_keep.val().get_bit(self.arp_last_byte[0].val().index());
        self.echo_long_1.d.next = self.frame_keep.val().get_bit(self.echo_last_byte[0].val().index());
        if self.tag_first.val() {
            self.tags_1.d.next = 1.into();
            self.arp_long_1.d.next = self.frame_keep.val().get_bit(self.arp_last_byte[1].val().index());
            self.echo_long_1.d.next = self.frame_keep.val().get_bit(self.echo_last_byte[1].val().index());
        }
        if self.tag_second.val() {
            self.tags_1.d.next = 2.into();
            self.arp_long_1.d.next = self.frame_keep.val().get_bit(self.arp_last_byte[2].val().index());
            self.echo_long_1.d.next = self.frame_keep.val().get_bit(self.echo_last_byte[2].val().index());
        }

        // ================= _2: untag; match the requests =================
        self.head.next = bit_cast::<HEAD_BITS, FRAME_HEAD_BITS>(
            (self.frame_head_1.q.val() & self.mac_bits.val())
                | ((self.frame_head_1.q.val() >> self.tag_shift[0].val()) & self.after_macs.val()),
        );
        if self.tags_1.q.val() == 1 {
            self.head.next = bit_cast::<HEAD_BITS, FRAME_HEAD_BITS>(
                (self.frame_head_1.q.val() & self.mac_bits.val())
                    | ((self.frame_head_1.q.val() >> self.tag_shift[1].val()) & self.after_macs.val()),
            );
        }
        if self.tags_1.q.val() == 2 {
            self.head.next = bit_cast::<HEAD_BITS, FRAME_HEAD_BITS>(
                (self.frame_head_1.q.val() & self.mac_bits.val())
                    | ((self.frame_head_1.q.val() >> self.tag_shift[2].val()) & self.after_macs.val()),
            );
        }
        self.valid_2.d.next = self.valid_1.q.val();
        self.head_2.d.next = self.head.val();
        self.raw_2.d.next = self.frame_head_1.q.val();
        self.tags_2.d.next = self.tags_1.q.val();
        self.arp_2.d.next = self.local_ip_set.q.val()
            && self.arp_long_1.q.val()
            && (self.head.val() & self.arp_mask.val()) == self.arp_value.val()
            && self.head.val().get_bits::<32>(self.arp_target_ip_at.val().index()) == self.local_ip_wire.q.val();
        self.echo_2.d.next = self.local_ip_set.q.val()
            && self.echo_long_1.q.val()
            && (self.head.val() & self.echo_mask.val()) == self.echo_value.val()
            && self.head.val().get_bits::<32>(self.echo_destination_at.val().index()) == self.local_ip_wire.q.val();
        self.total_length_field.next = (bit_cast::<16, 8>(self.head.val().get_bits::<8>(self.total_length_high_at.val().index()))
            << self.byte_bits.val())
            | bit_cast::<16, 8>(self.head.val().get_bits::<8>(self.total_length_low_at.val().index()));
        self.total_length_2.d.next = self.total_length_field.val().get_bits::<13>(0);
        self.total_large_2.d.next = self.total_length_field.val().get_bits::<3>(13) != 0;
        self.l2_last_2.d.next = self.l2_minus_one[0].val();
        if self.tags_1.q.val() == 1 {
            self.l2_last_2.d.next = self.l2_minus_one[1].val();
        }
        if self.tags_1.q.val() == 2 {
            self.l2_last_2.d.next = self.l2_minus_one[2].val();
        }
        // (from the untagged head before its register: the check's verdict comes in _5)
        self.checksum.header.next = self.head.val().get_bits::<IPV4_HEADER_BITS>(self.ip_header_at.val().index());

        // ================= _3: the reply over the untagged head =================
        self.checksum_field.next = (bit_cast::<16, 8>(self.head_2.q.val().get_bits::<8>(self.icmp_checksum_high_at.val().index()))
            << self.byte_bits.val())
            | bit_cast::<16, 8>(self.head_2.q.val().get_bits::<8>(self.icmp_checksum_low_at.val().index()));
        // HC' = HC + 0x0800 with the end-around carry: HC + 0x0801 from 0xF7FF up, where a
        // result of 0x0000 (HC = 0xF7FF) is written 0xFFFF, the same ones'-complement zero,
        // which verifies also when the rest of the message is all zero
        self.checksum_new.next = self.checksum_field.val() + self.echo_type_word.val();
        if self.checksum_field.val() > self.checksum_wrap_from.val() {
            self.checksum_new.next = self.checksum_field.val() + self.echo_type_word.val() + 1;
        }
        if self.checksum_field.val() == self.checksum_wrap_from.val() {
            self.checksum_new.next = self.all_checksum.val();
        }
        self.valid_3.d.next = self.valid_2.q.val();
        if self.arp_2.q.val() {
            // to the sender, from us; operation reply; sender us, target the request's sender
            self.rewritten_3.d.next = (self.head_2.q.val() & self.arp_kept.val())
                | bit_cast::<HEAD_BITS, 48>(self.head_2.q.val().get_bits::<48>(self.arp_sender_mac_at.val().index()))
                | (bit_cast::<HEAD_BITS, 48>(self.local_mac_wire.q.val()) << self.ethernet_source_at.val())
                | self.arp_operation_reply.val()
                | (bit_cast::<HEAD_BITS, 48>(self.local_mac_wire.q.val()) << self.arp_sender_mac_at.val())
                | (bit_cast::<HEAD_BITS, 32>(self.local_ip_wire.q.val()) << self.arp_sender_ip_at.val())
                | (bit_cast::<HEAD_BITS, 48>(self.head_2.q.val().get_bits::<48>(self.arp_sender_mac_at.val().index()))
                    << self.arp_target_mac_at.val())
                | (bit_cast::<HEAD_BITS, 32>(self.head_2.q.val().get_bits::<32>(self.arp_sender_ip_at.val().index()))
                    << self.arp_target_ip_at.val());
        } else {
            // to the sender, from us; addresses swapped; type reply (0), checksum updated
            self.rewritten_3.d.next = (self.head_2.q.val() & self.echo_kept.val())
                | bit_cast::<HEAD_BITS, 48>(self.head_2.q.val().get_bits::<48>(self.ethernet_source_at.val().index()))
                | (bit_cast::<HEAD_BITS, 48>(self.local_mac_wire.q.val()) << self.ethernet_source_at.val())
                | (bit_cast::<HEAD_BITS, 32>(self.head_2.q.val().get_bits::<32>(self.ip_destination_at.val().index()))
                    << self.ip_source_at.val())
                | (bit_cast::<HEAD_BITS, 32>(self.head_2.q.val().get_bits::<32>(self.ip_source_at.val().index()))
                    << self.ip_destination_at.val())
                | (bit_cast::<HEAD_BITS, 8>(self.checksum_new.val().get_bits::<8>(8)) << self.icmp_checksum_high_at.val())
                | (bit_cast::<HEAD_BITS, 8>(self.checksum_new.val().get_bits::<8>(0)) << self.icmp_checksum_low_at.val());
        }
        self.raw_3.d.next = self.raw_2.q.val();
        self.tags_3.d.next = self.tags_2.q.val();
        self.arp_3.d.next = self.valid_2.q.val() && self.arp_2.q.val();
        self.echo_3.d.next = self.valid_2.q.val() && self.echo_2.q.val();
        self.total_ok_3.d.next = self.total_large_2.q.val() || self.total_length_2.q.val() >= self.min_datagram.val();
        self.total_large_3.d.next = self.total_large_2.q.val();
        self.datagram_last_3.d.next = self.total_length_2.q.val() + self.l2_last_2.q.val();

        // ================= _4: retag; a candidate takes the reply buffer =================
        self.reply_frame_head.next = (bit_cast::<FRAME_HEAD_BITS, HEAD_BITS>(self.rewritten_3.q.val()) & self.mac_bits.val())
            | ((bit_cast::<FRAME_HEAD_BITS, HEAD_BITS>(self.rewritten_3.q.val()) & self.head_after_macs.val()) << self.tag_shift[0].val())
            | (self.raw_3.q.val() & self.raw_bytes[0].val());
        if self.tags_3.q.val() == 1 {
            self.reply_frame_head.next = (bit_cast::<FRAME_HEAD_BITS, HEAD_BITS>(self.rewritten_3.q.val()) & self.mac_bits.val())
                | ((bit_cast::<FRAME_HEAD_BITS, HEAD_BITS>(self.rewritten_3.q.val()) & self.head_after_macs.val())
                    << self.tag_shift[1].val())
                | (self.raw_3.q.val() & self.raw_bytes[1].val());
        }
        if self.tags_3.q.val() == 2 {
            self.reply_frame_head.next = (bit_cast::<FRAME_HEAD_BITS, HEAD_BITS>(self.rewritten_3.q.val()) & self.mac_bits.val())
                | ((bit_cast::<FRAME_HEAD_BITS, HEAD_BITS>(self.rewritten_3.q.val()) & self.head_after_macs.val())
                    << self.tag_shift[2].val())
                | (self.raw_3.q.val() & self.raw_bytes[2].val());
        }
        self.valid_4.d.next = self.valid_3.q.val();
        self.arp_4.d.next = self.arp_3.q.val();
        self.echo_4.d.next = self.echo_3.q.val();
        self.total_ok_4.d.next = self.total_ok_3.q.val();
        self.fits_4.d.next = !self.total_large_3.q.val() && self.datagram_last_3.q.val() < self.capacity.val();
        self.datagram_last_beat.next = self.datagram_last_3.q.val() >> self.lane_bits.val();
        self.datagram_last_lane.next = self.datagram_last_3.q.val() & self.lane_mask.val();
        self.end_beat_4.d.next = self.datagram_last_beat.val().get_bits::<5>(0);
        self.end_lane_4.d.next = self.datagram_last_lane.val().get_bits::<7>(0);
        self.holder_4.d.next = false;
        self.deferred_4.d.next = false;
        if self.arp_3.q.val() || self.echo_3.q.val() {
            if self.slot.q.val() == SlotState::Free {
                self.holder_4.d.next = true;
                self.slot.d.next = SlotState::Held;
                self.reply_head.d.next = self.reply_frame_head.val();
                self.reply_echo.d.next = self.echo_3.q.val();
            } else {
                self.deferred_4.d.next = true;
            }
        }

        // ================= _5: the checksum's verdict; the decision =================
        self.answer.next =
            self.arp_4.q.val() || (self.echo_4.q.val() && self.checksum.good.val() && self.total_ok_4.q.val() && self.fits_4.q.val());
        self.decisions.push.next = self.valid_4.q.val();
        self.decision.next.reply = self.holder_4.q.val() && self.answer.val();
        self.decision.next.echo = self.echo_4.q.val();
        self.decision.next.end_beat = self.end_beat_4.q.val();
        self.decision.next.end_lane = self.end_lane_4.q.val();
        self.decisions.push_value.next = self.decision.val();
        if self.holder_4.q.val() {
            if self.answer.val() {
                self.slot.d.next = SlotState::Claimed;
            } else {
                self.slot.d.next = SlotState::Free;
            }
        }
        self.deferred.increment.next = self.deferred_4.q.val() && self.answer.val();

        // ================= output: each frame to the host or into the reply buffer =================
        self.decision_head.next = self.decisions.head.val();
        self.decision_reply.next = self.decision_head.val().reply;
        self.decision_end_beat.next = self.decision_head.val().end_beat;
        self.decision_end_lane.next = self.decision_head.val().end_lane;
        self.beat_ready.next = self.hold.head_valid.val() && (self.mid_frame.q.val() || self.decisions.head_valid.val());
        self.reply_now.next = self.current_reply.q.val();
        if !self.mid_frame.q.val() {
            self.reply_now.next = self.decision_reply.val();
        }
        self.m_pass_tvalid.next = self.beat_ready.val() && !self.reply_now.val();
        self.m_pass_tdata.next = self.hold.head_data.val();
        self.m_pass_tkeep.next = self.hold.head_keep.val();
        self.m_pass_tlast.next = self.hold.head_last.val();
        self.popping.next = self.beat_ready.val() && (self.reply_now.val() || self.m_pass_tready.val());
        self.hold.pop.next = self.popping.val();
        self.decisions.pop.next = self.popping.val() && !self.mid_frame.q.val();

        // a reply beat: the reply head laid over the request's beat
        self.head_beat.next = bit_cast::<W, FRAME_HEAD_BITS>(self.reply_head.q.val());
        self.mask_beat.next = 0.into();
        if self.out_beat.q.val() == self.head_full_beats.val() {
            self.mask_beat.next = self.head_partial.val();
        }
        if self.head_whole_beats.val().get_bit(self.out_beat.q.val().index()) {
            self.mask_beat.next = self.all_beat.val();
        }
        self.replies.write_address.next = self.out_beat.q.val().get_bits::<ADDRESS_BITS>(0);
        self.replies.write_data.next = (self.hold.head_data.val() & !self.mask_beat.val()) | (self.head_beat.val() & self.mask_beat.val());
        // (bit 5 of the beat count: the 33rd beat and after, beyond the buffer)
        self.out_beat_full.next = self.out_beat.q.val().get_bit(5);
        self.replies.write_enable.next = self.popping.val() && self.reply_now.val() && !self.out_beat_full.val();
        self.ends_datagram.next = self.hold.head_keep.val().get_bit(self.end_lane.q.val().index())
            && self.out_beat.q.val() == bit_cast::<6, 5>(self.end_beat.q.val());
        if !self.mid_frame.q.val() {
            self.ends_datagram.next =
                self.hold.head_keep.val().get_bit(self.decision_end_lane.val().index()) && self.decision_end_beat.val() == 0;
        }
        self.arp_replies.increment.next = false;
        self.echo_replies.increment.next = false;
        self.drop_truncated.increment.next = false;
        self.drop_too_long.increment.next = false;
        if self.popping.val() {
            self.mid_frame.d.next = !self.hold.head_last.val();
            if !self.mid_frame.q.val() {
                self.current_reply.d.next = self.decision_reply.val();
                self.end_beat.d.next = self.decision_end_beat.val();
                self.end_lane.d.next = self.decision_end_lane.val();
            }
            if self.reply_now.val() {
                self.reply_head.d.next = self.reply_head.q.val() >> self.beat_bits.val();
                self.slot.d.next = SlotState::Filling;
                if !self.out_beat_full.val() {
                    self.out_beat.d.next = self.out_beat.q.val() + 1;
                }
                if self.ends_datagram.val() {
                    self.datagram_seen.d.next = true;
                }
                if self.hold.head_last.val() {
                    if self.out_beat_full.val() {
                        self.slot.d.next = SlotState::Free;
                        self.drop_too_long.increment.next = true;
                    } else if !(self.ends_datagram.val() || self.datagram_seen.q.val() || !self.reply_echo.q.val()) {
                        self.slot.d.next = SlotState::Free;
                        self.drop_truncated.increment.next = true;
                    } else {
                        self.slot.d.next = SlotState::Sending;
                        self.send_pending.d.next = true;
                        self.send_beat.d.next = 0.into();
                        self.reply_last_beat.d.next = self.out_beat.q.val().get_bits::<ADDRESS_BITS>(0);
                        self.reply_last_keep.d.next = self.hold.head_keep.val();
                        self.arp_replies.increment.next = !self.reply_echo.q.val();
                        self.echo_replies.increment.next = self.reply_echo.q.val();
                    }
                }
            }
            if self.hold.head_last.val() {
                self.out_beat.d.next = 0.into();
                self.datagram_seen.d.next = false;
            }
        }

        // ================= sending: the reply buffer to m_reply, one beat a cycle =================
        self.replies.read_address.next = self.send_beat.q.val();
        if self.reply_valid.q.val() && self.m_reply_tready.val() {
            self.reply_valid.d.next = false;
            if self.reply_last.q.val() {
                self.slot.d.next = SlotState::Free;
            }
        }
        if self.send_pending.q.val() && (!self.reply_valid.q.val() || self.m_reply_tready.val()) {
            self.reply_valid.d.next = true;
            self.reply_data.d.next = self.replies.read_data.val();
            self.reply_last.d.next = self.send_beat.q.val() == self.reply_last_beat.q.val();
            self.reply_keep.d.next = self.all_keep.val();
            if self.send_beat.q.val() == self.reply_last_beat.q.val() {
                self.reply_keep.d.next = self.reply_last_keep.q.val();
                self.send_pending.d.next = false;
            }
            self.send_beat.d.next = self.send_beat.q.val() + 1;
        }
        self.m_reply_tvalid.next = self.reply_valid.q.val();
        self.m_reply_tdata.next = self.reply_data.q.val();
        self.m_reply_tkeep.next = self.reply_keep.q.val();
        self.m_reply_tlast.next = self.reply_last.q.val();

        if self.reset.val() {
            self.padding.d.next = false;
            self.window_shifts.d.next = 0.into();
            self.window_done.d.next = false;
            self.valid_1.d.next = false;
            self.valid_2.d.next = false;
            self.valid_3.d.next = false;
            self.valid_4.d.next = false;
            self.arp_3.d.next = false;
            self.echo_3.d.next = false;
            self.holder_4.d.next = false;
            self.deferred_4.d.next = false;
            self.slot.d.next = SlotState::Free;
            self.mid_frame.d.next = false;
            self.send_pending.d.next = false;
            self.reply_valid.d.next = false;
        }
        self.cnt_arp_replies.next = self.arp_replies.count.val();
        self.cnt_echo_replies.next = self.echo_replies.count.val();
        self.cnt_deferred.next = self.deferred.count.val();
        self.cnt_drop_truncated.next = self.drop_truncated.count.val();
        self.cnt_drop_too_long.next = self.drop_too_long.count.val();
    }
}
