//! The TX path's golden model: transfer posts in, RoCEv2 frames out, as the RTL (transfer table,
//! scheduler, segmenter, packetizer, packet generator, `IcrcInsert`) must produce them. The
//! specification is `docs/tx.md`; each step is a module:
//!
//! 1. **Posts** ([`TxSetup::admit`]): checked in order, accepted ones enqueued in their queue
//!    (channel = scheduler element), all before the first decision.
//! 2. **Decisions** ([`arbiter`]): the scheduler model picks a queue; its head transfer cuts one
//!    block and, while bytes remain, goes back to its queue's tail before the next decision.
//! 3. **Blocks** ([`segment`]): WRITE blocks aligned to the remote address, one WRITE message
//!    each; a SEND is one message scheduled in block-sized groups.
//! 4. **Packets** ([`packetize`]): PMTU packets from the message start, opcodes, PSN, AckReq,
//!    RETH, ImmDt, SE.
//! 5. **Frames** ([`frame`]): Ethernet / IPv4 or IPv6 / UDP / BTH / \[RETH\] / \[ImmDt\] / payload
//!    from local memory ([`memory`]) / pad / ICRC.
//!
//! **Responses**: the ACKs and NAKs of the responder ([`TxSetup::responses`]) are packets of
//! the control class that belong to no transfer ([`TxPacket::response`]): each leaves as one
//! frame, ahead of the data packets not yet started, so its place among the data frames depends
//! on timing. The model gives them apart ([`TxRun::responses`]), in their order.
//!
//! Per-QP order: a QP's messages leave whole and in PSN order. A WRITE block is a whole message
//! emitted in one decision; a SEND message spread over several groups holds its QP until its
//! last group: a decision that picks another transfer of that QP cuts nothing and puts it back at
//! its queue's tail. No transfer overtakes a message or a control-queue transfer posted before
//! it on its QP ([`MessageLines`]): those wait in their QP's line, off the scheduler, and so does
//! any transfer posted while the line is not empty; the next is enqueued when the one before it
//! is cut whole. So a control-queue transfer never finds its QP held (it would go round the
//! control queue, which the scheduler serves first, always, and the data queues never again).
//!
//! The model and the RTL runner implement [`TxEngine`], so the command line and the checks run
//! on either.
//!
//! ```
//! use ferroce_models::contracts::tx::{Pmtu, PostOp, QpState};
//! use ferroce_models::tx::{Post, QpContext, TxEngine, TxModel, TxSetup};
//!
//! let mut setup = TxSetup::default();
//! let ctx = QpContext {
//!     state: QpState::Rts.code(),
//!     pmtu: Pmtu::B1024.code(),
//!     src_ip: 0x0a00_0001,
//!     dst_ip: 0x0a00_0002,
//!     ..QpContext::default()
//! };
//! setup.contexts.insert(1, ctx);
//! setup.posts.push(Post { channel: 0, queue: 1, op: PostOp::Write.code(), qp: 1, length: 3000, ..Post::default() });
//! let run = TxModel.run(&setup).unwrap();
//! assert_eq!(run.post_results, [Ok(())]);
//! assert_eq!(run.frames.len(), 3); // 1024 + 1024 + 952 bytes
//! ```

pub mod acknowledge;
pub mod arbiter;
pub mod frame;
pub mod history;
pub mod memory;
pub mod packetize;
pub mod qos;
pub mod read_tracker;
pub mod record;
pub mod requester;
pub mod retry;
pub mod segment;
pub mod spec;

pub use memory::{LocalMemory, PatternMemory, SparseMemory};
pub use packetize::{QpSender, TxPacket};
pub use record::{Post, QpContext};

use crate::contracts::tx::{
    CompletionStatus, PostError, PostOp, QpState, BLOCK_LOG2_DEFAULT, BLOCK_LOG2_MAX, BLOCK_LOG2_MIN, MAX_MESSAGE_BYTES,
};
use crate::responder::{ReadResponse, Response};
use crate::sched::{QueueCfg, CONTROL_QUEUE, LIMIT_RESET, MAX_QUEUES};
use crate::wire::opcode::Transport;
use arbiter::Arbiter;
use segment::Transfer;
use std::collections::{BTreeMap, HashMap, HashSet, VecDeque};
use std::fmt;
use std::sync::Arc;

