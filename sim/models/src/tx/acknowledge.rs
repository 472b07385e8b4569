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
//! - A NAK of PSN `p` acknowledges the PSNs before `p`. A PSN sequence error NAK fails nothing
//!   (the transfer waits for its retransmission, which comes with RC reliability); any other
//!   NAK fails the transfer that holds `p` with the status
//!   [`CompletionStatus::of_syndrome`] gives. That transfer may still be leaving (a NAK for a
//!   long WRITE's first packet): the failure is then kept and the transfer completes with it
//!   when its last frame has left.
//!
//! Events come in the order the hardware sees them: a transfer's last frame leaves before any
//! answer to it can come back, and the tracker takes a transfer that has left before an ACK.

use crate::contracts::responder::Syndrome;
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
    /// A failure for a transfer still leaving: the NAK's PSN and the status.
    pub failure: Option<(u32, CompletionStatus)>,
}

/// What the tracker did with an ACK or NAK.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AckOutcome {
    /// Transfers completed, in order.
    pub completions: Vec<Completion>,
    /// Outside the window or a reserved syndrome: nothing changed.
    pub ignored: bool,
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
        if let Some((psn, failed)) = state.failure {
            if psn_at_or_before(psn, last_psn) {
                state.failure = None;
                return Some((channel, failed));
            }
        }
        state.waiting.push_back((channel, last_psn & PSN_MASK));
        None
    }

    /// An ACK or NAK (AETH `syndrome`) of `psn` arrived for `qp`.
    pub fn acknowledge(&mut self, qp: u32, psn: u32, syndrome: u8) -> AckOutcome {
        let psn = psn & PSN_MASK;
        let ignored = AckOutcome {
            completions: Vec::new(),
            ignored: true,
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
        let mut completions = Vec::new();
        while let Some(&(channel, last)) = state.waiting.front() {
            if !psn_at_or_before(last, acknowledged) {
                break;
            }
            state.waiting.pop_front();
            completions.push((channel, CompletionStatus::Success));
        }
        if let Some(status) = CompletionStatus::of_syndrome(syndrome) {
            match state.waiting.pop_front() {
                Some((channel, _)) => completions.push((channel, status)),
                None => state.failure = Some((psn, status)),
            }
        }
        AckOutcome {
            completions,
            ignored: false,
        }
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
        for (channel, last) in [(0u16, 3u32), (1, 7), (2, 9)] {
            t.request_sent(5, last);
            t.transfer_sent(channel, 5, last, true, CompletionStatus::Success);
        }
        let outcome = t.acknowledge(5, 6, nak(NakCode::RemoteAccessError));
        assert_eq!(
            outcome.completions,
            [(0, CompletionStatus::Success), (1, CompletionStatus::RemoteAccessError)]
        );
        // a PSN sequence error NAK fails nothing
        assert_eq!(t.acknowledge(5, 8, nak(NakCode::PsnSequenceError)).completions, []);
        assert_eq!(t.qp(5).unwrap().waiting, [(2, 9)]);
        let rnr = Syndrome::RnrNak { timer: 14 }.encode();
        assert_eq!(t.acknowledge(5, 8, rnr).completions, [(2, CompletionStatus::ReceiverNotReady)]);
    }

    #[test]
    fn a_nak_for_a_transfer_still_leaving_fails_it_when_it_has_left() {
        let mut t = AckTracker::new();
        t.request_sent(2, 40);
        assert_eq!(t.acknowledge(2, 40, nak(NakCode::InvalidRequest)).completions, []);
        t.request_sent(2, 43);
        assert_eq!(
            t.transfer_sent(9, 2, 43, true, CompletionStatus::Success),
            Some((9, CompletionStatus::RemoteInvalidRequest))
        );
        assert_eq!(t.qp(2).unwrap().failure, None);
        t.request_sent(2, 44);
        assert_eq!(t.transfer_sent(10, 2, 44, true, CompletionStatus::Success), None);
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
