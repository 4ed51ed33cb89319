#include "views/runs/run_record.h"

#include <QDir>

#include <algorithm>
#include <cmath>

namespace tapas {

namespace {

// Per-rank series keep fewer full-resolution points: there is one per rank and value.
constexpr std::size_t kRankRecent = 1000;
constexpr std::size_t kRankBuckets = 500;

} // namespace

RunRecord::RunRecord(protocol::RunSpec spec, QString dir) : spec_(std::move(spec)), dir_(std::move(dir)) {}

RunSeries& RunRecord::seriesFor(const std::string& name)
{
    return series_.try_emplace(name).first->second;
}

const RunSeries* RunRecord::series(const std::string& name) const
{
    const auto it = series_.find(name);
    return it == series_.end() ? nullptr : &it->second;
}

std::vector<std::string> RunRecord::seriesNames() const
{
    std::vector<std::string> names;
    for (const auto& [name, s] : series_) names.push_back(name);
    return names;
}

const RunSeries* RunRecord::rankSeries(int rank, const std::string& name) const
{
    const auto it = rankSeries_.find({rank, name});
    return it == rankSeries_.end() ? nullptr : &it->second;
}

void RunRecord::addLog(RunLogLine line)
{
    log_.push_back(std::move(line));
    ++logTotal_;
    while (log_.size() > kMaxLogLines) log_.pop_front();
}

int RunRecord::apply(const std::vector<protocol::MetricsEvent>& events)
{
    int changed = None;
    for (const auto& e : events) changed |= apply(e);
    return changed;
}

int RunRecord::apply(const protocol::MetricsEvent& e)
{
    using protocol::EventType;
    ++events_;
    lastTime_ = std::max(lastTime_, e.time);
    switch (e.type) {
    case EventType::Step:
    case EventType::Metric: {
        const double x = double(e.step);
        for (const auto& [name, v] : e.values) seriesFor(name).add(x, v);
        if (e.type == EventType::Step) {
            // The communication share of a step: what tensor parallelism costs, at a glance.
            const auto comm = e.values.find("comm_time");
            const auto step = e.values.find("step_time");
            if (comm != e.values.end() && step != e.values.end() && step->second > 0)
                seriesFor("comm_share").add(x, comm->second / step->second);
            lastStep_ = std::max(lastStep_, e.step);
        }
        return Series;
    }
    case EventType::RankStats: {
        for (const protocol::RankStat& r : e.ranks) {
            auto it = std::find_if(ranks_.begin(), ranks_.end(), [&](const RankRow& row) { return row.rank == r.rank; });
            if (it == ranks_.end()) {
                ranks_.push_back({r.rank, {}, -1, {}});
                std::sort(ranks_.begin(), ranks_.end(), [](const RankRow& a, const RankRow& b) { return a.rank < b.rank; });
                it = std::find_if(ranks_.begin(), ranks_.end(), [&](const RankRow& row) { return row.rank == r.rank; });
            }
            it->host = QString::fromStdString(r.host);
            it->step = e.step;
            for (const auto& [name, v] : r.values) {
                it->values[name] = v;
                rankSeries_.try_emplace({r.rank, name}, kRankRecent, kRankBuckets).first->second.add(double(e.step), v);
            }
        }
        return Ranks | Series;
    }
    case EventType::Sample: {
        QString path = QString::fromStdString(e.text);
        if (!dir_.isEmpty() && QDir::isRelativePath(path)) path = QDir(dir_).filePath(path);
        samples_.push_back({e.step, path});
        return Samples;
    }
    case EventType::Log:
        addLog({e.time, QString::fromStdString(e.level.empty() ? std::string("info") : e.level), e.rank,
                QString::fromStdString(e.text)});
        return Log;
    case EventType::Status: {
        state_ = e.state;
        detail_ = QString::fromStdString(e.text);
        QString text = QString::fromStdString(e.state);
        if (!e.text.empty()) text += QStringLiteral(": ") + detail_;
        for (const auto& [k, v] : e.fields)
            text += QStringLiteral(" [%1=%2]").arg(QString::fromStdString(k), QString::fromStdString(v));
        addLog({e.time, QStringLiteral("status"), e.rank, text});
        return State | Log;
    }
    }
    return None;
}

} // namespace tapas
