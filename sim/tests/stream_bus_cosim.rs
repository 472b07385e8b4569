//! The stream bus's Verilog (`ferroce_stream_bus_s8_w64`, `_s256_w512`) against its model
//! (`ferroce_models::stream::StreamBusModel`): streams' packets interleaved on one bus, each
//! stream cut into messages as a stream port cuts its own (slot and `tlast` ends, both immediate
//! formats, solicited bits, partial-beat drops), every message's bytes read back from its
//! stream's region; packets of streams not running discarded and counted; per-stream commands,
//! refusals and status.

use ferroce_sim::models::contracts::stream::{check_settings, StreamCommand, StreamRefusal};
use ferroce_sim::models::stream::{PortEvent, StreamBusModel};
use ferroce_sim::stream_bus_rtl::{Bus, BusVariant, Options, VARIANTS};
use ferroce_sim::stream_port_rtl::{compare, Beat, PortSettings};
use ferroce_sim::verilated::Traffic;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::{HashMap, VecDeque};

/// Random settings a bus of `variant` takes.
fn random_settings(rng: &mut ChaCha8Rng, variant: BusVariant) -> PortSettings {
    let lanes = variant.lanes as u32;
    let slot_bytes = lanes * rng.gen_range(1..=variant.max_slot_bytes() / lanes);
    let end_at_tlast = rng.gen_bool(0.5);
    let needed = u32::BITS - slot_bytes.leading_zeros();
    PortSettings {
        slot_bytes,
        slots: rng.gen_range(1..=9),
        slot_and_wrap: rng.gen_bool(0.5),
        end_at_tlast,
        length_bits: if end_at_tlast && rng.gen_bool(0.5) { needed } else { 0 },
        drop_on_overflow: rng.gen_bool(0.3),
        solicited_every: rng.gen_range(0..4),
    }
}

/// A stream's packets: in slot mode whole beats (now and then one with bytes missing), `tlast`
/// on each packet's last; with `end_at_tlast` a message's bytes a packet, its last beat partial.
fn random_packets(rng: &mut ChaCha8Rng, settings: &PortSettings, lanes: usize, count: usize, seed: u8) -> Vec<Vec<Beat>> {
    let slot_beats = settings.slot_bytes as usize / lanes;
    let mut byte = seed;
    let mut next = || {
        byte = byte.wrapping_mul(13).wrapping_add(7);
        byte
    };
    (0..count)
        .map(|_| {
            let mut beats: Vec<Beat> = if settings.end_at_tlast {
                let length = rng.gen_range(0..=settings.slot_bytes as usize + lanes);
                let mut bytes: Vec<u8> = (0..length).map(|_| next()).collect();
                if bytes.is_empty() {
                    return vec![Beat { bytes, last: true }];
                }
                let mut beats = Vec::new();
                while !bytes.is_empty() {
                    let rest = bytes.split_off(bytes.len().min(lanes));
                    beats.push(Beat { bytes, last: false });
                    bytes = rest;
                }
                beats
            } else {
                (0..rng.gen_range(1..=2 * slot_beats))
                    .map(|_| {
                        let whole = rng.gen_range(0..40) != 0;
                        let n = if whole { lanes } else { rng.gen_range(1..lanes) };
                        Beat {
                            bytes: (0..n).map(|_| next()).collect(),
                            last: false,
                        }
                    })
                    .collect()
            };
            beats.last_mut().expect("a beat").last = true;
            beats
        })
        .collect()
}

fn bytes(beats: &[Beat]) -> Vec<Vec<u8>> {
    beats.iter().map(|b| b.bytes.clone()).collect()
}

/// Configures and starts `stream`, checking both results.
fn start(bus: &mut Bus, stream: usize, settings: &PortSettings) {
    let code = bus
        .command(stream, StreamCommand::Configure, &settings.encode())
        .expect("configure");
    assert_eq!(code, 0, "stream {stream}: configure {settings:?} refused");
    assert_eq!(
        bus.command(stream, StreamCommand::Start, &[]).expect("start"),
        0,
        "stream {stream}: start"
    );
}

