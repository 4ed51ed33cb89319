// The weight values a model file stores, as the trainer reads them (core/onnx/onnx_stored_data):
// raw and typed fields, fp16, external data beside the model (present, absent, short), Constant
// node values, and the real exports of the corpus, whose weights must all be found.
#include "core/onnx/onnx_importer.h"
#include "core/onnx/onnx_stored_data.h"
#include "tests/common/corpus.h"
#include "tests/core/onnx_test_models.h"

#include <QTemporaryDir>
#include <QtTest>

#include <cstring>
#include <fstream>

using namespace tapas;
using namespace tapas::testmodels;

namespace {

void writeFile(const std::string& path, const std::string& bytes)
{
    std::ofstream out(path, std::ios::binary);
    out.write(bytes.data(), std::streamsize(bytes.size()));
}

std::string floatBytes(const std::vector<float>& v)
{
    std::string s(v.size() * sizeof(float), '\0');
    std::memcpy(s.data(), v.data(), s.size());
    return s;
}

onnx::TensorProto* externalFloat(onnx::GraphProto* g, const std::string& name, int64_t n, const std::string& location,
                                 int64_t offset)
{
    auto* t = g->add_initializer();
    t->set_name(name);
    t->set_data_type(onnx::TensorProto::FLOAT);
    t->add_dims(n);
    t->set_data_location(onnx::TensorProto::EXTERNAL);
    for (auto [k, v] : {std::pair<const char*, std::string>{"location", location}, {"offset", std::to_string(offset)},
                        {"length", std::to_string(n * 4)}}) {
        auto* e = t->add_external_data();
        e->set_key(k);
        e->set_value(v);
    }
    return t;
}

} // namespace

class TstOnnxStoredData : public QObject {
    Q_OBJECT
private slots:
    void every_storage_of_a_float_tensor_is_read_and_what_is_absent_says_why()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const std::string base = dir.path().toStdString();
        onnx::ModelProto m = makeModel();
        auto* g = m.mutable_graph();
        addInput(g, "X", {2, 3});
        addInitializer(g, "raw", {2, 3}, 0.25f);
        auto* typed = g->add_initializer(); // float_data, as older exporters write
        typed->set_name("typed");
        typed->set_data_type(onnx::TensorProto::FLOAT);
        typed->add_dims(3);
        for (float v : {1.5f, -2.0f, 3.25f}) typed->add_float_data(v);
        auto* half = g->add_initializer(); // fp16 lives in int32_data
        half->set_name("half");
        half->set_data_type(onnx::TensorProto::FLOAT16);
        half->add_dims(2);
        half->add_int32_data(0x3C00); // 1.0
        half->add_int32_data(0xC000); // -2.0
        externalFloat(g, "ext", 3, "weights.bin", 8);
        externalFloat(g, "gone", 3, "absent.bin", 0);
        externalFloat(g, "short", 4, "weights.bin", 8); // the file holds 3 floats after offset 8
        addInt64Initializer(g, "axes", {0, 1});         // not a float: not a weight
        auto* c = addNode(g, "Constant", {}, {"const_w"}, "/Constant");
        auto* a = c->add_attribute();
        a->set_name("value");
        a->set_type(onnx::AttributeProto::TENSOR);
        a->mutable_t()->set_data_type(onnx::TensorProto::FLOAT);
        a->mutable_t()->add_dims(2);
        a->mutable_t()->set_raw_data(floatBytes({7.0f, 8.0f}));
        addNode(g, "MatMul", {"X", "raw"}, {"Y"}, "/MatMul");
        addOutput(g, "Y", {2, 3});
        writeFile(base + "/weights.bin", floatBytes({9.0f, 9.0f, 0.5f, 0.75f, 1.0f}));
        writeFile(base + "/m.onnx", serialize(m));

