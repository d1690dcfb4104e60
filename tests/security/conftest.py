"""The cast of the security tests: two providers, one offering each, one user of every role, and the
buyer's private things: a workload, a run with a result and a finding, quotes (one shared, one revoked)."""

from __future__ import annotations

import pickle
import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from django.core.cache import cache
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.test import Client, TestCase
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from tests.conftest import FAST_HASHERS, module_rows
from tests.providers.factories import OfferingFactory, PlanFactory, ProviderFactory, UserFactory

NCCL_LOG = (
    Path(__file__).parents[1] / "benchmarks" / "fixtures" / "uploads" / "nccl-allreduce-1node.txt"
).read_bytes()
ROLES = ("anonymous", "buyer", "other_buyer", "own_rep", "other_rep", "staff")


@dataclass
class World:
    users: dict[str, Any]
    offering: Any
    other_offering: Any
    plan: Any
    provider: Any
    workload: Any
    run: Any
    upload_private: Any
    upload_public: Any
    result: Any
    quote: Any
    shared_quote: Any
    revoked_token: str
    run_finding: Any
    claims_finding: Any

    def api(self, role: str) -> APIClient:
        client = APIClient()
        user = self.users.get(role)
        if user is not None:
            token, _ = Token.objects.get_or_create(user=user)
            client.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
        return client

    def pages(self, role: str) -> Client:
        client = Client()
        user = self.users.get(role)
        if user is not None:
            client.force_login(user)
        return client


@pytest.fixture(autouse=True)
def _fresh_limits_and_media(settings: Any, tmp_path: Path) -> Any:
    """Rate-limit counters live in the cache (Redis under PostgreSQL runs): start every test from zero."""
    settings.MEDIA_ROOT = str(tmp_path / "media")
    settings.PASSWORD_HASHERS = FAST_HASHERS
    cache.clear()
    yield
    cache.clear()


def make_upload(
    *, owner: Any, offering: Any, visibility: str, content: bytes = NCCL_LOG, notes: str = ""
) -> Any:
    from benchmarks import services

    with TestCase.captureOnCommitCallbacks(execute=True):
        outcomes = services.upload_create(
            owner=owner,
            offering=offering,
            files=[services.IncomingFile(name=f"{visibility}-allreduce.txt", data=content)],
            nodes=1,
            gpus=None,
            measured_on=None,
            notes=notes,
            visibility=visibility,
        )
    return outcomes[0].upload


def stored_upload(*, owner: Any, offering: Any, visibility: str) -> Any:
    """An upload row with its bytes, without running the parser (the matrix is about who sees it)."""
    from benchmarks import services
    from benchmarks.models import Upload

    blob = services.blob_store(data=NCCL_LOG + visibility.encode())
    return Upload.objects.create(
        owner=owner,
        offering=offering,
        blob=blob,
        original_filename=f"{visibility}-allreduce.txt",
        visibility=visibility,
        status="parsed",
        kind="nccl-tests",
    )


@pytest.fixture
def world(db: Any) -> World:
    return build_world()


@pytest.fixture(scope="module")
def module_world(
    django_db_setup: None, django_db_blocker: Any, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[bytes, Path]]:
    """One World for a whole module (see `module_rows`), pickled, with the directory of its files."""
    from django.test.utils import override_settings

    from providers.models import Provider

    media = tmp_path_factory.mktemp("world-media")

    def build() -> tuple[bytes, int]:
        with override_settings(MEDIA_ROOT=str(media), PASSWORD_HASHERS=FAST_HASHERS):
            world = build_world()
        return pickle.dumps(world), world.provider.pk

    with module_rows(django_db_blocker, build) as (pickled, provider):
        yield pickled, media
    with django_db_blocker.unblock():
        assert not Provider.objects.filter(pk=provider).exists(), "the module's World was kept"


@pytest.fixture
def world_of_the_module(
    module_world: tuple[bytes, Path], db: Any, settings: Any, _fresh_limits_and_media: Any
) -> World:
    """The module's World for one test: its rows as built (what the test writes is rolled back with its
    savepoint by `db`), its files copied into this test's MEDIA_ROOT, and its objects copied, so a test
    changing one in memory or deleting a file changes nothing for the next test (unpickled: a sixth of the
    time of a deep copy)."""
    world, media = module_world
    shutil.copytree(media, settings.MEDIA_ROOT, dirs_exist_ok=True)
    unpickled: World = pickle.loads(world)
    return unpickled


def build_world() -> World:
    from checks.models import Finding, context_for_run
    from quotes import services as quote_services
    from sizing import services as sizing_services
    from sizing.models import PlanResult, PlanRun

    provider = ProviderFactory(slug="own-cloud", name="Own Cloud")
    offering = OfferingFactory(slug="own-h100", provider=provider)
    other_offering = OfferingFactory(slug="other-h100", provider=ProviderFactory(slug="other-cloud"))
    plan = PlanFactory(offering=offering, name="On demand")
    users = {
        "buyer": UserFactory(username="buyer", role="buyer"),
        "other_buyer": UserFactory(username="other-buyer", role="buyer"),
        "own_rep": UserFactory(username="own-rep", role="provider", provider=provider),
        "other_rep": UserFactory(username="other-rep", role="provider", provider=other_offering.provider),
        "staff": UserFactory(username="staff", role="staff", is_staff=True),
    }
    workload = sizing_services.workload_create(
        owner=users["buyer"], preset="13b", name="buyer-secret-workload"
    )
    run = PlanRun.objects.create(workload=workload, owner=users["buyer"], status="done")
    result = PlanResult.objects.create(run=run, offering=offering, feasible=False, rank=1)
    quote, shared_quote = (
        quote_services.quote_create_for_offering(
            owner=users["buyer"], offering_slug=offering.slug, workload_id=workload.pk
        )
        for _ in range(2)
    )
    # The quote's PDF is already rendered (the matrix is about who gets it, not about rendering).
    default_storage.save(quote_services.pdf_names(quote)[0], ContentFile(b"%PDF-1.7 matrix\n%%EOF\n"))
    default_storage.save(quote_services.pdf_names(shared_quote)[0], ContentFile(b"%PDF-1.7 shared\n%%EOF\n"))
    revoked_token = quote_services.quote_share(quote=quote).share_token or ""
    quote_services.quote_unshare(quote=quote)
    quote_services.quote_share(quote=shared_quote)
    # One public finding of the offering's published facts, one of the buyer's private run.
    claims_finding = Finding.objects.create(
        offering=offering, code="matrix-claims", severity="info", title="public claim", context="claims"
    )
    run_finding = Finding.objects.create(
        offering=offering,
        code="matrix-run",
        severity="warning",
        title="buyer-secret-run-finding",
        context=context_for_run(run.pk),
    )
    return World(
        users=users,
        offering=offering,
        other_offering=other_offering,
        plan=plan,
        provider=provider,
        workload=workload,
        run=run,
        upload_private=stored_upload(owner=users["buyer"], offering=offering, visibility="private"),
        upload_public=stored_upload(owner=users["buyer"], offering=offering, visibility="public"),
        result=result,
        quote=quote,
        shared_quote=shared_quote,
        revoked_token=revoked_token,
        run_finding=run_finding,
        claims_finding=claims_finding,
    )
