#!/usr/bin/env python3
"""Lists the non-test functions of 100 lines or more in every crate's src/ (issue #16: each is
split where a reader gains, or says in a `//` line above it why it stays long), each with that
line. Usage: scripts/long_functions.py [MIN_LINES]  (default 100); exits 1 if one has none."""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MIN = int(sys.argv[1]) if len(sys.argv) > 1 else 100
FN = re.compile(r'^\s*(pub(\([^)]*\))?\s+)?(const\s+|async\s+|unsafe\s+)*fn\s+(\w+)')


def sources():
    dirs = [os.path.join(ROOT, 'src')]
    crates = os.path.join(ROOT, 'crates')
    dirs += [os.path.join(crates, c, 'src') for c in sorted(os.listdir(crates))]
    for d in dirs:
        for base, _, files in os.walk(d):
            for f in sorted(files):
                if f.endswith('.rs') and f != 'tests.rs':
                    yield os.path.join(base, f)


def code(line):
    """The line without its string literals and comment, for counting braces."""
    line = re.sub(r'"(\\.|[^"\\])*"', '""', line)
    line = re.sub(r"'(\\.|[^'\\])'", "''", line)
    return line.split('//')[0]


def long_functions(path):
    lines = open(path, encoding='utf-8').read().split('\n')
    # Unit tests sit after `#[cfg(test)]` at the end of a file.
    end = next((i for i, l in enumerate(lines) if l.startswith('#[cfg(test)]')), len(lines))
    i = 0
    while i < end:
        m = FN.match(lines[i])
        if not m:
            i += 1
            continue
        depth, opened, j = 0, False, i
        while j < end:
            c = code(lines[j])
            if not opened and ';' in c and '{' not in c:
                break  # a declaration without a body
            depth += c.count('{') - c.count('}')
            opened = opened or '{' in c
            if opened and depth <= 0:
                break
            j += 1
        n = j - i + 1
        if opened and n >= MIN:
            # The comment block above (attributes and doc lines included): a plain `//` line
            # in it is the reason the function stays long.
            k = i - 1
            while k >= 0 and lines[k].strip().startswith(('//', '#[')):
                k -= 1
            block = [l.strip() for l in lines[k + 1:i]]
            reason = next((l for l in block if l.startswith('// ')), '(no reason line)')
            yield n, m.group(4), i + 1, reason
        i += 1


found = []
for path in sources():
    for n, name, line, above in long_functions(path):
        found.append((n, os.path.relpath(path, ROOT), line, name, above))
for n, path, line, name, above in sorted(found, reverse=True):
    print(f'{n:4} {path}:{line} {name}\n       {above}')
print(f'{len(found)} non-test functions of {MIN} lines or more')
missing = [f for f in found if f[4] == '(no reason line)']
if missing:
    print(f'{len(missing)} without a reason line')
    sys.exit(1)
