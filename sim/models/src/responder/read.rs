//! RDMA READ on the responder side (IBTA chapter 9: RDMA READ operations, responder side
//! behavior, duplicate requests): the checks of a READ request, the [`ReadResponse`] it asks
//! for, and the response's packets. The specification is `docs/engine.md`, "RDMA READ
//! (responder)".
//!
//! A READ request is an RC request with a RETH and no payload. At the expected PSN it is
//! checked as a WRITE's first or only packet is (R_Key with remote read access, bounds; a
//! zero-length READ is not checked against a region), then executed: the MSN counts it, the
//! expected PSN advances by the response's packet count ([`read_packet_count`]), and the
//! response acknowledges it and everything before it (no separate ACK; the coalesced ACK count
//! restarts). A duplicate READ request (a PSN in the duplicate window) is checked the same way
//! and executed again from memory at its own PSN, the expected PSN and the MSN unchanged.
//!
//! ```
//! use ferroce_models::contracts::tx::Pmtu;
//! use ferroce_models::responder::{read_packet_count, Aeth, ReadResponse, Syndrome};
//! use ferroce_models::wire::Opcode;
//!
//! assert_eq!(read_packet_count(0, Pmtu::B1024), 1);
//! assert_eq!(read_packet_count(2049, Pmtu::B1024), 3);
//! let response = ReadResponse {
//!     qp: 5,
//!     first_psn: 0xFF_FFFF,
//!     va: 0x1000,
//!     length: 2049,
//!     pmtu: Pmtu::B1024,
//!     aeth: Aeth { syndrome: Syndrome::ack(), msn: 1 },
//!     region: Some(0),
//!     duplicate: false,
//! };
//! let packets = response.packets(None);
//! let cut: Vec<_> = packets.iter().map(|p| (p.opcode, p.psn, p.offset, p.length, p.aeth.is_some())).collect();
//! assert_eq!(
//!     cut,
//!     [
//!         (Opcode::RC_READ_RESPONSE_FIRST, 0xFF_FFFF, 0, 1024, true),
//!         (Opcode::RC_READ_RESPONSE_MIDDLE, 0, 1024, 1024, false),
//!         (Opcode::RC_READ_RESPONSE_LAST, 1, 2048, 1, true),
//!     ]
//! );
//! ```

use super::{Aeth, CheckFailure, Outcome, PsnPlace, Regions, RemoteAccess, Request, ResponderQp, Syndrome, Verdict, MSN_MASK, PSN_MASK};
use crate::contracts::tx::Pmtu;
use crate::tx::memory::LocalMemory;
use crate::wire::Opcode;

/// The largest DMA length of a READ request: 2^31 bytes, the largest message.
pub const MAX_READ_LENGTH: u32 = 1 << 31;

/// The packets of the READ response to a READ request of `length` bytes, hence the PSNs the
/// request consumes: `max(1, ceil(length / PMTU))`.
pub fn read_packet_count(length: u32, pmtu: Pmtu) -> u32 {
    length.div_ceil(pmtu.bytes()).max(1)
}

/// The opcode of packet `index` (from 0) of a READ response of `count` packets: only, first,
/// middle or last.
pub fn read_response_opcode(index: u32, count: u32) -> Opcode {
    match (index == 0, index + 1 == count) {
        (true, true) => Opcode::RC_READ_RESPONSE_ONLY,
        (true, false) => Opcode::RC_READ_RESPONSE_FIRST,
        (false, false) => Opcode::RC_READ_RESPONSE_MIDDLE,
        (false, true) => Opcode::RC_READ_RESPONSE_LAST,
    }
}

/// The READ response to an executed READ request: what the TX path needs to cut its packets
/// ([`ReadResponse::packets`]), from the QP's context and memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ReadResponse {
    /// The local QP whose context addresses it.
    pub qp: u32,
    /// BTH PSN of its first packet: the request's PSN.
    pub first_psn: u32,
    /// Address of its first byte: the RETH VA.
    pub va: u64,
    /// Its bytes: the RETH DMA length (at most [`MAX_READ_LENGTH`]).
    pub length: u32,
    /// The QP's path MTU: every packet but the last carries exactly this many bytes.
    pub pmtu: Pmtu,
    /// The AETH of its first, last or only packet: an ACK (the syndrome of the QP's ACKs) and
    /// the MSN, which counts this READ (a duplicate: the QP's current MSN).
    pub aeth: Aeth,
    /// The memory region table entry the request was checked against (`None` for a
    /// zero-length READ, whose R_Key and VA are not checked).
    pub region: Option<u32>,
    /// The request was a duplicate, executed again: the expected PSN and MSN did not move.
    pub duplicate: bool,
}

