// icebreaker_top: the Mini NPU on an iCEBreaker board (iCE40UP5K-SG48): the PLL from the
// 12 MHz oscillator to the NPU clock, the reset from the user button and the PLL lock, the
// FTDI UART and two status lights, around npu_ice40. Pins: icebreaker.pcf beside this file.
// Built by scripts/fpga.sh, which picks the PLL dividers for its clock (icepll) and the
// clocks per UART bit for its baud rate, and passes both in as parameters.
// Deliberately nothing else: every decision is made in the NPU's own blocks.
module icebreaker_top #(
  // PLL: 12 MHz * (DIVF + 1) / ((DIVR + 1) * 2^DIVQ), the VCO within 533..1066 MHz
  parameter logic [3:0]  PllDivr = 4'd0,
  parameter logic [6:0]  PllDivf = 7'd55,
  parameter logic [2:0]  PllDivq = 3'd4,
  parameter logic [2:0]  PllFilterRange = 3'd1,
  parameter logic [15:0] ClksPerBit = 16'd14    // NPU clock / baud rate
) (
  input  logic clk_12m_i,    // pin 35, the 12 MHz oscillator
  input  logic btn_ni,       // pin 10, the user button: pressed = low = reset
  input  logic uart_rx_i,    // pin 6, FTDI channel B TX -> FPGA
  output logic uart_tx_o,    // pin 9, FPGA -> FTDI channel B RX
  output logic led_red_no,   // pin 11, lit (low) after a NAK: the last request failed
  output logic led_green_no  // pin 37, lit (low) while a model image is loaded
);

  logic clk, pll_locked;

  SB_PLL40_PAD #(
    .FEEDBACK_PATH("SIMPLE"),
    .DIVR         (PllDivr),
    .DIVF         (PllDivf),
    .DIVQ         (PllDivq),
    .FILTER_RANGE (PllFilterRange)
  ) u_pll (
    .PACKAGEPIN  (clk_12m_i),
    .PLLOUTGLOBAL(clk),
    .LOCK        (pll_locked),
    .RESETB      (1'b1),
    .BYPASS      (1'b0)
  );

  // Reset: asserted at once while the button is pressed or the PLL is not locked, released
  // in step with the clock, two cycles later (so no flop sees the release near an edge).
  logic       rst_async_n;
  logic [1:0] rst_sync_q;
  assign rst_async_n = btn_ni && pll_locked;

  always_ff @(posedge clk or negedge rst_async_n) begin
    if (!rst_async_n) begin
      rst_sync_q <= 2'b00;
    end else begin
      rst_sync_q <= {rst_sync_q[0], 1'b1};
    end
  end

  logic loaded, error;

  npu_ice40 u_npu (
    .clk_i         (clk),
    .rst_ni        (rst_sync_q[1]),
    .clks_per_bit_i(ClksPerBit),
    .uart_rx_i     (uart_rx_i),
    .uart_tx_o     (uart_tx_o),
    .loaded_o      (loaded),
    .error_o       (error)
  );

  // the LEDs are active low
  assign led_green_no = !loaded;
  assign led_red_no   = !error;

endmodule
