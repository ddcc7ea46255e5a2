//! A document's `paths`: for every discovery entry of a group-version (a resource or one of its
//! subresources) the URL templates its verbs answer on, each with an operation as
//! kube-apiserver's route builder describes it — `operationId`, the query parameters the
//! handler reads (`fieldValidation`, `dryRun`, `fieldManager` on writes; selectors and paging
//! on lists), the body, the answer's schema, `x-kubernetes-action` and
//! `x-kubernetes-group-version-kind` (an object here, as operations carry it; kubectl finds a
//! kind's PATCH operation by it). Watch paths (`/watch/...`, deprecated) are left out.

use super::schemas::Components;
use serde_json::{json, Map, Value};

/// Adds the paths of one discovery entry (`pods`, `pods/status`, `deployments/scale`) of
/// `group`/`version` to `paths`, and the schemas they name to `components`.
pub fn add(
    paths: &mut Map<String, Value>,
    components: &mut Components,
    group: &str,
    version: &str,
    entry: &Value,
) {
    let name = entry["name"].as_str().unwrap_or_default();
    let kind = entry["kind"].as_str().unwrap_or_default();
    let namespaced = entry["namespaced"].as_bool().unwrap_or(false);
    let (plural, sub) = match name.split_once('/') {
        Some((p, s)) => (p, Some(s)),
        None => (name, None),
    };
    let gvk = json!({
        "group": entry["group"].as_str().unwrap_or(group),
        "version": entry["version"].as_str().unwrap_or(version),
        "kind": kind,
    });
    let main_kind = components
        .main_kind(group, version, plural)
        .unwrap_or(kind)
        .to_string();
    let op = Op {
        id_suffix: format!(
            "{}{}{}{}",
            camel_group(group),
            upper_first(version),
            if namespaced { "Namespaced" } else { "" },
            main_kind
        ) + &sub.map(upper_first).unwrap_or_default(),
        object: components.kind_ref(&gvk),
        gvk,
    };
    let prefix = if group.is_empty() {
        format!("/api/{version}")
    } else {
        format!("/apis/{group}/{version}")
    };
    let collection = if namespaced {
        format!("{prefix}/namespaces/{{namespace}}/{plural}")
    } else {
        format!("{prefix}/{plural}")
    };
    let item = match sub {
        Some(s) => format!("{collection}/{{name}}/{s}"),
        None => format!("{collection}/{{name}}"),
    };
    let verbs: Vec<&str> = entry["verbs"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    for verb in verbs {
        let (path, method, operation) = match (verb, sub) {
            ("create", None) => (&collection, "post", op.write("create", "post")),
            ("create", Some(_)) => (&item, "post", op.write("create", "post")),
            ("list", None) => {
                let list = components.list_ref(&op.gvk);
                if namespaced {
                    let all = format!("{prefix}/{plural}");
                    let every = op.list(list.clone(), "ForAllNamespaces");
                    path_item(paths, &all, None).insert("get".into(), every);
                }
                (&collection, "get", op.list(list, ""))
            }
            ("deletecollection", None) => (&collection, "delete", op.delete_collection()),
            ("get", _) if sub == Some("log") => (&item, "get", op.log()),
            ("get", _) => (&item, "get", op.read()),
            ("update", _) => (&item, "put", op.write("replace", "put")),
            ("patch", _) => (&item, "patch", op.patch()),
            ("delete", None) => (&item, "delete", op.delete()),
            _ => continue,
        };
        let with_name = path.contains("{name}");
        let params = path_params(namespaced, with_name);
        path_item(paths, path, Some(params)).insert(method.into(), operation);
    }
}

/// The path item at `path`, created with its path-level `parameters` when new.
fn path_item<'a>(
    paths: &'a mut Map<String, Value>,
    path: &str,
    params: Option<Value>,
) -> &'a mut Map<String, Value> {
    let item = paths
        .entry(path.to_string())
        .or_insert_with(|| json!({"parameters": params.unwrap_or_else(|| json!([pretty()]))}));
    match item {
        Value::Object(m) => m,
        _ => unreachable!("path items are objects"),
    }
}

