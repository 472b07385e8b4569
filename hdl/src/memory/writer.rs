//! [`AxiWriter`]: the engine's memory writes (a command of address and 1 to 4096 bytes, its data
//! from lane 0) as AXI4 write bursts.
//!
//! ```text
//!  s_cmd ─► BurstSplitter ─► AW ─► burst FIFO (addresses, for B) ─► B
//!        └─► plan FIFO (LUTRAM) ─┐
//!  s_wr ─────────────────────────┴─► BeatRealigner ─► W (strobes, WLAST per burst)
//! ```
//!
//! Each data beat is a token for the realigner, which moves lane 0 up to the command's first
//! byte's lane (`address mod K`); the strobes hold exactly the command's bytes, and `WLAST` ends
//! every burst the splitter cut (a beat counter within the block). When the bytes spill into one
//! beat more than they came in (`⌈(offset + length) / K⌉ > ⌈length / K⌉`), the last beat takes a
//! cycle of its own. W beats may precede their AW (AXI4 allows it). `BRESP` other than OKAY
//! counts one write error and keeps the burst's address (from the burst FIFO: up to 30 bursts
//! await their response; AW waits beyond that). The command's `tkeep` and `tlast` are not read:
//! its length says its beats.
//!
//! Memory is taken to have a write once W has its last beat: the engine does not wait for B
//! (a posted write, as a NIC's PCIe writes are); B is checked, not awaited.

use super::bursts::CommandBursts;
use super::realign::BeatRealigner;
use crate::common::counter::EventCounter;
use crate::common::elab::c;
use crate::common::fifo::{Fifo, CAPACITY};
use ferroce_contracts::memory::block_bytes;
use rust_hdl::prelude::*;

/// What the W side needs of a command, kept from when it is taken until its last beat.
#[derive(Clone, Copy, Debug, Default, PartialEq, LogicStruct)]
pub(crate) struct WritePlan {
    /// Its first byte's lane.
    pub offset: Bits<8>,
    /// Its data beats minus one.
    pub last_beat: Bits<13>,
    /// It needs one W beat more than it has data beats.
    pub extra: Bit,
    /// The lane of its last byte.
    pub end_lane: Bits<8>,
    /// The first W beat's place in its block.
    pub block_beat: Bits<9>,
}

/// The write half of the AXI4 master, `W`-bit data (`K = W / 8`).
#[derive(LogicBlock)]
pub struct AxiWriter<const W: usize, const K: usize> {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous, active high: forgets every command (the slave must be reset with it).
    pub reset: Signal<In, Bit>,
    /// Write commands: valid.
    pub s_cmd_valid: Signal<In, Bit>,
    /// Write commands: ready.
    pub s_cmd_ready: Signal<Out, Bit>,
    /// Write commands: address.
    pub s_cmd_address: Signal<In, Bits<64>>,
    /// Write commands: bytes (1 to 4096).
    pub s_cmd_length: Signal<In, Bits<13>>,
    /// Write data, from lane 0: valid.
    pub s_wr_tvalid: Signal<In, Bit>,
    /// Write data: ready.
    pub s_wr_tready: Signal<Out, Bit>,
    /// Write data: data.
    pub s_wr_tdata: Signal<In, Bits<W>>,
    /// AW: valid.
    pub m_axi_awvalid: Signal<Out, Bit>,
    /// AW: ready.
    pub m_axi_awready: Signal<In, Bit>,
    /// AW: address.
    pub m_axi_awaddr: Signal<Out, Bits<64>>,
    /// AW: beats minus one.
    pub m_axi_awlen: Signal<Out, Bits<8>>,
    /// W: valid.
    pub m_axi_wvalid: Signal<Out, Bit>,
    /// W: ready.
    pub m_axi_wready: Signal<In, Bit>,
    /// W: data.
    pub m_axi_wdata: Signal<Out, Bits<W>>,
    /// W: strobes.
    pub m_axi_wstrb: Signal<Out, Bits<K>>,
    /// W: a burst's last beat.
    pub m_axi_wlast: Signal<Out, Bit>,
    /// B: valid.
    pub m_axi_bvalid: Signal<In, Bit>,
    /// B: ready.
    pub m_axi_bready: Signal<Out, Bit>,
    /// B: response.
    pub m_axi_bresp: Signal<In, Bits<2>>,
    /// Bursts answered with an error.
    pub write_errors: Signal<Out, Bits<32>>,
    /// The address of the last such burst.
    pub write_error_address: Signal<Out, Bits<64>>,

