//! [`IcrcCore`], the wide-bus ICRC pipeline shared by `IcrcCheck` (RX) and `IcrcInsert` (TX):
//! one beat per cycle, a lock-step pipeline (every register advances on `en`):
//!
//! | stage | work |
//! |---|---|
//! | S1 | input beat registered; the first 66 frame bytes captured into `header` and decoded on the way in: L2 length (0–2 VLAN tags), IP version, RoCEv2 (UDP 4791), IP length field |
//! | S2 | ICRC position and its derivatives from four parallel adders (per-(L2, IP version) constants); beat-position compares against the previous beat's positions |
//! | S3 | byte classification: zero before the IP header − 4, `FF` for the 4 bytes before it (the `FF×8` prefix with the init folded in), all-ones in masked fields, data up to the ICRC, zero after it; fold of the wire ICRC lanes |
//! | S4 | `state = A·state ⊕ M·data` (zero-init register, matrices computed from the polynomial) |
//! | R0..R(NR-1) | undo the surplus zero bytes of the last covered beat, two `x^(-8·2^t)` stages per register |
//!
//! A register's number is its stage (`data2` is the beat in S2); NR is
//! [`REVERSE_STAGES`](IcrcCore::REVERSE_STAGES). The tail of the core (`t_*`) is the beat of stage
//! R(NR-1) with its frame's CRC when that beat is the last covered one. The tops add one output
//! register: latency is `5 + NR` cycles (8 at 256–512 bits), with no bubble between frames.
//!
//! At 64 and 128 bits the first `K·B` bytes (B = bytes per beat, K = beats before byte 27) cannot
//! be classified until byte 27 arrives: they are zeroed in the main path and their contribution is
//! added through a separate prefix matrix at beat K, so no lookahead buffer or stall is needed.

use super::classify::{ethertype, roce_pattern};
use super::crc;
use super::elab::{bits_from, c};
use ferroce_contracts::icrc::masked_bits;
use ferroce_contracts::rx::HEADER_RECORD_LATENCY;
use ferroce_contracts::{ethernet, ipv4, ipv6};
use num_bigint::BigUint;
use rust_hdl::prelude::*;

/// Bytes of the frame head captured for decoding (the UDP destination port of an IPv6 frame with
/// two VLAN tags ends at byte 65).
pub const HEADER_BYTES: usize = 66;
const HEADER_BITS: usize = HEADER_BYTES * 8;
/// Header-prefix register: at most 24 bytes at 64 bits (K = 3 beats of 8 bytes).
const PREFIX_BITS: usize = 192;
/// Header-region masks cover bytes 0..80 (the last masked byte is BTH byte 4 of an IPv6 frame
/// with two VLAN tags: 22 + 40 + 8 + 4 = 74).
const REGION_BYTES: usize = 80;
/// Header-region masks: 6 (L2, IP version) combinations, stride 16 beats.
const MAX_REGION_ENTRIES: usize = 96;
const MAX_REVERSE_STAGES: usize = 4;

/// How a byte of the ICRC coverage is formed, given the L2 header length and IP version.
/// Returns (and-mask, or-mask) for the byte at frame offset `p`. The masked fields come from
/// the ICRC contract.
pub fn header_byte_class(p: usize, l2: usize, v6: bool) -> (u8, u8) {
    if p + 4 < l2 {
        return (0, 0); // Ethernet/VLAN bytes: not covered (zero with a zero-init register)
    }
    if p < l2 {
        return (0, 0xFF); // init folded into the FF×8 prefix: FF×4
    }
    let ip_header_len = if v6 { ipv6::HEADER_LEN } else { ipv4::HEADER_LEN };
    let masked = masked_bits(v6, ip_header_len, p - l2);
    (!masked, masked)
}

/// Frame bytes of the IP length field `ip_length[i]`: IPv4 total length (even `i`) or IPv6 payload
/// length (odd `i`) after `i / 2` VLAN tags.
fn ip_length_field(i: usize) -> std::ops::Range<usize> {
    let l2 = ethernet::header_len(i / 2);
    let f = if i.is_multiple_of(2) {
        ipv4::field::TOTAL_LEN
    } else {
        ipv6::field::PAYLOAD_LEN
    };
    l2 + f.start..l2 + f.end
}

/// Combination index of (L2 length select, IPv6): L2 lengths with 0, 1 and 2 VLAN tags.
fn combo_params(combo: usize) -> (usize, bool) {
    (ethernet::header_len(combo / 2), combo % 2 == 1)
}

/// Cycles of `en` from an input beat to the output register of the tops after the core's tail
/// (the verdict of `IcrcCheck`), for `k` bytes per beat: S1..S4, the reversal stages
/// (⌈log2(k) / 2⌉), the output register.
pub const fn latency(k: usize) -> usize {
    5 + (k.trailing_zeros() as usize).div_ceil(2)
}

/// The shared ICRC pipeline. `W` is the bus width in bits, `K = W / 8` bytes per beat.
#[derive(LogicBlock)]
pub struct IcrcCore<const W: usize, const K: usize> {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous, active high: empties the pipeline and forgets any partial frame.
    pub reset: Signal<In, Bit>,
    /// Pipeline advance (all registers move together).
    pub en: Signal<In, Bit>,
    /// Input beat: valid (taken when `en` is high).
    pub in_valid: Signal<In, Bit>,
    /// Input beat: data (frame byte 0 of a beat in bits 7:0).
    pub in_data: Signal<In, Bits<W>>,
    /// Input beat: byte enables (contiguous from lane 0).
    pub in_keep: Signal<In, Bits<K>>,
    /// Input beat: last beat of a frame.
    pub in_last: Signal<In, Bit>,
    /// Early beat: the input beat at stage S([`EARLY_STAGE`](IcrcCore::EARLY_STAGE)), that many
    /// cycles of `en` after it came in. `RxHeader` ([`HEADER_RECORD_LATENCY`] stages), taking it
    /// with the same `en`, ends in the cycle the frame's verdict is in the tops' output register (`RxFront` takes
    /// its beats here, and the tail's copy of the beat is then unused). Valid.
    pub early_valid: Signal<Out, Bit>,
    /// Early beat: data.
    pub early_data: Signal<Out, Bits<W>>,
    /// Early beat: byte enables.
    pub early_keep: Signal<Out, Bits<K>>,
    /// Early beat: last beat of its frame.
    pub early_last: Signal<Out, Bit>,
    /// Early beat: valid bytes (1..=B).
    pub early_byte_count: Signal<Out, Bits<8>>,
    /// Tail beat: valid.
    pub t_valid: Signal<Out, Bit>,
    /// Tail beat: data (as it came in).
    pub t_data: Signal<Out, Bits<W>>,
    /// Tail beat: byte enables.
    pub t_keep: Signal<Out, Bits<K>>,
    /// Tail beat: last beat of its frame.
    pub t_last: Signal<Out, Bit>,
    /// Tail beat: first beat of its frame.
    pub t_first: Signal<Out, Bit>,
    /// Valid bytes in the tail beat (1..=B).
    pub t_byte_count: Signal<Out, Bits<8>>,
    /// The tail beat's frame is RoCEv2 (final on the last beat).
    pub t_roce: Signal<Out, Bit>,
    /// Check mode: IP length long enough for the headers and the frame holds the whole IP packet
    /// (meaningful on the last beat).
    pub t_complete: Signal<Out, Bit>,
    /// Check mode: XOR fold (32-bit words) of this beat's wire-ICRC bytes.
    pub t_fold: Signal<Out, Bits<32>>,
    /// Check mode: ICRC position mod 4 (rotation of the fold).
    pub t_icrc_rotation: Signal<Out, Bits<2>>,
    /// The frame's ICRC (final XOR applied, wire order in bits 7:0 first) is valid with this beat.
    pub t_crc_valid: Signal<Out, Bit>,
    /// The frame's ICRC (see `t_crc_valid`).
    pub t_crc: Signal<Out, Bits<32>>,
    /// Insert mode: lanes of the tail beat that take ICRC bytes (lanes n..n+4 within the beat).
    pub t_insert_lanes: Signal<Out, Bits<K>>,
    /// Insert mode: lanes of the extra beat that take the ICRC bytes spilling past the beat.
    pub t_spill_keep: Signal<Out, Bits<K>>,
    /// Insert mode: the ICRC does not fit in the tail beat (n + 4 > B).
    pub t_spill: Signal<Out, Bit>,

