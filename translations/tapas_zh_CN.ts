<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN" sourcelanguage="en">
<context>
    <name>tapas::BackgroundJob</name>
    <message>
        <location filename="../views/background_job.cpp" line="+120"/>
        <source>done</source>
        <translation>完成</translation>
    </message>
</context>
<context>
    <name>tapas::BlockStyle</name>
    <message>
        <location filename="../views/graph/block_style.cpp" line="+58"/>
        <source>Unique part</source>
        <translation>独立部分</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Block %1</source>
        <translation>块 %1</translation>
    </message>
    <message>
        <location line="-14"/>
        <source>U%1</source>
        <translation>U%1</translation>
    </message>
</context>
<context>
    <name>tapas::BlocksModel</name>
    <message>
        <location filename="../views/blocks_model.cpp" line="+166"/>
        <source>Shared-weight block %1</source>
        <translation>共享权重块 %1</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>Stage %1</source>
        <translation>阶段 %1</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Group %1</source>
        <translation>组 %1</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Part %1</source>
        <translation>部分 %1</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Model</source>
        <translation>模型</translation>
    </message>
    <message>
        <location line="+34"/>
        <source>×%1</source>
        <translation>×%1</translation>
    </message>
    <message>
        <location line="+22"/>
        <source>%1: %2 instances of %3 nodes, %4 parameters each</source>
        <translation>%1：%2 个实例，每个 %3 个节点、%4 个参数</translation>
    </message>
    <message>
        <location line="+16"/>
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
    <name>tapas::ClusterEditor</name>
    <message>
        <location filename="../views/cluster_editor.cpp" line="+139"/>
        <source>&amp;Preset:</source>
        <translation>预设(&amp;P)：</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Na&amp;me:</source>
        <translation>名称(&amp;M)：</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>De&amp;vice:</source>
        <translation>设备(&amp;V)：</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>&amp;Nodes:</source>
        <translation>节点数(&amp;N)：</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Devices per &amp;node:</source>
        <translation>每节点设备数(&amp;N)：</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Device &amp;memory:</source>
        <translation>设备内存(&amp;M)：</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Peak FP16:</source>
        <translation>FP16 峰值：</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Peak BF16:</source>
        <translation>BF16 峰值：</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Peak FP32:</source>
        <translation>FP32 峰值：</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Intra-node bandwidth:</source>
        <translation>节点内带宽：</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Intra-node latency:</source>
        <translation>节点内延迟：</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Inter-node bandwidth:</source>
        <translation>节点间带宽：</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Inter-node latency:</source>
        <translation>节点间延迟：</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Kernel &amp;efficiency:</source>
        <translation>内核效率(&amp;E)：</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Fraction of the peak FLOP/s real kernels reach, in (0, 1]</source>
        <translation>实际内核达到的峰值 FLOP/s 比例，取值 (0, 1]</translation>
    </message>
    <message>
        <location line="+1"/>
        <location line="+1"/>
        <source>Per device, one direction</source>
        <translation>每设备，单向</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Custom</source>
        <translation>自定义</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>&amp;Accelerator:</source>
        <translation>加速器(&amp;A)：</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>GPU</source>
        <translation>GPU</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>CPU</source>
        <translation>CPU</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>What a batch script asks the scheduler for</source>
        <translation>批处理脚本向调度器申请的设备类型</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Memory bandwidth:</source>
        <translation>显存带宽：</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>L2 bandwidth:</source>
        <translation>L2 带宽：</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Multiprocessors:</source>
        <translation>多处理器数：</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>no roofline</source>
        <translation>无屋顶线模型</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>not a limit</source>
        <translation>不作限制</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>no waves</source>
        <translation>不按波次</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Device memory bandwidth per device. When set, each op is priced by a roofline (GEMMs by their tiles and waves, element-wise ops by the bytes they move) instead of peak x efficiency</source>
        <translation>每设备的显存带宽。设置后按屋顶线模型为每个算子计价（GEMM 按分块与波次，逐元素算子按搬运的字节数），而不是峰值 × 效率</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>How fast the L2 cache feeds a GEMM&apos;s tiles</source>
        <translation>L2 缓存向 GEMM 分块供数的速度</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Streaming multiprocessors that run a GEMM&apos;s tiles in waves</source>
        <translation>按波次执行 GEMM 分块的流式多处理器数</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Measured:</source>
        <translation>实测：</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>&amp;Forget Measurements</source>
        <translation>丢弃实测数据(&amp;F)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Drop the op families measured by calibration: every op is then priced from the fields above</source>
        <translation>丢弃校准测得的算子族：此后每个算子都按上面的字段计价</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>&amp;Load JSON…</source>
        <translation>载入 JSON(&amp;L)…</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>&amp;Save As JSON…</source>
        <translation>另存为 JSON(&amp;S)…</translation>
    </message>
    <message>
        <location line="+84"/>
        <source>cluster editor</source>
        <translation>集群编辑器</translation>
    </message>
    <message>
        <location line="+10"/>
        <source>none (peak x efficiency)</source>
        <translation>无（峰值 × 效率）</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>No op family was timed on these devices: every op is priced by the fields above</source>
        <translation>这些设备上没有测时的算子族：每个算子都按上面的字段计价</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>%1 calibrated op families</source>
        <translation>%1 个已校准的算子族</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Timed on these devices by tapas cluster calibrate, they price their ops instead of peak x efficiency: %1</source>
        <translation>由 tapas cluster calibrate 在这些设备上测时，它们代替峰值 × 效率为各自的算子计价：%1</translation>
    </message>
    <message>
        <location line="+53"/>
        <source>Cannot read %1: %2</source>
        <translation>无法读取 %1：%2</translation>
    </message>
    <message>
        <location line="+21"/>
        <source>Cannot write %1: %2</source>
        <translation>无法写入 %1：%2</translation>
    </message>
    <message>
        <location line="+9"/>
        <source>Load Cluster</source>
        <translation>载入集群</translation>
    </message>
    <message>
        <location line="+0"/>
        <location line="+7"/>
        <source>Cluster files (*.json)</source>
        <translation>集群文件 (*.json)</translation>
    </message>
    <message>
        <location line="-1"/>
        <source>Save Cluster As</source>
        <translation>集群另存为</translation>
    </message>
</context>
<context>
    <name>tapas::CostsDock</name>
    <message>
        <location filename="../app/studio/costs_dock.cpp" line="+29"/>
        <source>Costs</source>
        <translation>成本</translation>
    </message>
    <message>
        <location line="+15"/>
        <source>%1 (edited)</source>
        <translation>%1（已修改）</translation>
    </message>
