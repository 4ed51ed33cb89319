// What each train-plan rank draws and updates on its own: a piece of a seeded tensor equals
// that slice of the whole tensor (any axis, pieces starting at odd flat offsets, so a dp rank or
// micro-batch sees exactly the data the unsharded reference sees), and the single-pass Adam
// update equals Adam written as tensor expressions.
#include "runtime/exec/adam_update.h"
#include "runtime/exec/synthetic_batch.h"

#include <torch/torch.h> // before QtTest: Qt's `slots` keyword breaks torch's headers

#include <QtTest>

using namespace tapas::runtime;

class TestSyntheticBatch : public QObject {
    Q_OBJECT
private slots:
    void piecesAreSlicesOfTheWhole_data()
    {
        QTest::addColumn<int>("axis");
        QTest::addColumn<int>("pieces");
        QTest::newRow("axis 0 of 3") << 0 << 3;
        QTest::newRow("axis 1 of 5") << 1 << 5;
        QTest::newRow("axis 2 of 7") << 2 << 7;
        QTest::newRow("whole") << -1 << 1;
    }
    void piecesAreSlicesOfTheWhole()
    {
        QFETCH(int, axis);
        QFETCH(int, pieces);
        // 105 elements: odd, and every run of axis 1 and 2 pieces starts at odd offsets somewhere.
        const std::vector<int64_t> shape{3, 5, 7};
        const uint64_t seed = mixSeed(42, hashName("input_ids"));
        const torch::Tensor normal = seededNormal(seed, shape, 2.0);
        const torch::Tensor ints = seededInts(seed, shape, 13);
        QCOMPARE(normal.numel(), int64_t(105));
        QVERIFY(ints.min().item<int64_t>() >= 0 && ints.max().item<int64_t>() < 13);
        for (int64_t i = 0; i < pieces; ++i) {
            const torch::Tensor n = seededNormalPiece(seed, shape, 2.0, axis, i, pieces);
            const torch::Tensor k = seededIntsPiece(seed, shape, 13, axis, i, pieces);
            const torch::Tensor wantN = axis < 0 ? normal : normal.narrow(axis, i * (shape[size_t(axis)] / pieces), shape[size_t(axis)] / pieces);
            const torch::Tensor wantK = axis < 0 ? ints : ints.narrow(axis, i * (shape[size_t(axis)] / pieces), shape[size_t(axis)] / pieces);
            QCOMPARE(n.sizes().vec(), wantN.sizes().vec());
            QVERIFY2(torch::equal(n, wantN.contiguous()), ("normal piece " + std::to_string(i) + " differs").c_str());
            QVERIFY2(torch::equal(k, wantK.contiguous()), ("integer piece " + std::to_string(i) + " differs").c_str());
        }
    }

    void normalValuesLookNormal()
    {
        const torch::Tensor t = seededNormal(7, {200000}, 1.5);
        QVERIFY(std::abs(t.mean().item<double>()) < 0.02);
        QVERIFY(std::abs(t.std().item<double>() - 1.5) < 0.02);
        // Another seed gives other numbers.
        QVERIFY(!torch::equal(t, seededNormal(8, {200000}, 1.5)));
    }

    void singlePassAdamEqualsTheTensorForm()
    {
        torch::manual_seed(3);
        const int64_t n = 1037; // not a multiple of any vector width
        torch::Tensor p = torch::randn({n}), m = torch::zeros({n}), v = torch::zeros({n});
        torch::Tensor rp = p.clone(), rm = m.clone(), rv = v.clone();
        const AdamSettings a{0.01, 0.9, 0.999, 1e-8};
        for (int64_t step = 1; step <= 4; ++step) {
            const torch::Tensor g = torch::randn({n}) * (step == 3 ? 0.0 : 1.0); // a zero gradient too
            adamUpdate(p, g, m, v, step, a);
            rm.mul_(a.beta1).add_(g, 1 - a.beta1);
            rv.mul_(a.beta2).addcmul_(g, g, 1 - a.beta2);
            const double c1 = 1 - std::pow(a.beta1, double(step)), c2 = 1 - std::pow(a.beta2, double(step));
            rp.sub_(rm / c1 / ((rv / c2).sqrt() + a.eps) * a.lr);
            QVERIFY2(torch::allclose(m, rm, 1e-6, 1e-7), ("first moment differs at step " + std::to_string(step)).c_str());
            QVERIFY2(torch::allclose(v, rv, 1e-6, 1e-9), ("second moment differs at step " + std::to_string(step)).c_str());
            QVERIFY2(torch::allclose(p, rp, 1e-5, 1e-6), ("weight differs at step " + std::to_string(step)).c_str());
        }
        QVERIFY(!torch::equal(p, torch::zeros({n})));
    }

    void adamRefusesMismatchedBuffers()
    {
        torch::Tensor p = torch::zeros({4, 4}), g = torch::zeros({4, 4}), m = torch::zeros({4, 4});
        torch::Tensor transposed = torch::zeros({4, 4}).t();
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, adamUpdate(p, g, m, transposed, 1, {}));
        torch::Tensor shorter = torch::zeros({3});
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, adamUpdate(p, g, m, shorter, 1, {}));
    }
};

QTEST_GUILESS_MAIN(TestSyntheticBatch)
#include "tst_synthetic_batch.moc"
