//! `etcdctl txn` (`ctlv3/command/txn_command.go`): it reads its compares, then the success
//! requests, then the failure requests from standard input, each list ended by an empty line
//! (with `-i`, under the prompts `compares:`, `success requests (get, put, del):` and
//! `failure requests (get, put, del):`). The console has no standard input, so the lines the
//! learner types next are fed to the open [`TxnPrompt`] until the third list ends.

use crate::api::{
    Compare, CompareOp, CompareTarget, EtcdClient, RequestOp, ResponseOp, TxnResponse,
};
use crate::args::{first_member, range_end, shown};
use crate::{Invocation, Outcome, EXIT_BAD_ARGS, EXIT_ERROR};

/// cobrautl's `ExitInvalidInput`: a line etcdctl could not read as a compare or a request.
const EXIT_INVALID_INPUT: i32 = 3;

const PROMPTS: [&str; 3] = [
    "compares:",
    "success requests (get, put, del):",
    "failure requests (get, put, del):",
];

/// A txn being typed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TxnPrompt {
    member: usize,
    interactive: bool,
    hex: bool,
    /// Which list the next line belongs to (0 compares, 1 success, 2 failure).
    list: usize,
    compares: Vec<Compare>,
    success: Vec<RequestOp>,
    failure: Vec<RequestOp>,
}

/// `etcdctl txn [-i]`: opens the prompt.
pub fn txn(inv: &Invocation, args: &[&str], client: &mut dyn EtcdClient) -> Outcome {
    let mut interactive = false;
    for a in args {
        match *a {
            "-i" | "--interactive" | "--interactive=true" => interactive = true,
            _ => return Outcome::error(EXIT_BAD_ARGS, "txn command does not accept argument"),
        }
    }
    let member = match first_member(inv, client) {
        Ok(m) => m,
        Err(out) => return out,
    };
    Outcome {
        stdout: if interactive {
            format!("{}\n", PROMPTS[0])
        } else {
            String::new()
        },
        txn: Some(Box::new(TxnPrompt {
            member,
            interactive,
            hex: inv.hex,
            list: 0,
            compares: Vec::new(),
            success: Vec::new(),
            failure: Vec::new(),
        })),
        ..Outcome::default()
    }
}

impl TxnPrompt {
    /// One line of input: added to the current list, or (empty) ending it; after the third
    /// list the txn runs and the returned outcome is its answer (`txn` then `None`).
    pub fn feed(&mut self, line: &str, client: &mut dyn EtcdClient) -> Outcome {
        let line = line.trim();
        if line.is_empty() {
            self.list += 1;
            if self.list < PROMPTS.len() {
                let mut out = Outcome::default();
                if self.interactive {
                    out.stdout = format!("{}\n", PROMPTS[self.list]);
                }
                out.txn = Some(Box::new(self.clone()));
                return out;
            }
            return match client.txn(self.member, &self.compares, &self.success, &self.failure) {
                Ok(resp) => Outcome::ok(print(self.hex, &resp)),
                Err(e) => Outcome::error(EXIT_ERROR, &e.0),
            };
        }
        let read = if self.list == 0 {
            parse_compare(line).map(|c| self.compares.push(c))
        } else {
            parse_request(line).map(|op| {
                if self.list == 1 {
                    self.success.push(op);
                } else {
                    self.failure.push(op);
                }
            })
        };
        match read {
            Ok(()) => Outcome {
                txn: Some(Box::new(self.clone())),
                ..Outcome::default()
            },
            Err(text) => Outcome::error(EXIT_INVALID_INPUT, &text),
        }
    }
}

/// A Go-quoted string at the start of `s` (`"…"` with escapes, or `` `…` ``) and the rest.
fn quoted(s: &str) -> Option<(String, &str)> {
    let s = s.trim_start();
    if let Some(rest) = s.strip_prefix('`') {
        let end = rest.find('`')?;
        return Some((rest[..end].to_string(), &rest[end + 1..]));
    }
    let rest = s.strip_prefix('"')?;
    let mut out = String::new();
    let mut chars = rest.char_indices();
    while let Some((i, c)) = chars.next() {
        match c {
            '"' => return Some((out, &rest[i + 1..])),
            '\\' => match chars.next()?.1 {
                'n' => out.push('\n'),
                't' => out.push('\t'),
                other => out.push(other),
            },
            c => out.push(c),
        }
    }
    None
}

/// etcdctl's `ParseCompare`: `TARGET("KEY") OP "VALUE"`, TARGET one of `value`/`val`,
/// `version`/`ver`, `create`/`c`, `mod`/`m`, `lease` (its value in hex).
fn parse_compare(line: &str) -> Result<Compare, String> {
    let malformed = || format!("malformed comparison: {line}");
    let (target, rest) = line.split_once('(').ok_or_else(malformed)?;
    let (key, rest) = quoted(rest).ok_or_else(malformed)?;
    let rest = rest
        .trim_start()
        .strip_prefix(')')
        .ok_or_else(malformed)?
        .trim_start();
    let (op, rest) = rest.split_once(char::is_whitespace).ok_or_else(malformed)?;
    let (value, _) = quoted(rest).ok_or_else(malformed)?;
    let op = match op {
        "=" => CompareOp::Equal,
        "!=" => CompareOp::NotEqual,
        ">" => CompareOp::Greater,
        "<" => CompareOp::Less,
        _ => return Err(malformed()),
    };
    let invalid = || format!("invalid txn compare request: {line}");
    let number = |radix| i64::from_str_radix(&value, radix).map_err(|_| invalid());
    let target = match target {
        "ver" | "version" => CompareTarget::Version(number(10)?),
        "c" | "create" => CompareTarget::Create(number(10)?),
        "m" | "mod" => CompareTarget::Mod(number(10)?),
        "val" | "value" => CompareTarget::Value(value.clone()),
        "lease" => CompareTarget::Lease(number(16)?),
        other => {
            return Err(format!(
                "malformed comparison: {line} (unknown target {other})"
            ))
        }
    };
    Ok(Compare { key, op, target })
}