</context>
<context>
    <name>tapas::CostsView</name>
    <message>
        <location filename="../views/costs/costs_view.cpp" line="+296"/>
        <location line="+38"/>
        <source>Compute</source>
        <translation>计算</translation>
    </message>
    <message>
        <source>TP communication</source>
        <translation type="vanished">张量并行通信</translation>
    </message>
    <message>
        <source>DP communication</source>
        <translation type="vanished">数据并行通信</translation>
    </message>
    <message>
        <source>Weights, gradients, optimizer</source>
        <translation type="vanished">权重、梯度、优化器</translation>
    </message>
    <message>
        <location line="-81"/>
        <source>%1 · %2: %3 %4</source>
        <translation>%1 · %2：%3 %4</translation>
    </message>
    <message>
        <source>Plans</source>
        <translation type="vanished">方案</translation>
    </message>
    <message>
        <location line="+33"/>
        <source>Step time</source>
        <translation>步时间</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Memory</source>
        <translation>内存</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Per block</source>
        <translation>按块</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Step time per device of each plan: compute, tensor- and data-parallel communication</source>
        <translation>每个方案每设备的步时间：计算、张量并行和数据并行通信</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Memory per device of each plan against the device&apos;s limit</source>
        <translation>每个方案每设备的内存与设备上限的对比</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>The current plan per block, in model order: A3 is the third instance of block A, U a unique part</source>
        <translation>当前方案按块显示，按模型顺序：A3 是块 A 的第三个实例，U 是独立部分</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>TP comm.</source>
        <translation>TP 通信</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>DP comm.</source>
        <translation>DP 通信</translation>
    </message>
    <message>
        <location line="+1"/>
        <location line="+76"/>
        <source>Weights + optimizer</source>
        <translation>权重 + 优化器</translation>
    </message>
    <message>
        <location line="-75"/>
        <location line="+76"/>
        <source>Activations</source>
        <translation>激活</translation>
    </message>
    <message>
        <location line="-56"/>
        <source>Step time per device</source>
        <translation>每设备单步时间</translation>
    </message>
    <message>
        <location line="+9"/>
        <location line="+20"/>
        <source>ms</source>
        <translation>毫秒</translation>
    </message>
    <message>
        <location line="-25"/>
        <source>Memory per device</source>
        <translation>每设备内存</translation>
    </message>
    <message>
        <location line="+6"/>
        <location line="+68"/>
        <source>GB</source>
        <translation>GB</translation>
    </message>
    <message>
        <location line="-71"/>
        <location line="+69"/>
        <source>Device limit (%1 GB)</source>
        <translation>设备上限（%1 GB）</translation>
    </message>
    <message>
        <location line="-61"/>
        <source>Communication</source>
        <translation>通信</translation>
    </message>
    <message>
        <source>U%1</source>
        <translation type="vanished">U%1</translation>
    </message>
    <message>
        <location line="+12"/>
        <source>Step time per block, current plan</source>
        <translation>每块的步时间（当前方案）</translation>
    </message>
    <message>
        <source>Current plan per block (A3: third instance of block A, U: unique part)</source>
        <translation type="vanished">当前方案按块分解（A3：块 A 的第三个实例，U：独立部分）</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>No plan yet: run Plan ▸ Search… to compare plans.</source>
        <translation>尚无方案：运行“方案 ▸ 搜索…”来比较方案。</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>%1 on mesh %2: %3 ms per step, %4 GB per device (%5)</source>
        <translation>%1，网格 %2：每步 %3 毫秒，每设备 %4 GB（%5）</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>fits</source>
        <translation>可容纳</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>does not fit</source>
        <translation>放不下</translation>
    </message>
    <message>
        <location line="-69"/>
        <source>Stages</source>
        <translation>流水线级</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>The current plan&apos;s memory per pipeline rank against the device&apos;s limit</source>
        <translation>当前方案每个流水线 rank 的内存与设备上限对比</translation>
    </message>
    <message>
        <location line="+11"/>
        <source>PP sends</source>
        <translation>PP 发送</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Bubble</source>
        <translation>气泡</translation>
    </message>
    <message>
        <location line="+84"/>
        <source>pp %1 (stage %2)</source>
        <translation>pp %1（第 %2 级）</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Memory per pipeline rank, current plan</source>
        <translation>当前方案每个流水线 rank 的内存</translation>
    </message>
    <message numerus="yes">
        <location line="-31"/>
        <source>%n stage(s), bubble %1% of the step (%2 ms)</source>
        <translation>
            <numerusform>%n 个流水线级，气泡占一步的 %1%（%2 ms）</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>tapas::ExportDialog</name>
    <message>
        <location filename="../app/studio/export_dialog.cpp" line="+126"/>
        <source>Export Plan</source>
        <translation>导出方案</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>&amp;Formats:</source>
        <translation>格式(&amp;F)：</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>&amp;Hosts:</source>
        <translation>主机(&amp;H)：</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>&amp;GPUs per node:</source>
        <translation>每节点 GPU 数(&amp;G)：</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>&amp;Job name:</source>
        <translation>作业名(&amp;J)：</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>&amp;Output folder:</source>
        <translation>输出文件夹(&amp;O)：</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Written</source>
        <translation>已写入</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Refused</source>
        <translation>已拒绝</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>node01, node02, … (empty: from the cluster&apos;s node count)</source>
        <translation>node01, node02, …（留空：按集群节点数生成）</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>from the cluster</source>
        <translation>取自集群</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>&amp;Browse…</source>
        <translation>浏览(&amp;B)…</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>&amp;Export</source>
        <translation>导出(&amp;E)</translation>
    </message>
    <message>
        <location line="+44"/>
        <source>Export Into</source>
        <translation>导出到</translation>
    </message>
    <message>
        <location line="+12"/>
        <source>There is no plan to export: run a search first.</source>
        <translation>没有可导出的方案：请先运行搜索。</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Choose at least one format.</source>
        <translation>请至少选择一种格式。</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Choose an output folder.</source>
        <translation>请选择输出文件夹。</translation>
    </message>
    <message>
        <location line="+36"/>
        <source>no such export format</source>
        <translation>没有这种导出格式</translation>
    </message>
    <message>
        <location line="+16"/>
        <source>%1, written by the %2 format</source>
        <translation>%1，由 %2 格式写入</translation>
    </message>
    <message numerus="yes">
        <location line="+9"/>
        <source>%1 %n format(s) refused:
%2</source>
        <translation>
            <numerusform>%1 %n 种格式被拒绝：
%2</numerusform>
        </translation>
    </message>
    <message>
        <source>%1: no such export format</source>
        <translation type="vanished">%1：没有这种导出格式</translation>
    </message>
    <message>
        <source>Nothing was written.
%1</source>
        <translation type="vanished">未写入任何文件。
%1</translation>
    </message>
    <message>
        <source>%1: %2</source>
        <translation type="vanished">%1：%2</translation>
    </message>
    <message numerus="yes">
        <location line="-6"/>
        <source>Wrote %n file(s) into %1.</source>
        <translation>
            <numerusform>已向 %1 写入 %n 个文件。</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>tapas::ExportFormat</name>
    <message>
        <location line="-221"/>
        <source>Tapas plan file (.tapas.json)</source>
        <translation>Tapas 方案文件（.tapas.json）</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Open MPI hostfile and launch script</source>
        <translation>Open MPI 主机文件和启动脚本</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>SLURM sbatch script with srun</source>
        <translation>使用 srun 的 SLURM sbatch 脚本</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>PyTorch DTensor parallelize_module plan (Python)</source>
        <translation>PyTorch DTensor parallelize_module 方案（Python）</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Megatron-LM parallelism arguments</source>
        <translation>Megatron-LM 并行参数</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>annotated graph (Graphviz DOT)</source>
        <translation>带标注的计算图（Graphviz DOT）</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>annotated graph (SVG)</source>
        <translation>带标注的计算图（SVG）</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>annotated graph (PNG)</source>
        <translation>带标注的计算图（PNG）</translation>
    </message>
</context>
<context>
    <name>tapas::GanRunMonitor</name>
    <message>
        <location filename="../views/runs/gan_run_monitor.cpp" line="+44"/>
        <location line="+186"/>
        <source>Smoothing: %1</source>
        <translation>平滑：%1</translation>
    </message>
    <message>
        <location line="-129"/>
        <source>G loss</source>
        <translation>G 损失</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>D loss</source>
        <translation>D 损失</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>D(x)</source>
        <translation>D(x)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>D(G(z))</source>
        <translation>D(G(z))</translation>
    </message>
    <message>
        <location line="+1"/>
        <location line="+114"/>
        <source>images/s</source>
        <translation>图像/秒</translation>
    </message>
    <message>
        <location line="-112"/>
        <source>data wait (ms)</source>
        <translation>数据等待（毫秒）</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>queue depth</source>
        <translation>队列深度</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>loader threads</source>
        <translation>加载线程</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>prefetch depth</source>
        <translation>预取深度</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>staleness</source>
        <translation>陈旧度</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>modes covered</source>
        <translation>覆盖的模式</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>high-quality share (%)</source>
        <translation>高质量占比（%）</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>reverse KL</source>
        <translation>反向 KL</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>classes covered</source>
        <translation>覆盖的类别</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>class KL</source>
        <translation>类别 KL</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Fréchet distance</source>
        <translation>Fréchet 距离</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>G</source>
        <translation>G</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>D</source>
        <translation>D</translation>
    </message>
    <message>
        <location line="+13"/>
        <source>No sample grid yet.</source>
        <translation>尚无样本网格。</translation>
    </message>
    <message>
        <location line="+11"/>
        <source>Run</source>
        <translation>运行</translation>
    </message>
    <message>
        <location line="+1"/>
        <location line="+82"/>
        <source>Ranks</source>
        <translation>进程</translation>
    </message>
    <message>
        <location line="-81"/>
        <source>Hosts</source>
        <translation>主机</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>this machine</source>
        <translation>本机</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Steps</source>
        <translation>步数</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Checkpoint every</source>
        <translation>检查点间隔</translation>
    </message>
    <message numerus="yes">
        <location line="+0"/>
        <source>%n step(s)</source>
        <translation>
            <numerusform>%n 步</numerusform>
        </translation>
    </message>
    <message>
        <location line="+0"/>
        <source>never</source>
        <translation>从不</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Started</source>
        <translation>开始时间</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>on</source>
        <translation>开</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Directory</source>
        <translation>目录</translation>
    </message>
    <message>
        <location line="+32"/>
        <source>Step %1: cannot read %2</source>
        <translation>第 %1 步：无法读取 %2</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>Samples at step %1 (%2 of %3)</source>
        <translation>第 %1 步的样本（第 %2 个，共 %3 个）</translation>
    </message>
    <message>
        <location line="+11"/>
        <source>step</source>
        <translation>步</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Generator and discriminator loss</source>
        <translation>生成器与判别器损失</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>loss</source>
        <translation>损失</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Discriminator outputs</source>
        <translation>判别器输出</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>probability</source>
        <translation>概率</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Throughput</source>
        <translation>吞吐量</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Step time per rank</source>
        <translation>各进程步时间</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>ms</source>
        <translation>毫秒</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Data pipeline</source>
        <translation>数据管线</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>ms, count</source>
        <translation>毫秒、个数</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Staleness</source>
        <translation>陈旧度</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>G updates</source>
        <translation>G 更新次数</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Mode coverage and sample quality</source>
        <translation>模式覆盖与样本质量</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>modes, %</source>
        <translation>模式数、%</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Learning rates</source>
        <translation>学习率</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>lr</source>
        <translation>学习率</translation>
    </message>
    <message>
        <source>learning rate</source>
        <translation type="vanished">学习率</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Setting</source>
        <translation>设置项</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Value</source>
        <translation>值</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Samples</source>
        <translation>样本</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Settings</source>
        <translation>设置</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Log</source>
        <translation>日志</translation>
    </message>
