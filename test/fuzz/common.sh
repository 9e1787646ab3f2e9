# shellcheck shell=bash
# Shared helpers of the fuzz scripts (sourced).

# expand_seeds "1-300" | "7" | "1-5,9,20-22"  ->  the seeds, space separated
expand_seeds() {
  local spec=$1 part out=""
  local IFS=,
  for part in $spec; do
    case $part in
      *[!0-9-]*|"") echo "bad seed spec '$spec' (use A-B, N or a comma-separated list)" >&2; return 1 ;;
      *-*) out="$out $(seq "${part%-*}" "${part#*-}" | tr '\n' ' ')" ;;
      *) out="$out $part" ;;
    esac
  done
  IFS=' '
  # shellcheck disable=SC2086  # word splitting joins the seeds with single spaces
  echo $out
}

# Runs "bash SCRIPT --one SEED" for every seed of SEED_LIST, JOBS at a time,
# in the work directory $FZ_WORK (each seed run touches done-SEED and, when
# it fails, writes failed-SEED), then prints the summary and returns the
# script's exit status. NAME prefixes the lines; KEPT says where the failing
# inputs are.
fz_run_seeds() { # NAME SCRIPT SEED_LIST SEED_SPEC JOBS KEPT
  local name=$1 script=$2 seed_list=$3 spec=$4 jobs=$5 kept=$6
  local n start end xrc failed nfail ndone
  n=$(echo "$seed_list" | wc -w)
  start=$(date +%s)
  # shellcheck disable=SC2086
  printf '%s\n' $seed_list | xargs -P "$jobs" -n 1 bash "$script" --one
  xrc=$?
  end=$(date +%s)
  failed=$(cat "$FZ_WORK"/failed-* 2>/dev/null | sort -n | uniq)
  nfail=$(echo "$failed" | grep -c . || true)
  ndone=$(find "$FZ_WORK" -maxdepth 1 -name 'done-*' | wc -l)
  if [ "$ndone" -ne "$n" ] || { [ "$xrc" -ne 0 ] && [ "$xrc" -ne 123 ]; }; then
    echo "$name: only $ndone of $n seeds finished (xargs exit $xrc): a seed run was killed or could not start"
    return 1
  fi
  echo "$name: $n seeds ($spec), $nfail failed, $((end - start)) s"
  if [ "$nfail" -gt 0 ]; then
    echo "$name: failing seeds: $(echo "$failed" | tr '\n' ' ')"
    echo "$name: $kept"
    return 1
  fi
  return 0
}
