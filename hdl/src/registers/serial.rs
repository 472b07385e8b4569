//! [`SerialBridge`]: the register file's AXI4-Lite bus driven over a UART, for boards whose only
//! host link is a USB UART (`ferroce-ctl --device serial:PATH`). The protocol and the discard
//! reasons are `ferroce_contracts::serial`; the software model is `ferroce_models::serial`.
//!
//! ```text
//!  rx ─► UartReceiver ─► request: command, address, data ─► AW + W, or AR ─► m_axil_* (the register file)
//!          (8N1)          │ (timeout after 16 byte times      │
//!                         ▼  of silence)                      ▼
//!                    discards_* counters              B or R ─► answer bytes ─► UartTransmitter ─► tx
//! ```
//!
//! One request at a time: the bridge assembles a request byte by byte, issues its access (AW and
//! W together, or AR), waits for the response (`bready` and `rready` are always high), and sends
//! the answer. `clocks_per_bit` sets the baud rate (`clock / baud`, at least 4; a board ties it
//! to a constant, `ferroce_contracts::serial::clocks_per_bit`). If the register file never
//! answers, neither does the bridge: AXI4-Lite has no way to abandon an access.

use crate::common::counter::EventCounter;
use crate::common::elab::c;
use ferroce_contracts::serial::{BIT_TIMES_PER_BYTE, READ, READ_ANSWER, TIMEOUT_BYTE_TIMES, WRITE, WRITE_ANSWER};
use rust_hdl::prelude::*;

/// Width of `clocks_per_bit`.
pub const DIVIDER_BITS: usize = 16;

/// Where a [`UartReceiver`] is in a byte.
#[derive(Copy, Clone, PartialEq, Eq, Debug, LogicState)]
pub enum ReceiverState {
    /// Waiting for a falling edge (a start bit).
    Idle,
    /// Waiting for the middle of the start bit.
    Start,
    /// Sampling the eight data bits in their middles.
    Data,
    /// Waiting for the middle of the stop bit.
    Stop,
}

/// A UART receiver (8N1): samples each bit in its middle, counted from the start bit's falling
/// edge. `line` may be asynchronous (two flip-flops synchronize it).
#[derive(LogicBlock, Default)]
pub struct UartReceiver {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous, active high.
    pub reset: Signal<In, Bit>,
    /// Clocks per bit (at least 4).
    pub clocks_per_bit: Signal<In, Bits<DIVIDER_BITS>>,
    /// The serial line (idle high).
    pub line: Signal<In, Bit>,
    /// A byte arrived (one cycle, registered).
    pub byte_valid: Signal<Out, Bit>,
    /// The byte (valid with `byte_valid`).
    pub data: Signal<Out, Bits<8>>,
    /// A byte arrived with its stop bit low: it is dropped (one cycle, registered).
    pub framing_error: Signal<Out, Bit>,
    line_synchronizing: DFF<Bit>,
    line_synchronized: DFF<Bit>,
    line_previous: DFF<Bit>,
    state: DFF<ReceiverState>,
    /// Clocks left to the next sample.
    timer: DFF<Bits<DIVIDER_BITS>>,
    /// Data bits sampled in this byte.
    bit_index: DFF<Bits<3>>,
    shift: DFF<Bits<8>>,
    arrived: DFF<Bit>,
    stop_low: DFF<Bit>,
}

