//! Runner of the ACK tracker's Verilator model (`ferroce_ack_tracker_c64_q16`, top
//! `ack_tracker`), used by its co-simulation (`sim/tests/ack_tracker_cosim.rs`).
//!
//! [`run`] plays a list of [`TrackerEvent`]s into the tracker as the TX path and the RX side
//! would: the packet tap for one cycle, a block's record (its QP's last request PSN, before
//! its packets), a sent transfer and an ACK each held until taken,
//! random idle before an event, random backpressure on the completions; a sent transfer at
//! least [`TAP_TO_SENT`] cycles after the last packet; a channel's packets
//! only once its previous transfer's completion has left (as the TX path frees a channel on
//! its completion). A sent transfer
//! followed by an ACK in the list is presented in the same cycle as it (the tracker takes the
//! sent one first, as the model does). [`expected`] is the model's answer
//! ([`AckTracker`]); the completions must match it in order, and so must the count of ignored
//! ACKs. Timer actions and clears are presented as ACKs are; the releases, timer notices and
//! rewinds the tracker gives (each taken under random backpressure) must be the model's, in
//! order.

use crate::axis::Channel;
use crate::contracts::reliability::{TimerAction, TimerEvent};
use crate::contracts::tx::CompletionStatus;
use crate::models::tx::acknowledge::{AckTracker, Completion};
use crate::verilated::{Model, Traffic};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::HashMap;

/// The co-simulated build: 64 channels, 16 QPs.
pub const MODEL: &str = "ferroce_ack_tracker_c64_q16";
/// Channels of [`MODEL`].
pub const CHANNELS: u16 = 64;
/// QPs of [`MODEL`].
pub const QPS: u32 = 16;
/// Cycles without a handshake or a completion after which a run is an error.
pub const PROGRESS_LIMIT: u64 = 2_000;
/// Cycles from a packet on the tap to the earliest sent transfer (the tracker writes the tap
/// two cycles later; in the TX path a frame takes many more from its descriptor to its
/// completion).
pub const TAP_TO_SENT: u64 = 3;
/// Cycles the completion port must stay quiet after the last expected completion.
pub const DRAIN_CYCLES: u64 = 64;

/// What reaches the tracker.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TrackerEvent {
    /// A new RC block was recorded (before its first packet): the QP's last request PSN.
    Record {
        /// Its QP.
        qp: u32,
        /// Its last PSN.
        last_psn: u32,
    },
    /// A request packet was taken by the generator (the tap).
    Packet {
        /// Its transfer's channel.
        channel: u16,
        /// Its QP.
        qp: u32,
        /// Its PSN.
        psn: u32,
        /// The transfer's last packet.
        last: bool,
        /// RC.
        reliable: bool,
    },
    /// A transfer's last frame has left.
    Sent {
        /// Its channel.
        channel: u16,
        /// Its status so far.
        status: CompletionStatus,
    },
    /// An ACK or NAK.
    Ack {
        /// The local QP.
        qp: u32,
        /// Its PSN.
        psn: u32,
        /// Its AETH syndrome.
        syndrome: u8,
    },
    /// The retry timer's action.
    Action {
        /// The QP (below [`QPS`]).
        qp: u32,
        /// What to do.
        action: TimerAction,
    },
    /// The host reset a QP.
    Clear {
        /// The QP (below [`QPS`]).
        qp: u32,
    },
}

/// The completions in order and the ACKs ignored.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TrackerRun {
    /// Completions, in order.
    pub completions: Vec<Completion>,
    /// ACKs and NAKs ignored (reserved syndrome, QP beyond the table, outside the window).
    pub ignored: u64,
    /// Cycles from the first event presented to the last completion (0 from [`expected`]).
    pub cycles: u64,
    /// Send history releases `(QP, PSN)`, in order.
    pub releases: Vec<(u32, u32)>,
    /// What the retry timer was told `(QP, event, RNR timer code of an RNR NAK)`, in order.
    pub notices: Vec<(u32, TimerEvent, u8)>,
    /// Send history rewinds `(QP, PSN or every block whole)`, in order.
    pub rewinds: Vec<(u32, Option<u32>)>,
    /// Each QP's error state at the end (`None`: not in error), read from the host's port.
    pub failures: Vec<Option<CompletionStatus>>,
}

/// What the model makes of `events` (a QP at or beyond [`QPS`] is ignored, as the tracker
/// of [`MODEL`] does).
pub fn expected(events: &[TrackerEvent]) -> TrackerRun {
    expected_with_waits(events).0
}

