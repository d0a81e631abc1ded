// Progress of a long pass over samples (calibration, evaluation): a bar with the rate and ETA,
// redrawn in place, when stderr is a terminal; otherwise a plain line about every 10 % (and
// at the end), so logs of batch jobs stay readable.
#pragma once

#include <chrono>
#include <string>

namespace kiln::calib {

class Progress {
 public:
  Progress(std::string label, size_t total, bool enabled = true);
  ~Progress();
  void Advance(size_t n = 1);
  void Finish();

 private:
  void Draw(bool final);

  std::string label_;
  size_t total_, done_ = 0;
  bool enabled_, tty_, finished_ = false;
  size_t next_line_ = 0;  // plain mode: the next count at which a line is printed
  std::chrono::steady_clock::time_point start_, last_draw_;
};

}  // namespace kiln::calib
