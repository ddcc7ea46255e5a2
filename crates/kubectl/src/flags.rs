//! Command-line flags the way kubectl's cobra/pflag parse them, because learners paste real
//! command lines and expect real errors: `--flag=value`, `--flag value`, `-n value`, `-nvalue`,
//! `-n=value`, grouped short booleans (`-Aw`), `--` ending flags, and pflag's error texts
//! (`unknown flag: --foo`, `unknown shorthand flag: 'x' in -x`, `flag needs an argument: --raw`).

use std::collections::BTreeMap;
use std::fmt;

/// Whether a flag takes a value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FlagKind {
    Bool,
    Value,
    /// A value flag with pflag's `NoOptDefVal`: bare `--cascade` means this value, and a value
    /// must be attached (`--cascade=orphan`).
    ValueOr(&'static str),
}

/// One flag a command accepts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FlagSpec {
    pub long: &'static str,
    pub short: Option<char>,
    pub kind: FlagKind,
}

/// A boolean flag.
pub const fn boolean(long: &'static str, short: Option<char>) -> FlagSpec {
    FlagSpec {
        long,
        short,
        kind: FlagKind::Bool,
    }
}

/// A flag with a value.
pub const fn value(long: &'static str, short: Option<char>) -> FlagSpec {
    FlagSpec {
        long,
        short,
        kind: FlagKind::Value,
    }
}

/// A value flag that means `bare` when given without one (`--cascade` is `background`).
pub const fn value_or(long: &'static str, bare: &'static str) -> FlagSpec {
    FlagSpec {
        long,
        short: None,
        kind: FlagKind::ValueOr(bare),
    }
}

/// Flags every command accepts (kubectl's global flags that mean something here).
pub const GLOBAL: &[FlagSpec] = &[
    value("namespace", Some('n')),
    boolean("help", Some('h')),
    value("context", None),
    value("cluster", None),
    value("user", None),
    value("kubeconfig", None),
    value("request-timeout", None),
    value("v", Some('v')),
];

/// A pflag parse error (the text pflag gives).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FlagError {
    Unknown(String),
    UnknownShorthand { c: char, arg: String },
    NeedsArgument(String),
    InvalidBool { value: String, flag: String },
    InvalidInt { value: String, flag: String },
}

impl fmt::Display for FlagError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FlagError::Unknown(name) => write!(f, "unknown flag: --{name}"),
            FlagError::UnknownShorthand { c, arg } => {
                write!(f, "unknown shorthand flag: '{c}' in {arg}")
            }
            FlagError::NeedsArgument(desc) => write!(f, "flag needs an argument: {desc}"),
            FlagError::InvalidBool { value, flag } => write!(
                f,
                "invalid argument \"{value}\" for \"{flag}\" flag: strconv.ParseBool: parsing \"{value}\": invalid syntax"
            ),
            FlagError::InvalidInt { value, flag } => write!(
                f,
                "invalid argument \"{value}\" for \"{flag}\" flag: strconv.ParseInt: parsing \"{value}\": invalid syntax"
            ),
        }
    }
}

impl std::error::Error for FlagError {}

/// The result of parsing: positional arguments and the flag values by long name.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Parsed {
    pub args: Vec<String>,
    values: BTreeMap<&'static str, Vec<String>>,
}

impl Parsed {
    /// Whether the flag appeared at all.
    pub fn has(&self, long: &str) -> bool {
        self.values.contains_key(long)
    }

    /// A boolean flag's value (false when absent).
    pub fn flag(&self, long: &str) -> bool {
        self.last(long).is_some_and(|v| v == "true")
    }

    /// The last value given for the flag.
    pub fn last(&self, long: &str) -> Option<&str> {
        self.values.get(long)?.last().map(String::as_str)
    }

    /// Every value given for the flag, in order (`--env A=1 --env B=2`).
    pub fn all(&self, long: &str) -> &[String] {
        self.values.get(long).map(Vec::as_slice).unwrap_or(&[])
    }

    /// An integer flag (`--replicas=3`), with pflag's error text.
    pub fn int(&self, long: &str, short: Option<char>) -> Result<Option<i64>, FlagError> {
        match self.last(long) {
            None => Ok(None),
            Some(v) => v.parse().map(Some).map_err(|_| FlagError::InvalidInt {
                value: v.to_string(),
                flag: describe(long, short),
            }),
        }
    }
}

/// `-n, --namespace` or `--raw`, the way pflag names a flag in errors.
fn describe(long: &str, short: Option<char>) -> String {
    match short {
        Some(c) => format!("-{c}, --{long}"),
        None => format!("--{long}"),
    }
}

