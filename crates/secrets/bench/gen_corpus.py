#!/usr/bin/env python3
"""Deterministic benchmark corpus for memdir's secret scanner.

    python3 gen_corpus.py OUT_DIR [TOTAL_MB=50] [SEED=1] [--vectors PATH]

Writes OUT_DIR/NNNN-<topic>.{md,py,ts,yaml,json,log}: realistic notes, code,
configs, API dumps and logs, each file just under 100,000 bytes (gitleaks
reads files in 100,000-byte chunks; staying below keeps every file a single
chunk, so chunk-boundary effects cannot hide a planted secret) with exactly
one planted secret per file, i.e. one per ~100 KB.

Planted secrets are the secrets of the positive vectors of
../tests/vectors/own.jsonl (the project's own texts, findings recorded from
gitleaks 8.30.1), re-embedded in a context suited to the file type. The
near-miss and tricky-negative texts of own.jsonl are sprinkled in as decoys
(they must stay clean; PEM-looking ones are left out, see load_vectors).
Rules are planted round-robin, so every rule gets a share.

OUT_DIR.planted.json lists every finding the plants should produce:
{"file", "rule_id", "byte_offset", "secret"} (byte_offset = start of the
secret in the file's bytes). A plant whose text contains nested findings
(a routable GitLab token also fires gitlab-pat) lists one entry per finding,
sharing a "plant" number. Everything depends only on SEED and own.jsonl.
"""
import argparse
import json
import os
import random
import shutil
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_VECTORS = os.path.join(HERE, '..', 'tests', 'vectors', 'own.jsonl')
FILE_MIN, FILE_MAX = 95_000, 99_800          # bytes per file (< gitleaks' 100,000-byte chunk)
PLANT_MARK = '@@MEMDIR_PLANT@@'

KINDS = ['md', 'py', 'ts', 'yaml', 'json', 'log']
KIND_WEIGHTS = [40, 14, 12, 10, 10, 14]

# ----------------------------------------------------------------------------
# vocabulary
# ----------------------------------------------------------------------------
NOUNS = ('agent memory note session project repository branch commit review issue release build pipeline job '
         'runner cache index query request response server client database table column schema migration '
         'service cluster region bucket queue worker thread handler endpoint router middleware config '
         'setting flag feature module package crate function method struct trait interface test fixture '
         'benchmark profile trace span metric dashboard alert incident latency budget quota deadline '
         'user account team owner reviewer maintainer customer tenant workspace folder file path line '
         'token secret key credential rotation vault policy role permission scope audit log').split()
VERBS = ('add remove rename refactor migrate fix patch bump pin split merge revert cache index scan parse '
         'validate serialize deserialize retry throttle batch stream flush compact prune rotate redact '
         'deploy rollback promote tag publish document benchmark profile measure reduce increase').split()
ADJS = ('stale flaky slow fast noisy quiet default custom legacy new shared private public optional '
        'required nested empty partial cached incremental deterministic parallel sequential idle busy').split()
NAMES = ('alice bob carol dmitri eun-ji fatima gustavo hana ivan jun kwame lena marco noor olga priya '
         'quentin rosa sven tomas uma viktor wen xavier yusuf zoe').split()
LANG_WORDS = ('python rust typescript go java kotlin swift yaml json toml markdown docker kubernetes terraform '
              'postgres redis kafka nginx grafana sentry github gitlab slack stripe shopify openai anthropic '
              'huggingface aws gcp azure databricks npm pypi').split()
# words that contain (parts of) rule keywords but are not secrets
DECOY_WORDS = ('task-sk-1 risk-level desk-sk-ops hf_hub_download npm_config_cache api_org_name glc_texture '
               'xapp-config akia-ish asia-pacific dapi-client ghost_count shpat_docs ops_team '
               'pplx-search sk_test_mode rk_live_metrics bedrock-api-key-docs').split()
EXT_LANG = {'py': 'python', 'ts': 'typescript', 'yaml': 'yaml', 'json': 'json', 'log': 'text'}


