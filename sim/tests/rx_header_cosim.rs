//! Co-simulation of `RxHeader` (`hdl/src/rx/header.rs`, Verilator) against the software model
//! `ferroce_sim::rx::rx_model`, at every bus width (64–1024 bits): for every frame, the record comes out
//! exactly `HEADER_RECORD_LATENCY` (6) cycles after the last beat, in order, and carries the model's classification, the
//! drop reason when it is not `icrc`, whether `icrc_ok` is null, and every header record field
//! (BTH, RETH, ImmDt, AETH with their presence), the payload length and (when something is
//! delivered) the payload offset. Frames: the crafted set, a seeded random mix
//! (`rx::craft::random_frames`), every opcode on valid frames of several layouts, and every
//! prefix of the headers of valid frames; random idle cycles between beats.

use ferroce_sim::axis::{pack_beat, value, AxisPorts, Channel, FrameSource, Taken};
use ferroce_sim::contracts::rx::{record, RecordField};
use ferroce_sim::rx::craft::{crafted, random_frames};
use ferroce_sim::rx::{classify, rx_model, DropReason, RxVerdict};
use ferroce_sim::rx_rtl::RtlRecord;
use ferroce_sim::verilated::Model;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

/// Cycles from the cycle that takes a frame's last beat to the cycle its record is valid.
const LATENCY: u64 = ferroce_sim::contracts::rx::HEADER_RECORD_LATENCY as u64;

/// The schema fields `RxHeader` carries on its `h_*` ports.
fn schema_fields() -> Vec<RecordField> {
    [record::REASON, record::ICRC_CHK]
        .into_iter()
        .chain(record::HEADER)
        .chain([record::PAY_LEN, record::FINAL])
        .collect()
}

/// `RxHeader`'s own record ports (its interface with `RxFront`), after the schema fields.
const OWN_PORTS: [&str; 5] = ["h_pass", "h_hfail", "h_pay_off", "h_pay_end", "h_first"];

/// A record as read from the `h_*` ports.
#[derive(Debug, Clone)]
struct HeaderRecord {
    /// The schema fields (`reason`: every reason but `icrc`; `icrc_chk`: the ICRC will be
    /// checked; `final`).
    fields: RtlRecord,
    /// Not RoCEv2 (pass-through).
    pass: bool,
    /// A header check failed.
    hfail: bool,
    /// Payload region in the frame.
    pay_off: usize,
    pay_end: usize,
    /// Decoded at the beat that completes the header capture.
    first: bool,
}

impl HeaderRecord {
    fn from_ports(cycle: u64, ports: &[Vec<u32>]) -> HeaderRecord {
        let schema = schema_fields();
        let values: Vec<u128> = ports.iter().map(|w| value(w)).collect();
        let own = &values[schema.len()..];
        HeaderRecord {
            fields: RtlRecord::from_fields(cycle, |f| schema.iter().position(|&g| g == f).map_or(0, |i| values[i])),
            pass: own[0] != 0,
            hfail: own[1] != 0,
            pay_off: own[2] as usize,
            pay_end: own[3] as usize,
            first: own[4] != 0,
        }
    }
}

struct Dut {
    m: Model,
    width: usize,
    input: AxisPorts,
    records: Channel,
    cycle: u64,
}

/// What [`Dut::run`] saw of one frame.
struct FrameOut {
    /// The final record.
    record: HeaderRecord,
    /// The cycle the frame's last beat was taken.
    last_cycle: u64,
}

impl Dut {
    fn new(width: usize) -> Dut {
        let mut m = Model::new(&format!("ferroce_rx_header_w{width}")).expect("model built (FERROCE_SIM_TOPS must include rx_header)");
        let names: Vec<String> = schema_fields()
            .iter()
            .map(|f| format!("{}{}", record::HEADER_PREFIX, f.name))
            .chain(OWN_PORTS.iter().map(|p| p.to_string()))
            .collect();
        let ports: Vec<&str> = names.iter().map(String::as_str).collect();
        let records = Channel::new(&m, "record (h_*)", "h_valid", None, &ports, 0).unwrap();
        let input = AxisPorts::find(&m, "s_axis").unwrap();
        let ce = m.port("ce").unwrap();
        m.set_u64(ce, 1);
        m.reset(2);
        assert_eq!(m.get_u64(input.ready), 1, "always ready");
        Dut {
            m,
            width,
            input,
            records,
            cycle: 0,
        }
    }

