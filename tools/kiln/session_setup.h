// Shared by `kiln run` and `kiln validate`: --isa, loading a model with its input tensors
// checked against what the model declares, and binding tensors to session inputs by name.
#pragma once

#include <CLI/CLI.hpp>
#include <memory>
#include <string>
#include <vector>

#include "ir/graph.h"
#include "ir/host_tensor.h"
#include "runtime/session.h"
#include "tools/kiln/model_source.h"

namespace kiln::cli {

// True for a .kiln container (by magic bytes or extension); anything else is treated as ONNX.
bool IsKilnFile(const std::string& path);

// Adds --isa {auto,reference,scalar,avx2} to a subcommand.
void AddIsaFlag(CLI::App& cmd, std::string* isa);
Expected<Isa> ParseIsa(const std::string& name);

// Loads `model` for the named tensors: for ONNX files each tensor is checked against the
// declared input (name, dtype, rank, fixed dims) before import, then its shape fixes the
// symbolic dims and it is offered as a frozen input (bound only if it determines shapes).
// `flag` names where the tensors came from in messages ("--input", "test data").
Expected<LoadedModel> LoadModelForInputs(const std::string& model, ModelSourceOptions options,
                                         const std::vector<HostTensor>& inputs,
                                         const std::string& flag);

// Adds --threads N.
void AddThreadsFlag(CLI::App& cmd, int* threads);
// A session over the model's graph and plan with the CPU capped at `isa`.
Expected<std::unique_ptr<Session>> CreateSession(const LoadedModel& model, Isa isa, int threads);

// Sets every session input from `inputs` (by name). Unknown names, missing inputs, dtype and
// shape mismatches are errors. With `names_checked` (ONNX models, whose tensors
// LoadModelForInputs matched against the declared inputs) a tensor that is no longer a session
// input was bound as a constant at import, possibly folded away, and is skipped.
Status BindInputs(Session& session, const std::vector<HostTensor>& inputs, const std::string& flag,
                  bool names_checked);

}  // namespace kiln::cli
