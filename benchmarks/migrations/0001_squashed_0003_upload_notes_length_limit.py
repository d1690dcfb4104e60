# The benchmarks history squashed: `replaces` lists it (see docs/ARCHITECTURE.md, "Migrations").

import django.db.models.deletion
import uuid
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):

    initial = True

    replaces = [
        ('benchmarks', '0001_initial'),
        ('benchmarks', '0002_upload_parsing_started_at'),
        ('benchmarks', '0003_upload_notes_length_limit'),
    ]

    dependencies = [
        ('providers', '0001_squashed_0007_addendum_facts_and_fact_sources'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name='Blob',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('sha256', models.CharField(max_length=64, unique=True)),
                ('size_bytes', models.PositiveBigIntegerField()),
                ('storage_name', models.CharField(max_length=200, unique=True)),
                ('created_at', models.DateTimeField(auto_now_add=True)),
            ],
            options={
                'constraints': [models.CheckConstraint(condition=models.Q(('sha256__regex', '^[0-9a-f]{64}$')), name='blob_sha256_hex')],
            },
        ),
        migrations.CreateModel(
            name='Upload',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('batch', models.UUIDField(db_index=True, default=uuid.uuid4)),
                ('original_filename', models.CharField(max_length=255)),
                ('nodes', models.PositiveIntegerField(blank=True, null=True)),
                ('gpus', models.PositiveIntegerField(blank=True, null=True)),
                ('measured_on', models.DateField(blank=True, null=True)),
                ('notes', models.CharField(blank=True, max_length=5000)),
                ('visibility', models.CharField(choices=[('private', 'Private (only me)'), ('public', 'Public (everyone)')], default='private', max_length=10)),
                ('status', models.CharField(choices=[('stored', 'Stored, waiting for the parser'), ('parsing', 'Parsing'), ('parsed', 'Parsed'), ('unrecognised', 'Not recognised'), ('failed', 'Failed')], default='stored', max_length=20)),
                ('kind', models.CharField(blank=True, max_length=40, null=True)),
                ('summary', models.JSONField(blank=True, default=dict)),
                ('warnings', models.JSONField(blank=True, default=list)),
                ('errors', models.JSONField(blank=True, default=list)),
                ('verdicts', models.JSONField(blank=True, default=list)),
                ('parsed_at', models.DateTimeField(blank=True, null=True)),
                ('parsing_started_at', models.DateTimeField(blank=True, null=True)),
                ('created_at', models.DateTimeField(auto_now_add=True)),
                ('blob', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='uploads', to='benchmarks.blob')),
                ('offering', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='uploads', to='providers.offering')),
                ('owner', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='uploads', to=settings.AUTH_USER_MODEL)),
            ],
            options={
                'ordering': ['-created_at', '-id'],
                'indexes': [models.Index(fields=['status', 'created_at'], name='benchmarks__status_237564_idx')],
                'constraints': [models.CheckConstraint(condition=models.Q(('visibility__in', ['private', 'public'])), name='upload_visibility_known'), models.CheckConstraint(condition=models.Q(('status__in', ['stored', 'parsing', 'parsed', 'unrecognised', 'failed'])), name='upload_status_known'), models.CheckConstraint(condition=models.Q(('nodes__isnull', True), ('nodes__gt', 0), _connector='OR'), name='upload_nodes_positive'), models.CheckConstraint(condition=models.Q(('gpus__isnull', True), ('gpus__gt', 0), _connector='OR'), name='upload_gpus_positive'), models.UniqueConstraint(fields=('owner', 'offering', 'blob'), name='upload_once_per_owner_offering')],
            },
        ),
    ]
