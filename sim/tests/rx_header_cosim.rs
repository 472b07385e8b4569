//! Co-simulation of `RxHeader` (hdl/src/rx.rs, Verilator) against the software model
//! `ferroce_sim::rx::rx_model`, at every bus width (64–1024 bits): for every frame, the record comes out
//! exactly 3 cycles after the last beat, in order, and carries the model's classification, the
//! drop reason when it is not `icrc`, whether `icrc_ok` is null, and every header record field
//! (BTH, RETH, ImmDt, AETH with their presence), the payload length and (when something is
//! delivered) the payload offset. Frames: the crafted set, a seeded random mix
//! (`rx::craft::random_frames`), every opcode on valid frames of several layouts, and every
//! prefix of the headers of valid frames; random idle cycles between beats.

use ferroce_sim::axis::pack_beat;
use ferroce_sim::rx::craft::{crafted, random_frames};
use ferroce_sim::rx::{classify, rx_model, DropReason, RxVerdict};
use ferroce_sim::verilated::Model;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::net::IpAddr;

/// Cycles from the cycle that takes a frame's last beat to the cycle its record is valid.
const LATENCY: u64 = 3;

/// The record as read from the model's `h_*` ports.
#[derive(Debug, Clone, Default)]
struct Rec {
    cycle: u64,
    pass: bool,
    reason: u64,
    hfail: bool,
    icrc_chk: bool,
    eth_dst: u64,
    eth_src: u64,
    vlan_ok: bool,
    vlan: u64,
    v6: bool,
    ip_src: u128,
    ip_dst: u128,
    dscp: u64,
    ecn: u64,
    ttl: u64,
    sport: u64,
    dport: u64,
    bth_ok: bool,
    opcode: u64,
    se: bool,
    m: bool,
    padcnt: u64,
    tver: u64,
    pkey: u64,
    fecn: bool,
    becn: bool,
    dqpn: u64,
    ackreq: bool,
    psn: u64,
    reth_ok: bool,
    va: u64,
    rkey: u64,
    dmalen: u64,
    immdt_ok: bool,
    immdt: u64,
    aeth_ok: bool,
    syndrome: u64,
    msn: u64,
    pay_off: u64,
    pay_len: u64,
    pay_end: u64,
    first: bool,
    fin: bool,
}

struct Dut {
    m: Model,
    width: usize,
    p: std::collections::HashMap<&'static str, usize>,
    cycle: u64,
    recs: Vec<Rec>,
    /// First records of frames longer than the header capture (decoded before their end).
    early: Vec<Rec>,
}

const OUTS: [&str; 48] = [
    "h_valid",
    "h_pass",
    "h_reason",
    "h_hfail",
    "h_icrc_chk",
    "h_eth_dst",
    "h_eth_src",
    "h_vlan_ok",
    "h_vlan",
    "h_ip_v6",
    "h_ip_src",
    "h_ip_dst",
    "h_ip_dscp",
    "h_ip_ecn",
    "h_ip_ttl",
    "h_udp_sport",
    "h_udp_dport",
    "h_bth_ok",
    "h_bth_opcode",
    "h_bth_se",
    "h_bth_m",
    "h_bth_padcnt",
    "h_bth_tver",
    "h_bth_pkey",
    "h_bth_fecn",
    "h_bth_becn",
    "h_bth_dqpn",
    "h_bth_ackreq",
    "h_bth_psn",
    "h_reth_ok",
    "h_reth_va",
    "h_reth_rkey",
    "h_reth_dmalen",
    "h_immdt_ok",
    "h_immdt",
    "h_aeth_ok",
    "h_aeth_syndrome",
    "h_aeth_msn",
    "h_pay_off",
    "h_pay_len",
    "s_axis_tvalid",
    "s_axis_tdata",
    "s_axis_tkeep",
    "s_axis_tlast",
    "h_first",
    "h_final",
    "h_pay_end",
    "ce",
];

impl Dut {
    fn new(width: usize) -> Dut {
        let mut m = Model::new(&format!("ferroce_rx_header_w{width}")).expect("model built (FERROCE_SIM_TOPS must include rx_header)");
        let p = OUTS.iter().map(|&n| (n, m.port(n).unwrap())).collect();
        let ce = m.port("ce").unwrap();
        m.set_u64(ce, 1);
        m.reset(2);
        let ready = m.port("s_axis_tready").unwrap();
        assert_eq!(m.get_u64(ready), 1, "always ready");
        Dut {
            m,
            width,
            p,
            cycle: 0,
            recs: Vec::new(),
            early: Vec::new(),
        }
    }

