"""Users and their roles: buyers, provider representatives (tied to one provider) and staff."""

from __future__ import annotations

from django.contrib.auth.models import AbstractUser
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from providers.models import Currency


class User(AbstractUser):
    class Role(models.TextChoices):
        BUYER = "buyer", _("Buyer")
        PROVIDER = "provider", _("Provider representative")
        STAFF = "staff", _("Staff")

    role = models.CharField(max_length=20, choices=Role.choices, default=Role.BUYER)
    provider = models.ForeignKey(
        "providers.Provider", null=True, blank=True, on_delete=models.SET_NULL, related_name="representatives"
    )
    # The currency pages show prices in for this user (?currency= overrides it for one browser).
    currency = models.CharField(max_length=3, choices=Currency.choices, default=Currency.USD)

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=Q(role__in=["buyer", "provider", "staff"]), name="user_role_known"
            ),
            # A provider representative speaks for exactly one provider; nobody else is tied to one.
            models.CheckConstraint(
                condition=(Q(role="provider") & Q(provider__isnull=False))
                | (~Q(role="provider") & Q(provider__isnull=True)),
                name="user_provider_iff_representative",
            ),
            models.CheckConstraint(condition=Q(currency__in=Currency.values), name="user_currency_known"),
        ]

    @property
    def is_curator(self) -> bool:
        return self.is_superuser or self.is_staff or self.role == self.Role.STAFF

    def can_edit_offering(self, offering: models.Model) -> bool:
        if not self.is_authenticated or not self.is_active:
            return False
        if self.is_curator:
            return True
        return self.role == self.Role.PROVIDER and self.provider_id == getattr(offering, "provider_id", None)
