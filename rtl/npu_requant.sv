// npu_requant: int32 accumulator -> int8 output, bit-exact with requantize() in
// include/seatorch/quant/fixed_point.hpp (docs/NPU.md, "Arithmetic"):
//   y = clamp(zp + rounding_rshift(srdhm(acc + bias, mult), shift), relu ? zp : -128, 127)
// A 4-stage pipeline accepting one value per cycle:
//   1. acc + bias (int32, wrapping)      2. 32 x 32 -> 64-bit signed product
//   3. srdhm: nudge, divide by 2^31 toward zero, saturate INT32_MIN * INT32_MIN
//   4. rounding right shift, + zero-point (34 bits, so the clamp is exact), clamp
// tag_i (the output index) travels with the value. busy_o is high while any stage holds a
// value. A stage's registers are enable-style flops that load only when the stage's input
// is valid, with the stage's arithmetic inside the enabled branch: less switching in
// silicon, and no work at all in the simulation's idle cycles (docs/DECISIONS.md,
// "Simulation speed"). Deliberately no handshake: the sequencer never feeds faster than
// one per cycle and never needs to stop the pipeline.
module npu_requant (
  input  logic               clk_i,
  input  logic               rst_ni,

  input  logic               valid_i,
  input  logic signed [31:0] acc_i,
  input  logic signed [31:0] bias_i,
  input  logic signed [31:0] mult_i,
  input  logic [4:0]         shift_i,
  input  logic signed [7:0]  zp_i,
  input  logic               relu_i,
  input  logic [15:0]        tag_i,

  output logic               valid_o,
  output logic signed [7:0]  y_o,
  output logic [15:0]        tag_o,
  output logic               busy_o
);

  localparam logic signed [31:0] Int32Min = 32'sh8000_0000;
  localparam logic signed [31:0] Int32Max = 32'sh7FFF_FFFF;

  // srdhm of a product: (prod + nudge) / 2^31 toward zero; INT32_MIN * INT32_MIN saturates
  function automatic logic signed [31:0] srdhm_high(logic signed [63:0] prod, logic sat);
    logic signed [63:0] nudged;
    nudged = prod + (prod >= 64'sd0 ? 64'sd1073741824 : -64'sd1073741823);
    // The quotient nudged / 2^31 (toward zero) fits 32 bits except for
    // INT32_MIN * INT32_MIN, which sat replaces.
    srdhm_high = sat ? Int32Max
                     : 32'((nudged >= 64'sd0) ? (nudged >>> 31) : ((nudged + 64'sd2147483647) >>> 31));
  endfunction

  // rounding right shift by shift, + zero-point, clamp to [relu ? zp : -128, 127]
  function automatic logic signed [7:0] shift_clamp(logic signed [31:0] high, logic [4:0] shift,
                                                    logic signed [7:0] zp, logic relu);
    logic [31:0]        mask;       // 2^shift - 1
    logic [31:0]        remainder;
    logic [31:0]        threshold;
    logic signed [31:0] shifted;
    logic signed [33:0] with_zp;
    logic signed [33:0] lo;
    mask      = ~(32'hFFFF_FFFF << shift);
    remainder = high & mask;
    threshold = (mask >> 1) + {31'd0, high[31]};
    shifted   = (high >>> shift) + ((remainder > threshold) ? 32'sd1 : 32'sd0);
    with_zp   = 34'(shifted) + 34'(zp);
    lo        = relu ? 34'(zp) : -34'sd128;
    if (with_zp < lo) begin
      shift_clamp = lo[7:0];
    end else if (with_zp > 34'sd127) begin
      shift_clamp = 8'sd127;
    end else begin
      shift_clamp = with_zp[7:0];
    end
  endfunction

  // ---- the valid bits: every cycle ----
  logic s1_valid_q, s2_valid_q, s3_valid_q, s4_valid_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      s1_valid_q <= 1'b0;
      s2_valid_q <= 1'b0;
      s3_valid_q <= 1'b0;
      s4_valid_q <= 1'b0;
    end else begin
      s1_valid_q <= valid_i;
      s2_valid_q <= s1_valid_q;
      s3_valid_q <= s2_valid_q;
      s4_valid_q <= s3_valid_q;
    end
  end

  // ---- stage 1: bias ----
  logic signed [31:0] s1_sum_q;
  logic signed [31:0] s1_mult_q;
  logic [4:0]         s1_shift_q;
  logic signed [7:0]  s1_zp_q;
  logic               s1_relu_q;
  logic [15:0]        s1_tag_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      s1_sum_q   <= '0;
      s1_mult_q  <= '0;
      s1_shift_q <= '0;
      s1_zp_q    <= '0;
      s1_relu_q  <= 1'b0;
      s1_tag_q   <= '0;
    end else if (valid_i) begin
      s1_sum_q   <= acc_i + bias_i;
      s1_mult_q  <= mult_i;
      s1_shift_q <= shift_i;
      s1_zp_q    <= zp_i;
      s1_relu_q  <= relu_i;
      s1_tag_q   <= tag_i;
    end
  end

  // ---- stage 2: product ----
  logic signed [63:0] s2_prod_q;
  logic               s2_sat_q;
  logic [4:0]         s2_shift_q;
  logic signed [7:0]  s2_zp_q;
  logic               s2_relu_q;
  logic [15:0]        s2_tag_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      s2_prod_q  <= '0;
      s2_sat_q   <= 1'b0;
      s2_shift_q <= '0;
      s2_zp_q    <= '0;
      s2_relu_q  <= 1'b0;
      s2_tag_q   <= '0;
    end else if (s1_valid_q) begin
      s2_prod_q  <= 64'(s1_sum_q) * 64'(s1_mult_q);
      s2_sat_q   <= (s1_sum_q == Int32Min) && (s1_mult_q == Int32Min);
      s2_shift_q <= s1_shift_q;
      s2_zp_q    <= s1_zp_q;
      s2_relu_q  <= s1_relu_q;
      s2_tag_q   <= s1_tag_q;
    end
  end

  // ---- stage 3: srdhm ----
  logic signed [31:0] s3_high_q;
  logic [4:0]         s3_shift_q;
  logic signed [7:0]  s3_zp_q;
  logic               s3_relu_q;
  logic [15:0]        s3_tag_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      s3_high_q  <= '0;
      s3_shift_q <= '0;
      s3_zp_q    <= '0;
      s3_relu_q  <= 1'b0;
      s3_tag_q   <= '0;
    end else if (s2_valid_q) begin
      s3_high_q  <= srdhm_high(s2_prod_q, s2_sat_q);
      s3_shift_q <= s2_shift_q;
      s3_zp_q    <= s2_zp_q;
      s3_relu_q  <= s2_relu_q;
      s3_tag_q   <= s2_tag_q;
    end
  end

  // ---- stage 4: rounding shift, zero-point, clamp ----
  logic signed [7:0]  s4_y_q;
  logic [15:0]        s4_tag_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      s4_y_q   <= '0;
      s4_tag_q <= '0;
    end else if (s3_valid_q) begin
      s4_y_q   <= shift_clamp(s3_high_q, s3_shift_q, s3_zp_q, s3_relu_q);
      s4_tag_q <= s3_tag_q;
    end
  end

  assign valid_o = s4_valid_q;
  assign y_o     = s4_y_q;
  assign tag_o   = s4_tag_q;
  assign busy_o  = s1_valid_q || s2_valid_q || s3_valid_q || s4_valid_q;

endmodule
