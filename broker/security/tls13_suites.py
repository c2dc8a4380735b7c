"""TLS 1.3 cipher suites of an `ssl.SSLContext`.

OpenSSL keeps the TLS 1.3 suites apart from the older ones: `SSLContext.set_ciphers` sets
only the latter, and Python's ssl module has no binding for `SSL_CTX_set_ciphersuites`. The
function is called here through ctypes, from the library the `_ssl` module itself uses, on
the context's `SSL_CTX` (CPython's `PySSLContext` holds that pointer first, right after the
object header). The result is read back with `get_ciphers`, never assumed.
"""

from __future__ import annotations

import _ssl
import ctypes
import platform
import ssl
from collections.abc import Callable, Sequence
from functools import cache

# IANA and OpenSSL name the TLS 1.3 suites alike; no older suite has a name of this form.
TLS13_SUITES = frozenset({
    "TLS_AES_128_GCM_SHA256",
    "TLS_AES_256_GCM_SHA384",
    "TLS_CHACHA20_POLY1305_SHA256",
    "TLS_AES_128_CCM_SHA256",
    "TLS_AES_128_CCM_8_SHA256",
})


def is_tls13_suite(name: str) -> bool:
    return name in TLS13_SUITES


def tls13_suites(ctx: ssl.SSLContext) -> list[str]:
    """The context's TLS 1.3 suites, in its order of preference."""
    return [c["name"] for c in ctx.get_ciphers() if c["protocol"] == "TLSv1.3"]


def set_tls13_suites(ctx: ssl.SSLContext, suites: Sequence[str]) -> None:
    """Enables exactly `suites` for TLS 1.3, in that order; ValueError when this Python
    cannot, or when OpenSSL does not know one of them."""
    unknown = [s for s in suites if not is_tls13_suite(s)]
    if unknown:
        raise ValueError(f"not TLS 1.3 cipher suites: {', '.join(unknown)}")
    setter = _openssl_setter()
    if setter is None:
        raise ValueError("this Python's ssl module cannot restrict the TLS 1.3 cipher suites")
    ok = setter(_ssl_ctx_pointer(ctx), ":".join(suites).encode("ascii"))
    enabled = tls13_suites(ctx)
    if ok != 1 or enabled != list(suites):
        missing = [s for s in suites if s not in enabled]
        raise ValueError(f"TLS 1.3 cipher suites OpenSSL does not offer: {', '.join(missing) or suites}")


@cache
def _openssl_setter() -> Callable[[int, bytes], int] | None:
    if platform.python_implementation() != "CPython":
        return None
    try:
        # dlsym on `_ssl`'s handle searches the libssl it is linked with (or holds, if static).
        fn = ctypes.CDLL(_ssl.__file__).SSL_CTX_set_ciphersuites
    except (AttributeError, OSError):
        return None
    fn.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
    fn.restype = ctypes.c_int
    return fn


def _ssl_ctx_pointer(ctx: ssl.SSLContext) -> int:
    pointer = ctypes.c_void_p.from_address(id(ctx) + object.__basicsize__).value
    if not pointer:
        raise ValueError("the TLS context has no OpenSSL context")
    return pointer