impl Logic for UartReceiver {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            line_synchronizing,
            line_synchronized,
            line_previous,
            state,
            timer,
            bit_index,
            shift,
            arrived,
            stop_low
        );
        // Stage 1: synchronize the line, find falling edges.
        self.line_synchronizing.d.next = self.line.val();
        self.line_synchronized.d.next = self.line_synchronizing.q.val();
        self.line_previous.d.next = self.line_synchronized.q.val();
        // Stage 2: count to the middle of each bit and sample it.
        self.arrived.d.next = false;
        self.stop_low.d.next = false;
        if self.timer.q.val() != 0 {
            self.timer.d.next = self.timer.q.val() - 1;
        }
        match self.state.q.val() {
            ReceiverState::Idle => {
                if self.line_previous.q.val() && !self.line_synchronized.q.val() {
                    self.state.d.next = ReceiverState::Start;
                    self.timer.d.next = (self.clocks_per_bit.val() >> 1) - 1;
                }
            }
            ReceiverState::Start => {
                if self.timer.q.val() == 0 {
                    if self.line_synchronized.q.val() {
                        // a glitch, not a start bit
                        self.state.d.next = ReceiverState::Idle;
                    } else {
                        self.state.d.next = ReceiverState::Data;
                        self.timer.d.next = self.clocks_per_bit.val() - 1;
                        self.bit_index.d.next = 0.into();
                    }
                }
            }
            ReceiverState::Data => {
                if self.timer.q.val() == 0 {
                    if self.line_synchronized.q.val() {
                        self.shift.d.next = (self.shift.q.val() >> 1) | 0x80;
                    } else {
                        self.shift.d.next = self.shift.q.val() >> 1;
                    }
                    self.timer.d.next = self.clocks_per_bit.val() - 1;
                    self.bit_index.d.next = self.bit_index.q.val() + 1;
                    if self.bit_index.q.val() == 7 {
                        self.state.d.next = ReceiverState::Stop;
                    }
                }
            }
            ReceiverState::Stop => {
                if self.timer.q.val() == 0 {
                    self.state.d.next = ReceiverState::Idle;
                    self.arrived.d.next = self.line_synchronized.q.val();
                    self.stop_low.d.next = !self.line_synchronized.q.val();
                }
            }
            _ => {
                self.state.d.next = ReceiverState::Idle;
            }
        }
        if self.reset.val() {
            self.state.d.next = ReceiverState::Idle;
            self.arrived.d.next = false;
            self.stop_low.d.next = false;
        }
        self.byte_valid.next = self.arrived.q.val();
        self.data.next = self.shift.q.val();
        self.framing_error.next = self.stop_low.q.val();
    }
}

/// A UART transmitter (8N1): a byte taken while `ready` goes out as start bit, eight data bits
/// from the least significant, stop bit.
#[derive(LogicBlock, Default)]
pub struct UartTransmitter {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous, active high: the line goes idle at once.
    pub reset: Signal<In, Bit>,
    /// Clocks per bit (at least 4).
    pub clocks_per_bit: Signal<In, Bits<DIVIDER_BITS>>,
    /// Send `data` (taken only while `ready`).
    pub send: Signal<In, Bit>,
    /// The byte to send.
    pub data: Signal<In, Bits<8>>,
    /// Idle: a byte can be taken.
    pub ready: Signal<Out, Bit>,
    /// The serial line (registered, idle high).
    pub line: Signal<Out, Bit>,
    /// Bit times left in the byte being sent (10 at its start bit, 0 when idle).
    bits_left: DFF<Bits<4>>,
    timer: DFF<Bits<DIVIDER_BITS>>,
    /// The bits after the one on the line, stop bit included.
    shift: DFF<Bits<9>>,
    /// The line is low (so that the reset value is an idle line).
    line_low: DFF<Bit>,
}

impl Logic for UartTransmitter {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, bits_left, timer, shift, line_low);
        self.ready.next = self.bits_left.q.val() == 0;
        if self.bits_left.q.val() == 0 {
            if self.send.val() {
                self.line_low.d.next = true;
                self.shift.d.next = bit_cast::<9, 8>(self.data.val()) | 0x100;
                self.bits_left.d.next = 10.into();
                self.timer.d.next = self.clocks_per_bit.val() - 1;
            }
        } else if self.timer.q.val() == 0 {
            self.timer.d.next = self.clocks_per_bit.val() - 1;
            self.bits_left.d.next = self.bits_left.q.val() - 1;
            self.line_low.d.next = !self.shift.q.val().get_bit(0) && self.bits_left.q.val() != 1;
            self.shift.d.next = (self.shift.q.val() >> 1) | 0x100;
        } else {
            self.timer.d.next = self.timer.q.val() - 1;
        }
        if self.reset.val() {
            self.bits_left.d.next = 0.into();
            self.line_low.d.next = false;
        }
        self.line.next = !self.line_low.q.val();
    }
}

/// Where a [`SerialBridge`] is in a request.
#[derive(Copy, Clone, PartialEq, Eq, Debug, LogicState)]
pub enum BridgeState {
    /// Waiting for a request's first byte.
    Command,
    /// Receiving a request's address and data.
    Receive,
    /// The access is on the bus: waiting for its handshakes and response.
    Access,
    /// Sending the answer.
    Answer,
}

