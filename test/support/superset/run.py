"""Runs the project's real Apache Superset 6.1.0 for tests and the demo, on 127.0.0.1, until SIGTERM.

    <venv>/bin/python run.py serve --home DIR [--port N] [--allowed-domain URL]... [--restricted-domain URL]...
    <venv>/bin/python run.py template          # only make the migrated template (CI does it early)

`serve` prints `superset manifest {json}` then `superset listening on http://127.0.0.1:PORT` once
Superset answers /health with everything provisioned; it exits non-zero, with the end of Superset's
log, if that does not happen within EMBED_SUPERSET_START_TIMEOUT seconds (default 240).

Each run has its own directory (--home, made and removed by the caller): the metadata database is a
copy of a template migrated once per venv and configuration (`superset db upgrade` + `superset init`
take ~25 s; a copy takes milliseconds, and the copy is the same database those commands leave), the
customers' SQLite data, the secrets, Superset's log. The same --home started again reuses all of it
(a restart of the same server, as the recovery tests need).

The `superset` CLI is not used: the Python API in an app context does what `superset db upgrade`
and `superset init` do (superset/cli/main.py: add_permissions + sync_role_definitions).
"""

import argparse
import fcntl
import hashlib
import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
CONFIG = os.path.join(HERE, "superset_config.py")
# Bumped when what the template holds changes in a way the config file's bytes do not show.
TEMPLATE_VERSION = "1"
SUPERSET_VERSION = "6.1.0"


def _env(home: str, extra: dict | None = None) -> dict:
    env = {
        **os.environ,
        "SUPERSET_CONFIG_PATH": CONFIG,
        "EMBED_SUPERSET_HOME": home,
        "PYTHONPATH": HERE,
        # superset/config.py reads SUPERSET_HOME for its default DATA_DIR (ours overrides it).
        "SUPERSET_HOME": home,
        "PYTHONUNBUFFERED": "1",
    }
    env.setdefault("SUPERSET_SECRET_KEY", "template-only-" + secrets.token_hex(16))
    env.setdefault("EMBED_SUPERSET_GUEST_SECRET", "template-only")
    env.setdefault("EMBED_SUPERSET_AUDIENCE", "template-only")
    return {**env, **(extra or {})}


def template_path() -> str:
    with open(CONFIG, "rb") as config:
        key = hashlib.sha256(config.read() + TEMPLATE_VERSION.encode() + SUPERSET_VERSION.encode()).hexdigest()[:16]
    return os.path.join(sys.prefix, "embed-templates", f"metadata-{key}.db")


def ensure_template() -> str:
    """The migrated, initialised metadata database for this venv and config; made once, under a lock."""
    path = template_path()
    if os.path.exists(path):
        return path
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path + ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if os.path.exists(path):
            return path
        work = tempfile.mkdtemp(prefix="embed-superset-template-")
        try:
            started = time.monotonic()
            result = subprocess.run(
                [sys.executable, __file__, "_migrate"],
                env=_env(work),
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                timeout=600,
            )
            if result.returncode != 0:
                sys.stderr.write(result.stdout.decode(errors="replace")[-4000:])
                raise SystemExit(f"superset: making the metadata template failed ({result.returncode})")
            shutil.copyfile(os.path.join(work, "superset.db"), path + ".tmp")
            os.replace(path + ".tmp", path)
            print(f"superset template made in {time.monotonic() - started:.1f} s: {path}", flush=True)
        finally:
            shutil.rmtree(work, ignore_errors=True)
    return path


def _migrate() -> None:
    from superset.app import create_app

    app = create_app()
    with app.app_context():
        from flask_migrate import upgrade

        from superset import appbuilder, security_manager

        upgrade()
        appbuilder.add_permissions(update_perms=True)
        security_manager.sync_role_definitions()


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _run_secrets(home: str) -> dict:
    """The run's secrets, made on the first start of a home and reused by a restart of it."""
    path = os.path.join(home, "secrets.json")
    if os.path.exists(path):
        with open(path, encoding="utf-8") as source:
            return json.load(source)
    made = {
        "secretKey": secrets.token_hex(32),
        "guestSecret": secrets.token_urlsafe(32),
        "audience": "embedded-dashboard-tests",
        "users": {
            "admin": {"username": "embed-admin", "password": secrets.token_urlsafe(18)},
            "service": {"username": "embed-service", "password": secrets.token_urlsafe(18)},
            "viewer": {"username": "embed-viewer", "password": secrets.token_urlsafe(18)},
        },
    }
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        json.dump(made, out)
    return made


def _tail(path: str, limit: int = 6000) -> str:
    try:
        with open(path, encoding="utf-8", errors="replace") as log:
            return log.read()[-limit:]
    except OSError:
        return "(no log)"


