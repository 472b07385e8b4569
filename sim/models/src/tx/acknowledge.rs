//! RC completion on acknowledgement: the requester's side of RC on a lossless wire (the TX
//! path's `AckTracker`).
//!
//! A UC transfer is complete when its last frame has left. An RC transfer waits, once its last
//! frame has left, until the responder acknowledges its last PSN: ACKs are cumulative, so an
//! ACK of PSN `p` completes every waiting transfer of the QP whose last PSN is at or before `p`
//! (24-bit serial arithmetic). A QP's transfers leave whole and in PSN order, so the waiting
//! ones form one list per QP, oldest first.
//!
//! - An ACK or NAK whose PSN lies after the last request PSN the QP has sent is outside the
//!   window and ignored, as is one with a reserved syndrome.
//! - A NAK of PSN `p` acknowledges the PSNs before `p`. A PSN sequence error NAK or an RNR NAK
//!   fails nothing (the transfer waits for its retransmission); any other NAK (invalid request,
//!   remote access error, remote operational error) puts the QP in error, as an InfiniBand
//!   requester does: the transfer that holds `p` and every later one complete with the status
//!   [`CompletionStatus::of_syndrome`] gives (one still leaving, such as a long WRITE NAKed on
//!   its first packet, when its last frame has left), nothing the QP sent is sent again
//!   (everything is released from the send history) and the timer is told `idle`.
//!
//! - **Going back N** (with the retry timer and the send history): the tracker keeps per QP the
//!   last PSN acknowledged. An answer that acknowledges new PSNs releases them from the send
//!   history and tells the timer `progress`, or `idle` when everything sent is acknowledged; a
//!   PSN sequence error NAK then tells it `sequence_nak`, an RNR NAK `rnr_nak` with its timer
//!   code (neither fails a transfer), unless it is stale (it acknowledges less than the QP
//!   already has: a duplicate, or one overtaken on the wire): that tells the timer nothing. A
//!   timer action that sends again rewinds the history to the PSN after the last acknowledged
//!   (every block whole when nothing was acknowledged yet). An exhausted action fails every
//!   waiting transfer of the QP, releases everything it sent and keeps the QP failed: its
//!   transfers complete with that status when they have left, until the host resets the QP
//!   (`clear`: the waiting transfers complete as `flushed`, the QP starts again with nothing
//!   sent and nothing acknowledged, so a late answer to a request from before the reset is
//!   outside the window).
//!
//! Events come in the order the hardware sees them: a transfer's last frame leaves before any
//! answer to it can come back, and the tracker takes a transfer that has left before an ACK.

use crate::contracts::reliability::{TimerAction, TimerEvent};
use crate::contracts::responder::{NakCode, Syndrome};
use crate::contracts::tx::CompletionStatus;
use crate::wire::bth::PSN_MASK;
use std::collections::{BTreeMap, VecDeque};

/// `a` is at or before `b` in 24-bit serial arithmetic (`b − a` below 2^23).
pub fn psn_at_or_before(a: u32, b: u32) -> bool {
    b.wrapping_sub(a) & PSN_MASK < 1 << 23
}

/// A completion: the transfer's channel and how it ended.
pub type Completion = (u16, CompletionStatus);

/// Completions as a set (sorted `(channel, status code)`): compare them so when RC transfers
/// complete on their ACKs, whose timing orders them among the UC ones.
pub fn completion_set(completions: &[Completion]) -> Vec<(u16, u8)> {
    let mut set: Vec<(u16, u8)> = completions.iter().map(|&(channel, status)| (channel, status.code())).collect();
    set.sort_unstable();
    set
}

/// One QP's requester state.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct QpRequester {
    /// The last request PSN sent (none yet: every answer is outside the window).
    pub sent_psn: Option<u32>,
    /// Transfers whose last frame has left, waiting for their ACK: `(channel, last PSN)`.
    pub waiting: VecDeque<(u16, u32)>,
    /// The last PSN acknowledged (none since reset or the QP's last clear).
    pub acked: Option<u32>,
    /// The QP is in error (its retries ran out, or a fatal NAK): every transfer completes with
    /// this status until the QP is cleared.
    pub failed: Option<CompletionStatus>,
}

/// What the tracker tells the retry timer: the event and, for an RNR NAK, its timer code.
pub type Notice = (TimerEvent, u8);

