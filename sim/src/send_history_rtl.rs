//! Runner of the send history's Verilator model (`ferroce_send_history_q16_s4`, top
//! `send_history`), used by its co-simulation (`sim/tests/send_history_cosim.rs`).
//!
//! [`run`] plays [`HistoryCommand`]s one after the other (each held until taken, after random
//! idle), the model ([`SendHistory`]) alongside: after each command the unit is let finish and
//! every QP's `full` bit is compared; a record's `overflow` pulse must be the model's refusal; a
//! rewind's replayed blocks, taken under random backpressure, must be the model's. A rewind may
//! carry commands to run *during* its replay: they are played while the first replayed block is
//! held in the replay register (the replay then waits at one block done), which is where the
//! model steps once before them.

use crate::models::tx::history::{Replayed, SendHistory, SentBlock};
use crate::verilated::{Model, Traffic};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// The co-simulated build: 16 QPs, 4 blocks each.
pub const MODEL: &str = "ferroce_send_history_q16_s4";
/// QPs of [`MODEL`].
pub const QPS: u32 = 16;
/// Blocks per QP of [`MODEL`].
pub const SLOTS: usize = 4;
/// Cycles an operation may take before a run is an error.
pub const PROGRESS_LIMIT: u64 = 2_000;

/// What the packetizer, the ACK tracker, the retry timer or the host do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HistoryCommand {
    /// A block was sent.
    Record(u32, SentBlock),
    /// PSNs acknowledged.
    Release(u32, u32),
    /// Go back to a PSN; then the commands to play while its first replayed block is held.
    Rewind(u32, Option<u32>, Vec<HistoryCommand>),
    /// The QP was reset.
    Clear(u32),
}

/// What came out.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HistoryRun {
    /// The blocks replayed, in order.
    pub replayed: Vec<Replayed>,
    /// Records refused.
    pub overflows: u64,
    /// Cycles.
    pub cycles: u64,
}

struct Bench {
    m: Model,
    rng: ChaCha8Rng,
    traffic: Traffic,
    cycle: u64,
    ports: std::collections::HashMap<&'static str, usize>,
    got: HistoryRun,
}

const PORTS: [&str; 25] = [
    "init_done",
    "record_valid",
    "record_ready",
    "record_qp",
    "record_block",
    "record_first_psn",
    "record_last_psn",
    "overflow",
    "release_valid",
    "release_ready",
    "release_qp",
    "release_psn",
    "rewind_valid",
    "rewind_ready",
    "rewind_qp",
    "rewind_psn",
    "rewind_whole",
    "replaying",
    "replay_valid",
    "replay_ready",
    "replay_qp",
    "replay_block",
    "replay_first_psn",
    "replay_skip",
    "clear_valid",
];

impl Bench {
    fn port(&self, name: &str) -> usize {
        self.ports[name]
    }

    fn set(&mut self, name: &str, v: u64) {
        let p = self.port(name);
        self.m.set_u64(p, v);
    }

    fn get(&mut self, name: &str) -> u64 {
        let p = self.port(name);
        self.m.get_u64(p)
    }

    /// One clock edge; a replayed block taken at it (`ready`) is kept, an overflow counted.
    fn tick(&mut self, ready: bool) -> Result<(), String> {
        self.set("replay_ready", u64::from(ready));
        if self.get("overflow") != 0 {
            self.got.overflows += 1;
        }
        if ready && self.get("replay_valid") != 0 {
            let block_port = self.port("replay_block");
            let block = self.m.get(block_port);
            let (qp, first_psn, skip) = (self.get("replay_qp"), self.get("replay_first_psn"), self.get("replay_skip"));
            self.got.replayed.push(Replayed {
                qp: qp as u32,
                block: SentBlock {
                    block,
                    first_psn: first_psn as u32,
                    last_psn: 0,
                },
                skip: skip as u32,
            });
        }
        self.m.step(1);
        self.cycle += 1;
        Ok(())
    }

    /// Presents one command on its port until it is taken.
    fn present(&mut self, command: &HistoryCommand, replay_ready: bool) -> Result<(), String> {
        while self.rng.gen_range(0..100) < self.traffic.idle_pct {
            self.tick(replay_ready)?;
        }
        let (valid, ready) = match command {
            HistoryCommand::Record(qp, b) => {
                self.set("record_qp", u64::from(*qp));
                let p = self.port("record_block");
                self.m.set(p, &b.block);
                self.set("record_first_psn", u64::from(b.first_psn));
                self.set("record_last_psn", u64::from(b.last_psn));
                ("record_valid", "record_ready")
            }
            HistoryCommand::Release(qp, psn) => {
                self.set("release_qp", u64::from(*qp));
                self.set("release_psn", u64::from(*psn));
                ("release_valid", "release_ready")
            }
            HistoryCommand::Rewind(qp, psn, _) => {
                self.set("rewind_qp", u64::from(*qp));
                self.set("rewind_psn", u64::from(psn.unwrap_or(0)));
                self.set("rewind_whole", u64::from(psn.is_none()));
                ("rewind_valid", "rewind_ready")
            }
            HistoryCommand::Clear(qp) => {
                self.set("clear_qp", u64::from(*qp));
                ("clear_valid", "clear_ready")
            }
        };
        self.set(valid, 1);
        let start = self.cycle;
        while self.get(ready) == 0 {
            self.tick(replay_ready)?;
            if self.cycle - start > PROGRESS_LIMIT {
                return Err(format!("cycle {}: {command:?} not taken", self.cycle));
            }
        }
        self.tick(replay_ready)?;
        self.set(valid, 0);
        Ok(())
    }

