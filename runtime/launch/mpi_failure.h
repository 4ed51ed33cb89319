#pragma once
// Which rank brought a run down, read from Open MPI's own messages on mpirun's output:
//   "mpirun noticed that process rank 1 with PID 4242 on node n1 exited on signal 9 (Killed)."
//   "... The first process to do so was:\n  Process name: [[1234,1],0]\n  Exit code: 3"
// Pure text parsing so it is unit-tested against recorded messages.
#include <QString>
#include <QStringList>

namespace tapas::runtime {

struct RankFailure {
    int rank = -1;       // -1: no rank named
    int signal = 0;      // > 0 when killed by a signal
    QString signalName;  // "Killed", "Segmentation fault", ...
    int exitCode = -1;   // >= 0 when it exited with a non-zero code
    QString host;
    // "rank 1 exited on signal 9 (Killed) on n1", "rank 0 exited with code 3".
    QString describe() const;
};

RankFailure parseRankFailure(const QString& mpirunOutput);

// The last `count` lines of a text file ("" when it cannot be read).
QString lastLines(const QString& path, int count);

} // namespace tapas::runtime
