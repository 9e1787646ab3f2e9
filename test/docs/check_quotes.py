#!/usr/bin/env python3
"""The outputs the documentation quotes are what the documented commands print.

A quoted block is marked by an HTML comment just before it (invisible on
GitHub), whose first word says what the block is:

  <!-- docs-test: file buf.c -->        the next fenced block is a file the
                                         commands below it use (written to
                                         the document's work directory)
  <!-- docs-test: transcript -->        the next fenced block is a session:
                                         each `$ command` line is run, the
                                         lines up to the next `$ ` are its
                                         expected output (stdout and stderr)
  <!-- docs-test: output                the next block (fenced or indented)
  run: COMMAND                           is what COMMAND prints, optionally
  keep: REGEX                            only its lines matching REGEX and
  head: N                                the first N of those (on one line:
  -->                                    <!-- docs-test: output run: CMD -->)
  <!-- docs-test: commands -->          the next fenced block is a script
                                         that must succeed

A transcript or output marker may also say `setup: COMMAND`, run first (it
must succeed), for an input the docs do not show (an `in.ll` to run opt on).

Commands run with sh in a fresh directory per document (examples/ and
scripts/ of the source tree linked into it), with `$P` and `<P>` standing
for the installed tree (--prefix), LLVM's bin directory first on PATH,
`ulimit -s 8192` (the runtime's default pool is 8 x the stack limit), no
SCOPEALLOC_* variables, and stdout line-buffered as on a terminal (stdbuf).
Before comparing, both sides lose trailing blanks and the actual output loses clang's source snippets (`  6 |   code`, `    | ^`)
that the docs leave out; the installed tree's path reads `<P>` and the work
directory `.`. Everything else must match line for line.
"""
import argparse
import difflib
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile

MARK = re.compile(r'^<!--\s*docs-test:\s*(.*?)(-->)?\s*$')
SNIPPET = re.compile(r'^\s*(\d+\s*)?\|( |$)')


def parse(path):
    """(marker line, kind, argument, options, body, body's first line) for
    every marked block of \\p path."""
    lines = open(path, encoding='utf-8').read().split('\n')
    blocks = []
    i = 0
    while i < len(lines):
        m = MARK.match(lines[i])
        if not m:
            i += 1
            continue
        start = i + 1
        head = m.group(1).split()
        kind, arg = head[0] if head else '', ' '.join(head[1:])
        opts = {}
        if not m.group(2):  # a comment over several lines
            i += 1
            while i < len(lines) and '-->' not in lines[i]:
                key, _, value = lines[i].partition(':')
                opts[key.strip()] = value.strip()
                i += 1
        i += 1
        while i < len(lines) and not lines[i].strip():
            i += 1
        if i >= len(lines):
            raise SystemExit(f'{path}:{start}: docs-test marker without a block after it')
        body = []
        if lines[i].startswith('```'):
            i += 1
            first = i + 1  # 1-based line of the block's first line
            while i < len(lines) and not lines[i].startswith('```'):
                body.append(lines[i])
                i += 1
            i += 1
        elif lines[i].startswith('    '):
            first = i + 1
            while i < len(lines) and (lines[i].startswith('    ') or not lines[i].strip()):
                body.append(lines[i][4:])
                i += 1
            while body and not body[-1].strip():
                body.pop()
        else:
            raise SystemExit(f'{path}:{start}: docs-test marker not followed by a code block')
        blocks.append((start, kind, arg, opts, body, first))
    return blocks


class Runner:
    def __init__(self, src, prefix, llvm_bin, work):
        self.src, self.prefix, self.work = src, os.path.abspath(prefix), work
        env = {k: v for k, v in os.environ.items() if not k.startswith('SCOPEALLOC_')}
        env['P'] = self.prefix
        env['PATH'] = llvm_bin + os.pathsep + env.get('PATH', '')
        env['LC_ALL'] = 'C'
        self.env = env
        self.stdbuf = ['stdbuf', '-oL'] if shutil.which('stdbuf') else []

    def run(self, command):
        command = command.replace('<P>', self.prefix)
        # stdout line-buffered, as on a terminal: a program's output comes
        # before what its exit handlers print to stderr.
        r = subprocess.run(self.stdbuf + ['sh', '-c', 'ulimit -s 8192 2>/dev/null; exec 2>&1; ' + command],
                           cwd=self.work, env=self.env, stdout=subprocess.PIPE,
                           text=True, errors='replace', timeout=120)
        return r.returncode, r.stdout

    def normalise_actual(self, text):
        out = []
        for line in text.split('\n'):
            if SNIPPET.match(line):
                continue
            line = line.replace(self.prefix, '<P>').replace(self.work + '/', '').replace(self.work, '.')
            out.append(line.rstrip())
        while out and not out[-1]:
            out.pop()
        return out


