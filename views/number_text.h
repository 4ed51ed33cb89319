#pragma once
// How views spell numbers: grouped digits in the user's locale, plus core's short forms
// ("11.7M", "1.8 GB") so a figure reads both exactly and at a glance.
#include <QString>

#include <cstdint>

namespace tapas {

// 11680872 -> "11,680,872" (the locale's group separator, never omitted).
QString groupedCount(int64_t v);
// 11680872 -> "11,680,872 (11.7M)"; small numbers stay plain.
QString countWithShortForm(int64_t v);
// 46721488 -> "46.7 MB (46,721,488 bytes)"
QString bytesWithExact(int64_t v);
// 1.82e9 -> "1.82G"
QString shortCount(double v);

} // namespace tapas
