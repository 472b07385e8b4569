//! Runner for the Verilator model of `MacIngress`: a MAC that never waits (no `tready`, idle
//! cycles at random between and inside frames, bad frames marked on their last beat) on one
//! side, a [`FrameSink`] with random backpressure on the other. The model it is checked against
//! is [`ferroce_models::ingress`].

use crate::axis::{pack_beat, FrameSink};
use crate::verilated::{Model, SimError};
use ferroce_contracts::rx::ingress::IngressDrop;
pub use ferroce_models::ingress::{check_run, expected_unstalled, IngressCounts, MacFrame};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// How the MAC and the RX path behave in a run.
#[derive(Clone, Copy, Debug)]
pub struct IngressTraffic {
    /// Percent chance per cycle that the MAC has no beat (inside a frame too).
    pub idle_pct: u32,
    /// Percent chance per cycle that the RX path holds `tready` low.
    pub bp_pct: u32,
    /// Seed of the random draws.
    pub seed: u64,
}

impl IngressTraffic {
    /// The MAC back to back, the RX path always ready.
    pub const FULL: IngressTraffic = IngressTraffic {
        idle_pct: 0,
        bp_pct: 0,
        seed: 1,
    };
}

/// What came out of a run.
#[derive(Debug)]
pub struct IngressRun {
    /// The frames on `m_axis`, in order.
    pub frames: Vec<Vec<u8>>,
    /// The counters at the end.
    pub counts: IngressCounts,
    /// Cycles `m_axis_tvalid` was low inside a frame (the output must never pause in a frame).
    pub gaps_in_frames: u64,
    /// Cycles from the first input beat to the last output beat.
    pub cycles: u64,
}

/// The MAC side's ports.
struct MacPorts {
    valid: usize,
    data: usize,
    keep: usize,
    last: usize,
    user: usize,
}

/// Verilator model name of the ingress at a width.
pub fn model_name(width: usize) -> String {
    format!("ferroce_mac_ingress_w{width}")
}

/// Runs `frames` through the ingress at `width` bits. `before_reset`: bytes of a frame the MAC
/// is sending while the reset ends (its first beats during reset, the rest after it).
pub fn run(frames: &[MacFrame], width: usize, traffic: IngressTraffic, before_reset: &[u8]) -> Result<IngressRun, SimError> {
    let mut m = Model::new(&model_name(width))?;
    let k = width / 8;
    let mac = MacPorts {
        valid: m.port("s_mac_tvalid")?,
        data: m.port("s_mac_tdata")?,
        keep: m.port("s_mac_tkeep")?,
        last: m.port("s_mac_tlast")?,
        user: m.port("s_mac_tuser")?,
    };
    let counters: Vec<usize> = ["frames_passed", "dropped_bad_frame", "dropped_no_room"]
        .iter()
        .map(|p| m.port(p))
        .collect::<Result<_, _>>()?;
    let mut sink = FrameSink::new(&m, "m_axis", &[], traffic.bp_pct)?;
    sink.always_ready(&mut m);
    let mut rng = ChaCha8Rng::seed_from_u64(traffic.seed);

    // the beats the MAC sends: (data, keep, last, bad)
    let beats_of = |bytes: &[u8], bad: bool| -> Vec<(Vec<u32>, Vec<u32>, bool, bool)> {
        let n = bytes.len().div_ceil(k);
        (0..n)
            .map(|i| {
                let (d, kp) = pack_beat(&bytes[i * k..bytes.len().min((i + 1) * k)], k);
                (d, kp, i + 1 == n, bad && i + 1 == n)
            })
            .collect()
    };
    let drive = |m: &mut Model, beat: Option<&(Vec<u32>, Vec<u32>, bool, bool)>, rng: &mut ChaCha8Rng| match beat {
        Some((d, kp, last, bad)) => {
            m.set_u64(mac.valid, 1);
            m.set(mac.data, d);
            m.set(mac.keep, kp);
            m.set_u64(mac.last, *last as u64);
            m.set_u64(mac.user, *bad as u64);
        }
        None => {
            let garbage: Vec<u32> = (0..k.div_ceil(4)).map(|_| rng.gen()).collect();
            m.set_u64(mac.valid, 0);
            m.set(mac.data, &garbage);
            m.set_u64(mac.last, rng.gen::<u64>() & 1);
            m.set_u64(mac.user, rng.gen::<u64>() & 1);
        }
    };

    // a frame cut by the end of reset: its first half during reset, the rest after
    let cut = beats_of(before_reset, false);
    let (during, after) = cut.split_at(cut.len() / 2);
    let reset = m.port("reset")?;
    m.set_u64(reset, 1);
    for beat in during {
        drive(&mut m, Some(beat), &mut rng);
        m.step(1);
    }
    m.step(4);
    m.set_u64(reset, 0);

    let mut beats: Vec<_> = after.to_vec();
    for f in frames {
        beats.extend(beats_of(&f.bytes, f.bad));
    }
    let mut next = 0;
    let mut cycle = 0u64;
    let mut last_out = 0u64;
    let mut quiet = 0;
    while next < beats.len() || quiet < 64 {
        let beat = (next < beats.len() && rng.gen_range(0..100) >= traffic.idle_pct).then(|| &beats[next]);
        let sent = beat.is_some();
        drive(&mut m, beat, &mut rng);
        sink.drive(&mut m, &mut rng);
        m.eval();
        // the run ends when the MAC is done and the output has had nothing to offer for a while
        if next >= beats.len() && !sink.valid(&mut m) {
            quiet += 1;
        } else {
            quiet = 0;
        }
        if sink.sample(&mut m, cycle)? {
            last_out = cycle;
        }
        m.tick();
        next += sent as usize;
        cycle += 1;
        if cycle > 100 * (beats.len() as u64 + 1000) {
            let (received, _) = sink.counts();
            return Err(SimError::Hang {
                model: model_name(width),
                cycles: cycle,
                sent: next as u64,
                received,
            });
        }
    }
    let mut counts = IngressCounts {
        passed: m.get_u64(counters[0]),
        ..Default::default()
    };
    counts.dropped[IngressDrop::BadFrame as usize] = m.get_u64(counters[1]);
    counts.dropped[IngressDrop::NoRoom as usize] = m.get_u64(counters[2]);
    Ok(IngressRun {
        frames: sink.frames.iter().map(|f| f.bytes.clone()).collect(),
        counts,
        gaps_in_frames: sink.underflow_cycles,
        cycles: last_out + 1,
    })
}
