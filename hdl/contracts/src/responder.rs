//! Responder contracts: the checks the RX transport layer makes on each accepted request, in
//! precedence order, with the answer an RC QP gives to each failure; the AETH syndrome and its
//! encoding; the status of a receive completion; the memory region table entry.
//!
//! The specification is `docs/engine.md`; the golden model is `ferroce_models::responder`.

use crate::opcode::Operation;
use crate::schema::Schema;
use crate::tx::QpState;

/// Why the responder does not execute a packet. The discriminant is the code on the RTL's
/// `failure` ports (0 = executed); the names are fixed (JSON and counters). The order is the
/// precedence: the first check that fails is reported.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum CheckFailure {
    /// The record is not one of an accepted frame: no BTH, a reserved or RD opcode, a missing
    /// extension header, an ICRC not verified, or a payload length that disagrees.
    Malformed = 1,
    /// The destination QP number is at or beyond the QP count, or below [`FIRST_QP`].
    QpNumber = 2,
    /// The destination QP is not in a receiving state (RTR, RTS, SQD, SQE).
    QpState = 3,
    /// The BTH P_Key does not match the QP's.
    Pkey = 4,
    /// The opcode's transport is not the QP's (RC, UC).
    Transport = 5,
    /// RC: the PSN is in the 2^23 PSNs before the expected one (a retransmission).
    PsnDuplicate = 6,
    /// The PSN is not the expected one (RC: ahead of it; UC: any other PSN on a packet that
    /// does not start a message).
    PsnOutOfSequence = 7,
    /// A request the responder does not execute: atomics, SEND with invalidate.
    UnsupportedOpcode = 8,
    /// A middle or last packet without an open message of its kind, or (RC) a first or only
    /// packet while a message is open.
    OpcodeSequence = 9,
    /// WRITE: no valid memory region has the RETH's R_Key.
    RkeyInvalid = 10,
    /// WRITE: the region belongs to another protection domain than the QP's.
    RkeyDomain = 11,
    /// WRITE: the region does not allow remote writes.
    RkeyAccess = 12,
    /// WRITE: `[VA, VA + DMA length)` is not inside the region.
    RkeyBounds = 13,
    /// A first or middle packet that does not carry exactly PMTU bytes, a last packet with 0
    /// or more than PMTU bytes, an only packet with more than PMTU bytes.
    PayloadLength = 14,
    /// WRITE: the message's bytes go beyond the RETH's DMA length, or end short of it on the
    /// last or only packet.
    DmaLength = 15,
    /// SEND or WRITE with immediate: no receive buffer is posted.
    NoReceiveBuffer = 16,
    /// SEND: the message's bytes go beyond the receive buffer.
    ReceiveBufferTooSmall = 17,
}

/// The first QP a request may go to: QPs 0 and 1 are the special QPs of the InfiniBand
/// specification (subnet management and general services, both unreliable datagram), which
/// the engine does not implement; a request to them fails [`CheckFailure::QpNumber`].
pub const FIRST_QP: u32 = 2;
const _: () = assert!(FIRST_QP.is_power_of_two(), "the RTL tests the bits from FIRST_QP's up");

/// Width of a check failure code on the RTL's ports.
pub const FAILURE_BITS: usize = 5;
/// The code of "no failure": the packet is executed.
pub const NO_FAILURE: u8 = 0;

impl CheckFailure {
    /// Every failure, in precedence order (the first check that fails is reported).
    pub const ALL: [CheckFailure; 17] = [
        CheckFailure::Malformed,
        CheckFailure::QpNumber,
        CheckFailure::QpState,
        CheckFailure::Pkey,
        CheckFailure::Transport,
        CheckFailure::PsnDuplicate,
        CheckFailure::PsnOutOfSequence,
        CheckFailure::UnsupportedOpcode,
        CheckFailure::OpcodeSequence,
        CheckFailure::RkeyInvalid,
        CheckFailure::RkeyDomain,
        CheckFailure::RkeyAccess,
        CheckFailure::RkeyBounds,
        CheckFailure::PayloadLength,
        CheckFailure::DmaLength,
        CheckFailure::NoReceiveBuffer,
        CheckFailure::ReceiveBufferTooSmall,
    ];

