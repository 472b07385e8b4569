//! The register file's golden model: what each AXI4-Lite transaction of the register map
//! (`contracts::regs`) answers and does, one transaction at a time, with the engine-side
//! events (a post's answer, a completion, a counter's value) applied between transactions.
//!
//! Every register is handled by its [`Kind`], from the map's fields (access, reset value,
//! writable bits), so the model and the RTL are both elaborated from the same table; the rules a
//! host relies on are in `docs/registers.md`.

use crate::contracts::regs::{Access, Config, Kind, Map, PostState, Register, POLL_CHANNELS};
use crate::contracts::sched::{HIGH_LIMIT_ADDR, PACE_COST_ADDR};
use crate::contracts::tx::{BLOCK_LOG2_MAX, BLOCK_LOG2_MIN, POST};
use std::collections::HashMap;

/// An AXI response.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum Resp {
    /// OKAY (0).
    Okay = 0,
    /// SLVERR (2): a write to a read-only register, or a value the register refuses.
    SlvErr = 2,
    /// DECERR (3): the address decodes to nothing (a read returns 0).
    DecErr = 3,
}

impl Resp {
    /// The response of a 2-bit code (EXOKAY, 1, is not one of ours).
    pub fn from_code(code: u8) -> Option<Resp> {
        [Resp::Okay, Resp::SlvErr, Resp::DecErr].into_iter().find(|r| *r as u8 == code)
    }

    /// Upper-case name.
    pub const fn name(self) -> &'static str {
        match self {
            Resp::Okay => "OKAY",
            Resp::SlvErr => "SLVERR",
            Resp::DecErr => "DECERR",
        }
    }
}

/// One channel's state in the status table.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ChannelState {
    /// A post was accepted and no completion came yet.
    pub busy: bool,
    /// A completion came and was not polled.
    pub finished: bool,
    /// That completion was not a success.
    pub error: bool,
    /// Its status code.
    pub cause: u8,
}

impl ChannelState {
    /// The `channel_status` register value: `{cause, 0b00, state}`.
    pub fn register(&self) -> u32 {
        let state = match (self.finished, self.error, self.busy) {
            (true, true, _) => 3,
            (true, false, _) => 2,
            (false, _, true) => 1,
            _ => 0,
        };
        let cause = if self.finished && self.error { u32::from(self.cause) } else { 0 };
        state | cause << 4
    }
}

/// The register file, transaction by transaction.
#[derive(Debug, Clone)]
pub struct RegsModel {
    map: Map,
    /// Flip-flop registers, queue words and QP words by byte address.
    stored: HashMap<u32, u32>,
    inputs: HashMap<String, u32>,
    post_state: PostState,
    post_code: u8,
    incomplete: bool,
    overrun: bool,
    words_written: u32,
    channels: Vec<ChannelState>,
    poll_error: u32,
    bad_channels: u32,
    /// Posts the register file offered (packed `POST` entries), oldest first.
    pub posts: Vec<Vec<u32>>,
    /// Scheduler configuration writes (`sched_cfg_addr`, `sched_cfg_wdata`), oldest first.
    pub sched_writes: Vec<(u32, u32)>,
    /// QP commits (`qp_commit_index`), oldest first.
    pub commits: Vec<u32>,
    /// Writes to strobe registers (the register's port, the value written with the byte
    /// strobes applied), oldest first.
    pub strobes: Vec<(String, u32)>,
    /// The values of indexed registers' tables, by port and index (0 when not set).
    indexed: HashMap<(String, u32), u32>,
}

impl RegsModel {
    /// The register file of `config` after reset (its QP table all zero, as after power-up).
    pub fn new(config: Config) -> RegsModel {
        RegsModel::from_map(Map::new(config))
    }

    /// The register file of any map (the engine's, or the scheduler build's
    /// [`Map::scheduler`]) after reset.
    pub fn from_map(map: Map) -> RegsModel {
        let mut m = RegsModel {
            channels: vec![ChannelState::default(); map.config.channels as usize],
            map,
            stored: HashMap::new(),
            inputs: HashMap::new(),
            post_state: PostState::Idle,
            post_code: 0,
            incomplete: false,
            overrun: false,
            words_written: 0,
            poll_error: 0,
            bad_channels: 0,
            posts: Vec::new(),
            sched_writes: Vec::new(),
            commits: Vec::new(),
            strobes: Vec::new(),
            indexed: HashMap::new(),
        };
        m.reset();
        m
    }

    /// The map it implements.
    pub fn map(&self) -> &Map {
        &self.map
    }

    /// Reset: every register to its reset value, the status table cleared; the QP table keeps
    /// its contents.
    pub fn reset(&mut self) {
        let qp: Vec<u32> = self
            .map
            .of_kind(Kind::QpContext)
            .iter()
            .flat_map(|r| (0..r.count).map(|i| r.address(i)))
            .collect();
        self.stored.retain(|a, _| qp.contains(a));
        for r in self.map.registers() {
            if matches!(r.kind, Kind::Flops | Kind::QueueConfig) {
                for i in 0..r.count {
                    self.stored.insert(r.address(i), r.reset().unwrap_or(0));
                }
            }
        }
        self.post_state = PostState::Idle;
        self.post_code = 0;
        self.incomplete = false;
        self.overrun = false;
        self.words_written = 0;
        self.channels.iter_mut().for_each(|c| *c = ChannelState::default());
        self.poll_error = 0;
        self.bad_channels = 0;
    }

