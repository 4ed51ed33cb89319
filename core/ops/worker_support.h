#pragma once
// Which ops tapas-worker's executor runs, without torch, so that `tapas inspect`, the GUI's
// Summary and `tapas run` can say before a launch whether a model will run. The executor's
// kernel table (runtime/exec/op_kernels.cpp) takes its "not run" entries from this list, and
// tst_kernel_coverage checks that every other op of the registry has a torch kernel: the
// preflight and the executor cannot disagree.
#include "core/ir/graph.h"
#include "core/util/result.h"

#include <map>
#include <string>
#include <vector>

namespace tapas {

// Ops of the core registry that the executor has no kernel for, with the reason it gives.
const std::map<std::string, std::string>& opsTheWorkerCannotRun();

struct WorkerGap {
    std::string opType;
    std::string why;
    int64_t nodes = 0;     // how many nodes of the model have it
    std::string firstNode; // the first of them, by name
};

// What in g the worker cannot run, one entry per op type in first-seen order: ops listed above,
// ops the registry does not know and ops of another domain, in the main graph and inside the
// bodies of If/Loop/Scan nodes. Empty: the model is runnable.
std::vector<WorkerGap> workerGaps(const Graph& g);

// Success, or a refusal naming the model file and every gap: what `tapas run` and the Runs dock
// say before they launch anything.
Status checkWorkerRuns(const Graph& g, const std::string& modelFile);

// "yes", or "no: Resize (3 nodes, first '/up/Resize'): no torch kernel ...; If (1 node ...)".
std::string describeWorkerSupport(const std::vector<WorkerGap>& gaps);

} // namespace tapas
