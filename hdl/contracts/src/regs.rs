//! The register map of the AXI4-Lite register file, written once as data.
//!
//! [`Map::new`] builds the map of a build configuration ([`Config`]) from the other contracts: the
//! QP context table's words from [`QP_CONTEXT`]'s placements, the post words from [`POST`]'s,
//! the RX counters from [`DropReason::ALL`], the scheduler's words from [`crate::sched`]. From the
//! map come the RTL's decode and register file (`ferroce-hdl`'s `registers`), the software model
//! and the host tool (`ferroce-ctl`), and the C header, SystemRDL and Markdown texts
//! ([`render`]). A unit that needs registers adds them in [`Map::new`].
//!
//! Every register is 32 bits wide at a 4-byte aligned byte address; an array register has
//! `count` elements `stride` bytes apart. Addresses are decoded on [`ADDRESS_BITS`] bits.

pub mod render;

use crate::responder::{receive_state, ResponderCounter, DEFAULT_REGIONS, MEMORY_REGION, RECEIVE_COMPLETION, RECEIVE_POST};
use crate::rx::DropReason;
use crate::sched;
use crate::schema::{Schema, WORD_BITS};
use crate::stream::{bus_channel_base, bus_first_channel};
use crate::tx::{
    CompletionStatus, PostError, BLOCK_LOG2_DEFAULT, BLOCK_LOG2_MAX, BLOCK_LOG2_MIN, COMPLETION_STATUS_BITS, POST, QP_CONTEXT,
};

/// Address bits the register file decodes (a 512 KiB window: the BAR or AXI segment size).
pub const ADDRESS_BITS: usize = 19;

/// The device id in the ID block: ASCII "FRCE".
pub const DEVICE_ID: u32 = 0x4652_4345;

/// The device id of the scheduler build, the QoS scheduler alone behind a serial bridge for
/// boards too small for the engine (the Alchitry Cu): ASCII "FRCQ". Its map is
/// [`Map::scheduler`].
pub const SCHEDULER_DEVICE_ID: u32 = 0x4652_4351;

/// Cycles from `qp_read_index` to `qp_read_entry` on the register file's QP table read port.
pub const QP_READ_LATENCY: usize = 2;

/// Bytes between two QP context entries in the map (32 words; the context uses the first
/// [`QP_CONTEXT`]`.words()`).
pub const QP_STRIDE: u32 = 128;

/// Channels whose status one poll register returns.
pub const POLL_CHANNELS: u32 = 32;

/// Largest configuration of each table (the map reserves room for it).
pub const MAX_CHANNELS: u32 = 8192;
/// The QP status register (and its port): a QP's error state, in the QP's entry after its
/// context words.
pub const QP_STATUS: &str = "qp_status";

/// Largest number of QPs.
pub const MAX_QPS: u32 = 2048;

/// Largest number of stream ports.
pub const MAX_STREAMS: u32 = 256;
/// Byte address of the stream block (each stream's registers, [`STREAM_STRIDE`] apart).
pub const STREAM_BLOCK: u32 = 0x10000;
/// The bit of `build_streams` that is set in a stream bus build ([`Config::stream_bus`]): the
/// field is in those builds' maps only, and the bit 0 in the others.
pub const STREAM_BUS_BIT: u32 = 21;

/// Bytes between two streams' registers.
pub const STREAM_STRIDE: u32 = 0x80;
/// Bytes of a stream port's buffer in the default builds: two 16 KiB slots.
pub const DEFAULT_STREAM_BUFFER_BYTES: u32 = 32 * 1024;
/// Smallest stream port buffer.
pub const MIN_STREAM_BUFFER_BYTES: u32 = 4096;
/// Largest stream port buffer: two slots of the largest size.
pub const MAX_STREAM_BUFFER_BYTES: u32 = 2 * crate::stream::MAX_SLOT_BYTES;
/// Most beats a stream port's buffer holds (its beat numbers are 16 bits).
pub const MAX_STREAM_BUFFER_BEATS: u32 = 1 << 16;

/// How software may access a field.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Access {
    /// Read only: a write to a register with read-only fields only answers SLVERR.
    Ro,
    /// Read and write (byte strobes honoured).
    Rw,
    /// Read; writing 1 clears a bit.
    W1c,
    /// Read clears: a read returns the value and clears what it returned.
    Rc,
    /// Write only: the write is an action; a read returns 0.
    Wo,
}

impl Access {
    /// Upper-case name as the docs and the tool print it.
    pub const fn name(self) -> &'static str {
        match self {
            Access::Ro => "RO",
            Access::Rw => "RW",
            Access::W1c => "W1C",
            Access::Rc => "RC",
            Access::Wo => "WO",
        }
    }

    /// A write can change the field (or is an action).
    pub const fn writable(self) -> bool {
        matches!(self, Access::Rw | Access::W1c | Access::Wo)
    }

    /// A read returns the field's value.
    pub const fn readable(self) -> bool {
        !matches!(self, Access::Wo)
    }
}

/// A field of a register.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldDef {
    /// Name (an identifier, lower case).
    pub name: String,
    /// Least significant bit.
    pub lsb: u32,
    /// Width in bits.
    pub width: u32,
    /// Access.
    pub access: Access,
    /// Value after reset (`None`: kept in RAM, not reset).
    pub reset: Option<u32>,
    /// What it means.
    pub doc: String,
}

impl FieldDef {
    /// A field.
    pub fn new(name: impl Into<String>, lsb: u32, width: u32, access: Access, reset: Option<u32>, doc: impl Into<String>) -> FieldDef {
        assert!(width >= 1 && lsb + width <= 32, "field bits {lsb}+{width}");
        FieldDef {
            name: name.into(),
            lsb,
            width,
            access,
            reset,
            doc: doc.into(),
        }
    }

    /// The field's bits in the register.
    pub fn mask(&self) -> u32 {
        (u32::MAX >> (32 - self.width)) << self.lsb
    }

    /// The field's value in a register value.
    pub fn get(&self, word: u32) -> u32 {
        (word & self.mask()) >> self.lsb
    }

    /// A register value with the field set to `value` (extra bits dropped).
    pub fn set(&self, word: u32, value: u32) -> u32 {
        (word & !self.mask()) | ((value << self.lsb) & self.mask())
    }
}

/// How the register file implements a register (the RTL elaborates each kind once).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    /// A constant (the ID block): the fields' reset values.
    Constant,
    /// Flip-flops, reset to the fields' reset values; read and written by the host.
    Flops,
    /// Read only: the value of the register file's input port of the register's `port` name.
    Input,
    /// Read only (and W1C fields): state kept by the register file itself.
    Internal,
    /// Write only: a write posts the staged descriptor.
    Doorbell,
    /// Array, read clears: finished channels of a group of [`POLL_CHANNELS`].
    Poll,
    /// Array, read only: one channel's status.
    ChannelStatus,
    /// Array of QP context words in block RAM (one register per word, [`QP_STRIDE`] apart).
    QpContext,
    /// Array: words of the scheduler's configuration space (`sched_cfg_*`), one per queue, kept
    /// in LUTRAM and written through: queue q's configuration word (`queue_config`, at q) or
    /// pacer cost (`pace_cost`, at `sched::PACE_COST_ADDR + q`).
    QueueConfig,
    /// Write only: a write drives the register file's output `<port>_valid` high for one cycle
    /// with the written value (byte strobes applied) on `<port>_data`; a read returns 0.
    Strobe,
    /// Array, read only: element i is the value of the input `<port>_value` one cycle after the
    /// register file drives i on the output `<port>_index` (a table read by index).
    Indexed,
    /// Array, one element per stream, read and written: a setting staged in flip-flops that
    /// the stream's `configure` command applies (all of them at once, or none).
    StreamSetting,
    /// Array, one element per stream, write only: the write is a command to the stream; the
    /// write's response comes once the command is done (its result in `stream_state`).
    StreamCommand,
    /// Array, one element per stream, read only: the stream's value named by the register's
    /// `port`.
    StreamStatus,
}

impl Kind {
    /// A register of the stream block: the stream set serves it, not the register file.
    pub const fn in_stream_set(self) -> bool {
        matches!(self, Kind::StreamSetting | Kind::StreamCommand | Kind::StreamStatus)
    }