    /// The fixed name used in the JSON and the counters.
    pub const fn name(self) -> &'static str {
        match self {
            CheckFailure::Malformed => "malformed",
            CheckFailure::QpNumber => "qp_number",
            CheckFailure::QpState => "qp_state",
            CheckFailure::Pkey => "pkey",
            CheckFailure::Transport => "transport",
            CheckFailure::PsnDuplicate => "psn_duplicate",
            CheckFailure::PsnOutOfSequence => "psn_out_of_sequence",
            CheckFailure::UnsupportedOpcode => "unsupported_opcode",
            CheckFailure::OpcodeSequence => "opcode_sequence",
            CheckFailure::RkeyInvalid => "rkey_invalid",
            CheckFailure::RkeyDomain => "rkey_domain",
            CheckFailure::RkeyAccess => "rkey_access",
            CheckFailure::RkeyBounds => "rkey_bounds",
            CheckFailure::PayloadLength => "payload_length",
            CheckFailure::DmaLength => "dma_length",
            CheckFailure::NoReceiveBuffer => "no_receive_buffer",
            CheckFailure::ReceiveBufferTooSmall => "receive_buffer_too_small",
        }
    }

    /// The failure with this name.
    pub fn from_name(s: &str) -> Option<CheckFailure> {
        CheckFailure::ALL.into_iter().find(|f| f.name() == s)
    }

    /// The code on the RTL's `failure` ports.
    pub const fn code(self) -> u8 {
        self as u8
    }

    /// The failure with this code (`None` for [`NO_FAILURE`] and unknown codes).
    pub fn from_code(code: u8) -> Option<CheckFailure> {
        CheckFailure::ALL.into_iter().find(|f| f.code() == code)
    }

    /// Position in [`CheckFailure::ALL`].
    pub const fn index(self) -> usize {
        self as usize - 1
    }

    /// What an RC QP answers. A UC QP never answers.
    pub const fn rc_answer(self) -> RcAnswer {
        match self {
            CheckFailure::Malformed | CheckFailure::QpNumber | CheckFailure::QpState | CheckFailure::Pkey | CheckFailure::Transport => {
                RcAnswer::Silent
            }
            CheckFailure::PsnDuplicate => RcAnswer::Reack,
            CheckFailure::PsnOutOfSequence => RcAnswer::Nak(NakCode::PsnSequenceError),
            CheckFailure::UnsupportedOpcode
            | CheckFailure::OpcodeSequence
            | CheckFailure::PayloadLength
            | CheckFailure::DmaLength
            | CheckFailure::ReceiveBufferTooSmall => RcAnswer::Nak(NakCode::InvalidRequest),
            CheckFailure::RkeyInvalid | CheckFailure::RkeyDomain | CheckFailure::RkeyAccess | CheckFailure::RkeyBounds => {
                RcAnswer::Nak(NakCode::RemoteAccessError)
            }
            CheckFailure::NoReceiveBuffer => RcAnswer::RnrNak,
        }
    }
}

/// What an RC QP answers to a failed check.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RcAnswer {
    /// Nothing: the packet is not trusted to belong to the connection.
    Silent,
    /// An ACK of the last executed PSN (a duplicate).
    Reack,
    /// A NAK with this code. A PSN sequence error NAK is sent once per gap; any other NAK moves
    /// the QP to the error state.
    Nak(NakCode),
    /// An RNR NAK with the QP's minimum RNR timer code.
    RnrNak,
}

impl RcAnswer {
    /// The answer moves the QP to the error state (a NAK other than PSN sequence error).
    pub const fn moves_qp_to_error(self) -> bool {
        matches!(self, RcAnswer::Nak(code) if !matches!(code, NakCode::PsnSequenceError))
    }
}

/// The states in which a QP's responder executes requests: RTR, RTS, SQD, and SQE (a send
/// queue error leaves the receive queue working).
pub const RECEIVING_STATES: [QpState; 4] = [QpState::Rtr, QpState::Rts, QpState::Sqd, QpState::Sqe];

/// SEND or RDMA WRITE.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MessageKind {
    /// SEND: into the head receive buffer.
    Send,
    /// RDMA WRITE: into a memory region, at the RETH's VA.
    Write,
}

/// Where a packet sits in its message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Position {
    /// First of several.
    First,
    /// Neither first nor last.
    Middle,
    /// Last of several.
    Last,
    /// The whole message.
    Only,
}

impl Position {
    /// A first or only packet: it starts a message.
    pub const fn starts(self) -> bool {
        matches!(self, Position::First | Position::Only)
    }

    /// A last or only packet: it ends a message.
    pub const fn ends(self) -> bool {
        matches!(self, Position::Last | Position::Only)
    }
}

/// The message kind and position of a SEND or WRITE operation; `None` for the other requests
/// (READ, atomics, SEND with invalidate), which the responder does not execute.
pub fn message_operation(operation: Operation) -> Option<(MessageKind, Position)> {
    use MessageKind::{Send, Write};
    use Operation::*;
    Some(match operation {
        SendFirst => (Send, Position::First),
        SendMiddle => (Send, Position::Middle),
        SendLast | SendLastImm => (Send, Position::Last),
        SendOnly | SendOnlyImm => (Send, Position::Only),
        WriteFirst => (Write, Position::First),
        WriteMiddle => (Write, Position::Middle),
        WriteLast | WriteLastImm => (Write, Position::Last),
        WriteOnly | WriteOnlyImm => (Write, Position::Only),
        _ => return None,
    })
}

/// A request (else a response or CNP, for the requester and congestion control).
pub fn is_request(operation: Operation) -> bool {
    use Operation::*;
    !matches!(
        operation,
        ReadResponseFirst | ReadResponseMiddle | ReadResponseLast | ReadResponseOnly | Ack | AtomicAck | Cnp
    )
}

/// The NAK codes of the AETH (syndrome bits 4:0 when bits 6:5 are `0b11`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum NakCode {
    /// PSN sequence error (0): a packet arrived ahead of the expected PSN.
    PsnSequenceError = 0,
    /// Invalid request (1): bad opcode, opcode sequence or length.
    InvalidRequest = 1,
    /// Remote access error (2): R_Key, protection domain, access rights or bounds.
    RemoteAccessError = 2,
    /// Remote operational error (3): the responder could not complete a valid request.
    RemoteOperationalError = 3,
    /// Invalid RD request (4): RD only, never sent by Ferroce.
    InvalidRdRequest = 4,
}

