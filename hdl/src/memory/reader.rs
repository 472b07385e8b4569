//! [`AxiReader`]: the engine's memory reads (address, 1 to 4096 bytes; the data wanted from lane
//! 0) as AXI4 read bursts.
//!
//! ```text
//!  s_read ─► BurstSplitter ─► AR
//!        └─► plan FIFO (LUTRAM, 32 commands in flight) ─┐
//!  R ─────────────────────────────────────────────────────┴─► BeatRealigner ─► m_pay
//! ```
//!
//! A command is taken when the splitter and the plan FIFO have room; its bursts go out on AR as
//! the splitter cuts them, without waiting for data, so up to 32 commands are in flight. The
//! read data comes back in order (one ID): each R beat is a token for the realigner, which moves
//! the command's first byte (lane `address mod K`) to lane 0. A command at an unaligned address
//! whose bytes end in as many beats as they started in (`⌈(offset + length) / K⌉ = ⌈length /
//! K⌉`) needs one cycle more for its last beat. `RRESP` other than OKAY on any beat of a command
//! counts one read error and keeps the command's address; its data is delivered as it came.

use super::bursts::CommandBursts;
use super::realign::BeatRealigner;
use crate::common::counter::EventCounter;
use crate::common::elab::c;
use crate::common::fifo::{Fifo, CAPACITY};
use rust_hdl::prelude::*;

/// What the R side needs of a command, kept from when it is taken until its last beat.
#[derive(Clone, Copy, Debug, Default, PartialEq, LogicStruct)]
pub(crate) struct ReadPlan {
    /// The command's address (for the error report).
    pub address: Bits<64>,
    /// Its first byte's lane.
    pub offset: Bits<8>,
    /// Its R beats minus one.
    pub last_beat: Bits<13>,
    /// As many output beats as R beats.
    pub same_count: Bit,
    /// The lane of the last byte in the last output beat.
    pub last_lane: Bits<8>,
}

/// The read half of the AXI4 master, `W`-bit data (`K = W / 8`).
#[derive(LogicBlock)]
pub struct AxiReader<const W: usize, const K: usize> {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous, active high: forgets every command (the slave must be reset with it).
    pub reset: Signal<In, Bit>,
    /// Read commands: valid.
    pub s_read_valid: Signal<In, Bit>,
    /// Read commands: ready.
    pub s_read_ready: Signal<Out, Bit>,
    /// Read commands: address.
    pub s_read_addr: Signal<In, Bits<64>>,
    /// Read commands: bytes (1 to 4096).
    pub s_read_len: Signal<In, Bits<13>>,
    /// Read data from lane 0, `tlast` on a command's last beat: valid.
    pub m_pay_tvalid: Signal<Out, Bit>,
    /// Read data: ready.
    pub m_pay_tready: Signal<In, Bit>,
    /// Read data: data.
    pub m_pay_tdata: Signal<Out, Bits<W>>,
    /// Read data: keep (all but on a command's last beat).
    pub m_pay_tkeep: Signal<Out, Bits<K>>,
    /// Read data: a command's last beat.
    pub m_pay_tlast: Signal<Out, Bit>,
    /// AR: valid.
    pub m_axi_arvalid: Signal<Out, Bit>,
    /// AR: ready.
    pub m_axi_arready: Signal<In, Bit>,
    /// AR: address.
    pub m_axi_araddr: Signal<Out, Bits<64>>,
    /// AR: beats minus one.
    pub m_axi_arlen: Signal<Out, Bits<8>>,
    /// R: valid.
    pub m_axi_rvalid: Signal<In, Bit>,
    /// R: ready.
    pub m_axi_rready: Signal<Out, Bit>,
    /// R: data.
    pub m_axi_rdata: Signal<In, Bits<W>>,
    /// R: response.
    pub m_axi_rresp: Signal<In, Bits<2>>,
    /// Commands that saw an error response.
    pub read_errors: Signal<Out, Bits<32>>,
    /// The address of the last such command.
    pub read_error_address: Signal<Out, Bits<64>>,