    /// Lower-case name (hash, docs).
    pub const fn name(self) -> &'static str {
        match self {
            Kind::Constant => "constant",
            Kind::Flops => "flops",
            Kind::Input => "input",
            Kind::Internal => "internal",
            Kind::Doorbell => "doorbell",
            Kind::Poll => "poll",
            Kind::ChannelStatus => "channel_status",
            Kind::QpContext => "qp_context",
            Kind::QueueConfig => "queue_config",
            Kind::Strobe => "strobe",
            Kind::Indexed => "indexed",
            Kind::StreamSetting => "stream_setting",
            Kind::StreamCommand => "stream_command",
            Kind::StreamStatus => "stream_status",
        }
    }
}

/// A register, or an array of registers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Register {
    /// Name (an identifier, lower case, unique in the map).
    pub name: String,
    /// Byte address of the first element.
    pub offset: u32,
    /// Elements (1 for a plain register).
    pub count: u32,
    /// Elements the map has room for (the address window of an array).
    pub max_count: u32,
    /// Bytes between elements.
    pub stride: u32,
    /// How it is implemented.
    pub kind: Kind,
    /// The RTL port of an [`Kind::Input`] register (or the output a [`Kind::Flops`] one drives).
    pub port: Option<String>,
    /// What it is.
    pub doc: String,
    /// Its fields, least significant first.
    pub fields: Vec<FieldDef>,
}

impl Register {
    fn single(name: impl Into<String>, offset: u32, kind: Kind, doc: impl Into<String>, fields: Vec<FieldDef>) -> Register {
        Register {
            name: name.into(),
            offset,
            count: 1,
            max_count: 1,
            stride: 4,
            kind,
            port: None,
            doc: doc.into(),
            fields,
        }
    }

    fn array(mut self, count: u32, max_count: u32, stride: u32) -> Register {
        assert!(count <= max_count, "{}: {count} elements, room for {max_count}", self.name);
        self.count = count;
        self.max_count = max_count;
        self.stride = stride;
        self
    }

    fn port(mut self, port: impl Into<String>) -> Register {
        self.port = Some(port.into());
        self
    }

    /// One of the words of a QP's entry (its context words and its status), arrayed together
    /// by QP ([`QP_STRIDE`] apart).
    pub fn in_qp_entry(&self) -> bool {
        self.kind == Kind::QpContext || self.name == QP_STATUS
    }

    /// The interleaved entry the register is a word of, arrayed together with the other words
    /// (a SystemRDL `regfile` array): `qp_context` for a QP's words, `stream` for a stream's.
    pub fn entry(&self) -> Option<&'static str> {
        if self.in_qp_entry() {
            Some("qp_context")
        } else if self.kind.in_stream_set() {
            Some("stream")
        } else {
            None
        }
    }

    /// An array register.
    pub fn is_array(&self) -> bool {
        self.max_count > 1
    }

    /// Byte address of element `index`.
    pub fn address(&self, index: u32) -> u32 {
        self.offset + index * self.stride
    }

    /// The field named `name`.
    pub fn field(&self, name: &str) -> Option<&FieldDef> {
        self.fields.iter().find(|f| f.name == name)
    }

    /// The value after reset (`None` if a field is not reset).
    pub fn reset(&self) -> Option<u32> {
        self.fields.iter().try_fold(0, |v, f| f.reset.map(|r| f.set(v, r)))
    }

    /// Bits of the fields a read returns.
    pub fn read_mask(&self) -> u32 {
        self.fields.iter().filter(|f| f.access.readable()).fold(0, |m, f| m | f.mask())
    }

    /// Bits of the fields a write changes (RW) or clears (W1C).
    pub fn write_mask(&self) -> u32 {
        self.fields
            .iter()
            .filter(|f| matches!(f.access, Access::Rw | Access::W1c))
            .fold(0, |m, f| m | f.mask())
    }

    /// A write is accepted (some field is writable); else it answers SLVERR.
    pub fn writable(&self) -> bool {
        self.fields.iter().any(|f| f.access.writable())
    }

    /// The access of the whole register, as the docs summarize it.
    pub fn access(&self) -> Access {
        let mut kinds = self.fields.iter().map(|f| f.access);
        let first = kinds.next().unwrap_or(Access::Ro);
        if self.fields.iter().all(|f| f.access == first) {
            first
        } else if self.fields.iter().any(|f| f.access == Access::W1c) {
            Access::W1c
        } else {
            Access::Rw
        }
    }
}

/// What a register map belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Device {
    /// The RoCEv2 engine ([`DEVICE_ID`], [`Map::new`]).
    Engine,
    /// The scheduler build ([`SCHEDULER_DEVICE_ID`], [`Map::scheduler`]): `2^node_bits` nodes.
    Scheduler {
        /// log2 of the node count.
        node_bits: u32,
    },
}

impl Device {
    /// Checks the limits of a build of this device.
    pub fn check(&self, config: &Config) -> Result<(), String> {
        match *self {
            Device::Engine => config.check(),
            Device::Scheduler { node_bits } => {
                if !(1..=16).contains(&node_bits) {
                    return Err(format!("{node_bits} node bits: 1 to 16"));
                }
                if !(2..=sched::MAX_QUEUES as u32).contains(&config.queues) {
                    return Err(format!("{} queues: 2 to {}", config.queues, sched::MAX_QUEUES));
                }
                Ok(())
            }
        }
    }
}

/// A block of registers (a heading of the docs, a regfile of the SystemRDL).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Block {
    /// Name.
    pub name: String,
    /// Byte address of the block.
    pub offset: u32,
    /// Bytes the block spans (a power of two; the block is aligned to it).
    pub size: u32,
    /// What it holds.
    pub doc: String,
    /// Its registers, by address.
    pub registers: Vec<Register>,
}

/// The build configuration of a register file (what the ID block reports).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Config {
    /// Bus width of the engine's data path, in bits.
    pub data_width: u32,
    /// Channels (a power of two, 32 to [`MAX_CHANNELS`]).
    pub channels: u32,
    /// Scheduler queues (2 to 32).
    pub queues: u32,
    /// QPs (a power of two, 2 to [`MAX_QPS`]).
    pub qps: u32,
    /// Stream ports (0 to [`MAX_STREAMS`]; their registers are the `stream` block).
    pub streams: u32,
    /// Bytes of each stream port's buffer (a power of two, [`MIN_STREAM_BUFFER_BYTES`] to
    /// [`MAX_STREAM_BUFFER_BYTES`]): a slot is at most half of it.
    pub stream_buffer_bytes: u32,
    /// The streams share one AXI-Stream (a stream bus, `tdest` naming the stream) and own the
    /// top 4 × `streams` channels; else each stream has a port of its own.
    pub stream_bus: bool,
}

impl Config {
    /// The default build: 512-bit data path, 2048 channels, 32 queues, 256 QPs, 8 stream ports.
    pub const DEFAULT: Config = Config {
        data_width: 512,
        channels: 2048,
        queues: 32,
        qps: 256,
        streams: 8,
        stream_buffer_bytes: DEFAULT_STREAM_BUFFER_BYTES,
        stream_bus: false,
    };

    /// A small build for tests: 64 channels, 5 queues, 16 QPs, 2 stream ports.
    pub const SMALL: Config = Config {
        data_width: 512,
        channels: 64,
        queues: 5,
        qps: 16,
        streams: 2,
        stream_buffer_bytes: DEFAULT_STREAM_BUFFER_BYTES,
        stream_bus: false,
    };

    /// The scheduler build's ([`Map::scheduler`]): its `queues`, no data path, tables or
    /// streams.
    pub const fn scheduler(queues: u32) -> Config {
        Config {
            data_width: 0,
            channels: 0,
            queues,
            qps: 0,
            streams: 0,
            stream_buffer_bytes: DEFAULT_STREAM_BUFFER_BYTES,
            stream_bus: false,
        }
    }

