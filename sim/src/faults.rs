//! A lossy wire for one direction: [`FaultInjector`] loses (alone or in bursts), duplicates,
//! reorders and corrupts RoCEv2 frames as [`Faults`] says, from a seed, so a run can be
//! repeated. Only RoCEv2 frames (UDP port 4791, as `ferroce_models::rx::classify` finds them)
//! are touched: ARP, ICMP and other frames cross unchanged, so address resolution still works on
//! a lossy wire. [`crate::wire_bridge::WireBridge::set_faults`] puts an injector on either
//! direction of the engine's UDP wire.

use crate::models::rx::classify;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// What happens to RoCEv2 frames on one direction of the wire: each a probability per frame.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Faults {
    /// A frame is lost, and with it the next frames of its burst.
    pub loss: f64,
    /// Frames lost at once: each loss takes 1 to `burst` frames (1: single losses).
    pub burst: usize,
    /// A frame arrives twice, back to back.
    pub duplicate: f64,
    /// A frame is held back and arrives after 1 to `window` later frames (or after
    /// [`HOLD_CYCLES`] when no more come).
    pub reorder: f64,
    /// The most frames a held frame lets pass.
    pub window: usize,
    /// A frame's ICRC is corrupted (its last byte inverted), so its receiver drops it.
    pub corrupt: f64,
}

impl Faults {
    /// A perfect wire.
    pub const NONE: Faults = Faults {
        loss: 0.0,
        burst: 1,
        duplicate: 0.0,
        reorder: 0.0,
        window: 1,
        corrupt: 0.0,
    };
}

/// Cycles a held frame waits at most for frames to let pass.
pub const HOLD_CYCLES: u64 = 20_000;

/// What an injector did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct FaultCounts {
    /// RoCEv2 frames seen.
    pub frames: u64,
    /// Frames lost.
    pub lost: u64,
    /// Loss events (a burst counts once).
    pub bursts: u64,
    /// Frames sent twice.
    pub duplicated: u64,
    /// Frames held back and delivered later.
    pub reordered: u64,
    /// Frames whose ICRC was corrupted.
    pub corrupted: u64,
}

/// A held frame: it goes when `passing` more frames have gone, or at cycle `until`.
struct Held {
    frame: Vec<u8>,
    passing: usize,
    until: u64,
}

/// [`Faults`] applied to the frames of one direction, in order.
pub struct FaultInjector {
    faults: Faults,
    rng: ChaCha8Rng,
    held: Vec<Held>,
    /// Frames still to lose in the current burst.
    losing: usize,
    /// What it did so far.
    pub counts: FaultCounts,
}

impl FaultInjector {
    /// The faults of `faults`, drawn from `seed`.
    pub fn new(faults: Faults, seed: u64) -> FaultInjector {
        FaultInjector {
            faults,
            rng: ChaCha8Rng::seed_from_u64(seed),
            held: Vec::new(),
            losing: 0,
            counts: FaultCounts::default(),
        }
    }

    /// The frames that go on the wire when `frame` arrives at cycle `now`: none, it, it twice,
    /// and any held frames whose time has come.
    pub fn apply(&mut self, mut frame: Vec<u8>, now: u64) -> Vec<Vec<u8>> {
        if classify(&frame).is_none() {
            let mut out = vec![frame];
            out.extend(self.let_pass(now));
            return out;
        }
        self.counts.frames += 1;
        if self.losing > 0 || self.rng.gen_bool(self.faults.loss) {
            if self.losing == 0 {
                self.counts.bursts += 1;
                self.losing = self.rng.gen_range(1..=self.faults.burst.max(1));
            }
            self.losing -= 1;
            self.counts.lost += 1;
            return self.let_pass(now);
        }
        if self.rng.gen_bool(self.faults.corrupt) {
            let last = frame.len() - 1;
            frame[last] = !frame[last];
            self.counts.corrupted += 1;
        }
        if self.rng.gen_bool(self.faults.reorder) {
            self.counts.reordered += 1;
            let passing = self.rng.gen_range(1..=self.faults.window.max(1));
            let out = self.let_pass(now);
            self.held.push(Held {
                frame,
                passing,
                until: now + HOLD_CYCLES,
            });
            return out;
        }
        let twice = self.rng.gen_bool(self.faults.duplicate);
        let mut out = vec![frame.clone()];
        if twice {
            self.counts.duplicated += 1;
            out.push(frame);
        }
        out.extend(self.let_pass(now));
        out
    }

    /// The held frames due at cycle `now` (none came to let them pass).
    pub fn due(&mut self, now: u64) -> Vec<Vec<u8>> {
        let (due, kept): (Vec<Held>, Vec<Held>) = self.held.drain(..).partition(|h| h.until <= now);
        self.held = kept;
        due.into_iter().map(|h| h.frame).collect()
    }

    /// Whether frames are held back.
    pub fn holding(&self) -> bool {
        !self.held.is_empty()
    }

