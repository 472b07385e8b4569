//! The responder's golden model: what the engine's RX transport layer does with each request
//! the RX front end accepts, on an RC or UC QP, on a lossless wire. The specification is
//! `docs/engine.md`; the codes are in [`crate::contracts::responder`].
//!
//! [`Responder::receive`] takes an [`RxRecord`] and its payload (as [`rx_model`] gives them for
//! an accepted frame) and returns an [`Outcome`]: executed or the [`CheckFailure`], the memory
//! write, the receive completion, and the ACK, NAK or RDMA READ response to send. In order:
//!
//! 1. **Record**: a record that is not one of an accepted frame fails as `malformed`.
//! 2. **Dispatch**: ACKs, atomic ACKs, READ responses and CNPs are not requests: they are
//!    [`Verdict::Forwarded`] untouched (to the requester and congestion control).
//! 3. **Connection** (never answered): the QP number, the QP's state, the P_Key, the
//!    transport.
//! 4. **PSN**: RC: a duplicate is re-ACKed (a duplicate READ request is executed again), a PSN
//!    ahead gets one PSN sequence error NAK per gap. UC: another PSN drops the open message; a
//!    first or only packet resynchronises.
//! 5. **Request**: unsupported opcode, opcode sequence, R_Key (WRITE first or only, READ),
//!    payload length, DMA length, receive buffer.
//! 6. **Execution**: the memory write, the open message, the receive completion and MSN on
//!    the last packet, the expected PSN, and (RC) the coalesced ACK; for an RDMA READ request,
//!    the [`ReadResponse`] ([`read`] models READ).
//!
//! A failure after stage 3 is answered as [`CheckFailure::rc_answer`] says on RC; on UC it
//! drops the open message. A failing packet writes nothing and does not advance the PSN.
//!
//! ```
//! use ferroce_models::contracts::tx::{Pmtu, QpState};
//! use ferroce_models::responder::{QpAttributes, Responder};
//! use ferroce_models::wire::Transport;
//!
//! let mut responder = Responder::default();
//! let attributes = QpAttributes {
//!     state: QpState::Rtr,
//!     transport: Transport::Rc,
//!     pmtu: Pmtu::B1024,
//!     pkey: 0xffff,
//!     pd: 1,
//!     expected_psn: 0,
//!     min_rnr_timer: 14,
//!     ack_every: 0,
//! };
//! responder.add_qp(5, attributes).unwrap();
//! responder.post_receive(5, 0x1000, 4096).unwrap();
//! assert_eq!(responder.qp(5).unwrap().receive_queue.len(), 1);
//! ```

use crate::contracts::responder::{region_index, FIRST_QP, MSN_MASK, RECEIVING_STATES, REGION_KEY_BITS, RNR_TIMER_MAX};
use crate::contracts::tx::{Pmtu, QpState};
use crate::rx::{rx_model, supported_opcode, RxRecord, RxResult, RxVerdict};
use crate::tx::memory::SparseMemory;
use crate::tx::QpContext;
use crate::wire::bth::PSN_MASK;
use crate::wire::{aeth, Opcode, Operation, RethRepr, Transport};
use std::collections::{BTreeMap, VecDeque};
use std::fmt;

pub mod read;

pub use read::{read_packet_count, ReadResponse, ReadResponsePacket, MAX_READ_LENGTH};

pub use crate::contracts::responder::{
    is_request, message_operation, Access, Aeth, CheckFailure, MessageKind, NakCode, Position, RcAnswer, ReceiveStatus, Syndrome,
    DEFAULT_REGIONS,
};

/// QPs of the default configuration.
pub const DEFAULT_QPS: u32 = crate::tx::DEFAULT_QPS;
/// Largest QP count: DestQP has 24 bits.
pub const MAX_QPS: u32 = 1 << 24;
/// Largest memory region count: an R_Key's index bits.
pub const MAX_REGIONS: u32 = 1 << (32 - REGION_KEY_BITS);
/// A PSN up to this far behind the expected one is a duplicate; further is ahead.
pub const PSN_DUPLICATE_WINDOW: u32 = 1 << 23;

/// What the host sets for a QP's responder (the QP context fields it reads).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct QpAttributes {
    /// State; the responder executes requests in RTR, RTS, SQD and SQE.
    pub state: QpState,
    /// RC or UC.
    pub transport: Transport,
    /// Path MTU.
    pub pmtu: Pmtu,
    /// Partition key.
    pub pkey: u16,
    /// Protection domain: WRITEs and READs may use the memory regions of this PD only.
    pub pd: u16,
    /// The first PSN expected (the context's `rq_psn`, 24 bits).
    pub expected_psn: u32,
    /// RC: the RNR timer code sent in RNR NAKs (5 bits).
    pub min_rnr_timer: u8,
    /// RC: an ACK at least every N executed packets (0: only on AckReq).
    pub ack_every: u8,
}

impl QpAttributes {
    /// The attributes in a QP context (`state`, `transport`, `pmtu`, `pkey`, `pd`, `rq_psn`,
    /// `min_rnr_timer`, `ack_every`).
    pub fn from_context(context: &QpContext) -> Result<QpAttributes, SetupError> {
        Ok(QpAttributes {
            state: context.qp_state().ok_or(SetupError::StateCode(context.state))?,
            transport: context.transport_service().ok_or(SetupError::TransportCode(context.transport))?,
            pmtu: context.path_mtu().ok_or(SetupError::PmtuCode(context.pmtu))?,
            pkey: context.pkey,
            pd: context.pd,
            expected_psn: context.rq_psn,
            min_rnr_timer: context.min_rnr_timer,
            ack_every: context.ack_every,
        })
    }
}

/// A registered memory region: entry [`region_index`]`(rkey)` of the region table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct MemoryRegion {
    /// R_Key: the table index in bits 31:8, a key byte in bits 7:0.
    pub rkey: u32,
    /// Protection domain.
    pub pd: u16,
    /// Address of the first byte (the RETH VA space).
    pub base: u64,
    /// Bytes (base + length ≤ 2^64).
    pub length: u64,
    /// What peers may do.
    pub access: Access,
}

