//! What several co-simulations share (each test that includes this module uses part of it).
#![allow(dead_code)]

use ferroce_ctl::{Bus, Cause, Error, Region};
use ferroce_sim::engine_rtl::EngineHost;
use ferroce_sim::models::responder::MemoryRegion;
use ferroce_sim::regs_rtl::Request;

/// A unit's AXI4-Lite port as `ferroce-ctl` sees a device: its host functions (`ferroce_ctl`)
/// run against the Verilog.
pub struct HostBus<H: EngineHost>(pub H);

impl<H: EngineHost> Bus for HostBus<H> {
    fn name(&self) -> &str {
        "sim"
    }

    fn read32(&mut self, address: u32) -> Result<u32, Error> {
        match self.0.transact(Request::read(address)) {
            Ok((0, data)) => Ok(data),
            Ok((resp, _)) => Err(self.error(Some(address), Cause::Io(format!("{}: read answered {resp}", self.0.label())))),
            Err(e) => Err(self.error(Some(address), Cause::Io(e))),
        }
    }

    fn write32(&mut self, address: u32, value: u32) -> Result<(), Error> {
        match self.0.transact(Request::write(address, value, 0xF)) {
            Ok((0, _)) => Ok(()),
            Ok((resp, _)) => Err(self.error(Some(address), Cause::Io(format!("{}: write answered {resp}", self.0.label())))),
            Err(e) => Err(self.error(Some(address), Cause::Io(e))),
        }
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
