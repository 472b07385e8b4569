//! Streams into remote memory between two engine tops back to back (each built engine), set up
//! only through their ports: `ferroce-ctl`'s stream functions (`ferroce_ctl::stream`) over A's
//! AXI4-Lite bus (slots of any number of beats spanning A's 4 KiB blocks: one message each), A's requesters and B's responders, regions and receive buffers as the engine
//! test does, random bytes on A's stream ports under random idle and backpressure everywhere.
//! Checked against the golden model (`ferroce_models::stream::StreamCutter`): B's receive
//! completions are each stream's messages in order with their immediates and lengths, every
//! slot of B's memory holds the last message written into it, every frame on the wire parses
//! with a good ICRC, and A's counters read what was sent. A host transfer posted among the
//! streams lands too (the posts share the TX path's post port).

mod common;

use common::HostBus;
use ferroce_ctl::stream::{StreamSettings, Streams};
use ferroce_hdl::tops::stream_buffer_bits;
use ferroce_sim::contracts::tx::Pmtu;
use ferroce_sim::engine_rtl::{
    built_engines, EngineHost, EnginePair, EngineVariant, HostCompletion, Side, Surroundings, ENGINE_W512, ENGINE_W512_SLOT1M, ENGINE_W64,
    ENGINE_W64_BUS8,
};
use ferroce_sim::faults::Faults;
use ferroce_sim::loopback_bench::b_context;
use ferroce_sim::models::stream::{ImmediateFormat, MessageEnd, StreamConfig, StreamCutter, StreamMessage};
use ferroce_sim::models::tx::LocalMemory;
use ferroce_sim::peers::{Peer, BUFFER_BASE};
use ferroce_sim::stream_bench::{run, StreamReport, StreamRunConfig};
use ferroce_sim::wire::{RoceFrame, Transport};
use rand::{Rng, SeedableRng};

/// Streams 0 (UC, PMTU 1024) and 1 (RC, PMTU 4096) of A into B's QPs 9 and 14.
fn peers() -> Vec<Peer> {
    vec![
        Peer::new(9, Transport::Uc, Pmtu::B1024, 2, 2, 0xFF_FFF0),
        Peer::new(14, Transport::Rc, Pmtu::B4096, 3, 3, 0x12_3456).ack_every(2),
    ]
}

