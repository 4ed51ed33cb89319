#include "runtime/protocol/metrics_event.h"

#include <nlohmann/json.hpp>

#include <chrono>
#include <cmath>

namespace tapas::protocol {

namespace {

using nlohmann::json;

constexpr std::pair<EventType, const char*> kTypeNames[] = {
    {EventType::Step, "step"},       {EventType::Metric, "metric"}, {EventType::RankStats, "rank_stats"},
    {EventType::Sample, "sample"},   {EventType::Log, "log"},       {EventType::Status, "status"},
};

// JSON has no NaN or infinity; a diverged loss must still be recorded, so it travels as null
// and comes back as NaN.
json number(double v)
{
    return std::isfinite(v) ? json(v) : json(nullptr);
}

json valuesToJson(const std::map<std::string, double>& values)
{
    json o = json::object();
    for (const auto& [k, v] : values)
        o[k] = number(v);
    return o;
}

bool valuesFromJson(const json& o, std::map<std::string, double>& out, std::string& error)
{
    if (!o.is_object()) {
        error = "'values' is not an object";
        return false;
    }
    for (const auto& [k, v] : o.items()) {
        if (v.is_number())
            out[k] = v.get<double>();
        else if (v.is_null())
            out[k] = std::nan("");
        else {
            error = "value '" + k + "' is not a number";
            return false;
        }
    }
    return true;
}

} // namespace

const char* eventTypeName(EventType t)
{
    for (const auto& [type, name] : kTypeNames)
        if (type == t)
            return name;
    return "log";
}

bool parseEventType(const std::string& s, EventType& out)
{
    for (const auto& [type, name] : kTypeNames)
        if (s == name) {
            out = type;
            return true;
        }
    return false;
}

MetricsEvent MetricsEvent::stepEvent(int64_t step, std::map<std::string, double> values)
{
    MetricsEvent e;
    e.type = EventType::Step;
    e.step = step;
    e.values = std::move(values);
    return e;
}

MetricsEvent MetricsEvent::metricEvent(int64_t step, std::map<std::string, double> values)
{
    MetricsEvent e = stepEvent(step, std::move(values));
    e.type = EventType::Metric;
    return e;
}

MetricsEvent MetricsEvent::sampleEvent(int64_t step, std::string relativePath)
{
    MetricsEvent e;
    e.type = EventType::Sample;
    e.step = step;
    e.text = std::move(relativePath);
    return e;
}

MetricsEvent MetricsEvent::logEvent(std::string level, int rank, std::string text)
{
    MetricsEvent e;
    e.type = EventType::Log;
    e.level = std::move(level);
    e.rank = rank;
    e.text = std::move(text);
    return e;
}

MetricsEvent MetricsEvent::statusEvent(std::string state, std::string detail, int rank)
{
    MetricsEvent e;
    e.type = EventType::Status;
    e.state = std::move(state);
    e.text = std::move(detail);
    e.rank = rank;
    return e;
}

double nowSeconds()
{
    using namespace std::chrono;
    return duration<double>(system_clock::now().time_since_epoch()).count();
}

std::string toJsonLine(const MetricsEvent& e)
{
    json j;
    j["v"] = kMetricsVersion;
    j["type"] = eventTypeName(e.type);
    j["time"] = e.time != 0 ? e.time : nowSeconds();
    switch (e.type) {
    case EventType::Step:
    case EventType::Metric:
        j["step"] = e.step;
        j["values"] = valuesToJson(e.values);
        break;
    case EventType::RankStats: {
        j["step"] = e.step;
        json ranks = json::array();
        for (const RankStat& r : e.ranks)
            ranks.push_back({{"rank", r.rank}, {"host", r.host}, {"values", valuesToJson(r.values)}});
        j["ranks"] = std::move(ranks);
        break;
    }
    case EventType::Sample:
        j["step"] = e.step;
        j["text"] = e.text;
        break;
    case EventType::Log:
        j["level"] = e.level.empty() ? "info" : e.level;
        j["rank"] = e.rank;
        j["text"] = e.text;
        break;
    case EventType::Status:
        j["state"] = e.state;
        j["text"] = e.text;
        j["rank"] = e.rank;
        if (!e.fields.empty())
            j["fields"] = e.fields;
        break;
    }
    // Invalid UTF-8 in a log line (a rank's raw output) must not make the whole line unwritable.
    return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

Result<MetricsEvent> parseJsonLine(const std::string& line, const std::string& origin)
{
    const std::string where = origin.empty() ? std::string("metrics line") : origin;
    auto fail = [&](const std::string& why) { return Result<MetricsEvent>::failure(where + ": " + why); };
    json j = json::parse(line, nullptr, false);
    if (j.is_discarded() || !j.is_object())
        return fail("not a JSON object");
    if (!j.contains("v") || !j["v"].is_number_integer())
        return fail("field 'v' (protocol version) missing");
    const int v = j["v"].get<int>();
    if (v > kMetricsVersion)
        return fail("protocol version " + std::to_string(v) + " is newer than this program's " +
                    std::to_string(kMetricsVersion));
    if (!j.contains("type") || !j["type"].is_string())
        return fail("field 'type' missing");
    MetricsEvent e;
    if (!parseEventType(j["type"].get<std::string>(), e.type))
        return fail("unknown event type '" + j["type"].get<std::string>() + "'");
    if (j.contains("time") && j["time"].is_number())
        e.time = j["time"].get<double>();
    if (j.contains("step") && j["step"].is_number_integer())
        e.step = j["step"].get<int64_t>();
    if (j.contains("rank") && j["rank"].is_number_integer())
        e.rank = j["rank"].get<int>();
    auto str = [&](const char* key, std::string& out) {
        if (j.contains(key) && j[key].is_string())
            out = j[key].get<std::string>();
    };
    str("text", e.text);
    str("state", e.state);
    str("level", e.level);
    std::string error;
    if (j.contains("values") && !valuesFromJson(j["values"], e.values, error))
        return fail(error);
    if (j.contains("ranks")) {
        if (!j["ranks"].is_array())
            return fail("'ranks' is not an array");
        for (const json& r : j["ranks"]) {
            if (!r.is_object() || !r.contains("rank") || !r["rank"].is_number_integer())
                return fail("a 'ranks' entry has no integer 'rank'");
            RankStat s;
            s.rank = r["rank"].get<int>();
            if (r.contains("host") && r["host"].is_string())
                s.host = r["host"].get<std::string>();
            if (r.contains("values") && !valuesFromJson(r["values"], s.values, error))
                return fail("rank " + std::to_string(s.rank) + ": " + error);
            e.ranks.push_back(std::move(s));
        }
    }
    if (j.contains("fields") && j["fields"].is_object())
        for (const auto& [k, val] : j["fields"].items())
            e.fields[k] = val.is_string() ? val.get<std::string>() : val.dump();
    if (e.type == EventType::Status && e.state.empty())
        return fail("status event without 'state'");
    return e;
}

std::string helloLine(const std::string& runId, const std::string& token)
{
    json j{{"v", kMetricsVersion}, {"type", "hello"}, {"run", runId}, {"token", token}};
    return j.dump();
}

bool parseHelloLine(const std::string& line, std::string& runId, std::string& token)
{
    json j = json::parse(line, nullptr, false);
    if (!j.is_object() || j.value("type", "") != "hello" || !j.contains("token") || !j["token"].is_string())
        return false;
    runId = j.value("run", "");
    token = j["token"].get<std::string>();
    return true;
}

bool isTerminalState(const std::string& state)
{
    return state == "finished" || state == "failed" || state == "stopped" || state == "hung" ||
           state == "numerics_mismatch";
}

} // namespace tapas::protocol
