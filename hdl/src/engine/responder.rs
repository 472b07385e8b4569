//! [`Responder`]: the RX transport layer's checks and per-QP state, a record at a time (the next
//! one taken as the last is executed). For each final record of `RxFront` it decides what happens
//! to the packet: executed (where its payload goes, the receive completion, the coalesced ACK),
//! failed (the first check that fails, the NAK or the dropped message) or forwarded (a response,
//! for the requester). The specification is `docs/engine.md`; the golden model is
//! `ferroce_models::responder`; the decision is one packed [`DECISION`] entry.
//!
//! ```text
//!  r_* (final record) ─► look ─► Take ─► [Wait] ─► Connection ─► Psn ─► Sum ─► Compare
//!        │ (Idle, or Decide and  │ fields,        │ adders loaded   │ 64-bit adders  │
//!        │ Execute of the last)  │ class; ring    │                 │ (carry select) ▼
//!        │ context, state,       │ read           │   d_entry ◄── Execute ◄── Decide ◄── Flags
//!        │ pointer, region asked for              │               │ state, pointers written;
//!        └────────────────────────────────────────┴── next taken ─┘ (the next record's Take)
//!  recv ─► PostRead ─► PostCheck ─► PostWrite (ring, tail)
//!  qp_commit ─► FIFO ─► (Idle) state and pointers cleared
//! ```
//!
//! - A final record is **looked at** in Idle, or while the one in progress is in Decide or
//!   Execute: its QP context is asked for (`QL` cycles) and the responder's own RAMs are read
//!   by its fields: the per-QP state (block RAM, [`STATE_BITS`] bits), the receive queue
//!   pointers and the memory region the R_Key names.
//! - It is **taken** the next cycle: in **Take** from Idle, or as Execute finishes the last
//!   one. Its fields are registered, its opcode classified (tables computed from the
//!   contracts), the head receive buffer read with the head pointer; **Wait** (a context
//!   latency above 2) waits.
//! - **Connection** takes the context and the state (a QP whose state is not live starts from
//!   the context: the expected PSN is `rq_psn`), makes the connection checks and loads the
//!   64-bit adders from the RAMs: the write address, the RETH's end, the region's end and the
//!   message's bytes so far.
//! - **Psn** computes the PSN distance and the 16-bit checks while the adders add their 16-bit
//!   pieces with carry in 0 and 1; **Sum** selects each piece by its carry in
//!   (`common::wide::SelectAdder`); **Compare** compares the sums' 16-bit pieces
//!   (`WideCompare`), which Flags combines.
//! - **Flags** makes every request check; **Decide** takes the first failing one in precedence
//!   order and decodes its answer (tables from `CheckFailure::rc_answer`).
//! - **Execute** writes the QP's state and pointers back and builds the decision, once the
//!   last one has been taken (a cycle before, at the latest: `d_ready` reaches no enable);
//!   the decision waits for `d_ready` while the next record goes on.
//!
//! Back to back, one record takes 5 + `QL` cycles (7 with the register file's latency: its
//! Connection follows the last one's Execute); from Idle 7 + `QL`. Every register is fed
//! through at most one 16-bit adder or comparator, a selection by carries, or a check on
//! compared pieces (the 24-bit PSN distance is added 12 bits a cycle). Header records (`r_final` = 0) are taken and ignored at once. A record of the QP the
//! last one wrote reads its state word and pointers as that Execute writes them: a RAM read of
//! the word written in the same cycle gives the old one, so the written words are kept for a
//! cycle (`written_word`, `written_pointers`) and used instead, and the ring is read at the
//! head Execute writes.
//!
//! **Commits.** A rewrite of a QP's context (`qp_commit_valid`) restarts its responder: the state
//! is no longer live (the next packet starts from the context) and its receive queue is empty.
//! Commits wait in a FIFO and are applied between records, before anything else.
//!
//! **Receive queues.** Per QP a ring of `2^(RA − QB)` buffers (address, length) in block RAM and
//! 8-bit head and tail counters; a post to a full ring is refused (`recv_result_full`).

use crate::common::counter::EventCounter;
use crate::common::dual_port_ram::BlockRam;
use crate::common::elab::{bits_from, c};
use crate::common::fifo::Fifo;
use crate::common::wide::{SelectAdder, WideCompare};
use ferroce_contracts::opcode::{Opcode, Operation, Transport};
use ferroce_contracts::responder::{
    is_request, message_operation, Access, CheckFailure, MessageKind, NakCode, RcAnswer, ReceiveStatus, ResponderCounter, Syndrome,
    COUNTER_INDEX_BITS, DECISION, DECISION_BITS, FIRST_QP, MEMORY_REGION, MEMORY_REGION_BITS, RECEIVING_STATES, REGION_KEY_BITS,
};
use ferroce_contracts::tx::{Pmtu, QP_CONTEXT, QP_CONTEXT_BITS};
use rust_hdl::prelude::*;

/// Cycles from a QP context read request to its entry, by default: the register file's.
pub use ferroce_contracts::regs::QP_READ_LATENCY;

/// Bits of a QP's responder state word (block RAM):
///
/// | bits | field |
/// |---|---|
/// | 0 | live: the fields below hold the QP's state (else it starts from its context) |
/// | 1 | error: a fatal NAK moved the QP to the error state |
/// | 2 | NAK sent: a NAK asking for the expected PSN was sent |
/// | 3 | a message is open |
/// | 4 | the open message is a WRITE |
/// | 15:8 | packets executed since the last ACK or NAK |
/// | 55:32 | expected PSN |
/// | 87:64 | MSN |
/// | 127:96 | bytes of the open message so far |
/// | 159:128 | the open WRITE's DMA length |
/// | 255:192 | the open WRITE's VA |
///
/// Loss recovery and READ (the next issue) add their fields in the free bits.
pub const STATE_BITS: usize = 256;
/// Counters of the responder (`ResponderCounter::ALL`).
pub const COUNTERS: usize = 30;
/// Bits of a receive buffer in the ring RAM: address (63:0) and length (95:64).
const BUFFER_BITS: usize = 96;

/// Where the responder is.
#[derive(Copy, Clone, PartialEq, Eq, Debug, LogicState)]
pub enum ResponderState {
    /// Clearing the state and pointer RAMs after reset.
    Init,
    /// Applying commits, or waiting for a post or a record.
    Idle,
    /// The record is taken: its fields and its opcode's class registered (its RAM words and
    /// context were asked for the cycle before, as it was looked at).
    Take,
    /// Waiting for the QP context (a context latency above 2).
    Wait,
    /// The context, state, region and head buffer arrive: the connection checks; the adders
    /// are loaded.
    Connection,
    /// The PSN distance, the 16-bit checks; the adders' pieces.
    Psn,
    /// The adders' pieces selected: the sums.
    Sum,
    /// The comparators' pieces (Flags combines them).
    Compare,
    /// Every check.
    Flags,
    /// The first failing check and its answer.
    Decide,
    /// The state is written back, the decision built (once the last one is taken).
    Execute,
    /// A post: the QP's pointers are read.
    PostRead,
    /// A post: the pointers are kept and the ring's fullness computed.
    PostCheck,
    /// A post: the buffer is written into the ring, or refused.
    PostWrite,
}

/// The responder of `2^QB` QPs and `2^RB` memory regions, with `2^(RA − QB)` receive buffers
/// per QP (ring address bits `RA`, `QB < RA ≤ QB + 7`); `QL`: cycles from `qp_read_valid` to
/// `qp_read_entry` (at least 2).
#[derive(LogicBlock)]
pub struct Responder<const QB: usize, const RB: usize, const RA: usize, const QL: usize> {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous, active high: forgets the record in progress, clears the per-QP state, the
    /// receive queues, the commits waiting and the counters (not the region table).
    pub reset: Signal<In, Bit>,
    /// The per-QP RAMs are cleared (2^QB cycles after reset).
    pub init_done: Signal<Out, Bit>,

    /// Records: valid.
    pub r_valid: Signal<In, Bit>,
    /// Records: ready.
    pub r_ready: Signal<Out, Bit>,
    /// The packet's final record (a header record is taken and ignored).
    pub r_final: Signal<In, Bit>,
    /// The front end dropped the packet: `malformed`.
    pub r_drop: Signal<In, Bit>,
    /// The BTH is present.
    pub r_bth_ok: Signal<In, Bit>,
    /// BTH opcode.
    pub r_bth_opcode: Signal<In, Bits<8>>,
    /// BTH solicited event.
    pub r_bth_se: Signal<In, Bit>,
    /// BTH P_Key.
    pub r_bth_pkey: Signal<In, Bits<16>>,
    /// BTH destination QP.
    pub r_bth_dqpn: Signal<In, Bits<24>>,
    /// BTH AckReq.
    pub r_bth_ackreq: Signal<In, Bit>,
    /// BTH PSN.
    pub r_bth_psn: Signal<In, Bits<24>>,
    /// RETH VA.
    pub r_reth_va: Signal<In, Bits<64>>,
    /// RETH R_Key.
    pub r_reth_rkey: Signal<In, Bits<32>>,
    /// RETH DMA length.
    pub r_reth_dmalen: Signal<In, Bits<32>>,
    /// Immediate data.
    pub r_immdt: Signal<In, Bits<32>>,
    /// The record has an AETH.
    pub r_aeth_ok: Signal<In, Bit>,
    /// AETH syndrome.
    pub r_aeth_syndrome: Signal<In, Bits<8>>,
    /// AETH MSN.
    pub r_aeth_msn: Signal<In, Bits<24>>,
    /// Payload bytes.
    pub r_pay_len: Signal<In, Bits<16>>,

    /// QP context read: a request this cycle.
    pub qp_read_valid: Signal<Out, Bit>,
    /// QP context read: the QP.
    pub qp_read_index: Signal<Out, Bits<QB>>,
    /// QP context read: the packed `QP_CONTEXT` entry, `QL` cycles after the request.
    pub qp_read_entry: Signal<In, Bits<QP_CONTEXT_BITS>>,
    /// The host rewrote a QP context: its responder restarts.
    pub qp_commit_valid: Signal<In, Bit>,
    /// The QP whose context was rewritten.
    pub qp_commit_index: Signal<In, Bits<QB>>,

    /// Memory region table: write an entry this cycle.
    pub region_write_valid: Signal<In, Bit>,
    /// Memory region table: the entry (an R_Key's bits `8 + RB − 1 .. 8`).
    pub region_write_index: Signal<In, Bits<RB>>,
    /// Memory region table: the packed `MEMORY_REGION` entry.
    pub region_write_entry: Signal<In, Bits<MEMORY_REGION_BITS>>,

    /// Receive buffer post: valid.
    pub recv_valid: Signal<In, Bit>,
    /// Receive buffer post: ready.
    pub recv_ready: Signal<Out, Bit>,
    /// Receive buffer post: the QP.
    pub recv_qp: Signal<In, Bits<QB>>,
    /// Receive buffer post: the buffer's address.
    pub recv_address: Signal<In, Bits<64>>,
    /// Receive buffer post: the buffer's length.
    pub recv_length: Signal<In, Bits<32>>,
    /// One cycle per post, in order: its result.
    pub recv_result_valid: Signal<Out, Bit>,
    /// The post was refused: the QP's receive queue is full.
    pub recv_result_full: Signal<Out, Bit>,

