// npu_ice40: the Mini NPU in its iCE40 UltraPlus configuration (npu_pkg::Ice40*): npu_top
// with 8 lanes, the weight memory in the four SPRAMs and the serial requantizer, with the
// same pins. The board top (rtl/boards/icebreaker/icebreaker_top.sv) instantiates it, the
// netlist check synthesizes it alone, and seatorch simulates it as `--target icebreaker`.
// Deliberately nothing but the parameters: every block is the one the default NPU uses.
module npu_ice40 (
  input  logic        clk_i,
  input  logic        rst_ni,
  input  logic [15:0] clks_per_bit_i,
  input  logic        uart_rx_i,
  output logic        uart_tx_o,
  output logic        loaded_o,
  output logic        error_o
);

  npu_top #(
    .Lanes        (npu_pkg::Ice40Lanes),
    .WmemDepth    (npu_pkg::Ice40WmemDepth),
    .RowDepth     (npu_pkg::Ice40RowDepth),
    .ActDepth     (npu_pkg::Ice40ActDepth),
    .DmemDepth    (npu_pkg::Ice40DmemDepth),
    .FbufDepth    (npu_pkg::Ice40FbufDepth),
    .SerialRequant(1'b1)
  ) u_npu (
    .clk_i         (clk_i),
    .rst_ni        (rst_ni),
    .clks_per_bit_i(clks_per_bit_i),
    .uart_rx_i     (uart_rx_i),
    .uart_tx_o     (uart_tx_o),
    .loaded_o      (loaded_o),
    .error_o       (error_o)
  );

endmodule