/// `streams` streams of random settings, `packets` packets each, interleaved at random with
/// packets for `idle` streams that do not run; every stream checked against the model.
/// Returns the messages dropped whole for want of room.
fn interleaved(
    variant: BusVariant,
    streams: &[usize],
    idle: &[u8],
    packets: usize,
    options: Options,
    adjust: fn(&mut PortSettings),
) -> u64 {
    let mut rng = ChaCha8Rng::seed_from_u64(options.traffic.seed ^ 0x5eed);
    let mut bus = Bus::open(variant, options).unwrap_or_else(|e| panic!("{}: {e}", variant.name));
    let mut model = StreamBusModel::new(variant.streams.max(256), variant.lanes);
    let mut settings = Vec::new();
    let mut packets_of: HashMap<u8, VecDeque<Vec<Beat>>> = HashMap::new();
    for (i, &stream) in streams.iter().enumerate() {
        let mut s = random_settings(&mut rng, variant);
        adjust(&mut s);
        start(&mut bus, stream, &s);
        model.start(stream, s.config()).expect("settings the model takes");
        settings.push(s);
        packets_of.insert(stream as u8, random_packets(&mut rng, &s, variant.lanes, packets, i as u8).into());
    }
    for &stream in idle {
        packets_of.insert(stream, random_packets(&mut rng, &settings[0], variant.lanes, 2, stream).into());
    }
    // interleaved at random, each stream's packets in their order
    let mut order: Vec<u8> = packets_of.iter().flat_map(|(&s, p)| std::iter::repeat_n(s, p.len())).collect();
    order.sort_unstable();
    order.shuffle(&mut rng);
    let mut events: Vec<Vec<PortEvent>> = vec![Vec::new(); 256];
    for stream in order {
        let packet = packets_of.get_mut(&stream).and_then(VecDeque::pop_front).expect("a packet");
        events[stream as usize].extend(model.packet(stream as usize, &bytes(&packet)));
        assert!(
            bus.packet(stream, &packet),
            "{} {options:?}: a beat of stream {stream} not taken",
            variant.name
        );
    }
    bus.drain().unwrap_or_else(|e| panic!("{}: {e}", variant.name));
    for (&stream, s) in streams.iter().zip(&settings) {
        let run = bus.run_of(stream);
        compare(&run, &events[stream], s).unwrap_or_else(|e| panic!("{} {options:?} stream {stream}: {e}", variant.name));
        let status = bus.status(stream);
        assert_eq!(status.next_sequence, events[stream].len() as u64, "stream {stream}: next sequence");
        assert_eq!(
            status.next_slot,
            events[stream].len() as u64 % u64::from(s.slots),
            "stream {stream}: next slot"
        );
        let pending_beats = model.pending(stream).div_ceil(variant.lanes) as u64;
        assert_eq!(
            status.held_beats, pending_beats,
            "stream {stream}: beats held after every release: its message in progress"
        );
        assert!(status.running, "stream {stream} runs");
    }
    assert_eq!(bus.discarded_beats(), model.discarded_beats(), "{}: discarded beats", variant.name);
    streams.iter().map(|&stream| bus.status(stream).dropped_overflow).sum()
}

#[test]
fn interleaved_streams_are_the_models_four_ways() {
    let s8 = VARIANTS[0];
    for traffic in Traffic::four_ways(21) {
        let options = Options {
            traffic,
            release_delay: 30,
        };
        // streams 0..6 run; stream 7 and tdest 200 (past the last stream) are discarded
        interleaved(s8, &[0, 1, 2, 3, 4, 5, 6], &[7, 200], 12, options, |_| {});
    }
    // releases slow enough to fill regions: messages of the largest slots dropped whole
    // (drop_on_overflow), never a part of one
    let slow = Options {
        traffic: Traffic::four_ways(22)[3],
        release_delay: 3_000,
    };
    let dropped = interleaved(s8, &[0, 1, 2, 3, 4, 5, 6], &[7], 12, slow, |s| {
        s.drop_on_overflow = true;
        s.slot_bytes = VARIANTS[0].max_slot_bytes();
        s.length_bits = 0;
    });
    assert!(dropped > 0, "slow releases drop messages of streams with drop_on_overflow");
}

