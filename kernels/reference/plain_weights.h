// A weight input as a reference kernel reads it: plain row-major elements of the kernel's
// type. Weights already stored that way are used in place; packed (ir/layout.h) or f16-stored
// ones (--weights-f16) are unpacked once in Prepare. That copy is the oracle's convenience:
// the fast kernels consume those layouts directly and never repack.
#pragma once

#include <cstdint>
#include <cstring>
#include <vector>

#include "ir/graph.h"
#include "kernels/kernel.h"
#include "kernels/kernel_registry.h"
#include "kernels/reference/cast_convert.h"

namespace kiln {

// Kernel traits of a reference kernel that reads its weights (input 1) through PlainWeights:
// any weight layout ir/layout.h can unpack; every other input plain.
inline KernelTraits AnyWeightLayoutTraits() {
  KernelTraits t;
  t.any_weight_layout = true;
  return t;
}

class PlainWeights {
 public:
  template <typename T>
  Status Bind(const Value& w) {
    copy_.clear();
    if (w.layout == Layout::kPlain && w.dtype == DTypeOf<T>::value) return Status::Ok();
    if (!w.is_constant()) {
      return Unsupported("weight '" + w.name + "' is " + std::string(DTypeName(w.dtype)) +
                         " in layout " + std::string(LayoutName(w.layout)) +
                         " but not a constant");
    }
    KILN_ASSIGN_OR_RETURN(std::vector<uint8_t> plain,
                          UnpackLayout(w.layout, w.dtype, w.shape, w.constant->data(),
                                       w.constant->size()));
    if (w.dtype == DTypeOf<T>::value) {
      copy_ = std::move(plain);
      return Status::Ok();
    }
    if (w.dtype != DType::kF16 || !std::is_same_v<T, float>) {
      return Unsupported("weight '" + w.name + "' has dtype " + std::string(DTypeName(w.dtype)) +
                         "; this kernel reads " + std::string(DTypeName(DTypeOf<T>::value)));
    }
    const size_t n = plain.size() / sizeof(uint16_t);
    copy_.resize(n * sizeof(float));
    for (size_t i = 0; i < n; ++i) {
      uint16_t h;
      std::memcpy(&h, plain.data() + i * sizeof(uint16_t), sizeof(h));
      const float f = HalfToFloat(h);
      std::memcpy(copy_.data() + i * sizeof(float), &f, sizeof(f));
    }
    return Status::Ok();
  }

  template <typename T>
  const T* Get(const TensorView& view) const {
    return copy_.empty() ? view.as<const T>() : reinterpret_cast<const T*>(copy_.data());
  }

 private:
  std::vector<uint8_t> copy_;
};

}  // namespace kiln
