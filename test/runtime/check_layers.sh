#!/usr/bin/env bash
# check_layers.sh <nm> <archive> <source>...
#
# The runtime's layering, checked on a built archive: the sources are given
# in layer order, lowest first (runtime/CMakeLists.txt: SCOPEALLOC_LAYER_ORDER),
# and the member built from each (<file>.o) may reference (undefined, weak
# included) no symbol that a later member defines. Hence no cycles, and a
# static link pulls in only the layers a program uses. Every member of the
# archive must be placed in the order.
set -euo pipefail
nm=$1 archive=$2
shift 2

declare -A rank
i=0
for src in "$@"; do
  rank[$(basename "$src").o]=$i
  i=$((i + 1))
done

# "archive[member]: symbol type value size", external symbols only.
listing=$("$nm" -P -A -g "$archive")
status=0

members=$(sed -n 's/^[^[]*\[\([^]]*\)\]:.*/\1/p' <<<"$listing" | sort -u)
for m in $members; do
  if [ -z "${rank[$m]+x}" ]; then
    echo "check_layers: $archive: member $m is in no layer" >&2
    status=1
  fi
done

# symbol -> the member defining it.
declare -A definer
while read -r member sym type _; do
  case $type in U | w | v) continue ;; esac
  definer[$sym]=$member
done < <(sed -n 's/^[^[]*\[\([^]]*\)\]: \(.*\)/\1 \2/p' <<<"$listing")

while read -r member sym type _; do
  case $type in U | w | v) ;; *) continue ;; esac
  def=${definer[$sym]-}
  [ -n "$def" ] && [ -n "${rank[$member]+x}" ] && [ -n "${rank[$def]+x}" ] || continue
  if [ "${rank[$def]}" -gt "${rank[$member]}" ]; then
    echo "check_layers: $archive: $member references $sym, defined by $def, a higher layer" >&2
    status=1
  fi
done < <(sed -n 's/^[^[]*\[\([^]]*\)\]: \(.*\)/\1 \2/p' <<<"$listing")

[ "$status" = 0 ] && echo "layers ok: $(basename "$archive"), $i members"
exit "$status"
