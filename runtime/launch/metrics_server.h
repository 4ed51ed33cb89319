#pragma once
// The launcher's end of the metrics socket: a QTcpServer on 127.0.0.1 (an ephemeral port)
// that accepts only a connection whose first line is the hello carrying this run's random
// token (docs/metrics-protocol.md); every later line is parsed into a MetricsEvent.
// Any local user can connect to a loopback port, so a peer is held to limits: a line longer
// than maxLineBytes drops the connection (the socket never buffers more than that), a peer
// without a valid hello after helloTimeoutMs is dropped, and beyond maxConnections open
// connections a new one is refused at once.
#include "runtime/protocol/metrics_event.h"

#include <QObject>
#include <QString>

class QTcpServer;
class QTcpSocket;

namespace tapas::runtime {

struct MetricsServerLimits {
    qint64 maxLineBytes = 1 << 20; // an event line is a few hundred bytes
    int helloTimeoutMs = 5000;     // rank 0 says hello as soon as it connects
    int maxConnections = 16;       // rank 0 needs one
};

class MetricsServer : public QObject {
    Q_OBJECT
public:
    explicit MetricsServer(QObject* parent = nullptr);
    ~MetricsServer() override;

    // Listens on 127.0.0.1 with a fresh random token. Returns false (see errorString()) when
    // no port could be bound.
    bool listen(const QString& runId);
    void close();
    // Reads what connected workers sent but the event loop has not delivered yet (call when
    // the worker has exited, before close(), so no socket line is lost).
    void drain(int msecs = 200);

    void setLimits(const MetricsServerLimits& limits) { limits_ = limits; }
    const MetricsServerLimits& limits() const { return limits_; }

    quint16 port() const;
    QString token() const { return token_; }
    QString errorString() const { return error_; }
    bool helloReceived() const { return hello_; }
    int rejectedConnections() const { return rejected_; }
    int badLines() const { return badLines_; }
    int oversizedLines() const { return oversized_; }

    // 32 hex digits from the system's random source.
    static QString randomToken();

Q_SIGNALS:
    void helloAccepted();
    void eventReceived(const tapas::protocol::MetricsEvent& event);
    void connectionRejected(const QString& why);

private:
    void onNewConnection();
    void onReadyRead(QTcpSocket* socket);
    void drop(QTcpSocket* socket, const QString& why);
    int openConnections() const;

    QTcpServer* server_ = nullptr;
    QString runId_, token_, error_;
    bool hello_ = false;
    int rejected_ = 0;
    int badLines_ = 0;
    int oversized_ = 0;
    MetricsServerLimits limits_;
};

} // namespace tapas::runtime
