//! The registry of top modules that `gen-verilog` emits.
//!
//! Each top comes in variants: the bus widths for the AXI-Stream units (`w512`), the node and
//! queue counts for the scheduler (`n2048_q32`). The module name is `ferroce_<top>_<variant>`.

use crate::common::attributes;
use crate::emit;
use crate::engine::{Engine, EngineBus, HostResponder, PayloadWriter, ReadTracker, Responder, RxPath};
use crate::memory::Axi4Master;
use crate::registers::serial::SerialBridge;
use crate::registers::Registers;
use crate::rx::front::data_depth;
use crate::rx::{IcrcCheck, MacIngress, RxFront, RxHeader};
use crate::sched::pacers::QueuePacers;
use crate::sched::serial::SerialSched;
use crate::sched::{self, Sched};
use crate::stream::{StreamBus, StreamBusSender, StreamBusSet, StreamPort, StreamReadRouter, StreamReader, StreamSender, StreamSet};
use crate::tx::{AckTracker, IcrcInsert, RetryTimer, SendHistory, TxGenerator, TxPath, TxSegmenter};
use ferroce_contracts::regs::{self, Config, DEFAULT_STREAM_BUFFER_BYTES, MAX_STREAM_BUFFER_BYTES, QP_READ_LATENCY};
use ferroce_contracts::rx::ingress::address_bits;

/// Bus widths every width-generic top supports.
pub const WIDTHS: [usize; 5] = [64, 128, 256, 512, 1024];
const WIDTH_VARIANTS: [&str; 5] = ["w64", "w128", "w256", "w512", "w1024"];
/// The widths below 1024: the co-simulated variants of the largest width-generic tops, whose
/// 1024-bit Verilator models take a fifth of the test command's build (they are built with
/// `FERROCE_SIM_ALL=1`).
const WIDTHS_BELOW_1024: [&str; 4] = ["w64", "w128", "w256", "w512"];

/// A top module: its Ferroce name (without the variant suffix) and what it does.
pub struct Top {
    /// Name, as `--top` takes it (e.g. `icrc_check`).
    pub name: &'static str,
    /// One-line description (printed by `gen-verilog --list`).
    pub description: &'static str,
    /// Variant suffixes; for tops that are not width-generic the first one is the default.
    pub variants: &'static [&'static str],
    /// The variants built as Verilator models for the co-simulation tests (a subset of
    /// `variants`; every variant is still emitted, linted and synthesizable; `FERROCE_SIM_ALL=1`
    /// builds them all).
    pub simulated: &'static [&'static str],
    build: fn(&str, &str) -> String,
}

impl Top {
    /// Whether the variants are bus widths.
    pub fn width_generic(&self) -> bool {
        self.variants[0].starts_with('w')
    }

    /// The variant `gen-verilog --width W` emits: `w<W>`, or the default variant.
    pub fn variant_for_width(&self, width: usize) -> &'static str {
        if self.width_generic() {
            self.variants
                .iter()
                .find(|v| v[1..] == width.to_string())
                .copied()
                .unwrap_or_else(|| panic!("unsupported width {width}"))
        } else {
            self.variants[0]
        }
    }

    /// Bus width of a variant of a width-generic top.
    pub fn width_of(&self, variant: &str) -> Option<usize> {
        if self.width_generic() {
            variant[1..].parse().ok()
        } else {
            None
        }
    }

    /// Module name of a variant, e.g. `ferroce_icrc_check_w512`, `ferroce_sched_n2048_q32`.
    pub fn module_name(&self, variant: &str) -> String {
        format!("ferroce_{}_{}", self.name, variant)
    }

    /// Generates the Verilog of this top in one of its [`Top::variants`].
    pub fn verilog(&self, variant: &str) -> String {
        assert!(self.variants.contains(&variant), "top {} has no variant {variant}", self.name);
        let f = self.build;
        let module = self.module_name(variant);
        let variant = variant.to_string();
        emit::with_big_stack(move || f(&variant, &module))
    }
}

macro_rules! at_width {
    ($variant:expr, $name:expr, $ty:ident) => {
        match $variant {
            "w64" => emit::verilog(&mut $ty::<64, 8>::default(), $name),
            "w128" => emit::verilog(&mut $ty::<128, 16>::default(), $name),
            "w256" => emit::verilog(&mut $ty::<256, 32>::default(), $name),
            "w512" => emit::verilog(&mut $ty::<512, 64>::default(), $name),
            "w1024" => emit::verilog(&mut $ty::<1024, 128>::default(), $name),
            v => panic!("unsupported variant {v}"),
        }
    };
}

fn icrc_check(variant: &str, module: &str) -> String {
    at_width!(variant, module, IcrcCheck)
}

fn icrc_insert(variant: &str, module: &str) -> String {
    at_width!(variant, module, IcrcInsert)
}

fn tx_generator(variant: &str, module: &str) -> String {
    match variant {
        "w64" => emit::verilog(&mut TxGenerator::<64, 8, QP_READ_LATENCY>::default(), module),
        "w128" => emit::verilog(&mut TxGenerator::<128, 16, QP_READ_LATENCY>::default(), module),
        "w256" => emit::verilog(&mut TxGenerator::<256, 32, QP_READ_LATENCY>::default(), module),
        "w512" => emit::verilog(&mut TxGenerator::<512, 64, QP_READ_LATENCY>::default(), module),
        "w1024" => emit::verilog(&mut TxGenerator::<1024, 128, QP_READ_LATENCY>::default(), module),
        v => panic!("unsupported variant {v}"),
    }
}

