#include "runtime/calibrate/calibrate_worker.h"

#include "runtime/calibrate/op_family_bench.h"
#include "runtime/worker_info.h"
#include "runtime/worker_options.h"

#include "core/util/median.h"

#include <torch/torch.h>
#include <torch/version.h>

#include <mpi.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <map>
#include <set>

namespace tapas::runtime {

namespace {

using nlohmann::json;
using Clock = std::chrono::steady_clock;

// The GEMMs of the zoo GPT that `tapas bench run` trains (hidden 256, batch 8 x seq 64 = 512
// tokens): attention output, LM head, QKV, MLP up and MLP down. Tensor parallelism halves one
// of k or n, which these sizes also cover.
const std::vector<GemmShape> kDefaultGemms = {{512, 256, 256}, {512, 256, 512}, {512, 256, 768}, {512, 256, 1024}, {512, 1024, 256}};

double seconds(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

bool parseShape(const std::string& s, GemmShape& out)
{
    int m = 0, k = 0, n = 0;
    char tail = 0;
    if (std::sscanf(s.c_str(), "%dx%dx%d%c", &m, &k, &n, &tail) != 3 || m <= 0 || k <= 0 || n <= 0 || m > 65536 ||
        k > 65536 || n > 65536)
        return false;
    out = {m, k, n};
    return true;
}

// The 1-minute load average of this host, -1 where /proc/loadavg is missing.
double loadAverage()
{
    std::ifstream in("/proc/loadavg");
    double load = -1;
    return in >> load ? load : -1;
}

// Achieved FLOP/s of torch::mm at one shape: warm up, then 5 bursts of budget/5 seconds each
// (at least 3 calls), and the median burst's rate, so a moment of preemption on a shared machine
// does not decide the figure. Every rank runs this at the same time.
double gemmFlops(const GemmShape& s, double budget)
{
    torch::NoGradGuard noGrad;
    const torch::Tensor a = torch::randn({s.m, s.k});
    const torch::Tensor b = torch::randn({s.k, s.n});
    torch::Tensor c = torch::mm(a, b);
    c = torch::mm(a, b);
    std::vector<double> rates;
    for (int burst = 0; burst < 5; ++burst) {
        int calls = 0;
        const auto t0 = Clock::now();
        double elapsed = 0;
        while (calls < 3 || elapsed < budget / 5) {
            torch::mm_out(c, a, b);
            ++calls;
            elapsed = seconds(t0);
        }
        rates.push_back(2.0 * s.m * s.k * s.n * calls / elapsed);
    }
    return median(rates, EvenMiddle::Lower); // the slower middle rate: conservative
}

// Seconds per MPI_Allreduce of `bytes` (float sum) on `comm`: each call timed on its own, the
// median call, the slowest rank's figure.
double allreduceSeconds(MPI_Comm comm, long bytes, int reps)
{
    const long count = std::max(1L, bytes / long(sizeof(float)));
    std::vector<float> in(static_cast<size_t>(count), 1.0f), out(static_cast<size_t>(count));
    for (int i = 0; i < 3; ++i) MPI_Allreduce(in.data(), out.data(), int(count), MPI_FLOAT, MPI_SUM, comm);
    MPI_Barrier(comm);
    std::vector<double> times;
    for (int i = 0; i < reps; ++i) {
        const auto t0 = Clock::now();
        MPI_Allreduce(in.data(), out.data(), int(count), MPI_FLOAT, MPI_SUM, comm);
        times.push_back(seconds(t0));
    }
    double mine = median(times, EvenMiddle::Upper), slowest = 0; // the slower middle time: conservative
    MPI_Allreduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, comm);
    return slowest;
}

// What one all-reduce costs inside a training step, where it sits between torch ops rather
// than in a tight loop: caches hold the step's tensors, MPI's progress engine was idle, and
// the peer arrives late by however far its own compute ran behind. Each round runs a small
// layer's forward and backward (a 64x256x256 matmul, as the small models train), then times an
// all-reduce of its output (64 KB) alone. The overhead is the median call less the median call
// of the same all-reduce in a tight loop (`tightLoop`): medians, because on a shared machine a
// few calls wait whole time slices for a descheduled peer, which says how loaded the machine
// was, not what a collective costs on it (the mean is written beside it).
struct StepCollective {
    double meanSeconds = 0, medianSeconds = 0; // inside the call, the slowest rank's
    double tightLoopSeconds = 0;               // the same all-reduce back to back (median)
    double overhead = 0;                       // median less the tight loop's
    int calls = 0;
    long bytes = 0;
};

StepCollective collectiveInStep(MPI_Comm comm, double budget, double tightLoop, long bytes)
{
    StepCollective f;
    f.bytes = bytes;
    const torch::Tensor w = torch::randn({256, 256}).set_requires_grad(true);
    const long count = std::max(1L, bytes / long(sizeof(float)));
    std::vector<double> times;
    auto round = [&] {
        const torch::Tensor x = torch::randn({64, 256}).set_requires_grad(true);
        torch::Tensor y = torch::matmul(x, w);
        y.backward(torch::ones_like(y));
        torch::Tensor out = y.detach().reshape({-1}).slice(0, 0, count).contiguous().clone();
        const auto t0 = Clock::now();
        MPI_Allreduce(MPI_IN_PLACE, out.data_ptr<float>(), int(out.numel()), MPI_FLOAT, MPI_SUM, comm);
        return seconds(t0);
    };
    // Warm-up rounds, which also say how many rounds fill the budget; rank 0's count holds for
    // every rank, so no extra call between rounds synchronises them.
    MPI_Barrier(comm);
    const auto start = Clock::now();
    for (int i = 0; i < 5; ++i) round();
    int rounds = int(std::clamp(budget / std::max(seconds(start) / 5, 1e-6), 20.0, 20000.0));
    MPI_Bcast(&rounds, 1, MPI_INT, 0, comm);
    for (int i = 0; i < rounds; ++i) times.push_back(round());
    double mine[2] = {0, median(times, EvenMiddle::Upper)};
    for (double t : times) mine[0] += t / double(times.size());
    double slowest[2] = {0, 0};
    MPI_Allreduce(mine, slowest, 2, MPI_DOUBLE, MPI_MAX, comm);
    f.meanSeconds = slowest[0];
    f.medianSeconds = slowest[1];
    f.calls = rounds;
    f.tightLoopSeconds = tightLoop;
    f.overhead = std::max(0.0, f.medianSeconds - tightLoop);
    return f;
}

struct LinkFigures {
    bool measured = false;
    int ranks = 0;
    double smallSeconds = 0, largeSeconds = 0;
    double latency = 0;      // per ring step, as the cost model charges it
    double busBandwidth = 0; // bytes/s
};

// The alpha-beta figures the cost model uses: an all-reduce over n ranks costs
// 2(n-1) * latency + wire / bandwidth with wire = 2(n-1)/n * bytes (core/cost). The small message
// gives the latency; the bandwidth is what makes the large message's time come out exactly.
LinkFigures measureLink(MPI_Comm comm, const CalibrateOptions& o)
{
    LinkFigures f;
    MPI_Comm_size(comm, &f.ranks);
    if (f.ranks < 2) return f;
    const double steps = 2.0 * (f.ranks - 1);
    f.smallSeconds = allreduceSeconds(comm, o.smallBytes, o.smallReps);
    f.largeSeconds = allreduceSeconds(comm, o.largeBytes, o.largeReps);
    f.latency = f.smallSeconds / steps;
    const double wire = steps / f.ranks * double(std::max(o.largeBytes, long(sizeof(float))));
    const double transfer = f.largeSeconds - steps * f.latency;
    f.busBandwidth = wire / (transfer > 0.1 * f.largeSeconds ? transfer : f.largeSeconds);
    f.measured = true;
    return f;
}

nlohmann::ordered_json linkJson(const LinkFigures& f, const CalibrateOptions& o)
{
    return {{"ranks", f.ranks}, {"small_bytes", o.smallBytes}, {"small_allreduce_seconds", f.smallSeconds},
            {"large_bytes", o.largeBytes}, {"large_allreduce_seconds", f.largeSeconds},
            {"latency_per_ring_step", f.latency}, {"bus_bandwidth", f.busBandwidth}};
}

std::string cpuModel()
{
    std::ifstream in("/proc/cpuinfo");
    std::string line;
    while (std::getline(in, line))
        if (line.rfind("model name", 0) == 0) {
            const auto colon = line.find(':');
            if (colon != std::string::npos) return line.substr(line.find_first_not_of(' ', colon + 1));
        }
    return "unknown CPU";
}

std::string utcNow()
{
    const std::time_t t = std::time(nullptr);
    char b[32];
    std::strftime(b, sizeof b, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
    return b;
}

} // namespace

std::string GemmShape::toString() const { return std::to_string(m) + "x" + std::to_string(k) + "x" + std::to_string(n); }

const char* calibrateUsage()
{
    return "  calibrate [--gemm MxKxN,...] [--gemm-seconds S] [--family-seconds S] [--collective-seconds S] [--threads T]\n"
           "            [--small-bytes B] [--large-bytes B]\n"
           "            [--small-reps R] [--large-reps R] [--name NAME] [--output spec.json]\n"
           "                  measure fp32 GEMM FLOP/s (default sizes 512x256x256,512x256x512,512x256x768,\n"
           "                  512x256x1024,512x1024x256), each op family's forward + backward (overhead and\n"
           "                  FLOP or byte rate; S seconds per case), MPI all-reduce latency/bandwidth and an all-reduce's\n"
           "                  cost between torch ops as in a step; rank 0 writes a cluster spec JSON (needs at least 2 ranks)\n";
}

Result<CalibrateOptions> parseCalibrateArgs(int argc, char** argv, int first)
{
    using R = Result<CalibrateOptions>;
    CalibrateOptions o;
    WorkerOptions opts;
    opts.custom("--gemm",
                [&o](const std::string& v) {
                    size_t start = 0;
                    while (start <= v.size()) {
                        const size_t comma = v.find(',', start);
                        const std::string item = v.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
                        GemmShape s;
                        if (!parseShape(item, s)) return Status::failure("'" + item + "' is not MxKxN with sizes 1..65536");
                        o.gemms.push_back(s);
                        if (comma == std::string::npos) break;
                        start = comma + 1;
                    }
                    return Status::success();
                })
        .number("--gemm-seconds", &o.gemmSeconds, 0.001, 600)
        .number("--family-seconds", &o.familySeconds, 0.001, 600)
        .number("--collective-seconds", &o.collectiveSeconds, 0.001, 600)
        .integer("--threads", &o.threads, 0, 1024)
        .integer("--small-bytes", &o.smallBytes, 4L, 1L << 31)
        .integer("--large-bytes", &o.largeBytes, 4L, 1L << 31)
        .integer("--small-reps", &o.smallReps, 1, 1000000)
        .integer("--large-reps", &o.largeReps, 1, 1000000)
        .custom("--name",
                [&o](const std::string& v) {
                    if (v.empty()) return Status::failure("must not be empty");
                    o.name = v;
                    return Status::success();
                })
        .text("--output", &o.output);
    if (Status s = opts.parse(argc, argv, first); !s) return R::failure(s.error);
    if (o.gemms.empty()) o.gemms = kDefaultGemms;
    return o;
}

int runCalibrate(const MpiContext& mpi, const CalibrateOptions& o)
{
    const int rank = mpi.rank(), size = mpi.size();
    if (size < 2) {
        if (rank == 0)
            std::fprintf(stderr, "tapas-worker calibrate: needs at least 2 ranks to measure the links between them (got %d)\n", size);
        return 2; // a usage error, like the other sub-commands'
    }
    if (o.threads > 0) at::set_num_threads(o.threads);
    const int threads = at::get_num_threads();

    // Layout: which ranks share a host (a node), from each rank's own report.
    const RankInfo me = localRankInfo(rank);
    const std::vector<std::string> infos = mpi.gatherToRoot(rankInfoToJson(me).dump());

    // GEMMs: every rank measures every size at the same time, as in a training step.
    std::vector<double> mine;
    for (const GemmShape& s : o.gemms) {
        mpi.barrier();
        mine.push_back(gemmFlops(s, o.gemmSeconds));
    }
    std::vector<double> all(rank == 0 ? mine.size() * size_t(size) : 0);
    MPI_Gather(mine.data(), int(mine.size()), MPI_DOUBLE, all.data(), int(mine.size()), MPI_DOUBLE, 0, MPI_COMM_WORLD);

    // Op families, all ranks at once; the slowest rank's time of each case counts, since a
    // synchronous step waits for it.
    std::vector<FamilyCase> families = timeOpFamilies(o.familySeconds, [&mpi] { mpi.barrier(); });
    std::vector<double> familyTimes;
    for (const FamilyCase& c : families) familyTimes.push_back(c.seconds);
    std::vector<double> slowestFamily(familyTimes.size());
    MPI_Reduce(familyTimes.data(), slowestFamily.data(), int(familyTimes.size()), MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    for (size_t i = 0; i < families.size(); ++i) families[i].seconds = slowestFamily[i];

    // Links: inside one node (ranks sharing memory), then across all ranks when they span nodes.
    MPI_Comm nodeComm;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &nodeComm);
    int nodeSize = 1;
    MPI_Comm_size(nodeComm, &nodeSize);
    int largestNode = 0, smallestNode = 0;
    MPI_Allreduce(&nodeSize, &largestNode, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    MPI_Allreduce(&nodeSize, &smallestNode, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    // Every node measures its own group at once; node 0's figures (rank 0's group) are reported.
    LinkFigures intra = largestNode == smallestNode && nodeSize >= 2 ? measureLink(nodeComm, o) : LinkFigures{};
    const bool multiNode = nodeSize < size;
    LinkFigures inter = multiNode ? measureLink(MPI_COMM_WORLD, o) : LinkFigures{};
    // The per-collective cost inside a step, on the link tensor parallelism uses (inside a node
    // when it holds several ranks).
    const bool inNode = intra.measured;
    const LinkFigures& stepLink = inNode ? intra : inter;
    constexpr long kStepBytes = 64L << 10;
    const MPI_Comm stepComm = inNode ? nodeComm : MPI_COMM_WORLD;
    const double tightLoop = stepLink.ranks >= 2 ? allreduceSeconds(stepComm, kStepBytes, std::max(20, o.smallReps / 4)) : 0;
    const StepCollective step = collectiveInStep(stepComm, o.collectiveSeconds, tightLoop, kStepBytes);
    MPI_Comm_free(&nodeComm);
    if (rank != 0) return 0;

    std::set<std::string> hosts;
    double memoryGiB = 0;
    for (const std::string& s : infos) {
        const json r = json::parse(s);
        hosts.insert(r["host"].get<std::string>());
        const double m = r["memory_gib"].get<double>();
        memoryGiB = memoryGiB == 0 ? m : std::min(memoryGiB, m);
    }
    const int nodes = int(hosts.size());
    const int perNode = size / nodes;
    if (perNode * nodes != size || largestNode != smallestNode) {
        std::fprintf(stderr, "tapas-worker calibrate: %d ranks are spread unevenly over %d hosts; a cluster spec needs the "
                             "same number of ranks on every node (use --map-by or a hostfile with equal slots)\n",
                     size, nodes);
        return 1;
    }
    // Single node: the all-reduce inside it is the only link; inter-node gets the same figures.
    if (!multiNode) inter = intra;
    // Several nodes with one rank each: nothing inside a node to measure; use the inter-node link.
    if (!intra.measured) intra = inter;

    nlohmann::ordered_json table = nlohmann::ordered_json::array();
    std::vector<double> slowest; // per size, the slowest rank bounds a synchronous step
    for (size_t i = 0; i < o.gemms.size(); ++i) {
        std::vector<double> perRank;
        for (int r = 0; r < size; ++r) perRank.push_back(all[size_t(r) * o.gemms.size() + i]);
        const double worst = *std::min_element(perRank.begin(), perRank.end());
        slowest.push_back(worst);
        table.push_back({{"shape", o.gemms[i].toString()}, {"flops_slowest_rank", worst}, {"flops_per_rank", perRank}});
    }
    const double peak = *std::max_element(slowest.begin(), slowest.end());
    const double representative = median(slowest, EvenMiddle::Lower);
    std::string representativeShape;
    for (size_t i = 0; i < slowest.size(); ++i)
        if (slowest[i] == representative) representativeShape = o.gemms[i].toString();

    const std::string device = "x86-64 core (MPI rank), " + cpuModel() + "; measured by tapas cluster calibrate " + utcNow() +
                               ": libtorch " + TORCH_VERSION + " fp32 mm, " + std::to_string(threads) +
                               " intra-op thread(s) per rank, " + std::to_string(size) + " ranks at once; " +
                               MpiContext::libraryVersion().substr(0, MpiContext::libraryVersion().find(',')) + " MPI_Allreduce";
    // Ordered like the presets in resources/clusters, so a calibrated file reads the same way.
    nlohmann::ordered_json spec;
    spec["name"] = o.name;
    spec["device"] = device;
    spec["accelerator"] = "cpu";
    spec["nodes"] = nodes;
    spec["devices_per_node"] = perNode;
    // The CPU runtime trains in fp32; half precision is not faster on these kernels, so the
    // spec gives it the fp32 figure rather than a number nobody measured.
    spec["peak_flops"] = {{"fp32", peak}, {"fp16", peak}, {"bf16", peak}};
    spec["memory_bytes"] = static_cast<int64_t>(std::floor(memoryGiB * 1024.0 * 1024.0 * 1024.0 / perNode));
    spec["intra_node"] = {{"bandwidth", intra.busBandwidth}, {"latency", intra.latency}};
    spec["inter_node"] = {{"bandwidth", inter.busBandwidth}, {"latency", inter.latency}};
    // peak x efficiency = the rate at the representative training size, which is what the cost
    // model charges every FLOP.
    spec["efficiency"] = peak > 0 ? std::min(1.0, representative / peak) : 1.0;
    const std::map<std::string, OpFamilyRate> rates = fitFamilyRates(families);
    for (const auto& [family, r] : rates) {
        spec["op_families"][family] = {{"flop_rate", r.flopRate}, {"byte_rate", r.byteRate}, {"overhead_s", r.overhead}};
        for (const OpFamilyRate::SizeRate& p : r.bySize)
            spec["op_families"][family]["flop_rate_by_size"].push_back({{"unit_flops", p.unitFlops}, {"flop_rate", p.flopRate}});
        for (const OpFamilyRate::ByteSizeRate& p : r.byteBySize)
            spec["op_families"][family]["byte_rate_by_size"].push_back({{"bytes", p.bytes}, {"byte_rate", p.byteRate}});
    }
    if (step.overhead > 0) spec["op_families"]["collective"] = {{"flop_rate", 0.0}, {"byte_rate", 0.0}, {"overhead_s", step.overhead}};
    nlohmann::ordered_json familyTable = nlohmann::ordered_json::array();
    for (const FamilyCase& c : families) {
        familyTable.push_back({{"family", c.family}, {"case", c.name}, {"flops", c.flops}, {"bytes", c.bytes},
                               {"forward_backward_seconds", c.seconds}});
        if (c.bytesBound) familyTable.back()["bytes_bound"] = true;
        if (c.products > 1) familyTable.back()["products"] = c.products;
        if (c.chainNodes > 0) familyTable.back()["chain_nodes"] = c.chainNodes;
    }
    spec["calibration"] = {{"gemm", table},
                           {"op_family_cases", familyTable},
                           {"op_family_seconds_per_case", o.familySeconds},
                           {"representative_shape", representativeShape},
                           {"representative_flops", representative},
                           {"gemm_seconds_per_size", o.gemmSeconds},
                           {"intra_op_threads", threads},
                           {"load_average_1min", loadAverage()}, // other work on the machine lowers every figure
                           {"ranks", size},
                           {"hosts", std::vector<std::string>(hosts.begin(), hosts.end())},
                           {"collective_in_step",
                            {{"bytes", step.bytes}, {"calls", step.calls}, {"mean_seconds", step.meanSeconds},
                             {"median_seconds", step.medianSeconds}, {"tight_loop_seconds", step.tightLoopSeconds},
                             {"overhead_s", step.overhead}}},
                           {"intra_node", linkJson(intra, o)},
                           {"inter_node", multiNode ? linkJson(inter, o) : nlohmann::ordered_json("same as intra_node (one node)")}};
    const std::string text = spec.dump(2) + "\n";
    if (o.output.empty()) {
        std::fputs(text.c_str(), stdout);
        return 0;
    }
    std::ofstream out(o.output, std::ios::trunc);
    if (!(out << text) || !out.flush()) {
        std::fprintf(stderr, "tapas-worker calibrate: cannot write '%s': %s\n", o.output.c_str(), std::strerror(errno));
        return 1;
    }
    std::printf("tapas-worker calibrate: wrote %s\n", o.output.c_str());
    return 0;
}

int runCalibrateWorker(int argc, char** argv)
{
    if (wantsHelp(argc, argv, 2)) {
        std::fputs(calibrateUsage(), stdout);
        return 0;
    }
    Result<CalibrateOptions> o = parseCalibrateArgs(argc, argv, 2);
    if (!o) {
        std::fprintf(stderr, "tapas-worker calibrate: %s\n%s", o.error().c_str(), calibrateUsage());
        return 2;
    }
    MpiContext mpi(&argc, &argv);
    return runCalibrate(mpi, *o);
}

} // namespace tapas::runtime
