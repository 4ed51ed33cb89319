#include "runtime/launch/mpi_failure.h"

#include <QFile>
#include <QRegularExpression>

namespace tapas::runtime {

QString RankFailure::describe() const
{
    if (rank < 0) return QStringLiteral("no rank named by mpirun");
    QString s = QStringLiteral("rank %1").arg(rank);
    if (signal > 0) {
        s += QStringLiteral(" exited on signal %1").arg(signal);
        if (!signalName.isEmpty()) s += QStringLiteral(" (%1)").arg(signalName);
    } else if (exitCode >= 0) {
        s += QStringLiteral(" exited with code %1").arg(exitCode);
    } else {
        s += QStringLiteral(" failed");
    }
    if (!host.isEmpty()) s += QStringLiteral(" on ") + host;
    return s;
}

RankFailure parseRankFailure(const QString& out)
{
    RankFailure f;
    // Open MPI 4: "mpirun noticed that process rank 1 with PID 0 on node vm exited on signal 9 (Killed)."
    static const QRegularExpression signalRe(
        QStringLiteral(R"(process rank (\d+) with PID \d+ on node (\S+) exited on signal (\d+)(?: \(([^)]*)\))?)"));
    if (const auto m = signalRe.match(out); m.hasMatch()) {
        f.rank = m.captured(1).toInt();
        f.host = m.captured(2);
        f.signal = m.captured(3).toInt();
        f.signalName = m.captured(4);
        return f;
    }
    // "The first process to do so was:\n\n  Process name: [[19637,1],1]\n  Exit code:    3"
    static const QRegularExpression nameRe(QStringLiteral(R"(Process name:\s*\[\[\d+,\d+\],(\d+)\])"));
    if (const auto m = nameRe.match(out); m.hasMatch()) {
        f.rank = m.captured(1).toInt();
        static const QRegularExpression codeRe(QStringLiteral(R"(Exit code:\s*(-?\d+))"));
        if (const auto c = codeRe.match(out, m.capturedEnd()); c.hasMatch()) f.exitCode = c.captured(1).toInt();
        static const QRegularExpression hostRe(QStringLiteral(R"(Node:\s*(\S+))"));
        if (const auto h = hostRe.match(out, m.capturedEnd()); h.hasMatch()) f.host = h.captured(1);
        return f;
    }
    // Older wording: "mpirun noticed that process rank 1 with PID 42 on node n exited with status 3"
    static const QRegularExpression statusRe(
        QStringLiteral(R"(process rank (\d+) with PID \d+ on node (\S+) exited (?:with|on) status (\d+))"));
    if (const auto m = statusRe.match(out); m.hasMatch()) {
        f.rank = m.captured(1).toInt();
        f.host = m.captured(2);
        f.exitCode = m.captured(3).toInt();
    }
    return f;
}

QString lastLines(const QString& path, int count)
{
    QFile file(path);
    if (count <= 0 || !file.open(QIODevice::ReadOnly)) return {};
    // Only the tail matters; a rank log can be large.
    constexpr qint64 kTail = 64 * 1024;
    if (file.size() > kTail) file.seek(file.size() - kTail);
    QStringList lines = QString::fromUtf8(file.readAll()).split(QLatin1Char('\n'));
    while (!lines.isEmpty() && lines.last().trimmed().isEmpty()) lines.removeLast();
    if (lines.size() > count) lines = lines.mid(lines.size() - count);
    return lines.join(QLatin1Char('\n'));
}

} // namespace tapas::runtime
