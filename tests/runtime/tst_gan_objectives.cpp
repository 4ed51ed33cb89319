// ParaGAN's training objective and the mixtures' networks, checked against values a person can
// work out by hand: the R1 penalty on a linear and a quadratic D, the losses at known scores, the
// spectral norm that `--d-norm spectral` puts on D, and G's depth and width from `--g-layers` and
// `--g-width`.
#include "runtime/gan/gan_losses.h"
#include "runtime/gan/gan_models.h"

#include <QtTest>

#include <cmath>

using namespace tapas::runtime::gan;

class TstGanObjectives : public QObject {
    Q_OBJECT

private Q_SLOTS:
    // D(x) = w.x + b has the gradient w at every x, so R1 = gamma/2 |w|^2 whatever the batch:
    // w = (3, -4) gives |w|^2 = 25, and gamma = 2 gives 25.
    void r1_of_a_linear_d_is_half_gamma_times_its_squared_weight_norm()
    {
        torch::nn::Linear d(2, 1);
        {
            torch::NoGradGuard ng;
            d->weight.copy_(torch::tensor({{3.0f, -4.0f}}));
            d->bias.fill_(0.7f);
        }
        const auto real = torch::tensor({{0.1f, 0.2f}, {-1.0f, 0.5f}, {2.0f, 2.0f}}).requires_grad_(true);
        const auto scores = d->forward(real).view({-1});
        const auto penalty = r1Penalty(scores, real, 2.0);
        QCOMPARE(penalty.item<double>(), 25.0);
        // The penalty trains D: its gradient with respect to w is gamma x w = (6, -8), and it
        // does not depend on the bias.
        d->zero_grad();
        penalty.backward();
        QCOMPARE(d->weight.grad()[0][0].item<double>(), 6.0);
        QCOMPARE(d->weight.grad()[0][1].item<double>(), -8.0);
        QVERIFY(!d->bias.grad().defined() || d->bias.grad().abs().max().item<double>() == 0.0);
    }

    // D(x) = |x|^2 / 2 has the gradient x, so R1 = gamma/2 x the batch mean of |x|^2: the points
    // (1, 0), (0, 2) and (3, 4) have 1, 4 and 25, mean 10; gamma = 5 gives 25. A packed input (the
    // four coordinates of a pack of 2) counts all four: (1, 1, 1, 1) gives 4, gamma = 1 gives 2.
    void r1_of_a_quadratic_d_averages_the_squared_gradient_norms_over_the_batch()
    {
        const auto real = torch::tensor({{1.0f, 0.0f}, {0.0f, 2.0f}, {3.0f, 4.0f}}).requires_grad_(true);
        const auto scores = 0.5 * real.pow(2).sum(1);
        QVERIFY(std::abs(r1Penalty(scores, real, 5.0).item<double>() - 25.0) < 1e-5);
        const auto packed = torch::ones({1, 4}).requires_grad_(true);
        QVERIFY(std::abs(r1Penalty(0.5 * packed.pow(2).sum(1), packed, 1.0).item<double>() - 2.0) < 1e-6);
    }

    // At scores 0 both bce terms are log 2; hinge at real 2 and fake -3 is 0, at real 0 and fake 0
    // it is 2. G's non-saturating loss at score 0 is log 2, hinge's is minus the mean score.
    void losses_at_known_scores()
    {
        const auto zero = torch::zeros({4});
        QVERIFY(std::abs(discriminatorLoss("bce", zero, zero).item<double>() - 2 * std::log(2.0)) < 1e-6);
        QCOMPARE(discriminatorLoss("hinge", torch::full({3}, 2.0), torch::full({3}, -3.0)).item<double>(), 0.0);
        QCOMPARE(discriminatorLoss("hinge", zero, zero).item<double>(), 2.0);
        QVERIFY(std::abs(generatorLoss("bce", zero).item<double>() - std::log(2.0)) < 1e-6);
        QCOMPARE(generatorLoss("hinge", torch::tensor({1.0f, 3.0f})).item<double>(), -2.0);
    }

    // `--d-norm spectral`: every layer divided by its largest singular value (power iteration, one
    // per training forward) and LeakyReLU between them, so once the iteration has converged D is
    // 1-Lipschitz: |D(x) - D(y)| <= |x - y| for any two points. The raw weights are scaled up 10x
    // first: the normalised D does not change, an unnormalised one would be 10^4 times as steep.
    void spectral_norm_makes_the_mixture_d_one_lipschitz()
    {
        torch::manual_seed(7);
        ModelSpec s;
        s.kind = "mlp";
        s.width = 32;
        s.dInChannels = 4;
        s.dSpectralNorm = true;
        const auto d = makeDiscriminator(s);
        {
            torch::NoGradGuard ng;
            for (const auto& p : d->named_parameters())
                if (p.key().find("weight") != std::string::npos) p.value().mul_(10.0);
        }
        const auto none = torch::zeros({0}, torch::kLong);
        d->train();
        for (int i = 0; i < 200; ++i) d->forward(torch::randn({8, 4}), none); // converges the power iteration
        d->eval();
        torch::NoGradGuard ng;
        const auto x = torch::randn({500, 4}) * 3, y = x + torch::randn({500, 4}) * 0.1;
        const auto ratio = (d->forward(x, none) - d->forward(y, none)).abs() / (x - y).norm(2, 1);
        QVERIFY2(ratio.max().item<double>() <= 1.0 + 1e-3, qPrintable(QString::number(ratio.max().item<double>())));
        // Every layer has its own power-iteration vector: 4 layers, each a weight, a bias and u.
        int us = 0;
        for (const auto& b : d->named_buffers()) us += b.key().find(".u") != std::string::npos ? 1 : 0;
        QCOMPARE(us, 4);
        QCOMPARE(int(d->parameters().size()), 8);
    }

    // G's depth and width: `--g-layers 5 --g-width 48` is 5 hidden layers of 48 units plus the
    // output layer, so 6 weight matrices; the first reads z, the last writes a point.
    void mixture_g_has_the_asked_depth_and_width()
    {
        ModelSpec s;
        s.kind = "mlp";
        s.zDim = 16;
        s.gLayers = 5;
        s.gWidth = 48;
        const auto g = makeGenerator(s);
        std::vector<torch::Tensor> weights;
        for (const auto& p : g->named_parameters())
            if (p.key().find("weight") != std::string::npos) weights.push_back(p.value());
        QCOMPARE(int(weights.size()), 6);
        QCOMPARE(weights.front().sizes().vec(), (std::vector<int64_t>{48, 16}));
        QCOMPARE(weights[3].sizes().vec(), (std::vector<int64_t>{48, 48}));
        QCOMPARE(weights.back().sizes().vec(), (std::vector<int64_t>{2, 48}));
        QCOMPARE(g->forward(torch::randn({7, 16}), torch::zeros({7}, torch::kLong)).sizes().vec(), (std::vector<int64_t>{7, 2}));
    }
};

QTEST_GUILESS_MAIN(TstGanObjectives)
#include "tst_gan_objectives.moc"
