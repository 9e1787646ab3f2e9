#!/usr/bin/env python3
"""Writes a copy of an ELF image with one field changed, to see how a reader
copes with a malformed file.

  corrupt_elf.py IN OUT section NAME FIELD VALUE   # sh_offset, sh_size, sh_name, sh_link, sh_entsize
  corrupt_elf.py IN OUT header FIELD VALUE         # e_shoff, e_shnum, e_shstrndx, e_shentsize
  corrupt_elf.py IN OUT truncate BYTES

VALUE is an integer (0x... for hex). Prints the section's index, old and
new values (for the test's log).
"""
import struct
import sys

# Offsets in Elf64_Ehdr / Elf32_Ehdr, and in Elf64_Shdr / Elf32_Shdr.
HEADER = {
    64: {"e_shoff": (0x28, "Q"), "e_shentsize": (0x3A, "H"),
         "e_shnum": (0x3C, "H"), "e_shstrndx": (0x3E, "H")},
    32: {"e_shoff": (0x20, "I"), "e_shentsize": (0x2E, "H"),
         "e_shnum": (0x30, "H"), "e_shstrndx": (0x32, "H")},
}
SECTION = {
    64: {"sh_name": (0x00, "I"), "sh_type": (0x04, "I"), "sh_offset": (0x18, "Q"),
         "sh_size": (0x20, "Q"), "sh_link": (0x28, "I"), "sh_entsize": (0x38, "Q")},
    32: {"sh_name": (0x00, "I"), "sh_type": (0x04, "I"), "sh_offset": (0x10, "I"),
         "sh_size": (0x14, "I"), "sh_link": (0x18, "I"), "sh_entsize": (0x24, "I")},
}


def main():
    src, dst, kind = sys.argv[1:4]
    data = bytearray(open(src, "rb").read())
    if kind == "truncate":
        data = data[:int(sys.argv[4], 0)]
        open(dst, "wb").write(data)
        return
    bits = 64 if data[4] == 2 else 32
    end = "<" if data[5] == 1 else ">"
    get = lambda off, fmt: struct.unpack_from(end + fmt, data, off)[0]
    put = lambda off, fmt, v: struct.pack_into(end + fmt, data, off, v)
    h = HEADER[bits]
    shoff, shentsize = get(*h["e_shoff"]), get(*h["e_shentsize"])
    shnum, shstrndx = get(*h["e_shnum"]), get(*h["e_shstrndx"])
    if kind == "header":
        field, value = sys.argv[4], int(sys.argv[5], 0)
        print("%s: %#x -> %#x" % (field, get(*h[field]), value))
        put(*h[field], value)
    elif kind == "section":
        name, field, value = sys.argv[4], sys.argv[5], int(sys.argv[6], 0)
        s = SECTION[bits]
        names_at = get(shoff + shstrndx * shentsize + s["sh_offset"][0], s["sh_offset"][1])
        for i in range(shnum):
            at = shoff + i * shentsize
            n = get(at + s["sh_name"][0], s["sh_name"][1])
            if data[names_at + n:].split(b"\0", 1)[0].decode() == name:
                off, fmt = s[field]
                print("section [index %d] %s %s: %#x -> %#x"
                      % (i, name, field, get(at + off, fmt), value))
                put(at + off, fmt, value)
                break
        else:
            sys.exit("corrupt_elf.py: no section %s in %s" % (name, src))
    else:
        sys.exit("corrupt_elf.py: unknown kind %s" % kind)
    open(dst, "wb").write(data)


if __name__ == "__main__":
    main()
