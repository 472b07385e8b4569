//! [`Engine`]: the whole engine in one unit: the register file (AXI4-Lite), the TX path and the
//! RX path joined, with the host's receive side ([`super::host`]) and the stream ports
//! ([`StreamSet`]). A system connects the MAC (frames in and out), memory (read commands and
//! data for what it sends, write commands and data for what it receives), the AXI4-Lite bus,
//! the pass-through stream and the streams to send.
//!
//! ```text
//!  s_axil ─► AxiLiteSplit ─► (stream block) ─► StreamSet ◄── s_stream (S streams)
//!              │                                 ▲   │ posts (the host's and the streams', in turn)
//!              ▼                                 │   ▼
//!  (the rest) Registers ─┬─ qp_read (port B) ────┼──────► TxPath ──► m_axis (MAC TX)
//!                       ├─ post / post_result, cpl ◄─┘  ▲  └──► reads ─► StreamReadRouter ─► m_read, ◄── s_pay (memory)
//!                       │                               │             (the stream window: StreamSet's buffers)
//!                       ├─ sched_cfg, cfg_block_log2 ─────►   │ s_resp, s_ack (ACK/NAK)
//!                       ├─ qp_commit ─────────────────────►  both paths       │
//!                       ├─ qp_rx_read (the table's copy) ─► RxPath ── m_dec ──┼─► CompletionQueue ─► receive_completion*
//!                       ├─ region_entry, region_write ────►   ▲   ├─► m_cmd, m_wr (memory)
//!                       ├─ receive_entry, receive_post ─► ReceivePosting ─► recv ─┘
//!                       └─◄ counters (RX path, scheduler, responder by index, host path)
//!  s_axis (MAC RX) ─► RxPath ─► HostResponder ─┬─► m_pass (not RoCEv2 nor answered here, to the host)
//!                      (not RoCEv2)            └─► ARP and echo replies ─► FrameMerge ─► m_axis (with TxPath's frames)
//! ```
//!
//! - **The decision fork**: each RX decision that carries a response (ACK or NAK) goes to the
//!   TX path's `s_resp` and waits for it; a receive completion goes to the completion queue in
//!   the same cycle (lost and counted if the queue is full, never stalling the receive side).
//!   A forwarded packet with an AETH (an ACK or NAK for this engine's requests) goes to the
//!   TX path's `s_ack` through a one-entry register slot (the fork waits while it is full,
//!   not for the TX path's `ready`, which comes from deep in its ACK tracker): its ACK tracker completes RC transfers when their
//!   last PSN is acknowledged (or fails them on a NAK); UC transfers complete when their last
//!   frame has left.
//! - **The QP table** is read by both paths every cycle: the TX path on the table's port B, the
//!   RX path on a copy written with it (`Registers`' `qp_rx_read_*`), both `QP_READ_LATENCY`
//!   cycles from index to entry. A commit reaches both paths.
//! - **The host path**: frames that are not RoCEv2 go through `HostResponder`, which answers
//!   ARP requests and ICMP echo requests for the engine's IPv4 address itself; its replies
//!   join the TX path's frames on `m_axis` at a frame boundary (`FrameMerge`, replies first).
//! - **The streams**: the AXI4-Lite accesses to the register map's `stream` block go to the
//!   stream set (`AxiLiteSplit`), the rest to the register file. The register file's posts
//!   and the stream senders' take turns into the TX path's post port, each result back to its
//!   poster; the senders see every completion the register file takes. The TX path's memory
//!   reads with address bit 63 set (the stream window) are served from the ports' buffers, the
//!   others go to `m_read` (so the host must not post local addresses, nor register memory
//!   regions, at 2^63 and above).
//! - `init_done` rises when both paths have cleared their RAMs after reset.
//!
//! Two builds share this body (`engine_build!`): [`Engine`], whose streams are ports of their
//! own ([`StreamSet`], `s_stream_*` packed S wide), and [`EngineBus`], whose streams share one
//! AXI-Stream, a packet (`tdest`) at a time ([`StreamBusSet`], up to 256 streams), on the top
//! 4·S channels of the TX path (`ferroce_contracts::stream::bus_channel_base`); the register
//! map's `build_streams.bus` tells them apart.

use super::host::{CompletionQueue, ReceivePosting};
use super::{HostResponder, RxPath};
use crate::common::elab::c;
use crate::common::fifo::{Fifo, CAPACITY};
use crate::common::frame_merge::FrameMerge;
use crate::registers::split::AxiLiteSplit;
use crate::registers::Registers;
use crate::stream::{StreamBusSet, StreamReadRouter, StreamSet};
use crate::tx::TxPath;
use ferroce_contracts::regs::{self, Config, MAX_STREAMS, QP_READ_LATENCY, STREAM_BLOCK, STREAM_STRIDE};
use ferroce_contracts::responder::{decision, DECISION, DEFAULT_REGIONS};
use ferroce_contracts::schema::RecordField;
use ferroce_contracts::stream::{bus_channel_base, BUS_STREAM_CHANNELS};
use ferroce_contracts::tx::COMPLETION_STATUS_BITS;
use rust_hdl::prelude::*;

mod entries {
    // the methods `LogicStruct` derives have no docs
    #![allow(missing_docs)]
    use rust_hdl::prelude::*;

    /// A READ response waiting for the TX path.
    #[derive(Clone, Copy, Debug, Default, PartialEq, LogicStruct)]
    pub struct ReadEntry {
        pub qp: Bits<24>,
        pub psn: Bits<24>,
        pub aeth: Bits<32>,
        pub va: Bits<64>,
        pub length: Bits<32>,
    }
}
use entries::ReadEntry;

/// Slots of the ring of the QPs of READ responses not yet gone: those waiting for the TX path
/// ([`CAPACITY`]) and a few being sent. A READ decision waits unless two slots were free in the
/// cycle before (room known from flip-flops), so 39 are listed at most.
pub const READS_IN_FLIGHT: usize = 40;

/// log2 of the memory regions (`DEFAULT_REGIONS`).
pub const REGION_BITS: usize = 6;
const _: () = assert!(1 << REGION_BITS == DEFAULT_REGIONS);

