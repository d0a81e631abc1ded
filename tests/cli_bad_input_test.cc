// Runs the built `kiln` binary on bad input (corrupt models, unsupported ops, wrong shapes and
// dtypes, missing files) and checks it fails cleanly: non-zero exit, no signal, a clear message.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>

#include "calibration/npy_io.h"
#include "tests/test_support.h"

namespace kiln {
namespace {

namespace fs = std::filesystem;

using testing::CliResult;

std::string Quote(const std::string& s) { return testing::ShellQuote(s); }

class CliBadInput : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = fs::path(::testing::TempDir()) / ("kiln_cli_bad_input_" + std::to_string(getpid()));
    fs::create_directories(dir_);
    WriteTinyModel();
    WriteBigInitializerModel();
    WriteUnsupportedOpModel();
    HostTensor x("x", DType::kF32, {1, 4});
    const float v[] = {-1.f, 2.f, -3.f, 4.f};
    std::memcpy(x.bytes.data(), v, sizeof(v));
    ASSERT_TRUE(WriteNpyFile(Path("x.npy"), x).ok());
    ASSERT_TRUE(WriteNpyFile(Path("x_wrong_shape.npy"), HostTensor("x", DType::kF32, {1, 5})).ok());
    ASSERT_TRUE(WriteNpyFile(Path("x_i64.npy"), HostTensor("x", DType::kI64, {1, 4})).ok());
    std::ofstream(Path("junk.png"), std::ios::binary) << "\x89PNG\r\n\x1a\nthis is not a png";
    std::mt19937 rng(1234);
    std::string random(4096, '\0');
    for (char& c : random) c = static_cast<char>(rng());
    std::ofstream(Path("random.onnx"), std::ios::binary) << random;
  }
  static void TearDownTestSuite() {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }

  static std::string Path(const std::string& name) { return (dir_ / name).string(); }

  static void Save(const onnx::ModelProto& m, const std::string& name) {
    std::ofstream out(Path(name), std::ios::binary);
    ASSERT_TRUE(m.SerializeToOstream(&out));
  }

  static onnx::ModelProto NewModel() {
    onnx::ModelProto m;
    m.set_ir_version(8);
    m.add_opset_import()->set_version(17);
    m.mutable_graph()->set_name("g");
    return m;
  }

  static void AddFloatIo(onnx::ValueInfoProto* vi, const std::string& name,
                         std::vector<int64_t> dims) {
    vi->set_name(name);
    auto* tt = vi->mutable_type()->mutable_tensor_type();
    tt->set_elem_type(onnx::TensorProto::FLOAT);
    auto* shape = tt->mutable_shape();
    for (int64_t d : dims) shape->add_dim()->set_dim_value(d);
  }

  // y = Relu(x), x: float [1,4].
  static void WriteTinyModel() {
    auto m = NewModel();
    auto* g = m.mutable_graph();
    AddFloatIo(g->add_input(), "x", {1, 4});
    AddFloatIo(g->add_output(), "y", {1, 4});
    auto* n = g->add_node();
    n->set_op_type("Relu");
    n->set_name("relu");
    n->add_input("x");
    n->add_output("y");
    Save(m, "tiny.onnx");
  }

  // y = x + w with a 4000-byte initializer; the file is then cut inside the initializer's bytes.
  static void WriteBigInitializerModel() {
    auto m = NewModel();
    auto* g = m.mutable_graph();
    AddFloatIo(g->add_input(), "x", {1, 1000});
    AddFloatIo(g->add_output(), "y", {1, 1000});
    auto* w = g->add_initializer();
    w->set_name("w");
    w->set_data_type(onnx::TensorProto::FLOAT);
    w->add_dims(1000);
    w->set_raw_data(std::string(4000, '\x01'));
    auto* n = g->add_node();
    n->set_op_type("Add");
    n->add_input("x");
    n->add_input("w");
    n->add_output("y");
    std::string bytes;
    ASSERT_TRUE(m.SerializeToString(&bytes));
    std::ofstream(Path("truncated.onnx"), std::ios::binary) << bytes.substr(0, bytes.size() / 2);
  }

  // Det is a standard ONNX op Kiln does not implement.
  static void WriteUnsupportedOpModel() {
    auto m = NewModel();
    auto* g = m.mutable_graph();
    AddFloatIo(g->add_input(), "x", {2, 2});
    AddFloatIo(g->add_output(), "y", {});
    auto* n = g->add_node();
    n->set_op_type("Det");
    n->set_name("det_node");
    n->add_input("x");
    n->add_output("y");
    Save(m, "unsupported_op.onnx");
  }