    /// Checks the limits.
    pub fn check(&self) -> Result<(), String> {
        if !self.channels.is_power_of_two() || !(POLL_CHANNELS..=MAX_CHANNELS).contains(&self.channels) {
            return Err(format!(
                "channels {} (a power of two, {POLL_CHANNELS} to {MAX_CHANNELS})",
                self.channels
            ));
        }
        if !(2..=sched::MAX_QUEUES as u32).contains(&self.queues) {
            return Err(format!("queues {} (2 to {})", self.queues, sched::MAX_QUEUES));
        }
        if !self.qps.is_power_of_two() || !(2..=MAX_QPS).contains(&self.qps) {
            return Err(format!("QPs {} (a power of two, 2 to {MAX_QPS})", self.qps));
        }
        if self.streams > MAX_STREAMS {
            return Err(format!("streams {} (0 to {MAX_STREAMS})", self.streams));
        }
        if !self.stream_buffer_bytes.is_power_of_two()
            || !(MIN_STREAM_BUFFER_BYTES..=MAX_STREAM_BUFFER_BYTES).contains(&self.stream_buffer_bytes)
        {
            return Err(format!(
                "stream buffer {} bytes (a power of two, {MIN_STREAM_BUFFER_BYTES} to {MAX_STREAM_BUFFER_BYTES})",
                self.stream_buffer_bytes
            ));
        }
        if self.data_width >= 8 && self.stream_buffer_bytes / (self.data_width / 8) > MAX_STREAM_BUFFER_BEATS {
            return Err(format!(
                "stream buffer {} bytes: more than {MAX_STREAM_BUFFER_BEATS} beats of {} bits",
                self.stream_buffer_bytes, self.data_width
            ));
        }
        if self.stream_bus && (!self.streams.is_power_of_two() || self.streams * 4 > self.channels) {
            return Err(format!(
                "a stream bus of {} streams (a power of two, 4 channels each of {})",
                self.streams, self.channels
            ));
        }
        if self.data_width == 0 || self.data_width > 0xFFFF {
            return Err(format!("data width {}", self.data_width));
        }
        Ok(())
    }

    /// Poll registers (groups of [`POLL_CHANNELS`] channels).
    pub fn poll_groups(&self) -> u32 {
        self.channels / POLL_CHANNELS
    }

    /// The first of the channels that stream `stream` of a stream bus owns; `None` in a build
    /// of stream ports, whose streams post on the channels their settings give.
    pub const fn bus_stream_channel(&self, stream: u32) -> Option<u32> {
        if self.stream_bus {
            Some(bus_first_channel(bus_channel_base(self.channels, self.streams), stream))
        } else {
            None
        }
    }
}

/// What [`Map::decode`] finds at an address.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Target<'a> {
    /// The register.
    pub register: &'a Register,
    /// The element of an array (0 for a plain register).
    pub index: u32,
}

/// Post state in the `post_status` register.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum PostState {
    /// No post since reset (0).
    Idle = 0,
    /// The last doorbell's post is waiting for the transfer table (1).
    Pending = 1,
    /// The last post was accepted (2).
    Accepted = 2,
    /// The last post was refused; `code` says why (3).
    Refused = 3,
}

impl PostState {
    /// Every state.
    pub const ALL: [PostState; 4] = [PostState::Idle, PostState::Pending, PostState::Accepted, PostState::Refused];

    /// The state of a code.
    pub fn from_code(code: u32) -> Option<PostState> {
        Self::ALL.into_iter().find(|s| *s as u32 == code)
    }

    /// Lower-case name.
    pub const fn name(self) -> &'static str {
        match self {
            PostState::Idle => "idle",
            PostState::Pending => "pending",
            PostState::Accepted => "accepted",
            PostState::Refused => "refused",
        }
    }
}

/// The register map of one build configuration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Map {
    /// The device it describes.
    pub device: Device,
    /// The configuration it describes (the scheduler build: its `queues` only, the rest 0).
    pub config: Config,
    /// Its blocks, by address.
    pub blocks: Vec<Block>,
}

/// The crate's (major, minor) version, as the `version` register reports it.
fn version() -> (u32, u32) {
    let number = |s: &str| s.parse::<u32>().unwrap_or(0);
    (number(env!("CARGO_PKG_VERSION_MAJOR")), number(env!("CARGO_PKG_VERSION_MINOR")))
}

/// The ID block's `device_id` (0x00): `id`, ASCII `ascii`.
fn id_register(id: u32, ascii: &str) -> Register {
    Register::single(
        "device_id",
        0x00,
        Kind::Constant,
        format!("device id: ASCII \"{ascii}\""),
        vec![ro("id", 0, 32, id, &format!("{id:#010x}"))],
    )
}

/// The ID block's `version` (0x04).
fn version_register() -> Register {
    let (major, minor) = version();
    Register::single(
        "version",
        0x04,
        Kind::Constant,
        "version of the register file",
        vec![
            ro("minor", 0, 16, minor, "minor version"),
            ro("major", 16, 16, major, "major version"),
        ],
    )
}

/// The ID block's `map_hash` (0x10); [`Map::hashed`] sets its value.
fn map_hash_register() -> Register {
    Register::single(
        "map_hash",
        0x10,
        Kind::Constant,
        "hash of this register map (Map::hash): a host tool built from another map says so",
        vec![ro("hash", 0, 32, 0, "FNV-1a of the map's layout")],
    )
}

fn ro(name: &str, lsb: u32, width: u32, reset: u32, doc: &str) -> FieldDef {
    FieldDef::new(name, lsb, width, Access::Ro, Some(reset), doc)
}

/// The fields of word `word` of a packed [`Schema`] entry: a field of at most 32 bits keeps its
/// name, a wider one is named `<name>_<k>` for its k-th word (bits 32k+31..32k).
pub fn schema_word_fields(schema: &Schema, word: usize, access: Access, reset: Option<u32>) -> Vec<FieldDef> {
    let w = WORD_BITS;
    let mut out = Vec::new();
    for p in schema.placements() {
        let (first, end) = (p.offset / w, (p.offset + p.field.width).div_ceil(w));
        if !(first..end).contains(&word) {
            continue;
        }
        if p.field.width <= w {
            out.push(FieldDef::new(
                p.field.name,
                (p.offset % w) as u32,
                p.field.width as u32,
                access,
                reset,
                p.field.doc,
            ));
        } else {
            let k = word - first;
            let width = (p.field.width - k * w).min(w);
            let doc = format!("bits {}:{} of {}: {}", k * w + width - 1, k * w, p.field.name, p.field.doc);
            out.push(FieldDef::new(format!("{}_{k}", p.field.name), 0, width as u32, access, reset, doc));
        }
    }
    out
}

