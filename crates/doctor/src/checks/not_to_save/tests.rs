//! The reasons of `not-to-save`, one helper per case: what each heuristic
//! finds, and the hard cases it must leave alone.

use super::Reason::{self, Code, Debugging, Ephemeral, GitHistory, Layout};
use super::reasons_of;

/// The reasons found in `body` (its description `subject`), with
/// their lines.
#[track_caller]
fn check(subject: &str, body: &str, expected: &[(usize, Reason)]) {
    assert_eq!(reasons_of(body, subject), expected, "{body}");
}

#[test]
fn a_snippet_offered_as_the_pattern_is_code() {
    let body = "Handlers all validate, call the service and map errors.\nUse this pattern for handlers:\n\n```ts\nrouter.post(\"/x\", validate(s), async (req, res) => {\n  res.json(await svc.x(req.body));\n});\n```\n\nNo logic in handlers; it goes in services.\nTests use supertest.\nErrors map in one place.\n";
    check("", body, &[(2, Code)]);
    check(
        "",
        "次のパターンで実装する。\n\n```kotlin\nfun f(x: Int) = g(x)\n```\n理由は下に。\nほかにも説明。\n",
        &[(1, Code)],
    );
    // Mostly code, counting the fence's markers, as it always was.
    check(
        "",
        "この書き方に揃える:\n\n```ts\nconst res = await http.get(url);\nif (!res.ok) throw new ApiError(res);\n```\n",
        &[(3, Code)],
    );
    // Shown "like this" wants two lines that look like code.
    check(
        "",
        "Commit messages look like this:\n\n```\nfix(api): handle an empty cart\n\nCloses #123\n```\n\n**Why:** the changelog parses it.\n",
        &[],
    );
    check(
        "",
        "It looks like this:\n\n    x, err := f()\n    if err != nil { return err }\n\nMore text.\nAnd more.\nAnd more.\n",
        &[(1, Code)],
    );
    // A one-line example in a rule, without the language of a pattern.
    check(
        "",
        "Log with fields:\n\n```py\nlog.info(\"created\", id=o.id)\n```\n\n**Why:** Kibana filters on fields.\n\n**How to apply:** in new log calls.\n",
        &[],
    );
}

#[test]
fn listings_and_architecture_are_layout() {
    check(
        "",
        "项目结构：\n\n- `web/src/pages/` —— 页面\n- `server/api/` —— 接口\n- `server/models/` —— 模型\n",
        &[(3, Layout)],
    );
    check(
        "",
        "`cmd/server` wires it all; handlers live in `internal/http` and call `internal/service`, which talks to `internal/store`.\n",
        &[(1, Layout)],
    );
    // Paths named in a rule, with no words of structure.
    check(
        "",
        "Never edit `src/gen/`, `api/openapi.json` or `proto/gen/` by hand.\n\n**Why:** CI regenerates them.\n",
        &[],
    );
    check(
        "",
        "The error format is documented in `docs/adr/0007-errors.md`.\n",
        &[],
    );
}

#[test]
fn history_is_told_with_numbers_or_hashes() {
    check(
        "",
        "Rewritten in PR #482 (merged Feb 12), reverted in #490, back in #497.\n",
        &[(1, GitHistory)],
    );
    check(
        "",
        "提交 9f1c2ab 把缓存换成了 Redis，后来回滚了。\n",
        &[(1, GitHistory)],
    );
    check(
        "",
        "Switched to Actions in #88, went back for workers in #102.\n",
        &[(1, GitHistory)],
    );
    check("", "Known SDK issues: #12 (auth) and #15 (retries).\n", &[]);
    // The story behind a rule is its rationale.
    check(
        "",
        "Never force-push `main`.\n\n**Why:** a force-push erased two merged PRs (#101, #102), reverted by hand, merged again.\n",
        &[],
    );
}