impl MemoryRegion {
    /// The region's packed table entry (`MEMORY_REGION`, valid).
    pub fn words(&self) -> Vec<u32> {
        crate::contracts::responder::MEMORY_REGION
            .encode(&[
                ("valid", 1),
                ("access", u128::from(self.access.code())),
                ("pd", u128::from(self.pd)),
                ("rkey", u128::from(self.rkey)),
                ("base", u128::from(self.base)),
                ("length", u128::from(self.length)),
            ])
            .expect("each field's type fits its width")
    }

    /// `[va, va + len)` lies inside the region.
    pub fn contains(&self, va: u64, len: u64) -> bool {
        va >= self.base && u128::from(va) + u128::from(len) <= u128::from(self.base) + u128::from(self.length)
    }
}

/// A posted receive buffer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ReceiveBuffer {
    /// Address of its first byte.
    pub address: u64,
    /// Bytes.
    pub length: u32,
}

/// The IBTA P_Key match: the same partition (bits 14:0), not the invalid partition 0, and at
/// least one side a full member (bit 15).
pub fn pkey_matches(packet: u16, qp: u16) -> bool {
    const PARTITION: u16 = 0x7FFF;
    const FULL_MEMBER: u16 = 0x8000;
    let partition = packet & PARTITION;
    partition == qp & PARTITION && partition != 0 && (packet | qp) & FULL_MEMBER != 0
}

/// Where a PSN lies from the expected one (serial arithmetic modulo 2^24).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PsnPlace {
    /// The expected PSN.
    Expected,
    /// 1 to 2^23 behind it.
    Duplicate,
    /// 1 to 2^23 − 1 ahead of it.
    Ahead,
}

impl PsnPlace {
    /// Where `psn` lies from `expected`.
    pub fn of(psn: u32, expected: u32) -> PsnPlace {
        match expected.wrapping_sub(psn) & PSN_MASK {
            0 => PsnPlace::Expected,
            behind if behind <= PSN_DUPLICATE_WINDOW => PsnPlace::Duplicate,
            _ => PsnPlace::Ahead,
        }
    }
}

/// The message open on a QP: its first packet was executed, its last not yet.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct OpenMessage {
    /// SEND (its buffer is the head of the receive queue) or WRITE.
    pub kind: MessageKind,
    /// Payload bytes placed so far: the next packet's offset in the message.
    pub bytes: u64,
    /// WRITE: where it goes.
    pub write: Option<WriteTarget>,
}

/// The RETH of a WRITE message's first packet, checked against its region.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct WriteTarget {
    /// Address of the message's first byte.
    pub va: u64,
    /// The message's bytes.
    pub dma_len: u32,
    /// The region table entry it was checked against (`None` for a zero-length WRITE, whose
    /// R_Key and VA are not checked).
    pub region: Option<u32>,
}

/// A QP's responder: the host's attributes and the state the responder keeps.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResponderQp {
    /// State; a NAK other than PSN sequence error moves it to Error.
    pub state: QpState,
    /// RC or UC.
    pub transport: Transport,
    /// Path MTU.
    pub pmtu: Pmtu,
    /// Partition key.
    pub pkey: u16,
    /// Protection domain.
    pub pd: u16,
    /// RC: the RNR timer code of its RNR NAKs.
    pub min_rnr_timer: u8,
    /// RC: an ACK at least every N executed packets (0: only on AckReq).
    pub ack_every: u8,
    /// The PSN expected next (24 bits).
    pub expected_psn: u32,
    /// Messages completed, modulo 2^24 (the AETH MSN).
    pub msn: u32,
    /// RC: a NAK asking for `expected_psn` (PSN sequence error or RNR) was sent: packets ahead
    /// of it get no answer until it arrives.
    pub nak_sent: bool,
    /// RC: packets executed since the last ACK or NAK.
    pub unacknowledged: u32,
    /// The open message, if any.
    pub message: Option<OpenMessage>,
    /// Posted receive buffers; the head one is the open SEND's.
    pub receive_queue: VecDeque<ReceiveBuffer>,
    // READ keeps no state here: a duplicate READ request is checked and read again from memory
    // (no replay record), and the READ responses in progress are the TX path's. Atomics would
    // add the responder's READ/atomic resources.
}

impl ResponderQp {
    fn new(attributes: QpAttributes) -> ResponderQp {
        ResponderQp {
            state: attributes.state,
            transport: attributes.transport,
            pmtu: attributes.pmtu,
            pkey: attributes.pkey,
            pd: attributes.pd,
            min_rnr_timer: attributes.min_rnr_timer,
            ack_every: attributes.ack_every,
            expected_psn: attributes.expected_psn,
            msn: 0,
            nak_sent: false,
            unacknowledged: 0,
            message: None,
            receive_queue: VecDeque::new(),
        }
    }
}

/// Bytes to write to memory.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct MemoryWrite {
    /// Address of the first byte.
    pub address: u64,
    /// The bytes.
    pub bytes: Vec<u8>,
}

impl MemoryWrite {
    /// Writes the bytes into `memory`.
    pub fn apply(&self, memory: &mut SparseMemory) {
        memory.write(self.address, &self.bytes);
    }
}

/// A receive completion: a receive buffer consumed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Completion {
    /// The QP.
    pub qp: u32,
    /// SEND, or WRITE with immediate.
    pub kind: MessageKind,
    /// The receive buffer consumed.
    pub buffer: ReceiveBuffer,
    /// The message's bytes (on an error: the bytes placed before it).
    pub length: u32,
    /// The immediate, if the message had one.
    pub immediate: Option<u32>,
    /// The solicited-event bit of the message's last packet.
    pub solicited: bool,
    /// How it ended.
    pub status: ReceiveStatus,
}

/// An ACK or NAK to send to the QP's peer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Response {
    /// The local QP whose context addresses it.
    pub qp: u32,
    /// BTH PSN: the PSN acknowledged (ACK) or expected (NAK).
    pub psn: u32,
    /// Syndrome and MSN.
    pub aeth: Aeth,
}