/// The `{name}`/`{namespace}` parameters of a path, and `pretty`.
fn path_params(namespaced: bool, with_name: bool) -> Value {
    let mut params = Vec::new();
    if with_name {
        params.push(path_param("name", "The object's name."));
    }
    if namespaced {
        params.push(path_param("namespace", "The namespace the object is in."));
    }
    params.push(pretty());
    Value::Array(params)
}

fn path_param(name: &str, description: &str) -> Value {
    json!({"name": name, "in": "path", "description": description, "required": true,
           "schema": {"type": "string", "uniqueItems": true}})
}

fn pretty() -> Value {
    query("pretty", "string", "If 'true', the answer is indented.")
}

fn query(name: &str, ty: &str, description: &str) -> Value {
    json!({"name": name, "in": "query", "description": description,
           "schema": {"type": ty, "uniqueItems": true}})
}

/// The parameters every write (create, update, patch) reads.
fn write_params() -> Vec<Value> {
    vec![
        query("dryRun", "string", "`All`: run every stage of the request but the write to storage, and answer what would have been stored."),
        query("fieldManager", "string", "The name of the actor making the change, recorded in managedFields."),
        query("fieldValidation", "string", "What to do with fields of the object the schema does not know, or duplicated: `Ignore` drops them, `Warn` (the default) drops them and answers a warning for each, `Strict` refuses the request."),
    ]
}

/// What one discovery entry's operations share.
struct Op {
    /// `CoreV1NamespacedPod`, `AppsV1NamespacedDeploymentScale`.
    id_suffix: String,
    gvk: Value,
    /// The entry's object schema (`#/components/schemas/...`), if the document has one.
    object: Option<String>,
}

impl Op {
    fn answer(&self, codes: &[&str], schema: Option<&str>) -> Value {
        let body = match schema {
            Some(r) => json!({"content": {"application/json": {"schema": {"$ref": r}}}}),
            None => json!({}),
        };
        let mut responses = Map::new();
        for code in codes {
            let mut b = body.clone();
            b["description"] = json!(match *code {
                "201" => "Created",
                "202" => "Accepted",
                _ => "OK",
            });
            responses.insert(code.to_string(), b);
        }
        responses.insert("401".into(), json!({"description": "Unauthorized"}));
        Value::Object(responses)
    }

    fn operation(&self, id: &str, action: &str, params: Vec<Value>, responses: Value) -> Value {
        json!({
            "operationId": format!("{id}{}", self.id_suffix),
            "parameters": params,
            "responses": responses,
            "x-kubernetes-action": action,
            "x-kubernetes-group-version-kind": self.gvk,
        })
    }

    fn body(&self) -> Value {
        let schema = match &self.object {
            Some(r) => json!({"$ref": r}),
            None => json!({"type": "object"}),
        };
        json!({"content": {"*/*": {"schema": schema}}, "required": true})
    }

    fn write(&self, id: &str, action: &str) -> Value {
        let codes: &[&str] = if action == "post" {
            &["200", "201", "202"]
        } else {
            &["200", "201"]
        };
        let mut op = self.operation(
            id,
            action,
            write_params(),
            self.answer(codes, self.object.as_deref()),
        );
        op["requestBody"] = self.body();
        op
    }

    fn patch(&self) -> Value {
        let mut params = write_params();
        params.push(query("force", "boolean", "Server-side apply only: take the fields other managers own instead of answering a conflict."));
        let mut op = self.operation(
            "patch",
            "patch",
            params,
            self.answer(&["200", "201"], self.object.as_deref()),
        );
        let patch = json!({"schema": {"type": "object"}});
        op["requestBody"] = json!({"required": true, "content": {
            "application/apply-patch+yaml": patch,
            "application/json-patch+json": patch,
            "application/merge-patch+json": patch,
            "application/strategic-merge-patch+json": patch,
        }});
        op
    }

    fn read(&self) -> Value {
        self.operation(
            "read",
            "get",
            Vec::new(),
            self.answer(&["200"], self.object.as_deref()),
        )
    }

