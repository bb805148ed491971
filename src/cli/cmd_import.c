/* traza import FILE... [--format F] [--name N] [--map M] */
#include "cli/cli.h"
#include "cli/info_print.h"
#include "cli/meta_cli.h"

#include <stdlib.h>
#include <string.h>

const char cmd_import_usage[] =
    "usage: traza import FILE... [--format F] [--name N] [--map MAP] [--time-unit E] [--elf FILE]\n"
    "                    [--symbols FILE] [--timestamp-hz HZ] [--strict] [--replace] [--meta KEY=VAL]...\n"
    "                    [--layout rows|packed] [--json]\n"
    "\n"
    "Imports one or more files as one new trace. The format is detected from the\n"
    "content unless --format is given. Nothing changes in the workspace if the import\n"
    "fails.\n"
    "\n"
    "  --format F      paje, kptrace, pc, csv (see 'traza tools' for all importers)\n"
    "  --name N        the trace's name (default: the first file's name without extension)\n"
    "  --replace       a trace of that name is replaced (with its saved results) once the\n"
    "                  import succeeded, in one step: readers see the old or the new one\n"
    "  --map MAP       csv: column map, e.g. ts=0,end=1,type=4,producer=5,cpu=7\n"
    "                  (keys: ts end type producer end_producer cpu value level category\n"
    "                  param:NAME[:int|double|string|hex]; a header name may replace a number)\n"
    "  --time-unit E   timestamps are in 10^E seconds (default: the format's own)\n"
    "  --elf FILE      etm: name the function of each instruction range from this ELF\n"
    "                  program (the snapshot's own ELF memory images are read anyway);\n"
    "                  ctf: name the functions of cyg-profile calls (else by address);\n"
    "                  tarmac, itf: name the functions of the calls found\n"
    "  --symbols FILE  ctf: name the functions of cyg-profile calls from this symbol\n"
    "                  table (nm's output: ADDR TYPE NAME), before --elf\n"
    "  --timestamp-hz HZ  etm: the frequency of the trace's timestamp counter (e.g.\n"
    "                  24M, 100000000): time in seconds instead of counter ticks\n"
    "  --no-process    CTF: do not build the processed trace (kernel states, providers)\n"
    "  --strict        fail (changing nothing) rather than skip any input; without it\n"
    "                  what is skipped is counted on stderr and in 'traza info'\n"
    "  --meta KEY=VAL  set a descriptive metadata entry: board=stm32f4, os=FreeRTOS,\n"
    "                  application, description, alias or any key (see 'traza meta')\n"
    "  --layout L      how the events are stored: packed (many to a row, about a fifth of\n"
    "                  the bytes of a function trace; read through traza only) or rows (a\n"
    "                  table any SQLite tool reads). Default: packed for the tracer's dumps\n"
    "                  and uftrace recordings, rows otherwise ('traza info' says which)\n"
    "  --json          print the new trace's metadata as JSON\n";

