// The iCE40 primitives the Alchitry Cu's board top instantiates, as blackboxes with their
// documented ports, for Verilator's lint (yosys's synth_ice40 knows them).
`default_nettype none

/* verilator lint_off UNUSEDSIGNAL */
/* verilator lint_off UNDRIVEN */
module SB_PLL40_CORE #(
    parameter FEEDBACK_PATH = "SIMPLE",
    parameter DELAY_ADJUSTMENT_MODE_FEEDBACK = "FIXED",
    parameter DELAY_ADJUSTMENT_MODE_RELATIVE = "FIXED",
    parameter SHIFTREG_DIV_MODE = 1'b0,
    parameter FDA_FEEDBACK = 4'b0000,
    parameter FDA_RELATIVE = 4'b0000,
    parameter PLLOUT_SELECT = "GENCLK",
    parameter DIVR = 4'b0000,
    parameter DIVF = 7'b0000000,
    parameter DIVQ = 3'b000,
    parameter FILTER_RANGE = 3'b000,
    parameter ENABLE_ICEGATE = 1'b0,
    parameter TEST_MODE = 1'b0,
    parameter EXTERNAL_DIVIDE_FACTOR = 1
) (
    input  wire       REFERENCECLK,
    output wire       PLLOUTCORE,
    output wire       PLLOUTGLOBAL,
    input  wire       EXTFEEDBACK,
    input  wire [7:0] DYNAMICDELAY,
    output wire       LOCK,
    input  wire       BYPASS,
    input  wire       RESETB,
    input  wire       LATCHINPUTVALUE,
    output wire       SDO,
    input  wire       SDI,
    input  wire       SCLK
);
endmodule
/* verilator lint_on UNDRIVEN */
/* verilator lint_on UNUSEDSIGNAL */

`default_nettype wire
