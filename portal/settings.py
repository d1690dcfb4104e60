"""ClusterScout settings: one module, everything read from the environment.

With no environment at all this is the embedded demo: SQLite next to the checkout and Celery tasks run
in-process. Setting DATABASE_URL (PostgreSQL through psycopg 3) and CELERY_BROKER_URL (Redis) turns it into
the real deployment with separate `celery -A portal worker` processes. Every variable is documented in
.env.example.
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path

import django_stubs_ext
import environ

# Lets admin.ModelAdmin[Model] and friends be subscripted at run time (typing only).
django_stubs_ext.monkeypatch()

BASE_DIR = Path(__file__).resolve().parent.parent

env = environ.Env()
# A .env file is optional; real deployments pass the environment directly.
environ.Env.read_env(BASE_DIR / ".env", overwrite=False)

# Demo accounts are created only by `make demo` (manage.py load_demo), never in production.
DEMO_MODE = env.bool("CLUSTERSCOUT_DEMO", default=False)
# DEBUG is off unless the demo (`make demo` sets CLUSTERSCOUT_DEMO=1) or a development setting
# (DJANGO_DEBUG=true, as in .env.example) turns it on: a deployment that forgot its environment never shows
# the debug page. An explicit DJANGO_DEBUG=false is the production deployment of README: it needs its own
# secret key and turns on the HTTPS-only settings below (manage.py check --deploy is clean).
DEBUG = env.bool("DJANGO_DEBUG", default=DEMO_MODE)
PRODUCTION = not DEBUG and bool(os.environ.get("DJANGO_DEBUG"))


def _local_secret_key(path: Path) -> str:
    """A random key made once for this checkout (embedded mode, demo, development), never a shared one."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return path.read_text().strip()
    except OSError as exc:
        raise environ.ImproperlyConfigured(f"set DJANGO_SECRET_KEY (cannot write {path}: {exc})") from exc
    key = secrets.token_urlsafe(50)
    with os.fdopen(fd, "w") as handle:
        handle.write(key)
    return key


SECRET_KEY = env.str("DJANGO_SECRET_KEY", default="")
if not SECRET_KEY:
    if PRODUCTION:
        raise environ.ImproperlyConfigured("DJANGO_SECRET_KEY must be set when DJANGO_DEBUG is off")
    SECRET_KEY = _local_secret_key(BASE_DIR / ".secret_key")
ALLOWED_HOSTS = env.list("DJANGO_ALLOWED_HOSTS", default=["127.0.0.1", "localhost", "testserver"])
CSRF_TRUSTED_ORIGINS = env.list("DJANGO_CSRF_TRUSTED_ORIGINS", default=[])

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django.contrib.humanize",
    "rest_framework",
    "rest_framework.authtoken",
    "django_filters",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "accounts",
    "providers",
    "sizing",
    "benchmarks",
    "checks",
    "acceptance",
    "quotes",
    "compare",
    "rfq",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "portal.middleware.DatabaseUnavailableMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "portal.middleware.CurrencyMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    # Last, so that its page-side 400 renders in the site's template (currency, messages, user are set).
    "portal.middleware.NullCharacterMiddleware",
]

ROOT_URLCONF = "portal.urls"
WSGI_APPLICATION = "portal.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "portal.context_processors.site",
            ],
        },
    },
]

