"""One module per API; `build_router` wires each handler to the versions it serves."""

from __future__ import annotations

from broker.handlers import api_versions, metadata
from broker.router import Router


def build_router() -> Router:
    router = Router()
    router.add(api_versions.API_KEY, api_versions.handle)
    router.add(metadata.API_KEY, metadata.handle)
    return router
