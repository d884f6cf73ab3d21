// Row-kernel shapes as options (cuda_codegen.h): the per-dtype defaults,
// SWITCHYARD_CUDA_FUSED_ROWS's parser, and the launch configurations a
// row kernel offers the autotuner (Note [Row kernel shapes]). The
// generator itself is cuda_codegen.cc.
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include "fused/cuda_codegen.h"

namespace sy::cuda::fusion {

RowDefaults DefaultRowShape(int kept_element_bytes) {
  // Note [Row kernel shapes] has the measurements.
  if (kept_element_bytes <= 2) return {1024, 1};
  if (kept_element_bytes == 4) return {1024, 8, 512};
  return {512, 8};
}

RowDefaults SharedRowShape() { return {256, 8}; }

bool ParseRowOptions(const std::string& text, CodegenOptions* out, std::string* error) {
  CodegenOptions parsed = *out;  // *out changes only when all of text parses
  CodegenOptions* options = &parsed;
  std::stringstream parts(text);
  std::string part;
  while (std::getline(parts, part, ',')) {
    const size_t eq = part.find('=');
    const std::string key = part.substr(0, eq);
    const std::string value = eq == std::string::npos ? "" : part.substr(eq + 1);
    char* end = nullptr;
    const long n = std::strtol(value.c_str(), &end, 10);
    const bool number = !value.empty() && end != nullptr && *end == '\0';
    if (key == "kept" && number && n >= 4 && n <= 1024) {
      options->row_kept_bytes = static_cast<int>(n);
    } else if (key == "block" && number && n >= 32 && n <= 1024 && (n & (n - 1)) == 0) {
      options->row_max_block = static_cast<int>(n);
    } else if (key == "cluster" && number && n >= 1 && n <= 16 && (n & (n - 1)) == 0) {
      options->row_max_cluster = static_cast<int>(n);
    } else if (key == "shared" && number && (n == 0 || n == 1)) {
      options->row_shared = static_cast<int>(n);
    } else if (key == "online" && number && (n == 0 || n == 1)) {
      options->online_softmax = n == 1;
    } else {
      *error = "'" + part + "' in '" + text +
               "' is not kept=<bytes, 4 to 1024>, block=<a power of two, 32 to 1024>, "
               "cluster=<1, 2, 4, 8 or 16>, shared=<0 or 1> or online=<0 or 1>";
      return false;
    }
  }
  *out = parsed;
  return true;
}

namespace {

// "block 1024, cluster 2" for a generated kernel's main entry.
std::string ShapeText(const GeneratedKernel& g) {
  const LaunchShape& shape = g.vector.entry.empty() ? g.scalar : g.vector;
  std::string text = "block " + std::to_string(shape.block);
  if (shape.cluster > 1) text += ", cluster " + std::to_string(shape.cluster);
  if (shape.smem > 0) text += ", " + std::to_string(shape.smem) + " B shared";
  return text;
}

bool SameKernel(const GeneratedKernel& a, const GeneratedKernel& b) {
  return a.source == b.source && a.vector.block == b.vector.block &&
         a.vector.cluster == b.vector.cluster && a.vector.grid == b.vector.grid &&
         a.vector.smem == b.vector.smem && a.scalar.block == b.scalar.block &&
         a.scalar.cluster == b.scalar.cluster && a.scalar.grid == b.scalar.grid &&
         a.scalar.smem == b.scalar.smem;
}

}  // namespace

std::vector<LaunchConfig> LaunchConfigs(const sy_fused_kernel_t& kernel,
                                        const CodegenOptions& base, bool pinned) {
  std::vector<LaunchConfig> configs;
  GeneratedKernel first;
  std::string error;
  if (!GenerateCuda(kernel, base, &first, &error)) return {{"default", base}};
  configs.push_back({"default: " + ShapeText(first), base});
  int64_t row_length = 1;
  for (int d = kernel.ndim - kernel.reduce_ndim; d < kernel.ndim; ++d) {
    row_length *= kernel.shape[d];
  }
  // Warp rows (Note [Row kernel shapes]) and elementwise kernels have no
  // shape to choose; a pinned shape is the user's choice.
  if (pinned || kernel.reduce_ndim == 0 || row_length <= 1024) return configs;
  struct Alternative {
    const char* label;
    int kept, block, cluster;  // 0: base's
    int shared;                // -1: base's
    bool other_form = false;   // softmax's reduction in the form base lacks
                               // (Note [Online softmax])
  };
  const Alternative alternatives[] = {
      {"registers", 0, 0, 0, 0},        {"shared memory", 0, 0, 0, 1},
      {"", 0, 0, 0, -1, true},  // labelled by the form it makes, below
      {"no cluster", 0, 0, 1, -1},      {"cluster 8", 0, 1024, 8, -1},
      {"block <= 512", 0, 512, 0, -1},  {"block <= 256", 0, 256, 0, -1},
      {"kept 64 B", 64, 0, 0, 0},
  };
  std::vector<GeneratedKernel> made = {first};
  for (const Alternative& a : alternatives) {
    if (static_cast<int>(configs.size()) >= kMaxLaunchConfigs) break;
    CodegenOptions o = base;
    if (a.kept > 0) o.row_kept_bytes = a.kept;
    if (a.block > 0) o.row_max_block = a.block;
    if (a.cluster > 0) o.row_max_cluster = a.cluster;
    if (a.shared >= 0) o.row_shared = a.shared;
    if (a.other_form) o.online_softmax = !base.online_softmax;
    GeneratedKernel g;
    if (!GenerateCuda(kernel, o, &g, &error)) continue;
    bool seen = false;
    for (const GeneratedKernel& earlier : made) seen = seen || SameKernel(earlier, g);
    if (seen) continue;
    std::string label = a.label;
    if (a.other_form) label = o.online_softmax ? "online reduction" : "two-stage reduction";
    configs.push_back({label + ": " + ShapeText(g), o});
    made.push_back(std::move(g));
  }
  return configs;
}

}  // namespace sy::cuda::fusion