# Embedded default: SQLite beside the checkout. DATABASE_URL=postgres://... for the real deployment.
DATABASES = {
    "default": env.db_url("DATABASE_URL", default=f"sqlite:///{BASE_DIR / 'db.sqlite3'}"),
}
DATABASES["default"].setdefault("CONN_MAX_AGE", env.int("DATABASE_CONN_MAX_AGE", default=0))
# A connection dropped by a PostgreSQL restart is replaced on the next request instead of failing it.
DATABASES["default"].setdefault("CONN_HEALTH_CHECKS", env.bool("DATABASE_CONN_HEALTH_CHECKS", default=True))
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # The embedded mode serves a handful of concurrent users: WAL lets readers go on while one writes,
    # IMMEDIATE transactions take the write lock when they begin (no deadlock upgrading a read lock), and
    # a writer that finds the lock taken waits up to the timeout instead of failing ("database is locked").
    sqlite_options = DATABASES["default"].setdefault("OPTIONS", {})
    sqlite_options.setdefault("init_command", "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;")
    sqlite_options.setdefault("transaction_mode", "IMMEDIATE")
    sqlite_options.setdefault("timeout", env.int("SQLITE_BUSY_TIMEOUT_SECONDS", default=20))
if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
    # Fail fast instead of hanging when PostgreSQL is down: requests then get a clear 503.
    DATABASES["default"].setdefault("OPTIONS", {}).setdefault("connect_timeout", 5)

AUTH_USER_MODEL = "accounts.User"
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
]
LOGIN_URL = "accounts:login"
LOGIN_REDIRECT_URL = "/"
LOGOUT_REDIRECT_URL = "/"

LANGUAGE_CODE = "en"
# Pages follow Accept-Language and the switcher in the header (django.views.i18n.set_language).
LANGUAGES = [("en", "English"), ("zh-hans", "简体中文")]
LOCALE_PATHS = [BASE_DIR / "locale"]
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "/static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = env.path("DJANGO_STATIC_ROOT", default=BASE_DIR / "staticfiles")
MEDIA_ROOT = env.path("DJANGO_MEDIA_ROOT", default=BASE_DIR / "media")
MEDIA_URL = "/media/"
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"
        if PRODUCTION
        else "django.contrib.staticfiles.storage.StaticFilesStorage"
    },
}
# Outside production (no collectstatic) WhiteNoise serves the static files from the apps, DEBUG or not.
WHITENOISE_USE_FINDERS = not PRODUCTION

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# Uploads: benchmark logs are text and rarely above a few MB; anything bigger is refused with a message.
UPLOAD_MAX_BYTES = env.int("UPLOAD_MAX_BYTES", default=20 * 1024 * 1024)
# An acceptance bundle (tar.gz/zip of a results folder) as sent; its unpacked size is bounded separately.
ACCEPTANCE_BUNDLE_MAX_BYTES = env.int("ACCEPTANCE_BUNDLE_MAX_BYTES", default=50 * 1024 * 1024)
# Files per request: more is a 400 naming the limit (benchmarks.services.incoming_files). Django's own
# cap sits well above it so that the clear message is the one a client sees; beyond Django's cap the
# API still answers 400 (portal.api_errors), never a 500.
UPLOAD_MAX_FILES_PER_REQUEST = env.int("UPLOAD_MAX_FILES_PER_REQUEST", default=20)
DATA_UPLOAD_MAX_NUMBER_FILES = max(1000, 10 * UPLOAD_MAX_FILES_PER_REQUEST)
# All the files of one request together (they are read into memory to be hashed and stored).
UPLOAD_MAX_REQUEST_BYTES = env.int("UPLOAD_MAX_REQUEST_BYTES", default=64 * 1024 * 1024)
DATA_UPLOAD_MAX_MEMORY_SIZE = env.int("DATA_UPLOAD_MAX_MEMORY_SIZE", default=5 * 1024 * 1024)
# Uploaded files above this spool to a temporary file instead of memory.
FILE_UPLOAD_MAX_MEMORY_SIZE = 256 * 1024

# --- Cache (rate limits) ---------------------------------------------------------------------------------
# Redis when there is one (shared by every web process, so limits hold across them), else process memory.
REDIS_URL = env.str("REDIS_URL", default="") or env.str("CELERY_BROKER_URL", default="")
if REDIS_URL.startswith(("redis://", "rediss://")):
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": REDIS_URL,
            "KEY_PREFIX": "clusterscout",
            # A Redis outage must not hang requests: the limiter then lets requests through.
            "OPTIONS": {"socket_connect_timeout": 1, "socket_timeout": 1},
        }
    }
