"""The test certificates (odradek/pki.py, shared with the bench's TLS rows)."""

from odradek.pki import Pair, Pki, make_pki

__all__ = ["Pair", "Pki", "make_pki"]
