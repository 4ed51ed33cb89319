#!/usr/bin/python3
"""Writes the small models tst_exec_kernels checks the executor against, with torch's own
outputs and input gradients: ONNX exports of torch.nn.LSTM / GRU / RNN (the exporter writes the
ONNX LSTM/GRU/RNN ops: gate orders iofc / zrh, GRU linear_before_reset=1), an LSTM whose node is
given sequence_lens (expected values from torch run on each sample cut to its length), and a
scripted module with an If on the data and a Loop with a trip count (expected from torch).

Run with Debian's /usr/bin/python3 (torch 1.13, onnx 1.12):  /usr/bin/python3 make_models.py
Each model M writes M.onnx, and raw little-endian float32 files M.<tensor>.f32: the inputs
(x, h0, c0), the outputs as the ONNX graph names them (y, h, c), and dx, the gradient of
L = sum(y*y) + sum(h*h) (+ sum(c*c)) with respect to x. Weights are initializers."""
import os
import numpy as np
import onnx
import torch

torch.manual_seed(7)
HERE = os.path.dirname(os.path.abspath(__file__))
SEQ, BATCH, IN, HID = 5, 3, 4, 6


def save(name, **tensors):
    for k, v in tensors.items():
        np.ascontiguousarray(v.detach().numpy().astype(np.float32)).tofile(os.path.join(HERE, f"{name}.{k}.f32"))


def loss(outs):
    return sum((o * o).sum() for o in outs)


def export(name, module, args, inputs, outputs):
    torch.onnx.export(module, args, os.path.join(HERE, name + ".onnx"), input_names=inputs, output_names=outputs,
                      opset_version=14, do_constant_folding=True)


def recurrent(name, cls, bidirectional, with_c):
    m = cls(IN, HID, num_layers=1, bidirectional=bidirectional)
    dirs = 2 if bidirectional else 1
    x = torch.randn(SEQ, BATCH, IN, requires_grad=True)
    h0 = torch.randn(dirs, BATCH, HID)
    if with_c:
        c0 = torch.randn(dirs, BATCH, HID)
        y, (h, c) = m(x, (h0, c0))
        loss([y, h, c]).backward()
        save(name, x=x, h0=h0, c0=c0, y=y, h=h, c=c, dx=x.grad)
        export(name, m, (x, (h0, c0)), ["x", "h0", "c0"], ["y", "h", "c"])
    else:
        y, h = m(x, h0)
        loss([y, h]).backward()
        save(name, x=x, h0=h0, y=y, h=h, dx=x.grad)
        export(name, m, (x, h0), ["x", "h0"], ["y", "h"])


def lstm_with_lengths(name):
    """A bidirectional LSTM node given sequence_lens: each sample stops at its length (forward)
    or starts there (reverse); Y is 0 beyond it. Torch's reference: each sample run alone on
    its cut sequence."""
    m = torch.nn.LSTM(IN, HID, bidirectional=True)
    x = torch.randn(SEQ, BATCH, IN, requires_grad=True)
    h0, c0 = torch.randn(2, BATCH, HID), torch.randn(2, BATCH, HID)
    lens = [5, 2, 4]
    ys, hs, cs = [], [], []
    for b, n in enumerate(lens):
        y, (h, c) = m(x[:n, b:b + 1], (h0[:, b:b + 1], c0[:, b:b + 1]))
        ys.append(torch.cat([y, torch.zeros(SEQ - n, 1, 2 * HID)]))
        hs.append(h)
        cs.append(c)
    y, h, c = torch.cat(ys, 1), torch.cat(hs, 1), torch.cat(cs, 1)
    loss([y, h, c]).backward()
    save(name, x=x, h0=h0, c0=c0, y=y, h=h, c=c, dx=x.grad)
    export(name, m, (x, (h0, c0)), ["x", "h0", "c0"], ["y", "h", "c"])
    path = os.path.join(HERE, name + ".onnx")
    model = onnx.load(path)
    g = model.graph
    g.initializer.append(onnx.helper.make_tensor("lens", onnx.TensorProto.INT32, [BATCH], lens))
    for node in g.node:
        if node.op_type == "LSTM":
            while len(node.input) < 5:
                node.input.append("")
            node.input[4] = "lens"
    onnx.save(model, path)


