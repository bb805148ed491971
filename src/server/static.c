/* The embedded front end: "/" and the files of web/dist, compiled in as byte arrays
 * (the table comes from the generated web_assets.c; this weak default is empty so the
 * library also builds without it). */
#include "server/server.h"

#include <string.h>

__attribute__((weak)) size_t tz_web_assets(const tz_asset **out)
{
    *out = NULL;
    return 0;
}

static const char no_ui[] =
    "<!doctype html><meta charset=utf-8><title>traza</title>"
    "<p>This traza was built without its web front end (web/dist). The JSON API is at /api/ (doc/api.md).</p>\n";

static const char not_found[] = "{\"error\":\"not found\",\"status\":404}\n";

void tz_static_handle(const char *path, tz_resp *resp)
{
    const tz_asset *a;
    size_t n = tz_web_assets(&a);
    const char *want = strcmp(path, "/") == 0 ? "/index.html" : path;
    for (size_t i = 0; i < n; i++) {
        if (strcmp(a[i].path, want) == 0) {
            resp->status = 200;
            resp->ctype = a[i].ctype;
            resp->body = (char *)a[i].data;
            resp->len = a[i].len;
            resp->is_static = 1;
            return;
        }
    }
    resp->is_static = 1;
    if (strcmp(want, "/index.html") == 0) {
        resp->status = 200;
        resp->ctype = "text/html; charset=utf-8";
        resp->body = (char *)no_ui;
        resp->len = sizeof no_ui - 1;
        return;
    }
    resp->status = 404;
    resp->ctype = "application/json";
    resp->body = (char *)not_found;
    resp->len = sizeof not_found - 1;
}
