//! The send history: per RC QP the blocks sent and not yet acknowledged, in PSN order, so that
//! going back N can cut them again, as the RTL `SendHistory` keeps them (the record:
//! `contracts::reliability::SENT_BLOCK`, opaque here).
//!
//! - **record**: a block the packetizer cut (its first and last PSN) joins its QP's ring; a
//!   full ring refuses it.
//! - **release**: an acknowledged PSN pops the oldest blocks whose last PSN is at or before it.
//! - **rewind**: a replay of the QP's ring from its oldest block; the block whose first PSN is at
//!   or before the rewind PSN goes with the packets before the PSN to skip, the others whole
//!   (a rewind with no PSN replays every block whole: nothing of the QP was acknowledged yet).
//!   Blocks released while the replay runs are not replayed, blocks recorded meanwhile are. A
//!   rewind of the QP being replayed starts its replay again (a timeout during a replay).
//! - **one replay at a time**: a rewind of another QP, or any rewind while others wait, waits
//!   for its turn (its QP queued once, with the latest rewind's PSN); when a replay ends the
//!   next waiting QP's starts.
//! - **clear**: the QP's ring is emptied, its replay stopped, its waiting rewind forgotten.

use super::acknowledge::psn_at_or_before;
use crate::wire::bth::PSN_MASK;
use std::collections::VecDeque;

/// A block kept: its record and PSNs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SentBlock {
    /// The packed `SENT_BLOCK` record (little-endian 32-bit words).
    pub block: Vec<u32>,
    /// PSN of its first packet.
    pub first_psn: u32,
    /// PSN of its last packet.
    pub last_psn: u32,
}

/// A block to cut again.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Replayed {
    /// The QP.
    pub qp: u32,
    /// The block.
    pub block: SentBlock,
    /// Its packets to skip (before the rewind PSN).
    pub skip: u32,
}

/// The replay under way.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Cursor {
    qp: u32,
    /// The rewind PSN (`None`: every block whole).
    psn: Option<u32>,
    /// Blocks from the ring's head already replayed.
    index: usize,
}

/// The history of `qps` QPs with `slots` blocks each.
#[derive(Debug, Clone)]
pub struct SendHistory {
    rings: Vec<VecDeque<SentBlock>>,
    slots: usize,
    cursor: Option<Cursor>,
    /// QPs whose rewinds wait, in turn (each once; a cleared one keeps its place, with no
    /// rewind).
    queue: VecDeque<u32>,
    /// Per QP its waiting rewind's PSN (`Some(None)`: every block whole).
    waiting: Vec<Option<Option<u32>>>,
}

impl SendHistory {
    /// An empty history.
    pub fn new(qps: u32, slots: usize) -> SendHistory {
        SendHistory {
            rings: vec![VecDeque::new(); qps as usize],
            slots,
            cursor: None,
            queue: VecDeque::new(),
            waiting: vec![None; qps as usize],
        }
    }

    /// The QP's ring has at most one free slot: no block is cut for the QP (the one being cut
    /// may take the last). [`SendHistory::record`] refuses only when none is free.
    pub fn full(&self, qp: u32) -> bool {
        self.rings[qp as usize].len() + 1 >= self.slots
    }

    /// The blocks the QP keeps, oldest first.
    pub fn blocks(&self, qp: u32) -> &VecDeque<SentBlock> {
        &self.rings[qp as usize]
    }

    /// A replay runs or waits.
    pub fn replaying(&self) -> bool {
        self.cursor.is_some() || !self.queue.is_empty()
    }

    /// Keeps a sent block; `false` (refused) when the QP's ring is full.
    pub fn record(&mut self, qp: u32, block: SentBlock) -> bool {
        if self.rings[qp as usize].len() == self.slots {
            return false;
        }
        self.rings[qp as usize].push_back(block);
        true
    }

    /// PSN `psn` and those before it are acknowledged: the blocks they cover go.
    pub fn release(&mut self, qp: u32, psn: u32) {
        let ring = &mut self.rings[qp as usize];
        while ring.front().is_some_and(|b| psn_at_or_before(b.last_psn, psn)) {
            ring.pop_front();
            if let Some(cursor) = self.cursor.as_mut().filter(|c| c.qp == qp) {
                cursor.index = cursor.index.saturating_sub(1);
            }
        }
    }

    /// Go back to `psn` on `qp` (`None`: replay every block whole): at once when no replay
    /// runs or waits, or the QP's runs (it starts again); else in its turn.
    pub fn rewind(&mut self, qp: u32, psn: Option<u32>) {
        let now = match self.cursor {
            Some(cursor) => cursor.qp == qp,
            None => self.queue.is_empty(),
        };
        if now {
            self.cursor = Some(Cursor { qp, psn, index: 0 });
            return;
        }
        if !self.queue.contains(&qp) {
            self.queue.push_back(qp);
        }
        self.waiting[qp as usize] = Some(psn);
    }

