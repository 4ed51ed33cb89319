#include "runtime/gan/gan_checkpoint.h"

#include "runtime/protocol/durable_file.h"
#include "runtime/protocol/run_directory.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

namespace fs = std::filesystem;

namespace tapas::runtime::gan {

std::string checkpointName(int step)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "step-%06d", step);
    return buf;
}

Status writeCheckpointMeta(const std::string& dir, const CheckpointMeta& m)
{
    std::ostringstream f;
    f << "step " << m.step << "\nglobal_batch " << m.globalBatch << "\nranks " << m.ranks << "\ndata_position "
      << m.dataPosition << "\ng_version " << m.gVersion << "\nchannels_last " << m.channelsLast << "\npad_channels "
      << m.padChannels << "\nmodel " << m.model << "\ndata " << m.data << "\nseed " << m.seed << "\n";
    const std::string text = f.str();
    protocol::DurableFile file(dir + "/meta.txt");
    file.write(text.data(), text.size());
    return file.finish();
}

Result<CheckpointMeta> readCheckpointMeta(const std::string& dir)
{
    const std::string path = dir + "/meta.txt";
    std::ifstream f(path);
    if (!f) return Result<CheckpointMeta>::failure("checkpoint '" + path + "' cannot be read");
    std::map<std::string, std::string> kv;
    std::string line;
    while (std::getline(f, line)) {
        const auto sp = line.find(' ');
        if (sp != std::string::npos) kv[line.substr(0, sp)] = line.substr(sp + 1);
    }
    for (const char* k : {"step", "global_batch", "ranks", "data_position", "g_version", "model", "data"})
        if (!kv.count(k)) return Result<CheckpointMeta>::failure("checkpoint '" + path + "' lacks '" + k + "'");
    CheckpointMeta m;
    try {
        m.step = std::stoi(kv["step"]);
        m.globalBatch = std::stoi(kv["global_batch"]);
        m.ranks = std::stoi(kv["ranks"]);
        m.dataPosition = std::stoll(kv["data_position"]);
        m.gVersion = std::stoll(kv["g_version"]);
        m.channelsLast = kv["channels_last"] == "1";
        m.padChannels = kv["pad_channels"] == "1";
        m.seed = std::stoull(kv.count("seed") ? kv["seed"] : "0");
    } catch (const std::exception&) {
        return Result<CheckpointMeta>::failure("checkpoint '" + path + "' holds a malformed number");
    }
    m.model = kv["model"];
    m.data = kv["data"];
    return m;
}

Status markLatestCheckpoint(const std::string& runDir, const std::string& name)
{
    return protocol::replaceFileDurably(protocol::checkpointsDir(runDir) + "/latest", name + "\n");
}

Result<std::string> latestCheckpointDir(const std::string& runDir)
{
    const std::string latest = protocol::checkpointsDir(runDir) + "/latest";
    std::ifstream f(latest);
    std::string name;
    if (!f || !std::getline(f, name) || name.empty())
        return Result<std::string>::failure("run '" + runDir + "' has no checkpoint to resume from (" + latest + " is missing)");
    const std::string dir = protocol::checkpointsDir(runDir) + "/" + name;
    if (!fs::is_directory(dir)) return Result<std::string>::failure("checkpoint '" + dir + "' named in " + latest + " is missing");
    return dir;
}

} // namespace tapas::runtime::gan
