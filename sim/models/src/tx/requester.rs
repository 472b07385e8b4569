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

use super::acknowledge::{psn_at_or_before, Completion};
use super::packetize::{packetize, QpSender, TxPacket};
use super::record::QpContext;
use super::retry::{Event, Operation, TimerEntry};
use super::segment::MessagePart;
use crate::contracts::reliability::{TimerAction, TimerEvent};
use crate::contracts::responder::{NakCode, Syndrome};
use crate::contracts::tx::{CompletionStatus, Pmtu};
use crate::wire::bth::PSN_MASK;
use crate::wire::opcode::Transport;
use std::collections::VecDeque;

/// A packet with what its acknowledgement completes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Outstanding {
    packet: TxPacket,
    /// The last packet of its transfer.
    last_of_transfer: bool,
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
            counters: RequesterCounters::default(),
        }
    }

    /// Back to the state of [`RcRequester::new`] with `context` (the host reset the QP and
    /// connected it again): nothing of before survives, the timer included.
    pub fn reset(&mut self, context: QpContext) {
        *self = RcRequester {
            counters: self.counters,
            ..RcRequester::new(context)
        };
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
            });
        }
        None
    }

    /// The next packet to put on the wire at tick `now`: one sent again while going back, else
    /// a new one unless an RNR wait runs.
    pub fn next_packet(&mut self, now: u32) -> Option<TxPacket> {
        if self.error.is_some() {
            return None;
        }
        if let Some(i) = self.resend {
            let packet = self.unacked[i].packet;
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
        let Some(last_sent) = self.unacked.back().map(|o| o.packet.bth.psn) else {
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
        let kind = match syndrome {
            Syndrome::Ack { .. } => None,
            Syndrome::Nak(NakCode::PsnSequenceError) => {
                self.counters.sequence_naks += 1;
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
        if progressed > 0 {
            let event = if self.unacked.is_empty() {
                TimerEvent::Idle
            } else {
                TimerEvent::Progress
            };
            self.timer.apply(Operation::Event(Event::new(qp, event)), now);
        }
        if let Some(event) = kind.filter(|_| !self.unacked.is_empty()) {
            let action = self.timer.apply(Operation::Event(event), now);
            completions.extend(self.act(action));
        }
        completions
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
                    Some(TimerAction::Timeout) => self.counters.timeouts += 1,
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

    /// Drops the packets at or before `acknowledged`: how many, and the transfers they complete.
    fn release(&mut self, acknowledged: u32) -> (usize, Vec<Completion>) {
        let mut completions = Vec::new();
        let mut popped = 0;
        while let Some(front) = self.unacked.front().filter(|o| psn_at_or_before(o.packet.bth.psn, acknowledged)) {
            if front.last_of_transfer {
                completions.push((front.packet.channel, CompletionStatus::Success));
            }
            self.unacked.pop_front();
            popped += 1;
        }
        self.resend = self.resend.map(|i| i.saturating_sub(popped)).filter(|&i| i < self.unacked.len());
        (popped, completions)
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
        r.reset(r.context);
        assert_eq!(r.post(&part(1), (6, 0, 1), true), None);
        assert_eq!(send_all(&mut r, 30), [100]);
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
