#!/bin/sh
# logged.sh LOG CMD [ARG...]: runs CMD with its output in LOG; when it fails,
# shows the end of LOG (and of a config.log or *.sh.log beside it: where
# configure and make check say why) and exits with CMD's status.
log=$1
shift
"$@" > "$log" 2>&1 && exit 0
rc=$?
echo "failed (exit $rc): $*" >&2
for f in "$log" config.log *.sh.log; do
  [ -f "$f" ] || continue
  echo "--- last lines of $f:" >&2
  tail -n 40 "$f" >&2
done
exit $rc
