"""Faults against real services: killed workers, Redis and PostgreSQL restarts, two workers on one queue.

Each test drives a private stack (tests/reliability/stack.py) over HTTP and checks the database: every
upload stored and parsed, every run done, each result exactly once, pages answering 503 rather than 500.
"""

from __future__ import annotations

import re
import threading
import time
from collections import Counter
from pathlib import Path

import pytest

from tests.reliability.stack import Stack, wait_for

pytestmark = [pytest.mark.integration]

NCCL_LOG = (Path(__file__).resolve().parents[1] / "benchmarks" / "fixtures" / "nccl-one-rank.txt").read_text()
FINISHED_UPLOAD = ("parsed", "unrecognised", "failed")


def unique_log(label: str) -> str:
    """A real nccl-tests log made unique (uploads are content-addressed) by a trailing comment."""
    return f"{NCCL_LOG}\n# reliability test {label} {time.time_ns()}\n"


def assert_runs_complete_exactly_once(stack: Stack, run_ids: list[int], per_run: int) -> None:
    for run_id in run_ids:
        status, done, total = stack.sql(
            "SELECT status, progress_done, progress_total FROM sizing_planrun WHERE id = %s", run_id
        )[0]
        results, distinct = stack.sql(
            "SELECT count(*), count(DISTINCT offering_id) FROM sizing_planresult WHERE run_id = %s", run_id
        )[0]
        ranks = [
            r[0]
            for r in stack.sql("SELECT rank FROM sizing_planresult WHERE run_id = %s ORDER BY rank", run_id)
        ]
        assert (status, done, total) == ("done", per_run, per_run), f"run {run_id}: {status} {done}/{total}"
        assert results == distinct == per_run, f"run {run_id}: {results} results for {distinct} offerings"
        assert ranks == list(range(1, per_run + 1))


def runs_done(stack: Stack, run_ids: list[int]) -> bool:
    return stack.scalar(
        "SELECT count(*) FROM sizing_planrun WHERE id = ANY(%s) AND status = 'done'", run_ids
    ) == len(run_ids)


def uploads_finished(stack: Stack, upload_ids: list[int]) -> bool:
    return stack.scalar(
        "SELECT count(*) FROM benchmarks_upload WHERE id = ANY(%s) AND status = ANY(%s)",
        upload_ids,
        list(FINISHED_UPLOAD),
    ) == len(upload_ids)


def succeeded_task_ids(*logs: str) -> Counter[str]:
    return Counter(
        m.group(2) for log in logs for m in re.finditer(r"Task (\S+)\[([0-9a-f-]{36})\] succeeded", log)
    )


def test_a_worker_killed_mid_sizing_run_is_finished_by_a_new_worker_exactly_once(rel: Stack) -> None:
    slugs = rel.offering_slugs(12)
    rel.start_worker("sizing-victim", RELIABILITY_SLOW_SIZING_OFFERING_S="0.4")
    api = rel.api()
    run_ids = [rel.create_run(api, slugs, preset) for preset in ("13b", "llama3-70b")]

    def results() -> int:
        return int(rel.scalar("SELECT count(*) FROM sizing_planresult WHERE run_id = ANY(%s)", run_ids))

    assert wait_for(lambda: results() >= 2, 30), rel.log_tail("worker-sizing-victim.log")
    rel.kill_worker("sizing-victim")  # SIGKILL, in the middle of a chunk of 4 offerings x 0.4 s
    assert results() < 2 * len(slugs), "the runs finished before the worker could be killed"

    # No sweeper here: the chunk the dead worker held comes back from Redis after the visibility timeout
    # (8 s in this stack), the chunks still queued go to the new worker straight away.
    rel.start_worker("sizing-rescuer")
    assert wait_for(lambda: runs_done(rel, run_ids), 60), rel.log_tail("worker-sizing-rescuer.log")
    assert_runs_complete_exactly_once(rel, run_ids, len(slugs))
    assert "plan_run_chunk" in rel.worker_log("sizing-rescuer")


