//! The register file, [`Registers`]: an AXI4-Lite slave elaborated from the register map
//! (`ferroce_contracts::regs::Map`), with the QP context table, transfer posting, the channel
//! status table ([`status::StatusTable`]), the counters and the scheduler's QoS registers.
//! `docs/registers.md` is the specification a host relies on; the software model is
//! `ferroce_models::regs::RegsModel`.
//!
//! ```text
//!  AW ─► aw register ─┐                 ┌─► flip-flop registers, constants, counter inputs
//!  W  ─► w register  ─┼─► start ─► decode ─► execute ─┼─► QP table (20 × block RAM, port A) ◄─ qp_read_index (port B)
//!  AR ─► ar register ─┘   (one operation   (one-hot  │   └─► its copy (20 × block RAM) ◄─ qp_rx_read_index
//!                          at a time)       hits)    ├─► queue words (LUTRAM) ─► sched_cfg_*
//!                                                    ├─► strobes ─► region_write_*, receive_post_*, receive_completion_pop_*
//!                                                    └─► StatusTable ◄─ cpl_*, post result
//!  B ◄─ b register ◄──────────── finish ◄──── wait (RAM: 1 cycle; status table: ≤ 4) ◄┘
//!  R ◄─ r register ◄──┘
//! ```
//!
//! Each AXI channel has its own register, so the five channels are independent: `awready`,
//! `wready` and `arready` are high while their register is empty, and a response waits in its
//! register until the master takes it. One operation runs at a time, a write or a read
//! (alternating when both wait), in a fixed number of cycles:
//!
//! | phase | cycles | what happens |
//! |---|---|---|
//! | start | 1 | the address (and data, mask) move from the channel registers into the operation |
//! | decode | 1 | the word address is compared with every register's (constants from the map): one-hot hits, indices, "decodes to nothing", "read only" |
//! | execute | 1 | flip-flop registers are written (byte strobes), the doorbell and W1C bits act, a write's DECERR or SLVERR answers here; a read's value from flip-flops, inputs and constants is registered |
//! | wait | 1 (a read, RAM) or 2–4 (status table) | the registered value answers; the QP table or queue words are read (and written back merged with the strobes); the status table answers a poll or a status read |
//!
//! So a write's B comes 3 to 7 cycles and a read's R 4 to 7 cycles after the channel registers hold them (the
//! formal check of `scripts/formal_registers.sh` bounds it). Every register's address, reset
//! value, and writable bits are constants computed here from the map, so a register added to the
//! map needs only its kind's count below.

pub mod axil;
pub mod decode;
pub mod posting;
pub mod scheduler;
pub mod serial;
pub mod split;
pub mod status;

use crate::common::dual_port_ram::{BlockRam, DualPortRam};
use crate::common::elab::c;
use axil::AxiLiteFront;
use decode::Decoder;
use ferroce_contracts::regs::{self, Config, Kind, Map, Register};
use ferroce_contracts::responder::{
    COUNTER_INDEX_BITS, MEMORY_REGION_BITS, MEMORY_REGION_WORDS, RECEIVE_COMPLETION_WORDS, RECEIVE_POST_BITS, RECEIVE_POST_WORDS,
};
use ferroce_contracts::rx::DropReason;
use ferroce_contracts::tx::{POST, POST_BITS, POST_WORDS, QP_CONTEXT_BITS, QP_CONTEXT_WORDS};
use posting::Posting;
use rust_hdl::prelude::*;
use status::StatusTable;

/// Word-address bits (`ADDRESS_BITS − 2`).
pub(crate) const WORD_BITS: usize = regs::ADDRESS_BITS - 2;
/// [`Kind::Flops`] registers outside the post block, in map order (block size, local MAC low
/// and high, IPv4, IPv6 ×4, scratch, retry tick, READ response queue, limit of high priority,
/// the staged memory region words, the staged receive post words).
pub(crate) const FLOPS: usize = 12 + MEMORY_REGION_WORDS + RECEIVE_POST_WORDS;
/// The first staged memory region word in `flops` (`update` spells it as a literal).
const REGION_FLOP: usize = 12;
/// The first staged receive post word in `flops` (`update` spells it as a literal).
const RECEIVE_FLOP: usize = REGION_FLOP + MEMORY_REGION_WORDS;
const _: () = assert!(REGION_FLOP == 12 && RECEIVE_FLOP == 18);
/// [`Kind::Input`] registers (the counters of the RX path and the scheduler, the receive
/// posting state, the head of the receive completion queue and its lost count).
pub(crate) const INPUTS: usize = 35;
/// [`Kind::Strobe`] registers (memory region write, receive post, receive completion pop).
pub(crate) const STROBES: usize = 3;
/// [`Kind::Constant`] registers (the ID block).
pub(crate) const CONSTANTS: usize = 6;

/// `(mask, value)` of a word-address compare that hits the elements `0..2^k` of an array
/// register (the window of `elements` elements, a power of two at least `count`).
pub(crate) fn window(r: &Register, elements: u32) -> [Constant<Bits<WORD_BITS>>; 2] {
    let words = elements.next_power_of_two() * r.stride / 4;
    let all = (1u64 << WORD_BITS) - 1;
    let base = u64::from(r.offset / 4);
    assert_eq!(base % u64::from(words), 0, "{}: array not aligned to its window", r.name);
    [c::<WORD_BITS>(all & !(u64::from(words) - 1)), c::<WORD_BITS>(base)]
}

pub(crate) fn word_address(r: &Register) -> Constant<Bits<WORD_BITS>> {
    c::<WORD_BITS>(u64::from(r.offset / 4))
}

pub(crate) fn mask32(v: u32) -> Constant<Bits<32>> {
    c::<32>(u64::from(v))
}

