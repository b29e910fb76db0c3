// npu_top: the Mini NPU (docs/NPU.md). Two pins besides clock and reset: the UART receive
// and transmit lines. This file holds the memories and the wiring between the blocks; every
// decision is made in a block. Memory ports are shared by time: the receiver writes only
// while npu_ctrl is idle, npu_loader reads and writes only while it carries out a load
// command for npu_ctrl, the sequencer owns the activation, weight and row memories only
// while it runs, and the response encoder reads only while a response is being sent.
// Parameters must be powers of two; Lanes >= 4; FbufDepth >= npu_pkg::MaxPayload.
// SerialRequant selects the requantizer without a multiplier (npu_requant_serial), for
// parts whose multipliers all serve the MAC lanes (rtl/npu_ice40.sv).
module npu_top #(
  parameter int unsigned Lanes     = npu_pkg::Lanes,
  parameter int unsigned WmemDepth = npu_pkg::WmemDepth,
  parameter int unsigned RowDepth  = npu_pkg::RowDepth,
  parameter int unsigned ActDepth  = npu_pkg::ActDepth,
  parameter int unsigned DmemDepth = npu_pkg::DmemDepth,
  parameter int unsigned FbufDepth = npu_pkg::FbufDepth,
  parameter bit          SerialRequant = 1'b0
) (
  input  logic        clk_i,
  input  logic        rst_ni,

  // clock cycles per UART bit (>= npu_pkg::MinClksPerBit); change only while the line is idle
  input  logic [15:0] clks_per_bit_i,

  input  logic        uart_rx_i,
  output logic        uart_tx_o,

  // status, for lights on a board
  output logic        loaded_o,     // a complete, CRC-checked image is loaded
  output logic        error_o       // the last response was a NAK
);

  localparam int unsigned Banks      = Lanes / 4;
  localparam int unsigned BankAw     = (Banks > 1) ? $clog2(Banks) : 1;
  localparam int unsigned WmemAw     = $clog2(WmemDepth);
  localparam int unsigned RowAw      = $clog2(RowDepth);
  localparam int unsigned ActAw      = $clog2(ActDepth);
  localparam int unsigned DmemAw     = $clog2(DmemDepth);
  localparam int unsigned FbufAw     = $clog2(FbufDepth);

  // ---- UART ----
  // The bit time is registered before use, as the reload values of the UARTs' down-counters
  // (clocks per bit - 1, and half a bit - 1), so that no logic depends combinationally on an
  // input pin and every bit boundary is a counter reaching zero rather than a compare with
  // the setting (a shorter path on an FPGA). Verilator then also evaluates no logic when
  // only the pins change, which halves the cost of the falling clock edge in simulation. The
  // setting takes effect one cycle late; it may change only while the line is idle anyway.
  logic [15:0] bit_last_q, half_last_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      bit_last_q  <= 16'(npu_pkg::MinClksPerBit - 1);
      half_last_q <= 16'(npu_pkg::MinClksPerBit / 2 - 1);
    end else begin
      bit_last_q  <= clks_per_bit_i - 16'd1;
      half_last_q <= {1'b0, clks_per_bit_i[15:1]} - 16'd1;
    end
  end

  logic       rx_valid, rx_ferr;
  logic [7:0] rx_data;
  logic       tx_valid, tx_ready;
  logic [7:0] tx_data;

  npu_uart_rx u_uart_rx (
    .clk_i         (clk_i),
    .rst_ni        (rst_ni),
    .bit_last_i    (bit_last_q),
    .half_last_i   (half_last_q),
    .rx_i          (uart_rx_i),
    .valid_o       (rx_valid),
    .data_o        (rx_data),
    .frame_err_o   (rx_ferr)
  );

  npu_uart_tx u_uart_tx (
    .clk_i         (clk_i),
    .rst_ni        (rst_ni),
    .bit_last_i    (bit_last_q),
    .valid_i       (tx_valid),
    .data_i        (tx_data),
    .ready_o       (tx_ready),
    .tx_o          (uart_tx_o)
  );

  // ---- frames in ----
  logic        rx_accept;
  logic        pl_we;
  logic [15:0] pl_idx;
  logic [7:0]  pl_data, pl_cmd;
  logic        frame_done;
  logic [7:0]  frame_err, frame_cmd, frame_seq;
  logic [15:0] frame_len;

  npu_frame_rx #(
    .ActDepth(ActDepth)
  ) u_frame_rx (
    .clk_i         (clk_i),
    .rst_ni        (rst_ni),
    .bit_last_i    (bit_last_q),
    .accept_i      (rx_accept),
    .byte_valid_i  (rx_valid),
    .byte_i        (rx_data),
    .byte_ferr_i   (rx_ferr),
    .pl_we_o       (pl_we),
    .pl_idx_o      (pl_idx),
    .pl_data_o     (pl_data),
    .pl_cmd_o      (pl_cmd),
    .done_o        (frame_done),
    .err_o         (frame_err),
    .cmd_o         (frame_cmd),
    .seq_o         (frame_seq),
    .len_o         (frame_len)
  );

  // INFER payloads go straight to activation buffer A as the first layer's int8 input
  // (p - 128 = p ^ 0x80); every other payload goes to the frame buffer.
  logic pl_to_act, pl_to_fbuf;
  assign pl_to_act  = pl_we && (pl_cmd == npu_pkg::CmdInfer);
  assign pl_to_fbuf = pl_we && (pl_cmd != npu_pkg::CmdInfer);

  // ---- command executor and loader ----
  logic                    load_begin, load_chunk, load_end, load_done, load_nak;
  logic [15:0]             load_len;
  logic [7:0]              load_err;
  logic                    image_valid, image_open;
  logic [15:0]             image_in_size, image_out_size;
  logic                    load_fbuf_req;
  logic [FbufAw-1:0]       load_fbuf_addr;
  logic                    mem_we;
  logic [23:0]             mem_addr;
  logic [31:0]             mem_wdata;
  logic                    load_dmem_req;
  logic [DmemAw-1:0]       load_dmem_addr;
  logic                    seq_start, seq_done, seq_busy;
  logic [7:0]              seq_layers;
  logic [15:0]             seq_class;
  logic [31:0]             seq_cycles;
  logic                    rsp_start, rsp_done, rsp_tail_act;
  logic [7:0]              rsp_type, rsp_seq;
  logic [5:0]              rsp_fixed_len;
  logic [4:0]              rsp_fixed_idx;
  logic [7:0]              rsp_fixed_byte;
  logic [15:0]             rsp_tail_len;
  logic [7:0]              fbuf_rdata;
  logic [31:0]             dmem_rdata;

  npu_ctrl #(
    .Lanes     (Lanes),
    .WmemDepth (WmemDepth),
    .RowDepth  (RowDepth),
    .ActDepth  (ActDepth),
    .DmemDepth (DmemDepth)
  ) u_ctrl (
    .clk_i           (clk_i),
    .rst_ni          (rst_ni),
    .rx_accept_o     (rx_accept),
    .rx_done_i       (frame_done),
    .rx_err_i        (frame_err),
    .rx_cmd_i        (frame_cmd),
    .rx_seq_i        (frame_seq),
    .rx_len_i        (frame_len),
    .load_begin_o    (load_begin),
    .load_chunk_o    (load_chunk),
    .load_end_o      (load_end),
    .load_len_o      (load_len),
    .load_done_i     (load_done),
    .load_nak_i      (load_nak),
    .load_err_i      (load_err),
    .image_valid_i   (image_valid),
    .image_open_i    (image_open),
    .image_layers_i  (seq_layers),
    .image_in_size_i (image_in_size),
    .image_out_size_i(image_out_size),
    .seq_start_o     (seq_start),
    .seq_done_i      (seq_done),
    .seq_class_i     (seq_class),
    .seq_cycles_i    (seq_cycles),
    .tx_start_o      (rsp_start),
    .tx_type_o       (rsp_type),
    .tx_seq_o        (rsp_seq),
    .tx_fixed_len_o  (rsp_fixed_len),
    .tx_fixed_idx_i  (rsp_fixed_idx),
    .tx_fixed_byte_o (rsp_fixed_byte),
    .tx_tail_len_o   (rsp_tail_len),
    .tx_tail_act_o   (rsp_tail_act),
    .tx_done_i       (rsp_done),
    .nak_o           (error_o)
  );

  // LOAD_CHUNK and LOAD_END; the image state (its layer count is the sequencer's)
  npu_loader #(
    .Lanes     (Lanes),
    .WmemDepth (WmemDepth),
    .RowDepth  (RowDepth),
    .ActDepth  (ActDepth),
    .DmemDepth (DmemDepth),
    .FbufDepth (FbufDepth)
  ) u_loader (
    .clk_i        (clk_i),
    .rst_ni       (rst_ni),
    .begin_i      (load_begin),
    .chunk_i      (load_chunk),
    .end_i        (load_end),
    .len_i        (load_len),
    .done_o       (load_done),
    .nak_o        (load_nak),
    .err_o        (load_err),
    .fbuf_req_o   (load_fbuf_req),
    .fbuf_addr_o  (load_fbuf_addr),
    .fbuf_rdata_i (fbuf_rdata),
    .mem_we_o     (mem_we),
    .mem_addr_o   (mem_addr),
    .mem_wdata_o  (mem_wdata),
    .dmem_req_o   (load_dmem_req),
    .dmem_addr_o  (load_dmem_addr),
    .dmem_rdata_i (dmem_rdata),
    .valid_o      (image_valid),
    .open_o       (image_open),
    .layers_o     (seq_layers),
    .in_size_o    (image_in_size),
    .out_size_o   (image_out_size)
  );

  assign loaded_o = image_valid;

  // ---- frames out ----
  logic        tail_req;
  logic [15:0] tail_addr;
  logic [7:0]  tail_data;

  npu_frame_tx u_frame_tx (
    .clk_i      (clk_i),
    .rst_ni     (rst_ni),
    .start_i    (rsp_start),
    .type_i     (rsp_type),
    .seq_i      (rsp_seq),
    .fixed_len_i(rsp_fixed_len),
    .fixed_idx_o(rsp_fixed_idx),
    .fixed_byte_i(rsp_fixed_byte),
    .tail_len_i (rsp_tail_len),
    .tail_req_o (tail_req),
    .tail_addr_o(tail_addr),
    .tail_data_i(tail_data),
    .tx_valid_o (tx_valid),
    .tx_data_o  (tx_data),
    .tx_ready_i (tx_ready),
    .done_o     (rsp_done)
  );

  // ---- sequencer ----
  logic                seq_parity;
  logic                seq_dmem_req;
  logic [DmemAw-1:0]   seq_dmem_addr;
  logic                wmem_re;
  logic [WmemAw-1:0]   wmem_raddr;
  logic [Lanes*8-1:0]  wmem_rdata;
  logic                src_req;
  logic [ActAw-1:0]    src_addr;
  logic [7:0]          src_rdata;
  logic                dst_we;
  logic [ActAw-1:0]    dst_addr;
  logic [7:0]          dst_wdata;
  logic                row_req;
  logic [RowAw-1:0]    row_addr;
  logic [31:0]         bias_rdata, mult_rdata;
  logic [4:0]          shift_rdata;

  npu_sequencer #(
    .Lanes        (Lanes),
    .WmemDepth    (WmemDepth),
    .RowDepth     (RowDepth),
    .ActDepth     (ActDepth),
    .DmemDepth    (DmemDepth),
    .SerialRequant(SerialRequant)
  ) u_seq (
    .clk_i       (clk_i),
    .rst_ni      (rst_ni),
    .start_i     (seq_start),
    .layers_i    (seq_layers),
    .busy_o      (seq_busy),
    .done_o      (seq_done),
    .class_o     (seq_class),
    .cycles_o    (seq_cycles),
    .parity_o    (seq_parity),
    .dmem_req_o  (seq_dmem_req),
    .dmem_addr_o (seq_dmem_addr),
    .dmem_rdata_i(dmem_rdata),
    .wmem_re_o   (wmem_re),
    .wmem_addr_o (wmem_raddr),
    .wmem_rdata_i(wmem_rdata),
    .src_req_o   (src_req),
    .src_addr_o  (src_addr),
    .src_rdata_i (src_rdata),
    .dst_we_o    (dst_we),
    .dst_addr_o  (dst_addr),
    .dst_wdata_o (dst_wdata),
    .row_req_o   (row_req),
    .row_addr_o  (row_addr),
    .bias_i      (bias_rdata),
    .mult_i      (mult_rdata),
    .shift_i     (shift_rdata)
  );

  // ---- the flat write port, decoded (npu_loader has range-checked the address) ----
  logic [3:0]  wr_region;
  logic [19:0] wr_index;
  assign wr_region = mem_addr[npu_pkg::RegionLsb +: 4];
  assign wr_index  = mem_addr[npu_pkg::RegionLsb-1:0];

  logic [DmemAw-1:0] dmem_waddr;
  logic [RowAw-1:0]  row_waddr;
  logic [WmemAw-1:0] wmem_waddr;
  logic [BankAw-1:0] wmem_wbank;
  assign dmem_waddr = DmemAw'(wr_index);
  assign row_waddr  = RowAw'(wr_index);
  assign wmem_waddr = WmemAw'(wr_index >> $clog2(Banks));
  assign wmem_wbank = BankAw'(wr_index);

  logic dmem_we, bias_we, mult_we, shift_we, wmem_we;
  assign dmem_we  = mem_we && (wr_region == npu_pkg::RegionDmem);
  assign bias_we  = mem_we && (wr_region == npu_pkg::RegionBias);
  assign mult_we  = mem_we && (wr_region == npu_pkg::RegionMult);
  assign shift_we = mem_we && (wr_region == npu_pkg::RegionShift);
  assign wmem_we  = mem_we && (wr_region == npu_pkg::RegionWmem);

  // ---- memories ----
  // frame buffer: receiver writes, npu_loader reads (chunks, LOAD_END), encoder reads (ECHO)
  logic              tail_from_fbuf;
  logic              fbuf_req;
  logic [FbufAw-1:0] fbuf_addr;
  assign tail_from_fbuf = tail_req && !rsp_tail_act;
  assign fbuf_req  = pl_to_fbuf || load_fbuf_req || tail_from_fbuf;
  assign fbuf_addr = pl_to_fbuf    ? FbufAw'(pl_idx) :
                     load_fbuf_req ? load_fbuf_addr  : FbufAw'(tail_addr);

  npu_ram #(
    .Width(8),
    .Depth(FbufDepth)
  ) u_fbuf (
    .clk_i  (clk_i),
    .req_i  (fbuf_req),
    .we_i   (pl_to_fbuf),
    .addr_i (fbuf_addr),
    .wdata_i(pl_data),
    .rdata_o(fbuf_rdata)
  );

  // activation buffers: buffer A (0) also takes the INFER payload; the layer of parity p
  // reads buffer p and writes buffer !p; the logits of L layers sit in buffer L mod 2
  logic             final_in_b, tail_from_act;
  logic             act_a_req, act_a_we, act_b_req, act_b_we;
  logic [ActAw-1:0] act_a_addr, act_b_addr;
  logic [7:0]       act_a_wdata, act_a_rdata, act_b_rdata;

  assign final_in_b    = seq_layers[0];
  assign tail_from_act = tail_req && rsp_tail_act;

  assign act_a_we    = pl_to_act || (dst_we && seq_parity);
  assign act_a_req   = act_a_we || (src_req && !seq_parity) || (tail_from_act && !final_in_b);
  assign act_a_addr  = pl_to_act                ? ActAw'(pl_idx) :
                       (dst_we && seq_parity)   ? dst_addr       :
                       (src_req && !seq_parity) ? src_addr       : ActAw'(tail_addr);
  assign act_a_wdata = pl_to_act ? (pl_data ^ 8'h80) : dst_wdata;

  assign act_b_we    = dst_we && !seq_parity;
  assign act_b_req   = act_b_we || (src_req && seq_parity) || (tail_from_act && final_in_b);
  assign act_b_addr  = act_b_we                ? dst_addr :
                       (src_req && seq_parity) ? src_addr : ActAw'(tail_addr);

  npu_ram #(
    .Width(8),
    .Depth(ActDepth)
  ) u_act_a (
    .clk_i  (clk_i),
    .req_i  (act_a_req),
    .we_i   (act_a_we),
    .addr_i (act_a_addr),
    .wdata_i(act_a_wdata),
    .rdata_o(act_a_rdata)
  );

  npu_ram #(
    .Width(8),
    .Depth(ActDepth)
  ) u_act_b (
    .clk_i  (clk_i),
    .req_i  (act_b_req),
    .we_i   (act_b_we),
    .addr_i (act_b_addr),
    .wdata_i(dst_wdata),
    .rdata_o(act_b_rdata)
  );

  assign src_rdata = seq_parity ? act_b_rdata : act_a_rdata;
  assign tail_data = !rsp_tail_act ? fbuf_rdata : (final_in_b ? act_b_rdata : act_a_rdata);

  // header and descriptors: npu_loader writes and reads the header, the sequencer reads
  npu_ram #(
    .Width(32),
    .Depth(DmemDepth)
  ) u_dmem (
    .clk_i  (clk_i),
    .req_i  (dmem_we || load_dmem_req || seq_dmem_req),
    .we_i   (dmem_we),
    .addr_i (dmem_we ? dmem_waddr : (load_dmem_req ? load_dmem_addr : seq_dmem_addr)),
    .wdata_i(mem_wdata),
    .rdata_o(dmem_rdata)
  );

  // per-row parameters
  npu_ram #(
    .Width(32),
    .Depth(RowDepth)
  ) u_bias (
    .clk_i  (clk_i),
    .req_i  (bias_we || row_req),
    .we_i   (bias_we),
    .addr_i (bias_we ? row_waddr : row_addr),
    .wdata_i(mem_wdata),
    .rdata_o(bias_rdata)
  );

  npu_ram #(
    .Width(32),
    .Depth(RowDepth)
  ) u_mult (
    .clk_i  (clk_i),
    .req_i  (mult_we || row_req),
    .we_i   (mult_we),
    .addr_i (mult_we ? row_waddr : row_addr),
    .wdata_i(mem_wdata),
    .rdata_o(mult_rdata)
  );

  npu_ram #(
    .Width(5),
    .Depth(RowDepth)
  ) u_shift (
    .clk_i  (clk_i),
    .req_i  (shift_we || row_req),
    .we_i   (shift_we),
    .addr_i (shift_we ? row_waddr : row_addr),
    .wdata_i(mem_wdata[4:0]),
    .rdata_o(shift_rdata)
  );

  // weights: flat word n is bank n mod Banks of row n / Banks
  npu_weight_mem #(
    .Lanes(Lanes),
    .Depth(WmemDepth)
  ) u_wmem (
    .clk_i  (clk_i),
    .we_i   (wmem_we),
    .waddr_i(wmem_waddr),
    .wbank_i(wmem_wbank),
    .wdata_i(mem_wdata),
    .re_i   (wmem_re),
    .raddr_i(wmem_raddr),
    .rdata_o(wmem_rdata)
  );

  // Not needed here: the sequencer's busy flag (npu_ctrl waits for done) and the upper
  // payload and tail index bits (lengths are bounded by the buffer sizes).
  logic unused_top;
  assign unused_top = seq_busy ^ (^pl_idx) ^ (^tail_addr);

endmodule
