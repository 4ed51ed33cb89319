#pragma once
// The mpirun command line of a run (and the srun line for SLURM clusters), built by pure
// functions so every flag is unit-tested without starting anything. Tapas never launches
// processes across hosts itself: it hands a host list or hostfile to Open MPI (DESIGN.md).
#include "core/util/result.h"

#include <QProcessEnvironment>
#include <QString>
#include <QStringList>

namespace tapas::runtime {

struct MpirunOptions {
    QString mpirun = QStringLiteral("mpirun"); // the launcher resolves it with findMpirun()
    int ranks = 2;
    QStringList hosts;            // "node1" or "node1:4" (4 slots); empty: localhost
    QString hostfile;             // Open MPI hostfile; exclusive with hosts
    QString mapBy;                // --map-by value, e.g. "slot", "node", "ppr:1:node"; empty: default
    bool oversubscribe = false;   // more ranks than cores/slots
    bool runningAsRoot = false;   // geteuid() == 0: Open MPI refuses root without a flag
    QStringList exportVars;       // names passed with -x (see exportedVariables())
    int sigkillTimeoutSeconds = 0; // > 0: how long Open MPI waits between SIGTERM and SIGKILL
    // Every rank on this machine: Open MPI's TCP traffic (the ranks' tcp BTL and the runtime's
    // out-of-band channel) is kept on the loopback interface. Set by the launcher for runs
    // without hosts (see isLocalOnly()).
    bool loopbackOnly = false;
    QString program;              // the worker
    QStringList programArgs;
};

struct CommandLine {
    QString program;
    QStringList arguments;
    // The line as a POSIX shell would take it (for launch.log and the user).
    QString toShellString() const;
};

// Host names go to Open MPI and into shell scripts, so only [A-Za-z0-9._-] is accepted,
// optionally followed by ":slots".
bool isValidHostEntry(const QString& entry);

// True when the run has no hostfile and every host names this machine by a loopback name
// (none, "localhost", "127.0.0.1", optionally with ":slots").
bool isLocalOnly(const QStringList& hosts, const QString& hostfile);

// Refuses bad input with a sentence naming it (ranks < 1, a hostile host name, hosts together
// with a hostfile, no program).
Result<CommandLine> buildMpirunCommand(const MpirunOptions& o);

// `srun --ntasks=N [--nodelist=a,b] --export=ALL,VAR... program args`, printed for SLURM users
// (Tapas does not submit it).
Result<QString> buildSrunLine(const MpirunOptions& o);

// The variables a rank needs from the launching shell: OMP_NUM_THREADS, PATH, LD_LIBRARY_PATH
// and every NCCL_*, each only when `env` has it.
QStringList exportedVariables(const QProcessEnvironment& env);

// `preferred` non-empty: it must be an executable file. Otherwise the mpirun found at
// configure time, then `mpirun` on PATH. The error says how to install or point to one.
Result<QString> findMpirun(const QString& preferred = {});

// POSIX single-quote quoting where needed.
QString shellQuote(const QString& arg);

} // namespace tapas::runtime
