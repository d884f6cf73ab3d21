// "fakedev": a device type for tests — host memory behind a distinct device
// type, so cross-device copies, CPU fallback and per-device dispatch can be
// exercised without hardware.
#ifndef SWITCHYARD_TESTS_FAKE_DEVICE_H_
#define SWITCHYARD_TESTS_FAKE_DEVICE_H_

#include "switchyard/plugin.h"

namespace sy_test {

// The device table; `host` is kept for creating errors.
const sy_device_api_t* FakeDeviceApi(const sy_host_api_t* host);

}  // namespace sy_test

#endif  // SWITCHYARD_TESTS_FAKE_DEVICE_H_
