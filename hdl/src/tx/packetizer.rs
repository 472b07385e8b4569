//! [`TxPacketizer`]: one block (a WRITE message, or a group of a SEND message) cut into PMTU
//! packets, each a packed [`PACKET`] descriptor, plus a memory read command per packet with
//! payload. The per-QP running PSN and AckReq counter live here, in block RAM.
//!
//! ```text
//!  block command ──► Load ─► Start ─► Prepare ─► Emit ◄──► Advance
//!  (from the cutter)  read    pick PSN  first      push       next packet's
//!                     QP RAMs  (fresh?)  packet     descriptor length, PSN,
//!                     span     │        ▲         + read cmd address
//!                   new RC block └► ReadSpan ─► ReadLast: its last PSN, its record
//!                                          Emit of the last packet ─► Finish: store PSN, counter,
//!                                                                    take the next block
//! ```
//!
//! A block takes five cycles and one per packet pair (`Emit`, `Advance`) beyond the first: the
//! next block is taken as `Finish` ends (unless a READ request waits for the READ tracker); a
//! new RC block's record adds two (`ReadSpan`, `ReadLast`; the span's inputs are loaded in
//! `Load`) unless the block is one packet (`one_packet`, from `Load`'s registers): its last
//! PSN is its first, and `Start` offers its record.
//!
//! One packet per two cycles (Emit, Advance): at 512 bits a 256-byte packet takes five beats,
//! so the generator, not the packetizer, sets the pace. Stage by stage every register is fed by
//! at most one adder or comparator: `Emit` adds the PMTU to bits 22:8 of the local address,
//! `Advance` carries into the pieces above through look-ahead flags.
//!
//! **PSN and AckReq** (as `ferroce_models::tx::packetize`): per QP `{next PSN, packets since the
//! last AckReq}`. A QP is *fresh* after reset and after the host rewrites its context
//! (`commit_valid`): its next block starts from the context's `sq_psn` (carried by the block
//! command) with the counter at 0, and clears the fresh bit. A block of a QP committed after
//! the block was taken (`commit_seen`: cut with the context before the reset) leaves the bit
//! set, so the next block restarts again; it is not recorded (the send history's clear may
//! be done already; a record offered and not taken before the commit is withdrawn). From the
//! commit on, the packets of such a block, of a block under way and of a replay are walked
//! but not sent (no stale PSN reaches the peer, reset too), but for a new block's packet that
//! ends its transfer, which leaves marked `flushed`: its transfer completes flushed, not on an
//! ACK of the old PSNs.
//!
//! **Going back N.** A new block of an RC QP is recorded before its first packet is pushed
//! (`record_*`: its `SENT_BLOCK` record, first and last PSN, and the QP's timeout and retry
//! limits for the retry timer's `sent` and the ACK tracker's last PSN sent): its last PSN is
//! computed first (`ReadSpan`, `ReadLast`: one PSN per PMTU of the length, at least one; in
//! `Start` for one packet) and
//! no packet of the block is pushed until the record is taken, so every answer to the block
//! comes after its record. A
//! replayed block (`replay_*`, from the send history) is taken before the cutter's next block,
//! and no new block is taken while a replay runs (`replaying`). A replay is cut as the block was,
//! from its recorded PSN and AckReq count, so every packet is the one sent before, byte for
//! byte; its first `replay_skip` packets are cut but not sent (two cycles each); its packets
//! carry `retransmitted` and never `last_of_transfer` (the transfer's completion is on its way
//! already); the QP's next PSN is left alone.
//!
//! **READ responses.** A group of the responder's READ response (`block_read_response`) is cut
//! from `block_psn` (the responder's PSNs: the QP's next PSN, AckReq count and fresh bit are left
//! alone), as READ response first, middle, last or only packets with the AETH
//! (`block_immediate`) in the word after the BTH on the first, last and only ones; no AckReq, no
//! record, never `last_of_transfer`, `read_response` set.
//!
//! **READ requests.** A block of a READ transfer (`block_read_request`, or a replayed record
//! with `read`) is one READ request: the packets are walked as for a WRITE but none is sent
//! until the first one not skipped, which becomes the request for the rest of the block (new
//! block: all of it) in six more cycles (`ReadSpan` … `ReadEmit`): its PSN, AckReq, a RETH of
//! the VA moved by the bytes before it, the QP's R_Key and the bytes from it on, no payload;
//! `last_psn` is the response's last (one PSN per PMTU of the length, at least one), and the
//! QP's next PSN follows it. A new READ's record is offered from `ReadLast` on and the request
//! waits in `ReadEmit` until it is taken. The request is also offered on `read_sent_*` (for the
//! READ tracker on the receive side), new or sent again; `Finish` waits until it is taken.

use crate::common::elab::c;
use crate::common::fifo::{Fifo, CAPACITY};
use ferroce_contracts::opcode::{Operation, Transport};
use ferroce_contracts::reliability::{SENT_BLOCK, SENT_BLOCK_BITS};
use ferroce_contracts::tx::{Pmtu, PACKET};
use rust_hdl::prelude::*;

/// Bits of a packed packet descriptor.
pub use ferroce_contracts::tx::PACKET_BITS as DESCRIPTOR_BITS;
/// Bits of a memory read command: address (64) and length (13).
pub const READ_COMMAND_BITS: usize = 77;
/// Bits of a block's length (a block holds at most 2^20 bytes).
pub const BLOCK_LEN_BITS: usize = 21;

/// Where the packetizer is in a block.
#[derive(Copy, Clone, PartialEq, Eq, Debug, LogicState)]
pub enum PacketizerState {
    /// Clearing the QP RAMs after reset.
    Init,
    /// Waiting for a block command.
    Idle,
    /// The QP RAMs are read.
    Load,
    /// The QP's PSN and counter are chosen (context or RAM).
    Start,
    /// The first packet's length and flags.
    Prepare,
    /// A packet is pushed once both output FIFOs have room.
    Emit,
    /// The next packet's address, length and flags.
    Advance,
    /// READ: the move's bits 20:12 (the response's packets and the PMTU code are computed
    /// from the span's inputs loaded the cycle before).
    ReadMove,
    /// READ: the VA's bits 15:0; the last PSN's bits 11:0.
    ReadSpan,
    /// READ: the response's last PSN (a new RC block: its last PSN); a new block's record is
    /// offered.
    ReadLast,
    /// READ: the VA's bits 31:16; the QP's next PSN.
    ReadAdd1,
    /// READ: the VA's bits 47:32.
    ReadAdd2,
    /// READ: the VA's bits 63:48.
    ReadAdd3,
    /// READ: the request is pushed once the FIFO has room and its record is taken.
    ReadEmit,
    /// The QP's PSN and counter are stored; the next block or replay is taken (as in `Idle`)
    /// unless a READ request waits for the READ tracker.
    Finish,
}

