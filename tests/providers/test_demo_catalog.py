from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from django.core.management import call_command

from accounts.models import User
from providers.models import Offering, Provider

pytestmark = pytest.mark.django_db
DEMO = Path(__file__).resolve().parents[2] / "providers" / "demo" / "catalog.yaml"


def test_load_demo_imports_the_catalog_and_creates_the_accounts(capsys: pytest.CaptureFixture[str]) -> None:
    call_command("load_demo")
    out = capsys.readouterr().out
    for name in ("demo-buyer", "demo-provider", "demo-admin"):
        assert name in out
        assert User.objects.get(username=name).check_password(name)
    rep = User.objects.get(username="demo-provider")
    assert rep.role == "provider" and rep.provider is not None
    assert Offering.objects.filter(fictional=True).count() >= 5
    for offering in Offering.objects.filter(fictional=True):
        assert offering.name.startswith("[Sample]") and offering.provider.kind == "fictional"
    call_command("load_demo")  # idempotent: a second load changes nothing
    assert Provider.objects.filter(slug="aws").count() == 1


def test_every_provider_and_offering_of_the_shared_catalog_is_in_the_demo(shared: Path) -> None:
    source = yaml.safe_load((shared / "data" / "provider-catalog.yaml").read_text())
    demo = yaml.safe_load(DEMO.read_text())
    demo_providers = {p["slug"]: p for p in demo["providers"]}
    for provider in source["providers"]:
        assert provider["id"] in demo_providers, provider["id"]
        demo_offerings = {o["slug"] for o in demo_providers[provider["id"]]["offerings"]}
        for offering in provider.get("offerings") or []:
            assert offering["id"] in demo_offerings, offering["id"]
        # every source the shared file lists is carried over with its title
        keys = {s["key"] for s in demo_providers[provider["id"]]["sources"]}
        for src in provider.get("sources") or []:
            assert src["id"] in keys, (provider["id"], src["id"])
    for name in ("alibaba", "tencent", "huawei", "volcengine", "aws", "azure", "gcp"):
        assert name in demo_providers
