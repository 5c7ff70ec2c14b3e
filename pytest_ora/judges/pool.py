"""The process's connections to the providers: several small httpx pools in place of one large one.

httpcore's pool looks at every connection it holds each time a request is queued or a response is
released (is each idle, has each expired: a poll of every idle socket), so its cost per call grows
with its size. One pool of 96 connections spent most of a busy run's CPU there and slowed every
call (docs/performance.md). Pools of at most `SHARD` connections each, a call going to the one with
the fewest calls in flight, keep that look short while the process still holds as many connections
as calls it lets fly.
"""

from __future__ import annotations

import math

import httpx

__all__ = ["SHARD", "ShardedTransport", "network_transport"]

SHARD = 16
"""Connections in one pool at most."""


class ShardedTransport(httpx.AsyncBaseTransport):
    """Sends each request through the pool with the fewest calls in flight (the first such, in order)."""

    def __init__(self, shards: list[httpx.AsyncBaseTransport]) -> None:
        if not shards:
            raise ValueError("a sharded transport needs at least one pool")
        self._shards = shards
        self._busy = [0] * len(shards)

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        index = min(range(len(self._shards)), key=self._busy.__getitem__)
        self._busy[index] += 1
        try:
            response = await self._shards[index].handle_async_request(request)
            await response.aread()  # the connection is the pool's again once the body is in
            return response
        finally:
            self._busy[index] -= 1

    async def aclose(self) -> None:
        for shard in self._shards:
            await shard.aclose()


def network_transport(connections: int) -> httpx.AsyncBaseTransport:
    """Transport to the network holding up to `connections` connections, kept alive between calls."""
    count = max(1, math.ceil(connections / SHARD))
    size = max(1, math.ceil(connections / count))
    limits = httpx.Limits(max_connections=size, max_keepalive_connections=size)
    shards: list[httpx.AsyncBaseTransport] = [
        httpx.AsyncHTTPTransport(limits=limits, trust_env=False) for _ in range(count)
    ]
    return shards[0] if count == 1 else ShardedTransport(shards)
