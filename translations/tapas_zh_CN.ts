<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN" sourcelanguage="en">
<context>
    <name>tapas::BlockStyle</name>
    <message>
        <location filename="../views/graph/block_style.cpp" line="+50"/>
        <source>Unique part</source>
        <translation>独立部分</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Block %1</source>
        <translation>块 %1</translation>
    </message>
</context>
<context>
    <name>tapas::BlocksModel</name>
    <message>
        <location filename="../views/blocks_model.cpp" line="+78"/>
        <source>×%1</source>
        <translation>×%1</translation>
    </message>
    <message>
        <location line="+22"/>
        <source>%1: %2 instances of %3 nodes, %4 parameters each</source>
        <translation>%1：%2 个实例，每个 %3 个节点、%4 个参数</translation>
    </message>
    <message>
        <location line="+15"/>
        <source>Block</source>
        <translation>块</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Instances</source>
        <translation>实例数</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Nodes each</source>
        <translation>每个节点数</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Parameters each</source>
        <translation>每个参数量</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Scope</source>
        <translation>作用域</translation>
    </message>
</context>
<context>
    <name>tapas::GraphPanel</name>
    <message>
        <location filename="../views/graph/graph_panel.cpp" line="+107"/>
        <source>Fit</source>
        <translation>适应窗口</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Fit the graph to the window (0)</source>
        <translation>使图适应窗口 (0)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Zoom in</source>
        <translation>放大</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Zoom in (+)</source>
        <translation>放大 (+)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Zoom out</source>
        <translation>缩小</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Zoom out (-)</source>
        <translation>缩小 (-)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Find</source>
        <translation>查找</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Find a node by name, op type or tensor shape (%1)</source>
        <translation>按名称、算子类型或张量形状查找节点 (%1)</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Export…</source>
        <translation>导出…</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Export the graph as PNG or SVG</source>
        <translation>将图导出为 PNG 或 SVG</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Node name, op type or shape, e.g. MatMul or [batch,seq,768]</source>
        <translation>节点名称、算子类型或形状，例如 MatMul 或 [batch,seq,768]</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Previous match (Shift+Enter)</source>
        <translation>上一个匹配 (Shift+Enter)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Next match (Enter)</source>
        <translation>下一个匹配 (Enter)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <location line="+85"/>
        <source>no matches</source>
        <translation>无匹配</translation>
    </message>
    <message numerus="yes">
        <location line="+1"/>
        <source>%n match(es)</source>
        <translation>
            <numerusform>%n 个匹配</numerusform>
        </translation>
    </message>
    <message>
        <location line="+1"/>
        <source>%1 of %2</source>
        <translation>第 %1 个，共 %2 个</translation>
    </message>
    <message>
        <location line="+21"/>
        <location line="+6"/>
        <source>Export graph</source>
        <translation>导出图</translation>
    </message>
    <message>
        <location line="-5"/>
        <source>PNG image (*.png);;SVG drawing (*.svg)</source>
        <translation>PNG 图像 (*.png);;SVG 矢量图 (*.svg)</translation>
    </message>
</context>
<context>
    <name>tapas::GraphPresentation</name>
    <message>
        <location filename="../views/graph/graph_presentation.cpp" line="+149"/>
        <location line="+37"/>
        <source>scope %1</source>
        <translation>作用域 %1</translation>
    </message>
    <message>
        <location line="-35"/>
        <source>out  %1</source>
        <translation>输出  %1</translation>
    </message>
    <message>
        <location line="+23"/>
        <source>%1 · %2/%3</source>
        <translation>%1 · %2/%3</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>%1 ops · %2 params</source>
        <translation>%1 个算子 · %2 个参数</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>%1, instance %2 of %3 (×%3)</source>
        <translation>%1，第 %2 个实例，共 %3 个 (×%3)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>%1 ops, %2 parameters per instance</source>
        <translation>每个实例 %1 个算子、%2 个参数</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Double-click or press + to expand</source>
        <translation>双击或按 + 展开</translation>
    </message>
    <message>
        <location line="+27"/>
        <source>graph input  %1</source>
        <translation>图输入  %1</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>graph output  %1</source>
        <translation>图输出  %1</translation>
    </message>
    <message>
        <location line="+42"/>
        <source>… and %1 more</source>
        <translation>… 另有 %1 个</translation>
    </message>
