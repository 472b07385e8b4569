//! [`ReadTracker`]: the requester's outstanding RDMA READs on the receive side. Per QP a ring of
//! up to `READS_PER_QP` (4) READs whose responses are still coming, oldest first; READ response
//! packets placed in local memory, the oldest READ's first; ACKs and NAKs that cover a lost
//! response turned into one PSN sequence error NAK per gap. The golden model and its rules:
//! `ferroce_models::tx::read_tracker`; the specification: `docs/reliability.md` ("RDMA READ as
//! the requester").
//!
//! ```text
//!  sent (a READ request left: QP, PSNs, local address, length, PMTU) ─┐
//!  clear (the host reset a QP) ───────────────────────────────────────┼─► one operation at a time
//!  s_dec (the responder's decisions) ─────────────────────────────────┘   ring RAM (per QP) and
//!                                                                          4 entry RAMs (a slot each)
//!  m_dec (the decision, a response's write and acknowledgement set) ◄──────┤
//!  done (a READ is over: its last response; or all, a clear) ◄─────────────┘
//! ```
//!
//! **The ring**: per QP `{generation, newest READ's last PSN, count, head slot}` in `rings`; slot i of every
//! QP's ring in `entries[i]`, all four read at once. A new READ goes to slot head + count (with
//! four outstanding, a fifth takes the newest's place, as the model's limit does; the segmenter
//! never sends one); a READ sent again (a replay's) rewrites the live slot whose READ ends with
//! the same PSN, or nothing; responses go to the head's READ, and its last one moves the head on.
//! A clear empties the ring (its entries are left as they are: the count says which are live)
//! and counts its generation on (modulo 4). Each new request carries the generation the
//! segmenter had counted for its QP when it cut it; one of another generation than the ring's
//! was cut before a reset and reached the tracker after it (it was in the packetizer): it is
//! not loaded, as the segmenter counted it over with the reset.
//!
//! A decision that is not forwarded passes in two cycles. A forwarded one (ACK, NAK, READ
//! response, CNP) takes twelve, one stage per line of `update`:
//! - `Classify`: the ring and the entries are read; the opcode and the syndrome are classified
//!   (tables from the contracts); the PSN before the packet's. (`Entry`: the head's entry taken.)
//! - `Prepare`: the PSNs before and after the one expected, the PSN the ACK covers, whether the
//!   packet's PSN is the one expected, the PMTU's bytes.
//! - `Measure`, `Select`: the bytes left against the PMTU; the length and opcode expected.
//! - `Check`: opcode and length against them; the three PSN orders (two cycles each, started in
//!   `Measure`): behind the one expected, within the newest READ, the one expected covered by
//!   the ACK.
//! - `Outcome`, `Add2`, `Add3`: what happens (taken, duplicate, gap, moved, bad) while the next
//!   local address and bytes left are added 16 bits a cycle (a carry chain per stage).
//! - `Output`: the entry and the ring written back; the decision rebuilt; `done` when the READ
//!   is over.
//!
//! The responder takes 7 cycles per record back to back: a run of forwarded packets (READ
//! responses, ACKs) goes at the tracker's 12, anything else at the responder's pace.

use crate::common::counter::EventCounter;
use crate::common::elab::{bits_from, c};
use crate::common::psn::PsnOrder;
use ferroce_contracts::opcode::Opcode;
use ferroce_contracts::responder::{NakCode, Syndrome, DECISION, DECISION_BITS};
use ferroce_contracts::tx::{Pmtu, READS_PER_QP};
use rust_hdl::prelude::*;

mod entries {
    // the methods `LogicStruct` derives have no docs
    #![allow(missing_docs)]
    use rust_hdl::prelude::*;

    /// A QP's READ whose response is still coming (live while its ring slot is counted).
    #[derive(Clone, Copy, Debug, Default, PartialEq, LogicStruct)]
    pub struct ReadEntry {
        /// The requester was told of the gap before `expected`.
        pub gap_asked: Bit,
        /// A response packet was taken: the next is a middle or the last.
        pub open: Bit,
        /// The PSN of the next response packet.
        pub expected: Bits<24>,
        /// The response's last PSN.
        pub last: Bits<24>,
        /// Where the next response packet's payload goes.
        pub local_address: Bits<64>,
        /// Bytes still to come.
        pub remaining: Bits<32>,
        /// The QP's PMTU (`Pmtu` code).
        pub pmtu: Bits<3>,
    }
}
pub use entries::ReadEntry;

/// Where the tracker is.
#[derive(Copy, Clone, PartialEq, Eq, Debug, LogicState)]
pub enum ReadTrackerState {
    /// Clearing the ring RAM after reset.
    Init,
    /// Waiting for a clear, a sent READ or a decision.
    Idle,
    /// Clear: the QP's ring is read.
    ClearRead,
    /// Clear: its generation counted on (the ring written empty).
    ClearGeneration,
    /// Sent: the QP's ring and entries are read.
    SentRead,
    /// Sent: they arrive; sent again, the live slot whose READ ends with the same PSN.
    SentEntry,
    /// Sent: the new entry (the gap mark kept when it waits for the same PSN; none for a request
    /// sent again whose READ has ended) and its slot.
    SentDecide,
    /// Decision: the ring and the entries are read; opcode and syndrome classified.
    Classify,
    /// Decision: the head's entry taken.
    Entry,
    /// Decision: the PSNs around the one expected; the PMTU's bytes.
    Prepare,
    /// Decision: the low bytes left against the PMTU.
    Measure,
    /// Decision: the length and opcode expected.
    Select,
    /// Decision: opcode and length checked; bits 15:0 of the sums.
    Check,
    /// Decision: the outcome; bits 31:16 of the sums.
    Outcome,
    /// Decision: bits 47:32 of the next local address.
    Add2,
    /// Decision: bits 63:48.
    Add3,
    /// Decision: the decision rebuilt, the entry written.
    Output,
    /// The ring and the entry are written (a clear: the ring only).
    Write,
}

