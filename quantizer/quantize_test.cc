// quant::Quantize on the shared MNIST model and digits: the int8 model, the sample split, the
// auto range search, shards that merge into one pass's statistics, and requests it refuses.
#include "quantizer/quantize.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>

#include "tests/test_support.h"

namespace kiln::quant {
namespace {

namespace fs = std::filesystem;

class QuantizeCall : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string shared = testing::SharedDir();
    model_ = shared + "/models/mnist/model.onnx";
    digits_ = shared + "/digits/t10k-images-first1000-idx3-ubyte";
    if (!fs::exists(model_) || !fs::exists(digits_)) GTEST_SKIP() << "no shared data";
    dir_ = fs::temp_directory_path() / ("kiln_quantize_test_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override {
    std::error_code ec;
    if (!dir_.empty()) fs::remove_all(dir_, ec);
  }

  // 12 digits, the last 2 held back, minmax ranges, no progress output.
  QuantizeRequest Request() const {
    QuantizeRequest r;
    r.model = model_;
    r.samples = digits_;
    r.preprocess = "gray";
    r.sample_count = 12;
    r.holdout = 2;
    r.config.range = *ParseRangeSpec("minmax");
    r.progress = false;
    return r;
  }
  std::string Path(const std::string& name) const { return (dir_ / name).string(); }

  std::string model_, digits_;
  fs::path dir_;
};

std::string ReadFile(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

TEST_F(QuantizeCall, QuantizesMnistIntoIntegerOps) {
  QuantizeRequest r = Request();
  r.accuracy_report = true;
  auto result = Quantize(r);
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  ASSERT_TRUE(result->model.has_value());
  int integer_ops = 0;
  for (const Node& n : result->model->graph.nodes()) {
    integer_ops += n.op == OpType::kQConv || n.op == OpType::kQGemm;
  }
  EXPECT_EQ(integer_ops, 3);               // two convolutions and the classifier
  EXPECT_EQ(result->stats->samples, 10u);  // 12 samples, 2 held back
  ASSERT_TRUE(result->report.has_value());
  EXPECT_EQ(result->report->samples, 2u);
  EXPECT_EQ(result->model_sha256.size(), 64u);
  EXPECT_EQ(RangeSpecName(result->config.range), "minmax");
  EXPECT_FALSE(result->range_choice.has_value());
}

TEST_F(QuantizeCall, AutoRangeTriesThreeCandidatesAndTellsEach) {
  QuantizeRequest r = Request();
  r.auto_range = true;
  int tried = 0, chosen = 0, compiled = 0;
  r.hooks.range_tried = [&](const RangeCandidate&) { ++tried; };
  r.hooks.range_chosen = [&](const RangeChoice&) { ++chosen; };
  r.hooks.compiled = [&](const CompiledModel&) { ++compiled; };
  auto result = Quantize(r);
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  EXPECT_EQ(tried, 3);
  EXPECT_EQ(chosen, 1);
  EXPECT_EQ(compiled, 1);
  ASSERT_TRUE(result->range_choice.has_value());
  ASSERT_EQ(result->range_choice->candidates.size(), 3u);
  EXPECT_EQ(result->range_choice->samples, 10u);
  EXPECT_EQ(RangeSpecName(result->config.range), RangeSpecName(result->range_choice->range));
}

// Two shards' statistics merge into the bytes of one pass over the same samples.
TEST_F(QuantizeCall, ShardsMergeIntoOnePassStatistics) {
  QuantizeRequest whole = Request();
  whole.compile = false;
  whole.stats_out = Path("all.stats");
  ASSERT_TRUE(Quantize(whole).ok());
  for (int i = 0; i < 2; ++i) {
    QuantizeRequest shard = Request();
    shard.shard = Shard{i, 2};
    shard.stats_out = Path("shard" + std::to_string(i) + ".stats");
    size_t calibrated = 0;
    shard.hooks.shard_calibrated = [&](const Shard&, size_t samples, size_t of) {
      calibrated = samples;
      EXPECT_EQ(of, 10u);
    };
    auto result = Quantize(shard);
    ASSERT_TRUE(result.ok()) << result.status().ToString();
    EXPECT_FALSE(result->model.has_value());
    EXPECT_EQ(calibrated, 5u);
  }
  QuantizeRequest merge = Request();
  merge.stats_files = {Path("shard0.stats"), Path("shard1.stats")};
  merge.stats_out = Path("merged.stats");
  auto merged = Quantize(merge);
  ASSERT_TRUE(merged.ok()) << merged.status().ToString();
  EXPECT_TRUE(merged->model.has_value());
  EXPECT_EQ(ReadFile(Path("merged.stats")), ReadFile(Path("all.stats")));

  // Statistics of another calibration set do not merge in.
  QuantizeRequest other = Request();
  other.sample_count = 20;
  other.stats_files = {Path("all.stats")};
  auto refused = Quantize(other);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("made for another"), std::string::npos);
}

// Each bad request fails with an InvalidArgument whose message contains `says`.
void ExpectRefused(const QuantizeRequest& r, const std::string& says) {
  auto result = Quantize(r);
  ASSERT_FALSE(result.ok()) << "expected: " << says;
  EXPECT_EQ(result.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(result.status().message().find(says), std::string::npos) << result.status().message();
}

TEST_F(QuantizeCall, RefusesBadRequestsNamingTheField) {
  QuantizeRequest r = Request();
  r.shard = Shard{3, 2};
  r.stats_out = Path("x.stats");
  ExpectRefused(r, "QuantizeRequest::shard 3/2: expected index/count with 0 <= index < count");

  r = Request();
  r.shard = Shard{0, 2};
  ExpectRefused(r, "set QuantizeRequest::stats_out");

  r = Request();
  r.samples.clear();
  ExpectRefused(r, "QuantizeRequest::samples is empty");

  r = Request();
  r.threads = 0;
  ExpectRefused(r, "QuantizeRequest::threads must be at least 1");

  r = Request();
  r.holdout = 12;
  ExpectRefused(r, "QuantizeRequest::holdout leaves no calibration samples");

  r = Request();
  r.holdout = 0;
  r.accuracy_report = true;
  ExpectRefused(r, "need held-back samples");

  r = Request();
  r.config.keep_float = {"no_such_node"};
  ExpectRefused(r, "QuantizeConfig::keep_float: the model has no node named 'no_such_node'");

  // A front end names the fields its own way.
  r.names.keep_float = "--keep-float";
  ExpectRefused(r, "--keep-float: the model has no node named 'no_such_node'");

  r = Request();
  r.budget.kind = BudgetSpec::kTop1;
  ExpectRefused(r, "QuantizeRequest::budget_images");
}

}  // namespace
}  // namespace kiln::quant
