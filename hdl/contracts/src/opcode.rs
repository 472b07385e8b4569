//! BTH opcodes: transport (bits 7:5) + operation (bits 4:0), their validity, and which
//! extension headers follow each one.
//!
//! Valid opcodes (59): RC 0x00–0x14, 0x16, 0x17; UC 0x20–0x2B (SEND and RDMA WRITE only);
//! RD 0x40–0x54; UD 0x64, 0x65 (SEND only); CNP 0x81. Everything else is reserved.
//!
//! Extension headers, in wire order after the BTH (as in the IBTA spec and Linux rxe):
//! RDETH (RD only), DETH (UD, and RD requests), RETH, AtomicETH, AETH, AtomicAckETH, ImmDt,
//! IETH; a CNP is followed by 16 reserved bytes.

use core::fmt;

/// A reserved (or unsupported) opcode byte.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ReservedOpcode(pub u8);

impl fmt::Display for ReservedOpcode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "reserved opcode {:#04x}", self.0)
    }
}

impl std::error::Error for ReservedOpcode {}

/// The transport service's place in the opcode (bits 7:5).
pub const TRANSPORT_SHIFT: usize = 5;

/// Transport service, bits 7:5 of the opcode.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Transport {
    /// Reliable connection (0b000).
    Rc,
    /// Unreliable connection (0b001).
    Uc,
    /// Reliable datagram (0b010).
    Rd,
    /// Unreliable datagram (0b011).
    Ud,
    /// Congestion notification packet (0b100, RoCEv2 only opcode 0x81).
    Cnp,
}

impl Transport {
    /// The value of bits 7:5.
    pub const fn bits(self) -> u8 {
        match self {
            Transport::Rc => 0,
            Transport::Uc => 1,
            Transport::Rd => 2,
            Transport::Ud => 3,
            Transport::Cnp => 4,
        }
    }
    /// Short upper-case name ("RC", ...).
    pub const fn name(self) -> &'static str {
        match self {
            Transport::Rc => "RC",
            Transport::Uc => "UC",
            Transport::Rd => "RD",
            Transport::Ud => "UD",
            Transport::Cnp => "CNP",
        }
    }
}

/// Operation, bits 4:0 of the opcode (for CNP, the whole opcode is 0x81).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Operation {
    /// SEND first (0x00).
    SendFirst,
    /// SEND middle (0x01).
    SendMiddle,
    /// SEND last (0x02).
    SendLast,
    /// SEND last with immediate (0x03).
    SendLastImm,
    /// SEND only (0x04).
    SendOnly,
    /// SEND only with immediate (0x05).
    SendOnlyImm,
    /// RDMA WRITE first (0x06).
    WriteFirst,
    /// RDMA WRITE middle (0x07).
    WriteMiddle,
    /// RDMA WRITE last (0x08).
    WriteLast,
    /// RDMA WRITE last with immediate (0x09).
    WriteLastImm,
    /// RDMA WRITE only (0x0A).
    WriteOnly,
    /// RDMA WRITE only with immediate (0x0B).
    WriteOnlyImm,
    /// RDMA READ request (0x0C).
    ReadRequest,
    /// RDMA READ response first (0x0D).
    ReadResponseFirst,
    /// RDMA READ response middle (0x0E).
    ReadResponseMiddle,
    /// RDMA READ response last (0x0F).
    ReadResponseLast,
    /// RDMA READ response only (0x10).
    ReadResponseOnly,
    /// Acknowledge (0x11).
    Ack,
    /// Atomic acknowledge (0x12).
    AtomicAck,
    /// CmpSwap (0x13).
    CompareSwap,
    /// FetchAdd (0x14).
    FetchAdd,
    /// SEND last with invalidate (0x16).
    SendLastInv,
    /// SEND only with invalidate (0x17).
    SendOnlyInv,
    /// Congestion notification (opcode 0x81).
    Cnp,
}

impl Operation {
    /// An RDMA READ response packet (first, middle, last or only).
    pub const fn is_read_response(self) -> bool {
        use Operation::*;
        matches!(self, ReadResponseFirst | ReadResponseMiddle | ReadResponseLast | ReadResponseOnly)
    }

