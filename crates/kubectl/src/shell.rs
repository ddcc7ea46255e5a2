//! The bit of a POSIX shell the console needs: the seed texts are typed as shell lines
//! (`-o jsonpath='{.metadata.resourceVersion}'`, `... | tail -8`, `# 184553`), so the console
//! must split words, honour quotes and backslashes, drop comments, and run the few filters the
//! seeds pipe kubectl's output through. Anything fancier is refused with a clear error.

use std::fmt;

/// Why a line could not be turned into a pipeline.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ShellError {
    /// A quote was opened and never closed (the text is bash's).
    UnterminatedQuote(char),
    /// A trailing backslash with nothing to escape.
    TrailingBackslash,
    /// `| foo` where foo is not one of the supported filters.
    UnsupportedFilter(String),
    /// A supported filter with arguments it does not understand.
    BadFilterArgs(String),
    /// `|` with nothing on one side.
    EmptyStage,
}

impl fmt::Display for ShellError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ShellError::UnterminatedQuote(q) => {
                write!(f, "unexpected EOF while looking for matching `{q}'")
            }
            ShellError::TrailingBackslash => f.write_str("unexpected EOF after a trailing backslash"),
            ShellError::UnsupportedFilter(cmd) => write!(
                f,
                "{cmd}: command not supported in this console (only `tail`, `head` and `grep` may follow a pipe)"
            ),
            ShellError::BadFilterArgs(msg) => f.write_str(msg),
            ShellError::EmptyStage => f.write_str("syntax error near unexpected token `|'"),
        }
    }
}

impl std::error::Error for ShellError {}

/// One output filter after a `|`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Filter {
    /// `tail -N` / `tail -n N` (coreutils default: 10 lines).
    Tail(usize),
    /// `head -N` / `head -n N` (coreutils default: 10 lines).
    Head(usize),
    /// `grep [-v] [-i] PATTERN`: plain substring match.
    Grep {
        pattern: String,
        invert: bool,
        ignore_case: bool,
    },
}

/// A parsed console line: the command words and the filters its stdout goes through.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Pipeline {
    pub words: Vec<String>,
    pub filters: Vec<Filter>,
}

/// Splits one line into pipeline stages of words. Unquoted `#` at the start of a word starts a
/// comment; unquoted `|` separates stages.
pub fn split_stages(line: &str) -> Result<Vec<Vec<String>>, ShellError> {
    let mut stages = vec![Vec::new()];
    let mut word = String::new();
    let mut in_word = false;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(ch) => word.push(ch),
                        None => return Err(ShellError::UnterminatedQuote('\'')),
                    }
                }
            }
            '"' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('\\') => match chars.next() {
                            Some(ch @ ('"' | '\\' | '$' | '`')) => word.push(ch),
                            Some('\n') => {}
                            Some(ch) => {
                                word.push('\\');
                                word.push(ch);
                            }
                            None => return Err(ShellError::UnterminatedQuote('"')),
                        },
                        Some(ch) => word.push(ch),
                        None => return Err(ShellError::UnterminatedQuote('"')),
                    }
                }
            }
            '\\' => match chars.next() {
                Some('\n') => {}
                Some(ch) => {
                    in_word = true;
                    word.push(ch);
                }
                None => return Err(ShellError::TrailingBackslash),
            },
            '#' if !in_word => break,
            '|' => {
                finish_word(&mut stages, &mut word, &mut in_word);
                stages.push(Vec::new());
            }
            c if c.is_whitespace() => finish_word(&mut stages, &mut word, &mut in_word),
            c => {
                in_word = true;
                word.push(c);
            }
        }
    }
    finish_word(&mut stages, &mut word, &mut in_word);
    if stages.len() > 1 && stages.iter().any(Vec::is_empty) {
        return Err(ShellError::EmptyStage);
    }
    Ok(stages)
}

fn finish_word(stages: &mut [Vec<String>], word: &mut String, in_word: &mut bool) {
    if *in_word {
        if let Some(stage) = stages.last_mut() {
            stage.push(std::mem::take(word));
        }
        *in_word = false;
    }
}

