"""Settings of the private stack the fault tests start (tests/reliability/stack.py): portal.settings plus
the two reliability settings docs/RELIABILITY.md asks for, read from the environment the same way.

Once portal/settings.py carries these lines itself, this module only re-applies the same values.
"""

from __future__ import annotations

from portal.settings import *  # noqa: F403
from portal.settings import CELERY_BROKER_TRANSPORT_OPTIONS, CELERY_TASK_TIME_LIMIT, DATABASES, env

# A message held by a SIGKILLed worker comes back after this many seconds (kombu's default is one hour).
CELERY_BROKER_TRANSPORT_OPTIONS = {
    **CELERY_BROKER_TRANSPORT_OPTIONS,
    "visibility_timeout": env.int("CELERY_VISIBILITY_TIMEOUT", default=CELERY_TASK_TIME_LIMIT + 300),
    # Test-only: kombu scans for expired messages every interval x throttle seconds (10 x 10 by default);
    # once a second here so that a test does not wait 100 s for the scan after the timeout.
    "unacked_restore_interval": 1,
    "unacked_restore_throttle": 1,
    # The scan runs under a Redis mutex that a worker SIGKILLed in the middle of it keeps for
    # unacked_mutex_expire seconds (300 by default): with a scan every second a test's kill can land there
    # (seen once in CI under load: the held chunk never came back within 60 s). A scan takes milliseconds.
    "unacked_mutex_expire": 5,
}
# A persistent connection that died with a PostgreSQL restart is replaced before the next request uses it.
DATABASES["default"]["CONN_HEALTH_CHECKS"] = True
