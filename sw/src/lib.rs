//! `ferroce-ctl`: the host side of Ferroce's register file, as a library and a command.
//!
//! [`bus`] reaches the register file (a PCIe BAR, UIO, `/dev/mem`, or the simulated register
//! file of `ferroce-sim serve`); [`Ferroce`] is the typed API over it, built from the same
//! register map as the RTL (`ferroce_contracts::regs::Map`): registers by name, fields decoded,
//! the QP context and the transfer post as their record schemas, the poll, the counters. Opening
//! a device reads its ID block and refuses a device built from another map.
#![warn(missing_docs)]

pub mod bus;

pub use bus::{Bus, Cause, Error};
use ferroce_contracts::regs::{Config, Kind, Map, PostState, Register, DEVICE_ID, POLL_CHANNELS};
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
    /// checks the device id and the map hash, and builds the map of the device's configuration.
    pub fn open(mut bus: Box<dyn Bus>) -> Result<Ferroce, Error> {
        let layout = Map::new(Config::SMALL);
        let at = |name: &str| layout.reg(name).offset;
        let id = bus.read32(at("device_id"))?;
        if id == u32::MAX {
            return Err(bus.error(Some(at("device_id")), Cause::AllOnes));
        }
        if id != DEVICE_ID {
            return Err(bus.error(Some(at("device_id")), Cause::NotFerroce(id)));
        }
        let (bus_word, tables, hash) = (
            bus.read32(at("build_bus"))?,
            bus.read32(at("build_tables"))?,
            bus.read32(at("map_hash"))?,
        );
        let field = |reg: &str, f: &str, word: u32| layout.reg(reg).field(f).expect("ID field").get(word);
        let config = Config {
            data_width: field("build_bus", "data_width", bus_word),
            queues: field("build_bus", "queues", bus_word),
            channels: field("build_tables", "channels", tables),
            qps: field("build_tables", "qps", tables),
        };
        if config.check().is_err() {
            return Err(bus.error(Some(at("build_tables")), Cause::MapMismatch { device: hash, tool: 0 }));
        }
        let map = Map::new(config);
        if map.hash() != hash {
            return Err(bus.error(
                Some(at("map_hash")),
                Cause::MapMismatch {
                    device: hash,
                    tool: map.hash(),
                },
            ));
        }
        Ok(Ferroce { bus, map })
    }

    /// The register map of the device.
    pub fn map(&self) -> &Map {
        &self.map
    }

    /// The device's name.
    pub fn device(&self) -> &str {
        self.bus.name()
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
        (0..QP_CONTEXT.words())
            .map(|w| {
                let a = self.at(&format!("qp_word{w}"), qp);
                self.read(a)
            })
            .collect()
    }

    /// Writes the QP context entry of `qp`: words 1 and up first, word 0 last (it commits the
    /// entry to the TX path).
    pub fn qp_write(&mut self, qp: u32, words: &[u32]) -> Result<(), Error> {
        for w in (0..QP_CONTEXT.words()).rev() {
            let a = self.at(&format!("qp_word{w}"), qp);
            self.write(a, words[w])?;
        }
        Ok(())
    }

    /// The post state and code of `post_status`.
    pub fn post_status(&mut self) -> Result<(PostState, u8, u32), Error> {
        let v = self.read(self.at("post_status", 0))?;
        let r = self.map.reg("post_status");
        let state = PostState::from_code(r.field("state").expect("state").get(v)).expect("2-bit state");
        Ok((state, r.field("code").expect("code").get(v) as u8, v))
    }

    /// Posts a transfer (a packed `POST` entry): the eight words, the doorbell, then the
    /// register file's answer (read until the post is no longer pending, at most `tries` reads).
    pub fn post(&mut self, words: &[u32], tries: usize) -> Result<PostOutcome, Error> {
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
        let r = self.map.reg("channel_status").clone();
        let v = self.read(r.address(channel))?;
        let state = ChannelStatus::from_code(r.field("state").expect("state").get(v) as u8).expect("2-bit state");
        Ok((state, r.field("cause").expect("cause").get(v) as u8))
    }

    /// Polls the groups of the channels `first..=last`: the finished channels of those groups
    /// (all of them, also outside the range: a poll clears its whole group).
    pub fn poll(&mut self, first: u32, last: u32) -> Result<Vec<Finished>, Error> {
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

    /// Every counter (RO registers of the `counters` block): name and value.
    pub fn counters(&mut self) -> Result<Vec<(String, u32)>, Error> {
        let regs: Vec<(String, u32)> = self
            .map
            .blocks
            .iter()
            .find(|b| b.name == "counters")
            .map_or_else(Vec::new, |b| b.registers.iter().map(|r| (r.name.clone(), r.offset)).collect());
        regs.into_iter().map(|(n, a)| Ok((n, self.read(a)?))).collect()
    }

    /// A register may be read without side effects (a poll register's read clears it).
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

/// The post's fields by name, for the command line and the JSON.
pub fn post_fields() -> impl Iterator<Item = &'static str> {
    POST.fields.iter().map(|f| f.name)
}