fn streams_on(engine: &EngineVariant, seed: u64, bp_pct: u32) {
    let surroundings = Surroundings::stalling(seed, bp_pct);
    let mut pair = EnginePair::new(engine, &surroundings).unwrap();
    let map = pair.map().clone();
    // A's TX path in blocks of 4 KiB, which the slots span: each message is still one WRITE
    let block_log2 = map.reg("block_size").field("log2").expect("block_size.log2").set(0, 12);
    pair.write(Side::A, "block_size", 0, block_log2).unwrap();
    let beat = engine.config.data_width / 8;
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    let messages = 10usize;
    let mut expected: Vec<(u32, Vec<StreamMessage>)> = Vec::new();
    for (s, peer) in peers().iter().enumerate() {
        pair.commit(Side::A, s as u32, &peer.requester).unwrap();
        pair.commit(Side::B, peer.qp, &b_context(peer, s as u32)).unwrap();
        pair.add_region(Side::B, &peer.region).unwrap();
        for m in 0..messages {
            // a WRITE with immediate consumes a receive buffer (its bytes go to the slot)
            assert!(pair
                .post_receive(Side::B, peer.qp, BUFFER_BASE + ((s * messages + m) << 12) as u64, 4096)
                .unwrap());
        }
        // any number of beats, the ring starting three beats before a block boundary
        let slot_bytes = beat * rng.gen_range(5..=100);
        let config = StreamConfig {
            qp: s as u32,
            base_va: peer.region.base + 0x4000 - 3 * u64::from(beat),
            rkey: peer.region.rkey,
            slot_bytes,
            slots: rng.gen_range(3..=6),
            immediate: if s == 0 {
                ImmediateFormat::SlotAndWrap
            } else {
                ImmediateFormat::Sequence
            },
            end: MessageEnd::Slot,
            solicited_every: 2,
            rate_bytes_per_second: 1,
        };
        let settings = StreamSettings {
            qp: config.qp,
            queue: 1 + s as u32,
            first_channel: engine.config.channels - 4 * (s as u32 + 1),
            channels: [1, 2][s],
            base_va: config.base_va,
            slot_bytes: config.slot_bytes,
            slots: config.slots,
            slot_and_wrap: config.immediate == ImmediateFormat::SlotAndWrap,
            end_at_tlast: None,
            drop_on_overflow: false,
            solicited_every: config.solicited_every,
        };
        {
            let mut bus = HostBus(pair.host(Side::A));
            let mut streams = Streams::new(&mut bus, &map);
            streams.set(s as u32, &settings).unwrap();
            streams.start(s as u32).unwrap();
        }
        let bytes: Vec<u8> = (0..slot_bytes as usize * messages).map(|_| rng.gen()).collect();
        let cut = StreamCutter::new(config).unwrap().push(&bytes, false);
        assert_eq!(cut.len(), messages);
        pair.a.streams.push(s, &bytes, false);
        expected.push((peer.qp, cut));
    }

    // every message completes on B
    let mut completions: Vec<HostCompletion> = Vec::new();
    for _ in 0..2000 {
        completions.extend(pair.receive_completions(Side::B).unwrap());
        if completions.len() >= 2 * messages {
            break;
        }
        pair.idle(200).unwrap();
    }
    pair.idle(500).unwrap();
    completions.extend(pair.receive_completions(Side::B).unwrap());
    assert_eq!(completions.len(), 2 * messages, "B's receive completions: {completions:?}");
    for (qp, cut) in &expected {
        let got: Vec<(Option<u32>, u32)> = completions
            .iter()
            .filter(|c| c.qp == *qp)
            .map(|c| (c.immediate, c.length))
            .collect();
        let want: Vec<(Option<u32>, u32)> = cut.iter().map(|m| (Some(m.immediate), m.data.len() as u32)).collect();
        assert_eq!(got, want, "QP {qp}: the completions are the stream's messages in order");
        // each slot holds the last message written into it
        for message in cut.iter().rev().take(cut.len().min(6)) {
            let last_in_slot = cut.iter().rev().find(|m| m.slot == message.slot).expect("a message");
            let held = pair.b.memory.bytes(last_in_slot.remote_va, last_in_slot.data.len());
            assert!(
                held == last_in_slot.data,
                "QP {qp}: slot {} does not hold message {}",
                message.slot,
                last_in_slot.sequence
            );
        }
    }
    // the wire: every frame parses with a good ICRC; the solicited bits on every second message
    for frame in pair.a.frames_out() {
        RoceFrame::parse(frame).unwrap_or_else(|e| panic!("a frame of A does not parse: {e:?}"));
    }
    // A's counters
    let mut bus = HostBus(pair.host(Side::A));
    let mut streams = Streams::new(&mut bus, &map);
    for s in 0..2u32 {
        let status = streams.status(s).unwrap();
        let n = messages as u32;
        assert_eq!(
            (
                status.messages,
                status.posted,
                status.completed,
                status.failed,
                status.refused_posts
            ),
            (n, n, n, 0, 0),
            "stream {s}: {status:?}"
        );
        streams.stop(s).unwrap();
    }
}

#[test]
fn streams_land_in_their_remote_slots_through_two_engines() {
    for engine in built_engines() {
        for (seed, bp_pct) in [(1, 0), (2, 20)] {
            streams_on(&engine, seed, bp_pct);
        }
    }
}

/// A stream bench run that must pass; its report.
fn bench(config: StreamRunConfig) -> StreamReport {
    run(&config, None, |_, _| {}).unwrap_or_else(|e| panic!("{config:?}: {e}"))
}

/// Every stream port of the build at once, each past two of its port's buffers of data (64
/// KiB; megabytes in all at 512 bits) the way the immediates and SE bits go, under random idle
/// and backpressure; then few streams of large slots on RC. Past two buffers each message is
/// read from the buffer's ring again: a record whose buffer beat left the port's window sent
/// zeros there.
#[test]
fn every_stream_port_sends_megabytes_into_its_ring() {
    for engine in built_engines() {
        let beat = engine.config.data_width / 8;
        let buffer_bytes = (1u64 << stream_buffer_bits(beat as usize)) * u64::from(beat);
        let slot_bytes = 64 * beat;
        let base = StreamRunConfig {
            engine,
            streams: engine.config.streams as usize,
            slot_bytes,
            slots: 7,
            messages: (2 * buffer_bytes / u64::from(slot_bytes) + 8).max(40) as usize,
            transport: Transport::Uc,
            pmtu: Pmtu::B1024,
            immediate: ImmediateFormat::SlotAndWrap,
            solicited_every: 3,
            channels: 2,
            bus_packet_bytes: None,
            rate: None,
            faults: None,
            surroundings: Surroundings::stalling(11, 20),
        };
        let report = bench(base);
        let bytes = base.streams as u64 * base.messages as u64 * u64::from(base.slot_bytes);
        assert_eq!(report.payload_bytes(), bytes, "{report:?}");
        assert!(
            bytes / base.streams as u64 > 2 * buffer_bytes,
            "{bytes} bytes from each of {} streams",
            base.streams
        );
        let rc = bench(StreamRunConfig {
            streams: 2,
            slot_bytes: 256 * beat,
            slots: 3,
            messages: 12,
            transport: Transport::Rc,
            pmtu: Pmtu::B4096,
            immediate: ImmediateFormat::Sequence,
            solicited_every: 0,
            channels: 2,
            bus_packet_bytes: None,
            surroundings: Surroundings::stalling(12, 10),
            ..base
        });
        assert!(rc.streams.iter().all(|s| s.completed == 12 && s.lost.is_empty()), "{rc:?}");
    }
}

