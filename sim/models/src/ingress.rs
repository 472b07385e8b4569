//! The MAC ingress (`MacIngress`): which frames of a MAC's receive stream reach the RX path.
//! A frame passes whole when the MAC did not mark it bad and it fits the buffer; nothing of a
//! dropped frame passes; order is kept. Whether a good frame fits depends on how fast the RX
//! path drains the buffer, so the model gives the result for a path that never stalls
//! ([`expected_unstalled`]) and checks a run with stalls against the rules ([`check_run`]).

use ferroce_contracts::rx::ingress::{max_frame_beats, IngressDrop};

/// A frame as the MAC delivers it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MacFrame {
    /// The bytes (without FCS).
    pub bytes: Vec<u8>,
    /// The MAC marks it bad on its last beat.
    pub bad: bool,
}

impl MacFrame {
    /// A frame the MAC delivers good.
    pub fn good(bytes: Vec<u8>) -> MacFrame {
        MacFrame { bytes, bad: false }
    }
}

/// The ingress's counters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct IngressCounts {
    /// Frames let through.
    pub passed: u64,
    /// Frames dropped, per [`IngressDrop`] in [`IngressDrop::ALL`] order.
    pub dropped: [u64; IngressDrop::ALL.len()],
}

impl IngressCounts {
    /// Frames dropped for `reason`.
    pub fn dropped(&self, reason: IngressDrop) -> u64 {
        self.dropped[reason as usize]
    }
}

/// Whether a good frame can ever pass at `k` bytes per beat.
pub fn fits(frame: &MacFrame, k: usize) -> bool {
    frame.bytes.len().div_ceil(k) <= max_frame_beats(k)
}

/// What passes, and the counters, when the RX path takes a beat every cycle: every good frame
/// that fits the buffer.
pub fn expected_unstalled(frames: &[MacFrame], k: usize) -> (Vec<Vec<u8>>, IngressCounts) {
    let mut counts = IngressCounts::default();
    let mut passed = Vec::new();
    for f in frames {
        if f.bad {
            counts.dropped[IngressDrop::BadFrame as usize] += 1;
        } else if !fits(f, k) {
            counts.dropped[IngressDrop::NoRoom as usize] += 1;
        } else {
            counts.passed += 1;
            passed.push(f.bytes.clone());
        }
    }
    (passed, counts)
}

/// Checks a run in which the RX path stalled: the frames out are good frames that fit, whole, in
/// their order, and every good frame that did not come out is counted as dropped for room; bad
/// frames are counted and never come out.
pub fn check_run(frames: &[MacFrame], k: usize, out: &[Vec<u8>], counts: &IngressCounts) -> Result<(), String> {
    let bad = frames.iter().filter(|f| f.bad).count() as u64;
    if counts.dropped(IngressDrop::BadFrame) != bad {
        return Err(format!("{} frames counted bad, {bad} were", counts.dropped(IngressDrop::BadFrame)));
    }
    let mut next = 0;
    let mut missing = 0u64;
    for (i, o) in out.iter().enumerate() {
        loop {
            let Some(f) = frames.get(next) else {
                return Err(format!("frame {i} out ({} bytes) is not a good input frame in order", o.len()));
            };
            next += 1;
            if f.bad {
                continue;
            }
            if &f.bytes == o {
                if !fits(f, k) {
                    return Err(format!("frame {i} out is longer than the buffer"));
                }
                break;
            }
            missing += 1;
        }
    }
    missing += frames[next..].iter().filter(|f| !f.bad).count() as u64;
    if counts.passed != out.len() as u64 {
        return Err(format!("{} frames counted passed, {} came out", counts.passed, out.len()));
    }
    if counts.dropped(IngressDrop::NoRoom) != missing {
        return Err(format!(
            "{} frames counted dropped for room, {missing} good frames did not come out",
            counts.dropped(IngressDrop::NoRoom)
        ));
    }
    Ok(())
}