    // ---- configuration constants (computed in Rust at elaboration) ----
    check: Constant<Bit>,
    /// B.
    bytes_per_beat: Constant<Bits<17>>,
    /// B - 1 (masks a position's offset within its beat).
    bytes_per_beat_mask: Constant<Bits<17>>,
    /// B (8 and 9 bits), B - 4 and B - 1 at the widths of the byte counts they meet.
    bytes_per_beat_8bit: Constant<Bits<8>>,
    bytes_per_beat_9bit: Constant<Bits<9>>,
    bytes_per_beat_minus_4: Constant<Bits<9>>,
    bytes_per_beat_mask_8bit: Constant<Bits<8>>,
    /// Position of beat K, the first beat whose decode is complete (K·B).
    beat_k_position: Constant<Bits<17>>,
    /// Byte-lane masks `0xFF << 8i`.
    lane_mask: [Constant<Bits<W>>; 128],
    lane_index: [Constant<Bits<9>>; 128],
    /// Header capture: bit offset in `header` and bit mask of capture beat j.
    capture_shift: [Constant<Bits<16>>; 16],
    capture_mask: [Constant<Bits<HEADER_BITS>>; 16],
    /// Beat position of beat j of the header region.
    region_position: [Constant<Bits<17>>; 16],
    /// Per combo, added to the IP length field: the position of the last covered byte (ICRC − 1),
    /// of the first ICRC byte, of the first ICRC byte + B and of the last ICRC byte (ICRC + 3).
    /// Per combination, the offsets from the IP length field to the ICRC positions, packed
    /// (bits 16:0 last covered byte, 33:17 ICRC, 50:34 ICRC + B, 67:51 ICRC end).
    position_offsets: [Constant<Bits<68>>; 6],
    /// Per lane i: i < 4, i − 4 (saturating) and i + B − 4.
    lane_below_4: [Constant<Bit>; 128],
    lane_minus_4: [Constant<Bits<9>>; 128],
    lane_plus_beat_minus_4: [Constant<Bits<9>>; 128],
    /// Header-region classification (and, or) per combo and beat: entry combo * 16 + beat.
    region_and_mask: [Constant<Bits<W>>; MAX_REGION_ENTRIES],
    region_or_mask: [Constant<Bits<W>>; MAX_REGION_ENTRIES],
    /// Header-prefix classification (and, or) per combo.
    prefix_and_mask: [Constant<Bits<PREFIX_BITS>>; 6],
    prefix_or_mask: [Constant<Bits<PREFIX_BITS>>; 6],
    /// The `header` bits that form the prefix.
    prefix_capture_mask: Constant<Bits<PREFIX_BITS>>,
    /// Combo indices 0..6 as constants.
    combo_id: [Constant<Bits<3>>; 6],
    /// CRC matrix rows: beat data, header prefix, previous state, and the reversal steps
    /// (`x^(-8·2^t)`, rows of step t at 32·t).
    data_matrix: [Constant<Bits<W>>; 32],
    prefix_matrix: [Constant<Bits<PREFIX_BITS>>; 32],
    state_matrix: [Constant<Bits<32>>; 32],
    reverse_matrix: [Constant<Bits<32>>; 256],

