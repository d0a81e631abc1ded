// Progress bar / progress lines on stderr.
#include "calibration/progress.h"

#include <unistd.h>

#include <cstdio>

namespace kiln::calib {
namespace {

std::string Clock(double seconds) {
  const long s = static_cast<long>(seconds + 0.5);
  char buf[32];
  if (s >= 3600) {
    std::snprintf(buf, sizeof(buf), "%ld:%02ld:%02ld", s / 3600, (s / 60) % 60, s % 60);
  } else {
    std::snprintf(buf, sizeof(buf), "%ld:%02ld", s / 60, s % 60);
  }
  return buf;
}

}  // namespace

Progress::Progress(std::string label, size_t total, bool enabled)
    : label_(std::move(label)), total_(total), enabled_(enabled && total > 0),
      tty_(isatty(STDERR_FILENO) != 0), start_(std::chrono::steady_clock::now()),
      last_draw_(start_) {
  next_line_ = total_ / 10 ? total_ / 10 : 1;
  if (enabled_ && tty_) Draw(false);
}

Progress::~Progress() { Finish(); }

void Progress::Advance(size_t n) {
  done_ += n;
  if (!enabled_) return;
  const auto now = std::chrono::steady_clock::now();
  if (tty_) {
    if (now - last_draw_ > std::chrono::milliseconds(100) || done_ >= total_) Draw(false);
  } else if (done_ >= next_line_ && done_ < total_) {
    Draw(false);
    next_line_ += total_ / 10 ? total_ / 10 : 1;
  }
}

void Progress::Finish() {
  if (finished_) return;
  finished_ = true;
  if (enabled_) Draw(true);
}

void Progress::Draw(bool final) {
  last_draw_ = std::chrono::steady_clock::now();
  const double elapsed = std::chrono::duration<double>(last_draw_ - start_).count();
  const double rate = elapsed > 0 ? done_ / elapsed : 0;
  const double eta = rate > 0 ? (total_ - done_) / rate : 0;
  const int pct = static_cast<int>(100.0 * done_ / total_);
  if (tty_) {
    constexpr int kWidth = 30;
    const int filled = static_cast<int>(kWidth * done_ / total_);
    std::string bar(static_cast<size_t>(filled), '#');
    bar.resize(kWidth, '.');
    std::fprintf(stderr, "\r%s [%s] %zu/%zu %3d%%  %.1f/s  %s %s\033[K", label_.c_str(),
                 bar.c_str(), done_, total_, pct, rate, final ? "took" : "eta",
                 Clock(final ? elapsed : eta).c_str());
    if (final) std::fprintf(stderr, "\n");
  } else {
    std::fprintf(stderr, "%s: %zu/%zu (%d%%), %.1f/s, %s %s\n", label_.c_str(), done_, total_, pct,
                 rate, final ? "took" : "eta", Clock(final ? elapsed : eta).c_str());
  }
  std::fflush(stderr);
}

}  // namespace kiln::calib
