# Sourced by the build scripts (run-example.sh, test.sh, fuzz.sh): how they configure CMake.
#  - Ninja for new build trees (CMAKE_GENERATOR; a tree keeps the generator it was made with).
#  - ccache in front of the compilers (Debian's ccache, installed by install-deps.sh;
#    KILN_CCACHE=0 turns it off): a build that repeats, in any clone whose build trees sit in
#    the clone's root as these scripts put them, takes its objects from the cache. Paths under
#    the repository root are hashed relative to it (CCACHE_BASEDIR) and the build folder is not
#    hashed (CCACHE_NOHASHDIR), so a clone in another folder hits too. A hit is the object the
#    same compiler, flags and preprocessed source made: it changes no test's outcome.
# After sourcing: kiln_cmake_launcher holds the CMake arguments that put ccache in place (or
# take it out of a tree that had it).
kiln_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
if command -v ninja >/dev/null; then
  export CMAKE_GENERATOR=${CMAKE_GENERATOR:-Ninja}
fi
kiln_cmake_launcher=(-DCMAKE_C_COMPILER_LAUNCHER= -DCMAKE_CXX_COMPILER_LAUNCHER=)
if [[ ${KILN_CCACHE:-1} != 0 ]] && command -v ccache >/dev/null; then
  export CCACHE_DIR=${CCACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/ccache}
  export CCACHE_BASEDIR=$kiln_root CCACHE_NOHASHDIR=1
  kiln_cmake_launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi
