#pragma once
// The plan file (.tapas.json, versioned schema): mesh, cluster, per-op sharding stored once per
// block class (shared by its instances, with per-instance overrides where an instance differs),
// per-weight layouts, the collectives, the cost report and provenance (searcher, version, search
// time, model hash and input shapes so a plan for another model is refused).
#include "core/cost/cost_model.h"
#include "core/fold/folded_graph.h"
#include "core/shard/sharding_plan.h"

#include <string>

namespace tapas {

// Version 2 added pipelines: mesh.pp and the "pipeline" section (micro-batches, interleaving,
// distributed optimizer, stages with their recomputation). Version 1 files still load (pp 1).
// Version 3 added "padding": the lookup tables the plan pads (ShardingPlan::padding), each as
// {"tensor", "rows", "padded_rows"}. A plan without padding is still written as version 2, so
// that builds which read up to 2 keep reading it; a padded one is version 3, which they refuse
// rather than run it without its padding.
inline constexpr int kPlanSchemaVersion = 3;
inline constexpr int kUnpaddedPlanSchemaVersion = 2;
inline constexpr int kOldestPlanSchemaVersion = 1;

struct PlanProvenance {
    std::string searcher;
    std::string tapasVersion;
    double searchSeconds = 0;
};

struct PlanDocument {
    ShardingPlan plan;
    ClusterSpec cluster;
    CostTerms cost; // the totals as saved
    PlanProvenance provenance;
    std::string modelHash;
    int sharedClasses = 0; // classes written once for several instances
    int overrides = 0;     // per-instance entries that differ from their class
};

// A structural fingerprint of the graph: op types, wiring and tensor shapes (not names).
std::string modelHash(const Graph& g);

// `folded` may be null: every node is then its own entry.
std::string savePlanJson(const Graph& g, const FoldedGraph* folded, const ShardingPlan& plan, const ClusterSpec& cluster,
                         const CostReport& report, const PlanProvenance& provenance);
// Refuses a plan of another model or an unknown schema version and a corrupt file, naming the field.
Result<PlanDocument> loadPlanJson(const std::string& text, const Graph& g, const std::string& origin);
Status savePlanFile(const std::string& path, const std::string& json);
Result<PlanDocument> loadPlanFile(const std::string& path, const Graph& g);

} // namespace tapas