/// The register file of a build: `2^CB` channels (`GB = CB − 5` poll groups), `2^QB` QPs.
/// Ports and timing: `docs/registers.md`.
#[derive(LogicBlock)]
pub struct Registers<const CB: usize, const GB: usize, const QB: usize> {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous, active high: every register to its reset value, the channel status table
    /// cleared (`2^GB` cycles after it); the QP table keeps its contents.
    pub reset: Signal<In, Bit>,
    /// AXI4-Lite write address: valid.
    pub s_axil_awvalid: Signal<In, Bit>,
    /// Write address: ready.
    pub s_axil_awready: Signal<Out, Bit>,
    /// Write address (bytes; bits 1:0 ignored).
    pub s_axil_awaddr: Signal<In, Bits<{ regs::ADDRESS_BITS }>>,
    /// Write data: valid.
    pub s_axil_wvalid: Signal<In, Bit>,
    /// Write data: ready.
    pub s_axil_wready: Signal<Out, Bit>,
    /// Write data.
    pub s_axil_wdata: Signal<In, Bits<32>>,
    /// Write strobes (bit b: byte b is written).
    pub s_axil_wstrb: Signal<In, Bits<4>>,
    /// Write response: valid.
    pub s_axil_bvalid: Signal<Out, Bit>,
    /// Write response: ready.
    pub s_axil_bready: Signal<In, Bit>,
    /// Write response: OKAY (0), SLVERR (2: read-only register or value refused), DECERR (3).
    pub s_axil_bresp: Signal<Out, Bits<2>>,
    /// Read address: valid.
    pub s_axil_arvalid: Signal<In, Bit>,
    /// Read address: ready.
    pub s_axil_arready: Signal<Out, Bit>,
    /// Read address (bytes; bits 1:0 ignored).
    pub s_axil_araddr: Signal<In, Bits<{ regs::ADDRESS_BITS }>>,
    /// Read data: valid.
    pub s_axil_rvalid: Signal<Out, Bit>,
    /// Read data: ready.
    pub s_axil_rready: Signal<In, Bit>,
    /// Read data (0 with DECERR).
    pub s_axil_rdata: Signal<Out, Bits<32>>,
    /// Read response: OKAY (0) or DECERR (3).
    pub s_axil_rresp: Signal<Out, Bits<2>>,
    /// QP table read port (TX path): the QP whose entry `qp_read_entry` shows two cycles later.
    pub qp_read_index: Signal<In, Bits<QB>>,
    /// The packed `QP_CONTEXT` entry of `qp_read_index` two cycles earlier.
    pub qp_read_entry: Signal<Out, Bits<QP_CONTEXT_BITS>>,
    /// QP table's second read port (RX path): the QP whose entry `qp_rx_read_entry` shows two
    /// cycles later.
    pub qp_rx_read_index: Signal<In, Bits<QB>>,
    /// The packed `QP_CONTEXT` entry of `qp_rx_read_index` two cycles earlier.
    pub qp_rx_read_entry: Signal<Out, Bits<QP_CONTEXT_BITS>>,
    /// One cycle: word 0 of QP `qp_commit_index` was written and the entry is in the table (a
    /// read issued in this cycle or later returns it).
    pub qp_commit_valid: Signal<Out, Bit>,
    /// The committed QP.
    pub qp_commit_index: Signal<Out, Bits<QB>>,
    /// Post stream: a packed `POST` entry is offered (held until `post_ready`).
    pub post_valid: Signal<Out, Bit>,
    /// Post stream: the transfer table takes the entry.
    pub post_ready: Signal<In, Bit>,
    /// Post stream: the entry.
    pub post_entry: Signal<Out, Bits<POST_BITS>>,
    /// One cycle: the transfer table's answer to the post it took (in the handshake's cycle or later).
    pub post_result_valid: Signal<In, Bit>,
    /// The answer: 0 accepted, else a `PostError` code.
    pub post_result_code: Signal<In, Bits<3>>,
    /// Completion: valid.
    pub cpl_valid: Signal<In, Bit>,
    /// Completion: ready (low only while a post acceptance or a host poll takes the status table, and after reset).
    pub cpl_ready: Signal<Out, Bit>,
    /// Completion: channel.
    pub cpl_channel: Signal<In, Bits<16>>,
    /// Completion: `CompletionStatus` code.
    pub cpl_status: Signal<In, Bits<4>>,
    /// RX counter: frames in.
    pub cnt_frames_in: Signal<In, Bits<32>>,
    /// RX counter: accepted.
    pub cnt_accepted: Signal<In, Bits<32>>,
    /// RX counter: passed through.
    pub cnt_passed: Signal<In, Bits<32>>,
    /// RX counter: dropped, `ip_header`.
    pub cnt_drop_ip_header: Signal<In, Bits<32>>,
    /// RX counter: dropped, `truncated`.
    pub cnt_drop_truncated: Signal<In, Bits<32>>,
    /// RX counter: dropped, `ip_length`.
    pub cnt_drop_ip_length: Signal<In, Bits<32>>,
    /// RX counter: dropped, `ip_checksum`.
    pub cnt_drop_ip_checksum: Signal<In, Bits<32>>,
    /// RX counter: dropped, `ip_fragment`.
    pub cnt_drop_ip_fragment: Signal<In, Bits<32>>,
    /// RX counter: dropped, `udp_length`.
    pub cnt_drop_udp_length: Signal<In, Bits<32>>,
    /// RX counter: dropped, `tver`.
    pub cnt_drop_tver: Signal<In, Bits<32>>,
    /// RX counter: dropped, `opcode`.
    pub cnt_drop_opcode: Signal<In, Bits<32>>,
    /// RX counter: dropped, `padcnt`.
    pub cnt_drop_padcnt: Signal<In, Bits<32>>,
    /// RX counter: dropped, `icrc`.
    pub cnt_drop_icrc: Signal<In, Bits<32>>,
    /// Scheduler counter: duplicate enqueues.
    pub cnt_dup: Signal<In, Bits<32>>,
    /// Scheduler counter: enqueues to a queue beyond the queues.
    pub cnt_bad_queue: Signal<In, Bits<32>>,
    /// Scheduler configuration write (the scheduler's `cfg_we`), one cycle per register write.
    pub sched_cfg_we: Signal<Out, Bit>,
    /// Scheduler configuration address (queue, or 64 for the limit of high priority).
    pub sched_cfg_addr: Signal<Out, Bits<7>>,
    /// Scheduler configuration data.
    pub sched_cfg_wdata: Signal<Out, Bits<32>>,
    /// Block size, log2 (12 to 20).
    pub cfg_block_log2: Signal<Out, Bits<5>>,
    /// Clock cycles per retry timer tick (`retry_tick`).
    pub cfg_tick_cycles: Signal<Out, Bits<16>>,
    /// The scheduler queue of READ responses (`read_response_queue`).
    pub cfg_read_queue: Signal<Out, Bits<5>>,
    /// Local MAC address (bits 47:40 first on the wire).
    pub cfg_local_mac: Signal<Out, Bits<48>>,
    /// Local IPv4 address.
    pub cfg_local_ipv4: Signal<Out, Bits<32>>,
    /// Local IPv6 address (bits 127:120 first on the wire).
    pub cfg_local_ipv6: Signal<Out, Bits<128>>,
    /// Counter: payloads written to memory.
    pub cnt_written: Signal<In, Bits<32>>,
    /// Counter: payloads discarded.
    pub cnt_discarded: Signal<In, Bits<32>>,
    /// Counter: ARP requests answered.
    pub cnt_arp_replies: Signal<In, Bits<32>>,
    /// Counter: ICMP echo requests answered.
    pub cnt_echo_replies: Signal<In, Bits<32>>,
    /// Counter: requests given to the host because the reply buffer was taken.
    pub cnt_deferred: Signal<In, Bits<32>>,
    /// Counter: echo requests dropped, truncated.
    pub cnt_drop_host_truncated: Signal<In, Bits<32>>,
    /// Counter: echo requests dropped, longer than the reply buffer.
    pub cnt_drop_host_too_long: Signal<In, Bits<32>>,
    /// Counter: ACKs and NAKs the ACK tracker ignored.
    pub cnt_ack_ignored: Signal<In, Bits<32>>,
    /// Counter: RC packets sent again.
    pub cnt_retransmitted: Signal<In, Bits<32>>,
    /// Counter: RC retry timer timeouts.
    pub cnt_timeouts: Signal<In, Bits<32>>,
    /// Counter: RC QPs whose retries ran out.
    pub cnt_retries_exhausted: Signal<In, Bits<32>>,
    /// Counter: READ responses taken by the READ tracker.
    pub cnt_read_taken: Signal<In, Bits<32>>,
    /// Counter: READ responses dropped as duplicates.
    pub cnt_read_duplicates: Signal<In, Bits<32>>,
    /// Counter: READ responses dropped after a lost one.
    pub cnt_read_gaps: Signal<In, Bits<32>>,
    /// Counter: READ responses dropped as bad.
    pub cnt_read_bad: Signal<In, Bits<32>>,
    /// The staged memory region entry (`MEMORY_REGION`, the `region_word*` registers).
    pub region_entry: Signal<Out, Bits<MEMORY_REGION_BITS>>,
    /// `region_write` was written (one cycle): store `region_entry` at the index in `region_write_data`.
    pub region_write_valid: Signal<Out, Bit>,
    /// The value written to `region_write`.
    pub region_write_data: Signal<Out, Bits<32>>,
    /// The staged receive buffer post (`RECEIVE_POST`, the `receive_word*` registers).
    pub receive_entry: Signal<Out, Bits<RECEIVE_POST_BITS>>,
    /// `receive_post` was written (one cycle): post `receive_entry`.
    pub receive_post_valid: Signal<Out, Bit>,
    /// The value written to `receive_post`.
    pub receive_post_data: Signal<Out, Bits<32>>,
    /// The `receive_status` register's value.
    pub receive_status: Signal<In, Bits<32>>,
    /// The head of the receive completion queue (`RECEIVE_COMPLETION`), word 0.
    pub receive_completion0: Signal<In, Bits<32>>,
    /// Word 1.
    pub receive_completion1: Signal<In, Bits<32>>,
    /// Word 2.
    pub receive_completion2: Signal<In, Bits<32>>,
    /// `receive_completion_pop` was written (one cycle).
    pub receive_completion_pop_valid: Signal<Out, Bit>,
    /// The value written to `receive_completion_pop`.
    pub receive_completion_pop_data: Signal<Out, Bits<32>>,
    /// Counter: receive completions lost (queue full).
    pub cnt_completions_lost: Signal<In, Bits<32>>,
    /// Responder counter read: the index (`responder_counter` element).
    pub responder_counter_index: Signal<Out, Bits<COUNTER_INDEX_BITS>>,
    /// Responder counter read: the counter of the previous cycle's index.
    pub responder_counter_value: Signal<In, Bits<32>>,
    /// QP status read (TX path): the QP (`qp_status` element).
    pub qp_status_index: Signal<Out, Bits<QB>>,
    /// QP status read: the status of the previous cycle's QP.
    pub qp_status_value: Signal<In, Bits<32>>,