impl NakCode {
    /// Every NAK code, by code.
    pub const ALL: [NakCode; 5] = [
        NakCode::PsnSequenceError,
        NakCode::InvalidRequest,
        NakCode::RemoteAccessError,
        NakCode::RemoteOperationalError,
        NakCode::InvalidRdRequest,
    ];

    /// The 5-bit code.
    pub const fn code(self) -> u8 {
        self as u8
    }

    /// The NAK code of a 5-bit value, if it is one (5–31 are reserved).
    pub fn from_code(code: u8) -> Option<NakCode> {
        NakCode::ALL.into_iter().find(|c| c.code() == code)
    }

    /// snake_case name (counters, JSON).
    pub const fn name(self) -> &'static str {
        match self {
            NakCode::PsnSequenceError => "psn_sequence_error",
            NakCode::InvalidRequest => "invalid_request",
            NakCode::RemoteAccessError => "remote_access_error",
            NakCode::RemoteOperationalError => "remote_operational_error",
            NakCode::InvalidRdRequest => "invalid_rd_request",
        }
    }
}

/// The credit count of an ACK that gives no end-to-end credit (IBTA "invalid credit count"):
/// what Linux rxe sends and Ferroce sends, the requester not being limited by credits.
pub const CREDIT_UNLIMITED: u8 = 0b1_1111;

/// Syndrome bit 7 is reserved (0); bits 6:5 are the kind; bits 4:0 its value.
const KIND_SHIFT: u32 = 5;
const VALUE_MASK: u8 = 0b1_1111;
const KIND_ACK: u8 = 0b00;
const KIND_RNR_NAK: u8 = 0b01;
const KIND_NAK: u8 = 0b11;

/// The 8-bit AETH syndrome, decoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Syndrome {
    /// ACK (`0b000` + credit count; [`CREDIT_UNLIMITED`] when no credit is given).
    Ack {
        /// Credit count (5 bits).
        credit: u8,
    },
    /// RNR NAK (`0b001` + RNR timer code, see [`rnr_timer_micros`]).
    RnrNak {
        /// RNR timer code (5 bits).
        timer: u8,
    },
    /// NAK (`0b011` + code).
    Nak(NakCode),
}

impl Syndrome {
    /// The syndrome byte (a credit or timer wider than 5 bits is cut to 5 bits).
    pub const fn encode(self) -> u8 {
        match self {
            Syndrome::Ack { credit } => KIND_ACK << KIND_SHIFT | (credit & VALUE_MASK),
            Syndrome::RnrNak { timer } => KIND_RNR_NAK << KIND_SHIFT | (timer & VALUE_MASK),
            Syndrome::Nak(code) => KIND_NAK << KIND_SHIFT | code.code(),
        }
    }

    /// The syndrome of a byte; `None` for reserved values (bit 7 set, kind `0b10`, NAK codes
    /// 5–31).
    pub fn decode(byte: u8) -> Option<Syndrome> {
        let value = byte & VALUE_MASK;
        match byte >> KIND_SHIFT {
            KIND_ACK => Some(Syndrome::Ack { credit: value }),
            KIND_RNR_NAK => Some(Syndrome::RnrNak { timer: value }),
            KIND_NAK => NakCode::from_code(value).map(Syndrome::Nak),
            _ => None,
        }
    }

    /// An ACK with unlimited credit.
    pub const fn ack() -> Syndrome {
        Syndrome::Ack { credit: CREDIT_UNLIMITED }
    }

    /// Not an ACK.
    pub const fn is_nak(self) -> bool {
        !matches!(self, Syndrome::Ack { .. })
    }
}

/// An AETH: syndrome and MSN, as the 32-bit big-endian word on the wire (syndrome in bits
/// 31:24, MSN in bits 23:0).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Aeth {
    /// The syndrome.
    pub syndrome: Syndrome,
    /// The message sequence number (24 bits): messages the responder has completed.
    pub msn: u32,
}

pub use crate::aeth::MSN_MASK;

impl Aeth {
    /// The 32-bit word (the MSN is cut to 24 bits).
    pub const fn encode(self) -> u32 {
        crate::aeth::word(self.syndrome.encode(), self.msn)
    }

    /// The AETH of a word; `None` when its syndrome is reserved.
    pub fn decode(word: u32) -> Option<Aeth> {
        let (syndrome, msn) = crate::aeth::split(word);
        Some(Aeth {
            syndrome: Syndrome::decode(syndrome)?,
            msn,
        })
    }
}

/// The RNR timer of each 5-bit code (IBTA table), in units of 10 µs: code 0 is 655.36 ms,
/// 1 is 0.01 ms, 7 is 0.12 ms, 31 is 491.52 ms.
pub const RNR_TIMER_10US: [u32; 32] = [
    65536, 1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 512, 768, 1024, 1536, 2048, 3072, 4096, 6144, 8192, 12288,
    16384, 24576, 32768, 49152,
];

