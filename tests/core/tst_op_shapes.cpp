// Shape rules of the op families (core/ops) and the shape-fill pass, on graphs built in memory,
// plus the real bert_mini_4l export with dims bound.
#include "core/onnx/onnx_importer.h"
#include "core/ops/op_registry.h"
#include "core/ops/shape_fill.h"
#include "op_test_graph.h"
#include "tests/common/shared_models.h"

#include <QtTest>

#include <algorithm>
#include <climits>
#include <stdexcept>

using namespace tapas;
using namespace tapas::testing;

namespace {
constexpr int64_t kInt64Max = INT64_MAX;
constexpr int64_t kInt64Min = INT64_MIN;

QString s(const Shape& shape) { return QString::fromStdString(shape.toString()); }
QString s(const TestGraph& tg, TensorId t) { return s(tg.shape(t)); }
} // namespace

class TstOpShapes : public QObject {
    Q_OBJECT
private slots:
    void a_throwing_shape_rule_is_reported_naming_the_node_and_op()
    {
        // A registry whose Relu rule throws as a rule might on a hostile file; Identity's is the real one.
        OpRegistry rules;
        rules.beginFamily("test");
        const OpDef* identity = OpRegistry::instance().find("Identity");
        QVERIFY(identity);
        rules.add(*identity);
        OpDef relu = *OpRegistry::instance().find("Relu");
        relu.inferShape = [](ShapeContext&) { throw std::out_of_range("vector::_M_range_check: 7 >= 2"); };
        rules.add(relu);
        TestGraph tg;
        const TensorId x = tg.input("x", Shape::of({2, 3}));
        const TensorId r = tg.op("Relu", {x});
        const TensorId y = tg.op("Identity", {r});
        const TensorId z = tg.op("Identity", {x});
        const ShapeFillReport report = fillMissingShapes(tg.g, rules);
        QCOMPARE(int(report.ruleFailures.size()), 1);
        const QString failure = QString::fromStdString(report.ruleFailures[0]);
        const QString node = QString::fromStdString(tg.g.node(tg.g.tensor(r).producer).name);
        QVERIFY2(failure.contains(QStringLiteral("node '%1' (Relu)").arg(node)), qPrintable(failure));
        QVERIFY2(failure.contains(QLatin1String("7 >= 2")), qPrintable(failure));
        // The other nodes' rules still ran; the failed node's output stays unknown and is listed.
        QCOMPARE(s(tg, z), QString("[2,3]"));
        QVERIFY(!tg.g.tensor(r).shape.rankKnown);
        QVERIFY(!tg.g.tensor(y).shape.rankKnown);
        QVERIFY(std::find(report.unknown.begin(), report.unknown.end(), tg.g.tensor(r).name) != report.unknown.end());
        // The global rules do not throw on the same graph.
        QVERIFY(fillMissingShapes(tg.g).ruleFailures.empty());
        QCOMPARE(s(tg, r), QString("[2,3]"));
    }

    void slice_handles_negative_clamped_and_int_max_bounds()
    {
        TestGraph tg;
        const TensorId x = tg.input("x", Shape::of({2, 10, 768}));
        const TensorId tail = tg.op("Slice", {x, tg.ints("s0", {-3}), tg.ints("e0", {kInt64Max}), tg.ints("a0", {1})});
        const TensorId strided = tg.op("Slice", {x, tg.ints("s1", {1}), tg.ints("e1", {-1}), tg.ints("a1", {1}), tg.ints("st1", {2})});
        const TensorId reversed = tg.op("Slice", {x, tg.ints("s2", {-1}), tg.ints("e2", {kInt64Min}), tg.ints("a2", {-1}), tg.ints("st2", {-1})});
        const TensorId beyond = tg.op("Slice", {x, tg.ints("s3", {20}), tg.ints("e3", {30}), tg.ints("a3", {1})});
        const TensorId noAxes = tg.op("Slice", {x, tg.ints("s4", {0, 2}), tg.ints("e4", {1, 2147483647})});
        fillMissingShapes(tg.g);
        QCOMPARE(s(tg, tail), QString("[2,3,768]"));
        QCOMPARE(s(tg, strided), QString("[2,4,768]")); // 1,3,5,7
        QCOMPARE(s(tg, reversed), QString("[2,10,768]"));
        QCOMPARE(s(tg, beyond), QString("[2,0,768]"));
        QCOMPARE(s(tg, noAxes), QString("[1,8,768]"));
        QCOMPARE(tg.g.tensor(tail).dtype, DType::Float32);
    }

