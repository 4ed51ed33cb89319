// ParaGAN's training objective and the mixtures' networks, checked against values a person can
// work out by hand: the R1 penalty on a linear and a quadratic D, the losses at known scores, the
// spectral norm that `--d-norm spectral` puts on D, and G's depth and width from `--g-layers` and
// `--g-width`, and `--single-d-backward`'s claim that one backward pass through a D without batch
// norm gives G its exact gradient.
#include "runtime/gan/gan_losses.h"
#include "runtime/gan/gan_models.h"
#include "runtime/gan/gan_single_backward.h"

#include <QtTest>

#include <cmath>

using namespace tapas::runtime::gan;

namespace {

// max |a - b| over max |b|: float tolerance for two orders of the same sums.
double relativeGap(const torch::Tensor& a, const torch::Tensor& b)
{
    return (a - b).abs().max().item<double>() / std::max(1e-30, b.abs().max().item<double>());
}

struct SingleBackwardCase {
    ModelSpec spec;
    std::string loss = "bce";
    int pack = 1;
    double r1 = 0;
};

// The mixtures' small MLP D judging packs of 2 with an R1 penalty, under `loss`.
SingleBackwardCase packedMlpCase(const std::string& loss = "bce")
{
    SingleBackwardCase c;
    c.loss = loss;
    c.spec.zDim = 4;
    c.spec.width = 16;
    c.spec.gWidth = 16;
    c.spec.dInChannels = 4;
    c.pack = 2;
    c.r1 = 5;
    return c;
}

// One forward of G and D as the shared D forward makes it, then G's input and weight gradients
// and D's weight gradients twice: autograd's (G's loss and D's loss each backward on its own) and
// the single pass's (D's loss backward once, G's input gradient rescaled per sample). Returns the
// largest relative gap over the three, or -1 where the factor does not exist. `parts`, when given,
// gets D's gap alone and the cosine between the single pass's G input gradient and autograd's.
struct SingleBackwardParts {
    double dGap = 0, gInputCosine = 0;
};
double singleBackwardGap(const SingleBackwardCase& c, int64_t n, SingleBackwardParts* parts = nullptr)
{
    torch::manual_seed(11);
    const auto g = makeGenerator(c.spec);
    const auto d = makeDiscriminator(c.spec);
    g->train();
    d->train();
    const auto y = torch::zeros({n}, torch::kLong);
    const auto fake = g->forward(torch::randn({n, c.spec.zDim}), y);
    auto real = torch::randn(fake.sizes()).clamp(-1, 1);
    if (c.r1 > 0) real.requires_grad_(true);
    auto forD = [&](const torch::Tensor& x) { return c.pack > 1 ? x.reshape({-1, 2 * c.pack}) : x; };
    const auto dr = d->forward(forD(real), y);
    d->setJudgingFakes(true); // as the trainer does (batch-real normalises fakes by the real batch)
    const auto df = d->forward(forD(fake), y);
    d->setJudgingFakes(false);
    auto dLoss = discriminatorLoss(c.loss, dr, df);
    if (c.r1 > 0) dLoss = dLoss + r1Penalty(dr, real, c.r1);
    const auto gLoss = generatorLoss(c.loss, df);
    const auto gParams = g->parameters(), dParams = d->parameters();
    // Autograd's: each loss backward on its own (the graph kept for the single pass below).
    const auto refX = torch::autograd::grad({gLoss}, {fake}, {}, true)[0];
    const auto refG = torch::autograd::grad({gLoss}, gParams, {}, true);
    const auto refD = torch::autograd::grad({dLoss}, dParams, {}, true, false, true);
    // The single pass.
    const auto factor = gInputGradFactor(c.loss, df, c.pack, fake.dim());
    if (!factor.defined()) return -1;
    for (auto& p : dParams) p.mutable_grad() = torch::Tensor();
    const auto gradX = backwardDOnce(dLoss, dParams, fake, factor);
    for (auto& p : gParams) p.mutable_grad() = torch::Tensor();
    fake.backward(gradX, false, false, gParams);
    double gap = relativeGap(gradX, refX), dGap = 0;
    for (size_t i = 0; i < gParams.size(); ++i) gap = std::max(gap, relativeGap(gParams[i].grad(), refG[i]));
    for (size_t i = 0; i < dParams.size(); ++i)
        if (refD[i].defined()) dGap = std::max(dGap, relativeGap(dParams[i].grad(), refD[i]));
    if (parts) {
        parts->dGap = dGap;
        parts->gInputCosine = (gradX * refX).sum().item<double>() / (gradX.norm().item<double>() * refX.norm().item<double>());
    }
    gap = std::max(gap, dGap);
    if (refX.abs().max().item<double>() == 0) return 1; // nothing compared
    return gap;
}

ModelSpec dcganSpec(DNorm norm)
{
    ModelSpec s;
    s.kind = "dcgan";
    s.zDim = 8;
    s.width = 4;
    s.outChannels = 1;
    s.dInChannels = 1;
    s.dNorm = norm;
    return s;
}

// The preset's batch-norm D and one with `norm`, the same weights, both in training mode.
std::pair<std::shared_ptr<DiscriminatorNet>, std::shared_ptr<DiscriminatorNet>> presetAndVariantD(DNorm norm, uint64_t seed)
{
    torch::manual_seed(seed);
    const auto batch = makeDiscriminator(dcganSpec(DNorm::Batch));
    const auto variant = makeDiscriminator(dcganSpec(norm));
    copyModule(*variant, *batch);
    batch->train();
    variant->train();
    return {batch, variant};
}

} // namespace

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
        // Minimax: G's loss is minus D's fake half, log(1 - sigmoid(0)) = -log 2, D's loss bce's;
        // finite where the naive log(1 - sigmoid(s)) would be log(0).
        QVERIFY(std::abs(generatorLoss("minimax", zero).item<double>() + std::log(2.0)) < 1e-6);
        QVERIFY(std::abs(discriminatorLoss("minimax", zero, zero).item<double>() - 2 * std::log(2.0)) < 1e-6);
        QVERIFY(std::abs(generatorLoss("minimax", torch::full({2}, 40.0f)).item<double>() + 40.0) < 1e-4);
        const auto s3 = torch::tensor({-2.0f, 0.5f, 3.0f});
        QVERIFY(std::abs(generatorLoss("minimax", s3).item<double>() +
                         (discriminatorLoss("minimax", torch::full({3}, 1e4f), s3).item<double>())) < 1e-6);
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
        s.dNorm = DNorm::Spectral;
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

    // `--single-d-backward`: for a D in which no operation mixes the samples in the backward pass
    // (DCGAN's D with spectral norm, layer norm, no norm, batch norm with detached statistics or
    // with the real batch's, the mixtures' MLP D with packs of 2 and R1 on the reals), the
    // rescaled input gradient of D's loss is G's, and the weight gradients of both players are
    // autograd's, to float tolerance; for bce and for hinge while every fake is inside the margin.
    void single_d_backward_gives_both_players_their_exact_gradients()
    {
        SingleBackwardCase sn{dcganSpec(DNorm::Spectral)};
        SingleBackwardCase plain{dcganSpec(DNorm::None)};
        SingleBackwardCase layer{dcganSpec(DNorm::Layer)};
        SingleBackwardCase detached{dcganSpec(DNorm::BatchDetached)};
        SingleBackwardCase detachedHinge{dcganSpec(DNorm::BatchDetached), "hinge"};
        SingleBackwardCase realStats{dcganSpec(DNorm::BatchReal)};
        SingleBackwardCase realStatsHinge{dcganSpec(DNorm::BatchReal), "hinge"};
        SingleBackwardCase hinge{dcganSpec(DNorm::Spectral), "hinge"};
        SingleBackwardCase mlp = packedMlpCase();
        SingleBackwardCase mlpSn = mlp;
        mlpSn.spec.dNorm = DNorm::Spectral;
        const std::pair<const char*, SingleBackwardCase*> cases[] = {
            {"dcgan, spectral norm", &sn}, {"dcgan, no norm", &plain}, {"dcgan, layer norm", &layer}, {"dcgan, spectral norm, hinge", &hinge},
            {"dcgan, batch norm with detached statistics", &detached}, {"dcgan, detached batch norm, hinge", &detachedHinge},
            {"dcgan, batch norm by the real batch", &realStats}, {"dcgan, batch norm by the real batch, hinge", &realStatsHinge},
            {"mlp, packs of 2, R1", &mlp}, {"mlp with spectral norm, packs of 2, R1", &mlpSn}};
        for (const auto& [name, c] : cases) {
            const double gap = singleBackwardGap(*c, 8);
            QVERIFY2(gap >= 0 && gap < 1e-5, qPrintable(QStringLiteral("%1: relative gap %2").arg(QLatin1String(name)).arg(gap)));
        }
    }

    // The minimax (saturating) G loss is minus D's fake-half loss as a function of the whole fake
    // batch, so with factor -1 the single pass is exact even through the preset's batch-norm D,
    // whose statistics couple the samples (the next case shows the bce rescale is not), and for
    // the MLP D with packs and R1.
    void minimax_single_d_backward_is_exact_through_batch_norm()
    {
        SingleBackwardCase batch{dcganSpec(DNorm::Batch), "minimax"};
        SingleBackwardCase realStats{dcganSpec(DNorm::BatchReal), "minimax"};
        SingleBackwardCase mlp = packedMlpCase("minimax");
        const std::pair<const char*, SingleBackwardCase*> cases[] = {
            {"dcgan, batch norm (preset), minimax", &batch}, {"dcgan, batch norm by the real batch, minimax", &realStats},
            {"mlp, packs of 2, R1, minimax", &mlp}};
        for (const auto& [name, c] : cases) {
            for (const int64_t n : {8, 4}) { // packs of 2 need an even batch
                const double gap = singleBackwardGap(*c, n);
                QVERIFY2(gap >= 0 && gap < 1e-5,
                         qPrintable(QStringLiteral("%1, %2 samples: relative gap %3").arg(QLatin1String(name)).arg(n).arg(gap)));
            }
        }
    }

    // Why the option refuses DCGAN's batch-norm D: its batch statistics make every score depend
    // on every sample, so G's input gradient is no per-sample multiple of D's and the single
    // pass would train G on a wrong gradient. Without it (none, layer norm, spectral norm) a score
    // depends on its own sample only.
    void batch_norm_d_couples_the_samples_so_the_rescale_is_wrong()
    {
        SingleBackwardParts parts;
        const double gap = singleBackwardGap({dcganSpec(DNorm::Batch)}, 8, &parts);
        QVERIFY2(gap > 1e-2, qPrintable(QString::number(gap)));
        // What `--approx-single-d-backward` takes anyway: D's own gradients are exact (its loss
        // goes back once, as always), G's input gradient only points roughly the same way.
        QVERIFY2(parts.dGap < 1e-5, qPrintable(QString::number(parts.dGap)));
        QVERIFY2(parts.gInputCosine > 0.5 && parts.gInputCosine < 1 - 1e-4, qPrintable(QString::number(parts.gInputCosine)));
        qInfo("batch-norm D, 8 samples: single-pass G input gradient vs autograd's: relative gap %g, cosine %.4f", gap,
              parts.gInputCosine);
        for (const DNorm norm : {DNorm::Batch, DNorm::None, DNorm::Layer, DNorm::Spectral}) {
            const bool batchNorm = norm == DNorm::Batch;
            torch::manual_seed(3);
            const auto d = makeDiscriminator(dcganSpec(norm));
            // Spectral norm's power iteration steps once per training forward, so two training
            // forwards use two slightly different weights: its case compares in eval mode, where
            // the weight is fixed (its forward has no batch operation in either mode).
            if (norm == DNorm::Spectral) d->eval();
            else d->train();
            torch::NoGradGuard ng;
            const auto x = torch::randn({4, 1, 32, 32}), y = torch::zeros({4}, torch::kLong);
            auto other = x.clone();
            other.narrow(0, 1, 3).mul_(3.0); // every sample but the first changes
            const double moved = (d->forward(x, y)[0] - d->forward(other, y)[0]).abs().item<double>();
            QVERIFY2(batchNorm ? moved > 1e-4 : moved == 0.0, qPrintable(QString::number(moved)));
        }
    }

    // `--d-norm batch-detached` normalises exactly as the preset's batch norm does in the forward
    // (the same scores and running statistics from the same weights), but a score's gradient
    // reaches its own sample only; the preset's reaches every sample of the batch.
    void detached_batch_norm_d_forwards_as_batch_norm_and_backpropagates_per_sample()
    {
        const auto [batch, detached] = presetAndVariantD(DNorm::BatchDetached, 5);
        const auto y = torch::zeros({6}, torch::kLong);
        const auto x = torch::randn({6, 1, 32, 32});
        const auto xb = x.clone().requires_grad_(true), xd = x.clone().requires_grad_(true);
        const auto sb = batch->forward(xb, y), sd = detached->forward(xd, y);
        QVERIFY2(relativeGap(sd, sb) < 1e-5, qPrintable(QString::number(relativeGap(sd, sb))));
        const auto bufB = batch->buffers(), bufD = detached->buffers();
        QCOMPARE(bufB.size(), bufD.size());
        for (size_t i = 0; i < bufB.size(); ++i)
            QVERIFY2(relativeGap(bufD[i].to(torch::kDouble), bufB[i].to(torch::kDouble)) < 1e-5, qPrintable(QString::number(i)));
        const auto gb = torch::autograd::grad({sb[0]}, {xb})[0], gd = torch::autograd::grad({sd[0]}, {xd})[0];
        const double otherB = gb.narrow(0, 1, 5).abs().max().item<double>(), otherD = gd.narrow(0, 1, 5).abs().max().item<double>();
        QVERIFY2(otherB > 1e-6, qPrintable(QString::number(otherB)));
        QCOMPARE(otherD, 0.0);
        QVERIFY(gd[0].abs().max().item<double>() > 1e-6);
        // In eval mode both are the same function of the running statistics.
        batch->eval();
        detached->eval();
        torch::NoGradGuard ng;
        QVERIFY(relativeGap(detached->forward(x, y), batch->forward(x, y)) < 1e-6);
    }

    // `--d-norm batch-real`: a real batch is normalised as the preset's D does it (same scores);
    // a fake batch with that real batch's statistics, so a fake's score moves with the real batch
    // and with the fake itself but not with the other fakes. In eval mode it is the preset's D.
    void batch_real_d_normalises_fakes_by_the_real_batch()
    {
        const auto [batch, ref] = presetAndVariantD(DNorm::BatchReal, 6);
        torch::NoGradGuard ng;
        const auto y = torch::zeros({6}, torch::kLong);
        const auto real = torch::randn({6, 1, 32, 32}), fake = torch::randn({6, 1, 32, 32}) * 0.5 + 0.3;
        QVERIFY(relativeGap(ref->forward(real, y), batch->forward(real, y)) < 1e-5);
        auto judge = [&](const torch::Tensor& x) {
            ref->setJudgingFakes(true);
            const auto s = ref->forward(x, y);
            ref->setJudgingFakes(false);
            return s;
        };
        const auto s = judge(fake);
        auto others = fake.clone();
        others.narrow(0, 1, 5).mul_(3.0);
        QCOMPARE((judge(others)[0] - s[0]).abs().item<double>(), 0.0);            // other fakes: no effect
        QVERIFY((judge(fake * 2.0)[0] - s[0]).abs().item<double>() > 1e-4);       // its own pixels do
        // Normalised by the real batch's statistics, not its own: a batch's own normalisation
        // would cancel a common scale of every fake's features, the real batch's does not.
        QVERIFY(relativeGap(s, batch->forward(fake, y)) > 1e-3);
        ref->forward(real * 2.0, y); // another real batch: new statistics
        QVERIFY((judge(fake)[0] - s[0]).abs().item<double>() > 1e-4);
        copyModule(*ref, *batch); // the running statistics too (the preset's followed the fakes as well)
        batch->eval();
        ref->eval();
        QVERIFY(relativeGap(judge(fake), batch->forward(fake, y)) < 1e-6);
    }

    // The per-score factor (dL_G/ds) / (dL_D/ds): bce -exp(-s) (-1 at 0, -1/3 at ln 3), hinge -1
    // inside the margin; none where D's own number vanishes (hinge at s <= -1, where D's loss sends
    // nothing back) or underflows (bce far below zero): the trainer takes two passes there.
    // Packs share their score's factor.
    void single_d_backward_factor_per_score()
    {
        const auto f = gInputGradFactor("bce", torch::tensor({0.0f, float(std::log(3.0))}), 2, 2);
        QCOMPARE(f.sizes().vec(), (std::vector<int64_t>{4, 1}));
        QVERIFY(std::abs(f[0][0].item<double>() + 1) < 1e-6 && std::abs(f[1][0].item<double>() + 1) < 1e-6);
        QVERIFY(std::abs(f[2][0].item<double>() + 1.0 / 3) < 1e-6 && std::abs(f[3][0].item<double>() + 1.0 / 3) < 1e-6);
        QCOMPARE(gInputGradFactor("hinge", torch::tensor({0.5f, -0.5f}), 1, 4).sizes().vec(), (std::vector<int64_t>{2, 1, 1, 1}));
        QCOMPARE(gInputGradFactor("hinge", torch::tensor({0.5f, -0.5f}), 1, 1)[1].item<double>(), -1.0);
        QVERIFY(!gInputGradFactor("hinge", torch::tensor({0.5f, -1.5f}), 1, 4).defined());
        QVERIFY(!gInputGradFactor("bce", torch::tensor({0.5f, -60.0f}), 1, 4).defined());
        QVERIFY(gInputGradFactor("bce", torch::tensor({0.5f, -40.0f}), 1, 4).defined());
        // Minimax: -1 at every score, also where D's own number underflows (G's does as well).
        const auto m = gInputGradFactor("minimax", torch::tensor({0.5f, -60.0f}), 2, 2);
        QCOMPARE(m.sizes().vec(), (std::vector<int64_t>{4, 1}));
        QCOMPARE(m.min().item<double>(), -1.0);
        QCOMPARE(m.max().item<double>(), -1.0);
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
