#!/usr/bin/env bash
# tests/import/t_import.sh again, on a fresh PostgreSQL database of the test server (skips visibly without it).
exec bash "$(dirname "$0")/../pg_rerun.sh" tests/import/t_import.sh
