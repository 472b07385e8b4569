//! Runner of the host responder's Verilator model (`ferroce_host_responder_w<W>`, top
//! `host_responder`, simulated at 64 and 512 bits), used by its co-simulation
//! (`sim/tests/host_cosim.rs`) and by the engine's.
//!
//! ```text
//!  frames (FrameSource: random idle) ──► s_axis ─► host_responder ─┬─► m_pass  (FrameSink: random backpressure, AXI rules)
//!  cfg_local_mac, cfg_local_ipv4 (held) ──────────►                └─► m_reply (FrameSink: the same, and no gap inside a frame)
//! ```
//!
//! [`HostResponderRtl::run`] sends frames until every one is taken and both outputs have been
//! quiet for [`QUIET_CYCLES`]; [`check`] compares what came out with the model
//! ([`ferroce_models::host`]): frames in order, each passed untouched, answered with the model's
//! reply, or dropped with the model's reason. The model cannot know when the one reply buffer
//! is taken: a request the model answers may come out on `m_pass` instead, counted in
//! `cnt_deferred`, and [`check`] accepts exactly that.

use crate::axis::{first_difference, AxisPorts, FrameSink, FrameSource};
use crate::models::host::{HostAddress, HostVerdict, ReplyKind};
use crate::verilated::{Model, Traffic, MODELS};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

/// Bus widths the model is built at.
pub const WIDTHS: [usize; 2] = [64, 512];
/// Cycles both outputs must stay quiet after the last input beat for a run to end.
pub const QUIET_CYCLES: u64 = 200;
/// Cycles without a handshake after which a run is an error (a hang), not a wait.
pub const PROGRESS_LIMIT: u64 = 5_000;

/// The model name at a bus width.
pub fn model_name(width: usize) -> String {
    format!("ferroce_host_responder_w{width}")
}

/// The responder's counters.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct HostCounts {
    /// `cnt_arp_replies`.
    pub arp_replies: u32,
    /// `cnt_echo_replies`.
    pub echo_replies: u32,
    /// `cnt_deferred`.
    pub deferred: u32,
    /// `cnt_drop_truncated`.
    pub truncated: u32,
    /// `cnt_drop_too_long`.
    pub too_long: u32,
}

/// What a run produced.
#[derive(Debug, Clone, Default)]
pub struct HostRun {
    /// Frames on `m_pass`, in order.
    pub passed: Vec<Vec<u8>>,
    /// Frames on `m_reply`, in order.
    pub replies: Vec<Vec<u8>>,
    /// The counters at the end of the run.
    pub counts: HostCounts,
    /// Cycles from the first to the last handshake, plus one.
    pub cycles: u64,
    /// Cycles `m_reply_tvalid` was low inside a reply (must be 0: a MAC cannot take it).
    pub reply_gaps: u64,
    /// Cycle of each input frame's last beat.
    pub frame_last_cycles: Vec<u64>,
    /// Cycle of each reply's last beat.
    pub reply_last_cycles: Vec<u64>,
}

/// The host responder's Verilator model.
pub struct HostResponderRtl {
    m: Model,
    input: AxisPorts,
    mac: usize,
    ipv4: usize,
    counters: [usize; 5],
    width: usize,
}

impl HostResponderRtl {
    /// Instantiates `ferroce_host_responder_w<width>`, checks its ports, sets the address and
    /// resets it.
    pub fn new(width: usize, address: &HostAddress) -> Result<HostResponderRtl, String> {
        let name = model_name(width);
        let m = Model::new(&name).map_err(|_| {
            format!(
                "the host responder RTL model {name} is not built into this binary (built: {}); rebuild ferroce-sim with \
                 host_responder in FERROCE_SIM_TOPS (or unset it)",
                if MODELS.is_empty() { "none".to_string() } else { MODELS.join(", ") }
            )
        })?;
        let port = |n: &str| m.port(n).map_err(|e| e.to_string());
        let input = AxisPorts::find(&m, "s_axis").map_err(|e| e.to_string())?;
        if input.bytes_per_beat * 8 != width {
            return Err(format!(
                "{name}: s_axis_tdata is {} bits wide, expected {width}",
                input.bytes_per_beat * 8
            ));
        }
        let counters = [
            port("cnt_arp_replies")?,
            port("cnt_echo_replies")?,
            port("cnt_deferred")?,
            port("cnt_drop_truncated")?,
            port("cnt_drop_too_long")?,
        ];
        let mut dut = HostResponderRtl {
            mac: port("cfg_local_mac")?,
            ipv4: port("cfg_local_ipv4")?,
            m,
            input,
            counters,
            width,
        };
        dut.set_address(address);
        dut.m.set_u64(dut.input.valid, 0);
        dut.m.reset(2);
        Ok(dut)
    }

