#include "autotune/candidates.h"

#include <algorithm>
#include <map>
#include <mutex>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "autotune/hash.h"
#include "dispatcher/dispatch/resolve.h"
#include "dispatcher/registry/load_record.h"
#include "dispatcher/base/plugin_instance.h"

namespace sy::autotune {

std::string Candidate::Label() const {
  if (variant < 0) return kernel_name;
  return absl::StrCat(kernel_name, " [", variant_name, "]");
}

std::vector<Candidate> SlotCandidates(const core::DispatchSlot& slot) {
  std::vector<Candidate> out;
  for (size_t i = 0; i < slot.choices.size(); ++i) {
    const core::KernelEntry* kernel = slot.choices[i].kernel;
    Candidate c;
    c.kernel = kernel;
    c.slot_index = static_cast<int>(i);
    c.kernel_name = kernel->QualifiedName();
    if (kernel->variants.empty()) {
      out.push_back(c);
      continue;
    }
    for (size_t v = 0; v < kernel->variants.size(); ++v) {
      Candidate with = c;
      with.variant = static_cast<int32_t>(v);
      with.variant_name = kernel->variants[v].name;
      out.push_back(std::move(with));
    }
  }
  std::stable_sort(out.begin(), out.end(), [](const Candidate& a, const Candidate& b) {
    if (a.kernel->priority != b.kernel->priority) {
      return a.kernel->priority > b.kernel->priority;
    }
    if (a.kernel_name != b.kernel_name) return a.kernel_name < b.kernel_name;
    return a.variant < b.variant;
  });
  return out;
}

absl::Status MarkDecliners(const core::BoundCall& bound,
                           std::vector<Candidate>& candidates) {
  std::map<const core::KernelEntry*, std::string> answers;  // "" = takes it
  for (Candidate& c : candidates) {
    if (!c.kernel->may_decline()) continue;
    auto it = answers.find(c.kernel);
    if (it == answers.end()) {
      core::KernelChoice choice;
      choice.kernel = c.kernel;
      absl::Status answer = core::QueryKernel(bound, choice);
      if (!answer.ok() && !absl::IsAborted(answer)) return answer;
      it = answers.emplace(c.kernel, answer.ok() ? "" : std::string(answer.message()))
               .first;
    }
    c.declined = it->second;
  }
  return absl::OkStatus();
}

std::string CandidateSetHash(const std::vector<Candidate>& candidates) {
  std::string text;
  for (const Candidate& c : candidates) {
    absl::StrAppend(&text, c.kernel_name, "#", c.variant, ":", c.variant_name,
                    "@", c.kernel->priority, c.kernel->may_decline() ? "d" : "",
                    "\n");
  }
  return HashHex(text, 16);
}

std::string PluginsText(const core::RuntimeState& state,
                        const std::vector<Candidate>& candidates) {
  std::map<std::string, const core::PluginInstance*> plugins;
  for (const Candidate& c : candidates) {
    const core::PluginInstance* p = c.kernel->plugin;
    plugins.emplace(p != nullptr ? p->name() : "core", p);
  }
  // Each plugin's option values, from its latest load record.
  std::map<std::string, std::string> options;
  {
    std::lock_guard<std::mutex> lock(state.plugins_mu);
    for (const core::LoadRecord& record : state.records) {
      if (!core::IsLoaded(record.outcome) || !plugins.count(record.name)) continue;
      std::vector<std::string> values;
      for (const core::LoadRecordOption& o : record.options) {
        values.push_back(absl::StrCat(o.name, "=", o.value));
      }
      std::sort(values.begin(), values.end());
      options[record.name] = absl::StrJoin(values, "\n");
    }
  }
  std::vector<std::string> parts;
  for (const auto& [name, plugin] : plugins) {
    if (plugin == nullptr) {
      parts.push_back("core");
      continue;
    }
    auto it = options.find(name);
    parts.push_back(absl::StrCat(
        name, " ", plugin->version(), " abi ", SY_PLUGIN_ABI_MAJOR, ".",
        plugin->abi_minor(), " options ",
        it == options.end() || it->second.empty() ? "-" : HashHex(it->second, 8)));
  }
  return absl::StrJoin(parts, ", ");
}

}  // namespace sy::autotune