/// Executed or not.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Verdict {
    /// Executed: its bytes are written (a READ: its response is to send), the PSN advanced
    /// (not by a duplicate READ request, executed again).
    Executed,
    /// Not executed: the first check that failed.
    Failed(CheckFailure),
    /// Not a request: passed on untouched.
    Forwarded,
}

/// What the engine does with one packet.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome {
    /// Executed, failed or forwarded.
    pub verdict: Verdict,
    /// The payload's memory write (an executed packet with payload).
    pub write: Option<MemoryWrite>,
    /// A receive completion: a SEND or WRITE with immediate ended, or (RC) a SEND cut short
    /// by an error.
    pub completion: Option<Completion>,
    /// The ACK or NAK to send.
    pub response: Option<Response>,
    /// An executed RDMA READ request: the READ response to send (it acknowledges like an ACK,
    /// so `response` is `None`).
    pub read_response: Option<ReadResponse>,
    /// UC: the message open on the QP was dropped by this packet (a gap, a failure or a new
    /// first packet).
    pub dropped_message: bool,
    /// A forwarded packet: what the requester reads of it.
    pub forwarded: Option<Forwarded>,
}

/// What a forwarded packet (an ACK, a NAK, a READ response, a CNP) tells the requester, besides
/// its DestQP: its BTH PSN and its AETH. The decision carries them in its `response_*` fields.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Forwarded {
    /// BTH opcode.
    pub opcode: u8,
    /// BTH PSN.
    pub psn: u32,
    /// The AETH word (syndrome in bits 31:24, MSN in 23:0), when the packet has one.
    pub aeth: Option<u32>,
}

impl Outcome {
    fn of(verdict: Verdict) -> Outcome {
        Outcome {
            verdict,
            write: None,
            completion: None,
            response: None,
            read_response: None,
            dropped_message: false,
            forwarded: None,
        }
    }

    fn failed(failure: CheckFailure) -> Outcome {
        Outcome::of(Verdict::Failed(failure))
    }

    /// The failure, if the packet failed a check.
    pub fn failure(&self) -> Option<CheckFailure> {
        match self.verdict {
            Verdict::Failed(f) => Some(f),
            _ => None,
        }
    }

    /// The packet was executed.
    pub fn executed(&self) -> bool {
        self.verdict == Verdict::Executed
    }
}

/// The responder's counters.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct ResponderCounters {
    /// Packets executed.
    pub packets_executed: u64,
    /// Payload bytes written by executed packets.
    pub bytes_executed: u64,
    /// Packets forwarded (not requests).
    pub forwarded: u64,
    /// Packets not executed, indexed by [`CheckFailure::index`] (duplicates and out-of-sequence
    /// packets included).
    pub failures: [u64; CheckFailure::ALL.len()],
    /// Receive completions (error ones included).
    pub completions: u64,
    /// ACKs sent.
    pub acks: u64,
    /// RNR NAKs sent.
    pub rnr_naks: u64,
    /// NAKs sent, indexed by [`NakCode::code`].
    pub naks: [u64; NakCode::ALL.len()],
    /// UC messages dropped after their first packet was executed.
    pub uc_messages_dropped: u64,
    /// RDMA READ requests executed at the expected PSN (each one READ response).
    pub read_requests: u64,
    /// Duplicate RDMA READ requests executed again (each one READ response; not counted in
    /// `read_requests` nor as `psn_duplicate` failures).
    pub read_duplicates: u64,
}

impl ResponderCounters {
    /// Counts one outcome.
    pub fn count(&mut self, outcome: &Outcome) {
        match outcome.verdict {
            Verdict::Executed => {
                self.packets_executed += 1;
                self.bytes_executed += outcome.write.as_ref().map_or(0, |w| w.bytes.len() as u64);
            }
            Verdict::Failed(f) => self.failures[f.index()] += 1,
            Verdict::Forwarded => self.forwarded += 1,
        }
        self.completions += u64::from(outcome.completion.is_some());
        if let Some(response) = outcome.response {
            match response.aeth.syndrome {
                Syndrome::Ack { .. } => self.acks += 1,
                Syndrome::RnrNak { .. } => self.rnr_naks += 1,
                Syndrome::Nak(code) => self.naks[usize::from(code.code())] += 1,
            }
        }
        self.uc_messages_dropped += u64::from(outcome.dropped_message);
        match outcome.read_response {
            Some(read) if read.duplicate => self.read_duplicates += 1,
            Some(_) => self.read_requests += 1,
            None => {}
        }
    }

    /// Packets that failed this check.
    pub fn failed(&self, failure: CheckFailure) -> u64 {
        self.failures[failure.index()]
    }

    /// RC duplicates (re-ACKed, not executed; duplicate READ requests are `read_duplicates`).
    pub fn duplicates(&self) -> u64 {
        self.failed(CheckFailure::PsnDuplicate)
    }

    /// Packets out of sequence (RC: ahead of the expected PSN; UC: dropped for their PSN).
    pub fn out_of_sequence(&self) -> u64 {
        self.failed(CheckFailure::PsnOutOfSequence)
    }

    /// NAKs sent with this code.
    pub fn naks_sent(&self, code: NakCode) -> u64 {
        self.naks[usize::from(code.code())]
    }
}

/// Why a setup call is refused; nothing is changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SetupError {
    /// The QP count is not in 1..=2^24.
    QpCount(u32),
    /// The region count is not in 1..=2^24.
    RegionCount(u32),
    /// A QP number at or beyond the QP count.
    QpNumber(u32),
    /// `add_qp` on a QP that is not in reset.
    QpInUse(u32),
    /// `post_receive` on a QP in reset.
    QpInReset(u32),
    /// A transport other than RC and UC.
    Transport(Transport),
    /// A PSN wider than 24 bits.
    Psn(u32),
    /// An RNR timer code beyond 31.
    RnrTimer(u8),
    /// A context's state code is not a [`QpState`].
    StateCode(u8),
    /// A context's transport code is not RC or UC.
    TransportCode(u8),
    /// A context's path MTU code is not a [`Pmtu`].
    PmtuCode(u8),
    /// An R_Key whose table index is at or beyond the region count.
    RegionIndex(u32),
    /// An R_Key whose table entry already holds a region.
    RegionInUse(u32),
    /// A region or receive buffer that runs past the end of the address space.
    Wraps,
}

