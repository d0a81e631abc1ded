// Weight and bias quantization of the quantize pass (compiler/quantize/quantize_weights.cc).
#pragma once

#include "compiler/pass.h"
#include "ir/rewriter.h"
#include "quant/quantize_config.h"

namespace kiln::quant {

// FusedConv `id`: W becomes DQ(int8 W) (int16 W with `w16`: an --int16 node), B becomes
// DQ(int32 B) at scale s_x * s_w (bias corrected with --bias-correct). `x_params` and `x_type`
// are the input's planned parameters and type; with an int16 input or int16 weights B stays a
// float constant (lower-qdq makes it int64).
Status QuantizeConvWeights(GraphRewriter& rw, NodeId id, const QuantParams& x_params, DType x_type,
                           bool w16, const QuantizeConfig& config, PassContext& ctx);
// FusedGemm `id`: alpha folded into B and beta into C first; B per output feature.
Status QuantizeGemmWeights(GraphRewriter& rw, NodeId id, const QuantParams& a_params, DType a_type,
                           bool w16, const QuantizeConfig& config, PassContext& ctx);

}  // namespace kiln::quant
