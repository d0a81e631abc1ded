// Layout names.
#include "ir/layout.h"

namespace kiln {

std::string_view LayoutName(Layout layout) {
  switch (layout) {
    case Layout::kPlain: return "plain";
    case Layout::kNHWC: return "nhwc";
    case Layout::kNC4HW4: return "nc4hw4";
    case Layout::kPacked: return "packed";
  }
  return "unknown";
}

}  // namespace kiln
