"""Values written before the bounds of issue 20 are cleaned first (its own migration, so PostgreSQL
never alters a table with pending trigger events)."""

from django.db import migrations
from django.db.models import Q


def _outside(field, bound):
    low = Q(**{f"{field}__lte": 0}) if bound.strictly_positive else Q(pk__in=[])
    if bound.minimum is not None:
        low |= Q(**{f"{field}__lt": bound.minimum})
    high = Q(**{f"{field}__gt": bound.maximum}) if bound.maximum is not None else Q(pk__in=[])
    return low | high


def unpublish_values_outside_the_bounds(apps, schema_editor):
    """Rows written before the bounds: a value no offering can have becomes "not published" (null), and a
    text longer than its new limit is cut, so the constraints below can be added to a live database."""
    from django.db.models.functions import Length, Substr

    from providers.facts import FACTS, NOTE_MAX_LENGTH, PLAN_BOUNDS

    Offering = apps.get_model("providers", "Offering")
    existing = {f.name for f in Offering._meta.fields}
    for fact in FACTS:
        if fact.name not in existing:  # a fact added by a later migration
            continue
        if fact.bound is not None and fact.type in ("int", "float", "decimal"):
            Offering.objects.filter(_outside(fact.name, fact.bound)).update(**{fact.name: None})
        if fact.type == "text" and fact.max_length:
            Offering.objects.annotate(n=Length(fact.name)).filter(n__gt=fact.max_length).update(
                **{fact.name: Substr(fact.name, 1, fact.max_length)}
            )
    for model_name in ("BillingPlan", "PricePoint"):
        model = apps.get_model("providers", model_name)
        for name, bound in PLAN_BOUNDS.items():
            if any(f.name == name for f in model._meta.fields):
                model.objects.filter(_outside(name, bound)).update(**{name: None})
    for model_name, field in (("Provider", "notes"), ("Provenance", "note"), ("BillingPlan", "note")):
        model = apps.get_model("providers", model_name)
        model.objects.annotate(n=Length(field)).filter(n__gt=NOTE_MAX_LENGTH).update(
            **{field: Substr(field, 1, NOTE_MAX_LENGTH)}
        )



class Migration(migrations.Migration):

    dependencies = [
        ("providers", "0002_plan_cycle_days_optional"),
    ]

    operations = [
        migrations.RunPython(unpublish_values_outside_the_bounds, migrations.RunPython.noop),
    ]
