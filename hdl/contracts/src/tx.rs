//! TX contracts: the QP context the packet generator reads, the transfer post a host writes, and
//! the codes of the TX path (path MTU, QP state, operations, post refusals, completion and channel
//! status).
//!
//! The QP context, the post and the packet descriptor are [`Schema`]s: the RTL keeps a QP context as one packed entry of
//! [`QP_CONTEXT`] in block RAM and takes a post as one packed entry of [`POST`]; the register map
//! exposes both as 32-bit words in the same packing, and the host tool encodes them with
//! [`Schema::encode`].

use crate::schema::Schema;

/// Path MTU: the payload bytes of every first and middle packet. The discriminant is the IBTA
/// (and verbs `ibv_mtu`) code, the value of the QP context's `pmtu` field.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum Pmtu {
    /// 256 bytes (code 1).
    B256 = 1,
    /// 512 bytes (code 2).
    B512 = 2,
    /// 1024 bytes (code 3).
    B1024 = 3,
    /// 2048 bytes (code 4).
    B2048 = 4,
    /// 4096 bytes (code 5).
    B4096 = 5,
}

impl Pmtu {
    /// Every path MTU, smallest first.
    pub const ALL: [Pmtu; 5] = [Pmtu::B256, Pmtu::B512, Pmtu::B1024, Pmtu::B2048, Pmtu::B4096];

    /// The code.
    pub const fn code(self) -> u8 {
        self as u8
    }

    /// Payload bytes of a full packet.
    pub const fn bytes(self) -> u32 {
        128 << self.code()
    }

    /// log2 of [`Pmtu::bytes`].
    pub const fn log2(self) -> u32 {
        7 + self.code() as u32
    }

    /// The path MTU of a code, if it is one.
    pub fn from_code(code: u8) -> Option<Pmtu> {
        Self::ALL.into_iter().find(|p| p.code() == code)
    }

    /// The path MTU of a byte count, if it is one (256, 512, 1024, 2048 or 4096).
    pub fn from_bytes(bytes: u32) -> Option<Pmtu> {
        Self::ALL.into_iter().find(|p| p.bytes() == bytes)
    }
}

/// QP state, numbered as verbs' `ibv_qp_state`. The TX path sends on a QP in [`QpState::Rts`]
/// only.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum QpState {
    /// Reset (0): the QP holds no state.
    Reset = 0,
    /// Initialized (1).
    Init = 1,
    /// Ready to receive (2).
    Rtr = 2,
    /// Ready to send (3).
    Rts = 3,
    /// Send queue drained (4).
    Sqd = 4,
    /// Send queue error (5).
    Sqe = 5,
    /// Error (6): the host must reset the QP.
    Error = 6,
}

impl QpState {
    /// Every state.
    pub const ALL: [QpState; 7] = [
        QpState::Reset,
        QpState::Init,
        QpState::Rtr,
        QpState::Rts,
        QpState::Sqd,
        QpState::Sqe,
        QpState::Error,
    ];

    /// The code (the QP context's `state` field).
    pub const fn code(self) -> u8 {
        self as u8
    }

    /// The state of a code, if it is one.
    pub fn from_code(code: u8) -> Option<QpState> {
        Self::ALL.into_iter().find(|s| s.code() == code)
    }

    /// Lower-case name (`rts`, ...).
    pub const fn name(self) -> &'static str {
        match self {
            QpState::Reset => "reset",
            QpState::Init => "init",
            QpState::Rtr => "rtr",
            QpState::Rts => "rts",
            QpState::Sqd => "sqd",
            QpState::Sqe => "sqe",
            QpState::Error => "error",
        }
    }
}

