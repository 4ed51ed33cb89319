#include "runtime/launch/worker_command.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QStandardPaths>

namespace tapas::runtime {

Result<QStringList> buildWorkerArguments(const protocol::RunSpec& spec, const WorkerArgs& a)
{
    if (spec.kind.empty()) return Result<QStringList>::failure("the run spec has no kind (train-plan, gan)");
    if (a.runDir.isEmpty()) return Result<QStringList>::failure("no run directory for the worker");
    QStringList args{QString::fromStdString(spec.kind)};
    if (spec.kind == "train-plan") {
        if (spec.modelPath.empty()) return Result<QStringList>::failure("a train-plan run needs a model (.onnx)");
        if (spec.planPath.empty()) return Result<QStringList>::failure("a train-plan run needs a plan (.tapas.json)");
        args << QStringLiteral("--model") << QString::fromStdString(spec.modelPath) << QStringLiteral("--plan")
             << QString::fromStdString(spec.planPath);
    }
    args << QStringLiteral("--run-dir") << a.runDir << QStringLiteral("--steps") << QString::number(spec.steps)
         << QStringLiteral("--checkpoint-every") << QString::number(spec.checkpointEvery);
    if (spec.resume) args << QStringLiteral("--resume");
    const std::string dimPrefix = kDimOptionPrefix;
    for (const auto& [key, value] : spec.options) {
        if (key.empty()) return Result<QStringList>::failure("the run spec has an option with an empty name");
        if (key == "metrics-token")
            return Result<QStringList>::failure("the run spec has a metrics-token option: the token is passed in the "
                                                "environment, never on the command line");
        if (key.rfind(dimPrefix, 0) == 0) {
            args << QStringLiteral("--dim") << QString::fromStdString(key.substr(dimPrefix.size()) + "=" + value);
            continue;
        }
        args << QStringLiteral("--") + QString::fromStdString(key);
        if (!value.empty()) args << QString::fromStdString(value);
    }
    if (a.metricsPort > 0) args << QStringLiteral("--metrics-port") << QString::number(a.metricsPort);
    return args;
}

Result<QString> findWorker(const QString& preferred)
{
    auto executable = [](const QString& p) {
        const QFileInfo fi(p);
        return fi.isFile() && fi.isExecutable();
    };
    if (!preferred.isEmpty()) {
        if (executable(preferred)) return QFileInfo(preferred).absoluteFilePath();
        return Result<QString>::failure("tapas-worker '" + preferred.toStdString() +
                                        "' was not found or is not executable");
    }
    // tapas, tapas-studio and tapas-worker are built into the same bin/ folder.
    if (QCoreApplication::instance()) {
        const QString sibling = QDir(QCoreApplication::applicationDirPath()).filePath(QStringLiteral("tapas-worker"));
        if (executable(sibling)) return sibling;
    }
    const QString onPath = QStandardPaths::findExecutable(QStringLiteral("tapas-worker"));
    if (!onPath.isEmpty()) return onPath;
    return Result<QString>::failure("tapas-worker was not found next to this program or on PATH");
}

} // namespace tapas::runtime
