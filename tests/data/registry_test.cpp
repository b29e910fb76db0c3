// The data-set registry: names, the IDX directory search order (--data-dir, then
// $SEATORCH_DATA/<name>, then data/<name>), the not-found message, and the CSV split.
#include "seatorch/data/registry.hpp"

#include "data_test_util.hpp"
#include "seatorch/core/error.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdlib>
#include <optional>

using Catch::Matchers::Contains;

namespace {

namespace fs = std::filesystem;

const char* const kFiles[] = {"train-images-idx3-ubyte", "train-labels-idx1-ubyte", "t10k-images-idx3-ubyte",
                              "t10k-labels-idx1-ubyte"};

// Sets (or unsets) SEATORCH_DATA for one scope.
class EnvGuard {
 public:
  explicit EnvGuard(const std::optional<std::string>& value) {
    if (const char* old = std::getenv("SEATORCH_DATA")) old_ = old;
    if (value) {
      ::setenv("SEATORCH_DATA", value->c_str(), 1);
    } else {
      ::unsetenv("SEATORCH_DATA");
    }
  }
  ~EnvGuard() {
    if (old_) {
      ::setenv("SEATORCH_DATA", old_->c_str(), 1);
    } else {
      ::unsetenv("SEATORCH_DATA");
    }
  }
  EnvGuard(const EnvGuard&) = delete;
  EnvGuard& operator=(const EnvGuard&) = delete;

 private:
  std::optional<std::string> old_;
};

// Changes the working directory for one scope.
class CwdGuard {
 public:
  explicit CwdGuard(const fs::path& dir) : old_(fs::current_path()) { fs::current_path(dir); }
  ~CwdGuard() { fs::current_path(old_); }
  CwdGuard(const CwdGuard&) = delete;
  CwdGuard& operator=(const CwdGuard&) = delete;

