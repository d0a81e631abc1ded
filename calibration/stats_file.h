// A calibration set's statistics (every observed tensor's TensorStats, by value name) and their
// file format, so calibration can run in shards on a batch engine and be merged:
// `kiln quantize --shard I/N --stats-out F` writes one, `--merge-stats F...` combines them.
// The file is a function of the merged data alone: a merge of shards is byte-identical to the
// file of one pass over the same samples.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "calibration/tensor_stats.h"
#include "ir/status.h"

namespace kiln::calib {

struct CalibrationStats {
  // What the statistics are of (the model, its compile options and the preprocessing); only
  // statistics with equal keys merge.
  std::string key;
  int64_t samples = 0;
  std::map<std::string, TensorStats> tensors;

  Status Merge(const CalibrationStats& other);
};

// Binary encoding (docs/quantization.md, "Statistics files"): little-endian, versioned, each
// histogram stored from its first to its last non-empty bin.
std::vector<uint8_t> EncodeStats(const CalibrationStats& stats);
Expected<CalibrationStats> DecodeStats(const uint8_t* data, size_t size);
Status WriteStatsFile(const std::string& path, const CalibrationStats& stats);
Expected<CalibrationStats> ReadStatsFile(const std::string& path);

}  // namespace kiln::calib