/// The UART-to-AXI4-Lite bridge of the serial register protocol.
#[derive(LogicBlock)]
pub struct SerialBridge {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous, active high.
    pub reset: Signal<In, Bit>,
    /// Clocks per bit: the clock's frequency over the baud rate (at least 4).
    pub clocks_per_bit: Signal<In, Bits<DIVIDER_BITS>>,
    /// The serial line from the host (the FTDI's TXD).
    pub rx: Signal<In, Bit>,
    /// The serial line to the host (registered, idle high).
    pub tx: Signal<Out, Bit>,
    /// AXI4-Lite master: write address valid.
    pub m_axil_awvalid: Signal<Out, Bit>,
    /// AXI4-Lite master: write address ready.
    pub m_axil_awready: Signal<In, Bit>,
    /// AXI4-Lite master: write address.
    pub m_axil_awaddr: Signal<Out, Bits<32>>,
    /// AXI4-Lite master: write data valid.
    pub m_axil_wvalid: Signal<Out, Bit>,
    /// AXI4-Lite master: write data ready.
    pub m_axil_wready: Signal<In, Bit>,
    /// AXI4-Lite master: write data.
    pub m_axil_wdata: Signal<Out, Bits<32>>,
    /// AXI4-Lite master: write strobes (always all four).
    pub m_axil_wstrb: Signal<Out, Bits<4>>,
    /// AXI4-Lite master: write response valid.
    pub m_axil_bvalid: Signal<In, Bit>,
    /// AXI4-Lite master: write response ready (always high).
    pub m_axil_bready: Signal<Out, Bit>,
    /// AXI4-Lite master: write response.
    pub m_axil_bresp: Signal<In, Bits<2>>,
    /// AXI4-Lite master: read address valid.
    pub m_axil_arvalid: Signal<Out, Bit>,
    /// AXI4-Lite master: read address ready.
    pub m_axil_arready: Signal<In, Bit>,
    /// AXI4-Lite master: read address.
    pub m_axil_araddr: Signal<Out, Bits<32>>,
    /// AXI4-Lite master: read data valid.
    pub m_axil_rvalid: Signal<In, Bit>,
    /// AXI4-Lite master: read data ready (always high).
    pub m_axil_rready: Signal<Out, Bit>,
    /// AXI4-Lite master: read data.
    pub m_axil_rdata: Signal<In, Bits<32>>,
    /// AXI4-Lite master: read response.
    pub m_axil_rresp: Signal<In, Bits<2>>,
    /// Bytes dropped for `Discard::UnknownCommand`.
    pub discards_unknown_command: Signal<Out, Bits<32>>,
    /// Bytes dropped for `Discard::Framing`.
    pub discards_framing: Signal<Out, Bits<32>>,
    /// Requests dropped for `Discard::Timeout`.
    pub discards_timeout: Signal<Out, Bits<32>>,
    /// Bytes dropped for `Discard::Overrun`.
    pub discards_overrun: Signal<Out, Bits<32>>,
    receiver: UartReceiver,
    transmitter: UartTransmitter,
    unknown_command: EventCounter,
    framing: EventCounter,
    timeout: EventCounter,
    overrun: EventCounter,
    state: DFF<BridgeState>,
    /// The request is a write.
    write: DFF<Bit>,
    /// Bytes of the request received so far.
    received: DFF<Bits<4>>,
    address: DFF<Bits<32>>,
    data: DFF<Bits<32>>,
    /// Clocks left in the current bit time, and bit times of silence in a request.
    bit_clock: DFF<Bits<DIVIDER_BITS>>,
    silent_bit_times: DFF<Bits<8>>,
    aw_pending: DFF<Bit>,
    w_pending: DFF<Bit>,
    ar_pending: DFF<Bit>,
    /// The answer's bytes not sent yet, the next in the top byte.
    answer: DFF<Bits<40>>,
    answer_bytes_left: DFF<Bits<3>>,
    read_command: Constant<Bits<8>>,
    write_command: Constant<Bits<8>>,
    read_answer: Constant<Bits<8>>,
    write_answer: Constant<Bits<8>>,
    timeout_bit_times: Constant<Bits<8>>,
}