    axil: AxiLiteFront,
    // the operation
    executing: DFF<Bit>,
    waiting_ram: DFF<Bit>,
    waiting_status: DFF<Bit>,
    idle: Signal<Local, Bit>,
    decode: Decoder<CB, QB>,
    // constants from the map
    flop_reset: [Constant<Bits<32>>; FLOPS],
    flop_writable: [Constant<Bits<32>>; FLOPS],
    post_word_writable: [Constant<Bits<32>>; POST_WORDS],
    post_word_shift: [Constant<Bits<8>>; POST_WORDS],
    constant_value: [Constant<Bits<32>>; CONSTANTS],
    /// The bits of each input register a read returns (its fields).
    input_readable: [Constant<Bits<32>>; INPUTS],
    queue_reset: Constant<Bits<32>>,
    queue_writable: Constant<Bits<32>>,
    /// A pacer cost's bits (all written, reset to 0).
    pace_writable: Constant<Bits<32>>,
    /// `sched_cfg_addr` of queue 0's pacer cost.
    pace_sched_address: Constant<Bits<7>>,
    /// The word of `queue_words` the decoded element is.
    queue_word: Signal<Local, Bits<6>>,
    qp_writable: [Constant<Bits<32>>; QP_CONTEXT_WORDS],
    /// The bits of `qp_status` a read returns.
    qp_status_readable: Constant<Bits<32>>,
    qp_word_shift: [Constant<Bits<10>>; QP_CONTEXT_WORDS],
    region_word_shift: [Constant<Bits<8>>; MEMORY_REGION_WORDS],
    receive_word_shift: [Constant<Bits<8>>; RECEIVE_POST_WORDS],
    block_log2_min: Constant<Bits<5>>,
    block_log2_max: Constant<Bits<5>>,
    /// Bit q set for each data queue q (1 to queues − 1): where READ responses may go.
    read_queues: Constant<Bits<32>>,
    limit_sched_address: Constant<Bits<7>>,
    // storage
    flops: [DFF<Bits<32>>; FLOPS],
    post_words: [DFF<Bits<32>>; POST_WORDS],
    strobe_valid: DFF<Bits<STROBES>>,
    strobe_data: DFF<Bits<32>>,
    inputs: [Signal<Local, Bits<32>>; INPUTS],
    /// The queue words (0..31) and the pacer costs (32..63).
    queue_words: RAM<Bits<32>, 6>,
    queue_written: DFF<Bits<64>>,
    qp_table: [DualPortRam<Bits<32>, QB>; QP_CONTEXT_WORDS],
    qp_entry: DFF<Bits<QP_CONTEXT_BITS>>,
    qp_entry_next: Signal<Local, Bits<QP_CONTEXT_BITS>>,
    /// A copy of the QP table (written with it) for the second read port.
    qp_mirror: [BlockRam<Bits<32>, QB>; QP_CONTEXT_WORDS],
    qp_rx_entry: DFF<Bits<QP_CONTEXT_BITS>>,
    qp_rx_entry_next: Signal<Local, Bits<QP_CONTEXT_BITS>>,
    commit_valid: DFF<Bit>,
    commit_index: DFF<Bits<QB>>,
    status: StatusTable<CB, GB>,
    posting: Posting,
    staged_entry: Signal<Local, Bits<POST_BITS>>,
    poll_error: DFF<Bits<32>>,
    sched_we: DFF<Bit>,
    sched_address: DFF<Bits<7>>,
    sched_data: DFF<Bits<32>>,
    // execute and wait
    write_now: Signal<Local, Bit>,
    merged: Signal<Local, Bits<32>>,
    write_bits: Signal<Local, Bits<32>>,
    value_refused: Signal<Local, Bit>,
    read_queue_merged: Signal<Local, Bits<32>>,
    queue_value: Signal<Local, Bits<32>>,
    queue_merged: Signal<Local, Bits<32>>,
    /// A word of a loop that packs an entry.
    word_value: Signal<Local, Bits<32>>,
    queue_write: Signal<Local, Bit>,
    read_value: Signal<Local, Bits<32>>,
    /// A read's value from flip-flops, inputs and constants, taken at execute, answered at wait.
    direct_value: DFF<Bits<32>>,
    /// The value an operation answers with (from registers, RAMs and the status table only, so
    /// that the read multiplexer ends at `direct_value`).
    answer_value: Signal<Local, Bits<32>>,
    finish: Signal<Local, Bit>,
    response: Signal<Local, Bits<2>>,
}

