"""--ora-batch end to end against the reference judge's batch interfaces, and those interfaces themselves."""

from __future__ import annotations

import fnmatch
import inspect
import tempfile
from typing import Any

import httpx
import pytest
from support.live_project import EXPECTED, interrupted_run, live_calls, live_project, outcomes

from pytest_ora.judges.batch import BATCH_STATE_DIR, job
from pytest_ora.testing.server import Fault, ReferenceJudge

KEYS = {"ANTHROPIC_API_KEY": "ora-batch-test-key-a", "OPENAI_API_KEY": "ora-batch-test-key-b"}


@pytest.fixture
def reference_judge_options() -> dict[str, Any]:
    return {"batch_delay": 0.3}


@pytest.fixture
def project(pytester: pytest.Pytester, judge: ReferenceJudge, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    return live_project(pytester, judge, monkeypatch, KEYS)


def test_a_batch_run_judges_through_both_batch_apis_and_replays_like_any_other(
    project: pytest.Pytester, judge: ReferenceJudge
) -> None:
    result = project.runpytest("--ora-record", "once", "--ora-batch")
    assert outcomes(result) == EXPECTED
    # Then one batch a provider was made, and no judge call went live
    assert [batch_id.split("_")[0] for batch_id in judge.batches.created] == ["msgbatch", "batch"]
    assert live_calls(judge) == 0
    result.stdout.fnmatch_lines(
        [
            "*ora: batch msgbatch_* of Judge A (big-1) submitted: 8 requests*",
            "*ora: batch batch_* of Judge B: completed, 8/8 done*",
        ]
    )
    methodology = (project.path / "ora-results" / "methodology.md").read_text(encoding="utf-8")
    assert "judged through provider batch APIs: 16 requests in 2 batches, 16 answered" in methodology
    assert "at the batch rate (50% of list prices)" in methodology
    assert not list((project.path / "cassettes").rglob("*.partial"))
    # And the finished cassettes replay offline
    judge.reset()
    again = project.runpytest("--ora-out", "replayed")
    assert outcomes(again) == EXPECTED
    assert judge.calls == 0


def test_an_invalid_batch_answer_is_re_asked_live(project: pytest.Pytester, judge: ReferenceJudge) -> None:
    judge.inject(Fault("prose", provider="openai", times=1))
    result = project.runpytest("--ora-record", "once", "--ora-batch")
    assert outcomes(result) == EXPECTED
    assert live_calls(judge) == 1  # the one re-ask with its correction


def test_an_expired_batch_leaves_its_requests_to_live_calls(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    with ReferenceJudge(batch_delay=0.1, batch_expire=True) as judge:
        live_project(pytester, judge, monkeypatch, KEYS)
        result = pytester.runpytest("--ora-record", "once", "--ora-batch")
        assert outcomes(result) == EXPECTED
        assert live_calls(judge) == 16


def test_an_interrupted_batch_run_resumes_polling_without_submitting_again(
    project: pytest.Pytester, judge: ReferenceJudge
) -> None:
    judge.batches.delay = 30.0  # the batches stay in progress until the test lets them end
    states = project.path / "cassettes" / BATCH_STATE_DIR
    code, output = interrupted_run(
        project, ["--ora-record", "once", "--ora-batch"], lambda: len(list(states.glob("*.json"))) >= 2
    )
    assert code == pytest.ExitCode.INTERRUPTED, output
    assert len(judge.batches.created) == 2 and len(list(states.glob("*.json"))) == 2
    # When the run is repeated after the batches ended
    judge.batches.delay = 0.0
    again = project.runpytest("--ora-record", "once", "--ora-batch")
    # Then it polled the same two batches, submitted none, and judged nothing live
    assert outcomes(again) == EXPECTED
    assert len(judge.batches.created) == 2
    assert live_calls(judge) == 0
    again.stdout.fnmatch_lines(["*found: resuming polling*"])
    assert not list(states.glob("*.json"))
    methodology = (project.path / "ora-results" / "methodology.md").read_text(encoding="utf-8")
    assert "(2 resumed after an interruption, not submitted again)" in methodology


def test_batch_needs_a_recording_mode(project: pytest.Pytester) -> None:
    result = project.runpytest("--ora-batch")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--ora-batch records judge calls: use it with --ora-record once or new_episodes*"])


def test_the_reference_judge_refuses_a_batch_without_a_key(judge: ReferenceJudge) -> None:
    response = httpx.post(
        judge.url + "/v1/messages/batches", json={"requests": []}, headers={"anthropic-version": "2023-06-01"}
    )
    assert response.status_code == 401
    missing = httpx.get(judge.url + "/v1/batches/batch_nope", headers={"authorization": "Bearer k"})
    assert missing.status_code == 404


def test_a_budget_batches_only_the_captures_whose_estimate_fits(
    project: pytest.Pytester, judge: ReferenceJudge
) -> None:
    # Given prices that make each capture cost about two dollars at the batch rate
    project.path.joinpath("prices.yaml").write_text(
        "claude-opus: {input: 1000, output: 1000}\ngpt-5: {input: 1000, output: 1000}\n"
    )

    result = project.runpytest(
        "--ora-record", "once", "--ora-batch", "--ora-budget-usd", "5", "--ora-prices", "prices.yaml"
    )

    # Then the first captures in plan order are batched, as many as the estimate lets fit, and the run says so
    line = next(text for text in result.outlines if "ora: --ora-budget-usd:" in text)
    batched, total = (int(word) for word in line.split(":")[2].split()[:3:2])
    assert total == 8 and 0 < batched < total
    result.stdout.fnmatch_lines(
        [
            f"*ora: batch msgbatch_* of Judge A (big-1) submitted: {batched} requests*",
            f"*ora: batch batch_* of Judge B (big-2) submitted: {batched} requests*",
        ]
    )
    methodology = (project.path / "ora-results" / "methodology.md").read_text(encoding="utf-8")
    assert (
        f"{total - batched} captures left out of the batches: their estimated cost did not fit --ora-budget-usd"
        in methodology
    )
    # And what the batches left out is judged live only while the budget allows: never all of it
    assert live_calls(judge) < 2 * (total - batched)
    # And the spend the terminal reports counts the batches, at their rate, in its total
    spend = next(text for text in result.outlines if text.startswith("ora: judges on this machine, nothing paid"))
    assert "provider batches: $" in spend and "total: $" in spend


# --- batches per route API, split, resilient polling -----------------------------------


class FakeClock:
    """The polling's clock and sleep: sleeping advances the clock, nothing waits."""

    def __init__(self) -> None:
        self.now = 0.0
        self.sleeps: list[float] = []

    def clock(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds


@pytest.fixture
def fake_clock(monkeypatch: pytest.MonkeyPatch) -> FakeClock:
    fake = FakeClock()
    monkeypatch.setattr(job, "_SLEEP", fake.sleep)
    monkeypatch.setattr(job, "_CLOCK", fake.clock)
    return fake


def test_a_responses_route_batches_to_the_responses_endpoint_and_uploads_to_the_api_root(
    pytester: pytest.Pytester, judge: ReferenceJudge, monkeypatch: pytest.MonkeyPatch, fake_clock: FakeClock
) -> None:
    judge.batches.delay = 0.0
    project = live_project(pytester, judge, monkeypatch, KEYS, openai_api="responses")
    result = project.runpytest("--ora-record", "once", "--ora-batch")
    assert outcomes(result) == EXPECTED, result.stdout.str()[-3000:]
    assert live_calls(judge) == 0
    upload = [r for r in judge.requests if r.method == "POST" and "files" in r.path]
    create = [r for r in judge.requests if r.method == "POST" and r.path == "/v1/batches"]
    assert [r.path for r in upload] == ["/v1/files"]
    assert create[0].json()["endpoint"] == "/v1/responses"
    assert b'"url":"/v1/responses"' in upload[0].body and b"/v1/chat/completions" not in upload[0].body
    # And the batch answers replay offline like any other run
    judge.reset()
    again = project.runpytest("--ora-out", "replayed")
    assert outcomes(again) == EXPECTED and judge.calls == 0


def test_ora_batch_max_splits_each_judges_requests_and_every_batch_is_answered(
    project: pytest.Pytester, judge: ReferenceJudge, fake_clock: FakeClock
) -> None:
    judge.batches.delay = 0.0
    result = project.runpytest("--ora-record", "once", "--ora-batch", "--ora-batch-max", "3")
    assert outcomes(result) == EXPECTED
    assert len(judge.batches.created) == 6 and live_calls(judge) == 0
    result.stdout.fnmatch_lines(["*8 requests of Judge A split into 3 batches (at most 3 requests each)*"])
    methodology = (project.path / "ora-results" / "methodology.md").read_text(encoding="utf-8")
    assert "16 requests in 6 batches, 16 answered" in methodology


def test_split_keeps_each_batch_within_the_providers_request_and_byte_limits(monkeypatch: pytest.MonkeyPatch) -> None:
    from pytest_ora.judges.batch import anthropic as anthropic_batch
    from pytest_ora.judges.batch.base import Pending

    pending = [
        Pending(f"r{i}", f"c{i}", "Judge A", "u", b'{"model":"m","pad":"' + b"x" * 900 + b'"}') for i in range(10)
    ]
    assert [len(b) for b in job.split(pending, "anthropic", "http://h/v1/messages")] == [10]
    assert [len(b) for b in job.split(pending, "anthropic", "http://h/v1/messages", batch_max=4)] == [4, 4, 2]
    monkeypatch.setattr(anthropic_batch, "MAX_BYTES", 1024 + 3 * 1000)  # three ~950-byte requests fit
    assert [len(b) for b in job.split(pending, "anthropic", "http://h/v1/messages")] == [3, 3, 3, 1]
    monkeypatch.setattr(anthropic_batch, "MAX_REQUESTS", 2)
    assert [len(b) for b in job.split(pending, "anthropic", "http://h/v1/messages")] == [2] * 5
    # The documented limits themselves
    assert (anthropic_batch.MAX_REQUESTS, job.openai.MAX_REQUESTS, job.openai.MAX_BYTES) == (2, 50_000, 200_000_000)


def test_a_poll_meeting_a_529_and_a_500_carries_on(
    project: pytest.Pytester, judge: ReferenceJudge, fake_clock: FakeClock
) -> None:
    judge.batches.delay = 0.0
    judge.batches.fail_next(529, 500, method="GET")
    result = project.runpytest("--ora-record", "once", "--ora-batch")
    assert outcomes(result) == EXPECTED
    assert judge.batches.faulted == 2 and live_calls(judge) == 0
    result.stdout.fnmatch_lines(
        ["*polling batch msgbatch_*: HTTP 529, retrying in *", "*polling batch msgbatch_*: HTTP 500, retrying in *"]
    )
    assert len(fake_clock.sleeps) >= 2  # the backoff waited on the fake clock, not the real one


def test_a_poll_failing_past_the_retry_bound_stops_resumably_and_the_next_run_resumes(
    project: pytest.Pytester, judge: ReferenceJudge, fake_clock: FakeClock
) -> None:
    judge.batches.delay = 0.0
    judge.batches.fail_next(*[503] * 20, method="GET")
    result = project.runpytest("--ora-record", "once", "--ora-batch", "--ora-retries", "2")
    assert result.ret == pytest.ExitCode.INTERRUPTED
    assert "INTERNALERROR" not in result.stdout.str() + result.stderr.str()
    assert fnmatch.fnmatch(
        result.stdout.str(),
        "*polling batch msgbatch_* failed after 3 attempts (HTTP 503*re-run the same command to resume polling*",
    )
    states = project.path / "cassettes" / BATCH_STATE_DIR
    assert len(list(states.glob("*.json"))) == 2  # both batch ids kept
    # When the provider recovers, the same command resumes both batches and submits nothing new
    assert judge.batches.faulted == 3
    judge.batches.clear_faults()
    again = project.runpytest("--ora-record", "once", "--ora-batch")
    assert outcomes(again) == EXPECTED
    assert len(judge.batches.created) == 2 and live_calls(judge) == 0
    assert not list(states.glob("*.json"))


def test_a_batch_stuck_in_progress_stops_resumably_instead_of_polling_forever(
    project: pytest.Pytester, judge: ReferenceJudge, fake_clock: FakeClock
) -> None:
    judge.batches.delay = 10**9  # never ends while this run polls
    result = project.runpytest("--ora-record", "once", "--ora-batch")
    assert result.ret == pytest.ExitCode.INTERRUPTED
    assert fnmatch.fnmatch(
        result.stdout.str(), "*is still in_progress after 2?.? hours of polling*it looks stuck*resume polling*"
    )
    assert fake_clock.now <= job.MAX_WAIT
    assert len(list((project.path / "cassettes" / BATCH_STATE_DIR).glob("*.json"))) == 2


def test_the_batch_caller_retries_timeouts_and_dropped_connections_within_the_bound() -> None:
    from pytest_ora.judges.batch.http import BatchStopped, Caller
    from pytest_ora.judges.transport import RetryPolicy

    faults: list[Exception | int] = [httpx.ReadTimeout("slow"), httpx.RemoteProtocolError("dropped"), 529, 200]

    def answer(request: httpx.Request) -> httpx.Response:
        fault = faults.pop(0)
        if isinstance(fault, Exception):
            raise fault
        return httpx.Response(fault, json={"ok": True})

    slept: list[float] = []
    caller = Caller(httpx.Client(transport=httpx.MockTransport(answer)), RetryPolicy(max_attempts=6), slept.append)
    assert caller.call("GET", "http://judge/v1/batches/b", "polling").json() == {"ok": True}
    assert len(slept) == 3 and caller.retried == 3
    refusing = Caller(
        httpx.Client(transport=httpx.MockTransport(lambda r: httpx.Response(401, text="no key"))),
        RetryPolicy(),
        slept.append,
    )
    with pytest.raises(BatchStopped, match="HTTP 401"):
        refusing.call("GET", "http://judge/v1/batches/b", "polling")


# --- the request bodies streamed into the uploads, never all held --------------------------------

JUDGES = (
    ("Judge A", "big-1", "anthropic", "http://judge.test/v1/messages"),
    ("Judge B", "big-2", "openai", "http://judge.test/v1/chat/completions"),
)


def _slots() -> Any:
    from pytest_ora.core.models import RoleSpec
    from pytest_ora.core.plan import JudgeSlot

    return tuple(
        JudgeSlot(label, role, role, RoleSpec(model="m", provider=provider, route=route))
        for label, role, provider, route in JUDGES
    )


def _synthetic_asks(captures: int, size: int) -> Any:
    """A stand-in for job._asks: each capture's two requests of about `size` bytes, built when asked for."""
    from pytest_ora.judges.batch.base import Pending

    def asks(root: Any, judging: Any, library: Any, selected: Any, judges: dict[str, Any]) -> Any:
        for index in range(captures):
            capture_id = f"mode:entry-{index}/optimum"
            yield [
                Pending(
                    f"r{index}-{judge.role}",
                    capture_id,
                    judge.label,
                    judge.spec.route,
                    b'{"model":"m","n":%d,"pad":"%s"}' % (index, b"x" * size),
                )
                for judge in judges.values()
            ]

    return asks


class StreamingJudge(httpx.BaseTransport):
    """Batch endpoints of both providers as a transport that reads each upload chunk by chunk (httpx.MockTransport
    would read it whole first): its digest and size kept, never its bytes. Every batch ends at once with no results
    (their requests would be asked live)."""

    def __init__(self, refuse_first: bool = False) -> None:
        self.uploads: list[tuple[str, int, str]] = []
        """(path, bytes, sha256) of each batch body or input file, in the order received."""
        self.refused: list[tuple[str, int, str]] = []
        self._refuse = {"/v1/messages/batches", "/v1/files"} if refuse_first else set()

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        import hashlib

        path = request.url.path
        if request.method == "POST" and path in ("/v1/messages/batches", "/v1/files"):
            with tempfile.TemporaryFile() as spool:  # on disk: the test's traced memory holds no upload
                for chunk in request.stream:  # type: ignore[union-attr]
                    spool.write(chunk)
                start, end = 0, spool.tell()
                if path == "/v1/files":  # the multipart's file part: after its headers, before the closing boundary
                    boundary = request.headers["content-type"].split("boundary=")[1].encode()
                    spool.seek(0)
                    head = spool.read(4096)
                    start = head.index(b"\r\n\r\n", head.index(b'name="file"')) + 4
                    end -= len(b"\r\n--" + boundary + b"--\r\n")
                spool.seek(start)
                digest = hashlib.sha256()
                while spool.tell() < end:
                    digest.update(spool.read(min(1 << 16, end - spool.tell())))
            if path in self._refuse:  # read whole, then a transient fault: the caller sends it again
                self._refuse.discard(path)
                self.refused.append((path, end - start, digest.hexdigest()))
                return httpx.Response(503)
            self.uploads.append((path, end - start, digest.hexdigest()))
            number = len(self.uploads)
            return httpx.Response(200, json={"id": f"msgbatch_{number}" if "messages" in path else f"file-{number}"})
        if request.method == "POST" and path == "/v1/batches":
            return httpx.Response(200, json={"id": "batch_" + request.read().decode()[-20:].strip('"}')[-6:]})
        if path.startswith("/v1/messages/batches/") and not path.endswith("/results"):
            return httpx.Response(
                200,
                json={
                    "processing_status": "ended",
                    "request_counts": {"errored": 1},
                    "results_url": f"http://judge.test{path}/results",
                },
            )
        if path.endswith("/results"):
            return httpx.Response(200, content=b"")
        if path.startswith("/v1/batches/"):
            return httpx.Response(200, json={"status": "completed", "request_counts": {"total": 1, "failed": 1}})
        return httpx.Response(404)


def _run_synthetic(
    tmp_path: Any,
    monkeypatch: pytest.MonkeyPatch,
    captures: int,
    size: int,
    batch_max: int | None = None,
    server: StreamingJudge | None = None,
) -> tuple[StreamingJudge, job.BatchSummary, list[str]]:
    from pytest_ora.core.plan import Panel
    from pytest_ora.judges.budget import SpendLog
    from pytest_ora.judges.cassettes import CassetteLibrary
    from pytest_ora.judges.panel import Judging
    from pytest_ora.method.rubric import ORA_V1

    monkeypatch.setattr(job, "_asks", _synthetic_asks(captures, size))
    judging = Judging(Panel(_slots(), "two judges"), ORA_V1, environ=dict(KEYS))
    library = CassetteLibrary(tmp_path / "cassettes", "once")
    server = server or StreamingJudge()
    said: list[str] = []
    with httpx.Client(transport=server) as client:
        summary = job.run_batches(
            tmp_path,
            judging,
            library,
            [],
            {},
            SpendLog(tmp_path / "spend", "t"),
            said.append,
            client,
            batch_max=batch_max,
        )
    return server, summary, said


def _expected_uploads(captures: int, size: int, batch_max: int | None = None) -> list[tuple[str, int, str]]:
    """What each upload must be, byte for byte: the provider's HEAD, its items joined, TAIL; split as job.split does."""
    import hashlib

    slots = {slot.label: slot for slot in _slots()}
    everything = [ask for asks in _synthetic_asks(captures, size)(None, None, None, None, slots) for ask in asks]
    expected = []
    for slot in slots.values():
        module: Any = job._MODULES[slot.spec.provider]
        mine = [pending for pending in everything if pending.label == slot.label]
        for part in job.split(mine, slot.spec.provider, slot.spec.route, batch_max):
            body = module.HEAD + module.SEPARATOR.join(module.item(slot.spec.route, p) for p in part) + module.TAIL
            path = "/v1/messages/batches" if slot.spec.provider == "anthropic" else "/v1/files"
            expected.append((path, len(body), hashlib.sha256(body).hexdigest()))
    return expected


def test_the_batch_step_never_holds_every_request_body(
    tmp_path: Any, monkeypatch: pytest.MonkeyPatch, fake_clock: FakeClock
) -> None:
    import tracemalloc

    # Given 150 captures whose two requests are 100 KB each: 30 MB of request bodies
    captures, size = 150, 100_000
    tracemalloc.start()
    try:
        server, summary, _ = _run_synthetic(tmp_path, monkeypatch, captures, size)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    # Then every request was uploaded, each upload exactly the body a batch of them is
    assert inspect.isgeneratorfunction(job._asks)  # the real requests are built as the uploads take them
    assert summary.requests == 2 * captures and summary.batches == 2
    uploaded = sum(length for _, length, _ in server.uploads)
    assert uploaded > 2 * captures * size
    assert server.uploads == _expected_uploads(captures, size)
    # And the step never held them all: each body was written into its upload as it was built, then dropped
    assert peak < uploaded / 10, f"traced peak {peak:,} bytes for {uploaded:,} bytes of requests"


def test_the_uploads_are_split_where_split_puts_the_limits(
    tmp_path: Any, monkeypatch: pytest.MonkeyPatch, fake_clock: FakeClock
) -> None:
    from pytest_ora.judges.batch import anthropic as anthropic_batch

    # Given byte limits that fit about three 1 KB Anthropic requests and five OpenAI ones, and --ora-batch-max 4
    monkeypatch.setattr(anthropic_batch, "MAX_BYTES", 1024 + 3 * 1100)
    monkeypatch.setattr(job.openai, "MAX_BYTES", 1024 + 5 * 1200)
    server, summary, said = _run_synthetic(tmp_path, monkeypatch, 10, 1000, batch_max=4)
    expected = _expected_uploads(10, 1000, batch_max=4)
    # Then the uploads are the batches split() makes of the same requests, in the same order, byte for byte
    assert server.uploads == expected
    assert [path for path, _, _ in expected].count("/v1/messages/batches") == 4  # 3, 3, 3, 1
    assert [path for path, _, _ in expected].count("/v1/files") == 3  # 4, 4, 2
    assert summary.batches == 7 and summary.requests == 20
    assert "ora: 10 requests of Judge A split into 4 batches (at most 3 requests each)" in said
    assert "ora: 10 requests of Judge B split into 3 batches (at most 4 requests each)" in said


def test_a_retried_upload_sends_the_whole_file_again(
    tmp_path: Any, monkeypatch: pytest.MonkeyPatch, fake_clock: FakeClock
) -> None:
    # Given a judge that answers each provider's first upload with a 503 after reading it
    server, summary, said = _run_synthetic(tmp_path, monkeypatch, 5, 1000, server=StreamingJudge(refuse_first=True))
    # Then the retry streamed the same bytes again from the start, and both batches were created
    assert server.refused == server.uploads == _expected_uploads(5, 1000)
    assert summary.batches == 2
    assert any("HTTP 503, retrying in" in line for line in said)
