//! Streams through the TX path: messages cut by the stream port's model, kept in the ports'
//! buffers (rings, twice their size apart in the stream window, read round as the stream reader
//! reads them), posted as the stream sender posts them (`StreamTarget::post`), run through the
//! TX path's model and its Verilog (`tx_path` at 64 bits): the same frames, and on the wire
//! every slot written with exactly its message's bytes, each message's last packet a WRITE with
//! immediate carrying its immediate and solicited bit, in order per stream.

use ferroce_sim::contracts::tx::{Pmtu, QpState};
use ferroce_sim::models::stream::{ImmediateFormat, MessageEnd, PortEvent, StreamConfig, StreamMessage, StreamPortModel, StreamTarget};
use ferroce_sim::models::tx::qos::wire_dest_qpn;
use ferroce_sim::models::tx::{LocalMemory, Post, QpContext, TxEngine, TxModel, TxSetup};
use ferroce_sim::tx_path_rtl::{MemoryTiming, Surroundings, TxPathRtl, SMALL};
use ferroce_sim::wire::{RoceFrame, Transport};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

const BEAT: usize = 8;
const BUFFER_BEATS: u64 = 4096;
const WINDOW: u64 = 0x8000_0000_0000_0000;

/// The stream window: per port its buffer of `BUFFER_BEATS` beats at `WINDOW + port × 2 × buffer`,
/// read round (a read past the buffer's end goes on at its start).
#[derive(Debug)]
struct Window {
    buffers: Vec<Vec<u8>>,
}

impl LocalMemory for Window {
    fn byte(&self, addr: u64) -> u8 {
        let size = BUFFER_BEATS * BEAT as u64;
        let offset = addr.wrapping_sub(WINDOW);
        let port = (offset / (2 * size)) as usize;
        self.buffers.get(port).map_or(0, |b| b[(offset % (2 * size) % size) as usize])
    }
}

fn target(port: u32, slot_bytes: u32) -> StreamTarget {
    StreamTarget {
        qp: port + 1,
        queue: 1 + port % 3,
        first_channel: 4 * port,
        channels: 4,
        base_va: 0x10_0000_0000 * u64::from(port + 1),
        slot_bytes,
        window_base: WINDOW + u64::from(port) * 2 * BUFFER_BEATS * BEAT as u64,
        beat_bytes: BEAT as u32,
    }
}

