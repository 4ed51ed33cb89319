#include "runtime/launch/metrics_server.h"

#include <QHostAddress>
#include <QRandomGenerator>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTimer>

namespace tapas::runtime {

namespace {
// A hello longer than this is not a hello: drop the peer instead of buffering it.
constexpr qint64 kMaxHelloBytes = 4096;
const char* kAccepted = "tapasAccepted";
} // namespace

MetricsServer::MetricsServer(QObject* parent) : QObject(parent) {}

MetricsServer::~MetricsServer()
{
    close();
}

QString MetricsServer::randomToken()
{
    QString t;
    for (int i = 0; i < 4; ++i)
        t += QStringLiteral("%1").arg(QRandomGenerator::system()->generate(), 8, 16, QLatin1Char('0'));
    return t;
}

bool MetricsServer::listen(const QString& runId)
{
    close();
    runId_ = runId;
    token_ = randomToken();
    hello_ = false;
    server_ = new QTcpServer(this);
    connect(server_, &QTcpServer::newConnection, this, &MetricsServer::onNewConnection);
    // Loopback only: the worker's rank 0 runs where the launcher runs or reaches it through
    // mpirun's host; nothing else on the network may feed a run's metrics.
    if (!server_->listen(QHostAddress::LocalHost, 0)) {
        error_ = QStringLiteral("cannot listen on 127.0.0.1: ") + server_->errorString();
        delete server_;
        server_ = nullptr;
        return false;
    }
    return true;
}

void MetricsServer::close()
{
    if (!server_) return;
    server_->close();
    delete server_; // its child sockets go with it
    server_ = nullptr;
}

void MetricsServer::drain(int msecs)
{
    if (!server_) return;
    for (QTcpSocket* s : server_->findChildren<QTcpSocket*>()) {
        if (s->state() == QAbstractSocket::ConnectedState) s->waitForReadyRead(msecs);
        if (s->bytesAvailable() > 0) onReadyRead(s);
    }
}

quint16 MetricsServer::port() const
{
    return server_ ? server_->serverPort() : 0;
}

int MetricsServer::openConnections() const
{
    int n = 0;
    for (QTcpSocket* s : server_->findChildren<QTcpSocket*>())
        if (s->state() == QAbstractSocket::ConnectedState) ++n;
    return n;
}

void MetricsServer::drop(QTcpSocket* s, const QString& why)
{
    ++rejected_;
    Q_EMIT connectionRejected(why);
    s->abort();
    s->deleteLater();
}

void MetricsServer::onNewConnection()
{
    while (QTcpSocket* s = server_->nextPendingConnection()) {
        if (openConnections() > limits_.maxConnections) { // the new one counts itself
            drop(s, QStringLiteral("a connection beyond the cap of %1 was refused").arg(limits_.maxConnections));
            continue;
        }
        // Qt stops reading from the peer once this much is buffered: memory stays bounded
        // whatever it sends, and a full buffer without a line end is an oversized line.
        s->setReadBufferSize(limits_.maxLineBytes + 1);
        connect(s, &QTcpSocket::readyRead, this, [this, s] { onReadyRead(s); });
        connect(s, &QTcpSocket::disconnected, s, &QObject::deleteLater);
        QTimer::singleShot(limits_.helloTimeoutMs, s, [this, s] {
            if (!s->property(kAccepted).toBool() && s->state() == QAbstractSocket::ConnectedState)
                drop(s, QStringLiteral("a connection sent no hello within %1 ms").arg(limits_.helloTimeoutMs));
        });
    }
}

void MetricsServer::onReadyRead(QTcpSocket* s)
{
    while (s->canReadLine()) {
        const QByteArray raw = s->readLine();
        const std::string line = raw.trimmed().toStdString();
        if (!s->property(kAccepted).toBool()) {
            std::string runId, token;
            if (!protocol::parseHelloLine(line, runId, token) || QString::fromStdString(token) != token_) {
                drop(s, QStringLiteral("a connection without this run's token was dropped"));
                return;
            }
            s->setProperty(kAccepted, true);
            hello_ = true;
            Q_EMIT helloAccepted();
            continue;
        }
        if (line.empty()) continue;
        auto e = protocol::parseJsonLine(line, "metrics socket");
        if (!e) {
            ++badLines_;
            continue; // the file keeps the record; a garbled socket line is not fatal
        }
        Q_EMIT eventReceived(*e);
    }
    if (!s->property(kAccepted).toBool() && s->bytesAvailable() > kMaxHelloBytes) {
        drop(s, QStringLiteral("a connection sent no hello line"));
        return;
    }
    if (s->bytesAvailable() > limits_.maxLineBytes) {
        ++oversized_;
        drop(s, QStringLiteral("a line longer than %1 bytes dropped the connection").arg(limits_.maxLineBytes));
    }
}

} // namespace tapas::runtime