/// What a post asks for. The discriminant is the post's `op` field.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum PostOp {
    /// SEND: one message into the peer's next receive buffer (0).
    Send = 0,
    /// SEND with immediate (1).
    SendImm = 1,
    /// RDMA WRITE, cut into blocks, one WRITE message per block (2).
    Write = 2,
    /// RDMA WRITE with immediate: the immediate on the last block, or on every block with
    /// `imm_every_block` (3).
    WriteImm = 3,
    /// RDMA READ (RC only): the peer's bytes at the remote address into local memory, cut into
    /// blocks as a WRITE, one READ request per block (4).
    Read = 4,
    /// RDMA WRITE as one message, however long (at most [`MAX_MESSAGE_BYTES`]): cut into groups
    /// like a SEND, its RETH (the whole length) on the first packet (6).
    WriteMessage = 6,
    /// RDMA WRITE with immediate as one message: as [`PostOp::WriteMessage`], the immediate on
    /// its last packet (7). A receiver sees one completion, only when every byte has come.
    WriteImmMessage = 7,
}

impl PostOp {
    /// Every operation.
    pub const ALL: [PostOp; 7] = [
        PostOp::Send,
        PostOp::SendImm,
        PostOp::Write,
        PostOp::WriteImm,
        PostOp::Read,
        PostOp::WriteMessage,
        PostOp::WriteImmMessage,
    ];

    /// The code.
    pub const fn code(self) -> u8 {
        self as u8
    }

    /// The operation of a code, if it is one.
    pub fn from_code(code: u8) -> Option<PostOp> {
        Self::ALL.into_iter().find(|o| o.code() == code)
    }

    /// Name as the command line spells it (`write-imm`, ...).
    pub const fn name(self) -> &'static str {
        match self {
            PostOp::Send => "send",
            PostOp::SendImm => "send-imm",
            PostOp::Write => "write",
            PostOp::WriteImm => "write-imm",
            PostOp::Read => "read",
            PostOp::WriteMessage => "write-message",
            PostOp::WriteImmMessage => "write-imm-message",
        }
    }

    /// The operation of a name.
    pub fn from_name(name: &str) -> Option<PostOp> {
        Self::ALL.into_iter().find(|o| o.name() == name)
    }

    /// An RDMA WRITE (each message with a RETH on its first packet).
    pub const fn is_write(self) -> bool {
        matches!(
            self,
            PostOp::Write | PostOp::WriteImm | PostOp::WriteMessage | PostOp::WriteImmMessage
        )
    }

    /// Cut into blocks aligned to the remote address, one message each (WRITE, READ).
    pub const fn by_remote_blocks(self) -> bool {
        matches!(self, PostOp::Write | PostOp::WriteImm | PostOp::Read)
    }

    /// One message, at most [`MAX_MESSAGE_BYTES`], cut into groups (SEND, WRITE as one message).
    pub const fn is_one_message(self) -> bool {
        !self.by_remote_blocks()
    }

    /// A post longer than [`MAX_MESSAGE_BYTES`] is refused `too_long`: all but the WRITEs cut
    /// into blocks.
    pub const fn is_length_bounded(self) -> bool {
        !matches!(self, PostOp::Write | PostOp::WriteImm)
    }

    /// Carries an immediate.
    pub const fn has_immediate(self) -> bool {
        matches!(self, PostOp::SendImm | PostOp::WriteImm | PostOp::WriteImmMessage)
    }
}

/// Why a post is refused. Nothing of a refused post is kept: the channel stays as it was. The
/// discriminant is the code on the post port's refusal output (0 = accepted).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum PostError {
    /// The channel still has a transfer that has not completed (1).
    ChannelBusy = 1,
    /// The channel number is beyond the configured channels (2).
    BadChannel = 2,
    /// The queue number is beyond the scheduler's queues (3).
    BadQueue = 3,
    /// The QP number is beyond the QP context table (4).
    BadQp = 4,
    /// The QP is not ready to send (its state is not RTS) (5).
    QpNotReady = 5,
    /// The operation code is not one of [`PostOp`], or the QP's transport does not have it (6).
    BadOperation = 6,
    /// A SEND, a WRITE as one message or a READ longer than [`MAX_MESSAGE_BYTES`] (7).
    TooLong = 7,
}