#[test]
fn stream_messages_land_in_their_slots_through_the_tx_path() {
    let mut rng = ChaCha8Rng::seed_from_u64(17);
    let ports = 4u32;
    let slot_bytes = 2048u32;
    let mut setup = SMALL.fit(&TxSetup {
        block_log2: 12,
        ..TxSetup::default()
    });
    let mut buffers = vec![vec![0u8; BUFFER_BEATS as usize * BEAT]; ports as usize];
    let mut sent: Vec<(StreamTarget, Vec<StreamMessage>)> = Vec::new();
    for port in 0..ports {
        let t = target(port, slot_bytes);
        setup.contexts.insert(
            t.qp,
            QpContext {
                state: QpState::Rts.code(),
                transport: if port % 2 == 0 {
                    Transport::Uc.bits()
                } else {
                    Transport::Rc.bits()
                },
                pmtu: Pmtu::ALL[port as usize % Pmtu::ALL.len()].code(),
                sq_psn: (1 << 24) - 3,
                rkey: 0x100 + port,
                dest_qpn: wire_dest_qpn(t.qp),
                pkey: 0xFFFF,
                src_ip: 0x0a00_0001,
                dst_ip: 0x0a00_0002,
                src_mac: 0x02_0000_0001,
                dst_mac: 0x02_0000_0002,
                ttl: 64,
                ..QpContext::default()
            },
        );
        let config = StreamConfig {
            qp: t.qp,
            base_va: t.base_va,
            rkey: 0x100 + port,
            slot_bytes,
            slots: 6,
            immediate: if port % 2 == 0 {
                ImmediateFormat::Sequence
            } else {
                ImmediateFormat::SlotAndWrap
            },
            end: MessageEnd::Tlast { length_bits: 12 },
            solicited_every: 2,
            rate_bytes_per_second: 1,
        };
        let mut model = StreamPortModel::new(config, BEAT).unwrap();
        // the buffer's ring starts near its end, so messages run round it
        let mut buffer_beat = BUFFER_BEATS - 100;
        let mut messages = Vec::new();
        // four messages: one per channel, all in flight at once
        while messages.len() < 4 {
            let beats = rng.gen_range(1..=slot_bytes as usize / BEAT);
            for b in 0..beats {
                let last = b + 1 == beats;
                let n = if last { rng.gen_range(1..=BEAT) } else { BEAT };
                let bytes: Vec<u8> = (0..n).map(|_| rng.gen()).collect();
                if let Some(PortEvent::Message(m)) = model.beat(&bytes, last) {
                    let index = messages.len() as u64;
                    for (i, byte) in m.data.iter().enumerate() {
                        let at = (buffer_beat + (i / BEAT) as u64) % BUFFER_BEATS;
                        buffers[port as usize][at as usize * BEAT + i % BEAT] = *byte;
                    }
                    let p = t.post(index, buffer_beat as u32, m.slot, m.data.len() as u32, m.immediate, m.solicited);
                    setup.posts.push(Post {
                        channel: p.channel as u16,
                        queue: p.queue as u8,
                        op: 3,
                        solicited: p.solicited,
                        imm_every_block: false,
                        qp: p.qp,
                        local_addr: p.local_addr,
                        remote_addr: p.remote_addr,
                        length: p.length,
                        immediate: p.immediate,
                    });
                    buffer_beat = (buffer_beat + m.data.len().div_ceil(BEAT) as u64) % BUFFER_BEATS;
                    messages.push(m);
                }
            }
        }
        sent.push((t, messages));
    }
    setup.memory = Arc::new(Window { buffers });

    let want = TxModel.run(&setup).expect("the model runs");
    let mut rtl = TxPathRtl::new(
        SMALL,
        Surroundings {
            memory: MemoryTiming {
                latency: 20,
                outstanding: 8,
                stall_pct: 10,
            },
            output_bp_pct: 20,
            ..Surroundings::FULL
        },
    );
    let got = rtl.run(&setup).expect("the RTL runs");
    assert!(got.post_results.iter().all(|r| r.is_ok()), "{:?}", got.post_results);
    assert_eq!(got.frames.len(), want.frames.len());
    // frames leave in the model's order here (posts back to back)
    assert!(got.frames == want.frames, "the RTL's frames differ from the model's");

    // on the wire: remote memory per QP, the immediates in order
    let mut remote: HashMap<u32, BTreeMap<u64, u8>> = HashMap::new();
    let mut next_va: HashMap<u32, u64> = HashMap::new();
    let mut immediates: HashMap<u32, Vec<(u32, bool)>> = HashMap::new();
    for frame in &got.frames {
        let f = RoceFrame::parse(frame).expect("a frame parses");
        let qp = f.bth.dest_qp;
        let va = f.ext.reth.map_or_else(|| next_va[&qp], |r| r.va);
        let memory = remote.entry(qp).or_default();
        for (i, b) in f.payload.iter().enumerate() {
            memory.insert(va + i as u64, *b);
        }
        next_va.insert(qp, va + f.payload.len() as u64);
        if let Some(imm) = f.ext.immdt {
            immediates.entry(qp).or_default().push((imm.imm, f.bth.solicited));
        }
    }
    for (t, messages) in &sent {
        let qp = wire_dest_qpn(t.qp);
        let memory = &remote[&qp];
        for m in messages {
            let slot_va = t.base_va + u64::from(m.slot) * u64::from(t.slot_bytes);
            let landed: Vec<u8> = (0..m.data.len() as u64)
                .map(|i| memory.get(&(slot_va + i)).copied().unwrap_or(0))
                .collect();
            assert!(landed == m.data, "QP {}: message {} not in slot {}", t.qp, m.sequence, m.slot);
        }
        let want_imm: Vec<(u32, bool)> = messages.iter().map(|m| (m.immediate, m.solicited)).collect();
        assert_eq!(immediates[&qp], want_imm, "QP {}: immediates and solicited bits", t.qp);
    }
}
