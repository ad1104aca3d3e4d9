#!/usr/bin/env python3
"""Side by side: the CPU of `memdir recall` against `memdir list` on one folder.

    python3 crates/relevance/bench/recall_vs_list.py [--memories 200] [--runs 60] [--no-build]
                                                     [--memdir PATH]

1. builds memdir in release (`cargo build --release -p memory-cli`) unless
   --no-build or --memdir PATH (another build, e.g. an older commit's),
2. writes a folder of N memories (default 200, the scan's cap) shaped like
   real ones: a name, a one-line description, a type, and a body of 20-26
   lines of prose, one memory in five with Chinese, Japanese (kanji and kana)
   or Korean text; the generator is seeded, so every run sees the same folder,
3. runs `memdir --memory-dir DIR list` and `memdir --memory-dir DIR recall Q`
   as whole processes, alternating (so both see the same machine load),
   cycling through a few queries (English, CJK, kana, one that must find
   nothing), and takes each child's user+sys CPU from wait4()'s rusage,
4. prints the median and total CPU of each and the ratio recall / list.

The target (issue 12): recall within 2x the CPU of list. Ratios measured in
one run are what count; absolute figures move with the machine's load.
"""
import argparse
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, '..', '..', '..'))
TARGET = 2.0

WORDS = ('deploy staging database migration review release freeze oncall dashboard latency '
         'logging retention docker image kubernetes terraform state feature flag cache redis '
         'token rotation budget bundle accessibility contrast translation string backup restore '
         'alert incident postmortem lint format coverage benchmark api schema queue worker retry '
         'timeout quota billing search index upload export pipeline checks runner artifact '
         'secret vault certificate renewal endpoint gateway throttling pagination webhook '
         'consumer producer partition replica failover snapshot compaction vacuum analyzer '
         'profiling allocation regression fixture snapshot golden nightly canary rollout').split()
GLUE = ('the a we always never should must when before after because so that this it our '
        'with without into from over under each every only also then').split()
CJK = ['部署流程需要先在预发环境验证', '数据库迁移必须可以回滚', '日志保留三十天后归档',
       '本番デプロイは火曜日と木曜日のみ', 'よくあるしつもんはウィキにまとめる',
       'レビューでは変更理由を書くこと', '배포 일정은 금요일을 피한다', '캐시 정책은 위키에 있다']
QUERIES = ['how do we deploy the staging pipeline', 'database migration rollback review',
           '本番デプロイの手順', 'よくあるしつもん', 'recipe for banana bread']


def log(msg):
    print('[bench] ' + msg, file=sys.stderr, flush=True)


def build(no_build, exe=None):
    if exe:
        return exe
    exe = os.path.join(ROOT, 'target', 'release', 'memdir')
    if not no_build:
        log('cargo build --release -p memory-cli')
        subprocess.run(['cargo', 'build', '--release', '-p', 'memory-cli'], cwd=ROOT, check=True)
    if not os.path.isfile(exe):
        sys.exit('memdir not found at %s: build it with `cargo build --release -p memory-cli`' % exe)
    return exe


def vocabulary(rng, size=3000):
    """Topic words, their inflections and made-up words: a folder of real
    memories holds a few thousand distinct words, drawn unevenly."""
    syllables = ['ba', 'ko', 'ri', 'tan', 'mel', 'dor', 'vi', 'sen', 'lu', 'gra', 'fen', 'tis',
                 'por', 'quo', 'ne', 'xam', 'bri', 'cul', 'der', 'ost']
    suffixes = ['', 's', 'ing', 'ed', 'er', 'ation', 'ly', 'ness']
    words = list(WORDS) + [w + s for w in WORDS for s in suffixes[1:4]]
    while len(words) < size:
        stem = ''.join(rng.choice(syllables) for _ in range(rng.randint(2, 4)))
        words.append(stem + rng.choice(suffixes))
    rng.shuffle(words)
    return words


def sentence(rng, vocab, weights):
    words = []
    for _ in range(rng.randint(8, 14)):
        if rng.random() < 0.4:
            words.append(rng.choice(GLUE))
        else:
            words.append(rng.choices(vocab, cum_weights=weights)[0])
    return ' '.join(words).capitalize() + '.'


