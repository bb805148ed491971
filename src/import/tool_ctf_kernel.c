/* The "ctf-kernel" tool: (re)builds the processed trace of an imported CTF trace. */
#include "tools/builtin_list.h"
#include "traza/ctf.h"
#include "util/util.h"

#include <stdlib.h>

static const traza_tool_option ctf_kernel_opts[] = {
    {"name", TRAZA_OPT_STRING, NULL, "name of the processed trace (default TRACE.processed)", 0, 0},
};

static int run_ctf_kernel(const traza_tool *tool, const traza_tool_call *call, traza_err *err)
{
    if (!call->trace)
        return traza_err_set(err, TRAZA_E_USAGE, "tool '%s' needs an imported CTF trace", tool->name);
    traza_trace_info info;
    int rc = traza_ctf_process(call->ws, call->trace, traza_tool_arg(tool, call->args, "name"), &info, err);
    if (rc < 0)
        return -1;
    if (rc == 0) {
        if (call->json)
            traza_tool_printf(call, "{\"processed\":null}\n");
        else
            traza_tool_printf(call, "'%s' has no kernel or provider events: nothing to process\n", call->trace);
        return 0;
    }
    if (call->json) {
        tz_buf b; /* the trace's name is the user's: escaped */
        tz_buf_init(&b);
        tz_buf_puts(&b, "{\"processed\":");
        tz_json_str(&b, info.name);
        tz_buf_printf(&b, ",\"events\":%lld,\"producers\":%lld}\n", (long long)info.events, (long long)info.producers);
        traza_tool_printf(call, "%s", b.oom ? "" : b.s);
        tz_buf_free(&b);
    } else
        traza_tool_printf(call, "processed trace '%s': %lld events, %lld producers\n", info.name, (long long)info.events,
                          (long long)info.producers);
    traza_trace_info_clear(&info);
    return 0;
}

const traza_tool tz_tool_ctf_kernel = {
    "ctf-kernel", "processed trace of a CTF trace: CPU/process/thread states, syscalls, IRQs (kernel) or providers (UST)",
    TRAZA_TOOL_ANALYSIS, ctf_kernel_opts, sizeof ctf_kernel_opts / sizeof ctf_kernel_opts[0], run_ctf_kernel, NULL, NULL,
};
