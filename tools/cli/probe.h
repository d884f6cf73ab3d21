// `switchyard info --probe`: before loading plugins into this process, load
// each one alone in a child process. A plugin whose load crashes, exits or
// hangs there is kept out of this process, with a record saying so and at
// which step; the rest load as usual.
//
// The verdict fails closed: a plugin is let through only when its child
// exits with status 0 after writing "survived" on its report pipe. A child
// that could not be started, ended by a signal or by any exit status
// without that word (a plugin calling exit(0) in its load included), or
// took longer than the limit, keeps the plugin out.
#ifndef SWITCHYARD_TOOLS_CLI_PROBE_H_
#define SWITCHYARD_TOOLS_CLI_PROBE_H_

#include <string>
#include <vector>

#include "switchyard/switchyard.hpp"

namespace sy::cli {

// The hidden subcommand a probe child runs: `switchyard probe-plugin PATH`.
inline constexpr const char* kProbeCommand = "probe-plugin";

// Probes every manifest `options` would load (sy::DiscoverPlugins), each in
// a child running this executable's `probe-plugin`, and returns those that
// did not survive with the reason, ready for ContextOptions::refused (the
// context records them as failed at the probe stage). A child gets
// `timeout_s` seconds.
std::vector<sy::ContextOptions::Refusal> ProbePlugins(const sy::ContextOptions& options,
                                                      double timeout_s);

// The child's side: loads the one manifest at `manifest_path` into a fresh
// runtime (nothing else, no environment overrides), writing "stage <name>"
// before each step and finally "survived" (one line each) to descriptor
// `report_fd` (none when negative), and returns 0 however the load went —
// only a crash, an exit or a hang in the plugin's own code is the parent's
// business.
int RunProbeChild(const std::string& manifest_path, int report_fd);

}  // namespace sy::cli

#endif  // SWITCHYARD_TOOLS_CLI_PROBE_H_
