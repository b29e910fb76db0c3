// The host's UART line models. UartLineRx follows rtl/npu_uart_rx.sv state for state.
#include "seatorch/npu/uart.hpp"

#include "seatorch/core/error.hpp"
#include "seatorch/npu/constants.hpp"

namespace seatorch::npu {

UartLineTx::UartLineTx(unsigned clks_per_bit) : clks_per_bit_(clks_per_bit) {
  if (clks_per_bit < kMinClksPerBit || clks_per_bit > 0xFFFF) {
    throw core::input_error("clocks per UART bit must be in [{}, 65535], got {}", kMinClksPerBit, clks_per_bit);
  }
}

void UartLineTx::push(std::uint8_t byte, bool stop_bit) {
  if (stop_bit) {
    queue_.push_back({static_cast<std::uint16_t>(std::uint16_t{byte} << 1 | 1U << 9), 10, clks_per_bit_});
  } else {
    queue_.push_back({static_cast<std::uint16_t>(std::uint16_t{byte} << 1 | 1U << 10), 11, clks_per_bit_});
  }
}

void UartLineTx::push_break(unsigned cycles) {
  queue_.push_back({0, 1, cycles});
  queue_.push_back({1, 1, clks_per_bit_});
}

bool UartLineTx::tick_queued() {
  const Item& item = queue_.front();
  const bool level = ((item.bits >> bit_) & 1U) != 0;
  if (++cycle_in_bit_ == item.bit_cycles) {
    cycle_in_bit_ = 0;
    if (++bit_ == item.count) {
      bit_ = 0;
      queue_.pop_front();
    }
  }
  return level;
}

std::optional<UartByte> UartLineRx::tick_active(bool level) {
  switch (state_) {
    case State::kIdle:
      if (!level) {
        state_ = State::kStart;
        count_ = 1;
      }
      return std::nullopt;
    case State::kStart:
      if (count_ >= clks_per_bit_ / 2) {
        count_ = 1;
        bit_ = 0;
        state_ = level ? State::kIdle : State::kData;
      } else {
        ++count_;
      }
      return std::nullopt;
    case State::kData:
      if (count_ >= clks_per_bit_) {
        count_ = 1;
        shift_ = static_cast<std::uint8_t>(shift_ >> 1 | (level ? 0x80U : 0U));
        if (++bit_ == 8) state_ = State::kStop;
      } else {
        ++count_;
      }
      return std::nullopt;
    case State::kStop:
      if (count_ >= clks_per_bit_) {
        state_ = level ? State::kIdle : State::kWaitHigh;
        return UartByte{shift_, !level};
      }
      ++count_;
      return std::nullopt;
    case State::kWaitHigh:
      if (level) state_ = State::kIdle;
      return std::nullopt;
  }
  return std::nullopt;
}

}  // namespace seatorch::npu
