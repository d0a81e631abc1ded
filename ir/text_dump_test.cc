// Tests for the IR's stable text form.
#include "ir/text_dump.h"

#include <gtest/gtest.h>

namespace kiln {
namespace {

TEST(TextDumpTest, PrintsSignatureConstantsNodesAttributesAndPlacement) {
  Graph g;
  Value x;
  x.name = "x";
  x.dtype = DType::kF32;
  x.shape = {1, 4};
  x.shape_known = true;
  ValueId xid = g.AddValue(x);
  ValueId shape = g.AddConstant("shape", DType::kI64, {2},
                                ConstantBytes::Copy("\x02\0\0\0\0\0\0\0\x02\0\0\0\0\0\0\0", 16));
  Value y;
  y.name = "y";
  y.dtype = DType::kF32;
  y.shape = {2, 2};
  y.shape_known = true;
  ValueId yid = g.AddValue(y);
  g.inputs() = {xid};
  g.outputs() = {yid};
  Node n{"reshape0", OpType::kReshape, 17, {xid, shape}, {yid}, {}, kExecutorCpu, {}};
  n.attrs.Set("allowzero", int64_t{0});
  g.AddNode(n);
  EXPECT_EQ(GraphToText(g),
            "graph main(%x: f32[1,4]) -> (%y: f32[2,2])\n"
            "  const %shape: i64[2] (16 bytes)\n"
            "  %y = Reshape(%x, %shape) {allowzero=0} @cpu : f32[2,2]  # reshape0\n");
}

}  // namespace
}  // namespace kiln
