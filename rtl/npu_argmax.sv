// npu_argmax: the index of the largest int8 value of a stream, the lowest index winning a
// tie (like argmax_int8): a value replaces the best only when strictly larger, so values
// must arrive in increasing index order. clear_i forgets the stream.
// The stream is registered before the comparison, so index_o follows a value two cycles
// after it arrives (the compare and the registers' enable then start at flops). Values are
// kept as unsigned keys, value + 128 (the sign bit flipped), which order as the values do:
// an unsigned compare is the carry chain alone, a signed one needs a LUT after it.
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
  logic [7:0]        best_q;   // the best value's key
  logic [15:0]       index_q;

  // the stream, registered
  logic              in_valid_q;
  logic [7:0]        in_key_q; // value + 128
  logic [15:0]       in_index_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      in_valid_q <= 1'b0;
      in_key_q   <= '0;
      in_index_q <= '0;
    end else begin
      in_valid_q <= valid_i && !clear_i;
      if (valid_i) begin
        in_key_q   <= {~value_i[7], value_i[6:0]};
        in_index_q <= index_i;
      end
    end
  end

  // enable-style: the registers load only when a value wins (or on clear). For the iCE40
  // timing, the clear comes first and clears all three: then the 25 registers share one
  // enable, one LUT after the compare's carry chain, and the values they load do not
  // depend on the compare (with the win first, Yosys built each index bit's D input from
  // the compare too, four LUT levels after the carry: the deepest path of the iCE40 build).
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      seen_q  <= 1'b0;
      best_q  <= '0;
      index_q <= '0;
    end else if (clear_i) begin
      seen_q  <= 1'b0;
      best_q  <= '0;
      index_q <= '0;
    end else if (in_valid_q && (!seen_q || in_key_q > best_q)) begin
      seen_q  <= 1'b1;
      best_q  <= in_key_q;
      index_q <= in_index_q;
    end
  end

  assign index_o = index_q;

endmodule
