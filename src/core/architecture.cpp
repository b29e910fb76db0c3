#include "seatorch/core/architecture.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace seatorch::core {

std::string architecture_name(std::span<const std::size_t> sizes) { return fmt::format("{}", fmt::join(sizes, "-")); }

}  // namespace seatorch::core