</context>
<context>
    <name>tapas::GraphScene</name>
    <message>
        <location filename="../views/graph/graph_scene.cpp" line="+59"/>
        <source>%1 · %2/%3</source>
        <translation>%1 · %2/%3</translation>
    </message>
</context>
<context>
    <name>tapas::GraphView</name>
    <message>
        <location filename="../views/graph/graph_view.cpp" line="+93"/>
        <source>This model has %1 nodes, too many to draw expanded. It opens folded into %2 boxes; expand blocks one at a time.</source>
        <translation>此模型有 %1 个节点，太多而无法展开绘制。它以折叠形式打开，共 %2 个方框；请逐个展开块。</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>This model has %1 nodes and no repeated blocks: every node is drawn, and the layout may take a while.</source>
        <translation>此模型有 %1 个节点且没有重复块：每个节点都会绘制，布局可能需要一些时间。</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>No repeated blocks were found: every node is drawn as unique.</source>
        <translation>未找到重复块：每个节点都按独立节点绘制。</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>Laying out %1 boxes</source>
        <translation>正在布局 %1 个方框</translation>
    </message>
    <message>
        <location line="+40"/>
        <source>Expanding %1 would draw %2 boxes, more than the limit of %3. Collapse other blocks first.</source>
        <translation>展开 %1 将绘制 %2 个方框，超过上限 %3。请先折叠其他块。</translation>
    </message>
    <message>
        <location line="+16"/>
        <source>Expanding a block (%1 boxes)</source>
        <translation>正在展开块（%1 个方框）</translation>
    </message>
    <message>
        <location line="+16"/>
        <source>Could not collapse the block: %1</source>
        <translation>无法折叠该块：%1</translation>
    </message>
    <message>
        <location line="+32"/>
        <source>The graph layout failed: %1</source>
        <translation>图布局失败：%1</translation>
    </message>
    <message>
        <location line="+9"/>
        <source>Graph layout cancelled.</source>
        <translation>图布局已取消。</translation>
    </message>
    <message>
        <location line="+141"/>
        <location line="+28"/>
        <source>There is no graph to export to %1.</source>
        <translation>没有可导出到 %1 的图。</translation>
    </message>
    <message>
        <location line="-19"/>
        <source>Not enough memory for a %1×%2 image for %3.</source>
        <translation>内存不足，无法为 %3 创建 %1×%2 的图像。</translation>
    </message>
    <message>
        <location line="+9"/>
        <source>Could not write the PNG file %1.</source>
        <translation>无法写入 PNG 文件 %1。</translation>
    </message>
    <message>
        <location line="+17"/>
        <source>Graph</source>
        <translation>图</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Graph exported by Tapas Studio</source>
        <translation>由 Tapas Studio 导出的图</translation>
    </message>
    <message>
        <location line="+3"/>
        <location line="+7"/>
        <source>Could not write the SVG file %1.</source>
        <translation>无法写入 SVG 文件 %1。</translation>
    </message>
</context>
<context>
    <name>tapas::ImportStage</name>
    <message>
        <location filename="../app/studio/main_window.cpp" line="+46"/>
        <source>reading</source>
        <translation>读取</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>parsing</source>
        <translation>解析</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>dropping weight data</source>
        <translation>丢弃权重数据</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>checking node order</source>
        <translation>检查节点顺序</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>shape inference</source>
        <translation>形状推断</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>checking the model</source>
        <translation>检查模型</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>converting</source>
        <translation>转换</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>filling shapes</source>
        <translation>补全形状</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>done</source>
        <translation>完成</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>summarizing</source>
        <translation>汇总</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>folding</source>
        <translation>折叠</translation>
    </message>
