# The checks history squashed: `replaces` lists it (see docs/ARCHITECTURE.md, "Migrations").

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    initial = True

    replaces = [
        ('checks', '0001_initial'),
        ('checks', '0002_finding_context_private_evidence'),
    ]

    dependencies = [
        ('providers', '0001_squashed_0007_addendum_facts_and_fact_sources'),
    ]

    operations = [
        migrations.CreateModel(
            name='Finding',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('code', models.CharField(max_length=64)),
                ('severity', models.CharField(choices=[('critical', 'Critical'), ('warning', 'Warning'), ('info', 'Info')], max_length=16)),
                ('title', models.CharField(max_length=500)),
                ('evidence', models.JSONField(blank=True, default=list)),
                ('advice', models.TextField(blank=True)),
                ('impact', models.JSONField(blank=True, default=dict)),
                ('context', models.CharField(default='claims', max_length=64)),
                ('created_at', models.DateTimeField(auto_now_add=True)),
                ('updated_at', models.DateTimeField(auto_now=True)),
                ('offering', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='findings', to='providers.offering')),
            ],
            options={
                'indexes': [models.Index(fields=['offering', 'context'], name='checks_find_offerin_99846d_idx')],
                'constraints': [models.UniqueConstraint(fields=('offering', 'code', 'context'), name='checks_finding_one_per_code_and_context'), models.CheckConstraint(condition=models.Q(('severity__in', ['critical', 'warning', 'info'])), name='checks_finding_severity_valid'), models.CheckConstraint(condition=models.Q(('context__in', ['claims', 'evidence']), ('context__regex', '^run:[0-9]+$'), ('context__regex', '^evidence:[0-9]+$'), _connector='OR'), name='checks_finding_context_valid'), models.CheckConstraint(condition=models.Q(('code', ''), _negated=True), name='checks_finding_code_not_empty')],
            },
        ),
    ]
