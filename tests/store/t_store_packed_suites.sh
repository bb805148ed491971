#!/usr/bin/env bash
# The command-line suites that read stores the most, run again with every import
# packed (TRAZA_STORE_LAYOUT=packed, doc/store.md "Packed events"): queries, filters,
# counts, results and the server's event API must answer as they do on rows.
. "$(dirname "$0")/../lib.sh"
if [ "${TRAZA_TEST_BACKEND:-sqlite}" != sqlite ]; then skip "suites on packed stores" "the SQLite backend only"; exit 0; fi
root=$(cd "$(dirname "$0")/../.." && pwd)
for s in cli/t_core.sh cli/t_query_limits.sh analysis/t_analysis_filter.sh server/t_event.sh; do
  # each suite's PASS/FAIL/SKIP lines, named for the layout
  TRAZA_STORE_LAYOUT=packed TRAZA_TEST_WORKSPACE= bash "$root/tests/$s" 2>&1 |
    sed -n -e "s|^PASS: |PASS: packed $s: |p" -e "s|^SKIP: |SKIP: packed $s: |p" -e "/^FAIL: /{s|^FAIL: |FAIL: packed $s: |;p;n;p}"
done