    plans: Fifo<ReadPlan>,
    realigner: BeatRealigner<W, K>,
    errors: EventCounter,
    error_address: DFF<Bits<64>>,
    /// The command's R beats so far.
    beat: DFF<Bits<13>>,
    /// An error response in the command so far.
    command_error: DFF<Bit>,
    /// Commands from `s_read`, held and cut into bursts.
    commands: CommandBursts<K>,
    plan_room: Signal<Local, Bit>,
    /// The plan's offset + the last byte's lane (≥ K: one R beat more than output beats).
    spill: Signal<Local, Bits<9>>,
    /// The realigner moves this cycle (see `BeatRealigner::flushing`).
    advance: Signal<Local, Bit>,
    plan: Signal<Local, ReadPlan>,
    beat_in: Signal<Local, Bit>,
    last_in: Signal<Local, Bit>,
    flush: Signal<Local, Bit>,
    final_keep: Signal<Local, Bits<K>>,
    offset_mask: Constant<Bits<8>>,
    beat_shift: Constant<Bits<13>>,
    beat_bytes: Constant<Bits<9>>,
    /// Ones but lane 0: shifted up by the last lane, the lanes after it.
    ones_after_lane_0: Constant<Bits<K>>,
    /// The fill level's bit of CAPACITY − 1 entries: at most one push a cycle keeps room.
    nearly_full: Constant<Bits<CAPACITY>>,
    all_ones: Constant<Bits<K>>,
}

impl<const W: usize, const K: usize> Default for AxiReader<W, K> {
    fn default() -> Self {
        assert_eq!(W, 8 * K, "K must be W / 8");
        Self {
            clock: Default::default(),
            reset: Default::default(),
            s_read_valid: Default::default(),
            s_read_ready: Default::default(),
            s_read_addr: Default::default(),
            s_read_len: Default::default(),
            m_pay_tvalid: Default::default(),
            m_pay_tready: Default::default(),
            m_pay_tdata: Default::default(),
            m_pay_tkeep: Default::default(),
            m_pay_tlast: Default::default(),
            m_axi_arvalid: Default::default(),
            m_axi_arready: Default::default(),
            m_axi_araddr: Default::default(),
            m_axi_arlen: Default::default(),
            m_axi_rvalid: Default::default(),
            m_axi_rready: Default::default(),
            m_axi_rdata: Default::default(),
            m_axi_rresp: Default::default(),
            read_errors: Default::default(),
            read_error_address: Default::default(),
            plans: Default::default(),
            realigner: Default::default(),
            errors: Default::default(),
            error_address: Default::default(),
            beat: Default::default(),
            command_error: Default::default(),
            commands: Default::default(),
            plan_room: Default::default(),
            spill: Default::default(),
            advance: Default::default(),
            plan: Default::default(),
            beat_in: Default::default(),
            last_in: Default::default(),
            flush: Default::default(),
            final_keep: Default::default(),
            offset_mask: c::<8>(K as u64 - 1),
            beat_shift: c::<13>(K.trailing_zeros() as u64),
            beat_bytes: c::<9>(K as u64),
            ones_after_lane_0: Constant::new(Bits::<K>::mask() << 1),
            nearly_full: c::<CAPACITY>(1 << (CAPACITY - 2)),
            all_ones: Constant::new(Bits::<K>::mask()),
        }
    }
}