 private:
  fs::path old_;
};

// A copy of the committed subset (four .gz files) in `dir`.
void copy_subset(const fs::path& dir) {
  fs::create_directories(dir);
  for (const char* name : kFiles) {
    fs::copy_file(seatorch::test::mnist_small_dir() / (std::string(name) + ".gz"), dir / (std::string(name) + ".gz"));
  }
}

seatorch::data::DataOptions mnist_options(const fs::path& data_dir = {}) {
  seatorch::data::DataOptions options;
  options.name = "mnist";
  options.data_dir = data_dir;
  return options;
}

std::string load_error(const seatorch::data::DataOptions& options) {
  try {
    (void)seatorch::data::load_dataset(options);
  } catch (const seatorch::core::InputError& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace

TEST_CASE("the registry knows every data set and still generates xor and moons", "[data]") {
  const std::vector<std::string> names = seatorch::data::dataset_names();
  for (const char* name : {"xor", "moons", "mnist", "fashion-mnist", "csv"}) {
    CHECK(std::find(names.begin(), names.end(), name) != names.end());
  }
  CHECK(seatorch::data::load_dataset("xor").train.size() == 4);
  CHECK(seatorch::data::load_dataset("moons").test.size() == 200);
  CHECK(seatorch::data::is_idx_dataset("mnist"));
  CHECK(seatorch::data::is_idx_dataset("fashion-mnist"));
  CHECK_FALSE(seatorch::data::is_idx_dataset("csv"));
  CHECK_THROWS_WITH(seatorch::data::load_dataset("imagenet"),
                    Contains("unknown data set 'imagenet'") && Contains("fashion-mnist"));
}

TEST_CASE("IDX search order is --data-dir alone else SEATORCH_DATA then data", "[data]") {
  {
    const EnvGuard env(std::string("/env"));
    CHECK(seatorch::data::idx_search_dirs(mnist_options("/flag")) == std::vector<fs::path>{"/flag"});
    CHECK(seatorch::data::idx_search_dirs(mnist_options()) == std::vector<fs::path>{"/env/mnist", "data/mnist"});
    seatorch::data::DataOptions fashion;
    fashion.name = "fashion-mnist";
    CHECK(seatorch::data::idx_search_dirs(fashion) ==
          std::vector<fs::path>{"/env/fashion-mnist", "data/fashion-mnist", "/usr/share/datasets/fashion-mnist"});
  }
  const EnvGuard unset(std::nullopt);
  CHECK(seatorch::data::idx_search_dirs(mnist_options()) == std::vector<fs::path>{"data/mnist"});
}

TEST_CASE("mnist loads from --data-dir with pixel features and 10 classes", "[data]") {
  const seatorch::data::DataSplit data = seatorch::data::load_dataset(mnist_options(seatorch::test::mnist_small_dir()));
  CHECK(data.name == "mnist");
  CHECK(data.train.size() == 2000);
  CHECK(data.test.size() == 1000);
  CHECK(data.train.features == 784);
  CHECK(data.train.classes == 10);
  CHECK(data.test.classes == 10);
  CHECK(data.train.y[0] == 5);
  CHECK(data.test.y[0] == 7);
}

TEST_CASE("SEATORCH_DATA wins over data under the current directory", "[data]") {
  seatorch::test::ScratchDir tmp;
  copy_subset(tmp / "env" / "mnist");
  copy_subset(tmp / "cwd" / "data" / "mnist");
  const CwdGuard cwd(tmp / "cwd");
  {
    const EnvGuard env((tmp / "env").string());
    CHECK(seatorch::data::find_idx_files(mnist_options()).dir == tmp / "env" / "mnist");
  }
  {
    // A SEATORCH_DATA without the data set falls through to data/<name>.
    const EnvGuard env((tmp / "elsewhere").string());
    const seatorch::data::IdxFiles files = seatorch::data::find_idx_files(mnist_options());
    CHECK(files.dir == fs::path("data/mnist"));
    CHECK(files.test_labels == fs::path("data/mnist/t10k-labels-idx1-ubyte.gz"));
    CHECK(seatorch::data::load_dataset("mnist").train.size() == 2000);
  }
}

TEST_CASE("a raw IDX file is preferred over its gz twin", "[data]") {
  seatorch::test::ScratchDir tmp;
  copy_subset(tmp.path());
  seatorch::test::write_file(tmp / "t10k-labels-idx1-ubyte",
                             seatorch::test::read_file(tmp / "t10k-labels-idx1-ubyte.gz"));
  const seatorch::data::IdxFiles files = seatorch::data::find_idx_files(mnist_options(tmp.path()));
  CHECK(files.test_labels == tmp / "t10k-labels-idx1-ubyte");
  CHECK(files.train_images == tmp / "train-images-idx3-ubyte.gz");
}

TEST_CASE("a missing data set says where it looked and how to get the files", "[data]") {
  seatorch::test::ScratchDir tmp;
  {
    const EnvGuard env((tmp / "env").string());
    const CwdGuard cwd(tmp.path());
    const std::string message = load_error(mnist_options());
    CHECK_THAT(message, Contains("mnist: no directory holds its four IDX files") &&
                            Contains((tmp / "env" / "mnist").string() + " (no such directory)") &&
                            Contains("data/mnist (no such directory)") && Contains("scripts/fetch-data.sh mnist") &&
                            Contains("or name the directory that holds them") && !Contains("--"));
  }
  // --data-dir is used alone, and a partial download names the missing files.
  copy_subset(tmp / "partial");
  fs::remove(tmp / "partial" / "t10k-labels-idx1-ubyte.gz");
  CHECK_THAT(load_error(mnist_options(tmp / "partial")),
             Contains("missing t10k-labels-idx1-ubyte") && !Contains("data/mnist ("));
  seatorch::data::DataOptions fashion = mnist_options(tmp / "partial");
  fashion.name = "fashion-mnist";
  CHECK_THAT(load_error(fashion), Contains("apt-get install dataset-fashion-mnist"));
}

TEST_CASE("csv splits off its last 20 percent as the test part", "[data]") {
  seatorch::test::ScratchDir tmp;
  std::string text = "x,label\n";
  for (int i = 0; i < 10; ++i) text += std::to_string(i) + "," + std::to_string(i % 4) + "\n";
  seatorch::test::write_text(tmp / "d.csv", text);
  seatorch::data::DataOptions options;
  options.name = "csv";
  CHECK_THAT(load_error(options), Contains("the csv data set needs a CSV file") && !Contains("--"));
  options.csv_path = tmp / "d.csv";
  const seatorch::data::DataSplit data = seatorch::data::load_dataset(options);
  CHECK(data.name == "csv");
  REQUIRE(data.train.size() == 8);
  REQUIRE(data.test.size() == 2);
  CHECK(data.test.x == std::vector<float>{8.0f, 9.0f});
  CHECK(data.train.classes == 4);
  CHECK(data.test.classes == 4);
  options.label_col = "x";  // labels 0..9 now, the feature is the old label
  CHECK(seatorch::data::load_dataset(options).train.classes == 10);
}