impl Map {
    /// The map of `config` (which must pass [`Config::check`]).
    pub fn new(config: Config) -> Map {
        config.check().expect("register file configuration");
        let mut blocks = Vec::new();

        blocks.push(Block {
            name: "id".into(),
            offset: 0x0,
            size: 0x100,
            doc: "Identifies the device and its build; `ferroce-ctl` reads it first. A read of 0xFFFFFFFF here means the \
                  device's memory space is off or the card is gone."
                .into(),
            registers: vec![
                id_register(DEVICE_ID, "FRCE"),
                version_register(),
                Register::single(
                    "build_bus",
                    0x08,
                    Kind::Constant,
                    "build configuration: data path and scheduler",
                    vec![
                        ro("data_width", 0, 16, config.data_width, "data path width in bits"),
                        ro("queues", 16, 8, config.queues, "scheduler queues"),
                    ],
                ),
                Register::single(
                    "build_tables",
                    0x0C,
                    Kind::Constant,
                    "build configuration: table sizes",
                    vec![
                        ro("channels", 0, 16, config.channels, "channels"),
                        ro("qps", 16, 16, config.qps, "QP context table entries"),
                    ],
                ),
                map_hash_register(),
                Register::single(
                    "build_streams",
                    0x14,
                    Kind::Constant,
                    "build configuration: stream ports",
                    vec![
                        ro("streams", 0, 16, config.streams, "stream ports (their registers: the stream block)"),
                        ro(
                            "buffer_log2",
                            16,
                            5,
                            config.stream_buffer_bytes.trailing_zeros(),
                            "log2 of the bytes of each stream port's buffer (a slot is at most half of it)",
                        ),
                    ]
                    .into_iter()
                    .chain(config.stream_bus.then(|| {
                        ro(
                            "bus",
                            STREAM_BUS_BIT,
                            1,
                            1,
                            "the streams share one AXI-Stream (tdest) and own the top 4 × streams channels, \
                             stream s from channels − 4 × streams + 4s (a field of bus builds only: 0 in the others)",
                        )
                    }))
                    .collect(),
                ),
            ],
        });

        let rw = |name: &str, lsb, width, reset, doc: &str| FieldDef::new(name, lsb, width, Access::Rw, Some(reset), doc);
        let mut config_regs = vec![
            Register::single(
                "block_size",
                0x100,
                Kind::Flops,
                "segmenter block size",
                vec![rw(
                    "log2",
                    0,
                    5,
                    BLOCK_LOG2_DEFAULT,
                    &format!("log2 of the block size in bytes, {BLOCK_LOG2_MIN} to {BLOCK_LOG2_MAX} (a write outside answers SLVERR and changes nothing)"),
                )],
            )
            .port("cfg_block_log2"),
            Register::single("local_mac_low", 0x104, Kind::Flops, "local MAC address, bits 31:0", vec![rw("mac", 0, 32, 0, "bits 31:0 of the MAC (the last four bytes on the wire)")])
                .port("cfg_local_mac"),
            Register::single("local_mac_high", 0x108, Kind::Flops, "local MAC address, bits 47:32", vec![rw("mac", 0, 16, 0, "bits 47:32 of the MAC (the first two bytes on the wire)")])
                .port("cfg_local_mac"),
            Register::single("local_ipv4", 0x10C, Kind::Flops, "local IPv4 address", vec![rw("ip", 0, 32, 0, "IPv4 address (bits 31:24 first on the wire)")])
                .port("cfg_local_ipv4"),
        ];
        for k in 0..4u32 {
            config_regs.push(
                Register::single(
                    format!("local_ipv6_{k}"),
                    0x110 + 4 * k,
                    Kind::Flops,
                    format!("local IPv6 address, bits {}:{}", 32 * k + 31, 32 * k),
                    vec![rw(
                        "ip",
                        0,
                        32,
                        0,
                        &format!(
                            "bits {}:{} of the IPv6 address (bits 127:120 first on the wire)",
                            32 * k + 31,
                            32 * k
                        ),
                    )],
                )
                .port("cfg_local_ipv6"),
            );
        }
        config_regs.push(Register::single(
            "scratch",
            0x120,
            Kind::Flops,
            "scratch register: any value, read back",
            vec![rw("value", 0, 32, 0, "anything")],
        ));
        config_regs.push(
            Register::single(
                "retry_tick",
                0x124,
                Kind::Flops,
                "RC retry timer: clock cycles per tick of 4.096 µs (the local ACK timeout's unit)",
                vec![rw(
                    "cycles",
                    0,
                    16,
                    crate::reliability::tick_cycles(322_265_625) as u32,
                    "cycles per tick: round(clock in Hz × 4.096e-6), 1320 at the CMAC's 322.265625 MHz, 640 at 156.25 MHz (0 counts as 1)",
                )],
            )
            .port("cfg_tick_cycles"),
        );
        config_regs.push(
            Register::single(
                "read_response_queue",
                0x128,
                Kind::Flops,
                "the scheduler queue of the READ responses this engine sends as a responder",
                vec![rw(
                    "queue",
                    0,
                    5,
                    crate::tx::DEFAULT_READ_RESPONSE_QUEUE,
                    "a data queue, 1 to the queue count − 1 (a write outside answers SLVERR and changes nothing); its weight and rate are its `queue_config`'s",
                )],
            )
            .port("cfg_read_queue"),
        );
        blocks.push(Block {
            name: "config".into(),
            offset: 0x100,
            size: 0x100,
            doc: "Engine configuration (outputs of the register file).".into(),
            registers: config_regs,
        });

        blocks.push(Self::qos_block(config.queues));

        let mut counters = Vec::new();
        let rx_counters = [
            ("frames_in", "frames in (accepted + passed + dropped)"),
            ("accepted", "RoCEv2 frames accepted"),
            ("passed", "frames passed through (not RoCEv2)"),
        ]
        .map(|(n, d)| (n.to_string(), format!("cnt_{n}"), d.to_string()))
        .into_iter()
        .chain(DropReason::ALL.iter().map(|r| {
            (
                format!("drop_{}", r.name()),
                r.counter_port(),
                format!("frames dropped: {}", r.name()),
            )
        }));
        for (i, (name, port, doc)) in rx_counters.enumerate() {
            counters.push(
                Register::single(
                    format!("rx_{name}"),
                    0x300 + 4 * i as u32,
                    Kind::Input,
                    format!("RX counter: {doc}"),
                    vec![ro("count", 0, 32, 0, "count (wraps)")],
                )
                .port(port),
            );
        }
        let next = 0x300 + 4 * counters.len() as u32;
        counters.push(
            Register::single(
                "sched_duplicate",
                next,
                Kind::Input,
                "scheduler counter: enqueues refused because the element was already queued",
                vec![ro("count", 0, 32, 0, "count (wraps)")],
            )
            .port("cnt_dup"),
        );
        counters.push(
            Register::single(
                "sched_bad_queue",
                next + 4,
                Kind::Input,
                "scheduler counter: enqueues refused because the queue was beyond the queues",
                vec![ro("count", 0, 32, 0, "count (wraps)")],
            )
            .port("cnt_bad_queue"),
        );
        counters.push(Register::single(
            "completion_bad_channel",
            next + 8,
            Kind::Internal,
            "completions dropped because their channel was beyond the channels",
            vec![ro("count", 0, 32, 0, "count (wraps)")],
        ));
        for (k, (name, port, doc)) in [
            ("rx_written", "cnt_written", "RX counter: payloads written to memory"),
            (
                "rx_discarded",
                "cnt_discarded",
                "RX counter: payloads discarded (dropped by the front end or failing a responder check)",
            ),
        ]
        .into_iter()
        .enumerate()
        {
            counters.push(
                Register::single(
                    name,
                    next + 12 + 4 * k as u32,
                    Kind::Input,
                    doc,
                    vec![ro("count", 0, 32, 0, "count (wraps)")],
                )
                .port(port),
            );
        }
        let host_and_tx = [
            (
                "host_arp_replies",
                "cnt_arp_replies",
                "host path counter: ARP requests for the engine's IPv4 address answered",
            ),
            (
                "host_echo_replies",
                "cnt_echo_replies",
                "host path counter: ICMP echo requests answered",
            ),
            (
                "host_deferred",
                "cnt_deferred",
                "host path counter: ARP or echo requests given to the host because the reply buffer was taken",
            ),
            (
                "host_drop_truncated",
                "cnt_drop_host_truncated",
                "host path counter: echo requests dropped, the frame ending before its IP datagram",
            ),
            (
                "host_drop_too_long",
                "cnt_drop_host_too_long",
                "host path counter: echo requests dropped, the frame longer than the reply buffer",
            ),
            (
                "tx_ack_ignored",
                "cnt_ack_ignored",
                "TX counter: ACKs and NAKs ignored (PSN outside the window, reserved syndrome, QP beyond the table or with nothing sent)",
            ),
            (
                "tx_retransmitted",
                "cnt_retransmitted",
                "TX counter: RC packets sent again (after a timeout, a PSN sequence error NAK or an RNR wait)",
            ),
            (
                "tx_timeouts",
                "cnt_timeouts",
                "TX counter: RC retry timer timeouts (no acknowledgement in time; a transport retry used)",
            ),
            (
                "tx_retries_exhausted",
                "cnt_retries_exhausted",
                "TX counter: RC QPs whose transport or RNR retries ran out (their transfers failed, the QP waits for a reset)",
            ),
            (
                "rx_read_taken",
                "cnt_read_taken",
                "RX counter: READ responses taken by the READ tracker (written at their local address, passed on as ACKs)",
            ),
            (
                "rx_read_duplicates",
                "cnt_read_duplicates",
                "RX counter: READ responses dropped as duplicates (PSN before the one expected)",
            ),
            (
                "rx_read_gaps",
                "cnt_read_gaps",
                "RX counter: READ responses dropped after a lost one (PSN past the one expected; the READ is asked again)",
            ),
            (
                "rx_read_bad",
                "cnt_read_bad",
                "RX counter: READ responses dropped as bad (no READ outstanding, or opcode or length wrong for their place)",
            ),
        ];
        for (k, (name, port, doc)) in host_and_tx.into_iter().enumerate() {
            counters.push(
                Register::single(
                    name,
                    next + 20 + 4 * k as u32,
                    Kind::Input,
                    doc,
                    vec![ro("count", 0, 32, 0, "count (wraps)")],
                )
                .port(port),
            );
        }
        blocks.push(Block {
            name: "counters".into(),
            offset: 0x300,
            size: 0x100,
            doc: "Counters of the RX path, the scheduler, the status table, the host path, the ACK tracker and the READ tracker.".into(),
            registers: counters,
        });

        let mut post = Vec::new();
        for w in 0..POST.words() {
            post.push(Register::single(
                format!("post_word{w}"),
                0x400 + 4 * w as u32,
                Kind::Flops,
                format!("descriptor word {w} of the next post (contracts::tx::POST)"),
                schema_word_fields(&POST, w, Access::Rw, Some(0)),
            ));
        }
        let doorbell = 0x400 + 4 * POST.words() as u32;
        post.push(Register::single(
            "doorbell",
            doorbell,
            Kind::Doorbell,
            "any write posts the staged descriptor (see post_status for the rule)",
            vec![FieldDef::new("post", 0, 32, Access::Wo, None, "any value posts")],
        ));
        let codes: Vec<String> = PostError::ALL.iter().map(|e| format!("{} {}", e.code(), e.name())).collect();
        post.push(Register::single(
            "post_status",
            doorbell + 4,
            Kind::Internal,
            "the last post and the posting errors",
            vec![
                ro(
                    "state",
                    0,
                    2,
                    0,
                    "last post: 0 idle (none since reset), 1 pending, 2 accepted, 3 refused",
                ),
                ro(
                    "code",
                    2,
                    3,
                    0,
                    &format!("refusal code of the last refused post: {}", codes.join(", ")),
                ),
                FieldDef::new(
                    "incomplete",
                    8,
                    1,
                    Access::W1c,
                    Some(0),
                    "a doorbell came before every descriptor word was written since the last post: nothing was posted",
                ),
                FieldDef::new(
                    "overrun",
                    9,
                    1,
                    Access::W1c,
                    Some(0),
                    "a doorbell came while a post was pending: nothing was posted",
                ),
                ro(
                    "words_written",
                    16,
                    POST.words() as u32,
                    0,
                    "bit w: descriptor word w was written since the last post",
                ),
            ],
        ));
        blocks.push(Block {
            name: "post".into(),
            offset: 0x400,
            size: 0x100,
            doc: "Transfer posting: write the descriptor words, then the doorbell.".into(),
            registers: post,
        });

        blocks.push(Map::receive_block());
        blocks.push(Map::responder_block());
        blocks.push(Block {
            name: "pacing".into(),
            offset: 0x700,
            size: 0x100,
            doc: "The TX path's pacers: a rate per scheduler queue, enforced a packet at a time (a write is passed \
                  to the pacers on `sched_cfg_*` and read back here)."
                .into(),
            registers: vec![Register::single(
                "pace_cost",
                0x700,
                Kind::QueueConfig,
                "queue q's pacer cost: cycles of the engine's clock per payload byte (0: not paced; \
                 `ferroce_contracts::sched::pace_cost` from a rate); a paced queue's transfers are cut a PMTU at a time",
                schema_word_fields(&sched::PACE_COST, 0, Access::Rw, Some(0)),
            )
            .array(config.queues, sched::MAX_QUEUES as u32, 4)],
        });

        let causes: Vec<String> = CompletionStatus::ALL.iter().map(|s| format!("{} {}", s.code(), s.name())).collect();
        blocks.push(Block {
            name: "poll".into(),
            offset: 0x1000,
            size: 0x1000,
            doc: "Completion poll: 32 channels per read.".into(),
            registers: vec![
                Register::single(
                    "poll_error",
                    0x1000,
                    Kind::Internal,
                    "the error bitmap latched by the last poll read: bit i set if channel 32k+i finished with an error",
                    vec![ro("error", 0, 32, 0, "error bitmap of the last poll")],
                ),
                Register::single(
                    "poll",
                    0x1400,
                    Kind::Poll,
                    "finished (DONE or ERROR) channels 32k..32k+31; the read clears exactly the bits it returns and \
                     latches their error bits in poll_error; a completion arriving during the read is kept for the next",
                    vec![FieldDef::new(
                        "finished",
                        0,
                        32,
                        Access::Rc,
                        Some(0),
                        "bit i: channel 32k+i finished",
                    )],
                )
                .array(config.poll_groups(), MAX_CHANNELS / POLL_CHANNELS, 4),
            ],
        });
        blocks.push(Block {
            name: "channel".into(),
            offset: 0x8000,
            size: 0x8000,
            doc: "Per-channel status.".into(),
            registers: vec![Register::single(
                "channel_status",
                0x8000,
                Kind::ChannelStatus,
                "channel c's status",
                vec![
                    ro("state", 0, 2, 0, "0 IDLE, 1 BUSY, 2 DONE, 3 ERROR (DONE and ERROR until polled)"),
                    ro("cause", 4, 4, 0, &format!("ERROR: the completion status, {}", causes.join(", "))),
                ],
            )
            .array(config.channels, MAX_CHANNELS, 4)],
        });

        let mut qp_words: Vec<Register> = (0..QP_CONTEXT.words())
            .map(|w| {
                Register::single(
                    format!("qp_word{w}"),
                    0x40000 + 4 * w as u32,
                    Kind::QpContext,
                    if w == 0 {
                        "QP context word 0; writing it commits the entry (write the other words first)".to_string()
                    } else {
                        format!("QP context word {w}")
                    },
                    schema_word_fields(&QP_CONTEXT, w, Access::Rw, None),
                )
                .array(config.qps, MAX_QPS, QP_STRIDE)
            })
            .collect();
        let failures: Vec<String> = CompletionStatus::ALL
            .iter()
            .filter(|s| s.fails_qp())
            .map(|s| format!("{} {}", s.code(), s.name()))
            .collect();
        qp_words.push(
            Register::single(
                QP_STATUS,
                0x40000 + 4 * QP_CONTEXT.words() as u32,
                Kind::Indexed,
                "QP q's error state, kept by the TX path: set when the QP fails, cleared when the TX path takes \
                 the rewrite of its context (word 0); while set, a post on the QP is refused qp_not_ready",
                vec![ro(
                    "failure",
                    0,
                    COMPLETION_STATUS_BITS as u32,
                    0,
                    &format!(
                        "0: not in error; else the status its transfers failed with: {}",
                        failures.join(", ")
                    ),
                )],
            )
            .port(QP_STATUS)
            .array(config.qps, MAX_QPS, QP_STRIDE),
        );
        if config.streams > 0 {
            blocks.push(Self::stream_block(config.streams));
        }
        blocks.push(Block {
            name: "qp".into(),
            offset: 0x40000,
            size: 0x40000,
            doc: "The QP context table (contracts::tx::QP_CONTEXT) and each QP's error state, 128 bytes per QP; the \
                  context in block RAM (not reset)."
                .into(),
            registers: qp_words,
        });

        Map::hashed(Device::Engine, config, blocks)
    }

