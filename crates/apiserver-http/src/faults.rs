//! Faults scheduled from the command line (`--kill-node node-c@30s`): a machine dies or comes
//! back at a virtual instant after start-up, so a story like the seed's node-c failure can be
//! watched through the real kubectl alone, which has no verb to pull a node's plug.

use watchlab_engine::cluster::Action;

/// One fault: what happens, and when (virtual milliseconds after the server starts).
#[derive(Debug, Clone, PartialEq)]
pub struct Fault {
    pub after_ms: u64,
    pub action: Action,
}

/// The flags that schedule a fault, and the action each one takes on the named member.
pub const FLAGS: [&str; 4] = [
    "--kill-node",
    "--restore-node",
    "--kill-etcd-member",
    "--restore-etcd-member",
];

/// `NAME@DURATION` for `flag`; `None` when it does not parse.
pub fn parse(flag: &str, value: &str) -> Option<Fault> {
    let (name, when) = value.rsplit_once('@')?;
    if name.is_empty() {
        return None;
    }
    let name = name.to_string();
    let action = match flag {
        "--kill-node" => Action::KillNode(name),
        "--restore-node" => Action::RestoreNode(name),
        "--kill-etcd-member" => Action::KillEtcdMember(name),
        "--restore-etcd-member" => Action::RestoreEtcdMember(name),
        _ => return None,
    };
    Some(Fault {
        after_ms: duration_ms(when)?,
        action,
    })
}

/// A Go-style duration of whole units (`90s`, `1m30s`, `500ms`, `2h`) in milliseconds.
pub fn duration_ms(text: &str) -> Option<u64> {
    if text.is_empty() {
        return None;
    }
    let mut total: u64 = 0;
    let mut rest = text;
    while !rest.is_empty() {
        let digits = rest
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(rest.len());
        if digits == 0 {
            return None;
        }
        let n: u64 = rest[..digits].parse().ok()?;
        rest = &rest[digits..];
        let (unit_ms, len) = if rest.starts_with("ms") {
            (1, 2)
        } else if rest.starts_with('s') {
            (1_000, 1)
        } else if rest.starts_with('m') {
            (60_000, 1)
        } else if rest.starts_with('h') {
            (3_600_000, 1)
        } else {
            return None;
        };
        total = total.checked_add(n.checked_mul(unit_ms)?)?;
        rest = &rest[len..];
    }
    Some(total)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_like_go() {
        assert_eq!(duration_ms("30s"), Some(30_000));
        assert_eq!(duration_ms("1m30s"), Some(90_000));
        assert_eq!(duration_ms("500ms"), Some(500));
        assert_eq!(duration_ms("2h"), Some(7_200_000));
        assert_eq!(duration_ms("0s"), Some(0));
        for bad in ["", "30", "s", "1x", "-1s", "1.5s", "99999999999999999999h"] {
            assert_eq!(duration_ms(bad), None, "{bad}");
        }
    }

    #[test]
    fn name_at_duration() {
        assert_eq!(
            parse("--kill-node", "node-c@30s"),
            Some(Fault {
                after_ms: 30_000,
                action: Action::KillNode("node-c".into())
            })
        );
        assert_eq!(
            parse("--restore-etcd-member", "etcd-1@2m").map(|f| f.action),
            Some(Action::RestoreEtcdMember("etcd-1".into()))
        );
        for bad in ["node-c", "@30s", "node-c@", "node-c@soon"] {
            assert_eq!(parse("--kill-node", bad), None, "{bad}");
        }
    }
}
