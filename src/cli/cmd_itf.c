/* traza itf compress|decompress|extract|stats: ITFComp for ARM instruction traces. */
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "cli/cli.h"
#include "cli/itf_print.h"
#include "traza/itf.h"
#include "util/util.h"

const char cmd_itf_usage[] =
    "usage: traza itf compress IN -o OUT.tzi [--mem auto|raw|periodic|pattern|distribution|sequitur]\n"
    "                          [--backend auto|xz|zstd|none] [--lossy] [--chunk N] [--threads N] [--json]\n"
    "       traza itf decompress FILE.tzi [-o OUT] [--threads N] [--render-min-lines N]\n"
    "       traza itf extract FILE.tzi --from I --count N [-o OUT]\n"
    "       traza itf stats FILE.tzi [--json]\n"
    "\n"
    "ITFComp: compresses ARM instruction trace files (the generated `0x.. disasm mem=0x..\n"
    "CCFAIL` ITF, the ITFComp paper's text ITF, Arm Tarmac from Fast Models, ES/LD/ST Rev 3t\n"
    "and gem5; the dialect is detected) into .tzi, lossless and byte-exact by default.\n"
    "IN may be xz, zstd or gzip compressed; '-' reads standard input. stats checks the\n"
    "CRC-32 of every chunk before it reports (a damaged file is an error).\n"
    "  -o FILE          output file (decompress/extract default: standard output)\n"
    "  --mem C          address codec per instruction: auto (default) picks periodic,\n"
    "                   pattern or raw; distribution is lossy; sequitur falls back to raw\n"
    "  --backend B      entropy coder for the streams: auto (default: xz for the\n"
    "                   generated and the paper's ITF, zstd -7 for Tarmac and other\n"
    "                   text), xz (smallest),\n"
    "                   zstd (level 19) or none\n"
    "  --lossy          allow lossy codecs; stats then reports altered addresses and the\n"
    "                   hit-rate change of a 32 KiB 4-way 64 B LRU cache\n"
    "  --chunk N        instructions per independently decodable chunk (default\n"
    "                   1048576 for the generated and the paper's ITF, 262144 for the\n"
    "                   others)\n"
    "  --threads N      decompress: chunks decoded on N threads; compress: N > 1 models\n"
    "                   and writes each chunk on a second thread while the next one is\n"
    "                   parsed (default: the number of online CPUs; the output is the\n"
    "                   same for any N)\n"
    "  --render-min-lines N  decompress, N threads > 1: a Tarmac chunk of at least N\n"
    "                   lines is rendered on a second thread while the first decodes it\n"
    "                   (default 262144: on smaller chunks the thread was measured to\n"
    "                   cost more than it saves)\n"
    "  --from I --count N  extract instructions [I, I+N) (0-based) without decoding the file\n"
    "  --json           machine-readable statistics\n";

enum { O_MEM = OPT_FIRST_FREE, O_BACKEND, O_LOSSY, O_CHUNK, O_FROM, O_COUNT, O_THREADS, O_RMIN };

static int parse_u64(const char *s, uint64_t *v)
{
    int64_t x;
    if (tz_parse_i64(s, strlen(s), &x) < 0 || x < 0)
        return -1;
    *v = (uint64_t)x;
    return 0;
}

/* The CPUs this process may run on (taskset counts), 1..64: one system call, where
 * sysconf(_SC_NPROCESSORS_ONLN) opens, reads and closes a file of /sys. */
static int cpu_count(void)
{
    cpu_set_t s;
    long n = sched_getaffinity(0, sizeof s, &s) == 0 ? CPU_COUNT(&s) : sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : n > 64 ? 64 : (int)n;
}

/* A regular file under 2 MiB that is not xz, zstd or gzip compressed: a second
 * thread costs it more than it saves. On a shared VM, where a new thread may wait a
 * millisecond for its first run, one thread is 10-17 % faster on the four Tarmac
 * samples (218-816 kB), 2-4 % on 1-2 MB ITFs, and about even on 2.4-4.8 MB of Tarmac. */
