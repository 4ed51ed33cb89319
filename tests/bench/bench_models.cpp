#include "tests/bench/bench_models.h"

#include <cstdlib>
#include <filesystem>
#include <system_error>
#include <vector>

namespace tapas::bench {

namespace {

// A models folder holds at least one .onnx file.
bool holdsModels(const std::filesystem::path& dir)
{
    std::error_code ec;
    if (!std::filesystem::is_directory(dir, ec)) return false;
    for (const auto& entry : std::filesystem::directory_iterator(dir, ec))
        if (entry.path().extension() == ".onnx") return true;
    return false;
}

} // namespace

Result<std::string> findModelsDir(const std::string& option, const std::string& exePath)
{
    namespace fs = std::filesystem;
    std::vector<std::string> looked;
    auto tryDir = [&](const fs::path& dir, const std::string& why) {
        looked.push_back(dir.string() + " (" + why + ")");
        return holdsModels(dir);
    };
    if (!option.empty()) {
        if (tryDir(option, "--models")) return option;
        return Result<std::string>::failure("no .onnx models in " + looked.back());
    }
    if (const char* env = std::getenv("TAPAS_MODELS_DIR"); env && *env) {
        if (tryDir(env, "$TAPAS_MODELS_DIR")) return std::string(env);
        return Result<std::string>::failure("no .onnx models in " + looked.back());
    }
    if (!exePath.empty()) {
        std::error_code ec;
        fs::path dir = fs::weakly_canonical(fs::path(exePath), ec).parent_path();
        for (; !dir.empty(); dir = dir.parent_path()) {
            if (tryDir(dir / "shared" / "models", "beside the program's folders")) return (dir / "shared" / "models").string();
            if (dir == dir.root_path()) break;
        }
    }
    std::string where;
    for (const std::string& l : looked) where += "\n  " + l;
    return Result<std::string>::failure(
        "the real models were not found (give --models DIR or set TAPAS_MODELS_DIR); looked in:" +
        (where.empty() ? std::string(" nowhere: the program's own path is unknown") : where));
}

std::string currentExecutable()
{
    std::error_code ec;
    const std::filesystem::path p = std::filesystem::read_symlink("/proc/self/exe", ec);
    return ec ? std::string() : p.string();
}

} // namespace tapas::bench