/// Three streams (two at 64 bits) on 4 channels each, paced at 15 % of the bus (3.09 GB/s at
/// 512 bits): each completes its messages in order (each waits its turn on its QP while the one
/// before it goes a packet at a time) and leaves at its rate a PMTU packet at a time; two of its packets are never closer than a
/// packet's time less the other streams' packets that can come between them, and no run of its
/// packets carries more beyond the rate than a packet and that jitter's bytes.
#[test]
fn paced_streams_leave_at_their_rate_a_packet_at_a_time() {
    for engine in built_engines() {
        let beat = engine.config.data_width / 8;
        let rate = (beat as f64 * ferroce_sim::bench::CMAC_CLOCK_HZ * 0.15) as u64;
        let config = StreamRunConfig {
            engine,
            streams: 3.min(engine.config.streams as usize),
            slot_bytes: 128 * beat,
            slots: 4,
            messages: 24,
            transport: Transport::Uc,
            pmtu: Pmtu::B1024,
            immediate: ImmediateFormat::Sequence,
            solicited_every: 0,
            channels: 4,
            bus_packet_bytes: None,
            rate: Some(rate),
            faults: None,
            surroundings: Surroundings {
                memory: ferroce_sim::tx_path_rtl::MemoryTiming::IMMEDIATE,
                bp_pct: 0,
                idle_pct: 0,
                seed: 5,
            },
        };
        let report = bench(config);
        let packet_cycles = 1024.0 * ferroce_sim::bench::CMAC_CLOCK_HZ / rate as f64;
        // a frame's beats on the bus: the payload and about 70 bytes of headers
        let frame_cycles = (1024 + 70) as f64 / beat as f64;
        let least = packet_cycles - (config.streams - 1) as f64 * frame_cycles - 16.0;
        // a frame early by at most that jitter: a burst of a packet and the jitter's bytes
        let burst_bound = 1024.0 + (packet_cycles - least) * rate as f64 / ferroce_sim::bench::CMAC_CLOCK_HZ;
        for (s, figures) in report.streams.iter().enumerate() {
            println!(
                "{} bits, stream {s} at {rate} B/s: {:.4} GB/s, {} frames, closest {} cycles (a packet's time {packet_cycles:.1}, least {least:.1}), largest burst {} B (bound {burst_bound:.0})",
                engine.config.data_width,
                figures.rate() / 1e9,
                figures.frames,
                figures.closest_frames,
                figures.largest_burst
            );
            assert_eq!(figures.completed, 24, "{report:?}");
            assert!((figures.rate() / rate as f64 - 1.0).abs() < 0.005, "stream {s}: {figures:?}");
            assert!(figures.closest_frames as f64 >= least, "stream {s}: {figures:?}");
            assert!(
                (1024..=burst_bound as u64).contains(&figures.largest_burst),
                "stream {s}: {figures:?}"
            );
        }
    }
}

/// UC with loss on the wire: B completes exactly the messages whose every packet crossed (the
/// missing sequence numbers are the lost ones), no slot holds bytes of another message; RC on
/// the same wire sends again and completes every message.
#[test]
fn a_lossy_wire_loses_whole_uc_messages_and_no_rc_message() {
    for engine in built_engines() {
        let beat = engine.config.data_width / 8;
        let lossy = StreamRunConfig {
            engine,
            streams: 2,
            slot_bytes: 64 * beat,
            slots: 5,
            messages: 48,
            transport: Transport::Uc,
            pmtu: Pmtu::B512,
            immediate: ImmediateFormat::Sequence,
            solicited_every: 0,
            channels: 2,
            bus_packet_bytes: None,
            rate: None,
            faults: Some(Faults {
                loss: 0.02,
                burst: 3,
                ..Faults::NONE
            }),
            surroundings: Surroundings::stalling(21, 10),
        };
        let report = bench(lossy);
        let lost: usize = report.streams.iter().map(|s| s.lost.len()).sum();
        assert!(lost > 0 && lost < 40, "some messages lost, most not: {report:?}");
        assert!(report.faults[0].is_some_and(|f| f.lost > 0), "{report:?}");
        let rc = bench(StreamRunConfig {
            transport: Transport::Rc,
            messages: 16,
            ..lossy
        });
        assert!(rc.streams.iter().all(|s| s.completed == 16), "{rc:?}");
    }
}

