//! "What did this object look like on page R?" — answered the way any client would ask the API
//! server: a LIST at `resourceVersion=R&resourceVersionMatch=Exact` narrowed to the one name by
//! `fieldSelector=metadata.name=...` (a GET cannot read a past revision). A compacted revision
//! answers with the server's own 410 text; a deletion shows the last state before it.

use serde_json::Value;
use watchlab_apimachinery::client::ApiClient;
use watchlab_apimachinery::request::percent_encode_query_value;
use watchlab_engine::apiserver::LedgerEntry;
use watchlab_kubectl::resources::Discovery;

/// What the object viewer shows for one ledger line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Inspection {
    pub revision: u64,
    /// `pods/production/debug-tools`.
    pub title: String,
    pub outcome: Inspected,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Inspected {
    /// The object's JSON at the revision, pretty-printed.
    Object(String),
    /// The write deleted the object; the JSON is its state one revision earlier.
    Deleted(String),
    /// The server refused the read (410 Gone after compaction, ...): its Status.
    Refused {
        code: u16,
        reason: String,
        message: String,
    },
}

/// Reads the object a ledger line wrote, at that line's revision.
pub fn inspect(entry: &LedgerEntry, client: &mut dyn ApiClient) -> Inspection {
    let plural = entry.resource.split('/').next().unwrap_or_default();
    let title = if entry.namespace().is_empty() {
        format!("{plural}/{}", entry.name())
    } else {
        format!("{plural}/{}/{}", entry.namespace(), entry.name())
    };
    // What the server serves now (custom resources included), as kubectl learns it.
    let served = Discovery::fetch(client)
        .ok()
        .and_then(|d| d.lookup(plural).cloned());
    let outcome = match served {
        None => Inspected::Refused {
            code: 404,
            reason: "NotFound".into(),
            message: format!("the server doesn't have a resource type \"{plural}\""),
        },
        Some(info) => {
            let ns = Some(entry.namespace()).filter(|n| !n.is_empty());
            let collection = info.collection_path(ns);
            match read_at(client, &collection, entry.name(), entry.revision) {
                Err(refused) => refused,
                Ok(Some(obj)) => Inspected::Object(obj),
                Ok(None) => match read_at(client, &collection, entry.name(), entry.revision - 1) {
                    Ok(Some(obj)) => Inspected::Deleted(obj),
                    Ok(None) => Inspected::Refused {
                        code: 404,
                        reason: "NotFound".into(),
                        message: format!("{plural} \"{}\" not found", entry.name()),
                    },
                    Err(refused) => refused,
                },
            }
        }
    };
    Inspection {
        revision: entry.revision,
        title,
        outcome,
    }
}

