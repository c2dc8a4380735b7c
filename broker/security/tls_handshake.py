"""Failed TLS handshakes, logged.

A listener's TLS runs in the event loop's SSL protocol (`loop.create_server(ssl=...)`), which
closes a connection whose handshake fails without a word: an `ssl.SSLError` is an OSError,
which it reports only in debug mode. Plaintext sent to a TLS port, or a client without the
certificate mutual TLS requires, would go unseen. The listener's context therefore makes its
SSL objects of a class whose handshake reports the failure, as Kafka's `SslTransportLayer`
logs "SSL handshake failed". The peer address is not known at that level; the listener is.
"""

from __future__ import annotations

import ssl

from broker.logging import get_logger

log = get_logger("odradek.tls")


class _HandshakeReportingSSLObject(ssl.SSLObject):
    listener = ""

    def do_handshake(self) -> None:
        try:
            super().do_handshake()
        except (ssl.SSLWantReadError, ssl.SSLWantWriteError):
            raise  # more bytes to exchange: not a failure
        except ssl.SSLError as exc:
            log.warning("tls handshake failed", listener=self.listener, reason=exc.reason, error=str(exc))
            raise


def report_failed_handshakes(context: ssl.SSLContext, listener: str) -> None:
    """Make `context`'s connections on `listener` log a failed handshake."""
    context.sslobject_class = type(
        "HandshakeReportingSSLObject", (_HandshakeReportingSSLObject,), {"listener": listener}
    )