</context>
<context>
    <name>tapas::GraphPanel</name>
    <message>
        <location filename="../views/graph/graph_panel.cpp" line="+130"/>
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
        <source>Expand all</source>
        <translation>全部展开</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Expand every folded block of the picture (as many as stay within the drawing limit)</source>
        <translation>展开图中每个折叠的块（在绘制上限之内能展开多少就展开多少）</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Collapse all</source>
        <translation>全部折叠</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Fold every expanded block back into its box</source>
        <translation>把每个已展开的块折叠回它的方框</translation>
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
        <location line="+111"/>
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
        <location filename="../views/graph/graph_presentation.cpp" line="+269"/>
        <location line="+76"/>
        <source>scope %1</source>
        <translation>作用域 %1</translation>
    </message>
    <message>
        <location line="-74"/>
        <source>out  %1</source>
        <translation>输出  %1</translation>
    </message>
    <message>
        <location line="-64"/>
        <source>%1 · %2/%3</source>
        <translation>%1 · %2/%3</translation>
    </message>
    <message>
        <location line="-3"/>
        <source>%1 · %2–%3/%4</source>
        <translation>%1 · %2–%3/%4</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Section %1</source>
        <translation>片段 %1</translation>
    </message>
    <message>
        <location line="+92"/>
        <source>%1 blocks · %2 params</source>
        <translation>%1 个块 · %2 个参数</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>%1, instances %2 to %3 of %4</source>
        <translation>%1，第 %2 至 %3 个实例（共 %4 个）</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Double-click, click ⊕ or press Enter to show its blocks</source>
        <translation>双击、点击 ⊕ 或按 Enter 显示其中的块</translation>
    </message>
    <message>
        <location line="+19"/>
        <source>%1 ops · %2 params</source>
        <translation>%1 个算子 · %2 个参数</translation>
    </message>
    <message>
        <location line="+9"/>
        <source>%1, a stretch of the model that does not repeat</source>
        <translation>%1，模型中不重复的一段</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>%1 ops, %2 parameters</source>
        <translation>%1 个算子，%2 个参数</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>%1, instance %2 of %3 (×%3)</source>
        <translation>%1，第 %2 个实例，共 %3 个 (×%3)</translation>
    </message>
    <message>
        <location line="-34"/>
        <location line="+35"/>
        <source>%1 ops, %2 parameters per instance</source>
        <translation>每个实例 %1 个算子、%2 个参数</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>Double-click, click ⊕ or press Enter to expand</source>
        <translation>双击、点击 ⊕ 或按 Enter 展开</translation>
    </message>
    <message>
        <source>Double-click or press + to expand</source>
        <translation type="vanished">双击或按 + 展开</translation>
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
        <location line="+43"/>
        <source>… and %1 more</source>
        <translation>… 另有 %1 个</translation>
    </message>
</context>
<context>
    <name>tapas::GraphScene</name>
    <message>
        <source>%1 · %2/%3</source>
        <translation type="vanished">%1 · %2/%3</translation>
    </message>
</context>
<context>
    <name>tapas::GraphView</name>
    <message>
        <location filename="../views/graph/graph_view.cpp" line="+116"/>
        <source>This model has %1 nodes, too many to draw expanded. It opens folded into %2 boxes; expand blocks one at a time.</source>
        <translation>此模型有 %1 个节点，太多而无法展开绘制。它以折叠形式打开，共 %2 个方框；请逐个展开块。</translation>
    </message>
    <message>
        <source>This model has %1 nodes and no repeated blocks: every node is drawn, and the layout may take a while.</source>
        <translation type="vanished">此模型有 %1 个节点且没有重复块：每个节点都会绘制，布局可能需要一些时间。</translation>
    </message>
    <message>
        <location line="+12"/>
        <source>No repeated blocks were found: every node is drawn as unique.</source>
        <translation>未找到重复块：每个节点都按独立节点绘制。</translation>
    </message>
    <message>
        <source>Laying out %1 boxes</source>
        <translation type="vanished">正在布局 %1 个方框</translation>
    </message>
    <message>
        <location line="+68"/>
        <source>Expanding %1 would draw %2 boxes, more than the limit of %3. Collapse other blocks first.</source>
        <translation>展开 %1 将绘制 %2 个方框，超过上限 %3。请先折叠其他块。</translation>
    </message>
    <message>
        <source>Expanding a block (%1 boxes)</source>
        <translation type="vanished">正在展开块（%1 个方框）</translation>
    </message>
    <message>
        <source>Could not collapse the block: %1</source>
        <translation type="vanished">无法折叠该块：%1</translation>
    </message>
    <message>
        <location line="-95"/>
        <source>Laying out the graph</source>
        <translation>正在布局图</translation>
    </message>
    <message>
        <location line="+20"/>
        <source>No repeated blocks were found. The %1 nodes open as %2 sections; expand the ones you want to read.</source>
        <translation>未找到重复块。%1 个节点以 %2 个片段打开；展开你想查看的片段。</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>This model has %1 nodes and no repeated blocks: every node is drawn.</source>
        <translation>此模型有 %1 个节点且没有重复块：每个节点都会绘制。</translation>
    </message>
    <message>
        <location line="+85"/>
        <source>Expanding %1</source>
        <translation>正在展开 %1</translation>
    </message>
    <message>
        <location line="+29"/>
        <source>Collapsing a block</source>
        <translation>正在折叠块</translation>
    </message>
    <message>
        <location line="+54"/>
        <source>Expanded %1 blocks; %2 stay folded, as expanding them would draw more than %3 boxes.</source>
        <translation>已展开 %1 个块；%2 个保持折叠，因为展开它们会绘制超过 %3 个方框。</translation>
    </message>
    <message>
        <location line="+23"/>
        <source>The graph layout failed: %1</source>
        <translation>图布局失败：%1</translation>
    </message>
    <message>
        <location line="+9"/>
        <source>Graph layout cancelled.</source>
        <translation>图布局已取消。</translation>
    </message>
    <message>
        <location filename="../views/graph/graph_view_export.cpp" line="+26"/>
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
        <location filename="../app/studio/main_window.cpp" line="+55"/>
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
        <location filename="../views/inspector_view.cpp" line="+72"/>
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
        <location line="+75"/>
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
        <location line="+75"/>
        <source>Scope</source>
        <translation>作用域</translation>
    </message>
    <message>
        <location line="-74"/>
        <location line="+66"/>
        <source>Block</source>
        <translation>块</translation>
    </message>
    <message>
        <location line="-64"/>
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
        <location line="+16"/>
        <source>%1 · instance %2 of %3</source>
        <translation>%1 · 第 %2 个实例，共 %3 个</translation>
    </message>
    <message>
        <location line="+2"/>
        <location line="+35"/>
        <source>Class</source>
        <translation>类别</translation>
    </message>
    <message>
        <location line="-34"/>
        <location line="+35"/>
        <source>Instances</source>
        <translation>实例数</translation>
    </message>
    <message>
        <location line="-35"/>
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
        <location line="+34"/>
        <source>Nodes per instance</source>
        <translation>每个实例的节点数</translation>
    </message>
    <message>
        <location line="-33"/>
        <location line="+34"/>
        <source>Parameters per instance</source>
        <translation>每个实例的参数</translation>
    </message>
    <message>
        <location line="-33"/>
        <source>Parameters, all instances</source>
        <translation>参数（全部实例）</translation>
    </message>
    <message>
        <location line="+9"/>
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
    <message>
        <location line="+15"/>
        <source>%1 · instances %2–%3 of %4</source>
        <translation>%1 · 实例 %2–%3（共 %4 个）</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Section</source>
        <translation>分段</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>%1–%2 of %3</source>
        <translation>%1–%2（共 %3 个）</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Parameters, this section</source>
        <translation>参数（本分段）</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>First scope</source>
        <translation>首个作用域</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Last scope</source>
        <translation>末个作用域</translation>
    </message>
</context>
<context>
    <name>tapas::InstanceFrameItem</name>
    <message>
        <source>%1 (expanded)
Double-click the caption or press − to collapse</source>
        <translation type="vanished">%1（已展开）
双击标题或按 − 折叠</translation>
    </message>
    <message>
        <location filename="../views/graph/block_item.cpp" line="+156"/>
        <source>%1 (expanded)
Double-click the caption, click ⊖ or select it and press Enter to collapse</source>
        <translation>%1（已展开）
双击标题、点击 ⊖ 或选中后按 Enter 折叠</translation>
    </message>
