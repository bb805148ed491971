/* CTF trace directories told by their metadata file, and the "ctf" importer: its
 * reader (tz_ctf_read) is ctf.c's, through libbabeltrace2, or ctf_missing.c's in a
 * build without it, which then names the format it found and the library it lacks. */
#include "import/importers.h"
#include "util/util.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* A directory with a "metadata" file (CTF 1.8 starts with a "CTF" text comment or the
 * packetized magic 0x75D11D57), or a parent of such directories. */
static int has_ctf_metadata(const char *dir, int depth)
{
    char *p = tz_asprintf("%s/metadata", dir);
    if (!p)
        return 0;
    FILE *f = fopen(p, "rb");
    free(p);
    if (f) {
        unsigned char m[8] = {0};
        size_t n = fread(m, 1, sizeof m, f);
        fclose(f);
        if (n >= 4 && ((m[0] == 0x57 && m[1] == 0x1d && m[2] == 0xd1 && m[3] == 0x75) ||
                       (m[0] == 0x75 && m[1] == 0xd1 && m[2] == 0x1d && m[3] == 0x57) || memcmp(m, "/* CTF", 6) == 0))
            return 1;
    }
    if (depth == 0)
        return 0;
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    struct dirent *de;
    int found = 0;
    while (!found && (de = readdir(d))) {
        if (de->d_name[0] == '.')
            continue;
        char *sub = tz_asprintf("%s/%s", dir, de->d_name);
        struct stat st;
        if (sub && stat(sub, &st) == 0 && S_ISDIR(st.st_mode))
            found = has_ctf_metadata(sub, depth - 1);
        free(sub);
    }
    closedir(d);
    return found;
}

static int ctf_detect(const char *path, const unsigned char *head, size_t len)
{
    if (head) {
        /* the metadata file itself is not importable alone */
        return 0;
    }
    return path && has_ctf_metadata(path, 4) ? 90 : 0;
}

const traza_importer tz_importer_ctf = {
    "ctf", "import-ctf", "CTF trace directory (LTTng kernel/UST...) through libbabeltrace2", ctf_detect, tz_ctf_read,
};
