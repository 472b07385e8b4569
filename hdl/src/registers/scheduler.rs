//! [`SchedulerRegisters`]: the register file of the scheduler build (the QoS scheduler alone,
//! for boards too small for the engine), an AXI4-Lite slave elaborated from
//! `ferroce_contracts::regs::Map::scheduler`. `docs/boards.md` describes the build; the
//! software model is `ferroce_models::sched_build::SchedulerBuildModel`.
//!
//! ```text
//!  AXI4-Lite ─► AxiLiteFront ─► op_* ─► decode ─► execute ─► finish (B or R)
//!                                        │ queue word read     │ queue word / limit written ─► cfg_* (the scheduler's QoS words)
//!                                        │ (block RAM)         │ enqueue ─► enqueue_* (held until enqueue_ready)
//!                                        ▼                     └ decide ─► decide (one cycle)
//!                              constants, counters,    decision_* ─► `decision` (the last decision)
//! ```
//!
//! One operation at a time, three cycles from its start to its response: **decode** compares the
//! word address with every register's (constants from the map), registers the value of a
//! constant, counter or `decision` read and the response (DECERR: nothing there; SLVERR: a
//! write to a read-only register), and reads the queue word; **execute** merges a write into the
//! queue word or the limit of high priority (byte strobes honoured) and passes it to the
//! scheduler, starts an enqueue or a decision, and finishes. An enqueue waits for the
//! scheduler's `enqueue_ready` (after its initialization) and holds the next operation back
//! until it is taken.

use super::axil::AxiLiteFront;
use super::{mask32, WORD_BITS};
use crate::common::dual_port_ram::BlockRam;
use crate::common::elab::c;
use ferroce_contracts::regs::{Device, Map, ADDRESS_BITS};
use ferroce_contracts::sched as contract;
use ferroce_contracts::serial::Discard;
use rust_hdl::prelude::*;

/// Constants of the ID block: `device_id`, `version`, `build_sched`, `map_hash`.
const CONSTANTS: [&str; 4] = ["device_id", "version", "build_sched", "map_hash"];
/// Counters: the scheduler's two, then the serial bridge's discards in code order.
const COUNTERS: usize = 2 + Discard::ALL.len();

