//! [`DualPortRam`]: a block RAM with one read/write port and one read port on one clock.
//!
//! rust-hdl's `RAM` has one write port and one read port. The register file needs a third
//! access to a table that another unit reads every cycle (the QP context: the host writes and
//! reads it word by word, the TX path reads whole entries), which is what a true dual-port block
//! RAM gives: port A reads and writes, port B reads. Both read synchronously (the data is in a
//! register one cycle after the address); a port-A read of the word port A writes in the same
//! cycle returns the old word, and so does a port-B read of it.
//!
//! The Verilog is written by hand (as rust-hdl's `RAM` is) in the template that Vivado and yosys
//! infer as a true dual-port block RAM; the memory is marked `ram_style = "block"` and starts
//! all zero (the block RAM's power-up contents, written out as an `initial` loop up to
//! [`INITIALIZED_BITS_MAX`] bits; reset does not clear it).

use rust_hdl::prelude::*;
use std::collections::BTreeMap;

/// Bits of the largest memory whose zeros the Verilog writes in an `initial` loop. yosys
/// unrolls the loop into a cell per word, which takes it hours on a 2 MiB stream buffer; a
/// larger memory is left to the device's power-up zeros (UltraScale+ block RAM and URAM start
/// at zero unless given an INIT), and Verilator models start at zero too (`--x-initial 0`).
pub const INITIALIZED_BITS_MAX: usize = 1 << 20;

/// The Verilog that sets the `last + 1` words (`bits` in all) of `mem` to zero at power-up.
fn power_up_zeros(bits: usize, last: usize) -> String {
    if bits <= INITIALIZED_BITS_MAX {
        format!(
            "// power-up contents: all zero (the block RAM's initial value)\ninteger i;\ninitial begin\n   for (i = 0; i <= {last}; i = i + 1) mem[i] = 0;\nend\n"
        )
    } else {
        "// power-up contents: all zero, the block RAM's own (too large for an initial loop)\n".to_string()
    }
}

/// `2^N` entries of `D`: port A reads and writes, port B reads.
#[derive(LogicBlock, Default)]
pub struct DualPortRam<D: Synth, const N: usize> {
    /// Clock of both ports.
    pub clock: Signal<In, Clock>,
    /// Port A: address (read and write).
    pub a_address: Signal<In, Bits<N>>,
    /// Port A: write `a_write_data` at `a_address`.
    pub a_write: Signal<In, bool>,
    /// Port A: the word to write.
    pub a_write_data: Signal<In, D>,
    /// Port A: the word at the last cycle's `a_address`, as it was before that cycle's write.
    pub a_read_data: Signal<Out, D>,
    /// Port B: address (read only).
    pub b_address: Signal<In, Bits<N>>,
    /// Port B: the word at the last cycle's `b_address`.
    pub b_read_data: Signal<Out, D>,
    _sim: BTreeMap<Bits<N>, D>,
}

impl<D: Synth, const N: usize> Logic for DualPortRam<D, N> {
    fn update(&mut self) {
        if self.clock.pos_edge() {
            let get = |m: &BTreeMap<Bits<N>, D>, a| *m.get(&a).unwrap_or(&D::default());
            self.a_read_data.next = get(&self._sim, self.a_address.val());
            self.b_read_data.next = get(&self._sim, self.b_address.val());
            if self.a_write.val() {
                self._sim.insert(self.a_address.val(), self.a_write_data.val());
            }
        }
    }

    fn connect(&mut self) {
        self.a_read_data.connect();
        self.b_read_data.connect();
    }

    fn hdl(&self) -> Verilog {
        Verilog::Custom(format!(
            "\
(* ram_style = \"block\" *) reg[{D}:0] mem[{last}:0];

{power_up}
always @(posedge clock) begin
   if (a_write) begin
      mem[a_address] <= a_write_data;
   end
   a_read_data <= mem[a_address];
end

always @(posedge clock) begin
   b_read_data <= mem[b_address];
end
",
            D = D::BITS - 1,
            last = (1usize << N) - 1,
            power_up = power_up_zeros(D::BITS << N, (1usize << N) - 1),
        ))
    }
}

/// `2^N` entries of `D` in block RAM: one write port, one read port (synchronous), one clock.
/// rust-hdl's `RAM` with the memory marked `ram_style = "block"`, for tables that must not
/// become LUTRAM (yosys maps small ones there otherwise).
#[derive(LogicBlock, Default)]
pub struct BlockRam<D: Synth, const N: usize> {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Write `write_data` at `write_address`.
    pub write: Signal<In, bool>,
    /// Write address.
    pub write_address: Signal<In, Bits<N>>,
    /// The word to write.
    pub write_data: Signal<In, D>,
    /// Read address.
    pub read_address: Signal<In, Bits<N>>,
    /// The word at the last cycle's `read_address`, as it was before that cycle's write.
    pub read_data: Signal<Out, D>,
    _sim: BTreeMap<Bits<N>, D>,
}

impl<D: Synth, const N: usize> Logic for BlockRam<D, N> {
    fn update(&mut self) {
        if self.clock.pos_edge() {
            self.read_data.next = *self._sim.get(&self.read_address.val()).unwrap_or(&D::default());
            if self.write.val() {
                self._sim.insert(self.write_address.val(), self.write_data.val());
            }
        }
    }

    fn connect(&mut self) {
        self.read_data.connect();
    }

    fn hdl(&self) -> Verilog {
        Verilog::Custom(format!(
            "\
(* ram_style = \"block\" *) reg[{D}:0] mem[{last}:0];

{power_up}
always @(posedge clock) begin
   if (write) begin
      mem[write_address] <= write_data;
   end
   read_data <= mem[read_address];
end
",
            D = D::BITS - 1,
            last = (1usize << N) - 1,
            power_up = power_up_zeros(D::BITS << N, (1usize << N) - 1),
        ))
    }
}
