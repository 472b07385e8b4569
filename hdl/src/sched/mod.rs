//! The scheduler, [`Sched`]: shared-space scheduling FIFOs and the QoS arbiter.
//! `docs/sched.md` is the specification, to the cycle; the software model is
//! `ferroce_models::sched::SchedModel`.
//!
//! Storage follows the source engine (the QoS engine of
//! *Hardware Support for Quality of Service in an RDMA Engine* (Bartzis)): one next-pointer RAM shared by every
//! queue, and per queue only `{empty, head, tail}`. A dequeue reads `next[head]` from the block
//! RAM; while that read is in flight (one cycle) the queue's head *is* the RAM output, so
//! back-to-back dequeues of one queue need no stall. "An element sits in at most one queue" is
//! kept with two N×1 parity RAMs (`A` written by enqueue commits, `B` by dequeues; queued iff
//! `A[e] ≠ B[e]`): the parity written into `A` at the enqueue travels with the element through
//! the list (top bit of the head registers and of the next-pointer entries) and is copied into
//! `B` when the element is dequeued, so each RAM has one write port and infers as block RAM.
//!
//! Enqueue pipeline: E1 accepts a request (fixed priority, requester 0 first) and addresses the
//! parity RAMs; E2 checks the parities (forwarded from the previous cycle's writes) and links
//! the element. A dequeue decides from the state at the start of the cycle, so an enqueue and a
//! dequeue of one queue in one cycle work whatever the queue holds.

use crate::common::elab::c;
use rust_hdl::prelude::*;

/// Enqueue requesters (`enq0_*` has the highest priority).
pub const REQUESTERS: usize = 4;
/// Queues a scheduler can have (the register map and the `stall` port hold 32).
pub const MAX_QUEUES: usize = 32;
/// Register address of the limit of high priority.
pub const CFG_LIMIT_ADDR: u64 = 64;
/// Reset value of a queue's configuration word: weight 1, high-priority table, no rate limit.
pub const CFG_RESET: u64 = 0x0100_0001;
/// Reset value of the limit of high priority.
pub const LIMIT_RESET: u64 = 255;

/// Marks the two N×1 parity RAMs `(* ram_style = "block" *)` in emitted Verilog. Left alone,
/// yosys maps a 2048×1 memory to 32 RAM64M8 (256 LUTs); Vivado honours the attribute too.
/// rust-hdl's `RAM` has no attribute of its own, so the declaration is marked after emission.
pub fn parity_rams_in_block_ram(verilog: String) -> String {
    let mut out = String::with_capacity(verilog.len() + 64);
    for line in verilog.split_inclusive('\n') {
        let t = line.trim_start();
        if t.starts_with("reg[0:0] mem[") {
            out.push_str(&line[..line.len() - t.len()]);
            out.push_str("(* ram_style = \"block\" *) ");
            out.push_str(t);
        } else {
            out.push_str(line);
        }
    }
    out
}

fn qidx5() -> [Constant<Bits<5>>; 32] {
    std::array::from_fn(|q| c::<5>(q as u64))
}

