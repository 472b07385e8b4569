//! The requester's outstanding RDMA READs on the receive side (`ReadTracker` in the RTL): per
//! QP the READs whose responses are still coming, oldest first (up to a limit per QP,
//! [`READS_PER_QP`] in the RTL), where the oldest's next response packet goes in local memory, and the rewrites that keep the ACK tracker from completing a READ whose responses
//! were lost (`docs/reliability.md`, "RDMA READ as the requester").
//!
//! It sits on the responder's decisions, after the responder and before the payload writer:
//! - **A READ request left** ([`ReadTracker::sent`]): an entry is added behind the QP's others
//!   (first and last PSN of its response, local address, bytes, PMTU); with the QP's limit
//!   reached it takes the place of the newest (its sender keeps to the limit). A request sent
//!   again moves the entry that ends with the same PSN; one sent again from the PSN the entry
//!   already waits for keeps its "gap asked" mark.
//! - **A READ response** (a forwarded decision with a READ response opcode) goes to the QP's
//!   oldest READ: at the PSN expected,
//!   with the opcode and length of its place (first or only to start, then middle or last; the
//!   PMTU, or the rest at the end): its payload is written at the entry's local address, and it
//!   goes on as an ACK of its own PSN (which acknowledges the requests before the READ, and
//!   completes the READ in the ACK tracker with its last packet). The last one frees the entry
//!   and tells the segmenter ([`ReadTracker::decide`]'s second value).
//! - **Lost responses**: a response ahead of the one expected (up to the QP's newest READ's last
//!   PSN: the responder answers in PSN order), or an
//!   ACK or NAK that covers the PSN expected (the responder answers in PSN order, so the
//!   responses before it were lost) becomes a PSN sequence error NAK at the PSN expected, once
//!   per gap: the requester goes back N from there and asks for the rest. While the gap is
//!   asked, a response ahead or an ACK beyond becomes an ACK of the PSN before the one expected;
//!   a NAK or RNR NAK beyond is moved to the PSN expected (the READ fails or waits with it).
//! - A response behind the one expected (a duplicate), one with no READ outstanding, beyond the
//!   newest READ's last PSN, or with the wrong opcode or length writes nothing and acknowledges nothing.
//! - Every other decision passes unchanged.

use super::acknowledge::psn_at_or_before;
use crate::contracts::responder::{NakCode, Syndrome};
use crate::contracts::tx::{Pmtu, READS_PER_QP};
use crate::responder::Decision;
use crate::wire::bth::PSN_MASK;
use crate::wire::Opcode;
use std::collections::VecDeque;

/// A READ request that left: what its response is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SentRead {
    /// The local QP.
    pub qp: u32,
    /// The request's PSN: its response's first.
    pub first_psn: u32,
    /// Its response's last PSN.
    pub last_psn: u32,
    /// Where the response's first byte goes.
    pub local_address: u64,
    /// The request's DMA length.
    pub length: u32,
    /// The QP's PMTU.
    pub pmtu: Pmtu,
    /// Sent again (a go-back-N replay): it moves the QP's READ only if that READ is still
    /// outstanding and ends with the same PSN; a replay that began before the READ's last
    /// response arrived is ignored (its responses then count as responses for no READ, never
    /// written).
    pub again: bool,
    /// The QP's resets (modulo [`GENERATIONS`]) as the segmenter had counted them when it cut
    /// the request: a new request of another generation than the QP's was cut before a reset
    /// the tracker has seen (it was still on its way through the packetizer), and is ignored.
    /// A request sent again is not checked (it moves a live READ or nothing).
    pub generation: u8,
}

/// Generations a QP's READs are told apart by: its resets counted modulo this (2 bits in the
/// RTL).
pub const GENERATIONS: u8 = 4;

/// A QP's READ whose response is still coming.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OutstandingRead {
    /// The PSN of the next response packet.
    pub expected: u32,
    /// The response's last PSN.
    pub last: u32,
    /// Where the next response packet's payload goes.
    pub local_address: u64,
    /// Bytes still to come.
    pub remaining: u32,
    /// The QP's PMTU.
    pub pmtu: Pmtu,
    /// A response was taken: the next is a middle or the last.
    pub open: bool,
    /// The requester was told of the gap before `expected`.
    pub gap_asked: bool,
}