    // torch's F.pad export: the [dims, 2] pad table built from shapes is reversed by a Slice with
    // step -1 and transposed, then flattened into Pad's pads. The values must survive, or every
    // shape after the Pad is lost (Silero VAD's STFT).
    void pad_table_reversed_and_transposed_keeps_its_values()
    {
        TestGraph tg;
        const TensorId x = tg.input("x", Shape::of({2, 512}));
        const TensorId table = tg.op("Reshape", {tg.ints("flat", {0, 64, 0, 0}), tg.ints("to", {-1, 2})});
        const TensorId reversed = tg.op("Slice", {table, tg.ints("s", {-1}), tg.ints("e", {kInt64Min}), tg.ints("a", {0}), tg.ints("st", {-1})});
        const TensorId swapped = tg.op("Transpose", {reversed}, {intsAttr("perm", {1, 0})});
        const TensorId pads = tg.op("Reshape", {swapped, tg.ints("to1", {-1})});
        const TensorId padded = tg.op("Pad", {x, pads}, {strAttr("mode", "reflect")});
        const TensorId corner = tg.op("Slice", {table, tg.ints("s2", {1, 1}), tg.ints("e2", {2, 2}), tg.ints("a2", {0, 1})});
        fillMissingShapes(tg.g);
        QVERIFY(tg.g.tensor(reversed).value && tg.g.tensor(swapped).value);
        QCOMPARE(tg.g.tensor(reversed).value->ints, (std::vector<int64_t>{0, 0, 0, 64}));
        QCOMPARE(tg.g.tensor(swapped).value->ints, (std::vector<int64_t>{0, 0, 0, 64}));
        QCOMPARE(s(tg, padded), QString("[2,576]"));
        QVERIFY(tg.g.tensor(corner).value);
        QCOMPARE(tg.g.tensor(corner).value->ints, (std::vector<int64_t>{0}));
        QCOMPARE(s(tg, corner), QString("[1,1]"));
        // A non-square transpose permutes the elements.
        TestGraph t2;
        const TensorId m = t2.op("Reshape", {t2.ints("v", {1, 2, 3, 4, 5, 6}), t2.ints("to", {2, 3})});
        const TensorId mt = t2.op("Transpose", {m}, {intsAttr("perm", {1, 0})});
        fillMissingShapes(t2.g);
        QVERIFY(t2.g.tensor(mt).value);
        QCOMPARE(t2.g.tensor(mt).value->ints, (std::vector<int64_t>{1, 4, 2, 5, 3, 6}));
        QCOMPARE(s(t2, mt), QString("[3,2]"));
    }

    void slice_attribute_form_of_opset_9()
    {
        TestGraph tg;
        const TensorId x = tg.input("x", Shape::of({4, 6}));
        const TensorId y = tg.op("Slice", {x}, {intsAttr("starts", {1}), intsAttr("ends", {-1}), intsAttr("axes", {1})});
        fillMissingShapes(tg.g);
        QCOMPARE(s(tg, y), QString("[4,4]"));
    }

    void slice_fills_packed_qkv_thirds_with_symbolic_batch()
    {
        // The q/k/v Slices after a packed in-projection: ONNX inference leaves them empty.
        TestGraph tg;
        const TensorId x = tg.input("x", {sym("seq"), sym("batch"), num(768)});
        const TensorId axis = tg.ints("axis", {-1});
        std::vector<TensorId> parts;
        for (int i = 0; i < 3; ++i)
            parts.push_back(tg.op("Slice", {x, tg.ints("b" + std::to_string(i), {256 * i}),
                                            tg.ints("e" + std::to_string(i), {256 * (i + 1)}), axis}));
        const ShapeFillReport r = fillMissingShapes(tg.g);
        for (TensorId p : parts) QCOMPARE(s(tg, p), QString("[seq,batch,256]"));
        QCOMPARE(r.filled, 3);
        QVERIFY(r.unknown.empty());
    }

    void slice_of_symbolic_axis_is_unknown_unless_whole_or_ended_by_a_symbol()
    {
        TestGraph tg;
        const TensorId x = tg.input("x", {sym("batch"), sym("seq")});
        const TensorId part = tg.op("Slice", {x, tg.ints("s", {0}), tg.ints("e", {5}), tg.ints("a", {1})});
        const TensorId whole = tg.op("Slice", {x, tg.ints("s2", {0}), tg.ints("e2", {kInt64Max}), tg.ints("a2", {1})});
        // x[:, :seq] on a max-positions buffer, the end taken from Shape(ids)[1].
        const TensorId buffer = tg.weight("pos", Shape::of({1, 1024}), DType::Int64);
        const TensorId seqEnd = tg.op("Unsqueeze", {tg.op("Gather", {tg.op("Shape", {x}), tg.ints("i1", {1}, true)}),
                                                    tg.ints("u", {0})});
        const TensorId positions = tg.op("Slice", {buffer, tg.ints("s3", {0}), seqEnd, tg.ints("a3", {1})});
        fillMissingShapes(tg.g);
        QCOMPARE(s(tg, part), QString("[batch,?]")); // min(seq, 5) is not knowable
        QCOMPARE(s(tg, whole), QString("[batch,seq]"));
        QCOMPARE(s(tg, positions), QString("[1,seq]"));
        bindDims(tg.g, {{"seq", 100}});
        QCOMPARE(s(tg, positions), QString("[1,100]"));
    }

