#pragma once
// The IDX files MNIST-style data sets ship in (optionally gzip-compressed, as Debian's
// dataset-fashion-mnist does): a big-endian header of magic, element type and dimension sizes,
// then the raw values. Plain C++ (zlib only); every error names the file and the field.
#include "core/util/result.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tapas::runtime::gan {

struct IdxArray {
    std::vector<int64_t> dims;   // e.g. {60000, 28, 28} for images, {60000} for labels
    std::vector<uint8_t> values; // unsigned bytes (type 0x08), the only type these sets use
};

// Reads `path` (".gz" or not: zlib detects the gzip header). At most `maxItems` entries of the
// first dimension are kept (0: all), so a quick test or an evaluation subset reads only what it needs.
Result<IdxArray> readIdxFile(const std::string& path, int64_t maxItems = 0);

} // namespace tapas::runtime::gan
