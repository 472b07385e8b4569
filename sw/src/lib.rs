//! `ferroce-ctl`: the host side of Ferroce's register file, as a library and a command.
//!
//! [`bus`] reaches the register file (a PCIe BAR, UIO, `/dev/mem`, or the simulated register
//! file of `ferroce-sim serve`); [`Ferroce`] is the typed API over it, built from the same
//! register map as the RTL (`ferroce_contracts::regs::Map`): registers by name, fields decoded,
//! the QP context and the transfer post as their record schemas, the poll, the memory region
//! table, receive buffer posts and receive completions (the `MEMORY_REGION`, `RECEIVE_POST` and
//! `RECEIVE_COMPLETION` schemas), the counters. Opening a device reads its ID block and refuses a
//! device built from another map.
//!
//! Two builds answer: the engine (device id "FRCE", `Map::new`) and the scheduler build (device
//! id "FRCQ", `Map::scheduler`: the QoS scheduler alone behind the serial bridge, for boards too
//! small for the engine such as the Alchitry Cu). [`Ferroce::open`] builds the map of either;
//! the register, field, dump and counter calls work on both, the engine's calls (QP table,
//! posts, poll, regions, receive buffers, streams) answer [`Cause::WrongBuild`] on the scheduler
//! build, and the scheduler build's calls ([`Ferroce::sched_enqueue`], [`Ferroce::sched_decide`])
//! answer it on the engine.
#![warn(missing_docs)]

pub mod bus;
pub mod connect;
pub mod stream;

pub use bus::{Bus, Cause, Error};
use ferroce_contracts::regs::{Config, Device, Kind, Map, PostState, Register, DEVICE_ID, POLL_CHANNELS, QP_STATUS, SCHEDULER_DEVICE_ID};
use ferroce_contracts::responder::{
    completion_kind, receive_state, region_index, Access, ReceiveStatus, ResponderCounter, MEMORY_REGION, RECEIVE_COMPLETION, RECEIVE_POST,
    REGION_KEY_BITS,
};
use ferroce_contracts::tx::{ChannelStatus, CompletionStatus, PostError, POST, QP_CONTEXT};

/// A register element: the register and its index.
#[derive(Debug, Clone, Copy)]
pub struct Target<'a> {
    /// The register.
    pub register: &'a Register,
    /// The element (0 for a plain register).
    pub index: u32,
}

impl Target<'_> {
    /// Its byte address.
    pub fn address(&self) -> u32 {
        self.register.address(self.index)
    }

    /// `name` or `name[index]`.
    pub fn label(&self) -> String {
        if self.register.is_array() {
            format!("{}[{}]", self.register.name, self.index)
        } else {
            self.register.name.clone()
        }
    }
}

/// The answer to a post.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PostOutcome {
    /// Accepted: the channel is busy.
    Accepted,
    /// Refused by the transfer table.
    Refused(u8),
    /// Not posted: a descriptor word was not written since the last post (`incomplete`), or a
    /// post was still pending (`overrun`).
    NotPosted(&'static str),
}

/// A finished channel, as a poll returns it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Finished {
    /// The channel.
    pub channel: u32,
    /// It finished with an error.
    pub error: bool,
}

/// A memory region table entry (the `MEMORY_REGION` record).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Region {
    /// The entry holds a region (an entry written with `valid` false is cleared).
    pub valid: bool,
    /// What a peer may do: remote write, remote read.
    pub access: Access,
    /// Protection domain: only QPs of this PD may use the region.
    pub pd: u16,
    /// R_Key: the entry index in bits 31:8 (`REGION_KEY_BITS`), a key byte below.
    pub rkey: u32,
    /// Address of the region's first byte (the RETH VA space).
    pub base: u64,
    /// Bytes.
    pub length: u64,
}

impl Region {
    /// The packed entry: the words of `region_word0..`.
    pub fn words(&self) -> Vec<u32> {
        MEMORY_REGION
            .encode(&[
                ("valid", u128::from(self.valid)),
                ("access", u128::from(self.access.code())),
                ("pd", u128::from(self.pd)),
                ("rkey", u128::from(self.rkey)),
                ("base", u128::from(self.base)),
                ("length", u128::from(self.length)),
            ])
            .expect("each field's type fits its width")
    }
}

/// The answer to a receive buffer post (`receive_status`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReceiveOutcome {
    /// The buffer is at the end of its QP's receive queue.
    Accepted,
    /// Refused: the QP's receive queue was full, or the QP is beyond the table.
    Refused,
    /// Ignored: a receive post was still pending (`receive_status.overrun`).
    Overrun,
    /// Still pending after the reads allowed.
    Timeout,
}

