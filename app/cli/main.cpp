// tapas: the headless face of Tapas Studio. Everything the GUI does is reachable from here.
#include "app/cli/cli_commands.h"

#include <QCoreApplication>
#include <QTextStream>

#include <cstdio>

namespace {

struct Command {
    const char* name;
    const char* summary;
    int (*run)(const QStringList& args);
};

const Command kCommands[] = {
    {"inspect", "describe an ONNX model: ops, parameters, FLOPs, inputs/outputs, warnings", tapas::cli::runInspect},
    {"zoo", "write a zoo model (gpt, bert, t5, vit, resnet50, ...) as ONNX", tapas::cli::runZoo},
    {"fold", "find the repeated blocks of a model", tapas::cli::runFold},
    {"search", "search a sharding plan (TAPAS) and compare it with the baselines", tapas::cli::runSearch},
    {"plan", "check a plan file against its model (plan check plan.tapas.json model.onnx)", tapas::cli::runPlanCommand},
    {"export", "export a plan for a cluster (plan, mpirun, slurm, dtensor, megatron, dot, svg, png)", tapas::cli::runExport},
    {"run", "train a plan on N MPI ranks and follow it (run plan.tapas.json model.onnx -np 4)", tapas::cli::runRunCommand},
    {"gan", "ParaGAN training on N MPI ranks, one line per step (gan -np 4 --data ring8 --async)", tapas::cli::runGanCommand},
    {"cluster", "measure this machine's cluster spec on N MPI ranks (cluster calibrate -np 2 -o spec.json)", tapas::cli::runClusterCommand},
    {"bench", "run a benchmark and print its table (import, fold, ...)", tapas::cli::runBenchCommand},
};

void printUsage(FILE* out)
{
    std::fprintf(out, "usage: tapas <command> [options]\n\ncommands:\n");
    for (const Command& c : kCommands) std::fprintf(out, "  %-9s %s\n", c.name, c.summary);
    std::fprintf(out, "\n`tapas <command> --help` describes a command's options.\n");
}

} // namespace

int main(int argc, char** argv)
{
    QCoreApplication app(argc, argv);
    QCoreApplication::setApplicationName(QStringLiteral("tapas"));
    QCoreApplication::setApplicationVersion(QStringLiteral(TAPAS_VERSION));
    QStringList args = app.arguments();
    if (args.size() < 2 || args[1] == QLatin1String("--help") || args[1] == QLatin1String("-h")) {
        printUsage(args.size() < 2 ? stderr : stdout);
        return args.size() < 2 ? 2 : 0;
    }
    if (args[1] == QLatin1String("--version")) {
        std::printf("tapas %s\n", TAPAS_VERSION);
        return 0;
    }
    const QString name = args[1];
    for (const Command& c : kCommands) {
        if (name == QLatin1String(c.name)) {
            args.removeAt(1); // the command's parser sees "tapas <its options>"
            return c.run(args);
        }
    }
    std::fprintf(stderr, "tapas: unknown command '%s'\n\n", qPrintable(name));
    printUsage(stderr);
    return 2;
}
