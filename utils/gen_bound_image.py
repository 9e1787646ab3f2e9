#!/usr/bin/env python3
"""C programs that stress scopealloc-bound's scaling (issue 20 items 8, 9).

  gen_bound_image.py pools N     N named pools, N functions each taking a
                                 buffer from its own pool, main calling all
  gen_bound_image.py indirect N  N callbacks of one type (address-taken in a
                                 table), N functions each calling through a
                                 pointer of that type, main calling all

Build with scopealloc-clang -O1 -mllvm -scope-alloc-max-stack-alloca=0.
The expected bounds follow from the sizes here: pool p<i> holds 32 bytes
from f<i>; cb<i> has a buffer of 16 + (i % 64) * 16 bytes, so the largest
stack frame is a callback with i % 64 == 63 (1024 bytes of buffer).
"""
import sys


def pools(n, out):
    out.write("#include <scopealloc/scope.h>\n#include <scopealloc/scopealloc.h>\n")
    for i in range(n):
        out.write("SCOPEALLOC_DEFINE_POOL(p%d, 64);\n" % i)
        out.write("__attribute__((noinline)) int f%d(int x) {\n"
                  "  SCOPEALLOC_POOL(p%d) volatile char b[32];\n"
                  "  b[x & 31] = (char)x;\n  return b[(x + %d) & 31];\n}\n" % (i, i, i))
    out.write("int main(int argc, char **argv) {\n  (void)argv;\n  int s = 0;\n")
    for i in range(n):
        out.write("  s += f%d(argc);\n" % i)
    out.write("  return s == 12345;\n}\n")


def indirect(n, out):
    out.write("typedef int (*unary)(int);\n")
    for i in range(n):
        out.write("__attribute__((noinline)) static int cb%d(int x) {\n"
                  "  volatile char b[%d];\n  b[0] = (char)x;\n"
                  "  return b[0] + %d;\n}\n" % (i, 16 + (i % 64) * 16, i))
    out.write("unary table[] = {\n")
    for i in range(n):
        out.write("  cb%d,\n" % i)
    out.write("};\n")
    for i in range(n):
        out.write("__attribute__((noinline)) int call%d(unary f, int x) "
                  "{ return f(x) + %d; }\n" % (i, i))
    out.write("int main(int argc, char **argv) {\n  (void)argv;\n  int s = 0;\n")
    for i in range(n):
        out.write("  s += call%d(table[(argc + %d) %% %d], argc);\n" % (i, i, n))
    out.write("  return s == 12345;\n}\n")


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in ("pools", "indirect"):
        sys.exit(__doc__)
    {"pools": pools, "indirect": indirect}[sys.argv[1]](int(sys.argv[2]), sys.stdout)


if __name__ == "__main__":
    main()
