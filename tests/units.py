#!/usr/bin/env python3
# units.py - checks a table's column names against the one rule for units
# (etl-stream(5), "Column Names") and its text against what a person
# reads (etlreport(1), -f text): used by tests/cli/columns.sh and
# tests/cli/units.sh.
#
# Usage: python3 tests/units.py names DIR
#   DIR holds, for one etlagg output, t.csv or t.NAME.csv (etlreport -f
#   csv -o DIR/t.csv), t.jsonl and t.txt (-f jsonl, -f text).  Prints a
#   line a breach of the rule, nothing when all is well:
#   - a unit's word stands last in a name, and nowhere else; bytes are
#     "bytes", per cents "pct" (never "b", "percent");
#   - a --diff column X_base[_U] comes with X[_U], X_delta[_U] and
#     X_delta_pct (not for a per cent);
#   - JSON Lines names its members as CSV does, but a time since the
#     start, written in ns ("start_ns" for CSV's "start_s");
#   - text heads a column by the name without its unit's word and gives
#     the unit once, in parentheses: a time, bytes or a per cent in one
#     of the units a person reads.
# Usage: python3 tests/units.py scaled TEXT CSV [STAMP ...]
#   TEXT is one table as etlreport -f text writes it, CSV the same as
#   csv: every figure of the text, in its header's unit, is the CSV's
#   exact value rounded to the decimals shown; a column of times or bytes
#   shows its largest value with 4 significant digits (fewer when it is
#   1000 or more of its unit, or whole ns or B); a per cent has one
#   decimal.  The columns named STAMP (CSV names) are time stamps of a
#   log: exactly the CSV's seconds.  Prints a line a breach.
import csv
import json
import os
import re
import sys

TIME = {'ns': 1, 'us': 1e3, 'ms': 1e6, 's': 1e9}
BYTES = {'bytes': 1}
WORDS = set(TIME) | set(BYTES) | {'pct'}
MISSPELT = {'b', 'percent'}
SHOWN_TIME = {'ns': 1, '\u00b5s': 1e3, 'ms': 1e6, 's': 1e9}
SHOWN_BYTES = {'B': 1, 'KiB': 1024, 'MiB': 1024 ** 2, 'GiB': 1024 ** 3,
               'TiB': 1024 ** 4}


def text_tables(lines):
    """(name, [header cells], [rows of cells]) of a text output: the
    tables drawn as a header line over a line of dashes."""
    out = []
    for i in range(1, len(lines) - 1):
        dashes = lines[i + 1]
        if not dashes or set(dashes) - {'-', ' '}:
            continue
        spans = [(m.start(), m.end()) for m in re.finditer(r'-+', dashes)]
        name = lines[i - 1] if i > 0 and ' ' not in lines[i - 1] else ''

        def cells(line):
            # A cell stands within its dashes, the last one runs on.
            return [line[a:b].strip() for a, b in spans[:-1]] + \
                [line[spans[-1][0]:].strip()]
        rows = []
        for line in lines[i + 2:]:
            if not line or line.startswith('note:'):
                break
            rows.append(cells(line))
        head = cells(lines[i])
        out.append((name, head, rows))
    return out


def split_head(cell):
    m = re.match(r'^(.*?)(?: \(([^()]*)\))?$', cell)
    return m.group(1), m.group(2)


def name_breaches(names):
    bad = []
    for n in names:
        t = n.split('_')
        if t[-1] in MISSPELT:
            bad.append('%s: a unit spelt %r' % (n, t[-1]))
        for w in t[:-1]:
            if w in WORDS | MISSPELT:
                bad.append('%s: unit word %r before the end' % (n, w))
                break
    have = set(names)
    for n in names:
        m = re.match(r'^(.*)_base(?:_([a-z]+))?$', n)
        if not m:
            continue
        stem, u = m.group(1), m.group(2)
        end = '_' + u if u else ''
        want = [stem + end, stem + '_delta' + end]
        if u != 'pct':
            want.append(stem + '_delta_pct')
        for w in want:
            if w not in have:
                bad.append('%s without %s' % (n, w))
    return bad


def csv_tables(d):
    """{table name or '': header} of the CSV files of DIR."""
    out = {}
    for f in sorted(os.listdir(d)):
        m = re.match(r'^t(?:\.(.*))?\.csv$', f)
        if not m or os.path.getsize(os.path.join(d, f)) == 0:
            continue
        with open(os.path.join(d, f), newline='', encoding='utf-8') as fp:
            out[m.group(1) or ''] = next(csv.reader(fp))
    return out


