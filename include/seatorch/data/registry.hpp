// Data sets by name: the single place that maps `--dataset NAME` (and --data-dir, --csv,
// --label-col) to a loader.
//
// `xor` and `moons` are generated. `mnist` and `fashion-mnist` are read from the four
// standard IDX files (train-images-idx3-ubyte, train-labels-idx1-ubyte,
// t10k-images-idx3-ubyte, t10k-labels-idx1-ubyte, each raw or .gz) in the first directory
// that holds all four, searched in this order:
//   1. --data-dir (DataOptions::data_dir) when given, and then nothing else;
//   2. $SEATORCH_DATA/<name>, when the variable is set;
//   3. data/<name> under the current directory;
//   4. fashion-mnist only: /usr/share/datasets/fashion-mnist (Debian's dataset-fashion-mnist).
// When none does, the InputError lists where it looked and how to get the files.
// `csv` reads DataOptions::csv_path (see csv.hpp); a CSV file has no separate test file,
// so its last `test_fraction` of the rows (20% by default) is the test part.
#pragma once

#include "seatorch/data/dataset.hpp"

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace seatorch::data {

struct DataOptions {
  std::string name = "xor";        // one of dataset_names()
  std::filesystem::path data_dir;  // --data-dir; empty: search as above
  std::filesystem::path csv_path;  // --csv FILE, required for "csv"
  std::string label_col;           // --label-col: a header name or 0-based index; empty: last column
  double test_fraction = 0.2;      // "csv" only: the file's last 20% of rows are the test part
  bool test_only = false;          // IDX sets: leave DataSplit::train empty (commands that only
                                   // evaluate skip reading 60,000 training images)
};

// The names load_dataset() accepts, for help texts and error messages.
std::vector<std::string> dataset_names();

// Loads (or generates) the data set; throws InputError for an unknown name, missing or
// malformed files.
DataSplit load_dataset(const DataOptions& options);

// The same with every option at its default (enough for xor, moons, and IDX sets found by
// the search).
DataSplit load_dataset(std::string_view name);

// True for the data sets read from IDX files (mnist, fashion-mnist).
bool is_idx_dataset(std::string_view name);

// The directories searched for an IDX data set, in order (see the top of this file).
std::vector<std::filesystem::path> idx_search_dirs(const DataOptions& options);

// Where an IDX data set's four files are; each path names the raw file when present, else
// the .gz one.
struct IdxFiles {
  std::filesystem::path dir;
  std::filesystem::path train_images;
  std::filesystem::path train_labels;
  std::filesystem::path test_images;
  std::filesystem::path test_labels;
};

// Searches idx_search_dirs(options) for the IDX data set `options.name`. Throws InputError,
// listing the directories tried and saying how to get the files, when none holds all four.
IdxFiles find_idx_files(const DataOptions& options);

}  // namespace seatorch::data
