// The myaccel device type: the table of sy_device_api_t slots the host
// drives for memory, copies, streams and events.
//
// This template's "accelerator" is host memory with work run inline, so the
// plugin runs anywhere; a real backend puts its driver calls in these slots
// and keeps the same checks and messages.
#ifndef MYVENDOR_DEVICE_H_
#define MYVENDOR_DEVICE_H_

#include "switchyard/plugin.h"

namespace myvendor {

inline constexpr const char* kDeviceType = "myaccel";

// The static table registered in `load`; valid until the library is closed.
const sy_device_api_t& DeviceApi();

}  // namespace myvendor

#endif  // MYVENDOR_DEVICE_H_
