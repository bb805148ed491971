#!/usr/bin/env bash
# tests/analysis/t_results_input.sh again, on a fresh PostgreSQL database of the test server (skips visibly without it).
exec bash "$(dirname "$0")/../pg_rerun.sh" tests/analysis/t_results_input.sh
