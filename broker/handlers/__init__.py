"""One module per API; `build_router` wires each handler to the versions it serves."""

from __future__ import annotations

from broker.handlers import api_versions, fetch, list_offsets, metadata, produce
from broker.router import Router


def build_router() -> Router:
    router = Router()
    router.add(api_versions.API_KEY, api_versions.handle)
    router.add(metadata.API_KEY, metadata.handle)
    router.add(
        produce.API_KEY,
        produce.handle,
        min_version=produce.MIN_VERSION,
        advertised_min_version=produce.ADVERTISED_MIN_VERSION,
    )
    router.add(fetch.API_KEY, fetch.handle, min_version=fetch.MIN_VERSION)
    router.add(list_offsets.API_KEY, list_offsets.handle)
    return router