    void reshape_copies_zero_infers_minus_one_and_honours_allowzero()
    {
        TestGraph tg;
        const TensorId x = tg.input("x", Shape::of({2, 128, 768}));
        const TensorId heads = tg.op("Reshape", {x, tg.ints("t", {0, 0, 12, -1})});
        const TensorId flat = tg.op("Reshape", {x, tg.ints("t2", {-1})});
        const TensorId z = tg.input("z", Shape::of({0, 4}));
        const TensorId zero = tg.op("Reshape", {z, tg.ints("t3", {0, 4})}, {intAttr("allowzero", 1)});
        const TensorId y = tg.input("y", {sym("batch"), sym("seq"), num(768)});
        const TensorId symb = tg.op("Reshape", {y, tg.ints("t4", {0, -1, 64})});
        fillMissingShapes(tg.g);
        QCOMPARE(s(tg, heads), QString("[2,128,12,64]"));
        QCOMPARE(s(tg, flat), QString("[196608]"));
        QCOMPARE(s(tg, zero), QString("[0,4]"));
        // -1 = batch*seq*768 / (batch*64): exact as a product of symbols.
        QCOMPARE(s(tg, symb), QString("[batch,12*seq,64]"));
        bindDims(tg.g, {{"batch", 2}, {"seq", 10}});
        QCOMPARE(s(tg, symb), QString("[2,120,64]"));
    }

    void unsqueeze_and_squeeze_in_both_opset_styles()
    {
        TestGraph tg;
        const TensorId x = tg.input("x", Shape::of({3, 4}));
        const TensorId uAttr = tg.op("Unsqueeze", {x}, {intsAttr("axes", {0, -1})});   // opset 11
        const TensorId uInput = tg.op("Unsqueeze", {x, tg.ints("ax", {1})});          // opset 13
        const TensorId sAttr = tg.op("Squeeze", {uAttr}, {intsAttr("axes", {0})});
        const TensorId sInput = tg.op("Squeeze", {uAttr, tg.ints("ax2", {-1})});
        const TensorId sAll = tg.op("Squeeze", {uAttr});
        fillMissingShapes(tg.g);
        QCOMPARE(s(tg, uAttr), QString("[1,3,4,1]"));
        QCOMPARE(s(tg, uInput), QString("[3,1,4]"));
        QCOMPARE(s(tg, sAttr), QString("[3,4,1]"));
        QCOMPARE(s(tg, sInput), QString("[1,3,4]"));
        QCOMPARE(s(tg, sAll), QString("[3,4]"));
    }

    void split_equal_explicit_and_uneven()
    {
        TestGraph tg;
        const TensorId x = tg.input("x", {sym("batch"), num(2304)});
        const auto equal = tg.node("Split", {x}, 3, {intAttr("axis", 1)});
        const auto explicitIn = tg.node("Split", {x, tg.ints("sp", {256, 2048})}, 2, {intAttr("axis", -1)});
        const auto explicitAttr = tg.node("Split", {x}, 2, {intAttr("axis", 1), intsAttr("split", {2300, 4})});
        const TensorId ten = tg.input("t", Shape::of({10}));
        const auto uneven = tg.node("Split", {ten}, 3, {intAttr("num_outputs", 3)});
        const TensorId sq = tg.input("sq", {sym("n")});
        const auto symbolic = tg.node("Split", {sq}, 2);
        fillMissingShapes(tg.g);
        for (TensorId t : equal) QCOMPARE(s(tg, t), QString("[batch,768]"));
        QCOMPARE(s(tg, explicitIn[0]), QString("[batch,256]"));
        QCOMPARE(s(tg, explicitIn[1]), QString("[batch,2048]"));
        QCOMPARE(s(tg, explicitAttr[1]), QString("[batch,4]"));
        QCOMPARE(s(tg, uneven[0]), QString("[4]"));
        QCOMPARE(s(tg, uneven[2]), QString("[2]"));
        QCOMPARE(s(tg, symbolic[0]), QString("[?]")); // n/2 is not a product of symbols
    }

