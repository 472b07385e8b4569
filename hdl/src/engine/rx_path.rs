//! [`RxPath`]: the engine's whole receive side in one unit: MAC frames in, memory writes,
//! decisions (receive completions, ACKs and NAKs to send) and pass-through frames out. The
//! specification is `docs/engine.md`; the golden model is the RX front end model followed by the
//! responder model (`ferroce_models::responder::Responder::receive_rx`).
//!
//! ```text
//!  s_axis ─► RxFront ─┬─ r_* (final records) ─► record FIFO ─► next_record ─► Responder ─► decision ─┐
//!  (MAC)              │                                                          ▲                   │
//!                     │                   qp_read_*, qp_commit_*, region_write_*, recv_*              │
//!                     │                   (the register file)                                         │
//!                     ├─ m_pay (payloads) ─► PayloadWriter ◄─ write, address, length ◄────────────────┤
//!                     │                        └─► m_cmd, m_wr (memory)                               │
//!                     └─ m_pass (not RoCEv2)                         m_dec (completions, ACK/NAK) ◄───┘
//! ```
//!
//! - Each final record of `RxFront` gets one decision; a payload waits in the writer's block RAM
//!   until its decision says where it goes (or that it is discarded), so a dropped or failing
//!   packet never writes a byte.
//! - **The record FIFO** (LUTRAM, 32 records of the fields the responder reads) takes the final
//!   records as `RxFront` makes them and drops the header records, which the responder does not
//!   need: `RxFront` stops its input while a record waits, so without it the next frame's header
//!   record would hold the wire until the responder finished the previous packet. Its head moves
//!   to a register (`next_record`) whenever that is empty, so the FIFO's read does not wait on the
//!   responder's `r_ready` (too deep to reach the LUTRAM's read address in 6 levels).
//! - **The decision fork**: each decision goes to the writer (`write`, `write_address`,
//!   `write_length`) and whole into the decision FIFO (LUTRAM, 32 decisions), each side taking
//!   it when it is ready; the responder moves on when both have it.
//! - **Decisions after their payload**: the FIFO's head leaves on `m_dec_*` only once the
//!   writer has retired it (`PayloadWriter::retired`: memory has taken the payload's command and
//!   last beat, or there was nothing to write). So the ACK the TX path sends and the receive
//!   completion the host reads never speak for a payload memory does not have yet.
//! - The responder handles one final record in 7 cycles (`docs/engine.md`, Timing): packets
//!   shorter than 7 beats back-pressure `RxFront`, once the record FIFO is full, and through it
//!   `s_axis`.

use super::{PayloadWriter, ReadTracker, Responder};
use crate::common::elab::c;
use crate::common::fifo::{Fifo, ReleasedFifo, CAPACITY};
use crate::rx::RxFront;
use ferroce_contracts::responder::{COUNTER_INDEX_BITS, DECISION, DECISION_BITS, MEMORY_REGION_BITS};
use ferroce_contracts::tx::QP_CONTEXT_BITS;
use rust_hdl::prelude::*;

/// The fields of a final record the responder reads (`RxFront`'s `r_*` of the same names): the
/// record FIFO's entry.
#[derive(Clone, Copy, Debug, Default, PartialEq, LogicStruct)]
struct ResponderRecord {
    /// The front end drops the packet.
    pub drop: Bit,
    /// The record has a BTH.
    pub bth_ok: Bit,
    /// BTH opcode.
    pub bth_opcode: Bits<8>,
    /// BTH solicited event.
    pub bth_se: Bit,
    /// BTH P_Key.
    pub bth_pkey: Bits<16>,
    /// BTH destination QP.
    pub bth_dqpn: Bits<24>,
    /// BTH AckReq.
    pub bth_ackreq: Bit,
    /// BTH PSN.
    pub bth_psn: Bits<24>,
    /// RETH virtual address.
    pub reth_va: Bits<64>,
    /// RETH R_Key.
    pub reth_rkey: Bits<32>,
    /// RETH DMA length.
    pub reth_dmalen: Bits<32>,
    /// The record has an AETH.
    pub aeth_ok: Bit,
    /// The immediate, or the AETH (syndrome in bits 31:24, MSN in 23:0) when `aeth_ok`: no
    /// opcode has both.
    pub immdt_or_aeth: Bits<32>,
    /// Payload bytes.
    pub pay_len: Bits<16>,
}