/// The scheduler: four enqueue requesters, the shared-space FIFOs over `2^AW` nodes (`EW = AW +
/// 1`: an element and its parity bit) for `Q` queues, the QoS arbiter, registered decisions and
/// the refusal counters. Ports and timing: `docs/sched.md`.
///
/// One block on purpose: rust-hdl puts each block's logic in one `always @(*)`, and a
/// parent/child pair that exchanges combinational signals both ways reads to Verilator as a
/// combinational loop (UNOPTFLAT); the arbiter and the FIFOs exchange the decision both ways.
#[derive(LogicBlock)]
pub struct Sched<const AW: usize, const EW: usize, const Q: usize> {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous, active high: empties the queues, resets registers and counters; the initializer runs after it.
    pub reset: Signal<In, Bit>,
    /// High once the initializer has cleared the parity RAMs (N cycles after reset).
    pub init_done: Signal<Out, Bit>,
    /// Enqueue requester 0 (highest priority): valid.
    pub enq0_valid: Signal<In, Bit>,
    /// Enqueue requester 0: queue index.
    pub enq0_queue: Signal<In, Bits<5>>,
    /// Enqueue requester 0: element.
    pub enq0_elem: Signal<In, Bits<AW>>,
    /// Enqueue requester 0: ready (`init_done`).
    pub enq0_ready: Signal<Out, Bit>,
    /// Enqueue requester 1: valid.
    pub enq1_valid: Signal<In, Bit>,
    /// Enqueue requester 1: queue index.
    pub enq1_queue: Signal<In, Bits<5>>,
    /// Enqueue requester 1: element.
    pub enq1_elem: Signal<In, Bits<AW>>,
    /// Enqueue requester 1: ready (`init_done` and no requester with a lower index valid).
    pub enq1_ready: Signal<Out, Bit>,
    /// Enqueue requester 2: valid.
    pub enq2_valid: Signal<In, Bit>,
    /// Enqueue requester 2: queue index.
    pub enq2_queue: Signal<In, Bits<5>>,
    /// Enqueue requester 2: element.
    pub enq2_elem: Signal<In, Bits<AW>>,
    /// Enqueue requester 2: ready (`init_done` and no requester with a lower index valid).
    pub enq2_ready: Signal<Out, Bit>,
    /// Enqueue requester 3: valid.
    pub enq3_valid: Signal<In, Bit>,
    /// Enqueue requester 3: queue index.
    pub enq3_queue: Signal<In, Bits<5>>,
    /// Enqueue requester 3: element.
    pub enq3_elem: Signal<In, Bits<AW>>,
    /// Enqueue requester 3: ready (`init_done` and no requester with a lower index valid).
    pub enq3_ready: Signal<Out, Bit>,
    /// Make one arbiter decision this cycle.
    pub deq_req: Signal<In, Bit>,
    /// High the cycle after a decision.
    pub deq_valid: Signal<Out, Bit>,
    /// The decision served a queue (0: nothing was eligible; `deq_queue` and `deq_elem` are then 0).
    pub deq_ok: Signal<Out, Bit>,
    /// The decision: served queue.
    pub deq_queue: Signal<Out, Bits<5>>,
    /// The decision: served element (the queue's head).
    pub deq_elem: Signal<Out, Bits<AW>>,
    /// Bit q: queue q's head can't be served now (no resource); the arbiter skips it.
    pub stall: Signal<In, Bits<32>>,
    /// Register write: enable.
    pub cfg_we: Signal<In, Bit>,
    /// Register write: address (queue q's configuration word at q, the limit of high priority at 64).
    pub cfg_addr: Signal<In, Bits<7>>,
    /// Register write: data.
    pub cfg_wdata: Signal<In, Bits<32>>,
    /// Counter: enqueues refused because the element was already queued.
    pub cnt_dup: Signal<Out, Bits<32>>,
    /// Counter: enqueues refused because the queue index was ≥ Q.
    pub cnt_bad_queue: Signal<Out, Bits<32>>,
    ov: DFF<Bit>,
    ook: DFF<Bit>,
    oq: DFF<Bits<5>>,
    ox: DFF<Bits<AW>>,
    cdup: DFF<Bits<32>>,
    cbad: DFF<Bits<32>>,
    go: Signal<Local, Bit>,
    next: RAM<Bits<EW>, AW>,
    pa: RAM<Bit, AW>,
    pb: RAM<Bit, AW>,
    head: [DFF<Bits<EW>>; Q],
    tail: [DFF<Bits<AW>>; Q],
    empty: DFF<Bits<32>>,
    /// Per queue: exactly one element (head == tail); not kept for the pending queue.
    single: DFF<Bits<32>>,
    pend: DFF<Bit>,
    pendq: DFF<Bits<5>>,
    e2v: DFF<Bit>,
    e2q: DFF<Bits<5>>,
    e2x: DFF<Bits<AW>>,
    fav: DFF<Bit>,
    fax: DFF<Bits<AW>>,
    faval: DFF<Bit>,
    fbv: DFF<Bit>,
    fbx: DFF<Bits<AW>>,
    fbval: DFF<Bit>,
    icnt: DFF<Bits<AW>>,
    idone: DFF<Bit>,
    qvalid: Constant<Bits<32>>,
    cpar: Constant<Bits<EW>>,
    aeff: Signal<Local, Bit>,
    beff: Signal<Local, Bit>,
    inrange: Signal<Local, Bit>,
    commit: Signal<Local, Bit>,
    par: Signal<Local, Bit>,
    entry: Signal<Local, Bits<EW>>,
    yfull: Signal<Local, Bits<EW>>,
    ypar: Signal<Local, Bit>,
    ptail: Signal<Local, Bits<AW>>,
    psingle: Signal<Local, Bit>,
    seff: Signal<Local, Bits<32>>,
    sq: Signal<Local, Bit>,
    etail: Signal<Local, Bits<AW>>,
    ysingle: Signal<Local, Bit>,
    eempty: Signal<Local, Bit>,
    deqhit: Signal<Local, Bit>,
    enqhit: Signal<Local, Bit>,
    cfg: [DFF<Bits<26>>; Q],
    level: [DFF<Bits<16>>; Q],
    limit: DFF<Bits<8>>,
    hptr: DFF<Bits<5>>,
    /// Queues after `hptr` / `lptr` in cyclic order (thermometer masks kept with the pointers).
    hgt: DFF<Bits<32>>,
    /// Per queue: weight ≠ 0, and a whole token in the bucket (level ≥ 256), kept as flags.
    wnz: DFF<Bits<32>>,
    htok: DFF<Bits<32>>,
    lgt: DFF<Bits<32>>,
    lptr: DFF<Bits<5>>,
    hcred: DFF<Bits<8>>,
    lcred: DFF<Bits<8>>,
    hcount: DFF<Bits<9>>,
    qaddr: [Constant<Bits<7>>; 32],
    climit_addr: Constant<Bits<7>>,
    ccfg_reset: Constant<Bits<26>>,
    climit_reset: Constant<Bits<8>>,
    ones: Constant<Bits<32>>,
    not0: Constant<Bits<32>>,
    elig: Signal<Local, Bits<32>>,
    hm: Signal<Local, Bits<32>>,
    lm: Signal<Local, Bits<32>>,
    tok: Signal<Local, Bit>,
    hafter: Signal<Local, Bits<32>>,
    lafter: Signal<Local, Bits<32>>,
    hfa: Signal<Local, Bit>,
    hfw: Signal<Local, Bit>,
    lfa: Signal<Local, Bit>,
    lfw: Signal<Local, Bit>,
    hia: Signal<Local, Bits<5>>,
    hiw: Signal<Local, Bits<5>>,
    lia: Signal<Local, Bits<5>>,
    liw: Signal<Local, Bits<5>>,
    hstay: Signal<Local, Bit>,
    lstay: Signal<Local, Bit>,
    hsel: Signal<Local, Bits<5>>,
    lsel: Signal<Local, Bits<5>>,
    hw: Signal<Local, Bits<8>>,
    lw: Signal<Local, Bits<8>>,
    take_h: Signal<Local, Bit>,
    take_l: Signal<Local, Bit>,
    dec: Signal<Local, Bit>,
    served: Signal<Local, Bit>,
    lvl: Signal<Local, Bits<16>>,
    rate: Signal<Local, Bits<8>>,
    burst: Signal<Local, Bits<8>>,
    lsum: Signal<Local, Bits<17>>,
    cap: Signal<Local, Bits<17>>,
    lsub: Signal<Local, Bits<17>>,
    lv0: Signal<Local, Bits<17>>,
    lv1: Signal<Local, Bits<17>>,
    qidx: [Constant<Bits<5>>; 32],
    /// Token buckets built (false: bit 25 of the queue words is ignored and the buckets vanish).
    ctb: Constant<Bit>,
    sel: Signal<Local, Bits<5>>,
    sel_ok: Signal<Local, Bit>,
    e1_v: Signal<Local, Bit>,
    e1_q: Signal<Local, Bits<5>>,
    e1_x: Signal<Local, Bits<AW>>,
    y: Signal<Local, Bits<AW>>,
    nonempty: Signal<Local, Bits<32>>,
    dup: Signal<Local, Bit>,
    bad: Signal<Local, Bit>,
    avail: Signal<Local, Bits<32>>,
}

