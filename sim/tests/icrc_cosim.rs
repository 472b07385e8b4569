//! Co-simulation of `IcrcCheck` and `IcrcInsert` (Verilator, every width) against the software
//! model, under the four combinations of random source idle and sink backpressure, plus the
//! known-answer vectors from a real NIC and from scapy (an oracle this project did not write).

use ferroce_sim::icrc_rtl::{check_model, check_rtl, insert_model, insert_rtl, CheckResult};
use ferroce_sim::verilated::{Traffic, MODELS};
use ferroce_sim::wire::gen::{flip_bit, FrameGen};
use ferroce_sim::wire::icrc::{coverage, locate};
use rand::Rng;

/// Frames per width for each unit (split over the four traffic modes).
const FRAMES_PER_WIDTH: usize = 10_000;

fn hex(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

/// The real-NIC known answer: a CNP captured from a Mellanox ConnectX-4 Lx (ICRC 82 fd 00 2a).
fn cx4_cnp() -> Vec<u8> {
    hex(concat!(
        "e41d2dab2bc27cfe90643b32080045c2003c718c400040119161",
        "0a0011010a001201000012b7002800008100ffff400001180000",
        "00000000000000000000000000000000000082fd002a"
    ))
}

/// A UC SEND-only frame from scapy's test suite (ICRC 78 f3 53 f3).
fn scapy_uc_send() -> Vec<u8> {
    hex(concat!(
        "248a07a8fa22248a07a8fa22080045010040047840004011b4d5c0a80007c0a80007c00012b7002caca22460ffff000000d3",
        "00cf17104630818be28935d90e9a95505401be885e50000078f353f3"
    ))
}

/// A random mix: RoCEv2 frames (all opcodes, 0–4096 payload bytes, IPv4/IPv6, 0–2 VLAN tags,
/// random masked fields, MAC padding) and non-RoCEv2 frames; a third of them with one bit
/// flipped, half of those inside the ICRC-protected bytes.
fn random_frames(seed: u64, n: usize) -> Vec<Vec<u8>> {
    let mut g = FrameGen::new(seed);
    (0..n)
        .map(|_| {
            let mut f = g.any();
            let r: u32 = g.rng().gen_range(0..6);
            if r == 0 {
                let bit = g.rng().gen_range(0..f.len() * 8);
                flip_bit(&mut f, bit);
            } else if r == 1 {
                if let Some(c) = coverage(&f) {
                    let lo = c.ip_start * 8;
                    let hi = c.ip_end() * 8;
                    let bit = g.rng().gen_range(lo..hi);
                    flip_bit(&mut f, bit);
                }
            }
            f
        })
        .collect()
}

fn check_width(width: usize) {
    let frames = random_frames(0xC0FFEE ^ width as u64, FRAMES_PER_WIDTH);
    let expect: Vec<CheckResult> = frames.iter().map(|f| check_model(f)).collect();
    let bad = expect.iter().filter(|r| r.roce && !r.icrc_ok).count();
    let good = expect.iter().filter(|r| r.icrc_ok).count();
    assert!(
        bad > FRAMES_PER_WIDTH / 10 && good > FRAMES_PER_WIDTH / 3,
        "the mix must hold good and bad frames ({good} good, {bad} bad)"
    );
    let quarter = FRAMES_PER_WIDTH / 4;
    for (k, traffic) in Traffic::four_ways(width as u64).into_iter().enumerate() {
        let chunk = &frames[k * quarter..(k + 1) * quarter];
        let (run, got) = check_rtl(chunk, width, traffic).unwrap_or_else(|e| panic!("{width} bits, {traffic:?}: {e}"));
        assert_eq!(run.frames.len(), chunk.len(), "{width} bits, {traffic:?}: frame count");
        for (i, f) in chunk.iter().enumerate() {
            let out = &run.frames[i];
            assert_eq!(&out.bytes, f, "{width} bits, {traffic:?}, frame {i}: bytes changed");
            assert_eq!(
                got[i],
                expect[k * quarter + i],
                "{width} bits, {traffic:?}, frame {i} ({} bytes)",
                f.len()
            );
        }
    }
}

/// The frames `IcrcInsert` gets: RoCEv2 frames without ICRC and MAC padding, other frames as
/// they are.
fn without_icrc(frames: &[Vec<u8>]) -> Vec<Vec<u8>> {
    frames
        .iter()
        .map(|f| match coverage(f) {
            Some(c) => f[..c.icrc_at].to_vec(),
            None => f.clone(),
        })
        .collect()
}

fn insert_width(width: usize) {
    let mut g = FrameGen::new(0xBEEF ^ width as u64);
    let frames = without_icrc(&(0..FRAMES_PER_WIDTH).map(|_| g.any()).collect::<Vec<_>>());
    assert!(frames.iter().filter(|f| locate(f).is_some()).count() > FRAMES_PER_WIDTH / 2);
    let quarter = FRAMES_PER_WIDTH / 4;
    for (k, traffic) in Traffic::four_ways(width as u64 + 7).into_iter().enumerate() {
        let chunk = &frames[k * quarter..(k + 1) * quarter];
        let run = insert_rtl(chunk, width, traffic).unwrap_or_else(|e| panic!("{width} bits, {traffic:?}: {e}"));
        assert_eq!(run.frames.len(), chunk.len());
        for (i, f) in chunk.iter().enumerate() {
            assert_eq!(
                run.frames[i].bytes,
                insert_model(f),
                "{width} bits, {traffic:?}, frame {i} ({} bytes)",
                f.len()
            );
        }
    }
}

/// Widths whose `IcrcCheck` model is always built. At 128 and 256 bits the check is co-simulated
/// inside `rx_front` (its records carry the ICRC verdict); those models and the 1024-bit ones
/// are built with `FERROCE_SIM_ALL=1`.
const CHECK_ALWAYS: [usize; 2] = [64, 512];
/// Widths whose `IcrcInsert` model is always built.
const INSERT_ALWAYS: [usize; 2] = [64, 512];

/// Whether the model of `unit` (`check` or `insert`) at `width` is built.
fn built(unit: &str, width: usize) -> bool {
    let built = MODELS.contains(&format!("ferroce_icrc_{unit}_w{width}").as_str());
    let always = if unit == "check" { &CHECK_ALWAYS[..] } else { &INSERT_ALWAYS[..] };
    assert!(
        built || !always.contains(&width),
        "the Icrc {unit} model of {width} bits is always built"
    );
    built
}

#[test]
fn check_random_w64() {
    check_width(64)
}

#[test]
#[ignore = "IcrcCheck is co-simulated at 128 bits inside rx_front (rx_front_cosim); its own model is built with FERROCE_SIM_ALL=1"]
fn check_random_w128() {
    check_width(128)
}

#[test]
#[ignore = "IcrcCheck is co-simulated at 256 bits inside rx_front (rx_front_cosim); its own model is built with FERROCE_SIM_ALL=1"]
fn check_random_w256() {
    check_width(256)
}

#[test]
fn check_random_w512() {
    check_width(512)
}

#[test]
#[ignore = "the 1024-bit IcrcCheck model is built with FERROCE_SIM_ALL=1"]
fn check_random_w1024() {
    check_width(1024)
}

#[test]
fn insert_random_w64() {
    insert_width(64)
}

#[test]
#[ignore = "the ICRC core is co-simulated at 128 bits in check mode inside rx_front; the IcrcInsert model is built with FERROCE_SIM_ALL=1"]
fn insert_random_w128() {
    insert_width(128)
}

#[test]
#[ignore = "the ICRC core is co-simulated at 256 bits in check mode inside rx_front; the IcrcInsert model is built with FERROCE_SIM_ALL=1"]
fn insert_random_w256() {
    insert_width(256)
}

#[test]
fn insert_random_w512() {
    insert_width(512)
}

#[test]
#[ignore = "the 1024-bit IcrcInsert model is built with FERROCE_SIM_ALL=1"]
fn insert_random_w1024() {
    insert_width(1024)
}

#[test]
fn known_answer_vectors_in_rtl() {
    let kats = [(cx4_cnp(), [0x82, 0xfd, 0x00, 0x2a]), (scapy_uc_send(), [0x78, 0xf3, 0x53, 0xf3])];
    for width in [64, 128, 256, 512, 1024] {
        let frames: Vec<_> = kats.iter().map(|(f, _)| f.clone()).collect();
        if built("check", width) {
            let (_, got) = check_rtl(&frames, width, Traffic::FULL).unwrap();
            for (r, (_, icrc)) in got.iter().zip(&kats) {
                assert!(r.roce && r.icrc_ok, "{width} bits: {r:?}");
                assert_eq!(r.icrc, Some(u32::from_le_bytes(*icrc)), "{width} bits");
            }
        }
        // TX: strip the ICRC, insert it again.
        if !built("insert", width) {
            continue;
        }
        let stripped: Vec<_> = frames.iter().map(|f| f[..f.len() - 4].to_vec()).collect();
        let run = insert_rtl(&stripped, width, Traffic::FULL).unwrap();
        for (out, f) in run.frames.iter().zip(&frames) {
            assert_eq!(&out.bytes, f, "{width} bits: ICRC insertion of a known-answer vector");
        }
    }
}

/// 50 frames made and checksummed by scapy (`sim/wire/vectors/make_scapy_vectors.py`).
#[test]
fn scapy_vectors_in_rtl() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/wire/vectors");
    let frames = ferroce_sim::wire::pcap::read_pcap(format!("{dir}/scapy_roce.pcap"), false).unwrap();
    let icrcs: Vec<u32> = std::fs::read_to_string(format!("{dir}/scapy_roce.txt"))
        .unwrap()
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|l| u32::from_le_bytes(u32::from_str_radix(l.split_whitespace().last().unwrap(), 16).unwrap().to_be_bytes()))
        .collect();
    assert_eq!(frames.len(), icrcs.len());
    assert!(frames.len() >= 40);
    for width in [64, 512] {
        let (_, got) = check_rtl(
            &frames,
            width,
            Traffic {
                idle_pct: 20,
                bp_pct: 20,
                seed: 3,
            },
        )
        .unwrap();
        for (i, r) in got.iter().enumerate() {
            assert!(r.roce && r.icrc_ok, "{width} bits, scapy frame {i}: {r:?}");
            assert_eq!(r.icrc, Some(icrcs[i]), "{width} bits, scapy frame {i}");
        }
    }
}

