/* traza gen: a deterministic synthetic trace, into the workspace or into a file. */
#include "cli/cli.h"
#include "cli/info_print.h"
#include "traza/gen.h"

#include <stdlib.h>
#include <string.h>

const char cmd_gen_usage[] =
    "usage: traza gen [--name N] [--events N] [--seed S] [--tree 4x8x16 | --producers N [--depth D]]\n"
    "                 [--types punctual=4,state=4,link=1,variable=1] [--params K] [--time-unit E]\n"
    "                 [--gap TICKS] [-o FILE --format csv|kptrace] [--json]\n"
    "\n"
    "Generates a synthetic trace: the same options and seed always give the same events.\n"
    "Without -o the trace goes straight into the workspace (name default 'gen');\n"
    "with -o it is written as a file that 'traza import' reads back (csv: a header naming\n"
    "the columns, no --map needed; kptrace: the KPTrace CSV layout with\n"
    "integer timestamps in the --time-unit: import it with the same --time-unit).\n"
    "\n"
    "  --events N        number of events (default 100000; suffixes k, M, G)\n"
    "  --seed S          generator seed (default 1)\n"
    "  --tree F1xF2x..   producer tree: children per node at each level (default 4x8);\n"
    "                    events are produced by the leaves\n"
    "  --producers N     about N leaf producers over --depth D levels (default depth 2)\n"
    "  --types SPEC      event types per category (default punctual=4,state=4,link=1,variable=1)\n"
    "  --params K        parameters per event, typed int, double, string, hex in turn (default 0)\n"
    "  --time-unit E     timestamps in 10^E s (default -9)\n"
    "  --gap TICKS       mean gap between event starts (default 100)\n"
    "  -o FILE           write a file instead of a trace ('-' = stdout)\n"
    "  --format F        file format: csv (default) or kptrace\n";

static int parse_count(const char *s, int64_t *out)
{
    double v;
    if (cli_parse_scaled(s, &v) < 0 || v < 0 || v > 1e12)
        return -1;
    *out = (int64_t)(v + 0.5);
    return 0;
}

