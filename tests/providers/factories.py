from __future__ import annotations

from decimal import Decimal
from pathlib import Path
from typing import Any

import factory
import yaml

from accounts.models import User
from providers.models import BillingPlan, GPUModel, Offering, Provider

# the small catalog the import, cache and demo tests share
SMALL_CATALOG = Path(__file__).parent / "fixtures" / "small_catalog.yaml"


def small_catalog() -> dict[str, Any]:
    """The small catalog as the import reads it, a fresh copy each call."""
    return dict(yaml.safe_load(SMALL_CATALOG.read_text()))


class GPUModelFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = GPUModel
        django_get_or_create = ("key",)

    key = "H100-SXM-80GB"
    name = "NVIDIA H100 SXM 80GB"
    vendor = "NVIDIA"
    bf16_tflops = 989.0
    hbm_gb = 80.0
    nvlink_gbytes_per_s = 450.0


class ProviderFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Provider

    slug = factory.Sequence(lambda n: f"provider-{n}")
    name = factory.Sequence(lambda n: f"Provider {n}")
    kind = "neocloud"


class OfferingFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Offering

    provider = factory.SubFactory(ProviderFactory)
    slug = factory.Sequence(lambda n: f"offering-{n}")
    name = factory.Sequence(lambda n: f"Offering {n}")
    gpu = factory.SubFactory(GPUModelFactory)
    gpus_per_node = 8
    intra_node = "nvswitch"
    fabric = "infiniband"
    nics_per_node = 8
    gbps_per_nic = 400.0
    topology = "fat-tree"


class PlanFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = BillingPlan

    offering = factory.SubFactory(OfferingFactory)
    kind = "on-demand"
    name = factory.Sequence(lambda n: f"On-demand {n}")
    price_usd_per_gpu_hour = Decimal("3.50")


class UserFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = User
        django_get_or_create = ("username",)
        skip_postgeneration_save = True

    username = factory.Sequence(lambda n: f"user-{n}")
    role = "buyer"

    @factory.post_generation
    def password(self, create: bool, extracted: str | None, **kwargs: object) -> None:
        self.set_password(extracted or "pw-for-tests")
        if create:
            self.save()
