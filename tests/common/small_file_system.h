#pragma once
// A real full disk for tests: a tmpfs of a given size mounted on a fresh temporary folder for the
// life of the object, optionally filled with a ballast file so that only so many bytes stay free.
// Mounting needs root; CI runs as root, and a suite skips only the cases that need it elsewhere.
#include <QString>
#include <QTemporaryDir>

#include <sys/mount.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <string>

namespace tapas::testing {

class SmallFileSystem {
public:
    explicit SmallFileSystem(qint64 bytes)
    {
        if (::geteuid() != 0) {
            why_ = "mounting a tmpfs needs root (CI runs as root)";
            return;
        }
        if (!dir_.isValid()) return;
        const std::string opts = "size=" + std::to_string(bytes) + ",mode=0700";
        mounted_ = ::mount("tmpfs", dir_.path().toLocal8Bit().constData(), "tmpfs", 0, opts.c_str()) == 0;
        if (!mounted_) why_ = std::string("cannot mount a tmpfs here: ") + std::strerror(errno);
    }
    ~SmallFileSystem()
    {
        if (mounted_) ::umount2(dir_.path().toLocal8Bit().constData(), MNT_DETACH);
    }
    SmallFileSystem(const SmallFileSystem&) = delete;
    SmallFileSystem& operator=(const SmallFileSystem&) = delete;

    bool mounted() const { return mounted_; }
    // Why it is not mounted, for QSKIP.
    const char* why() const { return why_.c_str(); }
    QString path() const { return dir_.path(); }

    qint64 freeBytes() const
    {
        struct statvfs st {};
        if (::statvfs(dir_.path().toLocal8Bit().constData(), &st) != 0) return -1;
        return qint64(st.f_bavail) * qint64(st.f_frsize);
    }
    // Fills the file system with a ballast file so that about `leave` bytes stay free.
    bool leaveFree(qint64 leave)
    {
        const qint64 free = freeBytes();
        if (free < 0) return false;
        if (free <= leave) return true;
        std::ofstream f(dir_.filePath(QStringLiteral("ballast")).toStdString(), std::ios::binary);
        const std::string chunk(4096, 'b');
        for (qint64 n = 0; n + qint64(chunk.size()) <= free - leave; n += qint64(chunk.size()))
            f.write(chunk.data(), std::streamsize(chunk.size()));
        f.close();
        return bool(f);
    }

private:
    QTemporaryDir dir_;
    bool mounted_ = false;
    std::string why_;
};

} // namespace tapas::testing