    /// Decisions: valid.
    pub d_valid: Signal<Out, Bit>,
    /// Decisions: ready.
    pub d_ready: Signal<In, Bit>,
    /// Decisions: the packed `DECISION` entry.
    pub d_entry: Signal<Out, Bits<DECISION_BITS>>,

    /// Counter read: the `ResponderCounter` index.
    pub counter_index: Signal<In, Bits<COUNTER_INDEX_BITS>>,
    /// Counter read: the counter at the last cycle's index.
    pub counter_value: Signal<Out, Bits<32>>,

    // sub-blocks
    commits: Fifo<Bits<QB>>,
    state_ram: BlockRam<Bits<STATE_BITS>, QB>,
    pointer_ram: BlockRam<Bits<16>, QB>,
    ring_ram: BlockRam<Bits<BUFFER_BITS>, RA>,
    region_ram: BlockRam<Bits<MEMORY_REGION_BITS>, RB>,
    /// The payload's address: the message's target plus its bytes so far.
    address_adder: SelectAdder,
    /// The RETH's end: VA + DMA length.
    request_end_adder: SelectAdder,
    /// The region's end: base + length.
    region_end_adder: SelectAdder,
    /// The message's bytes with this packet: bytes so far + payload.
    bytes_adder: SelectAdder,
    /// The region's base against the VA.
    base_compare: WideCompare,
    /// The RETH's end against the region's end.
    end_compare: WideCompare,
    /// The message's bytes against the DMA length.
    dma_compare: WideCompare,
    /// The message's bytes against the receive buffer.
    buffer_compare: WideCompare,
    counters: [EventCounter; COUNTERS],

    // control
    state: DFF<ResponderState>,
    init_address: DFF<Bits<QB>>,
    countdown: DFF<Bits<3>>,

    // the record (taken in Idle)
    malformed: DFF<Bit>,
    opcode: DFF<Bits<8>>,
    solicited: DFF<Bit>,
    pkey: DFF<Bits<16>>,
    dest_qp: DFF<Bits<24>>,
    ack_request: DFF<Bit>,
    psn: DFF<Bits<24>>,
    va: DFF<Bits<64>>,
    rkey: DFF<Bits<32>>,
    dma_length: DFF<Bits<32>>,
    immediate: DFF<Bits<32>>,
    /// The AETH's syndrome (0 without an AETH): a forwarded packet's, for the requester.
    aeth_syndrome: DFF<Bits<8>>,
    /// The record has an AETH.
    aeth_present: DFF<Bit>,
    /// The AETH's MSN (0 without an AETH).
    aeth_msn: DFF<Bits<24>>,
    payload_length: DFF<Bits<16>>,
    /// The QP of the record or the post: the state and pointer RAMs' address.
    qp: DFF<Bits<QB>>,
    post_address: DFF<Bits<64>>,
    post_length: DFF<Bits<32>>,

    // Take: the opcode's class
    is_request: DFF<Bit>,
    executable: DFF<Bit>,
    is_write: DFF<Bit>,
    /// An RDMA READ request.
    is_read: DFF<Bit>,
    starts: DFF<Bit>,
    ends: DFF<Bit>,
    has_immediate: DFF<Bit>,
    qp_in_range: DFF<Bit>,
    region_in_range: DFF<Bit>,

    // Connection: the QP's attributes and state, the region, the head buffer
    state_ok: DFF<Bit>,
    pkey_ok: DFF<Bit>,
    transport_ok: DFF<Bit>,
    reliable: DFF<Bit>,
    pmtu_bytes: DFF<Bits<16>>,
    /// log2 of the PMTU.
    pmtu_shift: DFF<Bits<5>>,
    qp_pd: DFF<Bits<16>>,
    rnr_timer: DFF<Bits<5>>,
    ack_every: DFF<Bits<8>>,
    expected: DFF<Bits<24>>,
    msn: DFF<Bits<24>>,
    nak_sent: DFF<Bit>,
    open: DFF<Bit>,
    open_write: DFF<Bit>,
    unacknowledged: DFF<Bits<8>>,
    bytes: DFF<Bits<32>>,
    open_va: DFF<Bits<64>>,
    open_dma_length: DFF<Bits<32>>,
    region_valid: DFF<Bit>,
    region_rkey: DFF<Bits<32>>,
    region_pd: DFF<Bits<16>>,
    region_writable: DFF<Bit>,
    region_readable: DFF<Bit>,
    region_base: DFF<Bits<64>>,
    buffer_address: DFF<Bits<64>>,
    buffer_length: DFF<Bits<32>>,
    head: DFF<Bits<8>>,
    tail: DFF<Bits<8>>,
    /// A post: the QP's receive queue is full.
    ring_full: DFF<Bit>,

    // Psn
    /// Bits 11:0 of expected − PSN, and the carry into bit 12 (bit 12).
    behind_low: DFF<Bits<13>>,
    /// Expected − PSN (24 bits; bits 23:12 added in Sum).
    behind: DFF<Bits<24>>,
    psn_equal: DFF<Bit>,
    rkey_match: DFF<Bit>,
    pd_match: DFF<Bit>,
    queue_empty: DFF<Bit>,
    pmtu_equal: DFF<Bit>,
    within_pmtu: DFF<Bit>,
    payload_empty: DFF<Bit>,
    dma_empty: DFF<Bit>,
    head_next: DFF<Bits<8>>,
    unacknowledged_next: DFF<Bits<8>>,
    /// The message's DMA length: the RETH's on a first or only packet, else the open WRITE's.
    target_dma_length: DFF<Bits<32>>,

    /// A READ's DMA length is above 2^31.
    read_too_long: DFF<Bit>,

    // the PSN after a READ's `max(1, ⌈DMA length / PMTU⌉)`: a pipeline that runs every cycle,
    // its inputs held from Psn on, settled four cycles later, before Execute
    /// DMA length / PMTU, rounded down.
    read_whole: DFF<Bits<24>>,
    /// PMTU − 1.
    read_mask: DFF<Bits<16>>,
    /// The DMA length is not a multiple of the PMTU.
    read_partial: DFF<Bit>,
    /// Bits 11:0 of the PSN after the READ, and the carry into bit 12.
    read_end_low: DFF<Bits<13>>,
    /// The PSN after the READ: the expected PSN once it is executed.
    read_end: DFF<Bits<24>>,

    // Sum (first cycle)
    psn_next: DFF<Bits<24>>,
    msn_next: DFF<Bits<24>>,
    expected_previous: DFF<Bits<24>>,

    // Flags
    ack_count_reached: DFF<Bit>,
    fail_psn_duplicate: DFF<Bit>,
    fail_psn_out_of_sequence: DFF<Bit>,
    fail_unsupported_opcode: DFF<Bit>,
    fail_opcode_sequence: DFF<Bit>,
    fail_rkey_invalid: DFF<Bit>,
    fail_rkey_domain: DFF<Bit>,
    fail_rkey_access: DFF<Bit>,
    fail_rkey_bounds: DFF<Bit>,
    fail_payload_length: DFF<Bit>,
    fail_dma_length: DFF<Bit>,
    fail_no_receive_buffer: DFF<Bit>,
    fail_receive_buffer_too_small: DFF<Bit>,

    // Decide, Classify
    failure: DFF<Bits<5>>,
    forwarded: DFF<Bit>,
    executed: DFF<Bit>,
    /// A failure after the connection checks (the QP's state changes).
    checked: DFF<Bit>,
    answer_reack: DFF<Bit>,
    answer_psn_nak: DFF<Bit>,
    answer_rnr_nak: DFF<Bit>,
    answer_invalid_request: DFF<Bit>,
    answer_remote_access: DFF<Bit>,
    too_small: DFF<Bit>,

    // Execute: the decision
    out_failure: DFF<Bits<5>>,
    out_forwarded: DFF<Bit>,
    /// The forwarded packet carries an AETH.
    out_acknowledgement: DFF<Bit>,
    out_dropped_message: DFF<Bit>,
    out_write: DFF<Bit>,
    out_write_address: DFF<Bits<64>>,
    out_completion: DFF<Bit>,
    out_completion_write: DFF<Bit>,
    out_completion_status: DFF<Bits<2>>,
    out_completion_solicited: DFF<Bit>,
    out_completion_immediate_valid: DFF<Bit>,
    out_completion_length: DFF<Bits<32>>,
    out_completion_buffer_length: DFF<Bits<32>>,
    out_completion_buffer_address: DFF<Bits<64>>,
    out_read: DFF<Bit>,
    out_read_length: DFF<Bits<32>>,
    out_read_va: DFF<Bits<64>>,
    out_completion_immediate: DFF<Bits<32>>,
    out_response: DFF<Bit>,
    out_response_syndrome: DFF<Bits<8>>,
    out_response_psn: DFF<Bits<24>>,
    out_response_msn: DFF<Bits<24>>,
    /// A forwarded packet's opcode.
    out_forwarded_opcode: DFF<Bits<8>>,
    counter_events: DFF<Bits<COUNTERS>>,
    counter_read: DFF<Bits<32>>,
    result_valid: DFF<Bit>,
    result_full: DFF<Bit>,
    /// A decision waits for `d_ready` (the next record goes on meanwhile).
    pending: DFF<Bit>,
    /// The record on `r_*` was looked at last cycle (its RAM words and context asked for).
    looked: DFF<Bit>,
    /// Last cycle the record on `r_*` was of the QP in progress.
    same_qp: DFF<Bit>,
    /// Last cycle's state RAM read was of the word written then: `written_word` holds it.
    state_forward: DFF<Bit>,
    written_word: DFF<Bits<STATE_BITS>>,
    /// Last cycle's pointer RAM read was of the pointers written then: `written_pointers`.
    pointer_forward: DFF<Bit>,
    written_pointers: DFF<Bits<16>>,
    /// The decision's payload length and QP (the record's fields move on with the next record).
    out_payload_length: DFF<Bits<16>>,
    out_dest_qp: DFF<Bits<24>>,

    // combinational pieces
    /// The QP's state word as read, or zero when it is not live (it starts from the context).
    stored: Signal<Local, Bits<STATE_BITS>>,
    /// The first failing check's code (0: none) and whether the packet is forwarded.
    failure_now: Signal<Local, Bits<5>>,
    forwarded_now: Signal<Local, Bit>,
    /// The PSN inverted (in a signal of its own: in Verilog `~` would act on the widened value).
    psn_inverted: Signal<Local, Bits<24>>,
    duplicate: Signal<Local, Bit>,
    ahead: Signal<Local, Bit>,
    rkey_applies: Signal<Local, Bit>,
    end_beyond_region: Signal<Local, Bit>,
    needs_buffer: Signal<Local, Bit>,
    failure_bit: Signal<Local, Bits<32>>,
    success_completion: Signal<Local, Bit>,
    error_completion: Signal<Local, Bit>,
    answer_fatal: Signal<Local, Bit>,
    respond: Signal<Local, Bit>,
    dropped_message: Signal<Local, Bit>,
    new_nak_sent: Signal<Local, Bit>,
    new_open: Signal<Local, Bit>,
    new_open_write: Signal<Local, Bit>,
    new_unacknowledged: Signal<Local, Bits<8>>,
    new_expected: Signal<Local, Bits<24>>,
    new_msn: Signal<Local, Bits<24>>,
    new_bytes: Signal<Local, Bits<32>>,
    new_open_va: Signal<Local, Bits<64>>,
    new_open_dma_length: Signal<Local, Bits<32>>,
    /// An executed READ request (at the expected PSN, or a duplicate).
    read_executed: Signal<Local, Bit>,
    /// Execute is done with its decision (the last one taken, or taken now).
    completing: Signal<Local, Bit>,
    /// No commit and no receive post waits (they come before the next record).
    records_turn: Signal<Local, Bit>,
    /// The final record on `r_*` is looked at: its RAM words and its context asked for.
    look: Signal<Local, Bit>,
    /// The record on `r_*` (looked at last cycle) is taken into the registers.
    take: Signal<Local, Bit>,
    /// The QP of the record on `r_*`, and its DestQP (0 without a BTH).
    record_qp: Signal<Local, Bits<QB>>,
    record_dest_qp: Signal<Local, Bits<24>>,
    /// The state and pointer RAMs' read address.
    read_qp: Signal<Local, Bits<QB>>,
    /// The pointers as read, or as written last cycle when that was the same QP.
    pointers: Signal<Local, Bits<16>>,
    /// The receive queue's head the ring is read at.
    ring_head: Signal<Local, Bits<8>>,
    /// Execute writes the receive queue's head (a completion).
    pointer_write: Signal<Local, Bit>,
    /// The QP's state word as Execute writes it.
    state_word: Signal<Local, Bits<STATE_BITS>>,