    fn u(&mut self, n: &str) -> u64 {
        self.m.get_u64(self.p[n])
    }

    fn b(&mut self, n: &str) -> bool {
        self.u(n) != 0
    }

    fn u128(&mut self, n: &str) -> u128 {
        let w = self.m.get(self.p[n]);
        w.iter().enumerate().map(|(i, &x)| (x as u128) << (32 * i)).sum()
    }

    /// One clock; collects a record if one is valid after the edge.
    fn step(&mut self) {
        self.m.step(1);
        self.cycle += 1;
        if self.m.peek_u64(self.p["h_valid"]) != 0 {
            let r = Rec {
                cycle: self.cycle,
                pass: self.b("h_pass"),
                reason: self.u("h_reason"),
                hfail: self.b("h_hfail"),
                icrc_chk: self.b("h_icrc_chk"),
                eth_dst: self.u("h_eth_dst"),
                eth_src: self.u("h_eth_src"),
                vlan_ok: self.b("h_vlan_ok"),
                vlan: self.u("h_vlan"),
                v6: self.b("h_ip_v6"),
                ip_src: self.u128("h_ip_src"),
                ip_dst: self.u128("h_ip_dst"),
                dscp: self.u("h_ip_dscp"),
                ecn: self.u("h_ip_ecn"),
                ttl: self.u("h_ip_ttl"),
                sport: self.u("h_udp_sport"),
                dport: self.u("h_udp_dport"),
                bth_ok: self.b("h_bth_ok"),
                opcode: self.u("h_bth_opcode"),
                se: self.b("h_bth_se"),
                m: self.b("h_bth_m"),
                padcnt: self.u("h_bth_padcnt"),
                tver: self.u("h_bth_tver"),
                pkey: self.u("h_bth_pkey"),
                fecn: self.b("h_bth_fecn"),
                becn: self.b("h_bth_becn"),
                dqpn: self.u("h_bth_dqpn"),
                ackreq: self.b("h_bth_ackreq"),
                psn: self.u("h_bth_psn"),
                reth_ok: self.b("h_reth_ok"),
                va: self.u("h_reth_va"),
                rkey: self.u("h_reth_rkey"),
                dmalen: self.u("h_reth_dmalen"),
                immdt_ok: self.b("h_immdt_ok"),
                immdt: self.u("h_immdt"),
                aeth_ok: self.b("h_aeth_ok"),
                syndrome: self.u("h_aeth_syndrome"),
                msn: self.u("h_aeth_msn"),
                pay_off: self.u("h_pay_off"),
                pay_len: self.u("h_pay_len"),
                pay_end: self.u("h_pay_end"),
                first: self.b("h_first"),
                fin: self.b("h_final"),
            };
            if r.fin {
                self.recs.push(r);
            } else {
                assert!(r.first, "a record that is neither first nor final");
                self.early.push(r);
            }
        }
    }

