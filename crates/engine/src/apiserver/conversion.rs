//! Versions served over another kind's storage ([`kinds::OTHER_VERSIONS`]): `events.k8s.io/v1`
//! Events are the core Events, converted on the way in and out, as kube-apiserver serves them
//! (one storage, two versions). A request to the served version is answered by the stored
//! kind's own route: its URL in the stored version (the field selector's labels converted,
//! [`events_v1::field_label`]), its body converted before (with the stricter validation of a
//! write through `events.k8s.io/v1`, [`events_v1::validate_create`]), and every answer after:
//! objects, lists, Tables' embedded objects and watch lines. So the two versions share the keys,
//! the watch cache and every stream, and a write through one is seen through the other.
//!
//! [`kinds::OTHER_VERSIONS`]: crate::api::kinds::OTHER_VERSIONS

use super::http::{body_of, is_apply, patch_of, patch_options};
use super::patch::{self, PatchType, APPLY_PATCH};
use super::update::Part;
use super::{field_validation, strategic_merge, ApiServer, RequestContext};
use crate::api::kinds::events_v1;
use crate::api::resource::{meta_merge_key, ResourceInfo};
use crate::api::Object;
use serde_json::Value;
use watchlab_apimachinery::client::{ApiResponse, WatchId};
use watchlab_apimachinery::request::{percent_encode_query_value, Query, RequestInfo, Verb};
use watchlab_apimachinery::status::Status;

const JSON: &str = "application/json";

impl ApiServer {
    /// A request `r`, a converted version ([`ResourceInfo::is_converted`]), routed: served by
    /// the stored kind's route, converted both ways.
    #[allow(clippy::too_many_arguments)] // The request as `dispatch_request` received it.
    pub(super) fn serve_converted(
        &mut self,
        ctx: &mut RequestContext<'_>,
        r: &'static ResourceInfo,
        info: &RequestInfo,
        query: &Query,
        method: &str,
        path_and_query: &str,
        content_type: Option<&str>,
        body: Option<&str>,
    ) -> Result<ApiResponse, Status> {
        let ns = info.namespace.as_deref().unwrap_or_default();
        let name = info.name.as_deref().unwrap_or_default();
        let answer = match info.verb {
            Verb::Create if info.subresource.is_none() => {
                let (mut event, warnings) = decode_body(r, body, query)?;
                place(&mut event, ns)?;
                invalid_unless_empty(&event, events_v1::validate_create(&event))?;
                let core = Object::Event(event).to_json();
                let path = core_path(r, query, path_and_query, true)?;
                let answer = self.handle_in(ctx, "POST", &path, Some(JSON), Some(&core));
                ctx.warn_all(warnings);
                answer
            }
            Verb::Update if info.subresource.is_none() => {
                let (mut event, warnings) = decode_body(r, body, query)?;
                place(&mut event, ns)?;
                if event.metadata.name != name {
                    return Err(name_mismatch(&event.metadata.name, name));
                }
                let errs = match self.current(&r.key(ns, name)) {
                    Some((old, _)) => match &*old {
                        Object::Event(old) => events_v1::validate_update(&event, old),
                        _ => Vec::new(),
                    },
                    // A PUT that creates is validated as a create.
                    None => events_v1::validate_create(&event),
                };
                invalid_unless_empty(&event, errs)?;
                let core = Object::Event(event).to_json();
                let path = core_path(r, query, path_and_query, true)?;
                let answer = self.handle_in(ctx, "PUT", &path, Some(JSON), Some(&core));
                ctx.warn_all(warnings);
                answer
            }
            Verb::Patch if info.subresource.is_none() && is_apply(content_type) => {
                patch_options(true, query)?;
                let config = super::apply::decode_config(body_of(body)?)?;
                let version = config.get("apiVersion").and_then(Value::as_str);
                if let Some(v) = version.filter(|v| *v != events_v1::API_VERSION) {
                    return Err(Status::bad_request(&format!(
                        "the API version in the data ({v}) does not match the expected API version ({})",
                        events_v1::API_VERSION
                    )));
                }
                let mut core = events_v1::rename_to_core(&config);
                if let Some(map) = core.as_object_mut() {
                    map.insert("apiVersion".into(), r.kind().resource().api_version.into());
                }
                let path = core_path(r, query, path_and_query, false)?;
                let core = core.to_string();
                self.handle_in(ctx, "PATCH", &path, Some(APPLY_PATCH), Some(&core))
            }
            Verb::Patch if info.subresource.is_none() => {
                patch_options(false, query)?;
                let (patch, patch_type) = patch_of(r, content_type, body)?;
                ctx.set_options(query);
                self.check_writable()?;
                let (event, warnings) = self.patched(r, ns, name, &patch, patch_type, query)?;
                ctx.warn_all(warnings);
                let written = self.update_part(ctx, Object::Event(event), Part::Main, "patch")?;
                ApiResponse {
                    code: 200,
                    body: written.to_json(),
                }
            }
            _ => {
                let path = core_path(r, query, path_and_query, false)?;
                self.handle_in(ctx, method, &path, content_type, body)
            }
        };
        Ok(ApiResponse {
            code: answer.code,
            body: convert_answer(&answer.body),
        })
    }

