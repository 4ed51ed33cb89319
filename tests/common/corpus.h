#pragma once
// The corpus of real ONNX exports in tests/data/corpus (made by scripts/make_corpus.py): every
// file with what its manifest says (producer, origin, opset, nodes, weights kept or not) and
// what a person expects it to fold into (tests/data/corpus_expected.json, written before the
// fold ran). The fold, draw, search and run suites all read it through here.
#include <nlohmann/json.hpp>

#include <QtTest>

#include <algorithm>
#include <fstream>
#include <string>
#include <vector>

namespace tapas::testing {

struct CorpusModel {
    std::string file;   // name inside corpusDir()
    std::string path;   // full path
    std::string producer;
    std::string producerVersion;
    std::string origin;
    int opset = 0;
    int nodes = 0;      // main-graph nodes in the file
    bool weightsKept = false;
    bool scrubbed = false;
    int64_t bytes = 0;
    std::vector<int> expectedRepeats; // sorted; see corpus_expected.json
    std::string read;                 // how a person reads the architecture
};

inline std::string corpusDir()
{
    return std::string(TAPAS_SOURCE_DIR) + "/tests/data/corpus";
}

inline nlohmann::json readJsonFile(const std::string& path)
{
    std::ifstream in(path);
    if (!in) qFatal("cannot read %s", path.c_str());
    return nlohmann::json::parse(in);
}

// Every model of the manifest, in file order, with its expectation (a model the expectations
// do not list fails here: the corpus and what we expect of it are kept together).
inline std::vector<CorpusModel> loadCorpus()
{
    const nlohmann::json manifest = readJsonFile(corpusDir() + "/manifest.json");
    const nlohmann::json expected =
        readJsonFile(std::string(TAPAS_SOURCE_DIR) + "/tests/data/corpus_expected.json")["models"];
    std::vector<CorpusModel> out;
    for (const nlohmann::json& m : manifest["models"]) {
        CorpusModel c;
        c.file = m["file"].get<std::string>();
        c.path = corpusDir() + "/" + c.file;
        c.producer = m.value("producer", "");
        c.producerVersion = m.value("producer_version", "");
        c.origin = m.value("origin", "");
        c.opset = m.value("opset", 0);
        c.nodes = m.value("nodes", 0);
        c.weightsKept = m.value("weights", "").rfind("kept", 0) == 0;
        c.scrubbed = m.value("scrubbed", false);
        c.bytes = m.value("bytes", int64_t(0));
        if (!expected.contains(c.file)) qFatal("corpus_expected.json has no entry for %s", c.file.c_str());
        c.expectedRepeats = expected[c.file]["repeats"].get<std::vector<int>>();
        std::sort(c.expectedRepeats.begin(), c.expectedRepeats.end());
        c.read = expected[c.file].value("read", "");
        out.push_back(std::move(c));
    }
    return out;
}

} // namespace tapas::testing