/// What the tracker did with an ACK or NAK.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AckOutcome {
    /// Transfers completed, in order.
    pub completions: Vec<Completion>,
    /// Outside the window or a reserved syndrome: nothing changed.
    pub ignored: bool,
    /// The send history releases the blocks up to this PSN (new PSNs were acknowledged).
    pub release: Option<u32>,
    /// What the retry timer is told, in order.
    pub notices: Vec<Notice>,
}

/// What the tracker did with a timer action.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ActionOutcome {
    /// Transfers failed, in order.
    pub completions: Vec<Completion>,
    /// The send history releases the blocks up to this PSN (the QP failed).
    pub release: Option<u32>,
    /// The send history goes back to this PSN (`Some(None)`: every block whole).
    pub rewind: Option<Option<u32>>,
}

/// The requester's completion tracker of every QP.
#[derive(Debug, Clone, Default)]
pub struct AckTracker {
    qps: BTreeMap<u32, QpRequester>,
}

impl AckTracker {
    /// A tracker with nothing sent.
    pub fn new() -> AckTracker {
        AckTracker::default()
    }

    /// A QP's state (`None` before anything was sent on it).
    pub fn qp(&self, qp: u32) -> Option<&QpRequester> {
        self.qps.get(&qp)
    }

    /// A request packet with `psn` left on `qp` (RC or UC; responses are not requests).
    pub fn request_sent(&mut self, qp: u32, psn: u32) {
        self.qps.entry(qp).or_default().sent_psn = Some(psn & PSN_MASK);
    }

    /// A transfer's last frame has left: UC, or a transfer that already failed (`status`),
    /// completes now; an RC one completes now if a NAK already failed it, else waits.
    pub fn transfer_sent(&mut self, channel: u16, qp: u32, last_psn: u32, reliable: bool, status: CompletionStatus) -> Option<Completion> {
        if !reliable || status != CompletionStatus::Success {
            return Some((channel, status));
        }
        let state = self.qps.entry(qp).or_default();
        if let Some(failed) = state.failed {
            return Some((channel, failed));
        }
        state.waiting.push_back((channel, last_psn & PSN_MASK));
        None
    }

    /// An ACK or NAK (AETH `syndrome`) of `psn` arrived for `qp`.
    pub fn acknowledge(&mut self, qp: u32, psn: u32, syndrome: u8) -> AckOutcome {
        let psn = psn & PSN_MASK;
        let ignored = AckOutcome {
            ignored: true,
            ..AckOutcome::default()
        };
        let Some(state) = self.qps.get_mut(&qp) else {
            return ignored;
        };
        let in_window = state.sent_psn.is_some_and(|sent| psn_at_or_before(psn, sent));
        let Some(aeth) = Syndrome::decode(syndrome) else {
            return ignored;
        };
        if !in_window {
            return ignored;
        }
        let is_ack = matches!(aeth, Syndrome::Ack { .. });
        // an ACK acknowledges its PSN, a NAK the ones before it
        let acknowledged = if is_ack { psn } else { psn.wrapping_sub(1) & PSN_MASK };
        let fatal = CompletionStatus::of_syndrome(syndrome);
        // a NAK of a PSN before one already acknowledged (duplicated or overtaken on the wire)
        // is stale: the timer has heard of newer answers
        let stale = state.acked.is_some_and(|acked| !psn_at_or_before(acked, acknowledged));
        let mut outcome = AckOutcome::default();
        if state
            .acked
            .is_none_or(|acked| acked != acknowledged && psn_at_or_before(acked, acknowledged))
        {
            state.acked = Some(acknowledged);
            if fatal.is_none() {
                outcome.release = Some(acknowledged);
                let everything = state.sent_psn == Some(acknowledged);
                outcome
                    .notices
                    .push((if everything { TimerEvent::Idle } else { TimerEvent::Progress }, 0));
            }
        }
        match aeth {
            Syndrome::Nak(NakCode::PsnSequenceError) if !stale => outcome.notices.push((TimerEvent::SequenceNak, 0)),
            Syndrome::RnrNak { timer } if !stale => outcome.notices.push((TimerEvent::RnrNak, timer)),
            _ => {}
        }
        let completions = &mut outcome.completions;
        while let Some(&(channel, last)) = state.waiting.front() {
            if !psn_at_or_before(last, acknowledged) {
                break;
            }
            state.waiting.pop_front();
            completions.push((channel, CompletionStatus::Success));
        }
        if let Some(status) = fatal {
            // the QP is in error: the transfer holding the PSN and every later one fail (those
            // still leaving when they have left), nothing is sent again, the timer stops
            state.failed = Some(status);
            completions.extend(state.waiting.drain(..).map(|(channel, _)| (channel, status)));
            outcome.release = state.sent_psn;
            outcome.notices.push((TimerEvent::Idle, 0));
        }
        outcome
    }

