// npu_ram: single-port RAM with a registered (synchronous) read, the shape every FPGA
// block RAM has; Yosys maps it to RAMB18E1/RAMB36E1 (synth_xilinx) or SB_RAM40_4K
// (synth_ice40), Verilator to a plain array.
//
// With req_i high a cycle writes wdata_i (we_i) or reads addr_i; rdata_o then holds the
// word read until the next read. A write leaves rdata_o as it was: no caller reads in a
// cycle it writes, and without a read-during-write rule Yosys maps the RAM to block RAM
// with no bypass logic around it (which sat on the iCE40's critical path).
// Deliberately no reset and no initial contents: real block RAM has neither, and the NPU
// never reads a word it did not write first (an image must be loaded before INFER).
module npu_ram #(
  parameter int unsigned Width = 32,
  parameter int unsigned Depth = 1024,
  localparam int unsigned AddrWidth = $clog2(Depth)
) (
  input  logic                 clk_i,

  input  logic                 req_i,
  input  logic                 we_i,
  input  logic [AddrWidth-1:0] addr_i,
  input  logic [Width-1:0]     wdata_i,
  output logic [Width-1:0]     rdata_o
);

  logic [Width-1:0] mem_q [Depth];
  logic [Width-1:0] rdata_q;

  // The one always_ff without a reset: the storage of a block RAM.
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