impl SerialBridge {
    /// The bridge, its constants from the protocol.
    pub fn new() -> SerialBridge {
        const _: () = assert!(TIMEOUT_BYTE_TIMES * BIT_TIMES_PER_BYTE < 256);
        SerialBridge {
            clock: Default::default(),
            reset: Default::default(),
            clocks_per_bit: Default::default(),
            rx: Default::default(),
            tx: Default::default(),
            m_axil_awvalid: Default::default(),
            m_axil_awready: Default::default(),
            m_axil_awaddr: Default::default(),
            m_axil_wvalid: Default::default(),
            m_axil_wready: Default::default(),
            m_axil_wdata: Default::default(),
            m_axil_wstrb: Default::default(),
            m_axil_bvalid: Default::default(),
            m_axil_bready: Default::default(),
            m_axil_bresp: Default::default(),
            m_axil_arvalid: Default::default(),
            m_axil_arready: Default::default(),
            m_axil_araddr: Default::default(),
            m_axil_rvalid: Default::default(),
            m_axil_rready: Default::default(),
            m_axil_rdata: Default::default(),
            m_axil_rresp: Default::default(),
            discards_unknown_command: Default::default(),
            discards_framing: Default::default(),
            discards_timeout: Default::default(),
            discards_overrun: Default::default(),
            receiver: Default::default(),
            transmitter: Default::default(),
            unknown_command: Default::default(),
            framing: Default::default(),
            timeout: Default::default(),
            overrun: Default::default(),
            state: Default::default(),
            write: Default::default(),
            received: Default::default(),
            address: Default::default(),
            data: Default::default(),
            bit_clock: Default::default(),
            silent_bit_times: Default::default(),
            aw_pending: Default::default(),
            w_pending: Default::default(),
            ar_pending: Default::default(),
            answer: Default::default(),
            answer_bytes_left: Default::default(),
            read_command: c(u64::from(READ)),
            write_command: c(u64::from(WRITE)),
            read_answer: c(u64::from(READ_ANSWER)),
            write_answer: c(u64::from(WRITE_ANSWER)),
            timeout_bit_times: c(u64::from(TIMEOUT_BYTE_TIMES * BIT_TIMES_PER_BYTE)),
        }
    }
}

impl Default for SerialBridge {
    fn default() -> SerialBridge {
        SerialBridge::new()
    }
}