    /// The replay's next block, or its end and no replay waits (`None`).
    pub fn step(&mut self) -> Option<Replayed> {
        loop {
            match self.cursor {
                None => {
                    let qp = self.queue.pop_front()?;
                    if let Some(psn) = self.waiting[qp as usize].take() {
                        self.cursor = Some(Cursor { qp, psn, index: 0 });
                    }
                }
                Some(cursor) if cursor.index < self.rings[cursor.qp as usize].len() => break,
                Some(_) => self.cursor = None,
            }
        }
        let cursor = self.cursor.as_mut().expect("a replay");
        let block = self.rings[cursor.qp as usize][cursor.index].clone();
        cursor.index += 1;
        let skip = match cursor.psn {
            Some(psn) if psn_at_or_before(block.first_psn, psn) => psn.wrapping_sub(block.first_psn) & PSN_MASK,
            _ => 0,
        };
        Some(Replayed {
            qp: cursor.qp,
            block,
            skip,
        })
    }

    /// Empties the QP's ring, stops its replay and forgets its waiting rewind.
    pub fn clear(&mut self, qp: u32) {
        self.rings[qp as usize].clear();
        if self.cursor.is_some_and(|c| c.qp == qp) {
            self.cursor = None;
        }
        self.waiting[qp as usize] = None;
    }

    /// Every replayed block of a rewind run to its end: what [`SendHistory::rewind`] and
    /// [`SendHistory::step`] give when nothing happens in between.
    pub fn replay(&mut self, qp: u32, psn: Option<u32>) -> Vec<Replayed> {
        self.rewind(qp, psn);
        std::iter::from_fn(|| self.step()).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn block(first: u32, packets: u32) -> SentBlock {
        SentBlock {
            block: vec![first; 7],
            first_psn: first & PSN_MASK,
            last_psn: (first + packets - 1) & PSN_MASK,
        }
    }

    #[test]
    fn release_pops_what_is_acknowledged_and_rewind_skips_into_the_block_holding_the_psn() {
        let mut h = SendHistory::new(4, 3);
        assert!(h.record(1, block(0xFF_FFFE, 4)));
        assert!(h.record(1, block(2, 2)));
        assert!(h.record(1, block(4, 1)));
        assert!(h.full(1) && !h.record(1, block(5, 1)));
        assert!(!h.full(2));
        h.release(1, 0);
        assert_eq!(h.blocks(1).len(), 3);
        h.release(1, 1);
        assert_eq!(h.blocks(1).len(), 2);
        let replay = h.replay(1, Some(3));
        assert_eq!(
            replay.iter().map(|r| (r.block.first_psn, r.skip)).collect::<Vec<_>>(),
            [(2, 1), (4, 0)]
        );
        assert!(!h.replaying());
        let whole = h.replay(1, None);
        assert_eq!(
            whole.iter().map(|r| (r.block.first_psn, r.skip)).collect::<Vec<_>>(),
            [(2, 0), (4, 0)]
        );
    }

    #[test]
    fn blocks_released_during_a_replay_are_not_replayed_and_new_ones_are() {
        let mut h = SendHistory::new(2, 4);
        for first in [10, 12, 14] {
            h.record(0, block(first, 2));
        }
        h.rewind(0, Some(10));
        assert_eq!(h.step().map(|r| (r.qp, r.block.first_psn)), Some((0, 10)));
        h.release(0, 13);
        h.record(0, block(16, 1));
        assert_eq!(h.step().map(|r| r.block.first_psn), Some(14));
        assert_eq!(h.step().map(|r| r.block.first_psn), Some(16));
        assert_eq!(h.step(), None);
        h.clear(0);
        assert!(h.blocks(0).is_empty());
    }

    #[test]
    fn rewinds_of_other_qps_wait_their_turn_and_a_clear_forgets_one() {
        let mut h = SendHistory::new(4, 4);
        for qp in 0..4 {
            h.record(qp, block(100 * qp, 2));
            h.record(qp, block(100 * qp + 2, 2));
        }
        h.rewind(0, None);
        assert_eq!(h.step().map(|r| (r.qp, r.block.first_psn)), Some((0, 0)));
        // during QP 0's replay: QP 1 twice (the later PSN counts), QP 2, QP 3 then cleared,
        // QP 0 again (it starts over)
        h.rewind(1, None);
        h.rewind(2, None);
        h.rewind(1, Some(101));
        h.rewind(3, None);
        h.clear(3);
        h.rewind(0, Some(1));
        let rest: Vec<(u32, u32, u32)> = std::iter::from_fn(|| h.step()).map(|r| (r.qp, r.block.first_psn, r.skip)).collect();
        assert_eq!(rest, [(0, 0, 1), (0, 2, 0), (1, 100, 1), (1, 102, 0), (2, 200, 0), (2, 202, 0)]);
        assert!(!h.replaying());
    }
}
