// npu_mac_array: Lanes int8 multiply-accumulate lanes with int32 accumulators.
//
// Each valid input cycle broadcasts one activation x_i to every lane; lane k multiplies
// (x_i - zx_i) by (its weight - zw_i), both 9-bit signed, and adds the 18-bit product to
// its accumulator in the same cycle (a DSP48's multiply-accumulate). first_i restarts the
// sums (the product replaces the accumulator), so groups follow each other without a
// bubble; last_i marks the final input of a group, and acc_valid_o is high in the one cycle
// acc_o holds the finished sums. Cycles without valid_i are bubbles and change nothing.
// Latency: inputs in cycle t -> acc_valid_o in cycle t + 1.
// The accumulators are enable-style flops (`else if (valid_i)`), with the multiply inside
// the enabled branch: they switch only with valid data, which saves power in silicon, and
// the simulation evaluates the 16 multiplies only in the cycles that use them (the array
// idles while the UART carries an image; docs/DECISIONS.md, "Simulation speed").
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

  // (a - za) * (b - zb) with both differences 9-bit signed in [-255, 255]
  function automatic logic signed [17:0] product(logic signed [7:0] a, logic signed [7:0] za,
                                                 logic signed [7:0] b, logic signed [7:0] zb);
    logic signed [8:0] ad, bd;
    ad = 9'(a) - 9'(za);
    bd = 9'(b) - 9'(zb);
    product = 18'(ad) * 18'(bd);
  endfunction

  logic acc_valid_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      acc_valid_q <= 1'b0;
    end else begin
      acc_valid_q <= valid_i && last_i;
    end
  end

  for (genvar k = 0; k < Lanes; k++) begin : g_lane
    logic signed [31:0] acc_q;

    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        acc_q <= '0;
      end else if (valid_i) begin
        acc_q <= (first_i ? 32'sd0 : acc_q) + 32'(product(x_i, zx_i, w_i[8*k +: 8], zw_i));
      end
    end

    assign acc_o[32*k +: 32] = acc_q;
  end

  assign acc_valid_o = acc_valid_q;

endmodule