impl fmt::Display for SetupError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SetupError::QpCount(n) => write!(f, "{n} QPs is not 1..={MAX_QPS}"),
            SetupError::RegionCount(n) => write!(f, "{n} memory regions is not 1..={MAX_REGIONS}"),
            SetupError::QpNumber(q) => write!(f, "QP {q} is beyond the QP count"),
            SetupError::QpInUse(q) => write!(f, "QP {q} is not in reset"),
            SetupError::QpInReset(q) => write!(f, "QP {q} is in reset"),
            SetupError::Transport(t) => write!(f, "transport {} is not RC or UC", t.name()),
            SetupError::Psn(p) => write!(f, "PSN {p:#x} is wider than 24 bits"),
            SetupError::RnrTimer(c) => write!(f, "RNR timer code {c} is beyond {RNR_TIMER_MAX}"),
            SetupError::StateCode(c) => write!(f, "state code {c} is not a QP state"),
            SetupError::TransportCode(c) => write!(f, "transport code {c} is not RC (0) or UC (1)"),
            SetupError::PmtuCode(c) => write!(f, "path MTU code {c} is not 1..=5"),
            SetupError::RegionIndex(k) => write!(f, "R_Key {k:#x} selects an entry beyond the region count"),
            SetupError::RegionInUse(k) => write!(f, "R_Key {k:#x} selects an entry that holds a region"),
            SetupError::Wraps => write!(f, "the range runs past the end of the address space"),
        }
    }
}

impl std::error::Error for SetupError {}

/// The fields of a record the responder reads, once the record is known to be an accepted
/// frame's.
#[derive(Debug, Clone, Copy)]
struct Request<'a> {
    opcode: Opcode,
    dest_qp: u32,
    pkey: u16,
    psn: u32,
    ack_req: bool,
    solicited: bool,
    reth: Option<RethRepr>,
    immediate: Option<u32>,
    payload: &'a [u8],
}

impl<'a> Request<'a> {
    /// The request of an accepted frame's record (`None` if it cannot be one).
    fn of(record: &RxRecord, payload: &'a [u8]) -> Option<Request<'a>> {
        let bth = record.bth?;
        let opcode = supported_opcode(bth.opcode)?;
        let ext = opcode.ext_headers();
        let headers_present = ext.deth == record.deth.is_some()
            && ext.reth == record.reth.is_some()
            && ext.atomic_eth == record.atomic_eth.is_some()
            && ext.aeth == record.aeth.is_some()
            && ext.atomic_ack_eth == record.atomic_ack_eth.is_some()
            && ext.immdt == record.immdt.is_some()
            && ext.ieth == record.ieth.is_some();
        let accepted = headers_present && record.icrc_ok == Some(true) && record.payload_len == payload.len();
        accepted.then_some(Request {
            opcode,
            dest_qp: bth.dqpn,
            pkey: bth.pkey,
            psn: bth.psn,
            ack_req: bth.ackreq,
            solicited: bth.se,
            reth: record.reth,
            immediate: record.immdt.map(|i| i.imm),
            payload,
        })
    }

    fn len(&self) -> u64 {
        self.payload.len() as u64
    }
}

/// A request that passed every check: where its payload goes.
#[derive(Debug, Clone, Copy)]
struct Placement {
    kind: MessageKind,
    position: Position,
    /// The payload's offset in the message.
    offset: u64,
    write: Option<WriteTarget>,
}

/// The memory region table.
type Regions = BTreeMap<u32, MemoryRegion>;

/// What a RETH asks of its region.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum RemoteAccess {
    /// RDMA WRITE.
    Write,
    /// RDMA READ.
    Read,
}

impl RemoteAccess {
    /// The region's access flags allow it.
    fn allowed_by(self, access: Access) -> bool {
        match self {
            RemoteAccess::Write => access.remote_write,
            RemoteAccess::Read => access.remote_read,
        }
    }
}

impl ResponderQp {
    /// Stages 4 to 6 for a request that passed the connection checks.
    fn handle(&mut self, qpn: u32, request: &Request, regions: &Regions) -> Outcome {
        if request.opcode.operation() == Operation::ReadRequest {
            // An RC opcode: the connection checks keep it to RC QPs.
            return self.handle_read(qpn, request, regions);
        }
        let operation = message_operation(request.opcode.operation());
        let starts = operation.is_some_and(|(_, position)| position.starts());
        let mut dropped_message = false;
        match self.transport {
            Transport::Rc => match PsnPlace::of(request.psn, self.expected_psn) {
                PsnPlace::Duplicate => return self.fail(qpn, CheckFailure::PsnDuplicate),
                PsnPlace::Ahead => return self.fail(qpn, CheckFailure::PsnOutOfSequence),
                PsnPlace::Expected => self.nak_sent = false,
            },
            _ => {
                if request.psn != self.expected_psn {
                    if !starts {
                        return self.fail(qpn, CheckFailure::PsnOutOfSequence);
                    }
                    // Resynchronise on a first or only packet.
                    dropped_message = self.drop_message();
                }
            }
        }
        let mut outcome = match self.check(request, operation, regions, &mut dropped_message) {
            Ok(placement) => self.execute(qpn, request, placement),
            Err(failure) => self.fail(qpn, failure),
        };
        outcome.dropped_message |= dropped_message;
        outcome
    }

