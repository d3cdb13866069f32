#!/bin/sh
# Creates (first start) or updates (later releases) Temporal's two PostgreSQL databases with the schema tool of the
# admin-tools image that matches the server image, and creates FerretDB's database. Safe to run again: existing
# databases and schemas are kept.
set -eu
tool() { temporal-sql-tool --plugin postgres12 --ep postgresql -p 5432 -u temporal --pw temporal "$@"; }
# ferretdb: the database FerretDB keeps Agio's store in (docker-compose.yml's ferretdb service).
for db in temporal temporal_visibility ferretdb; do
  tool --db "$db" create 2>/dev/null || echo "database $db exists"
done
tool --db temporal setup-schema -v 0.0 2>/dev/null || echo "schema of temporal exists"
tool --db temporal update-schema -d /etc/temporal/schema/postgresql/v12/temporal/versioned
tool --db temporal_visibility setup-schema -v 0.0 2>/dev/null || echo "schema of temporal_visibility exists"
tool --db temporal_visibility update-schema -d /etc/temporal/schema/postgresql/v12/visibility/versioned