impl<const CB: usize, const GB: usize, const QB: usize> Registers<CB, GB, QB> {
    /// The register file of `config` (its channels must be `2^CB`, its QPs `2^QB`).
    pub fn new(config: Config) -> Self {
        assert_eq!(config.channels, 1 << CB, "Registers: channels = 2^CB");
        assert_eq!(config.qps, 1 << QB, "Registers: QPs = 2^QB");
        let map = Map::new(config);
        let flops: Vec<&Register> = map
            .of_kind(Kind::Flops)
            .into_iter()
            .filter(|r| !r.name.starts_with("post_word"))
            .collect();
        let names: Vec<&str> = flops.iter().map(|r| r.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "block_size",
                "local_mac_low",
                "local_mac_high",
                "local_ipv4",
                "local_ipv6_0",
                "local_ipv6_1",
                "local_ipv6_2",
                "local_ipv6_3",
                "scratch",
                "retry_tick",
                "read_response_queue",
                "high_limit",
                "region_word0",
                "region_word1",
                "region_word2",
                "region_word3",
                "region_word4",
                "region_word5",
                "receive_word0",
                "receive_word1",
                "receive_word2",
                "receive_word3"
            ],
            "Registers: the flip-flop registers (outputs are wired by position)"
        );
        let post_words: Vec<&Register> = (0..POST_WORDS).map(|w| map.reg(&format!("post_word{w}"))).collect();
        assert_eq!(POST.offset("channel"), 0, "Registers: the post's channel in bits 15:0");
        let inputs = map.of_kind(Kind::Input);
        let ports: Vec<&str> = inputs.iter().map(|r| r.port.as_deref().unwrap_or("")).collect();
        let expected: Vec<String> = ["cnt_frames_in", "cnt_accepted", "cnt_passed"]
            .map(String::from)
            .into_iter()
            .chain(DropReason::ALL.iter().map(|r| r.counter_port()))
            .chain(
                [
                    "cnt_dup",
                    "cnt_bad_queue",
                    "cnt_written",
                    "cnt_discarded",
                    "cnt_arp_replies",
                    "cnt_echo_replies",
                    "cnt_deferred",
                    "cnt_drop_host_truncated",
                    "cnt_drop_host_too_long",
                    "cnt_ack_ignored",
                    "cnt_retransmitted",
                    "cnt_timeouts",
                    "cnt_retries_exhausted",
                    "cnt_read_taken",
                    "cnt_read_duplicates",
                    "cnt_read_gaps",
                    "cnt_read_bad",
                    "receive_status",
                ]
                .map(String::from),
            )
            .chain((0..RECEIVE_COMPLETION_WORDS).map(|w| format!("receive_completion{w}")))
            .chain(["cnt_completions_lost".to_string()])
            .collect();
        assert_eq!(ports, expected, "Registers: input registers (wired by position)");
        let constants = map.of_kind(Kind::Constant);
        assert_eq!(constants.len(), CONSTANTS);
        let strobes: Vec<&str> = map.of_kind(Kind::Strobe).iter().map(|r| r.name.as_str()).collect();
        assert_eq!(
            strobes,
            ["region_write", "receive_post", "receive_completion_pop"],
            "Registers: strobe registers (wired by position)"
        );
        let qp_words = map.of_kind(Kind::QpContext);
        let (queue, poll, channel) = (map.reg("queue_config"), map.reg("poll"), map.reg("channel_status"));
        assert_eq!(
            (queue.stride, poll.stride, channel.stride, qp_words[0].stride),
            (4, 4, 4, regs::QP_STRIDE)
        );
        assert_eq!(qp_words[0].stride, 4 * 32, "Registers: the QP index at word-address bit 5");
        assert!(config.queues <= 32);
        let reset = |r: &Register| mask32(r.reset().unwrap_or(0));
        let writable = |r: &Register| mask32(r.write_mask());
        Self {
            clock: Default::default(),
            reset: Default::default(),
            axil: Default::default(),
            decode: Decoder::new(&map),
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
            qp_read_index: Default::default(),
            qp_read_entry: Default::default(),
            qp_rx_read_index: Default::default(),
            qp_rx_read_entry: Default::default(),
            qp_mirror: std::array::from_fn(|_| Default::default()),
            qp_rx_entry: Default::default(),
            qp_rx_entry_next: Default::default(),
            qp_commit_valid: Default::default(),
            qp_commit_index: Default::default(),
            post_valid: Default::default(),
            post_ready: Default::default(),
            post_entry: Default::default(),
            post_result_valid: Default::default(),
            post_result_code: Default::default(),
            cpl_valid: Default::default(),
            cpl_ready: Default::default(),
            cpl_channel: Default::default(),
            cpl_status: Default::default(),
            cnt_frames_in: Default::default(),
            cnt_accepted: Default::default(),
            cnt_passed: Default::default(),
            cnt_drop_ip_header: Default::default(),
            cnt_drop_truncated: Default::default(),
            cnt_drop_ip_length: Default::default(),
            cnt_drop_ip_checksum: Default::default(),
            cnt_drop_ip_fragment: Default::default(),
            cnt_drop_udp_length: Default::default(),
            cnt_drop_tver: Default::default(),
            cnt_drop_opcode: Default::default(),
            cnt_drop_padcnt: Default::default(),
            cnt_drop_icrc: Default::default(),
            cnt_dup: Default::default(),
            cnt_bad_queue: Default::default(),
            sched_cfg_we: Default::default(),
            sched_cfg_addr: Default::default(),
            sched_cfg_wdata: Default::default(),
            cfg_block_log2: Default::default(),
            cfg_local_mac: Default::default(),
            cfg_local_ipv4: Default::default(),
            cfg_local_ipv6: Default::default(),
            cnt_written: Default::default(),
            cnt_discarded: Default::default(),
            cnt_arp_replies: Default::default(),
            cnt_echo_replies: Default::default(),
            cnt_deferred: Default::default(),
            cnt_drop_host_truncated: Default::default(),
            cnt_drop_host_too_long: Default::default(),
            cnt_ack_ignored: Default::default(),
            cnt_retransmitted: Default::default(),
            cnt_timeouts: Default::default(),
            cnt_retries_exhausted: Default::default(),
            cnt_read_taken: Default::default(),
            cnt_read_duplicates: Default::default(),
            cnt_read_gaps: Default::default(),
            cnt_read_bad: Default::default(),
            cfg_tick_cycles: Default::default(),
            cfg_read_queue: Default::default(),
            region_entry: Default::default(),
            region_write_valid: Default::default(),
            region_write_data: Default::default(),
            receive_entry: Default::default(),
            receive_post_valid: Default::default(),
            receive_post_data: Default::default(),
            receive_status: Default::default(),
            receive_completion0: Default::default(),
            receive_completion1: Default::default(),
            receive_completion2: Default::default(),
            receive_completion_pop_valid: Default::default(),
            receive_completion_pop_data: Default::default(),
            cnt_completions_lost: Default::default(),
            responder_counter_index: Default::default(),
            responder_counter_value: Default::default(),
            qp_status_index: Default::default(),
            qp_status_value: Default::default(),
            executing: Default::default(),
            waiting_ram: Default::default(),
            waiting_status: Default::default(),
            idle: Default::default(),
            flop_reset: std::array::from_fn(|i| reset(flops[i])),
            flop_writable: std::array::from_fn(|i| writable(flops[i])),
            post_word_writable: std::array::from_fn(|w| writable(post_words[w])),
            post_word_shift: std::array::from_fn(|w| c::<8>(32 * w as u64)),
            constant_value: std::array::from_fn(|i| reset(constants[i])),
            input_readable: std::array::from_fn(|i| mask32(inputs[i].read_mask())),
            queue_reset: reset(queue),
            queue_writable: writable(queue),
            pace_writable: writable(map.reg("pace_cost")),
            pace_sched_address: c::<7>(u64::from(ferroce_contracts::sched::PACE_COST_ADDR)),
            queue_word: Default::default(),
            qp_writable: std::array::from_fn(|w| writable(qp_words[w])),
            qp_status_readable: mask32(map.reg(regs::QP_STATUS).read_mask()),
            qp_word_shift: std::array::from_fn(|w| c::<10>(32 * w as u64)),
            region_word_shift: std::array::from_fn(|w| c::<8>(32 * w as u64)),
            receive_word_shift: std::array::from_fn(|w| c::<8>(32 * w as u64)),
            block_log2_min: c::<5>(u64::from(ferroce_contracts::tx::BLOCK_LOG2_MIN)),
            block_log2_max: c::<5>(u64::from(ferroce_contracts::tx::BLOCK_LOG2_MAX)),
            read_queues: c::<32>(((1u64 << config.queues) - 1) & !1),
            limit_sched_address: c::<7>(u64::from(ferroce_contracts::sched::HIGH_LIMIT_ADDR)),
            flops: std::array::from_fn(|_| Default::default()),
            post_words: std::array::from_fn(|_| Default::default()),
            strobe_valid: Default::default(),
            strobe_data: Default::default(),
            inputs: std::array::from_fn(|_| Default::default()),
            queue_words: Default::default(),
            queue_written: Default::default(),
            qp_table: std::array::from_fn(|_| Default::default()),
            qp_entry: Default::default(),
            qp_entry_next: Default::default(),
            commit_valid: Default::default(),
            commit_index: Default::default(),
            status: Default::default(),
            posting: Default::default(),
            staged_entry: Default::default(),
            poll_error: Default::default(),
            sched_we: Default::default(),
            sched_address: Default::default(),
            sched_data: Default::default(),
            write_now: Default::default(),
            merged: Default::default(),
            write_bits: Default::default(),
            value_refused: Default::default(),
            read_queue_merged: Default::default(),
            queue_value: Default::default(),
            queue_merged: Default::default(),
            word_value: Default::default(),
            queue_write: Default::default(),
            read_value: Default::default(),
            direct_value: Default::default(),
            answer_value: Default::default(),
            finish: Default::default(),
            response: Default::default(),
        }
    }
}

