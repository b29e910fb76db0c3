// npu_pkg: every constant the Mini NPU shares with its host, as specified in docs/NPU.md.
//
// The C++ mirror is include/seatorch/npu/constants.hpp; tests/npu/constants_test.cpp parses
// this file and checks that every localparam here has the same value there. So: literal
// values only (no expressions), one `localparam <type> Name = <value>;` per line.
// Deliberately no types or functions: Yosys 0.23 reads packages but rejects
// `import npu_pkg::*`, so modules refer to items as npu_pkg::Name.
package npu_pkg;

  // ---- build-time parameters: the defaults of npu_top --------------------------------
  localparam int unsigned Lanes = 16;          // MAC lanes; a power of two, >= 4
  localparam int unsigned WmemDepth = 16384;   // weight rows of Lanes bytes (256 KiB)
  localparam int unsigned RowDepth = 1024;     // bias / multiplier / shift entries
  localparam int unsigned ActDepth = 1024;     // bytes per activation buffer
  localparam int unsigned DmemDepth = 64;      // header + descriptor words
  localparam int unsigned FbufDepth = 2048;    // frame buffer bytes

  // ---- the iCE40 UltraPlus configuration (rtl/npu_ice40.sv) ------------------------------
  // 8 lanes, because the four SB_SPRAM256KA side by side are 64 bits wide; 16K weight rows
  // (128 KiB, all of the SPRAM); the 8 SB_MAC16 serve the lanes, so the requantizer is the
  // serial one. Only npu_ice40 reads these.
  /* verilator lint_off UNUSEDPARAM */
  localparam int unsigned Ice40Lanes = 8;
  localparam int unsigned Ice40WmemDepth = 16384;
  localparam int unsigned Ice40RowDepth = 256;
  localparam int unsigned Ice40ActDepth = 1024;
  localparam int unsigned Ice40DmemDepth = 64;
  localparam int unsigned Ice40FbufDepth = 2048;
  /* verilator lint_on UNUSEDPARAM */

  // ---- limits that follow from them -----------------------------------------------------
  // Host-only constants (the exporter and the harness use them; the RTL derives MaxLayers
  // from its DmemDepth parameter and never sees the .hex file's CRC region).
  /* verilator lint_off UNUSEDPARAM */
  localparam int unsigned MaxLayers = 15;      // (DmemDepth - HeaderWords) / DescWords
  localparam int unsigned MinClksPerBit = 4;
  localparam logic [3:0] RegionCrc = 4'hF;     // .hex file only, never loaded
  /* verilator lint_on UNUSEDPARAM */
  localparam int unsigned MaxChunkBytes = 1024;
  localparam int unsigned ChunkHeaderBytes = 8;  // index u16, reserved u16, address u32
  localparam int unsigned MaxPayload = 1032;   // MaxChunkBytes + ChunkHeaderBytes
  localparam int unsigned TimeoutBits = 320;   // idle bit times that abandon a frame

  // ---- model image ---------------------------------------------------------------------
  localparam logic [31:0] ImageMagic = 32'h5550_4E53;  // bytes 'S' 'N' 'P' 'U'
  localparam int unsigned FormatVersion = 1;
  localparam int unsigned HeaderWords = 4;
  localparam int unsigned DescWords = 4;
  localparam int unsigned RegionLsb = 20;      // flat word address: region in [23:20]
  localparam logic [3:0] RegionDmem = 4'h0;
  localparam logic [3:0] RegionBias = 4'h1;
  localparam logic [3:0] RegionMult = 4'h2;
  localparam logic [3:0] RegionShift = 4'h3;
  localparam logic [3:0] RegionWmem = 4'h4;
  // ---- frames --------------------------------------------------------------------------
  localparam logic [7:0] Sync0 = 8'hA5;
  localparam logic [7:0] Sync1 = 8'h5A;
  localparam logic [7:0] CmdStatus = 8'h01;
  localparam logic [7:0] CmdEcho = 8'h02;
  localparam logic [7:0] CmdLoadBegin = 8'h10;
  localparam logic [7:0] CmdLoadChunk = 8'h11;
  localparam logic [7:0] CmdLoadEnd = 8'h12;
  localparam logic [7:0] CmdInfer = 8'h20;
  localparam logic [7:0] RspAck = 8'h06;
  localparam logic [7:0] RspNak = 8'h15;
  localparam int unsigned StatusBytes = 24;    // STATUS block after the command byte
  localparam int unsigned ResultBytes = 6;     // INFER: class u16, cycles u32, then logits
  localparam logic [31:0] CrcPoly = 32'hEDB8_8320;  // CRC-32, reflected

  // ---- error codes (the second payload byte of a NAK) -----------------------------------
  localparam logic [7:0] ErrNone = 8'd0;
  localparam logic [7:0] ErrCrc = 8'd1;
  localparam logic [7:0] ErrFraming = 8'd2;
  localparam logic [7:0] ErrLength = 8'd3;
  localparam logic [7:0] ErrTimeout = 8'd4;
  localparam logic [7:0] ErrCommand = 8'd5;
  localparam logic [7:0] ErrState = 8'd6;
  localparam logic [7:0] ErrSequence = 8'd7;
  localparam logic [7:0] ErrAddress = 8'd8;
  localparam logic [7:0] ErrNoImage = 8'd9;
  localparam logic [7:0] ErrImageCrc = 8'd10;
  localparam logic [7:0] ErrImageHeader = 8'd11;

endpackage
