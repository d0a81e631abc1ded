// The preprocessing SPEC parser and image -> tensor conversion (decode with stb, resize with the
// PIL-compatible filter, centre crop, normalise, lay out).
#include "calibration/image_preprocess.h"

#include <stb/stb_image.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <memory>

namespace kiln {
namespace {

std::string Trim(std::string_view s) {
  size_t b = 0, e = s.size();
  while (b < e && (s[b] == ' ' || s[b] == '\t')) ++b;
  while (e > b && (s[e - 1] == ' ' || s[e - 1] == '\t')) --e;
  return std::string(s.substr(b, e - b));
}

std::vector<std::string> Split(std::string_view s, char sep) {
  std::vector<std::string> out;
  size_t start = 0;
  while (true) {
    const size_t p = s.find(sep, start);
    out.push_back(Trim(s.substr(start, p == std::string_view::npos ? p : p - start)));
    if (p == std::string_view::npos) break;
    start = p + 1;
  }
  return out;
}

Expected<double> ParseNumber(const std::string& text, const std::string& item) {
  if (text.empty()) return InvalidArgument("preprocess '" + item + "': missing number");
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (end != text.c_str() + text.size() || !std::isfinite(v))
    return InvalidArgument("preprocess '" + item + "': '" + text + "' is not a number");
  return v;
}

Expected<int> ParseSize(const std::string& text, const std::string& item) {
  if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos || text.size() > 6)
    return InvalidArgument("preprocess '" + item + "': '" + text +
                           "' is not a positive integer size");
  const int v = std::atoi(text.c_str());
  if (v <= 0 || v > 65536)
    return InvalidArgument("preprocess '" + item + "': size must be in 1..65536");
  return v;
}

// "N" -> (N, N) or (N, 0) when `square` is false; "WxH" -> (W, H).
Status ParseSizePair(const std::string& value, const std::string& item, bool square, int* w,
                     int* h) {
  const size_t x = value.find('x');
  if (x == std::string::npos) {
    KILN_ASSIGN_OR_RETURN(*w, ParseSize(value, item));
    *h = square ? *w : 0;
    return Status::Ok();
  }
  KILN_ASSIGN_OR_RETURN(*w, ParseSize(value.substr(0, x), item));
  KILN_ASSIGN_OR_RETURN(*h, ParseSize(value.substr(x + 1), item));
  return Status::Ok();
}

Expected<std::vector<float>> ParseList(const std::string& value, const std::string& item) {
  std::vector<float> out;
  for (const std::string& part : Split(value, ':')) {
    KILN_ASSIGN_OR_RETURN(double v, ParseNumber(part, item));
    out.push_back(static_cast<float>(v));
  }
  return out;
}

// Python's round(): half to even (the default floating-point rounding mode).
int RoundHalfEven(double v) { return static_cast<int>(std::nearbyint(v)); }

}  // namespace

