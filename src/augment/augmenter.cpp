// Per-image transforms drawn from per-image streams, sampled through the warp kernel.
#include "seatorch/augment/augmenter.hpp"

#include "seatorch/core/error.hpp"
#include "seatorch/core/parallel.hpp"
#include "seatorch/kernels/product_log.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <stdexcept>

namespace seatorch::augment {
namespace {

// Sample i of epoch e draws from Rng(seed ^ e << 40 ^ i): distinct for i < 2^40, and
// SplitMix64 seeding makes neighbouring keys unrelated streams.
std::uint64_t image_key(std::uint64_t seed, std::size_t epoch, std::size_t index) {
  return seed ^ (static_cast<std::uint64_t>(epoch) << 40) ^ static_cast<std::uint64_t>(index);
}

// The epoch's elastic bank draws from the key of index 2^40 - 1, which no sample has.
constexpr std::size_t kBankIndex = (std::size_t{1} << 40) - 1;

// Mixed into the run's seed for the augmentation stream ("augment" in ASCII).
constexpr std::uint64_t kAugmentStream = 0x6175676d656e74ULL;

}  // namespace

std::uint64_t augment_seed(std::uint64_t run_seed) { return run_seed ^ kAugmentStream; }

void parse_augment_list(std::string_view list, AugmentConfig& config) {
  bool affine = false;
  bool elastic = false;
  bool none = false;
  std::size_t start = 0;
  while (start <= list.size()) {
    const std::size_t comma = std::min(list.find(',', start), list.size());
    const std::string_view entry = list.substr(start, comma - start);
    if (entry == "affine") {
      affine = true;
    } else if (entry == "elastic") {
      elastic = true;
    } else if (entry == "none") {
      none = true;
    } else {
      throw core::option_error("augmentations",
                               "unknown augmentation '{}': use affine, elastic, both "
                               "(affine,elastic) or none",
                               entry);
    }
    start = comma + 1;
  }
  if (none && (affine || elastic)) {
    throw core::option_error("augmentations", "'none' cannot be combined with other augmentations, got '{}'", list);
  }
  config.affine = affine;
  config.elastic = elastic;
}

std::string augment_list(const AugmentConfig& config) {
  if (config.affine && config.elastic) return "affine,elastic";
  if (config.affine) return "affine";
  if (config.elastic) return "elastic";
  return "none";
}

void validate_augment(const AugmentConfig& config) {
  validate_ranges(config.ranges);
  validate_elastic(config.elastic_params);
}

std::size_t image_side(const data::Dataset& data) {
  const auto side = static_cast<std::size_t>(std::llround(std::sqrt(static_cast<double>(data.features))));
  if (!data.is_image() || side * side != data.features || side < 2) {
    throw core::option_error("augmentations",
                             "augmentation needs a data set of square images (MNIST, Fashion-MNIST); this one has {} "
                             "{} features per sample",
                             data.features, data.is_image() ? "pixel" : "real-valued");
  }
  return side;
}

Augmenter::Augmenter(const AugmentConfig& config, const data::Dataset& data, std::uint64_t seed)
    : config_(config),
      data_(data),
      side_(image_side(data)),
      seed_(seed),
      bank_(config.elastic_params, side_),
      scratch_(kernels::warp_scratch_words(side_, side_)) {
  validate_augment(config);
}

Augmenter::~Augmenter() {
  if (!started_) return;
  try {
    (void)core::withdraw_idle();  // no worker may still be running an image of this one's
  } catch (...) {                 // an image's error, already moot: the batch is abandoned
  }
}

void Augmenter::augment(std::span<const std::size_t> rows, std::size_t epoch, std::span<float> out) {
  start(rows, epoch, out);
  finish();
}

void Augmenter::start(std::span<const std::size_t> rows, std::size_t epoch, std::span<float> out) {
  const std::size_t pixels = side_ * side_;
  if (out.size() != rows.size() * pixels) {
    throw core::input_error("an augmented batch of {} images needs {} floats, got {}", rows.size(),
                            rows.size() * pixels, out.size());
  }
  if (started_) throw std::logic_error("Augmenter::start: the previous batch was not finished");
  if (config_.elastic && bank_epoch_ != epoch) {
    const kernels::PauseRecording augmentation;  // its smoothing products are not training's
    core::Rng rng(image_key(seed_, epoch, kBankIndex));
    bank_.draw(rng);
    bank_epoch_ = epoch;
  }
  jobs_.resize(rows.size());
  const std::size_t words = kernels::warp_scratch_words(side_, side_);
  if (scratch_.size() < core::threads() * words) scratch_.resize(core::threads() * words);
  rows_ = rows;
  epoch_ = epoch;
  out_ = out;
  core::offer_idle(
      rows.size(),
      [](void* self, std::size_t r, std::size_t thread) {
        auto& a = *static_cast<Augmenter*>(self);
        a.prepare(r, thread);
        kernels::warp_bilinear(a.jobs_[r]);
      },
      this);
  started_ = true;  // once the offer is out (offer_idle refuses a second one)
}

void Augmenter::finish() {
  if (!started_) throw std::logic_error("Augmenter::finish: no batch was started");
  started_ = false;
  const std::size_t first = core::withdraw_idle();  // images [0, first) are done
  // Each thread takes a contiguous share of the rest with its own scratch: every image's
  // transform comes from its own stream, so the result does not depend on the split.
  // Transforms first, then the warps, each while the next one's inputs arrive.
  core::parallel_ranges(rows_.size() - first, 1, 1, [&](std::size_t part, std::size_t begin, std::size_t end) {
    begin += first;
    end += first;
    for (std::size_t r = begin; r < end; ++r) prepare(r, part);
    if (begin < end) kernels::prefetch_warp_inputs(jobs_[begin]);
    for (std::size_t r = begin; r < end; ++r) {
      if (r + 1 < end) kernels::prefetch_warp_inputs(jobs_[r + 1]);
      kernels::warp_bilinear(jobs_[r]);
    }
  });
}

void Augmenter::prepare(std::size_t r, std::size_t thread) {
  core::Rng rng(image_key(seed_, epoch_, rows_[r]));
  kernels::WarpArgs& args = jobs_[r];
  args = kernels::WarpArgs{};
  args.width = side_;
  args.height = side_;
  args.source = data_.pixels_of(rows_[r]).data();
  if (config_.affine) args.map = source_map(draw_affine(config_.ranges, rng), side_, side_);
  if (config_.elastic) {
    const ElasticWindow w = bank_.window(rng);
    args.dx = w.dx;
    args.dy = w.dy;
    args.field_stride = w.stride;
  }
  args.out = out_.data() + r * side_ * side_;
  // start() sized the scratch for the thread count then; set_threads() must not change it
  // while a batch is under way.
  assert((thread + 1) * kernels::warp_scratch_words(side_, side_) <= scratch_.size());
  args.scratch = scratch_.data() + thread * kernels::warp_scratch_words(side_, side_);
}

}  // namespace seatorch::augment