    void conv_output_sizes_with_pads_strides_dilations_and_auto_pad()
    {
        TestGraph tg;
        const TensorId x = tg.input("x", {sym("N"), num(3), num(224), num(224)});
        const TensorId stem = tg.op("Conv", {x, tg.weight("w", Shape::of({64, 3, 7, 7}))},
                                    {intsAttr("strides", {2, 2}), intsAttr("pads", {3, 3, 3, 3})});
        const TensorId odd = tg.input("odd", Shape::of({1, 8, 225, 31}));
        const TensorId same = tg.op("Conv", {odd, tg.weight("w2", Shape::of({16, 8, 3, 3}))},
                                    {intsAttr("strides", {2, 2}), strAttr("auto_pad", "SAME_UPPER")});
        const TensorId dil = tg.op("Conv", {odd, tg.weight("w3", Shape::of({16, 4, 3, 3}))},
                                   {intsAttr("dilations", {2, 2}), intAttr("group", 2)});
        const TensorId valid = tg.op("Conv", {odd, tg.weight("w4", Shape::of({4, 8, 5, 5}))},
                                     {intsAttr("strides", {3, 3}), strAttr("auto_pad", "VALID")});
        const TensorId seq = tg.input("seq", {num(1), num(8), sym("H"), sym("W")});
        const TensorId keep = tg.op("Conv", {seq, tg.weight("w5", Shape::of({8, 8, 3, 3}))}, {intsAttr("pads", {1, 1, 1, 1})});
        fillMissingShapes(tg.g);
        QCOMPARE(s(tg, stem), QString("[N,64,112,112]"));
        QCOMPARE(s(tg, same), QString("[1,16,113,16]"));
        QCOMPARE(s(tg, dil), QString("[1,16,221,27]")); // effective kernel 5
        QCOMPARE(s(tg, valid), QString("[1,4,74,9]"));
        QCOMPARE(s(tg, keep), QString("[1,8,H,W]"));
    }

    void pooling_sizes_with_ceil_mode_and_global_pools()
    {
        TestGraph tg;
        const TensorId x = tg.input("x", Shape::of({1, 64, 112, 112}));
        const TensorId mp = tg.node("MaxPool", {x}, 2, {intsAttr("kernel_shape", {3, 3}), intsAttr("strides", {2, 2}),
                                                      intsAttr("pads", {1, 1, 1, 1})})[0];
        const TensorId y = tg.input("y", Shape::of({1, 2, 5, 6}));
        const TensorId ceil = tg.op("MaxPool", {y}, {intsAttr("kernel_shape", {2, 2}), intsAttr("strides", {2, 2}), intAttr("ceil_mode", 1)});
        // With a pad, the last ceil window would start in the right pad only: it is dropped.
        const TensorId ceilPad = tg.op("AveragePool", {y}, {intsAttr("kernel_shape", {2, 2}), intsAttr("strides", {2, 2}),
                                                            intsAttr("pads", {1, 1, 1, 1}), intAttr("ceil_mode", 1)});
        const TensorId gap = tg.op("GlobalAveragePool", {x});
        fillMissingShapes(tg.g);
        QCOMPARE(s(tg, mp), QString("[1,64,56,56]"));
        QCOMPARE(s(tg, ceil), QString("[1,2,3,3]"));
        QCOMPARE(s(tg, ceilPad), QString("[1,2,3,4]"));
        QCOMPARE(s(tg, gap), QString("[1,64,1,1]"));
        QCOMPARE(tg.g.tensor(tg.g.nodes[0].outputs[1]).dtype, DType::Int64); // MaxPool indices
    }

    void conv_transpose_with_output_padding_output_shape_and_groups()
    {
        TestGraph tg;
        const TensorId z = tg.input("z", Shape::of({1, 100, 1, 1}));
        const TensorId first = tg.op("ConvTranspose", {z, tg.weight("w0", Shape::of({100, 512, 4, 4}))});
        const TensorId up = tg.op("ConvTranspose", {first, tg.weight("w1", Shape::of({512, 256, 4, 4}))},
                                  {intsAttr("strides", {2, 2}), intsAttr("pads", {1, 1, 1, 1})});
        const TensorId outPad = tg.op("ConvTranspose", {first, tg.weight("w2", Shape::of({512, 8, 3, 3}))},
                                      {intsAttr("strides", {2, 2}), intsAttr("pads", {1, 1, 1, 1}), intsAttr("output_padding", {1, 1}),
                                       intAttr("group", 4)});
        const TensorId fixed = tg.op("ConvTranspose", {first, tg.weight("w3", Shape::of({512, 3, 3, 3}))},
                                     {intsAttr("strides", {2, 2}), intsAttr("output_shape", {9, 9})});
        fillMissingShapes(tg.g);
        QCOMPARE(s(tg, first), QString("[1,512,4,4]"));
        QCOMPARE(s(tg, up), QString("[1,256,8,8]"));
        QCOMPARE(s(tg, outPad), QString("[1,32,8,8]")); // 2*3 + 1 + 3 - 2
        QCOMPARE(s(tg, fixed), QString("[1,3,9,9]"));
    }