impl PostError {
    /// Every refusal, by code.
    pub const ALL: [PostError; 7] = [
        PostError::ChannelBusy,
        PostError::BadChannel,
        PostError::BadQueue,
        PostError::BadQp,
        PostError::QpNotReady,
        PostError::BadOperation,
        PostError::TooLong,
    ];

    /// The code.
    pub const fn code(self) -> u8 {
        self as u8
    }

    /// The refusal of a code, if it is one.
    pub fn from_code(code: u8) -> Option<PostError> {
        Self::ALL.into_iter().find(|e| e.code() == code)
    }

    /// snake_case name (JSON, counters, register fields).
    pub const fn name(self) -> &'static str {
        match self {
            PostError::ChannelBusy => "channel_busy",
            PostError::BadChannel => "bad_channel",
            PostError::BadQueue => "bad_queue",
            PostError::BadQp => "bad_qp",
            PostError::QpNotReady => "qp_not_ready",
            PostError::BadOperation => "bad_operation",
            PostError::TooLong => "too_long",
        }
    }
}

/// The scheduler queue of READ responses after reset (register `read_response_queue`).
pub const DEFAULT_READ_RESPONSE_QUEUE: u32 = 1;

/// Bits of a post refusal code.
pub const POST_ERROR_BITS: usize = 3;

/// RDMA READs a QP has outstanding at most as the requester (verbs' initiator depth,
/// `max_rd_atomic`): the segmenter cuts a QP's next READ request only while fewer are waiting
/// for their responses, and the READ tracker keeps that many per QP.
pub const READS_PER_QP: usize = 4;

/// How a transfer ended. The discriminant is the code on the completion stream and in the
/// channel status (0 = success).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum CompletionStatus {
    /// Every packet of the transfer has left (UC) or was acknowledged (RC) (0).
    Success = 0,
    /// Reading the payload from local memory failed (1).
    LocalMemoryError = 1,
    /// RC: the responder answered a packet of the transfer with NAK invalid request (2).
    RemoteInvalidRequest = 2,
    /// RC: the responder answered with NAK remote access error (R_Key, rights, bounds) (3).
    RemoteAccessError = 3,
    /// RC: the responder answered with NAK remote operational error (4).
    RemoteOperationalError = 4,
    /// RC: the responder had no receive buffer (RNR NAK) and no RNR retry was left (5).
    ReceiverNotReady = 5,
    /// RC: no acknowledgement came after the transport retries (timeouts and PSN sequence error
    /// NAKs) (6).
    TransportRetryExceeded = 6,
    /// RC: the host reset the QP (rewrote its context) while the transfer waited for its
    /// acknowledgement (7).
    Flushed = 7,
}

impl CompletionStatus {
    /// Every status.
    pub const ALL: [CompletionStatus; 8] = [
        CompletionStatus::Success,
        CompletionStatus::LocalMemoryError,
        CompletionStatus::RemoteInvalidRequest,
        CompletionStatus::RemoteAccessError,
        CompletionStatus::RemoteOperationalError,
        CompletionStatus::ReceiverNotReady,
        CompletionStatus::TransportRetryExceeded,
        CompletionStatus::Flushed,
    ];

    /// The code.
    pub const fn code(self) -> u8 {
        self as u8
    }

    /// The status of a code, if it is one.
    pub fn from_code(code: u8) -> Option<CompletionStatus> {
        Self::ALL.into_iter().find(|s| s.code() == code)
    }

