// Model loading: the verification pipeline over a mapped .kiln file.
#include "runtime/model.h"

#include "ir/verifier.h"
#include "runtime/mapped_file.h"
#include "serializer/container_reader.h"
#include "serializer/graph_reader.h"
#include "serializer/plan_reader.h"

namespace kiln {

struct Model::Impl {
  std::shared_ptr<const Graph> graph;
  std::shared_ptr<const ExecutionPlan> plan;
  ModelInfo info;
};

Model::Model() : impl_(std::make_unique<Impl>()) {}
Model::~Model() = default;

std::shared_ptr<const Graph> Model::graph() const { return impl_->graph; }
std::shared_ptr<const ExecutionPlan> Model::plan() const { return impl_->plan; }
const ModelInfo& Model::info() const { return impl_->info; }

Expected<std::shared_ptr<const Model>> Model::Load(const std::string& path, const TrustStore& trust,
                                                   LoadOptions options) {
  KILN_ASSIGN_OR_RETURN(std::shared_ptr<const MappedFile> file, MappedFile::Open(path));
  const uint8_t* data = file->data();
  const size_t size = file->size();
  auto model = LoadFromMemory(std::move(file), data, size, trust, options);
  if (!model.ok()) return model.status().WithContext("model '" + path + "'");
  return model;
}

Expected<std::shared_ptr<const Model>> Model::LoadFromMemory(std::shared_ptr<const void> owner,
                                                             const uint8_t* data, size_t size,
                                                             const TrustStore& trust,
                                                             LoadOptions options) {
  format::ReadLimits limits;
  limits.max_section_bytes = options.max_section_bytes;
  // 1. Structure and bounds.
  KILN_ASSIGN_OR_RETURN(format::ContainerView view, format::ParseContainer(data, size, limits));
  // 2. Signature over header + section table (which holds every section's hash).
  std::string key_id;
  KILN_RETURN_IF_ERROR(format::VerifySignature(view, trust, options.allow_unsigned, &key_id));
  // 3. Every section's hash, unknown ones included: nothing unverified is ever read.
  for (const auto& e : view.sections) KILN_RETURN_IF_ERROR(format::VerifySectionHash(view, e));

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
  // 4. Decompress (capped at the declared sizes) and parse. Unknown kinds are skipped.
  const format::SectionEntry* graph_entry = view.Find(format::SectionKind::kGraph);
  const format::SectionEntry* weights_entry = view.Find(format::SectionKind::kWeights);
  KILN_ASSIGN_OR_RETURN(format::SectionBytes weights,
                        format::ReadSection(view, *weights_entry, owner));
  KILN_ASSIGN_OR_RETURN(format::SectionBytes graph_bytes,
                        format::ReadSection(view, *graph_entry, owner));
  info.weights_mapped = weights.owner == owner;
  if (const format::SectionEntry* meta = view.Find(format::SectionKind::kMetadata)) {
    KILN_ASSIGN_OR_RETURN(format::SectionBytes meta_bytes, format::ReadSection(view, *meta, owner));
    KILN_ASSIGN_OR_RETURN(info.metadata, format::ReadMetadata(meta_bytes));
  }
  KILN_ASSIGN_OR_RETURN(Graph graph, format::ReadGraph(graph_bytes, weights));
  // 5. The IR's own structural and type checks (shape inference re-run on every node).
  Status verified = VerifyGraph(graph);
  if (!verified.ok()) return DataLoss("graph verification: " + verified.message());
  // 6. The execution plan, proven safe for this graph before a session may follow it.
  const format::SectionEntry* streams_entry = view.Find(format::SectionKind::kStreams);
  const format::SectionEntry* memory_entry = view.Find(format::SectionKind::kMemoryPlan);
  if ((streams_entry == nullptr) != (memory_entry == nullptr)) {
    return DataLoss("layout: a file with a streams section needs a memory-plan section and "
                    "vice versa");
  }
  ExecutionPlan plan;
  if (streams_entry) {
    KILN_ASSIGN_OR_RETURN(format::SectionBytes sb, format::ReadSection(view, *streams_entry, owner));
    KILN_ASSIGN_OR_RETURN(plan.schedule, format::ReadSchedule(sb));
    KILN_ASSIGN_OR_RETURN(format::SectionBytes mb, format::ReadSection(view, *memory_entry, owner));
    KILN_ASSIGN_OR_RETURN(plan.memory, format::ReadMemoryPlan(mb));
    Status valid = ValidateExecutionPlan(graph, plan);
    if (!valid.ok()) return DataLoss("execution plan: " + valid.message());
    info.has_plan = true;
  } else {
    plan = ExecutionPlan::Default(graph);
  }
  model->impl_->plan = std::make_shared<const ExecutionPlan>(std::move(plan));
  model->impl_->graph = std::make_shared<const Graph>(std::move(graph));
  return std::shared_ptr<const Model>(std::move(model));
}

}  // namespace kiln
