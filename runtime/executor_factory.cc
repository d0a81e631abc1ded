// Executor names -> the backend that makes them.
#include "runtime/executor_factory.h"

#include "backends/backend_registry.h"

namespace kiln {

Expected<std::unique_ptr<Executor>> MakeExecutor(const std::string& name,
                                                 const SessionOptions& options, ThreadPool* pool) {
  const Backend* backend = FindBackend(name);
  if (const OmittedBackend* omitted = backend ? nullptr : FindOmittedBackend(name)) {
    // As a device that is not there: the session goes on without it.
    return NotFound("executor '" + name + "': this runtime was built without the " +
                    std::string(omitted->name) + " backend (" + std::string(omitted->option) +
                    "=OFF)");
  }
  if (!backend) {
    return InvalidArgument("unknown executor '" + name + "' (this runtime has " + BackendNames() +
                           "; a device as name:N)");
  }
  ExecutorRequest request;
  request.requested = name;
  if (const size_t colon = name.find(':'); colon != std::string::npos) {
    request.device = name.substr(colon + 1);
  }
  request.cpu_max_isa = options.cpu_max_isa;
  request.pool = pool;
  request.options = &options.backend_options;
  return backend->MakeExecutor(request);
}

}  // namespace kiln
