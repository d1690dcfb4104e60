# The providers history squashed: `replaces` lists it (see docs/ARCHITECTURE.md, "Migrations").

import django.db.models.deletion
import portal.constraints
from datetime import date
from decimal import Decimal

from django.db import migrations, models
from django.db.models import Q

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

    initial = True

    replaces = [
        ('providers', '0001_initial'),
        ('providers', '0002_plan_cycle_days_optional'),
        ('providers', '0003_clean_values_outside_the_bounds'),
        ('providers', '0004_bounds_and_text_limits'),
        ('providers', '0005_exchange_rates_and_plan_currency'),
        ('providers', '0006_first_cny_rate'),
        ('providers', '0007_addendum_facts_and_fact_sources'),
    ]

    dependencies = [
    ]

    operations = [
        migrations.CreateModel(
            name='GPUModel',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('key', models.SlugField(max_length=40, unique=True)),
                ('name', models.CharField(max_length=120)),
                ('vendor', models.CharField(blank=True, max_length=40)),
                ('bf16_tflops', models.FloatField(blank=True, null=True)),
                ('fp8_tflops', models.FloatField(blank=True, null=True)),
                ('hbm_gb', models.FloatField(blank=True, null=True)),
                ('hbm_tbytes_per_s', models.FloatField(blank=True, null=True)),
                ('nvlink_gbytes_per_s', models.FloatField(blank=True, null=True)),
                ('source', models.TextField(blank=True)),
            ],
            options={
                'verbose_name': 'GPU model',
                'ordering': ['key'],
            },
        ),
        migrations.CreateModel(
            name='ExchangeRate',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('currency', models.CharField(choices=[('USD', 'US dollar'), ('CNY', 'Chinese yuan')], max_length=3)),
                ('per_usd', models.DecimalField(decimal_places=6, max_digits=12)),
                ('as_of', models.DateField()),
                ('source_url', models.URLField(max_length=500)),
                ('source_name', models.CharField(max_length=200)),
                ('recorded_at', models.DateTimeField(auto_now_add=True)),
            ],
            options={
                'ordering': ['currency', '-as_of'],
                'get_latest_by': 'as_of',
                'constraints': [models.UniqueConstraint(fields=('currency', 'as_of'), name='exchange_rate_one_per_day'), models.CheckConstraint(condition=models.Q(('currency__in', ['CNY'])), name='exchange_rate_currency_known'), models.CheckConstraint(condition=models.Q(('per_usd__gt', 0), ('per_usd__lt', 1000)), name='exchange_rate_per_usd_range')],
            },
        ),
        migrations.CreateModel(
            name='Provider',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('slug', models.SlugField(max_length=60, unique=True)),
                ('name', models.CharField(max_length=200)),
                ('kind', models.CharField(choices=[('hyperscaler', 'Hyperscaler'), ('hyperscaler-cn', 'Hyperscaler (China)'), ('neocloud', 'Neocloud'), ('regional', 'Regional provider'), ('fictional', 'Fictional sample')], max_length=20)),
                ('website', models.URLField(blank=True)),
                ('notes', models.CharField(blank=True, max_length=2000)),
                ('created_at', models.DateTimeField(auto_now_add=True)),
                ('updated_at', models.DateTimeField(auto_now=True)),
            ],
            options={
                'ordering': ['name'],
                'constraints': [models.CheckConstraint(condition=models.Q(('kind__in', ['hyperscaler', 'hyperscaler-cn', 'neocloud', 'regional', 'fictional'])), name='provider_kind_known')],
            },
        ),
        migrations.CreateModel(
            name='Offering',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('slug', models.SlugField(max_length=80, unique=True)),
                ('name', models.CharField(max_length=300)),
                ('fictional', models.BooleanField(default=False)),
                ('summary', models.CharField(blank=True, max_length=500)),
                ('created_at', models.DateTimeField(auto_now_add=True)),
                ('updated_at', models.DateTimeField(auto_now=True)),
                ('gpu_label', models.CharField(blank=True, max_length=200, null=True)),
                ('gpus_per_node', models.PositiveIntegerField(blank=True, null=True, validators=[portal.constraints.RangeValidator('GPUs per node', 1, 72, '', False)])),
                ('hbm_gb_per_gpu', models.FloatField(blank=True, null=True, validators=[portal.constraints.RangeValidator('HBM per GPU', None, 1024, 'GB', True)])),
                ('intra_node', models.CharField(blank=True, max_length=20, null=True)),
                ('intra_node_gbytes_per_s', models.FloatField(blank=True, null=True, validators=[portal.constraints.RangeValidator('Intra-node bandwidth per GPU', None, 7200, 'GB/s', True)])),
                ('nvlink_domain_gpus', models.PositiveIntegerField(blank=True, null=True, validators=[portal.constraints.RangeValidator('NVLink domain', 1, 576, 'GPUs', False)])),
                ('bare_metal', models.BooleanField(blank=True, null=True)),
                ('fabric', models.CharField(blank=True, max_length=20, null=True)),
                ('fabric_label', models.CharField(blank=True, max_length=300, null=True)),
                ('nics_per_node', models.PositiveIntegerField(blank=True, null=True, validators=[portal.constraints.RangeValidator('GPU-fabric NICs per node', 1, 32, '', False)])),
                ('gbps_per_nic', models.FloatField(blank=True, null=True, validators=[portal.constraints.RangeValidator('Speed per NIC', 1, 1600, 'Gb/s', False)])),
                ('topology', models.CharField(blank=True, max_length=20, null=True)),
                ('oversubscription', models.FloatField(blank=True, null=True, validators=[portal.constraints.RangeValidator('Oversubscription', 1.0, 64, ':1', False)])),
                ('max_nodes', models.PositiveIntegerField(blank=True, null=True, validators=[portal.constraints.RangeValidator('Maximum nodes in one fabric', 1, 100000, '', False)])),
                ('largest_demonstrated_gpus', models.PositiveIntegerField(blank=True, null=True, validators=[portal.constraints.RangeValidator('Largest run demonstrated', None, 1000000, 'GPUs', True)])),
                ('schedulers', models.CharField(blank=True, default='', max_length=60)),
                ('scheduler_label', models.CharField(blank=True, max_length=300, null=True)),
                ('topology_aware_placement', models.BooleanField(blank=True, null=True)),
                ('accelerator_stack', models.CharField(blank=True, max_length=20, null=True)),
                ('standard_containers', models.BooleanField(blank=True, null=True)),
                ('proprietary_fabric_plugin', models.BooleanField(blank=True, null=True)),
                ('health_checks', models.BooleanField(blank=True, null=True)),
                ('auto_bad_node_detection', models.BooleanField(blank=True, null=True)),
                ('auto_replacement', models.BooleanField(blank=True, null=True)),
                ('replacement_time_min', models.FloatField(blank=True, null=True, validators=[portal.constraints.RangeValidator('Replacement time', 0, 43200, 'min', False)])),
                ('auto_checkpoint_restart', models.BooleanField(blank=True, null=True)),
                ('spare_node_pool', models.BooleanField(blank=True, null=True)),
                ('failure_rate_per_gpu_hour', models.FloatField(blank=True, null=True, validators=[portal.constraints.RangeValidator('Failure rate', None, 0.01, 'per GPU-hour', True)])),
                ('exclusivity', models.CharField(blank=True, max_length=20, null=True)),
                ('usable_gpu_guarantee_pct', models.FloatField(blank=True, null=True, validators=[portal.constraints.RangeValidator('Usable-GPU guarantee', 50, 100, '%', False)])),
                ('usable_gpu_credit', models.CharField(blank=True, max_length=2000, null=True)),
                ('uptime_sla_pct', models.FloatField(blank=True, null=True, validators=[portal.constraints.RangeValidator('Uptime SLA', 50, 100, '%', False)])),
                ('sla_claim_window_days', models.PositiveIntegerField(blank=True, null=True, validators=[portal.constraints.RangeValidator('SLA claim window', 0, 365, 'days', False)])),
                ('sla_text', models.CharField(blank=True, max_length=5000, null=True)),
                ('regions', models.CharField(blank=True, max_length=2000, null=True)),
                ('compliance', models.CharField(blank=True, max_length=2000, null=True)),
                ('lead_time_weeks', models.FloatField(blank=True, null=True, validators=[portal.constraints.RangeValidator('Lead time to a running cluster', 0, 104, 'weeks', False)])),
                ('payment_terms', models.CharField(blank=True, max_length=20, null=True)),
                ('storage_type', models.CharField(blank=True, max_length=300, null=True)),
                ('storage_write_gbytes_per_s', models.FloatField(blank=True, null=True, validators=[portal.constraints.RangeValidator('Storage write bandwidth', None, 100000, 'GB/s', True)])),
                ('storage_price_usd_per_gb_month', models.DecimalField(blank=True, decimal_places=6, max_digits=12, null=True, validators=[portal.constraints.RangeValidator('Storage price', 0, 10, '$/GB-month', False)])),
                ('storage_included_gb', models.FloatField(blank=True, null=True, validators=[portal.constraints.RangeValidator('Storage included', 0, 1000000000.0, 'GB', False)])),
                ('egress_price_usd_per_gb', models.DecimalField(blank=True, decimal_places=6, max_digits=12, null=True, validators=[portal.constraints.RangeValidator('Internet egress', 0, 10, '$/GB', False)])),
                ('traffic_price_usd_per_gb', models.DecimalField(blank=True, decimal_places=6, max_digits=12, null=True, validators=[portal.constraints.RangeValidator('Traffic between the nodes', 0, 10, '$/GB', False)])),
                ('support_fee_usd_per_month', models.DecimalField(blank=True, decimal_places=2, max_digits=14, null=True, validators=[portal.constraints.RangeValidator('Support fee', 0, 10000000, '$/month', False)])),
                ('setup_fee_usd', models.DecimalField(blank=True, decimal_places=2, max_digits=14, null=True, validators=[portal.constraints.RangeValidator('Setup fee', 0, 100000000, '$', False)])),
                ('fees_note', models.CharField(blank=True, max_length=2000, null=True)),
                ('gpu', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='offerings', to='providers.gpumodel')),
                ('provider', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='offerings', to='providers.provider')),
            ],
            options={
                'ordering': ['provider__name', 'name'],
            },
        ),
        migrations.CreateModel(
            name='Source',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('key', models.CharField(max_length=80)),
                ('title', models.CharField(max_length=500)),
                ('url', models.CharField(blank=True, max_length=500)),
                ('date_text', models.CharField(blank=True, max_length=120)),
                ('kind', models.CharField(blank=True, max_length=60)),
                ('provider', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='sources', to='providers.provider')),
            ],
            options={
                'ordering': ['provider', 'key'],
            },
        ),
        migrations.CreateModel(
            name='Provenance',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('group', models.CharField(choices=[('hardware', 'Hardware'), ('network', 'Inter-node network'), ('software', 'Scheduling and software'), ('fault_tolerance', 'Fault tolerance'), ('commercial', 'Exclusivity, guarantee and SLA'), ('storage', 'Checkpoint storage'), ('fees', 'Fees')], max_length=20)),
                ('as_of', models.DateField(blank=True, null=True)),
                ('note', models.CharField(blank=True, max_length=2000)),
                ('unsure', models.BooleanField(default=False)),
                ('fact_sources', models.JSONField(blank=True, default=dict)),
                ('offering', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='provenance', to='providers.offering')),
                ('sources', models.ManyToManyField(blank=True, related_name='provenance', to='providers.source')),
            ],
            options={
                'ordering': ['offering', 'group'],
            },
        ),
        migrations.CreateModel(
            name='BillingPlan',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('kind', models.CharField(choices=[('on-demand', 'On-demand'), ('reserved', 'Reserved'), ('cluster-cycle', 'Cluster cycle'), ('spot', 'Spot / preemptible')], max_length=20)),
                ('name', models.CharField(max_length=200)),
                ('price_usd_per_gpu_hour', models.DecimalField(blank=True, decimal_places=4, max_digits=12, null=True, validators=[portal.constraints.RangeValidator('Price per GPU-hour', None, 200, '$', True)])),
                ('price_currency', models.CharField(choices=[('USD', 'US dollar'), ('CNY', 'Chinese yuan')], default='USD', max_length=3)),
                ('price_native_per_gpu_hour', models.DecimalField(blank=True, decimal_places=4, max_digits=12, null=True)),
                ('term_months', models.PositiveIntegerField(blank=True, null=True, validators=[portal.constraints.RangeValidator('Term', 1, 120, 'months', False)])),
                ('min_nodes', models.PositiveIntegerField(blank=True, null=True, validators=[portal.constraints.RangeValidator('Minimum nodes', 1, 100000, '', False)])),
                ('granularity', models.CharField(choices=[('second', 'per second'), ('hour', 'per hour'), ('day', 'per day'), ('month', 'per month'), ('cycle', 'per cycle')], default='hour', max_length=10)),
                ('cycle_days', models.PositiveIntegerField(blank=True, null=True, validators=[portal.constraints.RangeValidator('Cycle length', 1, 3650, 'days', False)])),
                ('upfront_pct', models.FloatField(blank=True, null=True, validators=[portal.constraints.RangeValidator('Upfront payment', 0, 100, '%', False)])),
                ('region', models.CharField(blank=True, max_length=120)),
                ('as_of', models.DateField(blank=True, null=True)),
                ('note', models.CharField(blank=True, max_length=2000)),
                ('offering', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='plans', to='providers.offering')),
                ('sources', models.ManyToManyField(blank=True, related_name='plans', to='providers.source')),
            ],
            options={
                'ordering': ['offering', 'kind', 'name'],
            },
        ),
        migrations.CreateModel(
            name='PricePoint',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('price_usd_per_gpu_hour', models.DecimalField(blank=True, decimal_places=4, max_digits=12, null=True, validators=[portal.constraints.RangeValidator('Price per GPU-hour', None, 200, '$', True)])),
                ('as_of', models.DateField(blank=True, null=True)),
                ('recorded_at', models.DateTimeField(auto_now_add=True)),
                ('note', models.CharField(blank=True, max_length=500)),
                ('plan', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='history', to='providers.billingplan')),
            ],
            options={
                'ordering': ['plan', 'recorded_at', 'id'],
                'constraints': [models.CheckConstraint(condition=models.Q(('price_usd_per_gpu_hour__isnull', True), models.Q(('price_usd_per_gpu_hour__gt', 0), ('price_usd_per_gpu_hour__lte', 200)), _connector='OR'), name='pricepoint_price_range', violation_error_message='Price per GPU-hour must be greater than 0 and at most 200 $')],
            },
        ),
        # The clean-up of rows written before the bounds (replaced 0003): nothing to clean on a fresh
        # database; tests/security/test_bounds_migration.py runs it on such rows.
        migrations.RunPython(unpublish_values_outside_the_bounds, migrations.RunPython.noop),
        migrations.AddConstraint(
            model_name='offering',
            constraint=models.CheckConstraint(condition=models.Q(('gpus_per_node__isnull', True), models.Q(('gpus_per_node__gte', 1), ('gpus_per_node__lte', 72)), _connector='OR'), name='offering_gpus_per_node_range', violation_error_message='GPUs per node must be between 1 and 72'),
        ),
        migrations.AddConstraint(
            model_name='offering',
            constraint=models.CheckConstraint(condition=models.Q(('hbm_gb_per_gpu__isnull', True), models.Q(('hbm_gb_per_gpu__gt', 0), ('hbm_gb_per_gpu__lte', 1024)), _connector='OR'), name='offering_hbm_gb_per_gpu_range', violation_error_message='HBM per GPU must be greater than 0 and at most 1,024 GB'),
        ),
        migrations.AddConstraint(
            model_name='offering',
            constraint=models.CheckConstraint(condition=models.Q(('intra_node__isnull', True), ('intra_node__in', ['nvswitch', 'nvlink-mesh', 'nvlink-bridge', 'pcie']), _connector='OR'), name='offering_intra_node_known'),
        ),
        migrations.AddConstraint(
            model_name='offering',
            constraint=models.CheckConstraint(condition=models.Q(('intra_node_gbytes_per_s__isnull', True), models.Q(('intra_node_gbytes_per_s__gt', 0), ('intra_node_gbytes_per_s__lte', 7200)), _connector='OR'), name='offering_intra_node_gbytes_per_s_range', violation_error_message='Intra-node bandwidth per GPU must be greater than 0 and at most 7,200 GB/s'),
        ),
        migrations.AddConstraint(
            model_name='offering',
            constraint=models.CheckConstraint(condition=models.Q(('nvlink_domain_gpus__isnull', True), models.Q(('nvlink_domain_gpus__gte', 1), ('nvlink_domain_gpus__lte', 576)), _connector='OR'), name='offering_nvlink_domain_gpus_range', violation_error_message='NVLink domain must be between 1 and 576 GPUs'),
        ),
        migrations.AddConstraint(
            model_name='offering',
            constraint=models.CheckConstraint(condition=models.Q(('fabric__isnull', True), ('fabric__in', ['infiniband', 'roce', 'efa', 'tcpx', 'ethernet', 'other']), _connector='OR'), name='offering_fabric_known'),
        ),
        migrations.AddConstraint(
            model_name='offering',
            constraint=models.CheckConstraint(condition=models.Q(('nics_per_node__isnull', True), models.Q(('nics_per_node__gte', 1), ('nics_per_node__lte', 32)), _connector='OR'), name='offering_nics_per_node_range', violation_error_message='GPU-fabric NICs per node must be between 1 and 32'),
        ),
        migrations.AddConstraint(
            model_name='offering',
            constraint=models.CheckConstraint(condition=models.Q(('gbps_per_nic__isnull', True), models.Q(('gbps_per_nic__gte', 1), ('gbps_per_nic__lte', 1600)), _connector='OR'), name='offering_gbps_per_nic_range', violation_error_message='Speed per NIC must be between 1 and 1,600 Gb/s'),
        ),
        migrations.AddConstraint(
            model_name='offering',
            constraint=models.CheckConstraint(condition=models.Q(('topology__isnull', True), ('topology__in', ['fat-tree', 'rail-optimized', 'clos', 'torus', 'ring', 'chain', 'unknown']), _connector='OR'), name='offering_topology_known'),
        ),
        migrations.AddConstraint(
            model_name='offering',
            constraint=models.CheckConstraint(condition=models.Q(('oversubscription__isnull', True), models.Q(('oversubscription__gte', 1.0), ('oversubscription__lte', 64)), _connector='OR'), name='offering_oversubscription_range', violation_error_message='Oversubscription must be between 1 and 64 :1'),
        ),
        migrations.AddConstraint(
            model_name='offering',
            constraint=models.CheckConstraint(condition=models.Q(('max_nodes__isnull', True), models.Q(('max_nodes__gte', 1), ('max_nodes__lte', 100000)), _connector='OR'), name='offering_max_nodes_range', violation_error_message='Maximum nodes in one fabric must be between 1 and 100,000'),
        ),
        migrations.AddConstraint(
            model_name='offering',
            constraint=models.CheckConstraint(condition=models.Q(('largest_demonstrated_gpus__isnull', True), models.Q(('largest_demonstrated_gpus__gt', 0), ('largest_demonstrated_gpus__lte', 1000000)), _connector='OR'), name='offering_largest_demonstrated_gpus_range', violation_error_message='Largest run demonstrated must be greater than 0 and at most 1,000,000 GPUs'),
        ),
        migrations.AddConstraint(
            model_name='offering',
            constraint=models.CheckConstraint(condition=models.Q(('accelerator_stack__isnull', True), ('accelerator_stack__in', ['cuda', 'rocm', 'cann', 'other']), _connector='OR'), name='offering_accelerator_stack_known'),
        ),
        migrations.AddConstraint(
            model_name='offering',
            constraint=models.CheckConstraint(condition=models.Q(('replacement_time_min__isnull', True), models.Q(('replacement_time_min__gte', 0), ('replacement_time_min__lte', 43200)), _connector='OR'), name='offering_replacement_time_min_range', violation_error_message='Replacement time must be between 0 and 43,200 min'),
        ),
        migrations.AddConstraint(
            model_name='offering',
            constraint=models.CheckConstraint(condition=models.Q(('failure_rate_per_gpu_hour__isnull', True), models.Q(('failure_rate_per_gpu_hour__gt', 0), ('failure_rate_per_gpu_hour__lte', 0.01)), _connector='OR'), name='offering_failure_rate_per_gpu_hour_range', violation_error_message='Failure rate must be greater than 0 and at most 0.01 per GPU-hour'),
        ),
        migrations.AddConstraint(
            model_name='offering',
            constraint=models.CheckConstraint(condition=models.Q(('exclusivity__isnull', True), ('exclusivity__in', ['dedicated', 'shared']), _connector='OR'), name='offering_exclusivity_known'),
        ),
        migrations.AddConstraint(
            model_name='offering',
            constraint=models.CheckConstraint(condition=models.Q(('usable_gpu_guarantee_pct__isnull', True), models.Q(('usable_gpu_guarantee_pct__gte', 50), ('usable_gpu_guarantee_pct__lte', 100)), _connector='OR'), name='offering_usable_gpu_guarantee_pct_range', violation_error_message='Usable-GPU guarantee must be between 50 and 100 %'),
        ),
        migrations.AddConstraint(
            model_name='offering',
            constraint=models.CheckConstraint(condition=models.Q(('uptime_sla_pct__isnull', True), models.Q(('uptime_sla_pct__gte', 50), ('uptime_sla_pct__lte', 100)), _connector='OR'), name='offering_uptime_sla_pct_range', violation_error_message='Uptime SLA must be between 50 and 100 %'),
        ),
        migrations.AddConstraint(
            model_name='offering',
            constraint=models.CheckConstraint(condition=models.Q(('sla_claim_window_days__isnull', True), models.Q(('sla_claim_window_days__gte', 0), ('sla_claim_window_days__lte', 365)), _connector='OR'), name='offering_sla_claim_window_days_range', violation_error_message='SLA claim window must be between 0 and 365 days'),
        ),
        migrations.AddConstraint(
            model_name='offering',
            constraint=models.CheckConstraint(condition=models.Q(('lead_time_weeks__isnull', True), models.Q(('lead_time_weeks__gte', 0), ('lead_time_weeks__lte', 104)), _connector='OR'), name='offering_lead_time_weeks_range', violation_error_message='Lead time to a running cluster must be between 0 and 104 weeks'),
        ),
        migrations.AddConstraint(
            model_name='offering',
            constraint=models.CheckConstraint(condition=models.Q(('payment_terms__isnull', True), ('payment_terms__in', ['upfront', 'monthly', 'net-30', 'net-60']), _connector='OR'), name='offering_payment_terms_known'),
        ),
        migrations.AddConstraint(
            model_name='offering',
            constraint=models.CheckConstraint(condition=models.Q(('storage_write_gbytes_per_s__isnull', True), models.Q(('storage_write_gbytes_per_s__gt', 0), ('storage_write_gbytes_per_s__lte', 100000)), _connector='OR'), name='offering_storage_write_gbytes_per_s_range', violation_error_message='Storage write bandwidth must be greater than 0 and at most 100,000 GB/s'),
        ),
        migrations.AddConstraint(
            model_name='offering',
            constraint=models.CheckConstraint(condition=models.Q(('storage_price_usd_per_gb_month__isnull', True), models.Q(('storage_price_usd_per_gb_month__gte', 0), ('storage_price_usd_per_gb_month__lte', 10)), _connector='OR'), name='offering_storage_price_usd_per_gb_month_range', violation_error_message='Storage price must be between 0 and 10 $/GB-month'),
        ),
        migrations.AddConstraint(
            model_name='offering',
            constraint=models.CheckConstraint(condition=models.Q(('storage_included_gb__isnull', True), models.Q(('storage_included_gb__gte', 0), ('storage_included_gb__lte', 1000000000.0)), _connector='OR'), name='offering_storage_included_gb_range', violation_error_message='Storage included must be between 0 and 1,000,000,000 GB'),
        ),
        migrations.AddConstraint(
            model_name='offering',
            constraint=models.CheckConstraint(condition=models.Q(('egress_price_usd_per_gb__isnull', True), models.Q(('egress_price_usd_per_gb__gte', 0), ('egress_price_usd_per_gb__lte', 10)), _connector='OR'), name='offering_egress_price_usd_per_gb_range', violation_error_message='Internet egress must be between 0 and 10 $/GB'),
        ),
        migrations.AddConstraint(
            model_name='offering',
            constraint=models.CheckConstraint(condition=models.Q(('traffic_price_usd_per_gb__isnull', True), models.Q(('traffic_price_usd_per_gb__gte', 0), ('traffic_price_usd_per_gb__lte', 10)), _connector='OR'), name='offering_traffic_price_usd_per_gb_range', violation_error_message='Traffic between the nodes must be between 0 and 10 $/GB'),
        ),
        migrations.AddConstraint(
            model_name='offering',
            constraint=models.CheckConstraint(condition=models.Q(('support_fee_usd_per_month__isnull', True), models.Q(('support_fee_usd_per_month__gte', 0), ('support_fee_usd_per_month__lte', 10000000)), _connector='OR'), name='offering_support_fee_usd_per_month_range', violation_error_message='Support fee must be between 0 and 10,000,000 $/month'),
        ),
        migrations.AddConstraint(
            model_name='offering',
            constraint=models.CheckConstraint(condition=models.Q(('setup_fee_usd__isnull', True), models.Q(('setup_fee_usd__gte', 0), ('setup_fee_usd__lte', 100000000)), _connector='OR'), name='offering_setup_fee_usd_range', violation_error_message='Setup fee must be between 0 and 100,000,000 $'),
        ),
        migrations.AddConstraint(
            model_name='source',
            constraint=models.UniqueConstraint(fields=('provider', 'key'), name='source_key_unique_per_provider'),
        ),
        migrations.AddConstraint(
            model_name='provenance',
            constraint=models.UniqueConstraint(fields=('offering', 'group'), name='provenance_one_per_group'),
        ),
        migrations.AddConstraint(
            model_name='provenance',
            constraint=models.CheckConstraint(condition=models.Q(('group__in', ['hardware', 'network', 'software', 'fault_tolerance', 'commercial', 'storage', 'fees'])), name='provenance_group_known'),
        ),
        migrations.AddConstraint(
            model_name='billingplan',
            constraint=models.UniqueConstraint(fields=('offering', 'name'), name='plan_name_unique_per_offering'),
        ),
        migrations.AddConstraint(
            model_name='billingplan',
            constraint=models.CheckConstraint(condition=models.Q(('kind__in', ['on-demand', 'reserved', 'cluster-cycle', 'spot'])), name='plan_kind_known'),
        ),
        migrations.AddConstraint(
            model_name='billingplan',
            constraint=models.CheckConstraint(condition=models.Q(('granularity__in', ['second', 'hour', 'day', 'month', 'cycle'])), name='plan_granularity_known'),
        ),
        migrations.AddConstraint(
            model_name='billingplan',
            constraint=models.CheckConstraint(condition=models.Q(('price_usd_per_gpu_hour__isnull', True), models.Q(('price_usd_per_gpu_hour__gt', 0), ('price_usd_per_gpu_hour__lte', 200)), _connector='OR'), name='plan_price_usd_per_gpu_hour_range', violation_error_message='Price per GPU-hour must be greater than 0 and at most 200 $'),
        ),
        migrations.AddConstraint(
            model_name='billingplan',
            constraint=models.CheckConstraint(condition=models.Q(('term_months__isnull', True), models.Q(('term_months__gte', 1), ('term_months__lte', 120)), _connector='OR'), name='plan_term_months_range', violation_error_message='Term must be between 1 and 120 months'),
        ),
        migrations.AddConstraint(
            model_name='billingplan',
            constraint=models.CheckConstraint(condition=models.Q(('min_nodes__isnull', True), models.Q(('min_nodes__gte', 1), ('min_nodes__lte', 100000)), _connector='OR'), name='plan_min_nodes_range', violation_error_message='Minimum nodes must be between 1 and 100,000'),
        ),
        migrations.AddConstraint(
            model_name='billingplan',
            constraint=models.CheckConstraint(condition=models.Q(('cycle_days__isnull', True), models.Q(('cycle_days__gte', 1), ('cycle_days__lte', 3650)), _connector='OR'), name='plan_cycle_days_range', violation_error_message='Cycle length must be between 1 and 3,650 days'),
        ),
        migrations.AddConstraint(
            model_name='billingplan',
            constraint=models.CheckConstraint(condition=models.Q(('upfront_pct__isnull', True), models.Q(('upfront_pct__gte', 0), ('upfront_pct__lte', 100)), _connector='OR'), name='plan_upfront_pct_range', violation_error_message='Upfront payment must be between 0 and 100 %'),
        ),
        migrations.AddConstraint(
            model_name='billingplan',
            constraint=models.CheckConstraint(condition=models.Q(('price_currency__in', ['USD', 'CNY'])), name='plan_price_currency_known'),
        ),
        migrations.AddConstraint(
            model_name='billingplan',
            constraint=models.CheckConstraint(condition=models.Q(('price_native_per_gpu_hour__isnull', True), ('price_native_per_gpu_hour__gte', 0), _connector='OR'), name='plan_native_price_not_negative'),
        ),
        migrations.RunPython(first_rate, migrations.RunPython.noop),
    ]
