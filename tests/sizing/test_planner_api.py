"""API and pages of the planner: shapes, errors, privacy."""

from __future__ import annotations

import re
from decimal import Decimal
from typing import Any

import pytest
from rest_framework.test import APIClient

from tests.providers.factories import OfferingFactory, PlanFactory, UserFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def catalog() -> list[Any]:
    out = []
    for i in range(3):
        offering = OfferingFactory(slug=f"api-{i}", max_nodes=16)
        PlanFactory(offering=offering, price_usd_per_gpu_hour=Decimal("2.00") + i)
        out.append(offering)
    return out


def client_for(user: Any) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


def test_workload_and_run_round_trip(catalog: list[Any], django_capture_on_commit_callbacks: Any) -> None:
    api = client_for(UserFactory())
    resp = api.post("/api/v1/workloads/", {"preset": "13b"}, format="json")
    assert resp.status_code == 201, resp.json()
    wl_id = resp.json()["id"]
    with django_capture_on_commit_callbacks(execute=True):
        resp = api.post("/api/v1/runs/", {"workload": wl_id, "objective": "cheapest"}, format="json")
    assert resp.status_code == 201
    assert set(resp.json()) >= {"id", "status"}
    body = api.get(f"/api/v1/runs/{resp.json()['id']}/").json()
    assert body["status"] == "done" and body["progress"] == {"done": 3, "total": 3}
    first = body["results"][0]
    assert set(first) >= {
        "offering",
        "feasible",
        "layout",
        "gpus",
        "train_days",
        "mfu",
        "goodput",
        "cost_total_usd",
        "cost_complete",
        "plan",
        "findings",
    }
    assert first["offering"] == "api-0"
    assert [r["rank"] for r in body["results"]] == [1, 2, 3]
    assert [w["id"] for w in api.get("/api/v1/workloads/").json()] == [wl_id]


def test_bad_input_names_the_field(catalog: list[Any]) -> None:
    api = client_for(UserFactory())
    resp = api.post("/api/v1/workloads/", {"preset": "gpt-9"}, format="json")
    assert resp.status_code == 400 and "preset" in resp.json()["message"]
    resp = api.post("/api/v1/workloads/", {"layers": 4, "hidden": 100, "heads": 3}, format="json")
    assert resp.status_code == 400 and resp.json()["message"].startswith("heads")
    wl_id = api.post("/api/v1/workloads/", {"preset": "13b"}, format="json").json()["id"]
    resp = api.post("/api/v1/runs/", {"workload": wl_id, "offerings": ["nope"]}, format="json")
    assert resp.status_code == 400 and "offerings" in resp.json()["message"]
    assert set(resp.json()) == {"message", "extra"}


def test_names_written_in_another_case_are_the_choices_they_name() -> None:
    # `BF16`, `SwiGLU`, `YaRN`, `GPT-3 175B`: what the `size` command reads too (sizing.engine.bounds.chosen)
    api = client_for(UserFactory())
    resp = api.post("/api/v1/workloads/", {"preset": "GPT-3 175B", "precision": "FP8"}, format="json")
    assert resp.status_code == 201, resp.json()
    assert resp.json()["preset"] == "gpt3-175b" and resp.json()["precision"] == "fp8"
    shape = {"layers": 4, "hidden": 512, "heads": 8, "ffn_hidden": 1536}
    body = {**shape, "activation": "SwiGLU", "rope": "YaRN", "attention": "Flash", "precision": "BF16"}
    resp = api.post("/api/v1/workloads/", body, format="json")
    assert resp.status_code == 201, resp.json()
    got = resp.json()
    assert (got["activation"], got["rope"], got["attention"], got["precision"]) == (
        "swiglu",
        "yarn",
        "flash",
        "bf16",
    )
    resp = api.post("/api/v1/workloads/", {**shape, "precision": "fp16"}, format="json")
    assert resp.status_code == 400 and resp.json()["message"].startswith("precision")


def test_another_buyer_gets_404(catalog: list[Any], django_capture_on_commit_callbacks: Any) -> None:
    owner, other = client_for(UserFactory()), client_for(UserFactory())
    wl_id = owner.post("/api/v1/workloads/", {"preset": "13b"}, format="json").json()["id"]
    with django_capture_on_commit_callbacks(execute=True):
        run_id = owner.post(
            "/api/v1/runs/", {"workload": wl_id, "offerings": ["api-1"]}, format="json"
        ).json()["id"]
    assert other.get(f"/api/v1/runs/{run_id}/").status_code == 404
    assert other.post("/api/v1/runs/", {"workload": wl_id}, format="json").status_code == 404
    assert other.get("/api/v1/workloads/").json() == []


