//! etcdctl's writes, `put` and `del` (`ctlv3/command/put_command.go`, `del_command.go`, their
//! simple and JSON printers): straight to etcd, around the API server, which sees them only
//! on its watch.

use crate::api::{DeleteRangeResponse, EtcdClient, KeyValue, PutResponse};
use crate::args::{first_member, range_end, shown, unknown_flag};
use crate::json::{self, Object};
use crate::{Invocation, Outcome, WriteOut, EXIT_BAD_ARGS, EXIT_ERROR};

/// The words that are not flags, and the boolean flags among `known` that were given.
fn split_flags<'a>(
    args: &[&'a str],
    known: &[&str],
) -> Result<(Vec<&'a str>, Vec<String>), Outcome> {
    let mut words = Vec::new();
    let mut flags = Vec::new();
    for &a in args {
        let name = a.split('=').next().unwrap_or(a);
        if known.contains(&name) {
            match a.split_once('=').map(|(_, v)| v) {
                None | Some("true") => flags.push(name.to_string()),
                Some("false") => {}
                Some(v) => {
                    return Err(Outcome::error(
                        EXIT_ERROR,
                        &format!("invalid argument {v:?} for \"{name}\" flag: strconv.ParseBool: parsing {v:?}: invalid syntax"),
                    ))
                }
            }
        } else if a.starts_with('-') && a.len() > 1 {
            return Err(unknown_flag(a));
        } else {
            words.push(a);
        }
    }
    Ok((words, flags))
}

fn key_value_lines(hex: bool, kv: &KeyValue) -> String {
    format!("{}\n{}\n", shown(hex, &kv.key), shown(hex, &kv.value))
}

/// `etcdctl put [--prev-kv] KEY VALUE`.
pub fn put(inv: &Invocation, args: &[&str], client: &mut dyn EtcdClient) -> Outcome {
    if let Some(flag) = args
        .iter()
        .find(|a| ["--ignore-value", "--ignore-lease"].contains(&a.split('=').next().unwrap_or(a)))
    {
        return Outcome::error(
            EXIT_ERROR,
            &format!("{flag} is not in this console's etcdctl yet"),
        );
    }
    // `--lease ID` (hex) takes a value; the rest are switches.
    let mut rest = Vec::new();
    let mut lease = "0".to_string();
    let mut it = args.iter();
    while let Some(&a) = it.next() {
        match a.strip_prefix("--lease") {
            Some(v) if v.starts_with('=') => lease = v[1..].to_string(),
            Some("") => match it.next() {
                Some(v) => lease = v.to_string(),
                None => return Outcome::error(EXIT_ERROR, "flag needs an argument: --lease"),
            },
            _ => rest.push(a),
        }
    }
    let Ok(lease) = i64::from_str_radix(&lease, 16) else {
        return Outcome::error(
            EXIT_BAD_ARGS,
            &format!("bad lease ID (strconv.ParseInt: parsing {lease:?}: invalid syntax), expecting ID in Hex"),
        );
    };
    let (words, flags) = match split_flags(&rest, &["--prev-kv"]) {
        Ok(split) => split,
        Err(out) => return out,
    };
    let [key, value] = words.as_slice() else {
        return Outcome::error(
            EXIT_BAD_ARGS,
            "put command needs 1 argument and input from stdin or 2 arguments",
        );
    };
    let member = match first_member(inv, client) {
        Ok(m) => m,
        Err(out) => return out,
    };
    let resp = match client.put(member, key, value, lease) {
        Ok(r) => r,
        Err(e) => return Outcome::error(EXIT_ERROR, &e.0),
    };
    let with_prev = !flags.is_empty();
    Outcome::ok(print_put(inv, &resp, with_prev))
}

fn print_put(inv: &Invocation, resp: &PutResponse, with_prev: bool) -> String {
    let prev = resp.prev_kv.as_ref().filter(|_| with_prev);
    if inv.write_out == WriteOut::Fields {
        return crate::fields::put(inv.hex, resp, with_prev);
    }
    if inv.write_out == WriteOut::Json {
        let mut o = Object::new().raw("header", &json::header(&resp.header));
        if let Some(kv) = prev {
            o = o.raw("prev_kv", &json::key_value(kv));
        }
        return format!("{}\n", o.finish());
    }
    let mut out = "OK\n".to_string();
    if let Some(kv) = prev {
        out.push_str(&key_value_lines(inv.hex, kv));
    }
    out
}

/// `etcdctl del [--prefix|--from-key] [--prev-kv] KEY [RANGE_END]`.
pub fn del(inv: &Invocation, args: &[&str], client: &mut dyn EtcdClient) -> Outcome {
    let (words, flags) =
        match split_flags(args, &["--prefix", "--from-key", "--prev-kv", "--range"]) {
            Ok(split) => split,
            Err(out) => return out,
        };
    let has = |f: &str| flags.iter().any(|g| g == f);
    let (prefix, from_key) = (has("--prefix"), has("--from-key"));
    if words.is_empty() || words.len() > 2 {
        return Outcome::error(
            EXIT_BAD_ARGS,
            "del command needs one argument as key and an optional argument as range_end",
        );
    }
    if prefix && from_key {
        return Outcome::error(
            EXIT_BAD_ARGS,
            "`--prefix` and `--from-key` cannot be set at the same time, choose one",
        );
    }
    if words.len() == 2 && (prefix || from_key) {
        return Outcome::error(
            EXIT_BAD_ARGS,
            "too many arguments, only accept one argument when `--prefix` or `--from-key` is set",
        );
    }
    let keys: Vec<String> = words.iter().map(|w| w.to_string()).collect();
    let end = range_end(&keys, prefix, from_key);
    let member = match first_member(inv, client) {
        Ok(m) => m,
        Err(out) => return out,
    };
    match client.delete_range(member, &keys[0], end.as_deref()) {
        Ok(resp) => Outcome::ok(print_del(inv, &resp, has("--prev-kv"))),
        Err(e) => Outcome::error(EXIT_ERROR, &e.0),
    }
}

fn print_del(inv: &Invocation, resp: &DeleteRangeResponse, with_prev: bool) -> String {
    let prev: &[KeyValue] = if with_prev { &resp.prev_kvs } else { &[] };
    if inv.write_out == WriteOut::Fields {
        return crate::fields::del(inv.hex, resp, with_prev);
    }
    if inv.write_out == WriteOut::Json {
        let kvs: Vec<String> = prev.iter().map(json::key_value).collect();
        let o = Object::new()
            .raw("header", &json::header(&resp.header))
            .number("deleted", resp.deleted)
            .list("prev_kvs", &kvs);
        return format!("{}\n", o.finish());
    }
    let mut out = format!("{}\n", resp.deleted);
    for kv in prev {
        out.push_str(&key_value_lines(inv.hex, kv));
    }
    out
}
