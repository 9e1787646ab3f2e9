#!/usr/bin/env python3
"""Mutate an llvm-stress module so that it exercises more of ScopeAlloc.

llvm-stress emits one function whose entry block holds five scalar allocas,
a web of blocks joined by `br`, and a single `ret void`. That is a thin diet
for a pass that rewrites allocations and every way out of a function, so this
filter (stdin -> stdout, deterministic for a given --seed) adds, each with
some probability:

  arrays    entry allocas become [K x T] arrays with larger alignments
            (up to 4096), some above the default 1024-byte limit
  scopes    `!scope` metadata: global, global.workspace, local,
            global.stack, global.fuzzpool (a named pool)
  dynamic   entry allocas with a run-time element count
  vla       in non-entry blocks (loops included): llvm.stacksave, a dynamic
            alloca and a constant one outside the entry block, a store, and
            llvm.stackrestore before the terminator; sometimes without the
            save/restore pair (memory held until return)
  exits     blocks are split before their terminator by a branch on a
            volatile flag to a new exit: `ret void`, a `musttail` self call,
            or an `invoke` whose landing pad ends in `resume` (the function
            gets a personality)
  lifetime  llvm.lifetime.start/end on the entry allocas
  cannot    an `inalloca` and a `swifterror` alloca (must stay on the stack)

Usage:  llvm-stress -seed=N | mutate_ir.py --seed N [--only a,b] > out.ll
        llvm-stress -seed=N | mutate_ir.py --seed N --combo L > out.ll
"""
import argparse
import random
import re
import sys

ALL = ["arrays", "scopes", "dynamic", "vla", "exits", "lifetime", "cannot"]
SCOPES = ["global", "global.workspace", "local", "global.stack",
          "global.fuzzpool"]

LABEL = re.compile(r"^([A-Za-z0-9_.$-]+):")
DEFINE = re.compile(r"^define (.*?)@([A-Za-z0-9_.$]+)\((.*)\)(.*)\{\s*$")
ALLOCA = re.compile(r"^  (%[A-Za-z0-9_.]+) = alloca (.+?), align (\d+)\s*$")
TERMINATORS = ("  br ", "  ret ", "  switch ", "  unreachable", "  resume ",
               "  indirectbr ")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("--only", default="",
                    help="comma-separated subset of: " + ",".join(ALL) +
                    " (default: a random subset chosen by the seed)")
    ap.add_argument("--combo", type=int, metavar="L",
                    help="instead of one function, write seven copies: "
                    "@<f>.raw.0 (unmutated) and @<f>.<kind>.<limit> for kind "
                    "mut (the default random subset), all (every mutation) and "
                    "limit 0, default (no attribute), L, each limit set by the function "
                    "attribute \"scope-alloc-max-stack-alloca\"; one opt/llc "
                    "run then covers them all")
    args = ap.parse_args()
    text = sys.stdin.read()
    if args.combo is not None:
        # raw with the default limit is left unchanged by the pass (its
        # five scalars fit), so only raw.0 is kept of the raw kind.
        variants = [(kind, ".%s.%s" % (kind, lim), lim)
                    for kind in ("raw", "mut", "all")
                    for lim in ("0", "default", str(args.combo))
                    if kind != "raw" or lim == "0"]
    else:
        variants = [(args.only or "mut", "", "default")]
    sys.stdout.write(build(text, args.seed, variants))


