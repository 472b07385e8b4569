//! An RC requester that survives a lossy wire: one QP's packets kept until acknowledged, sent
//! again from the PSN a timeout, a PSN sequence error NAK or the end of an RNR wait names (go
//! back N), with the retry timer's rules ([`super::retry`]). The model the RTL's retransmission
//! is built to (`docs/reliability.md`).
//!
//! - **Packets** come from [`packetize`] as the TX path cuts them; a packet sent again is the
//!   same packet (PSN, opcode, headers, payload address), so the responder sees exactly what it
//!   missed.
//! - **Order**: new packets wait while a retransmission runs and while an RNR wait runs.
//! - **ACKs and NAKs** are cumulative: an ACK of PSN `p` acknowledges `p` and before, a NAK of
//!   `p` the PSNs before `p`; a transfer completes with success when its last packet is
//!   acknowledged. Answers outside the window (after the last PSN sent, or at or before the
//!   last one acknowledged with nothing new) change nothing.
//! - **Failures**: retries exhausted (timeouts and sequence NAKs) complete every outstanding
//!   transfer with `transport_retry_exceeded`, RNR retries exhausted with `receiver_not_ready`;
//!   a NAK invalid request, remote access error or remote operational error completes the
//!   transfer holding its PSN with that status and every later one with the same. Then the QP is
//!   in error: later posts complete at once with its status, until [`RcRequester::reset`].
//! - **RDMA READ** ([`RcRequester::post_read`]): one request packet that takes the PSNs of its
//!   whole response. Its response packets are taken in PSN order, each checked (opcode for its
//!   place in the response last asked for, length) and written to local memory ([`RcRequester::read_response`]); a response
//!   acknowledges every request before the READ, and the READ completes with its last
//!   response packet, never on an ACK. A response ahead of the next one expected means
//!   responses were lost, as does an ACK or NAK beyond a READ still missing responses: the
//!   requester goes back N from the READ, asking again from the first missing response PSN
//!   (the VA and length moved by the packets already taken), once per gap, counted as a
//!   sequence error (a retry). A response behind the next one expected is a duplicate and
//!   is dropped.

use super::acknowledge::{psn_at_or_before, Completion};
use super::packetize::{packetize, read_request, QpSender, TxPacket};
use super::record::QpContext;
use super::retry::{Event, Operation, TimerEntry};
use super::segment::MessagePart;
use crate::contracts::reliability::{TimerAction, TimerEvent};
use crate::contracts::responder::{NakCode, Syndrome};
use crate::contracts::tx::{CompletionStatus, Pmtu};
use crate::responder::read_packet_count;
use crate::wire::bth::PSN_MASK;
use crate::wire::opcode::Transport;
use crate::wire::{Opcode, RethRepr};
use std::collections::VecDeque;

/// A packet with what its acknowledgement completes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Outstanding {
    packet: TxPacket,
    /// The last packet of its transfer.
    last_of_transfer: bool,
    /// An RDMA READ request: how far its response has come.
    read: Option<ReadProgress>,
}

/// An RDMA READ request's response so far.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct ReadProgress {
    /// Packets of the whole response (the PSNs the request took).
    packets: u32,
    /// Response packets taken, in PSN order.
    received: u32,
    /// The last one taken was a first or middle packet: a middle or last one comes next.
    /// Asking again starts a new response (first or only).
    open: bool,
}

impl Outstanding {
    /// The last PSN it took (a READ request: its response's last).
    fn last_psn(&self) -> u32 {
        let extra = self.read.map_or(0, |r| r.packets - 1);
        (self.packet.bth.psn + extra) & PSN_MASK
    }

    /// A READ whose response is not whole.
    fn read_missing(&self) -> bool {
        self.read.is_some_and(|r| r.received < r.packets)
    }

    /// The packet to send (again): a READ with part of its response taken asks for the rest,
    /// from its first missing PSN, with the VA and length moved by the bytes taken.
    fn packet_to_send(&self, pmtu: Pmtu) -> TxPacket {
        let mut packet = self.packet;
        if let (Some(read), Some(reth)) = (self.read, self.packet.reth) {
            let taken = read.received * pmtu.bytes();
            packet.bth.psn = (packet.bth.psn + read.received) & PSN_MASK;
            packet.reth = Some(RethRepr {
                va: reth.va.wrapping_add(u64::from(taken)),
                dma_len: reth.dma_len - taken,
                ..reth
            });
            packet.local_addr = packet.local_addr.wrapping_add(u64::from(taken));
        }
        packet
    }
}

