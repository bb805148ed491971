/* traza seqsearch TRACE --pattern 'A,B' */
#include "cli/analysis_cli.h"

const char cmd_seqsearch_usage[] =
    "usage: traza seqsearch TRACE --pattern 'A,B[,C...]' [--per-producer] [--max-gap T] [FILTERS] [--save NAME [--replace]] [--json]\n"
    "\n"
    "Finds the instances of a sequence of event types in time order (leftmost, not\n"
    "overlapping; a new A restarts a pending instance). Instances are saved as a group\n"
    "of ordered groups (seq:PATTERN), the other events of those types as the group\n"
    "seq:PATTERN:exceptions.\n"
    "  --per-producer  match each producer's events separately\n"
    "  --max-gap T     at most T between consecutive events of an instance\n"
    "Filters (as traza query takes them): --type NAME, --producer P, --subtree, --category C,\n"
    "  --where 'PARAM OP VAL', --regex 'COL~RE', --set RESULT, --during RESULT: only the\n"
    "  events they select take part (--type: the pattern's types it keeps); the default\n"
    "  names carry them (seq:PATTERN:producer=...)\n"
    CLI_SAVE_HELP
    "  --json          {\"pattern\", \"instances\": [[ids], ...], \"exceptions\": [ids]}\n";

int cmd_seqsearch(traza_cli *cli, int argc, char **argv) { return cli_run_analysis(cli, "seqsearch", "seqsearch", argc, argv); }
