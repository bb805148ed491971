/* Plugins (dlopen, versioned ABI) and external tools (manifest + executable). */
#include "testutil.h"
#include "sample_trace.h"

static void print_to_buf(void *user, const char *text)
{
    char *buf = user;
    strncat(buf, text, 4095 - strlen(buf));
}

static void test_plugin_loads_and_runs(void **state)
{
    (void)state;
    const char *build = getenv("TRAZA_BUILD");
    if (!build)
        build = "build";
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/plugins", build);
    tu_ws w;
    tu_ws_open(&w);
    traza_registry *reg = traza_ctx_registry(w.ctx);
    assert_null(traza_registry_find(reg, "category-count"));
    assert_int_equal(traza_registry_load_path(reg, dir, &w.err), 1);
    const traza_tool *tool = traza_registry_find(reg, "category-count");
    assert_non_null(tool);
    assert_non_null(strstr(tool->origin, "category_count.so"));
    tu_sample_trace(&w, "p", 5);
    char out[4096] = "";
    traza_tool_call call = {w.ctx, w.ws, "p", NULL, 0, print_to_buf, out, NULL};
    assert_int_equal(traza_tool_run(tool, &call, &w.err), 0);
    assert_string_equal(out, "punctual=5 state=5 link=1 variable=1\n");
    traza_trace *t = traza_trace_open(w.ws, "p", TRAZA_OPEN_READ, &w.err);
    traza_result_info ri;
    assert_int_equal(traza_result_find(t, "category-count", &ri, &w.err), 0);
    assert_int_equal(ri.kind, TRAZA_RES_ANNOTATION);
    assert_int_equal(ri.size, 4);
    traza_result_info_clear(&ri);
    traza_trace_close(t);
    /* loading again: the name is taken, the plugin is refused, others unaffected */
    assert_int_equal(traza_registry_load_path(reg, dir, &w.err), 0);
    assert_non_null(traza_registry_find(reg, "filter"));
    tu_ws_close(&w);
}

static void test_external_tool(void **state)
{
    (void)state;
    const char *src = getenv("TRAZA_SRC");
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/examples/tools", src ? src : ".");
    tu_ws w;
    tu_ws_open(&w);
    traza_registry *reg = traza_ctx_registry(w.ctx);
    assert_int_equal(traza_registry_load_path(reg, dir, &w.err), 1);
    const traza_tool *tool = traza_registry_find(reg, "count-lines");
    assert_non_null(tool);
    assert_int_equal(tool->noptions, 2);
    assert_string_equal(tool->options[1].name, "repeat");
    assert_int_equal(tool->options[1].type, TRAZA_OPT_INT);
    const char *k[] = {"greeting", "repeat"};
    const char *v[] = {"hi", "2"};
    traza_tool_args args = {2, k, v};
    char out[4096] = "";
    traza_tool_call call = {w.ctx, w.ws, "sometrace", &args, 0, print_to_buf, out, NULL};
    assert_int_equal(traza_tool_run(tool, &call, &w.err), 0);
    assert_string_equal(out, "hi sometrace\nhi sometrace\n");
    /* typed options are checked before launching */
    v[1] = "two";
    assert_int_equal(traza_tool_run(tool, &call, &w.err), -1);
    assert_err_contains(w.err, "expects an integer");
    /* an option the manifest does not declare is refused before launching */
    const char *k2[] = {"fail"};
    const char *v2[] = {"1"};
    traza_tool_args a2 = {1, k2, v2};
    call.args = &a2;
    assert_int_equal(traza_tool_run(tool, &call, &w.err), -1);
    assert_err_contains(w.err, "has no option '--fail'");
    /* a tool that fails at run time (count-lines.sh exits 1 with "no workspace" on
     * stderr when it gets no --workspace): its output is printed, the error names the
     * tool, its exit status and its stderr */
    v[1] = "1";
    call.args = &args;
    call.ws = NULL;
    out[0] = 0;
    assert_int_equal(traza_tool_run(tool, &call, &w.err), -1);
    assert_string_equal(out, "hi sometrace\n");
    assert_int_equal(w.err.code, TRAZA_E_IO);
    char want[4200];
    snprintf(want, sizeof want, "tool 'count-lines' (%s/count-lines.sh) failed (exit status 1): no workspace\n", dir);
    assert_string_equal(w.err.msg, want);
    tu_ws_close(&w);
}

static void test_bad_manifest(void **state)
{
    (void)state;
    char *d = tu_tmpdir();
    free(tu_write(d, "bad.tool", "name = x\nexec = /bin/true\noption = a:float\n"));
    free(tu_write(d, "notaplugin.so", "garbage"));
    traza_err err;
    traza_ctx *ctx = traza_ctx_new(&err);
    /* problems are skipped (and logged), never fatal */
    assert_int_equal(traza_registry_load_path(traza_ctx_registry(ctx), d, &err), 0);
    assert_null(traza_registry_find(traza_ctx_registry(ctx), "x"));
    traza_ctx_free(ctx);
    tu_rmdir(d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_plugin_loads_and_runs),
        cmocka_unit_test(test_external_tool),
        cmocka_unit_test(test_bad_manifest),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