    /// The map with its hash in the `map_hash` register.
    fn hashed(device: Device, config: Config, blocks: Vec<Block>) -> Map {
        let mut map = Map { device, config, blocks };
        let hash = map.hash();
        let id = map.register_mut("map_hash");
        id.fields[0].reset = Some(hash);
        map
    }

    /// The map of the scheduler build: `2^node_bits` nodes (elements), `queues` queues (which
    /// must pass [`Device::check`]). Its `qos` block is the engine's; the `scheduler` block
    /// enqueues nodes and asks for decisions, so a host drives the QoS arbiter by hand.
    pub fn scheduler(node_bits: u32, queues: u32) -> Map {
        let device = Device::Scheduler { node_bits };
        let config = Config::scheduler(queues);
        device.check(&config).expect("scheduler build configuration");
        let id = Block {
            name: "id".into(),
            offset: 0x0,
            size: 0x100,
            doc: "Identifies the device and its build; `ferroce-ctl` reads it first.".into(),
            registers: vec![
                id_register(SCHEDULER_DEVICE_ID, "FRCQ"),
                version_register(),
                Register::single(
                    "build_sched",
                    0x08,
                    Kind::Constant,
                    "build configuration: the scheduler",
                    vec![
                        ro("node_bits", 0, 5, node_bits, "log2 of the node count"),
                        ro("queues", 16, 8, queues, "scheduler queues"),
                    ],
                ),
                map_hash_register(),
            ],
        };
        let count = |name: &str, offset, port: &str, doc: &str| {
            Register::single(name, offset, Kind::Input, doc, vec![ro("count", 0, 32, 0, "count (wraps)")]).port(port)
        };
        let mut counters = vec![
            count(
                "sched_duplicate",
                0x300,
                "cnt_dup",
                "scheduler counter: enqueues refused because the element was already queued",
            ),
            count(
                "sched_bad_queue",
                0x304,
                "cnt_bad_queue",
                "scheduler counter: enqueues refused because the queue was beyond the queues",
            ),
        ];
        for (k, reason) in crate::serial::Discard::ALL.iter().enumerate() {
            counters.push(count(
                &format!("serial_{}", reason.name()),
                0x308 + 4 * k as u32,
                &format!("discards_{}", reason.name()),
                &format!("serial bridge counter: {}", reason.description()),
            ));
        }
        let counters = Block {
            name: "counters".into(),
            offset: 0x300,
            size: 0x100,
            doc: "The scheduler's counters and the serial bridge's discards.".into(),
            registers: counters,
        };
        let wo = |name: &str, lsb, width, doc: &str| FieldDef::new(name, lsb, width, Access::Wo, None, doc);
        let scheduler = Block {
            name: "scheduler".into(),
            offset: 0x400,
            size: 0x100,
            doc: "The scheduler's requester and decision ports, driven by hand: `enqueue` queues a node, `decide` makes \
                  one arbiter decision, `decision` shows the last one."
                .into(),
            registers: vec![
                Register::single(
                    "enqueue",
                    0x400,
                    Kind::Strobe,
                    "a write enqueues `node` on `queue` (the scheduler refuses and counts a node already queued or a \
                     queue beyond the queues)",
                    vec![
                        wo("node", 0, node_bits.max(1), "the node (element) to enqueue"),
                        wo("queue", 16, 5, "its queue"),
                    ],
                )
                .port("enqueue"),
                Register::single(
                    "decide",
                    0x404,
                    Kind::Strobe,
                    "a write makes one arbiter decision (the value is ignored); `decision` shows it",
                    vec![wo("go", 0, 1, "any value")],
                )
                .port("decide"),
                Register::single(
                    "decision",
                    0x408,
                    Kind::Input,
                    "the last decision: in place 4 cycles after its `decide` is executed (a read issued after the `decide`'s write response sees it; `sequence` tells)",
                    vec![
                        ro("node", 0, node_bits.max(1), 0, "the node that left its queue"),
                        ro("queue", 16, 5, 0, "its queue"),
                        ro("served", 23, 1, 0, "1: a queue was served; 0: every queue was empty or held back"),
                        ro("sequence", 24, 8, 0, "decisions made since reset (wraps at 256): this one's number"),
                    ],
                )
                .port("decision"),
            ],
        };
        Map::hashed(device, config, vec![id, Self::qos_block(queues), counters, scheduler])
    }