def test_pages_form_run_and_detail(
    client: Any, catalog: list[Any], django_capture_on_commit_callbacks: Any
) -> None:
    user = UserFactory()
    assert client.get("/plan/").status_code == 302  # login required
    client.force_login(user)
    assert client.get("/plan/").status_code == 200
    with django_capture_on_commit_callbacks(execute=True):
        resp = client.post("/plan/", {"preset": "13b", "objective": "fastest", "checkpoints_retained": 2})
    assert resp.status_code == 302
    page = client.get(resp["Location"])
    html = page.content.decode()
    assert "Recommendation." in html and "api-0" in html
    run = page.context["run"]
    assert page.context["results"][0].rank is not None
    # "Rank by" shows the run's own objective, as the sentence under it does ("Ranked: fastest ...")
    assert re.search(r'<option value="fastest" selected>', html) and "Ranked: fastest" in html
    reranked = client.get(f"/plan/{run.pk}/?objective=cheapest")
    assert reranked.context["results"][0].offering.slug == "api-0"
    assert '<option value="cheapest" selected>' in reranked.content.decode()
    # other filters without an objective (or an empty one) keep the run's own selected, as the ranking does
    for query in ("?feasible_only=on", "?objective=", "?gpu="):
        page = client.get(f"/plan/{run.pk}/{query}")
        assert '<option value="fastest" selected>' in page.content.decode(), query
        assert page.context["objective"] == "fastest"
    detail = client.get(f"/plan/{run.pk}/api-0/")
    assert detail.status_code == 200 and "Checkpoint storage" in detail.content.decode()
    assert client.get(f"/plan/{run.pk}/progress/").status_code == 200
    bad = client.post(
        "/plan/", {"preset": "", "layers": 4, "hidden": 100, "heads": 3, "objective": "fastest"}
    )
    assert bad.status_code == 200 and bad.context["form"].errors["heads"]
    client.force_login(UserFactory())
    assert client.get(f"/plan/{run.pk}/").status_code == 404
    assert client.get(f"/plan/{run.pk}/api-0/").status_code == 404


def test_attention_kernels_are_a_workload_field_the_sizing_uses(catalog: list[Any]) -> None:
    from sizing import services
    from sizing.engine.calibration import SELENE
    from sizing.models import Workload

    api = client_for(UserFactory())
    resp = api.post("/api/v1/workloads/", {"preset": "llama3-70b", "attention": "flash"}, format="json")
    assert resp.status_code == 201 and resp.json()["attention"] == "flash"
    flash = Workload.objects.get(pk=resp.json()["id"])
    auto = Workload.objects.get(
        pk=api.post("/api/v1/workloads/", {"preset": "llama3-70b"}, format="json").json()["id"]
    )
    assert auto.attention == "auto" and auto.to_engine_dict()["attention"] == "auto"
    # on an A100 offering "auto" is unfused (its calibration runs): fused kernels train faster
    facts = {**SELENE, "nodes": 64}
    got = {
        w.attention: services.size_offering(workload=w, facts=facts, objective="fastest")
        for w in (flash, auto)
    }
    assert got["flash"]["train_days"] < got["auto"]["train_days"]
    assert any("unfused attention" in a for a in got["auto"]["sizing"]["assumptions"])
    resp = api.post("/api/v1/workloads/", {"preset": "13b", "attention": "sparse"}, format="json")
    assert resp.status_code == 400 and resp.json()["message"].startswith("attention")


def test_a_workload_says_which_model_the_sizing_takes() -> None:
    """The stored fields of a name-and-count workload are its defaults (GELU, no experts), while the sizing
    takes the published model the name and count are: `sized_as` says which, in the reader's language."""
    api = client_for(UserFactory())
    named = api.post(
        "/api/v1/workloads/", {"name": "DeepSeek-V3", "params": 671e9, "seq_len": 4096}, format="json"
    ).json()
    assert named["activation"] == "gelu" and named["moe_experts"] is None  # the stored defaults
    sized = named["sized_as"]
    assert (sized["layers"], sized["hidden"], sized["activation"]) == (61, 7168, "swiglu")
    assert sized["moe"]["experts"] == 256 and sized["params_total"] == pytest.approx(671e9, rel=0.01)
    assert sized["params_active"] < sized["params_total"] / 10
    assert any("published shape taken" in note for note in sized["assumptions"])
    derived = api.post("/api/v1/workloads/", {"name": "mine", "params": 70e9}, format="json").json()
    assert derived["sized_as"]["moe"] is None and derived["sized_as"]["activation"] == "gelu"
    assert any(note.startswith("shape derived from 70.0B") for note in derived["sized_as"]["assumptions"])
    # every default the engine fills in is said, the sequence length too (it was assumed silently)
    for said in ("seq_len not given: 2048 tokens", "global_batch not given: 2048 sequences", "train_tokens"):
        assert any(said in note for note in derived["sized_as"]["assumptions"]), said
    listed = api.get("/api/v1/workloads/", HTTP_ACCEPT_LANGUAGE="zh-hans").json()
    zh = next(w for w in listed if w["id"] == named["id"])["sized_as"]["assumptions"]
    assert any("公开" in note for note in zh), zh
    mine = next(w for w in listed if w["id"] == derived["id"])["sized_as"]["assumptions"]
    assert "未给出序列长度：假设为 2048 个 token" in mine and "未给出训练 token 数：假设为 300B" in mine, mine
