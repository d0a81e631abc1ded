// Platform and device discovery.
#include "backends/opencl/opencl_device.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>

#include "backends/opencl/cl_api.h"

namespace kiln::opencl {
namespace {

std::string PlatformString(cl_platform_id p, cl_platform_info what) {
  size_t n = 0;
  if (clGetPlatformInfo(p, what, 0, nullptr, &n) != CL_SUCCESS || n == 0) return "";
  std::string s(n, '\0');
  clGetPlatformInfo(p, what, n, s.data(), nullptr);
  while (!s.empty() && (s.back() == '\0' || s.back() == ' ')) s.pop_back();
  return s;
}

std::string DeviceString(cl_device_id d, cl_device_info what) {
  size_t n = 0;
  if (clGetDeviceInfo(d, what, 0, nullptr, &n) != CL_SUCCESS || n == 0) return "";
  std::string s(n, '\0');
  clGetDeviceInfo(d, what, n, s.data(), nullptr);
  while (!s.empty() && (s.back() == '\0' || s.back() == ' ')) s.pop_back();
  return s;
}

template <typename T>
T DeviceValue(cl_device_id d, cl_device_info what) {
  T v{};
  clGetDeviceInfo(d, what, sizeof(T), &v, nullptr);
  return v;
}

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// cl_khr_icd's "no platform" (CL/cl_ext.h), returned by ICD loaders that find no driver.
constexpr cl_int kPlatformNotFoundKhr = -1001;

// No ICD or no platform is an absent device (NotFound: the session goes on without it); any
// other error is a failure of the driver that is there.
Expected<std::vector<cl_platform_id>> Platforms() {
  cl_uint n = 0;
  const cl_int err = api::GetPlatformIDs(0, nullptr, &n);
  if (err == kPlatformNotFoundKhr || (err == CL_SUCCESS && n == 0)) {
    return NotFound(std::string("no OpenCL platform found (clGetPlatformIDs: ") +
                    (err == CL_SUCCESS ? "0 platforms" : ClErrorName(err)) +
                    "); install a driver with an ICD under /etc/OpenCL/vendors (e.g. "
                    "pocl-opencl-icd, or the GPU vendor's)");
  }
  KILN_RETURN_IF_ERROR(ClCheck(err, "clGetPlatformIDs"));
  std::vector<cl_platform_id> ps(n);
  KILN_RETURN_IF_ERROR(ClCheck(api::GetPlatformIDs(n, ps.data(), nullptr), "clGetPlatformIDs"));
  return ps;
}

// The platform's devices, GPUs first (none: CL_DEVICE_NOT_FOUND; other errors are failures).
Expected<std::vector<DeviceInfo>> Devices(cl_platform_id p) {
  std::vector<DeviceInfo> out;
  cl_uint n = 0;
  const cl_int err = api::GetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 0, nullptr, &n);
  if (err == CL_DEVICE_NOT_FOUND || (err == CL_SUCCESS && n == 0)) return out;
  KILN_RETURN_IF_ERROR(ClCheck(err, "clGetDeviceIDs"));
  std::vector<cl_device_id> ds(n);
  KILN_RETURN_IF_ERROR(
      ClCheck(api::GetDeviceIDs(p, CL_DEVICE_TYPE_ALL, n, ds.data(), nullptr), "clGetDeviceIDs"));
  for (cl_device_id d : ds) {
    DeviceInfo info;
    info.platform = p;
    info.device = d;
    info.platform_name = PlatformString(p, CL_PLATFORM_NAME);
    info.name = DeviceString(d, CL_DEVICE_NAME);
    info.vendor = DeviceString(d, CL_DEVICE_VENDOR);
    info.driver = DeviceString(d, CL_DRIVER_VERSION);
    info.version = DeviceString(d, CL_DEVICE_VERSION);
    info.is_gpu = (DeviceValue<cl_device_type>(d, CL_DEVICE_TYPE) & CL_DEVICE_TYPE_GPU) != 0;
    info.has_fp16 = DeviceString(d, CL_DEVICE_EXTENSIONS).find("cl_khr_fp16") != std::string::npos;
    info.compute_units = static_cast<int>(DeviceValue<cl_uint>(d, CL_DEVICE_MAX_COMPUTE_UNITS));
    info.max_work_group_size = DeviceValue<size_t>(d, CL_DEVICE_MAX_WORK_GROUP_SIZE);
    info.global_mem = DeviceValue<cl_ulong>(d, CL_DEVICE_GLOBAL_MEM_SIZE);
    info.local_mem = DeviceValue<cl_ulong>(d, CL_DEVICE_LOCAL_MEM_SIZE);
    out.push_back(std::move(info));
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const DeviceInfo& a, const DeviceInfo& b) { return a.is_gpu > b.is_gpu; });
  return out;
}

}  // namespace

std::string DeviceInfo::Describe() const {
  return name + " (" + platform_name + ", " + (is_gpu ? "GPU" : "non-GPU") + ", driver " + driver +
         ", " + std::to_string(compute_units) + " compute units)";
}

std::string SanitizeName(const std::string& s) {
  std::string out;
  for (char c : Lower(s)) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
    if (ok) {
      out += c;
    } else if (!out.empty() && out.back() != '-') {
      out += '-';
    }
  }
  while (!out.empty() && out.back() == '-') out.pop_back();
  return out.substr(0, 80);
}

Expected<std::vector<DeviceInfo>> ListDevices() {
  KILN_ASSIGN_OR_RETURN(std::vector<cl_platform_id> ps, Platforms());
  std::vector<DeviceInfo> all;
  for (cl_platform_id p : ps) {
    KILN_ASSIGN_OR_RETURN(std::vector<DeviceInfo> devices, Devices(p));
    for (auto& d : devices) all.push_back(std::move(d));
  }
  return all;
}

Expected<DeviceInfo> SelectDevice(const std::string& platform_filter, int index,
                                  const std::string& name_filter) {
  std::string filter = platform_filter;
  if (filter.empty()) {
    if (const char* env = std::getenv("KILN_OPENCL_PLATFORM")) filter = env;
  }
  KILN_ASSIGN_OR_RETURN(std::vector<cl_platform_id> ps, Platforms());
  std::string seen;
  for (cl_platform_id p : ps) {
    const std::string name = PlatformString(p, CL_PLATFORM_NAME);
    seen += (seen.empty() ? "" : ", ") + name;
    if (!filter.empty() && Lower(name).find(Lower(filter)) == std::string::npos) continue;
    KILN_ASSIGN_OR_RETURN(std::vector<DeviceInfo> devices, Devices(p));
    if (devices.empty()) continue;
    if (!name_filter.empty()) {
      for (const auto& d : devices) {
        if (Lower(d.name).find(Lower(name_filter)) != std::string::npos) return d;
      }
      for (const auto& d : devices) seen += " [" + d.name + "]";
      continue;
    }
    if (index < 0 || static_cast<size_t>(index) >= devices.size()) {
      std::string list;
      for (size_t i = 0; i < devices.size(); ++i) {
        list += (i ? "; " : "") + std::to_string(i) + ": " + devices[i].name;
      }
      return NotFound("OpenCL device " + std::to_string(index) + " not found: platform '" + name +
                      "' has " + std::to_string(devices.size()) + " device(s) (" + list + ")");
    }
    return devices[static_cast<size_t>(index)];
  }
  return NotFound("no OpenCL device" +
                  (name_filter.empty() ? std::string() : " named like '" + name_filter + "'") +
                  (filter.empty() ? std::string() : " on a platform matching '" + filter + "'") +
                  " (platforms: " + seen + ")");
}

}  // namespace kiln::opencl
