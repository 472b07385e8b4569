//! [`LutRam`], a small RAM read without a clock: the read data follows the read address in the
//! same cycle (a LUT RAM, `RAM32M16` for 32 entries), written at the clock edge.
//!
//! rust-hdl's `RAM` reads at the clock edge (its output is a register); a unit that knows the
//! address only in the cycle it needs the data uses this one. The read is one LUT level on the
//! path that goes through it (`scripts/lut_levels.py` counts it so). Synthesis does not see that
//! level: it may spend the whole depth budget before the address, so drive the address from
//! registers or through as little logic as possible.

use rust_hdl::prelude::*;
use std::collections::BTreeMap;

/// `2^N` entries of `D`, read combinationally, written at the rising edge of `write_clock`.
#[derive(LogicBlock, Default)]
pub struct LutRam<D: Synth, const N: usize> {
    /// Read address.
    pub read_address: Signal<In, Bits<N>>,
    /// The entry at `read_address`, in the same cycle (writes of earlier cycles included).
    pub read_data: Signal<Out, D>,
    /// Write address.
    pub write_address: Signal<In, Bits<N>>,
    /// Write clock.
    pub write_clock: Signal<In, Clock>,
    /// Write data.
    pub write_data: Signal<In, D>,
    /// Write enable.
    pub write_enable: Signal<In, bool>,
    _sim: BTreeMap<Bits<N>, D>,
}

impl<D: Synth, const N: usize> Logic for LutRam<D, N> {
    fn update(&mut self) {
        if self.write_clock.pos_edge() && self.write_enable.val() {
            self._sim.insert(self.write_address.val(), self.write_data.val());
        }
        self.read_data.next = *self._sim.get(&self.read_address.val()).unwrap_or(&D::default());
    }

    fn connect(&mut self) {
        self.read_data.connect();
    }

    fn hdl(&self) -> Verilog {
        Verilog::Custom(format!(
            "\
reg[{D}:0] mem[{last}:0];

always @(*) begin
   read_data = mem[read_address];
end

always @(posedge write_clock) begin
   if (write_enable) begin
      mem[write_address] <= write_data;
   end
end
",
            D = D::BITS - 1,
            last = (1 << N) - 1,
        ))
    }
}