class Gen:
    def __init__(self, seed):
        self.r = random.Random(seed)

    # -- small pieces ---------------------------------------------------
    def hexs(self, n):
        return '%0*x' % (n, self.r.getrandbits(4 * n))

    def uuid(self):
        h = self.hexs(32)
        return '%s-%s-4%s-%s%s-%s' % (h[:8], h[8:12], h[13:16], self.r.choice('89ab'), h[17:20], h[20:])

    def ident(self):
        r = self.r
        return '%s_%s' % (r.choice(VERBS), r.choice(NOUNS))

    def camel(self):
        a, b = self.r.choice(VERBS), self.r.choice(NOUNS)
        return a + b.title()

    def sentence(self):
        r = self.r
        n = r.randint(8, 24)
        words = r.choices(NOUNS + VERBS + ADJS + LANG_WORDS + ['the', 'a', 'to', 'of', 'and', 'in', 'for',
                                                               'with', 'when', 'because', 'so', 'we'] * 6, k=n)
        if r.random() < 0.03:
            words.insert(r.randrange(len(words)), r.choice(DECOY_WORDS))
        s = ' '.join(words)
        tail = r.random()
        if tail < 0.08:
            s += ' (see commit %s)' % self.hexs(40)
        elif tail < 0.14:
            s += ' — trace %s' % self.uuid()
        elif tail < 0.18:
            s += ' [%s](https://docs.example.com/%s/%s#%s)' % (r.choice(NOUNS), r.choice(NOUNS), r.choice(VERBS),
                                                              r.choice(ADJS))
        elif tail < 0.20:
            s += ' (ça marche, naïve résumé ✓)'
        return s[0].upper() + s[1:] + '.'

    def paragraph(self):
        return ' '.join(self.sentence() for _ in range(self.r.randint(2, 6)))

    # -- code blocks ----------------------------------------------------
    def py_block(self):
        r = self.r
        k = r.random()
        f = self.ident()
        if k < 0.35:
            args = ', '.join(self.ident() for _ in range(r.randint(1, 3)))
            body = '\n'.join('    %s = %s(%s)' % (self.ident(), self.ident(), r.choice(['x', 'cfg', 'item', 'None']))
                             for _ in range(r.randint(2, 6)))
            return 'def %s(%s):\n    """%s"""\n%s\n    return %s\n' % (f, args, self.sentence(), body, self.ident())
        if k < 0.55:
            return ('class %s:\n    %s: int = %d\n\n    def __init__(self, %s):\n        self.%s = %s\n'
                    % (self.camel().title(), self.ident(), r.randint(0, 999), self.ident(), self.ident(), self.ident()))
        if k < 0.70:
            return '%s = os.environ.get("%s", "%s")\n' % (self.ident(), self.ident().upper(), r.choice(ADJS))
        if k < 0.85:
            return 'logger.%s("%s %%s", %s)\n' % (r.choice(['info', 'debug', 'warning']), self.sentence()[:60],
                                                 self.ident())
        return '# %s\nimport %s\nfrom %s import %s\n' % (self.sentence(), r.choice(['os', 'json', 're', 'pathlib']),
                                                         r.choice(['typing', 'dataclasses', 'collections']),
                                                         r.choice(['Any', 'dataclass', 'defaultdict']))

    def ts_block(self):
        r = self.r
        k = r.random()
        if k < 0.3:
            fields = '\n'.join('  %s: %s;' % (self.camel(), r.choice(['string', 'number', 'boolean', 'string[]']))
                               for _ in range(r.randint(2, 6)))
            return 'export interface %s {\n%s\n}\n' % (self.camel().title(), fields)
        if k < 0.6:
            return ('export async function %s(%s: %s): Promise<void> {\n  const res = await fetch(`/api/%s/${%s}`);\n'
                    '  if (!res.ok) throw new Error("%s");\n}\n'
                    % (self.camel(), self.camel(), 'string', r.choice(NOUNS), self.camel(), self.sentence()[:50]))
        if k < 0.8:
            return 'const %s = process.env.%s ?? "%s";\n' % (self.camel(), self.ident().upper(), r.choice(ADJS))
        return '// %s\nimport { %s } from "./%s";\n' % (self.sentence(), self.camel(), r.choice(NOUNS))

    def yaml_block(self):
        r = self.r
        k = r.random()
        if k < 0.4:
            env = '\n'.join('            - name: %s\n              value: "%s"' % (self.ident().upper(), r.choice(ADJS))
                            for _ in range(r.randint(1, 4)))
            return ('---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: %s\n  labels:\n    app: %s\n'
                    'spec:\n  replicas: %d\n  template:\n    spec:\n      containers:\n        - name: %s\n'
                    '          image: ghcr.io/acme/%s@sha256:%s\n          env:\n%s\n'
                    % (r.choice(NOUNS), r.choice(NOUNS), r.randint(1, 9), r.choice(NOUNS), r.choice(NOUNS),
                       self.hexs(64), env))
        if k < 0.7:
            steps = '\n'.join('      - run: %s %s' % (r.choice(['cargo test', 'npm ci', 'make', 'pytest -q']),
                                                     r.choice(['--all', '-p memdir', '', '--release'])) for _ in
                              range(r.randint(2, 5)))
            return ('%s:\n  runs-on: ubuntu-latest\n  env:\n    TOKEN: ${{ secrets.%s }}\n  steps:\n'
                    '      - uses: actions/checkout@v4\n%s\n' % (self.ident(), self.ident().upper(), steps))
        return '%s:\n%s\n' % (self.ident(), '\n'.join('  %s: %s' % (self.ident(), r.choice(
            [str(r.randint(0, 9999)), r.choice(ADJS), '"%s"' % self.uuid(), '${%s}' % self.ident().upper()]))
            for _ in range(r.randint(2, 8))))

    def log_line(self):
        r = self.r
        lvl = r.choices(['INFO', 'DEBUG', 'WARN', 'ERROR'], [60, 25, 10, 5])[0]
        ts = '2026-%02d-%02dT%02d:%02d:%02d.%03dZ' % (r.randint(1, 12), r.randint(1, 28), r.randint(0, 23),
                                                      r.randint(0, 59), r.randint(0, 59), r.randint(0, 999))
        msg = r.choice([
            lambda: '%s %s in %dms' % (r.choice(VERBS), r.choice(NOUNS), r.randint(1, 9000)),
            lambda: 'GET /api/v1/%s/%s status=%d bytes=%d' % (r.choice(NOUNS), self.uuid(), r.choice([200, 200, 304, 404, 500]),
                                                             r.randint(0, 99999)),
            lambda: 'commit=%s branch=%s author=%s' % (self.hexs(40), r.choice(NOUNS), r.choice(NAMES)),
            lambda: self.sentence(),
            lambda: 'env %s=%s' % (self.ident().upper(), r.choice(['${%s}' % self.ident().upper(), '<redacted>',
                                                                   r.choice(ADJS)])),
        ])()
        return '%s %-5s [%s] req=%s %s\n' % (ts, lvl, r.choice(NOUNS), self.hexs(16), msg)

    def md_block(self, kind_hint=None):
        r = self.r
        k = r.random()
        if k < 0.12:
            return '## %s %s\n\n' % (r.choice(VERBS).title(), r.choice(NOUNS))
        if k < 0.45:
            return self.paragraph() + '\n\n'
        if k < 0.62:
            return ''.join('- %s\n' % self.sentence() for _ in range(r.randint(2, 6))) + '\n'
        if k < 0.78:
            lang = r.choice(['py', 'ts', 'yaml'])
            body = {'py': self.py_block, 'ts': self.ts_block, 'yaml': self.yaml_block}[lang]()
            return '```%s\n%s```\n\n' % (EXT_LANG[lang], body)
        if k < 0.88:
            rows = ''.join('| %s | %s | %s |\n' % (self.ident(), r.choice(ADJS), r.randint(0, 10 ** 6))
                           for _ in range(r.randint(2, 6)))
            return '| name | state | value |\n|---|---|---|\n%s\n' % rows
        if k < 0.91:
            import base64
            blob = base64.b64encode(bytes(r.getrandbits(8) for _ in range(r.randint(60, 600)))).decode()
            return '![%s](data:image/png;base64,iVBORw0KGgo%s)\n\n' % (r.choice(NOUNS), blob)
        return '> %s\n\n' % self.sentence()

    def json_record(self):
        r = self.r
        return {
            'id': self.uuid(),
            'type': r.choice(['note', 'decision', 'preference', 'incident']),
            'title': self.sentence()[:70],
            'body': self.paragraph(),
            'tags': r.sample(NOUNS, r.randint(1, 4)),
            'commit': self.hexs(40),
            'score': round(r.random(), 4),
            'created_at': '2026-%02d-%02dT%02d:%02d:00Z' % (r.randint(1, 12), r.randint(1, 28), r.randint(0, 23),
                                                           r.randint(0, 59)),
        }

    def filler(self, kind):
        if kind == 'md':
            return self.md_block()
        if kind == 'py':
            return self.py_block() + '\n'
        if kind == 'ts':
            return self.ts_block() + '\n'
        if kind == 'yaml':
            return self.yaml_block()
        if kind == 'log':
            return self.log_line()
        raise ValueError(kind)


