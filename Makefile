# traza — build, test, demo, install.
#
#   make            build libtraza (static + shared) and the traza binary into build/
#   make test       install missing Debian packages, build, run every test, then run
#                   the suite again under ASan+UBSan (build/asan/)
#   make demo       install, build, then walk the whole path on inputs it makes (scripts/demo.sh)
#   make install    PREFIX=/usr/local DESTDIR= : binary, libraries, headers, pkg-config,
#                   man pages, bash and zsh completion (make uninstall removes them)
#   make fuzz       build the libFuzzer harnesses (clang) into build/fuzz/; make test runs
#                   each FUZZ_SECONDS (20), make fuzz-long each FUZZ_LONG_SECONDS (600)
#   make bench      run the benchmarks in bench/ (slow; see bench/README.md)
#   make doc-images the web UI's screenshots in doc/img on the traces of ../shared/data
#
# Sources are found by wildcard: a new file under src/<area>/ is part of libtraza,
# a new src/server/*.c part of the server front end (libtraza-server.a), a new
# src/cli/cmd_*.c part of the CLI, a new tests/<area>/test_*.c is a test.

PREFIX  ?= /usr/local
DESTDIR ?=
SAN     ?= 0
CC      ?= cc
ifeq ($(CC),cc)
CC := gcc
endif

ifeq ($(SAN),1)
BUILD   ?= build/asan
OPT     ?= -O1 -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all
LDSAN   := -fsanitize=address,undefined
else
BUILD   ?= build
OPT     ?= -O2
LDSAN   :=
endif

VERSION := $(shell sed -n 's/^#define TRAZA_VERSION_STRING "\(.*\)"/\1/p' include/traza/version.h)
# Libraries found through pkg-config (scripts/install-deps.sh installs them all).
PKGS    := sqlite3 libpcre2-8 libzstd liblzma zlib jansson libdw libelf babeltrace2 libpq libmicrohttpd libtracecmd libtraceevent libtracefs libprotobuf-c
# Read once, when make starts: the targets that install packages first (demo, test,
# test-fast) therefore build in a second make, started after the install.
PKG_CONFIG ?= pkg-config
# Optional features, probed at build time: without a library's development files its
# feature is left out (its sources SRC_<feature> are replaced by MISSING_SRC_<feature>,
# a <feature>_missing.c that gives the same entry points) and says so when used, as it
# does at run time when the library itself is absent; `traza --version` lists them. The
# rest of traza builds and works (tests/cli/t_build_flags.sh).
OPTIONAL_PKGS := libpq babeltrace2 libtracecmd libtraceevent libtracefs libmicrohttpd
MISSING_PKGS := $(strip $(foreach p,$(OPTIONAL_PKGS),$(if $(shell $(PKG_CONFIG) --exists $(p) 2>/dev/null && echo y),,$(p))))
# OpenCSD has no pkg-config file: its header is looked for the way the compiler will.
MISSING_PKGS := $(strip $(MISSING_PKGS) $(if $(shell printf '\043include <opencsd/c_api/opencsd_c_api.h>\n' | $(CC) $(CFLAGS) -E -x c - -o /dev/null 2>/dev/null && echo y),,opencsd))
PKGS    := $(filter-out $(MISSING_PKGS),$(PKGS))
PKG_CFLAGS := $(shell $(PKG_CONFIG) --cflags $(PKGS) 2>/dev/null)
# libpq: Debian's libpq.pc lists static-only libraries (-lpgcommon -lpgport) in
# Libs.private that no package installs, so traza.pc names -lpq instead of requiring it.
# libpq, libmicrohttpd, OpenCSD, babeltrace2, libtracecmd and libtraceevent are not
# linked: the features that need them open them with dlopen (src/util/dynlib.c), which spares every other traza
# process ~8 ms of dynamic linking (babeltrace2 and GLib: ~0.5 ms). Their headers are
# needed to build their features (optional: OPTIONAL_PKGS); tests that call libpq
# themselves link it (TEST_LIBS).
DLOPEN_PKGS := libpq libmicrohttpd babeltrace2 libtracecmd libtraceevent libtracefs
PKGS_PC = $(filter-out $(DLOPEN_PKGS),$(PKGS))
PKG_LIBS   := $(shell $(PKG_CONFIG) --libs $(PKGS_PC) 2>/dev/null)
# libbz2 (the .tzi text dictionaries, format version 5) has no pkg-config file in
# Debian 12 either.
EXTRA_LIBS ?= -lbz2
# Tests that call libpq themselves (to create and drop the databases of PostgreSQL runs)
# link it; without it they are built with TU_HAVE_LIBPQ unset and skip those runs.
TEST_CFLAGS := $(if $(filter libpq,$(MISSING_PKGS)),,-DTU_HAVE_LIBPQ)
TEST_LIBS := $(if $(filter libpq,$(MISSING_PKGS)),,-lpq)

