#include "runtime/protocol/durable_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

namespace tapas::protocol {

namespace fs = std::filesystem;

DurableFile::DurableFile(std::string path) : path_(std::move(path))
{
    fd_ = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd_ < 0) fail("cannot create it", errno);
}

DurableFile::~DurableFile()
{
    if (fd_ >= 0) ::close(fd_);
}

void DurableFile::fail(const char* what, int err)
{
    if (error_.empty()) error_ = "file '" + path_ + "': " + what + ": " + std::strerror(err);
}

size_t DurableFile::write(const void* data, size_t size)
{
    const char* p = static_cast<const char*>(data);
    size_t left = failed() ? 0 : size;
    while (left > 0) {
        const ssize_t n = ::write(fd_, p, left);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            fail("write failed", n < 0 ? errno : ENOSPC); // 0 bytes for a non-empty write: no space
            break;
        }
        p += n;
        left -= size_t(n);
    }
    return size;
}

Status DurableFile::finish()
{
    if (fd_ >= 0) {
        if (!failed() && ::fsync(fd_) != 0) fail("fsync failed", errno);
        if (::close(fd_) != 0) fail("close failed", errno);
        fd_ = -1;
    }
    return failed() ? Status::failure(error_) : Status::success();
}

Status syncDirectory(const std::string& dir)
{
    const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return Status::failure("folder '" + dir + "': cannot open it: " + std::strerror(errno));
    const int rc = ::fsync(fd), err = errno;
    ::close(fd);
    // Some file systems cannot sync a directory (EINVAL); that is not a lost write.
    if (rc != 0 && err != EINVAL) return Status::failure("folder '" + dir + "': fsync failed: " + std::strerror(err));
    return Status::success();
}

Status replaceFileDurably(const std::string& path, const std::string& text)
{
    const std::string tmp = path + ".tmp";
    DurableFile f(tmp);
    f.write(text.data(), text.size());
    if (Status s = f.finish(); !s) {
        ::unlink(tmp.c_str());
        return s;
    }
    if (::rename(tmp.c_str(), path.c_str()) != 0) {
        const int err = errno;
        ::unlink(tmp.c_str());
        return Status::failure("file '" + path + "': rename failed: " + std::strerror(err));
    }
    return syncDirectory(fs::path(path).parent_path().string());
}

Status renameIntoPlace(const std::string& from, const std::string& to)
{
    std::error_code ec;
    if (fs::exists(to, ec)) fs::remove_all(to, ec);
    if (ec) return Status::failure("folder '" + to + "': cannot replace it: " + ec.message());
    fs::rename(from, to, ec);
    if (ec) return Status::failure("folder '" + from + "': cannot rename it to '" + to + "': " + ec.message());
    return syncDirectory(fs::path(to).parent_path().string());
}

} // namespace tapas::protocol