    /// snake_case name.
    pub const fn name(self) -> &'static str {
        match self {
            CompletionStatus::Success => "success",
            CompletionStatus::LocalMemoryError => "local_memory_error",
            CompletionStatus::RemoteInvalidRequest => "remote_invalid_request",
            CompletionStatus::RemoteAccessError => "remote_access_error",
            CompletionStatus::RemoteOperationalError => "remote_operational_error",
            CompletionStatus::ReceiverNotReady => "receiver_not_ready",
            CompletionStatus::TransportRetryExceeded => "transport_retry_exceeded",
            CompletionStatus::Flushed => "flushed",
        }
    }

    /// A status that puts an RC QP in error (`qp_status`): a fatal NAK or retries run out.
    /// (A local memory error fails its transfer only; a flush is the QP's reset.)
    pub const fn fails_qp(self) -> bool {
        matches!(
            self,
            CompletionStatus::RemoteInvalidRequest
                | CompletionStatus::RemoteAccessError
                | CompletionStatus::RemoteOperationalError
                | CompletionStatus::ReceiverNotReady
                | CompletionStatus::TransportRetryExceeded
        )
    }

    /// What an RC requester makes of an AETH syndrome byte for the transfer holding the PSN
    /// it names: `None` for an ACK (the PSN and those before it are done), a PSN sequence error
    /// NAK and an RNR NAK (everything before the PSN is done, the transfer waits for its
    /// retransmission, after the RNR wait for an RNR NAK) and a reserved syndrome; else the
    /// status the transfer completes with.
    pub fn of_syndrome(syndrome: u8) -> Option<CompletionStatus> {
        use crate::responder::{NakCode, Syndrome};
        match Syndrome::decode(syndrome)? {
            Syndrome::Ack { .. } | Syndrome::Nak(NakCode::PsnSequenceError) | Syndrome::RnrNak { .. } => None,
            Syndrome::Nak(NakCode::InvalidRequest | NakCode::InvalidRdRequest) => Some(CompletionStatus::RemoteInvalidRequest),
            Syndrome::Nak(NakCode::RemoteAccessError) => Some(CompletionStatus::RemoteAccessError),
            Syndrome::Nak(NakCode::RemoteOperationalError) => Some(CompletionStatus::RemoteOperationalError),
        }
    }
}

/// Bits of a completion status code (room for the RC errors to come).
pub const COMPLETION_STATUS_BITS: usize = 4;

/// A channel's status as the host polls it (2 bits per channel).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum ChannelStatus {
    /// No transfer since the last poll of a finished one (0).
    Idle = 0,
    /// A transfer is in progress (1).
    Busy = 1,
    /// The last transfer completed successfully and was not polled yet (2).
    Done = 2,
    /// The last transfer completed with an error and was not polled yet (3).
    Error = 3,
}

impl ChannelStatus {
    /// Every status.
    pub const ALL: [ChannelStatus; 4] = [ChannelStatus::Idle, ChannelStatus::Busy, ChannelStatus::Done, ChannelStatus::Error];

    /// The code.
    pub const fn code(self) -> u8 {
        self as u8
    }

    /// The status of a code.
    pub fn from_code(code: u8) -> Option<ChannelStatus> {
        Self::ALL.into_iter().find(|s| s.code() == code)
    }

    /// Upper-case name, as the source design spells it (`IDLE`, ...).
    pub const fn name(self) -> &'static str {
        match self {
            ChannelStatus::Idle => "IDLE",
            ChannelStatus::Busy => "BUSY",
            ChannelStatus::Done => "DONE",
            ChannelStatus::Error => "ERROR",
        }
    }
}

/// The largest message: a SEND or a WRITE as one message may not be longer (the InfiniBand
/// maximum message size), nor may a READ. A WRITE is cut into blocks, so only the 32-bit length
/// field bounds it.
pub const MAX_MESSAGE_BYTES: u64 = 1 << 31;

/// Block sizes of the segmenter: powers of two from 4 KiB to 1 MiB (log2 12 to 20).
pub const BLOCK_LOG2_MIN: u32 = 12;
/// Largest block size, log2.
pub const BLOCK_LOG2_MAX: u32 = 20;
/// Default block size, log2 (64 KiB).
pub const BLOCK_LOG2_DEFAULT: u32 = 16;

