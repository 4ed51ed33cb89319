// What `tapas bench run` reports for a plan launched several times (tests/bench/bench_plan_run):
// the median of every launch's steps after the warm-up, pooled, not the fastest launch's median,
// which picked the luckiest launch and moved from run to run.
#include "tests/bench/bench_plan_run.h"

#include <QtTest>

using namespace tapas::bench;

namespace {

RunFigures launch(std::vector<double> steps)
{
    RunFigures f;
    f.ok = true;
    f.stepTimes = steps;
    for (double s : steps) {
        f.cpuTimes.push_back(s / 2);
        f.commTimes.push_back(s / 4);
    }
    return f;
}

} // namespace

class TstBenchFigures : public QObject {
    Q_OBJECT
private slots:
    void the_figure_is_the_median_of_all_launches_steps_after_the_warm_up()
    {
        // Warm-up steps (first two) are dropped; one lucky launch (all 1.0) does not set the figure.
        const std::vector<RunFigures> launches = {launch({9, 9, 1.0, 1.0, 1.0, 1.0}), launch({9, 9, 1.4, 1.4, 1.4, 1.4}),
                                                  launch({9, 9, 1.5, 1.5, 1.3, 1.3})};
        const RepeatedRun r = pooledFigures(launches, 2);
        QCOMPARE(r.steps, 12);
        // Pooled and sorted: 1,1,1,1,1.3,1.3,1.4,1.4,1.4,1.4,1.5,1.5: the middle two are 1.3 and 1.4.
        QCOMPARE(r.wall, 1.35);
        QCOMPARE(r.cpu, 1.35 / 2);
        QCOMPARE(r.comm, 1.35 / 4);
        QVERIFY(r.wall > medianAfterWarmup(launches[0].stepTimes, 2)); // not the fastest launch's 1.0
        // Spread: slowest launch median (1.4) over the fastest (1.0).
        QCOMPARE(r.spread, 1.4);
    }

    void one_launch_is_its_own_median()
    {
        const RepeatedRun r = pooledFigures({launch({5, 2, 3, 1})}, 1);
        QCOMPARE(r.steps, 3);
        QCOMPARE(r.wall, 2.0);
        QCOMPARE(r.spread, 1.0);
    }
};

QTEST_GUILESS_MAIN(TstBenchFigures)
#include "tst_bench_figures.moc"
