// NumPy .npy reading and writing. The header is a Python dict literal; it is parsed with a small
// bounds-checked scanner (no eval, no regex) because files may come from anywhere.
#include "calibration/npy_io.h"

#include <cctype>
#include <cstring>
#include <fstream>
#include <iterator>
#include <optional>
#include <string_view>

namespace kiln {
namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicLen = 6;

struct NpyHeader {
  std::string descr;
  bool fortran_order = false;
  Shape shape;
  bool has_descr = false, has_order = false, has_shape = false;
};

// Scanner over the header text; every accessor checks bounds.
class HeaderScanner {
 public:
  explicit HeaderScanner(std::string_view text) : s_(text) {}

  void SkipSpace() {
    while (pos_ < s_.size() &&
           (s_[pos_] == ' ' || s_[pos_] == '\t' || s_[pos_] == '\n' || s_[pos_] == '\r'))
      ++pos_;
  }
  bool Consume(char c) {
    SkipSpace();
    if (pos_ < s_.size() && s_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  bool Peek(char c) {
    SkipSpace();
    return pos_ < s_.size() && s_[pos_] == c;
  }
  std::optional<std::string> String() {
    SkipSpace();
    if (pos_ >= s_.size() || (s_[pos_] != '\'' && s_[pos_] != '"')) return std::nullopt;
    const char quote = s_[pos_++];
    const size_t start = pos_;
    while (pos_ < s_.size() && s_[pos_] != quote) {
      if (s_[pos_] == '\\') return std::nullopt;  // no escapes in valid npy headers
      ++pos_;
    }
    if (pos_ >= s_.size()) return std::nullopt;
    std::string out(s_.substr(start, pos_ - start));
    ++pos_;
    return out;
  }
  std::optional<std::string> Word() {
    SkipSpace();
    const size_t start = pos_;
    while (pos_ < s_.size() && std::isalpha(static_cast<unsigned char>(s_[pos_]))) ++pos_;
    if (pos_ == start) return std::nullopt;
    return std::string(s_.substr(start, pos_ - start));
  }
  std::optional<int64_t> Int() {
    SkipSpace();
    const size_t start = pos_;
    int64_t v = 0;
    while (pos_ < s_.size() && s_[pos_] >= '0' && s_[pos_] <= '9') {
      if (v > (int64_t{1} << 55)) return std::nullopt;  // far beyond any real dim
      v = v * 10 + (s_[pos_] - '0');
      ++pos_;
    }
    if (pos_ == start) return std::nullopt;
    if (pos_ < s_.size() && s_[pos_] == 'L') ++pos_;  // Python 2 long suffix
    return v;
  }
  bool AtEnd() {
    SkipSpace();
    return pos_ >= s_.size();
  }

 private:
  std::string_view s_;
  size_t pos_ = 0;
};

Expected<NpyHeader> ParseHeaderDict(std::string_view text) {
  HeaderScanner sc(text);
  NpyHeader h;
  if (!sc.Consume('{')) return DataLoss("npy header is not a dict (no '{')");
  while (!sc.Consume('}')) {
    auto key = sc.String();
    if (!key) return DataLoss("npy header: expected a quoted key");
    if (!sc.Consume(':')) return DataLoss("npy header: expected ':' after '" + *key + "'");
    if (*key == "descr") {
      auto d = sc.String();
      if (!d)
        return DataLoss("npy header: 'descr' must be a string (structured dtypes are unsupported)");
      h.descr = *d;
      h.has_descr = true;
    } else if (*key == "fortran_order") {
      auto w = sc.Word();
      if (!w || (*w != "True" && *w != "False"))
        return DataLoss("npy header: 'fortran_order' must be True or False");
      h.fortran_order = *w == "True";
      h.has_order = true;
    } else if (*key == "shape") {
      if (!sc.Consume('(')) return DataLoss("npy header: 'shape' must be a tuple");
      h.shape.clear();
      while (!sc.Consume(')')) {
        auto v = sc.Int();
        if (!v) return DataLoss("npy header: shape entries must be non-negative integers");
        if (h.shape.size() >= 32) return DataLoss("npy header: shape has more than 32 dims");
        h.shape.push_back(*v);
        if (!sc.Consume(',') && !sc.Peek(')'))
          return DataLoss("npy header: expected ',' or ')' in shape");
      }
      h.has_shape = true;
    } else {
      return DataLoss("npy header: unexpected key '" + *key + "'");
    }
    if (!sc.Consume(',') && !sc.Peek('}')) return DataLoss("npy header: expected ',' or '}'");
  }
  if (!sc.AtEnd()) return DataLoss("npy header: trailing characters after the dict");
  if (!h.has_descr || !h.has_order || !h.has_shape)
    return DataLoss("npy header must have 'descr', 'fortran_order' and 'shape'");
  return h;
}

Expected<DType> DTypeFromDescr(const std::string& descr) {
  if (descr.size() < 2) return Unsupported("npy dtype '" + descr + "' is not supported");
  const char order = descr[0];
  const std::string code = descr.substr(1);
  // One-byte types: byte order is irrelevant.
  if (code == "i1" || code == "u1" || code == "b1") {
    if (order != '|' && order != '<' && order != '>' && order != '=')
      return Unsupported("npy dtype '" + descr + "' is not supported");
    return code == "i1" ? DType::kI8 : code == "u1" ? DType::kU8 : DType::kBool;
  }
  if (order == '>')
    return Unsupported("npy dtype '" + descr + "' is big-endian; only little-endian is supported");
  if (order != '<' && order != '=')
    return Unsupported("npy dtype '" + descr + "' is not supported");
  if (code == "f4") return DType::kF32;
  if (code == "f2") return DType::kF16;
  if (code == "i2") return DType::kI16;
  if (code == "i4") return DType::kI32;
  if (code == "i8") return DType::kI64;
  return Unsupported("npy dtype '" + descr +
                     "' is not supported (supported: <f4 <f2 |i1 |u1 <i2 <i4 <i8 |b1)");
}

const char* DescrFor(DType t) {
  switch (t) {
    case DType::kF32:
      return "<f4";
    case DType::kF16:
      return "<f2";
    case DType::kI8:
      return "|i1";
    case DType::kU8:
      return "|u1";
    case DType::kI16:
      return "<i2";
    case DType::kI32:
      return "<i4";
    case DType::kI64:
      return "<i8";
    case DType::kBool:
      return "|b1";
    default:
      return nullptr;
  }
}

uint32_t ReadLE(const uint8_t* p, int bytes) {
  uint32_t v = 0;
  for (int i = bytes - 1; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

}  // namespace

Expected<HostTensor> ParseNpy(const uint8_t* data, size_t size) {
  if (size < kMagicLen + 2 || std::memcmp(data, kMagic, kMagicLen) != 0)
    return DataLoss("not a .npy file (missing \\x93NUMPY magic)");
  const int major = data[6], minor = data[7];
  if (major < 1 || major > 3 || minor != 0)
    return Unsupported("npy format version " + std::to_string(major) + "." + std::to_string(minor) +
                       " is not supported (1.0, 2.0, 3.0 are)");
  const int len_bytes = major == 1 ? 2 : 4;
  const size_t prefix = kMagicLen + 2 + len_bytes;
  if (size < prefix) return DataLoss("npy file truncated inside the header length");
  const uint64_t header_len = ReadLE(data + 8, len_bytes);
  if (header_len > size - prefix)
    return DataLoss("npy header length " + std::to_string(header_len) + " exceeds the file size " +
                    std::to_string(size));
  const std::string_view text(reinterpret_cast<const char*>(data + prefix), header_len);
  KILN_ASSIGN_OR_RETURN(NpyHeader header, ParseHeaderDict(text));
  KILN_ASSIGN_OR_RETURN(DType dtype, DTypeFromDescr(header.descr));
  // Fortran order is the same bytes as C order only when at most one dim exceeds 1.
  int big_dims = 0;
  for (int64_t d : header.shape) big_dims += d > 1;
  if (header.fortran_order && big_dims > 1)
    return Unsupported("npy file is in Fortran order; only C order is supported");

  uint64_t count = 1;
  for (int64_t d : header.shape) {
    if (__builtin_mul_overflow(count, static_cast<uint64_t>(d), &count))
      return DataLoss("npy shape " + ShapeToString(header.shape) + " overflows");
  }
  uint64_t nbytes = 0;
  if (__builtin_mul_overflow(count, DTypeSize(dtype), &nbytes))
    return DataLoss("npy shape " + ShapeToString(header.shape) + " overflows");
  const size_t data_bytes = size - prefix - header_len;
  if (nbytes != data_bytes)
    return DataLoss("npy data size mismatch: shape " + ShapeToString(header.shape) + " of " +
                    header.descr + " needs " + std::to_string(nbytes) + " bytes, file has " +
                    std::to_string(data_bytes));

  HostTensor t;
  t.dtype = dtype;
  t.shape = header.shape;
  t.bytes.assign(data + prefix + header_len, data + size);
  if (dtype == DType::kBool) {
    for (uint8_t b : t.bytes)
      if (b > 1) return DataLoss("npy bool array holds a byte that is neither 0 nor 1");
  }
  return t;
}

Expected<HostTensor> ReadNpyFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return NotFound("cannot open '" + path + "'");
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)),
                             std::istreambuf_iterator<char>());
  if (in.bad()) return DataLoss("error reading '" + path + "'");
  auto t = ParseNpy(bytes.data(), bytes.size());
  if (!t.ok()) return t.status().WithContext(path);
  return t;
}

