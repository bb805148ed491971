/* What the server is in every build, with or without libmicrohttpd: its default
 * bounds, and whether `traza serve` is built in. */
#include "server/server.h"

void tz_server_opts_default(tz_server_opts *o)
{
    o->max_connections = 1000;
    o->max_per_client = 250;
    o->request_timeout = 10;
    o->idle_timeout = 15;
    o->view_workers = 4;
    o->analysis_workers = 2;
}

void tz_server_feature(traza_feature *out)
{
    *out = (traza_feature){"serve", "traza serve (the HTTP server and web UI)", "libmicrohttpd", "libmicrohttpd-dev", tz_built_serve};
}