# ----------------------------------------------------------------------------
# plants and decoys from own.jsonl
# ----------------------------------------------------------------------------

def load_vectors(path):
    plants, decoys = {}, []
    for line in open(path, encoding='utf-8'):
        v = json.loads(line)
        if v['kind'] != 'positive':
            # decoys must stay clean wherever they land: a '-----BEGIN ... PRIVATE KEY-----' mention would
            # join with the next 'KEY-----' further down the file (the private-key regex is unbounded)
            if not v['findings'] and '-----BEGIN' not in v['text']:
                decoys.append(v['text'] if v['text'].endswith('\n') else v['text'] + '\n')
            continue
        raw = v['text'].encode('utf-8')
        own = [f for f in v['findings'] if f['rule_id'] == v['rule_id']]
        if len(own) != 1:
            continue
        s0, s1 = own[0]['span']
        secret = raw[s0:s1].decode('utf-8')
        if v['rule_id'] == 'sentry-org-token':          # its span includes the delimiter that ended the match
            secret = secret.rstrip('"\'`\r\n ;')
        nested = [(f['rule_id'], f['span'][0] - s0) for f in v['findings']
                  if f is not own[0] and s0 <= f['span'][0] and f['span'][1] <= s1]
        plants.setdefault(v['rule_id'], []).append({'secret': secret, 'nested': nested})
    return {k: plants[k] for k in sorted(plants)}, decoys


