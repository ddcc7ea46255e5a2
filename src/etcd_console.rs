//! The console's etcd tools: which lines are etcdctl's or etcdutl's, and (in the tests) what
//! they print against the page's members ([`watchlab_etcd_api::ClusterEtcd`]).

/// Which etcd tool a line runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EtcdTool {
    Etcdctl,
    Etcdutl,
}

/// The tool an etcd command line runs and its words after the tool's name (an
/// `ETCDCTL_API=3` before it is accepted, as the CKA material writes it), or `None` for any
/// other line.
pub fn etcd_tool(words: &[String]) -> Option<(EtcdTool, &[String])> {
    let words = match words.first().map(String::as_str) {
        Some("ETCDCTL_API=3") => &words[1..],
        _ => words,
    };
    let tool = match words.first().map(String::as_str) {
        Some("etcdctl") => EtcdTool::Etcdctl,
        Some("etcdutl") => EtcdTool::Etcdutl,
        _ => return None,
    };
    Some((tool, &words[1..]))
}

#[cfg(test)]
mod tests {
    use crate::console::{Console, LineKind};
    use watchlab_engine::cluster::ClusterConfig;
    use watchlab_engine::cluster::{Action, Cluster};
    use watchlab_etcd_api::ClusterEtcd;

    fn run(console: &mut Console, cluster: &mut Cluster, line: &str) -> (String, String) {
        let before = console.lines().len();
        console.run_etcdctl(line, &mut ClusterEtcd { cluster });
        printed_since(console, before)
    }

    /// What the followed `etcdctl watch` printed on one poll.
    fn poll(console: &mut Console, cluster: &mut Cluster) -> (String, String) {
        let before = console.lines().len();
        console.poll_etcd(&mut ClusterEtcd { cluster });
        printed_since(console, before)
    }

    fn kubectl(console: &mut Console, cluster: &mut Cluster, line: &str) {
        console.run(line, &mut cluster.session("kubectl"));
    }

    fn advance(cluster: &mut Cluster, ms: u64) {
        let t = cluster.now().plus_millis(ms);
        cluster.advance_to(t);
    }

    fn printed_since(console: &Console, before: usize) -> (String, String) {
        let text = |kind: LineKind| {
            console
                .lines()
                .iter()
                .skip(before)
                .filter(|l| l.kind == kind)
                .map(|l| format!("{}\n", l.text))
                .collect::<String>()
        };
        (text(LineKind::Stdout), text(LineKind::Stderr))
    }

    fn cluster() -> Cluster {
        let mut c = Cluster::new(ClusterConfig::default());
        let t = c.now().plus_secs(10);
        c.advance_to(t);
        c
    }

    #[test]
    fn get_keys_only_lists_the_registry_with_etcdctls_blank_lines() {
        let mut c = cluster();
        let mut console = Console::new();
        assert!(Console::is_etcdctl("ETCDCTL_API=3 etcdctl get / --prefix"));
        assert!(!Console::is_etcdctl("kubectl get pods"));
        assert!(Console::is_etcdctl("etcdutl snapshot status backup.db"));
        let (out, err) = run(
            &mut console,
            &mut c,
            "ETCDCTL_API=3 etcdctl get /registry/namespaces --prefix --keys-only",
        );
        assert_eq!(err, "");
        assert!(
            out.starts_with(
                "/registry/namespaces/default\n\n/registry/namespaces/kube-node-lease\n\n"
            ),
            "{out}"
        );
        let (out, _) = run(
            &mut console,
            &mut c,
            "etcdctl get /registry/namespaces/default --print-value-only",
        );
        assert!(out.starts_with("{\"kind\":\"Namespace\""), "{out}");
        // A pod's mod_revision is its resourceVersion.
        let (json, _) = run(
            &mut console,
            &mut c,
            "etcdctl get /registry/namespaces/default -w json",
        );
        let v: serde_json::Value = serde_json::from_str(json.trim()).unwrap();
        let rv = c
            .api()
            .peek(watchlab_engine::api::Kind::Namespace, None, "default")
            .unwrap()
            .meta()
            .resource_version
            .clone();
        assert_eq!(v["kvs"][0]["mod_revision"].to_string(), rv);
        assert_eq!(
            console.history_prev().as_deref(),
            Some("etcdctl get /registry/namespaces/default -w json")
        );
        let (out, _) = run(
            &mut console,
            &mut c,
            "etcdctl get /registry/namespaces/default /registry/namespaces/kube-public --keys-only",
        );
        assert_eq!(
            out,
            "/registry/namespaces/default\n\n/registry/namespaces/kube-node-lease\n\n"
        );
        let (out, _) = run(
            &mut console,
            &mut c,
            "etcdctl get /registry/namespaces/kube-system --from-key --keys-only --limit 1",
        );
        assert_eq!(out, "/registry/namespaces/kube-system\n\n");
        let (out, _) = run(
            &mut console,
            &mut c,
            "etcdctl get /registry/namespaces --prefix --count-only",
        );
        assert_eq!(out, "5\n", "the four system namespaces and production");
    }