/// The RX path at `W` bits (`K = W / 8` lanes, `D` the front end's data FIFO depth,
/// `rx::front::data_depth(K)`) with `2^QB` QPs, `2^RB` memory regions and `2^(RA − QB)` receive
/// buffers per QP; `QL`: cycles from `qp_read_index` to `qp_read_entry`.
#[derive(LogicBlock)]
pub struct RxPath<const W: usize, const K: usize, const D: usize, const QB: usize, const RB: usize, const RA: usize, const QL: usize> {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous, active high: forgets every frame, record, payload and decision in flight,
    /// clears the per-QP state, the region table and the counters.
    pub reset: Signal<In, Bit>,
    /// High once the responder's per-QP RAMs are cleared after reset.
    pub init_done: Signal<Out, Bit>,
    /// MAC frames (no FCS, `tkeep` contiguous from lane 0): valid.
    pub s_axis_tvalid: Signal<In, Bit>,
    /// MAC frames: ready.
    pub s_axis_tready: Signal<Out, Bit>,
    /// MAC frames: data.
    pub s_axis_tdata: Signal<In, Bits<W>>,
    /// MAC frames: keep.
    pub s_axis_tkeep: Signal<In, Bits<K>>,
    /// MAC frames: last beat.
    pub s_axis_tlast: Signal<In, Bit>,
    /// Frames that are not RoCEv2, untouched: valid.
    pub m_pass_tvalid: Signal<Out, Bit>,
    /// Pass-through: ready.
    pub m_pass_tready: Signal<In, Bit>,
    /// Pass-through: data.
    pub m_pass_tdata: Signal<Out, Bits<W>>,
    /// Pass-through: keep.
    pub m_pass_tkeep: Signal<Out, Bits<K>>,
    /// Pass-through: last beat.
    pub m_pass_tlast: Signal<Out, Bit>,
    /// Memory write commands: valid.
    pub m_cmd_valid: Signal<Out, Bit>,
    /// Write commands: ready.
    pub m_cmd_ready: Signal<In, Bit>,
    /// Write commands: address of the first byte.
    pub m_cmd_address: Signal<Out, Bits<64>>,
    /// Write commands: bytes (1..=4096).
    pub m_cmd_length: Signal<Out, Bits<16>>,
    /// Write data (from lane 0, full beats but the last): valid.
    pub m_wr_tvalid: Signal<Out, Bit>,
    /// Write data: ready.
    pub m_wr_tready: Signal<In, Bit>,
    /// Write data: data.
    pub m_wr_tdata: Signal<Out, Bits<W>>,
    /// Write data: keep.
    pub m_wr_tkeep: Signal<Out, Bits<K>>,
    /// Write data: the command's last beat.
    pub m_wr_tlast: Signal<Out, Bit>,
    /// Decisions (`DECISION`, one per final record, in record order): valid.
    pub m_dec_valid: Signal<Out, Bit>,
    /// Decisions: ready.
    pub m_dec_ready: Signal<In, Bit>,
    /// Decisions: the packed entry.
    pub m_dec_entry: Signal<Out, Bits<DECISION_BITS>>,
    /// QP context table read: request.
    pub qp_read_valid: Signal<Out, Bit>,
    /// QP context table read: the QP.
    pub qp_read_index: Signal<Out, Bits<QB>>,
    /// QP context table read: the entry, `QL` cycles after the request.
    pub qp_read_entry: Signal<In, Bits<QP_CONTEXT_BITS>>,
    /// The host rewrote a QP's context (one cycle): its responder restarts.
    pub qp_commit_valid: Signal<In, Bit>,
    /// The rewritten QP.
    pub qp_commit_index: Signal<In, Bits<QB>>,
    /// Memory region table write (one cycle).
    pub region_write_valid: Signal<In, Bit>,
    /// The entry written.
    pub region_write_index: Signal<In, Bits<RB>>,
    /// The packed `MEMORY_REGION` entry (all zero: cleared).
    pub region_write_entry: Signal<In, Bits<MEMORY_REGION_BITS>>,
    /// Receive buffer posts: valid.
    pub recv_valid: Signal<In, Bit>,
    /// Receive posts: ready.
    pub recv_ready: Signal<Out, Bit>,
    /// Receive posts: the QP.
    pub recv_qp: Signal<In, Bits<QB>>,
    /// Receive posts: the buffer's address.
    pub recv_address: Signal<In, Bits<64>>,
    /// Receive posts: the buffer's length.
    pub recv_length: Signal<In, Bits<32>>,
    /// A post's result (one cycle per post, in order).
    pub recv_result_valid: Signal<Out, Bit>,
    /// The post was refused: the QP's receive queue is full.
    pub recv_result_full: Signal<Out, Bit>,
    /// Responder counter read: the index (`ResponderCounter::ALL` order).
    pub counter_index: Signal<In, Bits<COUNTER_INDEX_BITS>>,
    /// Responder counter read: the counter of the previous cycle's index.
    pub counter_value: Signal<Out, Bits<32>>,
    /// Front end counters: frames in.
    pub cnt_frames_in: Signal<Out, Bits<32>>,
    /// Front end: RoCEv2 frames accepted.
    pub cnt_accepted: Signal<Out, Bits<32>>,
    /// Front end: frames passed through.
    pub cnt_passed: Signal<Out, Bits<32>>,
    /// Front end drops: IP header.
    pub cnt_drop_ip_header: Signal<Out, Bits<32>>,
    /// Front end drops: truncated.
    pub cnt_drop_truncated: Signal<Out, Bits<32>>,
    /// Front end drops: IP length.
    pub cnt_drop_ip_length: Signal<Out, Bits<32>>,
    /// Front end drops: IPv4 checksum.
    pub cnt_drop_ip_checksum: Signal<Out, Bits<32>>,
    /// Front end drops: IP fragment.
    pub cnt_drop_ip_fragment: Signal<Out, Bits<32>>,
    /// Front end drops: UDP length.
    pub cnt_drop_udp_length: Signal<Out, Bits<32>>,
    /// Front end drops: transport version.
    pub cnt_drop_tver: Signal<Out, Bits<32>>,
    /// Front end drops: opcode.
    pub cnt_drop_opcode: Signal<Out, Bits<32>>,
    /// Front end drops: pad count.
    pub cnt_drop_padcnt: Signal<Out, Bits<32>>,
    /// Front end drops: ICRC.
    pub cnt_drop_icrc: Signal<Out, Bits<32>>,
    /// Payloads written to memory.
    pub cnt_written: Signal<Out, Bits<32>>,
    /// Payloads discarded.
    pub cnt_discarded: Signal<Out, Bits<32>>,
    /// A READ request of this engine's left (the TX path's `read_sent_*`): valid.
    pub read_sent_valid: Signal<In, Bit>,
    /// Taken.
    pub read_sent_ready: Signal<Out, Bit>,
    /// Its QP.
    pub read_sent_qp: Signal<In, Bits<QB>>,
    /// Its PSN: the response's first.
    pub read_sent_first_psn: Signal<In, Bits<24>>,
    /// The response's last PSN.
    pub read_sent_last_psn: Signal<In, Bits<24>>,
    /// Where the response's first byte goes.
    pub read_sent_local_address: Signal<In, Bits<64>>,
    /// Its DMA length.
    pub read_sent_length: Signal<In, Bits<32>>,
    /// The QP's PMTU (`Pmtu` code).
    pub read_sent_pmtu: Signal<In, Bits<3>>,
    /// The request is sent again (a replay's).
    pub read_sent_again: Signal<In, Bit>,
    /// The request's generation (the QP's resets modulo 4, as the segmenter counted them).
    pub read_sent_generation: Signal<In, Bits<2>>,
    /// A QP's READ is over, or all of them (for the segmenter): valid.
    pub read_done_valid: Signal<Out, Bit>,
    /// Taken.
    pub read_done_ready: Signal<In, Bit>,
    /// Its QP.
    pub read_done_qp: Signal<Out, Bits<QB>>,
    /// All the QP's READs are over (it was reset).
    pub read_done_cleared: Signal<Out, Bit>,
    /// READ response packets placed in memory.
    pub cnt_read_taken: Signal<Out, Bits<32>>,
    /// READ response packets behind the one expected, dropped.
    pub cnt_read_duplicates: Signal<Out, Bits<32>>,
    /// Gaps in READ responses told to the requester.
    pub cnt_read_gaps: Signal<Out, Bits<32>>,
    /// READ response packets for no READ, beyond it, or of the wrong opcode or length.
    pub cnt_read_bad: Signal<Out, Bits<32>>,

