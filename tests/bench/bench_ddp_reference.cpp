#include "tests/bench/bench_ddp_reference.h"

#include "runtime/launch/mpirun_command.h"

#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>

#include <unistd.h>

namespace tapas::bench {

namespace {

// Debian's python3-torch imports only under the system interpreter (not a pyenv one on PATH).
constexpr const char* kPython = "/usr/bin/python3";

} // namespace

DdpFigures runDdpReference(const QString& workDir, const DdpShape& s, int ranks, int steps, int warmup)
{
    DdpFigures fig;
    if (!QFile::exists(QString::fromLatin1(kPython))) {
        fig.error = std::string(kPython) + " is not installed";
        return fig;
    }
    const QString script = workDir + QStringLiteral("/ddp_gpt_step.py");
    QFile::remove(script);
    if (!QFile::copy(QStringLiteral(":/bench/ddp_gpt_step.py"), script)) {
        fig.error = "could not write " + script.toStdString();
        return fig;
    }
    Result<QString> mpirun = runtime::findMpirun();
    if (!mpirun) {
        fig.error = mpirun.error();
        return fig;
    }
    runtime::MpirunOptions o;
    o.mpirun = *mpirun;
    o.ranks = ranks;
    o.oversubscribe = true;
    o.runningAsRoot = geteuid() == 0;
    o.program = QString::fromLatin1(kPython);
    o.programArgs = {script};
    const std::pair<const char*, int> args[] = {{"--layers", s.layers}, {"--hidden", s.hidden}, {"--heads", s.heads},
                                                {"--seq", s.seq},       {"--batch", s.batch},   {"--vocab", s.vocab},
                                                {"--steps", steps},     {"--warmup", warmup}};
    for (const auto& [name, value] : args) o.programArgs << QString::fromLatin1(name) << QString::number(value);
    Result<runtime::CommandLine> cmd = runtime::buildMpirunCommand(o);
    if (!cmd) {
        fig.error = cmd.error();
        return fig;
    }
    QProcess p;
    p.setWorkingDirectory(workDir);
    p.start(cmd->program, cmd->arguments);
    if (!p.waitForFinished(600000)) {
        p.kill();
        p.waitForFinished();
        fig.error = "PyTorch DDP run did not finish in 600 s";
        return fig;
    }
    const QByteArray out = p.readAllStandardOutput();
    if (p.exitStatus() != QProcess::NormalExit || p.exitCode() != 0) {
        const QByteArray err = p.readAllStandardError();
        fig.error = "PyTorch DDP run failed (exit " + std::to_string(p.exitCode()) + "): " +
                    err.right(400).trimmed().toStdString();
        return fig;
    }
    const QList<QByteArray> lines = out.trimmed().split('\n');
    const QJsonObject o2 = QJsonDocument::fromJson(lines.isEmpty() ? QByteArray() : lines.last()).object();
    if (!o2.contains(QStringLiteral("median_step_ms"))) {
        fig.error = "PyTorch DDP run printed no result: " + out.right(400).toStdString();
        return fig;
    }
    fig.ok = true;
    fig.medianStepSeconds = o2.value(QStringLiteral("median_step_ms")).toDouble() / 1e3;
    fig.torchVersion = o2.value(QStringLiteral("torch")).toString().toStdString();
    return fig;
}

} // namespace tapas::bench