    /// Bits 4:0 of the opcode (0x01 for CNP).
    pub const fn bits(self) -> u8 {
        use Operation::*;
        match self {
            SendFirst => 0x00,
            SendMiddle => 0x01,
            SendLast => 0x02,
            SendLastImm => 0x03,
            SendOnly => 0x04,
            SendOnlyImm => 0x05,
            WriteFirst => 0x06,
            WriteMiddle => 0x07,
            WriteLast => 0x08,
            WriteLastImm => 0x09,
            WriteOnly => 0x0A,
            WriteOnlyImm => 0x0B,
            ReadRequest => 0x0C,
            ReadResponseFirst => 0x0D,
            ReadResponseMiddle => 0x0E,
            ReadResponseLast => 0x0F,
            ReadResponseOnly => 0x10,
            Ack => 0x11,
            AtomicAck => 0x12,
            CompareSwap => 0x13,
            FetchAdd => 0x14,
            SendLastInv => 0x16,
            SendOnlyInv => 0x17,
            Cnp => 0x01,
        }
    }
    fn from_bits(b: u8) -> Option<Operation> {
        use Operation::*;
        Some(match b {
            0x00 => SendFirst,
            0x01 => SendMiddle,
            0x02 => SendLast,
            0x03 => SendLastImm,
            0x04 => SendOnly,
            0x05 => SendOnlyImm,
            0x06 => WriteFirst,
            0x07 => WriteMiddle,
            0x08 => WriteLast,
            0x09 => WriteLastImm,
            0x0A => WriteOnly,
            0x0B => WriteOnlyImm,
            0x0C => ReadRequest,
            0x0D => ReadResponseFirst,
            0x0E => ReadResponseMiddle,
            0x0F => ReadResponseLast,
            0x10 => ReadResponseOnly,
            0x11 => Ack,
            0x12 => AtomicAck,
            0x13 => CompareSwap,
            0x14 => FetchAdd,
            0x16 => SendLastInv,
            0x17 => SendOnlyInv,
            _ => return None,
        })
    }
    /// Upper-case name as used by Linux (`SEND_ONLY`, `RDMA_WRITE_FIRST`, ...).
    pub const fn name(self) -> &'static str {
        use Operation::*;
        match self {
            SendFirst => "SEND_FIRST",
            SendMiddle => "SEND_MIDDLE",
            SendLast => "SEND_LAST",
            SendLastImm => "SEND_LAST_WITH_IMMEDIATE",
            SendOnly => "SEND_ONLY",
            SendOnlyImm => "SEND_ONLY_WITH_IMMEDIATE",
            WriteFirst => "RDMA_WRITE_FIRST",
            WriteMiddle => "RDMA_WRITE_MIDDLE",
            WriteLast => "RDMA_WRITE_LAST",
            WriteLastImm => "RDMA_WRITE_LAST_WITH_IMMEDIATE",
            WriteOnly => "RDMA_WRITE_ONLY",
            WriteOnlyImm => "RDMA_WRITE_ONLY_WITH_IMMEDIATE",
            ReadRequest => "RDMA_READ_REQUEST",
            ReadResponseFirst => "RDMA_READ_RESPONSE_FIRST",
            ReadResponseMiddle => "RDMA_READ_RESPONSE_MIDDLE",
            ReadResponseLast => "RDMA_READ_RESPONSE_LAST",
            ReadResponseOnly => "RDMA_READ_RESPONSE_ONLY",
            Ack => "ACKNOWLEDGE",
            AtomicAck => "ATOMIC_ACKNOWLEDGE",
            CompareSwap => "COMPARE_SWAP",
            FetchAdd => "FETCH_ADD",
            SendLastInv => "SEND_LAST_WITH_INVALIDATE",
            SendOnlyInv => "SEND_ONLY_WITH_INVALIDATE",
            Cnp => "CNP",
        }
    }
}

/// Which extension headers follow the BTH, for one opcode. Wire order is the field order.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct ExtHeaders {
    /// RDETH, 4 bytes (RD only).
    pub rdeth: bool,
    /// DETH, 8 bytes.
    pub deth: bool,
    /// RETH, 16 bytes.
    pub reth: bool,
    /// AtomicETH, 28 bytes.
    pub atomic_eth: bool,
    /// AETH, 4 bytes.
    pub aeth: bool,
    /// AtomicAckETH, 8 bytes.
    pub atomic_ack_eth: bool,
    /// ImmDt, 4 bytes.
    pub immdt: bool,
    /// IETH, 4 bytes.
    pub ieth: bool,
    /// CNP reserved bytes, 16 bytes.
    pub cnp: bool,
}

