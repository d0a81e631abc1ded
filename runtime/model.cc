// Model loading: the verification pipeline over a mapped .kiln file.
#include "runtime/model.h"

#include "ir/verifier.h"
#include "runtime/mapped_file.h"
#include "serializer/container_reader.h"
#include "serializer/dsp_programs.h"
#include "serializer/graph_reader.h"
#include "serializer/plan_reader.h"

namespace kiln {

struct Model::Impl {
  std::shared_ptr<const Graph> graph;
  std::shared_ptr<const ExecutionPlan> plan;
  std::shared_ptr<const KernelBinaries> kernel_binaries;
  std::shared_ptr<const DspProgramSet> dsp_programs;
  ModelInfo info;
};

Model::Model() : impl_(std::make_unique<Impl>()) {}
Model::~Model() = default;

std::shared_ptr<const Graph> Model::graph() const { return impl_->graph; }
std::shared_ptr<const ExecutionPlan> Model::plan() const { return impl_->plan; }
std::shared_ptr<const DspProgramSet> Model::dsp_programs() const { return impl_->dsp_programs; }

std::shared_ptr<const KernelBinaries> Model::kernel_binaries() const {
  return impl_->kernel_binaries;
}
const ModelInfo& Model::info() const { return impl_->info; }

Expected<std::shared_ptr<const Model>> Model::Load(const std::string& path, const TrustStore& trust,
                                                   LoadOptions options) {
  KILN_ASSIGN_OR_RETURN(std::shared_ptr<const MappedFile> file, MappedFile::Open(path));
  const uint8_t* data = file->data();
  const size_t size = file->size();
  // Copied sections' pages are dropped from the mapping as they are copied, so the file and
  // its verified copy are never resident together.
  const MappedFile* mapping = file.get();
  format::ReleaseFn release = [mapping](const uint8_t* p, size_t n) { mapping->Release(p, n); };
  auto model = LoadVerified(std::move(file), data, size, trust, options, release);
  if (!model.ok()) return model.status().WithContext("model '" + path + "'");
  return model;
}

Expected<std::shared_ptr<const Model>> Model::LoadFromMemory(std::shared_ptr<const void> owner,
                                                             const uint8_t* data, size_t size,
                                                             const TrustStore& trust,
                                                             LoadOptions options) {
  return LoadVerified(std::move(owner), data, size, trust, options, {});
}

Expected<std::shared_ptr<const Model>> Model::LoadVerified(
    std::shared_ptr<const void> owner, const uint8_t* data, size_t size, const TrustStore& trust,
    const LoadOptions& options, const std::function<void(const uint8_t*, size_t)>& release) {
  format::ReadLimits limits;
  limits.max_section_bytes = options.max_section_bytes;
  // 1. Structure and bounds.
  KILN_ASSIGN_OR_RETURN(format::ContainerView view, format::ParseContainer(data, size, limits));
  // 2. Key revocation, then the signature over header + section table (which holds every
  // section's hash).
  std::string key_id;
  KILN_RETURN_IF_ERROR(format::VerifySignature(view, trust, options.allow_unsigned, &key_id));
  std::shared_ptr<Model> model(new Model());
  ModelInfo& info = model->impl_->info;
  info.format_major = view.header.major;
  info.format_minor = view.header.minor;
  info.is_signed = view.is_signed;
  info.key_id = key_id;
  for (const auto& e : view.sections) {
    info.sections.push_back(
        {format::SectionKindName(e.kind), format::CompressionName(e.compression), e.stored_size,
         e.uncompressed_size, format::HexEncode(e.sha256.data(), e.sha256.size())});
  }
  // 3 + 4. Every section's hash, unknown ones included: nothing unverified is ever read. Known
  // sections are copied while hashed and the verified copy is used (then decompressed), so a
  // file changed on disk after this point cannot change what runs; only zero-copy weights
  // (options.map_weights, uncompressed) are hashed and then used in place from the mapping.
  const format::SectionEntry* graph_entry = view.Find(format::SectionKind::kGraph);
  const format::SectionEntry* weights_entry = view.Find(format::SectionKind::kWeights);
  const format::SectionEntry* meta_entry = view.Find(format::SectionKind::kMetadata);
  const format::SectionEntry* streams_entry = view.Find(format::SectionKind::kStreams);
  const format::SectionEntry* memory_entry = view.Find(format::SectionKind::kMemoryPlan);
  const format::SectionEntry* binaries_entry = view.Find(format::SectionKind::kKernelBinaries);
  const format::SectionEntry* dsp_entry = view.Find(format::SectionKind::kDspPrograms);
  // 3a. The metadata first (hashed while copied, decompressed, flatbuffers-verified), and the
  // trust policy on its signed id, version and validity, so a rolled-back, expired or
  // not-yet-valid file is refused before anything else of it is read.
  if (meta_entry) {
    KILN_ASSIGN_OR_RETURN(format::SectionBytes meta_bytes,
                          format::CopyVerifiedSection(view, *meta_entry, release));
    KILN_ASSIGN_OR_RETURN(info.metadata, format::ReadMetadata(meta_bytes));
  }
  KILN_RETURN_IF_ERROR(CheckTrustPolicy(info.metadata, options.policy));
  for (const auto& e : view.sections) {
    if (&e != graph_entry && &e != weights_entry && &e != meta_entry && &e != streams_entry &&
        &e != memory_entry && &e != binaries_entry && &e != dsp_entry) {
      KILN_RETURN_IF_ERROR(format::VerifySectionHash(view, e));  // skipped, but verified
    }
  }
  format::SectionBytes weights;
  if (options.map_weights &&
      weights_entry->compression == static_cast<uint32_t>(format::Compression::kNone)) {
    KILN_RETURN_IF_ERROR(format::VerifySectionHash(view, *weights_entry));
    KILN_ASSIGN_OR_RETURN(weights, format::ReadSection(view, *weights_entry, owner));
  } else {
    KILN_ASSIGN_OR_RETURN(weights, format::CopyVerifiedSection(view, *weights_entry, release));
  }
  KILN_ASSIGN_OR_RETURN(format::SectionBytes graph_bytes,
                        format::CopyVerifiedSection(view, *graph_entry, release));
  info.weights_mapped = owner != nullptr && weights.owner == owner;
  KILN_ASSIGN_OR_RETURN(Graph graph, format::ReadGraph(graph_bytes, weights));
  // 5. The IR's own structural and type checks (shape inference re-run on every node).
  Status verified = VerifyGraph(graph);
  if (!verified.ok()) return DataLoss("graph verification: " + verified.message());
  // 6. The execution plan (verified copies too), proven safe for this graph before a session
  // may follow it.
  if ((streams_entry == nullptr) != (memory_entry == nullptr)) {
    return DataLoss("layout: a file with a streams section needs a memory-plan section and "
                    "vice versa");
  }
  ExecutionPlan plan;
  if (streams_entry) {
    KILN_ASSIGN_OR_RETURN(format::SectionBytes sb,
                          format::CopyVerifiedSection(view, *streams_entry, release));
    KILN_ASSIGN_OR_RETURN(plan.schedule, format::ReadSchedule(sb));
    KILN_ASSIGN_OR_RETURN(format::SectionBytes mb,
                          format::CopyVerifiedSection(view, *memory_entry, release));
    KILN_ASSIGN_OR_RETURN(plan.memory, format::ReadMemoryPlan(mb));
    Status valid = ValidateExecutionPlan(graph, plan);
    if (!valid.ok()) return DataLoss("execution plan: " + valid.message());
    info.has_plan = true;
  } else {
    plan = ExecutionPlan::Default(graph);
  }
  // 7. GPU program binaries: parsed here, trusted as much as the rest of the signed file; the
  // OpenCL executor uses them only for the device, driver and kernel source they were made for.
  if (binaries_entry) {
    KILN_ASSIGN_OR_RETURN(format::SectionBytes kbytes,
                          format::CopyVerifiedSection(view, *binaries_entry, release));
    KILN_ASSIGN_OR_RETURN(KernelBinaries binaries, format::ReadKernelBinaries(kbytes));
    info.gpu_binaries_device = binaries.device;
    model->impl_->kernel_binaries = std::make_shared<const KernelBinaries>(std::move(binaries));
  }
  // 8. DSP command streams: decoded here (node indices checked); the DSP executor validates
  // each program against its node (every DMA inside its operand and the scratchpad) before it
  // runs, so nothing in the section is trusted beyond its encoding.
  if (dsp_entry) {
    KILN_ASSIGN_OR_RETURN(format::SectionBytes dbytes,
                          format::CopyVerifiedSection(view, *dsp_entry, release));
    KILN_ASSIGN_OR_RETURN(DspProgramSet programs,
                          format::ReadDspPrograms(dbytes, graph.num_nodes()));
    info.dsp_programs = programs.by_node.size();
    model->impl_->dsp_programs = std::make_shared<const DspProgramSet>(std::move(programs));
  }
  // 9. Every check held: a signed file moves the version counter forward (never an unsigned
  // one, which anyone could make). A counter that cannot be written refuses the load, as the
  // device could not remember this version.
  if (view.is_signed) KILN_RETURN_IF_ERROR(RecordVerifiedLoad(info.metadata, options.policy));
  model->impl_->plan = std::make_shared<const ExecutionPlan>(std::move(plan));
  model->impl_->graph = std::make_shared<const Graph>(std::move(graph));
  return std::shared_ptr<const Model>(std::move(model));
}

}  // namespace kiln