class Branchy(torch.nn.Module):
    """If on the data (the sign of a sum) choosing one of two linear layers, then a Loop whose
    trip count comes from the data too (3 after the then-branch, 2 after the else) applying a
    third layer to a carried value and summing into a second one."""

    def __init__(self):
        super().__init__()
        self.a = torch.nn.Linear(IN, IN)
        self.b = torch.nn.Linear(IN, IN)
        self.c = torch.nn.Linear(IN, IN)

    def forward(self, x):
        if bool(x.sum() > 0):
            y = torch.tanh(self.a(x))
        else:
            y = torch.sigmoid(self.b(x)) * 2.0
        acc = torch.zeros_like(y)
        for _ in range(int(x.sum() > 0) + 2):
            y = torch.tanh(self.c(y)) + y
            acc = acc + y * 0.5
        return y, acc


def control_flow(name, sign):
    m = torch.jit.script(Branchy())
    x = (torch.rand(BATCH, IN) * sign).requires_grad_(True)
    y, s = m(x)
    loss([y, s]).backward()
    save(name, x=x, y=y, s=s, dx=x.grad)
    torch.onnx.export(m, (x,), os.path.join(HERE, name + ".onnx"), input_names=["x"], output_names=["y", "s"],
                      opset_version=14)


def loop_with_scan_output(name):
    """A Loop written with onnx.helper: trip count 4 from an input, the condition turning false
    after the third iteration, a carried v = v * w + i (w read from the enclosing scope) and a
    scan output 2 * v stacked over the iterations run (3). Expected values by the same loop in
    torch."""
    from onnx import helper, TensorProto as T
    body = helper.make_graph(
        [helper.make_node("Cast", ["i"], ["fi"], to=T.FLOAT),
         helper.make_node("Mul", ["v_in", "w"], ["vw"]),
         helper.make_node("Add", ["vw", "fi"], ["v_out"]),
         helper.make_node("Add", ["v_out", "v_out"], ["scan"]),
         helper.make_node("Constant", [], ["two"], value=helper.make_tensor("two", T.INT64, [], [2])),
         helper.make_node("Less", ["i", "two"], ["c_out"])],
        "body",
        [helper.make_tensor_value_info("i", T.INT64, []), helper.make_tensor_value_info("c_in", T.BOOL, []),
         helper.make_tensor_value_info("v_in", T.FLOAT, [BATCH, IN])],
        [helper.make_tensor_value_info("c_out", T.BOOL, []), helper.make_tensor_value_info("v_out", T.FLOAT, [BATCH, IN]),
         helper.make_tensor_value_info("scan", T.FLOAT, [BATCH, IN])])
    w = torch.randn(BATCH, IN)
    graph = helper.make_graph(
        [helper.make_node("Relu", ["x"], ["x1"]),
         helper.make_node("Loop", ["trips", "", "x1"], ["y", "s"], body=body)],
        name, [helper.make_tensor_value_info("x", T.FLOAT, [BATCH, IN])],
        [helper.make_tensor_value_info("y", T.FLOAT, [BATCH, IN]), helper.make_tensor_value_info("s", T.FLOAT, [3, BATCH, IN])],
        [helper.make_tensor("trips", T.INT64, [], [4]), helper.make_tensor("w", T.FLOAT, [BATCH, IN], w.flatten().tolist())])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 14)])
    model.ir_version = 7
    onnx.save(model, os.path.join(HERE, name + ".onnx"))
    x = torch.randn(BATCH, IN, requires_grad=True)
    v, scans = torch.relu(x), []
    for i in range(4):
        v = v * w + i
        scans.append(v + v)
        if not i < 2:
            break
    s = torch.stack(scans)
    loss([v, s]).backward()
    save(name, x=x, y=v, s=s, dx=x.grad)


recurrent("lstm_bidir", torch.nn.LSTM, True, True)
recurrent("gru", torch.nn.GRU, False, False)
recurrent("rnn_bidir", torch.nn.RNN, True, False)
lstm_with_lengths("lstm_lengths")
control_flow("branchy_then", 1.0)
control_flow("branchy_else", -1.0)
loop_with_scan_output("loop_scan")