/// An RDMA READ to post: `len` bytes of the peer's memory at `va` (the QP's R_Key) into local
/// memory at `local_addr`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReadPart {
    /// Local address of the first byte.
    pub local_addr: u64,
    /// The peer's address of the first byte.
    pub va: u64,
    /// Bytes (at most 2^31).
    pub len: u32,
}

/// A READ response packet as it arrived (its BTH and AETH), for [`RcRequester::read_response`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ArrivedResponse {
    /// BTH opcode (READ response first, middle, last or only).
    pub opcode: Opcode,
    /// BTH PSN.
    pub psn: u32,
    /// Payload bytes.
    pub length: u32,
}

/// What a READ response packet did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ResponseOutcome {
    /// Taken: the local address its payload goes to.
    pub write: Option<u64>,
    /// The transfers it completed.
    pub completions: Vec<Completion>,
}

/// What the requester counted.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RequesterCounters {
    /// Packets sent for the first time.
    pub sent: u64,
    /// Packets sent again.
    pub retransmitted: u64,
    /// Transport timeouts (retries used by them included).
    pub timeouts: u64,
    /// PSN sequence error NAKs received.
    pub sequence_naks: u64,
    /// RNR NAKs received.
    pub rnr_naks: u64,
    /// RNR waits ended.
    pub rnr_waits: u64,
    /// ACKs and NAKs outside the window or with a reserved syndrome.
    pub ignored: u64,
    /// READ response packets taken.
    pub read_responses: u64,
    /// READ response packets dropped as duplicates (behind the next one expected).
    pub duplicate_responses: u64,
    /// READs asked again from a missing response PSN (a response ahead, or an ACK or NAK beyond
    /// a READ still missing responses).
    pub read_gaps: u64,
    /// READ response packets that fit no outstanding READ (outside the window, wrong opcode or
    /// length): dropped.
    pub bad_responses: u64,
}

/// One RC QP's requester.
#[derive(Debug, Clone)]
pub struct RcRequester {
    context: QpContext,
    pmtu: Pmtu,
    sender: QpSender,
    /// Sent, not acknowledged, in PSN order.
    unacked: VecDeque<Outstanding>,
    /// The next of `unacked` to send again, while going back.
    resend: Option<usize>,
    /// Posted, not sent yet.
    waiting: VecDeque<Outstanding>,
    timer: TimerEntry,
    error: Option<CompletionStatus>,
    /// The first missing READ response PSN the requester last went back for: a gap is asked
    /// again once (until a response fills it or the timer runs out).
    read_gap: Option<u32>,
    counters: RequesterCounters,
}

impl RcRequester {
    /// The requester of the QP of `context` (RC, its PMTU valid), nothing sent.
    pub fn new(context: QpContext) -> RcRequester {
        RcRequester {
            context,
            pmtu: Pmtu::from_code(context.pmtu).expect("a valid PMTU"),
            sender: QpSender::new(&context),
            unacked: VecDeque::new(),
            resend: None,
            waiting: VecDeque::new(),
            timer: TimerEntry::default(),
            error: None,
            read_gap: None,
            counters: RequesterCounters::default(),
        }
    }

    /// Back to the state of [`RcRequester::new`] with `context` (the host reset the QP and
    /// connected it again): nothing of before survives, the timer included. Every transfer whose
    /// last packet was posted and is not acknowledged completes `Flushed` (returned, in PSN
    /// order), as a verbs reset flushes its work requests; nothing of it is sent again.
    pub fn reset(&mut self, context: QpContext) -> Vec<Completion> {
        let flushed = self
            .unacked
            .iter()
            .chain(&self.waiting)
            .filter(|o| o.last_of_transfer)
            .map(|o| (o.packet.channel, CompletionStatus::Flushed))
            .collect();
        *self = RcRequester {
            counters: self.counters,
            ..RcRequester::new(context)
        };
        flushed
    }

