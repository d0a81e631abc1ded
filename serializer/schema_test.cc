// The flatbuffers schema's enums must mirror the IR's stable values exactly.
#include <gtest/gtest.h>

#include "ir/dtype.h"
#include "ir/layout.h"
#include "ir/op_type.h"
#include "serializer/kiln_model_generated.h"

namespace kiln {
namespace {

TEST(SchemaTest, OpEnumMirrorsIrOpTypes) {
  size_t n = 0;
  const OpType* ops = AllOpTypes(&n);
  ASSERT_GT(n, 0u);
  for (size_t i = 0; i < n; ++i) {
    const auto v = static_cast<int32_t>(ops[i]);
    EXPECT_EQ(std::string(fb::EnumNameOpType(static_cast<fb::OpType>(v))), OpTypeName(ops[i]))
        << "op value " << v;
  }
  // No schema op beyond the IR's: the largest schema value is the largest IR value.
  EXPECT_EQ(static_cast<int32_t>(fb::OpType::MAX), static_cast<int32_t>(ops[n - 1]));
}

TEST(SchemaTest, DTypeAndLayoutMirrorIr) {
  for (int v = 0; v <= static_cast<int>(DType::kI16); ++v) {
    const std::string fb_name = fb::EnumNameDType(static_cast<fb::DType>(v));
    if (v == 0) {
      EXPECT_EQ(fb_name, "Undefined");
      continue;
    }
    std::string ir_name(DTypeName(static_cast<DType>(v)));
    for (auto& c : ir_name) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    std::string upper = fb_name;
    for (auto& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    EXPECT_EQ(upper, ir_name) << "dtype value " << v;
  }
  EXPECT_EQ(static_cast<int32_t>(fb::DType::MAX), static_cast<int32_t>(DType::kI16));
  EXPECT_EQ(static_cast<int32_t>(fb::Layout::MAX), static_cast<int32_t>(kLastLayout));
  EXPECT_EQ(static_cast<int32_t>(fb::Layout::Block16O), static_cast<int32_t>(Layout::kBlock16O));
  EXPECT_EQ(static_cast<int32_t>(fb::Layout::GemmKO64), static_cast<int32_t>(Layout::kGemmKO64));
  EXPECT_EQ(static_cast<int32_t>(fb::Layout::Wino43Block16O),
            static_cast<int32_t>(Layout::kWino43Block16O));
  EXPECT_EQ(static_cast<int32_t>(fb::Layout::NHWC), static_cast<int32_t>(Layout::kNHWC));
  EXPECT_EQ(static_cast<int32_t>(fb::Layout::NC4HW4), static_cast<int32_t>(Layout::kNC4HW4));
  EXPECT_EQ(static_cast<int32_t>(fb::Layout::NCHW8c), static_cast<int32_t>(Layout::kNCHW8c));
}

}  // namespace
}  // namespace kiln