/// Parses a whole console line: the first stage is the command, the rest are filters.
pub fn parse_pipeline(line: &str) -> Result<Pipeline, ShellError> {
    let mut stages = split_stages(line)?.into_iter();
    let words = stages.next().unwrap_or_default();
    let filters = stages.map(|s| parse_filter(&s)).collect::<Result<_, _>>()?;
    Ok(Pipeline { words, filters })
}

/// Quotes a word so that [`split_stages`] gives it back unchanged.
pub fn quote(word: &str) -> String {
    let plain = !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./=:,@%+".contains(c));
    if plain {
        return word.to_string();
    }
    format!("'{}'", word.replace('\'', r"'\''"))
}

fn parse_filter(words: &[String]) -> Result<Filter, ShellError> {
    let Some((cmd, args)) = words.split_first() else {
        return Err(ShellError::EmptyStage);
    };
    match cmd.as_str() {
        "tail" => Ok(Filter::Tail(line_count(cmd, args)?)),
        "head" => Ok(Filter::Head(line_count(cmd, args)?)),
        "grep" => parse_grep(args),
        other => Err(ShellError::UnsupportedFilter(other.to_string())),
    }
}

/// `-8`, `-n 8`, `-n8`, `--lines=8`, or nothing (10, the coreutils default).
fn line_count(cmd: &str, args: &[String]) -> Result<usize, ShellError> {
    let bad =
        |arg: &str| ShellError::BadFilterArgs(format!("{cmd}: invalid number of lines: '{arg}'"));
    let parse = |s: &str| s.parse::<usize>().map_err(|_| bad(s));
    match args {
        [] => Ok(10),
        [one] if one == "-n" => Err(ShellError::BadFilterArgs(format!(
            "{cmd}: option requires an argument -- 'n'"
        ))),
        [one] => {
            if let Some(n) = one.strip_prefix("--lines=") {
                parse(n)
            } else if let Some(n) = one.strip_prefix("-n") {
                parse(n)
            } else if let Some(n) = one.strip_prefix('-') {
                parse(n)
            } else {
                Err(ShellError::BadFilterArgs(format!(
                    "{cmd}: reading files is not supported in this console: '{one}'"
                )))
            }
        }
        [flag, n] if flag == "-n" => parse(n),
        _ => Err(ShellError::BadFilterArgs(format!(
            "{cmd}: unsupported arguments: {}",
            args.join(" ")
        ))),
    }
}

fn parse_grep(args: &[String]) -> Result<Filter, ShellError> {
    let (mut invert, mut ignore_case, mut pattern) = (false, false, None);
    for arg in args {
        match arg.as_str() {
            "-v" => invert = true,
            "-i" => ignore_case = true,
            "-vi" | "-iv" => (invert, ignore_case) = (true, true),
            a if a.starts_with('-') && pattern.is_none() && a.len() > 1 => {
                return Err(ShellError::BadFilterArgs(format!(
                    "grep: unsupported option '{a}' (this console supports -v and -i)"
                )))
            }
            a if pattern.is_none() => pattern = Some(a.to_string()),
            a => {
                return Err(ShellError::BadFilterArgs(format!(
                    "grep: reading files is not supported in this console: '{a}'"
                )))
            }
        }
    }
    let pattern = pattern.ok_or_else(|| {
        ShellError::BadFilterArgs("Usage: grep [OPTION]... PATTERNS [FILE]...".to_string())
    })?;
    Ok(Filter::Grep {
        pattern,
        invert,
        ignore_case,
    })
}

/// Runs `text` through the filters, line by line, keeping a trailing newline per kept line.
pub fn apply_filters(text: &str, filters: &[Filter]) -> String {
    if filters.is_empty() {
        return text.to_string();
    }
    let mut lines: Vec<&str> = text.lines().collect();
    for filter in filters {
        lines = match filter {
            Filter::Tail(n) => lines.split_off(lines.len().saturating_sub(*n)),
            Filter::Head(n) => lines.into_iter().take(*n).collect(),
            Filter::Grep { .. } => lines
                .into_iter()
                .filter(|l| grep_keeps(filter, l))
                .collect(),
        };
    }
    lines.iter().map(|l| format!("{l}\n")).collect()
}

