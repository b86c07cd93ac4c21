# Builds the fuzz targets: the engine and each target compiled with clang
# for libFuzzer, AddressSanitizer and UndefinedBehaviorSanitizer, apart from
# the gcc build of `make`. Run by `make fuzz` from the build tree's fuzz/
# directory, which passes every variable below.
#   SRCDIR TOP_BUILDDIR ENGINE_SOURCES FUZZ_CC WARNFLAGS DEP_CFLAGS DEP_LIBS
TARGETS := fuzz_parse fuzz_gzip fuzz_filter fuzz_walk fuzz_wire fuzz_partial fuzz_qspec fuzz_remote
SANITIZE := -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
CFLAGS_FUZZ := -std=c11 -D_GNU_SOURCE -DHAVE_CONFIG_H -g -O1 $(SANITIZE) $(WARNFLAGS) \
	-I$(TOP_BUILDDIR) -I$(SRCDIR)/include -I$(SRCDIR)/src $(DEP_CFLAGS) \
	-DDFN_DATADIR='"$(SRCDIR)/data"' -DDFN_SRCDATADIR='"$(SRCDIR)/data"'
ENGINE_OBJ := $(patsubst %.c,obj/%.o,$(notdir $(ENGINE_SOURCES))) obj/presets.o
vpath %.c $(SRCDIR)/src $(TOP_BUILDDIR)/src $(SRCDIR)/tests/fuzz

all: $(TARGETS)

obj/%.o: %.c
	@mkdir -p obj
	@echo "  FUZZCC   $@"
	@$(FUZZ_CC) $(CFLAGS_FUZZ) -MMD -MP -c $< -o $@

libengine-fuzz.a: $(ENGINE_OBJ)
	@rm -f $@ && ar rc $@ $^

fuzz_%: obj/fuzz_%.o libengine-fuzz.a
	@echo "  FUZZLD   $@"
	@$(FUZZ_CC) -fsanitize=fuzzer,address,undefined $^ -o $@ $(DEP_LIBS) -lpthread -lm

.PRECIOUS: obj/%.o
-include $(wildcard obj/*.d)
