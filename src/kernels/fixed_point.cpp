// quantize_multiplier(): the one place where a float becomes a fixed-point multiplier.
#include "seatorch/kernels/fixed_point.hpp"

#include "seatorch/core/error.hpp"

#include <cmath>

namespace seatorch::kernels {

QuantizedMultiplier quantize_multiplier(double real) {
  if (!(real > 0.0 && real < 1.0)) {
    throw core::input_error("requantization multiplier {} is outside (0, 1); the integer model "
                            "supports only scale ratios s_in*s_w/s_out below 1",
                            real);
  }
  int exponent = 0;
  const double fraction = std::frexp(real, &exponent);  // real = fraction * 2^exponent, fraction in [0.5, 1)
  auto q = static_cast<std::int64_t>(std::llround(fraction * static_cast<double>(std::int64_t{1} << 31)));
  if (q == (std::int64_t{1} << 31)) {  // rounding carried into the next power of two
    q /= 2;
    ++exponent;
  }
  const int shift = -exponent;  // exponent <= 0 because real < 1
  if (shift > 31) throw core::input_error("requantization multiplier {} is too small (below 2^-32)", real);
  return QuantizedMultiplier{static_cast<std::int32_t>(q), shift};
}

}  // namespace seatorch::kernels