fn rx_header(variant: &str, module: &str) -> String {
    at_width!(variant, module, RxHeader)
}

fn rx_front(variant: &str, module: &str) -> String {
    match variant {
        "w64" => emit::verilog(&mut RxFront::<64, 8, { data_depth(8) }>::default(), module),
        "w128" => emit::verilog(&mut RxFront::<128, 16, { data_depth(16) }>::default(), module),
        "w256" => emit::verilog(&mut RxFront::<256, 32, { data_depth(32) }>::default(), module),
        "w512" => emit::verilog(&mut RxFront::<512, 64, { data_depth(64) }>::default(), module),
        "w1024" => emit::verilog(&mut RxFront::<1024, 128, { data_depth(128) }>::default(), module),
        v => panic!("unsupported variant {v}"),
    }
}

fn pacers(variant: &str, module: &str) -> String {
    match variant {
        "q32" => emit::verilog(&mut QueuePacers::<32, 0, 0>::default(), module),
        "q8_lead3_slack256" => emit::verilog(&mut QueuePacers::<8, 3, 256>::default(), module),
        v => panic!("unsupported variant {v}"),
    }
}

fn sched(variant: &str, module: &str) -> String {
    match variant {
        "n2048_q32" => sched::synthesis_attributes(emit::verilog(&mut Sched::<11, 12, 32>::default(), module), true),
        "n2048_q32_notb" => sched::synthesis_attributes(emit::verilog(&mut Sched::<11, 12, 32>::without_token_buckets(), module), true),
        "n64_q5" => sched::synthesis_attributes(emit::verilog(&mut Sched::<6, 7, 5>::default(), module), false),
        v => panic!("unsupported variant {v}"),
    }
}

/// The build configuration of a variant of the `registers` top.
pub fn registers_config(variant: &str) -> Config {
    match variant {
        "c2048_q256" => Config::DEFAULT,
        "c64_q16" => Config::SMALL,
        v => panic!("unsupported variant {v}"),
    }
}

