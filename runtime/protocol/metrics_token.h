#pragma once
// How the metrics token reaches rank 0: in the environment, never on a command line. Any local
// user can read a process's arguments (/proc/PID/cmdline, ps), while /proc/PID/environ is
// readable only by its owner; mpirun forwards the variable to the ranks with -x NAME, which
// names the variable and not its value.
#include "core/util/result.h"

#include <string>

namespace tapas::protocol {

inline constexpr const char* kMetricsTokenVariable = "TAPAS_METRICS_TOKEN";

// The refusal of a --metrics-token option, for the worker's option parsers.
inline constexpr const char* kTokenNotOnCommandLine =
    "the metrics token is not taken on the command line, where every local user can read it; "
    "set it in the environment variable TAPAS_METRICS_TOKEN";

// The token from TAPAS_METRICS_TOKEN; an error naming the variable when it is unset or empty.
Result<std::string> metricsTokenFromEnvironment();

} // namespace tapas::protocol
