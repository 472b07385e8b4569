//! [`TxSegmenter`]: the transfer table, the post checks, the block cutter and the
//! [`TxPacketizer`]. The golden model is `ferroce_models::tx` (`TxSetup::admit`, `segment`,
//! `packetize`, and the decision loop of `TxModel::plan`); `docs/tx.md` is the specification.
//!
//! ```text
//!  post ──► checks (busy RAM, QP context) ──► transfer table ──► enq ──► Sched
//!                                                 ▲                        │ deq
//!                                                 │ write back             ▼
//!            re-enqueue ◄── cutter: table → context → hold, room → length → add (4 × 16 bits)
//!                                                 │ block command
//!                                                 ▼
//!                                  TxPacketizer ──► m_desc (PACKET), m_read (address, length)
//! ```
//!
//! One control state machine serves posts and decisions, one at a time: a post takes six
//! cycles plus the enqueue. A decision: the scheduler's answer addresses the transfer table
//! (`Decide`), the QP context is read while the block's room is computed from the table entry
//! (`CutEntry`, `CutWait`; its low half in `CutEntry` itself), the checks that cut nothing and
//! the length (`CutCheck`) and the hand-over (`CutIssue`). A transfer's last block enqueues
//! nothing, so the next decision is asked in `CutCheck` (unless a post or a READ response
//! waits) and answered while the block is handed over: one-packet transfers take a decision
//! every six cycles (eight when asked from `Idle`). Another block adds four 16-bit stages of
//! next addresses, the write-back, the re-enqueue and the wait for it, while the packetizer
//! emits the previous block (a block is ≥ 4 KiB, at least one 4 KiB packet or sixteen 256-byte
//! ones); a paced queue's block waits for its room, computed from the context's PMTU. A
//! decision is requested only two cycles after the last enqueue was accepted, so it sees every
//! enqueue made before it, as the model's decisions do. Each cutter stage feeds its registers
//! through at most one adder or comparator.
//!
//! **Busy channels.** A channel is busy from its accepted post until the packet generator
//! reports its last packet gone (`done_valid`); `done` has priority on the busy RAM's write
//! port, and a post that sees its channel's `done` between its read and its check takes it as idle.
//! The busy RAM is written a cycle late (its write port from registers); a write that frees
//! the post's channel in that cycle counts as its `done` too.
//!
//! **A QP in error.** While a context is read, the ACK tracker answers with the status that
//! failed the QP (`qp_failure`, one cycle after the index; 0: not failed): a host's post on it
//! is refused `qp_not_ready`, and a decision for a transfer of a failed QP cuts nothing and
//! completes the transfer with that status (`flush_*`, whatever blocks it has left; before
//! the hold checks: a READ waiting for the QP's outstanding one is flushed too). A READ
//! response, the responder's, is neither refused nor flushed.
//!
//! **A QP reset.** A commit (`qp_commit_*`, the host rewrote a context) stamps its QP's
//! `epoch` with the count of commits; a post keeps its QP's epoch with the transfer, and a
//! decision that finds it moved cuts nothing and completes the transfer `Flushed`, as a verbs
//! QP reset flushes the work requests posted before it (not a READ response). A commit of the
//! decision's QP after its epoch was read sends the transfer back to its queue uncut
//! (`context_stale`): its next decision flushes it.
//!
//! **Per-QP order.** A SEND message spread over several blocks holds its QP (the hold RAM,
//! `{valid, channel}` per QP): a decision that picks another transfer of that QP cuts nothing
//! and re-enqueues it, as the model does; so does a WRITE as one message (`write-message`,
//! `write-imm-message`: cut into groups as a SEND, WRITE opcodes; its first group, unless it
//! is also its last, carries the RETH's length, the whole message, in `block_immediate`). A
//! WRITE block is a whole message.
//!
//! **A QP's line.** No transfer overtakes a message (SEND, WRITE as one message) or a
//! control-queue transfer posted before it on its QP. Those join the QP's line (`line`: `{not
//! empty, the last one's channel}` per QP), and so does any transfer posted while the line is
//! not empty (`table_in_line` per channel); the line's first is on the scheduler, the others
//! wait off it (the one before names the next in its `follower`), each enqueued (`Release`,
//! into its `table_queue`) when the one before it is cut whole or flushed; so a failed QP's
//! transfers complete in order too. A control-queue transfer thus never finds its QP held by a
//! message in progress: held, it would go round the control queue, which the scheduler serves
//! always first, and starve the data queues. A WRITE or READ of a data queue posted while its
//! QP's line is empty joins nothing: its blocks interleave with the QP's other transfers.
//!
//! **Paced queues.** A decision of a queue whose `paced_queues` bit is set (its pacer's cost is
//! not 0) cuts one group of at most the QP's PMTU: the decision's block size is the PMTU, and a
//! WRITE's offset is its remote address within a PMTU. The group is charged (`charge_*`, the
//! cycle after it goes to the packetizer) to the queue's pacer, whose pause stalls the queue
//! in the scheduler; the next decision is asked for after the charge.
//!
//! **RDMA READ.** A READ post (RC only) is cut as a WRITE (blocks aligned to the remote
//! address), each block one READ request. A QP has at most `READS_PER_QP` (4) READs outstanding:
//! a decision for a READ whose QP has that many cuts nothing and re-enqueues, as a held QP
//! does. Per QP two counts modulo 8 say it: READs cut (`reads_cut`, counted in `CutIssue`) and
//! READs over (`reads_done`, counted by the READ tracker's `read_done`: one READ's last
//! response came; or, `read_done_cleared`, the QP was reset: all of them, the count of READs
//! over becomes the count cut, and the QP's generation is counted on), each in a RAM read
//! where its writer needs it and a copy read where the other side does. Each READ request
//! carries its QP's generation (`block_read_generation`, to the tracker with the request): a
//! request cut before a reset and built after the tracker cleared the QP is of the old
//! generation, and the tracker does not load it. So that a READ is counted over by a reset
//! exactly when it is of the old generation, a reset QP's `done` is taken only the cycle after
//! it was first offered, and no READ block is taken that cycle or the two after it
//! (`clear_window`). A `done` is taken every other cycle whatever the state machine
//! does: the tracker takes no response while its `done` waits, so waiting for the state machine
//! (a cut stalled behind a replay that needs the wire to move) could stop the receive side and,
//! through the peer, the wire itself.
//!
//! **Send history.** A decision for an RC QP whose send history has at most one free slot
//! (`history_full`, asked with `history_full_qp` while the context is read: the packetizer may
//! be cutting one more block of the QP) cuts nothing and re-enqueues the transfer, as a held
//! QP does. The packetizer's replay and record ports pass through.

use super::packetizer::{TxPacketizer, BLOCK_LEN_BITS, DESCRIPTOR_BITS};
use crate::common::counter::EventCounter;
use crate::common::elab::c;
use ferroce_contracts::opcode::Transport;
use ferroce_contracts::reliability::SENT_BLOCK_BITS;
use ferroce_contracts::tx::{
    CompletionStatus, Pmtu, PostError, QpState, COMPLETION_STATUS_BITS, MAX_MESSAGE_BYTES, POST, POST_BITS, QP_CONTEXT, QP_CONTEXT_BITS,
    READS_PER_QP,
};
use rust_hdl::prelude::*;

/// Cycles from a QP context read request to its entry, by default: the register file's.
pub use ferroce_contracts::regs::QP_READ_LATENCY;

/// Where the control state machine is.
#[derive(Copy, Clone, PartialEq, Eq, Debug, LogicState)]
pub enum SegmenterState {
    /// Clearing the busy, hold, line and follower RAMs after reset.
    Init,
    /// Waiting for a post, or asking for a decision.
    Idle,
    /// Post: the busy bit and the QP context are read; range checks.
    PostRead,
    /// Post: waiting for the QP context.
    PostWait,
    /// Post: the refusal code.
    PostCheck,
    /// Post: refused, or written into the table.
    PostCommit,
    /// Post: enqueued in its queue.
    PostEnqueue,
    /// Decision: waiting for the scheduler's answer; the transfer table is read at the
    /// answer's channel.
    Decide,
    /// Decision: the QP context and the QP's hold are read; the block's room is computed
    /// from the table entry (unless paced).
    CutEntry,
    /// Decision: waiting for the QP context.
    CutWait,
    /// Decision: the checks that cut nothing (stale, failed QP, held), then the block's length
    /// once the room and its comparison are computed.
    CutCheck,
    /// Decision: bits 15:0 of the next addresses, remaining bytes and immediate.
    CutAdd0,
    /// Decision: bits 31:16.
    CutAdd1,
    /// Decision: bits 47:32 of the next addresses.
    CutAdd2,
    /// Decision: bits 63:48 of the next addresses.
    CutAdd3,
    /// Decision: the block goes to the packetizer, the transfer back into the table.
    CutIssue,
    /// Decision: the transfer goes back to its queue's tail.
    Requeue,
    /// Decision: the transfer cut whole (or flushed) leaves its QP's line; the one behind it goes
    /// to its queue's tail.
    Release,
    /// Decision: the transfer's QP is failed; it completes with the QP's status, unsent.
    Flush,
}

/// Bits of a QP's epoch (`epoch`): a transfer survives a reset of its QP unflushed only if
/// exactly a multiple of 2^16 commits came between its post and its decision.
const EPOCH_BITS: usize = 16;

/// Indices into `post_at`: the `POST` fields used, in schema order.
const POST_FIELDS: [&str; 10] = [
    "channel",
    "queue",
    "op",
    "solicited",
    "imm_every_block",
    "qp",
    "local_addr",
    "remote_addr",
    "length",
    "immediate",
];

/// Indices into `context_at`: the `QP_CONTEXT` fields read.
const CONTEXT_FIELDS: [&str; 9] = [
    "state",
    "transport",
    "pmtu",
    "ack_every",
    "sq_psn",
    "rkey",
    "timeout",
    "retry_count",
    "rnr_retry",
];

