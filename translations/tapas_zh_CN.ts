<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN" sourcelanguage="en">
    <context>
        <name>tapas::ImportStage</name>
        <message>
            <location filename="../app/studio/main_window.cpp" line="+44" />
            <source>reading</source>
            <translation>读取</translation>
        </message>
        <message>
            <location line="+1" />
            <source>parsing</source>
            <translation>解析</translation>
        </message>
        <message>
            <location line="+1" />
            <source>dropping weight data</source>
            <translation>丢弃权重数据</translation>
        </message>
        <message>
            <location line="+1" />
            <source>checking node order</source>
            <translation>检查节点顺序</translation>
        </message>
        <message>
            <location line="+1" />
            <source>shape inference</source>
            <translation>形状推断</translation>
        </message>
        <message>
            <location line="+1" />
            <source>checking the model</source>
            <translation>检查模型</translation>
        </message>
        <message>
            <location line="+1" />
            <source>converting</source>
            <translation>转换</translation>
        </message>
        <message>
            <location line="+1" />
            <source>filling shapes</source>
            <translation>补全形状</translation>
        </message>
        <message>
            <location line="+1" />
            <source>done</source>
            <translation>完成</translation>
        </message>
        <message>
            <location line="+1" />
            <source>summarizing</source>
            <translation>汇总</translation>
        </message>
    </context>
    <context>
        <name>tapas::LogModel</name>
        <message>
            <location filename="../views/log_model.cpp" line="+42" />
            <source>Info</source>
            <translation>信息</translation>
        </message>
        <message>
            <location line="+1" />
            <source>Warning</source>
            <translation>警告</translation>
        </message>
        <message>
            <location line="+1" />
            <source>Error</source>
            <translation>错误</translation>
        </message>
        <message>
            <location line="+38" />
            <source>Time</source>
            <translation>时间</translation>
        </message>
        <message>
            <location line="+1" />
            <source>Severity</source>
            <translation>级别</translation>
        </message>
        <message>
            <location line="+1" />
            <source>Message</source>
            <translation>消息</translation>
        </message>
    </context>
    <context>
        <name>tapas::LogView</name>
        <message>
            <location filename="../views/log_view.cpp" line="+66" />
            <source>Clear Log</source>
            <translation>清空日志</translation>
        </message>
        <message>
            <location line="+1" />
            <source>Copy</source>
            <translation>复制</translation>
        </message>
    </context>
    <context>
        <name>tapas::MainWindow</name>
        <message>
            <location filename="../app/studio/main_window.cpp" line="+38" />
            <source>Removed %1 from the recent files: the file no longer exists.</source>
            <translation>已从最近文件中移除 %1：该文件已不存在。</translation>
        </message>
        <message numerus="yes">
            <location line="+2" />
            <source>%n missing file(s) removed from the recent files.</source>
            <translation>
                <numerusform>已从最近文件中移除 %n 个不存在的文件。</numerusform>
            </translation>
        </message>
        <message>
            <location line="+134" />
            <source>&amp;Open…</source>
            <translation>打开(&amp;O)…</translation>
        </message>
        <message>
            <location line="+1" />
            <source>Open an ONNX model (%1)</source>
            <translation>打开 ONNX 模型（%1）</translation>
        </message>
        <message>
            <location line="+1" />
            <source>Open an ONNX model</source>
            <translation>打开 ONNX 模型</translation>
        </message>
        <message>
            <location line="+1" />
            <source>&amp;Reload</source>
            <translation>重新加载(&amp;R)</translation>
        </message>
        <message>
            <location line="+1" />
            <source>Read the open model from disk again</source>
            <translation>从磁盘重新读取当前模型</translation>
        </message>
        <message>
            <location line="+1" />
            <source>Open &amp;Sample Model</source>
            <translation>打开示例模型(&amp;S)</translation>
        </message>
        <message>
            <location line="+1" />
            <source>Open the GPT sample model that ships with Tapas Studio</source>
            <translation>打开 Tapas Studio 自带的 GPT 示例模型</translation>
        </message>
        <message>
            <location line="+1" />
            <source>&amp;Cancel Loading</source>
            <translation>取消加载(&amp;C)</translation>
        </message>
        <message>
            <location line="+1" />
            <source>&amp;Quit</source>
            <translation>退出(&amp;Q)</translation>
        </message>
        <message>
            <location line="+1" />
            <source>&amp;About Tapas Studio</source>
            <translation>关于 Tapas Studio(&amp;A)</translation>
        </message>
        <message>
            <location line="+1" />
            <source>About &amp;Qt</source>
            <translation>关于 &amp;Qt</translation>
        </message>
        <message>
            <location line="+2" />
            <source>&amp;File</source>
            <translation>文件(&amp;F)</translation>
        </message>
        <message>
            <location line="+1" />
            <source>Open &amp;Recent</source>
            <translation>最近打开(&amp;R)</translation>
        </message>
        <message>
            <location line="+2" />
            <source>&amp;View</source>
            <translation>视图(&amp;V)</translation>
        </message>
        <message>
            <location line="+1" />
            <source>&amp;Settings</source>
            <translation>设置(&amp;S)</translation>
        </message>
        <message>
            <location line="+1" />
            <source>&amp;Language</source>
            <translation>语言(&amp;L)</translation>
        </message>
        <message>
            <location line="+1" />
            <source>&amp;Help</source>
            <translation>帮助(&amp;H)</translation>
        </message>
        <message>
            <location line="+1" />
            <source>Main Toolbar</source>
            <translation>主工具栏</translation>
        </message>
        <message>
            <location line="+1" />
            <source>Log</source>
            <translation>日志</translation>
        </message>
        <message>
            <location line="+1" />
            <source>Cancel</source>
            <translation>取消</translation>
        </message>
        <message>
            <location line="+1" />
            <source>Stop loading and keep the current model</source>
            <translation>停止加载并保留当前模型</translation>
        </message>
        <message>
            <location line="+8" />
            <source>Tapas Studio</source>
            <translation>Tapas Studio</translation>
        </message>
        <message>
            <location line="+2" />
            <source>%1 — Tapas Studio</source>
            <translation>%1 — Tapas Studio</translation>
        </message>
        <message>
            <location line="+17" />
            <source>This build embeds no sample model (%1).</source>
            <translation>此版本未内置示例模型（%1）。</translation>
        </message>
        <message>
            <location line="+16" />
            <source>Open Model</source>
            <translation>打开模型</translation>
        </message>
        <message>
            <location line="+1" />
            <source>ONNX models (*.onnx);;All files (*)</source>
            <translation>ONNX 模型 (*.onnx);;所有文件 (*)</translation>
        </message>
        <message>
            <location line="+15" />
            <source>Opening %1</source>
            <translation>正在打开 %1</translation>
        </message>
        <message>
            <location line="+7" />
            <source>Opening %1: %2…</source>
            <translation>正在打开 %1：%2…</translation>
        </message>
        <message>
            <location line="+15" />
            <source>Opened %1: %2 nodes, %3 parameters, %4 FLOPs per forward pass (%5 ms)</source>
            <translation>已打开 %1：%2 个节点，%3 个参数，每次前向传播 %4 FLOPs（%5 毫秒）</translation>
        </message>
        <message>
            <location line="+5" />
            <source>Opened %1</source>
            <translation>已打开 %1</translation>
        </message>
        <message>
            <location line="+8" />
            <source>Could not open %1</source>
            <translation>无法打开 %1</translation>
        </message>
        <message>
            <location line="+2" />
            <source>Cannot Open Model</source>
            <translation>无法打开模型</translation>
        </message>
        <message>
            <location line="+10" />
            <source>Cancelled opening %1</source>
            <translation>已取消打开 %1</translation>
        </message>
        <message>
            <location line="+1" />
            <source>Loading cancelled</source>
            <translation>已取消加载</translation>
        </message>
        <message>
            <location line="+8" />
            <source>Sample model bundled with Tapas Studio</source>
            <translation>Tapas Studio 自带的示例模型</translation>
        </message>
        <message numerus="yes">
            <location line="+30" />
            <source>%n file(s) dropped; opening the first, %1.</source>
            <translation>
                <numerusform>拖入了 %n 个文件；正在打开第一个：%1。</numerusform>
            </translation>
        </message>
        <message>
            <location line="+7" />
            <source>About Tapas Studio</source>
            <translation>关于 Tapas Studio</translation>
        </message>
        <message>
            <location line="+1" />
            <source>&lt;h3&gt;Tapas Studio %1&lt;/h3&gt;&lt;p&gt;A workbench for planning and running distributed training of large neural networks: fold the repeated blocks of a model, search a sharding plan per unique block, and launch it on a cluster.&lt;/p&gt;</source>
            <translation>&lt;h3&gt;Tapas Studio %1&lt;/h3&gt;&lt;p&gt;用于规划和运行大型神经网络分布式训练的工作台：折叠模型中重复的块，为每个唯一的块搜索切分方案，并在集群上启动训练。&lt;/p&gt;</translation>
        </message>
    </context>
    <context>
        <name>tapas::ModelSummaryView</name>
        <message>
            <location filename="../views/model_summary_view.cpp" line="+280" />
            <source>Untitled model</source>
            <translation>未命名模型</translation>
        </message>
        <message>
            <location line="+9" />
            <source>%1 floating-point operations for one forward pass; symbolic dims not bound with --dim count as 1.</source>
            <translation>一次前向传播的浮点运算次数为 %1；未用 --dim 绑定的符号维度按 1 计算。</translation>
        </message>
        <message>
            <location line="+3" />
            <location line="+1" />
            <source>unknown</source>
            <translation>未知</translation>
        </message>
        <message>
            <location line="+3" />
            <source>none</source>
            <translation>无</translation>
        </message>
        <message>
            <location line="+3" />
            <source>Dims left symbolic. Bind them with --dim name=value, e.g. --dim batch=8.</source>
            <translation>仍为符号的维度。可用 --dim 名称=值 绑定，例如 --dim batch=8。</translation>
        </message>
        <message>
            <location line="+11" />
            <source>No model is open.

