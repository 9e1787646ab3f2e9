# The options every real-world driver script takes (run.sh, bounds.sh,
# zlib-report.sh), parsed once. Sourced before common.sh.
#
# rw_parse_args NAME ARGS...: reads --prefix, --work, --jobs (also as
#   --opt=value) and -h/--help into the variables prefix, work and jobs (set
#   the defaults first); the other arguments are left, in order, in the
#   array rw_rest for the script's own options.
# rw_check_prefix NAME FILE...: makes prefix absolute and checks that it
#   holds each FILE; creates the work directory and makes it absolute.

rw_parse_args() {
  local name=$1
  shift
  rw_rest=()
  while [ $# -gt 0 ]; do
    case $1 in
      --prefix | --work | --jobs)
        [ $# -ge 2 ] || { echo "$name: $1 needs a value" >&2; exit 2; }
        printf -v "${1#--}" '%s' "$2"
        shift 2 ;;
      --prefix=* | --work=* | --jobs=*)
        local key=${1%%=*}
        printf -v "${key#--}" '%s' "${1#*=}"
        shift ;;
      -h | --help)
        # The usage is the script's opening comment.
        sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'
        exit 0 ;;
      *) rw_rest+=("$1"); shift ;;
    esac
  done
}

rw_check_prefix() {
  local name=$1 f absolute
  shift
  absolute=$(cd "$prefix" 2>/dev/null && pwd) ||
    { echo "$name: no install prefix $prefix" >&2; exit 1; }
  prefix=$absolute
  for f in "$@"; do
    [ -e "$prefix/$f" ] ||
      { echo "$name: $prefix/$f missing (install ScopeAlloc there first)" >&2; exit 1; }
  done
  mkdir -p "$work"
  work=$(cd "$work" && pwd)
}