static int small_plain_file(const char *path)
{
    struct stat st;
    if (stat(path, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size >= (2 << 20))
        return 0;
    unsigned char m[6] = {0};
    FILE *f = fopen(path, "rb");
    if (!f)
        return 0;
    size_t n = fread(m, 1, sizeof m, f);
    fclose(f);
    int xz = n >= 6 && !memcmp(m, "\xfd" "7zXZ\0", 6);
    int zst = n >= 4 && m[0] == 0x28 && m[1] == 0xb5 && m[2] == 0x2f && m[3] == 0xfd;
    int gz = n >= 2 && m[0] == 0x1f && m[1] == 0x8b;
    return !xz && !zst && !gz;
}

int cmd_itf(traza_cli *cli, int argc, char **argv)
{
    if (argc < 2) {
        if (argc == 1)
            return cli_usage_error("itf", "expected a verb: compress, decompress, extract or stats");
        return EXIT_USAGE;
    }
    const char *verb = argv[1];
    if (!strcmp(verb, "-h") || !strcmp(verb, "--help") || !strcmp(verb, "help")) {
        fputs(cmd_itf_usage, stdout);
        return EXIT_OK;
    }
    int is_c = !strcmp(verb, "compress"), is_d = !strcmp(verb, "decompress"), is_x = !strcmp(verb, "extract"),
        is_s = !strcmp(verb, "stats");
    if (!is_c && !is_d && !is_x && !is_s)
        return cli_usage_error("itf", "unknown verb '%s' (compress, decompress, extract, stats)", verb);
    static const struct option longopts[] = {CLI_COMMON_LONGOPTS,
                                             {"output", required_argument, NULL, 'o'},
                                             {"mem", required_argument, NULL, O_MEM},
                                             {"backend", required_argument, NULL, O_BACKEND},
                                             {"lossy", no_argument, NULL, O_LOSSY},
                                             {"chunk", required_argument, NULL, O_CHUNK},
                                             {"from", required_argument, NULL, O_FROM},
                                             {"count", required_argument, NULL, O_COUNT},
                                             {"threads", required_argument, NULL, O_THREADS},
                                             {"render-min-lines", required_argument, NULL, O_RMIN},
                                             {NULL, 0, NULL, 0}};
    traza_itf_opts o;
    traza_itf_opts_init(&o);
    const char *out = NULL;
    uint64_t from = 0, count = 0, rmin = TRAZA_ITF_RENDER_MIN_LINES;
    int have_from = 0, have_count = 0;
    int threads = cpu_count(), threads_given = 0;
    optind = 1;
    int c;
    argc--;
    argv++;
    while ((c = cli_getopt(cli, argc, argv, ":hqw:o:", longopts)) != -1) {
        switch (c) {
        case 'o': out = optarg; break;
        case O_MEM: {
            int k;
            for (k = 0; k < TRAZA_ITF_MEM_NCODECS; k++)
                if (!strcmp(optarg, traza_itf_memcodec_name(k)))
                    break;
            if (k == TRAZA_ITF_MEM_NCODECS)
                return cli_usage_error("itf", "--mem: unknown codec '%s'", optarg);
            o.mem = k;
            break;
        }
        case O_BACKEND:
            if (!strcmp(optarg, "auto")) o.backend = TRAZA_ITF_AUTO;
            else if (!strcmp(optarg, "xz")) o.backend = TRAZA_ITF_XZ;
            else if (!strcmp(optarg, "zstd")) o.backend = TRAZA_ITF_ZSTD;
            else if (!strcmp(optarg, "none")) o.backend = TRAZA_ITF_NONE;
            else return cli_usage_error("itf", "--backend: expected auto, xz, zstd or none, got '%s'", optarg);
            break;
        case O_LOSSY: o.lossy = 1; break;
        case O_CHUNK: {
            uint64_t v;
            if (parse_u64(optarg, &v) < 0 || v < 1 || v > (1u << 24))
                return cli_usage_error("itf", "--chunk: expected 1..16777216, got '%s'", optarg);
            o.chunk = (uint32_t)v;
            break;
        }
        case O_THREADS: {
            uint64_t v;
            if (parse_u64(optarg, &v) < 0 || v < 1 || v > 64)
                return cli_usage_error("itf", "--threads: expected 1..64, got '%s'", optarg);
            threads = (int)v;
            threads_given = 1;
            break;
        }
        case O_RMIN:
            if (parse_u64(optarg, &rmin) < 0)
                return cli_usage_error("itf", "--render-min-lines: expected a non-negative integer, got '%s'", optarg);
            break;
        case O_FROM:
            if (parse_u64(optarg, &from) < 0)
                return cli_usage_error("itf", "--from: expected a non-negative integer, got '%s'", optarg);
            have_from = 1;
            break;
        case O_COUNT:
            if (parse_u64(optarg, &count) < 0)
                return cli_usage_error("itf", "--count: expected a non-negative integer, got '%s'", optarg);
            have_count = 1;
            break;
        case 'h': fputs(cmd_itf_usage, stdout); return EXIT_OK;
        default: {
            int r = cli_common_opt(cli, "itf", c);
            if (r == -1) return EXIT_OK;
            if (r <= 0) return EXIT_USAGE;
        }
        }
    }
    if (optind + 1 != argc)
        return cli_usage_error("itf", "%s: expected one input file", verb);
    const char *in = argv[optind];
    traza_err err;
    traza_err_clear(&err);
    if (is_c) {
        if (!out)
            return cli_usage_error("itf", "compress: -o OUT.tzi is required");
        if (o.mem == TRAZA_ITF_MEM_DISTRIBUTION && !o.lossy)
            return cli_usage_error("itf", "--mem distribution is lossy: add --lossy");
        traza_itf_info info;
        /* A small plain input is done before a second thread pays off (see
         * small_plain_file). */
        if (!threads_given && small_plain_file(in))
            threads = 1;
        o.threads = threads;
        if (traza_itf_compress(in, out, &o, &info, &err) < 0)
            return cli_fail(cli, &err);
        if (!cli->quiet || cli->json)
            itf_print_info(stdout, &info, cli->json);
        return EXIT_OK;
    }
    if ((is_d || is_x) && cli_no_json(cli, "itf", is_d ? "decompress (the trace text)" : "extract (the trace text)"))
        return EXIT_USAGE;
    if (is_x && (!have_from || !have_count))
        return cli_usage_error("itf", "extract: --from I and --count N are required");
    traza_itf_reader *r = traza_itf_open_path(in, &err);
    if (!r)
        return cli_fail(cli, &err);
    traza_itf_set_render_min_lines(r, rmin);
    int rc = EXIT_OK;
    if (is_s) {
        if (traza_itf_check_frames(r, &err) < 0) /* the statistics of a damaged file are not shown */
            rc = cli_fail(cli, &err);
        else
            itf_print_info(stdout, traza_itf_get_info(r), cli->json);
    } else {
        /* -o OUT: a failed run (a damaged file, a full disk) leaves no partial OUT */
        cli_out co = {stdout, NULL, NULL};
        if (out && strcmp(out, "-") != 0 && cli_out_open(&co, out) < 0) {
            traza_itf_close(r);
            return EXIT_FAIL;
        }
        int k = is_d ? traza_itf_decompress_mt(r, co.f, threads, &err) : traza_itf_extract(r, from, count, co.f, &err);
        if (co.f != stdout && cli_out_close(&co, k == 0) != 0 && k == 0) {
            traza_err_set(&err, TRAZA_E_IO, "%s: write failed: %s", out, strerror(errno));
            k = -1;
        }
        if (k < 0)
            rc = cli_fail(cli, &err);
        else if (fflush(stdout) != 0)
            rc = EXIT_FAIL;
    }
    traza_itf_close(r);
    return rc;
}
