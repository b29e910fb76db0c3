// npu_ctrl: the command executor. Takes each frame the receiver has finished, carries out
// the command (docs/NPU.md, "Commands") and hands one response to the encoder.
//
// Loading: LOAD_BEGIN invalidates the image and opens a load; each LOAD_CHUNK already sits
// complete and CRC-checked in the frame buffer, so it is checked (open load, index,
// address range) before a single word is written - a rejected chunk changes nothing. The
// accepted chunk's bytes go to the image memories through the flat write port and into the
// running image CRC. LOAD_END compares that CRC and reads back the header; only then is
// the image valid and INFER accepted.
// Deliberately no queue: one request at a time (stop-and-wait); the receiver is told to
// ignore the line (rx_accept_o low) from a frame's end until its response has been sent.
module npu_ctrl #(
  parameter int unsigned Lanes      = npu_pkg::Lanes,
  parameter int unsigned WmemDepth  = npu_pkg::WmemDepth,
  parameter int unsigned RowDepth   = npu_pkg::RowDepth,
  parameter int unsigned ActDepth   = npu_pkg::ActDepth,
  parameter int unsigned DmemDepth  = npu_pkg::DmemDepth,
  parameter int unsigned FbufDepth  = npu_pkg::FbufDepth,
  localparam int unsigned FbufAw = $clog2(FbufDepth),
  localparam int unsigned DmemAw = $clog2(DmemDepth)
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

  // frame buffer, read
  output logic                    fbuf_req_o,
  output logic [FbufAw-1:0]       fbuf_addr_o,
  input  logic [7:0]              fbuf_rdata_i,

  // image memories, write (flat word address, docs/NPU.md "Memory map")
  output logic                    mem_we_o,
  output logic [23:0]             mem_addr_o,
  output logic [31:0]             mem_wdata_o,

  // header, read back at LOAD_END
  output logic                    dmem_req_o,
  output logic [DmemAw-1:0]       dmem_addr_o,
  input  logic [31:0]             dmem_rdata_i,

  // sequencer
  output logic                    seq_start_o,
  output logic [7:0]              seq_layers_o,
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
  input  logic                    tx_done_i
);

  localparam int unsigned Banks     = Lanes / 4;
  localparam int unsigned MaxLayers = (DmemDepth - npu_pkg::HeaderWords) / npu_pkg::DescWords;

  typedef enum logic [3:0] {
    StIdle,
    StDispatch,
    StChunkHdr,
    StChunkCheck,
    StCommit,
    StEndCrc,
    StEndCheck,
    StEndHdr,
    StEndValidate,
    StInfer,
    StRespond,
    StWaitTx
  } state_e;

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

  // image state
  logic        valid_q;       // a complete, CRC-checked image is loaded
  logic        open_q;        // LOAD_BEGIN seen, LOAD_END not yet accepted
  logic [15:0] expect_q;      // next chunk index
  logic        dup_ok_q;      // a chunk was committed since LOAD_BEGIN
  logic [7:0]  layers_q;
  logic [15:0] in_size_q;
  logic [15:0] out_size_q;
  logic        magic_ok_q;

  // byte and word fetches from the buffers
  logic [15:0] cnt_q;
  logic [63:0] hdr_q;         // chunk header, or LOAD_END CRC, or header words 1-2
  logic [23:0] word_q;        // commit: the first three bytes of the word being assembled

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

  // strobes of the FSM for the registers above
  logic        load_begin;    // LOAD_BEGIN accepted
  logic        chunk_done;    // the last byte of an accepted chunk is written
  logic        image_ok;      // LOAD_END accepted
  logic        cnt_clear, cnt_step;
  logic        hdr_byte;      // shift a frame-buffer byte into hdr_q
  logic        hdr_word;      // shift a DMEM word into hdr_q
  logic        magic_take;    // the DMEM word is header word 0
  logic        commit_byte;   // a chunk data byte arrives from the frame buffer

  // the running image CRC
  logic [31:0] image_crc;

  npu_crc32 u_image_crc (
    .clk_i  (clk_i),
    .rst_ni (rst_ni),
    .clear_i(load_begin),
    .valid_i(commit_byte),
    .data_i (fbuf_rdata_i),
    .crc_o  (image_crc)
  );

  // ---- the chunk being checked ----
  logic [15:0] chunk_index;
  logic [31:0] chunk_addr;
  logic [15:0] chunk_bytes;   // data bytes
  logic [15:0] cnt_prev;      // index of the byte or word arriving from a memory this cycle

  assign chunk_index = hdr_q[15:0];
  assign chunk_addr  = hdr_q[63:32];
  assign chunk_bytes = len_q - 16'(npu_pkg::ChunkHeaderBytes);
  assign cnt_prev    = cnt_q - 16'd1;

  // the words [addr, addr + words) lie inside one region of the memory map
  function automatic logic chunk_fits(logic [31:0] addr, logic [13:0] words);
    logic [31:0] region_words;
    unique case (addr[npu_pkg::RegionLsb +: 4])
      npu_pkg::RegionDmem:  region_words = 32'(DmemDepth);
      npu_pkg::RegionBias:  region_words = 32'(RowDepth);
      npu_pkg::RegionMult:  region_words = 32'(RowDepth);
      npu_pkg::RegionShift: region_words = 32'(RowDepth);
      npu_pkg::RegionWmem:  region_words = 32'(WmemDepth * Banks);
      default:              region_words = 32'd0;
    endcase
    chunk_fits = (addr[31:24] == 8'd0)
        && (32'(addr[npu_pkg::RegionLsb-1:0]) + 32'(words) <= region_words);
  endfunction

  // LOAD_END: header words 1 and 2 (in hdr) are valid for this NPU
  function automatic logic header_fits(logic [63:0] hdr);
    header_fits = hdr[15:0] == 16'(npu_pkg::FormatVersion)
        && hdr[23:16] == 8'(Lanes)
        && hdr[31:24] >= 8'd1 && hdr[31:24] <= 8'(MaxLayers)
        && hdr[47:32] >= 16'd1 && hdr[47:32] <= 16'(ActDepth)
        && hdr[63:48] >= 16'd1 && hdr[63:48] <= 16'(ActDepth);
  endfunction

  always_comb begin
    state_d = state_q;

    respond  = 1'b0;
    rsp_nak  = 1'b0;
    rsp_err  = npu_pkg::ErrNone;
    rsp_kind = KindPlain;

    load_begin  = 1'b0;
    chunk_done  = 1'b0;
    image_ok    = 1'b0;
    cnt_clear   = 1'b0;
    cnt_step    = 1'b0;
    hdr_byte    = 1'b0;
    hdr_word    = 1'b0;
    magic_take  = 1'b0;
    commit_byte = 1'b0;

    fbuf_req_o  = 1'b0;
    fbuf_addr_o = FbufAw'(cnt_q);
    mem_we_o    = 1'b0;
    mem_addr_o  = 24'd0;
    mem_wdata_o = 32'd0;
    dmem_req_o  = 1'b0;
    dmem_addr_o = DmemAw'(cnt_q);
    seq_start_o = 1'b0;
    tx_start_o  = 1'b0;

    unique case (state_q)
      StIdle: begin
        if (rx_done_i) begin
          state_d = StDispatch;
        end
      end

      StDispatch: begin
        cnt_clear = 1'b1;
        if (err_q != npu_pkg::ErrNone) begin
          respond = 1'b1;
          rsp_nak = 1'b1;
          rsp_err = err_q;
        end else begin
          unique case (cmd_q)
            npu_pkg::CmdStatus: begin
              respond  = 1'b1;
              rsp_kind = KindStatus;
              if (len_q != 16'd0) begin
                rsp_nak = 1'b1;
                rsp_err = npu_pkg::ErrLength;
              end
            end
            npu_pkg::CmdEcho: begin
              respond  = 1'b1;
              rsp_kind = KindEcho;
            end
            npu_pkg::CmdLoadBegin: begin
              respond = 1'b1;
              if (len_q != 16'd0) begin
                rsp_nak = 1'b1;
                rsp_err = npu_pkg::ErrLength;
              end else begin
                load_begin = 1'b1;
              end
            end
            npu_pkg::CmdLoadChunk: begin
              if (!open_q) begin
                respond = 1'b1;
                rsp_nak = 1'b1;
                rsp_err = npu_pkg::ErrState;
              end else if (len_q < 16'(npu_pkg::ChunkHeaderBytes + 4) || len_q[1:0] != 2'd0) begin
                respond = 1'b1;
                rsp_nak = 1'b1;
                rsp_err = npu_pkg::ErrLength;
              end else begin
                state_d = StChunkHdr;
              end
            end
            npu_pkg::CmdLoadEnd: begin
              if (len_q != 16'd4) begin
                respond = 1'b1;
                rsp_nak = 1'b1;
                rsp_err = npu_pkg::ErrLength;
              end else begin
                state_d = StEndCrc;
              end
            end
            npu_pkg::CmdInfer: begin
              if (!valid_q) begin
                respond = 1'b1;
                rsp_nak = 1'b1;
                rsp_err = npu_pkg::ErrNoImage;
              end else if (len_q != in_size_q) begin
                respond = 1'b1;
                rsp_nak = 1'b1;
                rsp_err = npu_pkg::ErrLength;
              end else begin
                seq_start_o = 1'b1;
                state_d     = StInfer;
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

      // read the 8-byte chunk header from the frame buffer
      StChunkHdr: begin
        fbuf_req_o = (cnt_q < 16'd8);
        cnt_step   = 1'b1;
        hdr_byte   = (cnt_q != 16'd0);
        if (cnt_q == 16'd8) begin
          state_d = StChunkCheck;
        end
      end

      StChunkCheck: begin
        cnt_clear = 1'b1;
        if (chunk_index == expect_q) begin
          if (chunk_fits(chunk_addr, chunk_bytes[15:2])) begin
            state_d = StCommit;
          end else begin
            respond = 1'b1;
            rsp_nak = 1'b1;
            rsp_err = npu_pkg::ErrAddress;
          end
        end else if (dup_ok_q && chunk_index == expect_q - 16'd1) begin
          respond = 1'b1;  // the previous chunk again: its ACK was lost
        end else begin
          respond = 1'b1;
          rsp_nak = 1'b1;
          rsp_err = npu_pkg::ErrSequence;
        end
      end

      // data byte cnt-1 arrives each cycle: fold it into the CRC, write every 4th
      StCommit: begin
        fbuf_req_o  = (cnt_q < chunk_bytes);
        fbuf_addr_o = FbufAw'(cnt_q + 16'(npu_pkg::ChunkHeaderBytes));
        cnt_step    = 1'b1;
        if (cnt_q != 16'd0) begin
          commit_byte = 1'b1;
          mem_we_o    = (cnt_prev[1:0] == 2'd3);
          mem_addr_o  = chunk_addr[23:0] + {10'd0, cnt_prev[15:2]};
          mem_wdata_o = {fbuf_rdata_i, word_q};
          if (cnt_q == chunk_bytes) begin
            chunk_done = 1'b1;
            respond    = 1'b1;
          end
        end
      end

      // read the 4-byte image CRC of LOAD_END into hdr_q[63:32]
      StEndCrc: begin
        fbuf_req_o = (cnt_q < 16'd4);
        cnt_step   = 1'b1;
        hdr_byte   = (cnt_q != 16'd0);
        if (cnt_q == 16'd4) begin
          state_d = StEndCheck;
        end
      end

      StEndCheck: begin
        cnt_clear = 1'b1;
        if (open_q) begin
          if (hdr_q[63:32] != image_crc) begin
            respond = 1'b1;
            rsp_nak = 1'b1;
            rsp_err = npu_pkg::ErrImageCrc;
          end else begin
            state_d = StEndHdr;
          end
        end else if (valid_q && hdr_q[63:32] == image_crc) begin
          respond = 1'b1;  // LOAD_END again: its ACK was lost
        end else begin
          respond = 1'b1;
          rsp_nak = 1'b1;
          rsp_err = npu_pkg::ErrState;
        end
      end

      // read header words 0-2: the magic into magic_ok_q, words 1-2 into hdr_q
      StEndHdr: begin
        dmem_req_o = (cnt_q < 16'd3);
        cnt_step   = 1'b1;
        magic_take = (cnt_q == 16'd1);
        hdr_word   = (cnt_q >= 16'd2);
        if (cnt_q == 16'd3) begin
          state_d = StEndValidate;
        end
      end

      StEndValidate: begin
        respond = 1'b1;
        if (magic_ok_q && header_fits(hdr_q)) begin
          image_ok = 1'b1;
        end else begin
          rsp_nak = 1'b1;
          rsp_err = npu_pkg::ErrImageHeader;
        end
      end

      StInfer: begin
        if (seq_done_i) begin
          respond  = 1'b1;
          rsp_kind = KindInfer;
        end
      end

      StRespond: begin
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

  // ---- datapath registers ----
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      cmd_q <= '0;
      seq_q <= '0;
      len_q <= '0;
      err_q <= '0;
    end else if (state_q == StIdle && rx_done_i) begin
      cmd_q <= rx_cmd_i;
      seq_q <= rx_seq_i;
      len_q <= rx_len_i;
      err_q <= rx_err_i;
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      valid_q    <= 1'b0;
      open_q     <= 1'b0;
      expect_q   <= '0;
      dup_ok_q   <= 1'b0;
      layers_q   <= '0;
      in_size_q  <= '0;
      out_size_q <= '0;
    end else if (chunk_done) begin
      expect_q <= expect_q + 16'd1;
      dup_ok_q <= 1'b1;
    end else if (load_begin) begin
      valid_q  <= 1'b0;
      open_q   <= 1'b1;
      expect_q <= 16'd0;
      dup_ok_q <= 1'b0;
    end else if (image_ok) begin
      valid_q    <= 1'b1;
      open_q     <= 1'b0;
      layers_q   <= hdr_q[31:24];
      in_size_q  <= hdr_q[47:32];
      out_size_q <= hdr_q[63:48];
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      cnt_q      <= '0;
      hdr_q      <= '0;
      magic_ok_q <= 1'b0;
      word_q     <= '0;
    end else begin
      if (cnt_step) begin
        cnt_q <= cnt_q + 16'd1;
      end else if (cnt_clear) begin
        cnt_q <= 16'd0;
      end
      if (hdr_byte || hdr_word) begin
        hdr_q <= hdr_word ? {dmem_rdata_i, hdr_q[63:32]} : {fbuf_rdata_i, hdr_q[63:8]};
      end
      if (magic_take) begin
        magic_ok_q <= (dmem_rdata_i == npu_pkg::ImageMagic);
      end
      if (commit_byte) begin
        word_q <= {fbuf_rdata_i, word_q[23:8]};
      end
    end
  end

  // ---- the response ----
  // Only its kind and lengths are registered; the bytes are read from the live registers
  // while they are sent (none of them changes before the response is out), so no response
  // buffer is needed.
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      rsp_nak_q       <= 1'b0;
      rsp_err_q       <= '0;
      rsp_kind_q      <= KindPlain;
      rsp_fixed_len_q <= '0;
      rsp_tail_len_q  <= '0;
      acked_q         <= '0;
      naked_q         <= '0;
    end else if (respond) begin
      rsp_nak_q  <= rsp_nak;
      rsp_err_q  <= rsp_err;
      rsp_kind_q <= rsp_kind;
      if (rsp_nak) begin
        rsp_fixed_len_q <= 6'd2;
        rsp_tail_len_q  <= 16'd0;
        naked_q         <= naked_q + 16'd1;
      end else begin
        acked_q <= acked_q + 16'd1;
        unique case (rsp_kind)
          KindStatus: begin
            rsp_fixed_len_q <= 6'(1 + npu_pkg::StatusBytes);
            rsp_tail_len_q  <= 16'd0;
          end
          KindInfer: begin
            rsp_fixed_len_q <= 6'(1 + npu_pkg::ResultBytes);
            rsp_tail_len_q  <= out_size_q;
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

  // Byte tx_fixed_idx_i of the fixed part, formed only while a response is being sent:
  // the command byte, then the NAK's error code, the STATUS block (docs/NPU.md) or the
  // INFER result (class u16, cycles u32; the logits follow as the tail).
  always_comb begin
    tx_fixed_byte_o = 8'd0;
    if (state_q == StWaitTx) begin
      if (tx_fixed_idx_i == 5'd0) begin
        tx_fixed_byte_o = cmd_q;
      end else if (rsp_nak_q) begin
        tx_fixed_byte_o = rsp_err_q;
      end else if (rsp_kind_q == KindStatus) begin
        unique case (tx_fixed_idx_i)
          5'd1:    tx_fixed_byte_o = 8'(npu_pkg::FormatVersion);
          5'd2:    tx_fixed_byte_o = 8'(Lanes);
          5'd3:    tx_fixed_byte_o = 8'(MaxLayers);
          5'd4:    tx_fixed_byte_o = {6'd0, open_q, valid_q};
          5'd5:    tx_fixed_byte_o = valid_q ? layers_q : 8'd0;
          5'd7:    tx_fixed_byte_o = 8'(npu_pkg::MaxChunkBytes);
          5'd8:    tx_fixed_byte_o = 8'(npu_pkg::MaxChunkBytes >> 8);
          5'd9:    tx_fixed_byte_o = 8'(ActDepth);
          5'd10:   tx_fixed_byte_o = 8'(ActDepth >> 8);
          5'd11:   tx_fixed_byte_o = 8'(RowDepth);
          5'd12:   tx_fixed_byte_o = 8'(RowDepth >> 8);
          5'd13:   tx_fixed_byte_o = 8'(WmemDepth);
          5'd14:   tx_fixed_byte_o = 8'(WmemDepth >> 8);
          5'd15:   tx_fixed_byte_o = 8'(WmemDepth >> 16);
          5'd16:   tx_fixed_byte_o = 8'(WmemDepth >> 24);
          5'd17:   tx_fixed_byte_o = valid_q ? in_size_q[7:0] : 8'd0;
          5'd18:   tx_fixed_byte_o = valid_q ? in_size_q[15:8] : 8'd0;
          5'd19:   tx_fixed_byte_o = valid_q ? out_size_q[7:0] : 8'd0;
          5'd20:   tx_fixed_byte_o = valid_q ? out_size_q[15:8] : 8'd0;
          5'd21:   tx_fixed_byte_o = acked_q[7:0];
          5'd22:   tx_fixed_byte_o = acked_q[15:8];
          5'd23:   tx_fixed_byte_o = naked_q[7:0];
          5'd24:   tx_fixed_byte_o = naked_q[15:8];
          default: tx_fixed_byte_o = 8'd0;
        endcase
      end else begin
        unique case (tx_fixed_idx_i)
          5'd1:    tx_fixed_byte_o = seq_class_i[7:0];
          5'd2:    tx_fixed_byte_o = seq_class_i[15:8];
          5'd3:    tx_fixed_byte_o = seq_cycles_i[7:0];
          5'd4:    tx_fixed_byte_o = seq_cycles_i[15:8];
          5'd5:    tx_fixed_byte_o = seq_cycles_i[23:16];
          5'd6:    tx_fixed_byte_o = seq_cycles_i[31:24];
          default: tx_fixed_byte_o = 8'd0;
        endcase
      end
    end
  end

  assign rx_accept_o    = (state_q == StIdle);
  assign seq_layers_o   = layers_q;
  assign tx_type_o      = rsp_nak_q ? npu_pkg::RspNak : npu_pkg::RspAck;
  assign tx_seq_o       = seq_q;
  assign tx_fixed_len_o = rsp_fixed_len_q;
  assign tx_tail_len_o  = rsp_tail_len_q;
  assign tx_tail_act_o  = !rsp_nak_q && rsp_kind_q == KindInfer;

endmodule
