<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="en" sourcelanguage="en">
    <context>
        <name>tapas::ImportStage</name>
        <message>
            <location filename="../app/studio/main_window.cpp" line="+44" />
            <source>reading</source>
            <translation type="unfinished" />
        </message>
        <message>
            <location line="+1" />
            <source>parsing</source>
            <translation type="unfinished" />
        </message>
        <message>
            <location line="+1" />
            <source>dropping weight data</source>
            <translation type="unfinished" />
        </message>
        <message>
            <location line="+1" />
            <source>checking node order</source>
            <translation type="unfinished" />
        </message>
        <message>
            <location line="+1" />
            <source>shape inference</source>
            <translation type="unfinished" />
        </message>
        <message>
            <location line="+1" />
            <source>checking the model</source>
            <translation type="unfinished" />
        </message>
        <message>
            <location line="+1" />
            <source>converting</source>
            <translation type="unfinished" />
        </message>
        <message>
            <location line="+1" />
            <source>filling shapes</source>
            <translation type="unfinished" />
        </message>
        <message>
            <location line="+1" />
            <source>done</source>
            <translation type="unfinished" />
        </message>
        <message>
            <location line="+1" />
            <source>summarizing</source>
            <translation type="unfinished" />
        </message>
    </context>
    <context>
        <name>tapas::LogModel</name>
        <message>
            <location filename="../views/log_model.cpp" line="+42" />
            <source>Info</source>
            <translation type="unfinished" />
        </message>
        <message>
            <location line="+1" />
            <source>Warning</source>
            <translation type="unfinished" />
        </message>
        <message>
            <location line="+1" />
            <source>Error</source>
            <translation type="unfinished" />
        </message>
        <message>
            <location line="+38" />
            <source>Time</source>
            <translation type="unfinished" />
        </message>
        <message>
            <location line="+1" />
            <source>Severity</source>
            <translation type="unfinished" />
        </message>
        <message>
            <location line="+1" />
            <source>Message</source>
            <translation type="unfinished" />
        </message>
    </context>
    <context>
        <name>tapas::LogView</name>
        <message>
            <location filename="../views/log_view.cpp" line="+66" />
            <source>Clear Log</source>
            <translation type="unfinished" />
        </message>
        <message>
            <location line="+1" />
            <source>Copy</source>
            <translation type="unfinished" />
        </message>
    </context>
    <context>
        <name>tapas::MainWindow</name>
        <message>
            <location filename="../app/studio/main_window.cpp" line="+38" />
            <source>Removed %1 from the recent files: the file no longer exists.</source>
            <translation type="unfinished" />
        </message>
        <message numerus="yes">
            <location line="+2" />
            <source>%n missing file(s) removed from the recent files.</source>
            <translation>
                <numerusform>%n missing file removed from the recent files.</numerusform>
                <numerusform>%n missing files removed from the recent files.</numerusform>
            </translation>
        </message>
        <message>
            <location line="+134" />
            <source>&amp;Open…</source>
            <translation type="unfinished" />
        </message>
        <message>
            <location line="+1" />
            <source>Open an ONNX model (%1)</source>
            <translation type="unfinished" />
        </message>
        <message>
            <location line="+1" />
            <source>Open an ONNX model</source>
            <translation type="unfinished" />
        </message>
        <message>
            <location line="+1" />
            <source>&amp;Reload</source>
            <translation type="unfinished" />
        </message>
        <message>
            <location line="+1" />
            <source>Read the open model from disk again</source>
            <translation type="unfinished" />
        </message>
        <message>
            <location line="+1" />
            <source>Open &amp;Sample Model</source>
            <translation type="unfinished" />
        </message>
        <message>
            <location line="+1" />
            <source>Open the GPT sample model that ships with Tapas Studio</source>
            <translation type="unfinished" />
        </message>
        <message>
            <location line="+1" />
            <source>&amp;Cancel Loading</source>
            <translation type="unfinished" />
        </message>
        <message>
            <location line="+1" />
            <source>&amp;Quit</source>
            <translation type="unfinished" />
        </message>
        <message>
            <location line="+1" />
            <source>&amp;About Tapas Studio</source>
            <translation type="unfinished" />
        </message>
        <message>
            <location line="+1" />
            <source>About &amp;Qt</source>
            <translation type="unfinished" />
        </message>
        <message>
            <location line="+2" />
            <source>&amp;File</source>
            <translation type="unfinished" />
        </message>
        <message>
            <location line="+1" />
            <source>Open &amp;Recent</source>
            <translation type="unfinished" />
        </message>
        <message>
            <location line="+2" />
            <source>&amp;View</source>
            <translation type="unfinished" />
        </message>
        <message>
            <location line="+1" />
            <source>&amp;Settings</source>
            <translation type="unfinished" />
        </message>
        <message>
            <location line="+1" />
            <source>&amp;Language</source>
            <translation type="unfinished" />
        </message>
        <message>
            <location line="+1" />
            <source>&amp;Help</source>
            <translation type="unfinished" />
        </message>
        <message>
            <location line="+1" />
            <source>Main Toolbar</source>
            <translation type="unfinished" />
        </message>
        <message>
            <location line="+1" />
            <source>Log</source>
            <translation type="unfinished" />
        </message>
        <message>
            <location line="+1" />
            <source>Cancel</source>
            <translation type="unfinished" />
        </message>
        <message>
            <location line="+1" />
            <source>Stop loading and keep the current model</source>
            <translation type="unfinished" />
        </message>
        <message>
            <location line="+8" />
            <source>Tapas Studio</source>
            <translation type="unfinished" />
        </message>
        <message>
            <location line="+2" />
            <source>%1 — Tapas Studio</source>
            <translation type="unfinished" />
        </message>
        <message>
            <location line="+17" />
            <source>This build embeds no sample model (%1).</source>
            <translation type="unfinished" />
        </message>
        <message>
            <location line="+16" />
            <source>Open Model</source>
            <translation type="unfinished" />
        </message>
        <message>
            <location line="+1" />
            <source>ONNX models (*.onnx);;All files (*)</source>
            <translation type="unfinished" />
        </message>
        <message>
            <location line="+15" />
            <source>Opening %1</source>
            <translation type="unfinished" />
        </message>
        <message>
            <location line="+7" />
            <source>Opening %1: %2…</source>
            <translation type="unfinished" />
        </message>
        <message>
            <location line="+15" />
            <source>Opened %1: %2 nodes, %3 parameters, %4 FLOPs per forward pass (%5 ms)</source>
            <translation type="unfinished" />
        </message>
        <message>
            <location line="+5" />
            <source>Opened %1</source>
            <translation type="unfinished" />
        </message>
        <message>
            <location line="+8" />
            <source>Could not open %1</source>
            <translation type="unfinished" />
        </message>
        <message>
            <location line="+2" />
            <source>Cannot Open Model</source>
            <translation type="unfinished" />
        </message>
        <message>
            <location line="+10" />
            <source>Cancelled opening %1</source>
            <translation type="unfinished" />
        </message>
        <message>
            <location line="+1" />
            <source>Loading cancelled</source>
            <translation type="unfinished" />
        </message>
        <message>
            <location line="+8" />
            <source>Sample model bundled with Tapas Studio</source>
            <translation type="unfinished" />
        </message>
        <message numerus="yes">
            <location line="+30" />
            <source>%n file(s) dropped; opening the first, %1.</source>
            <translation>
                <numerusform>%n file dropped; opening it, %1.</numerusform>
                <numerusform>%n files dropped; opening the first, %1.</numerusform>
            </translation>
        </message>
        <message>
            <location line="+7" />
            <source>About Tapas Studio</source>
            <translation type="unfinished" />
        </message>
        <message>
            <location line="+1" />
            <source>&lt;h3&gt;Tapas Studio %1&lt;/h3&gt;&lt;p&gt;A workbench for planning and running distributed training of large neural networks: fold the repeated blocks of a model, search a sharding plan per unique block, and launch it on a cluster.&lt;/p&gt;</source>
            <translation type="unfinished" />
        </message>
    </context>
    <context>
        <name>tapas::ModelSummaryView</name>
        <message>
            <location filename="../views/model_summary_view.cpp" line="+280" />
            <source>Untitled model</source>
            <translation type="unfinished" />
        </message>
        <message>
            <location line="+9" />
            <source>%1 floating-point operations for one forward pass; symbolic dims not bound with --dim count as 1.</source>
            <translation type="unfinished" />
        </message>
        <message>
            <location line="+3" />
            <location line="+1" />
            <source>unknown</source>
            <translation type="unfinished" />
        </message>
        <message>
            <location line="+3" />
            <source>none</source>
            <translation type="unfinished" />
        </message>
        <message>
            <location line="+3" />
            <source>Dims left symbolic. Bind them with --dim name=value, e.g. --dim batch=8.</source>
            <translation type="unfinished" />
        </message>
        <message>
            <location line="+11" />
            <source>No model is open.