    plans: Fifo<WritePlan>,
    bursts: Fifo<Bits<64>>,
    realigner: BeatRealigner<W, K>,
    errors: EventCounter,
    error_address: DFF<Bits<64>>,
    /// The command's data beats so far.
    beat: DFF<Bits<13>>,
    /// The next W beat's place in its block.
    position: DFF<Bits<9>>,
    /// Commands from `s_cmd`, held and cut into bursts.
    commands: CommandBursts<K>,
    plan_room: Signal<Local, Bit>,
    /// The offset + the lane of the last byte of the data's last beat (≥ K: one W beat more).
    spill: Signal<Local, Bits<9>>,
    /// The realigner moves this cycle (see `BeatRealigner::flushing`).
    advance: Signal<Local, Bit>,
    plan: Signal<Local, WritePlan>,
    burst_room: Signal<Local, Bit>,
    beat_in: Signal<Local, Bit>,
    first_in: Signal<Local, Bit>,
    last_in: Signal<Local, Bit>,
    /// This beat's W beat is the command's last.
    ends: Signal<Local, Bit>,
    here: Signal<Local, Bits<9>>,
    end_keep: Signal<Local, Bits<K>>,
    /// The command's first beat from address 0 (low bits).
    first_beat: Signal<Local, Bits<13>>,
    offset_mask: Constant<Bits<8>>,
    beat_bytes: Constant<Bits<8>>,
    beat_shift: Constant<Bits<13>>,
    beat_bytes_wide: Constant<Bits<9>>,
    /// Ones but lane 0: shifted up by a lane, the lanes after it.
    ones_after_lane_0: Constant<Bits<K>>,
    block_beat_mask: Constant<Bits<9>>,
    block_last_beat: Constant<Bits<9>>,
    /// The fill level's bit of CAPACITY − 1 entries: at most one push a cycle keeps room.
    nearly_full: Constant<Bits<CAPACITY>>,
    all_ones: Constant<Bits<K>>,
}

impl<const W: usize, const K: usize> Default for AxiWriter<W, K> {
    fn default() -> Self {
        assert_eq!(W, 8 * K, "K must be W / 8");
        let block_beats = block_bytes(K as u64) / K as u64;
        Self {
            clock: Default::default(),
            reset: Default::default(),
            s_cmd_valid: Default::default(),
            s_cmd_ready: Default::default(),
            s_cmd_address: Default::default(),
            s_cmd_length: Default::default(),
            s_wr_tvalid: Default::default(),
            s_wr_tready: Default::default(),
            s_wr_tdata: Default::default(),
            m_axi_awvalid: Default::default(),
            m_axi_awready: Default::default(),
            m_axi_awaddr: Default::default(),
            m_axi_awlen: Default::default(),
            m_axi_wvalid: Default::default(),
            m_axi_wready: Default::default(),
            m_axi_wdata: Default::default(),
            m_axi_wstrb: Default::default(),
            m_axi_wlast: Default::default(),
            m_axi_bvalid: Default::default(),
            m_axi_bready: Default::default(),
            m_axi_bresp: Default::default(),
            write_errors: Default::default(),
            write_error_address: Default::default(),
            plans: Default::default(),
            bursts: Default::default(),
            realigner: Default::default(),
            errors: Default::default(),
            error_address: Default::default(),
            beat: Default::default(),
            position: Default::default(),
            commands: Default::default(),
            plan_room: Default::default(),
            spill: Default::default(),
            advance: Default::default(),
            plan: Default::default(),
            burst_room: Default::default(),
            beat_in: Default::default(),
            first_in: Default::default(),
            last_in: Default::default(),
            ends: Default::default(),
            here: Default::default(),
            end_keep: Default::default(),
            first_beat: Default::default(),
            offset_mask: c::<8>(K as u64 - 1),
            beat_bytes: c::<8>(K as u64),
            beat_shift: c::<13>(K.trailing_zeros() as u64),
            beat_bytes_wide: c::<9>(K as u64),
            ones_after_lane_0: Constant::new(Bits::<K>::mask() << 1),
            block_beat_mask: c::<9>(block_beats - 1),
            block_last_beat: c::<9>(block_beats - 1),
            nearly_full: c::<CAPACITY>(1 << (CAPACITY - 2)),
            all_ones: Constant::new(Bits::<K>::mask()),
        }
    }
}

