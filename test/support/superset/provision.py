"""Creates, inside a Superset app context, what the tests embed: the roles, the users, a SQLite data
source with rows for several customers, its dataset, two charts, two dashboards and their embedded
configs. Run once per metadata database (run.py copies a migrated template per run); the answer is
the manifest test/support/superset.ts reads.

Only Superset's own models and security manager are used (superset/models/*, superset/connectors/
sqla/models.py, superset/security/manager.py), as `superset shell` would.
"""

import json
import os
import sqlite3

# The customers and their rows: a few each, different sizes, so a leak of one customer's rows into
# another's answer changes a count. The ids include a quote so a clause that forgets to quote breaks.
CUSTOMERS = {
    "acme": [("north", "anvil", 120), ("south", "rocket", 300), ("north", "magnet", 45)],
    "globex": [("east", "reactor", 1000), ("west", "turbine", 250)],
    "initech": [("north", "stapler", 7), ("east", "printer", 410), ("south", "tps", 3), ("west", "mug", 12)],
    "o'hare": [("south", "ticket", 99)],
}

TABLE_COLUMNS = ["customer_id", "region", "product", "amount"]

# The guest role: Superset's own set for viewing a dashboard without editing anything
# (SupersetSecurityManager.PUBLIC_ROLE_PERMISSIONS, superset/security/manager.py), nothing more.
GUEST_ROLE = "EmbedGuest"
# The service account: the guest-token route (`can_grant_guest_token on SecurityRestApi`) and the
# CSRF token route it needs first (`can_read on SecurityRestApi`, superset/security/api.py).
SERVICE_ROLE = "EmbedService"
SERVICE_PERMISSIONS = [("can_grant_guest_token", "SecurityRestApi"), ("can_read", "SecurityRestApi")]
# A user who may fetch a CSRF token but not mint guest tokens: the route's 403.
VIEWER_ROLE = "EmbedViewer"
VIEWER_PERMISSIONS = [("can_read", "SecurityRestApi")]


def write_customer_data(path: str) -> list[dict]:
    rows = [
        {"customer_id": customer, "region": region, "product": product, "amount": amount}
        for customer, items in CUSTOMERS.items()
        for region, product, amount in items
    ]
    connection = sqlite3.connect(path)
    with connection:
        connection.execute("CREATE TABLE sales (customer_id TEXT NOT NULL, region TEXT NOT NULL, product TEXT NOT NULL, amount INTEGER NOT NULL)")
        connection.executemany(
            "INSERT INTO sales VALUES (:customer_id, :region, :product, :amount)",
            rows,
        )
    connection.close()
    return rows


def _role(security_manager, name: str, permissions, required: bool) -> tuple[object, list[str], list[str]]:
    """The role with those of `permissions` Superset has; a missing one is an error when `required`."""
    role = security_manager.add_role(name)
    granted, missing = [], []
    for permission, view in permissions:
        pv = security_manager.find_permission_view_menu(permission, view)
        if pv is None:
            if required:
                raise RuntimeError(f"Superset has no permission {permission} on {view}")
            missing.append(f"{permission} on {view}")
            continue
        security_manager.add_permission_role(role, pv)
        granted.append(f"{permission} on {view}")
    return role, granted, missing


def _chart(Slice, table, name: str, params: dict, queries: list[dict]):
    form_data = {"datasource": f"{table.id}__table", **params}
    query_context = {
        "datasource": {"id": table.id, "type": "table"},
        "force": False,
        "queries": queries,
        "form_data": form_data,
        "result_format": "json",
        "result_type": "full",
    }
    return Slice(
        slice_name=name,
        viz_type=params["viz_type"],
        datasource_type="table",
        datasource_id=table.id,
        params=json.dumps(form_data),
        query_context=json.dumps(query_context),
    )


def _layout(title: str, charts: list) -> dict:
    layout = {
        "DASHBOARD_VERSION_KEY": "v2",
        "ROOT_ID": {"type": "ROOT", "id": "ROOT_ID", "children": ["GRID_ID"]},
        "GRID_ID": {"type": "GRID", "id": "GRID_ID", "children": ["ROW-1"], "parents": ["ROOT_ID"]},
        "HEADER_ID": {"id": "HEADER_ID", "type": "HEADER", "meta": {"text": title}},
        "ROW-1": {
            "type": "ROW",
            "id": "ROW-1",
            "children": [f"CHART-{c.id}" for c in charts],
            "parents": ["ROOT_ID", "GRID_ID"],
            "meta": {"background": "BACKGROUND_TRANSPARENT"},
        },
    }
    for chart in charts:
        layout[f"CHART-{chart.id}"] = {
            "type": "CHART",
            "id": f"CHART-{chart.id}",
            "children": [],
            "parents": ["ROOT_ID", "GRID_ID", "ROW-1"],
            "meta": {"chartId": chart.id, "width": 6, "height": 50, "sliceName": chart.slice_name, "uuid": str(chart.uuid)},
        }
    return layout


