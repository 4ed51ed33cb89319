// tapas zoo NAME [--layers N --hidden H ...] -o file.onnx ; tapas zoo --list
#include "app/cli/cli_commands.h"
#include "app/cli/cli_common.h"

#include "core/zoo/zoo.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

namespace tapas::cli {

namespace {

// An integer option, the ZooOptions field it fills, and what it means.
struct IntOption {
    const char* name;
    int64_t ZooOptions::*field;
    const char* help;
};

const std::vector<IntOption>& intOptions()
{
    static const std::vector<IntOption> kOptions = {
        {"layers", &ZooOptions::layers, "Transformer layers (T5: encoder layers)."},
        {"hidden", &ZooOptions::hidden, "Hidden size (d_model)."},
        {"heads", &ZooOptions::heads, "Attention heads; must divide --hidden."},
        {"ffn", &ZooOptions::ffn, "Feed-forward inner size (default 4 x hidden)."},
        {"vocab", &ZooOptions::vocab, "Vocabulary size."},
        {"seq", &ZooOptions::seq, "Sequence length (default: symbolic dim 'seq')."},
        {"batch", &ZooOptions::batch, "Batch size (default: symbolic dim 'batch')."},
        {"decoder-layers", &ZooOptions::decoderLayers, "T5 decoder layers (default = --layers)."},
        {"experts", &ZooOptions::experts, "MoE experts per MoE layer (default 8)."},
        {"top-k", &ZooOptions::topK, "MoE experts routed per token (default 2)."},
        {"moe-every", &ZooOptions::moeEvery, "Every N-th layer is an MoE layer (default 2)."},
        {"image-size", &ZooOptions::imageSize, "Input/output image side in pixels."},
        {"patch", &ZooOptions::patch, "ViT patch size."},
        {"classes", &ZooOptions::classes, "Number of classes."},
        {"channels", &ZooOptions::channels, "Image channels."},
        {"width", &ZooOptions::width, "ResNet bottleneck base width (64; wide: 128) / GAN base channels."},
        {"latent", &ZooOptions::latent, "GAN noise size."},
        {"depth", &ZooOptions::depth, "ResNet depth: 18, 34, 50, 101 or 152."},
    };
    return kOptions;
}

std::string joined(const std::vector<std::string>& items)
{
    std::string s;
    for (const std::string& i : items) s += (s.empty() ? "" : " ") + ("--" + i);
    return s;
}

void printList()
{
    std::string text = "Zoo models (weights are declared external in <model>.weights and never written):\n";
    for (const ZooModelInfo& m : zooModels()) {
        text += "\n  " + m.name + "\n      " + m.description + "\n      options: " + joined(m.options) +
                " --opset 14|17 --scrub-names\n";
    }
    printOut(text);
}

} // namespace

int runZoo(const QStringList& args)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "Write a zoo model as ONNX with the op structure torch.onnx.export produces. Weights are "
        "initializers with shapes whose bytes are declared external (<model>.weights) and not "
        "written, so any size fits in a small file. `--list` names the models and their options."));
    parser.addHelpOption();
    parser.addPositionalArgument(QStringLiteral("name"), QStringLiteral("The zoo model (see --list)."));
    parser.addOption({{QStringLiteral("o"), QStringLiteral("output")}, QStringLiteral("The .onnx file to write."),
                      QStringLiteral("file")});
    parser.addOption({QStringLiteral("list"), QStringLiteral("List the models with their options.")});
    for (const IntOption& o : intOptions())
        parser.addOption({QString::fromLatin1(o.name), QString::fromLatin1(o.help), QStringLiteral("n")});
    parser.addOption({QStringLiteral("part"), QStringLiteral("GANs: generator, discriminator or both (default)."),
                      QStringLiteral("part")});
    parser.addOption({QStringLiteral("dropout"),
                      QStringLiteral("gpt: hidden and attention dropout probability, written as training-mode Dropout nodes "
                                     "where Megatron-LM applies them (default 0: none)."),
                      QStringLiteral("p")});
    parser.addOption({QStringLiteral("opset"),
                      QStringLiteral("14 (default: decomposed LayerNorm, like torch 1.13) or 17 (LayerNormalization)."),
                      QStringLiteral("n")});
    parser.addOption({QStringLiteral("scrub-names"),
                      QStringLiteral("Write no node names and opaque tensor names (t0, t1, ...).")});
    int code = kExitOk;
    if (!parseOrExplain(parser, args, &code)) return code;

    if (parser.isSet(QStringLiteral("list"))) {
        printList();
        return kExitOk;
    }
    const QStringList names = parser.positionalArguments();
    if (names.size() != 1) {
        printErr("tapas zoo: expected one model name (see `tapas zoo --list`), got " + std::to_string(names.size()));
        return kExitBadInput;
    }
    const std::string name = names.front().toStdString();
    const auto& models = zooModels();
    const auto model = std::find_if(models.begin(), models.end(), [&](const ZooModelInfo& m) { return m.name == name; });
    if (model == models.end()) {
        std::string known;
        for (const ZooModelInfo& m : models) known += (known.empty() ? "" : ", ") + m.name;
        printErr("tapas zoo: unknown model '" + name + "' (known: " + known + ")");
        return kExitBadInput;
    }
    auto applies = [&](const std::string& option) {
        return std::find(model->options.begin(), model->options.end(), option) != model->options.end();
    };

    ZooOptions options;
    for (const IntOption& o : intOptions()) {
        const QString key = QString::fromLatin1(o.name);
        if (!parser.isSet(key)) continue;
        if (!applies(o.name)) {
            printErr("tapas zoo: --" + std::string(o.name) + " does not apply to " + name + " (it reads: " +
                     joined(model->options) + ")");
            return kExitBadInput;
        }
        bool ok = false;
        const qlonglong v = parser.value(key).toLongLong(&ok);
        if (!ok || v < 1) {
            printErr("tapas zoo: --" + std::string(o.name) + " needs a positive integer, got '" +
                     parser.value(key).toStdString() + "'");
            return kExitBadInput;
        }
        options.*(o.field) = v;
    }
    if (parser.isSet(QStringLiteral("part"))) {
        if (!applies("part")) {
            printErr("tapas zoo: --part does not apply to " + name + " (it reads: " + joined(model->options) + ")");
            return kExitBadInput;
        }
        options.part = parser.value(QStringLiteral("part")).toStdString();
    }
    if (parser.isSet(QStringLiteral("dropout"))) {
        if (!applies("dropout")) {
            printErr("tapas zoo: --dropout does not apply to " + name + " (it reads: " + joined(model->options) + ")");
            return kExitBadInput;
        }
        bool ok = false;
        const double p = parser.value(QStringLiteral("dropout")).toDouble(&ok);
        if (!ok || p < 0 || p >= 1) {
            printErr("tapas zoo: --dropout needs a probability in [0, 1), got '" + parser.value(QStringLiteral("dropout")).toStdString() + "'");
            return kExitBadInput;
        }
        options.dropout = p;
    }
    if (parser.isSet(QStringLiteral("opset"))) {
        const QString v = parser.value(QStringLiteral("opset"));
        if (v != QLatin1String("14") && v != QLatin1String("17")) {
            printErr("tapas zoo: --opset must be 14 or 17, got '" + v.toStdString() + "'");
            return kExitBadInput;
        }
        options.opset = v.toInt();
    }
    options.scrubNames = parser.isSet(QStringLiteral("scrub-names"));

    const QString out = parser.value(QStringLiteral("output"));
    if (out.isEmpty()) {
        printErr("tapas zoo: name the output file with -o file.onnx");
        return kExitBadInput;
    }
    const Status written = writeZooModel(name, options, out.toStdString());
    if (!written.ok()) {
        printErr("tapas zoo: " + written.error);
        // A bad size is the user's input; a write failure is the job failing.
        return written.error.rfind("zoo model", 0) == 0 || written.error.rfind("--", 0) == 0 ? kExitBadInput
                                                                                                : kExitFailed;
    }
    printOut("wrote " + name + " to " + out.toStdString() + " (weights declared external in " + name +
             ".weights, not written)");
    return kExitOk;
}

} // namespace tapas::cli