/// The segmenter of `2^CB` channels (scheduler elements) and `2^QB` QP contexts; `QL`: cycles
/// from `qp_read_valid` to `qp_read_entry`.
#[derive(LogicBlock)]
pub struct TxSegmenter<const CB: usize, const QB: usize, const QL: usize> {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous, active high.
    pub reset: Signal<In, Bit>,
    /// The busy, hold and fresh RAMs are cleared (2^max(CB, QB) cycles after reset).
    pub init_done: Signal<Out, Bit>,
    /// log2 of the block size, 12..=20.
    pub cfg_block_log2: Signal<In, Bits<5>>,
    /// The scheduler queue of READ responses (a data queue, 1 or more).
    pub cfg_read_queue: Signal<In, Bits<5>>,
    /// Bit q: queue q is paced (its pacer's cost is not 0): a decision of it cuts one PMTU at
    /// most, the group charged on `charge_*`.
    pub paced_queues: Signal<In, Bits<32>>,
    /// A paced queue's group goes to the packetizer: charge its pacer (registered, one cycle).
    pub charge_valid: Signal<Out, Bit>,
    /// The group's queue.
    pub charge_queue: Signal<Out, Bits<5>>,
    /// The group's bytes (at most a PMTU).
    pub charge_bytes: Signal<Out, Bits<13>>,
    /// READ response (the responder's answer to a READ request): valid.
    pub read_valid: Signal<In, Bit>,
    /// READ response: ready (registered state: idle, the responder channel free).
    pub read_ready: Signal<Out, Bit>,
    /// READ response: the QP.
    pub read_qp: Signal<In, Bits<QB>>,
    /// READ response: its first PSN (the request's).
    pub read_psn: Signal<In, Bits<24>>,
    /// READ response: the AETH of its first, last or only packets.
    pub read_aeth: Signal<In, Bits<32>>,
    /// READ response: the address of its first byte.
    pub read_va: Signal<In, Bits<64>>,
    /// READ response: its bytes.
    pub read_length: Signal<In, Bits<32>>,
    /// Post: valid.
    pub post_valid: Signal<In, Bit>,
    /// Post: ready (registered state: idle).
    pub post_ready: Signal<Out, Bit>,
    /// Post: a packed `POST` entry.
    pub post_entry: Signal<In, Bits<POST_BITS>>,
    /// One cycle per post, in order: its result.
    pub post_result_valid: Signal<Out, Bit>,
    /// The result: 0 accepted, else the `PostError` code.
    pub post_result_code: Signal<Out, Bits<3>>,
    /// QP context read: a request this cycle.
    pub qp_read_valid: Signal<Out, Bit>,
    /// QP context read: the QP.
    pub qp_read_index: Signal<Out, Bits<QB>>,
    /// QP context read: the packed `QP_CONTEXT` entry, `QL` cycles after the request.
    pub qp_read_entry: Signal<In, Bits<QP_CONTEXT_BITS>>,
    /// The `CompletionStatus` that failed the QP of `qp_read_index` one cycle earlier (the ACK
    /// tracker's; 0: not failed): a host's post on it is refused `qp_not_ready`, a transfer of
    /// it is flushed.
    pub qp_failure: Signal<In, Bits<COMPLETION_STATUS_BITS>>,
    /// A transfer of a failed QP completes unsent: valid.
    pub flush_valid: Signal<Out, Bit>,
    /// Taken.
    pub flush_ready: Signal<In, Bit>,
    /// Its channel (idle again once taken).
    pub flush_channel: Signal<Out, Bits<16>>,
    /// The status it completes with: the QP's failure.
    pub flush_status: Signal<Out, Bits<COMPLETION_STATUS_BITS>>,
    /// The host rewrote a QP context.
    pub qp_commit_valid: Signal<In, Bit>,
    /// The QP whose context was rewritten.
    pub qp_commit_index: Signal<In, Bits<QB>>,
    /// Scheduler enqueue: valid.
    pub enq_valid: Signal<Out, Bit>,
    /// Scheduler enqueue: queue.
    pub enq_queue: Signal<Out, Bits<5>>,
    /// Scheduler enqueue: element (channel).
    pub enq_elem: Signal<Out, Bits<CB>>,
    /// Scheduler enqueue: ready.
    pub enq_ready: Signal<In, Bit>,
    /// Scheduler: make a decision.
    pub deq_req: Signal<Out, Bit>,
    /// Scheduler: the decision (the cycle after `deq_req`).
    pub deq_valid: Signal<In, Bit>,
    /// Scheduler: a queue was served.
    pub deq_ok: Signal<In, Bit>,
    /// Scheduler: the served queue.
    pub deq_queue: Signal<In, Bits<5>>,
    /// Scheduler: the served element (channel).
    pub deq_elem: Signal<In, Bits<CB>>,
    /// A transfer's last packet has left: its channel is idle again.
    pub done_valid: Signal<In, Bit>,
    /// The channel of `done_valid`.
    pub done_channel: Signal<In, Bits<16>>,
    /// Packet descriptors: valid.
    pub m_desc_valid: Signal<Out, Bit>,
    /// Packet descriptors: ready.
    pub m_desc_ready: Signal<In, Bit>,
    /// Packet descriptors: a packed `PACKET` entry.
    pub m_desc: Signal<Out, Bits<DESCRIPTOR_BITS>>,
    /// Memory read commands (one per descriptor with payload, in order): valid.
    pub m_read_valid: Signal<Out, Bit>,
    /// Memory read commands: ready.
    pub m_read_ready: Signal<In, Bit>,
    /// Memory read commands: local address.
    pub m_read_addr: Signal<Out, Bits<64>>,
    /// Memory read commands: bytes.
    pub m_read_len: Signal<Out, Bits<13>>,
    /// Posts refused: channel busy.
    pub cnt_channel_busy: Signal<Out, Bits<32>>,
    /// Posts refused: channel beyond the table.
    pub cnt_bad_channel: Signal<Out, Bits<32>>,
    /// Posts refused: queue beyond the scheduler's.
    pub cnt_bad_queue: Signal<Out, Bits<32>>,
    /// Posts refused: QP beyond the context table.
    pub cnt_bad_qp: Signal<Out, Bits<32>>,
    /// Posts refused: QP not ready to send.
    pub cnt_qp_not_ready: Signal<Out, Bits<32>>,
    /// Posts refused: operation unknown or not on the QP's transport.
    pub cnt_bad_operation: Signal<Out, Bits<32>>,
    /// Posts refused: SEND longer than the largest message.
    pub cnt_too_long: Signal<Out, Bits<32>>,
    /// Whose send history fullness to read (the decision's QP).
    pub history_full_qp: Signal<Out, Bits<QB>>,
    /// `history_full_qp`'s send history has at most one free slot (one cycle later).
    pub history_full: Signal<In, Bit>,
    /// The packetizer's `replaying`.
    pub replaying: Signal<In, Bit>,
    /// The packetizer's `replay_valid`.
    pub replay_valid: Signal<In, Bit>,
    /// The packetizer's `replay_ready`.
    pub replay_ready: Signal<Out, Bit>,
    /// The packetizer's `replay_qp`.
    pub replay_qp: Signal<In, Bits<QB>>,
    /// The packetizer's `replay_block`.
    pub replay_block: Signal<In, Bits<SENT_BLOCK_BITS>>,
    /// The packetizer's `replay_first_psn`.
    pub replay_first_psn: Signal<In, Bits<24>>,
    /// The packetizer's `replay_skip`.
    pub replay_skip: Signal<In, Bits<24>>,
    /// The packetizer's `record_valid`.
    pub record_valid: Signal<Out, Bit>,
    /// The packetizer's `record_ready`.
    pub record_ready: Signal<In, Bit>,
    /// The packetizer's `record_qp`.
    pub record_qp: Signal<Out, Bits<QB>>,
    /// The packetizer's `record_block`.
    pub record_block: Signal<Out, Bits<SENT_BLOCK_BITS>>,
    /// The packetizer's `record_first_psn`.
    pub record_first_psn: Signal<Out, Bits<24>>,
    /// The packetizer's `record_last_psn`.
    pub record_last_psn: Signal<Out, Bits<24>>,
    /// The packetizer's `record_timeout`.
    pub record_timeout: Signal<Out, Bits<5>>,
    /// The packetizer's `record_retry`.
    pub record_retry: Signal<Out, Bits<3>>,
    /// The packetizer's `record_rnr_retry`.
    pub record_rnr_retry: Signal<Out, Bits<3>>,
    /// The READ tracker: a QP's READ is over (its last response came), or all of them (the
    /// QP was reset): valid.
    pub read_done_valid: Signal<In, Bit>,
    /// Taken (every other cycle after `Init`, whatever the state machine does, so the receive
    /// side never waits for a decision to end).
    pub read_done_ready: Signal<Out, Bit>,
    /// Its QP.
    pub read_done_qp: Signal<In, Bits<QB>>,
    /// All the QP's READs are over (it was reset).
    pub read_done_cleared: Signal<In, Bit>,
    /// The packetizer's `read_sent_valid`.
    pub read_sent_valid: Signal<Out, Bit>,
    /// The packetizer's `read_sent_ready`.
    pub read_sent_ready: Signal<In, Bit>,
    /// The packetizer's `read_sent_qp`.
    pub read_sent_qp: Signal<Out, Bits<QB>>,
    /// The packetizer's `read_sent_first_psn`.
    pub read_sent_first_psn: Signal<Out, Bits<24>>,
    /// The packetizer's `read_sent_last_psn`.
    pub read_sent_last_psn: Signal<Out, Bits<24>>,
    /// The packetizer's `read_sent_local_address`.
    pub read_sent_local_address: Signal<Out, Bits<64>>,
    /// The packetizer's `read_sent_length`.
    pub read_sent_length: Signal<Out, Bits<32>>,
    /// The packetizer's `read_sent_pmtu`.
    pub read_sent_pmtu: Signal<Out, Bits<3>>,
    /// The packetizer's `read_sent_again`.
    pub read_sent_again: Signal<Out, Bit>,
    /// The packetizer's `read_sent_generation`.
    pub read_sent_generation: Signal<Out, Bits<2>>,

