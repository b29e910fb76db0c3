// npu_loader: the model image's loader (docs/NPU.md, "Loading a model"). Carries out the
// three load commands npu_ctrl hands it, owns the image state (valid, open, the expected
// chunk index, the header's layer count and sizes) and the running image CRC.
//
// begin_i (LOAD_BEGIN, already accepted by npu_ctrl) invalidates the image, opens a load,
// restarts the chunk index and clears the running CRC; it needs no reply from here.
// chunk_i (LOAD_CHUNK): the chunk already sits complete and CRC-checked in the frame
// buffer. Its 8-byte header is read and judged (the expected index or the previous one
// again, the address range inside one region of the memory map) before a single word is
// written, so a rejected chunk changes nothing; an accepted one is streamed from the frame
// buffer, one byte per cycle, into npu_image_writer: the running CRC, and 32-bit words
// through the flat write port.
// end_i (LOAD_END): the request's CRC is compared with the running one, then header words
// 0-2 are read back from the DMEM and checked (magic, version, lanes, layer count, sizes);
// only then is the image valid.
// done_o pulses once per chunk_i or end_i, in the cycle the outcome is known, with nak_o
// and err_o; npu_ctrl registers them as the response.
// Assumes: npu_ctrl has checked the request's length (a chunk header and whole words, or
// the 4 CRC bytes), raises at most one strobe at a time and only while this block is idle,
// holds len_i until done_o, and lets nothing else touch the frame buffer or the DMEM
// meanwhile. The frame buffer and the DMEM have a registered read (npu_ram).
// Deliberately not here: the request's framing, the length checks and the responses
// (npu_ctrl); the bytes-to-words data path and the CRC (npu_image_writer); the decoding
// of the flat write address into the memories (npu_top).
module npu_loader #(
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

  // commands from npu_ctrl: one-cycle strobes, only while idle
  input  logic                    begin_i,       // LOAD_BEGIN accepted
  input  logic                    chunk_i,       // LOAD_CHUNK: check and commit the chunk
  input  logic                    end_i,         // LOAD_END: check the CRC and the header
  input  logic [15:0]             len_i,         // the request's payload bytes, held until done_o

  // the outcome of chunk_i or end_i
  output logic                    done_o,        // one-cycle pulse
  output logic                    nak_o,
  output logic [7:0]              err_o,         // ErrNone with an ACK

  // frame buffer, read (the request's payload)
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

  // the image state
  output logic                    valid_o,       // a complete, CRC-checked image is loaded
  output logic                    open_o,        // LOAD_BEGIN seen, LOAD_END not yet accepted
  output logic [7:0]              layers_o,      // the valid image's header fields
  output logic [15:0]             in_size_o,
  output logic [15:0]             out_size_o
);

  localparam int unsigned Banks     = Lanes / 4;
  localparam int unsigned MaxLayers = (DmemDepth - npu_pkg::HeaderWords) / npu_pkg::DescWords;

  typedef enum logic [3:0] {
    StIdle,
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
    StEndValidate
  } state_e;

  state_e state_d, state_q;

  // The FSM state is two-process. Every other register is an enable-style flop that loads
  // only at the strobe the FSM raises for it: outside a load nothing here switches, which
  // saves power in silicon and, in simulation, the per-cycle copy of every register
  // (docs/DECISIONS.md, "Simulation speed").

  // the chunk's length, and the commit's progress
  logic [15:0] len_last_q;    // len - 1
  logic [13:0] chunk_words_q; // (len - chunk header) / 4: data words of a LOAD_CHUNK
  logic        commit_end_q;  // StCommit: cnt_q == len (set when cnt_q was len - 1)
  logic        commit_data_q; // StCommit after its first cycle: a data byte arrives

  // image state
  logic        valid_q;
  logic        open_q;
  logic [15:0] expect_q;      // next chunk index
  logic [15:0] prev_q;        // expect_q - 1: the last chunk's index (registered, not subtracted)
  logic        dup_ok_q;      // a chunk was committed since LOAD_BEGIN
  logic [7:0]  layers_q;
  logic [15:0] in_size_q;
  logic [15:0] out_size_q;

  // the chunk's header, judged in StChunkTest
  logic        idx_next_q;    // the expected chunk index
  logic        idx_again_q;   // the previous chunk again
  logic [20:0] chunk_end_q;   // the chunk's end: its region offset + its words
  logic [20:0] region_q;      // the words of the chunk's region
  logic        fits_q;        // inside one region of the memory map

  // LOAD_END's checks
  logic        crc_match_q;   // its CRC is the running image CRC
  logic        magic_ok_q;    // header word 0 is the magic
  logic        header_ok_q;   // the loaded header is valid for this NPU

  // byte and word fetches from the buffers
  logic [15:0] cnt_q;
  logic [63:0] hdr_q;         // chunk header, or LOAD_END CRC, or header words 1-2

  // strobes of the FSM for the registers above
  logic        chunk_done;    // the last byte of an accepted chunk is written
  logic        image_ok;      // LOAD_END accepted
  logic        cnt_clear, cnt_step;
  logic        cnt_skip_hdr;  // cnt_q = the chunk header's size: StCommit counts frame-buffer addresses
  logic        hdr_byte;      // shift a frame-buffer byte into hdr_q
  logic        hdr_word;      // shift a DMEM word into hdr_q
  logic        magic_take;    // the DMEM word is header word 0
  logic        commit_byte;   // a chunk data byte arrives from the frame buffer
  logic        commit_word;   // ... and it completes a word

  logic [31:0] image_crc;     // the running image CRC

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

    done_o = 1'b0;
    nak_o  = 1'b0;
    err_o  = npu_pkg::ErrNone;

    chunk_done   = 1'b0;
    image_ok     = 1'b0;
    cnt_clear    = 1'b0;
    cnt_skip_hdr = 1'b0;
    cnt_step     = 1'b0;
    hdr_byte     = 1'b0;
    hdr_word     = 1'b0;
    magic_take   = 1'b0;
    commit_byte  = 1'b0;
    commit_word  = 1'b0;

    fbuf_addr_o = FbufAw'(cnt_q);
    dmem_addr_o = DmemAw'(cnt_q);

    unique case (state_q)
      StIdle: begin
        cnt_clear = 1'b1;  // (a state decode, not the strobes: a shallow enable)
        if (chunk_i) begin
          state_d = StChunkHdr;
        end else if (end_i) begin
          state_d = StEndCrc;
        end
      end

      // read the 8-byte chunk header from the frame buffer
      StChunkHdr: begin
        cnt_step   = 1'b1;  // reads bytes 0-7; the read one past them is harmless (see StCommit)
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
            done_o = 1'b1;
            nak_o  = 1'b1;
            err_o  = npu_pkg::ErrAddress;
          end
        end else if (idx_again_q) begin
          done_o = 1'b1;  // the previous chunk again: its ACK was lost
        end else begin
          done_o = 1'b1;
          nak_o  = 1'b1;
          err_o  = npu_pkg::ErrSequence;
        end
      end

      // cnt_q is the frame-buffer address of a payload byte: it starts after the chunk header
      // and ends with the payload (len_i). Each cycle requests byte cnt_q and receives byte
      // cnt_q - 1: fold that into the CRC, and write every 4th (the one whose data index
      // cnt - 1 - header is 3 mod 4; the header is 8 bytes). The read one past the end is
      // harmless: nothing else uses the frame buffer until the response.
      StCommit: begin
        cnt_step   = 1'b1;
        if (commit_data_q) begin
          commit_byte = 1'b1;
          commit_word = (cnt_q[1:0] == 2'd0);
          if (commit_end_q) begin
            chunk_done = 1'b1;
            done_o     = 1'b1;
          end
        end
      end

      // read the 4-byte image CRC of LOAD_END into hdr_q[63:32]
      StEndCrc: begin
        cnt_step   = 1'b1;  // reads bytes 0-3, and one harmless read past them
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
            done_o = 1'b1;
            nak_o  = 1'b1;
            err_o  = npu_pkg::ErrImageCrc;
          end else begin
            state_d = StEndHdr;
          end
        end else if (valid_q && crc_match_q) begin
          done_o = 1'b1;  // LOAD_END again: its ACK was lost
        end else begin
          done_o = 1'b1;
          nak_o  = 1'b1;
          err_o  = npu_pkg::ErrState;
        end
      end

      // read header words 0-2: the magic into magic_ok_q, words 1-2 into hdr_q
      StEndHdr: begin
        cnt_step   = 1'b1;  // reads words 0-2, and one harmless read past them
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
        done_o = 1'b1;
        if (header_ok_q) begin
          image_ok = 1'b1;
        end else begin
          nak_o = 1'b1;
          err_o = npu_pkg::ErrImageHeader;
        end
      end

      default: state_d = StIdle;
    endcase

    if (done_o) begin
      state_d = StIdle;
    end
  end

  // The read requests are flops, set with the states that read (StChunkHdr, StCommit and
  // StEndCrc the frame buffer, StEndHdr the DMEM): they select the memories' address
  // multiplexers in npu_top, which must start at flops (the iCE40 timing).
  logic fbuf_req_q, dmem_req_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q    <= StIdle;
      fbuf_req_q <= 1'b0;
      dmem_req_q <= 1'b0;
    end else begin
      state_q    <= state_d;
      fbuf_req_q <= (state_d == StChunkHdr) || (state_d == StCommit) || (state_d == StEndCrc);
      dmem_req_q <= (state_d == StEndHdr);
    end
  end

  assign fbuf_req_o = fbuf_req_q;
  assign dmem_req_o = dmem_req_q;

  // ---- datapath registers ----
  // The chunk's length as StChunkTest and StCommit need it, from the held request length,
  // loaded while the header is read (enabled by a state, not by npu_ctrl's strobe).
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      len_last_q    <= '0;
      chunk_words_q <= '0;
    end else if (state_q == StChunkHdr) begin
      len_last_q    <= len_i - 16'd1;
      chunk_words_q <= 14'((len_i - 16'(npu_pkg::ChunkHeaderBytes)) >> 2);
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
      idx_again_q <= dup_ok_q && (chunk_index == prev_q);
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

  // The accepted chunk's bytes: into the running CRC, and as words through the write port.
  npu_image_writer u_writer (
    .clk_i       (clk_i),
    .rst_ni      (rst_ni),
    .clear_i     (begin_i),
    .crc_o       (image_crc),
    .start_i     (state_q == StChunkCheck),
    .addr_i      (chunk_addr[23:0]),
    .byte_valid_i(commit_byte),
    .byte_i      (fbuf_rdata_i),
    .word_end_i  (commit_word),
    .mem_we_o    (mem_we_o),
    .mem_addr_o  (mem_addr_o),
    .mem_wdata_o (mem_wdata_o)
  );

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

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      valid_q    <= 1'b0;
      open_q     <= 1'b0;
      expect_q   <= '0;
      prev_q     <= '1;
      dup_ok_q   <= 1'b0;
      layers_q   <= '0;
      in_size_q  <= '0;
      out_size_q <= '0;
    end else if (chunk_done) begin
      expect_q <= expect_q + 16'd1;
      prev_q   <= expect_q;
      dup_ok_q <= 1'b1;
    end else if (begin_i) begin
      valid_q  <= 1'b0;
      open_q   <= 1'b1;
      expect_q <= 16'd0;
      prev_q   <= '1;
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
    end
  end


  assign valid_o    = valid_q;
  assign open_o     = open_q;
  assign layers_o   = layers_q;
  assign in_size_o  = in_size_q;
  assign out_size_o = out_size_q;

endmodule
