#!/usr/bin/env python3
"""The documentation checks fail when they should: each checker is run on a
small source tree that is right, then on copies with one mistake each
(a broken link, a missing anchor, a long README, an undocumented variable,
a documented one nobody reads, a man page missing a variable, a quoted
output that drifted from what its command prints, a documented command that
fails, a rule of the pass missing from the rules table or one it lists that
the pass does not give), and must pass the first and name each mistake."""
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))

# A page quoting what its commands print (check_quotes.py): a file, a
# session whose output names the installed tree ($P, printed as <P>), the
# second line of a command's output, and commands that must succeed.
QUOTED = '''# Quoted

<!-- docs-test: file greeting.txt -->
```
hello
```

<!-- docs-test: transcript -->
```
$ cat greeting.txt
hello
$ echo "$P/bin"; echo warning >&2
<P>/bin
warning
```

<!-- docs-test: output
setup: printf 'a\\nb\\nc\\n' > letters.txt
run: cat letters.txt
keep: [bc]
head: 1
-->
    b

<!-- docs-test: commands -->
```sh
export GREETING=greeting.txt
test -f "$GREETING"
test -f greeting.txt
```
'''

GOOD = {
    'README.md': '# Title\n\nSee [the page](docs/page.md#a-section) and [here](#title).\n'
                 '```\n[not a link](nowhere.md)\n```\n`[nor this](nowhere.md)`\n',
    'CONTRIBUTING.md': '# Contributing\n\n[options](docs/options.md#environment)\n',
    'docs/page.md': '# Page\n\n## A section\n\n## `code` in a heading\n\n'
                    '[back](../README.md) [self](#code-in-a-heading) ![img](pic.png)\n',
    'docs/pic.png': '',
    'docs/options.md': '# Options\n\n## Environment\n\n| variable | what |\n|---|---|\n'
                       '| `SCOPEALLOC_ONE` | read by the runtime |\n| `SCOPEALLOC_TWO` | read by a tool |\n'
                       '| `SCOPEALLOC_THREE` | read by a script |\n',
    'runtime/src/a.c': 'const char *e = secure_getenv("SCOPEALLOC_ONE");\n'
                       '#define SCOPEALLOC_NOT_AN_ENV 1\nputs("set SCOPEALLOC_ONE=1");\n',
    'tools/scopealloc-clang/b.cpp': 'if (const char *V = std::getenv("SCOPEALLOC_TWO")) {}\n'
                                    'Arg.consume_front("--scopealloc-flag=");\n',
    'scripts/c.sh': '#!/bin/sh\nbuild=${SCOPEALLOC_THREE:-build}\nSCOPEALLOC_STATS=1 ./prog\n',
    'tools/scopealloc-report': '#!/usr/bin/env python3\nimport argparse\n'
                               'p = argparse.ArgumentParser()\np.add_argument("--top")\np.parse_args()\n',
    'docs/man/scopealloc-clang.1': '.TP\n.B \\-\\-scopealloc\\-flag\n.B SCOPEALLOC_TWO\n',
    'docs/man/scopealloc-bound.1': '.B \\-\\-check \\-\\-help\n',
    'docs/man/scopealloc-report.1': '.B \\-\\-top \\-h \\-\\-help\n',
    'docs/quoted.md': QUOTED,
    'plugin/placement/Placement.cpp': 'StringRef ruleName(PlacementRule R) {\n  switch (R) {\n'
                                      '  case PlacementRule::A:\n    return "over-limit";\n  }\n}\n',
    'plugin/transform/Other.cpp': 'C.RuleName = "recursive";\n',
    'docs/reports.md': '# Reports\n\n### Rules\n\n| rule | the buffer |\n|---|---|\n'
                       '| `over-limit` | moves |\n| `recursive` | stays |\n',
}

