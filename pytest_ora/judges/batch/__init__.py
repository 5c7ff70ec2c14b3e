"""--ora-batch: the judge calls a live run still needs, made first through the providers' batch APIs.

For every selected capture without a cassette, each judge whose provider has a batch interface
(Anthropic Message Batches, OpenAI Batch) gets its first ask built exactly as a live call would be;
each is written into its batch's upload file as it is built (the selection's bodies are never all
in memory); one batch per judge is submitted, its id kept in `<cassettes>/.ora-batches/`, and polled with
progress. An interrupted run finds that file and resumes polling: nothing is submitted
twice. Each answer is written into the capture's partial cassette as that judge's exchange; the
run then judges as usual and replays it. A reply that fails validation is re-asked live (the
re-ask's body differs, so it is not in the cassette); a request the batch could not answer
(errored, expired) is simply asked live. Spend is priced at the batch rate (half the list price).
"""

from __future__ import annotations

from .http import BatchStopped
from .job import BATCH_RATE, BATCH_STATE_DIR, BatchSummary, run_batches

__all__ = ["BATCH_RATE", "BATCH_STATE_DIR", "BatchStopped", "BatchSummary", "run_batches"]