impl ReceiveOutcome {
    /// Lower-case name (JSON).
    pub const fn name(self) -> &'static str {
        match self {
            ReceiveOutcome::Accepted => "accepted",
            ReceiveOutcome::Refused => "refused",
            ReceiveOutcome::Overrun => "overrun",
            ReceiveOutcome::Timeout => "timeout",
        }
    }
}

/// What consumed a receive buffer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReceiveKind {
    /// A SEND landed in the buffer.
    Send,
    /// An RDMA WRITE with immediate consumed it.
    WriteImmediate,
}

impl ReceiveKind {
    /// The kind of a `kind` field value (`completion_kind`).
    pub fn from_code(code: u32) -> ReceiveKind {
        if code == u32::from(completion_kind::WRITE) {
            ReceiveKind::WriteImmediate
        } else {
            ReceiveKind::Send
        }
    }

    /// The name, as `post --op` spells the operations.
    pub const fn name(self) -> &'static str {
        match self {
            ReceiveKind::Send => "send",
            ReceiveKind::WriteImmediate => "write-imm",
        }
    }
}

/// A receive completion (the `RECEIVE_COMPLETION` record, decoded).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReceiveCompletion {
    /// The QP that received the message.
    pub qp: u32,
    /// SEND or WRITE with immediate.
    pub kind: ReceiveKind,
    /// The `ReceiveStatus` code ([`receive_status_name`]).
    pub status: u8,
    /// The SE bit of the message's last packet.
    pub solicited: bool,
    /// The immediate, when the message carried one.
    pub immediate: Option<u32>,
    /// The message's bytes (on an error: the bytes placed before it).
    pub length: u32,
}

impl ReceiveCompletion {
    /// The completion in the packed words of `receive_completion0..`; `None` when `valid` is 0.
    pub fn decode(words: &[u32]) -> Option<ReceiveCompletion> {
        let field = |name| RECEIVE_COMPLETION.decode(words, name) as u32;
        (field("valid") == 1).then(|| ReceiveCompletion {
            qp: field("qp"),
            kind: ReceiveKind::from_code(field("kind")),
            status: field("status") as u8,
            solicited: field("solicited") == 1,
            immediate: (field("immediate_valid") == 1).then(|| field("immediate")),
            length: field("length"),
        })
    }
}

/// What an engine call answers on the scheduler build ([`Cause::WrongBuild`]), before what the
/// build lacks.
pub const SCHEDULER_BUILD: &str = "this device is the scheduler build (FRCQ: the QoS scheduler alone, as on the Alchitry Cu)";

/// One decision of the scheduler build's arbiter (its `decision` register, decoded).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Decision {
    /// A queue was served; false: nothing was eligible (every queue empty or held back), and
    /// `queue` and `node` mean nothing.
    pub served: bool,
    /// The queue served.
    pub queue: u32,
    /// The node that left it.
    pub node: u32,
    /// Decisions made since reset, this one included (wraps at 2^width of the `sequence` field:
    /// 256).
    pub number: u32,
}

impl Decision {
    /// The decision in a value of `register` (the map's `decision`), by its field names.
    pub fn decode(register: &Register, value: u32) -> Decision {
        let field = |name: &str| register.field(name).map_or(0, |f| f.get(value));
        Decision {
            served: field("served") == 1,
            queue: field("queue"),
            node: field("node"),
            number: field("sequence"),
        }
    }
}

/// What became of an enqueue, as the scheduler's counters say.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EnqueueOutcome {
    /// Neither counter moved: the node is on its queue.
    Queued,
    /// Refused: the node was already queued (`sched_duplicate` counted it).
    Duplicate,
    /// Refused: the queue is beyond the build's queues (`sched_bad_queue` counted it).
    BadQueue,
}

impl EnqueueOutcome {
    /// Lower-case name (JSON).
    pub const fn name(self) -> &'static str {
        match self {
            EnqueueOutcome::Queued => "queued",
            EnqueueOutcome::Duplicate => "duplicate",
            EnqueueOutcome::BadQueue => "bad_queue",
        }
    }
}

/// The scheduler's refusal counters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct SchedCounters {
    /// Enqueues refused because the node was already queued (`sched_duplicate`).
    pub duplicate: u32,
    /// Enqueues refused because the queue was beyond the build's queues (`sched_bad_queue`).
    pub bad_queue: u32,
}

/// A Ferroce register file on a bus.
pub struct Ferroce {
    bus: Box<dyn Bus>,
    map: Map,
}

/// Parses a number: decimal, or hexadecimal with `0x`.
pub fn parse_number(s: &str) -> Option<u64> {
    let s = s.trim().replace('_', "");
    match s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        Some(h) => u64::from_str_radix(h, 16).ok(),
        None => s.parse().ok(),
    }
}

