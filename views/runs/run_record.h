#pragma once
// Everything the Runs dock knows about one run, built from its metrics events: one bounded
// series per step/metric value, per-rank series and the latest per-rank row, the log (log
// events and status changes), the sample grids and the current state. The monitors draw from
// it; feeding the same events from metrics.jsonl (a past run) or live from the socket or a
// follower (a running one) gives the same picture.
#include "runtime/protocol/metrics_event.h"
#include "runtime/protocol/run_directory.h"
#include "views/runs/run_series.h"

#include <QString>

#include <cstdint>
#include <deque>
#include <map>
#include <string>
#include <vector>

namespace tapas {

struct RunLogLine {
    double time = 0;     // unix seconds
    QString level;       // info | warn | error | status
    int rank = -1;
    QString text;
};

struct RankRow {
    int rank = 0;
    QString host;
    int64_t step = -1;
    std::map<std::string, double> values; // step_time, compute_time, comm_time, memory_bytes, ...
};

struct RunSample {
    int64_t step = -1;
    QString path; // absolute when the run has a directory, else as recorded
};

class RunRecord {
public:
    enum Change { None = 0, Series = 1, Ranks = 2, Log = 4, Samples = 8, State = 16 };

    explicit RunRecord(protocol::RunSpec spec = {}, QString dir = {});

    // Returns the Change bits the event touched.
    int apply(const protocol::MetricsEvent& e);
    int apply(const std::vector<protocol::MetricsEvent>& events);

    const protocol::RunSpec& spec() const { return spec_; }
    QString id() const { return QString::fromStdString(spec_.id); }
    QString dir() const { return dir_; }
    bool isGan() const { return spec_.kind == "gan"; }

    // A step or metric value by name ("loss", "g_loss", "modes_covered"...), plus the derived
    // "comm_share" (comm_time / step_time of each step). Null when never reported.
    const RunSeries* series(const std::string& name) const;
    std::vector<std::string> seriesNames() const;
    // One rank's rank_stats value over the steps (e.g. its step_time).
    const RunSeries* rankSeries(int rank, const std::string& name) const;
    // The latest rank_stats row of every rank seen, by rank.
    const std::vector<RankRow>& ranks() const { return ranks_; }

    const std::deque<RunLogLine>& log() const { return log_; }
    // Lines ever added (the deque keeps the newest kMaxLogLines): lets a view append only news.
    std::size_t logTotal() const { return logTotal_; }
    const std::vector<RunSample>& samples() const { return samples_; }

    const std::string& state() const { return state_; }
    const QString& detail() const { return detail_; }
    int64_t lastStep() const { return lastStep_; }
    double lastTime() const { return lastTime_; }
    std::size_t eventCount() const { return events_; }
    bool isTerminal() const { return protocol::isTerminalState(state_); }

    static constexpr std::size_t kMaxLogLines = 5000;

private:
    RunSeries& seriesFor(const std::string& name);
    void addLog(RunLogLine line);

    protocol::RunSpec spec_;
    QString dir_;
    std::map<std::string, RunSeries> series_;
    std::map<std::pair<int, std::string>, RunSeries> rankSeries_;
    std::vector<RankRow> ranks_;
    std::deque<RunLogLine> log_;
    std::size_t logTotal_ = 0;
    std::vector<RunSample> samples_;
    std::string state_ = "unknown";
    QString detail_;
    int64_t lastStep_ = -1;
    double lastTime_ = 0;
    std::size_t events_ = 0;
};

} // namespace tapas