/// One packet of a READ response.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ReadResponsePacket {
    /// READ response first, middle, last or only.
    pub opcode: Opcode,
    /// BTH PSN.
    pub psn: u32,
    /// Its payload's offset in the response.
    pub offset: u32,
    /// Address of its payload's first byte (the response's VA + offset).
    pub address: u64,
    /// Payload bytes: the PMTU, or what remains on the last or only packet.
    pub length: u32,
    /// The AETH (first, last and only packets; none on a middle packet).
    pub aeth: Option<Aeth>,
    /// The payload, when the packets were cut with a memory to read it from.
    pub payload: Option<Vec<u8>>,
}

impl ReadResponse {
    /// Its packets, and the PSNs the request consumed ([`read_packet_count`]).
    pub fn packet_count(&self) -> u32 {
        read_packet_count(self.length, self.pmtu)
    }

    /// BTH PSN of its last packet.
    pub fn last_psn(&self) -> u32 {
        (self.first_psn + self.packet_count() - 1) & PSN_MASK
    }

    /// Packet `index` (from 0), its payload read from `memory` if one is given; `None` beyond
    /// the last packet.
    pub fn packet(&self, index: u32, memory: Option<&dyn LocalMemory>) -> Option<ReadResponsePacket> {
        let count = self.packet_count();
        if index >= count {
            return None;
        }
        let pmtu = self.pmtu.bytes();
        let offset = index * pmtu;
        let length = (self.length - offset).min(pmtu);
        let opcode = read_response_opcode(index, count);
        let address = self.va.wrapping_add(u64::from(offset));
        Some(ReadResponsePacket {
            opcode,
            psn: (self.first_psn + index) & PSN_MASK,
            offset,
            address,
            length,
            aeth: (opcode != Opcode::RC_READ_RESPONSE_MIDDLE).then_some(self.aeth),
            payload: memory.map(|m| m.bytes(address, length as usize)),
        })
    }

    /// Every packet, in PSN order, their payloads read from `memory` if one is given.
    pub fn packets(&self, memory: Option<&dyn LocalMemory>) -> Vec<ReadResponsePacket> {
        (0..self.packet_count()).filter_map(|index| self.packet(index, memory)).collect()
    }
}

impl ResponderQp {
    /// Stages 4 to 6 for an RC READ request that passed the connection checks.
    pub(super) fn handle_read(&mut self, qpn: u32, request: &Request, regions: &Regions) -> Outcome {
        let duplicate = match PsnPlace::of(request.psn, self.expected_psn) {
            PsnPlace::Ahead => return self.fail(qpn, CheckFailure::PsnOutOfSequence),
            PsnPlace::Duplicate => true,
            PsnPlace::Expected => {
                self.nak_sent = false;
                false
            }
        };
        match self.check_read(request, regions, duplicate) {
            Ok(region) => self.execute_read(qpn, request, region, duplicate),
            Err(failure) => self.fail_at(qpn, failure, request.psn),
        }
    }

    /// Stage 5 for a READ request: the region it names (`None` for a zero-length READ).
    fn check_read(&self, request: &Request, regions: &Regions, duplicate: bool) -> Result<Option<u32>, CheckFailure> {
        // Opcode sequence: a new READ may not start while an RC message is open. A duplicate
        // belongs to the PSNs already executed, before the open message's.
        if !duplicate && self.message.is_some() {
            return Err(CheckFailure::OpcodeSequence);
        }
        let reth = request.reth.ok_or(CheckFailure::Malformed)?;
        let region = self.check_region(reth, RemoteAccess::Read, regions)?;
        // A READ request carries no payload: any payload is a wrong payload length.
        if !request.payload.is_empty() {
            return Err(CheckFailure::PayloadLength);
        }
        if reth.dma_len > MAX_READ_LENGTH {
            return Err(CheckFailure::DmaLength);
        }
        Ok(region)
    }

    /// Stage 6 for a READ request that passed every check: its response; a new request counts
    /// in the MSN, advances the expected PSN past the response and restarts the coalesced ACK
    /// count (the response acknowledges every PSN before its own).
    fn execute_read(&mut self, qpn: u32, request: &Request, region: Option<u32>, duplicate: bool) -> Outcome {
        let reth = request.reth.expect("check_read found the RETH");
        if !duplicate {
            self.msn = (self.msn + 1) & MSN_MASK;
        }
        let response = ReadResponse {
            qp: qpn,
            first_psn: request.psn,
            va: reth.va,
            length: reth.dma_len,
            pmtu: self.pmtu,
            aeth: Aeth {
                syndrome: Syndrome::ack(),
                msn: self.msn,
            },
            region,
            duplicate,
        };
        if !duplicate {
            self.expected_psn = (request.psn + response.packet_count()) & PSN_MASK;
            self.unacknowledged = 0;
        }
        Outcome {
            read_response: Some(response),
            ..Outcome::of(Verdict::Executed)
        }
    }
}