/// Back-to-back frames of every length class, no idle, no backpressure: the output takes exactly
/// one cycle per beat plus the pipeline fill (no bubble between frames, none for the tail).
#[test]
fn one_beat_per_cycle_back_to_back() {
    let mut g = FrameGen::new(99);
    let frames: Vec<Vec<u8>> = (0..400).map(|_| g.roce()).collect();
    for width in [64, 512, 1024] {
        if !built("check", width) {
            continue;
        }
        let (run, _) = check_rtl(&frames, width, Traffic::FULL).unwrap();
        let first_out = run.frames[0].last_cycle; // bounds the fill from above
        assert!(
            run.cycles <= run.beats_in as u64 + 12,
            "{width} bits: {} cycles for {} beats",
            run.cycles,
            run.beats_in
        );
        assert!(first_out < 64);
        // ICRC insertion: output beats = input beats + one per frame whose ICRC spills.
        if !built("insert", width) {
            continue;
        }
        let stripped = without_icrc(&frames);
        let run = insert_rtl(&stripped, width, Traffic::FULL).unwrap();
        assert!(
            run.cycles <= run.beats_out as u64 + 12,
            "{width} bits insert: {} cycles for {} output beats",
            run.cycles,
            run.beats_out
        );
    }
}

/// Reset in the middle of a frame: the frames after it are handled correctly.
#[test]
fn reset_mid_frame() {
    use ferroce_sim::axis::{pack_beat, run_frames, AxisPorts};
    use ferroce_sim::contracts::rx::IcrcVerdictCode;
    use ferroce_sim::verilated::Model;
    let mut g = FrameGen::new(5);
    let frames: Vec<Vec<u8>> = (0..20).map(|_| g.roce()).collect();
    for width in [64, 512] {
        let mut m = Model::new(&format!("ferroce_icrc_check_w{width}")).unwrap();
        // Start a long frame and cut it off with reset after a few beats.
        let long = frames.iter().max_by_key(|f| f.len()).unwrap();
        let input = AxisPorts::find(&m, "s_axis").unwrap();
        let ready = m.port("m_axis_tready").unwrap();
        m.set_u64(ready, 1);
        for chunk in long.chunks(width / 8).take(5) {
            let (data, keep) = pack_beat(chunk, width / 8);
            m.set(input.data, &data);
            m.set(input.keep, &keep);
            m.set_u64(input.last, 0);
            m.set_u64(input.valid, 1);
            m.step(1);
        }
        m.set_u64(input.valid, 0);
        // run_frames pulses reset first, mid-frame from the model's point of view.
        let run = run_frames(&mut m, &frames, Traffic::FULL, &["m_icrc", "m_icrc_valid"], 0).unwrap();
        assert_eq!(run.frames.len(), frames.len(), "{width} bits");
        for (out, f) in run.frames.iter().zip(&frames) {
            assert_eq!(&out.bytes, f);
            assert_eq!(
                out.user,
                u64::from(IcrcVerdictCode::Good.code()),
                "{width} bits: verdict after reset"
            );
        }
    }
}