/// Channels of the default transfer table.
pub const DEFAULT_CHANNELS: u32 = 2048;
/// Scheduler queues of the default configuration.
pub const DEFAULT_QUEUES: usize = 32;
/// QP contexts of the default configuration.
pub const DEFAULT_QPS: u32 = 256;
/// Largest channel count: the post's channel field has 16 bits.
pub const MAX_CHANNELS: u32 = 1 << 16;
/// Largest QP count: the post's QP field has 24 bits.
pub const MAX_QPS: u32 = 1 << 24;

/// Everything a TX run starts from: the configuration, the QP contexts, the scheduler's
/// registers, the posts (in order) and local memory.
#[derive(Debug, Clone)]
pub struct TxSetup {
    /// log2 of the block size (12..=20).
    pub block_log2: u32,
    /// Channels (transfer table entries, scheduler elements): 1..=65536.
    pub channels: u32,
    /// Scheduler queues: 1..=32 (queue 0 is the control class).
    pub queues: usize,
    /// QP contexts: 1..=2^24.
    pub qps: u32,
    /// QP contexts by QP number (< `qps`); a QP without one is all zero, in reset.
    pub contexts: BTreeMap<u32, QpContext>,
    /// Scheduler queue configuration (weight, table, token bucket) by queue (< `queues`); a
    /// queue without one keeps its reset value (weight 1, high table, no token bucket).
    pub queue_config: BTreeMap<u32, QueueCfg>,
    /// The scheduler's limit of high priority.
    pub limit: u8,
    /// Pacer costs by queue (cycles per byte, `PACE_FRACTION_BITS` fraction bits); a queue
    /// without one, or with 0, is not paced. A paced queue's transfers are cut in groups of one
    /// PMTU (a WRITE's aligned to the remote address), each its own block; when they leave
    /// is the pacers' (`ferroce_models::stream::Pacer`), not this model's.
    pub pace_costs: BTreeMap<u32, u32>,
    /// The posts, in order; all are made before the first decision.
    pub posts: Vec<Post>,
    /// The responder's ACKs and NAKs to send, in order (each on its QP's context).
    pub responses: Vec<Response>,
    /// The responder's READ responses to send, in order, on the responder channel (the last
    /// channel) in `read_response_queue`; the first is enqueued after the posts, each next one
    /// when the one before has had its last group cut.
    pub read_responses: Vec<ReadResponse>,
    /// The scheduler queue of the READ responses (data, not the control class).
    pub read_response_queue: u8,
    /// Local memory: the payload source.
    pub memory: Arc<dyn LocalMemory>,
}

impl Default for TxSetup {
    /// 64 KiB blocks, 2048 channels, 32 queues, 256 QPs, no context, reset scheduler registers,
    /// no post, [`PatternMemory`] of seed 0.
    fn default() -> TxSetup {
        TxSetup {
            block_log2: BLOCK_LOG2_DEFAULT,
            channels: DEFAULT_CHANNELS,
            queues: DEFAULT_QUEUES,
            qps: DEFAULT_QPS,
            contexts: BTreeMap::new(),
            queue_config: BTreeMap::new(),
            limit: LIMIT_RESET,
            pace_costs: BTreeMap::new(),
            posts: Vec::new(),
            responses: Vec::new(),
            read_responses: Vec::new(),
            read_response_queue: crate::contracts::tx::DEFAULT_READ_RESPONSE_QUEUE as u8,
            memory: Arc::new(PatternMemory::new(0)),
        }
    }
}

/// Why a run could not be made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TxError {
    /// The block size log2 is not in 12..=20.
    BlockSize(u32),
    /// The channel count is not in 1..=65536.
    Channels(u32),
    /// The queue count is not in 1..=32.
    Queues(usize),
    /// The QP count is not in 1..=2^24.
    Qps(u32),
    /// A context for a QP at or beyond the QP count.
    ContextBeyondQps(u32),
    /// A queue configuration for a queue at or beyond the queue count.
    ConfigBeyondQueues(u32),
    /// A response on a QP at or beyond the QP count.
    ResponseBeyondQps(u32),
    /// The READ response queue is beyond the queue count or the control class (0).
    ReadResponseQueue(u8),
    /// The scheduler model failed (it stopped answering).
    Scheduler(String),
    /// This many decisions in a row found their QP held by another transfer's message: the
    /// message sits in a queue that is never served.
    Held(u32),
}