</context>
<context>
    <name>tapas::InspectorView</name>
    <message>
        <location filename="../views/inspector_view.cpp" line="+65"/>
        <location line="+18"/>
        <source>Property</source>
        <translation>属性</translation>
    </message>
    <message>
        <location line="-18"/>
        <location line="+18"/>
        <source>Value</source>
        <translation>值</translation>
    </message>
    <message>
        <location line="-17"/>
        <source>Nothing selected. Click a node, an edge or a block in the graph.</source>
        <translation>未选择任何内容。请在图中单击节点、边或块。</translation>
    </message>
    <message>
        <location line="+59"/>
        <source>%1 · weight, %2 elements</source>
        <translation>%1 · 权重，%2 个元素</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>%1 · constant</source>
        <translation>%1 · 常量</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>%1 · graph input</source>
        <translation>%1 · 图输入</translation>
    </message>
    <message>
        <location line="+8"/>
        <source>not folded</source>
        <translation>未折叠</translation>
    </message>
    <message>
        <location line="+2"/>
        <location line="+75"/>
        <source>none</source>
        <translation>无</translation>
    </message>
    <message>
        <location line="-73"/>
        <source>%1 · %2/%3, position %4</source>
        <translation>%1 · %2/%3，位置 %4</translation>
    </message>
    <message>
        <location line="+22"/>
        <source>%1 %2</source>
        <translation>%1 %2</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Node</source>
        <translation>节点</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Op</source>
        <translation>算子</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Domain</source>
        <translation>域</translation>
    </message>
    <message>
        <location line="+1"/>
        <location line="+35"/>
        <source>Name</source>
        <translation>名称</translation>
    </message>
    <message>
        <location line="-34"/>
        <location line="+73"/>
        <source>Scope</source>
        <translation>作用域</translation>
    </message>
    <message>
        <location line="-72"/>
        <location line="+65"/>
        <source>Block</source>
        <translation>块</translation>
    </message>
    <message>
        <location line="-63"/>
        <source>Subgraphs</source>
        <translation>子图</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>%1 (opaque, %2 nodes)</source>
        <translation>%1（不透明，%2 个节点）</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Attributes</source>
        <translation>属性值</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Inputs</source>
        <translation>输入</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>Outputs</source>
        <translation>输出</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Cost</source>
        <translation>开销</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Parameters</source>
        <translation>参数</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>FLOPs (forward)</source>
        <translation>FLOPs（前向）</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Bytes read</source>
        <translation>读取字节</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Bytes written</source>
        <translation>写入字节</translation>
    </message>
    <message>
        <location line="+9"/>
        <source>Tensor %1</source>
        <translation>张量 %1</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Tensor</source>
        <translation>张量</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Dtype</source>
        <translation>数据类型</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Shape</source>
        <translation>形状</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>activation</source>
        <translation>激活</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>graph input</source>
        <translation>图输入</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>weight</source>
        <translation>权重</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>constant</source>
        <translation>常量</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Kind</source>
        <translation>种类</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Elements</source>
        <translation>元素数</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Bytes</source>
        <translation>字节</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>External data</source>
        <translation>外部数据</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>%1 (absent)</source>
        <translation>%1（缺失）</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Data flow</source>
        <translation>数据流</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Producer</source>
        <translation>生产者</translation>
    </message>
    <message>
        <location line="+4"/>
        <location line="+3"/>
        <source>Consumer</source>
        <translation>消费者</translation>
    </message>
    <message>
        <location line="-3"/>
        <source>… and %1 more</source>
        <translation>… 另有 %1 个</translation>
    </message>
    <message>
        <location line="+15"/>
        <source>%1 · instance %2 of %3</source>
        <translation>%1 · 第 %2 个实例，共 %3 个</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Class</source>
        <translation>类别</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Instances</source>
        <translation>实例数</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>×%1</source>
        <translation>×%1</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Instance</source>
        <translation>实例</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>%1 of %2</source>
        <translation>第 %1 个，共 %2 个</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Nodes per instance</source>
        <translation>每个实例的节点数</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Parameters per instance</source>
        <translation>每个实例的参数</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Parameters, all instances</source>
        <translation>参数（全部实例）</translation>
    </message>
    <message>
        <location line="+8"/>
        <source>FLOPs per instance (forward)</source>
        <translation>每个实例的 FLOPs（前向）</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Boundary</source>
        <translation>边界</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>in %1</source>
        <translation>入 %1</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>out %1</source>
        <translation>出 %1</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Ops</source>
        <translation>算子</translation>
    </message>