/// The tracker of `2^QB` QPs.
#[derive(LogicBlock)]
pub struct ReadTracker<const QB: usize> {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous, active high: every READ is forgotten (the RAM is cleared again).
    pub reset: Signal<In, Bit>,
    /// The entry RAM is cleared.
    pub init_done: Signal<Out, Bit>,
    /// A READ request left: valid.
    pub sent_valid: Signal<In, Bit>,
    /// Taken.
    pub sent_ready: Signal<Out, Bit>,
    /// Its QP.
    pub sent_qp: Signal<In, Bits<QB>>,
    /// Its PSN: the response's first.
    pub sent_first_psn: Signal<In, Bits<24>>,
    /// The response's last PSN.
    pub sent_last_psn: Signal<In, Bits<24>>,
    /// Where the response's first byte goes.
    pub sent_local_address: Signal<In, Bits<64>>,
    /// Its DMA length.
    pub sent_length: Signal<In, Bits<32>>,
    /// The QP's PMTU (`Pmtu` code).
    pub sent_pmtu: Signal<In, Bits<3>>,
    /// Sent again (a replay's): it moves the QP's READ only if that READ is outstanding and
    /// ends with the same PSN; otherwise (the READ ended since the replay began) it is ignored.
    pub sent_again: Signal<In, Bit>,
    /// Its generation (the QP's resets modulo 4 when it was cut): a new READ of another
    /// generation than its QP's ring was cut before a reset the ring has seen, and is ignored.
    pub sent_generation: Signal<In, Bits<2>>,
    /// The host reset a QP: valid.
    pub clear_valid: Signal<In, Bit>,
    /// Taken.
    pub clear_ready: Signal<Out, Bit>,
    /// The QP.
    pub clear_qp: Signal<In, Bits<QB>>,
    /// The responder's decisions (`DECISION`): valid.
    pub s_dec_valid: Signal<In, Bit>,
    /// Taken.
    pub s_dec_ready: Signal<Out, Bit>,
    /// The decision.
    pub s_dec_entry: Signal<In, Bits<DECISION_BITS>>,
    /// Decisions out, in order (held until taken): valid.
    pub m_dec_valid: Signal<Out, Bit>,
    /// Taken.
    pub m_dec_ready: Signal<In, Bit>,
    /// The decision.
    pub m_dec_entry: Signal<Out, Bits<DECISION_BITS>>,
    /// A QP's READ is over (its last response was taken), or all of them (the QP was
    /// cleared): valid (held until taken).
    pub done_valid: Signal<Out, Bit>,
    /// Taken.
    pub done_ready: Signal<In, Bit>,
    /// The QP.
    pub done_qp: Signal<Out, Bits<QB>>,
    /// The QP was cleared: every READ of it is over.
    pub done_cleared: Signal<Out, Bit>,
    /// Response packets placed in memory.
    pub cnt_taken: Signal<Out, Bits<32>>,
    /// Response packets behind the one expected, dropped.
    pub cnt_duplicates: Signal<Out, Bits<32>>,
    /// Gaps told to the requester.
    pub cnt_gaps: Signal<Out, Bits<32>>,
    /// Response packets with no READ to go to, beyond it, or of the wrong opcode or length.
    pub cnt_bad: Signal<Out, Bits<32>>,

