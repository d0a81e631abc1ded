// libFuzzer target for the .kiln loader. Each input is loaded twice: as is (signature path,
// deterministic trusted key), and with its section hashes recomputed and signature stripped, so
// that mutations reach decompression, the flatbuffers Verifier, graph building and VerifyGraph.
// With KILN_FUZZ_WRITE_SEEDS=DIR set, it writes a seed corpus of valid files to DIR and exits
// (tests/fuzz/corpus/loader holds further, hand-made inputs replayed on every CI run).
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "backends/dsp/dsp_options.h"
#include "ir/layout.h"
#include "ir/op_schema.h"
#include "runtime/model.h"
#include "runtime/session.h"
#include "serializer/container_reader.h"
#include "serializer/model_writer.h"
#include "serializer/signing.h"

namespace {

using namespace kiln;

constexpr uint64_t kFuzzSectionLimit = uint64_t{64} << 20;

const signing::PrivateKey& FuzzKey() {
  static const signing::PrivateKey* key = [] {
    uint8_t seed[32];
    for (int i = 0; i < 32; ++i) seed[i] = static_cast<uint8_t>(0x4b + i);
    auto k = signing::PrivateKey::FromRawSeed(seed);
    if (!k.ok()) std::abort();
    return new signing::PrivateKey(std::move(k).value());
  }();
  return *key;
}

const TrustStore& FuzzTrust() {
  static const TrustStore* trust = [] {
    auto* t = new TrustStore();
    auto pem = FuzzKey().public_key()->ToPem();
    if (!pem.ok() || !t->AddPublicKeyPem(*pem).ok()) std::abort();
    return t;
  }();
  return *trust;
}

// Adds a node with one output and infers it; false when inference refuses.
bool AddNode(Graph& g, OpType op, std::vector<ValueId> in, Attributes attrs, ValueId* out) {
  Value v;
  v.name = "v" + std::to_string(g.num_values());
  *out = g.AddValue(v);
  Node n;
  n.name = "n" + std::to_string(g.num_nodes());
  n.op = op;
  n.opset = 17;
  n.inputs = std::move(in);
  n.outputs = {*out};
  n.attrs = std::move(attrs);
  return InferNode(g, g.AddNode(std::move(n))).ok();
}

ValueId AddF32(Graph& g, const std::string& name, Shape shape) {
  std::vector<float> data(static_cast<size_t>(NumElements(shape)));
  for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<float>(i % 7) * 0.25f - 0.5f;
  return g.AddConstant(name, DType::kF32, shape, ConstantBytes::Copy(data.data(), data.size() * 4));
}

// x[1,2,6,6] -> Conv(3x3, pads 1) -> Relu -> Reshape([1,-1]) -> MatMul -> Add -> Softmax
std::vector<Graph> SeedGraphs() {
  std::vector<Graph> out;
  Graph g;
  Value x;
  x.name = "x";
  x.dtype = DType::kF32;
  x.shape = {1, 2, 6, 6};
  x.shape_known = true;
  g.inputs().push_back(g.AddValue(x));
  ValueId conv, relu, reshape, mm, add, sm;
  Attributes conv_attrs;
  conv_attrs.Set("kernel_shape", std::vector<int64_t>{3, 3});
  conv_attrs.Set("pads", std::vector<int64_t>{1, 1, 1, 1});
  conv_attrs.Set("strides", std::vector<int64_t>{1, 1});
  const ValueId w = AddF32(g, "w", {3, 2, 3, 3});
  const ValueId b = AddF32(g, "b", {3});
  bool ok = AddNode(g, OpType::kConv, {g.inputs()[0], w, b}, conv_attrs, &conv);
  ok = ok && AddNode(g, OpType::kRelu, {conv}, {}, &relu);
  const int64_t shape_vals[2] = {1, -1};
  const ValueId shape =
      g.AddConstant("shape", DType::kI64, {2}, ConstantBytes::Copy(shape_vals, sizeof(shape_vals)));
  ok = ok && AddNode(g, OpType::kReshape, {relu, shape}, {}, &reshape);
  ok = ok && AddNode(g, OpType::kMatMul, {reshape, AddF32(g, "fc", {108, 10})}, {}, &mm);
  ok = ok && AddNode(g, OpType::kAdd, {mm, AddF32(g, "fc_b", {10})}, {}, &add);
  Attributes sm_attrs;
  sm_attrs.Set("axis", int64_t{-1});
  ok = ok && AddNode(g, OpType::kSoftmax, {add}, sm_attrs, &sm);
  if (ok) {
    g.outputs().push_back(sm);
    out.push_back(std::move(g));
  } else {
    std::fprintf(stderr, "kiln_loader_fuzz: seed graph inference failed; skipping it\n");
  }
  return out;
}

// Valid graphs, plus one whose Conv pads are near INT64_MAX (the overflow the fuzzer found in
// window geometry; the loader must refuse it in VerifyGraph, never overflow), plus a compiled
// form: FusedConv with its Relu and its weights packed Block16O.
std::vector<Graph> AllSeedGraphs() {
  std::vector<Graph> graphs = SeedGraphs();
  if (!graphs.empty()) {
    Graph hostile = graphs[0];
    Graph fused = graphs[0];
    for (Node& n : hostile.mutable_nodes()) {
      if (n.op == OpType::kConv) {
        n.attrs.Set("pads", std::vector<int64_t>(4, INT64_MAX - 5));
      }
    }
    graphs.push_back(std::move(hostile));
    for (Node& n : fused.mutable_nodes()) {
      if (n.op != OpType::kConv) continue;
      n.op = OpType::kFusedConv;
      n.attrs.Set("activation", std::string("relu"));
      Value& w = fused.value(n.inputs[1]);
      auto packed = PackLayout(Layout::kBlock16O, w.dtype, w.shape, w.constant->data(),
                               w.constant->size());
      if (!packed.ok()) std::abort();
      w.constant = ConstantBytes::FromVector(std::move(packed).value());
      w.layout = Layout::kBlock16O;
    }
    graphs.push_back(std::move(fused));
  }
  return graphs;
}

void WriteSeeds(const std::string& dir) {
  int n = 0;
  for (const Graph& g : AllSeedGraphs()) {
    // Every other seed carries an execution plan (streams + memory-plan sections).
    const ExecutionPlan plan = ExecutionPlan::Default(g);
    for (const char* compress : {"none", "zstd:3"}) {
      for (bool sign : {true, false}) {
        WriteOptions options;
        (void)ParseCompression(compress, &options);
        options.signing_key = sign ? &FuzzKey() : nullptr;
        options.metadata.created_unix = 1;
        if (sign) options.plan = &plan;
        auto image = SerializeModel(g, options);
        if (!image.ok()) {
          std::fprintf(stderr, "seed: %s\n", image.status().ToString().c_str());
          std::exit(1);
        }
        const std::string path = dir + "/seed" + std::to_string(n++) + ".kiln";
        std::ofstream(path, std::ios::binary)
            .write(reinterpret_cast<const char*>(image->data()),
                   static_cast<std::streamsize>(image->size()));
      }
    }
  }
  std::fprintf(stderr, "kiln_loader_fuzz: wrote %d seeds to %s\n", n, dir.c_str());
}

// Makes a structurally valid file's hashes match its (mutated) contents and drops the
// signature, so the stages behind the hash check see the mutation.
bool FixUp(const uint8_t* data, size_t size, std::vector<uint8_t>* out) {
  format::ReadLimits limits;
  limits.max_section_bytes = kFuzzSectionLimit;
  auto view = format::ParseContainer(data, size, limits);
  if (!view.ok()) return false;
  uint64_t end = format::SignedPrefixSize(view->header);
  for (const auto& e : view->sections) end = std::max(end, e.offset + e.stored_size);
  out->assign(data, data + end);
  for (size_t i = 0; i < view->sections.size(); ++i) {
    const auto& e = view->sections[i];
    const auto digest = signing::Sha256(data + e.offset, e.stored_size);
    std::memcpy(out->data() + format::kHeaderSize + i * view->header.section_entry_size + 32,
                digest.data(), digest.size());
  }
  format::Header h = view->header;
  h.flags &= ~format::kFlagSigned;
  h.signature_offset = 0;
  h.file_size = end;
  uint8_t header[format::kHeaderSize];
  format::EncodeHeader(h, header);
  std::memcpy(out->data(), header, format::kHeaderSize);
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  if (const char* dir = std::getenv("KILN_FUZZ_WRITE_SEEDS")) {
    WriteSeeds(dir);
    std::exit(0);
  }
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  LoadOptions options;
  options.max_section_bytes = kFuzzSectionLimit;
  // A fixed clock: validity windows then refuse or accept the same inputs on every day, so gate
  // runs stay reproducible.
  options.policy.clock = ClockPolicy::kFixed;
  options.policy.now_unix = 1798761600;  // 2027-01-01T00:00:00Z
  (void)Model::LoadFromMemory(nullptr, data, size, FuzzTrust(), options);
  std::vector<uint8_t> fixed;
  if (FixUp(data, size, &fixed)) {
    options.allow_unsigned = true;
    auto model = Model::LoadFromMemory(nullptr, fixed.data(), fixed.size(), FuzzTrust(), options);
    if (model.ok()) {
      // Touch what a caller would: every constant byte range must be readable (ASan checks).
      uint8_t sum = 0;
      for (const Value& v : (*model)->graph()->values()) {
        if (v.constant && v.constant->size()) sum ^= v.constant->data()[v.constant->size() - 1];
      }
      volatile uint8_t sink = sum;
      (void)sink;
      // A file with DSP command streams: the DSP executor validates every program against its
      // node before running it; a small model that passes runs once (instrumented) on zeros.
      if ((*model)->dsp_programs()) {
        uint64_t bytes = 0;
        for (const Value& v : (*model)->graph()->values()) bytes += v.byte_size();
        SessionOptions so;
        so.executors = {kExecutorDsp};
        so.backend_options.Mutable<DspOptions>().instrument = true;
        if (bytes < (uint64_t{16} << 20)) {
          auto session = Session::Create(**model, so);
          if (session.ok()) {
            for (size_t i = 0; i < (*session)->num_inputs(); ++i) {
              const Value& in = (*session)->input_info(i);
              (void)(*session)->SetInput(i, HostTensor(in.name, in.dtype, in.shape));
            }
            (void)(*session)->Run();
          }
        }
      }
    }
  }
  return 0;
}