def expected_lines(body):
    out = [l.rstrip() for l in body]
    while out and not out[-1]:
        out.pop()
    return out


def check_document(path, blocks, args):
    failures = []
    work = tempfile.mkdtemp(prefix='docs-quotes-')
    try:
        for name in ('examples', 'scripts'):
            if os.path.isdir(os.path.join(args.src, name)):
                os.symlink(os.path.join(args.src, name), os.path.join(work, name))
        runner = Runner(args.src, args.prefix, args.llvm_bin, work)
        rel = os.path.relpath(path, args.src)

        def compare(line, command, expected, actual):
            if expected != actual:
                diff = '\n'.join(difflib.unified_diff(expected, actual, 'quoted', 'printed', lineterm=''))
                failures.append(f'{rel}:{line}: the quoted output of `{command}` differs from '
                                f'what it prints:\n{diff}')

        for line, kind, arg, opts, body, first in blocks:
            if 'setup' in opts:
                rc, printed = runner.run(opts['setup'])
                if rc != 0:
                    failures.append(f"{rel}:{line}: the setup `{opts['setup']}` fails (exit {rc}):\n{printed}")
                    continue
            if kind == 'file':
                with open(os.path.join(work, arg), 'w') as f:
                    f.write('\n'.join(body) + '\n')
            elif kind == 'transcript':
                steps = []
                for n, l in enumerate(body):
                    if l.startswith('$ '):
                        steps.append((first + n, l[2:], []))
                    elif steps:
                        steps[-1][2].append(l)
                    else:
                        failures.append(f'{rel}:{line}: transcript output before any `$ ` command')
                for at, command, out in steps:
                    _, printed = runner.run(command)
                    compare(at, command, expected_lines(out), runner.normalise_actual(printed))
            elif kind == 'output':
                command = opts.get('run') or re.sub(r'^run:\s*', '', arg)
                if not command:
                    failures.append(f'{rel}:{line}: an output block needs `run: COMMAND`')
                    continue
                _, printed = runner.run(command)
                actual = runner.normalise_actual(printed)
                if 'keep' in opts:
                    actual = [l for l in actual if re.search(opts['keep'], l)]
                if 'head' in opts:
                    actual = actual[:int(opts['head'])]
                compare(first, command, expected_lines(body), actual)
            elif kind == 'commands':
                # One script (an `export` holds for the lines after it),
                # traced, stopping at the first failure.
                rc, printed = runner.run('set -ex\n' + '\n'.join(body))
                if rc != 0:
                    tail = '\n'.join(printed.rstrip().split('\n')[-15:])
                    failures.append(f'{rel}:{first}: the commands fail (exit {rc}):\n{tail}')
            else:
                failures.append(f'{rel}:{line}: unknown docs-test kind {kind!r} '
                                '(file, transcript, output or commands)')
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return failures


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('src', help='the source tree (README.md, docs/)')
    parser.add_argument('--prefix', required=True, help='the installed tree the docs call <P>')
    parser.add_argument('--llvm-bin', default='/usr/lib/llvm-22/bin',
                        help="LLVM's bin directory, first on PATH")
    parser.add_argument('docs', nargs='*', help='documents to check (default: README.md, docs/*.md)')
    args = parser.parse_intermixed_args()
    args.src = os.path.abspath(args.src)
    docs = args.docs or [os.path.join(args.src, 'README.md')] + sorted(
        glob.glob(os.path.join(args.src, 'docs', '*.md')))
    failures, checked = [], 0
    for path in docs:
        blocks = parse(path)
        if not blocks:
            continue
        checked += sum(1 for b in blocks if b[1] != 'file')
        failures += check_document(path, blocks, args)
    for f in failures:
        print(f)
    print(f'{checked} quoted blocks checked, {len(failures)} differ or fail')
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