    /// Sets the value of an input port (`cnt_frames_in`, ...).
    pub fn set_input(&mut self, port: &str, value: u32) {
        self.inputs.insert(port.to_string(), value);
    }

    /// Sets the value an indexed register's table (`responder_counter`, ...) shows at `index`.
    pub fn set_indexed(&mut self, port: &str, index: u32, value: u32) {
        self.indexed.insert((port.to_string(), index), value);
    }

    /// The transfer table answers the pending post: 0 accepted, else a `PostError` code.
    pub fn post_result(&mut self, code: u8) {
        if self.post_state != PostState::Pending {
            return;
        }
        self.post_code = code;
        if code == 0 {
            self.post_state = PostState::Accepted;
            let channel = POST.decode(self.posts.last().expect("a post"), "channel") as usize;
            let count = self.channels.len();
            self.channels[channel % count] = ChannelState {
                busy: true,
                ..ChannelState::default()
            };
        } else {
            self.post_state = PostState::Refused;
        }
    }

    /// A completion of `channel` with a `CompletionStatus` code.
    pub fn complete(&mut self, channel: u32, status: u8) {
        let Some(c) = self.channels.get_mut(channel as usize) else {
            self.bad_channels = self.bad_channels.wrapping_add(1);
            return;
        };
        *c = ChannelState {
            busy: false,
            finished: true,
            error: status != 0,
            cause: status,
        };
    }

    /// A channel's state.
    pub fn channel(&self, channel: u32) -> ChannelState {
        self.channels[channel as usize]
    }

    /// The post state.
    pub fn post_state(&self) -> PostState {
        self.post_state
    }

    /// The QP context entry of `qp` (its words).
    pub fn qp_entry(&self, qp: u32) -> Vec<u32> {
        self.map
            .of_kind(Kind::QpContext)
            .iter()
            .map(|r| self.stored.get(&r.address(qp)).copied().unwrap_or(0))
            .collect()
    }

    fn post_status(&self) -> u32 {
        self.post_state as u32
            | u32::from(self.post_code) << 2
            | u32::from(self.incomplete) << 8
            | u32::from(self.overrun) << 9
            | self.words_written << 16
    }

    /// A read of the byte address `address`.
    pub fn read(&mut self, address: u32) -> (Resp, u32) {
        // (the stream block is the stream set's: the register file alone has nothing there)
        let Some(t) = self.map.decode(address).filter(|t| !t.register.kind.in_stream_set()) else {
            return (Resp::DecErr, 0);
        };
        let (r, index) = (t.register.clone(), t.index);
        let at = r.address(index);
        let value = match r.kind {
            Kind::Constant => r.reset().unwrap_or(0),
            Kind::Flops | Kind::QueueConfig | Kind::QpContext => self.stored.get(&at).copied().unwrap_or(0),
            Kind::Input => self.inputs.get(r.port.as_deref().unwrap_or("")).copied().unwrap_or(0),
            Kind::StreamSetting | Kind::StreamCommand | Kind::StreamStatus => unreachable!("the stream set's register"),
            Kind::Internal => match r.name.as_str() {
                "post_status" => self.post_status(),
                "poll_error" => self.poll_error,
                "completion_bad_channel" => self.bad_channels,
                other => panic!("the model does not know the internal register {other}"),
            },
            Kind::Doorbell | Kind::Strobe => 0,
            Kind::Indexed => {
                let port = r.port.clone().unwrap_or_default();
                self.indexed.get(&(port, index)).copied().unwrap_or(0)
            }
            Kind::Poll => {
                let (mut finished, mut error) = (0, 0);
                for i in 0..POLL_CHANNELS {
                    let c = &mut self.channels[(index * POLL_CHANNELS + i) as usize];
                    if c.finished {
                        finished |= 1 << i;
                        error |= u32::from(c.error) << i;
                        c.finished = false;
                        c.error = false;
                    }
                }
                self.poll_error = error;
                finished
            }
            Kind::ChannelStatus => self.channels[index as usize].register(),
        };
        (Resp::Okay, value & r.read_mask())
    }