else:
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}

# Rate limits (accounts/ratelimit.py): failed log-ins per user name and address; uploads per user (the
# "uploads" throttle of accounts/throttles.py, on the upload page and the upload API).
RATE_LIMIT_LOGIN_FAILURES = env.int("RATE_LIMIT_LOGIN_FAILURES", default=10)
RATE_LIMIT_LOGIN_WINDOW_SECONDS = env.int("RATE_LIMIT_LOGIN_WINDOW_SECONDS", default=300)
RATE_LIMIT_UPLOADS = env.int("RATE_LIMIT_UPLOADS", default=30)
RATE_LIMIT_UPLOADS_WINDOW_SECONDS = env.int("RATE_LIMIT_UPLOADS_WINDOW_SECONDS", default=600)
# ...and, in the same window, files and bytes (one POST may carry many files).
RATE_LIMIT_UPLOAD_FILES = env.int("RATE_LIMIT_UPLOAD_FILES", default=100)
RATE_LIMIT_UPLOAD_BYTES = env.int("RATE_LIMIT_UPLOAD_BYTES", default=200 * 1024 * 1024)

# --- Celery -----------------------------------------------------------------------------------------
# No broker URL means the embedded mode: tasks run in a small in-process thread pool with a bounded queue
# (portal/task_pool.py), so requests answer at once and pages poll, as with real workers.
CELERY_BROKER_URL = env.str("CELERY_BROKER_URL", default="")
CELERY_TASK_ALWAYS_EAGER = False  # tests turn it on for their unit tests (tests/conftest.py)
TASKS_POOL_WORKERS = env.int("TASKS_POOL_WORKERS", default=2)
TASKS_POOL_QUEUE = env.int("TASKS_POOL_QUEUE", default=64)
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_RESULT_BACKEND = None
CELERY_TASK_IGNORE_RESULT = True
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_TIME_LIMIT = env.int("CELERY_TASK_TIME_LIMIT", default=600)
CELERY_TASK_SOFT_TIME_LIMIT = env.int("CELERY_TASK_SOFT_TIME_LIMIT", default=540)
CELERY_TASK_DEFAULT_QUEUE = "default"
# Task names are "<app>.<action>"; each family has its own queue so workers can be sized per kind of work.
CELERY_TASK_ROUTES = {
    "sizing.*": {"queue": "sizing"},
    "checks.*": {"queue": "sizing"},
    "benchmarks.*": {"queue": "parse"},
    "acceptance.*": {"queue": "parse"},
    "quotes.*": {"queue": "pdf"},
}
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
# Enqueueing must not hang a web request when Redis is down; the sweeper re-enqueues later.
CELERY_BROKER_TRANSPORT_OPTIONS = {
    "max_retries": 1,
    "interval_start": 0,
    "interval_step": 0.2,
    # A task held by a killed worker is redelivered after this (kombu's default is an hour); it must exceed
    # the longest task, or a slow task would run twice.
    "visibility_timeout": env.int("CELERY_VISIBILITY_TIMEOUT", default=CELERY_TASK_TIME_LIMIT + 300),
    # Redelivery runs under a Redis lock that expires after this (kombu's default, 5 minutes). A worker
    # killed while it held the lock delays every redelivery until then; the reliability stack shortens both.
    "unacked_mutex_expire": env.int("CELERY_UNACKED_MUTEX_EXPIRE", default=300),
}
CELERY_BROKER_CONNECTION_TIMEOUT = 2
# The sweepers pick up work whose enqueue failed (broker down) or whose worker died: `celery -A portal beat`.
# The planner's watchdog is added in portal/celery.py.
CELERY_BEAT_SCHEDULE = {
    "sweep-stored-uploads": {"task": "benchmarks.sweep_stored", "schedule": 30.0},
    "sweep-queued-acceptance": {"task": "acceptance.sweep_queued", "schedule": 30.0},
}