    // constants (from the contracts)
    request_table: Constant<Bits<256>>,
    executable_table: Constant<Bits<256>>,
    write_table: Constant<Bits<256>>,
    read_table: Constant<Bits<256>>,
    starts_table: Constant<Bits<256>>,
    ends_table: Constant<Bits<256>>,
    immediate_table: Constant<Bits<256>>,
    receiving_table: Constant<Bits<8>>,
    /// Codes whose RC answer is a re-ACK, a PSN sequence NAK, an RNR NAK, an invalid request
    /// NAK, a remote access NAK (bit = code).
    reack_codes: Constant<Bits<32>>,
    psn_nak_codes: Constant<Bits<32>>,
    rnr_nak_codes: Constant<Bits<32>>,
    invalid_request_codes: Constant<Bits<32>>,
    remote_access_codes: Constant<Bits<32>>,
    /// The last connection check's code.
    last_connection_code: Constant<Bits<5>>,
    code_malformed: Constant<Bits<5>>,
    code_qp_number: Constant<Bits<5>>,
    code_qp_state: Constant<Bits<5>>,
    code_pkey: Constant<Bits<5>>,
    code_transport: Constant<Bits<5>>,
    code_psn_duplicate: Constant<Bits<5>>,
    code_psn_out_of_sequence: Constant<Bits<5>>,
    code_unsupported_opcode: Constant<Bits<5>>,
    code_opcode_sequence: Constant<Bits<5>>,
    code_rkey_invalid: Constant<Bits<5>>,
    code_rkey_domain: Constant<Bits<5>>,
    code_rkey_access: Constant<Bits<5>>,
    code_rkey_bounds: Constant<Bits<5>>,
    code_payload_length: Constant<Bits<5>>,
    code_dma_length: Constant<Bits<5>>,
    code_no_receive_buffer: Constant<Bits<5>>,
    code_receive_buffer_too_small: Constant<Bits<5>>,
    syndrome_ack: Constant<Bits<8>>,
    syndrome_psn_nak: Constant<Bits<8>>,
    syndrome_rnr_nak: Constant<Bits<8>>,
    syndrome_invalid_request: Constant<Bits<8>>,
    syndrome_remote_access: Constant<Bits<8>>,
    status_length_error: Constant<Bits<2>>,
    status_invalid_request: Constant<Bits<2>>,
    transport_rc: Constant<Bits<3>>,
    pmtu_unit: Constant<Bits<16>>,
    one: Constant<Bits<32>>,
    above_qps: Constant<Bits<24>>,
    /// The QP bits from `FIRST_QP`'s up: a QP number with none of them set is reserved.
    first_qps: Constant<Bits<24>>,
    above_regions: Constant<Bits<32>>,
    region_key_bits: Constant<Bits<8>>,
    write_access_at: Constant<Bits<8>>,
    read_access_at: Constant<Bits<8>>,
    /// log2 of the PMTU of code 0.
    pmtu_shift_base: Constant<Bits<5>>,
    qp_last: Constant<Bits<QB>>,
    ring_shift: Constant<Bits<8>>,
    ring_mask: Constant<Bits<8>>,
    ring_depth: Constant<Bits<8>>,
    wait_cycles: Constant<Bits<3>>,
    context_at: [Constant<Bits<10>>; 8],
    region_at: [Constant<Bits<8>>; 6],
    decision_at: [Constant<Bits<9>>; 25],
    counter_number: [Constant<Bits<COUNTER_INDEX_BITS>>; COUNTERS],
}

/// The `QP_CONTEXT` fields read, in `context_at` order.
const CONTEXT_FIELDS: [&str; 8] = ["state", "transport", "pmtu", "pkey", "pd", "rq_psn", "min_rnr_timer", "ack_every"];
/// The `MEMORY_REGION` fields, in `region_at` order.
const REGION_FIELDS: [&str; 6] = ["valid", "access", "pd", "rkey", "base", "length"];

/// The `DECISION` fields, in `decision_at` order.
const DECISION_FIELDS: [&str; 25] = [
    "failure",
    "forwarded",
    "acknowledgement",
    "dropped_message",
    "write",
    "write_length",
    "completion",
    "completion_kind",
    "completion_status",
    "completion_solicited",
    "completion_immediate_valid",
    "response",
    "response_syndrome",
    "qp",
    "response_psn",
    "response_msn",
    "completion_length",
    "completion_buffer_length",
    "completion_immediate",
    "write_address",
    "completion_buffer_address",
    "read",
    "read_length",
    "read_va",
    "forwarded_opcode",
];

/// A 256-bit table over opcodes: bit `v` is `f(opcode v)` for the opcodes the front end accepts.
fn opcode_table(f: impl Fn(Opcode) -> bool) -> Constant<Bits<256>> {
    Constant::new(bits_from::<256>(|v| Opcode::new(v as u8).is_ok_and(&f)))
}

/// A 32-bit table over failure codes: bit `code` is `f(failure)`.
fn code_table(f: impl Fn(CheckFailure) -> bool) -> Constant<Bits<32>> {
    Constant::new(bits_from::<32>(|code| CheckFailure::from_code(code as u8).is_some_and(&f)))
}

fn code(failure: CheckFailure) -> Constant<Bits<5>> {
    c::<5>(u64::from(failure.code()))
}

fn syndrome(s: Syndrome) -> Constant<Bits<8>> {
    c::<8>(u64::from(s.encode()))
}