</context>
<context>
    <name>tapas::LaunchForm</name>
    <message>
        <location filename="../views/runs/launch_form.cpp" line="+144"/>
        <source>Plan files (*.tapas.json *.json);;All files (*)</source>
        <translation>方案文件 (*.tapas.json *.json);;所有文件 (*)</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>ONNX models (*.onnx);;All files (*)</source>
        <translation>ONNX 模型 (*.onnx);;所有文件 (*)</translation>
    </message>
    <message>
        <location line="+52"/>
        <source>Choose a Folder of Images</source>
        <translation>选择图像文件夹</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Choose a File</source>
        <translation>选择文件</translation>
    </message>
    <message>
        <location line="+15"/>
        <source>Host &quot;%1&quot; is not a host name (letters, digits, &apos;.&apos;, &apos;-&apos;, optionally :slots).</source>
        <translation>“%1”不是主机名（字母、数字、“.”、“-”，可带 :槽位数）。</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>Choose a plan file to run.</source>
        <translation>请选择要运行的计划文件。</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Plan file %1 does not exist.</source>
        <translation>计划文件 %1 不存在。</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Choose the ONNX model the plan was made for.</source>
        <translation>请选择该计划对应的 ONNX 模型。</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Model file %1 does not exist.</source>
        <translation>模型文件 %1 不存在。</translation>
    </message>
    <message>
        <location line="+10"/>
        <source>Image folder &quot;%1&quot; does not exist.</source>
        <translation>图像文件夹“%1”不存在。</translation>
    </message>
    <message>
        <location line="+27"/>
        <source>Plan training</source>
        <translation>计划训练</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>GAN training</source>
        <translation>GAN 训练</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>plan.tapas.json</source>
        <translation>plan.tapas.json</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>model.onnx</source>
        <translation>model.onnx</translation>
    </message>
    <message>
        <location line="+1"/>
        <location line="+1"/>
        <location line="+1"/>
        <source>…</source>
        <translation>…</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Custom</source>
        <translation>自定义</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Ring of 8 Gaussians, MLP, synchronous</source>
        <translation>8 个高斯环，MLP，同步</translation>
    </message>
    <message>
        <source>Ring of 8 Gaussians, MLP, asynchronous (k = 2)</source>
        <translation type="vanished">8 个高斯环，MLP，异步（k = 2）</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Ring of 8 Gaussians, MLP, asynchronous (k = 1)</source>
        <translation>8 个高斯环，MLP，异步（k = 1）</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Grid of 25 Gaussians, MLP</source>
        <translation>25 个高斯网格，MLP</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Fashion-MNIST, DCGAN, synchronous</source>
        <translation>Fashion-MNIST，DCGAN，同步</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Fashion-MNIST, DCGAN, asynchronous (k = 1)</source>
        <translation>Fashion-MNIST，DCGAN，异步（k = 1）</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Procedural shapes, DCGAN</source>
        <translation>程序生成的形状，DCGAN</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Procedural shapes, BigGAN</source>
        <translation>程序生成的形状，BigGAN</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Ring of 8 Gaussians</source>
        <translation>8 个高斯环</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Grid of 25 Gaussians</source>
        <translation>25 个高斯网格</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Fashion-MNIST (Debian&apos;s dataset-fashion-mnist)</source>
        <translation>Fashion-MNIST（Debian 的 dataset-fashion-mnist）</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Procedural shapes</source>
        <translation>程序生成的形状</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Image folder</source>
        <translation>图像文件夹</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>folder of PNG/JPEG images</source>
        <translation>PNG/JPEG 图像文件夹</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Data set&apos;s preset</source>
        <translation>数据集预设</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>MLP</source>
        <translation>MLP</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>DCGAN</source>
        <translation>DCGAN</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>BigGAN</source>
        <translation>BigGAN</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Asynchronous, staleness bound k =</source>
        <translation>异步，陈旧度上限 k =</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>The discriminator trains on fake samples up to k generator updates old instead of waiting for the newest generator (ParaGAN).</source>
        <translation>判别器使用最多落后 k 次生成器更新的假样本训练，而不等待最新的生成器（ParaGAN）。</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>this machine (or host1,host2:4,…)</source>
        <translation>本机（或 host1,host2:4,…）</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>never</source>
        <translation>从不</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Start Run</source>
        <translation>开始运行</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Kind:</source>
        <translation>类型：</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Ranks:</source>
        <translation>进程数：</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Hosts:</source>
        <translation>主机：</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Steps:</source>
        <translation>步数：</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Checkpoint every:</source>
        <translation>检查点间隔：</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Plan:</source>
        <translation>计划：</translation>
    </message>
    <message>
        <location line="+1"/>
        <location line="+4"/>
        <source>Model:</source>
        <translation>模型：</translation>
    </message>
    <message>
        <location line="-3"/>
        <source>Preset:</source>
        <translation>预设：</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Data:</source>
        <translation>数据：</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Folder:</source>
        <translation>文件夹：</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Updates:</source>
        <translation>更新方式：</translation>
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
        <location filename="../app/studio/main_window.cpp" line="+38"/>
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
        <location line="+211"/>
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
        <location line="+3"/>
        <source>Runs</source>
        <translation>运行</translation>
    </message>
    <message>
        <location line="+1"/>
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
        <location line="+17"/>
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
        <location line="+10"/>
        <source>Opening %1: %2…</source>
        <translation>正在打开 %1：%2…</translation>
    </message>
    <message>
        <location line="+21"/>
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
        <location line="+36"/>
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
        <location filename="../views/model_summary_view.cpp" line="+325"/>
        <source>Untitled model</source>
        <translation>未命名模型</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Runnable by tapas-worker: yes</source>
        <translation>可由 tapas-worker 运行：是</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>%1 (1 node, first &apos;%2&apos;): %3</source>
        <translation>%1（1 个节点，首个为“%2”）：%3</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>%1 (%2 nodes, first &apos;%3&apos;): %4</source>
        <translation>%1（%2 个节点，首个为“%3”）：%4</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Runnable by tapas-worker: no. %1</source>
        <translation>可由 tapas-worker 运行：否。%1</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>%1 parameters</source>
        <translation>%1 个参数</translation>
    </message>
    <message>
        <location line="+5"/>
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
        <location line="+2"/>
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
    <name>tapas::OverrideDialog</name>
    <message>
        <location filename="../views/plan/override_dialog.cpp" line="+42"/>
        <source>Change Weight Layout</source>
        <translation>更改权重布局</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>%1
(read by %2, %3)</source>
        <translation>%1
（由 %2、%3 读取）</translation>
    </message>
    <message>
        <location line="+11"/>
        <source>%1 %2</source>
        <translation>%1 %2</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Change Sharding</source>
        <translation>更改切分</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>%1 (%2)</source>
        <translation>%1（%2）</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>Weight:</source>
        <translation>权重：</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Op:</source>
        <translation>算子：</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Store as:</source>
        <translation>存储为：</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Strategy:</source>
        <translation>策略：</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>This instance only</source>
        <translation>仅此实例</translation>
    </message>
    <message numerus="yes">
        <location line="+2"/>
        <source>Every instance of its block class (%n instances)</source>
        <translation>
            <numerusform>其块类的每个实例（%n 个实例）</numerusform>
        </translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Every instance of its block class (it has only this one)</source>
        <translation>其块类的每个实例（只有这一个）</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>Apply to:</source>
        <translation>应用于：</translation>
    </message>
    <message>
        <location line="+23"/>
        <source>Strategies of %1 that store it this way: %2</source>
        <translation>以此方式存储它的 %1 策略：%2</translation>
    </message>
    <message>
        <location line="+10"/>
        <source>in %1: %2</source>
        <translation>输入 %1：%2</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>out: %1</source>
        <translation>输出：%1</translation>
    </message>
</context>
<context>
    <name>tapas::PlanActions</name>
    <message>
        <location filename="../app/studio/plan_actions.cpp" line="+57"/>
        <source>Opened the project %1</source>
        <translation>已打开项目 %1</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Opened %1</source>
        <translation>已打开 %1</translation>
    </message>
    <message>
        <location line="+4"/>
        <location line="+264"/>
        <source>Cannot Open Project</source>
        <translation>无法打开项目</translation>
    </message>
    <message>
        <location line="-170"/>
        <source>&amp;Search…</source>
        <translation>搜索(&amp;S)…</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Search sharding plans for a cluster and compare them</source>
        <translation>为集群搜索切分方案并进行比较</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>&amp;Export…</source>
        <translation>导出(&amp;E)…</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Write the plan for a cluster: plan file, mpirun, SLURM, DTensor, Megatron-LM, graph</source>
        <translation>为集群写出方案：方案文件、mpirun、SLURM、DTensor、Megatron-LM、图</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Open &amp;Project…</source>
        <translation>打开项目(&amp;P)…</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Open a Tapas Studio project: model, cluster, plans and overrides</source>
        <translation>打开 Tapas Studio 项目：模型、集群、方案和覆盖</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Sa&amp;ve Project</source>
        <translation>保存项目(&amp;V)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Save Project &amp;As…</source>
        <translation>项目另存为(&amp;A)…</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Open P&amp;lan File…</source>
        <translation>打开方案文件(&amp;L)…</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Load a .tapas.json plan of the open model</source>
        <translation>载入当前模型的 .tapas.json 方案</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Recent Pro&amp;jects</source>
        <translation>最近的项目(&amp;J)</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>&amp;Plan</source>
        <translation>方案(&amp;P)</translation>
    </message>
    <message numerus="yes">
        <location line="+48"/>
        <source>Search finished: %n plan(s)</source>
        <translation>
            <numerusform>搜索完成：%n 个方案</numerusform>
        </translation>
    </message>
    <message>
        <location line="+63"/>
        <source>Unsaved Changes</source>
        <translation>未保存的更改</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>The plans and overrides have changes that are not saved. Save them as a project?</source>
        <translation>方案和覆盖有未保存的更改。要保存为项目吗？</translation>
    </message>
    <message>
        <location line="+15"/>
        <source>Cannot Save Project</source>
        <translation>无法保存项目</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Saved the project %1</source>
        <translation>已保存项目 %1</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Saved %1</source>
        <translation>已保存 %1</translation>
    </message>
    <message>
        <location line="+16"/>
        <source>Save Project</source>
        <translation>保存项目</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Tapas Studio projects (*.tapasproj)</source>
        <translation>Tapas Studio 项目 (*.tapasproj)</translation>
    </message>
    <message>
        <location line="+16"/>
        <source>Cannot Open Plan</source>
        <translation>无法打开方案</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Opened the plan %1</source>
        <translation>已打开方案 %1</translation>
    </message>
    <message>
        <location line="+8"/>
        <source>Open Project</source>
        <translation>打开项目</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Tapas Studio projects (*.tapasproj);;All files (*)</source>
        <translation>Tapas Studio 项目 (*.tapasproj);;所有文件 (*)</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>Open Plan</source>
        <translation>打开方案</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Plan files (*.tapas.json *.json);;All files (*)</source>
        <translation>方案文件 (*.tapas.json *.json);;所有文件 (*)</translation>
    </message>
