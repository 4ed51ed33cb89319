#include "core/cluster/calibration_origin.h"

#include <fstream>

namespace tapas {

std::string thisMachineCpu()
{
    std::ifstream in("/proc/cpuinfo");
    std::string line;
    while (std::getline(in, line))
        if (line.rfind("model name", 0) == 0 && line.find(':') != std::string::npos) {
            const size_t at = line.find_first_not_of(' ', line.find(':') + 1);
            return at == std::string::npos ? std::string() : line.substr(at);
        }
    return {};
}

std::string calibrationOriginNote(const ClusterSpec& c, const std::string& cpu)
{
    if (c.opFamilies.empty()) return {};
    // "x86-64 core (MPI rank), <CPU>; measured by tapas cluster calibrate <time>: <libraries>"
    const size_t comma = c.device.find(", "), measured = c.device.find("; measured by ");
    if (comma == std::string::npos || measured == std::string::npos || measured < comma) return {};
    const std::string calibratedOn = c.device.substr(comma + 2, measured - comma - 2);
    const size_t colon = c.device.find(": ", measured);
    const std::string when = c.device.substr(measured + 2, colon == std::string::npos ? std::string::npos : colon - measured - 2);
    if (!cpu.empty() && cpu != calibratedOn)
        return "warning: cluster '" + c.name + "' was calibrated on a " + calibratedOn + " and this machine is a " + cpu +
               ": its rates do not describe this machine (tapas cluster calibrate -np 2 -o F.json, then --cluster F.json)";
    return "note: cluster '" + c.name + "' was " + when + " on this CPU model; a preset or an older file may still describe "
           "another machine or another load (compare on a calibration made in the same minutes)";
}

} // namespace tapas