def serve(args: argparse.Namespace) -> int:
    started = time.monotonic()
    home = os.path.abspath(args.home)
    os.makedirs(home, exist_ok=True)
    metadata = os.path.join(home, "superset.db")
    if not os.path.exists(metadata):
        shutil.copyfile(ensure_template(), metadata)
    run = _run_secrets(home)
    port = args.port or _free_port()
    url = f"http://127.0.0.1:{port}"
    lifetime = str(args.guest_token_seconds)
    log_path = os.path.join(home, "superset.log")
    env = _env(
        home,
        {
            "SUPERSET_SECRET_KEY": run["secretKey"],
            "EMBED_SUPERSET_GUEST_SECRET": run["guestSecret"],
            "EMBED_SUPERSET_AUDIENCE": run["audience"],
            "EMBED_SUPERSET_GUEST_TOKEN_SECONDS": lifetime,
            "EMBED_SUPERSET_USERS": json.dumps(run["users"]),
            "EMBED_SUPERSET_ALLOWED_DOMAINS": ",".join(args.allowed_domain),
            "EMBED_SUPERSET_RESTRICTED_DOMAINS": ",".join(args.restricted_domain or ["http://allowed.invalid"]),
        },
    )
    with open(log_path, "ab") as log:
        server = subprocess.Popen(
            [
                os.path.join(sys.prefix, "bin", "gunicorn"),
                "--workers", "1",
                "--worker-class", "gthread",
                "--threads", "8",
                "--timeout", "120",
                "--graceful-timeout", "5",
                "--bind", f"127.0.0.1:{port}",
                "--pythonpath", HERE,
                # gunicorn 23+ opens a control socket in ~/.gunicorn by default: one path for every run.
                "--no-control-socket",
                "embed_wsgi:app",
            ],
            env=env,
            cwd=home,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
        )

    def stop(*_: object) -> None:
        if server.poll() is None:
            server.terminate()
            try:
                server.wait(10)
            except subprocess.TimeoutExpired:
                server.kill()
        raise SystemExit(0)

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)

    deadline = started + args.timeout
    provisioned = os.path.join(home, "provisioned.json")
    while True:
        if server.poll() is not None:
            sys.stderr.write(_tail(log_path))
            print(f"superset: gunicorn exited with {server.returncode} before it was ready", file=sys.stderr, flush=True)
            return 1
        if time.monotonic() > deadline:
            sys.stderr.write(_tail(log_path))
            print(f"superset: not ready within {args.timeout} s", file=sys.stderr, flush=True)
            server.kill()
            return 1
        try:
            with urllib.request.urlopen(url + "/health", timeout=5) as answer:
                if answer.status == 200 and os.path.exists(provisioned):
                    break
        except OSError:
            pass
        time.sleep(0.25)

    with open(provisioned, encoding="utf-8") as source:
        manifest = json.load(source)
    manifest.update(
        {
            "url": url,
            "version": SUPERSET_VERSION,
            "home": home,
            "pid": os.getpid(),
            "startupSeconds": round(time.monotonic() - started, 1),
            "admin": run["users"]["admin"],
            "serviceAccount": run["users"]["service"],
            "viewer": run["users"]["viewer"],
            "guestToken": {"secret": run["guestSecret"], "audience": run["audience"], "lifetimeSeconds": int(lifetime), "algorithm": "HS256"},
        }
    )
    manifest_path = os.path.join(home, "manifest.json")
    fd = os.open(manifest_path + ".tmp", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        json.dump(manifest, out)
    os.replace(manifest_path + ".tmp", manifest_path)
    print(f"superset manifest {manifest_path}", flush=True)
    print(f"superset listening on {url}", flush=True)
    code = server.wait()
    print(f"superset: gunicorn exited with {code}", file=sys.stderr, flush=True)
    return code or 1


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    serve_parser = sub.add_parser("serve")
    serve_parser.add_argument("--home", required=True)
    serve_parser.add_argument("--port", type=int, default=0)
    serve_parser.add_argument("--allowed-domain", action="append", default=[], help="an origin allowed to frame the `sales` dashboard (none: any)")
    serve_parser.add_argument("--restricted-domain", action="append", help="the `restricted` dashboard's allowed origins (default http://allowed.invalid)")
    serve_parser.add_argument("--guest-token-seconds", type=int, default=int(os.environ.get("EMBED_SUPERSET_GUEST_TOKEN_SECONDS", "300")))
    serve_parser.add_argument("--timeout", type=float, default=float(os.environ.get("EMBED_SUPERSET_START_TIMEOUT", "240")))
    sub.add_parser("template")
    sub.add_parser("_migrate")
    args = parser.parse_args()
    if args.command == "template":
        print(ensure_template(), flush=True)
        return 0
    if args.command == "_migrate":
        _migrate()
        return 0
    return serve(args)


if __name__ == "__main__":
    sys.exit(main())