# Where protoc-c writes the code it generates from src/export/*.proto.
PROTO_GEN := build/gen
# Warnings are errors in a git checkout (developers, CI); a release tarball has no .git,
# so users' compilers, newer than ours, never fail the build on a new warning.
# WERROR= (or -Werror) overrides either way.
WERROR  ?= $(if $(wildcard .git),-Werror)
WARN    := -Wall -Wextra $(WERROR) -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wno-unused-parameter
# TRAZA_EXPERIMENTAL_API: traza itself uses the experimental part of its API (see
# include/traza/diff.h); programs built on the installed headers opt in the same way.
CFLAGS_ALL := -std=c11 -D_GNU_SOURCE -DTRAZA_EXPERIMENTAL_API -g $(OPT) $(WARN) -fPIC -Iinclude -Isrc -I$(PROTO_GEN) $(PKG_CFLAGS) $(CFLAGS)
LDLIBS_ALL := $(PKG_LIBS) $(EXTRA_LIBS) -ldl -lpthread -lm $(LDLIBS)
# The traza binary takes these libraries from their static archives (Debian's -dev
# packages ship them): the loader then maps and relocates two shared objects instead
# of nine, and `traza --help` takes ~1.8 ms instead of ~3.4 ms (bench/RESULTS.md, row
# "start-up"), which small inputs feel. The price: a security update of one of them needs a
# rebuild of traza. libtraza.so and the tests stay dynamic; babeltrace2 is opened
# with dlopen (above), so the binary needs only libc and libm at start.
STATIC_LIBS := -lsqlite3 -lpcre2-8 -ljansson -ldw -lelf -lbz2 -lzstd -llzma -lz -lprotobuf-c
CLI_LIBS = -Wl,-Bstatic $(STATIC_LIBS) -Wl,-Bdynamic -ldl -lpthread -lm $(LDLIBS)