    /// Stage 5: the request checks, in precedence order.
    fn check(
        &mut self,
        request: &Request,
        operation: Option<(MessageKind, Position)>,
        regions: &Regions,
        dropped_message: &mut bool,
    ) -> Result<Placement, CheckFailure> {
        let (kind, position) = operation.ok_or(CheckFailure::UnsupportedOpcode)?;

        // Opcode sequence.
        match (self.message, position.starts()) {
            (None, false) => return Err(CheckFailure::OpcodeSequence),
            (Some(open), false) if open.kind != kind => return Err(CheckFailure::OpcodeSequence),
            (Some(_), true) if self.transport == Transport::Rc => return Err(CheckFailure::OpcodeSequence),
            (Some(_), true) => *dropped_message |= self.drop_message(),
            _ => {}
        }
        let open = self.message.filter(|_| !position.starts());
        let offset = open.map_or(0, |m| m.bytes);

        // R_Key, on a WRITE's first or only packet (the RETH is there: Request::of checked it).
        let write = match (kind, open) {
            (MessageKind::Write, None) => {
                let reth = request.reth.ok_or(CheckFailure::Malformed)?;
                Some(WriteTarget {
                    va: reth.va,
                    dma_len: reth.dma_len,
                    region: self.check_region(reth, RemoteAccess::Write, regions)?,
                })
            }
            (MessageKind::Write, Some(m)) => m.write,
            (MessageKind::Send, _) => None,
        };

        // Payload length.
        let pmtu = u64::from(self.pmtu.bytes());
        let len = request.len();
        let length_ok = match position {
            Position::First | Position::Middle => len == pmtu,
            Position::Last => (1..=pmtu).contains(&len),
            Position::Only => len <= pmtu,
        };
        if !length_ok {
            return Err(CheckFailure::PayloadLength);
        }

        // DMA length.
        let end = offset + len;
        if let Some(target) = write {
            let dma_len = u64::from(target.dma_len);
            if end > dma_len || (position.ends() && end != dma_len) {
                return Err(CheckFailure::DmaLength);
            }
        }

        // Receive buffer: a SEND's from its first packet on, a WRITE with immediate's on its
        // last packet.
        let needs_buffer = kind == MessageKind::Send || (position.ends() && request.immediate.is_some());
        if needs_buffer {
            let buffer = self.receive_queue.front().ok_or(CheckFailure::NoReceiveBuffer)?;
            if kind == MessageKind::Send && end > u64::from(buffer.length) {
                return Err(CheckFailure::ReceiveBufferTooSmall);
            }
        }
        Ok(Placement {
            kind,
            position,
            offset,
            write,
        })
    }

    /// The R_Key checks of a WRITE's or READ's RETH: the region table entry checked, `None` for
    /// a zero-length transfer (its R_Key and VA are not checked).
    fn check_region(&self, reth: RethRepr, needs: RemoteAccess, regions: &Regions) -> Result<Option<u32>, CheckFailure> {
        if reth.dma_len == 0 {
            return Ok(None);
        }
        let index = region_index(reth.r_key);
        let region = regions
            .get(&index)
            .filter(|r| r.rkey == reth.r_key)
            .ok_or(CheckFailure::RkeyInvalid)?;
        if region.pd != self.pd {
            return Err(CheckFailure::RkeyDomain);
        }
        if !needs.allowed_by(region.access) {
            return Err(CheckFailure::RkeyAccess);
        }
        if !region.contains(reth.va, u64::from(reth.dma_len)) {
            return Err(CheckFailure::RkeyBounds);
        }
        Ok(Some(index))
    }

    /// Stage 6: executes a request that passed every check.
    fn execute(&mut self, qpn: u32, request: &Request, placement: Placement) -> Outcome {
        let Placement {
            kind,
            position,
            offset,
            write,
        } = placement;
        let mut outcome = Outcome::of(Verdict::Executed);
        // A WRITE has its target; the checks guarantee a SEND its buffer, and keep the bytes
        // inside the region or the buffer.
        let base = match (write, self.receive_queue.front()) {
            (Some(target), _) => target.va,
            (None, Some(buffer)) => buffer.address,
            (None, None) => 0,
        };
        if !request.payload.is_empty() {
            outcome.write = Some(MemoryWrite {
                address: base.wrapping_add(offset),
                bytes: request.payload.to_vec(),
            });
        }
        let bytes = offset + request.len();
        if position.ends() {
            self.message = None;
            self.msn = (self.msn + 1) & MSN_MASK;
            if kind == MessageKind::Send || request.immediate.is_some() {
                outcome.completion = self.receive_queue.pop_front().map(|buffer| Completion {
                    qp: qpn,
                    kind,
                    buffer,
                    length: bytes as u32,
                    immediate: request.immediate,
                    solicited: request.solicited,
                    status: ReceiveStatus::Success,
                });
            }
        } else {
            self.message = Some(OpenMessage { kind, bytes, write });
        }
        self.expected_psn = (request.psn + 1) & PSN_MASK;
        if self.transport == Transport::Rc {
            self.unacknowledged += 1;
            let every = u32::from(self.ack_every);
            if request.ack_req || (every > 0 && self.unacknowledged >= every) {
                outcome.response = Some(self.ack(qpn, request.psn));
            }
        }
        outcome
    }

    /// A failure after the connection checks: RC answers it, UC drops the open message.
    fn fail(&mut self, qpn: u32, failure: CheckFailure) -> Outcome {
        self.fail_at(qpn, failure, self.expected_psn)
    }

    /// [`ResponderQp::fail`] with the NAK at `psn`: the expected PSN, or a duplicate READ
    /// request's own (its checks fail only with NAKs that move the QP to Error).
    fn fail_at(&mut self, qpn: u32, failure: CheckFailure, psn: u32) -> Outcome {
        let mut outcome = Outcome::failed(failure);
        if self.transport != Transport::Rc {
            outcome.dropped_message = self.drop_message();
            return outcome;
        }
        let syndrome = match failure.rc_answer() {
            RcAnswer::Silent => return outcome,
            RcAnswer::Reack => {
                let last_executed = self.expected_psn.wrapping_sub(1) & PSN_MASK;
                outcome.response = Some(self.ack(qpn, last_executed));
                return outcome;
            }
            RcAnswer::Nak(NakCode::PsnSequenceError) if self.nak_sent => return outcome,
            RcAnswer::Nak(NakCode::PsnSequenceError) => {
                self.nak_sent = true;
                Syndrome::Nak(NakCode::PsnSequenceError)
            }
            RcAnswer::RnrNak => {
                self.nak_sent = true;
                Syndrome::RnrNak { timer: self.min_rnr_timer }
            }
            RcAnswer::Nak(code) => {
                outcome.completion = self.error_completion(qpn, failure);
                self.state = QpState::Error;
                self.message = None;
                Syndrome::Nak(code)
            }
        };
        self.unacknowledged = 0;
        outcome.response = Some(Response {
            qp: qpn,
            psn,
            aeth: Aeth { syndrome, msn: self.msn },
        });
        outcome
    }

