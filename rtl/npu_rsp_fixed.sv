// npu_rsp_fixed: the fixed part of a response (docs/NPU.md, "Commands"), one byte at a time
// as the encoder asks for it by index: byte 0 the command byte, then a NAK's error code, or
// an ACK's STATUS block, or an INFER result (class u16, cycles u32; the logits follow as the
// tail, which npu_frame_tx reads from the activation buffer itself). Other ACKs have only
// byte 0, and npu_ctrl's fixed length says so.
// Two register stages: the STATUS and result tables are looked up from the index, then the
// response picks one. byte_o is thus byte idx_i two cycles after idx_i, which the encoder
// tolerates because the UART takes a byte at most once per byte time (npu_frame_tx.sv); the
// tables' multiplexers then stay off every other path (the iCE40 timing).
// Assumes every input is stable while en_i is high (npu_ctrl raises it while the response
// is being sent, and nothing it reads changes before the response is out).
// Deliberately no response buffer and no state of its own: the bytes come from the live
// registers of npu_ctrl, npu_loader and npu_sequencer, and the registers load only while
// en_i is high (no switching, and no simulation work, between responses).
module npu_rsp_fixed #(
  parameter int unsigned Lanes      = npu_pkg::Lanes,
  parameter int unsigned WmemDepth  = npu_pkg::WmemDepth,
  parameter int unsigned RowDepth   = npu_pkg::RowDepth,
  parameter int unsigned ActDepth   = npu_pkg::ActDepth,
  parameter int unsigned DmemDepth  = npu_pkg::DmemDepth
) (
  input  logic        clk_i,
  input  logic        rst_ni,

  // the encoder's request
  input  logic        en_i,          // a response is being sent
  input  logic [4:0]  idx_i,         // byte of the fixed part
  output logic [7:0]  byte_o,        // byte idx_i of two cycles before

  // the response
  input  logic [7:0]  cmd_i,         // the request's command byte
  input  logic        nak_i,
  input  logic [7:0]  err_i,         // a NAK's error code
  input  logic        status_i,      // an ACK of STATUS (else of INFER, if it has a byte 1)

  // the STATUS block's variable fields
  input  logic        image_valid_i,
  input  logic        image_open_i,
  input  logic [7:0]  image_layers_i,
  input  logic [15:0] image_in_size_i,
  input  logic [15:0] image_out_size_i,
  input  logic [15:0] acked_i,       // responses ACKed since reset
  input  logic [15:0] naked_i,       // responses NAKed since reset

  // the INFER result
  input  logic [15:0] class_i,
  input  logic [31:0] cycles_i
);

  localparam int unsigned MaxLayers = (DmemDepth - npu_pkg::HeaderWords) / npu_pkg::DescWords;

  // byte idx of the fixed part of a STATUS ACK (byte 0, the command, is not looked up here)
  function automatic logic [7:0] status_byte(logic [4:0] idx, logic valid, logic open,
                                             logic [7:0] layers, logic [15:0] in_size,
                                             logic [15:0] out_size, logic [15:0] acked,
                                             logic [15:0] naked);
    logic [7:0] byte_of;
    unique case (idx)
      5'd1:    byte_of = 8'(npu_pkg::FormatVersion);
      5'd2:    byte_of = 8'(Lanes);
      5'd3:    byte_of = 8'(MaxLayers);
      5'd4:    byte_of = {6'd0, open, valid};
      5'd5:    byte_of = valid ? layers : 8'd0;
      5'd7:    byte_of = 8'(npu_pkg::MaxChunkBytes);
      5'd8:    byte_of = 8'(npu_pkg::MaxChunkBytes >> 8);
      5'd9:    byte_of = 8'(ActDepth);
      5'd10:   byte_of = 8'(ActDepth >> 8);
      5'd11:   byte_of = 8'(RowDepth);
      5'd12:   byte_of = 8'(RowDepth >> 8);
      5'd13:   byte_of = 8'(WmemDepth);
      5'd14:   byte_of = 8'(WmemDepth >> 8);
      5'd15:   byte_of = 8'(WmemDepth >> 16);
      5'd16:   byte_of = 8'(WmemDepth >> 24);
      5'd17:   byte_of = valid ? in_size[7:0] : 8'd0;
      5'd18:   byte_of = valid ? in_size[15:8] : 8'd0;
      5'd19:   byte_of = valid ? out_size[7:0] : 8'd0;
      5'd20:   byte_of = valid ? out_size[15:8] : 8'd0;
      5'd21:   byte_of = acked[7:0];
      5'd22:   byte_of = acked[15:8];
      5'd23:   byte_of = naked[7:0];
      5'd24:   byte_of = naked[15:8];
      default: byte_of = 8'd0;
    endcase
    status_byte = byte_of;
  endfunction

  // byte idx of the fixed part of an INFER ACK
  function automatic logic [7:0] result_byte(logic [4:0] idx, logic [15:0] cls, logic [31:0] cycles);
    logic [7:0] byte_of;
    unique case (idx)
      5'd1:    byte_of = cls[7:0];
      5'd2:    byte_of = cls[15:8];
      5'd3:    byte_of = cycles[7:0];
      5'd4:    byte_of = cycles[15:8];
      5'd5:    byte_of = cycles[23:16];
      5'd6:    byte_of = cycles[31:24];
      default: byte_of = 8'd0;
    endcase
    result_byte = byte_of;
  endfunction

  logic       idx0_q;            // stage 1: the index is 0 (the command byte)
  logic [7:0] status_byte_q;     // stage 1: the tables at the index
  logic [7:0] result_byte_q;
  logic [7:0] fixed_byte_q;      // stage 2: the byte

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      idx0_q        <= 1'b0;
      status_byte_q <= '0;
      result_byte_q <= '0;
      fixed_byte_q  <= '0;
    end else if (en_i) begin
      idx0_q        <= (idx_i == 5'd0);
      status_byte_q <= status_byte(idx_i, image_valid_i, image_open_i, image_layers_i,
                                   image_in_size_i, image_out_size_i, acked_i, naked_i);
      result_byte_q <= result_byte(idx_i, class_i, cycles_i);
      fixed_byte_q  <= idx0_q   ? cmd_i :
                       nak_i    ? err_i :
                       status_i ? status_byte_q : result_byte_q;
    end
  end

  assign byte_o = fixed_byte_q;

endmodule
