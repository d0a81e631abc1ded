// Header-only C++17 wrapper of the Kiln C API (kiln/kiln.h): RAII handles, and kiln::api::Error
// (with the C code and the runtime's message) thrown where the C call returned a status. The
// thread rules are the C API's: a Model is shared by any number of sessions and threads; a
// Session is used by one thread at a time.
//
//   kiln::api::TrustStore trust;
//   trust.AddKeyFile("release.pub");
//   kiln::api::Model model(trust, "net.kiln");
//   kiln::api::Session session(model, kiln::api::SessionOptions().Threads(2));
//   session.SetInput(0, pixels.data(), pixels.size() * sizeof(float));
//   session.Run();
//   std::vector<float> scores(session.OutputInfo(0).byte_size / sizeof(float));
//   session.GetOutput(0, scores.data(), scores.size() * sizeof(float));
#ifndef KILN_KILN_HPP_
#define KILN_KILN_HPP_

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "kiln/kiln.h"

namespace kiln::api {

class Error : public std::runtime_error {
 public:
  Error(kiln_code code, const std::string& message) : std::runtime_error(message), code_(code) {}
  kiln_code code() const { return code_; }

 private:
  kiln_code code_;
};

// Throws the status's Error (and frees it); nothing for NULL.
inline void Check(kiln_status* status) {
  if (status == nullptr) return;
  const kiln_code code = kiln_status_code(status);
  std::string message = kiln_status_message(status);
  kiln_status_free(status);
  throw Error(code, message);
}

// A movable owner of one C handle.
template <typename T, void (*Free)(T*)>
class Handle {
 public:
  Handle() = default;
  explicit Handle(T* p) : p_(p) {}
  Handle(Handle&& o) noexcept : p_(std::exchange(o.p_, nullptr)) {}
  Handle& operator=(Handle&& o) noexcept {
    if (this != &o) {
      if (p_) Free(p_);
      p_ = std::exchange(o.p_, nullptr);
    }
    return *this;
  }
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  ~Handle() {
    if (p_) Free(p_);
  }
  T* get() const { return p_; }

 private:
  T* p_ = nullptr;
};

class TrustStore {
 public:
  TrustStore() {
    kiln_trust_store* p = nullptr;
    Check(kiln_trust_store_create(&p));
    h_ = decltype(h_)(p);
  }
  TrustStore& AddKeyFile(const std::string& path) {
    Check(kiln_trust_store_add_key_file(h_.get(), path.c_str()));
    return *this;
  }
  TrustStore& AddKeyPem(const std::string& pem) {
    Check(kiln_trust_store_add_key_pem(h_.get(), pem.data(), pem.size()));
    return *this;
  }
  TrustStore& AddDirectory(const std::string& dir) {
    Check(kiln_trust_store_add_directory(h_.get(), dir.c_str()));
    return *this;
  }
  const kiln_trust_store* get() const { return h_.get(); }

 private:
  Handle<kiln_trust_store, kiln_trust_store_free> h_;
};

class LoadOptions {
 public:
  LoadOptions() {
    kiln_load_options* p = nullptr;
    Check(kiln_load_options_create(&p));
    h_ = decltype(h_)(p);
  }
  LoadOptions& AllowUnsigned(bool allow = true) {
    kiln_load_options_set_allow_unsigned(h_.get(), allow);
    return *this;
  }
  LoadOptions& MapWeights(bool map = true) {
    kiln_load_options_set_map_weights(h_.get(), map);
    return *this;
  }
  LoadOptions& MinVersion(const std::string& model_id, uint64_t version) {
    Check(kiln_load_options_set_min_version(h_.get(), model_id.c_str(), version));
    return *this;
  }
  LoadOptions& CounterFile(const std::string& path) {
    Check(kiln_load_options_set_counter_file(h_.get(), path.c_str()));
    return *this;
  }
  LoadOptions& Now(int64_t unix_seconds) {
    kiln_load_options_set_now(h_.get(), unix_seconds);
    return *this;
  }
  LoadOptions& IgnoreValidity() {
    kiln_load_options_ignore_validity(h_.get());
    return *this;
  }
  const kiln_load_options* get() const { return h_.get(); }

 private:
  Handle<kiln_load_options, kiln_load_options_free> h_;
};

class Model {
 public:
  Model(const TrustStore& trust, const std::string& path, const LoadOptions* options = nullptr) {
    kiln_model* p = nullptr;
    Check(kiln_model_load(trust.get(), path.c_str(), options ? options->get() : nullptr, &p));
    h_ = decltype(h_)(p);
  }
  Model(const TrustStore& trust, const void* data, size_t size,
        const LoadOptions* options = nullptr) {
    kiln_model* p = nullptr;
    Check(kiln_model_load_from_memory(trust.get(), data, size, options ? options->get() : nullptr,
                                      &p));
    h_ = decltype(h_)(p);
  }
  kiln_model_info Info() const {
    kiln_model_info info{};
    kiln_model_get_info(h_.get(), &info);
    return info;
  }
  const kiln_model* get() const { return h_.get(); }

