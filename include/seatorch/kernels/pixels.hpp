// Pixel bytes to the floats a model sees, many at a time: out[i] = data::pixel_value(p[i]),
// that is p / 255 correctly rounded, bit for bit. Every batch a float model trains on or is
// evaluated on goes through it, 784 values per MNIST image.
//
// data::pixel_value is the specification. The compiler must keep its division (p * (1/255)
// differs in 126 of the 256 values), and a baseline build divides four lanes at a time:
// that was a third of a training epoch's batching. The AVX2 kernel multiplies by the
// rounded reciprocal and corrects the quotient with the exact remainder, q + (p - q·255)/255
// with two FMAs, which gives the correctly rounded quotient for every byte (checked for all
// 256 in tests/kernels/pixels_test.cpp).
// Deliberately not here: normalisation beyond / 255, other pixel formats, threading.
#pragma once

#include "seatorch/data/dataset.hpp"

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

namespace seatorch::kernels {

// out[i] = data::pixel_value(pixels[i]); the spans have the same size.
void pixel_values(std::span<const std::uint8_t> pixels, std::span<float> out);

// Samples [first, first + count) of `data` as the floats a model sees, into out (count,
// data.features): pixel_values of an image data set's bytes, a real-valued one's values.
void copy_features(const data::Dataset& data, std::size_t first, std::size_t count, std::span<float> out);

// The kernel pixel_values() runs on this CPU: "avx2" or "ref".
std::string_view pixel_kernel();

}  // namespace seatorch::kernels
