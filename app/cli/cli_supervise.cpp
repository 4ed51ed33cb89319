#include "app/cli/cli_supervise.h"

#include "app/cli/cli_common.h"

#include <QCoreApplication>
#include <QTimer>

#include <atomic>
#include <csignal>
#include <string>

namespace tapas::cli {

namespace {

std::atomic<bool> gInterrupted{false};

void onInterrupt(int)
{
    gInterrupted = true;
    std::signal(SIGINT, SIG_DFL); // a second Ctrl-C ends tapas at once
}

} // namespace

int superviseRun(const char* command, const runtime::LaunchRequest& request, EventPrinter printEvent)
{
    const std::string name = command;
    runtime::RunLauncher launcher;
    QObject::connect(&launcher, &runtime::RunLauncher::eventReceived, &launcher, printEvent);
    QObject::connect(&launcher, &runtime::RunLauncher::runFinished, QCoreApplication::instance(),
                     [](const QString&) { QCoreApplication::quit(); });
    if (Status s = launcher.start(request); !s) {
        printErr(name + ": " + s.error);
        return kExitBadInput;
    }
    printOut("run " + launcher.runId().toStdString() + " in " + launcher.runDir().toStdString());
    printOut(launcher.commandLine().toStdString());

    gInterrupted = false;
    std::signal(SIGINT, onInterrupt);
    QTimer interruptPoll; // the handler only sets a flag; the stop itself runs on the event loop
    QObject::connect(&interruptPoll, &QTimer::timeout, &launcher, [&launcher, name] {
        if (!gInterrupted.exchange(false)) return;
        printErr(name + ": interrupted, stopping the run (Ctrl-C again to leave at once)");
        launcher.stop();
    });
    interruptPoll.start(200);
    QCoreApplication::exec();
    std::signal(SIGINT, SIG_DFL);

    printOut("run " + launcher.runId().toStdString() + ": " + launcher.state().toStdString() +
             (launcher.detail().isEmpty() ? "" : " (" + launcher.detail().toStdString() + ")") + ", exit code " +
             std::to_string(launcher.exitCode()) + ", " + launcher.runDir().toStdString());
    return launcher.state() == QLatin1String("finished") ? kExitOk : kExitFailed;
}

} // namespace tapas::cli
