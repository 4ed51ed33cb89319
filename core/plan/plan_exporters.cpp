// The one list of plan exporters (like searcher_registry.cpp): adding a format is one new
// export_<name>.cpp and one line here.
#include "core/plan/export_common.h"

#include <filesystem>
#include <fstream>

namespace tapas {

const std::vector<std::unique_ptr<PlanExporter>>& planExporters()
{
    static const std::vector<std::unique_ptr<PlanExporter>> all = [] {
        std::vector<std::unique_ptr<PlanExporter>> v;
        v.push_back(makePlanFileExporter());
        v.push_back(makeMpirunExporter());
        v.push_back(makeSlurmExporter());
        v.push_back(makeDtensorExporter());
        v.push_back(makeMegatronExporter());
        v.push_back(makeGraphExporter("dot"));
        v.push_back(makeGraphExporter("svg"));
        v.push_back(makeGraphExporter("png"));
        return v;
    }();
    return all;
}

const PlanExporter* findPlanExporter(const std::string& name)
{
    for (const auto& e : planExporters())
        if (e->name() == name) return e.get();
    return nullptr;
}

Status writeExportFiles(const std::string& dir, const ExportFiles& files)
{
    namespace fs = std::filesystem;
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec) return Status::failure("cannot create the folder '" + dir + "': " + ec.message());
    for (const auto& [name, content] : files) {
        if (name.empty() || name.find('/') != std::string::npos || name == "." || name == "..")
            return Status::failure("refusing to write a file named '" + name + "'");
        const fs::path target = fs::path(dir) / name;
        const fs::path temp = fs::path(dir) / ("." + name + ".part");
        {
            std::ofstream out(temp, std::ios::binary | std::ios::trunc);
            out.write(content.data(), std::streamsize(content.size()));
            out.close();
            if (!out) {
                fs::remove(temp, ec);
                return Status::failure("cannot write '" + target.string() + "'");
            }
        }
        // Scripts are meant to be run: rwxr-xr-x like any checked-out script.
        if (name.ends_with(".sh"))
            fs::permissions(temp, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec | fs::perms::others_read |
                                      fs::perms::others_exec, ec);
        fs::rename(temp, target, ec);
        if (ec) {
            fs::remove(temp, ec);
            return Status::failure("cannot replace '" + target.string() + "'");
        }
    }
    return Status::success();
}

} // namespace tapas
