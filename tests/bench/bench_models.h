#pragma once
// Where the benchmarks find the real exported models (the folder the workspace shares beside
// the checkout, `../shared/models`). Looked up when a benchmark runs, not fixed at build time,
// so a `tapas` binary copied or built elsewhere still finds them, and says where it looked.
#include "core/util/result.h"

#include <string>

namespace tapas::bench {

// The folder holding the real models, first of: `option` (--models DIR) when given, the
// TAPAS_MODELS_DIR environment variable when set, then shared/models in each folder from the
// executable's up to the root (a build tree inside the checkout finds <checkout>/../shared/models).
// `exePath` is the running program. The error lists every place looked at.
Result<std::string> findModelsDir(const std::string& option, const std::string& exePath);

// The running program's path (/proc/self/exe), or "" when it cannot be read.
std::string currentExecutable();

} // namespace tapas::bench
