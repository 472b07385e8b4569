//! [`TxPath`]: the whole TX path in one unit: transfer posts in, RoCEv2 frames out to the MAC,
//! payload read from memory. The golden model is `ferroce_models::tx` (`TxModel`); `docs/tx.md`
//! is the specification.
//!
//! ```text
//!  post ──► TxSegmenter ──enq──► Sched ──decision──► TxSegmenter (cutter, packetizer)
//!  (post_*)   │    ▲                                    │ m_read (address, length) ──► memory
//!             │    └── done (the generator's completion)│ descriptors (PACKET)
//!             │                                         ▼
//!   QP read ◄─┴── segmenter first ─── generator ◄── TxGenerator ◄── s_pay (memory data)
//!   (qp_read_*)                                 ▲      │
//!          s_resp (ACK/NAK) ──► response ───────┘ (first)
//!                                                      ├─► m_axis (frames with ICRC) ──► MAC
//!                                                      └─► sent ──► AckTracker ──► cpl (channel,
//!   s_ack (ACKs, NAKs) ──────────────────────────────────────────────►   ▲      status) ──► register file
//!   packet tap (every request descriptor the generator takes) ──────────┘
//! ```
//!
//! - **One QP context read port** (the register file's, `QL` cycles from index to entry) serves
//!   both readers: in a cycle where the segmenter reads (a post's check, a decision's cut), the
//!   generator is not offered a descriptor, so it does not read; otherwise the index is the
//!   generator's. Each reader takes the entry `QL` cycles after its own index.
//! - **Scheduler requests**: the segmenter's enqueue and decision request reach the scheduler
//!   through one register each, so its decisions come one cycle later than in `tx_segmenter`'s
//!   tests; the segmenter waits for the answer, whatever its latency.
//! - **Responses** (`s_resp_*`, the responder's ACKs and NAKs): the control class at packet
//!   grain. A response waits in a register (QP, PSN, AETH); its descriptor (opcode
//!   Acknowledge, its PSN, its AETH in the ImmDt place, no payload, no transfer) goes to the
//!   generator before the segmenter's next descriptor: it waits behind the frames the
//!   generator holds (fewer than its `PENDING_BEATS` beats' worth), not for a block decision. It never splits a frame; it may leave between two
//!   packets of a message, which is legal (it is in the responder's PSN space).
//!   `m_packet_response` marks its frame.
//! - **Completions** ([`AckTracker`]): a UC transfer completes when its last frame has left
//!   (the generator's completion); an RC one when the responder acknowledges its last PSN
//!   (`s_ack_*`), or with the error a NAK gives it. The completion goes out on `cpl_*` and, in
//!   the cycle the register file takes it, frees the channel in the segmenter (`done`): a
//!   channel stays busy until its transfer is acknowledged. A transfer the segmenter flushes
//!   (its QP failed before it was all cut) completes on `cpl_*` too, when the tracker has none.
//! - **Frames' channels**: `m_packet_*` gives, per descriptor the generator takes, its channel;
//!   frames leave `m_axis` in that order (per-channel accounting, the co-simulation's per-queue
//!   bytes).
//! - **Going back N** ([`SendHistory`] of `2^(HB − QB)` blocks per QP, [`RetryTimer`]): the
//!   packetizer records every new RC block in the history and, in the same handshake, tells
//!   the timer `sent`; the ACK tracker releases acknowledged blocks and tells the timer about
//!   progress and NAKs; the timer's actions (through a FIFO, so the timer never waits on the
//!   tracker while the tracker waits on the timer) reach the tracker, which rewinds the
//!   history; the history's replayed blocks go to the packetizer before new ones. Timer events
//!   pass one FIFO: a QP's clear first, then the tracker's notices, then `sent`. A replayed
//!   packet is not tapped to the tracker (its PSN is not new).
//! - **QP reset** (`qp_commit_*`, the host rewrote a context): the commit waits in a FIFO until
//!   the history, the tracker and the timer have each cleared the QP.

use super::ack_tracker::AckTracker;
use super::generator::TxGenerator;
use super::retry_timer::RetryTimer;
use super::segmenter::TxSegmenter;
use super::send_history::SendHistory;
use crate::common::counter::EventCounter;
use crate::common::elab::{bits_from, c};
use crate::common::fifo::{Fifo, CAPACITY};
use crate::sched::pacers::QueuePacers;
use crate::sched::Sched;
use ferroce_contracts::opcode::{Opcode, Operation, Transport, TRANSPORT_SHIFT};
use ferroce_contracts::reliability::{TimerAction, TimerEvent, TIMER_ACTION_BITS, TIMER_EVENT_BITS};
use ferroce_contracts::sched;
use ferroce_contracts::tx::{CompletionStatus, COMPLETION_STATUS_BITS, PACKET, PACKET_BITS, POST_BITS, QP_CONTEXT_BITS};
use rust_hdl::prelude::*;

mod entries {
    // the methods `LogicStruct` derives have no docs
    #![allow(missing_docs)]
    use rust_hdl::prelude::*;

    /// A retry timer event waiting for the timer.
    #[derive(Clone, Copy, Debug, Default, PartialEq, LogicStruct)]
    pub struct TimerEventEntry {
        pub qp: Bits<16>,
        pub kind: Bits<3>,
        pub timeout: Bits<5>,
        pub retry: Bits<3>,
        pub rnr_retry: Bits<3>,
        pub rnr_timer: Bits<5>,
    }

    /// A retry timer action waiting for the ACK tracker.
    #[derive(Clone, Copy, Debug, Default, PartialEq, LogicStruct)]
    pub struct ActionEntry {
        pub qp: Bits<16>,
        pub kind: Bits<3>,
    }
}
use entries::{ActionEntry, TimerEventEntry};

/// Cycles the TX path's pacers lift a pause early: more than from the scheduler's decision
/// (its `stall` sampled) to the segmenter's charge of the group it cuts when the packetizer
/// takes the block at once (`docs/sched.md`, "Pacing").
pub const PACE_LEAD: u64 = 24;
/// Cycles a paced group's charge may come late and still keep its queue's schedule: the
/// segmenter waiting for the packetizer behind other queues' blocks.
pub const PACE_SLACK: u64 = 4096;

/// The TX path at `W` bits (`K = W / 8` lanes) with `2^CB` channels (`EB = CB + 1`, the
/// scheduler's element width), `2^QB` QP contexts and `Q` scheduler queues; `QL`: cycles from
/// `qp_read_index` to `qp_read_entry`; `2^(HB − QB)` blocks of send history per QP.
#[derive(LogicBlock)]
pub struct TxPath<
    const W: usize,
    const K: usize,
    const CB: usize,
    const EB: usize,
    const QB: usize,
    const Q: usize,
    const QL: usize,
    const HB: usize,