int cmd_import(traza_cli *cli, int argc, char **argv)
{
    static const struct option longopts[] = {
        CLI_COMMON_LONGOPTS,
        {"format", required_argument, NULL, 'f'},
        {"name", required_argument, NULL, 'n'},
        {"map", required_argument, NULL, 'm'},
        {"time-unit", required_argument, NULL, 'u'},
        {"no-process", no_argument, NULL, 'P'},
        {"strict", no_argument, NULL, 'S'},
        {"replace", no_argument, NULL, 'R'},
        {"meta", required_argument, NULL, 'M'},
        {"elf", required_argument, NULL, 'E'},
        {"symbols", required_argument, NULL, 'Y'},
        {"timestamp-hz", required_argument, NULL, 'H'},
        {"layout", required_argument, NULL, 'L'},
        {NULL, 0, NULL, 0},
    };
    traza_kv meta[64], params[64];
    size_t nmeta = 0, nparams = 0;
    traza_import_opts o;
    memset(&o, 0, sizeof o);
    int c;
    while ((c = cli_getopt(cli, argc, argv, ":hqw:f:n:m:u:", longopts)) != -1) {
        switch (c) {
        case 'f': o.format = optarg; break;
        case 'n': o.name = optarg; break;
        case 'P': o.no_postprocess = 1; break;
        case 'S': o.strict = 1; break;
        case 'R': o.replace = 1; break;
        case 'E': o.elf = optarg; break;
        case 'Y': o.symbols = optarg; break;
        case 'L': {
            int l = traza_layout_parse(optarg);
            if (l < 0)
                return cli_usage_error("import", "--layout expects rows or packed, got '%s'", optarg);
            o.layout = l;
            break;
        }
        case 'H': {
            double v;
            if (cli_parse_scaled(optarg, &v) < 0 || !(v > 0) || v > 1e15)
                return cli_usage_error("import", "--timestamp-hz expects a frequency in hertz (e.g. 24M, 100000000), got '%s'",
                                       optarg);
            o.timestamp_hz = v;
            break;
        }
        case 'm': o.map = optarg; break;
        case 'M': {
            if (nmeta == sizeof meta / sizeof *meta)
                return cli_usage_error("import", "at most %zu --meta options", sizeof meta / sizeof *meta);
            int r = cli_meta_arg("import", optarg, &meta[nmeta++]);
            if (r)
                return r;
            break;
        }
        case 'u': {
            char *end;
            long v = strtol(optarg, &end, 10);
            if (*end || v < -18 || v > 3)
                return cli_usage_error("import", "--time-unit expects an exponent from -18 to 3, got '%s'", optarg);
            o.time_unit = (int)v;
            o.has_time_unit = 1;
            break;
        }
        default: {
            int r = cli_common_opt(cli, "import", c);
            if (r == -1) return EXIT_OK;
            if (r <= 0) return EXIT_USAGE;
        }
        }
    }
    if (optind >= argc)
        return cli_usage_error("import", "no file given");
    /* the entries other than the alias (a column of the catalogue) come with the trace,
     * in the commit that publishes it */
    size_t kept = 0;
    for (size_t i = 0; i < nmeta; i++) {
        if (strcmp(meta[i].key, "alias") == 0)
            meta[kept++] = meta[i];
        else
            params[nparams++] = meta[i];
    }
    nmeta = kept;
    o.params = params;
    o.nparams = nparams;
    traza_workspace *ws = cli_ws(cli);
    if (!ws)
        return EXIT_FAIL;
    traza_err err;
    traza_err_clear(&err);
    traza_trace_info info;
    if (traza_import(ws, (const char *const *)argv + optind, (size_t)(argc - optind), &o, &info, &err) < 0)
        return cli_fail_new_trace(cli, &err);
    if (nmeta) {
        char id[32];
        snprintf(id, sizeof id, "%lld", (long long)info.id);
        traza_trace_info now;
        if (traza_workspace_set_meta(ws, id, meta, nmeta, &err) < 0 || traza_workspace_find(ws, id, &now, &err) < 0) {
            traza_err_prefix(&err, "trace '%s' imported, but its metadata is not set: ", info.name);
            traza_trace_info_clear(&info);
            return cli_fail(cli, &err);
        }
        traza_trace_info_clear(&info);
        info = now;
    }
    cli_print_new_trace(cli, "imported", &info);
    if (!cli->json) {
        /* Importers may derive a processed trace (e.g. LTTng kernel CTF): name it. */
        char id[32];
        snprintf(id, sizeof id, "%lld", (long long)info.id);
        traza_trace *t = traza_trace_open(ws, id, TRAZA_OPEN_READ, &err);
        traza_result_info r;
        if (t && traza_result_find(t, "processed", &r, &err) == 0) {
            printf("processed trace '%s' (result 'processed' of '%s')\n", r.target ? r.target : "?", info.name);
            traza_result_info_clear(&r);
        }
        if (t)
            traza_trace_close(t);
    }
    traza_trace_info_clear(&info);
    return EXIT_OK;
}