/// The packetizer of `2^QB` QPs.
#[derive(LogicBlock)]
pub struct TxPacketizer<const QB: usize> {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous, active high.
    pub reset: Signal<In, Bit>,
    /// The fresh bits of every QP are set (2^QB cycles after reset).
    pub init_done: Signal<Out, Bit>,
    /// The host rewrote a QP context: that QP restarts from its `sq_psn`.
    pub commit_valid: Signal<In, Bit>,
    /// The QP whose context was rewritten.
    pub commit_index: Signal<In, Bits<QB>>,
    /// A block command (held until `block_ready`).
    pub block_valid: Signal<In, Bit>,
    /// The packetizer takes a block command (registered: it is idle).
    pub block_ready: Signal<Out, Bit>,
    /// Block: the local QP.
    pub block_qp: Signal<In, Bits<QB>>,
    /// Block: the transfer's channel.
    pub block_channel: Signal<In, Bits<16>>,
    /// Block: the QP's transport (opcode bits 7:5; RC or UC).
    pub block_transport: Signal<In, Bits<3>>,
    /// Block: the path MTU in bytes (a power of two, 256..4096).
    pub block_pmtu: Signal<In, Bits<13>>,
    /// Block: AckReq every N packets (0: on message ends only).
    pub block_ack_every: Signal<In, Bits<8>>,
    /// Block: the context's `sq_psn` (used when the QP is fresh).
    pub block_sq_psn: Signal<In, Bits<24>>,
    /// Block: the QP's R_Key.
    pub block_rkey: Signal<In, Bits<32>>,
    /// Block: RDMA WRITE (else SEND).
    pub block_write: Signal<In, Bit>,
    /// Block: its first packet is its message's first.
    pub block_message_first: Signal<In, Bit>,
    /// Block: its last packet is its message's last.
    pub block_message_ends: Signal<In, Bit>,
    /// Block: its last packet is its transfer's last.
    pub block_transfer_ends: Signal<In, Bit>,
    /// Block: the message's last packet carries an ImmDt.
    pub block_has_immediate: Signal<In, Bit>,
    /// Block: the immediate; on a WRITE group that starts its message and does not end it,
    /// the message's length (its RETH's: no ImmDt goes out in the group).
    pub block_immediate: Signal<In, Bits<32>>,
    /// Block: the message's last packet has SE.
    pub block_solicited: Signal<In, Bit>,
    /// Block: the remote address of its first byte (RETH VA of a WRITE).
    pub block_va: Signal<In, Bits<64>>,
    /// Block: its bytes (RETH DMA length of a WRITE block).
    pub block_len: Signal<In, Bits<BLOCK_LEN_BITS>>,
    /// Block: the local address of its first byte.
    pub block_local: Signal<In, Bits<64>>,
    /// Block: the QP's local ACK timeout exponent (RC).
    pub block_timeout: Signal<In, Bits<5>>,
    /// Block: the QP's transport retry limit (RC).
    pub block_retry: Signal<In, Bits<3>>,
    /// Block: the QP's RNR retry limit (RC).
    pub block_rnr_retry: Signal<In, Bits<3>>,
    /// Block command: a group of the responder's READ response, from PSN `block_psn`, the AETH
    /// in `block_immediate`.
    pub block_read_response: Signal<In, Bit>,
    /// Block command: a READ response group's first PSN.
    pub block_psn: Signal<In, Bits<24>>,
    /// Block command: a block of an RDMA READ (one request).
    pub block_read_request: Signal<In, Bit>,
    /// Block command: a READ request's generation (its QP's resets modulo 4 when it was cut),
    /// passed on to `read_sent_generation`.
    pub block_read_generation: Signal<In, Bits<2>>,
    /// A READ request was cut: valid (held until taken).
    pub read_sent_valid: Signal<Out, Bit>,
    /// Taken.
    pub read_sent_ready: Signal<In, Bit>,
    /// Its QP.
    pub read_sent_qp: Signal<Out, Bits<QB>>,
    /// Its PSN: the response's first.
    pub read_sent_first_psn: Signal<Out, Bits<24>>,
    /// The response's last PSN.
    pub read_sent_last_psn: Signal<Out, Bits<24>>,
    /// Where the response's first byte goes.
    pub read_sent_local_address: Signal<Out, Bits<64>>,
    /// Its DMA length.
    pub read_sent_length: Signal<Out, Bits<32>>,
    /// The QP's PMTU (`Pmtu` code).
    pub read_sent_pmtu: Signal<Out, Bits<3>>,
    /// The request is a replay's (sent again): it moves the QP's outstanding READ only if it is
    /// that READ's (the READ may have ended since the replay began).
    pub read_sent_again: Signal<Out, Bit>,
    /// The request's generation (`block_read_generation`; a replay's is not checked).
    pub read_sent_generation: Signal<Out, Bits<2>>,
    /// A replay runs in the send history: no new block is taken.
    pub replaying: Signal<In, Bit>,
    /// A block to cut again: valid.
    pub replay_valid: Signal<In, Bit>,
    /// Taken (the packetizer is idle).
    pub replay_ready: Signal<Out, Bit>,
    /// Its QP.
    pub replay_qp: Signal<In, Bits<QB>>,
    /// Its `SENT_BLOCK` record.
    pub replay_block: Signal<In, Bits<SENT_BLOCK_BITS>>,
    /// PSN of its first packet.
    pub replay_first_psn: Signal<In, Bits<24>>,
    /// Its packets to skip (below 2^13: a block holds at most 4,096 packets).
    pub replay_skip: Signal<In, Bits<24>>,
    /// A new RC block is out: valid (held until taken).
    pub record_valid: Signal<Out, Bit>,
    /// Taken.
    pub record_ready: Signal<In, Bit>,
    /// Its QP.
    pub record_qp: Signal<Out, Bits<QB>>,
    /// Its `SENT_BLOCK` record.
    pub record_block: Signal<Out, Bits<SENT_BLOCK_BITS>>,
    /// PSN of its first packet.
    pub record_first_psn: Signal<Out, Bits<24>>,
    /// PSN of its last packet.
    pub record_last_psn: Signal<Out, Bits<24>>,
    /// The QP's timeout exponent, for the retry timer's `sent`.
    pub record_timeout: Signal<Out, Bits<5>>,
    /// The QP's transport retry limit.
    pub record_retry: Signal<Out, Bits<3>>,
    /// The QP's RNR retry limit.
    pub record_rnr_retry: Signal<Out, Bits<3>>,
    /// Packet descriptors: valid.
    pub m_desc_valid: Signal<Out, Bit>,
    /// Packet descriptors: ready.
    pub m_desc_ready: Signal<In, Bit>,
    /// Packet descriptors: a packed `PACKET` entry.
    pub m_desc: Signal<Out, Bits<DESCRIPTOR_BITS>>,
    /// Memory read commands: valid.
    pub m_read_valid: Signal<Out, Bit>,
    /// Memory read commands: ready.
    pub m_read_ready: Signal<In, Bit>,
    /// Memory read commands: address (bits 63:0) and length (bits 76:64).
    pub m_read: Signal<Out, Bits<READ_COMMAND_BITS>>,