/// Counters.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ReadTrackerCounters {
    /// Response packets placed in memory.
    pub taken: u64,
    /// Response packets behind the one expected, dropped.
    pub duplicates: u64,
    /// Gaps told to the requester (a sequence error NAK made).
    pub gaps: u64,
    /// Response packets with no READ to go to, beyond it, or of the wrong opcode or length.
    pub bad: u64,
}

/// The tracker of `2^qp_bits` QPs.
#[derive(Debug, Clone)]
pub struct ReadTracker {
    /// Per QP its READs outstanding, oldest first.
    entries: Vec<VecDeque<OutstandingRead>>,
    /// Per QP its resets, modulo [`GENERATIONS`].
    generations: Vec<u8>,
    /// READs outstanding per QP at most.
    limit: usize,
    /// Counters.
    pub counters: ReadTrackerCounters,
}

/// Whether `opcode` is a READ response's (first, middle, last or only).
pub fn is_read_response(opcode: u8) -> bool {
    (Opcode::RC_READ_RESPONSE_FIRST.value()..=Opcode::RC_READ_RESPONSE_ONLY.value()).contains(&opcode)
}

impl ReadTracker {
    /// An empty tracker of `2^qp_bits` QPs, [`READS_PER_QP`] READs outstanding per QP (the
    /// RTL's).
    pub fn new(qp_bits: u32) -> ReadTracker {
        ReadTracker::with_limit(qp_bits, READS_PER_QP)
    }

    /// An empty tracker of `2^qp_bits` QPs, `reads_per_qp` READs outstanding per QP at most.
    pub fn with_limit(qp_bits: u32, reads_per_qp: usize) -> ReadTracker {
        assert!(reads_per_qp > 0, "at least one READ per QP");
        ReadTracker {
            entries: vec![VecDeque::with_capacity(reads_per_qp); 1 << qp_bits],
            generations: vec![0; 1 << qp_bits],
            limit: reads_per_qp,
            counters: ReadTrackerCounters::default(),
        }
    }

    /// The oldest READ outstanding on `qp`: the one its responses go to.
    pub fn outstanding(&self, qp: u32) -> Option<OutstandingRead> {
        self.entries.get(qp as usize).and_then(|reads| reads.front().copied())
    }

    /// The READs outstanding on `qp`, oldest first.
    pub fn outstanding_reads(&self, qp: u32) -> Vec<OutstandingRead> {
        self.entries
            .get(qp as usize)
            .map_or_else(Vec::new, |reads| reads.iter().copied().collect())
    }

    /// A READ request left.
    pub fn sent(&mut self, read: &SentRead) {
        let limit = self.limit;
        let Some(reads) = self.entries.get_mut(read.qp as usize) else {
            return;
        };
        let fresh = |gap_asked| OutstandingRead {
            expected: read.first_psn,
            last: read.last_psn,
            local_address: read.local_address,
            remaining: read.length,
            pmtu: read.pmtu,
            open: false,
            gap_asked,
        };
        if read.again {
            if let Some(entry) = reads.iter_mut().find(|e| e.last == read.last_psn) {
                *entry = fresh(entry.gap_asked && entry.expected == read.first_psn);
            }
            return;
        }
        if read.generation % GENERATIONS != self.generations[read.qp as usize] {
            return;
        }
        if reads.len() == limit {
            reads.pop_back();
        }
        reads.push_back(fresh(false));
    }

    /// The host reset `qp`: its READs are forgotten (the segmenter is told, as for a READ done)
    /// and its generation counted on.
    pub fn clear(&mut self, qp: u32) {
        if let Some(reads) = self.entries.get_mut(qp as usize) {
            reads.clear();
            let generation = &mut self.generations[qp as usize];
            *generation = (*generation + 1) % GENERATIONS;
        }
    }

    /// `qp`'s generation: its resets modulo [`GENERATIONS`].
    pub fn generation(&self, qp: u32) -> u8 {
        self.generations.get(qp as usize).copied().unwrap_or(0)
    }

