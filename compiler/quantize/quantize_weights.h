// Weight and bias quantization of the quantize pass (compiler/quantize/quantize_weights.cc).
#pragma once

#include "compiler/pass.h"
#include "ir/rewriter.h"
#include "quantizer/quantize_config.h"

namespace kiln::quant {

// FusedConv `id`: W becomes DQ(int8 W), B becomes DQ(int32 B) at scale s_x * s_w (bias
// corrected with --bias-correct). `x_params` are the input's planned parameters.
Status QuantizeConvWeights(GraphRewriter& rw, NodeId id, const QuantParams& x_params,
                           const QuantizeConfig& config, PassContext& ctx);
// FusedGemm `id`: alpha folded into B and beta into C first; B per output feature.
Status QuantizeGemmWeights(GraphRewriter& rw, NodeId id, const QuantParams& a_params,
                           const QuantizeConfig& config, PassContext& ctx);

}  // namespace kiln::quant
