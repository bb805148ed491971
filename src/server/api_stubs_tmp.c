#include "server/api_internal.h"
int tz_api_aggregate(tz_req *r) { return tz_fail(r, 501, "todo"); }
int tz_api_anomaly(tz_req *r) { return tz_fail(r, 501, "todo"); }
int tz_api_correlate(tz_req *r) { return tz_fail(r, 501, "todo"); }
int tz_api_grammars(tz_req *r) { return tz_fail(r, 501, "todo"); }
int tz_api_grammar(tz_req *r) { return tz_fail(r, 501, "todo"); }
int tz_api_callstack(tz_req *r) { return tz_fail(r, 501, "todo"); }
void tz_api_callstack_free(tz_api *api) { (void)api; }
