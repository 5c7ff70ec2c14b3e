"""Write the example bundles under evals/examples/ (trio: the pilot; solo, checklist, compare: the judge skill).

The answers are synthetic and vary on purpose (method steps named, reasoning markers, hedges) so
the reference judge's scores spread across cells. Re-run, then re-record their cassettes with
scripts/record_example_cassettes.py.
"""

from __future__ import annotations

import json
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent / "evals" / "examples"

TRIO_TASKS = {
    "board-memo": {
        "persona": "You are advising the CFO of a 400-person logistics company.",
        "question": "Should the company consolidate its three regional warehouses into one hub next year?",
        "materials": (
            "Doc 1: warehouse leases end in 2027 (north), 2028 (south) and 2029 (east).\n"
            "Doc 2: freight costs rose 18 percent last year; the east site handles 52 percent of volume.\n"
            "Thread 3: the operations lead warns that a single hub adds one day to southern deliveries.\n"
            "Memo 4: the board wants a decision memo with costs, risks and a sequence."
        ),
        "steps": ["Map the materials", "Weigh the tradeoffs", "Recommend a sequence", "Name the owners"],
        "topic": "warehouse consolidation",
    },
    "pricing-review": {
        "persona": "You are advising the Partner who leads a consulting practice.",
        "question": "Should the practice move its audit-readiness offering from hourly billing to a fixed fee?",
        "materials": (
            "Doc 1: 38 engagements last year; median 210 hours, but the slowest quartile ran over 400 hours.\n"
            "Doc 2: two competitors publish fixed fees between 45,000 and 60,000 dollars.\n"
            "Thread 3: senior managers report scope creep in half of the engagements.\n"
            "Memo 4: the Partner wants a pricing recommendation before the next budget cycle."
        ),
        "steps": ["Map the materials", "Weigh the tradeoffs", "Recommend a sequence", "Name the owners"],
        "topic": "fixed-fee pricing",
    },
    "vendor-exit": {
        "persona": "You are advising the CEO of a mid-size software company.",
        "question": "Should the company exit its primary cloud vendor within eighteen months?",
        "materials": (
            "Doc 1: cloud spend is 21 percent of revenue; the contract renews in fourteen months.\n"
            "Doc 2: a migration estimate of nine engineer-years, with two critical data stores.\n"
            "Thread 3: the security team notes that the current vendor holds the audit certifications.\n"
            "Memo 4: the CEO needs a recommendation the board can act on next quarter."
        ),
        "steps": ["Map the materials", "Weigh the tradeoffs", "Recommend a sequence", "Name the owners"],
        "topic": "the cloud vendor exit",
    },
}

# The pilot's four cells: A Opus solo, B Opus + memory + harness, C Qwen solo, D Qwen + memory + harness.
CELLS = {
    "cell-a": {"steps": 2, "markers": 2, "hedges": 1, "model": {"agent": "claude-opus-4-7"}},
    "cell-b": {"steps": 4, "markers": 4, "hedges": 3, "model": {"agent": "claude-opus-4-7", "memory": "ora-memory-1"}},
    "cell-c": {"steps": 0, "markers": 0, "hedges": 0, "model": {"agent": "qwen3.6-35b-a3b"}},
    "cell-d": {"steps": 3, "markers": 3, "hedges": 2, "model": {"agent": "qwen3.6-35b-a3b", "memory": "ora-memory-1"}},
}
REASONS = [
    "because the lease dates set the order of any move",
    "therefore the cost case depends on the freight evidence",
    "since the delivery delay falls on one region only",
    "which implies the decision can be staged rather than made at once",
]
HEDGES = [
    "We assume the volumes stay near last year's.",
    "The estimate is uncertain by about a quarter.",
    "The main risk is the one-day delay; confidence in the savings is moderate.",
]


def trio_answer(task: dict, cell: dict) -> str:
    lines = [f"## Recommendation on {task['topic']}", ""]
    if cell["markers"] >= 3:
        lines += [f"The question put to us: {task.get('question', task['topic'])}", ""]
    if cell["steps"] == 0:
        return f"{task['topic'].capitalize()} is a big decision. It depends on many things and should be studied."
    for index, step in enumerate(task["steps"][: cell["steps"]], start=1):
        reason = REASONS[index - 1] if index <= cell["markers"] else "as the materials describe"
        lines += [f"{index}. **{step}**: for {task['topic']}, this step is worked {reason}.", ""]
    lines += HEDGES[: cell["hedges"]]
    return "\n".join(lines).strip()