    /// The scheduler's QoS words (`queue_config` per queue, `high_limit`): the same block, at the
    /// same addresses, in the engine's map and the scheduler build's.
    fn qos_block(queues: u32) -> Block {
        let queue_fields = schema_word_fields(&sched::QUEUE_CONFIG, 0, Access::Rw, None)
            .into_iter()
            .map(|mut f| {
                f.reset = Some(f.get(sched::QUEUE_CONFIG_RESET));
                f
            })
            .collect();
        let limit_fields = schema_word_fields(&sched::HIGH_LIMIT, 0, Access::Rw, Some(sched::HIGH_LIMIT_RESET));
        Block {
            name: "qos".into(),
            offset: 0x200,
            size: 0x100,
            doc: "The scheduler's QoS configuration: a write is passed to the scheduler (`sched_cfg_*`) and read back here.".into(),
            registers: vec![
                Register::single(
                    "queue_config",
                    0x200,
                    Kind::QueueConfig,
                    "queue q's configuration word",
                    queue_fields,
                )
                .array(queues, sched::MAX_QUEUES as u32, 4),
                Register::single("high_limit", 0x280, Kind::Flops, "limit of high priority", limit_fields),
            ],
        }
    }

    /// Memory regions, receive buffer posts and receive completions (the engine's RX side).
    fn receive_block() -> Block {
        let mut registers = Vec::new();
        for w in 0..MEMORY_REGION.words() {
            registers.push(Register::single(
                format!("region_word{w}"),
                0x500 + 4 * w as u32,
                Kind::Flops,
                format!("word {w} of the memory region entry to write (contracts::responder::MEMORY_REGION)"),
                schema_word_fields(&MEMORY_REGION, w, Access::Rw, Some(0)),
            ));
        }
        registers.push(
            Register::single(
                "region_write",
                0x518,
                Kind::Strobe,
                "a write stores the staged region words in the memory region table at `index` (an entry with `valid` 0 \
                 clears it); the table holds 64 entries, a region's R_Key is its index in bits 31:8",
                vec![FieldDef::new(
                    "index",
                    0,
                    DEFAULT_REGIONS.trailing_zeros(),
                    Access::Wo,
                    None,
                    "the table entry",
                )],
            )
            .port("region_write"),
        );
        for w in 0..RECEIVE_POST.words() {
            registers.push(Register::single(
                format!("receive_word{w}"),
                0x520 + 4 * w as u32,
                Kind::Flops,
                format!("word {w} of the next receive buffer post (contracts::responder::RECEIVE_POST)"),
                schema_word_fields(&RECEIVE_POST, w, Access::Rw, Some(0)),
            ));
        }
        registers.push(
            Register::single(
                "receive_post",
                0x530,
                Kind::Strobe,
                "any write posts the staged receive buffer to its QP's receive queue (ignored while a post is pending: \
                 `receive_status.overrun`)",
                vec![FieldDef::new("post", 0, 32, Access::Wo, None, "any value posts")],
            )
            .port("receive_post"),
        );
        registers.push(
            Register::single(
                "receive_status",
                0x534,
                Kind::Input,
                "the last receive buffer post",
                vec![
                    ro(
                        "state",
                        0,
                        2,
                        receive_state::IDLE,
                        &format!(
                            "{} idle (none since reset), {} pending, {} accepted, {} refused (the QP's receive queue was full \
                             or the QP beyond the table)",
                            receive_state::IDLE,
                            receive_state::PENDING,
                            receive_state::ACCEPTED,
                            receive_state::REFUSED
                        ),
                    ),
                    ro(
                        "overrun",
                        9,
                        1,
                        0,
                        "a post was written while one was pending and was ignored (cleared by the next post taken)",
                    ),
                ],
            )
            .port("receive_status"),
        );
        for w in 0..RECEIVE_COMPLETION.words() {
            registers.push(
                Register::single(
                    format!("receive_completion{w}"),
                    0x540 + 4 * w as u32,
                    Kind::Input,
                    format!(
                        "word {w} of the oldest receive completion (contracts::responder::RECEIVE_COMPLETION); it stays until \
                         `receive_completion_pop`"
                    ),
                    schema_word_fields(&RECEIVE_COMPLETION, w, Access::Ro, Some(0)),
                )
                .port(format!("receive_completion{w}")),
            );
        }
        registers.push(
            Register::single(
                "receive_completion_pop",
                0x54C,
                Kind::Strobe,
                "removes the oldest receive completion (when `pop` is set and one is there) and clears the overflow flag \
                 (when `clear_overflow` is set)",
                vec![
                    FieldDef::new("pop", 0, 1, Access::Wo, None, "1: remove the oldest completion"),
                    FieldDef::new("clear_overflow", 1, 1, Access::Wo, None, "1: clear `receive_completion0.overflow`"),
                ],
            )
            .port("receive_completion_pop"),
        );
        registers.push(
            Register::single(
                "receive_completions_lost",
                0x550,
                Kind::Input,
                "receive completions lost because the queue was full",
                vec![ro("count", 0, 32, 0, "count (wraps)")],
            )
            .port("cnt_completions_lost"),
        );
        Block {
            name: "receive".into(),
            offset: 0x500,
            size: 0x100,
            doc: "The engine's receive side: memory regions (stage the words, then write the index), receive buffer \
                  posts (stage the words, then post) and receive completions (read the oldest, then pop)."
                .into(),
            registers,
        }
    }

    /// The responder's counters, read by index.
    fn responder_block() -> Block {
        let names: Vec<String> = ResponderCounter::ALL
            .iter()
            .enumerate()
            .map(|(i, c)| format!("{i} {}", c.name()))
            .collect();
        Block {
            name: "responder".into(),
            offset: 0x600,
            size: 0x100,
            doc: "The responder's counters (the RX transport checks, ACKs, NAKs and completions).".into(),
            registers: vec![Register::single(
                "responder_counter",
                0x600,
                Kind::Indexed,
                format!("responder counter i (wraps): {}", names.join(", ")),
                vec![ro("count", 0, 32, 0, "count (wraps)")],
            )
            .port("responder_counter")
            .array(ResponderCounter::ALL.len() as u32, 1 << crate::responder::COUNTER_INDEX_BITS, 4)],
        }
    }

