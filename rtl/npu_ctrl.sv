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
  input  logic                    tx_done_i,

  // for status lights on a board
  output logic                    loaded_o,        // a complete, CRC-checked image is loaded
  output logic                    nak_o            // the last response was a NAK
);

  localparam int unsigned Banks     = Lanes / 4;
  localparam int unsigned MaxLayers = (DmemDepth - npu_pkg::HeaderWords) / npu_pkg::DescWords;

  typedef enum logic [4:0] {
    StIdle,
    StDispatch,
    StChunkHdr,
    StChunkTest,
    StChunkFits,
    StChunkCheck,
    StCommit,
    StEndCrc,
    StEndTest,
    StEndCheck,
    StEndHdr,
    StEndHdrTest,
    StEndValidate,
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
  logic [15:0] len_last_q;    // len - 1
  logic        commit_end_q;  // StCommit: cnt_q == len_q (set when cnt_q was len - 1)
  logic        commit_data_q; // StCommit after its first cycle: a data byte arrives
  logic [13:0] chunk_words_q; // (len - chunk header) / 4: data words of a LOAD_CHUNK

  // image state
  logic        valid_q;       // a complete, CRC-checked image is loaded
  logic        open_q;        // LOAD_BEGIN seen, LOAD_END not yet accepted
  logic [15:0] expect_q;      // next chunk index
  logic        dup_ok_q;      // a chunk was committed since LOAD_BEGIN
  logic [7:0]  layers_q;
  logic [15:0] in_size_q;
  logic [15:0] out_size_q;
  logic        magic_ok_q;

  // the chunk's header, judged in StChunkTest
  logic        idx_next_q;    // the expected chunk index
  logic        idx_again_q;   // the previous chunk again
  logic [20:0] chunk_end_q;   // the chunk's end: its region offset + its words
  logic [20:0] region_q;      // the words of the chunk's region
  logic        fits_q;        // inside one region of the memory map
  logic        crc_match_q;   // LOAD_END's CRC is the running image CRC
  logic        header_ok_q;   // the loaded header is valid for this NPU

  // the registered write port: the word assembled in StCommit is written a cycle later
  logic        mem_we_q;
  logic [23:0] mem_addr_q;    // flat word address, counts up from the chunk's address
  logic [31:0] mem_wdata_q;
  logic        mem_write;     // a word is complete this cycle

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
  logic        cnt_skip_hdr;  // cnt_q = the chunk header's size: StCommit counts frame-buffer addresses
  logic        hdr_byte;      // shift a frame-buffer byte into hdr_q
  logic        hdr_word;      // shift a DMEM word into hdr_q
  logic        magic_take;    // the DMEM word is header word 0
  logic        commit_byte;   // a chunk data byte arrives from the frame buffer
  logic        seq_start;     // INFER accepted: start the sequencer (a cycle later)
  logic        seq_start_q;

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

  assign chunk_index = hdr_q[15:0];
  assign chunk_addr  = hdr_q[63:32];

  // The words a region of the memory map holds (0 for an address outside the map).
  function automatic logic [20:0] region_words(logic [31:npu_pkg::RegionLsb] addr_hi);
    if (addr_hi[31:24] != 8'd0) begin
      region_words = 21'd0;
    end else begin
      unique case (addr_hi[npu_pkg::RegionLsb +: 4])
        npu_pkg::RegionDmem:  region_words = 21'(DmemDepth);
        npu_pkg::RegionBias:  region_words = 21'(RowDepth);
        npu_pkg::RegionMult:  region_words = 21'(RowDepth);
        npu_pkg::RegionShift: region_words = 21'(RowDepth);
        npu_pkg::RegionWmem:  region_words = 21'(WmemDepth * Banks);
        default:              region_words = 21'd0;
      endcase
    end
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
    cnt_skip_hdr = 1'b0;
    cnt_step    = 1'b0;
    hdr_byte    = 1'b0;
    hdr_word    = 1'b0;
    magic_take  = 1'b0;
    commit_byte = 1'b0;

    fbuf_req_o  = 1'b0;
    fbuf_addr_o = FbufAw'(cnt_q);
    mem_write   = 1'b0;
    dmem_req_o  = 1'b0;
    dmem_addr_o = DmemAw'(cnt_q);
    seq_start   = 1'b0;
    tx_start_o  = 1'b0;

    unique case (state_q)
      StIdle: begin
        if (rx_done_i) begin
          state_d = StDispatch;
        end
      end

      StDispatch: begin
        cnt_clear = 1'b1;
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
              if (!open_q) begin
                respond = 1'b1;
                rsp_nak = 1'b1;
                rsp_err = npu_pkg::ErrState;
              end else if (!len_chunk_q) begin
                respond = 1'b1;
                rsp_nak = 1'b1;
                rsp_err = npu_pkg::ErrLength;
              end else begin
                state_d = StChunkHdr;
              end
            end
            OpLoadEnd: begin
              if (!len_four_q) begin
                respond = 1'b1;
                rsp_nak = 1'b1;
                rsp_err = npu_pkg::ErrLength;
              end else begin
                state_d = StEndCrc;
              end
            end
            OpInfer: begin
              if (!valid_q) begin
                respond = 1'b1;
                rsp_nak = 1'b1;
                rsp_err = npu_pkg::ErrNoImage;
              end else if (!len_input_q) begin
                respond = 1'b1;
                rsp_nak = 1'b1;
                rsp_err = npu_pkg::ErrLength;
              end else begin
                seq_start   = 1'b1;
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
        fbuf_req_o = 1'b1;  // bytes 0-7; the read one past them is harmless (see StCommit)
        cnt_step   = 1'b1;
        hdr_byte   = (cnt_q != 16'd0);
        if (cnt_q == 16'd8) begin
          state_d = StChunkTest;
        end
      end

      // the header's tests are registered over two cycles (idx_next_q, idx_again_q and the
      // chunk's end; then fits_q: the words [addr, addr + words) lie inside one region) ...
      StChunkTest: begin
        state_d = StChunkFits;
      end
      StChunkFits: begin
        state_d = StChunkCheck;
      end

      // ... and judged here
      StChunkCheck: begin
        cnt_skip_hdr = 1'b1;
        if (idx_next_q) begin
          if (fits_q) begin
            state_d = StCommit;
          end else begin
            respond = 1'b1;
            rsp_nak = 1'b1;
            rsp_err = npu_pkg::ErrAddress;
          end
        end else if (idx_again_q) begin
          respond = 1'b1;  // the previous chunk again: its ACK was lost
        end else begin
          respond = 1'b1;
          rsp_nak = 1'b1;
          rsp_err = npu_pkg::ErrSequence;
        end
      end

      // cnt_q is the frame-buffer address of a payload byte: it starts after the chunk header
      // and ends with the payload (len_q). Each cycle requests byte cnt_q and receives byte
      // cnt_q - 1: fold that into the CRC, and write every 4th (the one whose data index
      // cnt - 1 - header is 3 mod 4; the header is 8 bytes). The read one past the end is
      // harmless: npu_ctrl owns the frame buffer until it responds.
      StCommit: begin
        fbuf_req_o  = 1'b1;
        cnt_step    = 1'b1;
        if (commit_data_q) begin
          commit_byte = 1'b1;
          mem_write   = (cnt_q[1:0] == 2'd0);
          if (commit_end_q) begin
            chunk_done = 1'b1;
            respond    = 1'b1;
          end
        end
      end

      // read the 4-byte image CRC of LOAD_END into hdr_q[63:32]
      StEndCrc: begin
        fbuf_req_o = 1'b1;  // bytes 0-3, and one harmless read past them
        cnt_step   = 1'b1;
        hdr_byte   = (cnt_q != 16'd0);
        if (cnt_q == 16'd4) begin
          state_d = StEndTest;
        end
      end

      // the image CRC's comparison is registered (crc_match_q) ...
      StEndTest: begin
        state_d = StEndCheck;
      end

      // ... and judged here
      StEndCheck: begin
        cnt_clear = 1'b1;
        if (open_q) begin
          if (!crc_match_q) begin
            respond = 1'b1;
            rsp_nak = 1'b1;
            rsp_err = npu_pkg::ErrImageCrc;
          end else begin
            state_d = StEndHdr;
          end
        end else if (valid_q && crc_match_q) begin
          respond = 1'b1;  // LOAD_END again: its ACK was lost
        end else begin
          respond = 1'b1;
          rsp_nak = 1'b1;
          rsp_err = npu_pkg::ErrState;
        end
      end

      // read header words 0-2: the magic into magic_ok_q, words 1-2 into hdr_q
      StEndHdr: begin
        dmem_req_o = 1'b1;  // words 0-2, and one harmless read past them
        cnt_step   = 1'b1;
        magic_take = (cnt_q == 16'd1);
        hdr_word   = (cnt_q[15:1] != 15'd0);  // cnt_q >= 2
        if (cnt_q == 16'd3) begin
          state_d = StEndHdrTest;
        end
      end

      // the header's test is registered (header_ok_q) ...
      StEndHdrTest: begin
        state_d = StEndValidate;
      end

      // ... and judged here
      StEndValidate: begin
        respond = 1'b1;
        if (header_ok_q) begin
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

  // ---- datapath registers ----
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      cmd_q <= '0;
      seq_q <= '0;
      len_q <= '0;
      err_q <= '0;
      op_q          <= OpUnknown;
      ok_q          <= 1'b0;
      len_zero_q    <= 1'b0;
      len_four_q    <= 1'b0;
      len_chunk_q   <= 1'b0;
      len_input_q   <= 1'b0;
      len_last_q    <= '0;
      chunk_words_q <= '0;
    end else if (state_q == StIdle && rx_done_i) begin
      cmd_q <= rx_cmd_i;
      seq_q <= rx_seq_i;
      len_q <= rx_len_i;
      err_q <= rx_err_i;
      op_q          <= decode(rx_cmd_i);
      ok_q          <= (rx_err_i == npu_pkg::ErrNone);
      len_zero_q    <= (rx_len_i == 16'd0);
      len_four_q    <= (rx_len_i == 16'd4);
      len_chunk_q   <= (rx_len_i >= 16'(npu_pkg::ChunkHeaderBytes + 4)) && (rx_len_i[1:0] == 2'd0);
      len_input_q   <= (rx_len_i == in_size_q);
      len_last_q    <= rx_len_i - 16'd1;
      chunk_words_q <= 14'((rx_len_i - 16'(npu_pkg::ChunkHeaderBytes)) >> 2);
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      idx_next_q  <= 1'b0;
      idx_again_q <= 1'b0;
      chunk_end_q <= '0;
      region_q    <= '0;
      fits_q      <= 1'b0;
    end else if (state_q == StChunkTest) begin
      idx_next_q  <= (chunk_index == expect_q);
      idx_again_q <= dup_ok_q && (chunk_index == expect_q - 16'd1);
      chunk_end_q <= 21'(chunk_addr[npu_pkg::RegionLsb-1:0]) + 21'(chunk_words_q);
      region_q    <= region_words(chunk_addr[31:npu_pkg::RegionLsb]);
    end else if (state_q == StChunkFits) begin
      fits_q <= (chunk_end_q <= region_q);
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      crc_match_q <= 1'b0;
    end else if (state_q == StEndTest) begin
      crc_match_q <= (hdr_q[63:32] == image_crc);
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      header_ok_q <= 1'b0;
    end else if (state_q == StEndHdrTest) begin
      header_ok_q <= magic_ok_q && header_fits(hdr_q);
    end
  end

  // StCommit's cnt_q steps every cycle, so its first data byte and its end are known a
  // cycle ahead.
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      commit_end_q  <= 1'b0;
      commit_data_q <= 1'b0;
    end else begin
      commit_end_q  <= (state_q == StCommit) && (cnt_q == len_last_q);
      commit_data_q <= (state_q == StCommit);
    end
  end

  // The write port: mem_addr_q starts at the chunk's address and counts words.
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      mem_we_q    <= 1'b0;
      mem_addr_q  <= '0;
      mem_wdata_q <= '0;
    end else begin
      mem_we_q <= mem_write;
      if (mem_we_q) begin
        mem_addr_q <= mem_addr_q + 24'd1;
      end else if (state_q == StChunkCheck) begin
        mem_addr_q <= chunk_addr[23:0];
      end
      if (mem_write) begin
        mem_wdata_q <= {fbuf_rdata_i, word_q};
      end
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

  assign seq_start_o = seq_start_q;
  assign mem_we_o    = mem_we_q;
  assign mem_addr_o  = mem_addr_q;
  assign mem_wdata_o = mem_wdata_q;

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
      end else if (cnt_skip_hdr) begin
        cnt_q <= 16'(npu_pkg::ChunkHeaderBytes);
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
  // Two register stages: the STATUS and result tables are looked up from the index, then
  // the response's kind picks one. The byte is offered two cycles after its index, which
  // the encoder tolerates because the UART takes a byte at most once per byte time
  // (npu_frame_tx.sv); the table's multiplexers then stay off every other path.
  function automatic logic [7:0] status_byte(logic [4:0] idx, logic valid, logic open,
                                             logic [7:0] layers, logic [15:0] in_size,
                                             logic [15:0] out_size, logic [15:0] acked,
                                             logic [15:0] naked);
    logic [7:0] byte_of;
    unique case (idx)
      5'd1:    byte_of = 8'(npu_pkg::FormatVersion);
      5'd2:    byte_of = 8'(Lanes);
      5'd3:    byte_of = 8'(MaxLayers);
      5'd4:    byte_of = {6'd0, open, valid};
      5'd5:    byte_of = valid ? layers : 8'd0;
      5'd7:    byte_of = 8'(npu_pkg::MaxChunkBytes);
      5'd8:    byte_of = 8'(npu_pkg::MaxChunkBytes >> 8);
      5'd9:    byte_of = 8'(ActDepth);
      5'd10:   byte_of = 8'(ActDepth >> 8);
      5'd11:   byte_of = 8'(RowDepth);
      5'd12:   byte_of = 8'(RowDepth >> 8);
      5'd13:   byte_of = 8'(WmemDepth);
      5'd14:   byte_of = 8'(WmemDepth >> 8);
      5'd15:   byte_of = 8'(WmemDepth >> 16);
      5'd16:   byte_of = 8'(WmemDepth >> 24);
      5'd17:   byte_of = valid ? in_size[7:0] : 8'd0;
      5'd18:   byte_of = valid ? in_size[15:8] : 8'd0;
      5'd19:   byte_of = valid ? out_size[7:0] : 8'd0;
      5'd20:   byte_of = valid ? out_size[15:8] : 8'd0;
      5'd21:   byte_of = acked[7:0];
      5'd22:   byte_of = acked[15:8];
      5'd23:   byte_of = naked[7:0];
      5'd24:   byte_of = naked[15:8];
      default: byte_of = 8'd0;
    endcase
    status_byte = byte_of;
  endfunction

  function automatic logic [7:0] result_byte(logic [4:0] idx, logic [15:0] cls, logic [31:0] cycles);
    logic [7:0] byte_of;
    unique case (idx)
      5'd1:    byte_of = cls[7:0];
      5'd2:    byte_of = cls[15:8];
      5'd3:    byte_of = cycles[7:0];
      5'd4:    byte_of = cycles[15:8];
      5'd5:    byte_of = cycles[23:16];
      5'd6:    byte_of = cycles[31:24];
      default: byte_of = 8'd0;
    endcase
    result_byte = byte_of;
  endfunction

  logic       idx0_q;            // stage 1: the index is 0 (the command byte)
  logic [7:0] status_byte_q;     // stage 1: the tables at the index
  logic [7:0] result_byte_q;
  logic [7:0] fixed_byte_q;      // stage 2: the byte

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      idx0_q        <= 1'b0;
      status_byte_q <= '0;
      result_byte_q <= '0;
      fixed_byte_q  <= '0;
    end else if (state_q == StWaitTx) begin
      idx0_q        <= (tx_fixed_idx_i == 5'd0);
      status_byte_q <= status_byte(tx_fixed_idx_i, valid_q, open_q, layers_q, in_size_q, out_size_q,
                                   acked_q, naked_q);
      result_byte_q <= result_byte(tx_fixed_idx_i, seq_class_i, seq_cycles_i);
      fixed_byte_q  <= idx0_q                     ? cmd_q :
                       rsp_nak_q                  ? rsp_err_q :
                       (rsp_kind_q == KindStatus) ? status_byte_q : result_byte_q;
    end
  end

  assign tx_fixed_byte_o = fixed_byte_q;

  assign rx_accept_o    = (state_q == StIdle);
  assign seq_layers_o   = layers_q;
  assign tx_type_o      = rsp_nak_q ? npu_pkg::RspNak : npu_pkg::RspAck;
  assign tx_seq_o       = seq_q;
  assign tx_fixed_len_o = rsp_fixed_len_q;
  assign tx_tail_len_o  = rsp_tail_len_q;
  assign tx_tail_act_o  = !rsp_nak_q && rsp_kind_q == KindInfer;

  assign loaded_o = valid_q;
  assign nak_o    = rsp_nak_q;

endmodule
