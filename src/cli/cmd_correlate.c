/* traza correlate TRACE --series A --with B | --rank */
#include "cli/analysis_cli.h"

const char cmd_correlate_usage[] =
    "usage: traza correlate TRACE --series A --with B [--method regular|irregular] [--delta D] [--svg FILE]\n"
    "                       [--save NAME [--replace]]\n"
    "       traza correlate TRACE --series A --rank [--method M] [--top N]\n"
    "       traza correlate TRACE --anomalies-of TYPE [--producer P] --metric M [--rule R] --rank\n"
    "\n"
    "Temporal correlation (Pearson's r) of two series over the union of their spans.\n"
    "A series is TYPE, TYPE@PRODUCER or a saved event set (e.g. from 'traza anomaly').\n"
    "  regular     floor(sqrt(|A| + |B|)) equal slices, counts per slice\n"
    "  irregular   intervals within --delta (default 1% of the span) of a point of the smaller\n"
    "              series, and the rest; densities (count / length) per interval\n"
    "|r| >= 0.5 is reported as strong.\n"
    "  --save NAME --replace  the saved result's name; --replace overwrites one of that name,\n"
    "              which is otherwise an error\n"
    "  --rank      correlate A with every other (type, producer) series, best first\n"
    "  --svg FILE  both series over time and the count/density histogram\n"
    "  --json      pair: {\"series\", \"with\", \"method\", \"r\", \"strong\", \"bins\", \"delta\"};\n"
    "              rank: {\"ranking\": [{\"type\", \"producer\", \"r\"}, ...]}\n";

int cmd_correlate(traza_cli *cli, int argc, char **argv) { return cli_run_analysis(cli, "correlate", "correlate", argc, argv); }