    /// The patched Event a PATCH (merge, strategic merge or JSON Patch) of the served version
    /// makes, patched in that version's fields and checked as an update through it, with the
    /// warnings of its unknown fields; its resourceVersion (the current one, or the one the
    /// patch set) is the write's precondition.
    fn patched(
        &mut self,
        r: &'static ResourceInfo,
        ns: &str,
        name: &str,
        patch: &Value,
        patch_type: PatchType,
        query: &Query,
    ) -> Result<(crate::api::Event, Vec<String>), Status> {
        if patch_type != PatchType::Json && !patch.is_object() {
            return Err(Status::bad_request("error decoding patch: json: cannot unmarshal into Go value of type map[string]interface {}"));
        }
        let current = self.get(r.kind(), Some(ns), name)?;
        let Object::Event(old) = &*current else {
            return Err(Status::internal_error("the stored object is not an Event"));
        };
        let mut doc: Value = serde_json::from_str(&events_v1::encode(old))
            .map_err(|e| Status::internal_error(&e.to_string()))?;
        match patch_type {
            PatchType::Merge => patch::merge(&mut doc, patch),
            PatchType::StrategicMerge => strategic_merge::apply(&mut doc, patch, &meta_merge_key),
            PatchType::Json => patch::json_patch(&mut doc, patch)?,
        }
        let warnings = field_validation::check_patched(r, &doc, query.field_validation)?;
        let mut event = events_v1::decode(doc)?;
        if event.metadata.name != name {
            return Err(name_mismatch(&event.metadata.name, name));
        }
        if event.metadata.namespace != ns {
            return Err(namespace_mismatch());
        }
        let pinned = patch_type == PatchType::Json
            || patch
                .pointer("/metadata/resourceVersion")
                .is_some_and(|v| !v.is_null());
        if !pinned {
            event
                .metadata
                .resource_version
                .clone_from(&old.metadata.resource_version);
        }
        invalid_unless_empty(&event, events_v1::validate_update(&event, old))?;
        Ok((event, warnings))
    }

    /// A watch of a converted version `r`: the stored kind's, its lines converted when polled.
    pub(super) fn watch_converted(
        &mut self,
        user: &str,
        r: &'static ResourceInfo,
        query: &Query,
        path_and_query: &str,
    ) -> Result<WatchId, ApiResponse> {
        let path = core_path(r, query, path_and_query, false).map_err(|s| ApiResponse {
            code: s.code(),
            body: s.to_json(),
        })?;
        let id = self.watch_path(user, &path)?;
        self.converted_watches.insert(id);
        Ok(id)
    }

    /// The Table of a get or list of a converted version `r`: the stored kind's (the same
    /// printer, as the real server registers its printers for the internal type), each
    /// embedded object converted.
    pub(super) fn table_converted(
        &mut self,
        r: &'static ResourceInfo,
        query: &Query,
        path_and_query: &str,
    ) -> Option<Result<ApiResponse, Status>> {
        let path = match core_path(r, query, path_and_query, false) {
            Ok(p) => p,
            Err(s) => return Some(Err(s)),
        };
        let answer = self.table_answer(&path)?;
        Some(answer.map(|a| ApiResponse {
            code: a.code,
            body: convert_answer(&a.body),
        }))
    }

    /// `lines` of stream `id` in its version: converted if it watches a converted version.
    pub(super) fn converted_lines(
        &mut self,
        id: WatchId,
        lines: Option<Vec<String>>,
    ) -> Option<Vec<String>> {
        if !self.converted_watches.contains(&id) {
            return lines;
        }
        match lines {
            Some(lines) => Some(lines.iter().map(|l| convert_answer(l)).collect()),
            None => {
                self.converted_watches.remove(&id);
                None
            }
        }
    }
}