/// [`expected`], and per event the completions that must have left before it is presented: a
/// channel's packets pass the tap only once its previous transfer's completion has left (the
/// TX path frees a channel on the completion).
fn expected_with_waits(events: &[TrackerEvent]) -> (TrackerRun, Vec<usize>) {
    let mut tracker = AckTracker::new();
    let mut last_packet: HashMap<u16, (u32, u32, bool)> = HashMap::new();
    let mut run = TrackerRun::default();
    let mut waits = Vec::with_capacity(events.len());
    for event in events {
        let wait = match *event {
            TrackerEvent::Packet { channel, .. } => run.completions.iter().rposition(|c| c.0 == channel).map_or(0, |i| i + 1),
            _ => 0,
        };
        waits.push(wait);
        match *event {
            TrackerEvent::Record { qp, last_psn } => tracker.request_sent(qp, last_psn),
            TrackerEvent::Packet {
                channel,
                qp,
                psn,
                last,
                reliable,
            } => {
                if last {
                    last_packet.insert(channel, (qp, psn, reliable));
                }
            }
            TrackerEvent::Sent { channel, status } => {
                let (qp, psn, reliable) = last_packet[&channel];
                run.completions.extend(tracker.transfer_sent(channel, qp, psn, reliable, status));
            }
            TrackerEvent::Ack { qp, psn, syndrome } => {
                if qp >= QPS {
                    run.ignored += 1;
                    continue;
                }
                let outcome = tracker.acknowledge(qp, psn, syndrome);
                run.ignored += u64::from(outcome.ignored);
                run.completions.extend(outcome.completions);
                run.releases.extend(outcome.release.map(|psn| (qp, psn)));
                run.notices
                    .extend(outcome.notices.into_iter().map(|(event, code)| (qp, event, code)));
            }
            TrackerEvent::Action { qp, action } => {
                let outcome = tracker.timer_action(qp, action);
                run.completions.extend(outcome.completions);
                run.releases.extend(outcome.release.map(|psn| (qp, psn)));
                run.rewinds.extend(outcome.rewind.map(|psn| (qp, psn)));
            }
            TrackerEvent::Clear { qp } => run.completions.extend(tracker.clear(qp)),
        }
    }
    run.failures = (0..QPS).map(|qp| tracker.qp(qp).and_then(|q| q.failed)).collect();
    (run, waits)
}