</context>
<context>
    <name>tapas::InstanceFrameItem</name>
    <message>
        <location filename="../views/graph/block_item.cpp" line="+142"/>
        <source>%1 (expanded)
Double-click the caption or press − to collapse</source>
        <translation>%1（已展开）
双击标题或按 − 折叠</translation>
    </message>
</context>
<context>
    <name>tapas::LayoutJob</name>
    <message>
        <location filename="../views/graph/layout_job.cpp" line="+77"/>
        <source>The layout produced no result.</source>
        <translation>布局没有产生结果。</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>done</source>
        <translation>完成</translation>
    </message>
</context>
<context>
    <name>tapas::LogModel</name>
    <message>
        <location filename="../views/log_model.cpp" line="+42"/>
        <source>Info</source>
        <translation>信息</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Warning</source>
        <translation>警告</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Error</source>
        <translation>错误</translation>
    </message>
    <message>
        <location line="+38"/>
        <source>Time</source>
        <translation>时间</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Severity</source>
        <translation>级别</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Message</source>
        <translation>消息</translation>
    </message>
</context>
<context>
    <name>tapas::LogView</name>
    <message>
        <location filename="../views/log_view.cpp" line="+66"/>
        <source>Clear Log</source>
        <translation>清空日志</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Copy</source>
        <translation>复制</translation>
    </message>
