// Pattern substitution: small op graphs that a plugin computes in one
// kernel of its own (sy_pattern_t: matmul → add(bias) → gelu to a cuBLASLt
// epilogue or a oneDNN post-op) replace their matches in the graph.
//
// A match is a chain of live nodes with the pattern's ops, attributes and
// wiring, on the pattern's device type, whose inner values nobody else
// reads and which are no graph outputs. It is replaced — the last node
// becomes a call of the pattern's replacement op on the match's inputs, the
// others die — only when the replacement resolves to a kernel for these
// inputs (kernels may decline) and, under Patterns::kMeasured, when that
// kernel was measured faster than the match as the plan would run it
// without the replacement (epilogues are slower than separate kernels on
// some GPUs: sglang#34350, llm.c#338; trailing elementwise ops fuse:
// Note [Verdicts against the plan] in verdicts.h). Measuring runs both on
// scratch tensors of the match's shapes; verdicts are remembered per
// pattern, shapes, device and plan for the process.
//
// Thread-safety: runs on the calling thread; real kernels run while it
// measures.
#ifndef SWITCHYARD_FUSION_COMPILE_PATTERNS_H_
#define SWITCHYARD_FUSION_COMPILE_PATTERNS_H_

#include <string>
#include <vector>

#include "dispatcher/dispatch/dispatcher.h"
#include "fusion/backend/backends.h"
#include "fusion/capture/op_graph.h"
#include "fusion/graph.h"

namespace sy::fusion {

struct PatternOutcome {
  std::vector<int> replaced;       // nodes that now call a replacement op
  std::vector<std::string> notes;  // one line per match considered
};

PatternOutcome ApplyPatterns(core::Dispatcher& dispatcher, OpGraph& graph,
                             const Backends& backends,
                             CompileOptions::Patterns policy);

}  // namespace sy::fusion

#endif  // SWITCHYARD_FUSION_COMPILE_PATTERNS_H_