def test_a_worker_killed_mid_parse_is_finished_by_a_new_worker_exactly_once(rel: Stack) -> None:
    slug = rel.offering_slugs(1)[0]
    rel.start_worker("parse-victim", queues="parse", RELIABILITY_SLOW_PARSE_S="6")
    response = rel.upload(rel.api(), slug, unique_log("parse-kill"))
    assert response.status_code == 201, response.text[:500]
    upload_id = response.json()["id"]

    def status() -> str:
        return str(rel.scalar("SELECT status FROM benchmarks_upload WHERE id = %s", upload_id))

    assert wait_for(lambda: status() == "parsing", 30), rel.log_tail("worker-parse-victim.log")
    rel.kill_worker("parse-victim")
    assert status() == "parsing"

    rel.start_worker("parse-rescuer", queues="parse")
    assert wait_for(lambda: status() in FINISHED_UPLOAD, 60), rel.log_tail("worker-parse-rescuer.log")
    assert status() == "parsed"
    sha = response.json()["sha256"]
    assert rel.scalar("SELECT count(*) FROM benchmarks_blob WHERE sha256 = %s", sha) == 1
    assert (
        rel.scalar(
            "SELECT count(*) FROM benchmarks_upload u JOIN benchmarks_blob b ON b.id = u.blob_id"
            " WHERE b.sha256 = %s",
            sha,
        )
        == 1
    )
    # the worker logs "succeeded" after the task returns, a moment after the row says parsed
    rescued = wait_for(lambda: bool(succeeded_task_ids(rel.worker_log("parse-rescuer"))), 15)
    assert rescued, "the new worker did not parse it"


def test_redis_down_while_submitting_then_back_every_upload_and_run_completes_once(rel: Stack) -> None:
    slugs = rel.offering_slugs(8)
    rel.start_worker("redis-survivor")
    api, browser = rel.api(), rel.browser()
    rel.redis.stop()

    upload_ids, run_ids = [], []
    for i in range(3):
        started = time.monotonic()
        response = rel.upload(api, slugs[i], unique_log(f"redis-down-{i}"))
        assert response.status_code == 201, response.text[:500]
        assert time.monotonic() - started < 10, "an upload hung on the broker"
        assert response.json()["status"] == "stored"
        upload_ids.append(response.json()["id"])
    for preset in ("13b", "llama3-70b"):
        run_ids.append(rel.create_run(api, slugs, preset))

    run_page = browser.get(rel.http(f"/plan/{run_ids[0]}/"), timeout=15)
    assert run_page.status_code == 200 and 'data-status="queued"' in run_page.text
    upload_page = browser.get(rel.http(f"/benchmarks/{upload_ids[0]}/"), timeout=15)
    assert upload_page.status_code == 200 and "safely stored" in upload_page.text
    health = api.get(rel.http("/healthz"), timeout=15)
    assert health.status_code == 200
    assert health.json()["status"] == "degraded" and health.json()["checks"]["broker"] == "error"

    rel.redis.start()  # empty: whatever was in flight is gone, as after a real restart without persistence
    # The worker reconnects by itself; then the sweeper (celery beat, every 30 s) re-enqueues the work.
    assert wait_for(lambda: rel._heartbeat("redis-survivor"), 60), rel.log_tail("worker-redis-survivor.log")
    late = rel.upload(api, slugs[3], unique_log("redis-back"))  # the web process publishes again by itself
    assert late.status_code == 201
    rel.sweep()
    upload_ids.append(late.json()["id"])
    assert wait_for(lambda: uploads_finished(rel, upload_ids) and runs_done(rel, run_ids), 60)

    assert_runs_complete_exactly_once(rel, run_ids, len(slugs))
    rows = rel.sql("SELECT id, status FROM benchmarks_upload WHERE id = ANY(%s)", upload_ids)
    assert sorted(r[0] for r in rows) == sorted(upload_ids)
    assert {r[1] for r in rows} == {"parsed"}
    assert api.get(rel.http("/healthz"), timeout=15).json()["status"] == "ok"


