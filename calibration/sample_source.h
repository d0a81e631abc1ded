// Where calibration (and evaluation) samples come from: a folder of images (JPEG/PNG, decoded
// and preprocessed with the SPEC `kiln run` takes), a folder of .npy tensors (one file per
// sample, or one sub-folder per sample holding <input name>.npy), a list file of raw float32
// files (SNPE's input_list: one sample per line, "path" or "name:=path" per input), or an MNIST
// idx image file. Samples are ordered by file name (list files: by line).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "calibration/image_preprocess.h"
#include "ir/host_tensor.h"
#include "ir/status.h"

namespace kiln::calib {

// A model input as the samples must match it.
struct SampleInput {
  std::string name;
  DType dtype = DType::kF32;
  Shape shape;
};

class SampleSource {
 public:
  virtual ~SampleSource() = default;
  virtual size_t size() const = 0;
  // Stable identity of sample i (its file name relative to the source, or "#<index>").
  virtual std::string id(size_t i) const = 0;
  // The model inputs of sample i, in model input order.
  virtual Expected<std::vector<HostTensor>> Load(size_t i) const = 0;
};

// Opens `path` by what it is (see the file comment). `spec` preprocesses images.
Expected<std::unique_ptr<SampleSource>> OpenSampleSource(const std::string& path,
                                                         const PreprocessSpec& spec,
                                                         const std::vector<SampleInput>& inputs);

// MNIST idx files (big-endian header; see ../shared/digits/README.md).
Expected<std::vector<Image8>> ReadIdxImages(const std::string& path);   // magic 2051
Expected<std::vector<int>> ReadIdxLabels(const std::string& path);      // magic 2049
bool IsIdxFile(const std::string& path, uint32_t magic);

}  // namespace kiln::calib
