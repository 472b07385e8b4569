//! [`BurstSplitter`]: one memory command (address, 1 to 4096 bytes) into the AXI4 INCR bursts
//! of `ferroce_contracts::memory::bursts`: beat-aligned, cut at every block boundary (4 KiB, or
//! 256 beats of 64 bits).
//!
//! The command comes from its owner's registers, its length as bytes minus one, so that every
//! path here starts at a flip-flop: one add gives the last byte, a shift its beat. A command that
//! stays in one block is taken when the splitter is idle and issued as one burst the next cycle:
//! one command every two cycles, at least one per frame at any width (a frame with its headers
//! is at least two beats of 512 bits). The start of each further block (the block base plus the block size, a 64-bit add)
//! comes from a [`PieceAdder`], four cycles after the command was taken or the previous block
//! began: a command that crosses a boundary takes five cycles or more, which its beats (at least
//! two) cover unless the bursts are tiny.

use crate::common::elab::c;
use crate::common::wide::PieceAdder;
use ferroce_contracts::memory::block_bytes;
use rust_hdl::prelude::*;

/// Where the splitter is.
#[derive(Copy, Clone, PartialEq, Eq, Debug, LogicState)]
pub enum SplitterState {
    /// No command.
    Idle,
    /// A burst is offered.
    Issue,
    /// Waiting for the next block's address.
    NextBlock,
}

/// The burst splitter for beats of `K` bytes; see the module docs.
#[derive(LogicBlock)]
pub struct BurstSplitter<const K: usize> {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous, active high: drops the command in progress.
    pub reset: Signal<In, Bit>,
    /// Commands: valid.
    pub s_valid: Signal<In, Bit>,
    /// Commands: ready.
    pub s_ready: Signal<Out, Bit>,
    /// Commands: the first byte's address.
    pub s_address: Signal<In, Bits<64>>,
    /// Commands: bytes minus one (0 to 4095).
    pub s_length_minus_one: Signal<In, Bits<13>>,
    /// Bursts: valid (registered).
    pub m_valid: Signal<Out, Bit>,
    /// Bursts: ready.
    pub m_ready: Signal<In, Bit>,
    /// Bursts: the first beat's address.
    pub m_address: Signal<Out, Bits<64>>,
    /// Bursts: beats minus one (AXI `xLEN`).
    pub m_len: Signal<Out, Bits<8>>,

    state: DFF<SplitterState>,
    address: DFF<Bits<64>>,
    beats_minus_one: DFF<Bits<13>>,
    /// The last burst's beats minus one.
    last_beats_minus_one: DFF<Bits<13>>,
    /// Bursts after the one offered.
    bursts_left: DFF<Bits<2>>,
    next_block: PieceAdder,
    /// Steps of the adder done since its load (4: the sum is there).
    steps: DFF<Bits<3>>,
    taking: Signal<Local, Bit>,
    /// The command's first byte within its block.
    offset: Signal<Local, Bits<13>>,
    /// Its last byte, from the block of its first.
    last_byte: Signal<Local, Bits<13>>,
    /// The blocks after the first that the command touches.
    more_blocks: Signal<Local, Bits<13>>,
    first_beat: Signal<Local, Bits<13>>,
    /// Its last byte's beat within that byte's block.
    end_beat: Signal<Local, Bits<13>>,
    /// Its last byte, from its first byte's beat.
    from_beat: Signal<Local, Bits<13>>,
    block_mask: Constant<Bits<13>>,
    beat_mask: Constant<Bits<13>>,
    block_base_mask: Constant<Bits<64>>,
    beat_base_mask: Constant<Bits<64>>,
    block_size: Constant<Bits<64>>,
    beat_shift: Constant<Bits<13>>,
    block_shift: Constant<Bits<13>>,
    block_last_beat: Constant<Bits<13>>,
}

impl<const K: usize> Default for BurstSplitter<K> {
    fn default() -> Self {
        assert!(K.is_power_of_two() && (8..=128).contains(&K), "K is a power of two from 8 to 128");
        let block = block_bytes(K as u64);
        Self {
            clock: Default::default(),
            reset: Default::default(),
            s_valid: Default::default(),
            s_ready: Default::default(),
            s_address: Default::default(),
            s_length_minus_one: Default::default(),
            m_valid: Default::default(),
            m_ready: Default::default(),
            m_address: Default::default(),
            m_len: Default::default(),
            state: Default::default(),
            address: Default::default(),
            beats_minus_one: Default::default(),
            last_beats_minus_one: Default::default(),
            bursts_left: Default::default(),
            next_block: Default::default(),
            steps: Default::default(),
            taking: Default::default(),
            offset: Default::default(),
            last_byte: Default::default(),
            more_blocks: Default::default(),
            first_beat: Default::default(),
            end_beat: Default::default(),
            from_beat: Default::default(),
            block_mask: c::<13>(block - 1),
            beat_mask: c::<13>(K as u64 - 1),
            block_base_mask: c::<64>(!(block - 1)),
            beat_base_mask: c::<64>(!(K as u64 - 1)),
            block_size: c::<64>(block),
            beat_shift: c::<13>(K.trailing_zeros() as u64),
            block_shift: c::<13>(block.trailing_zeros() as u64),
            block_last_beat: c::<13>(block / K as u64 - 1),
        }
    }
}