  static CliResult Kiln(const std::string& args) { return testing::RunKiln(args, dir_.string()); }

  // A clean failure: exited (no signal, and not the shell's 126/127 for a missing binary),
  // non-zero, with `needle` in the message on stderr.
  static void ExpectCleanFailure(const std::string& args, const std::string& needle) {
    SCOPED_TRACE("kiln " + args);
    const CliResult r = Kiln(args);
    ASSERT_TRUE(r.exited) << "killed by a signal; stderr: " << r.err;
    EXPECT_NE(r.code, 0) << "stdout: " << r.out;
    EXPECT_LT(r.code, 126) << "shell could not run kiln: " << r.err;
    EXPECT_NE(r.err.find(needle), std::string::npos)
        << "stderr does not mention '" << needle << "':\n"
        << r.err;
  }

  static fs::path dir_;
};

fs::path CliBadInput::dir_;

// Control: the fixtures are good, so the failures below are caused by what each test breaks.
TEST_F(CliBadInput, GoodInputRuns) {
  const CliResult r =
      Kiln("run " + Quote(Path("tiny.onnx")) + " --input x=" + Quote(Path("x.npy")) +
           " --output-dir " + Quote(Path("out")));
  ASSERT_TRUE(r.exited);
  ASSERT_EQ(r.code, 0) << r.err;
  auto y = ReadNpyFile(Path("out/y.npy"));
  ASSERT_TRUE(y.ok()) << y.status().ToString();
  ASSERT_EQ(y->shape, (Shape{1, 4}));
  EXPECT_EQ(y->data<float>()[0], 0.f);
  EXPECT_EQ(y->data<float>()[3], 4.f);
}

TEST_F(CliBadInput, TruncatedOnnx) {
  ExpectCleanFailure("inspect " + Quote(Path("truncated.onnx")), "truncated.onnx");
  ExpectCleanFailure("run " + Quote(Path("truncated.onnx")) + " --input x=" + Quote(Path("x.npy")),
                     "truncated.onnx");
}

TEST_F(CliBadInput, RandomBytes) {
  ExpectCleanFailure("inspect " + Quote(Path("random.onnx")), "random.onnx");
  ExpectCleanFailure("run " + Quote(Path("random.onnx")) + " --input x=" + Quote(Path("x.npy")),
                     "random.onnx");
}

TEST_F(CliBadInput, UnsupportedOp) {
  ExpectCleanFailure("inspect " + Quote(Path("unsupported_op.onnx")), "Det");
}

TEST_F(CliBadInput, WrongInputShape) {
  ExpectCleanFailure(
      "run " + Quote(Path("tiny.onnx")) + " --input x=" + Quote(Path("x_wrong_shape.npy")),
      "[1,5]");
}

TEST_F(CliBadInput, WrongInputDtype) {
  ExpectCleanFailure("run " + Quote(Path("tiny.onnx")) + " --input x=" + Quote(Path("x_i64.npy")),
                     "i64");
}

TEST_F(CliBadInput, MissingInput) {
  ExpectCleanFailure("run " + Quote(Path("tiny.onnx")), "missing");
}

TEST_F(CliBadInput, WrongInputName) {
  ExpectCleanFailure("run " + Quote(Path("tiny.onnx")) + " --input nope=" + Quote(Path("x.npy")),
                     "no input named 'nope'");
}

TEST_F(CliBadInput, MissingModelFile) {
  ExpectCleanFailure(
      "run " + Quote(Path("no_such_model.onnx")) + " --input x=" + Quote(Path("x.npy")),
      "not found");
  ExpectCleanFailure("inspect " + Quote(Path("no_such_model.onnx")), "not found");
  ExpectCleanFailure(
      "validate " + Quote(Path("no_such_model.onnx")) + " --test-data " + Quote(Path("")),
      "not found");
}

TEST_F(CliBadInput, MissingInputFile) {
  ExpectCleanFailure("run " + Quote(Path("tiny.onnx")) + " --input x=" + Quote(Path("no_such.npy")),
                     "not found");
}

// A --keep-float / --int16 name the model does not have is an error, not a silent no-op.
TEST_F(CliBadInput, QuantizeUnknownNodeNames) {
  const std::string base = "quantize " + Quote(Path("tiny.onnx")) + " --calib " +
                           Quote(Path("x.npy")) + " -o " + Quote(Path("q.kiln"));
  ExpectCleanFailure(base + " --keep-float no_such_node", "no node named 'no_such_node'");
  ExpectCleanFailure(base + " --int16 @depthwise,no_such_node", "no node named 'no_such_node'");
  ExpectCleanFailure(base + " --act sym-i32", "expected asym-u8, sym-i8 or sym-i16");
}