    #[test]
    fn member_list_and_endpoint_status_name_the_members_and_the_leader() {
        let mut c = cluster();
        let mut console = Console::new();
        let (out, _) = run(&mut console, &mut c, "etcdctl member list");
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines.len(), 3);
        assert!(
            lines[0].ends_with(
                ", started, etcd-0, http://127.0.0.1:2380, http://127.0.0.1:2379, false"
            ),
            "{out}"
        );
        assert!(lines[1].contains("http://127.0.0.1:22379"), "{out}");
        let (table, err) = run(
            &mut console,
            &mut c,
            "etcdctl endpoint status --cluster -w table",
        );
        assert_eq!(err, "");
        let rows: Vec<&str> = table.lines().collect();
        assert!(
            rows[1].contains("ENDPOINT") && rows[1].contains("RAFT APPLIED INDEX"),
            "{table}"
        );
        // Every cell right-aligned (etcdctl sets ALIGN_RIGHT): the shorter URL is padded left.
        assert!(
            rows[3].starts_with("|  http://127.0.0.1:2379 |") && rows[3].contains("|      true |"),
            "{table}"
        );
        assert!(rows[4].contains("|     false |"), "{table}");
    }

    #[test]
    fn an_isolated_member_serves_stale_serializable_reads_and_no_linearizable_ones() {
        let mut c = cluster();
        let mut console = Console::new();
        c.apply(Action::IsolateEtcdMember("etcd-2".into())).unwrap();
        let key = "/registry/namespaces/default";
        let at = "--endpoints=127.0.0.1:32379";
        let (before, _) = run(
            &mut console,
            &mut c,
            &format!("etcdctl {at} get {key} -w json --consistency=s"),
        );
        let rev = |json: &str| {
            serde_json::from_str::<serde_json::Value>(json.trim()).unwrap()["header"]["revision"]
                .as_i64()
        };
        let stale = rev(&before);
        // The others go on writing (node leases every few seconds).
        let t = c.now().plus_secs(30);
        c.advance_to(t);
        let (after, _) = run(
            &mut console,
            &mut c,
            &format!("etcdctl {at} get {key} -w json --consistency=s"),
        );
        assert_eq!(
            rev(&after),
            stale,
            "the isolated member applied nothing new"
        );
        assert!(c.api().revision() as i64 > stale.unwrap());
        let (out, err) = run(&mut console, &mut c, &format!("etcdctl {at} get {key}"));
        assert_eq!(
            (out.as_str(), err.as_str()),
            ("", "Error: context deadline exceeded\n")
        );
        let (out, _) = run(
            &mut console,
            &mut c,
            &format!("etcdctl get {key} --consistency=l --keys-only"),
        );
        assert_eq!(out, format!("{key}\n\n"), "the leader's side answers");
        let (_, err) = run(
            &mut console,
            &mut c,
            &format!("etcdctl {at} endpoint health"),
        );
        assert_eq!(
            err,
            "127.0.0.1:32379 is unhealthy: failed to commit proposal: context deadline exceeded\nError: unhealthy cluster\n"
        );
    }

    #[test]
    fn move_leader_hands_over_and_bad_input_is_refused() {
        let mut c = cluster();
        let mut console = Console::new();
        let target = c.etcd().members()[1].id;
        let from = c.etcd().members()[0].id;
        let (out, err) = run(
            &mut console,
            &mut c,
            &format!("etcdctl move-leader {target:x}"),
        );
        assert_eq!(err, "");
        assert_eq!(
            out,
            format!("Leadership transferred from {from:x} to {target:x}\n")
        );
        assert_eq!(c.etcd().leader().map(|m| m.name.as_str()), Some("etcd-1"));
        let (_, err) = run(&mut console, &mut c, "etcdctl move-leader zz");
        assert_eq!(
            err,
            "Error: strconv.ParseUint: parsing \"zz\": invalid syntax\n"
        );
        let (_, err) = run(&mut console, &mut c, "etcdctl get");
        assert_eq!(
            err,
            "Error: get command needs one argument as key and an optional argument as range_end\n"
        );
        let (_, err) = run(&mut console, &mut c, "etcdctl get k --bogus");
        assert_eq!(err, "Error: unknown flag: --bogus\n");
        let (_, err) = run(&mut console, &mut c, "etcdctl frobnicate");
        assert_eq!(err, "Error: unknown command \"frobnicate\" for \"etcdctl\"\nRun 'etcdctl --help' for usage.\n");
    }

    /// What the raft lab and the page's e2e test show: a create sent while the leader is cut
    /// off lands in that leader's log only, times out, and is struck through there; a `kubectl
    /// label` would not get that far (its GET is a quorum read, which times out first).
    #[test]
    fn a_write_to_an_isolated_leader_stays_in_its_log_until_the_heal_overwrites_it() {
        let mut c = cluster();
        let mut console = Console::new();
        c.apply(Action::IsolateEtcdMember("etcd-0".into())).unwrap();
        let before = console.lines().len();
        console.run(
            "kubectl create namespace isolated",
            &mut c.session("kubectl"),
        );
        let printed: Vec<_> = console
            .lines()
            .iter()
            .skip(before)
            .map(|l| l.text.clone())
            .collect();
        assert_eq!(
            printed.last().map(String::as_str),
            Some("Error from server: etcdserver: request timed out")
        );
        let abandoned = |c: &Cluster| {
            c.etcd().picture().members[0]
                .tail
                .iter()
                .filter(|e| matches!(e.kind, watchlab_engine::etcd::log::EntryKind::Abandoned(_)))
                .count()
        };
        assert_eq!(abandoned(&c), 1, "the leader's own log holds it");
        let t = c.now().plus_secs(5);
        c.advance_to(t);
        assert_ne!(c.etcd().leader().map(|m| m.name.as_str()), Some("etcd-0"));
        c.apply(Action::HealEtcd(None)).unwrap();
        let t = c.now().plus_secs(3);
        c.advance_to(t);
        assert_eq!(abandoned(&c), 0, "the new leader's log overwrote it");
        let before = console.lines().len();
        console.run("kubectl get namespace isolated", &mut c.session("kubectl"));
        assert_eq!(
            console.lines()[before + 1].text,
            "Error from server (NotFound): namespaces \"isolated\" not found",
            "no client ever saw the abandoned write"
        );
    }

    #[test]
    fn watch_prints_each_change_as_the_member_applies_it_until_ctrl_c() {
        let mut c = cluster();
        let mut console = Console::new();
        let mut shell = Console::new();
        let key = "/registry/namespaces/team-a";
        let (out, err) = run(
            &mut console,
            &mut c,
            &format!("etcdctl watch {key} --prev-kv"),
        );
        assert_eq!((out.as_str(), err.as_str()), ("", ""), "nothing yet");
        assert!(console.following());
        kubectl(&mut shell, &mut c, "kubectl create namespace team-a");
        let (out, _) = poll(&mut console, &mut c);
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines[..2], ["PUT", key]);
        assert!(lines[2]
            .starts_with(r#"{"kind":"Namespace","apiVersion":"v1","metadata":{"name":"team-a""#));
        assert!(
            !lines[2].contains("resourceVersion"),
            "the stored JSON carries no resourceVersion (the key's mod_revision is it)"
        );
        kubectl(
            &mut shell,
            &mut c,
            "kubectl label namespace team-a tier=gold",
        );
        let (out, _) = poll(&mut console, &mut c);
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(
            lines.len(),
            5,
            "PUT, then the previous key and value, then the new: {out}"
        );
        assert_eq!((lines[0], lines[1], lines[3]), ("PUT", key, key));
        assert!(!lines[2].contains("gold") && lines[4].contains(r#""tier":"gold""#));
        // Only the watched key: another namespace passes unseen.
        kubectl(&mut shell, &mut c, "kubectl create namespace team-b");
        assert_eq!(poll(&mut console, &mut c), (String::new(), String::new()));
        console.interrupt(&mut c.session("kubectl"));
        assert!(!console.following());
        kubectl(
            &mut shell,
            &mut c,
            "kubectl label namespace team-a tier=silver --overwrite",
        );
        assert_eq!(
            poll(&mut console, &mut c),
            (String::new(), String::new()),
            "Ctrl-C ended it"
        );
    }

    #[test]
    fn watch_from_a_revision_replays_history_and_a_compacted_one_is_cancelled() {
        let mut c = cluster();
        let mut console = Console::new();
        let mut shell = Console::new();
        kubectl(&mut shell, &mut c, "kubectl create namespace team-a");
        let created = c.api().revision();
        kubectl(&mut shell, &mut c, "kubectl delete namespace team-a");
        advance(&mut c, 5_000);
        let (out, err) = run(
            &mut console,
            &mut c,
            &format!("etcdctl watch --rev={created} /registry/namespaces/team-a -w json"),
        );
        assert_eq!(err, "");
        let responses: Vec<serde_json::Value> = out
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(responses.len(), 1, "one response with the history: {out}");
        assert!(out.starts_with(r#"{"Header":{"cluster_id":"#));
        assert!(out.ends_with(",\"CompactRevision\":0,\"Canceled\":false,\"Created\":false}\n"));
        let events = responses[0]["Events"].as_array().unwrap();
        assert_eq!(events[0]["kv"]["mod_revision"], created);
        assert_eq!(events[0].get("type"), None, "a PUT's type is 0, left out");
        let last = events.last().unwrap();
        assert_eq!(last["type"], 1, "the namespace controller's delete");
        assert_eq!(last["kv"].get("value"), None, "a delete carries no value");
        console.interrupt(&mut c.session("kubectl"));

        let now = c.api().revision();
        let (out, err) = run(&mut console, &mut c, &format!("etcdctl compaction {now}"));
        assert_eq!(
            (out, err),
            (format!("compacted revision {now}\n"), String::new())
        );
        let (_, err) = run(&mut console, &mut c, &format!("etcdctl compaction {now}"));
        assert_eq!(
            err,
            "Error: etcdserver: mvcc: required revision has been compacted\n"
        );
        let (_, err) = run(
            &mut console,
            &mut c,
            &format!("etcdctl compaction {}", now + 100),
        );
        assert_eq!(
            err,
            "Error: etcdserver: mvcc: required revision is a future revision\n"
        );
        let (_, err) = run(&mut console, &mut c, "etcdctl compaction");
        assert_eq!(err, "Error: compaction command needs 1 argument\n");
        let (out, err) = run(
            &mut console,
            &mut c,
            &format!("etcdctl watch --rev={created} /registry/namespaces/team-a"),
        );
        assert_eq!(out, "");
        assert_eq!(
            err,
            "watch was canceled (etcdserver: mvcc: required revision has been compacted)\nError: watch is canceled by the server\n"
        );
        assert!(!console.following());
        // The API server's own reads from before the compaction now answer 410.
        let r = watchlab_apimachinery::client::ApiClient::request(
            &mut c.session("kubectl"),
            "GET",
            &format!(
                "/api/v1/namespaces?limit=1&resourceVersion={created}&resourceVersionMatch=Exact"
            ),
            None,
            None,
        );
        assert_eq!(r.code, 410);
    }

    #[test]
    fn a_watch_on_a_member_cut_off_goes_quiet_then_is_cancelled_for_want_of_a_leader() {
        let mut c = cluster();
        let mut console = Console::new();
        let mut shell = Console::new();
        let at = "--endpoints=127.0.0.1:32379";
        run(
            &mut console,
            &mut c,
            &format!("etcdctl {at} watch /registry/namespaces/ --prefix"),
        );
        c.apply(Action::IsolateEtcdMember("etcd-2".into())).unwrap();
        kubectl(&mut shell, &mut c, "kubectl create namespace team-a");
        advance(&mut c, 500);
        assert_eq!(
            poll(&mut console, &mut c),
            (String::new(), String::new()),
            "etcd-2 applied nothing new"
        );
        // Its election timeout (1–2 s) leaves it without a leader; three more election
        // timeouts and it cancels the watch.
        advance(&mut c, 3_000);
        assert_eq!(poll(&mut console, &mut c).1, "");
        advance(&mut c, 3_000);
        let (_, err) = poll(&mut console, &mut c);
        assert_eq!(
            err,
            "watch was canceled (etcdserver: no leader)\nError: watch is canceled by the server\n"
        );
        assert!(!console.following());
        // A new one is refused at once while it has no leader.
        let (_, err) = run(&mut console, &mut c, &format!("etcdctl {at} watch k"));
        assert_eq!(
            err,
            "watch was canceled (etcdserver: no leader)\nError: watch is canceled by the server\n"
        );
        // Healed, it catches up and a watch from a past revision shows what it missed.
        c.apply(Action::HealEtcd(None)).unwrap();
        advance(&mut c, 1_000);
        let (out, err) = run(
            &mut console,
            &mut c,
            &format!("etcdctl {at} watch --rev=1 /registry/namespaces/team-a"),
        );
        assert_eq!(err, "");
        assert!(
            out.starts_with("PUT\n/registry/namespaces/team-a\n"),
            "{out}"
        );
    }

    fn kubectl_out(console: &mut Console, cluster: &mut Cluster, line: &str) -> String {
        let before = console.lines().len();
        kubectl(console, cluster, line);
        let (out, err) = printed_since(console, before);
        out.strip_prefix(&format!("$ {line}\n"))
            .unwrap_or(&out)
            .to_string()
            + &err
    }

    #[test]
    fn put_and_del_write_around_the_api_server_which_sees_them_on_its_watch() {
        let mut c = cluster();
        let mut console = Console::new();
        let mut shell = Console::new();
        let key = "/registry/configmaps/default/from-etcd";
        let value = r#"{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"from-etcd","namespace":"default"},"data":{"colour":"blue"}}"#;
        let (out, err) = run(
            &mut console,
            &mut c,
            &format!("etcdctl put {key} '{value}'"),
        );
        assert_eq!((out.as_str(), err.as_str()), ("OK\n", ""));
        let written = c.api().revision();
        assert_eq!(
            kubectl_out(
                &mut shell,
                &mut c,
                "kubectl get configmap from-etcd -o jsonpath={.data.colour}"
            ),
            "blue\n"
        );
        let last = c.api().ledger().iter().last().unwrap().clone();
        assert_eq!(
            (last.revision, &*last.user, last.verb),
            (written, "etcdctl", "put")
        );
        let (out, _) = run(
            &mut console,
            &mut c,
            &format!(
                "etcdctl put --prev-kv {key} '{}'",
                value.replace("blue", "red")
            ),
        );
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines[..2], ["OK", key]);
        assert!(lines[2].contains(r#""colour":"blue""#));
        assert_eq!(
            kubectl_out(
                &mut shell,
                &mut c,
                "kubectl get configmap from-etcd -o jsonpath={.data.colour}"
            ),
            "red\n"
        );

        // Refused, and nothing written.
        let at = c.api().revision();
        for (line, text) in [
            ("etcdctl put /fruit apple".to_string(), "Error: this etcd holds the API server's objects only: \"/fruit\" names no served resource (keys are /registry/<resource>/[<namespace>/]<name>)\n"),
            (format!("etcdctl put {key} not-json"), "Error: couldn't get version/kind; json parse error: expected ident at line 1 column 2\n"),
            (format!("etcdctl put /registry/configmaps/default/other '{value}'"), "Error: the value is default/from-etcd but the key names default/other: the API server would serve it under the key's name\n"),
            (format!("etcdctl put {key}"), "Error: put command needs 1 argument and input from stdin or 2 arguments\n"),
            ("etcdctl del".to_string(), "Error: del command needs one argument as key and an optional argument as range_end\n"),
        ] {
            assert_eq!(run(&mut console, &mut c, &line).1, text, "{line}");
        }
        assert_eq!(c.api().revision(), at);

        let (out, err) = run(
            &mut console,
            &mut c,
            "etcdctl del /registry/configmaps/default/ --prefix --prev-kv",
        );
        assert_eq!(err, "");
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines[..2], ["1", key], "{out}");
        assert_eq!(
            kubectl_out(&mut shell, &mut c, "kubectl get configmap from-etcd"),
            "Error from server (NotFound): configmaps \"from-etcd\" not found\n"
        );
        assert_eq!(
            run(&mut console, &mut c, &format!("etcdctl del {key}")).0,
            "0\n"
        );
        // A member cut off cannot commit: etcdctl's deadline runs out first.
        c.apply(Action::IsolateEtcdMember("etcd-2".into())).unwrap();
        let (_, err) = run(
            &mut console,
            &mut c,
            &format!("etcdctl --endpoints=127.0.0.1:32379 put {key} '{value}'"),
        );
        assert_eq!(err, "Error: context deadline exceeded\n");
    }

    #[test]
    fn a_key_put_with_a_lease_goes_when_the_lease_expires_or_is_revoked() {
        let mut c = cluster();
        let mut console = Console::new();
        let mut shell = Console::new();
        let (out, err) = run(&mut console, &mut c, "etcdctl lease grant 30");
        assert_eq!(err, "");
        let id = out
            .strip_prefix("lease ")
            .and_then(|r| r.strip_suffix(" granted with TTL(30s)\n"))
            .unwrap_or_else(|| panic!("{out}"))
            .to_string();
        assert_eq!(id.len(), 16);
        let key = "/registry/configmaps/default/short-lived";
        let value = r#"{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"short-lived"}}"#;
        let (out, err) = run(
            &mut console,
            &mut c,
            &format!("etcdctl put --lease={id} {key} '{value}'"),
        );
        assert_eq!((out.as_str(), err.as_str()), ("OK\n", ""));
        advance(&mut c, 10_000);
        let (out, _) = run(
            &mut console,
            &mut c,
            &format!("etcdctl lease timetolive {id} --keys"),
        );
        assert_eq!(
            out,
            format!("lease {id} granted with TTL(30s), remaining(20s), attached keys([{key}])\n")
        );
        let (out, _) = run(&mut console, &mut c, "etcdctl lease list");
        assert!(
            out.starts_with("found ") && out.contains(&format!("\n{id}\n")),
            "{out}"
        );
        let (out, _) = run(
            &mut console,
            &mut c,
            &format!("etcdctl lease keep-alive --once {id}"),
        );
        assert_eq!(out, format!("lease {id} keepalived with TTL(30)\n"));
        advance(&mut c, 25_000);
        assert_eq!(
            kubectl_out(
                &mut shell,
                &mut c,
                "kubectl get configmap short-lived -o name"
            ),
            "configmap/short-lived\n",
            "kept alive 10 s in: 30 s from then"
        );
        advance(&mut c, 10_000);
        assert_eq!(
            kubectl_out(&mut shell, &mut c, "kubectl get configmap short-lived"),
            "Error from server (NotFound): configmaps \"short-lived\" not found\n",
            "the lease expired and took the key"
        );
        let (out, _) = run(
            &mut console,
            &mut c,
            &format!("etcdctl lease timetolive {id}"),
        );
        assert_eq!(out, format!("lease {id} already expired\n"));
        let (_, err) = run(&mut console, &mut c, &format!("etcdctl lease revoke {id}"));
        assert_eq!(
            err,
            "Error: failed to revoke lease (etcdserver: requested lease not found)\n"
        );
        let (_, err) = run(
            &mut console,
            &mut c,
            &format!("etcdctl put --lease={id} {key} '{value}'"),
        );
        assert_eq!(err, "Error: etcdserver: requested lease not found\n");
        let (_, err) = run(&mut console, &mut c, "etcdctl lease revoke xyz");
        assert_eq!(err, "Error: bad lease ID arg (strconv.ParseInt: parsing \"xyz\": invalid syntax), expecting ID in Hex\n");
        let (_, err) = run(&mut console, &mut c, "etcdctl lease grant");
        assert_eq!(err, "Error: lease grant command needs TTL argument\n");
        // Revoked by hand, a lease takes its keys at once.
        let (out, _) = run(&mut console, &mut c, "etcdctl lease grant 600");
        let id = out[6..22].to_string();
        run(
            &mut console,
            &mut c,
            &format!("etcdctl put --lease={id} {key} '{value}'"),
        );
        let (out, _) = run(&mut console, &mut c, &format!("etcdctl lease revoke {id}"));
        assert_eq!(out, format!("lease {id} revoked\n"));
        assert_eq!(
            run(
                &mut console,
                &mut c,
                &format!("etcdctl get {key} --count-only")
            )
            .0,
            "0\n"
        );
    }

    /// The CKA's backup and restore: the snapshot brings back what was deleted after it and
    /// drops what was created, at its resourceVersions; the revision is bumped and marked
    /// compacted, so every informer lists again and the controllers converge on it.
    #[test]
    fn a_snapshot_restored_brings_the_cluster_back_to_it() {
        let mut c = cluster();
        let mut console = Console::new();
        let mut shell = Console::new();
        let (out, err) = run(
            &mut console,
            &mut c,
            "etcdctl snapshot save /backup/etcd.db",
        );
        assert_eq!(
            (out.as_str(), err.as_str()),
            ("Snapshot saved at /backup/etcd.db\n", "")
        );
        let (out, _) = run(
            &mut console,
            &mut c,
            "etcdutl snapshot status /backup/etcd.db -w table",
        );
        let row: Vec<&str> = out.lines().nth(3).unwrap_or_default().split('|').collect();
        let taken: u64 = row[2].trim().parse().expect("REVISION");
        assert_eq!(taken, c.api().revision(), "{out}");
        let rv_before = kubectl_out(
            &mut shell,
            &mut c,
            "kubectl get deployment orders-api -n production -o jsonpath={.metadata.resourceVersion}",
        );

        kubectl(
            &mut shell,
            &mut c,
            "kubectl delete deployment orders-api -n production",
        );
        kubectl(&mut shell, &mut c, "kubectl create namespace after-backup");
        advance(&mut c, 30_000);
        assert!(
            kubectl_out(&mut shell, &mut c, "kubectl get pods -n production")
                .starts_with("No resources found")
        );

        let (_, err) = run(
            &mut console,
            &mut c,
            "etcdutl snapshot restore /backup/etcd.db --data-dir /var/lib/etcd-restore",
        );
        assert!(
            err.starts_with(
                "Error: this page restores with --bump-revision N --mark-compacted only"
            ),
            "{err}"
        );
        let (_, err) = run(
            &mut console,
            &mut c,
            "etcdutl snapshot restore /backup/etcd.db --bump-revision 1000",
        );
        assert_eq!(
            err,
            "Error: --mark-compacted required if --revision-bump > 0\n"
        );
        let (_, err) = run(
            &mut console,
            &mut c,
            "etcdutl snapshot restore /nope.db --bump-revision 1000 --mark-compacted",
        );
        assert_eq!(err, "Error: stat /nope.db: no such file or directory\n");

        let (out, err) = run(
            &mut console,
            &mut c,
            "etcdutl snapshot restore /backup/etcd.db --data-dir /var/lib/etcd-restore --bump-revision 1000000000 --mark-compacted",
        );
        assert_eq!(err, "");
        assert!(
            out.starts_with("restored snapshot /backup/etcd.db"),
            "{out}"
        );
        assert_eq!(c.api().revision(), taken + 1_000_000_000);
        assert_eq!(
            kubectl_out(
                &mut shell,
                &mut c,
                "kubectl get deployment orders-api -n production -o jsonpath={.metadata.resourceVersion}",
            ),
            rv_before,
            "back, at its resourceVersion"
        );
        assert_eq!(
            kubectl_out(&mut shell, &mut c, "kubectl get namespace after-backup"),
            "Error from server (NotFound): namespaces \"after-backup\" not found\n"
        );
        // The informers list again (their watches from before answer 410) and the controllers
        // and kubelets converge on what the snapshot holds. (A kubelet finds its pods Running
        // with their IPs and adopts them, as after its own restart: the page keeps no
        // container runtime that a real restore would find empty.)
        let expired = |c: &Cluster| c.informers().iter().map(|i| i.expired).sum::<u64>();
        let before = expired(&c);
        advance(&mut c, 60_000);
        assert!(
            expired(&c) > before,
            "the informers' watches from before the restore got 410"
        );
        let pods = kubectl_out(
            &mut shell,
            &mut c,
            "kubectl get pods -n production --no-headers",
        );
        let running = pods.lines().filter(|l| l.contains("Running")).count();
        assert_eq!(running, 3, "{pods}");
        assert!(
            c.api().revision() > taken + 1_000_000_000,
            "the cluster writes on"
        );
    }

    /// A watch from an old revision catches up in batches of whole revisions, the next poll
    /// going on where the last stopped, nothing lost or repeated.
    #[test]
    fn a_watch_from_long_ago_catches_up_in_batches() {
        let mut c = cluster();
        let mut console = Console::new();
        let first = c.api().revision() + 1;
        for i in 0..1_500 {
            let value =
                format!(r#"{{"apiVersion":"v1","kind":"ConfigMap","metadata":{{"name":"c{i}"}}}}"#);
            c.apply(Action::EtcdPut {
                member: "etcd-0".into(),
                key: format!("/registry/configmaps/default/c{i}"),
                value,
                lease: None,
            })
            .unwrap();
        }
        let (out, _) = run(
            &mut console,
            &mut c,
            &format!("etcdctl watch /registry/configmaps/ --prefix --rev={first}"),
        );
        let puts = |out: &str| out.lines().filter(|l| *l == "PUT").count();
        assert_eq!(puts(&out), 1_000, "the first batch");
        // (The scrollback keeps 3,000 lines: emptied, it shows the next poll alone.)
        console.clear();
        let (more, _) = poll(&mut console, &mut c);
        assert_eq!(puts(&more), 500, "the rest, on the next poll");
        assert!(more.starts_with("PUT\n/registry/configmaps/default/c1000\n"));
        assert_eq!(poll(&mut console, &mut c).0, "");
    }

    /// etcd's space quota, as an administrator meets it: NOSPACE raised, puts refused even
    /// after compaction, until `alarm disarm`.
    #[test]
    fn a_spent_space_quota_raises_nospace_until_it_is_disarmed() {
        let used = cluster().api().store().bytes_in_use();
        let mut c = Cluster::new(ClusterConfig {
            quota_backend_bytes: used + 8 * 1024,
            ..ClusterConfig::default()
        });
        advance(&mut c, 10_000);
        let mut console = Console::new();
        let value = r#"{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"big"},"data":{"blob":"BLOB"}}"#
            .replace("BLOB", &"x".repeat(12 * 1024));
        let put = format!("etcdctl put /registry/configmaps/default/big '{value}'");
        let (_, err) = run(&mut console, &mut c, &put);
        assert_eq!(err, "Error: etcdserver: mvcc: database space exceeded\n");
        let (out, _) = run(&mut console, &mut c, "etcdctl alarm list");
        let id = c.etcd().members()[0].id;
        assert_eq!(out, format!("memberID:{id} alarm:NOSPACE \n"));
        let (out, _) = run(&mut console, &mut c, "etcdctl endpoint status");
        assert!(
            out.ends_with(&format!(", memberID:{id} alarm:NOSPACE \n")),
            "{out}"
        );
        // Compaction frees the history, and puts are still refused.
        let now = c.api().revision();
        run(&mut console, &mut c, &format!("etcdctl compaction {now}"));
        let small = r#"{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"small"}}"#;
        let small_put = format!("etcdctl put /registry/configmaps/default/small '{small}'");
        let (_, err) = run(&mut console, &mut c, &small_put);
        assert_eq!(err, "Error: etcdserver: mvcc: database space exceeded\n");
        let (out, _) = run(&mut console, &mut c, "etcdctl defrag");
        assert_eq!(out, "Finished defragmenting etcd member[127.0.0.1:2379]\n");
        let (out, _) = run(&mut console, &mut c, "etcdctl alarm disarm");
        assert_eq!(out, format!("memberID:{id} alarm:NOSPACE \n"));
        assert_eq!(run(&mut console, &mut c, "etcdctl alarm list").0, "");
        assert_eq!(run(&mut console, &mut c, &small_put).0, "OK\n");
        let (_, err) = run(&mut console, &mut c, "etcdctl alarm list extra");
        assert_eq!(err, "Error: alarm list command accepts no arguments\n");
    }

    /// `etcdctl txn -i`, typed line by line: the compare chooses the branch, the branch's
    /// writes land at one revision, and a second run takes the other branch.
    #[test]
    fn txn_reads_its_lists_from_the_next_lines_and_writes_at_one_revision() {
        let mut c = cluster();
        let mut console = Console::new();
        let cm = |name: &str| {
            format!(r#"'{{"apiVersion":"v1","kind":"ConfigMap","metadata":{{"name":"{name}"}}}}'"#)
        };
        let lines = [
            r#"mod("/registry/configmaps/default/a") = "0""#.to_string(),
            String::new(),
            format!("put /registry/configmaps/default/a {}", cm("a")),
            format!("put /registry/configmaps/default/b {}", cm("b")),
            String::new(),
            "get /registry/configmaps/default/a".to_string(),
            String::new(),
        ];
        let typed = |console: &mut Console, c: &mut Cluster| {
            let (out, _) = run(console, c, "etcdctl txn -i");
            assert_eq!(out, "compares:\n");
            let mut printed = String::new();
            for line in &lines {
                let before = console.lines().len();
                console.feed_etcd(line, &mut ClusterEtcd { cluster: c });
                printed.push_str(&printed_since(console, before).0);
            }
            assert!(!console.prompting_etcd());
            printed
        };
        let out = typed(&mut console, &mut c);
        assert_eq!(
            out,
            "success requests (get, put, del):\nfailure requests (get, put, del):\nSUCCESS\n\nOK\n\nOK\n"
        );
        let a = c
            .api()
            .store()
            .get("/registry/configmaps/default/a")
            .unwrap()
            .mod_revision;
        let b = c
            .api()
            .store()
            .get("/registry/configmaps/default/b")
            .unwrap()
            .mod_revision;
        assert_eq!(a, b, "one revision");
        let out = typed(&mut console, &mut c);
        assert!(
            out.contains("FAILURE\n\n/registry/configmaps/default/a\n{\"kind\":\"ConfigMap\""),
            "{out}"
        );
        // A line that is no compare ends the txn with etcdctl's error.
        run(&mut console, &mut c, "etcdctl txn");
        let before = console.lines().len();
        console.feed_etcd("size(\"a\") = \"1\"", &mut ClusterEtcd { cluster: &mut c });
        assert_eq!(
            printed_since(&console, before).1,
            "Error: malformed comparison: size(\"a\") = \"1\" (unknown target size)\n"
        );
        assert!(!console.prompting_etcd());
        // Ctrl-C ends a txn still reading its lines.
        run(&mut console, &mut c, "etcdctl txn -i");
        assert!(console.prompting_etcd());
        console.interrupt(&mut c.session("kubectl"));
        assert!(!console.prompting_etcd());
    }
}
