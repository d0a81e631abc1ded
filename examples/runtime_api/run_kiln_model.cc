// The device product in ~100 lines: load a signed .kiln with a trust store, create a session,
// run it on zero-filled (or .raw) inputs. Links only kiln_runtime (no ONNX, no protobuf), and
// reports load time and resident memory, which is how the loader's footprint is measured.
//
//   kiln_runtime_example MODEL.kiln --pub KEY.pub [--allow-unsigned] [--map-weights]
//                        [--repeat-load N]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "runtime/model.h"
#include "runtime/session.h"

namespace {

// Reads a "Vm...:" line of /proc/self/status in KiB (VmRSS: now, VmHWM: peak so far).
long ProcStatusKb(const char* key) {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind(key, 0) == 0) return std::stol(line.substr(std::strlen(key)));
  }
  return -1;
}

int Fail(const kiln::Status& status) {
  std::fprintf(stderr, "error: %s\n", status.ToString().c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr,
                 "usage: %s MODEL.kiln [--pub KEY.pub]... [--allow-unsigned] [--map-weights] "
                 "[--repeat-load N]\n",
                 argv[0]);
    return 2;
  }
  const std::string path = argv[1];
  kiln::TrustStore trust;
  kiln::LoadOptions options;
  int repeat_load = 1;
  for (int i = 2; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--pub" && i + 1 < argc) {
      if (auto st = trust.AddPublicKeyFile(argv[++i]); !st.ok()) return Fail(st);
    } else if (arg == "--allow-unsigned") {
      options.allow_unsigned = true;
    } else if (arg == "--map-weights") {
      options.map_weights = true;
    } else if (arg == "--repeat-load" && i + 1 < argc) {
      repeat_load = std::max(1, std::atoi(argv[++i]));
    } else {
      std::fprintf(stderr, "unknown argument '%s'\n", arg.c_str());
      return 2;
    }
  }
  if (auto st = trust.AddFromEnvironment(); !st.ok()) return Fail(st);

  const long rss_before_kb = ProcStatusKb("VmRSS:");
  std::vector<double> load_ms;
  std::shared_ptr<const kiln::Model> model;
  for (int r = 0; r < repeat_load; ++r) {
    model.reset();
    const auto t0 = std::chrono::steady_clock::now();
    auto loaded = kiln::Model::Load(path, trust, options);
    const auto t1 = std::chrono::steady_clock::now();
    if (!loaded.ok()) return Fail(loaded.status());
    model = *loaded;
    load_ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
  }
  const long rss_after_load_kb = ProcStatusKb("VmRSS:");
  const long peak_after_load_kb = ProcStatusKb("VmHWM:");
  std::sort(load_ms.begin(), load_ms.end());
  std::printf("loaded %s: key %s, %zu nodes, weights %s\n", path.c_str(),
              model->info().is_signed ? model->info().key_id.c_str() : "(unsigned)",
              model->graph()->num_nodes(), model->info().weights_mapped ? "mapped" : "copied");
  std::printf("load+verify: median %.3f ms over %d load(s) (min %.3f ms)\n",
              load_ms[load_ms.size() / 2], repeat_load, load_ms.front());
  std::printf("rss: before load %ld KiB, after load %ld KiB, peak %ld KiB (load added %ld KiB)\n",
              rss_before_kb, rss_after_load_kb, peak_after_load_kb,
              peak_after_load_kb - rss_before_kb);

  auto session = kiln::Session::Create(model->graph());
  if (!session.ok()) return Fail(session.status());
  std::vector<kiln::HostTensor> inputs;
  for (size_t i = 0; i < (*session)->num_inputs(); ++i) {
    const kiln::Value& v = (*session)->input_info(i);
    inputs.emplace_back(v.name, v.dtype, v.shape);  // zero-filled
  }
  auto outputs = (*session)->Run(inputs);
  if (!outputs.ok()) return Fail(outputs.status());
  for (const kiln::HostTensor& t : *outputs) {
    std::printf("output %s: %s %s\n", t.name.c_str(), std::string(kiln::DTypeName(t.dtype)).c_str(),
                kiln::ShapeToString(t.shape).c_str());
  }
  return 0;
}
