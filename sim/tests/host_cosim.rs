//! Co-simulation of the host responder (`ferroce_host_responder_w64` and `_w512`) against the
//! model (`ferroce_models::host`), with tshark as the independent decoder of its replies.

use ferroce_sim::host_rtl::{check, HostCounts, HostResponderRtl, WIDTHS};
use ferroce_sim::models::host::craft::{random_crafted, HostFrameGen};
use ferroce_sim::models::host::{answer_at, HostAddress, HostVerdict};
use ferroce_sim::verilated::Traffic;
use std::net::Ipv4Addr;

const ADDRESS: HostAddress = HostAddress::new([0x02, 0x00, 0x5E, 0x10, 0x20, 0x30], Ipv4Addr::new(10, 0, 0, 7));

fn responder(width: usize) -> HostResponderRtl {
    HostResponderRtl::new(width, &ADDRESS).unwrap()
}

/// Runs `frames` and checks the outputs and counters against the model; the counts checked.
fn run_checked(dut: &mut HostResponderRtl, frames: &[Vec<u8>], traffic: Traffic, label: &str) -> HostCounts {
    let capacity = dut.capacity();
    let verdicts: Vec<HostVerdict> = frames.iter().map(|f| answer_at(f, &ADDRESS, capacity)).collect();
    let before = dut.counts();
    let run = dut.run(frames, traffic).unwrap_or_else(|e| panic!("{label}: {e}"));
    check(frames, &verdicts, &run, before).unwrap_or_else(|e| panic!("{label}: {e}"))
}

#[test]
fn random_frames_match_the_model_four_ways() {
    for width in WIDTHS {
        let mut dut = responder(width);
        let mut total = HostCounts::default();
        for (k, traffic) in Traffic::four_ways(40 + width as u64).into_iter().enumerate() {
            let frames: Vec<Vec<u8>> = random_crafted(k as u64 * 7 + width as u64, 300, &ADDRESS)
                .into_iter()
                .map(|c| c.frame)
                .collect();
            let counts = run_checked(&mut dut, &frames, traffic, &format!("w{width}, traffic {traffic:?}"));
            total.arp_replies += counts.arp_replies;
            total.echo_replies += counts.echo_replies;
            total.deferred += counts.deferred;
            total.truncated += counts.truncated;
            total.too_long += counts.too_long;
        }
        // every path taken: replies of both kinds, deferrals, drops of both reasons
        let HostCounts {
            arp_replies,
            echo_replies,
            deferred,
            truncated,
            too_long,
        } = total;
        assert!(
            [arp_replies, echo_replies, deferred, truncated, too_long].iter().all(|&n| n > 0),
            "w{width}: {total:?}"
        );
    }
}

/// Requests one at a time (each reply out before the next request): every one is answered,
/// none deferred, at every VLAN tag count, ARP and echo (echo data up to the reply buffer).
#[test]
fn every_request_is_answered_when_the_buffer_is_free() {
    for width in WIDTHS {
        let mut dut = responder(width);
        let mut g = HostFrameGen::new(width as u64);
        let capacity = dut.capacity();
        let mut replies = Vec::new();
        for k in 0..24 {
            let tags = k % 3;
            let frame = if k % 2 == 0 {
                g.arp_request(tags, ADDRESS.ipv4)
            } else {
                // data lengths from the smallest to what fills the buffer exactly
                let most = capacity - 14 - 4 * tags - 28;
                g.echo_request(tags, ADDRESS.ipv4, [0, 1, 56, most][(k / 2) % 4])
            };
            let before = dut.counts();
            let verdict = answer_at(&frame, &ADDRESS, capacity);
            let run = dut.run(std::slice::from_ref(&frame), Traffic::FULL).unwrap();
            let counts = check(std::slice::from_ref(&frame), std::slice::from_ref(&verdict), &run, before)
                .unwrap_or_else(|e| panic!("w{width}, request {k}: {e}"));
            assert_eq!(counts.deferred, 0, "w{width}, request {k}");
            assert_eq!(counts.arp_replies + counts.echo_replies, 1, "w{width}, request {k}: {verdict:?}");
            replies.extend(run.replies);
        }
        ferroce_sim::tshark::check_host_replies(&format!("host_replies_w{width}"), &replies, ADDRESS.mac, ADDRESS.ipv4).unwrap();
    }
}

/// Requests back to back: the one reply buffer is taken, and the requests that find it so go
/// to the host, counted; frames keep their order on both outputs.
#[test]
fn back_to_back_requests_defer_to_the_host() {
    for width in WIDTHS {
        let mut dut = responder(width);
        let mut g = HostFrameGen::new(3 + width as u64);
        let frames: Vec<Vec<u8>> = (0..60)
            .map(|k| {
                if k % 2 == 0 {
                    g.arp_request(k % 3, ADDRESS.ipv4)
                } else {
                    g.echo_request(k % 3, ADDRESS.ipv4, 40)
                }
            })
            .collect();
        let counts = run_checked(&mut dut, &frames, Traffic::FULL, &format!("w{width}"));
        assert!(counts.deferred > 0, "w{width}: {counts:?}");
        assert!(counts.arp_replies + counts.echo_replies > 0, "w{width}: {counts:?}");
    }
}

/// With no IPv4 address configured every frame goes to the host.
#[test]
fn unconfigured_address_answers_nothing() {
    for width in WIDTHS {
        let unset = HostAddress::new(ADDRESS.mac, Ipv4Addr::UNSPECIFIED);
        let mut dut = HostResponderRtl::new(width, &unset).unwrap();
        let mut g = HostFrameGen::new(9);
        let frames: Vec<Vec<u8>> = (0..20)
            .map(|k| {
                if k % 2 == 0 {
                    g.arp_request(0, Ipv4Addr::UNSPECIFIED)
                } else {
                    g.echo_request(0, Ipv4Addr::UNSPECIFIED, 8)
                }
            })
            .collect();
        let run = dut.run(&frames, Traffic::FULL).unwrap();
        assert_eq!(run.passed, frames, "w{width}");
        assert!(run.replies.is_empty(), "w{width}");
        assert_eq!(run.counts, HostCounts::default(), "w{width}");
    }
}

/// Cycles from a request's last beat in to its reply's last beat out, nothing stalled (a
/// figure for docs/performance.md: `-- --nocapture`).
#[test]
fn reply_latency() {
    for width in WIDTHS {
        let mut dut = responder(width);
        let mut g = HostFrameGen::new(11);
        for (what, frame) in [
            ("ARP", g.arp_request(0, ADDRESS.ipv4)),
            ("echo of 56 data bytes", g.echo_request(0, ADDRESS.ipv4, 56)),
        ] {
            let run = dut.run(std::slice::from_ref(&frame), Traffic::FULL).unwrap();
            assert_eq!(run.replies.len(), 1, "w{width} {what}");
            let beats = frame.len().div_ceil(width / 8) as u64;
            let latency = run.reply_last_cycles[0] - run.frame_last_cycles[0];
            println!(
                "w{width}: {what} ({} bytes, {beats} beats): reply's last beat {latency} cycles after the request's, its first {} cycles after",
                frame.len(),
                latency + 1 - beats
            );
            assert!(latency < 40 + 2 * beats, "w{width} {what}: {latency} cycles");
        }
    }
}