    /// The counters.
    pub fn counters(&self) -> RequesterCounters {
        self.counters
    }

    /// The QP's error, once it has one.
    pub fn error(&self) -> Option<CompletionStatus> {
        self.error
    }

    /// Nothing waits, nothing is unacknowledged.
    pub fn is_idle(&self) -> bool {
        self.unacked.is_empty() && self.waiting.is_empty()
    }

    /// The tick the timer expires on, if it runs.
    pub fn deadline(&self) -> Option<u32> {
        self.timer.armed.then_some(self.timer.deadline)
    }

    /// Posts the packets of `part` (transfer `channel`, scheduler queue `queue`, local QP `qp`);
    /// `last_of_transfer`: the part ends its transfer. In error, a transfer's last part
    /// completes at once with the QP's error.
    pub fn post(&mut self, part: &MessagePart, (channel, queue, qp): (u16, u8, u32), last_of_transfer: bool) -> Option<Completion> {
        if let Some(status) = self.error {
            return last_of_transfer.then_some((channel, status));
        }
        let packets = packetize(
            part,
            &self.context,
            Transport::Rc,
            self.pmtu,
            &mut self.sender,
            (channel, queue, qp),
        );
        let count = packets.len();
        for (i, packet) in packets.into_iter().enumerate() {
            self.waiting.push_back(Outstanding {
                packet,
                last_of_transfer: last_of_transfer && i + 1 == count,
                read: None,
            });
        }
        None
    }

    /// Posts an RDMA READ (transfer `channel`, scheduler queue `queue`, local QP `qp`), a
    /// transfer of its own; in error it completes at once with the QP's error.
    pub fn post_read(&mut self, part: &ReadPart, (channel, queue, qp): (u16, u8, u32)) -> Option<Completion> {
        if let Some(status) = self.error {
            return Some((channel, status));
        }
        let reth = RethRepr {
            va: part.va,
            r_key: self.context.rkey,
            dma_len: part.len,
        };
        let packet = read_request(
            reth,
            part.local_addr,
            &self.context,
            self.pmtu,
            &mut self.sender,
            (channel, queue, qp),
        );
        self.waiting.push_back(Outstanding {
            packet,
            last_of_transfer: true,
            read: Some(ReadProgress {
                packets: read_packet_count(part.len, self.pmtu),
                received: 0,
                open: false,
            }),
        });
        None
    }

    /// The next packet to put on the wire at tick `now`: one sent again while going back, else
    /// a new one unless an RNR wait runs.
    pub fn next_packet(&mut self, now: u32) -> Option<TxPacket> {
        if self.error.is_some() {
            return None;
        }
        if let Some(i) = self.resend {
            let packet = self.unacked[i].packet_to_send(self.pmtu);
            if let Some(read) = self.unacked[i].read.as_mut() {
                read.open = false;
            }
            self.resend = (i + 1 < self.unacked.len()).then_some(i + 1);
            self.counters.retransmitted += 1;
            return Some(packet);
        }
        if self.timer.rnr_waiting {
            return None;
        }
        let next = self.waiting.pop_front()?;
        self.unacked.push_back(next);
        self.counters.sent += 1;
        let sent = Event {
            timeout: self.context.timeout,
            retry: self.context.retry_count,
            rnr_retry: self.context.rnr_retry,
            ..Event::new(next.packet.qp, TimerEvent::Sent)
        };
        self.timer.apply(Operation::Event(sent), now);
        Some(next.packet)
    }

