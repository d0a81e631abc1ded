// Statistics files: encode/decode (bounds-checked: the file may come from anywhere) and merge.
#include "calibration/stats_file.h"

#include <cstring>
#include <fstream>
#include <iterator>

namespace kiln::calib {
namespace {

constexpr char kMagic[8] = {'K', 'I', 'L', 'N', 'C', 'A', 'L', 'S'};
constexpr uint32_t kVersion = 1;

class Writer {
 public:
  template <typename T>
  void Put(T v) {
    uint8_t b[sizeof(T)];
    std::memcpy(b, &v, sizeof(T));  // little-endian hosts only (checked in EncodeStats)
    out.insert(out.end(), b, b + sizeof(T));
  }
  void PutString(const std::string& s) {
    Put<uint32_t>(static_cast<uint32_t>(s.size()));
    out.insert(out.end(), s.begin(), s.end());
  }
  std::vector<uint8_t> out;
};

class Reader {
 public:
  Reader(const uint8_t* d, size_t n) : data(d), size(n) {}
  template <typename T>
  Status Get(T* v) {
    if (size - pos < sizeof(T)) return InvalidArgument("statistics file is truncated");
    std::memcpy(v, data + pos, sizeof(T));
    pos += sizeof(T);
    return Status::Ok();
  }
  Status GetString(std::string* s, size_t limit) {
    uint32_t n = 0;
    KILN_RETURN_IF_ERROR(Get(&n));
    if (n > limit || size - pos < n) return InvalidArgument("statistics file: bad string length");
    s->assign(reinterpret_cast<const char*>(data + pos), n);
    pos += n;
    return Status::Ok();
  }
  const uint8_t* data;
  size_t size;
  size_t pos = 0;
};

}  // namespace

Status CalibrationStats::Merge(const CalibrationStats& other) {
  if (other.key != key) {
    return InvalidArgument("statistics are of different models or options (key '" + key +
                           "' vs '" + other.key + "')");
  }
  if (other.tensors.size() != tensors.size()) {
    return InvalidArgument("statistics observe different tensors");
  }
  for (const auto& [name, s] : other.tensors) {
    auto it = tensors.find(name);
    if (it == tensors.end()) return InvalidArgument("statistics lack tensor '" + name + "'");
    KILN_RETURN_IF_ERROR(it->second.Merge(s).WithContext("tensor '" + name + "'"));
  }
  samples += other.samples;
  return Status::Ok();
}

std::vector<uint8_t> EncodeStats(const CalibrationStats& stats) {
  static_assert(sizeof(float) == 4);
  Writer w;
  w.out.insert(w.out.end(), kMagic, kMagic + 8);
  w.Put<uint32_t>(kVersion);
  w.PutString(stats.key);
  w.Put<int64_t>(stats.samples);
  w.Put<uint32_t>(static_cast<uint32_t>(stats.tensors.size()));
  for (const auto& [name, s] : stats.tensors) {  // std::map: sorted by name
    const TensorStats::Raw r = s.ToRaw();
    w.PutString(name);
    w.Put<float>(r.min);
    w.Put<float>(r.max);
    w.Put<int64_t>(r.count);
    w.Put<int64_t>(r.non_finite);
    w.Put<int64_t>(r.samples);
    w.Put<int32_t>(r.exponent);
    uint32_t first = 0, last = 0;  // stored bins [first, last)
    for (size_t i = 0; i < r.bins.size(); ++i) {
      if (r.bins[i] == 0) continue;
      if (last == 0) first = static_cast<uint32_t>(i);
      last = static_cast<uint32_t>(i + 1);
    }
    w.Put<uint32_t>(r.bins.empty() ? 0 : 1);  // histogram present
    w.Put<uint32_t>(first);
    w.Put<uint32_t>(last - first);
    for (uint32_t i = first; i < last; ++i) w.Put<uint64_t>(r.bins[i]);
    w.Put<uint32_t>(static_cast<uint32_t>(r.channel_sums.size()));
    for (int64_t v : r.channel_sums) w.Put<int64_t>(v);
  }
  return std::move(w.out);
}

Expected<CalibrationStats> DecodeStats(const uint8_t* data, size_t size) {
  if (size < 12 || std::memcmp(data, kMagic, 8) != 0) {
    return InvalidArgument("not a Kiln statistics file (bad magic)");
  }
  Reader r(data, size);
  r.pos = 8;
  uint32_t version = 0;
  KILN_RETURN_IF_ERROR(r.Get(&version));
  if (version != kVersion) {
    return Unsupported("statistics file version " + std::to_string(version) + " (this kiln reads " +
                       std::to_string(kVersion) + ")");
  }
  CalibrationStats stats;
  KILN_RETURN_IF_ERROR(r.GetString(&stats.key, 1 << 16));
  KILN_RETURN_IF_ERROR(r.Get(&stats.samples));
  uint32_t n = 0;
  KILN_RETURN_IF_ERROR(r.Get(&n));
  if (n > (1u << 20)) return InvalidArgument("statistics file: too many tensors");
  for (uint32_t t = 0; t < n; ++t) {
    std::string name;
    KILN_RETURN_IF_ERROR(r.GetString(&name, 1 << 16));
    TensorStats::Raw raw;
    KILN_RETURN_IF_ERROR(r.Get(&raw.min));
    KILN_RETURN_IF_ERROR(r.Get(&raw.max));
    KILN_RETURN_IF_ERROR(r.Get(&raw.count));
    KILN_RETURN_IF_ERROR(r.Get(&raw.non_finite));
    KILN_RETURN_IF_ERROR(r.Get(&raw.samples));
    KILN_RETURN_IF_ERROR(r.Get(&raw.exponent));
    uint32_t has_bins = 0, first = 0, stored = 0;
    KILN_RETURN_IF_ERROR(r.Get(&has_bins));
    KILN_RETURN_IF_ERROR(r.Get(&first));
    KILN_RETURN_IF_ERROR(r.Get(&stored));
    if (has_bins > 1 || first > static_cast<uint32_t>(TensorStats::kBins) ||
        stored > static_cast<uint32_t>(TensorStats::kBins) - first) {
      return InvalidArgument("statistics file: bad histogram extent for '" + name + "'");
    }
    if (has_bins) raw.bins.assign(TensorStats::kBins, 0);
    for (uint32_t i = 0; i < stored; ++i) {
      uint64_t b = 0;
      KILN_RETURN_IF_ERROR(r.Get(&b));
      if (!has_bins) return InvalidArgument("statistics file: bins without a histogram");
      raw.bins[first + i] = b;
    }
    uint32_t channels = 0;
    KILN_RETURN_IF_ERROR(r.Get(&channels));
    if (channels > (1u << 24) || (r.size - r.pos) / 8 < channels) {
      return InvalidArgument("statistics file: bad channel count for '" + name + "'");
    }
    raw.channel_sums.resize(channels);
    for (uint32_t c = 0; c < channels; ++c) KILN_RETURN_IF_ERROR(r.Get(&raw.channel_sums[c]));
    auto s = TensorStats::FromRaw(std::move(raw));
    if (!s.ok()) return s.status().WithContext("statistics of '" + name + "'");
    if (!stats.tensors.emplace(name, std::move(s).value()).second) {
      return InvalidArgument("statistics file: tensor '" + name + "' repeated");
    }
  }
  if (r.pos != r.size) return InvalidArgument("statistics file: trailing bytes");
  return stats;
}

Status WriteStatsFile(const std::string& path, const CalibrationStats& stats) {
  const std::vector<uint8_t> bytes = EncodeStats(stats);
  const std::string tmp = path + ".tmp";
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    if (!f) return InvalidArgument("cannot write '" + tmp + "'");
    f.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    if (!f) return InvalidArgument("cannot write '" + tmp + "'");
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    return InvalidArgument("cannot rename '" + tmp + "' to '" + path + "'");
  }
  return Status::Ok();
}

Expected<CalibrationStats> ReadStatsFile(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return NotFound("statistics file '" + path + "' not found");
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  auto s = DecodeStats(bytes.data(), bytes.size());
  if (!s.ok()) return s.status().WithContext(path);
  return s;
}

}  // namespace kiln::calib
