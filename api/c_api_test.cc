// The C API (include/kiln/kiln.h) and its C++ wrapper (kiln/kiln.hpp) on a signed file written
// here: outputs equal to the runtime's own Session, every refusal a status with the runtime's
// code and message, lifetimes (a session outlives its model handle; a memory image may be
// freed after loading), and one model shared by 8 sessions running on 8 threads at once with
// outputs identical to a single-threaded run.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <thread>

#include "ir/op_schema.h"
#include "kernels/cpu_features.h"
#include "kiln/kiln.h"
#include "kiln/kiln.hpp"
#include "runtime/model.h"
#include "runtime/session.h"
#include "serializer/model_writer.h"
#include "serializer/signing.h"

namespace kiln {
namespace {

constexpr int64_t kWidth = 96;

// x[1, 96] -> (MatMul W[96, 96] -> Add B[96] -> Relu) x 3 -> y[1, 96]: enough work per run for
// concurrent sessions to overlap.
std::shared_ptr<Graph> MlpGraph() {
  auto g = std::make_shared<Graph>();
  g->name = "mlp";
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> dist(-0.2f, 0.2f);
  auto constant = [&](const std::string& name, Shape shape) {
    std::vector<float> v(static_cast<size_t>(NumElements(shape)));
    for (auto& x : v) x = dist(rng);
    return g->AddConstant(name, DType::kF32, shape, ConstantBytes::Copy(v.data(), v.size() * 4));
  };
  Value x;
  x.name = "x";
  x.dtype = DType::kF32;
  x.shape = {1, kWidth};
  x.shape_known = true;
  ValueId cur = g->AddValue(x);
  g->inputs().push_back(cur);
  auto add_node = [&](const std::string& name, OpType op, std::vector<ValueId> in) {
    Value out;
    out.name = name;
    const ValueId o = g->AddValue(out);
    Node n;
    n.name = name;
    n.op = op;
    n.opset = 17;
    n.inputs = std::move(in);
    n.outputs = {o};
    const NodeId id = g->AddNode(std::move(n));
    EXPECT_TRUE(InferNode(*g, id).ok());
    return o;
  };
  for (int layer = 0; layer < 3; ++layer) {
    const std::string l = std::to_string(layer);
    const ValueId mm =
        add_node("mm" + l, OpType::kMatMul, {cur, constant("W" + l, {kWidth, kWidth})});
    const ValueId add = add_node("add" + l, OpType::kAdd, {mm, constant("B" + l, {kWidth})});
    cur = add_node(layer == 2 ? "y" : "relu" + l, OpType::kRelu, {add});
  }
  g->outputs().push_back(cur);
  return g;
}

std::vector<float> Input(int seed) {
  std::vector<float> v(kWidth);
  for (int64_t i = 0; i < kWidth; ++i)
    v[static_cast<size_t>(i)] = 0.01f * static_cast<float>((i * 7 + seed * 13) % 97 - 48);
  return v;
}

// Owns a kiln_status for one assertion.
struct StatusHolder {
  kiln_status* s;
  ~StatusHolder() { kiln_status_free(s); }
};

// Asserts that a C API call succeeded (the status freed either way).
#define ASSERT_KILN_OK(call)                        \
  do {                                              \
    kiln_status* s_ = (call);                       \
    const kiln_code c_ = kiln_status_code(s_);      \
    const std::string m_ = kiln_status_message(s_); \
    kiln_status_free(s_);                           \
    ASSERT_EQ(c_, KILN_OK) << m_;                   \
  } while (0)

// The code and message of a call that must fail.
std::pair<kiln_code, std::string> Failure(kiln_status* s) {
  StatusHolder h{s};
  EXPECT_NE(s, nullptr);
  return {kiln_status_code(s), kiln_status_message(s)};
}

class CApiTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ =
        std::filesystem::temp_directory_path() / ("kiln_c_api_test_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
    auto key = signing::PrivateKey::Generate();
    ASSERT_TRUE(key.ok());
    key_ = std::make_unique<signing::PrivateKey>(std::move(*key));
    pem_ = *key_->public_key()->ToPem();
    key_id_ = key_->public_key()->key_id();
    graph_ = MlpGraph();
    WriteOptions options;
    options.signing_key = key_.get();
    options.metadata.model_id = "mlp";
    options.metadata.model_version = 7;
    path_ = (dir_ / "mlp.kiln").string();
    ASSERT_TRUE(WriteModelFile(*graph_, options, path_).ok());
    ASSERT_KILN_OK(kiln_trust_store_create(&trust_));
    ASSERT_KILN_OK(kiln_trust_store_add_key_pem(trust_, pem_.data(), pem_.size()));
  }
  void TearDown() override {
    kiln_trust_store_free(trust_);
    std::filesystem::remove_all(dir_);
  }
  // The runtime's own result for `input` (the reference the C API must equal).
  std::vector<float> Reference(const std::vector<float>& input) {
    TrustStore trust;
    EXPECT_TRUE(trust.AddPublicKeyPem(pem_).ok());
    auto model = Model::Load(path_, trust);
    EXPECT_TRUE(model.ok()) << model.status().ToString();
    SessionOptions options;
    options.cpu_max_isa = cpu::BestCpuIsa();
    auto session = Session::Create(**model, options);
    EXPECT_TRUE(session.ok()) << session.status().ToString();
    HostTensor x("x", DType::kF32, {1, kWidth});
    std::memcpy(x.bytes.data(), input.data(), x.bytes.size());
    auto out = (*session)->Run({x});
    EXPECT_TRUE(out.ok()) << out.status().ToString();
    std::vector<float> y(kWidth);
    std::memcpy(y.data(), (*out)[0].bytes.data(), y.size() * 4);
    return y;
  }

