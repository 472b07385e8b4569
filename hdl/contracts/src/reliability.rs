//! RC requester reliability: the retry timer's time base, its events and the actions it takes
//! (the unit `RetryTimer` and its model `ferroce_models::tx::retry`).
//!
//! Time is counted in ticks of [`TICK_NANOS`] (4.096 µs, the unit of the local ACK timeout), so
//! a QP's deadline does not depend on the clock: a board sets how many clock cycles make a tick
//! ([`tick_cycles`]). Deadlines are 32-bit tick counts compared in serial arithmetic (a deadline
//! is due when `now − deadline` modulo 2^32 is below 2^31), which holds every timeout the 5-bit
//! exponent can name, 2^31 ticks (2.4 hours) included.

/// One tick of the time base, in nanoseconds: the local ACK timeout's unit (4.096 µs).
pub const TICK_NANOS: u64 = 4096;

/// Clock cycles per tick at a clock of `clock_hz`, rounded to the nearest (at least 1):
/// 1,320 at the CMAC's 322.265625 MHz, 1,024 at 250 MHz, 410 at 100 MHz.
pub const fn tick_cycles(clock_hz: u64) -> u64 {
    let cycles = (clock_hz * TICK_NANOS + 500_000_000) / 1_000_000_000;
    if cycles == 0 {
        1
    } else {
        cycles
    }
}

/// Bits of the tick counter and of a deadline.
pub const TIME_BITS: usize = 32;

/// The longest wait a deadline can hold, in ticks (half the counter's range).
pub const MAX_WAIT_TICKS: u64 = 1 << (TIME_BITS - 1);

/// Ticks of a transport timeout of exponent `exponent` (4.096 µs × 2^exponent): at least that
/// long whatever the phase of the tick the timer is started in (one tick more), at most
/// [`MAX_WAIT_TICKS`]. Exponent 0 (no timeout) and exponents beyond 31 give 0.
pub const fn timeout_ticks(exponent: u8) -> u64 {
    if exponent == 0 || exponent > 31 {
        return 0;
    }
    let ticks = (1u64 << exponent) + 1;
    if ticks > MAX_WAIT_TICKS {
        MAX_WAIT_TICKS
    } else {
        ticks
    }
}

/// Ticks of the RNR wait of a 5-bit timer code (the IBTA table,
/// [`crate::responder::RNR_TIMER_10US`]), rounded up, plus one for the tick's phase; 0 beyond 31.
pub const fn rnr_wait_ticks(code: u8) -> u64 {
    if code > crate::responder::RNR_TIMER_MAX {
        return 0;
    }
    let nanos = crate::responder::RNR_TIMER_10US[code as usize] as u64 * 10_000;
    nanos.div_ceil(TICK_NANOS) + 1
}

/// An RNR retry count of 7 retries for ever.
pub const RNR_RETRY_FOREVER: u8 = 7;

/// The retry timer's events and its scan over the QPs share one operation at a time: while
/// events keep coming, the scan takes one turn after every `EVENTS_PER_SCAN` events (an RC
/// transfer brings two events, its block's `sent` and its ACK's notice; a scan round then takes
/// `EVENTS_PER_SCAN + 1` operations per QP).
pub const EVENTS_PER_SCAN: u32 = 3;

/// What the requester tells the retry timer about a QP. The discriminant is the code on the
/// timer's event port.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum TimerEvent {
    /// A request packet left: the timer starts if it is stopped (and the QP has a timeout),
    /// with the retry counters full; the QP's timeout and retry limits are kept (0).
    Sent = 0,
    /// An ACK acknowledged new PSNs and some are still outstanding: the counters are refilled,
    /// the timer restarts (unless an RNR wait runs) (1).
    Progress = 1,
    /// Everything sent is acknowledged: the timer stops, the counters are refilled (2).
    Idle = 2,
    /// A PSN sequence error NAK: one transport retry (go back at once), or retries exhausted (3).
    SequenceNak = 3,
    /// An RNR NAK: the RNR wait of its timer code starts, or RNR retries exhausted (4).
    RnrNak = 4,
    /// The QP was reset or reprogrammed: its timer state is cleared (5).
    Clear = 5,
}

impl TimerEvent {
    /// Every event.
    pub const ALL: [TimerEvent; 6] = [
        TimerEvent::Sent,
        TimerEvent::Progress,
        TimerEvent::Idle,
        TimerEvent::SequenceNak,
        TimerEvent::RnrNak,
        TimerEvent::Clear,
    ];