Open an ONNX model with File ▸ Open, or drop a .onnx file on this window.</source>
            <translation type="unfinished" />
        </message>
        <message>
            <location line="+2" />
            <source>No warnings.</source>
            <translation type="unfinished" />
        </message>
        <message>
            <location line="+1" />
            <source>Nodes</source>
            <translation type="unfinished" />
        </message>
        <message>
            <location line="+1" />
            <source>Parameters</source>
            <translation type="unfinished" />
        </message>
        <message>
            <location line="+1" />
            <source>Parameter memory</source>
            <translation type="unfinished" />
        </message>
        <message>
            <location line="+1" />
            <source>FLOPs per forward pass</source>
            <translation type="unfinished" />
        </message>
        <message>
            <location line="+1" />
            <source>Activation memory</source>
            <translation type="unfinished" />
        </message>
        <message>
            <location line="+1" />
            <source>ONNX opset</source>
            <translation type="unfinished" />
        </message>
        <message>
            <location line="+1" />
            <source>Producer</source>
            <translation type="unfinished" />
        </message>
        <message>
            <location line="+1" />
            <source>Symbolic dims</source>
            <translation type="unfinished" />
        </message>
        <message>
            <location line="+10" />
            <source>Operators (%1 types)</source>
            <translation type="unfinished" />
        </message>
        <message>
            <location line="+1" />
            <source>Inputs (%1)</source>
            <translation type="unfinished" />
        </message>
        <message>
            <location line="+1" />
            <source>Outputs (%1)</source>
            <translation type="unfinished" />
        </message>
        <message>
            <location line="+1" />
            <source>Warnings (%1)</source>
            <translation type="unfinished" />
        </message>
    </context>
    <context>
        <name>tapas::NumberText</name>
        <message>
            <location filename="../views/number_text.cpp" line="+32" />
            <source>%1 (%2 bytes)</source>
            <translation type="unfinished" />
        </message>
    </context>
    <context>
        <name>tapas::OpHistogramModel</name>
        <message numerus="yes">
            <location filename="../views/op_histogram_model.cpp" line="+61" />
            <source>%n node(s) of type %1</source>
            <translation>
                <numerusform>%n node of type %1</numerusform>
                <numerusform>%n nodes of type %1</numerusform>
            </translation>
        </message>
        <message>
            <location line="+12" />
            <source>Op type</source>
            <translation type="unfinished" />
        </message>
        <message>
            <location line="+1" />
            <source>Count</source>
            <translation type="unfinished" />
        </message>
        <message>
            <location line="+1" />
            <source>Share</source>
            <translation type="unfinished" />
        </message>
    </context>
    <context>
        <name>tapas::RecentFiles</name>
        <message>
            <location filename="../app/studio/recent_files.cpp" line="+67" />
            <source>Clear Recent Files</source>
            <translation type="unfinished" />
        </message>
        <message>
            <location line="+22" />
            <source>No recent files</source>
            <translation type="unfinished" />
        </message>
    </context>
    <context>
        <name>tapas::TensorListModel</name>
        <message>
            <location filename="../views/tensor_list_model.cpp" line="+48" />
            <source>Name</source>
            <translation type="unfinished" />
        </message>
        <message>
            <location line="+1" />
            <source>Type</source>
            <translation type="unfinished" />
        </message>
        <message>
            <location line="+1" />
            <source>Shape</source>
            <translation type="unfinished" />
        </message>
    </context>
</TS>
