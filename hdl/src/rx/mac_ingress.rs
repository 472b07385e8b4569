//! [`MacIngress`]: a MAC's receive stream made safe for the RX path. A Xilinx CMAC or XXV
//! Ethernet receive side has no `tready` and says only on a frame's last beat that the frame is
//! bad (`tuser`: FCS error, runt, too long), while the RX path may stop its input for a few
//! cycles. The ingress keeps whole frames in block RAM and lets a frame out only once its last
//! beat has arrived good: bad frames and frames that do not fit are dropped whole, each counted
//! by reason (`ferroce_contracts::rx::ingress::IngressDrop`), and the output never carries part
//! of a frame.
//!
//! ```text
//!  s_mac_* ─► S1 beat register ─► S2 write: full? ─► block RAM (data, keep, last)
//!                                    │ last beat good: committed ← end of frame
//!                                    │ last beat bad or full: write pointer back to the frame's start
//!                                    ▼
//!                         committed ─► read: head address ≠ committed ─► m_axis_* (RAM read register)
//! ```
//!
//! - **Capacity**: `BUFFER_BYTES` at every width (`2^AB` beats, one of them kept empty); a frame
//!   longer than `max_frame_beats` never fits and is always dropped as `no_room`.
//! - **Latency**: a frame's first beat leaves 3 cycles after its last beat arrives (S1, S2 and
//!   the RAM read); it is store-and-forward, so a frame waits for its own end.
//! - **Rate**: one beat in and one beat out per cycle; the output is one beat per cycle within a
//!   frame whenever `m_axis_tready` is high (whole frames only are readable).
//! - **Reset** does not stop the ingress from following the MAC's frame boundaries: when a reset
//!   ends in the middle of a frame, the rest of that frame is discarded without a count, and
//!   the next frame is taken whole.
//!
//! Stage suffixes: S1 is the registered MAC beat, S2 the write decision.

use crate::common::counter::EventCounter;
use crate::common::dual_port_ram::BlockRam;
use rust_hdl::prelude::*;

/// The ingress of a `W`-bit stream (`K = W / 8`) holding `2^AB` beats
/// (`ferroce_contracts::rx::ingress::address_bits(K)`).
#[derive(LogicBlock, Default)]
pub struct MacIngress<const W: usize, const K: usize, const AB: usize> {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous, active high: empties the buffer and clears the counters.
    pub reset: Signal<In, Bit>,
    /// From the MAC (no `tready`): valid.
    pub s_mac_tvalid: Signal<In, Bit>,
    /// From the MAC: data, byte 0 in bits 7:0.
    pub s_mac_tdata: Signal<In, Bits<W>>,
    /// From the MAC: keep, contiguous from lane 0.
    pub s_mac_tkeep: Signal<In, Bits<K>>,
    /// From the MAC: last beat of a frame.
    pub s_mac_tlast: Signal<In, Bit>,
    /// From the MAC: on the last beat, the frame is bad.
    pub s_mac_tuser: Signal<In, Bit>,
    /// Good whole frames: valid.
    pub m_axis_tvalid: Signal<Out, Bit>,
    /// Good whole frames: ready.
    pub m_axis_tready: Signal<In, Bit>,
    /// Good whole frames: data.
    pub m_axis_tdata: Signal<Out, Bits<W>>,
    /// Good whole frames: keep.
    pub m_axis_tkeep: Signal<Out, Bits<K>>,
    /// Good whole frames: last beat.
    pub m_axis_tlast: Signal<Out, Bit>,
    /// Frames let through.
    pub frames_passed: Signal<Out, Bits<32>>,
    /// Frames dropped because the MAC marked them bad.
    pub dropped_bad_frame: Signal<Out, Bits<32>>,
    /// Frames dropped because the buffer filled before their end.
    pub dropped_no_room: Signal<Out, Bits<32>>,

    beat_valid_s1: DFF<Bit>,
    beat_data_s1: DFF<Bits<W>>,
    beat_keep_s1: DFF<Bits<K>>,
    beat_last_s1: DFF<Bit>,
    beat_bad_s1: DFF<Bit>,
    /// The MAC is inside a frame (after the S1 beat; followed through resets).
    in_frame: DFF<Bit>,
    /// The beats are not the rest of a frame that began before the end of reset.
    synchronized: DFF<Bit>,
    /// Where the next beat is written, and that address plus one.
    write_address: DFF<Bits<AB>>,
    write_address_next: DFF<Bits<AB>>,
    /// The first address of the frame being written, and that address plus one.
    frame_start: DFF<Bits<AB>>,
    frame_start_next: DFF<Bits<AB>>,
    /// The rest of the frame being received is dropped (the buffer filled).
    dropping: DFF<Bit>,
    /// One past the last beat of the last good frame: the reader stops there.
    committed: DFF<Bits<AB>>,
    /// The address of the output beat, and that address plus one.
    head_address: DFF<Bits<AB>>,
    head_address_next: DFF<Bits<AB>>,
    head_valid: DFF<Bit>,
    data: BlockRam<Bits<W>, AB>,
    keep: BlockRam<Bits<K>, AB>,
    last: BlockRam<Bit, AB>,
    passed: EventCounter,
    bad_frame: EventCounter,
    no_room: EventCounter,
    /// The S1 beat is written.
    write_beat: Signal<Local, Bit>,
    /// The S1 beat is the good end of a frame.
    frame_good: Signal<Local, Bit>,
    /// The output beat is taken.
    pop: Signal<Local, Bit>,
    /// The head's address in the next cycle.
    head_address_after: Signal<Local, Bits<AB>>,
}

