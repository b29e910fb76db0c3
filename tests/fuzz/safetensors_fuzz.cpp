// libFuzzer target: the safetensors reader (io/safetensors.hpp). Checks, on every file it
// accepts: each tensor's bytes match its shape and dtype, and writing the file back (with
// and without a checksum) and reading that again gives the same tensors and metadata.
#include "fuzz_support.hpp"

#include "seatorch/io/safetensors.hpp"

#include <cstddef>
#include <cstdint>
#include <span>

namespace {

bool same(const seatorch::io::SafetensorsFile& a, const seatorch::io::SafetensorsFile& b) {
  if (a.metadata != b.metadata || a.tensors.size() != b.tensors.size()) return false;
  for (const auto& [name, t] : a.tensors) {
    const auto it = b.tensors.find(name);
    if (it == b.tensors.end() || it->second.dtype != t.dtype || it->second.shape != t.shape ||
        it->second.bytes != t.bytes) {
      return false;
    }
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace seatorch;
  fuzz::reject_or_accept([&] {
    const io::SafetensorsFile file = io::parse_safetensors(std::span(data, size), "fuzz.safetensors");
    fuzz::require(file.metadata.count(std::string(io::kDataChecksumKey)) == 0, "the checksum key is consumed");
    for (const auto& [name, t] : file.tensors) {
      fuzz::require(t.bytes.size() == t.numel() * core::dtype_size(t.dtype), "bytes = numel * dtype size");
    }
    const io::SafetensorsFile plain = io::parse_safetensors(io::serialize_safetensors(file), "rewritten");
    fuzz::require(same(file, plain), "a rewritten file reads back the same");
    const io::SafetensorsFile checked =
        io::parse_safetensors(io::serialize_safetensors(io::with_data_checksum(file)), "rewritten with checksum");
    fuzz::require(same(file, checked), "a rewritten file with its checksum reads back the same");
  });
  return 0;
}