    /// Sends the frames (idle cycles drawn with probability `idle_pct` before every beat) and
    /// returns, per frame, its record and the cycle its last beat was taken.
    fn run(&mut self, frames: &[Vec<u8>], idle_pct: u32, seed: u64) -> Vec<(Rec, u64)> {
        let rng = &mut ChaCha8Rng::seed_from_u64(seed);
        let b = self.width / 8;
        let (pv, pd, pk, pl) = (
            self.p["s_axis_tvalid"],
            self.p["s_axis_tdata"],
            self.p["s_axis_tkeep"],
            self.p["s_axis_tlast"],
        );
        let first = self.recs.len();
        let first_early = self.early.len();
        let mut last_cycles = Vec::new();
        let mut hp_cycles = Vec::new();
        for f in frames {
            let nbeats = f.len().div_ceil(b);
            for (j, chunk) in f.chunks(b).enumerate() {
                while rng.gen_range(0..100) < idle_pct {
                    // idle: garbage on the bus, valid low
                    self.m.set_u64(pv, 0);
                    self.m.set(pd, &vec![rng.gen::<u32>(); b / 4]);
                    self.m.set_u64(pk, rng.gen());
                    self.m.set_u64(pl, rng.gen::<u64>() & 1);
                    self.step();
                }
                let (d, k) = pack_beat(chunk, b);
                self.m.set_u64(pv, 1);
                self.m.set(pd, &d);
                self.m.set(pk, &k);
                self.m.set_u64(pl, (j + 1 == nbeats) as u64);
                if j + 1 == nbeats {
                    last_cycles.push(self.cycle);
                } else if j + 1 == 128 / b {
                    hp_cycles.push(self.cycle);
                }
                self.step();
            }
        }
        self.m.set_u64(pv, 0);
        for _ in 0..8 {
            self.step();
        }
        let recs = &self.recs[first..];
        assert_eq!(recs.len(), frames.len(), "{} bits: one final record per frame", self.width);
        // Frames longer than the 128 captured bytes get a first record 3 cycles after the beat
        // that completes the capture, which already fixes everything but the length checks.
        let early = &self.early[first_early..];
        let long: Vec<usize> = (0..frames.len()).filter(|&i| frames[i].len() > 128).collect();
        assert_eq!(
            early.len(),
            long.len(),
            "{} bits: one first record per frame longer than the capture",
            self.width
        );
        for ((&i, e), &c) in long.iter().zip(early).zip(&hp_cycles) {
            let r = &recs[i];
            let ctx = format!("{} bits, frame {i} ({} bytes)", self.width, frames[i].len());
            assert!(!r.first, "{ctx}: the final record of a long frame is not its first");
            assert_eq!(e.cycle, c + LATENCY, "{ctx}: first record latency");
            assert_eq!(e.pass, r.pass, "{ctx}: first record pass");
            if !r.pass {
                assert_eq!(
                    (e.hfail, e.pay_off, e.pay_end),
                    (r.hfail, r.pay_off, r.pay_end),
                    "{ctx}: first record"
                );
                assert_eq!(
                    (e.eth_dst, e.eth_src, e.vlan_ok, e.vlan, e.v6, e.ip_src, e.ip_dst, e.opcode, e.psn, e.va, e.immdt, e.msn),
                    (r.eth_dst, r.eth_src, r.vlan_ok, r.vlan, r.v6, r.ip_src, r.ip_dst, r.opcode, r.psn, r.va, r.immdt, r.msn),
                    "{ctx}: first record fields"
                );
            }
        }
        for (f, r) in frames.iter().zip(recs) {
            assert_eq!(
                r.first,
                f.len() <= 128,
                "{} bits, {} bytes: first flag of the final record",
                self.width,
                f.len()
            );
        }
        recs.iter().cloned().zip(last_cycles).collect()
    }
}

impl Dut {
    /// Sends the first `beats` beats of `f` without `tlast`, then pulses `reset`: the partial
    /// frame must leave no record and no trace in the next frame.
    fn abort_with_reset(&mut self, f: &[u8], beats: usize) {
        let b = self.width / 8;
        let (pv, pd, pk, pl) = (
            self.p["s_axis_tvalid"],
            self.p["s_axis_tdata"],
            self.p["s_axis_tkeep"],
            self.p["s_axis_tlast"],
        );
        for chunk in f.chunks(b).take(beats) {
            let (d, k) = pack_beat(chunk, b);
            self.m.set_u64(pv, 1);
            self.m.set(pd, &d);
            self.m.set(pk, &k);
            self.m.set_u64(pl, 0);
            self.step();
        }
        self.m.set_u64(pv, 0);
        let n = self.recs.len();
        self.m.reset(2);
        self.cycle += 2;
        for _ in 0..8 {
            self.step();
        }
        assert_eq!(self.recs.len(), n, "{} bits: a record after an aborted frame", self.width);
    }
}

fn ip_u128(a: &IpAddr) -> u128 {
    match a {
        IpAddr::V4(a) => u32::from(*a) as u128,
        IpAddr::V6(a) => u128::from(*a),
    }
}

fn mac_u64(m: &[u8; 6]) -> u64 {
    m.iter().fold(0, |acc, &b| (acc << 8) | b as u64)
}

