#!/usr/bin/env python3
"""Build own.jsonl: memdir's own secret-scanner test vectors.

The texts are written here (deterministic, seeded); the `findings` of every
vector are NOT written by hand: they are what gitleaks 8.30.1 reports on the
text with the reference rules, obtained by running gitleaks once over a
temporary folder holding one file per vector.

Usage:
  python3 build_own.py --gitleaks PATH/TO/gitleaks --rules PATH/TO/rules.toml [--out own.jsonl]
  python3 build_own.py --gitleaks ... --rules ... --check   # re-verify an existing own.jsonl

Span method (verified to reproduce every span of the shared vectors.json):
gitleaks' JSON report gives StartLine (1-based), StartColumn, Match (the
whole regex match) and Secret (the capture group). The match starts at byte
  line_start(StartLine) + StartColumn - 1   when StartLine == 1
  line_start(StartLine) + StartColumn - 2   when StartLine > 1
(gitleaks counts columns from the previous '\n' byte), and the secret
starts at match_start + Match.find(Secret). Both are checked against the
text bytes; any finding that cannot be located exactly aborts the build.
"""
import argparse
import base64
import json
import os
import random
import shutil
import string
import subprocess
import sys
import tempfile

SEED = 20260729
R = random.Random(SEED)

UP = string.ascii_uppercase
LO = string.ascii_lowercase
DIG = string.digits
LET = UP + LO
ALNUM = LET + DIG
HEX = '0123456789abcdef'
B32U = UP + '234567'
B64 = ALNUM + '+/'
URLSAFE = ALNUM + '-_'
BECH32U = 'qpzry9x8gf2tvdw0s3jn54khce6mua7l'.upper()


def rnd(alpha, n):
    return ''.join(R.choice(alpha) for _ in range(n))


def rnd_end_alnum(alpha, n):
    """n chars of alpha, first and last alphanumeric (word-boundary safe)."""
    return R.choice(ALNUM) + rnd(alpha, n - 2) + R.choice(ALNUM)


def digits(n):
    return R.choice('123456789') + rnd(DIG, n - 1)


def b64(data):
    return base64.b64encode(data).decode()


# --------------------------------------------------------------------------
# secret makers, one per rule (realistic shape, random content)
# --------------------------------------------------------------------------

def op_token():
    payload = {
        'signInAddress': 'acme-%s.1password.com' % rnd(LO, 6),
        'userAuth': {'method': 'SRPg-4096', 'alg': 'PBES2g-HS256', 'iterations': 650000,
                     'salt': rnd(URLSAFE, 22)},
        'email': rnd(LO + DIG, 13) + '@1passwordserviceaccounts.com',
        'srpX': rnd(HEX, 64),
        'muk': {'alg': 'A256GCM', 'ext': True, 'k': rnd(URLSAFE, 43), 'key_ops': ['encrypt', 'decrypt'],
                'kty': 'oct', 'kid': 'mp'},
        'secretKey': 'A3-%s-%s-%s' % (rnd(B32U, 6), rnd(B32U, 6), rnd(B32U, 5)),
        'deviceUuid': rnd(LO + DIG, 26),
    }
    return 'ops_' + b64(json.dumps(payload, separators=(',', ':')).encode())


def age_key():
    return 'AGE-SECRET-KEY-1' + rnd(BECH32U, 58)


def ant_admin():
    return 'sk-ant-admin01-' + rnd_end_alnum(URLSAFE, 93) + 'AA'


def ant_api():
    return 'sk-ant-api03-' + rnd_end_alnum(URLSAFE, 93) + 'AA'


def aws_key(prefix='AKIA'):
    while True:
        s = prefix + rnd(B32U, 16)
        if 'EXAMPLE' not in s:
            return s


def bedrock_long():
    raw = ('BedrockAPIKey-%s-at-%s:%s' % (rnd(LO + DIG, 4), digits(12), rnd(B64, 60))).encode()
    return 'ABSK' + b64(raw)


def bedrock_short():
    q = ('bedrock.amazonaws.com/?Action=CallWithBearerToken&X-Amz-Algorithm=AWS4-HMAC-SHA256'
         '&X-Amz-Date=20260714T101500Z&X-Amz-Expires=43200&X-Amz-SignedHeaders=host'
         '&X-Amz-Signature=%s&Version=1' % rnd(HEX, 64))
    return 'bedrock-api-key-' + b64(q.encode())


def azure_secret():
    return rnd(ALNUM, 3) + R.choice(DIG) + 'Q~' + rnd_end_alnum(ALNUM + '_~.-', 34)


def databricks(suffix=False):
    return 'dapi' + rnd(HEX, 32) + ('-%d' % R.randint(1, 9) if suffix else '')


def do_pat():
    return 'dop_v1_' + rnd(HEX, 64)


def gcp_key():
    return 'AIzaSy' + rnd_end_alnum(URLSAFE, 33)


def gh(prefix):
    return prefix + rnd(ALNUM, 36)


def gh_fine():
    return 'github_pat_' + rnd(ALNUM, 22) + '_' + rnd(ALNUM, 59)


def gl(prefix, n, alpha=ALNUM + '_-'):
    return prefix + rnd_end_alnum(alpha, n)


def glcbt():
    return 'glcbt-' + rnd(ALNUM, R.randint(2, 4)) + '_' + rnd_end_alnum(ALNUM + '_-', 20)


def glpat_routable():
    return 'glpat-' + rnd_end_alnum(ALNUM + '_-', R.randint(27, 40)) + '.01' + rnd(LO + DIG, 7)


def glrt_routable():
    return 'glrt-t%d_' % R.randint(1, 3) + rnd_end_alnum(ALNUM + '_-', R.randint(27, 40)) + '.01' + rnd(LO + DIG, 7)


def grafana_api():
    while True:
        raw = '{"k":"%s","n":"%s","id":%d}' % (rnd(ALNUM, 32), R.choice(
            ['ci-dashboard-publisher', 'alerting-sync-bot', 'terraform-provisioner']), R.randint(1, 99))
        s = b64(raw.encode())
        if '+' not in s and '/' not in s:
            return s


def grafana_cloud():
    raw = '{"o":"%d","n":"stack-%d-hm-read-%s","k":"%s","m":{"r":"prod-us-east-0"}}' % (
        R.randint(100000, 999999), R.randint(100000, 999999), rnd(LO, 5), rnd(ALNUM, 40))
    return 'glc_' + b64(raw.encode())


def glsa():
    return 'glsa_' + rnd(ALNUM, 32) + '_' + rnd(HEX, 8)


def hf():
    return 'hf_' + rnd(LET, 34)


def hf_org():
    return 'api_org_' + rnd(LET, 34)


def npm():
    return 'npm_' + rnd(ALNUM, 36)


def openai(kind='proj'):
    if kind == 'legacy':
        return 'sk-' + rnd(ALNUM, 20) + 'T3BlbkFJ' + rnd(ALNUM, 20)
    n = 74 if kind != 'svcacct' else 58
    return 'sk-%s-' % kind + rnd_end_alnum(URLSAFE, n) + 'T3BlbkFJ' + rnd_end_alnum(URLSAFE, n)


