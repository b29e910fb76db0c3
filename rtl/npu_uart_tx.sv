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
  input  logic [15:0] bit_last_i,   // clocks per bit - 1 (registered in npu_top)

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
  logic [15:0] cnt_q;      // cycles left in the current bit
  logic [3:0]  bit_q;      // 0: start bit on the line, 1-8: data, 9: stop
  logic [8:0]  shift_q;    // {stop, data bits not yet on the line}
  logic        line_q;

  logic load, bit_end;     // a byte is taken; the current bit's last cycle
  assign load    = (state_q == StIdle) && valid_i;
  assign bit_end = (state_q == StSend) && (cnt_q == 16'd0);

  always_comb begin
    state_d = state_q;
    unique case (state_q)
      StIdle:  if (valid_i) state_d = StSend;
      StSend:  if (bit_end && bit_q == 4'd9) state_d = StIdle;
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

  // The datapath registers are enable-style flops: while the line idles nothing switches
  // (and the simulation does no work for the transmitter).
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      cnt_q <= '0;
    end else if (state_q == StSend && !bit_end) begin
      cnt_q <= cnt_q - 16'd1;
    end else if (load || bit_end) begin
      cnt_q <= bit_last_i;
    end
  end

  // The line returns to idle (high) with the stop bit, the last bit shifted out, and stays
  // there until the next byte's start bit.
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      bit_q   <= '0;
      shift_q <= '1;
      line_q  <= 1'b1;
    end else if (bit_end && bit_q != 4'd9) begin
      line_q  <= shift_q[0];
      shift_q <= {1'b1, shift_q[8:1]};
      bit_q   <= bit_q + 4'd1;
    end else if (load) begin
      shift_q <= {1'b1, data_i};
      line_q  <= 1'b0;
      bit_q   <= 4'd0;
    end
  end

  assign ready_o = (state_q == StIdle);
  assign tx_o    = line_q;

endmodule
