# The sizing history squashed: `replaces` lists it (see docs/ARCHITECTURE.md, "Migrations").

import django.db.models.deletion
import portal.constraints
from django.conf import settings
from django.db import migrations, models
from django.db.models import Q


def delete_workloads_outside_the_bounds(apps, schema_editor):
    """Workloads written before the bounds with values no training job has (they broke the pages and
    their runs never finished) are removed with their runs, so the constraints can be added."""
    from sizing.models import WORKLOAD_BOUNDS

    Workload = apps.get_model("sizing", "Workload")
    fields = {f.name for f in Workload._meta.get_fields()}
    outside = Q(pk__in=[])
    for field, bound in WORKLOAD_BOUNDS.items():
        if field not in fields:
            continue  # added by a later migration: no row holds a value yet
        if bound.strictly_positive:
            outside |= Q(**{f"{field}__lte": 0})
        if bound.minimum is not None:
            outside |= Q(**{f"{field}__lt": bound.minimum})
        if bound.maximum is not None:
            outside |= Q(**{f"{field}__gt": bound.maximum})
    Workload.objects.filter(outside).delete()


class Migration(migrations.Migration):

    initial = True

    replaces = [
        ('sizing', '0001_initial'),
        ('sizing', '0002_workload_attention'),
        ('sizing', '0003_delete_workloads_outside_the_bounds'),
        ('sizing', '0004_bounds_and_text_limits'),
        ('sizing', '0005_planrun_progress_at'),
        ('sizing', '0006_planner_answers_ranges_samples_gpus'),
    ]

    dependencies = [
        ('providers', '0001_squashed_0007_addendum_facts_and_fact_sources'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name='Workload',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('name', models.CharField(max_length=120)),
                ('preset', models.CharField(blank=True, help_text='the DESIGN section 2 preset it came from', max_length=40)),
                ('params', models.FloatField(blank=True, help_text='parameter count when no shape is given', null=True, validators=[portal.constraints.RangeValidator('Parameters', 1000000.0, 20000000000000.0, '', False)])),
                ('layers', models.PositiveIntegerField(blank=True, null=True, validators=[portal.constraints.RangeValidator('Layers', 1, 1280, '', False)])),
                ('hidden', models.PositiveIntegerField(blank=True, null=True, validators=[portal.constraints.RangeValidator('Hidden size', 1, 262144, '', False)])),
                ('heads', models.PositiveIntegerField(blank=True, null=True, validators=[portal.constraints.RangeValidator('Attention heads', 1, 2048, '', False)])),
                ('kv_heads', models.PositiveIntegerField(blank=True, null=True, validators=[portal.constraints.RangeValidator('KV heads', 1, 2048, '', False)])),
                ('ffn_hidden', models.PositiveIntegerField(blank=True, null=True, validators=[portal.constraints.RangeValidator('FFN hidden', 1, 1048576, '', False)])),
                ('vocab', models.PositiveIntegerField(blank=True, null=True, validators=[portal.constraints.RangeValidator('Vocabulary', 1, 2621440, '', False)])),
                ('seq_len', models.PositiveIntegerField(blank=True, null=True, validators=[portal.constraints.RangeValidator('Sequence length', 1, 10485760, '', False)])),
                ('activation', models.CharField(choices=[('gelu', 'GeLU'), ('swiglu', 'SwiGLU')], default='gelu', max_length=10)),
                ('tied_embeddings', models.BooleanField(default=False)),
                ('moe_experts', models.PositiveIntegerField(blank=True, null=True, validators=[portal.constraints.RangeValidator('MoE experts', 1, 20480, '', False)])),
                ('moe_top_k', models.PositiveIntegerField(blank=True, null=True, validators=[portal.constraints.RangeValidator('MoE top-k', 1, 128, '', False)])),
                ('moe_expert_ffn_hidden', models.PositiveIntegerField(blank=True, null=True, validators=[portal.constraints.RangeValidator('Expert FFN hidden', 1, 1048576, '', False)])),
                ('moe_shared_experts', models.PositiveIntegerField(blank=True, null=True, validators=[portal.constraints.RangeValidator('Shared experts', 0, 64, '', False)])),
                ('moe_dense_layers', models.PositiveIntegerField(blank=True, null=True, validators=[portal.constraints.RangeValidator('Leading dense layers', 0, 1280, '', False)])),
                ('global_batch', models.PositiveIntegerField(blank=True, help_text='sequences per iteration', null=True, validators=[portal.constraints.RangeValidator('Global batch', 1, 1048576, 'sequences', False)])),
                ('train_tokens', models.FloatField(blank=True, null=True, validators=[portal.constraints.RangeValidator('Training tokens', 1000000.0, 400000000000000.0, '', False)])),
                ('precision', models.CharField(choices=[('bf16', 'bf16'), ('fp8', 'fp8')], default='bf16', max_length=10)),
                ('attention', models.CharField(choices=[('auto', 'by GPU (unfused on A100, fused elsewhere)'), ('flash', 'fused (FlashAttention)'), ('unfused', 'unfused (scores materialised)')], default='auto', help_text='attention kernels: fused FlashAttention or materialised scores (docs/MODEL.md)', max_length=10)),
                ('deadline_days', models.FloatField(blank=True, null=True, validators=[portal.constraints.RangeValidator('Deadline', None, 3650, 'days', True)])),
                ('deadline_default', models.BooleanField(default=False, help_text='no deadline was given: the stated default (DEFAULT_DEADLINE_DAYS) applies')),
                ('budget_usd', models.DecimalField(blank=True, decimal_places=2, max_digits=16, null=True, validators=[portal.constraints.RangeValidator('Budget', None, 100000000000.0, 'USD', True)])),
                ('checkpoints_retained', models.PositiveIntegerField(default=2, validators=[portal.constraints.RangeValidator('Checkpoints kept', 1, 1000, '', False)])),
                ('dataset_size_gb', models.FloatField(blank=True, null=True, validators=[portal.constraints.RangeValidator('Dataset size', 0, 1000000000.0, 'GB', False)])),
                ('created_at', models.DateTimeField(auto_now_add=True)),
                ('owner', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='workloads', to=settings.AUTH_USER_MODEL)),
            ],
            options={
                'ordering': ['-created_at', '-id'],
            },
        ),
        migrations.CreateModel(
            name='PlanRun',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('objective', models.CharField(choices=[('cheapest', 'Cheapest within the deadline'), ('fastest', 'Fastest within the budget')], default='cheapest', max_length=10)),
                ('gpus', models.PositiveIntegerField(blank=True, help_text='size every offering at exactly this GPU count (empty: search)', null=True)),
                ('include_samples', models.BooleanField(default=False, help_text='fictional sample offerings were asked for')),
                ('status', models.CharField(choices=[('queued', 'Queued'), ('running', 'Running'), ('done', 'Done'), ('failed', 'Failed')], default='queued', max_length=10)),
                ('progress_done', models.PositiveIntegerField(default=0)),
                ('progress_total', models.PositiveIntegerField(default=0)),
                ('created_at', models.DateTimeField(auto_now_add=True)),
                ('updated_at', models.DateTimeField(auto_now=True)),
                ('started_at', models.DateTimeField(blank=True, null=True)),
                ('finished_at', models.DateTimeField(blank=True, null=True)),
                ('progress_at', models.DateTimeField(blank=True, null=True)),
                ('error', models.TextField(blank=True)),
                ('offerings', models.ManyToManyField(related_name='plan_runs', to='providers.offering')),
                ('owner', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='plan_runs', to=settings.AUTH_USER_MODEL)),
                ('workload', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='runs', to='sizing.workload')),
            ],
            options={
                'ordering': ['-created_at', '-id'],
            },
        ),
        migrations.CreateModel(
            name='PlanResult',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('feasible', models.BooleanField(default=False)),
                ('layout', models.JSONField(blank=True, default=dict)),
                ('gpus', models.PositiveIntegerField(blank=True, null=True)),
                ('nodes', models.PositiveIntegerField(blank=True, null=True)),
                ('train_days', models.FloatField(blank=True, null=True)),
                ('mfu', models.FloatField(blank=True, null=True)),
                ('goodput', models.FloatField(blank=True, null=True)),
                ('sizing', models.JSONField(blank=True, default=dict)),
                ('bill', models.JSONField(blank=True, default=dict)),
                ('cost_total_usd', models.DecimalField(blank=True, decimal_places=2, max_digits=16, null=True)),
                ('cost_complete', models.BooleanField(default=False)),
                ('cost_low_usd', models.DecimalField(blank=True, decimal_places=2, max_digits=16, null=True)),
                ('cost_high_usd', models.DecimalField(blank=True, decimal_places=2, max_digits=16, null=True)),
                ('plan_name', models.CharField(blank=True, max_length=200)),
                ('rank', models.PositiveIntegerField(blank=True, null=True)),
                ('findings', models.JSONField(blank=True, default=list)),
                ('sample', models.BooleanField(default=False, help_text='a fictional sample offering')),
                ('assumptions', models.JSONField(blank=True, default=list, help_text='[{fact, assumed, basis}] for every unpublished fact the model used')),
                ('pessimistic', models.JSONField(blank=True, null=True)),
                ('infeasible_reason', models.TextField(blank=True, help_text='why it cannot train it, in words', null=True)),
                ('created_at', models.DateTimeField(auto_now_add=True)),
                ('offering', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='plan_results', to='providers.offering')),
                ('run', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='results', to='sizing.planrun')),
            ],
            options={
                'ordering': ['run', 'rank', 'id'],
                'constraints': [models.UniqueConstraint(fields=('run', 'offering'), name='planresult_one_per_offering')],
            },
        ),
        # The clean-up of rows written before the bounds (replaced 0003): nothing to clean on a fresh
        # database; tests/security/test_bounds_migration.py runs it on such rows.
        migrations.RunPython(delete_workloads_outside_the_bounds, migrations.RunPython.noop),
        migrations.AddConstraint(
            model_name='workload',
            constraint=models.CheckConstraint(condition=models.Q(('precision__in', ['bf16', 'fp8'])), name='workload_precision_known'),
        ),
        migrations.AddConstraint(
            model_name='workload',
            constraint=models.CheckConstraint(condition=models.Q(('activation__in', ['gelu', 'swiglu'])), name='workload_activation_known'),
        ),
        migrations.AddConstraint(
            model_name='workload',
            constraint=models.CheckConstraint(condition=models.Q(('attention__in', ['auto', 'flash', 'unfused'])), name='workload_attention_known'),
        ),
        migrations.AddConstraint(
            model_name='workload',
            constraint=models.CheckConstraint(condition=models.Q(('layers__isnull', False), ('params__gt', 0), _connector='OR'), name='workload_shape_or_params'),
        ),
        migrations.AddConstraint(
            model_name='workload',
            constraint=models.CheckConstraint(condition=models.Q(('params__isnull', True), models.Q(('params__gte', 1000000.0), ('params__lte', 20000000000000.0)), _connector='OR'), name='workload_params_range', violation_error_message='Parameters must be between 1,000,000 and 20,000,000,000,000'),
        ),
        migrations.AddConstraint(
            model_name='workload',
            constraint=models.CheckConstraint(condition=models.Q(('layers__isnull', True), models.Q(('layers__gte', 1), ('layers__lte', 1280)), _connector='OR'), name='workload_layers_range', violation_error_message='Layers must be between 1 and 1,280'),
        ),
        migrations.AddConstraint(
            model_name='workload',
            constraint=models.CheckConstraint(condition=models.Q(('hidden__isnull', True), models.Q(('hidden__gte', 1), ('hidden__lte', 262144)), _connector='OR'), name='workload_hidden_range', violation_error_message='Hidden size must be between 1 and 262,144'),
        ),
        migrations.AddConstraint(
            model_name='workload',
            constraint=models.CheckConstraint(condition=models.Q(('heads__isnull', True), models.Q(('heads__gte', 1), ('heads__lte', 2048)), _connector='OR'), name='workload_heads_range', violation_error_message='Attention heads must be between 1 and 2,048'),
        ),
        migrations.AddConstraint(
            model_name='workload',
            constraint=models.CheckConstraint(condition=models.Q(('kv_heads__isnull', True), models.Q(('kv_heads__gte', 1), ('kv_heads__lte', 2048)), _connector='OR'), name='workload_kv_heads_range', violation_error_message='KV heads must be between 1 and 2,048'),
        ),
        migrations.AddConstraint(
            model_name='workload',
            constraint=models.CheckConstraint(condition=models.Q(('ffn_hidden__isnull', True), models.Q(('ffn_hidden__gte', 1), ('ffn_hidden__lte', 1048576)), _connector='OR'), name='workload_ffn_hidden_range', violation_error_message='FFN hidden must be between 1 and 1,048,576'),
        ),
        migrations.AddConstraint(
            model_name='workload',
            constraint=models.CheckConstraint(condition=models.Q(('vocab__isnull', True), models.Q(('vocab__gte', 1), ('vocab__lte', 2621440)), _connector='OR'), name='workload_vocab_range', violation_error_message='Vocabulary must be between 1 and 2,621,440'),
        ),
        migrations.AddConstraint(
            model_name='workload',
            constraint=models.CheckConstraint(condition=models.Q(('seq_len__isnull', True), models.Q(('seq_len__gte', 1), ('seq_len__lte', 10485760)), _connector='OR'), name='workload_seq_len_range', violation_error_message='Sequence length must be between 1 and 10,485,760'),
        ),
        migrations.AddConstraint(
            model_name='workload',
            constraint=models.CheckConstraint(condition=models.Q(('moe_experts__isnull', True), models.Q(('moe_experts__gte', 1), ('moe_experts__lte', 20480)), _connector='OR'), name='workload_moe_experts_range', violation_error_message='MoE experts must be between 1 and 20,480'),
        ),
        migrations.AddConstraint(
            model_name='workload',
            constraint=models.CheckConstraint(condition=models.Q(('moe_top_k__isnull', True), models.Q(('moe_top_k__gte', 1), ('moe_top_k__lte', 128)), _connector='OR'), name='workload_moe_top_k_range', violation_error_message='MoE top-k must be between 1 and 128'),
        ),
        migrations.AddConstraint(
            model_name='workload',
            constraint=models.CheckConstraint(condition=models.Q(('moe_expert_ffn_hidden__isnull', True), models.Q(('moe_expert_ffn_hidden__gte', 1), ('moe_expert_ffn_hidden__lte', 1048576)), _connector='OR'), name='workload_moe_expert_ffn_hidden_range', violation_error_message='Expert FFN hidden must be between 1 and 1,048,576'),
        ),
        migrations.AddConstraint(
            model_name='workload',
            constraint=models.CheckConstraint(condition=models.Q(('moe_shared_experts__isnull', True), models.Q(('moe_shared_experts__gte', 0), ('moe_shared_experts__lte', 64)), _connector='OR'), name='workload_moe_shared_experts_range', violation_error_message='Shared experts must be between 0 and 64'),
        ),
        migrations.AddConstraint(
            model_name='workload',
            constraint=models.CheckConstraint(condition=models.Q(('moe_dense_layers__isnull', True), models.Q(('moe_dense_layers__gte', 0), ('moe_dense_layers__lte', 1280)), _connector='OR'), name='workload_moe_dense_layers_range', violation_error_message='Leading dense layers must be between 0 and 1,280'),
        ),
        migrations.AddConstraint(
            model_name='workload',
            constraint=models.CheckConstraint(condition=models.Q(('global_batch__isnull', True), models.Q(('global_batch__gte', 1), ('global_batch__lte', 1048576)), _connector='OR'), name='workload_global_batch_range', violation_error_message='Global batch must be between 1 and 1,048,576 sequences'),
        ),
        migrations.AddConstraint(
            model_name='workload',
            constraint=models.CheckConstraint(condition=models.Q(('train_tokens__isnull', True), models.Q(('train_tokens__gte', 1000000.0), ('train_tokens__lte', 400000000000000.0)), _connector='OR'), name='workload_train_tokens_range', violation_error_message='Training tokens must be between 1,000,000 and 400,000,000,000,000'),
        ),
        migrations.AddConstraint(
            model_name='workload',
            constraint=models.CheckConstraint(condition=models.Q(('deadline_days__isnull', True), models.Q(('deadline_days__gt', 0), ('deadline_days__lte', 3650)), _connector='OR'), name='workload_deadline_days_range', violation_error_message='Deadline must be greater than 0 and at most 3,650 days'),
        ),
        migrations.AddConstraint(
            model_name='workload',
            constraint=models.CheckConstraint(condition=models.Q(('budget_usd__isnull', True), models.Q(('budget_usd__gt', 0), ('budget_usd__lte', 100000000000.0)), _connector='OR'), name='workload_budget_usd_range', violation_error_message='Budget must be greater than 0 and at most 100,000,000,000 USD'),
        ),
        migrations.AddConstraint(
            model_name='workload',
            constraint=models.CheckConstraint(condition=models.Q(('checkpoints_retained__isnull', True), models.Q(('checkpoints_retained__gte', 1), ('checkpoints_retained__lte', 1000)), _connector='OR'), name='workload_checkpoints_retained_range', violation_error_message='Checkpoints kept must be between 1 and 1,000'),
        ),
        migrations.AddConstraint(
            model_name='workload',
            constraint=models.CheckConstraint(condition=models.Q(('dataset_size_gb__isnull', True), models.Q(('dataset_size_gb__gte', 0), ('dataset_size_gb__lte', 1000000000.0)), _connector='OR'), name='workload_dataset_size_gb_range', violation_error_message='Dataset size must be between 0 and 1,000,000,000 GB'),
        ),
        migrations.AddConstraint(
            model_name='planrun',
            constraint=models.CheckConstraint(condition=models.Q(('status__in', ['queued', 'running', 'done', 'failed'])), name='planrun_status_known'),
        ),
        migrations.AddConstraint(
            model_name='planrun',
            constraint=models.CheckConstraint(condition=models.Q(('objective__in', ['cheapest', 'fastest'])), name='planrun_objective_known'),
        ),
        migrations.AddConstraint(
            model_name='planrun',
            constraint=models.CheckConstraint(condition=models.Q(('progress_done__lte', models.F('progress_total'))), name='planrun_progress_bounded'),
        ),
    ]