</context>
<context>
    <name>tapas::PlanDocks</name>
    <message>
        <location filename="../app/studio/plan_docks.cpp" line="+38"/>
        <source>&amp;Undo</source>
        <translation>撤销(&amp;U)</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>&amp;Redo</source>
        <translation>重做(&amp;R)</translation>
    </message>
    <message>
        <location line="+28"/>
        <source>Plan</source>
        <translation>方案</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Show &amp;Sharding on the Graph</source>
        <translation>在图上显示切分(&amp;S)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Colour ops by their sharding and mark the collectives on the edges</source>
        <translation>按切分为算子着色，并在边上标出集合通信</translation>
    </message>
    <message>
        <location line="+61"/>
        <source>Change refused: %1</source>
        <translation>更改被拒绝：%1</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Change Refused</source>
        <translation>更改被拒绝</translation>
    </message>
</context>
<context>
    <name>tapas::PlanModel</name>
    <message>
        <location filename="../views/plan/plan_model.cpp" line="+106"/>
        <source>All ops</source>
        <translation>全部算子</translation>
    </message>
    <message>
        <location line="+31"/>
        <source>%1 (backward)</source>
        <translation>%1（反向）</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>%1 of %2, %3</source>
        <translation>%2 上的 %1，%3</translation>
    </message>
    <message>
        <location line="+178"/>
        <source>%1 ×%2</source>
        <translation>%1 ×%2</translation>
    </message>
    <message numerus="yes">
        <location line="+1"/>
        <source>%n row(s)</source>
        <translation>
            <numerusform>%n 行</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location line="+4"/>
        <source>%n op(s) with collectives</source>
        <translation>
            <numerusform>%n 个算子有集合通信</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location line="+13"/>
        <source>%1: %n identical instance(s); each row below is one op shared by all of them, its figures summed over the instances.</source>
        <translation>
            <numerusform>%1：%n 个相同的实例；下面每一行是它们共有的一个算子，数值为所有实例之和。</numerusform>
        </translation>
    </message>
    <message>
        <location line="+44"/>
        <source>%1 (instance %2)</source>
        <translation>%1（实例 %2）</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>weight (%1)</source>
        <translation>权重（%1）</translation>
    </message>
    <message>
        <location line="+9"/>
        <source> (%1 of %2 instances differ)</source>
        <translation>（%2 个实例中有 %1 个不同）</translation>
    </message>
    <message>
        <location line="+26"/>
        <source>Overridden by you in %1 of %2 instances.</source>
        <translation>你在 %2 个实例中的 %1 个里覆盖了它。</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Overridden by you: the search&apos;s choice was replaced.</source>
        <translation>已由你覆盖：搜索的选择已被替换。</translation>
    </message>
    <message>
        <location line="+68"/>
        <source>Weight %1, read by %2</source>
        <translation>权重 %1，由 %2 读取</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>%1 (%2)</source>
        <translation>%1（%2）</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Strategy: %1 (%2)</source>
        <translation>策略：%1（%2）</translation>
    </message>
    <message>
        <location line="+8"/>
        <source>in %1 %2: %3</source>
        <translation>输入 %1 %2：%3</translation>
    </message>
    <message>
        <location line="+9"/>
        <source>out %1 %2: %3</source>
        <translation>输出 %1 %2：%3</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>Collectives: %1</source>
        <translation>集合通信：%1</translation>
    </message>
    <message>
        <location line="+8"/>
        <source>Name</source>
        <translation>名称</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Op</source>
        <translation>算子</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Sharding</source>
        <translation>切分</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Collectives</source>
        <translation>集合通信</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Compute</source>
        <translation>计算</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Communication</source>
        <translation>通信</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Memory</source>
        <translation>内存</translation>
    </message>
</context>
<context>
    <name>tapas::PlanPanel</name>
    <message>
        <location filename="../views/plan/plan_panel.cpp" line="+149"/>
        <location line="+152"/>
        <source>All op types</source>
        <translation>全部算子类型</translation>
    </message>
    <message>
        <location line="-149"/>
        <location line="+150"/>
        <source>All blocks</source>
        <translation>全部块</translation>
    </message>
    <message>
        <location line="-138"/>
        <source>No model open.</source>
        <translation>未打开模型。</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>No plan yet: run a search to see each op&apos;s sharding and costs.</source>
        <translation>尚无方案：运行搜索以查看每个算子的切分与开销。</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>Mesh %1 · step %2 ms (compute %3, communication %4) · memory %5 of %6 per device</source>
        <translation>网格 %1 · 每步 %2 毫秒（计算 %3，通信 %4）· 每设备内存 %5 / %6</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>does NOT fit</source>
        <translation>内存放不下</translation>
    </message>
    <message numerus="yes">
        <location line="+1"/>
        <source>%n override(s)</source>
        <translation>
            <numerusform>%n 处覆盖</numerusform>
        </translation>
    </message>
    <message>
        <location line="+2"/>
        <source>tables padded to split over tp: %1</source>
        <translation>为按 tp 切分而填充的表：%1</translation>
    </message>
    <message>
        <location line="+61"/>
        <source>Refused: %1</source>
        <translation>已拒绝：%1</translation>
    </message>
    <message>
        <location line="+38"/>
        <source>Change Weight Layout…</source>
        <translation>更改权重布局…</translation>
    </message>
    <message>
        <location line="+0"/>
        <location line="+16"/>
        <source>Change Sharding…</source>
        <translation>更改切分…</translation>
    </message>
    <message>
        <location line="-3"/>
        <source>Search ops and weights…</source>
        <translation>搜索算子和权重…</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Has collective</source>
        <translation>有集合通信</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Show only ops with a collective (all-reduce, all-gather, …) on an input</source>
        <translation>只显示输入上有集合通信（all-reduce、all-gather 等）的算子</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Choose another strategy for the selected op or layout for the selected weight</source>
        <translation>为选中的算子选择其他策略，或为选中的权重选择其他布局</translation>
    </message>
    <message>
        <location line="-120"/>
        <source>bubble %1 ms</source>
        <translation>气泡 %1 ms</translation>
    </message>
    <message>
        <location line="+21"/>
        <source>%1 interleaved per rank</source>
        <translation>每个 rank 交错 %1 级</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>1F1B bubble %1% of the step</source>
        <translation>1F1B 气泡占一步的 %1%</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>distributed optimizer (ZeRO-1) over dp %1</source>
        <translation>分布式优化器 (ZeRO-1)，跨 dp %1</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>optimizer state not sharded</source>
        <translation>优化器状态未切分</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>op costs below: one micro-batch</source>
        <translation>下方算子开销：一个微批</translation>
    </message>
    <message numerus="yes">
        <location line="-8"/>
        <source>%n pipeline stage(s) on pp %1</source>
        <translation>
            <numerusform>pp %1 上的 %n 个流水线级</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location line="+2"/>
        <source>%n micro-batch(es) of %1</source>
        <translation>
            <numerusform>%n 个微批，每个 %1 个样本</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location line="+1"/>
        <source>%n micro-batch(es)</source>
        <translation>
            <numerusform>%n 个微批</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>tapas::PlanRunMonitor</name>
    <message>
        <location filename="../views/runs/plan_run_monitor.cpp" line="+58"/>
        <location line="+20"/>
        <source>loss</source>
        <translation>损失</translation>
    </message>
    <message>
        <location line="-18"/>
        <location line="+22"/>
        <source>samples/s</source>
        <translation>样本/秒</translation>
    </message>
    <message>
        <location line="-21"/>
        <source>communication</source>
        <translation>通信</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>measured</source>
        <translation>实测</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>predicted</source>
        <translation>预测</translation>
    </message>
    <message>
        <location line="+12"/>
        <source>step</source>
        <translation>步</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Loss</source>
        <translation>损失</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Step time per rank</source>
        <translation>各进程步时间</translation>
    </message>
    <message>
        <location line="+1"/>
        <location line="+6"/>
        <source>ms</source>
        <translation>毫秒</translation>
    </message>
    <message>
        <location line="-5"/>
        <source>Throughput</source>
        <translation>吞吐量</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Communication share of the step</source>
        <translation>通信在每步中的占比</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>%</source>
        <translation>%</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Step time: measured vs. predicted</source>
        <translation>步时间：实测与预测</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Memory per rank</source>
        <translation>各进程内存</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>MB</source>
        <translation>MB</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Ranks</source>
        <translation>进程</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Log</source>
        <translation>日志</translation>
    </message>
