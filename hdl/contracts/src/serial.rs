//! The serial register protocol: AXI4-Lite accesses to the register file over a UART, for boards
//! whose only link to a host is a USB UART (the Alchitry Cu's FTDI). `SerialBridge` (RTL) is the
//! board's end, `ferroce-ctl --device serial:PATH` the host's.
//!
//! The line is 8N1 (a start bit, eight data bits from the least significant, one stop bit; the
//! line idles high). The host sends one request and waits for its answer before the next:
//!
//! | request | bytes | answer | bytes |
//! |---|---|---|---|
//! | read | [`READ`], address (4, big-endian) | [`READ_ANSWER`] \| RESP, data (4, big-endian) | 5 |
//! | write | [`WRITE`], address (4), data (4, big-endian), all four byte strobes set | [`WRITE_ANSWER`] \| RESP | 1 |
//!
//! RESP is the AXI response of the access (0 OKAY, 2 SLVERR, 3 DECERR). Bytes the bridge cannot
//! use are discarded for a [`Discard`] reason, each counted: a request is never half executed,
//! and a host that lost its place (an unplugged cable, a killed tool) waits
//! [`TIMEOUT_BYTE_TIMES`] byte times of silence and starts again.

/// The baud rate of the boards' bridges: 1 Mbaud, 50 clocks per bit at the Alchitry Cu's 50 MHz.
pub const DEFAULT_BAUD: u32 = 1_000_000;

/// Bit times per byte on the line: start, eight data bits, stop.
pub const BIT_TIMES_PER_BYTE: u32 = 10;

/// A request's first byte: read.
pub const READ: u8 = b'R';

/// A request's first byte: write.
pub const WRITE: u8 = b'W';

/// An answer's first byte to a read, ORed with the response code (then four data bytes).
pub const READ_ANSWER: u8 = 0xA0;

/// An answer's first byte to a write, ORed with the response code.
pub const WRITE_ANSWER: u8 = 0xB0;

/// A request whose bytes stop arriving for this many byte times is discarded
/// ([`Discard::Timeout`]).
pub const TIMEOUT_BYTE_TIMES: u32 = 16;

/// Clocks per bit for a bridge clocked at `clock_hz` talking at `baud`, rounded to the nearest.
pub const fn clocks_per_bit(clock_hz: u64, baud: u32) -> u32 {
    ((clock_hz + baud as u64 / 2) / baud as u64) as u32
}

/// Why the bridge dropped bytes. Each reason has a counter (`discards_<name>` on the bridge).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum Discard {
    /// The first byte of a request is neither [`READ`] nor [`WRITE`]: that byte is dropped.
    UnknownCommand = 1,
    /// A byte's stop bit was low (a wrong baud rate, a glitch, a break): the byte and the
    /// request it was part of are dropped.
    Framing = 2,
    /// A request stopped for [`TIMEOUT_BYTE_TIMES`] byte times before its last byte: its bytes
    /// are dropped.
    Timeout = 3,
    /// A byte arrived while the bridge was still executing or answering a request (the host did
    /// not wait for the answer): the byte is dropped.
    Overrun = 4,
}

impl Discard {
    /// Every reason, in code order.
    pub const ALL: [Discard; 4] = [Discard::UnknownCommand, Discard::Framing, Discard::Timeout, Discard::Overrun];

    /// The reason's name (its counter is `discards_<name>`).
    pub const fn name(self) -> &'static str {
        match self {
            Discard::UnknownCommand => "unknown_command",
            Discard::Framing => "framing",
            Discard::Timeout => "timeout",
            Discard::Overrun => "overrun",
        }
    }

    /// What is dropped, in a few words (the counters' documentation).
    pub const fn description(self) -> &'static str {
        match self {
            Discard::UnknownCommand => "first bytes that are neither R nor W",
            Discard::Framing => "bytes whose stop bit was low, and the request they were part of",
            Discard::Timeout => "requests whose bytes stopped before their last one",
            Discard::Overrun => "bytes that arrived while a request was executed or answered",
        }
    }
}

/// A request from the host.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Request {
    /// Read the word at a byte address.
    Read {
        /// Byte address.
        address: u32,
    },
    /// Write a whole word at a byte address.
    Write {
        /// Byte address.
        address: u32,
        /// The word.
        data: u32,
    },
}

