// npu_frame_rx: turns the received byte stream into request frames
// (docs/NPU.md, "UART frame protocol"):  A5 5A | type | seq | len u16 | payload | crc u32.
//
// While idle and accept_i is high it hunts for the sync bytes. Payload bytes are handed
// out as they arrive (pl_we_o with their index); the caller stores them and must not act
// on them before done_o. done_o pulses once per frame with err_o:
//   ErrLength  as soon as the length exceeds the command's limit (ActDepth for INFER,
//              MaxPayload otherwise); the rest of the frame is then ignored,
//   ErrTimeout when no byte arrived for TimeoutBits bit times after the sync bytes,
//   ErrFraming when any byte after the sync bytes had a low stop bit,
//   ErrCrc     when the CRC-32 over type..payload does not match,
//   ErrNone    otherwise.
// Deliberately no knowledge of the commands beyond the INFER length limit.
module npu_frame_rx #(
  parameter int unsigned ActDepth = npu_pkg::ActDepth
) (
  input  logic        clk_i,
  input  logic        rst_ni,

  input  logic [15:0] bit_last_i,      // clocks per bit - 1 (registered in npu_top)
  input  logic        accept_i,      // the executor can take a frame

  // bytes from the UART
  input  logic        byte_valid_i,
  input  logic [7:0]  byte_i,
  input  logic        byte_ferr_i,

  // payload bytes as they arrive
  output logic        pl_we_o,
  output logic [15:0] pl_idx_o,
  output logic [7:0]  pl_data_o,
  output logic [7:0]  pl_cmd_o,      // the frame's type, to route the payload

  // the finished frame
  output logic        done_o,
  output logic [7:0]  err_o,
  output logic [7:0]  cmd_o,
  output logic [7:0]  seq_o,
  output logic [15:0] len_o
);

  typedef enum logic [2:0] {
    StHunt,
    StSync1,
    StCmd,
    StSeq,
    StLen0,
    StLen1,
    StPayload,
    StCrc
  } state_e;

  state_e      state_d, state_q;
  logic [7:0]  cmd_q;
  logic [7:0]  seq_q;
  logic [15:0] len_q;
  logic [15:0] idx_q;        // payload byte, or CRC byte (0-3)
  logic [23:0] crc_rx_q;     // the first three CRC bytes received, little-endian
  logic        ferr_q;       // a framing error since the sync bytes
  logic [15:0] left_q;       // payload bytes after the current one: the last is a zero test
  logic [15:0] idle_cyc_q;   // cycles left in the current idle bit time
  logic [15:0] idle_bits_q;  // idle bit times since the last byte
  logic        done_d, done_q;
  logic [7:0]  err_d, err_q;

  logic        sync_done;    // the second sync byte: a frame begins
  logic        crc_valid;
  logic [31:0] crc_calc;

  npu_crc32 u_crc (
    .clk_i  (clk_i),
    .rst_ni (rst_ni),
    .clear_i(sync_done),
    .valid_i(crc_valid),
    .data_i (byte_i),
    .crc_o  (crc_calc)
  );

  logic [15:0] len_full;   // the length once its high byte arrives
  assign len_full  = {byte_i, len_q[7:0]};

  // len > the command's limit, decided byte by byte: the low byte's half is registered as it
  // arrives (lo_over_q), whether the command is INFER as the command byte arrives, and the
  // verdict with the high byte (len_over_q); the frame is abandoned in the cycle after
  // that (len_check_q), before the next byte can arrive. The comparisons thus never sit in
  // front of the FSM's decisions (the iCE40 timing).
  localparam logic [15:0] InferLimit = 16'(ActDepth);
  localparam logic [15:0] OtherLimit = 16'(npu_pkg::MaxPayload);
  logic is_infer_q;
  logic lo_over_q;            // the low byte exceeds the limit's low byte
  logic len_over;
  logic len_over_q, len_check_q;
  assign len_over = is_infer_q ? (byte_i > InferLimit[15:8] || (byte_i == InferLimit[15:8] && lo_over_q))
                               : (byte_i > OtherLimit[15:8] || (byte_i == OtherLimit[15:8] && lo_over_q));

  logic [31:0] crc_rx_full;  // the received CRC once its last byte arrives
  assign crc_rx_full = {byte_i, crc_rx_q};

  logic in_frame;            // after the sync bytes
  assign in_frame = (state_q != StHunt) && (state_q != StSync1);

  always_comb begin
    state_d   = state_q;
    done_d    = 1'b0;
    err_d     = npu_pkg::ErrNone;
    sync_done = 1'b0;
    crc_valid = 1'b0;
    pl_we_o   = 1'b0;

    if (byte_valid_i) begin
      unique case (state_q)
        StHunt: begin
          if (accept_i && !byte_ferr_i && byte_i == npu_pkg::Sync0) begin
            state_d = StSync1;
          end
        end
        StSync1: begin
          if (!byte_ferr_i && byte_i == npu_pkg::Sync1) begin
            state_d   = StCmd;
            sync_done = 1'b1;
          end else if (!byte_ferr_i && byte_i == npu_pkg::Sync0) begin
            state_d = StSync1;
          end else begin
            state_d = StHunt;
          end
        end
        StCmd: begin
          crc_valid = 1'b1;
          state_d   = StSeq;
        end
        StSeq: begin
          crc_valid = 1'b1;
          state_d   = StLen0;
        end
        StLen0: begin
          crc_valid = 1'b1;
          state_d   = StLen1;
        end
        StLen1: begin
          crc_valid = 1'b1;
          state_d   = (len_full == 16'd0) ? StCrc : StPayload;
        end
        StPayload: begin
          pl_we_o   = 1'b1;
          crc_valid = 1'b1;
          if (left_q == 16'd0) begin
            state_d = StCrc;
          end
        end
        StCrc: begin
          if (idx_q == 16'd3) begin
            done_d  = 1'b1;
            state_d = StHunt;
            if (ferr_q || byte_ferr_i) begin
              err_d = npu_pkg::ErrFraming;
            end else if (crc_rx_full != crc_calc) begin
              err_d = npu_pkg::ErrCrc;
            end
          end
        end
        default: state_d = StHunt;
      endcase
    end else if (len_check_q && len_over_q) begin
      done_d  = 1'b1;
      err_d   = npu_pkg::ErrLength;
      state_d = StHunt;
    end else if (in_frame && idle_bits_q == 16'(npu_pkg::TimeoutBits)) begin
      // (an equality, not >=: the count passes every value, and stops once the frame is
      // abandoned, so the two agree; equality is a shallow AND tree, >= a carry chain)
      done_d  = 1'b1;
      err_d   = npu_pkg::ErrTimeout;
      state_d = StHunt;
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q     <= StHunt;
      done_q      <= 1'b0;
      len_check_q <= 1'b0;
    end else begin
      state_q     <= state_d;
      done_q      <= done_d;
      len_check_q <= byte_valid_i && (state_q == StLen1);
    end
  end

  // The datapath registers are enable-style flops: the header fields load from the byte
  // stream in the state that expects them, and nothing else switches between bytes (less
  // power in silicon, less work in simulation).
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      cmd_q    <= '0;
      is_infer_q <= 1'b0;
      lo_over_q  <= 1'b0;
      len_over_q <= 1'b0;
      seq_q    <= '0;
      len_q    <= '0;
      idx_q    <= '0;
      left_q   <= '0;
      crc_rx_q <= '0;
    end else if (byte_valid_i) begin
      unique case (state_q)
        StCmd: begin
          cmd_q      <= byte_i;
          is_infer_q <= (byte_i == npu_pkg::CmdInfer);
        end
        StSeq:  seq_q <= byte_i;
        StLen0: begin
          len_q     <= {8'd0, byte_i};
          lo_over_q <= is_infer_q ? (byte_i > InferLimit[7:0]) : (byte_i > OtherLimit[7:0]);
        end
        StLen1: begin
          len_over_q <= len_over;
          len_q      <= len_full;
          idx_q      <= 16'd0;
          left_q     <= len_full - 16'd1;
        end
        StPayload: begin
          idx_q  <= (left_q == 16'd0) ? 16'd0 : idx_q + 16'd1;
          left_q <= left_q - 16'd1;
        end
        StCrc: begin
          crc_rx_q <= crc_rx_full[31:8];
          idx_q    <= idx_q + 16'd1;
        end
        default: ;
      endcase
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      ferr_q <= 1'b0;
      err_q  <= '0;
    end else begin
      if (sync_done) begin
        ferr_q <= 1'b0;
      end else if (byte_valid_i && byte_ferr_i && in_frame) begin
        ferr_q <= 1'b1;
      end
      if (done_d) begin
        err_q <= err_d;
      end
    end
  end

  // The timeout: idle bit times since the last byte, counted only inside a frame (a frame
  // always begins with a byte, which clears the count).
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      idle_cyc_q  <= '0;
      idle_bits_q <= '0;
    end else if (!byte_valid_i && in_frame) begin
      // idle_cyc_q counts a bit time down, so its end is a zero test, not a compare
      if (idle_cyc_q == 16'd0) begin
        idle_bits_q <= idle_bits_q + 16'd1;
        idle_cyc_q  <= bit_last_i;
      end else begin
        idle_cyc_q <= idle_cyc_q - 16'd1;
      end
    end else if (byte_valid_i) begin
      idle_cyc_q  <= bit_last_i;
      idle_bits_q <= 16'd0;
    end
  end

  assign pl_idx_o  = idx_q;
  assign pl_data_o = byte_i;
  assign pl_cmd_o  = cmd_q;
  assign done_o    = done_q;
  assign err_o     = err_q;
  assign cmd_o     = cmd_q;
  assign seq_o     = seq_q;
  assign len_o     = len_q;

endmodule