/// Parses `words` against the command's flags plus the global ones.
pub fn parse(words: &[String], specs: &[FlagSpec]) -> Result<Parsed, FlagError> {
    let find_long = |name: &str| specs.iter().chain(GLOBAL).find(|s| s.long == name).copied();
    let find_short = |c: char| {
        specs
            .iter()
            .chain(GLOBAL)
            .find(|s| s.short == Some(c))
            .copied()
    };
    let mut parsed = Parsed::default();
    let mut rest = words.iter();
    while let Some(word) = rest.next() {
        if word == "--" {
            parsed.args.extend(rest.by_ref().cloned());
            break;
        }
        if let Some(body) = word.strip_prefix("--") {
            let (name, inline) = match body.split_once('=') {
                Some((n, v)) => (n, Some(v.to_string())),
                None => (body, None),
            };
            let spec = find_long(name).ok_or_else(|| FlagError::Unknown(name.to_string()))?;
            let value = match (spec.kind, inline) {
                (FlagKind::Bool, None) => "true".to_string(),
                (FlagKind::Bool, Some(v)) => parse_bool(&v, &spec)?,
                (FlagKind::Value | FlagKind::ValueOr(_), Some(v)) => v,
                (FlagKind::ValueOr(bare), None) => bare.to_string(),
                (FlagKind::Value, None) => rest
                    .next()
                    .cloned()
                    .ok_or_else(|| FlagError::NeedsArgument(format!("--{name}")))?,
            };
            parsed.values.entry(spec.long).or_default().push(value);
        } else if word.len() > 1 && word.starts_with('-') {
            parse_shorthands(word, &mut rest, &find_short, &mut parsed)?;
        } else {
            parsed.args.push(word.clone());
        }
    }
    Ok(parsed)
}

fn parse_shorthands<'a>(
    word: &str,
    rest: &mut impl Iterator<Item = &'a String>,
    find_short: &dyn Fn(char) -> Option<FlagSpec>,
    parsed: &mut Parsed,
) -> Result<(), FlagError> {
    let body = &word[1..];
    for (i, c) in body.char_indices() {
        let spec = find_short(c).ok_or_else(|| FlagError::UnknownShorthand {
            c,
            arg: word.to_string(),
        })?;
        let after = &body[i + c.len_utf8()..];
        match spec.kind {
            FlagKind::Bool => {
                if let Some(v) = after.strip_prefix('=') {
                    let v = parse_bool(v, &spec)?;
                    parsed.values.entry(spec.long).or_default().push(v);
                    return Ok(());
                }
                parsed
                    .values
                    .entry(spec.long)
                    .or_default()
                    .push("true".into());
            }
            FlagKind::ValueOr(bare) => {
                let value = after.strip_prefix('=').unwrap_or(bare).to_string();
                parsed.values.entry(spec.long).or_default().push(value);
                return Ok(());
            }
            FlagKind::Value => {
                let value = if let Some(v) = after.strip_prefix('=') {
                    v.to_string()
                } else if !after.is_empty() {
                    after.to_string()
                } else {
                    rest.next()
                        .cloned()
                        .ok_or_else(|| FlagError::NeedsArgument(format!("'{c}' in -{c}")))?
                };
                parsed.values.entry(spec.long).or_default().push(value);
                return Ok(());
            }
        }
    }
    Ok(())
}

/// Go's strconv.ParseBool spellings.
fn parse_bool(v: &str, spec: &FlagSpec) -> Result<String, FlagError> {
    match v {
        "1" | "t" | "T" | "true" | "TRUE" | "True" => Ok("true".into()),
        "0" | "f" | "F" | "false" | "FALSE" | "False" => Ok("false".into()),
        _ => Err(FlagError::InvalidBool {
            value: v.to_string(),
            flag: describe(spec.long, spec.short),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SPECS: &[FlagSpec] = &[
        boolean("watch", Some('w')),
        boolean("all-namespaces", Some('A')),
        value("output", Some('o')),
        value("raw", None),
        value("replicas", None),
    ];

    fn run(line: &str) -> Result<Parsed, FlagError> {
        let words: Vec<String> = line.split_whitespace().map(String::from).collect();
        parse(&words, SPECS)
    }

    #[test]
    fn forms_of_values() {
        let p = run("pods -n production -o=json -w").unwrap();
        assert_eq!(p.args, ["pods"]);
        assert_eq!(p.last("namespace"), Some("production"));
        assert_eq!(p.last("output"), Some("json"));
        assert!(p.flag("watch"));
        assert_eq!(run("-ojson").unwrap().last("output"), Some("json"));
        assert_eq!(run("--namespace=x").unwrap().last("namespace"), Some("x"));
        let p = run("-Aw").unwrap();
        assert!(p.flag("all-namespaces") && p.flag("watch"));
        assert!(!run("--watch=false").unwrap().flag("watch"));
        assert_eq!(run("-- -x --y").unwrap().args, ["-x", "--y"]);
        assert_eq!(run("-").unwrap().args, ["-"]);
    }

    #[test]
    fn pflag_error_texts() {
        assert_eq!(run("--foo").unwrap_err().to_string(), "unknown flag: --foo");
        assert_eq!(
            run("-x").unwrap_err().to_string(),
            "unknown shorthand flag: 'x' in -x"
        );
        assert_eq!(
            run("--raw").unwrap_err().to_string(),
            "flag needs an argument: --raw"
        );
        assert_eq!(
            run("-n").unwrap_err().to_string(),
            "flag needs an argument: 'n' in -n"
        );
        assert_eq!(
            run("--watch=maybe").unwrap_err().to_string(),
            "invalid argument \"maybe\" for \"-w, --watch\" flag: strconv.ParseBool: parsing \"maybe\": invalid syntax"
        );
        assert_eq!(
            run("--replicas=x").unwrap().int("replicas", None).unwrap_err().to_string(),
            "invalid argument \"x\" for \"--replicas\" flag: strconv.ParseInt: parsing \"x\": invalid syntax"
        );
    }
}
