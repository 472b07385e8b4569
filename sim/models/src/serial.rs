//! The serial bridge (`SerialBridge`): what it does with each thing that happens on its line,
//! per the protocol of [`ferroce_contracts::serial`]: requests executed on a register file
//! ([`RegisterTarget`]) and answered, everything else discarded and counted.

use ferroce_contracts::serial::{Answer, Discard, Request};

/// A register file behind the bridge.
pub trait RegisterTarget {
    /// A read: the AXI response and the data.
    fn read(&mut self, address: u32) -> (u8, u32);
    /// A write of a whole word: the AXI response.
    fn write(&mut self, address: u32, data: u32) -> u8;
}

/// What reaches the bridge on its line, as its receiver sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LineEvent {
    /// A byte with a good stop bit, while the bridge is waiting for bytes (not answering).
    Byte(u8),
    /// A byte whose stop bit was low.
    FramingError,
    /// Silence for at least the protocol's timeout.
    Silence,
    /// A good byte while the bridge is executing or answering a request.
    ByteWhileAnswering(u8),
}

/// The bridge: the request being assembled and the discard counters.
#[derive(Clone, Debug, Default)]
pub struct BridgeModel {
    assembling: Vec<u8>,
    discards: [u64; Discard::ALL.len()],
}

impl BridgeModel {
    /// A bridge after reset.
    pub fn new() -> BridgeModel {
        BridgeModel::default()
    }

    /// Events discarded for `reason` so far.
    pub fn discards(&self, reason: Discard) -> u64 {
        self.discards[reason as usize - 1]
    }

    fn discard(&mut self, reason: Discard) {
        self.discards[reason as usize - 1] += 1;
    }

    /// One event on the line: the answer, when it completes a request.
    pub fn receive(&mut self, event: LineEvent, target: &mut impl RegisterTarget) -> Option<Answer> {
        match event {
            LineEvent::FramingError => {
                self.assembling.clear();
                self.discard(Discard::Framing);
            }
            LineEvent::Silence => {
                if !self.assembling.is_empty() {
                    self.assembling.clear();
                    self.discard(Discard::Timeout);
                }
            }
            LineEvent::ByteWhileAnswering(_) => self.discard(Discard::Overrun),
            LineEvent::Byte(byte) => {
                if self.assembling.is_empty() && Request::length(byte).is_none() {
                    self.discard(Discard::UnknownCommand);
                    return None;
                }
                self.assembling.push(byte);
                if let Ok((request, _)) = Request::parse(&self.assembling) {
                    self.assembling.clear();
                    return Some(match request {
                        Request::Read { address } => {
                            let (resp, data) = target.read(address);
                            Answer { write: false, resp, data }
                        }
                        Request::Write { address, data } => Answer {
                            write: true,
                            resp: target.write(address, data),
                            data: 0,
                        },
                    });
                }
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    #[derive(Default)]
    struct Memory(HashMap<u32, u32>);

    impl RegisterTarget for Memory {
        fn read(&mut self, address: u32) -> (u8, u32) {
            (0, self.0.get(&address).copied().unwrap_or(0))
        }
        fn write(&mut self, address: u32, data: u32) -> u8 {
            self.0.insert(address, data);
            0
        }
    }

    fn feed(bridge: &mut BridgeModel, memory: &mut Memory, bytes: &[u8]) -> Vec<Answer> {
        bytes.iter().filter_map(|&b| bridge.receive(LineEvent::Byte(b), memory)).collect()
    }

    #[test]
    fn a_request_after_garbage_and_a_broken_request_executes_once() {
        let (mut bridge, mut memory) = (BridgeModel::new(), Memory::default());
        let write = Request::Write { address: 8, data: 0xCAFE }.emit();
        // garbage, then half a write that times out, then the write whole
        assert!(feed(&mut bridge, &mut memory, b"xyz").is_empty());
        assert!(feed(&mut bridge, &mut memory, &write[..4]).is_empty());
        assert_eq!(bridge.receive(LineEvent::Silence, &mut memory), None);
        let answers = feed(&mut bridge, &mut memory, &write);
        assert_eq!(
            answers,
            vec![Answer {
                write: true,
                resp: 0,
                data: 0
            }]
        );
        let read = feed(&mut bridge, &mut memory, &Request::Read { address: 8 }.emit());
        assert_eq!(read[0].data, 0xCAFE);
        assert_eq!(bridge.discards(Discard::UnknownCommand), 3);
        assert_eq!(bridge.discards(Discard::Timeout), 1);
        // a framing error drops the request it interrupts
        feed(&mut bridge, &mut memory, &write[..3]);
        bridge.receive(LineEvent::FramingError, &mut memory);
        assert!(feed(&mut bridge, &mut memory, &write[3..]).is_empty());
        assert_eq!(bridge.discards(Discard::Framing), 1);
    }
}
