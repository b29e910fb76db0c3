// npu_uart_rx: 8N1 UART receiver.
//
// The line goes through a two-flop synchronizer. A falling edge starts a byte; the start
// bit is checked again half a bit later (a shorter low pulse is a glitch and ignored), then
// every data bit and the stop bit are sampled in their middle, clks_per_bit_i cycles apart.
// A low stop bit is a framing error: the byte is still delivered, flagged, and the
// receiver waits for the line to return high before it looks for the next start bit.
// The receiver returns to idle in the middle of the stop bit, which leaves half a bit of
// tolerance for a transmitter running slightly fast.
// The bit time comes as two down-counter reload values, clocks per bit - 1 and half of it
// - 1, registered in npu_top: each sample point is then a counter reaching zero, with no
// compare against the setting (the iCE40 timing). Assumes clocks per bit >=
// npu_pkg::MinClksPerBit and that the setting changes only while idle.
// Deliberately no FIFO: the frame decoder consumes every byte in the cycle it arrives.
module npu_uart_rx (
  input  logic        clk_i,
  input  logic        rst_ni,

  // configuration: clocks per bit - 1, and (clocks per bit) / 2 - 1
  input  logic [15:0] bit_last_i,
  input  logic [15:0] half_last_i,

  // the line
  input  logic        rx_i,

  // received bytes
  output logic        valid_o,      // one-cycle pulse per byte
  output logic [7:0]  data_o,       // the byte, stable until the next one
  output logic        frame_err_o   // qualifies valid_o: the stop bit was low
);

  typedef enum logic [2:0] {
    StIdle,
    StStart,
    StData,
    StStop,
    StWaitHigh
  } state_e;

  state_e      state_d, state_q;
  logic        meta_q, line_q;       // the synchronizer; line_q is the usable line level
  logic [15:0] cnt_q;                // cycles left to the current bit's sample point
  logic [2:0]  bit_q;                // data bit being received
  logic [7:0]  shift_q;              // data bits, LSB first
  logic        valid_q;
  logic        ferr_q;

  // The sample point of the current bit: half a bit into the start bit, a whole bit into
  // every other one (the reload values below).
  logic        at_sample;
  assign at_sample = (cnt_q == 16'd0);

  // strobes for the datapath registers below
  logic cnt_restart, cnt_step, data_sample, stop_sample;

  always_comb begin
    state_d     = state_q;
    cnt_restart = 1'b0;
    cnt_step    = 1'b0;
    data_sample = 1'b0;
    stop_sample = 1'b0;

    unique case (state_q)
      StIdle: begin
        if (!line_q) begin
          cnt_restart = 1'b1;
          state_d     = StStart;
        end
      end
      StStart: begin
        if (at_sample) begin
          cnt_restart = 1'b1;
          state_d     = line_q ? StIdle : StData;  // high again: a glitch, not a start bit
        end else begin
          cnt_step = 1'b1;
        end
      end
      StData: begin
        if (at_sample) begin
          cnt_restart = 1'b1;
          data_sample = 1'b1;
          if (bit_q == 3'd7) begin
            state_d = StStop;
          end
        end else begin
          cnt_step = 1'b1;
        end
      end
      StStop: begin
        if (at_sample) begin
          stop_sample = 1'b1;
          state_d     = line_q ? StIdle : StWaitHigh;
        end else begin
          cnt_step = 1'b1;
        end
      end
      StWaitHigh: begin
        if (line_q) begin
          state_d = StIdle;
        end
      end
      default: state_d = StIdle;
    endcase
  end

  // The FSM state and the synchronizer load every cycle; the datapath registers are
  // enable-style flops that load only at their strobes (less switching in silicon, less
  // work in simulation).
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      meta_q  <= 1'b1;
      line_q  <= 1'b1;
      state_q <= StIdle;
      valid_q <= 1'b0;
    end else begin
      meta_q  <= rx_i;
      line_q  <= meta_q;
      state_q <= state_d;
      valid_q <= stop_sample;
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      cnt_q <= '0;
    end else if (cnt_step) begin
      cnt_q <= cnt_q - 16'd1;
    end else if (cnt_restart) begin
      cnt_q <= (state_q == StIdle) ? half_last_i : bit_last_i;
    end
  end

  // bit_q restarts with the data bits (the start bit's sample point) and counts them
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      bit_q   <= '0;
      shift_q <= '0;
    end else if (data_sample) begin
      bit_q   <= bit_q + 3'd1;
      shift_q <= {line_q, shift_q[7:1]};
    end else if (state_q == StStart) begin
      bit_q <= 3'd0;
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      ferr_q <= 1'b0;
    end else if (stop_sample) begin
      ferr_q <= !line_q;
    end
  end

  assign valid_o     = valid_q;
  assign data_o      = shift_q;
  assign frame_err_o = ferr_q;

endmodule
