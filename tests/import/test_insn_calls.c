/* The call instructions of an instruction trace (import/insn_calls.h): BL, BLR, BLX and
 * their conditional and pointer-authenticated forms are calls; B<cond> spelt like
 * BL... (BLT, BLE, BLS, BLO) and everything else are not. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <cmocka.h>
#include "import/insn_calls.h"

static int call(const char *m) { return tz_insn_is_call(m, strlen(m)); }

static void test_calls(void **state)
{
    (void)state;
    const char *yes[] = {"BL", "bl", "BLR", "blr", "BLX", "blx", "bl.w", "BLX.N", "BLEQ", "blne", "BLLT", "BLLE", "BLCC",
                         "BLXNE", "blxeq", "BLRAA", "BLRAAZ", "blrab", "BLRABZ"};
    const char *no[] = {"B", "BX", "BLT", "BLE", "BLS", "BLO", "ble.w", "BLT.W", "B.EQ", "BR", "RET", "BLA", "BLXX",
                        "BLRX", "BLEQQ", "", "b", "BIC", "BLOCK"};
    for (size_t i = 0; i < sizeof yes / sizeof yes[0]; i++)
        if (!call(yes[i]))
            fail_msg("%s is a call", yes[i]);
    for (size_t i = 0; i < sizeof no / sizeof no[0]; i++)
        if (call(no[i]))
            fail_msg("%s is not a call", no[i]);
    /* the length given counts, not the NUL: "BL r1" cut after BL */
    assert_true(tz_insn_is_call("BLT", 2));
    assert_false(tz_insn_is_call("BL", 1));
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_calls)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
