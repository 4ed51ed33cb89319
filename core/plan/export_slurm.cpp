// Format "slurm": an sbatch script (nodes, tasks and GPUs per node, time, output file) whose
// srun starts `tapas-worker train-plan` with block distribution, so ranks fill the nodes in
// order and rank r is the plan's device r.
#include "core/plan/export_common.h"

namespace tapas {

namespace {

class SlurmExporter : public PlanExporter {
public:
    std::string name() const override { return "slurm"; }
    std::string description() const override { return "SLURM sbatch script with srun"; }
    Result<ExportFiles> write(const ExportInput& in, const ExportOptions& o) const override
    {
        Result<LaunchLayout> lr = resolveLaunchLayout(in, o);
        if (!lr) return Result<ExportFiles>::failure(lr.error());
        const LaunchLayout& l = *lr;
        const std::string nodes = std::to_string(l.hosts.size()), perNode = std::to_string(l.slots.front());
        std::string s = "#!/usr/bin/env bash\n";
        // sbatch reads #SBATCH lines up to the first command, so they come first.
        s += "#SBATCH --job-name=" + o.jobName + "\n";
        s += "#SBATCH --nodes=" + nodes + "\n";
        s += "#SBATCH --ntasks=" + std::to_string(l.ranks) + "\n";
        s += "#SBATCH --ntasks-per-node=" + perNode + "\n";
        // A CPU cluster's ranks are cores: asking for GPUs would keep the job pending forever.
        if (in.cluster->gpu) s += "#SBATCH --gpus-per-node=" + std::to_string(l.gpusPerNode) + "\n";
        s += "#SBATCH --time=" + o.timeLimit + "\n";
        s += "#SBATCH --output=" + o.jobName + "-%j.out\n";
        if (l.hostsGiven) {
            std::string list;
            for (const std::string& h : l.hosts) list += (list.empty() ? "" : ",") + h;
            s += "#SBATCH --nodelist=" + list + "\n";
        }
        s += exportHeader(in, name(), "# ");
        s += std::string("#\n# Submit with: sbatch launch_slurm.sh. Rank mapping (devices node-major, tp fastest") +
             (l.mesh.pp > 1 ? ", then dp, then the pipeline rank" : "") + ":\n";
        s += "# " + rankFormula(l.mesh) + "; node names as SLURM assigns them" +
             (l.hostsGiven ? "" : ", shown here as placeholders") + "):\n";
        s += rankMappingLines(l, "#");
        if (l.unusedHosts > 0) s += "# " + std::to_string(l.unusedHosts) + " more host(s) were given than the mesh needs; they are left out.\n";
        s += "# Environment overrides: TAPAS_WORKER (the worker binary), TAPAS_RUN_DIR.\n";
        s += "set -euo pipefail\n\n";
        s += launchVariables(l);
        s += "export NCCL_DEBUG=\"${NCCL_DEBUG:-WARN}\"\n\n";
        s += "# --distribution=block puts consecutive ranks on one node: the plan's device order.\n";
        s += "srun --ntasks=" + std::to_string(l.ranks) + " --ntasks-per-node=" + perNode +
             " --distribution=block:block --cpu-bind=none --export=ALL \\\n";
        s += "    " + workerCommand(o) + "\n";
        return ExportFiles{{"launch_slurm.sh", s}};
    }
};

} // namespace

std::unique_ptr<PlanExporter> makeSlurmExporter() { return std::make_unique<SlurmExporter>(); }

} // namespace tapas