/// Why bytes are not a request or an answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ParseError {
    /// Fewer bytes than the message needs.
    Truncated,
    /// The first byte is not one the protocol defines.
    UnknownCommand(u8),
}

impl Request {
    /// Bytes of a request that starts with `command` (`None` for an unknown command).
    pub const fn length(command: u8) -> Option<usize> {
        match command {
            READ => Some(5),
            WRITE => Some(9),
            _ => None,
        }
    }

    /// The request's bytes on the line.
    pub fn emit(&self) -> Vec<u8> {
        match *self {
            Request::Read { address } => [&[READ][..], &address.to_be_bytes()].concat(),
            Request::Write { address, data } => [&[WRITE][..], &address.to_be_bytes(), &data.to_be_bytes()].concat(),
        }
    }

    /// The request at the start of `bytes`, and its length.
    pub fn parse(bytes: &[u8]) -> Result<(Request, usize), ParseError> {
        let command = *bytes.first().ok_or(ParseError::Truncated)?;
        let length = Request::length(command).ok_or(ParseError::UnknownCommand(command))?;
        let bytes = bytes.get(..length).ok_or(ParseError::Truncated)?;
        let word = |at: usize| u32::from_be_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]]);
        let request = match command {
            READ => Request::Read { address: word(1) },
            _ => Request::Write {
                address: word(1),
                data: word(5),
            },
        };
        Ok((request, length))
    }

    /// The byte address.
    pub fn address(&self) -> u32 {
        match *self {
            Request::Read { address } | Request::Write { address, .. } => address,
        }
    }
}

/// The bridge's answer to a request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Answer {
    /// The answer to a write (else a read).
    pub write: bool,
    /// The AXI response code (2 bits).
    pub resp: u8,
    /// A read's data (0 for a write).
    pub data: u32,
}

impl Answer {
    /// Bytes of an answer to a write (`true`) or a read.
    pub const fn length(write: bool) -> usize {
        if write {
            1
        } else {
            5
        }
    }

    /// The answer's bytes on the line.
    pub fn emit(&self) -> Vec<u8> {
        let resp = self.resp & 3;
        if self.write {
            vec![WRITE_ANSWER | resp]
        } else {
            [&[READ_ANSWER | resp][..], &self.data.to_be_bytes()].concat()
        }
    }

    /// The answer at the start of `bytes` to a write (`write`) or a read.
    pub fn parse(bytes: &[u8], write: bool) -> Result<Answer, ParseError> {
        let first = *bytes.first().ok_or(ParseError::Truncated)?;
        let expected = if write { WRITE_ANSWER } else { READ_ANSWER };
        if first & !3 != expected {
            return Err(ParseError::UnknownCommand(first));
        }
        let bytes = bytes.get(..Answer::length(write)).ok_or(ParseError::Truncated)?;
        let data = if write {
            0
        } else {
            u32::from_be_bytes([bytes[1], bytes[2], bytes[3], bytes[4]])
        };
        Ok(Answer {
            write,
            resp: first & 3,
            data,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_and_answers_round_trip() {
        for request in [
            Request::Read { address: 0x0001_2344 },
            Request::Write {
                address: 0xFFFF_FFFC,
                data: 0xDEAD_BEEF,
            },
        ] {
            let bytes = request.emit();
            assert_eq!(Request::length(bytes[0]), Some(bytes.len()));
            assert_eq!(Request::parse(&bytes), Ok((request, bytes.len())));
            assert_eq!(Request::parse(&bytes[..bytes.len() - 1]), Err(ParseError::Truncated));
        }
        assert_eq!(
            Request::Write {
                address: 0x10,
                data: 0x0102_0304
            }
            .emit(),
            b"W\x00\x00\x00\x10\x01\x02\x03\x04"
        );
        for answer in [
            Answer {
                write: false,
                resp: 3,
                data: 0x1234_5678,
            },
            Answer {
                write: true,
                resp: 2,
                data: 0,
            },
        ] {
            assert_eq!(Answer::parse(&answer.emit(), answer.write), Ok(answer));
            assert!(Answer::parse(&answer.emit(), !answer.write).is_err());
        }
        assert_eq!(Request::parse(b"X"), Err(ParseError::UnknownCommand(b'X')));
        assert_eq!(clocks_per_bit(100_000_000, DEFAULT_BAUD), 100);
    }
}
