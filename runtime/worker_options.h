#pragma once
// The one command-line grammar of tapas-worker's sub-commands (train-plan, gan, comm-check,
// calibrate, info): each option is declared once with where its value goes and the check it
// must pass, and parse() reports the first problem as a sentence naming the option and the
// value as typed ("option --steps: '-3' is not an integer in [0, 9007199254740992]").
// "--name value" and "--flag" forms; -h/--help anywhere asks for the usage. Plain C++ (it runs
// before MPI_Init, so a bad launch fails fast on every rank).
#include "core/util/result.h"

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <limits>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace tapas::runtime {

class WorkerOptions {
public:
    // A switch: present sets *out to `value`.
    WorkerOptions& flag(const std::string& name, bool* out, bool value = true);
    // A switch that may be followed by a truth word (1/0, true/false, on/off, yes/no), so that
    // "--async" and the launcher's "--async 1" both work.
    WorkerOptions& toggle(const std::string& name, bool* out);
    WorkerOptions& text(const std::string& name, std::string* out);
    // One of `choices`.
    WorkerOptions& choice(const std::string& name, std::string* out, std::initializer_list<const char*> choices);
    // A whole number in [min, max].
    template <class Int>
    WorkerOptions& integer(const std::string& name, Int* out, Int min = std::numeric_limits<Int>::min(),
                           Int max = std::numeric_limits<Int>::max())
    {
        return addInteger(name, (long double)min, (long double)max, [out](long double v) { *out = Int(v); });
    }
    // A finite number in [min, max]; `open` excludes an end: (min, max] or [min, max).
    enum class Open { None, Min, Max };
    WorkerOptions& number(const std::string& name, double* out, double min, double max, Open open = Open::None);
    // Anything else: `apply` checks and stores the value, its error is prefixed with the option.
    WorkerOptions& custom(const std::string& name, std::function<Status(const std::string& value)> apply);

    // argv[first..argc).
    [[nodiscard]] Status parse(int argc, char** argv, int first);
    [[nodiscard]] Status parse(const std::vector<std::string>& args);
    bool helpRequested() const { return help_; }
    bool isSet(const std::string& name) const { return seen_.count(name) > 0; }

private:
    struct Option {
        bool takesValue = true;
        std::function<Status(const std::string& value)> apply;
        bool optionalTruthWord = false; // toggle(): a following truth word is its value
    };
    WorkerOptions& add(const std::string& name, bool takesValue, std::function<Status(const std::string&)> apply);
    WorkerOptions& addInteger(const std::string& name, long double min, long double max,
                              std::function<void(long double)> store);

    std::map<std::string, Option> options_;
    std::set<std::string> seen_;
    bool help_ = false;
};

// -h or --help among argv[first..argc): the sub-command prints its usage and exits 0,
// whatever else is on the line.
bool wantsHelp(int argc, char** argv, int first);

} // namespace tapas::runtime