    /// One cycle: the source's handshake and the record valid in it.
    fn cycle(&mut self, source: Option<(&mut FrameSource, &mut ChaCha8Rng)>) -> (Option<Taken>, Option<HeaderRecord>) {
        let mut taken = None;
        match source {
            Some((s, rng)) => {
                s.drive(&mut self.m, rng);
                self.m.eval();
                taken = s.sample(&mut self.m, self.cycle);
            }
            None => self.m.eval(),
        }
        let record = self
            .records
            .sample(&mut self.m, self.cycle)
            .unwrap()
            .map(|p| HeaderRecord::from_ports(self.cycle, &p));
        self.m.tick();
        self.cycle += 1;
        (taken, record)
    }

    /// Sends the frames (idle cycles drawn with probability `idle_pct` before every beat) and
    /// returns, per frame, its final record and the cycle its last beat was taken. Frames longer
    /// than the 128 captured bytes also get a first record 3 cycles after the beat that
    /// completes the capture, which already fixes everything but the length checks.
    fn run(&mut self, frames: &[Vec<u8>], idle_pct: u32, seed: u64) -> Vec<FrameOut> {
        let rng = &mut ChaCha8Rng::seed_from_u64(seed);
        let mut source = FrameSource::new(self.input, frames, idle_pct).unwrap();
        let capture_beat = (128 / self.input.bytes_per_beat).max(1) - 1;
        let (mut finals, mut early, mut capture_cycles) = (Vec::new(), Vec::new(), Vec::new());
        let mut collect = |r: Option<HeaderRecord>| match r {
            Some(r) if r.fields.fin => finals.push(r),
            Some(r) => {
                assert!(r.first, "a record that is neither first nor final");
                early.push(r);
            }
            None => {}
        };
        while !source.done() {
            let (taken, r) = self.cycle(Some((&mut source, &mut *rng)));
            if taken.is_some_and(|t| t.beat == capture_beat && frames[t.frame].len() > 128) {
                capture_cycles.push(self.cycle - 1);
            }
            collect(r);
        }
        for _ in 0..8 {
            let (_, r) = self.cycle(Some((&mut source, &mut *rng)));
            collect(r);
        }
        assert_eq!(finals.len(), frames.len(), "{} bits: one final record per frame", self.width);
        let long: Vec<usize> = (0..frames.len()).filter(|&i| frames[i].len() > 128).collect();
        assert_eq!(
            early.len(),
            long.len(),
            "{} bits: one first record per frame longer than the capture",
            self.width
        );
        for ((&i, e), &c) in long.iter().zip(&early).zip(&capture_cycles) {
            let r = &finals[i];
            let ctx = format!("{} bits, frame {i} ({} bytes)", self.width, frames[i].len());
            assert!(!r.first, "{ctx}: the final record of a long frame is not its first");
            assert_eq!(e.fields.cycle, c + LATENCY, "{ctx}: first record latency");
            assert_eq!(e.pass, r.pass, "{ctx}: first record pass");
            if !r.pass {
                assert_eq!(
                    (e.hfail, e.pay_off, e.pay_end),
                    (r.hfail, r.pay_off, r.pay_end),
                    "{ctx}: first record"
                );
                assert_eq!(e.fields.header_fields(), r.fields.header_fields(), "{ctx}: first record fields");
            }
        }
        for (f, r) in frames.iter().zip(&finals) {
            assert_eq!(
                r.first,
                f.len() <= 128,
                "{} bits, {} bytes: first flag of the final record",
                self.width,
                f.len()
            );
        }
        finals
            .into_iter()
            .zip(source.last_cycles)
            .map(|(record, last_cycle)| FrameOut { record, last_cycle })
            .collect()
    }