/// Runs `events` through [`MODEL`] under `traffic` (idle before events, backpressure on the
/// completions).
pub fn run(events: &[TrackerEvent], traffic: Traffic) -> Result<TrackerRun, String> {
    let e = |e: crate::verilated::SimError| e.to_string();
    let mut m = Model::new(MODEL).map_err(e)?;
    let port = |m: &Model, name: &str| m.port(name).map_err(e);
    let packet_valid = port(&m, "packet_valid")?;
    let packet = ["packet_channel", "packet_qp", "packet_psn", "packet_last", "packet_reliable"].map(|p| m.port(p));
    let packet: Vec<usize> = packet.into_iter().collect::<Result<_, _>>().map_err(e)?;
    let (record_valid, record_ready) = (port(&m, "record_valid")?, port(&m, "record_ready")?);
    let (record_qp, record_last_psn) = (port(&m, "record_qp")?, port(&m, "record_last_psn")?);
    let (sent_valid, sent_ready) = (port(&m, "sent_valid")?, port(&m, "sent_ready")?);
    let (sent_channel, sent_status) = (port(&m, "sent_channel")?, port(&m, "sent_status")?);
    let (ack_valid, ack_ready) = (port(&m, "ack_valid")?, port(&m, "ack_ready")?);
    let ack = ["ack_qp", "ack_psn", "ack_syndrome"].map(|p| m.port(p));
    let ack: Vec<usize> = ack.into_iter().collect::<Result<_, _>>().map_err(e)?;
    let (init_done, ignored) = (port(&m, "init_done")?, port(&m, "ignored")?);
    let (action_valid, action_ready) = (port(&m, "action_valid")?, port(&m, "action_ready")?);
    let (action_qp, action_kind) = (port(&m, "action_qp")?, port(&m, "action_kind")?);
    let (clear_valid, clear_ready, clear_qp) = (port(&m, "clear_valid")?, port(&m, "clear_ready")?, port(&m, "clear_qp")?);
    let outputs = OutputPorts::new(&m).map_err(e)?;
    let mut completions = Channel::completions(&m, traffic.bp_pct).map_err(e)?;
    let mut rng = ChaCha8Rng::seed_from_u64(traffic.seed);
    let (model, waits) = expected_with_waits(events);
    let want = model.completions.len();

    completions.always_ready(&mut m);
    m.reset(2);
    let mut cycle = 0u64;
    while m.get_u64(init_done) == 0 {
        m.step(1);
        cycle += 1;
        if cycle > 100_000 {
            return Err("init_done never rose".into());
        }
    }
    let mut got = TrackerRun::default();
    let start = cycle;
    let mut next = 0usize;
    let mut last_tap = 0u64;
    let (mut last_progress, mut quiet) = (cycle, 0u64);
    let mut progress_outputs = false;
    loop {
        // present the next event (and an ACK right after a sent transfer with it)
        for p in [packet_valid, record_valid, sent_valid, ack_valid, action_valid, clear_valid] {
            m.set_u64(p, 0);
        }
        let mut presented = (None, None); // (sent or packet index, ack index)
        let sent_too_early = matches!(events.get(next), Some(TrackerEvent::Sent { .. })) && cycle < last_tap + TAP_TO_SENT;
        if next < events.len() && got.completions.len() >= waits[next] && !sent_too_early && rng.gen_range(0..100) >= traffic.idle_pct {
            match events[next] {
                TrackerEvent::Packet {
                    channel,
                    qp,
                    psn,
                    last,
                    reliable,
                } => {
                    m.set_u64(packet_valid, 1);
                    for (&p, v) in packet.iter().zip([
                        u64::from(channel),
                        u64::from(qp),
                        u64::from(psn),
                        u64::from(last),
                        u64::from(reliable),
                    ]) {
                        m.set_u64(p, v);
                    }
                    presented.0 = Some(next);
                    last_tap = cycle;
                }
                TrackerEvent::Record { qp, last_psn } => {
                    m.set_u64(record_valid, 1);
                    m.set_u64(record_qp, u64::from(qp));
                    m.set_u64(record_last_psn, u64::from(last_psn));
                    presented.0 = Some(next);
                }
                TrackerEvent::Sent { channel, status } => {
                    m.set_u64(sent_valid, 1);
                    m.set_u64(sent_channel, u64::from(channel));
                    m.set_u64(sent_status, u64::from(status.code()));
                    presented.0 = Some(next);
                    if let Some(TrackerEvent::Ack { qp, psn, syndrome }) = events.get(next + 1) {
                        m.set_u64(ack_valid, 1);
                        for (&p, v) in ack.iter().zip([u64::from(*qp), u64::from(*psn), u64::from(*syndrome)]) {
                            m.set_u64(p, v);
                        }
                        presented.1 = Some(next + 1);
                    }
                }
                TrackerEvent::Ack { qp, psn, syndrome } => {
                    m.set_u64(ack_valid, 1);
                    for (&p, v) in ack.iter().zip([u64::from(qp), u64::from(psn), u64::from(syndrome)]) {
                        m.set_u64(p, v);
                    }
                    presented.1 = Some(next);
                }
                TrackerEvent::Action { qp, action } => {
                    m.set_u64(action_valid, 1);
                    m.set_u64(action_qp, u64::from(qp));
                    m.set_u64(action_kind, u64::from(action.code()));
                    presented.0 = Some(next);
                }
                TrackerEvent::Clear { qp } => {
                    m.set_u64(clear_valid, 1);
                    m.set_u64(clear_qp, u64::from(qp));
                    presented.0 = Some(next);
                }
            }
        }
        completions.drive(&mut m, &mut rng);
        let takes = outputs.drive(&mut m, &mut rng, traffic.bp_pct);
        m.eval();
        if outputs.sample(&mut m, takes, &mut got)? {
            progress_outputs = true;
        }
        let mut progress = std::mem::take(&mut progress_outputs);
        if let Some(i) = presented.0 {
            let taken = match events[i] {
                TrackerEvent::Packet { .. } => true,
                TrackerEvent::Record { .. } => m.peek_u64(record_ready) != 0,
                TrackerEvent::Action { .. } => m.peek_u64(action_ready) != 0,
                TrackerEvent::Clear { .. } => m.peek_u64(clear_ready) != 0,
                _ => m.peek_u64(sent_ready) != 0,
            };
            if taken {
                next = i + 1;
                progress = true;
            }
        }
        if let Some(i) = presented.1 {
            if m.peek_u64(ack_ready) != 0 {
                if presented.0.is_some() && next != i {
                    return Err(format!(
                        "cycle {cycle}: the ACK of event {i} was taken before the sent transfer of event {}",
                        i - 1
                    ));
                }
                next = i + 1;
                progress = true;
            }
        }
        if let Some(c) = completions.sample(&mut m, cycle).map_err(e)? {
            let status =
                CompletionStatus::from_code(c[1][0] as u8).ok_or_else(|| format!("cycle {cycle}: completion status {}", c[1][0]))?;
            got.completions.push((c[0][0] as u16, status));
            got.cycles = cycle + 1 - start;
            progress = true;
            if got.completions.len() > want {
                return Err(format!(
                    "cycle {cycle}: completion {:?} beyond the {want} expected",
                    got.completions.last()
                ));
            }
        }
        got.ignored += m.peek_u64(ignored);
        m.tick();
        cycle += 1;
        if progress {
            last_progress = cycle;
        }
        if next == events.len() && got.completions.len() == want {
            quiet += 1;
            if quiet > DRAIN_CYCLES {
                for (what, ours, theirs) in [
                    ("releases", format!("{:?}", got.releases), format!("{:?}", model.releases)),
                    ("notices", format!("{:?}", got.notices), format!("{:?}", model.notices)),
                    ("rewinds", format!("{:?}", got.rewinds), format!("{:?}", model.rewinds)),
                ] {
                    if ours != theirs {
                        return Err(format!("{what}: the RTL's {ours}, the model's {theirs}"));
                    }
                }
                // every QP's error state, one read a cycle
                let (status_qp, status_failure) = (port(&m, "status_qp")?, port(&m, "status_failure")?);
                for qp in 0..QPS {
                    m.set_u64(status_qp, u64::from(qp));
                    m.eval();
                    m.tick();
                    m.eval();
                    let code = m.peek_u64(status_failure) as u8;
                    let status = CompletionStatus::from_code(code).ok_or_else(|| format!("QP {qp}: status code {code}"))?;
                    got.failures.push(Some(status).filter(|s| *s != CompletionStatus::Success));
                }
                return Ok(got);
            }
        } else if cycle - last_progress > PROGRESS_LIMIT {
            return Err(format!(
                "cycle {cycle}: no progress for {PROGRESS_LIMIT} cycles at event {next} of {} with {} of {want} completions",
                events.len(),
                got.completions.len()
            ));
        }
    }
}

