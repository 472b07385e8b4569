// Ferroce on the Alchitry Cu (Lattice iCE40-HX8K, CB132): the scheduler build (the QoS
// scheduler of 64 nodes and 5 queues, its register file and the serial bridge,
// ferroce_serial_sched_n64_q5) on the board's FTDI USB UART at 1 Mbaud. The engine does not fit
// the HX8K (docs/boards.md). Structural but for the reset: the logic is in the generated module.
//
//  usb_rx (FTDI TX) ─► ferroce_serial_sched_n64_q5 ─► usb_tx (FTDI RX)
//                                                  ─► led[7:0]
//
// Clock: the board's 100 MHz oscillator (clk) into the PLL, whose 50 MHz (core_clock) runs
// everything: the scheduler's decision path places and routes at about 75 MHz on the HX8K.

`default_nettype none

module ferroce_board_alchitry_cu (
    input  wire       clk,
    input  wire       rst_n,
    input  wire       usb_rx,
    output wire       usb_tx,
    output wire [7:0] led
);

// ---- clock: 100 MHz in, 50 MHz out (icepll -i 100 -o 50: VCO 800 MHz) ----
wire core_clock;
wire pll_locked;
SB_PLL40_CORE #(
    .FEEDBACK_PATH("SIMPLE"),
    .DIVR(4'b0000),
    .DIVF(7'b0000111),
    .DIVQ(3'b100),
    .FILTER_RANGE(3'b101)
) pll (
    .REFERENCECLK(clk),
    .PLLOUTCORE(),
    .PLLOUTGLOBAL(core_clock),
    .EXTFEEDBACK(1'b0),
    .DYNAMICDELAY(8'd0),
    .LOCK(pll_locked),
    .BYPASS(1'b0),
    .RESETB(1'b1),
    .LATCHINPUTVALUE(1'b0),
    .SDO(),
    .SDI(1'b0),
    .SCLK(1'b0)
);

// ---- reset: asserted at once by the button (active low) or while the PLL is not locked,
// released synchronously ----
// iCE40 flip-flops are 0 after configuration, which is the reset state here: the core is also
// held in reset for the first cycles after configuration (power-on reset). After the button is
// released and the PLL locked, two synchronizer stages, then 256 cycles before the core leaves
// reset (release_count[8] set).
reg [1:0] button_released = 2'b00;
reg [8:0] release_count = 9'd0;
wire hold = !rst_n || !pll_locked;
always @(posedge core_clock or posedge hold) begin
    if (hold) begin
        button_released <= 2'b00;
        release_count <= 9'd0;
    end else begin
        button_released <= {button_released[0], 1'b1};
        if (button_released[1] && !release_count[8]) release_count <= release_count + 9'd1;
    end
end
wire core_reset = !release_count[8];

// ---- the scheduler build: 50 clocks per bit, 1 Mbaud at 50 MHz ----
wire core_tx;
ferroce_serial_sched_n64_q5 core (
    .clock(core_clock),
    .reset(core_reset),
    .clocks_per_bit(16'd50),
    .rx(usb_rx),
    .tx(core_tx),
    .leds(led)
);

// the line, registered: high while the core is in reset and from configuration on (the flip-flop
// holds it inverted, as it starts at 0)
reg usb_tx_low = 1'b0;
always @(posedge core_clock) usb_tx_low <= !(core_tx | core_reset);
assign usb_tx = !usb_tx_low;

endmodule

`default_nettype wire
