// The IDX reader against the committed MNIST subset (golden counts, labels and pixel sums
// computed independently with Python's gzip module), and against malformed files made here.
#include "seatorch/data/idx.hpp"

#include "data_test_util.hpp"
#include "seatorch/core/error.hpp"
#include "seatorch/data/data_file.hpp"

#include <catch2/catch.hpp>

#include <numeric>

using Catch::Matchers::Contains;
using seatorch::data::IdxKind;
using seatorch::test::Bytes;

namespace {

// Golden values of data/mnist-small (see data/README.md): sum of all pixel bytes, and
// sum over pixels of (index + 1) * value, which also catches reordering.
struct Golden {
  const char* images;
  const char* labels;
  std::size_t items;
  std::uint64_t pixel_sum;
  std::uint64_t weighted_sum;
  std::uint64_t label_sum;
  std::vector<std::uint8_t> first_labels;
};

const Golden kTrain{"train-images-idx3-ubyte.gz",  "train-labels-idx1-ubyte.gz", 2000, 52050445, 41240798721642, 8979,
                    {5, 0, 4, 1, 9, 2, 1, 3, 1, 4}};
const Golden kTest{"t10k-images-idx3-ubyte.gz",   "t10k-labels-idx1-ubyte.gz", 1000, 24443134, 9665861097436, 4327,
                   {7, 2, 1, 0, 4, 1, 4, 9, 5, 9}};

void check_golden(const seatorch::data::IdxArray& images, const seatorch::data::IdxArray& labels, const Golden& g) {
  REQUIRE(images.items == g.items);
  CHECK(images.rows == 28);
  CHECK(images.cols == 28);
  REQUIRE(images.values.size() == g.items * 784);
  std::uint64_t sum = 0;
  std::uint64_t weighted = 0;
  for (std::size_t i = 0; i < images.values.size(); ++i) {
    sum += images.values[i];
    weighted += (i + 1) * images.values[i];
  }
  CHECK(sum == g.pixel_sum);
  CHECK(weighted == g.weighted_sum);
  REQUIRE(labels.items == g.items);
  CHECK(std::accumulate(labels.values.begin(), labels.values.end(), std::uint64_t{0}) == g.label_sum);
  CHECK(std::vector<std::uint8_t>(labels.values.begin(), labels.values.begin() + 10) == g.first_labels);
}

// The InputError message of parsing `bytes` written to `dir/name` (raw).
std::string idx_error(const seatorch::test::ScratchDir& dir, const char* name, const Bytes& bytes, IdxKind kind) {
  seatorch::test::write_file(dir / name, bytes);
  try {
    (void)seatorch::data::read_idx(dir / name, kind);
  } catch (const seatorch::core::InputError& e) {
    return e.what();
  }
  return "(no error)";
}

Bytes labels_file(std::uint32_t count, std::uint8_t value) {
  Bytes bytes = seatorch::test::idx_header(0x00000801, {count});
  bytes.resize(bytes.size() + count, value);
  return bytes;
}

}  // namespace

TEST_CASE("the committed gzip subset reads with the golden counts labels and pixel sums", "[data]") {
  const auto dir = seatorch::test::mnist_small_dir();
  for (const Golden* g : {&kTrain, &kTest}) {
    INFO(g->images);
    check_golden(seatorch::data::read_idx(dir / g->images, IdxKind::kImages),
                 seatorch::data::read_idx(dir / g->labels, IdxKind::kLabels), *g);
  }
}

TEST_CASE("raw and re-gzipped copies of the subset read the same", "[data]") {
  seatorch::test::ScratchDir tmp;
  const auto dir = seatorch::test::mnist_small_dir();
  for (const char* name : {kTest.images, kTest.labels}) {
    const IdxKind kind =
        std::string_view(name).find("images") != std::string_view::npos ? IdxKind::kImages : IdxKind::kLabels;
    const seatorch::data::IdxArray original = seatorch::data::read_idx(dir / name, kind);
    const Bytes raw = seatorch::data::read_data_file(dir / name);
    seatorch::test::write_file(tmp / "raw", raw);
    seatorch::test::write_file(tmp / "again.gz", seatorch::test::gzip(raw));
    for (const char* copy : {"raw", "again.gz"}) {
      const seatorch::data::IdxArray read = seatorch::data::read_idx(tmp / copy, kind);
      INFO(name << " as " << copy);
      CHECK(read.items == original.items);
      CHECK(read.rows == original.rows);
      CHECK(read.cols == original.cols);
      CHECK(read.values == original.values);
    }
  }
}

TEST_CASE("load_idx_dataset keeps the pixel bytes, gives them to float models as p / 255, and keeps the labels",
          "[data]") {
  const auto dir = seatorch::test::mnist_small_dir();
  const seatorch::data::Dataset data = seatorch::data::load_idx_dataset(dir / kTest.images, dir / kTest.labels, 10);
  const seatorch::data::IdxArray pixels = seatorch::data::read_idx(dir / kTest.images, IdxKind::kImages);
  REQUIRE(data.size() == 1000);
  CHECK(data.features == 784);
  CHECK(data.classes == 10);
  CHECK(data.is_image());
  CHECK(data.x.empty());
  CHECK(data.pixels == pixels.values);
  std::vector<float> features(data.size() * data.features);
  data.copy_features(0, data.size(), features);
  REQUIRE(features.size() == pixels.values.size());
  for (std::size_t i = 0; i < features.size(); ++i) {
    if (features[i] != static_cast<float>(pixels.values[i]) / 255.0f) {
      FAIL("pixel " << i << ": " << features[i] << " vs " << int(pixels.values[i]) << " / 255");
    }
  }
  CHECK(data.y[0] == 7);
  CHECK(data.y[9] == 9);
}

