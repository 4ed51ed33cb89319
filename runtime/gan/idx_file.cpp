#include "runtime/gan/idx_file.h"

#include <zlib.h>

#include <memory>

namespace tapas::runtime::gan {
namespace {

struct GzCloser {
    void operator()(gzFile_s* f) const { gzclose(f); }
};

// Reads exactly n bytes; false on a short read (a truncated file) or a zlib error.
bool readExact(gzFile f, void* out, size_t n)
{
    auto* p = static_cast<unsigned char*>(out);
    while (n > 0) {
        const unsigned chunk = unsigned(std::min<size_t>(n, 1u << 30));
        const int got = gzread(f, p, chunk);
        if (got <= 0) return false;
        p += got;
        n -= size_t(got);
    }
    return true;
}

uint32_t bigEndian(const unsigned char* b) { return uint32_t(b[0]) << 24 | uint32_t(b[1]) << 16 | uint32_t(b[2]) << 8 | b[3]; }

} // namespace

Result<IdxArray> readIdxFile(const std::string& path, int64_t maxItems)
{
    using R = Result<IdxArray>;
    std::unique_ptr<gzFile_s, GzCloser> f(gzopen(path.c_str(), "rb"));
    if (!f) return R::failure("IDX file '" + path + "' cannot be opened");
    unsigned char magic[4];
    if (!readExact(f.get(), magic, 4)) return R::failure("IDX file '" + path + "': no header (empty or not an IDX file)");
    if (magic[0] != 0 || magic[1] != 0)
        return R::failure("IDX file '" + path + "': the magic number does not start with two zero bytes (not an IDX file)");
    if (magic[2] != 0x08)
        return R::failure("IDX file '" + path + "': element type code " + std::to_string(int(magic[2])) +
                          " is not unsigned bytes (code 8)");
    const int rank = magic[3];
    if (rank < 1 || rank > 4) return R::failure("IDX file '" + path + "': " + std::to_string(rank) + " dimensions (expected 1 to 4)");
    IdxArray a;
    uint64_t total = 1;
    for (int d = 0; d < rank; ++d) {
        unsigned char b[4];
        if (!readExact(f.get(), b, 4)) return R::failure("IDX file '" + path + "': header ends inside dimension " + std::to_string(d));
        const uint32_t n = bigEndian(b);
        // A data set of up to 2^31 entries of up to 2^16 values each: anything larger is a damaged header.
        if (n == 0 || n > (d == 0 ? (1u << 31) : (1u << 16)))
            return R::failure("IDX file '" + path + "': dimension " + std::to_string(d) + " has size " + std::to_string(n));
        a.dims.push_back(int64_t(n));
    }
    if (maxItems > 0 && a.dims[0] > maxItems) a.dims[0] = maxItems;
    for (int64_t d : a.dims) total *= uint64_t(d);
    a.values.resize(size_t(total));
    if (!readExact(f.get(), a.values.data(), a.values.size()))
        return R::failure("IDX file '" + path + "': truncated (the header announces " + std::to_string(total) +
                          " values for the first " + std::to_string(a.dims[0]) + " entries)");
    return a;
}

} // namespace tapas::runtime::gan