impl<const QB: usize, const RB: usize, const RA: usize, const QL: usize> Default for Responder<QB, RB, RA, QL> {
    fn default() -> Self {
        assert!(QB < RA && RA <= QB + 7, "2 to 128 receive buffers per QP");
        assert!(QL >= 2 && QL <= 8, "the context latency is 2 to 8 cycles");
        assert!(RB + REGION_KEY_BITS as usize <= 32, "the region index is in the R_Key");
        assert_eq!(ResponderCounter::ALL.len(), COUNTERS);
        assert_eq!(DECISION.fields.len(), DECISION_FIELDS.len());
        let operation = |o: Opcode| message_operation(o.operation());
        let rc_answer = |f: CheckFailure| f.rc_answer();
        Self {
            clock: Default::default(),
            reset: Default::default(),
            init_done: Default::default(),
            r_valid: Default::default(),
            r_ready: Default::default(),
            r_final: Default::default(),
            r_drop: Default::default(),
            r_bth_ok: Default::default(),
            r_bth_opcode: Default::default(),
            r_bth_se: Default::default(),
            r_bth_pkey: Default::default(),
            r_bth_dqpn: Default::default(),
            r_bth_ackreq: Default::default(),
            r_bth_psn: Default::default(),
            r_reth_va: Default::default(),
            r_reth_rkey: Default::default(),
            r_reth_dmalen: Default::default(),
            r_immdt: Default::default(),
            r_aeth_ok: Default::default(),
            r_aeth_syndrome: Default::default(),
            r_aeth_msn: Default::default(),
            r_pay_len: Default::default(),
            qp_read_valid: Default::default(),
            qp_read_index: Default::default(),
            qp_read_entry: Default::default(),
            qp_commit_valid: Default::default(),
            qp_commit_index: Default::default(),
            region_write_valid: Default::default(),
            region_write_index: Default::default(),
            region_write_entry: Default::default(),
            recv_valid: Default::default(),
            recv_ready: Default::default(),
            recv_qp: Default::default(),
            recv_address: Default::default(),
            recv_length: Default::default(),
            recv_result_valid: Default::default(),
            recv_result_full: Default::default(),
            d_valid: Default::default(),
            d_ready: Default::default(),
            d_entry: Default::default(),
            counter_index: Default::default(),
            counter_value: Default::default(),
            commits: Default::default(),
            state_ram: Default::default(),
            pointer_ram: Default::default(),
            ring_ram: Default::default(),
            region_ram: Default::default(),
            address_adder: Default::default(),
            request_end_adder: Default::default(),
            region_end_adder: Default::default(),
            bytes_adder: Default::default(),
            base_compare: Default::default(),
            end_compare: Default::default(),
            dma_compare: Default::default(),
            buffer_compare: Default::default(),
            counters: Default::default(),
            state: Default::default(),
            init_address: Default::default(),
            countdown: Default::default(),
            malformed: Default::default(),
            opcode: Default::default(),
            solicited: Default::default(),
            pkey: Default::default(),
            dest_qp: Default::default(),
            ack_request: Default::default(),
            psn: Default::default(),
            va: Default::default(),
            rkey: Default::default(),
            dma_length: Default::default(),
            immediate: Default::default(),
            aeth_syndrome: Default::default(),
            aeth_present: Default::default(),
            aeth_msn: Default::default(),
            payload_length: Default::default(),
            qp: Default::default(),
            post_address: Default::default(),
            post_length: Default::default(),
            is_request: Default::default(),
            executable: Default::default(),
            is_write: Default::default(),
            is_read: Default::default(),
            starts: Default::default(),
            ends: Default::default(),
            has_immediate: Default::default(),
            qp_in_range: Default::default(),
            region_in_range: Default::default(),
            state_ok: Default::default(),
            pkey_ok: Default::default(),
            transport_ok: Default::default(),
            reliable: Default::default(),
            pmtu_bytes: Default::default(),
            pmtu_shift: Default::default(),
            qp_pd: Default::default(),
            rnr_timer: Default::default(),
            ack_every: Default::default(),
            expected: Default::default(),
            msn: Default::default(),
            nak_sent: Default::default(),
            open: Default::default(),
            open_write: Default::default(),
            unacknowledged: Default::default(),
            bytes: Default::default(),
            open_va: Default::default(),
            open_dma_length: Default::default(),
            region_valid: Default::default(),
            region_rkey: Default::default(),
            region_pd: Default::default(),
            region_writable: Default::default(),
            region_readable: Default::default(),
            region_base: Default::default(),
            buffer_address: Default::default(),
            buffer_length: Default::default(),
            head: Default::default(),
            tail: Default::default(),
            ring_full: Default::default(),
            behind_low: Default::default(),
            behind: Default::default(),
            psn_equal: Default::default(),
            rkey_match: Default::default(),
            pd_match: Default::default(),
            queue_empty: Default::default(),
            pmtu_equal: Default::default(),
            within_pmtu: Default::default(),
            payload_empty: Default::default(),
            dma_empty: Default::default(),
            head_next: Default::default(),
            unacknowledged_next: Default::default(),
            target_dma_length: Default::default(),
            read_too_long: Default::default(),
            read_whole: Default::default(),
            read_mask: Default::default(),
            read_partial: Default::default(),
            read_end_low: Default::default(),
            read_end: Default::default(),
            psn_next: Default::default(),
            msn_next: Default::default(),
            expected_previous: Default::default(),
            ack_count_reached: Default::default(),
            fail_psn_duplicate: Default::default(),
            fail_psn_out_of_sequence: Default::default(),
            fail_unsupported_opcode: Default::default(),
            fail_opcode_sequence: Default::default(),
            fail_rkey_invalid: Default::default(),
            fail_rkey_domain: Default::default(),
            fail_rkey_access: Default::default(),
            fail_rkey_bounds: Default::default(),
            fail_payload_length: Default::default(),
            fail_dma_length: Default::default(),
            fail_no_receive_buffer: Default::default(),
            fail_receive_buffer_too_small: Default::default(),
            failure: Default::default(),
            forwarded: Default::default(),
            executed: Default::default(),
            checked: Default::default(),
            answer_reack: Default::default(),
            answer_psn_nak: Default::default(),
            answer_rnr_nak: Default::default(),
            answer_invalid_request: Default::default(),
            answer_remote_access: Default::default(),
            too_small: Default::default(),
            out_failure: Default::default(),
            out_forwarded: Default::default(),
            out_acknowledgement: Default::default(),
            out_dropped_message: Default::default(),
            out_write: Default::default(),
            out_write_address: Default::default(),
            out_completion: Default::default(),
            out_completion_write: Default::default(),
            out_completion_status: Default::default(),
            out_completion_solicited: Default::default(),
            out_completion_immediate_valid: Default::default(),
            out_completion_length: Default::default(),
            out_completion_buffer_length: Default::default(),
            out_completion_buffer_address: Default::default(),
            out_read: Default::default(),
            out_read_length: Default::default(),
            out_read_va: Default::default(),
            out_completion_immediate: Default::default(),
            out_response: Default::default(),
            out_response_syndrome: Default::default(),
            out_response_psn: Default::default(),
            out_response_msn: Default::default(),
            out_forwarded_opcode: Default::default(),
            counter_events: Default::default(),
            counter_read: Default::default(),
            result_valid: Default::default(),
            result_full: Default::default(),
            pending: Default::default(),
            looked: Default::default(),
            same_qp: Default::default(),
            state_forward: Default::default(),
            written_word: Default::default(),
            pointer_forward: Default::default(),
            written_pointers: Default::default(),
            out_payload_length: Default::default(),
            out_dest_qp: Default::default(),
            stored: Default::default(),
            failure_now: Default::default(),
            forwarded_now: Default::default(),
            psn_inverted: Default::default(),
            duplicate: Default::default(),
            ahead: Default::default(),
            rkey_applies: Default::default(),
            end_beyond_region: Default::default(),
            needs_buffer: Default::default(),
            failure_bit: Default::default(),
            success_completion: Default::default(),
            error_completion: Default::default(),
            answer_fatal: Default::default(),
            respond: Default::default(),
            dropped_message: Default::default(),
            new_nak_sent: Default::default(),
            new_open: Default::default(),
            new_open_write: Default::default(),
            new_unacknowledged: Default::default(),
            new_expected: Default::default(),
            new_msn: Default::default(),
            new_bytes: Default::default(),
            new_open_va: Default::default(),
            new_open_dma_length: Default::default(),
            read_executed: Default::default(),
            completing: Default::default(),
            records_turn: Default::default(),
            look: Default::default(),
            take: Default::default(),
            record_qp: Default::default(),
            record_dest_qp: Default::default(),
            read_qp: Default::default(),
            pointers: Default::default(),
            ring_head: Default::default(),
            pointer_write: Default::default(),
            state_word: Default::default(),
            request_table: opcode_table(|o| is_request(o.operation())),
            executable_table: opcode_table(|o| operation(o).is_some() || o.operation() == Operation::ReadRequest),
            write_table: opcode_table(|o| operation(o).is_some_and(|(kind, _)| kind == MessageKind::Write)),
            read_table: opcode_table(|o| o.operation() == Operation::ReadRequest),
            starts_table: opcode_table(|o| operation(o).is_some_and(|(_, position)| position.starts())),
            ends_table: opcode_table(|o| operation(o).is_some_and(|(_, position)| position.ends())),
            immediate_table: opcode_table(|o| o.ext_headers().immdt),
            receiving_table: Constant::new(bits_from::<8>(|code| {
                RECEIVING_STATES.iter().any(|s| usize::from(s.code()) == code)
            })),
            reack_codes: code_table(|f| rc_answer(f) == RcAnswer::Reack),
            psn_nak_codes: code_table(|f| rc_answer(f) == RcAnswer::Nak(NakCode::PsnSequenceError)),
            rnr_nak_codes: code_table(|f| rc_answer(f) == RcAnswer::RnrNak),
            invalid_request_codes: code_table(|f| rc_answer(f) == RcAnswer::Nak(NakCode::InvalidRequest)),
            remote_access_codes: code_table(|f| rc_answer(f) == RcAnswer::Nak(NakCode::RemoteAccessError)),
            last_connection_code: code(CheckFailure::Transport),
            code_malformed: code(CheckFailure::Malformed),
            code_qp_number: code(CheckFailure::QpNumber),
            code_qp_state: code(CheckFailure::QpState),
            code_pkey: code(CheckFailure::Pkey),
            code_transport: code(CheckFailure::Transport),
            code_psn_duplicate: code(CheckFailure::PsnDuplicate),
            code_psn_out_of_sequence: code(CheckFailure::PsnOutOfSequence),
            code_unsupported_opcode: code(CheckFailure::UnsupportedOpcode),
            code_opcode_sequence: code(CheckFailure::OpcodeSequence),
            code_rkey_invalid: code(CheckFailure::RkeyInvalid),
            code_rkey_domain: code(CheckFailure::RkeyDomain),
            code_rkey_access: code(CheckFailure::RkeyAccess),
            code_rkey_bounds: code(CheckFailure::RkeyBounds),
            code_payload_length: code(CheckFailure::PayloadLength),
            code_dma_length: code(CheckFailure::DmaLength),
            code_no_receive_buffer: code(CheckFailure::NoReceiveBuffer),
            code_receive_buffer_too_small: code(CheckFailure::ReceiveBufferTooSmall),
            syndrome_ack: syndrome(Syndrome::ack()),
            syndrome_psn_nak: syndrome(Syndrome::Nak(NakCode::PsnSequenceError)),
            syndrome_rnr_nak: syndrome(Syndrome::RnrNak { timer: 0 }),
            syndrome_invalid_request: syndrome(Syndrome::Nak(NakCode::InvalidRequest)),
            syndrome_remote_access: syndrome(Syndrome::Nak(NakCode::RemoteAccessError)),
            status_length_error: c::<2>(u64::from(ReceiveStatus::LengthError.code())),
            status_invalid_request: c::<2>(u64::from(ReceiveStatus::InvalidRequest.code())),
            transport_rc: c::<3>(u64::from(Transport::Rc.bits())),
            pmtu_unit: c::<16>(u64::from(Pmtu::B256.bytes() >> Pmtu::B256.code())),
            one: c::<32>(1),
            above_qps: c::<24>(0xFF_FFFF & !((1 << QB) - 1)),
            first_qps: c::<24>(0xFF_FFFF & !(u64::from(FIRST_QP) - 1)),
            above_regions: c::<32>(0xFFFF_FFFF & !((1u64 << (RB + REGION_KEY_BITS as usize)) - 1)),
            region_key_bits: c::<8>(u64::from(REGION_KEY_BITS)),
            write_access_at: c::<8>(
                (MEMORY_REGION.offset("access") as u32
                    + Access {
                        remote_write: true,
                        remote_read: false,
                    }
                    .code()
                    .trailing_zeros()) as u64,
            ),
            read_access_at: c::<8>(
                (MEMORY_REGION.offset("access") as u32
                    + Access {
                        remote_write: false,
                        remote_read: true,
                    }
                    .code()
                    .trailing_zeros()) as u64,
            ),
            pmtu_shift_base: c::<5>(u64::from(Pmtu::B256.log2() - u32::from(Pmtu::B256.code()))),
            qp_last: c::<QB>((1 << QB) - 1),
            ring_shift: c::<8>((RA - QB) as u64),
            ring_mask: c::<8>((1 << (RA - QB)) - 1),
            ring_depth: c::<8>(1 << (RA - QB)),
            wait_cycles: c::<3>((QL - 2) as u64),
            context_at: std::array::from_fn(|i| c::<10>(QP_CONTEXT.offset(CONTEXT_FIELDS[i]) as u64)),
            region_at: std::array::from_fn(|i| c::<8>(MEMORY_REGION.offset(REGION_FIELDS[i]) as u64)),
            decision_at: std::array::from_fn(|i| c::<9>(DECISION.offset(DECISION_FIELDS[i]) as u64)),
            counter_number: std::array::from_fn(|i| c::<COUNTER_INDEX_BITS>(i as u64)),
        }
    }
}

