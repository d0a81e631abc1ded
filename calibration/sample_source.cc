// Sample sources: image folders, .npy folders, raw-file lists, MNIST idx images.
#include "calibration/sample_source.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "calibration/npy_io.h"

namespace kiln::calib {
namespace fs = std::filesystem;
namespace {

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

bool IsImageName(const fs::path& p) {
  const std::string e = Lower(p.extension().string());
  return e == ".jpg" || e == ".jpeg" || e == ".png" || e == ".bmp";
}

Status CheckTensor(const HostTensor& t, const SampleInput& in, const std::string& where) {
  if (t.dtype != in.dtype || t.shape != in.shape) {
    return InvalidArgument(where + ": " + std::string(DTypeName(t.dtype)) + ShapeToString(t.shape) +
                           " does not match model input '" + in.name + "' " +
                           std::string(DTypeName(in.dtype)) + ShapeToString(in.shape));
  }
  return Status::Ok();
}

class ImageFolder : public SampleSource {
 public:
  ImageFolder(std::vector<fs::path> files, PreprocessSpec spec, std::vector<SampleInput> inputs)
      : files_(std::move(files)), spec_(std::move(spec)), inputs_(std::move(inputs)) {}
  size_t size() const override { return files_.size(); }
  std::string id(size_t i) const override { return files_[i].filename().string(); }
  Expected<std::vector<HostTensor>> Load(size_t i) const override {
    KILN_ASSIGN_OR_RETURN(HostTensor t, LoadImageTensor(files_[i].string(), spec_));
    t.name = inputs_[0].name;
    KILN_RETURN_IF_ERROR(CheckTensor(t, inputs_[0], files_[i].string() +
                                                        " (check --preprocess)"));
    return std::vector<HostTensor>{std::move(t)};
  }

 private:
  std::vector<fs::path> files_;
  PreprocessSpec spec_;
  std::vector<SampleInput> inputs_;
};

// Each sample: a list of files, one per input (.npy or raw float32).
class FileListSource : public SampleSource {
 public:
  FileListSource(std::vector<std::string> ids, std::vector<std::vector<std::string>> files,
                 bool raw, std::vector<SampleInput> inputs)
      : ids_(std::move(ids)), files_(std::move(files)), raw_(raw), inputs_(std::move(inputs)) {}
  size_t size() const override { return files_.size(); }
  std::string id(size_t i) const override { return ids_[i]; }
  Expected<std::vector<HostTensor>> Load(size_t i) const override {
    std::vector<HostTensor> out;
    for (size_t k = 0; k < inputs_.size(); ++k) {
      const std::string& path = files_[i][k];
      HostTensor t;
      if (raw_) {
        t = HostTensor(inputs_[k].name, inputs_[k].dtype, inputs_[k].shape);
        std::ifstream f(path, std::ios::binary);
        if (!f) return NotFound("raw input file '" + path + "' not found");
        f.read(reinterpret_cast<char*>(t.bytes.data()), static_cast<std::streamsize>(t.bytes.size()));
        if (static_cast<size_t>(f.gcount()) != t.bytes.size() || f.peek() != EOF) {
          return InvalidArgument("raw input file '" + path + "' must hold exactly " +
                                 std::to_string(t.bytes.size()) + " bytes (" +
                                 ShapeToString(inputs_[k].shape) + " float32)");
        }
      } else {
        KILN_ASSIGN_OR_RETURN(t, ReadNpyFile(path));
      }
      t.name = inputs_[k].name;
      KILN_RETURN_IF_ERROR(CheckTensor(t, inputs_[k], path));
      out.push_back(std::move(t));
    }
    return out;
  }

 private:
  std::vector<std::string> ids_;
  std::vector<std::vector<std::string>> files_;
  bool raw_;
  std::vector<SampleInput> inputs_;
};

class IdxSource : public SampleSource {
 public:
  IdxSource(std::vector<Image8> images, PreprocessSpec spec, std::vector<SampleInput> inputs)
      : images_(std::move(images)), spec_(std::move(spec)), inputs_(std::move(inputs)) {}
  size_t size() const override { return images_.size(); }
  std::string id(size_t i) const override { return "#" + std::to_string(i); }
  Expected<std::vector<HostTensor>> Load(size_t i) const override {
    KILN_ASSIGN_OR_RETURN(HostTensor t, PreprocessImage(images_[i], spec_));
    t.name = inputs_[0].name;
    KILN_RETURN_IF_ERROR(CheckTensor(t, inputs_[0], "idx image " + std::to_string(i) +
                                                        " (check --preprocess)"));
    return std::vector<HostTensor>{std::move(t)};
  }

