// npu_mac_array: Lanes int8 multiply-accumulate lanes with int32 accumulators.
//
// Each valid input cycle broadcasts one activation x_i to every lane; lane k multiplies
// (x_i - zx_i) by (its weight - zw_i), both 9-bit signed, and adds the 18-bit product to
// its accumulator. first_i restarts the sums (the product replaces the accumulator), so
// groups follow each other without a bubble; last_i marks the final input of a group, and
// acc_valid_o is high in the one cycle acc_o holds the finished sums. Cycles without
// valid_i are bubbles and change nothing.
// Three register stages per lane - the two differences, their product, the sum - are the
// shape of an FPGA multiplier block with its input and pipeline registers (SB_MAC16's A/B
// and product registers, DSP48's A/B and M): the multiply then runs between registers
// inside the block, so the timing tools see the whole path, and only the 32-bit sum
// (in the fabric on iCE40, in the DSP48 on Xilinx) leaves it.
// Latency: inputs in cycle t -> acc_valid_o in cycle t + 3.
// The datapath registers are enable-style flops with the arithmetic inside the enabled
// branch: they switch only with valid data, which saves power in silicon, and the
// simulation evaluates the multiplies only in the cycles that use them (the array idles
// while the UART carries an image; docs/DECISIONS.md, "Simulation speed"). They have no
// reset, like the multiplier blocks' registers, and every sum starts with first_i.
// The product register is exactly 18 bits wide and the sum sign-extends it: Yosys 0.23's
// ice40_dsp, packing a 32-bit prod_q into the SB_MAC16's output register, connects only
// the 18 bits it sees the multiply drive and leaves the sign-extension bits [31:18]
// undriven (x), so every negative product would add as a positive one.
// Deliberately no bias: the requantization unit adds it (int32 sums are associative).
module npu_mac_array #(
  parameter int unsigned Lanes = npu_pkg::Lanes
) (
  input  logic                clk_i,
  input  logic                rst_ni,

  // one input element per cycle
  input  logic                valid_i,
  input  logic                first_i,
  input  logic                last_i,
  input  logic signed [7:0]   x_i,        // activation, broadcast
  input  logic [Lanes*8-1:0]  w_i,        // weight of lane k in [8k +: 8], int8
  input  logic signed [7:0]   zx_i,       // input zero-point of the layer
  input  logic signed [7:0]   zw_i,       // weight zero-point of the layer

  // finished sums
  output logic [Lanes*32-1:0] acc_o,      // int32 sum of lane k in [32k +: 32]
  output logic                acc_valid_o
);

  // valid, first and last, one bit per register stage
  logic v1_q, f1_q, l1_q;          // differences registered
  logic v2_q, f2_q, l2_q;          // products registered
  logic acc_valid_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      v1_q        <= 1'b0;
      f1_q        <= 1'b0;
      l1_q        <= 1'b0;
      v2_q        <= 1'b0;
      f2_q        <= 1'b0;
      l2_q        <= 1'b0;
      acc_valid_q <= 1'b0;
    end else begin
      v1_q        <= valid_i;
      f1_q        <= first_i;
      l1_q        <= last_i;
      v2_q        <= v1_q;
      f2_q        <= f1_q;
      l2_q        <= l1_q;
      acc_valid_q <= v2_q && l2_q;
    end
  end

  // a - za: 9 bits in [-255, 255], sign-extended to a multiplier's 16-bit port
  function automatic logic signed [15:0] difference(logic signed [7:0] a, logic signed [7:0] za);
    logic signed [8:0] d;
    d = 9'(a) - 9'(za);
    difference = 16'(d);
  endfunction

  // x - zx, shared by the lanes
  logic signed [15:0] xd_q;
  always_ff @(posedge clk_i) begin
    if (valid_i) begin
      xd_q <= difference(x_i, zx_i);
    end
  end

  for (genvar k = 0; k < Lanes; k++) begin : g_lane
    logic signed [15:0] wd_q;      // w - zw
    logic signed [17:0] prod_q;    // (x - zx) * (w - zw), in [-65025, 65025]
    logic signed [31:0] acc_q;

    always_ff @(posedge clk_i) begin
      if (valid_i) begin
        wd_q <= difference(w_i[8*k +: 8], zw_i);
      end
    end

    always_ff @(posedge clk_i) begin
      if (v1_q) begin
        prod_q <= 18'(xd_q * wd_q);
      end
    end

    // One assignment per branch rather than a multiplexed operand: the first-or-accumulate
    // choice then folds into the adder's LUTs (Yosys maps `(f ? 0 : acc) + p` to a
    // separate multiplexer per bit). The branch that reads acc_q comes first (rtl/README.md).
    always_ff @(posedge clk_i) begin
      if (v2_q) begin
        if (!f2_q) begin
          acc_q <= acc_q + 32'(prod_q);
        end else begin
          acc_q <= 32'(prod_q);
        end
      end
    end

    assign acc_o[32*k +: 32] = acc_q;
  end

  assign acc_valid_o = acc_valid_q;

endmodule