impl ExtHeaders {
    /// Total length in bytes of these extension headers.
    pub const fn len(&self) -> usize {
        let mut n = 0;
        if self.rdeth {
            n += crate::rdeth::HEADER_LEN;
        }
        if self.deth {
            n += crate::deth::HEADER_LEN;
        }
        if self.reth {
            n += crate::reth::HEADER_LEN;
        }
        if self.atomic_eth {
            n += crate::atomic_eth::HEADER_LEN;
        }
        if self.aeth {
            n += crate::aeth::HEADER_LEN;
        }
        if self.atomic_ack_eth {
            n += crate::atomic_ack_eth::HEADER_LEN;
        }
        if self.immdt {
            n += crate::immdt::HEADER_LEN;
        }
        if self.ieth {
            n += crate::ieth::HEADER_LEN;
        }
        if self.cnp {
            n += CNP_RESERVED_LEN;
        }
        n
    }
    /// True when no extension header follows.
    pub const fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Number of reserved bytes after the BTH of a CNP.
pub const CNP_RESERVED_LEN: usize = 16;

/// A valid (non-reserved) BTH opcode.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Opcode(u8);

impl Opcode {
    /// `RC_SEND_FIRST` (0x00).
    pub const RC_SEND_FIRST: Opcode = Opcode(0x00);
    /// `RC_SEND_MIDDLE` (0x01).
    pub const RC_SEND_MIDDLE: Opcode = Opcode(0x01);
    /// `RC_SEND_LAST` (0x02).
    pub const RC_SEND_LAST: Opcode = Opcode(0x02);
    /// `RC_SEND_LAST_IMM` (0x03).
    pub const RC_SEND_LAST_IMM: Opcode = Opcode(0x03);
    /// `RC_SEND_ONLY` (0x04).
    pub const RC_SEND_ONLY: Opcode = Opcode(0x04);
    /// `RC_SEND_ONLY_IMM` (0x05).
    pub const RC_SEND_ONLY_IMM: Opcode = Opcode(0x05);
    /// `RC_WRITE_FIRST` (0x06).
    pub const RC_WRITE_FIRST: Opcode = Opcode(0x06);
    /// `RC_WRITE_MIDDLE` (0x07).
    pub const RC_WRITE_MIDDLE: Opcode = Opcode(0x07);
    /// `RC_WRITE_LAST` (0x08).
    pub const RC_WRITE_LAST: Opcode = Opcode(0x08);
    /// `RC_WRITE_LAST_IMM` (0x09).
    pub const RC_WRITE_LAST_IMM: Opcode = Opcode(0x09);
    /// `RC_WRITE_ONLY` (0x0a).
    pub const RC_WRITE_ONLY: Opcode = Opcode(0x0a);
    /// `RC_WRITE_ONLY_IMM` (0x0b).
    pub const RC_WRITE_ONLY_IMM: Opcode = Opcode(0x0b);
    /// `RC_READ_REQUEST` (0x0c).
    pub const RC_READ_REQUEST: Opcode = Opcode(0x0c);
    /// `RC_READ_RESPONSE_FIRST` (0x0d).
    pub const RC_READ_RESPONSE_FIRST: Opcode = Opcode(0x0d);
    /// `RC_READ_RESPONSE_MIDDLE` (0x0e).
    pub const RC_READ_RESPONSE_MIDDLE: Opcode = Opcode(0x0e);
    /// `RC_READ_RESPONSE_LAST` (0x0f).
    pub const RC_READ_RESPONSE_LAST: Opcode = Opcode(0x0f);
    /// `RC_READ_RESPONSE_ONLY` (0x10).
    pub const RC_READ_RESPONSE_ONLY: Opcode = Opcode(0x10);
    /// `RC_ACK` (0x11).
    pub const RC_ACK: Opcode = Opcode(0x11);
    /// `RC_ATOMIC_ACK` (0x12).
    pub const RC_ATOMIC_ACK: Opcode = Opcode(0x12);
    /// `RC_COMPARE_SWAP` (0x13).
    pub const RC_COMPARE_SWAP: Opcode = Opcode(0x13);
    /// `RC_FETCH_ADD` (0x14).
    pub const RC_FETCH_ADD: Opcode = Opcode(0x14);
    /// `RC_SEND_LAST_INV` (0x16).
    pub const RC_SEND_LAST_INV: Opcode = Opcode(0x16);
    /// `RC_SEND_ONLY_INV` (0x17).
    pub const RC_SEND_ONLY_INV: Opcode = Opcode(0x17);
    /// `UC_SEND_FIRST` (0x20).
    pub const UC_SEND_FIRST: Opcode = Opcode(0x20);
    /// `UC_SEND_MIDDLE` (0x21).
    pub const UC_SEND_MIDDLE: Opcode = Opcode(0x21);
    /// `UC_SEND_LAST` (0x22).
    pub const UC_SEND_LAST: Opcode = Opcode(0x22);
    /// `UC_SEND_LAST_IMM` (0x23).
    pub const UC_SEND_LAST_IMM: Opcode = Opcode(0x23);
    /// `UC_SEND_ONLY` (0x24).
    pub const UC_SEND_ONLY: Opcode = Opcode(0x24);
    /// `UC_SEND_ONLY_IMM` (0x25).
    pub const UC_SEND_ONLY_IMM: Opcode = Opcode(0x25);
    /// `UC_WRITE_FIRST` (0x26).
    pub const UC_WRITE_FIRST: Opcode = Opcode(0x26);
    /// `UC_WRITE_MIDDLE` (0x27).
    pub const UC_WRITE_MIDDLE: Opcode = Opcode(0x27);
    /// `UC_WRITE_LAST` (0x28).
    pub const UC_WRITE_LAST: Opcode = Opcode(0x28);
    /// `UC_WRITE_LAST_IMM` (0x29).
    pub const UC_WRITE_LAST_IMM: Opcode = Opcode(0x29);
    /// `UC_WRITE_ONLY` (0x2a).
    pub const UC_WRITE_ONLY: Opcode = Opcode(0x2a);
    /// `UC_WRITE_ONLY_IMM` (0x2b).
    pub const UC_WRITE_ONLY_IMM: Opcode = Opcode(0x2b);
    /// `RD_SEND_FIRST` (0x40).
    pub const RD_SEND_FIRST: Opcode = Opcode(0x40);
    /// `RD_SEND_MIDDLE` (0x41).
    pub const RD_SEND_MIDDLE: Opcode = Opcode(0x41);
    /// `RD_SEND_LAST` (0x42).
    pub const RD_SEND_LAST: Opcode = Opcode(0x42);
    /// `RD_SEND_LAST_IMM` (0x43).
    pub const RD_SEND_LAST_IMM: Opcode = Opcode(0x43);
    /// `RD_SEND_ONLY` (0x44).
    pub const RD_SEND_ONLY: Opcode = Opcode(0x44);
    /// `RD_SEND_ONLY_IMM` (0x45).
    pub const RD_SEND_ONLY_IMM: Opcode = Opcode(0x45);
    /// `RD_WRITE_FIRST` (0x46).
    pub const RD_WRITE_FIRST: Opcode = Opcode(0x46);
    /// `RD_WRITE_MIDDLE` (0x47).
    pub const RD_WRITE_MIDDLE: Opcode = Opcode(0x47);
    /// `RD_WRITE_LAST` (0x48).
    pub const RD_WRITE_LAST: Opcode = Opcode(0x48);
    /// `RD_WRITE_LAST_IMM` (0x49).
    pub const RD_WRITE_LAST_IMM: Opcode = Opcode(0x49);
    /// `RD_WRITE_ONLY` (0x4a).
    pub const RD_WRITE_ONLY: Opcode = Opcode(0x4a);
    /// `RD_WRITE_ONLY_IMM` (0x4b).
    pub const RD_WRITE_ONLY_IMM: Opcode = Opcode(0x4b);
    /// `RD_READ_REQUEST` (0x4c).
    pub const RD_READ_REQUEST: Opcode = Opcode(0x4c);
    /// `RD_READ_RESPONSE_FIRST` (0x4d).
    pub const RD_READ_RESPONSE_FIRST: Opcode = Opcode(0x4d);
    /// `RD_READ_RESPONSE_MIDDLE` (0x4e).
    pub const RD_READ_RESPONSE_MIDDLE: Opcode = Opcode(0x4e);
    /// `RD_READ_RESPONSE_LAST` (0x4f).
    pub const RD_READ_RESPONSE_LAST: Opcode = Opcode(0x4f);
    /// `RD_READ_RESPONSE_ONLY` (0x50).
    pub const RD_READ_RESPONSE_ONLY: Opcode = Opcode(0x50);
    /// `RD_ACK` (0x51).
    pub const RD_ACK: Opcode = Opcode(0x51);
    /// `RD_ATOMIC_ACK` (0x52).
    pub const RD_ATOMIC_ACK: Opcode = Opcode(0x52);
    /// `RD_COMPARE_SWAP` (0x53).
    pub const RD_COMPARE_SWAP: Opcode = Opcode(0x53);
    /// `RD_FETCH_ADD` (0x54).
    pub const RD_FETCH_ADD: Opcode = Opcode(0x54);
    /// `UD_SEND_ONLY` (0x64).
    pub const UD_SEND_ONLY: Opcode = Opcode(0x64);
    /// `UD_SEND_ONLY_IMM` (0x65).
    pub const UD_SEND_ONLY_IMM: Opcode = Opcode(0x65);
    /// `CNP` (0x81).
    pub const CNP: Opcode = Opcode(0x81);
}

impl Opcode {
    /// Every valid opcode, in increasing numeric order (59 of them).
    pub const ALL: [Opcode; 59] = [
        Opcode::RC_SEND_FIRST,
        Opcode::RC_SEND_MIDDLE,
        Opcode::RC_SEND_LAST,
        Opcode::RC_SEND_LAST_IMM,
        Opcode::RC_SEND_ONLY,
        Opcode::RC_SEND_ONLY_IMM,
        Opcode::RC_WRITE_FIRST,
        Opcode::RC_WRITE_MIDDLE,
        Opcode::RC_WRITE_LAST,
        Opcode::RC_WRITE_LAST_IMM,
        Opcode::RC_WRITE_ONLY,
        Opcode::RC_WRITE_ONLY_IMM,
        Opcode::RC_READ_REQUEST,
        Opcode::RC_READ_RESPONSE_FIRST,
        Opcode::RC_READ_RESPONSE_MIDDLE,
        Opcode::RC_READ_RESPONSE_LAST,
        Opcode::RC_READ_RESPONSE_ONLY,
        Opcode::RC_ACK,
        Opcode::RC_ATOMIC_ACK,
        Opcode::RC_COMPARE_SWAP,
        Opcode::RC_FETCH_ADD,
        Opcode::RC_SEND_LAST_INV,
        Opcode::RC_SEND_ONLY_INV,
        Opcode::UC_SEND_FIRST,
        Opcode::UC_SEND_MIDDLE,
        Opcode::UC_SEND_LAST,
        Opcode::UC_SEND_LAST_IMM,
        Opcode::UC_SEND_ONLY,
        Opcode::UC_SEND_ONLY_IMM,
        Opcode::UC_WRITE_FIRST,
        Opcode::UC_WRITE_MIDDLE,
        Opcode::UC_WRITE_LAST,
        Opcode::UC_WRITE_LAST_IMM,
        Opcode::UC_WRITE_ONLY,
        Opcode::UC_WRITE_ONLY_IMM,
        Opcode::RD_SEND_FIRST,
        Opcode::RD_SEND_MIDDLE,
        Opcode::RD_SEND_LAST,
        Opcode::RD_SEND_LAST_IMM,
        Opcode::RD_SEND_ONLY,
        Opcode::RD_SEND_ONLY_IMM,
        Opcode::RD_WRITE_FIRST,
        Opcode::RD_WRITE_MIDDLE,
        Opcode::RD_WRITE_LAST,
        Opcode::RD_WRITE_LAST_IMM,
        Opcode::RD_WRITE_ONLY,
        Opcode::RD_WRITE_ONLY_IMM,
        Opcode::RD_READ_REQUEST,
        Opcode::RD_READ_RESPONSE_FIRST,
        Opcode::RD_READ_RESPONSE_MIDDLE,
        Opcode::RD_READ_RESPONSE_LAST,
        Opcode::RD_READ_RESPONSE_ONLY,
        Opcode::RD_ACK,
        Opcode::RD_ATOMIC_ACK,
        Opcode::RD_COMPARE_SWAP,
        Opcode::RD_FETCH_ADD,
        Opcode::UD_SEND_ONLY,
        Opcode::UD_SEND_ONLY_IMM,
        Opcode::CNP,
    ];