    /// The retry timer's `action` for `qp`.
    pub fn timer_action(&mut self, qp: u32, action: TimerAction) -> ActionOutcome {
        let state = self.qps.entry(qp).or_default();
        if action.sends_again() {
            return ActionOutcome {
                rewind: Some(state.acked.map(|acked| acked.wrapping_add(1) & PSN_MASK)),
                ..ActionOutcome::default()
            };
        }
        let status = match action {
            TimerAction::RnrRetriesExhausted => CompletionStatus::ReceiverNotReady,
            _ => CompletionStatus::TransportRetryExceeded,
        };
        state.failed = Some(status);
        ActionOutcome {
            completions: state.waiting.drain(..).map(|(channel, _)| (channel, status)).collect(),
            release: state.sent_psn,
            rewind: None,
        }
    }

    /// The host reset `qp`: its waiting transfers complete as flushed, nothing of it is sent,
    /// acknowledged, failed or kept any more (an answer to a request from before the reset is
    /// outside the window until the QP sends again).
    pub fn clear(&mut self, qp: u32) -> Vec<Completion> {
        let state = self.qps.entry(qp).or_default();
        state.sent_psn = None;
        state.acked = None;
        state.failed = None;
        state
            .waiting
            .drain(..)
            .map(|(channel, _)| (channel, CompletionStatus::Flushed))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contracts::responder::NakCode;

    const ACK: u8 = 0b0001_1111;

    fn nak(code: NakCode) -> u8 {
        Syndrome::Nak(code).encode()
    }

    #[test]
    fn uc_completes_when_sent_rc_when_acknowledged() {
        let mut t = AckTracker::new();
        t.request_sent(1, 10);
        assert_eq!(
            t.transfer_sent(3, 1, 10, false, CompletionStatus::Success),
            Some((3, CompletionStatus::Success))
        );
        t.request_sent(2, 20);
        assert_eq!(t.transfer_sent(4, 2, 20, true, CompletionStatus::Success), None);
        assert_eq!(t.acknowledge(2, 19, ACK).completions, []);
        assert_eq!(t.acknowledge(2, 20, ACK).completions, [(4, CompletionStatus::Success)]);
        assert!(t.qp(2).unwrap().waiting.is_empty());
    }

    #[test]
    fn a_coalesced_ack_completes_every_transfer_it_covers_in_order() {
        let mut t = AckTracker::new();
        for (channel, last) in [(0u16, 4u32), (1, 9), (2, 12)] {
            t.request_sent(7, last);
            assert_eq!(t.transfer_sent(channel, 7, last, true, CompletionStatus::Success), None);
        }
        t.request_sent(7, 20);
        let outcome = t.acknowledge(7, 10, ACK);
        assert_eq!(
            outcome.completions,
            [(0, CompletionStatus::Success), (1, CompletionStatus::Success)]
        );
        assert_eq!(t.qp(7).unwrap().waiting, [(2, 12)]);
    }

    #[test]
    fn acks_outside_the_window_and_reserved_syndromes_are_ignored() {
        let mut t = AckTracker::new();
        assert!(t.acknowledge(1, 0, ACK).ignored, "nothing sent yet");
        t.request_sent(1, 100);
        t.transfer_sent(0, 1, 100, true, CompletionStatus::Success);
        assert!(t.acknowledge(1, 101, ACK).ignored, "after the last PSN sent");
        assert!(t.acknowledge(1, 100, 0b1000_0000).ignored, "reserved: bit 7");
        assert!(t.acknowledge(1, 100, 0b0100_0000).ignored, "reserved: kind 0b10");
        assert!(t.acknowledge(1, 100, 0b0110_0101).ignored, "reserved NAK code");
        assert_eq!(t.qp(1).unwrap().waiting.len(), 1);
        assert_eq!(t.acknowledge(1, 100, ACK).completions, [(0, CompletionStatus::Success)]);
    }

    #[test]
    fn psns_wrap_at_2_24() {
        let mut t = AckTracker::new();
        t.request_sent(1, 0xFF_FFFE);
        t.transfer_sent(0, 1, 0xFF_FFFE, true, CompletionStatus::Success);
        t.request_sent(1, 1);
        t.transfer_sent(1, 1, 1, true, CompletionStatus::Success);
        assert_eq!(t.acknowledge(1, 0, ACK).completions, [(0, CompletionStatus::Success)]);
        assert_eq!(t.acknowledge(1, 1, ACK).completions, [(1, CompletionStatus::Success)]);
        assert!(psn_at_or_before(0xFF_FFFF, 0) && !psn_at_or_before(0, 0xFF_FFFF));
    }

    #[test]
    fn a_nak_fails_the_transfer_holding_its_psn_and_acknowledges_the_ones_before() {
        let mut t = AckTracker::new();
        for qp in [5, 6] {
            for (channel, last) in [(0u16, 3u32), (1, 7), (2, 9)] {
                t.request_sent(qp, last);
                t.transfer_sent(channel + 4 * qp as u16, qp, last, true, CompletionStatus::Success);
            }
        }
        let outcome = t.acknowledge(5, 6, nak(NakCode::RemoteAccessError));
        assert_eq!(
            outcome.completions,
            [
                (20, CompletionStatus::Success),
                (21, CompletionStatus::RemoteAccessError),
                (22, CompletionStatus::RemoteAccessError)
            ]
        );
        // a PSN sequence error NAK and an RNR NAK fail nothing: they tell the timer
        let outcome = t.acknowledge(6, 3, ACK);
        assert_eq!(outcome.completions, [(24, CompletionStatus::Success)]);
        let outcome = t.acknowledge(6, 8, nak(NakCode::PsnSequenceError));
        assert_eq!(outcome.notices, [(TimerEvent::Progress, 0), (TimerEvent::SequenceNak, 0)]);
        assert_eq!(outcome.release, Some(7));
        assert_eq!(outcome.completions, [(25, CompletionStatus::Success)]);
        assert_eq!(t.qp(6).unwrap().waiting, [(26, 9)]);
        let rnr = Syndrome::RnrNak { timer: 14 }.encode();
        let outcome = t.acknowledge(6, 8, rnr);
        assert_eq!((outcome.completions, outcome.release), (vec![], None), "nothing new acknowledged");
        assert_eq!(outcome.notices, [(TimerEvent::RnrNak, 14)]);
    }

    #[test]
    fn a_stale_sequence_or_rnr_nak_tells_the_timer_nothing() {
        let mut t = AckTracker::new();
        t.request_sent(4, 30);
        t.transfer_sent(1, 4, 30, true, CompletionStatus::Success);
        let outcome = t.acknowledge(4, 20, ACK);
        assert_eq!(outcome.notices, [(TimerEvent::Progress, 0)]);
        for syndrome in [nak(NakCode::PsnSequenceError), Syndrome::RnrNak { timer: 3 }.encode()] {
            let outcome = t.acknowledge(4, 18, syndrome);
            assert_eq!((outcome.ignored, outcome.release, outcome.notices), (false, None, vec![]), "stale");
        }
        // a NAK of the next PSN expected is not stale: it repeats what the QP knows
        let outcome = t.acknowledge(4, 21, nak(NakCode::PsnSequenceError));
        assert_eq!(outcome.notices, [(TimerEvent::SequenceNak, 0)]);
        let outcome = t.acknowledge(4, 21, Syndrome::RnrNak { timer: 5 }.encode());
        assert_eq!(outcome.notices, [(TimerEvent::RnrNak, 5)]);
    }

    #[test]
    fn progress_idle_rewinds_and_exhaustion() {
        let mut t = AckTracker::new();
        t.request_sent(3, 20);
        t.transfer_sent(1, 3, 20, true, CompletionStatus::Success);
        // nothing acknowledged yet: a rewind replays every block whole
        assert_eq!(t.timer_action(3, TimerAction::Timeout).rewind, Some(None));
        let outcome = t.acknowledge(3, 15, ACK);
        assert_eq!((outcome.release, outcome.notices), (Some(15), vec![(TimerEvent::Progress, 0)]));
        // a stale ACK is no progress
        let outcome = t.acknowledge(3, 12, ACK);
        assert_eq!((outcome.ignored, outcome.release, outcome.notices), (false, None, vec![]));
        assert_eq!(t.timer_action(3, TimerAction::Retransmit).rewind, Some(Some(16)));
        t.request_sent(3, 25);
        t.transfer_sent(2, 3, 25, true, CompletionStatus::Success);
        let outcome = t.timer_action(3, TimerAction::RetriesExhausted);
        assert_eq!(
            outcome.completions,
            [
                (1, CompletionStatus::TransportRetryExceeded),
                (2, CompletionStatus::TransportRetryExceeded)
            ]
        );
        assert_eq!(outcome.release, Some(25));
        t.request_sent(3, 26);
        assert_eq!(
            t.transfer_sent(4, 3, 26, true, CompletionStatus::Success),
            Some((4, CompletionStatus::TransportRetryExceeded)),
            "a failed QP fails what it sends"
        );
        assert_eq!(t.clear(3), []);
        assert_eq!(t.transfer_sent(5, 3, 26, true, CompletionStatus::Success), None);
        assert_eq!(t.clear(3), [(5, CompletionStatus::Flushed)]);
        assert!(
            t.acknowledge(3, 26, ACK).ignored,
            "a late answer to a request from before the reset"
        );
        t.request_sent(3, 30);
        t.transfer_sent(6, 3, 30, true, CompletionStatus::Success);
        let outcome = t.acknowledge(3, 30, ACK);
        assert_eq!(outcome.notices, [(TimerEvent::Idle, 0)], "everything sent is acknowledged");
        assert_eq!(outcome.completions, [(6, CompletionStatus::Success)]);
    }

    #[test]
    fn a_nak_for_a_transfer_still_leaving_fails_it_and_every_later_one() {
        let mut t = AckTracker::new();
        t.request_sent(2, 40);
        let outcome = t.acknowledge(2, 40, nak(NakCode::InvalidRequest));
        assert_eq!(outcome.completions, []);
        assert_eq!(outcome.release, Some(40), "nothing is sent again");
        assert_eq!(outcome.notices, [(TimerEvent::Idle, 0)], "the timer stops");
        t.request_sent(2, 43);
        assert_eq!(
            t.transfer_sent(9, 2, 43, true, CompletionStatus::Success),
            Some((9, CompletionStatus::RemoteInvalidRequest))
        );
        t.request_sent(2, 44);
        assert_eq!(
            t.transfer_sent(10, 2, 44, true, CompletionStatus::Success),
            Some((10, CompletionStatus::RemoteInvalidRequest)),
            "the QP is in error until it is reset"
        );
        assert_eq!(t.clear(2), []);
        t.request_sent(2, 45);
        assert_eq!(t.transfer_sent(11, 2, 45, true, CompletionStatus::Success), None);
    }

    #[test]
    fn a_fatal_nak_completes_what_it_acknowledges_and_fails_the_rest() {
        let mut t = AckTracker::new();
        for (channel, psn) in [(1, 10), (2, 11), (3, 12)] {
            t.request_sent(5, psn);
            assert_eq!(t.transfer_sent(channel, 5, psn, true, CompletionStatus::Success), None);
        }
        let outcome = t.acknowledge(5, 11, nak(NakCode::RemoteAccessError));
        assert_eq!(
            outcome.completions,
            [
                (1, CompletionStatus::Success),
                (2, CompletionStatus::RemoteAccessError),
                (3, CompletionStatus::RemoteAccessError)
            ]
        );
        assert_eq!((outcome.release, outcome.notices), (Some(12), vec![(TimerEvent::Idle, 0)]));
    }

    #[test]
    fn a_failed_read_completes_at_once() {
        let mut t = AckTracker::new();
        t.request_sent(1, 5);
        assert_eq!(
            t.transfer_sent(4, 1, 5, true, CompletionStatus::LocalMemoryError),
            Some((4, CompletionStatus::LocalMemoryError))
        );
    }
}
