//! Runner of the READ tracker's Verilator model (`ferroce_read_tracker_q16`, top
//! `read_tracker`), used by its co-simulation (`sim/tests/read_tracker_cosim.rs`).
//!
//! [`run`] plays a list of [`TrackerInput`]s into the tracker as the TX path (a READ request
//! left), the register file (a clear) and the responder (a decision) would, one at a time in
//! list order (each held on its port until taken, random idle before it), with random
//! backpressure on the decisions out and on `done`. [`expected`] is the model's answer
//! (`ferroce_models::tx::read_tracker`, 4 READs per QP: `READS_PER_QP`); the decisions out,
//! the QPs told `done` and the counters must be the model's.

use crate::axis::Channel;
use crate::contracts::tx::Pmtu;
use crate::models::responder::Decision;
use crate::models::tx::read_tracker::{ReadTracker, ReadTrackerCounters, SentRead};
use crate::verilated::{Model, SimError, Traffic};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// The co-simulated build: 16 QPs.
pub const MODEL: &str = "ferroce_read_tracker_q16";
/// log2 of the QPs of [`MODEL`].
pub const QP_BITS: u32 = 4;
/// Cycles without a handshake after which a run is an error.
pub const PROGRESS_LIMIT: u64 = 1_000;
/// Cycles the outputs must stay quiet after the last expected one.
pub const DRAIN_CYCLES: u64 = 40;

/// What reaches the tracker.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TrackerInput {
    /// A READ request left.
    Sent(SentRead),
    /// The host reset a QP (below 16).
    Clear(u32),
    /// A responder decision.
    Decision(Decision),
}

/// What came out.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ReadRun {
    /// The decisions, in order.
    pub decisions: Vec<Decision>,
    /// The QPs told `done`, in order, each with `done_cleared` (all its READs are over).
    pub done: Vec<(u32, bool)>,
    /// The counters at the end.
    pub counters: ReadTrackerCounters,
    /// Cycles from the first input presented to the last output (0 from [`expected`]).
    pub cycles: u64,
}

/// What the model makes of `inputs`.
pub fn expected(inputs: &[TrackerInput]) -> ReadRun {
    let mut tracker = ReadTracker::new(QP_BITS);
    let mut run = ReadRun::default();
    for input in inputs {
        match input {
            TrackerInput::Sent(read) => tracker.sent(read),
            TrackerInput::Clear(qp) => {
                tracker.clear(*qp);
                run.done.push((*qp, true));
            }
            TrackerInput::Decision(decision) => {
                let (out, done) = tracker.decide(decision);
                run.decisions.push(out);
                run.done.extend(done.map(|qp| (qp, false)));
            }
        }
    }
    run.counters = tracker.counters;
    run
}

struct Inputs {
    sent_valid: usize,
    sent_ready: usize,
    sent: [usize; 8],
    clear_valid: usize,
    clear_ready: usize,
    clear_qp: usize,
    dec_valid: usize,
    dec_ready: usize,
    dec_entry: usize,
}

impl Inputs {
    fn new(m: &Model) -> Result<Inputs, SimError> {
        let sent = [
            "sent_qp",
            "sent_first_psn",
            "sent_last_psn",
            "sent_local_address",
            "sent_length",
            "sent_pmtu",
            "sent_again",
            "sent_generation",
        ];
        Ok(Inputs {
            sent_valid: m.port("sent_valid")?,
            sent_ready: m.port("sent_ready")?,
            sent: sent
                .map(|p| m.port(p))
                .into_iter()
                .collect::<Result<Vec<_>, _>>()?
                .try_into()
                .expect("eight ports"),
            clear_valid: m.port("clear_valid")?,
            clear_ready: m.port("clear_ready")?,
            clear_qp: m.port("clear_qp")?,
            dec_valid: m.port("s_dec_valid")?,
            dec_ready: m.port("s_dec_ready")?,
            dec_entry: m.port("s_dec_entry")?,
        })
    }

    /// Presents `input` (or nothing).
    fn present(&self, m: &mut Model, input: Option<&TrackerInput>) -> Result<(), String> {
        for p in [self.sent_valid, self.clear_valid, self.dec_valid] {
            m.set_u64(p, 0);
        }
        match input {
            None => {}
            Some(TrackerInput::Sent(read)) => {
                m.set_u64(self.sent_valid, 1);
                let values = [
                    u64::from(read.qp),
                    u64::from(read.first_psn),
                    u64::from(read.last_psn),
                    read.local_address,
                    u64::from(read.length),
                    u64::from(read.pmtu.code()),
                    u64::from(read.again),
                    u64::from(read.generation),
                ];
                for (&p, v) in self.sent.iter().zip(values) {
                    m.set_u64(p, v);
                }
            }
            Some(TrackerInput::Clear(qp)) => {
                m.set_u64(self.clear_valid, 1);
                m.set_u64(self.clear_qp, u64::from(*qp));
            }
            Some(TrackerInput::Decision(decision)) => {
                m.set_u64(self.dec_valid, 1);
                let words = decision.to_words().map_err(|e| format!("{decision:?}: {e}"))?;
                m.set(self.dec_entry, &words);
            }
        }
        Ok(())
    }

