#!/usr/bin/env python3
"""Checks the documentation's links and the README's length.

Every relative link and image of README.md, CONTRIBUTING.md and docs/*.md
(outside code blocks and code spans) must name an existing file or
directory, and a `#anchor` must name a heading of the page it points into
(GitHub's anchor spelling). README.md must stay at most --max-readme-lines
lines. Prints each problem as `file:line: ...` and exits 1 if there is any.

usage: check_links.py SOURCE_DIR [--max-readme-lines N] [FILE...]
"""
import argparse
import glob
import os
import re
import sys

LINK = re.compile(r'!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)')
HEADING = re.compile(r'^(#{1,6})\s+(.*?)\s*#*\s*$')
FENCE = re.compile(r'^\s*(```|~~~)')


def prose_lines(text):
    """(line number, line) outside fenced code blocks, code spans blanked."""
    fenced = False
    for number, line in enumerate(text.split('\n'), 1):
        if FENCE.match(line):
            fenced = not fenced
            continue
        if fenced:
            continue
        yield number, re.sub(r'(`+)(?:(?!\1).)+\1', '``', line)


def github_anchor(heading):
    """The id GitHub gives a heading: lower case, punctuation dropped,
    blanks to '-'."""
    text = re.sub(r'!?\[([^\]]*)\]\([^)]*\)', r'\1', heading)  # links: their text
    text = re.sub(r'<[^>]+>', '', text)                          # inline HTML
    text = text.strip().lower()
    text = re.sub(r'[^\w\- ]', '', text)
    return text.replace(' ', '-')


_anchors = {}


def anchors(path):
    if path not in _anchors:
        seen = {}
        names = set()
        with open(path, encoding='utf-8') as f:
            for line in heading_lines(f.read()):
                m = HEADING.match(line)
                if not m:
                    continue
                base = github_anchor(m.group(2))
                n = seen.get(base, 0)
                seen[base] = n + 1
                names.add(base if n == 0 else f'{base}-{n}')
        _anchors[path] = names
    return _anchors[path]


def heading_lines(text):
    """Headings keep their code spans' text for anchors (`.pu` -> pu)."""
    fenced = False
    for line in text.split('\n'):
        if FENCE.match(line):
            fenced = not fenced
            continue
        if not fenced:
            yield line


def check_file(path, root):
    problems = []
    with open(path, encoding='utf-8') as f:
        text = f.read()
    here = os.path.dirname(path)
    for number, line in prose_lines(text):
        for m in LINK.finditer(line):
            target = m.group(1)
            if re.match(r'^[a-z][a-z0-9+.-]*:', target):  # http:, mailto:, ...
                continue
            file_part, _, anchor = target.partition('#')
            dest = os.path.normpath(os.path.join(here, file_part)) if file_part else path
            rel = os.path.relpath(path, root)
            if not os.path.exists(dest):
                problems.append(f'{rel}:{number}: link to {target}: no such file')
                continue
            if not os.path.realpath(dest).startswith(os.path.realpath(root) + os.sep):
                problems.append(f'{rel}:{number}: link to {target}: outside the source tree')
                continue
            if anchor:
                if not dest.endswith('.md'):
                    problems.append(f'{rel}:{number}: link to {target}: an anchor into a file that is not Markdown')
                elif anchor not in anchors(dest):
                    problems.append(f'{rel}:{number}: link to {target}: no heading with anchor #{anchor} in '
                                    f'{os.path.relpath(dest, root)}')
    return problems


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('source_dir')
    parser.add_argument('--max-readme-lines', type=int, default=320)
    parser.add_argument('files', nargs='*', help='default: README.md, CONTRIBUTING.md, docs/*.md')
    args = parser.parse_args()
    root = os.path.abspath(args.source_dir)
    files = [os.path.join(root, f) for f in args.files] if args.files else (
        [os.path.join(root, 'README.md'), os.path.join(root, 'CONTRIBUTING.md')] +
        sorted(glob.glob(os.path.join(root, 'docs', '*.md'))))
    problems = []
    for path in files:
        if not os.path.exists(path):
            problems.append(f'{os.path.relpath(path, root)}: missing')
            continue
        problems += check_file(path, root)
    readme = os.path.join(root, 'README.md')
    if os.path.join(root, 'README.md') in files or not args.files:
        with open(readme, encoding='utf-8') as f:
            count = len(f.read().rstrip('\n').split('\n'))
        if count > args.max_readme_lines:
            problems.append(f'README.md: {count} lines, more than {args.max_readme_lines}: '
                            'move reference material into docs/')
    for p in problems:
        print(p)
    checked = len(files)
    if problems:
        print(f'check_links: {len(problems)} problem(s) in {checked} file(s)', file=sys.stderr)
        return 1
    print(f'check_links: {checked} file(s), every relative link and anchor resolves')
    return 0


if __name__ == '__main__':
    sys.exit(main())
