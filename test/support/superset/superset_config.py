"""The project's configuration of the real Apache Superset 6.1.0 that the tests and the demo run.

Superset reads it through SUPERSET_CONFIG_PATH (superset/config.py, at its end). Everything that
differs per run comes from the environment, set by test/support/superset/run.py:

- EMBED_SUPERSET_HOME: the run's own directory (metadata database, logs); removed after the run.
- SUPERSET_SECRET_KEY: Flask's session/CSRF signing key, random per run.
- EMBED_SUPERSET_GUEST_SECRET / EMBED_SUPERSET_AUDIENCE: the guest tokens' HS256 secret and `aud`.
- EMBED_SUPERSET_FRAME_ANCESTORS: who may frame the embedded page (CSP frame-ancestors).

Values read off the installed sources: superset/config.py (defaults), superset/security/manager.py
(guest tokens), superset/initialization/__init__.py (Talisman), flask_talisman/talisman.py.
"""

import os

DATA_DIR = os.environ["EMBED_SUPERSET_HOME"]
SECRET_KEY = os.environ["SUPERSET_SECRET_KEY"]

# The metadata database: SQLite in the run's directory (a copy of the migrated template).
SQLALCHEMY_DATABASE_URI = f"sqlite:///{os.path.join(DATA_DIR, 'superset.db')}?check_same_thread=false"
SQLALCHEMY_EXAMPLES_URI = SQLALCHEMY_DATABASE_URI
# The customers' data is a SQLite file too; Superset refuses SQLite sources unless this is off.
PREVENT_UNSAFE_DB_CONNECTIONS = False

FEATURE_FLAGS = {"EMBEDDED_SUPERSET": True}

# Guest tokens: the role a guest user gets, the HS256 secret and audience (checked on every request).
GUEST_ROLE_NAME = "EmbedGuest"
GUEST_TOKEN_JWT_SECRET = os.environ["EMBED_SUPERSET_GUEST_SECRET"]
GUEST_TOKEN_JWT_ALGO = "HS256"
GUEST_TOKEN_JWT_AUDIENCE = os.environ["EMBED_SUPERSET_AUDIENCE"]
GUEST_TOKEN_JWT_EXP_SECONDS = int(os.environ.get("EMBED_SUPERSET_GUEST_TOKEN_SECONDS", "300"))

# Anonymous visitors get nothing (the Public role stays empty).
PUBLIC_ROLE_LIKE = None

# The tests log the service account in many times per run: Flask-AppBuilder's login limit (5 per
# second) would turn a fast test run into 429s that say nothing about the toolkit.
AUTH_RATE_LIMITED = False
RATELIMIT_ENABLED = False

# The embedded page is framed by the test pages (other ports of 127.0.0.1, the demo): CSP
# frame-ancestors says who may, and X-Frame-Options (Talisman's SAMEORIGIN by default) is off
# because it would forbid every cross-origin frame whatever the CSP says in older engines.
_FRAME_ANCESTORS = os.environ.get("EMBED_SUPERSET_FRAME_ANCESTORS", "'self' http://127.0.0.1:* http://localhost:*").split()
TALISMAN_ENABLED = True
TALISMAN_CONFIG = {
    "content_security_policy": {
        "base-uri": ["'self'"],
        "default-src": ["'self'"],
        "img-src": ["'self'", "blob:", "data:"],
        "worker-src": ["'self'", "blob:"],
        "connect-src": ["'self'"],
        "object-src": "'none'",
        "style-src": ["'self'", "'unsafe-inline'"],
        "font-src": ["'self'", "data:"],
        "script-src": ["'self'", "'strict-dynamic'"],
        "frame-ancestors": _FRAME_ANCESTORS,
    },
    "content_security_policy_nonce_in": ["script-src"],
    "frame_options": None,
    "force_https": False,
    "session_cookie_secure": False,
}
CONTENT_SECURITY_POLICY_WARNING = False

# No background workers, no telemetry, no outbound calls from a test machine.
SCHEDULED_QUERIES = {}
THUMBNAIL_CACHE_CONFIG = {"CACHE_TYPE": "NullCache"}
# Chart data is cached per query and RLS clause (superset/security/manager.py get_rls_cache_key);
# a cache of its own per process keeps runs independent.
DATA_CACHE_CONFIG = {"CACHE_TYPE": "SimpleCache", "CACHE_DEFAULT_TIMEOUT": 60}
LOG_LEVEL = os.environ.get("EMBED_SUPERSET_LOG_LEVEL", "WARNING")
SCARF_ANALYTICS = False
