#include "runtime/launch/metrics_server.h"

#include <QHostAddress>
#include <QRandomGenerator>
#include <QTcpServer>
#include <QTcpSocket>

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

void MetricsServer::onNewConnection()
{
    while (QTcpSocket* s = server_->nextPendingConnection()) {
        connect(s, &QTcpSocket::readyRead, this, [this, s] { onReadyRead(s); });
        connect(s, &QTcpSocket::disconnected, s, &QObject::deleteLater);
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
                ++rejected_;
                Q_EMIT connectionRejected(QStringLiteral("a connection without this run's token was dropped"));
                s->abort();
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
        ++rejected_;
        Q_EMIT connectionRejected(QStringLiteral("a connection sent no hello line"));
        s->abort();
    }
}

} // namespace tapas::runtime