TEST_F(CliBadInput, BadPreprocessSpecAndUnreadableImage) {
  ExpectCleanFailure("run " + Quote(Path("tiny.onnx")) + " --input x=" + Quote(Path("x.npy")) +
                         " --preprocess resize=banana",
                     "preprocess");
  ExpectCleanFailure("run " + Quote(Path("tiny.onnx")) + " --input x=" + Quote(Path("junk.png")),
                     "cannot decode image");
}

// validate: exit 0 when the reference matches, 2 (a clean failure) when it does not.
TEST_F(CliBadInput, ValidateExitCodes) {
  auto write_pb = [](const std::string& path, const std::string& name, std::vector<float> v) {
    onnx::TensorProto t;
    t.set_name(name);
    t.set_data_type(onnx::TensorProto::FLOAT);
    t.add_dims(1);
    t.add_dims(static_cast<int64_t>(v.size()));
    t.set_raw_data(std::string(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(float)));
    std::ofstream out(path, std::ios::binary);
    ASSERT_TRUE(t.SerializeToOstream(&out));
  };
  for (const std::string set : {"good", "bad"}) fs::create_directories(Path(set));
  write_pb(Path("good/input_0.pb"), "", {-1, 2, -3, 4});  // unnamed: matched by position
  write_pb(Path("good/output_0.pb"), "y", {0, 2, 0, 4});
  write_pb(Path("bad/input_0.pb"), "x", {-1, 2, -3, 4});
  write_pb(Path("bad/output_0.pb"), "y", {0, 2, 0, 5});
  const CliResult good =
      Kiln("validate " + Quote(Path("tiny.onnx")) + " --test-data " + Quote(Path("good")));
  ASSERT_TRUE(good.exited);
  EXPECT_EQ(good.code, 0) << good.out << good.err;
  EXPECT_NE(good.out.find("PASS y"), std::string::npos) << good.out;
  const CliResult bad =
      Kiln("validate " + Quote(Path("tiny.onnx")) + " --test-data " + Quote(Path("bad")));
  ASSERT_TRUE(bad.exited);
  EXPECT_EQ(bad.code, 2) << bad.out << bad.err;
  EXPECT_NE(bad.out.find("FAIL y: max_abs_err 1"), std::string::npos) << bad.out;
}

TEST_F(CliBadInput, ValidateWithoutTestData) {
  ExpectCleanFailure(
      "validate " + Quote(Path("tiny.onnx")) + " --test-data " + Quote(Path("no_such_dir")),
      "not a directory");
}

}  // namespace
}  // namespace kiln

namespace kiln {
namespace {

std::string Seed(const std::string& name) {
  return std::string(KILN_SOURCE_DIR) + "/tests/fuzz/corpus/onnx_import/" + name + ".onnx";
}

// Issue 11: a symbolic batch dim no longer stops the import; one note names input and dim.
TEST_F(CliBadInput, SymbolicBatchDefaultsToOneWithANote) {
  const CliResult r = Kiln("inspect " + Quote(Seed("symbolic_batch")));
  ASSERT_TRUE(r.exited);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.err,
            "kiln: note: input 'x': symbolic batch dim 0 ('N') set to 1 (pass --input-shape "
            "x=D0,D1,... for another size)\n");
  EXPECT_NE(r.out.find("x  f32 [1,3]"), std::string::npos) << r.out;
  const CliResult given = Kiln("inspect " + Quote(Seed("symbolic_batch")) + " --input-shape x=4,3");
  ASSERT_EQ(given.code, 0) << given.err;
  EXPECT_EQ(given.err, "");
  EXPECT_NE(given.out.find("x  f32 [4,3]"), std::string::npos) << given.out;
}

// Issue 11: the graph whose output no node produces (test_gather_0 with y renamed to G) used to
// segfault inside onnx's version converter; now a clean error and exit 1.
TEST_F(CliBadInput, GraphOutputThatNoNodeProduces) {
  ExpectCleanFailure("inspect " + Quote(Seed("gather_output_not_produced")),
                     "graph output 'G' is not produced");
  ExpectCleanFailure("inspect " + Quote(Seed("bfloat16_input")), "BFLOAT16");
}

}  // namespace
}  // namespace kiln