# (description, files to change {path: content or None to delete}, checker, expected text)
MISTAKES = [
    ('a link to a missing file', {'docs/page.md': '# Page\n\n[x](gone.md)\n'}, 'links', 'gone.md: no such file'),
    ('an anchor no heading has', {'README.md': '# Title\n\n[x](docs/page.md#no-such)\n'}, 'links',
     'no heading with anchor #no-such'),
    ('a README over the limit', {'README.md': '# Title\n' + 'line\n' * 400}, 'links', 'more than 320'),
    ('a variable read but not documented',
     {'runtime/src/d.c': 'getenv("SCOPEALLOC_FOUR");\n'}, 'env', 'SCOPEALLOC_FOUR is read'),
    ('an indirect read (the name as a literal)',
     {'runtime/src/d.c': 'static const char *N = "SCOPEALLOC_FIVE";\n'}, 'env', 'SCOPEALLOC_FIVE is read'),
    ('a CMake read', {'cmake/x.cmake': 'if(DEFINED ENV{X})\nset(v $ENV{SCOPEALLOC_SIX})\nendif()\n'},
     'env', 'SCOPEALLOC_SIX is read'),
    ('a variable documented but read nowhere', {'scripts/c.sh': '#!/bin/sh\n'}, 'env',
     'SCOPEALLOC_THREE is documented but no source reads it'),
    ('a wrapper variable missing from its man page',
     {'docs/man/scopealloc-clang.1': '.B \\-\\-scopealloc\\-flag\n'}, 'man',
     'scopealloc-clang.1 does not name SCOPEALLOC_TWO'),
    ('a --help option missing from its man page',
     {'docs/man/scopealloc-report.1': '.B \\-h \\-\\-help\n'}, 'man',
     'scopealloc-report.1 does not name --top'),
    ('a quoted output that drifted from what its command prints',
     {'docs/quoted.md': QUOTED.replace('\nhello\n$ echo', '\nhullo\n$ echo')}, 'quotes',
     "docs/quoted.md:10: the quoted output of `cat greeting.txt` differs from what it prints:\n"
     "--- quoted\n+++ printed\n@@ -1 +1 @@\n-hullo\n+hello"),
    ('a quoted line the command no longer prints',
     {'docs/quoted.md': QUOTED.replace('    b\n', '    c\n')}, 'quotes', '-c\n+b'),
    ('a documented command that fails',
     {'docs/quoted.md': QUOTED.replace('test -f greeting.txt', 'test -f gone.txt')}, 'quotes',
     '+ test -f greeting.txt\n+ test -f gone.txt'),
    ('a rule the pass gives missing from the rules table',
     {'plugin/transform/Other.cpp': 'C.RuleName = "recursive";\nD.RuleName = "dynamic-keep";\n'}, 'rules',
     "rule 'dynamic-keep' (plugin/transform/Other.cpp) is missing from docs/reports.md's table of rules"),
    ('a rule in the table that the pass does not give',
     {'plugin/transform/Other.cpp': ''}, 'rules',
     "docs/reports.md lists rule 'recursive', which no plugin source gives"),
]


def make_tree(root, changes=None):
    files = dict(GOOD)
    files.update(changes or {})
    for rel, content in files.items():
        if content is None:
            continue
        path = os.path.join(root, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, 'w') as f:
            f.write(content)
    bound = os.path.join(root, 'fake-bound')
    with open(bound, 'w') as f:
        f.write('#!/bin/sh\necho "  --check  - check"\necho "  --help   - help"\n')
    os.chmod(bound, 0o755)
    return bound


def run(checker, root, bound):
    cmd = {'links': [sys.executable, os.path.join(HERE, 'check_links.py'), root],
           'env': [sys.executable, os.path.join(HERE, 'check_env.py'), root],
           'man': [sys.executable, os.path.join(HERE, 'check_man.py'), root, '--bound', bound],
           'rules': [sys.executable, os.path.join(HERE, 'check_rules.py'), root],
           'quotes': [sys.executable, os.path.join(HERE, 'check_quotes.py'), root,
                      '--prefix', os.path.join(root, 'prefix')]}[checker]
    r = subprocess.run(cmd, capture_output=True, text=True)
    return r.returncode, r.stdout + r.stderr


def main():
    failures = 0
    with tempfile.TemporaryDirectory() as tmp:
        good = os.path.join(tmp, 'good')
        bound = make_tree(good)
        for checker in ('links', 'env', 'man', 'rules', 'quotes'):
            rc, out = run(checker, good, bound)
            if rc != 0:
                print(f'FAIL: {checker} rejects a correct tree:\n{out}')
                failures += 1
            else:
                print(f'ok: {checker} accepts a correct tree')
        for i, (what, changes, checker, expected) in enumerate(MISTAKES):
            root = os.path.join(tmp, f'bad{i}')
            bound = make_tree(root, changes)
            rc, out = run(checker, root, bound)
            if rc == 0 or expected not in out:
                print(f'FAIL: {checker} on {what}: exit {rc}, expected a message with "{expected}":\n{out}')
                failures += 1
            else:
                print(f'ok: {checker} finds {what}')
            shutil.rmtree(root)
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