  std::vector<uint8_t> FileBytes() const {
    std::ifstream in(path_, std::ios::binary);
    return std::vector<uint8_t>((std::istreambuf_iterator<char>(in)),
                                std::istreambuf_iterator<char>());
  }

  std::filesystem::path dir_;
  std::unique_ptr<signing::PrivateKey> key_;
  std::string pem_, key_id_, path_;
  std::shared_ptr<Graph> graph_;
  kiln_trust_store* trust_ = nullptr;
};

TEST(CApi, VersionAndStatusBasics) {
  EXPECT_EQ(kiln_api_version(), static_cast<uint32_t>(KILN_API_VERSION));
  EXPECT_STRNE(kiln_version(), "");
  EXPECT_EQ(kiln_status_code(nullptr), KILN_OK);
  EXPECT_STREQ(kiln_status_message(nullptr), "");
  kiln_status_free(nullptr);
  EXPECT_EQ(kiln_dtype_size(KILN_DTYPE_FLOAT32), 4u);
  EXPECT_EQ(kiln_dtype_size(KILN_DTYPE_INT64), 8u);
  EXPECT_EQ(kiln_dtype_size(static_cast<kiln_dtype>(99)), 0u);
  EXPECT_STREQ(kiln_dtype_name(KILN_DTYPE_UINT8), "u8");
  EXPECT_STREQ(kiln_dtype_name(static_cast<kiln_dtype>(42)), "?");
}

TEST_F(CApiTest, RunsLikeTheRuntimeWithCallerAndSessionOwnedOutputs) {
  kiln_model* model = nullptr;
  ASSERT_KILN_OK(kiln_model_load(trust_, path_.c_str(), nullptr, &model));
  kiln_model_info info;
  kiln_model_get_info(model, &info);
  EXPECT_EQ(info.key_id, key_id_);
  EXPECT_STREQ(info.model_id, "mlp");
  EXPECT_EQ(info.model_version, 7u);
  EXPECT_GT(info.created_unix, 0);
  EXPECT_FALSE(info.has_not_after);

  kiln_session_options* options = nullptr;
  ASSERT_KILN_OK(kiln_session_options_create(&options));
  ASSERT_KILN_OK(kiln_session_options_set_threads(options, 2));
  kiln_session_options_set_profile(options, 1);
  kiln_session* session = nullptr;
  ASSERT_KILN_OK(kiln_session_create(model, options, &session));
  kiln_session_options_free(options);
  kiln_model_free(model);  // the session keeps it alive

  ASSERT_EQ(kiln_session_input_count(session), 1u);
  ASSERT_EQ(kiln_session_output_count(session), 1u);
  kiln_tensor_info in, out;
  ASSERT_KILN_OK(kiln_session_input_info(session, 0, &in));
  ASSERT_KILN_OK(kiln_session_output_info(session, 0, &out));
  EXPECT_STREQ(in.name, "x");
  EXPECT_EQ(in.dtype, KILN_DTYPE_FLOAT32);
  ASSERT_EQ(in.rank, 2u);
  EXPECT_EQ(in.shape[1], kWidth);
  EXPECT_EQ(in.byte_size, static_cast<size_t>(kWidth) * 4);
  EXPECT_STREQ(out.name, "y");
  size_t index = 9;
  ASSERT_KILN_OK(kiln_session_input_index(session, "x", &index));
  EXPECT_EQ(index, 0u);
  ASSERT_KILN_OK(kiln_session_output_index(session, "y", &index));
  EXPECT_EQ(index, 0u);

  for (int seed = 0; seed < 3; ++seed) {
    const std::vector<float> x = Input(seed);
    ASSERT_KILN_OK(kiln_session_set_input(session, 0, x.data(), x.size() * 4));
    ASSERT_KILN_OK(kiln_session_run(session));
    std::vector<float> y(kWidth);
    ASSERT_KILN_OK(kiln_session_get_output(session, 0, y.data(), y.size() * 4));
    const std::vector<float> ref = Reference(x);
    EXPECT_EQ(std::memcmp(y.data(), ref.data(), y.size() * 4), 0) << "seed " << seed;
    const void* data = nullptr;
    size_t size = 0;
    ASSERT_KILN_OK(kiln_session_output_data(session, 0, &data, &size));
    ASSERT_EQ(size, y.size() * 4);
    EXPECT_EQ(std::memcmp(data, ref.data(), size), 0);
  }
  ASSERT_EQ(kiln_session_profile_count(session), 9u);  // 3 x (MatMul, Add, Relu)
  kiln_profile_entry p;
  ASSERT_KILN_OK(kiln_session_profile(session, 0, &p));
  EXPECT_STREQ(p.executor, "cpu");
  EXPECT_EQ(p.runs, 3);
  EXPECT_EQ(kiln_session_warning_count(session), 0u);
  EXPECT_EQ(kiln_session_warning(session, 0), nullptr);
  kiln_session_free(session);
}

TEST_F(CApiTest, EveryRefusalIsAStatusWithTheRuntimesMessage) {
  kiln_model* model = nullptr;
  // A missing file, a file under a key the store does not hold, one byte flipped.
  auto [code, msg] =
      Failure(kiln_model_load(trust_, (dir_ / "absent.kiln").c_str(), nullptr, &model));
  EXPECT_NE(code, KILN_OK);
  EXPECT_NE(msg.find("absent.kiln"), std::string::npos) << msg;
  kiln_trust_store* empty = nullptr;
  ASSERT_KILN_OK(kiln_trust_store_create(&empty));
  std::tie(code, msg) = Failure(kiln_model_load(empty, path_.c_str(), nullptr, &model));
  EXPECT_EQ(code, KILN_PERMISSION_DENIED) << msg;
  kiln_trust_store_free(empty);
  std::vector<uint8_t> bytes = FileBytes();
  bytes[bytes.size() / 2] ^= 0x40;
  std::tie(code, msg) =
      Failure(kiln_model_load_from_memory(trust_, bytes.data(), bytes.size(), nullptr, &model));
  EXPECT_TRUE(code == KILN_PERMISSION_DENIED || code == KILN_DATA_LOSS) << msg;
  EXPECT_EQ(model, nullptr);  // out-parameters are written only on success

  // The trust policy: a minimum version above the file's (rule 'rollback'), an expiry passed.
  kiln_load_options* lo = nullptr;
  ASSERT_KILN_OK(kiln_load_options_create(&lo));
  ASSERT_KILN_OK(kiln_load_options_set_min_version(lo, "mlp", 8));
  std::tie(code, msg) = Failure(kiln_model_load(trust_, path_.c_str(), lo, &model));
  EXPECT_EQ(code, KILN_PERMISSION_DENIED);
  EXPECT_NE(msg.find("refused by rule 'rollback'"), std::string::npos) << msg;
  ASSERT_KILN_OK(kiln_load_options_set_min_version(lo, "mlp", 7));
  ASSERT_KILN_OK(kiln_model_load(trust_, path_.c_str(), lo, &model));
  kiln_load_options_free(lo);
  std::tie(code, msg) = Failure(kiln_load_options_set_min_version(nullptr, "mlp", 1));
  EXPECT_EQ(code, KILN_INVALID_ARGUMENT);

  // Session options and inputs the runtime refuses.
  kiln_session_options* so = nullptr;
  ASSERT_KILN_OK(kiln_session_options_create(&so));
  EXPECT_EQ(Failure(kiln_session_options_set_threads(so, 0)).first, KILN_INVALID_ARGUMENT);
  EXPECT_EQ(Failure(kiln_session_options_set_gpu_precision(so, "fp8")).first,
            KILN_INVALID_ARGUMENT);
  EXPECT_EQ(Failure(kiln_session_options_set_cpu_isa(so, "sse9")).first, KILN_INVALID_ARGUMENT);
  EXPECT_EQ(Failure(kiln_session_options_set_dsp_scratch(so, 3)).first, KILN_INVALID_ARGUMENT);
  const char* unknown[] = {"tpu"};
  ASSERT_KILN_OK(kiln_session_options_set_devices(so, unknown, 1));
  kiln_session* session = nullptr;
  std::tie(code, msg) = Failure(kiln_session_create(model, so, &session));
  EXPECT_NE(msg.find("tpu"), std::string::npos) << msg;
  kiln_session_options_free(so);
  ASSERT_KILN_OK(kiln_session_create(model, nullptr, &session));
  EXPECT_EQ(Failure(kiln_session_run(session)).first, KILN_INVALID_ARGUMENT);  // x not set
  const std::vector<float> x = Input(1);
  std::tie(code, msg) = Failure(kiln_session_set_input(session, 0, x.data(), 8));
  EXPECT_EQ(code, KILN_INVALID_ARGUMENT);
  EXPECT_NE(msg.find("expected 384"), std::string::npos) << msg;
  EXPECT_EQ(Failure(kiln_session_set_input(session, 1, x.data(), 384)).first,
            KILN_INVALID_ARGUMENT);
  size_t index = 0;
  std::tie(code, msg) = Failure(kiln_session_input_index(session, "z", &index));
  EXPECT_EQ(code, KILN_NOT_FOUND);
  EXPECT_NE(msg.find("inputs: x"), std::string::npos) << msg;
  std::vector<float> small(4);
  EXPECT_EQ(Failure(kiln_session_get_output(session, 0, small.data(), 16)).first,
            KILN_INVALID_ARGUMENT);
  kiln_tensor_info info;
  EXPECT_EQ(Failure(kiln_session_output_info(session, 3, &info)).first, KILN_INVALID_ARGUMENT);
  EXPECT_EQ(Failure(kiln_session_create(nullptr, nullptr, &session)).first, KILN_INVALID_ARGUMENT);
  kiln_session_free(session);
  kiln_model_free(model);
}

TEST_F(CApiTest, MemoryImageMayBeFreedAfterLoading) {
  kiln_model* model = nullptr;
  {
    std::vector<uint8_t> bytes = FileBytes();
    kiln_load_options* lo = nullptr;
    ASSERT_KILN_OK(kiln_load_options_create(&lo));
    kiln_load_options_set_map_weights(lo, 1);  // weights in place: in the API's own copy
    ASSERT_KILN_OK(kiln_model_load_from_memory(trust_, bytes.data(), bytes.size(), lo, &model));
    kiln_load_options_free(lo);
    std::fill(bytes.begin(), bytes.end(), 0xAB);
  }
  kiln_session* session = nullptr;
  ASSERT_KILN_OK(kiln_session_create(model, nullptr, &session));
  const std::vector<float> x = Input(2);
  ASSERT_KILN_OK(kiln_session_set_input(session, 0, x.data(), x.size() * 4));
  ASSERT_KILN_OK(kiln_session_run(session));
  std::vector<float> y(kWidth);
  ASSERT_KILN_OK(kiln_session_get_output(session, 0, y.data(), y.size() * 4));
  const std::vector<float> ref = Reference(x);
  EXPECT_EQ(std::memcmp(y.data(), ref.data(), y.size() * 4), 0);
  kiln_session_free(session);
  kiln_model_free(model);
}

// One loaded model, 8 sessions, 8 threads running at once (each its own inputs): every output
// equals the single-threaded result for the same input.
TEST_F(CApiTest, OneModelManySessionsConcurrently) {
  constexpr int kThreads = 8, kRuns = 150;
  kiln_model* model = nullptr;
  ASSERT_KILN_OK(kiln_model_load(trust_, path_.c_str(), nullptr, &model));
  std::vector<std::vector<float>> expected;
  for (int t = 0; t < kThreads; ++t) expected.push_back(Reference(Input(t)));
  std::vector<kiln_session*> sessions(kThreads, nullptr);
  std::vector<std::thread> threads;
  std::vector<int> mismatches(kThreads, 0), failures(kThreads, 0);
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      // Sessions are made concurrently too.
      if (kiln_status* s = kiln_session_create(model, nullptr, &sessions[t])) {
        kiln_status_free(s);
        failures[t]++;
        return;
      }
      const std::vector<float> x = Input(t);
      std::vector<float> y(kWidth);
      for (int r = 0; r < kRuns; ++r) {
        kiln_status* s = kiln_session_set_input(sessions[t], 0, x.data(), x.size() * 4);
        if (!s) s = kiln_session_run(sessions[t]);
        if (!s) s = kiln_session_get_output(sessions[t], 0, y.data(), y.size() * 4);
        if (s) {
          kiln_status_free(s);
          failures[t]++;
          continue;
        }
        if (std::memcmp(y.data(), expected[t].data(), y.size() * 4) != 0) mismatches[t]++;
      }
    });
  }
  for (auto& th : threads) th.join();
  for (int t = 0; t < kThreads; ++t) {
    EXPECT_EQ(failures[t], 0) << "thread " << t;
    EXPECT_EQ(mismatches[t], 0) << "thread " << t;
    kiln_session_free(sessions[t]);
  }
  kiln_model_free(model);
}

