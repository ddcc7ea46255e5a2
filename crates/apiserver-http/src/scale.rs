//! The `scale` subresource (`autoscaling/v1` `Scale`) of Deployments and ReplicaSets, which
//! `kubectl scale` patches (`{"spec":{"replicas":N}}`) and the engine does not serve. It is an
//! adapter over the JSON edge: read the parent, apply the request to its Scale view, write the
//! new `spec.replicas` back with a merge patch (carrying the Scale's resourceVersion as a
//! precondition when the client sent one), and answer the parent's new Scale.

use serde_json::{json, Value};
use watchlab_apimachinery::client::ApiResponse;
use watchlab_apimachinery::status::Status;
use watchlab_engine::api::resource::ResourceInfo;
use watchlab_engine::apiserver::patch::merge;
use watchlab_engine::apiserver::ApiServer;
use watchlab_kubectl::printers::selector_string;

/// Whether `r` has a scale subresource in the real API (apps/v1 deployments and replicasets).
pub fn serves(r: &ResourceInfo) -> bool {
    r.group == "apps" && matches!(r.plural, "deployments" | "replicasets")
}

/// A parsed `/apis/apps/v1/namespaces/<ns>/<plural>/<name>/scale` path.
struct ScalePath<'a> {
    parent: String,
    plural: &'a str,
    name: &'a str,
}

fn parse(path: &str) -> Option<ScalePath<'_>> {
    let rest = path.strip_prefix("/apis/apps/v1/namespaces/")?;
    let mut parts = rest.split('/');
    let (ns, plural, name, sub) = (parts.next()?, parts.next()?, parts.next()?, parts.next()?);
    if parts.next().is_some() || sub != "scale" || ns.is_empty() || name.is_empty() {
        return None;
    }
    if !matches!(plural, "deployments" | "replicasets") {
        return None;
    }
    Some(ScalePath {
        parent: format!("/apis/apps/v1/namespaces/{ns}/{plural}/{name}"),
        plural,
        name,
    })
}

/// Answers a scale request, `None` when `path_and_query` is not a scale path.
pub fn handle(
    server: &mut ApiServer,
    user: &str,
    method: &str,
    path_and_query: &str,
    content_type: Option<&str>,
    body: Option<&str>,
) -> Option<ApiResponse> {
    let path = path_and_query.split('?').next().unwrap_or_default();
    let target = parse(path)?;
    Some(
        match respond(server, user, method, &target, content_type, body) {
            Ok(r) | Err(r) => r,
        },
    )
}

fn respond(
    server: &mut ApiServer,
    user: &str,
    method: &str,
    target: &ScalePath<'_>,
    content_type: Option<&str>,
    body: Option<&str>,
) -> Result<ApiResponse, ApiResponse> {
    let parent = success(server.handle(user, "GET", &target.parent, None, None))?;
    let current = scale_of(&parent);
    let wanted = match method {
        "GET" => return Ok(ok(&current)),
        "PUT" => decode(body)?,
        "PATCH" => {
            let media = content_type.unwrap_or_default();
            if media.starts_with("application/json-patch+json") {
                return Err(failure(Status::unsupported_media_type(
                    "json patch is not supported on the scale subresource by watchlab",
                )));
            }
            let patch = decode(body)?;
            let mut patched = current.clone();
            merge(&mut patched, &patch);
            patched
        }
        _ => {
            return Err(failure(Status::method_not_supported(
                &watchlab_apimachinery::status::GroupResource::new(
                    "apps",
                    &format!("{}/scale", target.plural),
                ),
                &method.to_lowercase(),
            )))
        }
    };
    if wanted["metadata"]["name"]
        .as_str()
        .is_some_and(|n| n != target.name)
    {
        return Err(failure(Status::bad_request(&format!(
            "the name of the object ({}) does not match the name on the URL ({})",
            wanted["metadata"]["name"].as_str().unwrap_or_default(),
            target.name
        ))));
    }
    let Some(replicas) = wanted["spec"]["replicas"].as_i64() else {
        return Err(failure(Status::bad_request(
            "Scale.autoscaling \"\" is invalid: spec.replicas: Required value",
        )));
    };
    let mut patch = json!({"spec": {"replicas": replicas}});
    // A resourceVersion the client sent (PUT body or patch) is a precondition, as in the real
    // scale REST storage; the one copied from the current object is not.
    let sent = if method == "PUT" {
        wanted.clone()
    } else {
        decode(body)?
    };
    let sent_rv = sent["metadata"]["resourceVersion"].as_str();
    if let Some(rv) = sent_rv.filter(|rv| !rv.is_empty()) {
        patch["metadata"] = json!({"resourceVersion": rv});
    }
    let updated = success(server.handle(
        user,
        "PATCH",
        &target.parent,
        Some("application/merge-patch+json"),
        Some(&patch.to_string()),
    ))?;
    Ok(ok(&scale_of(&updated)))
}

/// The `autoscaling/v1` Scale view of a Deployment or ReplicaSet.
pub fn scale_of(parent: &Value) -> Value {
    let meta = &parent["metadata"];
    json!({
        "kind": "Scale",
        "apiVersion": "autoscaling/v1",
        "metadata": {
            "name": meta["name"],
            "namespace": meta["namespace"],
            "uid": meta["uid"],
            "resourceVersion": meta["resourceVersion"],
            "creationTimestamp": meta["creationTimestamp"],
        },
        "spec": {"replicas": parent["spec"]["replicas"].as_i64().unwrap_or(1)},
        "status": {
            "replicas": parent["status"]["replicas"].as_i64().unwrap_or(0),
            "selector": selector_string(parent["spec"].get("selector")),
        },
    })
}