    // ---- S0/S1 ----
    /// Position (frame byte offset) of the next input beat.
    position_counter: DFF<Bits<17>>,
    /// The next input beat is inside a frame (not its first beat).
    in_frame: DFF<Bit>,
    /// One-hot: bit j (j ≥ 1) set when the next input beat is capture beat j, so the capture
    /// needs no position compare (one LUT level to `header_next`).
    capture_beat: DFF<Bits<16>>,
    /// The captured frame head.
    header: DFF<Bits<HEADER_BITS>>,
    valid1: DFF<Bit>,
    data1: DFF<Bits<W>>,
    keep1: DFF<Bits<K>>,
    last1: DFF<Bit>,
    position1: DFF<Bits<17>>,
    /// `in_keep` as a bit mask.
    keep_mask: Signal<Local, Bits<W>>,
    /// The frame head including the input beat (bytes not yet received read as zero).
    header_next: Signal<Local, Bits<HEADER_BITS>>,
    /// Per VLAN tag count: RoCEv2 over IPv4, RoCEv2 over IPv6, IPv6 ethertype.
    roce_ipv4_match: [Signal<Local, Bit>; 3],
    roce_ipv6_match: [Signal<Local, Bit>; 3],
    ipv6_match: [Signal<Local, Bit>; 3],
    /// The IP length fields, indexed like `combo`.
    ip_length: [Signal<Local, Bits<16>>; 6],
    len_high: Signal<Local, Bits<8>>,
    len_low: Signal<Local, Bits<8>>,
    // Classification patterns per VLAN tag count (0, 1, 2), compared as
    // `(header_next & mask) == value` with constants computed from the header contracts: a VLAN
    // TPID (802.1Q or 802.1ad) where the ethertype would be; RoCEv2 over IPv4 (ethertype,
    // version 4 / IHL 5, UDP, port 4791); RoCEv2 over IPv6 (ethertype, version 6, UDP, port 4791);
    // an IPv6 ethertype.
    tag_q_mask: [Constant<Bits<HEADER_BITS>>; 3],
    tag_q_value: [Constant<Bits<HEADER_BITS>>; 3],
    tag_ad_value: [Constant<Bits<HEADER_BITS>>; 3],
    roce_ipv4_mask: [Constant<Bits<HEADER_BITS>>; 3],
    roce_ipv4_value: [Constant<Bits<HEADER_BITS>>; 3],
    roce_ipv6_mask: [Constant<Bits<HEADER_BITS>>; 3],
    roce_ipv6_value: [Constant<Bits<HEADER_BITS>>; 3],
    ipv6_value: [Constant<Bits<HEADER_BITS>>; 3],
    /// Bit positions of the high and low bytes of the IP length fields `ip_length[i]`: IPv4 total
    /// length (even i) and IPv6 payload length (odd i) for i / 2 VLAN tags.
    len_high_at: [Constant<Bits<10>>; 6],
    len_low_at: [Constant<Bits<10>>; 6],
    /// L2 select · 2 + IPv6.
    combo1: DFF<Bits<3>>,
    /// `position_offsets` of the combination.
    position_offsets1: DFF<Bits<68>>,
    roce1: DFF<Bit>,
    ip_length1: DFF<Bits<16>>,
    // ---- S2 ----
    valid2: DFF<Bit>,
    data2: DFF<Bits<W>>,
    keep2: DFF<Bits<K>>,
    last2: DFF<Bit>,
    position2: DFF<Bits<17>>,
    /// Valid bytes of the beat.
    byte_count2: DFF<Bits<8>>,
    combo2: DFF<Bits<3>>,
    /// Position of the beat holding the last ICRC byte, and its lane.
    icrc_end_beat2: DFF<Bits<17>>,
    icrc_end_lane2: DFF<Bits<9>>,
    /// One-hot: beat j of the header region.
    region_beat2: DFF<Bits<16>>,
    /// Beat K (the first with a complete decode).
    at_beat_k2: DFF<Bit>,
    /// A beat before beat K.
    early2: DFF<Bit>,
    /// Beat before the last covered one, the last covered one, after the one holding the last
    /// ICRC byte, the one holding it (against the previous beat's positions).
    before_last_covered2: DFF<Bit>,
    at_last_covered2: DFF<Bit>,
    past_icrc_end2: DFF<Bit>,
    at_icrc_end2: DFF<Bit>,
    roce2: DFF<Bit>,
    /// IP length long enough for the headers.
    length_ok2: DFF<Bit>,
    /// Position of the last covered beat, and the last covered lane in it.
    last_covered_beat2: DFF<Bits<17>>,
    last_covered_lane2: DFF<Bits<9>>,
    /// Position of the beat holding the first ICRC byte, the same plus B, and the ICRC lane.
    icrc_beat2: DFF<Bits<17>>,
    icrc_next_beat2: DFF<Bits<17>>,
    icrc_lane2: DFF<Bits<9>>,
    /// The header prefix (the first K·B bytes).
    prefix2: DFF<Bits<PREFIX_BITS>>,
    // S1->S2 decode temporaries
    /// At least one, two, three VLAN tags.
    at_least_one_tag: Signal<Local, Bit>,
    at_least_two_tags: Signal<Local, Bit>,
    at_least_three_tags: Signal<Local, Bit>,
    /// Frame positions from the IP length: first ICRC byte, last covered byte, first ICRC byte
    /// plus B, last ICRC byte.
    icrc_position: Signal<Local, Bits<17>>,
    last_covered_position: Signal<Local, Bits<17>>,
    icrc_next_beat_position: Signal<Local, Bits<17>>,
    icrc_end_position: Signal<Local, Bits<17>>,
    /// The `*_offsets` constants of the frame's combo.
    last_covered_offset: Signal<Local, Bits<17>>,
    icrc_offset: Signal<Local, Bits<17>>,
    icrc_next_beat_offset: Signal<Local, Bits<17>>,
    icrc_end_offset: Signal<Local, Bits<17>>,
    region_beat: Signal<Local, Bits<16>>,
    /// The S2 beat against the positions (see `before_last_covered2` ...).
    before_last_covered: Signal<Local, Bit>,
    at_last_covered: Signal<Local, Bit>,
    past_icrc_end: Signal<Local, Bit>,
    at_icrc_end: Signal<Local, Bit>,
    /// The lane of the last ICRC byte is valid in the S2 beat.
    icrc_end_kept: Signal<Local, Bit>,
    /// Valid bytes of the S1 beat.
    byte_count: Signal<Local, Bits<9>>,
    // ---- S3 ----
    valid3: DFF<Bit>,
    /// Classified data (what the CRC covers).
    covered_data3: DFF<Bits<W>>,
    prefix3: DFF<Bits<PREFIX_BITS>>,
    first3: DFF<Bit>,
    /// The beat updates the CRC state.
    covered3: DFF<Bit>,
    /// The beat is the last covered one.
    last_covered3: DFF<Bit>,
    /// Surplus zero bytes after the last covered byte of the beat.
    surplus3: DFF<Bits<8>>,
    /// The beat as it came in.
    data3: DFF<Bits<W>>,
    keep3: DFF<Bits<K>>,
    /// 0 last, 1 first, 2 roce, 3 complete.
    flags3: DFF<Bits<8>>,
    byte_count3: DFF<Bits<8>>,
    fold3: DFF<Bits<32>>,
    /// ICRC position mod 4.
    icrc_rotation3: DFF<Bits<2>>,
    /// The S2 beat with the header-region masks applied.
    header_masked: Signal<Local, Bits<W>>,
    /// Bits of the S2 beat covered by the CRC.
    covered_mask: Signal<Local, Bits<W>>,
    /// Bits of the S2 beat holding wire ICRC bytes, and those bytes.
    wire_icrc_mask: Signal<Local, Bits<W>>,
    wire_icrc_data: Signal<Local, Bits<W>>,
    fold: Signal<Local, Bits<32>>,
    // ---- S4 ----
    crc_state: DFF<Bits<32>>,
    last_covered4: DFF<Bit>,
    surplus4: DFF<Bits<8>>,
    /// The state the S3 beat updates (zero on a first beat), and the updated state.
    crc_state_in: Signal<Local, Bits<32>>,
    crc_state_next: Signal<Local, Bits<32>>,
    // ---- beat delay S4..R(REVERSE_STAGES-1): index 0 = S4, q + 1 = R(q) ----
    delay_data: [DFF<Bits<W>>; 5],
    delay_keep: [DFF<Bits<K>>; 5],
    /// 0 valid, 1 last, 2 first, 3 roce, 4 complete.
    delay_flags: [DFF<Bits<8>>; 5],
    delay_byte_count: [DFF<Bits<8>>; 5],
    delay_fold: [DFF<Bits<32>>; 5],
    delay_icrc_rotation: [DFF<Bits<2>>; 5],
    // ---- reversal: register q is R(q) ----
    reverse_state: [DFF<Bits<32>>; MAX_REVERSE_STAGES],
    /// The reversed state is the frame's CRC (last covered beat).
    reverse_valid: [DFF<Bit>; MAX_REVERSE_STAGES],
    reverse_surplus: [DFF<Bits<8>>; MAX_REVERSE_STAGES],
    /// The state through the steps of register q: 3q input, 3q + 1 and 3q + 2 after each step.
    reverse_step: [Signal<Local, Bits<32>>; 12],
    // insert lanes for the tail beat, registered with it
    insert_lanes: DFF<Bits<K>>,
    spill_keep: DFF<Bits<K>>,
    spill: DFF<Bit>,
    /// Valid bytes of the beat that is the tail in the next cycle.
    next_tail_byte_count: Signal<Local, Bits<8>>,
    next_tail_byte_count_9bit: Signal<Local, Bits<9>>,
    insert_lanes_next: Signal<Local, Bits<K>>,
    spill_keep_next: Signal<Local, Bits<K>>,
}

impl<const W: usize, const K: usize> IcrcCore<W, K> {
    /// log2 of the bytes per beat.
    pub const LOG2_BYTES: usize = K.trailing_zeros() as usize;
    /// Register stages of the surplus-byte reversal.
    pub const REVERSE_STAGES: usize = Self::LOG2_BYTES.div_ceil(2);
    /// Cycles of `en` from an input beat to the tops' output register after the tail: [`latency`].
    pub const LATENCY: usize = latency(K);
    /// Stage of the early beat (`early_*`): [`LATENCY`](IcrcCore::LATENCY) −
    /// [`HEADER_RECORD_LATENCY`], so the header decoder's stages end with the output register
    /// (1 at 64 and 128 bits, 2 at 256 and 512, 3 at 1024).
    pub const EARLY_STAGE: usize = Self::LATENCY - HEADER_RECORD_LATENCY;
    const EARLY_AT_S1: usize = (Self::EARLY_STAGE == 1) as usize;
    const EARLY_AT_S2: usize = (Self::EARLY_STAGE == 2) as usize;
    const EARLY_AT_S3: usize = (Self::EARLY_STAGE == 3) as usize;
    /// Beats before the one holding byte 27 (the last byte the classification depends on).
    pub const PREFIX_BEATS: usize = 27 / K;
    const BYTES_PER_BEAT: usize = K;
    /// 1 when some beats precede byte 27 (64 and 128 bits), else 0 (a loop bound).
    const HAS_EARLY: usize = (27 / K > 0) as usize;
    const LAST_LANE: usize = K - 1;
    const WORDS_PER_BEAT: usize = K / 4;
    const REVERSE_STAGES_PLUS_1: usize = Self::REVERSE_STAGES + 1;
    /// Header capture beats.
    pub const CAPTURE_BEATS: usize = HEADER_BYTES.div_ceil(K);
    /// Beats of the header region (bytes 0..80).
    pub const REGION_BEATS: usize = REGION_BYTES.div_ceil(K);