def test_postgres_restart_under_load_answers_503_then_resumes_and_writes_nothing_partial(rel: Stack) -> None:
    slugs = rel.offering_slugs(4)
    rel.start_worker("pg-survivor", queues="parse")
    stop = threading.Event()
    reads: list[tuple[float, str, int, str, str]] = []
    sent: dict[str, str] = {}  # file label -> final answer
    upload_answers: Counter[int] = Counter()

    def reader() -> None:
        session = rel.api()
        paths = ["/offerings/", "/api/v1/offerings/?limit=5", "/healthz"]
        i = 0
        while not stop.is_set():
            path = paths[i % len(paths)]
            i += 1
            try:
                r = session.get(rel.http(path), timeout=15)
                reads.append(
                    (time.monotonic(), path, r.status_code, r.headers.get("Content-Type", ""), r.text[:300])
                )
            except Exception as exc:  # noqa: BLE001 - recorded and asserted on below
                reads.append((time.monotonic(), path, -1, "", repr(exc)))
            time.sleep(0.02)

    def uploader() -> None:
        # A client retries an upload that answered 503 until it is acknowledged: safe, since uploads are
        # content-addressed (a retry of a file that did get stored comes back as the same upload).
        session = rel.api()
        n = 0
        while not stop.is_set():
            label = f"pg-{n}"
            n += 1
            text = unique_log(label)
            for _ in range(200):
                r = rel.upload(session, slugs[n % len(slugs)], text)
                upload_answers[r.status_code] += 1
                if r.status_code in (200, 201):
                    sent[label] = str(r.json()["id"])
                    break
                assert r.status_code == 503, r.text[:500]
                assert r.json()["message"]
                time.sleep(0.2)
            time.sleep(0.1)

    threads = [
        threading.Thread(target=reader),
        threading.Thread(target=reader),
        threading.Thread(target=uploader),
    ]
    for t in threads:
        t.start()
    try:
        time.sleep(2)
        down_at = time.monotonic()
        rel.pg.stop("fast")
        time.sleep(3)
        rel.pg.start()
        up_at = time.monotonic()
        time.sleep(5)
    finally:
        stop.set()
        for t in threads:
            t.join(timeout=30)

    statuses = Counter(r[2] for r in reads)
    assert set(statuses) <= {200, 503}, statuses
    outage = [r for r in reads if down_at < r[0] < up_at]
    assert any(r[2] == 503 for r in outage), f"no 503 seen during the outage: {statuses}"
    for _, path, code, content_type, body in reads:
        if code != 503:
            continue
        if path.startswith("/api/"):
            assert content_type.startswith("application/json") and '"message"' in body
        elif path == "/healthz":
            assert '"unavailable"' in body
        else:
            assert "Temporarily unavailable" in body
    # Resumed by itself: no request in the last two seconds failed.
    tail = [r for r in reads if r[0] > up_at + 3]
    assert tail and all(r[2] == 200 for r in tail), Counter(r[2] for r in tail)

    assert sent and upload_answers[503] >= 0
    ids = [int(i) for i in sent.values()]
    assert wait_for(lambda: uploads_finished(rel, ids), 90), rel.log_tail("worker-pg-survivor.log")
    # Nothing partial: exactly one upload per acknowledged file, none for the refused attempts, every one
    # parsed; every stored blob has its bytes.
    assert len(set(ids)) == len(sent)
    assert rel.scalar("SELECT count(*) FROM benchmarks_upload WHERE notes = '' AND id = ANY(%s)", ids) == len(
        ids
    )
    assert (
        rel.scalar(
            "SELECT count(*) FROM benchmarks_upload WHERE status NOT IN ('parsed','unrecognised','failed')"
        )
        == 0
    )
    assert {r[0] for r in rel.sql("SELECT status FROM benchmarks_upload WHERE id = ANY(%s)", ids)} == {
        "parsed"
    }
    media = Path(rel.env["DJANGO_MEDIA_ROOT"])
    for (name,) in rel.sql("SELECT storage_name FROM benchmarks_blob"):
        assert (media / name).is_file(), name


def test_two_workers_on_one_queue_never_complete_a_task_twice_and_progress_stays_consistent(
    rel: Stack,
) -> None:
    slugs = rel.offering_slugs(16)
    rel.start_worker("twin-a", RELIABILITY_SLOW_SIZING_OFFERING_S="0.05")
    rel.start_worker("twin-b", RELIABILITY_SLOW_SIZING_OFFERING_S="0.05")
    api = rel.api()
    run_ids = [
        rel.create_run(api, slugs, preset) for preset in ("13b", "llama3-70b", "gpt3-175b", "llama3-405b")
    ]
    upload_ids = [rel.upload(api, slugs[i], unique_log(f"twin-{i}")).json()["id"] for i in range(6)]

    last: dict[int, int] = {}

    def consistent_and_done() -> bool:
        rows = rel.sql(
            "SELECT r.id, r.status, r.progress_done,"
            " (SELECT count(*) FROM sizing_planresult x WHERE x.run_id = r.id)"
            " FROM sizing_planrun r WHERE r.id = ANY(%s)",
            run_ids,
        )
        for run_id, _, done, results in rows:
            # One snapshot: the counter moves in the same transaction as the result it counts.
            assert done == results, f"run {run_id}: progress {done} but {results} results"
            assert done >= last.get(run_id, 0), f"run {run_id}: progress went back"
            last[run_id] = done
        return all(r[1] == "done" for r in rows) and uploads_finished(rel, upload_ids)

    assert wait_for(consistent_and_done, 90, interval=0.05)
    assert_runs_complete_exactly_once(rel, run_ids, len(slugs))
    logs = rel.worker_log("twin-a"), rel.worker_log("twin-b")
    completed = succeeded_task_ids(*logs)
    twice = {task: n for task, n in completed.items() if n > 1}
    assert not twice, f"tasks completed more than once: {twice}"
    assert all(succeeded_task_ids(log) for log in logs), "one worker did no work: the test proved nothing"
    assert (
        rel.scalar(
            "SELECT count(*) FROM benchmarks_upload WHERE id = ANY(%s) AND status = 'parsed'", upload_ids
        )
        == 6
    )


