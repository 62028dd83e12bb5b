# The etl toolkit.  One Makefile: build, test, install, demo.
#
#   make            build the tools into bin/
#   make demo       install missing build dependencies, build, run the demo
#   make check      build and run the test suite (unit, CLI, corpus)
#   make check-asan the same suite under AddressSanitizer and UBSan
#   make bench      instructions per event, throughput against zstd -1
#   make install    PREFIX=/usr/local DESTDIR=
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
LDLIBS     += $(ZSTD_LIBS) $(PCRE2_LIBS) $(CSV_LIBS) -lm

ifeq ($(V),1)
Q =
else
Q = @
endif

TOOLS      := etlcat etlagg etlreport etlfilter
LIB_SRC    := $(sort $(wildcard lib/*.c))
LIB_OBJ    := $(LIB_SRC:lib/%.c=build/lib/%.o)
TOOL_BIN   := $(TOOLS:%=bin/%)
UNIT_SRC   := $(sort $(wildcard tests/unit/test_*.c))
UNIT_BIN   := $(UNIT_SRC:tests/unit/%.c=build/tests/%)
SYNTH_SRC  := $(sort $(wildcard tests/synth/*.c))
SYNTH_BIN  := $(if $(SYNTH_SRC),build/etlsynth)
MAN        := $(sort $(wildcard man/*.[1-9]))

ALL_CFLAGS = $(CPPFLAGS) $(MOREFLAGS) $(CFLAGS)

.PHONY: all demo deps check check-asan test bench install uninstall clean

all: $(TOOL_BIN) $(SYNTH_BIN)

build/lib/%.o: lib/%.c lib/*.h
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

build/tests/%: tests/unit/%.c tests/unit/harness.h build/libetl.a
	@mkdir -p $(@D)
	@$(if $(Q),echo "  CCLD    $@")
	$(Q)$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $< build/libetl.a $(LDLIBS)

build/etlsynth: $(SYNTH_SRC) tests/synth/*.h build/libetl.a
	@mkdir -p $(@D)
	@$(if $(Q),echo "  CCLD    $@")
	$(Q)$(CC) $(ALL_CFLAGS) -Itests/synth $(LDFLAGS) -o $@ $(SYNTH_SRC) \
	    build/libetl.a $(LDLIBS)

deps:
	@sh .ci/deps.sh

demo: deps
	@$(MAKE) --no-print-directory all
	@sh pipelines/demo.sh

check: all $(UNIT_BIN)
	@sh tests/run.sh

test: check

# The whole suite again, built with sanitizers into a separate tree.
check-asan:
	@$(MAKE) --no-print-directory clean
	@$(MAKE) --no-print-directory check \
	    CFLAGS="-O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined" \
	    LDFLAGS="-fsanitize=address,undefined"
	@$(MAKE) --no-print-directory clean

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

clean:
	rm -rf build bin
