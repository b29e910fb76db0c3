// npu_uart_tx: 8N1 UART transmitter.
//
// Takes a byte when valid_i && ready_o and sends start bit, 8 data bits LSB first and the
// stop bit, each exactly clks_per_bit_i cycles long. ready_o is high only while idle, so a
// caller can stream bytes back to back by holding valid_i. The line output is a register.
// Deliberately no FIFO: the response encoder waits for ready_o.
module npu_uart_tx (
  input  logic        clk_i,
  input  logic        rst_ni,

  // configuration
  input  logic [15:0] clks_per_bit_i,

  // bytes to send
  input  logic        valid_i,
  input  logic [7:0]  data_i,
  output logic        ready_o,

  // the line
  output logic        tx_o
);

  typedef enum logic {
    StIdle,
    StSend
  } state_e;

  state_e      state_d, state_q;
  logic [15:0] cnt_d, cnt_q;      // cycles into the current bit
  logic [3:0]  bit_d, bit_q;      // 0: start bit on the line, 1-8: data, 9: stop
  logic [8:0]  shift_d, shift_q;  // {stop, data bits not yet on the line}
  logic        line_d, line_q;

  always_comb begin
    state_d = state_q;
    cnt_d   = cnt_q;
    bit_d   = bit_q;
    shift_d = shift_q;
    line_d  = line_q;

    unique case (state_q)
      StIdle: begin
        line_d = 1'b1;
        if (valid_i) begin
          shift_d = {1'b1, data_i};
          line_d  = 1'b0;
          cnt_d   = 16'd1;
          bit_d   = 4'd0;
          state_d = StSend;
        end
      end
      StSend: begin
        if (cnt_q >= clks_per_bit_i) begin
          cnt_d = 16'd1;
          if (bit_q == 4'd9) begin
            state_d = StIdle;
          end else begin
            line_d  = shift_q[0];
            shift_d = {1'b1, shift_q[8:1]};
            bit_d   = bit_q + 4'd1;
          end
        end else begin
          cnt_d = cnt_q + 16'd1;
        end
      end
      default: state_d = StIdle;
    endcase
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q <= StIdle;
      cnt_q   <= '0;
      bit_q   <= '0;
      shift_q <= '1;
      line_q  <= 1'b1;
    end else begin
      state_q <= state_d;
      cnt_q   <= cnt_d;
      bit_q   <= bit_d;
      shift_q <= shift_d;
      line_q  <= line_d;
    end
  end

  assign ready_o = (state_q == StIdle);
  assign tx_o    = line_q;

endmodule