    /// Checks a raw opcode byte; reserved values give [`ReservedOpcode`].
    pub fn new(v: u8) -> Result<Opcode, ReservedOpcode> {
        if Opcode::is_valid(v) {
            Ok(Opcode(v))
        } else {
            Err(ReservedOpcode(v))
        }
    }

    /// True when `v` is a valid opcode.
    pub const fn is_valid(v: u8) -> bool {
        let op = v & 0x1F;
        match v >> TRANSPORT_SHIFT {
            0 => op <= 0x14 || op == 0x16 || op == 0x17,
            1 => op <= 0x0B,
            2 => op <= 0x14,
            3 => op == 0x04 || op == 0x05,
            4 => op == 0x01,
            _ => false,
        }
    }

    /// Builds an opcode from transport and operation; invalid combinations (e.g. UC READ)
    /// give [`ReservedOpcode`].
    pub fn from_parts(t: Transport, op: Operation) -> Result<Opcode, ReservedOpcode> {
        let v = (t.bits() << TRANSPORT_SHIFT) | op.bits();
        if (t == Transport::Cnp) != (op == Operation::Cnp) {
            return Err(ReservedOpcode(v));
        }
        Opcode::new(v)
    }

    /// All valid opcodes.
    pub fn all() -> &'static [Opcode] {
        &Opcode::ALL
    }

