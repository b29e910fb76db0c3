// A one-line progress bar on stderr for long loops (training steps, simulated images).
// On a terminal it redraws in place at most ~10 times a second; elsewhere it prints
// nothing (the callers log a plain line per epoch instead). Presentation only.
#pragma once

#include <chrono>
#include <cstddef>
#include <string>

namespace seatorch::cli {

class ProgressBar {
 public:
  // `label` prefixes the bar ("epoch 3/10"); `total` is the number of units.
  ProgressBar(std::string label, std::size_t total, bool enabled);
  ~ProgressBar();
  ProgressBar(const ProgressBar&) = delete;
  ProgressBar& operator=(const ProgressBar&) = delete;

  // `done` units so far; `status` is appended ("loss 0.1234").
  void update(std::size_t done, const std::string& status);
  // Erases the bar so that a log line can take its place.
  void finish();

 private:
  std::string label_;
  std::size_t total_;
  bool enabled_;
  bool drawn_ = false;
  std::chrono::steady_clock::time_point start_;
  std::chrono::steady_clock::time_point last_draw_;
};

}  // namespace seatorch::cli