        Result<StoredWeights> w = readStoredWeights(base + "/m.onnx");
        QVERIFY2(w.ok(), w.ok() ? "" : w.error().c_str());
        QCOMPARE(w->tensors.at("raw").values, std::vector<float>(6, 0.25f));
        QCOMPARE(w->tensors.at("raw").dims, (std::vector<int64_t>{2, 3}));
        QCOMPARE(w->tensors.at("typed").values, (std::vector<float>{1.5f, -2.0f, 3.25f}));
        QCOMPARE(w->tensors.at("half").values, (std::vector<float>{1.0f, -2.0f}));
        QCOMPARE(w->tensors.at("ext").values, (std::vector<float>{0.5f, 0.75f, 1.0f}));
        QCOMPARE(w->tensors.at("const_w").values, (std::vector<float>{7.0f, 8.0f}));
        QVERIFY(!w->tensors.count("axes"));
        QVERIFY(!w->tensors.count("gone"));
        QVERIFY(!w->tensors.count("short"));
        QVERIFY2(w->missing.at("gone").find("absent.bin") != std::string::npos, w->missing.at("gone").c_str());
        QVERIFY2(w->missing.at("gone").find("is absent") != std::string::npos, w->missing.at("gone").c_str());
        QVERIFY2(w->missing.at("short").find("holds 12 of its 16 bytes") != std::string::npos,
                 w->missing.at("short").c_str());
    }

    void an_unreadable_file_is_an_error_naming_it()
    {
        QTemporaryDir dir;
        const std::string path = dir.path().toStdString() + "/garbage.onnx";
        writeFile(path, "this is not a protobuf");
        Result<StoredWeights> w = readStoredWeights(path);
        QVERIFY(!w.ok());
        QVERIFY2(w.error().find("garbage.onnx") != std::string::npos, w.error().c_str());
        Result<StoredWeights> none = readStoredWeights(dir.path().toStdString() + "/nowhere.onnx");
        QVERIFY(!none.ok());
        QVERIFY2(none.error().find("nowhere.onnx") != std::string::npos, none.error().c_str());
    }

    // Real exports: torch keeps weights as initializers, paddle2onnx as Constant nodes. Every
    // float parameter the importer counts must have its values in the file.
    void real_exports_store_every_parameter_the_importer_counts_data()
    {
        QTest::addColumn<QString>("file");
        for (const char* f : {"encoder_4l_small.onnx", "ppocr_mobile_v2_cls.onnx", "oww_speech_embedding.onnx",
                              "silero_vad_16k_op15.onnx"})
            QTest::newRow(f) << QString::fromLatin1(f);
    }
    void real_exports_store_every_parameter_the_importer_counts()
    {
        QFETCH(QString, file);
        const std::string path = tapas::testing::corpusDir() + "/" + file.toStdString();
        if (!QFile::exists(QString::fromStdString(path))) QSKIP(qPrintable("corpus file absent: " + QString::fromStdString(path)));
        Result<Graph> g = importOnnxFile(path);
        QVERIFY2(g.ok(), g.ok() ? "" : g.error().c_str());
        Result<StoredWeights> w = readStoredWeights(path);
        QVERIFY2(w.ok(), w.ok() ? "" : w.error().c_str());
        QVERIFY(w->missing.empty());
        int params = 0;
        for (const Tensor& t : g->tensors) {
            if (!t.isParameter() || t.storedElements() <= 1) continue;
            ++params;
            const auto it = w->tensors.find(t.name);
            QVERIFY2(it != w->tensors.end(), qPrintable(QString::fromStdString("no values for " + t.name)));
            QCOMPARE(int64_t(it->second.values.size()), t.storedElements());
        }
        QVERIFY2(params >= 10, qPrintable(QString::number(params)));
    }

    // The corpus ships its larger files without their weights (declared external in a file that
    // is not shipped): each weight is then missing, with the absent file named.
    void a_file_shipped_without_its_weights_names_the_absent_data_file()
    {
        const std::string path = tapas::testing::corpusDir() + "/resnet34.onnx";
        if (!QFile::exists(QString::fromStdString(path))) QSKIP("corpus file resnet34.onnx absent");
        Result<StoredWeights> w = readStoredWeights(path);
        QVERIFY2(w.ok(), w.ok() ? "" : w.error().c_str());
        QVERIFY(w->tensors.empty() || w->tensors.size() < 5); // only small values are kept inline
        QVERIFY2(w->missing.size() >= 30, qPrintable(QString::number(w->missing.size())));
        for (const auto& [name, why] : w->missing)
            QVERIFY2(why.find("resnet34.weights") != std::string::npos, (name + ": " + why).c_str());
    }
};

QTEST_GUILESS_MAIN(TstOnnxStoredData)
#include "tst_onnx_stored_data.moc"
