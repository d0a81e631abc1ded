// Densify: a CSR matrix and a block-sparse one expand to the dense values; indexes, segments
// and value counts that do not fit the shape are errors.
#include "parsers/tflite/tflite_sparsity.h"

#include <gtest/gtest.h>

#include <cstring>

namespace kiln::tflite_import {
namespace {

// SparsityParameters over `levels` (traversal order 0..n-1): a level is dense (its size) or CSR
// (segments, indices); `block_map` for block dims.
struct LevelSpec {
  bool dense = true;
  int size = 0;
  std::vector<int32_t> segments, indices;
};

class Sparse {
 public:
  Sparse(const std::vector<LevelSpec>& levels, const std::vector<int32_t>& block_map = {}) {
    std::vector<flatbuffers::Offset<tflite::DimensionMetadata>> meta;
    std::vector<int32_t> order;
    for (size_t l = 0; l < levels.size(); ++l) {
      order.push_back(static_cast<int32_t>(l));
      const LevelSpec& s = levels[l];
      if (s.dense) {
        meta.push_back(tflite::CreateDimensionMetadata(b_, tflite::DimensionType::DENSE, s.size));
      } else {
        auto seg = tflite::CreateInt32Vector(b_, b_.CreateVector(s.segments));
        auto idx = tflite::CreateInt32Vector(b_, b_.CreateVector(s.indices));
        meta.push_back(tflite::CreateDimensionMetadata(
            b_, tflite::DimensionType::SPARSE_CSR, 0, tflite::SparseIndexVector::Int32Vector,
            seg.Union(), tflite::SparseIndexVector::Int32Vector, idx.Union()));
      }
    }
    auto root = tflite::CreateSparsityParameters(b_, b_.CreateVector(order),
                                                 block_map.empty() ? 0 : b_.CreateVector(block_map),
                                                 b_.CreateVector(meta));
    b_.Finish(root);
  }
  const tflite::SparsityParameters& params() const {
    return *flatbuffers::GetRoot<tflite::SparsityParameters>(b_.GetBufferPointer());
  }

 private:
  flatbuffers::FlatBufferBuilder b_;
};

std::vector<float> DensifyFloats(const Sparse& s, const std::vector<int64_t>& shape,
                                 const std::vector<float>& values, Status* status) {
  auto dense = Densify(s.params(), shape, sizeof(float),
                       std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(values.data()),
                                                values.size() * sizeof(float)));
  *status = dense.status();
  if (!dense.ok()) return {};
  std::vector<float> out(dense->size() / sizeof(float));
  std::memcpy(out.data(), dense->data(), dense->size());
  return out;
}

TEST(TfliteSparsity, CsrMatrix) {
  Sparse s({{true, 2, {}, {}}, {false, 0, {0, 2, 3}, {1, 3, 0}}});
  Status st;
  EXPECT_EQ(DensifyFloats(s, {2, 4}, {1, 2, 3}, &st), (std::vector<float>{0, 1, 0, 2, 3, 0, 0, 0}));
  EXPECT_TRUE(st.ok()) << st.ToString();
}

TEST(TfliteSparsity, BlockSparseMatrix) {
  // A 2x4 matrix in 1x2 blocks: block row 0 keeps block column 1, block row 1 block column 0.
  Sparse s({{true, 2, {}, {}}, {false, 0, {0, 1, 2}, {1, 0}}, {true, 2, {}, {}}}, {1});
  Status st;
  EXPECT_EQ(DensifyFloats(s, {2, 4}, {1, 2, 3, 4}, &st),
            (std::vector<float>{0, 0, 1, 2, 3, 4, 0, 0}));
  EXPECT_TRUE(st.ok()) << st.ToString();
}

TEST(TfliteSparsity, MalformedIsAnError) {
  Status st;
  DensifyFloats(Sparse({{true, 2, {}, {}}, {false, 0, {0, 2, 3}, {1, 4, 0}}}), {2, 4}, {1, 2, 3},
                &st);
  EXPECT_NE(st.message().find("index 4 outside"), std::string::npos) << st.ToString();
  DensifyFloats(Sparse({{true, 2, {}, {}}, {false, 0, {0, 2, 9}, {1, 3, 0}}}), {2, 4}, {1, 2, 3},
                &st);
  EXPECT_NE(st.message().find("out of range"), std::string::npos) << st.ToString();
  DensifyFloats(Sparse({{true, 2, {}, {}}, {false, 0, {0, 2, 3}, {1, 3, 0}}}), {2, 4}, {1, 2}, &st);
  EXPECT_NE(st.message().find("more positions than stored values"), std::string::npos)
      << st.ToString();
  DensifyFloats(Sparse({{true, 2, {}, {}}, {false, 0, {0, 2, 3}, {1, 3, 0}}}), {2, 4}, {1, 2, 3, 4},
                &st);
  EXPECT_NE(st.message().find("4 stored values, 3 positions"), std::string::npos) << st.ToString();
  DensifyFloats(Sparse({{true, 3, {}, {}}, {true, 4, {}, {}}}), {2, 4}, {}, &st);
  EXPECT_NE(st.message().find("dense level 0 has size 3"), std::string::npos) << st.ToString();
  DensifyFloats(Sparse({{true, 2, {}, {}}, {false, 0, {0, 1, 2}, {1, 0}}, {true, 3, {}, {}}}, {1}),
                {2, 4}, {}, &st);
  EXPECT_NE(st.message().find("does not divide"), std::string::npos) << st.ToString();
}

}  // namespace
}  // namespace kiln::tflite_import
