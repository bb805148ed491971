#!/usr/bin/env bash
# t_event.sh (/api/event, the stats rule) on a PostgreSQL workspace.
exec bash "$(dirname "$0")/../pg_rerun.sh" "$(dirname "$0")/t_event.sh"