    /// Each stream port's settings, command, state and counters ([`STREAM_STRIDE`] bytes per
    /// stream): served by the stream set, not the register file.
    fn stream_block(streams: u32) -> Block {
        use crate::stream::{settings, StreamCommand, StreamRefusal};
        let rw = |field: crate::schema::RecordField, lsb: u32| {
            FieldDef::new(field.name, lsb, field.width as u32, Access::Rw, Some(0), field.doc)
        };
        let setting = |name: &str, offset: u32, doc: &str, fields: Vec<FieldDef>| {
            Register::single(name, STREAM_BLOCK + offset, Kind::StreamSetting, doc, fields).array(streams, MAX_STREAMS, STREAM_STRIDE)
        };
        let status = |name: &str, offset: u32, port: &str, width: u32, doc: &str| {
            Register::single(
                name,
                STREAM_BLOCK + offset,
                Kind::StreamStatus,
                doc,
                vec![ro(port, 0, width, 0, doc)],
            )
            .port(port)
            .array(streams, MAX_STREAMS, STREAM_STRIDE)
        };
        let refusals: Vec<String> = StreamRefusal::ALL.iter().map(|r| format!("{} {}", r.code(), r.name())).collect();
        let commands = format!(
            "{} configure (apply the staged settings), {} start, {} stop",
            StreamCommand::Configure as u8,
            StreamCommand::Start as u8,
            StreamCommand::Stop as u8
        );
        let registers = vec![
            setting("stream_slot", 0x00, "the slot size", vec![rw(settings::SLOT_BYTES, 0)]),
            setting(
                "stream_ring",
                0x04,
                "the ring's slots and the solicited-event period",
                vec![rw(settings::LAST_SLOT, 0), rw(settings::SOLICITED_EVERY, 16)],
            ),
            setting(
                "stream_format",
                0x08,
                "how messages end and what their immediates hold",
                vec![
                    rw(settings::LENGTH_BITS, 0),
                    rw(settings::SLOT_AND_WRAP, 8),
                    rw(settings::END_AT_TLAST, 9),
                    rw(settings::DROP_ON_OVERFLOW, 10),
                ],
            ),
            setting(
                "stream_target",
                0x0C,
                "the QP the stream's WRITEs go on (its context holds the destination and the R_Key) and their scheduler queue",
                vec![
                    FieldDef::new("qp", 0, 24, Access::Rw, Some(0), "local QP number"),
                    FieldDef::new(
                        "queue",
                        24,
                        5,
                        Access::Rw,
                        Some(0),
                        "scheduler queue of the stream's posts (1 to queues − 1)",
                    ),
                ],
            ),
            setting(
                "stream_channels",
                0x10,
                "the channels the stream posts on, one message in flight on each",
                vec![
                    FieldDef::new(
                        "first_channel",
                        0,
                        16,
                        Access::Rw,
                        Some(0),
                        "first channel (reserve them for the stream)",
                    ),
                    FieldDef::new(
                        "channel_mask",
                        16,
                        2,
                        Access::Rw,
                        Some(0),
                        "channels − 1: 0, 1 or 3 (1, 2 or 4 messages in flight; the first channel a multiple of the count)",
                    ),
                ],
            ),
            setting(
                "stream_va_low",
                0x14,
                "the ring's remote virtual address, bits 31:0 (aligned to the slot size)",
                vec![FieldDef::new("va_low", 0, 32, Access::Rw, Some(0), "bits 31:0 of the ring's base")],
            ),
            setting(
                "stream_va_high",
                0x18,
                "the ring's remote virtual address, bits 63:32",
                vec![FieldDef::new(
                    "va_high",
                    0,
                    32,
                    Access::Rw,
                    Some(0),
                    "bits 63:32 of the ring's base",
                )],
            ),
            Register::single(
                "stream_command",
                STREAM_BLOCK + 0x1C,
                Kind::StreamCommand,
                "a command to the stream; the write is answered once it is done",
                vec![FieldDef::new("code", 0, 3, Access::Wo, Some(0), commands)],
            )
            .array(streams, MAX_STREAMS, STREAM_STRIDE),
            Register::single(
                "stream_state",
                STREAM_BLOCK + 0x20,
                Kind::StreamStatus,
                "the last command's result and the stream's state",
                vec![
                    ro(
                        "result",
                        0,
                        3,
                        0,
                        &format!("the last command's result: 0 done, else refused: {}", refusals.join(", ")),
                    ),
                    ro("running", 8, 1, 0, "the stream takes data"),
                    ro("configured", 9, 1, 0, "settings have been applied"),
                    ro(
                        "held_messages",
                        16,
                        3,
                        0,
                        "messages posted and not yet completed (at most the channel count)",
                    ),
                ],
            )
            .port("state")
            .array(streams, MAX_STREAMS, STREAM_STRIDE),
            status(
                "stream_messages",
                0x24,
                "messages",
                32,
                "messages cut (sent or dropped), since configure (wraps)",
            ),
            status(
                "stream_dropped_overflow",
                0x28,
                "dropped_overflow",
                32,
                "messages dropped whole: no room (drop_on_overflow)",
            ),
            status(
                "stream_dropped_partial_beat",
                0x2C,
                "dropped_partial_beat",
                32,
                "messages dropped: a beat with bytes missing that did not end its message",
            ),
            status("stream_posted", 0x30, "posted", 32, "messages posted to the TX path"),
            status(
                "stream_completed",
                0x34,
                "completed",
                32,
                "messages completed by the TX path (sent; on RC acknowledged)",
            ),
            status("stream_failed", 0x38, "failed", 32, "messages completed with an error status"),
            status(
                "stream_refused",
                0x3C,
                "refused",
                32,
                "messages given up: their post refused (not for a busy channel)",
            ),
            status(
                "stream_next_sequence",
                0x40,
                "next_sequence",
                32,
                "the next message's sequence number",
            ),
            status("stream_next_slot", 0x44, "next_slot", 16, "the next message's slot"),
            status(
                "stream_held_beats",
                0x48,
                "held_beats",
                17,
                "buffer beats held (messages not yet completed and the one being cut)",
            ),
        ];
        Block {
            name: "stream".into(),
            offset: STREAM_BLOCK,
            size: MAX_STREAMS * STREAM_STRIDE,
            doc: format!(
                "Each stream port's registers, {STREAM_STRIDE:#x} bytes per stream: the settings (staged; `configure` \
                 applies them all or none), the command, the state and the counters. Served by the stream set."
            ),
            registers,
        }
    }

    fn register_mut(&mut self, name: &str) -> &mut Register {
        self.blocks
            .iter_mut()
            .flat_map(|b| b.registers.iter_mut())
            .find(|r| r.name == name)
            .unwrap_or_else(|| panic!("no register {name}"))
    }

    /// Every register, by address.
    pub fn registers(&self) -> impl Iterator<Item = &Register> {
        self.blocks.iter().flat_map(|b| b.registers.iter())
    }

    /// The register named `name`.
    pub fn get(&self, name: &str) -> Option<&Register> {
        self.registers().find(|r| r.name == name)
    }

    /// The register named `name`; panics if there is none (the map is static data).
    pub fn reg(&self, name: &str) -> &Register {
        self.get(name).unwrap_or_else(|| panic!("the register map has no register {name}"))
    }

    /// The block a register is in.
    pub fn block_of(&self, register: &Register) -> &Block {
        self.blocks
            .iter()
            .find(|b| b.registers.iter().any(|r| r.name == register.name))
            .expect("register of this map")
    }

    /// The registers of a kind, by address.
    pub fn of_kind(&self, kind: Kind) -> Vec<&Register> {
        self.registers().filter(|r| r.kind == kind).collect()
    }

