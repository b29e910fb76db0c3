// SimLink: the clock loop of the simulated line. tick() runs once per simulated cycle, so it
// does no allocation and no indirect call beyond the pins' one (the fault hooks run only
// when a byte starts on the wire).
#include "seatorch/npu/sim_link.hpp"

#include <stdexcept>

namespace seatorch::npu {
namespace {

constexpr unsigned kResetCycles = 4;
// Idle bit times after which the NPU has finished any response and listens again.
constexpr std::uint64_t kQuietBits = 20;

}  // namespace

SimLink::SimLink(std::unique_ptr<NpuPins> pins, const SimLineOptions& options)
    : clks_per_bit_(options.clks_per_bit),
      line_out_(options.clks_per_bit),
      line_in_(options.clks_per_bit),
      wire_to_npu_(options.clks_per_bit, options.to_npu),
      wire_from_npu_(options.clks_per_bit, options.from_npu),
      pins_(std::move(pins)) {
  if (!pins_) throw std::invalid_argument("SimLink needs the NPU's pins");
  pins_->set_clks_per_bit(static_cast<std::uint16_t>(clks_per_bit_));
  pins_->set_reset(true);
  run(kResetCycles);
  pins_->set_reset(false);
  run(kResetCycles);
}

SimLink::~SimLink() = default;

// Kept small enough to be inlined into the loops below: a received byte, one cycle in forty
// at best, takes the call to keep().
inline void SimLink::tick() {
  level_ = wire_from_npu_.tick(pins_->cycle(wire_to_npu_.tick(line_out_.tick())));
  ++cycles_;
  if (std::optional<UartByte> b = line_in_.tick(level_)) keep(*b);
}

[[gnu::noinline]] void SimLink::keep(UartByte b) {
  ++bytes_received_;
  received_.push_back(b);
}

void SimLink::run(std::uint64_t cycles) {
  for (std::uint64_t c = 0; c < cycles; ++c) tick();
}

std::optional<UartByte> SimLink::take_received() {
  if (received_head_ == received_.size()) return std::nullopt;
  const UartByte b = received_[received_head_++];
  if (received_head_ == received_.size()) {
    received_.clear();  // keeps the capacity: no allocation once the queue has grown
    received_head_ = 0;
  }
  return b;
}

// A byte that arrives while the host is still sending waits until it has sent everything:
// the protocol must not answer a frame before its own request is out. The deadline is
// checked before a waiting byte is handed out, so a byte that arrives in the deadline's
// cycle is late.
std::optional<UartByte> SimLink::receive(LinkTime deadline) {
  for (;;) {
    if (line_out_.idle()) {
      if (cycles_ >= deadline) return std::nullopt;
      if (std::optional<UartByte> b = take_received()) return b;
    }
    tick();
  }
}

LinkTime SimLink::deadline_after(const LinkBudget& budget) const {
  return cycles_ + budget.wire_bits * clks_per_bit_ + budget.npu_cycles;
}

void SimLink::discard_until_quiet() {
  const std::uint64_t quiet = kQuietBits * clks_per_bit_;
  std::uint64_t idle = 0;
  while (idle < quiet) {
    tick();
    idle = (level_ && !line_in_.busy()) ? idle + 1 : 0;
  }
  received_.clear();
  received_head_ = 0;
}

LinkCounters SimLink::counters() const {
  return LinkCounters{bytes_sent_, bytes_received_, cycles_, wire_to_npu_.counts(), wire_from_npu_.counts()};
}

std::string SimLink::silence_advice() const { return "check the line settings (clocks per bit)"; }

void SimLink::send_raw(std::span<const std::uint8_t> bytes, std::optional<std::size_t> bad_stop_at) {
  for (std::size_t i = 0; i < bytes.size(); ++i) line_out_.push(bytes[i], bad_stop_at != i);
  bytes_sent_ += bytes.size();
}

void SimLink::send_break(unsigned bit_times) { line_out_.push_break(bit_times * clks_per_bit_); }

}  // namespace seatorch::npu