</context>
<context>
    <name>tapas::PlanSession</name>
    <message>
        <location filename="../app/studio/plan_session.cpp" line="+111"/>
        <location line="+17"/>
        <source>There is no plan to edit: run a search first.</source>
        <translation>没有可编辑的方案：请先运行搜索。</translation>
    </message>
    <message>
        <location line="-16"/>
        <source>There is no node #%1 in the model.</source>
        <translation>模型中没有节点 #%1。</translation>
    </message>
    <message numerus="yes">
        <location line="+7"/>
        <source>Set %1 to %2 in all %n instances</source>
        <translation>
            <numerusform>在全部 %n 个实例中将 %1 设为 %2</numerusform>
        </translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Set %1 to %2</source>
        <translation>将 %1 设为 %2</translation>
    </message>
    <message>
        <location line="+10"/>
        <source>There is no tensor #%1 in the model.</source>
        <translation>模型中没有张量 #%1。</translation>
    </message>
    <message numerus="yes">
        <location line="+9"/>
        <source>Store %1 as %2 in all %n instances</source>
        <translation>
            <numerusform>在全部 %n 个实例中将 %1 存储为 %2</numerusform>
        </translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Store %1 as %2</source>
        <translation>将 %1 存储为 %2</translation>
    </message>
</context>
<context>
    <name>tapas::ProjectDocument</name>
    <message>
        <location filename="../app/studio/project_document.cpp" line="+158"/>
        <source>There is no model to save a project of.</source>
        <translation>没有可保存为项目的模型。</translation>
    </message>
    <message>
        <location line="+28"/>
        <source>Cannot write the project %1: %2</source>
        <translation>无法写入项目 %1：%2</translation>
    </message>
    <message>
        <location line="+12"/>
        <source>Cannot read the project %1: %2</source>
        <translation>无法读取项目 %1：%2</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>The project %1 refers to the model %2, which does not exist.</source>
        <translation>项目 %1 引用的模型 %2 不存在。</translation>
    </message>
    <message>
        <location line="+13"/>
        <source>Cannot open the model of the project.</source>
        <translation>无法打开项目的模型。</translation>
    </message>
    <message>
        <location line="+9"/>
        <source>Cannot open the project&apos;s model: %1</source>
        <translation>无法打开项目的模型：%1</translation>
    </message>
    <message>
        <location line="+37"/>
        <source>%1, plan %2: %3</source>
        <translation>%1，方案 %2：%3</translation>
    </message>
    <message>
        <location line="+15"/>
        <source>Override of %1 skipped: the model has no such node.</source>
        <translation>已跳过 %1 的覆盖：模型中没有该节点。</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>The overrides could not be re-applied: %1</source>
        <translation>无法重新应用覆盖：%1</translation>
    </message>
    <message>
        <location line="+11"/>
        <source>Open the plan&apos;s model first.</source>
        <translation>请先打开该方案的模型。</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Cannot read the plan %1: %2</source>
        <translation>无法读取方案 %1：%2</translation>
    </message>
</context>
<context>
    <name>tapas::RankTableModel</name>
    <message>
        <location filename="../views/runs/rank_table_model.cpp" line="+88"/>
        <source>Rank</source>
        <translation>进程</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Host</source>
        <translation>主机</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Step</source>
        <translation>步</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Step time</source>
        <translation>步时间</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Compute</source>
        <translation>计算</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Communication</source>
        <translation>通信</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Data wait</source>
        <translation>数据等待</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Memory</source>
        <translation>内存</translation>
    </message>
</context>
<context>
    <name>tapas::RecentFiles</name>
    <message>
        <location filename="../app/studio/recent_files.cpp" line="+63"/>
        <source>Clear Recent Files</source>
        <translation>清空最近文件</translation>
    </message>
    <message>
        <location line="+23"/>
        <source>No recent files</source>
        <translation>没有最近文件</translation>
    </message>
</context>
<context>
    <name>tapas::RunChart</name>
    <message>
        <location filename="../views/runs/run_chart.cpp" line="+168"/>
        <source>%1 (smoothed %2)</source>
        <translation>%1（平滑后 %2）</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>step %1</source>
        <translation>第 %1 步</translation>
    </message>
</context>
<context>
    <name>tapas::RunCompareView</name>
    <message>
        <location filename="../views/runs/run_compare_view.cpp" line="+107"/>
        <source>Recorded as &quot;%1&quot;</source>
        <translation>记录名为“%1”</translation>
    </message>
    <message numerus="yes">
        <location line="+73"/>
        <source>%1 of %n run(s)</source>
        <translation>
            <numerusform>%n 个运行的 %1</numerusform>
        </translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Tick one or more metrics on the left</source>
        <translation>在左侧勾选一个或多个指标</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Smoothing: %1</source>
        <translation>平滑：%1</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Compare:</source>
        <translation>比较：</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Log scale</source>
        <translation>对数坐标</translation>
    </message>
    <message>
        <location line="-12"/>
        <source>step</source>
        <translation>步</translation>
    </message>
</context>
<context>
    <name>tapas::RunListModel</name>
    <message>
        <location filename="../views/runs/run_list_model.cpp" line="+92"/>
        <source>%1 / %2</source>
        <translation>%1 / %2</translation>
    </message>
    <message>
        <location line="+13"/>
        <source>Run</source>
        <translation>运行</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Kind</source>
        <translation>种类</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>State</source>
        <translation>状态</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Step</source>
        <translation>步</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Started</source>
        <translation>开始时间</translation>
    </message>
</context>
<context>
    <name>tapas::RunMonitor</name>
    <message>
        <location filename="../views/runs/run_monitor.cpp" line="+80"/>
        <source>Events and status</source>
        <translation>事件和状态</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Rank %1 output (stdout, stderr)</source>
        <translation>进程 %1 的输出（stdout、stderr）</translation>
    </message>
    <message>
        <location line="+18"/>
        <source>Rank %1 has written no output yet.</source>
        <translation>进程 %1 尚无输出。</translation>
    </message>
    <message>
        <location line="+49"/>
        <source>No run selected.</source>
        <translation>未选择运行。</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>step %1 of %2</source>
        <translation>第 %1 步，共 %2 步</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>step %1</source>
        <translation>第 %1 步</translation>
    </message>
    <message numerus="yes">
        <location line="+1"/>
        <source>&lt;b&gt;%1&lt;/b&gt; · %2 · %3 · %n rank(s)</source>
        <translation>
            <numerusform>&lt;b&gt;%1&lt;/b&gt; · %2 · %3 · %n 个进程</numerusform>
        </translation>
    </message>
    <message>
        <location line="+23"/>
        <location line="+29"/>
        <source>rank %1</source>
        <translation>进程 %1</translation>
    </message>
    <message>
        <location line="+20"/>
        <source>Smoothing: %1</source>
        <translation>平滑：%1</translation>
    </message>
    <message>
        <location line="+22"/>
        <source>Log scale</source>
        <translation>对数坐标</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>A logarithmic value axis on every chart (values at or below zero are left out)</source>
        <translation>所有图表使用对数数值轴（小于等于零的值不显示）</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Exponential moving average of each line; hover a chart for the raw values</source>
        <translation>对每条曲线做指数移动平均；将鼠标悬停在图表上可查看原始值</translation>
    </message>