/// Writes an engine build: the engine's units joined, with `$streams` as its stream unit (the
/// `stream` block of the register map, the posts in turn, the completions, the window's reads),
/// `$port`s as that unit's data ports and `$local`s as its constants, joined by `links`
/// (`target <= source`, in order). rust-hdl reaches a sub-block's ports through a field of a
/// concrete type, so the two builds, ports ([`Engine`]) and bus ([`EngineBus`]), are one
/// body written out twice.
macro_rules! engine_build {
    (
        $(#[$doc:meta])*
        $name:ident<$($extra:ident),*> {
            streams: $streams:ty = $streams_init:expr,
            check: $check:expr,
            ports: { $($(#[$port_doc:meta])* $port:ident: $port_type:ty,)* },
            locals: { $($(#[$local_doc:meta])* $local:ident: $local_type:ty = $local_init:expr,)* },
            links: { $($($target:ident).+ <= $($source:ident).+;)* },
        }
    ) => {
        $(#[$doc])*
        #[derive(LogicBlock)]
        pub struct $name<
            const W: usize,
            const K: usize,
            const D: usize,
            const CB: usize,
            const GB: usize,
            const EB: usize,
            const QB: usize,
            const Q: usize,
            const RA: usize,
            const HB: usize,
            const BB: usize,
            const S: usize,
            $(const $extra: usize,)*
        > {
            /// Clock.
            pub clock: Signal<In, Clock>,
            /// Synchronous, active high: the whole engine (the QP table keeps its contents).
            pub reset: Signal<In, Bit>,
            /// High once both paths have cleared their RAMs after reset.
            pub init_done: Signal<Out, Bit>,
            /// AXI4-Lite: write address valid.
            pub s_axil_awvalid: Signal<In, Bit>,
            /// AXI4-Lite: write address ready.
            pub s_axil_awready: Signal<Out, Bit>,
            /// AXI4-Lite: write address.
            pub s_axil_awaddr: Signal<In, Bits<{ regs::ADDRESS_BITS }>>,
            /// AXI4-Lite: write data valid.
            pub s_axil_wvalid: Signal<In, Bit>,
            /// AXI4-Lite: write data ready.
            pub s_axil_wready: Signal<Out, Bit>,
            /// AXI4-Lite: write data.
            pub s_axil_wdata: Signal<In, Bits<32>>,
            /// AXI4-Lite: write strobes.
            pub s_axil_wstrb: Signal<In, Bits<4>>,
            /// AXI4-Lite: write response valid.
            pub s_axil_bvalid: Signal<Out, Bit>,
            /// AXI4-Lite: write response ready.
            pub s_axil_bready: Signal<In, Bit>,
            /// AXI4-Lite: write response.
            pub s_axil_bresp: Signal<Out, Bits<2>>,
            /// AXI4-Lite: read address valid.
            pub s_axil_arvalid: Signal<In, Bit>,
            /// AXI4-Lite: read address ready.
            pub s_axil_arready: Signal<Out, Bit>,
            /// AXI4-Lite: read address.
            pub s_axil_araddr: Signal<In, Bits<{ regs::ADDRESS_BITS }>>,
            /// AXI4-Lite: read data valid.
            pub s_axil_rvalid: Signal<Out, Bit>,
            /// AXI4-Lite: read data ready.
            pub s_axil_rready: Signal<In, Bit>,
            /// AXI4-Lite: read data.
            pub s_axil_rdata: Signal<Out, Bits<32>>,
            /// AXI4-Lite: read response.
            pub s_axil_rresp: Signal<Out, Bits<2>>,
            /// MAC RX (frames without FCS, `tkeep` contiguous from lane 0): valid.
            pub s_axis_tvalid: Signal<In, Bit>,
            /// MAC RX: ready.
            pub s_axis_tready: Signal<Out, Bit>,
            /// MAC RX: data.
            pub s_axis_tdata: Signal<In, Bits<W>>,
            /// MAC RX: keep.
            pub s_axis_tkeep: Signal<In, Bits<K>>,
            /// MAC RX: last beat.
            pub s_axis_tlast: Signal<In, Bit>,
            /// MAC TX (frames with ICRC, without FCS): valid.
            pub m_axis_tvalid: Signal<Out, Bit>,
            /// MAC TX: ready.
            pub m_axis_tready: Signal<In, Bit>,
            /// MAC TX: data.
            pub m_axis_tdata: Signal<Out, Bits<W>>,
            /// MAC TX: keep.
            pub m_axis_tkeep: Signal<Out, Bits<K>>,
            /// MAC TX: last beat.
            pub m_axis_tlast: Signal<Out, Bit>,
            /// Frames that are not RoCEv2, to the host: valid.
            pub m_pass_tvalid: Signal<Out, Bit>,
            /// Pass-through: ready.
            pub m_pass_tready: Signal<In, Bit>,
            /// Pass-through: data.
            pub m_pass_tdata: Signal<Out, Bits<W>>,
            /// Pass-through: keep.
            pub m_pass_tkeep: Signal<Out, Bits<K>>,
            /// Pass-through: last beat.
            pub m_pass_tlast: Signal<Out, Bit>,
            /// Memory read commands (payload to send): valid.
            pub m_read_valid: Signal<Out, Bit>,
            /// Memory read commands: ready.
            pub m_read_ready: Signal<In, Bit>,
            /// Memory read commands: address.
            pub m_read_addr: Signal<Out, Bits<64>>,
            /// Memory read commands: bytes (1..=4096).
            pub m_read_len: Signal<Out, Bits<13>>,
            /// Memory read data (per command, from lane 0, `tlast` on its last beat): valid.
            pub s_pay_tvalid: Signal<In, Bit>,
            /// Memory read data: ready.
            pub s_pay_tready: Signal<Out, Bit>,
            /// Memory read data: data.
            pub s_pay_tdata: Signal<In, Bits<W>>,
            /// Memory read data: byte enables.
            pub s_pay_tkeep: Signal<In, Bits<K>>,
            /// Memory read data: a command's last beat.
            pub s_pay_tlast: Signal<In, Bit>,
            /// Memory write commands (payload received): valid.
            pub m_cmd_valid: Signal<Out, Bit>,
            /// Memory write commands: ready.
            pub m_cmd_ready: Signal<In, Bit>,
            /// Memory write commands: address.
            pub m_cmd_address: Signal<Out, Bits<64>>,
            /// Memory write commands: bytes (1..=4096).
            pub m_cmd_length: Signal<Out, Bits<16>>,
            /// Memory write data (from lane 0, full beats but the last): valid.
            pub m_wr_tvalid: Signal<Out, Bit>,
            /// Memory write data: ready.
            pub m_wr_tready: Signal<In, Bit>,
            /// Memory write data: data.
            pub m_wr_tdata: Signal<Out, Bits<W>>,
            /// Memory write data: keep.
            pub m_wr_tkeep: Signal<Out, Bits<K>>,
            /// Memory write data: a command's last beat.
            pub m_wr_tlast: Signal<Out, Bit>,
            $($(#[$port_doc])* pub $port: $port_type,)*

            /// The AXI4-Lite bus: the stream block to the stream set, the rest to the register file.
            split: AxiLiteSplit,
            registers: Registers<CB, GB, QB>,
            streams: $streams,
            /// The TX path's memory reads: the stream window's to the stream set, the others to memory.
            read_router: StreamReadRouter<W, K>,
            tx: TxPath<W, K, CB, EB, QB, Q, QP_READ_LATENCY, HB>,
            rx: RxPath<W, K, D, QB, REGION_BITS, RA, QP_READ_LATENCY>,
            receive_posting: ReceivePosting<QB>,
            completion_queue: CompletionQueue,
            host_responder: HostResponder<W, K>,
            transmit: FrameMerge<W, K>,
            /// The RX decision on offer carries a response.
            response: Signal<Local, Bit>,
            /// The decision is an acknowledgement for the requester.
            acknowledgement: Signal<Local, Bit>,
            /// The decision carries a READ response to send.
            read: Signal<Local, Bit>,
            /// An acknowledgement for the TX path's ACK tracker, held in registers until taken (the
            /// fork waits for the slot to be free, not for the tracker: one every two cycles at most).
            ack_held: DFF<Bit>,
            ack_qp: DFF<Bits<24>>,
            ack_psn: DFF<Bits<24>>,
            ack_syndrome: DFF<Bits<8>>,
            /// READ responses waiting for the TX path.
            reads: Fifo<ReadEntry>,
            /// The QPs of the READ responses not yet gone, in order (a ring of `READS_IN_FLIGHT`).
            read_qps: [DFF<Bits<QB>>; READS_IN_FLIGHT],
            read_qp_valid: DFF<Bits<READS_IN_FLIGHT>>,
            read_tail: DFF<Bits<6>>,
            /// The slot after `read_tail`.
            read_tail_next: DFF<Bits<6>>,
            read_head: DFF<Bits<6>>,
            /// The decision on offer's QP has a READ response not yet gone (registered: meaningful when
            /// `head_checked`).
            waits_for_read: DFF<Bit>,
            /// The decision on offer was on offer in the cycle before (`waits_for_read` is its own).
            head_checked: DFF<Bit>,
            /// The slots at `read_tail` and after it were free in the cycle before, so the one at
            /// `read_tail` is now (one READ is listed a cycle): room for a READ, from flip-flops.
            read_room: DFF<Bit>,
            read_last: Constant<Bits<6>>,
            read_slot: [Constant<Bits<6>>; READS_IN_FLIGHT],
            /// The fill bit of a full READ FIFO.
            reads_full_at: Constant<Bits<6>>,
            /// The decision's AETH (a response's, or a READ response's).
            aeth: Signal<Local, Bits<32>>,
            /// Every part of the decision that waits is taken.
            fork_ready: Signal<Local, Bit>,
            /// The RX decision on offer is taken this cycle.
            decision_taken: Signal<Local, Bit>,
            at_response: Constant<Bits<9>>,
            at_acknowledgement: Constant<Bits<9>>,
            at_completion: Constant<Bits<9>>,
            at_kind: Constant<Bits<9>>,
            at_status: Constant<Bits<9>>,
            at_solicited: Constant<Bits<9>>,
            at_immediate_valid: Constant<Bits<9>>,
            at_qp: Constant<Bits<9>>,
            at_psn: Constant<Bits<9>>,
            at_syndrome: Constant<Bits<9>>,
            at_msn: Constant<Bits<9>>,
            at_length: Constant<Bits<9>>,
            at_immediate: Constant<Bits<9>>,
            at_read: Constant<Bits<9>>,
            at_read_va: Constant<Bits<9>>,
            at_read_length: Constant<Bits<9>>,
            $($(#[$local_doc])* $local: $local_type,)*
        }

        impl<
                const W: usize,
                const K: usize,
                const D: usize,
                const CB: usize,
                const GB: usize,
                const EB: usize,
                const QB: usize,
                const Q: usize,
                const RA: usize,
                const HB: usize,
                const BB: usize,
                const S: usize,
                $(const $extra: usize,)*
            > $name<W, K, D, CB, GB, EB, QB, Q, RA, HB, BB, S, $($extra),*>
        {
            /// The engine of a register file configuration (`2^CB` channels, `2^QB` QPs; its queue
            /// count is the TX path's `Q`).
            pub fn new(config: Config) -> Self {
                assert_eq!(config.queues as usize, Q, concat!(stringify!($name), ": the map's queues are the scheduler's"));
                assert_eq!(config.streams as usize, S, concat!(stringify!($name), ": the map's streams are the stream unit's"));
                ($check)(config);
                let at = |field: RecordField| c::<9>(DECISION.offset(field.name) as u64);
                Self {
                    clock: Default::default(),
                    reset: Default::default(),
                    init_done: Default::default(),
                    s_axil_awvalid: Default::default(),
                    s_axil_awready: Default::default(),
                    s_axil_awaddr: Default::default(),
                    s_axil_wvalid: Default::default(),
                    s_axil_wready: Default::default(),
                    s_axil_wdata: Default::default(),
                    s_axil_wstrb: Default::default(),
                    s_axil_bvalid: Default::default(),
                    s_axil_bready: Default::default(),
                    s_axil_bresp: Default::default(),
                    s_axil_arvalid: Default::default(),
                    s_axil_arready: Default::default(),
                    s_axil_araddr: Default::default(),
                    s_axil_rvalid: Default::default(),
                    s_axil_rready: Default::default(),
                    s_axil_rdata: Default::default(),
                    s_axil_rresp: Default::default(),
                    s_axis_tvalid: Default::default(),
                    s_axis_tready: Default::default(),
                    s_axis_tdata: Default::default(),
                    s_axis_tkeep: Default::default(),
                    s_axis_tlast: Default::default(),
                    m_axis_tvalid: Default::default(),
                    m_axis_tready: Default::default(),
                    m_axis_tdata: Default::default(),
                    m_axis_tkeep: Default::default(),
                    m_axis_tlast: Default::default(),
                    m_pass_tvalid: Default::default(),
                    m_pass_tready: Default::default(),
                    m_pass_tdata: Default::default(),
                    m_pass_tkeep: Default::default(),
                    m_pass_tlast: Default::default(),
                    m_read_valid: Default::default(),
                    m_read_ready: Default::default(),
                    m_read_addr: Default::default(),
                    m_read_len: Default::default(),
                    s_pay_tvalid: Default::default(),
                    s_pay_tready: Default::default(),
                    s_pay_tdata: Default::default(),
                    s_pay_tkeep: Default::default(),
                    s_pay_tlast: Default::default(),
                    m_cmd_valid: Default::default(),
                    m_cmd_ready: Default::default(),
                    m_cmd_address: Default::default(),
                    m_cmd_length: Default::default(),
                    m_wr_tvalid: Default::default(),
                    m_wr_tready: Default::default(),
                    m_wr_tdata: Default::default(),
                    m_wr_tkeep: Default::default(),
                    m_wr_tlast: Default::default(),
                    $($port: Default::default(),)*
                    split: AxiLiteSplit::new(STREAM_BLOCK, MAX_STREAMS * STREAM_STRIDE),
                    registers: Registers::new(config),
                    streams: $streams_init,
                    read_router: Default::default(),
                    tx: TxPath::new(config.channels, config.qps),
                    rx: Default::default(),
                    receive_posting: Default::default(),
                    completion_queue: Default::default(),
                    host_responder: Default::default(),
                    transmit: Default::default(),
                    response: Default::default(),
                    acknowledgement: Default::default(),
                    read: Default::default(),
                    reads: Default::default(),
                    read_qps: std::array::from_fn(|_| Default::default()),
                    read_qp_valid: Default::default(),
                    read_tail: Default::default(),
                    read_tail_next: Default::default(),
                    read_head: Default::default(),
                    waits_for_read: Default::default(),
                    head_checked: Default::default(),
                    read_room: Default::default(),
                    ack_held: Default::default(),
                    ack_qp: Default::default(),
                    ack_psn: Default::default(),
                    ack_syndrome: Default::default(),
                    read_last: c::<6>((READS_IN_FLIGHT - 1) as u64),
                    read_slot: std::array::from_fn(|i| c::<6>(i as u64)),
                    reads_full_at: c::<6>((CAPACITY - 1) as u64),
                    aeth: Default::default(),
                    fork_ready: Default::default(),
                    decision_taken: Default::default(),
                    at_response: at(decision::RESPONSE),
                    at_acknowledgement: at(decision::ACKNOWLEDGEMENT),
                    at_completion: at(decision::COMPLETION),
                    at_kind: at(decision::COMPLETION_KIND),
                    at_status: at(decision::COMPLETION_STATUS),
                    at_solicited: at(decision::COMPLETION_SOLICITED),
                    at_immediate_valid: at(decision::COMPLETION_IMMEDIATE_VALID),
                    at_qp: at(decision::QP),
                    at_psn: at(decision::RESPONSE_PSN),
                    at_syndrome: at(decision::RESPONSE_SYNDROME),
                    at_msn: at(decision::RESPONSE_MSN),
                    at_length: at(decision::COMPLETION_LENGTH),
                    at_immediate: at(decision::COMPLETION_IMMEDIATE),
                    at_read: at(decision::READ),
                    at_read_va: at(decision::READ_VA),
                    at_read_length: at(decision::READ_LENGTH),
                    $($local: ($local_init)(config),)*
                }
            }
        }

        impl<
                const W: usize,
                const K: usize,
                const D: usize,
                const CB: usize,
                const GB: usize,
                const EB: usize,
                const QB: usize,
                const Q: usize,
                const RA: usize,
                const HB: usize,
                const BB: usize,
                const S: usize,
                $(const $extra: usize,)*
            > Logic for $name<W, K, D, CB, GB, EB, QB, Q, RA, HB, BB, S, $($extra),*>
        {
            #[hdl_gen]
            fn update(&mut self) {
                clock!(
                    self,
                    clock,
                    split,
                    registers,
                    streams,
                    read_router,
                    tx,
                    rx,
                    receive_posting,
                    completion_queue,
                    host_responder,
                    transmit,
                    reads
                );
                dff_setup!(
                    self,
                    clock,
                    read_qp_valid,
                    read_tail,
                    read_tail_next,
                    read_head,
                    read_room,
                    ack_held,
                    ack_qp,
                    ack_psn,
                    ack_syndrome,
                    waits_for_read,
                    head_checked
                );
                for i in 0..READS_IN_FLIGHT {
                    self.read_qps[i].clock.next = self.clock.val();
                    self.read_qps[i].d.next = self.read_qps[i].q.val();
                }
                self.reads.reset.next = self.reset.val();
                self.host_responder.reset.next = self.reset.val();
                self.transmit.reset.next = self.reset.val();
                self.registers.reset.next = self.reset.val();
                self.split.reset.next = self.reset.val();
                self.streams.reset.next = self.reset.val();
                self.read_router.reset.next = self.reset.val();
                self.tx.reset.next = self.reset.val();
                self.rx.reset.next = self.reset.val();
                self.receive_posting.reset.next = self.reset.val();
                self.completion_queue.reset.next = self.reset.val();
                self.init_done.next = self.tx.init_done.val() & self.rx.init_done.val();

                // ---- AXI4-Lite: through the split, the stream block to the stream set ----
                self.split.s_axil_awvalid.next = self.s_axil_awvalid.val();
                self.s_axil_awready.next = self.split.s_axil_awready.val();
                self.split.s_axil_awaddr.next = self.s_axil_awaddr.val();
                self.split.s_axil_wvalid.next = self.s_axil_wvalid.val();
                self.s_axil_wready.next = self.split.s_axil_wready.val();
                self.split.s_axil_wdata.next = self.s_axil_wdata.val();
                self.split.s_axil_wstrb.next = self.s_axil_wstrb.val();
                self.s_axil_bvalid.next = self.split.s_axil_bvalid.val();
                self.split.s_axil_bready.next = self.s_axil_bready.val();
                self.s_axil_bresp.next = self.split.s_axil_bresp.val();
                self.split.s_axil_arvalid.next = self.s_axil_arvalid.val();
                self.s_axil_arready.next = self.split.s_axil_arready.val();
                self.split.s_axil_araddr.next = self.s_axil_araddr.val();
                self.s_axil_rvalid.next = self.split.s_axil_rvalid.val();
                self.split.s_axil_rready.next = self.s_axil_rready.val();
                self.s_axil_rdata.next = self.split.s_axil_rdata.val();
                self.s_axil_rresp.next = self.split.s_axil_rresp.val();
                self.registers.s_axil_awvalid.next = self.split.m_low_axil_awvalid.val();
                self.split.m_low_axil_awready.next = self.registers.s_axil_awready.val();
                self.registers.s_axil_awaddr.next = self.split.m_low_axil_awaddr.val();
                self.registers.s_axil_wvalid.next = self.split.m_low_axil_wvalid.val();
                self.split.m_low_axil_wready.next = self.registers.s_axil_wready.val();
                self.registers.s_axil_wdata.next = self.split.m_low_axil_wdata.val();
                self.registers.s_axil_wstrb.next = self.split.m_low_axil_wstrb.val();
                self.split.m_low_axil_bvalid.next = self.registers.s_axil_bvalid.val();
                self.registers.s_axil_bready.next = self.split.m_low_axil_bready.val();
                self.split.m_low_axil_bresp.next = self.registers.s_axil_bresp.val();
                self.registers.s_axil_arvalid.next = self.split.m_low_axil_arvalid.val();
                self.split.m_low_axil_arready.next = self.registers.s_axil_arready.val();
                self.registers.s_axil_araddr.next = self.split.m_low_axil_araddr.val();
                self.split.m_low_axil_rvalid.next = self.registers.s_axil_rvalid.val();
                self.registers.s_axil_rready.next = self.split.m_low_axil_rready.val();
                self.split.m_low_axil_rdata.next = self.registers.s_axil_rdata.val();
                self.split.m_low_axil_rresp.next = self.registers.s_axil_rresp.val();
                self.streams.s_axil_awvalid.next = self.split.m_high_axil_awvalid.val();
                self.split.m_high_axil_awready.next = self.streams.s_axil_awready.val();
                self.streams.s_axil_awaddr.next = self.split.m_high_axil_awaddr.val();
                self.streams.s_axil_wvalid.next = self.split.m_high_axil_wvalid.val();
                self.split.m_high_axil_wready.next = self.streams.s_axil_wready.val();
                self.streams.s_axil_wdata.next = self.split.m_high_axil_wdata.val();
                self.streams.s_axil_wstrb.next = self.split.m_high_axil_wstrb.val();
                self.split.m_high_axil_bvalid.next = self.streams.s_axil_bvalid.val();
                self.streams.s_axil_bready.next = self.split.m_high_axil_bready.val();
                self.split.m_high_axil_bresp.next = self.streams.s_axil_bresp.val();
                self.streams.s_axil_arvalid.next = self.split.m_high_axil_arvalid.val();
                self.split.m_high_axil_arready.next = self.streams.s_axil_arready.val();
                self.streams.s_axil_araddr.next = self.split.m_high_axil_araddr.val();
                self.split.m_high_axil_rvalid.next = self.streams.s_axil_rvalid.val();
                self.streams.s_axil_rready.next = self.split.m_high_axil_rready.val();
                self.split.m_high_axil_rdata.next = self.streams.s_axil_rdata.val();
                self.split.m_high_axil_rresp.next = self.streams.s_axil_rresp.val();

                // ---- the streams: their data in; their posts and the host's in turn to the TX path;
                // the completions the register file takes, to the senders too ----
                $(self.$($target).+.next = self.$($source).+.val();)*
                self.streams.s_post_valid.next = self.registers.post_valid.val();
                self.registers.post_ready.next = self.streams.s_post_ready.val();
                self.streams.s_post_entry.next = self.registers.post_entry.val();
                self.registers.post_result_valid.next = self.streams.s_post_result_valid.val();
                self.registers.post_result_code.next = self.streams.s_post_result_code.val();
                self.tx.post_valid.next = self.streams.m_post_valid.val();
                self.streams.m_post_ready.next = self.tx.post_ready.val();
                self.tx.post_entry.next = self.streams.m_post_entry.val();
                self.streams.m_post_result_valid.next = self.tx.post_result_valid.val();
                self.streams.m_post_result_code.next = self.tx.post_result_code.val();
                self.streams.cpl_valid.next = self.tx.cpl_valid.val() & self.registers.cpl_ready.val();
                self.streams.cpl_channel.next = self.tx.cpl_channel.val();
                self.streams.cpl_status.next = self.tx.cpl_status.val();

                // ---- the TX path: QP table port B, posts, completions, configuration, MAC TX, memory reads ----
                self.registers.qp_read_index.next = self.tx.qp_read_index.val();
                self.tx.qp_read_entry.next = self.registers.qp_read_entry.val();
                self.tx.qp_commit_valid.next = self.registers.qp_commit_valid.val();
                self.tx.qp_commit_index.next = self.registers.qp_commit_index.val();
                self.tx.qp_status_index.next = self.registers.qp_status_index.val();
                // RDMA READ as the requester: each request to the READ tracker, its end back
                self.rx.read_sent_valid.next = self.tx.read_sent_valid.val();
                self.tx.read_sent_ready.next = self.rx.read_sent_ready.val();
                self.rx.read_sent_qp.next = self.tx.read_sent_qp.val();
                self.rx.read_sent_first_psn.next = self.tx.read_sent_first_psn.val();
                self.rx.read_sent_last_psn.next = self.tx.read_sent_last_psn.val();
                self.rx.read_sent_local_address.next = self.tx.read_sent_local_address.val();
                self.rx.read_sent_length.next = self.tx.read_sent_length.val();
                self.rx.read_sent_pmtu.next = self.tx.read_sent_pmtu.val();
                self.rx.read_sent_again.next = self.tx.read_sent_again.val();
                self.rx.read_sent_generation.next = self.tx.read_sent_generation.val();
                self.tx.read_done_valid.next = self.rx.read_done_valid.val();
                self.rx.read_done_ready.next = self.tx.read_done_ready.val();
                self.tx.read_done_qp.next = self.rx.read_done_qp.val();
                self.tx.read_done_cleared.next = self.rx.read_done_cleared.val();
                self.registers.qp_status_value.next = bit_cast::<32, COMPLETION_STATUS_BITS>(self.tx.qp_status_value.val());
                self.registers.cpl_valid.next = self.tx.cpl_valid.val();
                self.tx.cpl_ready.next = self.registers.cpl_ready.val();
                self.registers.cpl_channel.next = self.tx.cpl_channel.val();
                self.registers.cpl_status.next = self.tx.cpl_status.val();
                self.tx.cfg_block_log2.next = self.registers.cfg_block_log2.val();
                self.tx.cfg_tick_cycles.next = self.registers.cfg_tick_cycles.val();
                self.tx.cfg_read_queue.next = self.registers.cfg_read_queue.val();
                self.tx.sched_cfg_we.next = self.registers.sched_cfg_we.val();
                self.tx.sched_cfg_addr.next = self.registers.sched_cfg_addr.val();
                self.tx.sched_cfg_wdata.next = self.registers.sched_cfg_wdata.val();
                self.registers.cnt_dup.next = self.tx.cnt_sched_dup.val();
                self.registers.cnt_bad_queue.next = self.tx.cnt_sched_bad_queue.val();
                self.registers.cnt_ack_ignored.next = self.tx.cnt_ack_ignored.val();
                self.registers.cnt_retransmitted.next = self.tx.cnt_retransmitted.val();
                self.registers.cnt_timeouts.next = self.tx.cnt_timeouts.val();
                self.registers.cnt_retries_exhausted.next = self.tx.cnt_retries_exhausted.val();
                // (the MAC TX stream: the host responder's replies first at a frame boundary, else the TX path's frames)
                self.transmit.s_low_tvalid.next = self.tx.m_axis_tvalid.val();
                self.tx.m_axis_tready.next = self.transmit.s_low_tready.val();
                self.transmit.s_low_tdata.next = self.tx.m_axis_tdata.val();
                self.transmit.s_low_tkeep.next = self.tx.m_axis_tkeep.val();
                self.transmit.s_low_tlast.next = self.tx.m_axis_tlast.val();
                self.transmit.s_high_tvalid.next = self.host_responder.m_reply_tvalid.val();
                self.host_responder.m_reply_tready.next = self.transmit.s_high_tready.val();
                self.transmit.s_high_tdata.next = self.host_responder.m_reply_tdata.val();
                self.transmit.s_high_tkeep.next = self.host_responder.m_reply_tkeep.val();
                self.transmit.s_high_tlast.next = self.host_responder.m_reply_tlast.val();
                self.m_axis_tvalid.next = self.transmit.m_axis_tvalid.val();
                self.transmit.m_axis_tready.next = self.m_axis_tready.val();
                self.m_axis_tdata.next = self.transmit.m_axis_tdata.val();
                self.m_axis_tkeep.next = self.transmit.m_axis_tkeep.val();
                self.m_axis_tlast.next = self.transmit.m_axis_tlast.val();
                // (the TX path's memory reads: the stream window's from the stream set, in order)
                self.read_router.s_read_valid.next = self.tx.m_read_valid.val();
                self.tx.m_read_ready.next = self.read_router.s_read_ready.val();
                self.read_router.s_read_addr.next = self.tx.m_read_addr.val();
                self.read_router.s_read_len.next = self.tx.m_read_len.val();
                self.m_read_valid.next = self.read_router.m_mem_read_valid.val();
                self.read_router.m_mem_read_ready.next = self.m_read_ready.val();
                self.m_read_addr.next = self.read_router.m_mem_read_addr.val();
                self.m_read_len.next = self.read_router.m_mem_read_len.val();
                self.streams.s_read_valid.next = self.read_router.m_win_read_valid.val();
                self.read_router.m_win_read_ready.next = self.streams.s_read_ready.val();
                self.streams.s_read_addr.next = self.read_router.m_win_read_addr.val();
                self.streams.s_read_len.next = self.read_router.m_win_read_len.val();
                self.read_router.s_mem_pay_tvalid.next = self.s_pay_tvalid.val();
                self.s_pay_tready.next = self.read_router.s_mem_pay_tready.val();
                self.read_router.s_mem_pay_tdata.next = self.s_pay_tdata.val();
                self.read_router.s_mem_pay_tkeep.next = self.s_pay_tkeep.val();
                self.read_router.s_mem_pay_tlast.next = self.s_pay_tlast.val();
                self.read_router.s_win_pay_tvalid.next = self.streams.m_pay_tvalid.val();
                self.streams.m_pay_tready.next = self.read_router.s_win_pay_tready.val();
                self.read_router.s_win_pay_tdata.next = self.streams.m_pay_tdata.val();
                self.read_router.s_win_pay_tkeep.next = self.streams.m_pay_tkeep.val();
                self.read_router.s_win_pay_tlast.next = self.streams.m_pay_tlast.val();
                self.tx.s_pay_tvalid.next = self.read_router.m_pay_tvalid.val();
                self.read_router.m_pay_tready.next = self.tx.s_pay_tready.val();
                self.tx.s_pay_tdata.next = self.read_router.m_pay_tdata.val();
                self.tx.s_pay_tkeep.next = self.read_router.m_pay_tkeep.val();
                self.tx.s_pay_tlast.next = self.read_router.m_pay_tlast.val();

                // ---- the RX path: MAC RX, pass-through, memory writes, the QP table's copy ----
                self.rx.s_axis_tvalid.next = self.s_axis_tvalid.val();
                self.s_axis_tready.next = self.rx.s_axis_tready.val();
                self.rx.s_axis_tdata.next = self.s_axis_tdata.val();
                self.rx.s_axis_tkeep.next = self.s_axis_tkeep.val();
                self.rx.s_axis_tlast.next = self.s_axis_tlast.val();
                // (frames that are not RoCEv2: ARP and echo requests for us answered, the rest to the host)
                self.host_responder.s_axis_tvalid.next = self.rx.m_pass_tvalid.val();
                self.rx.m_pass_tready.next = self.host_responder.s_axis_tready.val();
                self.host_responder.s_axis_tdata.next = self.rx.m_pass_tdata.val();
                self.host_responder.s_axis_tkeep.next = self.rx.m_pass_tkeep.val();
                self.host_responder.s_axis_tlast.next = self.rx.m_pass_tlast.val();
                self.host_responder.cfg_local_mac.next = self.registers.cfg_local_mac.val();
                self.host_responder.cfg_local_ipv4.next = self.registers.cfg_local_ipv4.val();
                self.m_pass_tvalid.next = self.host_responder.m_pass_tvalid.val();
                self.host_responder.m_pass_tready.next = self.m_pass_tready.val();
                self.m_pass_tdata.next = self.host_responder.m_pass_tdata.val();
                self.m_pass_tkeep.next = self.host_responder.m_pass_tkeep.val();
                self.m_pass_tlast.next = self.host_responder.m_pass_tlast.val();
                self.registers.cnt_arp_replies.next = self.host_responder.cnt_arp_replies.val();
                self.registers.cnt_echo_replies.next = self.host_responder.cnt_echo_replies.val();
                self.registers.cnt_deferred.next = self.host_responder.cnt_deferred.val();
                self.registers.cnt_drop_host_truncated.next = self.host_responder.cnt_drop_truncated.val();
                self.registers.cnt_drop_host_too_long.next = self.host_responder.cnt_drop_too_long.val();
                self.m_cmd_valid.next = self.rx.m_cmd_valid.val();
                self.rx.m_cmd_ready.next = self.m_cmd_ready.val();
                self.m_cmd_address.next = self.rx.m_cmd_address.val();
                self.m_cmd_length.next = self.rx.m_cmd_length.val();
                self.m_wr_tvalid.next = self.rx.m_wr_tvalid.val();
                self.rx.m_wr_tready.next = self.m_wr_tready.val();
                self.m_wr_tdata.next = self.rx.m_wr_tdata.val();
                self.m_wr_tkeep.next = self.rx.m_wr_tkeep.val();
                self.m_wr_tlast.next = self.rx.m_wr_tlast.val();
                self.registers.qp_rx_read_index.next = self.rx.qp_read_index.val();
                self.rx.qp_read_entry.next = self.registers.qp_rx_read_entry.val();
                self.rx.qp_commit_valid.next = self.registers.qp_commit_valid.val();
                self.rx.qp_commit_index.next = self.registers.qp_commit_index.val();

                // ---- the host's receive side: regions, receive posts, counters ----
                self.rx.region_write_valid.next = self.registers.region_write_valid.val();
                self.rx.region_write_index.next = self.registers.region_write_data.val().get_bits::<REGION_BITS>(0);
                self.rx.region_write_entry.next = self.registers.region_entry.val();
                self.receive_posting.post.next = self.registers.receive_post_valid.val();
                self.receive_posting.staged.next = self.registers.receive_entry.val();
                self.rx.recv_valid.next = self.receive_posting.recv_valid.val();
                self.receive_posting.recv_ready.next = self.rx.recv_ready.val();
                self.rx.recv_qp.next = self.receive_posting.recv_qp.val();
                self.rx.recv_address.next = self.receive_posting.recv_address.val();
                self.rx.recv_length.next = self.receive_posting.recv_length.val();
                self.receive_posting.result_valid.next = self.rx.recv_result_valid.val();
                self.receive_posting.result_full.next = self.rx.recv_result_full.val();
                self.registers.receive_status.next = self.receive_posting.status.val();
                self.rx.counter_index.next = self.registers.responder_counter_index.val();
                self.registers.responder_counter_value.next = self.rx.counter_value.val();
                self.registers.cnt_frames_in.next = self.rx.cnt_frames_in.val();
                self.registers.cnt_accepted.next = self.rx.cnt_accepted.val();
                self.registers.cnt_passed.next = self.rx.cnt_passed.val();
                self.registers.cnt_drop_ip_header.next = self.rx.cnt_drop_ip_header.val();
                self.registers.cnt_drop_truncated.next = self.rx.cnt_drop_truncated.val();
                self.registers.cnt_drop_ip_length.next = self.rx.cnt_drop_ip_length.val();
                self.registers.cnt_drop_ip_checksum.next = self.rx.cnt_drop_ip_checksum.val();
                self.registers.cnt_drop_ip_fragment.next = self.rx.cnt_drop_ip_fragment.val();
                self.registers.cnt_drop_udp_length.next = self.rx.cnt_drop_udp_length.val();
                self.registers.cnt_drop_tver.next = self.rx.cnt_drop_tver.val();
                self.registers.cnt_drop_opcode.next = self.rx.cnt_drop_opcode.val();
                self.registers.cnt_drop_padcnt.next = self.rx.cnt_drop_padcnt.val();
                self.registers.cnt_drop_icrc.next = self.rx.cnt_drop_icrc.val();
                self.registers.cnt_written.next = self.rx.cnt_written.val();
                self.registers.cnt_discarded.next = self.rx.cnt_discarded.val();
                self.registers.cnt_read_taken.next = self.rx.cnt_read_taken.val();
                self.registers.cnt_read_duplicates.next = self.rx.cnt_read_duplicates.val();
                self.registers.cnt_read_gaps.next = self.rx.cnt_read_gaps.val();
                self.registers.cnt_read_bad.next = self.rx.cnt_read_bad.val();

                // ---- the decision fork: a response waits for the TX path, so does an acknowledgement
                // (for the requester); a completion is queued ----
                self.response.next = self.rx.m_dec_entry.val().get_bit(self.at_response.val().index());
                self.acknowledgement.next = self.rx.m_dec_entry.val().get_bit(self.at_acknowledgement.val().index());
                self.aeth.next = bit_cast::<32, 8>(self.rx.m_dec_entry.val().get_bits::<8>(self.at_syndrome.val().index())) << 24
                    | bit_cast::<32, 24>(self.rx.m_dec_entry.val().get_bits::<24>(self.at_msn.val().index()));
                self.read.next = self.rx.m_dec_entry.val().get_bit(self.at_read.val().index());
                // an ACK or NAK waits while a READ response of its QP has not gone (the requester takes
                // a later acknowledgement for the READ response's loss); a READ waits for room
                self.read_room.d.next = !self.read_qp_valid.q.val().get_bit(self.read_tail.q.val().index())
                    & !self.read_qp_valid.q.val().get_bit(self.read_tail_next.q.val().index());
                self.fork_ready.next = (!self.response.val()
                    | (self.tx.s_resp_ready.val() & self.head_checked.q.val() & !self.waits_for_read.q.val()))
                    & (!self.acknowledgement.val() | !self.ack_held.q.val())
                    & (!self.read.val() | (!self.reads.fill.val().get_bit(self.reads_full_at.val().index()) & self.read_room.q.val()));
                self.rx.m_dec_ready.next = self.fork_ready.val();
                self.decision_taken.next = self.rx.m_dec_valid.val() & self.fork_ready.val();
                // (the TX path takes a response when it is free: offered only once it may go)
                self.tx.s_resp_valid.next =
                    self.rx.m_dec_valid.val() & self.response.val() & self.head_checked.q.val() & !self.waits_for_read.q.val();
                // an acknowledgement waits in the ACK slot
                self.tx.s_ack_valid.next = self.ack_held.q.val();
                if self.tx.s_ack_ready.val() {
                    self.ack_held.d.next = false;
                }
                if self.decision_taken.val() & self.acknowledgement.val() {
                    self.ack_held.d.next = true;
                    self.ack_qp.d.next = self.rx.m_dec_entry.val().get_bits::<24>(self.at_qp.val().index());
                    self.ack_psn.d.next = self.rx.m_dec_entry.val().get_bits::<24>(self.at_psn.val().index());
                    self.ack_syndrome.d.next = self.rx.m_dec_entry.val().get_bits::<8>(self.at_syndrome.val().index());
                }
                // READ responses: through a FIFO to the TX path, their QPs listed until gone
                self.reads.push.next = self.decision_taken.val() & self.read.val();
                self.reads.push_value.next.qp = self.rx.m_dec_entry.val().get_bits::<24>(self.at_qp.val().index());
                self.reads.push_value.next.psn = self.rx.m_dec_entry.val().get_bits::<24>(self.at_psn.val().index());
                self.reads.push_value.next.aeth = self.aeth.val();
                self.reads.push_value.next.va = self.rx.m_dec_entry.val().get_bits::<64>(self.at_read_va.val().index());
                self.reads.push_value.next.length = self.rx.m_dec_entry.val().get_bits::<32>(self.at_read_length.val().index());
                self.tx.s_read_valid.next = self.reads.head_valid.val();
                self.reads.pop.next = self.reads.head_valid.val() & self.tx.s_read_ready.val();
                self.tx.s_read_qp.next = self.reads.head.val().qp;
                self.tx.s_read_psn.next = self.reads.head.val().psn;
                self.tx.s_read_aeth.next = self.reads.head.val().aeth;
                self.tx.s_read_va.next = self.reads.head.val().va;
                self.tx.s_read_length.next = self.reads.head.val().length;
                if self.decision_taken.val() & self.read.val() {
                    for i in 0..READS_IN_FLIGHT {
                        if self.read_tail.q.val() == self.read_slot[i].val() {
                            self.read_qps[i].d.next = self.rx.m_dec_entry.val().get_bits::<QB>(self.at_qp.val().index());
                        }
                    }
                    self.read_qp_valid.d.next = self.read_qp_valid.q.val().replace_bit(self.read_tail.q.val().index(), true);
                    self.read_tail.d.next = self.read_tail_next.q.val();
                    self.read_tail_next.d.next = self.read_tail_next.q.val() + 1;
                    if self.read_tail_next.q.val() == self.read_last.val() {
                        self.read_tail_next.d.next = 0.into();
                    }
                }
                if self.tx.m_read_done.val() {
                    self.read_qp_valid.d.next = self.read_qp_valid.d.val().replace_bit(self.read_head.q.val().index(), false);
                    self.read_head.d.next = self.read_head.q.val() + 1;
                    if self.read_head.q.val() == self.read_last.val() {
                        self.read_head.d.next = 0.into();
                    }
                }
                self.waits_for_read.d.next = false;
                for i in 0..READS_IN_FLIGHT {
                    if self.read_qp_valid.q.val().get_bit(i)
                        & (self.read_qps[i].q.val() == self.rx.m_dec_entry.val().get_bits::<QB>(self.at_qp.val().index()))
                    {
                        self.waits_for_read.d.next = true;
                    }
                }
                self.head_checked.d.next = self.rx.m_dec_valid.val() & !self.decision_taken.val();
                if self.reset.val() {
                    self.read_qp_valid.d.next = 0.into();
                    self.read_tail.d.next = 0.into();
                    self.read_tail_next.d.next = 1.into();
                    self.read_head.d.next = 0.into();
                    self.read_room.d.next = false;
                    self.ack_held.d.next = false;
                }
                self.tx.s_ack_qp.next = self.ack_qp.q.val();
                self.tx.s_ack_psn.next = self.ack_psn.q.val();
                self.tx.s_ack_syndrome.next = self.ack_syndrome.q.val();
                self.tx.s_resp_qp.next = self.rx.m_dec_entry.val().get_bits::<24>(self.at_qp.val().index());
                self.tx.s_resp_psn.next = self.rx.m_dec_entry.val().get_bits::<24>(self.at_psn.val().index());
                self.tx.s_resp_aeth.next = self.aeth.val();
                self.completion_queue.push.next = self.decision_taken.val() & self.rx.m_dec_entry.val().get_bit(self.at_completion.val().index());
                self.completion_queue.push_value.next.kind = self.rx.m_dec_entry.val().get_bit(self.at_kind.val().index());
                self.completion_queue.push_value.next.status = self.rx.m_dec_entry.val().get_bits::<2>(self.at_status.val().index());
                self.completion_queue.push_value.next.solicited = self.rx.m_dec_entry.val().get_bit(self.at_solicited.val().index());
                self.completion_queue.push_value.next.immediate_valid = self.rx.m_dec_entry.val().get_bit(self.at_immediate_valid.val().index());
                self.completion_queue.push_value.next.qp = self.rx.m_dec_entry.val().get_bits::<24>(self.at_qp.val().index());
                self.completion_queue.push_value.next.immediate = self.rx.m_dec_entry.val().get_bits::<32>(self.at_immediate.val().index());
                self.completion_queue.push_value.next.length = self.rx.m_dec_entry.val().get_bits::<32>(self.at_length.val().index());
                self.completion_queue.pop_write.next = self.registers.receive_completion_pop_valid.val();
                self.completion_queue.pop_data.next = self.registers.receive_completion_pop_data.val();
                self.registers.receive_completion0.next = self.completion_queue.head.val().get_bits::<32>(0);
                self.registers.receive_completion1.next = self.completion_queue.head.val().get_bits::<32>(32);
                self.registers.receive_completion2.next = self.completion_queue.head.val().get_bits::<32>(64);
                self.registers.cnt_completions_lost.next = self.completion_queue.lost.val();
            }
        }
    };
}

engine_build! {
    /// The engine at `W` bits (`K = W / 8` lanes, `D` the RX front end's data FIFO depth) with
    /// `2^CB` channels (`GB = CB − 5` poll groups, `EB = CB + 1`), `2^QB` QPs, `Q` scheduler queues
    /// and `2^(RA − QB)` receive buffers per QP, and `S` stream ports of `2^BB` beats each
    /// (`SW = S × W`, `SK = S × K`).
    Engine<SW, SK> {
        streams: StreamSet<W, K, BB, S, SW, SK> = Default::default(),
        check: |config: Config| {
            assert_eq!(
                config.stream_buffer_bytes as usize,
                K << BB,
                "Engine: the map's stream buffer is the stream ports'"
            );
            assert!(!config.stream_bus, "Engine: a map of stream ports");
        },
        ports: {
            /// The streams (AXI-Stream, `tkeep` contiguous from lane 0; stream `s` in `tdata` bits
            /// `s × W + W − 1 .. s × W`): valid, bit `s` for stream `s`.
            s_stream_tvalid: Signal<In, Bits<S>>,
            /// The streams: ready.
            s_stream_tready: Signal<Out, Bits<S>>,
            /// The streams: data.
            s_stream_tdata: Signal<In, Bits<SW>>,
            /// The streams: keep.
            s_stream_tkeep: Signal<In, Bits<SK>>,
            /// The streams: last beat (ends a message where the stream's `end_at_tlast` is set).
            s_stream_tlast: Signal<In, Bits<S>>,
        },
        locals: {},
        links: {
            streams.s_axis_tvalid <= s_stream_tvalid;
            s_stream_tready <= streams.s_axis_tready;
            streams.s_axis_tdata <= s_stream_tdata;
            streams.s_axis_tkeep <= s_stream_tkeep;
            streams.s_axis_tlast <= s_stream_tlast;
        },
    }
}

engine_build! {
    /// The engine of [`Engine`] with its streams on one AXI-Stream ([`StreamBusSet`]): `S =
    /// 2^SB` streams in a buffer of `2^BB` beats (a region of `2^RB` beats each, positions of
    /// `PB` bits, `PL = SB + 2` bits naming a stream's channel place). The streams own the top
    /// 4·S channels: stream `s` posts on channels `channels − 4·S + 4s` to `+ 3`, and the host
    /// posts on the channels below them.
    EngineBus<SB, PB, PL, RB> {
        streams: StreamBusSet<W, K, BB, S, SB, PB, PL, RB> = Default::default(),
        check: |config: Config| {
            assert_eq!(
                config.stream_buffer_bytes as usize,
                K << RB,
                "EngineBus: the map's stream buffer is a stream's region"
            );
            assert!(config.stream_bus, "EngineBus: a map of a stream bus");
            assert!(
                config.channels as usize >= BUS_STREAM_CHANNELS as usize * S,
                "EngineBus: {} channels, fewer than the streams' {}",
                config.channels,
                BUS_STREAM_CHANNELS as usize * S
            );
        },
        ports: {
            /// The streams, a packet at a time (AXI-Stream, `tkeep` contiguous from lane 0,
            /// `tdest` the packet's stream, held to `tlast`): valid.
            s_stream_tvalid: Signal<In, Bit>,
            /// The streams: ready.
            s_stream_tready: Signal<Out, Bit>,
            /// The streams: data.
            s_stream_tdata: Signal<In, Bits<W>>,
            /// The streams: keep.
            s_stream_tkeep: Signal<In, Bits<K>>,
            /// The streams: a packet's last beat (ends a message where the stream's
            /// `end_at_tlast` is set).
            s_stream_tlast: Signal<In, Bit>,
            /// The streams: the packet's stream.
            s_stream_tdest: Signal<In, Bits<8>>,
        },
        locals: {
            /// The streams' first channel: the top 4·S of the TX path's.
            channel_base: Constant<Bits<16>> = |config: Config| {
                c::<16>(u64::from(bus_channel_base(config.channels, S as u32)))
            },
        },
        links: {
            streams.channel_base <= channel_base;
            streams.s_axis_tvalid <= s_stream_tvalid;
            s_stream_tready <= streams.s_axis_tready;
            streams.s_axis_tdata <= s_stream_tdata;
            streams.s_axis_tkeep <= s_stream_tkeep;
            streams.s_axis_tlast <= s_stream_tlast;
            streams.s_axis_tdest <= s_stream_tdest;
        },
    }
}
