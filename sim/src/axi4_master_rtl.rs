//! Runner of the AXI4 master's Verilator model (`ferroce_axi4_master_w<W>`, top `axi4_master`,
//! simulated at 64 and 512 bits), used by its co-simulation (`sim/tests/axi4_master_cosim.rs`).
//!
//! [`Axi4MasterRtl`] plays the engine on one side and an AXI4 slave with a memory on the other:
//!
//! ```text
//!  read commands (RecordSource) ─► s_read ┐              ┌─ AR (Channel) ─► slave: R beats after a
//!  read data (FrameSink) ◄──────── m_pay ◄┤              ├─ R ◄──────────   random latency, in order
//!  write commands (RecordSource) ► s_cmd ─┤ axi4_master  ├─ AW (Channel) ─► slave: W beats applied
//!  write data (FrameSource) ─────► s_wr ──┘              ├─ W (Channel)     with their strobes,
//!                                                        └─ B ◄──────────   B after a random latency
//! ```
//!
//! Every valid/ready pair gets random idle or backpressure (`Traffic`), the slave a random
//! latency per burst. The slave checks each burst as it comes: INCR, full-width beats, ID 0,
//! `xCACHE` 0011, inside one block (`contracts::memory::block_bytes`), `WLAST` on exactly the
//! burst's last beat; a burst that starts in an error block answers SLVERR (every R beat, or B).
//!
//! [`expected`] is the reference: the bursts of `contracts::memory::bursts` for every command in
//! order, the read data from the memory as it was, the memory after the writes in order, and the
//! error counts; [`MasterRun::check`] names the first difference.

use crate::axis::{first_difference, pack_beat, AxisPorts, Channel, FrameSink, FrameSource, RecordSource};
use crate::contracts::memory::{block_bytes, bursts, Burst, MAX_BEATS};
use crate::verilated::{Model, Traffic, MODELS};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::VecDeque;
use std::ops::RangeInclusive;

/// Bus widths the model is built at.
pub const WIDTHS: [usize; 2] = [64, 512];
/// Cycles without a handshake anywhere after which a run is an error.
pub const PROGRESS_LIMIT: u64 = 5_000;
/// Cycles the master's outputs must stay quiet after the run.
pub const DRAIN_CYCLES: u64 = 32;
/// A record of a `RecordSource`: its ports' words.
type Record = Vec<Vec<u32>>;
/// `xRESP` of an error block (SLVERR).
const SLVERR: u32 = 2;

/// The model name at a bus width.
pub fn model_name(width: usize) -> String {
    format!("ferroce_axi4_master_w{width}")
}

/// A memory window: `bytes` from address `base`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Window {
    /// Address of the first byte.
    pub base: u64,
    /// The bytes.
    pub bytes: Vec<u8>,
}

impl Window {
    /// Whether `[address, address + length)` is inside.
    pub fn holds(&self, address: u64, length: u64) -> bool {
        address >= self.base && address + length <= self.base + self.bytes.len() as u64
    }

    fn at(&self, address: u64) -> usize {
        (address - self.base) as usize
    }

    /// The bytes of `[address, address + length)`; zeros outside the window.
    pub fn read(&self, address: u64, length: u64) -> Vec<u8> {
        (address..address + length)
            .map(|a| if self.holds(a, 1) { self.bytes[self.at(a)] } else { 0 })
            .collect()
    }

    /// Writes `bytes` at `address` (inside the window).
    pub fn write(&mut self, address: u64, bytes: &[u8]) {
        let at = self.at(address);
        self.bytes[at..at + bytes.len()].copy_from_slice(bytes);
    }
}

/// The slave's behaviour.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Slave {
    /// Cycles from a burst's acceptance (AR) or last W beat to its first R beat or its B.
    pub latency: RangeInclusive<u64>,
    /// Blocks (their base addresses) whose bursts answer SLVERR.
    pub error_blocks: Vec<u64>,
}

impl Slave {
    /// A slave that answers within `latency` cycles and never with an error.
    pub fn with_latency(latency: RangeInclusive<u64>) -> Slave {
        Slave {
            latency,
            error_blocks: Vec::new(),
        }
    }

    fn errs(&self, burst: &Burst, bytes_per_beat: u64) -> bool {
        let block = block_bytes(bytes_per_beat);
        self.error_blocks.contains(&(burst.address / block * block))
    }
}

