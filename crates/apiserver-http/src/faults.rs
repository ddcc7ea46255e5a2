//! Faults scheduled from the command line (`--kill-node node-c@30s`): a machine dies or comes
//! back at a virtual instant after start-up, so a story like the seed's node-c failure can be
//! watched through the real kubectl alone, which has no verb to pull a node's plug.

use watchlab_apimachinery::duration::parse_go_duration;
use watchlab_engine::cluster::Action;

/// One fault: what happens, and when (virtual milliseconds after the server starts).
#[derive(Debug, Clone, PartialEq)]
pub struct Fault {
    pub after_ms: u64,
    pub action: Action,
}

/// The flags that schedule a fault, and the action each one takes on the named member.
pub const FLAGS: [&str; 11] = [
    "--kill-node",
    "--restore-node",
    "--kill-etcd-member",
    "--restore-etcd-member",
    "--isolate-etcd-member",
    "--rejoin-etcd-member",
    "--pause-component",
    "--resume-component",
    "--cut-apiserver",
    "--stop-apiserver",
    "--restore-apiserver",
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
        // Cuts every network link of the member (its process keeps running)...
        "--isolate-etcd-member" => Action::IsolateEtcdMember(name),
        // ...and restores them.
        "--rejoin-etcd-member" => Action::HealEtcd(Some(name)),
        // A replica of kube-scheduler or kube-controller-manager freezes (its clock too)...
        "--pause-component" => Action::PauseComponent(name),
        // ...and goes on where it stopped.
        "--resume-component" => Action::ResumeComponent(name),
        // A kube-apiserver instance loses etcd (its caches freeze), stops, or comes back.
        "--cut-apiserver" => Action::CutApiserver(name),
        "--stop-apiserver" => Action::StopApiserver(name),
        "--restore-apiserver" => Action::RestoreApiserver(name),
        _ => return None,
    };
    Some(Fault {
        after_ms: parse_go_duration(when).ok()?,
        action,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

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
        assert_eq!(
            parse("--isolate-etcd-member", "etcd-0@10s"),
            Some(Fault {
                after_ms: 10_000,
                action: Action::IsolateEtcdMember("etcd-0".into())
            })
        );
        assert_eq!(
            parse("--rejoin-etcd-member", "etcd-0@1m").map(|f| f.action),
            Some(Action::HealEtcd(Some("etcd-0".into())))
        );
        assert_eq!(
            parse("--pause-component", "kube-controller-manager-0@20s"),
            Some(Fault {
                after_ms: 20_000,
                action: Action::PauseComponent("kube-controller-manager-0".into())
            })
        );
        assert_eq!(
            parse("--resume-component", "kube-scheduler-1@1m").map(|f| f.action),
            Some(Action::ResumeComponent("kube-scheduler-1".into()))
        );
        assert_eq!(
            parse("--cut-apiserver", "kube-apiserver-1@30s").map(|f| f.action),
            Some(Action::CutApiserver("kube-apiserver-1".into()))
        );
        for bad in ["node-c", "@30s", "node-c@", "node-c@soon"] {
            assert_eq!(parse("--kill-node", bad), None, "{bad}");
        }
    }
}
