// Image decoding (JPEG/PNG via stb) and the preprocessing SPEC that turns an image into a model
// input tensor, matching PIL's BILINEAR resize so inputs equal those the test data was made with.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "calibration/pil_resize.h"
#include "ir/host_tensor.h"
#include "ir/status.h"

namespace kiln {

// The parsed SPEC, e.g. "resize=256,crop=224,scale=1/255,mean=0.485:0.456:0.406,
// std=0.229:0.224:0.225,rgb,nchw". Steps always run in this order: channel conversion, resize,
// centre crop, scale, mean, std, layout. See docs/preprocessing.md.
struct PreprocessSpec {
  enum class Channels { kRgb, kBgr, kGray };
  int resize_short = 0;                     // resize=N: shorter side to N (0 = off)
  int resize_width = 0, resize_height = 0;  // resize=WxH: exact size (0 = off)
  int crop_width = 0, crop_height = 0;      // crop=N or crop=WxH (0 = off)
  double scale_num = 1.0, scale_den = 1.0;  // scale=A/B or scale=X: pixel * A / B
  std::vector<float> mean;  // one value, or one per output channel (in output order)
  std::vector<float> std;
  Channels channels = Channels::kRgb;
  bool nchw = true;

  int num_channels() const { return channels == Channels::kGray ? 1 : 3; }
};

// Parses a SPEC; an empty string is the identity (rgb, nchw, 0..255 floats).
Expected<PreprocessSpec> ParsePreprocessSpec(std::string_view spec);

// Decodes and preprocesses an image file into an f32 tensor [1,C,H,W] (or [1,H,W,C]).
Expected<HostTensor> LoadImageTensor(const std::string& path, const PreprocessSpec& spec);

// --- Building blocks, exposed for tests and the calibration tools. ---

// Decodes JPEG/PNG (and whatever else stb reads) to 3-channel RGB; alpha is dropped and grey
// images are replicated, as PIL's convert('RGB') does.
Expected<Image8> DecodeImageRgb(const std::string& path);
Expected<Image8> DecodeImageRgbFromMemory(const uint8_t* data, size_t size);

// Applies a parsed spec to decoded RGB pixels.
Expected<HostTensor> PreprocessImage(const Image8& rgb, const PreprocessSpec& spec);

}  // namespace kiln
