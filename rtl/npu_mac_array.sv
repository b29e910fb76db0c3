// npu_mac_array: Lanes int8 multiply-accumulate lanes with int32 accumulators.
//
// Each valid input cycle broadcasts one activation x_i to every lane; lane k multiplies
// (x_i - zx_i) by (its weight - zw_i), both 9-bit signed, and adds the 18-bit product to
// its accumulator. first_i restarts the sums (the product replaces the accumulator), so
// groups follow each other without a bubble; last_i marks the final input of a group, and
// acc_valid_o is high in the one cycle acc_o holds the finished sums. Cycles without
// valid_i are bubbles and change nothing.
// Latency: inputs in cycle t -> acc_valid_o in cycle t + 2.
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

  logic signed [8:0] xd;  // x - zx in [-255, 255]
  assign xd = 9'(x_i) - 9'(zx_i);

  // product stage: flags travel with the products
  logic prod_valid_q, prod_first_q, prod_last_q;
  logic acc_valid_d, acc_valid_q;

  assign acc_valid_d = prod_valid_q && prod_last_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      prod_valid_q <= 1'b0;
      prod_first_q <= 1'b0;
      prod_last_q  <= 1'b0;
      acc_valid_q  <= 1'b0;
    end else begin
      prod_valid_q <= valid_i;
      prod_first_q <= first_i;
      prod_last_q  <= last_i;
      acc_valid_q  <= acc_valid_d;
    end
  end

  for (genvar k = 0; k < Lanes; k++) begin : g_lane
    logic signed [7:0]  w;
    logic signed [8:0]  wd;               // w - zw in [-255, 255]
    logic signed [17:0] prod_d, prod_q;
    logic signed [31:0] acc_d, acc_q;

    assign w      = w_i[8*k +: 8];
    assign wd     = 9'(w) - 9'(zw_i);
    assign prod_d = 18'(xd) * 18'(wd);

    always_comb begin
      acc_d = acc_q;
      if (prod_valid_q) begin
        acc_d = prod_first_q ? 32'(prod_q) : acc_q + 32'(prod_q);
      end
    end

    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        prod_q <= '0;
        acc_q  <= '0;
      end else begin
        prod_q <= prod_d;
        acc_q  <= acc_d;
      end
    end

    assign acc_o[32*k +: 32] = acc_q;
  end

  assign acc_valid_o = acc_valid_q;

endmodule