    /// RC, a failure that moves the QP to Error: the receive buffer bound to the SEND (the open
    /// one, or the one this packet found too small) completes with an error status.
    fn error_completion(&mut self, qpn: u32, failure: CheckFailure) -> Option<Completion> {
        let open_send = self.message.filter(|m| m.kind == MessageKind::Send);
        if open_send.is_none() && failure != CheckFailure::ReceiveBufferTooSmall {
            return None;
        }
        let status = match failure {
            CheckFailure::ReceiveBufferTooSmall => ReceiveStatus::LengthError,
            _ => ReceiveStatus::InvalidRequest,
        };
        let buffer = self.receive_queue.pop_front()?;
        Some(Completion {
            qp: qpn,
            kind: MessageKind::Send,
            buffer,
            length: open_send.map_or(0, |m| m.bytes as u32),
            immediate: None,
            solicited: false,
            status,
        })
    }

    /// An ACK of `psn`.
    fn ack(&mut self, qpn: u32, psn: u32) -> Response {
        self.unacknowledged = 0;
        Response {
            qp: qpn,
            psn,
            aeth: Aeth {
                syndrome: Syndrome::ack(),
                msn: self.msn,
            },
        }
    }

    /// Drops the open message (its receive buffer stays at the head of the queue, for the next
    /// SEND); true if one was open.
    fn drop_message(&mut self) -> bool {
        self.message.take().is_some()
    }
}

/// `[address, address + length)` does not fit below 2^64.
fn ends_past_the_address_space(address: u64, length: u64) -> bool {
    u128::from(address) + u128::from(length) > 1 << 64
}

/// The responder of an engine: its QP table, memory region table and counters.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Responder {
    qp_count: u32,
    region_count: u32,
    qps: BTreeMap<u32, ResponderQp>,
    regions: Regions,
    counters: ResponderCounters,
}

impl Default for Responder {
    /// [`DEFAULT_QPS`] QPs, [`DEFAULT_REGIONS`] memory regions.
    fn default() -> Responder {
        Responder {
            qp_count: DEFAULT_QPS,
            region_count: DEFAULT_REGIONS,
            qps: BTreeMap::new(),
            regions: BTreeMap::new(),
            counters: ResponderCounters::default(),
        }
    }
}

impl Responder {
    /// A responder of `qp_count` QPs and `region_count` memory regions, all QPs in reset and
    /// all region entries empty.
    pub fn new(qp_count: u32, region_count: u32) -> Result<Responder, SetupError> {
        if !(1..=MAX_QPS).contains(&qp_count) {
            return Err(SetupError::QpCount(qp_count));
        }
        if !(1..=MAX_REGIONS).contains(&region_count) {
            return Err(SetupError::RegionCount(region_count));
        }
        Ok(Responder {
            qp_count,
            region_count,
            ..Responder::default()
        })
    }

    /// Sets up a QP in reset with `attributes`: expected PSN from them, MSN 0, no open message,
    /// no receive buffer (attributes in state Reset leave it in reset).
    pub fn add_qp(&mut self, qpn: u32, attributes: QpAttributes) -> Result<(), SetupError> {
        if qpn >= self.qp_count {
            return Err(SetupError::QpNumber(qpn));
        }
        if self.qps.contains_key(&qpn) {
            return Err(SetupError::QpInUse(qpn));
        }
        if !matches!(attributes.transport, Transport::Rc | Transport::Uc) {
            return Err(SetupError::Transport(attributes.transport));
        }
        if attributes.expected_psn > PSN_MASK {
            return Err(SetupError::Psn(attributes.expected_psn));
        }
        if attributes.min_rnr_timer > RNR_TIMER_MAX {
            return Err(SetupError::RnrTimer(attributes.min_rnr_timer));
        }
        if attributes.state != QpState::Reset {
            self.qps.insert(qpn, ResponderQp::new(attributes));
        }
        Ok(())
    }

    /// Puts a QP back in reset: its state and receive buffers are forgotten.
    pub fn reset_qp(&mut self, qpn: u32) -> Result<(), SetupError> {
        if qpn >= self.qp_count {
            return Err(SetupError::QpNumber(qpn));
        }
        self.qps.remove(&qpn);
        Ok(())
    }

    /// Registers a memory region in entry [`region_index`]`(region.rkey)`.
    pub fn add_memory_region(&mut self, region: MemoryRegion) -> Result<(), SetupError> {
        let index = region_index(region.rkey);
        if index >= self.region_count {
            return Err(SetupError::RegionIndex(region.rkey));
        }
        if self.regions.contains_key(&index) {
            return Err(SetupError::RegionInUse(region.rkey));
        }
        if ends_past_the_address_space(region.base, region.length) {
            return Err(SetupError::Wraps);
        }
        self.regions.insert(index, region);
        Ok(())
    }

    /// Posts a receive buffer at the tail of a QP's receive queue.
    pub fn post_receive(&mut self, qpn: u32, address: u64, length: u32) -> Result<(), SetupError> {
        if qpn >= self.qp_count {
            return Err(SetupError::QpNumber(qpn));
        }
        let qp = self.qps.get_mut(&qpn).ok_or(SetupError::QpInReset(qpn))?;
        if ends_past_the_address_space(address, u64::from(length)) {
            return Err(SetupError::Wraps);
        }
        qp.receive_queue.push_back(ReceiveBuffer { address, length });
        Ok(())
    }

    /// What the engine does with one accepted packet (the module docs list the stages).
    pub fn receive(&mut self, record: &RxRecord, payload: &[u8]) -> Outcome {
        let outcome = self.process(record, payload);
        self.counters.count(&outcome);
        outcome
    }

    /// [`Responder::receive`] of a frame the RX front end model accepts; `None` for a frame it
    /// drops or passes.
    pub fn receive_frame(&mut self, frame: &[u8]) -> Option<Outcome> {
        let rx = rx_model(frame);
        let record = rx.record.filter(|_| rx.verdict == RxVerdict::Accept)?;
        Some(self.receive(&record, &rx.payload))
    }

