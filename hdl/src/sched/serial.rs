//! [`SerialSched`]: the scheduler build, for boards too small for the engine (the Alchitry Cu):
//! the QoS scheduler ([`Sched`]) with its register file ([`SchedulerRegisters`]) behind the
//! UART-to-AXI4-Lite bridge ([`SerialBridge`]), so that `ferroce-ctl --device serial:PATH`
//! configures its queues, enqueues nodes and asks for decisions. `docs/boards.md` describes the
//! build; the software model is `ferroce_models::sched_build::SchedulerBuildModel`.
//!
//! ```text
//!  rx ─► SerialBridge ─► m_axil ─► SchedulerRegisters ─► cfg_*, enq0_*, deq_req ─► Sched
//!  tx ◄─┘      │ discards              ▲ │ decision                                 │
//!              └───────────────────────┘ └─► leds ◄── deq_*, cnt_* ◄──────────────────┘
//! ```
//!
//! The LEDs (registered): bits 4:0 the queue of the last decision, bit 5 that it served a queue,
//! bit 6 the serial line is low (a request or its answer on the way), bit 7 the scheduler is
//! initialized.

use super::Sched;
use crate::registers::scheduler::SchedulerRegisters;
use crate::registers::serial::{SerialBridge, DIVIDER_BITS};
use ferroce_contracts::regs::{Map, ADDRESS_BITS};
use rust_hdl::prelude::*;

/// The scheduler build over `2^AW` nodes (`EW = AW + 1`) and `Q` queues.
#[derive(LogicBlock)]
pub struct SerialSched<const AW: usize, const EW: usize, const Q: usize> {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous, active high.
    pub reset: Signal<In, Bit>,
    /// Clocks per bit: the clock's frequency over the baud rate (at least 4).
    pub clocks_per_bit: Signal<In, Bits<DIVIDER_BITS>>,
    /// The serial line from the host (idle high; synchronized inside).
    pub rx: Signal<In, Bit>,
    /// The serial line to the host (registered, idle high).
    pub tx: Signal<Out, Bit>,
    /// What the board's LEDs show (module documentation).
    pub leds: Signal<Out, Bits<8>>,
    bridge: SerialBridge,
    registers: SchedulerRegisters<AW>,
    sched: Sched<AW, EW, Q>,
    lights: DFF<Bits<8>>,
    line_low: DFF<Bit>,
}

impl<const AW: usize, const EW: usize, const Q: usize> SerialSched<AW, EW, Q> {
    /// The build: its register file from [`Map::scheduler`]`(AW, Q)`.
    pub fn new() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            clocks_per_bit: Default::default(),
            rx: Default::default(),
            tx: Default::default(),
            leds: Default::default(),
            bridge: SerialBridge::new(),
            registers: SchedulerRegisters::new(&Map::scheduler(AW as u32, Q as u32)),
            sched: Sched::default(),
            lights: Default::default(),
            line_low: Default::default(),
        }
    }
}

impl<const AW: usize, const EW: usize, const Q: usize> Default for SerialSched<AW, EW, Q> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const AW: usize, const EW: usize, const Q: usize> Logic for SerialSched<AW, EW, Q> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, lights, line_low);
        clock!(self, clock, bridge, registers, sched);
        self.bridge.reset.next = self.reset.val();
        self.registers.reset.next = self.reset.val();
        self.sched.reset.next = self.reset.val();

        // the host: the serial line into the bridge, its AXI4-Lite master into the registers
        self.bridge.clocks_per_bit.next = self.clocks_per_bit.val();
        self.bridge.rx.next = self.rx.val();
        self.tx.next = self.bridge.tx.val();
        self.registers.s_axil_awvalid.next = self.bridge.m_axil_awvalid.val();
        self.bridge.m_axil_awready.next = self.registers.s_axil_awready.val();
        self.registers.s_axil_awaddr.next = self.bridge.m_axil_awaddr.val().get_bits::<ADDRESS_BITS>(0);
        self.registers.s_axil_wvalid.next = self.bridge.m_axil_wvalid.val();
        self.bridge.m_axil_wready.next = self.registers.s_axil_wready.val();
        self.registers.s_axil_wdata.next = self.bridge.m_axil_wdata.val();
        self.registers.s_axil_wstrb.next = self.bridge.m_axil_wstrb.val();
        self.bridge.m_axil_bvalid.next = self.registers.s_axil_bvalid.val();
        self.registers.s_axil_bready.next = self.bridge.m_axil_bready.val();
        self.bridge.m_axil_bresp.next = self.registers.s_axil_bresp.val();
        self.registers.s_axil_arvalid.next = self.bridge.m_axil_arvalid.val();
        self.bridge.m_axil_arready.next = self.registers.s_axil_arready.val();
        self.registers.s_axil_araddr.next = self.bridge.m_axil_araddr.val().get_bits::<ADDRESS_BITS>(0);
        self.bridge.m_axil_rvalid.next = self.registers.s_axil_rvalid.val();
        self.registers.s_axil_rready.next = self.bridge.m_axil_rready.val();
        self.bridge.m_axil_rdata.next = self.registers.s_axil_rdata.val();
        self.bridge.m_axil_rresp.next = self.registers.s_axil_rresp.val();
        self.registers.discards_unknown_command.next = self.bridge.discards_unknown_command.val();
        self.registers.discards_framing.next = self.bridge.discards_framing.val();
        self.registers.discards_timeout.next = self.bridge.discards_timeout.val();
        self.registers.discards_overrun.next = self.bridge.discards_overrun.val();

        // the scheduler: QoS words, requester 0, decisions and counters
        self.sched.cfg_we.next = self.registers.cfg_we.val();
        self.sched.cfg_addr.next = self.registers.cfg_addr.val();
        self.sched.cfg_wdata.next = self.registers.cfg_wdata.val();
        self.sched.enq0_valid.next = self.registers.enqueue_valid.val();
        self.sched.enq0_queue.next = self.registers.enqueue_queue.val();
        self.sched.enq0_elem.next = self.registers.enqueue_node.val();
        self.registers.enqueue_ready.next = self.sched.enq0_ready.val();
        self.sched.enq1_valid.next = false;
        self.sched.enq1_queue.next = 0.into();
        self.sched.enq1_elem.next = 0.into();
        self.sched.enq2_valid.next = false;
        self.sched.enq2_queue.next = 0.into();
        self.sched.enq2_elem.next = 0.into();
        self.sched.enq3_valid.next = false;
        self.sched.enq3_queue.next = 0.into();
        self.sched.enq3_elem.next = 0.into();
        self.sched.deq_req.next = self.registers.decide.val();
        self.sched.stall.next = 0.into();
        self.registers.decision_valid.next = self.sched.deq_valid.val();
        self.registers.decision_served.next = self.sched.deq_ok.val();
        self.registers.decision_queue.next = self.sched.deq_queue.val();
        self.registers.decision_node.next = self.sched.deq_elem.val();
        self.registers.cnt_dup.next = self.sched.cnt_dup.val();
        self.registers.cnt_bad_queue.next = self.sched.cnt_bad_queue.val();

        // the LEDs
        self.line_low.d.next = !self.rx.val();
        self.lights.d.next = bit_cast::<8, 5>(self.registers.last_decision.val().get_bits::<5>(16))
            | (bit_cast::<8, 1>(self.registers.last_decision.val().get_bit(23).into()) << 5)
            | (bit_cast::<8, 1>(self.line_low.q.val().into()) << 6)
            | (bit_cast::<8, 1>(self.sched.init_done.val().into()) << 7);
        self.leds.next = self.lights.q.val();
    }
}