> {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous, active high.
    pub reset: Signal<In, Bit>,
    /// High once the transfer table, the QP RAMs and the scheduler are cleared after reset.
    pub init_done: Signal<Out, Bit>,
    /// log2 of the block size (12..=20), from the register file.
    pub cfg_block_log2: Signal<In, Bits<5>>,
    /// Clock cycles per retry timer tick of 4.096 µs (`contracts::reliability::tick_cycles`).
    pub cfg_tick_cycles: Signal<In, Bits<16>>,
    /// The scheduler queue of READ responses (a data queue, 1 or more).
    pub cfg_read_queue: Signal<In, Bits<5>>,
    /// Posts (`contracts::tx::POST`, packed): valid.
    pub post_valid: Signal<In, Bit>,
    /// Posts: ready.
    pub post_ready: Signal<Out, Bit>,
    /// Posts: the post.
    pub post_entry: Signal<In, Bits<POST_BITS>>,
    /// A post's result: valid (one cycle).
    pub post_result_valid: Signal<Out, Bit>,
    /// A post's result: 0 accepted, else the `PostError` code.
    pub post_result_code: Signal<Out, Bits<3>>,
    /// QP context table read: the index.
    pub qp_read_index: Signal<Out, Bits<QB>>,
    /// QP context table read: the entry (`contracts::tx::QP_CONTEXT`), `QL` cycles after its index.
    pub qp_read_entry: Signal<In, Bits<QP_CONTEXT_BITS>>,
    /// A QP's error state (the `qp_status` register): the QP.
    pub qp_status_index: Signal<In, Bits<QB>>,
    /// The `CompletionStatus` that failed the previous cycle's QP (0: not in error).
    pub qp_status_value: Signal<Out, Bits<COMPLETION_STATUS_BITS>>,
    /// The host rewrote a QP context: pulse.
    pub qp_commit_valid: Signal<In, Bit>,
    /// The host rewrote a QP context: its index.
    pub qp_commit_index: Signal<In, Bits<QB>>,
    /// The READ tracker: a QP's READ is over, or all of them (the segmenter's
    /// `read_done_*`): valid.
    pub read_done_valid: Signal<In, Bit>,
    /// Taken.
    pub read_done_ready: Signal<Out, Bit>,
    /// Its QP.
    pub read_done_qp: Signal<In, Bits<QB>>,
    /// All the QP's READs are over (it was reset).
    pub read_done_cleared: Signal<In, Bit>,
    /// A READ request was cut, new or sent again (for the READ tracker): valid (held until
    /// taken).
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
    /// The request's generation (the QP's resets modulo 4, as the segmenter counted them): the
    /// READ tracker loads a new request only if it is the QP's current one.
    pub read_sent_generation: Signal<Out, Bits<2>>,
    /// Scheduler register write: enable.
    pub sched_cfg_we: Signal<In, Bit>,
    /// Scheduler register write: address (queue q's word at q, the limit of high priority at 64,
    /// queue q's pacer cost at 96 + q: `ferroce_contracts::sched`).
    pub sched_cfg_addr: Signal<In, Bits<7>>,
    /// Scheduler register write: data.
    pub sched_cfg_wdata: Signal<In, Bits<32>>,
    /// Memory read commands: valid.
    pub m_read_valid: Signal<Out, Bit>,
    /// Memory read commands: ready.
    pub m_read_ready: Signal<In, Bit>,
    /// Memory read commands: local address.
    pub m_read_addr: Signal<Out, Bits<64>>,
    /// Memory read commands: bytes (1..=4096).
    pub m_read_len: Signal<Out, Bits<13>>,
    /// Memory data (per read command, its bytes from lane 0, `tlast` on its last beat): valid.
    pub s_pay_tvalid: Signal<In, Bit>,
    /// Memory data: ready.
    pub s_pay_tready: Signal<Out, Bit>,
    /// Memory data: data.
    pub s_pay_tdata: Signal<In, Bits<W>>,
    /// Memory data: byte enables.
    pub s_pay_tkeep: Signal<In, Bits<K>>,
    /// Memory data: a read command's last beat.
    pub s_pay_tlast: Signal<In, Bit>,
    /// Frames to the MAC (with ICRC, without FCS): valid.
    pub m_axis_tvalid: Signal<Out, Bit>,
    /// Frames: ready.
    pub m_axis_tready: Signal<In, Bit>,
    /// Frames: data.
    pub m_axis_tdata: Signal<Out, Bits<W>>,
    /// Frames: byte enables.
    pub m_axis_tkeep: Signal<Out, Bits<K>>,
    /// Frames: last beat.
    pub m_axis_tlast: Signal<Out, Bit>,
    /// A packet descriptor entered the generator (its frame follows those of the earlier ones
    /// on `m_axis`): pulse.
    pub m_packet_valid: Signal<Out, Bit>,
    /// That packet's channel.
    pub m_packet_channel: Signal<Out, Bits<16>>,
    /// That packet is a response (its channel is 0 and means nothing).
    pub m_packet_response: Signal<Out, Bit>,
    /// A READ response's last (or only) packet was taken by the packet generator the cycle
    /// before (READ responses leave in the order `s_read_*` took them).
    pub m_read_done: Signal<Out, Bit>,
    /// Responses (ACKs and NAKs to send): valid.
    pub s_resp_valid: Signal<In, Bit>,
    /// Responses: ready (one waits at a time; the next is taken when it has gone).
    pub s_resp_ready: Signal<Out, Bit>,
    /// Responses: the local QP, whose context addresses the frame.
    pub s_resp_qp: Signal<In, Bits<24>>,
    /// Responses: BTH PSN.
    pub s_resp_psn: Signal<In, Bits<24>>,
    /// Responses: the AETH (syndrome in bits 31:24, MSN in bits 23:0).
    pub s_resp_aeth: Signal<In, Bits<32>>,
    /// READ responses (the responder's answers to READ requests): valid.
    pub s_read_valid: Signal<In, Bit>,
    /// READ responses: ready (one at a time: the next is taken when the last group of the one
    /// before has been cut).
    pub s_read_ready: Signal<Out, Bit>,
    /// READ responses: the local QP.
    pub s_read_qp: Signal<In, Bits<24>>,
    /// READ responses: the first PSN (the request's).
    pub s_read_psn: Signal<In, Bits<24>>,
    /// READ responses: the AETH of the first, last and only packets.
    pub s_read_aeth: Signal<In, Bits<32>>,
    /// READ responses: the address of the first byte.
    pub s_read_va: Signal<In, Bits<64>>,
    /// READ responses: the bytes.
    pub s_read_length: Signal<In, Bits<32>>,
    /// ACKs and NAKs for this engine's requests (the responder's forwarded decisions that
    /// carry an AETH): valid.
    pub s_ack_valid: Signal<In, Bit>,
    /// ACKs: ready.
    pub s_ack_ready: Signal<Out, Bit>,
    /// ACKs: the local QP (the packet's DestQP).
    pub s_ack_qp: Signal<In, Bits<24>>,
    /// ACKs: the PSN.
    pub s_ack_psn: Signal<In, Bits<24>>,
    /// ACKs: the AETH syndrome.
    pub s_ack_syndrome: Signal<In, Bits<8>>,
    /// Completions: valid (a UC transfer's last frame has left the generator, an RC transfer
    /// was acknowledged or failed by a NAK).
    pub cpl_valid: Signal<Out, Bit>,
    /// Completions: ready.
    pub cpl_ready: Signal<In, Bit>,
    /// Completions: the channel.
    pub cpl_channel: Signal<Out, Bits<16>>,
    /// Completions: the status (`contracts::tx::CompletionStatus`).
    pub cpl_status: Signal<Out, Bits<4>>,
    /// Counter: posts refused, channel busy.
    pub cnt_channel_busy: Signal<Out, Bits<32>>,
    /// Counter: posts refused, channel out of range.
    pub cnt_bad_channel: Signal<Out, Bits<32>>,
    /// Counter: posts refused, queue out of range.
    pub cnt_bad_queue: Signal<Out, Bits<32>>,
    /// Counter: posts refused, QP out of range.
    pub cnt_bad_qp: Signal<Out, Bits<32>>,
    /// Counter: posts refused, QP not ready to send.
    pub cnt_qp_not_ready: Signal<Out, Bits<32>>,
    /// Counter: posts refused, unknown operation.
    pub cnt_bad_operation: Signal<Out, Bits<32>>,
    /// Counter: posts refused, SEND longer than the largest message.
    pub cnt_too_long: Signal<Out, Bits<32>>,
    /// Counter: the scheduler refused an enqueue of an element already queued.
    pub cnt_sched_dup: Signal<Out, Bits<32>>,
    /// Counter: the scheduler refused an enqueue to a queue ≥ Q.
    pub cnt_sched_bad_queue: Signal<Out, Bits<32>>,
    /// Counter: ACKs and NAKs ignored (reserved syndrome, QP beyond the table, PSN outside
    /// the window).
    pub cnt_ack_ignored: Signal<Out, Bits<32>>,
    /// Counter: RC packets sent again (going back N).
    pub cnt_retransmitted: Signal<Out, Bits<32>>,
    /// Counter: retry timer timeouts (no ACK in time, a transport retry used).
    pub cnt_timeouts: Signal<Out, Bits<32>>,
    /// Counter: QPs whose transport or RNR retries ran out (their transfers failed).
    pub cnt_retries_exhausted: Signal<Out, Bits<32>>,

    segmenter: TxSegmenter<CB, QB, QL>,
    scheduler: Sched<CB, EB, Q>,
    /// A rate per queue: a paced queue's groups are one PMTU, each charged as it is cut, and
    /// the queue stalled in the scheduler while it waits.
    pacers: QueuePacers<Q, PACE_LEAD, PACE_SLACK>,
    generator: TxGenerator<W, K, QL>,
    ack_tracker: AckTracker<CB, QB>,
    ack_ignored: EventCounter,
    history: SendHistory<QB, HB>,
    timer: RetryTimer<QB>,
    /// Timer events waiting for the timer.
    timer_events: Fifo<TimerEventEntry>,
    /// Timer actions waiting for the tracker, and the one handed to it (a register between the
    /// FIFO and the tracker: the FIFO's pop depends on flip-flops only).
    actions: Fifo<ActionEntry>,
    action_held: DFF<Bit>,
    action: DFF<ActionEntry>,
    /// QP commits waiting for their clears: the QP index.
    commits: Fifo<Bits<16>>,
    /// The head commit's clear was taken: by the history, the tracker, the timer's FIFO (the
    /// commit leaves the cycle after all three are set).
    history_cleared: DFF<Bit>,
    tracker_cleared: DFF<Bit>,
    timer_cleared: DFF<Bit>,
    retransmitted: EventCounter,
    timeouts: EventCounter,
    exhausted: EventCounter,
    /// The timer event FIFO takes an entry this cycle: a clear, a notice, a record.
    event_room: Signal<Local, Bit>,
    clear_to_timer: Signal<Local, Bit>,
    notice_taken: Signal<Local, Bit>,
    record_taken: Signal<Local, Bit>,
    commit_done: Signal<Local, Bit>,
    action_room: Signal<Local, Bit>,
    /// The fill bit that says a FIFO has no room for two more entries.
    room_limit: Constant<Bits<5>>,
    at_retransmitted: Constant<Bits<9>>,
    at_read_response: Constant<Bits<9>>,
    at_flushed: Constant<Bits<9>>,
    at_opcode: Constant<Bits<9>>,
    /// A READ response's last packet was taken (the cycle before).
    read_done: DFF<Bit>,
    /// The operation bits of READ response last and only.
    read_last_op: [Constant<Bits<5>>; 2],
    event_code: [Constant<Bits<TIMER_EVENT_BITS>>; 2],
    action_code: [Constant<Bits<TIMER_ACTION_BITS>>; 3],
    /// The segmenter's enqueue, registered on its way to the scheduler: valid.
    enqueue_pending: DFF<Bit>,
    /// The registered enqueue: queue.
    enqueue_queue: DFF<Bits<5>>,
    /// The registered enqueue: element (channel).
    enqueue_elem: DFF<Bits<CB>>,
    /// The segmenter's decision request, registered as its enqueue is.
    decision_request: DFF<Bit>,
    /// A response waits for the generator.
    response_pending: DFF<Bit>,
    /// The waiting response: its QP.
    response_qp: DFF<Bits<24>>,
    /// The waiting response: its PSN.
    response_psn: DFF<Bits<24>>,
    /// The waiting response: its AETH.
    response_aeth: DFF<Bits<32>>,
    /// The descriptor offered to the generator: the response's, else the segmenter's.
    descriptor: Signal<Local, Bits<PACKET_BITS>>,
    /// The generator takes a descriptor this cycle.
    descriptor_taken: Signal<Local, Bit>,
    /// A response's descriptor but its QP, PSN and AETH: opcode Acknowledge, `has_immediate`.
    response_base: Constant<Bits<PACKET_BITS>>,
    at_qp: Constant<Bits<9>>,
    at_psn: Constant<Bits<9>>,
    at_last_psn: Constant<Bits<9>>,
    at_aeth: Constant<Bits<9>>,
    at_channel: Constant<Bits<9>>,
    /// The transport bits of the opcode (7:5).
    at_transport: Constant<Bits<9>>,
    at_last_of_transfer: Constant<Bits<9>>,
    reliable_transport: Constant<Bits<3>>,
    success: Constant<Bits<4>>,
    /// `cfg_addr` bits that select the pacers' costs, and their value there.
    pace_window_mask: Constant<Bits<7>>,
    pace_window: Constant<Bits<7>>,
}