    state: DFF<SegmenterState>,
    init_channel: DFF<Bits<CB>>,
    init_qp: DFF<Bits<QB>>,
    init_channels_done: DFF<Bit>,
    init_qps_done: DFF<Bit>,
    enqueued_last_cycle: DFF<Bit>,
    /// The next decision may be asked while this one's last block is cut (it enqueues
    /// nothing): set as the context comes, `deq_req` in `CutCheck` unless the block is held,
    /// stale or its QP failed.
    ask_early: DFF<Bit>,
    /// A decision was asked and its answer has not come.
    decision_asked: DFF<Bit>,
    /// An answer that came before `Decide` (the block of the decision before still waiting
    /// for the packetizer), kept until `Decide` takes it.
    answer_held: DFF<Bit>,
    held_ok: DFF<Bit>,
    held_queue: DFF<Bits<5>>,
    held_elem: DFF<Bits<CB>>,
    /// The QP context is read this cycle (the state is `PostRead` or `CutEntry`), from a
    /// register: the TX path gates the generator's read with it.
    reading_context: DFF<Bit>,
    context_wait: DFF<Bits<4>>,
    block_size: DFF<Bits<BLOCK_LEN_BITS>>,
    block_mask: DFF<Bits<20>>,
    /// The decision's queue is paced: its block is one PMTU (aligned to the remote address
    /// for a WRITE's blocks).
    paced_cut: DFF<Bit>,
    /// The block size of this decision: `block_size`, or the PMTU when paced.
    cut_block_size: DFF<Bits<BLOCK_LEN_BITS>>,
    /// Cycles since `cut_block_size` and `offset` were set, up to 3: the room, its
    /// comparison with the remaining bytes (`upper_zero` … `low_fits`) are then computed.
    /// `CutEntry` computes the room's low half from the table entry itself and starts it at 1.
    room_age: DFF<Bits<2>>,
    /// `charge_*`.
    charge_valid_reg: DFF<Bit>,
    charge_queue_reg: DFF<Bits<5>>,
    charge_bytes_reg: DFF<Bits<13>>,
    /// The context's PMTU less one, by its code.
    pmtu_mask: Signal<Local, Bits<20>>,
    // transfer table, per channel
    table_local: RAM<Bits<64>, CB>,
    table_remote: RAM<Bits<64>, CB>,
    table_remaining: RAM<Bits<32>, CB>,
    table_immediate: RAM<Bits<32>, CB>,
    table_qp: RAM<Bits<QB>, CB>,
    /// `{WRITE as one message (7), READ request (6), READ response (5), started (4),
    /// imm_every_block (3), solicited (2), op (1:0)}`; a READ's op bits are a WRITE's (it is
    /// cut as one), a WRITE as one message's a SEND's (it is cut as one).
    table_flags: RAM<Bits<8>, CB>,
    /// Per channel: its QP's `epoch` when the transfer was posted.
    table_epoch: RAM<Bits<EPOCH_BITS>, CB>,
    /// Per QP: the count of commits (`qp_commit_*`, the host rewrote a context) when its own was
    /// last rewritten; read at the post's QP, and at the decision's in `CutEntry`. A decision
    /// that finds its QP's epoch moved since the post (the QP was reset since) flushes the
    /// transfer, as a verbs reset flushes the work requests posted before it.
    epoch: RAM<Bits<EPOCH_BITS>, QB>,
    /// Commits counted since reset (modulo 2^`EPOCH_BITS`; a QP's first commit stamps 1).
    commits: DFF<Bits<EPOCH_BITS>>,
    /// The decision's transfer was posted before its QP's last commit (taken in the first cycle
    /// of `CutWait`; never a READ response).
    stale: DFF<Bit>,
    /// A commit of the decision's QP came after its epoch was read: its block is not issued
    /// and the transfer goes back to its queue (its next decision flushes it).
    context_stale: DFF<Bit>,
    /// Per QP: READ requests cut (modulo 8), read at the decision's QP and, as a copy, at a
    /// `done`'s.
    reads_cut: RAM<Bits<3>, QB>,
    reads_cut_at_done: RAM<Bits<3>, QB>,
    /// Per QP: `{generation (4:3), READs over modulo 8 (2:0)}`, read at a `done`'s QP and, as a
    /// copy, at the decision's. A QP has `READS_PER_QP` outstanding when the counts differ by
    /// that much; the generation counts the QP's resets (modulo 4) and rides with each READ.
    reads_done: RAM<Bits<5>, QB>,
    reads_done_at_cut: RAM<Bits<5>, QB>,
    /// A reset QP's `done` was offered last cycle (it is taken only then), and the cycle
    /// before: no READ block is taken while it is counted (so each READ is either counted over
    /// by the reset and of the old generation, or outstanding and of the new).
    clear_seen: DFF<Bit>,
    clear_seen_before: DFF<Bit>,
    /// A `done` was taken last cycle: its count is written now (no `done` is taken).
    done_taken: DFF<Bit>,
    done_qp_taken: DFF<Bits<QB>>,
    done_cleared_taken: DFF<Bit>,
    /// The post is a READ response (no refusal, no result).
    internal: DFF<Bit>,
    /// A READ response is in the table, on the responder channel (until its last group is cut).
    responder_busy: DFF<Bit>,
    /// log2 of the decision's PMTU (a READ response's table `remote` is its PSN × PMTU).
    pmtu_shift: DFF<Bits<6>>,
    busy: RAM<Bit, CB>,
    /// The busy RAM's write, a cycle late: its address does not wait for the state's decode.
    busy_write_enable: DFF<Bit>,
    busy_write_address: DFF<Bits<CB>>,
    busy_write_data: DFF<Bit>,
    /// Per QP: `{SEND in progress (16), its channel (15:0)}`.
    hold: RAM<Bits<17>, QB>,
    /// Per QP: `{its line is not empty (16), the channel of the line's last (15:0)}`.
    line: RAM<Bits<17>, QB>,
    /// Per channel: `{a transfer waits behind its own (16), that one's channel (15:0)}`.
    follower: RAM<Bits<17>, CB>,
    /// Per channel: its transfer's scheduler queue (a message waiting in a line is enqueued there).
    table_queue: RAM<Bits<5>, CB>,
    /// The line's and the follower's write ports, a cycle late (from registers: at 16 QPs and
    /// 64 channels they are LUT RAM, whose read port shares the write address).
    line_write_enable: DFF<Bit>,
    line_write_address: DFF<Bits<QB>>,
    line_write_data: DFF<Bits<17>>,
    follower_write_enable: DFF<Bit>,
    follower_write_address: DFF<Bits<CB>>,
    follower_write_data: DFF<Bits<17>>,
    /// `Release`: the transfer it enqueues, and its queue.
    release_channel: DFF<Bits<CB>>,
    release_queue: DFF<Bits<5>>,
    /// Per channel: its transfer is in its QP's line.
    table_in_line: RAM<Bit, CB>,
    /// The post joins its QP's line: a message, a control-queue transfer, or any post (not a
    /// READ response) while the line is not empty.
    post_in_line: Signal<Local, Bit>,
    /// The decision's transfer is a message (SEND, WRITE as one message; not a READ response).
    one_message: Signal<Local, Bit>,
    /// The decision's transfer is the first of its QP's line.
    in_line: Signal<Local, Bit>,
    // the post
    post_channel: DFF<Bits<16>>,
    post_queue: DFF<Bits<5>>,
    post_op: DFF<Bits<3>>,
    post_solicited: DFF<Bit>,
    post_every_block: DFF<Bit>,
    post_qp: DFF<Bits<24>>,
    post_local: DFF<Bits<64>>,
    post_remote: DFF<Bits<64>>,
    post_length: DFF<Bits<32>>,
    post_immediate: DFF<Bits<32>>,
    bad_channel: DFF<Bit>,
    bad_queue: DFF<Bit>,
    bad_qp: DFF<Bit>,
    too_long: DFF<Bit>,
    not_ready: DFF<Bit>,
    /// The post's QP is in error (`qp_failure`, taken in the first cycle of `PostWait`).
    qp_in_error: DFF<Bit>,
    /// The decision's QP failed with this status (`qp_failure`, taken in the first cycle of
    /// `CutWait`; 0: not failed, or the transfer is a READ response).
    failure: DFF<Bits<COMPLETION_STATUS_BITS>>,
    /// A flush waits to be taken (`Flush`; a register, so the TX path's completion port's
    /// `valid`, and what its taker decides from it, do not wait for the state's decode).
    flush_pending: DFF<Bit>,
    bad_operation: DFF<Bit>,
    channel_busy: DFF<Bit>,
    done_seen: DFF<Bit>,
    code: DFF<Bits<3>>,
    // the decision
    cut_channel: DFF<Bits<CB>>,
    cut_queue: DFF<Bits<5>>,
    transport: DFF<Bits<3>>,
    pmtu: DFF<Bits<13>>,
    rkey: DFF<Bits<32>>,
    timeout: DFF<Bits<5>>,
    retry: DFF<Bits<3>>,
    rnr_retry: DFF<Bits<3>>,
    ack_every: DFF<Bits<8>>,
    sq_psn: DFF<Bits<24>>,
    held: DFF<Bit>,
    offset: DFF<Bits<20>>,
    /// `cut_block_size − offset`, bits 11:0, and the carry (no borrow) in bit 12.
    room_low: DFF<Bits<13>>,
    room: DFF<Bits<BLOCK_LEN_BITS>>,
    /// The remaining bytes' bits 31:21 are 0.
    upper_zero: DFF<Bit>,
    /// Remaining bits 20:16 below the room's.
    high_below: DFF<Bit>,
    /// Remaining bits 20:16 equal to the room's.
    high_equal: DFF<Bit>,
    /// Remaining bits 15:0 at most the room's.
    low_fits: DFF<Bit>,
    length: DFF<Bits<BLOCK_LEN_BITS>>,
    last: DFF<Bit>,
    /// 1 when the immediate counts blocks.
    immediate_step: DFF<Bits<17>>,
    /// The next local address, 16 bits a stage, carry in bit 16.
    local_sum: [DFF<Bits<17>>; 4],
    /// The next remote address, 16 bits a stage.
    remote_sum: [DFF<Bits<17>>; 4],
    /// The remaining bytes after the block, 16 bits a stage (bit 16: no borrow).
    remaining_sum: [DFF<Bits<17>>; 2],
    /// The next block's immediate, 16 bits a stage.
    immediate_sum: [DFF<Bits<17>>; 2],
    /// In Locals: Verilog would widen an inverted part-select to the sum's width.
    offset_inverted: Signal<Local, Bits<20>>,
    /// The state is `CutEntry` (from a register): `room_low` from the table entry.
    cut_entering: DFF<Bit>,
    /// `offset`, inverted, or in `CutEntry` the table entry's (0 unless a WRITE or READ).
    room_offset_inverted: Signal<Local, Bits<12>>,
    length_inverted: Signal<Local, Bits<BLOCK_LEN_BITS>>,
    /// The room's bits 20:12.
    room_high: Signal<Local, Bits<9>>,
    /// The transfer table's read address: the scheduler's answer while deciding, then the
    /// decision's channel.
    table_read_channel: Signal<Local, Bits<CB>>,
    /// The scheduler's answer, as it comes or as held: valid, served, queue, channel.
    answer_valid: Signal<Local, Bit>,
    answer_ok: Signal<Local, Bit>,
    answer_queue: Signal<Local, Bits<5>>,
    answer_elem: Signal<Local, Bits<CB>>,
    /// The transfer's remaining bytes fit in the room (`room` computed): its last block.
    fits_now: Signal<Local, Bit>,
    /// A decision was asked early: `Idle` goes to `Decide` first.
    asked: Signal<Local, Bit>,
    /// The decision's transfer is cut into blocks by the remote address (WRITE, READ).
    write: Signal<Local, Bit>,
    /// The decision's transfer is a WRITE as one message (cut into groups like a SEND).
    message_write: Signal<Local, Bit>,
    immediate_op: Signal<Local, Bit>,
    has_immediate: Signal<Local, Bit>,
    refusing: Signal<Local, Bit>,
    /// The decision's transfer is a READ response.
    read_response: Signal<Local, Bit>,
    /// The decision's transfer is an RDMA READ.
    read_request: Signal<Local, Bit>,
    /// A READ response is taken this cycle.
    taking_read: Signal<Local, Bit>,
    /// The READ tracker's `done` may be taken this cycle: any state after `Init` but a
    /// `CutIssue` whose block is taken (that one may set the QP's bit).
    read_done_open: Signal<Local, Bit>,
    /// The decision's QP's READs outstanding; it has `READS_PER_QP` (bit 2).
    reads_outstanding: Signal<Local, Bits<3>>,
    /// A reset QP's `done` is being counted: no READ block is taken.
    clear_window: Signal<Local, Bit>,
    /// What a `done` writes: the count of READs over and the generation.
    reads_done_count: Signal<Local, Bits<3>>,
    reads_done_generation: Signal<Local, Bits<2>>,
    reads_full: Signal<Local, Bit>,
    // constants
    post_at: [Constant<Bits<8>>; 10],
    context_at: [Constant<Bits<10>>; 9],
    channels: Constant<Bits<17>>,
    queues: Constant<Bits<6>>,
    qps: Constant<Bits<25>>,
    channel_last: Constant<Bits<CB>>,
    /// The responder channel: the last one (`channels − 1`).
    responder_channel: Constant<Bits<16>>,
    /// log2 of the PMTU of code 0.
    pmtu_shift_base: Constant<Bits<6>>,
    qp_last: Constant<Bits<QB>>,
    latency: Constant<Bits<4>>,
    one: Constant<Bits<BLOCK_LEN_BITS>>,
    pmtu_unit: Constant<Bits<13>>,
    /// Per PMTU: its code and its bytes less one.
    pmtu_codes: [Constant<Bits<3>>; 5],
    pmtu_masks: [Constant<Bits<20>>; 5],
    pmtu_min: Constant<Bits<3>>,
    pmtu_max: Constant<Bits<3>>,
    rts: Constant<Bits<3>>,
    rc: Constant<Bits<3>>,
    uc: Constant<Bits<3>>,
    send_max: Constant<Bits<32>>,
    /// Refusal codes, `PostError::ALL` order (`refused[k]` counts `refusal_code[k]`).
    refusal_code: [Constant<Bits<3>>; 7],
    code_busy: Constant<Bits<3>>,
    code_bad_channel: Constant<Bits<3>>,
    code_bad_queue: Constant<Bits<3>>,
    code_bad_qp: Constant<Bits<3>>,
    code_not_ready: Constant<Bits<3>>,
    code_bad_operation: Constant<Bits<3>>,
    code_too_long: Constant<Bits<3>>,
    /// `CompletionStatus::Flushed`.
    code_flushed: Constant<Bits<COMPLETION_STATUS_BITS>>,
    refused: [EventCounter; 7],
    packetizer: TxPacketizer<QB>,
}

