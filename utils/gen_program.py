#!/usr/bin/env python3
"""Generate a random, well-defined C11 program that leans on stack memory.

    gen_program.py --seed N [-o out.c]

The program is deterministic and free of undefined behaviour by construction,
so every correct compiler (plain clang at any -O, clang with ScopeAlloc at
any limit) must print the same lines and exit with the same status:

  * arithmetic is on uint32_t (narrow and 64-bit elements are cast first),
    divisors and moduli are forced odd, shift counts masked to 0..31;
  * every index is reduced modulo the length (or masked for powers of two);
  * every array, VLA, alloca() block and struct is fully initialised where
    it is declared; nothing escapes its lifetime;
  * calls happen only as whole statements (no unspecified argument order
    with side effects); callees have higher indices or are the same function
    (recursion), and each call passes depth-1, so recursion is bounded;
    a global fuel counter bounds the total number of calls per round.

What it exercises: local arrays of many sizes, element types and _Alignas
alignments (up to 4096, checked through the address bits), VLAs and alloca()
/ __builtin_alloca_with_align in loops and nested blocks, recursion with
buffers, buffers passed down by pointer and written by callees, structs
passed by pointer, early returns from loops and switches, switch statements
with fall-through, while loops with break/continue, calls through a function
pointer table, tail calls, memcpy/memset between buffers, compound literals,
a variadic callee (its va_list is a local), structs by value (byval copies,
sret returns), libc writing into local buffers (qsort, snprintf), and
functions marked optnone (locals stay in memory at -O2), goto backwards out
of a VLA's scope, cleanup attributes (run on every way out of a scope), an
always_inline callee with a VLA and alloca() inlined into loops, local
buffers published through a global pointer to the callees, and a main()
whose buffer is sometimes larger than a MiB. main() prints one
line per round (with the fuel left) and a final checksum; its exit status
is derived from it.

About 30% of the seeds (chosen by the seed; `--entries on|off` forces it)
also get an entries section, with its own random stream (the rest of the
program is the same as without it), that main runs after its rounds: 4 to 8
pthreads over one to three start routines (about half named like interrupt
handlers: `Foo_Handler`, `USART1_IRQHandler`), functions with local buffers
filled with their thread's data and checked after their calls and after a
bounded rendezvous of every thread of the same context (so a frame that
threads share shows up as mismatches, every time); a pthread_key_create
destructor and a __cxa_thread_atexit_impl destructor (sometimes one function)
that every exiting thread runs, usually also registered with __cxa_atexit for
a global object; a pthread_atfork handler that several threads run at once
as they fork (the child works with buffers, then _exit()s with a status the
parent checks), usually also registered with atexit or as a destructor; a
pthread_once routine also registered with atexit; qsort and bsearch
comparators with buffers. main joins the threads and prints one line per
thread in order (its results and mismatch counts per context); exit handlers
print at exit. `--summary` says what a seed's section holds.

About 30% of the seeds (`--workspace on|off|auto`; its own random stream
too) also get a workspace section: the calls a code generator emits for its
buffers, which scope-alloc-promote may turn back into stack buffers. Double
buffers (each row a halide_malloc buffer combined with the previous row,
which is then freed; the last row freed by the caller, in the last time
round or after the loop) and kernels on the ScopeAlloc ABI (a mark, a small
tile, a helper taking scratch under the kernel's mark, the release), one
shape or both. main prints the section's hash and whether the kernels left
the default pool's top where they found it ("balanced 1"). Plain clang
builds get the three ABI functions over a static LIFO arena.

About 30% of the seeds (`--native-caller on|off|auto`; its own random
stream) also get a native-caller section: a function kept by attribute
'used' (sometimes also not static, so not internalized) that module-level
asm, code the call graph does not see, calls from a signal handler; through
a chain of static functions it reaches a static function with a buffer that
a constructor also calls. The constructor's own buffer is live while its
raise() runs that handler: a plan that gives both frames one fixed offset
shows up as mismatches ("native ... bad N", issue 46 item 8).
No C++ exceptions or setjmp/longjmp.
"""
import argparse
import random
import sys

ELEM_TYPES = ["uint8_t", "uint16_t", "uint32_t", "uint64_t"]
ELEM_SIZE = {"uint8_t": 1, "uint16_t": 2, "uint32_t": 4, "uint64_t": 8}
ALIGNS = [0, 0, 0, 8, 16, 32, 64, 128, 256, 1024, 4096]


class Array:
    def __init__(self, name, elem, length, const_len, align):
        self.name = name
        self.elem = elem
        self.length = length        # C expression (uint32_t) for the length
        self.const_len = const_len  # int or None for VLA/alloca
        self.align = align          # guaranteed alignment in bytes (0: natural)

    def index(self, e):
        if self.const_len is not None and self.const_len & (self.const_len - 1) == 0:
            return "(%s) & %du" % (e, self.const_len - 1)
        return "(%s) %% %s" % (e, self.length)

    def read(self, e):
        v = "%s[%s]" % (self.name, self.index(e))
        if self.elem == "uint64_t":
            return "(uint32_t)(%s >> 7)" % v
        return "(uint32_t)%s" % v


