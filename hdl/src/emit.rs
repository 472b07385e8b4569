//! Verilog emission: rust-hdl names every top `top` and its children `top$child`; Ferroce gives
//! each emitted top a unique `ferroce_` name so that all of them load into one Vivado project.

use rust_hdl::prelude::*;

/// Elaborates `uut` and returns its Verilog with `top` renamed to `module` and every child
/// module `top$a$b` renamed to `module__a__b`.
pub fn verilog<U: Block>(uut: &mut U, module: &str) -> String {
    uut.connect_all();
    rename(&generate_verilog(uut), module)
}

/// Renames the module identifiers rust-hdl generated.
pub fn rename(src: &str, module: &str) -> String {
    let mut out = String::with_capacity(src.len());
    let bytes = src.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let at_word_start = i == 0 || !is_ident(bytes[i - 1]);
        if at_word_start && src[i..].starts_with("top") && !bytes.get(i + 3).is_some_and(|&b| is_ident_no_dollar(b)) {
            // `top` or `top$child$grandchild`
            let mut j = i + 3;
            while j < bytes.len() && is_ident(bytes[j]) {
                j += 1;
            }
            out.push_str(module);
            out.push_str(&src[i + 3..j].replace('$', "__"));
            i = j;
        } else {
            out.push(bytes[i] as char);
            i += 1;
        }
    }
    out
}

fn is_ident(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'$'
}

fn is_ident_no_dollar(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// Runs `f` on a thread with a large stack: wide `Bits` live on the stack during elaboration.
pub fn with_big_stack<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    std::thread::Builder::new()
        .stack_size(1 << 30)
        .spawn(f)
        .expect("spawn elaboration thread")
        .join()
        .expect("elaboration panicked")
}

/// A port of an emitted module.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Port {
    /// Port name.
    pub name: String,
    /// Width in bits.
    pub width: usize,
    /// An input (else an output).
    pub input: bool,
}

/// The ports of `module` as rust-hdl declares them (`input wire  [511:0] s_axis_tdata;`).
pub fn ports(verilog: &str, module: &str) -> Vec<Port> {
    let start = verilog.find(&format!("module {module}(")).expect("top module in its file");
    let body = &verilog[start..];
    let body = &body[..body.find("endmodule").unwrap()];
    let mut ports = Vec::new();
    for line in body.lines().map(str::trim) {
        let (input, rest) = if let Some(r) = line.strip_prefix("input ") {
            (true, r)
        } else if let Some(r) = line.strip_prefix("output ") {
            (false, r)
        } else {
            continue;
        };
        let rest = rest.trim_start_matches("wire").trim_start_matches("reg").trim();
        let (width, name) = if let Some(r) = rest.strip_prefix('[') {
            let close = r.find(']').unwrap();
            let msb: usize = r[..close].split(':').next().unwrap().trim().parse().unwrap();
            (msb + 1, r[close + 1..].trim())
        } else {
            (1, rest)
        };
        ports.push(Port {
            name: name.trim_end_matches(';').trim().to_string(),
            width,
            input,
        });
    }
    ports
}

/// Runs `f` on every item on as many threads as there are cores (elaboration, Verilator and
/// yosys runs over many tops); the results come back in item order.
pub fn parallel_map<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get()).min(items.len().max(1));
    let next = std::sync::atomic::AtomicUsize::new(0);
    let mut out: Vec<(usize, R)> = std::thread::scope(|s| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                s.spawn(|| {
                    let mut done = Vec::new();
                    loop {
                        let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        let Some(item) = items.get(i) else { break done };
                        done.push((i, f(item)));
                    }
                })
            })
            .collect();
        workers.into_iter().flat_map(|w| w.join().expect("worker panicked")).collect()
    });
    out.sort_by_key(|(i, _)| *i);
    out.into_iter().map(|(_, r)| r).collect()
}
