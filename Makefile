# The etl toolkit.  One Makefile: build, test, install, demo.
#
#   make            build the tools into bin/
#   make demo       install missing build dependencies, build, run the demo
#   make check      build and run the test suite (unit, CLI, corpus),
#                   installing the tools it uses first (.ci/deps.sh)
#   make check-asan the same suite under AddressSanitizer and UBSan
#   make check-tsan the tools' threads under ThreadSanitizer
#   make bench      instructions per event, throughput against zstd -1
#   make fuzz       each libFuzzer target in tests/fuzz for FUZZ_SECONDS
#                   (clang with its fuzzer runtime; FUZZ_TARGETS=fuzz_etl ...)
#   make install    PREFIX=/usr/local DESTDIR=
#   make windows    the tools as static 64-bit .exe files (mingw-w64)
#   make dist-windows  those, the PowerShell pipelines, the recording
#                   profile and the manual as HTML, in one zip
#
# CFLAGS belongs to the user; project flags go in MOREFLAGS.  Local settings
# may be kept in config.mak.  V=1 shows the commands.

-include config.mak

PREFIX     ?= /usr/local
prefix     ?= $(PREFIX)
BINDIR     ?= $(prefix)/bin
MANDIR     ?= $(prefix)/share/man
INSTALL    ?= install
INSTALL_PROGRAM ?= $(INSTALL) -m 755
INSTALL_DATA    ?= $(INSTALL) -m 644

CC         ?= cc
AR         ?= ar
PKG_CONFIG ?= pkg-config
CFLAGS     ?= -O2 -g
MOREFLAGS  ?= -std=c11 -Wall -Wextra -Wshadow -Wstrict-prototypes \
              -Wmissing-prototypes -Wno-unused-parameter
CPPFLAGS   += -D_POSIX_C_SOURCE=200809L -D_FILE_OFFSET_BITS=64 -Ilib
ZSTD_LIBS  ?= $(shell $(PKG_CONFIG) --libs libzstd 2>/dev/null || echo -lzstd)
PCRE2_LIBS ?= $(shell $(PKG_CONFIG) --libs libpcre2-8 2>/dev/null || echo -lpcre2-8)
CSV_LIBS   ?= -lcsv
MSPACK_LIBS ?= $(shell $(PKG_CONFIG) --libs libmspack 2>/dev/null || echo -lmspack)
CURL_LIBS  ?= $(shell $(PKG_CONFIG) --libs libcurl 2>/dev/null || echo -lcurl)
# libxlsxwriter writes etlreport -f xlsx; XLSX=no builds without it
# (-DETL_NO_XLSX: the format is left out, nothing else changes).
XLSX       ?= yes
ifeq ($(XLSX),yes)
XLSX_LIBS  ?= $(shell $(PKG_CONFIG) --libs xlsxwriter 2>/dev/null || echo -lxlsxwriter -lz)
XLSX_CFLAGS ?= $(shell $(PKG_CONFIG) --cflags xlsxwriter 2>/dev/null)
else
XLSX_LIBS  :=
XLSX_CFLAGS := -DETL_NO_XLSX
endif
CPPFLAGS   += $(XLSX_CFLAGS)
LDLIBS     += $(ZSTD_LIBS) $(PCRE2_LIBS) $(CSV_LIBS) $(MSPACK_LIBS) \
              $(CURL_LIBS) $(XLSX_LIBS) -lm

ifeq ($(V),1)
Q =
else
Q = @
endif

