// npu_weight_mem: the weight memory, WmemDepth rows of Lanes int8 weights, built from
// Lanes/4 banks of 32-bit single-port RAM that share one address.
//
// The sequencer reads a whole row (all banks) per cycle; the loader writes one 32-bit word
// (one bank) per cycle: flat word n is bank n mod (Lanes/4) of row n / (Lanes/4), lane 4b
// in the bank's bits [7:0]. Deliberately no byte enables: a bank is the write unit, which
// keeps the RAM inference simple for both Xilinx and iCE40.
module npu_weight_mem #(
  parameter int unsigned Lanes = npu_pkg::Lanes,
  parameter int unsigned Depth = npu_pkg::WmemDepth,
  localparam int unsigned Banks = Lanes / 4,
  localparam int unsigned AddrWidth = $clog2(Depth),
  localparam int unsigned BankWidth = (Banks > 1) ? $clog2(Banks) : 1
) (
  input  logic                 clk_i,

  // loader: one 32-bit word
  input  logic                 we_i,
  input  logic [AddrWidth-1:0] waddr_i,
  input  logic [BankWidth-1:0] wbank_i,
  input  logic [31:0]          wdata_i,

  // sequencer: one row
  input  logic                 re_i,
  input  logic [AddrWidth-1:0] raddr_i,
  output logic [Lanes*8-1:0]   rdata_o
);

  for (genvar b = 0; b < Banks; b++) begin : g_bank
    logic bank_we;
    assign bank_we = we_i && (Banks == 1 || wbank_i == BankWidth'(b));

    npu_ram #(
      .Width(32),
      .Depth(Depth)
    ) u_ram (
      .clk_i  (clk_i),
      .req_i  (bank_we || re_i),
      .we_i   (bank_we),
      .addr_i (we_i ? waddr_i : raddr_i),
      .wdata_i(wdata_i),
      .rdata_o(rdata_o[32*b +: 32])
    );
  end

endmodule