    /// Waits until the unit is idle again (a record would be taken).
    fn settle(&mut self, replay_ready: bool) -> Result<(), String> {
        let start = self.cycle;
        while self.get("record_ready") == 0 {
            self.tick(replay_ready)?;
            if self.cycle - start > PROGRESS_LIMIT {
                return Err(format!("cycle {}: the unit does not come back to idle", self.cycle));
            }
        }
        Ok(())
    }

    /// Every QP's `full` against the model's.
    fn compare_full(&mut self, model: &SendHistory, what: &HistoryCommand) -> Result<(), String> {
        let (full_qp, full) = (self.port("full_qp"), self.port("full"));
        for qp in 0..QPS {
            self.m.set_u64(full_qp, u64::from(qp));
            self.tick(false)?;
            let rtl = self.m.get_u64(full) != 0;
            if rtl != model.full(qp) {
                return Err(format!("after {what:?}: QP {qp} full {rtl}, the model's {}", model.full(qp)));
            }
        }
        Ok(())
    }

    fn play(&mut self, command: &HistoryCommand, model: &mut SendHistory, want: &mut HistoryRun) -> Result<(), String> {
        match command {
            HistoryCommand::Record(qp, block) => {
                want.overflows += u64::from(!model.record(*qp, block.clone()));
                self.present(command, false)?;
            }
            HistoryCommand::Release(qp, psn) => {
                model.release(*qp, *psn);
                self.present(command, false)?;
            }
            HistoryCommand::Clear(qp) => {
                model.clear(*qp);
                self.present(command, false)?;
            }
            HistoryCommand::Rewind(qp, psn, during) => {
                model.rewind(*qp, *psn);
                self.present(command, false)?;
                // the first block comes to the replay register and waits there
                let start = self.cycle;
                while self.get("replay_valid") == 0 && self.get("replaying") != 0 {
                    self.tick(false)?;
                    if self.cycle - start > PROGRESS_LIMIT {
                        return Err(format!("cycle {}: no replayed block", self.cycle));
                    }
                }
                if self.get("replay_valid") != 0 {
                    want.replayed.extend(model.step());
                } else if let Some(r) = model.step() {
                    return Err(format!("cycle {}: the replay ended at once, the model replays {r:?}", self.cycle));
                }
                for c in during {
                    self.play(c, model, want)?;
                }
                want.replayed.extend(std::iter::from_fn(|| model.step()));
                let start = self.cycle;
                while self.get("replaying") != 0 || self.get("replay_valid") != 0 {
                    let ready = self.traffic.bp_pct == 0 || self.rng.gen_range(0..100) >= self.traffic.bp_pct;
                    self.tick(ready)?;
                    if self.cycle - start > PROGRESS_LIMIT * 4 {
                        return Err(format!("cycle {}: the replay does not end", self.cycle));
                    }
                }
            }
        }
        self.settle(false)?;
        self.compare_full(model, command)
    }
}

/// Runs `commands` through [`MODEL`] under `traffic`; the run must be the model's.
pub fn run(commands: &[HistoryCommand], traffic: Traffic) -> Result<HistoryRun, String> {
    let e = |e: crate::verilated::SimError| e.to_string();
    let m = Model::new(MODEL).map_err(e)?;
    let mut ports = std::collections::HashMap::new();
    for name in PORTS.into_iter().chain(["clear_ready", "clear_qp", "full_qp", "full"]) {
        ports.insert(name, m.port(name).map_err(e)?);
    }
    let mut bench = Bench {
        m,
        rng: ChaCha8Rng::seed_from_u64(traffic.seed),
        traffic,
        cycle: 0,
        ports,
        got: HistoryRun::default(),
    };
    bench.m.reset(2);
    while bench.get("init_done") == 0 {
        bench.tick(false)?;
    }
    let mut model = SendHistory::new(QPS, SLOTS);
    let mut want = HistoryRun::default();
    for command in commands {
        bench.play(command, &mut model, &mut want)?;
    }
    let mut got = bench.got;
    got.cycles = bench.cycle;
    // the runner does not read a replayed block's last PSN back: compare without it
    for r in &mut want.replayed {
        r.block.last_psn = 0;
    }
    if got.replayed != want.replayed {
        let at = got.replayed.iter().zip(&want.replayed).position(|(a, b)| a != b);
        return Err(format!(
            "replayed blocks differ (RTL {}, model {}), first at {at:?}: {:?} against {:?}",
            got.replayed.len(),
            want.replayed.len(),
            at.map(|i| &got.replayed[i]),
            at.map(|i| &want.replayed[i])
        ));
    }
    if got.overflows != want.overflows {
        return Err(format!("{} records refused, the model refused {}", got.overflows, want.overflows));
    }
    Ok(got)
}
