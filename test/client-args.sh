# Sourced by the client test scripts (rust/, fortran/): reads
#   --prefix <ScopeAlloc install> --work <dir> --llvm-bin <dir>
# into $prefix, $work and $llvm_bin, and defines fail.
prefix= work= llvm_bin=
while [ $# -gt 0 ]; do
  case $1 in
    --prefix) prefix=$2; shift 2 ;;
    --work) work=$2; shift 2 ;;
    --llvm-bin) llvm_bin=$2; shift 2 ;;
    *) echo "$(basename "$0"): unknown argument $1" >&2; exit 2 ;;
  esac
done
[ -n "$prefix" ] && [ -n "$work" ] && [ -n "$llvm_bin" ] ||
  { echo "$(basename "$0"): needs --prefix, --work and --llvm-bin" >&2; exit 2; }
fail() { echo "FAIL: $*" >&2; exit 1; }