impl<const QB: usize, const RB: usize, const RA: usize, const QL: usize> Logic for Responder<QB, RB, RA, QL> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            state,
            init_address,
            countdown,
            malformed,
            opcode,
            solicited,
            pkey,
            dest_qp,
            ack_request,
            psn,
            va,
            rkey,
            dma_length,
            immediate,
            aeth_syndrome,
            aeth_present,
            aeth_msn,
            payload_length,
            qp,
            post_address,
            post_length,
            ring_full,
            is_request,
            executable,
            is_write,
            is_read,
            starts,
            ends,
            has_immediate,
            qp_in_range,
            region_in_range,
            state_ok,
            pkey_ok,
            transport_ok,
            reliable,
            pmtu_bytes,
            pmtu_shift,
            qp_pd,
            rnr_timer,
            ack_every,
            expected,
            msn,
            nak_sent,
            open,
            open_write,
            unacknowledged,
            bytes,
            open_va,
            open_dma_length,
            region_valid,
            region_rkey,
            region_pd,
            region_writable,
            region_readable,
            region_base,
            buffer_address,
            buffer_length,
            head,
            tail,
            behind_low,
            behind,
            psn_equal,
            rkey_match,
            pd_match,
            queue_empty,
            pmtu_equal,
            within_pmtu,
            payload_empty,
            dma_empty,
            head_next,
            unacknowledged_next,
            target_dma_length,
            read_too_long,
            read_whole,
            read_mask,
            read_partial,
            read_end_low,
            read_end,
            psn_next,
            msn_next,
            expected_previous,
            ack_count_reached,
            fail_psn_duplicate,
            fail_psn_out_of_sequence,
            fail_unsupported_opcode,
            fail_opcode_sequence,
            fail_rkey_invalid,
            fail_rkey_domain,
            fail_rkey_access,
            fail_rkey_bounds,
            fail_payload_length,
            fail_dma_length,
            fail_no_receive_buffer,
            fail_receive_buffer_too_small,
            failure,
            forwarded,
            executed,
            checked,
            answer_reack,
            answer_psn_nak,
            answer_rnr_nak,
            answer_invalid_request,
            answer_remote_access,
            too_small,
            out_failure,
            out_forwarded,
            out_acknowledgement,
            out_dropped_message,
            out_write,
            out_write_address,
            out_completion,
            out_completion_write,
            out_completion_status,
            out_completion_solicited,
            out_completion_immediate_valid,
            out_completion_length,
            out_completion_buffer_length,
            out_completion_buffer_address,
            out_completion_immediate,
            out_read,
            out_read_length,
            out_read_va,
            out_response,
            out_response_syndrome,
            out_response_psn,
            out_response_msn,
            out_forwarded_opcode,
            counter_events,
            counter_read,
            result_valid,
            result_full,
            pending,
            looked,
            same_qp,
            state_forward,
            written_word,
            pointer_forward,
            written_pointers,
            out_payload_length,
            out_dest_qp
        );
        clock!(
            self,
            clock,
            commits,
            state_ram,
            pointer_ram,
            ring_ram,
            region_ram,
            address_adder,
            request_end_adder,
            region_end_adder,
            bytes_adder,
            base_compare,
            end_compare,
            dma_compare,
            buffer_compare
        );
        for i in 0..COUNTERS {
            self.counters[i].clock.next = self.clock.val();
            self.counters[i].reset.next = self.reset.val();
            self.counters[i].increment.next = self.counter_events.q.val().get_bit(i);
        }
        self.commits.reset.next = self.reset.val();
        self.commits.push.next = self.qp_commit_valid.val();
        self.commits.push_value.next = self.qp_commit_index.val();
        self.commits.pop.next = false;

        // The next record: looked at (its RAM words and context asked for) in Idle, or while the
        // one in progress is decided; taken the next cycle, in Take or as Execute finishes, so
        // that its Connection follows the last one's Execute (commits and posts come first)
        // (the last decision taken in a cycle before: `d_ready` reaches no take nor write enable)
        self.completing.next = !self.pending.q.val();
        self.records_turn.next = !self.commits.head_valid.val() && !self.recv_valid.val();
        self.look.next = false;
        self.take.next = false;
        if (self.state.q.val() == ResponderState::Idle) || (self.state.q.val() == ResponderState::Decide) {
            self.look.next = self.r_valid.val() && self.r_final.val() && self.records_turn.val();
        }
        if self.state.q.val() == ResponderState::Execute {
            if self.completing.val() && self.looked.q.val() && self.records_turn.val() {
                self.take.next = true;
            } else {
                self.look.next = self.r_valid.val() && self.r_final.val() && self.records_turn.val();
            }
        }
        if self.state.q.val() == ResponderState::Take {
            self.take.next = true;
        }
        self.looked.d.next = self.look.val();
        self.record_qp.next = self.r_bth_dqpn.val().get_bits::<QB>(0);
        self.record_dest_qp.next = self.r_bth_dqpn.val();
        if !self.r_bth_ok.val() {
            self.record_dest_qp.next = 0.into();
        }
        self.same_qp.d.next = self.record_qp.val() == self.qp.q.val();

        // RAMs: the record's (or post's) QP, the record's on `r_*` while it is looked at and
        // taken; the ring by the QP and its head (or, to post, tail) pointer; the region by the
        // R_Key; the host writes the region table
        self.read_qp.next = self.qp.q.val();
        self.region_ram.read_address.next = self.rkey.q.val().get_bits::<RB>(self.region_key_bits.val().index());
        if self.look.val() || self.take.val() {
            self.read_qp.next = self.record_qp.val();
            self.region_ram.read_address.next = self.r_reth_rkey.val().get_bits::<RB>(self.region_key_bits.val().index());
        }
        self.state_ram.read_address.next = self.read_qp.val();
        self.pointer_ram.read_address.next = self.read_qp.val();
        // a read of what was written the cycle before gives the old word: the new one instead
        self.pointers.next = self.pointer_ram.read_data.val();
        if self.pointer_forward.q.val() {
            self.pointers.next = self.written_pointers.q.val();
        }
        self.region_ram.write.next = self.region_write_valid.val();
        self.region_ram.write_address.next = self.region_write_index.val();
        self.region_ram.write_data.next = self.region_write_entry.val();
        self.state_ram.write.next = false;
        self.state_ram.write_address.next = self.qp.q.val();
        self.pointer_ram.write.next = false;
        self.pointer_ram.write_address.next = self.qp.q.val();
        self.pointer_ram.write_data.next = (bit_cast::<16, 8>(self.tail.q.val()) << 8) | bit_cast::<16, 8>(self.head_next.q.val());
        self.ring_ram.write.next = false;
        self.ring_ram.write_address.next =
            (bit_cast::<RA, QB>(self.qp.q.val()) << self.ring_shift.val()) | bit_cast::<RA, 8>(self.tail.q.val() & self.ring_mask.val());
        self.ring_ram.write_data.next =
            (bit_cast::<BUFFER_BITS, 32>(self.post_length.q.val()) << 64) | bit_cast::<BUFFER_BITS, 64>(self.post_address.q.val());

        // the QP's state word as it arrives in Connection (see `STATE_BITS`)
        self.stored.next = 0.into();
        if self.state_ram.read_data.val().get_bit(0) {
            self.stored.next = self.state_ram.read_data.val();
        }
        if self.state_forward.q.val() {
            self.stored.next = self.written_word.q.val();
        }

        // adders (loaded in Connection, from the RAMs): the payload's address is the message's
        // target plus its bytes so far; the target is the RETH's VA (first or only), the open
        // WRITE's, or the head receive buffer
        self.address_adder.a.next = self.ring_ram.read_data.val().get_bits::<64>(0);
        if self.is_write.q.val() && self.starts.q.val() {
            self.address_adder.a.next = self.va.q.val();
        }
        if self.is_write.q.val() && !self.starts.q.val() {
            self.address_adder.a.next = self.stored.val().get_bits::<64>(192);
        }
        self.address_adder.b.next = 0.into();
        if self.stored.val().get_bit(3) && !self.starts.q.val() {
            self.address_adder.b.next = bit_cast::<64, 32>(self.stored.val().get_bits::<32>(96));
        }
        self.request_end_adder.a.next = self.va.q.val();
        self.request_end_adder.b.next = bit_cast::<64, 32>(self.dma_length.q.val());
        self.region_end_adder.a.next = self.region_ram.read_data.val().get_bits::<64>(self.region_at[4].val().index());
        self.region_end_adder.b.next = self.region_ram.read_data.val().get_bits::<64>(self.region_at[5].val().index());
        self.bytes_adder.a.next = self.address_adder.b.val();
        self.bytes_adder.b.next = bit_cast::<64, 16>(self.payload_length.q.val());
        self.address_adder.load.next = false;
        self.request_end_adder.load.next = false;
        self.region_end_adder.load.next = false;
        self.bytes_adder.load.next = false;
        // comparators (from the sums, held while Compare runs)
        self.base_compare.a.next = self.region_base.q.val();
        self.base_compare.b.next = self.va.q.val();
        self.end_compare.a.next = self.request_end_adder.sum.val();
        self.end_compare.b.next = self.region_end_adder.sum.val();
        self.dma_compare.a.next = self.bytes_adder.sum.val();
        self.dma_compare.b.next = bit_cast::<64, 32>(self.target_dma_length.q.val());
        self.buffer_compare.a.next = self.bytes_adder.sum.val();
        self.buffer_compare.b.next = bit_cast::<64, 32>(self.buffer_length.q.val());

        self.psn_inverted.next = !self.psn.q.val();

        // Flags: the PSN's place (RC) and the conditions of the request checks
        self.duplicate.next = !self.psn_equal.q.val() && (!self.behind.q.val().get_bit(23) || (self.behind.q.val().get_bits::<23>(0) == 0));
        self.ahead.next = !self.psn_equal.q.val() && !self.duplicate.val();
        self.rkey_applies.next = ((self.is_write.q.val() && self.starts.q.val()) || self.is_read.q.val()) && !self.dma_empty.q.val();
        self.end_beyond_region.next = (self.request_end_adder.carry.val() && !self.region_end_adder.carry.val())
            || ((self.request_end_adder.carry.val() == self.region_end_adder.carry.val()) && self.end_compare.greater.val());
        self.needs_buffer.next = (!self.is_write.q.val() && !self.is_read.q.val()) || (self.ends.q.val() && self.has_immediate.q.val());

        // a READ's PSNs and the PSN after them (see the fields)
        self.read_whole.d.next = bit_cast::<24, 32>(self.dma_length.q.val() >> self.pmtu_shift.q.val());
        self.read_mask.d.next = self.pmtu_bytes.q.val() - 1;
        self.read_partial.d.next = (self.dma_length.q.val().get_bits::<16>(0) & self.read_mask.q.val()) != 0;
        // PSN + whole + 1 for a partial packet (or the one packet of a zero-length READ)
        self.read_end_low.d.next = bit_cast::<13, 12>(self.psn.q.val().get_bits::<12>(0))
            + bit_cast::<13, 12>(self.read_whole.q.val().get_bits::<12>(0))
            + bit_cast::<13, 1>((self.read_partial.q.val() || self.dma_empty.q.val()).into());
        self.read_end.d.next = (bit_cast::<24, 12>(
            self.psn.q.val().get_bits::<12>(12)
                + self.read_whole.q.val().get_bits::<12>(12)
                + bit_cast::<12, 1>(self.read_end_low.q.val().get_bits::<1>(12)),
        ) << 12)
            | bit_cast::<24, 12>(self.read_end_low.q.val().get_bits::<12>(0));

        // Execute: the answer, the completion and the QP's next state
        self.answer_fatal.next = self.answer_invalid_request.q.val() || self.answer_remote_access.q.val();
        self.read_executed.next = self.executed.q.val() && self.is_read.q.val();
        // a READ's response acknowledges it (no ACK)
        self.respond.next = (self.executed.q.val()
            && !self.is_read.q.val()
            && self.reliable.q.val()
            && (self.ack_request.q.val() || self.ack_count_reached.q.val()))
            || self.answer_reack.q.val()
            || (self.answer_psn_nak.q.val() && !self.nak_sent.q.val())
            || self.answer_rnr_nak.q.val()
            || self.answer_fatal.val();
        self.success_completion.next = self.executed.q.val() && self.ends.q.val() && (!self.is_write.q.val() || self.has_immediate.q.val());
        self.error_completion.next = self.answer_fatal.val()
            && ((self.open.q.val() && !self.open_write.q.val()) || self.too_small.q.val())
            && !self.queue_empty.q.val();
        self.dropped_message.next = !self.reliable.q.val()
            && self.open.q.val()
            && (self.checked.q.val() || (self.executed.q.val() && (!self.psn_equal.q.val() || self.starts.q.val())));
        self.new_nak_sent.next = self.reliable.q.val() && (self.answer_psn_nak.q.val() || self.answer_rnr_nak.q.val());
        if self.answer_reack.q.val() {
            self.new_nak_sent.next = self.nak_sent.q.val();
        }
        self.new_open.next = self.reliable.q.val() && !self.answer_fatal.val() && self.open.q.val();
        self.new_open_write.next = self.open_write.q.val();
        self.new_unacknowledged.next = self.unacknowledged.q.val();
        self.new_expected.next = self.expected.q.val();
        self.new_msn.next = self.msn.q.val();
        self.new_bytes.next = self.bytes.q.val();
        self.new_open_va.next = self.open_va.q.val();
        self.new_open_dma_length.next = self.open_dma_length.q.val();
        if self.executed.q.val() {
            self.new_open.next = !self.ends.q.val();
            self.new_open_write.next = self.is_write.q.val();
            self.new_expected.next = self.psn_next.q.val();
            self.new_bytes.next = self.bytes_adder.sum.val().get_bits::<32>(0);
            if self.reliable.q.val() {
                self.new_unacknowledged.next = self.unacknowledged_next.q.val();
            }
            if self.ends.q.val() {
                self.new_msn.next = self.msn_next.q.val();
            }
            if self.starts.q.val() {
                self.new_open_va.next = self.va.q.val();
                self.new_open_dma_length.next = self.dma_length.q.val();
            }
        }
        if self.respond.val() {
            self.new_unacknowledged.next = 0.into();
        }
        // a READ opens no message; at the expected PSN the MSN counts it, the expected PSN moves
        // past its response and the coalesced count restarts; a duplicate changes nothing
        if self.read_executed.val() {
            self.new_open.next = self.open.q.val();
            self.new_open_write.next = self.open_write.q.val();
            self.new_bytes.next = self.bytes.q.val();
            if self.duplicate.val() {
                self.new_nak_sent.next = self.nak_sent.q.val();
                self.new_expected.next = self.expected.q.val();
                self.new_msn.next = self.msn.q.val();
                self.new_unacknowledged.next = self.unacknowledged.q.val();
            } else {
                self.new_expected.next = self.read_end.q.val();
                self.new_msn.next = self.msn_next.q.val();
                self.new_unacknowledged.next = 0.into();
            }
        }
        // the state word (see `STATE_BITS`)
        self.state_word.next = bit_cast::<STATE_BITS, 1>(true.into())
            | (bit_cast::<STATE_BITS, 1>(self.answer_fatal.val().into()) << 1)
            | (bit_cast::<STATE_BITS, 1>(self.new_nak_sent.val().into()) << 2)
            | (bit_cast::<STATE_BITS, 1>(self.new_open.val().into()) << 3)
            | (bit_cast::<STATE_BITS, 1>(self.new_open_write.val().into()) << 4)
            | (bit_cast::<STATE_BITS, 8>(self.new_unacknowledged.val()) << 8)
            | (bit_cast::<STATE_BITS, 24>(self.new_expected.val()) << 32)
            | (bit_cast::<STATE_BITS, 24>(self.new_msn.val()) << 64)
            | (bit_cast::<STATE_BITS, 32>(self.new_bytes.val()) << 96)
            | (bit_cast::<STATE_BITS, 32>(self.new_open_dma_length.val()) << 128)
            | (bit_cast::<STATE_BITS, 64>(self.new_open_va.val()) << 192);
        self.state_ram.write_data.next = self.state_word.val();
        self.pointer_write.next = self.success_completion.val() || self.error_completion.val();
        // the ring is read at the head: the one Execute writes now when the record taken now is
        // of the same QP
        self.ring_head.next = self.pointers.val().get_bits::<8>(0);
        if (self.state.q.val() == ResponderState::Execute) && self.pointer_write.val() && self.same_qp.q.val() {
            self.ring_head.next = self.head_next.q.val();
        }
        self.ring_ram.read_address.next = (bit_cast::<RA, QB>(self.read_qp.val()) << self.ring_shift.val())
            | bit_cast::<RA, 8>(self.ring_head.val() & self.ring_mask.val());
        self.failure_bit.next = self.one.val() << self.failure.q.val();

        // Decide: the first failing check in precedence order (the last assignment wins)
        self.failure_now.next = 0.into();
        if self.fail_receive_buffer_too_small.q.val() {
            self.failure_now.next = self.code_receive_buffer_too_small.val();
        }
        if self.fail_no_receive_buffer.q.val() {
            self.failure_now.next = self.code_no_receive_buffer.val();
        }
        if self.fail_dma_length.q.val() {
            self.failure_now.next = self.code_dma_length.val();
        }
        if self.fail_payload_length.q.val() {
            self.failure_now.next = self.code_payload_length.val();
        }
        if self.fail_rkey_bounds.q.val() {
            self.failure_now.next = self.code_rkey_bounds.val();
        }
        if self.fail_rkey_access.q.val() {
            self.failure_now.next = self.code_rkey_access.val();
        }
        if self.fail_rkey_domain.q.val() {
            self.failure_now.next = self.code_rkey_domain.val();
        }
        if self.fail_rkey_invalid.q.val() {
            self.failure_now.next = self.code_rkey_invalid.val();
        }
        if self.fail_opcode_sequence.q.val() {
            self.failure_now.next = self.code_opcode_sequence.val();
        }
        if self.fail_unsupported_opcode.q.val() {
            self.failure_now.next = self.code_unsupported_opcode.val();
        }
        if self.fail_psn_out_of_sequence.q.val() {
            self.failure_now.next = self.code_psn_out_of_sequence.val();
        }
        if self.fail_psn_duplicate.q.val() {
            self.failure_now.next = self.code_psn_duplicate.val();
        }
        if !self.transport_ok.q.val() {
            self.failure_now.next = self.code_transport.val();
        }
        if !self.pkey_ok.q.val() {
            self.failure_now.next = self.code_pkey.val();
        }
        if !self.state_ok.q.val() {
            self.failure_now.next = self.code_qp_state.val();
        }
        if !self.qp_in_range.q.val() {
            self.failure_now.next = self.code_qp_number.val();
        }
        // a response or CNP is forwarded before the connection checks
        self.forwarded_now.next = !self.malformed.q.val() && !self.is_request.q.val();
        if !self.malformed.q.val() && !self.is_request.q.val() {
            self.failure_now.next = 0.into();
        }
        if self.malformed.q.val() {
            self.failure_now.next = self.code_malformed.val();
        }

        // ports driven by the states below
        self.init_done.next = self.state.q.val() != ResponderState::Init;
        // a header record is taken and ignored at once, a final one when `take`
        self.r_ready.next = (self.r_valid.val() && !self.r_final.val() && (self.state.q.val() != ResponderState::Init)) || self.take.val();
        self.recv_ready.next = false;
        // asked for as a record is looked at
        self.qp_read_valid.next = self.look.val();
        self.qp_read_index.next = self.record_qp.val();
        self.state_forward.d.next = false;
        self.pointer_forward.d.next = false;
        self.d_valid.next = self.pending.q.val();
        self.pending.d.next = self.pending.q.val() && !self.d_ready.val();
        self.result_valid.d.next = false;
        self.counter_events.d.next = 0.into();

        match self.state.q.val() {
            ResponderState::Init => {
                self.state_ram.write.next = true;
                self.state_ram.write_address.next = self.init_address.q.val();
                self.state_ram.write_data.next = 0.into();
                self.pointer_ram.write.next = true;
                self.pointer_ram.write_address.next = self.init_address.q.val();
                self.pointer_ram.write_data.next = 0.into();
                self.init_address.d.next = self.init_address.q.val() + 1;
                if self.init_address.q.val() == self.qp_last.val() {
                    self.state.d.next = ResponderState::Idle;
                }
            }
            ResponderState::Idle => {
                if self.commits.head_valid.val() {
                    // a commit: the QP starts again from its context, with no receive buffer
                    self.commits.pop.next = true;
                    self.state_ram.write.next = true;
                    self.state_ram.write_address.next = self.commits.head.val();
                    self.state_ram.write_data.next = 0.into();
                    self.pointer_ram.write.next = true;
                    self.pointer_ram.write_address.next = self.commits.head.val();
                    self.pointer_ram.write_data.next = 0.into();
                } else if self.recv_valid.val() {
                    self.recv_ready.next = true;
                    self.qp.d.next = self.recv_qp.val();
                    self.post_address.d.next = self.recv_address.val();
                    self.post_length.d.next = self.recv_length.val();
                    self.state.d.next = ResponderState::PostRead;
                } else if self.look.val() {
                    self.state.d.next = ResponderState::Take;
                }
            }
            // the record is taken below (`take`)
            ResponderState::Take => {}
            ResponderState::Wait => {
                self.countdown.d.next = self.countdown.q.val() - 1;
                if self.countdown.q.val() == 0 {
                    self.state.d.next = ResponderState::Connection;
                }
            }
            ResponderState::Connection => {
                // the context is on `qp_read_entry` in this cycle only
                self.state_ok.d.next = self
                    .receiving_table
                    .val()
                    .get_bit(self.qp_read_entry.val().get_bits::<3>(self.context_at[0].val().index()).index())
                    && !self.stored.val().get_bit(1);
                self.pkey_ok.d.next = (self.pkey.q.val().get_bits::<15>(0)
                    == self.qp_read_entry.val().get_bits::<15>(self.context_at[3].val().index()))
                    && (self.pkey.q.val().get_bits::<15>(0) != 0)
                    && (self.pkey.q.val().get_bit(15) || self.qp_read_entry.val().get_bit(self.context_at[3].val().index() + 15));
                self.transport_ok.d.next =
                    self.opcode.q.val().get_bits::<3>(5) == self.qp_read_entry.val().get_bits::<3>(self.context_at[1].val().index());
                self.reliable.d.next = self.qp_read_entry.val().get_bits::<3>(self.context_at[1].val().index()) == self.transport_rc.val();
                self.pmtu_bytes.d.next = self.pmtu_unit.val() << self.qp_read_entry.val().get_bits::<3>(self.context_at[2].val().index());
                self.pmtu_shift.d.next =
                    self.pmtu_shift_base.val() + bit_cast::<5, 3>(self.qp_read_entry.val().get_bits::<3>(self.context_at[2].val().index()));
                self.qp_pd.d.next = self.qp_read_entry.val().get_bits::<16>(self.context_at[4].val().index());
                self.rnr_timer.d.next = self.qp_read_entry.val().get_bits::<5>(self.context_at[6].val().index());
                self.ack_every.d.next = self.qp_read_entry.val().get_bits::<8>(self.context_at[7].val().index());
                // the QP's state word, or (not live) its start from the context
                self.expected.d.next = self.qp_read_entry.val().get_bits::<24>(self.context_at[5].val().index());
                if self.stored.val().get_bit(0) {
                    self.expected.d.next = self.stored.val().get_bits::<24>(32);
                }
                self.nak_sent.d.next = self.stored.val().get_bit(2);
                self.open.d.next = self.stored.val().get_bit(3);
                self.open_write.d.next = self.stored.val().get_bit(4);
                self.unacknowledged.d.next = self.stored.val().get_bits::<8>(8);
                self.msn.d.next = self.stored.val().get_bits::<24>(64);
                self.bytes.d.next = self.stored.val().get_bits::<32>(96);
                self.open_dma_length.d.next = self.stored.val().get_bits::<32>(128);
                self.open_va.d.next = self.stored.val().get_bits::<64>(192);
                // the region, the head receive buffer and the ring pointers
                self.region_valid.d.next = self.region_ram.read_data.val().get_bit(self.region_at[0].val().index());
                self.region_writable.d.next = self.region_ram.read_data.val().get_bit(self.write_access_at.val().index());
                self.region_readable.d.next = self.region_ram.read_data.val().get_bit(self.read_access_at.val().index());
                self.region_pd.d.next = self.region_ram.read_data.val().get_bits::<16>(self.region_at[2].val().index());
                self.region_rkey.d.next = self.region_ram.read_data.val().get_bits::<32>(self.region_at[3].val().index());
                self.region_base.d.next = self.region_ram.read_data.val().get_bits::<64>(self.region_at[4].val().index());
                self.buffer_address.d.next = self.ring_ram.read_data.val().get_bits::<64>(0);
                self.buffer_length.d.next = self.ring_ram.read_data.val().get_bits::<32>(64);
                self.head.d.next = self.pointers.val().get_bits::<8>(0);
                self.tail.d.next = self.pointers.val().get_bits::<8>(8);
                self.address_adder.load.next = true;
                self.request_end_adder.load.next = true;
                self.region_end_adder.load.next = true;
                self.bytes_adder.load.next = true;
                self.state.d.next = ResponderState::Psn;
            }
            ResponderState::Psn => {
                self.behind_low.d.next = bit_cast::<13, 12>(self.expected.q.val().get_bits::<12>(0))
                    + bit_cast::<13, 12>(self.psn_inverted.val().get_bits::<12>(0))
                    + 1;
                self.psn_equal.d.next = self.expected.q.val() == self.psn.q.val();
                self.rkey_match.d.next =
                    self.region_in_range.q.val() && self.region_valid.q.val() && (self.region_rkey.q.val() == self.rkey.q.val());
                self.pd_match.d.next = self.region_pd.q.val() == self.qp_pd.q.val();
                self.queue_empty.d.next = self.head.q.val() == self.tail.q.val();
                self.pmtu_equal.d.next = self.payload_length.q.val() == self.pmtu_bytes.q.val();
                self.within_pmtu.d.next = self.payload_length.q.val() <= self.pmtu_bytes.q.val();
                self.payload_empty.d.next = self.payload_length.q.val() == 0;
                self.dma_empty.d.next = self.dma_length.q.val() == 0;
                self.read_too_long.d.next = self.dma_length.q.val().get_bit(31) && (self.dma_length.q.val().get_bits::<31>(0) != 0);
                self.head_next.d.next = self.head.q.val() + 1;
                self.unacknowledged_next.d.next = self.unacknowledged.q.val() + 1;
                self.target_dma_length.d.next = self.open_dma_length.q.val();
                if self.starts.q.val() {
                    self.target_dma_length.d.next = self.dma_length.q.val();
                }
                self.state.d.next = ResponderState::Sum;
            }
            ResponderState::Sum => {
                self.behind.d.next = (bit_cast::<24, 12>(
                    self.expected.q.val().get_bits::<12>(12)
                        + self.psn_inverted.val().get_bits::<12>(12)
                        + bit_cast::<12, 1>(self.behind_low.q.val().get_bits::<1>(12)),
                ) << 12)
                    | bit_cast::<24, 12>(self.behind_low.q.val().get_bits::<12>(0));
                self.psn_next.d.next = self.psn.q.val() + 1;
                self.msn_next.d.next = self.msn.q.val() + 1;
                self.expected_previous.d.next = self.expected.q.val() - 1;
                self.state.d.next = ResponderState::Compare;
            }
            ResponderState::Compare => {
                self.state.d.next = ResponderState::Flags;
            }
            ResponderState::Flags => {
                // a duplicate READ request is executed again
                self.fail_psn_duplicate.d.next = self.reliable.q.val() && self.duplicate.val() && !self.is_read.q.val();
                self.fail_psn_out_of_sequence.d.next = !self.psn_equal.q.val() && !self.starts.q.val();
                if self.reliable.q.val() {
                    self.fail_psn_out_of_sequence.d.next = self.ahead.val();
                }
                self.fail_unsupported_opcode.d.next = !self.executable.q.val();
                self.fail_opcode_sequence.d.next = (!self.open.q.val() && !self.starts.q.val())
                    || (self.open.q.val() && !self.starts.q.val() && (self.open_write.q.val() != self.is_write.q.val()))
                    || (self.open.q.val() && self.starts.q.val() && self.reliable.q.val());
                if self.is_read.q.val() {
                    // a duplicate belongs before the open message
                    self.fail_opcode_sequence.d.next = self.open.q.val() && !self.duplicate.val();
                }
                self.fail_rkey_invalid.d.next = self.rkey_applies.val() && !self.rkey_match.q.val();
                self.fail_rkey_domain.d.next = self.rkey_applies.val() && !self.pd_match.q.val();
                self.fail_rkey_access.d.next = self.rkey_applies.val() && !self.region_writable.q.val();
                if self.is_read.q.val() {
                    self.fail_rkey_access.d.next = self.rkey_applies.val() && !self.region_readable.q.val();
                }
                self.fail_rkey_bounds.d.next = self.rkey_applies.val() && (self.base_compare.greater.val() || self.end_beyond_region.val());
                // first or middle: exactly the PMTU; last: 1 to PMTU; only: up to the PMTU
                self.fail_payload_length.d.next = !self.pmtu_equal.q.val();
                if self.ends.q.val() {
                    self.fail_payload_length.d.next = !self.within_pmtu.q.val() || (self.payload_empty.q.val() && !self.starts.q.val());
                }
                // a READ request carries none
                if self.is_read.q.val() {
                    self.fail_payload_length.d.next = !self.payload_empty.q.val();
                }
                self.fail_dma_length.d.next = (self.is_write.q.val()
                    && (self.dma_compare.greater.val() || (self.ends.q.val() && !self.dma_compare.equal.val())))
                    || (self.is_read.q.val() && self.read_too_long.q.val());
                self.fail_no_receive_buffer.d.next = self.needs_buffer.val() && self.queue_empty.q.val();
                self.fail_receive_buffer_too_small.d.next =
                    !self.is_write.q.val() && !self.is_read.q.val() && self.buffer_compare.greater.val();
                self.ack_count_reached.d.next =
                    (self.ack_every.q.val() != 0) && (self.unacknowledged_next.q.val() == self.ack_every.q.val());
                self.state.d.next = ResponderState::Decide;
            }
            ResponderState::Decide => {
                self.failure.d.next = self.failure_now.val();
                self.forwarded.d.next = self.forwarded_now.val();
                self.executed.d.next = (self.failure_now.val() == 0) && !self.forwarded_now.val();
                self.checked.d.next = self.failure_now.val() > self.last_connection_code.val();
                self.answer_reack.d.next = self.reliable.q.val() && self.reack_codes.val().get_bit(self.failure_now.val().index());
                self.answer_psn_nak.d.next = self.reliable.q.val() && self.psn_nak_codes.val().get_bit(self.failure_now.val().index());
                self.answer_rnr_nak.d.next = self.reliable.q.val() && self.rnr_nak_codes.val().get_bit(self.failure_now.val().index());
                self.answer_invalid_request.d.next =
                    self.reliable.q.val() && self.invalid_request_codes.val().get_bit(self.failure_now.val().index());
                self.answer_remote_access.d.next =
                    self.reliable.q.val() && self.remote_access_codes.val().get_bit(self.failure_now.val().index());
                self.too_small.d.next = self.failure_now.val() == self.code_receive_buffer_too_small.val();
                self.state.d.next = ResponderState::Execute;
            }
            ResponderState::Execute => {
                // once the last decision is taken
                if self.completing.val() {
                    // the QP's state (not for a packet that failed a connection check: it may not be
                    // the QP's at all) and the receive queue's head
                    self.state_ram.write.next = self.executed.q.val() || self.checked.q.val();
                    self.pointer_ram.write.next = self.pointer_write.val();
                    // what a read of the same QP now gives a cycle late
                    self.state_forward.d.next = (self.executed.q.val() || self.checked.q.val()) && (self.qp.q.val() == self.read_qp.val());
                    self.written_word.d.next = self.state_word.val();
                    self.pointer_forward.d.next = self.pointer_write.val() && (self.qp.q.val() == self.read_qp.val());
                    self.written_pointers.d.next = (bit_cast::<16, 8>(self.tail.q.val()) << 8) | bit_cast::<16, 8>(self.head_next.q.val());
                    // the decision
                    self.out_failure.d.next = self.failure.q.val();
                    self.out_forwarded.d.next = self.forwarded.q.val();
                    self.out_acknowledgement.d.next = self.forwarded.q.val() && self.aeth_present.q.val();
                    self.out_dropped_message.d.next = self.dropped_message.val();
                    self.out_write.d.next = self.executed.q.val() && !self.payload_empty.q.val();
                    self.out_write_address.d.next = 0.into();
                    if self.executed.q.val() && !self.payload_empty.q.val() {
                        self.out_write_address.d.next = self.address_adder.sum.val();
                    }
                    self.out_completion.d.next = self.success_completion.val() || self.error_completion.val();
                    self.out_completion_write.d.next = self.success_completion.val() && self.is_write.q.val();
                    self.out_completion_status.d.next = 0.into();
                    self.out_completion_solicited.d.next = self.success_completion.val() && self.solicited.q.val();
                    self.out_completion_immediate_valid.d.next = self.success_completion.val() && self.has_immediate.q.val();
                    self.out_completion_immediate.d.next = 0.into();
                    self.out_completion_length.d.next = 0.into();
                    self.out_completion_buffer_length.d.next = 0.into();
                    self.out_completion_buffer_address.d.next = 0.into();
                    if self.success_completion.val() && self.has_immediate.q.val() {
                        self.out_completion_immediate.d.next = self.immediate.q.val();
                    }
                    if self.success_completion.val() || self.error_completion.val() {
                        self.out_completion_buffer_length.d.next = self.buffer_length.q.val();
                        self.out_completion_buffer_address.d.next = self.buffer_address.q.val();
                    }
                    if self.success_completion.val() {
                        self.out_completion_length.d.next = self.bytes_adder.sum.val().get_bits::<32>(0);
                    }
                    if self.error_completion.val() {
                        self.out_completion_status.d.next = self.status_invalid_request.val();
                        if self.too_small.q.val() {
                            self.out_completion_status.d.next = self.status_length_error.val();
                        }
                        if self.open.q.val() && !self.open_write.q.val() {
                            self.out_completion_length.d.next = self.bytes.q.val();
                        }
                    }
                    self.out_response.d.next = self.respond.val();
                    self.out_response_syndrome.d.next = 0.into();
                    self.out_response_psn.d.next = 0.into();
                    self.out_response_msn.d.next = 0.into();
                    self.out_forwarded_opcode.d.next = 0.into();
                    // a forwarded packet's opcode, PSN and AETH, for the requester (it has no response)
                    if self.forwarded.q.val() {
                        self.out_forwarded_opcode.d.next = self.opcode.q.val();
                        self.out_response_syndrome.d.next = self.aeth_syndrome.q.val();
                        self.out_response_psn.d.next = self.psn.q.val();
                        self.out_response_msn.d.next = self.aeth_msn.q.val();
                    }
                    if self.respond.val() {
                        self.out_response_psn.d.next = self.expected.q.val();
                        self.out_response_msn.d.next = self.msn.q.val();
                        if self.answer_remote_access.q.val() {
                            self.out_response_syndrome.d.next = self.syndrome_remote_access.val();
                        }
                        if self.answer_invalid_request.q.val() {
                            self.out_response_syndrome.d.next = self.syndrome_invalid_request.val();
                        }
                        if self.answer_rnr_nak.q.val() {
                            self.out_response_syndrome.d.next = self.syndrome_rnr_nak.val() | bit_cast::<8, 5>(self.rnr_timer.q.val());
                        }
                        if self.answer_psn_nak.q.val() {
                            self.out_response_syndrome.d.next = self.syndrome_psn_nak.val();
                        }
                        if self.answer_reack.q.val() {
                            self.out_response_syndrome.d.next = self.syndrome_ack.val();
                            self.out_response_psn.d.next = self.expected_previous.q.val();
                        }
                        if self.executed.q.val() {
                            self.out_response_syndrome.d.next = self.syndrome_ack.val();
                            self.out_response_psn.d.next = self.psn.q.val();
                            self.out_response_msn.d.next = self.new_msn.val();
                        }
                        // a duplicate READ's NAK is at its own PSN
                        if self.is_read.q.val() && self.duplicate.val() {
                            self.out_response_psn.d.next = self.psn.q.val();
                        }
                    }
                    // a READ response: from the request's PSN, its AETH an ACK with the MSN
                    self.out_read.d.next = self.read_executed.val();
                    self.out_read_length.d.next = 0.into();
                    self.out_read_va.d.next = 0.into();
                    if self.read_executed.val() {
                        self.out_read_length.d.next = self.dma_length.q.val();
                        self.out_read_va.d.next = self.va.q.val();
                        self.out_response_syndrome.d.next = self.syndrome_ack.val();
                        self.out_response_psn.d.next = self.psn.q.val();
                        self.out_response_msn.d.next = self.new_msn.val();
                    }
                    // counters (`ResponderCounter::ALL` order): failures from index 11 = 10 + code
                    self.counter_events.d.next = bit_cast::<COUNTERS, 32>(self.failure_bit.val() & 0xFFFF_FFFE_u64) << 10;
                    self.counter_events.d.next = self.counter_events.d.val().replace_bit(0, self.executed.q.val());
                    self.counter_events.d.next = self.counter_events.d.val().replace_bit(1, self.forwarded.q.val());
                    self.counter_events.d.next = self
                        .counter_events
                        .d
                        .val()
                        .replace_bit(2, self.success_completion.val() || self.error_completion.val());
                    self.counter_events.d.next = self
                        .counter_events
                        .d
                        .val()
                        .replace_bit(3, self.respond.val() && (self.executed.q.val() || self.answer_reack.q.val()));
                    self.counter_events.d.next = self.counter_events.d.val().replace_bit(4, self.answer_rnr_nak.q.val());
                    self.counter_events.d.next = self
                        .counter_events
                        .d
                        .val()
                        .replace_bit(5, self.answer_psn_nak.q.val() && !self.nak_sent.q.val());
                    self.counter_events.d.next = self.counter_events.d.val().replace_bit(6, self.answer_invalid_request.q.val());
                    self.counter_events.d.next = self.counter_events.d.val().replace_bit(7, self.answer_remote_access.q.val());
                    self.counter_events.d.next = self.counter_events.d.val().replace_bit(10, self.dropped_message.val());
                    self.counter_events.d.next = self
                        .counter_events
                        .d
                        .val()
                        .replace_bit(28, self.read_executed.val() && !self.duplicate.val());
                    self.counter_events.d.next = self
                        .counter_events
                        .d
                        .val()
                        .replace_bit(29, self.read_executed.val() && self.duplicate.val());
                    self.out_payload_length.d.next = self.payload_length.q.val();
                    self.out_dest_qp.d.next = self.dest_qp.q.val();
                    self.pending.d.next = true;
                    // the next record taken now (below), or looked at now, or none
                    self.state.d.next = ResponderState::Idle;
                    if self.look.val() {
                        self.state.d.next = ResponderState::Take;
                    }
                }
            }
            ResponderState::PostRead => {
                self.state.d.next = ResponderState::PostCheck;
            }
            ResponderState::PostCheck => {
                // the ring holds 2^(RA − QB) buffers
                self.head.d.next = self.pointer_ram.read_data.val().get_bits::<8>(0);
                self.tail.d.next = self.pointer_ram.read_data.val().get_bits::<8>(8);
                self.ring_full.d.next = (self.pointer_ram.read_data.val().get_bits::<8>(8)
                    - self.pointer_ram.read_data.val().get_bits::<8>(0))
                    == self.ring_depth.val();
                self.state.d.next = ResponderState::PostWrite;
            }
            ResponderState::PostWrite => {
                self.result_valid.d.next = true;
                self.result_full.d.next = self.ring_full.q.val();
                if !self.ring_full.q.val() {
                    self.ring_ram.write.next = true;
                    self.pointer_ram.write.next = true;
                    self.pointer_ram.write_data.next =
                        (bit_cast::<16, 8>(self.tail.q.val() + 1) << 8) | bit_cast::<16, 8>(self.head.q.val());
                }
                self.state.d.next = ResponderState::Idle;
            }
            _ => {
                self.state.d.next = ResponderState::Init;
            }
        }
        // the record looked at last cycle: its fields and its opcode's class
        if self.take.val() {
            self.malformed.d.next = self.r_drop.val() || !self.r_bth_ok.val();
            self.opcode.d.next = self.r_bth_opcode.val();
            self.solicited.d.next = self.r_bth_se.val();
            self.pkey.d.next = self.r_bth_pkey.val();
            // the decision's QP: the record's DestQP, 0 without a BTH
            self.dest_qp.d.next = self.record_dest_qp.val();
            self.ack_request.d.next = self.r_bth_ackreq.val();
            self.psn.d.next = self.r_bth_psn.val();
            self.va.d.next = self.r_reth_va.val();
            self.rkey.d.next = self.r_reth_rkey.val();
            self.dma_length.d.next = self.r_reth_dmalen.val();
            self.immediate.d.next = self.r_immdt.val();
            self.aeth_syndrome.d.next = 0.into();
            self.aeth_msn.d.next = 0.into();
            self.aeth_present.d.next = self.r_aeth_ok.val();
            if self.r_aeth_ok.val() {
                self.aeth_syndrome.d.next = self.r_aeth_syndrome.val();
                self.aeth_msn.d.next = self.r_aeth_msn.val();
            }
            self.payload_length.d.next = self.r_pay_len.val();
            self.qp.d.next = self.record_qp.val();
            self.is_request.d.next = self.request_table.val().get_bit(self.r_bth_opcode.val().index());
            self.executable.d.next = self.executable_table.val().get_bit(self.r_bth_opcode.val().index());
            self.is_write.d.next = self.write_table.val().get_bit(self.r_bth_opcode.val().index());
            self.is_read.d.next = self.read_table.val().get_bit(self.r_bth_opcode.val().index());
            self.starts.d.next = self.starts_table.val().get_bit(self.r_bth_opcode.val().index());
            self.ends.d.next = self.ends_table.val().get_bit(self.r_bth_opcode.val().index());
            self.has_immediate.d.next = self.immediate_table.val().get_bit(self.r_bth_opcode.val().index());
            self.qp_in_range.d.next =
                ((self.record_dest_qp.val() & self.above_qps.val()) == 0) && ((self.record_dest_qp.val() & self.first_qps.val()) != 0);
            self.region_in_range.d.next = (self.r_reth_rkey.val() & self.above_regions.val()) == 0;
            self.countdown.d.next = self.wait_cycles.val() - 1;
            self.state.d.next = ResponderState::Connection;
            if self.wait_cycles.val() != 0 {
                self.state.d.next = ResponderState::Wait;
            }
        }
        if self.reset.val() {
            self.state.d.next = ResponderState::Init;
            self.init_address.d.next = 0.into();
            self.result_valid.d.next = false;
            self.counter_events.d.next = 0.into();
            self.pending.d.next = false;
        }

        // outputs
        self.recv_result_valid.next = self.result_valid.q.val();
        self.recv_result_full.next = self.result_full.q.val();
        self.counter_read.d.next = 0.into();
        for i in 0..COUNTERS {
            if self.counter_index.val() == self.counter_number[i].val() {
                self.counter_read.d.next = self.counters[i].count.val();
            }
        }
        self.counter_value.next = self.counter_read.q.val();
        self.d_entry.next = (bit_cast::<DECISION_BITS, 5>(self.out_failure.q.val()) << self.decision_at[0].val())
            | (bit_cast::<DECISION_BITS, 1>(self.out_forwarded.q.val().into()) << self.decision_at[1].val())
            | (bit_cast::<DECISION_BITS, 1>(self.out_acknowledgement.q.val().into()) << self.decision_at[2].val())
            | (bit_cast::<DECISION_BITS, 1>(self.out_dropped_message.q.val().into()) << self.decision_at[3].val())
            | (bit_cast::<DECISION_BITS, 1>(self.out_write.q.val().into()) << self.decision_at[4].val())
            | (bit_cast::<DECISION_BITS, 16>(self.out_payload_length.q.val()) << self.decision_at[5].val())
            | (bit_cast::<DECISION_BITS, 1>(self.out_completion.q.val().into()) << self.decision_at[6].val())
            | (bit_cast::<DECISION_BITS, 1>(self.out_completion_write.q.val().into()) << self.decision_at[7].val())
            | (bit_cast::<DECISION_BITS, 2>(self.out_completion_status.q.val()) << self.decision_at[8].val())
            | (bit_cast::<DECISION_BITS, 1>(self.out_completion_solicited.q.val().into()) << self.decision_at[9].val())
            | (bit_cast::<DECISION_BITS, 1>(self.out_completion_immediate_valid.q.val().into()) << self.decision_at[10].val())
            | (bit_cast::<DECISION_BITS, 1>(self.out_response.q.val().into()) << self.decision_at[11].val())
            | (bit_cast::<DECISION_BITS, 8>(self.out_response_syndrome.q.val()) << self.decision_at[12].val())
            | (bit_cast::<DECISION_BITS, 24>(self.out_dest_qp.q.val()) << self.decision_at[13].val())
            | (bit_cast::<DECISION_BITS, 24>(self.out_response_psn.q.val()) << self.decision_at[14].val())
            | (bit_cast::<DECISION_BITS, 24>(self.out_response_msn.q.val()) << self.decision_at[15].val())
            | (bit_cast::<DECISION_BITS, 32>(self.out_completion_length.q.val()) << self.decision_at[16].val())
            | (bit_cast::<DECISION_BITS, 32>(self.out_completion_buffer_length.q.val()) << self.decision_at[17].val())
            | (bit_cast::<DECISION_BITS, 32>(self.out_completion_immediate.q.val()) << self.decision_at[18].val())
            | (bit_cast::<DECISION_BITS, 64>(self.out_write_address.q.val()) << self.decision_at[19].val())
            | (bit_cast::<DECISION_BITS, 64>(self.out_completion_buffer_address.q.val()) << self.decision_at[20].val())
            | (bit_cast::<DECISION_BITS, 1>(self.out_read.q.val().into()) << self.decision_at[21].val())
            | (bit_cast::<DECISION_BITS, 32>(self.out_read_length.q.val()) << self.decision_at[22].val())
            | (bit_cast::<DECISION_BITS, 64>(self.out_read_va.q.val()) << self.decision_at[23].val())
            | (bit_cast::<DECISION_BITS, 8>(self.out_forwarded_opcode.q.val()) << self.decision_at[24].val());
    }
}
