// Format "plan": the .tapas.json plan file itself (core/plan/plan_file.h).
#include "core/plan/export_common.h"

namespace tapas {

namespace {

class PlanFileExporter : public PlanExporter {
public:
    std::string name() const override { return "plan"; }
    std::string description() const override { return "Tapas plan file (.tapas.json)"; }
    Result<ExportFiles> write(const ExportInput& in, const ExportOptions&) const override
    {
        if (Status s = checkExportInput(in); !s) return Result<ExportFiles>::failure(s.error);
        return ExportFiles{{"plan.tapas.json", savePlanJson(*in.graph, in.folded, *in.plan, *in.cluster, exportReport(in),
                                                            in.provenance) + "\n"}};
    }
};

} // namespace

std::unique_ptr<PlanExporter> makePlanFileExporter() { return std::make_unique<PlanFileExporter>(); }

} // namespace tapas