</context>
<context>
    <name>tapas::RunTexts</name>
    <message>
        <location filename="../views/runs/run_texts.cpp" line="+9"/>
        <source>Plan training</source>
        <translation>计划训练</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>GAN training</source>
        <translation>GAN 训练</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>starting</source>
        <translation>启动中</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>running</source>
        <translation>运行中</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>numerics OK</source>
        <translation>数值正确</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>numerics mismatch</source>
        <translation>数值不一致</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>running (checkpoint saved)</source>
        <translation>运行中（已保存检查点）</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>finished</source>
        <translation>已完成</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>failed</source>
        <translation>失败</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>stopped</source>
        <translation>已停止</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>hung</source>
        <translation>挂起</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>unknown</source>
        <translation>未知</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>info</source>
        <translation>信息</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>warning</source>
        <translation>警告</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>error</source>
        <translation>错误</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>status</source>
        <translation>状态</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>%1 µs</source>
        <translation>%1 微秒</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>%1 ms</source>
        <translation>%1 毫秒</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>%1 s</source>
        <translation>%1 秒</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Loss</source>
        <translation>损失</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Step time</source>
        <translation>步时间</translation>
    </message>
    <message>
        <location line="+0"/>
        <location line="+1"/>
        <location line="+9"/>
        <source>ms</source>
        <translation>毫秒</translation>
    </message>
    <message>
        <location line="-9"/>
        <source>Predicted step time</source>
        <translation>预测步时间</translation>
    </message>
    <message>
        <location line="+1"/>
        <location line="+1"/>
        <source>Throughput</source>
        <translation>吞吐量</translation>
    </message>
    <message>
        <location line="-1"/>
        <source>samples/s</source>
        <translation>样本/秒</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>images/s</source>
        <translation>图像/秒</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Communication share</source>
        <translation>通信占比</translation>
    </message>
    <message>
        <location line="+0"/>
        <location line="+12"/>
        <location line="+4"/>
        <source>%</source>
        <translation>%</translation>
    </message>
    <message>
        <location line="-15"/>
        <source>Memory</source>
        <translation>内存</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>MB</source>
        <translation>MB</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Generator loss</source>
        <translation>生成器损失</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Discriminator loss</source>
        <translation>判别器损失</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>D(x), real samples</source>
        <translation>D(x)，真实样本</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>D(G(z)), generated samples</source>
        <translation>D(G(z))，生成样本</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Data wait</source>
        <translation>数据等待</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Queue depth</source>
        <translation>队列深度</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Loader threads</source>
        <translation>加载线程数</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Prefetch depth</source>
        <translation>预取深度</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Staleness</source>
        <translation>陈旧度</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>G updates</source>
        <translation>G 更新次数</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Modes covered</source>
        <translation>覆盖的模式数</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>High-quality samples</source>
        <translation>高质量样本</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Reverse KL to the uniform mode histogram</source>
        <translation>相对均匀模式直方图的反向 KL</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Modes covered, G&apos;s own weights</source>
        <translation>覆盖的模式数（G 自身权重）</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>High-quality samples, G&apos;s own weights</source>
        <translation>高质量样本（G 自身权重）</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Reverse KL, G&apos;s own weights</source>
        <translation>反向 KL（G 自身权重）</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Classes covered</source>
        <translation>覆盖的类别</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>KL of the class histogram to uniform</source>
        <translation>类别直方图相对均匀分布的 KL</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Fréchet distance (classifier features)</source>
        <translation>Fréchet 距离（分类器特征）</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Fréchet distance, real against real</source>
        <translation>Fréchet 距离，真实对真实</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Generator learning rate</source>
        <translation>生成器学习率</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Discriminator learning rate</source>
        <translation>判别器学习率</translation>
    </message>
</context>
<context>
    <name>tapas::RunsController</name>
    <message>
        <location filename="../app/studio/runs_controller.cpp" line="+92"/>
        <source>Cannot read the metrics of run %1: %2</source>
        <translation>无法读取运行 %1 的指标：%2</translation>
    </message>
    <message>
        <location line="+17"/>
        <location line="+21"/>
        <source>Run %1 ended: %2</source>
        <translation>运行 %1 已结束：%2</translation>
    </message>
    <message>
        <location line="-13"/>
        <source>Run %1: %2</source>
        <translation>运行 %1：%2</translation>
    </message>
    <message>
        <location line="+14"/>
        <source>Run %1 ended: %2 (%3)</source>
        <translation>运行 %1 已结束：%2（%3）</translation>
    </message>
    <message>
        <location line="+8"/>
        <source>A run is still being checked; Start again when it has started or been refused.</source>
        <translation>仍在检查一个运行；待其启动或被拒绝后再点击开始。</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>Checking that tapas-worker can run %1…</source>
        <translation>正在检查 tapas-worker 能否运行 %1…</translation>
    </message>
    <message>
        <location line="+8"/>
        <location line="+19"/>
        <source>Could not start the run: %1</source>
        <translation>无法启动运行：%1</translation>
    </message>
    <message>
        <location line="+17"/>
        <source>Started run %1: %2</source>
        <translation>已启动运行 %1：%2</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>Stopping run %1…</source>
        <translation>正在停止运行 %1…</translation>
    </message>
    <message>
        <location line="+12"/>
        <source>No run %1 in the list.</source>
        <translation>列表中没有运行 %1。</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Run %1 is still running.</source>
        <translation>运行 %1 仍在进行。</translation>
    </message>
    <message>
        <location line="+4"/>
        <location line="+18"/>
        <source>Cannot resume run %1: %2</source>
        <translation>无法恢复运行 %1：%2</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Resumed run %1: %2</source>
        <translation>已恢复运行 %1：%2</translation>
    </message>
    <message>
        <location line="+8"/>
        <source>Cannot open the run in %1: %2</source>
        <translation>无法打开 %1 中的运行：%2</translation>
    </message>
    <message>
        <location line="+8"/>
        <source>Opened run %1 from %2</source>
        <translation>已从 %2 打开运行 %1</translation>
    </message>
</context>
<context>
    <name>tapas::RunsPanel</name>
    <message>
        <location filename="../views/runs/runs_panel.cpp" line="+129"/>
        <source>Open a Run Directory</source>
        <translation>打开运行目录</translation>
    </message>
    <message>
        <location line="+201"/>
        <source>New Run</source>
        <translation>新运行</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Runs</source>
        <translation>运行</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Stop</source>
        <translation>停止</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Stop the selected run after its current step</source>
        <translation>在当前步结束后停止所选运行</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Resume</source>
        <translation>恢复</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Continue the selected run from its last checkpoint</source>
        <translation>从最近的检查点继续所选运行</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Refresh</source>
        <translation>刷新</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Read the runs folder again</source>
        <translation>重新读取运行文件夹</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Open Run Folder…</source>
        <translation>打开运行文件夹…</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Open a run directory (e.g. one started with `tapas run`) and follow it live</source>
        <translation>打开一个运行目录（例如用 `tapas run` 启动的）并实时跟踪</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Select a run to see its charts, or several runs to compare them.
Start a new run with the form on the left.</source>
        <translation>选择一个运行以查看其图表，或选择多个运行进行比较。
用左侧表单启动新的运行。</translation>
    </message>
