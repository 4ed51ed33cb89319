#pragma once
// The metrics protocol (DESIGN.md, "Metrics protocol"; docs/metrics-protocol.md): one JSON
// object per line, written by rank 0 of a run to runs/<id>/metrics.jsonl and, when the GUI
// launched the run, to a loopback TCP socket after a hello line carrying the run's token.
// Plain C++ (no Qt, MPI or torch) so the worker, the launcher and the views share one codec.
//
// Every line: {"v":1, "type":..., "time": unix seconds, ...}
//   step       {"step":N, "values":{"loss":..,"step_time":..,...}}        figures of one step
//   metric     {"step":N, "values":{"modes_covered":7,...}}               sparse evaluations
//   rank_stats {"step":N, "ranks":[{"rank":0,"host":"h","values":{...}}]} per-rank figures
//   sample     {"step":N, "text":"samples/step_000100.png"}               path relative to run dir
//   log        {"level":"info|warn|error", "rank":R, "text":"..."}
//   status     {"state":"...", "text":"detail", "rank":R, "fields":{...}}  run state changes
// States: starting, running, numerics_ok, numerics_mismatch, checkpoint, finished, failed,
// stopped, hung. Readers ignore unknown keys and unknown types (forward compatible); a line
// with a newer major "v" is refused with a clear message.
#include "core/util/result.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace tapas::protocol {

inline constexpr int kMetricsVersion = 1;

enum class EventType { Step, Metric, RankStats, Sample, Log, Status };
const char* eventTypeName(EventType t);          // "step", "metric", ...
bool parseEventType(const std::string& s, EventType& out);

struct RankStat {
    int rank = 0;
    std::string host;
    std::map<std::string, double> values; // step_time, compute_time, comm_time, memory_bytes, ...
};

struct MetricsEvent {
    EventType type = EventType::Log;
    double time = 0;                        // unix seconds
    int64_t step = -1;                      // step, metric, rank_stats, sample
    std::map<std::string, double> values;   // step, metric
    std::vector<RankStat> ranks;            // rank_stats
    std::string text;                       // log text, sample path, status detail
    std::string state;                      // status
    std::string level;                      // log: info | warn | error
    int rank = -1;                          // log, status (the failing rank)
    std::map<std::string, std::string> fields; // status extras, e.g. worst_tensor

    static MetricsEvent stepEvent(int64_t step, std::map<std::string, double> values);
    static MetricsEvent metricEvent(int64_t step, std::map<std::string, double> values);
    static MetricsEvent sampleEvent(int64_t step, std::string relativePath);
    static MetricsEvent logEvent(std::string level, int rank, std::string text);
    static MetricsEvent statusEvent(std::string state, std::string detail, int rank = -1);
};

double nowSeconds();

// One line, no trailing newline. The time is stamped with nowSeconds() when it is 0.
std::string toJsonLine(const MetricsEvent& e);
// `origin` (file:line) is named in the error.
Result<MetricsEvent> parseJsonLine(const std::string& line, const std::string& origin = {});

// The socket handshake: the worker's first line, {"v":1,"type":"hello","run":id,"token":t}.
std::string helloLine(const std::string& runId, const std::string& token);
bool parseHelloLine(const std::string& line, std::string& runId, std::string& token);

// Terminal states: the run will write nothing more.
bool isTerminalState(const std::string& state);

} // namespace tapas::protocol
