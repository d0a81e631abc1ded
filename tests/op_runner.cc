// One-op graphs run through schema inference and a CPU reference session.
#include "tests/op_runner.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>

#include "ir/graph.h"
#include "ir/op_schema.h"
#include "kernels/cpu_features.h"
#include "runtime/session.h"

namespace kiln::testing {

Expected<std::vector<HostTensor>> RunSingleOp(OpType op, const Attributes& attrs,
                                              const std::vector<OpInput>& inputs,
                                              size_t num_outputs, int64_t opset) {
  OpRunOptions options;
  options.opset = opset;
  return RunSingleOpWith(options, op, attrs, inputs, num_outputs);
}

Expected<std::vector<HostTensor>> RunSingleOpWith(const OpRunOptions& options, OpType op,
                                                  const Attributes& attrs,
                                                  const std::vector<OpInput>& inputs,
                                                  size_t num_outputs) {
  const int64_t opset = options.opset;
  auto g = std::make_shared<Graph>();
  Node node;
  node.name = "node0";
  node.op = op;
  node.opset = opset;
  node.attrs = attrs;
  std::vector<HostTensor> feeds;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const OpInput& in = inputs[i];
    if (in.omitted) {
      node.inputs.push_back(kNoValue);
      continue;
    }
    const std::string name = "in" + std::to_string(i);
    if (in.constant) {
      node.inputs.push_back(
          g->AddConstant(name, in.tensor.dtype, in.tensor.shape,
                         ConstantBytes::Copy(in.tensor.bytes.data(), in.tensor.bytes.size())));
    } else {
      Value v;
      v.name = name;
      v.dtype = in.tensor.dtype;
      v.shape = in.tensor.shape;
      v.shape_known = true;
      ValueId id = g->AddValue(v);
      g->inputs().push_back(id);
      node.inputs.push_back(id);
      HostTensor feed = in.tensor;
      feed.name = name;
      feeds.push_back(std::move(feed));
    }
  }
  for (size_t i = 0; i < num_outputs; ++i) {
    Value v;
    v.name = "out" + std::to_string(i);
    ValueId id = g->AddValue(v);
    node.outputs.push_back(id);
    g->outputs().push_back(id);
  }
  g->AddNode(std::move(node));
  KILN_RETURN_IF_ERROR(InferNode(*g, 0));
  SessionOptions session_options;
  session_options.cpu_max_isa = options.max_isa;
  session_options.num_threads = options.threads;
  KILN_ASSIGN_OR_RETURN(auto session, Session::Create(g, session_options));
  return session->Run(feeds);
}

void ExpectFastMatchesReference(OpType op, const Attributes& attrs,
                                const std::vector<OpInput>& inputs, float atol, float rtol,
                                size_t num_outputs) {
  auto want = RunSingleOpWith(OpRunOptions{}, op, attrs, inputs, num_outputs);
  ASSERT_TRUE(want.ok()) << want.status().ToString();
  for (Isa isa : {Isa::kScalar, Isa::kAvx2, Isa::kAvx512}) {
    if (!cpu::CpuSupports(isa)) continue;
    for (int threads : {1, 2}) {
      const std::string where = std::string(OpTypeName(op)) + " at " +
                                std::string(cpu::IsaName(isa)) + ", " + std::to_string(threads) +
                                " thread(s)";
      auto got = RunSingleOpWith(OpRunOptions{isa, threads}, op, attrs, inputs, num_outputs);
      ASSERT_TRUE(got.ok()) << where << ": " << got.status().ToString();
      ASSERT_EQ(got->size(), want->size()) << where;
      for (size_t o = 0; o < got->size(); ++o) {
        const HostTensor& g = (*got)[o];
        const HostTensor& w = (*want)[o];
        ASSERT_EQ(g.dtype, w.dtype) << where;
        ASSERT_EQ(g.shape, w.shape) << where;
        if (g.dtype != DType::kF32) {
          EXPECT_EQ(g.bytes, w.bytes) << where << " output " << o;
          continue;
        }
        const std::vector<float> gv = ToF32(g), wv = ToF32(w);
        int bad = 0;
        for (size_t i = 0; i < gv.size(); ++i) {
          const bool both_nan = std::isnan(gv[i]) && std::isnan(wv[i]);
          if (both_nan || std::fabs(gv[i] - wv[i]) <= atol + rtol * std::fabs(wv[i])) continue;
          if (++bad <= 5) {
            ADD_FAILURE() << where << " output " << o << " [" << i << "]: got " << gv[i]
                          << ", reference " << wv[i];
          }
        }
        EXPECT_EQ(bad, 0) << where << " output " << o << ": " << bad << " of " << gv.size()
                          << " elements differ";
      }
    }
  }
}

HostTensor MakeF32(Shape shape, std::vector<float> values) {
  HostTensor t("", DType::kF32, std::move(shape));
  if (!t.bytes.empty()) std::memcpy(t.bytes.data(), values.data(), t.bytes.size());
  return t;
}

HostTensor MakeI64(Shape shape, std::vector<int64_t> values) {
  HostTensor t("", DType::kI64, std::move(shape));
  if (!t.bytes.empty()) std::memcpy(t.bytes.data(), values.data(), t.bytes.size());
  return t;
}

std::vector<float> ToF32(const HostTensor& t) {
  std::vector<float> v(static_cast<size_t>(t.num_elements()));
  if (!v.empty()) std::memcpy(v.data(), t.bytes.data(), v.size() * 4);
  return v;
}

}  // namespace kiln::testing
