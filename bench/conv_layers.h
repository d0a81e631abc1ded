// The convolution layer shapes of the benchmark models (batch 1; efficientnet_b0 without its
// squeeze-excite convolutions on 1x1 maps), as extracted from
// ../shared/models with onnx shape inference: input C,H,W, weight O,I/g,kH,kW, stride, pad, group.
#pragma once

#include <cstdint>
#include <vector>

namespace kiln::bench {

struct ConvLayer {
  const char* model;
  int count;  // how many layers of the model have this exact shape
  int64_t c, h, w, oc, kh, kw, stride, pad, group;
};

inline const std::vector<ConvLayer>& BenchConvLayers() {
  static const std::vector<ConvLayer> layers = {
      {"resnet18", 1, 3, 224, 224, 64, 7, 7, 2, 3, 1},
      {"resnet18", 4, 64, 56, 56, 64, 3, 3, 1, 1, 1},
      {"resnet18", 1, 64, 56, 56, 128, 3, 3, 2, 1, 1},
      {"resnet18", 3, 128, 28, 28, 128, 3, 3, 1, 1, 1},
      {"resnet18", 1, 64, 56, 56, 128, 1, 1, 2, 0, 1},
      {"resnet18", 1, 128, 28, 28, 256, 3, 3, 2, 1, 1},
      {"resnet18", 3, 256, 14, 14, 256, 3, 3, 1, 1, 1},
      {"resnet18", 1, 128, 28, 28, 256, 1, 1, 2, 0, 1},
      {"resnet18", 1, 256, 14, 14, 512, 3, 3, 2, 1, 1},
      {"resnet18", 3, 512, 7, 7, 512, 3, 3, 1, 1, 1},
      {"resnet18", 1, 256, 14, 14, 512, 1, 1, 2, 0, 1},
      {"mobilenetv2", 1, 3, 224, 224, 32, 3, 3, 2, 1, 1},
      {"mobilenetv2", 1, 32, 112, 112, 32, 3, 3, 1, 1, 32},
      {"mobilenetv2", 1, 32, 112, 112, 16, 1, 1, 1, 0, 1},
      {"mobilenetv2", 1, 16, 112, 112, 96, 1, 1, 1, 0, 1},
      {"mobilenetv2", 1, 96, 112, 112, 96, 3, 3, 2, 1, 96},
      {"mobilenetv2", 1, 96, 56, 56, 24, 1, 1, 1, 0, 1},
      {"mobilenetv2", 2, 24, 56, 56, 144, 1, 1, 1, 0, 1},
      {"mobilenetv2", 1, 144, 56, 56, 144, 3, 3, 1, 1, 144},
      {"mobilenetv2", 1, 144, 56, 56, 24, 1, 1, 1, 0, 1},
      {"mobilenetv2", 1, 144, 56, 56, 144, 3, 3, 2, 1, 144},
      {"mobilenetv2", 1, 144, 28, 28, 32, 1, 1, 1, 0, 1},
      {"mobilenetv2", 3, 32, 28, 28, 192, 1, 1, 1, 0, 1},
      {"mobilenetv2", 2, 192, 28, 28, 192, 3, 3, 1, 1, 192},
      {"mobilenetv2", 2, 192, 28, 28, 32, 1, 1, 1, 0, 1},
      {"mobilenetv2", 1, 192, 28, 28, 192, 3, 3, 2, 1, 192},
      {"mobilenetv2", 1, 192, 14, 14, 64, 1, 1, 1, 0, 1},
      {"mobilenetv2", 4, 64, 14, 14, 384, 1, 1, 1, 0, 1},
      {"mobilenetv2", 4, 384, 14, 14, 384, 3, 3, 1, 1, 384},
      {"mobilenetv2", 3, 384, 14, 14, 64, 1, 1, 1, 0, 1},
      {"mobilenetv2", 1, 384, 14, 14, 96, 1, 1, 1, 0, 1},
      {"mobilenetv2", 3, 96, 14, 14, 576, 1, 1, 1, 0, 1},
      {"mobilenetv2", 2, 576, 14, 14, 576, 3, 3, 1, 1, 576},
      {"mobilenetv2", 2, 576, 14, 14, 96, 1, 1, 1, 0, 1},
      {"mobilenetv2", 1, 576, 14, 14, 576, 3, 3, 2, 1, 576},
      {"mobilenetv2", 1, 576, 7, 7, 160, 1, 1, 1, 0, 1},
      {"mobilenetv2", 3, 160, 7, 7, 960, 1, 1, 1, 0, 1},
      {"mobilenetv2", 3, 960, 7, 7, 960, 3, 3, 1, 1, 960},
      {"mobilenetv2", 2, 960, 7, 7, 160, 1, 1, 1, 0, 1},
      {"mobilenetv2", 1, 960, 7, 7, 320, 1, 1, 1, 0, 1},
      {"mobilenetv2", 1, 320, 7, 7, 1280, 1, 1, 1, 0, 1},
      {"efficientnet_b0", 1, 3, 224, 224, 32, 3, 3, 2, 1, 1},
      {"efficientnet_b0", 1, 32, 112, 112, 32, 3, 3, 1, 1, 32},
      {"efficientnet_b0", 1, 32, 112, 112, 16, 1, 1, 1, 0, 1},
      {"efficientnet_b0", 1, 16, 112, 112, 96, 1, 1, 1, 0, 1},
      {"efficientnet_b0", 1, 96, 112, 112, 96, 3, 3, 2, 1, 96},
      {"efficientnet_b0", 1, 96, 56, 56, 24, 1, 1, 1, 0, 1},
      {"efficientnet_b0", 2, 24, 56, 56, 144, 1, 1, 1, 0, 1},
      {"efficientnet_b0", 1, 144, 56, 56, 144, 3, 3, 1, 1, 144},
      {"efficientnet_b0", 1, 144, 56, 56, 24, 1, 1, 1, 0, 1},
      {"efficientnet_b0", 1, 144, 56, 56, 144, 5, 5, 2, 2, 144},
      {"efficientnet_b0", 1, 144, 28, 28, 40, 1, 1, 1, 0, 1},
      {"efficientnet_b0", 2, 40, 28, 28, 240, 1, 1, 1, 0, 1},
      {"efficientnet_b0", 1, 240, 28, 28, 240, 5, 5, 1, 2, 240},
      {"efficientnet_b0", 1, 240, 28, 28, 40, 1, 1, 1, 0, 1},
      {"efficientnet_b0", 1, 240, 28, 28, 240, 3, 3, 2, 1, 240},
      {"efficientnet_b0", 1, 240, 14, 14, 80, 1, 1, 1, 0, 1},
      {"efficientnet_b0", 3, 80, 14, 14, 480, 1, 1, 1, 0, 1},
      {"efficientnet_b0", 2, 480, 14, 14, 480, 3, 3, 1, 1, 480},
      {"efficientnet_b0", 2, 480, 14, 14, 80, 1, 1, 1, 0, 1},
      {"efficientnet_b0", 1, 480, 14, 14, 480, 5, 5, 1, 2, 480},
      {"efficientnet_b0", 1, 480, 14, 14, 112, 1, 1, 1, 0, 1},
      {"efficientnet_b0", 3, 112, 14, 14, 672, 1, 1, 1, 0, 1},
      {"efficientnet_b0", 2, 672, 14, 14, 672, 5, 5, 1, 2, 672},
      {"efficientnet_b0", 2, 672, 14, 14, 112, 1, 1, 1, 0, 1},
      {"efficientnet_b0", 1, 672, 14, 14, 672, 5, 5, 2, 2, 672},
      {"efficientnet_b0", 1, 672, 7, 7, 192, 1, 1, 1, 0, 1},
      {"efficientnet_b0", 4, 192, 7, 7, 1152, 1, 1, 1, 0, 1},
      {"efficientnet_b0", 3, 1152, 7, 7, 1152, 5, 5, 1, 2, 1152},
      {"efficientnet_b0", 3, 1152, 7, 7, 192, 1, 1, 1, 0, 1},
      {"efficientnet_b0", 1, 1152, 7, 7, 1152, 3, 3, 1, 1, 1152},
      {"efficientnet_b0", 1, 1152, 7, 7, 320, 1, 1, 1, 0, 1},
      {"efficientnet_b0", 1, 320, 7, 7, 1280, 1, 1, 1, 0, 1},
      {"squeezenet", 1, 3, 224, 224, 64, 3, 3, 2, 0, 1},
      {"squeezenet", 1, 64, 55, 55, 16, 1, 1, 1, 0, 1},
      {"squeezenet", 2, 16, 55, 55, 64, 1, 1, 1, 0, 1},
      {"squeezenet", 2, 16, 55, 55, 64, 3, 3, 1, 1, 1},
      {"squeezenet", 1, 128, 55, 55, 16, 1, 1, 1, 0, 1},
      {"squeezenet", 1, 128, 27, 27, 32, 1, 1, 1, 0, 1},
      {"squeezenet", 2, 32, 27, 27, 128, 1, 1, 1, 0, 1},
      {"squeezenet", 2, 32, 27, 27, 128, 3, 3, 1, 1, 1},
      {"squeezenet", 1, 256, 27, 27, 32, 1, 1, 1, 0, 1},
      {"squeezenet", 1, 256, 13, 13, 48, 1, 1, 1, 0, 1},
      {"squeezenet", 2, 48, 13, 13, 192, 1, 1, 1, 0, 1},
      {"squeezenet", 2, 48, 13, 13, 192, 3, 3, 1, 1, 1},
      {"squeezenet", 1, 384, 13, 13, 48, 1, 1, 1, 0, 1},
      {"squeezenet", 1, 384, 13, 13, 64, 1, 1, 1, 0, 1},
      {"squeezenet", 2, 64, 13, 13, 256, 1, 1, 1, 0, 1},
      {"squeezenet", 2, 64, 13, 13, 256, 3, 3, 1, 1, 1},
      {"squeezenet", 1, 512, 13, 13, 64, 1, 1, 1, 0, 1},
      {"squeezenet", 1, 512, 13, 13, 1000, 1, 1, 1, 0, 1},
  };
  return layers;
}

}  // namespace kiln::bench
