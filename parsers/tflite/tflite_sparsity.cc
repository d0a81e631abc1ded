// Densify: walks the levels of the traversal order (dense levels by their size, CSR levels by
// their segments and indices) and writes each stored value at its dense position.
#include "parsers/tflite/tflite_sparsity.h"

#include <cstring>
#include <string>

namespace kiln::tflite_import {
namespace {

constexpr size_t kMaxRank = 8;
constexpr int64_t kMaxDenseBytes = int64_t{1} << 28;  // a sparse weight beyond this is refused

// An index vector of either width, read with bounds.
struct IndexVector {
  const tflite::Int32Vector* i32 = nullptr;
  const tflite::Uint16Vector* u16 = nullptr;
  const tflite::Uint8Vector* u8 = nullptr;

  size_t size() const {
    if (i32 && i32->values()) return i32->values()->size();
    if (u16 && u16->values()) return u16->values()->size();
    if (u8 && u8->values()) return u8->values()->size();
    return 0;
  }
  int64_t operator[](size_t k) const {
    if (i32) return i32->values()->Get(static_cast<flatbuffers::uoffset_t>(k));
    if (u16) return u16->values()->Get(static_cast<flatbuffers::uoffset_t>(k));
    return u8->values()->Get(static_cast<flatbuffers::uoffset_t>(k));
  }
};

IndexVector Indexes(tflite::SparseIndexVector type, const void* table) {
  IndexVector v;
  switch (type) {
    case tflite::SparseIndexVector::Int32Vector:
      v.i32 = static_cast<const tflite::Int32Vector*>(table);
      break;
    case tflite::SparseIndexVector::Uint16Vector:
      v.u16 = static_cast<const tflite::Uint16Vector*>(table);
      break;
    case tflite::SparseIndexVector::Uint8Vector:
      v.u8 = static_cast<const tflite::Uint8Vector*>(table);
      break;
    default:
      break;
  }
  return v;
}

struct Level {
  bool dense = true;
  int64_t size = 0;  // the extent this level's indexes run over
  IndexVector segments, indices;
};

class Expander {
 public:
  Status Run(size_t level, int64_t parent) {
    if (level == levels.size()) return Store();
    const Level& l = levels[level];
    if (l.dense) {
      for (int64_t i = 0; i < l.size; ++i) {
        index[level] = i;
        KILN_RETURN_IF_ERROR(Run(level + 1, parent * l.size + i));
      }
      return Status::Ok();
    }
    if (parent < 0 || static_cast<size_t>(parent) + 1 >= l.segments.size()) {
      return InvalidArgument("sparse tensor: segment " + std::to_string(parent) + " is missing");
    }
    const int64_t begin = l.segments[static_cast<size_t>(parent)];
    const int64_t end = l.segments[static_cast<size_t>(parent) + 1];
    if (begin < 0 || end < begin || static_cast<size_t>(end) > l.indices.size()) {
      return InvalidArgument("sparse tensor: segment [" + std::to_string(begin) + ", " +
                             std::to_string(end) + ") is out of range");
    }
    for (int64_t k = begin; k < end; ++k) {
      const int64_t i = l.indices[static_cast<size_t>(k)];
      if (i < 0 || i >= l.size) {
        return InvalidArgument("sparse tensor: index " + std::to_string(i) + " outside [0, " +
                               std::to_string(l.size) + ")");
      }
      index[level] = i;
      KILN_RETURN_IF_ERROR(Run(level + 1, k));
    }
    return Status::Ok();
  }

  std::vector<Level> levels;
  std::vector<int64_t> traversal, block_map, block_size, shape;
  std::vector<int64_t> index;
  size_t element_size = 0;
  std::span<const uint8_t> values;
  size_t consumed = 0;
  std::vector<uint8_t> dense;

