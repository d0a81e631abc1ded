// Compiled .kiln files: the schedule, the memory plan and node provenance survive the file
// round trip; the loader proves a plan safe before anyone uses it (a signed file whose plan
// overlaps live values, or that carries half a plan, is refused); every byte of the plan
// sections is covered by the signature; files without a plan run with the default one.
#include <gtest/gtest.h>

#include "compiler/frontend.h"
#include "compiler/pipeline.h"
#include "ir/plan_rules.h"
#include "runtime/model.h"
#include "runtime/session.h"
#include "serializer/container_reader.h"
#include "serializer/model_writer.h"
#include "tests/test_support.h"

namespace kiln {
namespace {

struct Fixture {
  CompiledModel compiled;
  std::unique_ptr<signing::PrivateKey> key;
  TrustStore trust;
};

Fixture& Mnist() {
  static Fixture* f = [] {
    auto* fx = new Fixture();
    OnnxParseOptions parse;
    auto g = ImportOnnx(testing::SharedDir() + "/models/mnist/model.onnx", parse);
    EXPECT_TRUE(g.ok()) << g.status().ToString();
    CompileOptions options;
    options.streams = 2;
    options.target_isa = kBestCpuIsa;
    auto c = CompileGraph(std::move(g).value(), options);
    EXPECT_TRUE(c.ok()) << c.status().ToString();
    fx->compiled = std::move(c).value();
    fx->key = std::make_unique<signing::PrivateKey>(std::move(signing::PrivateKey::Generate()).value());
    EXPECT_TRUE(fx->trust.AddPublicKeyPem(*fx->key->public_key()->ToPem()).ok());
    return fx;
  }();
  return *f;
}

std::vector<uint8_t> Write(const Graph& g, const ExecutionPlan* plan) {
  WriteOptions options;
  options.signing_key = Mnist().key.get();
  options.plan = plan;
  auto image = SerializeModel(g, options);
  EXPECT_TRUE(image.ok()) << image.status().ToString();
  return image.ok() ? *image : std::vector<uint8_t>{};
}

Expected<std::shared_ptr<const Model>> Load(const std::vector<uint8_t>& bytes) {
  return Model::LoadFromMemory(nullptr, bytes.data(), bytes.size(), Mnist().trust);
}

TEST(CompiledModelFileTest, PlanAndProvenanceRoundTrip) {
  const CompiledModel& c = Mnist().compiled;
  ASSERT_GT(c.plan.schedule.num_streams, 0);
  const auto bytes = Write(c.graph, &c.plan);
  auto m = Load(bytes);
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  EXPECT_TRUE((*m)->info().has_plan);
  const ExecutionPlan& p = *(*m)->plan();
  EXPECT_EQ(p.schedule.num_streams, c.plan.schedule.num_streams);
  EXPECT_EQ(p.schedule.stream, c.plan.schedule.stream);
  ASSERT_EQ(p.schedule.events.size(), c.plan.schedule.events.size());
  for (size_t i = 0; i < p.schedule.events.size(); ++i) {
    EXPECT_EQ(p.schedule.events[i].signal, c.plan.schedule.events[i].signal);
    EXPECT_EQ(p.schedule.events[i].wait, c.plan.schedule.events[i].wait);
  }
  EXPECT_EQ(p.memory.arena_bytes, c.plan.memory.arena_bytes);
  EXPECT_EQ(p.memory.offsets, c.plan.memory.offsets);
  EXPECT_EQ(p.memory.inplace_of, c.plan.memory.inplace_of);
  EXPECT_EQ(p.memory.elided, c.plan.memory.elided);
  // Fused nodes keep the ONNX nodes they came from.
  const Graph& g = *(*m)->graph();
  bool fused = false;
  for (size_t n = 0; n < g.num_nodes(); ++n) {
    EXPECT_EQ(g.node(static_cast<NodeId>(n)).sources, c.graph.node(static_cast<NodeId>(n)).sources);
    fused |= g.node(static_cast<NodeId>(n)).sources.size() > 1;
  }
  EXPECT_TRUE(fused);
}

TEST(CompiledModelFileTest, SignedFileWithAnUnsafePlanIsRefused) {
  const CompiledModel& c = Mnist().compiled;
  ExecutionPlan bad = c.plan;
  // Put every planned buffer at offset 0: values live at the same time now overlap.
  for (auto& off : bad.memory.offsets) {
    if (off > 0) off = 0;
  }
  ASSERT_FALSE(ValidateExecutionPlan(c.graph, bad).ok());
  auto m = Load(Write(c.graph, &bad));
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.status().code(), StatusCode::kDataLoss);
  EXPECT_NE(m.status().message().find("execution plan"), std::string::npos)
      << m.status().message();