impl<
        const W: usize,
        const K: usize,
        const CB: usize,
        const EB: usize,
        const QB: usize,
        const Q: usize,
        const QL: usize,
        const HB: usize,
    > TxPath<W, K, CB, EB, QB, Q, QL, HB>
{
    /// A TX path that serves `channels` (≤ 2^CB) channels and `qps` (≤ 2^QB) QP contexts with
    /// all `Q` queues.
    pub fn new(channels: u32, qps: u32) -> Self {
        assert_eq!(EB, CB + 1, "EB must be CB + 1");
        Self {
            clock: Default::default(),
            reset: Default::default(),
            init_done: Default::default(),
            cfg_block_log2: Default::default(),
            post_valid: Default::default(),
            post_ready: Default::default(),
            post_entry: Default::default(),
            post_result_valid: Default::default(),
            post_result_code: Default::default(),
            qp_read_index: Default::default(),
            qp_read_entry: Default::default(),
            qp_status_index: Default::default(),
            qp_status_value: Default::default(),
            qp_commit_valid: Default::default(),
            qp_commit_index: Default::default(),
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
            sched_cfg_we: Default::default(),
            sched_cfg_addr: Default::default(),
            sched_cfg_wdata: Default::default(),
            m_read_valid: Default::default(),
            m_read_ready: Default::default(),
            m_read_addr: Default::default(),
            m_read_len: Default::default(),
            s_pay_tvalid: Default::default(),
            s_pay_tready: Default::default(),
            s_pay_tdata: Default::default(),
            s_pay_tkeep: Default::default(),
            s_pay_tlast: Default::default(),
            m_axis_tvalid: Default::default(),
            m_axis_tready: Default::default(),
            m_axis_tdata: Default::default(),
            m_axis_tkeep: Default::default(),
            m_axis_tlast: Default::default(),
            m_packet_valid: Default::default(),
            m_packet_channel: Default::default(),
            m_packet_response: Default::default(),
            m_read_done: Default::default(),
            s_resp_valid: Default::default(),
            s_resp_ready: Default::default(),
            s_resp_qp: Default::default(),
            s_resp_psn: Default::default(),
            s_resp_aeth: Default::default(),
            s_ack_valid: Default::default(),
            s_ack_ready: Default::default(),
            s_ack_qp: Default::default(),
            s_ack_psn: Default::default(),
            s_ack_syndrome: Default::default(),
            cpl_valid: Default::default(),
            cpl_ready: Default::default(),
            cpl_channel: Default::default(),
            cpl_status: Default::default(),
            cnt_channel_busy: Default::default(),
            cnt_bad_channel: Default::default(),
            cnt_bad_queue: Default::default(),
            cnt_bad_qp: Default::default(),
            cnt_qp_not_ready: Default::default(),
            cnt_bad_operation: Default::default(),
            cnt_too_long: Default::default(),
            cnt_sched_dup: Default::default(),
            cnt_sched_bad_queue: Default::default(),
            cnt_ack_ignored: Default::default(),
            cfg_tick_cycles: Default::default(),
            cfg_read_queue: Default::default(),
            s_read_valid: Default::default(),
            s_read_ready: Default::default(),
            s_read_qp: Default::default(),
            s_read_psn: Default::default(),
            s_read_aeth: Default::default(),
            s_read_va: Default::default(),
            s_read_length: Default::default(),
            cnt_retransmitted: Default::default(),
            cnt_timeouts: Default::default(),
            cnt_retries_exhausted: Default::default(),
            history: Default::default(),
            timer: Default::default(),
            timer_events: Default::default(),
            actions: Default::default(),
            action_held: Default::default(),
            action: Default::default(),
            commits: Default::default(),
            history_cleared: Default::default(),
            tracker_cleared: Default::default(),
            timer_cleared: Default::default(),
            retransmitted: Default::default(),
            timeouts: Default::default(),
            exhausted: Default::default(),
            event_room: Default::default(),
            clear_to_timer: Default::default(),
            notice_taken: Default::default(),
            record_taken: Default::default(),
            commit_done: Default::default(),
            action_room: Default::default(),
            room_limit: c::<5>((CAPACITY - 3) as u64),
            at_retransmitted: c::<9>(PACKET.offset("retransmitted") as u64),
            at_read_response: c::<9>(PACKET.offset("read_response") as u64),
            at_flushed: c::<9>(PACKET.offset("flushed") as u64),
            at_opcode: c::<9>(PACKET.offset("opcode") as u64),
            read_done: Default::default(),
            read_last_op: [Operation::ReadResponseLast, Operation::ReadResponseOnly].map(|o| c::<5>(u64::from(o.bits()))),
            event_code: [TimerEvent::Clear, TimerEvent::Sent].map(|e| c::<TIMER_EVENT_BITS>(u64::from(e.code()))),
            action_code: [
                TimerAction::Timeout,
                TimerAction::RetriesExhausted,
                TimerAction::RnrRetriesExhausted,
            ]
            .map(|a| c::<TIMER_ACTION_BITS>(u64::from(a.code()))),
            segmenter: TxSegmenter::new(channels, Q, qps),
            scheduler: Default::default(),
            pacers: Default::default(),
            generator: Default::default(),
            ack_tracker: Default::default(),
            ack_ignored: Default::default(),
            enqueue_pending: Default::default(),
            enqueue_queue: Default::default(),
            enqueue_elem: Default::default(),
            decision_request: Default::default(),
            response_pending: Default::default(),
            response_qp: Default::default(),
            response_psn: Default::default(),
            response_aeth: Default::default(),
            descriptor: Default::default(),
            descriptor_taken: Default::default(),
            response_base: Constant::new(response_base()),
            at_qp: c::<9>(PACKET.offset("qp") as u64),
            at_psn: c::<9>(PACKET.offset("psn") as u64),
            at_last_psn: c::<9>(PACKET.offset("last_psn") as u64),
            at_aeth: c::<9>(PACKET.offset("immediate") as u64),
            at_channel: c::<9>(PACKET.offset("channel") as u64),
            at_transport: c::<9>((PACKET.offset("opcode") + TRANSPORT_SHIFT) as u64),
            at_last_of_transfer: c::<9>(PACKET.offset("last_of_transfer") as u64),
            reliable_transport: c::<3>(u64::from(Transport::Rc.bits())),
            success: c::<4>(u64::from(CompletionStatus::Success.code())),
            pace_window_mask: c::<7>(0x7F & !(sched::MAX_QUEUES as u64 - 1)),
            pace_window: c::<7>(u64::from(sched::PACE_COST_ADDR)),
        }
    }
}