/// A create or update body of the served version `r` as the internal Event, with the warnings
/// its unknown fields earn (`fieldValidation` against the served version's own schema; the
/// stored kind's route then checks nothing more).
fn decode_body(
    r: &'static ResourceInfo,
    body: Option<&str>,
    query: &Query,
) -> Result<(crate::api::Event, Vec<String>), Status> {
    let body = body_of(body)?;
    let warnings = field_validation::check(r, body, query.field_validation)?;
    let value: Value = serde_json::from_str(body).map_err(|e| {
        Status::bad_request(&format!("couldn't get version/kind; json parse error: {e}"))
    })?;
    Ok((events_v1::decode(value)?, warnings))
}

/// The URL's namespace on the body, refusing another one there.
fn place(event: &mut crate::api::Event, ns: &str) -> Result<(), Status> {
    if !event.metadata.namespace.is_empty() && event.metadata.namespace != ns {
        return Err(namespace_mismatch());
    }
    event.metadata.namespace = ns.to_string();
    Ok(())
}

fn namespace_mismatch() -> Status {
    Status::bad_request(
        "the namespace of the provided object does not match the namespace sent on the request",
    )
}

fn name_mismatch(body: &str, url: &str) -> Status {
    Status::bad_request(&format!(
        "the name of the object ({body}) does not match the name on the URL ({url})"
    ))
}

/// The 422 of a write the served version's validation refuses: the internal kind's, as the
/// real store words it (`Event "x" is invalid: …`, no group: the storage is the core one).
fn invalid_unless_empty(
    event: &crate::api::Event,
    errs: Vec<watchlab_apimachinery::validation::FieldError>,
) -> Result<(), Status> {
    if errs.is_empty() {
        return Ok(());
    }
    Err(Status::invalid("Event", "", &event.metadata.name, &errs))
}

/// `/api/v1` or `/apis/<group>/<version>`: where a version's paths start.
fn api_root(api_version: &str) -> String {
    if api_version.contains('/') {
        format!("/apis/{api_version}")
    } else {
        format!("/api/{api_version}")
    }
}

/// The request's URL in the stored version: the same path under the stored version's root,
/// the same query but for the field selector, whose labels are converted (`regarding.name` →
/// `involvedObject.name`; an unknown one is the 400 `field label not supported: x`), and, when
/// `validated` (the body was checked against the served version's schema already),
/// `fieldValidation=Ignore`.
fn core_path(
    r: &'static ResourceInfo,
    query: &Query,
    path_and_query: &str,
    validated: bool,
) -> Result<String, Status> {
    let (path, raw_query) = path_and_query
        .split_once('?')
        .unwrap_or((path_and_query, ""));
    let stored = r.kind().resource();
    let rest = path.strip_prefix(&api_root(r.api_version)).unwrap_or(path);
    let selector = query
        .list
        .field_selector
        .transform(&events_v1::field_label)
        .map_err(|e| Status::bad_request(&e))?;
    let mut pairs: Vec<String> = raw_query
        .split('&')
        .filter(|p| !p.is_empty())
        .filter(|p| {
            let key = p.split('=').next().unwrap_or_default();
            key != "fieldSelector" && !(validated && key == "fieldValidation")
        })
        .map(str::to_string)
        .collect();
    if !selector.is_empty() {
        pairs.push(format!(
            "fieldSelector={}",
            percent_encode_query_value(&selector.to_string())
        ));
    }
    if validated {
        pairs.push("fieldValidation=Ignore".to_string());
    }
    let mut out = format!("{}{rest}", api_root(stored.api_version));
    if !pairs.is_empty() {
        out.push('?');
        out.push_str(&pairs.join("&"));
    }
    Ok(out)
}

/// An answer of the stored kind's route in the served version: an Event, an EventList, a
/// Table's embedded Events, a watch line's object (one line, or a plain watch's several);
/// anything else (a Status, a PartialObjectMetadata) as it is.
fn convert_answer(body: &str) -> String {
    if body.contains('\n') {
        return body
            .lines()
            .map(convert_answer)
            .collect::<Vec<_>>()
            .join("\n");
    }
    serde_json::from_str::<Value>(body)
        .ok()
        .and_then(|v| convert_value(&v))
        .unwrap_or_else(|| body.to_string())
}