def test_a_worker_killed_mid_pdf_render_is_finished_by_a_new_worker_exactly_once(rel: Stack) -> None:
    # The render itself can take several seconds (charts): a longer visibility timeout keeps the message
    # from coming back while the rescuer is still rendering it.
    rel.start_worker("pdf-victim", queues="pdf", RELIABILITY_SLOW_PDF_S="6", CELERY_VISIBILITY_TIMEOUT="15")
    api = rel.api()
    workload = api.post(rel.http("/api/v1/workloads/"), json={"preset": "13b"}, timeout=15).json()["id"]
    # The first offering the engine can size and price ("nothing to quote" for the others).
    candidates = rel.sql(
        "SELECT slug FROM providers_offering WHERE gpu_id IS NOT NULL ORDER BY slug LIMIT 20"
    )
    for (slug,) in candidates:
        quote = api.post(
            rel.http("/api/v1/quotes/"), json={"offering": slug, "workload": workload}, timeout=60
        )
        if quote.status_code != 400:
            break
    assert quote.status_code == 201, quote.text[:500]
    quote_id = quote.json()["id"]
    pdf_url = rel.http(f"/api/v1/quotes/{quote_id}/pdf")
    assert api.get(pdf_url, timeout=30).status_code == 202

    def pdf_status() -> str:
        return str(rel.scalar("SELECT pdf_status FROM quotes_quote WHERE id = %s", quote_id))

    assert wait_for(lambda: "quotes.render_pdf" in rel.worker_log("pdf-victim"), 30)
    time.sleep(1)  # inside the (slowed) render
    rel.kill_worker("pdf-victim")
    assert pdf_status() == "rendering"

    rel.start_worker("pdf-rescuer", queues="pdf", CELERY_VISIBILITY_TIMEOUT="15")
    assert wait_for(lambda: pdf_status() == "ready", 120), rel.log_tail("worker-pdf-rescuer.log")
    response = api.get(pdf_url, timeout=30)
    assert response.status_code == 200 and response.content.startswith(b"%PDF")
    stored = list((Path(rel.env["DJANGO_MEDIA_ROOT"]) / "quotes" / str(quote_id)).iterdir())
    assert len(stored) == 1, stored  # one PDF for this quote version, not one per delivery


def test_a_worker_killed_and_redis_restarted_empty_mid_run_the_sweeper_finishes_both_runs_once(
    rel: Stack,
) -> None:
    # Issue 20 item 11: SIGKILL a worker in the middle of two runs, restart Redis without persistence (the
    # queued chunks and the one the worker held are gone); one sweep finishes both runs, nothing twice.
    slugs = rel.offering_slugs(12)
    rel.start_worker("both-victim", RELIABILITY_SLOW_SIZING_OFFERING_S="0.4")
    api = rel.api()
    run_ids = [rel.create_run(api, slugs, preset) for preset in ("13b", "llama3-70b")]

    def results() -> int:
        return int(rel.scalar("SELECT count(*) FROM sizing_planresult WHERE run_id = ANY(%s)", run_ids))

    assert wait_for(lambda: results() >= 1, 30), rel.log_tail("worker-both-victim.log")
    rel.kill_worker("both-victim")
    rel.redis.stop()
    rel.redis.start()
    stranded = results()
    assert stranded < 2 * len(slugs), "the runs finished before the faults"
    rel.start_worker("both-rescuer")
    time.sleep(10)  # past the 8 s visibility timeout: nothing comes back by itself, the messages are gone
    assert results() == stranded and not runs_done(rel, run_ids)
    rel.sweep()  # what celery beat runs every 30 s, with no grace period
    assert wait_for(lambda: runs_done(rel, run_ids), 60), rel.log_tail("worker-both-rescuer.log")
    assert_runs_complete_exactly_once(rel, run_ids, len(slugs))
    page = rel.browser().get(rel.http(f"/plan/{run_ids[0]}/"), timeout=15)
    assert page.status_code == 200 and 'data-status="done"' in page.text