    front: RxFront<W, K, D>,
    records: Fifo<ResponderRecord>,
    /// The front end's record, as the FIFO's entry.
    record: Signal<Local, ResponderRecord>,
    /// The record offered to the responder, taken from the FIFO's head.
    next_record: DFF<ResponderRecord>,
    /// `next_record`'s ImmDt or AETH.
    immdt_or_aeth: Signal<Local, Bits<32>>,
    next_record_valid: DFF<Bit>,
    /// The FIFO's head moves to `next_record`.
    advance: Signal<Local, Bit>,
    responder: Responder<QB, RB, RA, QL>,
    writer: PayloadWriter<W, K>,
    /// The requester's READs: between the responder's decisions and the fork.
    reads: ReadTracker<QB>,
    /// QP commits on their way to the READ tracker's `clear`.
    clears: Fifo<Bits<QB>>,
    /// The decision on the responder's output was taken by the writer, or by `m_dec`.
    writer_has_decision: DFF<Bit>,
    output_has_decision: DFF<Bit>,
    /// Both sides have the decision (this cycle or before): the responder's `d_ready`.
    decision_done: Signal<Local, Bit>,
    /// Decisions on their way to `m_dec`, each released when the writer has retired it.
    decisions: ReleasedFifo<Bits<DECISION_BITS>>,
    /// The record FIFO's fill bit that says it is full.
    full_at: Constant<Bits<8>>,
    /// Where the writer's fields are in a decision.
    write_at: Constant<Bits<9>>,
    write_address_at: Constant<Bits<9>>,
    write_length_at: Constant<Bits<9>>,
}