    /// A core in check mode (`check`, for `IcrcCheck`) or insert mode (for `IcrcInsert`).
    pub fn new(check: bool) -> Self {
        assert_eq!(W, 8 * K, "K must be W / 8");
        assert!(K.is_power_of_two() && (8..=128).contains(&K), "bus width 64..1024 bits");
        let b = K;
        let prefix_beats = Self::PREFIX_BEATS;
        let prefix_bytes = prefix_beats * b; // 0 when byte 27 is in beat 0
        assert!(prefix_bytes * 8 <= PREFIX_BITS);
        assert!(Self::REGION_BEATS <= 16 && Self::REVERSE_STAGES <= MAX_REVERSE_STAGES);
        assert!((1..=3).contains(&Self::EARLY_STAGE), "the early beat is taken from S1, S2 or S3");

        let (lane_mask, lane_index) = lane_consts::<W, K>();
        let capture_shift = std::array::from_fn(|j| c::<16>((j * W).min(HEADER_BITS) as u64));
        let capture_mask = std::array::from_fn(|j| {
            Constant::new(bits_from::<HEADER_BITS>(|k| {
                j < Self::CAPTURE_BEATS && k / 8 >= j * b && k / 8 < (j + 1) * b
            }))
        });

        // Header-region classification per (combo, beat): entry combo * 16 + beat.
        let region_beats = Self::REGION_BEATS;
        let region_class = |combo: usize, j: usize, k: usize| {
            let (l2, v6) = combo_params(combo);
            let p = j * b + k / 8;
            if j >= region_beats {
                (0xFFu8, 0u8)
            } else if p < prefix_bytes {
                (0u8, 0u8) // carried by the header prefix instead
            } else {
                header_byte_class(p, l2, v6)
            }
        };
        let region_and_mask =
            std::array::from_fn(|e| Constant::new(bits_from::<W>(|k| (region_class(e / 16, e % 16, k).0 >> (k % 8)) & 1 != 0)));
        let region_or_mask =
            std::array::from_fn(|e| Constant::new(bits_from::<W>(|k| (region_class(e / 16, e % 16, k).1 >> (k % 8)) & 1 != 0)));
        let region_position = std::array::from_fn(|j| c::<17>(if j < region_beats { (j * b) as u64 } else { 0x1FFFF }));
        // ICRC position q = l2 + iplen - 4 = length field + (l2 - 4) (+ 40 for IPv6).
        let icrc_offset_of = |combo: usize| {
            let (l2, v6) = combo_params(combo);
            (l2 - 4 + if v6 { 40 } else { 0 }) as u64
        };
        let position_offsets = std::array::from_fn(|cmb| {
            let q = icrc_offset_of(cmb);
            let packed = [q - 1, q, q + b as u64, q + 3]
                .iter()
                .enumerate()
                .fold(BigUint::default(), |acc, (i, &o)| acc | (BigUint::from(o) << (17 * i)));
            Constant::new(Bits::<68>::from(packed))
        });
        let lane_below_4 = std::array::from_fn(|i| Constant::new(i < 4));
        let lane_minus_4 = std::array::from_fn(|i| c::<9>(i.saturating_sub(4) as u64));
        let lane_plus_beat_minus_4 = std::array::from_fn(|i| c::<9>((i + b - 4) as u64));
        let prefix_and_mask = std::array::from_fn(|combo| {
            let (l2, v6) = combo_params(combo);
            Constant::new(bits_from::<PREFIX_BITS>(|k| {
                k / 8 < prefix_bytes && (header_byte_class(k / 8, l2, v6).0 >> (k % 8)) & 1 != 0
            }))
        });
        let prefix_or_mask = std::array::from_fn(|combo| {
            let (l2, v6) = combo_params(combo);
            Constant::new(bits_from::<PREFIX_BITS>(|k| {
                k / 8 < prefix_bytes && (header_byte_class(k / 8, l2, v6).1 >> (k % 8)) & 1 != 0
            }))
        });
        let prefix_capture_mask = Constant::new(bits_from::<PREFIX_BITS>(|k| k / 8 < prefix_bytes));

        let data_rows = crc::data_rows(W, 0);
        let data_matrix = std::array::from_fn(|i| Constant::new(bits_from::<W>(|k| data_rows[i][k])));
        // Only the first prefix_bytes of the prefix are real; the prefix is fed right before beat K.
        let prefix_matrix = std::array::from_fn(|i| {
            Constant::new(bits_from::<PREFIX_BITS>(|k| {
                k < prefix_bytes * 8 && {
                    // prefix bit k followed by (prefix_bytes*8 - 1 - k) prefix bits and W beat bits
                    let s = crc::zeros(crc::step_bit(0, true), prefix_bytes * 8 - 1 - k + W);
                    (s >> i) & 1 != 0
                }
            }))
        });
        let state_rows = crc::state_rows(b);
        let state_matrix = std::array::from_fn(|i| c::<32>(state_rows[i] as u64));
        let reverse_matrix = std::array::from_fn(|ti| {
            let (t, i) = (ti / 32, ti % 32);
            c::<32>(crc::unzero_rows(1 << t)[i] as u64)
        });

        Self {
            clock: Default::default(),
            reset: Default::default(),
            en: Default::default(),
            in_valid: Default::default(),
            in_data: Default::default(),
            in_keep: Default::default(),
            in_last: Default::default(),
            early_valid: Default::default(),
            early_data: Default::default(),
            early_keep: Default::default(),
            early_last: Default::default(),
            early_byte_count: Default::default(),
            t_valid: Default::default(),
            t_data: Default::default(),
            t_keep: Default::default(),
            t_last: Default::default(),
            t_first: Default::default(),
            t_byte_count: Default::default(),
            t_roce: Default::default(),
            t_complete: Default::default(),
            t_fold: Default::default(),
            t_icrc_rotation: Default::default(),
            t_crc_valid: Default::default(),
            t_crc: Default::default(),
            check: Constant::new(check),
            bytes_per_beat: c::<17>(b as u64),
            bytes_per_beat_mask: c::<17>((b - 1) as u64),
            bytes_per_beat_8bit: c::<8>(b as u64),
            bytes_per_beat_9bit: c::<9>(b as u64),
            bytes_per_beat_minus_4: c::<9>((b - 4) as u64),
            bytes_per_beat_mask_8bit: c::<8>((b - 1) as u64),
            beat_k_position: c::<17>((prefix_beats * b) as u64),
            lane_mask,
            lane_index,
            capture_shift,
            capture_mask,
            region_position,
            region_and_mask,
            region_or_mask,
            position_offsets,
            lane_below_4,
            lane_minus_4,
            lane_plus_beat_minus_4,
            prefix_and_mask,
            prefix_or_mask,
            prefix_capture_mask,
            combo_id: std::array::from_fn(|i| c::<3>(i as u64)),
            data_matrix,
            prefix_matrix,
            state_matrix,
            reverse_matrix,
            position_counter: Default::default(),
            in_frame: Default::default(),
            capture_beat: Default::default(),
            header: Default::default(),
            valid1: Default::default(),
            data1: Default::default(),
            keep1: Default::default(),
            last1: Default::default(),
            position1: Default::default(),
            keep_mask: Default::default(),
            header_next: Default::default(),
            roce_ipv4_match: Default::default(),
            roce_ipv6_match: Default::default(),
            ipv6_match: Default::default(),
            ip_length: Default::default(),
            len_high: Default::default(),
            len_low: Default::default(),
            tag_q_mask: std::array::from_fn(|tags| ethertype(tags, 0).mask()),
            tag_q_value: std::array::from_fn(|tags| ethertype(tags, ethernet::TPID_8021Q).value()),
            tag_ad_value: std::array::from_fn(|tags| ethertype(tags, ethernet::TPID_8021AD).value()),
            roce_ipv4_mask: std::array::from_fn(|tags| roce_pattern(tags, false, true).mask()),
            roce_ipv4_value: std::array::from_fn(|tags| roce_pattern(tags, false, true).value()),
            roce_ipv6_mask: std::array::from_fn(|tags| roce_pattern(tags, true, true).mask()),
            roce_ipv6_value: std::array::from_fn(|tags| roce_pattern(tags, true, true).value()),
            ipv6_value: std::array::from_fn(|tags| ethertype(tags, ethernet::ETHERTYPE_IPV6).value()),
            len_high_at: std::array::from_fn(|i| c::<10>(8 * ip_length_field(i).start as u64)),
            len_low_at: std::array::from_fn(|i| c::<10>(8 * (ip_length_field(i).start + 1) as u64)),
            combo1: Default::default(),
            position_offsets1: Default::default(),
            roce1: Default::default(),
            ip_length1: Default::default(),
            valid2: Default::default(),
            data2: Default::default(),
            keep2: Default::default(),
            last2: Default::default(),
            position2: Default::default(),
            byte_count2: Default::default(),
            combo2: Default::default(),
            icrc_end_beat2: Default::default(),
            icrc_end_lane2: Default::default(),
            region_beat2: Default::default(),
            at_beat_k2: Default::default(),
            early2: Default::default(),
            before_last_covered2: Default::default(),
            at_last_covered2: Default::default(),
            past_icrc_end2: Default::default(),
            at_icrc_end2: Default::default(),
            roce2: Default::default(),
            length_ok2: Default::default(),
            last_covered_beat2: Default::default(),
            last_covered_lane2: Default::default(),
            icrc_beat2: Default::default(),
            icrc_next_beat2: Default::default(),
            icrc_lane2: Default::default(),
            prefix2: Default::default(),
            at_least_one_tag: Default::default(),
            at_least_two_tags: Default::default(),
            at_least_three_tags: Default::default(),
            icrc_position: Default::default(),
            last_covered_position: Default::default(),
            icrc_next_beat_position: Default::default(),
            icrc_end_position: Default::default(),
            last_covered_offset: Default::default(),
            icrc_offset: Default::default(),
            icrc_next_beat_offset: Default::default(),
            icrc_end_offset: Default::default(),
            region_beat: Default::default(),
            before_last_covered: Default::default(),
            at_last_covered: Default::default(),
            past_icrc_end: Default::default(),
            at_icrc_end: Default::default(),
            icrc_end_kept: Default::default(),
            byte_count: Default::default(),
            valid3: Default::default(),
            covered_data3: Default::default(),
            prefix3: Default::default(),
            first3: Default::default(),
            covered3: Default::default(),
            last_covered3: Default::default(),
            surplus3: Default::default(),
            data3: Default::default(),
            keep3: Default::default(),
            flags3: Default::default(),
            byte_count3: Default::default(),
            fold3: Default::default(),
            icrc_rotation3: Default::default(),
            header_masked: Default::default(),
            covered_mask: Default::default(),
            wire_icrc_mask: Default::default(),
            wire_icrc_data: Default::default(),
            fold: Default::default(),
            crc_state: Default::default(),
            last_covered4: Default::default(),
            surplus4: Default::default(),
            crc_state_in: Default::default(),
            crc_state_next: Default::default(),
            delay_data: Default::default(),
            delay_keep: Default::default(),
            delay_flags: Default::default(),
            delay_byte_count: Default::default(),
            delay_fold: Default::default(),
            delay_icrc_rotation: Default::default(),
            reverse_state: Default::default(),
            reverse_valid: Default::default(),
            reverse_surplus: Default::default(),
            reverse_step: Default::default(),
            insert_lanes: Default::default(),
            spill_keep: Default::default(),
            spill: Default::default(),
            next_tail_byte_count: Default::default(),
            next_tail_byte_count_9bit: Default::default(),
            insert_lanes_next: Default::default(),
            spill_keep_next: Default::default(),
            t_insert_lanes: Default::default(),
            t_spill_keep: Default::default(),
            t_spill: Default::default(),
        }
    }
}

