#!/bin/sh
# What the packages promise: the man pages document exactly the options the
# programs take (against --help and against the programs themselves) and
# render without a warning; the Spack recipe's variants map to options
# configure has; the Debian changelog carries the version the programs say.
. "$SRCDIR/tests/shell/lib.sh"

# The option names of a man page: the tags (.TP lines) of its OPTIONS
# section that hold a long option, as --name.
man_options() {
    awk '/^\.SH / { sec = $0 } sec == ".SH OPTIONS" && tp { print } { tp = ($0 == ".TP") }' "$1" |
        grep -o '\\-\\-[a-z0-9][a-z0-9\\-]*' | sed 's/\\-/-/g' | sort -u
}
# Every long option a man page names anywhere (synopsis, prose, examples).
man_mentions() {
    grep -o '\\-\\-[a-z0-9][a-z0-9\\-]*' "$1" | sed 's/\\-/-/g' | sort -u
}
# The options --help lists, one a line: "  -b, --by DIMS ..." or "  --seed N ...".
help_options() {
    grep -E '^ +(-[a-zA-Z], )?--[a-z]' | sed -E 's/^ +(-[a-zA-Z], )?(--[a-z0-9-]+).*/\2/' | sort -u
}
# Every long option --help names anywhere.
help_mentions() {
    grep -o -- '--[a-z][a-z0-9-]*' | sort -u
}

# check_options PROGRAM MANPAGE
check_options() {
    prog=$1 page=$2 name=$(basename "$1")
    "$prog" --help >"$T/help" 2>&1 || fail "$name --help exits 0"
    help_options <"$T/help" >"$T/help.opts"
    man_options "$page" >"$T/man.opts"
    # dfnav lists 30 options and dfnav-gen 25: an empty or tiny list means
    # the parsing broke, not that everything matched
    n=$(wc -l <"$T/help.opts")
    [ "$n" -ge 20 ] && ok || fail "$name --help: only $n options found"
    n=$(wc -l <"$T/man.opts")
    [ "$n" -ge 20 ] && ok || fail "$(basename "$page"): only $n options found in OPTIONS"
    if cmp -s "$T/help.opts" "$T/man.opts"; then ok; else
        fail "$name: --help and $(basename "$page") document different options (< --help only, > man page only):"
        diff "$T/help.opts" "$T/man.opts" | grep '^[<>]' >&2
    fi
    # an option --help mentions in passing (dfnav cache [--clear]) is in
    # the man page too
    man_mentions "$page" >"$T/man.all"
    help_mentions <"$T/help" | comm -23 - "$T/man.all" >"$T/missing"
    if [ ! -s "$T/missing" ]; then ok; else
        fail "$name: options --help names but $(basename "$page") does not: $(tr '\n' ' ' <"$T/missing")"
    fi
    # and the program takes every option its man page names: without a
    # value or a path it complains about those, never about the option
    bad=""
    while IFS= read -r opt; do
        case $opt in --help | --version | --keys) continue ;; esac   # print and exit 0
        (cd "$T" && "$prog" "$opt" </dev/null >/dev/null 2>"$T/opt.err")
        if grep -Eq "unrecognized option|unknown option" "$T/opt.err"; then bad="$bad $opt"; fi
    done <"$T/man.all"
    if [ -z "$bad" ]; then ok; else fail "$name does not take options its man page names:$bad"; fi
}

check_options "$DFNAV" "$SRCDIR/man/dfnav.1"
check_options "$DFNAV_GEN" "$SRCDIR/man/dfnav-gen.1"

# the checks above can fail: an option --help lists that the page lacks
sed '/^\.TP$/{N;/seed/d}' "$SRCDIR/man/dfnav-gen.1" >"$T/noseed.1"
man_options "$T/noseed.1" >"$T/noseed.opts"
"$DFNAV_GEN" --help | help_options >"$T/gen.opts"
check "a page without --seed is caught" "--seed" "$(comm -23 "$T/gen.opts" "$T/noseed.opts")"