impl<const AW: usize, const EW: usize, const Q: usize> Default for Sched<AW, EW, Q> {
    fn default() -> Self {
        assert!(EW == AW + 1, "Sched: EW must be AW + 1");
        assert!((2..=MAX_QUEUES).contains(&Q), "Sched: 2 to 32 queues");
        assert!((2..=16).contains(&AW), "Sched: 4 to 65536 nodes");
        Self {
            clock: Default::default(),
            reset: Default::default(),
            init_done: Default::default(),
            enq0_valid: Default::default(),
            enq0_queue: Default::default(),
            enq0_elem: Default::default(),
            enq0_ready: Default::default(),
            enq1_valid: Default::default(),
            enq1_queue: Default::default(),
            enq1_elem: Default::default(),
            enq1_ready: Default::default(),
            enq2_valid: Default::default(),
            enq2_queue: Default::default(),
            enq2_elem: Default::default(),
            enq2_ready: Default::default(),
            enq3_valid: Default::default(),
            enq3_queue: Default::default(),
            enq3_elem: Default::default(),
            enq3_ready: Default::default(),
            deq_req: Default::default(),
            deq_valid: Default::default(),
            deq_ok: Default::default(),
            deq_queue: Default::default(),
            deq_elem: Default::default(),
            stall: Default::default(),
            cfg_we: Default::default(),
            cfg_addr: Default::default(),
            cfg_wdata: Default::default(),
            cnt_dup: Default::default(),
            cnt_bad_queue: Default::default(),
            ov: Default::default(),
            ook: Default::default(),
            oq: Default::default(),
            ox: Default::default(),
            cdup: Default::default(),
            cbad: Default::default(),
            go: Default::default(),
            next: Default::default(),
            pa: Default::default(),
            pb: Default::default(),
            head: std::array::from_fn(|_| Default::default()),
            tail: std::array::from_fn(|_| Default::default()),
            empty: Default::default(),
            single: Default::default(),
            pend: Default::default(),
            pendq: Default::default(),
            e2v: Default::default(),
            e2q: Default::default(),
            e2x: Default::default(),
            fav: Default::default(),
            fax: Default::default(),
            faval: Default::default(),
            fbv: Default::default(),
            fbx: Default::default(),
            fbval: Default::default(),
            icnt: Default::default(),
            idone: Default::default(),
            qvalid: c::<32>(if Q == 32 { 0xffff_ffff } else { (1u64 << Q) - 1 }),
            cpar: Constant::new(Bits::<EW>::from(1u64 << AW)),
            aeff: Default::default(),
            beff: Default::default(),
            inrange: Default::default(),
            commit: Default::default(),
            par: Default::default(),
            entry: Default::default(),
            yfull: Default::default(),
            ypar: Default::default(),
            ptail: Default::default(),
            psingle: Default::default(),
            seff: Default::default(),
            sq: Default::default(),
            etail: Default::default(),
            ysingle: Default::default(),
            eempty: Default::default(),
            deqhit: Default::default(),
            enqhit: Default::default(),
            cfg: std::array::from_fn(|_| Default::default()),
            level: std::array::from_fn(|_| Default::default()),
            limit: Default::default(),
            hptr: Default::default(),
            hgt: Default::default(),
            wnz: Default::default(),
            htok: Default::default(),
            lgt: Default::default(),
            lptr: Default::default(),
            hcred: Default::default(),
            lcred: Default::default(),
            hcount: Default::default(),
            qaddr: std::array::from_fn(|q| c::<7>(q as u64)),
            climit_addr: c::<7>(CFG_LIMIT_ADDR),
            ccfg_reset: c::<26>(CFG_RESET),
            climit_reset: c::<8>(LIMIT_RESET),
            ones: c::<32>(0xffff_ffff),
            not0: c::<32>(0xffff_fffe),
            elig: Default::default(),
            hm: Default::default(),
            lm: Default::default(),
            tok: Default::default(),
            hafter: Default::default(),
            lafter: Default::default(),
            hfa: Default::default(),
            hfw: Default::default(),
            lfa: Default::default(),
            lfw: Default::default(),
            hia: Default::default(),
            hiw: Default::default(),
            lia: Default::default(),
            liw: Default::default(),
            hstay: Default::default(),
            lstay: Default::default(),
            hsel: Default::default(),
            lsel: Default::default(),
            hw: Default::default(),
            lw: Default::default(),
            take_h: Default::default(),
            take_l: Default::default(),
            dec: Default::default(),
            served: Default::default(),
            lvl: Default::default(),
            rate: Default::default(),
            burst: Default::default(),
            lsum: Default::default(),
            cap: Default::default(),
            lsub: Default::default(),
            lv0: Default::default(),
            lv1: Default::default(),
            qidx: qidx5(),
            ctb: Constant::new(true),
            sel: Default::default(),
            sel_ok: Default::default(),
            e1_v: Default::default(),
            e1_q: Default::default(),
            e1_x: Default::default(),
            y: Default::default(),
            nonempty: Default::default(),
            dup: Default::default(),
            bad: Default::default(),
            avail: Default::default(),
        }
    }
}