/// Decisions in a row that find their QP held before the model gives up.
const HELD_LIMIT: u32 = 1 << 20;

impl fmt::Display for TxError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TxError::Held(n) => write!(
                f,
                "{n} decisions in a row found their QP held: the message holding it is in a queue never served"
            ),
            TxError::BlockSize(l) => write!(
                f,
                "block size 2^{l} is not 4 KiB to 1 MiB (log2 {BLOCK_LOG2_MIN}..={BLOCK_LOG2_MAX})"
            ),
            TxError::Channels(n) => write!(f, "{n} channels is not 1..={MAX_CHANNELS}"),
            TxError::Queues(n) => write!(f, "{n} queues is not 1..={MAX_QUEUES}"),
            TxError::Qps(n) => write!(f, "{n} QPs is not 1..={MAX_QPS}"),
            TxError::ContextBeyondQps(q) => write!(f, "a context for QP {q}, beyond the QP count"),
            TxError::ConfigBeyondQueues(q) => write!(f, "a configuration for queue {q}, beyond the queue count"),
            TxError::ResponseBeyondQps(q) => write!(f, "a response on QP {q}, beyond the QP count"),
            TxError::ReadResponseQueue(q) => write!(f, "READ responses in queue {q}: not a data queue (1 to the queue count - 1)"),
            TxError::Scheduler(e) => write!(f, "scheduler: {e}"),
        }
    }
}

impl std::error::Error for TxError {}

impl TxSetup {
    /// Checks the configuration (the posts are checked one by one by [`TxSetup::admit`]).
    pub fn check(&self) -> Result<(), TxError> {
        if !(BLOCK_LOG2_MIN..=BLOCK_LOG2_MAX).contains(&self.block_log2) {
            return Err(TxError::BlockSize(self.block_log2));
        }
        if !(1..=MAX_CHANNELS).contains(&self.channels) {
            return Err(TxError::Channels(self.channels));
        }
        if !(1..=MAX_QUEUES).contains(&self.queues) {
            return Err(TxError::Queues(self.queues));
        }
        if !(1..=MAX_QPS).contains(&self.qps) {
            return Err(TxError::Qps(self.qps));
        }
        if let Some(&qp) = self.contexts.keys().find(|&&qp| qp >= self.qps) {
            return Err(TxError::ContextBeyondQps(qp));
        }
        if let Some(&q) = self.queue_config.keys().find(|&&q| q as usize >= self.queues) {
            return Err(TxError::ConfigBeyondQueues(q));
        }
        if let Some(r) = self.responses.iter().find(|r| r.qp >= self.qps) {
            return Err(TxError::ResponseBeyondQps(r.qp));
        }
        if let Some(r) = self.read_responses.iter().find(|r| r.qp >= self.qps) {
            return Err(TxError::ResponseBeyondQps(r.qp));
        }
        if self.read_response_queue == 0 || usize::from(self.read_response_queue) >= self.queues {
            return Err(TxError::ReadResponseQueue(self.read_response_queue));
        }
        Ok(())
    }

    /// Whether `queue` is paced (its pacer cost is not 0).
    pub fn paced(&self, queue: u32) -> bool {
        self.pace_costs.get(&queue).is_some_and(|&c| c != 0)
    }

    /// log2 of the groups a decision of `queue` cuts: the block size, or the PMTU when the
    /// queue is paced (a context without a PMTU cuts nothing and takes the block size).
    pub fn group_log2(&self, queue: u32, pmtu: Option<crate::contracts::tx::Pmtu>) -> u32 {
        match pmtu {
            Some(p) if self.paced(queue) => p.bytes().trailing_zeros(),
            _ => self.block_log2,
        }
    }

    /// The channel of the READ responses: the last one (refused to the host's posts).
    pub fn responder_channel(&self) -> u16 {
        (self.channels - 1) as u16
    }

