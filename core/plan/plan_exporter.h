#pragma once
// Exporting a plan for a cluster (DESIGN.md job 3). Each format is one class behind this
// small interface, listed once in plan_exporters.cpp (like the searchers and Tiled's MapFormat):
// plan (.tapas.json), mpirun (hostfile + launch script), slurm (sbatch script), dtensor (Python
// parallelize_module plan), megatron (arguments), dot, svg, png (the annotated graph).
// Nothing from the model or plan is ever executed: exported scripts quote every host and path,
// and a host name that is not a plain DNS name/IP is refused with its position named.
#include "core/cost/cost_model.h"
#include "core/fold/folded_graph.h"
#include "core/plan/plan_file.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace tapas {

struct ExportOptions {
    std::vector<std::string> hosts;    // empty: node01..nodeNN from the cluster's node count
    int gpusPerNode = 0;               // 0: the cluster's devicesPerNode
    std::string workerPath = "tapas-worker";
    std::string modelPath;             // as the cluster will see it
    std::string planPath;              // as the cluster will see it
    std::string jobName = "tapas";
    std::string timeLimit = "01:00:00"; // SLURM
    int steps = 100;
    std::string runDir;                // empty: runs/<jobName>
};

struct ExportInput {
    const Graph* graph = nullptr;
    const FoldedGraph* folded = nullptr; // may be null
    const ShardingPlan* plan = nullptr;
    const ClusterSpec* cluster = nullptr;
    const CostReport* report = nullptr;  // may be null (then recomputed where needed)
    PlanProvenance provenance;
};

// The files one export writes: file name (no directories) -> content (bytes for png).
using ExportFiles = std::map<std::string, std::string>;

class PlanExporter {
public:
    virtual ~PlanExporter() = default;
    virtual std::string name() const = 0;        // "mpirun"
    virtual std::string description() const = 0; // "Open MPI hostfile and launch script"
    virtual Result<ExportFiles> write(const ExportInput& in, const ExportOptions& options) const = 0;
};

const std::vector<std::unique_ptr<PlanExporter>>& planExporters();
const PlanExporter* findPlanExporter(const std::string& name);

// Writes the files into `dir` (created); an existing file is replaced only after the new one is
// complete (write to a temporary, then rename), so a failed export loses nothing.
Status writeExportFiles(const std::string& dir, const ExportFiles& files);

} // namespace tapas
