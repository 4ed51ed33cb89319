#include "runtime/worker_options.h"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <string_view>

namespace tapas::runtime {

namespace {

std::string bounds(long double min, long double max)
{
    auto text = [](long double v) {
        char buf[64];
        std::snprintf(buf, sizeof buf, "%.0Lf", v);
        return std::string(buf);
    };
    return "[" + text(min) + ", " + text(max) + "]";
}

std::string boundsOf(double min, double max, WorkerOptions::Open open)
{
    char buf[96];
    std::snprintf(buf, sizeof buf, "%s%g, %g%s", open == WorkerOptions::Open::Min ? "(" : "[", min, max,
                  open == WorkerOptions::Open::Max ? ")" : "]");
    return buf;
}

bool truthWord(const std::string& s, bool* out)
{
    for (const char* w : {"1", "true", "on", "yes"})
        if (s == w) return *out = true;
    for (const char* w : {"0", "false", "off", "no"})
        if (s == w) {
            *out = false;
            return true;
        }
    return false;
}

} // namespace

WorkerOptions& WorkerOptions::add(const std::string& name, bool takesValue, std::function<Status(const std::string&)> apply)
{
    options_[name] = Option{takesValue, std::move(apply)};
    return *this;
}

WorkerOptions& WorkerOptions::flag(const std::string& name, bool* out, bool value)
{
    return add(name, false, [out, value](const std::string&) {
        *out = value;
        return Status::success();
    });
}

WorkerOptions& WorkerOptions::toggle(const std::string& name, bool* out)
{
    add(name, false, [out](const std::string& v) {
        bool value = true;
        if (!v.empty() && !truthWord(v, &value)) return Status::failure("'" + v + "' is not 1, 0, true, false, on, off, yes or no");
        *out = value;
        return Status::success();
    });
    options_[name].optionalTruthWord = true;
    return *this;
}

WorkerOptions& WorkerOptions::text(const std::string& name, std::string* out)
{
    return add(name, true, [out](const std::string& v) {
        *out = v;
        return Status::success();
    });
}

WorkerOptions& WorkerOptions::choice(const std::string& name, std::string* out, std::initializer_list<const char*> choices)
{
    std::vector<std::string> list(choices.begin(), choices.end());
    return add(name, true, [out, list](const std::string& v) {
        std::string names;
        for (const std::string& c : list) {
            if (c == v) {
                *out = v;
                return Status::success();
            }
            names += (names.empty() ? "" : c == list.back() ? " or " : ", ") + c;
        }
        return Status::failure("'" + v + "' is not " + names);
    });
}

WorkerOptions& WorkerOptions::addInteger(const std::string& name, long double min, long double max,
                                         std::function<void(long double)> store)
{
    return add(name, true, [min, max, store](const std::string& v) {
        // Signed and unsigned 64-bit values both fit a long double's 64-bit mantissa exactly.
        const char* begin = v.c_str() + (!v.empty() && v[0] == '+' ? 1 : 0);
        const char* end = v.c_str() + v.size();
        long double value = 0;
        bool ok = false;
        if (begin != end && *begin == '-') {
            int64_t x = 0;
            const auto r = std::from_chars(begin, end, x);
            ok = r.ec == std::errc() && r.ptr == end;
            value = (long double)x;
        } else {
            uint64_t x = 0;
            const auto r = std::from_chars(begin, end, x);
            ok = begin != end && r.ec == std::errc() && r.ptr == end;
            value = (long double)x;
        }
        if (!ok || value < min || value > max)
            return Status::failure("'" + v + "' is not an integer in " + bounds(min, max));
        store(value);
        return Status::success();
    });
}

WorkerOptions& WorkerOptions::number(const std::string& name, double* out, double min, double max, Open open)
{
    return add(name, true, [out, min, max, open](const std::string& v) {
        char* end = nullptr;
        const double x = std::strtod(v.c_str(), &end);
        // strtod takes "inf" and "nan"; neither is a value any option means.
        const bool below = open == Open::Min ? !(x > min) : !(x >= min);
        const bool above = open == Open::Max ? !(x < max) : !(x <= max);
        if (v.empty() || *end || !std::isfinite(x) || below || above)
            return Status::failure("'" + v + "' is not a number in " + boundsOf(min, max, open));
        *out = x;
        return Status::success();
    });
}

WorkerOptions& WorkerOptions::custom(const std::string& name, std::function<Status(const std::string& value)> apply)
{
    return add(name, true, std::move(apply));
}

bool wantsHelp(int argc, char** argv, int first)
{
    for (int i = first; i < argc; ++i)
        if (std::string_view(argv[i]) == "-h" || std::string_view(argv[i]) == "--help") return true;
    return false;
}

Status WorkerOptions::parse(int argc, char** argv, int first)
{
    std::vector<std::string> args;
    for (int i = first; i < argc; ++i) args.emplace_back(argv[i]);
    return parse(args);
}

Status WorkerOptions::parse(const std::vector<std::string>& args)
{
    for (const std::string& a : args)
        if (a == "-h" || a == "--help") {
            help_ = true;
            return Status::success();
        }
    for (size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        auto it = options_.find(a);
        if (it == options_.end()) return Status::failure("unknown option '" + a + "'");
        std::string value;
        bool truth = false;
        if (it->second.takesValue) {
            if (i + 1 >= args.size()) return Status::failure("option " + a + " needs a value");
            value = args[++i];
        } else if (it->second.optionalTruthWord && i + 1 < args.size() && truthWord(args[i + 1], &truth)) {
            value = args[++i];
        }
        if (Status s = it->second.apply(value); !s) return Status::failure("option " + a + ": " + s.error);
        seen_.insert(a);
    }
    return Status::success();
}

} // namespace tapas::runtime
