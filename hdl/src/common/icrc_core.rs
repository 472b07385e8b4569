//! [`IcrcCore`], the wide-bus ICRC pipeline shared by `IcrcCheck` (RX) and `IcrcInsert` (TX):
//! one beat per cycle, a lock-step pipeline (every register advances on `en`):
//!
//! | stage | work |
//! |---|---|
//! | S1 | input beat registered; the first 66 frame bytes captured into `hdr` and decoded on the way in: L2 length (0–2 VLAN tags), IP version, RoCEv2 (UDP 4791), IP length field |
//! | S2 | ICRC position and its derivatives from four parallel adders (per-(L2, IP version) constants); beat-position compares against the previous beat's positions |
//! | S3 | byte classification: zero before the IP header − 4, `FF` for the 4 bytes before it (the `FF×8` prefix with the init folded in), all-ones in masked fields, data up to the ICRC, zero after it; fold of the wire ICRC lanes |
//! | S4 | `state = A·state ⊕ M·data` (zero-init register, matrices computed from the polynomial) |
//! | R0..R(NR-1) | undo the surplus zero bytes of the last covered beat, two `x^(-8·2^t)` stages per register |
//!
//! The tail of the core (`t_*`) is the beat of stage R(NR-1) with its frame's CRC when that beat
//! is the last covered one. The tops add one output register: latency is `5 + NR` cycles
//! (8 at 256–512 bits), with no bubble between frames.
//!
//! At 64 and 128 bits the first `K·B` bytes (B = bytes per beat, K = beats before byte 27) cannot
//! be classified until byte 27 arrives: they are zeroed in the main path and their contribution is
//! added through a separate prefix matrix at beat K, so no lookahead buffer or stall is needed.

use super::crc;
use super::elab::{bits_from, c, BytePattern};
use ferroce_contracts::icrc::masked_bits;
use ferroce_contracts::{ethernet, ipv4, ipv6, udp};
use rust_hdl::prelude::*;

/// Bytes of the frame head captured for decoding (the UDP destination port of an IPv6 frame with
/// two VLAN tags ends at byte 65).
pub const HDR_BYTES: usize = 66;
const HDR_BITS: usize = HDR_BYTES * 8;
/// Header-prefix register: at most 24 bytes at 64 bits (K = 3 beats of 8 bytes).
const HP_BITS: usize = 192;
/// Header-region masks cover bytes 0..80 (the last masked byte is BTH byte 4 of an IPv6 frame
/// with two VLAN tags: 22 + 40 + 8 + 4 = 74).
const HREGION_BYTES: usize = 80;
/// Header-region masks: 6 (L2, IP version) combinations, stride 16 beats.
const MAX_REGION_ENTRIES: usize = 96;
const MAX_REV_STAGES: usize = 4;

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

/// The ethertype (or TPID) after `tags` VLAN tags equals `value`.
fn ethertype(tags: usize, value: u16) -> BytePattern {
    let at = ethernet::field::ETHERTYPE;
    let shift = ethernet::VLAN_TAG_LEN * tags;
    BytePattern::new().field(at.start + shift..at.end + shift, value.into())
}

/// RoCEv2 after `tags` VLAN tags: the IP ethertype, the IP version (and IHL 5 for IPv4), UDP and
/// the RoCEv2 port.
fn roce_pattern(tags: usize, v6: bool) -> BytePattern {
    let l2 = ethernet::header_len(tags);
    if v6 {
        let udp_at = l2 + ipv6::HEADER_LEN;
        ethertype(tags, ethernet::ETHERTYPE_IPV6)
            .bits(l2, 0xF0, ipv6::VERSION << 4)
            .bits(l2 + ipv6::field::NEXT_HEADER, 0xFF, ipv4::PROTO_UDP)
            .field(
                udp_at + udp::field::DST_PORT.start..udp_at + udp::field::DST_PORT.end,
                udp::ROCEV2_PORT.into(),
            )
    } else {
        let udp_at = l2 + ipv4::HEADER_LEN;
        ethertype(tags, ethernet::ETHERTYPE_IPV4)
            .bits(l2 + ipv4::field::VERSION_IHL, 0xFF, ipv4::VERSION << 4 | ipv4::IHL)
            .bits(l2 + ipv4::field::PROTOCOL, 0xFF, ipv4::PROTO_UDP)
            .field(
                udp_at + udp::field::DST_PORT.start..udp_at + udp::field::DST_PORT.end,
                udp::ROCEV2_PORT.into(),
            )
    }
}