impl<const CB: usize, const GB: usize, const QB: usize> Logic for Registers<CB, GB, QB> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            executing,
            waiting_ram,
            waiting_status,
            queue_written,
            qp_entry,
            qp_rx_entry,
            commit_valid,
            commit_index,
            poll_error,
            sched_we,
            sched_address,
            sched_data,
            strobe_valid,
            strobe_data,
            direct_value
        );
        for i in 0..FLOPS {
            self.flops[i].clock.next = self.clock.val();
            self.flops[i].d.next = self.flops[i].q.val();
        }
        for w in 0..POST_WORDS {
            self.post_words[w].clock.next = self.clock.val();
            self.post_words[w].d.next = self.post_words[w].q.val();
        }
        self.axil.clock.next = self.clock.val();
        self.axil.reset.next = self.reset.val();
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
        self.idle.next = !(self.axil.op_start.val() | self.executing.q.val() | self.waiting_ram.q.val() | self.waiting_status.q.val());
        self.axil.idle.next = self.idle.val() & !self.reset.val();

        // decode: one-hot hits of the word address (registered in the decoder)
        self.decode.clock.next = self.clock.val();
        self.decode.address.next = self.axil.op_address.val();
        self.decode.queue_written.next = self.queue_written.q.val();
        self.executing.d.next = self.axil.op_start.val();

        // execute: flip-flop registers (strobes, writable bits), doorbell, W1C bits
        self.write_now.next = self.executing.q.val() & self.axil.op_write.val() & !self.decode.decoded_read_only.val();
        self.merged.next = (self.flops[0].q.val() & !self.axil.op_mask.val()) | (self.axil.op_data.val() & self.axil.op_mask.val());
        self.read_queue_merged.next =
            (self.flops[10].q.val() & !self.axil.op_mask.val()) | (self.axil.op_data.val() & self.axil.op_mask.val());
        // a block size out of range, a READ response queue that is not a data queue
        self.value_refused.next = (self.decode.hit_flop.val().get_bit(0)
            & ((self.merged.val().get_bits::<5>(0) < self.block_log2_min.val())
                | (self.merged.val().get_bits::<5>(0) > self.block_log2_max.val())))
            | (self.decode.hit_flop.val().get_bit(10)
                & !self
                    .read_queues
                    .val()
                    .get_bit(self.read_queue_merged.val().get_bits::<5>(0).index()));
        for i in 0..FLOPS {
            self.write_bits.next = self.axil.op_mask.val() & self.flop_writable[i].val();
            if self.write_now.val() & self.decode.hit_flop.val().get_bit(i) & !self.value_refused.val() {
                self.flops[i].d.next = (self.flops[i].q.val() & !self.write_bits.val()) | (self.axil.op_data.val() & self.write_bits.val());
            }
        }
        self.sched_we.d.next = false;
        self.sched_address.d.next = self.limit_sched_address.val();
        self.write_bits.next = self.axil.op_mask.val() & self.flop_writable[11].val();
        self.sched_data.d.next = (self.flops[11].q.val() & !self.write_bits.val()) | (self.axil.op_data.val() & self.write_bits.val());
        if self.write_now.val() & self.decode.hit_flop.val().get_bit(11) {
            self.sched_we.d.next = true;
        }
        self.posting.words_written_now.next = 0.into();
        for w in 0..POST_WORDS {
            self.write_bits.next = self.axil.op_mask.val() & self.post_word_writable[w].val();
            if self.write_now.val() & self.decode.hit_post_word.val().get_bit(w) {
                self.post_words[w].d.next =
                    (self.post_words[w].q.val() & !self.write_bits.val()) | (self.axil.op_data.val() & self.write_bits.val());
                self.posting.words_written_now.next = self.decode.hit_post_word.val();
            }
        }

        // strobes: the written value (byte strobes applied), one cycle
        self.strobe_valid.d.next = 0.into();
        if self.write_now.val() {
            self.strobe_valid.d.next = self.decode.hit_strobe.val();
        }
        self.strobe_data.d.next = self.axil.op_data.val() & self.axil.op_mask.val();

        // posting: the doorbell rule, the post stream and its answer (`Posting`)
        self.posting.clock.next = self.clock.val();
        self.posting.reset.next = self.reset.val();
        self.staged_entry.next = 0.into();
        for w in 0..POST_WORDS {
            self.word_value.next = self.post_words[w].q.val();
            self.staged_entry.next =
                self.staged_entry.val() | (bit_cast::<POST_BITS, 32>(self.word_value.val()) << self.post_word_shift[w].val());
        }
        self.posting.staged.next = self.staged_entry.val();
        self.posting.doorbell.next = self.write_now.val() & self.decode.hit_doorbell.val();
        self.write_bits.next = self.axil.op_data.val() & self.axil.op_mask.val();
        self.posting.clear.next = 0.into();
        if self.write_now.val() & self.decode.hit_post_status.val() {
            self.posting.clear.next = self.write_bits.val().get_bits::<2>(8);
        }
        self.posting.post_ready.next = self.post_ready.val();
        self.posting.result_valid.next = self.post_result_valid.val();
        self.posting.result_code.next = self.post_result_code.val();
        self.post_valid.next = self.posting.post_valid.val();
        self.post_entry.next = self.posting.post_entry.val();
        self.status.accept.next = self.posting.accept.val();
        self.status.accept_channel.next = self.posting.post_entry.val().get_bits::<CB>(0);

        // read: every register of this cycle's sources, one-hot
        self.inputs[0].next = self.cnt_frames_in.val();
        self.inputs[1].next = self.cnt_accepted.val();
        self.inputs[2].next = self.cnt_passed.val();
        self.inputs[3].next = self.cnt_drop_ip_header.val();
        self.inputs[4].next = self.cnt_drop_truncated.val();
        self.inputs[5].next = self.cnt_drop_ip_length.val();
        self.inputs[6].next = self.cnt_drop_ip_checksum.val();
        self.inputs[7].next = self.cnt_drop_ip_fragment.val();
        self.inputs[8].next = self.cnt_drop_udp_length.val();
        self.inputs[9].next = self.cnt_drop_tver.val();
        self.inputs[10].next = self.cnt_drop_opcode.val();
        self.inputs[11].next = self.cnt_drop_padcnt.val();
        self.inputs[12].next = self.cnt_drop_icrc.val();
        self.inputs[13].next = self.cnt_dup.val();
        self.inputs[14].next = self.cnt_bad_queue.val();
        self.inputs[15].next = self.cnt_written.val();
        self.inputs[16].next = self.cnt_discarded.val();
        self.inputs[17].next = self.cnt_arp_replies.val();
        self.inputs[18].next = self.cnt_echo_replies.val();
        self.inputs[19].next = self.cnt_deferred.val();
        self.inputs[20].next = self.cnt_drop_host_truncated.val();
        self.inputs[21].next = self.cnt_drop_host_too_long.val();
        self.inputs[22].next = self.cnt_ack_ignored.val();
        self.inputs[23].next = self.cnt_retransmitted.val();
        self.inputs[24].next = self.cnt_timeouts.val();
        self.inputs[25].next = self.cnt_retries_exhausted.val();
        self.inputs[26].next = self.cnt_read_taken.val();
        self.inputs[27].next = self.cnt_read_duplicates.val();
        self.inputs[28].next = self.cnt_read_gaps.val();
        self.inputs[29].next = self.cnt_read_bad.val();
        self.inputs[30].next = self.receive_status.val();
        self.inputs[31].next = self.receive_completion0.val();
        self.inputs[32].next = self.receive_completion1.val();
        self.inputs[33].next = self.receive_completion2.val();
        self.inputs[34].next = self.cnt_completions_lost.val();
        self.read_value.next = 0.into();
        for i in 0..FLOPS {
            if self.decode.hit_flop.val().get_bit(i) {
                self.read_value.next = self.read_value.val() | self.flops[i].q.val();
            }
        }
        for w in 0..POST_WORDS {
            if self.decode.hit_post_word.val().get_bit(w) {
                self.read_value.next = self.read_value.val() | self.post_words[w].q.val();
            }
        }
        for i in 0..INPUTS {
            if self.decode.hit_input.val().get_bit(i) {
                self.read_value.next = self.read_value.val() | (self.inputs[i].val() & self.input_readable[i].val());
            }
        }
        for i in 0..CONSTANTS {
            if self.decode.hit_constant.val().get_bit(i) {
                self.read_value.next = self.read_value.val() | self.constant_value[i].val();
            }
        }
        if self.decode.hit_bad_channel.val() {
            self.read_value.next = self.read_value.val() | self.status.bad_channel_count.val();
        }
        if self.decode.hit_post_status.val() {
            self.read_value.next = self.read_value.val() | self.posting.status.val();
        }
        if self.decode.hit_poll_error.val() {
            self.read_value.next = self.read_value.val() | self.poll_error.q.val();
        }

        self.direct_value.d.next = self.read_value.val();

        // the operation's end: a write now, a read after one cycle (its value registered, the
        // RAM read), or after the status table's answer
        self.finish.next = self.executing.q.val()
            & self.axil.op_write.val()
            & !self.decode.hit_queue.val()
            & !self.decode.hit_indexed.val()
            & !self.decode.hit_qp_status.val()
            & !self.decode.hit_qp_word.val().any();
        self.response.next = 0.into(); // OKAY
        if self.decode.decoded_nothing.val() {
            self.response.next = 3.into(); // DECERR
        } else if self.axil.op_write.val() & (self.decode.decoded_read_only.val() | self.value_refused.val()) {
            self.response.next = 2.into(); // SLVERR
        }
        self.waiting_ram.d.next = self.executing.q.val()
            & (!self.axil.op_write.val()
                | self.decode.hit_queue.val()
                | self.decode.hit_indexed.val()
                | self.decode.hit_qp_status.val()
                | self.decode.hit_qp_word.val().any());
        self.status.host_valid.next = false;
        self.status.host_poll.next = self.decode.hit_poll.val();
        self.status.host_channel.next = self.decode.channel_index.val();
        if self.decode.hit_poll.val() {
            self.status.host_channel.next = bit_cast::<CB, GB>(self.decode.channel_index.val().get_bits::<GB>(0)) << 5;
        }
        if self.executing.q.val() & !self.axil.op_write.val() & (self.decode.hit_poll.val() | self.decode.hit_channel.val()) {
            self.status.host_valid.next = true;
            self.waiting_ram.d.next = false;
            self.waiting_status.d.next = true;
        }

        // wait, RAM: queue words and QP table words, read and written back with the strobes
        self.queue_words.read_clock.next = self.clock.val();
        self.queue_words.write_clock.next = self.clock.val();
        self.queue_word.next = bit_cast::<6, 5>(self.decode.queue_index.val());
        if self.decode.hit_pace.val() {
            self.queue_word.next = bit_cast::<6, 5>(self.decode.queue_index.val()) | 0x20;
        }
        self.queue_words.read_address.next = self.queue_word.val();
        self.queue_value.next = self.queue_reset.val();
        self.write_bits.next = self.axil.op_mask.val() & self.queue_writable.val();
        if self.decode.hit_pace.val() {
            self.queue_value.next = 0.into();
            self.write_bits.next = self.axil.op_mask.val() & self.pace_writable.val();
        }
        if self.decode.queue_was_written.val() {
            self.queue_value.next = self.queue_words.read_data.val();
        }
        self.queue_words.write_address.next = self.queue_word.val();
        self.queue_merged.next = (self.queue_value.val() & !self.write_bits.val()) | (self.axil.op_data.val() & self.write_bits.val());
        self.queue_write.next = self.waiting_ram.q.val() & self.axil.op_write.val() & self.decode.hit_queue.val();
        self.queue_words.write_data.next = self.queue_merged.val();
        self.queue_words.write_enable.next = self.queue_write.val();
        if self.queue_write.val() {
            self.queue_written.d.next = self.queue_written.q.val().replace_bit(self.queue_word.val().index(), true);
            self.sched_we.d.next = true;
            self.sched_address.d.next = bit_cast::<7, 5>(self.decode.queue_index.val());
            if self.decode.hit_pace.val() {
                self.sched_address.d.next = self.pace_sched_address.val() | bit_cast::<7, 5>(self.decode.queue_index.val());
            }
            self.sched_data.d.next = self.queue_merged.val();
        }
        self.answer_value.next = 0.into();
        if self.waiting_ram.q.val() {
            self.finish.next = true;
            self.answer_value.next = self.direct_value.q.val();
            if self.decode.hit_queue.val() {
                self.answer_value.next = self.queue_value.val();
            }
            if self.decode.hit_indexed.val() {
                self.answer_value.next = self.responder_counter_value.val();
            }
            if self.decode.hit_qp_status.val() {
                self.answer_value.next = self.qp_status_value.val() & self.qp_status_readable.val();
            }
        }
        self.qp_entry_next.next = 0.into();
        for w in 0..QP_CONTEXT_WORDS {
            self.qp_table[w].clock.next = self.clock.val();
            self.qp_table[w].a_address.next = self.decode.qp_index.val();
            self.qp_table[w].b_address.next = self.qp_read_index.val();
            self.write_bits.next = self.axil.op_mask.val() & self.qp_writable[w].val();
            self.qp_table[w].a_write_data.next =
                (self.qp_table[w].a_read_data.val() & !self.write_bits.val()) | (self.axil.op_data.val() & self.write_bits.val());
            self.qp_table[w].a_write.next = self.waiting_ram.q.val() & self.axil.op_write.val() & self.decode.hit_qp_word.val().get_bit(w);
            if self.waiting_ram.q.val() & self.decode.hit_qp_word.val().get_bit(w) {
                self.answer_value.next = self.answer_value.val() | (self.qp_table[w].a_read_data.val() & self.qp_writable[w].val());
            }
            self.word_value.next = self.qp_table[w].b_read_data.val();
            self.qp_entry_next.next =
                self.qp_entry_next.val() | (bit_cast::<QP_CONTEXT_BITS, 32>(self.word_value.val()) << self.qp_word_shift[w].val());
        }
        self.qp_entry.d.next = self.qp_entry_next.val();
        self.qp_read_entry.next = self.qp_entry.q.val();
        self.qp_rx_entry_next.next = 0.into();
        for w in 0..QP_CONTEXT_WORDS {
            self.qp_mirror[w].clock.next = self.clock.val();
            self.qp_mirror[w].write.next = self.qp_table[w].a_write.val();
            self.qp_mirror[w].write_address.next = self.decode.qp_index.val();
            self.qp_mirror[w].write_data.next = self.qp_table[w].a_write_data.val();
            self.qp_mirror[w].read_address.next = self.qp_rx_read_index.val();
            self.word_value.next = self.qp_mirror[w].read_data.val();
            self.qp_rx_entry_next.next =
                self.qp_rx_entry_next.val() | (bit_cast::<QP_CONTEXT_BITS, 32>(self.word_value.val()) << self.qp_word_shift[w].val());
        }
        self.qp_rx_entry.d.next = self.qp_rx_entry_next.val();
        self.qp_rx_read_entry.next = self.qp_rx_entry.q.val();
        self.commit_valid.d.next = self.waiting_ram.q.val() & self.axil.op_write.val() & self.decode.hit_qp_word.val().get_bit(0);
        self.commit_index.d.next = self.decode.qp_index.val();
        self.qp_commit_valid.next = self.commit_valid.q.val();
        self.qp_commit_index.next = self.commit_index.q.val();

        // wait, status table: a poll (its error bitmap latched) or a channel's status
        self.status.clock.next = self.clock.val();
        self.status.reset.next = self.reset.val();
        self.status.cpl_valid.next = self.cpl_valid.val();
        self.status.cpl_channel.next = self.cpl_channel.val();
        self.status.cpl_status.next = self.cpl_status.val();
        self.cpl_ready.next = self.status.cpl_ready.val();
        if self.waiting_status.q.val() & self.status.host_done.val() {
            self.waiting_status.d.next = false;
            self.finish.next = true;
            self.answer_value.next = bit_cast::<32, 8>(self.status.host_status.val());
            if self.decode.hit_poll.val() {
                self.answer_value.next = self.status.host_finished.val();
                self.poll_error.d.next = self.status.host_error.val();
            }
        }
        self.axil.finish.next = self.finish.val();
        self.axil.finish_response.next = self.response.val();
        self.axil.finish_data.next = self.answer_value.val();

        // outputs and reset
        self.responder_counter_index.next = self.decode.queue_index.val();
        self.qp_status_index.next = self.decode.qp_index.val();
        self.region_write_valid.next = self.strobe_valid.q.val().get_bit(0);
        self.receive_post_valid.next = self.strobe_valid.q.val().get_bit(1);
        self.receive_completion_pop_valid.next = self.strobe_valid.q.val().get_bit(2);
        self.region_write_data.next = self.strobe_data.q.val();
        self.receive_post_data.next = self.strobe_data.q.val();
        self.receive_completion_pop_data.next = self.strobe_data.q.val();
        self.region_entry.next = 0.into();
        for w in 0..MEMORY_REGION_WORDS {
            self.word_value.next = self.flops[12 + w].q.val(); // REGION_FLOP
            self.region_entry.next =
                self.region_entry.val() | (bit_cast::<MEMORY_REGION_BITS, 32>(self.word_value.val()) << self.region_word_shift[w].val());
        }
        self.receive_entry.next = 0.into();
        for w in 0..RECEIVE_POST_WORDS {
            self.word_value.next = self.flops[18 + w].q.val(); // RECEIVE_FLOP
            self.receive_entry.next =
                self.receive_entry.val() | (bit_cast::<RECEIVE_POST_BITS, 32>(self.word_value.val()) << self.receive_word_shift[w].val());
        }
        self.sched_cfg_we.next = self.sched_we.q.val();
        self.sched_cfg_addr.next = self.sched_address.q.val();
        self.sched_cfg_wdata.next = self.sched_data.q.val();
        self.cfg_block_log2.next = self.flops[0].q.val().get_bits::<5>(0);
        self.cfg_tick_cycles.next = self.flops[9].q.val().get_bits::<16>(0);
        self.cfg_read_queue.next = self.flops[10].q.val().get_bits::<5>(0);
        self.cfg_local_mac.next = bit_cast::<48, 32>(self.flops[1].q.val()) | (bit_cast::<48, 32>(self.flops[2].q.val()) << 32);
        self.cfg_local_ipv4.next = self.flops[3].q.val();
        self.cfg_local_ipv6.next = bit_cast::<128, 32>(self.flops[4].q.val())
            | (bit_cast::<128, 32>(self.flops[5].q.val()) << 32)
            | (bit_cast::<128, 32>(self.flops[6].q.val()) << 64)
            | (bit_cast::<128, 32>(self.flops[7].q.val()) << 96);
        if self.reset.val() {
            self.executing.d.next = false;
            self.waiting_ram.d.next = false;
            self.waiting_status.d.next = false;
            for i in 0..FLOPS {
                self.flops[i].d.next = self.flop_reset[i].val();
            }
            for w in 0..POST_WORDS {
                self.post_words[w].d.next = 0.into();
            }
            self.queue_written.d.next = 0.into();
            self.commit_valid.d.next = false;
            self.poll_error.d.next = 0.into();
            self.sched_we.d.next = false;
            self.strobe_valid.d.next = 0.into();
        }
    }
}
