#include "core/util/human_units.h"

#include <cmath>
#include <cstdio>

namespace tapas {

std::string humanCount(double v)
{
    static const char* units[] = {"", "K", "M", "G", "T", "P", "E"};
    const bool negative = v < 0;
    double a = std::fabs(v);
    if (a < 1000) {
        char buf[32];
        std::snprintf(buf, sizeof buf, a == std::floor(a) ? "%.0f" : "%.3g", a);
        return (negative ? "-" : "") + std::string(buf);
    }
    int u = 0;
    while (a >= 999.95 && u < 6) {
        a /= 1000;
        ++u;
    }
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.4g%s", a, units[u]);
    return (negative ? "-" : "") + std::string(buf);
}

std::string humanBytes(double v)
{
    static const char* units[] = {"B", "kB", "MB", "GB", "TB", "PB", "EB"};
    double a = std::fabs(v);
    int u = 0;
    while (a >= 999.95 && u < 6) {
        a /= 1000;
        ++u;
    }
    char buf[32];
    std::snprintf(buf, sizeof buf, u == 0 ? "%.0f %s" : "%.1f %s", a, units[u]);
    return (v < 0 ? "-" : "") + std::string(buf);
}

} // namespace tapas