#[test]
fn recipes_are_steps_about_a_failure_or_the_story_of_a_fix() {
    let steps = "1. Run `pytest tests/test_sync.py -p no:randomly`\n2. Restart redis\n3. Clear `.pytest_cache` and rerun\n";
    check(
        "",
        &format!("Fixing the flaky `test_sync` test:\n\n{steps}"),
        &[(3, Debugging)],
    );
    check("flaky sync test", steps, &[(1, Debugging)]);
    // The same steps, for a routine with no failure: a procedure.
    check("", &format!("Releasing:\n\n{steps}"), &[]);
    check(
        "",
        "Deploying:\n1. run `make release`\n2. check the dashboard\n3. if errors rise, run `make rollback`\n",
        &[],
    );
    check(
        "",
        "When the iOS build fails with \"module not found\", delete DerivedData, run `pod install` and build again.\n",
        &[(1, Debugging)],
    );
    check("", "- rerun the job\n- restart `minio`\n", &[]);
    check(
        "",
        "`T.retries` flakes once in ten runs. When it goes red:\n- if the mock is down, re-run the job\n- if not, raise the timeout and run it again\n",
        &[(2, Debugging)],
    );
    check(
        "",
        "构建时报 `no space left on device`：先执行 `docker system prune`，再清理缓存，然后重新构建。\n",
        &[(1, Debugging)],
    );
    check(
        "the flaky upload test",
        "- rerun the job\n- restart `minio`\n",
        &[(1, Debugging)],
    );
    check(
        "",
        "This error shows up after sleep. Restart the proxy and rerun the request.\n",
        &[(1, Debugging)],
    );
    check(
        "",
        "Webhook 500s: traced them to nginx's body limit; raised it.\n",
        &[(1, Debugging)],
    );
    check(
        "",
        "CORS rejected on localhost. Fix: add the origin and restart.\n",
        &[(1, Debugging)],
    );
    check(
        "",
        "本地测试随机失败的解决步骤：\n1. 删除缓存\n2. 重启 watcher\n",
        &[(1, Debugging)],
    );
    check(
        "",
        "`LoginTest` がたまに失敗する。手順:\n①キャッシュを消す\n②`docker compose restart selenium`\n",
        &[(2, Debugging)],
    );
    check(
        "",
        "It was the keepalive: setting `keepalive_time_ms` made them go away.\n",
        &[(1, Debugging)],
    );
}

#[test]
fn a_gotcha_or_a_rule_about_a_failure_is_not_a_recipe() {
    check(
        "",
        "`pytest -x` hides the flaky teardown error; always run the full suite before merging.\n\n**Why:** twice green with `-x`, red on main.\n\n**How to apply:** use `-x` while iterating; the last run before review is plain `pytest`.\n",
        &[],
    );
    check(
        "",
        "When `terraform plan` fails with a lock error, don't run `terraform force-unlock`; ask in #infra.\n",
        &[],
    );
    check(
        "",
        "If a CI job fails, rerun it once before investigating.\n",
        &[],
    );
    check(
        "",
        "After changing `tailwind.config.js`, restart the dev server.\n",
        &[],
    );
    check(
        "",
        "Use pnpm.\n\n**How to apply:** run `pnpm install` and `pnpm run <script>`; if a README says npm, translate it.\n",
        &[],
    );
}

#[test]
fn task_status_is_ephemeral() {
    check(
        "",
        "Status of the migration: invoices done.\nNext: refunds.\n",
        &[(1, Ephemeral)],
    );
    check(
        "",
        "- [x] rename keys\n- [ ] fix snapshots\n",
        &[(1, Ephemeral)],
    );
    check(
        "",
        "Refunds are blocked on Priya; PR #733 is open.\n",
        &[(1, Ephemeral)],
    );
    check(
        "",
        "今やっていること: ページング修正。\n",
        &[(1, Ephemeral)],
    );
    // One hint is a fact, not a status report.
    check(
        "",
        "We still have to support Safari 15 until 2026-12-31.\n",
        &[],
    );
    check("", "- [x] shipped\n", &[]);
}