    /// The context of `qp` (all zero, a QP in reset, when none was given).
    pub fn context(&self, qp: u32) -> QpContext {
        self.contexts.get(&qp).copied().unwrap_or_default()
    }

    /// Checks a post; `busy`: its channel holds an accepted transfer not yet completed. The
    /// first failing check is the refusal, in this order: channel < channels − 1 (`BadChannel`:
    /// the last channel is the responder's),
    /// queue < queues (`BadQueue`), QP < QPs (`BadQp`), the QP in RTS with a valid path MTU
    /// (`QpNotReady`), a [`PostOp`] code on an RC or UC QP (`BadOperation`), at most
    /// [`MAX_MESSAGE_BYTES`] unless a WRITE cut into blocks (`TooLong`), the channel idle (`ChannelBusy`).
    pub fn admit(&self, post: &Post, busy: bool) -> Result<PostOp, PostError> {
        if u32::from(post.channel) >= self.channels - 1 {
            return Err(PostError::BadChannel);
        }
        if usize::from(post.queue) >= self.queues {
            return Err(PostError::BadQueue);
        }
        if post.qp >= self.qps {
            return Err(PostError::BadQp);
        }
        let ctx = self.context(post.qp);
        if ctx.qp_state() != Some(QpState::Rts) || ctx.path_mtu().is_none() {
            return Err(PostError::QpNotReady);
        }
        let op = post
            .operation()
            .filter(|&op| match ctx.transport_service() {
                Some(Transport::Rc) => true,
                Some(Transport::Uc) => op != PostOp::Read,
                _ => false,
            })
            .ok_or(PostError::BadOperation)?;
        if op.is_length_bounded() && u64::from(post.length) > MAX_MESSAGE_BYTES {
            return Err(PostError::TooLong);
        }
        if busy {
            return Err(PostError::ChannelBusy);
        }
        Ok(op)
    }
}

/// What a TX engine produced.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TxRun {
    /// One result per post, in post order.
    pub post_results: Vec<Result<(), PostError>>,
    /// The frames of the transfers in wire order (Ethernet without FCS, ICRC included, MAC
    /// padding to 60 bytes).
    pub frames: Vec<Vec<u8>>,
    /// The frames of [`TxSetup::responses`], in order (on the wire, among `frames`).
    pub responses: Vec<Vec<u8>>,
    /// Completions `(channel, status)` in the order they were given.
    pub completions: Vec<(u16, CompletionStatus)>,
    /// Bytes of the frames of each queue (index = queue; frame lengths as in `frames`).
    pub queue_bytes: Vec<u64>,
    /// Clock cycles from the first post to the last frame's last beat, when the engine counts
    /// them (the RTL does; the model has no clock).
    pub cycles: Option<u64>,
}

impl TxRun {
    /// Bytes of all frames.
    pub fn bytes(&self) -> u64 {
        self.frames.iter().map(|f| f.len() as u64).sum()
    }
}

/// A TX path that runs a setup: the model ([`TxModel`]) or the Verilator runner of the RTL.
pub trait TxEngine {
    /// Runs every post of `setup` until no queued transfer can be served.
    fn run(&mut self, setup: &TxSetup) -> Result<TxRun, String>;
}

/// The model's result before frames are built: the packets with their headers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TxPlan {
    /// One result per post, in post order.
    pub post_results: Vec<Result<(), PostError>>,
    /// The packets in wire order.
    pub packets: Vec<TxPacket>,
    /// Completions `(channel, status)`, each right after its transfer's last packet.
    pub completions: Vec<(u16, CompletionStatus)>,
    /// The pacers' charges `(queue, bytes)`: one per group of a paced queue, in cut order.
    pub charges: Vec<(u8, u32)>,
}

impl TxPlan {
    /// The packet descriptors ([`PACKET`](crate::contracts::tx::PACKET)) the packetizer hands
    /// the packet generator, in wire order: a packet is its transfer's last when no later
    /// packet has its channel (a plan holds one transfer per channel: a second post to a busy
    /// channel is refused); a READ response's packets never are (they complete nothing).
    pub fn descriptors(&self) -> Vec<Vec<u32>> {
        let mut last_of_channel: HashMap<u16, usize> = HashMap::new();
        for (i, p) in self.packets.iter().enumerate() {
            last_of_channel.insert(p.channel, i);
        }
        self.packets
            .iter()
            .enumerate()
            .map(|(i, p)| p.descriptor(last_of_channel[&p.channel] == i && !p.is_read_response()))
            .collect()
    }

