//! Measuring QoS on the wire: the bytes each queue sent while every queue of interest still had
//! frames to send.

/// The share of the wire each queue of `queues` took while all of them were backlogged: `frames`
/// are `(queue, bytes)` in wire order; the window ends with the frame after which the first of
/// `queues` has no frame left. Returns the bytes of each queue of `queues` in that window (in
/// the order of `queues`), or `None` if one of them sent nothing.
pub fn backlogged_bytes(frames: &[(u32, u64)], queues: &[u32]) -> Option<Vec<u64>> {
    let last = |q: u32| frames.iter().rposition(|&(fq, _)| fq == q);
    let window_end = queues.iter().map(|&q| last(q)).collect::<Option<Vec<usize>>>()?.into_iter().min()?;
    Some(
        queues
            .iter()
            .map(|&q| frames[..=window_end].iter().filter(|&&(fq, _)| fq == q).map(|&(_, b)| b).sum())
            .collect(),
    )
}

/// The largest relative deviation of `bytes` from the shares `weights` (both in the same order):
/// `max |bytes_i / Σ bytes − w_i / Σ w| / (w_i / Σ w)`.
pub fn deviation_from_weights(bytes: &[u64], weights: &[u32]) -> f64 {
    let total: u64 = bytes.iter().sum();
    let weight_total: u32 = weights.iter().sum();
    bytes
        .iter()
        .zip(weights)
        .map(|(&b, &w)| {
            let want = f64::from(w) / f64::from(weight_total);
            (b as f64 / total as f64 - want).abs() / want
        })
        .fold(0.0, f64::max)
}