    /// An ACK or NAK of PSN `psn` with AETH syndrome `syndrome` at tick `now`; the transfers it
    /// completes.
    pub fn acknowledge(&mut self, psn: u32, syndrome: u8, now: u32) -> Vec<Completion> {
        let Some(last_sent) = self.unacked.back().map(Outstanding::last_psn) else {
            self.counters.ignored += 1;
            return Vec::new();
        };
        let syndrome = match Syndrome::decode(syndrome) {
            Some(s) if psn_at_or_before(psn, last_sent) => s,
            _ => {
                self.counters.ignored += 1;
                return Vec::new();
            }
        };
        // what it acknowledges: the PSN itself (ACK) or those before it (NAK)
        let acknowledged = if syndrome.is_nak() { psn.wrapping_sub(1) & PSN_MASK } else { psn };
        let (progressed, mut completions) = self.release(acknowledged);
        let qp = self.unacked.front().map_or(0, |o| o.packet.qp);
        // beyond a READ still missing responses: they were lost (the responder answers in order)
        let read_lost = self
            .unacked
            .front()
            .is_some_and(|o| o.read_missing() && psn_at_or_before(o.packet.bth.psn, acknowledged));
        let kind = match syndrome {
            Syndrome::Ack { .. } => read_lost.then(|| self.read_gap_event(qp)).flatten(),
            Syndrome::Nak(NakCode::PsnSequenceError) => {
                self.counters.sequence_naks += 1;
                if read_lost {
                    self.read_gap = self.unacked.front().map(|o| o.packet_to_send(self.pmtu).bth.psn);
                }
                Some(Event::new(qp, TimerEvent::SequenceNak))
            }
            Syndrome::RnrNak { timer } => {
                self.counters.rnr_naks += 1;
                Some(Event {
                    rnr_timer: timer,
                    ..Event::new(qp, TimerEvent::RnrNak)
                })
            }
            Syndrome::Nak(_) => {
                let status = CompletionStatus::of_syndrome(syndrome.encode()).expect("a fatal NAK has a status");
                completions.extend(self.fail(status));
                return completions;
            }
        };
        self.progress(qp, progressed, now);
        if let Some(event) = kind.filter(|_| !self.unacked.is_empty()) {
            let action = self.timer.apply(Operation::Event(event), now);
            completions.extend(self.act(action));
        }
        completions
    }

    /// A READ response packet at tick `now`: taken (its payload to local memory) when it is
    /// the next one expected of the first READ still missing responses, with the opcode of
    /// its place and its length; the transfers it completes (the requests before the READ,
    /// the READ with its last packet). A packet ahead goes back N from the missing one.
    pub fn read_response(&mut self, response: &ArrivedResponse, now: u32) -> ResponseOutcome {
        let mut outcome = ResponseOutcome::default();
        let Some(index) = self.unacked.iter().position(Outstanding::read_missing) else {
            self.counters.bad_responses += 1;
            return outcome;
        };
        let read_entry = self.unacked[index];
        let read = read_entry.read.expect("a READ");
        let expected = (read_entry.packet.bth.psn + read.received) & PSN_MASK;
        let last_sent = self.unacked.back().map_or(expected, Outstanding::last_psn);
        let qp = read_entry.packet.qp;
        if response.psn != expected {
            if psn_at_or_before(response.psn, expected.wrapping_sub(1) & PSN_MASK) {
                // a response taken already
                self.counters.duplicate_responses += 1;
            } else if psn_at_or_before(response.psn, last_sent) {
                // ahead: the ones before it were lost; the requests before the READ are answered
                let (progressed, completions) = self.release_before(index);
                outcome.completions = completions;
                self.progress(qp, progressed, now);
                if let Some(event) = self.read_gap_event(qp) {
                    let action = self.timer.apply(Operation::Event(event), now);
                    outcome.completions.extend(self.act(action));
                }
            } else {
                self.counters.bad_responses += 1;
            }
            return outcome;
        }
        let pmtu = self.pmtu.bytes();
        let taken = read.received * pmtu;
        let dma_len = read_entry.packet.reth.expect("a READ request has a RETH").dma_len;
        // the opcode for its place in the response asked for last, and its length
        let remaining = dma_len - taken;
        let (opcode, length) = match (read.open, remaining > pmtu) {
            (false, false) => (Opcode::RC_READ_RESPONSE_ONLY, remaining),
            (false, true) => (Opcode::RC_READ_RESPONSE_FIRST, pmtu),
            (true, true) => (Opcode::RC_READ_RESPONSE_MIDDLE, pmtu),
            (true, false) => (Opcode::RC_READ_RESPONSE_LAST, remaining),
        };
        if response.opcode != opcode || response.length != length {
            self.counters.bad_responses += 1;
            return outcome;
        }
        self.counters.read_responses += 1;
        self.read_gap = None;
        outcome.write = Some(read_entry.packet.local_addr.wrapping_add(u64::from(taken)));
        let (mut progressed, completions) = self.release_before(index);
        outcome.completions = completions;
        let front = self.unacked.front_mut().expect("the READ is at the front");
        let progress = front.read.as_mut().expect("a READ");
        progress.received += 1;
        progress.open = remaining > pmtu;
        if progress.received == progress.packets {
            let done = self.unacked.pop_front().expect("the READ");
            outcome.completions.push((done.packet.channel, CompletionStatus::Success));
            self.resend = self.resend.map(|i| i.saturating_sub(1)).filter(|&i| i < self.unacked.len());
        }
        progressed += 1;
        self.progress(qp, progressed, now);
        outcome
    }

