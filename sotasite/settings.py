"""Settings for sotasite, read once from the environment.

Local defaults are safe: an SQLite file beside the project, DEBUG off unless
asked. Production sets SOTASITE_SECRET_KEY, SOTASITE_ALLOWED_HOSTS,
DATABASE_URL and SOTASITE_PRODUCTION=1.
"""

import hashlib
import os
import tempfile
from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured
from django.utils.csp import CSP

from sotasite import keycheck
from sotasite.release import code_version

BASE_DIR = Path(__file__).resolve().parent.parent


def env_flag(name, default=False):
    value = os.environ.get(name)
    if value is None:
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


def env_list(name, default):
    value = os.environ.get(name)
    if value is None:
        return default
    return [item.strip() for item in value.split(",") if item.strip()]


PRODUCTION = env_flag("SOTASITE_PRODUCTION")
DEBUG = env_flag("SOTASITE_DEBUG")

SECRET_KEY = os.environ.get("SOTASITE_SECRET_KEY", "")
if PRODUCTION:
    if not SECRET_KEY:
        raise ImproperlyConfigured(
            "SOTASITE_SECRET_KEY must be set when SOTASITE_PRODUCTION is on."
        )
    if reason := keycheck.weakness(SECRET_KEY):
        raise ImproperlyConfigured(
            f"SOTASITE_SECRET_KEY is too weak for production: {reason}. Use at least "
            f"{keycheck.MIN_LENGTH} random characters, for example from "
            "`python -c 'import secrets; print(secrets.token_urlsafe(50))'`."
        )
elif not SECRET_KEY:
    SECRET_KEY = keycheck.LOCAL_DEFAULT

ALLOWED_HOSTS = env_list("SOTASITE_ALLOWED_HOSTS", [] if PRODUCTION else ["127.0.0.1", "localhost"])

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "django_filters",
    # For its static Swagger UI, so /api/v1/docs loads nothing from elsewhere.
    "ninja",
    "leaderboards",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "django.middleware.csp.ContentSecurityPolicyMiddleware",
    # Public pages are read-only, and no address holds a NUL: before anything reads it.
    "leaderboards.web.guards.RequestGuardMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    # Before the rest, so a cached page skips them; after the headers above,
    # which every response gets, cached or not.
    "sotasite.routers.ReadDatabaseMiddleware",
    "leaderboards.web.page_cache.PageCacheMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "sotasite.urls"

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
                "leaderboards.web.frame.frame_urls",
            ],
        },
    },
]

WSGI_APPLICATION = "sotasite.wsgi.application"

