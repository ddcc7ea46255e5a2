//! `kubectl explain RESOURCE[.field.path] [--recursive] [--api-version=group/version]`: the
//! schema of a kind, or of one of its fields, from the server's OpenAPI v3 documents, printed as
//! kubectl v1.32 prints them by default (`-o plaintext`, the template
//! `pkg/explain/v2/templates/plaintext.tmpl`). A learner reads in the console what the real
//! kubectl would print against the same server, custom resources included, so this module
//! follows that template's rules step by step rather than inventing a layout: the kind is found
//! through the resource's paths (`x-kubernetes-group-version-kind` of their operations), its
//! schema among `components.schemas` (Go's map order: by name), a field path is followed
//! through `properties`, `items`, `additionalProperties` and `allOf` (with the template's cycle
//! checks on `$ref`), descriptions are word-wrapped as `github.com/mitchellh/go-wordwrap` v1.0.1
//! wraps them (76 columns) and types are guessed as the template's `typeGuess` does
//! (`<[]Container>`, `<map[string]string>`, `<Object>`).
//!
//! The resource name is resolved as kubectl's `explain` does: the first dot-separated word is
//! looked up among discovery's plurals, singulars, short names and kinds, and a group written
//! after it (`deployments.apps.spec`) is skipped only when it spells the matched type's
//! `<plural>.<group>`; `--api-version` takes the fields after the first word as they are.
//! Like kubectl, the header is printed before a field path turns out not to exist (`error:
//! field "foo" does not exist`, with the path's last word). `-o plaintext-openapiv2` (the
//! OpenAPI v2 renderer) is not available here.

use super::{parse_flags, Ctx, Done};
use crate::errors::{json_body, CmdError};
use crate::flags::{boolean, value, FlagSpec};
use crate::resources::{Discovery, ResourceType};
use serde_json::Value;
use watchlab_apimachinery::gofmt::go_quote;
use watchlab_apimachinery::sort;

const FLAGS: &[FlagSpec] = &[
    boolean("recursive", None),
    value("api-version", None),
    value("output", Some('o')),
];

/// The OpenAPI v3 index.
const INDEX: &str = "/openapi/v3";
/// Deepest schema nesting followed (a bound against a hostile document; kubectl has none).
const MAX_DEPTH: usize = 64;
/// The paths kubectl's template searches for a resource's operations, after `<prefix>/<version>`.
const SEARCH_PATHS: [&str; 4] = [
    "{r}",
    "{r}/{name}",
    "namespaces/{namespace}/{r}",
    "namespaces/{namespace}/{r}/{name}",
];

pub(crate) fn run(ctx: &mut Ctx, args: &[String]) -> Result<Done, CmdError> {
    let p = parse_flags("explain", args, FLAGS)?;
    let input = match p.args.as_slice() {
        [] => {
            return Err(CmdError::msg(
                "You must specify the type of resource to explain. Use \"kubectl api-resources\" for a complete list of supported resources.",
            ))
        }
        [one] => one.clone(),
        _ => return Err(CmdError::msg("We accept only this format: explain RESOURCE")),
    };
    let api_version = p.last("api-version").filter(|v| !v.is_empty());
    let discovery = ctx.discovery()?;
    let (resource, fields) = resolve(&discovery, &input, api_version.is_some())?;
    let format = p.last("output").unwrap_or("plaintext");
    if format == "plaintext-openapiv2" {
        return Err(CmdError::msg(
            "--output=plaintext-openapiv2 is not available in this playground (its kubectl explain reads OpenAPI v3 only)",
        ));
    }
    let (group, version) = match api_version {
        Some(v) => parse_group_version(v)?,
        None => (resource.group.clone(), resource.version.clone()),
    };
    let gvr = Gvr {
        group,
        version,
        resource: resource.plural.clone(),
    };
    let document = fetch_document(ctx, &gvr)?;
    if format != "plaintext" {
        return Err(CmdError::msg(format!("unrecognized format: {format}")));
    }
    let rendered = render(&document, &gvr, &fields, p.flag("recursive"));
    Ok(match rendered.error {
        None => Done::out(rendered.stdout),
        Some(e) => Done {
            stdout: rendered.stdout,
            stderr: CmdError::msg(e).stderr,
            follow: None,
            exit_code: 1,
        },
    })
}

