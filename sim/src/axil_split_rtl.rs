//! Runner of the AXI4-Lite split's Verilator model (`ferroce_axil_split_stream`, top
//! `axil_split`), used by its co-simulation (`sim/tests/axil_split_cosim.rs`).
//!
//! [`run`] sends random reads and writes through the split from an AXI4-Lite master (random
//! idle and backpressure, the AXI rules checked); two slave stand-ins answer on its ports after
//! random delays (a read's data a function of its address and port, a write's response
//! SLVERR now and then). Every access must reach the port its address names, with its data and
//! strobes, and every answer come back to the master in request order with that port's data
//! and response.

use crate::models::contracts::regs::{MAX_STREAMS, STREAM_BLOCK, STREAM_STRIDE};
use crate::regs_rtl::{AxiLiteMaster, Request};
use crate::verilated::{Model, SimError, Traffic};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::VecDeque;

/// Cycles without an answer before a run is an error.
pub const PROGRESS_LIMIT: u64 = 2_000;

/// What a run did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SplitRun {
    /// Accesses each port took: (low, high).
    pub accesses: (u64, u64),
    /// Cycles.
    pub cycles: u64,
}

/// The stream block: the high port's window.
pub fn in_window(address: u32) -> bool {
    (STREAM_BLOCK..STREAM_BLOCK + MAX_STREAMS * STREAM_STRIDE).contains(&(address & !3))
}

/// A read's data as the stand-in of a port answers it.
fn data_of(high: bool, address: u32) -> u32 {
    address.rotate_left(7) ^ if high { 0xA5A5_0000 } else { 0x5A5A_0000 }
}

/// A response as the stand-in of a port answers it (SLVERR for some addresses of the high port).
fn response_of(high: bool, address: u32) -> u8 {
    if high && address & 0x10 != 0 {
        2
    } else {
        0
    }
}

/// A slave stand-in on the `m_<side>_axil_*` ports.
struct Slave {
    high: bool,
    aw: VecDeque<u32>,
    w: VecDeque<(u32, u8)>,
    b: VecDeque<(u64, u8)>,
    r: VecDeque<(u64, u32, u8)>,
    /// Writes it took: (address, data, strobes).
    writes: Vec<(u32, u32, u8)>,
    reads: u64,
    ports: Vec<usize>,
}

const SLAVE_PORTS: [&str; 17] = [
    "awvalid", "awready", "awaddr", "wvalid", "wready", "wdata", "wstrb", "bvalid", "bready", "bresp", "arvalid", "arready", "araddr",
    "rvalid", "rready", "rdata", "rresp",
];

impl Slave {
    fn new(m: &Model, high: bool) -> Result<Slave, SimError> {
        let side = if high { "high" } else { "low" };
        let ports = SLAVE_PORTS
            .iter()
            .map(|p| m.port(&format!("m_{side}_axil_{p}")))
            .collect::<Result<_, _>>()?;
        Ok(Slave {
            high,
            aw: VecDeque::new(),
            w: VecDeque::new(),
            b: VecDeque::new(),
            r: VecDeque::new(),
            writes: Vec::new(),
            reads: 0,
            ports,
        })
    }

    fn port(&self, name: &str) -> usize {
        self.ports[SLAVE_PORTS.iter().position(|p| *p == name).expect("slave port")]
    }

    /// This cycle's inputs: readies, the responses due.
    fn drive(&mut self, m: &mut Model, rng: &mut ChaCha8Rng, bp_pct: u32, cycle: u64) -> (bool, bool, bool) {
        let ready = |rng: &mut ChaCha8Rng| rng.gen_range(0..100) >= bp_pct;
        let (aw, w, ar) = (ready(rng), ready(rng), ready(rng));
        m.set_u64(self.port("awready"), u64::from(aw));
        m.set_u64(self.port("wready"), u64::from(w));
        m.set_u64(self.port("arready"), u64::from(ar));
        let b = self.b.front().filter(|b| b.0 <= cycle).copied();
        m.set_u64(self.port("bvalid"), u64::from(b.is_some()));
        m.set_u64(self.port("bresp"), b.map_or(0, |b| u64::from(b.1)));
        let r = self.r.front().filter(|r| r.0 <= cycle).copied();
        m.set_u64(self.port("rvalid"), u64::from(r.is_some()));
        m.set_u64(self.port("rdata"), r.map_or(0, |r| u64::from(r.1)));
        m.set_u64(self.port("rresp"), r.map_or(0, |r| u64::from(r.2)));
        (aw, w, ar)
    }

