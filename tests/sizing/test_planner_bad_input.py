"""Bad input on every planner field, through the API and the form: a 400 (or the form again) whose message
names the field, never a 500."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest
from rest_framework.test import APIClient

from tests.providers.factories import OfferingFactory, PlanFactory, UserFactory

pytestmark = pytest.mark.django_db

BAD_WORKLOADS = [
    ({"preset": "13b", "train_tokens": -5}, "train_tokens"),
    ({"preset": "13b", "train_tokens": "lots"}, "train_tokens"),
    ({"layers": 4, "hidden": 100, "heads": 3}, "heads"),
    ({"layers": 4, "hidden": 128, "heads": 8, "kv_heads": 3}, "kv_heads"),
    ({"preset": "gpt-9"}, "preset"),
    ({"preset": "13b", "global_batch": 0}, "global_batch"),
    ({"preset": "13b", "seq_len": -1}, "seq_len"),
    ({"preset": "13b", "deadline_days": 0}, "deadline_days"),
    ({"preset": "13b", "deadline_days": -3}, "deadline_days"),
    ({"preset": "13b", "budget_usd": -100}, "budget_usd"),
    ({"preset": "13b", "budget_usd": 0}, "budget_usd"),
    ({"preset": "13b", "checkpoints_retained": 0}, "checkpoints_retained"),
    ({"preset": "13b", "dataset_size_gb": -1}, "dataset_size_gb"),
    ({"preset": "13b", "precision": "fp4"}, "precision"),
    ({"preset": "13b", "activation": "relu"}, "activation"),
    ({"params": -1e9}, "params"),
    ({}, "params"),
    ({"preset": "deepseek-v3-671b", "moe_top_k": 999}, "moe_top_k"),
    ({"preset": "13b", "name": "x" * 200}, "name"),
]


@pytest.fixture
def catalog() -> list[Any]:
    out = []
    for i in range(2):
        offering = OfferingFactory(slug=f"bad-{i}", max_nodes=8)
        PlanFactory(offering=offering, price_usd_per_gpu_hour=Decimal("2.00"))
        out.append(offering)
    return out


def api_for(user: Any) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


def api_body(data: dict[str, Any]) -> dict[str, Any]:
    """The form's flat MoE fields are the API's `moe` object."""
    body = {k: v for k, v in data.items() if not k.startswith("moe_")}
    moe = {k.removeprefix("moe_"): v for k, v in data.items() if k.startswith("moe_")}
    if moe:
        body["moe"] = moe
    return body


@pytest.mark.parametrize(("data", "field"), BAD_WORKLOADS)
def test_the_workload_api_names_the_bad_field(data: dict[str, Any], field: str) -> None:
    resp = api_for(UserFactory()).post("/api/v1/workloads/", api_body(data), format="json")
    assert resp.status_code == 400, resp.content
    body = resp.json()
    assert set(body) == {"message", "extra"}
    assert field in body["message"], body


@pytest.mark.parametrize(("data", "field"), BAD_WORKLOADS)
def test_the_plan_form_names_the_bad_field(
    client: Any, catalog: list[Any], data: dict[str, Any], field: str
) -> None:
    client.force_login(UserFactory())
    resp = client.post("/plan/", {"objective": "cheapest", "preset": "", **data})
    assert resp.status_code == 200
    errors = resp.context["form"].errors
    assert field in errors, errors
    assert "errorlist" in resp.content.decode()


def test_bad_offerings_and_objectives_are_named_in_the_api(catalog: list[Any]) -> None:
    api = api_for(UserFactory())
    wl_id = api.post("/api/v1/workloads/", {"preset": "13b"}, format="json").json()["id"]
    cases = [
        ({"workload": wl_id, "offerings": []}, "offerings"),
        ({"workload": wl_id, "offerings": ["bad-0", "nope"]}, "offerings"),
        ({"workload": wl_id, "offerings": "bad-0"}, "offerings"),
        ({"workload": wl_id, "objective": "greenest"}, "objective"),
        ({"workload": "first"}, "workload"),
        ({}, "workload"),
    ]
    for data, field in cases:
        resp = api.post("/api/v1/runs/", data, format="json")
        assert resp.status_code == 400, (data, resp.content)
        assert resp.json()["message"].startswith(field), (data, resp.json())
    resp = api.post("/api/v1/runs/", {"workload": wl_id, "offerings": []}, format="json")
    assert "whole catalog" in resp.json()["message"]
    assert api.post("/api/v1/runs/", {"workload": 99999}, format="json").status_code == 404


def test_an_empty_catalog_is_named_on_the_offerings_field(client: Any) -> None:
    api = api_for(UserFactory())
    wl_id = api.post("/api/v1/workloads/", {"preset": "13b"}, format="json").json()["id"]
    resp = api.post("/api/v1/runs/", {"workload": wl_id}, format="json")
    assert resp.status_code == 400 and resp.json()["message"].startswith("offerings")
    client.force_login(UserFactory())
    resp = client.post("/plan/", {"preset": "13b", "objective": "cheapest"})
    assert resp.status_code == 200 and "offerings" in resp.context["form"].errors


def test_bad_offerings_and_objectives_are_named_in_the_form(client: Any, catalog: list[Any]) -> None:
    client.force_login(UserFactory())
    resp = client.post("/plan/", {"preset": "13b", "objective": "greenest"})
    assert resp.status_code == 200 and "objective" in resp.context["form"].errors
    resp = client.post("/plan/", {"preset": "13b", "objective": "cheapest", "offerings": ["bad-0", "nope"]})
    assert resp.status_code == 200 and "offerings" in resp.context["form"].errors


def test_a_bad_objective_or_filter_on_a_run_is_named_not_a_500(
    client: Any, catalog: list[Any], django_capture_on_commit_callbacks: Any
) -> None:
    user = UserFactory()
    api = api_for(user)
    wl_id = api.post("/api/v1/workloads/", {"preset": "13b"}, format="json").json()["id"]
    with django_capture_on_commit_callbacks(execute=True):
        run_id = api.post("/api/v1/runs/", {"workload": wl_id}, format="json").json()["id"]
    resp = api.get(f"/api/v1/runs/{run_id}/?objective=greenest")
    assert resp.status_code == 400 and resp.json()["message"].startswith("objective")
    client.force_login(user)
    resp = client.get(f"/plan/{run_id}/?objective=greenest&gpu=TPU-v9")
    assert resp.status_code == 200
    html = resp.content.decode()
    # each named by the label the page shows beside its control, never by its code
    assert "Rank by:" in html and "GPU:" in html and "objective:" not in html
    assert len(resp.context["results"]) == 2  # an invalid filter filters nothing


@pytest.mark.parametrize(
    ("data", "field", "words"),
    [
        ({"preset": ""}, "params", "请给出模型结构（层数、隐藏维度、注意力头数）或参数量"),
        ({"preset": "", "layers": "4"}, "hidden", "自定义模型结构时必须填写（或选择一个预设）"),
    ],
)
def test_a_custom_model_with_a_missing_size_says_what_to_give_in_the_pages_language(
    client: Any, catalog: list[Any], data: dict[str, Any], field: str, words: str
) -> None:
    """The engine's bare "missing" (on the parameter count, in English) reached a Chinese page."""
    client.force_login(UserFactory())
    response = client.post("/plan/", {"objective": "cheapest", **data}, HTTP_ACCEPT_LANGUAGE="zh-hans")
    assert response.context["form"].errors[field] == [words]
    assert "missing" not in response.content.decode()