/// The UDP source port of a QP whose context asks for the hashed port: Linux rxe's choice,
/// `0xC000 + (hash_32(qpn, 14))`, where `hash_32` is the kernel's multiplicative hash by
/// `0x61C88647`. Computed by the host when it writes the context (`udp_sport`), so the RTL does
/// not multiply.
pub const fn udp_source_port_hash(qpn: u32) -> u16 {
    0xC000 + (qpn.wrapping_mul(0x61C8_8647) >> (32 - 14)) as u16
}

/// The fields of the QP context, in packing order (see [`crate::schema`]).
pub mod qp {
    use crate::schema::RecordField;

    const fn f(name: &'static str, width: usize, doc: &'static str) -> RecordField {
        RecordField::new(name, width, doc)
    }

    /// QP state ([`super::QpState`]).
    pub const STATE: RecordField = f(
        "state",
        3,
        "QP state (0 reset, 1 init, 2 rtr, 3 rts, 6 error); the TX path sends in rts only",
    );
    /// Transport, as opcode bits 7:5.
    pub const TRANSPORT: RecordField = f("transport", 3, "transport: 0 RC, 1 UC (opcode bits 7:5)");
    /// Path MTU code ([`super::Pmtu`]).
    pub const PMTU: RecordField = f("pmtu", 3, "path MTU code: 1 = 256 … 5 = 4096 bytes");
    /// IPv6 (else IPv4).
    pub const IP_V6: RecordField = f("ip_v6", 1, "send IPv6 (else IPv4)");
    /// AckReq every N packets.
    pub const ACK_EVERY: RecordField = f(
        "ack_every",
        8,
        "RC: AckReq also on every N-th packet (0: on the last packet of each block only)",
    );
    /// DSCP.
    pub const DSCP: RecordField = f("dscp", 6, "IP DSCP");
    /// ECN.
    pub const ECN: RecordField = f("ecn", 2, "IP ECN (2 = ECT(0) for congestion-managed networks)");
    /// Local ACK timeout exponent.
    pub const TIMEOUT: RecordField = f("timeout", 5, "RC: local ACK timeout, 4.096 µs × 2^n (0: none)");
    /// Partition key.
    pub const PKEY: RecordField = f("pkey", 16, "partition key (0xFFFF: default partition)");
    /// TTL / hop limit.
    pub const TTL: RecordField = f("ttl", 8, "IPv4 TTL or IPv6 hop limit");
    /// Transport retry count.
    pub const RETRY_COUNT: RecordField = f("retry_count", 3, "RC: transport retries before an error (0–7)");
    /// RNR retry count.
    pub const RNR_RETRY: RecordField = f("rnr_retry", 3, "RC: RNR retries before an error (7: for ever)");
    /// Destination QP.
    pub const DEST_QPN: RecordField = f("dest_qpn", 24, "the peer's QP number (BTH DestQP)");
    /// Minimum RNR timer code.
    pub const MIN_RNR_TIMER: RecordField = f(
        "min_rnr_timer",
        5,
        "RC: RNR NAK timer code sent to the peer (IBTA table; 1 = 0.01 ms)",
    );
    /// Next PSN to send.
    pub const SQ_PSN: RecordField = f(
        "sq_psn",
        24,
        "PSN of the next packet sent (set before rts; the TX path advances it)",
    );
    /// Next PSN expected.
    pub const RQ_PSN: RecordField = f("rq_psn", 24, "PSN the responder expects next (set before rtr)");
    /// UDP source port.
    pub const UDP_SPORT: RecordField = f(
        "udp_sport",
        16,
        "UDP source port (flow entropy; `udp_source_port_hash` gives Linux rxe's)",
    );
    /// Protection domain.
    pub const PD: RecordField = f("pd", 16, "protection domain (memory regions of the same PD only)");
    /// Remote key.
    pub const RKEY: RecordField = f("rkey", 32, "R_Key of the peer's memory region, in every RETH");
    /// IPv6 flow label.
    pub const FLOW_LABEL: RecordField = f("flow_label", 20, "IPv6 flow label");
    /// Source MAC.
    pub const SRC_MAC: RecordField = f("src_mac", 48, "Ethernet source MAC");
    /// Destination MAC.
    pub const DST_MAC: RecordField = f("dst_mac", 48, "Ethernet destination MAC (the peer's, or the next hop's)");
    /// Source IP.
    pub const SRC_IP: RecordField = f("src_ip", 128, "IP source address (IPv4 in the low 32 bits)");
    /// Destination IP.
    pub const DST_IP: RecordField = f("dst_ip", 128, "IP destination address (IPv4 in the low 32 bits)");

