"""A JSON integer no float holds (400 digits), NaN or Infinity in any number the `size` command, the planner
form or the API takes is refused naming its field: never an OverflowError traceback, never a 500."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from django.test import Client
from rest_framework.test import APIClient

from sizing.engine.cli import main
from sizing.models import WORKLOAD_BOUNDS, Workload
from tests.providers.factories import UserFactory

ROOT = Path(__file__).resolve().parents[2]
BIG = 10**400  # json.dumps writes all 401 digits; json.loads reads them back as an int
NOT_FLOATS = [BIG, -BIG, float("nan"), float("inf")]  # the last two as JSON's NaN and Infinity
# the numbers of the h100_ib offering (tests/sizing/conftest.py)
OFFERING_NUMBERS = [
    "gpus_per_node",
    "nics_per_node",
    "gbps_per_nic",
    "oversubscription",
    "nodes",
    "price_usd_per_gpu_hour",
    "replacement_time_min",
    "storage_write_gbytes_per_s",
]
WORKLOAD = {
    "name": "w",
    "layers": 4,
    "hidden": 1024,
    "heads": 8,
    "kv_heads": 4,
    "ffn_hidden": 4096,
    "vocab": 32000,
    "seq_len": 4096,
    "global_batch": 64,
    "train_tokens": 1e10,
    "deadline_days": 30,
    "head_dim": 128,
    "qk_head_dim": 128,
    "v_head_dim": 128,
    "mtp_layers": 1,
    "sliding_window": 1024,
    "sliding_window_layers": 0.5,
    "moe": {"experts": 8, "top_k": 2, "expert_ffn_hidden": 1024, "shared_experts": 1, "dense_layers": 1},
}
LAYOUT = {"tp": 1, "pp": 2, "dp": 4, "cp": 1, "ep": 1, "etp": 1, "zero": 1, "micro_batch": 1}
LAYOUT_KEYS = [*LAYOUT, "virtual_stages", "first_stage_layers", "last_stage_layers"]


def _size(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(argv, stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


def _refused(argv: list[str], field: str) -> None:
    code, out, err = _size([*argv, "--json"])
    assert code == 2, (field, err)
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"error: {field}: "), (field, err)
    assert json.loads(out)["field"] == field


def _with(base: dict[str, Any], path: str, value: Any) -> dict[str, Any]:
    out = json.loads(json.dumps(base))
    *parents, key = path.split(".")
    node = out
    for parent in parents:
        node = node[parent]
    node[key] = value
    return out


def test_the_answer_is_given_before_anything_is_replaced(h100_ib: dict[str, Any]) -> None:
    code, _, err = _size(
        ["--workload", json.dumps(WORKLOAD), "--offering", json.dumps(h100_ib), "--gpus", "8"]
    )
    assert code == 0, err
    layout = ["--layout", json.dumps(LAYOUT)]
    code, _, err = _size(["--workload", "13b", "--offering", json.dumps(h100_ib), "--gpus", "8", *layout])
    assert code == 0, err


@pytest.mark.parametrize("value", NOT_FLOATS, ids=["400 digits", "-400 digits", "NaN", "Infinity"])
@pytest.mark.parametrize(
    "path", [k for k in WORKLOAD if k not in ("name", "moe")] + [f"moe.{k}" for k in WORKLOAD["moe"]]
)
def test_a_workload_number_no_float_holds_is_refused_naming_it(
    path: str, value: Any, h100_ib: dict[str, Any]
) -> None:
    workload = json.dumps(_with(WORKLOAD, path, value))
    _refused(["--workload", workload, "--offering", json.dumps(h100_ib), "--gpus", "8"], f"workload.{path}")


@pytest.mark.parametrize("value", NOT_FLOATS, ids=["400 digits", "-400 digits", "NaN", "Infinity"])
@pytest.mark.parametrize("key", ["params", "seq_len", "global_batch", "train_tokens"])
def test_a_number_of_a_workload_given_by_its_size_is_refused_naming_it(
    key: str, value: Any, h100_ib: dict[str, Any]
) -> None:
    workload = {"name": "d", "params": 7e9, "seq_len": 4096, "global_batch": 64, "train_tokens": 1e11}
    argv = ["--workload", json.dumps({**workload, key: value}), "--offering", json.dumps(h100_ib)]
    _refused(argv, f"workload.{key}")


@pytest.mark.parametrize("value", NOT_FLOATS, ids=["400 digits", "-400 digits", "NaN", "Infinity"])
@pytest.mark.parametrize("key", OFFERING_NUMBERS)
def test_an_offering_number_no_float_holds_is_refused_naming_it(
    key: str, value: Any, h100_ib: dict[str, Any]
) -> None:
    offering = json.dumps({**h100_ib, key: value})
    _refused(["--workload", "13b", "--offering", offering, "--gpus", "8"], f"offering.{key}")


@pytest.mark.parametrize("value", NOT_FLOATS, ids=["400 digits", "-400 digits", "NaN", "Infinity"])
@pytest.mark.parametrize("key", LAYOUT_KEYS)
def test_a_layout_number_no_float_holds_is_refused_naming_it(
    key: str, value: Any, h100_ib: dict[str, Any]
) -> None:
    argv = ["--workload", "13b", "--offering", json.dumps(h100_ib), "--gpus", "8"]
    _refused([*argv, "--layout", json.dumps({**LAYOUT, key: value})], f"layout.{key}")


@pytest.mark.parametrize(("option", "field"), [("--top", "top"), ("--gpus", "gpus")])
def test_a_400_digit_option_is_refused_naming_it(option: str, field: str, h100_ib: dict[str, Any]) -> None:
    _refused(["--workload", "13b", "--offering", json.dumps(h100_ib), option, str(BIG)], field)
    code, _, err = _size(["--workload", "13b", "--offering", json.dumps(h100_ib), option, str(BIG)])
    assert "10⁴⁰⁰" in err and len(err) < 200  # the value as a power of ten, not its 401 digits


def test_a_number_longer_than_python_reads_is_refused_naming_the_input(
    tmp_path: Path, h100_ib: dict[str, Any]
) -> None:
    """json raises ValueError, not JSONDecodeError, past sys.get_int_max_str_digits() (4,300)."""
    digits = "1" + "0" * 5000
    _refused(
        ["--workload", '{"name": "w", "layers": ' + digits + "}", "--offering", json.dumps(h100_ib)],
        "workload",
    )
    path = tmp_path / "offering.json"
    path.write_text(json.dumps(h100_ib).replace('"nodes": 256', f'"nodes": {digits}'))
    _refused(["--workload", "13b", "--offering", str(path)], "offering")
    path.write_bytes(b'{"name": "\xff"}')
    _refused(["--workload", "13b", "--offering", str(path)], "offering")


def _run(args: list[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, *args], cwd=ROOT, capture_output=True, text=True, timeout=120, check=False
    )


def test_manage_py_size_refuses_a_400_digit_global_batch_in_one_line(h100_ib: dict[str, Any]) -> None:
    workload = json.dumps({**WORKLOAD, "global_batch": BIG})
    assert str(BIG) in workload
    done = _run(["manage.py", "size", "--workload", workload, "--offering", json.dumps(h100_ib), "--json"])
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr and "\n" not in done.stderr.strip()
    assert done.stderr.startswith("error: workload.global_batch: must be between ")
    assert json.loads(done.stdout)["field"] == "workload.global_batch"


def test_the_engine_cli_refuses_a_400_digit_layout_degree_in_one_line(h100_ib: dict[str, Any]) -> None:
    layout = json.dumps({**LAYOUT, "tp": BIG})
    argv = [
        "-m",
        "sizing.engine.cli",
        "--workload",
        "13b",
        "--offering",
        json.dumps(h100_ib),
        "--layout",
        layout,
    ]
    done = _run(argv)
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr and "\n" not in done.stderr.strip()
    assert done.stderr.startswith("error: layout.tp: ")


# the bounded workload fields the API takes at the top level (the MoE ones inside `moe`)
WORKLOAD_API_FIELDS = [name for name in WORKLOAD_BOUNDS if not name.startswith("moe_")]


@pytest.fixture
def api() -> APIClient:
    client = APIClient()
    client.raise_request_exception = False
    client.force_authenticate(UserFactory(username="huge-numbers"))
    return client


def _post(api: APIClient, url: str, body: dict[str, Any]) -> Any:
    return api.post(url, data=json.dumps(body), content_type="application/json")


@pytest.mark.django_db
@pytest.mark.parametrize("value", [BIG, -BIG], ids=["400 digits", "-400 digits"])
@pytest.mark.parametrize("field", WORKLOAD_API_FIELDS)
def test_the_workload_api_answers_400_naming_a_400_digit_field(
    api: APIClient, field: str, value: int
) -> None:
    response = _post(api, "/api/v1/workloads/", {"preset": "13b", field: value})
    assert response.status_code == 400, response.content[:300]
    assert field in response.json()["extra"]["fields"]
    assert not Workload.objects.exists()


@pytest.mark.django_db
@pytest.mark.parametrize("key", ["experts", "top_k", "expert_ffn_hidden", "shared_experts", "dense_layers"])
def test_the_workload_api_answers_400_naming_a_400_digit_moe_field(api: APIClient, key: str) -> None:
    response = _post(
        api, "/api/v1/workloads/", {"preset": "13b", "moe": {"experts": 8, "top_k": 2, key: BIG}}
    )
    assert response.status_code == 400, response.content[:300]
    assert f"moe_{key}" in response.json()["extra"]["fields"]
    assert not Workload.objects.exists()


@pytest.mark.django_db
def test_the_run_api_answers_400_for_a_400_digit_gpu_count(api: APIClient) -> None:
    workload = _post(api, "/api/v1/workloads/", {"preset": "13b"}).json()["id"]
    response = _post(api, "/api/v1/runs/", {"workload": workload, "gpus": BIG})
    assert response.status_code == 400 and "gpus" in response.json()["extra"]["fields"]
    assert _post(api, "/api/v1/runs/", {"workload": BIG}).status_code == 404  # no such workload


@pytest.mark.django_db
@pytest.mark.parametrize("field", ["layers", "global_batch", "moe_experts", "sliding_window"])
def test_the_plan_form_names_a_400_digit_field(client: Client, field: str) -> None:
    client.force_login(UserFactory(username="huge-form"))
    response = client.post("/plan/", {"preset": "13b", "objective": "cheapest", field: str(BIG)})
    assert response.status_code == 200
    assert "10⁴⁰⁰" in response.context["form"].errors[field][0]
    assert not Workload.objects.exists()