Expected<std::vector<uint8_t>> EncodeNpy(const HostTensor& tensor) {
  const char* descr = DescrFor(tensor.dtype);
  if (!descr)
    return Unsupported("cannot write dtype " + std::string(DTypeName(tensor.dtype)) + " to .npy");
  if (tensor.bytes.size() != static_cast<size_t>(tensor.num_elements()) * DTypeSize(tensor.dtype))
    return InvalidArgument("tensor '" + tensor.name + "' has " +
                           std::to_string(tensor.bytes.size()) + " bytes, its shape " +
                           ShapeToString(tensor.shape) + " needs more or less");
  std::string dict = std::string("{'descr': '") + descr + "', 'fortran_order': False, 'shape': (";
  for (size_t i = 0; i < tensor.shape.size(); ++i) {
    dict += std::to_string(tensor.shape[i]);
    if (i + 1 < tensor.shape.size() || tensor.shape.size() == 1) dict += ",";
    if (i + 1 < tensor.shape.size()) dict += " ";
  }
  dict += "), }";
  // Pad with spaces so that magic + length + header (ending in '\n') is a multiple of 64.
  int major = 1;
  size_t prefix = kMagicLen + 2 + 2;
  size_t total = (prefix + dict.size() + 1 + 63) / 64 * 64;
  if (total - prefix > 65535) {
    major = 2;
    prefix = kMagicLen + 2 + 4;
    total = (prefix + dict.size() + 1 + 63) / 64 * 64;
  }
  dict.append(total - prefix - dict.size() - 1, ' ');
  dict += '\n';

  std::vector<uint8_t> out(kMagic, kMagic + kMagicLen);
  out.push_back(static_cast<uint8_t>(major));
  out.push_back(0);
  const uint32_t len = static_cast<uint32_t>(dict.size());
  for (int i = 0; i < (major == 1 ? 2 : 4); ++i)
    out.push_back(static_cast<uint8_t>(len >> (8 * i)));
  out.insert(out.end(), dict.begin(), dict.end());
  out.insert(out.end(), tensor.bytes.begin(), tensor.bytes.end());
  return out;
}

Status WriteNpyFile(const std::string& path, const HostTensor& tensor) {
  KILN_ASSIGN_OR_RETURN(std::vector<uint8_t> bytes, EncodeNpy(tensor));
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) return NotFound("cannot create '" + path + "'");
  out.write(reinterpret_cast<const char*>(bytes.data()),
            static_cast<std::streamsize>(bytes.size()));
  out.close();
  if (!out) return DataLoss("error writing '" + path + "'");
  return Status::Ok();
}

}  // namespace kiln
