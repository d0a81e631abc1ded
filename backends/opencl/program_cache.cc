// Program builds with the embedded-binary and on-disk caches.
#include "backends/opencl/program_cache.h"

#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "backends/opencl/cl_api.h"
#include "backends/opencl/cl_log.h"
#include "backends/opencl/kernels/cl_program.h"
#include "serializer/format.h"
#include "serializer/signing.h"

namespace kiln::opencl {
namespace {

constexpr const char* kCacheMagic = "KILNCLB1";

double MsSince(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

std::string BuildLog(cl_program p, cl_device_id d) {
  size_t n = 0;
  clGetProgramBuildInfo(p, d, CL_PROGRAM_BUILD_LOG, 0, nullptr, &n);
  std::string log(n, '\0');
  if (n) clGetProgramBuildInfo(p, d, CL_PROGRAM_BUILD_LOG, n, log.data(), nullptr);
  if (log.size() > 4000) log = log.substr(0, 4000) + "...";
  return log;
}

// Creates and builds a program from a device binary; null on any failure (the caller falls
// back to the next source, so a corrupt or foreign binary only costs a rebuild).
cl_program FromBinary(cl_context ctx, const DeviceInfo& dev, const std::vector<uint8_t>& bin,
                      const std::string& options, std::string* why) {
  const size_t len = bin.size();
  const unsigned char* ptr = bin.data();
  cl_int status = CL_SUCCESS, err = CL_SUCCESS;
  cl_program p = api::CreateProgramWithBinary(ctx, 1, &dev.device, &len, &ptr, &status, &err);
  if (err != CL_SUCCESS || status != CL_SUCCESS) {
    *why =
        std::string("clCreateProgramWithBinary: ") + ClErrorName(err != CL_SUCCESS ? err : status);
    if (p) clReleaseProgram(p);
    return nullptr;
  }
  err = api::BuildProgram(p, 1, &dev.device, options.c_str());
  if (err != CL_SUCCESS) {
    *why = std::string("clBuildProgram(binary): ") + ClErrorName(err);
    clReleaseProgram(p);
    return nullptr;
  }
  return p;
}

std::string CachePath(const std::string& dir, const DeviceInfo& dev, GpuPrecision precision) {
  return dir + "/opencl-" + SanitizeName(dev.name) + "-" + GpuPrecisionName(precision) + ".bin";
}

struct CacheFile {
  std::string device, driver, hash;
  std::vector<uint8_t> binary;
};

// Reads a cache file; false when missing or malformed.
bool ReadCache(const std::string& path, CacheFile* out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::string line;
  if (!std::getline(in, line) || line != kCacheMagic) return false;
  size_t size = 0;
  while (std::getline(in, line) && !line.empty()) {
    const size_t eq = line.find('=');
    if (eq == std::string::npos) return false;
    const std::string k = line.substr(0, eq), v = line.substr(eq + 1);
    if (k == "device") out->device = v;
    if (k == "driver") out->driver = v;
    if (k == "hash") out->hash = v;
    if (k == "size") size = std::strtoull(v.c_str(), nullptr, 10);
  }
  if (size == 0 || size > (size_t{1} << 30)) return false;
  out->binary.resize(size);
  in.read(reinterpret_cast<char*>(out->binary.data()), static_cast<std::streamsize>(size));
  return static_cast<size_t>(in.gcount()) == size;
}

void WriteCache(const std::string& path, const DeviceInfo& dev, const ProgramSource& src,
                const std::vector<uint8_t>& binary) {
  std::ostringstream head;
  head << kCacheMagic << "\ndevice=" << dev.name << "\ndriver=" << dev.driver
       << "\nhash=" << src.hash << "\nprecision=" << GpuPrecisionName(src.precision)
       << "\nsize=" << binary.size() << "\n\n";
  const std::string tmp = path + ".tmp" + std::to_string(::getpid());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) {
      ClLog().warn("cannot write the program cache {}", tmp);
      return;
    }
    const std::string h = head.str();
    out.write(h.data(), static_cast<std::streamsize>(h.size()));
    out.write(reinterpret_cast<const char*>(binary.data()),
              static_cast<std::streamsize>(binary.size()));
    if (!out) {
      ClLog().warn("cannot write the program cache {}", tmp);
      return;
    }
  }
  ::chmod(tmp.c_str(), 0600);
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) ClLog().warn("cannot write the program cache {}: {}", path, ec.message());
}

}  // namespace

std::string ResolveCacheDir(const std::string& configured) {
  std::string dir = configured;
  if (dir == "-") return "";
  if (dir.empty()) {
    if (const char* env = std::getenv("KILN_CACHE_DIR")) dir = env;
  }
  if (dir == "-") return "";
  if (dir.empty()) {
    if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) {
      dir = std::string(xdg) + "/kiln";
    } else if (const char* home = std::getenv("HOME"); home && *home) {
      dir = std::string(home) + "/.cache/kiln";
    } else {
      return "";
    }
  }
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) {
    ClLog().warn("program cache disabled: cannot create {}: {}", dir, ec.message());
    return "";
  }
  ::chmod(dir.c_str(), 0700);
  return dir;
}