/// A response's descriptor with QP, PSN and AETH 0 (see [`TxPath`]'s responses).
fn response_base() -> Bits<PACKET_BITS> {
    let ack = Opcode::from_parts(Transport::Rc, Operation::Ack).expect("RC has Acknowledge");
    let words = PACKET
        .encode(&[("opcode", u128::from(ack.value())), ("has_immediate", 1)])
        .expect("the opcode and a flag fit their fields");
    bits_from(|i| words[i / 32] >> (i % 32) & 1 != 0)
}

impl<
        const W: usize,
        const K: usize,
        const CB: usize,
        const EB: usize,
        const QB: usize,
        const Q: usize,
        const QL: usize,
        const HB: usize,
    > Default for TxPath<W, K, CB, EB, QB, Q, QL, HB>
{
    /// Every channel and QP of the address widths.
    fn default() -> Self {
        Self::new(1 << CB, 1 << QB)
    }
}

impl<
        const W: usize,
        const K: usize,
        const CB: usize,
        const EB: usize,
        const QB: usize,
        const Q: usize,
        const QL: usize,
        const HB: usize,
    > Logic for TxPath<W, K, CB, EB, QB, Q, QL, HB>
{
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            read_done,
            enqueue_pending,
            enqueue_queue,
            enqueue_elem,
            decision_request,
            response_pending,
            response_qp,
            response_psn,
            response_aeth,
            history_cleared,
            tracker_cleared,
            timer_cleared,
            action_held,
            action
        );
        clock!(
            self,
            clock,
            segmenter,
            scheduler,
            generator,
            ack_tracker,
            ack_ignored,
            history,
            timer,
            timer_events,
            actions,
            commits,
            retransmitted,
            timeouts,
            exhausted
        );
        self.history.reset.next = self.reset.val();
        self.timer.reset.next = self.reset.val();
        self.timer_events.reset.next = self.reset.val();
        self.actions.reset.next = self.reset.val();
        self.commits.reset.next = self.reset.val();
        self.retransmitted.reset.next = self.reset.val();
        self.timeouts.reset.next = self.reset.val();
        self.exhausted.reset.next = self.reset.val();
        self.ack_tracker.reset.next = self.reset.val();
        self.ack_ignored.reset.next = self.reset.val();
        self.segmenter.reset.next = self.reset.val();
        self.scheduler.reset.next = self.reset.val();
        self.generator.reset.next = self.reset.val();
        self.init_done.next = self.segmenter.init_done.val()
            && self.scheduler.init_done.val()
            && self.ack_tracker.init_done.val()
            && self.history.init_done.val()
            && self.timer.init_done.val();

        // ---- posts, configuration ----
        self.segmenter.cfg_block_log2.next = self.cfg_block_log2.val();
        self.segmenter.cfg_read_queue.next = self.cfg_read_queue.val();
        self.segmenter.read_valid.next = self.s_read_valid.val();
        self.s_read_ready.next = self.segmenter.read_ready.val();
        self.segmenter.read_qp.next = self.s_read_qp.val().get_bits::<QB>(0);
        self.segmenter.read_psn.next = self.s_read_psn.val();
        self.segmenter.read_aeth.next = self.s_read_aeth.val();
        self.segmenter.read_va.next = self.s_read_va.val();
        self.segmenter.read_length.next = self.s_read_length.val();
        self.segmenter.post_valid.next = self.post_valid.val();
        self.post_ready.next = self.segmenter.post_ready.val();
        self.segmenter.post_entry.next = self.post_entry.val();
        self.post_result_valid.next = self.segmenter.post_result_valid.val();
        self.post_result_code.next = self.segmenter.post_result_code.val();
        self.segmenter.qp_commit_valid.next = self.qp_commit_valid.val();
        self.segmenter.qp_commit_index.next = self.qp_commit_index.val();
        self.scheduler.cfg_we.next = self.sched_cfg_we.val();
        self.scheduler.cfg_addr.next = self.sched_cfg_addr.val();
        self.scheduler.cfg_wdata.next = self.sched_cfg_wdata.val();
        self.pacers.clock.next = self.clock.val();
        self.pacers.reset.next = self.reset.val();
        self.pacers.cfg_we.next =
            self.sched_cfg_we.val() & ((self.sched_cfg_addr.val() & self.pace_window_mask.val()) == self.pace_window.val());
        self.pacers.cfg_queue.next = self.sched_cfg_addr.val().get_bits::<5>(0);
        self.pacers.cfg_cost.next = self.sched_cfg_wdata.val();
        self.pacers.charge_valid.next = self.segmenter.charge_valid.val();
        self.pacers.charge_queue.next = self.segmenter.charge_queue.val();
        self.pacers.charge_bytes.next = self.segmenter.charge_bytes.val();
        self.segmenter.paced_queues.next = bit_cast::<32, Q>(self.pacers.paced_queues.val());

        // ---- segmenter and scheduler: requester 0 enqueues, the others are idle ----
        // The enqueue and the decision request pass one register each (the segmenter's state
        // decode and the scheduler's first stage do not fit 6 levels together); both are
        // delayed alike, so the scheduler sees them in the segmenter's order and spacing.
        self.segmenter.enq_ready.next = !self.enqueue_pending.q.val() || self.scheduler.enq0_ready.val();
        self.enqueue_pending.d.next = self.enqueue_pending.q.val() && !self.scheduler.enq0_ready.val();
        if self.segmenter.enq_valid.val() && self.segmenter.enq_ready.val() {
            self.enqueue_pending.d.next = true;
            self.enqueue_queue.d.next = self.segmenter.enq_queue.val();
            self.enqueue_elem.d.next = self.segmenter.enq_elem.val();
        }
        self.decision_request.d.next = self.segmenter.deq_req.val();
        if self.reset.val() {
            self.enqueue_pending.d.next = false;
            self.decision_request.d.next = false;
        }
        self.scheduler.enq0_valid.next = self.enqueue_pending.q.val();
        self.scheduler.enq0_queue.next = self.enqueue_queue.q.val();
        self.scheduler.enq0_elem.next = self.enqueue_elem.q.val();
        self.scheduler.enq1_valid.next = false;
        self.scheduler.enq1_queue.next = 0.into();
        self.scheduler.enq1_elem.next = 0.into();
        self.scheduler.enq2_valid.next = false;
        self.scheduler.enq2_queue.next = 0.into();
        self.scheduler.enq2_elem.next = 0.into();
        self.scheduler.enq3_valid.next = false;
        self.scheduler.enq3_queue.next = 0.into();
        self.scheduler.enq3_elem.next = 0.into();
        self.scheduler.stall.next = bit_cast::<32, Q>(self.pacers.paused.val());
        self.scheduler.deq_req.next = self.decision_request.q.val();
        self.segmenter.deq_valid.next = self.scheduler.deq_valid.val();
        self.segmenter.deq_ok.next = self.scheduler.deq_ok.val();
        self.segmenter.deq_queue.next = self.scheduler.deq_queue.val();
        self.segmenter.deq_elem.next = self.scheduler.deq_elem.val();

        // ---- responses: one waits (its descriptor is built from the contract's offsets below) ----
        self.s_resp_ready.next = !self.response_pending.q.val();
        if self.s_resp_valid.val() && !self.response_pending.q.val() {
            self.response_qp.d.next = self.s_resp_qp.val();
            self.response_psn.d.next = self.s_resp_psn.val();
            self.response_aeth.d.next = self.s_resp_aeth.val();
        }

        // ---- the generator's descriptors: a response first; none while the segmenter reads
        // the QP context port ----
        self.generator.s_desc_valid.next =
            !self.segmenter.qp_read_valid.val() && (self.response_pending.q.val() || self.segmenter.m_desc_valid.val());
        self.segmenter.m_desc_ready.next =
            self.generator.s_desc_ready.val() && !self.segmenter.qp_read_valid.val() && !self.response_pending.q.val();
        self.descriptor.next = self.segmenter.m_desc.val();
        if self.response_pending.q.val() {
            self.descriptor.next = self.response_base.val()
                | (bit_cast::<PACKET_BITS, 24>(self.response_qp.q.val()) << self.at_qp.val())
                | (bit_cast::<PACKET_BITS, 24>(self.response_psn.q.val()) << self.at_psn.val())
                | (bit_cast::<PACKET_BITS, 32>(self.response_aeth.q.val()) << self.at_aeth.val());
        }
        self.generator.s_desc.next = self.descriptor.val();
        self.qp_read_index.next = self.generator.qp_read_index.val().get_bits::<QB>(0);
        if self.segmenter.qp_read_valid.val() {
            self.qp_read_index.next = self.segmenter.qp_read_index.val();
        }
        self.segmenter.qp_read_entry.next = self.qp_read_entry.val();
        // a QP's error state: the segmenter's posts and the host's reads
        self.ack_tracker.post_qp.next = self.segmenter.qp_read_index.val();
        self.segmenter.qp_failure.next = self.ack_tracker.post_qp_failure.val();
        // RDMA READ: the requests to the READ tracker, its `done` back
        self.segmenter.read_done_valid.next = self.read_done_valid.val();
        self.read_done_ready.next = self.segmenter.read_done_ready.val();
        self.segmenter.read_done_qp.next = self.read_done_qp.val();
        self.segmenter.read_done_cleared.next = self.read_done_cleared.val();
        self.read_sent_valid.next = self.segmenter.read_sent_valid.val();
        self.segmenter.read_sent_ready.next = self.read_sent_ready.val();
        self.read_sent_qp.next = self.segmenter.read_sent_qp.val();
        self.read_sent_first_psn.next = self.segmenter.read_sent_first_psn.val();
        self.read_sent_last_psn.next = self.segmenter.read_sent_last_psn.val();
        self.read_sent_local_address.next = self.segmenter.read_sent_local_address.val();
        self.read_sent_length.next = self.segmenter.read_sent_length.val();
        self.read_sent_pmtu.next = self.segmenter.read_sent_pmtu.val();
        self.read_sent_again.next = self.segmenter.read_sent_again.val();
        self.read_sent_generation.next = self.segmenter.read_sent_generation.val();
        self.ack_tracker.status_qp.next = self.qp_status_index.val();
        self.qp_status_value.next = self.ack_tracker.status_failure.val();
        self.generator.qp_read_entry.next = self.qp_read_entry.val();
        // (`qp_read_valid` is a register of the segmenter.) From the segmenter's outputs, not
        // the generator's input: Verilator orders the two blocks' logic without a loop only if
        // this block does not read what it drives.
        self.descriptor_taken.next = (self.response_pending.q.val() || self.segmenter.m_desc_valid.val())
            && !self.segmenter.qp_read_valid.val()
            && self.generator.s_desc_ready.val();
        self.m_packet_valid.next = self.descriptor_taken.val();
        self.m_packet_channel.next = self.descriptor.val().get_bits::<16>(self.at_channel.val().index());
        self.m_packet_response.next = self.response_pending.q.val();
        // (a READ response's last packet: READ response last 0x0F or only 0x10, bits 4:0)
        // (a register: the engine reads it in the block that drives `s_resp_valid`)
        self.read_done.d.next = self.descriptor_taken.val()
            && !self.response_pending.q.val()
            && self.descriptor.val().get_bit(self.at_read_response.val().index())
            && ((self.descriptor.val().get_bits::<5>(self.at_opcode.val().index()) == self.read_last_op[0].val())
                || (self.descriptor.val().get_bits::<5>(self.at_opcode.val().index()) == self.read_last_op[1].val()));
        self.m_read_done.next = self.read_done.q.val();
        // a waiting response is the descriptor taken; a new one is taken when none waits
        self.response_pending.d.next =
            (self.response_pending.q.val() && !self.descriptor_taken.val()) || (self.s_resp_valid.val() && !self.response_pending.q.val());
        if self.reset.val() {
            self.response_pending.d.next = false;
        }

        // ---- memory ----
        self.m_read_valid.next = self.segmenter.m_read_valid.val();
        self.segmenter.m_read_ready.next = self.m_read_ready.val();
        self.m_read_addr.next = self.segmenter.m_read_addr.val();
        self.m_read_len.next = self.segmenter.m_read_len.val();
        self.generator.s_pay_tvalid.next = self.s_pay_tvalid.val();
        self.s_pay_tready.next = self.generator.s_pay_tready.val();
        self.generator.s_pay_tdata.next = self.s_pay_tdata.val();
        self.generator.s_pay_tkeep.next = self.s_pay_tkeep.val();
        self.generator.s_pay_tlast.next = self.s_pay_tlast.val();

        // ---- frames, completions ----
        self.m_axis_tvalid.next = self.generator.m_axis_tvalid.val();
        self.generator.m_axis_tready.next = self.m_axis_tready.val();
        self.m_axis_tdata.next = self.generator.m_axis_tdata.val();
        self.m_axis_tkeep.next = self.generator.m_axis_tkeep.val();
        self.m_axis_tlast.next = self.generator.m_axis_tlast.val();

        // ---- completions: UC when the last frame has left, RC when acknowledged ----
        // (a packet sent again is not new: it would move the QP's window back; a READ
        // response's PSN is the responder's)
        self.ack_tracker.packet_valid.next = self.descriptor_taken.val()
            && !self.response_pending.q.val()
            && !self.descriptor.val().get_bit(self.at_retransmitted.val().index())
            && !self.descriptor.val().get_bit(self.at_read_response.val().index());
        self.retransmitted.increment.next = self.descriptor_taken.val()
            && !self.response_pending.q.val()
            && self.descriptor.val().get_bit(self.at_retransmitted.val().index());
        self.ack_tracker.packet_channel.next = self.descriptor.val().get_bits::<16>(self.at_channel.val().index());
        self.ack_tracker.packet_qp.next = self.descriptor.val().get_bits::<24>(self.at_qp.val().index());
        // (a READ request's: the last PSN its response takes)
        self.ack_tracker.packet_psn.next = self.descriptor.val().get_bits::<24>(self.at_last_psn.val().index());
        self.ack_tracker.packet_last.next = self.descriptor.val().get_bit(self.at_last_of_transfer.val().index());
        self.ack_tracker.packet_reliable.next =
            self.descriptor.val().get_bits::<3>(self.at_transport.val().index()) == self.reliable_transport.val();
        self.ack_tracker.packet_flushed.next = self.descriptor.val().get_bit(self.at_flushed.val().index());
        self.ack_tracker.sent_valid.next = self.generator.cpl_valid.val();
        self.generator.cpl_ready.next = self.ack_tracker.sent_ready.val();
        self.ack_tracker.sent_channel.next = self.generator.cpl_channel.val();
        self.ack_tracker.sent_status.next = self.success.val();
        self.ack_tracker.ack_valid.next = self.s_ack_valid.val();
        self.s_ack_ready.next = self.ack_tracker.ack_ready.val();
        self.ack_tracker.ack_qp.next = self.s_ack_qp.val();
        self.ack_tracker.ack_psn.next = self.s_ack_psn.val();
        self.ack_tracker.ack_syndrome.next = self.s_ack_syndrome.val();
        // completions: the tracker's first, then a failed QP's transfer the segmenter flushed
        self.cpl_valid.next = self.ack_tracker.cpl_valid.val() || self.segmenter.flush_valid.val();
        self.ack_tracker.cpl_ready.next = self.cpl_ready.val();
        self.segmenter.flush_ready.next = self.cpl_ready.val() && !self.ack_tracker.cpl_valid.val();
        self.cpl_channel.next = self.segmenter.flush_channel.val();
        self.cpl_status.next = self.segmenter.flush_status.val();
        if self.ack_tracker.cpl_valid.val() {
            self.cpl_channel.next = self.ack_tracker.cpl_channel.val();
            self.cpl_status.next = self.ack_tracker.cpl_status.val();
        }
        self.segmenter.done_valid.next = self.ack_tracker.cpl_valid.val() && self.cpl_ready.val();
        self.segmenter.done_channel.next = self.ack_tracker.cpl_channel.val();
        self.ack_ignored.increment.next = self.ack_tracker.ignored.val();

        // ---- going back N: the history and the segmenter (records, replays, fullness) ----
        self.timer.cfg_tick_cycles.next = self.cfg_tick_cycles.val();
        self.history.full_qp.next = self.segmenter.history_full_qp.val();
        self.segmenter.history_full.next = self.history.full.val();
        self.segmenter.replaying.next = self.history.replaying.val();
        self.segmenter.replay_valid.next = self.history.replay_valid.val();
        self.history.replay_ready.next = self.segmenter.replay_ready.val();
        self.segmenter.replay_qp.next = self.history.replay_qp.val();
        self.segmenter.replay_block.next = self.history.replay_block.val();
        self.segmenter.replay_first_psn.next = self.history.replay_first_psn.val();
        self.segmenter.replay_skip.next = self.history.replay_skip.val();
        self.history.record_qp.next = self.segmenter.record_qp.val();
        self.history.record_block.next = self.segmenter.record_block.val();
        self.history.record_first_psn.next = self.segmenter.record_first_psn.val();
        self.history.record_last_psn.next = self.segmenter.record_last_psn.val();
        // the tracker: releases, rewinds, timer actions (through their FIFO)
        self.history.release_valid.next = self.ack_tracker.release_valid.val();
        self.ack_tracker.release_ready.next = self.history.release_ready.val();
        self.history.release_qp.next = self.ack_tracker.release_qp.val();
        self.history.release_psn.next = self.ack_tracker.release_psn.val();
        self.history.rewind_valid.next = self.ack_tracker.rewind_valid.val();
        self.ack_tracker.rewind_ready.next = self.history.rewind_ready.val();
        self.history.rewind_qp.next = self.ack_tracker.rewind_qp.val();
        self.history.rewind_psn.next = self.ack_tracker.rewind_psn.val();
        self.history.rewind_whole.next = self.ack_tracker.rewind_whole.val();
        self.action_room.next = !self.actions.fill.val().get_bit(self.room_limit.val().index());
        self.timer.action_ready.next = self.action_room.val();
        self.actions.push.next = self.timer.action_valid.val() && self.action_room.val();
        self.actions.push_value.next.qp = self.timer.action_qp.val().get_bits::<16>(0);
        self.actions.push_value.next.kind = self.timer.action_kind.val();
        self.actions.pop.next = self.actions.head_valid.val() && !self.action_held.q.val();
        if self.actions.pop.val() {
            self.action_held.d.next = true;
            self.action.d.next = self.actions.head.val();
        }
        self.ack_tracker.action_valid.next = self.action_held.q.val();
        self.ack_tracker.action_qp.next = bit_cast::<24, 16>(self.action.q.val().qp);
        self.ack_tracker.action_kind.next = self.action.q.val().kind;
        if (self.action_held.q.val() && self.ack_tracker.action_ready.val()) || self.reset.val() {
            self.action_held.d.next = false;
        }
        self.timeouts.increment.next = self.actions.push.val() && (self.timer.action_kind.val() == self.action_code[0].val());
        self.exhausted.increment.next = self.actions.push.val()
            && ((self.timer.action_kind.val() == self.action_code[1].val()) || (self.timer.action_kind.val() == self.action_code[2].val()));
        // QP commits: each waits until the history, the tracker and the timer cleared the QP
        self.commits.push.next = self.qp_commit_valid.val();
        self.commits.push_value.next = bit_cast::<16, QB>(self.qp_commit_index.val());
        self.history.clear_valid.next = self.commits.head_valid.val() && !self.history_cleared.q.val();
        self.history.clear_qp.next = self.commits.head.val().get_bits::<QB>(0);
        self.ack_tracker.clear_valid.next = self.commits.head_valid.val() && !self.tracker_cleared.q.val();
        self.ack_tracker.clear_qp.next = self.commits.head.val().get_bits::<QB>(0);
        // timer events, one FIFO: a clear first, then the tracker's notices, then `sent` (taken
        // with the packetizer's record of its block)
        self.event_room.next = !self.timer_events.fill.val().get_bit(self.room_limit.val().index());
        self.clear_to_timer.next = self.commits.head_valid.val() && !self.timer_cleared.q.val() && self.event_room.val();
        self.notice_taken.next = self.ack_tracker.notice_valid.val() && self.event_room.val() && !self.clear_to_timer.val();
        // (from the history's state, not its `record_ready`: that depends on the clear and the
        // release this block drives, and Verilator would see a loop through the history's block;
        // the tracker's last PSN sent takes it too: never while a notice waits, whose `idle`
        // must reach the timer before this `sent`, nor while a QP commit is under way)
        self.history.record_valid.next = self.segmenter.record_valid.val()
            && self.event_room.val()
            && !self.commits.head_valid.val()
            && !self.ack_tracker.notice_valid.val()
            && self.ack_tracker.record_ready.val();
        self.record_taken.next = self.history.record_valid.val() && self.history.idle.val() && !self.ack_tracker.release_valid.val();
        self.ack_tracker.record_valid.next = self.record_taken.val();
        self.ack_tracker.record_qp.next = self.segmenter.record_qp.val();
        self.ack_tracker.record_last_psn.next = self.segmenter.record_last_psn.val();
        self.ack_tracker.notice_ready.next = self.notice_taken.val();
        self.segmenter.record_ready.next = self.record_taken.val();
        self.timer_events.push.next = self.clear_to_timer.val() || self.notice_taken.val() || self.record_taken.val();
        self.timer_events.push_value.next.qp = self.commits.head.val();
        self.timer_events.push_value.next.kind = self.event_code[0].val();
        self.timer_events.push_value.next.timeout = 0.into();
        self.timer_events.push_value.next.retry = 0.into();
        self.timer_events.push_value.next.rnr_retry = 0.into();
        self.timer_events.push_value.next.rnr_timer = self.ack_tracker.notice_rnr_timer.val();
        if !self.clear_to_timer.val() {
            if self.ack_tracker.notice_valid.val() {
                self.timer_events.push_value.next.qp = bit_cast::<16, QB>(self.ack_tracker.notice_qp.val());
                self.timer_events.push_value.next.kind = self.ack_tracker.notice_kind.val();
            } else {
                self.timer_events.push_value.next.qp = bit_cast::<16, QB>(self.segmenter.record_qp.val());
                self.timer_events.push_value.next.kind = self.event_code[1].val();
                self.timer_events.push_value.next.timeout = self.segmenter.record_timeout.val();
                self.timer_events.push_value.next.retry = self.segmenter.record_retry.val();
                self.timer_events.push_value.next.rnr_retry = self.segmenter.record_rnr_retry.val();
            }
        }
        self.timer.event_valid.next = self.timer_events.head_valid.val();
        self.timer.event_qp.next = bit_cast::<24, 16>(self.timer_events.head.val().qp);
        self.timer.event_kind.next = self.timer_events.head.val().kind;
        self.timer.event_timeout.next = self.timer_events.head.val().timeout;
        self.timer.event_retry.next = self.timer_events.head.val().retry;
        self.timer.event_rnr_retry.next = self.timer_events.head.val().rnr_retry;
        self.timer.event_rnr_timer.next = self.timer_events.head.val().rnr_timer;
        self.timer_events.pop.next = self.timer_events.head_valid.val() && self.timer.event_ready.val();
        // the head commit leaves the cycle after all three have cleared its QP
        self.commit_done.next = self.history_cleared.q.val() && self.tracker_cleared.q.val() && self.timer_cleared.q.val();
        self.commits.pop.next = self.commits.head_valid.val() && self.commit_done.val();
        if self.history.clear_valid.val() && self.history.clear_ready.val() {
            self.history_cleared.d.next = true;
        }
        if self.ack_tracker.clear_valid.val() && self.ack_tracker.clear_ready.val() {
            self.tracker_cleared.d.next = true;
        }
        if self.clear_to_timer.val() {
            self.timer_cleared.d.next = true;
        }
        if self.commit_done.val() || self.reset.val() {
            self.history_cleared.d.next = false;
            self.tracker_cleared.d.next = false;
            self.timer_cleared.d.next = false;
        }

        // ---- counters ----
        self.cnt_channel_busy.next = self.segmenter.cnt_channel_busy.val();
        self.cnt_bad_channel.next = self.segmenter.cnt_bad_channel.val();
        self.cnt_bad_queue.next = self.segmenter.cnt_bad_queue.val();
        self.cnt_bad_qp.next = self.segmenter.cnt_bad_qp.val();
        self.cnt_qp_not_ready.next = self.segmenter.cnt_qp_not_ready.val();
        self.cnt_bad_operation.next = self.segmenter.cnt_bad_operation.val();
        self.cnt_too_long.next = self.segmenter.cnt_too_long.val();
        self.cnt_sched_dup.next = self.scheduler.cnt_dup.val();
        self.cnt_sched_bad_queue.next = self.scheduler.cnt_bad_queue.val();
        self.cnt_ack_ignored.next = self.ack_ignored.count.val();
        self.cnt_retransmitted.next = self.retransmitted.count.val();
        self.cnt_timeouts.next = self.timeouts.count.val();
        self.cnt_retries_exhausted.next = self.exhausted.count.val();
    }
}