Expected<PreprocessSpec> ParsePreprocessSpec(std::string_view text) {
  PreprocessSpec spec;
  if (Trim(text).empty()) return spec;
  bool seen_channels = false, seen_layout = false, seen_resize = false, seen_crop = false,
       seen_scale = false, seen_mean = false, seen_std = false;
  auto once = [](bool* seen, const std::string& what) -> Status {
    if (*seen) return InvalidArgument("preprocess: '" + what + "' given more than once");
    *seen = true;
    return Status::Ok();
  };
  for (const std::string& item : Split(text, ',')) {
    if (item.empty())
      return InvalidArgument("preprocess: empty item in '" + std::string(text) + "'");
    const size_t eq = item.find('=');
    const std::string key = Trim(item.substr(0, eq));
    const std::string value = eq == std::string::npos ? "" : Trim(item.substr(eq + 1));
    if (eq == std::string::npos) {
      if (key == "rgb" || key == "bgr" || key == "gray") {
        KILN_RETURN_IF_ERROR(once(&seen_channels, "rgb/bgr/gray"));
        spec.channels = key == "rgb"   ? PreprocessSpec::Channels::kRgb
                        : key == "bgr" ? PreprocessSpec::Channels::kBgr
                                       : PreprocessSpec::Channels::kGray;
      } else if (key == "nchw" || key == "nhwc") {
        KILN_RETURN_IF_ERROR(once(&seen_layout, "nchw/nhwc"));
        spec.nchw = key == "nchw";
      } else {
        return InvalidArgument("preprocess: unknown item '" + item +
                               "' (expected resize=, crop=, scale=, mean=, std=, rgb, bgr, gray, "
                               "nchw or nhwc)");
      }
      continue;
    }
    if (key == "resize") {
      KILN_RETURN_IF_ERROR(once(&seen_resize, "resize"));
      int w = 0, h = 0;
      KILN_RETURN_IF_ERROR(ParseSizePair(value, item, /*square=*/false, &w, &h));
      if (h == 0) {
        spec.resize_short = w;
      } else {
        spec.resize_width = w;
        spec.resize_height = h;
      }
    } else if (key == "crop") {
      KILN_RETURN_IF_ERROR(once(&seen_crop, "crop"));
      KILN_RETURN_IF_ERROR(
          ParseSizePair(value, item, /*square=*/true, &spec.crop_width, &spec.crop_height));
    } else if (key == "scale") {
      KILN_RETURN_IF_ERROR(once(&seen_scale, "scale"));
      const size_t slash = value.find('/');
      KILN_ASSIGN_OR_RETURN(spec.scale_num, ParseNumber(Trim(value.substr(0, slash)), item));
      if (slash != std::string::npos) {
        KILN_ASSIGN_OR_RETURN(spec.scale_den, ParseNumber(Trim(value.substr(slash + 1)), item));
        if (spec.scale_den == 0) return InvalidArgument("preprocess '" + item + "': division by 0");
      }
    } else if (key == "mean") {
      KILN_RETURN_IF_ERROR(once(&seen_mean, "mean"));
      KILN_ASSIGN_OR_RETURN(spec.mean, ParseList(value, item));
    } else if (key == "std") {
      KILN_RETURN_IF_ERROR(once(&seen_std, "std"));
      KILN_ASSIGN_OR_RETURN(spec.std, ParseList(value, item));
      for (float s : spec.std)
        if (s == 0.f) return InvalidArgument("preprocess '" + item + "': std must not be 0");
    } else {
      return InvalidArgument("preprocess: unknown item '" + item + "'");
    }
  }
  const size_t c = static_cast<size_t>(spec.num_channels());
  if (!spec.mean.empty() && spec.mean.size() != 1 && spec.mean.size() != c)
    return InvalidArgument("preprocess: mean has " + std::to_string(spec.mean.size()) +
                           " values, expected " + (c == 1 ? "1" : "1 or " + std::to_string(c)));
  if (!spec.std.empty() && spec.std.size() != 1 && spec.std.size() != c)
    return InvalidArgument("preprocess: std has " + std::to_string(spec.std.size()) +
                           " values, expected " + (c == 1 ? "1" : "1 or " + std::to_string(c)));
  return spec;
}

Expected<Image8> DecodeImageRgbFromMemory(const uint8_t* data, size_t size) {
  if (size == 0 || size > (size_t{1} << 31)) return DataLoss("image data is empty or too large");
  int w = 0, h = 0, n = 0;
  std::unique_ptr<stbi_uc, void (*)(void*)> px(
      stbi_load_from_memory(data, static_cast<int>(size), &w, &h, &n, 3), stbi_image_free);
  if (!px) return DataLoss(std::string("cannot decode image: ") + stbi_failure_reason());
  Image8 img{w, h, 3, {}};
  img.pixels.assign(px.get(), px.get() + static_cast<size_t>(w) * h * 3);
  return img;
}

Expected<Image8> DecodeImageRgb(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return NotFound("cannot open image '" + path + "'");
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)),
                             std::istreambuf_iterator<char>());
  auto img = DecodeImageRgbFromMemory(bytes.data(), bytes.size());
  if (!img.ok()) return img.status().WithContext(path);
  return img;
}

