// `tapas gan -np N [--steps S] [--checkpoint-every K] [--runs-dir DIR] [--resume RUNDIR]
//   [--hung-seconds T] [--grace-seconds G] [--worker P] [--mpirun P] [worker options...]`:
// ParaGAN training on N MPI ranks (mpirun + tapas-worker gan), one line per step. Every option
// the launcher does not know goes to the worker as is (docs/paragan.md lists them), e.g.
// `tapas gan -np 4 --data ring8 --async --staleness 2`. Wiring only: runtime/launch starts,
// supervises and stops the run.
#include "app/cli/cli_commands.h"
#include "app/cli/cli_common.h"
#include "app/cli/cli_supervise.h"

#include "runtime/launch/run_launcher.h"
#include "runtime/protocol/gan_presets.h"

#include <QFileInfo>

#include <cmath>
#include <cstdio>
#include <map>

namespace tapas::cli {

namespace {

void printGanEvent(const protocol::MetricsEvent& e)
{
    using protocol::EventType;
    auto v = [&](const char* k) {
        auto it = e.values.find(k);
        return it == e.values.end() ? std::nan("") : it->second;
    };
    char b[320];
    if (e.type == EventType::Step) {
        std::snprintf(b, sizeof b,
                      "step %5lld  g %-8.4f d %-8.4f D(x) %-6.3f D(G(z)) %-6.3f  %8.1f img/s  wait %5.1f ms  stale %g  loaders %g",
                      static_cast<long long>(e.step), v("g_loss"), v("d_loss"), v("d_real"), v("d_fake"), v("images_per_s"),
                      v("data_wait") * 1e3, v("staleness"), v("loader_threads"));
        printOut(b);
    } else if (e.type == EventType::Metric) {
        std::string line = "metric step " + std::to_string(e.step);
        for (const auto& [k, x] : e.values) line += "  " + k + " " + std::to_string(x);
        printOut(line);
    } else if (e.type == EventType::Sample) {
        printOut("sample step " + std::to_string(e.step) + ": " + e.text);
    } else if (e.type == EventType::Status) {
        std::string line = "status " + e.state;
        if (e.rank >= 0) line += " (rank " + std::to_string(e.rank) + ")";
        if (!e.text.empty()) line += ": " + e.text;
        for (const char* k : {"mode", "layout", "channel_pad", "global_batch", "path"})
            if (auto it = e.fields.find(k); it != e.fields.end()) line += std::string("  ") + k + "=" + it->second;
        printOut(line);
        if (auto it = e.fields.find("last_log"); it != e.fields.end() && !it->second.empty())
            printOut("last log lines:\n" + it->second);
    } else if (e.type == EventType::Log) {
        (e.level == "info" ? printOut : printErr)(e.level + " (rank " + std::to_string(e.rank) + "): " + e.text);
    }
}

const char* kUsage =
    "usage: tapas gan -np N [--steps S] [--checkpoint-every K] [--runs-dir DIR] [--resume RUNDIR]\n"
    "                 [--hung-seconds T] [--grace-seconds G] [--worker PATH] [--mpirun PATH] [worker options]\n"
    "ParaGAN training on N MPI ranks; worker options (docs/paragan.md): --data ring8|grid25|shapes|fashion-mnist|folder\n"
    "--data-dir DIR --model mlp|dcgan|biggan --async --staleness K [--shared-d-forward [--extrapolate none|d|g|both]]\n"
    "--ema DECAY --ema-start F --batch B --io-latency-ms MS ...\n"
    "Exit code 0 only when the run finished.\n";

} // namespace

int runGanCommand(const QStringList& args)
{
    runtime::LaunchRequest request;
    protocol::RunSpec& spec = request.spec;
    spec.kind = "gan";
    spec.steps = 0; // the data set's budget (protocol/gan_presets.h) unless --steps says otherwise
    spec.checkpointEvery = 50;
    request.runsRoot = QStringLiteral("runs");
    QString resumeDir;
    bool np = false, stepsSet = false, ckptSet = false;
    std::map<std::string, std::string> workerOptions;
    auto intValue = [](const QString& name, const QString& s, int min, int* out) {
        bool ok = false;
        *out = s.toInt(&ok);
        if (ok && *out >= min) return true;
        printErr("tapas gan: " + name.toStdString() + " must be an integer >= " + std::to_string(min) + ", not '" + s.toStdString() + "'");
        return false;
    };
    for (qsizetype i = 1; i < args.size(); ++i) {
        const QString a = args[i];
        if (a == QLatin1String("--help") || a == QLatin1String("-h")) {
            std::fputs(kUsage, stdout);
            return kExitOk;
        }
        if (!a.startsWith(QLatin1Char('-'))) {
            printErr("tapas gan: unexpected argument '" + a.toStdString() + "'\n" + kUsage);
            return kExitBadInput;
        }
        // The next argument is this option's value unless it is itself an option (numbers such
        // as -1 are values).
        bool nextIsNumber = false;
        if (i + 1 < args.size()) args[i + 1].toDouble(&nextIsNumber);
        const bool hasValue = i + 1 < args.size() && (!args[i + 1].startsWith(QLatin1Char('-')) || nextIsNumber);
        const QString value = hasValue ? args[i + 1] : QString();
        auto needValue = [&]() {
            if (hasValue) return true;
            printErr("tapas gan: " + a.toStdString() + " needs a value");
            return false;
        };
        bool ok = true;
        if (a == QLatin1String("-np") || a == QLatin1String("--np") || a == QLatin1String("-n")) {
            ok = needValue() && intValue(a, value, 1, &spec.ranks);
            np = true;
        } else if (a == QLatin1String("--steps")) {
            ok = needValue() && intValue(a, value, 1, &spec.steps);
            stepsSet = true;
        } else if (a == QLatin1String("--checkpoint-every")) {
            ok = needValue() && intValue(a, value, 0, &spec.checkpointEvery);
            ckptSet = true;
        } else if (a == QLatin1String("--runs-dir")) {
            ok = needValue();
            request.runsRoot = value;
        } else if (a == QLatin1String("--resume")) {
            ok = needValue();
            resumeDir = value;
        } else if (a == QLatin1String("--hung-seconds")) {
            ok = needValue() && intValue(a, value, 0, &request.hungSeconds);
        } else if (a == QLatin1String("--grace-seconds")) {
            ok = needValue() && intValue(a, value, 1, &request.graceSeconds);
        } else if (a == QLatin1String("--worker")) {
            ok = needValue();
            request.workerPath = value;
        } else if (a == QLatin1String("--mpirun")) {
            ok = needValue();
            request.mpirunPath = value;
        } else if (a == QLatin1String("--data-dir") && hasValue) {
            // The ranks run in the run directory: a relative folder means this shell's.
            workerOptions["data-dir"] = QFileInfo(value).absoluteFilePath().toStdString();
        } else {
            // A worker option: --key value, or a bare switch (empty value).
            workerOptions[a.mid(2).toStdString()] = value.toStdString();
        }
        if (!ok) return kExitBadInput;
        if (hasValue) ++i;
    }
    if (!resumeDir.isEmpty()) {
        auto r = runtime::RunLauncher::resumeRequest(resumeDir);
        if (!r) {
            printErr("tapas gan: " + r.error());
            return kExitBadInput;
        }
        const int ranks = spec.ranks, steps = spec.steps, ckpt = spec.checkpointEvery;
        const QString worker = request.workerPath, mpirun = request.mpirunPath;
        const int hung = request.hungSeconds, grace = request.graceSeconds;
        request = std::move(*r);
        // A different -np on resume is the scaling manager's job (docs/paragan.md).
        if (np) request.spec.ranks = ranks;
        if (stepsSet) request.spec.steps = steps;
        if (ckptSet) request.spec.checkpointEvery = ckpt;
        request.workerPath = worker;
        request.mpirunPath = mpirun;
        request.hungSeconds = hung;
        request.graceSeconds = grace;
        for (const auto& [k, v] : workerOptions) request.spec.options[k] = v;
    } else {
        if (!np) {
            printErr(std::string("tapas gan: -np is required, e.g. tapas gan -np 4 --data ring8 --async\n") + kUsage);
            return kExitBadInput;
        }
        spec.options = workerOptions;
        if (!stepsSet) {
            const auto data = workerOptions.find("data");
            const bool folder = workerOptions.count("data-dir") && data == workerOptions.end();
            spec.steps = protocol::ganDefaultSteps(folder ? "folder" : data == workerOptions.end() ? "ring8" : data->second);
            if (spec.steps == 0) spec.steps = protocol::ganDefaultSteps("folder"); // the worker names a bad data set
        }
    }

    return superviseRun("tapas gan", request, &printGanEvent);
}

} // namespace tapas::cli
