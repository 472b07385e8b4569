//! The send history's RTL (`ferroce_send_history_q16_s4`) against its model
//! (`ferroce_models::tx::history`) under random idle and backpressure: blocks recorded as a
//! requester sends them (PSNs contiguous per QP, across the 2^24 wrap), full rings refusing,
//! releases by cumulative ACKs (stale, partial and whole), rewinds into the middle of a block,
//! before the oldest and after the newest, and of every block whole, releases, records and
//! rewinds while a replayed block waits (the replayed QP's starts over, another's waits its
//! turn), clears (of a QP being replayed or waiting).

use ferroce_sim::contracts::reliability::SENT_BLOCK_WORDS;
use ferroce_sim::models::tx::history::{SendHistory, SentBlock};
use ferroce_sim::send_history_rtl::{run, HistoryCommand, QPS, SLOTS};
use ferroce_sim::verilated::Traffic;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

const PSN_MASK: u32 = 0xFF_FFFF;

/// A requester's commands at random; `shadow` follows them to know what each QP keeps.
struct Script {
    rng: ChaCha8Rng,
    shadow: SendHistory,
    next_psn: Vec<u32>,
}

impl Script {
    fn new(seed: u64) -> Script {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let next_psn = (0..QPS).map(|_| rng.gen_range(0xFF_FFE0..=PSN_MASK)).collect();
        Script {
            rng,
            shadow: SendHistory::new(QPS, SLOTS),
            next_psn,
        }
    }

    fn record(&mut self, qp: u32) -> HistoryCommand {
        let packets = self.rng.gen_range(1..6);
        let first = self.next_psn[qp as usize];
        let block = SentBlock {
            block: (0..SENT_BLOCK_WORDS).map(|_| self.rng.gen()).collect(),
            first_psn: first,
            last_psn: (first + packets - 1) & PSN_MASK,
        };
        if self.shadow.record(qp, block.clone()) {
            self.next_psn[qp as usize] = (first + packets) & PSN_MASK;
        }
        HistoryCommand::Record(qp, block)
    }

    /// A PSN around what `qp` keeps: in a block, at an end, before the oldest, after the newest.
    fn psn(&mut self, qp: u32) -> u32 {
        let kept = self.shadow.blocks(qp);
        let oldest = kept.front().map_or(self.next_psn[qp as usize], |b| b.first_psn);
        let span = self.next_psn[qp as usize].wrapping_sub(oldest) & PSN_MASK;
        (oldest + self.rng.gen_range(0..span + 3)).wrapping_sub(2) & PSN_MASK
    }

    /// A rewind's PSN; now and then none (every block whole).
    fn rewind_psn(&mut self, qp: u32) -> Option<u32> {
        let psn = self.psn(qp);
        (self.rng.gen_range(0..5) != 0).then_some(psn)
    }

    fn release(&mut self, qp: u32) -> HistoryCommand {
        let psn = self.psn(qp);
        self.shadow.release(qp, psn);
        HistoryCommand::Release(qp, psn)
    }

    fn command(&mut self, depth: usize) -> HistoryCommand {
        let qp = self.rng.gen_range(0..QPS);
        match self.rng.gen_range(0..100) {
            0..=44 => self.record(qp),
            45..=74 => self.release(qp),
            75..=96 if depth == 0 => {
                // a replay leaves the rings as they are
                let psn = self.rewind_psn(qp);
                let during = (0..self.rng.gen_range(0..4)).map(|_| self.command(1)).collect();
                HistoryCommand::Rewind(qp, psn, during)
            }
            // a rewind while a replayed block waits: its QP's turn comes after the replay
            75..=82 => HistoryCommand::Rewind(qp, self.rewind_psn(qp), Vec::new()),
            83..=96 => self.release(qp),
            _ => {
                self.shadow.clear(qp);
                HistoryCommand::Clear(qp)
            }
        }
    }
}

#[test]
fn random_commands_match_the_model() {
    let mut replayed = 0;
    let mut skipped = 0;
    let mut overflows = 0;
    for (i, traffic) in Traffic::four_ways(11).into_iter().enumerate() {
        let mut script = Script::new(i as u64);
        let commands: Vec<HistoryCommand> = (0..600).map(|_| script.command(0)).collect();
        let got = run(&commands, Traffic { seed: i as u64, ..traffic }).unwrap_or_else(|e| panic!("{traffic:?}: {e}"));
        replayed += got.replayed.len();
        skipped += got.replayed.iter().filter(|r| r.skip > 0).count();
        overflows += got.overflows;
    }
    println!("{replayed} replayed, {skipped} skipped into, {overflows} refused");
    // the runs replayed blocks, skipped into some, and refused records to full rings
    assert!(
        replayed > 100 && skipped > 10 && overflows > 10,
        "{replayed} replayed, {skipped} skipped into, {overflows} refused"
    );
}