    /// The decision as it goes on, and the QP whose READ it finished.
    pub fn decide(&mut self, decision: &Decision) -> (Decision, Option<u32>) {
        let mut out = *decision;
        let qp = decision.qp;
        let Some(entry) = self.outstanding(qp).filter(|_| decision.forwarded) else {
            if decision.forwarded && is_read_response(decision.forwarded_opcode) {
                self.counters.bad += 1;
                out.write = false;
                out.acknowledgement = false;
            }
            return (out, None);
        };
        let before_expected = entry.expected.wrapping_sub(1) & PSN_MASK;
        let ack = Syndrome::ack().encode();
        let sequence_nak = Syndrome::Nak(NakCode::PsnSequenceError).encode();
        let mut done = None;
        let mut next = entry;
        if is_read_response(decision.forwarded_opcode) {
            let psn = decision.response_psn;
            out.write = false;
            out.acknowledgement = false;
            if psn == entry.expected {
                let pmtu = entry.pmtu.bytes();
                let (opcode, length) = match (entry.open, entry.remaining > pmtu) {
                    (false, false) => (Opcode::RC_READ_RESPONSE_ONLY, entry.remaining),
                    (false, true) => (Opcode::RC_READ_RESPONSE_FIRST, pmtu),
                    (true, true) => (Opcode::RC_READ_RESPONSE_MIDDLE, pmtu),
                    (true, false) => (Opcode::RC_READ_RESPONSE_LAST, entry.remaining),
                };
                if decision.forwarded_opcode != opcode.value() || u32::from(decision.write_length) != length {
                    self.counters.bad += 1;
                } else {
                    self.counters.taken += 1;
                    out.write = true;
                    out.write_address = entry.local_address;
                    out.acknowledgement = true;
                    out.response_syndrome = ack;
                    next.expected = (psn + 1) & PSN_MASK;
                    next.local_address = entry.local_address.wrapping_add(u64::from(length));
                    next.remaining = entry.remaining - length;
                    next.open = true;
                    next.gap_asked = false;
                    if entry.remaining <= pmtu {
                        done = Some(qp);
                    }
                }
            } else if psn_at_or_before(psn, before_expected) {
                self.counters.duplicates += 1;
            } else if psn_at_or_before(psn, self.entries[qp as usize].back().map_or(entry.last, |newest| newest.last)) {
                out.acknowledgement = true;
                self.ask_gap(&mut out, &mut next, (ack, sequence_nak));
            } else {
                self.counters.bad += 1;
            }
        } else if decision.acknowledgement && decision.forwarded_opcode == Opcode::RC_ACK.value() {
            let Some(syndrome) = Syndrome::decode(decision.response_syndrome) else {
                return (out, None);
            };
            let acknowledged = if syndrome.is_nak() {
                decision.response_psn.wrapping_sub(1) & PSN_MASK
            } else {
                decision.response_psn
            };
            if psn_at_or_before(entry.expected, acknowledged) {
                match syndrome {
                    Syndrome::Ack { .. } => self.ask_gap(&mut out, &mut next, (ack, sequence_nak)),
                    Syndrome::Nak(NakCode::PsnSequenceError) => {
                        out.response_psn = entry.expected;
                        next.gap_asked = true;
                    }
                    _ => out.response_psn = entry.expected,
                }
            }
        }
        let reads = &mut self.entries[qp as usize];
        if done.is_some() {
            reads.pop_front();
        } else if let Some(oldest) = reads.front_mut() {
            *oldest = next;
        }
        (out, done)
    }

