//! The scheduler build's Verilator model (`ferroce_serial_sched_n64_q5`: the QoS scheduler, its
//! register file and the serial bridge, the Alchitry Cu's design) driven from Rust, a software
//! UART on each of its lines. [`crate::serial_rtl::serve_pty`] puts it behind a
//! pseudo-terminal (`ferroce-sim serve --top serial_sched --serial PATH`), so that
//! `ferroce-ctl --device serial:PATH` reaches it as it would the board.

use crate::serial_rtl::{LineDecoder, LineDriver, SerialDevice};
use crate::verilated::{Model, SimError};

/// The Verilator model.
pub const MODEL: &str = "ferroce_serial_sched_n64_q5";
/// Its nodes (log2) and queues.
pub const NODE_BITS: u32 = 6;
/// Its queues.
pub const QUEUES: u32 = 5;

/// The scheduler build with a UART on each line.
pub struct SerialSchedRtl {
    m: Model,
    rx: usize,
    tx: usize,
    leds: usize,
    /// The host's line into the design.
    pub driver: LineDriver,
    /// The design's line to the host.
    pub decoder: LineDecoder,
    cycle: u64,
}

impl SerialSchedRtl {
    /// The design at `clocks_per_bit` (at least 4), reset.
    pub fn new(clocks_per_bit: u32) -> Result<SerialSchedRtl, SimError> {
        let mut m = Model::new(MODEL)?;
        let (rx, tx, leds, divider) = (m.port("rx")?, m.port("tx")?, m.port("leds")?, m.port("clocks_per_bit")?);
        m.set_u64(divider, u64::from(clocks_per_bit));
        m.set_u64(rx, 1);
        m.reset(4);
        Ok(SerialSchedRtl {
            m,
            rx,
            tx,
            leds,
            driver: LineDriver::new(clocks_per_bit),
            decoder: LineDecoder::new(clocks_per_bit),
            cycle: 0,
        })
    }

    /// Cycles run since reset.
    pub fn cycle(&self) -> u64 {
        self.cycle
    }

    /// The LEDs.
    pub fn leds(&mut self) -> u8 {
        self.m.eval();
        self.m.peek_u64(self.leds) as u8
    }

    /// One clock cycle.
    pub fn step(&mut self) {
        let level = self.driver.next_level();
        self.m.set_u64(self.rx, u64::from(level));
        self.m.eval();
        let tx = self.m.peek_u64(self.tx) != 0;
        self.m.tick();
        self.cycle += 1;
        self.decoder.sample(tx);
    }

    /// Runs until the line into the design is idle and nothing comes back, then `quiet` more
    /// cycles of that (at most `budget` cycles in all).
    pub fn run_until_quiet(&mut self, quiet: u64, budget: u64) -> Result<(), String> {
        let (start, mut calm) = (self.cycle, 0);
        while calm < quiet {
            self.step();
            let active = self.driver.queued() > 0 || self.decoder.busy();
            calm = if active { 0 } else { calm + 1 };
            if self.cycle - start > budget {
                return Err(format!("the scheduler build was still busy after {budget} cycles"));
            }
        }
        Ok(())
    }
}

impl SerialDevice for SerialSchedRtl {
    fn driver(&mut self) -> &mut LineDriver {
        &mut self.driver
    }

    fn decoder(&mut self) -> &mut LineDecoder {
        &mut self.decoder
    }

    fn step_cycle(&mut self) -> Result<(), String> {
        self.step();
        Ok(())
    }

    fn busy(&self) -> bool {
        false
    }
}
