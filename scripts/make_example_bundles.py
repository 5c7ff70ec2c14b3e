"""Write the two example bundles under evals/examples/ (trio: seed 003's pilot; solo: seed 002).

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

# Seed 003's four cells: A Opus solo, B Opus + memory + harness, C Qwen solo, D Qwen + memory + harness.
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
HEDGES = ["We assume the volumes stay near last year's.", "The estimate is uncertain by about a quarter.",
          "The main risk is the one-day delay; confidence in the savings is moderate."]


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
    write(root / "bundle.yaml", (
        "# Seed 003's pilot shape: 3 tasks x 4 cells, judged blind by a trio on six Likert 1-5 dimensions.\n"
        "# Generated by scripts/make_example_bundles.py.\n"
        "bundle: trio-pilot-example\n"
        "created: 2026-04-26\n"
        "configurations: [cell-a, cell-b, cell-c, cell-d]   # A Opus solo, B Opus + harness, C Qwen solo, D Qwen + harness\n"
        "rubric: trio-likert-1.0\n"
        "panel: [judge-opus, judge-gpt, judge-minimax]       # judge labels A, B, C\n"
        "hypotheses:                                         # seed 003: pre-registered, per task\n"
        "  - {id: H2, better: cell-b, worse: cell-a, margin: 0.30}   # Opus multiplier\n"
        "  - {id: H3, better: cell-d, worse: cell-c, margin: 0.30}   # Qwen multiplier\n"
        "  - {id: H4, better: cell-d, worse: cell-a, margin: 0}      # sovereignty bridge: D >= A\n"
        "verdict: {directional_at_least: 6, no_critical: true}       # PILOT PASS: 6 of 9 directional, no critical cell\n"
    ))
    write(root / "optimum.yaml", (
        "# The trio of seed 003, routed to the loopback reference judge for the recorded example.\n"
        "snapshot: trio-2026-04-24\n"
        "frozen_at: \"2026-04-24T09:00:00Z\"\n"
        "roles:\n"
        "  judge-opus: {model: claude-opus-4-7, provider: anthropic, route: \"http://127.0.0.1:8766/v1/messages\"}\n"
        "  judge-gpt: {model: gpt-5.4, provider: openai, route: \"http://127.0.0.1:8766/v1/chat/completions\"}\n"
        "  judge-minimax: {model: minimax-m2.7, provider: openai-compatible, route: \"http://127.0.0.1:8766/v1/chat/completions\", api_key_env: MINIMAX_API_KEY}\n"
    ))
    lines = []
    for technique, task in TRIO_TASKS.items():
        write(root / "specs" / "task" / f"{technique}.md", spec(task))
        for name, cell in CELLS.items():
            lines.append({
                "entry_key": f"task:{technique}",
                "configuration": name,
                "prompt": f"{task['persona']} {task['question']}",
                "context": task["materials"],
                "answer": trio_answer(task, cell),
                "model_snapshot": cell["model"],
                "acceptance": {"passed": True, "reason": None, "notes": ""},
                "cost_usd": 0.02 * (1 + cell["steps"]),
                "wall_clock_minutes": 0.5 * (1 + cell["markers"]),
            })
    write(root / "captures.jsonl", "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines))


SOLO_CHALLENGES = {
    "retry-storm": ("A payments service retries every failed call five times with no backoff; during an outage the "
                    "retries tripled the load. Review the design and propose a fix.", ["Name the failure", "Find the root cause",
                    "Propose the fix", "Check the edge cases"]),
    "cache-stampede": ("A product page cache expires for all keys at midnight and the database falls over. Review and fix.",
                       ["Name the failure", "Find the root cause", "Propose the fix", "Check the edge cases"]),
}
SOLO_LANES = {
    "with-persona": {"steps": 4, "markers": 4, "hedges": 3},
    "plain": {"steps": 2, "markers": 1, "hedges": 1},
}


def solo() -> None:
    root = ROOT / "solo" / "bundle"
    write(root / "bundle.yaml", (
        "# Seed 002's solo mode: one judge, four criteria at 25% on 1-10, reported 0-100.\n"
        "# Generated by scripts/make_example_bundles.py.\n"
        "bundle: solo-judge-example\n"
        "created: 2026-04-20\n"
        "configurations: [with-persona, plain]\n"
        "rubric: judge-solo-1.0\n"
        "panel: [judge]\n"
    ))
    write(root / "optimum.yaml", (
        "snapshot: solo-2026-04-20\n"
        "frozen_at: \"2026-04-20T09:00:00Z\"\n"
        "roles:\n"
        "  judge: {model: claude-opus-4-7, provider: anthropic, route: \"http://127.0.0.1:8767/v1/messages\"}\n"
    ))
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


if __name__ == "__main__":
    trio()
    solo()