TEST_CASE("load_idx_dataset refuses mismatched counts and out-of-range labels", "[data]") {
  seatorch::test::ScratchDir dir;
  Bytes images = seatorch::test::idx_header(0x00000803, {3, 2, 2});
  images.resize(images.size() + 12, 9);
  seatorch::test::write_file(dir / "images", images);
  seatorch::test::write_file(dir / "labels2", labels_file(2, 1));
  seatorch::test::write_file(dir / "labels3", labels_file(3, 10));
  CHECK_THROWS_WITH(seatorch::data::load_idx_dataset(dir / "images", dir / "labels2", 10),
                    Contains("3 images") && Contains("2 labels"));
  CHECK_THROWS_WITH(seatorch::data::load_idx_dataset(dir / "images", dir / "labels3", 10),
                    Contains("labels3") && Contains("label 10 of item 0"));
  const seatorch::data::Dataset ok = seatorch::data::load_idx_dataset(dir / "images", dir / "labels3", 11);
  CHECK(ok.features == 4);
  CHECK(ok.pixels[0] == 9);
}

TEST_CASE("malformed IDX files are one clean InputError naming the file", "[data]") {
  seatorch::test::ScratchDir dir;
  Bytes good = seatorch::test::idx_header(0x00000803, {2, 3, 4});
  good.resize(good.size() + 24, 1);
  seatorch::test::write_file(dir / "good", good);
  REQUIRE(seatorch::data::read_idx(dir / "good", IdxKind::kImages).items == 2);

  struct Case {
    const char* name;
    Bytes bytes;
    IdxKind kind;
    const char* expected;
  };
  Bytes truncated(good.begin(), good.end() - 5);
  Bytes trailing = good;
  trailing.push_back(0);
  Bytes huge_count = seatorch::test::idx_header(0x00000803, {0x7fffffff, 28, 28});
  Bytes lying_count = seatorch::test::idx_header(0x00000803, {10'000'000, 4096, 4096});
  Bytes wide = seatorch::test::idx_header(0x00000803, {1, 28, 5000});
  Bytes zero_rows = seatorch::test::idx_header(0x00000803, {1, 0, 28});
  Bytes wrong_type = seatorch::test::idx_header(0x00000d03, {1, 1, 1});
  Bytes text = {'h', 'e', 'l', 'l', 'o', ' ', 'w', 'o', 'r', 'l', 'd'};
  const std::vector<Case> cases{
      {"empty", {}, IdxKind::kImages, "the file is empty"},
      {"three-bytes", {0, 0, 8}, IdxKind::kImages, "too short"},
      {"header-cut", Bytes(good.begin(), good.begin() + 10), IdxKind::kImages, "shorter than the 16-byte header"},
      {"labels-as-images", labels_file(4, 1), IdxKind::kImages, "magic number 0x00000801, expected 0x00000803"},
      {"images-as-labels", good, IdxKind::kLabels, "magic number 0x00000803, expected 0x00000801"},
      {"not-idx", text, IdxKind::kLabels, "magic number 0x68656c6c"},
      {"float-type", wrong_type, IdxKind::kImages, "magic number 0x00000d03"},
      {"truncated", truncated, IdxKind::kImages, "truncated: 35 bytes, but the header promises 40"},
      {"trailing", trailing, IdxKind::kImages, "1 unexpected bytes"},
      {"huge-count", huge_count, IdxKind::kImages, "2147483647 items, expected 1 to 10000000"},
      {"lying-count", lying_count, IdxKind::kImages, "header promises 167772160000016"},
      {"wide", wide, IdxKind::kImages, "5000 columns per image, expected 1 to 4096"},
      {"zero-rows", zero_rows, IdxKind::kImages, "0 rows per image"},
      {"zero-labels", labels_file(0, 0), IdxKind::kLabels, "0 items"},
  };
  for (const Case& c : cases) {
    const std::string message = idx_error(dir, c.name, c.bytes, c.kind);
    INFO(c.name << ": " << message);
    CHECK_THAT(message, Contains((dir / c.name).string()) && Contains(c.expected));
  }
}

TEST_CASE("malformed gzip IDX files are one clean InputError naming the file", "[data]") {
  seatorch::test::ScratchDir dir;
  const Bytes packed = seatorch::test::read_file(seatorch::test::mnist_small_dir() / kTest.labels);
  Bytes corrupt = packed;
  for (std::size_t i = 30; i < 60; ++i) corrupt[i] = static_cast<std::uint8_t>(~corrupt[i]);
  const Bytes cut(packed.begin(), packed.end() - 100);
  Bytes bad_inside_raw = labels_file(5, 1);
  bad_inside_raw[3] = 0x03;  // an image magic inside a valid gzip stream
  const std::pair<const char*, Bytes> files[] = {
      {"corrupt.gz", corrupt},
      {"cut.gz", cut},
      {"bad-inside.gz", seatorch::test::gzip(bad_inside_raw)},
  };
  const char* expected[] = {"corrupt gzip", "ends early", "magic number 0x00000803"};
  for (std::size_t i = 0; i < std::size(files); ++i) {
    const std::string message = idx_error(dir, files[i].first, files[i].second, IdxKind::kLabels);
    INFO(files[i].first << ": " << message);
    CHECK_THAT(message, Contains((dir / files[i].first).string()) && Contains(expected[i]));
  }
}