impl<const K: usize> Logic for BurstSplitter<K> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            state,
            address,
            beats_minus_one,
            last_beats_minus_one,
            bursts_left,
            steps
        );
        clock!(self, clock, next_block);
        self.m_valid.next = self.state.q.val() == SplitterState::Issue;
        self.m_address.next = self.address.q.val();
        self.m_len.next = self.beats_minus_one.q.val().get_bits::<8>(0);

        // the command's place in its block(s)
        self.offset.next = self.s_address.val().get_bits::<13>(0) & self.block_mask.val();
        self.last_byte.next = self.offset.val() + self.s_length_minus_one.val();
        self.from_beat.next = (self.offset.val() & self.beat_mask.val()) + self.s_length_minus_one.val();
        self.first_beat.next = self.offset.val() >> self.beat_shift.val();
        self.more_blocks.next = self.last_byte.val() >> self.block_shift.val();
        self.end_beat.next = (self.last_byte.val() & self.block_mask.val()) >> self.beat_shift.val();

        self.next_block.load.next = false;
        self.next_block.a.next = self.s_address.val() & self.block_base_mask.val();
        self.next_block.b.next = self.block_size.val();
        self.next_block.step.next = self.steps.q.val() != 4;
        if self.steps.q.val() != 4 {
            self.steps.d.next = self.steps.q.val() + 1;
        }

        // registered only: an output that depended on `m_ready` would close a loop through the
        // owner, who offers `s_valid` from `s_ready` (Verilator's UNOPTFLAT)
        self.s_ready.next = self.state.q.val() == SplitterState::Idle;
        self.taking.next = self.s_valid.val() && (self.state.q.val() == SplitterState::Idle);
        if (self.state.q.val() == SplitterState::Issue) && self.m_ready.val() {
            if self.bursts_left.q.val() == 0 {
                self.state.d.next = SplitterState::Idle;
            } else {
                self.state.d.next = SplitterState::NextBlock;
                self.bursts_left.d.next = self.bursts_left.q.val() - 1;
            }
        }
        if (self.state.q.val() == SplitterState::NextBlock) && (self.steps.q.val() == 4) {
            self.state.d.next = SplitterState::Issue;
            self.address.d.next = self.next_block.sum.val();
            self.beats_minus_one.d.next = self.block_last_beat.val();
            if self.bursts_left.q.val() == 0 {
                self.beats_minus_one.d.next = self.last_beats_minus_one.q.val();
            }
            // the block after this one
            self.next_block.load.next = true;
            self.next_block.a.next = self.next_block.sum.val();
            self.steps.d.next = 0.into();
        }
        if self.taking.val() {
            self.state.d.next = SplitterState::Issue;
            self.address.d.next = self.s_address.val() & self.beat_base_mask.val();
            self.bursts_left.d.next = self.more_blocks.val().get_bits::<2>(0);
            // one block: the beats from the first byte's to the last's; more: to the block's end
            // (block_last_beat − first_beat, within the block's beat bits: an inversion)
            self.beats_minus_one.d.next = self.from_beat.val() >> self.beat_shift.val();
            if self.more_blocks.val() != 0 {
                self.beats_minus_one.d.next = !self.first_beat.val() & self.block_last_beat.val();
            }
            self.last_beats_minus_one.d.next = self.end_beat.val();
            self.next_block.load.next = true;
            self.steps.d.next = 0.into();
        }
        if self.reset.val() {
            self.state.d.next = SplitterState::Idle;
        }
    }
}

