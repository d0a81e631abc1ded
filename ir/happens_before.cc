// HappensBefore: predecessor sets from stream order and events.
#include "ir/happens_before.h"

namespace kiln {

HappensBefore::HappensBefore(const Graph& graph, const Schedule& schedule) {
  const size_t n = graph.num_nodes();
  before_.assign(n, NodeSet(n));
  std::vector<NodeId> last_on_stream(static_cast<size_t>(schedule.num_streams), kNoNode);
  std::vector<std::vector<NodeId>> signals(n);  // by waiting node
  for (const auto& e : schedule.events) signals[static_cast<size_t>(e.wait)].push_back(e.signal);
  for (size_t i = 0; i < n; ++i) {
    const auto id = static_cast<NodeId>(i);
    NodeSet& set = before_[i];
    NodeId& prev = last_on_stream[static_cast<size_t>(schedule.stream[i])];
    if (prev != kNoNode) {
      set.UnionWith(before_[static_cast<size_t>(prev)]);
      set.Insert(prev);
    }
    for (NodeId s : signals[i]) {
      set.UnionWith(before_[static_cast<size_t>(s)]);
      set.Insert(s);
    }
    prev = id;
  }
}

}  // namespace kiln
