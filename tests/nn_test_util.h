// Helpers for the nn reference kernel tests: run one op, compare float outputs.
#pragma once

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "tests/op_runner.h"

namespace kiln::nn_test {

using testing::MakeF32;
using testing::MakeI64;
using testing::OpInput;
using testing::ToF32;

inline OpInput In(HostTensor t) { return OpInput{std::move(t), false, false}; }
inline OpInput Const(HostTensor t) { return OpInput{std::move(t), true, false}; }
inline OpInput Omitted() { return OpInput{HostTensor(), false, true}; }

// Runs the op and returns output `index`, failing the test (and returning an empty tensor)
// when the run does not succeed.
inline HostTensor RunOk(OpType op, const Attributes& attrs, const std::vector<OpInput>& inputs,
                        size_t num_outputs = 1, size_t index = 0) {
  auto r = testing::RunSingleOp(op, attrs, inputs, num_outputs);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  if (!r.ok() || index >= r->size()) return HostTensor();
  return (*r)[index];
}

// The status of running the op (expected to fail in error tests).
inline Status RunStatus(OpType op, const Attributes& attrs, const std::vector<OpInput>& inputs,
                        size_t num_outputs = 1) {
  return testing::RunSingleOp(op, attrs, inputs, num_outputs).status();
}

inline void ExpectF32(const HostTensor& got, const Shape& shape, const std::vector<float>& want,
                      float tol = 1e-5f) {
  ASSERT_EQ(got.dtype, DType::kF32);
  ASSERT_EQ(got.shape, shape) << ShapeToString(got.shape);
  const std::vector<float> g = ToF32(got);
  ASSERT_EQ(g.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(g[i], want[i], tol) << "element " << i;
}

template <typename T>
HostTensor Make(DType dtype, Shape shape, const std::vector<T>& values) {
  HostTensor t("", dtype, std::move(shape));
  std::memcpy(t.bytes.data(), values.data(), t.bytes.size());
  return t;
}

template <typename T>
std::vector<T> Values(const HostTensor& t) {
  std::vector<T> v(static_cast<size_t>(t.num_elements()));
  std::memcpy(v.data(), t.bytes.data(), v.size() * sizeof(T));
  return v;
}

inline std::vector<float> Ramp(int64_t n, float start = 0.f) {
  std::vector<float> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[static_cast<size_t>(i)] = start + static_cast<float>(i);
  return v;
}

}  // namespace kiln::nn_test