def var_name(rule):
    return rule.replace('-', '_').upper().replace('NPM_', 'NPMJS_')


def plant_snippet(g, kind, rule, secret):
    """Return snippet text containing PLANT_MARK where the secret goes, and the secret as written."""
    r = g.r
    var = var_name(rule)
    multiline = '\n' in secret
    if kind == 'md':
        if multiline:
            return '```\n%s\n```\n\n' % PLANT_MARK, secret
        return r.choice([
            '```bash\nexport %s=%s\n```\n\n' % (var, PLANT_MARK),
            'The old %s was `%s`; it has been rotated.\n\n' % (rule, PLANT_MARK),
            '```yaml\n%s: "%s"\n```\n\n' % (var.lower(), PLANT_MARK),
        ]), secret
    if kind == 'py':
        if multiline:
            return '%s = """\n%s\n"""\n\n' % (var, PLANT_MARK), secret
        return '%s = "%s"\n\n' % (var, PLANT_MARK), secret
    if kind == 'ts':
        if multiline:
            return 'export const %s = `\n%s\n`;\n\n' % (g.camel(), PLANT_MARK), secret
        return 'export const %s = "%s";\n\n' % (g.camel(), PLANT_MARK), secret
    if kind == 'yaml':
        if multiline:
            secret = secret.replace('\n', '\n    ')
            return '%s:\n  %s: |\n    %s\n' % (g.ident(), var.lower(), PLANT_MARK), secret
        return '%s:\n  %s: "%s"\n' % (g.ident(), var.lower(), PLANT_MARK), secret
    if kind == 'log':
        if multiline:
            return '%s dumping key material:\n%s\n' % (g.log_line().rstrip('\n'), PLANT_MARK), secret
        return '%s loaded %s=%s from environment\n' % (g.log_line().rstrip('\n'), var, PLANT_MARK), secret
    raise ValueError(kind)