class Func:
    def __init__(self, gen, idx, nfuncs):
        self.gen = gen
        self.idx = idx
        self.nfuncs = nfuncs
        self.r = gen.r
        self.lines = []
        self.ind = 1
        self.counter = 0
        self.frame_bytes = 0
        # scopes: list of dicts with arrays, structs, scalars
        self.scopes = []
        self.loop_depth = 0
        self.in_switch = 0

    # -- helpers ----------------------------------------------------------
    def emit(self, s):
        self.lines.append("  " * self.ind + s)

    def fresh(self, stem):
        self.counter += 1
        return "%s%d" % (stem, self.counter)

    def push(self):
        self.scopes.append({"arrays": [], "structs": [], "scalars": []})

    def pop(self):
        self.scopes.pop()

    def visible(self, kind):
        out = []
        for sc in self.scopes:
            out.extend(sc[kind])
        return out

    def u32_arrays(self):
        return [a for a in self.visible("arrays") if a.elem == "uint32_t"]

    # -- expressions --------------------------------------------------------
    def leaf(self):
        r = self.r
        k = r.randrange(10)
        scalars = self.visible("scalars")
        if k == 0:
            return "%du" % r.choice([0, 1, 2, 3, 7, 31, 255, 1000, 65535,
                                    0x9e3779b9, 0xffffffff, r.getrandbits(32)])
        if k == 1 and scalars:
            return r.choice(scalars)
        if k == 2:
            return r.choice(["acc", "x", "depth", "len"])
        if k in (3, 4, 5):
            arrays = self.visible("arrays")
            if arrays:
                a = r.choice(arrays)
                return a.read(self.small_expr())
        if k == 6:
            return "buf[(%s) %% len]" % self.small_expr()
        if k == 7:
            structs = self.visible("structs")
            field = r.choice(["a", "b", "arr[%s & 7u]" % self.small_leaf(),
                              "c"])
            base = "s->" if not structs or r.random() < 0.4 else r.choice(structs) + "."
            v = base + field
            return "(uint32_t)(%s)" % v if field == "c" else v
        if k == 8 and scalars:
            return r.choice(scalars)
        if k == 9:
            return "cur_buf[(%s) %% cur_len]" % self.small_expr()
        return "acc"

    def small_leaf(self):
        scalars = self.visible("scalars")
        opts = ["acc", "x", "depth"] + scalars
        if self.r.random() < 0.3:
            return "%du" % self.r.randrange(64)
        return self.r.choice(opts)

    def small_expr(self):
        r = self.r
        a = self.small_leaf()
        if r.random() < 0.5:
            return a
        return "%s %s %s" % (a, r.choice(["+", "^", "*"]), self.small_leaf())

    def expr(self, depth=0):
        r = self.r
        if depth >= 3 or r.random() < 0.3:
            return self.leaf()
        op = r.randrange(12)
        a = self.expr(depth + 1)
        b = self.expr(depth + 1)
        if op < 5:
            return "(%s %s %s)" % (a, r.choice(["+", "-", "*", "^", "|", "&"]), b)
        if op == 5:
            return "(%s << ((%s) & 31u))" % (a, b)
        if op == 6:
            return "(%s >> ((%s) & 31u))" % (a, b)
        if op == 7:
            return "(%s / ((%s) | 1u))" % (a, b)
        if op == 8:
            return "(%s %% ((%s) | 1u))" % (a, b)
        if op == 9:
            return "((uint32_t)(%s %s %s))" % (a, r.choice(["<", "<=", "==", "!=", ">"]), b)
        if op == 10:
            return "(%s ? %s : %s)" % (self.cond(depth + 1), a, b)
        return "mix(%s, %s)" % (a, b)

    def cond(self, depth=1):
        r = self.r
        a = self.expr(depth + 1)
        k = r.randrange(3)
        if k == 0:
            return "((%s) & %du) == 0u" % (a, r.choice([1, 3, 7, 15]))
        if k == 1:
            return "(%s) %s (%s)" % (a, r.choice(["<", ">", "!=", "=="]),
                                     self.expr(depth + 1))
        return "((%s) %% %du) == %du" % (a, r.choice([2, 3, 5]), 0)

    # -- statements ---------------------------------------------------------
    def block(self, nstmts, depth):
        for _ in range(nstmts):
            self.stmt(depth)

    def stmt(self, depth):
        r = self.r
        choices = [
            ("array", 10), ("acc", 8), ("store", 8), ("call", 12),
            ("if", 5 if depth < 3 else 0), ("for", 5 if depth < 3 else 0),
            ("while", 2 if depth < 3 else 0), ("switch", 3 if depth < 3 else 0),
            ("vla", 5), ("alloca", 4), ("struct", 3), ("structop", 3),
            ("ret", 2 if depth > 0 else 1), ("memcpy", 2), ("aligncheck", 2),
            ("block", 2 if depth < 3 else 0), ("pass", 3),
            ("varargs", 2), ("byval", 2), ("literal", 2), ("qsort", 1),
            ("snprintf", 1), ("gptr", 2), ("retry", 2 if depth < 3 else 0),
            ("guard", 2), ("inline", 2),
        ]
        total = sum(w for _, w in choices)
        pick = r.randrange(total)
        for kind, w in choices:
            if pick < w:
                break
            pick -= w
        getattr(self, "s_" + kind)(depth)

    def s_acc(self, depth):
        self.emit("acc = mix(acc, %s);" % self.expr())

    def s_array(self, depth):
        r = self.r
        elem = r.choice(ELEM_TYPES)
        n = r.choice([1, 2, 3, 5, 8, 16, 17, 33, 64, 100, 128, 255, 256, 300,
                      512, 700, 1024, 1500, 2048, 4096])
        if self.frame_bytes + n * ELEM_SIZE[elem] > 96 * 1024:
            n = 16
        self.frame_bytes += n * ELEM_SIZE[elem]
        align = r.choice(ALIGNS)
        name = self.fresh("arr")
        spec = "_Alignas(%d) " % align if align else ""
        self.emit("%s%s %s[%d];" % (spec, elem, name, n))
        self.init_array(name, elem, str(n))
        self.scopes[-1]["arrays"].append(Array(name, elem, "%du" % n, n, align))

    def init_array(self, name, elem, n):
        r = self.r
        k = r.randrange(3)
        if k == 0:
            self.emit("memset(%s, %d, (size_t)(%s) * sizeof(%s));" %
                      (name, r.randrange(256), n, elem))
        else:
            i = self.fresh("i")
            self.emit("for (uint32_t %s = 0; %s < %s; %s++)" % (i, i, n, i))
            self.emit("  %s[%s] = (%s)(%s * %du + (%s));" %
                      (name, i, elem, i, r.choice([1, 3, 2654435761]),
                       self.small_expr()))

    def dyn_len(self, small=False):
        n = self.fresh("n")
        mods = [4, 16, 64] if small else [4, 16, 64, 200, 512]
        self.emit("uint32_t %s = ((%s) %% %du) + 1u;" %
                  (n, self.expr(1), self.r.choice(mods)))
        return n

    def s_vla(self, depth):
        r = self.r
        elem = r.choice(ELEM_TYPES)
        n = self.dyn_len()
        name = self.fresh("vla")
        align = r.choice([0, 0, 16, 64, 256])
        spec = "_Alignas(%d) " % align if align else ""
        self.emit("%s%s %s[%s];" % (spec, elem, name, n))
        self.init_array(name, elem, n)
        self.scopes[-1]["arrays"].append(Array(name, elem, n, None, align))
        self.scopes[-1]["scalars"].append(n)

    def s_alloca(self, depth):
        r = self.r
        elem = r.choice(ELEM_TYPES)
        # alloca() memory lives until the function returns: small in loops
        n = self.dyn_len(small=self.loop_depth > 0)
        name = self.fresh("al")
        if r.random() < 0.5:
            self.emit("%s *%s = (%s *)alloca((size_t)%s * sizeof(%s));" %
                      (elem, name, elem, n, elem))
            align = 0
        else:
            align = r.choice([16, 32, 128, 512])
            self.emit("%s *%s = (%s *)__builtin_alloca_with_align((size_t)%s * sizeof(%s), %d);"
                      % (elem, name, elem, n, elem, align * 8))
        self.init_array(name, elem, n)
        self.scopes[-1]["arrays"].append(Array(name, elem, n, None, align))
        self.scopes[-1]["scalars"].append(n)

    def s_store(self, depth):
        r = self.r
        arrays = self.visible("arrays")
        if arrays and r.random() < 0.8:
            a = r.choice(arrays)
            self.emit("%s[%s] = (%s)(%s);" % (a.name, a.index(self.expr(1)),
                                              a.elem, self.expr()))
        else:
            self.emit("buf[(%s) %% len] = %s;" % (self.expr(1), self.expr()))

    def s_struct(self, depth):
        name = self.fresh("st")
        self.emit("struct S %s;" % name)
        self.emit("s_init(&%s, %s);" % (name, self.expr(1)))
        self.scopes[-1]["structs"].append(name)

    def s_structop(self, depth):
        r = self.r
        structs = self.visible("structs")
        target = "s->" if not structs or r.random() < 0.3 else r.choice(structs) + "."
        k = r.randrange(3)
        if k == 0:
            self.emit("%sarr[(%s) & 7u] += %s;" % (target, self.small_expr(), self.expr(1)))
        elif k == 1:
            self.emit("%sc = %sc * 6364136223846793005ull + %s;" % (target, target, self.expr(1)))
        else:
            self.emit("acc = mix(acc, s_sum(%s));" %
                      ("s" if target == "s->" else "&" + target[:-1]))

    def call_args(self):
        r = self.r
        structs = self.visible("structs")
        sp = "&" + r.choice(structs) if structs and r.random() < 0.6 else "s"
        arrs = self.u32_arrays()
        if arrs and r.random() < 0.8:
            a = r.choice(arrs)
            bp, bl = a.name, a.length
        else:
            bp, bl = "buf", "len"
        return "%s, %s, %s, %s, depth - 1u" % (sp, bp, bl, self.expr(1))

    def callee(self):
        r = self.r
        if r.random() < 0.25:
            return "f%d" % self.idx      # recursion (depth-1 bounds it)
        if self.idx + 1 < self.nfuncs:
            j = r.randrange(self.idx + 1, self.nfuncs)
            if r.random() < 0.2 and self.gen.table_ok(self.idx):
                return "table[(%s) %% %du]" % (self.small_expr(), len(self.gen.table))
            return "f%d" % j
        return "f%d" % self.idx

    def s_call(self, depth):
        t = self.fresh("t")
        self.emit("uint32_t %s = %s(%s);" % (t, self.callee(), self.call_args()))
        self.emit("acc = mix(acc, %s);" % t)

    def s_ret(self, depth):
        r = self.r
        k = r.randrange(3)
        if k == 0:
            self.emit("if (%s) return mix(acc, %s);" % (self.cond(), self.expr(1)))
        elif k == 1 and depth > 0:
            self.emit("if (%s) return %s(%s);" % (self.cond(), self.callee(), self.call_args()))
        else:
            self.emit("if (%s) {" % self.cond())
            self.ind += 1
            self.push()
            self.block(r.randrange(1, 3), depth + 1)
            self.emit("return acc ^ %s;" % self.expr(1))
            self.pop()
            self.ind -= 1
            self.emit("}")

    def nested(self, n, depth):
        self.ind += 1
        self.push()
        self.block(n, depth + 1)
        self.pop()
        self.ind -= 1

    def s_block(self, depth):
        self.emit("{")
        self.nested(self.r.randrange(1, 4), depth)
        self.emit("}")

    def s_if(self, depth):
        r = self.r
        self.emit("if (%s) {" % self.cond())
        self.nested(r.randrange(1, 4), depth)
        if r.random() < 0.5:
            self.emit("} else {")
            self.nested(r.randrange(1, 3), depth)
        self.emit("}")

    def s_for(self, depth):
        r = self.r
        i = self.fresh("k")
        self.emit("for (uint32_t %s = 0; %s < %du; %s++) {" % (i, i, r.randrange(1, 7), i))
        self.ind += 1
        self.push()
        self.scopes[-1]["scalars"].append(i)
        self.loop_depth += 1
        self.block(r.randrange(1, 5), depth + 1)
        if r.random() < 0.3:
            self.emit("if (%s) %s;" % (self.cond(), r.choice(["break", "continue"])))
        self.loop_depth -= 1
        self.pop()
        self.ind -= 1
        self.emit("}")

    def s_while(self, depth):
        r = self.r
        w = self.fresh("w")
        self.emit("uint32_t %s = (%s) %% 5u;" % (w, self.expr(1)))
        self.emit("while (%s-- > 0u) {" % w)
        self.ind += 1
        self.push()
        self.loop_depth += 1
        self.block(r.randrange(1, 4), depth + 1)
        self.emit("if (%s) %s;" % (self.cond(), r.choice(["break", "continue"])))
        self.block(r.randrange(0, 2), depth + 1)
        self.loop_depth -= 1
        self.pop()
        self.ind -= 1
        self.emit("}")

    def s_switch(self, depth):
        r = self.r
        ncases = r.randrange(2, 5)
        self.emit("switch ((%s) %% %du) {" % (self.expr(1), ncases + 1))
        for c in range(ncases):
            self.emit("case %du: {" % c)
            self.nested(r.randrange(1, 3), depth)
            if r.random() < 0.7:
                self.emit("  break;")
            self.emit("}")
            self.emit("/* fall through */")
        self.emit("default: {")
        self.nested(r.randrange(0, 2), depth)
        self.emit("  break;")
        self.emit("}")
        self.emit("}")

    def s_memcpy(self, depth):
        r = self.r
        arrays = self.visible("arrays")
        if len(arrays) < 2:
            return self.s_acc(depth)
        a, b = r.sample(arrays, 2)
        if a.elem != b.elem:
            return self.s_acc(depth)
        m = self.fresh("m")
        self.emit("uint32_t %s = %s < %s ? %s : %s;" % (m, a.length, b.length, a.length, b.length))
        self.emit("memcpy(%s, %s, (size_t)%s * sizeof(%s));" % (a.name, b.name, m, a.elem))

    def s_aligncheck(self, depth):
        aligned = [a for a in self.visible("arrays") if a.align]
        if not aligned:
            return self.s_acc(depth)
        a = self.r.choice(aligned)
        # 0 in every correct build; folded into the checksum
        self.emit("acc += (uint32_t)((uintptr_t)%s & %du);" % (a.name, a.align - 1))

    def s_pass(self, depth):
        # hand a local buffer to a helper that reads and writes through it
        arrs = self.u32_arrays()
        if not arrs:
            return self.s_acc(depth)
        a = self.r.choice(arrs)
        self.emit("acc = mix(acc, scramble(%s, %s, %s));" % (a.name, a.length, self.expr(1)))

    def s_varargs(self, depth):
        # va_list is itself a stack object of the callee
        n = self.r.randrange(1, 6)
        args = ", ".join(self.expr(1) for _ in range(n))
        self.emit("acc = mix(acc, vsum(%du, %s));" % (n, args))

    def s_byval(self, depth):
        # struct Big by value (byval copy) and returned by value (sret)
        b = self.fresh("big")
        self.emit("struct Big %s = make_big(%s);" % (b, self.expr(1)))
        self.emit("%s.v[(%s) %% 40u] ^= %s;" % (b, self.small_expr(), self.expr(1)))
        self.emit("acc = mix(acc, big_sum(%s, %s));" % (b, self.small_expr()))

    def s_literal(self, depth):
        # a compound literal is an unnamed local array
        vals = ", ".join(self.expr(1) for _ in range(self.r.randrange(1, 5)))
        n = self.r.choice([4, 8, 32])
        self.emit("acc = mix(acc, scramble((uint32_t[%d]){%s}, %du, acc));" % (n, vals, n))

    def s_qsort(self, depth):
        arrs = self.u32_arrays()
        if not arrs:
            return self.s_acc(depth)
        a = self.r.choice(arrs)
        self.emit("qsort(%s, %s, sizeof(uint32_t), cmp_u32);" % (a.name, a.length))

    def s_snprintf(self, depth):
        t = self.fresh("txt")
        self.emit("char %s[%d];" % (t, self.r.choice([16, 64, 200])))
        self.emit("snprintf(%s, sizeof %s, \"%%u-%%x-%%u\", %s, %s, %s);" %
                  (t, t, self.expr(1), self.expr(1), self.small_expr()))
        self.emit("acc = mix(acc, hash_str(%s));" % t)

    def s_gptr(self, depth):
        # publish a local buffer through a global pointer for the callees
        arrs = self.u32_arrays()
        if not arrs:
            return self.s_call(depth)
        a = self.r.choice(arrs)
        p, n, t = self.fresh("svp"), self.fresh("svn"), self.fresh("t")
        self.emit("uint32_t *%s = cur_buf, %s = cur_len;" % (p, n))
        self.emit("cur_buf = %s; cur_len = %s;" % (a.name, a.length))
        self.emit("uint32_t %s = %s(%s);" % (t, self.callee(), self.call_args()))
        self.emit("cur_buf = %s; cur_len = %s;" % (p, n))
        self.emit("acc = mix(acc, %s);" % t)

    def s_retry(self, depth):
        # goto backwards out of a VLA's scope (its memory is released)
        r = self.r
        g, label = self.fresh("g"), self.fresh("retry")
        self.emit("uint32_t %s = 0;" % g)
        self.emit("%s:" % label)
        self.emit("{")
        self.ind += 1
        self.push()
        self.s_vla(depth + 1)
        self.block(r.randrange(0, 3), depth + 1)
        self.emit("if (%s++ < %du && (%s)) goto %s;" %
                  (g, r.randrange(1, 5), self.cond(), label))
        self.pop()
        self.ind -= 1
        self.emit("}")

    def s_guard(self, depth):
        # a cleanup attribute runs on every way out of the scope
        g = self.fresh("guard")
        self.emit("struct Guard %s __attribute__((cleanup(guard_done))) = make_guard(%s);"
                  % (g, self.expr(1)))
        self.emit("%s.v[(%s) & 7u] ^= %s;" % (g, self.small_expr(), self.expr(1)))


    def s_inline(self, depth):
        # always_inline callee with a VLA and alloca(): inlined into loops
        self.emit("acc = mix(acc, inl_vla(%s, acc));" % self.expr(1))

    # -- whole function -----------------------------------------------------
    def generate(self):
        r = self.r
        # optnone functions keep every local in memory even at -O2 (the pass
        # is required, so it must still handle them)
        attr = "__attribute__((noinline, optnone)) " if r.random() < 0.15 else \
            "__attribute__((noinline)) " if r.random() < 0.2 else ""
        self.lines.append(attr + "static uint32_t f%d(struct S *s, uint32_t *buf, uint32_t len, "
                          "uint32_t x, uint32_t depth) {" % self.idx)
        self.emit("uint32_t acc = x ^ %du;" % r.getrandbits(32))
        self.emit("if (depth == 0u || fuel == 0u) return acc ^ s->a ^ buf[x % len];")
        self.emit("fuel--;")
        self.push()
        self.block(r.randrange(4, 12), 0)
        for _ in range(r.randrange(1, 3)):
            self.s_call(0)
        self.emit("return mix(acc, %s);" % self.expr(1))
        self.pop()
        self.lines.append("}")
        return self.lines


