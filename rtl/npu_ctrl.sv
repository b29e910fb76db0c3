// npu_ctrl: the command executor. Takes each frame the receiver has finished, decodes its
// command, checks what the request alone decides (its receive error, its length, the image
// state), hands the work to the block that does it, and has exactly one response sent
// (docs/NPU.md, "Commands").
//
// STATUS and ECHO are answered from here (the encoder reads ECHO's payload back from the
// frame buffer). LOAD_BEGIN is accepted here and told to npu_loader as a strobe; LOAD_CHUNK
// and LOAD_END are carried out by npu_loader, which reports their outcome (done, NAK, error
// code) in the cycle it knows it. INFER starts the sequencer, whose input the receiver has
// already written into activation buffer A, and waits for its done.
// The response is decided in one cycle (respond: NAK, error, kind), its lengths and the
// ACK/NAK counters are registered a cycle later (StRespond), and the encoder starts a cycle
// after that (StSend); npu_rsp_fixed then forms the fixed bytes the encoder asks for, and
// the encoder reads the tail (logits or ECHO payload) from the memories itself.
// Assumes the receiver has finished with a frame's payload when it raises rx_done_i, and
// starts a new frame only while rx_accept_o is high.
// Deliberately no queue: one request at a time (stop-and-wait); the receiver is told to
// ignore the line (rx_accept_o low) from a frame's end until its response has been sent.
// Deliberately no memory ports: the loader, the sequencer and the encoder own those.
module npu_ctrl #(
  parameter int unsigned Lanes      = npu_pkg::Lanes,
  parameter int unsigned WmemDepth  = npu_pkg::WmemDepth,
  parameter int unsigned RowDepth   = npu_pkg::RowDepth,
  parameter int unsigned ActDepth   = npu_pkg::ActDepth,
  parameter int unsigned DmemDepth  = npu_pkg::DmemDepth
) (
  input  logic                    clk_i,
  input  logic                    rst_ni,

  // frame receiver
  output logic                    rx_accept_o,
  input  logic                    rx_done_i,
  input  logic [7:0]              rx_err_i,
  input  logic [7:0]              rx_cmd_i,
  input  logic [7:0]              rx_seq_i,
  input  logic [15:0]             rx_len_i,

  // loader: the load commands, and their outcome
  output logic                    load_begin_o,    // LOAD_BEGIN accepted
  output logic                    load_chunk_o,    // LOAD_CHUNK: check and commit the chunk
  output logic                    load_end_o,      // LOAD_END: check the image
  output logic [15:0]             load_len_o,      // the request's payload bytes
  input  logic                    load_done_i,
  input  logic                    load_nak_i,
  input  logic [7:0]              load_err_i,

  // the image state, kept by the loader
  input  logic                    image_valid_i,
  input  logic                    image_open_i,
  input  logic [7:0]              image_layers_i,
  input  logic [15:0]             image_in_size_i,
  input  logic [15:0]             image_out_size_i,

  // sequencer
  output logic                    seq_start_o,
  input  logic                    seq_done_i,
  input  logic [15:0]             seq_class_i,
  input  logic [31:0]             seq_cycles_i,

  // response encoder; every output below is stable from tx_start_o to tx_done_i
  output logic                    tx_start_o,
  output logic [7:0]              tx_type_o,
  output logic [7:0]              tx_seq_o,
  output logic [5:0]              tx_fixed_len_o,
  input  logic [4:0]              tx_fixed_idx_i,
  output logic [7:0]              tx_fixed_byte_o, // byte tx_fixed_idx_i of the fixed part
  output logic [15:0]             tx_tail_len_o,
  output logic                    tx_tail_act_o,   // tail from the logits (else the frame buffer)
  input  logic                    tx_done_i,

  // for a status light on a board
  output logic                    nak_o            // the last response was a NAK
);

  typedef enum logic [2:0] {
    StIdle,
    StDispatch,
    StLoad,
    StInfer,
    StRespond,
    StSend,
    StWaitTx
  } state_e;

  // the request's command, decoded as it is captured
  typedef enum logic [2:0] {
    OpStatus,
    OpEcho,
    OpLoadBegin,
    OpLoadChunk,
    OpLoadEnd,
    OpInfer,
    OpUnknown
  } op_e;

  function automatic op_e decode(logic [7:0] cmd);
    unique case (cmd)
      npu_pkg::CmdStatus:    decode = OpStatus;
      npu_pkg::CmdEcho:      decode = OpEcho;
      npu_pkg::CmdLoadBegin: decode = OpLoadBegin;
      npu_pkg::CmdLoadChunk: decode = OpLoadChunk;
      npu_pkg::CmdLoadEnd:   decode = OpLoadEnd;
      npu_pkg::CmdInfer:     decode = OpInfer;
      default:               decode = OpUnknown;
    endcase
  endfunction

  typedef enum logic [1:0] {
    KindPlain,   // ACK [cmd]
    KindStatus,  // ACK [cmd, status block]
    KindEcho,    // ACK [cmd, request payload]
    KindInfer    // ACK [cmd, class, cycles, logits]
  } kind_e;

  state_e state_d, state_q;

  // The FSM state is two-process. Every other register is an enable-style flop that loads
  // only at the strobe the FSM raises for it: between requests (nearly all the time) nothing
  // here switches, which saves power in silicon and, in simulation, the per-cycle copy of
  // every register (docs/DECISIONS.md, "Simulation speed").

  // the request
  logic [7:0]  cmd_q;
  logic [7:0]  seq_q;
  logic [15:0] len_q;
  logic [7:0]  err_q;
  // the request's command and length, judged as they are captured, so that dispatch
  // decides on flags (a shallow path: the iCE40 timing)
  op_e         op_q;
  logic        ok_q;          // received without error (err_q == ErrNone)
  logic        len_zero_q;    // len == 0
  logic        len_four_q;    // len == 4 (LOAD_END)
  logic        len_chunk_q;   // a chunk header and whole words
  logic        len_input_q;   // len == the loaded image's input size (INFER)

  // counters for STATUS
  logic [15:0] acked_q;
  logic [15:0] naked_q;

  // the response, decided in one cycle (respond) and registered
  logic        respond;
  logic        rsp_nak;
  logic [7:0]  rsp_err;
  kind_e       rsp_kind;
  logic        rsp_nak_q;
  logic [7:0]  rsp_err_q;
  kind_e       rsp_kind_q;
  logic [5:0]  rsp_fixed_len_q;
  logic [15:0] rsp_tail_len_q;

  // strobes of the FSM
  logic        load_begin;    // LOAD_BEGIN accepted
  logic        load_chunk;    // LOAD_CHUNK handed to the loader
  logic        load_end;      // LOAD_END handed to the loader
  logic        seq_start;     // INFER accepted: start the sequencer (a cycle later)
  logic        seq_start_q;

  always_comb begin
    state_d = state_q;

    respond  = 1'b0;
    rsp_nak  = 1'b0;
    rsp_err  = npu_pkg::ErrNone;
    rsp_kind = KindPlain;

    load_begin = 1'b0;
    load_chunk = 1'b0;
    load_end   = 1'b0;
    seq_start  = 1'b0;
    tx_start_o = 1'b0;

    unique case (state_q)
      StIdle: begin
        if (rx_done_i) begin
          state_d = StDispatch;
        end
      end

      StDispatch: begin
        if (!ok_q) begin
          respond = 1'b1;
          rsp_nak = 1'b1;
          rsp_err = err_q;
        end else begin
          unique case (op_q)
            OpStatus: begin
              respond  = 1'b1;
              rsp_kind = KindStatus;
              if (!len_zero_q) begin
                rsp_nak = 1'b1;
                rsp_err = npu_pkg::ErrLength;
              end
            end
            OpEcho: begin
              respond  = 1'b1;
              rsp_kind = KindEcho;
            end
            OpLoadBegin: begin
              respond = 1'b1;
              if (!len_zero_q) begin
                rsp_nak = 1'b1;
                rsp_err = npu_pkg::ErrLength;
              end else begin
                load_begin = 1'b1;
              end
            end
            OpLoadChunk: begin
              if (!image_open_i) begin
                respond = 1'b1;
                rsp_nak = 1'b1;
                rsp_err = npu_pkg::ErrState;
              end else if (!len_chunk_q) begin
                respond = 1'b1;
                rsp_nak = 1'b1;
                rsp_err = npu_pkg::ErrLength;
              end else begin
                load_chunk = 1'b1;
                state_d    = StLoad;
              end
            end
            OpLoadEnd: begin
              if (!len_four_q) begin
                respond = 1'b1;
                rsp_nak = 1'b1;
                rsp_err = npu_pkg::ErrLength;
              end else begin
                load_end = 1'b1;
                state_d  = StLoad;
              end
            end
            OpInfer: begin
              if (!image_valid_i) begin
                respond = 1'b1;
                rsp_nak = 1'b1;
                rsp_err = npu_pkg::ErrNoImage;
              end else if (!len_input_q) begin
                respond = 1'b1;
                rsp_nak = 1'b1;
                rsp_err = npu_pkg::ErrLength;
              end else begin
                seq_start = 1'b1;
                state_d   = StInfer;
              end
            end
            default: begin
              respond = 1'b1;
              rsp_nak = 1'b1;
              rsp_err = npu_pkg::ErrCommand;
            end
          endcase
        end
      end

      // the loader carries out LOAD_CHUNK or LOAD_END and says how it went
      StLoad: begin
        if (load_done_i) begin
          respond = 1'b1;
          rsp_nak = load_nak_i;
          rsp_err = load_err_i;
        end
      end

      StInfer: begin
        if (seq_done_i) begin
          respond  = 1'b1;
          rsp_kind = KindInfer;
        end
      end

      // the response's lengths and the counters are registered from rsp_*_q ...
      StRespond: begin
        state_d = StSend;
      end

      // ... and the encoder starts a cycle later
      StSend: begin
        tx_start_o = 1'b1;
        state_d    = StWaitTx;
      end

      StWaitTx: begin
        if (tx_done_i) begin
          state_d = StIdle;
        end
      end

      default: state_d = StIdle;
    endcase

    if (respond) begin
      state_d = StRespond;
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q <= StIdle;
    end else begin
      state_q <= state_d;
    end
  end

  // ---- the request, captured and judged ----
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      cmd_q <= '0;
      seq_q <= '0;
      len_q <= '0;
      err_q <= '0;
      op_q        <= OpUnknown;
      ok_q        <= 1'b0;
      len_zero_q  <= 1'b0;
      len_four_q  <= 1'b0;
      len_chunk_q <= 1'b0;
      len_input_q <= 1'b0;
    end else if (state_q == StIdle && rx_done_i) begin
      cmd_q <= rx_cmd_i;
      seq_q <= rx_seq_i;
      len_q <= rx_len_i;
      err_q <= rx_err_i;
      op_q        <= decode(rx_cmd_i);
      ok_q        <= (rx_err_i == npu_pkg::ErrNone);
      len_zero_q  <= (rx_len_i == 16'd0);
      len_four_q  <= (rx_len_i == 16'd4);
      len_chunk_q <= (rx_len_i >= 16'(npu_pkg::ChunkHeaderBytes + 4)) && (rx_len_i[1:0] == 2'd0);
      len_input_q <= (rx_len_i == image_in_size_i);
    end
  end

  // The sequencer starts a cycle after the decision, from a flop: its start fans out to
  // every layer register and the argmax.
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      seq_start_q <= 1'b0;
    end else begin
      seq_start_q <= seq_start;
    end
  end

  assign seq_start_o  = seq_start_q;
  assign load_begin_o = load_begin;
  assign load_chunk_o = load_chunk;
  assign load_end_o   = load_end;
  assign load_len_o   = len_q;

  // ---- the response ----
  // Only its kind and lengths are registered; the bytes are read from the live registers
  // while they are sent (none of them changes before the response is out), so no response
  // buffer is needed. The decision (respond) loads only the kind; the lengths and counters
  // follow from it in StRespond, a cycle later, so that no path runs from the decision's
  // conditions through the lengths (the iCE40 timing).
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      rsp_nak_q  <= 1'b0;
      rsp_err_q  <= '0;
      rsp_kind_q <= KindPlain;
    end else if (respond) begin
      rsp_nak_q  <= rsp_nak;
      rsp_err_q  <= rsp_err;
      rsp_kind_q <= rsp_kind;
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      rsp_fixed_len_q <= '0;
      rsp_tail_len_q  <= '0;
      acked_q         <= '0;
      naked_q         <= '0;
    end else if (state_q == StRespond) begin
      if (rsp_nak_q) begin
        rsp_fixed_len_q <= 6'd2;
        rsp_tail_len_q  <= 16'd0;
        naked_q         <= naked_q + 16'd1;
      end else begin
        acked_q <= acked_q + 16'd1;
        unique case (rsp_kind_q)
          KindStatus: begin
            rsp_fixed_len_q <= 6'(1 + npu_pkg::StatusBytes);
            rsp_tail_len_q  <= 16'd0;
          end
          KindInfer: begin
            rsp_fixed_len_q <= 6'(1 + npu_pkg::ResultBytes);
            rsp_tail_len_q  <= image_out_size_i;
          end
          KindEcho: begin
            rsp_fixed_len_q <= 6'd1;
            rsp_tail_len_q  <= len_q;
          end
          default: begin
            rsp_fixed_len_q <= 6'd1;
            rsp_tail_len_q  <= 16'd0;
          end
        endcase
      end
    end
  end

  // Byte tx_fixed_idx_i of the fixed part, formed only while a response is being sent.
  npu_rsp_fixed #(
    .Lanes    (Lanes),
    .WmemDepth(WmemDepth),
    .RowDepth (RowDepth),
    .ActDepth (ActDepth),
    .DmemDepth(DmemDepth)
  ) u_rsp_fixed (
    .clk_i           (clk_i),
    .rst_ni          (rst_ni),
    .en_i            (state_q == StWaitTx),
    .idx_i           (tx_fixed_idx_i),
    .byte_o          (tx_fixed_byte_o),
    .cmd_i           (cmd_q),
    .nak_i           (rsp_nak_q),
    .err_i           (rsp_err_q),
    .status_i        (rsp_kind_q == KindStatus),
    .image_valid_i   (image_valid_i),
    .image_open_i    (image_open_i),
    .image_layers_i  (image_layers_i),
    .image_in_size_i (image_in_size_i),
    .image_out_size_i(image_out_size_i),
    .acked_i         (acked_q),
    .naked_i         (naked_q),
    .class_i         (seq_class_i),
    .cycles_i        (seq_cycles_i)
  );

  assign rx_accept_o    = (state_q == StIdle);
  assign tx_type_o      = rsp_nak_q ? npu_pkg::RspNak : npu_pkg::RspAck;
  assign tx_seq_o       = seq_q;
  assign tx_fixed_len_o = rsp_fixed_len_q;
  assign tx_tail_len_o  = rsp_tail_len_q;
  assign tx_tail_act_o  = !rsp_nak_q && rsp_kind_q == KindInfer;

  assign nak_o = rsp_nak_q;

endmodule