    /// One frame went by: the held frames it was the last to let pass go after it.
    fn let_pass(&mut self, now: u64) -> Vec<Vec<u8>> {
        let mut out = Vec::new();
        let mut kept = Vec::new();
        for mut h in self.held.drain(..) {
            h.passing = h.passing.saturating_sub(1);
            if h.passing == 0 || h.until <= now {
                out.push(h.frame);
            } else {
                kept.push(h);
            }
        }
        self.held = kept;
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::gen::FrameGen;

    /// RoCEv2 frames told apart by their position (a frame's ICRC and contents differ).
    fn frames(n: usize) -> Vec<Vec<u8>> {
        let mut gen = FrameGen::new(7);
        (0..n).map(|_| gen.roce()).collect()
    }

    fn run(wire: &mut FaultInjector, frames: &[Vec<u8>]) -> Vec<Vec<u8>> {
        let mut out = Vec::new();
        for (cycle, frame) in frames.iter().enumerate() {
            out.extend(wire.apply(frame.clone(), cycle as u64));
        }
        out.extend(wire.due(u64::MAX));
        out
    }

    #[test]
    fn a_perfect_wire_changes_nothing() {
        let sent = frames(200);
        let mut wire = FaultInjector::new(Faults::NONE, 1);
        assert_eq!(run(&mut wire, &sent), sent);
        assert_eq!(wire.counts.frames, 200);
    }

    #[test]
    fn other_frames_cross_a_lossy_wire_untouched() {
        let mut gen = FrameGen::new(3);
        let arp: Vec<Vec<u8>> = (0..100).map(|_| gen.of_kind(crate::wire::gen::FrameKind::Arp)).collect();
        let all = Faults { loss: 1.0, ..Faults::NONE };
        let mut wire = FaultInjector::new(all, 1);
        assert_eq!(run(&mut wire, &arp), arp);
        assert_eq!(wire.counts, FaultCounts::default());
    }

    #[test]
    fn each_fault_happens_about_as_often_as_asked_and_nothing_else_changes() {
        let sent = frames(4000);
        let faults = Faults {
            loss: 0.02,
            burst: 3,
            duplicate: 0.03,
            reorder: 0.04,
            window: 5,
            corrupt: 0.05,
        };
        let mut wire = FaultInjector::new(faults, 42);
        let got = run(&mut wire, &sent);
        let c = wire.counts;
        assert_eq!(c.frames, 4000);
        // bursts of 1 to 3 frames, 2 % of the frames start one (of those not lost already)
        assert!((50..=110).contains(&c.bursts), "{c:?}");
        assert!(c.lost >= c.bursts && c.lost <= 3 * c.bursts, "{c:?}");
        for (count, p) in [(c.duplicated, 0.03), (c.reordered, 0.04), (c.corrupted, 0.05)] {
            let expected = p * (c.frames - c.lost) as f64;
            assert!((count as f64 - expected).abs() < 0.35 * expected, "{c:?}");
        }
        assert_eq!(got.len() as u64, 4000 - c.lost + c.duplicated);
        // every frame out is one sent, whole or with its last byte inverted, and each sent
        // frame comes out at most twice (duplicated) and at most `window` places late
        let position = |frame: &Vec<u8>| {
            sent.iter().position(|s| s == frame).or_else(|| {
                let mut fixed = frame.clone();
                let last = fixed.len() - 1;
                fixed[last] = !fixed[last];
                sent.iter().position(|s| *s == fixed)
            })
        };
        let mut seen = vec![0; sent.len()];
        let mut latest = 0;
        for frame in &got {
            let at = position(frame).expect("a frame that was sent");
            seen[at] += 1;
            latest = latest.max(at);
            assert!(latest - at <= faults.window, "frame {at} after frame {latest}");
        }
        assert!(seen.iter().all(|&n| n <= 2));
        assert_eq!(seen.iter().filter(|&&n| n == 0).count() as u64, c.lost);
    }

    #[test]
    fn a_held_frame_goes_when_no_more_come() {
        let sent = frames(1);
        let held = Faults {
            reorder: 1.0,
            window: 4,
            ..Faults::NONE
        };
        let mut wire = FaultInjector::new(held, 5);
        assert!(wire.apply(sent[0].clone(), 100).is_empty());
        assert!(wire.holding());
        assert!(wire.due(100 + HOLD_CYCLES - 1).is_empty());
        assert_eq!(wire.due(100 + HOLD_CYCLES), sent);
        assert!(!wire.holding());
    }

    #[test]
    fn the_same_seed_makes_the_same_wire() {
        let sent = frames(500);
        let faults = Faults {
            loss: 0.05,
            burst: 2,
            duplicate: 0.05,
            reorder: 0.05,
            window: 3,
            corrupt: 0.05,
        };
        let a = run(&mut FaultInjector::new(faults, 9), &sent);
        let b = run(&mut FaultInjector::new(faults, 9), &sent);
        let c = run(&mut FaultInjector::new(faults, 10), &sent);
        assert_eq!(a, b);
        assert_ne!(a, c);
    }
}
