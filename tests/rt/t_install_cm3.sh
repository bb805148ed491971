#!/usr/bin/env bash
# make install installs the Cortex-M runtimes (bare metal and FreeRTOS) with their
# pkg-config files, whose trace_cflags variable is the build recipe of
# doc/tracer-freertos.md; the FreeRTOS demo built from the installed pieces alone
# runs under qemu-system-arm and its dump imports with its interrupt handler; make
# uninstall removes them.
. "$(dirname "$0")/../lib.sh"
SRC=$(cd "${TRAZA_SRC:-.}" && pwd)
BUILD=$(cd "${TRAZA_BUILD:-build}" && pwd)
FREERTOS=${TRAZA_FREERTOS:-$SRC/../shared/freertos/FreeRTOS-Kernel}
if [ ! -f "$BUILD/rt/cm3/libtraza-rt-cm3-rtos.a" ]; then
  skip "cortex-m runtime install" "gcc-arm-none-eabi missing (scripts/packages.txt)"; exit 0
fi
dest=$TMP/dest
if ! make -s -C "$SRC" BUILD="$BUILD" install PREFIX=/opt/tz DESTDIR="$dest" >"$TMP/install.log" 2>&1; then
  fail "make install" "$(tail -20 "$TMP/install.log")"
  exit 0
fi
root=$dest/opt/tz
for f in lib/libtraza-rt-cm3.a lib/libtraza-rt-cm3-rtos.a include/traza_rt_freertos.h include/traza_rt.h \
  include/traza_rt_format.h lib/pkgconfig/traza-rt-cm3.pc lib/pkgconfig/traza-rt-cm3-freertos.pc; do
  [ -e "$root/$f" ] && pass "installed $f" || fail "installed $f"
done
pc() { PKG_CONFIG_PATH=$root/lib/pkgconfig pkg-config --define-variable=prefix="$root" "$@" | sed 's/ *$//'; }
check_eq "freertos pkg-config: the runtime" "$root/lib/libtraza-rt-cm3-rtos.a" "$(pc --libs traza-rt-cm3-freertos)"
check_eq "freertos pkg-config: the headers" "-I$root/include" "$(pc --cflags traza-rt-cm3-freertos)"
check_eq "freertos pkg-config: the port layer and the switch function left out" \
  "-finstrument-functions -finstrument-functions-exclude-file-list=portable/ -finstrument-functions-exclude-function-list=vTaskSwitchContext" \
  "$(pc --variable=trace_cflags traza-rt-cm3-freertos | tr -s ' ')"
check_eq "bare-metal pkg-config: the runtime" "$root/lib/libtraza-rt-cm3.a" "$(pc --libs traza-rt-cm3)"
if [ -f "$FREERTOS/tasks.c" ] && command -v qemu-system-arm >/dev/null; then
  FREERTOS=$(cd "$FREERTOS" && pwd)
  # the demo's own sources; the runtime, its headers and the flags from the install
  mkdir -p "$TMP/src/rt/boards" && cp -r "$SRC/rt/boards/mps2-an385" "$TMP/src/rt/boards/" &&
    mkdir -p "$TMP/src/rt/include" && touch "$TMP/src/rt/traza-freertos.mk"
  check_rc "demo builds from the installed runtime and flags" 0 make -s -C "$TMP/src" \
    -f rt/boards/mps2-an385/freertos/freertos.mk FREERTOS="$FREERTOS" OUT="$TMP/fw" \
    RT_LIB="$(pc --libs traza-rt-cm3-freertos)" TRACE="$(pc --variable=trace_cflags traza-rt-cm3-freertos)" \
    CFLAGS_EXTRA="$(pc --cflags traza-rt-cm3-freertos)"
  cd "$TMP"
  check_rc "it runs to its end under qemu-system-arm" 0 timeout 60 qemu-system-arm -M mps2-an385 -nographic \
    -monitor none -serial none -semihosting-config enable=on,target=native -kernel "$TMP/fw/demo.elf"
  check_rc "its dump imports" 0 env TRAZA_RT_EXE="$TMP/fw/demo.elf" "$TRAZA" import --name fr traza-rt.tzr
  check_contains "with its interrupt handler" "$("$TRAZA" query fr --limit 0 --json)" '"producer":"firmware.elf[0]/ISR TIMER0"'
else
  skip "demo from the installed runtime" "no FreeRTOS kernel at $FREERTOS or no qemu-system-arm"
fi
check_rc "make uninstall" 0 make -s -C "$SRC" BUILD="$BUILD" uninstall PREFIX=/opt/tz DESTDIR="$dest"
check_eq "uninstall removes them" "" "$(cd "$dest" && find . -name '*cm3*' -o -name traza_rt_freertos.h)"
