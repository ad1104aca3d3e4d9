//! The language of what should not be a memory, in English, Chinese and
//! Japanese (with the Korean phrases the check has always known). Each
//! pattern is matched against prose with code spans blanked.

use std::sync::LazyLock;

use regex::Regex;

use super::re;

/// An instruction to copy code: "use this pattern", "copy this
/// template", "the snippet for", 按这个模板, 次のパターンで.
pub(super) static COPY_THIS: LazyLock<Regex> = LazyLock::new(|| {
    re(concat!(
        r"(?i)\b(?:use|copy|follow|reuse|start from|base \w+ on|write \w+ (?:like|with))\b[^.\n]{0,40}?\b(?:this|these|the following|that|the same|our|the standard)\s+(?:\w+\s+)?(?:pattern|template|snippet|boilerplate|shape|skeleton|structure|code|example|form|idiom)s?\b",
        r"|\b(?:pattern|template|snippet|boilerplate|skeleton) (?:for|to use for|to copy)\b",
        r"|(?:按|照|用|参考|按照|套用)(?:这个|以下|下面的?|如下的?)(?:模板|模式|写法|范式|代码|示例|格式)|照着写|如下(?:模板|代码|写法)",
        r"|(?:次|以下|この|下記)の?(?:パターン|テンプレート|コード|書き方|雛形|ひな形|形)で|(?:パターン|テンプレート|雛形)をコピー|このように(?:書|実装)",
    ))
});

/// Code shown, not yet offered to copy: "it looks like this", "as
/// follows:"; wants more code than [`COPY_THIS`] does.
pub(super) static LIKE_THIS: LazyLock<Regex> = LazyLock::new(|| {
    re(concat!(
        r"(?i)\b(?:looks|look|goes|is written|are written|is done|are done) like this\b|\bas follows\s*:|\bhere'?s how\b",
        r"|如下所示|写法如下|次のように|以下のように",
    ))
});

/// Words of a story of the code's history.
pub(super) static GIT_WORDS: LazyLock<Regex> = LazyLock::new(|| {
    re(concat!(
        r"(?i)\b(?:commit(?:ted)?|merged|reverted|cherry-pick(?:ed)?|rebased|git log|git blame|force-pushed|landed in|re-?landed|bisect(?:ed)?)\b",
        r"|提交|合并|合入|回滚|回退|还原|コミット|マージ|リバート|差し戻|커밋|병합|머지|되돌렸",
    ))
});

/// What a history is told with, besides git's own words: "switched to",
/// "went back to", "moved … in #140".
pub(super) static HISTORY_VERB: LazyLock<Regex> = LazyLock::new(|| {
    re(concat!(
        r"(?i)\b(?:switched|moved|went back|rewrote|rewritten|replaced|introduced|brought (?:it )?back|dropped|migrated|ported)\b",
        r"|换成了|改成了|迁移到|切换到|に切り替え|に移行|書き直",
    ))
});

/// A pull or merge request by number: `PR #482`, `#490`, `!12`.
pub(super) static CHANGE_REF: LazyLock<Regex> = LazyLock::new(|| {
    re(r"(?i)(?:\b(?:PR|MR|pull request|merge request)\s*#?\d+|(?:^|[\s(（])[#!]\d{2,})")
});

/// A commit hash.
pub(super) static HASH: LazyLock<Regex> = LazyLock::new(|| re(r"\b[0-9a-f]{7,40}\b"));