/// What the master must do ([`expected`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Expected {
    /// The read data, one frame per read command.
    pub frames: Vec<Vec<u8>>,
    /// The AR bursts.
    pub reads: Vec<Burst>,
    /// The AW bursts.
    pub writes: Vec<Burst>,
    /// The memory after the run.
    pub memory: Vec<u8>,
    /// `read_errors`: read commands with a burst in an error block.
    pub read_errors: u32,
    /// `read_error_address`: the last of them.
    pub read_error_address: u64,
    /// `write_errors`: write bursts in an error block.
    pub write_errors: u32,
    /// `write_error_address`: the last of them.
    pub write_error_address: u64,
}

/// What `reads` (address, bytes) and `writes` (address, data) must give on a memory that
/// starts as `memory`, with `slave`, at `bytes_per_beat`; an error when a command is empty,
/// longer than 4096 bytes, outside the window, or a read overlaps a write (their order would
/// then be the slave's choice).
pub fn expected(
    memory: &Window,
    reads: &[(u64, u64)],
    writes: &[(u64, Vec<u8>)],
    slave: &Slave,
    bytes_per_beat: u64,
) -> Result<Expected, String> {
    let check = |what: &str, i: usize, address: u64, length: u64| {
        if !(1..=crate::contracts::memory::MAX_COMMAND).contains(&length) || !memory.holds(address, length) {
            return Err(format!(
                "{what} {i}: {length} bytes at {address:#x}: 1 to 4096 bytes inside the window"
            ));
        }
        Ok(())
    };
    let mut e = Expected::default();
    let mut after = memory.clone();
    for (i, (address, data)) in writes.iter().enumerate() {
        check("write", i, *address, data.len() as u64)?;
        for b in bursts(*address, data.len() as u64, bytes_per_beat) {
            if slave.errs(&b, bytes_per_beat) {
                e.write_errors += 1;
                e.write_error_address = b.address;
            }
            e.writes.push(b);
        }
        after.write(*address, data);
    }
    for (i, &(address, length)) in reads.iter().enumerate() {
        check("read", i, address, length)?;
        if let Some(w) = writes
            .iter()
            .position(|(a, d)| address < a + d.len() as u64 && *a < address + length)
        {
            return Err(format!("read {i} overlaps write {w}"));
        }
        let b = bursts(address, length, bytes_per_beat);
        if b.iter().any(|b| slave.errs(b, bytes_per_beat)) {
            e.read_errors += 1;
            e.read_error_address = address;
        }
        e.reads.extend(b);
        e.frames.push(memory.read(address, length));
    }
    e.memory = after.bytes;
    Ok(e)
}

/// What a run produced.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MasterRun {
    /// The read data frames on `m_pay`.
    pub frames: Vec<Vec<u8>>,
    /// The AR bursts.
    pub reads: Vec<Burst>,
    /// The AW bursts.
    pub writes: Vec<Burst>,
    /// The memory after the run.
    pub memory: Vec<u8>,
    /// The counters and addresses: `read_errors`, `read_error_address`, `write_errors`,
    /// `write_error_address`.
    pub errors: (u32, u64, u32, u64),
    /// Cycles of the run.
    pub cycles: u64,
    /// R beats and W beats.
    pub beats: (u64, u64),
}

impl MasterRun {
    /// Compares with `want`; the error names the first difference.
    pub fn check(&self, want: &Expected) -> Result<(), String> {
        for (what, got, want) in [("AR", &self.reads, &want.reads), ("AW", &self.writes, &want.writes)] {
            if let Some(i) = (0..got.len().min(want.len())).find(|&i| got[i] != want[i]) {
                return Err(format!("{what} burst {i}: rtl {:x?}, expected {:x?}", got[i], want[i]));
            }
            if got.len() != want.len() {
                return Err(format!("{} {what} bursts, expected {}", got.len(), want.len()));
            }
        }
        for (i, (got, want)) in self.frames.iter().zip(&want.frames).enumerate() {
            if got != want {
                return Err(format!(
                    "read {i}: {} bytes, expected {}{}",
                    got.len(),
                    want.len(),
                    first_difference(got, want)
                ));
            }
        }
        if self.frames.len() != want.frames.len() {
            return Err(format!("{} read frames, expected {}", self.frames.len(), want.frames.len()));
        }
        if self.memory != want.memory {
            return Err(format!("memory after the writes{}", first_difference(&self.memory, &want.memory)));
        }
        let errors = (
            want.read_errors,
            want.read_error_address,
            want.write_errors,
            want.write_error_address,
        );
        if self.errors != errors {
            return Err(format!("error counters and addresses {:x?}, expected {errors:x?}", self.errors));
        }
        Ok(())
    }
}

/// A burst the slave took and has not finished.
struct Pending {
    burst: Burst,
    /// Cycle from which its R beats (or its B) may go.
    due: u64,
    error: bool,
}