    /// Goes back for the first missing response of the READ at the front, once per gap: the
    /// sequence error event, or `None` when that gap was asked for already.
    fn read_gap_event(&mut self, qp: u32) -> Option<Event> {
        let missing = self.unacked.front()?.packet_to_send(self.pmtu).bth.psn;
        if self.read_gap == Some(missing) {
            return None;
        }
        self.read_gap = Some(missing);
        self.counters.read_gaps += 1;
        Some(Event::new(qp, TimerEvent::SequenceNak))
    }

    /// Tells the timer about progress (`progressed` > 0): idle when nothing is outstanding.
    fn progress(&mut self, qp: u32, progressed: usize, now: u32) {
        if progressed > 0 {
            let event = if self.unacked.is_empty() {
                TimerEvent::Idle
            } else {
                TimerEvent::Progress
            };
            self.timer.apply(Operation::Event(Event::new(qp, event)), now);
        }
    }

    /// The timer looks at its deadline at tick `now`; the transfers an exhausted retry fails.
    pub fn expire(&mut self, now: u32) -> Vec<Completion> {
        let action = self.timer.apply(Operation::Scan, now);
        self.act(action)
    }

    fn act(&mut self, action: Option<TimerAction>) -> Vec<Completion> {
        match action {
            None => Vec::new(),
            Some(TimerAction::Timeout) | Some(TimerAction::Retransmit) | Some(TimerAction::RnrWaited) => {
                match action {
                    Some(TimerAction::Timeout) => {
                        self.counters.timeouts += 1;
                        self.read_gap = None;
                    }
                    Some(TimerAction::RnrWaited) => self.counters.rnr_waits += 1,
                    _ => {}
                }
                self.resend = (!self.unacked.is_empty()).then_some(0);
                Vec::new()
            }
            Some(TimerAction::RetriesExhausted) => self.fail(CompletionStatus::TransportRetryExceeded),
            Some(TimerAction::RnrRetriesExhausted) => self.fail(CompletionStatus::ReceiverNotReady),
        }
    }

    /// Drops the packets at or before `acknowledged`, up to a READ still missing responses
    /// (only its last response completes it): how many, and the transfers they complete.
    fn release(&mut self, acknowledged: u32) -> (usize, Vec<Completion>) {
        let count = self
            .unacked
            .iter()
            .take_while(|o| !o.read_missing() && psn_at_or_before(o.last_psn(), acknowledged))
            .count();
        self.release_before(count)
    }

    /// Drops the first `count` packets (acknowledged): how many, and the transfers they complete.
    fn release_before(&mut self, count: usize) -> (usize, Vec<Completion>) {
        let completions = self
            .unacked
            .drain(..count)
            .filter(|o| o.last_of_transfer)
            .map(|o| (o.packet.channel, CompletionStatus::Success))
            .collect();
        self.resend = self.resend.map(|i| i.saturating_sub(count)).filter(|&i| i < self.unacked.len());
        (count, completions)
    }