/// The story of one fix, in one phrase: "the fix was", "root cause",
/// "traced it to", "the errors stopped", "Fix:", 修复方法是, 対処法.
pub(super) static FIX_STORY: LazyLock<Regex> = LazyLock::new(|| {
    re(concat!(
        r"(?i)\bthe fix (?:was|is)\b|\bto debug (?:this|it)\b|\broot cause (?:was|is)\b|\b(?:fixed|solved|resolved) (?:it|this|that)? ?by\b",
        r"|\btraced (?:\w+ ){0,3}to\b|\bthe culprit (?:was|is)\b|\bturned out to be\b|\bworkaround (?:was|is)\b",
        r"|\b(?:errors?|failures?|crash(?:es)?|500s|warnings?|timeouts?) (?:stopped|went away|disappeared|are gone)\b|\b(?:passes|works|builds) again\b",
        r"|\bmade (?:it|them|this|that|the \w+) (?:go away|stop|disappear|pass)\b",
        r"|traceback \(most recent call last\)|\bpanicked at\b",
        r"|(?m:^|[.;]\s+)(?:\*\*|__)?(?:the )?(?:fix|workaround|how to fix(?: it)?)(?:\*\*|__)?\s*:",
        r"|修复方法是|解决方法是|解决办法是|解决步骤|排查步骤|处理步骤|就解决了|修正方法は|直し方は|対処法|の対処|回避策は|で直った|で解消した|で解決した|해결 방법은|고친 방법은",
    ))
});

/// Something broke: the subject of a debugging recipe.
pub(super) static FAILURE: LazyLock<Regex> = LazyLock::new(|| {
    re(concat!(
        r"(?i)\b(?:fail(?:s|ed|ing|ure|ures)?|flaky|flakes?|flakiness|broken|breaks|crash(?:es|ed|ing)?|errors?|exceptions?|hangs?|hung|time[sd]? out|timeouts?|not found|segfaults?|panics?|5\d\ds|(?:HTTP|status) 5\d\d|ECONN\w+|ENOENT|EACCES|EADDRINUSE|ETIMEDOUT|(?:goes|turns|went|turned) red|no space left)\b",
        r"|失败|报错|出错|错误|崩溃|挂了|不稳定|超时|异常|落ち|失敗|エラー|不安定|クラッシュ|タイムアウト|例外",
    ))
});

/// "When X fails, …": the condition a recipe starts from.
pub(super) static WHEN_FAILS: LazyLock<Regex> = LazyLock::new(|| {
    re(concat!(
        r"(?i)\b(?:when|if|whenever|once)\b[^.;\n]{0,80}?\b(?:fails?|failing|breaks|crash(?:es)?|errors? out|hangs|times out|is flaky|flakes|throws|goes red|turns red)\b",
        r"|(?:如果|当|若)[^。；\n]{0,40}?(?:失败|报错|出错|崩溃|挂了|超时)|时(?:报错|报|失败|出错|崩溃)|的时候(?:报错|失败|出错)",
        r"|[^。\n]{0,40}?(?:落ちた|失敗した|エラーになった|エラーが出た)(?:とき|時|場合|ら)|(?:とき|時)に?(?:エラー|失敗)",
    ))
});

/// A step of a recipe: the verbs of debugging.
pub(super) static DEBUG_VERB: LazyLock<Regex> = LazyLock::new(|| {
    re(concat!(
        r"(?i)\b(?:re-?run|run|restart|reboot|kill|clear|delete|remove|rm|wipe|purge|flush|reset|re-?install|rebuild|clean|retry|check|verify|inspect|look at|reproduce|bump|downgrade|pin|revert|disable|re-?enable|stop|start|look for|re-?deploy)\b",
        r"|删除|删掉|清除|清空|清理|重启|重新(?:运行|构建|编译|部署|安装|启动)|重跑|重试|检查|确认|查看|重装|杀掉|复现|执行",
        r"|削除|消す|消して|クリア|再起動|再実行|再試行|確認|実行|入れ直|やり直|再現|再ビルド|再デプロイ|流す|流し直|回し直",
    ))
});

/// A line of code: brackets, an assignment, an arrow, a `key: value`.
pub(super) static CODE_SYNTAX: LazyLock<Regex> =
    LazyLock::new(|| re(r"[(){}\[\];=<>]|->|=>|^\s*[\w.-]+\s*:\s*\S"));

/// A shell command: a lowercase program name and its arguments.
pub(super) static COMMAND: LazyLock<Regex> =
    LazyLock::new(|| re(r"^\s*(?:\$\s+)?[a-z][\w.-]*(?:\s+\S+)+\s*$"));