  // An arena far larger than its values reach (a signed file must not be able to make the
  // runtime allocate exabytes, found by the loader fuzzer): refused, one byte of slack past the
  // last aligned slot is enough.
  ExecutionPlan huge = c.plan;
  huge.memory.arena_bytes = uint64_t{0x28} << 56;
  auto h = Load(Write(c.graph, &huge));
  ASSERT_FALSE(h.ok());
  EXPECT_NE(h.status().message().find("-byte arena; its values reach only"), std::string::npos)
      << h.status().message();
  ExecutionPlan slack = c.plan;
  slack.memory.arena_bytes = (slack.memory.arena_bytes + 63) / 64 * 64 + 1;
  EXPECT_FALSE(ValidateExecutionPlan(c.graph, slack).ok());

  // A schedule that lets a node run before its input is written.
  ExecutionPlan racy = c.plan;
  racy.schedule.events.clear();
  if (racy.schedule.num_streams > 1) {
    auto r = Load(Write(c.graph, &racy));
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.status().message().find("execution plan"), std::string::npos);
  }
}

TEST(CompiledModelFileTest, HalfAPlanIsRefusedNoPlanRunsTheDefault) {
  const CompiledModel& c = Mnist().compiled;
  // Rebuild the container without the memory-plan section, re-signed.
  const auto full = Write(c.graph, &c.plan);
  format::ReadLimits limits;
  auto view = format::ParseContainer(full.data(), full.size(), limits);
  ASSERT_TRUE(view.ok());
  std::vector<RawSection> raw;
  for (const auto& e : view->sections) {
    if (e.kind == static_cast<uint32_t>(format::SectionKind::kMemoryPlan)) continue;
    RawSection r;
    r.kind = e.kind;
    r.compression = e.compression;
    r.uncompressed_size = e.uncompressed_size;
    r.stored.assign(full.data() + e.offset, full.data() + e.offset + e.stored_size);
    raw.push_back(std::move(r));
  }
  const auto unsigned_image = AssembleContainer(raw);
  auto half = SignModelImage(unsigned_image.data(), unsigned_image.size(), *Mnist().key);
  ASSERT_TRUE(half.ok());
  auto m = Load(*half);
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.status().message().find("memory-plan"), std::string::npos) << m.status().message();

  auto plain = Load(Write(c.graph, nullptr));
  ASSERT_TRUE(plain.ok()) << plain.status().ToString();
  EXPECT_FALSE((*plain)->info().has_plan);
  EXPECT_EQ((*plain)->plan()->schedule.num_streams, 1);
  auto session = Session::Create(**plain);
  ASSERT_TRUE(session.ok()) << session.status().ToString();
}

TEST(CompiledModelFileTest, EveryPlanByteIsSigned) {
  const CompiledModel& c = Mnist().compiled;
  const auto bytes = Write(c.graph, &c.plan);
  format::ReadLimits limits;
  auto view = format::ParseContainer(bytes.data(), bytes.size(), limits);
  ASSERT_TRUE(view.ok());
  int flipped = 0;
  for (const auto& e : view->sections) {
    if (e.kind != static_cast<uint32_t>(format::SectionKind::kMemoryPlan) &&
        e.kind != static_cast<uint32_t>(format::SectionKind::kStreams)) {
      continue;
    }
    for (uint64_t i = e.offset; i < e.offset + e.stored_size; ++i) {
      std::vector<uint8_t> bad = bytes;
      bad[i] ^= 0x41;
      auto m = Load(bad);
      ASSERT_FALSE(m.ok()) << "byte " << i;
      EXPECT_EQ(m.status().code(), StatusCode::kDataLoss) << m.status().message();
      ++flipped;
    }
  }
  EXPECT_GT(flipped, 100);
}

}  // namespace
}  // namespace kiln
