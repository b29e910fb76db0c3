// npu_argmax: the index of the largest int8 value of a stream, the lowest index winning a
// tie (like argmax_int8): a value replaces the best only when strictly larger, so values
// must arrive in increasing index order. clear_i forgets the stream.
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

  // enable-style: the registers load only when a value wins (or on clear)
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      seen_q  <= 1'b0;
      best_q  <= '0;
      index_q <= '0;
    end else if (!clear_i && valid_i && (!seen_q || value_i > best_q)) begin
      seen_q  <= 1'b1;
      best_q  <= value_i;
      index_q <= index_i;
    end else if (clear_i) begin
      seen_q  <= 1'b0;
      index_q <= '0;
    end
  end

  assign index_o = index_q;

endmodule
