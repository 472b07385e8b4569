use ferroce_sim::icrc::*;
use ferroce_sim::verilated::Traffic;
use ferroce_sim::wire::gen::FrameGen;
fn main() {
    let w: usize = std::env::args().nth(1).map(|s| s.parse().unwrap()).unwrap_or(512);
    let n: usize = std::env::args().nth(2).map(|s| s.parse().unwrap()).unwrap_or(20);
    let mut g = FrameGen::new(7);
    let frames: Vec<Vec<u8>> = (0..n).map(|_| g.any()).collect();
    let (run, res) = check_rtl(&frames, w, Traffic::FULL).unwrap();
    let mut bad = 0;
    for (i, f) in frames.iter().enumerate() {
        let m = check_model(f);
        if run.frames[i].bytes != *f || m != res[i] {
            bad += 1;
            if bad < 6 { println!("frame {i} len {} model {:?} rtl {:?} same_bytes {}", f.len(), m, res[i], run.frames[i].bytes == *f); }
        }
    }
    println!("check: {bad} mismatches of {n}, cycles {} beats {}", run.cycles, run.beats_in);
    let ins: Vec<Vec<u8>> = frames.iter().map(|f| match ferroce_sim::wire::icrc::locate(f) { Some((l2, iplen, _)) if l2 + iplen <= f.len() && iplen >= 4 => f[..l2 + iplen - 4].to_vec(), _ => f.clone() }).collect();
    let run = insert_rtl(&ins, w, Traffic::FULL).unwrap();
    let mut bad = 0;
    for (i, f) in ins.iter().enumerate() {
        let e = insert_model(f);
        if run.frames[i].bytes != e { bad += 1; if bad < 6 { println!("ins frame {i} len {} exp {} got {}", f.len(), e.len(), run.frames[i].bytes.len()); } }
    }
    println!("insert: {bad} mismatches of {n}, cycles {} beats out {}", run.cycles, run.beats_out);
}