    state: DFF<PacketizerState>,
    init_count: DFF<Bits<QB>>,
    init_last: Constant<Bits<QB>>,
    /// Per QP `{packets since AckReq (31:24), next PSN (23:0)}`.
    sender: RAM<Bits<32>, QB>,
    /// Per QP: restart from the context's `sq_psn`.
    fresh: RAM<Bit, QB>,
    /// A commit for the block's QP since the block was loaded: keep it fresh.
    commit_seen: DFF<Bit>,
    // the block
    qp: DFF<Bits<QB>>,
    channel: DFF<Bits<16>>,
    transport: DFF<Bits<3>>,
    pmtu: DFF<Bits<13>>,
    ack_every: DFF<Bits<8>>,
    ack_every_minus_one: DFF<Bits<8>>,
    sq_psn: DFF<Bits<24>>,
    rkey: DFF<Bits<32>>,
    write: DFF<Bit>,
    message_first: DFF<Bit>,
    message_ends: DFF<Bit>,
    transfer_ends: DFF<Bit>,
    has_immediate: DFF<Bit>,
    immediate: DFF<Bits<32>>,
    solicited: DFF<Bit>,
    va: DFF<Bits<64>>,
    length: DFF<Bits<BLOCK_LEN_BITS>>,
    timeout: DFF<Bits<5>>,
    retry: DFF<Bits<3>>,
    rnr_retry: DFF<Bits<3>>,
    /// The block is a replay: its first PSN and AckReq count are recorded ones.
    replay: DFF<Bit>,
    /// The block is a group of a READ response: its PSNs are the responder's (`first_psn`).
    read_response: DFF<Bit>,
    /// The block is a new RC one (a READ too): it is recorded before its first packet.
    recorded: DFF<Bit>,
    /// Its record is offered (from `ReadLast`, or `Start` for one packet, until taken).
    record_pending: DFF<Bit>,
    /// The block is one packet at most (`left` ≤ `pmtu`, from `Load`'s registers): a new RC
    /// block's record, last PSN its first, is offered from `Start`.
    one_packet: DFF<Bit>,
    /// The block's first PSN as `Start` chooses it.
    start_psn: Signal<Local, Bits<24>>,
    /// The block is an RDMA READ's: one request.
    read_request: DFF<Bit>,
    /// READ: the request is offered on `read_sent_*` (in `Finish`).
    read_sent_pending: DFF<Bit>,
    /// READ: the bytes left minus one; the bytes before the request (the VA's move).
    read_left_minus_one: DFF<Bits<BLOCK_LEN_BITS>>,
    read_moved: DFF<Bits<BLOCK_LEN_BITS>>,
    /// READ: the move's bits 11:0 and the borrow out of them (bit 12).
    read_moved_low: DFF<Bits<13>>,
    /// READ: the block's PMTU, one-hot in `Pmtu::ALL` order; no bytes are left.
    read_pmtu_is: [DFF<Bit>; 5],
    read_left_zero: DFF<Bit>,
    /// READ: the response's packets minus one; its last PSN (bits 11:0 first, with the carry
    /// in bit 12); the PSN after it.
    read_span: DFF<Bits<13>>,
    read_last_low: DFF<Bits<13>>,
    read_last_psn: DFF<Bits<24>>,
    read_next_psn: DFF<Bits<24>>,
    /// READ: the request's VA, 16 bits a stage (bit 16: the carry).
    read_va_sum: [DFF<Bits<17>>; 4],
    /// READ: what `read_sent_*` shows.
    read_sent_first: DFF<Bits<24>>,
    read_sent_local: DFF<Bits<64>>,
    read_sent_bytes: DFF<Bits<BLOCK_LEN_BITS>>,
    read_sent_code: DFF<Bits<3>>,
    read_sent_generation_held: DFF<Bits<2>>,
    /// READ: the move's bits 20:16 plus the carry out of bits 15:0.
    read_moved_high: DFF<Bits<16>>,
    read_va: Signal<Local, Bits<64>>,
    /// The bytes left go to the span's inputs this cycle (a new block's record, a READ request).
    span_load: Signal<Local, Bit>,
    /// A replay or a block can be taken this cycle.
    taking: Signal<Local, Bit>,
    /// READ: `2 × length[20:12] − (2 × left[20:12] + borrow)`: bits 9:1 are the move's 20:12.
    read_moved_high_diff: Signal<Local, Bits<10>>,
    /// READ: the last PSN's bits 23:12.
    read_last_high: Signal<Local, Bits<12>>,
    /// Packets of the replay still to cut without sending.
    skip_left: DFF<Bits<13>>,
    /// The block's first PSN and the AckReq count before it (its record).
    first_psn: DFF<Bits<24>>,
    first_since_ack: DFF<Bits<8>>,
    /// The block's local address, as it came (its record).
    local_start: DFF<Bits<64>>,
    // the packet
    /// Bytes of the block from this packet on.
    left: DFF<Bits<BLOCK_LEN_BITS>>,
    /// `left − pmtu` (two's complement): ≤ 0 on the block's last packet.
    over: DFF<Bits<22>>,
    /// The next packet's `over`.
    over_next: DFF<Bits<22>>,
    first: DFF<Bit>,
    last: DFF<Bit>,
    payload_len: DFF<Bits<13>>,
    psn: DFF<Bits<24>>,
    psn_next: DFF<Bits<24>>,
    since_ack: DFF<Bits<8>>,
    /// This packet makes `ack_every` packets since the last AckReq.
    ack_due: DFF<Bit>,
    /// The packet's local address in pieces: bits 7:0 (a PMTU step leaves them alone), 22:8,
    /// 37:23, 52:38, 63:53. A step adds the PMTU to bits 22:8 in `Emit` and carries in `Advance`,
    /// into the higher pieces through look-ahead flags (`EventCounter`'s scheme).
    local_byte: DFF<Bits<8>>,
    local_mid: DFF<Bits<15>>,
    local_upper: [DFF<Bits<15>>; 2],
    local_top: DFF<Bits<11>>,
    /// `local_mid + pmtu`, with the carry in bit 15.
    local_mid_sum: DFF<Bits<16>>,
    /// `local_upper[k]` is all ones.
    local_upper_full: [DFF<Bit>; 2],
    /// `over`'s bits 21:8 after subtracting the PMTU (in Locals: 14-bit chains).
    over_start_high: Signal<Local, Bits<14>>,
    over_next_high: Signal<Local, Bits<14>>,
    local_address: Signal<Local, Bits<64>>,
    rc: Constant<Bits<3>>,
    // the descriptor
    message_last: Signal<Local, Bit>,
    message_head: Signal<Local, Bit>,
    ack_request: Signal<Local, Bit>,
    operation: Signal<Local, Bits<5>>,
    descriptor: Signal<Local, Bits<DESCRIPTOR_BITS>>,
    /// The current packet is skipped: a replay's packet before the rewind PSN, or a stale
    /// block's (`commit_seen`).
    skipping: Signal<Local, Bit>,
    /// The replayed block's fields (`replay_block` unpacked).
    replay_local: Signal<Local, Bits<64>>,
    record_entry: Signal<Local, Bits<SENT_BLOCK_BITS>>,
    /// `SENT_BLOCK` field offsets, in `BLOCK_FIELDS` order.
    block_at: [Constant<Bits<9>>; 17],
    reth_va: Signal<Local, Bits<64>>,
    reth_rkey: Signal<Local, Bits<32>>,
    reth_len: Signal<Local, Bits<32>>,
    immediate_value: Signal<Local, Bits<32>>,
    /// The packet carries the 4-byte word after the BTH (and RETH): ImmDt or AETH.
    carries_word: Signal<Local, Bit>,
    room: Signal<Local, Bit>,
    /// PadCnt: `(−payload_len) & 3`.
    pad: Signal<Local, Bits<2>>,
    /// The fill bit that says an output FIFO has no room for two more entries.
    room_limit: Constant<Bits<5>>,
    /// Operation codes: `[send, write]` × first, middle, last, last with immediate, only, only
    /// with immediate.
    op_code: [Constant<Bits<5>>; 12],
    /// READ response first, middle, last, only.
    read_op_code: [Constant<Bits<5>>; 4],
    read_request_code: Constant<Bits<5>>,
    /// Every descriptor bit but `last_psn`'s.
    last_psn_kept: Constant<Bits<DESCRIPTOR_BITS>>,
    /// `Pmtu` codes and their bytes.
    pmtu_code: [Constant<Bits<3>>; 5],
    pmtu_size: [Constant<Bits<13>>; 5],
    /// The same, as wide as a block's length.
    pmtu_bytes: [Constant<Bits<BLOCK_LEN_BITS>>; 5],
    pmtu_log2: [Constant<Bits<5>>; 5],
    /// READ: the response's packets minus one at each PMTU.
    read_span_at: [Signal<Local, Bits<13>>; 5],
    at: [Constant<Bits<9>>; 19],
    descriptors: Fifo<Bits<DESCRIPTOR_BITS>>,
    reads: Fifo<Bits<READ_COMMAND_BITS>>,
}

/// Indices into [`TxPacketizer`]'s `block_at`: the `SENT_BLOCK` fields.
const BLOCK_FIELDS: [&str; 17] = [
    "va",
    "local",
    "immediate",
    "channel",
    "write",
    "message_first",
    "message_ends",
    "transfer_ends",
    "has_immediate",
    "solicited",
    "since_ack",
    "length",
    "rkey",
    "transport",
    "ack_every",
    "pmtu",
    "read",
];

/// Indices into [`TxPacketizer`]'s `at`: the `PACKET` fields.
const PACKET_FIELDS: [&str; 19] = [
    "qp",
    "opcode",
    "psn",
    "solicited",
    "ack_request",
    "pad",
    "has_reth",
    "has_immediate",
    "last_of_transfer",
    "payload_len",
    "channel",
    "rkey",
    "dma_len",
    "immediate",
    "va",
    "retransmitted",
    "read_response",
    "last_psn",
    "flushed",
];

