"""The WSGI app gunicorn serves: Superset's own app, provisioned once per metadata database before the
first request (the manifest file says it was), so one process loads Superset once."""

import json
import os

from superset.app import create_app

from provision import provision

app = create_app()

_home = os.environ["EMBED_SUPERSET_HOME"]
_provisioned = os.path.join(_home, "provisioned.json")
if not os.path.exists(_provisioned):
    with app.app_context():
        _users = json.loads(os.environ["EMBED_SUPERSET_USERS"])
        _allowed = [d for d in os.environ.get("EMBED_SUPERSET_ALLOWED_DOMAINS", "").split(",") if d]
        _restricted = [d for d in os.environ.get("EMBED_SUPERSET_RESTRICTED_DOMAINS", "").split(",") if d]
        _manifest = provision(_home, _users, _allowed, _restricted)
    with open(_provisioned + ".tmp", "w", encoding="utf-8") as out:
        json.dump(_manifest, out)
    os.replace(_provisioned + ".tmp", _provisioned)