/// `ferroce-sim stream`: a short run prints a row per stream and no mismatch, its pcap decodes
/// in tshark as RoCEv2 with good ICRCs; a stream the build does not have is refused (status 2).
#[test]
fn the_stream_command_prints_figures_and_writes_a_pcap() {
    let sim = |args: &[&str]| {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_ferroce-sim"))
            .arg("stream")
            .args(args)
            .output()
            .expect("ferroce-sim runs");
        let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
        (out.status.code(), text(&out.stdout), text(&out.stderr))
    };
    let pcap = std::env::temp_dir().join(format!("ferroce-stream-{}.pcap", std::process::id()));
    let pcap_arg = pcap.to_str().expect("a UTF-8 path");
    let (code, stdout, stderr) = sim(&[
        "--streams",
        "2",
        "--slot",
        "4K",
        "--slots",
        "3",
        "--messages",
        "5",
        "--pmtu",
        "2048",
        "--out",
        pcap_arg,
    ]);
    assert_eq!(code, Some(0), "{stdout}{stderr}");
    assert!(stdout.contains("mismatches: 0"), "{stdout}");
    let rows: Vec<Vec<&str>> = stdout
        .lines()
        .filter(|l| l.starts_with("| ") && l.as_bytes()[2].is_ascii_digit())
        .map(|l| l.split('|').map(str::trim).filter(|c| !c.is_empty()).collect())
        .collect();
    assert_eq!(rows.len(), 2, "{stdout}");
    for row in &rows {
        // messages, completed, lost, frames (two 2 KiB packets a message), payload bytes
        assert_eq!(row[2..7], ["5", "5", "0", "10", "20480"], "{row:?}");
    }
    assert!(stderr.contains("10/10 messages completed on B"), "{stderr}");
    let frames = ferroce_sim::wire::pcap::read_pcap(&pcap, false).expect("the pcap reads");
    assert_eq!(frames.len(), 20, "UC: the streams' frames only");
    ferroce_sim::tshark::check_roce_frames("stream-command", &frames).unwrap_or_else(|e| panic!("{e}"));
    std::fs::remove_file(&pcap).ok();
    let (code, _, stderr) = sim(&["--streams", "9"]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("9 streams: this engine build has 8 stream ports"), "{stderr}");
}

/// The build for large slots (`c2048_q256_w512_slot1m`: two stream ports with 2 MiB buffers):
/// two streams of 1 MiB slots on UC, each past two buffers of data (so messages are read from
/// the buffers' rings after they wrapped), then one on RC, whose 16 groups of a slot (64 KiB
/// blocks) are more than its send history holds unacknowledged; every slot holds its message.
/// The default build refuses such a slot before the run, saying which build takes it.
#[test]
fn megabyte_slots_land_whole_in_the_big_slot_build() {
    let beat = ENGINE_W512_SLOT1M.config.data_width / 8;
    let too_large = StreamRunConfig {
        engine: ENGINE_W512,
        streams: 1,
        slot_bytes: 1 << 20,
        slots: 3,
        messages: 5,
        transport: Transport::Uc,
        pmtu: Pmtu::B4096,
        immediate: ImmediateFormat::Sequence,
        solicited_every: 2,
        channels: 2,
        bus_packet_bytes: None,
        rate: None,
        faults: None,
        surroundings: Surroundings::stalling(21, 10),
    };
    let refusal = too_large.check().expect_err("1 MiB slots in the default build");
    assert!(
        refusal.contains("up to 16 KiB") && refusal.contains("c2048_q256_w512_slot1m"),
        "{refusal}"
    );
    if !ENGINE_W512_SLOT1M.is_built() {
        eprintln!(
            "{} is not built into this binary (FERROCE_SIM_TOPS): skipped",
            ENGINE_W512_SLOT1M.model_name()
        );
        return;
    }
    let uc = StreamRunConfig {
        engine: ENGINE_W512_SLOT1M,
        streams: 2,
        ..too_large
    };
    let report = bench(uc);
    let bytes = (uc.streams * uc.messages) as u64 * u64::from(uc.slot_bytes);
    assert_eq!(report.payload_bytes(), bytes, "{report:?}");
    assert!(
        uc.messages as u64 * u64::from(uc.slot_bytes) > 2 * u64::from(ENGINE_W512_SLOT1M.config.stream_buffer_bytes),
        "past two buffers"
    );
    assert!(
        report.streams.iter().all(|s| s.completed == 5 && s.frames == 5 * (1 << 20) / 4096),
        "{report:?}"
    );
    let rc = bench(StreamRunConfig {
        streams: 1,
        slot_bytes: (1 << 20) - beat,
        messages: 3,
        transport: Transport::Rc,
        immediate: ImmediateFormat::SlotAndWrap,
        surroundings: Surroundings::stalling(22, 10),
        ..uc
    });
    assert!(rc.streams.iter().all(|s| s.completed == 3 && s.lost.is_empty()), "{rc:?}");
}