impl<const W: usize, const K: usize> Logic for AxiWriter<W, K> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, error_address, beat, position);
        clock!(self, clock, commands, plans, bursts, realigner, errors);
        self.commands.reset.next = self.reset.val();
        self.plans.reset.next = self.reset.val();
        self.bursts.reset.next = self.reset.val();
        self.realigner.reset.next = self.reset.val();
        self.errors.reset.next = self.reset.val();

        // ================= commands: taken into the intake, then bursts out (addresses kept for B), plans kept =================
        self.plan_room.next = (self.plans.fill.val() & self.nearly_full.val()) == 0;
        self.commands.s_valid.next = self.s_cmd_valid.val();
        self.commands.s_address.next = self.s_cmd_address.val();
        self.commands.s_length.next = self.s_cmd_length.val();
        self.s_cmd_ready.next = self.commands.s_ready.val();
        self.commands.room.next = self.plan_room.val();
        self.burst_room.next = (self.bursts.fill.val() & self.nearly_full.val()) == 0;
        self.m_axi_awvalid.next = self.commands.m_valid.val() && self.burst_room.val();
        self.commands.m_ready.next = self.m_axi_awready.val() && self.burst_room.val();
        self.m_axi_awaddr.next = self.commands.m_address.val();
        self.m_axi_awlen.next = self.commands.m_len.val();
        self.bursts.push.next = self.commands.m_valid.val() && self.m_axi_awready.val() && self.burst_room.val();
        self.bursts.push_value.next = self.commands.m_address.val();

        self.plan.next.offset = self.commands.address.val().get_bits::<8>(0) & self.offset_mask.val();
        self.plan.next.last_beat = self.commands.length_minus_one.val() >> self.beat_shift.val();
        self.spill.next = bit_cast::<9, 8>(self.plan.val().offset)
            + bit_cast::<9, 8>(self.commands.length_minus_one.val().get_bits::<8>(0) & self.offset_mask.val());
        self.plan.next.extra = self.spill.val() >= self.beat_bytes_wide.val();
        self.plan.next.end_lane = self.spill.val().get_bits::<8>(0) & self.offset_mask.val();
        self.first_beat.next = self.commands.address.val().get_bits::<13>(0) >> self.beat_shift.val();
        self.plan.next.block_beat = self.first_beat.val().get_bits::<9>(0) & self.block_beat_mask.val();
        self.plans.push.next = self.commands.taken.val();
        self.plans.push_value.next = self.plan.val();

        // ================= data beats: tokens for the realigner =================
        self.advance.next = (!self.realigner.m_valid.val() || self.m_axi_wready.val()) && !self.realigner.flushing.val();
        self.s_wr_tready.next = self.advance.val() && self.plans.head_valid.val();
        self.beat_in.next = self.s_wr_tvalid.val() && self.s_wr_tready.val();
        self.first_in.next = self.beat.q.val() == 0;
        self.last_in.next = self.beat.q.val() == self.plans.head.val().last_beat;
        self.ends.next = self.last_in.val() && !self.plans.head.val().extra;
        self.here.next = self.position.q.val();
        if self.first_in.val() {
            self.here.next = self.plans.head.val().block_beat;
        }
        self.end_keep.next = !(self.ones_after_lane_0.val() << self.plans.head.val().end_lane);
        self.realigner.token.next = self.beat_in.val();
        self.realigner.data.next = self.s_wr_tdata.val();
        self.realigner.shift.next = (self.beat_bytes.val() - self.plans.head.val().offset) & self.offset_mask.val();
        self.realigner.emit.next = true;
        self.realigner.keep.next = self.all_ones.val();
        if self.first_in.val() && self.ends.val() {
            self.realigner.keep.next = (self.all_ones.val() << self.plans.head.val().offset) & self.end_keep.val();
        } else if self.first_in.val() {
            self.realigner.keep.next = self.all_ones.val() << self.plans.head.val().offset;
        } else if self.ends.val() {
            self.realigner.keep.next = self.end_keep.val();
        }
        self.realigner.last.next = self.ends.val() || (self.here.val() == self.block_last_beat.val());
        self.realigner.flush.next = self.last_in.val() && self.plans.head.val().extra;
        self.realigner.flush_keep.next = self.end_keep.val();
        self.plans.pop.next = self.beat_in.val() && self.last_in.val();
        if self.beat_in.val() {
            self.beat.d.next = self.beat.q.val() + 1;
            self.position.d.next = (self.here.val() + 1) & self.block_beat_mask.val();
            if self.last_in.val() {
                self.beat.d.next = 0.into();
            }
        }

        self.realigner.m_ready.next = self.m_axi_wready.val();
        self.m_axi_wvalid.next = self.realigner.m_valid.val();
        self.m_axi_wdata.next = self.realigner.m_data.val();
        self.m_axi_wstrb.next = self.realigner.m_keep.val();
        self.m_axi_wlast.next = self.realigner.m_last.val();

        // ================= B: checked against the bursts' addresses =================
        self.m_axi_bready.next = self.bursts.head_valid.val();
        self.bursts.pop.next = self.m_axi_bvalid.val() && self.bursts.head_valid.val();
        self.errors.increment.next = false;
        if self.m_axi_bvalid.val() && self.bursts.head_valid.val() && (self.m_axi_bresp.val() != 0) {
            self.errors.increment.next = true;
            self.error_address.d.next = self.bursts.head.val();
        }
        if self.reset.val() {
            self.beat.d.next = 0.into();
            self.error_address.d.next = 0.into();
        }
        self.write_errors.next = self.errors.count.val();
        self.write_error_address.next = self.error_address.q.val();
    }
}