    /// Bus width in bits.
    pub fn width(&self) -> usize {
        self.width
    }

    /// Bytes of the reply buffer at this width.
    pub fn capacity(&self) -> usize {
        ferroce_contracts::host::reply_capacity(self.width / 8)
    }

    /// Sets `cfg_local_mac` and `cfg_local_ipv4` (first byte on the wire in the high bits).
    pub fn set_address(&mut self, address: &HostAddress) {
        let mac = address.mac.iter().fold(0u64, |v, b| v << 8 | u64::from(*b));
        self.m.set_u64(self.mac, mac);
        self.m.set_u64(self.ipv4, u64::from(u32::from(address.ipv4)));
    }

    /// The counters now.
    pub fn counts(&mut self) -> HostCounts {
        self.m.eval();
        let c: Vec<u32> = self.counters.iter().map(|&p| self.m.peek_u64(p) as u32).collect();
        HostCounts {
            arp_replies: c[0],
            echo_replies: c[1],
            deferred: c[2],
            truncated: c[3],
            too_long: c[4],
        }
    }

    /// Sends `frames` with source idle and sink backpressure as `traffic` says, and collects
    /// both outputs until every frame is taken and the outputs have been quiet for
    /// [`QUIET_CYCLES`]. The counters are read at the end (the model is not reset between
    /// runs: they keep counting).
    pub fn run(&mut self, frames: &[Vec<u8>], traffic: Traffic) -> Result<HostRun, String> {
        let name = self.m.name().to_string();
        let e = |e: crate::verilated::SimError| e.to_string();
        let rng = &mut ChaCha8Rng::seed_from_u64(traffic.seed);
        let mut source = FrameSource::new(self.input, frames, traffic.idle_pct).map_err(e)?;
        let mut pass = FrameSink::new(&self.m, "m_pass", &[], traffic.bp_pct).map_err(e)?;
        let mut reply = FrameSink::new(&self.m, "m_reply", &[], traffic.bp_pct).map_err(e)?;
        pass.always_ready(&mut self.m);
        reply.always_ready(&mut self.m);
        let (mut cycle, mut quiet, mut last_event) = (0u64, 0u64, None);
        // every beat in, out twice at most (a frame passed, or a reply), with idle and stalls
        let beats: u64 = frames.iter().map(|f| f.len().div_ceil(self.width / 8) as u64).sum();
        let budget = 1_000 + 4 * beats * (100 + u64::from(traffic.idle_pct) + 4 * u64::from(traffic.bp_pct)) / 100;
        while !(source.done() && quiet > QUIET_CYCLES) {
            if quiet > PROGRESS_LIMIT || cycle > budget {
                return Err(format!(
                    "{name}: no end after {cycle} cycles (quiet for {quiet}): frame {} of {} at beat {} (s_axis_tready {}), \
                     {} frames passed, {} replies",
                    source.frame(),
                    frames.len(),
                    source.beat(),
                    self.m.peek_u64(self.input.ready),
                    pass.frames.len(),
                    reply.frames.len()
                ));
            }
            source.drive(&mut self.m, rng);
            pass.drive(&mut self.m, rng);
            reply.drive(&mut self.m, rng);
            self.m.eval();
            let mut event = source.sample(&mut self.m, cycle).is_some();
            event |= pass.sample(&mut self.m, cycle).map_err(e)?;
            event |= reply.sample(&mut self.m, cycle).map_err(e)?;
            if event {
                quiet = 0;
                last_event = Some(cycle);
            } else {
                quiet += 1;
            }
            self.m.tick();
            cycle += 1;
        }
        self.m.set_u64(self.input.valid, 0);
        Ok(HostRun {
            passed: pass.frames.into_iter().map(|f| f.bytes).collect(),
            reply_last_cycles: reply.frames.iter().map(|f| f.last_cycle).collect(),
            replies: reply.frames.into_iter().map(|f| f.bytes).collect(),
            frame_last_cycles: source.last_cycles.clone(),
            counts: self.counts(),
            cycles: last_event.map_or(0, |c| c + 1),
            reply_gaps: reply.underflow_cycles,
        })
    }
}

