// One command line for ONNX and TFLite: `kiln inspect/validate/compile/run` on the TFLite
// fixtures of tests/tflite/ through the built binary (NHWC inputs and outputs as the model
// declares them, .npy reference outputs), and clear errors, never a crash, on bad files.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "calibration/npy_io.h"
#include "tests/test_support.h"

namespace kiln {
namespace {

namespace fs = std::filesystem;

class CliTfliteTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ =
        (fs::path(::testing::TempDir()) / ("kiln_cli_tflite_" + std::to_string(getpid()))).string();
    fs::create_directories(dir_);
  }
  static void TearDownTestSuite() {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  static testing::CliResult Kiln(const std::string& args) { return testing::RunKiln(args, dir_); }
  static std::string Fixture(const std::string& name, const std::string& file = "") {
    const fs::path p = fs::path(KILN_SOURCE_DIR) / "tests" / "tflite" / name / file;
    return testing::ShellQuote(p.string());
  }
  static std::string Scratch(const std::string& file) {
    return testing::ShellQuote(dir_ + "/" + file);
  }
  static std::string dir_;
};
std::string CliTfliteTest::dir_;

TEST_F(CliTfliteTest, InspectShowsTheDeclaredNhwcSignature) {
  auto r = Kiln("inspect " + Fixture("head_float", "model.tflite"));
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("serving_default_x:0  f32 [1,8,8,4]"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("f32 [1,4,4,12]"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("source TFLite operators: 7"), std::string::npos) << r.out;
}

TEST_F(CliTfliteTest, ValidateReadsNpyReferences) {
  for (const char* name : {"cnn_float", "head_f16", "head_int8"}) {
    auto r = Kiln("validate " + Fixture(name, "model.tflite") + " --test-data " + Fixture(name));
    EXPECT_EQ(r.code, 0) << name << "\n" << r.out << r.err;
    EXPECT_NE(r.out.find("PASS: "), std::string::npos) << r.out;
  }
}

TEST_F(CliTfliteTest, CompiledFileRunsLikeTheSource) {
  auto r = Kiln("compile " + Fixture("cnn_int8", "model.tflite") + " -o " + Scratch("cnn.kiln"));
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("from 21 TFLite operators"), std::string::npos) << r.out;
  r = Kiln("inspect " + Scratch("cnn.kiln") + " --allow-unsigned");
  EXPECT_NE(r.out.find("source TFLite operators: 21"), std::string::npos) << r.out << r.err;
  r = Kiln("run " + Scratch("cnn.kiln") + " --allow-unsigned -i " +
           Fixture("cnn_int8", "input_0.npy") + " -o " + Scratch("out_kiln"));
  ASSERT_EQ(r.code, 0) << r.err;
  r = Kiln("run " + Fixture("cnn_int8", "model.tflite") + " -i " +
           Fixture("cnn_int8", "input_0.npy") + " -o " + Scratch("out_src"));
  ASSERT_EQ(r.code, 0) << r.err;
  auto bytes = [](const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  };
  const std::string a = bytes(dir_ + "/out_kiln/PartitionedCall_0.npy");
  EXPECT_FALSE(a.empty());
  EXPECT_EQ(a, bytes(dir_ + "/out_src/PartitionedCall_0.npy"));
}

// An int8 TFLite model large enough for the DSP's cost placement runs its convolutions there,
// bit-identical with the CPU's integer reference kernels and equal to LiteRT.
TEST_F(CliTfliteTest, Int8ModelRunsOnTheDsp) {
  const std::string model = Fixture("dsp_int8", "model.tflite");
  auto r = Kiln("validate " + model + " --test-data " + Fixture("dsp_int8") + " --device dsp");
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("placement: dsp 4"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("max_abs_err 0 "), std::string::npos) << r.out;
  const std::string input = " -i " + Fixture("dsp_int8", "input_0.npy");
  r = Kiln("run " + model + " --isa reference --device dsp --dsp-instrument" + input + " -o " +
           Scratch("dsp_out"));
  ASSERT_EQ(r.code, 0) << r.err;
  r = Kiln("run " + model + " --isa reference" + input + " -o " + Scratch("cpu_out"));
  ASSERT_EQ(r.code, 0) << r.err;
  auto bytes = [](const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  };
  const std::string dsp = bytes(dir_ + "/dsp_out/PartitionedCall_0.npy");
  EXPECT_FALSE(dsp.empty());
  EXPECT_EQ(dsp, bytes(dir_ + "/cpu_out/PartitionedCall_0.npy"));
}

// Kiln's own int8 quantization of a float TFLite model, calibrated on .npy samples (NHWC, as
// the model declares its input), against LiteRT's float output.
TEST_F(CliTfliteTest, QuantizeFloatModel) {
  auto input =
      ReadNpyFile((fs::path(KILN_SOURCE_DIR) / "tests/tflite/cnn_float/input_0.npy").string());
  ASSERT_TRUE(input.ok()) << input.status().ToString();
  fs::create_directories(dir_ + "/calib");
  for (int s = 0; s < 8; ++s) {
    HostTensor t = *input;
    for (int64_t i = 0; i < t.num_elements(); ++i) {
      t.data<float>()[i] = std::sin(0.37f * static_cast<float>(i + 97 * s));
    }
    ASSERT_TRUE(WriteNpyFile(dir_ + "/calib/s" + std::to_string(s) + ".npy", t).ok());
  }
  auto r = Kiln("quantize " + Fixture("cnn_float", "model.tflite") + " --calib " +
                Scratch("calib") + " -o " + Scratch("cnn_q.kiln"));
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("integer"), std::string::npos) << r.out;
  r = Kiln("validate " + Scratch("cnn_q.kiln") + " --allow-unsigned --test-data " +
           Fixture("cnn_float") + " --min-sqnr 25");
  EXPECT_EQ(r.code, 0) << r.out << r.err;
}

TEST_F(CliTfliteTest, BadFilesAndInputsFailCleanly) {
  const std::string model = Fixture("int8_op_conv", "model.tflite");
  {
    std::ifstream in(fs::path(KILN_SOURCE_DIR) / "tests/tflite/int8_op_conv/model.tflite",
                     std::ios::binary);
    std::string all((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::ofstream(dir_ + "/half.tflite", std::ios::binary) << all.substr(0, all.size() / 2);
  }
  auto r = Kiln("inspect " + Scratch("half.tflite"));
  EXPECT_TRUE(r.exited);
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("FlatBuffers verification"), std::string::npos) << r.err;
  EXPECT_TRUE(r.out.empty());
  // A float tensor for the int8 input, and one of the wrong shape.
  r = Kiln("run " + model + " -i " + Fixture("cnn_float", "input_0.npy"));
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("serving_default_x:0"), std::string::npos) << r.err;
  r = Kiln("run " + model + " --input-shape serving_default_x:0=1,4,4,4 -i " +
           Fixture("int8_op_conv", "input_0.npy"));
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("declared shapes"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace kiln