TEST_F(CApiTest, CppWrapperThrowsTheRuntimesError) {
  api::TrustStore trust;
  trust.AddKeyPem(pem_);
  api::Model model(trust, path_);
  EXPECT_EQ(model.Info().model_version, 7u);
  api::Session session(model, api::SessionOptions().Threads(1).CpuIsa("reference"));
  const std::vector<float> x = Input(4);
  session.SetInput(session.InputIndex("x"), x.data(), x.size() * 4);
  session.Run();
  const auto [data, size] = session.OutputData(session.OutputIndex("y"));
  ASSERT_EQ(size, static_cast<size_t>(kWidth) * 4);
  const std::vector<float> ref = Reference(x);
  for (int64_t i = 0; i < kWidth; ++i) {
    EXPECT_NEAR(static_cast<const float*>(data)[i], ref[static_cast<size_t>(i)], 1e-5f);
  }
  try {
    api::LoadOptions lo;
    lo.MinVersion("mlp", 9);
    api::Model refused(trust, path_, &lo);
    ADD_FAILURE() << "a rolled-back model loaded";
  } catch (const api::Error& e) {
    EXPECT_EQ(e.code(), KILN_PERMISSION_DENIED);
    EXPECT_NE(std::string(e.what()).find("rollback"), std::string::npos) << e.what();
  }
  EXPECT_THROW(session.SetInput(0, x.data(), 4), api::Error);
}

}  // namespace
}  // namespace kiln