# Both pages render without a warning, as man(1) shows them and as groff
# checks them with every warning on.
for page in dfnav.1 dfnav-gen.1; do
    if command -v groff >/dev/null 2>&1; then
        groff -man -Tutf8 -ww -z "$SRCDIR/man/$page" 2>"$T/groff.err"
        if [ ! -s "$T/groff.err" ]; then ok; else
            fail "groff warns on man/$page: $(head -5 "$T/groff.err")"
        fi
    else
        echo "SKIP: groff not installed (apt-get install groff-base): man/$page not rendered"
    fi
    if command -v man >/dev/null 2>&1; then
        MANWIDTH=80 man --warnings -l "$SRCDIR/man/$page" >"$T/man.txt" 2>"$T/man.err"
        if [ ! -s "$T/man.err" ] && grep -q "^NAME" "$T/man.txt"; then ok; else
            fail "man -l man/$page: $(head -5 "$T/man.err")"
        fi
    fi
done

# The Spack recipe, run against a stand-in for Spack's package API: each
# variant, on and off, must change configure_args, and every flag it
# gives must be an option ./configure --help lists (--with-X and
# --without-X, --enable-X and --disable-X, are one option each). So a
# variant for something configure lacks (cuda, say)
# fails here.
RECIPE="$SRCDIR/packaging/spack/package.py"
if ! command -v python3 >/dev/null 2>&1; then
    echo "SKIP: python3 not installed: the Spack recipe is not checked"
elif [ ! -f "$SRCDIR/configure" ]; then
    fail "no $SRCDIR/configure to compare the Spack recipe with (run ./bootstrap)"
else
    sh "$SRCDIR/configure" --help >"$T/configure.help" 2>&1 || fail "configure --help"
    mkdir -p "$T/stub/spack"
    : >"$T/stub/spack/__init__.py"
    cat >"$T/stub/spack/package.py" <<'EOF'
# Just enough of spack.package to load a recipe and call configure_args.
VARIANTS = {}

def variant(name, default=None, values=None, **kw):
    VARIANTS[name] = {"default": default, "values": values}

def _nothing(*args, **kw):
    return lambda f: f

version = depends_on = conflicts = patch = resource = provides = requires = _nothing
extends = license = maintainers = build_system = _nothing
run_before = run_after = on_package_attributes = lambda *a, **k: (lambda f: f)

def mkdirp(*paths):
    pass

class Spec:
    def __init__(self, values):
        self.values = values

    def satisfies(self, text):
        # "+name", "~name", "name=value"; anything else is not understood
        if text[:1] in "+~":
            return self.values[text[1:]] == (text[0] == "+")
        if "=" in text:
            name, value = text.split("=", 1)
            return str(self.values[name]) == value
        raise ValueError("stub cannot evaluate " + text)

    def __contains__(self, text):
        return self.satisfies(text)

    @property
    def variants(self):
        return self.values

class AutotoolsPackage:
    def __init__(self, values):
        self.spec = Spec(values)

    def _flag(self, on, off, name, variant=None):
        return ["--%s-%s" % (on if self.spec.values[variant or name] else off, name)]

    def with_or_without(self, name, activation_value=None, variant=None):
        return self._flag("with", "without", name, variant)

    def enable_or_disable(self, name, activation_value=None, variant=None):
        return self._flag("enable", "disable", name, variant)

__all__ = [n for n in dir() if not n.startswith("_")]
EOF
    cat >"$T/recipe.py" <<'EOF'
import importlib.util, re, sys
recipe, help_file = sys.argv[1], sys.argv[2]
import spack.package as sp
spec = importlib.util.spec_from_file_location("recipe", recipe)
mod = importlib.util.module_from_spec(spec)
spec.loader.exec_module(mod)
cls = [c for c in vars(mod).values() if isinstance(c, type) and issubclass(c, sp.AutotoolsPackage) and c is not sp.AutotoolsPackage]
if len(cls) != 1:
    print("FAIL: %d AutotoolsPackage classes in the recipe" % len(cls)); sys.exit(0)