impl<const CB: usize, const QB: usize, const QL: usize> TxSegmenter<CB, QB, QL> {
    /// A segmenter that serves `channels` (≤ 2^CB) channels, `queues` (≤ 32) scheduler queues
    /// and `qps` (≤ 2^QB) QP contexts.
    pub fn new(channels: u32, queues: usize, qps: u32) -> Self {
        assert!(CB <= 16 && QB <= 24, "a post has 16 channel bits and 24 QP bits");
        assert!((1..=1u64 << CB).contains(&u64::from(channels)), "channels");
        assert!((1..=32).contains(&queues), "queues");
        assert!((1..=1u64 << QB).contains(&u64::from(qps)), "qps");
        assert_eq!(READS_PER_QP, 4, "the READ counts are written for 4 READs per QP");
        assert!((1..=15).contains(&QL), "QP read latency");
        let code = |e: PostError| c::<3>(u64::from(e.code()));
        Self {
            clock: Default::default(),
            reset: Default::default(),
            init_done: Default::default(),
            cfg_block_log2: Default::default(),
            cfg_read_queue: Default::default(),
            paced_queues: Default::default(),
            charge_valid: Default::default(),
            charge_queue: Default::default(),
            charge_bytes: Default::default(),
            read_valid: Default::default(),
            read_ready: Default::default(),
            read_qp: Default::default(),
            read_psn: Default::default(),
            read_aeth: Default::default(),
            read_va: Default::default(),
            read_length: Default::default(),
            post_valid: Default::default(),
            post_ready: Default::default(),
            post_entry: Default::default(),
            post_result_valid: Default::default(),
            post_result_code: Default::default(),
            qp_read_valid: Default::default(),
            qp_read_index: Default::default(),
            qp_read_entry: Default::default(),
            qp_failure: Default::default(),
            flush_valid: Default::default(),
            flush_ready: Default::default(),
            flush_channel: Default::default(),
            flush_status: Default::default(),
            qp_commit_valid: Default::default(),
            qp_commit_index: Default::default(),
            enq_valid: Default::default(),
            enq_queue: Default::default(),
            enq_elem: Default::default(),
            enq_ready: Default::default(),
            deq_req: Default::default(),
            deq_valid: Default::default(),
            deq_ok: Default::default(),
            deq_queue: Default::default(),
            deq_elem: Default::default(),
            done_valid: Default::default(),
            done_channel: Default::default(),
            m_desc_valid: Default::default(),
            m_desc_ready: Default::default(),
            m_desc: Default::default(),
            m_read_valid: Default::default(),
            m_read_ready: Default::default(),
            m_read_addr: Default::default(),
            m_read_len: Default::default(),
            cnt_channel_busy: Default::default(),
            cnt_bad_channel: Default::default(),
            cnt_bad_queue: Default::default(),
            cnt_bad_qp: Default::default(),
            cnt_qp_not_ready: Default::default(),
            cnt_bad_operation: Default::default(),
            cnt_too_long: Default::default(),
            history_full_qp: Default::default(),
            history_full: Default::default(),
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
            read_done_valid: Default::default(),
            read_done_ready: Default::default(),
            read_done_qp: Default::default(),
            read_done_cleared: Default::default(),
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
            state: Default::default(),
            init_channel: Default::default(),
            init_qp: Default::default(),
            init_channels_done: Default::default(),
            init_qps_done: Default::default(),
            enqueued_last_cycle: Default::default(),
            ask_early: Default::default(),
            decision_asked: Default::default(),
            answer_held: Default::default(),
            held_ok: Default::default(),
            held_queue: Default::default(),
            held_elem: Default::default(),
            reading_context: Default::default(),
            context_wait: Default::default(),
            block_size: Default::default(),
            block_mask: Default::default(),
            paced_cut: Default::default(),
            cut_block_size: Default::default(),
            room_age: Default::default(),
            charge_valid_reg: Default::default(),
            charge_queue_reg: Default::default(),
            charge_bytes_reg: Default::default(),
            pmtu_mask: Default::default(),
            table_local: Default::default(),
            table_remote: Default::default(),
            table_remaining: Default::default(),
            table_immediate: Default::default(),
            table_qp: Default::default(),
            table_flags: Default::default(),
            table_epoch: Default::default(),
            epoch: Default::default(),
            commits: Default::default(),
            stale: Default::default(),
            context_stale: Default::default(),
            reads_cut: Default::default(),
            reads_cut_at_done: Default::default(),
            reads_done: Default::default(),
            reads_done_at_cut: Default::default(),
            clear_seen: Default::default(),
            clear_seen_before: Default::default(),
            done_taken: Default::default(),
            done_qp_taken: Default::default(),
            done_cleared_taken: Default::default(),
            busy: Default::default(),
            busy_write_enable: Default::default(),
            busy_write_address: Default::default(),
            busy_write_data: Default::default(),
            hold: Default::default(),
            line: Default::default(),
            follower: Default::default(),
            table_queue: Default::default(),
            line_write_enable: Default::default(),
            line_write_address: Default::default(),
            line_write_data: Default::default(),
            follower_write_enable: Default::default(),
            follower_write_address: Default::default(),
            follower_write_data: Default::default(),
            release_channel: Default::default(),
            release_queue: Default::default(),
            table_in_line: Default::default(),
            post_in_line: Default::default(),
            one_message: Default::default(),
            in_line: Default::default(),
            post_channel: Default::default(),
            post_queue: Default::default(),
            post_op: Default::default(),
            post_solicited: Default::default(),
            post_every_block: Default::default(),
            post_qp: Default::default(),
            post_local: Default::default(),
            post_remote: Default::default(),
            post_length: Default::default(),
            post_immediate: Default::default(),
            bad_channel: Default::default(),
            bad_queue: Default::default(),
            bad_qp: Default::default(),
            too_long: Default::default(),
            not_ready: Default::default(),
            qp_in_error: Default::default(),
            failure: Default::default(),
            flush_pending: Default::default(),
            bad_operation: Default::default(),
            channel_busy: Default::default(),
            done_seen: Default::default(),
            code: Default::default(),
            cut_channel: Default::default(),
            cut_queue: Default::default(),
            transport: Default::default(),
            pmtu: Default::default(),
            rkey: Default::default(),
            timeout: Default::default(),
            retry: Default::default(),
            rnr_retry: Default::default(),
            ack_every: Default::default(),
            sq_psn: Default::default(),
            held: Default::default(),
            offset: Default::default(),
            room_low: Default::default(),
            room: Default::default(),
            upper_zero: Default::default(),
            high_below: Default::default(),
            high_equal: Default::default(),
            low_fits: Default::default(),
            length: Default::default(),
            last: Default::default(),
            immediate_step: Default::default(),
            local_sum: Default::default(),
            remote_sum: Default::default(),
            remaining_sum: Default::default(),
            immediate_sum: Default::default(),
            offset_inverted: Default::default(),
            cut_entering: Default::default(),
            room_offset_inverted: Default::default(),
            length_inverted: Default::default(),
            room_high: Default::default(),
            table_read_channel: Default::default(),
            answer_valid: Default::default(),
            answer_ok: Default::default(),
            answer_queue: Default::default(),
            answer_elem: Default::default(),
            fits_now: Default::default(),
            asked: Default::default(),
            write: Default::default(),
            message_write: Default::default(),
            immediate_op: Default::default(),
            has_immediate: Default::default(),
            refusing: Default::default(),
            read_response: Default::default(),
            read_request: Default::default(),
            taking_read: Default::default(),
            read_done_open: Default::default(),
            reads_outstanding: Default::default(),
            clear_window: Default::default(),
            reads_done_count: Default::default(),
            reads_done_generation: Default::default(),
            reads_full: Default::default(),
            internal: Default::default(),
            responder_busy: Default::default(),
            pmtu_shift: Default::default(),
            post_at: std::array::from_fn(|i| c::<8>(POST.offset(POST_FIELDS[i]) as u64)),
            context_at: std::array::from_fn(|i| c::<10>(QP_CONTEXT.offset(CONTEXT_FIELDS[i]) as u64)),
            channels: c::<17>(u64::from(channels)),
            queues: c::<6>(queues as u64),
            qps: c::<25>(u64::from(qps)),
            channel_last: c::<CB>((1u64 << CB) - 1),
            responder_channel: c::<16>(u64::from(channels) - 1),
            pmtu_shift_base: c::<6>(u64::from(Pmtu::B256.log2() - u32::from(Pmtu::B256.code()))),
            qp_last: c::<QB>((1u64 << QB) - 1),
            latency: c::<4>(QL as u64),
            one: c::<BLOCK_LEN_BITS>(1),
            pmtu_unit: c::<13>(u64::from(Pmtu::B256.bytes() >> Pmtu::B256.code())),
            pmtu_codes: Pmtu::ALL.map(|p| c::<3>(u64::from(p.code()))),
            pmtu_masks: Pmtu::ALL.map(|p| c::<20>(u64::from(p.bytes()) - 1)),
            pmtu_min: c::<3>(u64::from(Pmtu::ALL[0].code())),
            pmtu_max: c::<3>(u64::from(Pmtu::ALL[Pmtu::ALL.len() - 1].code())),
            rts: c::<3>(u64::from(QpState::Rts.code())),
            rc: c::<3>(u64::from(Transport::Rc.bits())),
            uc: c::<3>(u64::from(Transport::Uc.bits())),
            send_max: c::<32>(MAX_MESSAGE_BYTES),
            refusal_code: std::array::from_fn(|k| code(PostError::ALL[k])),
            code_busy: code(PostError::ChannelBusy),
            code_bad_channel: code(PostError::BadChannel),
            code_bad_queue: code(PostError::BadQueue),
            code_bad_qp: code(PostError::BadQp),
            code_not_ready: code(PostError::QpNotReady),
            code_bad_operation: code(PostError::BadOperation),
            code_too_long: code(PostError::TooLong),
            code_flushed: c::<COMPLETION_STATUS_BITS>(u64::from(CompletionStatus::Flushed.code())),
            refused: Default::default(),
            packetizer: Default::default(),
        }
    }
}

impl<const CB: usize, const QB: usize, const QL: usize> Default for TxSegmenter<CB, QB, QL> {
    /// Every channel and QP of the address widths, 32 queues.
    fn default() -> Self {
        Self::new(1 << CB, 32, 1 << QB)
    }
}