# --- Mail (requests for quote notify representatives and buyers) ---------------------------------------
# The console backend prints mail to the server's output: the demo and development default.
EMAIL_BACKEND = env.str("EMAIL_BACKEND", default="django.core.mail.backends.console.EmailBackend")
EMAIL_HOST = env.str("EMAIL_HOST", default="localhost")
EMAIL_PORT = env.int("EMAIL_PORT", default=25)
DEFAULT_FROM_EMAIL = env.str("DEFAULT_FROM_EMAIL", default="ClusterScout <noreply@clusterscout.invalid>")
# The address of the portal as people reach it, for links in mail ("" = relative links).
SITE_URL = env.str("SITE_URL", default="http://127.0.0.1:8000")
# A sourced fact edit resting on a document older than this many days is flagged for review.
FACT_SOURCE_REVIEW_AGE_DAYS = env.int("FACT_SOURCE_REVIEW_AGE_DAYS", default=365)

# --- Planner and quotes -------------------------------------------------------------------------------
# Offerings per sizing task: a run over a large catalog is shared by several workers in chunks. 0 (the
# default): about 64 chunks a run, 4 to 50 offerings each (sizing/services.py chunk_size).
SIZING_CHUNK_SIZE = env.int("SIZING_CHUNK_SIZE", default=0)
# Debian's chromium draws the quote charts (kaleido); nothing ever downloads a browser.
QUOTES_BROWSER_PATH = env.str("QUOTES_BROWSER_PATH", default="/usr/bin/chromium")
QUOTES_VALIDITY_DAYS = env.int("QUOTES_VALIDITY_DAYS", default=30)

# API tokens live this long (hours) after they are issued; then POST /api/v1/auth/token/ gives a new one.
# Bounded: at least an hour, at most a year (a token that never expires cannot be taken back in time).
API_TOKEN_LIFETIME_HOURS = env.int("API_TOKEN_LIFETIME_HOURS", default=24 * 30)
if not 1 <= API_TOKEN_LIFETIME_HOURS <= 24 * 365:
    raise environ.ImproperlyConfigured("API_TOKEN_LIFETIME_HOURS must be between 1 and 8760")

# --- REST framework -----------------------------------------------------------------------------------
REST_FRAMEWORK = {
    # Token first: its WWW-Authenticate header makes "not logged in" a 401 rather than a 403.
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "accounts.authentication.ExpiringTokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticatedOrReadOnly"],
    "DEFAULT_PAGINATION_CLASS": "portal.pagination.BoundedLimitOffsetPagination",
    "PAGE_SIZE": 100,
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "EXCEPTION_HANDLER": "portal.api_errors.exception_handler",
}
SPECTACULAR_SETTINGS = {
    "TITLE": "ClusterScout API",
    "DESCRIPTION": "GPU cluster offerings, sizing runs, evidence uploads, findings and quotes.",
    "VERSION": "1",
    "SERVE_INCLUDE_SCHEMA": False,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "COMPONENT_SPLIT_REQUEST": True,
}

# --- Security in production (manage.py check --deploy) ------------------------------------------------
if PRODUCTION:
    SECURE_SSL_REDIRECT = env.bool("DJANGO_SECURE_SSL_REDIRECT", default=True)
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    SECURE_HSTS_SECONDS = env.int("DJANGO_SECURE_HSTS_SECONDS", default=31536000)
    SECURE_HSTS_INCLUDE_SUBDOMAINS = True
    SECURE_HSTS_PRELOAD = True
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SESSION_COOKIE_SAMESITE = "Lax"
    CSRF_COOKIE_SAMESITE = "Lax"
SESSION_COOKIE_HTTPONLY = True
X_FRAME_OPTIONS = "DENY"
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s %(message)s"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain"}},
    "root": {"handlers": ["console"], "level": env.str("LOG_LEVEL", default="INFO")},
}