/// The named object in `collection` at exactly `revision` (None if it did not exist then).
fn read_at(
    client: &mut dyn ApiClient,
    collection: &str,
    name: &str,
    revision: u64,
) -> Result<Option<String>, Inspected> {
    let selector = percent_encode_query_value(&format!("metadata.name={name}"));
    let path = format!(
        "{collection}?fieldSelector={selector}&resourceVersion={revision}&resourceVersionMatch=Exact"
    );
    let r = client.request("GET", &path, None, None);
    let body: Value = serde_json::from_str(&r.body).unwrap_or(Value::Null);
    if !r.is_success() {
        let message = body
            .get("message")
            .and_then(Value::as_str)
            .map(str::to_string)
            .unwrap_or(r.body);
        let reason = body
            .get("reason")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string();
        return Err(Inspected::Refused {
            code: r.code,
            reason,
            message,
        });
    }
    let item = body
        .get("items")
        .and_then(Value::as_array)
        .and_then(|items| items.first());
    Ok(item.map(|o| serde_json::to_string_pretty(o).unwrap_or_default()))
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::*;
    use watchlab_engine::apiserver::ApiServer;

    fn entry_for(server: &ApiServer, name: &str, verb: &str) -> LedgerEntry {
        server
            .ledger()
            .iter()
            .rev()
            .find(|e| e.name() == name && e.verb == verb)
            .cloned()
            .unwrap_or_else(|| panic!("no {verb} of {name}"))
    }

    fn create_pod(server: &mut ApiServer, name: &str) {
        let body = format!(
            r#"{{"apiVersion":"v1","kind":"Pod","metadata":{{"name":"{name}","labels":{{"app":"web"}}}},"spec":{{"containers":[{{"name":"c","image":"nginx"}}]}}}}"#
        );
        let r = server.as_user("kubectl").request(
            "POST",
            "/api/v1/namespaces/default/pods",
            None,
            Some(&body),
        );
        assert!(r.is_success(), "{}", r.body);
    }

    #[test]
    fn shows_the_object_as_it_was_at_each_revision() {
        let mut server = ApiServer::new(7);
        create_pod(&mut server, "web");
        let created = entry_for(&server, "web", "create");
        let patch = r#"{"metadata":{"labels":{"tier":"front"}}}"#;
        let r = server.as_user("kubectl").request(
            "PATCH",
            "/api/v1/namespaces/default/pods/web",
            Some("application/merge-patch+json"),
            Some(patch),
        );
        assert!(r.is_success(), "{}", r.body);
        let at_create = inspect(&created, &mut server.as_user("watchlab-ui"));
        assert_eq!(at_create.title, "pods/default/web");
        let Inspected::Object(json) = at_create.outcome else {
            panic!("{at_create:?}")
        };
        assert!(!json.contains("tier"), "{json}");
        assert!(json.contains(&format!("\"resourceVersion\": \"{}\"", created.revision)));
        let patched = entry_for(&server, "web", "patch");
        let Inspected::Object(json) = inspect(&patched, &mut server.as_user("ui")).outcome else {
            panic!()
        };
        assert!(json.contains("tier"), "{json}");
    }

    #[test]
    fn a_custom_objects_ledger_line_shows_the_object() {
        let mut server = ApiServer::new(7);
        let crd = r#"{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"websites.example.com"},"spec":{"group":"example.com","scope":"Namespaced","names":{"plural":"websites","kind":"Website"},"versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}}]}}"#;
        let site = r#"{"apiVersion":"example.com/v1","kind":"Website","metadata":{"name":"blog"},"spec":{"host":"blog.example.com"}}"#;
        let mut kubectl = server.as_user("kubectl");
        let r = kubectl.request(
            "POST",
            "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
            None,
            Some(crd),
        );
        assert!(r.is_success(), "{}", r.body);
        let r = kubectl.request(
            "POST",
            "/apis/example.com/v1/namespaces/default/websites",
            None,
            Some(site),
        );
        assert!(r.is_success(), "{}", r.body);
        let created = entry_for(&server, "blog", "create");
        let got = inspect(&created, &mut server.as_user("ui"));
        assert_eq!(got.title, "websites/default/blog");
        let Inspected::Object(json) = got.outcome else {
            panic!("{got:?}")
        };
        assert!(json.contains("blog.example.com"), "{json}");
    }

    #[test]
    fn a_deletion_shows_the_last_state_and_compaction_the_410() {
        let mut server = ApiServer::new(7);
        create_pod(&mut server, "web");
        let created = entry_for(&server, "web", "create");
        let r = server.as_user("kubectl").request(
            "DELETE",
            "/api/v1/namespaces/default/pods/web?gracePeriodSeconds=0",
            None,
            None,
        );
        assert!(r.is_success(), "{}", r.body);
        let deleted = entry_for(&server, "web", "delete");
        let got = inspect(&deleted, &mut server.as_user("ui"));
        assert!(
            matches!(got.outcome, Inspected::Deleted(ref j) if j.contains("\"web\"")),
            "{got:?}"
        );
        server.compact_now().ok();
        let got = inspect(&created, &mut server.as_user("ui"));
        match got.outcome {
            Inspected::Refused {
                code,
                reason,
                message,
            } => {
                assert_eq!((code, reason.as_str()), (410, "Expired"));
                assert_eq!(
                    message,
                    "The resourceVersion for the provided list is too old."
                );
            }
            other => panic!("{other:?}"),
        }
    }
}
