#include "runtime/launch/mpirun_command.h"

#include <QFileInfo>
#include <QRegularExpression>
#include <QStandardPaths>

namespace tapas::runtime {

namespace {

std::string str(const QString& s)
{
    return s.toStdString();
}

// Checks what both the mpirun and the srun line share.
Status checkCommon(const MpirunOptions& o)
{
    if (o.ranks < 1)
        return Status::failure("the number of ranks must be at least 1, not " + std::to_string(o.ranks));
    if (o.program.isEmpty())
        return Status::failure("no program to start on the ranks");
    if (!o.hosts.isEmpty() && !o.hostfile.isEmpty())
        return Status::failure("give either a host list or a hostfile, not both (hostfile " + str(o.hostfile) + ")");
    for (const QString& h : o.hosts)
        if (!isValidHostEntry(h))
            return Status::failure("host name '" + str(h) +
                                   "' refused: only letters, digits, '.', '_' and '-' (optionally ':slots') are allowed");
    static const QRegularExpression mapByRe(QStringLiteral("^[A-Za-z0-9:_,=-]+$"));
    if (!o.mapBy.isEmpty() && !mapByRe.match(o.mapBy).hasMatch())
        return Status::failure("--map-by value '" + str(o.mapBy) + "' refused: unexpected characters");
    static const QRegularExpression varRe(QStringLiteral("^[A-Za-z_][A-Za-z0-9_]*$"));
    for (const QString& v : o.exportVars)
        if (!varRe.match(v).hasMatch())
            return Status::failure("environment variable name '" + str(v) + "' refused");
    return Status::success();
}

} // namespace

QString CommandLine::toShellString() const
{
    QStringList parts{shellQuote(program)};
    for (const QString& a : arguments) parts << shellQuote(a);
    return parts.join(QLatin1Char(' '));
}

bool isValidHostEntry(const QString& entry)
{
    static const QRegularExpression re(QStringLiteral("^[A-Za-z0-9._-]+(:[0-9]{1,5})?$"));
    // A leading '-' would read as an option to mpirun or srun.
    return !entry.startsWith(QLatin1Char('-')) && re.match(entry).hasMatch();
}

Result<CommandLine> buildMpirunCommand(const MpirunOptions& o)
{
    if (Status s = checkCommon(o); !s) return Result<CommandLine>::failure(s.error);
    if (o.mpirun.isEmpty()) return Result<CommandLine>::failure("no mpirun given");
    CommandLine c;
    c.program = o.mpirun;
    QStringList& a = c.arguments;
    a << QStringLiteral("-np") << QString::number(o.ranks);
    if (!o.hostfile.isEmpty()) a << QStringLiteral("--hostfile") << o.hostfile;
    if (!o.hosts.isEmpty()) a << QStringLiteral("--host") << o.hosts.join(QLatin1Char(','));
    if (!o.mapBy.isEmpty()) a << QStringLiteral("--map-by") << o.mapBy;
    // Open MPI refuses to run as root without the flag, and as root (containers, CI) the slot
    // count is rarely meaningful, so both come together (TOOLCHAIN.md §5).
    if (o.runningAsRoot) a << QStringLiteral("--allow-run-as-root");
    if (o.runningAsRoot || o.oversubscribe) a << QStringLiteral("--oversubscribe");
    if (o.sigkillTimeoutSeconds > 0)
        a << QStringLiteral("--mca") << QStringLiteral("odls_base_sigkill_timeout")
          << QString::number(o.sigkillTimeoutSeconds);
    if (o.loopbackOnly)
        a << QStringLiteral("--mca") << QStringLiteral("btl_tcp_if_include") << QStringLiteral("lo") << QStringLiteral("--mca")
          << QStringLiteral("oob_tcp_if_include") << QStringLiteral("lo");
    // -x NAME passes the variable's value through Open MPI's own channels: a secret such as the
    // metrics token never appears on any command line.
    for (const QString& v : o.exportVars) a << QStringLiteral("-x") << v;
    a << o.program << o.programArgs;
    return c;
}

bool isLocalOnly(const QStringList& hosts, const QString& hostfile)
{
    if (!hostfile.isEmpty()) return false;
    for (const QString& h : hosts) {
        const QString name = h.section(QLatin1Char(':'), 0, 0);
        if (name != QLatin1String("localhost") && name != QLatin1String("127.0.0.1")) return false;
    }
    return true;
}

Result<QString> buildSrunLine(const MpirunOptions& o)
{
    if (Status s = checkCommon(o); !s) return Result<QString>::failure(s.error);
    QStringList a{QStringLiteral("srun"), QStringLiteral("--ntasks=%1").arg(o.ranks)};
    if (!o.hosts.isEmpty()) {
        QStringList names; // srun's nodelist has no slot counts
        for (const QString& h : o.hosts) names << h.section(QLatin1Char(':'), 0, 0);
        names.removeDuplicates();
        a << QStringLiteral("--nodelist=") + names.join(QLatin1Char(','));
    }
    if (!o.hostfile.isEmpty()) a << QStringLiteral("--nodefile=") + o.hostfile;
    if (!o.mapBy.isEmpty()) {
        // The usual Open MPI placements have srun equivalents; others are left to the user.
        if (o.mapBy == QLatin1String("node")) a << QStringLiteral("--distribution=cyclic");
        else if (o.mapBy == QLatin1String("slot") || o.mapBy == QLatin1String("core"))
            a << QStringLiteral("--distribution=block");
    }
    a << QStringLiteral("--export=") + (QStringList{QStringLiteral("ALL")} + o.exportVars).join(QLatin1Char(','));
    a << o.program << o.programArgs;
    QStringList quoted;
    for (const QString& s : a) quoted << shellQuote(s);
    return quoted.join(QLatin1Char(' '));
}

QStringList exportedVariables(const QProcessEnvironment& env)
{
    QStringList out;
    for (const char* name : {"OMP_NUM_THREADS", "PATH", "LD_LIBRARY_PATH"})
        if (env.contains(QLatin1String(name))) out << QLatin1String(name);
    QStringList nccl;
    for (const QString& k : env.keys())
        if (k.startsWith(QLatin1String("NCCL_"))) nccl << k;
    nccl.sort();
    return out + nccl;
}

Result<QString> findMpirun(const QString& preferred)
{
    auto executable = [](const QString& p) {
        const QFileInfo fi(p);
        return fi.isFile() && fi.isExecutable();
    };
    if (!preferred.isEmpty()) {
        if (executable(preferred)) return preferred;
        const QString onPath = QStandardPaths::findExecutable(preferred);
        if (!onPath.isEmpty()) return onPath;
        return Result<QString>::failure("mpirun '" + str(preferred) + "' was not found or is not executable");
    }
#ifdef TAPAS_MPIEXEC_DEFAULT
    if (executable(QStringLiteral(TAPAS_MPIEXEC_DEFAULT))) return QStringLiteral(TAPAS_MPIEXEC_DEFAULT);
#endif
    for (const char* name : {"mpirun", "mpiexec"}) {
        const QString p = QStandardPaths::findExecutable(QLatin1String(name));
        if (!p.isEmpty()) return p;
    }
    return Result<QString>::failure("mpirun was not found: install Open MPI (Debian: apt-get install openmpi-bin) "
                                    "or name it with --mpirun PATH");
}

QString shellQuote(const QString& arg)
{
    static const QRegularExpression safe(QStringLiteral("^[A-Za-z0-9_./=:,+@%-]+$"));
    if (!arg.isEmpty() && safe.match(arg).hasMatch()) return arg;
    QString q = arg;
    q.replace(QLatin1Char('\''), QLatin1String("'\\''"));
    return QLatin1Char('\'') + q + QLatin1Char('\'');
}

} // namespace tapas::runtime
