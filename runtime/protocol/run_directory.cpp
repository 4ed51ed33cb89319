#include "runtime/protocol/run_directory.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

namespace tapas::protocol {

namespace fs = std::filesystem;
using nlohmann::json;

std::string runSpecToJson(const RunSpec& s)
{
    json j{{"v", kMetricsVersion}, {"id", s.id},       {"kind", s.kind},
           {"plan", s.planPath},   {"model", s.modelPath}, {"ranks", s.ranks},
           {"hosts", s.hosts},     {"steps", s.steps},  {"checkpoint_every", s.checkpointEvery},
           {"resume", s.resume},   {"created", s.created}, {"options", s.options}};
    return j.dump(2);
}

Result<RunSpec> parseRunSpec(const std::string& text, const std::string& origin)
{
    auto fail = [&](const std::string& why) { return Result<RunSpec>::failure("run spec '" + origin + "': " + why); };
    json j = json::parse(text, nullptr, false);
    if (j.is_discarded() || !j.is_object())
        return fail("not a JSON object");
    RunSpec s;
    try {
        if (j.value("v", 0) > kMetricsVersion)
            return fail("version " + std::to_string(j.value("v", 0)) + " is newer than this program's");
        s.id = j.at("id").get<std::string>();
        s.kind = j.at("kind").get<std::string>();
        s.planPath = j.value("plan", "");
        s.modelPath = j.value("model", "");
        s.ranks = j.value("ranks", 1);
        s.hosts = j.value("hosts", std::vector<std::string>{});
        s.steps = j.value("steps", 0);
        s.checkpointEvery = j.value("checkpoint_every", 0);
        s.resume = j.value("resume", false);
        s.created = j.value("created", "");
        s.options = j.value("options", std::map<std::string, std::string>{});
    } catch (const json::exception& e) {
        return fail(std::string("field missing or of the wrong type (") + e.what() + ")");
    }
    if (s.id.empty())
        return fail("field 'id' is empty");
    if (s.kind != "train-plan" && s.kind != "gan")
        return fail("field 'kind' is '" + s.kind + "', expected 'train-plan' or 'gan'");
    if (s.ranks < 1)
        return fail("field 'ranks' must be at least 1");
    return s;
}

std::string newRunId(const std::string& kind)
{
    std::time_t t = std::time(nullptr);
    std::tm tm{};
    gmtime_r(&t, &tm);
    char stamp[32];
    std::strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm);
    std::random_device rd;
    char suffix[8];
    std::snprintf(suffix, sizeof suffix, "%04x", unsigned(rd() & 0xffff));
    return std::string(stamp) + "-" + kind + "-" + suffix;
}

std::string specPath(const std::string& d) { return (fs::path(d) / "spec.json").string(); }
std::string metricsPath(const std::string& d) { return (fs::path(d) / "metrics.jsonl").string(); }
std::string launchLogPath(const std::string& d) { return (fs::path(d) / "launch.log").string(); }
std::string rankLogPath(const std::string& d, int rank)
{
    return (fs::path(d) / "logs" / ("rank-" + std::to_string(rank) + ".log")).string();
}
std::string checkpointsDir(const std::string& d) { return (fs::path(d) / "checkpoints").string(); }
std::string samplesDir(const std::string& d) { return (fs::path(d) / "samples").string(); }

Status writeRunSpec(const std::string& runDir, const RunSpec& s)
{
    std::error_code ec;
    for (const fs::path& p : {fs::path(runDir) / "logs", fs::path(checkpointsDir(runDir)), fs::path(samplesDir(runDir))}) {
        fs::create_directories(p, ec);
        if (ec)
            return Status::failure("run directory '" + p.string() + "': " + ec.message());
    }
    // Write then rename: a reader never sees half a spec.
    const std::string target = specPath(runDir), tmp = target + ".tmp";
    {
        std::ofstream out(tmp, std::ios::trunc);
        out << runSpecToJson(s) << '\n';
        if (!out)
            return Status::failure("run spec '" + tmp + "': cannot write");
    }
    fs::rename(tmp, target, ec);
    if (ec)
        return Status::failure("run spec '" + target + "': " + ec.message());
    return Status::success();
}

Result<RunSpec> readRunSpec(const std::string& runDir)
{
    const std::string path = specPath(runDir);
    std::ifstream in(path);
    if (!in)
        return Result<RunSpec>::failure("run spec '" + path + "': cannot open");
    std::stringstream ss;
    ss << in.rdbuf();
    return parseRunSpec(ss.str(), path);
}

Result<MetricsChunk> readMetrics(const std::string& runDir, uint64_t offset)
{
    const std::string path = metricsPath(runDir);
    MetricsChunk chunk;
    chunk.nextOffset = offset;
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        if (!fs::exists(path))
            return chunk; // nothing written yet
        return Result<MetricsChunk>::failure("metrics '" + path + "': cannot open");
    }
    in.seekg(0, std::ios::end);
    const uint64_t size = uint64_t(in.tellg());
    if (offset > size) // the file was replaced: start over
        offset = 0;
    in.seekg(std::streamoff(offset));
    std::string data(size - offset, '\0');
    in.read(data.data(), std::streamsize(data.size()));
    data.resize(size_t(in.gcount()));
    size_t start = 0;
    // Line numbers are only known relative to `offset`; the byte offset names the line exactly.
    while (true) {
        const size_t nl = data.find('\n', start);
        if (nl == std::string::npos)
            break; // half-written last line: next call
        std::string line = data.substr(start, nl - start);
        const uint64_t lineOffset = offset + start;
        start = nl + 1;
        if (line.empty())
            continue;
        auto e = parseJsonLine(line, path + " at byte " + std::to_string(lineOffset));
        if (e.ok())
            chunk.events.push_back(std::move(e.value()));
        else
            chunk.events.push_back(MetricsEvent::logEvent("warn", -1, e.error()));
    }
    chunk.nextOffset = offset + start;
    return chunk;
}

Result<RunSummary> summarizeRun(const std::string& runDir)
{
    auto spec = readRunSpec(runDir);
    if (!spec.ok())
        return Result<RunSummary>::failure(spec.error());
    RunSummary s;
    s.dir = runDir;
    s.spec = std::move(spec.value());
    auto chunk = readMetrics(runDir);
    if (chunk.ok()) {
        for (const MetricsEvent& e : chunk->events) {
            if (e.time > 0)
                s.lastTime = std::max(s.lastTime, e.time);
            if (e.type == EventType::Status) {
                s.state = e.state;
                s.detail = e.text;
            }
            if (e.type == EventType::Step)
                s.lastStep = std::max(s.lastStep, e.step);
        }
    }
    return s;
}

std::vector<RunSummary> listRuns(const std::string& runsRoot)
{
    std::vector<RunSummary> runs;
    std::error_code ec;
    for (fs::directory_iterator it(runsRoot, ec), end; !ec && it != end; it.increment(ec)) {
        if (!it->is_directory() || !fs::exists(specPath(it->path().string())))
            continue;
        auto s = summarizeRun(it->path().string());
        if (s.ok())
            runs.push_back(std::move(s.value()));
    }
    // Ids start with the UTC time stamp, so the id orders runs by start time.
    std::sort(runs.begin(), runs.end(), [](const RunSummary& a, const RunSummary& b) { return a.spec.id > b.spec.id; });
    return runs;
}

} // namespace tapas::protocol
