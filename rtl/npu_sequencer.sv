// npu_sequencer: runs the layer descriptors of the loaded image, one layer after the other,
// through the MAC array and the requantization unit (docs/NPU.md, "Block diagram").
//
// Per layer: fetch the 4 descriptor words, then stream the layer's weight rows: each cycle
// one WMEM row (Lanes weights) and one source activation x[i] enter the MAC array, groups
// of Lanes output rows one after the other with no bubble. When a group's sums are done
// they move into a shadow bank, and the feeder drains that bank one output per cycle into
// the requantization pipeline, whose outputs are written to the destination buffer (and
// seen by the argmax on the last layer) - all while the array accumulates the next group.
// Only one group may wait for the feeder: the last input of the next group is held back
// until the feeder is done (`pending_q`), which costs cycles only when in < Lanes + 3.
// Layer l reads activation buffer l mod 2 and writes the other (parity_o); the top maps
// the src/dst ports onto buffers A and B.
// Deliberately trusting: descriptors are not validated (the exporter and the image CRC do
// that); every address wraps inside its memory and every loop is bounded by a 16-bit
// count, so a bad descriptor gives wrong numbers but never a hang.
module npu_sequencer #(
  parameter int unsigned Lanes     = npu_pkg::Lanes,
  parameter int unsigned WmemDepth = npu_pkg::WmemDepth,
  parameter int unsigned RowDepth  = npu_pkg::RowDepth,
  parameter int unsigned ActDepth  = npu_pkg::ActDepth,
  parameter int unsigned DmemDepth = npu_pkg::DmemDepth,
  parameter bit          SerialRequant = 1'b0,  // npu_requant_serial instead of npu_requant
  localparam int unsigned WmemAw = $clog2(WmemDepth),
  localparam int unsigned RowAw  = $clog2(RowDepth),
  localparam int unsigned ActAw  = $clog2(ActDepth),
  localparam int unsigned DmemAw = $clog2(DmemDepth)
) (
  input  logic                clk_i,
  input  logic                rst_ni,

  // control
  input  logic                start_i,
  input  logic [7:0]          layers_i,     // >= 1, checked by npu_ctrl at LOAD_END
  output logic                busy_o,
  output logic                done_o,       // one-cycle pulse; class_o/cycles_o valid from then on
  output logic [15:0]         class_o,
  output logic [31:0]         cycles_o,     // cycles from start_i to done_o, held until the next start
  output logic                parity_o,     // the current layer reads buffer parity_o

  // descriptor memory
  output logic                dmem_req_o,
  output logic [DmemAw-1:0]   dmem_addr_o,
  input  logic [31:0]         dmem_rdata_i,

  // weight memory
  output logic                wmem_re_o,
  output logic [WmemAw-1:0]   wmem_addr_o,
  input  logic [Lanes*8-1:0]  wmem_rdata_i,

  // source activations
  output logic                src_req_o,
  output logic [ActAw-1:0]    src_addr_o,
  input  logic [7:0]          src_rdata_i,

  // destination activations
  output logic                dst_we_o,
  output logic [ActAw-1:0]    dst_addr_o,
  output logic [7:0]          dst_wdata_o,

  // per-row parameters
  output logic                row_req_o,
  output logic [RowAw-1:0]    row_addr_o,
  input  logic [31:0]         bias_i,
  input  logic [31:0]         mult_i,
  input  logic [4:0]          shift_i
);

  localparam int unsigned LaneAw = $clog2(Lanes);
  localparam int unsigned CountW = LaneAw + 1;  // 1 .. Lanes outputs in a group

  typedef enum logic [2:0] {
    StIdle,
    StFetch,
    StRun,
    StDrain,
    StDone
  } state_e;

  state_e state_d, state_q;

  // The FSM state is two-process; every other register is an enable-style flop that loads
  // only in the cycles named by its condition. Wide or numerous registers (the 512-bit
  // shadow bank, the descriptor) then switch only when they change, which saves power in
  // silicon and, in simulation, the per-cycle copy of every register that holds still.

  logic [7:0]  layers_left_q;           // layers after the current one: the last is a zero test
  logic [7:0]  layer_q;
  logic [2:0]  fetch_q;                 // descriptor word being fetched (+1 captured)
  logic [31:0] cycles_q;

  // the current layer's descriptor
  logic [15:0]        in_q;
  logic [15:0]        out_q;
  logic [WmemAw-1:0]  wbase_q;
  logic [RowAw-1:0]   rowbase_q;
  logic signed [7:0]  zx_q, zw_q, zy_q;
  logic               relu_q;

  // streaming position
  logic [15:0]        i_q;              // input index within the group
  // Down-counters beside the indices, so that "last input" and "last group" are tests of a
  // flop against a constant rather than an add and a compare (the iCE40 timing, rtl/README.md)
  logic [15:0]        in_last_q;        // in - 1
  logic [15:0]        i_left_q;         // in - 1 - i: inputs after this one in the group
  logic               i_last_q;         // i_left_q == 0, registered with it
  logic               in_one_q;         // in == 1: every input is a group's last
  logic [15:0]        outs_left_q;      // out - gbase: outputs from this group on
  logic               last_group_q;     // outs_left_q <= Lanes, registered with it
  logic [15:0]        gbase_q;          // first output row of the group
  logic [WmemAw-1:0]  waddr_q;          // next WMEM row

  // issue -> memory read -> MAC array
  logic issue, issue_last, last_group;
  logic iss_valid_q, iss_first_q, iss_last_q;

  // the group waiting for (or in) the feeder
  logic               pending_q;
  logic [15:0]        pend_base_q;
  logic [CountW-1:0]  pend_count_q;

  // feeder: shadow bank -> requantization
  logic [Lanes*32-1:0] shadow_q;
  logic                feeding_q;
  logic [LaneAw-1:0]   feed_k_q;
  logic                feed, feed_last;  // one output leaves the bank; it is the group's last
  logic                fv_q;             // aligned with the row memories' output
  logic [31:0]         facc_q;
  logic [15:0]         ftag_q;

  // control strobes of the FSM
  logic desc_done_q, next_layer;  // desc_done_q: StFetch with fetch_q == 4, registered a cycle ahead

  // MAC array and requantization unit
  logic [Lanes*32-1:0] mac_acc;
  logic                mac_acc_valid;
  logic                rq_ready, rq_valid, rq_busy;
  logic signed [7:0]   rq_y;
  logic [15:0]         rq_tag;
  logic                last_layer;

  assign last_layer = (layers_left_q == 8'd0);
  assign issue_last = i_last_q;
  assign last_group = last_group_q;
  assign feed       = feeding_q && !mac_acc_valid && rq_ready;
  assign feed_last  = ({1'b0, feed_k_q} + CountW'(1) == pend_count_q);

  logic [9:0] dmem_word;  // header + 4 * layer + fetch
  assign dmem_word = 10'(npu_pkg::HeaderWords) + {layer_q, 2'b00} + {8'd0, fetch_q[1:0]};

  always_comb begin
    state_d     = state_q;
    issue       = 1'b0;
    next_layer  = 1'b0;
    done_o      = 1'b0;
    dmem_req_o  = 1'b0;
    dmem_addr_o = dmem_word[DmemAw-1:0];

    unique case (state_q)
      StIdle: begin
        if (start_i) begin
          state_d = StFetch;
        end
      end
      StFetch: begin
        dmem_req_o = (fetch_q < 3'd4);
        if (desc_done_q) begin
          // an empty layer has nothing to stream: skip it
          state_d = (in_q == 16'd0 || out_q == 16'd0) ? StDrain : StRun;
        end
      end
      StRun: begin
        issue = !(issue_last && pending_q);
        if (issue && issue_last && last_group) begin
          state_d = StDrain;
        end
      end
      StDrain: begin
        if (!pending_q && !fv_q && !rq_busy) begin
          if (last_layer) begin
            state_d = StDone;
          end else begin
            next_layer = 1'b1;
            state_d    = StFetch;
          end
        end
      end
      StDone: begin
        done_o  = 1'b1;
        state_d = StIdle;
      end
      default: state_d = StIdle;
    endcase
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q <= StIdle;
    end else begin
      state_q <= state_d;
    end
  end

  // The descriptor's last word arrives in StFetch's cycle with fetch_q == 4, which always
  // follows the one with fetch_q == 3 (fetch_q counts only in StFetch): the flag is a flop,
  // since it enables some 80 streaming registers (the iCE40 timing).
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      desc_done_q <= 1'b0;
    end else begin
      desc_done_q <= (state_q == StFetch) && (fetch_q == 3'd3);
    end
  end

  // ---- layer loop and cycle count ----
  // cycles_q counts the cycles of the layers and holds still from done_o until the next start.
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      layers_left_q <= '0;
      layer_q       <= '0;
      fetch_q       <= '0;
      cycles_q      <= '0;
    end else if (state_q != StIdle) begin
      if (state_q != StDone) begin
        cycles_q <= cycles_q + 32'd1;
      end
      if (state_q == StFetch) begin
        fetch_q <= fetch_q + 3'd1;
      end else if (next_layer) begin
        layer_q       <= layer_q + 8'd1;
        layers_left_q <= layers_left_q - 8'd1;
        fetch_q       <= 3'd0;
      end
    end else if (start_i) begin
      layers_left_q <= layers_i - 8'd1;
      layer_q       <= 8'd0;
      fetch_q       <= 3'd0;
      cycles_q      <= 32'd0;
    end
  end

  // ---- descriptor: word fetch_q - 1 arrives from the DMEM in StFetch ----
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      in_q      <= '0;
      in_last_q <= '0;
      in_one_q  <= 1'b0;
      out_q     <= '0;
      wbase_q   <= '0;
      rowbase_q <= '0;
      zx_q      <= '0;
      zw_q      <= '0;
      zy_q      <= '0;
      relu_q    <= 1'b0;
    end else if (state_q == StFetch) begin
      unique case (fetch_q)
        3'd1: begin
          in_q      <= dmem_rdata_i[15:0];
          in_last_q <= dmem_rdata_i[15:0] - 16'd1;
          in_one_q  <= (dmem_rdata_i[15:0] == 16'd1);
          out_q     <= dmem_rdata_i[31:16];
        end
        3'd2: wbase_q   <= WmemAw'(dmem_rdata_i);
        3'd3: rowbase_q <= RowAw'(dmem_rdata_i);
        3'd4: begin
          zx_q   <= dmem_rdata_i[7:0];
          zw_q   <= dmem_rdata_i[15:8];
          zy_q   <= dmem_rdata_i[23:16];
          relu_q <= dmem_rdata_i[24];
        end
        default: ;
      endcase
    end
  end

  // ---- streaming: one weight row and one input per issue ----
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      iss_valid_q  <= 1'b0;
      iss_first_q  <= 1'b0;
      iss_last_q   <= 1'b0;
      i_q          <= '0;
      i_left_q     <= '0;
      i_last_q     <= 1'b0;
      outs_left_q  <= '0;
      last_group_q <= 1'b0;
      gbase_q      <= '0;
      waddr_q      <= '0;
      pend_base_q  <= '0;
      pend_count_q <= '0;
    end else begin
      iss_valid_q <= issue;
      iss_first_q <= (i_q == 16'd0);
      iss_last_q  <= issue_last;
      if (issue) begin
        if (issue_last) begin
          pend_base_q  <= gbase_q;
          pend_count_q <= last_group ? CountW'(outs_left_q) : CountW'(Lanes);
          gbase_q      <= gbase_q + 16'(Lanes);
          outs_left_q  <= outs_left_q - 16'(Lanes);
          last_group_q <= (outs_left_q <= 16'(2 * Lanes));
        end
        i_q      <= issue_last ? 16'd0 : i_q + 16'd1;
        i_left_q <= issue_last ? in_last_q : i_left_q - 16'd1;
        i_last_q <= issue_last ? in_one_q : (i_left_q == 16'd1);
        waddr_q  <= waddr_q + WmemAw'(1);
      end else if (desc_done_q) begin
        i_q         <= 16'd0;
        i_left_q    <= in_last_q;
        i_last_q    <= in_one_q;
        outs_left_q  <= out_q;
        last_group_q <= (out_q <= 16'(Lanes));
        gbase_q     <= 16'd0;
        waddr_q     <= wbase_q;
      end
    end
  end

  // ---- feeder: take a finished group, then one output per cycle ----
  // A group is pending from the issue of its last input until its last output leaves the
  // shadow bank.
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      fv_q      <= 1'b0;
      pending_q <= 1'b0;
      shadow_q  <= '0;
      feeding_q <= 1'b0;
      feed_k_q  <= '0;
      facc_q    <= '0;
      ftag_q    <= '0;
    end else begin
      fv_q <= feed;
      if (feed && feed_last) begin
        pending_q <= 1'b0;
      end else if (issue && issue_last) begin
        pending_q <= 1'b1;
      end
      if (feed) begin
        facc_q    <= shadow_q[32*feed_k_q +: 32];
        ftag_q    <= pend_base_q + 16'(feed_k_q);
        feeding_q <= !feed_last;
        feed_k_q  <= feed_k_q + LaneAw'(1);
      end else if (mac_acc_valid) begin
        shadow_q  <= mac_acc;
        feeding_q <= 1'b1;
        feed_k_q  <= '0;
      end
    end
  end

  // memory ports
  assign wmem_re_o   = issue;
  assign wmem_addr_o = waddr_q;
  assign src_req_o   = issue;
  assign src_addr_o  = ActAw'(i_q);
  assign row_req_o   = feed;
  assign row_addr_o  = rowbase_q + RowAw'(pend_base_q) + RowAw'(feed_k_q);
  assign dst_we_o    = rq_valid;
  assign dst_addr_o  = ActAw'(rq_tag);
  assign dst_wdata_o = rq_y;

  npu_mac_array #(
    .Lanes(Lanes)
  ) u_mac (
    .clk_i      (clk_i),
    .rst_ni     (rst_ni),
    .valid_i    (iss_valid_q),
    .first_i    (iss_first_q),
    .last_i     (iss_last_q),
    .x_i        (src_rdata_i),
    .w_i        (wmem_rdata_i),
    .zx_i       (zx_q),
    .zw_i       (zw_q),
    .acc_o      (mac_acc),
    .acc_valid_o(mac_acc_valid)
  );

  // The requantizer: pipelined (one output per cycle, a 32 x 32 multiplier) or serial (one
  // output per 68 cycles, no multiplier); the feeder waits for rq_ready either way.
  if (SerialRequant) begin : g_requant_serial
    npu_requant_serial u_requant (
      .clk_i  (clk_i),
      .rst_ni (rst_ni),
      .valid_i(fv_q),
      .acc_i  (facc_q),
      .bias_i (bias_i),
      .mult_i (mult_i),
      .shift_i(shift_i),
      .zp_i   (zy_q),
      .relu_i (relu_q),
      .tag_i  (ftag_q),
      .ready_o(rq_ready),
      .valid_o(rq_valid),
      .y_o    (rq_y),
      .tag_o  (rq_tag),
      .busy_o (rq_busy)
    );
  end else begin : g_requant_pipelined
    npu_requant u_requant (
      .clk_i  (clk_i),
      .rst_ni (rst_ni),
      .valid_i(fv_q),
      .acc_i  (facc_q),
      .bias_i (bias_i),
      .mult_i (mult_i),
      .shift_i(shift_i),
      .zp_i   (zy_q),
      .relu_i (relu_q),
      .tag_i  (ftag_q),
      .valid_o(rq_valid),
      .y_o    (rq_y),
      .tag_o  (rq_tag),
      .busy_o (rq_busy)
    );
    assign rq_ready = 1'b1;
  end

  npu_argmax u_argmax (
    .clk_i  (clk_i),
    .rst_ni (rst_ni),
    .clear_i(start_i && state_q == StIdle),
    .valid_i(rq_valid && last_layer),
    .value_i(rq_y),
    .index_i(rq_tag),
    .index_o(class_o)
  );

  assign busy_o   = (state_q != StIdle);
  assign cycles_o = cycles_q;
  assign parity_o = layer_q[0];

  // Bits of the descriptor word address above DmemAw: the index is at most 4 + 4 * 255 + 3
  // and the DMEM wraps (docs/NPU.md); npu_ctrl limits the layer count so they stay 0.
  logic unused_dmem_word;
  assign unused_dmem_word = ^dmem_word;

endmodule