 private:
  Handle<kiln_model, kiln_model_free> h_;
};

class SessionOptions {
 public:
  SessionOptions() {
    kiln_session_options* p = nullptr;
    Check(kiln_session_options_create(&p));
    h_ = decltype(h_)(p);
  }
  SessionOptions& Threads(int threads) {
    Check(kiln_session_options_set_threads(h_.get(), threads));
    return *this;
  }
  SessionOptions& Devices(const std::vector<std::string>& devices) {
    std::vector<const char*> names;
    for (const std::string& d : devices) names.push_back(d.c_str());
    Check(kiln_session_options_set_devices(h_.get(), names.data(), names.size()));
    return *this;
  }
  SessionOptions& GpuPrecision(const std::string& precision) {
    Check(kiln_session_options_set_gpu_precision(h_.get(), precision.c_str()));
    return *this;
  }
  SessionOptions& DspScratch(uint32_t bytes) {
    Check(kiln_session_options_set_dsp_scratch(h_.get(), bytes));
    return *this;
  }
  SessionOptions& CpuIsa(const std::string& isa) {
    Check(kiln_session_options_set_cpu_isa(h_.get(), isa.c_str()));
    return *this;
  }
  SessionOptions& Profile(bool on = true) {
    kiln_session_options_set_profile(h_.get(), on);
    return *this;
  }
  SessionOptions& OnAcceleratorFailure(kiln_accelerator_failure mode) {
    kiln_session_options_set_on_accelerator_failure(h_.get(), mode);
    return *this;
  }
  const kiln_session_options* get() const { return h_.get(); }

 private:
  Handle<kiln_session_options, kiln_session_options_free> h_;
};

class Session {
 public:
  explicit Session(const Model& model, const SessionOptions* options = nullptr) {
    kiln_session* p = nullptr;
    Check(kiln_session_create(model.get(), options ? options->get() : nullptr, &p));
    h_ = decltype(h_)(p);
  }
  Session(const Model& model, const SessionOptions& options) : Session(model, &options) {}

  size_t InputCount() const { return kiln_session_input_count(h_.get()); }
  size_t OutputCount() const { return kiln_session_output_count(h_.get()); }
  kiln_tensor_info InputInfo(size_t index) const {
    kiln_tensor_info info{};
    Check(kiln_session_input_info(h_.get(), index, &info));
    return info;
  }
  kiln_tensor_info OutputInfo(size_t index) const {
    kiln_tensor_info info{};
    Check(kiln_session_output_info(h_.get(), index, &info));
    return info;
  }
  size_t InputIndex(const std::string& name) const {
    size_t index = 0;
    Check(kiln_session_input_index(h_.get(), name.c_str(), &index));
    return index;
  }
  size_t OutputIndex(const std::string& name) const {
    size_t index = 0;
    Check(kiln_session_output_index(h_.get(), name.c_str(), &index));
    return index;
  }
  void SetInput(size_t index, const void* data, size_t size) {
    Check(kiln_session_set_input(h_.get(), index, data, size));
  }
  void Run() { Check(kiln_session_run(h_.get())); }
  void GetOutput(size_t index, void* data, size_t size) const {
    Check(kiln_session_get_output(h_.get(), index, data, size));
  }
  // Session-owned bytes, valid until the next Run().
  std::pair<const void*, size_t> OutputData(size_t index) {
    const void* data = nullptr;
    size_t size = 0;
    Check(kiln_session_output_data(h_.get(), index, &data, &size));
    return {data, size};
  }
  std::vector<std::string> Warnings() const {
    std::vector<std::string> out;
    for (size_t i = 0; i < kiln_session_warning_count(h_.get()); ++i) {
      out.emplace_back(kiln_session_warning(h_.get(), i));
    }
    return out;
  }
  std::vector<kiln_profile_entry> Profile() const {
    std::vector<kiln_profile_entry> out(kiln_session_profile_count(h_.get()));
    for (size_t i = 0; i < out.size(); ++i) Check(kiln_session_profile(h_.get(), i, &out[i]));
    return out;
  }
  kiln_session* get() const { return h_.get(); }

 private:
  Handle<kiln_session, kiln_session_free> h_;
};

}  // namespace kiln::api

#endif  // KILN_KILN_HPP_
