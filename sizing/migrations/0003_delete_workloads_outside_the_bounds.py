"""Values written before the bounds of issue 20 are cleaned first (its own migration, so PostgreSQL
never alters a table with pending trigger events)."""

from django.db import migrations
from django.db.models import Q


def delete_workloads_outside_the_bounds(apps, schema_editor):
    """Workloads written before the bounds with values no training job has (they broke the pages and
    their runs never finished) are removed with their runs, so the constraints can be added."""
    from sizing.models import WORKLOAD_BOUNDS

    Workload = apps.get_model("sizing", "Workload")
    outside = Q(pk__in=[])
    for field, bound in WORKLOAD_BOUNDS.items():
        if bound.strictly_positive:
            outside |= Q(**{f"{field}__lte": 0})
        if bound.minimum is not None:
            outside |= Q(**{f"{field}__lt": bound.minimum})
        if bound.maximum is not None:
            outside |= Q(**{f"{field}__gt": bound.maximum})
    Workload.objects.filter(outside).delete()



class Migration(migrations.Migration):

    dependencies = [
        ("sizing", "0002_workload_attention"),
    ]

    operations = [
        migrations.RunPython(delete_workloads_outside_the_bounds, migrations.RunPython.noop),
    ]