#[test]
fn records_held_back_while_many_messages_are_open_are_all_kept() {
    // the record sink takes one now and then, so the FIFO of records fills; meanwhile each of
    // 7 streams has a message open (slots of 4 beats, packets of 1 to 8), and a packet of an
    // open message is taken and may close it: each such close needs room for its record
    let s8 = VARIANTS[0];
    let options = Options {
        traffic: Traffic {
            idle_pct: 0,
            bp_pct: 97,
            seed: 32,
        },
        release_delay: 20,
    };
    interleaved(s8, &[0, 1, 2, 3, 4, 5, 6], &[], 40, options, |s| {
        s.slot_bytes = 4 * VARIANTS[0].lanes as u32;
        s.end_at_tlast = false;
        s.length_bits = 0;
        s.drop_on_overflow = false;
    });
}

#[test]
fn many_streams_share_the_512_bit_bus() {
    let s256 = VARIANTS[1];
    let mut rng = ChaCha8Rng::seed_from_u64(256);
    let mut streams: Vec<usize> = (1..255).collect();
    streams.shuffle(&mut rng);
    streams.truncate(30);
    streams.extend([0, 255]);
    let idle = (1..255u8)
        .find(|s| !streams.contains(&usize::from(*s)))
        .expect("a stream not running");
    for traffic in [Traffic::FULL, Traffic::four_ways(5)[3]] {
        let options = Options {
            traffic,
            release_delay: 20,
        };
        interleaved(s256, &streams, &[idle], 4, options, |_| {});
    }
}

#[test]
fn commands_are_refused_per_stream_and_a_configure_restarts_the_stream() {
    for variant in VARIANTS {
        let lanes = variant.lanes as u32;
        let mut bus = Bus::open(
            variant,
            Options {
                traffic: Traffic::FULL,
                release_delay: 0,
            },
        )
        .expect("bus");
        let ok = PortSettings {
            slot_bytes: 2 * lanes,
            slots: 3,
            slot_and_wrap: false,
            end_at_tlast: false,
            length_bits: 0,
            drop_on_overflow: false,
            solicited_every: 0,
        };
        let too_large = PortSettings {
            slot_bytes: variant.max_slot_bytes() + lanes,
            ..ok
        };
        let code = |r: StreamRefusal| u64::from(r.code());
        // the contracts' check agrees with the bus on the largest slot
        assert_eq!(
            check_settings(too_large.slot_bytes, false, 0, lanes, variant.region_beats()),
            Some(StreamRefusal::SlotTooLarge)
        );
        assert_eq!(
            check_settings(variant.max_slot_bytes(), false, 0, lanes, variant.region_beats()),
            None
        );
        assert_eq!(
            bus.command(1, StreamCommand::Start, &[]).unwrap(),
            code(StreamRefusal::NotConfigured)
        );
        assert_eq!(
            bus.command(1, StreamCommand::Configure, &too_large.encode()).unwrap(),
            code(StreamRefusal::SlotTooLarge)
        );
        assert_eq!(bus.command(1, StreamCommand::Configure, &ok.encode()).unwrap(), 0);
        // another stream is still not configured
        assert_eq!(
            bus.command(2, StreamCommand::Start, &[]).unwrap(),
            code(StreamRefusal::NotConfigured)
        );
        assert_eq!(bus.command(1, StreamCommand::Start, &[]).unwrap(), 0);
        assert_eq!(
            bus.command(1, StreamCommand::Configure, &ok.encode()).unwrap(),
            code(StreamRefusal::Running)
        );
        let whole = |n: usize, seed: u8| -> Vec<Beat> {
            let mut beats: Vec<Beat> = (0..n)
                .map(|i| Beat {
                    bytes: (0..lanes as usize).map(|j| seed.wrapping_add((i * 64 + j) as u8)).collect(),
                    last: false,
                })
                .collect();
            beats.last_mut().unwrap().last = true;
            beats
        };
        // five messages of two beats, then a stop, a configure and a start: message 0 again
        assert!(bus.packet(1, &whole(10, 1)));
        assert_eq!(bus.command(1, StreamCommand::Stop, &[]).unwrap(), 0);
        assert!(bus.packet(1, &whole(2, 2)), "the stop ends the stream at its next message");
        bus.drain().unwrap();
        let status = bus.status(1);
        assert!(!status.running, "stream 1 stopped");
        assert_eq!((status.next_sequence, status.messages), (5, 5));
        assert_eq!(bus.discarded_beats(), 2, "the packet after the stop is discarded");
        assert_eq!(bus.command(1, StreamCommand::Configure, &ok.encode()).unwrap(), 0);
        let status = bus.status(1);
        assert_eq!(
            (status.next_sequence, status.next_slot, status.messages),
            (0, 0, 5),
            "restarted, counters kept"
        );
        assert_eq!(bus.command(1, StreamCommand::Start, &[]).unwrap(), 0);
        assert!(bus.packet(1, &whole(4, 3)));
        bus.drain().unwrap();
        let status = bus.status(1);
        assert_eq!((status.next_sequence, status.messages), (2, 7));
    }
}