def build(text, seed, variants):
    """variants: [(kind, name suffix, limit attribute or "default")];
    kind is raw, mut (random subset), all, or a comma-separated list."""
    lines = text.split("\n")
    prefix, funcs = [], []
    i = 0
    while i < len(lines):
        m = DEFINE.match(lines[i])
        if not m:
            prefix.append(lines[i])
            i += 1
            continue
        j = i + 1
        while lines[j] != "}":
            j += 1
        funcs.append((m, lines[i + 1:j]))
        i = j + 1

    md = []          # extra metadata lines
    decls = set()    # extra declarations / globals
    counter = [0]

    def fresh(stem):
        counter[0] += 1
        return "%%fz.%s%d" % (stem, counter[0])

    def scope_md(name):
        ident = "!%d" % (9000 + len(md))
        md.append('%s = !{!"%s"}' % (ident, name))
        return ident

    result = [l for l in prefix if l.strip()]
    for kind, suffix, limit in variants:
        rng = random.Random(seed * 7919 + 17)
        if kind == "raw":
            enabled = set()
        elif kind == "mut":
            enabled = {m for m in ALL if rng.random() < 0.7}
        else:
            enabled = set(ALL) if kind == "all" else set(kind.split(","))
            bad = enabled - set(ALL)
            if bad:
                sys.exit("mutate_ir.py: unknown mutation(s): " + ",".join(sorted(bad)))
        attr = "" if limit == "default" else \
            ' "scope-alloc-max-stack-alloca"="%s"' % limit
        for m, body in funcs:
            result.append("")
            result.extend(mutate_function(m, body, rng, enabled, fresh,
                                          scope_md, decls, suffix, attr))
            result.append("}")

    tail = []
    if decls:
        tail.append("")
        tail.extend(sorted(decls))
    if md:
        tail.append("")
        tail.extend(md)
    return "\n".join(result) + "\n" + "\n".join(tail) + "\n"


def split_blocks(body):
    """[(label, [lines])]; the entry block's label may be None."""
    blocks = []
    cur_label, cur = None, []
    for ln in body:
        m = LABEL.match(ln)
        if m:
            if cur or cur_label is not None:
                blocks.append((cur_label, cur))
            cur_label, cur = m.group(1), []
        else:
            cur.append(ln)
    blocks.append((cur_label, cur))
    return blocks