impl<const QB: usize> Default for TxPacketizer<QB> {
    fn default() -> Self {
        use Operation::*;
        let ops = [
            SendFirst,
            SendMiddle,
            SendLast,
            SendLastImm,
            SendOnly,
            SendOnlyImm,
            WriteFirst,
            WriteMiddle,
            WriteLast,
            WriteLastImm,
            WriteOnly,
            WriteOnlyImm,
        ];
        Self {
            clock: Default::default(),
            reset: Default::default(),
            init_done: Default::default(),
            commit_valid: Default::default(),
            commit_index: Default::default(),
            block_valid: Default::default(),
            block_ready: Default::default(),
            block_qp: Default::default(),
            block_channel: Default::default(),
            block_transport: Default::default(),
            block_pmtu: Default::default(),
            block_ack_every: Default::default(),
            block_sq_psn: Default::default(),
            block_rkey: Default::default(),
            block_write: Default::default(),
            block_message_first: Default::default(),
            block_message_ends: Default::default(),
            block_transfer_ends: Default::default(),
            block_has_immediate: Default::default(),
            block_immediate: Default::default(),
            block_solicited: Default::default(),
            block_va: Default::default(),
            block_len: Default::default(),
            block_local: Default::default(),
            block_timeout: Default::default(),
            block_retry: Default::default(),
            block_rnr_retry: Default::default(),
            block_read_response: Default::default(),
            block_psn: Default::default(),
            block_read_request: Default::default(),
            block_read_generation: Default::default(),
            read_sent_valid: Default::default(),
            read_sent_ready: Default::default(),
            read_sent_qp: Default::default(),
            read_sent_first_psn: Default::default(),
            read_sent_last_psn: Default::default(),
            read_sent_local_address: Default::default(),
            read_sent_length: Default::default(),
            read_sent_pmtu: Default::default(),
            read_sent_again: Default::default(),
            read_sent_generation: Default::default(),
            replaying: Default::default(),
            replay_valid: Default::default(),
            replay_ready: Default::default(),
            replay_qp: Default::default(),
            replay_block: Default::default(),
            replay_first_psn: Default::default(),
            replay_skip: Default::default(),
            record_valid: Default::default(),
            record_ready: Default::default(),
            record_qp: Default::default(),
            record_block: Default::default(),
            record_first_psn: Default::default(),
            record_last_psn: Default::default(),
            record_timeout: Default::default(),
            record_retry: Default::default(),
            record_rnr_retry: Default::default(),
            m_desc_valid: Default::default(),
            m_desc_ready: Default::default(),
            m_desc: Default::default(),
            m_read_valid: Default::default(),
            m_read_ready: Default::default(),
            m_read: Default::default(),
            state: Default::default(),
            init_count: Default::default(),
            init_last: c::<QB>((1u64 << QB) - 1),
            sender: Default::default(),
            fresh: Default::default(),
            commit_seen: Default::default(),
            qp: Default::default(),
            channel: Default::default(),
            transport: Default::default(),
            pmtu: Default::default(),
            ack_every: Default::default(),
            ack_every_minus_one: Default::default(),
            sq_psn: Default::default(),
            rkey: Default::default(),
            write: Default::default(),
            message_first: Default::default(),
            message_ends: Default::default(),
            transfer_ends: Default::default(),
            has_immediate: Default::default(),
            immediate: Default::default(),
            solicited: Default::default(),
            va: Default::default(),
            length: Default::default(),
            timeout: Default::default(),
            retry: Default::default(),
            rnr_retry: Default::default(),
            replay: Default::default(),
            read_response: Default::default(),
            recorded: Default::default(),
            one_packet: Default::default(),
            start_psn: Default::default(),
            record_pending: Default::default(),
            read_request: Default::default(),
            read_sent_pending: Default::default(),
            read_left_minus_one: Default::default(),
            read_moved: Default::default(),
            read_moved_low: Default::default(),
            read_pmtu_is: Default::default(),
            read_left_zero: Default::default(),
            span_load: Default::default(),
            taking: Default::default(),
            read_span: Default::default(),
            read_last_low: Default::default(),
            read_last_psn: Default::default(),
            read_next_psn: Default::default(),
            read_va_sum: Default::default(),
            read_sent_first: Default::default(),
            read_sent_local: Default::default(),
            read_sent_bytes: Default::default(),
            read_sent_code: Default::default(),
            read_sent_generation_held: Default::default(),
            read_va: Default::default(),
            read_moved_high_diff: Default::default(),
            read_last_high: Default::default(),
            read_moved_high: Default::default(),
            skip_left: Default::default(),
            first_psn: Default::default(),
            first_since_ack: Default::default(),
            local_start: Default::default(),
            left: Default::default(),
            over: Default::default(),
            over_next: Default::default(),
            first: Default::default(),
            last: Default::default(),
            payload_len: Default::default(),
            psn: Default::default(),
            psn_next: Default::default(),
            since_ack: Default::default(),
            ack_due: Default::default(),
            local_byte: Default::default(),
            local_mid: Default::default(),
            local_upper: Default::default(),
            local_top: Default::default(),
            local_mid_sum: Default::default(),
            local_upper_full: Default::default(),
            over_start_high: Default::default(),
            over_next_high: Default::default(),
            local_address: Default::default(),
            rc: c::<3>(u64::from(Transport::Rc.bits())),
            message_last: Default::default(),
            message_head: Default::default(),
            ack_request: Default::default(),
            operation: Default::default(),
            descriptor: Default::default(),
            skipping: Default::default(),
            replay_local: Default::default(),
            record_entry: Default::default(),
            block_at: std::array::from_fn(|i| c::<9>(SENT_BLOCK.offset(BLOCK_FIELDS[i]) as u64)),
            reth_va: Default::default(),
            reth_rkey: Default::default(),
            reth_len: Default::default(),
            immediate_value: Default::default(),
            carries_word: Default::default(),
            room: Default::default(),
            pad: Default::default(),
            room_limit: c::<5>((CAPACITY - 3) as u64),
            op_code: std::array::from_fn(|i| c::<5>(u64::from(ops[i].bits()))),
            read_op_code: [ReadResponseFirst, ReadResponseMiddle, ReadResponseLast, ReadResponseOnly].map(|o| c::<5>(u64::from(o.bits()))),
            read_request_code: c::<5>(u64::from(ReadRequest.bits())),
            last_psn_kept: {
                let place = PACKET.placement("last_psn");
                Constant::new(crate::common::elab::bits_from::<DESCRIPTOR_BITS>(|bit| {
                    !(place.offset..place.offset + place.field.width).contains(&bit)
                }))
            },
            pmtu_code: Pmtu::ALL.map(|p| c::<3>(u64::from(p.code()))),
            pmtu_size: Pmtu::ALL.map(|p| c::<13>(u64::from(p.bytes()))),
            pmtu_bytes: Pmtu::ALL.map(|p| c::<BLOCK_LEN_BITS>(u64::from(p.bytes()))),
            pmtu_log2: Pmtu::ALL.map(|p| c::<5>(u64::from(p.log2()))),
            read_span_at: Default::default(),
            at: std::array::from_fn(|i| c::<9>(PACKET.offset(PACKET_FIELDS[i]) as u64)),
            descriptors: Default::default(),
            reads: Default::default(),
        }
    }
}