</context>
<context>
    <name>tapas::MainWindow</name>
    <message>
        <location filename="../app/studio/main_window.cpp" line="+37"/>
        <source>Removed %1 from the recent files: the file no longer exists.</source>
        <translation>已从最近文件中移除 %1：该文件已不存在。</translation>
    </message>
    <message numerus="yes">
        <location line="+2"/>
        <source>%n missing file(s) removed from the recent files.</source>
        <translation>
            <numerusform>已从最近文件中移除 %n 个不存在的文件。</numerusform>
        </translation>
    </message>
    <message>
        <location line="+164"/>
        <source>&amp;Open…</source>
        <translation>打开(&amp;O)…</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Open an ONNX model (%1)</source>
        <translation>打开 ONNX 模型（%1）</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Open an ONNX model</source>
        <translation>打开 ONNX 模型</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>&amp;Reload</source>
        <translation>重新加载(&amp;R)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Read the open model from disk again</source>
        <translation>从磁盘重新读取当前模型</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Open &amp;Sample Model</source>
        <translation>打开示例模型(&amp;S)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Open the GPT sample model that ships with Tapas Studio</source>
        <translation>打开 Tapas Studio 自带的 GPT 示例模型</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>&amp;Cancel Loading</source>
        <translation>取消加载(&amp;C)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>&amp;Quit</source>
        <translation>退出(&amp;Q)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>&amp;About Tapas Studio</source>
        <translation>关于 Tapas Studio(&amp;A)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>About &amp;Qt</source>
        <translation>关于 &amp;Qt</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>&amp;File</source>
        <translation>文件(&amp;F)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Open &amp;Recent</source>
        <translation>最近打开(&amp;R)</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>&amp;View</source>
        <translation>视图(&amp;V)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>&amp;Settings</source>
        <translation>设置(&amp;S)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>&amp;Language</source>
        <translation>语言(&amp;L)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>&amp;Help</source>
        <translation>帮助(&amp;H)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Main Toolbar</source>
        <translation>主工具栏</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Log</source>
        <translation>日志</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>&amp;Edit</source>
        <translation>编辑(&amp;E)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Export View as &amp;PNG…</source>
        <translation>将视图导出为 PNG(&amp;P)…</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Save the whole graph picture as a PNG image</source>
        <translation>将整张图保存为 PNG 图像</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Export View as S&amp;VG…</source>
        <translation>将视图导出为 SVG(&amp;V)…</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Save the whole graph picture as an SVG drawing</source>
        <translation>将整张图保存为 SVG 矢量图</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Stop loading and keep the current model</source>
        <translation>停止加载并保留当前模型</translation>
    </message>
    <message>
        <location line="+8"/>
        <source>Tapas Studio</source>
        <translation>Tapas Studio</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>%1 — Tapas Studio</source>
        <translation>%1 — Tapas Studio</translation>
    </message>
    <message>
        <location line="+17"/>
        <source>This build embeds no sample model (%1).</source>
        <translation>此版本未内置示例模型（%1）。</translation>
    </message>
    <message>
        <location line="+16"/>
        <source>Open Model</source>
        <translation>打开模型</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>ONNX models (*.onnx);;All files (*)</source>
        <translation>ONNX 模型 (*.onnx);;所有文件 (*)</translation>
    </message>
    <message>
        <location line="+15"/>
        <source>Opening %1</source>
        <translation>正在打开 %1</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>Opening %1: %2…</source>
        <translation>正在打开 %1：%2…</translation>
    </message>
    <message>
        <location line="+18"/>
        <source>Opened %1: %2 nodes, %3 parameters, %4 FLOPs per forward pass (%5 ms)</source>
        <translation>已打开 %1：%2 个节点，%3 个参数，每次前向传播 %4 FLOPs（%5 毫秒）</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>Could not fold %1, every node is shown unique: %2</source>
        <translation>无法折叠 %1，每个节点都按独立节点显示：%2</translation>
    </message>
    <message numerus="yes">
        <location line="+2"/>
        <source>Folded %1: %n repeated block class(es), %2% of the nodes in repeated blocks</source>
        <translation>
            <numerusform>已折叠 %1：%n 类重复块，%2% 的节点位于重复块中</numerusform>
        </translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Opened %1</source>
        <translation>已打开 %1</translation>
    </message>
    <message>
        <location line="+8"/>
        <source>Could not open %1</source>
        <translation>无法打开 %1</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Cannot Open Model</source>
        <translation>无法打开模型</translation>
    </message>
    <message>
        <location line="+10"/>
        <source>Cancelled opening %1</source>
        <translation>已取消打开 %1</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Loading cancelled</source>
        <translation>已取消加载</translation>
    </message>
    <message>
        <location line="+8"/>
        <source>Sample model bundled with Tapas Studio</source>
        <translation>Tapas Studio 自带的示例模型</translation>
    </message>
    <message numerus="yes">
        <location line="+30"/>
        <source>%n file(s) dropped; opening the first, %1.</source>
        <translation>
            <numerusform>拖入了 %n 个文件；正在打开第一个：%1。</numerusform>
        </translation>
    </message>
    <message>
        <location line="+24"/>
        <source>Export View as SVG</source>
        <translation>将视图导出为 SVG</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>SVG drawings (*.svg)</source>
        <translation>SVG 矢量图 (*.svg)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Export View as PNG</source>
        <translation>将视图导出为 PNG</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>PNG images (*.png)</source>
        <translation>PNG 图像 (*.png)</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>Export Failed</source>
        <translation>导出失败</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Exported the view to %1</source>
        <translation>已将视图导出到 %1</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Exported %1</source>
        <translation>已导出 %1</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>About Tapas Studio</source>
        <translation>关于 Tapas Studio</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>&lt;h3&gt;Tapas Studio %1&lt;/h3&gt;&lt;p&gt;A workbench for planning and running distributed training of large neural networks: fold the repeated blocks of a model, search a sharding plan per unique block, and launch it on a cluster.&lt;/p&gt;</source>
        <translation>&lt;h3&gt;Tapas Studio %1&lt;/h3&gt;&lt;p&gt;用于规划和运行大型神经网络分布式训练的工作台：折叠模型中重复的块，为每个唯一的块搜索切分方案，并在集群上启动训练。&lt;/p&gt;</translation>
    </message>
