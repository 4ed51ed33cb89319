#pragma once
// The real models in ../shared/models (TAPAS_MODELS_DIR, fixed at configure time by
// -DTAPAS_SHARED_DIR). A checkout without them still runs every case: a case that reads one starts
// with TAPAS_NEEDS_SHARED_MODEL("file.onnx"), which skips that case (or that data row) alone and
// names the file and where it was looked for.
#include <QByteArray>
#include <QFileInfo>
#include <QString>
#include <QtTest>

#include <string>

namespace tapas::testing {

inline QString sharedModelsDir() { return QStringLiteral(TAPAS_MODELS_DIR); }

inline QString sharedModel(const QString& file) { return sharedModelsDir() + QLatin1Char('/') + file; }
inline QString sharedModel(const char* file) { return sharedModel(QString::fromUtf8(file)); }

inline std::string sharedModelPath(const std::string& file)
{
    return std::string(TAPAS_MODELS_DIR) + "/" + file;
}

inline QString modelName(const char* file) { return QString::fromUtf8(file); }
inline QString modelName(const std::string& file) { return QString::fromStdString(file); }
inline QString modelName(const QString& file) { return file; }

inline bool hasSharedModel(const QString& file) { return QFileInfo::exists(sharedModel(file)); }

inline QByteArray missingSharedModel(const QString& file)
{
    return QStringLiteral("needs the shared model %1, not found in %2 (configure with "
                          "-DTAPAS_SHARED_DIR=<the folder holding models/>)")
        .arg(file, sharedModelsDir())
        .toUtf8();
}

} // namespace tapas::testing

// Skips the current case (or data row) when `file` (a name inside the shared models folder) is
// missing; every other case of the suite still runs.
#define TAPAS_NEEDS_SHARED_MODEL(file)                                                                \
    do {                                                                                           \
        const QString tapasSharedModel_ = ::tapas::testing::modelName(file);                                \
        if (!::tapas::testing::hasSharedModel(tapasSharedModel_))                                   \
            QSKIP(::tapas::testing::missingSharedModel(tapasSharedModel_).constData());             \
    } while (false)