    /// What the engine's RX path does with the RX front end model's result for one frame:
    /// `None` for a frame passed through (not RoCEv2, no record); a frame the front end drops
    /// fails as [`CheckFailure::Malformed`] (counted), as its record reaches the RTL with
    /// `r_drop`; an accepted frame is [`Responder::receive`]d.
    pub fn receive_rx(&mut self, rx: &RxResult) -> Option<Outcome> {
        let record = rx.record.as_ref()?;
        Some(match rx.verdict {
            RxVerdict::Accept => self.receive(record, &rx.payload),
            _ => {
                let outcome = Outcome::failed(CheckFailure::Malformed);
                self.counters.count(&outcome);
                outcome
            }
        })
    }

    fn process(&mut self, record: &RxRecord, payload: &[u8]) -> Outcome {
        // 1. Record, 2. dispatch.
        let Some(request) = Request::of(record, payload) else {
            return Outcome::failed(CheckFailure::Malformed);
        };
        if !is_request(request.opcode.operation()) {
            return Outcome {
                forwarded: Some(Forwarded {
                    opcode: request.opcode.value(),
                    psn: request.psn,
                    aeth: record.aeth.map(|a| a.word()),
                }),
                ..Outcome::of(Verdict::Forwarded)
            };
        }
        // 3. Connection.
        if request.dest_qp >= self.qp_count || request.dest_qp < FIRST_QP {
            return Outcome::failed(CheckFailure::QpNumber);
        }
        let Some(qp) = self.qps.get_mut(&request.dest_qp).filter(|qp| RECEIVING_STATES.contains(&qp.state)) else {
            return Outcome::failed(CheckFailure::QpState);
        };
        if !pkey_matches(request.pkey, qp.pkey) {
            return Outcome::failed(CheckFailure::Pkey);
        }
        if request.opcode.transport() != qp.transport {
            return Outcome::failed(CheckFailure::Transport);
        }
        // 4 to 6.
        qp.handle(request.dest_qp, &request, &self.regions)
    }

    /// A QP's responder state (`None` in reset).
    pub fn qp(&self, qpn: u32) -> Option<&ResponderQp> {
        self.qps.get(&qpn)
    }

    /// The counters since the responder was made.
    pub fn counters(&self) -> &ResponderCounters {
        &self.counters
    }
}

/// Whether a record is one of an accepted frame carrying `record.payload_len` payload bytes:
/// what the RTL is told by `r_drop = 0` and `r_bth_ok = 1`. Any other record fails as
/// [`CheckFailure::Malformed`] (the RTL never sees the payload bytes, only their count).
pub fn is_well_formed(record: &RxRecord) -> bool {
    Request::of(record, &vec![0; record.payload_len]).is_some()
}

impl ResponderCounters {
    /// The counter the RTL shows at [`ResponderCounter::index`] (`bytes_executed` has no RTL
    /// counter).
    ///
    /// [`ResponderCounter::index`]: crate::contracts::responder::ResponderCounter::index
    pub fn value(&self, counter: crate::contracts::responder::ResponderCounter) -> u64 {
        use crate::contracts::responder::ResponderCounter as C;
        match counter {
            C::PacketsExecuted => self.packets_executed,
            C::Forwarded => self.forwarded,
            C::Completions => self.completions,
            C::Acks => self.acks,
            C::RnrNaks => self.rnr_naks,
            C::Naks(code) => self.naks_sent(code),
            C::UcMessagesDropped => self.uc_messages_dropped,
            C::Failures(failure) => self.failed(failure),
            C::ReadRequests => self.read_requests,
            C::ReadDuplicates => self.read_duplicates,
        }
    }
}

crate::tx::record::record_view! {
    /// One entry of the RTL's decision stream (the [`DECISION`] schema), field for field: what the
    /// engine does with one final record. A field that is not meaningful is 0 (no write: no
    /// address; no completion: every `completion_*` field; no response nor READ: every `response_*` field; no READ: `read_*`);
    /// `qp` (the record's DestQP) and `write_length` (its payload bytes) are in every decision, the
    /// payload path needing the length to discard a payload it does not write.
    ///
    /// A field per schema field, of the same name, packed and unpacked through the schema
    /// (`record_view!`, as the TX records).
    ///
    /// [`DECISION`]: crate::contracts::responder::DECISION
    pub struct Decision(crate::contracts::responder::DECISION) {
        /// Failure code, 0 if none.
        failure: u8,
        /// A response or CNP passed on.
        forwarded: bool,
        /// A forwarded packet with an AETH.
        acknowledgement: bool,
        /// UC: the open message was dropped.
        dropped_message: bool,
        /// The payload is written.
        write: bool,
        /// Payload bytes (in every decision).
        write_length: u16,
        /// A receive completion.
        completion: bool,
        /// `completion_kind::SEND` or `WRITE`.
        completion_kind: u8,
        /// `ReceiveStatus` code.
        completion_status: u8,
        /// SE bit of the last packet.
        completion_solicited: bool,
        /// The message carried an immediate.
        completion_immediate_valid: bool,
        /// An ACK or NAK.
        response: bool,
        /// AETH syndrome.
        response_syndrome: u8,
        /// The record's DestQP (in every decision).
        qp: u32,
        /// BTH PSN of the response.
        response_psn: u32,
        /// An RDMA READ response to send (its PSN and AETH in the `response_*` fields).
        read: bool,
        /// AETH MSN of the response.
        response_msn: u32,
        /// A forwarded packet's BTH opcode.
        forwarded_opcode: u8,
        /// Message bytes.
        completion_length: u32,
        /// Length of the consumed buffer.
        completion_buffer_length: u32,
        /// The immediate.
        completion_immediate: u32,
        /// Where the payload goes.
        write_address: u64,
        /// Address of the consumed buffer.
        completion_buffer_address: u64,
        /// The READ's DMA length.
        read_length: u32,
        /// The READ's VA.
        read_va: u64,
    }
}