    /// Per QP, its READs' entries: slot i of every QP's ring in RAM i.
    entries: [RAM<ReadEntry, QB>; 4],
    /// Per QP, its ring: `{generation (30:29), newest READ's last PSN (28:5), count (4:2), head
    /// slot (1:0)}`.
    rings: RAM<Bits<31>, QB>,
    state: DFF<ReadTrackerState>,
    /// The state is past `Init`, as a register.
    initialized: DFF<Bit>,
    /// The state is `Idle`, as a register.
    idle: DFF<Bit>,
    /// The state is `Write`, as a register.
    writing: DFF<Bit>,
    /// The QP of the operation (the `Init` sweep's address).
    qp: DFF<Bits<QB>>,
    /// The entry as read, and as it is written back (at `slot`, unless `entry_write` is low).
    entry: DFF<ReadEntry>,
    new_entry: DFF<ReadEntry>,
    slot: DFF<Bits<2>>,
    entry_write: DFF<Bit>,
    /// The QP's ring as read, and as it is written back.
    ring_head: DFF<Bits<2>>,
    ring_count: DFF<Bits<3>>,
    ring_newest: DFF<Bits<24>>,
    ring_generation: DFF<Bits<2>>,
    /// The QP has a READ outstanding (its ring's count is not 0).
    has_read: DFF<Bit>,
    /// Sent: the READ.
    sent_first_psn_held: DFF<Bits<24>>,
    sent_last_psn_held: DFF<Bits<24>>,
    sent_local_address_held: DFF<Bits<64>>,
    sent_length_held: DFF<Bits<32>>,
    sent_pmtu_held: DFF<Bits<3>>,
    sent_again_held: DFF<Bit>,
    sent_generation_held: DFF<Bits<2>>,
    /// The ring's live slot whose READ ends with the PSN of the request sent again.
    sent_found: DFF<Bit>,
    /// Decision: as taken, and its fields.
    decision: DFF<Bits<DECISION_BITS>>,
    forwarded: DFF<Bit>,
    acknowledgement: DFF<Bit>,
    psn: DFF<Bits<24>>,
    syndrome: DFF<Bits<8>>,
    opcode: DFF<Bits<8>>,
    length: DFF<Bits<16>>,
    qp_in_range: DFF<Bit>,
    /// Classify: the opcode is a READ response's, an ACK packet's; the syndrome is an ACK's,
    /// a PSN sequence error NAK's, reserved.
    is_response: DFF<Bit>,
    is_ack_packet: DFF<Bit>,
    syndrome_ack: DFF<Bit>,
    syndrome_sequence: DFF<Bit>,
    syndrome_reserved: DFF<Bit>,
    psn_before: DFF<Bits<24>>,
    /// Prepare: the PSN before the one expected, after it; the PSN the ACK or NAK covers.
    expected_before: DFF<Bits<24>>,
    expected_after: DFF<Bits<24>>,
    acknowledged: DFF<Bits<24>>,
    psn_is_expected: DFF<Bit>,
    pmtu_bytes: DFF<Bits<13>>,
    remaining_high_set: DFF<Bit>,
    /// Measure: the low 13 bits left exceed the PMTU.
    remaining_low_above: DFF<Bit>,
    /// Select: the packet's length and opcode expected; more than the PMTU is left.
    take_length: DFF<Bits<13>>,
    want_opcode: DFF<Bits<8>>,
    more_than_pmtu: DFF<Bit>,
    /// Check: the packet's opcode and length are the ones expected; the PSN orders.
    opcode_ok: DFF<Bit>,
    length_ok: DFF<Bit>,
    behind_expected: PsnOrder,
    within_read: PsnOrder,
    covers_expected: PsnOrder,
    /// The sums, 16 bits a stage (bit 16: the carry or borrow).
    local_0: DFF<Bits<17>>,
    local_1: DFF<Bits<17>>,
    local_2: DFF<Bits<17>>,
    local_3: DFF<Bits<16>>,
    remaining_0: DFF<Bits<17>>,
    remaining_1: DFF<Bits<16>>,
    /// Outcome.
    taken: DFF<Bit>,
    duplicate: DFF<Bit>,
    /// A gap before the one expected: told now (a sequence error NAK), told before (an ACK
    /// of the PSN before it).
    gap_new: DFF<Bit>,
    gap_told: DFF<Bit>,
    /// A NAK beyond the one expected, moved to it.
    moved: DFF<Bit>,
    bad: DFF<Bit>,
    /// Outputs.
    out_valid: DFF<Bit>,
    out_entry: DFF<Bits<DECISION_BITS>>,
    done_out_valid: DFF<Bit>,
    done_out_qp: DFF<Bits<QB>>,
    done_out_cleared: DFF<Bit>,
    taken_counter: EventCounter,
    duplicate_counter: EventCounter,
    gap_counter: EventCounter,
    bad_counter: EventCounter,
    /// The ring as the RAM gives it.
    read_head: Signal<Local, Bits<2>>,
    read_count: Signal<Local, Bits<3>>,
    /// ... all four slots live; the count below 4.
    read_full: Signal<Local, Bit>,
    read_count_low: Signal<Local, Bits<2>>,
    /// Each slot's READ's last PSN as read.
    slot_last: [Signal<Local, Bits<24>>; 4],
    /// The entry's bytes left and local address (a struct field is not sliced in Verilog).
    entry_remaining: Signal<Local, Bits<32>>,
    entry_local_address: Signal<Local, Bits<64>>,
    /// The rebuilt decision's fields.
    out_write: Signal<Local, Bit>,
    out_acknowledgement: Signal<Local, Bit>,
    out_address: Signal<Local, Bits<64>>,
    out_syndrome: Signal<Local, Bits<8>>,
    out_psn: Signal<Local, Bits<24>>,
    /// Over the 256 opcodes: a READ response's.
    response_table: Constant<Bits<256>>,
    /// Over the 256 syndromes: an ACK; a PSN sequence error NAK; reserved.
    ack_table: Constant<Bits<256>>,
    sequence_table: Constant<Bits<256>>,
    reserved_table: Constant<Bits<256>>,
    ack_opcode: Constant<Bits<8>>,
    /// The READ response opcodes: first, middle, last, only.
    response_opcode: [Constant<Bits<8>>; 4],
    ack_syndrome: Constant<Bits<8>>,
    sequence_syndrome: Constant<Bits<8>>,
    /// `Pmtu` codes and their bytes.
    pmtu_code: [Constant<Bits<3>>; 5],
    pmtu_size: [Constant<Bits<13>>; 5],
    last_qp: Constant<Bits<QB>>,
    /// The slots' numbers.
    slot_number: [Constant<Bits<2>>; 4],
    qp_limit: Constant<Bits<24>>,
    /// Where the fields are in a decision; the bits a rebuilt decision keeps.
    forwarded_at: Constant<Bits<9>>,
    acknowledgement_at: Constant<Bits<9>>,
    write_at: Constant<Bits<9>>,
    write_length_at: Constant<Bits<9>>,
    write_address_at: Constant<Bits<9>>,
    qp_at: Constant<Bits<9>>,
    psn_at: Constant<Bits<9>>,
    syndrome_at: Constant<Bits<9>>,
    opcode_at: Constant<Bits<9>>,
    kept: Constant<Bits<DECISION_BITS>>,
}

/// The fields a rebuilt decision replaces.
const REPLACED: [&str; 5] = ["write", "acknowledgement", "write_address", "response_syndrome", "response_psn"];