    /// After the evaluation: the handshakes.
    fn sample(&mut self, m: &mut Model, rng: &mut ChaCha8Rng, readies: (bool, bool, bool), cycle: u64) -> Result<(), String> {
        let side = if self.high { "high" } else { "low" };
        if readies.0 && m.peek_u64(self.port("awvalid")) != 0 {
            self.aw.push_back(m.peek_u64(self.port("awaddr")) as u32);
        }
        if readies.1 && m.peek_u64(self.port("wvalid")) != 0 {
            self.w
                .push_back((m.peek_u64(self.port("wdata")) as u32, m.peek_u64(self.port("wstrb")) as u8));
        }
        if !self.aw.is_empty() && !self.w.is_empty() {
            let address = self.aw.pop_front().expect("AW");
            let (data, strobes) = self.w.pop_front().expect("W");
            if in_window(address) != self.high {
                return Err(format!("cycle {cycle}: a write of {address:#x} on the {side} port"));
            }
            self.writes.push((address, data, strobes));
            self.b.push_back((cycle + rng.gen_range(1..6), response_of(self.high, address)));
        }
        if readies.2 && m.peek_u64(self.port("arvalid")) != 0 {
            let address = m.peek_u64(self.port("araddr")) as u32;
            if in_window(address) != self.high {
                return Err(format!("cycle {cycle}: a read of {address:#x} on the {side} port"));
            }
            self.reads += 1;
            self.r.push_back((
                cycle + rng.gen_range(1..6),
                data_of(self.high, address),
                response_of(self.high, address),
            ));
        }
        if m.peek_u64(self.port("bvalid")) != 0 && m.peek_u64(self.port("bready")) != 0 {
            self.b.pop_front();
        }
        if m.peek_u64(self.port("rvalid")) != 0 && m.peek_u64(self.port("rready")) != 0 {
            self.r.pop_front();
        }
        Ok(())
    }
}

/// Sends `count` random accesses through the split under `traffic`.
pub fn run(count: usize, traffic: &Traffic) -> Result<SplitRun, String> {
    let e = |e: SimError| e.to_string();
    let mut m = Model::new("ferroce_axil_split_stream").map_err(e)?;
    let mut master = AxiLiteMaster::new(&mut m, traffic.idle_pct, traffic.bp_pct).map_err(e)?;
    let mut slaves = [Slave::new(&m, false).map_err(e)?, Slave::new(&m, true).map_err(e)?];
    let mut rng = ChaCha8Rng::seed_from_u64(traffic.seed);
    m.reset(2);
    let mut requests = Vec::new();
    for _ in 0..count {
        let address = match rng.gen_range(0..4) {
            0 => STREAM_BLOCK + rng.gen_range(0..MAX_STREAMS * STREAM_STRIDE / 4) * 4,
            1 => STREAM_BLOCK - 4 * rng.gen_range(1..4),
            2 => STREAM_BLOCK + MAX_STREAMS * STREAM_STRIDE + 4 * rng.gen_range(0..4),
            _ => rng.gen_range(0..(1u32 << 17)) * 4,
        };
        let request = if rng.gen_bool(0.5) {
            Request::write(address, rng.gen(), rng.gen_range(0..16))
        } else {
            Request::read(address)
        };
        requests.push(request);
        master.push(request);
    }
    let (mut cycle, mut last_answer) = (0u64, 0u64);
    while master.outstanding() > 0 {
        master.drive(&mut m, &mut rng);
        let readies: Vec<(bool, bool, bool)> = slaves
            .iter_mut()
            .map(|s| s.drive(&mut m, &mut rng, traffic.bp_pct, cycle))
            .collect();
        m.eval();
        let answered = master.answers.len();
        master.sample(&mut m, cycle).map_err(|e| e.to_string())?;
        for (slave, &r) in slaves.iter_mut().zip(&readies) {
            slave.sample(&mut m, &mut rng, r, cycle)?;
        }
        if master.answers.len() > answered {
            last_answer = cycle;
        }
        m.tick();
        cycle += 1;
        if cycle - last_answer > PROGRESS_LIMIT {
            return Err(format!("cycle {cycle}: no answer ({} outstanding)", master.outstanding()));
        }
    }
    // each answer: the port of its address, that port's data and response
    for answer in &master.answers {
        let r = answer.what;
        let high = in_window(r.address);
        let want_resp = response_of(high, r.address & !3);
        if answer.resp != want_resp {
            return Err(format!(
                "{r:?}: response {}, the {} port answered {want_resp}",
                answer.resp,
                if high { "high" } else { "low" }
            ));
        }
        if !r.write && answer.data != data_of(high, r.address & !3) {
            return Err(format!(
                "{r:?}: data {:#x}, not the {} port's",
                answer.data,
                if high { "high" } else { "low" }
            ));
        }
    }
    // each write reached its port whole, in order
    for (high, slave) in [(false, &slaves[0]), (true, &slaves[1])] {
        let want: Vec<(u32, u32, u8)> = requests
            .iter()
            .filter(|r| r.write && in_window(r.address) == high)
            .map(|r| (r.address, r.data, r.strobes))
            .collect();
        if slave.writes != want {
            return Err(format!(
                "the {} port's writes are not the master's",
                if high { "high" } else { "low" }
            ));
        }
    }
    let accesses = |s: &Slave| s.writes.len() as u64 + s.reads;
    Ok(SplitRun {
        accesses: (accesses(&slaves[0]), accesses(&slaves[1])),
        cycles: cycle,
    })
}
