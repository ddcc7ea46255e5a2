//! A file that is not a sound journal is refused with a clear message, never restored into a
//! different cluster and never a panic: corrupt JSON, someone else's JSON, another version, a
//! bad config, tampered inputs; and arbitrary or mutated text (proptest).

use proptest::prelude::*;
use serde_json::{json, Value};
use watchlab_apimachinery::client::ApiClient;
use watchlab_engine::cluster::{Action, Cluster, ClusterConfig};
use watchlab_engine::journal::{history_digest, JournalError, MAX_BYTES};

/// A short session with a few kinds of input, cheap to replay.
fn small_session() -> Cluster {
    let mut c = Cluster::new(ClusterConfig {
        nodes: vec!["node-a".into(), "node-b".into()],
        seed_objects: false,
        ..ClusterConfig::default()
    });
    let t = c.now().plus_secs(5);
    c.advance_to(t);
    c.apply(Action::CreateDeployment {
        namespace: "default".into(),
        name: "web".into(),
        image: "nginx:1.27".into(),
        replicas: 2,
        labels: vec![],
    })
    .unwrap();
    let id = c
        .session("kubectl")
        .watch("/api/v1/namespaces/default/pods?watch=true")
        .unwrap();
    let t = c.now().plus_secs(10);
    c.advance_to(t);
    c.apply(Action::KillNode("node-b".into())).unwrap();
    let mut s = c.session("kubectl");
    assert!(s.poll_watch(id).is_some());
    let r = s.request(
        "DELETE",
        "/apis/apps/v1/namespaces/default/deployments/web",
        None,
        None,
    );
    assert_eq!(r.code, 200, "{}", r.body);
    let t = c.now().plus_secs(5);
    c.advance_to(t);
    c
}

fn small_journal() -> Value {
    serde_json::from_str(&small_session().export().unwrap()).unwrap()
}

fn import_err(v: &Value) -> JournalError {
    Cluster::import(&v.to_string()).unwrap_err()
}

#[test]
fn the_small_session_restores() {
    let original = small_session();
    let restored = Cluster::import(&original.export().unwrap()).unwrap();
    assert_eq!(history_digest(&restored), history_digest(&original));
}

#[test]
fn corrupt_json_is_refused() {
    let text = small_session().export().unwrap();
    let err = Cluster::import(&text[..text.len() / 2]).unwrap_err();
    assert!(matches!(err, JournalError::NotJson(_)), "{err:?}");
    assert!(
        err.to_string()
            .starts_with("the cluster file is not valid JSON: EOF while parsing"),
        "{err}"
    );
    assert!(matches!(
        Cluster::import("").unwrap_err(),
        JournalError::NotJson(_)
    ));
}

#[test]
fn a_foreign_file_is_not_a_watchlab_cluster_file() {
    for text in [
        r#"{"name":"my-app","version":"1.0.0","dependencies":{}}"#,
        r#"{"apiVersion":"v1","kind":"Pod","metadata":{"name":"web"}}"#,
        r#"{"format":"watchlab-journal-2","version":1}"#,
        r#"{"format":1}"#,
        "[1,2,3]",
        "\"watchlab-journal\"",
        "42",
    ] {
        let err = Cluster::import(text).unwrap_err();
        assert_eq!(err, JournalError::Foreign, "{text}");
        assert_eq!(err.to_string(), "not a watchlab cluster file");
    }
}

#[test]
fn another_version_is_refused() {
    let mut v = small_journal();
    v["version"] = json!(2);
    assert_eq!(
        import_err(&v).to_string(),
        "unsupported watchlab cluster file version 2 (this version of watchlab reads version 1)"
    );
    v["version"] = json!("1");
    assert_eq!(
        import_err(&v),
        JournalError::UnsupportedVersion("\"1\"".into())
    );
}

#[test]
fn a_damaged_top_level_is_refused() {
    let mut v = small_journal();
    v["now_ms"] = json!(-5);
    assert!(matches!(import_err(&v), JournalError::Damaged(_)));
    let mut v = small_journal();
    v["extra"] = json!(true);
    assert!(import_err(&v)
        .to_string()
        .starts_with("the cluster file is damaged: unknown field `extra`"));
    let mut v = small_journal();
    v.as_object_mut().unwrap().remove("inputs");
    assert_eq!(
        import_err(&v).to_string(),
        "the cluster file is damaged: missing field `inputs`"
    );
}

#[test]
fn an_unsound_config_is_refused() {
    let cases: [(&str, Value, &str); 7] = [
        ("etcd_members", json!(4), "etcd_members must be 1, 3 or 5, not 4"),
        (
            "nodes",
            json!(["node-a", "Node_B"]),
            "Node \"Node_B\" is invalid: metadata.name: Invalid value: \"Node_B\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
        ),
        ("nodes", json!(["node-a", "node-a"]), "node \"node-a\" is listed twice"),
        (
            "nodes",
            json!((0..5001).map(|i| format!("n{i}")).collect::<Vec<_>>()),
            "5001 nodes (at most 5000)",
        ),
        ("etcd_members", json!(0), "etcd_members must be 1, 3 or 5, not 0"),
        (
            "quota_backend_bytes",
            json!(0),
            "quota_backend_bytes must be between 1 and 8589934592, not 0",
        ),
        (
            "quota_backend_bytes",
            json!(8589934593u64),
            "quota_backend_bytes must be between 1 and 8589934592, not 8589934593",
        ),
    ];
    for (field, value, message) in cases {
        let mut v = small_journal();
        v["config"][field] = value;
        assert_eq!(
            import_err(&v).to_string(),
            format!("the cluster file has an invalid configuration: {message}")
        );
    }
    let mut v = small_journal();
    v["config"]["profile"] = json!("fast");
    assert_eq!(
        import_err(&v).to_string(),
        "the cluster file is damaged: unknown profile \"fast\" (expected \"kubernetes\" or \"training\")"
    );
}

