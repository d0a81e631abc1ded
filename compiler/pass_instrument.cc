// The verify and print-IR instruments.
#include "compiler/pass_instrument.h"

#include <utility>

#include "ir/text_dump.h"
#include "ir/verifier.h"

namespace kiln {
namespace {

class VerifyInstrument : public PassInstrument {
 public:
  Status AfterPass(std::string_view pass, const Graph& graph) override {
    Status verified = VerifyGraph(graph);
    if (verified.ok()) return verified;
    const std::string name(pass);
    return Internal("the graph no longer verifies after pass '" + name + "' (disable pass " + name +
                    " to work around it): " + verified.message());
  }
};

class PrintIrInstrument : public PassInstrument {
 public:
  PrintIrInstrument(std::set<std::string> after, IrSink sink)
      : after_(std::move(after)), sink_(std::move(sink)) {}
  Status AfterPass(std::string_view pass, const Graph& graph) override {
    const std::string name(pass);
    if (after_.count("all") || after_.count(name)) sink_(name, GraphToText(graph));
    return Status::Ok();
  }

 private:
  std::set<std::string> after_;
  IrSink sink_;
};

}  // namespace

std::unique_ptr<PassInstrument> MakeVerifyInstrument() {
  return std::make_unique<VerifyInstrument>();
}

std::unique_ptr<PassInstrument> MakePrintIrInstrument(std::set<std::string> after, IrSink sink) {
  return std::make_unique<PrintIrInstrument>(std::move(after), std::move(sink));
}

}  // namespace kiln