impl<const CB: usize, const QB: usize, const QL: usize> Logic for TxSegmenter<CB, QB, QL> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            state,
            commits,
            stale,
            context_stale,
            line_write_enable,
            line_write_address,
            line_write_data,
            follower_write_enable,
            follower_write_address,
            follower_write_data,
            release_channel,
            release_queue,
            done_taken,
            done_qp_taken,
            done_cleared_taken,
            clear_seen,
            clear_seen_before,
            init_channel,
            init_qp,
            init_channels_done,
            init_qps_done,
            enqueued_last_cycle,
            ask_early,
            decision_asked,
            answer_held,
            held_ok,
            held_queue,
            held_elem,
            reading_context,
            context_wait,
            block_size,
            block_mask,
            paced_cut,
            cut_block_size,
            room_age,
            charge_valid_reg,
            charge_queue_reg,
            charge_bytes_reg,
            post_channel,
            post_queue,
            post_op,
            post_solicited,
            post_every_block,
            post_qp,
            post_local,
            post_remote,
            post_length,
            post_immediate,
            bad_channel,
            bad_queue,
            bad_qp,
            too_long,
            not_ready,
            qp_in_error,
            failure,
            flush_pending,
            bad_operation,
            channel_busy,
            busy_write_enable,
            busy_write_address,
            busy_write_data,
            done_seen,
            code,
            cut_channel,
            cut_queue,
            transport,
            pmtu,
            rkey,
            ack_every,
            sq_psn,
            held,
            internal,
            responder_busy,
            pmtu_shift,
            timeout,
            retry,
            rnr_retry,
            offset,
            room_low,
            cut_entering,
            room,
            upper_zero,
            high_below,
            high_equal,
            low_fits,
            length,
            last,
            immediate_step
        );
        for k in 0..4 {
            self.local_sum[k].clock.next = self.clock.val();
            self.local_sum[k].d.next = self.local_sum[k].q.val();
            self.remote_sum[k].clock.next = self.clock.val();
            self.remote_sum[k].d.next = self.remote_sum[k].q.val();
        }
        for k in 0..2 {
            self.remaining_sum[k].clock.next = self.clock.val();
            self.remaining_sum[k].d.next = self.remaining_sum[k].q.val();
            self.immediate_sum[k].clock.next = self.clock.val();
            self.immediate_sum[k].d.next = self.immediate_sum[k].q.val();
        }
        self.offset_inverted.next = !self.offset.q.val();
        self.length_inverted.next = !self.length.q.val();
        // the block's room, `cut_block_size − offset` (bits 11:0, then 20:12), and the remaining
        // bytes against it by halves: computed every cycle, read once `room_age` is 3. In
        // `CutEntry`, which sets `offset` (`Decide` set `cut_block_size`), bits 11:0 from the
        // table entry (`write`, flag bit 1, is not set yet in this order)
        self.room_offset_inverted.next = self.offset_inverted.val().get_bits::<12>(0);
        if self.cut_entering.q.val() {
            self.room_offset_inverted.next = 0xFFF.into();
            if self.table_flags.read_data.val().get_bit(1) {
                self.room_offset_inverted.next =
                    !(self.table_remote.read_data.val().get_bits::<12>(0) & self.block_mask.q.val().get_bits::<12>(0));
            }
        }
        self.room_low.d.next =
            bit_cast::<13, 12>(self.cut_block_size.q.val().get_bits::<12>(0)) + bit_cast::<13, 12>(self.room_offset_inverted.val()) + 1;
        self.room_high.next = self.cut_block_size.q.val().get_bits::<9>(12)
            + (bit_cast::<9, 8>(self.offset_inverted.val().get_bits::<8>(12)) | 0x100)
            + bit_cast::<9, 1>(self.room_low.q.val().get_bits::<1>(12));
        self.room.d.next = (bit_cast::<BLOCK_LEN_BITS, 9>(self.room_high.val()) << 12)
            | bit_cast::<BLOCK_LEN_BITS, 12>(self.room_low.q.val().get_bits::<12>(0));
        self.fits_now.next = !self.table_remaining.read_data.val().get_bits::<11>(21).any()
            && ((self.table_remaining.read_data.val().get_bits::<5>(16) < self.room.q.val().get_bits::<5>(16))
                || ((self.table_remaining.read_data.val().get_bits::<5>(16) == self.room.q.val().get_bits::<5>(16))
                    && (self.table_remaining.read_data.val().get_bits::<16>(0) <= self.room.q.val().get_bits::<16>(0))));
        self.upper_zero.d.next = !self.table_remaining.read_data.val().get_bits::<11>(21).any();
        self.high_below.d.next = self.table_remaining.read_data.val().get_bits::<5>(16) < self.room.q.val().get_bits::<5>(16);
        self.high_equal.d.next = self.table_remaining.read_data.val().get_bits::<5>(16) == self.room.q.val().get_bits::<5>(16);
        self.low_fits.d.next = self.table_remaining.read_data.val().get_bits::<16>(0) <= self.room.q.val().get_bits::<16>(0);
        if self.room_age.q.val() != 3 {
            self.room_age.d.next = self.room_age.q.val() + 1;
        }
        clock!(self, clock, packetizer);
        for k in 0..7 {
            self.refused[k].clock.next = self.clock.val();
            self.refused[k].reset.next = self.reset.val();
        }
        self.table_local.read_clock.next = self.clock.val();
        self.table_local.write_clock.next = self.clock.val();
        self.table_remote.read_clock.next = self.clock.val();
        self.table_remote.write_clock.next = self.clock.val();
        self.table_remaining.read_clock.next = self.clock.val();
        self.table_remaining.write_clock.next = self.clock.val();
        self.table_immediate.read_clock.next = self.clock.val();
        self.table_immediate.write_clock.next = self.clock.val();
        self.table_qp.read_clock.next = self.clock.val();
        self.table_qp.write_clock.next = self.clock.val();
        self.table_flags.read_clock.next = self.clock.val();
        self.table_flags.write_clock.next = self.clock.val();
        self.table_epoch.read_clock.next = self.clock.val();
        self.table_epoch.write_clock.next = self.clock.val();
        self.epoch.read_clock.next = self.clock.val();
        self.epoch.write_clock.next = self.clock.val();
        self.busy.read_clock.next = self.clock.val();
        self.busy.write_clock.next = self.clock.val();
        self.busy.write_enable.next = self.busy_write_enable.q.val();
        self.busy.write_address.next = self.busy_write_address.q.val();
        self.busy.write_data.next = self.busy_write_data.q.val();
        self.hold.read_clock.next = self.clock.val();
        self.line.read_clock.next = self.clock.val();
        self.line.write_clock.next = self.clock.val();
        self.line.write_enable.next = self.line_write_enable.q.val();
        self.line.write_address.next = self.line_write_address.q.val();
        self.line.write_data.next = self.line_write_data.q.val();
        self.follower.read_clock.next = self.clock.val();
        self.follower.write_clock.next = self.clock.val();
        self.follower.write_enable.next = self.follower_write_enable.q.val();
        self.follower.write_address.next = self.follower_write_address.q.val();
        self.follower.write_data.next = self.follower_write_data.q.val();
        self.table_queue.read_clock.next = self.clock.val();
        self.table_queue.write_clock.next = self.clock.val();
        self.table_in_line.read_clock.next = self.clock.val();
        self.table_in_line.write_clock.next = self.clock.val();
        self.hold.write_clock.next = self.clock.val();
        self.reads_cut.read_clock.next = self.clock.val();
        self.reads_cut.write_clock.next = self.clock.val();
        self.reads_cut_at_done.read_clock.next = self.clock.val();
        self.reads_cut_at_done.write_clock.next = self.clock.val();
        self.reads_done.read_clock.next = self.clock.val();
        self.reads_done.write_clock.next = self.clock.val();
        self.reads_done_at_cut.read_clock.next = self.clock.val();
        self.reads_done_at_cut.write_clock.next = self.clock.val();
        self.packetizer.reset.next = self.reset.val();
        self.packetizer.commit_valid.next = self.qp_commit_valid.val();
        self.packetizer.commit_index.next = self.qp_commit_index.val();

        // a paced decision's block: the context's PMTU, by its code
        self.pmtu_mask.next = self.pmtu_masks[0].val();
        for k in 1..5 {
            if self.qp_read_entry.val().get_bits::<3>(self.context_at[2].val().index()) == self.pmtu_codes[k].val() {
                self.pmtu_mask.next = self.pmtu_masks[k].val();
            }
        }
        self.charge_valid_reg.d.next = false;
        self.charge_queue_reg.d.next = self.cut_queue.q.val();
        self.charge_bytes_reg.d.next = self.length.q.val().get_bits::<13>(0);
        self.charge_valid.next = self.charge_valid_reg.q.val();
        self.charge_queue.next = self.charge_queue_reg.q.val();
        self.charge_bytes.next = self.charge_bytes_reg.q.val();

        // configuration, registered twice (it changes only while idle)
        self.block_size.d.next = self.one.val() << self.cfg_block_log2.val();
        self.block_mask.d.next = bit_cast::<20, BLOCK_LEN_BITS>(self.block_size.q.val() - 1);

        // RAM read addresses: the table by the decision's channel (the scheduler's answer in
        // the cycle it comes), the hold by its QP, the busy bit by the post's channel
        self.answer_valid.next = self.deq_valid.val() || self.answer_held.q.val();
        self.answer_ok.next = self.deq_ok.val();
        self.answer_queue.next = self.deq_queue.val();
        self.answer_elem.next = self.deq_elem.val();
        if self.answer_held.q.val() {
            self.answer_ok.next = self.held_ok.q.val();
            self.answer_queue.next = self.held_queue.q.val();
            self.answer_elem.next = self.held_elem.q.val();
        }
        if self.deq_valid.val() && (self.state.q.val() != SegmenterState::Decide) {
            self.answer_held.d.next = true;
            self.held_ok.d.next = self.deq_ok.val();
            self.held_queue.d.next = self.deq_queue.val();
            self.held_elem.d.next = self.deq_elem.val();
        }
        if self.deq_valid.val() {
            self.decision_asked.d.next = false;
        }
        self.asked.next = self.decision_asked.q.val() || self.answer_held.q.val();
        self.table_read_channel.next = self.cut_channel.q.val();
        if self.state.q.val() == SegmenterState::Decide {
            self.table_read_channel.next = self.answer_elem.val();
        }
        self.table_local.read_address.next = self.table_read_channel.val();
        self.table_remote.read_address.next = self.table_read_channel.val();
        self.table_remaining.read_address.next = self.table_read_channel.val();
        self.table_immediate.read_address.next = self.table_read_channel.val();
        self.table_qp.read_address.next = self.table_read_channel.val();
        self.table_flags.read_address.next = self.table_read_channel.val();
        self.table_epoch.read_address.next = self.table_read_channel.val();
        self.hold.read_address.next = self.table_qp.read_data.val();
        self.line.read_address.next = bit_cast::<QB, 24>(self.post_qp.q.val());
        self.follower.read_address.next = self.cut_channel.q.val();
        self.table_queue.read_address.next = bit_cast::<CB, 16>(self.follower.read_data.val().get_bits::<16>(0));
        // the one behind the decision's transfer and its queue, as read before `Release` (the
        // follower is cleared as it starts, and `Release` may wait for the scheduler)
        if self.state.q.val() != SegmenterState::Release {
            self.release_channel.d.next = bit_cast::<CB, 16>(self.follower.read_data.val().get_bits::<16>(0));
            self.release_queue.d.next = self.table_queue.read_data.val();
        }
        self.table_in_line.read_address.next = self.cut_channel.q.val();
        // a QP's READs: counted when cut (`CutIssue`), and when over by the tracker's `done`,
        // taken every other cycle after `Init` (the count written the cycle after; a reset QP's
        // count of READs over becomes its count of READs cut)
        self.reads_cut.read_address.next = self.table_qp.read_data.val();
        self.reads_done_at_cut.read_address.next = self.table_qp.read_data.val();
        self.reads_cut_at_done.read_address.next = self.read_done_qp.val();
        self.reads_done.read_address.next = self.read_done_qp.val();
        self.reads_cut.write_enable.next = false;
        self.reads_cut.write_address.next = self.table_qp.read_data.val();
        self.reads_cut.write_data.next = self.reads_cut.read_data.val() + 1;
        self.reads_cut_at_done.write_enable.next = false;
        self.reads_cut_at_done.write_address.next = self.table_qp.read_data.val();
        self.reads_cut_at_done.write_data.next = self.reads_cut.read_data.val() + 1;
        self.read_done_open.next = (self.state.q.val() != SegmenterState::Init)
            && !self.done_taken.q.val()
            && (!self.read_done_cleared.val() || self.clear_seen.q.val());
        self.reads_outstanding.next = self.reads_cut.read_data.val() - self.reads_done_at_cut.read_data.val().get_bits::<3>(0);
        self.reads_full.next = self.reads_outstanding.val().get_bit(2);
        self.done_taken.d.next = self.read_done_valid.val() && self.read_done_open.val();
        self.done_qp_taken.d.next = self.read_done_qp.val();
        self.done_cleared_taken.d.next = self.read_done_cleared.val();
        self.reads_done.write_enable.next = self.done_taken.q.val();
        self.reads_done.write_address.next = self.done_qp_taken.q.val();
        self.reads_done_count.next = self.reads_done.read_data.val().get_bits::<3>(0) + 1;
        self.reads_done_generation.next = self.reads_done.read_data.val().get_bits::<2>(3);
        if self.done_cleared_taken.q.val() {
            self.reads_done_count.next = self.reads_cut_at_done.read_data.val();
            self.reads_done_generation.next = self.reads_done.read_data.val().get_bits::<2>(3) + 1;
        }
        self.reads_done.write_data.next =
            (bit_cast::<5, 2>(self.reads_done_generation.val()) << 3) | bit_cast::<5, 3>(self.reads_done_count.val());
        self.reads_done_at_cut.write_enable.next = self.done_taken.q.val();
        self.clear_seen.d.next = self.read_done_valid.val() && self.read_done_cleared.val();
        self.clear_seen_before.d.next = self.clear_seen.q.val();
        self.clear_window.next = self.clear_seen.q.val() || self.clear_seen_before.q.val();
        self.reads_done_at_cut.write_address.next = self.done_qp_taken.q.val();
        self.reads_done_at_cut.write_data.next = self.reads_done.write_data.val();
        self.busy.read_address.next = bit_cast::<CB, 16>(self.post_channel.q.val());

        // RAM writes: the table by a post or a decision (below); busy: `done` first
        self.table_local.write_enable.next = false;
        self.table_remote.write_enable.next = false;
        self.table_remaining.write_enable.next = false;
        self.table_immediate.write_enable.next = false;
        self.table_qp.write_enable.next = false;
        self.table_flags.write_enable.next = false;
        self.table_epoch.write_enable.next = false;
        self.table_local.write_address.next = bit_cast::<CB, 16>(self.post_channel.q.val());
        self.table_remote.write_address.next = bit_cast::<CB, 16>(self.post_channel.q.val());
        self.table_remaining.write_address.next = bit_cast::<CB, 16>(self.post_channel.q.val());
        self.table_immediate.write_address.next = bit_cast::<CB, 16>(self.post_channel.q.val());
        self.table_qp.write_address.next = bit_cast::<CB, 16>(self.post_channel.q.val());
        self.table_flags.write_address.next = bit_cast::<CB, 16>(self.post_channel.q.val());
        self.table_epoch.write_address.next = bit_cast::<CB, 16>(self.post_channel.q.val());
        self.table_local.write_data.next = self.post_local.q.val();
        self.table_remote.write_data.next = self.post_remote.q.val();
        self.table_remaining.write_data.next = self.post_length.q.val();
        self.table_immediate.write_data.next = self.post_immediate.q.val();
        self.table_qp.write_data.next = bit_cast::<QB, 24>(self.post_qp.q.val());
        self.table_epoch.write_data.next = self.epoch.read_data.val();
        self.table_flags.write_data.next = bit_cast::<8, 2>(self.post_op.q.val().get_bits::<2>(0));
        if self.post_op.q.val().get_bit(2) {
            // a READ: cut as a WRITE; a WRITE as one message: cut as a SEND
            self.table_flags.write_data.next = 0x42.into();
            if self.post_op.q.val().get_bit(1) {
                self.table_flags.write_data.next = 0x80 | bit_cast::<8, 1>(self.post_op.q.val().get_bits::<1>(0));
            }
        }
        if self.internal.q.val() {
            self.table_flags.write_data.next = self.table_flags.write_data.val() | 0x20;
        }
        if self.post_solicited.q.val() {
            self.table_flags.write_data.next = self.table_flags.write_data.val() | 4;
        }
        if self.post_every_block.q.val() {
            self.table_flags.write_data.next = self.table_flags.write_data.val() | 8;
        }
        self.busy_write_enable.d.next = self.done_valid.val();
        self.busy_write_address.d.next = bit_cast::<CB, 16>(self.done_channel.val());
        self.busy_write_data.d.next = false;
        self.hold.write_enable.next = false;
        // a QP's line: a message, a control-queue transfer or a post behind them joins it; the
        // first leaves it when cut whole or flushed, the one behind it (if any) then enqueued,
        // else the line emptied
        self.post_in_line.next = !self.internal.q.val()
            && ((self.post_op.q.val().get_bit(2) == self.post_op.q.val().get_bit(1))
                || !self.post_queue.q.val().any()
                || self.line.read_data.val().get_bit(16));
        self.table_queue.write_enable.next = false;
        self.table_queue.write_address.next = bit_cast::<CB, 16>(self.post_channel.q.val());
        self.table_queue.write_data.next = self.post_queue.q.val();
        self.table_in_line.write_enable.next = false;
        self.table_in_line.write_address.next = bit_cast::<CB, 16>(self.post_channel.q.val());
        self.table_in_line.write_data.next = self.post_in_line.val();
        self.line_write_enable.d.next = false;
        self.line_write_address.d.next = self.table_qp.read_data.val();
        self.line_write_data.d.next = 0.into();
        self.follower_write_enable.d.next = false;
        self.follower_write_address.d.next = self.cut_channel.q.val();
        self.follower_write_data.d.next = 0.into();
        self.hold.write_address.next = self.table_qp.read_data.val();
        self.hold.write_data.next = bit_cast::<17, CB>(self.cut_channel.q.val());
        if !self.last.q.val() {
            self.hold.write_data.next = bit_cast::<17, CB>(self.cut_channel.q.val()) | 0x10000;
        }
        // (and a write that frees it, written a cycle late, before the post's read saw it)
        if (self.done_valid.val() && self.done_channel.val() == self.post_channel.q.val())
            || (self.busy_write_enable.q.val()
                && !self.busy_write_data.q.val()
                && (self.busy_write_address.q.val() == bit_cast::<CB, 16>(self.post_channel.q.val())))
        {
            self.done_seen.d.next = true;
        }

        // the decision's transfer, as the table holds it
        self.write.next = self.table_flags.read_data.val().get_bit(1);
        self.message_write.next = self.table_flags.read_data.val().get_bit(7);
        self.immediate_op.next = self.table_flags.read_data.val().get_bit(0);
        self.read_response.next = self.table_flags.read_data.val().get_bit(5);
        self.read_request.next = self.table_flags.read_data.val().get_bit(6);
        self.one_message.next = !self.write.val() && !self.read_response.val();
        self.in_line.next = self.table_in_line.read_data.val();
        self.has_immediate.next =
            self.immediate_op.val() && (!self.write.val() || self.table_flags.read_data.val().get_bit(3) || self.last.q.val());

        // the block command (held in registers while CutIssue waits)
        self.packetizer.block_valid.next = false;
        self.packetizer.block_qp.next = self.table_qp.read_data.val();
        self.packetizer.block_channel.next = bit_cast::<16, CB>(self.cut_channel.q.val());
        self.packetizer.block_transport.next = self.transport.q.val();
        self.packetizer.block_pmtu.next = self.pmtu.q.val();
        self.packetizer.block_ack_every.next = self.ack_every.q.val();
        self.packetizer.block_sq_psn.next = self.sq_psn.q.val();
        self.packetizer.block_rkey.next = self.rkey.q.val();
        self.packetizer.block_write.next = self.write.val() || self.message_write.val();
        self.packetizer.block_message_first.next = self.write.val() || !self.table_flags.read_data.val().get_bit(4);
        self.packetizer.block_message_ends.next = self.write.val() || self.last.q.val();
        self.packetizer.block_transfer_ends.next = self.last.q.val();
        self.packetizer.block_has_immediate.next = self.has_immediate.val();
        self.packetizer.block_immediate.next = self.table_immediate.read_data.val();
        // the first group of a WRITE as one message that does not end it: no immediate goes
        // out, and the RETH's length (the whole message, the bytes not cut yet) rides there
        if self.message_write.val() && !self.table_flags.read_data.val().get_bit(4) && !self.last.q.val() {
            self.packetizer.block_immediate.next = self.table_remaining.read_data.val();
        }
        self.packetizer.block_solicited.next =
            self.table_flags.read_data.val().get_bit(2) && (!(self.write.val() || self.message_write.val()) || self.has_immediate.val());
        self.packetizer.block_va.next = self.table_remote.read_data.val();
        self.packetizer.block_len.next = self.length.q.val();
        self.packetizer.block_local.next = self.table_local.read_data.val();
        self.packetizer.block_timeout.next = self.timeout.q.val();
        self.packetizer.block_retry.next = self.retry.q.val();
        self.packetizer.block_rnr_retry.next = self.rnr_retry.q.val();
        self.packetizer.block_read_response.next = self.read_response.val();
        self.packetizer.block_read_request.next = self.read_request.val();
        self.packetizer.block_read_generation.next = self.reads_done_at_cut.read_data.val().get_bits::<2>(3);
        self.packetizer.block_psn.next = bit_cast::<24, 64>(self.table_remote.read_data.val() >> self.pmtu_shift.q.val());
        self.history_full_qp.next = self.table_qp.read_data.val();
        self.packetizer.replaying.next = self.replaying.val();
        self.packetizer.replay_valid.next = self.replay_valid.val();
        self.replay_ready.next = self.packetizer.replay_ready.val();
        self.packetizer.replay_qp.next = self.replay_qp.val();
        self.packetizer.replay_block.next = self.replay_block.val();
        self.packetizer.replay_first_psn.next = self.replay_first_psn.val();
        self.packetizer.replay_skip.next = self.replay_skip.val();
        self.record_valid.next = self.packetizer.record_valid.val();
        self.packetizer.record_ready.next = self.record_ready.val();
        self.record_qp.next = self.packetizer.record_qp.val();
        self.record_block.next = self.packetizer.record_block.val();
        self.record_first_psn.next = self.packetizer.record_first_psn.val();
        self.record_last_psn.next = self.packetizer.record_last_psn.val();
        self.record_timeout.next = self.packetizer.record_timeout.val();
        self.record_retry.next = self.packetizer.record_retry.val();
        self.record_rnr_retry.next = self.packetizer.record_rnr_retry.val();
        self.read_sent_valid.next = self.packetizer.read_sent_valid.val();
        self.packetizer.read_sent_ready.next = self.read_sent_ready.val();
        self.read_sent_qp.next = self.packetizer.read_sent_qp.val();
        self.read_sent_first_psn.next = self.packetizer.read_sent_first_psn.val();
        self.read_sent_last_psn.next = self.packetizer.read_sent_last_psn.val();
        self.read_sent_local_address.next = self.packetizer.read_sent_local_address.val();
        self.read_sent_length.next = self.packetizer.read_sent_length.val();
        self.read_sent_pmtu.next = self.packetizer.read_sent_pmtu.val();
        self.read_sent_again.next = self.packetizer.read_sent_again.val();
        self.read_sent_generation.next = self.packetizer.read_sent_generation.val();

        // ports driven by the states below
        self.post_ready.next = false;
        self.read_done_ready.next = self.read_done_open.val();
        self.read_ready.next = false;
        self.taking_read.next = false;
        self.post_result_valid.next = false;
        self.post_result_code.next = self.code.q.val();
        self.flush_valid.next = self.flush_pending.q.val();
        self.flush_channel.next = bit_cast::<16, CB>(self.cut_channel.q.val());
        self.flush_status.next = self.failure.q.val();
        self.qp_read_valid.next = self.reading_context.q.val();
        self.reading_context.d.next = false;
        self.cut_entering.d.next = false;
        self.qp_read_index.next = self.table_qp.read_data.val();
        self.enq_valid.next = false;
        self.enq_queue.next = self.cut_queue.q.val();
        self.enq_elem.next = self.cut_channel.q.val();
        self.deq_req.next = self.ask_early.q.val() && !self.held.q.val() && !self.stale.q.val() && !self.failure.q.val().any();
        self.ask_early.d.next = false;
        // QP resets: a commit stamps its QP with the count of commits (the init stamps 0); the
        // epoch is read at the post's QP, in `CutEntry` at the decision's
        self.epoch.write_enable.next = self.qp_commit_valid.val();
        self.epoch.write_address.next = self.qp_commit_index.val();
        self.epoch.write_data.next = self.commits.q.val() + 1;
        if self.qp_commit_valid.val() {
            self.commits.d.next = self.commits.q.val() + 1;
        }
        self.epoch.read_address.next = bit_cast::<QB, 24>(self.post_qp.q.val());
        if self.state.q.val() == SegmenterState::CutEntry {
            self.epoch.read_address.next = self.table_qp.read_data.val();
        }
        if self.qp_commit_valid.val() && (self.qp_commit_index.val() == self.table_qp.read_data.val()) {
            self.context_stale.d.next = true;
        }
        self.refusing.next = false;
        self.enqueued_last_cycle.d.next = false;
        self.context_wait.d.next = self.context_wait.q.val() - 1;
        self.init_done.next = self.state.q.val() != SegmenterState::Init && self.packetizer.init_done.val();

        match self.state.q.val() {
            SegmenterState::Init => {
                self.busy_write_enable.d.next = true;
                self.busy_write_address.d.next = self.init_channel.q.val();
                self.hold.write_enable.next = true;
                self.hold.write_address.next = self.init_qp.q.val();
                self.hold.write_data.next = 0.into();
                self.line_write_enable.d.next = true;
                self.line_write_address.d.next = self.init_qp.q.val();
                self.follower_write_enable.d.next = true;
                self.follower_write_address.d.next = self.init_channel.q.val();
                self.reads_cut.write_enable.next = true;
                self.reads_cut.write_address.next = self.init_qp.q.val();
                self.reads_cut.write_data.next = 0.into();
                self.reads_cut_at_done.write_enable.next = true;
                self.reads_cut_at_done.write_address.next = self.init_qp.q.val();
                self.reads_cut_at_done.write_data.next = 0.into();
                self.reads_done.write_enable.next = true;
                self.reads_done.write_address.next = self.init_qp.q.val();
                self.reads_done.write_data.next = 0.into();
                self.reads_done_at_cut.write_enable.next = true;
                self.reads_done_at_cut.write_address.next = self.init_qp.q.val();
                self.reads_done_at_cut.write_data.next = 0.into();
                if !self.qp_commit_valid.val() {
                    self.epoch.write_enable.next = true;
                    self.epoch.write_address.next = self.init_qp.q.val();
                    self.epoch.write_data.next = 0.into();
                }
                if !self.init_channels_done.q.val() {
                    self.init_channel.d.next = self.init_channel.q.val() + 1;
                }
                if !self.init_qps_done.q.val() {
                    self.init_qp.d.next = self.init_qp.q.val() + 1;
                }
                if self.init_channel.q.val() == self.channel_last.val() {
                    self.init_channels_done.d.next = true;
                }
                if self.init_qp.q.val() == self.qp_last.val() {
                    self.init_qps_done.d.next = true;
                }
                if self.init_channels_done.q.val() && self.init_qps_done.q.val() {
                    self.state.d.next = SegmenterState::Idle;
                }
            }
            SegmenterState::Idle => {
                // a decision asked early first (its block's transfer was sent back to its
                // queue), then a READ response (the responder channel free), then a post
                self.read_ready.next = self.packetizer.init_done.val() && !self.responder_busy.q.val() && !self.asked.val();
                self.taking_read.next =
                    self.read_valid.val() && self.packetizer.init_done.val() && !self.responder_busy.q.val() && !self.asked.val();
                self.post_ready.next = self.packetizer.init_done.val() && !self.taking_read.val() && !self.asked.val();
                self.internal.d.next = false;
                if self.asked.val() {
                    self.state.d.next = SegmenterState::Decide;
                } else if self.taking_read.val() {
                    self.post_channel.d.next = self.responder_channel.val();
                    self.post_queue.d.next = self.cfg_read_queue.val();
                    self.post_op.d.next = 0.into();
                    self.post_solicited.d.next = false;
                    self.post_every_block.d.next = false;
                    self.post_qp.d.next = bit_cast::<24, QB>(self.read_qp.val());
                    self.post_local.d.next = self.read_va.val();
                    self.post_remote.d.next = bit_cast::<64, 24>(self.read_psn.val());
                    self.post_length.d.next = self.read_length.val();
                    self.post_immediate.d.next = self.read_aeth.val();
                    self.internal.d.next = true;
                    self.done_seen.d.next = false;
                    self.state.d.next = SegmenterState::PostRead;
                    self.reading_context.d.next = true;
                } else if self.post_valid.val() && self.packetizer.init_done.val() {
                    self.post_channel.d.next = self.post_entry.val().get_bits::<16>(self.post_at[0].val().index());
                    self.post_queue.d.next = self.post_entry.val().get_bits::<5>(self.post_at[1].val().index());
                    self.post_op.d.next = self.post_entry.val().get_bits::<3>(self.post_at[2].val().index());
                    self.post_solicited.d.next = self.post_entry.val().get_bit(self.post_at[3].val().index());
                    self.post_every_block.d.next = self.post_entry.val().get_bit(self.post_at[4].val().index());
                    self.post_qp.d.next = self.post_entry.val().get_bits::<24>(self.post_at[5].val().index());
                    self.post_local.d.next = self.post_entry.val().get_bits::<64>(self.post_at[6].val().index());
                    self.post_remote.d.next = self.post_entry.val().get_bits::<64>(self.post_at[7].val().index());
                    self.post_length.d.next = self.post_entry.val().get_bits::<32>(self.post_at[8].val().index());
                    self.post_immediate.d.next = self.post_entry.val().get_bits::<32>(self.post_at[9].val().index());
                    self.done_seen.d.next = false;
                    self.state.d.next = SegmenterState::PostRead;
                    self.reading_context.d.next = true;
                } else if !self.enqueued_last_cycle.q.val() && self.packetizer.init_done.val() {
                    self.deq_req.next = true;
                    self.decision_asked.d.next = true;
                    self.state.d.next = SegmenterState::Decide;
                }
            }
            SegmenterState::PostRead => {
                self.qp_read_index.next = bit_cast::<QB, 24>(self.post_qp.q.val());
                self.context_wait.d.next = self.latency.val();
                // the last channel is the responder's
                self.bad_channel.d.next = bit_cast::<17, 16>(self.post_channel.q.val()) >= self.channels.val() - 1;
                self.bad_queue.d.next = bit_cast::<6, 5>(self.post_queue.q.val()) >= self.queues.val();
                self.bad_qp.d.next = bit_cast::<25, 24>(self.post_qp.q.val()) >= self.qps.val();
                // all but the WRITEs cut into blocks are at most a message long
                self.too_long.d.next = (!self.post_op.q.val().get_bit(1) || self.post_op.q.val().get_bit(2))
                    && (self.post_length.q.val() > self.send_max.val());
                self.state.d.next = SegmenterState::PostWait;
            }
            SegmenterState::PostWait => {
                if self.context_wait.q.val() == self.latency.val() {
                    // (a READ response is the responder's: its QP's requester may have failed)
                    self.qp_in_error.d.next = self.qp_failure.val().any() && !self.internal.q.val();
                }
                if self.context_wait.q.val() == 1 {
                    self.not_ready.d.next = (self.qp_read_entry.val().get_bits::<3>(self.context_at[0].val().index()) != self.rts.val())
                        || (self.qp_read_entry.val().get_bits::<3>(self.context_at[2].val().index()) < self.pmtu_min.val())
                        || (self.qp_read_entry.val().get_bits::<3>(self.context_at[2].val().index()) > self.pmtu_max.val());
                    // a READ (4) on RC only; no code 5
                    self.bad_operation.d.next = (self.post_op.q.val().get_bit(2)
                        && !self.post_op.q.val().get_bit(1)
                        && (self.post_op.q.val().get_bit(0)
                            || (self.qp_read_entry.val().get_bits::<3>(self.context_at[1].val().index()) != self.rc.val())))
                        || ((self.qp_read_entry.val().get_bits::<3>(self.context_at[1].val().index()) != self.rc.val())
                            && (self.qp_read_entry.val().get_bits::<3>(self.context_at[1].val().index()) != self.uc.val()));
                    self.channel_busy.d.next = self.busy.read_data.val();
                    // a READ response's PSN in PMTU units of bytes: the cutter's remote adder
                    // then moves it by the packets of each group
                    if self.internal.q.val() {
                        self.post_remote.d.next = self.post_remote.q.val()
                            << (self.pmtu_shift_base.val()
                                + bit_cast::<6, 3>(self.qp_read_entry.val().get_bits::<3>(self.context_at[2].val().index())));
                    }
                    self.state.d.next = SegmenterState::PostCheck;
                }
            }
            SegmenterState::PostCheck => {
                self.code.d.next = 0.into();
                if self.bad_channel.q.val() {
                    self.code.d.next = self.code_bad_channel.val();
                } else if self.bad_queue.q.val() {
                    self.code.d.next = self.code_bad_queue.val();
                } else if self.bad_qp.q.val() {
                    self.code.d.next = self.code_bad_qp.val();
                } else if self.not_ready.q.val() || self.qp_in_error.q.val() {
                    self.code.d.next = self.code_not_ready.val();
                } else if self.bad_operation.q.val() {
                    self.code.d.next = self.code_bad_operation.val();
                } else if self.too_long.q.val() {
                    self.code.d.next = self.code_too_long.val();
                } else if self.channel_busy.q.val() && !self.done_seen.q.val() {
                    self.code.d.next = self.code_busy.val();
                }
                // a READ response was checked by the responder
                if self.internal.q.val() {
                    self.code.d.next = 0.into();
                }
                self.state.d.next = SegmenterState::PostCommit;
            }
            SegmenterState::PostCommit => {
                if self.code.q.val().any() {
                    self.post_result_valid.next = true;
                    self.refusing.next = true;
                    self.state.d.next = SegmenterState::Idle;
                } else if !self.done_valid.val() {
                    // a READ response completes nothing: its channel is not marked busy
                    self.busy_write_enable.d.next = !self.internal.q.val();
                    if self.internal.q.val() {
                        self.responder_busy.d.next = true;
                    }
                    self.busy_write_address.d.next = bit_cast::<CB, 16>(self.post_channel.q.val());
                    self.busy_write_data.d.next = true;
                    self.table_local.write_enable.next = true;
                    self.table_remote.write_enable.next = true;
                    self.table_remaining.write_enable.next = true;
                    self.table_immediate.write_enable.next = true;
                    self.table_qp.write_enable.next = true;
                    self.table_flags.write_enable.next = true;
                    self.table_epoch.write_enable.next = true;
                    self.table_queue.write_enable.next = true;
                    self.table_in_line.write_enable.next = true;
                    self.state.d.next = SegmenterState::PostEnqueue;
                    if self.post_in_line.val() {
                        // the line's last now; behind the one that was, off the scheduler
                        self.line_write_enable.d.next = true;
                        self.line_write_address.d.next = bit_cast::<QB, 24>(self.post_qp.q.val());
                        self.line_write_data.d.next = bit_cast::<17, 16>(self.post_channel.q.val()) | 0x10000;
                        if self.line.read_data.val().get_bit(16) {
                            self.follower_write_enable.d.next = true;
                            self.follower_write_address.d.next = bit_cast::<CB, 16>(self.line.read_data.val().get_bits::<16>(0));
                            self.follower_write_data.d.next = bit_cast::<17, 16>(self.post_channel.q.val()) | 0x10000;
                            self.post_result_valid.next = true;
                            self.state.d.next = SegmenterState::Idle;
                        }
                    }
                }
            }
            SegmenterState::PostEnqueue => {
                self.enq_valid.next = true;
                self.enq_queue.next = self.post_queue.q.val();
                self.enq_elem.next = bit_cast::<CB, 16>(self.post_channel.q.val());
                if self.enq_ready.val() {
                    self.post_result_valid.next = !self.internal.q.val();
                    self.enqueued_last_cycle.d.next = true;
                    self.state.d.next = SegmenterState::Idle;
                }
            }
            SegmenterState::Decide => {
                if self.answer_valid.val() {
                    self.answer_held.d.next = false;
                    self.cut_channel.d.next = self.answer_elem.val();
                    self.cut_queue.d.next = self.answer_queue.val();
                    self.context_stale.d.next = false;
                    self.paced_cut.d.next = self.paced_queues.val().get_bit(self.answer_queue.val().index());
                    // a block of `block_size` (a paced queue's is set again from the context)
                    self.cut_block_size.d.next = self.block_size.q.val();
                    self.state.d.next = SegmenterState::Idle;
                    if self.answer_ok.val() {
                        self.state.d.next = SegmenterState::CutEntry;
                        self.reading_context.d.next = true;
                        self.cut_entering.d.next = true;
                    }
                }
            }
            SegmenterState::CutEntry => {
                self.context_wait.d.next = self.latency.val();
                // the block aligned to the remote address (WRITE, READ)
                self.offset.d.next = 0.into();
                if self.write.val() {
                    self.offset.d.next = self.table_remote.read_data.val().get_bits::<20>(0) & self.block_mask.q.val();
                }
                // the room's low half is computed in this cycle (`cut_entering`)
                self.room_age.d.next = 1.into();
                self.state.d.next = SegmenterState::CutWait;
            }
            SegmenterState::CutWait => {
                if self.context_wait.q.val() == self.latency.val() {
                    self.failure.d.next = self.qp_failure.val();
                    if self.read_response.val() {
                        self.failure.d.next = 0.into();
                    }
                    self.stale.d.next = (self.epoch.read_data.val() != self.table_epoch.read_data.val()) && !self.read_response.val();
                }
                if self.context_wait.q.val() == 1 {
                    self.transport.d.next = self.qp_read_entry.val().get_bits::<3>(self.context_at[1].val().index());
                    self.pmtu.d.next = self.pmtu_unit.val() << self.qp_read_entry.val().get_bits::<3>(self.context_at[2].val().index());
                    self.ack_every.d.next = self.qp_read_entry.val().get_bits::<8>(self.context_at[3].val().index());
                    self.sq_psn.d.next = self.qp_read_entry.val().get_bits::<24>(self.context_at[4].val().index());
                    self.rkey.d.next = self.qp_read_entry.val().get_bits::<32>(self.context_at[5].val().index());
                    self.timeout.d.next = self.qp_read_entry.val().get_bits::<5>(self.context_at[6].val().index());
                    self.retry.d.next = self.qp_read_entry.val().get_bits::<3>(self.context_at[7].val().index());
                    self.rnr_retry.d.next = self.qp_read_entry.val().get_bits::<3>(self.context_at[8].val().index());
                    self.pmtu_shift.d.next = self.pmtu_shift_base.val()
                        + bit_cast::<6, 3>(self.qp_read_entry.val().get_bits::<3>(self.context_at[2].val().index()));
                    // a READ response is in the responder's PSN space: not held, never recorded
                    self.held.d.next = !self.read_response.val()
                        && ((self.read_request.val() && self.reads_full.val())
                            || (self.hold.read_data.val().get_bit(16)
                                && (self.hold.read_data.val().get_bits::<16>(0) != bit_cast::<16, CB>(self.cut_channel.q.val())))
                            || (self.history_full.val()
                                && (self.qp_read_entry.val().get_bits::<3>(self.context_at[1].val().index()) == self.rc.val())));
                    if self.paced_cut.q.val() {
                        self.cut_block_size.d.next = bit_cast::<BLOCK_LEN_BITS, 13>(
                            self.pmtu_unit.val() << self.qp_read_entry.val().get_bits::<3>(self.context_at[2].val().index()),
                        );
                        if self.write.val() {
                            self.offset.d.next = self.table_remote.read_data.val().get_bits::<20>(0) & self.pmtu_mask.val();
                        }
                        self.room_age.d.next = 0.into();
                    }
                    // the transfer's last block, no line to release, nothing waiting to be
                    // taken in `Idle`: unless `CutCheck` finds it held, stale or failed, this
                    // decision enqueues nothing, so the next one is asked there and answered
                    // while this block is handed over
                    self.ask_early.d.next = self.fits_now.val()
                        && self.room_age.q.val().get_bit(1)
                        && !self.paced_cut.q.val()
                        && !self.context_stale.q.val()
                        && (!self.in_line.val() || !self.follower.read_data.val().get_bit(16))
                        && !self.post_valid.val()
                        && !self.read_valid.val();
                    self.state.d.next = SegmenterState::CutCheck;
                }
            }
            SegmenterState::CutCheck => {
                if self.stale.q.val() {
                    // posted before its QP's reset: flushed (whatever failed the QP since)
                    self.failure.d.next = self.code_flushed.val();
                    self.flush_pending.d.next = true;
                    self.state.d.next = SegmenterState::Flush;
                } else if self.failure.q.val().any() {
                    self.flush_pending.d.next = true;
                    self.state.d.next = SegmenterState::Flush;
                } else if self.held.q.val() {
                    self.state.d.next = SegmenterState::Requeue;
                } else {
                    if self.ask_early.q.val() {
                        // `deq_req` is high
                        self.decision_asked.d.next = true;
                    }
                    self.last.d.next =
                        self.upper_zero.q.val() && (self.high_below.q.val() || (self.high_equal.q.val() && self.low_fits.q.val()));
                    self.length.d.next = self.room.q.val();
                    self.state.d.next = SegmenterState::CutAdd0;
                    if self.upper_zero.q.val() && (self.high_below.q.val() || (self.high_equal.q.val() && self.low_fits.q.val())) {
                        self.length.d.next = self.table_remaining.read_data.val().get_bits::<BLOCK_LEN_BITS>(0);
                        // the transfer's last block: nothing goes back into the table, no sums
                        self.state.d.next = SegmenterState::CutIssue;
                    }
                    self.immediate_step.d.next = 0.into();
                    if self.table_flags.read_data.val().get_bit(3) && self.write.val() && self.immediate_op.val() {
                        self.immediate_step.d.next = 1.into();
                    }
                    if self.room_age.q.val() != 3 {
                        // the room is not computed yet (a paced block's, from the context)
                        self.state.d.next = SegmenterState::CutCheck;
                    }
                }
            }
            SegmenterState::CutAdd0 => {
                self.local_sum[0].d.next = bit_cast::<17, 16>(self.table_local.read_data.val().get_bits::<16>(0))
                    + bit_cast::<17, 16>(self.length.q.val().get_bits::<16>(0));
                self.remote_sum[0].d.next = bit_cast::<17, 16>(self.table_remote.read_data.val().get_bits::<16>(0))
                    + bit_cast::<17, 16>(self.length.q.val().get_bits::<16>(0));
                self.remaining_sum[0].d.next = bit_cast::<17, 16>(self.table_remaining.read_data.val().get_bits::<16>(0))
                    + bit_cast::<17, 16>(self.length_inverted.val().get_bits::<16>(0))
                    + 1;
                self.immediate_sum[0].d.next =
                    bit_cast::<17, 16>(self.table_immediate.read_data.val().get_bits::<16>(0)) + self.immediate_step.q.val();
                self.state.d.next = SegmenterState::CutAdd1;
            }
            SegmenterState::CutAdd1 => {
                self.local_sum[1].d.next = bit_cast::<17, 16>(self.table_local.read_data.val().get_bits::<16>(16))
                    + bit_cast::<17, 5>(self.length.q.val().get_bits::<5>(16))
                    + bit_cast::<17, 1>(self.local_sum[0].q.val().get_bits::<1>(16));
                self.remote_sum[1].d.next = bit_cast::<17, 16>(self.table_remote.read_data.val().get_bits::<16>(16))
                    + bit_cast::<17, 5>(self.length.q.val().get_bits::<5>(16))
                    + bit_cast::<17, 1>(self.remote_sum[0].q.val().get_bits::<1>(16));
                self.remaining_sum[1].d.next = bit_cast::<17, 16>(self.table_remaining.read_data.val().get_bits::<16>(16))
                    + (bit_cast::<17, 5>(self.length_inverted.val().get_bits::<5>(16)) | 0xFFE0)
                    + bit_cast::<17, 1>(self.remaining_sum[0].q.val().get_bits::<1>(16));
                self.immediate_sum[1].d.next = bit_cast::<17, 16>(self.table_immediate.read_data.val().get_bits::<16>(16))
                    + bit_cast::<17, 1>(self.immediate_sum[0].q.val().get_bits::<1>(16));
                self.state.d.next = SegmenterState::CutAdd2;
            }
            SegmenterState::CutAdd2 => {
                self.local_sum[2].d.next = bit_cast::<17, 16>(self.table_local.read_data.val().get_bits::<16>(32))
                    + bit_cast::<17, 1>(self.local_sum[1].q.val().get_bits::<1>(16));
                self.remote_sum[2].d.next = bit_cast::<17, 16>(self.table_remote.read_data.val().get_bits::<16>(32))
                    + bit_cast::<17, 1>(self.remote_sum[1].q.val().get_bits::<1>(16));
                self.state.d.next = SegmenterState::CutAdd3;
            }
            SegmenterState::CutAdd3 => {
                self.local_sum[3].d.next = bit_cast::<17, 16>(self.table_local.read_data.val().get_bits::<16>(48))
                    + bit_cast::<17, 1>(self.local_sum[2].q.val().get_bits::<1>(16));
                self.remote_sum[3].d.next = bit_cast::<17, 16>(self.table_remote.read_data.val().get_bits::<16>(48))
                    + bit_cast::<17, 1>(self.remote_sum[2].q.val().get_bits::<1>(16));
                self.state.d.next = SegmenterState::CutIssue;
            }
            SegmenterState::CutIssue => {
                if self.context_stale.q.val() {
                    // its QP was reset after its context was read: nothing cut
                    self.state.d.next = SegmenterState::Requeue;
                } else if self.packetizer.block_ready.val() && !(self.read_request.val() && self.clear_window.val()) {
                    self.packetizer.block_valid.next = true;
                    self.charge_valid_reg.d.next = self.paced_cut.q.val();
                    self.table_local.write_address.next = self.cut_channel.q.val();
                    self.table_remote.write_address.next = self.cut_channel.q.val();
                    self.table_remaining.write_address.next = self.cut_channel.q.val();
                    self.table_immediate.write_address.next = self.cut_channel.q.val();
                    self.table_flags.write_address.next = self.cut_channel.q.val();
                    self.table_local.write_data.next = (bit_cast::<64, 16>(self.local_sum[3].q.val().get_bits::<16>(0)) << 48)
                        | (bit_cast::<64, 16>(self.local_sum[2].q.val().get_bits::<16>(0)) << 32)
                        | (bit_cast::<64, 16>(self.local_sum[1].q.val().get_bits::<16>(0)) << 16)
                        | bit_cast::<64, 16>(self.local_sum[0].q.val().get_bits::<16>(0));
                    self.table_remote.write_data.next = (bit_cast::<64, 16>(self.remote_sum[3].q.val().get_bits::<16>(0)) << 48)
                        | (bit_cast::<64, 16>(self.remote_sum[2].q.val().get_bits::<16>(0)) << 32)
                        | (bit_cast::<64, 16>(self.remote_sum[1].q.val().get_bits::<16>(0)) << 16)
                        | bit_cast::<64, 16>(self.remote_sum[0].q.val().get_bits::<16>(0));
                    self.table_remaining.write_data.next = (bit_cast::<32, 16>(self.remaining_sum[1].q.val().get_bits::<16>(0)) << 16)
                        | bit_cast::<32, 16>(self.remaining_sum[0].q.val().get_bits::<16>(0));
                    self.table_immediate.write_data.next = (bit_cast::<32, 16>(self.immediate_sum[1].q.val().get_bits::<16>(0)) << 16)
                        | bit_cast::<32, 16>(self.immediate_sum[0].q.val().get_bits::<16>(0));
                    self.table_flags.write_data.next = self.table_flags.read_data.val() | 0x10;
                    self.table_local.write_enable.next = !self.last.q.val();
                    self.table_remote.write_enable.next = !self.last.q.val();
                    self.table_remaining.write_enable.next = !self.last.q.val();
                    self.table_immediate.write_enable.next = !self.last.q.val();
                    self.table_flags.write_enable.next = !self.last.q.val();
                    self.hold.write_enable.next = self.one_message.val();
                    // a message cut whole leaves its line: the one behind it is released, or
                    // the line emptied
                    if self.in_line.val() && self.last.q.val() {
                        self.follower_write_enable.d.next = self.follower.read_data.val().get_bit(16);
                        self.line_write_enable.d.next = !self.follower.read_data.val().get_bit(16);
                    }
                    self.reads_cut.write_enable.next = self.read_request.val();
                    self.reads_cut_at_done.write_enable.next = self.read_request.val();
                    self.state.d.next = SegmenterState::Requeue;
                    if self.last.q.val() {
                        self.state.d.next = SegmenterState::Idle;
                        if self.decision_asked.q.val() || self.answer_held.q.val() {
                            self.state.d.next = SegmenterState::Decide;
                        }
                        if self.in_line.val() && self.follower.read_data.val().get_bit(16) {
                            self.state.d.next = SegmenterState::Release;
                        }
                        if self.read_response.val() {
                            self.responder_busy.d.next = false;
                        }
                    }
                }
            }
            SegmenterState::Requeue => {
                self.enq_valid.next = true;
                if self.enq_ready.val() {
                    self.enqueued_last_cycle.d.next = true;
                    self.state.d.next = SegmenterState::Idle;
                }
            }
            SegmenterState::Release => {
                self.enq_valid.next = true;
                self.enq_queue.next = self.release_queue.q.val();
                self.enq_elem.next = self.release_channel.q.val();
                if self.enq_ready.val() {
                    self.enqueued_last_cycle.d.next = true;
                    self.state.d.next = SegmenterState::Idle;
                }
            }
            SegmenterState::Flush => {
                if self.flush_ready.val() {
                    self.flush_pending.d.next = false;
                    // its channel idle (no `done` comes this cycle: the TX path gives the
                    // completion port to the ACK tracker first), its SEND's hold let go
                    self.busy_write_enable.d.next = true;
                    self.busy_write_address.d.next = self.cut_channel.q.val();
                    self.hold.write_enable.next = self.hold.read_data.val().get_bit(16)
                        && (self.hold.read_data.val().get_bits::<16>(0) == bit_cast::<16, CB>(self.cut_channel.q.val()));
                    self.hold.write_data.next = 0.into();
                    self.state.d.next = SegmenterState::Idle;
                    if self.in_line.val() {
                        self.follower_write_enable.d.next = self.follower.read_data.val().get_bit(16);
                        self.line_write_enable.d.next = !self.follower.read_data.val().get_bit(16);
                        if self.follower.read_data.val().get_bit(16) {
                            self.state.d.next = SegmenterState::Release;
                        }
                    }
                }
            }
        }
        if self.reset.val() {
            self.state.d.next = SegmenterState::Init;
            self.ask_early.d.next = false;
            self.decision_asked.d.next = false;
            self.answer_held.d.next = false;
            self.charge_valid_reg.d.next = false;
            self.responder_busy.d.next = false;
            self.reading_context.d.next = false;
            self.flush_pending.d.next = false;
            self.init_channel.d.next = 0.into();
            self.init_qp.d.next = 0.into();
            self.init_channels_done.d.next = false;
            self.init_qps_done.d.next = false;
        }

        // refusal counters
        for k in 0..7 {
            self.refused[k].increment.next = self.refusing.val() && (self.code.q.val() == self.refusal_code[k].val());
        }
        self.cnt_channel_busy.next = self.refused[0].count.val();
        self.cnt_bad_channel.next = self.refused[1].count.val();
        self.cnt_bad_queue.next = self.refused[2].count.val();
        self.cnt_bad_qp.next = self.refused[3].count.val();
        self.cnt_qp_not_ready.next = self.refused[4].count.val();
        self.cnt_bad_operation.next = self.refused[5].count.val();
        self.cnt_too_long.next = self.refused[6].count.val();

        // outputs
        self.packetizer.m_desc_ready.next = self.m_desc_ready.val();
        self.packetizer.m_read_ready.next = self.m_read_ready.val();
        self.m_desc_valid.next = self.packetizer.m_desc_valid.val();
        self.m_desc.next = self.packetizer.m_desc.val();
        self.m_read_valid.next = self.packetizer.m_read_valid.val();
        self.m_read_addr.next = self.packetizer.m_read.val().get_bits::<64>(0);
        self.m_read_len.next = self.packetizer.m_read.val().get_bits::<13>(64);
    }
}
