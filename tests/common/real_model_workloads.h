#pragma once
// The runnable real models (their weights in the file) and the workload each trains with: one
// table, read by `tapas bench run` (measured against predicted step time) and by the suite
// tst_run_real_models (each trains, or is refused by name, under three plans). A model added here
// is benchmarked and tested both.
namespace tapas::testing {

struct RealModelCase {
    const char* file;     // under tests/data/corpus, or under the shared models folder when it starts with '/'
    const char* workload; // the dims and batch that `tapas search` and `tapas run` take, e.g. "--dim batch=2"
    const char* expect;   // "ok", or "refused: <text the refusal contains>"
    const char* dpExpect = nullptr; // for the data-parallel plan, when it differs
    // Options for pricing alone, which `tapas bench run` gives its search and `tapas run` does
    // not take (--assume-branch: the branch an If on data takes in this workload).
    const char* pricing = "";
};

// The expectations, one per model (the same for the three plans unless a row says otherwise),
// written down before the suite first ran.
inline constexpr RealModelCase kRealModelCases[] = {
    // torch nn.TransformerEncoder (4 layers, d 64), weights as initializers.
    {"encoder_4l_small.onnx", "--dim seq=16 --dim batch=4", "ok"},
    // openWakeWord classifiers (tf2onnx / torch), fixed batch 1: re-batched to 2.
    {"oww_hello_deepa.onnx", "--batch 2", "ok"},
    // Its classifier ends in an If on the score, whose then-branch runs three more Gemms on
    // weights read from the main graph: the worker runs the branch the data chooses. (First
    // written with --batch 2, expecting the re-batch to work: the search refused it, rightly,
    // since the If's output has no shape to follow. As exported, batch 1: data parallelism has
    // no batch to divide.)
    // Its If runs the verifier only when the detector's score is at least 0.5 (sigmoid >= 0.5):
    // the seeded noise the worker trains on does not wake it, so the step runs the else branch
    // (an Identity; `tapas bench run --profile-nodes` shows the If node alone at 0.01-0.02 ms).
    {"oww_hey_jarvis.onnx", "", "ok", "refused: needs the model's batch axis, and there is none", "--assume-branch If_32=else"},
    // Mel spectrogram front end: STFT as convolutions with stored filters. (First written "ok"
    // for all three; its top-db clamp takes one ReduceMax over the whole tensor, batch included,
    // so data-parallel replicas would clamp against their own samples' max: the search refuses
    // DP, naming the node. Synthetic inputs had hidden it: no value fell below the clamp.)
    {"oww_melspectrogram.onnx", "--dim batch_size=2 --dim samples=16000", "ok", "refused: node 'ReduceMax_24' (ReduceMax) reduces"},
    // tf2onnx Keras model whose batch axis is unnamed ('?'): bound by --batch.
    {"oww_speech_embedding.onnx", "--batch 2", "ok"},
    // paddle2onnx classifier: every weight is a Constant node.
    {"ppocr_mobile_v2_cls.onnx", "--dim p2o.DynamicDimension.0=2 --dim p2o.DynamicDimension.1=48 --dim p2o.DynamicDimension.2=192", "ok"},
    // Silero VAD: its LSTM sits inside an If on the sample rate, with nested Ifs on shapes
    // around it; the bodies run replicated, the convolutions before them are planned. (First
    // run: its STFT's reflect Pad had no kernel, then its outputs had no shape; both fixed.)
    {"silero_vad_16k_op15.onnx", "--dim batch=2 --dim sequence=512", "ok"},
    // The shared real models (torch exports with weights).
    {"/resnet18.onnx", "--dim batch=2", "ok"},
    {"/mobilenet_v2.onnx", "--batch 2", "ok"},
    {"/bert_mini_4l.onnx", "--dim batch=2 --dim seq=32", "ok"},
};

} // namespace tapas::testing