/// A GroupVersionResource, printed as Go's `String()` does (`apps/v1, Resource=deployments`).
struct Gvr {
    group: String,
    version: String,
    resource: String,
}

impl std::fmt::Display for Gvr {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}/{}, Resource={}",
            self.group, self.version, self.resource
        )
    }
}

/// `schema.ParseGroupVersion`: `v1` is the core group's version, `apps/v1` a group's.
fn parse_group_version(text: &str) -> Result<(String, String), CmdError> {
    if text == "/" {
        return Ok((String::new(), String::new()));
    }
    match text.matches('/').count() {
        0 => Ok((String::new(), text.to_string())),
        1 => {
            let (g, v) = text.split_once('/').unwrap_or_default();
            Ok((g.to_string(), v.to_string()))
        }
        _ => Err(CmdError::msg(format!(
            "unexpected GroupVersion string: {text}"
        ))),
    }
}

/// What jsonpath accepts in a field node; anything else is another kind of node.
fn is_field_word(word: &str) -> bool {
    !word.contains([
        '[', ']', '*', '$', '@', '(', ')', '?', '\'', '"', '{', '}', ' ', '=',
    ])
}

/// The resource type and the field path of `input` (`pods.spec.containers`), as kubectl's
/// `SplitAndParseResourceRequestWithMatchingPrefix` (or, with `--api-version`,
/// `SplitAndParseResourceRequest`) reads it.
fn resolve(
    discovery: &Discovery,
    input: &str,
    with_api_version: bool,
) -> Result<(ResourceType, Vec<String>), CmdError> {
    let input = input.strip_suffix('.').unwrap_or(input);
    let words: Vec<&str> = input.split('.').collect();
    let first = words.first().copied().unwrap_or_default();
    if first.is_empty() || words.iter().any(|w| !is_field_word(w)) {
        return Err(CmdError::msg(
            "invalid jsonpath syntax, first node must be field node",
        ));
    }
    let lower = first.to_ascii_lowercase();
    let candidates: Vec<&ResourceType> = discovery
        .types()
        .iter()
        .filter(|r| {
            r.plural == lower
                || r.singular == lower
                || r.short_names.contains(&lower)
                || r.kind.eq_ignore_ascii_case(&lower)
        })
        .collect();
    let Some(first_match) = candidates.first() else {
        return Err(CmdError::raw(format!(
            "the server doesn't have a resource type {}\n",
            go_quote(first)
        )));
    };
    let fields_after = |text: &str, skip: usize| -> Vec<String> {
        text.split('.')
            .filter(|w| !w.is_empty())
            .skip(skip)
            .map(str::to_string)
            .collect()
    };
    if !with_api_version {
        for r in &candidates {
            if let Some(suffix) = input.strip_prefix(r.group_resource().as_str()) {
                // The suffix's first node is dropped: `..x` (a recursive node) or a word.
                let skip = usize::from(!suffix.starts_with('.'));
                return Ok(((*r).clone(), fields_after(suffix, skip)));
            }
        }
    }
    Ok(((*first_match).clone(), fields_after(input, 1)))
}

/// The group-version's document, through the index as kubectl's OpenAPI v3 client reads it.
fn fetch_document(ctx: &mut Ctx, gvr: &Gvr) -> Result<Value, CmdError> {
    let index = json_body(&ctx.client.request("GET", INDEX, None, None))?;
    let key = if gvr.group.is_empty() {
        format!("api/{}", gvr.version)
    } else {
        format!("apis/{}/{}", gvr.group, gvr.version)
    };
    let Some(url) = index["paths"][&key]["serverRelativeURL"].as_str() else {
        return Err(CmdError::msg(format!(
            "couldn't find resource for \"{gvr}\""
        )));
    };
    json_body(&ctx.client.request("GET", url, None, None))
}

/// What the template printed: its output so far, and the error that stopped it.
#[derive(Debug, Default, PartialEq, Eq)]
struct Rendered {
    stdout: String,
    error: Option<String>,
}

