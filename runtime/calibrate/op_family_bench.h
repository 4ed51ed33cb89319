#pragma once
// The per-family part of `tapas-worker calibrate`: times the forward and backward of each op
// family's torch kernels (the calls runtime/exec/kernels makes) on a tiny and a training-sized
// input, so the cost model can price a node as overhead + max(flops / flop rate, bytes / byte
// rate) (ClusterSpec::opFamilies). The tiny case is the overhead (dispatch, autograd); the
// large one, less that overhead, the rate. Torch stays in the .cpp.
#include "core/cluster/cluster_spec.h"

#include <functional>
#include <map>
#include <string>
#include <vector>

namespace tapas::runtime {

struct FamilyCase {
    std::string family, name; // "matmul", "512x256x768"
    double flops = 0;          // forward FLOPs as the op's cost rule counts them
    double bytes = 0;          // forward bytes read and written (fp32)
    double seconds = 0;        // median forward + backward, CPU time of the rank's thread
    bool bytesBound = false;   // a FLOP-counted family's case bound by its bytes (a GEMM of 2 rows)
    double products = 1;       // matrix products the case runs (a batched matmul's batch)
    int chainNodes = 0;        // > 0: a chain of that many nodes through the worker's interpreter
};

// Times every case, in a fixed order (so ranks' lists line up). `together` runs before each
// case on every rank (a barrier), so all ranks measure at once, as in a training step.
// `secondsPerCase` bounds the timing of one case after its warm-up.
std::vector<FamilyCase> timeOpFamilies(double secondsPerCase, const std::function<void()>& together);

// Each family's rate from its cases: the first (tiny) case is the overhead; the others, less
// the overhead, give the median FLOP rate (FLOP-counted families) or byte rate (memory-bound
// families, and the bytes-bound cases of FLOP-counted ones: matmul gets both). A family whose
// cases span two sizes or more (matmul and matmul_strided by the size of one product) also gets
// its rate by size: FLOP-counted cases by the FLOPs of one product (OpFamilyRate::bySize),
// memory-bound ones by their bytes (byteBySize); the cases of one size give their median rate,
// sizes ascending.
// The chain families (cases with chainNodes) give no rate but what one more node costs inside a
// step beyond its price: "node_in_step" = the Relu chains' slope less what the "elementwise"
// family prices such a node at (its tiny case, timed alone); "weight_in_step" = the add-weight
// chains' slope less the Relu chains' (AccumulateGrad into a held gradient). Left out when not
// above zero.
std::map<std::string, OpFamilyRate> fitFamilyRates(const std::vector<FamilyCase>& cases);

} // namespace tapas::runtime
