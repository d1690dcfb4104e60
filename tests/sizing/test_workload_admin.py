"""The admin's workload form holds a workload to the engine's checks, as the planner form and the API do."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from sizing.models import Workload
from tests.providers.factories import UserFactory

pytestmark = pytest.mark.django_db

ADD = "/admin/sizing/workload/add/"
EN = {"HTTP_ACCEPT_LANGUAGE": "en"}
ZH = {"HTTP_ACCEPT_LANGUAGE": "zh-hans"}


@pytest.fixture
def admin_client(client: Client) -> Client:
    client.force_login(UserFactory(username="workload-admin", is_staff=True, is_superuser=True))
    return client


def _form(owner: Any, **fields: Any) -> dict[str, Any]:
    """Every field of the admin's add page, a small custom model the engine takes, `fields` over it."""
    data: dict[str, Any] = {
        "owner": owner.pk,
        "name": "admin workload",
        "preset": "",
        "layers": 4,
        "hidden": 256,
        "heads": 4,
        "seq_len": 4096,
        "activation": "gelu",
        "global_batch": 64,
        "train_tokens": 1e9,
        "precision": "bf16",
        "attention": "auto",
        "rope": "rope",
        "checkpoints_retained": 2,
    }
    data.update(fields)
    return {key: value for key, value in data.items() if value is not None}


@pytest.mark.parametrize(
    ("fields", "field", "english", "chinese"),
    [
        (
            {"sliding_window": 8192},
            "sliding_window",
            "at most the sequence length 4,096",
            "不得超过序列长度 4,096",
        ),
        ({"heads": 3}, "heads", "3 heads do not divide hidden 256", "3 个注意力头不能整除隐藏层宽度 256"),
        ({"kv_heads": 3}, "kv_heads", "3 KV heads do not divide 4 heads", "3 个 KV 头不能整除 4 个注意力头"),
        (
            {"sliding_window_layers": 0.5},
            "sliding_window_layers",
            "is given without a sliding window",
            "需要同时给出",
        ),
        ({"layers": None, "hidden": None, "heads": None}, "params", "give the architecture", "参数量"),
    ],
)
def test_the_admin_refuses_a_workload_the_engine_refuses_naming_the_field(
    admin_client: Client, fields: dict[str, Any], field: str, english: str, chinese: str
) -> None:
    owner = UserFactory(username="workload-owner")
    response = admin_client.post(ADD, _form(owner, **fields), **EN)
    assert response.status_code == 200  # the page again, with the refusal
    errors = response.context["adminform"].form.errors
    assert list(errors) == [field] and english in errors[field][0], errors
    assert english in response.content.decode()
    response = admin_client.post(ADD, _form(owner, **fields), **ZH)
    message = response.context["adminform"].form.errors[field][0]
    assert chinese in message and english not in message
    assert not Workload.objects.exists()


def test_the_admin_refuses_a_change_the_engine_refuses_and_keeps_the_stored_workload(
    admin_client: Client,
) -> None:
    owner = UserFactory(username="workload-owner")
    assert admin_client.post(ADD, _form(owner), **EN).status_code == 302
    workload = Workload.objects.get()
    change = f"/admin/sizing/workload/{workload.pk}/change/"
    response = admin_client.post(change, _form(owner, sliding_window=8192), **EN)
    assert response.status_code == 200
    assert (
        "at most the sequence length 4,096" in response.context["adminform"].form.errors["sliding_window"][0]
    )
    workload.refresh_from_db()
    assert workload.sliding_window is None


def test_the_admin_stores_a_workload_the_engine_takes(admin_client: Client) -> None:
    owner = UserFactory(username="workload-owner")
    fields = {"kv_heads": 2, "sliding_window": 1024, "sliding_window_layers": 0.5}
    response = admin_client.post(ADD, _form(owner, **fields), **EN)
    assert response.status_code == 302, response.context["adminform"].form.errors
    workload = Workload.objects.get()
    assert (workload.owner, workload.kv_heads, workload.sliding_window) == (owner, 2, 1024)
    assert workload.sliding_window_layers == 0.5
    change = f"/admin/sizing/workload/{workload.pk}/change/"
    assert admin_client.post(change, _form(owner, **fields, seq_len=2048), **EN).status_code == 302
    workload.refresh_from_db()
    assert workload.seq_len == 2048


def test_the_admin_stores_the_clamp_biases_and_rotary_embeddings(admin_client: Client) -> None:
    owner = UserFactory(username="layer-detail-owner")
    fields = {"glu_clamp": 7, "linear_bias": "true", "rope": "yarn"}
    response = admin_client.post(ADD, _form(owner, **fields), **EN)
    assert response.status_code == 302, response.context["adminform"].form.errors
    workload = Workload.objects.get()
    assert (workload.glu_clamp, workload.linear_bias, workload.rope) == (7.0, True, "yarn")
    refused = admin_client.post(ADD, _form(owner, glu_clamp=0), **ZH)
    assert "门控激活的截断值" in refused.context["adminform"].form.errors["glu_clamp"][0]
    assert Workload.objects.count() == 1