int cmd_gen(traza_cli *cli, int argc, char **argv)
{
    enum { O_EVENTS = OPT_FIRST_FREE, O_SEED, O_TREE, O_PRODUCERS, O_DEPTH, O_TYPES, O_PARAMS, O_UNIT, O_GAP, O_FORMAT, O_NAME };
    static const struct option longopts[] = {
        CLI_COMMON_LONGOPTS,
        {"events", required_argument, NULL, O_EVENTS},
        {"seed", required_argument, NULL, O_SEED},
        {"tree", required_argument, NULL, O_TREE},
        {"producers", required_argument, NULL, O_PRODUCERS},
        {"depth", required_argument, NULL, O_DEPTH},
        {"types", required_argument, NULL, O_TYPES},
        {"params", required_argument, NULL, O_PARAMS},
        {"time-unit", required_argument, NULL, O_UNIT},
        {"gap", required_argument, NULL, O_GAP},
        {"format", required_argument, NULL, O_FORMAT},
        {"name", required_argument, NULL, O_NAME},
        {"output", required_argument, NULL, 'o'},
        {NULL, 0, NULL, 0},
    };
    traza_gen_opts o;
    traza_gen_opts_init(&o);
    traza_err err;
    traza_err_clear(&err);
    const char *out = NULL, *format = "csv", *name = "gen", *tree = NULL;
    int64_t producers = -1, depth = 2;
    int c;
    while ((c = cli_getopt(cli, argc, argv, ":hqw:o:n:", longopts)) != -1) {
        int64_t v;
        char *end;
        switch (c) {
        case O_EVENTS:
            if (parse_count(optarg, &o.events) < 0)
                return cli_usage_error("gen", "--events expects a count like 1000000 or 10M, got '%s'", optarg);
            break;
        case O_SEED:
            o.seed = strtoull(optarg, &end, 0);
            if (*end || !*optarg)
                return cli_usage_error("gen", "--seed expects a number, got '%s'", optarg);
            break;
        case O_TREE: tree = optarg; break;
        case O_PRODUCERS:
            if (parse_count(optarg, &producers) < 0)
                return cli_usage_error("gen", "--producers expects a count, got '%s'", optarg);
            break;
        case O_DEPTH:
            depth = strtol(optarg, &end, 10);
            if (*end || depth < 1 || depth > TRAZA_GEN_MAX_DEPTH)
                return cli_usage_error("gen", "--depth expects 1..%d, got '%s'", TRAZA_GEN_MAX_DEPTH, optarg);
            break;
        case O_TYPES:
            if (traza_gen_parse_types(&o, optarg, &err) < 0)
                return cli_usage_error("gen", "--types: %s", err.msg);
            break;
        case O_PARAMS:
            v = strtol(optarg, &end, 10);
            if (*end || v < 0 || v > 64)
                return cli_usage_error("gen", "--params expects 0..64, got '%s'", optarg);
            o.params = (int)v;
            break;
        case O_UNIT:
            v = strtol(optarg, &end, 10);
            if (*end || v < -18 || v > 3)
                return cli_usage_error("gen", "--time-unit expects an exponent from -18 to 3, got '%s'", optarg);
            o.time_unit = (int)v;
            break;
        case O_GAP:
            if (parse_count(optarg, &o.mean_gap) < 0 || o.mean_gap < 1)
                return cli_usage_error("gen", "--gap expects a positive number of ticks, got '%s'", optarg);
            break;
        case O_FORMAT: format = optarg; break;
        case 'n':
        case O_NAME: name = optarg; break;
        case 'o': out = optarg; break;
        default: {
            int r = cli_common_opt(cli, "gen", c);
            if (r == -1) return EXIT_OK;
            if (r <= 0) return EXIT_USAGE;
        }
        }
    }
    if (optind != argc)
        return cli_usage_error("gen", "unexpected argument '%s'", argv[optind]);
    if (tree && producers >= 0)
        return cli_usage_error("gen", "give either --tree or --producers, not both");
    if (tree && traza_gen_parse_tree(&o, tree, &err) < 0)
        return cli_usage_error("gen", "--tree: %s", err.msg);
    if (producers >= 0 && traza_gen_set_producers(&o, producers, (int)depth, &err) < 0)
        return cli_usage_error("gen", "--producers, --depth: %s", err.msg);
    if (strcmp(format, "csv") && strcmp(format, "kptrace"))
        return cli_usage_error("gen", "--format expects csv or kptrace, got '%s'", format);
    if (out) {
        if (!strcmp(out, "-") && cli_no_json(cli, "gen", "gen -o - (it writes the trace)"))
            return EXIT_USAGE;
        if (traza_gen_file(out, format, &o, &err) < 0)
            return cli_fail(cli, &err);
        if (cli->json) {
            tz_buf b;
            tz_buf_init(&b);
            tz_buf_puts(&b, "{\"output\":");
            tz_json_str(&b, out);
            tz_buf_printf(&b, ",\"format\":\"%s\",\"events\":%lld}\n", format, (long long)o.events);
            fputs(b.s ? b.s : "", stdout);
            tz_buf_free(&b);
        } else if (!cli->quiet && strcmp(out, "-")) {
            fprintf(stderr, "wrote %lld events to %s (%s)\n", (long long)o.events, out, format);
        }
        return EXIT_OK;
    }
    traza_workspace *ws = cli_ws(cli);
    if (!ws)
        return EXIT_FAIL;
    traza_trace_info info;
    if (traza_gen_store(ws, name, &o, &info, &err) < 0)
        return cli_fail_new_trace(cli, &err);
    cli_print_new_trace(cli, "generated", &info);
    traza_trace_info_clear(&info);
    return EXIT_OK;
}