# -- entry points: threads, exit/fork/thread-exit handlers, library callbacks --
HANDLER_NAMES = ["Worker_Handler", "Task_Handler", "Foo_Handler", "Comm_Handler",
                 "USART1_IRQHandler", "TIM2_IRQHandler", "EXTI0_IRQHandler",
                 "DMA1_Stream0_IRQHandler"]
PH_RUN, PH_KEY, PH_TDTOR, PH_FORK = 0, 1, 2, 3
ENTRY_FRACTION = 0.3   # of the seeds get an entries section


class Entries:
    """The entries section: a self-contained part of the program with its own
    random stream (the rest of the program is the same as without it) that
    runs several threads over functions with local buffers. Each buffer is
    filled with data of its thread (or object), then, after the calls below
    it and a rendezvous of all the threads in the same context (bounded: it
    never blocks a correct program), checked: a frame that several threads
    share shows up as mismatches ("bad") and a different checksum. The
    contexts: the thread start routines (some named like interrupt handlers,
    `*_Handler`, `*_IRQHandler`), a pthread_key_create destructor and a
    __cxa_thread_atexit_impl destructor (each exiting thread runs them, the
    same functions are also registered with __cxa_atexit for a global
    object), a function registered with pthread_atfork (run by several
    forking threads at once) and with atexit (and sometimes as a
    destructor), a pthread_once routine also registered with atexit, qsort
    and bsearch comparators with buffers; forking threads check their
    child's exit status. main joins every thread, then prints one line per
    thread in order; the exit handlers print at exit (one thread left)."""

    def __init__(self, seed):
        self.r = random.Random("entries-%d" % seed)
        self.nw = 0
        self.protos = []
        self.defs = []
        self.ncmp = 0

    @staticmethod
    def wanted(seed):
        return random.Random("entries?%d" % seed).random() < ENTRY_FRACTION

    # -- pieces ---------------------------------------------------------------
    def comparator(self):
        r = self.r
        name = "e_cmp%d" % self.ncmp
        self.ncmp += 1
        m = r.choice([2, 4, 8, 32])
        self.defs.append([
            "static int %s(const void *pa, const void *pb) {" % name,
            "  uint32_t t[%d];  /* x at even indices, y at odd ones */" % m,
            "  e_pair(t, %du, *(const uint32_t *)pa, *(const uint32_t *)pb);" % m,
            "  uint32_t x = t[%d], y = t[%d];" % (m - 2, m - 1),
            "  return (x > y) - (x < y);",
            "}"])
        self.protos.append("static int %s(const void *, const void *);" % name)
        return name

    def worker(self, depth, cmp=None, bsearch=False):
        """A function with local buffers filled from the thread's id, calling
        further workers, then checking its buffers."""
        r = self.r
        name = "e_w%d" % self.nw
        self.nw += 1
        callees = []
        if depth > 0:
            for _ in range(r.choice([0, 1, 1, 1, 2])):
                callees.append(self.worker(depth - 1, cmp if r.random() < 0.5 else None))
        n = r.choice([8, 16, 24, 64, 100, 256, 300])
        align = r.choice([0, 0, 0, 16, 64, 256])
        k = r.getrandbits(32)
        attr = "__attribute__((noinline)) " if r.random() < 0.5 else ""
        L = [attr + "static uint32_t %s(uint32_t id, uint32_t x) {" % name]
        L.append("  %suint32_t a[%d];" % ("_Alignas(%d) " % align if align else "", n))
        L.append("  e_fill(a, %du, id * 0x9e3779b1u ^ %du);" % (n, k))
        L.append("  uint32_t h = x ^ %du;" % r.getrandbits(32))
        m = None
        if r.random() < 0.4:
            m = r.choice([7, 32, 129, 512])
            L.append("  uint8_t b[%d];" % m)
            L.append("  memset(b, (int)(id & 0xffu), sizeof b);")
            L.append("  e_touch(b, sizeof b);")
        for c in callees:
            if r.random() < 0.3:
                L.append("  for (uint32_t k = 0; k < 2u; k++) h = mix(h, %s(id, h + k));" % c)
            else:
                L.append("  h = mix(h, %s(id, h));" % c)
        if cmp and r.random() < 0.7:
            s = r.choice([5, 16, 33, 64])
            L.append("  uint32_t srt[%d];" % s)
            L.append("  e_fill(srt, %du, id + %du);" % (s, r.getrandbits(16)))
            L.append("  qsort(srt, %du, sizeof(uint32_t), %s);" % (s, cmp))
            L.append("  h = mix(h, e_sorted(srt, %du));" % s)
            if bsearch:
                L.append("  uint32_t key = srt[(h & 0xffffu) %% %du];" % s)
                L.append("  const uint32_t *f = (const uint32_t *)bsearch(&key, srt, %du, sizeof(uint32_t), %s);"
                         % (s, cmp))
                L.append("  h = mix(h, f ? *f : 0xfffffu);")
        L.append("  e_sync();")
        L.append("  h = mix(h, e_check(a, %du, id * 0x9e3779b1u ^ %du));" % (n, k))
        if m:
            L.append("  h = mix(h, e_bytes(b, sizeof b, (uint8_t)id));")
        L.append("  return h;")
        L.append("}")
        self.protos.append("static uint32_t %s(uint32_t, uint32_t);" % name)
        self.defs.append(L)
        return name

    def body(self, obj, chains, tail=()):
        """The common body of a context: a buffer, the chains of workers,
        the rendezvous of its phase (obj->phase), the check, the report."""
        r = self.r
        n = r.choice([16, 64, 128, 512, 1024])
        k = r.getrandbits(32)
        L = ["  uint32_t b0 = tl_bad;",
             "  uint32_t a[%d];" % n,
             "  e_fill(a, %du, %s->id * 0x85ebca6bu ^ %du);" % (n, obj, k),
             "  tl_sync = %s->phase;" % obj,
             "  uint32_t h = %s->id ^ %du;" % (obj, r.getrandbits(32))]
        for c in chains:
            L.append("  h = mix(h, %s(%s->id, h));" % (c, obj))
        L.extend(tail)
        L += ["  e_sync();",
              "  h = mix(h, e_check(a, %du, %s->id * 0x85ebca6bu ^ %du));" % (n, obj, k),
              "  e_report(%s, h, tl_bad - b0);" % obj]
        return L

    def chains(self, cmp=None, bsearch=False, most=1):
        # few functions: the section costs compile time in every build
        r = self.r
        return [self.worker(r.choice([0, 0, 1, 1, 2]), cmp, bsearch)
                for _ in range(1 if most == 1 or r.random() < 0.7 else most)]

    # -- the section ------------------------------------------------------------
    def generate(self):
        r = self.r
        nt = r.choice([4, 4, 6, 8])
        # at least two threads run each routine (else it runs one at a time)
        nrout = min(r.choice([1, 2, 2, 3]), nt // 2)
        routines = []
        names = r.sample(HANDLER_NAMES, 3)
        for i in range(nrout):
            rt = {"name": "e_thread%d" % i, "handler": r.random() < 0.5}
            if rt["handler"]:
                rt["name"] = names[i]
            # calls outside the assumptions (fork, waitpid,
            # __cxa_thread_atexit_impl, bsearch) leave a routine's graph
            # open, so its frames keep the bump: rarer in handler-named ones
            open_ok = not rt["handler"] or r.random() < 0.15
            rt["key"] = r.random() < 0.45
            rt["tdtor"] = open_ok and r.random() < 0.45
            rt["fork"] = open_ok and r.random() < 0.4
            rt["qsort"] = r.random() < 0.45
            rt["bsearch"] = open_ok and rt["qsort"] and r.random() < 0.3
            rt["once"] = r.random() < 0.25
            routines.append(rt)
        of = [routines[i % nrout] for i in range(nt)]
        need = [nt, sum(rt["key"] for rt in of), sum(rt["tdtor"] for rt in of),
                sum(rt["fork"] for rt in of)]
        any_key, any_tdtor = need[PH_KEY] > 0, need[PH_TDTOR] > 0
        any_fork = need[PH_FORK] > 0
        any_once = any(rt["once"] for rt in routines)
        # the key destructor and the thread-exit destructor: sometimes one
        # function registered both ways (and with __cxa_atexit)
        same_kd = any_key and any_tdtor and r.random() < 0.4
        k_cxa = any_key and r.random() < 0.8
        d_cxa = any_tdtor and r.random() < 0.8
        h_atexit = any_fork and r.random() < 0.75
        h_dtor_attr = any_fork and r.random() < 0.3
        h_roles = [True, r.random() < 0.5, r.random() < 0.5]  # prepare, parent, child
        o_atexit = any_once and r.random() < 0.6
        # at least one defect-shaped entry (a concurrent context planned as a
        # one-at-a-time entry): a handler-named thread start, a thread-exit
        # destructor also registered with __cxa_atexit, a fork handler also
        # registered with atexit
        # (a handler-named one whose graph is closed: no fork, bsearch,
        # __cxa_thread_atexit_impl)
        def closed_handler(rt):
            return rt["handler"] and not (rt["tdtor"] or rt["fork"] or rt["bsearch"])
        if not (any(closed_handler(rt) for rt in routines) or (any_key and k_cxa) or
                (any_tdtor and d_cxa) or (any_fork and (h_atexit or h_dtor_attr))):
            routines[0].update(handler=True, name=names[0], tdtor=False, fork=False,
                               bsearch=False)
            need = [nt, sum(rt["key"] for rt in of), sum(rt["tdtor"] for rt in of),
                    sum(rt["fork"] for rt in of)]
            any_key, any_tdtor = need[PH_KEY] > 0, need[PH_TDTOR] > 0
            any_fork = need[PH_FORK] > 0
            same_kd = same_kd and any_key and any_tdtor
            k_cxa, d_cxa = k_cxa and any_key, d_cxa and any_tdtor
            h_atexit, h_dtor_attr = h_atexit and any_fork, h_dtor_attr and any_fork

        feats = []
        for rt in routines:
            feats.append("%s%s" % (rt["name"], "".join(
                "+" + f for f in ("key", "tdtor", "fork", "qsort", "bsearch", "once") if rt[f])))
        self.summary = "%d threads; routines %s; key dtor%s; thread-atexit dtor%s%s; " \
            "fork handler%s%s%s; once routine%s" % (
                nt, ", ".join(feats),
                " +__cxa_atexit" if k_cxa else "" if any_key else " none",
                " +__cxa_atexit" if d_cxa else "" if any_tdtor else " none",
                " (the key destructor)" if same_kd else "",
                "" if any_fork else " none", " +atexit" if h_atexit else "",
                " +destructor" if h_dtor_attr else "",
                (" +atexit" if o_atexit else "") if any_once else " none")

        out = []
        out.append("/* entries: %s */" % self.summary)
        out.append("#define E_NT %du" % nt)
        out.append("struct EObj { uint32_t id; uint32_t phase; uint32_t *out; uint32_t *bad; const char *name; };")
        out.append("struct ESlot { uint32_t id; uint32_t res[5]; uint32_t bad[5];"
                   " struct EObj kobj, dobj, hobj; };")
        out.append("static struct ESlot e_slots[E_NT];")
        out.append("static _Atomic uint32_t e_arrived[4];")
        out.append("static const uint32_t e_need[4] = {%s};" % ", ".join("%du" % x for x in need))
        out.append("static _Thread_local uint32_t tl_sync;  /* a rendezvous to make: phase + 1 */")
        out.append("static _Thread_local uint32_t tl_bad;   /* mismatches this thread found */")
        out.append("static _Thread_local struct EObj *tl_hobj;  /* the fork handler's object */")
        out.append("extern void *__dso_handle __attribute__((visibility(\"hidden\")));")
        out.append("extern int __cxa_atexit(void (*)(void *), void *, void *);")
        out.append("extern int __cxa_thread_atexit_impl(void (*)(void *), void *, void *);")
        out += [
            "/* Wait (bounded) until every thread of the phase got here: the buffers",
            "   of all of them are filled before any is checked. */",
            "static void e_sync(void) {",
            "  if (!tl_sync) return;",
            "  uint32_t p = tl_sync - 1u;",
            "  tl_sync = 0;",
            "  atomic_fetch_add(&e_arrived[p], 1u);",
            "  for (uint32_t i = 0; i < 1000000u && atomic_load(&e_arrived[p]) < e_need[p]; i++)",
            "    sched_yield();",
            "}",
            "__attribute__((noinline)) static void e_fill(uint32_t *p, uint32_t n, uint32_t seed) {",
            "  for (uint32_t i = 0; i < n; i++) p[i] = mix(seed, i);",
            "}",
            "__attribute__((noinline)) static uint32_t e_check(const uint32_t *p, uint32_t n, uint32_t seed) {",
            "  uint32_t h = seed, bad = 0;",
            "  for (uint32_t i = 0; i < n; i++) { bad += p[i] != mix(seed, i); h = mix(h, p[i]); }",
            "  tl_bad += bad;",
            "  return mix(h, bad);",
            "}",
            "__attribute__((noinline)) static void e_touch(uint8_t *p, uint32_t n) {",
            "  for (uint32_t i = 0; i < n; i += 7u) p[i] = (uint8_t)(p[i] + 0u);",
            "}",
            "__attribute__((noinline)) static uint32_t e_bytes(const uint8_t *p, uint32_t n, uint8_t v) {",
            "  uint32_t bad = 0;",
            "  for (uint32_t i = 0; i < n; i++) bad += p[i] != v;",
            "  tl_bad += bad;",
            "  return bad;",
            "}",
            "__attribute__((noinline)) static void e_pair(uint32_t *t, uint32_t n, uint32_t x, uint32_t y) {",
            "  for (uint32_t i = 0; i < n; i++) t[i] = (i & 1u) ? y : x;",
            "}",
            "__attribute__((noinline)) static uint32_t e_sorted(const uint32_t *p, uint32_t n) {",
            "  uint32_t h = n, bad = 0;",
            "  for (uint32_t i = 0; i < n; i++) { h = mix(h, p[i]); if (i && p[i - 1u] > p[i]) bad++; }",
            "  tl_bad += bad;",
            "  return mix(h, bad);",
            "}",
            "static void e_report(struct EObj *o, uint32_t h, uint32_t bad) {",
            "  if (o->out) { *o->out = mix(*o->out, h); *o->bad += bad; }",
            "  else printf(\"at exit %s %u: %08x bad %u\\n\", o->name, o->id, h, bad);",
            "}",
        ]
        pre = []   # after the workers: the contexts
        kname = "e_key_dtor"
        dname = kname if same_kd else "e_tls_dtor"
        if any_key:
            out.append("static pthread_key_t e_key;")
            out.append("static struct EObj e_exit_kobj = {901u, 0u, 0, 0, \"%s\"};" % kname)
            pre.append(["static void %s(void *p) {" % kname,
                        "  struct EObj *o = p;"] + self.body("o", self.chains()) + ["}"])
        if any_tdtor:
            out.append("static struct EObj e_exit_dobj = {902u, 0u, 0, 0, \"%s\"};" % dname)
            if not same_kd:
                pre.append(["static void %s(void *p) {" % dname,
                            "  struct EObj *o = p;"] + self.body("o", self.chains()) + ["}"])
        if any_fork:
            out.append("static struct EObj e_exit_hobj = {903u, 0u, 0, 0, \"e_fork_handler\"};")
            attr = "__attribute__((destructor)) " if h_dtor_attr else ""
            pre.append([attr + "static void e_fork_handler(void) {",
                        "  struct EObj *o = tl_hobj ? tl_hobj : &e_exit_hobj;"] +
                       self.body("o", self.chains()) + ["}"])
        if any_once:
            out.append("static pthread_once_t e_once = PTHREAD_ONCE_INIT;")
            out.append("static uint32_t e_once_res, e_once_bad, e_after;")
            out.append("static struct EObj e_once_obj = {904u, 0u, &e_once_res, &e_once_bad, \"e_once\"};")
            out.append("static struct EObj e_exit_oobj = {904u, 0u, 0, 0, \"e_once\"};")
            pre.append(["static void e_once_routine(void) {",
                        "  struct EObj *o = e_after ? &e_exit_oobj : &e_once_obj;"] +
                       self.body("o", self.chains()) + ["}"])
        cmp = self.comparator() if any(rt["qsort"] for rt in routines) else None
        for rt in routines:
            L = []
            static = "static " if not rt["handler"] or r.random() < 0.5 else ""
            L.append("%svoid *%s(void *arg) {" % (static, rt["name"]))
            L.append("  struct ESlot *s = arg;")
            if rt["key"]:
                L.append("  pthread_setspecific(e_key, &s->kobj);")
            if rt["tdtor"]:
                L.append("  __cxa_thread_atexit_impl(%s, &s->dobj, &__dso_handle);" % dname)
            if rt["once"]:
                L.append("  pthread_once(&e_once, e_once_routine);")
            n = r.choice([16, 100, 256, 1000, 2048])
            k = r.getrandbits(32)
            L += ["  uint32_t b0 = tl_bad;",
                  "  uint32_t a[%d];" % n,
                  "  e_fill(a, %du, s->id * 0xc2b2ae35u ^ %du);" % (n, k),
                  "  tl_sync = %du;" % (PH_RUN + 1),
                  "  uint32_t h = s->id;"]
            for c in self.chains(cmp if rt["qsort"] else None, rt["bsearch"], 2):
                L.append("  h = mix(h, %s(s->id, h));" % c)
            L += ["  e_sync();",
                  "  h = mix(h, e_check(a, %du, s->id * 0xc2b2ae35u ^ %du));" % (n, k),
                  "  s->res[0] = h;",
                  "  s->bad[0] = tl_bad - b0;"]
            if rt["fork"]:
                cw = self.worker(r.randrange(0, 2))
                L += ["  /* the fork handlers run in this thread, several threads at once */",
                      "  tl_hobj = &s->hobj;",
                      "  pid_t pid = fork();",
                      "  if (pid == 0) _exit((int)(%s(s->id, 7u) & 63u));" % cw,
                      "  tl_hobj = 0;",
                      "  if (pid < 0) { s->res[4] = 0xdeadu; return 0; }",
                      "  int st = 0;",
                      "  while (waitpid(pid, &st, 0) < 0) {}",
                      "  uint32_t want = %s(s->id, 7u) & 63u;" % cw,
                      "  s->res[4] = WIFEXITED(st) ? (uint32_t)WEXITSTATUS(st) ^ want : 0xbadu;"]
            L += ["  return 0;", "}"]
            pre.append(L)
        # prototypes, workers, contexts
        out += self.protos
        for d in self.defs:
            out += d
        for d in pre:
            out += d
        # the driver, called by main
        L = ["static uint32_t entries_run(void) {",
             "  for (uint32_t i = 0; i < E_NT; i++) {",
             "    struct ESlot *s = &e_slots[i];",
             "    s->id = i + 1u;",
             "    s->kobj = (struct EObj){i + 1u, %du, &s->res[1], &s->bad[1], \"%s\"};" % (PH_KEY + 1, kname),
             "    s->dobj = (struct EObj){i + 1u, %du, &s->res[2], &s->bad[2], \"%s\"};" % (PH_TDTOR + 1, dname),
             "    s->hobj = (struct EObj){i + 1u, %du, &s->res[3], &s->bad[3], \"e_fork_handler\"};" % (PH_FORK + 1),
             "  }"]
        if any_key:
            L.append("  pthread_key_create(&e_key, %s);" % kname)
            if k_cxa:
                L.append("  __cxa_atexit(%s, &e_exit_kobj, &__dso_handle);" % kname)
        if any_tdtor and d_cxa:
            L.append("  __cxa_atexit(%s, &e_exit_dobj, &__dso_handle);" % dname)
        if any_fork:
            if h_atexit:
                L.append("  atexit(e_fork_handler);")
            L.append("  pthread_atfork(%s);" % ", ".join(
                "e_fork_handler" if x else "0" for x in h_roles))
        if any_once and o_atexit:
            L.append("  atexit(e_once_routine);")
        L.append("  pthread_t th[E_NT];")
        for i in range(nt):
            L.append("  if (pthread_create(&th[%d], 0, %s, &e_slots[%d])) {"
                     " printf(\"pthread_create failed\\n\"); fflush(stdout); _exit(7); }"
                     % (i, of[i]["name"], i))
        L += ["  for (uint32_t i = 0; i < E_NT; i++) pthread_join(th[i], 0);",
              "  uint32_t h = 0;",
              "  for (uint32_t i = 0; i < E_NT; i++) {",
              "    struct ESlot *s = &e_slots[i];",
              "    printf(\"thread %u: %08x %08x %08x %08x %08x bad %u %u %u %u\\n\", i, s->res[0], "
              "s->res[1], s->res[2], s->res[3], s->res[4], s->bad[0], s->bad[1], s->bad[2], s->bad[3]);",
              "    for (uint32_t j = 0; j < 5u; j++) h = mix(h, s->res[j] ^ s->bad[j]);",
              "  }"]
        if any_once:
            L += ["  printf(\"once %08x bad %u\\n\", e_once_res, e_once_bad);",
                  "  h = mix(h, e_once_res ^ e_once_bad);",
                  "  e_after = 1u;"]
        L += ["  return h;", "}"]
        out += L
        out.append("")
        return out


# -- workspace calls a code generator emits (issue 46 items 7 and 12) --------
WORKSPACE_FRACTION = 0.3   # of the seeds get a workspace section


class Workspace:
    """The workspace section, with its own random stream: the calls a code
    generator emits for its buffers, which scope-alloc-promote turns back
    into stack buffers where the limit allows.

      * double buffers: each row is a halide_malloc buffer combined with the
        previous row, which is then freed (the free of a loop-carried phi
        releases the previous time round's buffer, not this one: promoting
        the row would make the rows one buffer);
      * kernels on the ScopeAlloc ABI: __scopealloc_mark, a small
        __scopealloc_alloc (promotable), a call to a helper that takes its
        scratch under the kernel's mark without a release of its own, and
        __scopealloc_release (dropping the mark with the promoted tile would
        leave every call's scratch in the pool: the run prints whether the
        pool's top is where it was before the kernels ran, "balanced 1").

    The program defines halide_malloc/halide_free (over malloc). Built
    through the wrapper it uses the runtime's default pool
    (<scopealloc/abi.h> is on the include path); built by plain clang it
    defines the three ABI functions over a static LIFO arena, so every build
    runs the same program. Sizes are at most 1024 bytes (the hosted limit),
    some at most 64 (within sa-O1-L's smaller limits)."""

    def __init__(self, seed):
        self.r = random.Random("workspace-%d" % seed)

    @staticmethod
    def wanted(seed):
        return random.Random("workspace?%d" % seed).random() < WORKSPACE_FRACTION

    def size_words(self):
        # 4-byte words: 16..1024 bytes, a third of them within 64
        r = self.r
        return r.choice([4, 8, 16]) if r.random() < 0.33 else r.choice([32, 64, 100, 200, 256])

    def double_buffer(self, i):
        r = self.r
        w = self.size_words()
        k = r.randrange(1, w) if w > 1 else 0
        null_check = r.random() < 0.5
        # where the last row is freed: by the caller it goes back to (the
        # shape promotion got wrong), in the last time round, after the loop
        last = r.choice(["caller", "caller", "inside", "after"])
        name = "w_rows%d" % i + ("_last" if last == "caller" else "")
        L = ["static %s%s(uint32_t seed, uint32_t rows) {"
             % ("uint32_t *" if last == "caller" else "uint32_t ", name),
             "  /* rows >= 1; each row reads the previous one, then frees it */",
             "  uint32_t *prev = NULL;" if last == "caller" else
             "  uint32_t *prev = NULL, h = seed;",
             "  for (uint32_t y = 0; y < rows; y++) {",
             "    uint32_t *row = (uint32_t *)halide_malloc(NULL, %du * sizeof(uint32_t));" % w]
        if null_check:
            L.append("    if (!row) break;")
        L += ["    for (uint32_t x = 0; x < %du; x++)" % w,
              "      row[x] = mix(seed + y, x) + (prev ? prev[(x + %du) %% %du] : y);" % (k, w),
              "    halide_free(NULL, prev);"]
        if last == "inside":
            L += ["    if (y + 1u == rows) {",
                  "      for (uint32_t x = 0; x < %du; x++) h = mix(h, row[x]);" % w,
                  "      halide_free(NULL, row);",
                  "      return h;",
                  "    }"]
        L += ["    prev = row;",
              "  }"]
        if last == "caller":
            L += ["  return prev;", "}",
                  "static uint32_t w_rows%d(uint32_t seed, uint32_t rows) {" % i,
                  "  uint32_t *last = %s(seed, rows), h = seed;" % name]
        if last != "inside":
            L += ["  for (uint32_t x = 0; %s && x < %du; x++) h = mix(h, %s[x]);"
                  % (("last", w, "last") if last == "caller" else ("prev", w, "prev")),
                  "  halide_free(NULL, %s);" % ("last" if last == "caller" else "prev")]
        L += ["  return h;", "}"]
        self.summary.append("double buffer %d B (last row freed %s%s)"
                            % (w * 4, {"caller": "by the caller",
                                       "inside": "in the last time round",
                                       "after": "after the loop"}[last],
                               ", NULL checked" if null_check else ""))
        return L

    def marked_kernel(self, i):
        r = self.r
        tile = self.size_words()
        scratch = r.choice([64, 1024, 4096, 16384])  # words
        align = r.choice([8, 16, 64])
        inline = "__attribute__((noinline)) " if r.random() < 0.7 else ""
        L = ["/* takes its scratch under its caller's mark, released by the caller */",
             "static %suint32_t w_scratch%d(uint32_t n) {" % (inline, i),
             "  uint32_t *t = (uint32_t *)__scopealloc_alloc(%du * sizeof(uint32_t), 16);" % scratch,
             "  for (uint32_t i = 0; i < %du; i++) t[i] = mix(n, i);" % scratch,
             "  uint32_t h = n;",
             "  for (uint32_t i = 0; i < %du; i += 7u) h = mix(h, t[i]);" % scratch,
             "  return h;",
             "}",
             "static uint32_t w_kernel%d(uint32_t n) {" % i,
             "  void *m = __scopealloc_mark();",
             "  uint32_t *tile = (uint32_t *)__scopealloc_alloc(%du * sizeof(uint32_t), %d);" % (tile, align),
             "  for (uint32_t i = 0; i < %du; i++) tile[i] = n ^ (i * 2654435761u);" % tile,
             "  uint32_t h = w_scratch%d(tile[n %% %du]);" % (i, tile),
             "  h = mix(h, tile[(n + 1u) %% %du]);" % tile,
             "  __scopealloc_release(m);",
             "  return h;",
             "}"]
        self.summary.append("marked kernel: tile %d B, scratch %d B%s"
                            % (tile * 4, scratch * 4, "" if inline else " (inlinable)"))
        return L

    def generate(self):
        r = self.r
        self.summary = []
        out = ["#if defined(__has_include)",
               "#if __has_include(<scopealloc/abi.h>)",
               "#include <scopealloc/abi.h>",
               "#define W_HAVE_RUNTIME 1",
               "#endif",
               "#endif",
               "#ifndef W_HAVE_RUNTIME",
               "/* plain clang: the ABI's LIFO arena, so the program is the same */",
               "static _Alignas(64) unsigned char w_arena[1 << 20];",
               "static size_t w_top;",
               "void *__scopealloc_mark(void) { return w_arena + w_top; }",
               "void *__scopealloc_alloc(size_t size, size_t align) {",
               "  if (align == 0) align = 1;",
               "  w_top = (w_top + align - 1u) & ~(align - 1u);",
               "  if (size > sizeof w_arena - w_top) abort();",
               "  void *p = w_arena + w_top;",
               "  w_top += size;",
               "  return p;",
               "}",
               "void __scopealloc_release(void *mark) { w_top = (size_t)((unsigned char *)mark - w_arena); }",
               "#endif",
               "__attribute__((noinline)) void *halide_malloc(void *ctx, size_t size) {",
               "  (void)ctx;",
               "  return malloc(size);",
               "}",
               "__attribute__((noinline)) void halide_free(void *ctx, void *p) {",
               "  (void)ctx;",
               "  free(p);",
               "}"]
        # one shape or both: a seed with one shows that shape's defect alone
        shapes = r.choice(["double buffers", "marked kernels", "both"])
        nrows = r.randrange(1, 3) if shapes != "marked kernels" else 0
        nkern = r.randrange(1, 3) if shapes != "double buffers" else 0
        for i in range(nrows):
            out += self.double_buffer(i)
        for i in range(nkern):
            out += self.marked_kernel(i)
        calls = r.choice([200, 1000, 3000])
        out += ["static uint32_t workspace_run(void) {",
                "  uint32_t h = 0;"]
        for i in range(nrows):
            out.append("  h = mix(h, w_rows%d(%du, %du));" % (i, r.getrandbits(32), r.randrange(1, 40)))
        # the kernels leave the default pool where they found it (a frame
        # demoted around this one would hide a leak from the exit statistics)
        out += ["  void *top = __scopealloc_mark();",
                "  for (uint32_t n = 0; n < %du; n++) {" % calls]
        for i in range(nkern):
            out.append("    h = mix(h, w_kernel%d(n));" % i)
        out += ["  }",
                "  uint32_t balanced = __scopealloc_mark() == top;",
                "  printf(\"workspace %08x balanced %u\\n\", h, balanced);",
                "  return mix(h, balanced);",
                "}",
                ""]
        out.insert(0, "/* workspace, calls a code generator emits for its buffers: %s */"
                   % "; ".join(self.summary))
        return out


# -- a function that code the call graph does not see calls (issue 46 item 8)
NATIVE_FRACTION = 0.3   # of the seeds get a native-caller section


class NativeCaller:
    """The native-caller section, with its own random stream. n_ext is kept
    by attribute 'used' (and, in some seeds, not static: not internalized
    by the LTO link either); module-level asm (x86-64, AArch64; elsewhere a
    C function) is a signal handler that calls it, code the call graph does
    not see. n_ext reaches the static n_g through a chain of static
    functions; the constructor's n_run calls n_g too (nothing of its own
    live), then fills its buffer and raise()s the signal, so n_g runs above
    a live buffer that, planned at the same offset, it overwrites. main
    prints the constructor's hash and how many of its buffer's words
    changed ("bad 0" in a correct build)."""

    def __init__(self, seed):
        self.r = random.Random("native-%d" % seed)

    @staticmethod
    def wanted(seed):
        return random.Random("native?%d" % seed).random() < NATIVE_FRACTION

    def generate(self):
        r = self.r
        na = r.choice([16, 64, 256, 1024])  # words of the constructor's buffer
        ng = r.choice([16, 64, 256, 1024])  # words of n_g's buffer
        depth = r.randrange(0, 3)           # static functions between n_ext and n_g
        exported = r.random() < 0.5
        ka, kg = r.getrandbits(32), r.getrandbits(32)
        self.summary = "%s n_ext, %d between it and n_g; buffers %d and %d bytes" % (
            "exported" if exported else "static, 'used'", depth, 4 * na, 4 * ng)
        out = ["/* native caller: %s */" % self.summary,
               "#include <signal.h>",
               "static uint32_t n_res, n_bad, n_ext_res;",
               "__attribute__((noinline)) static uint32_t n_g(uint32_t id) {",
               "  volatile uint32_t b[%d];" % ng,
               "  for (uint32_t i = 0; i < %du; i++) b[i] = id * 0x9e3779b1u ^ i * %du;" % (ng, kg),
               "  uint32_t h = id;",
               "  for (uint32_t i = 0; i < %du; i++) h = mix(h, b[i]);" % ng,
               "  return h;",
               "}"]
        callee = "n_g"
        for i in reversed(range(depth)):
            out += ["__attribute__((noinline)) static uint32_t n_mid%d(uint32_t id) {" % i,
                    "  return mix(%s(id + %du), id);" % (callee, i + 1),
                    "}"]
            callee = "n_mid%d" % i
        out += ["__attribute__((used, noinline)) %svoid n_ext(uint32_t id) {"
                % ("" if exported else "static "),
                "  n_ext_res = %s(id);" % callee,
                "}",
                "/* code the call graph does not see: a signal handler calling n_ext */",
                "#if defined(__x86_64__)",
                "__asm__(\".text\\n.globl n_native_handler\\n.type n_native_handler,@function\\n\"",
                "        \"n_native_handler:\\n  subq $8, %rsp\\n  call n_ext\\n  addq $8, %rsp\\n  ret\\n\");",
                "void n_native_handler(int);",
                "#elif defined(__aarch64__)",
                "__asm__(\".text\\n.globl n_native_handler\\n.type n_native_handler,%function\\n\"",
                "        \"n_native_handler:\\n  stp x29, x30, [sp, #-16]!\\n  bl n_ext\\n\"",
                "        \"  ldp x29, x30, [sp], #16\\n  ret\\n\");",
                "void n_native_handler(int);",
                "#else",
                "static void n_native_handler(int s) { n_ext((uint32_t)s); }",
                "#endif",
                "__attribute__((noinline)) static void n_run(void) {",
                "  uint32_t h = n_g(1u);  /* nothing of n_run's is live here */",
                "  {",
                "    volatile uint32_t a[%d];" % na,
                "    for (uint32_t i = 0; i < %du; i++) a[i] = i * %du + 7u;" % (na, ka),
                "    signal(SIGTERM, n_native_handler);",
                "    raise(SIGTERM);",
                "    signal(SIGTERM, SIG_DFL);",
                "    for (uint32_t i = 0; i < %du; i++) {" % na,
                "      n_bad += a[i] != i * %du + 7u;" % ka,
                "      h = mix(h, a[i]);",
                "    }",
                "  }",
                "  n_res = mix(h, n_ext_res);",
                "}",
                "__attribute__((constructor)) static void n_ctor(void) { n_run(); }",
                "static uint32_t native_run(void) {",
                "  printf(\"native %08x bad %u\\n\", n_res, n_bad);",
                "  return mix(n_res, n_bad);",
                "}",
                ""]
        return out


class Gen:
    def __init__(self, seed, entries="auto", workspace="auto", native="auto"):
        self.r = random.Random(seed)
        self.seed = seed
        # its own random stream: the rest of the program does not change
        self.entries = Entries(seed) if entries == "on" or (
            entries == "auto" and Entries.wanted(seed)) else None
        self.workspace = Workspace(seed) if workspace == "on" or (
            workspace == "auto" and Workspace.wanted(seed)) else None
        self.native = NativeCaller(seed) if native == "on" or (
            native == "auto" and NativeCaller.wanted(seed)) else None

    def table_ok(self, idx):
        # table entries all have indices > idx
        return bool(self.table) and min(self.table) > idx

    def generate(self):
        r = self.r
        nfuncs = r.randrange(3, 9)
        self.table = sorted(r.sample(range(1, nfuncs), min(2, nfuncs - 1)))
        out = []
        out.append("/* generated by utils/gen_program.py --seed %d */" % self.seed)
        if self.entries or self.native:  # the native section: glibc's signal, not __sysv_signal
            out.append("#define _GNU_SOURCE")
        out.append("#include <alloca.h>")
        out.append("#include <stdarg.h>")
        out.append("#include <stdint.h>")
        out.append("#include <stdio.h>")
        out.append("#include <stdlib.h>")
        out.append("#include <string.h>")
        if self.entries:
            for h in ["pthread.h", "sched.h", "stdatomic.h", "sys/wait.h", "unistd.h"]:
                out.append("#include <%s>" % h)
        out.append("")
        out.append("struct S { uint32_t a; uint32_t b; uint64_t c; uint32_t arr[8]; };")
        out.append("static uint32_t fuel;")
        out.append("static uint32_t mix(uint32_t h, uint32_t v) {")
        out.append("  h = h * 31u + v; h ^= h >> 15; h *= 0x9e3779b1u; h ^= h >> 13; return h;")
        out.append("}")
        out.append("static void s_init(struct S *s, uint32_t v) {")
        out.append("  s->a = v; s->b = v * 3u + 1u; s->c = (uint64_t)v << 20;")
        out.append("  for (uint32_t i = 0; i < 8u; i++) s->arr[i] = v ^ (i * 0x01010101u);")
        out.append("}")
        out.append("static uint32_t s_sum(const struct S *s) {")
        out.append("  uint32_t h = mix(s->a, s->b) ^ (uint32_t)(s->c >> 9);")
        out.append("  for (uint32_t i = 0; i < 8u; i++) h = mix(h, s->arr[i]);")
        out.append("  return h;")
        out.append("}")
        out.append("struct Big { uint32_t v[40]; };")
        out.append("static struct Big make_big(uint32_t x) {")
        out.append("  struct Big b;")
        out.append("  for (uint32_t i = 0; i < 40u; i++) b.v[i] = x * (i + 1u);")
        out.append("  return b;")
        out.append("}")
        out.append("static uint32_t big_sum(struct Big b, uint32_t k) {")
        out.append("  b.v[k % 40u] += k;  /* writes the callee's copy only */")
        out.append("  uint32_t h = k;")
        out.append("  for (uint32_t i = 0; i < 40u; i++) h = mix(h, b.v[i]);")
        out.append("  return h;")
        out.append("}")
        out.append("static uint32_t vsum(uint32_t n, ...) {")
        out.append("  va_list ap;")
        out.append("  uint32_t h = n;")
        out.append("  va_start(ap, n);")
        out.append("  for (uint32_t i = 0; i < n; i++) h = mix(h, va_arg(ap, uint32_t));")
        out.append("  va_end(ap);")
        out.append("  return h;")
        out.append("}")
        out.append("static int cmp_u32(const void *a, const void *b) {")
        out.append("  uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;")
        out.append("  return (x > y) - (x < y);")
        out.append("}")
        out.append("static uint32_t hash_str(const char *p) {")
        out.append("  uint32_t h = 5381u;")
        out.append("  while (*p) h = h * 33u + (uint32_t)(unsigned char)*p++;")
        out.append("  return h;")
        out.append("}")
        out.append("static uint32_t gsink;")
        out.append("static uint32_t gdefault[16] = {1, 2, 3, 5, 8, 13, 21, 34, 55, 89, 144, 233, 377, 610, 987, 1597};")
        out.append("static uint32_t *cur_buf = gdefault;")
        out.append("static uint32_t cur_len = 16u;")
        out.append("struct Guard { uint32_t v[8]; uint32_t tag; };")
        out.append("static struct Guard make_guard(uint32_t t) {")
        out.append("  struct Guard g;")
        out.append("  for (uint32_t i = 0; i < 8u; i++) g.v[i] = t + i;")
        out.append("  g.tag = t;")
        out.append("  return g;")
        out.append("}")
        out.append("static void guard_done(struct Guard *g) {")
        out.append("  gsink = mix(gsink, g->tag ^ g->v[g->tag & 7u]);")
        out.append("}")
        out.append("static inline __attribute__((always_inline)) uint32_t inl_vla(uint32_t n, uint32_t v) {")
        out.append("  uint32_t m = n % 61u + 1u, k = n % 13u + 1u;")
        out.append("  uint32_t t[m];")
        out.append("  uint32_t *q = (uint32_t *)alloca(k * sizeof(uint32_t));")
        out.append("  for (uint32_t i = 0; i < m; i++) t[i] = v ^ i;")
        out.append("  for (uint32_t i = 0; i < k; i++) q[i] = t[i % m] + i;")
        out.append("  uint32_t h = v;")
        out.append("  for (uint32_t i = 0; i < k; i++) h = mix(h, q[i]);")
        out.append("  return mix(h, t[m - 1u]);")
        out.append("}")
        out.append("static uint32_t scramble(uint32_t *p, uint32_t n, uint32_t v) {")
        out.append("  uint32_t h = v;")
        out.append("  for (uint32_t i = 0; i < n; i++) { h = mix(h, p[i]); p[i] ^= h & 0xffu; }")
        out.append("  return h;")
        out.append("}")
        for i in range(nfuncs):
            out.append("static uint32_t f%d(struct S *, uint32_t *, uint32_t, uint32_t, uint32_t);" % i)
        out.append("static uint32_t (*const table[])(struct S *, uint32_t *, uint32_t, uint32_t, uint32_t) = {%s};"
                   % ", ".join("f%d" % j for j in self.table))
        out.append("")
        for i in range(nfuncs):
            out.extend(Func(self, i, nfuncs).generate())
            out.append("")
        if self.entries:
            out.extend(self.entries.generate())
        if self.workspace:
            out.extend(self.workspace.generate())
        if self.native:
            out.extend(self.native.generate())
        depth = r.randrange(3, 8)
        rounds = r.randrange(2, 5)
        fuel = r.choice([50, 300, 1000, 3000])
        out.append("int main(void) {")
        out.append("  struct S s0;")
        out.append("  s_init(&s0, %du);" % r.getrandbits(32))
        ntop = r.choice([64, 64, 1000, 300000])
        out.append("  _Alignas(16) uint32_t top[%d];" % ntop)
        out.append("  for (uint32_t i = 0; i < %du; i++) top[i] = i * 2654435761u;" % ntop)
        out.append("  uint32_t total = 0;")
        out.append("  for (uint32_t round = 0; round < %du; round++) {" % rounds)
        out.append("    fuel = %du;" % fuel)
        out.append("    uint32_t v = f0(&s0, top, %du, round * 0x9e3779b9u + %%du, %%du);" % ntop
                   % (r.getrandbits(32), depth))
        out.append("    printf(\"round %u: %08x fuel %u\\n\", round, v, fuel);")
        out.append("    total = mix(total, v);")
        out.append("  }")
        if self.entries:
            out.append("  total = mix(total, entries_run());")
        if self.workspace:
            out.append("  total = mix(total, workspace_run());")
        if self.native:
            out.append("  total = mix(total, native_run());")
        out.append("  total = mix(total, s_sum(&s0));")
        out.append("  for (uint32_t i = 0; i < %du; i++) total = mix(total, top[i]);" % ntop)
        out.append("  printf(\"sink %08x\\n\", gsink);")
        out.append("  total = mix(total, gsink);")
        out.append("  printf(\"checksum %08x\\n\", total);")
        out.append("  return (int)(total % 8u);")
        out.append("}")
        return "\n".join(out) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("-o", "--output", default="-")
    ap.add_argument("--entries", choices=["auto", "on", "off"], default="auto",
                    help="the threads and handlers section: by seed (about %d%%%% of "
                    "the seeds), always, never" % int(ENTRY_FRACTION * 100))
    ap.add_argument("--workspace", choices=["auto", "on", "off"], default="auto",
                    help="the workspace-calls section (halide_malloc double buffers, "
                    "marked __scopealloc_* kernels): by seed (about %d%%%% of the seeds), "
                    "always, never" % int(WORKSPACE_FRACTION * 100))
    ap.add_argument("--native-caller", choices=["auto", "on", "off"], default="auto",
                    help="the native-caller section (module asm calling a function "
                    "kept by 'used' that reaches a constructor's callee): by seed "
                    "(about %d%%%% of the seeds), always, never" % int(NATIVE_FRACTION * 100))
    ap.add_argument("--summary", action="store_true",
                    help="print what the entries (and workspace) sections hold and exit")
    args = ap.parse_args()
    gen = Gen(args.seed, args.entries, args.workspace, args.native_caller)
    text = gen.generate()
    if args.summary:
        print("seed %d: %s%s" % (args.seed, gen.entries.summary if gen.entries else "no entries section",
                                 " | workspace: %s" % "; ".join(gen.workspace.summary)
                                 if gen.workspace else "") +
              (" | native caller: %s" % gen.native.summary if gen.native else ""))
        return
    if args.output == "-":
        sys.stdout.write(text)
    else:
        with open(args.output, "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