    /// What the byte address `address` decodes to (the low two bits are ignored, as the RTL
    /// does; addresses wrap at [`ADDRESS_BITS`]). `None`: nothing (DECERR).
    pub fn decode(&self, address: u32) -> Option<Target<'_>> {
        let address = address & ((1 << ADDRESS_BITS) - 1) & !3;
        self.registers().find_map(|r| {
            let rel = address.checked_sub(r.offset)?;
            let (index, at) = (rel / r.stride, rel % r.stride);
            (at == 0 && index < r.count).then_some(Target { register: r, index })
        })
    }

    /// FNV-1a (32 bits) of the map's layout: every register's name, address, count, stride and
    /// kind, and every field's name, bits, access and reset value. The ID block's values (the
    /// build configuration) are left out; its layout is in.
    pub fn hash(&self) -> u32 {
        let mut text = String::new();
        for r in self.registers() {
            text.push_str(&format!("{} {:#x} {} {} {}\n", r.name, r.offset, r.count, r.stride, r.kind.name()));
            for f in &r.fields {
                let reset = if r.kind == Kind::Constant { None } else { f.reset };
                text.push_str(&format!(" {} {} {} {} {:?}\n", f.name, f.lsb, f.width, f.access.name(), reset));
            }
        }
        text.bytes()
            .fold(0x811c_9dc5u32, |h, b| (h ^ u32::from(b)).wrapping_mul(0x0100_0193))
    }

    /// Checks the map: names unique, registers inside their blocks, aligned and not
    /// overlapping, fields inside and not overlapping, arrays aligned to their window.
    pub fn check(&self) -> Result<(), String> {
        let mut names = std::collections::HashSet::new();
        let mut spans: Vec<(u32, u32, u32, &str)> = Vec::new();
        for b in &self.blocks {
            if !b.size.is_power_of_two() || b.offset % b.size != 0 || b.offset + b.size > 1 << ADDRESS_BITS {
                return Err(format!("block {} at {:#x} size {:#x}", b.name, b.offset, b.size));
            }
            for r in &b.registers {
                if !names.insert(r.name.as_str()) {
                    return Err(format!("register name {} twice", r.name));
                }
                let end = r.offset + r.stride * (r.max_count - 1) + 4;
                if !r.offset.is_multiple_of(4) || r.offset < b.offset || end > b.offset + b.size {
                    return Err(format!("register {} outside block {}", r.name, b.name));
                }
                if r.is_array() && (!r.max_count.is_power_of_two() || !r.stride.is_power_of_two()) {
                    return Err(format!("array {}: count and stride must be powers of two", r.name));
                }
                let mut bits = 0u32;
                for f in &r.fields {
                    if bits & f.mask() != 0 {
                        return Err(format!("{}.{} overlaps another field", r.name, f.name));
                    }
                    bits |= f.mask();
                }
                spans.push((r.offset, r.stride, r.max_count, &r.name));
            }
        }
        let mut owner = std::collections::HashMap::new();
        for &(offset, stride, count, name) in &spans {
            for k in 0..count {
                if let Some(other) = owner.insert(offset + k * stride, name) {
                    return Err(format!("{other} and {name} overlap"));
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn maps_of_both_builds_are_consistent() {
        for cfg in [Config::DEFAULT, Config::SMALL] {
            let map = Map::new(cfg);
            map.check().unwrap();
            assert_eq!(map.reg("map_hash").reset(), Some(map.hash()));
            assert_eq!(map.reg("queue_config").reset(), Some(sched::QUEUE_CONFIG_RESET));
            assert_eq!(map.reg("high_limit").reset(), Some(sched::HIGH_LIMIT_RESET));
            assert_eq!(map.of_kind(Kind::QpContext).len(), QP_CONTEXT.words());
            assert_eq!(map.reg("poll").count * POLL_CHANNELS, cfg.channels);
        }
    }

    #[test]
    fn a_stream_bus_build_says_so_in_build_streams() {
        let ports = Map::new(Config::DEFAULT);
        let bus = Map::new(Config {
            streams: MAX_STREAMS,
            stream_bus: true,
            ..Config::DEFAULT
        });
        bus.check().unwrap();
        let field = bus.reg("build_streams").field("bus").expect("a bus build's field");
        assert_eq!((field.lsb, field.width), (STREAM_BUS_BIT, 1));
        assert_eq!(field.get(bus.reg("build_streams").reset().unwrap()), 1);
        // a port build's map has no such field, its bit 0
        assert!(ports.reg("build_streams").field("bus").is_none());
        assert_eq!(field.get(ports.reg("build_streams").reset().unwrap()), 0);
        assert!(Config {
            streams: 3,
            stream_bus: true,
            ..Config::DEFAULT
        }
        .check()
        .is_err());
        assert!(Config {
            streams: 32,
            stream_bus: true,
            ..Config::SMALL
        }
        .check()
        .is_err());
    }

    #[test]
    fn stream_ports_add_the_stream_block_and_nothing_else() {
        for streams in [1, 8, MAX_STREAMS] {
            let map = Map::new(Config {
                streams,
                ..Config::DEFAULT
            });
            map.check().unwrap();
            let block = map.blocks.iter().find(|b| b.name == "stream").expect("a stream block");
            assert_eq!((block.offset, block.size), (STREAM_BLOCK, MAX_STREAMS * STREAM_STRIDE));
            for r in &block.registers {
                assert_eq!((r.count, r.stride), (streams, STREAM_STRIDE), "{}", r.name);
                assert!(r.offset - STREAM_BLOCK < STREAM_STRIDE, "{}", r.name);
            }
            let t = map.decode(STREAM_BLOCK + (streams - 1) * STREAM_STRIDE + 0x24).unwrap();
            assert_eq!((t.register.name.as_str(), t.index), ("stream_messages", streams - 1));
            // the other blocks are those of a build without streams
            let without = Map::new(Config {
                streams: 0,
                ..Config::DEFAULT
            });
            assert_eq!(map.blocks.len(), without.blocks.len() + 1);
            assert_ne!(map.hash(), without.hash());
        }
        assert!(Config {
            streams: MAX_STREAMS + 1,
            ..Config::DEFAULT
        }
        .check()
        .is_err());
    }

    #[test]
    fn the_stream_buffer_is_checked_and_reported() {
        let with = |bytes: u32, data_width: u32| Config {
            stream_buffer_bytes: bytes,
            data_width,
            ..Config::DEFAULT
        };
        assert!(with(MAX_STREAM_BUFFER_BYTES, 512).check().is_ok());
        assert!(with(MIN_STREAM_BUFFER_BYTES, 64).check().is_ok());
        for (bytes, width) in [
            (3 << 12, 512),
            (MIN_STREAM_BUFFER_BYTES / 2, 512),
            (2 * MAX_STREAM_BUFFER_BYTES, 512),
            (1 << 20, 64),
        ] {
            assert!(with(bytes, width).check().is_err(), "{bytes} bytes at {width} bits");
        }
        let map = Map::new(with(MAX_STREAM_BUFFER_BYTES, 512));
        let build = map.reg("build_streams");
        let word = build.fields.iter().fold(0, |w, f| f.set(w, f.reset.expect("a constant")));
        assert_eq!(build.field("buffer_log2").unwrap().get(word), 21);
        assert_eq!(build.field("streams").unwrap().get(word), 8);
    }

    #[test]
    fn decode_finds_every_element_and_nothing_else() {
        let map = Map::new(Config::SMALL);
        for r in map.registers() {
            for i in [0, r.count - 1] {
                let t = map.decode(r.address(i)).unwrap();
                assert_eq!((t.register.name.as_str(), t.index), (r.name.as_str(), i));
            }
            if r.count < r.max_count {
                assert!(map.decode(r.address(r.count)).is_none(), "{} beyond its count", r.name);
            }
        }
        assert!(map.decode(0x18).is_none());
        let status = map.decode(0x4_0000 + QP_STRIDE + 4 * QP_CONTEXT.words() as u32).unwrap();
        assert_eq!(
            (status.register.name.as_str(), status.index),
            (QP_STATUS, 1),
            "QP 1's status after its context"
        );
        assert!(map.decode(0x4_0000 + 4 * (QP_CONTEXT.words() as u32 + 1)).is_none(), "QP word 21");
    }

    #[test]
    fn schema_words_become_fields() {
        let w8 = schema_word_fields(&QP_CONTEXT, 8, Access::Rw, None);
        assert_eq!(w8[0].name, "src_mac_0");
        assert_eq!(w8[0].width, 32);
        let w9 = schema_word_fields(&QP_CONTEXT, 9, Access::Rw, None);
        assert_eq!((w9[0].name.as_str(), w9[0].width), ("src_mac_1", 16));
        let w0 = schema_word_fields(&POST, 0, Access::Rw, Some(0));
        assert_eq!(
            w0.iter().map(|f| f.name.as_str()).collect::<Vec<_>>(),
            ["channel", "queue", "op", "solicited", "imm_every_block"]
        );
    }

    #[test]
    fn hash_ignores_the_build_values_but_not_the_layout() {
        let a = Map::new(Config::DEFAULT);
        let mut other = Config::DEFAULT;
        other.data_width = 256;
        assert_eq!(a.hash(), Map::new(other).hash());
        assert_ne!(a.hash(), Map::new(Config::SMALL).hash(), "counts are layout");
    }
}
