# Spack recipe for dfnav. It is not (yet) in Spack's builtin repository:
# README (Install, With Spack) says how to add it to a repository of your
# own. tests/shell/packaging.sh checks that every variant below maps to a
# configure option that exists.

from spack.package import *

try:
    # Spack 1.0 moved the build systems into its builtin package repository
    from spack_repo.builtin.build_systems.autotools import AutotoolsPackage
except ImportError:
    pass  # Spack 0.x: spack.package provides AutotoolsPackage


class Dfnav(AutotoolsPackage):
    """Fast explorer and batch reports for DFTracer I/O traces: loads a
    trace set of any format era on all cores and answers where the I/O time
    went, by time range, process, layer, file system, file and call, in an
    ncurses explorer or as text, CSV or JSON. Also installs dfnav-gen, a
    generator of synthetic DLIO-like traces with their ground truth."""

    # No homepage, release tarball or public git URL has been published
    # yet, so these are placeholders (.invalid never resolves): point `git`
    # at your clone of the repository (a file:// URL works), or build a
    # local checkout with `spack develop` as README describes.
    homepage = "https://dfnav.invalid/"
    git = "https://dfnav.invalid/dfnav.git"

    # Only the development branch: release versions get a url and a
    # sha256 here once release tarballs (`make dist`) are published.
    version("main", branch="main")

    variant(
        "isal",
        default=True,
        description="Inflate gzip traces with ISA-L (about twice as fast as zlib)",
    )
    variant(
        "mpi",
        default=False,
        description="Divide the parse among the ranks of an MPI job (mpirun -n N dfnav report ...)",
    )

    # A git checkout has no ./configure: Spack's autoreconf phase makes it
    # (`autoreconf -ivf` with the build dependencies' macros, pkg.m4 too).
    depends_on("autoconf", type="build")
    depends_on("automake", type="build")
    depends_on("libtool", type="build")
    depends_on("m4", type="build")
    # configure finds zlib, ncursesw and libisal through pkg-config
    depends_on("pkgconfig", type="build")
    depends_on("ncurses")
    depends_on("zlib")
    depends_on("isa-l", when="+isal")
    # configure finds it through pkg-config (mpi-c, ompi-c or mpich)
    depends_on("mpi", when="+mpi")

    # jsmn (a header-only JSON tokenizer, jsmn.h) and libcsv (csv.h,
    # -lcsv) have no Spack packages, and no checksummed source could be
    # verified when this recipe was written, so it neither packages nor
    # downloads them: they are external. configure finds them where the
    # compiler looks by default (Debian/Ubuntu: apt-get install libjsmn-dev
    # libcsv-dev), or where the spec's flags say, e.g.
    #   spack install dfnav cppflags="-I/opt/jsmn/include -I/opt/libcsv/include" \
    #       ldflags="-L/opt/libcsv/lib -Wl,-rpath,/opt/libcsv/lib"
    # and stops with a message naming what is missing otherwise.
    #
    # `spack install --test=root dfnav` runs `make check`; its Criterion
    # suites need Criterion, which Spack does not package either, and are
    # skipped (configure says so) without it.

    def configure_args(self):
        # no-isal is a real choice: zlib only, even when ISA-L is found;
        # likewise no MPI support, even when an MPI is installed
        return [
            "--with-isal" if self.spec.satisfies("+isal") else "--without-isal",
            "--with-mpi" if self.spec.satisfies("+mpi") else "--without-mpi",
        ]