    /// Every field, in packing order.
    pub const FIELDS: [RecordField; 24] = [
        STATE,
        TRANSPORT,
        PMTU,
        IP_V6,
        ACK_EVERY,
        DSCP,
        ECN,
        TIMEOUT,
        PKEY,
        TTL,
        RETRY_COUNT,
        RNR_RETRY,
        DEST_QPN,
        MIN_RNR_TIMER,
        SQ_PSN,
        RQ_PSN,
        UDP_SPORT,
        PD,
        RKEY,
        FLOW_LABEL,
        SRC_MAC,
        DST_MAC,
        SRC_IP,
        DST_IP,
    ];
}

/// The QP context: one packed entry per QP.
pub const QP_CONTEXT: Schema = Schema {
    name: "qp_context",
    fields: &qp::FIELDS,
};

/// 32-bit words of a QP context entry ([`QP_CONTEXT`] packs into exactly these; a const for RTL port widths).
pub const QP_CONTEXT_WORDS: usize = 20;
/// Bits of a QP context entry.
pub const QP_CONTEXT_BITS: usize = 32 * QP_CONTEXT_WORDS;

/// The fields of a transfer post, in packing order (see [`crate::schema`]).
pub mod post {
    use crate::schema::RecordField;

    const fn f(name: &'static str, width: usize, doc: &'static str) -> RecordField {
        RecordField::new(name, width, doc)
    }

    /// Channel.
    pub const CHANNEL: RecordField = f("channel", 16, "channel: one transfer at a time per channel");
    /// Scheduler queue.
    pub const QUEUE: RecordField = f("queue", 5, "scheduler queue (0: the control class)");
    /// Operation ([`super::PostOp`]).
    pub const OP: RecordField = f(
        "op",
        3,
        "operation: 0 send, 1 send-imm, 2 write, 3 write-imm, 4 read (RC), 6 write-message, 7 write-imm-message (a WRITE as one message)",
    );
    /// Solicited event.
    pub const SOLICITED: RecordField = f(
        "solicited",
        1,
        "set the solicited-event bit on the message's last packet (with an immediate)",
    );
    /// Immediate on every block.
    pub const IMM_EVERY_BLOCK: RecordField = f(
        "imm_every_block",
        1,
        "write-imm: every block carries an immediate, the post's plus the block index (else the last block only)",
    );
    /// Local QP.
    pub const QP: RecordField = f("qp", 24, "local QP number (the QP context table's index)");
    /// Local address.
    pub const LOCAL_ADDR: RecordField = f("local_addr", 64, "local memory address of the payload");
    /// Remote address.
    pub const REMOTE_ADDR: RecordField = f("remote_addr", 64, "remote virtual address (write; first byte of the transfer)");
    /// Length.
    pub const LENGTH: RecordField = f("length", 32, "bytes to transfer (0 is legal: one packet without payload)");
    /// Immediate data.
    pub const IMMEDIATE: RecordField = f("immediate", 32, "immediate data (send-imm, write-imm, write-imm-message)");

    /// Every field, in packing order.
    pub const FIELDS: [RecordField; 10] = [
        CHANNEL,
        QUEUE,
        OP,
        SOLICITED,
        IMM_EVERY_BLOCK,
        QP,
        LOCAL_ADDR,
        REMOTE_ADDR,
        LENGTH,
        IMMEDIATE,
    ];
}