</context>
<context>
    <name>tapas::SearchDialog</name>
    <message>
        <location filename="../app/studio/search_dialog.cpp" line="+224"/>
        <source>Search Sharding Plans</source>
        <translation>搜索切分方案</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Cluster</source>
        <translation>集群</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Plan</source>
        <translation>方案</translation>
    </message>
    <message>
        <source>&amp;Mesh (dp × tp):</source>
        <translation type="vanished">网格 (dp × tp)(&amp;M)：</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Compute &amp;type:</source>
        <translation>计算类型(&amp;T)：</translation>
    </message>
    <message>
        <location line="+30"/>
        <source>Symbolic dimensions</source>
        <translation>符号维度</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Searchers</source>
        <translation>搜索器</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Time limit of the exact ILP</source>
        <translation>精确 ILP 的时间上限</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Keep my overrides fixed</source>
        <translation>保持我的覆盖不变</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Re-search with the strategies you chose in the Plan dock pinned</source>
        <translation>固定你在方案面板中选择的策略并重新搜索</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>&amp;Run Search</source>
        <translation>开始搜索(&amp;R)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Searcher</source>
        <translation>搜索器</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Mesh</source>
        <translation>网格</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Step time (ms)</source>
        <translation>单步时间（毫秒）</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Memory / device (GB)</source>
        <translation>内存/设备（GB）</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Fits</source>
        <translation>可容纳</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Search time (s)</source>
        <translation>搜索时间（秒）</translation>
    </message>
    <message>
        <location line="-20"/>
        <location line="+4"/>
        <location line="+17"/>
        <location line="+33"/>
        <source>Let the search pick</source>
        <translation>由搜索选择</translation>
    </message>
    <message>
        <location line="-32"/>
        <location line="+72"/>
        <source>The model has no symbolic dimensions.</source>
        <translation>该模型没有符号维度。</translation>
    </message>
    <message>
        <location line="-71"/>
        <location line="+72"/>
        <source>Changing a dimension imports the model again before the search.</source>
        <translation>修改维度后，搜索前会重新导入模型。</translation>
    </message>
    <message>
        <location line="-150"/>
        <source>Searching: %1…</source>
        <translation>正在搜索：%1…</translation>
    </message>
    <message>
        <location line="+9"/>
        <source>The search stopped: %1</source>
        <translation>搜索已停止：%1</translation>
    </message>
    <message>
        <location line="+198"/>
        <source>Open a model first.</source>
        <translation>请先打开模型。</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>The cluster is not valid: %1</source>
        <translation>集群无效：%1</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>Choose at least one searcher.</source>
        <translation>请至少选择一个搜索器。</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Importing the model again with the new dimensions…</source>
        <translation>正在用新的维度重新导入模型…</translation>
    </message>
    <message>
        <location line="+21"/>
        <source>The cluster has no valid device mesh.</source>
        <translation>该集群没有有效的设备网格。</translation>
    </message>
    <message>
        <location line="+16"/>
        <location line="+27"/>
        <source>Searching…</source>
        <translation>正在搜索…</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>Cancelling…</source>
        <translation>正在取消…</translation>
    </message>
    <message>
        <location line="-290"/>
        <source>Search cancelled; the previous plans are kept.</source>
        <translation>搜索已取消；保留之前的方案。</translation>
    </message>
    <message>
        <location line="+300"/>
        <source>No searcher found a plan:</source>
        <translation>没有搜索器找到方案：</translation>
    </message>
    <message numerus="yes">
        <location line="+8"/>
        <source>%n plan(s) found in %1 s.</source>
        <translation>
            <numerusform>在 %1 秒内找到 %n 个方案。</numerusform>
        </translation>
    </message>
    <message>
        <location line="+19"/>
        <source>yes</source>
        <translation>是</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>no</source>
        <translation>否</translation>
    </message>
    <message>
        <location line="-296"/>
        <source>&amp;Mesh:</source>
        <translation>网格(&amp;M)：</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>dp × tp, or dp × pp × tp with a fixed number of pipeline stages</source>
        <translation>dp × tp，或固定流水线级数时的 dp × pp × tp</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>The devices&apos; own (fp32 on CPUs, fp16 on GPUs)</source>
        <translation>设备自身的类型（CPU 为 fp32，GPU 为 fp16）</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>The dtype activations, gradients and messages are priced in</source>
        <translation>激活、梯度和消息计价所用的数据类型</translation>
    </message>
    <message>
        <location line="+4"/>
        <location line="+32"/>
        <source>Pipeline</source>
        <translation>流水线</translation>
    </message>
    <message>
        <location line="-30"/>
        <source>&amp;Stages:</source>
        <translation>级数(&amp;S)：</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Micro-&amp;batch size:</source>
        <translation>微批大小(&amp;B)：</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>&amp;Recomputation:</source>
        <translation>重计算(&amp;R)：</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>&amp;Virtual stages per rank:</source>
        <translation>每个 rank 的虚拟级数(&amp;V)：</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>Only when nothing fits without them</source>
        <translation>仅当不分级就放不下时</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Fixed number (pp):</source>
        <translation>固定级数 (pp)：</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Pipeline stages: contiguous ranges of the folded block chain, run under 1F1B over micro-batches</source>
        <translation>流水线级：折叠后块链上的连续区间，按 1F1B 在微批上运行</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Pipeline-parallel degree: the number of pipeline ranks</source>
        <translation>流水线并行度：流水线 rank 的个数</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Samples per micro-batch</source>
        <translation>每个微批的样本数</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Try 1, 2 and 4</source>
        <translation>尝试 1、2 和 4</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Stages per pipeline rank: interleaved 1F1B when more than 1</source>
        <translation>每个流水线 rank 的级数：大于 1 时为交错 1F1B</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Least that fits, per rank</source>
        <translation>每个 rank 取放得下的最少重计算</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Activation recomputation: none, selective (the attention core) or full (each block&apos;s forward)</source>
        <translation>激活重计算：无、选择性（注意力核心）或完全（每个块的前向）</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Distributed optimizer (ZeRO-1) when dp &gt; 1</source>
        <translation>dp &gt; 1 时使用分布式优化器 (ZeRO-1)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Shard the fp32 master weights and Adam state over the data-parallel group</source>
        <translation>在数据并行组上切分 fp32 主权重和 Adam 状态</translation>
    </message>
    <message>
        <location line="+213"/>
        <source>no plan without pipeline stages fits (the fastest needs %1 GB per device); planned with stages</source>
        <translation>不分流水线级的方案都放不下（最快的每设备需要 %1 GB）；已按流水线级规划</translation>
    </message>
    <message>
        <location line="+58"/>
        <source>none</source>
        <translation>无</translation>
    </message>
    <message numerus="yes">
        <location line="-3"/>
        <source>pp %1, %n micro-batch(es), bubble %2%</source>
        <translation>
            <numerusform>pp %1，%n 个微批，气泡 %2%</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>tapas::ShardingOverlay</name>
    <message>
        <location filename="../views/graph/sharding_overlay.cpp" line="+63"/>
        <source>Sharding</source>
        <translation>切分</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>collective on an edge</source>
        <translation>边上的集合通信</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>overridden by you</source>
        <translation>已由你覆盖</translation>
    </message>
    <message>
        <location line="+72"/>
        <source>%1 (bwd)</source>
        <translation>%1（反向）</translation>
    </message>
    <message>
        <location line="+15"/>
        <source>Sharding: %1 (%2)</source>
        <translation>切分：%1（%2）</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Overridden by you.</source>
        <translation>已由你覆盖。</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>Mostly %1</source>
        <translation>主要为%1</translation>
    </message>
    <message>
        <location line="+11"/>
        <source>Collectives here: %1</source>
        <translation>此处的集合通信：%1</translation>
    </message>
</context>
<context>
    <name>tapas::ShardingStyle</name>
    <message>
        <location filename="../views/graph/sharding_style.cpp" line="+67"/>
        <source>replicated</source>
        <translation>复制</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>column (split features)</source>
        <translation>列切分（切分特征）</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>row (split input, partial sum)</source>
        <translation>行切分（切分输入，部分和）</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>batch / rows</source>
        <translation>批 / 行</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>partial sum</source>
        <translation>部分和</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>other split (heads, …)</source>
        <translation>其他切分（注意力头等）</translation>
    </message>
</context>
<context>
    <name>tapas::StagesModel</name>
    <message>
        <location filename="../views/plan/stages_model.cpp" line="+65"/>
        <source>Stage %1: chain blocks %2-%3 (%4) on pipeline rank %5, ranks %6-%7 (dp %8 x tp %9)</source>
        <translation>第 %1 级：块链中的块 %2-%3（%4），位于流水线 rank %5，rank %6-%7（dp %8 x tp %9）</translation>
    </message>
    <message>
        <location line="+31"/>
        <source>%1 of %2</source>
        <translation>%1 / %2</translation>
    </message>
    <message>
        <location line="+10"/>
        <source>Stage</source>
        <translation>级</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Blocks</source>
        <translation>块</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Pipeline rank</source>
        <translation>流水线 rank</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Ranks</source>
        <translation>Rank</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Recomputation</source>
        <translation>重计算</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Time / micro-batch</source>
        <translation>时间 / 微批</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Weights + optimizer</source>
        <translation>权重 + 优化器</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Activations</source>
        <translation>激活</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Rank memory</source>
        <translation>Rank 内存</translation>
    </message>
</context>
<context>
    <name>tapas::Strategy</name>
    <message>
        <location filename="../views/graph/sharding_style.cpp" line="+15"/>
        <source>replicate</source>
        <translation>复制</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>column</source>
        <translation>列切分</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>row</source>
        <translation>行切分</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>rows</source>
        <translation>按行切分</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>batch</source>
        <translation>批切分</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>vocab</source>
        <translation>词表切分</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>channels</source>
        <translation>通道切分</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>in-channels</source>
        <translation>输入通道切分</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>out-channels</source>
        <translation>输出通道切分</translation>
    </message>
</context>
<context>
    <name>tapas::StudioDocks</name>
    <message>
        <location filename="../app/studio/docks.cpp" line="+97"/>
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
<context>
    <name>tapas::TrainPlanAction</name>
    <message>
        <location filename="../app/studio/train_plan_action.cpp" line="+56"/>
        <source>&amp;Train This Plan…</source>
        <translation>训练此方案(&amp;T)…</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Fill the Runs dock&apos;s New Run form with this plan and model (%1)</source>
        <translation>用此方案和模型填写运行面板的新运行表单（%1）</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Train the plan under edit on MPI ranks: the Runs dock opens with the form filled in</source>
        <translation>在 MPI 进程上训练正在编辑的方案：运行面板会打开并填好表单</translation>
    </message>
    <message>
        <location line="+17"/>
        <source>Cannot write the sample model to %1.</source>
        <translation>无法将示例模型写入 %1。</translation>
    </message>
    <message>
        <location line="+10"/>
        <source>There is no plan to train: run a search first.</source>
        <translation>没有可训练的方案：请先运行搜索。</translation>
    </message>
    <message>
        <location line="+23"/>
        <source>Cannot write the plan to %1: %2</source>
        <translation>无法将方案写入 %1：%2</translation>
    </message>
    <message numerus="yes">
        <location line="+11"/>
        <source>Ready to train %1 on %n rank(s): press Start Run in the Runs dock.</source>
        <translation>
            <numerusform>已准备好在 %n 个进程上训练 %1：请在运行面板中按“开始运行”。</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>tapas::WelcomeView</name>
    <message>
        <location filename="../views/welcome_view.cpp" line="+106"/>
        <source>Tapas Studio</source>
        <translation>Tapas Studio</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Open an ONNX model to see its graph with the repeated blocks folded, search a sharding plan for a cluster, export it and train it.</source>
        <translation>打开一个 ONNX 模型，查看折叠了重复块的计算图，为集群搜索切分方案，导出并训练它。</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Open Model…</source>
        <translation>打开模型…</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Choose an ONNX model (%1)</source>
        <translation>选择一个 ONNX 模型（%1）</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Open the Sample GPT</source>
        <translation>打开示例 GPT</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>A small GPT that ships with Tapas Studio</source>
        <translation>Tapas Studio 自带的小型 GPT</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Recent models</source>
        <translation>最近的模型</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>No recent models yet.</source>
        <translation>还没有最近的模型。</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>You can also drop a .onnx file on this window.</source>
        <translation>也可以将 .onnx 文件拖放到此窗口。</translation>
    </message>
</context>
</TS>
