"""Catalog files: read YAML/CSV into one normalised structure, validate every field, write all-or-nothing.

The format is docs/CATALOG_FORMAT.md. Validation collects every problem (with its provider, offering, plan
and field) before anything is written; the write happens in one transaction, so a failure at any point
leaves the database as it was.

One module per stage: files (reading YAML and CSV), values (one value into its stored type), validation,
importing (the all-or-nothing write), export; report holds what an import found.
"""

from providers.catalog.export import catalog_export, catalog_export_yaml
from providers.catalog.files import FORMAT, PLAN_FIELDS, parse_csv, parse_yaml, read_catalog_file
from providers.catalog.importing import catalog_import
from providers.catalog.report import CatalogError, ImportReport, Problem
from providers.catalog.values import coerce_fact

__all__ = [
    "FORMAT",
    "PLAN_FIELDS",
    "CatalogError",
    "ImportReport",
    "Problem",
    "catalog_export",
    "catalog_export_yaml",
    "catalog_import",
    "coerce_fact",
    "parse_csv",
    "parse_yaml",
    "read_catalog_file",
]