impl<const W: usize, const K: usize, const AB: usize> Logic for MacIngress<W, K, AB> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            beat_valid_s1,
            beat_data_s1,
            beat_keep_s1,
            beat_last_s1,
            beat_bad_s1,
            in_frame,
            synchronized,
            write_address,
            write_address_next,
            frame_start,
            frame_start_next,
            dropping,
            committed,
            head_address,
            head_address_next,
            head_valid
        );
        clock!(self, clock, data, keep, last, passed, bad_frame, no_room);

        // S1: the MAC's beat, registered
        self.beat_valid_s1.d.next = self.s_mac_tvalid.val();
        self.beat_data_s1.d.next = self.s_mac_tdata.val();
        self.beat_keep_s1.d.next = self.s_mac_tkeep.val();
        self.beat_last_s1.d.next = self.s_mac_tlast.val();
        self.beat_bad_s1.d.next = self.s_mac_tuser.val();

        // S2: write the beat unless the frame is being dropped or the buffer is full; at the
        // frame's end, publish it (good) or forget it (bad, or dropped for room)
        self.write_beat.next = self.beat_valid_s1.q.val()
            && self.synchronized.q.val()
            && !self.dropping.q.val()
            && self.write_address_next.q.val() != self.head_address.q.val();
        self.frame_good.next = self.write_beat.val() && self.beat_last_s1.q.val() && !self.beat_bad_s1.q.val();
        if self.beat_valid_s1.q.val() {
            self.in_frame.d.next = !self.beat_last_s1.q.val();
        }
        if self.beat_valid_s1.q.val() && self.beat_last_s1.q.val() {
            self.synchronized.d.next = true;
            self.dropping.d.next = false;
        }
        if self.write_beat.val() {
            self.write_address.d.next = self.write_address_next.q.val();
            self.write_address_next.d.next = self.write_address_next.q.val() + 1;
        }
        if self.frame_good.val() {
            self.frame_start.d.next = self.write_address_next.q.val();
            self.frame_start_next.d.next = self.write_address_next.q.val() + 1;
            self.committed.d.next = self.write_address_next.q.val();
        }
        if self.beat_valid_s1.q.val() && self.synchronized.q.val() && !self.write_beat.val() && !self.dropping.q.val() {
            // full: the frame so far is forgotten and its rest dropped
            self.write_address.d.next = self.frame_start.q.val();
            self.write_address_next.d.next = self.frame_start_next.q.val();
            self.dropping.d.next = !self.beat_last_s1.q.val();
        }
        if self.write_beat.val() && self.beat_last_s1.q.val() && self.beat_bad_s1.q.val() {
            self.write_address.d.next = self.frame_start.q.val();
            self.write_address_next.d.next = self.frame_start_next.q.val();
        }
        self.data.write.next = self.write_beat.val();
        self.keep.write.next = self.write_beat.val();
        self.last.write.next = self.write_beat.val();
        self.data.write_address.next = self.write_address.q.val();
        self.keep.write_address.next = self.write_address.q.val();
        self.last.write_address.next = self.write_address.q.val();
        self.data.write_data.next = self.beat_data_s1.q.val();
        self.keep.write_data.next = self.beat_keep_s1.q.val();
        self.last.write_data.next = self.beat_last_s1.q.val();
        self.passed.increment.next = self.frame_good.val();
        // a frame is counted once: bad when the MAC says so, whether it found room or not
        self.bad_frame.increment.next =
            self.beat_valid_s1.q.val() && self.beat_last_s1.q.val() && self.synchronized.q.val() && self.beat_bad_s1.q.val();
        self.no_room.increment.next = self.beat_valid_s1.q.val()
            && self.beat_last_s1.q.val()
            && self.synchronized.q.val()
            && !self.beat_bad_s1.q.val()
            && !self.write_beat.val();

        // read: the head is the RAM's read register; it moves on when taken, and is valid while
        // it has not reached the committed end
        self.pop.next = self.head_valid.q.val() && self.m_axis_tready.val();
        self.head_address_after.next = self.head_address.q.val();
        if self.pop.val() {
            self.head_address_after.next = self.head_address_next.q.val();
            self.head_address_next.d.next = self.head_address_next.q.val() + 1;
        }
        self.head_address.d.next = self.head_address_after.val();
        self.head_valid.d.next = self.head_address_after.val() != self.committed.q.val();
        self.data.read_address.next = self.head_address_after.val();
        self.keep.read_address.next = self.head_address_after.val();
        self.last.read_address.next = self.head_address_after.val();
        self.m_axis_tvalid.next = self.head_valid.q.val();
        self.m_axis_tdata.next = self.data.read_data.val();
        self.m_axis_tkeep.next = self.keep.read_data.val();
        self.m_axis_tlast.next = self.last.read_data.val();

        self.frames_passed.next = self.passed.count.val();
        self.dropped_bad_frame.next = self.bad_frame.count.val();
        self.dropped_no_room.next = self.no_room.count.val();
        self.passed.reset.next = self.reset.val();
        self.bad_frame.reset.next = self.reset.val();
        self.no_room.reset.next = self.reset.val();
        if self.reset.val() {
            // synchronized unless the reset ends inside a frame
            self.synchronized.d.next = !self.in_frame.q.val();
            if self.beat_valid_s1.q.val() {
                self.synchronized.d.next = self.beat_last_s1.q.val();
            }
            self.dropping.d.next = false;
            self.write_address.d.next = 0.into();
            self.write_address_next.d.next = 1.into();
            self.frame_start.d.next = 0.into();
            self.frame_start_next.d.next = 1.into();
            self.committed.d.next = 0.into();
            self.head_address.d.next = 0.into();
            self.head_address_next.d.next = 1.into();
            self.head_valid.d.next = false;
        }
    }
}