LIB_SRC := $(sort $(shell find src -name '*.c' -not -path 'src/cli/*' -not -path 'src/server/*'))
# The optional features: the packages each needs, its sources, what replaces them.
FEATURES := pg ctf etm tracecmd serve
NEEDS_pg := libpq
SRC_pg := $(filter-out %_missing.c,$(wildcard src/store/pg_*.c))
NEEDS_ctf := babeltrace2
SRC_ctf := src/import/ctf.c src/import/bt_api.c
NEEDS_etm := opencsd
SRC_etm := src/import/etm_decode.c src/import/etm_api.c
NEEDS_tracecmd := libtracecmd libtraceevent libtracefs
SRC_tracecmd := src/import/tracecmd.c src/import/tracecmd_api.c
NEEDS_serve := libmicrohttpd
SRC_serve := src/server/server.c src/server/mhd_api.c
$(foreach f,$(FEATURES),$(eval MISSING_SRC_$(f) := $(wildcard src/*/$(f)_missing.c)))
MISSING_FEATURES := $(strip $(foreach f,$(FEATURES),$(if $(filter $(NEEDS_$(f)),$(MISSING_PKGS)),$(f))))
# $(call optional,SOURCES): SOURCES with each feature's files or its stand-in, not both
optional = $(filter-out $(foreach f,$(FEATURES),$(if $(filter $(f),$(MISSING_FEATURES)),$(SRC_$(f)),$(MISSING_SRC_$(f)))),$(1))
LIB_SRC := $(call optional,$(LIB_SRC))
# The HTTP server and the web UI: a front end over libtraza, linked into the traza
# program and the tests that drive it, never part of libtraza.a or libtraza.so.
SERVER_SRC := $(call optional,$(sort $(wildcard src/server/*.c)))
CLI_SRC := $(sort $(wildcard src/cli/*.c))
TEST_SRC := $(sort $(wildcard tests/*/test_*.c))
PLUGIN_SRC := $(sort $(wildcard examples/plugins/*.c))
FUZZ_SRC := $(sort $(wildcard fuzz/fuzz_*.c))

LIB_OBJ := $(LIB_SRC:%.c=$(BUILD)/obj/%.o)
# The web UI, embedded into the server: see the web rules below.
SERVER_OBJ := $(SERVER_SRC:%.c=$(BUILD)/obj/%.o) $(BUILD)/obj/gen/web_assets.o
SERVER_LIB := $(BUILD)/libtraza-server.a
# Linked whole: static.c's empty table of web assets is a weak definition, which would
# otherwise keep web_assets.o out of the link.
SERVER_WHOLE = -Wl,--whole-archive $(SERVER_LIB) -Wl,--no-whole-archive
# Protocol buffers (Perfetto's trace format): src/export/*.proto, compiled by protoc-c
# into build/gen/ at build time (the generated code is not committed).
PROTO_SRC := $(sort $(wildcard src/export/*.proto))
PROTO_C := $(patsubst src/export/%.proto,$(PROTO_GEN)/%.pb-c.c,$(PROTO_SRC))
PROTO_H := $(PROTO_C:.c=.h)
LIB_OBJ += $(patsubst $(PROTO_GEN)/%.c,$(BUILD)/obj/gen/%.o,$(PROTO_C))
CLI_OBJ := $(CLI_SRC:%.c=$(BUILD)/obj/%.o)
TEST_BIN := $(patsubst tests/%.c,$(BUILD)/tests/%,$(TEST_SRC))
# Programs tests run (trace generators and the like): tests/<area>/helper_*.c
HELPER_SRC := $(sort $(wildcard tests/*/helper_*.c))
HELPER_BIN := $(patsubst tests/%.c,$(BUILD)/helpers/%,$(HELPER_SRC))
PLUGIN_SO := $(patsubst examples/plugins/%.c,$(BUILD)/plugins/%.so,$(PLUGIN_SRC))
# Fuzz harnesses also build as plain programs that replay their seed corpus (no clang
# needed): that is how `make test` keeps them honest.
REPLAY_BIN := $(patsubst fuzz/%.c,$(BUILD)/fuzz-replay/%,$(FUZZ_SRC))

.PHONY: doc-images fuzz-long tsan all lib cli tests deps test test-fast test-san demo install install-dirs uninstall fuzz bench clean plugins
all: deps-check $(BUILD)/libtraza.a $(BUILD)/libtraza.so $(BUILD)/traza plugins

deps-check:
	@$(PKG_CONFIG) --exists $(PKGS) || { echo "missing libraries: run 'make deps' (or 'make test')" >&2; exit 1; }
.PHONY: deps-check
# Which optional features the build leaves out, and why (on standard error).
features-note:
	@$(if $(MISSING_FEATURES),echo "building without $(MISSING_PKGS): left out $(MISSING_FEATURES) (traza --version lists the features; doc/building.md)" >&2,:)
.PHONY: features-note

# The package install step of demo, test and test-fast (a test replaces it to check
# that the build after it sees the installed packages: tests/cli/t_make_fresh.sh).
DEPS_CMD ?= bash scripts/install-deps.sh
deps:
	@$(DEPS_CMD)

# The library's objects hide every symbol but the public API, which its headers mark
# (#pragma GCC visibility): libtraza.so exports traza_* only (tests/cli/t_exports.sh).
$(LIB_OBJ) $(SERVER_OBJ): VISIBILITY := -fvisibility=hidden
$(BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) $(VISIBILITY) -MMD -MP -c $< -o $@

$(PROTO_GEN)/%.pb-c.c $(PROTO_GEN)/%.pb-c.h: src/export/%.proto
	@mkdir -p $(PROTO_GEN)
	protoc-c --c_out=$(PROTO_GEN) --proto_path=src/export $<
$(BUILD)/obj/gen/%.pb-c.o: $(PROTO_GEN)/%.pb-c.c $(PROTO_GEN)/%.pb-c.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) $(VISIBILITY) -c $< -o $@
# The sources that include a generated header wait for it (a first build has no .d yet).
PROTO_USERS := $(shell grep -l 'pb-c\.h' $(LIB_SRC) fuzz/*.c tests/*/*.c 2>/dev/null)
$(patsubst %.c,$(BUILD)/obj/%.o,$(PROTO_USERS)) $(patsubst src/%.c,build/fuzzobj/%.o,$(PROTO_USERS)): $(PROTO_H)

