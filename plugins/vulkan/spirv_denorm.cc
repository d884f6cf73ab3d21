#include "spirv_denorm.h"

#include <algorithm>
#include <set>
#include <string_view>
#include <tuple>

#include "switchyard/plugin.hpp"

namespace sy::vulkan {
namespace {

using ::sy::plugin::StrCat;

// The few SPIR-V enumerants used here (SPIR-V 1.6 unified specification;
// spirv-headers' spirv.hpp has them too, but the plugin builds without it).
constexpr uint32_t kMagic = 0x07230203;
constexpr uint32_t kHeaderWords = 5;
constexpr uint32_t kVersion14 = 0x00010400;
constexpr uint32_t kOpExtension = 10;
constexpr uint32_t kOpEntryPoint = 15;
constexpr uint32_t kOpExecutionMode = 16;
constexpr uint32_t kOpCapability = 17;
constexpr uint32_t kOpTypeFloat = 22;
constexpr uint32_t kOpExecutionModeId = 331;
constexpr uint32_t kCapabilityDenormPreserve = 4464;
constexpr uint32_t kModeDenormPreserve = 4459;
constexpr uint32_t kModeDenormFlushToZero = 4460;
constexpr std::string_view kExtension = "SPV_KHR_float_controls";

uint32_t Instruction(uint32_t opcode, uint32_t words) { return (words << 16) | opcode; }

// A literal string's words: UTF-8 octets four to a word, the first in the
// lowest byte, NUL-terminated and padded with NULs.
std::vector<uint32_t> StringWords(std::string_view s) {
  std::vector<uint32_t> words(s.size() / 4 + 1, 0);
  for (size_t i = 0; i < s.size(); ++i) {
    words[i / 4] |= static_cast<uint32_t>(static_cast<unsigned char>(s[i])) << (8 * (i % 4));
  }
  return words;
}

bool IsString(std::span<const uint32_t> operands, std::string_view s) {
  const std::vector<uint32_t> want = StringWords(s);
  return operands.size() == want.size() && std::equal(want.begin(), want.end(), operands.begin());
}

// What the patch needs to know of a module, in one pass.
struct Scan {
  size_t capabilities_end = 0;  // word index after the last OpCapability
  size_t extensions_end = 0;    // … after the last OpExtension (0: none)
  size_t modes_end = 0;         // … after the last OpEntryPoint/OpExecutionMode(Id)
  bool has_capability = false;
  bool has_extension = false;
  std::vector<uint32_t> entries;  // entry point ids
  std::vector<uint32_t> widths;   // OpTypeFloat widths, each once
  std::set<std::tuple<uint32_t, uint32_t, uint32_t>> modes;  // (entry, mode, width)
};

bool ScanModule(std::span<const uint32_t> spirv, Scan* scan, std::string* error) {
  if (spirv.size() < kHeaderWords || spirv[0] != kMagic) {
    *error = StrCat("not SPIR-V (", spirv.size(),
                    " words; a module has a 5-word header starting with 0x07230203)");
    return false;
  }
  for (size_t at = kHeaderWords; at < spirv.size();) {
    const uint32_t opcode = spirv[at] & 0xffff;
    const uint32_t count = spirv[at] >> 16;
    if (count == 0 || count > spirv.size() - at) {
      *error = StrCat("SPIR-V instruction ", opcode, " at word ", at, " claims ", count,
                      " words; ", spirv.size() - at, " are left");
      return false;
    }
    const std::span<const uint32_t> operands = spirv.subspan(at + 1, count - 1);
    const size_t next = at + count;
    switch (opcode) {
      case kOpCapability:
        scan->capabilities_end = next;
        if (!operands.empty() && operands[0] == kCapabilityDenormPreserve) {
          scan->has_capability = true;
        }
        break;
      case kOpExtension:
        scan->extensions_end = next;
        if (IsString(operands, kExtension)) scan->has_extension = true;
        break;
      case kOpEntryPoint:
        scan->modes_end = next;
        if (operands.size() >= 2) scan->entries.push_back(operands[1]);
        break;
      case kOpExecutionMode:
      case kOpExecutionModeId:
        scan->modes_end = next;
        if (operands.size() >= 3) scan->modes.insert({operands[0], operands[1], operands[2]});
        break;
      case kOpTypeFloat:
        if (operands.size() >= 2 &&
            std::find(scan->widths.begin(), scan->widths.end(), operands[1]) ==
                scan->widths.end()) {
          scan->widths.push_back(operands[1]);
        }
        break;
      default:
        break;
    }
    at = next;
  }
  if (scan->capabilities_end == 0) {
    *error = "SPIR-V module without an OpCapability";
    return false;
  }
  scan->extensions_end = std::max(scan->extensions_end, scan->capabilities_end);
  scan->modes_end = std::max(scan->modes_end, scan->extensions_end);
  return true;
}

}  // namespace

std::vector<uint32_t> DenormPreserveWidths(const DenormSupport& support,
                                           std::span<const uint32_t> declared) {
  const auto has = [&](uint32_t w) {
    return std::find(declared.begin(), declared.end(), w) != declared.end();
  };
  const auto preserved = [&](uint32_t w) {
    return w == 16 ? support.preserve16 : w == 32 ? support.preserve32
                   : w == 64 ? support.preserve64 : false;
  };
  // A group of widths that must share a mode: all declared ones preserved,
  // or none asked for.
  const auto group_ok = [&](std::initializer_list<uint32_t> group) {
    return std::all_of(group.begin(), group.end(),
                       [&](uint32_t w) { return !has(w) || preserved(w); });
  };
  std::vector<uint32_t> widths;
  for (uint32_t w : {16u, 32u, 64u}) {
    if (!has(w) || !preserved(w)) continue;
    switch (support.independence) {
      case DenormSupport::Independence::kAll:
        break;
      case DenormSupport::Independence::k32BitOnly:
        if (w != 32 && !group_ok({16, 64})) continue;
        break;
      case DenormSupport::Independence::kNone:
        if (!group_ok({16, 32, 64})) continue;
        break;
    }
    widths.push_back(w);
  }
  return widths;
}

bool AddDenormPreserve(std::span<const uint32_t> spirv, const DenormSupport& support,
                       std::vector<uint32_t>* out, std::string* error) {
  Scan scan;
  if (!ScanModule(spirv, &scan, error)) return false;
  // Widths to ask for: not where an entry point already asks to flush.
  std::vector<uint32_t> widths;
  for (uint32_t w : DenormPreserveWidths(support, scan.widths)) {
    const bool flushed = std::any_of(scan.entries.begin(), scan.entries.end(), [&](uint32_t e) {
      return scan.modes.count({e, kModeDenormFlushToZero, w}) > 0;
    });
    if (!flushed) widths.push_back(w);
  }
  std::vector<uint32_t> modes;
  for (uint32_t entry : scan.entries) {
    for (uint32_t w : widths) {
      if (scan.modes.count({entry, kModeDenormPreserve, w}) > 0) continue;
      modes.insert(modes.end(),
                   {Instruction(kOpExecutionMode, 4), entry, kModeDenormPreserve, w});
    }
  }
  const bool ask = !widths.empty() && !scan.entries.empty();
  std::vector<uint32_t> capability, extension;
  if (ask && !scan.has_capability) {
    capability = {Instruction(kOpCapability, 2), kCapabilityDenormPreserve};
  }
  if (ask && !scan.has_extension && spirv[1] < kVersion14) {
    const std::vector<uint32_t> name = StringWords(kExtension);
    extension.push_back(Instruction(kOpExtension, static_cast<uint32_t>(name.size() + 1)));
    extension.insert(extension.end(), name.begin(), name.end());
  }
  std::vector<uint32_t> result;
  result.reserve(spirv.size() + capability.size() + extension.size() + modes.size());
  const auto copy = [&](size_t from, size_t to) {
    result.insert(result.end(), spirv.begin() + from, spirv.begin() + to);
  };
  copy(0, scan.capabilities_end);
  result.insert(result.end(), capability.begin(), capability.end());
  copy(scan.capabilities_end, scan.extensions_end);
  result.insert(result.end(), extension.begin(), extension.end());
  copy(scan.extensions_end, scan.modes_end);
  result.insert(result.end(), modes.begin(), modes.end());
  copy(scan.modes_end, spirv.size());
  *out = std::move(result);
  return true;
}

}  // namespace sy::vulkan
