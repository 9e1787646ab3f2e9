# Counts the instructions of function `fn` on its fast path in each Arm
# assembly file given: from its label down to its first return (pop ... pc,
# or bx lr), which is the path that falls through every branch (llc puts
# the cold slow path after the return). The first file is the stack
# frame's build, the second the demoted frame's; prints both counts and
# whether the demoted one is within `budget` instructions of the other.
#   awk -v fn=frame -v budget=8 -f fast-path-count.awk stack.s demoted.s
FNR == 1 { file++; on = 0 }
$0 == fn ":" || index($0, fn ":") == 1 { on = 1; next }
on && /^\t[a-z]/ {
  n[file]++
  if ($1 == "pop" && $0 ~ /pc/ || $1 == "bx" && $2 == "lr") on = 0
}
END {
  d = n[2] - n[1]
  printf "stack frame: %d instructions; demoted frame: %d; +%d %s\n", n[1], n[2], d,
         (d <= budget ? "within " budget : "OVER " budget)
}