/// The register map of a variant of the `registers` top as files for drivers and PeakRDL:
/// (file name, text, what it is), the C header and the SystemRDL description.
pub fn register_map_files(variant: &str) -> [(&'static str, String, String); 2] {
    map_files(&ferroce_contracts::regs::Map::new(registers_config(variant)))
}

/// A register map as files for drivers and PeakRDL: the C header and the SystemRDL
/// description, (file name, text, what it is).
pub fn map_files(map: &ferroce_contracts::regs::Map) -> [(&'static str, String, String); 2] {
    let hash = map.hash();
    [
        (
            "ferroce_regs.h",
            ferroce_contracts::regs::render::c_header(map),
            format!("C header of the register map, hash {hash:#010x}"),
        ),
        (
            "ferroce_regs.rdl",
            ferroce_contracts::regs::render::systemrdl(map),
            format!("SystemRDL 2.0 register map, hash {hash:#010x}"),
        ),
    ]
}

fn registers(variant: &str, module: &str) -> String {
    let config = registers_config(variant);
    match variant {
        "c2048_q256" => emit::verilog(&mut Registers::<11, 6, 8>::new(config), module),
        "c64_q16" => emit::verilog(&mut Registers::<6, 1, 4>::new(config), module),
        v => panic!("unsupported variant {v}"),
    }
}

/// Queues of the small segmenter variant (`c64_q16`): fewer than a post's queue field holds, so
/// its tests reach the `BadQueue` refusal.
pub const TX_SEGMENTER_SMALL_QUEUES: usize = 8;

fn tx_segmenter(variant: &str, module: &str) -> String {
    match variant {
        // the 2048 busy bits in block RAM (as LUTRAM their read multiplexer is four levels deep)
        "c2048_q256" => {
            attributes::one_bit_memories_in_block_ram(emit::verilog(&mut TxSegmenter::<11, 8, QP_READ_LATENCY>::default(), module))
        }
        "c64_q16" => emit::verilog(
            &mut TxSegmenter::<6, 4, QP_READ_LATENCY>::new(64, TX_SEGMENTER_SMALL_QUEUES, 16),
            module,
        ),
        v => panic!("unsupported variant {v}"),
    }
}

fn retry_timer(variant: &str, module: &str) -> String {
    match variant {
        "q2048" => attributes::deep_memories_in_block_ram(emit::verilog(&mut RetryTimer::<11>::default(), module), 256),
        "q256" => attributes::deep_memories_in_block_ram(emit::verilog(&mut RetryTimer::<8>::default(), module), 256),
        "q16" => emit::verilog(&mut RetryTimer::<4>::default(), module),
        v => panic!("unsupported variant {v}"),
    }
}

fn send_history(variant: &str, module: &str) -> String {
    match variant {
        "q256_s8" => attributes::deep_memories_in_block_ram(emit::verilog(&mut SendHistory::<8, 11>::default(), module), 256),
        "q16_s4" => emit::verilog(&mut SendHistory::<4, 6>::default(), module),
        v => panic!("unsupported variant {v}"),
    }
}

fn read_tracker(variant: &str, module: &str) -> String {
    match variant {
        "q2048" => attributes::deep_memories_in_block_ram(emit::verilog(&mut ReadTracker::<11>::default(), module), 256),
        "q256" => attributes::deep_memories_in_block_ram(emit::verilog(&mut ReadTracker::<8>::default(), module), 256),
        "q16" => emit::verilog(&mut ReadTracker::<4>::default(), module),
        v => panic!("unsupported variant {v}"),
    }
}

fn ack_tracker(variant: &str, module: &str) -> String {
    match variant {
        "c2048_q256" => attributes::deep_memories_in_block_ram(emit::verilog(&mut AckTracker::<11, 8>::default(), module), 256),
        "c64_q16" => emit::verilog(&mut AckTracker::<6, 4>::default(), module),
        v => panic!("unsupported variant {v}"),
    }
}

fn tx_path(variant: &str, module: &str) -> String {
    match variant {
        // the scheduler's attributes; its parity RAMs and the segmenter's busy bits in block RAM
        // and the send history, 8,192 blocks deep, in block RAM
        "c2048_q256_w512" => attributes::deep_memories_in_block_ram(
            sched::synthesis_attributes(
                emit::verilog(&mut TxPath::<512, 64, 11, 12, 8, 32, QP_READ_LATENCY, 13>::default(), module),
                true,
            ),
            8192,
        ),
        // and the per-QP RAMs, 2048 words deep, in block RAM
        "c2048_q2048_w512" => attributes::deep_memories_in_block_ram(
            sched::synthesis_attributes(
                emit::verilog(&mut TxPath::<512, 64, 11, 12, 11, 32, QP_READ_LATENCY, 14>::default(), module),
                true,
            ),
            2048,
        ),
        "c64_q16_w64" => sched::synthesis_attributes(
            emit::verilog(
                &mut TxPath::<64, 8, 6, 7, 4, TX_SEGMENTER_SMALL_QUEUES, QP_READ_LATENCY, 9>::new(64, 16),
                module,
            ),
            false,
        ),
        v => panic!("unsupported variant {v}"),
    }
}

/// log2 of the receive buffers per QP of the `responder` variants (the ring's address bits are
/// the QP bits plus this): 16 per QP with 256 QPs (4,096 buffers, 11 RAMB36), 4 per QP with 2048
/// QPs (8,192 buffers, 22 RAMB36).
pub const RESPONDER_RECEIVE_QUEUE_LOG2: [(&str, usize); 2] = [("q256", 4), ("q2048", 2)];

fn responder(variant: &str, module: &str) -> String {
    match variant {
        "q256" => emit::verilog(
            &mut Responder::<8, 6, { 8 + RESPONDER_RECEIVE_QUEUE_LOG2[0].1 }, QP_READ_LATENCY>::default(),
            module,
        ),
        "q2048" => emit::verilog(
            &mut Responder::<11, 6, { 11 + RESPONDER_RECEIVE_QUEUE_LOG2[1].1 }, QP_READ_LATENCY>::default(),
            module,
        ),
        v => panic!("unsupported variant {v}"),
    }
}

fn payload_writer(variant: &str, module: &str) -> String {
    at_width!(variant, module, PayloadWriter)
}

fn axi4_master(variant: &str, module: &str) -> String {
    at_width!(variant, module, Axi4Master)
}

fn host_responder(variant: &str, module: &str) -> String {
    at_width!(variant, module, HostResponder)
}

/// Bits of the receive queues' addresses of 256 QPs (the responder's `RA`).
const Q256: usize = 8 + RESPONDER_RECEIVE_QUEUE_LOG2[0].1;

fn rx_path(variant: &str, module: &str) -> String {
    const Q2048: usize = 11 + RESPONDER_RECEIVE_QUEUE_LOG2[1].1;
    match variant {
        "q256_w512" => emit::verilog(
            &mut RxPath::<512, 64, { data_depth(64) }, 8, 6, Q256, QP_READ_LATENCY>::default(),
            module,
        ),
        // the per-QP RAMs, 2048 words deep, in block RAM (as the engine's c2048_q2048_w512):
        // left alone, yosys 0.23 maps the READ tracker's rings (2048 × 29) to LUT RAM and fails
        "q2048_w512" => attributes::deep_memories_in_block_ram(
            emit::verilog(
                &mut RxPath::<512, 64, { data_depth(64) }, 11, 6, Q2048, QP_READ_LATENCY>::default(),
                module,
            ),
            2048,
        ),
        "q256_w64" => emit::verilog(
            &mut RxPath::<64, 8, { data_depth(8) }, 8, 6, Q256, QP_READ_LATENCY>::default(),
            module,
        ),
        v => panic!("unsupported variant {v}"),
    }
}

/// The build configuration of a variant of the `engine` top.
pub fn engine_config(variant: &str) -> Config {
    match variant {
        "c2048_q256_w512" => Config::DEFAULT,
        "c2048_q2048_w512" => Config {
            qps: 2048,
            ..Config::DEFAULT
        },
        "c2048_q256_w512_slot1m" => Config {
            streams: 2,
            stream_buffer_bytes: MAX_STREAM_BUFFER_BYTES,
            ..Config::DEFAULT
        },
        "c2048_q256_w512_bus256" => Config {
            streams: regs::MAX_STREAMS,
            stream_buffer_bytes: BUS_STREAM_REGION_BYTES,
            stream_bus: true,
            ..Config::DEFAULT
        },
        "c2048_q256_w512_bus128" => Config {
            streams: 128,
            stream_buffer_bytes: 2 * BUS_STREAM_REGION_BYTES,
            stream_bus: true,
            ..Config::DEFAULT
        },
        "c64_q16_w64" => Config {
            data_width: 64,
            queues: TX_SEGMENTER_SMALL_QUEUES as u32,
            ..Config::SMALL
        },
        "c64_q16_w64_bus8" => Config {
            streams: 8,
            stream_buffer_bytes: 8 << 9,
            stream_bus: true,
            ..engine_config("c64_q16_w64")
        },
        v => panic!("unsupported variant {v}"),
    }
}

/// A 512-bit engine of 2048 channels and 32 queues (`2^QB` QPs, `S` stream ports of `2^BB`
/// beats) with the TX path's attributes (`tx_path`: the scheduler's, its parity RAMs and the
/// segmenter's busy bits in block RAM) and its memories `deep` words deep or more in block RAM.
fn engine_w512<const QB: usize, const RA: usize, const HB: usize, const BB: usize, const S: usize, const SW: usize, const SK: usize>(
    config: Config,
    module: &str,
    deep: usize,
) -> String {
    let mut engine = Engine::<512, 64, { data_depth(64) }, 11, 6, 12, QB, 32, RA, HB, BB, S, SW, SK>::new(config);
    attributes::deep_memories_in_block_ram(sched::synthesis_attributes(emit::verilog(&mut engine, module), true), deep)
}

/// The default engine with `S = 2^SB` streams on one AXI-Stream in its 4 MiB buffer (regions
/// of `2^RB` beats, positions of `PB` bits, `PL` bits naming a stream's channel place), with
/// the attributes of [`engine_w512`].
fn engine_bus_w512<const S: usize, const SB: usize, const PB: usize, const PL: usize, const RB: usize>(
    config: Config,
    module: &str,
) -> String {
    let mut engine = EngineBus::<512, 64, { data_depth(64) }, 11, 6, 12, 8, 32, Q256, 13, 16, S, SB, PB, PL, RB>::new(config);
    attributes::deep_memories_in_block_ram(sched::synthesis_attributes(emit::verilog(&mut engine, module), true), 8192)
}

fn engine(variant: &str, module: &str) -> String {
    const Q2048: usize = 11 + RESPONDER_RECEIVE_QUEUE_LOG2[1].1;
    let config = engine_config(variant);
    match variant {
        // the send history, 8,192 blocks deep, in block RAM
        "c2048_q256_w512" => engine_w512::<8, Q256, 13, { stream_buffer_bits(64) }, 8, 4096, 512>(config, module, 8192),
        // two stream ports whose buffers hold two 1 MiB slots each
        "c2048_q256_w512_slot1m" => engine_w512::<8, Q256, 13, { big_stream_buffer_bits(64) }, 2, 1024, 128>(config, module, 8192),
        // 256 streams on one AXI-Stream (the `stream_bus_set` s256_w512), 16 KiB each
        "c2048_q256_w512_bus256" => engine_bus_w512::<256, 8, 9, 10, 8>(config, module),
        // 128 streams on one AXI-Stream, 32 KiB each (slots up to 16 KiB), the same 4 MiB
        "c2048_q256_w512_bus128" => engine_bus_w512::<128, 7, 10, 9, 9>(config, module),
        // and the per-QP RAMs, 2048 words deep (as `tx_path` c2048_q2048_w512)
        "c2048_q2048_w512" => engine_w512::<11, Q2048, 14, { stream_buffer_bits(64) }, 8, 4096, 512>(config, module, 2048),
        "c64_q16_w64" => sched::synthesis_attributes(
            emit::verilog(
                &mut Engine::<
                    64,
                    8,
                    { data_depth(8) },
                    6,
                    1,
                    7,
                    4,
                    TX_SEGMENTER_SMALL_QUEUES,
                    { 4 + 4 },
                    9,
                    { stream_buffer_bits(8) },
                    2,
                    128,
                    16,
                >::new(config),
                module,
            ),
            false,
        ),
        // 8 streams on one AXI-Stream (the `stream_bus_set` s8_w64), 4 KiB each
        "c64_q16_w64_bus8" => sched::synthesis_attributes(
            emit::verilog(
                &mut EngineBus::<64, 8, { data_depth(8) }, 6, 1, 7, 4, TX_SEGMENTER_SMALL_QUEUES, { 4 + 4 }, 9, 12, 8, 3, 10, 5, 9>::new(
                    config,
                ),
                module,
            ),
            false,
        ),
        v => panic!("unsupported variant {v}"),
    }
}

fn mac_ingress(variant: &str, module: &str) -> String {
    match variant {
        "w64" => emit::verilog(&mut MacIngress::<64, 8, { address_bits(8) }>::default(), module),
        "w128" => emit::verilog(&mut MacIngress::<128, 16, { address_bits(16) }>::default(), module),
        "w256" => emit::verilog(&mut MacIngress::<256, 32, { address_bits(32) }>::default(), module),
        "w512" => emit::verilog(&mut MacIngress::<512, 64, { address_bits(64) }>::default(), module),
        "w1024" => emit::verilog(&mut MacIngress::<1024, 128, { address_bits(128) }>::default(), module),
        v => panic!("unsupported variant {v}"),
    }
}

fn serial_bridge(variant: &str, module: &str) -> String {
    match variant {
        "8n1" => emit::verilog(&mut SerialBridge::new(), module),
        v => panic!("unsupported variant {v}"),
    }
}

fn serial_sched(variant: &str, module: &str) -> String {
    match variant {
        "n64_q5" => sched::synthesis_attributes(emit::verilog(&mut SerialSched::<6, 7, 5>::new(), module), false),
        v => panic!("unsupported variant {v}"),
    }
}

/// Buffer bits of the `stream_port` variants: 32 KiB at every width (two 16 KiB slots).
pub const fn stream_buffer_bits(lanes: usize) -> usize {
    DEFAULT_STREAM_BUFFER_BYTES.trailing_zeros() as usize - lanes.trailing_zeros() as usize
}

/// Buffer bits of the engine builds for 1 MiB slots: 2 MiB (two slots of the largest size).
pub const fn big_stream_buffer_bits(lanes: usize) -> usize {
    MAX_STREAM_BUFFER_BYTES.trailing_zeros() as usize - lanes.trailing_zeros() as usize
}

fn stream_port(variant: &str, module: &str) -> String {
    match variant {
        "w64" => emit::verilog(&mut StreamPort::<64, 8, { stream_buffer_bits(8) }>::default(), module),
        "w128" => emit::verilog(&mut StreamPort::<128, 16, { stream_buffer_bits(16) }>::default(), module),
        "w256" => emit::verilog(&mut StreamPort::<256, 32, { stream_buffer_bits(32) }>::default(), module),
        "w512" => emit::verilog(&mut StreamPort::<512, 64, { stream_buffer_bits(64) }>::default(), module),
        "w1024" => emit::verilog(&mut StreamPort::<1024, 128, { stream_buffer_bits(128) }>::default(), module),
        v => panic!("unsupported variant {v}"),
    }
}

/// A stream's region of the 256-stream bus (`stream_bus` s256_w512: 2^8 beats of 64 bytes);
/// the 128-stream engine's are twice as large.
const BUS_STREAM_REGION_BYTES: u32 = 64 << 8;

/// Buffer bits of the `stream_bus` variants: 2^12 beats of 8 bytes for 8 streams (4 KiB each,
/// slots up to 2 KiB); 2^16 beats of 64 bytes for 256 streams (4 MiB: 16 KiB each, slots up
/// to 8 KiB).
fn stream_bus(variant: &str, module: &str) -> String {
    match variant {
        "s8_w64" => emit::verilog(&mut StreamBus::<64, 8, 12, 8, 3, 10>::default(), module),
        "s256_w512" => emit::verilog(&mut StreamBus::<512, 64, 16, 256, 8, 9>::default(), module),
        v => panic!("unsupported variant {v}"),
    }
}

/// The `stream_bus_sender` variants: the senders of the `stream_bus` variants' streams.
fn stream_bus_sender(variant: &str, module: &str) -> String {
    match variant {
        "s8_w64" => emit::verilog(&mut StreamBusSender::<8, 8, 3, 5, 9>::default(), module),
        "s256_w512" => emit::verilog(&mut StreamBusSender::<64, 256, 8, 10, 8>::default(), module),
        v => panic!("unsupported variant {v}"),
    }
}

/// The `stream_bus_set` variants: the `stream_bus` variants with their sender, reader and
/// registers.
fn stream_bus_set(variant: &str, module: &str) -> String {
    match variant {
        "s8_w64" => emit::verilog(&mut StreamBusSet::<64, 8, 12, 8, 3, 10, 5, 9>::default(), module),
        "s256_w512" => emit::verilog(&mut StreamBusSet::<512, 64, 16, 256, 8, 9, 10, 8>::default(), module),
        v => panic!("unsupported variant {v}"),
    }
}

fn stream_sender(variant: &str, module: &str) -> String {
    match variant {
        "w64" => emit::verilog(&mut StreamSender::<8>::default(), module),
        "w128" => emit::verilog(&mut StreamSender::<16>::default(), module),
        "w256" => emit::verilog(&mut StreamSender::<32>::default(), module),
        "w512" => emit::verilog(&mut StreamSender::<64>::default(), module),
        "w1024" => emit::verilog(&mut StreamSender::<128>::default(), module),
        v => panic!("unsupported variant {v}"),
    }
}

fn stream_reader(variant: &str, module: &str) -> String {
    match variant {
        "w64" => emit::verilog(&mut StreamReader::<64, 8, { stream_buffer_bits(8) }>::default(), module),
        "w128" => emit::verilog(&mut StreamReader::<128, 16, { stream_buffer_bits(16) }>::default(), module),
        "w256" => emit::verilog(&mut StreamReader::<256, 32, { stream_buffer_bits(32) }>::default(), module),
        "w512" => emit::verilog(&mut StreamReader::<512, 64, { stream_buffer_bits(64) }>::default(), module),
        "w1024" => emit::verilog(&mut StreamReader::<1024, 128, { stream_buffer_bits(128) }>::default(), module),
        v => panic!("unsupported variant {v}"),
    }
}

fn stream_read_router(variant: &str, module: &str) -> String {
    at_width!(variant, module, StreamReadRouter)
}

fn stream_set(variant: &str, module: &str) -> String {
    match variant {
        "s2_w64" => emit::verilog(&mut StreamSet::<64, 8, { stream_buffer_bits(8) }, 2, 128, 16>::default(), module),
        "s8_w512" => emit::verilog(
            &mut StreamSet::<512, 64, { stream_buffer_bits(64) }, 8, 4096, 512>::default(),
            module,
        ),
        v => panic!("unsupported variant {v}"),
    }
}

fn axil_split(variant: &str, module: &str) -> String {
    match variant {
        "stream" => emit::verilog(
            &mut crate::registers::split::AxiLiteSplit::new(regs::STREAM_BLOCK, regs::MAX_STREAMS * regs::STREAM_STRIDE),
            module,
        ),
        v => panic!("unsupported variant {v}"),
    }
}

/// Every top, in emission order.
pub static TOPS: [Top; 32] = [
    Top {
        name: "icrc_check",
        description: "RX ICRC check: frames pass through, verdict (not RoCEv2 / bad / good) and computed ICRC on the last beat",
        variants: &WIDTH_VARIANTS,
        // at 128 and 256 bits the check is co-simulated inside `rx_front`; those models and the
        // 1024-bit one (a tenth of the build) are built with FERROCE_SIM_ALL=1
        simulated: &["w64", "w512"],
        build: icrc_check,
    },
    Top {
        name: "icrc_insert",
        description: "TX ICRC insertion: appends the 4 ICRC bytes to RoCEv2 frames, other frames pass unchanged",
        variants: &WIDTH_VARIANTS,
        // at 128 and 256 bits the ICRC core is co-simulated in check mode inside `rx_front`; the
        // insertion's own models there and at 1024 bits are built with FERROCE_SIM_ALL=1
        simulated: &["w64", "w512"],
        build: icrc_insert,
    },
    Top {
        name: "sched",
        description: "Scheduler: shared-space FIFOs (2048 nodes, 32 queues) and the QoS arbiter, one enqueue and one decision per cycle (_notb: without token buckets)",
        variants: &["n2048_q32", "n2048_q32_notb", "n64_q5"],
        simulated: &["n2048_q32", "n2048_q32_notb", "n64_q5"],
        build: sched,
    },
    Top {
        name: "pacers",
        description: "Queue pacers: per scheduler queue a rate in cycles per byte (8.24 fixed point); a group charged pauses its queue until its bytes' time has passed, no credit for idle time (q32: 32 queues; q8_lead3_slack256: 8 queues, pauses lifted 3 cycles early, charges up to 256 cycles late kept on schedule)",
        variants: &["q32", "q8_lead3_slack256"],
        simulated: &["q32", "q8_lead3_slack256"],
        build: pacers,
    },
    Top {
        name: "rx_header",
        description: "RX header decoder: per frame, RoCEv2 classification, header-time drop reason and the header record fields",
        variants: &WIDTH_VARIANTS,
        // at 128 and 256 bits the decoder is co-simulated inside `rx_front`; its own models there
        // are built with FERROCE_SIM_ALL=1 (two Verilator builds less in the test command)
        simulated: &["w64", "w512", "w1024"],
        build: rx_header,
    },
    Top {
        name: "rx_front",
        description: "RX front end: ICRC check, header decoder, payload realigned to byte 0 (drop mark on the last beat), header records, pass-through stream for other frames, counters",
        variants: &WIDTH_VARIANTS,
        simulated: &WIDTHS_BELOW_1024,
        build: rx_front,
    },
    Top {
        name: "registers",
        description: "Register file: AXI4-Lite slave of the register map (ID, configuration, QoS, counters, posting, poll, channel status, QP context table) (c64_q16: 64 channels, 5 queues, 16 QPs)",
        variants: &["c2048_q256", "c64_q16"],
        simulated: &["c2048_q256", "c64_q16"],
        build: registers,
    },
    Top {
        name: "tx_generator",
        description: "TX packet generator: packet descriptors and the QP context to RoCEv2 frames (Ethernet/IPv4 or IPv6/UDP/BTH/RETH/ImmDt, payload from a memory data stream, pad, ICRC), completions",
        variants: &WIDTH_VARIANTS,
        // at 64 bits the generator is co-simulated inside `tx_path` and the engine; its own
        // 64-bit model is built with FERROCE_SIM_ALL=1
        simulated: &["w512"],
        build: tx_generator,
    },
    Top {
        name: "tx_segmenter",
        description: "TX segmenter: transfer table (posts checked and refused with a reason), blocks cut as the scheduler decides, PMTU packet descriptors and memory read commands (c2048_q256: 2048 channels, 256 QPs, 32 queues; c64_q16: 64 channels, 16 QPs, 8 queues)",
        variants: &["c2048_q256", "c64_q16"],
        simulated: &["c64_q16"],
        build: tx_segmenter,
    },
    Top {
        name: "ack_tracker",
        description: "ACK tracker: an RC transfer completes when its last PSN is acknowledged (a NAK fails it), a UC one when its last frame has left; per-QP waiting lists through the channels, ACK window, syndrome decoded from the contract (c2048_q256: 2048 channels, 256 QPs; c64_q16: 64 channels, 16 QPs)",
        variants: &["c2048_q256", "c64_q16"],
        simulated: &["c64_q16"],
        build: ack_tracker,
    },
    Top {
        name: "retry_timer",
        description: "Retry timer: an RC requester's per-QP retransmission timer against a global 4.096 µs time base, transport and RNR retry counters, RNR waits; events in, actions out (go back, retries exhausted) (q2048, q256, q16: QPs)",
        variants: &["q2048", "q256", "q16"],
        simulated: &["q16"],
        build: retry_timer,
    },
    Top {
        name: "send_history",
        description: "Send history: per RC QP a ring of the blocks sent and not yet acknowledged, released by ACKs and replayed from a PSN to go back N (q256_s8: 256 QPs, 8 blocks each; q16_s4: 16 QPs, 4 blocks each)",
        variants: &["q256_s8", "q16_s4"],
        simulated: &["q16_s4"],
        build: send_history,
    },
    Top {
        name: "read_tracker",
        description: "READ tracker: the requester's outstanding RDMA READ per QP on the receive side; READ response packets placed in local memory in PSN order, ACKs and NAKs covering a lost response turned into one PSN sequence error NAK per gap (q2048, q256, q16: QPs)",
        variants: &["q2048", "q256", "q16"],
        simulated: &["q16"],
        build: read_tracker,
    },
    Top {
        name: "tx_path",
        description: "TX path: segmenter, scheduler and packet generator joined: posts in, RoCEv2 frames out, payload read from memory, completions, QP context reads shared on one port (c2048_q256_w512: 2048 channels, 256 QPs, 32 queues, 512 bits; c2048_q2048_w512: 2048 QPs; c64_q16_w64: 64 channels, 16 QPs, 8 queues, 64 bits)",
        variants: &["c2048_q256_w512", "c2048_q2048_w512", "c64_q16_w64"],
        simulated: &["c2048_q256_w512", "c64_q16_w64"],
        build: tx_path,
    },
    Top {
        name: "responder",
        description: "Responder: per-QP checks of each RX record in precedence order (QP, P_Key, transport, PSN, opcode sequence, R_Key and bounds, lengths, receive buffer), per-QP state and receive queues in block RAM, memory region table, one decision per packet (write address, receive completion, ACK/NAK), counters (q256: 256 QPs, 16 receive buffers each; q2048: 2048 QPs, 4 receive buffers each; 64 memory regions)",
        variants: &["q256", "q2048"],
        simulated: &["q256"],
        build: responder,
    },
    Top {
        name: "payload_writer",
        description: "RX payload writer: payloads held in block RAM (two 4 KiB payloads) until the responder's decision, then written to memory (command + data stream, from lane 0) or discarded",
        variants: &WIDTH_VARIANTS,
        simulated: &["w64", "w512"],
        build: payload_writer,
    },
    Top {
        name: "axi4_master",
        description: "AXI4 master for the engine's memory side: read and write commands (address, 1 to 4096 bytes, data from lane 0) as INCR bursts cut at 4 KiB boundaries (and 256 beats), data realigned between lane 0 and the address's lane, write strobes exact, 32 read commands in flight, responses checked and errors counted",
        variants: &WIDTH_VARIANTS,
        simulated: &["w64", "w512"],
        build: axi4_master,
    },
    Top {
        name: "host_responder",
        description: "Host responder: on the pass-through stream, ARP requests and ICMP echo requests for the engine's IPv4 address answered in hardware (the request rewritten in place, one reply buffer of 32 beats), every other frame to the host untouched, counters",
        variants: &WIDTH_VARIANTS,
        simulated: &["w64", "w512"],
        build: host_responder,
    },
    Top {
        name: "rx_path",
        description: "RX path: RX front end, responder and payload writer joined: MAC frames in, memory writes (command + data), one decision per RoCEv2 packet (receive completion, ACK/NAK), pass-through frames, QP context reads, region writes and receive posts from the register file (q256_w512: 256 QPs, 512 bits; q2048_w512: 2048 QPs; q256_w64: 64 bits)",
        variants: &["q256_w512", "q2048_w512", "q256_w64"],
        simulated: &["q256_w512", "q256_w64"],
        build: rx_path,
    },
    Top {
        name: "engine",
        description: "The engine: register file (AXI4-Lite), TX path and RX path joined: posts and QP contexts over AXI-Lite, RoCEv2 frames to and from the MAC, payload read from and written to memory, ACKs and NAKs sent for the RX side, receive posts and completions, memory regions, counters (c2048_q256_w512: 2048 channels, 256 QPs, 32 queues, 64 regions, 512 bits; c2048_q2048_w512: 2048 QPs, 4 receive buffers each; c2048_q256_w512_slot1m: 2 stream ports with 2 MiB buffers, for slots up to 1 MiB; c2048_q256_w512_bus256: 256 streams on one AXI-Stream (tdest), 16 KiB of buffer each, on the top 1024 channels; c2048_q256_w512_bus128: 128 streams on one AXI-Stream, 32 KiB each, on the top 512 channels; c64_q16_w64: 64 channels, 16 QPs, 8 queues, 64 bits; c64_q16_w64_bus8: with 8 streams on one AXI-Stream, 4 KiB each, on the top 32 channels)",
        variants: &["c2048_q256_w512", "c2048_q2048_w512", "c2048_q256_w512_slot1m", "c2048_q256_w512_bus256", "c2048_q256_w512_bus128", "c64_q16_w64", "c64_q16_w64_bus8"],
        simulated: &["c2048_q256_w512", "c2048_q256_w512_slot1m", "c64_q16_w64", "c64_q16_w64_bus8"],
        build: engine,
    },
    Top {
        name: "mac_ingress",
        description: "MAC ingress: a MAC's receive stream without backpressure (Xilinx CMAC, XXV Ethernet) to whole good frames with backpressure: frames kept in block RAM (32 KiB) until their last beat, bad frames (tuser) and frames that do not fit dropped whole and counted",
        variants: &WIDTH_VARIANTS,
        simulated: &["w64", "w512"],
        build: mac_ingress,
    },
    Top {
        name: "serial_bridge",
        description: "Serial bridge: the register file's AXI4-Lite bus driven over a UART (8N1, baud set by clocks_per_bit): read and write requests of ferroce-ctl --device serial:, answered with the AXI response; bytes it cannot use discarded and counted",
        variants: &["8n1"],
        simulated: &["8n1"],
        build: serial_bridge,
    },
    Top {
        name: "serial_sched",
        description: "Scheduler build (the Alchitry Cu's): the QoS scheduler (64 nodes, 5 queues) and its register file behind the serial bridge; ferroce-ctl --device serial: configures the queues, enqueues nodes and asks for decisions",
        variants: &["n64_q5"],
        simulated: &["n64_q5"],
        build: serial_sched,
    },
    Top {
        name: "stream_port",
        description: "Stream port: an AXI-Stream cut into messages of one remote slot each (or ended by tlast), kept in a 32 KiB block-RAM buffer until released; per message its sequence number, slot, immediate and solicited bit; no room: tready low or the message dropped whole; commands configure, start, stop with refusals; counters",
        variants: &WIDTH_VARIANTS,
        simulated: &["w64", "w512"],
        build: stream_port,
    },
    Top {
        name: "stream_bus",
        description: "Stream bus: S streams on one AXI-Stream, a packet (tdest, to tlast) at a time, each cut into messages of one remote slot as a stream port cuts its own, in its region of one shared block-RAM buffer; each stream's settings and state in LUT RAM between its packets; packets of streams not running discarded and counted; commands per stream with refusals; per-stream status and counters",
        variants: &["s8_w64", "s256_w512"],
        simulated: &["s8_w64", "s256_w512"],
        build: stream_bus,
    },
    Top {
        name: "stream_bus_sender",
        description: "Stream bus sender: the sender of every stream of a stream bus, each stream's target and messages in flight in LUT RAM: each record posted as one RDMA WRITE with immediate into its stream's remote slot on the stream's 1, 2 or 4 channels of four it owns, a busy channel tried again, completions (in order per stream) turned into releases by stream; counters",
        variants: &["s8_w64", "s256_w512"],
        simulated: &["s8_w64", "s256_w512"],
        build: stream_bus_sender,
    },
    Top {
        name: "stream_bus_set",
        description: "Stream bus set: the streams of a stream bus (up to 256 on one AXI-Stream) with their sender, the reader of their regions and the register map's stream block (staged settings in LUT RAM, configure all or nothing, per-stream status and counters), the sender's and the host's posts in turn",
        variants: &["s8_w64", "s256_w512"],
        simulated: &["s8_w64", "s256_w512"],
        build: stream_bus_set,
    },
    Top {
        name: "stream_sender",
        description: "Stream sender: each message a stream port has whole posted as one RDMA WRITE with immediate into its remote slot (base VA + slot × slot size) on 1, 2 or 4 channels in turn, a busy channel tried again, completions turned into the port's releases in order; counters",
        variants: &WIDTH_VARIANTS,
        simulated: &["w64", "w512"],
        build: stream_sender,
    },
    Top {
        name: "stream_reader",
        description: "Stream reader: the TX path's memory reads of the stream window (address, 1 to 4096 bytes) served from the stream ports' 32 KiB buffers (rings), a beat a cycle, data from lane 0 with tlast on each read's last beat; reads off a beat counted",
        variants: &WIDTH_VARIANTS,
        simulated: &["w64", "w512"],
        build: stream_reader,
    },
    Top {
        name: "stream_read_router",
        description: "Stream read router: the TX path's memory reads split by address bit 63 between memory and the stream window (the stream reader), their data merged back in command order without a lost cycle between reads",
        variants: &WIDTH_VARIANTS,
        simulated: &["w64", "w512"],
        build: stream_read_router,
    },
    Top {
        name: "stream_set",
        description: "Stream set: S stream ports with their senders and the window's reader, the stream block of the register map on an AXI4-Lite port (settings staged and applied by configure, commands, state, counters), the senders' and the host's posts in turn to the TX path with each result back to its poster",
        variants: &["s8_w512", "s2_w64"],
        simulated: &["s8_w512", "s2_w64"],
        build: stream_set,
    },
    Top {
        name: "axil_split",
        description: "AXI4-Lite split: one slave port in front of two, the accesses to an address window (stream: the register map's stream block) to the high port, the others to the low port; one write and one read at a time, so responses keep the requests' order",
        variants: &["stream"],
        simulated: &["stream"],
        build: axil_split,
    },
];

/// Looks a top up by name.
pub fn find(name: &str) -> Option<&'static Top> {
    TOPS.iter().find(|t| t.name == name)
}