#[test]
fn a_tampered_input_is_refused() {
    // An action that does not exist.
    let mut v = small_journal();
    v["inputs"][0]["input"] = json!({"apply": {"ExplodeNode": "node-a"}});
    let err = import_err(&v);
    assert!(
        matches!(&err, JournalError::BadInput { index: 0, .. }),
        "{err:?}"
    );
    assert!(
        err.to_string()
            .starts_with("the cluster file is damaged: inputs[0]: unknown variant `ExplodeNode`"),
        "{err}"
    );
    // A kind the server does not serve: refused when replayed, in kubectl's words (a kind is
    // resolved on replay, as a custom kind exists only once its CRD input has replayed).
    let mut v = small_journal();
    v["inputs"][0]["input"] =
        json!({"apply": {"Delete": {"kind": "gadgets", "namespace": "default", "name": "x"}}});
    assert!(import_err(&v)
        .to_string()
        .contains("the server doesn't have a resource type \"gadgets\""));
    // Well-formed but not what happened: another node was killed.
    let mut v = small_journal();
    let kill = v["inputs"]
        .as_array()
        .unwrap()
        .iter()
        .position(|e| e["input"] == json!({"apply": {"KillNode": "node-b"}}))
        .unwrap();
    v["inputs"][kill]["input"]["apply"]["KillNode"] = json!("node-a");
    let err = import_err(&v);
    assert!(
        matches!(
            err,
            JournalError::Diverged { .. } | JournalError::DivergedAtEnd(_)
        ),
        "{err:?}"
    );
    assert!(err
        .to_string()
        .starts_with("the cluster file does not replay to the same cluster: "));
    // The saved ledger's fingerprint tampered with.
    let mut v = small_journal();
    v["ledger_fingerprint"] = json!("fnv1a64:0000000000000000");
    let err = import_err(&v).to_string();
    assert!(
        err.starts_with("the cluster file does not replay to the same cluster: at the end, the ledger is fnv1a64:")
            && err.contains("the file says fnv1a64:0000000000000000 at revision"),
        "{err}"
    );
    // A recorded answer that replay does not give.
    let mut v = small_journal();
    v["inputs"][0]["code"] = json!(409);
    assert_eq!(
        import_err(&v).to_string(),
        "the cluster file does not replay to the same cluster: inputs[0] (action CreateDeployment) answered 200 at revision 26, the file says 409 at revision 26"
    );
}

#[test]
fn inputs_out_of_time_order_are_refused() {
    let mut v = small_journal();
    v["inputs"][1]["at_ms"] = json!(0);
    assert_eq!(
        import_err(&v).to_string(),
        "the cluster file is damaged: inputs[1] is out of time order"
    );
    let mut v = small_journal();
    let now = v["now_ms"].as_u64().unwrap();
    let last = v["inputs"].as_array().unwrap().len() - 1;
    v["inputs"][last]["at_ms"] = json!(now + 1);
    assert_eq!(import_err(&v), JournalError::OutOfOrder { index: last });
}

#[test]
fn an_oversized_file_is_refused_before_parsing() {
    let text = " ".repeat(MAX_BYTES + 1);
    assert_eq!(
        Cluster::import(&text).unwrap_err().to_string(),
        "the cluster file is too large: 16777217 bytes (at most 16777216)"
    );
}

/// A valid journal's text with one span replaced by a short piece of JSON-ish text.
fn mutated(text: &str, at: usize, len: usize, with: &str) -> String {
    let bytes = text.as_bytes();
    let at = at % bytes.len();
    let end = (at + len).min(bytes.len());
    let mut out = bytes[..at].to_vec();
    out.extend_from_slice(with.as_bytes());
    out.extend_from_slice(&bytes[end..]);
    String::from_utf8_lossy(&out).into_owned()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn import_never_panics_on_arbitrary_text(text in "\\PC{0,200}") {
        prop_assert!(Cluster::import(&text).is_err());
    }

    #[test]
    fn import_never_panics_on_json_shaped_text(text in r#"[{}\[\]",:0-9a-z_ -]{0,120}"#) {
        let _ = Cluster::import(&format!(r#"{{"format":"watchlab-journal","version":1,{text}"#));
    }

    /// Any small edit of a valid file is refused or restores a cluster; never a panic. (Edits
    /// never insert digits, so times stay small and each replay cheap.)
    #[test]
    fn import_never_panics_on_a_mutated_journal(
        at in 0usize..100_000,
        len in 0usize..4,
        with in prop::sample::select(vec!["", "\"", "{", "}", "[", "]", ",", ":", "null", "true", "x", "-"]),
    ) {
        let text = small_session().export().unwrap();
        let edited = mutated(&text, at, len, with);
        if let Ok(c) = Cluster::import(&edited) {
            // Whatever was accepted replayed to what it recorded.
            prop_assert_eq!(c.journal().now_ms, c.now().as_millis());
            prop_assert_eq!(c.journal().revision, c.api().revision());
        }
    }
}