    /// The QP goes to error with `status`: every transfer with packets outstanding or waiting
    /// completes with it.
    fn fail(&mut self, status: CompletionStatus) -> Vec<Completion> {
        let all = self.unacked.drain(..).chain(self.waiting.drain(..));
        let completions = all.filter(|o| o.last_of_transfer).map(|o| (o.packet.channel, status)).collect();
        self.resend = None;
        self.timer = TimerEntry::default();
        self.error = Some(status);
        completions
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contracts::tx::QpState;
    use crate::wire::RethRepr;

    fn requester(rnr_retry: u8) -> RcRequester {
        RcRequester::new(QpContext {
            state: QpState::Rts.code(),
            pmtu: Pmtu::B1024.code(),
            sq_psn: 100,
            timeout: 2,
            retry_count: 3,
            rnr_retry,
            ..QpContext::default()
        })
    }

    /// A WRITE message of `len` bytes.
    fn part(len: u64) -> MessagePart {
        MessagePart {
            read: false,
            write: true,
            message_len: len,
            start: 0,
            len,
            local_addr: 0x1000,
            reth: Some(RethRepr {
                va: 0x2000,
                r_key: 7,
                dma_len: len as u32,
            }),
            immediate: None,
            solicited: false,
        }
    }

    fn send_all(r: &mut RcRequester, now: u32) -> Vec<u32> {
        std::iter::from_fn(|| r.next_packet(now)).map(|p| p.bth.psn).collect()
    }

    const ACK: u8 = 0x1F;

    #[test]
    fn a_sequence_nak_goes_back_to_its_psn_and_the_ack_completes() {
        let mut r = requester(0);
        r.post(&part(4096), (5, 0, 1), true);
        assert_eq!(send_all(&mut r, 0), [100, 101, 102, 103]);
        let nak = Syndrome::Nak(NakCode::PsnSequenceError).encode();
        assert_eq!(r.acknowledge(102, nak, 1), []);
        assert_eq!(send_all(&mut r, 1), [102, 103]);
        assert_eq!(r.acknowledge(103, ACK, 2), [(5, CompletionStatus::Success)]);
        assert!(r.is_idle() && r.deadline().is_none());
    }

    #[test]
    fn a_timeout_sends_the_unacknowledged_again_and_retries_run_out() {
        let mut r = requester(0);
        r.post(&part(2048), (5, 0, 1), true);
        assert_eq!(send_all(&mut r, 0), [100, 101]);
        assert_eq!(r.acknowledge(100, ACK, 1), []);
        // restarted at tick 1 by the progress: 2^2 + 1 ticks
        assert_eq!(r.deadline(), Some(6));
        for round in 0..3 {
            assert_eq!(r.expire(6 + round * 5), []);
            assert_eq!(send_all(&mut r, 6 + round * 5), [101]);
        }
        assert_eq!(r.expire(21), [(5, CompletionStatus::TransportRetryExceeded)]);
        assert_eq!(r.error(), Some(CompletionStatus::TransportRetryExceeded));
        // later posts complete at once with the error, until the QP is reset
        assert_eq!(
            r.post(&part(1), (6, 0, 1), true),
            Some((6, CompletionStatus::TransportRetryExceeded))
        );
        assert_eq!(r.reset(r.context), []);
        assert_eq!(r.post(&part(1), (6, 0, 1), true), None);
        assert_eq!(send_all(&mut r, 30), [100]);
    }

    #[test]
    fn a_reset_flushes_what_was_posted_and_starts_again_from_the_context() {
        let mut r = requester(1);
        r.post(&part(2048), (5, 0, 1), true);
        r.post(&part(1024), (6, 0, 1), false);
        r.post(&part(1024), (7, 0, 1), true);
        // 5's first packet leaves; the rest waits
        assert_eq!(r.next_packet(0).map(|p| p.bth.psn), Some(100));
        assert_eq!(
            r.reset(r.context),
            [(5, CompletionStatus::Flushed), (7, CompletionStatus::Flushed)],
            "5 sent in part, 7 not sent; 6 has no last part yet"
        );
        assert!(r.is_idle());
        assert_eq!(r.deadline(), None);
        // an ACK of the old PSNs completes nothing
        assert_eq!(r.acknowledge(100, ACK, 1), []);
        r.post(&part(1), (8, 0, 1), true);
        assert_eq!(send_all(&mut r, 2), [100]);
    }

    #[test]
    fn an_rnr_nak_holds_new_packets_until_its_wait_is_over() {
        let mut r = requester(1);
        r.post(&part(1024), (5, 0, 1), true);
        r.post(&part(1024), (6, 0, 1), true);
        assert_eq!(send_all(&mut r, 0), [100, 101]);
        let rnr = Syndrome::RnrNak { timer: 1 }.encode();
        // the first is acknowledged by the NAK of the second
        assert_eq!(r.acknowledge(101, rnr, 1), [(5, CompletionStatus::Success)]);
        r.post(&part(1024), (7, 0, 1), true);
        assert!(send_all(&mut r, 2).is_empty());
        assert_eq!(r.expire(4), []);
        // 0.01 ms: three ticks and one for the phase
        assert_eq!(r.expire(5), []);
        assert_eq!(send_all(&mut r, 5), [101, 102]);
        // the second RNR NAK finds no RNR retry left
        assert_eq!(
            r.acknowledge(101, rnr, 6),
            [(6, CompletionStatus::ReceiverNotReady), (7, CompletionStatus::ReceiverNotReady)]
        );
    }

    #[test]
    fn a_fatal_nak_fails_its_transfer_and_every_later_one() {
        let mut r = requester(0);
        for channel in [1, 2, 3] {
            r.post(&part(1024), (channel, 0, 1), true);
        }
        assert_eq!(send_all(&mut r, 0), [100, 101, 102]);
        let nak = Syndrome::Nak(NakCode::RemoteAccessError).encode();
        assert_eq!(
            r.acknowledge(101, nak, 1),
            [
                (1, CompletionStatus::Success),
                (2, CompletionStatus::RemoteAccessError),
                (3, CompletionStatus::RemoteAccessError)
            ]
        );
    }

    fn read(local_addr: u64, va: u64, len: u32) -> ReadPart {
        ReadPart { local_addr, va, len }
    }

    fn response(opcode: Opcode, psn: u32, length: u32) -> ArrivedResponse {
        ArrivedResponse { opcode, psn, length }
    }

    fn sent(r: &mut RcRequester, now: u32) -> Vec<TxPacket> {
        std::iter::from_fn(|| r.next_packet(now)).collect()
    }

    #[test]
    fn a_read_takes_the_psns_of_its_response_and_completes_with_its_last_packet() {
        let mut r = requester(0);
        r.post(&part(1024), (4, 0, 1), true);
        assert_eq!(r.post_read(&read(0x9000, 0x5_0000, 2049), (5, 0, 1)), None);
        r.post(&part(1), (6, 0, 1), true);
        let packets = sent(&mut r, 0);
        let cut: Vec<_> = packets.iter().map(|p| (p.bth.opcode, p.bth.psn, p.payload_len)).collect();
        assert_eq!(
            cut,
            [
                (Opcode::RC_WRITE_ONLY, 100, 1024),
                (Opcode::RC_READ_REQUEST, 101, 0),
                (Opcode::RC_WRITE_ONLY, 104, 1)
            ]
        );
        assert_eq!(
            packets[1].reth,
            Some(RethRepr {
                va: 0x5_0000,
                r_key: 0,
                dma_len: 2049
            })
        );
        assert!(packets[1].bth.ack_req);
        // the first response acknowledges the WRITE before the READ
        let first = r.read_response(&response(Opcode::RC_READ_RESPONSE_FIRST, 101, 1024), 1);
        assert_eq!(
            (first.write, first.completions),
            (Some(0x9000), vec![(4, CompletionStatus::Success)])
        );
        let middle = r.read_response(&response(Opcode::RC_READ_RESPONSE_MIDDLE, 102, 1024), 1);
        assert_eq!((middle.write, middle.completions), (Some(0x9400), vec![]));
        let last = r.read_response(&response(Opcode::RC_READ_RESPONSE_LAST, 103, 1), 1);
        assert_eq!((last.write, last.completions), (Some(0x9800), vec![(5, CompletionStatus::Success)]));
        assert_eq!(r.acknowledge(104, ACK, 2), [(6, CompletionStatus::Success)]);
        assert!(r.is_idle());
        assert_eq!(r.counters().read_responses, 3);
    }

    #[test]
    fn a_lost_read_response_is_asked_for_again_from_its_psn_once_per_gap() {
        let mut r = requester(0);
        r.post_read(&read(0x9000, 0x5_0000, 3000), (5, 0, 1));
        assert_eq!(send_all(&mut r, 0), [100]);
        r.read_response(&response(Opcode::RC_READ_RESPONSE_FIRST, 100, 1024), 1);
        // 101 lost: 102 is ahead, the READ is asked again from 101
        let ahead = r.read_response(&response(Opcode::RC_READ_RESPONSE_LAST, 102, 952), 1);
        assert_eq!(ahead, ResponseOutcome::default());
        let again = sent(&mut r, 1);
        assert_eq!(again.len(), 1);
        assert_eq!(
            (again[0].bth.opcode, again[0].bth.psn, again[0].local_addr),
            (Opcode::RC_READ_REQUEST, 101, 0x9400)
        );
        assert_eq!(again[0].reth.map(|e| (e.va, e.dma_len)), Some((0x5_0400, 1976)));
        // a second packet ahead in the same gap asks nothing again
        r.read_response(&response(Opcode::RC_READ_RESPONSE_LAST, 102, 952), 1);
        assert!(sent(&mut r, 1).is_empty());
        // a duplicate of a taken response is dropped
        r.read_response(&response(Opcode::RC_READ_RESPONSE_FIRST, 100, 1024), 1);
        // a late middle packet of the first response no longer fits: the second request's
        // response is a new one, first and last, at the PSNs of the first's
        r.read_response(&response(Opcode::RC_READ_RESPONSE_MIDDLE, 101, 1024), 2);
        assert_eq!(r.counters().bad_responses, 1);
        assert_eq!(
            r.read_response(&response(Opcode::RC_READ_RESPONSE_FIRST, 101, 1024), 2).write,
            Some(0x9400)
        );
        let last = r.read_response(&response(Opcode::RC_READ_RESPONSE_LAST, 102, 952), 2);
        assert_eq!((last.write, last.completions), (Some(0x9800), vec![(5, CompletionStatus::Success)]));
        let c = r.counters();
        assert_eq!((c.read_gaps, c.duplicate_responses, c.retransmitted), (1, 1, 1));
    }

    #[test]
    fn an_ack_beyond_a_read_missing_its_response_sends_the_read_again() {
        let mut r = requester(0);
        r.post_read(&read(0x9000, 0x5_0000, 10), (5, 0, 1));
        r.post(&part(1024), (6, 0, 1), true);
        assert_eq!(send_all(&mut r, 0), [100, 101]);
        // the READ's only response was lost; the WRITE's ACK says so
        assert_eq!(r.acknowledge(101, ACK, 1), []);
        assert_eq!(send_all(&mut r, 1), [100, 101]);
        let only = r.read_response(&response(Opcode::RC_READ_RESPONSE_ONLY, 100, 10), 2);
        assert_eq!(only.completions, [(5, CompletionStatus::Success)]);
        assert_eq!(r.acknowledge(101, ACK, 2), [(6, CompletionStatus::Success)]);
        assert_eq!(r.counters().read_gaps, 1);
    }

    #[test]
    fn responses_that_fit_no_read_are_dropped() {
        let mut r = requester(0);
        assert_eq!(
            r.read_response(&response(Opcode::RC_READ_RESPONSE_ONLY, 100, 10), 0),
            ResponseOutcome::default()
        );
        r.post_read(&read(0x9000, 0x5_0000, 2048), (5, 0, 1));
        send_all(&mut r, 0);
        // the wrong opcode for its place, the wrong length, beyond the last PSN sent
        r.read_response(&response(Opcode::RC_READ_RESPONSE_ONLY, 100, 1024), 1);
        r.read_response(&response(Opcode::RC_READ_RESPONSE_FIRST, 100, 1000), 1);
        r.read_response(&response(Opcode::RC_READ_RESPONSE_LAST, 102, 1024), 1);
        assert_eq!(r.counters().bad_responses, 4);
        assert!(!r.is_idle());
    }

    #[test]
    fn answers_outside_the_window_change_nothing() {
        let mut r = requester(0);
        r.post(&part(2048), (5, 0, 1), true);
        send_all(&mut r, 0);
        assert_eq!(r.acknowledge(102, ACK, 1), []);
        assert_eq!(r.acknowledge(99, ACK, 1), []);
        assert_eq!(r.acknowledge(100, 0x7F, 1), []);
        assert_eq!(r.counters().ignored, 2);
        assert_eq!(r.acknowledge(101, ACK, 1), [(5, CompletionStatus::Success)]);
    }
}
