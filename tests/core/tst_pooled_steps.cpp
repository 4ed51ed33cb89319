// What `tapas bench run` reports for a plan launched several times (core/util/pooled_steps, which
// tests/bench/bench_plan_run applies to the wall clock, CPU time and time in collectives): the
// median of every launch's steps after the warm-up, pooled, not the fastest launch's median,
// which picked the luckiest launch and moved from run to run.
#include "core/util/pooled_steps.h"

#include <QtTest>

using namespace tapas;

class TstPooledSteps : public QObject {
    Q_OBJECT
private slots:
    void the_figure_is_the_median_of_all_launches_steps_after_the_warm_up()
    {
        // Warm-up steps (first two) are dropped; one lucky launch (all 1.0) does not set the figure.
        const std::vector<std::vector<double>> launches = {{9, 9, 1.0, 1.0, 1.0, 1.0}, {9, 9, 1.4, 1.4, 1.4, 1.4}, {9, 9, 1.5, 1.5, 1.3, 1.3}};
        const PooledSteps p = poolAfterWarmup(launches, 2);
        QCOMPARE(p.steps, 12);
        // Pooled and sorted: 1,1,1,1,1.3,1.3,1.4,1.4,1.4,1.4,1.5,1.5: the middle two are 1.3 and 1.4.
        QCOMPARE(p.median, 1.35);
        QVERIFY(p.median > poolAfterWarmup({launches[0]}, 2).median); // not the fastest launch's 1.0
        // Spread: the slowest launch's median (1.4) over the fastest's (1.0).
        QCOMPARE(p.spread, 1.4);
    }

    void one_launch_is_its_own_median()
    {
        const PooledSteps p = poolAfterWarmup({{5, 2, 3, 1}}, 1);
        QCOMPARE(p.steps, 3);
        QCOMPARE(p.median, 2.0);
        QCOMPARE(p.spread, 1.0);
        QCOMPARE(poolAfterWarmup({{5}}, 2).steps, 0); // all warm-up: nothing to report
        QCOMPARE(poolAfterWarmup({{5}}, 2).median, 0.0);
    }
};

QTEST_GUILESS_MAIN(TstPooledSteps)
#include "tst_pooled_steps.moc"
