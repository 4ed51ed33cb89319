// Format "mpirun": an Open MPI hostfile (`host slots=N`) and a bash launch script that starts
// `tapas-worker train-plan` on every rank, ranks filled node-major so rank r is the plan's
// device r (tp = r % tp, dp = r / tp % dp, pipeline stage = r / (dp * tp)), with NCCL's and the
// library paths passed by -x.
#include "core/plan/export_common.h"

namespace tapas {

namespace {

class MpirunExporter : public PlanExporter {
public:
    std::string name() const override { return "mpirun"; }
    std::string description() const override { return "Open MPI hostfile and launch script"; }
    Result<ExportFiles> write(const ExportInput& in, const ExportOptions& o) const override
    {
        Result<LaunchLayout> lr = resolveLaunchLayout(in, o);
        if (!lr) return Result<ExportFiles>::failure(lr.error());
        const LaunchLayout& l = *lr;
        std::string hostfile = exportHeader(in, name(), "# ");
        for (size_t h = 0; h < l.hosts.size(); ++h) hostfile += l.hosts[h] + " slots=" + std::to_string(l.slots[h]) + "\n";

        std::string s = "#!/usr/bin/env bash\n";
        s += exportHeader(in, name(), "# ");
        s += "#\n# Starts tapas-worker train-plan on " + std::to_string(l.ranks) + " ranks: " + std::to_string(l.hosts.size()) +
             " node(s) x " + std::to_string(l.gpusPerNode) + " GPUs, hosts from the hostfile next to this script" +
             (l.hostsGiven ? "" : " (placeholder names: edit it)") + ".\n";
        if (l.unusedHosts > 0) s += "# " + std::to_string(l.unusedHosts) + " more host(s) were given than the mesh needs; they are left out.\n";
        s += std::string("# Rank mapping (devices node-major, tp fastest") + (l.mesh.pp > 1 ? ", then dp, then the pipeline rank" : "") +
             ": " + rankFormula(l.mesh) + "):\n";
        s += rankMappingLines(l, "#");
        s += "#\n# Environment overrides: TAPAS_WORKER (the worker binary), TAPAS_RUN_DIR, MPIRUN.\n";
        s += "set -euo pipefail\n\n";
        s += "here=$(cd \"$(dirname \"${BASH_SOURCE[0]}\")\" && pwd)\n";
        s += "mpirun_bin=${MPIRUN:-mpirun}\n";
        s += launchVariables(l, "here") + "\n";
        s += "# NCCL settings and library paths every rank needs; any other NCCL_* variable set in\n";
        s += "# the calling shell is passed on too.\n";
        s += "export NCCL_DEBUG=\"${NCCL_DEBUG:-WARN}\"\n";
        s += "export LD_LIBRARY_PATH=\"${LD_LIBRARY_PATH:-}\"\n";
        s += "env_args=(-x PATH -x LD_LIBRARY_PATH)\n";
        s += "while IFS= read -r name; do\n    env_args+=(-x \"$name\")\ndone < <(compgen -e | grep '^NCCL_' || true)\n\n";
        s += "# Open MPI refuses to run as root without this flag.\n";
        s += "root_args=()\nif [ \"$(id -u)\" -eq 0 ]; then\n    root_args=(--allow-run-as-root)\nfi\n\n";
        s += "exec \"$mpirun_bin\" -np " + std::to_string(l.ranks) + " --hostfile \"$here/hostfile\" --map-by ppr:" +
             std::to_string(l.gpusPerNode) + ":node --rank-by slot --bind-to none \\\n";
        s += "    \"${root_args[@]}\" \"${env_args[@]}\" \\\n";
        s += "    " + workerCommand(o) + "\n";
        return ExportFiles{{"hostfile", hostfile}, {"launch_mpirun.sh", s}};
    }
};

} // namespace

std::unique_ptr<PlanExporter> makeMpirunExporter() { return std::make_unique<MpirunExporter>(); }

} // namespace tapas