    void matmul_broadcasts_batches_and_handles_vectors()
    {
        TestGraph tg;
        const TensorId a = tg.input("a", Shape::of({2, 1, 128, 64}));
        const TensorId b = tg.input("b", Shape::of({12, 64, 128}));
        const TensorId batched = tg.op("MatMul", {a, b});
        const TensorId v = tg.input("v", Shape::of({64}));
        const TensorId vecMat = tg.op("MatMul", {v, tg.weight("w", Shape::of({64, 10}))});
        const TensorId matVec = tg.op("MatMul", {tg.input("m", Shape::of({3, 4, 64})), v});
        const TensorId x = tg.input("x", {sym("batch"), sym("seq"), num(768)});
        const TensorId proj = tg.op("MatMul", {x, tg.weight("w2", Shape::of({768, 3072}))});
        fillMissingShapes(tg.g);
        QCOMPARE(s(tg, batched), QString("[2,12,128,128]"));
        QCOMPARE(s(tg, vecMat), QString("[10]"));
        QCOMPARE(s(tg, matVec), QString("[3,4]"));
        QCOMPARE(s(tg, proj), QString("[batch,seq,3072]"));
    }

    void gemm_honours_trans_a_and_trans_b()
    {
        TestGraph tg;
        const TensorId a = tg.input("a", Shape::of({4, 8}));
        const TensorId y = tg.op("Gemm", {a, tg.weight("b", Shape::of({16, 4}))}, {intAttr("transA", 1), intAttr("transB", 1)});
        const TensorId z = tg.op("Gemm", {a, tg.weight("c", Shape::of({8, 5})), tg.weight("bias", Shape::of({5}))});
        fillMissingShapes(tg.g);
        QCOMPARE(s(tg, y), QString("[8,16]"));
        QCOMPARE(s(tg, z), QString("[4,5]"));
    }

    void gather_with_scalar_index_drops_the_axis()
    {
        TestGraph tg;
        const TensorId ids = tg.input("ids", {sym("batch"), sym("seq")}, DType::Int64);
        const TensorId emb = tg.op("Gather", {tg.weight("table", Shape::of({30522, 768})), ids});
        const TensorId x = tg.input("x", Shape::of({2, 3, 4}));
        const TensorId picked = tg.op("Gather", {x, tg.ints("i", {-1}, true)}, {intAttr("axis", 1)});
        const TensorId sh = tg.op("Shape", {ids});
        const TensorId last = tg.op("Gather", {sh, tg.ints("m1", {-1}, true)});
        fillMissingShapes(tg.g);
        QCOMPARE(s(tg, emb), QString("[batch,seq,768]"));
        QCOMPARE(s(tg, picked), QString("[2,4]"));
        QCOMPARE(s(tg, last), QString("[]"));
        QCOMPARE(tg.g.tensor(sh).dtype, DType::Int64);
        QVERIFY(!tg.g.tensor(sh).value); // symbolic shape: no numeric value...
        QCOMPARE(s(tg, sh), QString("[2]")); // ...but the rank
    }

    void concat_of_symbolic_dims()
    {
        TestGraph tg;
        const TensorId a = tg.input("a", {sym("batch"), sym("seq"), num(64)});
        const TensorId b = tg.input("b", {sym("batch"), sym("seq"), num(32)});
        const TensorId c = tg.input("c", {Dim::unknown(), sym("seq"), num(8)});
        const TensorId last = tg.op("Concat", {a, b, c}, {intAttr("axis", -1)});
        const TensorId mid = tg.op("Concat", {a, a}, {intAttr("axis", 1)});
        fillMissingShapes(tg.g);
        QCOMPARE(s(tg, last), QString("[batch,seq,104]"));
        QCOMPARE(s(tg, mid), QString("[batch,?,64]")); // seq+seq is not a product
    }

    void shape_gather_unsqueeze_concat_reshape_chain_keeps_batch_and_seq()
    {
        TestGraph tg;
        const TensorId x = tg.input("x", {sym("batch"), sym("seq"), num(768)});
        const TensorId sh = tg.op("Shape", {x});
        const TensorId b = tg.op("Gather", {sh, tg.ints("i0", {0}, true)});
        const TensorId sq = tg.op("Gather", {sh, tg.ints("i1", {1}, true)});
        const TensorId ub = tg.op("Unsqueeze", {b, tg.ints("ax0", {0})});
        const TensorId us = tg.op("Unsqueeze", {sq}, {intsAttr("axes", {0})}); // opset 11 style
        const TensorId target = tg.op("Concat", {ub, us, tg.ints("h", {12}), tg.ints("d", {64})}, {intAttr("axis", 0)});
        const TensorId y = tg.op("Reshape", {x, target});
        const ShapeFillReport r = fillMissingShapes(tg.g);
        QCOMPARE(s(tg, y), QString("[batch,seq,12,64]"));
        QCOMPARE(s(tg, target), QString("[4]"));
        QVERIFY(!tg.g.tensor(target).value);
        QVERIFY(r.unknown.empty());

        bindDims(tg.g, {{"batch", 8}, {"seq", 128}});
        QCOMPARE(s(tg, y), QString("[8,128,12,64]"));
        QVERIFY(tg.g.tensor(target).value.has_value()); // now folded to numbers
        QCOMPARE(tg.g.tensor(target).value->ints, (std::vector<int64_t>{8, 128, 12, 64}));
    }