struct Ports {
    reset: usize,
    errors: [usize; 4],
}

/// The master's Verilator model and its cycle count.
pub struct Axi4MasterRtl {
    m: Model,
    p: Ports,
    width: usize,
    cycle: u64,
}

impl Axi4MasterRtl {
    /// Instantiates `ferroce_axi4_master_w<width>` and resets it.
    pub fn new(width: usize) -> Result<Axi4MasterRtl, String> {
        let name = model_name(width);
        let m = Model::new(&name).map_err(|_| {
            format!(
                "the AXI4 master RTL model {name} is not built into this binary (built: {}); rebuild ferroce-sim with \
                 axi4_master in FERROCE_SIM_TOPS (or unset it)",
                if MODELS.is_empty() { "none".to_string() } else { MODELS.join(", ") }
            )
        })?;
        let port = |n: &str| m.port(n).map_err(|e| e.to_string());
        let p = Ports {
            reset: port("reset")?,
            errors: [
                port("read_errors")?,
                port("read_error_address")?,
                port("write_errors")?,
                port("write_error_address")?,
            ],
        };
        let mut dut = Axi4MasterRtl { m, p, width, cycle: 0 };
        dut.reset();
        Ok(dut)
    }

    /// Bus width in bits.
    pub fn width(&self) -> usize {
        self.width
    }

    /// The underlying model (to trace it, for example).
    pub fn model(&mut self) -> &mut Model {
        &mut self.m
    }

    /// Every valid input low, `reset` high for two cycles: the master forgets its commands and
    /// clears its error counters.
    pub fn reset(&mut self) {
        for n in ["s_read_valid", "s_cmd_valid", "s_wr_tvalid", "m_axi_rvalid", "m_axi_bvalid"] {
            let i = self.m.port(n).expect("checked port");
            self.m.set_u64(i, 0);
        }
        for n in ["m_pay_tready", "m_axi_arready", "m_axi_awready", "m_axi_wready"] {
            let i = self.m.port(n).expect("checked port");
            self.m.set_u64(i, 1);
        }
        self.m.set_u64(self.p.reset, 1);
        self.m.step(2);
        self.m.set_u64(self.p.reset, 0);
        self.cycle += 2;
    }

    fn error_ports(&mut self) -> (u32, u64, u32, u64) {
        self.m.eval();
        let [a, b, c, d] = self.p.errors;
        (
            self.m.peek_u64(a) as u32,
            self.m.peek_u64(b),
            self.m.peek_u64(c) as u32,
            self.m.peek_u64(d),
        )
    }