/// The RNR timer of a code in microseconds (`None` beyond 31).
pub fn rnr_timer_micros(code: u8) -> Option<u32> {
    RNR_TIMER_10US.get(usize::from(code)).map(|t| t * 10)
}

/// Largest RNR timer code (5 bits).
pub const RNR_TIMER_MAX: u8 = 31;

/// How a receive completion ended. The discriminant is the code on the completion stream
/// (0 = success).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum ReceiveStatus {
    /// The message was placed whole (0).
    Success = 0,
    /// RC: the SEND was longer than its receive buffer (1; verbs `IBV_WC_LOC_LEN_ERR`).
    LengthError = 1,
    /// RC: the SEND broke off on an invalid request (2; verbs `IBV_WC_REM_INV_REQ_ERR`).
    InvalidRequest = 2,
}

impl ReceiveStatus {
    /// Every status.
    pub const ALL: [ReceiveStatus; 3] = [ReceiveStatus::Success, ReceiveStatus::LengthError, ReceiveStatus::InvalidRequest];

    /// The code.
    pub const fn code(self) -> u8 {
        self as u8
    }

    /// The status of a code, if it is one.
    pub fn from_code(code: u8) -> Option<ReceiveStatus> {
        ReceiveStatus::ALL.into_iter().find(|s| s.code() == code)
    }

    /// snake_case name.
    pub const fn name(self) -> &'static str {
        match self {
            ReceiveStatus::Success => "success",
            ReceiveStatus::LengthError => "length_error",
            ReceiveStatus::InvalidRequest => "invalid_request",
        }
    }
}

/// What a memory region lets a peer do: the 2-bit `access` field of [`MEMORY_REGION`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Access {
    /// RDMA WRITE (bit 0).
    pub remote_write: bool,
    /// RDMA READ (bit 1).
    pub remote_read: bool,
}

impl Access {
    const REMOTE_WRITE: u8 = 0b01;
    const REMOTE_READ: u8 = 0b10;

    /// The 2-bit field value.
    pub const fn code(self) -> u8 {
        (if self.remote_write { Access::REMOTE_WRITE } else { 0 }) | (if self.remote_read { Access::REMOTE_READ } else { 0 })
    }

    /// The access of a field value (bits above 1 are ignored).
    pub const fn from_code(code: u8) -> Access {
        Access {
            remote_write: code & Access::REMOTE_WRITE != 0,
            remote_read: code & Access::REMOTE_READ != 0,
        }
    }
}

/// Memory region table entries of the default configuration.
pub const DEFAULT_REGIONS: u32 = 64;

/// The low bits of an R_Key that are a key byte, not the table index: the region of R_Key `k`
/// is entry `k >> REGION_KEY_BITS`, and its stored R_Key must equal `k` whole (as Linux rxe
/// numbers its keys), so a stale key of a re-registered entry does not match.
pub const REGION_KEY_BITS: u32 = 8;

/// The memory region table entry an R_Key selects.
pub const fn region_index(rkey: u32) -> u32 {
    rkey >> REGION_KEY_BITS
}

/// The fields of a memory region table entry, in packing order (see [`crate::schema`]).
pub mod region {
    use crate::schema::RecordField;

    const fn f(name: &'static str, width: usize, doc: &'static str) -> RecordField {
        RecordField::new(name, width, doc)
    }

    /// The entry holds a region.
    pub const VALID: RecordField = f("valid", 1, "the entry holds a registered region");
    /// Access flags ([`super::Access`]).
    pub const ACCESS: RecordField = f("access", 2, "bit 0: remote write, bit 1: remote read");
    /// Protection domain.
    pub const PD: RecordField = f("pd", 16, "protection domain: only QPs of this PD may use the region");
    /// Remote key.
    pub const RKEY: RecordField = f("rkey", 32, "R_Key: entry index in bits 31:8, key byte in bits 7:0");
    /// Base address.
    pub const BASE: RecordField = f("base", 64, "virtual address of the region's first byte (the RETH VA space)");
    /// Length.
    pub const LENGTH: RecordField = f("length", 64, "bytes of the region (base + length ≤ 2^64)");

    /// Every field, in packing order.
    pub const FIELDS: [RecordField; 6] = [VALID, ACCESS, PD, RKEY, BASE, LENGTH];
}

/// A memory region table entry: one packed entry.
pub const MEMORY_REGION: Schema = Schema {
    name: "memory_region",
    fields: &region::FIELDS,
};

/// 32-bit words of a memory region entry ([`MEMORY_REGION`] packs into exactly these).
pub const MEMORY_REGION_WORDS: usize = 6;

/// Bits of a packed memory region entry.
pub const MEMORY_REGION_BITS: usize = 32 * MEMORY_REGION_WORDS;

/// The fields of a receive buffer post, in packing order (see [`crate::schema`]).
pub mod receive_post {
    use crate::schema::RecordField;

    /// The QP whose receive queue takes the buffer.
    pub const QP: RecordField = RecordField::new("qp", 24, "the QP whose receive queue takes the buffer");
    /// Buffer length.
    pub const LENGTH: RecordField = RecordField::new("length", 32, "bytes of the buffer");
    /// Buffer address.
    pub const ADDRESS: RecordField = RecordField::new("address", 64, "address of the buffer's first byte");