helptext = open(help_file).read()
defaults = {n: v["default"] for n, v in sp.VARIANTS.items()}
print("variants: " + " ".join(sorted(defaults)))
def known(flag):
    m = re.match(r"--(with|without|enable|disable)-([a-z0-9-]+)(=.*)?$", flag)
    if m:
        kind = "(with|without)" if m.group(1) in ("with", "without") else "(enable|disable)"
        return re.search(r"--%s-%s\b" % (kind, re.escape(m.group(2))), helptext) is not None
    return re.search(r"(^|\s)%s\b" % re.escape(flag.split("=")[0]), helptext, re.M) is not None
flags = set()
for name, default in sorted(defaults.items()):
    if not isinstance(default, bool):
        print("FAIL: variant %s is not boolean: extend the stub to try its values" % name); continue
    args = {}
    for value in (True, False):
        values = dict(defaults, **{name: value})
        args[value] = cls[0](values).configure_args()
        flags.update(args[value])
    if args[True] == args[False]:
        print("FAIL: variant %s changes no configure option" % name)
    else:
        print("ok: variant %s: %s / %s" % (name, " ".join(args[True]), " ".join(args[False])))
for flag in sorted(flags):
    print(("ok: " if known(flag) else "FAIL: not in configure --help: ") + flag)
EOF
    PYTHONDONTWRITEBYTECODE=1 PYTHONPATH="$T/stub" python3 "$T/recipe.py" "$RECIPE" "$T/configure.help" >"$T/recipe.out" 2>&1 ||
        echo "FAIL: the recipe did not load: $(tail -3 "$T/recipe.out")" >>"$T/recipe.out"
    cat "$T/recipe.out"
    grep -q '^variants: .*isal' "$T/recipe.out" && ok || fail "the recipe has no isal variant"
    grep -q '^ok: --with-isal$' "$T/recipe.out" && ok || fail "the recipe does not pass --with-isal"
    grep -q '^ok: --without-isal$' "$T/recipe.out" && ok || fail "the recipe does not pass --without-isal"
    n=$(grep -c '^FAIL' "$T/recipe.out")
    check "Spack recipe problems" 0 "$n"
    grep -q '^ok: --with-mpi$' "$T/recipe.out" && ok || fail "the recipe does not pass --with-mpi"
    grep -q '^ok: --without-mpi$' "$T/recipe.out" && ok || fail "the recipe does not pass --without-mpi"
    # the same check catches a variant configure lacks
    sed 's/^    def configure_args(self):/    variant("cuda", default=False, description="CUDA")\n&/' "$RECIPE" >"$T/cuda.py"
    sed -i 's/^        \]$/        ] + (["--with-cuda"] if self.spec.satisfies("+cuda") else [])/' "$T/cuda.py"
    PYTHONDONTWRITEBYTECODE=1 PYTHONPATH="$T/stub" python3 "$T/recipe.py" "$T/cuda.py" "$T/configure.help" >"$T/cuda.out" 2>&1
    grep -q '^FAIL: not in configure --help: --with-cuda$' "$T/cuda.out" && ok ||
        fail "a recipe with a cuda variant is not caught: $(cat "$T/cuda.out")"
fi

# The Debian package's version is the one configure and the programs carry.
want=$("$DFNAV" --version | sed -n '1s/^dfnav \([^ ]*\).*/\1/p')
got=$(sed -n '1s/^dfnav (\([^)]*\)).*/\1/p' "$SRCDIR/debian/changelog")
check "debian/changelog version" "$want" "$got"
[ -n "$want" ] && ok || fail "dfnav --version names no version: $("$DFNAV" --version | head -1)"
finish