def pplx():
    return 'pplx-' + rnd(ALNUM, 48)


def pem_body(nbytes, header=b''):
    data = header + bytes(R.getrandbits(8) for _ in range(nbytes - len(header)))
    s = b64(data)
    return [s[i:i + 64] for i in range(0, len(s), 64)]


PKCS8_HDR = bytes.fromhex('308204bd020100300d06092a864886f70d0101010500048204a7')
RSA_HDR = bytes.fromhex('308204a40201000282010100')
EC_HDR = bytes.fromhex('30770201010420')
OPENSSH_HDR = b'openssh-key-v1\x00\x00\x00\x00\x04none\x00\x00\x00\x04none\x00\x00\x00\x00\x00\x00\x00\x01'


def private_key(kind='PRIVATE KEY', n=None, sep='\n'):
    hdr, size = {'PRIVATE KEY': (PKCS8_HDR, 1217), 'RSA PRIVATE KEY': (RSA_HDR, 1192),
                 'EC PRIVATE KEY': (EC_HDR, 121), 'OPENSSH PRIVATE KEY': (OPENSSH_HDR, 400),
                 'ENCRYPTED PRIVATE KEY': (b'', 300)}[kind]
    lines = pem_body(n or size, hdr)
    return sep.join(['-----BEGIN %s-----' % kind] + lines + ['-----END %s-----' % kind])


def pypi():
    return 'pypi-AgEIcHlwaS5vcmc' + 'CJD' + rnd_end_alnum(URLSAFE, R.randint(120, 160))


def sentry_org():
    import re
    rx = re.compile(r'sntrys_eyJpYXQiO[a-zA-Z0-9+/]{10,200}(?:LCJyZWdpb25fdXJs|InJlZ2lvbl91cmwi|cmVnaW9uX3VybCI6)'
                    r'[a-zA-Z0-9+/]{10,200}={0,2}_[a-zA-Z0-9+/]{43}$')
    while True:
        raw = ('{"iat":%d.%06d,"url":"https://sentry.io","region_url":"https://us.sentry.io","org":"%s"}'
               % (R.randint(1700000000, 1790000000), R.randint(0, 999999), rnd(LO, R.randint(4, 10)))).encode()
        s = 'sntrys_' + b64(raw) + '_' + rnd(ALNUM + '+/', 42) + R.choice(ALNUM)
        if rx.match(s):
            return s


def sentry_user():
    return 'sntryu_' + rnd(HEX, 64)


def shop(prefix):
    return prefix + rnd(HEX, 32)


def slack_app():
    return 'xapp-1-A0%s-%s-%s' % (rnd(UP + DIG, 9), digits(13), rnd(HEX, 64))


def slack_bot():
    return 'xoxb-%s-%s-%s' % (digits(12), digits(13), rnd(ALNUM, 24))


def slack_cfg_access():
    return 'xoxe.xox%s-1-' % R.choice('bp') + rnd(ALNUM, R.randint(163, 166))


def slack_cfg_refresh():
    return 'xoxe-1-' + rnd(ALNUM, 146)


def slack_legacy_bot():
    return 'xoxb-%s-%s' % (digits(R.randint(8, 12)), R.choice(LET) + rnd(ALNUM, 23))


def slack_user():
    return 'xoxp-%s-%s-%s-%s' % (digits(10), digits(12), digits(13), rnd(HEX, 32))


def slack_hook(kind='services'):
    if kind == 'services':
        return 'https://hooks.slack.com/services/T%s/B%s/%s' % (rnd(UP + DIG, 8), rnd(UP + DIG, 10), rnd(ALNUM, 24))
    return 'https://hooks.slack.com/%s/T%s/A%s/%s/%s' % (kind, rnd(UP + DIG, 8), rnd(UP + DIG, 10), digits(18),
                                                       rnd(ALNUM, 12))


def stripe(prefix='sk_live_', n=24):
    return prefix + rnd(ALNUM, n)


# --------------------------------------------------------------------------
# generic contexts
# --------------------------------------------------------------------------

def ctx_assignment(var, s):
    return R.choice([
        '%s = "%s"\n' % (var.upper(), s),
        'const %s = "%s";\n' % (camel(var), s),
        '%s := "%s"\n' % (camel(var), s),
        "%s = '%s'\n" % (var.lower(), s),
    ])


def ctx_json(var, s):
    return ('{\n  "name": "%s",\n  "%s": "%s",\n  "enabled": true\n}\n'
            % (R.choice(['billing-worker', 'ci', 'ingest', 'nightly-export', 'agent-tools']), camel(var), s))


def ctx_yaml(var, s):
    return ('%s:\n  region: %s\n  %s: %s\n  retries: %d\n'
            % (R.choice(['service', 'integrations', 'deploy', 'secrets']),
               R.choice(['eu-west-1', 'us-east-1', 'ap-south-1']), var.lower(), s, R.randint(1, 5)))


def ctx_env(var, s):
    return '# %s\n%s=%s\nLOG_LEVEL=info\n' % (R.choice(['production', 'local dev', 'staging — do not commit']),
                                               var.upper(), s)


def camel(var):
    p = var.lower().split('_')
    return p[0] + ''.join(x.title() for x in p[1:])


GENERIC = [('assignment', ctx_assignment), ('json', ctx_json), ('yaml', ctx_yaml), ('env', ctx_env)]

VECTORS = []


def add(vid, rule_id, kind, context, text):
    VECTORS.append({'id': vid, 'rule_id': rule_id, 'kind': kind, 'context': context, 'text': text})


def positives(rule, var, make, extra=()):
    """4 generic contexts + rule-specific (context, text-maker(secret)) pairs."""
    for ctx, fn in GENERIC:
        add('%s/pos/%s' % (rule, ctx), rule, 'positive', ctx, fn(var, make()))
    for i, (ctx, fn) in enumerate(extra):
        add('%s/pos/%s-%d' % (rule, ctx, i + 1), rule, 'positive', ctx, fn(make()))


def near(rule, name, context, text):
    add('%s/near/%s' % (rule, name), rule, 'near-miss', context, text)


# --------------------------------------------------------------------------
# per-rule vectors
# --------------------------------------------------------------------------