/// The scheduler build's register file over `2^AW` nodes.
#[derive(LogicBlock)]
pub struct SchedulerRegisters<const AW: usize> {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous, active high: registers to their reset values, a waiting enqueue dropped.
    pub reset: Signal<In, Bit>,
    /// AXI4-Lite slave: write address valid.
    pub s_axil_awvalid: Signal<In, Bit>,
    /// AXI4-Lite slave: write address ready.
    pub s_axil_awready: Signal<Out, Bit>,
    /// AXI4-Lite slave: write address (bytes).
    pub s_axil_awaddr: Signal<In, Bits<ADDRESS_BITS>>,
    /// AXI4-Lite slave: write data valid.
    pub s_axil_wvalid: Signal<In, Bit>,
    /// AXI4-Lite slave: write data ready.
    pub s_axil_wready: Signal<Out, Bit>,
    /// AXI4-Lite slave: write data.
    pub s_axil_wdata: Signal<In, Bits<32>>,
    /// AXI4-Lite slave: write strobes.
    pub s_axil_wstrb: Signal<In, Bits<4>>,
    /// AXI4-Lite slave: write response valid.
    pub s_axil_bvalid: Signal<Out, Bit>,
    /// AXI4-Lite slave: write response ready.
    pub s_axil_bready: Signal<In, Bit>,
    /// AXI4-Lite slave: write response.
    pub s_axil_bresp: Signal<Out, Bits<2>>,
    /// AXI4-Lite slave: read address valid.
    pub s_axil_arvalid: Signal<In, Bit>,
    /// AXI4-Lite slave: read address ready.
    pub s_axil_arready: Signal<Out, Bit>,
    /// AXI4-Lite slave: read address (bytes).
    pub s_axil_araddr: Signal<In, Bits<ADDRESS_BITS>>,
    /// AXI4-Lite slave: read data valid.
    pub s_axil_rvalid: Signal<Out, Bit>,
    /// AXI4-Lite slave: read data ready.
    pub s_axil_rready: Signal<In, Bit>,
    /// AXI4-Lite slave: read data.
    pub s_axil_rdata: Signal<Out, Bits<32>>,
    /// AXI4-Lite slave: read response.
    pub s_axil_rresp: Signal<Out, Bits<2>>,
    /// To the scheduler: write a QoS word (registered).
    pub cfg_we: Signal<Out, Bit>,
    /// To the scheduler: the word's address (a queue, or the limit of high priority).
    pub cfg_addr: Signal<Out, Bits<7>>,
    /// To the scheduler: the word.
    pub cfg_wdata: Signal<Out, Bits<32>>,
    /// To the scheduler's requester: enqueue (held until `enqueue_ready`).
    pub enqueue_valid: Signal<Out, Bit>,
    /// The queue to enqueue on.
    pub enqueue_queue: Signal<Out, Bits<5>>,
    /// The node to enqueue.
    pub enqueue_node: Signal<Out, Bits<AW>>,
    /// The scheduler takes the enqueue this cycle.
    pub enqueue_ready: Signal<In, Bit>,
    /// To the scheduler: make one decision (one cycle).
    pub decide: Signal<Out, Bit>,
    /// From the scheduler: a decision's result.
    pub decision_valid: Signal<In, Bit>,
    /// It served a queue.
    pub decision_served: Signal<In, Bit>,
    /// The queue served.
    pub decision_queue: Signal<In, Bits<5>>,
    /// The node that left it.
    pub decision_node: Signal<In, Bits<AW>>,
    /// The `decision` register (the last decision), for a board's LEDs.
    pub last_decision: Signal<Out, Bits<32>>,
    /// The scheduler's counter of duplicate enqueues.
    pub cnt_dup: Signal<In, Bits<32>>,
    /// The scheduler's counter of enqueues to a queue beyond the queues.
    pub cnt_bad_queue: Signal<In, Bits<32>>,
    /// The serial bridge's discards: unknown command.
    pub discards_unknown_command: Signal<In, Bits<32>>,
    /// The serial bridge's discards: framing.
    pub discards_framing: Signal<In, Bits<32>>,
    /// The serial bridge's discards: timeout.
    pub discards_timeout: Signal<In, Bits<32>>,
    /// The serial bridge's discards: overrun.
    pub discards_overrun: Signal<In, Bits<32>>,
    front: AxiLiteFront,
    words: BlockRam<Bits<32>, 5>,
    /// Queue q's word was written since reset (else it reads as its reset value).
    queue_written: DFF<Bits<32>>,
    limit: DFF<Bits<32>>,
    decision: DFF<Bits<32>>,
    executing: DFF<Bit>,
    response: DFF<Bits<2>>,
    /// The value of a constant, counter or `decision` read (0 for anything else).
    read_value: DFF<Bits<32>>,
    hit_queue: DFF<Bit>,
    hit_limit: DFF<Bit>,
    hit_enqueue: DFF<Bit>,
    hit_decide: DFF<Bit>,
    enqueue_pending: DFF<Bit>,
    enqueue_queue_held: DFF<Bits<5>>,
    enqueue_node_held: DFF<Bits<AW>>,
    decide_now: DFF<Bit>,
    cfg_write: DFF<Bit>,
    cfg_address: DFF<Bits<7>>,
    cfg_word: DFF<Bits<32>>,
    constant_address: [Constant<Bits<WORD_BITS>>; 4],
    constant_value: [Constant<Bits<32>>; 4],
    counter_address: [Constant<Bits<WORD_BITS>>; COUNTERS],
    /// The queue words' window (`queue_config`, 32 words) and the queues built.
    queue_window: Constant<Bits<WORD_BITS>>,
    queues: Constant<Bits<6>>,
    limit_address: Constant<Bits<WORD_BITS>>,
    enqueue_address: Constant<Bits<WORD_BITS>>,
    decide_address: Constant<Bits<WORD_BITS>>,
    decision_address: Constant<Bits<WORD_BITS>>,
    queue_reset: Constant<Bits<32>>,
    queue_mask: Constant<Bits<32>>,
    limit_reset: Constant<Bits<32>>,
    limit_mask: Constant<Bits<32>>,
    limit_cfg_address: Constant<Bits<7>>,
    one_decision: Constant<Bits<32>>,
    number_mask: Constant<Bits<32>>,
    window_mask: Constant<Bits<WORD_BITS>>,
    first_queue: Constant<Bits<32>>,
    hit_constant: Signal<Local, Bit>,
    decode_queue: Signal<Local, Bit>,
    decode_limit: Signal<Local, Bit>,
    decode_enqueue: Signal<Local, Bit>,
    decode_decide: Signal<Local, Bit>,
    next_decision: Signal<Local, Bits<32>>,
    hit_counter: Signal<Local, Bit>,
    hit_decision: Signal<Local, Bit>,
    in_window: Signal<Local, Bit>,
    old_word: Signal<Local, Bits<32>>,
    written_mask: Signal<Local, Bits<32>>,
    merged: Signal<Local, Bits<32>>,
    strobed: Signal<Local, Bits<32>>,
    queue_bit: Signal<Local, Bits<32>>,
}