def spec(task: dict) -> str:
    steps = "\n".join(f"{i}. **{s}**: see the task brief." for i, s in enumerate(task["steps"], start=1))
    return f"# Decision memo\n\n## Method\n\n{steps}\n"


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def trio() -> None:
    root = ROOT / "trio" / "bundle"
    write(
        root / "bundle.yaml",
        (
            "# The pilot shape: 3 tasks x 4 cells, judged blind by a trio on six Likert 1-5 dimensions.\n"
            "# Generated by scripts/make_example_bundles.py.\n"
            "bundle: trio-pilot-example\n"
            "created: 2026-04-26\n"
            "configurations: [cell-a, cell-b, cell-c, cell-d]   # A Opus solo, B Opus + harness, C Qwen solo, D Qwen + harness\n"
            "rubric: trio-likert-1.1\n"
            "panel: [judge-opus, judge-gpt, judge-minimax]       # judge labels A, B, C\n"
            "hypotheses:                                         # pre-registered, per task\n"
            "  - {id: H2, label: opus, better: cell-b, worse: cell-a, margin: 0.30}          # Opus multiplier\n"
            "  - {id: H3, label: qwen, better: cell-d, worse: cell-c, margin: 0.30}          # Qwen multiplier\n"
            "  - {id: H4, label: sovereignty, better: cell-d, worse: cell-a, margin: 0}      # sovereignty bridge: D >= A\n"
            "verdict: {per_hypothesis_at_least: 2, no_critical: true}    # PILOT "
            "PASS: each hypothesis directional in 2 of 3 tasks, no critical cell\n"
            "pilot:                                              # cells.jsonl and pilot-summary.json\n"
            "  id: agentic-knowledge-work-pilot-2026-04-26\n"
            "  manifest_anchor: pilot-2026-04-26-v1\n"
            "  cells:\n"
            "    A: {configuration: cell-a, model: claude-opus-4-7, setting: solo}\n"
            "    B: {configuration: cell-b, model: claude-opus-4-7, setting: memory-harness}\n"
            "    C: {configuration: cell-c, model: qwen3.6-35b-a3b, setting: solo}\n"
            "    D: {configuration: cell-d, model: qwen3.6-35b-a3b, setting: memory-harness}\n"
            "  tasks:\n"
            "    task-1: [task:board-memo]\n"
            "    task-2: [task:pricing-review]\n"
            "    task-3: [task:vendor-exit]\n"
            "labels: labels.jsonl                                        # human labels of all 12 responses: illustrative, see README.md\n"
        ),
    )
    # Hand-written, not generated: one person's scores of the 12 responses, copied as they are.
    write(root / "labels.jsonl", (Path(__file__).with_name("trio_labels.jsonl")).read_text(encoding="utf-8"))
    write(
        root / "optimum.yaml",
        (
            "# The trio rubric's trio, routed to the loopback reference judge for the recorded example.\n"
            "snapshot: trio-2026-04-24\n"
            'frozen_at: "2026-04-24T09:00:00Z"\n'
            "roles:\n"
            '  judge-opus: {model: claude-opus-4-7, provider: anthropic, route: "http://127.0.0.1:8766/v1/messages"}\n'
            '  judge-gpt: {model: gpt-5.4, provider: openai, route: "http://127.0.0.1:8766/v1/chat/completions"}\n'
            "  judge-minimax: {model: minimax-m2.7, provider: openai-compatible, route: "
            '"http://127.0.0.1:8766/v1/chat/completions", api_key_env: MINIMAX_API_KEY}\n'
        ),
    )
    lines = []
    for technique, task in TRIO_TASKS.items():
        write(root / "specs" / "task" / f"{technique}.md", spec(task))
        for name, cell in CELLS.items():
            lines.append(
                {
                    "entry_key": f"task:{technique}",
                    "configuration": name,
                    "prompt": f"{task['persona']} {task['question']}",
                    "context": task["materials"],
                    "answer": trio_answer(task, cell),
                    "model_snapshot": cell["model"],
                    "acceptance": {"passed": True, "reason": None, "notes": ""},
                    "cost_usd": 0.02 * (1 + cell["steps"]),
                    "wall_clock_minutes": 0.5 * (1 + cell["markers"]),
                }
            )
    write(root / "captures.jsonl", "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines))


SOLO_CHALLENGES = {
    "retry-storm": (
        "A payments service retries every failed call five times with no backoff; during an outage the "
        "retries tripled the load. Review the design and propose a fix.",
        ["Name the failure", "Find the root cause", "Propose the fix", "Check the edge cases"],
    ),
    "cache-stampede": (
        "A product page cache expires for all keys at midnight and the database falls over. Review and fix.",
        ["Name the failure", "Find the root cause", "Propose the fix", "Check the edge cases"],
    ),
}
SOLO_LANES = {
    "with-persona": {"steps": 4, "markers": 4, "hedges": 3},
    "plain": {"steps": 2, "markers": 1, "hedges": 1},
}


def solo() -> None:
    root = ROOT / "solo" / "bundle"
    write(
        root / "bundle.yaml",
        (
            "# The judge skill's solo mode: one judge, four criteria at 25% on 1-10, reported 0-100.\n"
            "# Generated by scripts/make_example_bundles.py.\n"
            "bundle: solo-judge-example\n"
            "created: 2026-04-20\n"
            "configurations: [with-persona, plain]\n"
            "rubric: judge-solo-1.0\n"
            "panel: [judge]\n"
        ),
    )
    write(
        root / "optimum.yaml",
        (
            "snapshot: solo-2026-04-20\n"
            'frozen_at: "2026-04-20T09:00:00Z"\n'
            "roles:\n"
            '  judge: {model: claude-opus-4-7, provider: anthropic, route: "http://127.0.0.1:8767/v1/messages"}\n'
        ),
    )
    lines = []
    for technique, (challenge, steps) in SOLO_CHALLENGES.items():
        task = {"topic": technique.replace("-", " "), "steps": steps}
        write(root / "specs" / "review" / f"{technique}.md", spec(task))
        for name, lane in SOLO_LANES.items():
            line = {
                "entry_key": f"review:{technique}",
                "configuration": name,
                "prompt": f"Character: a veteran site reliability engineer. Challenge: {challenge}",
                "answer": trio_answer({**task, "question": challenge}, lane),
                "acceptance": {"passed": True, "reason": None, "notes": ""},
                "cost_usd": 0.05,
                "wall_clock_minutes": 1.5,
            }
            if technique == "retry-storm":
                line["gold_standard"] = {
                    "response": "Name the failure: a retry storm. Root cause: immediate retries without backoff or a "
                    "budget. Fix: exponential backoff with jitter, a retry budget and a circuit breaker. "
                    "Edge cases: idempotency keys for payment calls.",
                    "score": 92,
                    "notes": "the expert answer an SRE lead wrote for this challenge",
                }
            lines.append(line)
    write(root / "captures.jsonl", "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines))


# The judge skill's checklist v2 mode: code reviews judged against expected findings of every severity.
CHECKLIST_REVIEWS = {
    "payment-handler": {
        "code": (
            "def charge(request):\n"
            "    amount = float(request.args['amount'])\n"
            "    card = db.execute(f\"SELECT * FROM cards WHERE id = {request.args['card']}\")\n"
            "    log.info('charging %s with card %s', amount, card.number)\n"
            "    for attempt in range(5):\n"
            "        if gateway.charge(card, amount):\n"
            "            break\n"
            "    return 'ok'\n"
        ),
        "issues": [
            ("SQLI", "critical", "SQL injection: the card id is formatted into the query"),
            ("PAN-LOG", "critical", "the full card number is written to the log"),
            ("FLOAT-MONEY", "high", "money held in a float"),
            ("RETRY-IDEMPOTENCY", "high", "retries without an idempotency key can charge twice"),
            ("NO-AUTH", "medium", "no check that the card belongs to the caller"),
            ("SILENT-FAIL", "medium", "returns ok even when every attempt failed"),
            ("NAMING", "low", "single-letter and vague names"),
            ("AMOUNT-RANGE", "validation", "no check that the amount is positive"),
        ],
        "bonus": [("RATE-LIMIT", "no rate limit on the endpoint")],
    },
    "upload-endpoint": {
        "code": (
            "@app.post('/upload')\n"
            "def upload(file):\n"
            "    path = os.path.join(UPLOADS, file.filename)\n"
            "    file.save(path)\n"
            "    os.chmod(path, 0o777)\n"
            "    return {'url': '/static/' + file.filename}\n"
        ),
        "issues": [
            ("PATH-TRAVERSAL", "critical", "the client's filename is joined into the path unchecked"),
            ("WORLD-WRITABLE", "high", "uploaded files are made world-writable"),
            ("NO-SIZE-LIMIT", "medium", "no limit on the upload size"),
            ("NO-TYPE-CHECK", "medium", "no content-type or extension check"),
            ("MISSING-TESTS", "low", "no tests for the endpoint"),
        ],
        "bonus": [],
    },
}
CHECKLIST_ANSWERS = {
    "payment-handler": {
        "thorough": [
            "[SQLI] The card id goes straight into the SQL text: use a bound parameter.",
            "[PAN-LOG] The log line prints the full card number; log the last four digits only.",
            "[FLOAT-MONEY] Keep the amount in integer cents or Decimal, never a float.",
            "[RETRY-IDEMPOTENCY] Five retries without an idempotency key can charge the card twice.",
            "[SILENT-FAIL] When every attempt fails the function still answers ok.",
            "[NEW] The gateway call has no timeout, so one slow charge blocks the worker.",
            "Also worth a look: AMOUNT-RANGE, a negative amount would be refunded; RATE-LIMIT may matter too.",
        ],
        "noisy": [
            "[SQLI] Possible SQL injection through the card id.",
            "[FLOAT-MONEY] Floats for money.",
            "[CSRF] The endpoint is open to CSRF.",
            "[XSS] The response reflects the amount without escaping.",
        ],
        "silent": ["Looks fine to me. The retry loop is a nice touch; ship it."],
    },
    "upload-endpoint": {
        "thorough": [
            "[PATH-TRAVERSAL] A filename like ../../app.py escapes the upload folder: use secure_filename.",
            "[WORLD-WRITABLE] chmod 777 lets any local user rewrite the uploaded files.",
            "[NO-SIZE-LIMIT] Cap the request size before saving.",
            "[NEW] The returned URL serves user files from the static root, same origin as the app.",
            "MISSING-TESTS is worth a follow-up once the fixes land.",
        ],
        "noisy": [
            "[PATH-TRAVERSAL] The filename is trusted.",
            "[SQLI] The upload handler is injectable.",
            "NO-TYPE-CHECK: anything can be uploaded.",
        ],
        "silent": ["No issues found."],
    },
}
# The judge skill's worked example: 6 critical, 6 high, 8 medium, 2 low; the answer finds 5 / 4 / 3 / 1, makes
# 2 valid novel findings and 1 false positive.
WORKED = {"critical": (6, 5), "high": (6, 4), "medium": (8, 3), "low": (2, 1)}


def worked_example() -> tuple[list[dict[str, str]], str]:
    issues, lines = [], []
    for severity, (total, found) in WORKED.items():
        for index in range(1, total + 1):
            name = f"{severity.upper()}-{index}"
            issues.append({"id": name, "severity": severity, "description": f"{severity} defect number {index}"})
            if index <= found:
                lines.append(f"[{name}] found: {severity} defect number {index}.")
    lines += [
        "[NEW] a valid finding beyond the checklist.",
        "[NEW] a second valid finding beyond the checklist.",
        "[PHANTOM] a defect that is not there.",
    ]
    return issues, "\n".join(lines)


def checklist() -> None:
    root = ROOT / "checklist" / "bundle"
    write(
        root / "bundle.yaml",
        (
            "# The judge skill's checklist v2 mode: code reviews judged against expected findings with severities.\n"
            "# Generated by scripts/make_example_bundles.py.\n"
            "bundle: checklist-review-example\n"
            "created: 2026-04-20\n"
            "configurations: [thorough, noisy, silent]\n"
            "rubric: judge-checklist-2.0\n"
            "panel: [judge-opus, judge-gpt]\n"
        ),
    )
    write(
        root / "optimum.yaml",
        (
            "snapshot: checklist-2026-04-20\n"
            'frozen_at: "2026-04-20T09:00:00Z"\n'
            "roles:\n"
            '  judge-opus: {model: claude-opus-4-7, provider: anthropic, route: "http://127.0.0.1:8769/v1/messages"}\n'
            '  judge-gpt: {model: gpt-5.4, provider: openai, route: "http://127.0.0.1:8769/v1/chat/completions"}\n'
        ),
    )
    lines = []
    for technique, review in CHECKLIST_REVIEWS.items():
        for name in ("thorough", "noisy", "silent"):
            lines.append(
                {
                    "entry_key": f"review:{technique}",
                    "configuration": name,
                    "prompt": "Character: a senior security reviewer. Challenge: review this change before it ships.",
                    "context": review["code"],
                    "answer": "\n".join(f"- {line}" for line in CHECKLIST_ANSWERS[technique][name]),
                    "checklist": {
                        "issues": [{"id": i, "severity": s, "description": d} for i, s, d in review["issues"]],
                        "bonus": [{"id": i, "description": d} for i, d in review["bonus"]],
                    },
                    "acceptance": {"passed": True, "reason": None, "notes": ""},
                    "cost_usd": 0.04,
                    "wall_clock_minutes": 1.0,
                }
            )
    issues, answer = worked_example()
    lines.append(
        {
            "entry_key": "review:worked-example",
            "configuration": "thorough",
            "prompt": "Character: a senior reviewer. Challenge: the detection deep dive's worked example.",
            "answer": answer,
            "checklist": {"issues": issues, "bonus": []},
            "acceptance": {"passed": True, "reason": None, "notes": "the detection deep dive's worked example"},
            "cost_usd": 0.04,
            "wall_clock_minutes": 1.0,
        }
    )
    write(root / "captures.jsonl", "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines))


# The judge skill's compare mode: three configurations' answers to the same review challenges, head to head.
COMPARE_CHALLENGES = {
    "retry-storm": "A payments service retries every failed call five times with no backoff; during an outage the "
    "retries tripled the load. Review the design and propose a fix.",
    "cache-stampede": "A product page cache expires for all keys at midnight and the database falls over. Review and fix.",
    "slow-migration": "A schema migration locks the orders table for forty minutes at every deploy. Review and fix.",
    "flaky-tests": "A third of CI runs fail on tests that pass when re-run. Review the test suite and propose a fix.",
    "log-flood": "A service writes two terabytes of debug logs a day and the disk fills weekly. Review and fix.",
}
COMPARE_LANES = {
    "team-1": {"steps": 4, "markers": 4, "hedges": 3},
    "team-2": {"steps": 3, "markers": 2, "hedges": 1},
    "baseline": {"steps": 1, "markers": 0, "hedges": 0},
}


def compare() -> None:
    root = ROOT / "compare" / "bundle"
    write(
        root / "bundle.yaml",
        (
            "# The judge skill's compare mode: configurations head to head, both orders per judge, panel majority.\n"
            "# Generated by scripts/make_example_bundles.py.\n"
            "bundle: compare-example\n"
            "created: 2026-04-20\n"
            "configurations: [team-1, team-2, baseline]\n"
            "rubric: judge-compare-1.0\n"
            "panel: [judge-opus, judge-gpt]\n"
            "compare: [[team-1, team-2], [team-1, baseline], [team-2, baseline]]   # --ora-compare A:B overrides\n"
        ),
    )
    write(
        root / "optimum.yaml",
        (
            "snapshot: compare-2026-04-20\n"
            'frozen_at: "2026-04-20T09:00:00Z"\n'
            "roles:\n"
            '  judge-opus: {model: claude-opus-4-7, provider: anthropic, route: "http://127.0.0.1:8770/v1/messages"}\n'
            '  judge-gpt: {model: gpt-5.4, provider: openai, route: "http://127.0.0.1:8770/v1/chat/completions"}\n'
        ),
    )
    lines = []
    steps = ["Name the failure", "Find the root cause", "Propose the fix", "Check the edge cases"]
    for technique, challenge in COMPARE_CHALLENGES.items():
        task = {"topic": technique.replace("-", " "), "steps": steps, "question": challenge}
        write(root / "specs" / "review" / f"{technique}.md", spec(task))
        for name, lane in COMPARE_LANES.items():
            if technique == "log-flood" and name == "team-2":
                lane = COMPARE_LANES["team-1"]  # the same answer as team-1: the judges call it a tie
            lines.append(
                {
                    "entry_key": f"review:{technique}",
                    "configuration": name,
                    "prompt": f"Character: a veteran site reliability engineer. Challenge: {challenge}",
                    "answer": trio_answer(task, lane),
                    "acceptance": {"passed": True, "reason": None, "notes": ""},
                    "cost_usd": 0.05,
                    "wall_clock_minutes": 1.5,
                }
            )
    write(root / "captures.jsonl", "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines))


if __name__ == "__main__":
    trio()
    solo()
    checklist()
    compare()