    /// Every field, in packing order.
    pub const FIELDS: [RecordField; 3] = [QP, LENGTH, ADDRESS];
}

/// A receive buffer post from the host: one packed entry (the register file's staged words).
pub const RECEIVE_POST: Schema = Schema {
    name: "receive_post",
    fields: &receive_post::FIELDS,
};

/// 32-bit words of a packed receive buffer post.
pub const RECEIVE_POST_WORDS: usize = 4;
/// Bits of a packed receive buffer post.
pub const RECEIVE_POST_BITS: usize = 32 * RECEIVE_POST_WORDS;

/// The fields of the receive completion the host reads (the head of the engine's receive
/// completion queue), in packing order (see [`crate::schema`]).
pub mod receive_completion {
    use crate::schema::RecordField;

    const fn f(name: &'static str, width: usize, doc: &'static str) -> RecordField {
        RecordField::new(name, width, doc)
    }

    /// The queue is not empty.
    pub const VALID: RecordField = f(
        "valid",
        1,
        "a completion is at the head of the queue: the other fields are meaningful",
    );
    /// Completions were lost.
    pub const OVERFLOW: RecordField = f(
        "overflow",
        1,
        "completions were lost because the queue was full (sticky; cleared by writing `clear_overflow` to `receive_completion_pop`)",
    );
    /// SEND or WRITE with immediate.
    pub const KIND: RecordField = f("kind", 1, "0: SEND, 1: WRITE with immediate");
    /// Receive status.
    pub const STATUS: RecordField = f("status", 2, "`ReceiveStatus` code: 0 success, 1 length error, 2 invalid request");
    /// Solicited event.
    pub const SOLICITED: RecordField = f("solicited", 1, "the SE bit of the message's last packet");
    /// Immediate present.
    pub const IMMEDIATE_VALID: RecordField = f("immediate_valid", 1, "the message carried an immediate");
    /// The QP.
    pub const QP: RecordField = f("qp", 24, "the QP that received the message");
    /// Immediate.
    pub const IMMEDIATE: RecordField = f("immediate", 32, "the immediate (0 without one)");
    /// Message bytes.
    pub const LENGTH: RecordField = f("length", 32, "the message's bytes (on an error: the bytes placed before it)");

    /// Every field, in packing order.
    pub const FIELDS: [RecordField; 9] = [VALID, OVERFLOW, KIND, STATUS, SOLICITED, IMMEDIATE_VALID, QP, IMMEDIATE, LENGTH];
}

/// The head of the receive completion queue as the host reads it: one packed entry.
pub const RECEIVE_COMPLETION: Schema = Schema {
    name: "receive_completion",
    fields: &receive_completion::FIELDS,
};

/// 32-bit words of a packed receive completion.
pub const RECEIVE_COMPLETION_WORDS: usize = 3;
/// Bits of a packed receive completion.
pub const RECEIVE_COMPLETION_BITS: usize = 32 * RECEIVE_COMPLETION_WORDS;

/// The receive posting state in the `receive_status` register.
pub mod receive_state {
    /// No receive post since reset.
    pub const IDLE: u32 = 0;
    /// The last post waits for the responder.
    pub const PENDING: u32 = 1;
    /// The last post was taken into its QP's receive queue.
    pub const ACCEPTED: u32 = 2;
    /// The last post was refused: its QP's receive queue was full (or the QP beyond the table).
    pub const REFUSED: u32 = 3;
}

/// The kind of a receive completion: the `completion_kind` field of [`DECISION`].
pub mod completion_kind {
    /// A SEND landed in the receive buffer.
    pub const SEND: u8 = 0;
    /// A WRITE with immediate consumed the receive buffer.
    pub const WRITE: u8 = 1;
}

/// The fields of a responder decision, in packing order (see [`crate::schema`]).
pub mod decision {
    use crate::schema::RecordField;

    const fn f(name: &'static str, width: usize, doc: &'static str) -> RecordField {
        RecordField::new(name, width, doc)
    }

