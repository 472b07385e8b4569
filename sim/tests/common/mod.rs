//! What several co-simulations share (each test that includes this module uses part of it).
#![allow(dead_code)]

use ferroce_ctl::{Bus, Cause, Error, Region};
use ferroce_sim::engine_rtl::{EngineHost, EngineLoop};
use ferroce_sim::models::responder::MemoryRegion;
use ferroce_sim::regs_rtl::Request;
use std::cell::RefCell;
use std::rc::Rc;

/// A unit's AXI4-Lite port as `ferroce-ctl` sees a device: its host functions (`ferroce_ctl`)
/// run against the Verilog.
pub struct HostBus<H: EngineHost>(pub H);

impl<H: EngineHost> Bus for HostBus<H> {
    fn name(&self) -> &str {
        "sim"
    }

    fn read32(&mut self, address: u32) -> Result<u32, Error> {
        let answer = self.0.transact(Request::read(address));
        answered(self, &self.0.label(), address, "read", answer)
    }

    fn write32(&mut self, address: u32, value: u32) -> Result<(), Error> {
        let answer = self.0.transact(Request::write(address, value, 0xF));
        answered(self, &self.0.label(), address, "write", answer).map(|_| ())
    }
}

/// The engine looped back on itself (what `ferroce-sim serve --top engine` serves) as
/// `ferroce-ctl` sees a device, in this process: each access runs the clock until its answer,
/// as the served engine does, without a socket and a server thread between them. The test
/// keeps a handle on the engine.
pub struct LoopBus(pub Rc<RefCell<EngineLoop>>);

impl Bus for LoopBus {
    fn name(&self) -> &str {
        "sim"
    }

    fn read32(&mut self, address: u32) -> Result<u32, Error> {
        let answer = self.0.borrow_mut().transact(Request::read(address));
        answered(self, "engine", address, "read", answer)
    }

    fn write32(&mut self, address: u32, value: u32) -> Result<(), Error> {
        let answer = self.0.borrow_mut().transact(Request::write(address, value, 0xF));
        answered(self, "engine", address, "write", answer).map(|_| ())
    }
}

/// An AXI4-Lite answer `(resp, data)` of `unit` as `bus` reports it: the data when `resp` is
/// OKAY, else an error at `address`.
fn answered(bus: &dyn Bus, unit: &str, address: u32, access: &str, answer: Result<(u8, u32), String>) -> Result<u32, Error> {
    match answer {
        Ok((0, data)) => Ok(data),
        Ok((resp, _)) => Err(bus.error(Some(address), Cause::Io(format!("{unit}: {access} answered {resp}")))),
        Err(e) => Err(bus.error(Some(address), Cause::Io(e))),
    }
}

/// A model's memory region as `ferroce-ctl` writes it into the region table (a valid entry).
pub fn host_region(region: &MemoryRegion) -> Region {
    Region {
        valid: true,
        access: region.access,
        pd: region.pd,
        rkey: region.rkey,
        base: region.base,
        length: region.length,
    }
}