/// The bus build at 64 bits (`c64_q16_w64_bus8`): its 8 streams on one AXI-Stream, in packets
/// of 1 to 128 beats of random streams in turn under random idle and backpressure, each past
/// two of its 4 KiB regions of data in slots that are not a power of two, on UC; then three on
/// RC on all four of their channels, in packets of 32 beats each. Every message lands in its slot and completes in order. A
/// stream set up on another stream's channels is refused (`channels_not_the_streams`), and
/// taken on its own.
#[test]
fn streams_on_one_bus_land_in_their_slots() {
    let engine = ENGINE_W64_BUS8;
    if !engine.is_built() {
        eprintln!("{} is not built into this binary (FERROCE_SIM_TOPS): skipped", engine.model_name());
        return;
    }
    let beat = engine.config.data_width / 8;
    let uc = StreamRunConfig {
        engine,
        streams: engine.config.streams as usize,
        slot_bytes: 131 * beat,
        slots: 5,
        messages: 12,
        transport: Transport::Uc,
        pmtu: Pmtu::B512,
        immediate: ImmediateFormat::SlotAndWrap,
        solicited_every: 3,
        channels: 2,
        bus_packet_bytes: None,
        rate: None,
        faults: None,
        surroundings: Surroundings::stalling(31, 20),
    };
    assert!(
        uc.messages as u64 * u64::from(uc.slot_bytes) > 2 * u64::from(engine.config.stream_buffer_bytes),
        "past two regions"
    );
    // packets of a fixed length: whole beats that divide the slot, and only on a bus
    for (packet, engine) in [(12 * beat, engine), (3 * beat + 1, engine), (beat, ENGINE_W64)] {
        let refusal = StreamRunConfig {
            engine,
            streams: 1,
            bus_packet_bytes: Some(packet),
            ..uc
        }
        .check()
        .expect_err("a packet length refused");
        assert!(refusal.contains("packets of"), "{refusal}");
    }
    let report = bench(uc);
    let bytes = (uc.streams * uc.messages) as u64 * u64::from(uc.slot_bytes);
    assert_eq!(report.payload_bytes(), bytes, "{report:?}");
    let rc = bench(StreamRunConfig {
        streams: 3,
        slot_bytes: 256 * beat,
        slots: 3,
        messages: 8,
        transport: Transport::Rc,
        pmtu: Pmtu::B1024,
        immediate: ImmediateFormat::Sequence,
        channels: 4,
        bus_packet_bytes: Some(32 * beat),
        surroundings: Surroundings::stalling(32, 10),
        ..uc
    });
    assert!(rc.streams.iter().all(|s| s.completed == 8 && s.lost.is_empty()), "{rc:?}");

    // a stream's channels are its own four
    let mut pair = EnginePair::new(&engine, &Surroundings::stalling(33, 10)).unwrap();
    let own = engine.config.bus_stream_channel(5).expect("a bus build");
    let settings = StreamSettings {
        qp: 5,
        queue: 1,
        first_channel: own + 4,
        channels: 2,
        base_va: 0x10_0000,
        slot_bytes: 64 * beat,
        slots: 4,
        slot_and_wrap: false,
        end_at_tlast: None,
        drop_on_overflow: false,
        solicited_every: 0,
    };
    let refused = pair
        .host(Side::A)
        .configure_stream(5, &settings)
        .expect_err("another stream's channels");
    assert!(refused.contains("channels_not_the_streams"), "{refused}");
    pair.host(Side::A)
        .configure_stream(
            5,
            &StreamSettings {
                first_channel: own,
                ..settings
            },
        )
        .unwrap();
}