impl<const W: usize, const K: usize> Logic for AxiReader<W, K> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, error_address, beat, command_error);
        clock!(self, clock, commands, plans, realigner, errors);
        self.commands.reset.next = self.reset.val();
        self.plans.reset.next = self.reset.val();
        self.realigner.reset.next = self.reset.val();
        self.errors.reset.next = self.reset.val();

        // ================= commands: taken into the intake, then bursts out, plans kept =================
        self.plan_room.next = (self.plans.fill.val() & self.nearly_full.val()) == 0;
        self.commands.s_valid.next = self.s_read_valid.val();
        self.commands.s_address.next = self.s_read_addr.val();
        self.commands.s_length.next = self.s_read_len.val();
        self.s_read_ready.next = self.commands.s_ready.val();
        self.commands.room.next = self.plan_room.val();
        self.m_axi_arvalid.next = self.commands.m_valid.val();
        self.commands.m_ready.next = self.m_axi_arready.val();
        self.m_axi_araddr.next = self.commands.m_address.val();
        self.m_axi_arlen.next = self.commands.m_len.val();

        self.plan.next.address = self.commands.address.val();
        self.plan.next.offset = self.commands.address.val().get_bits::<8>(0) & self.offset_mask.val();
        self.plan.next.last_beat =
            (bit_cast::<13, 8>(self.plan.val().offset) + self.commands.length_minus_one.val()) >> self.beat_shift.val();
        self.plan.next.last_lane = self.commands.length_minus_one.val().get_bits::<8>(0) & self.offset_mask.val();
        self.spill.next = bit_cast::<9, 8>(self.plan.val().offset) + bit_cast::<9, 8>(self.plan.val().last_lane);
        self.plan.next.same_count = self.spill.val() < self.beat_bytes.val();
        self.plans.push.next = self.commands.taken.val();
        self.plans.push_value.next = self.plan.val();

        // ================= R beats: tokens for the realigner =================
        self.advance.next = (!self.realigner.m_valid.val() || self.m_pay_tready.val()) && !self.realigner.flushing.val();
        self.m_axi_rready.next = self.advance.val() && self.plans.head_valid.val();
        self.beat_in.next = self.m_axi_rvalid.val() && self.m_axi_rready.val();
        self.last_in.next = self.beat.q.val() == self.plans.head.val().last_beat;
        // an unaligned command whose output beats are as many as its R beats: its last R beat
        // makes the last output beat alone, after the merged one
        self.flush.next = self.last_in.val() && (self.plans.head.val().offset != 0) && self.plans.head.val().same_count;
        self.final_keep.next = !(self.ones_after_lane_0.val() << self.plans.head.val().last_lane);
        self.realigner.token.next = self.beat_in.val();
        self.realigner.data.next = self.m_axi_rdata.val();
        self.realigner.shift.next = self.plans.head.val().offset;
        self.realigner.emit.next = (self.plans.head.val().offset == 0) || (self.beat.q.val() != 0);
        self.realigner.keep.next = self.all_ones.val();
        self.realigner.last.next = self.last_in.val() && !self.flush.val();
        if self.last_in.val() && !self.flush.val() {
            self.realigner.keep.next = self.final_keep.val();
        }
        self.realigner.flush.next = self.flush.val();
        self.realigner.flush_keep.next = self.final_keep.val();
        self.plans.pop.next = self.beat_in.val() && self.last_in.val();
        self.errors.increment.next = false;
        if self.beat_in.val() {
            self.beat.d.next = self.beat.q.val() + 1;
            self.command_error.d.next = self.command_error.q.val() || (self.m_axi_rresp.val() != 0);
            if self.last_in.val() {
                self.beat.d.next = 0.into();
                self.command_error.d.next = false;
                if self.command_error.q.val() || (self.m_axi_rresp.val() != 0) {
                    self.errors.increment.next = true;
                    self.error_address.d.next = self.plans.head.val().address;
                }
            }
        }
        if self.reset.val() {
            self.beat.d.next = 0.into();
            self.command_error.d.next = false;
            self.error_address.d.next = 0.into();
        }

        self.realigner.m_ready.next = self.m_pay_tready.val();
        self.m_pay_tvalid.next = self.realigner.m_valid.val();
        self.m_pay_tdata.next = self.realigner.m_data.val();
        self.m_pay_tkeep.next = self.realigner.m_keep.val();
        self.m_pay_tlast.next = self.realigner.m_last.val();
        self.read_errors.next = self.errors.count.val();
        self.read_error_address.next = self.error_address.q.val();
    }
}