    /// The memory read commands `(local address, bytes)`: one per packet with payload, in order.
    pub fn reads(&self) -> Vec<(u64, u32)> {
        self.packets
            .iter()
            .filter(|p| p.payload_len > 0)
            .map(|p| (p.local_addr, p.payload_len))
            .collect()
    }
}

/// Per QP, the line that keeps its transfers in post order. A message (SEND, WRITE as one
/// message), a control-queue transfer, and any transfer posted while its QP's line is not
/// empty joins the line: the line's first is on the scheduler, the others wait, off it, and the
/// next is enqueued when the first is cut whole (or completed unsent). A WRITE or READ of a data
/// queue posted while the line is empty joins nothing (its blocks interleave with the QP's
/// other transfers).
#[derive(Debug, Clone, Default)]
pub struct MessageLines {
    /// QP → the transfers `(channel, queue)` waiting behind the line's first; a QP is in the
    /// map while its line is not empty.
    qps: HashMap<u32, VecDeque<(u16, u32)>>,
}

impl MessageLines {
    /// `qp`'s line is not empty: a transfer posted on it now joins it.
    pub fn is_open(&self, qp: u32) -> bool {
        self.qps.contains_key(&qp)
    }

    /// A transfer posted on `qp`, on `channel` in `queue`, joins the line: true if it goes to
    /// the scheduler now (it is the line's first), false if it waits.
    pub fn post(&mut self, qp: u32, channel: u16, queue: u32) -> bool {
        match self.qps.get_mut(&qp) {
            Some(waiting) => {
                waiting.push_back((channel, queue));
                false
            }
            None => {
                self.qps.insert(qp, VecDeque::new());
                true
            }
        }
    }

    /// The first of `qp`'s line is cut whole (or completed unsent): the next one `(channel,
    /// queue)`, which goes to the scheduler now, if any.
    pub fn done(&mut self, qp: u32) -> Option<(u16, u32)> {
        let waiting = self.qps.get_mut(&qp)?;
        let next = waiting.pop_front();
        if next.is_none() {
            self.qps.remove(&qp);
        }
        next
    }
}

/// The golden model of the TX path.
#[derive(Debug, Clone, Copy, Default)]
pub struct TxModel;

