#pragma once
// Internal to the exporters (core/plan/export_*.cpp): the checked cluster layout an export
// targets (hosts, GPUs per node, rank mapping), quoting for shell and Python, and the header
// every exported file starts with. Everything an export writes from user input goes through
// these: a host name is accepted only as [A-Za-z0-9._-], every path is single-quoted, control
// characters are refused, so nothing from a plan, model or command line is ever executed.
#include "core/plan/plan_exporter.h"

#include <memory>
#include <string>
#include <vector>

namespace tapas {

std::unique_ptr<PlanExporter> makePlanFileExporter();
std::unique_ptr<PlanExporter> makeMpirunExporter();
std::unique_ptr<PlanExporter> makeSlurmExporter();
std::unique_ptr<PlanExporter> makeDtensorExporter();
std::unique_ptr<PlanExporter> makeMegatronExporter();
std::unique_ptr<PlanExporter> makeGraphExporter(const std::string& format); // "dot", "svg", "png"

// What a launch script needs, checked: one host per node used, ranks filled node-major.
struct LaunchLayout {
    std::vector<std::string> hosts; // the hosts the ranks run on, in rank order
    std::vector<int> slots;         // ranks on each host
    bool hostsGiven = false;        // false: placeholder names node01, node02, ...
    int unusedHosts = 0;            // given hosts beyond what the mesh needs
    int gpusPerNode = 1;
    int ranks = 1;                  // the plan's mesh size
    DeviceMesh mesh;
    PipelineSchedule pipeline;      // the plan's stages (none without)
    std::string worker, model, plan, runDir; // paths as the cluster sees them (unquoted)
};

// Refuses a missing input, a hostile host name (naming it and its position), too few hosts
// for the mesh, and control characters in paths, job name or time limit.
Result<LaunchLayout> resolveLaunchLayout(const ExportInput& in, const ExportOptions& options);
// Checks the input pointers every exporter needs (graph, plan, cluster).
Status checkExportInput(const ExportInput& in);
// [A-Za-z0-9._-]+, not starting with '-'.
bool isPlainHostName(const std::string& host);

// POSIX shell single-quoted word: 'it'\''s'.
std::string shellQuote(const std::string& s);
// A Python string literal in double quotes, non-printable and non-ASCII bytes escaped.
std::string pythonString(const std::string& s);
// Text safe inside a one-line comment (control characters become '?').
std::string commentSafe(const std::string& s);

// "# Tapas plan ... mesh 2x8 (dp 2 x tp 8), step 12.345 ms predicted" lines, each prefixed
// with `comment` ("# "), describing the plan: the same in every format.
std::string exportHeader(const ExportInput& in, const std::string& format, const std::string& comment);
// The shell variables a launch script starts the worker with: worker, model, plan, run_dir
// (worker and run_dir overridable by TAPAS_WORKER / TAPAS_RUN_DIR), every value single-quoted.
// With `baseVar` ("here"), a relative model or plan path is taken relative to "$here".
std::string launchVariables(const LaunchLayout& l, const std::string& baseVar = {});
// The worker's command line over those variables.
std::string workerCommand(const ExportOptions& o);
// "rank = dp * 8 + tp", or with stages "rank = (pp * 2 + dp) * 8 + tp" (Megatron-LM's order).
std::string rankFormula(const DeviceMesh& m);
// "node01: ranks 0-7 (dp 0, tp 0-7)" per host ("(pp 0, dp 0, tp 0-7)" with stages), then with
// stages one line per stage: its blocks of the folded chain and the ranks that run it; each
// line prefixed with `comment`.
std::string rankMappingLines(const LaunchLayout& l, const std::string& comment);

// The module path PyTorch would give the module an ONNX node was exported from:
// "/transformer/h.3/attn/c_attn" -> "transformer.h.3.attn.c_attn" ("" without a scope).
std::string modulePathOfScope(const std::string& scope);

// A normalisation's reduction (LayerNormalization, or the ReduceMean over the last axis of a
// decomposed LayerNorm/RMSNorm) on a [.., seq, hidden] activation; `seqSplit` tells whether
// the plan runs it split over the sequence (sequence parallelism).
bool isNormReduction(const Graph& g, NodeId n);
bool normSeqSplit(const Graph& g, const ShardingPlan& p, NodeId n);
// The weight a MatMul/Gemm/Gather node multiplies by or looks up: its parameter input, also
// through a Transpose (a tied LM head) or an Identity (a layer sharing an equal initializer);
// kNoTensor for none.
TensorId linearWeight(const Graph& g, NodeId n);

// The cost report of the input (recomputed when the input carries none).
CostReport exportReport(const ExportInput& in);

} // namespace tapas
