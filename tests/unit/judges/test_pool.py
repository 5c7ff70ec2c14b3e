"""The process's connections: several small httpx pools, each call through the least busy one."""

from __future__ import annotations

import asyncio

import httpx

from pytest_ora.judges.pool import SHARD, ShardedTransport, network_transport


class _Held(httpx.AsyncBaseTransport):
    """A pool stand-in that answers once the test lets it, counting the calls it was given."""

    def __init__(self, gate: asyncio.Event) -> None:
        self.gate = gate
        self.calls = 0
        self.closed = False

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        self.calls += 1
        await self.gate.wait()
        return httpx.Response(200, content=b"ok", request=request)

    async def aclose(self) -> None:
        self.closed = True


def test_each_call_goes_through_the_pool_with_the_fewest_calls_in_flight() -> None:
    async def scenario() -> tuple[list[int], list[int], list[bool]]:
        gate = asyncio.Event()
        shards = [_Held(gate) for _ in range(3)]
        transport = ShardedTransport(list(shards))
        async with httpx.AsyncClient(transport=transport) as client:
            # When seven calls are in flight at once
            sending = [asyncio.create_task(client.get("http://judge.test/")) for _ in range(7)]
            await asyncio.sleep(0.05)
            spread = [shard.calls for shard in shards]
            gate.set()
            responses = await asyncio.gather(*sending)
            # And once they are answered, three more go one at a time
            for _ in range(3):
                await client.get("http://judge.test/")
            after = [shard.calls for shard in shards]
            assert all(response.text == "ok" for response in responses)
        return spread, after, [shard.closed for shard in shards]

    spread, after, closed = asyncio.run(scenario())
    # Then the calls in flight were spread evenly, and a call alone goes to the first pool
    assert spread == [3, 2, 2]
    assert after == [6, 2, 2]
    # And closing the transport closes every pool
    assert closed == [True, True, True]


def test_the_connections_are_split_in_pools_of_at_most_sixteen() -> None:
    assert isinstance(network_transport(SHARD), httpx.AsyncHTTPTransport)  # one pool: no sharding
    wide = network_transport(96)
    assert isinstance(wide, ShardedTransport) and len(wide._shards) == 6
    odd = network_transport(100)
    assert isinstance(odd, ShardedTransport) and len(odd._shards) == 7  # 7 pools of 15