    /// The raw opcode byte.
    pub const fn value(self) -> u8 {
        self.0
    }

    /// Transport service.
    pub const fn transport(self) -> Transport {
        match self.0 >> TRANSPORT_SHIFT {
            0 => Transport::Rc,
            1 => Transport::Uc,
            2 => Transport::Rd,
            3 => Transport::Ud,
            _ => Transport::Cnp,
        }
    }

    /// Operation.
    pub fn operation(self) -> Operation {
        if self.0 == 0x81 {
            Operation::Cnp
        } else {
            Operation::from_bits(self.0 & 0x1F).expect("valid opcode")
        }
    }

    /// Which extension headers follow the BTH for this opcode.
    pub fn ext_headers(self) -> ExtHeaders {
        use Operation::*;
        let t = self.transport();
        let op = self.operation();
        let mut e = ExtHeaders::default();
        if op == Cnp {
            e.cnp = true;
            return e;
        }
        let request = !matches!(
            op,
            ReadResponseFirst | ReadResponseMiddle | ReadResponseLast | ReadResponseOnly | Ack | AtomicAck
        );
        e.rdeth = t == Transport::Rd;
        e.deth = t == Transport::Ud || (t == Transport::Rd && request);
        e.reth = matches!(op, WriteFirst | WriteOnly | WriteOnlyImm | ReadRequest);
        e.atomic_eth = matches!(op, CompareSwap | FetchAdd);
        e.aeth = matches!(op, ReadResponseFirst | ReadResponseLast | ReadResponseOnly | Ack | AtomicAck);
        e.atomic_ack_eth = op == AtomicAck;
        e.immdt = matches!(op, SendLastImm | SendOnlyImm | WriteLastImm | WriteOnlyImm);
        e.ieth = matches!(op, SendLastInv | SendOnlyInv);
        e
    }

    /// Length of the extension headers that follow the BTH.
    pub fn ext_len(self) -> usize {
        self.ext_headers().len()
    }

    /// True for opcodes that carry a data payload (SEND, RDMA WRITE, RDMA READ response).
    /// Requests without data, ACKs, atomics and CNPs carry none.
    pub fn has_payload(self) -> bool {
        use Operation::*;
        !matches!(self.operation(), ReadRequest | Ack | AtomicAck | CompareSwap | FetchAdd | Cnp)
    }

    /// Name such as `RC_SEND_ONLY` or `CNP`.
    pub fn name(self) -> String {
        match self.transport() {
            Transport::Cnp => "CNP".to_string(),
            t => format!("{}_{}", t.name(), self.operation().name()),
        }
    }
}

impl TryFrom<u8> for Opcode {
    type Error = ReservedOpcode;
    fn try_from(v: u8) -> Result<Opcode, ReservedOpcode> {
        Opcode::new(v)
    }
}

impl From<Opcode> for u8 {
    fn from(o: Opcode) -> u8 {
        o.0
    }
}

impl fmt::Display for Opcode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({:#04x})", self.name(), self.0)
    }
}
