#pragma once
// Runs the real `tapas` binary as a user would and keeps what they would see: exit code (-1 when
// it did not finish within two minutes, -2 when it crashed), stdout and stderr.
#include <QByteArray>
#include <QProcess>
#include <QString>
#include <QStringList>

namespace tapas::testing {

struct TapasRun {
    int exitCode = -1;
    QByteArray out;
    QByteArray err;
};

inline QString tapasBinary() { return QStringLiteral(TAPAS_BIN_DIR "/tapas"); }

inline TapasRun runTapas(const QStringList& args)
{
    QProcess p;
    p.start(tapasBinary(), args);
    TapasRun r;
    if (!p.waitForFinished(120000)) {
        p.kill();
        p.waitForFinished();
        return r;
    }
    r.exitCode = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -2;
    r.out = p.readAllStandardOutput();
    r.err = p.readAllStandardError();
    return r;
}

} // namespace tapas::testing