impl<const QB: usize> Default for ReadTracker<QB> {
    fn default() -> Self {
        assert!((1..=16).contains(&QB));
        assert_eq!(READS_PER_QP, 4, "the ring is written for 4 READs per QP");
        let at = |name: &str| c::<9>(DECISION.offset(name) as u64);
        let replaced = |bit: usize| {
            REPLACED.iter().any(|name| {
                let place = DECISION.placement(name);
                (place.offset..place.offset + place.field.width).contains(&bit)
            })
        };
        let response_opcodes = [
            Opcode::RC_READ_RESPONSE_FIRST,
            Opcode::RC_READ_RESPONSE_MIDDLE,
            Opcode::RC_READ_RESPONSE_LAST,
            Opcode::RC_READ_RESPONSE_ONLY,
        ];
        Self {
            clock: Default::default(),
            reset: Default::default(),
            init_done: Default::default(),
            sent_valid: Default::default(),
            sent_ready: Default::default(),
            sent_qp: Default::default(),
            sent_first_psn: Default::default(),
            sent_last_psn: Default::default(),
            sent_local_address: Default::default(),
            sent_length: Default::default(),
            sent_pmtu: Default::default(),
            sent_again: Default::default(),
            sent_generation: Default::default(),
            clear_valid: Default::default(),
            clear_ready: Default::default(),
            clear_qp: Default::default(),
            s_dec_valid: Default::default(),
            s_dec_ready: Default::default(),
            s_dec_entry: Default::default(),
            m_dec_valid: Default::default(),
            m_dec_ready: Default::default(),
            m_dec_entry: Default::default(),
            done_valid: Default::default(),
            done_ready: Default::default(),
            done_qp: Default::default(),
            done_cleared: Default::default(),
            cnt_taken: Default::default(),
            cnt_duplicates: Default::default(),
            cnt_gaps: Default::default(),
            cnt_bad: Default::default(),
            entries: Default::default(),
            rings: Default::default(),
            state: Default::default(),
            initialized: Default::default(),
            idle: Default::default(),
            writing: Default::default(),
            qp: Default::default(),
            entry: Default::default(),
            new_entry: Default::default(),
            slot: Default::default(),
            entry_write: Default::default(),
            ring_head: Default::default(),
            ring_count: Default::default(),
            ring_newest: Default::default(),
            ring_generation: Default::default(),
            has_read: Default::default(),
            sent_first_psn_held: Default::default(),
            sent_last_psn_held: Default::default(),
            sent_local_address_held: Default::default(),
            sent_length_held: Default::default(),
            sent_pmtu_held: Default::default(),
            sent_again_held: Default::default(),
            sent_generation_held: Default::default(),
            sent_found: Default::default(),
            decision: Default::default(),
            forwarded: Default::default(),
            acknowledgement: Default::default(),
            psn: Default::default(),
            syndrome: Default::default(),
            opcode: Default::default(),
            length: Default::default(),
            qp_in_range: Default::default(),
            is_response: Default::default(),
            is_ack_packet: Default::default(),
            syndrome_ack: Default::default(),
            syndrome_sequence: Default::default(),
            syndrome_reserved: Default::default(),
            psn_before: Default::default(),
            expected_before: Default::default(),
            expected_after: Default::default(),
            acknowledged: Default::default(),
            psn_is_expected: Default::default(),
            pmtu_bytes: Default::default(),
            remaining_high_set: Default::default(),
            remaining_low_above: Default::default(),
            take_length: Default::default(),
            want_opcode: Default::default(),
            more_than_pmtu: Default::default(),
            opcode_ok: Default::default(),
            length_ok: Default::default(),
            behind_expected: Default::default(),
            within_read: Default::default(),
            covers_expected: Default::default(),
            local_0: Default::default(),
            local_1: Default::default(),
            local_2: Default::default(),
            local_3: Default::default(),
            remaining_0: Default::default(),
            remaining_1: Default::default(),
            taken: Default::default(),
            duplicate: Default::default(),
            gap_new: Default::default(),
            gap_told: Default::default(),
            moved: Default::default(),
            bad: Default::default(),
            out_valid: Default::default(),
            out_entry: Default::default(),
            done_out_valid: Default::default(),
            done_out_qp: Default::default(),
            done_out_cleared: Default::default(),
            taken_counter: Default::default(),
            duplicate_counter: Default::default(),
            gap_counter: Default::default(),
            bad_counter: Default::default(),
            read_head: Default::default(),
            read_count: Default::default(),
            read_full: Default::default(),
            read_count_low: Default::default(),
            slot_last: Default::default(),
            entry_remaining: Default::default(),
            entry_local_address: Default::default(),
            out_write: Default::default(),
            out_acknowledgement: Default::default(),
            out_address: Default::default(),
            out_syndrome: Default::default(),
            out_psn: Default::default(),
            response_table: Constant::new(bits_from::<256>(|o| response_opcodes.iter().any(|r| usize::from(r.value()) == o))),
            ack_table: Constant::new(bits_from::<256>(|s| {
                matches!(Syndrome::decode(s as u8), Some(Syndrome::Ack { .. }))
            })),
            sequence_table: Constant::new(bits_from::<256>(|s| {
                Syndrome::decode(s as u8) == Some(Syndrome::Nak(NakCode::PsnSequenceError))
            })),
            reserved_table: Constant::new(bits_from::<256>(|s| Syndrome::decode(s as u8).is_none())),
            ack_opcode: c::<8>(u64::from(Opcode::RC_ACK.value())),
            response_opcode: response_opcodes.map(|o| c::<8>(u64::from(o.value()))),
            ack_syndrome: c::<8>(u64::from(Syndrome::ack().encode())),
            sequence_syndrome: c::<8>(u64::from(Syndrome::Nak(NakCode::PsnSequenceError).encode())),
            pmtu_code: Pmtu::ALL.map(|p| c::<3>(u64::from(p.code()))),
            pmtu_size: Pmtu::ALL.map(|p| c::<13>(u64::from(p.bytes()))),
            last_qp: c::<QB>((1 << QB) - 1),
            slot_number: [0, 1, 2, 3].map(c::<2>),
            qp_limit: c::<24>(1 << QB),
            forwarded_at: at("forwarded"),
            acknowledgement_at: at("acknowledgement"),
            write_at: at("write"),
            write_length_at: at("write_length"),
            write_address_at: at("write_address"),
            qp_at: at("qp"),
            psn_at: at("response_psn"),
            syndrome_at: at("response_syndrome"),
            opcode_at: at("forwarded_opcode"),
            kept: Constant::new(bits_from::<DECISION_BITS>(|bit| !replaced(bit))),
        }
    }
}

