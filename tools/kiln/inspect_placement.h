// `kiln inspect --device LIST`: how a device preference splits the model (the cost-aware
// placement of backends/cost_placement.h): nodes per executor, every fallback with its reason,
// every island decision with its estimated costs, and the estimate against support-only.
#pragma once

#include <string>

#include "tools/kiln/model_source.h"
#include "tools/kiln/session_setup.h"

namespace kiln::cli {

Expected<std::string> PlacementText(const LoadedModel& model, const DeviceArgs& device);
Expected<std::string> PlacementJson(const LoadedModel& model, const DeviceArgs& device);

}  // namespace kiln::cli
