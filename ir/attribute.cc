// Attribute lookups.
#include "ir/attribute.h"

namespace kiln {

const AttrValue* Attributes::Find(const std::string& name) const {
  auto it = attrs_.find(name);
  return it == attrs_.end() ? nullptr : &it->second;
}

int64_t Attributes::GetInt(const std::string& name, int64_t def) const {
  const AttrValue* v = Find(name);
  if (v && std::holds_alternative<int64_t>(*v)) return std::get<int64_t>(*v);
  return def;
}

float Attributes::GetFloat(const std::string& name, float def) const {
  const AttrValue* v = Find(name);
  if (v && std::holds_alternative<float>(*v)) return std::get<float>(*v);
  if (v && std::holds_alternative<int64_t>(*v)) return static_cast<float>(std::get<int64_t>(*v));
  return def;
}

std::string Attributes::GetString(const std::string& name, const std::string& def) const {
  const AttrValue* v = Find(name);
  if (v && std::holds_alternative<std::string>(*v)) return std::get<std::string>(*v);
  return def;
}

std::vector<int64_t> Attributes::GetInts(const std::string& name,
                                         const std::vector<int64_t>& def) const {
  const AttrValue* v = Find(name);
  if (v && std::holds_alternative<std::vector<int64_t>>(*v)) {
    return std::get<std::vector<int64_t>>(*v);
  }
  return def;
}

std::vector<float> Attributes::GetFloats(const std::string& name,
                                         const std::vector<float>& def) const {
  const AttrValue* v = Find(name);
  if (v && std::holds_alternative<std::vector<float>>(*v)) return std::get<std::vector<float>>(*v);
  return def;
}

const TensorAttr* Attributes::GetTensor(const std::string& name) const {
  const AttrValue* v = Find(name);
  if (v && std::holds_alternative<TensorAttr>(*v)) return &std::get<TensorAttr>(*v);
  return nullptr;
}

}  // namespace kiln