    /// Sends the first `beats` beats of `f` without `tlast`, then pulses `reset`: the partial
    /// frame must leave no record and no trace in the next frame.
    fn abort_with_reset(&mut self, f: &[u8], beats: usize) {
        let bytes = self.input.bytes_per_beat;
        for chunk in f.chunks(bytes).take(beats) {
            let (data, keep) = pack_beat(chunk, bytes);
            self.m.set_u64(self.input.valid, 1);
            self.m.set(self.input.data, &data);
            self.m.set(self.input.keep, &keep);
            self.m.set_u64(self.input.last, 0);
            let (_, r) = self.cycle(None);
            assert!(r.is_none(), "{} bits: a record for a frame without its last beat", self.width);
        }
        self.m.set_u64(self.input.valid, 0);
        self.m.reset(2);
        self.cycle += 2;
        for _ in 0..8 {
            let (_, r) = self.cycle(None);
            assert!(r.is_none(), "{} bits: a record after an aborted frame", self.width);
        }
    }
}

/// Compares one frame's final record with the model; returns the model's verdict.
fn check(width: usize, what: &str, i: usize, f: &[u8], out: &FrameOut) -> RxVerdict {
    let ctx = format!("{width} bits, {what} frame {i} ({} bytes)", f.len());
    let r = &out.record;
    assert_eq!(r.fields.cycle, out.last_cycle + LATENCY, "{ctx}: latency");
    let m = rx_model(f);
    if m.verdict == RxVerdict::Pass {
        assert!(r.pass, "{ctx}: pass");
        return m.verdict;
    }
    assert!(!r.pass, "{ctx}: RoCEv2, got pass ({:?})", m.verdict);
    // RxHeader decides every reason but the ICRC's (RxFront adds that one).
    let want_reason = match m.verdict {
        RxVerdict::Drop(d) if d != DropReason::Icrc => d.code(),
        _ => 0,
    };
    assert_eq!(r.fields.reason, want_reason, "{ctx}: reason (model {:?})", m.verdict);
    // Every header field, against the model's record. `icrc_chk` says whether the ICRC will be
    // checked (the model's `icrc_ok` is not null); the RTL record does not carry DETH,
    // AtomicETH, AtomicAckETH or IETH.
    let mut want = m.record.unwrap();
    let mut got = r.fields.to_record(&m.payload);
    assert_eq!(got.icrc_ok.is_some(), want.icrc_ok.is_some(), "{ctx}: icrc_ok null");
    (got.icrc_ok, want.icrc_ok) = (None, None);
    (want.deth, want.atomic_eth, want.atomic_ack_eth, want.ieth) = (None, None, None, None);
    assert_eq!(got, want, "{ctx}: header record");
    if r.hfail {
        assert!(m.payload.is_empty(), "{ctx}: header check failed but the model delivers bytes");
    } else {
        let (o, n) = (r.pay_off, r.fields.pay_len);
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
    let mut tally = |v: RxVerdict, out: &FrameOut| {
        let (r, fields) = (&out.record, &out.record.fields);
        let k = match v {
            RxVerdict::Drop(r) => format!("drop/{}", r.name()),
            v => v.name().to_string(),
        };
        *counts.entry(k).or_default() += 1;
        if v != RxVerdict::Pass {
            for (k, on) in [
                ("field/reth", fields.reth_ok),
                ("field/immdt", fields.immdt_ok),
                ("field/aeth", fields.aeth_ok),
                ("field/no_bth", !fields.bth_ok),
                ("field/vlan", fields.vlan_ok),
                ("field/v6", fields.ip_v6),
                ("field/hfail", r.hfail),
                ("field/payload", fields.pay_len > 0),
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
        for (i, (f, out)) in frames.iter().zip(&got).enumerate() {
            tally(check(width, what, i, f, out), out);
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
        for (i, (f, out)) in again.iter().zip(&got).enumerate() {
            tally(check(width, "after reset", i, f, out), out);
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
#[ignore = "RxHeader is co-simulated at 128 bits inside rx_front (rx_front_cosim); its own model is built with FERROCE_SIM_ALL=1"]
fn rx_header_w128() {
    run_width(128);
}

#[test]
#[ignore = "RxHeader is co-simulated at 256 bits inside rx_front (rx_front_cosim); its own model is built with FERROCE_SIM_ALL=1"]
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