    /// A write of `data` with byte strobes `strobes` (bit b: byte b) to the byte address `address`.
    pub fn write(&mut self, address: u32, data: u32, strobes: u8) -> Resp {
        let Some(t) = self.map.decode(address).filter(|t| !t.register.kind.in_stream_set()) else {
            return Resp::DecErr;
        };
        let (r, index) = (t.register.clone(), t.index);
        if !r.writable() {
            return Resp::SlvErr;
        }
        let bytes = (0..4).filter(|b| strobes >> b & 1 == 1).fold(0u32, |m, b| m | 0xff << (8 * b));
        let at = r.address(index);
        let merge = |old: u32| (old & !(bytes & r.write_mask())) | (data & bytes & r.write_mask());
        match r.kind {
            Kind::Flops | Kind::QueueConfig | Kind::QpContext => {
                let old = self.stored.get(&at).copied().unwrap_or(0);
                let new = merge(old);
                if r.name == "block_size" {
                    let log2 = r.field("log2").expect("block_size.log2").get(new);
                    if !(BLOCK_LOG2_MIN..=BLOCK_LOG2_MAX).contains(&log2) {
                        return Resp::SlvErr;
                    }
                }
                if r.name == "read_response_queue" {
                    let queue = r.field("queue").expect("read_response_queue.queue").get(new);
                    if !(1..self.map.config.queues).contains(&queue) {
                        return Resp::SlvErr;
                    }
                }
                self.stored.insert(at, new);
                if let Some(w) = r.name.strip_prefix("post_word") {
                    self.words_written |= 1 << w.parse::<u32>().expect("post word number");
                }
                match (r.kind, r.name.as_str()) {
                    (Kind::QueueConfig, "pace_cost") => self.sched_writes.push((PACE_COST_ADDR + index, new)),
                    (Kind::QueueConfig, _) => self.sched_writes.push((index, new)),
                    (_, "high_limit") => self.sched_writes.push((HIGH_LIMIT_ADDR, new)),
                    (_, "qp_word0") => self.commits.push(index),
                    _ => {}
                }
            }
            Kind::Internal => {
                // post_status: W1C bits
                let clear = data & bytes;
                for f in r.fields.iter().filter(|f| f.access == Access::W1c) {
                    if clear & f.mask() != 0 {
                        match f.name.as_str() {
                            "incomplete" => self.incomplete = false,
                            "overrun" => self.overrun = false,
                            other => panic!("the model does not know the W1C field {other}"),
                        }
                    }
                }
            }
            Kind::Doorbell => self.doorbell(),
            Kind::Strobe => self.strobes.push((r.port.clone().unwrap_or_default(), data & bytes)),
            _ => unreachable!("{}: not writable", r.name),
        }
        Resp::Okay
    }

    /// The doorbell rule: refused while a post is pending (`overrun`) or before every
    /// descriptor word was written since the last post (`incomplete`); else the staged words
    /// are posted.
    fn doorbell(&mut self) {
        let all = (1u32 << POST.words()) - 1;
        if self.post_state == PostState::Pending {
            self.overrun = true;
        } else if self.words_written != all {
            self.incomplete = true;
        } else {
            let words = (0..POST.words())
                .map(|w| {
                    let r: &Register = self.map.reg(&format!("post_word{w}"));
                    self.stored.get(&r.offset).copied().unwrap_or(0)
                })
                .collect();
            self.posts.push(words);
            self.post_state = PostState::Pending;
            self.post_code = 0;
            self.words_written = 0;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_register_resets_and_answers_by_its_access() {
        let mut m = RegsModel::new(Config::SMALL);
        let map = m.map().clone();
        for r in map.registers() {
            let (resp, v) = m.read(r.offset);
            if r.kind.in_stream_set() {
                // the stream set's block: nothing in the register file
                assert_eq!((resp, m.write(r.offset, 0, 0xf)), (Resp::DecErr, Resp::DecErr), "{}", r.name);
                continue;
            }
            assert_eq!(resp, Resp::Okay, "{}", r.name);
            if let Some(reset) = r.reset() {
                assert_eq!(v, reset & r.read_mask(), "{}", r.name);
            }
            if !r.writable() {
                assert_eq!(m.write(r.offset, 0xffff_ffff, 0xf), Resp::SlvErr, "{}", r.name);
            }
        }
        assert_eq!(m.read(0x18), (Resp::DecErr, 0));
        assert_eq!(m.write(0x18, 1, 0xf), Resp::DecErr);
    }

    #[test]
    fn doorbell_posts_only_a_whole_descriptor_and_one_at_a_time() {
        let mut m = RegsModel::new(Config::SMALL);
        let door = m.map().reg("doorbell").offset;
        let status = m.map().reg("post_status").offset;
        assert_eq!(m.write(door, 1, 0xf), Resp::Okay);
        assert_eq!(m.read(status).1 >> 8 & 3, 1, "incomplete");
        for w in 0..8 {
            m.write(m.map().reg(&format!("post_word{w}")).offset, w + 1, 0xf);
        }
        m.write(door, 1, 0xf);
        assert_eq!(m.posts.len(), 1);
        assert_eq!(m.post_state(), PostState::Pending);
        m.write(door, 1, 0xf);
        assert_eq!(m.read(status).1 >> 8 & 3, 3, "overrun too");
        m.write(status, 1 << 8, 0x2);
        assert_eq!(m.read(status).1 >> 8 & 3, 2, "incomplete cleared, overrun kept");
        m.post_result(0);
        assert_eq!(m.channel(1).register(), 1, "channel 1 busy");
        m.complete(1, 1);
        let poll = m.map().reg("poll").offset;
        assert_eq!(m.read(poll).1, 0b10);
        assert_eq!(m.read(m.map().reg("poll_error").offset).1, 0b10);
        assert_eq!(m.read(poll).1, 0, "cleared by the read");
    }
}