/// Compares one record with the model; returns the model's verdict.
fn check(width: usize, what: &str, i: usize, f: &[u8], r: &Rec, last_cycle: u64) -> RxVerdict {
    let ctx = format!("{width} bits, {what} frame {i} ({} bytes)", f.len());
    assert_eq!(r.cycle, last_cycle + LATENCY, "{ctx}: latency");
    let m = rx_model(f);
    if m.verdict == RxVerdict::Pass {
        assert!(r.pass, "{ctx}: pass");
        return m.verdict;
    }
    assert!(!r.pass, "{ctx}: RoCEv2, got pass ({:?})", m.verdict);
    let rec = m.record.as_ref().unwrap();
    let want_reason = match m.verdict {
        RxVerdict::Drop(d) if d != DropReason::Icrc => d.index() as u64 + 1,
        _ => 0,
    };
    assert_eq!(r.reason, want_reason, "{ctx}: reason (model {:?})", m.verdict);
    assert_eq!(r.icrc_chk, rec.icrc_ok.is_some(), "{ctx}: icrc_ok null");
    assert_eq!(r.eth_dst, mac_u64(&rec.eth_dst), "{ctx}: eth_dst");
    assert_eq!(r.eth_src, mac_u64(&rec.eth_src), "{ctx}: eth_src");
    assert_eq!(r.vlan_ok.then_some(r.vlan as u16), rec.vlan, "{ctx}: vlan");
    assert_eq!(if r.v6 { 6 } else { 4 }, rec.ip_version, "{ctx}: ip_version");
    assert_eq!(r.ip_src, ip_u128(&rec.ip_src), "{ctx}: ip_src");
    assert_eq!(r.ip_dst, ip_u128(&rec.ip_dst), "{ctx}: ip_dst");
    assert_eq!(r.dscp, rec.ip_dscp as u64, "{ctx}: dscp");
    assert_eq!(r.ecn, rec.ip_ecn as u64, "{ctx}: ecn");
    assert_eq!(r.ttl, rec.ip_ttl as u64, "{ctx}: ttl");
    assert_eq!(r.sport, rec.udp_sport as u64, "{ctx}: sport");
    assert_eq!(r.dport, rec.udp_dport as u64, "{ctx}: dport");
    assert_eq!(r.bth_ok, rec.bth.is_some(), "{ctx}: bth present");
    if let Some(t) = rec.bth {
        assert_eq!(
            (r.opcode, r.se, r.m, r.padcnt, r.tver, r.pkey, r.fecn, r.becn, r.dqpn, r.ackreq, r.psn),
            (
                t.opcode as u64,
                t.se,
                t.m,
                t.padcnt as u64,
                t.tver as u64,
                t.pkey as u64,
                t.fecn,
                t.becn,
                t.dqpn as u64,
                t.ackreq,
                t.psn as u64
            ),
            "{ctx}: BTH"
        );
    }
    assert_eq!(
        r.reth_ok.then_some((r.va, r.rkey, r.dmalen)),
        rec.reth.map(|e| (e.va, e.r_key as u64, e.dma_len as u64)),
        "{ctx}: RETH"
    );
    assert_eq!(r.immdt_ok.then_some(r.immdt), rec.immdt.map(|e| e.imm as u64), "{ctx}: ImmDt");
    assert_eq!(
        r.aeth_ok.then_some((r.syndrome, r.msn)),
        rec.aeth.map(|e| (e.syndrome as u64, e.msn as u64)),
        "{ctx}: AETH"
    );
    assert_eq!(r.pay_len, rec.payload_len as u64, "{ctx}: payload_len");
    if r.hfail {
        assert!(m.payload.is_empty(), "{ctx}: header check failed but the model delivers bytes");
    } else {
        let (o, n) = (r.pay_off as usize, r.pay_len as usize);
        assert!(o + n <= f.len(), "{ctx}: payload region outside the frame");
        assert_eq!(&f[o..o + n], &m.payload[..], "{ctx}: payload offset");
    }
    m.verdict
}

/// Valid frames of several layouts with `op` written in their BTH (the rest unchanged).
fn opcode_sweep() -> Vec<Vec<u8>> {
    let bases: Vec<Vec<u8>> = crafted()
        .into_iter()
        .filter(|c| c.name.starts_with("accept/") && c.expect.verdict == RxVerdict::Accept)
        .map(|c| c.frame)
        .filter(|f| f.len() < 600)
        .step_by(7)
        .take(8)
        .collect();
    assert!(bases.len() >= 4, "crafted accept frames for the opcode sweep");
    let mut out = Vec::new();
    for f in &bases {
        let bth = classify(f).expect("RoCEv2").bth();
        for op in 0..=255u8 {
            let mut g = f.clone();
            g[bth] = op;
            out.push(g);
        }
    }
    out
}

