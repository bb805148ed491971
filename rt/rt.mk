# The tracer runtime (rt/): built with its own flags (never sanitized, never
# instrumented), into $(BUILD)/rt/. Included by the top Makefile.
RT_DIR    := $(BUILD)/rt
RT_CFLAGS := -std=gnu11 -O2 -g -fPIC -fno-stack-protector -fno-omit-frame-pointer -mgeneral-regs-only \
             -fno-semantic-interposition -fvisibility=hidden \
             -Wall -Wextra -Werror -Wno-unused-parameter -Irt/include -Irt/src -Irt/arch/x86_64
RT_SRC    := rt/src/unity_linux_x86_64.c
RT_OBJ    := $(RT_SRC:%.c=$(RT_DIR)/obj/%.o) $(RT_DIR)/obj/rt/arch/x86_64/hooks.o
RT_LIBS   := $(RT_DIR)/libtraza-rt.a $(RT_DIR)/libtraza-rt.so
# test programs, built instrumented (-pg -mfentry, or -finstrument-functions)
RT_PROGS  := $(patsubst rt/tests/%.c,$(RT_DIR)/tests/%,$(wildcard rt/tests/*.c))
RT_PROG_CFLAGS := -O1 -foptimize-sibling-calls -g -fno-inline -fno-omit-frame-pointer -pthread

$(RT_DIR)/obj/%.o: %.c rt/src/rt_internal.h rt/include/traza_rt_format.h rt/include/traza_rt.h rt/src/core.c rt/src/linux.c rt/src/unwind.c rt/arch/x86_64/arch.c rt/arch/x86_64/arch.h
	@mkdir -p $(dir $@)
	$(CC) $(RT_CFLAGS) $(CFLAGS_RT_EXTRA) -c $< -o $@
$(RT_DIR)/obj/rt/arch/x86_64/hooks.o: rt/arch/x86_64/hooks.S rt/arch/x86_64/offsets.h
	@mkdir -p $(dir $@)
	$(CC) -Irt/arch/x86_64 -c $< -o $@
$(RT_DIR)/libtraza-rt.a: $(RT_OBJ)
	rm -f $@ && ar rcs $@ $^
$(RT_DIR)/libtraza-rt.so: $(RT_OBJ)
	$(CC) -shared -Wl,-soname,libtraza-rt.so -o $@ $^ -lpthread

# X.pg: -pg -mfentry linked with the runtime; X.cyg: -finstrument-functions linked;
# X.pre: -pg -mfentry without the runtime (run under `traza record`, LD_PRELOAD);
# X.plain: uninstrumented; X.pfe: -fpatchable-function-entry=5 (5 NOPs per function,
# `traza patch` turns them into calls of __fentry__), runtime linked in.
$(RT_DIR)/tests/%: rt/tests/%.c $(RT_LIBS) rt/include/traza_rt.h rt/rt.mk
	@mkdir -p $(dir $@)
	$(CC) $(RT_PROG_CFLAGS) -Irt/include -pg -mfentry -c $< -o $@.o
	$(CC) -pthread -o $@.pg $@.o $(RT_DIR)/libtraza-rt.a
	$(CC) -pthread -o $@.pre $@.o
	$(CC) $(RT_PROG_CFLAGS) -Irt/include -finstrument-functions -o $@.cyg $< $(RT_DIR)/libtraza-rt.a
	$(CC) $(RT_PROG_CFLAGS) -Irt/include -o $@.plain $<
	$(CC) $(RT_PROG_CFLAGS) -Irt/include -fpatchable-function-entry=5 -o $@.pfe $< -Wl,-u,__fentry__ $(RT_DIR)/libtraza-rt.a
	@touch $@

rt: $(RT_LIBS) $(RT_PROGS)
all tests: rt
.PHONY: rt install-rt uninstall-rt

# the directories are made (and recorded for uninstall) by the top Makefile's install-dirs
install-rt: $(RT_LIBS) install-dirs
	install -m 644 $(RT_DIR)/libtraza-rt.a $(INSTALL_ROOT)/lib/libtraza-rt.a
	install -m 755 $(RT_DIR)/libtraza-rt.so $(INSTALL_ROOT)/lib/libtraza-rt.so
	install -m 644 rt/include/traza_rt.h rt/include/traza_rt_format.h $(INSTALL_ROOT)/include/
	sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@VERSION@|$(VERSION)|g' rt/traza-rt.pc.in \
	  > $(INSTALL_ROOT)/lib/pkgconfig/traza-rt.pc
install: install-rt

uninstall-rt:
	rm -f $(addprefix $(INSTALL_ROOT)/lib/,libtraza-rt.a libtraza-rt.so) \
	  $(addprefix $(INSTALL_ROOT)/include/,traza_rt.h traza_rt_format.h) $(INSTALL_ROOT)/lib/pkgconfig/traza-rt.pc
uninstall: uninstall-rt

# 32-bit ARM Linux (ARM and Thumb-2), when the cross compiler is installed
# (gcc-arm-linux-gnueabihf); the tests run the programs under qemu-arm.
ARM_CC := $(shell command -v arm-linux-gnueabihf-gcc 2>/dev/null)
ifneq ($(ARM_CC),)
RT_ARM_CFLAGS := -std=gnu11 -O2 -g -fno-stack-protector -fno-omit-frame-pointer -fno-tree-vectorize \
                 -fvisibility=hidden -Wall -Wextra -Werror -Wno-unused-parameter -Irt/include -Irt/src -Irt/arch/arm
$(RT_DIR)/arm/libtraza-rt.a: rt/src/unity_linux_arm.c rt/arch/arm/hooks.S rt/arch/arm/arch.c rt/arch/arm/arch.h \
                             rt/src/core.c rt/src/linux.c rt/src/rt_internal.h rt/include/traza_rt_format.h
	@mkdir -p $(dir $@)
	$(ARM_CC) $(RT_ARM_CFLAGS) -c rt/src/unity_linux_arm.c -o $(RT_DIR)/arm/unity.o
	$(ARM_CC) -c rt/arch/arm/hooks.S -o $(RT_DIR)/arm/hooks.o
	rm -f $@ && ar rcs $@ $(RT_DIR)/arm/unity.o $(RT_DIR)/arm/hooks.o
$(RT_DIR)/arm/prog.%: rt/tests/prog.c $(RT_DIR)/arm/libtraza-rt.a
	$(ARM_CC) -O1 -foptimize-sibling-calls -g -fno-inline -pthread -Irt/include -m$* -finstrument-functions -static \
	  -o $@ $< $(RT_DIR)/arm/libtraza-rt.a
# ARM code with -pg: __gnu_mcount_nc hooks exits by return-address replacement
$(RT_DIR)/arm/prog.armpg: rt/tests/prog.c $(RT_DIR)/arm/libtraza-rt.a
	$(ARM_CC) -O1 -foptimize-sibling-calls -g -fno-inline -pthread -Irt/include -marm -pg -fno-omit-frame-pointer \
	  -c -o $@.o $<
	$(ARM_CC) -pthread -static -o $@ $@.o $(RT_DIR)/arm/libtraza-rt.a
# frames that push argument registers first (variadic functions, partial structures),
# at two optimisation levels and with APCS frames (-mapcs-frame); Thumb-2 code and no frame pointers: the runtime says
# which flag to add
ARM_PG_CFLAGS := -g -fno-inline -static -Irt/include -pg
$(RT_DIR)/arm/variadic.O1 $(RT_DIR)/arm/variadic.Os: $(RT_DIR)/arm/variadic.%: rt/tests/arm/variadic.c $(RT_DIR)/arm/libtraza-rt.a
	$(ARM_CC) $(ARM_PG_CFLAGS) -$* -marm -fno-omit-frame-pointer -o $@ $< $(RT_DIR)/arm/libtraza-rt.a
$(RT_DIR)/arm/variadic.apcs: rt/tests/arm/variadic.c $(RT_DIR)/arm/libtraza-rt.a
	$(ARM_CC) $(ARM_PG_CFLAGS) -O2 -marm -mapcs-frame -o $@ $< $(RT_DIR)/arm/libtraza-rt.a
$(RT_DIR)/arm/variadic.thumb: rt/tests/arm/variadic.c $(RT_DIR)/arm/libtraza-rt.a
	$(ARM_CC) $(ARM_PG_CFLAGS) -O1 -mthumb -fno-omit-frame-pointer -o $@ $< $(RT_DIR)/arm/libtraza-rt.a
$(RT_DIR)/arm/variadic.nofp: rt/tests/arm/variadic.c $(RT_DIR)/arm/libtraza-rt.a
	$(ARM_CC) $(ARM_PG_CFLAGS) -O1 -marm -o $@ $< $(RT_DIR)/arm/libtraza-rt.a
# -fpatchable-function-entry: Thumb-2 (3 x 16-bit nop) and ARM (2 x nop) sites that
# `traza patch --enable` turns into `push {lr}; bl tz_pfe_entry` (exits by return
# address); pfe.thumbpg: Thumb-2 -pg sites (`traza patch` can only switch them off).
PFE_CFLAGS := -O1 -foptimize-sibling-calls -g -fno-inline -static -Irt/include
$(RT_DIR)/arm/pfe.thumb: rt/tests/arm/pfe.c $(RT_DIR)/arm/libtraza-rt.a
	$(ARM_CC) $(PFE_CFLAGS) -mthumb -fpatchable-function-entry=3 -o $@ $< -Wl,-u,tz_pfe_entry $(RT_DIR)/arm/libtraza-rt.a
$(RT_DIR)/arm/pfe.arm: rt/tests/arm/pfe.c $(RT_DIR)/arm/libtraza-rt.a
	$(ARM_CC) $(PFE_CFLAGS) -marm -fpatchable-function-entry=2 -o $@ $< -Wl,-u,tz_pfe_entry $(RT_DIR)/arm/libtraza-rt.a
$(RT_DIR)/arm/pfe.thumbpg: rt/tests/arm/pfe.c $(RT_DIR)/arm/libtraza-rt.a
	$(ARM_CC) $(PFE_CFLAGS) -mthumb -pg -o $@ $< $(RT_DIR)/arm/libtraza-rt.a
$(RT_DIR)/arm/pfe.plain: rt/tests/arm/pfe.c rt/rt.mk
	$(ARM_CC) $(PFE_CFLAGS) -o $@ $<
rt: $(RT_DIR)/arm/prog.arm $(RT_DIR)/arm/prog.thumb $(RT_DIR)/arm/prog.armpg
rt: $(RT_DIR)/arm/pfe.thumb $(RT_DIR)/arm/pfe.arm $(RT_DIR)/arm/pfe.thumbpg $(RT_DIR)/arm/pfe.plain
rt: $(addprefix $(RT_DIR)/arm/variadic.,O1 Os apcs thumb nofp)
# installed for cross builds: lib/arm-linux-gnueabihf/libtraza-rt.a and traza-rt-armhf.pc
install-rt-arm: $(RT_DIR)/arm/libtraza-rt.a install-dirs
	install -d $(INSTALL_ROOT)/lib/arm-linux-gnueabihf
	install -m 644 $(RT_DIR)/arm/libtraza-rt.a $(INSTALL_ROOT)/lib/arm-linux-gnueabihf/libtraza-rt.a
	sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@VERSION@|$(VERSION)|g' rt/traza-rt-armhf.pc.in \
	  > $(INSTALL_ROOT)/lib/pkgconfig/traza-rt-armhf.pc
uninstall-rt-arm:
	rm -f $(INSTALL_ROOT)/lib/arm-linux-gnueabihf/libtraza-rt.a $(INSTALL_ROOT)/lib/pkgconfig/traza-rt-armhf.pc
	-rmdir $(INSTALL_ROOT)/lib/arm-linux-gnueabihf 2>/dev/null
install: install-rt-arm
uninstall: uninstall-rt-arm
.PHONY: install-rt-arm uninstall-rt-arm
endif

# Bare-metal Cortex-M3 (gcc-arm-none-eabi): the runtime (no libc) and a firmware for
# QEMU's mps2-an385 board; the tests run it under qemu-system-arm with semihosting.
CM_CC := $(shell command -v arm-none-eabi-gcc 2>/dev/null)
ifneq ($(CM_CC),)
CM_ARCH   := -mcpu=cortex-m3 -mthumb
CM_RT_CFLAGS := -std=gnu11 $(CM_ARCH) -Os -g -ffreestanding -fno-builtin -fno-stack-protector \
                -fno-tree-loop-distribute-patterns -ffunction-sections -DTZ_RING_ONLY -DTZ_SHADOW_MAX=32 -DTZ_STACK_SNAPSHOT=16 \
                -Wall -Wextra -Werror -Wno-unused-parameter -Irt/include -Irt/src -Irt/arch/cortex_m
CM_DIR := $(RT_DIR)/cm3
$(CM_DIR)/libtraza-rt-cm3.a: rt/src/unity_baremetal_cortex_m.c rt/src/baremetal.c rt/src/core.c rt/src/rt_internal.h \
                             rt/arch/cortex_m/arch.c rt/arch/cortex_m/arch.h rt/include/traza_rt_format.h
	@mkdir -p $(dir $@)
	$(CM_CC) $(CM_RT_CFLAGS) -DTZ_RET_HOOKS -c rt/src/unity_baremetal_cortex_m.c -o $(CM_DIR)/traza-rt-cm3.o
	rm -f $@ && arm-none-eabi-ar rcs $@ $(CM_DIR)/traza-rt-cm3.o
# the RTOS build (FreeRTOS awareness, traza_rt_freertos.h): a shadow stack per task,
# task-switch records, SysTick read as the kernel programs it; firmwares build with
# rt/boards/mps2-an385/freertos/freertos.mk (doc/tracer-freertos.md)
$(CM_DIR)/libtraza-rt-cm3-rtos.a: rt/src/unity_baremetal_cortex_m.c rt/src/baremetal.c rt/src/core.c rt/src/rt_internal.h \
                                  rt/arch/cortex_m/arch.c rt/arch/cortex_m/arch.h rt/include/traza_rt_format.h \
                                  rt/include/traza_rt_freertos.h
	@mkdir -p $(dir $@)
	$(CM_CC) $(CM_RT_CFLAGS) -DTZ_TASKS -DTZ_BM_BUFSIZE=32768 -c rt/src/unity_baremetal_cortex_m.c -o $(CM_DIR)/traza-rt-cm3-rtos.o
	rm -f $@ && arm-none-eabi-ar rcs $@ $(CM_DIR)/traza-rt-cm3-rtos.o
rt: $(CM_DIR)/libtraza-rt-cm3-rtos.a
$(CM_DIR)/firmware.elf: rt/tests/cm3/firmware.c rt/boards/mps2-an385/startup.c rt/boards/mps2-an385/link.ld \
                        $(CM_DIR)/libtraza-rt-cm3.a rt/include/traza_rt.h
	$(CM_CC) $(CM_ARCH) -O1 -g -ffreestanding -fno-inline -c rt/boards/mps2-an385/startup.c -o $(CM_DIR)/startup.o
	$(CM_CC) $(CM_ARCH) -O1 -g -ffreestanding -fno-inline -finstrument-functions -Irt/include \
	  -c rt/tests/cm3/firmware.c -o $(CM_DIR)/firmware.o
	$(CM_CC) $(CM_ARCH) -nostdlib -T rt/boards/mps2-an385/link.ld -Wl,--gc-sections -o $@ \
	  $(CM_DIR)/startup.o $(CM_DIR)/firmware.o $(CM_DIR)/libtraza-rt-cm3.a -lgcc
rt: $(CM_DIR)/firmware.elf
# selection by patching (tests/rt/t_cortexm_patch.sh): -fpatchable-function-entry=3
# sites, tz_pfe_entry kept by -u through --gc-sections
$(CM_DIR)/select.elf: rt/tests/cm3/select.c $(CM_DIR)/firmware.elf
	$(CM_CC) $(CM_ARCH) -O1 -g -ffreestanding -fno-inline -fpatchable-function-entry=3 -Irt/include \
	  -c $< -o $(CM_DIR)/select.o
	$(CM_CC) $(CM_ARCH) -nostdlib -T rt/boards/mps2-an385/link.ld -Wl,--gc-sections -Wl,-u,tz_pfe_entry -o $@ \
	  $(CM_DIR)/startup.o $(CM_DIR)/select.o $(CM_DIR)/libtraza-rt-cm3.a -lgcc
rt: $(CM_DIR)/select.elf

# installed with their pkg-config files (traza-rt-cm3, traza-rt-cm3-freertos)
include rt/traza-freertos.mk
CM_LIBS := libtraza-rt-cm3.a libtraza-rt-cm3-rtos.a
install-rt-cm3: $(CM_DIR)/libtraza-rt-cm3.a $(CM_DIR)/libtraza-rt-cm3-rtos.a install-dirs
	install -m 644 $(addprefix $(CM_DIR)/,$(CM_LIBS)) $(INSTALL_ROOT)/lib/
	install -m 644 rt/include/traza_rt_freertos.h $(INSTALL_ROOT)/include/
	sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@VERSION@|$(VERSION)|g' rt/traza-rt-cm3.pc.in \
	  > $(INSTALL_ROOT)/lib/pkgconfig/traza-rt-cm3.pc
	sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@VERSION@|$(VERSION)|g' -e 's|@TRACE@|$(TRAZA_FREERTOS_TRACE)|g' \
	  rt/traza-rt-cm3-freertos.pc.in > $(INSTALL_ROOT)/lib/pkgconfig/traza-rt-cm3-freertos.pc
uninstall-rt-cm3:
	rm -f $(addprefix $(INSTALL_ROOT)/lib/,$(CM_LIBS)) $(INSTALL_ROOT)/include/traza_rt_freertos.h \
	  $(addprefix $(INSTALL_ROOT)/lib/pkgconfig/,traza-rt-cm3.pc traza-rt-cm3-freertos.pc)
install: install-rt-cm3
uninstall: uninstall-rt-cm3
.PHONY: install-rt-cm3 uninstall-rt-cm3
# read live through QEMU's gdbstub (tests/rt/t_live.sh): paced, a burst that wraps the
# ring, and a slow one that keeps calling for as long as it runs (a trace that grows)
LIVE_CFLAGS-burst := -DLIVE_BURST -DLIVE_CALLS=3000
LIVE_CFLAGS-slow := -DLIVE_CALLS=100000000 -DLIVE_PAUSE=200000
$(CM_DIR)/live.elf $(CM_DIR)/live-burst.elf $(CM_DIR)/live-slow.elf: $(CM_DIR)/live%.elf: rt/tests/cm3/live.c \
                                                                    $(CM_DIR)/firmware.elf
	$(CM_CC) $(CM_ARCH) -O1 -g -ffreestanding -fno-inline -finstrument-functions -Irt/include \
	  $(LIVE_CFLAGS$*) -c $< -o $(CM_DIR)/live$*.o
	$(CM_CC) $(CM_ARCH) -nostdlib -T rt/boards/mps2-an385/link.ld -Wl,--gc-sections -o $@ \
	  $(CM_DIR)/startup.o $(CM_DIR)/live$*.o $(CM_DIR)/libtraza-rt-cm3.a -lgcc
rt: $(CM_DIR)/live.elf $(CM_DIR)/live-burst.elf $(CM_DIR)/live-slow.elf
endif