impl<const W: usize, const K: usize> Logic for IcrcCore<W, K> {
    #[hdl_gen]
    // rust-hdl kernel (Verilog subset): the per-lane `if check { if … }` nests stay as written.
    #[allow(clippy::collapsible_if)]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            position_counter,
            in_frame,
            capture_beat,
            header,
            valid1,
            data1,
            keep1,
            last1,
            position1,
            combo1,
            position_offsets1,
            roce1,
            ip_length1,
            valid2,
            data2,
            keep2,
            last2,
            position2,
            byte_count2,
            combo2,
            roce2,
            length_ok2,
            last_covered_beat2,
            last_covered_lane2,
            icrc_beat2,
            icrc_next_beat2,
            icrc_lane2,
            icrc_end_beat2,
            icrc_end_lane2,
            region_beat2,
            at_beat_k2,
            early2,
            before_last_covered2,
            at_last_covered2,
            past_icrc_end2,
            at_icrc_end2,
            prefix2,
            valid3,
            covered_data3,
            prefix3,
            first3,
            covered3,
            last_covered3,
            surplus3,
            data3,
            keep3,
            flags3,
            byte_count3,
            fold3,
            icrc_rotation3,
            crc_state,
            last_covered4,
            surplus4,
            insert_lanes,
            spill_keep,
            spill
        );
        for q in 0..5 {
            self.delay_data[q].clock.next = self.clock.val();
            self.delay_keep[q].clock.next = self.clock.val();
            self.delay_flags[q].clock.next = self.clock.val();
            self.delay_byte_count[q].clock.next = self.clock.val();
            self.delay_fold[q].clock.next = self.clock.val();
            self.delay_icrc_rotation[q].clock.next = self.clock.val();
            self.delay_data[q].d.next = self.delay_data[q].q.val();
            self.delay_keep[q].d.next = self.delay_keep[q].q.val();
            self.delay_flags[q].d.next = self.delay_flags[q].q.val();
            self.delay_byte_count[q].d.next = self.delay_byte_count[q].q.val();
            self.delay_fold[q].d.next = self.delay_fold[q].q.val();
            self.delay_icrc_rotation[q].d.next = self.delay_icrc_rotation[q].q.val();
        }
        for q in 0..4 {
            self.reverse_state[q].clock.next = self.clock.val();
            self.reverse_valid[q].clock.next = self.clock.val();
            self.reverse_surplus[q].clock.next = self.clock.val();
            self.reverse_state[q].d.next = self.reverse_state[q].q.val();
            self.reverse_valid[q].d.next = self.reverse_valid[q].q.val();
            self.reverse_surplus[q].d.next = self.reverse_surplus[q].q.val();
        }

        // ================= S0 -> S1: register the beat, capture and decode the frame head ======
        self.keep_mask.next = 0.into();
        for i in 0..K {
            if self.in_keep.val().get_bit(i) {
                self.keep_mask.next = self.keep_mask.val() | self.lane_mask[i].val();
            }
        }
        // The frame head including this beat (bytes not yet received read as zero).
        self.header_next.next = self.header.q.val();
        if self.in_valid.val() {
            if !self.in_frame.q.val() {
                self.header_next.next = bit_cast::<HEADER_BITS, W>(self.in_data.val() & self.keep_mask.val());
            }
            for j in 1..Self::CAPTURE_BEATS {
                if self.capture_beat.q.val().get_bit(j) {
                    self.header_next.next = (self.header.q.val() & !self.capture_mask[j].val())
                        | (bit_cast::<HEADER_BITS, W>(self.in_data.val() & self.keep_mask.val()) << self.capture_shift[j].val());
                }
            }
        }
        // classification (the patterns are computed from the contracts)
        self.at_least_one_tag.next = (self.header_next.val() & self.tag_q_mask[0].val()) == self.tag_q_value[0].val()
            || (self.header_next.val() & self.tag_q_mask[0].val()) == self.tag_ad_value[0].val();
        self.at_least_two_tags.next = self.at_least_one_tag.val()
            && ((self.header_next.val() & self.tag_q_mask[1].val()) == self.tag_q_value[1].val()
                || (self.header_next.val() & self.tag_q_mask[1].val()) == self.tag_ad_value[1].val());
        self.at_least_three_tags.next = self.at_least_two_tags.val()
            && ((self.header_next.val() & self.tag_q_mask[2].val()) == self.tag_q_value[2].val()
                || (self.header_next.val() & self.tag_q_mask[2].val()) == self.tag_ad_value[2].val());
        for tags in 0..3 {
            self.roce_ipv4_match[tags].next =
                (self.header_next.val() & self.roce_ipv4_mask[tags].val()) == self.roce_ipv4_value[tags].val();
            self.roce_ipv6_match[tags].next =
                (self.header_next.val() & self.roce_ipv6_mask[tags].val()) == self.roce_ipv6_value[tags].val();
            self.ipv6_match[tags].next = (self.header_next.val() & self.tag_q_mask[tags].val()) == self.ipv6_value[tags].val();
        }
        // IP length fields (big-endian) for each tag count and IP version
        // (bit_cast cannot take a loop index: it is evaluated at elaboration, so each byte goes
        // through a scalar temporary)
        for i in 0..6 {
            self.len_high.next = self.header_next.val().get_bits::<8>(self.len_high_at[i].val().index());
            self.len_low.next = self.header_next.val().get_bits::<8>(self.len_low_at[i].val().index());
            self.ip_length[i].next = (bit_cast::<16, 8>(self.len_high.val()) << 8) | bit_cast::<16, 8>(self.len_low.val());
        }
        if self.en.val() {
            self.valid1.d.next = self.in_valid.val();
            self.data1.d.next = self.in_data.val();
            self.keep1.d.next = self.in_keep.val();
            self.last1.d.next = self.in_last.val();
            self.position1.d.next = self.position_counter.q.val();
            if self.in_valid.val() {
                self.header.d.next = self.header_next.val();
                if self.in_last.val() {
                    self.position_counter.d.next = 0.into();
                    self.in_frame.d.next = false;
                    self.capture_beat.d.next = 0.into();
                } else {
                    self.position_counter.d.next = self.position_counter.q.val() + self.bytes_per_beat.val();
                    self.in_frame.d.next = true;
                    if self.in_frame.q.val() {
                        self.capture_beat.d.next = self.capture_beat.q.val() << 1;
                    } else {
                        self.capture_beat.d.next = 2.into();
                    }
                }
            }
            // combo = L2 select · 2 + IPv6; ip_length[] index = L2 select · 2 + IPv6 as well.
            if self.at_least_two_tags.val() {
                self.roce1.d.next = !self.at_least_three_tags.val() && (self.roce_ipv4_match[2].val() || self.roce_ipv6_match[2].val());
                if self.ipv6_match[2].val() {
                    self.combo1.d.next = 5.into();
                    self.ip_length1.d.next = self.ip_length[5].val();
                    self.position_offsets1.d.next = self.position_offsets[5].val();
                } else {
                    self.combo1.d.next = 4.into();
                    self.ip_length1.d.next = self.ip_length[4].val();
                    self.position_offsets1.d.next = self.position_offsets[4].val();
                }
            } else if self.at_least_one_tag.val() {
                self.roce1.d.next = self.roce_ipv4_match[1].val() || self.roce_ipv6_match[1].val();
                if self.ipv6_match[1].val() {
                    self.combo1.d.next = 3.into();
                    self.ip_length1.d.next = self.ip_length[3].val();
                    self.position_offsets1.d.next = self.position_offsets[3].val();
                } else {
                    self.combo1.d.next = 2.into();
                    self.ip_length1.d.next = self.ip_length[2].val();
                    self.position_offsets1.d.next = self.position_offsets[2].val();
                }
            } else {
                self.roce1.d.next = self.roce_ipv4_match[0].val() || self.roce_ipv6_match[0].val();
                if self.ipv6_match[0].val() {
                    self.combo1.d.next = 1.into();
                    self.ip_length1.d.next = self.ip_length[1].val();
                    self.position_offsets1.d.next = self.position_offsets[1].val();
                } else {
                    self.combo1.d.next = 0.into();
                    self.ip_length1.d.next = self.ip_length[0].val();
                    self.position_offsets1.d.next = self.position_offsets[0].val();
                }
            }
        }

        // ================= S1 -> S2: ICRC positions (parallel adders), beat predicates =========
        // (the offsets were selected with the combination, so the adders start at registers)
        self.last_covered_offset.next = self.position_offsets1.q.val().get_bits::<17>(0);
        self.icrc_offset.next = self.position_offsets1.q.val().get_bits::<17>(17);
        self.icrc_next_beat_offset.next = self.position_offsets1.q.val().get_bits::<17>(34);
        self.icrc_end_offset.next = self.position_offsets1.q.val().get_bits::<17>(51);
        // q - 1, q, q + B, q + 3 where q = l2 + iplen - 4 is the ICRC position.
        self.last_covered_position.next = bit_cast::<17, 16>(self.ip_length1.q.val()) + self.last_covered_offset.val();
        self.icrc_position.next = bit_cast::<17, 16>(self.ip_length1.q.val()) + self.icrc_offset.val();
        self.icrc_next_beat_position.next = bit_cast::<17, 16>(self.ip_length1.q.val()) + self.icrc_next_beat_offset.val();
        self.icrc_end_position.next = bit_cast::<17, 16>(self.ip_length1.q.val()) + self.icrc_end_offset.val();
        // Valid bytes of the S1 beat: from the contiguous keep (one-hot boundary, OR-encoded).
        self.byte_count.next = 0.into();
        for i in 0..Self::LAST_LANE {
            if self.keep1.q.val().get_bit(i) && !self.keep1.q.val().get_bit(i + 1) {
                self.byte_count.next = self.byte_count.val() | self.lane_index[i + 1].val();
            }
        }
        for i in Self::LAST_LANE..Self::BYTES_PER_BEAT {
            if self.keep1.q.val().get_bit(i) {
                self.byte_count.next = self.bytes_per_beat_9bit.val();
            }
        }
        self.region_beat.next = 0.into();
        for j in 0..Self::REGION_BEATS {
            if self.position1.q.val() == self.region_position[j].val() {
                self.region_beat.next = self.region_beat.val().replace_bit(j, true);
            }
        }
        if self.en.val() {
            self.valid2.d.next = self.valid1.q.val();
            self.data2.d.next = self.data1.q.val();
            self.keep2.d.next = self.keep1.q.val();
            self.last2.d.next = self.last1.q.val();
            self.position2.d.next = self.position1.q.val();
            self.byte_count2.d.next = bit_cast::<8, 9>(self.byte_count.val());
            self.combo2.d.next = self.combo1.q.val();
            self.roce2.d.next = self.roce1.q.val();
            if self.combo1.q.val().get_bit(0) {
                self.length_ok2.d.next = self.ip_length1.q.val() >= 24;
            } else {
                self.length_ok2.d.next = self.ip_length1.q.val() >= 44;
            }
            self.last_covered_beat2.d.next = self.last_covered_position.val() & !self.bytes_per_beat_mask.val();
            self.last_covered_lane2.d.next = bit_cast::<9, 17>(self.last_covered_position.val() & self.bytes_per_beat_mask.val());
            self.icrc_beat2.d.next = self.icrc_position.val() & !self.bytes_per_beat_mask.val();
            self.icrc_next_beat2.d.next = self.icrc_next_beat_position.val() & !self.bytes_per_beat_mask.val();
            self.icrc_lane2.d.next = bit_cast::<9, 17>(self.icrc_position.val() & self.bytes_per_beat_mask.val());
            self.icrc_end_beat2.d.next = self.icrc_end_position.val() & !self.bytes_per_beat_mask.val();
            self.icrc_end_lane2.d.next = bit_cast::<9, 17>(self.icrc_end_position.val() & self.bytes_per_beat_mask.val());
            self.prefix2.d.next = bit_cast::<PREFIX_BITS, HEADER_BITS>(self.header.q.val()) & self.prefix_capture_mask.val();
            self.region_beat2.d.next = self.region_beat.val();
            self.at_beat_k2.d.next = self.position1.q.val() == self.beat_k_position.val();
            self.early2.d.next = false;
            for _u in 0..Self::HAS_EARLY {
                self.early2.d.next = self.position1.q.val() < self.beat_k_position.val();
            }
            // Against the previous beat's positions (the same frame from beat K + 1 on); beat K
            // itself compares its fresh positions with constants in S3.
            self.before_last_covered2.d.next = self.position1.q.val() < self.last_covered_beat2.q.val();
            self.at_last_covered2.d.next = self.position1.q.val() == self.last_covered_beat2.q.val();
            self.past_icrc_end2.d.next = self.position1.q.val() > self.icrc_end_beat2.q.val();
            self.at_icrc_end2.d.next = self.position1.q.val() == self.icrc_end_beat2.q.val();
        }

        // ================= S2 -> S3: classify bytes =================
        if self.at_beat_k2.q.val() {
            // Beat K (beat 0 from 256 bits up): a RoCEv2 frame whose IP length is long enough
            // covers beyond beat K's start and ends after it (otherwise the verdict is bad anyway).
            self.before_last_covered.next = self.last_covered_beat2.q.val() != self.beat_k_position.val();
            self.at_last_covered.next = self.last_covered_beat2.q.val() == self.beat_k_position.val();
            self.past_icrc_end.next = false;
            self.at_icrc_end.next = self.icrc_end_beat2.q.val() == self.beat_k_position.val();
        } else {
            self.before_last_covered.next = self.before_last_covered2.q.val();
            self.at_last_covered.next = self.at_last_covered2.q.val();
            self.past_icrc_end.next = self.past_icrc_end2.q.val();
            self.at_icrc_end.next = self.at_icrc_end2.q.val();
        }
        self.header_masked.next = self.data2.q.val();
        for cmb in 0..6 {
            for j in 0..Self::REGION_BEATS {
                if self.combo2.q.val() == self.combo_id[cmb].val() && self.region_beat2.q.val().get_bit(j) {
                    self.header_masked.next =
                        (self.data2.q.val() & self.region_and_mask[cmb * 16 + j].val()) | self.region_or_mask[cmb * 16 + j].val();
                }
            }
        }
        self.covered_mask.next = 0.into();
        self.wire_icrc_mask.next = 0.into();
        self.icrc_end_kept.next = false;
        for i in 0..K {
            if self.icrc_end_lane2.q.val() == self.lane_index[i].val() {
                self.icrc_end_kept.next = self.keep2.q.val().get_bit(i);
            }
        }
        for i in 0..1 {
            if self.check.val() {
                if self.before_last_covered.val() || self.at_last_covered.val() {
                    self.covered_mask.next = self.covered_mask.val() | self.lane_mask[i].val();
                }
            }
        }
        for i in 1..K {
            if self.check.val() {
                if self.before_last_covered.val()
                    || (self.at_last_covered.val() && self.lane_index[i].val() <= self.last_covered_lane2.q.val())
                {
                    self.covered_mask.next = self.covered_mask.val() | self.lane_mask[i].val();
                }
            }
        }
        for i in 0..K {
            if self.check.val() {
                if !self.early2.q.val()
                    && ((self.position2.q.val() == self.icrc_beat2.q.val()
                        && self.lane_index[i].val() >= self.icrc_lane2.q.val()
                        && (self.lane_below_4[i].val() || self.lane_minus_4[i].val() < self.icrc_lane2.q.val()))
                        || (self.position2.q.val() == self.icrc_next_beat2.q.val()
                            && self.lane_plus_beat_minus_4[i].val() < self.icrc_lane2.q.val()))
                {
                    self.wire_icrc_mask.next = self.wire_icrc_mask.val() | self.lane_mask[i].val();
                }
            } else {
                if self.keep2.q.val().get_bit(i) {
                    self.covered_mask.next = self.covered_mask.val() | self.lane_mask[i].val();
                }
            }
        }
        self.wire_icrc_data.next = self.data2.q.val() & self.wire_icrc_mask.val();
        self.fold.next = 0.into();
        for w in 0..Self::WORDS_PER_BEAT {
            self.fold.next = self.fold.val() ^ self.wire_icrc_data.val().get_bits::<32>(w * 32);
        }
        if self.en.val() {
            self.valid3.d.next = self.valid2.q.val();
            if self.early2.q.val() {
                self.covered_data3.d.next = 0.into();
            } else {
                self.covered_data3.d.next = self.header_masked.val() & self.covered_mask.val();
            }
            self.prefix3.d.next = 0.into();
            for _u in 0..Self::HAS_EARLY {
                if self.at_beat_k2.q.val() {
                    self.prefix3.d.next = (self.prefix2.q.val() & self.prefix_and_mask[0].val()) | self.prefix_or_mask[0].val();
                    for cmb in 1..6 {
                        if self.combo2.q.val() == self.combo_id[cmb].val() {
                            self.prefix3.d.next = (self.prefix2.q.val() & self.prefix_and_mask[cmb].val()) | self.prefix_or_mask[cmb].val();
                        }
                    }
                }
            }
            self.first3.d.next = self.region_beat2.q.val().get_bit(0);
            if self.check.val() {
                self.covered3.d.next = self.early2.q.val() || self.before_last_covered.val() || self.at_last_covered.val();
                self.last_covered3.d.next = self.valid2.q.val() && !self.early2.q.val() && self.at_last_covered.val();
                self.surplus3.d.next = bit_cast::<8, 9>(self.last_covered_lane2.q.val()) ^ self.bytes_per_beat_mask_8bit.val();
            } else {
                self.covered3.d.next = true;
                self.last_covered3.d.next = self.valid2.q.val() && self.last2.q.val();
                self.surplus3.d.next = (self.bytes_per_beat_8bit.val() - self.byte_count2.q.val()) & self.bytes_per_beat_mask_8bit.val();
            }
            self.data3.d.next = self.data2.q.val();
            self.keep3.d.next = self.keep2.q.val();
            self.byte_count3.d.next = self.byte_count2.q.val();
            self.fold3.d.next = self.fold.val();
            self.icrc_rotation3.d.next = self.icrc_lane2.q.val().get_bits::<2>(0);
            self.flags3.d.next = bit_cast::<8, 1>(self.last2.q.val().into())
                | (bit_cast::<8, 1>(self.region_beat2.q.val().get_bit(0).into()) << 1)
                | (bit_cast::<8, 1>(self.roce2.q.val().into()) << 2)
                | (bit_cast::<8, 1>(
                    (self.length_ok2.q.val() && (self.past_icrc_end.val() || (self.at_icrc_end.val() && self.icrc_end_kept.val()))).into(),
                ) << 3);
        }

        // ================= S3 -> S4: state update =================
        if self.first3.q.val() {
            self.crc_state_in.next = 0.into();
        } else {
            self.crc_state_in.next = self.crc_state.q.val();
        }
        self.crc_state_next.next = 0.into();
        for i in 0..32 {
            self.crc_state_next.next = self.crc_state_next.val().replace_bit(
                i,
                (self.covered_data3.q.val() & self.data_matrix[i].val()).xor()
                    ^ (self.prefix3.q.val() & self.prefix_matrix[i].val()).xor()
                    ^ (self.crc_state_in.val() & self.state_matrix[i].val()).xor(),
            );
        }
        if self.en.val() {
            if self.valid3.q.val() && self.covered3.q.val() {
                self.crc_state.d.next = self.crc_state_next.val();
            }
            self.last_covered4.d.next = self.valid3.q.val() && self.last_covered3.q.val();
            self.surplus4.d.next = self.surplus3.q.val();
            self.delay_data[0].d.next = self.data3.q.val();
            self.delay_keep[0].d.next = self.keep3.q.val();
            self.delay_byte_count[0].d.next = self.byte_count3.q.val();
            self.delay_fold[0].d.next = self.fold3.q.val();
            self.delay_icrc_rotation[0].d.next = self.icrc_rotation3.q.val();
            self.delay_flags[0].d.next = bit_cast::<8, 1>(self.valid3.q.val().into()) | (self.flags3.q.val() << 1);
        }

        // ================= reversal stages, beat delay =================
        self.reverse_step[0].next = self.crc_state.q.val();
        for u in 0..2 {
            self.reverse_step[u + 1].next = self.reverse_step[u].val();
            if self.surplus4.q.val().get_bit(u) {
                for i in 0..32 {
                    self.reverse_step[u + 1].next = self.reverse_step[u + 1]
                        .val()
                        .replace_bit(i, (self.reverse_step[u].val() & self.reverse_matrix[u * 32 + i].val()).xor());
                }
            }
        }
        if self.en.val() {
            self.reverse_state[0].d.next = self.reverse_step[2].val();
            self.reverse_valid[0].d.next = self.last_covered4.q.val();
            self.reverse_surplus[0].d.next = self.surplus4.q.val();
        }
        for q in 1..4 {
            self.reverse_step[q * 3].next = self.reverse_state[q - 1].q.val();
            for u in 0..2 {
                self.reverse_step[q * 3 + u + 1].next = self.reverse_step[q * 3 + u].val();
                if self.reverse_surplus[q - 1].q.val().get_bit(q * 2 + u) {
                    for i in 0..32 {
                        self.reverse_step[q * 3 + u + 1].next = self.reverse_step[q * 3 + u + 1].val().replace_bit(
                            i,
                            (self.reverse_step[q * 3 + u].val() & self.reverse_matrix[(q * 2 + u) * 32 + i].val()).xor(),
                        );
                    }
                }
            }
            if self.en.val() {
                self.reverse_state[q].d.next = self.reverse_step[q * 3 + 2].val();
                self.reverse_valid[q].d.next = self.reverse_valid[q - 1].q.val();
                self.reverse_surplus[q].d.next = self.reverse_surplus[q - 1].q.val();
            }
        }
        for q in 1..5 {
            if self.en.val() {
                self.delay_data[q].d.next = self.delay_data[q - 1].q.val();
                self.delay_keep[q].d.next = self.delay_keep[q - 1].q.val();
                self.delay_flags[q].d.next = self.delay_flags[q - 1].q.val();
                self.delay_byte_count[q].d.next = self.delay_byte_count[q - 1].q.val();
                self.delay_fold[q].d.next = self.delay_fold[q - 1].q.val();
                self.delay_icrc_rotation[q].d.next = self.delay_icrc_rotation[q - 1].q.val();
            }
        }

        // ================= insert lanes, one stage ahead of the tail =================
        for q in Self::REVERSE_STAGES..Self::REVERSE_STAGES_PLUS_1 {
            self.next_tail_byte_count.next = self.delay_byte_count[q - 1].q.val();
        }
        self.next_tail_byte_count_9bit.next = bit_cast::<9, 8>(self.next_tail_byte_count.val());
        self.insert_lanes_next.next = 0.into();
        self.spill_keep_next.next = 0.into();
        // Lane i takes ICRC byte i - n when n <= i < n + 4, i.e. i >= n and (i < 4 or i - 4 < n);
        // lane i of the extra beat when i + B < n + 4, i.e. i + B - 4 < n. No adder on n.
        for i in 0..K {
            if self.lane_index[i].val() >= self.next_tail_byte_count_9bit.val()
                && (self.lane_below_4[i].val() || self.lane_minus_4[i].val() < self.next_tail_byte_count_9bit.val())
            {
                self.insert_lanes_next.next = self.insert_lanes_next.val().replace_bit(i, true);
            }
            if self.lane_plus_beat_minus_4[i].val() < self.next_tail_byte_count_9bit.val() {
                self.spill_keep_next.next = self.spill_keep_next.val().replace_bit(i, true);
            }
        }
        if self.en.val() {
            self.insert_lanes.d.next = self.insert_lanes_next.val();
            self.spill_keep.d.next = self.spill_keep_next.val();
            self.spill.d.next = self.next_tail_byte_count_9bit.val() > self.bytes_per_beat_minus_4.val();
        }
        self.t_insert_lanes.next = self.insert_lanes.q.val();
        self.t_spill_keep.next = self.spill_keep.q.val();
        self.t_spill.next = self.spill.q.val();

        // ================= early beat (one of S1, S2, S3, chosen at elaboration) =================
        for _u in 0..Self::EARLY_AT_S1 {
            self.early_valid.next = self.valid1.q.val();
            self.early_data.next = self.data1.q.val();
            self.early_keep.next = self.keep1.q.val();
            self.early_last.next = self.last1.q.val();
            self.early_byte_count.next = bit_cast::<8, 9>(self.byte_count.val());
        }
        for _u in 0..Self::EARLY_AT_S2 {
            self.early_valid.next = self.valid2.q.val();
            self.early_data.next = self.data2.q.val();
            self.early_keep.next = self.keep2.q.val();
            self.early_last.next = self.last2.q.val();
            self.early_byte_count.next = self.byte_count2.q.val();
        }
        for _u in 0..Self::EARLY_AT_S3 {
            self.early_valid.next = self.valid3.q.val();
            self.early_data.next = self.data3.q.val();
            self.early_keep.next = self.keep3.q.val();
            self.early_last.next = self.flags3.q.val().get_bit(0);
            self.early_byte_count.next = self.byte_count3.q.val();
        }

        // ================= tail =================
        for q in Self::REVERSE_STAGES..Self::REVERSE_STAGES_PLUS_1 {
            self.t_valid.next = self.delay_flags[q].q.val().get_bit(0);
            self.t_last.next = self.delay_flags[q].q.val().get_bit(1);
            self.t_first.next = self.delay_flags[q].q.val().get_bit(2);
            self.t_roce.next = self.delay_flags[q].q.val().get_bit(3);
            self.t_complete.next = self.delay_flags[q].q.val().get_bit(4);
            self.t_data.next = self.delay_data[q].q.val();
            self.t_keep.next = self.delay_keep[q].q.val();
            self.t_byte_count.next = self.delay_byte_count[q].q.val();
            self.t_fold.next = self.delay_fold[q].q.val();
            self.t_icrc_rotation.next = self.delay_icrc_rotation[q].q.val();
            self.t_crc_valid.next = self.reverse_valid[q - 1].q.val() && self.delay_flags[q].q.val().get_bit(0);
            self.t_crc.next = !self.reverse_state[q - 1].q.val();
        }

        // ================= reset =================
        if self.reset.val() {
            self.position_counter.d.next = 0.into();
            self.in_frame.d.next = false;
            self.capture_beat.d.next = 0.into();
            self.valid1.d.next = false;
            self.valid2.d.next = false;
            self.valid3.d.next = false;
            self.last_covered4.d.next = false;
            for q in 0..5 {
                self.delay_flags[q].d.next = 0.into();
            }
            for q in 0..4 {
                self.reverse_valid[q].d.next = false;
            }
        }
    }
}

/// Byte-lane masks `0xFF << 8i` for lanes `i < K` (zero beyond), and the lane indices.
pub(crate) fn lane_consts<const W: usize, const K: usize>() -> ([Constant<Bits<W>>; 128], [Constant<Bits<9>>; 128]) {
    (
        std::array::from_fn(|i| Constant::new(bits_from::<W>(|k| i < K && k / 8 == i))),
        std::array::from_fn(|i| c::<9>(i as u64)),
    )
}
