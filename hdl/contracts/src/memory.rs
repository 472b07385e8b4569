//! The engine's memory side as its AXI4 master issues it: every read or write command (an
//! address and 1 to [`MAX_COMMAND`] bytes) becomes INCR bursts of full-width beats, each inside
//! one block of [`block_bytes`]: never across a 4 KiB boundary, never more than 256 beats.

/// AXI4: no burst crosses a boundary of this many bytes.
pub const BOUNDARY: u64 = 4096;

/// AXI4: the most beats of an INCR burst.
pub const MAX_BEATS: u64 = 256;

/// The most bytes of one read or write command (a packet's payload at PMTU 4096).
pub const MAX_COMMAND: u64 = 4096;

/// AXI4 `xRESP` of a transfer that went well (OKAY); anything else is an error.
pub const RESPONSE_OKAY: u8 = 0;

/// The block a burst stays in: 4 KiB, or 256 beats when that is less (64-bit beats).
pub const fn block_bytes(bytes_per_beat: u64) -> u64 {
    if MAX_BEATS * bytes_per_beat < BOUNDARY {
        MAX_BEATS * bytes_per_beat
    } else {
        BOUNDARY
    }
}

/// One burst: its first beat's address (a multiple of the beat size) and its beats.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Burst {
    /// Address of the first beat.
    pub address: u64,
    /// Beats (1 to [`MAX_BEATS`]); AXI's `xLEN` is this minus one.
    pub beats: u64,
}

/// The bursts of a command of `length` bytes (at least 1) at `address`, in order: the beats that
/// hold its bytes, cut at every block boundary.
pub fn bursts(address: u64, length: u64, bytes_per_beat: u64) -> Vec<Burst> {
    assert!(length >= 1, "a command moves at least one byte");
    let block = block_bytes(bytes_per_beat);
    let end = address + length;
    let mut start = address - address % bytes_per_beat;
    let mut out = Vec::new();
    while start < end {
        let block_end = (start / block + 1) * block;
        let stop = block_end.min(end.div_ceil(bytes_per_beat) * bytes_per_beat);
        out.push(Burst {
            address: start,
            beats: (stop - start) / bytes_per_beat,
        });
        start = stop;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_command_is_cut_at_block_boundaries_only() {
        assert_eq!(
            bursts(0x1000, 4096, 64),
            [Burst {
                address: 0x1000,
                beats: 64
            }]
        );
        assert_eq!(
            bursts(0x1fc1, 100, 64),
            [Burst { address: 0x1fc0, beats: 1 }, Burst { address: 0x2000, beats: 1 }]
        );
        assert_eq!(
            bursts(0x0ffc, 8, 128),
            [Burst { address: 0x0f80, beats: 1 }, Burst { address: 0x1000, beats: 1 }]
        );
        // 64-bit beats: blocks of 2 KiB (256 beats)
        assert_eq!(
            bursts(0x7ff, 4096, 8),
            [
                Burst { address: 0x7f8, beats: 1 },
                Burst {
                    address: 0x800,
                    beats: 256
                },
                Burst {
                    address: 0x1000,
                    beats: 256
                },
            ]
        );
        for (address, length, k) in [
            (3u64, 4096u64, 8u64),
            (0xfff, 1, 64),
            (0x12345, 4000, 16),
            (0xffff_ffff_0000_0ff0, 4096, 64),
        ] {
            let b = bursts(address, length, k);
            assert_eq!(
                b.iter().map(|b| b.beats * k).sum::<u64>(),
                (address + length - 1) / k * k + k - address / k * k
            );
            assert!(b
                .iter()
                .all(|b| b.beats <= MAX_BEATS && b.address / block_bytes(k) == (b.address + b.beats * k - 1) / block_bytes(k)));
        }
    }
}