impl Ferroce {
    /// Opens the register file on `bus`: reads the ID block (0xFFFFFFFF is an error, not data),
    /// checks the device id and the map hash, and builds the map of the device's build: the
    /// engine's configuration (device id "FRCE": `build_bus`, `build_tables`, `build_streams`)
    /// or the scheduler build's (device id "FRCQ": `build_sched`). Any other id is
    /// [`Cause::NotFerroce`]; a build this tool can't describe or another map hash is
    /// [`Cause::MapMismatch`].
    pub fn open(mut bus: Box<dyn Bus>) -> Result<Ferroce, Error> {
        let id_at = Map::new(Config::SMALL).reg("device_id").offset;
        let id = bus.read32(id_at)?;
        if id == u32::MAX {
            return Err(bus.error(Some(id_at), Cause::AllOnes));
        }
        let map = match id {
            DEVICE_ID => Ferroce::engine_map(bus.as_mut())?,
            SCHEDULER_DEVICE_ID => Ferroce::scheduler_map(bus.as_mut())?,
            other => return Err(bus.error(Some(id_at), Cause::NotFerroce(other))),
        };
        let hash_at = map.reg("map_hash").offset;
        let hash = bus.read32(hash_at)?;
        if map.hash() != hash {
            return Err(bus.error(
                Some(hash_at),
                Cause::MapMismatch {
                    device: hash,
                    tool: map.hash(),
                },
            ));
        }
        Ok(Ferroce { bus, map })
    }

    /// The engine's map, from its build registers.
    fn engine_map(bus: &mut dyn Bus) -> Result<Map, Error> {
        // (a bus build's layout: the ID block of every engine build, with `build_streams.bus`)
        let layout = Map::new(Config {
            stream_bus: true,
            ..Config::SMALL
        });
        let at = |name: &str| layout.reg(name).offset;
        let (bus_word, tables, streams) = (
            bus.read32(at("build_bus"))?,
            bus.read32(at("build_tables"))?,
            bus.read32(at("build_streams"))?,
        );
        let field = |reg: &str, f: &str, word: u32| layout.reg(reg).field(f).expect("ID field").get(word);
        let config = Config {
            data_width: field("build_bus", "data_width", bus_word),
            queues: field("build_bus", "queues", bus_word),
            channels: field("build_tables", "channels", tables),
            qps: field("build_tables", "qps", tables),
            streams: field("build_streams", "streams", streams),
            stream_buffer_bytes: 1 << field("build_streams", "buffer_log2", streams).min(31),
            stream_bus: field("build_streams", "bus", streams) != 0,
        };
        if config.check().is_err() {
            let hash = bus.read32(at("map_hash"))?;
            return Err(bus.error(Some(at("build_tables")), Cause::MapMismatch { device: hash, tool: 0 }));
        }
        Ok(Map::new(config))
    }

    /// The scheduler build's map, from `build_sched`.
    fn scheduler_map(bus: &mut dyn Bus) -> Result<Map, Error> {
        // the ID block's layout is the same for every scheduler build: any valid one finds it
        let layout = Map::scheduler(6, 5);
        let build = layout.reg("build_sched");
        let word = bus.read32(build.offset)?;
        let field = |f: &str| build.field(f).expect("build_sched field").get(word);
        let (node_bits, queues) = (field("node_bits"), field("queues"));
        let config = Config::scheduler(queues);
        if (Device::Scheduler { node_bits }).check(&config).is_err() {
            let hash = bus.read32(layout.reg("map_hash").offset)?;
            return Err(bus.error(Some(build.offset), Cause::MapMismatch { device: hash, tool: 0 }));
        }
        Ok(Map::scheduler(node_bits, queues))
    }

    /// The device is the scheduler build (device id "FRCQ"), not the engine.
    pub fn is_scheduler(&self) -> bool {
        matches!(self.map.device, Device::Scheduler { .. })
    }

    /// Refuses an engine call on the scheduler build: it has no `lacks`.
    fn engine_only(&self, lacks: &str) -> Result<(), Error> {
        match self.map.device {
            Device::Engine => Ok(()),
            Device::Scheduler { .. } => Err(self
                .bus
                .error(None, Cause::WrongBuild(format!("{SCHEDULER_BUILD}: it has no {lacks}")))),
        }
    }

    /// Refuses a scheduler build call on the engine.
    fn scheduler_only(&self) -> Result<(), Error> {
        match self.map.device {
            Device::Scheduler { .. } => Ok(()),
            Device::Engine => Err(self.bus.error(
                None,
                Cause::WrongBuild(
                    "this device is the engine (FRCE): its scheduler is fed by its TX path (posted transfers); enqueues and \
                     decisions by hand are the scheduler build's (FRCQ)"
                        .into(),
                ),
            )),
        }
    }

    /// The register map of the device.
    pub fn map(&self) -> &Map {
        &self.map
    }