    /// Runs `reads` and `writes` (see [`expected`]) against a slave holding `memory`, until every
    /// read frame is out and every write burst answered, then checks that AR, AW, W and `m_pay`
    /// stay quiet for [`DRAIN_CYCLES`]. The error counters are those of the run (the master is
    /// reset first).
    pub fn run(
        &mut self,
        memory: &Window,
        reads: &[(u64, u64)],
        writes: &[(u64, Vec<u8>)],
        slave: &Slave,
        traffic: Traffic,
    ) -> Result<MasterRun, String> {
        let bytes = (self.width / 8) as u64;
        let want = expected(memory, reads, writes, slave, bytes)?;
        self.reset();
        let name = self.m.name().to_string();
        let rng = &mut ChaCha8Rng::seed_from_u64(traffic.seed);
        let e = |e: crate::verilated::SimError| e.to_string();
        let two = |v: u64| vec![v as u32, (v >> 32) as u32];
        let read_records: Vec<Record> = reads.iter().map(|&(a, l)| vec![two(a), vec![l as u32]]).collect();
        let write_records: Vec<Record> = writes.iter().map(|(a, d)| vec![two(*a), vec![d.len() as u32]]).collect();
        let write_data: Vec<Vec<u8>> = writes.iter().map(|(_, d)| d.clone()).collect();
        let mut read_commands = RecordSource::new(
            &self.m,
            "s_read_valid",
            "s_read_ready",
            &["s_read_addr", "s_read_len"],
            traffic.idle_pct,
        )
        .map_err(e)?;
        let mut write_commands = RecordSource::new(
            &self.m,
            "s_cmd_valid",
            "s_cmd_ready",
            &["s_cmd_address", "s_cmd_length"],
            traffic.idle_pct,
        )
        .map_err(e)?;
        let mut data_in = FrameSource::new(AxisPorts::find(&self.m, "s_wr").map_err(e)?, &write_data, traffic.idle_pct).map_err(e)?;
        let mut data_out = FrameSink::new(&self.m, "m_pay", &[], traffic.bp_pct).map_err(e)?;
        let address_fields = ["addr", "len", "size", "burst", "id", "cache", "prot"];
        let names = |c: &str| address_fields.iter().map(|f| format!("m_axi_{c}{f}")).collect::<Vec<String>>();
        let (ar_names, aw_names) = (names("ar"), names("aw"));
        let ar_refs: Vec<&str> = ar_names.iter().map(String::as_str).collect();
        let aw_refs: Vec<&str> = aw_names.iter().map(String::as_str).collect();
        let mut ar = Channel::new(&self.m, "AR", "m_axi_arvalid", Some("m_axi_arready"), &ar_refs, traffic.bp_pct).map_err(e)?;
        let mut aw = Channel::new(&self.m, "AW", "m_axi_awvalid", Some("m_axi_awready"), &aw_refs, traffic.bp_pct).map_err(e)?;
        let mut w = Channel::new(
            &self.m,
            "W",
            "m_axi_wvalid",
            Some("m_axi_wready"),
            &["m_axi_wdata", "m_axi_wstrb", "m_axi_wlast"],
            traffic.bp_pct,
        )
        .map_err(e)?;
        let mut r = RecordSource::new(
            &self.m,
            "m_axi_rvalid",
            "m_axi_rready",
            &["m_axi_rdata", "m_axi_rresp", "m_axi_rlast", "m_axi_rid"],
            traffic.idle_pct,
        )
        .map_err(e)?;
        let mut b = RecordSource::new(
            &self.m,
            "m_axi_bvalid",
            "m_axi_bready",
            &["m_axi_bresp", "m_axi_bid"],
            traffic.idle_pct,
        )
        .map_err(e)?;

        let mut run = MasterRun::default();
        let mut image = memory.clone();
        let (mut r_records, mut b_records): (Vec<Record>, Vec<Record>) = (Vec::new(), Vec::new());
        let (mut reading, mut awaiting_data, mut answering) =
            (VecDeque::<Pending>::new(), VecDeque::<Pending>::new(), VecDeque::<Pending>::new());
        let mut w_beats: VecDeque<Record> = VecDeque::new();
        let mut w_beat_in_burst = 0u64;
        let start = self.cycle;
        let mut last_progress = start;
        let block = block_bytes(bytes);
        let address_check = |what: &str, words: &[Vec<u32>], cycle: u64| -> Result<Burst, String> {
            let address = u64::from(words[0][0]) | u64::from(words[0][1]) << 32;
            let burst = Burst {
                address,
                beats: u64::from(words[1][0]) + 1,
            };
            let fixed = [words[2][0], words[3][0], words[4][0], words[5][0], words[6][0]];
            let want = [bytes.trailing_zeros(), 1, 0, 0b0011, 0];
            if fixed != want
                || address % bytes != 0
                || burst.beats > MAX_BEATS
                || address / block != (address + burst.beats * bytes - 1) / block
            {
                return Err(format!(
                    "{name}: cycle {cycle}: {what} burst {burst:x?} with size, burst, id, cache, prot {fixed:?} (expected {want:?}): \
                     not full-width INCR beats inside one {block}-byte block"
                ));
            }
            Ok(burst)
        };
        loop {
            let cycle = self.cycle - start;
            let done = read_commands.next() == reads.len()
                && write_commands.next() == writes.len()
                && data_in.done()
                && data_out.frames.len() == reads.len()
                && run.writes.len() == want.writes.len()
                && b.next() == want.writes.len();
            if done {
                break;
            }
            if self.cycle - last_progress > PROGRESS_LIMIT {
                return Err(format!(
                    "{name}: no handshake for {PROGRESS_LIMIT} cycles (cycle {cycle}): read commands {} of {}, write commands {} of {}, \
                     write data frame {} of {}, read frames {} of {}, AR {} of {}, AW {} of {}, B {} of {}",
                    read_commands.next(),
                    reads.len(),
                    write_commands.next(),
                    writes.len(),
                    data_in.frame(),
                    writes.len(),
                    data_out.frames.len(),
                    reads.len(),
                    run.reads.len(),
                    want.reads.len(),
                    run.writes.len(),
                    want.writes.len(),
                    b.next(),
                    want.writes.len()
                ));
            }
            // the slave's answers that are due
            while reading.front().is_some_and(|p| p.due <= cycle) {
                let p = reading.pop_front().expect("front");
                for beat in 0..p.burst.beats {
                    let at = p.burst.address + beat * bytes;
                    let (data, _) = pack_beat(&image.read(at, bytes), bytes as usize);
                    let resp = if p.error { SLVERR } else { 0 };
                    r_records.push(vec![data, vec![resp], vec![u32::from(beat + 1 == p.burst.beats)], vec![0]]);
                }
            }
            while answering.front().is_some_and(|p| p.due <= cycle) {
                let p = answering.pop_front().expect("front");
                b_records.push(vec![vec![if p.error { SLVERR } else { 0 }], vec![0]]);
            }
            read_commands.drive(&mut self.m, rng, &read_records);
            write_commands.drive(&mut self.m, rng, &write_records);
            data_in.drive(&mut self.m, rng);
            data_out.drive(&mut self.m, rng);
            ar.drive(&mut self.m, rng);
            aw.drive(&mut self.m, rng);
            w.drive(&mut self.m, rng);
            r.drive(&mut self.m, rng, &r_records);
            b.drive(&mut self.m, rng, &b_records);
            self.m.eval();
            let mut progress = read_commands.sample(&mut self.m, cycle).is_some() | write_commands.sample(&mut self.m, cycle).is_some();
            progress |= data_in.sample(&mut self.m, cycle).is_some();
            progress |= data_out.sample(&mut self.m, cycle).map_err(e)?;
            progress |= r.sample(&mut self.m, cycle).is_some();
            progress |= b.sample(&mut self.m, cycle).is_some();
            if let Some(words) = ar.sample(&mut self.m, cycle).map_err(e)? {
                let burst = address_check("AR", &words, cycle)?;
                run.reads.push(burst);
                let due = cycle + rng.gen_range(slave.latency.clone());
                reading.push_back(Pending {
                    burst,
                    due,
                    error: slave.errs(&burst, bytes),
                });
                progress = true;
            }
            if let Some(words) = aw.sample(&mut self.m, cycle).map_err(e)? {
                let burst = address_check("AW", &words, cycle)?;
                run.writes.push(burst);
                awaiting_data.push_back(Pending {
                    burst,
                    due: 0,
                    error: slave.errs(&burst, bytes),
                });
                progress = true;
            }
            if let Some(words) = w.sample(&mut self.m, cycle).map_err(e)? {
                w_beats.push_back(words);
                progress = true;
            }
            // W beats land once their burst's address is known (W may come before AW)
            while let (Some(p), Some(_)) = (awaiting_data.front(), w_beats.front()) {
                let words = w_beats.pop_front().expect("front");
                let at = p.burst.address + w_beat_in_burst * bytes;
                let last = words[2][0] & 1 != 0;
                if last != (w_beat_in_burst + 1 == p.burst.beats) {
                    return Err(format!(
                        "{name}: cycle {cycle}: W beat {w_beat_in_burst} of the burst {:x?} has WLAST {}",
                        p.burst,
                        u8::from(last)
                    ));
                }
                for lane in 0..bytes as usize {
                    if (words[1][lane / 32] >> (lane % 32)) & 1 != 0 {
                        let a = at + lane as u64;
                        if !image.holds(a, 1) {
                            return Err(format!("{name}: cycle {cycle}: W strobe for {a:#x}, outside the memory"));
                        }
                        image.write(a, &[(words[0][lane / 4] >> (8 * (lane % 4))) as u8]);
                    }
                }
                w_beat_in_burst += 1;
                run.beats.1 += 1;
                if last {
                    w_beat_in_burst = 0;
                    let mut p = awaiting_data.pop_front().expect("front");
                    p.due = cycle + rng.gen_range(slave.latency.clone());
                    answering.push_back(p);
                }
            }
            if progress {
                last_progress = self.cycle;
            }
            self.m.tick();
            self.cycle += 1;
        }
        run.cycles = self.cycle - start;
        run.beats.0 = r.taken;
        // nothing more comes out
        for n in ["s_read_valid", "s_cmd_valid", "s_wr_tvalid", "m_axi_rvalid", "m_axi_bvalid"] {
            let i = self.m.port(n).expect("checked port");
            self.m.set_u64(i, 0);
        }
        for _ in 0..DRAIN_CYCLES {
            self.m.eval();
            for (what, valid) in [
                ("AR", ar.valid(&mut self.m)),
                ("AW", aw.valid(&mut self.m)),
                ("W", w.valid(&mut self.m)),
                ("m_pay", data_out.valid(&mut self.m)),
            ] {
                if valid {
                    return Err(format!("{name}: {what} valid after the run"));
                }
            }
            self.m.tick();
            self.cycle += 1;
        }
        run.frames = data_out.frames.iter().map(|f| f.bytes.clone()).collect();
        run.memory = image.bytes;
        run.errors = self.error_ports();
        Ok(run)
    }
}