def build():
    # 1password
    r = '1password-service-account-token'
    positives(r, 'OP_SERVICE_ACCOUNT_TOKEN', op_token, [
        ('shell', lambda s: 'export OP_SERVICE_ACCOUNT_TOKEN="%s"\nop vault list\n' % s),
        ('code', lambda s: 'client = await createClient({ auth: "%s", integrationName: "memdir" });\n' % s),
    ])
    near(r, 'too-short', 'env', 'OP_SERVICE_ACCOUNT_TOKEN=ops_eyJ%s\n' % rnd(B64, 180))
    near(r, 'not-base64-json', 'env', 'OP_SERVICE_ACCOUNT_TOKEN=ops_%s\n' % rnd(ALNUM, 300))

    r = 'age-secret-key'
    positives(r, 'SOPS_AGE_KEY', age_key, [
        ('keyfile', lambda s: '# created: 2026-03-02T10:11:12+01:00\n# public key: age1%s\n%s\n'
                              % (rnd(BECH32U.lower(), 58), s)),
    ])
    near(r, 'invalid-bech32-char', 'env', 'SOPS_AGE_KEY=AGE-SECRET-KEY-1%sB%s\n' % (rnd(BECH32U, 20), rnd(BECH32U, 37)))
    near(r, 'too-short', 'keyfile', '# public key: age1%s\nAGE-SECRET-KEY-1%s\n' % (rnd(BECH32U.lower(), 58), rnd(BECH32U, 50)))

    r = 'anthropic-admin-api-key'
    positives(r, 'ANTHROPIC_ADMIN_KEY', ant_admin, [
        ('code', lambda s: 'curl https://api.anthropic.com/v1/organizations/users \\\n  --header "x-api-key: %s"\n' % s),
    ])
    near(r, 'wrong-suffix', 'env', 'ANTHROPIC_ADMIN_KEY=sk-ant-admin01-%sAB\n' % rnd(URLSAFE, 93))
    near(r, 'too-short', 'assignment', 'ANTHROPIC_ADMIN_KEY = "sk-ant-admin01-%sAA"\n' % rnd(URLSAFE, 80))

    r = 'anthropic-api-key'
    positives(r, 'ANTHROPIC_API_KEY', ant_api, [
        ('code', lambda s: 'client = anthropic.Anthropic(api_key="%s")\n' % s),
        ('prose', lambda s: 'Schlüssel für die Tests — bitte rotieren ✅: `%s`\n' % s),
    ])
    near(r, 'redacted', 'prose', 'The key in the logs was sk-ant-api03-**** (redacted by the proxy).\n')
    near(r, 'followed-by-word-char', 'assignment', 'ANTHROPIC_API_KEY = "sk-ant-api03-%sAAx"\n' % rnd(URLSAFE, 93))

    r = 'aws-access-token'
    positives(r, 'AWS_ACCESS_KEY_ID', aws_key, [
        ('ini', lambda s: '[default]\naws_access_key_id = %s\naws_secret_access_key = %s\nregion = eu-west-1\n'
                          % (s, rnd(B64, 40))),
        ('url', lambda s: 'https://acme-artifacts.s3.amazonaws.com/build-1142.tgz?AWSAccessKeyId=%s&Expires=%d'
                          '&Signature=%s\n' % (s, R.randint(1700000000, 1800000000), rnd(ALNUM, 27) + '%3D')),
    ])
    add('aws-access-token/pos/sts-json', 'aws-access-token', 'positive', 'json',
        '{"Credentials": {"AccessKeyId": "%s", "Expiration": "2026-08-01T12:00:00Z"}}\n' % aws_key('ASIA'))
    near(r, 'digit-out-of-alphabet', 'env', 'AWS_ACCESS_KEY_ID=AKIA%s0%s\n' % (rnd(B32U, 8), rnd(B32U, 7)))
    near(r, 'low-entropy', 'env', 'AWS_ACCESS_KEY_ID=AKIAAAAAAAAAAAAAAAAA\n')
    near(r, 'too-short', 'yaml', 'aws:\n  access_key_id: AKIA%s\n' % rnd(B32U, 15))

    r = 'aws-amazon-bedrock-api-key-long-lived'
    positives(r, 'AWS_BEARER_TOKEN_BEDROCK', bedrock_long, [
        ('shell', lambda s: 'export AWS_BEARER_TOKEN_BEDROCK=%s\n' % s),
    ])
    near(r, 'too-short', 'env', 'AWS_BEARER_TOKEN_BEDROCK=ABSK%s\n' % rnd(B64, 90))
    near(r, 'glued-to-url-param', 'url', 'https://example.test/cb?token=ABSK%s&next=1\n' % rnd(ALNUM, 140))

    r = 'aws-amazon-bedrock-api-key-short-lived'
    positives(r, 'AWS_BEARER_TOKEN_BEDROCK', bedrock_short, [
        ('shell', lambda s: 'export AWS_BEARER_TOKEN_BEDROCK=%s\n' % s),
    ])
    near(r, 'other-host', 'env', 'AWS_BEARER_TOKEN_BEDROCK=bedrock-api-key-%s\n'
         % b64(b'sagemaker.amazonaws.com/?Action=CallWithBearerToken'))
    near(r, 'prefix-only-prose', 'prose', 'Short-lived keys start with `bedrock-api-key-` and expire after 12 hours.\n')

    r = 'azure-ad-client-secret'
    positives(r, 'AZURE_CLIENT_SECRET', azure_secret, [
        ('shell', lambda s: 'az login --service-principal -u %s -p %s --tenant %s\n'
                            % (uuid(), s, uuid())),
    ])
    near(r, 'letter-before-Q', 'env', 'AZURE_CLIENT_SECRET=%sQ~%s\n' % (rnd(LET, 4), rnd(ALNUM, 34)))
    near(r, 'too-short', 'yaml', 'azure:\n  client_secret: %s7Q~%s\n' % (rnd(ALNUM, 3), rnd(ALNUM, 28)))
    near(r, 'url-param-ampersand', 'url', 'POST /oauth2/v2.0/token body: client_id=%s&client_secret=%s&scope=x\n'
         % (uuid(), azure_secret()))

    r = 'databricks-api-token'
    positives(r, 'DATABRICKS_TOKEN', databricks, [
        ('ini', lambda s: '[DEFAULT]\nhost = https://adb-%s.7.azuredatabricks.net\ntoken = %s\n' % (digits(16), s)),
    ])
    add('databricks-api-token/pos/suffix', 'databricks-api-token', 'positive', 'env',
        'DATABRICKS_TOKEN=%s\n' % databricks(True))
    near(r, 'uppercase-hex', 'env', 'DATABRICKS_TOKEN=dapi%s\n' % rnd('0123456789ABCDEF', 32))
    near(r, 'too-short', 'env', 'DATABRICKS_TOKEN=dapi%s\n' % rnd(HEX, 31))

    r = 'digitalocean-pat'
    positives(r, 'DIGITALOCEAN_TOKEN', do_pat, [
        ('shell', lambda s: 'doctl auth init --access-token %s\n' % s),
    ])
    near(r, 'too-short', 'env', 'DIGITALOCEAN_TOKEN=dop_v1_%s\n' % rnd(HEX, 63))
    near(r, 'oauth-prefix', 'env', 'DIGITALOCEAN_TOKEN=doo_v1_%s\n' % rnd(HEX, 64))

    r = 'gcp-api-key'
    positives(r, 'GOOGLE_MAPS_API_KEY', gcp_key, [
        ('html', lambda s: '<script src="https://maps.googleapis.com/maps/api/js?callback=initMap&key=%s"></script>\n' % s),
        ('code', lambda s: 'const firebaseConfig = { apiKey: "%s", authDomain: "acme-prod.firebaseapp.com" };\n' % s),
    ])
    near(r, 'too-short', 'env', 'GOOGLE_MAPS_API_KEY=AIzaSy%s\n' % rnd(ALNUM, 32))
    near(r, 'url-param-ampersand', 'url', 'https://maps.googleapis.com/maps/api/js?key=%s&callback=initMap\n' % gcp_key())
    near(r, 'low-entropy', 'env', 'GOOGLE_API_KEY=AIzaSyAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA\n')

    r = 'github-app-token'
    positives(r, 'GITHUB_TOKEN', lambda: gh(R.choice(['ghs_', 'ghu_'])), [
        ('url', lambda s: 'git clone https://x-access-token:%s@github.com/acme/platform.git\n' % s),
    ])
    near(r, 'too-short', 'env', 'GITHUB_TOKEN=ghs_%s\n' % rnd(ALNUM, 35))
    near(r, 'low-entropy', 'env', 'GITHUB_TOKEN=ghs_000000000000000000000000000000000000\n')

    r = 'github-fine-grained-pat'
    positives(r, 'GH_TOKEN', gh_fine, [
        ('shell', lambda s: 'echo %s | gh auth login --with-token\n' % s),
    ])
    near(r, 'too-short', 'env', 'GH_TOKEN=github_pat_%s_%s\n' % (rnd(ALNUM, 22), rnd(ALNUM, 50)))
    near(r, 'prose', 'prose', 'Fine-grained tokens look like `github_pat_` followed by 82 characters.\n')

    r = 'github-oauth'
    positives(r, 'GITHUB_OAUTH_TOKEN', lambda: gh('gho_'), [
        ('code', lambda s: 'headers = {"Authorization": "token %s"}\n' % s),
    ])
    near(r, 'too-short', 'env', 'GITHUB_OAUTH_TOKEN=gho_%s\n' % rnd(ALNUM, 30))
    near(r, 'placeholder', 'env', 'GITHUB_OAUTH_TOKEN=gho_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\n')

    r = 'github-pat'
    positives(r, 'GITHUB_TOKEN', lambda: gh('ghp_'), [
        ('url', lambda s: 'https://%s@github.com/acme/infra.git\n' % s),
        ('code', lambda s: 'g = Github(auth=Auth.Token("%s"))\n' % s),
    ])
    near(r, 'too-short', 'env', 'GITHUB_TOKEN=ghp_%s\n' % rnd(ALNUM, 35))
    near(r, 'punctuation-inside', 'env', 'GITHUB_TOKEN=ghp_%s-%s\n' % (rnd(ALNUM, 18), rnd(ALNUM, 18)))

    r = 'github-refresh-token'
    positives(r, 'GITHUB_REFRESH_TOKEN', lambda: gh('ghr_'), [
        ('url', lambda s: 'https://github.com/login/oauth/access_token?grant_type=refresh_token&refresh_token=%s\n' % s),
    ])
    near(r, 'too-short', 'env', 'GITHUB_REFRESH_TOKEN=ghr_%s\n' % rnd(ALNUM, 33))
    near(r, 'low-entropy', 'json', '{"refresh_token": "ghr_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"}\n')

    r = 'gitlab-cicd-job-token'
    positives(r, 'CI_JOB_TOKEN', glcbt, [
        ('url', lambda s: 'git clone https://gitlab-ci-token:%s@gitlab.example.com/acme/app.git\n' % s),
    ])
    near(r, 'too-short', 'env', 'CI_JOB_TOKEN=glcbt-64_%s\n' % rnd(ALNUM, 15))
    near(r, 'variable-reference', 'shell', 'curl --header "JOB-TOKEN: $CI_JOB_TOKEN" "${CI_API_V4_URL}/projects"\n')

    for r, var, prefix, n in [
        ('gitlab-deploy-token', 'GITLAB_DEPLOY_TOKEN', 'gldt-', 20),
        ('gitlab-feature-flag-client-token', 'UNLEASH_INSTANCE_TOKEN', 'glffct-', 20),
        ('gitlab-feed-token', 'GITLAB_FEED_TOKEN', 'glft-', 20),
        ('gitlab-incoming-mail-token', 'INCOMING_EMAIL_TOKEN', 'glimt-', 25),
        ('gitlab-kubernetes-agent-token', 'AGENT_TOKEN', 'glagent-', 50),
        ('gitlab-oauth-app-secret', 'GITLAB_OAUTH_SECRET', 'gloas-', 64),
        ('gitlab-pat', 'GITLAB_TOKEN', 'glpat-', 20),
        ('gitlab-runner-authentication-token', 'RUNNER_TOKEN', 'glrt-', 20),
        ('gitlab-scim-token', 'GITLAB_SCIM_TOKEN', 'glsoat-', 20),
    ]:
        mk = (lambda p=prefix, k=n: gl(p, k))
        extra = {
            'gitlab-deploy-token': [('shell', lambda s: 'docker login -u gitlab+deploy-token-12 -p %s registry.gitlab.com\n' % s)],
            'gitlab-feature-flag-client-token': [('code', lambda s: 'unleash = UnleashClient(url="https://gitlab.com/api/v4/feature_flags/unleash/42", instance_id="%s")\n' % s)],
            'gitlab-feed-token': [('url', lambda s: 'https://gitlab.com/dashboard/projects.atom?feed_token=%s\n' % s)],
            'gitlab-incoming-mail-token': [('prose', lambda s: 'Reply to incoming+acme-app-42-%s-issue@gitlab.example.com to comment.\n' % s)],
            'gitlab-kubernetes-agent-token': [('shell', lambda s: 'helm upgrade --install k8s-agent gitlab/gitlab-agent --set config.token=%s\n' % s)],
            'gitlab-oauth-app-secret': [('ruby', lambda s: 'config.omniauth :gitlab, "%s", "%s"\n' % (rnd(HEX, 64), s))],
            'gitlab-pat': [('url', lambda s: 'git remote set-url origin https://oauth2:%s@gitlab.com/acme/app.git\n' % s),
                           ('shell', lambda s: 'curl --header "PRIVATE-TOKEN: %s" https://gitlab.com/api/v4/projects\n' % s)],
            'gitlab-runner-authentication-token': [('toml', lambda s: '[[runners]]\n  name = "docker-runner"\n  url = "https://gitlab.com"\n  token = "%s"\n' % s)],
            'gitlab-scim-token': [('code', lambda s: 'requests.get(scim_url, headers={"Authorization": "Bearer %s"})\n' % s)],
        }[r]
        positives(r, var, mk, extra)
        near(r, 'too-short', 'env', '%s=%s%s\n' % (var, prefix, rnd(ALNUM, n - 2)))
        near(r, 'placeholder', 'yaml', 'gitlab:\n  %s: %s%s\n' % (var.lower(), prefix, 'x' * n))

    r = 'gitlab-pat-routable'
    positives(r, 'GITLAB_TOKEN', glpat_routable, [
        ('url', lambda s: 'git clone https://oauth2:%s@gitlab.com/acme/app.git\n' % s),
    ])
    near(r, 'no-crc-suffix', 'env', 'GITLAB_TOKEN=glpat-%s.01\n' % rnd(ALNUM, 10))

    r = 'gitlab-ptt'
    positives(r, 'TRIGGER_TOKEN', lambda: 'glptt-' + rnd(HEX, 40), [
        ('shell', lambda s: 'curl -X POST --fail -F token=%s -F ref=main https://gitlab.com/api/v4/projects/42/trigger/pipeline\n' % s),
    ])
    near(r, 'non-hex', 'env', 'TRIGGER_TOKEN=glptt-%s\n' % rnd(LET, 40))
    near(r, 'too-short', 'env', 'TRIGGER_TOKEN=glptt-%s\n' % rnd(HEX, 39))

    r = 'gitlab-rrt'
    positives(r, 'REGISTRATION_TOKEN', lambda: 'GR1348941' + rnd_end_alnum(URLSAFE, 20), [
        ('shell', lambda s: 'gitlab-runner register --url https://gitlab.com --registration-token %s\n' % s),
    ])
    near(r, 'too-short', 'env', 'REGISTRATION_TOKEN=GR1348941%s\n' % rnd(ALNUM, 18))
    near(r, 'other-digits', 'env', 'REGISTRATION_TOKEN=GR1348942%s\n' % rnd(ALNUM, 20))

    r = 'gitlab-runner-authentication-token-routable'
    positives(r, 'RUNNER_TOKEN', glrt_routable, [
        ('toml', lambda s: '[[runners]]\n  url = "https://gitlab.com"\n  token = "%s"\n' % s),
    ])
    near(r, 'no-crc-suffix', 'env', 'RUNNER_TOKEN=glrt-t1_%s\n' % rnd(ALNUM, 12))

    r = 'grafana-api-key'
    positives(r, 'GRAFANA_API_KEY', grafana_api, [
        ('shell', lambda s: 'curl -H "Authorization: Bearer %s" https://grafana.example.com/api/dashboards/home\n' % s),
    ])
    near(r, 'too-short', 'env', 'GRAFANA_API_KEY=eyJrIjoi%s\n' % rnd(ALNUM, 40))
    near(r, 'jwt-not-grafana', 'env', 'GRAFANA_API_KEY=eyJhbGciOiJIUzI1NiJ9.%s.%s\n' % (rnd(URLSAFE, 60), rnd(URLSAFE, 43)))

    r = 'grafana-cloud-api-token'
    positives(r, 'GRAFANA_CLOUD_TOKEN', grafana_cloud, [
        ('shell', lambda s: 'curl -u "123456:%s" https://prometheus-prod-01-eu-west-0.grafana.net/api/prom/push\n' % s),
    ])
    near(r, 'too-short', 'env', 'GRAFANA_CLOUD_TOKEN=glc_%s\n' % rnd(ALNUM, 30))
    near(r, 'identifier', 'code', 'glc_texture_cache = load_textures(glc_texture_dir)  # OpenGL context helpers\n')

    r = 'grafana-service-account-token'
    positives(r, 'GRAFANA_SA_TOKEN', glsa, [
        ('code', lambda s: 'client = GrafanaApi.from_url("https://grafana.example.com", credential="%s")\n' % s),
    ])
    near(r, 'non-hex-checksum', 'env', 'GRAFANA_SA_TOKEN=glsa_%s_%s\n' % (rnd(ALNUM, 32), rnd('ghijklmn', 8)))
    near(r, 'too-short', 'env', 'GRAFANA_SA_TOKEN=glsa_%s_%s\n' % (rnd(ALNUM, 30), rnd(HEX, 8)))

    r = 'huggingface-access-token'
    positives(r, 'HF_TOKEN', hf, [
        ('shell', lambda s: 'huggingface-cli login --token %s\n' % s),
        ('code', lambda s: 'model = AutoModel.from_pretrained("acme/private-llm", token="%s")\n' % s),
    ])
    near(r, 'contains-digits', 'env', 'HF_TOKEN=hf_%s1%s\n' % (rnd(LET, 16), rnd(LET, 17)))
    near(r, 'identifier', 'code', 'from huggingface_hub import hf_hub_download\npath = hf_hub_download(repo_id="acme/model", filename="config.json")\n')

    r = 'huggingface-organization-api-token'
    positives(r, 'HF_ORG_TOKEN', hf_org, [
        ('code', lambda s: 'api = HfApi(token="%s")\n' % s),
    ])
    near(r, 'too-short', 'env', 'HF_ORG_TOKEN=api_org_%s\n' % rnd(LET, 30))
    near(r, 'identifier', 'code', 'api_org_name = settings.get("api_org_name", "acme")\n')

    r = 'npm-access-token'
    positives(r, 'NPM_TOKEN', npm, [
        ('npmrc', lambda s: '//registry.npmjs.org/:_authToken=%s\n' % s),
    ])
    near(r, 'too-short', 'env', 'NPM_TOKEN=npm_%s\n' % rnd(ALNUM, 30))
    near(r, 'config-variable', 'shell', 'export npm_config_cache=/tmp/.npm npm_package_version=1.4.2\n')

    r = 'openai-api-key'
    positives(r, 'OPENAI_API_KEY', openai, [
        ('code', lambda s: 'client = OpenAI(api_key="%s")\n' % s),
    ])
    add('openai-api-key/pos/svcacct', r, 'positive', 'env', 'OPENAI_API_KEY=%s\n' % openai('svcacct'))
    add('openai-api-key/pos/legacy', r, 'positive', 'assignment', 'openai.api_key = "%s"\n' % openai('legacy'))
    near(r, 'no-marker', 'env', 'OPENAI_API_KEY=sk-proj-%s\n' % rnd(ALNUM, 156))
    near(r, 'legacy-too-short', 'env', 'OPENAI_API_KEY=sk-%sT3BlbkFJ%s\n' % (rnd(ALNUM, 19), rnd(ALNUM, 20)))
    near(r, 'ends-with-dash', 'assignment', 'OPENAI_API_KEY = "sk-proj-%sT3BlbkFJ%s-"\n'
         % (rnd_end_alnum(URLSAFE, 74), rnd(ALNUM, 73)))

    r = 'perplexity-api-key'
    positives(r, 'PERPLEXITY_API_KEY', pplx, [
        ('code', lambda s: 'client = OpenAI(api_key="%s", base_url="https://api.perplexity.ai")\n' % s),
    ])
    near(r, 'too-short', 'env', 'PERPLEXITY_API_KEY=pplx-%s\n' % rnd(ALNUM, 40))
    near(r, 'low-entropy', 'env', 'PERPLEXITY_API_KEY=pplx-%s\n' % ('ab' * 24))

    r = 'private-key'
    add('private-key/pos/pem-pkcs8', r, 'positive', 'pem', private_key('PRIVATE KEY') + '\n')
    add('private-key/pos/pem-rsa', r, 'positive', 'pem', private_key('RSA PRIVATE KEY') + '\n')
    add('private-key/pos/pem-ec-after-prose', r, 'positive', 'markdown',
        'Clé de signature (à ne pas partager) :\n\n```\n' + private_key('EC PRIVATE KEY') + '\n```\n')
    add('private-key/pos/openssh', r, 'positive', 'pem', private_key('OPENSSH PRIVATE KEY') + '\n')
    add('private-key/pos/json-escaped', r, 'positive', 'json',
        '{\n  "type": "service_account",\n  "project_id": "acme-prod",\n  "private_key_id": "%s",\n'
        '  "private_key": "%s\\n",\n  "client_email": "ci@acme-prod.iam.gserviceaccount.com"\n}\n'
        % (rnd(HEX, 40), private_key('PRIVATE KEY', sep='\\n')))
    add('private-key/pos/yaml-block', r, 'positive', 'yaml',
        'tls:\n  key: |\n' + '\n'.join('    ' + l for l in private_key('EC PRIVATE KEY').split('\n')) + '\n')
    add('private-key/pos/env-escaped', r, 'positive', 'env',
        'JWT_SIGNING_KEY="%s"\n' % private_key('RSA PRIVATE KEY', n=300, sep='\\n'))
    near(r, 'body-too-short', 'pem', '-----BEGIN PRIVATE KEY-----\n%s\n-----END PRIVATE KEY-----\n' % rnd(B64, 40))
    near(r, 'public-key', 'pem', '-----BEGIN PUBLIC KEY-----\n%s\n-----END PUBLIC KEY-----\n' % '\n'.join(pem_body(294)))

    r = 'pypi-upload-token'
    positives(r, 'TWINE_PASSWORD', pypi, [
        ('ini', lambda s: '[pypi]\nusername = __token__\npassword = %s\n' % s),
    ])
    near(r, 'too-short', 'env', 'TWINE_PASSWORD=pypi-AgEIcHlwaS5vcmc%s\n' % rnd(ALNUM, 40))
    near(r, 'testpypi-prefix', 'env', 'TWINE_PASSWORD=pypi-AgENdGVzdC5weXBpLm9yZw%s\n' % rnd(URLSAFE, 120))

    r = 'sentry-org-token'
    positives(r, 'SENTRY_AUTH_TOKEN', sentry_org, [
        ('ini', lambda s: '[auth]\ntoken=%s\n' % s),
    ])
    near(r, 'no-region-url', 'env', 'SENTRY_AUTH_TOKEN=sntrys_%s_%s\n'
         % (b64(b'{"iat":1747000000.1,"url":"https://sentry.io","org":"acme"}'), rnd(ALNUM, 43)))
    near(r, 'short-tail', 'env', 'SENTRY_AUTH_TOKEN=%s\n' % sentry_org()[:-5])

    r = 'sentry-user-token'
    positives(r, 'SENTRY_AUTH_TOKEN', sentry_user, [
        ('shell', lambda s: 'sentry-cli --auth-token %s releases list\n' % s),
    ])
    near(r, 'too-short', 'env', 'SENTRY_AUTH_TOKEN=sntryu_%s\n' % rnd(HEX, 60))
    near(r, 'low-entropy', 'env', 'SENTRY_AUTH_TOKEN=sntryu_%s\n' % ('0123' * 16))

    for r, var, prefix in [
        ('shopify-access-token', 'SHOPIFY_ACCESS_TOKEN', 'shpat_'),
        ('shopify-custom-access-token', 'SHOPIFY_CUSTOM_TOKEN', 'shpca_'),
        ('shopify-private-app-access-token', 'SHOPIFY_PRIVATE_APP_PASSWORD', 'shppa_'),
        ('shopify-shared-secret', 'SHOPIFY_API_SECRET', 'shpss_'),
    ]:
        positives(r, var, lambda p=prefix: shop(p), [
            ('shell', lambda s: 'curl -H "X-Shopify-Access-Token: %s" https://acme.myshopify.com/admin/api/2024-01/shop.json\n' % s),
        ])
        near(r, 'too-short', 'env', '%s=%s%s\n' % (var, prefix, rnd(HEX, 31)))
        near(r, 'non-hex', 'env', '%s=%s%s\n' % (var, prefix, rnd('ghijklmnopqrstuvwxyz', 32)))

    r = 'slack-app-token'
    positives(r, 'SLACK_APP_TOKEN', slack_app, [
        ('code', lambda s: 'handler = SocketModeHandler(app, "%s")\n' % s),
    ])
    near(r, 'placeholder', 'env', 'SLACK_APP_TOKEN=xapp-your-app-level-token\n')
    near(r, 'missing-segment', 'env', 'SLACK_APP_TOKEN=xapp-1-%s\n' % rnd(UP + DIG, 11))

    r = 'slack-bot-token'
    positives(r, 'SLACK_BOT_TOKEN', slack_bot, [
        ('code', lambda s: 'app = App(token="%s", signing_secret=os.environ["SLACK_SIGNING_SECRET"])\n' % s),
    ])
    near(r, 'placeholder', 'env', 'SLACK_BOT_TOKEN=xoxb-your-bot-token\n')
    near(r, 'short-numbers', 'env', 'SLACK_BOT_TOKEN=xoxb-%s-%s\n' % (digits(6), rnd(ALNUM, 10)))

    r = 'slack-config-access-token'
    positives(r, 'SLACK_CONFIG_TOKEN', slack_cfg_access, [
        ('shell', lambda s: 'curl -H "Authorization: Bearer %s" https://slack.com/api/apps.manifest.validate\n' % s),
    ])
    near(r, 'too-short', 'env', 'SLACK_CONFIG_TOKEN=xoxe.xoxp-1-%s\n' % rnd(ALNUM, 120))

    r = 'slack-config-refresh-token'
    positives(r, 'SLACK_CONFIG_REFRESH_TOKEN', slack_cfg_refresh, [
        ('url', lambda s: 'https://slack.com/api/tooling.tokens.rotate?refresh_token=%s\n' % s),
    ])
    near(r, 'too-short', 'env', 'SLACK_CONFIG_REFRESH_TOKEN=xoxe-1-%s\n' % rnd(ALNUM, 100))

    r = 'slack-legacy-bot-token'
    positives(r, 'SLACK_LEGACY_BOT_TOKEN', slack_legacy_bot, [
        ('code', lambda s: 'sc = SlackClient("%s")\n' % s),
    ])
    near(r, 'too-short', 'env', 'SLACK_BOT_TOKEN=xoxb-%s-%s\n' % (digits(9), rnd(ALNUM, 12)))

    r = 'slack-user-token'
    positives(r, 'SLACK_USER_TOKEN', slack_user, [
        ('url', lambda s: 'https://slack.com/api/users.list?token=%s&limit=200\n' % s),
    ])
    near(r, 'too-short', 'env', 'SLACK_USER_TOKEN=xoxp-%s-%s-%s-%s\n' % (digits(10), digits(12), digits(13), rnd(HEX, 20)))
    near(r, 'placeholder', 'env', 'SLACK_USER_TOKEN=xoxp-your-user-token\n')

    r = 'slack-webhook-url'
    positives(r, 'SLACK_WEBHOOK_URL', slack_hook, [
        ('shell', lambda s: "curl -X POST -H 'Content-type: application/json' --data '{\"text\":\"deploy ok\"}' %s\n" % s),
    ])
    add('slack-webhook-url/pos/workflows', r, 'positive', 'yaml',
        'notify:\n  url: %s\n' % slack_hook('workflows'))
    near(r, 'docs-shortened', 'prose', 'Post to https://hooks.slack.com/services/T000/B000/XXXX to notify the channel.\n')
    near(r, 'other-path', 'url', 'https://hooks.slack.com/commands/T%s/%s\n' % (rnd(UP, 8), rnd(ALNUM, 48)))

    r = 'stripe-access-token'
    positives(r, 'STRIPE_SECRET_KEY', lambda: stripe(R.choice(['sk_live_', 'sk_test_', 'rk_live_']),
                                                   R.choice([24, 99])), [
        ('code', lambda s: 'Stripe.api_key = "%s"\n' % s),
    ])
    near(r, 'publishable-key', 'env', 'STRIPE_PUBLISHABLE_KEY=pk_live_%s\n' % rnd(ALNUM, 99))
    near(r, 'too-short', 'env', 'STRIPE_SECRET_KEY=sk_live_%s\n' % rnd(ALNUM, 9))
    near(r, 'curl-basic-auth-colon', 'shell', 'curl https://api.stripe.com/v1/charges -u %s:\n' % stripe('sk_test_', 24))

    edge_cases()
    tricky()