    /// The failure code.
    pub const FAILURE: RecordField = f(
        "failure",
        super::FAILURE_BITS,
        "0: executed (or forwarded); else the `CheckFailure` code",
    );
    /// Not a request.
    pub const FORWARDED: RecordField = f("forwarded", 1, "an ACK, READ response or CNP: passed on to the requester untouched");
    /// A forwarded packet with an AETH.
    pub const ACKNOWLEDGEMENT: RecordField = f(
        "acknowledgement",
        1,
        "a forwarded packet with an AETH (ACK, NAK, READ response): `qp`, `response_psn` and `response_syndrome` are its own, for the requester",
    );
    /// UC: the open message was dropped.
    pub const DROPPED_MESSAGE: RecordField = f("dropped_message", 1, "UC: the message open on the QP was dropped by this packet");
    /// The payload goes to memory.
    pub const WRITE: RecordField = f(
        "write",
        1,
        "the packet's payload is written at `write_address` (else it is discarded)",
    );
    /// Payload bytes.
    pub const WRITE_LENGTH: RecordField = f("write_length", 16, "payload bytes of the packet (its record's `pay_len`)");
    /// A receive completion.
    pub const COMPLETION: RecordField = f(
        "completion",
        1,
        "a receive buffer is consumed: the `completion_*` fields are meaningful",
    );
    /// SEND or WRITE with immediate.
    pub const COMPLETION_KIND: RecordField = f("completion_kind", 1, "0: SEND, 1: WRITE with immediate");
    /// Receive status.
    pub const COMPLETION_STATUS: RecordField = f(
        "completion_status",
        2,
        "`ReceiveStatus` code: 0 success, 1 length error, 2 invalid request",
    );
    /// Solicited event.
    pub const COMPLETION_SOLICITED: RecordField = f("completion_solicited", 1, "the SE bit of the message's last packet");
    /// Immediate present.
    pub const COMPLETION_IMMEDIATE_VALID: RecordField = f("completion_immediate_valid", 1, "the message carried an immediate");
    /// Response present.
    pub const RESPONSE: RecordField = f(
        "response",
        1,
        "an ACK or NAK goes to the peer: the `response_*` fields are meaningful (they are also with `read`)",
    );
    /// AETH syndrome.
    pub const RESPONSE_SYNDROME: RecordField = f(
        "response_syndrome",
        8,
        "AETH syndrome of the ACK or NAK; on a forwarded packet, its own AETH's (0 without one)",
    );
    /// The destination QP.
    pub const QP: RecordField = f(
        "qp",
        24,
        "the packet's destination QP: the completion's QP and the QP that sends the response",
    );
    /// BTH PSN of the response.
    pub const RESPONSE_PSN: RecordField = f(
        "response_psn",
        24,
        "BTH PSN of the response: acknowledged (ACK) or expected (NAK), a READ response's first; on a forwarded packet, its own",
    );
    /// AETH MSN.
    pub const RESPONSE_MSN: RecordField = f(
        "response_msn",
        24,
        "AETH MSN of the response; on a forwarded packet, its own AETH's (0 without one)",
    );
    /// A forwarded packet's opcode.
    pub const FORWARDED_OPCODE: RecordField = f(
        "forwarded_opcode",
        8,
        "a forwarded packet's BTH opcode (a READ response's place in its response; 0 when not forwarded)",
    );
    /// Message bytes.
    pub const COMPLETION_LENGTH: RecordField = f(
        "completion_length",
        32,
        "the message's bytes (on an error: the bytes placed before it)",
    );
    /// Buffer length.
    pub const COMPLETION_BUFFER_LENGTH: RecordField = f("completion_buffer_length", 32, "length of the consumed receive buffer");
    /// Immediate.
    pub const COMPLETION_IMMEDIATE: RecordField = f("completion_immediate", 32, "the immediate (0 without one)");
    /// Where the payload goes.
    pub const WRITE_ADDRESS: RecordField = f("write_address", 64, "address of the payload's first byte");
    /// Buffer address.
    pub const COMPLETION_BUFFER_ADDRESS: RecordField = f("completion_buffer_address", 64, "address of the consumed receive buffer");
    /// An RDMA READ response to send.
    pub const READ: RecordField = f(
        "read",
        1,
        "an executed RDMA READ request (or a duplicate, executed again): its response goes to the TX path, from `response_psn` with `response_syndrome` and `response_msn` in its AETH, `read_length` bytes read from `read_va`",
    );
    /// READ DMA length.
    pub const READ_LENGTH: RecordField = f("read_length", 32, "the READ request's DMA length (0 without a READ)");
    /// READ VA.
    pub const READ_VA: RecordField = f(
        "read_va",
        64,
        "the READ request's VA: address of the response's first byte (0 without a READ)",
    );

    /// Every field, in packing order.
    pub const FIELDS: [RecordField; 25] = [
        FAILURE,
        FORWARDED,
        ACKNOWLEDGEMENT,
        DROPPED_MESSAGE,
        WRITE,
        WRITE_LENGTH,
        COMPLETION,
        COMPLETION_KIND,
        COMPLETION_STATUS,
        COMPLETION_SOLICITED,
        COMPLETION_IMMEDIATE_VALID,
        RESPONSE,
        RESPONSE_SYNDROME,
        QP,
        RESPONSE_PSN,
        READ,
        RESPONSE_MSN,
        FORWARDED_OPCODE,
        COMPLETION_LENGTH,
        COMPLETION_BUFFER_LENGTH,
        COMPLETION_IMMEDIATE,
        WRITE_ADDRESS,
        COMPLETION_BUFFER_ADDRESS,
        READ_LENGTH,
        READ_VA,
    ];
}

/// What the responder does with one record: one packed entry on its decision stream. The
/// payload path writes or discards the packet's payload as `write` says; the completion and
/// the response go to the host and to the TX control class.
pub const DECISION: Schema = Schema {
    name: "responder_decision",
    fields: &decision::FIELDS,
};

/// 32-bit words of a packed decision.
pub const DECISION_WORDS: usize = 14;
/// Bits of a packed decision.
pub const DECISION_BITS: usize = 32 * DECISION_WORDS;

