/* traza anomaly TRACE --type T [--producer P] --metric duration|period [--rule R] */
#include "cli/analysis_cli.h"

const char cmd_anomaly_usage[] =
    "usage: traza anomaly TRACE --type T [--producer P [--subtree]] [--metric duration|period]\n"
    "                     [--rule mad|sigma|ci99] [--k K] [FILTERS] [--save NAME [--replace]] [--svg FILE] [--json]\n"
    "\n"
    "Finds the events of a series whose metric (duration of states, or period: the\n"
    "interval since the previous event) falls outside the interval of normal values:\n"
    "  mad    median +- k MAD            (robust; MAD = median |x - median|, unscaled; default)\n"
    "  sigma  mean +- k sigma            (k = 3 unless --k)\n"
    "  ci99   mean +- 3 sigma / sqrt(n)  (RT-0450's 99% confidence interval of the mean)\n"
    "  --series S   instead of --type: TYPE, TYPE@PRODUCER or a saved event set\n"
    "The anomalies are saved as an event set (default name anomalies:SERIES:METRIC),\n"
    "usable as a series by 'traza correlate'.\n"
    "Filters (as traza query takes them): --category C, --where 'PARAM OP VAL',\n"
    "  --regex 'COL~RE', --set RESULT, --during RESULT: the series keeps only the events\n"
    "  they select; the default name carries them (anomalies:SERIES:METRIC:where=...)\n"
    CLI_SAVE_HELP
    "  --svg FILE   the series over time and the metric with the interval\n"
    "  --json       {\"rule\": ..., \"interval\": [lo, hi], \"anomalies\": [{\"id\", \"ts\", \"value\"}, ...]}\n";

int cmd_anomaly(traza_cli *cli, int argc, char **argv) { return cli_run_analysis(cli, "anomaly", "anomaly", argc, argv); }
