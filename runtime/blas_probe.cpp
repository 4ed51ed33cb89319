#include "runtime/blas_probe.h"

#include <dlfcn.h>

#include <climits>
#include <cstdlib>

namespace tapas::runtime {

namespace {

bool contains(const std::string& s, const char* part) { return s.find(part) != std::string::npos; }

BlasInfo::Kind kindOfLibrary(const std::string& path)
{
    // Debian installs each implementation under its own folder and points libblas.so.3 at one.
    if (contains(path, "openblas")) return BlasInfo::Kind::OpenBlas;
    if (contains(path, "blis")) return BlasInfo::Kind::Blis;
    if (contains(path, "mkl")) return BlasInfo::Kind::Mkl;
    if (contains(path, "atlas")) return BlasInfo::Kind::Atlas;
    if (contains(path, "/blas/libblas.so") || contains(path, "libblas.so") || contains(path, "librefblas"))
        return BlasInfo::Kind::Reference;
    return BlasInfo::Kind::Unknown;
}

template <typename Fn> Fn lookup(const char* name) { return reinterpret_cast<Fn>(dlsym(RTLD_DEFAULT, name)); }

} // namespace

BlasInfo probeBlas()
{
    BlasInfo info;
    void* gemm = dlsym(RTLD_DEFAULT, "sgemm_");
    if (!gemm) return info; // statically linked or no BLAS at all: torch uses its own kernels
    Dl_info where{};
    if (dladdr(gemm, &where) && where.dli_fname) {
        char resolved[PATH_MAX];
        info.library = realpath(where.dli_fname, resolved) ? resolved : where.dli_fname;
    }
    info.kind = kindOfLibrary(info.library);
    // A library's own query functions count only when they come from the installation that answers
    // sgemm_ (Debian's openblas-pthread/libblas.so.3 forwards to libopenblas.so.0 in its folder): with
    // a preloaded reference BLAS, OpenBLAS may still be loaded but is not the one called.
    const std::string folder = info.library.substr(0, info.library.rfind('/') + 1);
    const auto fromSameObject = [&](void* fn) {
        Dl_info other{};
        if (!fn || !dladdr(fn, &other) || !other.dli_fname) return false;
        char resolved[PATH_MAX];
        const std::string path = realpath(other.dli_fname, resolved) ? resolved : other.dli_fname;
        return !folder.empty() && path.rfind(folder, 0) == 0;
    };
    if (auto config = lookup<char* (*)()>("openblas_get_config"); fromSameObject(reinterpret_cast<void*>(config))) {
        info.kind = BlasInfo::Kind::OpenBlas; // whatever file name it was installed under
        if (const char* c = config()) info.config = c;
    }
    if (auto threads = lookup<int (*)()>("openblas_get_num_threads"); fromSameObject(reinterpret_cast<void*>(threads)))
        info.threads = threads();
    else if (auto blis = lookup<long (*)()>("bli_thread_get_num_threads"); fromSameObject(reinterpret_cast<void*>(blis)))
        info.threads = int(blis());
    return info;
}

const char* blasKindName(BlasInfo::Kind kind)
{
    switch (kind) {
    case BlasInfo::Kind::OpenBlas: return "OpenBLAS";
    case BlasInfo::Kind::Blis: return "BLIS";
    case BlasInfo::Kind::Mkl: return "MKL";
    case BlasInfo::Kind::Atlas: return "ATLAS";
    case BlasInfo::Kind::Reference: return "reference BLAS";
    case BlasInfo::Kind::Unknown: return "unknown BLAS";
    case BlasInfo::Kind::Missing: return "no BLAS";
    }
    return "unknown BLAS";
}

std::string describeBlas(const BlasInfo& info)
{
    std::string s = blasKindName(info.kind);
    if (!info.config.empty()) s += " [" + info.config + "]";
    if (!info.library.empty()) s += " (" + info.library + ")";
    if (info.threads > 0) s += ", " + std::to_string(info.threads) + (info.threads == 1 ? " thread" : " threads");
    return s;
}

std::string blasWarning(const BlasInfo& info)
{
    if (info.kind != BlasInfo::Kind::Reference) return {};
    return "this process calls the reference BLAS (" + info.library +
           "), about 18x slower than an optimized one for fp32 GEMM: install libopenblas0-pthread "
           "(scripts/setup.sh does) so that step times mean something";
}

protocol::MetricsEvent blasLogEvent(int rank)
{
    const BlasInfo info = probeBlas();
    const std::string warning = blasWarning(info);
    return protocol::MetricsEvent::logEvent(warning.empty() ? "info" : "warning", rank,
                                            warning.empty() ? "BLAS: " + describeBlas(info) : warning);
}

} // namespace tapas::runtime