def write_folder(path, n, seed):
    rng = random.Random(seed)
    vocab = vocabulary(rng)
    # Zipf: the k-th word is drawn with weight 1/k.
    weights, total = [], 0.0
    for k in range(len(vocab)):
        total += 1.0 / (k + 1)
        weights.append(total)
    types = ['user', 'feedback', 'project', 'reference']
    index = []
    for i in range(n):
        topic = rng.sample(WORDS, 3)
        name = '%s-%s-%03d' % (topic[0], topic[1], i)
        description = 'How we handle %s %s for the %s service' % tuple(topic)
        body = [sentence(rng, vocab, weights) for _ in range(rng.randint(20, 26))]
        if i % 5 == 0:
            body.insert(2, CJK[i % len(CJK)])
            description += ' ' + CJK[(i // 5) % len(CJK)]
        text = '---\nname: %s\ndescription: %s\ntype: %s\n---\n%s\n' % (
            name, description, types[i % 4], '\n'.join(body))
        with open(os.path.join(path, name + '.md'), 'w', encoding='utf-8') as f:
            f.write(text)
        index.append('- [%s](%s.md) — %s' % (name, name, description))
    with open(os.path.join(path, 'MEMORY.md'), 'w', encoding='utf-8') as f:
        f.write('\n'.join(index) + '\n')


def cpu_ms(argv, env):
    """Runs argv to completion and returns its user+sys CPU in milliseconds."""
    pid = os.posix_spawn(argv[0], argv, env, file_actions=[
        (os.POSIX_SPAWN_OPEN, 1, os.devnull, os.O_WRONLY, 0),
        (os.POSIX_SPAWN_OPEN, 2, os.devnull, os.O_WRONLY, 0),
    ])
    _, status, usage = os.wait4(pid, 0)
    code = os.waitstatus_to_exitcode(status)
    if code != 0:
        sys.exit('%s exited with %d' % (' '.join(argv), code))
    return (usage.ru_utime + usage.ru_stime) * 1000.0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--memories', type=int, default=200)
    ap.add_argument('--runs', type=int, default=60, help='runs of each command')
    ap.add_argument('--seed', type=int, default=12)
    ap.add_argument('--no-build', action='store_true')
    ap.add_argument('--memdir', help='the memdir binary to measure (default: build target/release/memdir)')
    args = ap.parse_args()

    exe = build(args.no_build, args.memdir)
    tmp = tempfile.mkdtemp(prefix='memdir-recall-bench-')
    try:
        folder = os.path.join(tmp, 'memory')
        os.mkdir(folder)
        write_folder(folder, args.memories, args.seed)
        env = dict(os.environ, HOME=os.path.join(tmp, 'home'))
        base = [exe, '--memory-dir', folder]
        # Warm the page cache and the binary.
        for _ in range(3):
            cpu_ms(base + ['list'], env)
            cpu_ms(base + ['recall', QUERIES[0]], env)
        lists, recalls = [], []
        for i in range(args.runs):
            lists.append(cpu_ms(base + ['list'], env))
            recalls.append(cpu_ms(base + ['recall', QUERIES[i % len(QUERIES)]], env))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

    def row(label, xs):
        print('%-8s median %6.2f ms  mean %6.2f ms  total %8.1f ms  (%d runs, user+sys)'
              % (label, statistics.median(xs), statistics.fmean(xs), sum(xs), len(xs)))

    print('%s: recall vs list, %d memories, %d runs each, alternating' % (exe, args.memories, args.runs))
    row('list', lists)
    row('recall', recalls)
    ratio_median = statistics.median(recalls) / statistics.median(lists)
    ratio_total = sum(recalls) / sum(lists)
    print('ratio recall/list: median %.2fx, total %.2fx (target <= %.1fx: %s)'
          % (ratio_median, ratio_total, TARGET, 'met' if ratio_total <= TARGET else 'NOT met'))


if __name__ == '__main__':
    main()