/// Compares a run's outputs and its counters' gains (`run.counts` less `before`) with the
/// model's verdicts on `frames`: in input order, a passed frame is the next on `m_pass`, a
/// reply the next on `m_reply` (or, deferred, the request on `m_pass`), a drop nowhere (or,
/// deferred, the request on `m_pass`). Returns the counters the verdicts imply, or the first
/// difference.
pub fn check(frames: &[Vec<u8>], verdicts: &[HostVerdict], run: &HostRun, before: HostCounts) -> Result<HostCounts, String> {
    let mut want = HostCounts::default();
    let (mut passed, mut replies) = (run.passed.iter().peekable(), run.replies.iter().peekable());
    for (i, (frame, verdict)) in frames.iter().zip(verdicts).enumerate() {
        let deferred = |passed: &mut std::iter::Peekable<std::slice::Iter<'_, Vec<u8>>>| passed.next_if(|p| *p == frame).is_some();
        match verdict {
            HostVerdict::Pass => match passed.next() {
                Some(p) if p == frame => {}
                Some(p) => return Err(format!("frame {i} passes: m_pass has another frame{}", first_difference(p, frame))),
                None => return Err(format!("frame {i} passes: m_pass has no more frames")),
            },
            HostVerdict::Reply { kind, frame: answer } => {
                if replies.next_if(|r| *r == answer).is_some() {
                    match kind {
                        ReplyKind::Arp => want.arp_replies += 1,
                        ReplyKind::Echo => want.echo_replies += 1,
                    }
                } else if deferred(&mut passed) {
                    want.deferred += 1;
                } else {
                    let got = replies.peek().map_or(" (none)".into(), |r| first_difference(r, answer));
                    return Err(format!(
                        "frame {i}: {kind:?} reply expected, neither it on m_reply{got} nor the request on m_pass"
                    ));
                }
            }
            HostVerdict::Drop(reason) => {
                if deferred(&mut passed) {
                    want.deferred += 1;
                } else {
                    match reason {
                        ferroce_contracts::host::HostDrop::Truncated => want.truncated += 1,
                        ferroce_contracts::host::HostDrop::TooLong => want.too_long += 1,
                    }
                }
            }
        }
    }
    if let Some(p) = passed.next() {
        return Err(format!("m_pass has a frame of {} bytes beyond the expected ones", p.len()));
    }
    if let Some(r) = replies.next() {
        return Err(format!("m_reply has a frame of {} bytes beyond the expected ones", r.len()));
    }
    if run.reply_gaps != 0 {
        return Err(format!("m_reply_tvalid fell inside a reply in {} cycles", run.reply_gaps));
    }
    let gained = HostCounts {
        arp_replies: run.counts.arp_replies.wrapping_sub(before.arp_replies),
        echo_replies: run.counts.echo_replies.wrapping_sub(before.echo_replies),
        deferred: run.counts.deferred.wrapping_sub(before.deferred),
        truncated: run.counts.truncated.wrapping_sub(before.truncated),
        too_long: run.counts.too_long.wrapping_sub(before.too_long),
    };
    if gained != want {
        return Err(format!("counters gained {gained:?}, expected {want:?}"));
    }
    Ok(want)
}