/// A counter of the responder, read on the RTL through `counter_index` (the discriminant
/// order of [`ResponderCounter::ALL`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ResponderCounter {
    /// Executed packets.
    PacketsExecuted,
    /// Responses and CNPs passed on.
    Forwarded,
    /// Receive completions, error ones included.
    Completions,
    /// ACKs sent.
    Acks,
    /// RNR NAKs sent.
    RnrNaks,
    /// NAKs sent with this code.
    Naks(NakCode),
    /// UC messages dropped after their first packet was executed.
    UcMessagesDropped,
    /// Packets that failed this check.
    Failures(CheckFailure),
    /// RDMA READ requests executed at the expected PSN.
    ReadRequests,
    /// Duplicate RDMA READ requests executed again.
    ReadDuplicates,
}

/// Bits of the RTL's `counter_index`.
pub const COUNTER_INDEX_BITS: usize = 5;

impl ResponderCounter {
    /// Every counter, in index order.
    pub const ALL: [ResponderCounter; 30] = {
        let mut all = [ResponderCounter::PacketsExecuted; 30];
        all[1] = ResponderCounter::Forwarded;
        all[2] = ResponderCounter::Completions;
        all[3] = ResponderCounter::Acks;
        all[4] = ResponderCounter::RnrNaks;
        let mut i = 0;
        while i < NakCode::ALL.len() {
            all[5 + i] = ResponderCounter::Naks(NakCode::ALL[i]);
            i += 1;
        }
        all[10] = ResponderCounter::UcMessagesDropped;
        let mut i = 0;
        while i < CheckFailure::ALL.len() {
            all[11 + i] = ResponderCounter::Failures(CheckFailure::ALL[i]);
            i += 1;
        }
        all[28] = ResponderCounter::ReadRequests;
        all[29] = ResponderCounter::ReadDuplicates;
        all
    };

    /// Its `counter_index`.
    pub fn index(self) -> usize {
        ResponderCounter::ALL
            .iter()
            .position(|c| *c == self)
            .expect("every counter is listed")
    }

