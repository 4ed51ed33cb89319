#include "runtime/protocol/metrics_token.h"

#include <cstdlib>

namespace tapas::protocol {

Result<std::string> metricsTokenFromEnvironment()
{
    const char* v = std::getenv(kMetricsTokenVariable);
    if (!v || !*v)
        return Result<std::string>::failure(std::string("a metrics port needs the run's token in the environment variable ") +
                                            kMetricsTokenVariable + ", which is not set");
    return std::string(v);
}

} // namespace tapas::protocol