    /// The device's stream ports (the map's `stream` block).
    pub fn streams(&mut self) -> stream::Streams<'_> {
        stream::Streams::new(self.bus.as_mut(), &self.map)
    }

    /// The device's name.
    pub fn device(&self) -> &str {
        self.bus.name()
    }

    /// Writes `bytes` into the memory behind the engine at `address` (the simulated engine's
    /// `sim:` device only: [`Cause::NoMemory`] elsewhere).
    pub fn memory_write(&mut self, address: u64, bytes: &[u8]) -> Result<(), Error> {
        self.bus.memory_write(address, bytes)
    }

    /// Reads `length` bytes of the memory behind the engine at `address` (as
    /// [`Ferroce::memory_write`]).
    pub fn memory_read(&mut self, address: u64, length: usize) -> Result<Vec<u8>, Error> {
        self.bus.memory_read(address, length)
    }

    /// Finds a register element: `name`, `name[index]`, or a byte address (`0x120`).
    pub fn target(&self, spec: &str) -> Result<Target<'_>, Error> {
        let err = |cause| Error {
            device: self.device().into(),
            address: None,
            cause,
        };
        if let Some(address) = parse_number(spec) {
            let address = u32::try_from(address).map_err(|_| err(Cause::BeyondWindow { size: bus::WINDOW }))?;
            return self
                .map
                .decode(address)
                .filter(|_| address.is_multiple_of(4))
                .map(|t| Target {
                    register: t.register,
                    index: t.index,
                })
                .ok_or(Error {
                    device: self.device().into(),
                    address: Some(address),
                    cause: Cause::SlaveError(3),
                });
        }
        let (name, index) = match spec.split_once('[') {
            Some((n, rest)) => (n, rest.trim_end_matches(']').parse::<u32>().ok()),
            None => (spec, Some(0)),
        };
        let register = self
            .map
            .get(name)
            .ok_or_else(|| err(Cause::Io(format!("no register named '{name}' (ferroce-ctl dump lists them)"))))?;
        match index {
            Some(i) if i < register.count => Ok(Target { register, index: i }),
            _ => Err(err(Cause::Io(format!("{spec}: {name} has {} elements", register.count)))),
        }
    }

    /// Reads a word.
    pub fn read(&mut self, address: u32) -> Result<u32, Error> {
        self.bus.read32(address)
    }

    /// Writes a word.
    pub fn write(&mut self, address: u32, value: u32) -> Result<(), Error> {
        self.bus.write32(address, value)
    }

    /// The address of element `index` of register `name`.
    fn at(&self, name: &str, index: u32) -> u32 {
        self.map.reg(name).address(index)
    }

    /// The fields of a register value: name and value.
    pub fn fields(register: &Register, value: u32) -> Vec<(String, u32)> {
        register.fields.iter().map(|f| (f.name.clone(), f.get(value))).collect()
    }

    /// The QP context entry of `qp` (its words).
    pub fn qp_read(&mut self, qp: u32) -> Result<Vec<u32>, Error> {
        self.engine_only("QP table")?;
        (0..QP_CONTEXT.words())
            .map(|w| {
                let a = self.at(&format!("qp_word{w}"), qp);
                self.read(a)
            })
            .collect()
    }

    /// QP `qp`'s error state (`qp_status`): the status its transfers failed with, or `None`
    /// when it is not in error. A QP in error refuses posts until its context is written again.
    pub fn qp_failure(&mut self, qp: u32) -> Result<Option<CompletionStatus>, Error> {
        self.engine_only("QP table")?;
        let a = self.at(QP_STATUS, qp);
        let value = self.read(a)?;
        let code = self.map.reg(QP_STATUS).field("failure").expect("qp_status.failure").get(value);
        Ok(CompletionStatus::from_code(code as u8).filter(|s| *s != CompletionStatus::Success))
    }

    /// Writes the QP context entry of `qp`: words 1 and up first, word 0 last (it commits the
    /// entry to the TX path).
    pub fn qp_write(&mut self, qp: u32, words: &[u32]) -> Result<(), Error> {
        self.engine_only("QP table")?;
        for w in (0..QP_CONTEXT.words()).rev() {
            let a = self.at(&format!("qp_word{w}"), qp);
            self.write(a, words[w])?;
        }
        Ok(())
    }

    /// Resets QP `qp` (a context of zeros, state RESET, committed), then commits a context with
    /// `fields` (by `QP_CONTEXT` name; the others 0): as a verbs host moves a QP through RESET for
    /// a new connection, so nothing of an earlier one (PSNs above all) survives.
    pub fn qp_commit(&mut self, qp: u32, fields: &[(&str, u128)]) -> Result<(), Error> {
        self.engine_only("QP table")?;
        let words = QP_CONTEXT.encode(fields).map_err(|e| self.invalid(format!("QP {qp}: {e}")))?;
        self.qp_write(qp, &vec![0; QP_CONTEXT.words()])?;
        self.qp_write(qp, &words)
    }

    /// The engine's own addresses: MAC (`local_mac_high`, `local_mac_low`) and IPv4 (`local_ipv4`).
    pub fn local_address(&mut self) -> Result<([u8; 6], std::net::Ipv4Addr), Error> {
        self.engine_only("MAC or IP address (the engine's configuration)")?;
        let high = self.read(self.at("local_mac_high", 0))?;
        let low = self.read(self.at("local_mac_low", 0))?;
        let ip = self.read(self.at("local_ipv4", 0))?;
        let mac = (u64::from(high & 0xffff) << 32 | u64::from(low)).to_be_bytes();
        Ok(([mac[2], mac[3], mac[4], mac[5], mac[6], mac[7]], ip.into()))
    }

    /// The post state and code of `post_status`.
    pub fn post_status(&mut self) -> Result<(PostState, u8, u32), Error> {
        self.engine_only("transfer posting")?;
        let v = self.read(self.at("post_status", 0))?;
        let r = self.map.reg("post_status");
        let state = PostState::from_code(r.field("state").expect("state").get(v)).expect("2-bit state");
        Ok((state, r.field("code").expect("code").get(v) as u8, v))
    }

    /// Posts a transfer (a packed `POST` entry): the eight words, the doorbell, then the
    /// register file's answer (read until the post is no longer pending, at most `tries` reads).
    pub fn post(&mut self, words: &[u32], tries: usize) -> Result<PostOutcome, Error> {
        self.engine_only("transfer posting")?;
        let status = self.at("post_status", 0);
        let r = self.map.reg("post_status").clone();
        // clear the sequence error bits so that this post's are seen
        let clear = r.field("incomplete").expect("incomplete").mask() | r.field("overrun").expect("overrun").mask();
        self.write(status, clear)?;
        for (w, v) in words.iter().enumerate() {
            let a = self.at(&format!("post_word{w}"), 0);
            self.write(a, *v)?;
        }
        let doorbell = self.at("doorbell", 0);
        self.write(doorbell, 1)?;
        for _ in 0..tries.max(1) {
            let v = self.read(status)?;
            if r.field("overrun").expect("overrun").get(v) == 1 {
                return Ok(PostOutcome::NotPosted("overrun: a post was still pending"));
            }
            if r.field("incomplete").expect("incomplete").get(v) == 1 {
                return Ok(PostOutcome::NotPosted("incomplete: a descriptor word was not written"));
            }
            match PostState::from_code(r.field("state").expect("state").get(v)) {
                Some(PostState::Accepted) => return Ok(PostOutcome::Accepted),
                Some(PostState::Refused) => return Ok(PostOutcome::Refused(r.field("code").expect("code").get(v) as u8)),
                _ => {}
            }
        }
        Err(self
            .bus
            .error(Some(status), Cause::Io(format!("the post is still pending after {tries} reads"))))
    }

    /// A channel's status: state and cause.
    pub fn channel_status(&mut self, channel: u32) -> Result<(ChannelStatus, u8), Error> {
        self.engine_only("channels")?;
        let r = self.map.reg("channel_status").clone();
        let v = self.read(r.address(channel))?;
        let state = ChannelStatus::from_code(r.field("state").expect("state").get(v) as u8).expect("2-bit state");
        Ok((state, r.field("cause").expect("cause").get(v) as u8))
    }

    /// Polls the groups of the channels `first..=last`: the finished channels of those groups
    /// (all of them, also outside the range: a poll clears its whole group).
    pub fn poll(&mut self, first: u32, last: u32) -> Result<Vec<Finished>, Error> {
        self.engine_only("channels")?;
        let mut out = Vec::new();
        for g in first / POLL_CHANNELS..=last / POLL_CHANNELS {
            let finished = self.read(self.at("poll", g))?;
            if finished == 0 {
                continue;
            }
            let error = self.read(self.at("poll_error", 0))?;
            out.extend((0..POLL_CHANNELS).filter(|i| finished >> i & 1 == 1).map(|i| Finished {
                channel: g * POLL_CHANNELS + i,
                error: error >> i & 1 == 1,
            }));
        }
        Ok(out)
    }

    /// An error of this device that is not an access: a request refused before any write.
    fn invalid(&self, message: String) -> Error {
        self.bus.error(None, Cause::Invalid(message))
    }

    /// Entries of the memory region table (the `index` field of `region_write`; 0 on the
    /// scheduler build).
    pub fn region_entries(&self) -> u32 {
        self.map
            .get("region_write")
            .and_then(|r| r.field("index"))
            .map_or(0, |f| 1 << f.width)
    }

    /// Writes entry `index` of the memory region table: the staging words, then `index` to
    /// `region_write` (the entry changes in one cycle). Refused before any write: an index
    /// beyond the table, a valid region whose R_Key does not select `index` (the responder
    /// finds a region by the R_Key's bits above `REGION_KEY_BITS`), a region that ends beyond
    /// 2^64. The table is write-only from the host.
    pub fn region_write(&mut self, index: u32, region: &Region) -> Result<(), Error> {
        self.engine_only("memory region table")?;
        let entries = self.region_entries();
        if index >= entries {
            return Err(self.invalid(format!(
                "region {index}: the memory region table has {entries} entries (0 to {})",
                entries - 1
            )));
        }
        if region.valid && region_index(region.rkey) != index {
            let first = index << REGION_KEY_BITS;
            return Err(self.invalid(format!(
                "region {index}: R_Key {:#x} selects entry {} (the responder finds a region by the R_Key's bits 31:{REGION_KEY_BITS}): \
                 entry {index} needs an R_Key from {first:#x} to {:#x}",
                region.rkey,
                region_index(region.rkey),
                first | ((1 << REGION_KEY_BITS) - 1)
            )));
        }
        if u128::from(region.base) + u128::from(region.length) > 1 << 64 {
            return Err(self.invalid(format!(
                "region {index}: base {:#x} + length {:#x} goes beyond 2^64",
                region.base, region.length
            )));
        }
        for (w, word) in region.words().into_iter().enumerate() {
            let a = self.at(&format!("region_word{w}"), 0);
            self.write(a, word)?;
        }
        let r = self.map.reg("region_write");
        let (a, v) = (r.offset, r.field("index").expect("index").set(0, index));
        self.write(a, v)
    }

    /// Clears entry `index` of the memory region table (writes an entry with `valid` 0).
    pub fn region_clear(&mut self, index: u32) -> Result<(), Error> {
        self.region_write(index, &Region::default())
    }

    /// Posts a receive buffer to `qp`'s receive queue: the staging words, `receive_post`, then
    /// `receive_status` until the post is no longer pending (at most `tries` reads).
    pub fn receive_post(&mut self, qp: u32, address: u64, length: u32, tries: usize) -> Result<ReceiveOutcome, Error> {
        self.engine_only("receive queues")?;
        let words = RECEIVE_POST
            .encode(&[("qp", qp.into()), ("length", length.into()), ("address", address.into())])
            .map_err(|e| self.invalid(format!("receive post: {e}")))?;
        for (w, word) in words.into_iter().enumerate() {
            let a = self.at(&format!("receive_word{w}"), 0);
            self.write(a, word)?;
        }
        let post = self.at("receive_post", 0);
        self.write(post, 1)?;
        let r = self.map.reg("receive_status").clone();
        let (state, overrun) = (r.field("state").expect("state"), r.field("overrun").expect("overrun"));
        for _ in 0..tries.max(1) {
            let v = self.read(r.offset)?;
            if overrun.get(v) == 1 {
                return Ok(ReceiveOutcome::Overrun);
            }
            match state.get(v) {
                receive_state::ACCEPTED => return Ok(ReceiveOutcome::Accepted),
                receive_state::REFUSED => return Ok(ReceiveOutcome::Refused),
                _ => {}
            }
        }
        Ok(ReceiveOutcome::Timeout)
    }

    /// Writes the fields `fields` of `receive_completion_pop` (`pop`, `clear_overflow`).
    fn completion_pop(&mut self, fields: &[&str]) -> Result<(), Error> {
        self.engine_only("receive completions")?;
        let r = self.map.reg("receive_completion_pop");
        let v = fields.iter().fold(0, |v, f| v | r.field(f).expect("pop field").mask());
        let a = r.offset;
        self.write(a, v)
    }

    /// The oldest receive completion, popped (`None` when the queue is empty), and the overflow
    /// flag (completions were lost since it was last cleared).
    pub fn receive_completion(&mut self) -> Result<(Option<ReceiveCompletion>, bool), Error> {
        self.engine_only("receive completions")?;
        // word 0 has `valid`: the other words are read only when it is set (the head stays
        // until popped)
        let mut words = vec![self.read(self.at("receive_completion0", 0))?];
        if RECEIVE_COMPLETION.decode(&words, "valid") == 1 {
            for w in 1..RECEIVE_COMPLETION.words() {
                let a = self.at(&format!("receive_completion{w}"), 0);
                words.push(self.read(a)?);
            }
        }
        let completion = ReceiveCompletion::decode(&words);
        if completion.is_some() {
            self.completion_pop(&["pop"])?;
        }
        Ok((completion, RECEIVE_COMPLETION.decode(&words, "overflow") == 1))
    }

    /// Up to `max` receive completions, oldest first, popped; and whether the overflow flag was
    /// seen set.
    pub fn receive_completions(&mut self, max: usize) -> Result<(Vec<ReceiveCompletion>, bool), Error> {
        let (mut out, mut overflow) = (Vec::new(), false);
        while out.len() < max {
            let (completion, lost) = self.receive_completion()?;
            overflow |= lost;
            match completion {
                Some(c) => out.push(c),
                None => break,
            }
        }
        Ok((out, overflow))
    }

    /// Clears the receive completion overflow flag.
    pub fn clear_completion_overflow(&mut self) -> Result<(), Error> {
        self.completion_pop(&["clear_overflow"])
    }

    /// Receive completions lost because the queue was full (`receive_completions_lost`).
    pub fn receive_completions_lost(&mut self) -> Result<u32, Error> {
        self.engine_only("receive completions")?;
        self.read(self.at("receive_completions_lost", 0))
    }

    /// The responder's counters (`responder_counter[i]`), named by `ResponderCounter::name`.
    pub fn responder_counters(&mut self) -> Result<Vec<(String, u32)>, Error> {
        self.engine_only("responder")?;
        ResponderCounter::ALL
            .iter()
            .map(|&c| Ok((c.name(), self.responder_counter(c)?)))
            .collect()
    }

    /// One responder counter.
    pub fn responder_counter(&mut self, counter: ResponderCounter) -> Result<u32, Error> {
        self.engine_only("responder")?;
        let address = self.map.reg("responder_counter").address(counter.index() as u32);
        self.read(address)
    }

    /// Every counter: the readable registers of the `counters` block; on the engine also
    /// `receive_completions_lost` and the responder's counters (named `responder_<name>`).
    pub fn counters(&mut self) -> Result<Vec<(String, u32)>, Error> {
        let mut regs: Vec<(String, u32)> = self.map.blocks.iter().find(|b| b.name == "counters").map_or_else(Vec::new, |b| {
            b.registers
                .iter()
                .filter(|r| Ferroce::safe_to_read(r))
                .map(|r| (r.name.clone(), r.offset))
                .collect()
        });
        let engine = self.map.device == Device::Engine;
        if engine {
            regs.push(("receive_completions_lost".into(), self.at("receive_completions_lost", 0)));
        }
        let mut out = regs
            .into_iter()
            .map(|(n, a)| Ok((n, self.read(a)?)))
            .collect::<Result<Vec<_>, Error>>()?;
        if engine {
            out.extend(self.responder_counters()?.into_iter().map(|(n, v)| (format!("responder_{n}"), v)));
        }
        Ok(out)
    }

    /// The scheduler's refusal counters (`sched_duplicate`, `sched_bad_queue`; both builds).
    pub fn sched_counters(&mut self) -> Result<SchedCounters, Error> {
        Ok(SchedCounters {
            duplicate: self.read(self.at("sched_duplicate", 0))?,
            bad_queue: self.read(self.at("sched_bad_queue", 0))?,
        })
    }

    /// The `enqueue` register and the value that enqueues `node` on `queue`; refused before any
    /// access when either does not fit its field (a queue that fits but is beyond the build's
    /// queues is written: the scheduler refuses and counts it).
    fn enqueue_word(&self, node: u32, queue: u32) -> Result<(u32, u32), Error> {
        self.scheduler_only()?;
        let r = self.map.reg("enqueue");
        let mut value = 0;
        for (name, v) in [("node", node), ("queue", queue)] {
            let f = r.field(name).expect("enqueue field");
            if u64::from(v) > u64::from(f.mask() >> f.lsb) {
                let why = if name == "node" {
                    format!("is beyond the build's {} nodes (0 to {})", 1u64 << f.width, (1u64 << f.width) - 1)
                } else {
                    format!("does not fit the {}-bit queue field", f.width)
                };
                return Err(self.invalid(format!("enqueue: {name} {v} {why}")));
            }
            value = f.set(value, v);
        }
        Ok((r.offset, value))
    }

    /// The scheduler build: enqueues `node` on `queue` (one write of `enqueue`). The scheduler
    /// refuses a node already queued and a queue beyond the build's, and counts them
    /// ([`Ferroce::sched_counters`]; [`Ferroce::sched_enqueue_nodes`] says which). On the
    /// engine: [`Cause::WrongBuild`] (its scheduler is fed by its TX path).
    pub fn sched_enqueue(&mut self, node: u32, queue: u32) -> Result<(), Error> {
        let (address, value) = self.enqueue_word(node, queue)?;
        self.write(address, value)
    }

    /// The scheduler build: enqueues `nodes` on `queue` in order, each followed by a read of the
    /// refusal counters, and says what became of each (the counters are read once before the
    /// first). Every node is checked against its field before the first write. A counter that
    /// moves by more than one enqueue explains is an error.
    pub fn sched_enqueue_nodes(&mut self, queue: u32, nodes: &[u32]) -> Result<Vec<(u32, EnqueueOutcome)>, Error> {
        let words = nodes
            .iter()
            .map(|&n| self.enqueue_word(n, queue))
            .collect::<Result<Vec<_>, Error>>()?;
        let mut before = self.sched_counters()?;
        let mut out = Vec::with_capacity(nodes.len());
        for (&node, (address, value)) in nodes.iter().zip(words) {
            self.write(address, value)?;
            let after = self.sched_counters()?;
            let moved = (
                after.duplicate.wrapping_sub(before.duplicate),
                after.bad_queue.wrapping_sub(before.bad_queue),
            );
            let outcome = match moved {
                (0, 0) => EnqueueOutcome::Queued,
                (1, 0) => EnqueueOutcome::Duplicate,
                (0, 1) => EnqueueOutcome::BadQueue,
                (d, b) => {
                    return Err(self.bus.error(
                        None,
                        Cause::Io(format!(
                            "enqueue of node {node}: sched_duplicate moved by {d} and sched_bad_queue by {b}, more than one \
                             enqueue explains (another requester?)"
                        )),
                    ))
                }
            };
            out.push((node, outcome));
            before = after;
        }
        Ok(out)
    }

    /// The scheduler build: the last decision (the `decision` register), without making one.
    pub fn sched_decision(&mut self) -> Result<Decision, Error> {
        self.scheduler_only()?;
        let address = self.at("decision", 0);
        let value = self.bus.read32(address)?;
        Ok(Decision::decode(self.map.reg("decision"), value))
    }

    /// The scheduler build: makes one arbiter decision and returns it: reads `decision`,
    /// writes `decide`, reads `decision` again; its `sequence` must have advanced by exactly one
    /// (modulo 2^width), else [`Cause::DecisionNotSeen`] (a device that makes no decisions,
    /// such as a file, or another host deciding at the same time). Three accesses. On the
    /// engine: [`Cause::WrongBuild`].
    pub fn sched_decide(&mut self) -> Result<Decision, Error> {
        let before = self.sched_decision()?;
        let decide = self.map.reg("decide");
        let (address, value) = (decide.offset, decide.field("go").map_or(1, |f| f.set(0, 1)));
        self.write(address, value)?;
        let after = self.sched_decision()?;
        let wrap = self.map.reg("decision").field("sequence").map_or(256, |f| 1u64 << f.width);
        let expected = ((u64::from(before.number) + 1) % wrap) as u32;
        if after.number != expected {
            return Err(self.bus.error(
                Some(self.map.reg("decision").offset),
                Cause::DecisionNotSeen {
                    before: before.number,
                    after: after.number,
                    expected,
                },
            ));
        }
        Ok(after)
    }

    /// Sets fields of queue `queue`'s configuration word (`queue_config[queue]`, the
    /// `ferroce_contracts::sched::QUEUE_CONFIG` fields by name: `weight`, `rate`, `burst`,
    /// `high_table`, `bucket_enable`), keeping the others: reads the word, writes it back
    /// changed, and returns the value written. Both builds (the `qos` block is the same).
    /// Refused before any access: a queue beyond the build's, a field the word does not have,
    /// a value that does not fit.
    pub fn queue_config_set(&mut self, queue: u32, fields: &[(&str, u32)]) -> Result<u32, Error> {
        let r = self.map.reg("queue_config").clone();
        if queue >= r.count {
            return Err(self.invalid(format!("queue {queue}: the build has {} queues (0 to {})", r.count, r.count - 1)));
        }
        for (name, v) in fields {
            let f = r
                .field(name)
                .ok_or_else(|| self.invalid(format!("queue_config has no field '{name}'")))?;
            if u64::from(*v) > u64::from(f.mask() >> f.lsb) {
                return Err(self.invalid(format!("queue_config.{name}: {v} does not fit {} bits", f.width)));
            }
        }
        let address = r.address(queue);
        let word = fields
            .iter()
            .fold(self.read(address)?, |w, (name, v)| r.field(name).expect("checked").set(w, *v));
        self.write(address, word)?;
        Ok(word)
    }

    /// A register may be read without side effects and returns something: not a poll register
    /// (its read clears it), not a write-only one (a doorbell or strobe reads 0).
    pub fn safe_to_read(register: &Register) -> bool {
        register.kind != Kind::Poll && register.fields.iter().any(|f| f.access.readable())
    }
}

/// Text for a post refusal code.
pub fn refusal_name(code: u8) -> &'static str {
    PostError::from_code(code).map_or("unknown", PostError::name)
}

/// Text for a completion status code.
pub fn status_name(code: u8) -> &'static str {
    CompletionStatus::from_code(code).map_or("unknown", CompletionStatus::name)
}

/// Text for a receive completion status code.
pub fn receive_status_name(code: u8) -> &'static str {
    ReceiveStatus::from_code(code).map_or("unknown", ReceiveStatus::name)
}

/// The post's fields by name, for the command line and the JSON.
pub fn post_fields() -> impl Iterator<Item = &'static str> {
    POST.fields.iter().map(|f| f.name)
}