    void symbolic_products_of_heads_and_tokens_resolve_when_bound()
    {
        // nn.MultiheadAttention's export: [seq, batch*heads, head_dim] and [seq*batch, d].
        TestGraph tg;
        const TensorId x = tg.input("x", {sym("seq"), sym("batch"), num(256)});
        const TensorId sh = tg.op("Shape", {x});
        const TensorId seq = tg.op("Gather", {sh, tg.ints("i0", {0}, true)});
        const TensorId batch = tg.op("Gather", {sh, tg.ints("i1", {1}, true)});
        const TensorId dim = tg.op("Gather", {sh, tg.ints("i2", {2}, true)});
        const TensorId headDim = tg.op("Cast", {tg.op("Div", {dim, tg.ints("heads", {4}, true)})}, {intAttr("to", 7)});
        const TensorId bh = tg.op("Mul", {batch, tg.ints("heads2", {4}, true)});
        auto u = [&](TensorId t) { return tg.op("Unsqueeze", {t, tg.ints("u" + std::to_string(t), {0})}); };
        const TensorId t1 = tg.op("Concat", {u(seq), u(bh), u(headDim)}, {intAttr("axis", 0)});
        const TensorId perHead = tg.op("Reshape", {x, t1});
        const TensorId tokens = tg.op("Mul", {seq, batch});
        const TensorId t2 = tg.op("Concat", {u(tokens), u(dim)}, {intAttr("axis", 0)});
        const TensorId flat = tg.op("Reshape", {x, t2});
        fillMissingShapes(tg.g);
        QCOMPARE(s(tg, perHead), QString("[seq,4*batch,64]"));
        QCOMPARE(s(tg, flat), QString("[batch*seq,256]"));
        QCOMPARE(tg.g.tensor(headDim).value->ints, std::vector<int64_t>{64});
        bindDims(tg.g, {{"batch", 3}, {"seq", 7}});
        QCOMPARE(s(tg, perHead), QString("[7,12,64]"));
        QCOMPARE(s(tg, flat), QString("[21,256]"));
    }

    void broadcasting_keeps_symbols()
    {
        TestGraph tg;
        const TensorId a = tg.input("a", {sym("seq")});
        const TensorId one = tg.input("one", Shape::of({1}));
        const TensorId scores = tg.input("scores", {sym("batch"), num(12), sym("seq"), sym("seq")});
        const TensorId mask = tg.input("mask", {sym("batch"), num(1), num(1), sym("seq")});
        const TensorId unk = tg.input("unk", {Dim::unknown()});
        const TensorId ss = tg.op("Add", {a, a});
        const TensorId os = tg.op("Mul", {one, a});
        const TensorId masked = tg.op("Add", {scores, mask});
        const TensorId us = tg.op("Sub", {unk, a});
        const TensorId cmp = tg.op("Less", {a, one});
        const TensorId w = tg.op("Where", {cmp, one, a});
        fillMissingShapes(tg.g);
        QCOMPARE(s(tg, ss), QString("[seq]"));
        QCOMPARE(s(tg, os), QString("[seq]"));
        QCOMPARE(s(tg, masked), QString("[batch,12,seq,seq]"));
        QCOMPARE(s(tg, us), QString("[seq]"));
        QCOMPARE(tg.g.tensor(cmp).dtype, DType::Bool);
        QCOMPARE(tg.g.tensor(w).dtype, DType::Float32);
        QCOMPARE(s(tg, w), QString("[seq]"));
    }

    void fill_never_contradicts_a_known_dim_and_refines_placeholders()
    {
        TestGraph tg;
        const TensorId a = tg.input("a", Shape::of({2, 3}));
        const TensorId known = tg.op("Relu", {a});
        const TensorId placeholder = tg.op("Relu", {a});
        const TensorId named = tg.op("Relu", {tg.input("b", {sym("batch"), num(3)})});
        tg.g.tensor(known).shape = Shape::of({2, 7});                                // as if ONNX said so
        tg.g.tensor(placeholder).shape = Shape::ofDims({num(2), sym("unk__4")});
        tg.g.tensor(named).shape = Shape::ofDims({Dim::unknown(), Dim::unknown()});
        fillMissingShapes(tg.g);
        QCOMPARE(s(tg, known), QString("[2,7]"));
        QCOMPARE(s(tg, placeholder), QString("[2,3]"));
        QCOMPARE(s(tg, named), QString("[batch,3]"));
        QCOMPARE(tg.g.tensor(known).dtype, DType::Float32); // the dtype is still filled
    }