def provision(home: str, users: dict, allowed_domains: list[str], restricted_domains: list[str]) -> dict:
    """Must run inside the app context. `users` holds the admin's and the service account's credentials."""
    from superset import db, security_manager
    from superset.connectors.sqla.models import SqlaTable, SqlMetric, TableColumn
    from superset.models.core import Database
    from superset.models.dashboard import Dashboard
    from superset.models.embedded_dashboard import EmbeddedDashboard
    from superset.models.slice import Slice

    data_path = os.path.join(home, "customers.db")
    rows = write_customer_data(data_path)

    # Superset's list names a view or two that 6.1.0 does not register (can_read on
    # AnnotationLayerRestApi): those are reported in the manifest, not invented.
    _, guest_granted, guest_missing = _role(security_manager, GUEST_ROLE, sorted(security_manager.PUBLIC_ROLE_PERMISSIONS), False)
    service, service_granted, _ = _role(security_manager, SERVICE_ROLE, SERVICE_PERMISSIONS, True)
    viewer, _, _ = _role(security_manager, VIEWER_ROLE, VIEWER_PERMISSIONS, True)
    admin_user = security_manager.add_user(
        users["admin"]["username"], "Embed", "Admin", "admin@embed.invalid", security_manager.find_role("Admin"), password=users["admin"]["password"]
    )
    service_user = security_manager.add_user(
        users["service"]["username"], "Embed", "Service", "service@embed.invalid", service, password=users["service"]["password"]
    )
    viewer_user = security_manager.add_user(
        users["viewer"]["username"], "Embed", "Viewer", "viewer@embed.invalid", viewer, password=users["viewer"]["password"]
    )
    if not admin_user or not service_user or not viewer_user:
        raise RuntimeError("Superset refused to create the test users")

    database = Database(database_name="customers", sqlalchemy_uri=f"sqlite:///{data_path}", expose_in_sqllab=False)
    db.session.add(database)
    db.session.flush()
    table = SqlaTable(table_name="sales", database=database, owners=[admin_user])
    table.columns = [
        TableColumn(column_name="customer_id", type="TEXT", groupby=True, filterable=True),
        TableColumn(column_name="region", type="TEXT", groupby=True, filterable=True),
        TableColumn(column_name="product", type="TEXT", groupby=True, filterable=True),
        TableColumn(column_name="amount", type="INTEGER", groupby=False, filterable=True),
    ]
    table.metrics = [
        SqlMetric(metric_name="total_amount", expression="SUM(amount)"),
        SqlMetric(metric_name="count", expression="COUNT(*)"),
    ]
    db.session.add(table)
    db.session.flush()

    rows_chart = _chart(
        Slice,
        table,
        "Sales rows",
        {"viz_type": "table", "query_mode": "raw", "all_columns": TABLE_COLUMNS, "order_by_cols": [], "row_limit": 1000, "adhoc_filters": []},
        [{"columns": TABLE_COLUMNS, "metrics": [], "orderby": [], "row_limit": 1000, "filters": [], "extras": {"having": "", "where": ""}}],
    )
    totals_chart = _chart(
        Slice,
        table,
        "Total by customer",
        {"viz_type": "table", "query_mode": "aggregate", "groupby": ["customer_id"], "metrics": ["total_amount"], "row_limit": 1000, "adhoc_filters": []},
        [{"columns": ["customer_id"], "metrics": ["total_amount"], "orderby": [], "row_limit": 1000, "filters": [], "extras": {"having": "", "where": ""}}],
    )
    for chart in (rows_chart, totals_chart):
        chart.owners = [admin_user]
        db.session.add(chart)
    db.session.flush()

    def dashboard(title: str, slug: str, domains: list[str]) -> dict:
        charts = [rows_chart, totals_chart]
        board = Dashboard(
            dashboard_title=title,
            slug=slug,
            published=True,
            slices=charts,
            owners=[admin_user],
            position_json=json.dumps(_layout(title, charts)),
            json_metadata=json.dumps({"native_filter_configuration": [], "refresh_frequency": 0, "color_scheme": "", "label_colors": {}, "expanded_slices": {}}),
        )
        db.session.add(board)
        db.session.flush()
        embedded = EmbeddedDashboard(dashboard_id=board.id, allow_domain_list=",".join(domains))
        db.session.add(embedded)
        db.session.flush()
        return {"id": board.id, "slug": slug, "uuid": str(embedded.uuid), "allowedDomains": domains}

    dashboards = {
        "sales": dashboard("Sales", "sales", allowed_domains),
        "restricted": dashboard("Sales (restricted)", "sales-restricted", restricted_domains),
    }
    db.session.commit()
    return {
        "dataPath": data_path,
        "database": {"id": database.id},
        "datasets": {"sales": {"id": table.id, "table": "sales", "columns": TABLE_COLUMNS}},
        "charts": {"rows": {"id": rows_chart.id}, "totals": {"id": totals_chart.id}},
        "dashboards": dashboards,
        "guestRole": GUEST_ROLE,
        "guestPermissions": guest_granted,
        "guestPermissionsAbsent": guest_missing,
        "serviceRole": SERVICE_ROLE,
        "servicePermissions": service_granted,
        "rows": rows,
    }
