#pragma once
// The model at a glance: headline figures (nodes, parameters, bytes, FLOPs, opset, producer),
// the op-type histogram, inputs/outputs and the importer's warnings. Same content as
// `tapas inspect`, from the same ModelSummary.
#include "core/report/model_summary.h"

#include <QWidget>

#include <array>

class QFrame;
class QGridLayout;
class QGroupBox;
class QLabel;
class QListView;
class QSortFilterProxyModel;
class QStackedWidget;
class QStandardItemModel;
class QTableView;

namespace tapas {

class ElidedLabel;
class OpHistogramModel;
class TensorListModel;

class ModelSummaryView : public QWidget {
    Q_OBJECT
public:
    enum class Figure { Nodes, Parameters, ParameterBytes, Flops, Activations, Opset, Producer, SymbolicDims };
    static constexpr int kFigureCount = 8;

    explicit ModelSummaryView(QWidget* parent = nullptr);

    // `location` is shown under the title; empty: the summary's file.
    void setSummary(const ModelSummary& summary, const QString& location = {});
    void clear();
    bool hasSummary() const { return hasSummary_; }

    // The text a figure shows in full, e.g. "11.7M" for Parameters (its tooltip has the exact
    // count), and the labels of its card (tests check that they fit).
    QString figureText(Figure f) const;
    QLabel* figureValueLabel(Figure f) const;
    QLabel* figureCaptionLabel(Figure f) const;
    OpHistogramModel* opHistogram() const { return ops_; }
    QSortFilterProxyModel* sortedOps() const { return opsSorted_; }
    QTableView* opTable() const { return opTable_; }
    TensorListModel* inputs() const { return inputs_; }
    TensorListModel* outputs() const { return outputs_; }
    QStringList warnings() const;
    QString runnableText() const;

protected:
    void changeEvent(QEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void showEvent(QShowEvent* event) override;

private:
    struct FigureWidgets {
        QFrame* card = nullptr;
        QLabel* caption = nullptr;
        ElidedLabel* value = nullptr;
    };
    QWidget* buildFigures();
    QGroupBox* buildOpsBox();
    QGroupBox* buildTensorBox(TensorListModel* model, QTableView** view);
    QGroupBox* buildWarningsBox();
    void fillFigures(const ModelSummary& s);
    void reflowFigures();
    void fitTensorTables();
    void showCurrentPage();
    void retranslateUi();
    void updateGroupTitles();
    FigureWidgets& figure(Figure f) { return figures_[size_t(f)]; }

    QStackedWidget* stack_;
    QLabel* placeholder_;
    QLabel* title_;
    QLabel* path_;
    QLabel* runnable_; // whether tapas-worker runs the model, or what it lacks
    std::array<FigureWidgets, kFigureCount> figures_{};
    QGridLayout* figureGrid_ = nullptr;
    int figureColumns_ = 0;
    OpHistogramModel* ops_;
    QSortFilterProxyModel* opsSorted_;
    QTableView* opTable_ = nullptr;
    QTableView* inputsTable_ = nullptr;
    QTableView* outputsTable_ = nullptr;
    TensorListModel* inputs_;
    TensorListModel* outputs_;
    QStandardItemModel* warnings_;
    QGroupBox* opsBox_ = nullptr;
    QGroupBox* inputsBox_ = nullptr;
    QGroupBox* outputsBox_ = nullptr;
    QGroupBox* warningsBox_ = nullptr;
    QListView* warningsView_ = nullptr;
    QLabel* noWarnings_ = nullptr;
    ModelSummary summary_;
    QString location_;
    bool hasSummary_ = false;
};

} // namespace tapas
