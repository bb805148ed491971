#!/usr/bin/env bash
# tests/cli/t_query_limits.sh again, on a fresh PostgreSQL database of the test server (skips visibly without it).
exec bash "$(dirname "$0")/../pg_rerun.sh" tests/cli/t_query_limits.sh
