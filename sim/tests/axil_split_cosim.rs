//! The AXI4-Lite split's Verilog (`ferroce_axil_split_stream`) between a master and two slave
//! stand-ins: 600 random reads and writes (the stream block, its edges, the rest of the map)
//! four ways (master idle, backpressure and slave latency); every access reaches the port its
//! address names with its data and strobes, in order, and every answer returns to the master in
//! request order with that port's data and response (SLVERR passed through).

use ferroce_sim::axil_split_rtl::run;
use ferroce_sim::verilated::Traffic;

#[test]
fn accesses_go_to_the_port_of_their_address_and_answers_keep_their_order() {
    for (seed, idle_pct, bp_pct) in [(1, 0, 0), (2, 40, 0), (3, 0, 40), (4, 30, 30)] {
        let traffic = Traffic { idle_pct, bp_pct, seed };
        let got = run(600, &traffic).unwrap_or_else(|e| panic!("{traffic:?}: {e}"));
        assert_eq!(got.accesses.0 + got.accesses.1, 600);
        assert!(got.accesses.0 > 100 && got.accesses.1 > 100, "{got:?}");
        eprintln!("{traffic:?}: {} cycles for 600 accesses", got.cycles);
    }
}