</context>
<context>
    <name>tapas::ModelSummaryView</name>
    <message>
        <location filename="../views/model_summary_view.cpp" line="+280"/>
        <source>Untitled model</source>
        <translation>未命名模型</translation>
    </message>
    <message>
        <location line="+9"/>
        <source>%1 floating-point operations for one forward pass; symbolic dims not bound with --dim count as 1.</source>
        <translation>一次前向传播的浮点运算次数为 %1；未用 --dim 绑定的符号维度按 1 计算。</translation>
    </message>
    <message>
        <location line="+3"/>
        <location line="+1"/>
        <source>unknown</source>
        <translation>未知</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>none</source>
        <translation>无</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Dims left symbolic. Bind them with --dim name=value, e.g. --dim batch=8.</source>
        <translation>仍为符号的维度。可用 --dim 名称=值 绑定，例如 --dim batch=8。</translation>
    </message>
    <message>
        <location line="+11"/>
        <source>No model is open.

Open an ONNX model with File ▸ Open, or drop a .onnx file on this window.</source>
        <translation>尚未打开模型。

请通过 文件 ▸ 打开 来打开 ONNX 模型，或将 .onnx 文件拖到此窗口。</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>No warnings.</source>
        <translation>没有警告。</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Nodes</source>
        <translation>节点</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Parameters</source>
        <translation>参数</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Parameter memory</source>
        <translation>参数内存</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>FLOPs per forward pass</source>
        <translation>每次前向传播的 FLOPs</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Activation memory</source>
        <translation>激活内存</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>ONNX opset</source>
        <translation>ONNX 算子集版本</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Producer</source>
        <translation>生成工具</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Symbolic dims</source>
        <translation>符号维度</translation>
    </message>
    <message>
        <location line="+10"/>
        <source>Operators (%1 types)</source>
        <translation>算子（%1 种）</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Inputs (%1)</source>
        <translation>输入（%1）</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Outputs (%1)</source>
        <translation>输出（%1）</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Warnings (%1)</source>
        <translation>警告（%1）</translation>
    </message>
</context>
<context>
    <name>tapas::NumberText</name>
    <message>
        <location filename="../views/number_text.cpp" line="+32"/>
        <source>%1 (%2 bytes)</source>
        <translation>%1（%2 字节）</translation>
    </message>
</context>
<context>
    <name>tapas::OpHistogramModel</name>
    <message numerus="yes">
        <location filename="../views/op_histogram_model.cpp" line="+61"/>
        <source>%n node(s) of type %1</source>
        <translation>
            <numerusform>%n 个 %1 类型的节点</numerusform>
        </translation>
    </message>
    <message>
        <location line="+12"/>
        <source>Op type</source>
        <translation>算子类型</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Count</source>
        <translation>数量</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Share</source>
        <translation>占比</translation>
    </message>
</context>
<context>
    <name>tapas::RecentFiles</name>
    <message>
        <location filename="../app/studio/recent_files.cpp" line="+67"/>
        <source>Clear Recent Files</source>
        <translation>清空最近文件</translation>
    </message>
    <message>
        <location line="+22"/>
        <source>No recent files</source>
        <translation>没有最近文件</translation>
    </message>
</context>
<context>
    <name>tapas::StudioDocks</name>
    <message>
        <location filename="../app/studio/docks.cpp" line="+85"/>
        <source>Summary</source>
        <translation>摘要</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Blocks</source>
        <translation>块</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Inspector</source>
        <translation>检查器</translation>
    </message>
</context>
<context>
    <name>tapas::TensorListModel</name>
    <message>
        <location filename="../views/tensor_list_model.cpp" line="+48"/>
        <source>Name</source>
        <translation>名称</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Type</source>
        <translation>类型</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Shape</source>
        <translation>形状</translation>
    </message>
</context>
</TS>