def make_file(g, kind, size, rule, plant, decoys):
    """Build one file; returns (bytes, [(rule_id, byte_offset, secret)])."""
    r = g.r
    if kind == 'json':
        return make_json_file(g, size, rule, plant, decoys)
    parts, n = [], 0
    plant_at = r.randint(int(size * 0.05), int(size * 0.9))
    planted = False
    snippet = secret = None
    while True:
        if not planted and n >= plant_at:
            snippet, secret = plant_snippet(g, kind, rule, plant['secret'])
            parts.append(snippet)
            n += len(snippet.encode()) + len(secret.encode()) - len(PLANT_MARK)
            planted = True
            continue
        if decoys and r.random() < (0.03 if kind in ('md', 'log') else 0.0):
            d = r.choice(decoys)
            blk = '```text\n%s```\n\n' % d if kind == 'md' else d
        else:
            blk = g.filler(kind)
        b = len(blk.encode())
        if n + b > size:
            if planted:
                break
            continue
        parts.append(blk)
        n += b
    text = ''.join(parts)
    i = text.index(PLANT_MARK)
    off = len(text[:i].encode())
    text = text.replace(PLANT_MARK, secret)
    hits = [(rule, off, secret)] + [(nr, off + d, None) for nr, d in plant['nested']]
    return text.encode(), hits


def make_json_file(g, size, rule, plant, decoys):
    r = g.r
    recs = []
    n = 40
    while True:
        rec = g.json_record()
        b = len(json.dumps(rec, ensure_ascii=False, indent=2).encode()) + 4
        if n + b > size - 1200:          # room for the planted record
            break
        recs.append(rec)
        n += b
    secret = plant['secret']
    prec = g.json_record()
    prec['body'] = prec['body'][:200]
    prec['config'] = {var_name(rule).lower(): PLANT_MARK}
    recs.insert(r.randint(1, max(1, len(recs) - 1)), prec)
    extra = len(secret.encode()) * 2
    while True:
        text = json.dumps({'items': recs, 'count': len(recs)}, ensure_ascii=False, indent=2) + '\n'
        if len(text.encode()) + extra <= size or len(recs) <= 2:
            break
        recs.pop(-1 if recs[-1] is not prec else 0)
    written = json.dumps(secret, ensure_ascii=False)[1:-1]     # as it appears inside a JSON string
    i = text.index(PLANT_MARK)
    off = len(text[:i].encode())
    text = text.replace(PLANT_MARK, written)
    hits = [(rule, off, written)] + [(nr, off + d, None) for nr, d in plant['nested']]
    return text.encode(), hits


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('out_dir')
    ap.add_argument('total_mb', nargs='?', type=float, default=50.0)
    ap.add_argument('seed', nargs='?', type=int, default=1)
    ap.add_argument('--vectors', default=DEFAULT_VECTORS)
    a = ap.parse_args(argv)

    plants, decoys = load_vectors(a.vectors)
    if not plants:
        sys.exit('no positive vectors found in %s' % a.vectors)
    g = Gen(a.seed)
    out = a.out_dir.rstrip('/')
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    target = int(a.total_mb * 1_000_000)
    rules = list(plants)
    order = []
    planted, written, i = [], 0, 0
    while written < target:
        if not order:
            order = rules[:]
            g.r.shuffle(order)
        rule = order.pop()
        plant = g.r.choice(plants[rule])
        kind = g.r.choices(KINDS, KIND_WEIGHTS)[0]
        size = min(g.r.randint(FILE_MIN, FILE_MAX), max(target - written, 4000))
        data, hits = make_file(g, kind, size, rule, plant, decoys)
        name = '%04d-%s.%s' % (i, g.r.choice(NOUNS), kind)
        with open(os.path.join(out, name), 'wb') as fh:
            fh.write(data)
        for rid, off, sec in hits:
            e = {'file': name, 'rule_id': rid, 'byte_offset': off, 'plant': i}
            if sec is not None:
                e['secret'] = sec
            planted.append(e)
        written += len(data)
        i += 1
    meta = {'generator': 'crates/secrets/bench/gen_corpus.py', 'seed': a.seed, 'total_mb': a.total_mb,
            'files': i, 'bytes': written, 'plants': i, 'planted_findings': len(planted),
            'rules': len({p['rule_id'] for p in planted}), 'planted': planted}
    with open(out + '.planted.json', 'w', encoding='utf-8') as fh:
        json.dump(meta, fh, indent=1, ensure_ascii=False)
    print('files %d bytes %d plants %d planted findings %d rules %d' % (i, written, i, len(planted), meta['rules']))


if __name__ == '__main__':
    main()