impl TxModel {
    /// Admits the posts, runs the decisions and cuts blocks and packets: every header decided,
    /// no payload read.
    pub fn plan(setup: &TxSetup) -> Result<TxPlan, TxError> {
        setup.check()?;
        let mut arbiter = Arbiter::new(setup.channels, setup.queues, &setup.queue_config, setup.limit)?;
        let mut table: HashMap<u16, Transfer> = HashMap::new();
        let mut post_results = Vec::with_capacity(setup.posts.len());
        // a QP's line: its messages, control-queue transfers and whatever is posted behind them
        let mut lines = MessageLines::default();
        let mut in_line: HashSet<u16> = HashSet::new();
        let mut held_in_a_row = 0;
        for post in &setup.posts {
            let admitted = setup.admit(post, table.contains_key(&post.channel));
            if let Ok(op) = admitted {
                table.insert(post.channel, Transfer::new(*post, op));
                let queue = u32::from(post.queue);
                if op.is_one_message() || queue == CONTROL_QUEUE || lines.is_open(post.qp) {
                    in_line.insert(post.channel);
                    if lines.post(post.qp, post.channel, queue) {
                        arbiter.enqueue(queue, u32::from(post.channel));
                    }
                } else {
                    arbiter.enqueue(queue, u32::from(post.channel));
                }
            }
            post_results.push(admitted.map(|_| ()));
        }
        // the READ responses: one at a time on the responder channel
        let responder_channel = setup.responder_channel();
        let mut read_responses = setup.read_responses.iter().copied();
        if let Some(r) = read_responses.next() {
            table.insert(
                responder_channel,
                Transfer::of_read_response(r, responder_channel, setup.read_response_queue),
            );
            arbiter.enqueue(u32::from(setup.read_response_queue), u32::from(responder_channel));
        }

        let mut senders: HashMap<u32, QpSender> = HashMap::new();
        // QP → the channel whose SEND message is in progress on it.
        let mut send_in_progress: HashMap<u32, u16> = HashMap::new();
        let mut packets = Vec::new();
        let mut completions = Vec::new();
        let mut charges = Vec::new();
        while let Some((queue, element)) = arbiter.serve()? {
            let channel = element as u16;
            let transfer = table.get_mut(&channel).expect("only accepted transfers are queued");
            let qp = transfer.post.qp;
            if let Some(response) = transfer.read_response {
                // in the responder's PSN space: it neither holds nor waits for a SEND message
                let block = transfer.next_block(setup.group_log2(queue, setup.context(qp).path_mtu()));
                if setup.paced(queue) {
                    charges.push((queue as u8, block.len as u32));
                }
                let ctx = setup.context(qp);
                packets.extend(packetize::read_response_packets(&response, &block, &ctx, (channel, queue as u8)));
                transfer.advance(&block);
                if !block.last {
                    arbiter.enqueue(queue, element);
                } else if let Some(next) = read_responses.next() {
                    *transfer = Transfer::of_read_response(next, channel, queue as u8);
                    arbiter.enqueue(queue, element);
                } else {
                    table.remove(&channel);
                }
                continue;
            }
            if send_in_progress.get(&qp).is_some_and(|&c| c != channel) {
                held_in_a_row += 1;
                if held_in_a_row >= HELD_LIMIT {
                    return Err(TxError::Held(held_in_a_row));
                }
                arbiter.enqueue(queue, element);
                continue;
            }
            held_in_a_row = 0;
            let ctx = setup.context(qp);
            let (transport, pmtu) = (ctx.transport_service(), ctx.path_mtu());
            let (transport, pmtu) = (transport.expect("admitted"), pmtu.expect("admitted"));
            let block = transfer.next_block(setup.group_log2(queue, Some(pmtu)));
            if setup.paced(queue) {
                charges.push((queue as u8, block.len as u32));
            }
            let part = transfer.message_part(&block, ctx.rkey);
            let sender = senders.entry(qp).or_insert_with(|| QpSender::new(&ctx));
            packets.extend(packetize::packetize(
                &part,
                &ctx,
                transport,
                pmtu,
                sender,
                (channel, queue as u8, qp),
            ));
            transfer.advance(&block);
            if transfer.op.is_one_message() {
                if block.last {
                    send_in_progress.remove(&qp);
                } else {
                    send_in_progress.insert(qp, channel);
                }
            }
            if block.last && in_line.remove(&channel) {
                if let Some((next, next_queue)) = lines.done(qp) {
                    arbiter.enqueue(next_queue, u32::from(next));
                }
            }
            if block.last {
                table.remove(&channel);
                completions.push((channel, CompletionStatus::Success));
            } else {
                arbiter.enqueue(queue, element);
            }
        }
        Ok(TxPlan {
            post_results,
            packets,
            completions,
            charges,
        })
    }
}

impl TxEngine for TxModel {
    fn run(&mut self, setup: &TxSetup) -> Result<TxRun, String> {
        let plan = TxModel::plan(setup).map_err(|e| e.to_string())?;
        let mut queue_bytes = vec![0u64; setup.queues];
        let frames = plan
            .packets
            .iter()
            .map(|p| {
                let frame = frame::frame_bytes(p, &setup.context(p.qp), setup.memory.as_ref());
                queue_bytes[usize::from(p.queue)] += frame.len() as u64;
                frame
            })
            .collect();
        let responses = setup
            .responses
            .iter()
            .map(|r| {
                let ctx = setup.context(r.qp);
                frame::frame_bytes(&TxPacket::response(r, &ctx), &ctx, setup.memory.as_ref())
            })
            .collect();
        Ok(TxRun {
            post_results: plan.post_results,
            frames,
            responses,
            completions: plan.completions,
            queue_bytes,
            cycles: None,
        })
    }
}

#[cfg(test)]
mod tests;
