/* Printing of ITFComp statistics. */
#include "cli/itf_print.h"
#include "util/util.h"

static const char *const BACKENDS[] = {"xz", "zstd", "none"};

void itf_print_info(FILE *f, const traza_itf_info *i, int json)
{
    double ratio = i->file_size ? (double)i->original_size / (double)i->file_size : 0;
    double ho = i->cache_accesses ? (double)i->cache_hits_orig / (double)i->cache_accesses : 0;
    double hl = i->cache_accesses ? (double)i->cache_hits_lossy / (double)i->cache_accesses : 0;
    double alt = i->addresses ? (double)i->altered / (double)i->addresses : 0;
    const char *be = i->backend >= 0 && i->backend <= 2 ? BACKENDS[i->backend] : "?";
    if (json) {
        tz_buf b;
        tz_buf_init(&b);
        tz_buf_printf(&b, "{\"version\":%u,\"dialect\":\"%s\",\"model\":\"%s\",\"backend\":\"%s\",\"lossy\":%s,",
                      i->version, traza_itf_dialect_name(i->dialect), i->model ? "lines" : "blocks", be,
                      i->lossy ? "true" : "false");
        tz_buf_printf(&b,
                      "\"file_size\":%llu,\"original_size\":%llu,\"ratio\":%.3f,\"instructions\":%llu,\"lines\":%llu,"
                      "\"chunks\":%llu,\"blocks\":%llu,\"block_instances\":%llu,\"templates\":%llu,\"exceptions\":%llu,"
                      "\"addresses\":%llu,",
                      (unsigned long long)i->file_size, (unsigned long long)i->original_size, ratio,
                      (unsigned long long)i->instructions, (unsigned long long)i->lines,
                      (unsigned long long)i->chunks, (unsigned long long)i->blocks,
                      (unsigned long long)i->block_instances, (unsigned long long)i->templates,
                      (unsigned long long)i->exceptions, (unsigned long long)i->addresses);
        tz_buf_puts(&b, "\"components\":{");
        for (int k = 0; k < TRAZA_ITF_NCOMP; k++)
            tz_buf_printf(&b, "%s\"%s\":{\"bytes\":%llu,\"raw_bytes\":%llu}", k ? "," : "",
                          traza_itf_component_name(k), (unsigned long long)i->comp_bytes[k],
                          (unsigned long long)i->raw_bytes[k]);
        tz_buf_puts(&b, "},\"codecs\":{");
        for (int k = 1; k < TRAZA_ITF_MEM_NCODECS; k++)
            tz_buf_printf(&b, "%s\"%s\":%llu", k > 1 ? "," : "", traza_itf_memcodec_name(k),
                          (unsigned long long)i->codec_insns[k]);
        tz_buf_printf(&b, "},\"lossy_report\":{\"altered\":%llu,\"altered_share\":%.6f,\"cache_accesses\":%llu,"
                          "\"hit_rate_original\":%.6f,\"hit_rate_lossy\":%.6f,\"hit_rate_diff\":%.6f}}\n",
                      (unsigned long long)i->altered, alt, (unsigned long long)i->cache_accesses, ho, hl, hl - ho);
        fputs(b.s ? b.s : "", f);
        tz_buf_free(&b);
        return;
    }
    fprintf(f, "dialect        %s (%s model), backend %s, %s\n", traza_itf_dialect_name(i->dialect),
            i->model ? "line" : "block", be, i->lossy ? "LOSSY" : "lossless");
    fprintf(f, "size           %llu bytes from %llu (%.1fx)\n", (unsigned long long)i->file_size,
            (unsigned long long)i->original_size, ratio);
    fprintf(f, "instructions   %llu in %llu lines, %llu chunks\n", (unsigned long long)i->instructions,
            (unsigned long long)i->lines, (unsigned long long)i->chunks);
    if (!i->model)
        fprintf(f, "blocks         %llu distinct, %llu instances; %llu instruction templates, %llu verbatim lines\n",
                (unsigned long long)i->blocks, (unsigned long long)i->block_instances,
                (unsigned long long)i->templates, (unsigned long long)i->exceptions);
    else
        fprintf(f, "skeletons      %llu\n", (unsigned long long)i->templates);
    fprintf(f, "%-20s %12s %12s\n", "component", "bytes", "raw bytes");
    for (int k = 0; k < TRAZA_ITF_NCOMP; k++)
        if (i->comp_bytes[k] || i->raw_bytes[k])
            fprintf(f, "%-20s %12llu %12llu\n", traza_itf_component_name(k), (unsigned long long)i->comp_bytes[k],
                    (unsigned long long)i->raw_bytes[k]);
    if (i->addresses) {
        fprintf(f, "address codecs (instruction x chunk):");
        for (int k = 1; k < TRAZA_ITF_MEM_NCODECS; k++)
            if (i->codec_insns[k])
                fprintf(f, " %s=%llu", traza_itf_memcodec_name(k), (unsigned long long)i->codec_insns[k]);
        fprintf(f, "\n");
    }
    if (i->lossy)
        fprintf(f, "lossy          %llu of %llu addresses altered (%.2f%%); cache hit rate %.4f -> %.4f (diff %+.4f)\n",
                (unsigned long long)i->altered, (unsigned long long)i->addresses, 100 * alt, ho, hl, hl - ho);
}
