// npu_requant_serial: the requantization of npu_requant, one output at a time and without a
// hardware multiplier, for parts whose multipliers all serve the MAC lanes (the iCE40 UP5K
// has 8 SB_MAC16, one per lane). Bit-exact with requantize() in
// include/seatorch/quant/fixed_point.hpp:
//   y = clamp(zp + rounding_rshift(srdhm(acc + bias, mult), shift), relu ? zp : -128, 127)
// One shift-and-add datapath does all the work, with a fixed schedule per output:
//   accept   the operands captured                                        (valid_i)
//   sum      a = acc + bias
//   32 x     {p, m} = ({p, m} + (m[0] ? +-a : 0)) >>> 1: the 64-bit product in {p, m}
//            (radix 2; the sign bit of mult weighs -2^31, so the last step subtracts)
//   round    x = srdhm = floor((a * mult + 2^30) / 2^31) = product[63:31] + product[30]
//   31 x     p = p >>> 1 while fewer than `shift` steps are done, keeping the last bit
//            shifted out (half) and whether any before it was set (sticky): the remainder
//            test of rounding_rshift without a barrel shifter or a 32-bit compare
//   add      w = (x >>> shift) + round + zp, round = half && (x >= 0 || sticky)
//   clamp    y = clamp(w, relu ? zp : -128, 127); valid_o for one cycle
// so every output takes 68 cycles from valid_i to valid_o, and the next valid_i may follow
// 68 cycles after the last, whatever the shift (docs/NPU.md, "Timing"). ready_o says
// valid_i may be raised in the next cycle.
// Deliberately not pipelined across outputs: a group of Lanes outputs is requantized while
// the MAC array accumulates the next group over `in` cycles, which hides it for in >= 544
// (8 lanes x 68 cycles).
module npu_requant_serial (
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

  output logic               ready_o,
  output logic               valid_o,
  output logic signed [7:0]  y_o,
  output logic [15:0]        tag_o,
  output logic               busy_o
);

  localparam logic signed [31:0] Int32Min = 32'sh8000_0000;
  localparam logic signed [31:0] Int32Max = 32'sh7FFF_FFFF;

  typedef enum logic [2:0] {
    StIdle,
    StSum,
    StMul,
    StRound,
    StShift,
    StAdd,
    StClamp
  } state_e;

  state_e state_d, state_q;
  logic [4:0] step_q;            // step within StMul (0..31) and StShift (0..30)
  logic       last_step;

  assign last_step = (state_q == StMul) ? (step_q == 5'd31) : (step_q == 5'd30);

  always_comb begin
    state_d = state_q;
    unique case (state_q)
      StIdle:  if (valid_i) state_d = StSum;
      StSum:   state_d = StMul;
      StMul:   if (last_step) state_d = StRound;
      StRound: state_d = StShift;
      StShift: if (last_step) state_d = StAdd;
      StAdd:   state_d = StClamp;
      StClamp: state_d = StIdle;
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

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      step_q <= '0;
    end else if (state_q == StMul || state_q == StShift) begin
      step_q <= last_step ? 5'd0 : step_q + 5'd1;
    end
  end

  // ---- operands, captured with valid_i ----
  logic signed [31:0] acc_q, bias_q;
  logic               mult_min_q;  // mult == INT32_MIN
  logic signed [31:0] a_q;       // acc + bias (int32, wrapping), formed in StSum
  logic               sat_q;     // a == mult == INT32_MIN: srdhm saturates
  logic [4:0]         shift_q;
  logic signed [7:0]  zp_q;
  logic               relu_q;
  logic [15:0]        tag_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      acc_q      <= '0;
      bias_q     <= '0;
      mult_min_q <= 1'b0;
      shift_q    <= '0;
      zp_q       <= '0;
      relu_q     <= 1'b0;
      tag_q      <= '0;
    end else if (state_q == StIdle && valid_i) begin
      // the operands as they come, straight from the row memories: the sum waits a cycle
      acc_q      <= acc_i;
      bias_q     <= bias_i;
      mult_min_q <= (mult_i == Int32Min);
      shift_q    <= shift_i;
      zp_q       <= zp_i;
      relu_q     <= relu_i;
      tag_q      <= tag_i;
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      a_q <= '0;
    end else if (state_q == StSum) begin
      a_q <= acc_q + bias_q;
    end
  end

  // ---- the shift-and-add datapath ----
  // p: the product's upper part (33 bits: p + a never overflows them); m: the multiplier,
  // which the product's low half replaces one bit per step. Each register has one source
  // and an enable, so a step's path is the adder alone: the addend is chosen a step ahead
  // (from the multiplier's next bit, m_q[1]), and the first step's zero p is a gate folded
  // into the adder's LUTs (first_q) rather than a clear.
  logic signed [32:0] p_q;
  logic [31:0]        m_q;
  logic               first_q;   // the first multiply step: p counts as 0
  logic signed [32:0] na_q;      // -a, formed in the first multiply step (as is sat_q)
  logic signed [32:0] addend_q;  // the step's addend: +a, -a (the sign bit's step) or 0
  logic signed [32:0] sum;
  logic signed [31:0] srdhm;     // product[63:31] + product[30]
  logic signed [31:0] high;      // srdhm(a, mult), saturated

  assign sum    = (first_q ? 33'sd0 : p_q) + addend_q;
  // product[63:31] fits 32 bits except for INT32_MIN * INT32_MIN (sat_q), so its bit 32
  // (p_q[31]) repeats bit 31; and the + product[30] cannot overflow (the largest other
  // product, 2^62 - 2^31, has bit 30 clear).
  assign srdhm  = {p_q[30:0], m_q[31]} + {31'd0, m_q[30]};
  assign high   = sat_q ? Int32Max : srdhm;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      na_q     <= '0;
      sat_q    <= 1'b0;
      addend_q <= '0;
    end else if (state_q == StMul) begin
      if (step_q == 5'd0) begin
        na_q  <= -(33'(a_q));
        sat_q <= (a_q == Int32Min) && mult_min_q;
      end
      addend_q <= !m_q[1]           ? 33'sd0 :
                  (step_q == 5'd30) ? na_q : 33'(a_q);
    end else if (state_q == StSum) begin
      // the first step's addend, from the sum being formed
      addend_q <= m_q[0] ? 33'(acc_q + bias_q) : 33'sd0;
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      p_q     <= '0;
      m_q     <= '0;
      first_q <= 1'b0;
    end else if (state_q == StMul) begin
      p_q     <= sum >>> 1;
      m_q     <= {sum[0], m_q[31:1]};
      first_q <= 1'b0;
    end else if (state_q == StIdle && valid_i) begin
      m_q     <= mult_i;
      first_q <= 1'b1;
    end
  end

  // ---- the rounding shift ----
  // x: srdhm, then shifted right one bit per step while fewer than `shift` steps are done;
  // half: the last bit shifted out; sticky: whether any before it was set.
  logic signed [32:0] x_q;
  logic               half_q, sticky_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      x_q      <= '0;
      half_q   <= 1'b0;
      sticky_q <= 1'b0;
    end else if (state_q == StShift) begin
      if (step_q < shift_q) begin
        x_q      <= x_q >>> 1;
        half_q   <= x_q[0];
        sticky_q <= sticky_q || half_q;
      end
    end else if (state_q == StRound) begin
      x_q      <= 33'(high);
      half_q   <= 1'b0;
      sticky_q <= 1'b0;
    end
  end

  // ---- rounding, zero-point and clamp ----
  // StAdd: w = (x >>> shift) + round + zp in 34 bits (the round bit is the adder's carry in),
  // and whether (x >>> shift) + round is negative (the ReLU's lower clamp: w < zp); that is
  // x >>> shift < 0 unless it is -1 and rounds up to 0.
  // StClamp: w fits int8 when its bits [33:7] are all equal: an AND tree, no compare chain.
  logic               round;
  logic signed [33:0] w_q;
  logic               neg_q;
  logic               w_fits;
  logic signed [7:0]  y_q;
  logic               valid_q;

  assign round  = half_q && (!x_q[32] || sticky_q);
  assign w_fits = (&w_q[33:7]) || !(|w_q[33:7]);

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      w_q   <= '0;
      neg_q <= 1'b0;
    end else if (state_q == StAdd) begin
      w_q   <= 34'(x_q) + 34'(zp_q) + 34'({33'd0, round});
      neg_q <= x_q[32] && !((&x_q) && round);
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      y_q <= '0;
    end else if (state_q == StClamp) begin
      if (relu_q && neg_q) begin
        y_q <= zp_q;                 // below the ReLU's floor
      end else if (w_fits) begin
        y_q <= w_q[7:0];
      end else begin
        // w >= zp >= -128 under ReLU, so out of range there means above 127
        y_q <= w_q[33] ? -8'sd128 : 8'sd127;
      end
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      valid_q <= 1'b0;
    end else begin
      valid_q <= (state_q == StClamp);
    end
  end

  assign ready_o = ((state_q == StIdle) && !valid_i) || (state_q == StClamp);
  assign valid_o = valid_q;
  assign y_o     = y_q;
  assign tag_o   = tag_q;
  assign busy_o  = (state_q != StIdle) || valid_q;

endmodule