/// A transfer post: one packed entry.
pub const POST: Schema = Schema {
    name: "post",
    fields: &post::FIELDS,
};

/// 32-bit words of a post entry ([`POST`] packs into exactly these; a const for RTL port widths).
pub const POST_WORDS: usize = 8;
/// Bits of a post entry.
pub const POST_BITS: usize = 32 * POST_WORDS;

/// The fields of a packet descriptor (packetizer → packet generator), in packing order:
/// everything the generator needs, besides the QP context it reads by `qp`, to build one
/// RoCEv2 frame around a payload it takes from the memory data stream.
pub mod packet {
    use crate::schema::RecordField;

    const fn f(name: &'static str, width: usize, doc: &'static str) -> RecordField {
        RecordField::new(name, width, doc)
    }

    /// Local QP.
    pub const QP: RecordField = f(
        "qp",
        24,
        "local QP number: the generator reads its context (addresses, P_Key, DestQP, ...)",
    );
    /// BTH opcode.
    pub const OPCODE: RecordField = f("opcode", 8, "BTH opcode (transport and operation)");
    /// PSN.
    pub const PSN: RecordField = f("psn", 24, "BTH PSN");
    /// Solicited event.
    pub const SOLICITED: RecordField = f("solicited", 1, "BTH SE");
    /// AckReq.
    pub const ACK_REQUEST: RecordField = f("ack_request", 1, "BTH AckReq");
    /// PadCnt.
    pub const PAD: RecordField = f("pad", 2, "BTH PadCnt: zero bytes after the payload");
    /// The packet has a RETH.
    pub const HAS_RETH: RecordField = f("has_reth", 1, "a RETH follows the BTH (the opcode has one)");
    /// The packet has an ImmDt.
    pub const HAS_IMMEDIATE: RecordField = f("has_immediate", 1, "an ImmDt follows the BTH (and the RETH)");
    /// Completion on this packet.
    pub const LAST_OF_TRANSFER: RecordField = f(
        "last_of_transfer",
        1,
        "the transfer's last packet: its completion follows the frame",
    );
    /// Payload bytes.
    pub const PAYLOAD_LEN: RecordField = f("payload_len", 13, "payload bytes (0..=4096), taken from the memory data stream");
    /// Channel of the transfer.
    pub const CHANNEL: RecordField = f("channel", 16, "channel of the transfer (for its completion)");
    /// RETH R_Key.
    pub const RKEY: RecordField = f("rkey", 32, "RETH R_Key");
    /// RETH DMA length.
    pub const DMA_LEN: RecordField = f("dma_len", 32, "RETH DMA length");
    /// Immediate.
    pub const IMMEDIATE: RecordField = f("immediate", 32, "ImmDt");
    /// RETH VA.
    pub const VA: RecordField = f("va", 64, "RETH virtual address");
    /// A READ response packet.
    pub const READ_RESPONSE: RecordField = f(
        "read_response",
        1,
        "a packet of the responder's RDMA READ response: its PSN is the responder's, it belongs to no transfer of the engine's (the ACK tracker does not see it)",
    );
    /// The last PSN the packet takes.
    pub const LAST_PSN: RecordField = f(
        "last_psn",
        24,
        "the last PSN the packet takes: its own, or an RDMA READ request's response's last (the ACK tracker's window and completion)",
    );
    /// Sent again.
    pub const RETRANSMITTED: RecordField = f(
        "retransmitted",
        1,
        "RC: the packet is sent again (going back N): the ACK tracker does not count it as new",
    );
    /// Its QP was reset after its block was cut.
    pub const FLUSHED: RecordField = f(
        "flushed",
        1,
        "the host reset the packet's QP after its block was cut: the block is not in the send history, and its transfer completes flushed",
    );

