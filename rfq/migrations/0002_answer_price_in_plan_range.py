# The answer's price held to the plans' bound in the database too (providers.facts.PLAN_BOUNDS): the form, the
# API and the service already refused a price of 0 or above the cap, but "answer_price_not_negative" let a raw
# write store one. An answer outside the bound cannot be sized or quoted truthfully, but it is what a provider
# said: the migration never drops one. If any is stored, it stops and names them, so that an operator corrects
# or removes each (an answer is superseded by the provider's next one) and migrates again.

from django.conf import settings
from django.db import migrations, models
from django.db.models import Q


# The bound as this migration's constraint freezes it (providers.facts.PLAN_BOUNDS at the time: greater than 0,
# at most $200), not the live one: the check and the constraint must agree whatever the cap becomes later.
PRICE_MAX = 200


def refuse_answers_outside_the_bound(apps, schema_editor):  # type: ignore[no-untyped-def]
    Answer = apps.get_model("rfq", "Answer")
    outside = Answer.objects.filter(
        Q(price_usd_per_gpu_hour__lte=0) | Q(price_usd_per_gpu_hour__gt=PRICE_MAX)
    ).order_by("pk")
    if outside.exists():
        listed = ", ".join(f"#{a.pk} (RFQ {a.rfq_id}, ${a.price_usd_per_gpu_hour})" for a in outside[:20])
        more = outside.count() - 20
        raise RuntimeError(
            f"rfq.0002: {outside.count()} stored RFQ answer(s) have a price per GPU-hour outside (0, "
            f"{PRICE_MAX}], which the new database check refuses: {listed}"
            + (f" and {more} more" if more > 0 else "")
            + ". Correct or delete them (Django admin or shell), then migrate again; nothing was changed."
        )


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
        migrations.RunPython(refuse_answers_outside_the_bound, migrations.RunPython.noop),
        migrations.AddConstraint(
            model_name='answer',
            constraint=models.CheckConstraint(condition=models.Q(('price_usd_per_gpu_hour__gt', 0), ('price_usd_per_gpu_hour__lte', PRICE_MAX)), name='answer_price_in_plan_range', violation_error_message='Price per GPU-hour must be greater than 0 and at most $200'),
        ),
    ]