def edge_cases():
    """Positives that exercise gitleaks' boundary handling."""
    def e(rule, name, context, text):
        add('%s/pos/edge-%s' % (rule, name), rule, 'positive', context, text)

    e('azure-ad-client-secret', 'line-start', 'prose', 'client secret below\n%s\nrotate monthly\n' % azure_secret())
    e('azure-ad-client-secret', 'crlf-yaml', 'yaml', 'azure:\r\n  client_secret: %s\r\n' % azure_secret())
    e('sentry-org-token', 'crlf-env', 'env', 'SENTRY_AUTH_TOKEN=%s\r\nSENTRY_ORG=acme\r\n' % sentry_org())
    e('sentry-org-token', 'end-of-text', 'env', 'SENTRY_AUTH_TOKEN=%s' % sentry_org())
    e('github-pat', 'crlf-env', 'env', 'A=1\r\nGITHUB_TOKEN=%s\r\n' % gh('ghp_'))
    e('stripe-access-token', 'end-of-text', 'env', 'STRIPE_SECRET_KEY=%s' % stripe('sk_live_', 24))
    e('anthropic-api-key', 'json-escaped-newline', 'json',
      '{"cmd": "export ANTHROPIC_API_KEY=%s\\nclaude"}\n' % ant_api())
    e('npm-access-token', 'uppercase', 'env', 'NPM_TOKEN=%s\n' % ('npm_' + rnd(UP + DIG, 36)))
    e('grafana-api-key', 'semicolon', 'code', 'let key = "x"; key=%s;\n' % grafana_api())
    e('aws-access-token', 'several-in-one-file', 'env',
      'AWS_ACCESS_KEY_ID=%s\nAWS_SECRET_ACCESS_KEY=%s\nBACKUP_AWS_ACCESS_KEY_ID=%s\nGITHUB_TOKEN=%s\n'
      % (aws_key(), rnd(B64, 40), aws_key(), gh('ghp_')))
    e('private-key', 'two-keys', 'pem', private_key('EC PRIVATE KEY') + '\n' + private_key('EC PRIVATE KEY') + '\n')
    # the private-key regex is lazy but unbounded: a header *mentioned* in prose
    # joins with the next "KEY-----" further down, here a public key's header
    e('private-key', 'mention-joins-later-public-key', 'markdown',
      'Put the -----BEGIN OPENSSH PRIVATE KEY----- block in ~/.ssh/id_ed25519, never in the repo.\n\n'
      'The server key is public, so it can live here:\n\n```\n-----BEGIN PUBLIC KEY-----\n%s\n'
      '-----END PUBLIC KEY-----\n```\n' % '\n'.join(pem_body(91)))
    e('huggingface-access-token', 'non-ascii-before', 'prose', 'Jeton d’accès (ne pas réutiliser) → %s ✔\n' % hf())


