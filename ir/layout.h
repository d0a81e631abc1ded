// Memory layout tags carried by every IR value. Values are stable (written into model files).
#pragma once

#include <cstdint>
#include <string_view>

namespace kiln {

enum class Layout : int32_t {
  kPlain = 0,    // row-major in the ONNX dimension order (NCHW for images)
  kNHWC = 1,     // channels last
  kNC4HW4 = 2,   // channels blocked by 4 (MNN / OpenCL image friendly)
  kPacked = 3,   // kernel-specific packed weights; see the owning node
};

std::string_view LayoutName(Layout layout);

}  // namespace kiln
