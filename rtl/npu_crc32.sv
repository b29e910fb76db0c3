// npu_crc32: CRC-32 (reflected polynomial 0xEDB88320, init and final XOR 0xFFFFFFFF; the
// Ethernet/zip CRC) folded one byte per cycle.
//
// crc_o is the finished CRC of every byte folded since the last clear_i, valid in the cycle
// after the last byte. clear_i wins over valid_i. Deliberately one byte per cycle: the
// fastest producer (the frame buffer read by npu_ctrl) delivers one byte per cycle.
module npu_crc32 (
  input  logic        clk_i,
  input  logic        rst_ni,

  input  logic        clear_i,  // restart with no bytes folded
  input  logic        valid_i,  // fold data_i
  input  logic [7:0]  data_i,

  output logic [31:0] crc_o
);

  logic [31:0] reg_q;  // the CRC register, before the final XOR

  // the CRC register after folding one byte, LSB first
  function automatic logic [31:0] fold(logic [31:0] crc, logic [7:0] data);
    fold = crc ^ {24'd0, data};
    for (int b = 0; b < 8; b++) begin
      fold = fold[0] ? ((fold >> 1) ^ npu_pkg::CrcPoly) : (fold >> 1);
    end
  endfunction

  // An enable-style register with the fold inside the enabled branch: idle cycles switch
  // nothing and cost the simulation nothing.
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      reg_q <= 32'hFFFF_FFFF;
    end else if (valid_i && !clear_i) begin
      reg_q <= fold(reg_q, data_i);
    end else if (clear_i) begin
      reg_q <= 32'hFFFF_FFFF;
    end
  end

  assign crc_o = ~reg_q;

endmodule
