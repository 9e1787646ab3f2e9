#!/usr/bin/env python3
"""Checks docs/options.md's environment table against the sources.

The variables the code reads: every SCOPEALLOC_* name passed to getenv,
secure_getenv, std::getenv, the runtime's sa_getenv or llvm's GetEnv in C
and C++ sources (runtime/, tools/, plugin/, analysis/, mlir/), every string
literal that is exactly such a name there (an indirect read), os.environ /
os.getenv in the Python tools, $ENV{...} in CMake files (cmake/, tools/),
and ${SCOPEALLOC_*} / $SCOPEALLOC_* expansions in scripts/. The documented
ones: the first column of the table under "## Environment" in
docs/options.md. Both sets must be equal; each difference is printed.

usage: check_env.py SOURCE_DIR [--options-md FILE]
"""
import argparse
import os
import re
import sys

NAME = r'(SCOPEALLOC_[A-Z0-9_]+)'
C_READ = re.compile(r'\b(?:secure_getenv|getenv|sa_getenv|GetEnv)\s*\(\s*"' + NAME + '"')
C_LITERAL = re.compile(r'"' + NAME + '"')
PY_READ = re.compile(r'\bos\.(?:environ(?:\.get)?\s*[\[(]|getenv\s*\()\s*[\'"]' + NAME)
CMAKE_READ = re.compile(r'\$ENV\{' + NAME + r'\}')
SH_READ = re.compile(r'\$\{?' + NAME)

C_EXT = ('.c', '.h', '.cpp', '.hpp', '.inc', '.def')
C_DIRS = ('runtime', 'tools', 'plugin', 'analysis', 'mlir')


def walk(root, sub):
    top = os.path.join(root, sub)
    for dirpath, dirnames, filenames in os.walk(top):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith('.'))
        for name in sorted(filenames):
            yield os.path.join(dirpath, name)


def read(path):
    try:
        with open(path, encoding='utf-8', errors='replace') as f:
            return f.read()
    except OSError:
        return ''


def first_line(text):
    return text.split('\n', 1)[0]


def code_reads(root):
    """{name: [where read]}"""
    found = {}

    def add(name, path, text, pos):
        line = text.count('\n', 0, pos) + 1
        where = f'{os.path.relpath(path, root)}:{line}'
        if where not in found.setdefault(name, []):
            found[name].append(where)

    for sub in C_DIRS:
        for path in walk(root, sub):
            text = read(path)
            if path.endswith(C_EXT):
                for pattern in (C_READ, C_LITERAL):
                    for m in pattern.finditer(text):
                        add(m.group(1), path, text, m.start())
            elif path.endswith('.py') or first_line(text).startswith('#!') and 'python' in first_line(text):
                for m in PY_READ.finditer(text):
                    add(m.group(1), path, text, m.start())
            elif path.endswith(('.cmake', 'CMakeLists.txt', '.cmake.in')):
                for m in CMAKE_READ.finditer(text):
                    add(m.group(1), path, text, m.start())
    for path in walk(root, 'cmake'):
        text = read(path)
        for m in CMAKE_READ.finditer(text):
            add(m.group(1), path, text, m.start())
    for path in walk(root, 'scripts'):
        text = read(path)
        if path.endswith('.sh') or first_line(text).startswith('#!') and 'sh' in first_line(text):
            for m in SH_READ.finditer(text):
                add(m.group(1), path, text, m.start())
        elif path.endswith('.py'):
            for m in PY_READ.finditer(text):
                add(m.group(1), path, text, m.start())
    return found


def documented(options_md):
    """Names in the first column of the tables under '## Environment'."""
    names = {}
    section = False
    with open(options_md, encoding='utf-8') as f:
        for number, line in enumerate(f, 1):
            if line.startswith('## '):
                section = line.strip() == '## Environment'
                continue
            if section:
                m = re.match(r'^\|\s*`' + NAME + r'[=`]', line)
                if m:
                    names.setdefault(m.group(1), number)
    return names


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('source_dir')
    parser.add_argument('--options-md', help='default: SOURCE_DIR/docs/options.md')
    args = parser.parse_args()
    root = os.path.abspath(args.source_dir)
    options_md = args.options_md or os.path.join(root, 'docs', 'options.md')
    code = code_reads(root)
    docs = documented(options_md)
    problems = []
    for name in sorted(set(code) - set(docs)):
        problems.append(f'{name} is read ({", ".join(code[name][:3])}) but not in the '
                        f'"## Environment" table of {os.path.relpath(options_md, root)}')
    for name in sorted(set(docs) - set(code)):
        problems.append(f'{os.path.relpath(options_md, root)}:{docs[name]}: {name} is documented '
                        'but no source reads it')
    if not docs:
        problems.append(f'{options_md}: no "## Environment" table found')
    for p in problems:
        print(p)
    if problems:
        return 1
    print(f'check_env: {len(docs)} SCOPEALLOC_* variables, read and documented alike: '
          + ' '.join(sorted(docs)))
    return 0


if __name__ == '__main__':
    sys.exit(main())
