// Maps data-set names to loaders.
#include "seatorch/data/registry.hpp"

#include "seatorch/data/toy.hpp"
#include "seatorch/error.hpp"

#include <fmt/ranges.h>

namespace seatorch {
namespace {

// The moons are a fixed data set (as micrograd's demo draws them once); --seed varies
// the initialization and the data order, not the data.
constexpr std::uint64_t kMoonsSeed = 1;
constexpr std::size_t kMoonsTrain = 200;
constexpr std::size_t kMoonsTest = 200;
constexpr double kMoonsNoise = 0.1;

}  // namespace

std::vector<std::string> dataset_names() { return {"xor", "moons"}; }

DataSplit load_dataset(std::string_view name) {
  if (name == "xor") return make_xor();
  if (name == "moons") return make_moons(kMoonsTrain, kMoonsTest, kMoonsNoise, kMoonsSeed);
  throw input_error("unknown data set '{}': choose one of {}", name,
                    fmt::join(dataset_names(), ", "));
}

}  // namespace seatorch
