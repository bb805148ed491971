#!/usr/bin/env bash
# tests/cli/kill_import.sh on a fresh PostgreSQL database of the test server (skips visibly without it).
exec bash "$(dirname "$0")/../pg_rerun.sh" tests/cli/kill_import.sh
