// npu_frame_tx: the response encoder. Sends one frame
//   A5 5A | type | seq | len u16 | fixed bytes | tail bytes | crc u32
// where the fixed bytes are asked from npu_ctrl by index (ACK/NAK fields, the status block,
// class and cycles) and the tail bytes are read from a memory one by one (logits, or the
// ECHO payload), and computes the CRC-32 over type..tail on the way. done_o pulses once the
// last stop bit is on the line. The inputs must stay stable from start_i to done_o.
// Deliberately no buffering: the UART is far slower than the memory and the byte mux.
module npu_frame_tx (
  input  logic                    clk_i,
  input  logic                    rst_ni,

  // the response
  input  logic                    start_i,
  input  logic [7:0]              type_i,
  input  logic [7:0]              seq_i,
  input  logic [5:0]              fixed_len_i,   // 0 .. 32
  input  logic [15:0]             tail_len_i,

  // fixed bytes: fixed_byte_i is byte fixed_idx_o from the cycle after fixed_idx_o changes;
  // the index moves only when the UART takes a byte, and the UART then stays busy for a
  // byte time, so the byte has long settled when it is offered
  output logic [4:0]              fixed_idx_o,
  input  logic [7:0]              fixed_byte_i,

  // tail memory: data is valid the cycle after the request
  output logic                    tail_req_o,
  output logic [15:0]             tail_addr_o,
  input  logic [7:0]              tail_data_i,

  // to the UART transmitter
  output logic                    tx_valid_o,
  output logic [7:0]              tx_data_o,
  input  logic                    tx_ready_i,

  output logic                    done_o
);

  typedef enum logic [2:0] {
    StIdle,
    StHead,
    StFixed,
    StTailRead,
    StTailSend,
    StCrc,
    StFinish
  } state_e;

  state_e      state_d, state_q;
  logic [15:0] idx_q;           // byte within the current part
  // the frame's sizes, registered at start_i (the inputs are stable until done_o), so that
  // the last byte of a part is an equality with a flop rather than an add and a compare
  logic [15:0] len_q;           // payload bytes: fixed part + tail
  logic [15:0] fixed_last_q;    // index of the fixed part's last byte
  logic [15:0] tail_last_q;     // index of the tail's last byte
  logic        has_fixed_q, has_tail_q;
  // idx_q is the last byte of its part: registered, because idx_q moves only when the UART
  // takes a byte and the UART is busy for a byte time after that, so the flags have settled
  // long before the next byte can be sent (and the FSM's decisions stay shallow)
  logic        head_end_q, fixed_end_q, tail_end_q, crc_end_q;

  logic        crc_clear, crc_valid;
  logic [31:0] crc;

  // The CRC folds in each sent byte a cycle later, from flops: the byte's multiplexers and
  // the CRC's XOR trees are then two paths rather than one. The CRC is first read when its
  // first byte is sent, at least a UART byte time after the last byte it covers.
  logic       crc_valid_q;
  logic [7:0] crc_data_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      crc_valid_q <= 1'b0;
      crc_data_q  <= '0;
    end else begin
      crc_valid_q <= crc_valid;
      if (crc_valid) begin
        crc_data_q <= tx_data_o;
      end
    end
  end

  npu_crc32 u_crc (
    .clk_i  (clk_i),
    .rst_ni (rst_ni),
    .clear_i(crc_clear),
    .valid_i(crc_valid_q),
    .data_i (crc_data_q),
    .crc_o  (crc)
  );

  logic        sent;            // the UART takes the byte this cycle
  logic        idx_clear;       // the next part starts at its byte 0
  assign sent        = tx_valid_o && tx_ready_i;
  assign fixed_idx_o = idx_q[4:0];

  // byte idx_q of the head: sync bytes, type, seq, length
  function automatic logic [7:0] head_byte(logic [2:0] idx, logic [7:0] rsp_type, logic [7:0] seq,
                                           logic [15:0] len);
    unique case (idx)
      3'd0:    head_byte = npu_pkg::Sync0;
      3'd1:    head_byte = npu_pkg::Sync1;
      3'd2:    head_byte = rsp_type;
      3'd3:    head_byte = seq;
      3'd4:    head_byte = len[7:0];
      default: head_byte = len[15:8];
    endcase
  endfunction

  // Only the current state's byte is formed: while idle, nothing here switches (and the
  // simulation evaluates nothing but the state).
  always_comb begin
    state_d     = state_q;
    idx_clear   = 1'b0;
    crc_clear   = 1'b0;
    crc_valid   = 1'b0;
    tail_req_o  = 1'b0;
    tail_addr_o = idx_q;
    tx_valid_o  = 1'b0;
    tx_data_o   = 8'd0;
    done_o      = 1'b0;

    unique case (state_q)
      StIdle: begin
        if (start_i) begin
          crc_clear = 1'b1;
          idx_clear = 1'b1;
          state_d   = StHead;
        end
      end
      StHead: begin
        tx_valid_o = 1'b1;
        tx_data_o  = head_byte(idx_q[2:0], type_i, seq_i, len_q);
        if (sent) begin
          crc_valid = (idx_q[2:1] != 2'd0);  // idx_q >= 2 (the head has 6 bytes)
          if (head_end_q) begin
            idx_clear = 1'b1;
            if (has_fixed_q) begin
              state_d = StFixed;
            end else begin
              state_d = has_tail_q ? StTailRead : StCrc;
            end
          end
        end
      end
      StFixed: begin
        tx_valid_o = 1'b1;
        tx_data_o  = fixed_byte_i;
        if (sent) begin
          crc_valid = 1'b1;
          if (fixed_end_q) begin
            idx_clear = 1'b1;
            state_d   = has_tail_q ? StTailRead : StCrc;
          end
        end
      end
      StTailRead: begin
        tail_req_o = 1'b1;
        state_d    = StTailSend;
      end
      StTailSend: begin
        tx_valid_o = 1'b1;
        tx_data_o  = tail_data_i;
        if (sent) begin
          crc_valid = 1'b1;
          state_d   = StTailRead;
          if (tail_end_q) begin
            idx_clear = 1'b1;
            state_d   = StCrc;
          end
        end
      end
      StCrc: begin
        tx_valid_o = 1'b1;
        tx_data_o  = crc[{idx_q[1:0], 3'b000} +: 8];
        if (sent && crc_end_q) begin
          state_d = StFinish;
        end
      end
      StFinish: begin
        if (tx_ready_i) begin
          done_o  = 1'b1;
          state_d = StIdle;
        end
      end
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
      len_q        <= '0;
      fixed_last_q <= '0;
      tail_last_q  <= '0;
      has_fixed_q  <= 1'b0;
      has_tail_q   <= 1'b0;
    end else if (state_q == StIdle && start_i) begin
      len_q        <= 16'(fixed_len_i) + tail_len_i;
      fixed_last_q <= 16'(fixed_len_i) - 16'd1;
      tail_last_q  <= tail_len_i - 16'd1;
      has_fixed_q  <= (fixed_len_i != 6'd0);
      has_tail_q   <= (tail_len_i != 16'd0);
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      head_end_q  <= 1'b0;
      fixed_end_q <= 1'b0;
      tail_end_q  <= 1'b0;
      crc_end_q   <= 1'b0;
    end else if (state_q != StIdle) begin
      head_end_q  <= (idx_q == 16'd5);
      fixed_end_q <= (idx_q == fixed_last_q);
      tail_end_q  <= (idx_q == tail_last_q);
      crc_end_q   <= (idx_q == 16'd3);
    end
  end

  // an enable-style counter: it moves only when a byte is sent or a part starts
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      idx_q <= '0;
    end else if (sent && !idx_clear) begin
      idx_q <= idx_q + 16'd1;
    end else if (idx_clear) begin
      idx_q <= 16'd0;
    end
  end

endmodule