    fn log(&self) -> Value {
        let params = vec![
            query("container", "string", "The container whose log to read."),
            query(
                "follow",
                "boolean",
                "Keep the answer open and send new lines as they are written.",
            ),
            query(
                "previous",
                "boolean",
                "The log of the container's previous run.",
            ),
            query("tailLines", "integer", "Only the last lines, this many."),
        ];
        let mut op = self.operation(
            "read",
            "get",
            params,
            json!({"200": {"description": "OK",
            "content": {"text/plain": {"schema": {"type": "string"}}}}}),
        );
        op["x-kubernetes-action"] = json!("get");
        op
    }

    fn list(&self, list: Option<String>, suffix: &str) -> Value {
        let params = vec![
            query(
                "allowWatchBookmarks",
                "boolean",
                "With watch: ask for BOOKMARK events.",
            ),
            query(
                "continue",
                "string",
                "The token of the previous page's `metadata.continue`.",
            ),
            query(
                "fieldSelector",
                "string",
                "Only objects whose fields match (`spec.nodeName=node-a`).",
            ),
            query(
                "labelSelector",
                "string",
                "Only objects whose labels match (`app=web,tier!=db`).",
            ),
            query(
                "limit",
                "integer",
                "At most this many objects; the rest follow with `continue`.",
            ),
            query(
                "resourceVersion",
                "string",
                "How fresh the answer must be (see resourceVersionMatch).",
            ),
            query(
                "resourceVersionMatch",
                "string",
                "`Exact` or `NotOlderThan` the resourceVersion given.",
            ),
            query(
                "sendInitialEvents",
                "boolean",
                "With watch: begin with the current objects, then a BOOKMARK.",
            ),
            query(
                "timeoutSeconds",
                "integer",
                "End the list or watch after this long.",
            ),
            query(
                "watch",
                "boolean",
                "Stream changes instead of answering a list.",
            ),
        ];
        let mut op = self.operation(
            "list",
            "list",
            params,
            self.answer(&["200"], list.as_deref()),
        );
        if !suffix.is_empty() {
            let id = op["operationId"].as_str().unwrap_or_default();
            op["operationId"] = json!(format!("{}{suffix}", id.replacen("Namespaced", "", 1)));
        }
        op
    }

    fn delete_params() -> Vec<Value> {
        vec![
            query(
                "dryRun",
                "string",
                "`All`: decide everything but do not delete.",
            ),
            query(
                "gracePeriodSeconds",
                "integer",
                "How long the object may take to end (pods); 0 ends it at once.",
            ),
            query(
                "propagationPolicy",
                "string",
                "What happens to the objects it owns: `Orphan`, `Background` or `Foreground`.",
            ),
        ]
    }

    fn delete(&self) -> Value {
        let mut op = self.operation(
            "delete",
            "delete",
            Self::delete_params(),
            self.answer(&["200", "202"], Some(super::schemas::STATUS_REF)),
        );
        op["requestBody"] =
            json!({"content": {"*/*": {"schema": {"$ref": super::schemas::DELETE_OPTIONS_REF}}}});
        op
    }

    fn delete_collection(&self) -> Value {
        let mut params = Self::delete_params();
        params.push(query(
            "labelSelector",
            "string",
            "Only objects whose labels match.",
        ));
        params.push(query(
            "fieldSelector",
            "string",
            "Only objects whose fields match.",
        ));
        let mut op = self.operation(
            "deleteCollection",
            "deletecollection",
            params,
            self.answer(&["200"], Some(super::schemas::STATUS_REF)),
        );
        op["requestBody"] =
            json!({"content": {"*/*": {"schema": {"$ref": super::schemas::DELETE_OPTIONS_REF}}}});
        op
    }
}

/// `apps` → `Apps`, `coordination.k8s.io` → `Coordination`, `example.com` → `ExampleCom`,
/// the core group → `Core`.
fn camel_group(group: &str) -> String {
    if group.is_empty() {
        return "Core".to_string();
    }
    group
        .trim_end_matches(".k8s.io")
        .split(['.', '-'])
        .map(upper_first)
        .collect()
}

fn upper_first(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().chain(c).collect(),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn operation_ids_name_the_group_version_and_kind() {
        assert_eq!(camel_group(""), "Core");
        assert_eq!(camel_group("coordination.k8s.io"), "Coordination");
        assert_eq!(camel_group("example.com"), "ExampleCom");
        assert_eq!(upper_first("v1beta1"), "V1beta1");
    }
}