impl<const W: usize, const K: usize, const D: usize, const QB: usize, const RB: usize, const RA: usize, const QL: usize> Default
    for RxPath<W, K, D, QB, RB, RA, QL>
{
    fn default() -> Self {
        let at = |name: &str| c::<9>(DECISION.offset(name) as u64);
        Self {
            clock: Default::default(),
            reset: Default::default(),
            init_done: Default::default(),
            s_axis_tvalid: Default::default(),
            s_axis_tready: Default::default(),
            s_axis_tdata: Default::default(),
            s_axis_tkeep: Default::default(),
            s_axis_tlast: Default::default(),
            m_pass_tvalid: Default::default(),
            m_pass_tready: Default::default(),
            m_pass_tdata: Default::default(),
            m_pass_tkeep: Default::default(),
            m_pass_tlast: Default::default(),
            m_cmd_valid: Default::default(),
            m_cmd_ready: Default::default(),
            m_cmd_address: Default::default(),
            m_cmd_length: Default::default(),
            m_wr_tvalid: Default::default(),
            m_wr_tready: Default::default(),
            m_wr_tdata: Default::default(),
            m_wr_tkeep: Default::default(),
            m_wr_tlast: Default::default(),
            m_dec_valid: Default::default(),
            m_dec_ready: Default::default(),
            m_dec_entry: Default::default(),
            qp_read_valid: Default::default(),
            qp_read_index: Default::default(),
            qp_read_entry: Default::default(),
            qp_commit_valid: Default::default(),
            qp_commit_index: Default::default(),
            region_write_valid: Default::default(),
            region_write_index: Default::default(),
            region_write_entry: Default::default(),
            recv_valid: Default::default(),
            recv_ready: Default::default(),
            recv_qp: Default::default(),
            recv_address: Default::default(),
            recv_length: Default::default(),
            recv_result_valid: Default::default(),
            recv_result_full: Default::default(),
            counter_index: Default::default(),
            counter_value: Default::default(),
            cnt_frames_in: Default::default(),
            cnt_accepted: Default::default(),
            cnt_passed: Default::default(),
            cnt_drop_ip_header: Default::default(),
            cnt_drop_truncated: Default::default(),
            cnt_drop_ip_length: Default::default(),
            cnt_drop_ip_checksum: Default::default(),
            cnt_drop_ip_fragment: Default::default(),
            cnt_drop_udp_length: Default::default(),
            cnt_drop_tver: Default::default(),
            cnt_drop_opcode: Default::default(),
            cnt_drop_padcnt: Default::default(),
            cnt_drop_icrc: Default::default(),
            cnt_written: Default::default(),
            cnt_discarded: Default::default(),
            read_sent_valid: Default::default(),
            read_sent_ready: Default::default(),
            read_sent_qp: Default::default(),
            read_sent_first_psn: Default::default(),
            read_sent_last_psn: Default::default(),
            read_sent_local_address: Default::default(),
            read_sent_length: Default::default(),
            read_sent_pmtu: Default::default(),
            read_sent_again: Default::default(),
            read_sent_generation: Default::default(),
            read_done_valid: Default::default(),
            read_done_ready: Default::default(),
            read_done_qp: Default::default(),
            read_done_cleared: Default::default(),
            cnt_read_taken: Default::default(),
            cnt_read_duplicates: Default::default(),
            cnt_read_gaps: Default::default(),
            cnt_read_bad: Default::default(),
            front: Default::default(),
            records: Default::default(),
            record: Default::default(),
            next_record: Default::default(),
            immdt_or_aeth: Default::default(),
            next_record_valid: Default::default(),
            advance: Default::default(),
            responder: Default::default(),
            writer: Default::default(),
            reads: Default::default(),
            clears: Default::default(),
            writer_has_decision: Default::default(),
            output_has_decision: Default::default(),
            decision_done: Default::default(),
            decisions: Default::default(),
            full_at: c::<8>(CAPACITY as u64 - 1),
            write_at: at("write"),
            write_address_at: at("write_address"),
            write_length_at: at("write_length"),
        }
    }
}