/// etcdctl's `Argify`: words, a quoted one (`"…"` unquoted as Go does, `'…'` as it is) kept
/// whole.
fn argify(line: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut rest = line.trim_start();
    while !rest.is_empty() {
        let (word, after) = if rest.starts_with('"') {
            match quoted(rest) {
                Some(q) => q,
                None => (rest.to_string(), ""),
            }
        } else if let Some(body) = rest.strip_prefix('\'') {
            match body.find('\'') {
                Some(end) => (body[..end].to_string(), &body[end + 1..]),
                None => (rest.to_string(), ""),
            }
        } else {
            let end = rest.find(char::is_whitespace).unwrap_or(rest.len());
            (rest[..end].to_string(), &rest[end..])
        };
        words.push(word);
        rest = after.trim_start();
    }
    words
}

/// A request line: `get KEY [RANGE_END] [--prefix|--from-key]`, `put KEY VALUE`, `del KEY
/// [RANGE_END] [--prefix|--from-key]`.
fn parse_request(line: &str) -> Result<RequestOp, String> {
    let args = argify(line);
    if args.len() < 2 {
        return Err(format!("invalid txn compare request: {line}"));
    }
    let invalid = || format!("invalid txn request: {line}");
    let (verb, rest) = (args[0].as_str(), &args[1..]);
    let flags: Vec<&str> = rest
        .iter()
        .map(String::as_str)
        .filter(|a| a.starts_with("--"))
        .collect();
    let keys: Vec<String> = rest
        .iter()
        .filter(|a| !a.starts_with("--"))
        .cloned()
        .collect();
    let (prefix, from_key) = (flags.contains(&"--prefix"), flags.contains(&"--from-key"));
    if flags
        .iter()
        .any(|f| !["--prefix", "--from-key"].contains(f))
        || (prefix && from_key)
    {
        return Err(invalid());
    }
    match verb {
        "put" if flags.is_empty() && keys.len() == 2 => Ok(RequestOp::Put {
            key: keys[0].clone(),
            value: keys[1].clone(),
        }),
        "get" | "del" if !keys.is_empty() && keys.len() <= 2 => {
            let end = range_end(&keys, prefix, from_key);
            let key = keys[0].clone();
            Ok(if verb == "get" {
                RequestOp::Get {
                    key,
                    range_end: end,
                }
            } else {
                RequestOp::Delete {
                    key,
                    range_end: end,
                }
            })
        }
        _ => Err(invalid()),
    }
}

/// The simple printer's `Txn`: SUCCESS or FAILURE, then each answer after an empty line.
fn print(hex: bool, resp: &TxnResponse) -> String {
    let mut out = String::from(if resp.succeeded {
        "SUCCESS\n"
    } else {
        "FAILURE\n"
    });
    for r in &resp.responses {
        out.push('\n');
        match r {
            ResponseOp::Range(range) => {
                for kv in &range.kvs {
                    out.push_str(&format!(
                        "{}\n{}\n",
                        shown(hex, &kv.key),
                        shown(hex, &kv.value)
                    ));
                }
            }
            ResponseOp::Put(_) => out.push_str("OK\n"),
            ResponseOp::DeleteRange(d) => out.push_str(&format!("{}\n", d.deleted)),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compares_and_requests_read_as_etcdctl_reads_them() {
        assert_eq!(
            parse_compare(r#"mod("/registry/x") > "0""#),
            Ok(Compare {
                key: "/registry/x".into(),
                op: CompareOp::Greater,
                target: CompareTarget::Mod(0)
            })
        );
        assert_eq!(
            parse_compare(r#"value("k") = "a \"b\"""#).map(|c| c.target),
            Ok(CompareTarget::Value("a \"b\"".into()))
        );
        assert_eq!(
            parse_compare(r#"lease("k") = "1f""#).map(|c| c.target),
            Ok(CompareTarget::Lease(31))
        );
        assert_eq!(
            parse_compare(r#"size("k") = "1""#),
            Err(r#"malformed comparison: size("k") = "1" (unknown target size)"#.into())
        );
        assert_eq!(
            parse_compare(r#"mod("k") = "x""#),
            Err(r#"invalid txn compare request: mod("k") = "x""#.into())
        );
        assert_eq!(
            parse_request(r#"put /registry/a '{"k": "v w"}'"#),
            Ok(RequestOp::Put {
                key: "/registry/a".into(),
                value: r#"{"k": "v w"}"#.into()
            })
        );
        assert_eq!(
            parse_request("del /registry/a/ --prefix"),
            Ok(RequestOp::Delete {
                key: "/registry/a/".into(),
                range_end: Some("/registry/a0".into())
            })
        );
        assert_eq!(
            parse_request("get"),
            Err("invalid txn compare request: get".into())
        );
        assert_eq!(
            parse_request("frob k"),
            Err("invalid txn request: frob k".into())
        );
    }
}