 private:
  Status Store() {
    const size_t rank = shape.size();
    std::vector<int64_t> at(rank, 0);
    for (size_t l = 0; l < levels.size(); ++l) {
      const int64_t t = traversal[l];
      if (static_cast<size_t>(t) < rank) {
        at[static_cast<size_t>(t)] += index[l] * BlockSizeOf(t);
      } else {
        at[static_cast<size_t>(block_map[static_cast<size_t>(t) - rank])] += index[l];
      }
    }
    int64_t flat = 0;
    for (size_t d = 0; d < rank; ++d) flat = flat * shape[d] + at[d];
    if ((consumed + 1) * element_size > values.size()) {
      return InvalidArgument("sparse tensor: more positions than stored values (" +
                             std::to_string(values.size() / element_size) + ")");
    }
    std::memcpy(dense.data() + static_cast<size_t>(flat) * element_size,
                values.data() + consumed * element_size, element_size);
    ++consumed;
    return Status::Ok();
  }
  // The block extent along original dim d (1 when d is not blocked).
  int64_t BlockSizeOf(int64_t d) const {
    for (size_t b = 0; b < block_map.size(); ++b) {
      if (block_map[b] == d) return block_size[b];
    }
    return 1;
  }
};

}  // namespace

Expected<std::vector<uint8_t>> Densify(const tflite::SparsityParameters& sparsity,
                                       const std::vector<int64_t>& shape, size_t element_size,
                                       std::span<const uint8_t> values) {
  Expander e;
  e.shape = shape;
  e.element_size = element_size;
  e.values = values;
  const size_t rank = shape.size();
  if (sparsity.traversal_order()) {
    e.traversal.assign(sparsity.traversal_order()->begin(), sparsity.traversal_order()->end());
  }
  if (sparsity.block_map()) {
    e.block_map.assign(sparsity.block_map()->begin(), sparsity.block_map()->end());
  }
  const size_t levels = e.traversal.size();
  const size_t blocks = e.block_map.size();
  const auto* meta = sparsity.dim_metadata();
  if (rank == 0 || rank > kMaxRank || levels != rank + blocks || blocks > rank || !meta ||
      meta->size() != levels) {
    return InvalidArgument("sparse tensor: traversal order of " + std::to_string(levels) +
                           " levels, " + std::to_string(blocks) + " block dims and " +
                           std::to_string(meta ? meta->size() : 0) +
                           " dim metadata do not fit rank " + std::to_string(rank));
  }
  std::vector<bool> seen(levels, false);
  for (int64_t t : e.traversal) {
    if (t < 0 || static_cast<size_t>(t) >= levels || seen[static_cast<size_t>(t)]) {
      return InvalidArgument("sparse tensor: traversal order is not a permutation");
    }
    seen[static_cast<size_t>(t)] = true;
  }
  // Block sizes come from the dense levels of the block dims.
  e.block_size.assign(blocks, 0);
  for (size_t l = 0; l < levels; ++l) {
    const size_t t = static_cast<size_t>(e.traversal[l]);
    if (t < rank) continue;
    const auto* m = meta->Get(static_cast<flatbuffers::uoffset_t>(l));
    if (m->format() != tflite::DimensionType::DENSE || m->dense_size() < 1) {
      return InvalidArgument("sparse tensor: block dims must be dense with a positive size");
    }
    e.block_size[t - rank] = m->dense_size();
  }
  std::vector<int64_t> blocked = shape;
  for (size_t b = 0; b < blocks; ++b) {
    const int64_t d = e.block_map[b];
    if (d < 0 || static_cast<size_t>(d) >= rank ||
        blocked[static_cast<size_t>(d)] % e.block_size[b]) {
      return InvalidArgument("sparse tensor: block " + std::to_string(b) + " does not divide dim " +
                             std::to_string(d));
    }
    blocked[static_cast<size_t>(d)] /= e.block_size[b];
  }
  e.levels.resize(levels);
  for (size_t l = 0; l < levels; ++l) {
    const size_t t = static_cast<size_t>(e.traversal[l]);
    const auto* m = meta->Get(static_cast<flatbuffers::uoffset_t>(l));
    Level& level = e.levels[l];
    level.size = t < rank ? blocked[t] : e.block_size[t - rank];
    level.dense = m->format() == tflite::DimensionType::DENSE;
    if (level.dense && m->dense_size() != level.size) {
      return InvalidArgument("sparse tensor: dense level " + std::to_string(l) + " has size " +
                             std::to_string(m->dense_size()) + ", its dim " +
                             std::to_string(level.size));
    }
    if (!level.dense) {
      level.segments = Indexes(m->array_segments_type(), m->array_segments());
      level.indices = Indexes(m->array_indices_type(), m->array_indices());
    }
  }
  int64_t bytes = static_cast<int64_t>(element_size);
  for (int64_t d : shape) {
    if (d < 0 || (d > 0 && bytes > kMaxDenseBytes / d)) {
      return Unsupported("sparse tensor larger than 256 MiB dense");
    }
    bytes *= d;
  }
  e.dense.assign(static_cast<size_t>(bytes), 0);
  e.index.assign(levels, 0);
  KILN_RETURN_IF_ERROR(e.Run(0, 0));
  if (e.consumed * element_size != values.size()) {
    return InvalidArgument("sparse tensor: " + std::to_string(values.size() / element_size) +
                           " stored values, " + std::to_string(e.consumed) + " positions");
  }
  return std::move(e.dense);
}

}  // namespace kiln::tflite_import
