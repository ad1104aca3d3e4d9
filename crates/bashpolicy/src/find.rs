//! `find`, read as GNU findutils 4.9 reads it: leading options (`-H`,
//! `-L`, `-P`, `-D …`, `-O…`), starting points up to the first word that
//! starts an expression, then primaries with their values. Primaries are
//! whole words; one not listed here is denied.

use crate::Denial;
use crate::check::short;
use crate::options::Word;

/// Primaries that take no value.
const FLAGS: &[&str] = &[
    "!",
    "(",
    ")",
    ",",
    "-not",
    "-a",
    "-and",
    "-o",
    "-or",
    "-daystart",
    "-d",
    "-depth",
    "-empty",
    "-executable",
    "-false",
    "-follow",
    "-help",
    "--help",
    "-ignore_readdir_race",
    "-ls",
    "-mount",
    "-noignore_readdir_race",
    "-noleaf",
    "-nogroup",
    "-nouser",
    "-nowarn",
    "-print",
    "-print0",
    "-prune",
    "-quit",
    "-readable",
    "-true",
    "-version",
    "--version",
    "-warn",
    "-writable",
    "-xdev",
];

/// Primaries that take the next word as their value.
const WITH_VALUE: &[&str] = &[
    "-amin",
    "-anewer",
    "-atime",
    "-cmin",
    "-cnewer",
    "-context",
    "-ctime",
    "-files0-from",
    "-fstype",
    "-gid",
    "-group",
    "-ilname",
    "-iname",
    "-inum",
    "-ipath",
    "-iregex",
    "-iwholename",
    "-links",
    "-lname",
    "-maxdepth",
    "-mindepth",
    "-mmin",
    "-mtime",
    "-name",
    "-newer",
    "-path",
    "-perm",
    "-printf",
    "-regex",
    "-regextype",
    "-samefile",
    "-size",
    "-type",
    "-uid",
    "-used",
    "-user",
    "-wholename",
    "-xtype",
];

/// Primaries that are denied, and why.
fn denied(word: &str) -> Option<&'static str> {
    Some(match word {
        "-delete" => "deletes files",
        "-exec" | "-execdir" | "-ok" | "-okdir" => "runs a command",
        "-fprint" | "-fprint0" | "-fprintf" | "-fls" => "writes to a file",
        _ => return None,
    })
}

/// Whether `arg` starts find's expression (findutils' `looks_like_expression`).
fn starts_expression(arg: &str) -> bool {
    match arg {
        "!" | "(" => true,
        _ => arg.len() > 1 && arg.starts_with('-'),
    }
}

/// `-newerXY`, with X one of `aBcm` and Y one of `aBcmt`.
fn is_newer_xy(word: &str) -> bool {
    let Some(xy) = word.strip_prefix("-newer") else {
        return false;
    };
    let b = xy.as_bytes();
    b.len() == 2 && b"aBcm".contains(&b[0]) && b"aBcmt".contains(&b[1])
}

/// Denies a `find` that deletes, runs, writes, or uses a primary the
/// policy does not know.
pub(crate) fn check(args: &[Word<'_>]) -> Result<(), Denial> {
    // Any word that names a denied primary is denied, even where it would
    // be a value (`-name -delete`): a value is only a value if every
    // primary before it is read exactly as find reads it.
    for word in args {
        if let Some(why) = denied(word.text) {
            return Err(Denial::new(format!("`find {}` {why}", word.text)));
        }
    }
    let mut i = 0;
    // Leading options.
    while let Some(word) = args.get(i) {
        match word.text {
            "-H" | "-L" | "-P" => i += 1,
            "-D" => i += 2,
            "--" => {
                i += 1;
                break;
            }
            t if t.starts_with("-O") => i += 1,
            _ => break,
        }
    }
    // Starting points, which may be globs.
    while let Some(word) = args.get(i) {
        if starts_expression(word.text) {
            break;
        }
        if word.glob && word.text.starts_with(['-', '!', '(', ')', ',']) {
            return Err(Denial::new(format!(
                "the glob `{}` would be read by `find` as part of its expression; quote it",
                short(word.text)
            )));
        }
        i += 1;
    }
    // The expression.
    while let Some(word) = args.get(i) {
        i += 1;
        if word.glob {
            return Err(Denial::new(format!(
                "the glob `{}` in find's expression would be expanded before find sees it; \
                 quote it (`-name '*.rs'`)",
                short(word.text)
            )));
        }
        let text = word.text;
        if FLAGS.contains(&text) {
            continue;
        }
        if WITH_VALUE.contains(&text) || is_newer_xy(text) {
            match args.get(i) {
                Some(value) if value.glob => {
                    return Err(Denial::new(format!(
                        "the glob `{}` would be expanded before `find {text}` sees it; quote it \
                         (`{text} '{}'`)",
                        short(value.text),
                        short(value.text)
                    )));
                }
                Some(_) => i += 1,
                None => return Err(Denial::new(format!("`find {text}` needs a value"))),
            }
            continue;
        }
        return Err(Denial::new(format!(
            "`find {}` is not a primary of `find` that the policy knows to be read-only",
            short(text)
        )));
    }
    Ok(())
}