impl Decision {
    /// The decision of `outcome`, for a record of DestQP `dest_qp` (24 bits kept) and
    /// `payload_len` payload bytes.
    pub fn of(outcome: &Outcome, dest_qp: u32, payload_len: u16) -> Decision {
        use crate::contracts::responder::completion_kind;
        let mut d = Decision {
            failure: outcome
                .failure()
                .map_or(crate::contracts::responder::NO_FAILURE, CheckFailure::code),
            forwarded: outcome.verdict == Verdict::Forwarded,
            dropped_message: outcome.dropped_message,
            write_length: payload_len,
            qp: dest_qp & 0xFF_FFFF, // DestQP has 24 bits
            ..Decision::default()
        };
        if let Some(write) = &outcome.write {
            d.write = true;
            d.write_address = write.address;
        }
        if let Some(c) = outcome.completion {
            d.completion = true;
            d.completion_kind = match c.kind {
                MessageKind::Send => completion_kind::SEND,
                MessageKind::Write => completion_kind::WRITE,
            };
            d.completion_status = c.status.code();
            d.completion_solicited = c.solicited;
            d.completion_immediate_valid = c.immediate.is_some();
            d.completion_immediate = c.immediate.unwrap_or(0);
            d.completion_length = c.length;
            d.completion_buffer_length = c.buffer.length;
            d.completion_buffer_address = c.buffer.address;
        }
        if let Some(r) = outcome.response {
            d.response = true;
            d.response_syndrome = r.aeth.syndrome.encode();
            d.response_psn = r.psn;
            d.response_msn = r.aeth.msn;
        }
        if let Some(r) = outcome.read_response {
            d.read = true;
            d.read_length = r.length;
            d.read_va = r.va;
            d.response_syndrome = r.aeth.syndrome.encode();
            d.response_psn = r.first_psn;
            d.response_msn = r.aeth.msn;
        }
        if let Some(f) = outcome.forwarded {
            d.acknowledgement = f.aeth.is_some();
            (d.response_syndrome, d.response_msn) = aeth::split(f.aeth.unwrap_or(0));
            d.response_psn = f.psn;
            d.forwarded_opcode = f.opcode;
        }
        d
    }

    /// The response's AETH as one word (syndrome in bits 31:24, MSN in 23:0), as the TX
    /// path's response port takes it.
    pub fn response_aeth(&self) -> u32 {
        aeth::word(self.response_syndrome, self.response_msn)
    }

    /// The fields in which `self` and `other` differ: `(name, self's value, other's value)`.
    pub fn differences(&self, other: &Decision) -> Vec<(&'static str, u128, u128)> {
        self.values()
            .into_iter()
            .zip(other.values())
            .filter(|((_, a), (_, b))| a != b)
            .map(|((name, a), (_, b))| (name, a, b))
            .collect()
    }
}

impl fmt::Display for Decision {
    /// One line: the verdict, the write, the completion and the response, with names for the
    /// codes.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.failure, self.forwarded) {
            (0, true) => write!(f, "QP {:#x} forwarded", self.qp)?,
            (0, false) => write!(f, "QP {:#x} executed", self.qp)?,
            (code, _) => match CheckFailure::from_code(code) {
                Some(failure) => write!(f, "QP {:#x} failed {}", self.qp, failure.name())?,
                None => write!(f, "QP {:#x} failure code {code}", self.qp)?,
            },
        }
        if self.forwarded && self.failure != 0 {
            write!(f, " (forwarded set)")?;
        }
        if self.dropped_message {
            write!(f, ", UC message dropped")?;
        }
        write!(f, ", {} payload bytes", self.write_length)?;
        if self.write {
            write!(f, " written at {:#x}", self.write_address)?;
        }
        if self.completion {
            let kind = if self.completion_kind == crate::contracts::responder::completion_kind::SEND {
                "SEND"
            } else {
                "WRITE"
            };
            let status = ReceiveStatus::from_code(self.completion_status).map_or("?", ReceiveStatus::name);
            write!(
                f,
                "; completion {kind} {status} {} bytes, buffer {:#x}+{}",
                self.completion_length, self.completion_buffer_address, self.completion_buffer_length
            )?;
            if self.completion_immediate_valid {
                write!(f, ", immediate {:#x}", self.completion_immediate)?;
            }
            if self.completion_solicited {
                write!(f, ", solicited")?;
            }
        }
        if self.response {
            let syndrome = match Syndrome::decode(self.response_syndrome) {
                Some(Syndrome::Ack { .. }) => "ACK".to_string(),
                Some(Syndrome::RnrNak { timer }) => format!("RNR NAK (timer {timer})"),
                Some(Syndrome::Nak(code)) => format!("NAK {}", code.name()),
                None => "reserved syndrome".to_string(),
            };
            write!(
                f,
                "; {syndrome} [{:#04x}] PSN {:#x} MSN {}",
                self.response_syndrome, self.response_psn, self.response_msn
            )?;
        }
        if self.read {
            write!(
                f,
                "; READ response of {} bytes from {:#x}, PSN {:#x} MSN {}",
                self.read_length, self.read_va, self.response_psn, self.response_msn
            )?;
        }
        Ok(())
    }
}

/// The packed [`DECISION`](crate::contracts::responder::DECISION) words of `outcome` for a
/// record of DestQP `dest_qp` and `payload_len` payload bytes: what the RTL puts on `d_entry`.
pub fn decision_words(outcome: &Outcome, dest_qp: u32, payload_len: u16) -> Vec<u32> {
    Decision::of(outcome, dest_qp, payload_len)
        .to_words()
        .expect("every decision field fits its width")
}

impl Responder {
    /// Empties memory region table entry `index` (what the RTL does for a `region_write` whose
    /// `valid` is 0) and returns the region it held. A WRITE message already open keeps the
    /// target its first packet was checked against.
    pub fn clear_memory_region(&mut self, index: u32) -> Result<Option<MemoryRegion>, SetupError> {
        if index >= self.region_count {
            return Err(SetupError::RegionIndex(index << REGION_KEY_BITS));
        }
        Ok(self.regions.remove(&index))
    }
}

#[cfg(test)]
mod tests;