impl<const AW: usize> SchedulerRegisters<AW> {
    /// The register file of `map` (a [`Map::scheduler`] map of `2^AW` nodes).
    pub fn new(map: &Map) -> Self {
        assert_eq!(
            map.device,
            Device::Scheduler { node_bits: AW as u32 },
            "a scheduler build's map of 2^{AW} nodes"
        );
        let word = |name: &str| c::<WORD_BITS>(u64::from(map.reg(name).offset / 4));
        let reset = |name: &str| map.reg(name).reset().expect("a register with a reset value");
        let counters: Vec<String> = ["sched_duplicate".to_string(), "sched_bad_queue".to_string()]
            .into_iter()
            .chain(Discard::ALL.iter().map(|d| format!("serial_{}", d.name())))
            .collect();
        let queue_config = map.reg("queue_config");
        assert_eq!(
            (queue_config.max_count, queue_config.stride),
            (32, 4),
            "queue words: 32 words in a row"
        );
        let enqueue = map.reg("enqueue");
        let node = enqueue.field("node").expect("enqueue.node");
        let queue = enqueue.field("queue").expect("enqueue.queue");
        assert_eq!(
            (node.lsb, node.width, queue.lsb, queue.width),
            (0, AW as u32, 16, 5),
            "enqueue: the node in the low bits, a 5-bit queue at bit 16 (where the RTL takes them)"
        );
        let decision = map.reg("decision");
        let field = |name: &str| decision.field(name).expect("decision field");
        assert_eq!(
            (field("node").lsb, field("queue").lsb, field("served").lsb, field("sequence").lsb),
            (0, 16, 23, 24),
            "decision: node, queue, served, sequence at the bits the RTL packs"
        );
        Self {
            clock: Default::default(),
            reset: Default::default(),
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
            cfg_we: Default::default(),
            cfg_addr: Default::default(),
            cfg_wdata: Default::default(),
            enqueue_valid: Default::default(),
            enqueue_queue: Default::default(),
            enqueue_node: Default::default(),
            enqueue_ready: Default::default(),
            decide: Default::default(),
            decision_valid: Default::default(),
            decision_served: Default::default(),
            decision_queue: Default::default(),
            decision_node: Default::default(),
            last_decision: Default::default(),
            cnt_dup: Default::default(),
            cnt_bad_queue: Default::default(),
            discards_unknown_command: Default::default(),
            discards_framing: Default::default(),
            discards_timeout: Default::default(),
            discards_overrun: Default::default(),
            front: Default::default(),
            words: Default::default(),
            queue_written: Default::default(),
            limit: Default::default(),
            decision: Default::default(),
            executing: Default::default(),
            response: Default::default(),
            read_value: Default::default(),
            hit_queue: Default::default(),
            hit_limit: Default::default(),
            hit_enqueue: Default::default(),
            hit_decide: Default::default(),
            enqueue_pending: Default::default(),
            enqueue_queue_held: Default::default(),
            enqueue_node_held: Default::default(),
            decide_now: Default::default(),
            cfg_write: Default::default(),
            cfg_address: Default::default(),
            cfg_word: Default::default(),
            constant_address: CONSTANTS.map(word),
            constant_value: CONSTANTS.map(|name| mask32(reset(name))),
            counter_address: std::array::from_fn(|k| word(&counters[k])),
            queue_window: word("queue_config"),
            queues: c::<6>(u64::from(queue_config.count)),
            limit_address: word("high_limit"),
            enqueue_address: word("enqueue"),
            decide_address: word("decide"),
            decision_address: word("decision"),
            queue_reset: mask32(contract::QUEUE_CONFIG_RESET),
            queue_mask: mask32(queue_config.write_mask()),
            limit_reset: mask32(reset("high_limit")),
            limit_mask: mask32(map.reg("high_limit").write_mask()),
            limit_cfg_address: c::<7>(u64::from(contract::HIGH_LIMIT_ADDR)),
            one_decision: mask32(1 << field("sequence").lsb),
            number_mask: mask32(field("sequence").mask()),
            window_mask: c::<WORD_BITS>(((1u64 << WORD_BITS) - 1) & !31),
            first_queue: mask32(1),
            hit_constant: Default::default(),
            decode_queue: Default::default(),
            decode_limit: Default::default(),
            decode_enqueue: Default::default(),
            decode_decide: Default::default(),
            next_decision: Default::default(),
            hit_counter: Default::default(),
            hit_decision: Default::default(),
            in_window: Default::default(),
            old_word: Default::default(),
            written_mask: Default::default(),
            merged: Default::default(),
            strobed: Default::default(),
            queue_bit: Default::default(),
        }
    }
}

