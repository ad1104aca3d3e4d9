//! Rules and allowlists compiled once from a configuration.

use crate::SecretsError;
use crate::config::{AllowlistSpec, ConfigFile, RuleSpec};
use crate::keywords::Keywords;
use crate::pattern::Pattern;
use crate::reach::{Near, Reach, near};

/// What an allowlist's `regexes` are tested against.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Target {
    /// The secret (the default).
    Secret,
    /// The whole match.
    Match,
    /// The line(s) of the match.
    Line,
}

/// A compiled allowlist.
#[derive(Debug, Clone)]
pub(crate) struct Allowlist {
    pub(crate) and: bool,
    pub(crate) target: Target,
    pub(crate) regexes: Vec<Pattern>,
    pub(crate) paths: Vec<Pattern>,
    /// Lower-cased.
    pub(crate) stopwords: Vec<String>,
    /// Commits can never match a text scan, but an AND allowlist that lists
    /// some can then never allow anything.
    pub(crate) has_commits: bool,
    /// For a global allowlist: the rules it applies to (all when empty).
    pub(crate) target_rules: Vec<String>,
}

/// A compiled rule.
#[derive(Debug, Clone)]
pub(crate) struct Rule {
    pub(crate) id: String,
    pub(crate) description: String,
    pub(crate) regex: Pattern,
    pub(crate) secret_group: Option<usize>,
    pub(crate) entropy: Option<f64>,
    /// Lower-cased; empty means the rule always runs.
    pub(crate) keywords: Vec<String>,
    pub(crate) path: Option<Pattern>,
    pub(crate) allowlists: Vec<Allowlist>,
    /// When every match of the regex provably lies near an occurrence of
    /// an anchor (a keyword, mostly), only the text there need be searched
    /// (see `reach.rs`); `None`: the whole text.
    pub(crate) near: Option<Near>,
}

/// Everything a scan needs: the rules, the global allowlists and the
/// keyword automaton that decides which rules run on a text.
#[derive(Debug, Clone)]
pub(crate) struct RuleSet {
    pub(crate) rules: Vec<Rule>,
    pub(crate) global: Vec<Allowlist>,
    /// All keywords of all rules, matched ASCII-case-insensitively.
    pub(crate) keywords: Keywords,
    /// For each pattern, the rules that list it as a keyword (and so run
    /// when it is found).
    pub(crate) keyword_rules: Vec<Vec<usize>>,
    /// For each pattern, the rules searched near its occurrences.
    pub(crate) anchor_rules: Vec<Vec<usize>>,
    /// Rules without keywords: they run on every text.
    pub(crate) always: Vec<usize>,
    /// The largest reach in bytes of any rule (0 when none has one).
    pub(crate) max_reach: usize,
}

/// Compiles a pattern of a configuration.
pub(crate) fn compile(pattern: &str, what: &str) -> Result<Pattern, SecretsError> {
    Pattern::compile(pattern, what)
}

fn compile_allowlist(spec: &AllowlistSpec, what: &str) -> Result<Allowlist, SecretsError> {
    let and = match spec
        .condition
        .as_deref()
        .map(str::to_ascii_uppercase)
        .as_deref()
    {
        None | Some("" | "OR") => false,
        Some("AND") => true,
        Some(other) => {
            return Err(SecretsError::Config(format!(
                "{what}: condition {other:?} is neither OR nor AND"
            )));
        }
    };
    let target = match spec.regex_target.as_deref() {
        None | Some("" | "secret") => Target::Secret,
        Some("match") => Target::Match,
        Some("line") => Target::Line,
        Some(other) => {
            return Err(SecretsError::Config(format!(
                "{what}: regexTarget {other:?} is not secret, match or line"
            )));
        }
    };
    Ok(Allowlist {
        and,
        target,
        regexes: spec
            .regexes
            .iter()
            .map(|r| compile(r, what))
            .collect::<Result<_, _>>()?,
        paths: spec
            .paths
            .iter()
            .map(|r| compile(r, what))
            .collect::<Result<_, _>>()?,
        stopwords: spec.stopwords.iter().map(|s| s.to_lowercase()).collect(),
        has_commits: !spec.commits.is_empty(),
        target_rules: spec.target_rules.clone(),
    })
}

