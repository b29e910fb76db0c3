// ProgressBar: "epoch 3/10 [#########.........] 212/469  851 it/s  ETA 0:01  loss 0.1234"
#include "progress.hpp"

#include <fmt/format.h>

#include <cstdio>

namespace seatorch::cli {
namespace {

constexpr std::size_t kWidth = 24;
constexpr auto kRedrawInterval = std::chrono::milliseconds(100);

}  // namespace

ProgressBar::ProgressBar(std::string label, std::size_t total, bool enabled)
    : label_(std::move(label)),
      total_(total),
      enabled_(enabled && total > 0),
      start_(std::chrono::steady_clock::now()),
      last_draw_(start_ - kRedrawInterval) {}

ProgressBar::~ProgressBar() { finish(); }

void ProgressBar::update(std::size_t done, const std::string& status) {
  if (!enabled_) return;
  const auto now = std::chrono::steady_clock::now();
  if (now - last_draw_ < kRedrawInterval && done < total_) return;
  last_draw_ = now;
  const double elapsed = std::chrono::duration<double>(now - start_).count();
  const double rate = elapsed > 0 ? static_cast<double>(done) / elapsed : 0.0;
  const auto eta = rate > 0 ? static_cast<long>(static_cast<double>(total_ - done) / rate) : 0L;
  const std::size_t filled = done * kWidth / total_;
  fmt::print(stderr, "\r\033[K{} [{:#<{}}{:.<{}}] {}/{}  {:.0f} it/s  ETA {}:{:02}  {}", label_, "", filled, "",
             kWidth - filled, done, total_, rate, eta / 60, eta % 60, status);
  std::fflush(stderr);
  drawn_ = true;
}

void ProgressBar::finish() {
  if (!drawn_) return;
  fmt::print(stderr, "\r\033[K");
  std::fflush(stderr);
  drawn_ = false;
}

}  // namespace seatorch::cli