def uuid():
    h = rnd(HEX, 32)
    return '%s-%s-4%s-%s%s-%s' % (h[:8], h[8:12], h[13:16], R.choice('89ab'), h[17:20], h[20:32])


def tricky():
    def t(name, context, text):
        add('tricky/%s' % name, None, 'tricky-negative', context, text)

    t('uuid', 'yaml', 'job:\n  id: %s\n  parent: %s\n' % (uuid(), uuid()))
    t('git-sha', 'log', 'commit %s\nMerge: %s %s\nAuthor: Dev <dev@example.com>\n' % (rnd(HEX, 40), rnd(HEX, 7), rnd(HEX, 7)))
    t('docker-digest', 'shell', 'docker pull ghcr.io/acme/api@sha256:%s\n' % rnd(HEX, 64))
    t('png-data-uri', 'markdown', '![arch](data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAA%s)\n'
      % b64(bytes(R.getrandbits(8) for _ in range(600))))
    t('sk-inside-words', 'prose', 'Filed task-sk-4471 and desk-sk-ops-2 under the risk-level: high label; see mask-sk-a1b2c3d4e5f6a7b8c9d0.\n')
    t('risk-level', 'yaml', 'risk-level: high\nrisk-skew: 0.3\n')
    t('aws-documented-example', 'ini', '[default]\naws_access_key_id = AKIAIOSFODNN7EXAMPLE\naws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\n')
    t('aws-example-sts', 'json', '{"AccessKeyId": "ASIAIOSFODNN7EXAMPLE"}\n')
    t('gcp-documented-example', 'env', 'GOOGLE_API_KEY=AIzaSyabcdefghijklmnopqrstuvwxyz1234567\n')
    t('ssh-ed25519-public-key', 'authorized_keys', 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI%s dev@laptop\n' % rnd(B64, 43))
    t('ssh-rsa-public-key', 'authorized_keys', 'ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQ%s ci@runner\n' % rnd(B64, 340))
    t('pem-certificate', 'pem', '-----BEGIN CERTIFICATE-----\n%s\n-----END CERTIFICATE-----\n' % '\n'.join(pem_body(700)))
    t('pem-csr', 'pem', '-----BEGIN CERTIFICATE REQUEST-----\n%s\n-----END CERTIFICATE REQUEST-----\n' % '\n'.join(pem_body(400)))
    t('markdown-about-tokens', 'markdown',
      '## Tokens\n\nGitHub personal tokens start with `ghp_`, fine-grained ones with `github_pat_`; GitLab uses '
      '`glpat-` and Slack bots `xoxb-`. Anthropic keys begin with `sk-ant-api03-` and OpenAI keys with `sk-proj-`. '
      'Never paste them into notes — store them in the vault instead.\n')
    t('env-read-python', 'code', 'token = os.environ["GITHUB_TOKEN"]\nopenai_key = os.getenv("OPENAI_API_KEY")\n')
    t('env-read-node', 'code', 'const stripe = new Stripe(process.env.STRIPE_SECRET_KEY);\nconst hf = process.env.HF_TOKEN;\n')
    t('placeholder-shell-var', 'yaml', 'env:\n  GITHUB_TOKEN: ${GITHUB_TOKEN}\n  NPM_TOKEN: $NPM_TOKEN\n')
    t('placeholder-actions', 'yaml', 'with:\n  token: ${{ secrets.GITHUB_TOKEN }}\n  hf_token: ${{ secrets.HF_TOKEN }}\n')
    t('placeholder-angle', 'env', 'OPENAI_API_KEY=<your-api-key>\nANTHROPIC_API_KEY=<your-anthropic-key>\n')
    t('placeholder-xxxxx', 'json', '{"stripe_key": "sk_live_xxxxxxxxxxxxxxxxxxxxxxxx", "gh": "ghp_XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX"}\n')
    t('placeholder-glpat', 'env', 'GITLAB_TOKEN=glpat-xxxxxxxxxxxxxxxxxxxx\n')
    t('stopword-alphabet', 'env', 'NPM_TOKEN=npm_abcdefghijklmnopqrstuvwxyz0123456789\n')
    t('jwt', 'code', 'Authorization: Bearer eyJhbGciOiJSUzI1NiIsInR5cCI6IkpXVCJ9.%s.%s\n' % (rnd(URLSAFE, 120), rnd(URLSAFE, 342)))
    t('npm-integrity', 'json', '{"integrity": "sha512-%s=="}\n' % rnd(B64, 86))
    t('age-public-key', 'yaml', 'creation_rules:\n  - age: age1%s\n' % rnd(BECH32U.lower(), 58))
    t('stripe-publishable', 'code', 'const stripe = Stripe("pk_test_%s");\n' % rnd(ALNUM, 99))
    t('azure-storage-connection-string', 'env', 'AZURE_STORAGE=DefaultEndpointsProtocol=https;AccountName=acmelogs;AccountKey=%s==;EndpointSuffix=core.windows.net\n' % rnd(B64, 86))
    t('gitleaks-allow-comment', 'assignment', 'GITHUB_TOKEN = "%s"  # gitleaks:allow\n' % gh('ghp_'))
    t('sha256-checksums', 'log', '%s  memdir-x86_64-unknown-linux-gnu.tar.gz\n%s  memdir-aarch64-apple-darwin.tar.gz\n' % (rnd(HEX, 64), rnd(HEX, 64)))
    t('hex-api-like-identifiers', 'code', 'const dapiVersion = "2.1"; // dapi client\nconst hfHubUrl = "https://huggingface.co";\n')
    t('base64-nonce', 'json', '{"nonce": "%s", "salt": "%s"}\n' % (b64(bytes(R.getrandbits(8) for _ in range(32))), rnd(B64, 22)))
    t('redacted-in-log', 'log', '2026-07-14T10:15:00Z WARN auth failed token=ghp_****************************1a2b user=ci\n')
    t('private-key-mention', 'prose', 'Put the -----BEGIN OPENSSH PRIVATE KEY----- block in ~/.ssh/id_ed25519, never in the repo.\n')


# --------------------------------------------------------------------------
# gitleaks run + span extraction
# --------------------------------------------------------------------------

def line_starts(b):
    s = [0]
    i = b.find(b'\n')
    while i != -1:
        s.append(i + 1)
        i = b.find(b'\n', i + 1)
    return s


def locate(data, f):
    """Byte span [start, end) of the secret of gitleaks finding f in data."""
    m = f['Match'].encode()
    s = f['Secret'].encode()
    ls = line_starts(data)
    ln, col = f['StartLine'], f['StartColumn']
    if ln < 1 or ln > len(ls):
        raise ValueError('line out of range: %r' % f)
    mstart = ls[ln - 1] + col - (1 if ln == 1 else 2)
    # gitleaks trims '\n' from both ends of the match but keeps the start
    # index of the untrimmed match: skip leading newlines it trimmed.
    while data[mstart:mstart + len(m)] != m and data[mstart:mstart + 1] == b'\n':
        mstart += 1
    if data[mstart:mstart + len(m)] != m:
        raise ValueError('match not at reported position: %r' % f)
    k = m.find(s)
    if k < 0:
        raise ValueError('secret not inside match: %r' % f)
    if m.count(s) > 1:
        print('warning: secret occurs %d times in match (first taken): %s' % (m.count(s), f['RuleID']), file=sys.stderr)
    return [mstart + k, mstart + k + len(s)]


def run_gitleaks(gitleaks, rules, texts):
    tmp = tempfile.mkdtemp(prefix='own-vectors-')
    try:
        src = os.path.join(tmp, 'v')
        os.makedirs(src)
        names = []
        for i, t in enumerate(texts):
            n = 'v%04d.txt' % i
            with open(os.path.join(src, n), 'wb') as fh:
                fh.write(t.encode('utf-8'))
            names.append(n)
        rep = os.path.join(tmp, 'report.json')
        cmd = [gitleaks, 'dir', src, '--config', rules, '--no-banner', '--report-format', 'json',
               '--report-path', rep, '--exit-code', '0', '--log-level', 'error']
        subprocess.run(cmd, check=True, cwd=tmp)
        report = json.load(open(rep))
        out = {n: [] for n in names}
        for f in report:
            n = os.path.basename(f['File'])
            data = texts[names.index(n)].encode('utf-8')
            out[n].append({'rule_id': f['RuleID'], 'span': locate(data, f)})
        return [sorted(out[n], key=lambda x: (x['span'][0], x['span'][1], x['rule_id'])) for n in names]
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--gitleaks', required=True)
    ap.add_argument('--rules', required=True)
    ap.add_argument('--out', default=os.path.join(os.path.dirname(os.path.abspath(__file__)), 'own.jsonl'))
    ap.add_argument('--check', action='store_true',
                    help='re-run gitleaks on the texts of the existing --out file and compare findings')
    a = ap.parse_args()
    ver = subprocess.run([a.gitleaks, 'version'], capture_output=True, text=True).stdout.strip()
    if ver != '8.30.1':
        sys.exit('gitleaks 8.30.1 required, got %r' % ver)
    if a.check:
        vs = [json.loads(l) for l in open(a.out, encoding='utf-8')]
        got = run_gitleaks(a.gitleaks, a.rules, [v['text'] for v in vs])
        bad = [v['id'] for v, g in zip(vs, got) if g != v['findings']]
        for i in bad:
            print('MISMATCH', i)
        print('checked %d vectors: %d mismatches' % (len(vs), len(bad)))
        sys.exit(1 if bad else 0)
    build()
    ids = [v['id'] for v in VECTORS]
    assert len(ids) == len(set(ids)), 'duplicate ids'
    results = run_gitleaks(a.gitleaks, a.rules, [v['text'] for v in VECTORS])
    problems = 0
    with open(a.out, 'w', encoding='utf-8') as fh:
        for v, fs in zip(VECTORS, results):
            v['findings'] = fs
            if v['kind'] == 'positive' and not any(f['rule_id'] == v['rule_id'] for f in fs):
                print('NOTE positive without its rule: %s -> %s' % (v['id'], fs), file=sys.stderr)
                problems += 1
            if v['kind'] != 'positive' and fs:
                print('NOTE %s reported: %s -> %s' % (v['kind'], v['id'], fs), file=sys.stderr)
                problems += 1
            fh.write(json.dumps(v, ensure_ascii=False) + '\n')
    print('wrote %d vectors to %s (%d notes)' % (len(VECTORS), a.out, problems))


if __name__ == '__main__':
    main()