/// Every prefix (from 30 bytes to the end of the largest extension header) of valid frames
/// whose opcodes carry RETH, ImmDt, AETH, AtomicETH, DETH or the CNP bytes.
fn header_prefixes() -> Vec<Vec<u8>> {
    let mut seen = std::collections::HashSet::new();
    let mut out = Vec::new();
    for c in crafted() {
        if !(c.name.starts_with("accept/") && c.expect.verdict == RxVerdict::Accept) {
            continue;
        }
        let f = &c.frame;
        let lay = classify(f).unwrap();
        let op = f[lay.bth()];
        if !seen.insert((op, lay.v6, lay.l2)) || ![0x0B, 0x0C, 0x11, 0x13, 0x65, 0x81, 0x23].contains(&op) {
            continue;
        }
        for n in 30..=f.len().min(lay.bth() + 12 + 28 + 8) {
            out.push(f[..n].to_vec());
        }
    }
    out
}

fn run_width(width: usize) {
    let mut dut = Dut::new(width);
    let mut counts = std::collections::BTreeMap::<String, usize>::new();
    let mut tally = |v: RxVerdict, r: &Rec| {
        let k = match v {
            RxVerdict::Drop(r) => format!("drop/{}", r.name()),
            v => v.name().to_string(),
        };
        *counts.entry(k).or_default() += 1;
        if v != RxVerdict::Pass {
            for (k, on) in [
                ("field/reth", r.reth_ok),
                ("field/immdt", r.immdt_ok),
                ("field/aeth", r.aeth_ok),
                ("field/no_bth", !r.bth_ok),
                ("field/vlan", r.vlan_ok),
                ("field/v6", r.v6),
                ("field/hfail", r.hfail),
                ("field/payload", r.pay_len > 0),
            ] {
                if on {
                    *counts.entry(k.to_string()).or_default() += 1;
                }
            }
        }
    };

    let sets: Vec<(&str, Vec<Vec<u8>>, u32)> = vec![
        (
            "crafted",
            crafted().into_iter().map(|c| c.frame).filter(|f| !f.is_empty()).collect(),
            30,
        ),
        ("random", random_frames(0x5EED ^ width as u64, 6000), 25),
        ("opcode sweep", opcode_sweep(), 10),
        ("prefix", header_prefixes(), 0),
        ("random back-to-back", random_frames(0xB2B ^ width as u64, 1500), 0),
    ];
    let mut total = 0;
    for (k, (what, frames, idle)) in sets.iter().enumerate() {
        let got = dut.run(frames, *idle, 77 + k as u64 + width as u64);
        assert!(frames.iter().all(|f| !f.is_empty()));
        for (i, (f, (r, last))) in frames.iter().zip(&got).enumerate() {
            tally(check(width, what, i, f, r, *last), r);
        }
        total += frames.len();
    }
    // A frame cut by reset after 1..3 beats, then the crafted set again.
    let again: Vec<Vec<u8>> = crafted().into_iter().map(|c| c.frame).filter(|f| !f.is_empty()).take(200).collect();
    for cut in 1..=3 {
        let long = again
            .iter()
            .find(|f| f.len() > 4 * width / 8)
            .expect("a frame of more than 4 beats");
        dut.abort_with_reset(long, cut);
        let got = dut.run(&again, 20, cut as u64);
        for (i, (f, (r, last))) in again.iter().zip(&got).enumerate() {
            tally(check(width, "after reset", i, f, r, *last), r);
        }
        total += again.len();
    }
    eprintln!("{width} bits: {total} frames, {counts:?}");
    // The mix must exercise every outcome the block decides.
    assert!(counts.get("accept").copied().unwrap_or(0) > 1000 && counts.get("pass").copied().unwrap_or(0) > 200);
    for k in [
        "field/reth",
        "field/immdt",
        "field/aeth",
        "field/no_bth",
        "field/vlan",
        "field/v6",
        "field/hfail",
        "field/payload",
    ] {
        assert!(counts.get(k).copied().unwrap_or(0) >= 100, "{width} bits: too few records with {k}");
    }
    for r in DropReason::ALL {
        assert!(
            counts.get(&format!("drop/{}", r.name())).copied().unwrap_or(0) >= 20,
            "{width} bits: too few drops for {}",
            r.name()
        );
    }
}

#[test]
fn rx_header_w64() {
    run_width(64);
}

#[test]
fn rx_header_w128() {
    run_width(128);
}

#[test]
fn rx_header_w256() {
    run_width(256);
}

#[test]
fn rx_header_w512() {
    run_width(512);
}

#[test]
fn rx_header_w1024() {
    run_width(1024);
}
