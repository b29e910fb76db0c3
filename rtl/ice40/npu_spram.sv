// npu_spram for the iCE40 UltraPlus: the same module as rtl/npu_spram.sv (see there for the
// port behaviour), built from one SB_SPRAM256KA. Only the iCE40 build reads this file, in
// place of the generic model; Yosys knows the primitive, and the netlist check simulates it
// with Yosys's own model (ice40/cells_sim.v).
// Deliberately no power management: the SPRAM is always on (STANDBY, SLEEP low, POWEROFF
// high; POWEROFF is active low).
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

  if (Depth != 16384) begin : g_depth_check
    $error("npu_spram: an SB_SPRAM256KA holds exactly 16384 words, not %0d", Depth);
  end

  SB_SPRAM256KA u_spram (
    .ADDRESS   (addr_i),
    .DATAIN    (wdata_i),
    .MASKWREN  (4'b1111),
    .WREN      (we_i),
    .CHIPSELECT(req_i),
    .CLOCK     (clk_i),
    .STANDBY   (1'b0),
    .SLEEP     (1'b0),
    .POWEROFF  (1'b1),
    .DATAOUT   (rdata_o)
  );

endmodule