DATABASES = {
    "default": dj_database_url.config(
        default=f"sqlite:///{BASE_DIR / 'db.sqlite3'}",
        conn_max_age=int(os.environ.get("SOTASITE_CONN_MAX_AGE", "60")),
        conn_health_checks=True,
    )
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # WAL lets readers go on while a load writes; a busy timeout makes a
    # reader wait for the writer's commit instead of failing at once. The
    # connection is kept between requests like any other (CONN_MAX_AGE): each
    # autocommit read still sees the last commit, and opening the file and
    # running the pragmas on every request cut cached pages to under half the
    # requests per second (measured with gunicorn and wrk).
    DATABASES["default"]["OPTIONS"] = {
        "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
        "timeout": 20,
        "transaction_mode": "IMMEDIATE",
    }
    DATABASES["default"]["TEST"] = {"NAME": ""}

# Read replicas, comma-separated URLs; reads go to them, writes and the admin
# to the primary (sotasite/routers.py). Under test each mirrors the primary.
SOTASITE_READ_REPLICAS = []
for number, url in enumerate(env_list("DATABASE_REPLICA_URLS", []), start=1):
    alias = f"replica_{number}"
    DATABASES[alias] = dj_database_url.parse(
        url,
        conn_max_age=DATABASES["default"]["CONN_MAX_AGE"],
        conn_health_checks=True,
    )
    DATABASES[alias]["TEST"] = {"MIRROR": "default"}
    SOTASITE_READ_REPLICAS.append(alias)
DATABASE_ROUTERS = ["sotasite.routers.ReplicaRouter"]

# PostgreSQL: one process per query, and no JIT compiling. A parallel plan
# starts workers for what one process reads in tens of milliseconds, and on a
# web machine the other cores are serving other visitors: at ten times the
# archive, with a load running beside it, a broad search took 77 ms with
# workers and 47 without, and no list page was faster with them. JIT compiles
# a plan whose estimated cost passes jit_above_cost, which a broad search's
# does: 23 ms of compiling for a query that runs in 40.
for database in DATABASES.values():
    if database["ENGINE"] == "django.db.backends.postgresql":
        options = database.setdefault("OPTIONS", {})
        options["options"] = " ".join(
            filter(
                None, [options.get("options"), "-c max_parallel_workers_per_gather=0 -c jit=off"]
            )
        )

# Addresses in one sitemap file (leaderboards/web/sitemaps.py): the protocol's limit.
SOTASITE_SITEMAP_URLS = 50_000

# Whole pages, keyed by the versions of the data they show
# (leaderboards/upkeep/cache.py). REDIS_URL shares one cache between every worker
# of every web machine, so a page rendered once serves them all; without it,
# each process keeps its own (`make run`), or SOTASITE_PAGE_CACHE_DIR shares one
# between the workers of a machine. Entries of an old version are never read
# again and age out.
SOTASITE_PAGE_CACHE = env_flag("SOTASITE_PAGE_CACHE", True)
SOTASITE_PAGE_CACHE_TIMEOUT = int(os.environ.get("SOTASITE_PAGE_CACHE_TIMEOUT", "3600"))
# How long a browser or CDN may show a page without asking again; after that
# it revalidates with ETag / Last-Modified and usually gets a 304.
SOTASITE_PAGE_MAX_AGE = int(os.environ.get("SOTASITE_PAGE_MAX_AGE", "60"))
REDIS_URL = os.environ.get("REDIS_URL")
_page_cache_dir = os.environ.get("SOTASITE_PAGE_CACHE_DIR")


# The page cache's namespace: this release's (sotasite/release.py).
PAGE_CACHE_PREFIX = f"sotasite:{code_version(BASE_DIR)}"


def redis_page_cache(url):
    # Entries age out by their timeout; give the server a maxmemory with an LRU
    # policy so the newest pages stay when memory runs short.
    return {
        "BACKEND": "sotasite.caches.ResilientRedisCache",
        "LOCATION": url,
        "KEY_PREFIX": PAGE_CACHE_PREFIX,
    }


CACHES = {
    "default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"},
    "pages": (
        redis_page_cache(REDIS_URL)
        if REDIS_URL
        else {
            "BACKEND": "django.core.cache.backends.filebased.FileBasedCache",
            "LOCATION": _page_cache_dir,
            "KEY_PREFIX": PAGE_CACHE_PREFIX,
            "OPTIONS": {"MAX_ENTRIES": 20000},
        }
        if _page_cache_dir
        else {
            "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
            "LOCATION": "pages",
            # Entries are compressed pages, most a few kilobytes, the largest
            # about a hundred: this bounds a worker's cache near 100 MB.
            "OPTIONS": {"MAX_ENTRIES": 1000},
        }
    ),
}

# Expensive renders (a board's view built from its rows, its .json and .csv) run
# a few at a time, the rest answered 503 (leaderboards/web/limiter.py). One per
# worker, and on the machine one fewer than its cores, so cached pages keep a core.
SOTASITE_RENDERS_PER_PROCESS = int(os.environ.get("SOTASITE_RENDERS_PER_PROCESS", "1"))
SOTASITE_RENDERS_PER_MACHINE = int(
    os.environ.get("SOTASITE_RENDERS_PER_MACHINE", str(max(1, (os.cpu_count() or 2) - 1)))
)
# One directory per checkout by default, so two sites on a machine keep their own slots.
SOTASITE_RENDERS_LOCK_DIR = os.environ.get(
    "SOTASITE_RENDERS_LOCK_DIR",
    os.path.join(
        tempfile.gettempdir(),
        f"sotasite-renders-{hashlib.sha256(str(BASE_DIR).encode()).hexdigest()[:12]}",
    ),
)
# Boards of fewer rows render in milliseconds and take no slot.
SOTASITE_RENDERS_FROM_ROWS = int(os.environ.get("SOTASITE_RENDERS_FROM_ROWS", "5000"))
# One page of a board too large to keep (read by id along a kept order): two per worker.
SOTASITE_PAGE_RENDERS_PER_PROCESS = int(os.environ.get("SOTASITE_PAGE_RENDERS_PER_PROCESS", "2"))
SOTASITE_RENDERS_WAIT = float(os.environ.get("SOTASITE_RENDERS_WAIT", "5"))
SOTASITE_RENDERS_QUEUE = int(os.environ.get("SOTASITE_RENDERS_QUEUE", "2"))
SOTASITE_RENDERS_RETRY_AFTER = int(os.environ.get("SOTASITE_RENDERS_RETRY_AFTER", "5"))

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = False
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = BASE_DIR / "staticfiles"
STATICFILES_DIRS = [BASE_DIR / "static"]
# Production reads static files by their hashed names, from the manifest that
# collectstatic writes with this storage. `make run` and `make static` collect
# with it too (SOTASITE_STATIC_MANIFEST=1), so files collected there serve a
# production start: collected without it, every page answered 500 there.
STATIC_MANIFEST = PRODUCTION or env_flag("SOTASITE_STATIC_MANIFEST")
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": (
            "whitenoise.storage.CompressedManifestStaticFilesStorage"
            if STATIC_MANIFEST
            else "django.contrib.staticfiles.storage.StaticFilesStorage"
        )
    },
}

