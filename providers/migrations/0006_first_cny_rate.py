"""The first recorded yuan rate, with its source, so CNY pages work on a fresh install; staff add newer
dated rates in the admin and pages always use the latest."""

from datetime import date
from decimal import Decimal

from django.db import migrations

FIRST_RATE = {
    "currency": "CNY",
    "per_usd": Decimal("7.1884"),
    "as_of": date(2024, 12, 31),
    "source_name": "CFETS central parity rate, USD/CNY",
    "source_url": "https://www.chinamoney.com.cn/english/bmkcpr/",
}


def first_rate(apps, schema_editor):  # type: ignore[no-untyped-def]
    rates = apps.get_model("providers", "ExchangeRate")
    if not rates.objects.filter(currency="CNY").exists():
        rates.objects.create(**FIRST_RATE)


class Migration(migrations.Migration):
    dependencies = [("providers", "0005_exchange_rates_and_plan_currency")]

    operations = [migrations.RunPython(first_rate, migrations.RunPython.noop)]
