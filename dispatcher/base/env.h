// Reading SWITCHYARD_* settings from the environment.
#ifndef SWITCHYARD_DISPATCHER_BASE_ENV_H_
#define SWITCHYARD_DISPATCHER_BASE_ENV_H_

#include <optional>
#include <string>
#include <vector>

namespace sy::core {

// The value of environment variable `name`, or nullopt when unset. Uses
// secure_getenv: in a setuid or setgid process every variable reads as
// unset, so nobody can steer a privileged program into loading their code.
// Thread-safe as long as nobody calls setenv concurrently.
std::optional<std::string> GetEnv(const char* name);

// True when `name` is set to 1, true, yes or on (any case).
bool GetEnvFlag(const char* name);

// Splits "a:b::c" (separator ':') or "a,b" into non-empty trimmed parts.
std::vector<std::string> SplitList(const std::string& value, char separator);

}  // namespace sy::core

#endif  // SWITCHYARD_DISPATCHER_BASE_ENV_H_
