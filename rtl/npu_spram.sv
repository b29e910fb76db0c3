// npu_spram: one tile of the weight memory, Depth words of 16 bits with one port - the shape
// of the iCE40 UltraPlus SB_SPRAM256KA (16K x 16). This file is the generic model, used by
// the simulation and by the Xilinx synthesis (which maps it to block RAM); the iCE40 build
// replaces it with rtl/ice40/npu_spram.sv, which instantiates the primitive. Both files
// define the same module with the same ports, so nothing else knows which one is built.
//
// With req_i high a cycle writes wdata_i (we_i) or reads addr_i; rdata_o then holds the word
// read until the next read. After a write rdata_o is undefined (the SPRAM's output is), and
// this model leaves it unchanged: callers read only in cycles of their own.
// Deliberately no reset, no initial contents and no byte enables: the NPU writes a tile
// whole and never reads a word it did not write first.
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

  logic [15:0] mem_q [Depth];
  logic [15:0] rdata_q;

  // The one always_ff without a reset: the storage of a RAM.
  always_ff @(posedge clk_i) begin
    if (req_i) begin
      if (we_i) begin
        mem_q[addr_i] <= wdata_i;
      end else begin
        rdata_q <= mem_q[addr_i];
      end
    end
  end

  assign rdata_o = rdata_q;

endmodule
