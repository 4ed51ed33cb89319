#pragma once
// The launcher's end of the metrics socket: a QTcpServer on 127.0.0.1 (an ephemeral port)
// that accepts only a connection whose first line is the hello carrying this run's random
// token (docs/metrics-protocol.md); every later line is parsed into a MetricsEvent.
#include "runtime/protocol/metrics_event.h"

#include <QObject>
#include <QString>

class QTcpServer;
class QTcpSocket;

namespace tapas::runtime {

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

    quint16 port() const;
    QString token() const { return token_; }
    QString errorString() const { return error_; }
    bool helloReceived() const { return hello_; }
    int rejectedConnections() const { return rejected_; }
    int badLines() const { return badLines_; }

    // 32 hex digits from the system's random source.
    static QString randomToken();

Q_SIGNALS:
    void helloAccepted();
    void eventReceived(const tapas::protocol::MetricsEvent& event);
    void connectionRejected(const QString& why);

private:
    void onNewConnection();
    void onReadyRead(QTcpSocket* socket);

    QTcpServer* server_ = nullptr;
    QString runId_, token_, error_;
    bool hello_ = false;
    int rejected_ = 0;
    int badLines_ = 0;
};

} // namespace tapas::runtime