/// Whether a grep filter keeps `line` (other filters keep everything).
pub fn grep_keeps(filter: &Filter, line: &str) -> bool {
    match filter {
        Filter::Grep {
            pattern,
            invert,
            ignore_case,
        } => {
            let found = if *ignore_case {
                line.to_lowercase().contains(&pattern.to_lowercase())
            } else {
                line.contains(pattern.as_str())
            };
            found != *invert
        }
        _ => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn words(line: &str) -> Vec<String> {
        parse_pipeline(line).unwrap().words
    }

    #[test]
    fn splits_quotes_and_backslashes() {
        assert_eq!(
            words("kubectl get deploy -o jsonpath='{.metadata.resourceVersion}'"),
            [
                "kubectl",
                "get",
                "deploy",
                "-o",
                "jsonpath={.metadata.resourceVersion}"
            ]
        );
        assert_eq!(words(r#"a "b c" d\ e 'f"g'"#), ["a", "b c", "d e", "f\"g"]);
        assert_eq!(words(r#"x "{\"\n\"}""#), ["x", "{\"\\n\"}"]);
        assert_eq!(words("''"), [""]);
        assert_eq!(words("a 'b|c' \\|"), ["a", "b|c", "|"]);
    }

    #[test]
    fn comments_are_dropped() {
        assert!(words("# 184553").is_empty());
        assert_eq!(words("get pods # trailing"), ["get", "pods"]);
        assert_eq!(words("a#b"), ["a#b"]);
    }

    #[test]
    fn pipes_become_filters() {
        let p = parse_pipeline("kubectl get events | tail -8").unwrap();
        assert_eq!(p.filters, [Filter::Tail(8)]);
        let p = parse_pipeline("x | tail -n 3 | head -n2 | grep -v Normal").unwrap();
        assert_eq!(
            p.filters,
            [
                Filter::Tail(3),
                Filter::Head(2),
                Filter::Grep {
                    pattern: "Normal".into(),
                    invert: true,
                    ignore_case: false
                }
            ]
        );
        assert_eq!(
            parse_pipeline("x | tail").unwrap().filters,
            [Filter::Tail(10)]
        );
    }

    #[test]
    fn errors_are_shell_like() {
        assert_eq!(
            parse_pipeline("get 'x").unwrap_err().to_string(),
            "unexpected EOF while looking for matching `''"
        );
        assert_eq!(
            parse_pipeline("get \"x").unwrap_err(),
            ShellError::UnterminatedQuote('"')
        );
        assert_eq!(
            parse_pipeline("x | sort").unwrap_err(),
            ShellError::UnsupportedFilter("sort".into())
        );
        assert_eq!(parse_pipeline("x |").unwrap_err(), ShellError::EmptyStage);
        assert!(parse_pipeline("x | tail -q").is_err());
        assert!(parse_pipeline("x | grep").is_err());
    }

    #[test]
    fn filters_apply_in_order() {
        let text = "a1\nb2\na3\nb4\na5\n";
        assert_eq!(apply_filters(text, &[Filter::Tail(2)]), "b4\na5\n");
        assert_eq!(apply_filters(text, &[Filter::Head(1)]), "a1\n");
        let grep = Filter::Grep {
            pattern: "A".into(),
            invert: false,
            ignore_case: true,
        };
        assert_eq!(apply_filters(text, &[grep, Filter::Tail(2)]), "a3\na5\n");
        assert_eq!(apply_filters(text, &[Filter::Tail(0)]), "");
    }

    proptest! {
        #[test]
        fn quoted_words_round_trip(ws in proptest::collection::vec(".*", 0..6)) {
            let line = ws.iter().map(|w| quote(w)).collect::<Vec<_>>().join(" ");
            let stages = split_stages(&line).unwrap();
            prop_assert_eq!(stages, vec![ws]);
        }

        #[test]
        fn never_panics(line in ".*") {
            let _ = parse_pipeline(&line);
        }
    }
}