fn decode(body: Option<&str>) -> Result<Value, ApiResponse> {
    let body = body
        .filter(|b| !b.trim().is_empty())
        .ok_or_else(|| failure(Status::bad_request("the body of the request was empty")))?;
    serde_json::from_str(body).map_err(|e| {
        failure(Status::bad_request(&format!(
            "Scale in version \"v1\" cannot be handled as a Scale: {e}"
        )))
    })
}

fn success(r: ApiResponse) -> Result<Value, ApiResponse> {
    if !r.is_success() {
        return Err(r);
    }
    serde_json::from_str(&r.body).map_err(|e| failure(Status::internal_error(&e.to_string())))
}

fn ok(scale: &Value) -> ApiResponse {
    ApiResponse {
        code: 200,
        body: scale.to_string(),
    }
}

fn failure(s: Status) -> ApiResponse {
    ApiResponse {
        code: s.code(),
        body: s.to_json(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const DEPLOY: &str = "/apis/apps/v1/namespaces/default/deployments/web";
    const SCALE: &str = "/apis/apps/v1/namespaces/default/deployments/web/scale";

    fn server() -> ApiServer {
        let mut s = ApiServer::new(7);
        let ns = json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "default"}});
        s.handle(
            "t",
            "POST",
            "/api/v1/namespaces",
            None,
            Some(&ns.to_string()),
        );
        let d = json!({"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "web", "namespace": "default"},
            "spec": {"replicas": 2, "selector": {"matchLabels": {"app": "web"}},
              "template": {"metadata": {"labels": {"app": "web"}},
                "spec": {"containers": [{"name": "web", "image": "nginx"}]}}}});
        let r = s.handle(
            "t",
            "POST",
            "/apis/apps/v1/namespaces/default/deployments",
            None,
            Some(&d.to_string()),
        );
        assert_eq!(r.code, 201, "{}", r.body);
        s
    }

    fn body(r: &ApiResponse) -> Value {
        serde_json::from_str(&r.body).unwrap_or_default()
    }

    #[test]
    fn get_is_the_parents_scale_view() {
        let mut s = server();
        let r = handle(&mut s, "t", "GET", SCALE, None, None).unwrap_or_else(|| ok(&json!(null)));
        assert_eq!(r.code, 200);
        let scale = body(&r);
        assert_eq!(scale["kind"], "Scale");
        assert_eq!(scale["apiVersion"], "autoscaling/v1");
        assert_eq!(scale["spec"]["replicas"], 2);
        assert_eq!(scale["status"]["selector"], "app=web");
        assert!(handle(&mut s, "t", "GET", DEPLOY, None, None).is_none());
        assert!(handle(
            &mut s,
            "t",
            "GET",
            "/apis/apps/v1/namespaces/default/pods/x/scale",
            None,
            None
        )
        .is_none());
    }

    #[test]
    fn patch_and_put_write_the_parents_replicas() {
        let mut s = server();
        let patch = r#"{"spec":{"replicas":5}}"#;
        let r = handle(
            &mut s,
            "t",
            "PATCH",
            SCALE,
            Some("application/merge-patch+json"),
            Some(patch),
        );
        assert_eq!(
            r.map(|r| body(&r)["spec"]["replicas"].clone()),
            Some(json!(5))
        );
        assert_eq!(
            body(&s.handle("t", "GET", DEPLOY, None, None))["spec"]["replicas"],
            5
        );

        let current = body(&s.handle("t", "GET", DEPLOY, None, None));
        let rv = current["metadata"]["resourceVersion"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        let put = json!({"kind": "Scale", "apiVersion": "autoscaling/v1",
            "metadata": {"name": "web", "namespace": "default", "resourceVersion": rv}, "spec": {"replicas": 1}});
        let r = handle(&mut s, "t", "PUT", SCALE, None, Some(&put.to_string()));
        assert_eq!(r.map(|r| r.code), Some(200));
        // The same, now stale, resourceVersion is a conflict, as on the real scale endpoint.
        let r = handle(&mut s, "t", "PUT", SCALE, None, Some(&put.to_string()));
        assert_eq!(r.map(|r| r.code), Some(409));
    }

    #[test]
    fn refusals_are_statuses() {
        let mut s = server();
        let missing = "/apis/apps/v1/namespaces/default/deployments/nope/scale";
        assert_eq!(
            handle(&mut s, "t", "GET", missing, None, None).map(|r| r.code),
            Some(404)
        );
        let r = handle(
            &mut s,
            "t",
            "PATCH",
            SCALE,
            Some("application/merge-patch+json"),
            Some("{"),
        );
        assert_eq!(r.map(|r| r.code), Some(400));
        let r = handle(&mut s, "t", "PUT", SCALE, None, Some(r#"{"spec":{}}"#));
        assert_eq!(r.map(|r| r.code), Some(400));
        let r = handle(&mut s, "t", "DELETE", SCALE, None, None);
        assert_eq!(r.map(|r| r.code), Some(405));
    }
}
