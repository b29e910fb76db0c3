// npu_weight_mem: the weight memory, WmemDepth rows of Lanes int8 weights, built from
// Lanes/2 tiles of 16-bit single-port RAM (npu_spram: on the iCE40 UltraPlus, one
// SB_SPRAM256KA each; four of them hold the 8-lane configuration's 16K rows) that share
// one address.
//
// The sequencer reads a whole row (all tiles) per cycle; the loader writes one 32-bit word
// (one bank of two tiles) per cycle: flat word n is bank n mod (Lanes/4) of row n / (Lanes/4),
// lane 4b in the bank's bits [7:0]. Deliberately no byte enables: a bank is the write unit,
// which keeps every memory a plain single-port RAM.
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

  logic [AddrWidth-1:0] addr;
  assign addr = we_i ? waddr_i : raddr_i;

  for (genvar t = 0; t < Lanes / 2; t++) begin : g_tile
    localparam int unsigned Bank = t / 2;
    logic tile_we;
    assign tile_we = we_i && (Banks == 1 || wbank_i == BankWidth'(Bank));

    npu_spram #(
      .Depth(Depth)
    ) u_spram (
      .clk_i  (clk_i),
      .req_i  (tile_we || re_i),
      .we_i   (tile_we),
      .addr_i (addr),
      .wdata_i(wdata_i[16*(t % 2) +: 16]),
      .rdata_o(rdata_o[16*t +: 16])
    );
  end

endmodule