# Where `load_seeds` looks when given no path.
SEEDS_DIR = BASE_DIR / "seeds"
# The full dumps (`export_dumps`, served at /dumps/): a folder the site's user can write,
# outside the code, so a deploy never ships or erases them.
SOTASITE_DUMPS_DIR = Path(os.environ.get("SOTASITE_DUMPS_DIR", BASE_DIR / "data" / "dumps"))

SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"
# Django's own Content-Security-Policy, in every mode so that an inline
# script or style="" shows up in development, not first in production.
SECURE_CSP = {
    "default-src": [CSP.SELF],
    "script-src": [CSP.SELF],
    "style-src": [CSP.SELF],
    "img-src": [CSP.SELF, "data:"],
    "object-src": [CSP.NONE],
    "base-uri": [CSP.NONE],
    "form-action": [CSP.SELF],
    "frame-ancestors": [CSP.NONE],
}
if PRODUCTION:
    # A load balancer probes over plain HTTP; a redirect would read as down.
    SECURE_REDIRECT_EXEMPT = [r"^healthz$"]
    SECURE_SSL_REDIRECT = env_flag("SOTASITE_SSL_REDIRECT", True)
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SECURE_HSTS_SECONDS = int(os.environ.get("SOTASITE_HSTS_SECONDS", "31536000"))
    SECURE_HSTS_INCLUDE_SUBDOMAINS = True
    SECURE_HSTS_PRELOAD = True
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True

# Each line says when, how bad, which logger and where in the code; secrets
# (the key, database passwords) are replaced before any handler writes.
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "filters": {"redact_secrets": {"()": "sotasite.logfilters.RedactSecrets"}},
    "formatters": {
        "where": {
            "format": "%(asctime)s %(levelname)s %(name)s %(pathname)s:%(lineno)d %(message)s"
        }
    },
    "handlers": {
        "console": {
            "class": "logging.StreamHandler",
            "formatter": "where",
            "filters": ["redact_secrets"],
        }
    },
    "root": {"handlers": ["console"], "level": "WARNING"},
}

# Editors sign in at /admin/. django-axes counts failed logins and refuses
# the address, or the account, for a while after too many.
INSTALLED_APPS += ["axes"]
MIDDLEWARE += ["axes.middleware.AxesMiddleware"]
AUTHENTICATION_BACKENDS = [
    "leaderboards.admin.auth.AxesRequestBackend",
    "django.contrib.auth.backends.ModelBackend",
]
AXES_FAILURE_LIMIT = int(os.environ.get("SOTASITE_LOGIN_FAILURE_LIMIT", "5"))
AXES_COOLOFF_TIME = 1  # hours
# Counted per address and, apart, per username: guesses at one account from
# many addresses reach the limit, and so do guesses at another account between
# one's own successful logins. Failures age out after the cool-off rather than
# being cleared by a success: clearing them by address forgave every guess made
# from it, whichever account they were aimed at.
AXES_LOCKOUT_PARAMETERS = ["ip_address", "username"]
AXES_RESET_ON_SUCCESS = False
# How many proxies of ours stand before the app; their X-Forwarded-For names the client.
SOTASITE_PROXY_COUNT = int(os.environ.get("SOTASITE_PROXY_COUNT", "0"))

# Visitors' suggestions (leaderboards/suggestions.py): how many one address,
# and everyone together, may send in an hour, and how large one may be.
SOTASITE_SUGGESTIONS_PER_ADDRESS = int(os.environ.get("SOTASITE_SUGGESTIONS_PER_ADDRESS", "5"))
SOTASITE_SUGGESTIONS_PER_HOUR = int(os.environ.get("SOTASITE_SUGGESTIONS_PER_HOUR", "300"))
SOTASITE_SUGGESTION_MAX_BYTES = 32 * 1024
AXES_CLIENT_IP_CALLABLE = "leaderboards.web.guards.client_address"
# Checked when editors' passwords are set (createeditor, the admin's password forms).
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