    /// Every field, in packing order.
    pub const FIELDS: [RecordField; 19] = [
        QP,
        OPCODE,
        PSN,
        SOLICITED,
        ACK_REQUEST,
        PAD,
        HAS_RETH,
        HAS_IMMEDIATE,
        LAST_OF_TRANSFER,
        RETRANSMITTED,
        PAYLOAD_LEN,
        CHANNEL,
        READ_RESPONSE,
        RKEY,
        DMA_LEN,
        IMMEDIATE,
        VA,
        LAST_PSN,
        FLUSHED,
    ];
}

/// A packet descriptor: one packed entry.
pub const PACKET: Schema = Schema {
    name: "packet",
    fields: &packet::FIELDS,
};

/// 32-bit words of a packet descriptor ([`PACKET`] packs into exactly these; a const for RTL port widths).
pub const PACKET_WORDS: usize = 9;
/// Bits of a packet descriptor.
pub const PACKET_BITS: usize = 32 * PACKET_WORDS;

/// Largest payload of one packet: the largest path MTU.
pub const MAX_PACKET_PAYLOAD: u32 = Pmtu::B4096.bytes();

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_round_trip() {
        for p in Pmtu::ALL {
            assert_eq!(Pmtu::from_code(p.code()), Some(p));
            assert_eq!(Pmtu::from_bytes(p.bytes()), Some(p));
            assert_eq!(1 << p.log2(), p.bytes());
        }
        assert_eq!(Pmtu::B4096.bytes(), 4096);
        for s in QpState::ALL {
            assert_eq!(QpState::from_code(s.code()), Some(s));
        }
        for o in PostOp::ALL {
            assert_eq!(PostOp::from_code(o.code()), Some(o));
            assert_eq!(PostOp::from_name(o.name()), Some(o));
        }
        for (i, e) in PostError::ALL.iter().enumerate() {
            assert_eq!(e.code() as usize, i + 1);
            assert!(u32::from(e.code()) < 1 << POST_ERROR_BITS);
        }
        for s in CompletionStatus::ALL {
            assert!(u32::from(s.code()) < 1 << COMPLETION_STATUS_BITS);
        }
    }

    #[test]
    fn context_and_post_pack_into_words() {
        assert_eq!(QP_CONTEXT.words(), QP_CONTEXT_WORDS);
        assert_eq!(POST.words(), POST_WORDS);
        assert_eq!(PACKET.words(), PACKET_WORDS);
        assert_eq!(QP_CONTEXT.words(), 20);
        assert_eq!(QP_CONTEXT.offset("dest_qpn"), 64);
        assert_eq!(QP_CONTEXT.offset("src_mac"), 8 * 32);
        assert_eq!(QP_CONTEXT.offset("dst_ip"), 16 * 32);
        assert_eq!(POST.words(), 8);
        assert_eq!(POST.offset("qp"), 32);
        assert_eq!(POST.offset("immediate"), 7 * 32);
        assert_eq!(PACKET.words(), 9);
        assert_eq!((PACKET.offset("retransmitted"), PACKET.offset("payload_len")), (63, 64));
        assert!(PACKET.field("payload_len").unwrap().max() >= u128::from(MAX_PACKET_PAYLOAD));
        // a field fits the width its users assume
        assert!(QP_CONTEXT.field("state").unwrap().max() >= u128::from(QpState::Error.code()));
        assert!(POST.field("op").unwrap().max() >= u128::from(PostOp::Read.code()));
    }

    #[test]
    fn hashed_udp_source_port_is_rxe_s() {
        // hash_32(qpn, 14) = (qpn · 0x61C88647 mod 2^32) >> 18, plus 0xC000
        assert_eq!(udp_source_port_hash(0), 0xC000);
        assert_eq!(udp_source_port_hash(17), 0xC000 + ((17u32.wrapping_mul(0x61C8_8647)) >> 18) as u16);
        assert!((0..1 << 24).step_by(4099).all(|q| udp_source_port_hash(q) >= 0xC000));
    }
}
