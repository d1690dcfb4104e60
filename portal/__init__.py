# The Celery app is loaded with Django so that @shared_task binds to it.
from portal.celery import app as celery_app

__all__ = ["celery_app"]