impl<const AW: usize> Logic for SchedulerRegisters<AW> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            queue_written,
            limit,
            decision,
            executing,
            response,
            read_value,
            hit_queue,
            hit_limit,
            hit_enqueue,
            hit_decide,
            enqueue_pending,
            enqueue_queue_held,
            enqueue_node_held,
            decide_now,
            cfg_write,
            cfg_address,
            cfg_word
        );
        clock!(self, clock, front);
        self.words.clock.next = self.clock.val();

        // the bus: AXI4-Lite into the front's channel registers
        self.front.reset.next = self.reset.val();
        self.front.awvalid.next = self.s_axil_awvalid.val();
        self.s_axil_awready.next = self.front.awready.val();
        self.front.awaddr.next = self.s_axil_awaddr.val();
        self.front.wvalid.next = self.s_axil_wvalid.val();
        self.s_axil_wready.next = self.front.wready.val();
        self.front.wdata.next = self.s_axil_wdata.val();
        self.front.wstrb.next = self.s_axil_wstrb.val();
        self.s_axil_bvalid.next = self.front.bvalid.val();
        self.front.bready.next = self.s_axil_bready.val();
        self.s_axil_bresp.next = self.front.bresp.val();
        self.front.arvalid.next = self.s_axil_arvalid.val();
        self.s_axil_arready.next = self.front.arready.val();
        self.front.araddr.next = self.s_axil_araddr.val();
        self.s_axil_rvalid.next = self.front.rvalid.val();
        self.front.rready.next = self.s_axil_rready.val();
        self.s_axil_rdata.next = self.front.rdata.val();
        self.s_axil_rresp.next = self.front.rresp.val();
        self.front.idle.next = !self.front.op_start.val() & !self.executing.q.val() & !self.enqueue_pending.q.val();

        // decode: which register, the value of a read that is not a queue word, the response
        self.words.read_address.next = self.front.op_address.val().get_bits::<5>(0);
        self.hit_constant.next = false;
        self.hit_counter.next = false;
        self.read_value.d.next = 0.into();
        for k in 0..4 {
            if self.front.op_address.val() == self.constant_address[k].val() {
                self.hit_constant.next = true;
                self.read_value.d.next = self.constant_value[k].val();
            }
        }
        if self.front.op_address.val() == self.counter_address[0].val() {
            self.hit_counter.next = true;
            self.read_value.d.next = self.cnt_dup.val();
        }
        if self.front.op_address.val() == self.counter_address[1].val() {
            self.hit_counter.next = true;
            self.read_value.d.next = self.cnt_bad_queue.val();
        }
        if self.front.op_address.val() == self.counter_address[2].val() {
            self.hit_counter.next = true;
            self.read_value.d.next = self.discards_unknown_command.val();
        }
        if self.front.op_address.val() == self.counter_address[3].val() {
            self.hit_counter.next = true;
            self.read_value.d.next = self.discards_framing.val();
        }
        if self.front.op_address.val() == self.counter_address[4].val() {
            self.hit_counter.next = true;
            self.read_value.d.next = self.discards_timeout.val();
        }
        if self.front.op_address.val() == self.counter_address[5].val() {
            self.hit_counter.next = true;
            self.read_value.d.next = self.discards_overrun.val();
        }
        self.hit_decision.next = self.front.op_address.val() == self.decision_address.val();
        if self.hit_decision.val() {
            self.read_value.d.next = self.decision.q.val();
        }
        self.in_window.next = (self.front.op_address.val() & self.window_mask.val()) == self.queue_window.val();
        self.decode_queue.next =
            self.in_window.val() & (bit_cast::<6, 5>(self.front.op_address.val().get_bits::<5>(0)) < self.queues.val());
        self.decode_limit.next = self.front.op_address.val() == self.limit_address.val();
        self.decode_enqueue.next = self.front.op_address.val() == self.enqueue_address.val();
        self.decode_decide.next = self.front.op_address.val() == self.decide_address.val();
        self.hit_queue.d.next = self.decode_queue.val();
        self.hit_limit.d.next = self.decode_limit.val();
        self.hit_enqueue.d.next = self.decode_enqueue.val();
        self.hit_decide.d.next = self.decode_decide.val();
        if self.front.op_start.val() {
            self.executing.d.next = true;
            self.response.d.next = 3.into();
            if self.decode_queue.val() | self.decode_limit.val() | self.decode_enqueue.val() | self.decode_decide.val() {
                self.response.d.next = 0.into();
            }
            if self.hit_constant.val() | self.hit_counter.val() | self.hit_decision.val() {
                self.response.d.next = 0.into();
                if self.front.op_write.val() {
                    self.response.d.next = 2.into();
                }
            }
        }

        // execute: the queue word or the limit merged with a write and passed on; an enqueue or a
        // decision started; the response
        self.queue_bit.next = self.first_queue.val() << bit_cast::<32, 5>(self.front.op_address.val().get_bits::<5>(0));
        self.old_word.next = self.queue_reset.val();
        if (self.queue_written.q.val() & self.queue_bit.val()).any() {
            self.old_word.next = self.words.read_data.val();
        }
        if self.hit_limit.q.val() {
            self.old_word.next = self.limit.q.val();
        }
        self.written_mask.next = self.front.op_mask.val() & self.queue_mask.val();
        if self.hit_limit.q.val() {
            self.written_mask.next = self.front.op_mask.val() & self.limit_mask.val();
        }
        self.merged.next = (self.old_word.val() & !self.written_mask.val()) | (self.front.op_data.val() & self.written_mask.val());
        self.strobed.next = self.front.op_data.val() & self.front.op_mask.val();
        self.words.write.next = false;
        self.words.write_address.next = self.front.op_address.val().get_bits::<5>(0);
        self.words.write_data.next = self.merged.val();
        self.cfg_write.d.next = false;
        self.decide_now.d.next = false;
        self.front.finish.next = false;
        self.front.finish_response.next = self.response.q.val();
        self.front.finish_data.next = self.read_value.q.val();
        if self.hit_queue.q.val() | self.hit_limit.q.val() {
            self.front.finish_data.next = self.old_word.val();
        }
        if self.executing.q.val() {
            self.executing.d.next = false;
            self.front.finish.next = true;
            if self.front.op_write.val() & (self.response.q.val() == 0) {
                if self.hit_queue.q.val() {
                    self.words.write.next = true;
                    self.queue_written.d.next = self.queue_written.q.val() | self.queue_bit.val();
                    self.cfg_write.d.next = true;
                    self.cfg_address.d.next = bit_cast::<7, 5>(self.front.op_address.val().get_bits::<5>(0));
                    self.cfg_word.d.next = self.merged.val();
                }
                if self.hit_limit.q.val() {
                    self.limit.d.next = self.merged.val();
                    self.cfg_write.d.next = true;
                    self.cfg_address.d.next = self.limit_cfg_address.val();
                    self.cfg_word.d.next = self.merged.val();
                }
                if self.hit_enqueue.q.val() {
                    self.enqueue_pending.d.next = true;
                    self.enqueue_node_held.d.next = self.strobed.val().get_bits::<AW>(0);
                    self.enqueue_queue_held.d.next = self.strobed.val().get_bits::<5>(16);
                }
                if self.hit_decide.q.val() {
                    self.decide_now.d.next = true;
                }
            }
        }
        self.cfg_we.next = self.cfg_write.q.val();
        self.cfg_addr.next = self.cfg_address.q.val();
        self.cfg_wdata.next = self.cfg_word.q.val();

        // the scheduler's side: the enqueue held until taken, a decision, its result kept
        self.enqueue_valid.next = self.enqueue_pending.q.val();
        self.enqueue_queue.next = self.enqueue_queue_held.q.val();
        self.enqueue_node.next = self.enqueue_node_held.q.val();
        if self.enqueue_pending.q.val() & self.enqueue_ready.val() {
            self.enqueue_pending.d.next = false;
        }
        self.decide.next = self.decide_now.q.val();
        self.next_decision.next = ((self.decision.q.val() + self.one_decision.val()) & self.number_mask.val())
            | (bit_cast::<32, 1>(self.decision_served.val().into()) << 23)
            | (bit_cast::<32, 5>(self.decision_queue.val()) << 16)
            | bit_cast::<32, AW>(self.decision_node.val());
        if self.decision_valid.val() {
            self.decision.d.next = self.next_decision.val();
        }
        self.last_decision.next = self.decision.q.val();
        if self.reset.val() {
            self.queue_written.d.next = 0.into();
            self.limit.d.next = self.limit_reset.val();
            self.decision.d.next = 0.into();
            self.executing.d.next = false;
            self.enqueue_pending.d.next = false;
            self.decide_now.d.next = false;
            self.cfg_write.d.next = false;
        }
    }
}