def names(d):
    bad = []
    tables = csv_tables(d)
    for h in tables.values():
        bad += name_breaches(h)
    # JSON Lines: each run of objects with the same keys is a table.
    keys = []
    with open(os.path.join(d, 't.jsonl'), encoding='utf-8') as fp:
        for line in fp:
            k = list(json.loads(line).keys())
            if not keys or keys[-1] != k:
                keys.append(k)
    for k in keys:
        if not any(len(h) == len(k) and all(a == b or (a.endswith('_s') and
                   b == a[:-2] + '_ns') for a, b in zip(h, k))
                   for h in tables.values()):
            bad.append('JSON Lines keys %s are no CSV header' % ','.join(k))
    with open(os.path.join(d, 't.txt'), encoding='utf-8') as fp:
        lines = fp.read().split('\n')
    for name, head, _ in text_tables(lines):
        h = tables.get(name, tables.get('') if len(tables) == 1 else None)
        if h is None:
            continue
        if len(h) != len(head):
            bad.append('%s: %d text columns, %d in CSV' % (name, len(head),
                                                          len(h)))
            continue
        for cell, col in zip(head, h):
            stem, unit = split_head(cell)
            word = col.split('_')[-1]
            if '_' in stem:
                bad.append('%s: text header %r keeps "_"' % (name, cell))
            if stem.split(' ')[-1] in WORDS | MISSPELT | {'%', '\u00b5s'}:
                bad.append('%s: text header %r repeats its unit' %
                           (name, cell))
            if word in TIME and unit not in SHOWN_TIME:
                bad.append('%s: %r of %s shows no time unit' %
                           (name, cell, col))
            if word == 'bytes' and unit not in SHOWN_BYTES:
                bad.append('%s: %r of %s shows no bytes unit' %
                           (name, cell, col))
            if word == 'pct' and unit != '%':
                bad.append('%s: %r of %s shows no %%' % (name, cell, col))
            if col not in WORDS and stem.replace(' ', '_') != col and \
                    not col.startswith(stem.replace(' ', '_') + '_'):
                bad.append('%s: text header %r for %s' % (name, cell, col))
    return bad


def decimals(s):
    return len(s.split('.')[1]) if '.' in s else 0


def scaled(text, csvfile, stamps):
    bad = []
    with open(text, encoding='utf-8') as fp:
        tables = text_tables(fp.read().split('\n'))
    with open(csvfile, newline='', encoding='utf-8') as fp:
        rows = list(csv.reader(fp))
    if not tables:
        return ['no text table']
    _, head, trows = tables[0]
    h, crows = rows[0], rows[1:]
    if len(trows) != len(crows) or len(head) != len(h):
        return ['%d rows of %d columns in text, %d of %d in CSV' %
                (len(trows), len(head), len(crows), len(h))]
    checked = 0
    for k, (cell, col) in enumerate(zip(head, h)):
        _, unit = split_head(cell)
        word = col.split('_')[-1]
        if col in stamps:
            if unit != 's' or any(t != c for t, c in zip(
                    (r[k] for r in trows), (r[k] for r in crows))):
                bad.append('%s: a time stamp not as in CSV' % col)
            checked += 1
        elif word in TIME or word in BYTES:
            size = (SHOWN_TIME if word in TIME else SHOWN_BYTES).get(unit)
            if size is None:
                bad.append('%s: no unit in %r' % (col, cell))
                continue
            own = TIME.get(word, 1)
            shown = [r[k] for r in trows]
            dec = {decimals(s) for s in shown if s}
            if len(dec) > 1:
                bad.append('%s: cells with %s decimals' % (col, sorted(dec)))
            big = 0
            for t, c in zip(shown, (r[k] for r in crows)):
                if not c:
                    if t:
                        bad.append('%s: %r for an empty cell' % (col, t))
                    continue
                exact = float(c) * own
                got = float(t) * size
                tol = 0.5 * 10 ** -decimals(t) * size * 1.0001
                if abs(got - exact) > tol:
                    bad.append('%s: %s %s for %s %s' % (col, t, unit, c,
                                                        word))
                big = max(big, abs(float(t)))
                checked += 1
            if big > 0:
                places = max(dec) if dec else 0
                digits = len(str(int(big))) + places
                whole = unit in ('ns', 'B')
                # 1000 of a unit only in the largest, or under 1 KiB.
                over = big >= 1000 and (unit in ('s', 'TiB') or (
                    unit in SHOWN_BYTES and big < 1024))
                if not (digits == 4 or (whole and digits <= 3) or
                        (over and places == 0)):
                    bad.append('%s: its largest %s shows %d digits' %
                               (col, big, digits))
        elif word == 'pct':
            for t, c in zip((r[k] for r in trows), (r[k] for r in crows)):
                if c and not re.match(r'^-?\d+\.\d$', t):
                    bad.append('%s: per cent %r for %s' % (col, t, c))
                elif c and abs(float(t) - float(c)) > 0.0501:
                    bad.append('%s: %s for %s' % (col, t, c))
                checked += 1
    if checked == 0:
        bad.append('no figure checked')
    return bad


if __name__ == '__main__':
    if sys.argv[1] == 'names':
        out = names(sys.argv[2])
    else:
        out = scaled(sys.argv[2], sys.argv[3], set(sys.argv[4:]))
    for line in out[:5]:
        print(line)