    /// The code.
    pub const fn code(self) -> u8 {
        self as u8
    }

    /// The event of a code, if it is one.
    pub fn from_code(code: u8) -> Option<TimerEvent> {
        Self::ALL.into_iter().find(|e| e.code() == code)
    }

    /// snake_case name.
    pub const fn name(self) -> &'static str {
        match self {
            TimerEvent::Sent => "sent",
            TimerEvent::Progress => "progress",
            TimerEvent::Idle => "idle",
            TimerEvent::SequenceNak => "sequence_nak",
            TimerEvent::RnrNak => "rnr_nak",
            TimerEvent::Clear => "clear",
        }
    }
}

/// Bits of a [`TimerEvent`] code.
pub const TIMER_EVENT_BITS: usize = 3;

/// What the retry timer tells the requester to do with a QP. The discriminant is the code on
/// the timer's action port.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum TimerAction {
    /// The transport timeout expired with retries left: go back to the first unacknowledged
    /// PSN (0).
    Timeout = 0,
    /// A PSN sequence error NAK with retries left: go back to the PSN it names (1).
    Retransmit = 1,
    /// An RNR wait is over: send again from the PSN the RNR NAK named (2).
    RnrWaited = 2,
    /// A timeout or a sequence NAK found no transport retry left: the QP's transfers complete
    /// with an error, the QP goes to its error state (3).
    RetriesExhausted = 3,
    /// An RNR NAK found no RNR retry left: as [`TimerAction::RetriesExhausted`] (4).
    RnrRetriesExhausted = 4,
}

impl TimerAction {
    /// Every action.
    pub const ALL: [TimerAction; 5] = [
        TimerAction::Timeout,
        TimerAction::Retransmit,
        TimerAction::RnrWaited,
        TimerAction::RetriesExhausted,
        TimerAction::RnrRetriesExhausted,
    ];

    /// The code.
    pub const fn code(self) -> u8 {
        self as u8
    }

    /// The action of a code, if it is one.
    pub fn from_code(code: u8) -> Option<TimerAction> {
        Self::ALL.into_iter().find(|a| a.code() == code)
    }

    /// snake_case name.
    pub const fn name(self) -> &'static str {
        match self {
            TimerAction::Timeout => "timeout",
            TimerAction::Retransmit => "retransmit",
            TimerAction::RnrWaited => "rnr_waited",
            TimerAction::RetriesExhausted => "retries_exhausted",
            TimerAction::RnrRetriesExhausted => "rnr_retries_exhausted",
        }
    }

    /// The requester sends again from a PSN.
    pub const fn sends_again(self) -> bool {
        matches!(self, TimerAction::Timeout | TimerAction::Retransmit | TimerAction::RnrWaited)
    }
}

/// Bits of a [`TimerAction`] code.
pub const TIMER_ACTION_BITS: usize = 3;

/// The fields of a block the requester keeps until its packets are acknowledged (the
/// packetizer's block command, less what the QP context gives again), to cut it again when it
/// goes back N; in packing order.
pub mod sent_block {
    use crate::schema::RecordField;

    const fn f(name: &'static str, width: usize, doc: &'static str) -> RecordField {
        RecordField::new(name, width, doc)
    }

