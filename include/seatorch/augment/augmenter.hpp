// Training-time augmentation: each training image, each epoch, through a fresh random affine
// transform and/or elastic distortion, sampled bilinearly into the batch the model reads.
//
// Determinism: the transform of sample i in epoch e depends only on (seed, e, i): each image
// draws from its own Rng, seeded from those three, and the epoch's elastic bank from one
// seeded by (seed, e). A batch's content therefore does not depend on which other images
// share it, on the order of the steps or on where a run was resumed.
// Deliberately not here: test or validation images (never augmented: the trainers evaluate
// the data set as it is), colour, flips, cut-outs, mixing of images.
#pragma once

#include "seatorch/augment/affine.hpp"
#include "seatorch/augment/elastic.hpp"
#include "seatorch/data/dataset.hpp"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace seatorch::augment {

struct AugmentConfig {
  bool affine = false;   // random rotation, scale, shear and shift (affine.hpp)
  bool elastic = false;  // Simard's elastic distortion (elastic.hpp)
  AffineRanges ranges;
  ElasticParams elastic_params;

  [[nodiscard]] bool enabled() const { return affine || elastic; }
};

// Sets config.affine and config.elastic from a comma-separated list of "affine", "elastic",
// or "none" alone. Throws OptionError ("augmentations") naming an unknown entry.
void parse_augment_list(std::string_view list, AugmentConfig& config);
// The list parse_augment_list() reads back: "none", "affine", "elastic" or "affine,elastic".
std::string augment_list(const AugmentConfig& config);

// Throws OptionError naming the value when a range or parameter is out of bounds.
void validate_augment(const AugmentConfig& config);

// The side of a square image data set's samples; OptionError ("augmentations") otherwise (augmentation needs
// images, and the IDX files of MNIST and Fashion-MNIST are 28 x 28).
std::size_t image_side(const data::Dataset& data);

// The augmentation seed of a training run with seed `run_seed`: its own stream, apart from
// the init/shuffle and dropout streams, shared by the trainer and example_grid().
std::uint64_t augment_seed(std::uint64_t run_seed);

class Augmenter {
 public:
  // For `data`'s images (image_side() must accept it).
  Augmenter(const AugmentConfig& config, const data::Dataset& data, std::uint64_t seed);

  Augmenter(const Augmenter&) = delete;
  Augmenter& operator=(const Augmenter&) = delete;
  ~Augmenter();

  // Samples rows[r] of the data set, as epoch `epoch` transforms them, into out row r:
  // out (rows.size(), features) pixel values in [0, 1].
  void augment(std::span<const std::size_t> rows, std::size_t epoch, std::span<float> out);

  // augment() in two halves: start() offers the images to the threads' idle time
  // (core::offer_idle), so that workers waiting while the caller runs code of its own (a
  // training step's serial parts) transform some of them; finish() transforms the rest,
  // split across the threads, and returns when out is complete. rows and out must stay
  // valid until then; one batch at a time.
  void start(std::span<const std::size_t> rows, std::size_t epoch, std::span<float> out);
  void finish();

 private:
  // Image r's warp (its transform drawn), with the scratch of thread `thread`.
  void prepare(std::size_t r, std::size_t thread);

  std::span<const std::size_t> rows_;  // the batch started, until finish()
  std::size_t epoch_ = 0;
  std::span<float> out_;  // (rows, side * side): the batch's images, row r image r
  bool started_ = false;
  AugmentConfig config_;
  const data::Dataset& data_;
  std::size_t side_ = 0;
  std::uint64_t seed_ = 0;
  ElasticBank bank_;                       // the epoch's fields, when config_.elastic
  std::optional<std::size_t> bank_epoch_;  // the epoch bank_ was drawn for
  std::vector<kernels::WarpArgs> jobs_;    // (rows) the batch's warps
  std::vector<std::uint32_t> scratch_;     // (threads, kernels::warp_scratch_words(side, side))
};

}  // namespace seatorch::augment