/// The plaintext template run on `document` for `gvr` and the field path.
fn render(document: &Value, gvr: &Gvr, fields: &[String], recursive: bool) -> Rendered {
    let Some(gvk) = find_gvk(document, gvr) else {
        return Rendered {
            stdout: String::new(),
            error: Some(format!("GVR ({gvr}) not found in OpenAPI schema")),
        };
    };
    let mut stdout = String::new();
    if truthy(&gvk["group"]) {
        stdout.push_str(&format!("GROUP:      {}\n", go_print(&gvk["group"])));
    }
    stdout.push_str(&format!("KIND:       {}\n", go_print(&gvk["kind"])));
    stdout.push_str(&format!("VERSION:    {}\n\n", go_print(&gvk["version"])));
    let explainer = Explainer {
        document,
        recursive,
    };
    let error = match explainer.schema(gvk, fields) {
        Ok(Some(text)) if !text.is_empty() => {
            stdout.push_str(&text);
            stdout.push('\n');
            None
        }
        Ok(Some(_)) => Some(format!(
            "field \"{}\" does not exist",
            fields.last().map(String::as_str).unwrap_or_default()
        )),
        Ok(None) => Some(format!("GVK {} not found in OpenAPI schema", go_print(gvk))),
        Err(e) => Some(e),
    };
    Rendered { stdout, error }
}

/// The kind the resource's operations name: for each of the search paths that exists, the
/// `x-kubernetes-group-version-kind` of its first operation (get, post, put, patch, delete)
/// that has one; the last path found decides, as the template's loop assigns it.
fn find_gvk<'a>(document: &'a Value, gvr: &Gvr) -> Option<&'a Value> {
    let prefix = if gvr.group.is_empty() {
        "/api".to_string()
    } else {
        format!("/apis/{}", gvr.group)
    };
    let mut gvk: Option<&Value> = None;
    for template in SEARCH_PATHS {
        let path = format!(
            "{prefix}/{}/{}",
            gvr.version,
            template.replace("{r}", &gvr.resource)
        );
        let item = &document["paths"][&path];
        if !truthy(item) {
            continue;
        }
        for method in ["get", "post", "put", "patch", "delete"] {
            let op = &item[method];
            if !truthy(op) {
                continue;
            }
            let found = &op["x-kubernetes-group-version-kind"];
            gvk = Some(found);
            if truthy(found) {
                break;
            }
        }
    }
    gvk.filter(|g| g.as_object().is_some_and(|m| !m.is_empty()))
}

/// The template's sub-templates over one document.
struct Explainer<'a> {
    document: &'a Value,
    recursive: bool,
}

/// A sub-template's output, or the error that stops the template.
type Out = Result<String, String>;

