#include "runtime/launch/run_follower.h"

#include <QFileInfo>

namespace tapas::runtime {

RunFollower::RunFollower(QObject* parent) : QObject(parent)
{
    connect(&timer_, &QTimer::timeout, this, &RunFollower::poll);
}

void RunFollower::follow(const QString& runDir, int intervalMs, quint64 fromOffset)
{
    runDir_ = runDir;
    offset_ = fromOffset;
    atTerminal_ = false;
    timer_.start(intervalMs > 0 ? intervalMs : 500);
    poll();
}

void RunFollower::stop()
{
    timer_.stop();
}

void RunFollower::poll()
{
    if (runDir_.isEmpty()) return;
    const std::string dir = runDir_.toStdString();
    // Not written yet: the worker creates it once it starts.
    if (!QFileInfo::exists(QString::fromStdString(protocol::metricsPath(dir)))) return;
    auto chunk = protocol::readMetrics(dir, offset_);
    if (!chunk) {
        Q_EMIT readError(QString::fromStdString(chunk.error()));
        return;
    }
    offset_ = chunk->nextOffset;
    for (const protocol::MetricsEvent& e : chunk->events) {
        Q_EMIT eventReceived(e);
        if (e.type != protocol::EventType::Status) continue;
        atTerminal_ = protocol::isTerminalState(e.state);
        if (atTerminal_) Q_EMIT terminalReached(QString::fromStdString(e.state));
    }
}

} // namespace tapas::runtime
