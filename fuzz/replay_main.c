/* Runs a libFuzzer harness (LLVMFuzzerTestOneInput) over files or directories of
 * inputs without libFuzzer, so `make test` replays every seed corpus under the
 * sanitizers with gcc. `make fuzz` builds the real fuzzers with clang. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int run_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "%s: cannot open\n", path);
        return -1;
    }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *buf = malloc(n > 0 ? (size_t)n : 1);
    if (!buf || (n > 0 && fread(buf, 1, (size_t)n, f) != (size_t)n)) {
        fclose(f);
        free(buf);
        return -1;
    }
    fclose(f);
    LLVMFuzzerTestOneInput(buf, (size_t)(n > 0 ? n : 0));
    free(buf);
    return 0;
}

int main(int argc, char **argv)
{
    int files = 0;
    for (int i = 1; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) < 0)
            return 1;
        if (S_ISDIR(st.st_mode)) {
            struct dirent **list;
            int n = scandir(argv[i], &list, NULL, alphasort);
            for (int k = 0; k < n; k++) {
                if (list[k]->d_name[0] != '.') {
                    char p[4096];
                    snprintf(p, sizeof p, "%s/%s", argv[i], list[k]->d_name);
                    if (run_file(p) < 0)
                        return 1;
                    files++;
                }
                free(list[k]);
            }
            free(list);
        } else {
            if (run_file(argv[i]) < 0)
                return 1;
            files++;
        }
    }
    printf("%d inputs replayed\n", files);
    return 0;
}
