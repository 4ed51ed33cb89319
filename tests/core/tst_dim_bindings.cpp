// The one `--dim name=value` parser (core/ir/dim_bindings.h) that the `tapas` commands and
// tapas-studio share: what it accepts, and the sentence it refuses the rest with.
#include "core/ir/dim_bindings.h"

#include <QtTest>

using namespace tapas;

namespace {
Result<DimBindings> parse(std::vector<std::string> args) { return parseDimBindings(args); }
} // namespace

class TstDimBindings : public QObject {
    Q_OBJECT
private slots:
    void names_and_values_are_bound_in_order()
    {
        const auto d = parse({"batch=8", "seq=2048"});
        QVERIFY2(d.ok(), d.error().c_str());
        QCOMPARE(d->size(), size_t(2));
        QCOMPARE(d->at("batch"), int64_t(8));
        QCOMPARE(d->at("seq"), int64_t(2048));
    }

    void spaces_around_name_and_value_are_trimmed()
    {
        const auto d = parse({" batch = 8 ", "seq=\t16"});
        QVERIFY2(d.ok(), d.error().c_str());
        QCOMPARE(d->at("batch"), int64_t(8));
        QCOMPARE(d->at("seq"), int64_t(16));
        QCOMPARE(d->count(" batch "), size_t(0));
    }

    void binding_a_name_again_to_the_same_value_is_allowed()
    {
        const auto d = parse({"batch=8", "batch = 8"});
        QVERIFY2(d.ok(), d.error().c_str());
        QCOMPARE(d->at("batch"), int64_t(8));
    }

    void rebinding_a_name_to_another_value_is_refused()
    {
        const auto d = parse({"batch=8", "batch=4"});
        QVERIFY(!d.ok());
        QCOMPARE(QString::fromStdString(d.error()), QStringLiteral("--dim 'batch=4': 'batch' is already bound to 8"));
    }

    void malformed_arguments_are_refused_naming_them_data()
    {
        QTest::addColumn<QString>("arg");
        QTest::addColumn<QString>("error");
        const QString form = QStringLiteral(": expected name=value, e.g. --dim batch=8");
        const QString positive = QStringLiteral(": the value of 'batch' must be a positive integer");
        QTest::newRow("no =") << "batch" << "--dim 'batch'" + form;
        QTest::newRow("no name") << "=8" << "--dim '=8'" + form;
        QTest::newRow("no value") << "batch= " << "--dim 'batch= '" + form;
        QTest::newRow("zero") << "batch=0" << "--dim 'batch=0'" + positive;
        QTest::newRow("negative") << "batch=-2" << "--dim 'batch=-2'" + positive;
        QTest::newRow("not a number") << "batch=eight" << "--dim 'batch=eight'" + positive;
        QTest::newRow("trailing text") << "batch=8x" << "--dim 'batch=8x'" + positive;
        QTest::newRow("fraction") << "batch=2.5" << "--dim 'batch=2.5'" + positive;
        QTest::newRow("overflow") << "batch=99999999999999999999" << "--dim 'batch=99999999999999999999'" + positive;
    }

    void malformed_arguments_are_refused_naming_them()
    {
        QFETCH(QString, arg);
        QFETCH(QString, error);
        const auto d = parse({"seq=16", arg.toStdString()});
        QVERIFY(!d.ok());
        QCOMPARE(QString::fromStdString(d.error()), error);
    }

    void an_explicit_plus_sign_is_a_positive_value()
    {
        const auto d = parse({"batch=+4"});
        QVERIFY2(d.ok(), d.error().c_str());
        QCOMPARE(d->at("batch"), int64_t(4));
    }
};

QTEST_GUILESS_MAIN(TstDimBindings)
#include "tst_dim_bindings.moc"
