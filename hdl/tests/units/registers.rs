use ferroce_contracts::regs::Config;
use ferroce_contracts::tx::{QP_CONTEXT_BITS, QP_CONTEXT_WORDS};
use ferroce_hdl::registers::*;

#[test]
fn a_2048_qp_table_elaborates() {
    let config = Config {
        qps: 2048,
        ..Config::DEFAULT
    };
    let verilog = ferroce_hdl::emit::with_big_stack(move || {
        ferroce_hdl::emit::verilog(&mut Registers::<11, 6, 11>::new(config), "ferroce_registers_q2048")
    });
    let ports = ferroce_hdl::emit::ports(&verilog, "ferroce_registers_q2048");
    let width = |n: &str| ports.iter().find(|p| p.name == n).map(|p| p.width);
    assert_eq!(width("qp_read_index"), Some(11));
    assert_eq!(width("qp_read_entry"), Some(QP_CONTEXT_BITS));
    assert_eq!(width("qp_rx_read_index"), Some(11));
    assert_eq!(
        verilog.matches("reg[31:0] mem[2047:0]").count(),
        2 * QP_CONTEXT_WORDS,
        "two 2048-entry RAMs per context word: the table and its copy"
    );
}
