// The calling thread's graph capture (sy_graph_capture_*), for the entry
// points outside c_graph_capture.cc that must know of it.
#ifndef SWITCHYARD_API_SRC_GRAPH_CAPTURE_H_
#define SWITCHYARD_API_SRC_GRAPH_CAPTURE_H_

#include <cstdint>

namespace sy::capi {

// Ends and discards the calling thread's capture if it belongs to the
// context `context_token` (sy_context_destroy calls it: a capture must not
// keep recording a destroyed context's ops). Other threads' captures of it
// are discarded by their next sy_graph_capture_begin or _end.
void DiscardCaptureOf(uint64_t context_token);

}  // namespace sy::capi

#endif  // SWITCHYARD_API_SRC_GRAPH_CAPTURE_H_