/// Frame bytes of the IP length field `ln[i]`: IPv4 total length (even `i`) or IPv6 payload
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
    pub t_n: Signal<Out, Bits<8>>,
    /// The tail beat's frame is RoCEv2 (final on the last beat).
    pub t_roce: Signal<Out, Bit>,
    /// Check mode: IP length long enough for the headers and the frame holds the whole IP packet
    /// (meaningful on the last beat).
    pub t_complete: Signal<Out, Bit>,
    /// Check mode: XOR fold (32-bit words) of this beat's wire-ICRC bytes.
    pub t_fold: Signal<Out, Bits<32>>,
    /// Check mode: ICRC position mod 4 (rotation of the fold).
    pub t_qrot: Signal<Out, Bits<2>>,
    /// The frame's ICRC (final XOR applied, wire order in bits 7:0 first) is valid with this beat.
    pub t_crc_valid: Signal<Out, Bit>,
    /// The frame's ICRC (see `t_crc_valid`).
    pub t_crc: Signal<Out, Bits<32>>,
    /// Insert mode: lanes of the tail beat that take ICRC bytes (lanes n..n+4 within the beat).
    pub t_ins: Signal<Out, Bits<K>>,
    /// Insert mode: lanes of the extra beat that take the ICRC bytes spilling past the beat.
    pub t_spill_keep: Signal<Out, Bits<K>>,
    /// Insert mode: the ICRC does not fit in the tail beat (n + 4 > B).
    pub t_spill: Signal<Out, Bit>,

    // ---- configuration constants (computed in Rust at elaboration) ----
    check: Constant<Bit>,
    cb: Constant<Bits<17>>,        // B
    cbmask: Constant<Bits<17>>,    // B - 1
    cb8: Constant<Bits<8>>,        // B as 8 bits
    cb9: Constant<Bits<9>>,        // B as 9 bits
    cbm4: Constant<Bits<9>>,       // B - 4
    cbm8: Constant<Bits<8>>,       // B - 1 as 8 bits
    cinfo_pos: Constant<Bits<17>>, // first beat position whose decode is complete (K·B)
    lane: [Constant<Bits<W>>; 128],
    lane_idx: [Constant<Bits<9>>; 128],
    cap_pos: [Constant<Bits<17>>; 16],
    cap_shift: [Constant<Bits<16>>; 16],
    cap_mask: [Constant<Bits<HDR_BITS>>; 16],
    reg_pos: [Constant<Bits<17>>; 16],
    kqm1: [Constant<Bits<17>>; 6],
    kq: [Constant<Bits<17>>; 6],
    kqb: [Constant<Bits<17>>; 6],
    kem1: [Constant<Bits<17>>; 6],
    lane_lt4: [Constant<Bit>; 128],
    lane_m4: [Constant<Bits<9>>; 128],
    lane_bm4: [Constant<Bits<9>>; 128],
    reg_and: [Constant<Bits<W>>; MAX_REGION_ENTRIES],
    reg_or: [Constant<Bits<W>>; MAX_REGION_ENTRIES],
    hp_and: [Constant<Bits<HP_BITS>>; 6],
    hp_or: [Constant<Bits<HP_BITS>>; 6],
    hp_cap: Constant<Bits<HP_BITS>>, // which hdr bits form the prefix
    combo_c: [Constant<Bits<3>>; 6],
    m_data: [Constant<Bits<W>>; 32],
    m_hp: [Constant<Bits<HP_BITS>>; 32],
    m_state: [Constant<Bits<32>>; 32],
    m_rev: [Constant<Bits<32>>; 256],

    // ---- S0/S1 ----
    posc: DFF<Bits<17>>,
    hdr: DFF<Bits<HDR_BITS>>,
    v1: DFF<Bit>,
    d1: DFF<Bits<W>>,
    k1: DFF<Bits<K>>,
    l1: DFF<Bit>,
    p1: DFF<Bits<17>>,
    keepm: Signal<Local, Bits<W>>,
    hn: Signal<Local, Bits<HDR_BITS>>,
    r4: [Signal<Local, Bit>; 3],
    r6: [Signal<Local, Bit>; 3],
    e6: [Signal<Local, Bit>; 3],
    ln: [Signal<Local, Bits<16>>; 6],
    len_high: Signal<Local, Bits<8>>,
    len_low: Signal<Local, Bits<8>>,
    // Classification patterns per VLAN tag count (0, 1, 2), compared as `(hn & mask) == value`
    // with constants computed from the header contracts: a VLAN TPID (802.1Q or 802.1ad) where
    // the ethertype would be; RoCEv2 over IPv4 (ethertype, version 4 / IHL 5, UDP, port 4791);
    // RoCEv2 over IPv6 (ethertype, version 6, UDP, port 4791); an IPv6 ethertype.
    tag_q_mask: [Constant<Bits<HDR_BITS>>; 3],
    tag_q_value: [Constant<Bits<HDR_BITS>>; 3],
    tag_ad_value: [Constant<Bits<HDR_BITS>>; 3],
    roce4_mask: [Constant<Bits<HDR_BITS>>; 3],
    roce4_value: [Constant<Bits<HDR_BITS>>; 3],
    roce6_mask: [Constant<Bits<HDR_BITS>>; 3],
    roce6_value: [Constant<Bits<HDR_BITS>>; 3],
    ipv6_value: [Constant<Bits<HDR_BITS>>; 3],
    /// Bit positions of the high and low bytes of the IP length fields `ln[i]`: IPv4 total
    /// length (even i) and IPv6 payload length (odd i) for i / 2 VLAN tags.
    len_high_at: [Constant<Bits<10>>; 6],
    len_low_at: [Constant<Bits<10>>; 6],
    combo1: DFF<Bits<3>>,
    roce1: DFF<Bit>,
    len1: DFF<Bits<16>>,
    // ---- S2 ----
    v2: DFF<Bit>,
    d2: DFF<Bits<W>>,
    k2: DFF<Bits<K>>,
    l2: DFF<Bit>,
    p2: DFF<Bits<17>>,
    n2: DFF<Bits<8>>,
    combo2: DFF<Bits<3>>,
    epos2: DFF<Bits<17>>, // position of the beat holding the last ICRC byte
    el2: DFF<Bits<9>>,    // its lane
    rb2: DFF<Bits<16>>,   // one-hot: beat j of the header region
    atk2: DFF<Bit>,       // beat K (the first with a complete decode)
    early2: DFF<Bit>,     // a beat before beat K
    lt2: DFF<Bit>,
    eq2: DFF<Bit>,
    gte2: DFF<Bit>,
    eqe2: DFF<Bit>,
    roce2: DFF<Bit>,
    lenok2: DFF<Bit>,
    lcpos2: DFF<Bits<17>>, // position of the last covered beat
    mlow2: DFF<Bits<9>>,   // last covered lane in it
    qpos2: DFF<Bits<17>>,  // position of the beat holding the first ICRC byte
    qposb2: DFF<Bits<17>>, // ... plus B
    ql2: DFF<Bits<9>>,     // ICRC lane
    hp2: DFF<Bits<HP_BITS>>,
    // S1->S2 decode temporaries
    vl1: Signal<Local, Bit>,
    vl2: Signal<Local, Bit>,
    vl3: Signal<Local, Bit>,
    qv: Signal<Local, Bits<17>>,
    qm1v: Signal<Local, Bits<17>>,
    qbv: Signal<Local, Bits<17>>,
    em1v: Signal<Local, Bits<17>>,
    ka: Signal<Local, Bits<17>>,
    kb: Signal<Local, Bits<17>>,
    kc: Signal<Local, Bits<17>>,
    kd: Signal<Local, Bits<17>>,
    rbv: Signal<Local, Bits<16>>,
    lt: Signal<Local, Bit>,
    eq: Signal<Local, Bit>,
    gte: Signal<Local, Bit>,
    eqe: Signal<Local, Bit>,
    kbit: Signal<Local, Bit>,
    nv: Signal<Local, Bits<9>>,
    // ---- S3 ----
    v3: DFF<Bit>,
    dm3: DFF<Bits<W>>, // classified data
    hp3: DFF<Bits<HP_BITS>>,
    first3: DFF<Bit>,
    cov3: DFF<Bit>,
    lc3: DFF<Bit>,
    s3: DFF<Bits<8>>,
    raw3: DFF<Bits<W>>,
    k3: DFF<Bits<K>>,
    x3: DFF<Bits<8>>, // flags: 0 last, 1 first, 2 roce, 3 complete
    n3: DFF<Bits<8>>,
    f3: DFF<Bits<32>>,
    qr3: DFF<Bits<2>>,
    xm: Signal<Local, Bits<W>>,
    covm: Signal<Local, Bits<W>>,
    wm: Signal<Local, Bits<W>>,
    wd: Signal<Local, Bits<W>>,
    fold: Signal<Local, Bits<32>>,
    // ---- S4 ----
    st: DFF<Bits<32>>,
    lc4: DFF<Bit>,
    s4: DFF<Bits<8>>,
    stx: Signal<Local, Bits<32>>,
    nxt: Signal<Local, Bits<32>>,
    // ---- beat delay S4..R(NR-1): index 0 = S4, q + 1 = R(q) ----
    bd: [DFF<Bits<W>>; 5],
    bk: [DFF<Bits<K>>; 5],
    bx: [DFF<Bits<8>>; 5], // 0 valid, 1 last, 2 first, 3 roce, 4 complete
    bn: [DFF<Bits<8>>; 5],
    bf: [DFF<Bits<32>>; 5],
    bq: [DFF<Bits<2>>; 5],
    // ---- reversal ----
    rv: [DFF<Bits<32>>; MAX_REV_STAGES],
    rvv: [DFF<Bit>; MAX_REV_STAGES],
    rs: [DFF<Bits<8>>; MAX_REV_STAGES],
    rt: [Signal<Local, Bits<32>>; 12],
    // insert lanes for the tail beat, registered with it
    ins_t: DFF<Bits<K>>,
    spk_t: DFF<Bits<K>>,
    sp_t: DFF<Bit>,
    nt: Signal<Local, Bits<8>>,
    n9: Signal<Local, Bits<9>>,
    insv: Signal<Local, Bits<K>>,
    spkv: Signal<Local, Bits<K>>,
}