impl<'a> Explainer<'a> {
    /// `resolveRef`: the schema a `#/...` reference points at, if any.
    fn resolve(&self, reference: &str) -> Option<&'a Value> {
        let fragment = reference.strip_prefix('#')?;
        let mut cur = self.document;
        for part in fragment.split('/').filter(|p| !p.is_empty()) {
            cur = cur.as_object()?.get(part)?;
        }
        cur.as_object().map(|_| cur)
    }

    /// The `schema` template: the first component (by name) whose
    /// `x-kubernetes-group-version-kind` lists `gvk`, explained along `fields`; `None` when no
    /// component is that kind's.
    fn schema(&self, gvk: &Value, fields: &[String]) -> Result<Option<String>, String> {
        let Some(schemas) = self.document["components"]["schemas"].as_object() else {
            return Ok(None);
        };
        let mut names: Vec<&String> = schemas.keys().collect();
        sort::sort(&mut names);
        for name in names {
            let schema = &schemas[name];
            let kinds = schema["x-kubernetes-group-version-kind"].as_array();
            if kinds.is_some_and(|k| k.contains(gvk)) {
                return self.output(schema, &[], fields, 0).map(Some);
            }
        }
        Ok(None)
    }

    /// The `output` template: follows `fields` down the schema, then prints the `FIELD:` line,
    /// the description and the field list of where it arrived; empty when a field is missing.
    fn output(
        &self,
        schema: &'a Value,
        history: &[&'a str],
        fields: &[String],
        depth: usize,
    ) -> Out {
        if depth > MAX_DEPTH {
            return Ok(String::new());
        }
        let reference = ref_of(schema);
        let resolved = self.resolve(reference).unwrap_or(schema);
        let Some((first, rest)) = fields.split_first() else {
            return self.explain_here(resolved);
        };
        if !reference.is_empty() && history.contains(&reference) {
            return Ok(String::new());
        }
        let mut next: Vec<&'a str> = history.to_vec();
        next.push(reference);
        let property = &resolved["properties"][first.as_str()];
        if truthy(&resolved["properties"]) && truthy(property) {
            let mut out = String::new();
            if rest.is_empty() {
                out.push_str(&format!(
                    "FIELD: {first} <{}>\n",
                    self.type_guess(property, 0)?
                ));
                out.push_str(&extract_enum(property, true, -1, 0));
                out.push_str("\n\n");
            }
            out.push_str(&self.output(property, &[], rest, depth + 1)?);
            return Ok(out);
        }
        if truthy(&resolved["items"]) {
            return self.output(&resolved["items"], &next, fields, depth + 1);
        }
        if let Some(map) = additional_properties(resolved) {
            return self.output(map, &next, fields, depth + 1);
        }
        for alternative in resolved["allOf"].as_array().into_iter().flatten() {
            let out = self.output(alternative, &next, fields, depth + 1)?;
            if !out.is_empty() {
                return Ok(out);
            }
        }
        Ok(String::new())
    }

    /// `DESCRIPTION:` (or `<empty>`) and, when there are any, `FIELDS:`.
    fn explain_here(&self, resolved: &'a Value) -> Out {
        let mut description = String::new();
        self.description(resolved, &mut description, 0);
        if description.is_empty() {
            description = "<empty>".to_string();
        }
        let mut out = format!("DESCRIPTION:\n{}\n", indent(4, &wrap(76, &description)));
        let mut history = Vec::new();
        let fields = self.field_list(resolved, 1, &mut history, 0)?;
        if !fields.is_empty() {
            out.push_str("FIELDS:\n");
            out.push_str(&fields);
        }
        Ok(out)
    }

    /// The `fieldList` template: each property (by name) with its type, and its description or
    /// (with `--recursive`) its own fields one level deeper; then those of `allOf`, `items` and
    /// `additionalProperties`. A `$ref` already on the way down is not followed again.
    fn field_list(
        &self,
        schema: &'a Value,
        level: usize,
        history: &mut Vec<&'a str>,
        depth: usize,
    ) -> Out {
        let reference = ref_of(schema);
        if depth > MAX_DEPTH || (!reference.is_empty() && history.contains(&reference)) {
            return Ok(String::new());
        }
        history.push(reference);
        let result = self.field_list_resolved(
            self.resolve(reference).unwrap_or(schema),
            level,
            history,
            depth,
        );
        history.pop();
        result
    }

    fn field_list_resolved(
        &self,
        resolved: &'a Value,
        level: usize,
        history: &mut Vec<&'a str>,
        depth: usize,
    ) -> Out {
        let mut out = String::new();
        if let Some(properties) = resolved["properties"].as_object() {
            let mut names: Vec<&String> = properties.keys().collect();
            sort::sort(&mut names);
            for name in names {
                out.push_str(&self.field_detail(name, resolved, level)?);
                if self.recursive {
                    out.push_str(&self.field_list(
                        &properties[name],
                        level + 1,
                        history,
                        depth + 1,
                    )?);
                }
            }
        }
        for alternative in resolved["allOf"].as_array().into_iter().flatten() {
            out.push_str(&self.field_list(alternative, level, history, depth + 1)?);
        }
        if truthy(&resolved["items"]) {
            out.push_str(&self.field_list(&resolved["items"], level, history, depth + 1)?);
        }
        if let Some(map) = additional_properties(resolved) {
            out.push_str(&self.field_list(map, level, history, depth + 1)?);
        }
        Ok(out)
    }

    /// The `fieldDetail` template: `name\t<type>`, ` -required-`, the enum, and (unless
    /// recursive) the description wrapped to 76 columns under it.
    fn field_detail(&self, name: &str, parent: &'a Value, level: usize) -> Out {
        let indent_amount = level * 2;
        let field = &parent["properties"][name];
        let mut out = format!(
            "{}\t<{}>",
            indent(indent_amount, name),
            self.type_guess(field, 0)?
        );
        let required = parent["required"]
            .as_array()
            .is_some_and(|r| r.iter().any(|n| n.as_str() == Some(name)));
        if required {
            out.push_str(" -required-");
        }
        out.push_str(&extract_enum(field, false, 4, indent_amount));
        out.push('\n');
        if !self.recursive {
            let description = if truthy(&field["description"]) {
                go_print(&field["description"])
            } else {
                "<no description>".to_string()
            };
            let width = 78_i64 - indent_amount as i64;
            out.push_str(&indent(indent_amount + 2, &wrap(width, &description)));
            out.push_str("\n\n");
        }
        Ok(out)
    }

    /// The `description` template: the schema's description (its `$ref`'s), then those of its
    /// `allOf`, `items` and `additionalProperties`, each followed by a newline.
    fn description(&self, schema: &'a Value, out: &mut String, depth: usize) {
        let schema = self.resolve(ref_of(schema)).unwrap_or(schema);
        if depth > MAX_DEPTH || !truthy(schema) {
            return;
        }
        if truthy(&schema["description"]) {
            out.push_str(&go_print(&schema["description"]));
            out.push('\n');
        }
        for alternative in schema["allOf"].as_array().into_iter().flatten() {
            self.description(alternative, out, depth + 1);
        }
        if truthy(&schema["items"]) {
            self.description(&schema["items"], out, depth + 1);
        }
        if let Some(map) = additional_properties(schema) {
            self.description(map, out, depth + 1);
        }
    }

    /// The `typeGuess` template: `[]T` for a list, `map[string]T` for a map, the referenced
    /// type's last name for an object `$ref`, else the `type` (`object` as `Object`).
    fn type_guess(&self, schema: &'a Value, depth: usize) -> Out {
        if !schema.is_object() || !truthy(schema) || depth > MAX_DEPTH {
            return Err("expected schema argument to subtemplate 'typeguess'".to_string());
        }
        if truthy(&schema["items"]) {
            return Ok(format!(
                "[]{}",
                self.type_guess(&schema["items"], depth + 1)?
            ));
        }
        if let Some(map) = additional_properties(schema) {
            return Ok(format!("map[string]{}", self.type_guess(map, depth + 1)?));
        }
        if let Some([only]) = schema["allOf"].as_array().map(Vec::as_slice) {
            if !truthy(&schema["properties"]) {
                return self.type_guess(only, depth + 1);
            }
        }
        let reference = ref_of(schema);
        if !reference.is_empty() {
            let target_type = self.resolve(reference).map(|t| &t["type"]);
            return Ok(match target_type {
                Some(t) if truthy(t) && t != "object" => go_print(t),
                _ => {
                    let name = reference.rsplit('/').next().unwrap_or_default();
                    let last = name.rsplit('.').next().unwrap_or_default();
                    if last.is_empty() { "Object" } else { last }.to_string()
                }
            });
        }
        let ty = &schema["type"];
        Ok(if ty == "object" || !truthy(ty) {
            "Object".to_string()
        } else {
            go_print(ty)
        })
    }
}

