/* traza aggregate TRACE [--slices N] [--model M] [--p P | --list-p] */
#include "cli/analysis_cli.h"

const char cmd_aggregate_usage[] =
    "usage: traza aggregate TRACE [--slices N] [--model M] [--p P | --list-p] [--producers SET]\n"
    "                       [FILTERS] [--normalize] [--spatial] [--svg FILE] [--json]\n"
    "                       [--micro-out FILE] [--save NAME [--replace]]\n"
    "\n"
    "Best cut partition of the time slices (FrameSoC RR-8304 section 5, Ocelotl): consecutive\n"
    "slices are aggregated into parts maximising p*gain - (1-p)*loss.\n"
    "  --model         occurrences (default), duration (state overlap), avg-duration, avg-value\n"
    "  --p P           the trade-off (default: the proposed p of the p list)\n"
    "  --list-p        the meaningful p values, one per distinct partition, by bisection\n"
    "  --threshold T   bisection threshold (default 0.001)\n"
    "  --producers S   only the producers of a saved producer set, group or event set\n"
    "  --from T, --to T  the window the slices span (default: the whole trace); with\n"
    "                  --during too, the slices still span it\n"
    "  --spatial       spatio-temporal: a part is a producer subtree over an interval\n"
    CLI_SAVE_HELP
    "  --svg FILE      parts along time with type proportions, and the gain/loss curve over p\n"
    "  --json          parts (each with its total: events, with occurrences), or with --list-p {\"p_list\": [{\"p\", \"gain\", \"loss\", \"parts\"}, ...]}\n"
    "  --micro-out FILE  the values aggregated (after --normalize): \"slices N series S\", then per\n"
    "                  series its producer id, type id and N values (to check another implementation)\n"
    "Filters (as traza query takes them; see traza query --help):\n"
    "  --type NAME, --producer P, --subtree, --category C, --where 'PARAM OP VAL',\n"
    "  --regex 'COL~RE', --set RESULT (an event set, a group or a producer set),\n"
    "  --during RESULT (the slices still span the window)\n"
    "                  only the events they keep are aggregated; the default name of the\n"
    "                  result carries them (aggregate:MODEL:N[:SET][:regex=...]), so a\n"
    "                  filtered run never replaces another's result\n";

int cmd_aggregate(traza_cli *cli, int argc, char **argv) { return cli_run_analysis(cli, "aggregate", "aggregate", argc, argv); }