TOOLS      := etlcat etlsym etlagg etlreport etlfilter
# lib/ is a folder a stage (lib/README.md); every object keeps its path.
LIB_SRC    := $(sort $(wildcard lib/*/*.c))
LIB_HDR    := $(wildcard lib/*/*.h)
LIB_OBJ    := $(LIB_SRC:lib/%.c=build/lib/%.o)
TOOL_BIN   := $(TOOLS:%=bin/%)
UNIT_SRC   := $(sort $(wildcard tests/unit/test_*.c))
UNIT_BIN   := $(UNIT_SRC:tests/unit/%.c=build/tests/%)
SYNTH_SRC  := $(sort $(wildcard tests/synth/*.c))
SYNTH_BIN  := $(if $(SYNTH_SRC),build/etlsynth)
MAN        := $(sort $(wildcard man/*.[1-9]))
# Fuzz targets: tests/fuzz/fuzz_NAME.c, seeded by tests/fuzz/fuzz_NAME.seeds
# (and tests/fuzz/fuzz_NAME.dict, tests/fuzz/regress/fuzz_NAME/ if there).
FUZZ_SRC   := $(sort $(wildcard tests/fuzz/fuzz_*.c))
FUZZ_NAMES := $(FUZZ_SRC:tests/fuzz/%.c=%)
FUZZ_TARGETS ?= $(FUZZ_NAMES)
FUZZ_SECONDS ?= 60
FUZZ_CC    ?= clang
FUZZ_FLAGS ?= -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined \
              -fno-sanitize-recover=undefined
FUZZ_OBJ   := $(LIB_SRC:lib/%.c=build/fuzz/obj/%.o)
FUZZ_REGRESS := $(FUZZ_NAMES:%=build/fuzz/regress/%)
FUZZ_SEEDS := $(FUZZ_NAMES:%=build/fuzz/seeds/%.stamp)

ALL_CFLAGS = $(CPPFLAGS) $(MOREFLAGS) $(CFLAGS)

.PHONY: all demo deps check check-asan check-tsan test bench fuzz install uninstall clean

all: $(TOOL_BIN) $(SYNTH_BIN)

build/lib/%.o: lib/%.c $(LIB_HDR)
	@mkdir -p $(@D)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(ALL_CFLAGS) -c -o $@ $<

build/libetl.a: $(LIB_OBJ)
	@$(if $(Q),echo "  AR      $@")
	$(Q)rm -f $@ && $(AR) rcs $@ $^

bin/%: tools/%.c build/libetl.a
	@mkdir -p $(@D)
	@$(if $(Q),echo "  CCLD    $@")
	$(Q)$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $< build/libetl.a $(LDLIBS)

build/tests/%: tests/unit/%.c tests/unit/harness.h tests/fuzz/craft.h build/libetl.a
	@mkdir -p $(@D)
	@$(if $(Q),echo "  CCLD    $@")
	$(Q)$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $< build/libetl.a $(LDLIBS)

build/etlsynth: $(SYNTH_SRC) tests/synth/*.h build/libetl.a
	@mkdir -p $(@D)
	@$(if $(Q),echo "  CCLD    $@")
	$(Q)$(CC) $(ALL_CFLAGS) -Itests/synth $(LDFLAGS) -o $@ $(SYNTH_SRC) \
	    build/libetl.a $(LDLIBS)

# ---- fuzzing (tests/fuzz/run.sh says what each run did) ----

build/craft: tests/fuzz/craft.c tests/fuzz/craft.h build/libetl.a
	@mkdir -p $(@D)
	@$(if $(Q),echo "  CCLD    $@")
	$(Q)$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $< build/libetl.a $(LDLIBS)

build/fuzz/crafted.stamp: build/craft testdata/sample.etl
	@rm -rf build/fuzz/crafted && mkdir -p build/fuzz/crafted
	$(Q)build/craft testdata/sample.etl build/fuzz/crafted
	@touch $@

build/fuzz/seeds/%.stamp: tests/fuzz/%.seeds build/fuzz/crafted.stamp \
    $(TOOL_BIN) $(SYNTH_BIN)
	@rm -rf build/fuzz/seeds/$* && mkdir -p build/fuzz/seeds/$*
	@$(if $(Q),echo "  SEEDS   $*")
	$(Q)PATH="$(CURDIR)/bin:$(CURDIR)/build:$$PATH" \
	    sh $< build/fuzz/seeds/$* build/fuzz/crafted
	@touch $@

# The targets without libFuzzer, for make check: they replay the seeds.
build/fuzz/regress/%: tests/fuzz/%.c tests/fuzz/regression_driver.c \
    tests/fuzz/fuzz.h build/libetl.a
	@mkdir -p $(@D)
	@$(if $(Q),echo "  CCLD    $@")
	$(Q)$(CC) $(ALL_CFLAGS) -Itests/fuzz $(LDFLAGS) -o $@ $< \
	    tests/fuzz/regression_driver.c build/libetl.a $(LDLIBS)

build/fuzz/obj/%.o: lib/%.c $(LIB_HDR)
	@mkdir -p $(@D)
	@$(if $(Q),echo "  FUZZCC  $<")
	$(Q)$(FUZZ_CC) $(CPPFLAGS) $(MOREFLAGS) $(FUZZ_FLAGS) \
	    -fsanitize=fuzzer-no-link -c -o $@ $<

build/fuzz/libetl.a: $(FUZZ_OBJ)
	@$(if $(Q),echo "  AR      $@")
	$(Q)rm -f $@ && $(AR) rcs $@ $^

build/fuzz/bin/%: tests/fuzz/%.c tests/fuzz/fuzz.h build/fuzz/libetl.a
	@mkdir -p $(@D)
	@$(if $(Q),echo "  FUZZLD  $@")
	$(Q)$(FUZZ_CC) $(CPPFLAGS) $(MOREFLAGS) $(FUZZ_FLAGS) -fsanitize=fuzzer \
	    -Itests/fuzz $(LDFLAGS) -o $@ $< build/fuzz/libetl.a $(LDLIBS)

fuzz: $(FUZZ_TARGETS:%=build/fuzz/bin/%) $(FUZZ_TARGETS:%=build/fuzz/seeds/%.stamp)
	@sh tests/fuzz/run.sh $(FUZZ_SECONDS) $(FUZZ_TARGETS)

deps:
	@sh .ci/deps.sh

demo: deps
	@$(MAKE) --no-print-directory all
	@sh pipelines/demo.sh

# The tools the tests use come first: the fuzz seeds are made with python3.
check:
	@sh .ci/deps.sh --tests
	@sh .ci/npm.sh build/npm
	@$(MAKE) --no-print-directory all $(UNIT_BIN) $(FUZZ_REGRESS) \
	    $(FUZZ_SEEDS) build/fuzz/crafted.stamp
	@sh .ci/windows-build.sh "$(MAKE)" $(WIN_DEPS) $(WIN_CC) $(WIN_AR)
	@sh tests/run.sh

test: check

# The whole suite again, built with sanitizers into a separate tree.
# clang's UBSan checks pointer arithmetic that gcc's does not (an offset
# added to NULL), so clang builds it when it can link the sanitizers
# (Debian: clang and libclang-rt-14-dev); gcc otherwise, with a message.
ASAN_CC    ?= clang
ASAN_FLAGS ?= -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer \
              -fno-sanitize-recover=undefined
check-asan:
	@$(MAKE) --no-print-directory clean
	@probe=$$(mktemp) && \
	if echo 'int main(void) { return 0; }' | $(ASAN_CC) $(ASAN_FLAGS) \
	    -x c -o "$$probe" - >/dev/null 2>&1; then cc="$(ASAN_CC)"; \
	else cc=gcc; echo "check-asan: $(ASAN_CC) cannot link the" \
	    "sanitizers (install clang and libclang-rt-14-dev); building" \
	    "with gcc, whose UBSan misses arithmetic on NULL" >&2; fi; \
	rm -f "$$probe"; echo "check-asan: CC=$$cc"; \
	$(MAKE) --no-print-directory check CC="$$cc" \
	    CFLAGS="$(ASAN_FLAGS)" LDFLAGS="-fsanitize=address,undefined"
	@$(MAKE) --no-print-directory clean

# The tools' threads under ThreadSanitizer (clang), over the sample and
# etlsynth's scenarios (tests/tsan.sh), built into a tree of its own and
# cleaned away after.
TSAN_CC    ?= clang
TSAN_FLAGS ?= -O1 -g -fsanitize=thread -fno-omit-frame-pointer
check-tsan:
	@$(MAKE) --no-print-directory clean
	@$(MAKE) --no-print-directory all build/etlsynth CC="$(TSAN_CC)" \
	    CFLAGS="$(TSAN_FLAGS)" LDFLAGS="-fsanitize=thread"
	@sh tests/tsan.sh; rc=$$?; $(MAKE) --no-print-directory clean; \
	    exit $$rc

bench: all
	@sh tests/bench.sh

install: $(TOOL_BIN)
	$(INSTALL) -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1 \
	    $(DESTDIR)$(MANDIR)/man5
	$(INSTALL_PROGRAM) $(TOOL_BIN) $(DESTDIR)$(BINDIR)
	$(INSTALL_DATA) $(filter %.1,$(MAN)) $(DESTDIR)$(MANDIR)/man1
	$(INSTALL_DATA) $(filter %.5,$(MAN)) $(DESTDIR)$(MANDIR)/man5

uninstall:
	rm -f $(TOOLS:%=$(DESTDIR)$(BINDIR)/%)
	rm -f $(patsubst man/%,$(DESTDIR)$(MANDIR)/man1/%,$(filter %.1,$(MAN)))
	rm -f $(patsubst man/%,$(DESTDIR)$(MANDIR)/man5/%,$(filter %.5,$(MAN)))

# Windows: static 64-bit .exe files cross-built with mingw-w64 into
# build-windows/bin.  zstd, PCRE2, libcsv, libmspack, zlib and
# libxlsxwriter (etlreport -f xlsx, as on Linux) are built for Windows
# from Debian's source packages by .ci/windows-deps.sh, once
# (build-windows/deps and the rest of build-windows are left by `make
# clean`: `make clean-windows` removes them); etlsym's downloads use
# WinHTTP, which Windows has.  The tools are those of TOOLS; a tool that
# needs more libraries, named in WIN_EXTRA_<tool>, is skipped with a
# message while those are not built for Windows (not in
# build-windows/deps/lib).  Lib sources that need such libraries go in
# WIN_LIB_EXCLUDE.  The tests are tests/cli/windows.sh and
# tests/cli/windows-sym.sh.
.PHONY: windows windows-tools dist-windows clean-windows FORCE

WIN_CC       ?= x86_64-w64-mingw32-gcc
WIN_AR       ?= x86_64-w64-mingw32-ar
WIN_WINDRES  ?= x86_64-w64-mingw32-windres
WIN_CFLAGS   ?= -O2
WIN_DIR      := build-windows
WIN_DEPS     := $(WIN_DIR)/deps
WIN_EXTRA_etlsym ?= mspack
WIN_LIB_EXCLUDE  ?=
WIN_CPPFLAGS  = -D__USE_MINGW_ANSI_STDIO=1 -D_FILE_OFFSET_BITS=64 \
                -DPCRE2_STATIC -Ilib -I$(WIN_DEPS)/include
WIN_ALL_CFLAGS = $(WIN_CPPFLAGS) $(MOREFLAGS) $(WIN_CFLAGS)
# WinHTTP, part of Windows, makes etlsym's downloads (lib/sym/sym_http.c).
WIN_LDLIBS    = -L$(WIN_DEPS)/lib $(foreach t,$(WIN_EXTRA_$*),-l$(t)) \
                -lzstd -lpcre2-8 -lcsv -lxlsxwriter -lz -lwinhttp -lm
WIN_LIB_OBJ  := $(patsubst lib/%.c,$(WIN_DIR)/obj/%.o, \
                $(filter-out $(WIN_LIB_EXCLUDE),$(LIB_SRC)))
win_missing   = $(foreach l,$(WIN_EXTRA_$(1)), \
                $(if $(wildcard $(WIN_DEPS)/lib/lib$(l).a),,lib$(l)))
WIN_TOOLS     = $(foreach t,$(TOOLS),$(if $(strip $(call win_missing,$(t))),,$(t)))

windows:
	$(Q)sh .ci/windows-deps.sh $(WIN_DEPS) $(WIN_CC) $(WIN_AR)
	@$(MAKE) --no-print-directory windows-tools

windows-tools: $(WIN_TOOLS:%=$(WIN_DIR)/bin/%.exe)
	@$(foreach t,$(filter-out $(WIN_TOOLS),$(TOOLS)),echo \
	    "windows: $(t).exe skipped: it needs $(strip \
	    $(call win_missing,$(t)))," \
	    "which .ci/windows-deps.sh does not build for Windows";)

# The flags the objects were compiled with: a tree built before the
# flags changed (as when -DETL_NO_XLSX left xlsx out) is compiled again.
$(WIN_DIR)/obj/flags: FORCE
	@mkdir -p $(@D)
	@echo '$(WIN_ALL_CFLAGS)' | cmp -s - $@ 2>/dev/null || \
	    echo '$(WIN_ALL_CFLAGS)' >$@

$(WIN_DIR)/obj/%.o: lib/%.c $(LIB_HDR) $(WIN_DIR)/obj/flags
	@mkdir -p $(@D)
	@$(if $(Q),echo "  WINCC   $<")
	$(Q)$(WIN_CC) $(WIN_ALL_CFLAGS) -c -o $@ $<

$(WIN_DIR)/obj/platform-res.o: lib/base/platform.rc lib/base/platform.manifest
	@mkdir -p $(@D)
	@$(if $(Q),echo "  WINDRES $<")
	$(Q)$(WIN_WINDRES) -Ilib/base -O coff -o $@ $<

$(WIN_DIR)/libetl.a: $(WIN_LIB_OBJ)
	$(Q)rm -f $@ && $(WIN_AR) rcs $@ $^

$(WIN_DIR)/bin/%.exe: tools/%.c $(WIN_DIR)/libetl.a $(WIN_DIR)/obj/platform-res.o
	@mkdir -p $(@D)
	@$(if $(Q),echo "  WINLD   $@")
	$(Q)$(WIN_CC) $(WIN_ALL_CFLAGS) -static -s -o $@ $< \
	    $(WIN_DIR)/obj/platform-res.o $(WIN_DIR)/libetl.a $(WIN_LDLIBS)

# The zip a Windows user unpacks: bin\ (the .exe files), pipelines\ (the
# .ps1 scripts and the WPR profile), man\ (the manual as HTML), README.
WIN_DIST := $(WIN_DIR)/etl-windows-x64
dist-windows: windows
	rm -rf $(WIN_DIST) $(WIN_DIST).zip
	mkdir -p $(WIN_DIST)/bin $(WIN_DIST)/pipelines $(WIN_DIST)/man
	cp $(WIN_DIR)/bin/*.exe $(WIN_DIST)/bin/
	cp $(wildcard pipelines/*.ps1 pipelines/*.wprp) $(WIN_DIST)/pipelines/
	for m in $(MAN); do \
	    mandoc -T html -O man=%N.%S.html $$m \
	    >$(WIN_DIST)/man/$${m#man/}.html || exit 1; done
	cp README.md $(WIN_DIST)/
	cd $(WIN_DIR) && zip -q -r -X etl-windows-x64.zip etl-windows-x64
	@echo "windows: $(WIN_DIST).zip"

clean-windows:
	rm -rf $(WIN_DIR)

clean:
	rm -rf build bin