    void data_dependent_outputs_stay_partly_unknown_and_unknown_ops_are_reported()
    {
        TestGraph tg;
        const TensorId x = tg.input("x", Shape::of({4, 5}));
        const TensorId nz = tg.op("NonZero", {x});
        const TensorId gathered = tg.op("Transpose", {nz});
        const TensorId opaque = tg.node("MyOp", {x}, 1, {}, "com.example")[0];
        const TensorId sameName = tg.node("Relu", {x}, 1, {}, "com.example")[0]; // not ONNX's Relu
        const ShapeFillReport r = fillMissingShapes(tg.g);
        QCOMPARE(s(tg, nz), QString("[2,?]"));
        QCOMPARE(s(tg, gathered), QString("[?,2]"));
        QVERIFY(!tg.shape(opaque).rankKnown);
        QVERIFY(!tg.shape(sameName).rankKnown);
        QCOMPARE(r.unknown.size(), size_t(2));
        QVERIFY(std::find(r.unknown.begin(), r.unknown.end(), tg.g.tensor(opaque).name) != r.unknown.end());
    }

    void small_constants_fold_through_range_expand_where_and_constant_of_shape()
    {
        TestGraph tg;
        ConstValue five = {DType::Int64, Shape::of({}), {5}, {}};
        const TensorId n = tg.node("Constant", {}, 1, {tensorAttr("value", five)})[0];
        const TensorId range = tg.op("Range", {tg.ints("z", {0}, true), n, tg.ints("one", {1}, true)});
        const TensorId shape = tg.ints("shape", {2, -1});
        const TensorId isNeg = tg.op("Equal", {shape, tg.ints("m1", {-1}, true)});
        const TensorId fixedShape = tg.op("Where", {isNeg, tg.ints("ones", {1}, true), shape});
        const TensorId expanded = tg.op("Expand", {range, fixedShape});
        const TensorId filled = tg.op("ConstantOfShape", {tg.op("Shape", {expanded})},
                                      {tensorAttr("value", ConstValue{DType::Int64, Shape::of({1}), {7}, {}})});
        const TensorId seqLen = tg.op("Gather", {tg.op("Shape", {tg.input("ids", {sym("batch"), sym("seq")})}),
                                                 tg.ints("i", {1}, true)});
        const TensorId positions = tg.op("Range", {tg.ints("z2", {0}, true), seqLen, tg.ints("one2", {1}, true)});
        fillMissingShapes(tg.g);
        QCOMPARE(tg.g.tensor(range).value->ints, (std::vector<int64_t>{0, 1, 2, 3, 4}));
        QCOMPARE(tg.g.tensor(fixedShape).value->ints, (std::vector<int64_t>{2, 1}));
        QCOMPARE(s(tg, expanded), QString("[2,5]"));
        QCOMPARE(tg.g.tensor(expanded).value->ints, (std::vector<int64_t>{0, 1, 2, 3, 4, 0, 1, 2, 3, 4}));
        QCOMPARE(s(tg, filled), QString("[2,5]"));
        QCOMPARE(tg.g.tensor(filled).value->ints, std::vector<int64_t>(10, 7));
        QCOMPARE(s(tg, positions), QString("[seq]"));
    }