    /// A gap before the PSN expected: a sequence error NAK at it the first time, else an ACK of
    /// the PSN before it.
    fn ask_gap(&mut self, out: &mut Decision, entry: &mut OutstandingRead, (ack, sequence_nak): (u8, u8)) {
        if entry.gap_asked {
            out.response_syndrome = ack;
            out.response_psn = entry.expected.wrapping_sub(1) & PSN_MASK;
        } else {
            self.counters.gaps += 1;
            out.response_syndrome = sequence_nak;
            out.response_psn = entry.expected;
            entry.gap_asked = true;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const QP: u32 = 3;

    /// A READ of `length` bytes on `QP` at PMTU 1024 whose response starts at `first_psn`.
    fn sent(first_psn: u32, length: u32, local_address: u64, again: bool) -> SentRead {
        SentRead {
            qp: QP,
            first_psn,
            last_psn: (first_psn + length.div_ceil(1024).max(1) - 1) & PSN_MASK,
            local_address,
            length,
            pmtu: Pmtu::B1024,
            again,
            generation: 0,
        }
    }

    fn tracker_with_read(first_psn: u32, length: u32) -> ReadTracker {
        let mut t = ReadTracker::new(4);
        t.sent(&sent(first_psn, length, 0x1000, false));
        t
    }

    fn response(opcode: Opcode, psn: u32, length: u16) -> Decision {
        Decision {
            forwarded: true,
            acknowledgement: opcode != Opcode::RC_READ_RESPONSE_MIDDLE,
            forwarded_opcode: opcode.value(),
            response_psn: psn,
            response_syndrome: Syndrome::ack().encode(),
            write_length: length,
            qp: QP,
            ..Decision::default()
        }
    }

    fn ack(psn: u32, syndrome: Syndrome) -> Decision {
        Decision {
            forwarded: true,
            acknowledgement: true,
            forwarded_opcode: Opcode::RC_ACK.value(),
            response_psn: psn,
            response_syndrome: syndrome.encode(),
            qp: QP,
            ..Decision::default()
        }
    }

    #[test]
    fn responses_in_order_land_one_after_the_other_and_the_last_frees_the_qp() {
        let mut t = tracker_with_read(0xFF_FFFF, 2500);
        let (a, done) = t.decide(&response(Opcode::RC_READ_RESPONSE_FIRST, 0xFF_FFFF, 1024));
        assert_eq!((a.write, a.write_address, a.acknowledgement, done), (true, 0x1000, true, None));
        let (b, _) = t.decide(&response(Opcode::RC_READ_RESPONSE_MIDDLE, 0, 1024));
        assert_eq!(
            (b.write, b.write_address, b.acknowledgement, b.response_psn),
            (true, 0x1400, true, 0)
        );
        assert_eq!(b.response_syndrome, Syndrome::ack().encode(), "a middle packet goes on as an ACK");
        let (c, done) = t.decide(&response(Opcode::RC_READ_RESPONSE_LAST, 1, 452));
        assert_eq!((c.write, c.write_address, done), (true, 0x1800, Some(QP)));
        assert_eq!(t.outstanding(QP), None);
        assert_eq!(t.counters.taken, 3);
    }

    #[test]
    fn a_request_cut_before_its_qp_was_reset_is_ignored() {
        let mut t = tracker_with_read(100, 1024);
        t.clear(QP);
        assert_eq!((t.outstanding(QP), t.generation(QP)), (None, 1));
        // cut before the reset (generation 0), through the packetizer after it: not loaded
        t.sent(&sent(101, 2048, 0x2000, false));
        assert_eq!(t.outstanding(QP), None);
        // cut after it: loaded
        t.sent(&SentRead {
            generation: 1,
            ..sent(200, 1024, 0x3000, false)
        });
        assert_eq!(t.outstanding(QP).map(|r| r.expected), Some(200));
        // four resets later the generation is 1 again
        for _ in 0..GENERATIONS {
            t.clear(QP);
        }
        assert_eq!(t.generation(QP), 1);
    }

    #[test]
    fn a_request_sent_again_after_its_read_ended_is_ignored() {
        let mut t = tracker_with_read(100, 1024);
        let (d, done) = t.decide(&response(Opcode::RC_READ_RESPONSE_ONLY, 100, 1024));
        assert_eq!((d.write, done), (true, Some(QP)));
        // the replay a timeout began just before the response came
        let again = SentRead {
            qp: QP,
            first_psn: 100,
            last_psn: 100,
            local_address: 0x1000,
            length: 1024,
            pmtu: Pmtu::B1024,
            again: true,
            generation: 0,
        };
        t.sent(&again);
        assert_eq!(t.outstanding(QP), None);
        let (d, done) = t.decide(&response(Opcode::RC_READ_RESPONSE_ONLY, 100, 1024));
        assert_eq!((d.write, done), (false, None), "its response is not written");
        // the next READ is taken, and a late request of the one before does not move it
        t.sent(&SentRead {
            first_psn: 101,
            last_psn: 101,
            again: false,
            ..again
        });
        t.sent(&again);
        assert_eq!(t.outstanding(QP).map(|r| (r.expected, r.last)), Some((101, 101)));
    }

    #[test]
    fn a_zero_length_read_is_answered_by_one_empty_only_packet() {
        let mut t = tracker_with_read(7, 0);
        let (d, done) = t.decide(&response(Opcode::RC_READ_RESPONSE_ONLY, 7, 0));
        assert_eq!((d.write, d.acknowledgement, done), (true, true, Some(QP)));
    }

    #[test]
    fn wrong_opcode_or_length_duplicates_and_strays_write_nothing() {
        let mut t = tracker_with_read(10, 3000);
        for bad in [
            response(Opcode::RC_READ_RESPONSE_ONLY, 10, 1024),
            response(Opcode::RC_READ_RESPONSE_FIRST, 10, 1000),
            response(Opcode::RC_READ_RESPONSE_FIRST, 13, 1024),
        ] {
            let (d, done) = t.decide(&bad);
            assert_eq!((d.write, d.acknowledgement, done), (false, false, None), "{bad:?}");
        }
        t.decide(&response(Opcode::RC_READ_RESPONSE_FIRST, 10, 1024));
        let (d, _) = t.decide(&response(Opcode::RC_READ_RESPONSE_FIRST, 10, 1024));
        assert_eq!((d.write, d.acknowledgement), (false, false));
        assert_eq!((t.counters.bad, t.counters.duplicates, t.counters.taken), (3, 1, 1));
        let mut other = ReadTracker::new(4);
        let (d, _) = other.decide(&response(Opcode::RC_READ_RESPONSE_ONLY, 10, 4));
        assert_eq!(
            (d.write, d.acknowledgement, other.counters.bad),
            (false, false, 1),
            "no READ outstanding"
        );
    }

    #[test]
    fn a_gap_is_asked_for_once_and_a_resent_request_keeps_the_mark() {
        let mut t = tracker_with_read(100, 4096);
        t.decide(&response(Opcode::RC_READ_RESPONSE_FIRST, 100, 1024));
        let (d, _) = t.decide(&response(Opcode::RC_READ_RESPONSE_MIDDLE, 102, 1024));
        let nak = Syndrome::Nak(NakCode::PsnSequenceError).encode();
        assert_eq!(
            (d.write, d.acknowledgement, d.response_syndrome, d.response_psn),
            (false, true, nak, 101)
        );
        // an ACK of a later request: only the PSN before the gap
        let (d, _) = t.decide(&ack(200, Syndrome::ack()));
        assert_eq!((d.response_syndrome, d.response_psn), (Syndrome::ack().encode(), 100));
        // the request for the rest
        t.sent(&SentRead {
            qp: QP,
            first_psn: 101,
            last_psn: 103,
            local_address: 0x1400,
            length: 3072,
            pmtu: Pmtu::B1024,
            again: true,
            generation: 0,
        });
        let (d, _) = t.decide(&ack(200, Syndrome::ack()));
        assert_eq!(d.response_psn, 100, "still asked");
        let (d, _) = t.decide(&response(Opcode::RC_READ_RESPONSE_FIRST, 101, 1024));
        assert_eq!((d.write, d.write_address), (true, 0x1400), "the rest starts with a first packet");
        let (d, _) = t.decide(&ack(200, Syndrome::RnrNak { timer: 3 }));
        assert_eq!(d.response_psn, 102, "an RNR NAK beyond waits from the PSN expected");
        assert_eq!(t.counters.gaps, 1);
    }

    #[test]
    fn acks_before_the_read_and_other_decisions_pass_unchanged() {
        let mut t = tracker_with_read(100, 4096);
        let before = ack(99, Syndrome::ack());
        assert_eq!(t.decide(&before), (before, None));
        let nak_at_read = ack(100, Syndrome::Nak(NakCode::RemoteAccessError));
        assert_eq!(
            t.decide(&nak_at_read),
            (nak_at_read, None),
            "a NAK of the READ itself covers nothing after it"
        );
        let request = Decision {
            write: true,
            write_address: 0x5000,
            qp: QP,
            ..Decision::default()
        };
        assert_eq!(t.decide(&request), (request, None));
        t.clear(QP);
        assert_eq!(t.outstanding(QP), None);
    }

    #[test]
    fn several_reads_of_a_qp_are_answered_in_turn() {
        // three READs: 2 packets at PSN 10, 1 at 12 (a WRITE at 13 between), 3 at 14
        let mut t = ReadTracker::with_limit(4, 4);
        t.sent(&sent(10, 2000, 0x1000, false));
        t.sent(&sent(12, 100, 0x2000, false));
        t.sent(&sent(14, 2100, 0x3000, false));
        assert_eq!(t.outstanding_reads(QP).len(), 3);
        let (d, done) = t.decide(&response(Opcode::RC_READ_RESPONSE_FIRST, 10, 1024));
        assert_eq!((d.write, d.write_address, done), (true, 0x1000, None));
        let (d, done) = t.decide(&response(Opcode::RC_READ_RESPONSE_LAST, 11, 976));
        assert_eq!((d.write, d.write_address, done), (true, 0x1400, Some(QP)));
        let (d, done) = t.decide(&response(Opcode::RC_READ_RESPONSE_ONLY, 12, 100));
        assert_eq!((d.write, d.write_address, done), (true, 0x2000, Some(QP)));
        // the WRITE's ACK covers nothing of the third READ
        let write_ack = ack(13, Syndrome::ack());
        assert_eq!(t.decide(&write_ack), (write_ack, None));
        for (psn, opcode, length, address) in [
            (14, Opcode::RC_READ_RESPONSE_FIRST, 1024, 0x3000),
            (15, Opcode::RC_READ_RESPONSE_MIDDLE, 1024, 0x3400),
            (16, Opcode::RC_READ_RESPONSE_LAST, 52, 0x3800),
        ] {
            let (d, done) = t.decide(&response(opcode, psn, length));
            assert_eq!((d.write, d.write_address, done), (true, address, (psn == 16).then_some(QP)));
        }
        assert!(t.outstanding_reads(QP).is_empty());
        assert_eq!(t.counters.taken, 6);
    }

    #[test]
    fn a_later_read_s_response_before_the_oldest_is_whole_is_a_gap_at_the_oldest() {
        let mut t = ReadTracker::with_limit(4, 2);
        t.sent(&sent(10, 2000, 0x1000, false));
        t.sent(&sent(12, 1000, 0x2000, false));
        t.decide(&response(Opcode::RC_READ_RESPONSE_FIRST, 10, 1024));
        // PSN 11 lost: the second READ's response is a gap at 11, asked once
        let (d, done) = t.decide(&response(Opcode::RC_READ_RESPONSE_ONLY, 12, 1000));
        let nak = Syndrome::Nak(NakCode::PsnSequenceError).encode();
        assert_eq!((d.write, d.response_syndrome, d.response_psn, done), (false, nak, 11, None));
        // beyond the newest READ: nothing
        let (d, _) = t.decide(&response(Opcode::RC_READ_RESPONSE_ONLY, 13, 4));
        assert_eq!((d.write, d.acknowledgement), (false, false));
        // going back N: the first READ's rest, then the second again
        t.sent(&sent(11, 976, 0x1400, true));
        t.sent(&sent(12, 1000, 0x2000, true));
        let (d, _) = t.decide(&response(Opcode::RC_READ_RESPONSE_ONLY, 11, 976));
        assert_eq!((d.write, d.write_address), (true, 0x1400), "the rest as an only packet");
        let (d, done) = t.decide(&response(Opcode::RC_READ_RESPONSE_ONLY, 12, 1000));
        assert_eq!((d.write, d.write_address, done), (true, 0x2000, Some(QP)));
        assert_eq!((t.counters.gaps, t.counters.bad), (1, 1));
    }

    #[test]
    fn at_the_limit_a_new_read_takes_the_newest_s_place_and_a_clear_forgets_all() {
        let mut t = ReadTracker::with_limit(4, 2);
        t.sent(&sent(10, 100, 0x1000, false));
        t.sent(&sent(11, 100, 0x2000, false));
        t.sent(&sent(12, 100, 0x3000, false));
        let reads: Vec<u32> = t.outstanding_reads(QP).iter().map(|r| r.expected).collect();
        assert_eq!(reads, [10, 12]);
        // a request sent again that ends with no READ's last PSN moves nothing
        t.sent(&sent(11, 100, 0x2000, true));
        assert_eq!(t.outstanding_reads(QP).len(), 2);
        t.clear(QP);
        assert!(t.outstanding_reads(QP).is_empty());
    }
}
