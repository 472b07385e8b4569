//! The stream bus's set (`ferroce_stream_bus_set_s8_w64`, `_s256_w512`: a stream bus with its
//! sender, the reader of its regions and the register map's `stream` block) against the golden
//! model (`ferroce_models::stream`) and the register map (`ferroce_contracts::regs`), through
//! the runner of the stream set: settings written and read back, `configure` refused on
//! another stream's channels and while running, the streams' packets interleaved on the bus,
//! each stream's posts the model's messages (its channels from 4 × streams, queue, QP, remote
//! slot, immediate, solicited bit), the bytes the TX path reads from the window the messages'
//! bytes (a message that passes its region's end read from its start), the host's posts passed
//! through with their results, the counters, a stop.

use ferroce_sim::stream_set_rtl::{run_bus, BUS_VARIANTS};
use ferroce_sim::verilated::Traffic;

#[test]
fn bus_streams_post_their_messages_and_serve_their_bytes() {
    for (variant, streams, _, _) in BUS_VARIANTS {
        for traffic in [
            Traffic::FULL,
            Traffic {
                idle_pct: 30,
                bp_pct: 30,
                seed: 2,
            },
        ] {
            // 80 messages of 1 to 16 beats a stream: past its region's end (256 or 512 beats)
            let used = streams.min(6);
            let got = run_bus(variant, used, 80, &traffic).unwrap_or_else(|e| panic!("{variant}, {traffic:?}: {e}"));
            assert_eq!(got.messages, vec![80; used], "{variant}");
            assert_eq!(got.host_posts, 6, "{variant}");
            eprintln!("{variant} {traffic:?}: {} cycles, {} busy answers", got.cycles, got.busy);
        }
    }
}