impl Logic for SerialBridge {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            state,
            write,
            received,
            address,
            data,
            bit_clock,
            silent_bit_times,
            aw_pending,
            w_pending,
            ar_pending,
            answer,
            answer_bytes_left
        );
        clock!(self, clock, receiver, transmitter, unknown_command, framing, timeout, overrun);
        self.receiver.reset.next = self.reset.val();
        self.transmitter.reset.next = self.reset.val();
        self.receiver.clocks_per_bit.next = self.clocks_per_bit.val();
        self.transmitter.clocks_per_bit.next = self.clocks_per_bit.val();
        self.receiver.line.next = self.rx.val();
        self.tx.next = self.transmitter.line.val();
        self.unknown_command.reset.next = self.reset.val();
        self.framing.reset.next = self.reset.val();
        self.timeout.reset.next = self.reset.val();
        self.overrun.reset.next = self.reset.val();
        self.unknown_command.increment.next = false;
        self.framing.increment.next = self.receiver.framing_error.val();
        self.timeout.increment.next = false;
        self.overrun.increment.next = false;
        self.transmitter.send.next = false;
        self.transmitter.data.next = self.answer.q.val().get_bits::<8>(32);

        // Stage 1: bit times of silence while a request is open.
        if self.bit_clock.q.val() == 0 {
            self.bit_clock.d.next = self.clocks_per_bit.val() - 1;
            if self.silent_bit_times.q.val() != 0xFF {
                self.silent_bit_times.d.next = self.silent_bit_times.q.val() + 1;
            }
        } else {
            self.bit_clock.d.next = self.bit_clock.q.val() - 1;
        }
        if self.receiver.byte_valid.val() {
            self.silent_bit_times.d.next = 0.into();
        }

        // Stage 2: assemble a request, issue it, answer it.
        match self.state.q.val() {
            BridgeState::Command => {
                if self.receiver.byte_valid.val() {
                    if self.receiver.data.val() == self.read_command.val() {
                        self.state.d.next = BridgeState::Receive;
                        self.write.d.next = false;
                        self.received.d.next = 1.into();
                    } else if self.receiver.data.val() == self.write_command.val() {
                        self.state.d.next = BridgeState::Receive;
                        self.write.d.next = true;
                        self.received.d.next = 1.into();
                    } else {
                        self.unknown_command.increment.next = true;
                    }
                }
            }
            BridgeState::Receive => {
                if self.receiver.framing_error.val() {
                    self.state.d.next = BridgeState::Command;
                } else if self.receiver.byte_valid.val() {
                    self.received.d.next = self.received.q.val() + 1;
                    if self.received.q.val() < 5 {
                        self.address.d.next = (self.address.q.val() << 8) | bit_cast::<32, 8>(self.receiver.data.val());
                    } else {
                        self.data.d.next = (self.data.q.val() << 8) | bit_cast::<32, 8>(self.receiver.data.val());
                    }
                    if self.write.q.val() && self.received.q.val() == 8 {
                        self.state.d.next = BridgeState::Access;
                        self.aw_pending.d.next = true;
                        self.w_pending.d.next = true;
                    }
                    if !self.write.q.val() && self.received.q.val() == 4 {
                        self.state.d.next = BridgeState::Access;
                        self.ar_pending.d.next = true;
                    }
                } else if self.silent_bit_times.q.val() >= self.timeout_bit_times.val() {
                    self.state.d.next = BridgeState::Command;
                    self.timeout.increment.next = true;
                }
            }
            BridgeState::Access => {
                self.overrun.increment.next = self.receiver.byte_valid.val();
                if self.m_axil_awready.val() {
                    self.aw_pending.d.next = false;
                }
                if self.m_axil_wready.val() {
                    self.w_pending.d.next = false;
                }
                if self.m_axil_arready.val() {
                    self.ar_pending.d.next = false;
                }
                if self.write.q.val() && self.m_axil_bvalid.val() {
                    self.state.d.next = BridgeState::Answer;
                    self.answer.d.next = bit_cast::<40, 8>(self.write_answer.val() | bit_cast::<8, 2>(self.m_axil_bresp.val())) << 32;
                    self.answer_bytes_left.d.next = 1.into();
                }
                if !self.write.q.val() && self.m_axil_rvalid.val() {
                    self.state.d.next = BridgeState::Answer;
                    self.answer.d.next = (bit_cast::<40, 8>(self.read_answer.val() | bit_cast::<8, 2>(self.m_axil_rresp.val())) << 32)
                        | bit_cast::<40, 32>(self.m_axil_rdata.val());
                    self.answer_bytes_left.d.next = 5.into();
                }
            }
            BridgeState::Answer => {
                self.overrun.increment.next = self.receiver.byte_valid.val();
                if self.transmitter.ready.val() {
                    self.transmitter.send.next = true;
                    self.answer.d.next = self.answer.q.val() << 8;
                    self.answer_bytes_left.d.next = self.answer_bytes_left.q.val() - 1;
                    if self.answer_bytes_left.q.val() == 1 {
                        self.state.d.next = BridgeState::Command;
                    }
                }
            }
            _ => {
                self.state.d.next = BridgeState::Command;
            }
        }
        if self.reset.val() {
            self.state.d.next = BridgeState::Command;
            self.aw_pending.d.next = false;
            self.w_pending.d.next = false;
            self.ar_pending.d.next = false;
        }

        // Stage 3: outputs.
        self.m_axil_awvalid.next = self.aw_pending.q.val();
        self.m_axil_awaddr.next = self.address.q.val();
        self.m_axil_wvalid.next = self.w_pending.q.val();
        self.m_axil_wdata.next = self.data.q.val();
        self.m_axil_wstrb.next = 0xF.into();
        self.m_axil_bready.next = true;
        self.m_axil_arvalid.next = self.ar_pending.q.val();
        self.m_axil_araddr.next = self.address.q.val();
        self.m_axil_rready.next = true;
        self.discards_unknown_command.next = self.unknown_command.count.val();
        self.discards_framing.next = self.framing.count.val();
        self.discards_timeout.next = self.timeout.count.val();
        self.discards_overrun.next = self.overrun.count.val();
    }
}
