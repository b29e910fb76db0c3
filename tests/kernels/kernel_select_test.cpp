// Choosing a matmul kernel by name: the names, the selection, and the error for a name
// this CPU does not have.
#include "seatorch/core/error.hpp"
#include "seatorch/kernels/kernel_registry.hpp"
#include "seatorch/kernels/matmul.hpp"

#include <catch2/catch.hpp>

#include <string>
#include <vector>

namespace k = seatorch::kernels;

TEST_CASE("kernel_names lists the available kernels in order", "[kernels]") {
  const std::vector<std::string> names = k::kernel_names();
  const auto kernels = k::available_kernels();
  REQUIRE(names.size() == kernels.size());
  for (std::size_t i = 0; i < names.size(); ++i) CHECK(names[i] == kernels[i].name);
}

TEST_CASE("select_kernel switches what matmul runs", "[kernels]") {
  const std::string before(k::selected_kernel());
  k::select_kernel("ref");
  CHECK(k::selected_kernel() == "ref");
  const std::vector<float> a{1.f, 2.f, 3.f, 4.f}, b{5.f, 6.f, 7.f, 8.f};  // (2, 2) each
  std::vector<float> c(4);
  k::matmul({{2, 2, 2}, a.data(), 2, k::Transpose::kNo, b.data(), 2, k::Transpose::kNo, c.data(), 2, false});
  CHECK(c == std::vector<float>{19.f, 22.f, 43.f, 50.f});
  k::select_kernel(before);
  CHECK(k::selected_kernel() == before);
}

TEST_CASE("an unknown kernel name is an InputError listing the available ones", "[kernels]") {
  const std::vector<float> x(1, 1.f);
  std::vector<float> c(1);
  const k::MatmulArgs args{{1, 1, 1}, x.data(), 1,    k::Transpose::kNo, x.data(), 1, k::Transpose::kNo,
                           c.data(),  1,        false};
  for (const char* name : {"no-such-kernel", "AVX2", ""}) {
    INFO("name '" << name << "'");
    try {
      k::matmul_with(name, args);
      FAIL("no error");
    } catch (const seatorch::core::InputError& e) {
      const std::string message = e.what();
      CHECK(message.find('\n') == std::string::npos);
      for (const std::string& available : k::kernel_names()) CHECK(message.find(available) != std::string::npos);
    }
    CHECK_THROWS_AS(k::select_kernel(name), seatorch::core::InputError);
  }
}