$(BUILD)/libtraza.a: $(LIB_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

$(SERVER_LIB): $(SERVER_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

$(BUILD)/libtraza.so: $(LIB_OBJ)
	$(CC) -shared -Wl,-soname,libtraza.so.0 $(LDSAN) -o $@ $^ $(LDLIBS_ALL)

# The whole library is linked in and exported (-rdynamic) so plugins resolve their
# libtraza symbols against the host.
WHOLE_ARCHIVE = -Wl,--whole-archive $(BUILD)/libtraza.a -Wl,--no-whole-archive
WHOLE_LIB = $(WHOLE_ARCHIVE) -rdynamic

# The CLI exports only the public API (src/cli/exports.list: traza_*), which is all a
# plugin may call, not every symbol of the static libraries it holds; and its relative
# relocations are packed (DT_RELR, glibc 2.36). The loader then reads 187 kB less of
# symbol tables and 128 kB less of relocations: an ES decompression 1.6 % faster
# (paired runs, bench/ab.c). The binary stays position-independent.
CLI_LINK = $(WHOLE_ARCHIVE) -Wl,--dynamic-list=src/cli/exports.list -Wl,-z,pack-relative-relocs

$(BUILD)/traza: $(CLI_OBJ) $(SERVER_LIB) $(BUILD)/libtraza.a src/cli/exports.list | features-note
	$(CC) $(LDSAN) -o $@ $(CLI_OBJ) $(SERVER_WHOLE) $(CLI_LINK) $(CLI_LIBS)

plugins: $(PLUGIN_SO)
$(BUILD)/plugins/%.so: examples/plugins/%.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -shared -o $@ $<

$(BUILD)/tests/%: tests/%.c $(SERVER_LIB) $(BUILD)/libtraza.a $(wildcard tests/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) $(TEST_CFLAGS) -Itests $(LDSAN) -o $@ $< $(SERVER_WHOLE) $(WHOLE_LIB) $(LDLIBS_ALL) $(TEST_LIBS) -lcmocka

$(BUILD)/fuzz-replay/%: fuzz/%.c fuzz/replay_main.c $(SERVER_LIB) $(BUILD)/libtraza.a $(wildcard fuzz/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) $(LDSAN) -o $@ $< fuzz/replay_main.c $(SERVER_LIB) $(BUILD)/libtraza.a $(LDLIBS_ALL)

$(BUILD)/helpers/%: tests/%.c $(BUILD)/libtraza.a $(wildcard tests/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -Itests $(LDSAN) -o $@ $< $(WHOLE_LIB) $(LDLIBS_ALL)

tests: all $(TEST_BIN) $(HELPER_BIN) $(REPLAY_BIN) plugins

# The whole suite: normal build, then the same tests under ASan+UBSan.
test:
	@$(DEPS_CMD)
	$(MAKE) web
	$(MAKE) tests
	$(MAKE) SAN=1 tests
	$(MAKE) tsan
	$(MAKE) fuzz
	@FUZZ_SECONDS=$(FUZZ_SECONDS) bash tests/run.sh build build/asan

# Bounded fuzzing in `make test`: each libFuzzer harness this many seconds (0: none);
# `make fuzz-long` runs them alone, longer.
FUZZ_SECONDS ?= 20
fuzz-long: fuzz
	@FUZZ_SECONDS=$(or $(FUZZ_LONG_SECONDS),600) bash tests/fuzz_bounded.sh

# traza under ThreadSanitizer (build/tsan/traza), for tests/itf/t_itf_tsan.sh: the
# threads of ITF compression and decompression.
tsan:
	$(MAKE) BUILD=build/tsan OPT="-O1 -g -fsanitize=thread" LDSAN=-fsanitize=thread build/tsan/traza

# One pass without the sanitizer build (quicker while developing).
test-fast:
	@$(DEPS_CMD)
	$(MAKE) web
	$(MAKE) tests
	@bash tests/run.sh $(BUILD)

# DEMO_RUN: what runs once the build is done (the test of the fresh-machine build sets
# it to true, so as to check the build alone).
DEMO_RUN ?= bash scripts/demo.sh
demo:
	@$(DEPS_CMD)
	@$(MAKE) --no-print-directory web
	@$(MAKE) --no-print-directory all
	@$(DEMO_RUN) $(BUILD)/traza

# The library is compiled once with coverage instrumentation, then each harness is
# linked against it (make build/fuzz/fuzz_tzi builds one).
# FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION (the libFuzzer/OSS-Fuzz convention): the
# .tzi reader then ignores its checksums, so that mutations reach the decoders.
FUZZ_CC := clang -std=c11 -D_GNU_SOURCE -DTRAZA_EXPERIMENTAL_API -DFUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION -g -O1 -Iinclude -Isrc -I$(PROTO_GEN) $(PKG_CFLAGS)
FUZZ_OBJ := $(patsubst src/%.c,build/fuzzobj/%.o,$(LIB_SRC) $(SERVER_SRC)) $(patsubst $(PROTO_GEN)/%.c,build/fuzzobj/gen/%.o,$(PROTO_C))
build/fuzzobj/%.o: src/%.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) -fsanitize=fuzzer-no-link,address,undefined -MMD -MP -c $< -o $@
build/fuzzobj/gen/%.o: $(PROTO_GEN)/%.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) -fsanitize=fuzzer-no-link,address,undefined -c $< -o $@
-include $(wildcard build/fuzzobj/*/*.d)
build/fuzz/%: fuzz/%.c $(FUZZ_OBJ)
	@mkdir -p build/fuzz
	$(FUZZ_CC) -fsanitize=fuzzer,address,undefined -o $@ $< $(FUZZ_OBJ) $(PKG_LIBS) $(EXTRA_LIBS) -ldl -lpthread -lm
.SECONDARY: $(FUZZ_OBJ)
fuzz: $(patsubst fuzz/%.c,build/fuzz/%,$(FUZZ_SRC))

bench: all
	@bash bench/run-all.sh $(BUILD)/traza

# The screenshots of doc/viewer.md: the web UI on the real traces of TRAZA_TEST_DATA (chromium
# headless, web/test/docshots.mjs), quantised to 256 colours by pngquant.
TRAZA_TEST_DATA ?= ../shared/data
DOC_IMAGES := doc/img/timeline.png doc/img/callstack.png doc/img/diff.png doc/img/diff-sides.png doc/img/variables.png doc/img/tarmac-calls.png
doc-images: all
	cd web && node test/docshots.mjs $(abspath $(BUILD)/traza) $(abspath $(TRAZA_TEST_DATA)) $(abspath doc/img)
	pngquant --force --ext .png --strip $(DOC_IMAGES)

# Install: the directories written under PREFIX; those an install creates are listed
# in lib/traza/install-dirs, and uninstall removes them (when empty), and no others.
INSTALL_ROOT = $(DESTDIR)$(PREFIX)
INSTALL_DIRS := bin lib lib/pkgconfig lib/traza lib/traza/plugins include include/traza \
                share share/man share/man/man1 share/bash-completion share/bash-completion/completions \
                share/zsh share/zsh/vendor-completions
INSTALL_DIRS_LIST := lib/traza/install-dirs
MAN_PAGES    := $(notdir $(wildcard man/*.1))
HEADERS      := $(notdir $(wildcard include/traza/*.h))
BASH_COMPLETION := share/bash-completion/completions/traza
ZSH_COMPLETION  := share/zsh/vendor-completions/_traza

install-dirs:
	@new=$$(for d in $(INSTALL_DIRS); do [ -d "$(INSTALL_ROOT)/$$d" ] || echo "$$d"; done); \
	install -d $(addprefix $(INSTALL_ROOT)/,$(INSTALL_DIRS)) && \
	if [ -n "$$new" ]; then printf '%s\n' $$new >> $(INSTALL_ROOT)/$(INSTALL_DIRS_LIST); fi

install: all install-dirs
	install -m 755 $(BUILD)/traza $(INSTALL_ROOT)/bin/traza
	install -m 644 $(BUILD)/libtraza.a $(INSTALL_ROOT)/lib/libtraza.a
	install -m 755 $(BUILD)/libtraza.so $(INSTALL_ROOT)/lib/libtraza.so.$(VERSION)
	ln -sf libtraza.so.$(VERSION) $(INSTALL_ROOT)/lib/libtraza.so.0
	ln -sf libtraza.so.0 $(INSTALL_ROOT)/lib/libtraza.so
	install -m 644 $(addprefix include/traza/,$(HEADERS)) $(INSTALL_ROOT)/include/traza/
	sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@VERSION@|$(VERSION)|g' -e 's|@PKGS@|$(PKGS_PC)|g' -e 's|@EXTRA_LIBS@|$(EXTRA_LIBS)|g' \
	  scripts/traza.pc.in > $(INSTALL_ROOT)/lib/pkgconfig/traza.pc
	install -m 644 $(addprefix man/,$(MAN_PAGES)) $(INSTALL_ROOT)/share/man/man1/
	install -m 644 scripts/completion/traza.bash $(INSTALL_ROOT)/$(BASH_COMPLETION)
	install -m 644 scripts/completion/_traza $(INSTALL_ROOT)/$(ZSH_COMPLETION)

uninstall:
	rm -f $(INSTALL_ROOT)/bin/traza $(addprefix $(INSTALL_ROOT)/lib/,libtraza.a libtraza.so libtraza.so.0 libtraza.so.$(VERSION)) \
	  $(addprefix $(INSTALL_ROOT)/include/traza/,$(HEADERS)) $(INSTALL_ROOT)/lib/pkgconfig/traza.pc \
	  $(addprefix $(INSTALL_ROOT)/share/man/man1/,$(MAN_PAGES)) \
	  $(INSTALL_ROOT)/$(BASH_COMPLETION) $(INSTALL_ROOT)/$(ZSH_COMPLETION)
	@if [ -f $(INSTALL_ROOT)/$(INSTALL_DIRS_LIST) ]; then \
	  dirs=$$(sort -ru $(INSTALL_ROOT)/$(INSTALL_DIRS_LIST)); rm -f $(INSTALL_ROOT)/$(INSTALL_DIRS_LIST); \
	  for d in $$dirs; do rmdir --ignore-fail-on-non-empty "$(INSTALL_ROOT)/$$d" 2>/dev/null || true; done; \
	fi

clean:
	rm -rf build

-include $(shell find build -name '*.d' 2>/dev/null)
-include rt/rt.mk

# ---- web UI: web/ is built with npm (vite) into web/dist, which becomes a
# generated C file of byte arrays compiled into the server (no files needed at run time).
# `make web` installs the npm packages (`npm install --no-save`: the versions
# package-lock.json pins; `npm ci` is not used because npm 11 rejects this lock file for
# lacking other platforms' optional rollup packages) and builds the bundle; `make test`
# and `make demo` run it. An ordinary `make` never installs anything: it rebuilds the
# bundle when web/ changed and the packages are there, and otherwise embeds the bundle it
# has (web/dist) or, with none, builds traza without its UI (the server then says so on
# /; the JSON API still works) and says to run `make web`.
WEB_SRC := $(sort $(wildcard web/src/*.js web/src/*.css)) web/index.html web/vite.config.js web/package-lock.json
web:
	@command -v npm >/dev/null 2>&1 || { echo "make web: npm is needed (apt-get install npm)" >&2; exit 1; }
	cd web && { [ node_modules/.package-lock.json -nt package-lock.json ] || npm install --no-audit --no-fund --no-save; }
	@! grep -qs unbuilt build/web.stamp || rm -f build/web.stamp
	@$(MAKE) --no-print-directory build/web.stamp
.PHONY: web
build/web.stamp: $(WEB_SRC)
	@mkdir -p build
	@if [ -d web/node_modules ] && command -v npm >/dev/null 2>&1; then cd web && npm run build --silent && echo built >../$@; \
	elif [ -f web/dist/index.html ]; then echo "note: web/ changed but its npm packages are not installed: embedding the web UI built before (make web rebuilds it)" >&2; echo unbuilt >$@; \
	else echo "warning: building traza without its web UI (make web builds it)" >&2; echo unbuilt >$@; fi
$(BUILD)/gen/web_assets.c: build/web.stamp scripts/web-embed.py
	@mkdir -p $(dir $@)
	python3 scripts/web-embed.py web/dist $@
$(BUILD)/obj/gen/web_assets.o: $(BUILD)/gen/web_assets.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -c $< -o $@
