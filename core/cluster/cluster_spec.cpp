#include "core/cluster/cluster_spec.h"

#include "core/cluster/device_limits.h"
#include "core/util/json_fields.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <fstream>
#include <sstream>

namespace tapas {

namespace {

using nlohmann::json;

std::string fieldError(const std::string& origin, const std::string& field, const std::string& what)
{
    return "cluster '" + origin + "': field '" + field + "' " + what;
}

// Reads a finite number at obj[key], positive (or, with allowZero, not negative); `path` is the
// dotted name used in messages.
Result<double> readPositive(const json& obj, const char* key, const std::string& path, const std::string& origin,
                            bool allowZero = false)
{
    if (!obj.contains(key)) return Result<double>::failure(fieldError(origin, path, "is missing"));
    const json& v = obj.at(key);
    if (!v.is_number()) return Result<double>::failure(fieldError(origin, path, "must be a number, not " + v.dump()));
    const double out = v.get<double>();
    if (!std::isfinite(out)) // the parser refuses 1e400; a value set in code may still be inf
        return Result<double>::failure(fieldError(origin, path, "must be finite, not " + v.dump()));
    if (out < 0 || (!allowZero && out == 0))
        return Result<double>::failure(fieldError(
            origin, path, std::string(allowZero ? "must not be negative" : "must be positive") + " (is " + v.dump() + ")"));
    return out;
}

// An exact integer in [1, kMaxDevices]: 2^32 + 2 is refused, not read as 2.
Result<int> readPositiveInt(const json& obj, const char* key, const std::string& origin)
{
    if (!obj.contains(key)) return Result<int>::failure(fieldError(origin, key, "is missing"));
    Result<int64_t> v = jsonInteger(obj.at(key), 1, kMaxDevices);
    if (!v) return Result<int>::failure(fieldError(origin, key, "must be a positive integer: it " + v.error()));
    return int(*v);
}

Result<LinkSpec> readLink(const json& obj, const char* key, const std::string& origin)
{
    if (!obj.contains(key) || !obj.at(key).is_object())
        return Result<LinkSpec>::failure(fieldError(origin, key, "must be an object with 'bandwidth' and 'latency'"));
    const json& l = obj.at(key);
    Result<double> bandwidth = readPositive(l, "bandwidth", std::string(key) + ".bandwidth", origin);
    if (!bandwidth) return Result<LinkSpec>::failure(bandwidth.error());
    Result<double> latency = readPositive(l, "latency", std::string(key) + ".latency", origin, true);
    if (!latency) return Result<LinkSpec>::failure(latency.error());
    LinkSpec link;
    link.bandwidth = *bandwidth;
    link.latency = *latency;
    return link;
}

// "op_families": {"matmul": {"flop_rate": .., "byte_rate": .., "overhead_s": ..}, ...}
Result<std::map<std::string, OpFamilyRate>> readOpFamilies(const json& obj, const std::string& origin)
{
    using R = Result<std::map<std::string, OpFamilyRate>>;
    std::map<std::string, OpFamilyRate> out;
    if (!obj.contains("op_families")) return out;
    const json& f = obj.at("op_families");
    if (!f.is_object()) return R::failure(fieldError(origin, "op_families", "must be an object of family -> rates"));
    for (const auto& [family, rates] : f.items()) {
        const std::string path = "op_families." + family;
        if (!rates.is_object()) return R::failure(fieldError(origin, path, "must be an object with 'flop_rate', 'byte_rate' and 'overhead_s'"));
        OpFamilyRate r;
        for (auto [key, dst] : {std::pair{"flop_rate", &r.flopRate}, std::pair{"byte_rate", &r.byteRate}, std::pair{"overhead_s", &r.overhead}}) {
            Result<double> v = readPositive(rates, key, path + "." + key, origin, true);
            if (!v) return R::failure(v.error());
            *dst = *v;
        }
        if (rates.contains("flop_rate_by_size")) {
            const json& table = rates.at("flop_rate_by_size");
            const std::string tpath = path + ".flop_rate_by_size";
            if (!table.is_array()) return R::failure(fieldError(origin, tpath, "must be an array of {\"unit_flops\", \"flop_rate\"}"));
            for (size_t i = 0; i < table.size(); ++i) {
                const std::string ipath = tpath + "[" + std::to_string(i) + "]";
                if (!table[i].is_object()) return R::failure(fieldError(origin, ipath, "must be an object with 'unit_flops' and 'flop_rate'"));
                OpFamilyRate::SizeRate p;
                for (auto [key, dst] : {std::pair{"unit_flops", &p.unitFlops}, std::pair{"flop_rate", &p.flopRate}}) {
                    Result<double> v = readPositive(table[i], key, ipath + "." + key, origin);
                    if (!v) return R::failure(v.error());
                    *dst = *v;
                }
                if (!r.bySize.empty() && p.unitFlops <= r.bySize.back().unitFlops)
                    return R::failure(fieldError(origin, ipath + ".unit_flops", "must be larger than the entry before it (sizes ascend)"));
                r.bySize.push_back(p);
            }
        }
        if (rates.contains("byte_rate_by_size")) {
            const json& table = rates.at("byte_rate_by_size");
            const std::string tpath = path + ".byte_rate_by_size";
            if (!table.is_array()) return R::failure(fieldError(origin, tpath, "must be an array of {\"bytes\", \"byte_rate\"}"));
            for (size_t i = 0; i < table.size(); ++i) {
                const std::string ipath = tpath + "[" + std::to_string(i) + "]";
                if (!table[i].is_object()) return R::failure(fieldError(origin, ipath, "must be an object with 'bytes' and 'byte_rate'"));
                OpFamilyRate::ByteSizeRate p;
                for (auto [key, dst] : {std::pair{"bytes", &p.bytes}, std::pair{"byte_rate", &p.byteRate}}) {
                    Result<double> v = readPositive(table[i], key, ipath + "." + key, origin);
                    if (!v) return R::failure(v.error());
                    *dst = *v;
                }
                if (!r.byteBySize.empty() && p.bytes <= r.byteBySize.back().bytes)
                    return R::failure(fieldError(origin, ipath + ".bytes", "must be larger than the entry before it (sizes ascend)"));
                r.byteBySize.push_back(p);
            }
        }
        if (r.flopRate == 0 && r.byteRate == 0 && r.overhead == 0)
            return R::failure(fieldError(origin, path, "has no rate and no overhead: leave the family out instead"));
        out[family] = r;
    }
    return out;
}

// "roofline": {"memory_bandwidth": B/s, "l2_bandwidth": B/s, "multiprocessors": N, "collective_sms": N};
// the bandwidth is required, the others optional (absent: no tile-feed limit, no wave
// quantization, no SMs taken by overlapped collectives).
Result<DeviceRoofline> readRoofline(const json& obj, const std::string& origin)
{
    using R = Result<DeviceRoofline>;
    DeviceRoofline r;
    if (!obj.contains("roofline")) return r;
    const json& f = obj.at("roofline");
    if (!f.is_object()) return R::failure(fieldError(origin, "roofline", "must be an object with 'memory_bandwidth' (and optionally 'l2_bandwidth', 'multiprocessors')"));
    Result<double> memory = readPositive(f, "memory_bandwidth", "roofline.memory_bandwidth", origin);
    if (!memory) return R::failure(memory.error());
    r.memoryBandwidth = *memory;
    if (f.contains("l2_bandwidth")) {
        Result<double> l2 = readPositive(f, "l2_bandwidth", "roofline.l2_bandwidth", origin);
        if (!l2) return R::failure(l2.error());
        r.l2Bandwidth = *l2;
    }
    if (f.contains("multiprocessors")) {
        Result<int64_t> sms = jsonInteger(f.at("multiprocessors"), 1, 1 << 20);
        if (!sms) return R::failure(fieldError(origin, "roofline.multiprocessors", "must be a positive integer: it " + sms.error()));
        r.multiprocessors = int(*sms);
    }
    if (f.contains("collective_sms")) {
        Result<int64_t> sms = jsonInteger(f.at("collective_sms"), 0, r.multiprocessors > 0 ? r.multiprocessors - 1 : 1 << 20);
        if (!sms) return R::failure(fieldError(origin, "roofline.collective_sms", "must be an integer below 'multiprocessors': it " + sms.error()));
        r.collectiveSms = int(*sms);
    }
    return r;
}

} // namespace

double OpFamilyRate::flopRateAt(double unitFlops) const
{
    if (bySize.empty()) return flopRate;
    if (unitFlops <= bySize.front().unitFlops) return bySize.front().flopRate;
    if (unitFlops >= bySize.back().unitFlops) return bySize.back().flopRate;
    size_t i = 1;
    while (bySize[i].unitFlops < unitFlops) ++i;
    const SizeRate &a = bySize[i - 1], &b = bySize[i];
    const double t = std::log(unitFlops / a.unitFlops) / std::log(b.unitFlops / a.unitFlops);
    return a.flopRate + t * (b.flopRate - a.flopRate);
}

double OpFamilyRate::byteRateAt(double bytes) const
{
    if (byteBySize.empty()) return byteRate;
    if (bytes <= byteBySize.front().bytes) return byteBySize.front().byteRate;
    if (bytes >= byteBySize.back().bytes) return byteBySize.back().byteRate;
    size_t i = 1;
    while (byteBySize[i].bytes < bytes) ++i;
    const ByteSizeRate &a = byteBySize[i - 1], &b = byteBySize[i];
    const double t = std::log(bytes / a.bytes) / std::log(b.bytes / a.bytes);
    return a.byteRate + t * (b.byteRate - a.byteRate);
}

double ClusterSpec::peakFlops(const std::string& dtype) const
{
    if (dtype == "fp16") return peakFp16;
    if (dtype == "bf16") return peakBf16;
    return peakFp32;
}

Result<ClusterSpec> parseClusterSpec(const std::string& jsonText, const std::string& origin)
{
    json j = json::parse(jsonText, nullptr, false);
    if (j.is_discarded()) return Result<ClusterSpec>::failure("cluster '" + origin + "': not valid JSON");
    if (!j.is_object()) return Result<ClusterSpec>::failure("cluster '" + origin + "': top level must be a JSON object");
    ClusterSpec c;
    c.name = j.value("name", std::string());
    c.device = j.value("device", std::string());
    if (j.contains("accelerator")) {
        const json& a = j.at("accelerator");
        if (!a.is_string() || (a.get<std::string>() != "gpu" && a.get<std::string>() != "cpu"))
            return Result<ClusterSpec>::failure(fieldError(origin, "accelerator", "must be \"gpu\" or \"cpu\""));
        c.gpu = a.get<std::string>() == "gpu";
    }
    for (auto [key, out] : {std::pair{"nodes", &c.nodes}, std::pair{"devices_per_node", &c.devicesPerNode}}) {
        Result<int> v = readPositiveInt(j, key, origin);
        if (!v) return Result<ClusterSpec>::failure(v.error());
        *out = *v;
    }
    if (int64_t(c.nodes) * c.devicesPerNode > kMaxDevices)
        return Result<ClusterSpec>::failure(fieldError(origin, "nodes", "x devices_per_node is " + std::to_string(c.nodes) + " x " +
                                                                        std::to_string(c.devicesPerNode) + " = " +
                                                                        std::to_string(int64_t(c.nodes) * c.devicesPerNode) +
                                                                        " devices, more than " + std::to_string(kMaxDevices)));
    if (!j.contains("peak_flops") || !j.at("peak_flops").is_object())
        return Result<ClusterSpec>::failure(fieldError(origin, "peak_flops", "must be an object with 'fp32', 'fp16' and 'bf16'"));
    const json& pf = j.at("peak_flops");
    for (auto [key, out] : {std::pair{"fp32", &c.peakFp32}, std::pair{"fp16", &c.peakFp16}, std::pair{"bf16", &c.peakBf16}}) {
        Result<double> v = readPositive(pf, key, std::string("peak_flops.") + key, origin);
        if (!v) return Result<ClusterSpec>::failure(v.error());
        *out = *v;
    }
    Result<double> memory = readPositive(j, "memory_bytes", "memory_bytes", origin);
    if (!memory) return Result<ClusterSpec>::failure(memory.error());
    c.memoryBytes = *memory;
    for (auto [key, out] : {std::pair{"intra_node", &c.intraNode}, std::pair{"inter_node", &c.interNode}}) {
        Result<LinkSpec> link = readLink(j, key, origin);
        if (!link) return Result<ClusterSpec>::failure(link.error());
        *out = *link;
    }
    Result<double> efficiency = readPositive(j, "efficiency", "efficiency", origin);
    if (!efficiency) return Result<ClusterSpec>::failure(efficiency.error());
    c.efficiency = *efficiency;
    if (c.efficiency > 1) return Result<ClusterSpec>::failure(fieldError(origin, "efficiency", "must be in (0, 1]"));
    Result<std::map<std::string, OpFamilyRate>> families = readOpFamilies(j, origin);
    if (!families) return Result<ClusterSpec>::failure(families.error());
    c.opFamilies = std::move(*families);
    Result<DeviceRoofline> roofline = readRoofline(j, origin);
    if (!roofline) return Result<ClusterSpec>::failure(roofline.error());
    c.roofline = *roofline;
    if (c.name.empty()) c.name = origin;
    return c;
}

Result<ClusterSpec> loadClusterSpecFile(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    if (!in) return Result<ClusterSpec>::failure("cluster '" + path + "': cannot open the file");
    std::ostringstream ss;
    ss << in.rdbuf();
    return parseClusterSpec(ss.str(), path);
}

Result<ClusterSpec> loadClusterSpec(const std::string& presetOrPath, const std::string& presetDir)
{
    const bool looksLikePath = presetOrPath.find('/') != std::string::npos ||
                               (presetOrPath.size() > 5 && presetOrPath.ends_with(".json"));
    if (looksLikePath) return loadClusterSpecFile(presetOrPath);
    if (!presetDir.empty()) {
        const std::string p = presetDir + "/" + presetOrPath + ".json";
        if (std::ifstream(p).good()) return loadClusterSpecFile(p);
    }
    std::string names;
    for (const auto& [name, text] : builtinClusterPresets()) {
        if (name == presetOrPath) return parseClusterSpec(text, name);
        names += (names.empty() ? "" : ", ") + name;
    }
    return Result<ClusterSpec>::failure("cluster '" + presetOrPath + "': no such preset or file (presets: " + names + ")");
}

std::string clusterSpecToJson(const ClusterSpec& c)
{
    json j;
    j["name"] = c.name;
    j["device"] = c.device;
    j["accelerator"] = c.gpu ? "gpu" : "cpu";
    j["nodes"] = c.nodes;
    j["devices_per_node"] = c.devicesPerNode;
    j["peak_flops"] = {{"fp32", c.peakFp32}, {"fp16", c.peakFp16}, {"bf16", c.peakBf16}};
    j["memory_bytes"] = c.memoryBytes;
    j["intra_node"] = {{"bandwidth", c.intraNode.bandwidth}, {"latency", c.intraNode.latency}};
    j["inter_node"] = {{"bandwidth", c.interNode.bandwidth}, {"latency", c.interNode.latency}};
    j["efficiency"] = c.efficiency;
    if (c.roofline.enabled()) {
        j["roofline"]["memory_bandwidth"] = c.roofline.memoryBandwidth;
        if (c.roofline.l2Bandwidth > 0) j["roofline"]["l2_bandwidth"] = c.roofline.l2Bandwidth;
        if (c.roofline.multiprocessors > 0) j["roofline"]["multiprocessors"] = c.roofline.multiprocessors;
        if (c.roofline.collectiveSms > 0) j["roofline"]["collective_sms"] = c.roofline.collectiveSms;
    }
    for (const auto& [family, r] : c.opFamilies) {
        j["op_families"][family] = {{"flop_rate", r.flopRate}, {"byte_rate", r.byteRate}, {"overhead_s", r.overhead}};
        for (const OpFamilyRate::SizeRate& p : r.bySize)
            j["op_families"][family]["flop_rate_by_size"].push_back({{"unit_flops", p.unitFlops}, {"flop_rate", p.flopRate}});
        for (const OpFamilyRate::ByteSizeRate& p : r.byteBySize)
            j["op_families"][family]["byte_rate_by_size"].push_back({{"bytes", p.bytes}, {"byte_rate", p.byteRate}});
    }
    return j.dump(2);
}

std::string DeviceMesh::toString() const
{
    if (pp == 1) return std::to_string(dp) + "x" + std::to_string(tp);
    return std::to_string(dp) + "x" + std::to_string(pp) + "x" + std::to_string(tp);
}

Result<DeviceMesh> parseMesh(const std::string& text)
{
    auto bad = [&] {
        return Result<DeviceMesh>::failure("mesh '" + text +
                                           "': expected DPxTP or DPxPPxTP with positive integers, e.g. 2x4 or 8x16x8");
    };
    std::vector<int> parts;
    size_t at = 0;
    while (true) {
        const size_t x = text.find_first_of("xX", at);
        const std::string part = text.substr(at, x == std::string::npos ? std::string::npos : x - at);
        if (part.empty() || part.size() > 9 || part.find_first_not_of("0123456789") != std::string::npos) return bad();
        parts.push_back(std::stoi(part));
        if (x == std::string::npos) break;
        at = x + 1;
    }
    if (parts.size() != 2 && parts.size() != 3) return bad();
    DeviceMesh m;
    m.dp = parts.front();
    m.tp = parts.back();
    if (parts.size() == 3) m.pp = parts[1];
    if (m.dp <= 0 || m.tp <= 0 || m.pp <= 0) return bad();
    if (int64_t(m.dp) * m.tp * m.pp > kMaxDevices)
        return Result<DeviceMesh>::failure("mesh '" + text + "': more than " + std::to_string(kMaxDevices) + " devices");
    return m;
}

Status validateMesh(const ClusterSpec& c, const DeviceMesh& m, bool allowTpAcrossNodes)
{
    if (m.dp <= 0 || m.tp <= 0 || m.pp <= 0) return Status::failure("mesh " + m.toString() + ": every degree must be positive");
    if (m.size() != c.deviceCount())
        return Status::failure("mesh " + m.toString() + " has " + std::to_string(m.size()) + " devices but cluster '" +
                               c.name + "' has " + std::to_string(c.deviceCount()) + " (" + std::to_string(c.nodes) +
                               " x " + std::to_string(c.devicesPerNode) + ")");
    if (!allowTpAcrossNodes && (m.tp > c.devicesPerNode || c.devicesPerNode % m.tp != 0))
        return Status::failure("mesh " + m.toString() + ": tensor-parallel degree " + std::to_string(m.tp) +
                               " does not fit inside a node of " + std::to_string(c.devicesPerNode) + " devices");
    return Status::success();
}

std::vector<DeviceMesh> enumerateMeshes(const ClusterSpec& c, bool allowTpAcrossNodes)
{
    std::vector<DeviceMesh> out;
    const int n = c.deviceCount();
    for (int tp = 1; tp <= n; ++tp) {
        if (n % tp) continue;
        DeviceMesh m{n / tp, tp};
        if (validateMesh(c, m, allowTpAcrossNodes)) out.push_back(m);
    }
    return out;
}

LinkSpec axisLink(const ClusterSpec& c, const DeviceMesh& m, MeshAxis axis)
{
    // tp groups are consecutive devices; a dp group strides by tp, so it leaves the node as soon
    // as dp * tp exceeds a node; neighbouring stages are dp * tp devices apart, so they share a
    // node only while two stages' worth of devices fit in one.
    const int span = axis == MeshAxis::Tp ? m.tp : axis == MeshAxis::Dp ? m.dp * m.tp : 2 * m.dp * m.tp;
    if (axis == MeshAxis::Pp && m.pp <= 1) return c.intraNode;
    return span <= c.devicesPerNode ? c.intraNode : c.interNode;
}

} // namespace tapas
