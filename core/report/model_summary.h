#pragma once
// What `tapas inspect` prints and the GUI's summary shows: one computation, two renderings.
#include "core/ir/graph.h"
#include "core/ops/worker_support.h"
#include "core/util/human_units.h"

#include <nlohmann/json_fwd.hpp>

#include <map>
#include <string>
#include <vector>

namespace tapas {

struct TensorSummary {
    std::string name;
    std::string dtype;
    std::string shape; // "[batch,3,224,224]"
};

struct ModelSummary {
    std::string file;
    std::string producer;
    int64_t opset = 0;
    int64_t nodes = 0;       // main-graph nodes (control-flow subgraphs not counted)
    int64_t params = 0;      // floating elements stored as initializers or Constant values
    int64_t paramBytes = 0;
    double flops = 0;        // forward FLOPs for the bound shapes; unbound dims count as 1
    double activationBytes = 0;
    std::map<std::string, int64_t> ops; // op type -> count
    std::vector<TensorSummary> inputs;
    std::vector<TensorSummary> outputs;
    std::vector<std::string> symbolicDims; // dims left symbolic
    std::vector<std::string> warnings;
    // What tapas-worker cannot run (core/ops/worker_support.h): empty when it runs the model.
    std::vector<WorkerGap> workerGaps;
};

ModelSummary summarizeModel(const Graph& g);
nlohmann::json summaryToJson(const ModelSummary& s);
std::string summaryToText(const ModelSummary& s);

} // namespace tapas
