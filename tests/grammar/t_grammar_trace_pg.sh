#!/usr/bin/env bash
# tests/grammar/t_grammar_trace.sh again, on a fresh PostgreSQL database of the test server (skips visibly without it).
exec bash "$(dirname "$0")/../pg_rerun.sh" tests/grammar/t_grammar_trace.sh
