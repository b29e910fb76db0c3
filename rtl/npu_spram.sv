// npu_spram: one tile of the weight memory, Depth words of 16 bits with one port - the shape
// of the iCE40 UltraPlus SB_SPRAM256KA (16K x 16). This file is the generic model, used by
// the simulation and by the Xilinx synthesis: an npu_ram, whose port behaves as the SPRAM's
// does (a cycle writes or reads; rdata_o holds the last word read). The iCE40 build replaces
// this file with rtl/ice40/npu_spram.sv, which instantiates the primitive; both define the
// same module with the same ports, so nothing else knows which one is built.
// Deliberately nothing of its own: the tile exists as a seam for the technology, not as a
// second kind of RAM.
module npu_spram #(
  parameter int unsigned Depth = 16384,
  localparam int unsigned AddrWidth = $clog2(Depth)
) (
  input  logic                 clk_i,

  input  logic                 req_i,
  input  logic                 we_i,
  input  logic [AddrWidth-1:0] addr_i,
  input  logic [15:0]          wdata_i,
  output logic [15:0]          rdata_o
);

  npu_ram #(
    .Width(16),
    .Depth(Depth)
  ) u_ram (
    .clk_i  (clk_i),
    .req_i  (req_i),
    .we_i   (we_i),
    .addr_i (addr_i),
    .wdata_i(wdata_i),
    .rdata_o(rdata_o)
  );

endmodule