/// The tracker's three held outputs (release, timer notice, rewind), each taken under random
/// backpressure.
struct OutputPorts {
    release: [usize; 4],
    notice: [usize; 5],
    rewind: [usize; 5],
}

impl OutputPorts {
    fn new(m: &Model) -> Result<OutputPorts, crate::verilated::SimError> {
        let ports = |names: &[&str]| names.iter().map(|n| m.port(n)).collect::<Result<Vec<usize>, _>>();
        Ok(OutputPorts {
            release: ports(&["release_valid", "release_ready", "release_qp", "release_psn"])?
                .try_into()
                .unwrap(),
            notice: ports(&["notice_valid", "notice_ready", "notice_qp", "notice_kind", "notice_rnr_timer"])?
                .try_into()
                .unwrap(),
            rewind: ports(&["rewind_valid", "rewind_ready", "rewind_qp", "rewind_psn", "rewind_whole"])?
                .try_into()
                .unwrap(),
        })
    }

    /// Sets the readies of this cycle; returns them.
    fn drive(&self, m: &mut Model, rng: &mut ChaCha8Rng, bp_pct: u32) -> [bool; 3] {
        let mut takes = [false; 3];
        for (take, ready) in takes.iter_mut().zip([self.release[1], self.notice[1], self.rewind[1]]) {
            *take = bp_pct == 0 || rng.gen_range(0..100) >= bp_pct;
            m.set_u64(ready, u64::from(*take));
        }
        takes
    }

    /// Keeps what was taken this cycle (after `eval`); whether anything was.
    fn sample(&self, m: &mut Model, takes: [bool; 3], got: &mut TrackerRun) -> Result<bool, String> {
        let mut any = false;
        if takes[0] && m.peek_u64(self.release[0]) != 0 {
            got.releases
                .push((m.peek_u64(self.release[2]) as u32, m.peek_u64(self.release[3]) as u32));
            any = true;
        }
        if takes[1] && m.peek_u64(self.notice[0]) != 0 {
            let code = m.peek_u64(self.notice[3]) as u8;
            let event = TimerEvent::from_code(code).ok_or_else(|| format!("notice code {code} is no event"))?;
            let rnr = if event == TimerEvent::RnrNak {
                m.peek_u64(self.notice[4]) as u8
            } else {
                0
            };
            got.notices.push((m.peek_u64(self.notice[2]) as u32, event, rnr));
            any = true;
        }
        if takes[2] && m.peek_u64(self.rewind[0]) != 0 {
            let whole = m.peek_u64(self.rewind[4]) != 0;
            let psn = (!whole).then(|| m.peek_u64(self.rewind[3]) as u32);
            got.rewinds.push((m.peek_u64(self.rewind[2]) as u32, psn));
            any = true;
        }
        Ok(any)
    }
}