/// A schema's `$ref`, or "".
fn ref_of(schema: &Value) -> &str {
    schema["$ref"].as_str().unwrap_or_default()
}

/// `additionalProperties` when it is a schema (not `true`/`false`, not empty).
fn additional_properties(schema: &Value) -> Option<&Value> {
    let map = &schema["additionalProperties"];
    (map.is_object() && truthy(map)).then_some(map)
}

/// The `extractEnum` template: ` enum: a, b, c, d, ....` on a line of its own under a field
/// (at most `limit` values), or `ENUM:` and one value per line under a `FIELD:` line.
fn extract_enum(schema: &Value, long_view: bool, limit: i64, indent_amount: usize) -> String {
    let Some(values) = schema["enum"].as_array().filter(|v| !v.is_empty()) else {
        return String::new();
    };
    let mut out = if long_view {
        "ENUM:".to_string()
    } else {
        format!("\n{}enum: ", " ".repeat(indent_amount))
    };
    for (i, v) in values.iter().enumerate() {
        if limit > -1 && i as i64 >= limit {
            out.push_str(", ....");
            break;
        }
        if i > 0 && !long_view {
            out.push_str(", ");
        } else if long_view {
            out.push_str("\n    ");
        }
        match v {
            Value::String(s) if s.is_empty() => out.push_str("\"\""),
            other => out.push_str(&go_print(other)),
        }
    }
    out
}

/// Whether Go's templates take `v` as true: not null, false, zero or empty.
fn truthy(v: &Value) -> bool {
    match v {
        Value::Null => false,
        Value::Bool(b) => *b,
        Value::Number(n) => n.as_f64().is_some_and(|f| f != 0.0),
        Value::String(s) => !s.is_empty(),
        Value::Array(a) => !a.is_empty(),
        Value::Object(m) => !m.is_empty(),
    }
}