impl<const W: usize, const K: usize, const D: usize, const QB: usize, const RB: usize, const RA: usize, const QL: usize> Logic
    for RxPath<W, K, D, QB, RB, RA, QL>
{
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            next_record,
            next_record_valid,
            writer_has_decision,
            output_has_decision
        );
        clock!(self, clock, front, records, responder, writer, reads, clears);
        self.front.reset.next = self.reset.val();
        self.records.reset.next = self.reset.val();
        self.responder.reset.next = self.reset.val();
        self.writer.reset.next = self.reset.val();
        self.reads.reset.next = self.reset.val();
        self.clears.reset.next = self.reset.val();
        self.init_done.next = self.responder.init_done.val() && self.reads.init_done.val();

        // ---- MAC side: frames in, pass-through out ----
        self.front.s_axis_tvalid.next = self.s_axis_tvalid.val();
        self.s_axis_tready.next = self.front.s_axis_tready.val();
        self.front.s_axis_tdata.next = self.s_axis_tdata.val();
        self.front.s_axis_tkeep.next = self.s_axis_tkeep.val();
        self.front.s_axis_tlast.next = self.s_axis_tlast.val();
        self.m_pass_tvalid.next = self.front.m_pass_tvalid.val();
        self.front.m_pass_tready.next = self.m_pass_tready.val();
        self.m_pass_tdata.next = self.front.m_pass_tdata.val();
        self.m_pass_tkeep.next = self.front.m_pass_tkeep.val();
        self.m_pass_tlast.next = self.front.m_pass_tlast.val();

        // ---- final records through the record FIFO to the responder; header records dropped ----
        self.record.next.drop = self.front.r_drop.val();
        self.record.next.bth_ok = self.front.r_bth_ok.val();
        self.record.next.bth_opcode = self.front.r_bth_opcode.val();
        self.record.next.bth_se = self.front.r_bth_se.val();
        self.record.next.bth_pkey = self.front.r_bth_pkey.val();
        self.record.next.bth_dqpn = self.front.r_bth_dqpn.val();
        self.record.next.bth_ackreq = self.front.r_bth_ackreq.val();
        self.record.next.bth_psn = self.front.r_bth_psn.val();
        self.record.next.reth_va = self.front.r_reth_va.val();
        self.record.next.reth_rkey = self.front.r_reth_rkey.val();
        self.record.next.reth_dmalen = self.front.r_reth_dmalen.val();
        self.record.next.aeth_ok = self.front.r_aeth_ok.val();
        self.record.next.immdt_or_aeth = self.front.r_immdt.val();
        if self.front.r_aeth_ok.val() {
            self.record.next.immdt_or_aeth =
                bit_cast::<32, 8>(self.front.r_aeth_syndrome.val()) << 24 | bit_cast::<32, 24>(self.front.r_aeth_msn.val());
        }
        self.record.next.pay_len = self.front.r_pay_len.val();
        self.front.r_ready.next = !self.front.r_final.val() || !self.records.fill.val().get_bit(self.full_at.val().index());
        self.records.push.next =
            self.front.r_valid.val() && self.front.r_final.val() && !self.records.fill.val().get_bit(self.full_at.val().index());
        self.records.push_value.next = self.record.val();
        self.advance.next = self.records.head_valid.val() && !self.next_record_valid.q.val();
        self.records.pop.next = self.advance.val();
        self.next_record_valid.d.next = self.next_record_valid.q.val() && !self.responder.r_ready.val();
        if self.advance.val() {
            self.next_record.d.next = self.records.head.val();
            self.next_record_valid.d.next = true;
        }
        if self.reset.val() {
            self.next_record_valid.d.next = false;
        }
        self.responder.r_valid.next = self.next_record_valid.q.val();
        self.responder.r_final.next = true;
        self.responder.r_drop.next = self.next_record.q.val().drop;
        self.responder.r_bth_ok.next = self.next_record.q.val().bth_ok;
        self.responder.r_bth_opcode.next = self.next_record.q.val().bth_opcode;
        self.responder.r_bth_se.next = self.next_record.q.val().bth_se;
        self.responder.r_bth_pkey.next = self.next_record.q.val().bth_pkey;
        self.responder.r_bth_dqpn.next = self.next_record.q.val().bth_dqpn;
        self.responder.r_bth_ackreq.next = self.next_record.q.val().bth_ackreq;
        self.responder.r_bth_psn.next = self.next_record.q.val().bth_psn;
        self.responder.r_reth_va.next = self.next_record.q.val().reth_va;
        self.responder.r_reth_rkey.next = self.next_record.q.val().reth_rkey;
        self.responder.r_reth_dmalen.next = self.next_record.q.val().reth_dmalen;
        // (a slice of a struct field's slice is not Verilog yosys reads: through a signal)
        self.immdt_or_aeth.next = self.next_record.q.val().immdt_or_aeth;
        self.responder.r_immdt.next = self.immdt_or_aeth.val();
        self.responder.r_aeth_ok.next = self.next_record.q.val().aeth_ok;
        self.responder.r_aeth_syndrome.next = self.immdt_or_aeth.val().get_bits::<8>(24);
        self.responder.r_aeth_msn.next = self.immdt_or_aeth.val().get_bits::<24>(0);
        self.responder.r_pay_len.next = self.next_record.q.val().pay_len;

        // ---- the register file's side of the responder ----
        self.qp_read_valid.next = self.responder.qp_read_valid.val();
        self.qp_read_index.next = self.responder.qp_read_index.val();
        self.responder.qp_read_entry.next = self.qp_read_entry.val();
        self.responder.qp_commit_valid.next = self.qp_commit_valid.val();
        self.responder.qp_commit_index.next = self.qp_commit_index.val();
        self.responder.region_write_valid.next = self.region_write_valid.val();
        self.responder.region_write_index.next = self.region_write_index.val();
        self.responder.region_write_entry.next = self.region_write_entry.val();
        self.responder.recv_valid.next = self.recv_valid.val();
        self.recv_ready.next = self.responder.recv_ready.val();
        self.responder.recv_qp.next = self.recv_qp.val();
        self.responder.recv_address.next = self.recv_address.val();
        self.responder.recv_length.next = self.recv_length.val();
        self.recv_result_valid.next = self.responder.recv_result_valid.val();
        self.recv_result_full.next = self.responder.recv_result_full.val();
        self.responder.counter_index.next = self.counter_index.val();
        self.counter_value.next = self.responder.counter_value.val();

        // ---- the requester's READs: responses placed, ACKs over a lost one turned into a NAK ----
        self.reads.s_dec_valid.next = self.responder.d_valid.val();
        self.responder.d_ready.next = self.reads.s_dec_ready.val();
        self.reads.s_dec_entry.next = self.responder.d_entry.val();
        self.reads.sent_valid.next = self.read_sent_valid.val();
        self.read_sent_ready.next = self.reads.sent_ready.val();
        self.reads.sent_qp.next = self.read_sent_qp.val();
        self.reads.sent_first_psn.next = self.read_sent_first_psn.val();
        self.reads.sent_last_psn.next = self.read_sent_last_psn.val();
        self.reads.sent_local_address.next = self.read_sent_local_address.val();
        self.reads.sent_length.next = self.read_sent_length.val();
        self.reads.sent_pmtu.next = self.read_sent_pmtu.val();
        self.reads.sent_again.next = self.read_sent_again.val();
        self.reads.sent_generation.next = self.read_sent_generation.val();
        self.read_done_valid.next = self.reads.done_valid.val();
        self.reads.done_ready.next = self.read_done_ready.val();
        self.read_done_qp.next = self.reads.done_qp.val();
        self.read_done_cleared.next = self.reads.done_cleared.val();
        // a commit clears the QP's READ (commits come far apart: the FIFO never fills)
        self.clears.push.next = self.qp_commit_valid.val();
        self.clears.push_value.next = self.qp_commit_index.val();
        self.reads.clear_valid.next = self.clears.head_valid.val();
        self.reads.clear_qp.next = self.clears.head.val();
        self.clears.pop.next = self.clears.head_valid.val() && self.reads.clear_ready.val();
        self.cnt_read_taken.next = self.reads.cnt_taken.val();
        self.cnt_read_duplicates.next = self.reads.cnt_duplicates.val();
        self.cnt_read_gaps.next = self.reads.cnt_gaps.val();
        self.cnt_read_bad.next = self.reads.cnt_bad.val();

        // ---- the decision fork: the writer and m_dec each take it once ----
        self.writer.s_dec_valid.next = self.reads.m_dec_valid.val() && !self.writer_has_decision.q.val();
        self.writer.s_dec_write.next = self.reads.m_dec_entry.val().get_bit(self.write_at.val().index());
        self.writer.s_dec_address.next = self.reads.m_dec_entry.val().get_bits::<64>(self.write_address_at.val().index());
        self.writer.s_dec_length.next = self.reads.m_dec_entry.val().get_bits::<16>(self.write_length_at.val().index());
        self.decision_done.next = (self.writer_has_decision.q.val() || self.writer.s_dec_ready.val())
            && (self.output_has_decision.q.val() || self.decisions.room.val());
        self.reads.m_dec_ready.next = self.decision_done.val();
        self.writer_has_decision.d.next = self.reads.m_dec_valid.val()
            && !self.decision_done.val()
            && (self.writer_has_decision.q.val() || self.writer.s_dec_ready.val());
        self.output_has_decision.d.next =
            self.reads.m_dec_valid.val() && !self.decision_done.val() && (self.output_has_decision.q.val() || self.decisions.room.val());
        if self.reset.val() {
            self.writer_has_decision.d.next = false;
            self.output_has_decision.d.next = false;
        }

        // ---- decisions out once their payload is in memory ----
        // The writer retires decisions in the order the FIFO holds them, so each retirement
        // permits the next one out: an ACK or a receive completion never leaves before memory has taken
        // the payload it speaks for.
        self.decisions.clock.next = self.clock.val();
        self.decisions.reset.next = self.reset.val();
        self.decisions.push.next = self.reads.m_dec_valid.val() && !self.output_has_decision.q.val() && self.decisions.room.val();
        self.decisions.push_value.next = self.reads.m_dec_entry.val();
        self.decisions.permit.next = self.writer.retired.val();
        self.m_dec_valid.next = self.decisions.head_valid.val();
        self.m_dec_entry.next = self.decisions.head.val();
        self.decisions.pop.next = self.decisions.head_valid.val() && self.m_dec_ready.val();

        // ---- payloads to the writer, writes to memory ----
        self.writer.s_pay_tvalid.next = self.front.m_pay_tvalid.val();
        self.front.m_pay_tready.next = self.writer.s_pay_tready.val();
        self.writer.s_pay_tdata.next = self.front.m_pay_tdata.val();
        self.writer.s_pay_tkeep.next = self.front.m_pay_tkeep.val();
        self.writer.s_pay_tlast.next = self.front.m_pay_tlast.val();
        self.writer.s_pay_tuser.next = self.front.m_pay_tuser.val();
        self.m_cmd_valid.next = self.writer.m_cmd_valid.val();
        self.writer.m_cmd_ready.next = self.m_cmd_ready.val();
        self.m_cmd_address.next = self.writer.m_cmd_address.val();
        self.m_cmd_length.next = self.writer.m_cmd_length.val();
        self.m_wr_tvalid.next = self.writer.m_wr_tvalid.val();
        self.writer.m_wr_tready.next = self.m_wr_tready.val();
        self.m_wr_tdata.next = self.writer.m_wr_tdata.val();
        self.m_wr_tkeep.next = self.writer.m_wr_tkeep.val();
        self.m_wr_tlast.next = self.writer.m_wr_tlast.val();

        // ---- counters ----
        self.cnt_frames_in.next = self.front.cnt_frames_in.val();
        self.cnt_accepted.next = self.front.cnt_accepted.val();
        self.cnt_passed.next = self.front.cnt_passed.val();
        self.cnt_drop_ip_header.next = self.front.cnt_drop_ip_header.val();
        self.cnt_drop_truncated.next = self.front.cnt_drop_truncated.val();
        self.cnt_drop_ip_length.next = self.front.cnt_drop_ip_length.val();
        self.cnt_drop_ip_checksum.next = self.front.cnt_drop_ip_checksum.val();
        self.cnt_drop_ip_fragment.next = self.front.cnt_drop_ip_fragment.val();
        self.cnt_drop_udp_length.next = self.front.cnt_drop_udp_length.val();
        self.cnt_drop_tver.next = self.front.cnt_drop_tver.val();
        self.cnt_drop_opcode.next = self.front.cnt_drop_opcode.val();
        self.cnt_drop_padcnt.next = self.front.cnt_drop_padcnt.val();
        self.cnt_drop_icrc.next = self.front.cnt_drop_icrc.val();
        self.cnt_written.next = self.writer.cnt_written.val();
        self.cnt_discarded.next = self.writer.cnt_discarded.val();
    }
}
