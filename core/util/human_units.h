#pragma once
// Short human renderings of counts and sizes, shared by reports, error messages and the GUI.
#include <string>

namespace tapas {

// "124.4M", "1.75T", "999".
std::string humanCount(double v);
// "3.1 GB", "512 B" (decimal units, as file managers and `ls -h --si` show them).
std::string humanBytes(double v);

} // namespace tapas
