// Instruments: what runs after every pass that ran without being a pass itself (TVM's
// PassInstrument): verifying the graph, printing its IR. The pass manager adds the ones
// CompileOptions asks for (verify_each_pass, print_ir_after); callers may add their own.
#pragma once

#include <functional>
#include <memory>
#include <set>
#include <string>
#include <string_view>

#include "ir/graph.h"

namespace kiln {

class PassInstrument {
 public:
  virtual ~PassInstrument() = default;
  // After pass `pass` ran on `graph`; an error stops the compile.
  virtual Status AfterPass(std::string_view pass, const Graph& graph) = 0;
};

// VerifyGraph after each pass: the error names the pass that broke the graph (the way to
// bisect a miscompile).
std::unique_ptr<PassInstrument> MakeVerifyInstrument();

// Where IR text goes: the pass's name and the graph as text (ir/text_dump.h).
using IrSink = std::function<void(const std::string& pass, const std::string& ir)>;
// The IR after the passes named in `after` ("all": every pass), to `sink`.
std::unique_ptr<PassInstrument> MakePrintIrInstrument(std::set<std::string> after, IrSink sink);

}  // namespace kiln
