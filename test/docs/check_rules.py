#!/usr/bin/env python3
"""docs/reports.md's table of rules lists exactly the rules the pass gives.

A remark ends with `[rule <name>]` and a report's allocation has `"rule"`:
the names are ruleName()'s (plugin/placement/Placement.cpp) and the
`RuleName = "<name>"` of plugin sources that set one by hand. The table is
the rows `| \\`<name>\\` | ... |` under the heading `### Rules` of
docs/reports.md.

  check_rules.py <source tree>
"""
import glob
import os
import re
import sys

RULE_NAME_FUNCTION = re.compile(r'StringRef ruleName\(PlacementRule R\) \{(.*?)\n\}', re.S)
RETURNED = re.compile(r'return "([a-z][a-z-]*)";')
SET_BY_HAND = re.compile(r'RuleName = "([a-z][a-z-]*)"')
TABLE_ROW = re.compile(r'^\| `([a-z][a-z-]*)` \|')


def plugin_rules(src):
    """{rule: the source file that gives it}."""
    rules = {}
    for path in sorted(glob.glob(os.path.join(src, 'plugin', '**', '*.cpp'), recursive=True)):
        text = open(path, encoding='utf-8').read()
        rel = os.path.relpath(path, src)
        for body in RULE_NAME_FUNCTION.findall(text):
            for name in RETURNED.findall(body):
                rules.setdefault(name, rel)
        for name in SET_BY_HAND.findall(text):
            rules.setdefault(name, rel)
    return rules


def documented_rules(path):
    """The rules of the table under `### Rules`."""
    rules, inside = [], False
    for line in open(path, encoding='utf-8'):
        if line.startswith('#'):
            inside = line.strip() == '### Rules'
            continue
        m = TABLE_ROW.match(line)
        if inside and m:
            rules.append(m.group(1))
    return rules


def main():
    if len(sys.argv) != 2:
        raise SystemExit(__doc__)
    src = os.path.abspath(sys.argv[1])
    given = plugin_rules(src)
    page = os.path.join(src, 'docs', 'reports.md')
    documented = documented_rules(page)
    failures = []
    if not given:
        failures.append('no rule names found in plugin/ (ruleName() or RuleName = "...")')
    if not documented:
        failures.append('docs/reports.md has no table of rules under "### Rules"')
    for name, where in sorted(given.items()):
        if name not in documented:
            failures.append(f"rule '{name}' ({where}) is missing from docs/reports.md's table of rules")
    for name in documented:
        if name not in given:
            failures.append(f"docs/reports.md lists rule '{name}', which no plugin source gives")
    for f in failures:
        print(f)
    print(f'{len(given)} rules in the plugin, {len(documented)} in docs/reports.md, '
          f'{len(failures)} differences')
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
