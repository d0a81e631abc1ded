// Test helpers for the quantized reference kernels: quantize random float tensors, run one
// quantized op (operands carrying QuantParams) through a CPU session, and compare against the
// float op on the dequantized operands, in output quantization steps.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <memory>
#include <random>
#include <vector>

#include "ir/op_schema.h"
#include "kernels/reference/quantized_util.h"
#include "quant/quant_math.h"
#include "runtime/session.h"
#include "tests/op_runner.h"

namespace kiln::qtest {

// An operand of a quantized op under test.
struct QIn {
  HostTensor tensor;  // stored (integer) values
  QuantParams quant;  // empty for plain constants (requant tables, biases)
  bool constant = false;
  bool omitted = false;
};

inline QIn Omitted() { return QIn{HostTensor(), {}, false, true}; }

inline std::vector<float> RandomFloats(std::mt19937& rng, size_t n, float lo, float hi) {
  std::uniform_real_distribution<float> d(lo, hi);
  std::vector<float> v(n);
  for (float& x : v) x = d(rng);
  return v;
}

// Quantizes `real` per tensor with `q` into dtype t (u8/i8).
inline HostTensor QuantizeTensor(const std::vector<float>& real, const Shape& shape, DType t,
                                 const QuantParams& q) {
  HostTensor h("", t, shape);
  for (size_t i = 0; i < real.size(); ++i) {
    const int64_t c = quant::QuantizeValue(real[i], q.scales[0], q.zero_points[0], t);
    StoreQuantized(h.bytes.data(), t, static_cast<int64_t>(i), static_cast<int32_t>(c));
  }
  return h;
}

// Real values of a per-tensor quantized tensor.
inline std::vector<float> DequantizeTensor(const HostTensor& h, const QuantParams& q) {
  std::vector<float> out(static_cast<size_t>(h.num_elements()));
  for (size_t i = 0; i < out.size(); ++i) {
    int32_t code;
    if (h.dtype == DType::kI32) {
      std::memcpy(&code, h.bytes.data() + i * 4, 4);
    } else {
      code = LoadQuantized(h.bytes.data(), h.dtype, static_cast<int64_t>(i));
    }
    out[i] = static_cast<float>(quant::Dequantize(code, q.scales[0], q.zero_points[0]));
  }
  return out;
}

inline HostTensor MakeI64(Shape shape, const std::vector<int64_t>& v) {
  HostTensor h("", DType::kI64, std::move(shape));
  if (!v.empty()) std::memcpy(h.bytes.data(), v.data(), v.size() * 8);
  return h;
}

inline HostTensor MakeI32(Shape shape, const std::vector<int32_t>& v) {
  HostTensor h("", DType::kI32, std::move(shape));
  if (!v.empty()) std::memcpy(h.bytes.data(), v.data(), v.size() * 4);
  return h;
}

// [rows, 2] (multiplier, shift) constant from real multipliers.
inline QIn RequantInput(const std::vector<double>& reals) {
  std::vector<int32_t> raw;
  for (double m : reals) {
    auto r = quant::QuantizeMultiplier(m);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    raw.push_back(r.ok() ? r->multiplier : 0);
    raw.push_back(r.ok() ? r->shift : 1);
  }
  return QIn{MakeI32({static_cast<int64_t>(reals.size()), 2}, raw), {}, true, false};
}

// Runs `op` on `ins`; the output value carries `out_q`.
inline Expected<HostTensor> RunQuantizedOp(OpType op, const Attributes& attrs,
                                           const std::vector<QIn>& ins, const QuantParams& out_q,
                                           int threads = 1) {
  auto g = std::make_shared<Graph>();
  Node node;
  node.name = "q";
  node.op = op;
  node.attrs = attrs;
  std::vector<HostTensor> feeds;
  for (size_t i = 0; i < ins.size(); ++i) {
    if (ins[i].omitted) {
      node.inputs.push_back(kNoValue);
      continue;
    }
    const std::string name = "in" + std::to_string(i);
    const HostTensor& t = ins[i].tensor;
    ValueId id;
    if (ins[i].constant) {
      id = g->AddConstant(name, t.dtype, t.shape,
                          ConstantBytes::Copy(t.bytes.data(), t.bytes.size()));
    } else {
      Value v;
      v.name = name;
      v.dtype = t.dtype;
      v.shape = t.shape;
      v.shape_known = true;
      id = g->AddValue(v);
      g->inputs().push_back(id);
      HostTensor f = t;
      f.name = name;
      feeds.push_back(std::move(f));
    }
    g->value(id).quant = ins[i].quant;
    node.inputs.push_back(id);
  }
  Value out;
  out.name = "out";
  out.quant = out_q;
  const ValueId oid = g->AddValue(out);
  node.outputs.push_back(oid);
  g->outputs().push_back(oid);
  g->AddNode(std::move(node));
  KILN_RETURN_IF_ERROR(InferNode(*g, 0));
  SessionOptions so;
  so.num_threads = threads;
  KILN_ASSIGN_OR_RETURN(auto session, Session::Create(g, so));
  KILN_ASSIGN_OR_RETURN(auto outs, session->Run(feeds));
  return outs[0];
}

// Every dequantized output element is within `steps` output steps of the float result (which
// is first clamped to the output type's representable range).
inline void ExpectWithinSteps(const HostTensor& got, const QuantParams& q,
                              const std::vector<float>& want, double steps = 1.0) {
  const std::vector<float> real = DequantizeTensor(got, q);
  ASSERT_EQ(real.size(), want.size());
  const double s = q.scales[0];
  const double lo = quant::Dequantize(QuantCodeMin(got.dtype), q.scales[0], q.zero_points[0]);
  const double hi = quant::Dequantize(QuantCodeMax(got.dtype), q.scales[0], q.zero_points[0]);
  for (size_t i = 0; i < real.size(); ++i) {
    const double w = std::clamp<double>(want[i], lo, hi);
    ASSERT_LE(std::fabs(real[i] - w), steps * s * (1 + 1e-5) + 1e-9)
        << "element " << i << ": got " << real[i] << ", float " << want[i];
  }
}

}  // namespace kiln::qtest
