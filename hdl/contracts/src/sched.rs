//! Scheduler contracts: the layout of its configuration registers (`cfg_*` port of `Sched`),
//! read by the scheduler's RTL, its model and the register map.
//!
//! Register `q` (0 ≤ q < queues) of the `cfg_addr` space is queue q's configuration word, a
//! [`QUEUE_CONFIG`] entry; register [`HIGH_LIMIT_ADDR`] is the limit of high priority, a
//! [`HIGH_LIMIT`] entry; register [`PACE_COST_ADDR`] + q is queue q's pacer cost (cycles per
//! byte, [`PACE_FRACTION_BITS`] fraction bits; 0: not paced), which the TX path's pacers take.
//! A write takes effect in the next cycle.

use crate::schema::{RecordField, Schema};

/// Queues a scheduler can have (the queue fields are 5 bits wide).
pub const MAX_QUEUES: usize = 32;

/// Bits of the scheduler's `cfg_addr`.
pub const CFG_ADDR_BITS: usize = 7;

/// The fields of a queue configuration word, in packing order (bits 7:0, 15:8, 23:16, 24, 25).
pub mod queue {
    use crate::schema::RecordField;

    /// Weight.
    pub const WEIGHT: RecordField = RecordField::new(
        "weight",
        8,
        "WRR weight in decisions (blocks); 0 takes the queue out of arbitration (ignored for queue 0)",
    );
    /// Token rate.
    pub const RATE: RecordField = RecordField::new("rate", 8, "tokens added per cycle, in 1/256 token");
    /// Burst.
    pub const BURST: RecordField = RecordField::new("burst", 8, "token bucket capacity in whole tokens");
    /// High-priority table.
    pub const HIGH_TABLE: RecordField = RecordField::new(
        "high_table",
        1,
        "the queue is in the high-priority table (else the low-priority one; ignored for queue 0)",
    );
    /// Token bucket enable.
    pub const BUCKET_ENABLE: RecordField = RecordField::new(
        "bucket_enable",
        1,
        "token bucket enabled: the queue is eligible only with a whole token",
    );

    /// Every field, in packing order.
    pub const FIELDS: [RecordField; 5] = [WEIGHT, RATE, BURST, HIGH_TABLE, BUCKET_ENABLE];
}

/// A queue configuration word (register address = queue number).
pub const QUEUE_CONFIG: Schema = Schema {
    name: "queue_config",
    fields: &queue::FIELDS,
};

/// Reset value of a queue configuration word: weight 1, high-priority table, no rate limit.
pub const QUEUE_CONFIG_RESET: u32 = 0x0100_0001;

/// The field of the limit of high priority.
pub const LIMIT: RecordField = RecordField::new(
    "limit",
    8,
    "high-priority decisions in a row while the low-priority table has an eligible queue",
);

/// The limit of high priority: one field in bits 7:0.
pub const HIGH_LIMIT: Schema = Schema {
    name: "high_limit",
    fields: &[LIMIT],
};

/// Register address (`cfg_addr`) of the limit of high priority.
pub const HIGH_LIMIT_ADDR: u32 = 64;

/// Reset value of the limit of high priority.
pub const HIGH_LIMIT_RESET: u32 = 255;

/// The field of a pacer cost.
pub const COST: RecordField = RecordField::new(
    "cost",
    32,
    "cycles per payload byte, 8 bits of whole cycles and 24 of fraction (0: not paced)",
);

/// A queue's pacer cost: one field of 32 bits.
pub const PACE_COST: Schema = Schema {
    name: "pace_cost",
    fields: &[COST],
};

/// Register address (`cfg_addr`) of queue 0's pacer cost; queue q's is `PACE_COST_ADDR + q`.
pub const PACE_COST_ADDR: u32 = 96;

/// Fraction bits of a pacer's cost (cycles per byte) and of its wait.
pub const PACE_FRACTION_BITS: u32 = 24;

/// Bits of a pacer's cost: 8 bits of whole cycles per byte (at most 256: 1.26 MB/s at
/// 322 MHz) and [`PACE_FRACTION_BITS`] of fraction.
pub const PACE_COST_BITS: usize = 32;

/// A pacer's cost, cycles per byte in fixed point ([`PACE_FRACTION_BITS`] fraction bits), for
/// `rate_bytes_per_second` on a clock of `clock_hz`: rounded to the nearest, at least one unit.
/// A pacer register holds it when it fits [`PACE_COST_BITS`] (rates from 1.26 MB/s at 322 MHz).
pub fn pace_cost(rate_bytes_per_second: u64, clock_hz: u64) -> u64 {
    let rate = u128::from(rate_bytes_per_second.max(1));
    let scaled = (u128::from(clock_hz) << PACE_FRACTION_BITS) + rate / 2;
    u64::try_from(scaled / rate).unwrap_or(u64::MAX).max(1)
}

/// A rate in bytes per second as a user writes it: a number with an optional k, M or G (powers
/// of 1000), as `250M` or `2.5G`.
pub fn parse_rate(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let (digits, scale) = match t.char_indices().last() {
        Some((i, 'k' | 'K')) => (&t[..i], 1e3),
        Some((i, 'M')) => (&t[..i], 1e6),
        Some((i, 'G')) => (&t[..i], 1e9),
        _ => (t, 1.0),
    };
    match digits.parse::<f64>() {
        Ok(v) if v.is_finite() && v >= 0.0 && v * scale < 1e15 => Ok((v * scale).round() as u64),
        _ => Err(format!("'{s}' is not a rate in bytes per second (as 250M or 2.5G)")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates_and_costs() {
        assert_eq!(parse_rate("2.5G"), Ok(2_500_000_000));
        assert_eq!(parse_rate("250M"), Ok(250_000_000));
        assert_eq!(parse_rate("12k"), Ok(12_000));
        assert_eq!(parse_rate("77"), Ok(77));
        assert!(parse_rate("fast").unwrap_err().contains("not a rate"));
        assert!(parse_rate("-1G").is_err());
        // 1 GB/s at the CMAC's clock: 0.322265625 cycles a byte, exactly
        assert_eq!(pace_cost(1_000_000_000, 322_265_625), 5_406_720);
    }

    #[test]
    fn queue_word_layout_is_the_schedulers() {
        let offsets: Vec<usize> = QUEUE_CONFIG.placements().iter().map(|p| p.offset).collect();
        assert_eq!(offsets, [0, 8, 16, 24, 25]);
        assert_eq!(QUEUE_CONFIG.words(), 1);
        let reset = QUEUE_CONFIG.encode(&[("weight", 1), ("high_table", 1)]).unwrap();
        assert_eq!(reset, [QUEUE_CONFIG_RESET]);
        assert!(HIGH_LIMIT_ADDR >= MAX_QUEUES as u32 && HIGH_LIMIT_ADDR < 1 << CFG_ADDR_BITS);
        assert_eq!(HIGH_LIMIT.encode(&[("limit", 255)]).unwrap(), [HIGH_LIMIT_RESET]);
    }
}
