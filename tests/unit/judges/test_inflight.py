"""Calls in flight: one limit over every call a process sends, candidates' and judges' alike."""

from __future__ import annotations

import asyncio

import httpx

from pytest_ora.judges.inflight import LimitedTransport


def test_when_more_calls_are_sent_than_the_limit_then_the_others_wait_and_every_call_is_answered() -> None:
    now = {"in_flight": 0, "peak": 0}

    async def slow(request: httpx.Request) -> httpx.Response:
        now["in_flight"] += 1
        now["peak"] = max(now["peak"], now["in_flight"])
        await asyncio.sleep(0.02)
        now["in_flight"] -= 1
        return httpx.Response(200, json={"path": request.url.path})

    async def main() -> list[str]:
        transport = LimitedTransport(httpx.MockTransport(slow), 3)
        async with httpx.AsyncClient(transport=transport) as client:
            replies = await asyncio.gather(*(client.post(f"http://judge.test/call/{n}") for n in range(10)))
        return [reply.json()["path"] for reply in replies]

    assert asyncio.run(main()) == [f"/call/{n}" for n in range(10)]
    assert now["peak"] == 3


def test_when_a_call_fails_then_its_place_in_flight_is_given_back() -> None:
    async def refuse(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("refused", request=request)

    async def main() -> int:
        transport = LimitedTransport(httpx.MockTransport(refuse), 1)
        failed = 0
        async with httpx.AsyncClient(transport=transport) as client:
            for _ in range(3):  # with the place kept by a failed call, the second would wait for ever
                try:
                    await asyncio.wait_for(client.post("http://judge.test/"), timeout=2)
                except httpx.ConnectError:
                    failed += 1
        return failed

    assert asyncio.run(main()) == 3
