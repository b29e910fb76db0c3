// npu_image_writer: the data path of loading a model image. Takes an accepted chunk's data
// bytes one per cycle, folds each into the running image CRC, assembles every four of
// them into a little-endian 32-bit word and writes that word through the flat write port
// (docs/NPU.md, "Memory map"), at consecutive word addresses from the chunk's address.
//
// A word is written in the cycle after its last byte arrives, from registers (mem_we_o,
// mem_addr_o and mem_wdata_o are flops): the write enable's decoding in npu_top then
// starts at flops. crc_o is the CRC of every byte since clear_i, valid in the cycle after
// the last byte (npu_crc32).
// Assumes: npu_loader has checked the chunk (index and address range) before start_i,
// sends whole words (word_end_i on every fourth byte), and start_i does not coincide with
// a write.
// Deliberately no address decoding and no range check: npu_top maps the flat address onto
// the memories, npu_loader judges it.
module npu_image_writer (
  input  logic        clk_i,
  input  logic        rst_ni,

  // the image
  input  logic        clear_i,      // a new image: restart the running CRC
  output logic [31:0] crc_o,        // the running image CRC

  // a chunk
  input  logic        start_i,      // the chunk's first word is at addr_i
  input  logic [23:0] addr_i,
  input  logic        byte_valid_i, // a data byte of the chunk
  input  logic [7:0]  byte_i,
  input  logic        word_end_i,   // byte_i is the last of its word

  // the flat write port
  output logic        mem_we_o,
  output logic [23:0] mem_addr_o,
  output logic [31:0] mem_wdata_o
);

  logic [23:0] word_q;        // the first three bytes of the word being assembled
  logic        mem_we_q;
  logic [23:0] mem_addr_q;    // flat word address, counts up from the chunk's address
  logic [31:0] mem_wdata_q;

  npu_crc32 u_image_crc (
    .clk_i  (clk_i),
    .rst_ni (rst_ni),
    .clear_i(clear_i),
    .valid_i(byte_valid_i),
    .data_i (byte_i),
    .crc_o  (crc_o)
  );

  // Enable-style registers: between chunks nothing here switches.
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      word_q      <= '0;
      mem_we_q    <= 1'b0;
      mem_addr_q  <= '0;
      mem_wdata_q <= '0;
    end else begin
      if (byte_valid_i) begin
        word_q <= {byte_i, word_q[23:8]};
      end
      mem_we_q <= byte_valid_i && word_end_i;
      if (mem_we_q) begin
        mem_addr_q <= mem_addr_q + 24'd1;
      end else if (start_i) begin
        mem_addr_q <= addr_i;
      end
      if (byte_valid_i && word_end_i) begin
        mem_wdata_q <= {byte_i, word_q};
      end
    end
  end

  assign mem_we_o    = mem_we_q;
  assign mem_addr_o  = mem_addr_q;
  assign mem_wdata_o = mem_wdata_q;

endmodule