/// Cycles a beat with nothing pushing back (docs/performance.md, "Stream bus"): `streams`
/// streams of `slot_bytes` slots, each sending `packets` packets of `packet_beats` whole
/// beats in turn, stream by stream. Every message is checked against the model.
fn figures(variant: BusVariant, streams: usize, slot_bytes: u32, packet_beats: usize, packets: usize) -> (u64, u64) {
    let options = Options {
        traffic: Traffic::FULL,
        release_delay: 0,
    };
    let mut bus = Bus::open(variant, options).expect("bus");
    let mut model = StreamBusModel::new(variant.streams, variant.lanes);
    let settings = PortSettings {
        slot_bytes,
        slots: 16,
        slot_and_wrap: false,
        end_at_tlast: false,
        length_bits: 0,
        drop_on_overflow: false,
        solicited_every: 0,
    };
    for stream in 0..streams {
        start(&mut bus, stream, &settings);
        model.start(stream, settings.config()).expect("settings");
    }
    let mut events: Vec<Vec<PortEvent>> = vec![Vec::new(); variant.streams];
    for round in 0..packets {
        for (stream, events) in events.iter_mut().enumerate().take(streams) {
            let mut packet: Vec<Beat> = (0..packet_beats)
                .map(|i| Beat {
                    bytes: (0..variant.lanes).map(|j| (round * 31 + stream * 7 + i * 3 + j) as u8).collect(),
                    last: false,
                })
                .collect();
            packet.last_mut().expect("a beat").last = true;
            events.extend(model.packet(stream, &bytes(&packet)));
            assert!(bus.packet(stream as u8, &packet), "stream {stream}: a beat not taken");
        }
    }
    let cycles = bus.beat_cycles();
    bus.drain().expect("drain");
    for (stream, events) in events.iter().enumerate().take(streams) {
        let run = bus.run_of(stream);
        compare(&run, events, &settings).unwrap_or_else(|e| panic!("stream {stream}: {e}"));
    }
    cycles
}

#[test]
fn one_stream_and_122_streams_measured() {
    let s256 = VARIANTS[1];
    for (streams, slot, packet_beats, packets) in [
        (1, 4096, 64, 24),
        (1, 8192, 16, 48),
        (122, 4096, 16, 4),
        (122, 8192, 64, 2),
        (122, 4096, 4, 16),
    ] {
        let (cycles, beats) = figures(s256, streams, slot, packet_beats, packets);
        let bytes_per_cycle = (beats * 64) as f64 / cycles as f64;
        println!(
            "stream bus s256_w512: {streams} stream(s), {slot}-byte slots, packets of {packet_beats} beats: {beats} beats in {cycles} cycles, {bytes_per_cycle:.2} B/cycle, {:.1} Gb/s at 322 MHz",
            bytes_per_cycle * 8.0 * 0.322
        );
    }
}
