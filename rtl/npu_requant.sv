// npu_requant: int32 accumulator -> int8 output, bit-exact with requantize() in
// include/seatorch/quant/fixed_point.hpp (docs/NPU.md, "Arithmetic"):
//   y = clamp(zp + rounding_rshift(srdhm(acc + bias, mult), shift), relu ? zp : -128, 127)
// A 4-stage pipeline accepting one value per cycle:
//   1. acc + bias (int32, wrapping)      2. 32 x 32 -> 64-bit signed product
//   3. srdhm: nudge, divide by 2^31 toward zero, saturate INT32_MIN * INT32_MIN
//   4. rounding right shift, + zero-point (34 bits, so the clamp is exact), clamp
// tag_i (the output index) travels with the value. busy_o is high while any stage holds a
// value. A stage's registers load only when its input is valid (less switching in silicon,
// less work in simulation). Deliberately no handshake: the sequencer never feeds faster than one per cycle
// and never needs to stop the pipeline.
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

  // ---- stage 1: bias ----
  logic               s1_valid_q;
  logic signed [31:0] s1_sum_d, s1_sum_q;
  logic signed [31:0] s1_mult_q;
  logic [4:0]         s1_shift_q;
  logic signed [7:0]  s1_zp_q;
  logic               s1_relu_q;
  logic [15:0]        s1_tag_q;

  logic signed [31:0] s1_mult_d;
  logic [4:0]         s1_shift_d;
  logic signed [7:0]  s1_zp_d;
  logic               s1_relu_d;
  logic [15:0]        s1_tag_d;

  always_comb begin
    s1_sum_d   = s1_sum_q;
    s1_mult_d  = s1_mult_q;
    s1_shift_d = s1_shift_q;
    s1_zp_d    = s1_zp_q;
    s1_relu_d  = s1_relu_q;
    s1_tag_d   = s1_tag_q;
    if (valid_i) begin
      s1_sum_d   = acc_i + bias_i;
      s1_mult_d  = mult_i;
      s1_shift_d = shift_i;
      s1_zp_d    = zp_i;
      s1_relu_d  = relu_i;
      s1_tag_d   = tag_i;
    end
  end

  // ---- stage 2: product ----
  logic               s2_valid_q;
  logic signed [63:0] s2_prod_d, s2_prod_q;
  logic               s2_sat_d, s2_sat_q;
  logic [4:0]         s2_shift_q;
  logic signed [7:0]  s2_zp_q;
  logic               s2_relu_q;
  logic [15:0]        s2_tag_q;

  logic [4:0]         s2_shift_d;
  logic signed [7:0]  s2_zp_d;
  logic               s2_relu_d;
  logic [15:0]        s2_tag_d;

  always_comb begin
    s2_prod_d  = s2_prod_q;
    s2_sat_d   = s2_sat_q;
    s2_shift_d = s2_shift_q;
    s2_zp_d    = s2_zp_q;
    s2_relu_d  = s2_relu_q;
    s2_tag_d   = s2_tag_q;
    if (s1_valid_q) begin
      s2_prod_d  = 64'(s1_sum_q) * 64'(s1_mult_q);
      s2_sat_d   = (s1_sum_q == Int32Min) && (s1_mult_q == Int32Min);
      s2_shift_d = s1_shift_q;
      s2_zp_d    = s1_zp_q;
      s2_relu_d  = s1_relu_q;
      s2_tag_d   = s1_tag_q;
    end
  end

  // ---- stage 3: srdhm ----
  logic               s3_valid_q;
  logic signed [31:0] s3_high_d, s3_high_q;
  logic [4:0]         s3_shift_q;
  logic signed [7:0]  s3_zp_q;
  logic               s3_relu_q;
  logic [15:0]        s3_tag_q;

  logic signed [63:0] nudged;
  logic signed [63:0] quotient;  // nudged / 2^31, truncated toward zero

  logic [4:0]         s3_shift_d;
  logic signed [7:0]  s3_zp_d;
  logic               s3_relu_d;
  logic [15:0]        s3_tag_d;

  always_comb begin
    nudged     = '0;
    quotient   = '0;
    s3_high_d  = s3_high_q;
    s3_shift_d = s3_shift_q;
    s3_zp_d    = s3_zp_q;
    s3_relu_d  = s3_relu_q;
    s3_tag_d   = s3_tag_q;
    if (s2_valid_q) begin
      nudged     = s2_prod_q + (s2_prod_q >= 64'sd0 ? 64'sd1073741824 : -64'sd1073741823);
      quotient   = (nudged >= 64'sd0) ? (nudged >>> 31) : ((nudged + 64'sd2147483647) >>> 31);
      s3_high_d  = s2_sat_q ? Int32Max : quotient[31:0];
      s3_shift_d = s2_shift_q;
      s3_zp_d    = s2_zp_q;
      s3_relu_d  = s2_relu_q;
      s3_tag_d   = s2_tag_q;
    end
  end

  // The quotient fits 32 bits except for INT32_MIN * INT32_MIN, which s2_sat_q replaces.
  logic unused_quotient_high;
  assign unused_quotient_high = ^quotient[63:32];

  // ---- stage 4: rounding shift, zero-point, clamp ----
  logic               s4_valid_q;
  logic signed [7:0]  s4_y_d, s4_y_q;
  logic [15:0]        s4_tag_q;

  logic [31:0]        mask;       // 2^shift - 1
  logic [31:0]        remainder;
  logic [31:0]        threshold;
  logic signed [31:0] shifted;
  logic signed [33:0] with_zp;
  logic signed [33:0] lo;

  logic [15:0]        s4_tag_d;

  always_comb begin
    mask      = '0;
    remainder = '0;
    threshold = '0;
    shifted   = '0;
    with_zp   = '0;
    lo        = '0;
    s4_y_d    = s4_y_q;
    s4_tag_d  = s4_tag_q;
    if (s3_valid_q) begin
      mask      = ~(32'hFFFF_FFFF << s3_shift_q);
      remainder = s3_high_q & mask;
      threshold = (mask >> 1) + {31'd0, s3_high_q[31]};
      shifted   = (s3_high_q >>> s3_shift_q) + ((remainder > threshold) ? 32'sd1 : 32'sd0);
      with_zp   = 34'(shifted) + 34'(s3_zp_q);
      lo        = s3_relu_q ? 34'(s3_zp_q) : -34'sd128;
      s4_tag_d  = s3_tag_q;
      if (with_zp < lo) begin
        s4_y_d = lo[7:0];
      end else if (with_zp > 34'sd127) begin
        s4_y_d = 8'sd127;
      end else begin
        s4_y_d = with_zp[7:0];
      end
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      s1_valid_q <= 1'b0;
      s1_sum_q   <= '0;
      s1_mult_q  <= '0;
      s1_shift_q <= '0;
      s1_zp_q    <= '0;
      s1_relu_q  <= 1'b0;
      s1_tag_q   <= '0;
      s2_valid_q <= 1'b0;
      s2_prod_q  <= '0;
      s2_sat_q   <= 1'b0;
      s2_shift_q <= '0;
      s2_zp_q    <= '0;
      s2_relu_q  <= 1'b0;
      s2_tag_q   <= '0;
      s3_valid_q <= 1'b0;
      s3_high_q  <= '0;
      s3_shift_q <= '0;
      s3_zp_q    <= '0;
      s3_relu_q  <= 1'b0;
      s3_tag_q   <= '0;
      s4_valid_q <= 1'b0;
      s4_y_q     <= '0;
      s4_tag_q   <= '0;
    end else begin
      s1_valid_q <= valid_i;
      s1_sum_q   <= s1_sum_d;
      s1_mult_q  <= s1_mult_d;
      s1_shift_q <= s1_shift_d;
      s1_zp_q    <= s1_zp_d;
      s1_relu_q  <= s1_relu_d;
      s1_tag_q   <= s1_tag_d;
      s2_valid_q <= s1_valid_q;
      s2_prod_q  <= s2_prod_d;
      s2_sat_q   <= s2_sat_d;
      s2_shift_q <= s2_shift_d;
      s2_zp_q    <= s2_zp_d;
      s2_relu_q  <= s2_relu_d;
      s2_tag_q   <= s2_tag_d;
      s3_valid_q <= s2_valid_q;
      s3_high_q  <= s3_high_d;
      s3_shift_q <= s3_shift_d;
      s3_zp_q    <= s3_zp_d;
      s3_relu_q  <= s3_relu_d;
      s3_tag_q   <= s3_tag_d;
      s4_valid_q <= s3_valid_q;
      s4_y_q     <= s4_y_d;
      s4_tag_q   <= s4_tag_d;
    end
  end

  assign valid_o = s4_valid_q;
  assign y_o     = s4_y_q;
  assign tag_o   = s4_tag_q;
  assign busy_o  = s1_valid_q || s2_valid_q || s3_valid_q || s4_valid_q;

endmodule
