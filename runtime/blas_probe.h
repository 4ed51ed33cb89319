#pragma once
// Which BLAS library this process really calls, found at run time.
//
// Debian's libtorch calls the system BLAS through the libblas.so.3 alternative. With only the
// reference BLAS installed a 1024x1024 fp32 GEMM runs about 18x slower than with OpenBLAS, so
// every timing the worker reports would describe the packaging, not the plan: the worker names
// the library it got at start and warns when it is the reference one.
#include "runtime/protocol/metrics_event.h"

#include <string>

namespace tapas::runtime {

struct BlasInfo {
    enum class Kind { OpenBlas, Blis, Mkl, Atlas, Reference, Unknown, Missing };
    Kind kind = Kind::Missing;
    std::string library; // resolved path of the shared object that provides sgemm_
    std::string config;  // the library's own description, when it has one (openblas_get_config)
    int threads = 0;     // the library's own thread count, 0 when it does not say
};

BlasInfo probeBlas();
const char* blasKindName(BlasInfo::Kind kind);
// One line for logs: "OpenBLAS 0.3.21 (…/openblas-pthread/libblas.so.3), 2 threads".
std::string describeBlas(const BlasInfo& info);
// Empty when the BLAS is a fast one; otherwise a sentence saying what is wrong and how to fix it.
std::string blasWarning(const BlasInfo& info);
// The log event a worker records at start: which BLAS it calls, at level "warning" when that is the
// reference one, so the run record says what its step times were measured with.
protocol::MetricsEvent blasLogEvent(int rank);

} // namespace tapas::runtime
