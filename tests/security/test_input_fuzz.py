"""Every input has bounds and a clear message, and nothing is lost: the write endpoints and forms a buyer or
a provider representative reaches, driven over a table of bad input.

For each (address, method, bad input) the portal never answers 5xx; a refusal (4xx) names the field (the
API's error body, `extra.fields`, portal.api_errors; a page shows the form again with the field's error);
nothing is created on refusal; and the documented minimum and maximum of each bounded field are accepted.
The numeric fields are also driven by hypothesis (fixed seed, bounded examples): a value inside the bound
is accepted, one outside it (or not finite) refused naming the field.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from decimal import Decimal
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from hypothesis import HealthCheck, given, seed, settings
from hypothesis import strategies as st
from rest_framework.test import APIClient

from acceptance.models import AcceptanceRun
from benchmarks.models import Upload
from portal.pagination import MAX_LIMIT
from providers.facts import FACTS, FACTS_BY_NAME, PLAN_BOUNDS
from providers.models import FactChange, PricePoint
from quotes.models import Quote
from rfq import services as rfq_services
from rfq.models import Answer, RequestForQuote
from sizing import services as sizing_services
from sizing.models import WORKLOAD_BOUNDS, PlanRun, Workload
from tests.security.conftest import World

pytestmark = pytest.mark.django_db
HYPOTHESIS = settings(
    max_examples=25,
    derandomize=True,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
WRITTEN = (Workload, PlanRun, Quote, RequestForQuote, Answer, FactChange, PricePoint, Upload, AcceptanceRun)
# Wrong types and nonsense any field may be sent; each field's own out-of-range values are added below.
NONSENSE: list[Any] = [
    "abc",
    [],
    [1],
    {},
    {"a": 1},
    "x" * 10_000,
    "\x00",
    "名字",
    "NaN",
    "Infinity",
    "-Infinity",
]
SOURCE = {"source_url": "https://example.com/price-list", "as_of": "2025-01-01"}


@pytest.fixture
def world(world_of_the_module: World) -> World:
    return world_of_the_module


def rows() -> dict[str, int]:
    return {model.__name__: model.objects.count() for model in WRITTEN}


def api(world: World, role: str) -> APIClient:
    client = world.api(role)
    client.raise_request_exception = False
    return client


def fields_of(response: Any) -> dict[str, Any]:
    body = response.json()
    assert set(body) == {"message", "extra"}, body
    return dict(body["extra"].get("fields") or {})


def assert_refused(response: Any, field: str, *, also: tuple[int, ...] = ()) -> None:
    """A 400 naming `field` (or one of the statuses in `also`, e.g. 404 for an id one may not see)."""
    assert response.status_code < 500, (field, response.status_code, response.content[:300])
    if response.status_code in also:
        return
    assert response.status_code == 400, (field, response.status_code, response.content[:300])
    assert field in fields_of(response), (field, response.content[:300])


def refused_writes_nothing(send: Callable[[], Any], field: str, *, also: tuple[int, ...] = ()) -> None:
    before = rows()
    assert_refused(send(), field, also=also)
    assert rows() == before, field


def wire(value: Any) -> Any:
    """JSON cannot carry NaN or infinities: send them as the strings a client would."""
    if isinstance(value, float) and not math.isfinite(value):
        return "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")
    return value


def outside(
    minimum: float | None, maximum: float, *, positive: bool = False, short: bool = False
) -> list[Any]:
    low = [minimum - 1] if minimum is not None else ([0] if positive else [])
    wrong = ["abc", [], "NaN", "Infinity"] if short else NONSENSE
    return [*low, maximum * 10, 1e308, -1e308, True, *wrong]


def inside(value: float, minimum: float | None, maximum: float, positive: bool) -> bool:
    if not math.isfinite(value) or value > maximum:
        return False
    if minimum is not None and value < minimum:
        return False
    return not (positive and value <= 0)


# --- Workloads --------------------------------------------------------------------------------------------

# The bounded workload fields the API takes at the top level (the MoE ones go inside `moe`).
WORKLOAD_NUMBERS = [
    name
    for name in WORKLOAD_BOUNDS
    if not name.startswith("moe_") and name not in ("hidden", "heads", "kv_heads")
]
# Fields whose bounds the engine accepts at both ends beside the 13b preset's shape.
WORKLOAD_BOUNDARY_FIELDS = [
    "train_tokens",
    "deadline_days",
    "budget_usd",
    "checkpoints_retained",
    "dataset_size_gb",
]


@pytest.mark.parametrize("name", WORKLOAD_NUMBERS)
def test_a_workload_number_out_of_range_or_of_the_wrong_type_is_refused_naming_it(
    world: World, name: str
) -> None:
    bound = WORKLOAD_BOUNDS[name]
    assert bound.maximum is not None
    client = api(world, "buyer")
    base = {"preset": "13b"} if name != "params" else {"name": "by-size"}
    for value in outside(bound.minimum, bound.maximum, positive=bound.strictly_positive):
        refused_writes_nothing(
            lambda v=value: client.post("/api/v1/workloads/", {**base, name: v}, format="json"), name
        )


@pytest.mark.parametrize("name", WORKLOAD_BOUNDARY_FIELDS)
def test_a_workload_number_at_its_documented_minimum_and_maximum_is_accepted(world: World, name: str) -> None:
    bound = WORKLOAD_BOUNDS[name]
    low = bound.minimum if bound.minimum is not None else 0.01
    client = api(world, "buyer")
    for value in (low, bound.maximum):
        response = client.post("/api/v1/workloads/", {"preset": "13b", name: value}, format="json")
        assert response.status_code == 201, (name, value, response.content[:300])
        assert float(response.json()[name]) == pytest.approx(float(value))  # type: ignore[arg-type]


@seed(20260501)
@HYPOTHESIS
@given(
    name=st.sampled_from(WORKLOAD_BOUNDARY_FIELDS),
    value=st.floats(allow_nan=True, allow_infinity=True, width=64) | st.integers(-(2**70), 2**70),
)
def test_any_workload_number_is_accepted_inside_its_bound_and_refused_naming_it_outside(
    world: World, name: str, value: float
) -> None:
    bound = WORKLOAD_BOUNDS[name]
    assert bound.maximum is not None
    integer = name == "checkpoints_retained"
    if name == "budget_usd" and isinstance(value, float) and math.isfinite(value):
        value = round(value, 2)
    ok = inside(float(value), bound.minimum, bound.maximum, bound.strictly_positive) and (
        not integer or float(value).is_integer()
    )
    before = Workload.objects.count()
    response = api(world, "buyer").post(
        "/api/v1/workloads/", {"preset": "13b", name: wire(value)}, format="json"
    )
    if ok:
        assert response.status_code == 201, (name, value, response.content[:300])
    else:
        assert_refused(response, name)
        assert Workload.objects.count() == before


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"preset": "no-such-model"}, "preset"),
        ({"preset": "13b", "activation": "relu6"}, "activation"),
        ({"preset": "13b", "precision": "fp4x"}, "precision"),
        ({"preset": "13b", "attention": "magic"}, "attention"),
        ({"preset": "13b", "tied_embeddings": "perhaps"}, "tied_embeddings"),
        ({"preset": "13b", "name": "x" * 121}, "name"),
        ({"preset": "13b", "name": "a\x00b"}, "name"),
        ({"preset": "13b", "moe": "eight"}, "moe"),
        ({"preset": "deepseek-v3-671b", "moe": {"top_k": 999}}, "moe_top_k"),
        ({"name": "nothing"}, "params"),
        # Conflicting: a parameter count beside an architecture would be dropped unseen.
        ({"preset": "13b", "params": 7e9}, "params"),
        ({"layers": 32, "hidden": 4096, "heads": 32, "params": 7e9}, "params"),
    ],
)
def test_a_bad_or_conflicting_workload_field_is_refused_naming_it(
    world: World, body: dict[str, Any], field: str
) -> None:
    client = api(world, "buyer")
    refused_writes_nothing(lambda: client.post("/api/v1/workloads/", body, format="json"), field)


@pytest.mark.parametrize("body", [[], [1], "text", 7])
def test_a_workload_body_that_is_not_an_object_is_a_400(world: World, body: Any) -> None:
    before = rows()
    response = api(world, "buyer").post("/api/v1/workloads/", body, format="json")
    assert response.status_code == 400 and rows() == before, response.content[:300]


# --- Runs -------------------------------------------------------------------------------------------------


def test_a_run_of_a_workload_that_does_not_exist_or_is_not_yours_is_refused(world: World) -> None:
    buyer, other = api(world, "buyer"), api(world, "other_buyer")
    for workload in (0, -1, 999_999_999, 2**63, 10**30, "abc", None, [], 1.5, True):
        refused_writes_nothing(
            lambda w=workload: buyer.post("/api/v1/runs/", {"workload": w}, format="json"),
            "workload",
            also=(404,),
        )
    refused_writes_nothing(
        lambda: other.post("/api/v1/runs/", {"workload": world.workload.pk}, format="json"),
        "workload",
        also=(404,),
    )


def test_a_run_with_gpus_or_offerings_out_of_range_is_refused_naming_them(world: World) -> None:
    client = api(world, "buyer")
    base = {"workload": world.workload.pk}
    for gpus in (0, -1, sizing_services.MAX_RUN_GPUS + 1, 10**30, 1.5, "abc", True, [8], {"n": 8}):
        refused_writes_nothing(
            lambda g=gpus: client.post("/api/v1/runs/", {**base, "gpus": g}, format="json"), "gpus"
        )
    too_many = [world.offering.slug] * (sizing_services.MAX_RUN_OFFERINGS + 1)
    for offerings in (
        [],
        ["no-such-offering"],
        "own-h100",
        [None],
        [["own-h100"]],
        {"a": 1},
        too_many,
        ["x" * 81],
    ):
        refused_writes_nothing(
            lambda o=offerings: client.post("/api/v1/runs/", {**base, "offerings": o}, format="json"),
            "offerings",
        )
    for objective in ("cheapest!", 1, None, []):
        refused_writes_nothing(
            lambda o=objective: client.post("/api/v1/runs/", {**base, "objective": o}, format="json"),
            "objective",
        )


def test_a_run_at_the_documented_gpu_bounds_is_accepted(world: World) -> None:
    client = api(world, "buyer")
    for gpus in (1, sizing_services.MAX_RUN_GPUS):
        body = {"workload": world.workload.pk, "gpus": gpus, "offerings": [world.offering.slug]}
        response = client.post("/api/v1/runs/", body, format="json")
        assert response.status_code == 201, (gpus, response.content[:300])


# --- Quotes -----------------------------------------------------------------------------------------------


def test_a_quote_with_a_bad_foreign_or_missing_run_or_offering_is_refused(world: World) -> None:
    buyer, other = api(world, "buyer"), api(world, "other_buyer")
    good = {"workload": world.workload.pk, "offering": world.offering.slug}
    cases: list[tuple[dict[str, Any], str]] = [
        ({"offering": world.offering.slug}, "run"),
        ({"workload": world.workload.pk}, "offering"),
        ({**good, "offering": "no-such-offering"}, "offering"),
        ({**good, "offering": "../etc"}, "offering"),
        ({**good, "offering": "x" * 500}, "offering"),
        ({**good, "workload": "abc"}, "workload"),
        ({**good, "workload": 10**30}, "workload"),
        ({"run": 0, "offering": world.offering.slug}, "run"),
        ({"run": 2**63, "offering": world.offering.slug}, "run"),
        ({"run": world.run.pk, "offering": world.other_offering.slug}, "offering"),
        ({**good, "plan": "x" * 201}, "plan"),
    ]
    for body, field in cases:
        refused_writes_nothing(
            lambda b=body: buyer.post("/api/v1/quotes/", b, format="json"), field, also=(404,)
        )
    # Another buyer's run or workload: not found (or refused naming it), nothing issued.
    for body, field in (({"run": world.run.pk, "offering": world.offering.slug}, "run"), (good, "workload")):
        refused_writes_nothing(
            lambda b=body: other.post("/api/v1/quotes/", b, format="json"), field, also=(404,)
        )


def test_a_foreign_or_malformed_quote_pdf_is_a_404(world: World) -> None:
    other = api(world, "other_buyer")
    for path in (f"/api/v1/quotes/{world.quote.pk}/pdf", f"/api/v1/quotes/{world.quote.pk}/"):
        assert other.get(path).status_code == 404
    for quote_id in ("0", "99999999", str(2**63), str(10**30)):
        assert api(world, "buyer").get(f"/api/v1/quotes/{quote_id}/pdf").status_code == 404


# --- Requests for quote and the providers' answers --------------------------------------------------------


@pytest.fixture
def rfq(world: World) -> RequestForQuote:
    return rfq_services.rfq_create(
        buyer=world.users["buyer"],
        workload_id=world.workload.pk,
        offering_slugs=[world.offering.slug],
        gpus=64,
        questions=[],
    )


def test_a_request_for_quote_out_of_bounds_is_refused_naming_the_field(world: World) -> None:
    client = api(world, "buyer")
    good = {"workload": world.workload.pk, "offerings": [world.offering.slug], "gpus": 64}
    cases: list[tuple[str, Any]] = [
        ("gpus", 0),
        ("gpus", rfq_services.MAX_GPUS + 1),
        ("gpus", "abc"),
        ("gpus", True),
        ("workload", 2**63),
        ("workload", "abc"),
        ("offerings", []),
        ("offerings", [world.offering.slug] * (rfq_services.MAX_OFFERINGS + 1)),
        ("offerings", ["x" * 81]),
        ("questions", ["x" * (rfq_services.MAX_QUESTION_CHARS + 1)]),
        ("questions", [""] * (rfq_services.MAX_QUESTIONS + 1)),
        ("questions", "not a list"),
    ]
    for field, value in cases:
        refused_writes_nothing(
            lambda f=field, v=value: client.post("/api/v1/rfqs/", {**good, f: v}, format="json"), field
        )
    refused_writes_nothing(
        lambda: client.post("/api/v1/rfqs/", {**good, "workload": 999_999_999}, format="json"),
        "workload",
        also=(404,),
    )


ANSWER_BOUNDS: list[tuple[str, list[Any], list[Any]]] = [
    # field, refused values, accepted values (the documented minimum and maximum)
    (
        "price_usd_per_gpu_hour",
        # the catalog plans' bound: a free plan is not a price, and the planner sizes up to the cap
        [-1, 0, "0", rfq_services.MAX_PRICE_USD_PER_GPU_HOUR + 1, "999", "NaN", "1e308", True, "abc"],
        ["0.0001", str(rfq_services.MAX_PRICE_USD_PER_GPU_HOUR)],
    ),
    (
        "delivery_weeks",
        [-1, rfq_services.MAX_DELIVERY_WEEKS + 1, 1.5, "abc"],
        [0, rfq_services.MAX_DELIVERY_WEEKS],
    ),
    ("term_months", [0, rfq_services.MAX_TERM_MONTHS + 1, "abc"], [1, rfq_services.MAX_TERM_MONTHS]),
    ("payment_terms", ["net-90", "", None, 30], ["upfront", "net-60"]),
    (
        "as_of",
        ["2025-02-30", "yesterday", "", None, 20250101, "2999-01-01", "1900-01-01", "0201-05-01"],
        ["2010-01-01", "2024-12-31"],
    ),
    (
        "source_url",
        ["", None, "not a url", "javascript:alert(1)", "https://e.com/" + "x" * 500],
        ["https://e.com/q"],
    ),
]


def answer_body(world: World) -> dict[str, Any]:
    return {
        "offering": world.offering.slug,
        "price_usd_per_gpu_hour": "2.50",
        "delivery_weeks": 2,
        "payment_terms": "net-30",
        **SOURCE,
    }


@pytest.mark.parametrize(("field", "bad", "good"), ANSWER_BOUNDS, ids=[row[0] for row in ANSWER_BOUNDS])
def test_an_answer_out_of_bounds_is_refused_naming_the_field_and_its_bounds_accepted(
    world: World, rfq: RequestForQuote, field: str, bad: list[Any], good: list[Any]
) -> None:
    client, url = api(world, "own_rep"), f"/api/v1/rfqs/{rfq.pk}/answers/"
    for value in bad:
        refused_writes_nothing(
            lambda v=value: client.post(url, {**answer_body(world), field: v}, format="json"), field
        )
    for value in good:
        response = client.post(url, {**answer_body(world), field: value}, format="json")
        assert response.status_code == 201, (field, value, response.content[:300])


def test_an_answer_at_the_highest_price_accepted_is_sized_not_refused_by_the_planner(
    world: World, rfq: RequestForQuote
) -> None:
    """Every price an answer may carry is one the planner sizes: none is stored and then shown as
    "the planner cannot size this offering" (the answer's bound is the catalog plans')."""
    client, url = api(world, "own_rep"), f"/api/v1/rfqs/{rfq.pk}/answers/"
    body = {**answer_body(world), "price_usd_per_gpu_hour": str(rfq_services.MAX_PRICE_USD_PER_GPU_HOUR)}
    assert client.post(url, body, format="json").status_code == 201
    answer = Answer.objects.filter(rfq=rfq).latest("pk")
    assert "cannot size" not in str((answer.result or {}).get("infeasible_reason")), answer.result


def test_an_error_inside_a_list_names_the_item_and_never_shows_a_python_repr(world: World) -> None:
    client = api(world, "buyer")
    body = {"workload": world.workload.pk, "offerings": [world.offering.slug], "gpus": 64}
    response = client.post("/api/v1/rfqs/", {**body, "questions": ["ok", {"a": 2}]}, format="json")
    assert response.status_code == 400
    message = response.json()["message"]
    assert message.startswith("questions[1]: "), message
    assert "ErrorDetail" not in message and "{" not in message, message
    assert "questions" in fields_of(response)


@pytest.mark.parametrize("missing", ["source_url", "as_of", "offering", "price_usd_per_gpu_hour"])
def test_an_answer_without_its_source_date_offering_or_price_is_refused_naming_it(
    world: World, rfq: RequestForQuote, missing: str
) -> None:
    body = {k: v for k, v in answer_body(world).items() if k != missing}
    client = api(world, "own_rep")
    refused_writes_nothing(
        lambda: client.post(f"/api/v1/rfqs/{rfq.pk}/answers/", body, format="json"), missing
    )


# --- Sourced fact edits -----------------------------------------------------------------------------------

NUMBER_FACTS = [f for f in FACTS if f.type in ("int", "float", "decimal")]
CHOICE_FACTS = [f for f in FACTS if f.type in ("enum", "list")]


@pytest.mark.parametrize("name", [f.name for f in NUMBER_FACTS])
def test_a_fact_out_of_range_is_refused_naming_it_and_its_bounds_are_accepted(
    world: World, name: str
) -> None:
    fact = FACTS_BY_NAME[name]
    assert fact.bound is not None and fact.maximum is not None
    client, url = api(world, "own_rep"), f"/api/v1/offerings/{world.offering.slug}/facts/"
    for value in outside(fact.bound.minimum, fact.maximum, positive=fact.bound.strictly_positive, short=True):
        refused_writes_nothing(lambda v=value: client.patch(url, {name: v, **SOURCE}, format="json"), name)
    low = fact.bound.minimum if fact.bound.minimum is not None else (0.001 if fact.type != "int" else 1)
    for value in (low, fact.maximum):
        sent = str(Decimal(str(value))) if fact.type == "decimal" else value
        response = client.patch(url, {name: sent, **SOURCE}, format="json")
        assert response.status_code == 200, (name, value, response.content[:300])


@pytest.mark.parametrize("name", [f.name for f in CHOICE_FACTS])
def test_a_fact_with_an_unknown_code_is_refused_naming_it(world: World, name: str) -> None:
    fact = FACTS_BY_NAME[name]
    client, url = api(world, "own_rep"), f"/api/v1/offerings/{world.offering.slug}/facts/"
    bad: list[Any] = (
        ["no-such-code", 7, {"a": 1}] if fact.type == "enum" else [["no-such-code"], [None], "slurm,x"]
    )
    for value in bad:
        refused_writes_nothing(lambda v=value: client.patch(url, {name: v, **SOURCE}, format="json"), name)


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"source_url": None}, "source_url"),
        ({"as_of": None}, "as_of"),
        ({"source_url": "not a url"}, "source_url"),
        ({"source_url": "https://e.com/" + "x" * 500}, "source_url"),
        ({"as_of": "2025-13-01"}, "as_of"),
        ({"as_of": "soon"}, "as_of"),
    ],
)
def test_a_fact_edit_without_a_good_source_and_date_is_refused_naming_it(
    world: World, change: dict[str, Any], field: str
) -> None:
    body = {"gpus_per_node": 4, **SOURCE, **change}
    body = {k: v for k, v in body.items() if v is not None}
    client = api(world, "own_rep")
    url = f"/api/v1/offerings/{world.offering.slug}/facts/"
    refused_writes_nothing(lambda: client.patch(url, body, format="json"), field)


def test_a_plan_price_out_of_range_is_refused_naming_it(world: World) -> None:
    bound = PLAN_BOUNDS["price_usd_per_gpu_hour"]
    assert bound.maximum is not None
    client = api(world, "own_rep")
    url = f"/api/v1/offerings/{world.offering.slug}/plans/{world.plan.pk}/price/"
    for value in (-1, bound.maximum * 10, "1e308", "NaN", True, "abc"):
        refused_writes_nothing(
            lambda v=value: client.post(url, {"price_usd_per_gpu_hour": v}, format="json"),
            "price_usd_per_gpu_hour",
        )
    for plan in ("999999999", str(2**63)):
        response = client.post(
            url.replace(str(world.plan.pk), plan), {"price_usd_per_gpu_hour": "1"}, format="json"
        )
        assert response.status_code == 404


# --- Benchmark uploads and acceptance bundles --------------------------------------------------------------


def upload(client: APIClient, world: World, **parts: Any) -> Any:
    body = {"offering": world.offering.slug, **parts}
    body.setdefault("file", SimpleUploadedFile("log.txt", b"hello", "text/plain"))
    return client.post("/api/v1/uploads/", body, format="multipart")


def test_an_upload_with_bad_fields_is_refused_naming_them(world: World, settings: Any) -> None:
    client = api(world, "buyer")
    many = [SimpleUploadedFile(f"{i}.txt", b"x") for i in range(settings.UPLOAD_MAX_FILES_PER_REQUEST + 1)]
    cases: list[tuple[dict[str, Any], str]] = [
        ({"file": SimpleUploadedFile("empty.txt", b"")}, "file"),
        ({"file": many}, "file"),
        ({"offering": "no-such-offering"}, "offering"),
        ({"offering": "a\x00b"}, "offering"),
        ({"nodes": "0"}, "nodes"),
        ({"nodes": "abc"}, "nodes"),
        ({"nodes": str(10**30)}, "nodes"),
        ({"gpus": "-1"}, "gpus"),
        ({"gpus": str(2**63)}, "gpus"),
        ({"measured_on": "2025-02-30"}, "measured_on"),
        ({"visibility": "everyone"}, "visibility"),
        ({"notes": "x" * 5001}, "notes"),
    ]
    for parts, field in cases:
        refused_writes_nothing(lambda p=parts: upload(client, world, **p), field)
    nothing = client.post("/api/v1/uploads/", {"offering": world.offering.slug}, format="multipart")
    assert_refused(nothing, "file")


@pytest.mark.parametrize(
    "name",
    ["../../etc/passwd", "a\x00b.txt", "line\nbreak.txt", "esc\x1b[31m.txt", "x" * 300 + ".txt", "名字.txt"],
)
def test_an_upload_named_with_a_path_or_control_characters_is_stored_under_a_plain_name(
    world: World, name: str
) -> None:
    response = upload(api(world, "buyer"), world, file=SimpleUploadedFile(name, b"hello\n", "text/plain"))
    assert response.status_code in (201, 400), response.content[:300]
    if response.status_code == 201:
        stored = Upload.objects.get(pk=response.json()["id"]).original_filename
        assert "/" not in stored and ".." not in stored.split("/")
        assert not any(ord(c) < 32 for c in stored), stored
    else:
        assert "file" in fields_of(response)


@pytest.mark.parametrize("data", [b"\x00\xff" * 500, bytes(range(256)) * 40])
def test_a_binary_upload_is_stored_and_never_a_5xx(world: World, data: bytes) -> None:
    response = upload(
        api(world, "buyer"), world, file=SimpleUploadedFile("x.bin", data, "application/octet-stream")
    )
    assert response.status_code in (201, 400), response.content[:300]


def test_an_acceptance_bundle_with_bad_fields_is_refused_naming_them(world: World) -> None:
    client = api(world, "buyer")

    def send(**parts: Any) -> Any:
        body = {
            "offering": world.offering.slug,
            "bundle": SimpleUploadedFile("b.tar.gz", b"\x1f\x8b junk"),
            **parts,
        }
        return client.post("/api/v1/acceptance/", body, format="multipart")

    for parts, field in [
        ({"bundle": SimpleUploadedFile("b.tar.gz", b"")}, "bundle"),
        ({"offering": "no-such-offering"}, "offering"),
        ({"offering": ""}, "offering"),
        ({"visibility": "everyone"}, "visibility"),
    ]:
        refused_writes_nothing(lambda p=parts: send(**p), field)
    assert (
        client.post("/api/v1/acceptance/", {"offering": world.offering.slug}, format="multipart").status_code
        == 400
    )
    # Not an archive: stored (any logs are accepted) or refused naming the bundle, never a 5xx.
    response = send()
    assert response.status_code in (201, 202) or "bundle" in fields_of(response), response.content[:300]


def test_the_acceptance_kit_refuses_bad_parameters_naming_them(world: World) -> None:
    client = api(world, "buyer")
    good = {"offering": world.offering.slug, "nodes": "1", "scheduler": "slurm"}
    for field, value in [
        ("offering", "no-such-offering"),
        ("offering", "a\x00b"),
        ("nodes", "0"),
        ("nodes", str(10**30)),
        ("nodes", "abc"),
        ("scheduler", "pbs"),
        ("stability_hours", "-1"),
        ("stability_hours", str(10**30)),
    ]:
        assert_refused(client.get("/api/v1/acceptance/kit/", {**good, field: value}), field)


# --- The token endpoint -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "body",
    [
        {},
        {"username": "x" * 10_000, "password": "y"},
        {"username": None, "password": None},
        {"username": ["a"], "password": {"a": 1}},
        {"username": "\x00", "password": "\x00"},
    ],
)
def test_a_malformed_token_request_is_a_400_never_a_5xx(world: World, body: dict[str, Any]) -> None:
    response = api(world, "anonymous").post("/api/v1/auth/token/", body, format="json")
    assert response.status_code in (400, 429), response.content[:300]


# --- Query parameters and addresses -----------------------------------------------------------------------

LISTS = [
    "/api/v1/offerings/",
    "/api/v1/providers/",
    "/api/v1/findings/",
    "/api/v1/uploads/",
    "/api/v1/quotes/",
    "/api/v1/acceptance/",
]
PAGES = [
    "/offerings/",
    "/compare/",
    "/quotes/",
    "/rfqs/",
    "/benchmarks/",
    "/plan/workloads/",
    "/checks/checklist/",
]
PARAMETERS = [
    "sort",
    "page",
    "currency",
    "gpus",
    "min_price",
    "max_price",
    "min_gbps_per_gpu",
    "include_fictional",
    "feature",
    "slug",
    "provider",
    "gpu",
    "q",
    "offering",
    "objective",
]
ODD_VALUES = ["", "abc", "-1", "0", "1e308", "NaN", str(10**30), "x" * 3000, "%", "名字"]


@pytest.mark.parametrize("path", LISTS + PAGES)
def test_an_odd_query_parameter_never_answers_5xx(world: World, path: str) -> None:
    """Every odd value in every parameter at once, then each parameter alone with two of them."""
    client = api(world, "buyer")
    client.force_login(world.users["buyer"])
    asked = [{name: value for name in PARAMETERS} for value in ODD_VALUES]
    asked += [{name: value} for name in PARAMETERS for value in ("abc", str(10**30))]
    for params in asked:
        response = client.get(path, params)
        assert response.status_code < 500, (path, params, response.status_code)
        if response.status_code == 400 and path.startswith("/api/"):
            assert fields_of(response), (path, params)


@pytest.mark.parametrize("path", LISTS + PAGES + ["/api/v1/acceptance/kit/"])
def test_a_null_character_in_a_query_parameter_is_refused_naming_it(world: World, path: str) -> None:
    client = api(world, "buyer")
    client.force_login(world.users["buyer"])
    for name in ("offering", "q", "slug"):
        response = client.get(path, {name: "a\x00b"})
        assert response.status_code == 400, (path, name, response.status_code)
        text = response.content.decode()
        assert name in (fields_of(response) if path.startswith("/api/") else text), text[:300]
        if not path.startswith("/api/"):
            # the site's own page (navigation and a way back), not a bare paragraph
            assert "<nav" in text and "Bad request" in text and 'href="/"' in text, text[:300]


@pytest.mark.parametrize("path", [path for path in LISTS if path != "/api/v1/findings/"])  # (not paged)
def test_api_paging_takes_bounded_whole_numbers_and_names_the_parameter_otherwise(
    world: World, path: str
) -> None:
    client = api(world, "buyer")
    for name, value in [
        ("limit", "0"),
        ("limit", "9" * 41),
        ("limit", "abc"),
        ("limit", "-1"),
        ("limit", "1.5"),
        ("offset", "-1"),
        ("offset", str(2**63)),
        ("offset", "x"),
    ]:
        assert_refused(client.get(path, {name: value}), name)
    for params in (
        {"limit": "1"},
        {"limit": str(MAX_LIMIT)},
        # above the most one page holds: that many rows, as DRF's max_limit documents (never a 500)
        {"limit": str(MAX_LIMIT + 1)},
        {"limit": str(10**30)},
        {"offset": str(2**63 - 1)},
        {"limit": "", "offset": ""},
    ):
        assert client.get(path, params).status_code == 200, (path, params)


@pytest.mark.parametrize(
    "path",
    [
        "/plan/999999/",
        "/plan/99999999999999999999999/",
        "/offerings/%00/",
        "/offerings/" + "a" * 3000 + "/",
        "/quotes/99999999999999999999/",
        "/quotes/99999999999999999999/pdf",
        "/quotes/shared/" + "a" * 3000 + "/",
        "/benchmarks/99999999999999999999999/",
        "/benchmarks/acceptance/99999999999999999999999/",
        "/rfqs/99999999999999999999999/",
        "/compare/sizing/99999999999999999999999/",
        "/api/v1/offerings/%00/",
        "/api/v1/offerings/" + "a" * 3000 + "/",
        "/api/v1/runs/99999999999999999999999/",
        "/api/v1/rfqs/99999999999999999999999/",
        "/api/v1/uploads/99999999999999999999999/",
        "/api/v1/acceptance/99999999999999999999999/",
    ],
)
def test_a_malformed_or_unknown_id_or_slug_is_a_404(world: World, path: str) -> None:
    client = api(world, "buyer")
    client.force_login(world.users["buyer"])
    assert client.get(path).status_code == 404


# --- The pages' forms -------------------------------------------------------------------------------------


def test_the_planner_form_names_a_bad_field_and_creates_nothing(world: World) -> None:
    client = world.pages("buyer")
    client.raise_request_exception = False
    for field, value in [
        ("train_tokens", "1e308"),
        ("deadline_days", "NaN"),
        ("budget_usd", "-1"),
        ("layers", str(10**30)),
        ("name", "x" * 121),
        ("gpus", "0"),
        ("params", "7e9"),
    ]:
        before = rows()
        response = client.post("/plan/", {"preset": "13b", "objective": "cheapest", field: value})
        assert response.status_code in (200, 400), (field, response.status_code)
        assert field in response.context["form"].errors, (field, response.context["form"].errors)
        assert rows() == before


def test_the_fact_edit_form_names_a_bad_field_and_changes_nothing(world: World) -> None:
    client = world.pages("own_rep")
    client.raise_request_exception = False
    url = f"/offerings/{world.offering.slug}/facts/"
    for field, value in [
        ("setup_fee_usd", "1e308"),
        ("gpus_per_node", "0"),
        ("fabric", "bogus"),
        ("as_of", "2025-02-30"),
        ("as_of", "1900-01-01"),
        ("source_url", ""),
    ]:
        before = rows()
        body = {"gpus_per_node": "8", **SOURCE, field: value}
        response = client.post(url, body)
        assert response.status_code in (200, 400), (field, response.status_code)
        assert field in response.context["form"].errors, (field, response.context["form"].errors)
        assert rows() == before


def test_the_first_error_names_list_items_and_never_drf_s_internal_key() -> None:
    # review: a list of objects (many=True) lost the item's index, and a nested object's own error showed
    # DRF's `non_field_errors` to the reader
    from portal.api_errors import _first_error

    assert _first_error({"items": [{}, {"name": ["Required."]}]}) == ("items[1].name", "Required.")
    assert _first_error({"facts": {"non_field_errors": ["Bad."]}}) == ("facts", "Bad.")
    error = ("questions[1]", "Not a valid string.")
    assert _first_error({"questions": {1: ["Not a valid string."]}}) == error