impl<const QB: usize> Logic for TxPacketizer<QB> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            state,
            init_count,
            commit_seen,
            qp,
            channel,
            transport,
            pmtu,
            ack_every,
            ack_every_minus_one,
            sq_psn,
            rkey,
            write,
            message_first,
            message_ends,
            transfer_ends,
            has_immediate,
            immediate,
            solicited,
            va,
            length,
            timeout,
            retry,
            rnr_retry,
            replay,
            read_response,
            recorded,
            one_packet,
            record_pending,
            read_request,
            read_sent_pending,
            read_left_minus_one,
            read_moved,
            read_moved_low,
            read_left_zero,
            read_span,
            read_last_low,
            read_last_psn,
            read_next_psn,
            read_sent_first,
            read_sent_local,
            read_sent_bytes,
            read_sent_code,
            read_sent_generation_held,
            read_moved_high,
            skip_left,
            first_psn,
            first_since_ack,
            local_start,
            left,
            over,
            over_next,
            first,
            last,
            payload_len,
            psn,
            psn_next,
            since_ack,
            ack_due,
            local_byte,
            local_mid,
            local_top,
            local_mid_sum
        );
        for i in 0..5 {
            self.read_pmtu_is[i].clock.next = self.clock.val();
            self.read_pmtu_is[i].d.next = self.read_pmtu_is[i].q.val();
        }
        for k in 0..4 {
            self.read_va_sum[k].clock.next = self.clock.val();
            self.read_va_sum[k].d.next = self.read_va_sum[k].q.val();
        }
        for k in 0..2 {
            self.local_upper[k].clock.next = self.clock.val();
            self.local_upper[k].d.next = self.local_upper[k].q.val();
            self.local_upper_full[k].clock.next = self.clock.val();
            self.local_upper_full[k].d.next = self.local_upper_full[k].q.val();
        }
        self.local_address.next = (bit_cast::<64, 11>(self.local_top.q.val()) << 53)
            | (bit_cast::<64, 15>(self.local_upper[1].q.val()) << 38)
            | (bit_cast::<64, 15>(self.local_upper[0].q.val()) << 23)
            | (bit_cast::<64, 15>(self.local_mid.q.val()) << 8)
            | bit_cast::<64, 8>(self.local_byte.q.val());
        self.over_start_high.next =
            bit_cast::<14, 13>(self.length.q.val().get_bits::<13>(8)) - bit_cast::<14, 5>(self.pmtu.q.val().get_bits::<5>(8));
        self.over_next_high.next = self.over.q.val().get_bits::<14>(8) - bit_cast::<14, 5>(self.pmtu.q.val().get_bits::<5>(8));
        clock!(self, clock, descriptors, reads);
        self.sender.read_clock.next = self.clock.val();
        self.sender.write_clock.next = self.clock.val();
        self.fresh.read_clock.next = self.clock.val();
        self.fresh.write_clock.next = self.clock.val();
        self.descriptors.reset.next = self.reset.val();
        self.reads.reset.next = self.reset.val();

        // QP RAMs: read the block's QP; a commit sets a fresh bit (it wins the write port)
        self.sender.read_address.next = self.qp.q.val();
        self.fresh.read_address.next = self.qp.q.val();
        self.sender.write_enable.next = false;
        self.sender.write_address.next = self.qp.q.val();
        self.sender.write_data.next = (bit_cast::<32, 8>(self.since_ack.q.val()) << 24) | bit_cast::<32, 24>(self.psn_next.q.val());
        if self.read_request.q.val() {
            // a READ: the PSN after its response's
            self.sender.write_data.next =
                (bit_cast::<32, 8>(self.since_ack.q.val()) << 24) | bit_cast::<32, 24>(self.read_next_psn.q.val());
        }
        self.fresh.write_enable.next = self.commit_valid.val();
        self.fresh.write_address.next = self.commit_index.val();
        self.fresh.write_data.next = true;
        if self.commit_valid.val() && self.commit_index.val() == self.qp.q.val() {
            self.commit_seen.d.next = true;
        }

        // the descriptor of the current packet (from registers)
        self.message_head.next = self.first.q.val() && self.message_first.q.val();
        self.message_last.next = self.last.q.val() && self.message_ends.q.val();
        // RC: AckReq on a block's last packet (every block waits in the send history for its
        // ACK), on every `ack_every`-th packet and on a READ request
        self.ack_request.next =
            ((self.transport.q.val() == self.rc.val()) && !self.read_response.q.val() && (self.last.q.val() || self.ack_due.q.val()))
                || self.read_request.q.val();
        self.operation.next = self.op_code[1].val();
        if self.message_head.val() && self.message_last.val() {
            self.operation.next = self.op_code[4].val();
            if self.has_immediate.q.val() {
                self.operation.next = self.op_code[5].val();
            }
        } else if self.message_head.val() {
            self.operation.next = self.op_code[0].val();
        } else if self.message_last.val() {
            self.operation.next = self.op_code[2].val();
            if self.has_immediate.q.val() {
                self.operation.next = self.op_code[3].val();
            }
        }
        if self.write.q.val() {
            self.operation.next = self.operation.val() + 6;
        }
        if self.read_response.q.val() {
            self.operation.next = self.read_op_code[1].val();
            if self.message_head.val() && self.message_last.val() {
                self.operation.next = self.read_op_code[3].val();
            } else if self.message_head.val() {
                self.operation.next = self.read_op_code[0].val();
            } else if self.message_last.val() {
                self.operation.next = self.read_op_code[2].val();
            }
        }
        if self.read_request.q.val() {
            self.operation.next = self.read_request_code.val();
        }
        self.read_span_at[0].next = bit_cast::<13, BLOCK_LEN_BITS>(self.read_left_minus_one.q.val() >> self.pmtu_log2[0].val());
        self.read_span_at[1].next = bit_cast::<13, BLOCK_LEN_BITS>(self.read_left_minus_one.q.val() >> self.pmtu_log2[1].val());
        self.read_span_at[2].next = bit_cast::<13, BLOCK_LEN_BITS>(self.read_left_minus_one.q.val() >> self.pmtu_log2[2].val());
        self.read_span_at[3].next = bit_cast::<13, BLOCK_LEN_BITS>(self.read_left_minus_one.q.val() >> self.pmtu_log2[3].val());
        self.read_span_at[4].next = bit_cast::<13, BLOCK_LEN_BITS>(self.read_left_minus_one.q.val() >> self.pmtu_log2[4].val());
        // READ: bits 20:12 of `length − left` less the borrow out of 11:0, in one 10-bit
        // subtraction; the last PSN's bits 23:12
        self.read_moved_high_diff.next = (bit_cast::<10, 9>(self.length.q.val().get_bits::<9>(12)) << 1)
            - ((bit_cast::<10, 9>(self.left.q.val().get_bits::<9>(12)) << 1)
                | bit_cast::<10, 1>(self.read_moved_low.q.val().get_bit(12).into()));
        self.read_last_high.next = self.psn.q.val().get_bits::<12>(12) + bit_cast::<12, 1>(self.read_last_low.q.val().get_bit(12).into());
        self.read_va.next = (bit_cast::<64, 16>(self.read_va_sum[3].q.val().get_bits::<16>(0)) << 48)
            | (bit_cast::<64, 16>(self.read_va_sum[2].q.val().get_bits::<16>(0)) << 32)
            | (bit_cast::<64, 16>(self.read_va_sum[1].q.val().get_bits::<16>(0)) << 16)
            | bit_cast::<64, 16>(self.read_va_sum[0].q.val().get_bits::<16>(0));
        self.reth_va.next = 0.into();
        self.reth_rkey.next = 0.into();
        self.reth_len.next = 0.into();
        if self.write.q.val() && self.message_head.val() {
            self.reth_va.next = self.va.q.val();
            self.reth_rkey.next = self.rkey.q.val();
            self.reth_len.next = bit_cast::<32, BLOCK_LEN_BITS>(self.length.q.val());
            // a WRITE message longer than its group (as one message): its length is there
            if !self.message_ends.q.val() {
                self.reth_len.next = self.immediate.q.val();
            }
        }
        // a READ request asks for the rest of its block
        if self.read_request.q.val() {
            self.reth_va.next = self.read_va.val();
            self.reth_rkey.next = self.rkey.q.val();
            self.reth_len.next = bit_cast::<32, BLOCK_LEN_BITS>(self.left.q.val());
        }
        // the word after the BTH (and RETH): the ImmDt, or a READ response's AETH (first, last
        // and only packets)
        self.carries_word.next = (self.message_last.val() && self.has_immediate.q.val())
            || (self.read_response.q.val() && (self.message_head.val() || self.message_last.val()));
        self.immediate_value.next = 0.into();
        if self.carries_word.val() {
            self.immediate_value.next = self.immediate.q.val();
        }
        // in a Local: Verilog would widen `~len + 1` to the descriptor's width
        self.pad.next = (!self.payload_len.q.val().get_bits::<2>(0)) + 1;
        self.descriptor.next = (bit_cast::<DESCRIPTOR_BITS, QB>(self.qp.q.val()) << self.at[0].val())
            | (bit_cast::<DESCRIPTOR_BITS, 8>((bit_cast::<8, 3>(self.transport.q.val()) << 5) | bit_cast::<8, 5>(self.operation.val()))
                << self.at[1].val())
            | (bit_cast::<DESCRIPTOR_BITS, 24>(self.psn.q.val()) << self.at[2].val())
            | (bit_cast::<DESCRIPTOR_BITS, 2>(self.pad.val()) << self.at[5].val())
            | (bit_cast::<DESCRIPTOR_BITS, 13>(self.payload_len.q.val()) << self.at[9].val())
            | (bit_cast::<DESCRIPTOR_BITS, 16>(self.channel.q.val()) << self.at[10].val())
            | (bit_cast::<DESCRIPTOR_BITS, 32>(self.reth_rkey.val()) << self.at[11].val())
            | (bit_cast::<DESCRIPTOR_BITS, 32>(self.reth_len.val()) << self.at[12].val())
            | (bit_cast::<DESCRIPTOR_BITS, 32>(self.immediate_value.val()) << self.at[13].val())
            | (bit_cast::<DESCRIPTOR_BITS, 64>(self.reth_va.val()) << self.at[14].val())
            | (bit_cast::<DESCRIPTOR_BITS, 24>(self.psn.q.val()) << self.at[17].val());
        if self.read_request.q.val() {
            self.descriptor.next = (self.descriptor.val() & self.last_psn_kept.val())
                | (bit_cast::<DESCRIPTOR_BITS, 24>(self.read_last_psn.q.val()) << self.at[17].val());
        }
        self.descriptor.next = self
            .descriptor
            .val()
            .replace_bit(self.at[3].val().index(), self.message_last.val() && self.solicited.q.val());
        self.descriptor.next = self.descriptor.val().replace_bit(self.at[4].val().index(), self.ack_request.val());
        self.descriptor.next = self.descriptor.val().replace_bit(
            self.at[6].val().index(),
            (self.write.q.val() && self.message_head.val()) || self.read_request.q.val(),
        );
        self.descriptor.next = self.descriptor.val().replace_bit(self.at[7].val().index(), self.carries_word.val());
        self.descriptor.next = self.descriptor.val().replace_bit(
            self.at[8].val().index(),
            (self.last.q.val() || self.read_request.q.val())
                && self.transfer_ends.q.val()
                && !self.replay.q.val()
                && !self.read_response.q.val(),
        );
        self.descriptor.next = self.descriptor.val().replace_bit(self.at[15].val().index(), self.replay.q.val());
        self.descriptor.next = self
            .descriptor
            .val()
            .replace_bit(self.at[16].val().index(), self.read_response.q.val());
        self.descriptor.next = self
            .descriptor
            .val()
            .replace_bit(self.at[18].val().index(), self.commit_seen.q.val() && !self.replay.q.val());
        // (a block whose QP was reset after it was cut is walked, not sent, but for its
        // transfer's last packet: the transfer completes, flushed, when it has left)
        self.skipping.next = self.skip_left.q.val().any()
            || (self.commit_seen.q.val()
                && !self.read_response.q.val()
                && (self.replay.q.val() || !(self.last.q.val() && self.transfer_ends.q.val())));

        // the block's record, for the send history
        self.record_entry.next = (bit_cast::<SENT_BLOCK_BITS, 64>(self.va.q.val()) << self.block_at[0].val())
            | (bit_cast::<SENT_BLOCK_BITS, 64>(self.local_start.q.val()) << self.block_at[1].val())
            | (bit_cast::<SENT_BLOCK_BITS, 32>(self.immediate.q.val()) << self.block_at[2].val())
            | (bit_cast::<SENT_BLOCK_BITS, 16>(self.channel.q.val()) << self.block_at[3].val())
            | (bit_cast::<SENT_BLOCK_BITS, 8>(self.first_since_ack.q.val()) << self.block_at[10].val())
            | (bit_cast::<SENT_BLOCK_BITS, BLOCK_LEN_BITS>(self.length.q.val()) << self.block_at[11].val())
            | (bit_cast::<SENT_BLOCK_BITS, 32>(self.rkey.q.val()) << self.block_at[12].val())
            | (bit_cast::<SENT_BLOCK_BITS, 3>(self.transport.q.val()) << self.block_at[13].val())
            | (bit_cast::<SENT_BLOCK_BITS, 8>(self.ack_every.q.val()) << self.block_at[14].val())
            | (bit_cast::<SENT_BLOCK_BITS, 13>(self.pmtu.q.val()) << self.block_at[15].val());
        self.record_entry.next = self
            .record_entry
            .val()
            .replace_bit(self.block_at[4].val().index(), self.write.q.val());
        self.record_entry.next = self
            .record_entry
            .val()
            .replace_bit(self.block_at[5].val().index(), self.message_first.q.val());
        self.record_entry.next = self
            .record_entry
            .val()
            .replace_bit(self.block_at[6].val().index(), self.message_ends.q.val());
        self.record_entry.next = self
            .record_entry
            .val()
            .replace_bit(self.block_at[7].val().index(), self.transfer_ends.q.val());
        self.record_entry.next = self
            .record_entry
            .val()
            .replace_bit(self.block_at[8].val().index(), self.has_immediate.q.val());
        self.record_entry.next = self
            .record_entry
            .val()
            .replace_bit(self.block_at[9].val().index(), self.solicited.q.val());
        self.record_entry.next = self
            .record_entry
            .val()
            .replace_bit(self.block_at[16].val().index(), self.read_request.q.val());
        self.record_block.next = self.record_entry.val();
        self.record_qp.next = self.qp.q.val();
        self.record_first_psn.next = self.first_psn.q.val();
        self.record_last_psn.next = self.read_last_psn.q.val();
        self.record_timeout.next = self.timeout.q.val();
        self.record_retry.next = self.retry.q.val();
        self.record_rnr_retry.next = self.rnr_retry.q.val();
        self.read_sent_valid.next = self.read_sent_pending.q.val();
        self.read_sent_again.next = self.replay.q.val();
        self.read_sent_qp.next = self.qp.q.val();
        self.read_sent_first_psn.next = self.read_sent_first.q.val();
        self.read_sent_last_psn.next = self.read_last_psn.q.val();
        self.read_sent_local_address.next = self.read_sent_local.q.val();
        self.read_sent_length.next = bit_cast::<32, BLOCK_LEN_BITS>(self.read_sent_bytes.q.val());
        self.read_sent_pmtu.next = self.read_sent_code.q.val();
        self.read_sent_generation.next = self.read_sent_generation_held.q.val();
        // a register: the TX path's ready for it depends on it
        self.record_valid.next = self.record_pending.q.val();
        self.replay_local.next = self.replay_block.val().get_bits::<64>(self.block_at[1].val().index());
        self.descriptors.push_value.next = self.descriptor.val();
        self.reads.push_value.next = (bit_cast::<READ_COMMAND_BITS, 13>(self.payload_len.q.val()) << 64)
            | bit_cast::<READ_COMMAND_BITS, 64>(self.local_address.val());
        self.descriptors.push.next = false;
        self.reads.push.next = false;
        // both FIFOs keep room for the entry of this cycle and one in flight
        self.room.next = !self.descriptors.fill.val().get_bit(self.room_limit.val().index())
            && !self.reads.fill.val().get_bit(self.room_limit.val().index());

        // (a record not taken before its QP's commit is withdrawn: the clear may be done)
        if self.record_ready.val() || self.commit_seen.q.val() {
            self.record_pending.d.next = false;
        }
        self.init_done.next = self.state.q.val() != PacketizerState::Init;
        self.span_load.next = false;
        self.one_packet.d.next = false;
        for i in 0..5 {
            if (self.pmtu.q.val() == self.pmtu_size[i].val())
                && (((self.left.q.val() >> self.pmtu_log2[i].val()) == 0) || (self.left.q.val() == self.pmtu_bytes[i].val()))
            {
                self.one_packet.d.next = true;
            }
        }
        // a new block's first PSN (`Start`): the context's for a QP not sent on since its commit
        self.start_psn.next = self.sender.read_data.val().get_bits::<24>(0);
        if self.fresh.read_data.val() {
            self.start_psn.next = self.sq_psn.q.val();
        }
        match self.state.q.val() {
            PacketizerState::Init => {
                self.fresh.write_enable.next = true;
                self.fresh.write_address.next = self.init_count.q.val();
                self.init_count.d.next = self.init_count.q.val() + 1;
                if self.init_count.q.val() == self.init_last.val() {
                    self.state.d.next = PacketizerState::Idle;
                }
            }
            PacketizerState::Idle => {}
            PacketizerState::Load => {
                // a new RC block's span for its record (`left` is the block's length)
                self.span_load.next = true;
                self.ack_every_minus_one.d.next = self.ack_every.q.val() - 1;
                self.left.d.next = self.length.q.val();
                self.state.d.next = PacketizerState::Start;
            }
            PacketizerState::Start => {
                // a new RC block's packets (as a READ request's response's): its record first
                self.left.d.next = self.length.q.val();
                self.over.d.next =
                    (bit_cast::<22, 14>(self.over_start_high.val()) << 8) | bit_cast::<22, 8>(self.length.q.val().get_bits::<8>(0));
                self.first.d.next = true;
                self.psn.d.next = self.sender.read_data.val().get_bits::<24>(0);
                self.since_ack.d.next = self.sender.read_data.val().get_bits::<8>(24);
                self.first_psn.d.next = self.sender.read_data.val().get_bits::<24>(0);
                self.first_since_ack.d.next = self.sender.read_data.val().get_bits::<8>(24);
                self.state.d.next = PacketizerState::Prepare;
                if self.recorded.q.val() && !self.read_request.q.val() && !self.commit_seen.q.val() {
                    self.state.d.next = PacketizerState::ReadSpan;
                    if self.one_packet.q.val() && !self.commit_valid.val() {
                        // one packet (no commit to decide again for): its last PSN is its first,
                        // the record offered now
                        self.read_last_psn.d.next = self.start_psn.val();
                        self.record_pending.d.next = true;
                        self.state.d.next = PacketizerState::Prepare;
                    }
                }
                if self.commit_seen.q.val() {
                    // its QP was reset after it was cut: not recorded, its packets not sent
                    self.recorded.d.next = false;
                }
                if self.replay.q.val() || self.read_response.q.val() {
                    self.psn.d.next = self.first_psn.q.val();
                    self.since_ack.d.next = self.first_since_ack.q.val();
                    self.first_psn.d.next = self.first_psn.q.val();
                    self.first_since_ack.d.next = self.first_since_ack.q.val();
                } else if self.fresh.read_data.val() {
                    self.psn.d.next = self.sq_psn.q.val();
                    self.since_ack.d.next = 0.into();
                    self.first_psn.d.next = self.sq_psn.q.val();
                    self.first_since_ack.d.next = 0.into();
                    if !self.commit_seen.q.val() {
                        // the commit port has the write port this cycle: try again next cycle
                        if self.commit_valid.val() {
                            self.state.d.next = PacketizerState::Start;
                        } else {
                            self.fresh.write_enable.next = true;
                            self.fresh.write_address.next = self.qp.q.val();
                            self.fresh.write_data.next = false;
                        }
                    }
                }
                if self.commit_valid.val() && (self.commit_index.val() == self.qp.q.val()) {
                    // a commit of the block's QP this cycle: decided again next cycle, stale
                    self.state.d.next = PacketizerState::Start;
                }
            }
            PacketizerState::Prepare => {
                self.last.d.next = self.over.q.val().get_bit(21) || self.over.q.val() == 0;
                self.payload_len.d.next = self.pmtu.q.val();
                if self.over.q.val().get_bit(21) || self.over.q.val() == 0 {
                    self.payload_len.d.next = self.left.q.val().get_bits::<13>(0);
                }
                self.ack_due.d.next = self.ack_every.q.val().any() && self.since_ack.q.val() == self.ack_every_minus_one.q.val();
                self.state.d.next = PacketizerState::Emit;
            }
            PacketizerState::Emit => {
                if self.read_request.q.val() && !self.skipping.val() {
                    // the READ request for the rest of the block: its span and VA first
                    self.span_load.next = true;
                    self.read_moved_low.d.next =
                        bit_cast::<13, 12>(self.length.q.val().get_bits::<12>(0)) - bit_cast::<13, 12>(self.left.q.val().get_bits::<12>(0));
                    // a request carries no payload
                    self.payload_len.d.next = 0.into();
                    self.state.d.next = PacketizerState::ReadMove;
                } else if (self.room.val() && !self.record_pending.q.val()) || self.skipping.val() {
                    self.descriptors.push.next = !self.skipping.val();
                    self.reads.push.next = self.payload_len.q.val().any() && !self.skipping.val();
                    if self.skip_left.q.val().any() {
                        self.skip_left.d.next = self.skip_left.q.val() - 1;
                    }
                    self.psn_next.d.next = self.psn.q.val() + 1;
                    self.local_mid_sum.d.next =
                        bit_cast::<16, 15>(self.local_mid.q.val()) + bit_cast::<16, 5>(self.pmtu.q.val().get_bits::<5>(8));
                    self.local_upper_full[0].d.next = self.local_upper[0].q.val() == 0x7FFF;
                    self.local_upper_full[1].d.next = self.local_upper[1].q.val() == 0x7FFF;
                    self.over_next.d.next =
                        (bit_cast::<22, 14>(self.over_next_high.val()) << 8) | bit_cast::<22, 8>(self.over.q.val().get_bits::<8>(0));
                    if (self.transport.q.val() == self.rc.val()) && !self.read_response.q.val() {
                        self.since_ack.d.next = self.since_ack.q.val() + 1;
                        if self.ack_request.val() {
                            self.since_ack.d.next = 0.into();
                        }
                    }
                    self.state.d.next = PacketizerState::Advance;
                    if self.last.q.val() {
                        self.state.d.next = PacketizerState::Finish;
                    }
                }
            }
            PacketizerState::Advance => {
                self.first.d.next = false;
                self.psn.d.next = self.psn_next.q.val();
                self.local_mid.d.next = self.local_mid_sum.q.val().get_bits::<15>(0);
                if self.local_mid_sum.q.val().get_bit(15) {
                    self.local_upper[0].d.next = self.local_upper[0].q.val() + 1;
                    if self.local_upper_full[0].q.val() {
                        self.local_upper[1].d.next = self.local_upper[1].q.val() + 1;
                        if self.local_upper_full[1].q.val() {
                            self.local_top.d.next = self.local_top.q.val() + 1;
                        }
                    }
                }
                self.left.d.next = self.over.q.val().get_bits::<BLOCK_LEN_BITS>(0);
                self.over.d.next = self.over_next.q.val();
                self.last.d.next = self.over_next.q.val().get_bit(21) || self.over_next.q.val() == 0;
                self.payload_len.d.next = self.pmtu.q.val();
                if self.over_next.q.val().get_bit(21) || self.over_next.q.val() == 0 {
                    self.payload_len.d.next = self.over.q.val().get_bits::<13>(0);
                }
                self.ack_due.d.next = self.ack_every.q.val().any() && self.since_ack.q.val() == self.ack_every_minus_one.q.val();
                self.state.d.next = PacketizerState::Emit;
            }
            PacketizerState::ReadMove => {
                self.read_moved.d.next = (bit_cast::<BLOCK_LEN_BITS, 9>(self.read_moved_high_diff.val().get_bits::<9>(1)) << 12)
                    | bit_cast::<BLOCK_LEN_BITS, 12>(self.read_moved_low.q.val().get_bits::<12>(0));
                self.state.d.next = PacketizerState::ReadSpan;
            }
            PacketizerState::ReadSpan => {
                self.read_va_sum[0].d.next =
                    bit_cast::<17, 16>(self.va.q.val().get_bits::<16>(0)) + bit_cast::<17, 16>(self.read_moved.q.val().get_bits::<16>(0));
                self.read_last_low.d.next =
                    bit_cast::<13, 12>(self.psn.q.val().get_bits::<12>(0)) + bit_cast::<13, 12>(self.read_span.q.val().get_bits::<12>(0));
                self.state.d.next = PacketizerState::ReadLast;
            }
            PacketizerState::ReadLast => {
                self.read_last_psn.d.next = (bit_cast::<24, 12>(self.read_last_high.val()) << 12)
                    | bit_cast::<24, 12>(self.read_last_low.q.val().get_bits::<12>(0));
                self.read_moved_high.d.next = bit_cast::<16, 5>(self.read_moved.q.val().get_bits::<5>(16))
                    + bit_cast::<16, 1>(self.read_va_sum[0].q.val().get_bit(16).into());
                self.record_pending.d.next = self.recorded.q.val() && !self.commit_seen.q.val();
                self.state.d.next = PacketizerState::Prepare;
                if self.read_request.q.val() {
                    self.state.d.next = PacketizerState::ReadAdd1;
                }
            }
            PacketizerState::ReadAdd1 => {
                self.read_va_sum[1].d.next =
                    bit_cast::<17, 16>(self.va.q.val().get_bits::<16>(16)) + bit_cast::<17, 16>(self.read_moved_high.q.val());
                self.read_next_psn.d.next = self.read_last_psn.q.val() + 1;
                self.state.d.next = PacketizerState::ReadAdd2;
            }
            PacketizerState::ReadAdd2 => {
                self.read_va_sum[2].d.next = bit_cast::<17, 16>(self.va.q.val().get_bits::<16>(32))
                    + bit_cast::<17, 1>(self.read_va_sum[1].q.val().get_bit(16).into());
                self.state.d.next = PacketizerState::ReadAdd3;
            }
            PacketizerState::ReadAdd3 => {
                self.read_va_sum[3].d.next = bit_cast::<17, 16>(self.va.q.val().get_bits::<16>(48))
                    + bit_cast::<17, 1>(self.read_va_sum[2].q.val().get_bit(16).into());
                self.state.d.next = PacketizerState::ReadEmit;
            }
            PacketizerState::ReadEmit => {
                if self.room.val() && !self.record_pending.q.val() {
                    self.descriptors.push.next = true;
                    self.read_sent_first.d.next = self.psn.q.val();
                    self.read_sent_local.d.next = self.local_address.val();
                    self.read_sent_bytes.d.next = self.left.q.val();
                    self.read_sent_pending.d.next = true;
                    // the AckReq count starts again after the request
                    self.since_ack.d.next = 0.into();
                    self.state.d.next = PacketizerState::Finish;
                }
            }
            PacketizerState::Finish => {
                // a new block's PSN and counter; a READ request waits until the READ tracker has it
                self.sender.write_enable.next = !self.replay.q.val() && !self.read_response.q.val();
                if self.read_sent_ready.val() {
                    self.read_sent_pending.d.next = false;
                }
                if !self.read_sent_pending.q.val() || self.read_sent_ready.val() {
                    self.state.d.next = PacketizerState::Idle;
                }
            }
        }
        // a replay or a block is taken in `Idle`, or as `Finish` ends when no READ request
        // waits for the tracker
        self.taking.next = (self.state.q.val() == PacketizerState::Idle)
            || ((self.state.q.val() == PacketizerState::Finish) && !self.read_sent_pending.q.val());
        // (each `ready` from registers and inputs alone, not from `taking`, a signal of this
        // block: Verilator would see the cutter's `valid`, which depends on it, go round)
        self.replay_ready.next = (self.state.q.val() == PacketizerState::Idle)
            || ((self.state.q.val() == PacketizerState::Finish) && !self.read_sent_pending.q.val());
        self.block_ready.next = ((self.state.q.val() == PacketizerState::Idle)
            || ((self.state.q.val() == PacketizerState::Finish) && !self.read_sent_pending.q.val()))
            && !self.replay_valid.val()
            && !self.replaying.val();
        if self.taking.val() {
            if self.replay_valid.val() {
                self.qp.d.next = self.replay_qp.val();
                self.channel.d.next = self.replay_block.val().get_bits::<16>(self.block_at[3].val().index());
                self.transport.d.next = self.replay_block.val().get_bits::<3>(self.block_at[13].val().index());
                self.pmtu.d.next = self.replay_block.val().get_bits::<13>(self.block_at[15].val().index());
                self.ack_every.d.next = self.replay_block.val().get_bits::<8>(self.block_at[14].val().index());
                self.rkey.d.next = self.replay_block.val().get_bits::<32>(self.block_at[12].val().index());
                self.write.d.next = self.replay_block.val().get_bit(self.block_at[4].val().index());
                self.message_first.d.next = self.replay_block.val().get_bit(self.block_at[5].val().index());
                self.message_ends.d.next = self.replay_block.val().get_bit(self.block_at[6].val().index());
                self.transfer_ends.d.next = self.replay_block.val().get_bit(self.block_at[7].val().index());
                self.has_immediate.d.next = self.replay_block.val().get_bit(self.block_at[8].val().index());
                self.immediate.d.next = self.replay_block.val().get_bits::<32>(self.block_at[2].val().index());
                self.solicited.d.next = self.replay_block.val().get_bit(self.block_at[9].val().index());
                self.va.d.next = self.replay_block.val().get_bits::<64>(self.block_at[0].val().index());
                self.length.d.next = self.replay_block.val().get_bits::<BLOCK_LEN_BITS>(self.block_at[11].val().index());
                self.left.d.next = self.replay_block.val().get_bits::<BLOCK_LEN_BITS>(self.block_at[11].val().index());
                self.local_start.d.next = self.replay_local.val();
                self.local_byte.d.next = self.replay_local.val().get_bits::<8>(0);
                self.local_mid.d.next = self.replay_local.val().get_bits::<15>(8);
                self.local_upper[0].d.next = self.replay_local.val().get_bits::<15>(23);
                self.local_upper[1].d.next = self.replay_local.val().get_bits::<15>(38);
                self.local_top.d.next = self.replay_local.val().get_bits::<11>(53);
                self.first_psn.d.next = self.replay_first_psn.val();
                self.first_since_ack.d.next = self.replay_block.val().get_bits::<8>(self.block_at[10].val().index());
                self.skip_left.d.next = self.replay_skip.val().get_bits::<13>(0);
                self.replay.d.next = true;
                self.recorded.d.next = false;
                self.read_response.d.next = false;
                self.read_request.d.next = self.replay_block.val().get_bit(self.block_at[16].val().index());
                self.commit_seen.d.next = false;
                self.state.d.next = PacketizerState::Load;
            } else if self.block_valid.val() && !self.replaying.val() {
                self.timeout.d.next = self.block_timeout.val();
                self.retry.d.next = self.block_retry.val();
                self.rnr_retry.d.next = self.block_rnr_retry.val();
                self.local_start.d.next = self.block_local.val();
                self.replay.d.next = false;
                self.recorded.d.next = (self.block_transport.val() == self.rc.val()) && !self.block_read_response.val();
                self.read_response.d.next = self.block_read_response.val();
                self.read_request.d.next = self.block_read_request.val();
                self.read_sent_generation_held.d.next = self.block_read_generation.val();
                self.first_psn.d.next = self.block_psn.val();
                self.skip_left.d.next = 0.into();
                self.qp.d.next = self.block_qp.val();
                self.channel.d.next = self.block_channel.val();
                self.transport.d.next = self.block_transport.val();
                self.pmtu.d.next = self.block_pmtu.val();
                self.ack_every.d.next = self.block_ack_every.val();
                self.sq_psn.d.next = self.block_sq_psn.val();
                self.rkey.d.next = self.block_rkey.val();
                self.write.d.next = self.block_write.val() && !self.block_read_request.val();
                self.message_first.d.next = self.block_message_first.val();
                self.message_ends.d.next = self.block_message_ends.val();
                self.transfer_ends.d.next = self.block_transfer_ends.val();
                self.has_immediate.d.next = self.block_has_immediate.val();
                self.immediate.d.next = self.block_immediate.val();
                self.solicited.d.next = self.block_solicited.val();
                self.va.d.next = self.block_va.val();
                self.length.d.next = self.block_len.val();
                self.left.d.next = self.block_len.val();
                self.local_byte.d.next = self.block_local.val().get_bits::<8>(0);
                self.local_mid.d.next = self.block_local.val().get_bits::<15>(8);
                self.local_upper[0].d.next = self.block_local.val().get_bits::<15>(23);
                self.local_upper[1].d.next = self.block_local.val().get_bits::<15>(38);
                self.local_top.d.next = self.block_local.val().get_bits::<11>(53);
                self.commit_seen.d.next = self.commit_valid.val() && (self.commit_index.val() == self.block_qp.val());
                self.state.d.next = PacketizerState::Load;
            }
        }
        // the span (packets − 1) and the PMTU's code from the span's inputs, a cycle after they
        // are loaded
        self.read_span.d.next = 0.into();
        self.read_sent_code.d.next = 0.into();
        for i in 0..5 {
            if self.read_pmtu_is[i].q.val() {
                self.read_span.d.next = self.read_span_at[i].val();
                self.read_sent_code.d.next = self.pmtu_code[i].val();
            }
        }
        if self.read_left_zero.q.val() {
            self.read_span.d.next = 0.into();
        }
        if self.span_load.val() {
            // the span's inputs: the bytes left minus one, the PMTU one-hot, no bytes left
            self.read_left_minus_one.d.next = self.left.q.val() - 1;
            for i in 0..5 {
                self.read_pmtu_is[i].d.next = self.pmtu.q.val() == self.pmtu_size[i].val();
            }
            self.read_left_zero.d.next = !self.left.q.val().any();
        }
        if self.reset.val() {
            self.state.d.next = PacketizerState::Init;
            self.init_count.d.next = 0.into();
            self.record_pending.d.next = false;
            self.read_sent_pending.d.next = false;
        }

        // outputs: the FIFO heads
        self.m_desc_valid.next = self.descriptors.head_valid.val();
        self.m_desc.next = self.descriptors.head.val();
        self.descriptors.pop.next = self.descriptors.head_valid.val() && self.m_desc_ready.val();
        self.m_read_valid.next = self.reads.head_valid.val();
        self.m_read.next = self.reads.head.val();
        self.reads.pop.next = self.reads.head_valid.val() && self.m_read_ready.val();
    }
}