impl<const QB: usize> Logic for ReadTracker<QB> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            state,
            initialized,
            idle,
            writing,
            qp,
            entry,
            new_entry,
            slot,
            entry_write,
            ring_head,
            ring_count,
            ring_newest,
            ring_generation,
            has_read,
            sent_first_psn_held,
            sent_last_psn_held,
            sent_local_address_held,
            sent_length_held,
            sent_pmtu_held,
            sent_again_held,
            sent_generation_held,
            sent_found,
            decision,
            forwarded,
            acknowledgement,
            psn,
            syndrome,
            opcode,
            length,
            qp_in_range,
            is_response,
            is_ack_packet,
            syndrome_ack,
            syndrome_sequence,
            syndrome_reserved,
            psn_before,
            expected_before,
            expected_after,
            acknowledged,
            psn_is_expected,
            pmtu_bytes,
            remaining_high_set,
            remaining_low_above,
            take_length,
            want_opcode,
            more_than_pmtu,
            opcode_ok,
            length_ok,
            local_0,
            local_1,
            local_2,
            local_3,
            remaining_0,
            remaining_1,
            taken,
            duplicate,
            gap_new,
            gap_told,
            moved,
            bad,
            out_valid,
            out_entry,
            done_out_valid,
            done_out_qp,
            done_out_cleared
        );
        for i in 0..4 {
            self.entries[i].read_clock.next = self.clock.val();
            self.entries[i].write_clock.next = self.clock.val();
        }
        self.rings.read_clock.next = self.clock.val();
        self.rings.write_clock.next = self.clock.val();
        self.behind_expected.clock.next = self.clock.val();
        self.within_read.clock.next = self.clock.val();
        self.covers_expected.clock.next = self.clock.val();
        self.taken_counter.clock.next = self.clock.val();
        self.duplicate_counter.clock.next = self.clock.val();
        self.gap_counter.clock.next = self.clock.val();
        self.bad_counter.clock.next = self.clock.val();

        self.entry_remaining.next = self.entry.q.val().remaining;
        self.entry_local_address.next = self.entry.q.val().local_address;

        // ---- defaults: the RAMs at the operation's QP, the orders on the registers ----
        for i in 0..4 {
            self.entries[i].read_address.next = self.qp.q.val();
            self.entries[i].write_address.next = self.qp.q.val();
            self.entries[i].write_data.next = self.new_entry.q.val();
            self.entries[i].write_enable.next =
                self.writing.q.val() && self.entry_write.q.val() && (self.slot.q.val() == self.slot_number[i].val());
        }
        self.rings.read_address.next = self.qp.q.val();
        self.rings.write_address.next = self.qp.q.val();
        self.rings.write_data.next = (bit_cast::<31, 2>(self.ring_generation.q.val()) << 29)
            | (bit_cast::<31, 24>(self.ring_newest.q.val()) << 5)
            | (bit_cast::<31, 3>(self.ring_count.q.val()) << 2)
            | bit_cast::<31, 2>(self.ring_head.q.val());
        self.rings.write_enable.next = self.writing.q.val() || !self.initialized.q.val();
        self.read_head.next = self.rings.read_data.val().get_bits::<2>(0);
        self.read_count.next = self.rings.read_data.val().get_bits::<3>(2);
        self.read_full.next = self.read_count.val().get_bit(2);
        self.read_count_low.next = self.read_count.val().get_bits::<2>(0);
        self.slot_last[0].next = self.entries[0].read_data.val().last;
        self.slot_last[1].next = self.entries[1].read_data.val().last;
        self.slot_last[2].next = self.entries[2].read_data.val().last;
        self.slot_last[3].next = self.entries[3].read_data.val().last;
        self.behind_expected.first.next = self.psn.q.val();
        self.behind_expected.second.next = self.expected_before.q.val();
        self.within_read.first.next = self.psn.q.val();
        self.within_read.second.next = self.ring_newest.q.val();
        self.covers_expected.first.next = self.entry.q.val().expected;
        self.covers_expected.second.next = self.acknowledged.q.val();
        self.taken_counter.increment.next = false;
        self.duplicate_counter.increment.next = false;
        self.gap_counter.increment.next = false;
        self.bad_counter.increment.next = false;
        self.writing.d.next = false;
        self.idle.d.next = false;
        // a clear is taken in `Idle` (`idle` is set only there) with room for its `done`: from
        // registers, not from the state's decode (the clear FIFO's pop follows it)
        self.clear_ready.next = self.idle.q.val() && self.clear_valid.val() && !self.done_out_valid.q.val();
        self.sent_ready.next = false;
        self.s_dec_ready.next = false;
        if self.m_dec_ready.val() {
            self.out_valid.d.next = false;
        }
        if self.done_ready.val() {
            self.done_out_valid.d.next = false;
        }

        // ---- the decision rebuilt from the outcome ----
        self.out_write.next = self.decision.q.val().get_bit(self.write_at.val().index());
        self.out_acknowledgement.next = self.acknowledgement.q.val();
        self.out_address.next = self.decision.q.val().get_bits::<64>(self.write_address_at.val().index());
        self.out_syndrome.next = self.syndrome.q.val();
        self.out_psn.next = self.psn.q.val();
        if self.is_response.q.val() {
            self.out_write.next = self.taken.q.val();
            self.out_acknowledgement.next = self.taken.q.val() || self.gap_new.q.val() || self.gap_told.q.val();
        }
        if self.taken.q.val() {
            self.out_address.next = self.entry.q.val().local_address;
            self.out_syndrome.next = self.ack_syndrome.val();
        }
        if self.gap_new.q.val() {
            self.out_syndrome.next = self.sequence_syndrome.val();
            self.out_psn.next = self.entry.q.val().expected;
        }
        if self.gap_told.q.val() {
            self.out_syndrome.next = self.ack_syndrome.val();
            self.out_psn.next = self.expected_before.q.val();
        }
        if self.moved.q.val() {
            self.out_psn.next = self.entry.q.val().expected;
        }

        match self.state.q.val() {
            ReadTrackerState::Init => {
                self.qp.d.next = self.qp.q.val() + 1;
                if self.qp.q.val() == self.last_qp.val() {
                    self.initialized.d.next = true;
                    self.idle.d.next = true;
                    self.state.d.next = ReadTrackerState::Idle;
                }
            }
            ReadTrackerState::Idle => {
                // a clear first, then a sent READ, then a decision; a clear or a decision waits
                // for room on the outputs it may fill
                self.idle.d.next = true;
                if self.idle.q.val() {
                    if self.clear_valid.val() && !self.done_out_valid.q.val() {
                        // the ring emptied, its generation counted on; its entries are left
                        // as they are
                        self.qp.d.next = self.clear_qp.val();
                        self.ring_head.d.next = 0.into();
                        self.ring_count.d.next = 0.into();
                        self.ring_newest.d.next = 0.into();
                        self.entry_write.d.next = false;
                        self.done_out_valid.d.next = true;
                        self.done_out_qp.d.next = self.clear_qp.val();
                        self.done_out_cleared.d.next = true;
                        self.idle.d.next = false;
                        self.state.d.next = ReadTrackerState::ClearRead;
                    } else if self.sent_valid.val() {
                        self.sent_ready.next = true;
                        self.qp.d.next = self.sent_qp.val();
                        self.sent_first_psn_held.d.next = self.sent_first_psn.val();
                        self.sent_last_psn_held.d.next = self.sent_last_psn.val();
                        self.sent_local_address_held.d.next = self.sent_local_address.val();
                        self.sent_length_held.d.next = self.sent_length.val();
                        self.sent_pmtu_held.d.next = self.sent_pmtu.val();
                        self.sent_again_held.d.next = self.sent_again.val();
                        self.sent_generation_held.d.next = self.sent_generation.val();
                        self.idle.d.next = false;
                        self.state.d.next = ReadTrackerState::SentRead;
                    } else if self.s_dec_valid.val() && !self.done_out_valid.q.val() && !self.out_valid.q.val() {
                        self.s_dec_ready.next = true;
                        self.decision.d.next = self.s_dec_entry.val();
                        self.qp.d.next = self.s_dec_entry.val().get_bits::<QB>(self.qp_at.val().index());
                        self.forwarded.d.next = self.s_dec_entry.val().get_bit(self.forwarded_at.val().index());
                        self.acknowledgement.d.next = self.s_dec_entry.val().get_bit(self.acknowledgement_at.val().index());
                        self.psn.d.next = self.s_dec_entry.val().get_bits::<24>(self.psn_at.val().index());
                        self.syndrome.d.next = self.s_dec_entry.val().get_bits::<8>(self.syndrome_at.val().index());
                        self.opcode.d.next = self.s_dec_entry.val().get_bits::<8>(self.opcode_at.val().index());
                        self.length.d.next = self.s_dec_entry.val().get_bits::<16>(self.write_length_at.val().index());
                        self.qp_in_range.d.next = self.s_dec_entry.val().get_bits::<24>(self.qp_at.val().index()) < self.qp_limit.val();
                        self.idle.d.next = false;
                        self.state.d.next = ReadTrackerState::Classify;
                    }
                }
            }
            ReadTrackerState::ClearRead => {
                self.state.d.next = ReadTrackerState::ClearGeneration;
            }
            ReadTrackerState::ClearGeneration => {
                self.ring_generation.d.next = self.rings.read_data.val().get_bits::<2>(29) + 1;
                self.writing.d.next = true;
                self.state.d.next = ReadTrackerState::Write;
            }
            ReadTrackerState::SentRead => {
                self.state.d.next = ReadTrackerState::SentEntry;
            }
            ReadTrackerState::SentEntry => {
                // the ring and its entries: sent again, the live slot whose READ ends with the
                // same PSN (none: ignored); a new READ goes behind the newest (in its place
                // when the ring is full)
                self.ring_head.d.next = self.read_head.val();
                self.ring_count.d.next = self.read_count.val();
                self.ring_newest.d.next = self.rings.read_data.val().get_bits::<24>(5);
                self.ring_generation.d.next = self.rings.read_data.val().get_bits::<2>(29);
                self.sent_found.d.next = false;
                self.entry.d.next = self.entries[0].read_data.val();
                for i in 0..4 {
                    if (self.read_full.val() || ((self.slot_number[i].val() - self.read_head.val()) < self.read_count_low.val()))
                        && (self.slot_last[i].val() == self.sent_last_psn_held.q.val())
                    {
                        self.sent_found.d.next = true;
                        self.slot.d.next = self.slot_number[i].val();
                        self.entry.d.next = self.entries[i].read_data.val();
                    }
                }
                self.state.d.next = ReadTrackerState::SentDecide;
            }
            ReadTrackerState::SentDecide => {
                // (a request sent again of a READ that has ended: nothing written)
                self.new_entry.d.next.gap_asked = self.sent_again_held.q.val()
                    && self.entry.q.val().gap_asked
                    && (self.entry.q.val().expected == self.sent_first_psn_held.q.val());
                self.new_entry.d.next.open = false;
                self.new_entry.d.next.expected = self.sent_first_psn_held.q.val();
                self.new_entry.d.next.last = self.sent_last_psn_held.q.val();
                self.new_entry.d.next.local_address = self.sent_local_address_held.q.val();
                self.new_entry.d.next.remaining = self.sent_length_held.q.val();
                self.new_entry.d.next.pmtu = self.sent_pmtu_held.q.val();
                if !self.sent_again_held.q.val() {
                    self.ring_newest.d.next = self.sent_last_psn_held.q.val();
                    self.slot.d.next = self.ring_head.q.val() + bit_cast::<2, 3>(self.ring_count.q.val());
                    self.ring_count.d.next = self.ring_count.q.val() + 1;
                    if self.ring_count.q.val() == 4 {
                        self.slot.d.next = self.ring_head.q.val() + 3;
                        self.ring_count.d.next = self.ring_count.q.val();
                    }
                }
                self.entry_write.d.next = true;
                // (a new request of an older generation, cut before its QP was reset: ignored)
                self.writing.d.next = (self.sent_again_held.q.val() && self.sent_found.q.val())
                    || (!self.sent_again_held.q.val() && (self.sent_generation_held.q.val() == self.ring_generation.q.val()));
                self.state.d.next = ReadTrackerState::Write;
            }
            ReadTrackerState::Classify => {
                self.is_response.d.next = self.response_table.val().get_bit(self.opcode.q.val().index());
                self.is_ack_packet.d.next = (self.opcode.q.val() == self.ack_opcode.val()) && self.acknowledgement.q.val();
                self.syndrome_ack.d.next = self.ack_table.val().get_bit(self.syndrome.q.val().index());
                self.syndrome_sequence.d.next = self.sequence_table.val().get_bit(self.syndrome.q.val().index());
                self.syndrome_reserved.d.next = self.reserved_table.val().get_bit(self.syndrome.q.val().index());
                self.psn_before.d.next = self.psn.q.val() - 1;
                self.taken.d.next = false;
                self.duplicate.d.next = false;
                self.gap_new.d.next = false;
                self.gap_told.d.next = false;
                self.moved.d.next = false;
                self.bad.d.next = false;
                if self.forwarded.q.val() {
                    self.state.d.next = ReadTrackerState::Entry;
                } else {
                    // not forwarded: on as it is
                    self.out_valid.d.next = true;
                    self.out_entry.d.next = self.decision.q.val();
                    self.idle.d.next = true;
                    self.state.d.next = ReadTrackerState::Idle;
                }
            }
            ReadTrackerState::Entry => {
                // the QP's oldest READ: its responses go to it
                self.ring_head.d.next = self.read_head.val();
                self.ring_count.d.next = self.read_count.val();
                self.ring_newest.d.next = self.rings.read_data.val().get_bits::<24>(5);
                self.ring_generation.d.next = self.rings.read_data.val().get_bits::<2>(29);
                self.has_read.d.next = self.read_count.val().any();
                self.slot.d.next = self.read_head.val();
                self.entry.d.next = self.entries[0].read_data.val();
                for i in 1..4 {
                    if self.read_head.val() == self.slot_number[i].val() {
                        self.entry.d.next = self.entries[i].read_data.val();
                    }
                }
                self.state.d.next = ReadTrackerState::Prepare;
            }
            ReadTrackerState::Prepare => {
                self.expected_before.d.next = self.entry.q.val().expected - 1;
                self.expected_after.d.next = self.entry.q.val().expected + 1;
                self.acknowledged.d.next = self.psn_before.q.val();
                if self.syndrome_ack.q.val() {
                    self.acknowledged.d.next = self.psn.q.val();
                }
                self.psn_is_expected.d.next = self.psn.q.val() == self.entry.q.val().expected;
                self.pmtu_bytes.d.next = 0.into();
                for i in 0..5 {
                    if self.entry.q.val().pmtu == self.pmtu_code[i].val() {
                        self.pmtu_bytes.d.next = self.pmtu_size[i].val();
                    }
                }
                self.remaining_high_set.d.next = self.entry_remaining.val().get_bits::<19>(13) != 0;
                self.state.d.next = ReadTrackerState::Measure;
            }
            ReadTrackerState::Measure => {
                // the PSN orders start: their operands are registers from here on
                self.remaining_low_above.d.next = self.entry_remaining.val().get_bits::<13>(0) > self.pmtu_bytes.q.val();
                self.state.d.next = ReadTrackerState::Select;
            }
            ReadTrackerState::Select => {
                self.more_than_pmtu.d.next = self.remaining_high_set.q.val() || self.remaining_low_above.q.val();
                self.take_length.d.next = self.entry_remaining.val().get_bits::<13>(0);
                if self.remaining_high_set.q.val() || self.remaining_low_above.q.val() {
                    self.take_length.d.next = self.pmtu_bytes.q.val();
                }
                self.want_opcode.d.next = self.response_opcode[3].val();
                if self.entry.q.val().open {
                    self.want_opcode.d.next = self.response_opcode[2].val();
                }
                if self.remaining_high_set.q.val() || self.remaining_low_above.q.val() {
                    self.want_opcode.d.next = self.response_opcode[0].val();
                    if self.entry.q.val().open {
                        self.want_opcode.d.next = self.response_opcode[1].val();
                    }
                }
                self.state.d.next = ReadTrackerState::Check;
            }
            ReadTrackerState::Check => {
                self.opcode_ok.d.next = self.opcode.q.val() == self.want_opcode.q.val();
                self.length_ok.d.next = self.length.q.val() == bit_cast::<16, 13>(self.take_length.q.val());
                self.local_0.d.next =
                    bit_cast::<17, 16>(self.entry_local_address.val().get_bits::<16>(0)) + bit_cast::<17, 13>(self.take_length.q.val());
                self.remaining_0.d.next =
                    bit_cast::<17, 16>(self.entry_remaining.val().get_bits::<16>(0)) - bit_cast::<17, 13>(self.take_length.q.val());
                self.state.d.next = ReadTrackerState::Outcome;
            }
            ReadTrackerState::Outcome => {
                // a response: taken at the PSN expected, else a duplicate, a gap or bad;
                // an ACK or NAK covering the PSN expected: the gap, or moved to it
                if self.is_response.q.val() {
                    if !self.has_read.q.val() || !self.qp_in_range.q.val() {
                        self.bad.d.next = true;
                    } else if self.psn_is_expected.q.val() {
                        self.taken.d.next = self.opcode_ok.q.val() && self.length_ok.q.val();
                        self.bad.d.next = !(self.opcode_ok.q.val() && self.length_ok.q.val());
                    } else if self.behind_expected.at_or_before.val() {
                        self.duplicate.d.next = true;
                    } else if self.within_read.at_or_before.val() {
                        self.gap_new.d.next = !self.entry.q.val().gap_asked;
                        self.gap_told.d.next = self.entry.q.val().gap_asked;
                    } else {
                        self.bad.d.next = true;
                    }
                } else if self.is_ack_packet.q.val()
                    && self.has_read.q.val()
                    && self.qp_in_range.q.val()
                    && !self.syndrome_reserved.q.val()
                    && self.covers_expected.at_or_before.val()
                {
                    if self.syndrome_ack.q.val() {
                        self.gap_new.d.next = !self.entry.q.val().gap_asked;
                        self.gap_told.d.next = self.entry.q.val().gap_asked;
                    } else {
                        self.moved.d.next = true;
                    }
                }
                self.local_1.d.next = bit_cast::<17, 16>(self.entry_local_address.val().get_bits::<16>(16))
                    + bit_cast::<17, 1>(self.local_0.q.val().get_bit(16).into());
                self.remaining_1.d.next =
                    self.entry_remaining.val().get_bits::<16>(16) - bit_cast::<16, 1>(self.remaining_0.q.val().get_bit(16).into());
                self.state.d.next = ReadTrackerState::Add2;
            }
            ReadTrackerState::Add2 => {
                self.local_2.d.next = bit_cast::<17, 16>(self.entry_local_address.val().get_bits::<16>(32))
                    + bit_cast::<17, 1>(self.local_1.q.val().get_bit(16).into());
                self.state.d.next = ReadTrackerState::Add3;
            }
            ReadTrackerState::Add3 => {
                self.local_3.d.next =
                    self.entry_local_address.val().get_bits::<16>(48) + bit_cast::<16, 1>(self.local_2.q.val().get_bit(16).into());
                self.state.d.next = ReadTrackerState::Output;
            }
            ReadTrackerState::Output => {
                self.new_entry.d.next = self.entry.q.val();
                if self.taken.q.val() {
                    self.new_entry.d.next.gap_asked = false;
                    self.new_entry.d.next.open = true;
                    self.new_entry.d.next.expected = self.expected_after.q.val();
                    self.new_entry.d.next.local_address = (bit_cast::<64, 16>(self.local_3.q.val()) << 48)
                        | (bit_cast::<64, 16>(self.local_2.q.val().get_bits::<16>(0)) << 32)
                        | (bit_cast::<64, 16>(self.local_1.q.val().get_bits::<16>(0)) << 16)
                        | bit_cast::<64, 16>(self.local_0.q.val().get_bits::<16>(0));
                    self.new_entry.d.next.remaining = (bit_cast::<32, 16>(self.remaining_1.q.val()) << 16)
                        | bit_cast::<32, 16>(self.remaining_0.q.val().get_bits::<16>(0));
                    if !self.more_than_pmtu.q.val() {
                        // the oldest READ is over: the next one is the oldest
                        self.ring_head.d.next = self.ring_head.q.val() + 1;
                        self.ring_count.d.next = self.ring_count.q.val() - 1;
                        self.done_out_valid.d.next = true;
                        self.done_out_qp.d.next = self.qp.q.val();
                        self.done_out_cleared.d.next = false;
                    }
                }
                if self.gap_new.q.val() || (self.moved.q.val() && self.syndrome_sequence.q.val()) {
                    self.new_entry.d.next.gap_asked = true;
                }
                self.out_valid.d.next = true;
                self.out_entry.d.next = (self.decision.q.val() & self.kept.val())
                    | (bit_cast::<DECISION_BITS, 1>(self.out_write.val().into()) << self.write_at.val())
                    | (bit_cast::<DECISION_BITS, 1>(self.out_acknowledgement.val().into()) << self.acknowledgement_at.val())
                    | (bit_cast::<DECISION_BITS, 64>(self.out_address.val()) << self.write_address_at.val())
                    | (bit_cast::<DECISION_BITS, 8>(self.out_syndrome.val()) << self.syndrome_at.val())
                    | (bit_cast::<DECISION_BITS, 24>(self.out_psn.val()) << self.psn_at.val());
                self.taken_counter.increment.next = self.taken.q.val();
                self.duplicate_counter.increment.next = self.duplicate.q.val();
                self.gap_counter.increment.next = self.gap_new.q.val();
                self.bad_counter.increment.next = self.bad.q.val();
                self.entry_write.d.next = true;
                self.writing.d.next = true;
                self.state.d.next = ReadTrackerState::Write;
            }
            ReadTrackerState::Write => {
                self.idle.d.next = true;
                self.state.d.next = ReadTrackerState::Idle;
            }
        }
        if !self.initialized.q.val() {
            self.rings.write_data.next = 0.into();
        }
        if self.reset.val() {
            self.state.d.next = ReadTrackerState::Init;
            self.initialized.d.next = false;
            self.idle.d.next = false;
            self.writing.d.next = false;
            self.qp.d.next = 0.into();
            self.out_valid.d.next = false;
            self.done_out_valid.d.next = false;
        }

        // ---- outputs ----
        self.init_done.next = self.initialized.q.val();
        self.m_dec_valid.next = self.out_valid.q.val();
        self.m_dec_entry.next = self.out_entry.q.val();
        self.done_valid.next = self.done_out_valid.q.val();
        self.done_qp.next = self.done_out_qp.q.val();
        self.done_cleared.next = self.done_out_cleared.q.val();
        self.taken_counter.reset.next = self.reset.val();
        self.duplicate_counter.reset.next = self.reset.val();
        self.gap_counter.reset.next = self.reset.val();
        self.bad_counter.reset.next = self.reset.val();
        self.cnt_taken.next = self.taken_counter.count.val();
        self.cnt_duplicates.next = self.duplicate_counter.count.val();
        self.cnt_gaps.next = self.gap_counter.count.val();
        self.cnt_bad.next = self.bad_counter.count.val();
    }
}
