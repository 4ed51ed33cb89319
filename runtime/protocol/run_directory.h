#pragma once
// A run directory is the record of one run (DESIGN.md): runs/<id>/ holds
//   spec.json         what was launched (RunSpec), written before mpirun starts
//   metrics.jsonl     the metrics protocol, appended line by line by rank 0 (flushed per line)
//   launch.log        the launcher's own log: command line, exit code, supervision findings
//                     (mode 0600)
//   logs/rank-N.log   each rank's stdout+stderr
//   checkpoints/step-N/   written by the worker into checkpoints/.tmp-step-N/ and renamed once
//                     complete; the newest is named in checkpoints/latest, moved last
//   .metrics-reserve  while rank 0 runs: space held back for the `failed` line on a full disk
//   samples/          sample grids (GAN)
// Nothing here is rewritten once written except checkpoints/latest, so a crash of the GUI, the
// launcher or a rank never loses what was recorded. Plain C++: the worker, the launcher and the
// views all read it.
#include "runtime/protocol/metrics_event.h"

#include <map>
#include <string>
#include <vector>

namespace tapas::protocol {

struct RunSpec {
    std::string id;              // "20261202-173012-train-plan-3fa2"
    std::string kind;            // "train-plan" | "gan"
    std::string planPath;        // train-plan
    std::string modelPath;       // train-plan
    int ranks = 2;
    std::vector<std::string> hosts; // empty: localhost
    int steps = 50;
    int checkpointEvery = 10;    // 0: none
    bool resume = false;
    std::string created;         // ISO 8601
    // Further worker options as --key value pairs, e.g. {"data","ring8"}, {"async","1"}.
    std::map<std::string, std::string> options;
};

std::string runSpecToJson(const RunSpec& s);
Result<RunSpec> parseRunSpec(const std::string& json, const std::string& origin);

// A fresh id from the time, the kind and 4 random hex digits.
std::string newRunId(const std::string& kind);

std::string specPath(const std::string& runDir);
std::string metricsPath(const std::string& runDir);
std::string launchLogPath(const std::string& runDir);
std::string rankLogPath(const std::string& runDir, int rank);
std::string checkpointsDir(const std::string& runDir);
std::string samplesDir(const std::string& runDir);

Status writeRunSpec(const std::string& runDir, const RunSpec& s); // creates the dir tree
Result<RunSpec> readRunSpec(const std::string& runDir);

// Reads metrics.jsonl from byte `offset`, returning complete lines only (a half-written last
// line is left for the next call) and the offset after them. Bad lines become log events
// naming file and line, never an error for the whole file.
struct MetricsChunk {
    std::vector<MetricsEvent> events;
    uint64_t nextOffset = 0;
};
Result<MetricsChunk> readMetrics(const std::string& runDir, uint64_t offset = 0);

// What a run directory says about its run, for run lists.
struct RunSummary {
    std::string dir;
    RunSpec spec;
    std::string state = "unknown"; // last status state seen
    std::string detail;            // its text
    int64_t lastStep = -1;
    double lastTime = 0;           // time of the last event
};
Result<RunSummary> summarizeRun(const std::string& runDir);
// Every run under `runsRoot`, newest first; unreadable ones are skipped.
std::vector<RunSummary> listRuns(const std::string& runsRoot);

} // namespace tapas::protocol
