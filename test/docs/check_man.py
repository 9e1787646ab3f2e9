#!/usr/bin/env python3
"""Checks that the man pages in docs/man/ are complete.

- scopealloc-bound.1 names every option `scopealloc-bound --help` prints;
- scopealloc-report.1 names every option `scopealloc-report --help` prints;
- scopealloc-clang.1 names the wrapper's own flags (the "--scopealloc-*"
  literals of tools/scopealloc-clang/) and every SCOPEALLOC_* variable the
  wrapper reads (as check_env.py finds them).

usage: check_man.py SOURCE_DIR --bound PATH-TO-scopealloc-bound
"""
import argparse
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import check_env  # noqa: E402


def man_text(path):
    """The page's words, roff escapes removed (\\- -> -, fonts dropped)."""
    with open(path, encoding='utf-8') as f:
        text = f.read()
    text = text.replace('\\-', '-')
    text = re.sub(r'\\f[BIRP]|\\f\[[A-Z]*\]', '', text)
    text = re.sub(r'\\\(..', '', text)
    return text


def help_options(command):
    out = subprocess.run(command, check=True, capture_output=True, text=True).stdout
    return sorted(set(re.findall(r'(?<![\w-])(--?[a-z][a-z0-9-]*)', out)) -
                  {'-scope-alloc-policy', '-scope-alloc-target'})


def missing(page_text, names):
    return [n for n in names
            if not re.search(r'(?<![\w-])' + re.escape(n) + r'(?![\w-])', page_text)]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('source_dir')
    parser.add_argument('--bound', required=True, help='the built scopealloc-bound')
    args = parser.parse_args()
    root = os.path.abspath(args.source_dir)
    man = os.path.join(root, 'docs', 'man')
    problems = []

    wanted = {
        'scopealloc-bound.1': help_options([args.bound, '--help']),
        'scopealloc-report.1': help_options(
            [sys.executable, os.path.join(root, 'tools', 'scopealloc-report'), '--help']),
    }
    clang_dir = os.path.join(root, 'tools', 'scopealloc-clang')
    flags = set()
    for path in check_env.walk(root, os.path.join('tools', 'scopealloc-clang')):
        flags.update(re.findall(r'"(--scopealloc-[a-z-]+)', check_env.read(path)))
    env = {name for name, where in check_env.code_reads(root).items()
           if any(w.startswith(os.path.relpath(clang_dir, root) + os.sep) for w in where)}
    wanted['scopealloc-clang.1'] = sorted(flags | env)

    for page, names in wanted.items():
        path = os.path.join(man, page)
        if not os.path.exists(path):
            problems.append(f'docs/man/{page}: missing')
            continue
        if not names:
            problems.append(f'docs/man/{page}: found nothing to check it against')
        for name in missing(man_text(path), names):
            problems.append(f'docs/man/{page} does not name {name}')
    for p in problems:
        print(p)
    if problems:
        return 1
    for page, names in wanted.items():
        print(f'check_man: docs/man/{page} names all of: {" ".join(names)}')
    return 0


if __name__ == '__main__':
    sys.exit(main())