impl<const AW: usize, const EW: usize, const Q: usize> Sched<AW, EW, Q> {
    /// A scheduler without token buckets (register bit 25 is ignored): the area of the buckets
    /// is the difference to [`Sched::default`].
    pub fn without_token_buckets() -> Self {
        Self {
            ctb: Constant::new(false),
            ..Default::default()
        }
    }
}

impl<const AW: usize, const EW: usize, const Q: usize> Logic for Sched<AW, EW, Q> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, ov, ook, oq, ox, cdup, cbad, empty, pend, pendq, e2v, e2q, e2x, fav, fax, faval, fbv, fbx, fbval, icnt, idone,
            limit, hptr, lptr, hcred, lcred, hcount, single, hgt, lgt, wnz, htok
        );
        self.go.next = self.idone.q.val() & !self.reset.val();

        // ---- enqueue requesters, fixed priority ----
        self.enq0_ready.next = self.go.val();
        self.enq1_ready.next = self.go.val() & !self.enq0_valid.val();
        self.enq2_ready.next = self.go.val() & !self.enq0_valid.val() & !self.enq1_valid.val();
        self.enq3_ready.next = self.go.val() & !self.enq0_valid.val() & !self.enq1_valid.val() & !self.enq2_valid.val();
        self.e1_v.next = self.go.val() & (self.enq0_valid.val() | self.enq1_valid.val() | self.enq2_valid.val() | self.enq3_valid.val());
        if self.enq0_valid.val() {
            self.e1_q.next = self.enq0_queue.val();
            self.e1_x.next = self.enq0_elem.val();
        } else if self.enq1_valid.val() {
            self.e1_q.next = self.enq1_queue.val();
            self.e1_x.next = self.enq1_elem.val();
        } else if self.enq2_valid.val() {
            self.e1_q.next = self.enq2_queue.val();
            self.e1_x.next = self.enq2_elem.val();
        } else {
            self.e1_q.next = self.enq3_queue.val();
            self.e1_x.next = self.enq3_elem.val();
        }

        // ---- eligibility inputs ----
        self.nonempty.next = !self.empty.q.val();
        self.avail.next = self.nonempty.val() & !self.stall.val();

        // ================= QoS arbiter =================

        for q in 0..Q {
            self.cfg[q].clock.next = self.clock.val();
            self.level[q].clock.next = self.clock.val();
            self.cfg[q].d.next = self.cfg[q].q.val();
        }

        // ---- eligibility: available, and a whole token when the bucket is enabled ----
        self.elig.next = 0.into();
        self.hm.next = 0.into();
        self.lm.next = 0.into();
        for q in 0..Q {
            self.tok.next = !(self.ctb.val() & self.cfg[q].q.val().get_bit(25)) | self.htok.q.val().get_bit(q);
            if self.avail.val().get_bit(q) & self.tok.val() {
                self.elig.next = self.elig.val().replace_bit(q, true);
                if self.wnz.q.val().get_bit(q) {
                    if self.cfg[q].q.val().get_bit(24) {
                        self.hm.next = self.hm.val().replace_bit(q, true);
                    } else {
                        self.lm.next = self.lm.val().replace_bit(q, true);
                    }
                }
            }
        }
        self.hm.next = self.hm.val() & self.not0.val();
        self.lm.next = self.lm.val() & self.not0.val();

        // ---- weighted round robin in each table: stay on ptr while it has credit (hcred/lcred hold
        // the credit + 1, so a new turn loads the weight without a subtraction), else the first
        // eligible queue after ptr in cyclic order ----
        self.hafter.next = self.hm.val() & self.hgt.q.val();
        self.lafter.next = self.lm.val() & self.lgt.q.val();
        self.hfa.next = false;
        self.hfw.next = false;
        self.lfa.next = false;
        self.lfw.next = false;
        self.hia.next = 0.into();
        self.hiw.next = 0.into();
        self.lia.next = 0.into();
        self.liw.next = 0.into();
        for q in 0..Q {
            if !self.hfa.val() & self.hafter.val().get_bit(q) {
                self.hfa.next = true;
                self.hia.next = self.qidx[q].val();
            }
            if !self.hfw.val() & self.hm.val().get_bit(q) {
                self.hfw.next = true;
                self.hiw.next = self.qidx[q].val();
            }
            if !self.lfa.val() & self.lafter.val().get_bit(q) {
                self.lfa.next = true;
                self.lia.next = self.qidx[q].val();
            }
            if !self.lfw.val() & self.lm.val().get_bit(q) {
                self.lfw.next = true;
                self.liw.next = self.qidx[q].val();
            }
        }
        self.hstay.next = self.hm.val().get_bit(self.hptr.q.val().index()) & self.hcred.q.val().get_bits::<7>(1).any();
        self.lstay.next = self.lm.val().get_bit(self.lptr.q.val().index()) & self.lcred.q.val().get_bits::<7>(1).any();
        if self.hstay.val() {
            self.hsel.next = self.hptr.q.val();
        } else if self.hfa.val() {
            self.hsel.next = self.hia.val();
        } else {
            self.hsel.next = self.hiw.val();
        }
        if self.lstay.val() {
            self.lsel.next = self.lptr.q.val();
        } else if self.lfa.val() {
            self.lsel.next = self.lia.val();
        } else {
            self.lsel.next = self.liw.val();
        }
        self.hw.next = 0.into();
        self.lw.next = 0.into();
        for q in 0..Q {
            if self.hsel.val() == self.qidx[q].val() {
                self.hw.next = self.cfg[q].q.val().get_bits::<8>(0);
            }
            if self.lsel.val() == self.qidx[q].val() {
                self.lw.next = self.cfg[q].q.val().get_bits::<8>(0);
            }
        }

        // ---- classes: control (queue 0) > high table / low table with the limit of high priority
        self.take_h.next = false;
        self.take_l.next = false;
        self.sel.next = 0.into();
        self.sel_ok.next = true;
        if self.elig.val().get_bit(0) {
            self.sel.next = 0.into();
        } else if self.hm.val().any() & (!self.lm.val().any() | (self.hcount.q.val() <= bit_cast::<9, 8>(self.limit.q.val()))) {
            self.take_h.next = true;
            self.sel.next = self.hsel.val();
        } else if self.lm.val().any() {
            self.take_l.next = true;
            self.sel.next = self.lsel.val();
        } else {
            self.sel_ok.next = false;
        }
        self.dec.next = self.deq_req.val() & self.go.val() & self.sel_ok.val();
        if self.dec.val() & self.take_h.val() {
            if self.hstay.val() {
                self.hcred.d.next = self.hcred.q.val() - 1;
            } else {
                self.hptr.d.next = self.hsel.val();
                self.hgt.d.next = (self.ones.val() << bit_cast::<6, 5>(self.hsel.val())) << 1;
                self.hcred.d.next = self.hw.val();
            }
            if self.lm.val().any() {
                self.hcount.d.next = self.hcount.q.val() + 1;
            }
        }
        if self.dec.val() & self.take_l.val() {
            if self.lstay.val() {
                self.lcred.d.next = self.lcred.q.val() - 1;
            } else {
                self.lptr.d.next = self.lsel.val();
                self.lgt.d.next = (self.ones.val() << bit_cast::<6, 5>(self.lsel.val())) << 1;
                self.lcred.d.next = self.lw.val();
            }
            self.hcount.d.next = 0.into();
        }

        // ---- token buckets (8.8): level <- min(level + rate - served, burst) ----
        for q in 0..Q {
            self.served.next = self.dec.val() & (self.sel.val() == self.qidx[q].val()) & self.cfg[q].q.val().get_bit(25);
            self.lvl.next = self.level[q].q.val();
            self.rate.next = self.cfg[q].q.val().get_bits::<8>(8);
            self.burst.next = self.cfg[q].q.val().get_bits::<8>(16);
            // both outcomes (served or not) are computed from registers; the decision only
            // picks one, so the buckets add one level after the arbiter
            self.lsum.next = bit_cast::<17, 16>(self.lvl.val()) + bit_cast::<17, 8>(self.rate.val());
            self.lsub.next = self.lsum.val() - 256;
            self.cap.next = bit_cast::<17, 8>(self.burst.val()) << 8;
            self.lv0.next = self.lsum.val();
            if self.lsum.val() > self.cap.val() {
                self.lv0.next = self.cap.val();
            }
            self.lv1.next = self.lsub.val();
            if self.lsub.val() > self.cap.val() {
                self.lv1.next = self.cap.val();
            }
            if self.served.val() {
                self.level[q].d.next = bit_cast::<16, 17>(self.lv1.val());
                self.htok.d.next = self.htok.d.val().replace_bit(q, self.lv1.val().get_bits::<9>(8).any());
            } else {
                self.level[q].d.next = bit_cast::<16, 17>(self.lv0.val());
                self.htok.d.next = self.htok.d.val().replace_bit(q, self.lv0.val().get_bits::<9>(8).any());
            }
            if !self.ctb.val() {
                self.level[q].d.next = 0.into();
                self.htok.d.next = self.htok.d.val().replace_bit(q, false);
            }
        }

        // ---- register writes ----
        if self.cfg_we.val() {
            for q in 0..Q {
                if self.cfg_addr.val() == self.qaddr[q].val() {
                    self.cfg[q].d.next = self.cfg_wdata.val().get_bits::<26>(0);
                    self.wnz.d.next = self.wnz.d.val().replace_bit(q, self.cfg_wdata.val().get_bits::<8>(0).any());
                }
            }
            if self.cfg_addr.val() == self.climit_addr.val() {
                self.limit.d.next = self.cfg_wdata.val().get_bits::<8>(0);
            }
        }

        if self.reset.val() {
            for q in 0..Q {
                self.cfg[q].d.next = self.ccfg_reset.val();
                self.level[q].d.next = 0.into();
            }
            self.limit.d.next = self.climit_reset.val();
            self.hptr.d.next = 0.into();
            self.lptr.d.next = 0.into();
            self.hgt.d.next = self.not0.val();
            self.wnz.d.next = self.ones.val();
            self.htok.d.next = 0.into();
            self.lgt.d.next = self.not0.val();
            self.hcred.d.next = 0.into();
            self.lcred.d.next = 0.into();
            self.hcount.d.next = 0.into();
        }

        // ================= shared-space FIFOs =================

        for q in 0..Q {
            self.head[q].clock.next = self.clock.val();
            self.tail[q].clock.next = self.clock.val();
            self.head[q].d.next = self.head[q].q.val();
            self.tail[q].d.next = self.tail[q].q.val();
        }
        self.next.read_clock.next = self.clock.val();
        self.next.write_clock.next = self.clock.val();
        self.pa.read_clock.next = self.clock.val();
        self.pa.write_clock.next = self.clock.val();
        self.pb.read_clock.next = self.clock.val();
        self.pb.write_clock.next = self.clock.val();
        self.init_done.next = self.idone.q.val();

        // ---- E1: address the parity RAMs with the accepted element; register it into E2 ----
        self.pa.read_address.next = self.e1_x.val();
        self.pb.read_address.next = self.e1_x.val();
        self.e2v.d.next = self.e1_v.val();
        self.e2q.d.next = self.e1_q.val();
        self.e2x.d.next = self.e1_x.val();

        // ---- E2: queued iff A != B (last cycle's writes forwarded) ----
        self.aeff.next = self.pa.read_data.val();
        if self.fav.q.val() & (self.fax.q.val() == self.e2x.q.val()) {
            self.aeff.next = self.faval.q.val();
        }
        self.beff.next = self.pb.read_data.val();
        if self.fbv.q.val() & (self.fbx.q.val() == self.e2x.q.val()) {
            self.beff.next = self.fbval.q.val();
        }
        self.inrange.next = self.qvalid.val().get_bit(self.e2q.q.val().index());
        self.commit.next = self.e2v.q.val() & self.inrange.val() & !(self.aeff.val() ^ self.beff.val());
        self.dup.next = self.e2v.q.val() & self.inrange.val() & (self.aeff.val() ^ self.beff.val());
        self.bad.next = self.e2v.q.val() & !self.inrange.val();
        self.par.next = !self.aeff.val();
        self.entry.next = bit_cast::<EW, AW>(self.e2x.q.val());
        if self.par.val() {
            self.entry.next = self.entry.val() | self.cpar.val();
        }

        // ---- dequeue: the head of dsel (the RAM output while its next-pointer read is in flight)
        // Single-element flags: registered per queue, except for the queue whose head is the RAM
        // output (its flag is that output compared with its tail), so the empty/head updates of
        // a decision need no head multiplexer and comparator on their path.
        self.yfull.next = 0.into();
        self.ptail.next = 0.into();
        self.etail.next = 0.into();
        for q in 0..Q {
            if self.sel.val() == self.qidx[q].val() {
                self.yfull.next = self.head[q].q.val();
            }
            if self.pendq.q.val() == self.qidx[q].val() {
                self.ptail.next = self.tail[q].q.val();
            }
            if self.e2q.q.val() == self.qidx[q].val() {
                self.etail.next = self.tail[q].q.val();
            }
        }
        self.psingle.next = self.next.read_data.val().get_bits::<AW>(0) == self.ptail.val();
        self.seff.next = self.single.q.val();
        for q in 0..Q {
            if self.pend.q.val() & (self.pendq.q.val() == self.qidx[q].val()) {
                self.seff.next = self.seff.val().replace_bit(q, self.psingle.val());
            }
        }
        if self.pend.q.val() & (self.pendq.q.val() == self.sel.val()) {
            self.yfull.next = self.next.read_data.val();
        }
        self.y.next = self.yfull.val().get_bits::<AW>(0);
        self.ypar.next = (self.yfull.val() & self.cpar.val()).any();
        self.ysingle.next = self.seff.val().get_bit(self.sel.val().index());
        self.eempty.next = self.empty.q.val().get_bit(self.e2q.q.val().index());
        self.next.read_address.next = self.yfull.val().get_bits::<AW>(0);
        self.pend.d.next = self.dec.val() & !self.ysingle.val();
        self.pendq.d.next = self.sel.val();

        // ---- link: next[tail] = element when the queue is not empty at the start of the cycle
        self.next.write_enable.next = self.commit.val() & !self.eempty.val();
        self.next.write_address.next = self.etail.val();
        self.next.write_data.next = self.entry.val();

        // ---- per queue: empty, head, tail ----
        for q in 0..Q {
            self.deqhit.next = self.dec.val() & (self.sel.val() == self.qidx[q].val());
            self.enqhit.next = self.commit.val() & (self.e2q.q.val() == self.qidx[q].val());
            self.sq.next = self.seff.val().get_bit(q);
            if self.enqhit.val() {
                self.empty.d.next = self.empty.d.val().replace_bit(q, false);
                self.tail[q].d.next = self.e2x.q.val();
                self.single.d.next = self
                    .single
                    .d
                    .val()
                    .replace_bit(q, self.empty.q.val().get_bit(q) | (self.deqhit.val() & self.sq.val()));
                if self.empty.q.val().get_bit(q) | (self.deqhit.val() & self.sq.val()) {
                    self.head[q].d.next = self.entry.val();
                } else if self.pend.q.val() & (self.pendq.q.val() == self.qidx[q].val()) {
                    self.head[q].d.next = self.next.read_data.val();
                }
            } else {
                if self.deqhit.val() & self.sq.val() {
                    self.empty.d.next = self.empty.d.val().replace_bit(q, true);
                }
                if self.pend.q.val() & (self.pendq.q.val() == self.qidx[q].val()) {
                    self.head[q].d.next = self.next.read_data.val();
                    self.single.d.next = self.single.d.val().replace_bit(q, self.psingle.val());
                }
            }
        }

        // ---- parity writes (the initializer clears both RAMs), forwarding registers ----
        self.pa.write_enable.next = self.commit.val();
        self.pa.write_address.next = self.e2x.q.val();
        self.pa.write_data.next = self.par.val();
        self.pb.write_enable.next = self.dec.val();
        self.pb.write_address.next = self.yfull.val().get_bits::<AW>(0);
        self.pb.write_data.next = self.ypar.val();
        self.fav.d.next = self.commit.val();
        self.fax.d.next = self.e2x.q.val();
        self.faval.d.next = self.par.val();
        self.fbv.d.next = self.dec.val();
        self.fbx.d.next = self.yfull.val().get_bits::<AW>(0);
        self.fbval.d.next = self.ypar.val();
        if !self.idone.q.val() {
            self.pa.write_enable.next = true;
            self.pa.write_address.next = self.icnt.q.val();
            self.pa.write_data.next = false;
            self.pb.write_enable.next = true;
            self.pb.write_address.next = self.icnt.q.val();
            self.pb.write_data.next = false;
            self.icnt.d.next = self.icnt.q.val() + 1;
            if self.icnt.q.val().all() {
                self.idone.d.next = true;
            }
        }

        if self.reset.val() {
            self.empty.d.next = 0xffff_ffff_u64.into();
            self.pend.d.next = false;
            self.e2v.d.next = false;
            self.fav.d.next = false;
            self.fbv.d.next = false;
            self.icnt.d.next = 0.into();
            self.idone.d.next = false;
        }
        // ---- registered decision and counters ----
        self.ov.d.next = self.deq_req.val() & self.go.val();
        self.ook.d.next = self.dec.val();
        self.oq.d.next = 0.into();
        self.ox.d.next = 0.into();
        if self.dec.val() {
            self.oq.d.next = self.sel.val();
            self.ox.d.next = self.y.val();
        }
        if self.dup.val() {
            self.cdup.d.next = self.cdup.q.val() + 1;
        }
        if self.bad.val() {
            self.cbad.d.next = self.cbad.q.val() + 1;
        }
        self.deq_valid.next = self.ov.q.val();
        self.deq_ok.next = self.ook.q.val();
        self.deq_queue.next = self.oq.q.val();
        self.deq_elem.next = self.ox.q.val();
        self.cnt_dup.next = self.cdup.q.val();
        self.cnt_bad_queue.next = self.cbad.q.val();
        if self.reset.val() {
            self.ov.d.next = false;
            self.ook.d.next = false;
            self.cdup.d.next = 0.into();
            self.cbad.d.next = 0.into();
        }
    }
}
