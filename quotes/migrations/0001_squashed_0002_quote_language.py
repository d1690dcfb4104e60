# The quotes history squashed: `replaces` lists it (see docs/ARCHITECTURE.md, "Migrations").

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):

    initial = True

    replaces = [
        ('quotes', '0001_initial'),
        ('quotes', '0002_quote_language'),
    ]

    dependencies = [
        ('providers', '0001_squashed_0007_addendum_facts_and_fact_sources'),
        ('sizing', '0001_squashed_0006_planner_answers_ranges_samples_gpus'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name='Quote',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('number', models.CharField(max_length=32, unique=True)),
                ('issued_on', models.DateField()),
                ('valid_until', models.DateField()),
                ('offering_name', models.CharField(max_length=600)),
                ('plan_name', models.CharField(blank=True, max_length=200)),
                ('language', models.CharField(default='en', max_length=10)),
                ('total_usd', models.DecimalField(blank=True, decimal_places=2, max_digits=18, null=True)),
                ('complete', models.BooleanField(default=False)),
                ('snapshot', models.JSONField()),
                ('version', models.CharField(max_length=64)),
                ('share_token', models.CharField(blank=True, max_length=64, null=True, unique=True)),
                ('shared_at', models.DateTimeField(blank=True, null=True)),
                ('pdf_status', models.CharField(choices=[('none', 'Not rendered'), ('rendering', 'Rendering'), ('ready', 'Ready'), ('failed', 'Failed')], default='none', max_length=10)),
                ('pdf_name', models.CharField(blank=True, max_length=300)),
                ('pdf_has_charts', models.BooleanField(blank=True, null=True)),
                ('pdf_error', models.TextField(blank=True)),
                ('pdf_requested_at', models.DateTimeField(blank=True, null=True)),
                ('created_at', models.DateTimeField(auto_now_add=True)),
                ('offering', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='quotes', to='providers.offering')),
                ('owner', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='quotes', to=settings.AUTH_USER_MODEL)),
                ('run', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='quotes', to='sizing.planrun')),
                ('workload', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='quotes', to='sizing.workload')),
            ],
            options={
                'ordering': ['-created_at', '-id'],
                'constraints': [models.CheckConstraint(condition=models.Q(('pdf_status__in', ['none', 'rendering', 'ready', 'failed'])), name='quote_pdf_status_known'), models.CheckConstraint(condition=models.Q(('valid_until__gte', models.F('issued_on'))), name='quote_validity'), models.CheckConstraint(condition=models.Q(('number', ''), _negated=True), name='quote_number_not_empty')],
            },
        ),
    ]