impl<const W: usize, const K: usize> IcrcCore<W, K> {
    /// log2 of the bytes per beat.
    pub const LG: usize = K.trailing_zeros() as usize;
    /// Register stages of the surplus-byte reversal.
    pub const NR: usize = Self::LG.div_ceil(2);
    /// Beats before the one holding byte 27 (the last byte the classification depends on).
    pub const KH: usize = 27 / K;
    const KB: usize = K;
    /// 1 when some beats precede byte 27 (64 and 128 bits), else 0 (a loop bound).
    const HAS_EARLY: usize = (27 / K > 0) as usize;
    const KM1: usize = K - 1;
    const KW: usize = K / 4;
    const NR1: usize = Self::NR + 1;
    /// Header capture beats.
    pub const NCAP: usize = HDR_BYTES.div_ceil(K);
    /// Beats of the header region (bytes 0..80).
    pub const NRB: usize = HREGION_BYTES.div_ceil(K);

    /// A core in check mode (`check`, for `IcrcCheck`) or insert mode (for `IcrcInsert`).
    pub fn new(check: bool) -> Self {
        assert_eq!(W, 8 * K, "K must be W / 8");
        assert!(K.is_power_of_two() && (8..=128).contains(&K), "bus width 64..1024 bits");
        let b = K;
        let kh = Self::KH;
        let hp_bytes = kh * b; // 0 when byte 27 is in beat 0
        assert!(hp_bytes * 8 <= HP_BITS);
        assert!(Self::NRB <= 16 && Self::NR <= MAX_REV_STAGES);

        let (lane, lane_idx) = lane_consts::<W, K>();
        let cap_pos = std::array::from_fn(|j| c::<17>(if j < Self::NCAP { (j * b) as u64 } else { 0x1FFFF }));
        let cap_shift = std::array::from_fn(|j| c::<16>((j * W).min(HDR_BITS) as u64));
        let cap_mask =
            std::array::from_fn(|j| Constant::new(bits_from::<HDR_BITS>(|k| j < Self::NCAP && k / 8 >= j * b && k / 8 < (j + 1) * b)));

        // Header-region classification per (combo, beat): entry combo * 16 + beat.
        let nbeats = Self::NRB;
        let cls = |combo: usize, j: usize, k: usize| {
            let (l2, v6) = combo_params(combo);
            let p = j * b + k / 8;
            if j >= nbeats {
                (0xFFu8, 0u8)
            } else if p < hp_bytes {
                (0u8, 0u8) // carried by the header prefix instead
            } else {
                header_byte_class(p, l2, v6)
            }
        };
        let reg_and = std::array::from_fn(|e| Constant::new(bits_from::<W>(|k| (cls(e / 16, e % 16, k).0 >> (k % 8)) & 1 != 0)));
        let reg_or = std::array::from_fn(|e| Constant::new(bits_from::<W>(|k| (cls(e / 16, e % 16, k).1 >> (k % 8)) & 1 != 0)));
        let reg_pos = std::array::from_fn(|j| c::<17>(if j < nbeats { (j * b) as u64 } else { 0x1FFFF }));
        // ICRC position q = l2 + iplen - 4 = length field + (l2 - 4) (+ 40 for IPv6).
        let kq_of = |combo: usize| {
            let (l2, v6) = combo_params(combo);
            (l2 - 4 + if v6 { 40 } else { 0 }) as u64
        };
        let kqm1 = std::array::from_fn(|cmb| c::<17>(kq_of(cmb) - 1));
        let kq = std::array::from_fn(|cmb| c::<17>(kq_of(cmb)));
        let kqb = std::array::from_fn(|cmb| c::<17>(kq_of(cmb) + b as u64));
        let kem1 = std::array::from_fn(|cmb| c::<17>(kq_of(cmb) + 3));
        let lane_lt4 = std::array::from_fn(|i| Constant::new(i < 4));
        let lane_m4 = std::array::from_fn(|i| c::<9>(i.saturating_sub(4) as u64));
        let lane_bm4 = std::array::from_fn(|i| c::<9>((i + b - 4) as u64));
        let hp_and = std::array::from_fn(|combo| {
            let (l2, v6) = combo_params(combo);
            Constant::new(bits_from::<HP_BITS>(|k| {
                k / 8 < hp_bytes && (header_byte_class(k / 8, l2, v6).0 >> (k % 8)) & 1 != 0
            }))
        });
        let hp_or = std::array::from_fn(|combo| {
            let (l2, v6) = combo_params(combo);
            Constant::new(bits_from::<HP_BITS>(|k| {
                k / 8 < hp_bytes && (header_byte_class(k / 8, l2, v6).1 >> (k % 8)) & 1 != 0
            }))
        });
        let hp_cap = Constant::new(bits_from::<HP_BITS>(|k| k / 8 < hp_bytes));

        let md = crc::data_rows(W, 0);
        let m_data = std::array::from_fn(|i| Constant::new(bits_from::<W>(|k| md[i][k])));
        // Only the first hp_bytes of the prefix are real; the prefix is fed right before beat K.
        let m_hp = std::array::from_fn(|i| {
            Constant::new(bits_from::<HP_BITS>(|k| {
                k < hp_bytes * 8 && {
                    // prefix bit k followed by (hp_bytes*8 - 1 - k) prefix bits and W beat bits
                    let s = crc::zeros(crc::step_bit(0, true), hp_bytes * 8 - 1 - k + W);
                    (s >> i) & 1 != 0
                }
            }))
        });
        let ms = crc::state_rows(b);
        let m_state = std::array::from_fn(|i| c::<32>(ms[i] as u64));
        let m_rev = std::array::from_fn(|ti| {
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
            t_valid: Default::default(),
            t_data: Default::default(),
            t_keep: Default::default(),
            t_last: Default::default(),
            t_first: Default::default(),
            t_n: Default::default(),
            t_roce: Default::default(),
            t_complete: Default::default(),
            t_fold: Default::default(),
            t_qrot: Default::default(),
            t_crc_valid: Default::default(),
            t_crc: Default::default(),
            check: Constant::new(check),
            cb: c::<17>(b as u64),
            cbmask: c::<17>((b - 1) as u64),
            cb8: c::<8>(b as u64),
            cb9: c::<9>(b as u64),
            cbm4: c::<9>((b - 4) as u64),
            cbm8: c::<8>((b - 1) as u64),
            cinfo_pos: c::<17>((kh * b) as u64),
            lane,
            lane_idx,
            cap_pos,
            cap_shift,
            cap_mask,
            reg_pos,
            reg_and,
            reg_or,
            kqm1,
            kq,
            kqb,
            kem1,
            lane_lt4,
            lane_m4,
            lane_bm4,
            hp_and,
            hp_or,
            hp_cap,
            combo_c: std::array::from_fn(|i| c::<3>(i as u64)),
            m_data,
            m_hp,
            m_state,
            m_rev,
            posc: Default::default(),
            hdr: Default::default(),
            v1: Default::default(),
            d1: Default::default(),
            k1: Default::default(),
            l1: Default::default(),
            p1: Default::default(),
            keepm: Default::default(),
            hn: Default::default(),
            r4: Default::default(),
            r6: Default::default(),
            e6: Default::default(),
            ln: Default::default(),
            len_high: Default::default(),
            len_low: Default::default(),
            tag_q_mask: std::array::from_fn(|tags| ethertype(tags, 0).mask()),
            tag_q_value: std::array::from_fn(|tags| ethertype(tags, ethernet::TPID_8021Q).value()),
            tag_ad_value: std::array::from_fn(|tags| ethertype(tags, ethernet::TPID_8021AD).value()),
            roce4_mask: std::array::from_fn(|tags| roce_pattern(tags, false).mask()),
            roce4_value: std::array::from_fn(|tags| roce_pattern(tags, false).value()),
            roce6_mask: std::array::from_fn(|tags| roce_pattern(tags, true).mask()),
            roce6_value: std::array::from_fn(|tags| roce_pattern(tags, true).value()),
            ipv6_value: std::array::from_fn(|tags| ethertype(tags, ethernet::ETHERTYPE_IPV6).value()),
            len_high_at: std::array::from_fn(|i| c::<10>(8 * ip_length_field(i).start as u64)),
            len_low_at: std::array::from_fn(|i| c::<10>(8 * (ip_length_field(i).start + 1) as u64)),
            combo1: Default::default(),
            roce1: Default::default(),
            len1: Default::default(),
            v2: Default::default(),
            d2: Default::default(),
            k2: Default::default(),
            l2: Default::default(),
            p2: Default::default(),
            n2: Default::default(),
            combo2: Default::default(),
            epos2: Default::default(),
            el2: Default::default(),
            rb2: Default::default(),
            atk2: Default::default(),
            early2: Default::default(),
            lt2: Default::default(),
            eq2: Default::default(),
            gte2: Default::default(),
            eqe2: Default::default(),
            roce2: Default::default(),
            lenok2: Default::default(),
            lcpos2: Default::default(),
            mlow2: Default::default(),
            qpos2: Default::default(),
            qposb2: Default::default(),
            ql2: Default::default(),
            hp2: Default::default(),
            vl1: Default::default(),
            vl2: Default::default(),
            vl3: Default::default(),
            qv: Default::default(),
            qm1v: Default::default(),
            qbv: Default::default(),
            em1v: Default::default(),
            ka: Default::default(),
            kb: Default::default(),
            kc: Default::default(),
            kd: Default::default(),
            rbv: Default::default(),
            lt: Default::default(),
            eq: Default::default(),
            gte: Default::default(),
            eqe: Default::default(),
            kbit: Default::default(),
            nv: Default::default(),
            v3: Default::default(),
            dm3: Default::default(),
            hp3: Default::default(),
            first3: Default::default(),
            cov3: Default::default(),
            lc3: Default::default(),
            s3: Default::default(),
            raw3: Default::default(),
            k3: Default::default(),
            x3: Default::default(),
            n3: Default::default(),
            f3: Default::default(),
            qr3: Default::default(),
            xm: Default::default(),
            covm: Default::default(),
            wm: Default::default(),
            wd: Default::default(),
            fold: Default::default(),
            st: Default::default(),
            lc4: Default::default(),
            s4: Default::default(),
            stx: Default::default(),
            nxt: Default::default(),
            bd: Default::default(),
            bk: Default::default(),
            bx: Default::default(),
            bn: Default::default(),
            bf: Default::default(),
            bq: Default::default(),
            rv: Default::default(),
            rvv: Default::default(),
            rs: Default::default(),
            rt: Default::default(),
            ins_t: Default::default(),
            spk_t: Default::default(),
            sp_t: Default::default(),
            nt: Default::default(),
            n9: Default::default(),
            insv: Default::default(),
            spkv: Default::default(),
            t_ins: Default::default(),
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
            self, clock, posc, hdr, v1, d1, k1, l1, p1, combo1, roce1, len1, v2, d2, k2, l2, p2, n2, combo2, roce2, lenok2, lcpos2, mlow2,
            qpos2, qposb2, ql2, epos2, el2, rb2, atk2, early2, lt2, eq2, gte2, eqe2, hp2, v3, dm3, hp3, first3, cov3, lc3, s3, raw3, k3,
            x3, n3, f3, qr3, st, lc4, s4, ins_t, spk_t, sp_t
        );
        for q in 0..5 {
            self.bd[q].clock.next = self.clock.val();
            self.bk[q].clock.next = self.clock.val();
            self.bx[q].clock.next = self.clock.val();
            self.bn[q].clock.next = self.clock.val();
            self.bf[q].clock.next = self.clock.val();
            self.bq[q].clock.next = self.clock.val();
            self.bd[q].d.next = self.bd[q].q.val();
            self.bk[q].d.next = self.bk[q].q.val();
            self.bx[q].d.next = self.bx[q].q.val();
            self.bn[q].d.next = self.bn[q].q.val();
            self.bf[q].d.next = self.bf[q].q.val();
            self.bq[q].d.next = self.bq[q].q.val();
        }
        for q in 0..4 {
            self.rv[q].clock.next = self.clock.val();
            self.rvv[q].clock.next = self.clock.val();
            self.rs[q].clock.next = self.clock.val();
            self.rv[q].d.next = self.rv[q].q.val();
            self.rvv[q].d.next = self.rvv[q].q.val();
            self.rs[q].d.next = self.rs[q].q.val();
        }

        // ================= S0 -> S1: register the beat, capture and decode the frame head ======
        self.keepm.next = 0.into();
        for i in 0..K {
            if self.in_keep.val().get_bit(i) {
                self.keepm.next = self.keepm.val() | self.lane[i].val();
            }
        }
        // hn: the frame head including this beat (bytes not yet received read as zero).
        self.hn.next = self.hdr.q.val();
        if self.in_valid.val() {
            if self.posc.q.val() == 0 {
                self.hn.next = bit_cast::<HDR_BITS, W>(self.in_data.val() & self.keepm.val());
            }
            for j in 1..Self::NCAP {
                if self.posc.q.val() == self.cap_pos[j].val() {
                    self.hn.next = (self.hdr.q.val() & !self.cap_mask[j].val())
                        | (bit_cast::<HDR_BITS, W>(self.in_data.val() & self.keepm.val()) << self.cap_shift[j].val());
                }
            }
        }
        // classification (the patterns are computed from the contracts)
        self.vl1.next = (self.hn.val() & self.tag_q_mask[0].val()) == self.tag_q_value[0].val()
            || (self.hn.val() & self.tag_q_mask[0].val()) == self.tag_ad_value[0].val();
        self.vl2.next = self.vl1.val()
            && ((self.hn.val() & self.tag_q_mask[1].val()) == self.tag_q_value[1].val()
                || (self.hn.val() & self.tag_q_mask[1].val()) == self.tag_ad_value[1].val());
        self.vl3.next = self.vl2.val()
            && ((self.hn.val() & self.tag_q_mask[2].val()) == self.tag_q_value[2].val()
                || (self.hn.val() & self.tag_q_mask[2].val()) == self.tag_ad_value[2].val());
        for tags in 0..3 {
            self.r4[tags].next = (self.hn.val() & self.roce4_mask[tags].val()) == self.roce4_value[tags].val();
            self.r6[tags].next = (self.hn.val() & self.roce6_mask[tags].val()) == self.roce6_value[tags].val();
            self.e6[tags].next = (self.hn.val() & self.tag_q_mask[tags].val()) == self.ipv6_value[tags].val();
        }
        // IP length fields (big-endian) for each tag count and IP version
        // (bit_cast cannot take a loop index: it is evaluated at elaboration, so each byte goes
        // through a scalar temporary)
        for i in 0..6 {
            self.len_high.next = self.hn.val().get_bits::<8>(self.len_high_at[i].val().index());
            self.len_low.next = self.hn.val().get_bits::<8>(self.len_low_at[i].val().index());
            self.ln[i].next = (bit_cast::<16, 8>(self.len_high.val()) << 8) | bit_cast::<16, 8>(self.len_low.val());
        }
        if self.en.val() {
            self.v1.d.next = self.in_valid.val();
            self.d1.d.next = self.in_data.val();
            self.k1.d.next = self.in_keep.val();
            self.l1.d.next = self.in_last.val();
            self.p1.d.next = self.posc.q.val();
            if self.in_valid.val() {
                self.hdr.d.next = self.hn.val();
                if self.in_last.val() {
                    self.posc.d.next = 0.into();
                } else {
                    self.posc.d.next = self.posc.q.val() + self.cb.val();
                }
            }
            // combo = L2 select · 2 + IPv6; ln[] index = L2 select · 2 + IPv6 as well.
            if self.vl2.val() {
                self.roce1.d.next = !self.vl3.val() && (self.r4[2].val() || self.r6[2].val());
                if self.e6[2].val() {
                    self.combo1.d.next = 5.into();
                    self.len1.d.next = self.ln[5].val();
                } else {
                    self.combo1.d.next = 4.into();
                    self.len1.d.next = self.ln[4].val();
                }
            } else if self.vl1.val() {
                self.roce1.d.next = self.r4[1].val() || self.r6[1].val();
                if self.e6[1].val() {
                    self.combo1.d.next = 3.into();
                    self.len1.d.next = self.ln[3].val();
                } else {
                    self.combo1.d.next = 2.into();
                    self.len1.d.next = self.ln[2].val();
                }
            } else {
                self.roce1.d.next = self.r4[0].val() || self.r6[0].val();
                if self.e6[0].val() {
                    self.combo1.d.next = 1.into();
                    self.len1.d.next = self.ln[1].val();
                } else {
                    self.combo1.d.next = 0.into();
                    self.len1.d.next = self.ln[0].val();
                }
            }
        }

        // ================= S1 -> S2: ICRC positions (parallel adders), beat predicates =========
        self.ka.next = self.kqm1[0].val();
        self.kb.next = self.kq[0].val();
        self.kc.next = self.kqb[0].val();
        self.kd.next = self.kem1[0].val();
        for cmb in 1..6 {
            if self.combo1.q.val() == self.combo_c[cmb].val() {
                self.ka.next = self.kqm1[cmb].val();
                self.kb.next = self.kq[cmb].val();
                self.kc.next = self.kqb[cmb].val();
                self.kd.next = self.kem1[cmb].val();
            }
        }
        // q - 1, q, q + B, q + 3 where q = l2 + iplen - 4 is the ICRC position.
        self.qm1v.next = bit_cast::<17, 16>(self.len1.q.val()) + self.ka.val();
        self.qv.next = bit_cast::<17, 16>(self.len1.q.val()) + self.kb.val();
        self.qbv.next = bit_cast::<17, 16>(self.len1.q.val()) + self.kc.val();
        self.em1v.next = bit_cast::<17, 16>(self.len1.q.val()) + self.kd.val();
        // Valid bytes of the S1 beat: from the contiguous keep (one-hot boundary, OR-encoded).
        self.nv.next = 0.into();
        for i in 0..Self::KM1 {
            if self.k1.q.val().get_bit(i) && !self.k1.q.val().get_bit(i + 1) {
                self.nv.next = self.nv.val() | self.lane_idx[i + 1].val();
            }
        }
        for i in Self::KM1..Self::KB {
            if self.k1.q.val().get_bit(i) {
                self.nv.next = self.cb9.val();
            }
        }
        self.rbv.next = 0.into();
        for j in 0..Self::NRB {
            if self.p1.q.val() == self.reg_pos[j].val() {
                self.rbv.next = self.rbv.val().replace_bit(j, true);
            }
        }
        if self.en.val() {
            self.v2.d.next = self.v1.q.val();
            self.d2.d.next = self.d1.q.val();
            self.k2.d.next = self.k1.q.val();
            self.l2.d.next = self.l1.q.val();
            self.p2.d.next = self.p1.q.val();
            self.n2.d.next = bit_cast::<8, 9>(self.nv.val());
            self.combo2.d.next = self.combo1.q.val();
            self.roce2.d.next = self.roce1.q.val();
            if self.combo1.q.val().get_bit(0) {
                self.lenok2.d.next = self.len1.q.val() >= 24;
            } else {
                self.lenok2.d.next = self.len1.q.val() >= 44;
            }
            self.lcpos2.d.next = self.qm1v.val() & !self.cbmask.val();
            self.mlow2.d.next = bit_cast::<9, 17>(self.qm1v.val() & self.cbmask.val());
            self.qpos2.d.next = self.qv.val() & !self.cbmask.val();
            self.qposb2.d.next = self.qbv.val() & !self.cbmask.val();
            self.ql2.d.next = bit_cast::<9, 17>(self.qv.val() & self.cbmask.val());
            self.epos2.d.next = self.em1v.val() & !self.cbmask.val();
            self.el2.d.next = bit_cast::<9, 17>(self.em1v.val() & self.cbmask.val());
            self.hp2.d.next = bit_cast::<HP_BITS, HDR_BITS>(self.hdr.q.val()) & self.hp_cap.val();
            self.rb2.d.next = self.rbv.val();
            self.atk2.d.next = self.p1.q.val() == self.cinfo_pos.val();
            self.early2.d.next = false;
            for _u in 0..Self::HAS_EARLY {
                self.early2.d.next = self.p1.q.val() < self.cinfo_pos.val();
            }
            // Against the previous beat's positions (the same frame from beat K + 1 on); beat K
            // itself compares its fresh positions with constants in S3.
            self.lt2.d.next = self.p1.q.val() < self.lcpos2.q.val();
            self.eq2.d.next = self.p1.q.val() == self.lcpos2.q.val();
            self.gte2.d.next = self.p1.q.val() > self.epos2.q.val();
            self.eqe2.d.next = self.p1.q.val() == self.epos2.q.val();
        }

        // ================= S2 -> S3: classify bytes =================
        if self.atk2.q.val() {
            // Beat K (beat 0 from 256 bits up): a RoCEv2 frame whose IP length is long enough
            // covers beyond beat K's start and ends after it (otherwise the verdict is bad anyway).
            self.lt.next = self.lcpos2.q.val() != self.cinfo_pos.val();
            self.eq.next = self.lcpos2.q.val() == self.cinfo_pos.val();
            self.gte.next = false;
            self.eqe.next = self.epos2.q.val() == self.cinfo_pos.val();
        } else {
            self.lt.next = self.lt2.q.val();
            self.eq.next = self.eq2.q.val();
            self.gte.next = self.gte2.q.val();
            self.eqe.next = self.eqe2.q.val();
        }
        self.xm.next = self.d2.q.val();
        for cmb in 0..6 {
            for j in 0..Self::NRB {
                if self.combo2.q.val() == self.combo_c[cmb].val() && self.rb2.q.val().get_bit(j) {
                    self.xm.next = (self.d2.q.val() & self.reg_and[cmb * 16 + j].val()) | self.reg_or[cmb * 16 + j].val();
                }
            }
        }
        self.covm.next = 0.into();
        self.wm.next = 0.into();
        self.kbit.next = false;
        for i in 0..K {
            if self.el2.q.val() == self.lane_idx[i].val() {
                self.kbit.next = self.k2.q.val().get_bit(i);
            }
        }
        for i in 0..1 {
            if self.check.val() {
                if self.lt.val() || self.eq.val() {
                    self.covm.next = self.covm.val() | self.lane[i].val();
                }
            }
        }
        for i in 1..K {
            if self.check.val() {
                if self.lt.val() || (self.eq.val() && self.lane_idx[i].val() <= self.mlow2.q.val()) {
                    self.covm.next = self.covm.val() | self.lane[i].val();
                }
            }
        }
        for i in 0..K {
            if self.check.val() {
                if !self.early2.q.val()
                    && ((self.p2.q.val() == self.qpos2.q.val()
                        && self.lane_idx[i].val() >= self.ql2.q.val()
                        && (self.lane_lt4[i].val() || self.lane_m4[i].val() < self.ql2.q.val()))
                        || (self.p2.q.val() == self.qposb2.q.val() && self.lane_bm4[i].val() < self.ql2.q.val()))
                {
                    self.wm.next = self.wm.val() | self.lane[i].val();
                }
            } else {
                if self.k2.q.val().get_bit(i) {
                    self.covm.next = self.covm.val() | self.lane[i].val();
                }
            }
        }
        self.wd.next = self.d2.q.val() & self.wm.val();
        self.fold.next = 0.into();
        for w in 0..Self::KW {
            self.fold.next = self.fold.val() ^ self.wd.val().get_bits::<32>(w * 32);
        }
        if self.en.val() {
            self.v3.d.next = self.v2.q.val();
            if self.early2.q.val() {
                self.dm3.d.next = 0.into();
            } else {
                self.dm3.d.next = self.xm.val() & self.covm.val();
            }
            self.hp3.d.next = 0.into();
            for _u in 0..Self::HAS_EARLY {
                if self.atk2.q.val() {
                    self.hp3.d.next = (self.hp2.q.val() & self.hp_and[0].val()) | self.hp_or[0].val();
                    for cmb in 1..6 {
                        if self.combo2.q.val() == self.combo_c[cmb].val() {
                            self.hp3.d.next = (self.hp2.q.val() & self.hp_and[cmb].val()) | self.hp_or[cmb].val();
                        }
                    }
                }
            }
            self.first3.d.next = self.rb2.q.val().get_bit(0);
            if self.check.val() {
                self.cov3.d.next = self.early2.q.val() || self.lt.val() || self.eq.val();
                self.lc3.d.next = self.v2.q.val() && !self.early2.q.val() && self.eq.val();
                self.s3.d.next = bit_cast::<8, 9>(self.mlow2.q.val()) ^ self.cbm8.val();
            } else {
                self.cov3.d.next = true;
                self.lc3.d.next = self.v2.q.val() && self.l2.q.val();
                self.s3.d.next = (self.cb8.val() - self.n2.q.val()) & self.cbm8.val();
            }
            self.raw3.d.next = self.d2.q.val();
            self.k3.d.next = self.k2.q.val();
            self.n3.d.next = self.n2.q.val();
            self.f3.d.next = self.fold.val();
            self.qr3.d.next = self.ql2.q.val().get_bits::<2>(0);
            self.x3.d.next = bit_cast::<8, 1>(self.l2.q.val().into())
                | (bit_cast::<8, 1>(self.rb2.q.val().get_bit(0).into()) << 1)
                | (bit_cast::<8, 1>(self.roce2.q.val().into()) << 2)
                | (bit_cast::<8, 1>((self.lenok2.q.val() && (self.gte.val() || (self.eqe.val() && self.kbit.val()))).into()) << 3);
        }

        // ================= S3 -> S4: state update =================
        if self.first3.q.val() {
            self.stx.next = 0.into();
        } else {
            self.stx.next = self.st.q.val();
        }
        self.nxt.next = 0.into();
        for i in 0..32 {
            self.nxt.next = self.nxt.val().replace_bit(
                i,
                (self.dm3.q.val() & self.m_data[i].val()).xor()
                    ^ (self.hp3.q.val() & self.m_hp[i].val()).xor()
                    ^ (self.stx.val() & self.m_state[i].val()).xor(),
            );
        }
        if self.en.val() {
            if self.v3.q.val() && self.cov3.q.val() {
                self.st.d.next = self.nxt.val();
            }
            self.lc4.d.next = self.v3.q.val() && self.lc3.q.val();
            self.s4.d.next = self.s3.q.val();
            self.bd[0].d.next = self.raw3.q.val();
            self.bk[0].d.next = self.k3.q.val();
            self.bn[0].d.next = self.n3.q.val();
            self.bf[0].d.next = self.f3.q.val();
            self.bq[0].d.next = self.qr3.q.val();
            self.bx[0].d.next = bit_cast::<8, 1>(self.v3.q.val().into()) | (self.x3.q.val() << 1);
        }

        // ================= reversal stages, beat delay =================
        self.rt[0].next = self.st.q.val();
        for u in 0..2 {
            self.rt[u + 1].next = self.rt[u].val();
            if self.s4.q.val().get_bit(u) {
                for i in 0..32 {
                    self.rt[u + 1].next = self.rt[u + 1]
                        .val()
                        .replace_bit(i, (self.rt[u].val() & self.m_rev[u * 32 + i].val()).xor());
                }
            }
        }
        if self.en.val() {
            self.rv[0].d.next = self.rt[2].val();
            self.rvv[0].d.next = self.lc4.q.val();
            self.rs[0].d.next = self.s4.q.val();
        }
        for q in 1..4 {
            self.rt[q * 3].next = self.rv[q - 1].q.val();
            for u in 0..2 {
                self.rt[q * 3 + u + 1].next = self.rt[q * 3 + u].val();
                if self.rs[q - 1].q.val().get_bit(q * 2 + u) {
                    for i in 0..32 {
                        self.rt[q * 3 + u + 1].next = self.rt[q * 3 + u + 1]
                            .val()
                            .replace_bit(i, (self.rt[q * 3 + u].val() & self.m_rev[(q * 2 + u) * 32 + i].val()).xor());
                    }
                }
            }
            if self.en.val() {
                self.rv[q].d.next = self.rt[q * 3 + 2].val();
                self.rvv[q].d.next = self.rvv[q - 1].q.val();
                self.rs[q].d.next = self.rs[q - 1].q.val();
            }
        }
        for q in 1..5 {
            if self.en.val() {
                self.bd[q].d.next = self.bd[q - 1].q.val();
                self.bk[q].d.next = self.bk[q - 1].q.val();
                self.bx[q].d.next = self.bx[q - 1].q.val();
                self.bn[q].d.next = self.bn[q - 1].q.val();
                self.bf[q].d.next = self.bf[q - 1].q.val();
                self.bq[q].d.next = self.bq[q - 1].q.val();
            }
        }

        // ================= insert lanes, one stage ahead of the tail =================
        for q in Self::NR..Self::NR1 {
            self.nt.next = self.bn[q - 1].q.val();
        }
        self.n9.next = bit_cast::<9, 8>(self.nt.val());
        self.insv.next = 0.into();
        self.spkv.next = 0.into();
        // Lane i takes ICRC byte i - n when n <= i < n + 4, i.e. i >= n and (i < 4 or i - 4 < n);
        // lane i of the extra beat when i + B < n + 4, i.e. i + B - 4 < n. No adder on n.
        for i in 0..K {
            if self.lane_idx[i].val() >= self.n9.val() && (self.lane_lt4[i].val() || self.lane_m4[i].val() < self.n9.val()) {
                self.insv.next = self.insv.val().replace_bit(i, true);
            }
            if self.lane_bm4[i].val() < self.n9.val() {
                self.spkv.next = self.spkv.val().replace_bit(i, true);
            }
        }
        if self.en.val() {
            self.ins_t.d.next = self.insv.val();
            self.spk_t.d.next = self.spkv.val();
            self.sp_t.d.next = self.n9.val() > self.cbm4.val();
        }
        self.t_ins.next = self.ins_t.q.val();
        self.t_spill_keep.next = self.spk_t.q.val();
        self.t_spill.next = self.sp_t.q.val();

        // ================= tail =================
        for q in Self::NR..Self::NR1 {
            self.t_valid.next = self.bx[q].q.val().get_bit(0);
            self.t_last.next = self.bx[q].q.val().get_bit(1);
            self.t_first.next = self.bx[q].q.val().get_bit(2);
            self.t_roce.next = self.bx[q].q.val().get_bit(3);
            self.t_complete.next = self.bx[q].q.val().get_bit(4);
            self.t_data.next = self.bd[q].q.val();
            self.t_keep.next = self.bk[q].q.val();
            self.t_n.next = self.bn[q].q.val();
            self.t_fold.next = self.bf[q].q.val();
            self.t_qrot.next = self.bq[q].q.val();
            self.t_crc_valid.next = self.rvv[q - 1].q.val() && self.bx[q].q.val().get_bit(0);
            self.t_crc.next = !self.rv[q - 1].q.val();
        }

        // ================= reset =================
        if self.reset.val() {
            self.posc.d.next = 0.into();
            self.v1.d.next = false;
            self.v2.d.next = false;
            self.v3.d.next = false;
            self.lc4.d.next = false;
            for q in 0..5 {
                self.bx[q].d.next = 0.into();
            }
            for q in 0..4 {
                self.rvv[q].d.next = false;
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
