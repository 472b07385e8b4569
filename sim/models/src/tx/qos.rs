//! Measuring QoS on the wire: the bytes each queue sent while every queue of interest still had
//! frames to send, and the setup the QoS checks of the model and of the RTL run.

use super::{Post, QpContext, TxSetup};
use crate::contracts::opcode::Transport;
use crate::contracts::tx::{Pmtu, PostOp, QpState};
use crate::sched::QueueCfg;

/// The queues of [`weighted_setup`] and their weights.
pub const WEIGHTS: [(u8, u8); 3] = [(1, 1), (2, 2), (3, 5)];

/// DestQP of local QP `qp` in [`weighted_setup`]: `0x100 + qp`.
pub fn wire_dest_qpn(qp: u32) -> u32 {
    0x100 + qp
}

/// The local QP (in [`weighted_setup`], its queue) of an IPv4 frame, from its DestQP (read at
/// its fixed offset: Ethernet 14 + IPv4 20 + UDP 8 + 5).
pub fn wire_queue(frame: &[u8]) -> u32 {
    let at = 14 + 20 + 8 + 5;
    u32::from_be_bytes([0, frame[at], frame[at + 1], frame[at + 2]]) - wire_dest_qpn(0)
}

/// Queues 1, 2, 3 weighted 1, 2, 5 ([`WEIGHTS`]), each with its own UC QP (the queue's number,
/// DestQP [`wire_dest_qpn`]) and `weight × per_weight + slack` bytes in aligned WRITEs of
/// `transfer` bytes on PMTU 4096, with `block_log2` blocks.
pub fn weighted_setup(block_log2: u32, per_weight: u64, slack: u64, transfer: u64) -> TxSetup {
    let mut setup = TxSetup {
        block_log2,
        ..TxSetup::default()
    };
    let mut channel = 0u16;
    for (queue, weight) in WEIGHTS {
        let qp = u32::from(queue);
        setup.contexts.insert(
            qp,
            QpContext {
                state: QpState::Rts.code(),
                transport: Transport::Uc.bits(),
                pmtu: Pmtu::B4096.code(),
                dest_qpn: wire_dest_qpn(qp),
                src_ip: 0x0a00_0001,
                dst_ip: 0x0a00_0002,
                ..QpContext::default()
            },
        );
        setup.queue_config.insert(
            u32::from(queue),
            QueueCfg {
                weight,
                ..QueueCfg::default()
            },
        );
        let mut left = u64::from(weight) * per_weight + slack;
        while left > 0 {
            let len = left.min(transfer);
            setup.posts.push(Post {
                channel,
                queue,
                op: PostOp::Write.code(),
                qp,
                local_addr: u64::from(channel) << 32,
                remote_addr: u64::from(channel) << 32,
                length: len as u32,
                ..Post::default()
            });
            channel += 1;
            left -= len;
        }
    }
    setup
}

/// The share of the wire each queue of `queues` took while all of them were backlogged: `frames`
/// are `(queue, bytes)` in wire order; the window ends with the frame after which the first of
/// `queues` has no frame left. Returns the bytes of each queue of `queues` in that window (in
/// the order of `queues`), or `None` if one of them sent nothing.
pub fn backlogged_bytes(frames: &[(u32, u64)], queues: &[u32]) -> Option<Vec<u64>> {
    let last = |q: u32| frames.iter().rposition(|&(fq, _)| fq == q);
    let window_end = queues.iter().map(|&q| last(q)).collect::<Option<Vec<usize>>>()?.into_iter().min()?;
    Some(
        queues
            .iter()
            .map(|&q| frames[..=window_end].iter().filter(|&&(fq, _)| fq == q).map(|&(_, b)| b).sum())
            .collect(),
    )
}

/// The largest relative deviation of `bytes` from the shares `weights` (both in the same order):
/// `max |bytes_i / Σ bytes − w_i / Σ w| / (w_i / Σ w)`.
pub fn deviation_from_weights(bytes: &[u64], weights: &[u32]) -> f64 {
    let total: u64 = bytes.iter().sum();
    let weight_total: u32 = weights.iter().sum();
    bytes
        .iter()
        .zip(weights)
        .map(|(&b, &w)| {
            let want = f64::from(w) / f64::from(weight_total);
            (b as f64 / total as f64 - want).abs() / want
        })
        .fold(0.0, f64::max)
}

/// Channel of the control post [`add_control_post`] adds.
pub const CONTROL_CHANNEL: u16 = 100;
/// Local QP (and, through [`wire_queue`], wire queue) of that post.
pub const CONTROL_QP: u32 = 4;

/// Adds to a [`weighted_setup`] a control-class post (queue 0): a SEND of three 4 KiB packets
/// and one byte on channel [`CONTROL_CHANNEL`] and its own QP [`CONTROL_QP`] (queue 1's context
/// with another DestQP), made after the bulk posts.
pub fn add_control_post(setup: &mut TxSetup) {
    let control = QpContext {
        dest_qpn: wire_dest_qpn(CONTROL_QP),
        ..setup.context(u32::from(WEIGHTS[0].0))
    };
    setup.contexts.insert(CONTROL_QP, control);
    setup.posts.push(Post {
        channel: CONTROL_CHANNEL,
        queue: 0,
        op: PostOp::Send.code(),
        qp: CONTROL_QP,
        length: 3 * 4096 + 1,
        ..Post::default()
    });
}
