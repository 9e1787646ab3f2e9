#!/usr/bin/env bash
# secure_env.sh <secure_env program>
#
# A setuid-root program run by another user (AT_SECURE=1) must ignore the
# SCOPEALLOC_* variables that user sets: no abort on a bad
# SCOPEALLOC_RESERVE, no statistics table, no warning. Needs root (to make
# the setuid copy) and setpriv (util-linux); otherwise skipped.
set -u
prog=$1
if [ "$(id -u)" != 0 ] || ! command -v setpriv >/dev/null; then
  echo "SKIP: needs root and setpriv"
  exit 0
fi
dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT
chmod 755 "$dir"
cp "$prog" "$dir/secure_env"
chown root:root "$dir/secure_env"
chmod 4755 "$dir/secure_env"

# Without secure execution the variables are read: garbage aborts.
if (SCOPEALLOC_RESERVE=garbage "$dir/secure_env") >/dev/null 2>&1; then
  echo "FAIL: SCOPEALLOC_RESERVE=garbage accepted in a plain run"
  exit 1
fi

status=0
for env in SCOPEALLOC_RESERVE=garbage SCOPEALLOC_RESERVE=1 \
           SCOPEALLOC_STATS=1 SCOPEALLOC_STATS=bogus \
           SCOPEALLOC_ALLOW_PRIVATE_RUNTIME=1; do
  out=$(env "$env" setpriv --reuid=nobody --regid=nogroup --clear-groups \
          "$dir/secure_env" 2>&1)
  rc=$?
  case $out in
  *AT_SECURE=1*) ;;
  *) echo "SKIP: the setuid copy does not run with AT_SECURE ($out)"
     exit 0 ;;
  esac
  if [ $rc != 0 ] || [[ $out == *scopealloc* ]]; then
    echo "FAIL: $env in a setuid program run by nobody: exit $rc: $out"
    status=1
  fi
done
[ $status = 0 ] && echo "secure execution ignores SCOPEALLOC_* ok"
exit $status
