//! What every command reads the same way: its flags, the member its endpoints name, the range
//! its keys and flags name, and how a key or value prints (`--hex`).

use crate::api::EtcdClient;
use crate::{Invocation, Outcome, EXIT_BAD_ARGS, EXIT_ERROR};

pub fn unknown_flag(arg: &str) -> Outcome {
    if arg.starts_with('-') {
        Outcome::error(
            EXIT_ERROR,
            &format!("unknown flag: {}", arg.split('=').next().unwrap_or(arg)),
        )
    } else {
        Outcome::error(EXIT_BAD_ARGS, &format!("unexpected argument {arg:?}"))
    }
}

/// The member an endpoint names (its client URL, with or without the scheme).
pub fn member_at(client: &dyn EtcdClient, endpoint: &str) -> Option<usize> {
    let bare = |u: &str| {
        u.trim_start_matches("http://")
            .trim_start_matches("https://")
            .to_string()
    };
    let want = bare(endpoint);
    client
        .members()
        .iter()
        .position(|m| m.client_urls.iter().any(|u| bare(u) == want))
}

/// The member the first endpoint names: etcdctl's client talks to one at a time.
pub fn first_member(inv: &Invocation, client: &dyn EtcdClient) -> Result<usize, Outcome> {
    inv.endpoints
        .iter()
        .find_map(|e| member_at(client, e))
        .ok_or_else(|| Outcome::error(EXIT_ERROR, crate::DEADLINE_EXCEEDED))
}

/// The smallest key after every key starting with `prefix` (etcd's `GetPrefixRangeEnd`).
pub fn prefix_end(prefix: &str) -> String {
    let mut bytes = prefix.as_bytes().to_vec();
    while let Some(last) = bytes.pop() {
        if last < 0xff {
            bytes.push(last + 1);
            return String::from_utf8_lossy(&bytes).into_owned();
        }
    }
    "\0".to_string()
}

/// The end of the range a command's keys and flags name: `--prefix`, `--from-key` (`"\0"`),
/// a second key, or the first key alone (`None`).
pub fn range_end(keys: &[String], prefix: bool, from_key: bool) -> Option<String> {
    let key = keys.first().map_or("", String::as_str);
    if prefix {
        Some(if key.is_empty() {
            "\0".to_string()
        } else {
            prefix_end(key)
        })
    } else if from_key {
        Some("\0".to_string())
    } else {
        keys.get(1).cloned()
    }
}

/// An integer flag's value, or cobra's error for it.
pub fn int_flag(flag: &str, v: &str) -> Result<i64, Outcome> {
    v.parse().map_err(|_| {
        Outcome::error(
            EXIT_ERROR,
            &format!("invalid argument {v:?} for \"{flag}\" flag: strconv.ParseInt: parsing {v:?}: invalid syntax"),
        )
    })
}

pub fn shown(hex: bool, text: &str) -> String {
    if hex {
        text.bytes().map(|b| format!("\\x{b:02x}")).collect()
    } else {
        text.to_string()
    }
}
