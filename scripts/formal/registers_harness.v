// Formal harness of the register file (ferroce_registers_c64_q16): every input is free (the
// solver chooses it each cycle) except that the AXI4-Lite master keeps its own handshake rules
// (valid held until ready, payload stable meanwhile) and reset is high in the first cycle.
// Asserted, every cycle:
//  - B, R and the post stream keep the handshake rules (valid held until ready, payload stable);
//  - no response without a request (B after both AW and W, R after AR);
//  - with READY_ALWAYS (the master takes every response at once): a write whose AW and W are
//    both in is answered within BOUND cycles, and so is a read whose AR is in.
// scripts/formal_registers.sh runs it with yosys's SAT solver (`sat -seq`).
module ferroce_registers_formal #(parameter READY_ALWAYS = 0, parameter BOUND = 15) (input clock);
    (* anyseq *) wire reset_free;
    (* anyseq *) wire awvalid, wvalid, arvalid, bready_free, rready_free;
    (* anyseq *) wire [18:0] awaddr, araddr;
    (* anyseq *) wire [31:0] wdata;
    (* anyseq *) wire [3:0] wstrb;
    (* anyseq *) wire [3:0] qp_read_index;
    (* anyseq *) wire post_ready, post_result_valid, cpl_valid;
    (* anyseq *) wire [2:0] post_result_code;
    (* anyseq *) wire [15:0] cpl_channel;
    (* anyseq *) wire [3:0] cpl_status;
    (* anyseq *) wire [31:0] counter;
    wire awready, wready, bvalid, arready, rvalid, post_valid, qp_commit_valid, cpl_ready, sched_cfg_we;
    wire [1:0] bresp, rresp;
    wire [31:0] rdata, sched_cfg_wdata, cfg_local_ipv4;
    wire [255:0] post_entry;
    wire [639:0] qp_read_entry;
    wire [3:0] qp_commit_index;
    wire [6:0] sched_cfg_addr;
    wire [4:0] cfg_block_log2;
    wire [47:0] cfg_local_mac;
    wire [127:0] cfg_local_ipv6;
    wire bready = READY_ALWAYS ? 1'b1 : bready_free;
    wire rready = READY_ALWAYS ? 1'b1 : rready_free;

    reg first = 1'b1;
    always @(posedge clock) first <= 1'b0;
    wire reset = first | reset_free;

    ferroce_registers_c64_q16 dut(
        .clock(clock), .reset(reset),
        .s_axil_awvalid(awvalid), .s_axil_awready(awready), .s_axil_awaddr(awaddr),
        .s_axil_wvalid(wvalid), .s_axil_wready(wready), .s_axil_wdata(wdata), .s_axil_wstrb(wstrb),
        .s_axil_bvalid(bvalid), .s_axil_bready(bready), .s_axil_bresp(bresp),
        .s_axil_arvalid(arvalid), .s_axil_arready(arready), .s_axil_araddr(araddr),
        .s_axil_rvalid(rvalid), .s_axil_rready(rready), .s_axil_rdata(rdata), .s_axil_rresp(rresp),
        .qp_read_index(qp_read_index), .qp_read_entry(qp_read_entry),
        .qp_commit_valid(qp_commit_valid), .qp_commit_index(qp_commit_index),
        .post_valid(post_valid), .post_ready(post_ready), .post_entry(post_entry),
        .post_result_valid(post_result_valid), .post_result_code(post_result_code),
        .cpl_valid(cpl_valid), .cpl_ready(cpl_ready), .cpl_channel(cpl_channel), .cpl_status(cpl_status),
        .cnt_frames_in(counter), .cnt_accepted(counter), .cnt_passed(counter),
        .cnt_drop_ip_header(counter), .cnt_drop_truncated(counter), .cnt_drop_ip_length(counter),
        .cnt_drop_ip_checksum(counter), .cnt_drop_ip_fragment(counter), .cnt_drop_udp_length(counter),
        .cnt_drop_tver(counter), .cnt_drop_opcode(counter), .cnt_drop_padcnt(counter),
        .cnt_drop_icrc(counter), .cnt_dup(counter), .cnt_bad_queue(counter),
        .sched_cfg_we(sched_cfg_we), .sched_cfg_addr(sched_cfg_addr), .sched_cfg_wdata(sched_cfg_wdata),
        .cfg_block_log2(cfg_block_log2), .cfg_local_mac(cfg_local_mac),
        .cfg_local_ipv4(cfg_local_ipv4), .cfg_local_ipv6(cfg_local_ipv6));

    // the master's rules
    reg aw_held = 0, w_held = 0, ar_held = 0;
    reg [18:0] awaddr_q, araddr_q;
    reg [31:0] wdata_q;
    reg [3:0] wstrb_q;
    always @(posedge clock) begin
        aw_held <= !reset && awvalid && !awready;
        w_held <= !reset && wvalid && !wready;
        ar_held <= !reset && arvalid && !arready;
        awaddr_q <= awaddr;
        araddr_q <= araddr;
        wdata_q <= wdata;
        wstrb_q <= wstrb;
    end
    always @(*) begin
        if (aw_held && !reset) assume(awvalid && awaddr == awaddr_q);
        if (w_held && !reset) assume(wvalid && wdata == wdata_q && wstrb == wstrb_q);
        if (ar_held && !reset) assume(arvalid && araddr == araddr_q);
    end

    // the slave's rules
    reg b_held = 0, r_held = 0, post_held = 0;
    reg [1:0] bresp_q, rresp_q;
    reg [31:0] rdata_q;
    reg [255:0] post_entry_q;
    always @(posedge clock) begin
        b_held <= !reset && bvalid && !bready;
        r_held <= !reset && rvalid && !rready;
        post_held <= !reset && post_valid && !post_ready;
        bresp_q <= bresp;
        rresp_q <= rresp;
        rdata_q <= rdata;
        post_entry_q <= post_entry;
    end
    always @(*) begin
        if (!reset && b_held) assert(bvalid && bresp == bresp_q);
        if (!reset && r_held) assert(rvalid && rresp == rresp_q && rdata == rdata_q);
        if (!reset && post_held) assert(post_valid && post_entry == post_entry_q);
        if (!reset) assert(bresp != 2'b01 && rresp != 2'b01);
    end

    // requests and responses counted: no response without its request, and a bounded wait
    reg [3:0] aw_taken = 0, w_taken = 0, b_taken = 0, ar_taken = 0, r_taken = 0;
    reg [5:0] write_age = 0, read_age = 0;
    wire write_in = aw_taken != b_taken && w_taken != b_taken;
    wire read_in = ar_taken != r_taken;
    always @(posedge clock) begin
        if (reset) begin
            aw_taken <= 0; w_taken <= 0; b_taken <= 0; ar_taken <= 0; r_taken <= 0;
            write_age <= 0; read_age <= 0;
        end else begin
            aw_taken <= aw_taken + (awvalid && awready);
            w_taken <= w_taken + (wvalid && wready);
            b_taken <= b_taken + (bvalid && bready);
            ar_taken <= ar_taken + (arvalid && arready);
            r_taken <= r_taken + (rvalid && rready);
            write_age <= (write_in && !(bvalid && bready)) ? write_age + 1 : 0;
            read_age <= (read_in && !(rvalid && rready)) ? read_age + 1 : 0;
        end
    end
    always @(*) begin
        if (!reset) begin
            if (bvalid) assert(write_in);
            if (rvalid) assert(read_in);
            // the slave holds at most two requests of a kind (its register and the operation)
            assert((aw_taken - b_taken) <= 2 && (w_taken - b_taken) <= 2 && (ar_taken - r_taken) <= 2);
            if (READY_ALWAYS) assert(write_age <= BOUND && read_age <= BOUND);
        end
    end
endmodule