    /// snake_case name (`naks_<code>`, `failures_<check>`).
    pub fn name(self) -> String {
        match self {
            ResponderCounter::PacketsExecuted => "packets_executed".into(),
            ResponderCounter::Forwarded => "forwarded".into(),
            ResponderCounter::Completions => "completions".into(),
            ResponderCounter::Acks => "acks".into(),
            ResponderCounter::RnrNaks => "rnr_naks".into(),
            ResponderCounter::Naks(code) => format!("naks_{}", code.name()),
            ResponderCounter::UcMessagesDropped => "uc_messages_dropped".into(),
            ResponderCounter::Failures(failure) => format!("failures_{}", failure.name()),
            ResponderCounter::ReadRequests => "read_requests".into(),
            ResponderCounter::ReadDuplicates => "read_duplicates".into(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_follow_the_precedence_order() {
        for (i, f) in CheckFailure::ALL.iter().enumerate() {
            assert_eq!(f.code() as usize, i + 1);
            assert_eq!(f.index(), i);
            assert_eq!(CheckFailure::from_code(f.code()), Some(*f));
            assert_eq!(CheckFailure::from_name(f.name()), Some(*f));
        }
        assert!(CheckFailure::ALL.iter().all(|f| u32::from(f.code()) < 1 << FAILURE_BITS));
        assert_eq!(CheckFailure::from_code(NO_FAILURE), None);
        let names: std::collections::HashSet<_> = CheckFailure::ALL.iter().map(|f| f.name()).collect();
        assert_eq!(names.len(), CheckFailure::ALL.len());
    }

    #[test]
    fn rc_answers_follow_the_ibta_classes() {
        use CheckFailure::*;
        assert_eq!(Transport.rc_answer(), RcAnswer::Silent);
        assert_eq!(PsnDuplicate.rc_answer(), RcAnswer::Reack);
        assert_eq!(PsnOutOfSequence.rc_answer(), RcAnswer::Nak(NakCode::PsnSequenceError));
        assert!(!PsnOutOfSequence.rc_answer().moves_qp_to_error());
        assert_eq!(RkeyDomain.rc_answer(), RcAnswer::Nak(NakCode::RemoteAccessError));
        assert_eq!(OpcodeSequence.rc_answer(), RcAnswer::Nak(NakCode::InvalidRequest));
        assert!(OpcodeSequence.rc_answer().moves_qp_to_error());
        assert_eq!(NoReceiveBuffer.rc_answer(), RcAnswer::RnrNak);
        assert!(!NoReceiveBuffer.rc_answer().moves_qp_to_error());
    }

    #[test]
    fn syndromes_match_the_ibta_table() {
        // bit 7 reserved; 6:5 = 00 ACK, 01 RNR NAK, 11 NAK; 4:0 credit, timer or NAK code
        assert_eq!(Syndrome::ack().encode(), 0x1F);
        assert_eq!(Syndrome::Ack { credit: 0 }.encode(), 0x00);
        assert_eq!(Syndrome::Ack { credit: 5 }.encode(), 0x05);
        assert_eq!(Syndrome::RnrNak { timer: 0 }.encode(), 0x20);
        assert_eq!(Syndrome::RnrNak { timer: 14 }.encode(), 0x2E);
        assert_eq!(Syndrome::RnrNak { timer: 31 }.encode(), 0x3F);
        let naks = [0x60, 0x61, 0x62, 0x63, 0x64];
        for (code, byte) in NakCode::ALL.into_iter().zip(naks) {
            assert_eq!(Syndrome::Nak(code).encode(), byte);
            assert_eq!(Syndrome::decode(byte), Some(Syndrome::Nak(code)));
        }
        for byte in 0..=u8::MAX {
            match Syndrome::decode(byte) {
                Some(s) => assert_eq!(s.encode(), byte),
                None => assert!(byte >= 0x80 || (0x40..0x60).contains(&byte) || byte >= 0x65),
            }
        }
        assert_eq!(Syndrome::decode(0x1F), Some(Syndrome::ack()));
        assert_eq!(Syndrome::decode(0x2E), Some(Syndrome::RnrNak { timer: 14 }));
        assert!(Syndrome::RnrNak { timer: 1 }.is_nak() && !Syndrome::ack().is_nak());
    }

    #[test]
    fn aeth_word_is_syndrome_over_msn() {
        let ack = Aeth {
            syndrome: Syndrome::ack(),
            msn: 5,
        };
        assert_eq!(ack.encode(), 0x1F00_0005);
        let nak = Aeth {
            syndrome: Syndrome::Nak(NakCode::PsnSequenceError),
            msn: 0xAB_CDEF,
        };
        assert_eq!(nak.encode(), 0x60AB_CDEF);
        assert_eq!(Aeth::decode(0x60AB_CDEF), Some(nak));
        assert_eq!(Aeth::decode(0x2E00_0001).map(|a| a.syndrome), Some(Syndrome::RnrNak { timer: 14 }));
        assert_eq!(Aeth::decode(0x4000_0000), None);
        // the MSN is 24 bits
        assert_eq!(Aeth { msn: 1 << 24, ..ack }.encode(), 0x1F00_0000);
    }

    #[test]
    fn rnr_timer_codes_follow_the_ibta_table() {
        assert_eq!(rnr_timer_micros(0), Some(655_360));
        assert_eq!(rnr_timer_micros(1), Some(10));
        assert_eq!(rnr_timer_micros(7), Some(120));
        assert_eq!(rnr_timer_micros(14), Some(1_280));
        assert_eq!(rnr_timer_micros(31), Some(491_520));
        assert_eq!(rnr_timer_micros(32), None);
        // from code 4 on, each value doubles the one two codes before: 4, 6, 8, 12, 16, ...
        for code in 4..32 {
            assert_eq!(RNR_TIMER_10US[code], 2 * RNR_TIMER_10US[code - 2]);
        }
        assert_eq!(RNR_TIMER_10US.len(), usize::from(RNR_TIMER_MAX) + 1);
    }

    #[test]
    fn receive_status_and_access_codes_round_trip() {
        for s in ReceiveStatus::ALL {
            assert_eq!(ReceiveStatus::from_code(s.code()), Some(s));
        }
        for code in 0..4 {
            assert_eq!(Access::from_code(code).code(), code);
        }
        assert_eq!(
            Access {
                remote_write: true,
                remote_read: false
            }
            .code(),
            1
        );
        assert_eq!(region_index(0x1234), 0x12);
    }

    #[test]
    fn memory_region_packs_into_words() {
        assert_eq!(MEMORY_REGION.words(), MEMORY_REGION_WORDS);
        assert_eq!(MEMORY_REGION.offset("rkey"), 32);
        assert_eq!(MEMORY_REGION.offset("base"), 64);
        assert_eq!(MEMORY_REGION.offset("length"), 128);
        assert!(MEMORY_REGION.field("access").unwrap().max() >= u128::from(Access::from_code(3).code()));
        assert!(MEMORY_REGION.field("rkey").unwrap().max() >> REGION_KEY_BITS >= u128::from(DEFAULT_REGIONS - 1));
    }

    #[test]
    fn host_records_pack_into_words() {
        assert_eq!(RECEIVE_POST.words(), RECEIVE_POST_WORDS);
        assert_eq!(RECEIVE_POST.offset("address"), 64);
        assert_eq!(RECEIVE_COMPLETION.words(), RECEIVE_COMPLETION_WORDS);
        assert_eq!(RECEIVE_COMPLETION.offset("qp"), 7);
        assert_eq!(RECEIVE_COMPLETION.offset("immediate"), 32);
        assert_eq!(RECEIVE_COMPLETION.offset("length"), 64);
    }

    #[test]
    fn decision_packs_into_words() {
        assert_eq!(DECISION.words(), DECISION_WORDS);
        assert_eq!(MEMORY_REGION.bits(), MEMORY_REGION_BITS);
        // the 64-bit fields start words
        assert_eq!(DECISION.offset("write_address") % 32, 0);
        assert!(DECISION.field("failure").unwrap().max() >= u128::from(CheckFailure::ReceiveBufferTooSmall.code()));
    }

    #[test]
    fn every_counter_has_one_index() {
        assert!(ResponderCounter::ALL.len() <= 1 << COUNTER_INDEX_BITS);
        let names: std::collections::HashSet<_> = ResponderCounter::ALL.iter().map(|c| c.name()).collect();
        assert_eq!(names.len(), ResponderCounter::ALL.len());
        for (i, c) in ResponderCounter::ALL.iter().enumerate() {
            assert_eq!(c.index(), i);
        }
    }
}