    /// `input`, presented this cycle, was taken (after [`Model::eval`]).
    fn taken(&self, m: &mut Model, input: &TrackerInput) -> bool {
        let ready = match input {
            TrackerInput::Sent(_) => self.sent_ready,
            TrackerInput::Clear(_) => self.clear_ready,
            TrackerInput::Decision(_) => self.dec_ready,
        };
        m.peek_u64(ready) != 0
    }
}

/// Runs `inputs` through [`MODEL`] under `traffic`; the run, or the first difference from the
/// model.
pub fn run(inputs: &[TrackerInput], traffic: Traffic) -> Result<ReadRun, String> {
    let e = |e: SimError| e.to_string();
    let mut m = Model::new(MODEL).map_err(e)?;
    let ports = Inputs::new(&m).map_err(e)?;
    let init_done = m.port("init_done").map_err(e)?;
    let mut decisions = Channel::new(&m, "m_dec", "m_dec_valid", Some("m_dec_ready"), &["m_dec_entry"], traffic.bp_pct).map_err(e)?;
    let mut done = Channel::new(
        &m,
        "done",
        "done_valid",
        Some("done_ready"),
        &["done_qp", "done_cleared"],
        traffic.bp_pct,
    )
    .map_err(e)?;
    let counters = ["cnt_taken", "cnt_duplicates", "cnt_gaps", "cnt_bad"].map(|p| m.port(p));
    let counters: Vec<usize> = counters.into_iter().collect::<Result<_, _>>().map_err(e)?;
    let mut rng = ChaCha8Rng::seed_from_u64(traffic.seed);
    let want = expected(inputs);

    decisions.always_ready(&mut m);
    done.always_ready(&mut m);
    ports.present(&mut m, None)?;
    m.reset(2);
    let mut cycle = 0u64;
    while m.get_u64(init_done) == 0 {
        m.step(1);
        cycle += 1;
        if cycle > 10_000 {
            return Err("init_done never rose".into());
        }
    }
    let mut got = ReadRun::default();
    let start = cycle;
    let (mut next, mut presenting) = (0usize, false);
    let (mut last_progress, mut quiet) = (cycle, 0u64);
    loop {
        if !presenting && next < inputs.len() && rng.gen_range(0..100) >= traffic.idle_pct {
            presenting = true;
        }
        ports.present(&mut m, presenting.then(|| &inputs[next]))?;
        decisions.drive(&mut m, &mut rng);
        done.drive(&mut m, &mut rng);
        m.eval();
        let mut progress = false;
        if presenting && ports.taken(&mut m, &inputs[next]) {
            presenting = false;
            next += 1;
            progress = true;
        }
        if let Some(words) = decisions.sample(&mut m, cycle).map_err(e)? {
            let decision = Decision::from_words(&words[0]);
            let i = got.decisions.len();
            match want.decisions.get(i) {
                Some(w) if *w == decision => {}
                Some(w) => {
                    return Err(format!(
                    "cycle {cycle}: decision {i} differs from the model's (field, RTL, model): {:x?}\n  RTL   {decision:?}\n  model {w:?}",
                    decision.differences(w)
                ))
                }
                None => return Err(format!("cycle {cycle}: decision {i} beyond the {} expected", want.decisions.len())),
            }
            got.decisions.push(decision);
            got.cycles = cycle + 1 - start;
            progress = true;
        }
        if let Some(words) = done.sample(&mut m, cycle).map_err(e)? {
            let told = (words[0][0], words[1][0] != 0);
            let i = got.done.len();
            if want.done.get(i) != Some(&told) {
                return Err(format!(
                    "cycle {cycle}: done {i} (QP, cleared) {told:?}, the model's {:?}",
                    want.done.get(i)
                ));
            }
            got.done.push(told);
            progress = true;
        }
        m.tick();
        cycle += 1;
        if progress {
            last_progress = cycle;
        }
        if next == inputs.len() && got.decisions.len() == want.decisions.len() && got.done.len() == want.done.len() {
            quiet += 1;
            if quiet > DRAIN_CYCLES {
                break;
            }
        } else if cycle - last_progress > PROGRESS_LIMIT {
            return Err(format!(
                "cycle {cycle}: no progress for {PROGRESS_LIMIT} cycles (input {next} of {}, {} decisions of {}, {} done of {})",
                inputs.len(),
                got.decisions.len(),
                want.decisions.len(),
                got.done.len(),
                want.done.len()
            ));
        }
    }
    let count = |m: &mut Model, i: usize| m.get_u64(counters[i]);
    got.counters = ReadTrackerCounters {
        taken: count(&mut m, 0),
        duplicates: count(&mut m, 1),
        gaps: count(&mut m, 2),
        bad: count(&mut m, 3),
    };
    if got.counters != want.counters {
        return Err(format!("counters: the RTL's {:?}, the model's {:?}", got.counters, want.counters));
    }
    Ok(got)
}

/// The PMTU of a code drawn at random.
pub fn random_pmtu(rng: &mut impl Rng) -> Pmtu {
    Pmtu::ALL[rng.gen_range(0..Pmtu::ALL.len())]
}
