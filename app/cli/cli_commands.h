#pragma once
// The `tapas` sub-commands. Each lives in its own cli_<name>.cpp; main.cpp lists them once.
#include <QStringList>

namespace tapas::cli {

// Each returns the process exit code: 0 ok, 1 the job failed, 2 bad input or usage.
int runInspect(const QStringList& args);
int runZoo(const QStringList& args);
int runFold(const QStringList& args);
int runBenchCommand(const QStringList& args);
int runSearch(const QStringList& args);      // cli_search.cpp
int runPlanCommand(const QStringList& args); // cli_search.cpp: `plan check`
int runRunCommand(const QStringList& args);  // cli_run.cpp: `run` (train a plan on MPI ranks)
int runExport(const QStringList& args);      // cli_export.cpp: `export` (plan -> cluster files)
int runGanCommand(const QStringList& args);  // cli_gan.cpp: `gan` (ParaGAN training on MPI ranks)
int runClusterCommand(const QStringList& args); // cli_calibrate.cpp: `cluster calibrate` (measure a cluster spec)

} // namespace tapas::cli