/// [`convert_answer`] of a parsed answer; `None` when nothing in it converts.
fn convert_value(v: &Value) -> Option<String> {
    if v.get("kind").is_none() {
        // A watch line: `{"type": …, "object": …}`.
        let object = convert_value(v.get("object")?)?;
        let event_type = serde_json::to_string(v.get("type")?).ok()?;
        return Some(format!("{{\"type\":{event_type},\"object\":{object}}}"));
    }
    match v.get("kind")?.as_str()? {
        "Event" => events_v1::encode_core_json(v),
        "EventList" if v.get("apiVersion")? == "v1" => {
            let items: Vec<String> = v
                .get("items")?
                .as_array()?
                .iter()
                .filter_map(events_v1::encode_core_json)
                .collect();
            let metadata = serde_json::to_string(v.get("metadata")?).ok()?;
            Some(format!(
                "{{\"kind\":\"EventList\",\"apiVersion\":\"{}\",\"metadata\":{metadata},\"items\":[{}]}}",
                events_v1::API_VERSION,
                items.join(",")
            ))
        }
        "Table" => {
            let mut table = v.clone();
            for row in table.get_mut("rows")?.as_array_mut()? {
                let Some(object) = row.get_mut("object") else {
                    continue;
                };
                if let Some(converted) = events_v1::encode_core_json(object) {
                    *object = serde_json::from_str(&converted).ok()?;
                }
            }
            serde_json::to_string(&table).ok()
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::Registry;
    use watchlab_apimachinery::request::parse_request;

    fn served() -> &'static ResourceInfo {
        Registry::default()
            .lookup("events.k8s.io", "v1", "events")
            .expect("served")
    }

    fn core(path: &str, validated: bool) -> Result<String, Status> {
        let (_, query) = parse_request("GET", path)?;
        core_path(served(), &query, path, validated)
    }

    #[test]
    fn urls_move_to_the_stored_version_with_their_selectors_converted() {
        assert_eq!(
            core("/apis/events.k8s.io/v1/namespaces/default/events?limit=5&fieldSelector=regarding.name%3Dweb%2Creason%3DStarted", false).as_deref(),
            Ok("/api/v1/namespaces/default/events?limit=5&fieldSelector=reason%3DStarted%2CinvolvedObject.name%3Dweb")
        );
        assert_eq!(
            core("/apis/events.k8s.io/v1/watch/events", false).as_deref(),
            Ok("/api/v1/watch/events")
        );
        assert_eq!(
            core(
                "/apis/events.k8s.io/v1/namespaces/a/events?fieldValidation=Strict",
                true
            )
            .as_deref(),
            Ok("/api/v1/namespaces/a/events?fieldValidation=Ignore")
        );
        let refused = core(
            "/apis/events.k8s.io/v1/events?fieldSelector=involvedObject.name%3Dweb",
            false,
        )
        .expect_err("a core label");
        assert_eq!(
            refused.message,
            "field label not supported: involvedObject.name"
        );
    }

    #[test]
    fn answers_convert_and_statuses_pass() {
        let event = r#"{"kind":"Event","apiVersion":"v1","metadata":{"name":"e"},"message":"hi","involvedObject":{"name":"web"}}"#;
        let line = format!(r#"{{"type":"ADDED","object":{event}}}"#);
        let converted: Value = serde_json::from_str(&convert_answer(&line)).expect("JSON");
        assert_eq!(converted["type"], "ADDED");
        assert_eq!(converted["object"]["note"], "hi");
        assert_eq!(converted["object"]["apiVersion"], "events.k8s.io/v1");
        let list = format!(
            r#"{{"kind":"EventList","apiVersion":"v1","metadata":{{"resourceVersion":"7"}},"items":[{event}]}}"#
        );
        let converted: Value = serde_json::from_str(&convert_answer(&list)).expect("JSON");
        assert_eq!(converted["apiVersion"], "events.k8s.io/v1");
        assert_eq!(converted["metadata"]["resourceVersion"], "7");
        assert_eq!(converted["items"][0]["regarding"]["name"], "web");
        let status = r#"{"kind":"Status","apiVersion":"v1","status":"Failure","code":404}"#;
        assert_eq!(convert_answer(status), status);
        let two = format!("{line}\n{line}");
        assert_eq!(convert_answer(&two).lines().count(), 2);
    }
}