def mutate_function(m, body, rng, enabled, fresh, scope_md, decls, suffix, attr):
    fname = m.group(2) + suffix
    params = [p.strip() for p in m.group(3).split(",") if p.strip()]
    header = "define %s@%s(%s)%s%s{" % (m.group(1), fname, m.group(3), attr,
                                        m.group(4) if m.group(4).strip() else " ")
    ret_void = " void " in " " + m.group(1) + " "
    blocks = split_blocks(body)
    entry_label, entry = blocks[0]

    # --- entry allocas -------------------------------------------------
    allocas = []  # names
    new_entry = []
    pre = []      # instructions placed at the top of the entry block
    need_count = "dynamic" in enabled or "vla" in enabled
    if need_count:
        decls.add("@fz.count = global i32 3")
        pre.append("  %fz.n = load volatile i32, ptr @fz.count, align 4")
    if "exits" in enabled:
        decls.add("@fz.flag = global i1 false")
        pre.append("  %fz.c = load volatile i1, ptr @fz.flag, align 1")
    if "cannot" in enabled:
        pre.append("  %fz.inalloca = alloca inalloca i32, align 4")
        pre.append("  %fz.swifterror = alloca swifterror ptr, align 8")
    for ln in entry:
        a = ALLOCA.match(ln)
        if not a:
            new_entry.append(ln)
            continue
        name, ty, align = a.group(1), a.group(2), int(a.group(3))
        allocas.append(name)
        count = ""
        if "arrays" in enabled and rng.random() < 0.8:
            k = rng.choice([1, 2, 3, 7, 16, 100, 129, 257, 1000, 4097])
            ty = "[%d x %s]" % (k, ty)
            align = max(align, rng.choice([1, 8, 16, 32, 64, 128, 4096]))
        if "dynamic" in enabled and rng.random() < 0.4:
            count = ", i32 %fz.n"
        meta = ""
        if "scopes" in enabled and rng.random() < 0.6:
            meta = ", !scope " + scope_md(rng.choice(SCOPES))
        new_entry.append("  %s = alloca %s%s, align %d%s" %
                         (name, ty, count, align, meta))
    # Static allocas first, then the loads, then the dynamic entry allocas
    # (which use %fz.n), then the lifetime markers.
    static = [l for l in new_entry if " = alloca " in l and "%fz.n" not in l]
    dynamic = [l for l in new_entry if " = alloca " in l and "%fz.n" in l]
    others = [l for l in new_entry if " = alloca " not in l]
    lifetime = []
    if "lifetime" in enabled:
        decls.add("declare void @llvm.lifetime.start.p0(i64 immarg, ptr nocapture)")
        decls.add("declare void @llvm.lifetime.end.p0(i64 immarg, ptr nocapture)")
        lifetime = ["  call void @llvm.lifetime.start.p0(i64 -1, ptr %s)" % a
                    for a in allocas]
    cannot_allocas = [p for p in pre if " = alloca " in p]
    pre_rest = [p for p in pre if " = alloca " not in p]
    entry = static + cannot_allocas + pre_rest + dynamic + lifetime + others
    n_entry_head = len(entry) - len(others)
    blocks[0] = (entry_label, entry)

    # --- per-block mutations ---------------------------------------------
    extra_blocks = []
    personality = False
    # Splitting a block renames the predecessor of its successors' phis.
    can_split = not any(" = phi " in l for l in body)
    for bi, (label, blines) in enumerate(blocks):
        term_idx = len(blines) - 1
        while term_idx >= 0 and not blines[term_idx].startswith(TERMINATORS):
            term_idx -= 1
        if term_idx < 0:
            continue
        first = 0
        while first < len(blines) and (" = phi " in blines[first] or
                                       " = landingpad " in blines[first]):
            first += 1
        if bi == 0:
            first = n_entry_head
        head, mid, term, rest = (blines[:first], blines[first:term_idx],
                                 blines[term_idx], blines[term_idx + 1:])
        before_term = []
        if "vla" in enabled and bi > 0 and rng.random() < 0.3:
            decls.add("declare ptr @llvm.stacksave.p0()")
            decls.add("declare void @llvm.stackrestore.p0(ptr)")
            ss, dyn, fixed = fresh("ss"), fresh("vla"), fresh("fix")
            paired = rng.random() < 0.75
            ins = []
            if paired:
                ins.append("  %s = call ptr @llvm.stacksave.p0()" % ss)
            ins.append("  %s = alloca i8, i32 %%fz.n, align %d" %
                       (dyn, rng.choice([1, 16, 64, 256])))
            ins.append("  store volatile i8 1, ptr %s, align 1" % dyn)
            if rng.random() < 0.5:
                ins.append("  %s = alloca [%d x i32], align 16" %
                           (fixed, rng.choice([4, 300, 2000])))
                ins.append("  store volatile i32 2, ptr %s, align 4" % fixed)
            head = head + ins
            if paired:
                before_term.append("  call void @llvm.stackrestore.p0(ptr %s)" % ss)
        if term.startswith("  ret ") and lifetime:
            before_term += ["  call void @llvm.lifetime.end.p0(i64 -1, ptr %s)" % a
                            for a in allocas]
        if "exits" in enabled and can_split and rng.random() < 0.25:
            # Split the block before its terminator: a new exit on %fz.c.
            exit_label = "fz.exit%d" % len(extra_blocks)
            cont_label = "fz.cont%d" % len(extra_blocks)
            kind = rng.choice(["ret", "musttail", "resume"])
            ret = "  ret void" if ret_void else "  unreachable"
            eb = ["%s:" % cont_label] + before_term + [term] + rest
            before_term, rest = [], []
            term = "  br i1 %%fz.c, label %%%s, label %%%s" % (exit_label, cont_label)
            eb.append("%s:" % exit_label)
            if kind == "musttail" and ret_void:
                eb.append("  musttail call void @%s(%s)" % (fname, ", ".join(params)))
                eb.append(ret)
            elif kind == "resume":
                personality = True
                decls.add("declare void @fz.may_throw()")
                cont, lp = exit_label + ".cont", exit_label + ".lpad"
                eb.append("  invoke void @fz.may_throw() to label %%%s unwind label %%%s"
                          % (cont, lp))
                eb += ["%s:" % cont, ret]
                eb += ["%s:" % lp,
                       "  %%fz.lp.%s = landingpad { ptr, i32 } cleanup" % exit_label,
                       "  resume { ptr, i32 } %%fz.lp.%s" % exit_label]
            else:
                eb.append(ret)
            extra_blocks.append(eb)
        blocks[bi] = (label, head + mid + before_term + [term] + rest)

    if personality:
        decls.add("declare i32 @__gxx_personality_v0(...)")
        header = header[:-1].rstrip() + " personality ptr @__gxx_personality_v0 {"

    out = [header]
    for label, blines in blocks:
        if label is not None:
            out.append("%s:" % label)
        out.extend(blines)
    for eb in extra_blocks:
        out.append("")
        out.extend(eb)
    return out


if __name__ == "__main__":
    main()
