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