/// "Don't …", "never …": the step is a rule, not a recipe.
pub(super) static NEGATED: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?i)\b(?:don'?t|do not|never|avoid|no need to)\s+$"));

/// "the last run", "a clean rebuild": the verb is a noun there.
pub(super) static AS_NOUN: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)\b(?:the|a|an|each|every|last|this|that|first|next|one|full|clean|dry|test|ci|green|red)\s+$",
    )
});

/// One incident, pointed at: "the flaky test", "this error".
pub(super) static INCIDENT: LazyLock<Regex> = LazyLock::new(|| {
    re(concat!(
        r"(?i)\b(?:the|this|that) flaky (?:test|spec|job|check|step)\b|\bflaky (?:test|spec) `|\b(?:this|that|the same) (?:error|crash|failure|exception|flake|timeout)\b",
        r"|\b(?:flakes|fails) (?:about |roughly )?(?:once in|sometimes|occasionally|now and then|intermittently|randomly)\b|\bis flaky\b",
        r"|这个(?:报错|错误|失败|不稳定的测试)|このエラー|この(?:不安定な)?テスト",
    ))
});

/// The language of a rule rather than a recipe: "always", "never",
/// "before merging".
pub(super) static RULE: LazyLock<Regex> = LazyLock::new(|| {
    re(concat!(
        r"(?i)\b(?:always|never|must|should|don'?t|do not|before (?:merging|pushing|committing|asking|release|a release|review))\b",
        r"|必须|不要|禁止|一律|必ず|しないこと|すること|禁止",
    ))
});

/// Where a task stands now, said outright: stale by the next
/// conversation.
pub(super) static TASK_STATUS: LazyLock<Regex> = LazyLock::new(|| {
    re(concat!(
        r"(?im)\bcurrently working on\b|\btodo today\b|\bright now i'?m\b|\bin the middle of\b|\bfor this session\b|\bwork in progress\b",
        r"|^\s*(?:#+\s*)?(?:current |the )?status(?: of [^:\n]{1,60})?\s*:|\bstatus of [^:\n]{1,60}:|(?:^|[.;]\s+)(?:next(?: steps?)?|remaining|left to do|in progress|todo|done so far)\s*:",
        r"|\bwhere i (?:left off|stopped)\b|\bpicking (?:it|this) up (?:again|tomorrow|next)\b",
        r"|今天要做|今天的任务|当前进度|目前进度|进度[:：]|下一步[:：]|待办[:：]|正在做",
        r"|現在作業中|今日のタスク|今やっていること|作業中[:：]|進捗[:：]|残り[:：]|残タスク|次にやること|対応中[:：]",
        r"|지금 작업 중|오늘 할 일",
    ))
});

/// Where a task stands, in passing: two of these make a status report
/// ("still need to", "blocked on", "PR #733 is open"), one does not
/// ("we still have to support Safari 15").
pub(super) static TASK_HINT: LazyLock<Regex> = LazyLock::new(|| {
    re(concat!(
        r"(?i)\bstill (?:need|have) to\b|\bblocked (?:on|by)\b|\bwaiting (?:on|for) (?:review|ci|approval|\w+'s)\b|\b(?:PR|MR)\s*#?\d+ is (?:open|up|in review)\b|\bleft off\b|\bhalf (?:done|migrated|finished)\b|\b(?:is|are) done\b",
        r"|还没做|还没有做|还要|等[^。\n]{1,20}(?:后|之后)再|完成了一半|未完成|まだ[^。\n]{0,10}(?:ない|していない)|途中|終わった|待ち",
    ))
});

/// Words that describe how a system is put together.
pub(super) static ARCHITECTURE: LazyLock<Regex> = LazyLock::new(|| {
    re(concat!(
        r"(?i)\b(?:architecture|layers?|layered|monolith|microservices?|modules?|entry ?point|wires?|wired|lives? in|live under|talks? to|calls? into|publish(?:es)?|consumes?|depends on|sits? (?:behind|in front of)|is responsible for|layout|directory structure|folder structure)\b",
        r"|架构|分层|模块|目录结构|项目结构|入口|负责|调用|依赖|構成|アーキテクチャ|レイヤ|モジュール|ディレクトリ|エントリーポイント|呼び出",
    ))
});
