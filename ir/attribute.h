// Typed node attributes (ints, floats, strings, lists and tensors), looked up by name.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <variant>
#include <vector>

#include "ir/constant_bytes.h"
#include "ir/dtype.h"
#include "ir/shape.h"

namespace kiln {

// A tensor-valued attribute (e.g. ConstantOfShape's value).
struct TensorAttr {
  DType dtype = DType::kUndefined;
  Shape shape;
  ConstantBytes bytes;
};

using AttrValue = std::variant<int64_t, float, std::string, std::vector<int64_t>,
                               std::vector<float>, std::vector<std::string>, TensorAttr>;

class Attributes {
 public:
  void Set(const std::string& name, AttrValue value) { attrs_[name] = std::move(value); }
  bool Has(const std::string& name) const { return attrs_.count(name) != 0; }
  void Erase(const std::string& name) { attrs_.erase(name); }
  const AttrValue* Find(const std::string& name) const;

  // Typed getters return the default when the attribute is absent (or of another type).
  int64_t GetInt(const std::string& name, int64_t def) const;
  float GetFloat(const std::string& name, float def) const;
  std::string GetString(const std::string& name, const std::string& def) const;
  std::vector<int64_t> GetInts(const std::string& name,
                               const std::vector<int64_t>& def = {}) const;
  std::vector<float> GetFloats(const std::string& name,
                               const std::vector<float>& def = {}) const;
  const TensorAttr* GetTensor(const std::string& name) const;

  const std::map<std::string, AttrValue>& all() const { return attrs_; }
  size_t size() const { return attrs_.size(); }

 private:
  std::map<std::string, AttrValue> attrs_;  // ordered: stable text dumps and files
};

}  // namespace kiln