ProgramSource MakeProgramSource(GpuPrecision precision) {
  ProgramSource s;
  s.precision = precision;
  s.text = ClProgramSource(precision == GpuPrecision::kFp16);
  s.options = ClBuildOptions();
  const std::string keyed = s.options + "\n" + s.text;
  const signing::Sha256Digest d =
      signing::Sha256(reinterpret_cast<const uint8_t*>(keyed.data()), keyed.size());
  s.hash = format::HexEncode(d.data(), d.size());
  return s;
}

Expected<std::vector<uint8_t>> ProgramBinary(cl_program program) {
  size_t size = 0;
  KILN_RETURN_IF_ERROR(
      ClCheck(api::GetProgramInfo(program, CL_PROGRAM_BINARY_SIZES, sizeof(size), &size, nullptr),
              "clGetProgramInfo(CL_PROGRAM_BINARY_SIZES)"));
  if (size == 0) return Unsupported("the OpenCL driver gives no program binary");
  std::vector<uint8_t> bin(size);
  unsigned char* ptr = bin.data();
  KILN_RETURN_IF_ERROR(
      ClCheck(api::GetProgramInfo(program, CL_PROGRAM_BINARIES, sizeof(ptr), &ptr, nullptr),
              "clGetProgramInfo(CL_PROGRAM_BINARIES)"));
  return bin;
}

Expected<BuiltProgram> BuildProgram(cl_context ctx, const DeviceInfo& dev, const ProgramSource& src,
                                    const std::string& cache_dir, const KernelBinaries* embedded) {
  const auto t0 = std::chrono::steady_clock::now();
  const std::string precision = GpuPrecisionName(src.precision);
  BuiltProgram out;
  // 1. Embedded in the model for this very device, driver and source.
  if (embedded && embedded->device == dev.name) {
    std::string mismatch;
    if (embedded->driver != dev.driver) {
      mismatch = "driver " + embedded->driver + " (this one: " + dev.driver + ")";
    }
    for (const auto& p : embedded->programs) {
      if (p.precision != precision) continue;
      if (p.source_hash != src.hash) {
        mismatch = "kernel source " + p.source_hash.substr(0, 12) +
                   " (this runtime's: " + src.hash.substr(0, 12) + ")";
        continue;
      }
      if (!mismatch.empty()) break;
      std::string why;
      if (cl_program p2 = FromBinary(ctx, dev, p.binary, src.options, &why)) {
        out.program = p2;
        out.origin = "embedded";
        out.ms = MsSince(t0);
        ClLog().debug("{} program from the model's embedded binaries ({:.1f} ms)", precision,
                      out.ms);
        return out;
      }
      mismatch = why;
    }
    if (!mismatch.empty()) {
      ClLog().warn("the model's embedded {} binaries for {} do not fit: {}; compiling", precision,
                   dev.name, mismatch);
    }
  }
  // 2. The disk cache.
  const std::string path = cache_dir.empty() ? "" : CachePath(cache_dir, dev, src.precision);
  CacheFile cached;
  if (!path.empty() && ReadCache(path, &cached)) {
    std::string stale;
    if (cached.device != dev.name) stale = "device '" + cached.device + "'";
    if (cached.driver != dev.driver) stale = "driver " + cached.driver + ", now " + dev.driver;
    if (cached.hash != src.hash) stale = "kernel source changed";
    if (stale.empty()) {
      std::string why;
      if (cl_program p = FromBinary(ctx, dev, cached.binary, src.options, &why)) {
        out.program = p;
        out.origin = "cache";
        out.ms = MsSince(t0);
        ClLog().debug("{} program from cache {} ({:.1f} ms)", precision, path, out.ms);
        return out;
      }
      stale = why;
    }
    ClLog().warn("stale program cache {} ({}): rebuilding", path, stale);
  }
  // 3. JIT from source, then cached.
  const char* text = src.text.c_str();
  const size_t len = src.text.size();
  cl_int err = CL_SUCCESS;
  cl_program p = api::CreateProgramWithSource(ctx, 1, &text, &len, &err);
  KILN_RETURN_IF_ERROR(ClCheck(err, "clCreateProgramWithSource"));
  err = api::BuildProgram(p, 1, &dev.device, src.options.c_str());
  if (err != CL_SUCCESS) {
    const std::string log = BuildLog(p, dev.device);
    clReleaseProgram(p);
    return Internal(std::string("OpenCL: clBuildProgram of the ") + precision + " kernels for " +
                    dev.name + " failed: " + ClErrorName(err) + "\n" + log);
  }
  out.program = p;
  out.origin = "jit";
  out.ms = MsSince(t0);
  if (const std::string log = BuildLog(p, dev.device);
      log.find_first_not_of(" \n\r\t") != std::string::npos) {
    ClLog().debug("build log:\n{}", log);
  }
  ClLog().info("compiled the {} kernels for {} in {:.0f} ms{}", precision, dev.name, out.ms,
               path.empty() ? " (program cache off)" : ", caching them in " + path);
  if (!path.empty()) {
    auto bin = ProgramBinary(p);
    if (bin.ok()) {
      WriteCache(path, dev, src, *bin);
    } else {
      ClLog().warn("program not cached: {}", bin.status().message());
    }
  }
  return out;
}

}  // namespace kiln::opencl