    void normalisation_reduction_and_misc_rules()
    {
        TestGraph tg;
        const TensorId x = tg.input("x", {sym("batch"), sym("seq"), num(768)});
        const auto ln = tg.node("LayerNormalization", {x, tg.weight("g", Shape::of({768}))}, 3, {intAttr("axis", -1)});
        const TensorId meanAttr = tg.op("ReduceMean", {x}, {intsAttr("axes", {-1})});
        const TensorId sumInput = tg.op("ReduceSum", {x, tg.ints("ax", {1})}, {intAttr("keepdims", 0)});
        const TensorId arg = tg.op("ArgMax", {x}, {intAttr("axis", -1), intAttr("keepdims", 0)});
        const auto topk = tg.node("TopK", {x, tg.ints("k", {5})}, 2);
        const TensorId img = tg.input("img", {sym("N"), num(512), num(1), num(1)});
        const TensorId flat = tg.op("Flatten", {img});
        const TensorId pad = tg.op("Pad", {tg.input("p", Shape::of({1, 3, 10, 10})), tg.ints("pads", {0, 0, 1, 2, 0, 0, 3, 4})});
        const TensorId hot = tg.op("OneHot", {tg.input("cls", {sym("N")}, DType::Int64), tg.ints("depth", {10}, true),
                                              tg.weight("vals", Shape::of({2}))});
        const TensorId ein = tg.op("Einsum", {tg.input("q", {sym("b"), num(12), sym("s"), num(64)}),
                                              tg.input("k", {sym("b"), num(12), sym("s"), num(64)})},
                                   {strAttr("equation", "bhqd,bhkd->bhqk")});
        const TensorId up = tg.op("Resize", {img, kNoTensor, tg.weight("sc", Shape::of({4}))});
        tg.g.tensor(tg.g.nodes.back().inputs[2]).value = ConstValue{DType::Float32, Shape::of({4}), {}, {1, 1, 2, 2}};
        const TensorId sized = tg.op("Resize", {img, kNoTensor, kNoTensor, tg.ints("sizes", {1, 512, 7, 7})});
        fillMissingShapes(tg.g);
        QCOMPARE(s(tg, ln[0]), QString("[batch,seq,768]"));
        QCOMPARE(s(tg, ln[1]), QString("[batch,seq,1]"));
        QCOMPARE(s(tg, meanAttr), QString("[batch,seq,1]"));
        QCOMPARE(s(tg, sumInput), QString("[batch,768]"));
        QCOMPARE(s(tg, arg), QString("[batch,seq]"));
        QCOMPARE(tg.g.tensor(arg).dtype, DType::Int64);
        QCOMPARE(s(tg, topk[0]), QString("[batch,seq,5]"));
        QCOMPARE(tg.g.tensor(topk[1]).dtype, DType::Int64);
        QCOMPARE(s(tg, flat), QString("[N,512]"));
        QCOMPARE(s(tg, pad), QString("[1,3,14,16]"));
        QCOMPARE(s(tg, hot), QString("[N,10]"));
        QCOMPARE(s(tg, ein), QString("[b,12,s,s]"));
        QCOMPARE(s(tg, up), QString("[N,512,2,2]"));
        QCOMPARE(s(tg, sized), QString("[1,512,7,7]"));
    }

    void every_op_the_shared_models_use_has_a_rule_and_a_cost()
    {
        // The op census of ../shared/models (bert_mini_4l, resnet18, mobilenet_v2, ppocr cls).
        const char* ops[] = {"Add", "BatchNormalization", "Cast", "Clip", "Concat", "Constant", "Conv", "Div", "Erf",
                             "Flatten", "Gather", "Gemm", "GlobalAveragePool", "HardSigmoid", "Identity", "MatMul",
                             "MaxPool", "Mul", "Pow", "ReduceMean", "Relu", "Reshape", "Shape", "Slice", "Softmax",
                             "Sqrt", "Sub", "Transpose", "Unsqueeze"};
        for (const char* op : ops) {
            const OpDef* def = OpRegistry::instance().find(op);
            QVERIFY2(def && def->inferShape && def->cost, op);
        }
    }

    void bert_mini_with_bound_dims_has_every_activation_shape_known()
    {
        TAPAS_NEEDS_SHARED_MODEL("bert_mini_4l.onnx");
        const std::string path = tapas::testing::sharedModelPath("bert_mini_4l.onnx");
        ImportOptions opt;
        opt.dims = {{"batch", 2}, {"seq", 16}};
        Result<Graph> g = importOnnxFile(path, opt);
        QVERIFY2(g.ok(), g.error().c_str());
        int activations = 0;
        for (const Tensor& t : g->tensors) {
            if (t.kind != TensorKind::Activation) continue;
            ++activations;
            QVERIFY2(t.shape.isFullyKnown(), (t.name + " " + t.shape.toString()).c_str());
        }
        QVERIFY(activations > 300);
        const TensorId qkv = g->findTensor("/enc/layers.0/self_attn/Reshape_output_0");
        QVERIFY(qkv != kNoTensor);
        QCOMPARE(s(g->tensor(qkv).shape), QString("[16,8,64]")); // [seq, batch*heads, head_dim]
    }

    void bert_mini_unbound_keeps_batch_and_seq_symbolic()
    {
        TAPAS_NEEDS_SHARED_MODEL("bert_mini_4l.onnx");
        const std::string path = tapas::testing::sharedModelPath("bert_mini_4l.onnx");
        Result<Graph> g = importOnnxFile(path);
        QVERIFY2(g.ok(), g.error().c_str());
        for (const Tensor& t : g->tensors)
            if (t.kind == TensorKind::Activation) QVERIFY2(t.shape.rankKnown, t.name.c_str());
        const TensorId heads = g->findTensor("/enc/layers.3/self_attn/Reshape_output_0");
        QVERIFY(heads != kNoTensor);
        QCOMPARE(s(g->tensor(heads).shape), QString("[seq,4*batch,64]"));
        bindDims(*g, {{"batch", 2}, {"seq", 16}});
        QCOMPARE(s(g->tensor(heads).shape), QString("[16,8,64]"));
    }
};

QTEST_GUILESS_MAIN(TstOpShapes)
#include "tst_op_shapes.moc"