 private:
  std::vector<Image8> images_;
  PreprocessSpec spec_;
  std::vector<SampleInput> inputs_;
};

Expected<std::unique_ptr<SampleSource>> OpenFolder(const fs::path& dir, const PreprocessSpec& spec,
                                                   const std::vector<SampleInput>& inputs) {
  std::vector<fs::path> images, npys, subdirs;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    if (e.is_directory()) {
      subdirs.push_back(e.path());
    } else if (IsImageName(e.path())) {
      images.push_back(e.path());
    } else if (Lower(e.path().extension().string()) == ".npy") {
      npys.push_back(e.path());
    }
  }
  if (ec) return InvalidArgument("cannot read folder '" + dir.string() + "': " + ec.message());
  std::sort(images.begin(), images.end());
  std::sort(npys.begin(), npys.end());
  std::sort(subdirs.begin(), subdirs.end());
  if (!images.empty()) {
    if (inputs.size() != 1) {
      return InvalidArgument("an image folder feeds one-input models; this model has " +
                             std::to_string(inputs.size()) + " inputs");
    }
    return std::unique_ptr<SampleSource>(new ImageFolder(std::move(images), spec, inputs));
  }
  std::vector<std::string> ids;
  std::vector<std::vector<std::string>> files;
  if (!npys.empty()) {
    if (inputs.size() != 1) {
      return InvalidArgument("a folder of .npy files feeds one-input models; give one sub-folder "
                             "per sample holding <input name>.npy instead");
    }
    for (const auto& p : npys) {
      ids.push_back(p.filename().string());
      files.push_back({p.string()});
    }
  } else {
    for (const auto& d : subdirs) {
      std::vector<std::string> per_input;
      for (const SampleInput& in : inputs) {
        const fs::path p = d / (in.name + ".npy");
        if (!fs::exists(p)) {
          return InvalidArgument("sample folder '" + d.string() + "' has no " + p.filename().string());
        }
        per_input.push_back(p.string());
      }
      ids.push_back(d.filename().string());
      files.push_back(std::move(per_input));
    }
  }
  if (files.empty()) {
    return InvalidArgument("folder '" + dir.string() + "' holds no images, .npy files or sample "
                           "sub-folders");
  }
  return std::unique_ptr<SampleSource>(new FileListSource(std::move(ids), std::move(files), false, inputs));
}

Expected<std::unique_ptr<SampleSource>> OpenListFile(const fs::path& list,
                                                     const std::vector<SampleInput>& inputs) {
  std::ifstream f(list);
  if (!f) return NotFound("list file '" + list.string() + "' not found");
  std::vector<std::string> ids;
  std::vector<std::vector<std::string>> files;
  std::string line;
  int line_no = 0;
  while (std::getline(f, line)) {
    ++line_no;
    if (line.empty() || line[0] == '#' || line[0] == '%') continue;
    std::istringstream ss(line);
    std::vector<std::string> per_input(inputs.size());
    std::string tok;
    size_t positional = 0;
    while (ss >> tok) {
      const size_t sep = tok.find(":=");
      std::string path = tok;
      size_t slot = positional++;
      if (sep != std::string::npos) {
        const std::string name = tok.substr(0, sep);
        path = tok.substr(sep + 2);
        slot = inputs.size();
        for (size_t k = 0; k < inputs.size(); ++k) {
          if (inputs[k].name == name) slot = k;
        }
        if (slot == inputs.size()) {
          return InvalidArgument(list.string() + ":" + std::to_string(line_no) + ": no model input '" + name + "'");
        }
      }
      if (slot >= inputs.size()) {
        return InvalidArgument(list.string() + ":" + std::to_string(line_no) + ": more files than model inputs");
      }
      fs::path p(path);
      if (p.is_relative()) p = list.parent_path() / p;
      per_input[slot] = p.string();
    }
    for (size_t k = 0; k < inputs.size(); ++k) {
      if (per_input[k].empty()) {
        return InvalidArgument(list.string() + ":" + std::to_string(line_no) + ": no file for input '" + inputs[k].name + "'");
      }
    }
    ids.push_back("line " + std::to_string(line_no));
    files.push_back(std::move(per_input));
  }
  if (files.empty()) return InvalidArgument("list file '" + list.string() + "' names no samples");
  const bool raw = Lower(fs::path(files[0][0]).extension().string()) != ".npy";
  return std::unique_ptr<SampleSource>(new FileListSource(std::move(ids), std::move(files), raw, inputs));
}

uint32_t BigEndian32(const uint8_t* p) {
  return (uint32_t{p[0]} << 24) | (uint32_t{p[1]} << 16) | (uint32_t{p[2]} << 8) | p[3];
}

Expected<std::vector<uint8_t>> ReadAll(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return NotFound("file '" + path + "' not found");
  return std::vector<uint8_t>((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
}

}  // namespace

bool IsIdxFile(const std::string& path, uint32_t magic) {
  std::ifstream f(path, std::ios::binary);
  uint8_t b[4];
  if (!f.read(reinterpret_cast<char*>(b), 4)) return false;
  return BigEndian32(b) == magic;
}

Expected<std::vector<Image8>> ReadIdxImages(const std::string& path) {
  KILN_ASSIGN_OR_RETURN(std::vector<uint8_t> d, ReadAll(path));
  if (d.size() < 16 || BigEndian32(d.data()) != 2051) {
    return InvalidArgument("'" + path + "' is not an idx3 image file (magic 2051)");
  }
  const uint64_t n = BigEndian32(d.data() + 4), rows = BigEndian32(d.data() + 8),
                 cols = BigEndian32(d.data() + 12);
  if (rows == 0 || cols == 0 || rows > 65536 || cols > 65536 || n > (1u << 24) ||
      d.size() - 16 != n * rows * cols) {
    return InvalidArgument("'" + path + "': idx header does not match the file size");
  }
  std::vector<Image8> out(n);
  for (uint64_t i = 0; i < n; ++i) {
    Image8& img = out[i];
    img.width = static_cast<int>(cols);
    img.height = static_cast<int>(rows);
    img.channels = 3;  // grey replicated, as decoded images are (PIL convert('RGB'))
    img.pixels.resize(rows * cols * 3);
    const uint8_t* src = d.data() + 16 + i * rows * cols;
    for (uint64_t k = 0; k < rows * cols; ++k) {
      img.pixels[k * 3] = img.pixels[k * 3 + 1] = img.pixels[k * 3 + 2] = src[k];
    }
  }
  return out;
}

Expected<std::vector<int>> ReadIdxLabels(const std::string& path) {
  KILN_ASSIGN_OR_RETURN(std::vector<uint8_t> d, ReadAll(path));
  if (d.size() < 8 || BigEndian32(d.data()) != 2049) {
    return InvalidArgument("'" + path + "' is not an idx1 label file (magic 2049)");
  }
  const uint64_t n = BigEndian32(d.data() + 4);
  if (d.size() - 8 != n) return InvalidArgument("'" + path + "': idx header does not match the file size");
  return std::vector<int>(d.begin() + 8, d.end());
}

Expected<std::unique_ptr<SampleSource>> OpenSampleSource(const std::string& path,
                                                         const PreprocessSpec& spec,
                                                         const std::vector<SampleInput>& inputs) {
  std::error_code ec;
  if (inputs.empty()) return InvalidArgument("the model has no inputs");
  if (fs::is_directory(path, ec)) return OpenFolder(path, spec, inputs);
  if (!fs::exists(path, ec)) return NotFound("calibration data '" + path + "' not found");
  if (IsIdxFile(path, 2051)) {
    if (inputs.size() != 1) return InvalidArgument("idx images feed one-input models");
    KILN_ASSIGN_OR_RETURN(std::vector<Image8> images, ReadIdxImages(path));
    return std::unique_ptr<SampleSource>(new IdxSource(std::move(images), spec, inputs));
  }
  return OpenListFile(path, inputs);
}

}  // namespace kiln::calib
