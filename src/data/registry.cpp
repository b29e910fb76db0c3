// Maps data-set names to loaders, and finds the IDX data sets on disk.
#include "seatorch/data/registry.hpp"

#include "seatorch/core/error.hpp"
#include "seatorch/data/csv.hpp"
#include "seatorch/data/idx.hpp"
#include "seatorch/data/split.hpp"
#include "seatorch/data/toy.hpp"

#include <fmt/ranges.h>
#include <spdlog/spdlog.h>

#include <array>
#include <cstdlib>
#include <optional>

namespace seatorch::data {
namespace {

// The moons are a fixed data set (as micrograd's demo draws them once); --seed varies
// the initialization and the data order, not the data.
constexpr std::uint64_t kMoonsSeed = 1;
constexpr std::size_t kMoonsTrain = 200;
constexpr std::size_t kMoonsTest = 200;
constexpr double kMoonsNoise = 0.1;

// An IDX data set: where else it may be installed and how a user gets it.
struct IdxSource {
  std::string_view name;
  std::string_view system_dir;  // empty: none
  std::string_view how_to_get;
  std::size_t classes;
};

constexpr std::array kIdxSources{
    IdxSource{"mnist", "", "get them with `scripts/fetch-data.sh mnist` (it writes data/mnist)", 10},
    IdxSource{"fashion-mnist", "/usr/share/datasets/fashion-mnist",
              "get them with `sudo apt-get install dataset-fashion-mnist` (Debian's package installs "
              "/usr/share/datasets/fashion-mnist)",
              10},
};

// The four standard names, in the order of IdxFiles' members.
constexpr std::array<std::string_view, 4> kIdxFileNames{"train-images-idx3-ubyte", "train-labels-idx1-ubyte",
                                                        "t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte"};

const IdxSource* find_source(std::string_view name) {
  for (const IdxSource& source : kIdxSources) {
    if (source.name == name) return &source;
  }
  return nullptr;
}

// `dir/name` when that file exists, else `dir/name.gz` when that does.
std::optional<std::filesystem::path> find_file(const std::filesystem::path& dir, std::string_view name) {
  std::error_code ec;
  for (const std::filesystem::path& candidate : {dir / name, dir / (std::string(name) + ".gz")}) {
    if (std::filesystem::is_regular_file(candidate, ec)) return candidate;
  }
  return std::nullopt;
}

// All four files in `dir`, or a description of what is missing there.
struct DirLookup {
  std::optional<IdxFiles> files;
  std::string problem;  // when !files: "no such directory" or "missing ..."
};

DirLookup look_in(const std::filesystem::path& dir) {
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec)) return {std::nullopt, "no such directory"};
  std::array<std::filesystem::path, 4> found;
  std::vector<std::string_view> missing;
  for (std::size_t i = 0; i < kIdxFileNames.size(); ++i) {
    if (auto path = find_file(dir, kIdxFileNames[i])) {
      found[i] = *path;
    } else {
      missing.push_back(kIdxFileNames[i]);
    }
  }
  if (!missing.empty()) return {std::nullopt, fmt::format("missing {}", fmt::join(missing, ", "))};
  return {IdxFiles{dir, found[0], found[1], found[2], found[3]}, {}};
}

DataSplit load_idx(const DataOptions& options, const IdxSource& source) {
  const IdxFiles files = find_idx_files(options);
  spdlog::debug("{}: reading the IDX files in {}", source.name, files.dir.string());
  DataSplit split;
  split.name = std::string(source.name);
  split.test = load_idx_dataset(files.test_images, files.test_labels, source.classes);
  if (options.test_only) return split;
  split.train = load_idx_dataset(files.train_images, files.train_labels, source.classes);
  if (split.train.features != split.test.features) {
    throw core::input_error("{}: the training images have {} pixels but the test images {}; the four "
                            "files must come from one data set",
                            files.dir.string(), split.train.features, split.test.features);
  }
  return split;
}

DataSplit load_csv(const DataOptions& options) {
  if (options.csv_path.empty()) {
    throw core::option_error("CSV file", "the csv data set needs a CSV file (a header row, numeric features, "
                                         "an integer label column)");
  }
  const std::string path = options.csv_path.string();
  HeadTail parts =
      split_tail(read_csv(options.csv_path, options.label_col), options.test_fraction, path + ": test fraction");
  return DataSplit{"csv", std::move(parts.head), std::move(parts.tail)};
}

}  // namespace

std::vector<std::string> dataset_names() { return {"xor", "moons", "mnist", "fashion-mnist", "csv"}; }

bool is_idx_dataset(std::string_view name) { return find_source(name) != nullptr; }

std::vector<std::filesystem::path> idx_search_dirs(const DataOptions& options) {
  if (!options.data_dir.empty()) return {options.data_dir};
  std::vector<std::filesystem::path> dirs;
  const char* env = std::getenv("SEATORCH_DATA");
  if (env != nullptr && *env != '\0') dirs.push_back(std::filesystem::path(env) / options.name);
  dirs.push_back(std::filesystem::path("data") / options.name);
  const IdxSource* source = find_source(options.name);
  if (source != nullptr && !source->system_dir.empty()) dirs.emplace_back(source->system_dir);
  return dirs;
}

IdxFiles find_idx_files(const DataOptions& options) {
  const IdxSource* source = find_source(options.name);
  if (source == nullptr) throw core::input_error("'{}' is not a data set read from IDX files", options.name);
  std::vector<std::string> tried;
  for (const std::filesystem::path& dir : idx_search_dirs(options)) {
    DirLookup lookup = look_in(dir);
    if (lookup.files) return *lookup.files;
    tried.push_back(fmt::format("{} ({})", dir.string(), lookup.problem));
  }
  throw core::option_error("data directory",
                           "{}: no directory holds its four IDX files ({}; each raw or .gz); looked in {}; "
                           "{}, or name the directory that holds them",
                           source->name, fmt::join(kIdxFileNames, ", "), fmt::join(tried, ", "), source->how_to_get);
}

DataSplit load_dataset(const DataOptions& options) {
  const std::string_view name = options.name;
  if (name == "xor") return make_xor();
  if (name == "moons") return make_moons(kMoonsTrain, kMoonsTest, kMoonsNoise, kMoonsSeed);
  if (name == "csv") return load_csv(options);
  if (const IdxSource* source = find_source(name)) return load_idx(options, *source);
  throw core::option_error("data set", "unknown data set '{}': choose one of {}", core::printable(name),
                           fmt::join(dataset_names(), ", "));
}

DataSplit load_dataset(std::string_view name) {
  DataOptions options;
  options.name = std::string(name);
  return load_dataset(options);
}

}  // namespace seatorch::data
