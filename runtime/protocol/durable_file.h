#pragma once
// Files of the run record written so that a full disk or an I/O error is seen, not lost: every
// write(2) is checked, fsync reports what the kernel could not write back, and the first error
// is kept as "file 'PATH': <errno text>" for the run's `failed` status. Checkpoints and the
// `latest` pointer are written through these and renamed into place only once complete.
// Plain POSIX C++: the worker writes with it, the tests and the launcher read the results.
#include "core/util/result.h"

#include <cstddef>
#include <string>

namespace tapas::protocol {

class DurableFile {
public:
    // Creates or truncates `path` (mode 0644 before the umask).
    explicit DurableFile(std::string path);
    ~DurableFile(); // closes without reporting; call finish() to learn the outcome
    DurableFile(const DurableFile&) = delete;
    DurableFile& operator=(const DurableFile&) = delete;

    // Appends all of `data`. After the first failure it writes nothing more. Returns `size`
    // whatever happened, because a short count makes torch's archive writer throw from a
    // destructor (std::terminate); the failure is reported by finish().
    size_t write(const void* data, size_t size);
    // fsync and close; the first error of open, write, fsync or close.
    [[nodiscard]] Status finish();
    bool failed() const { return !error_.empty(); }

private:
    void fail(const char* what, int err);
    std::string path_, error_;
    int fd_ = -1;
};

// Writes `text` to `path` through a temporary file in the same folder, fsyncs it and renames
// it into place, then fsyncs the folder: a reader sees the old file or the whole new one.
[[nodiscard]] Status replaceFileDurably(const std::string& path, const std::string& text);
// fsync on a directory, so a rename or a new entry in it survives a crash.
[[nodiscard]] Status syncDirectory(const std::string& dir);
// Renames a completed folder into place, replacing an older one of the same name (a step redone
// after a resume), and fsyncs the parent folder.
[[nodiscard]] Status renameIntoPlace(const std::string& from, const std::string& to);

} // namespace tapas::protocol