Expected<HostTensor> PreprocessImage(const Image8& rgb, const PreprocessSpec& spec) {
  if (rgb.channels != 3 || rgb.width <= 0 || rgb.height <= 0)
    return InvalidArgument("PreprocessImage expects a non-empty 3-channel image");
  Image8 img = rgb;
  if (spec.channels == PreprocessSpec::Channels::kGray) {
    // PIL's convert('L'): ITU-R 601-2 luma in 16-bit fixed point (L24 in Convert.c).
    Image8 gray{img.width, img.height, 1, std::vector<uint8_t>(size_t(img.width) * img.height)};
    for (size_t i = 0; i < gray.pixels.size(); ++i) {
      const uint8_t* p = &img.pixels[i * 3];
      gray.pixels[i] =
          static_cast<uint8_t>((p[0] * 19595 + p[1] * 38470 + p[2] * 7471 + 0x8000) >> 16);
    }
    img = std::move(gray);
  }
  if (spec.resize_short > 0) {
    const int s = std::min(img.width, img.height), l = std::max(img.width, img.height);
    const int n = spec.resize_short;
    const int nl = std::max(1, RoundHalfEven(static_cast<double>(int64_t{l} * n) / s));
    img = img.width <= img.height ? ResizeBilinearPil(img, n, nl) : ResizeBilinearPil(img, nl, n);
  } else if (spec.resize_width > 0) {
    img = ResizeBilinearPil(img, spec.resize_width, spec.resize_height);
  }
  int x0 = 0, y0 = 0, w = img.width, h = img.height;
  if (spec.crop_width > 0) {
    if (spec.crop_width > img.width || spec.crop_height > img.height)
      return InvalidArgument("preprocess: crop " + std::to_string(spec.crop_width) + "x" +
                             std::to_string(spec.crop_height) + " is larger than the image (" +
                             std::to_string(img.width) + "x" + std::to_string(img.height) +
                             " after resize)");
    x0 = RoundHalfEven((img.width - spec.crop_width) / 2.0);
    y0 = RoundHalfEven((img.height - spec.crop_height) / 2.0);
    w = spec.crop_width;
    h = spec.crop_height;
  }
  const int c = img.channels;
  HostTensor t("", DType::kF32, spec.nchw ? Shape{1, c, h, w} : Shape{1, h, w, c});
  float* out = t.data<float>();
  const bool bgr = spec.channels == PreprocessSpec::Channels::kBgr;
  for (int oc = 0; oc < c; ++oc) {
    const int src_c = bgr ? 2 - oc : oc;  // output channel 0 of bgr is blue
    const float mean = spec.mean.empty() ? 0.f : spec.mean[spec.mean.size() == 1 ? 0 : oc];
    const float stdv = spec.std.empty() ? 1.f : spec.std[spec.std.size() == 1 ? 0 : oc];
    for (int y = 0; y < h; ++y) {
      for (int x = 0; x < w; ++x) {
        const uint8_t p =
            img.pixels[(static_cast<size_t>(y0 + y) * img.width + x0 + x) * c + src_c];
        float v = static_cast<float>(p);
        if (spec.scale_num != 1.0) v *= static_cast<float>(spec.scale_num);
        if (spec.scale_den != 1.0) v /= static_cast<float>(spec.scale_den);
        v = (v - mean) / stdv;
        const size_t idx = spec.nchw ? (static_cast<size_t>(oc) * h + y) * w + x
                                     : (static_cast<size_t>(y) * w + x) * c + oc;
        out[idx] = v;
      }
    }
  }
  return t;
}

Expected<HostTensor> LoadImageTensor(const std::string& path, const PreprocessSpec& spec) {
  KILN_ASSIGN_OR_RETURN(Image8 img, DecodeImageRgb(path));
  auto t = PreprocessImage(img, spec);
  if (!t.ok()) return t.status().WithContext(path);
  return t;
}

}  // namespace kiln
