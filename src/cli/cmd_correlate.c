/* traza correlate TRACE --series A --with B | --rank */
#include "cli/analysis_cli.h"

const char cmd_correlate_usage[] =
    "usage: traza correlate TRACE --series A --with B [--method regular|irregular] [--slices S] [--delta D]\n"
    "                       [--svg FILE] [--save NAME [--replace]]\n"
    "       traza correlate TRACE --series A --rank [--method M] [--top N|all]\n"
    "       traza correlate TRACE --anomalies-of TYPE [--producer P] --metric M [--rule R] --rank\n"
    "\n"
    "Temporal correlation (Pearson's r) of two series over the union of their spans.\n"
    "A series is TYPE, TYPE@PRODUCER or a saved event set (e.g. from 'traza anomaly').\n"
    "  regular     counts per time slice; --slices auto (default: half the larger median gap\n"
    "              of the two series), paper (floor(sqrt(|A| + |B|)) equal slices) or N (2..100000)\n"
    "  irregular   intervals within --delta (default min(1% of the span, 1/4 of the median gap))\n"
    "              of a point of the smaller series, and the rest; densities per interval\n"
    "  --rule R    with --anomalies-of: mad (default), sigma or ci99; --k K, --metric M\n"
    "A constant series (r undefined) or a rule flagging most values is a warning (stderr,\n"
    "and \"warnings\" in --json).\n"
    "|r| >= 0.5 is reported as strong.\n"
    "Filters (as traza query takes them): --category C, --where 'PARAM OP VAL',\n"
    "  --regex 'COL~RE', --set RESULT, --during RESULT: every series read (A, B, the\n"
    "  anomalies' series and --rank's candidates) keeps only the events they select; the\n"
    "  default name carries them\n"
    CLI_SAVE_HELP
    "  --rank      correlate A with every other (type, producer) series, best first\n"
    "  --svg FILE  both series over time and the count/density histogram\n"
    "  --json      pair: {\"series\", \"with\", \"method\", \"r\", \"strong\", \"bins\", \"delta\"};\n"
    "              rank: {\"ranking\": [{\"type\", \"producer\", \"r\"}, ...]}\n";

int cmd_correlate(traza_cli *cli, int argc, char **argv) { return cli_run_analysis(cli, "correlate", "correlate", argc, argv); }