    /// Remote address.
    pub const VA: RecordField = f("va", 64, "remote address of the block's first byte (RETH VA of a WRITE)");
    /// Local address.
    pub const LOCAL: RecordField = f("local", 64, "local address of the block's first byte");
    /// Immediate.
    pub const IMMEDIATE: RecordField = f(
        "immediate",
        32,
        "the immediate of the message's last packet; in a WRITE block that starts its message and does not end it (a WRITE as one message), the message's length (its RETH's)",
    );
    /// Channel.
    pub const CHANNEL: RecordField = f("channel", 16, "the transfer's channel");
    /// WRITE.
    pub const WRITE: RecordField = f("write", 1, "RDMA WRITE opcodes (else SEND)");
    /// Message start.
    pub const MESSAGE_FIRST: RecordField = f("message_first", 1, "its first packet is its message's first");
    /// Message end.
    pub const MESSAGE_ENDS: RecordField = f("message_ends", 1, "its last packet is its message's last");
    /// Transfer end.
    pub const TRANSFER_ENDS: RecordField = f("transfer_ends", 1, "its last packet is its transfer's last");
    /// ImmDt.
    pub const HAS_IMMEDIATE: RecordField = f("has_immediate", 1, "the message's last packet carries an ImmDt");
    /// SE.
    pub const SOLICITED: RecordField = f("solicited", 1, "the message's last packet has SE");
    /// AckReq count.
    pub const SINCE_ACK: RecordField = f(
        "since_ack",
        8,
        "packets since the last AckReq before its first packet (so a packet sent again has the same AckReq)",
    );
    /// Length.
    pub const LENGTH: RecordField = f("length", 21, "its bytes (RETH DMA length of a WRITE; a block is at most 1 MiB)");
    /// R_Key.
    pub const RKEY: RecordField = f("rkey", 32, "the R_Key its RETH carries");
    /// Transport.
    pub const TRANSPORT: RecordField = f("transport", 3, "the QP's transport (opcode bits 7:5)");
    /// AckReq period.
    pub const ACK_EVERY: RecordField = f("ack_every", 8, "AckReq every N packets (0: on message ends only)");
    /// Path MTU.
    pub const PMTU: RecordField = f("pmtu", 13, "the path MTU in bytes it was cut with");
    /// RDMA READ.
    pub const READ: RecordField = f(
        "read",
        1,
        "an RDMA READ block: one request whose response takes a PSN per PMTU of its length (sent again from a PSN inside it: the rest asked for)",
    );

    /// Every field, in packing order.
    pub const FIELDS: [RecordField; 17] = [
        VA,
        LOCAL,
        IMMEDIATE,
        CHANNEL,
        WRITE,
        MESSAGE_FIRST,
        MESSAGE_ENDS,
        TRANSFER_ENDS,
        HAS_IMMEDIATE,
        SOLICITED,
        SINCE_ACK,
        LENGTH,
        RKEY,
        TRANSPORT,
        ACK_EVERY,
        PMTU,
        READ,
    ];
}

/// A sent block: one packed entry.
pub const SENT_BLOCK: crate::schema::Schema = crate::schema::Schema {
    name: "sent_block",
    fields: &sent_block::FIELDS,
};

/// 32-bit words of a sent block ([`SENT_BLOCK`] packs into exactly these; a const for RTL widths).
pub const SENT_BLOCK_WORDS: usize = 9;
/// Bits of a sent block.
pub const SENT_BLOCK_BITS: usize = 32 * SENT_BLOCK_WORDS;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks_of_the_clocks_boards_use() {
        assert_eq!(tick_cycles(322_265_625), 1320);
        assert_eq!(tick_cycles(250_000_000), 1024);
        assert_eq!(tick_cycles(100_000_000), 410);
        assert_eq!(tick_cycles(1), 1);
    }

    #[test]
    fn timeouts_and_rnr_waits_in_ticks() {
        assert_eq!(timeout_ticks(0), 0);
        assert_eq!(timeout_ticks(1), 3);
        assert_eq!(timeout_ticks(14), (1 << 14) + 1);
        assert_eq!(timeout_ticks(30), (1 << 30) + 1);
        assert_eq!(timeout_ticks(31), MAX_WAIT_TICKS);
        // 0.01 ms is 2.44 ticks: 3, and one for the phase
        assert_eq!(rnr_wait_ticks(1), 4);
        // 655.36 ms is exactly 160,000 ticks
        assert_eq!(rnr_wait_ticks(0), 160_001);
        assert!((0..=31).all(|c| rnr_wait_ticks(c) * TICK_NANOS >= u64::from(crate::responder::RNR_TIMER_10US[c as usize]) * 10_000));
    }

    #[test]
    fn a_sent_block_packs_into_its_words() {
        assert_eq!(SENT_BLOCK.words(), SENT_BLOCK_WORDS);
    }

    #[test]
    fn codes_round_trip() {
        assert!(TimerEvent::ALL.iter().all(|&e| TimerEvent::from_code(e.code()) == Some(e)));
        assert!(TimerAction::ALL.iter().all(|&a| TimerAction::from_code(a.code()) == Some(a)));
        assert!(TimerEvent::ALL.iter().all(|e| e.code() < 1 << TIMER_EVENT_BITS));
        assert!(TimerAction::ALL.iter().all(|a| a.code() < 1 << TIMER_ACTION_BITS));
    }
}