Open an ONNX model with File ▸ Open, or drop a .onnx file on this window.</source>
            <translation>尚未打开模型。

请通过 文件 ▸ 打开 来打开 ONNX 模型，或将 .onnx 文件拖到此窗口。</translation>
        </message>
        <message>
            <location line="+2" />
            <source>No warnings.</source>
            <translation>没有警告。</translation>
        </message>
        <message>
            <location line="+1" />
            <source>Nodes</source>
            <translation>节点</translation>
        </message>
        <message>
            <location line="+1" />
            <source>Parameters</source>
            <translation>参数</translation>
        </message>
        <message>
            <location line="+1" />
            <source>Parameter memory</source>
            <translation>参数内存</translation>
        </message>
        <message>
            <location line="+1" />
            <source>FLOPs per forward pass</source>
            <translation>每次前向传播的 FLOPs</translation>
        </message>
        <message>
            <location line="+1" />
            <source>Activation memory</source>
            <translation>激活内存</translation>
        </message>
        <message>
            <location line="+1" />
            <source>ONNX opset</source>
            <translation>ONNX 算子集版本</translation>
        </message>
        <message>
            <location line="+1" />
            <source>Producer</source>
            <translation>生成工具</translation>
        </message>
        <message>
            <location line="+1" />
            <source>Symbolic dims</source>
            <translation>符号维度</translation>
        </message>
        <message>
            <location line="+10" />
            <source>Operators (%1 types)</source>
            <translation>算子（%1 种）</translation>
        </message>
        <message>
            <location line="+1" />
            <source>Inputs (%1)</source>
            <translation>输入（%1）</translation>
        </message>
        <message>
            <location line="+1" />
            <source>Outputs (%1)</source>
            <translation>输出（%1）</translation>
        </message>
        <message>
            <location line="+1" />
            <source>Warnings (%1)</source>
            <translation>警告（%1）</translation>
        </message>
    </context>
    <context>
        <name>tapas::NumberText</name>
        <message>
            <location filename="../views/number_text.cpp" line="+32" />
            <source>%1 (%2 bytes)</source>
            <translation>%1（%2 字节）</translation>
        </message>
    </context>
    <context>
        <name>tapas::OpHistogramModel</name>
        <message numerus="yes">
            <location filename="../views/op_histogram_model.cpp" line="+61" />
            <source>%n node(s) of type %1</source>
            <translation>
                <numerusform>%n 个 %1 类型的节点</numerusform>
            </translation>
        </message>
        <message>
            <location line="+12" />
            <source>Op type</source>
            <translation>算子类型</translation>
        </message>
        <message>
            <location line="+1" />
            <source>Count</source>
            <translation>数量</translation>
        </message>
        <message>
            <location line="+1" />
            <source>Share</source>
            <translation>占比</translation>
        </message>
    </context>
    <context>
        <name>tapas::RecentFiles</name>
        <message>
            <location filename="../app/studio/recent_files.cpp" line="+67" />
            <source>Clear Recent Files</source>
            <translation>清空最近文件</translation>
        </message>
        <message>
            <location line="+22" />
            <source>No recent files</source>
            <translation>没有最近文件</translation>
        </message>
    </context>
    <context>
        <name>tapas::TensorListModel</name>
        <message>
            <location filename="../views/tensor_list_model.cpp" line="+48" />
            <source>Name</source>
            <translation>名称</translation>
        </message>
        <message>
            <location line="+1" />
            <source>Type</source>
            <translation>类型</translation>
        </message>
        <message>
            <location line="+1" />
            <source>Shape</source>
            <translation>形状</translation>
        </message>
    </context>
</TS>