/// A decoded JSON value as Go's `fmt` prints it with `%v` (numbers are `float64`).
fn go_print(v: &Value) -> String {
    match v {
        Value::Null => "<nil>".to_string(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => go_float(n.as_f64().unwrap_or_default()),
        Value::String(s) => s.clone(),
        Value::Array(items) => {
            let parts: Vec<String> = items.iter().map(go_print).collect();
            format!("[{}]", parts.join(" "))
        }
        Value::Object(m) => {
            let mut keys: Vec<&String> = m.keys().collect();
            sort::sort(&mut keys);
            let parts: Vec<String> = keys
                .iter()
                .map(|k| format!("{k}:{}", go_print(&m[k.as_str()])))
                .collect();
            format!("map[{}]", parts.join(" "))
        }
    }
}

/// `strconv.FormatFloat(f, 'g', -1, 64)`: the shortest digits, with an exponent (`1e+06`)
/// when the exponent is below -4 or at least 6, as `%v` prints a float64.
fn go_float(f: f64) -> String {
    if f == 0.0 || !f.is_finite() {
        return match f {
            x if x.is_nan() => "NaN".to_string(),
            x if x == f64::INFINITY => "+Inf".to_string(),
            x if x == f64::NEG_INFINITY => "-Inf".to_string(),
            _ => "0".to_string(),
        };
    }
    let sci = format!("{f:e}");
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or_default();
    if !(-4..6).contains(&exp) {
        let sign = if exp < 0 { '-' } else { '+' };
        format!("{mantissa}e{sign}{:02}", exp.abs())
    } else {
        format!("{f}")
    }
}

/// The template's `indent`: `amount` spaces before every line.
fn indent(amount: usize, text: &str) -> String {
    let pad = " ".repeat(amount);
    format!("{pad}{}", text.replace('\n', &format!("\n{pad}")))
}

/// `wordwrap.WrapString` (go-wordwrap v1.0.1) behind kubectl's word-wrap writer: breaks at
/// white space so lines stay within `limit` characters where words allow, keeps the text's own
/// line breaks; a limit of 0 or less (a `uint` of 0 or beyond any line) wraps nothing.
fn wrap(limit: i64, text: &str) -> String {
    let Ok(limit) = usize::try_from(limit) else {
        return text.to_string();
    };
    if limit == 0 {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len());
    let (mut current, mut word_len, mut space_len) = (0usize, 0usize, 0usize);
    let (mut word, mut space) = (String::new(), String::new());
    for c in text.chars() {
        if c == '\n' {
            if word.is_empty() {
                if current + space_len <= limit {
                    out.push_str(&space);
                }
            } else {
                out.push_str(&space);
                out.push_str(&word);
                word.clear();
                word_len = 0;
            }
            space.clear();
            space_len = 0;
            out.push(c);
            current = 0;
        } else if c.is_whitespace() && c != '\u{a0}' {
            if space.is_empty() || !word.is_empty() {
                current += space_len + word_len;
                out.push_str(&space);
                out.push_str(&word);
                space.clear();
                word.clear();
                space_len = 0;
                word_len = 0;
            }
            space.push(c);
            space_len += 1;
        } else {
            word.push(c);
            word_len += 1;
            if current + word_len + space_len > limit && word_len < limit {
                out.push('\n');
                current = 0;
                space.clear();
                space_len = 0;
            }
        }
    }
    if word.is_empty() {
        if current + space_len <= limit {
            out.push_str(&space);
        }
    } else {
        out.push_str(&space);
        out.push_str(&word);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn wrap_breaks_at_spaces_like_go_wordwrap() {
        assert_eq!(wrap(10, "aaa bbb ccc ddd"), "aaa bbb\nccc ddd");
        assert_eq!(wrap(5, "a\nbb cc dd"), "a\nbb cc\ndd");
        assert_eq!(wrap(4, "averylongword x"), "averylongword\nx");
        assert_eq!(wrap(76, "ends.\n"), "ends.\n");
        assert_eq!(wrap(0, "a b c"), "a b c");
        assert_eq!(wrap(-2, "a b c"), "a b c");
        assert_eq!(indent(4, "a\nb\n"), "    a\n    b\n    ");
    }

    #[test]
    fn go_values_print_as_fmt_does() {
        assert_eq!(go_float(1.0), "1");
        assert_eq!(go_float(1.5), "1.5");
        assert_eq!(go_float(123456.0), "123456");
        assert_eq!(go_float(1_000_000.0), "1e+06");
        assert_eq!(go_float(0.00001), "1e-05");
        assert_eq!(
            go_print(&json!({"version": "v1", "kind": "Pod", "group": ""})),
            "map[group: kind:Pod version:v1]"
        );
        assert_eq!(go_print(&json!([true, null])), "[true <nil>]");
    }

    #[test]
    fn group_versions_parse_as_schema_does() {
        assert_eq!(
            parse_group_version("apps/v1").ok(),
            Some(("apps".into(), "v1".into()))
        );
        assert_eq!(
            parse_group_version("v1").ok(),
            Some((String::new(), "v1".into()))
        );
        assert_eq!(
            parse_group_version("a/b/c").unwrap_err().stderr,
            "error: unexpected GroupVersion string: a/b/c\n"
        );
    }

    fn document() -> Value {
        json!({
            "paths": {
                "/apis/example.com/v1/namespaces/{namespace}/things": {
                    "get": {"x-kubernetes-group-version-kind": {"group": "example.com", "version": "v1", "kind": "Thing"}}
                },
                "/apis/example.com/v1/namespaces/{namespace}/things/{name}": {"parameters": []}
            },
            "components": {"schemas": {
                "com.example.v1.Thing": {
                    "type": "object",
                    "description": "A thing.",
                    "required": ["spec"],
                    "x-kubernetes-group-version-kind": [{"group": "example.com", "version": "v1", "kind": "Thing"}],
                    "properties": {
                        "spec": {"allOf": [{"$ref": "#/components/schemas/com.example.v1.Spec"}]},
                        "mode": {"type": "string", "enum": ["", "a", "b", "c", "d"]},
                        "tags": {"type": "object", "additionalProperties": {"type": "string"}},
                    }
                },
                "com.example.v1.Spec": {
                    "type": "object",
                    "description": "The spec.",
                    "properties": {
                        "next": {"allOf": [{"$ref": "#/components/schemas/com.example.v1.Spec"}]},
                        "ports": {"type": "array", "items": {"type": "integer"}},
                    }
                }
            }}
        })
    }

    fn gvr() -> Gvr {
        Gvr {
            group: "example.com".into(),
            version: "v1".into(),
            resource: "things".into(),
        }
    }

    #[test]
    fn fields_print_with_types_enums_and_required() {
        let out = render(&document(), &gvr(), &[], false);
        assert_eq!(out.error, None);
        assert_eq!(
            out.stdout,
            "GROUP:      example.com\nKIND:       Thing\nVERSION:    v1\n\nDESCRIPTION:\n    A thing.\n    \nFIELDS:\n  mode\t<string>\n  enum: \"\", a, b, c, ....\n    <no description>\n\n  spec\t<Spec> -required-\n    <no description>\n\n  tags\t<map[string]string>\n    <no description>\n\n\n"
        );
    }

    #[test]
    fn recursion_stops_at_a_cycle_and_a_missing_field_names_the_last_word() {
        let out = render(&document(), &gvr(), &["spec".into()], true);
        assert_eq!(
            out.stdout,
            "GROUP:      example.com\nKIND:       Thing\nVERSION:    v1\n\nFIELD: spec <Spec>\n\n\nDESCRIPTION:\n    The spec.\n    \nFIELDS:\n  next\t<Spec>\n  ports\t<[]integer>\n\n"
        );
        let missing = render(
            &document(),
            &gvr(),
            &["spec".into(), "nope".into(), "x".into()],
            false,
        );
        assert_eq!(missing.error.as_deref(), Some("field \"x\" does not exist"));
        assert!(missing.stdout.ends_with("VERSION:    v1\n\n"));
        let mode = render(&document(), &gvr(), &["mode".into()], false);
        assert!(
            mode.stdout.contains("FIELD: mode <string>\nENUM:\n    \"\"\n    a\n    b\n    c\n    d\n\nDESCRIPTION:\n    <empty>\n"),
            "{}",
            mode.stdout
        );
        let other = Gvr {
            resource: "others".into(),
            ..gvr()
        };
        assert_eq!(
            render(&document(), &other, &[], false).error.as_deref(),
            Some("GVR (example.com/v1, Resource=others) not found in OpenAPI schema")
        );
    }
}
