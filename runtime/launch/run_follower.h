#pragma once
// RunFollower: follows a run directory's metrics.jsonl by polling readMetrics() from the last
// offset, so a run started elsewhere (another `tapas run`, a crashed GUI's run) can be watched
// live, and so the launcher keeps getting events when the socket is absent.
#include "runtime/protocol/run_directory.h"

#include <QObject>
#include <QString>
#include <QTimer>

namespace tapas::runtime {

class RunFollower : public QObject {
    Q_OBJECT
public:
    explicit RunFollower(QObject* parent = nullptr);

    // Starts at byte `fromOffset` of metrics.jsonl (0: every recorded event is emitted first)
    // and polls every `intervalMs` until stop(): a resumed run appends to a file that already
    // ended in a terminal state. A missing file is not an error: the run may not have written yet.
    void follow(const QString& runDir, int intervalMs = 500, quint64 fromOffset = 0);
    void stop();
    // Reads whatever is new now (also called by the timer).
    void poll();

    QString runDir() const { return runDir_; }
    bool isFollowing() const { return timer_.isActive(); }
    // The last status read was terminal (finished, failed, stopped, hung, numerics_mismatch).
    bool atTerminal() const { return atTerminal_; }
    quint64 offset() const { return offset_; }

Q_SIGNALS:
    void eventReceived(const tapas::protocol::MetricsEvent& event);
    // A terminal status (finished, failed, stopped, hung, numerics_mismatch) was read.
    void terminalReached(const QString& state);
    // The file could not be read (other than not existing yet).
    void readError(const QString& message);

private:
    QString runDir_;
    quint64 offset_ = 0;
    QTimer timer_;
    bool atTerminal_ = false;
};

} // namespace tapas::runtime
