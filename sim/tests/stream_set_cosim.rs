//! The stream set's Verilog (`ferroce_stream_set_s2_w64`, `_s8_w512`) against the golden model
//! (`ferroce_models::stream`) and the register map (`ferroce_contracts::regs`, block `stream`):
//! settings written and read back, `configure` refused for a slot that could span two blocks
//! and while running, each stream's posts the model's messages (channels, queue, QP, remote
//! slot, immediate, solicited bit), the bytes the TX path reads from the window the messages'
//! bytes, the host's posts passed through with their results, the counters, a stop.

mod common;

use common::HostBus;
use ferroce_ctl::bus::Bus;
use ferroce_ctl::stream::{StreamSettings, Streams};
use ferroce_sim::contracts::stream::StreamCommand;
use ferroce_sim::engine_rtl::EngineHost;
use ferroce_sim::stream_set_rtl::{run, VARIANTS};
use ferroce_sim::verilated::Traffic;

#[test]
fn streams_post_their_messages_and_serve_their_bytes() {
    for (variant, streams, _, _) in VARIANTS {
        for (seed, traffic) in [
            (1, Traffic::FULL),
            (
                2,
                Traffic {
                    idle_pct: 30,
                    bp_pct: 30,
                    seed: 2,
                },
            ),
        ] {
            let traffic = Traffic { seed, ..traffic };
            let used = streams.min(4);
            let got = run(variant, used, 6, &traffic).unwrap_or_else(|e| panic!("{variant}, {traffic:?}: {e}"));
            assert_eq!(got.messages, vec![6; used], "{variant}");
            assert_eq!(got.host_posts, 6, "{variant}");
            eprintln!("{variant} {traffic:?}: {} cycles, {} busy answers", got.cycles, got.busy);
        }
    }
}

/// `ferroce-ctl`'s stream functions (`ferroce_ctl::stream::Streams`) on the stream set's
/// Verilog through its AXI4-Lite port.
#[test]
fn ferroce_ctl_sets_starts_and_stops_a_stream() {
    let bench = ferroce_sim::stream_set_rtl::Bench::open(
        "s2_w64",
        &Traffic {
            idle_pct: 20,
            bp_pct: 20,
            seed: 5,
        },
    )
    .unwrap();
    let map = bench.map().clone();
    let mut bus = HostBus(bench);
    let mut streams = Streams::new(&mut bus, &map);
    assert_eq!(streams.count(), 2);
    let settings = StreamSettings {
        qp: 7,
        queue: 2,
        first_channel: 62,
        channels: 2,
        base_va: 0x2_0000_1000,
        slot_bytes: 4096,
        slots: 100,
        slot_and_wrap: true,
        end_at_tlast: Some(13),
        drop_on_overflow: true,
        solicited_every: 8,
    };
    // refused by the tool before any write: a slot that is not a multiple of 4 bytes
    let odd = StreamSettings {
        slot_bytes: 3002,
        ..settings
    };
    let e = streams.set(1, &odd).unwrap_err().to_string();
    assert!(e.contains("a multiple of 4 bytes"), "{e}");
    assert!(!streams.status(1).unwrap().configured);
    // and three channels (the sender takes 1, 2 or 4: `channel_mask` is channels − 1)
    let three = StreamSettings {
        first_channel: 60,
        channels: 3,
        ..settings
    };
    let e = streams.set(1, &three).unwrap_err().to_string();
    assert!(e.contains("1, 2 or 4"), "{e}");
    assert!(!streams.status(1).unwrap().configured);
    // refused by the device: not a multiple of the beat (8 bytes at 64 bits)
    let off_beat = StreamSettings {
        slot_bytes: 3004,
        ..settings
    };
    let e = streams.set(1, &off_beat).unwrap_err().to_string();
    assert!(e.contains("slot_not_multiple_of_beat"), "{e}");
    assert!(!streams.status(1).unwrap().configured);
    // refused by the tool before any write: larger than half the port's buffer (16 KiB)
    let large = StreamSettings {
        slot_bytes: 32768,
        base_va: 0x2_0000_0000,
        end_at_tlast: Some(16),
        ..settings
    };
    let e = streams.set(1, &large).unwrap_err().to_string();
    assert!(e.contains("at most half a stream port's buffer, 16 KiB in this build"), "{e}");
    // and by the device, its words written past the tool's check
    for (register, value) in large.register_words(&map) {
        bus.write32(map.reg(register).address(1), value).unwrap();
    }
    let mut streams = Streams::new(&mut bus, &map);
    let e = streams.command(1, StreamCommand::Configure).unwrap_err().to_string();
    assert!(e.contains("slot_too_large"), "{e}");
    assert!(!streams.status(1).unwrap().configured, "a refused configure applies nothing");
    streams.set(1, &settings).unwrap();
    streams.start(1).unwrap();
    let status = streams.status(1).unwrap();
    assert!(status.running && status.configured && status.refused.is_none(), "{status:?}");
    let e = streams.set(1, &settings).unwrap_err().to_string();
    assert!(e.contains("configure refused: running"), "{e}");
    streams.stop(1).unwrap();
    assert!(!streams.status(1).unwrap().running);
    assert!(streams.status(2).is_err(), "stream 2 of 2");
    let e = streams.start(0).unwrap_err().to_string();
    assert!(e.contains("not_configured"), "{e}");
}