/// A command register in front of the splitter: takes a command (address, 1 to 4096 bytes) from
/// its source and holds it, with its length minus one, until its owner lets it `go` (to the
/// splitter and the owner's plan FIFO at once), so that the burst and plan arithmetic starts at
/// flip-flops. A command goes and the next is taken in the same cycle.
#[derive(LogicBlock, Default)]
pub struct CommandIntake {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous, active high: drops the command held.
    pub reset: Signal<In, Bit>,
    /// Commands: valid.
    pub s_valid: Signal<In, Bit>,
    /// Commands: ready (nothing held, or the held command goes).
    pub s_ready: Signal<Out, Bit>,
    /// Commands: the first byte's address.
    pub s_address: Signal<In, Bits<64>>,
    /// Commands: bytes, 1 to 4096.
    pub s_length: Signal<In, Bits<13>>,
    /// The held command leaves this cycle (only while `valid`).
    pub go: Signal<In, Bit>,
    /// A command is held (registered).
    pub valid: Signal<Out, Bit>,
    /// Its address.
    pub address: Signal<Out, Bits<64>>,
    /// Its bytes minus one.
    pub length_minus_one: Signal<Out, Bits<13>>,
    held: DFF<Bit>,
    held_address: DFF<Bits<64>>,
    held_length_minus_one: DFF<Bits<13>>,
}

impl Logic for CommandIntake {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, held, held_address, held_length_minus_one);
        // (`s_ready` is not read back here: Verilator would see a loop through the owner)
        self.s_ready.next = !self.held.q.val() || self.go.val();
        if self.go.val() {
            self.held.d.next = false;
        }
        if self.s_valid.val() && (!self.held.q.val() || self.go.val()) {
            self.held.d.next = true;
            self.held_address.d.next = self.s_address.val();
            self.held_length_minus_one.d.next = self.s_length.val() - 1;
        }
        if self.reset.val() {
            self.held.d.next = false;
        }
        self.valid.next = self.held.q.val();
        self.address.next = self.held_address.q.val();
        self.length_minus_one.next = self.held_length_minus_one.q.val();
    }
}

/// A command taken, held and cut into bursts: a [`CommandIntake`] in front of a
/// [`BurstSplitter`], as both directions of the AXI4 master use them. The owner keeps a plan
/// per command in a FIFO: the held command goes to the splitter only while the owner has `room`
/// for its plan, and `taken` is the cycle it goes (the owner pushes the plan then, computed from
/// `address` and `length_minus_one`).
#[derive(LogicBlock, Default)]
pub struct CommandBursts<const K: usize> {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous, active high: drops the command held and the one being cut.
    pub reset: Signal<In, Bit>,
    /// Commands: valid.
    pub s_valid: Signal<In, Bit>,
    /// Commands: ready.
    pub s_ready: Signal<Out, Bit>,
    /// Commands: the first byte's address.
    pub s_address: Signal<In, Bits<64>>,
    /// Commands: bytes, 1 to 4096.
    pub s_length: Signal<In, Bits<13>>,
    /// The owner has room for one more command's plan.
    pub room: Signal<In, Bit>,
    /// The held command goes to the splitter this cycle.
    pub taken: Signal<Out, Bit>,
    /// The held command: its address.
    pub address: Signal<Out, Bits<64>>,
    /// The held command: its bytes minus one.
    pub length_minus_one: Signal<Out, Bits<13>>,
    /// Bursts: valid.
    pub m_valid: Signal<Out, Bit>,
    /// Bursts: ready.
    pub m_ready: Signal<In, Bit>,
    /// Bursts: address (`AxADDR`).
    pub m_address: Signal<Out, Bits<64>>,
    /// Bursts: beats minus one (`AxLEN`).
    pub m_len: Signal<Out, Bits<8>>,
    intake: CommandIntake,
    splitter: BurstSplitter<K>,
    /// The held command goes this cycle (`taken`, not read back from the output).
    going: Signal<Local, Bit>,
}

impl<const K: usize> Logic for CommandBursts<K> {
    #[hdl_gen]
    fn update(&mut self) {
        clock!(self, clock, intake, splitter);
        self.intake.reset.next = self.reset.val();
        self.splitter.reset.next = self.reset.val();
        self.intake.s_valid.next = self.s_valid.val();
        self.intake.s_address.next = self.s_address.val();
        self.intake.s_length.next = self.s_length.val();
        self.s_ready.next = self.intake.s_ready.val();
        self.going.next = self.intake.valid.val() && self.splitter.s_ready.val() && self.room.val();
        self.intake.go.next = self.going.val();
        self.taken.next = self.going.val();
        self.splitter.s_valid.next = self.intake.valid.val() && self.room.val();
        self.splitter.s_address.next = self.intake.address.val();
        self.splitter.s_length_minus_one.next = self.intake.length_minus_one.val();
        self.address.next = self.intake.address.val();
        self.length_minus_one.next = self.intake.length_minus_one.val();
        self.m_valid.next = self.splitter.m_valid.val();
        self.splitter.m_ready.next = self.m_ready.val();
        self.m_address.next = self.splitter.m_address.val();
        self.m_len.next = self.splitter.m_len.val();
    }
}