fn compile_rule(spec: &RuleSpec) -> Result<Option<Rule>, SecretsError> {
    let what = format!("rule {}", spec.id);
    if spec.id.trim().is_empty() {
        return Err(SecretsError::Config("a rule has no id".to_owned()));
    }
    // A rule without a regex matches files by path alone; text scanning
    // has no use for it.
    let Some(pattern) = spec.regex.as_deref().filter(|r| !r.is_empty()) else {
        return Ok(None);
    };
    let mut allowlists: Vec<Allowlist> = Vec::new();
    for a in spec.allowlist.iter().chain(&spec.allowlists) {
        allowlists.push(compile_allowlist(a, &what)?);
    }
    let (regex, hir) = Pattern::compile_with_hir(pattern, &what)?;
    let keywords: Vec<String> = spec
        .keywords
        .iter()
        .map(|k| k.to_lowercase())
        .filter(|k| !k.is_empty())
        .collect();
    Ok(Some(Rule {
        id: spec.id.clone(),
        description: spec.description.clone(),
        near: hir.and_then(|hir| near(&hir, &keywords)),
        regex,
        secret_group: spec.secret_group.filter(|&g| g > 0),
        entropy: spec.entropy.filter(|&e| e != 0.0),
        keywords,
        path: spec
            .path
            .as_deref()
            .map(|p| compile(p, &what))
            .transpose()?,
        allowlists,
    }))
}

impl RuleSet {
    /// Compiles a parsed configuration.
    pub(crate) fn compile(config: &ConfigFile) -> Result<RuleSet, SecretsError> {
        let mut rules = Vec::new();
        for spec in &config.rules {
            if let Some(rule) = compile_rule(spec)? {
                rules.push(rule);
            }
        }
        let mut global = Vec::new();
        for a in config.allowlist.iter().chain(&config.allowlists) {
            global.push(compile_allowlist(a, "global allowlist")?);
        }
        Self::assemble(rules, global)
    }

    /// Builds the keyword automaton over `rules`.
    pub(crate) fn assemble(
        rules: Vec<Rule>,
        global: Vec<Allowlist>,
    ) -> Result<RuleSet, SecretsError> {
        let mut patterns: Vec<String> = Vec::new();
        let mut keyword_rules: Vec<Vec<usize>> = Vec::new();
        let mut anchor_rules: Vec<Vec<usize>> = Vec::new();
        let mut always = Vec::new();
        let mut pattern =
            |p: &str, keyword_rules: &mut Vec<Vec<usize>>, anchor_rules: &mut Vec<Vec<usize>>| {
                patterns.iter().position(|q| q == p).unwrap_or_else(|| {
                    patterns.push(p.to_owned());
                    keyword_rules.push(Vec::new());
                    anchor_rules.push(Vec::new());
                    patterns.len() - 1
                })
            };
        for (i, rule) in rules.iter().enumerate() {
            if rule.keywords.is_empty() {
                always.push(i);
            }
            for k in &rule.keywords {
                let p = pattern(k, &mut keyword_rules, &mut anchor_rules);
                keyword_rules[p].push(i);
            }
            for a in rule.near.iter().flat_map(|n| &n.anchors) {
                let p = pattern(a, &mut keyword_rules, &mut anchor_rules);
                anchor_rules[p].push(i);
            }
        }
        let keywords = Keywords::new(&patterns)?;
        Ok(RuleSet {
            max_reach: rules
                .iter()
                .filter_map(|r| match r.near.as_ref()?.reach {
                    Reach::Bytes(n) => Some(n),
                    Reach::Run(_) | Reach::Starts => None,
                })
                .max()
                .unwrap_or(0),
            rules,
            global,
            keywords,
            keyword_rules,
            anchor_rules,
            always,
        })
    }
}
