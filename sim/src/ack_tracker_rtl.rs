//! Runner of the ACK tracker's Verilator model (`ferroce_ack_tracker_c64_q16`, top
//! `ack_tracker`), used by its co-simulation (`sim/tests/ack_tracker_cosim.rs`).
//!
//! [`run`] plays a list of [`TrackerEvent`]s into the tracker as the TX path and the RX side
//! would: the packet tap for one cycle, a sent transfer and an ACK each held until taken,
//! random idle before an event, random backpressure on the completions; a sent transfer at
//! least [`TAP_TO_SENT`] cycles after the last packet; a channel's packets
//! only once its previous transfer's completion has left (as the TX path frees a channel on
//! its completion). A sent transfer
//! followed by an ACK in the list is presented in the same cycle as it (the tracker takes the
//! sent one first, as the model does). [`expected`] is the model's answer
//! ([`AckTracker`]); the completions must match it in order, and so must the count of ignored
//! ACKs.

use crate::axis::Channel;
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
            TrackerEvent::Packet {
                channel,
                qp,
                psn,
                last,
                reliable,
            } => {
                tracker.request_sent(qp, psn);
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
            }
        }
    }
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
    let (sent_valid, sent_ready) = (port(&m, "sent_valid")?, port(&m, "sent_ready")?);
    let (sent_channel, sent_status) = (port(&m, "sent_channel")?, port(&m, "sent_status")?);
    let (ack_valid, ack_ready) = (port(&m, "ack_valid")?, port(&m, "ack_ready")?);
    let ack = ["ack_qp", "ack_psn", "ack_syndrome"].map(|p| m.port(p));
    let ack: Vec<usize> = ack.into_iter().collect::<Result<_, _>>().map_err(e)?;
    let (init_done, ignored) = (port(&m, "init_done")?, port(&m, "ignored")?);
    let mut completions = Channel::completions(&m, traffic.bp_pct).map_err(e)?;
    let mut rng = ChaCha8Rng::seed_from_u64(traffic.seed);
    let (want, waits) = expected_with_waits(events);
    let want = want.completions.len();

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
    loop {
        // present the next event (and an ACK right after a sent transfer with it)
        for p in [packet_valid, sent_valid, ack_valid] {
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
            }
        }
        completions.drive(&mut m, &mut rng);
        m.eval();
        let mut progress = false;
        if let Some(i) = presented.0 {
            let taken = matches!(events[i], TrackerEvent::Packet { .. }) || m.peek_u64(sent_ready) != 0;
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
