# The answer's price held to the plans' bound in the database too (providers.facts.PLAN_BOUNDS): the form, the
# API and the service already refused a price of 0 or above the cap, but "answer_price_not_negative" let a raw
# write store one. An answer outside the bound cannot be sized or quoted truthfully and none of those paths
# could have written it since the bound: it is dropped before the constraint is added (the audit log keeps
# the "answered" event of each answer).

from django.conf import settings
from django.db import migrations, models
from django.db.models import Q


def drop_answers_outside_the_bound(apps, schema_editor):  # type: ignore[no-untyped-def]
    from providers.facts import PLAN_BOUNDS

    bound = PLAN_BOUNDS["price_usd_per_gpu_hour"]
    Answer = apps.get_model("rfq", "Answer")
    Answer.objects.filter(
        Q(price_usd_per_gpu_hour__lte=0) | Q(price_usd_per_gpu_hour__gt=bound.maximum)
    ).delete()


class Migration(migrations.Migration):

    dependencies = [
        ('providers', '0009_provider_native_name'),
        ('rfq', '0001_initial'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.RemoveConstraint(
            model_name='answer',
            name='answer_price_not_negative',
        ),
        migrations.RunPython(drop_answers_outside_the_bound, migrations.RunPython.noop),
        migrations.AddConstraint(
            model_name='answer',
            constraint=models.CheckConstraint(condition=models.Q(('price_usd_per_gpu_hour__gt', 0), ('price_usd_per_gpu_hour__lte', 200)), name='answer_price_in_plan_range', violation_error_message='Price per GPU-hour must be greater than 0 and at most $200'),
        ),
    ]
