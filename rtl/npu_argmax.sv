// npu_argmax: the index of the largest int8 value of a stream, the lowest index winning a
// tie (like argmax_int8): a value replaces the best only when strictly larger, so values
// must arrive in increasing index order. clear_i forgets the stream.
// The stream is registered before the comparison, so index_o follows a value two cycles
// after it arrives (the compare and the registers' enable then start at flops).
module npu_argmax (
  input  logic              clk_i,
  input  logic              rst_ni,

  input  logic              clear_i,
  input  logic              valid_i,
  input  logic signed [7:0] value_i,
  input  logic [15:0]       index_i,

  output logic [15:0]       index_o
);

  logic              seen_q;   // at least one value since clear
  logic signed [7:0] best_q;
  logic [15:0]       index_q;

  // the stream, registered
  logic              in_valid_q;
  logic signed [7:0] in_value_q;
  logic [15:0]       in_index_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      in_valid_q <= 1'b0;
      in_value_q <= '0;
      in_index_q <= '0;
    end else begin
      in_valid_q <= valid_i && !clear_i;
      if (valid_i) begin
        in_value_q <= value_i;
        in_index_q <= index_i;
      end
    end
  end

  // enable-style: the registers load only when a value wins (or on clear)
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      seen_q  <= 1'b0;
      best_q  <= '0;
      index_q <= '0;
    end else if (!clear_i && in_valid_q && (!seen_q || in_value_q > best_q)) begin
      seen_q  <= 1'b1;
      best_q  <= in_value_q;
      index_q <= in_index_q;
    end else if (clear_i) begin
      seen_q  <= 1'b0;
      index_q <= '0;
    end
  end

  assign index_o = index_q;

endmodule
