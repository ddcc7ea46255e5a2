//! `-o` output formats: the human-readable table (default and `wide`), `json` (4-space indent,
//! as kubectl's JSONPrinter), `yaml`, `name`, `jsonpath=...` and `custom-columns=...`, with
//! kubectl's error texts for unknown formats. The [`ObjectPrinter`] keeps state between calls
//! so a `get -w` stream prints its header once and keeps the table's column widths.

use crate::errors::CmdError;
use crate::resources::{self, ResourceType};
use crate::table_printer::{default_table, PrintOptions, TablePrinter};
use crate::tabwriter::TabWriter;
use serde::Serialize;
use serde_json::Value;
use watchlab_apimachinery::gofmt::{go_plain, go_quote, go_syntax};
use watchlab_apimachinery::jsonpath::{JsonPath, JsonPathError};
use watchlab_apimachinery::table::Table;
use watchlab_apimachinery::unstructured::{name, str_at};

/// Formats `kubectl get` accepts, in the order its error message lists them.
pub const GET_FORMATS: &str = "custom-columns,custom-columns-file,go-template,go-template-file,json,jsonpath,jsonpath-as-json,jsonpath-file,name,template,templatefile,wide,yaml";
/// Formats the object-creating commands (`run`, `create`, `apply`, `label`...) accept.
pub const OBJECT_FORMATS: &str = "go-template,go-template-file,json,jsonpath,jsonpath-as-json,jsonpath-file,name,template,templatefile,yaml";

/// A parsed `-o` value.
#[derive(Debug, Clone, PartialEq)]
pub enum OutputFormat {
    Table,
    Wide,
    Json,
    Yaml,
    Name,
    JsonPath(JsonPath),
    CustomColumns(Vec<(String, JsonPath)>),
}

impl OutputFormat {
    /// Parses `-o`; `allowed` is the command's list for the error text (tables only for get).
    pub fn parse(spec: Option<&str>, allowed: &str) -> Result<OutputFormat, CmdError> {
        let Some(spec) = spec.filter(|s| !s.is_empty()) else {
            return Ok(OutputFormat::Table);
        };
        let tables = allowed == GET_FORMATS;
        let (kind, arg) = match spec.split_once('=') {
            Some((k, a)) => (k, Some(a)),
            None => (spec, None),
        };
        match (kind, arg) {
            ("json", None) => Ok(OutputFormat::Json),
            ("yaml", None) => Ok(OutputFormat::Yaml),
            ("name", None) => Ok(OutputFormat::Name),
            ("wide", None) if tables => Ok(OutputFormat::Wide),
            ("jsonpath", a) => {
                let template = a.filter(|t| !t.is_empty()).ok_or_else(|| {
                    CmdError::msg("template format specified but no template given")
                })?;
                JsonPath::parse(template)
                    .map(OutputFormat::JsonPath)
                    .map_err(|e| CmdError::raw(parse_error_text(template, &e)))
            }
            ("custom-columns", a) if tables => parse_custom_columns(a.unwrap_or_default()),
            _ => Err(CmdError::msg(format!(
                "unable to match a printer suitable for the output format \"{spec}\", allowed formats are: {allowed}"
            ))),
        }
    }

    /// Whether this is one of the human-readable table formats.
    pub fn is_table(&self) -> bool {
        matches!(
            self,
            OutputFormat::Table | OutputFormat::Wide | OutputFormat::CustomColumns(_)
        )
    }

    /// Whether the server prints it (kubectl's human-readable printer: the default and `-o
    /// wide`), so `get` asks for Tables.
    pub fn is_server_printed(&self) -> bool {
        matches!(self, OutputFormat::Table | OutputFormat::Wide)
    }
}

fn parse_custom_columns(spec: &str) -> Result<OutputFormat, CmdError> {
    if spec.is_empty() {
        return Err(CmdError::msg(
            "custom-columns format specified but no custom columns given",
        ));
    }
    let mut columns = Vec::new();
    for col in spec.split(',') {
        let Some((header, path)) = col.split_once(':') else {
            return Err(CmdError::msg(format!(
                "unexpected custom-columns spec: {col}, expected <header>:<json-path-expr>"
            )));
        };
        let expr = relaxed(path).map_err(CmdError::msg)?;
        let jp = JsonPath::parse(&expr).map_err(|e| CmdError::raw(parse_error_text(&expr, &e)))?;
        columns.push((header.to_string(), jp));
    }
    Ok(OutputFormat::CustomColumns(columns))
}

/// JSON with kubectl's 4-space indentation and a trailing newline.
pub fn to_json(v: &Value) -> String {
    let mut buf = Vec::new();
    let fmt = serde_json::ser::PrettyFormatter::with_indent(b"    ");
    let mut ser = serde_json::Serializer::with_formatter(&mut buf, fmt);
    match v.serialize(&mut ser) {
        Ok(()) => format!("{}\n", String::from_utf8_lossy(&buf)),
        Err(_) => format!("{v}\n"),
    }
}

/// YAML as kubectl prints it (keys sorted, block style). go-yaml resolves plain scalars by
/// YAML 1.1 rules, so strings that would read back as something else (`"y"`, `"on"`, `"123"`,
/// `""`, timestamps like `"2026-01-01T00:00:00Z"`) are written double-quoted, as kubectl does;
/// Whether `obj` (or an item of a list) carries `metadata.managedFields`.
fn has_managed_fields(obj: &Value) -> bool {
    obj.pointer("/metadata/managedFields").is_some()
        || obj["items"]
            .as_array()
            .is_some_and(|items| items.iter().any(has_managed_fields))
}

/// `OmitManagedFieldsPrinter`: `obj` (and a list's items) without `metadata.managedFields`.
fn omit_managed_fields(obj: &Value) -> Value {
    let mut out = obj.clone();
    let strip = |v: &mut Value| {
        if let Some(meta) = v.get_mut("metadata").and_then(Value::as_object_mut) {
            meta.remove("managedFields");
        }
    };
    strip(&mut out);
    if let Some(items) = out.get_mut("items").and_then(Value::as_array_mut) {
        items.iter_mut().for_each(strip);
    }
    out
}

/// serde_yaml_ng follows YAML 1.2, so those strings are swapped for placeholders and quoted after.
pub fn to_yaml(v: &Value) -> String {
    let mut quoted = Vec::new();
    let marked = mark_ambiguous(v, &mut quoted);
    let text = serde_yaml_ng::to_string(&marked).unwrap_or_else(|e| format!("# {e}\n"));
    if quoted.is_empty()
        || quoted
            .iter()
            .any(|q| v.to_string().contains(&placeholder(q.0)))
    {
        return text;
    }
    let mut out = text;
    for (i, s) in quoted.iter().rev() {
        let json = serde_json::to_string(s).unwrap_or_default();
        out = out.replace(&placeholder(*i), &json);
    }
    out
}

fn placeholder(i: usize) -> String {
    format!("wlqz{i:08}zqlw")
}

fn mark_ambiguous(v: &Value, quoted: &mut Vec<(usize, String)>) -> Value {
    match v {
        Value::String(s) if yaml11_ambiguous(s) => {
            let i = quoted.len();
            quoted.push((i, s.clone()));
            Value::String(placeholder(i))
        }
        Value::Array(a) => Value::Array(a.iter().map(|x| mark_ambiguous(x, quoted)).collect()),
        Value::Object(m) => Value::Object(
            m.iter()
                .map(|(k, x)| (k.clone(), mark_ambiguous(x, quoted)))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// Whether a plain scalar `s` would not read back as a string under YAML 1.1 (go-yaml v2).
fn yaml11_ambiguous(s: &str) -> bool {
    const WORDS: &[&str] = &[
        "y", "Y", "yes", "Yes", "YES", "n", "N", "no", "No", "NO", "true", "True", "TRUE", "false",
        "False", "FALSE", "on", "On", "ON", "off", "Off", "OFF", "~", "null", "Null", "NULL",
        ".inf", ".Inf", ".INF", "-.inf", "+.inf", ".nan", ".NaN", ".NAN",
    ];
    if s.is_empty() || WORDS.contains(&s) {
        return true;
    }
    let b = s.as_bytes();
    let numeric_start = b
        .first()
        .is_some_and(|c| c.is_ascii_digit() || b"+-.".contains(c));
    if numeric_start && !s.contains(char::is_whitespace) {
        let plain = s.replace('_', "");
        let hex = plain
            .strip_prefix("0x")
            .is_some_and(|h| !h.is_empty() && h.chars().all(|c| c.is_ascii_hexdigit()));
        let number = plain.parse::<f64>().is_ok()
            && !plain
                .chars()
                .any(|c| c.is_ascii_alphabetic() && c != 'e' && c != 'E');
        if hex || number {
            return true;
        }
    }
    // YAML 1.1 timestamps: 2026-01-01, 2026-01-01T00:00:00Z ...
    b.len() >= 10
        && b.get(..4).is_some_and(|y| y.iter().all(u8::is_ascii_digit))
        && b.get(4) == Some(&b'-')
        && b.get(5).is_some_and(u8::is_ascii_digit)
}

/// `pod/x`, `deployment.apps/x`: how kubectl names an object in messages and `-o name`.
pub fn object_ref(obj: &Value) -> String {
    let kind = str_at(obj, &["kind"]).unwrap_or_default();
    let api_version = str_at(obj, &["apiVersion"]).unwrap_or_default();
    let group = api_version.rsplit_once('/').map_or("", |(g, _)| g);
    let prefix = resources::kind_prefix(kind, group);
    format!("{prefix}/{}", name(obj))
}

/// Table options chosen by `get`'s flags.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TableOptions {
    pub with_namespace: bool,
    pub show_labels: bool,
    pub no_headers: bool,
    /// Prefix names with `kind/` (several types requested, or `--show-kind`).
    pub with_kind: bool,
    /// `--output-watch-events`: an EVENT column first.
    pub watch_events: bool,
    /// `-L key,...`: a column per label key.
    pub column_labels: Vec<String>,
}

/// Prints objects in one format, remembering the table header and widths between calls.
#[derive(Debug, Clone)]
pub struct ObjectPrinter {
    format: OutputFormat,
    options: TableOptions,
    allow_missing: bool,
    /// `--show-managed-fields`: keep `metadata.managedFields` (kubectl omits them by default).
    show_managed_fields: bool,
    header_done: bool,
    printed: usize,
    tab: TabWriter,
    /// The current resource type's table layout (a new one per type, as kubectl's per mapping).
    tables: Option<TablePrinter>,
}

impl ObjectPrinter {
    pub fn new(format: OutputFormat, options: TableOptions, allow_missing: bool) -> Self {
        ObjectPrinter {
            format,
            options,
            allow_missing,
            show_managed_fields: false,
            header_done: false,
            printed: 0,
            tab: TabWriter::new(),
            tables: None,
        }
    }

    /// The `-o` format it prints.
    pub fn format(&self) -> &OutputFormat {
        &self.format
    }

    /// `kind/` before the names (several types printed, or `--show-kind`).
    pub fn with_kind(mut self, with_kind: bool) -> Self {
        self.options.with_kind = with_kind;
        self
    }

    /// `--show-managed-fields`.
    pub fn show_managed_fields(mut self, show: bool) -> Self {
        self.show_managed_fields = show;
        self
    }

    /// Starts a new table (a new resource type in `get pods,deployments`): a blank line, then
    /// a fresh header and widths.
    pub fn next_table(&mut self) -> String {
        let sep = if self.header_done && !self.options.no_headers {
            "\n"
        } else {
            ""
        };
        self.header_done = false;
        self.tab = TabWriter::new();
        self.tables = None;
        sep.to_string()
    }

    /// Lays out a Table the server printed for the resource `rt` (default and `-o wide`
    /// output), with kubectl's decorations; `event` is the watch event's type for
    /// `--output-watch-events`.
    pub fn print_table(
        &mut self,
        rt: Option<&ResourceType>,
        table: &Table,
        event: Option<&str>,
    ) -> String {
        let options = &self.options;
        let wide = self.format == OutputFormat::Wide;
        let printer = self.tables.get_or_insert_with(|| {
            TablePrinter::new(PrintOptions {
                wide,
                no_headers: options.no_headers,
                // `-A` adds NAMESPACE to a namespaced resource's table only (kubectl's get:
                // no namespace column for a cluster-scoped mapping).
                with_namespace: options.with_namespace && rt.is_none_or(|r| r.namespaced),
                show_labels: options.show_labels,
                column_labels: options.column_labels.clone(),
                kind: rt
                    .filter(|_| options.with_kind)
                    .map(ResourceType::kind_prefix),
            })
        });
        let event = event.filter(|_| options.watch_events);
        let lines = printer.lines(table, event);
        if !table.rows.is_empty() {
            self.header_done = true;
        }
        self.printed += table.rows.len();
        self.tab.render(&lines)
    }

    /// Prints items of the resource `rt` as table rows (or one by one for other formats).
    /// `events` gives the watch event type per item for `--output-watch-events`.
    pub fn print_items(
        &mut self,
        rt: Option<&ResourceType>,
        items: &[Value],
        events: Option<&[String]>,
        now_unix_ms: i64,
    ) -> Result<String, CmdError> {
        if !self.format.is_table() {
            let mut out = String::new();
            for item in items {
                out.push_str(&self.print_object(item)?);
            }
            return Ok(out);
        }
        if items.is_empty() {
            return Ok(String::new());
        }
        let OutputFormat::CustomColumns(cols) = &self.format else {
            // Objects the server did not print: kubectl's NAME and AGE.
            let table = default_table(items, now_unix_ms);
            let event = events.and_then(|e| e.first()).map(String::as_str);
            return Ok(self.print_table(rt, &table, event));
        };
        let (mut headers, mut rows) = custom_columns(cols, items);
        if let (true, Some(events)) = (self.options.watch_events, events) {
            headers.insert(0, "EVENT".into());
            for (row, ev) in rows.iter_mut().zip(events) {
                row.insert(0, ev.clone());
            }
        }
        let mut all = Vec::with_capacity(rows.len() + 1);
        if !self.header_done && !self.options.no_headers {
            all.push(headers);
        }
        self.header_done = true;
        all.extend(rows);
        self.printed += items.len();
        Ok(self.tab.render(&all))
    }

    /// Prints one object in a non-table format (json, yaml, name, jsonpath).
    pub fn print_object(&mut self, obj: &Value) -> Result<String, CmdError> {
        let omitted;
        let obj = if self.show_managed_fields || !has_managed_fields(obj) {
            obj
        } else {
            omitted = omit_managed_fields(obj);
            &omitted
        };
        let out = match &self.format {
            OutputFormat::Json => to_json(obj),
            OutputFormat::Yaml => {
                let sep = if self.printed > 0 { "---\n" } else { "" };
                format!("{sep}{}", to_yaml(obj))
            }
            OutputFormat::Name => format!("{}\n", object_ref(obj)),
            OutputFormat::JsonPath(jp) => jp
                .execute(obj, self.allow_missing)
                .map_err(|e| CmdError::raw(execution_error_text(jp.template(), &e, obj)))?,
            _ => {
                // Only table formats get here, which the callers print with the type.
                return self.print_items(None, std::slice::from_ref(obj), None, 0);
            }
        };
        self.printed += 1;
        Ok(out)
    }

    /// How many objects have been printed so far.
    pub fn printed(&self) -> usize {
        self.printed
    }
}

/// `-o custom-columns`: one column per spec, values joined by commas, `<none>` when missing.
fn custom_columns(cols: &[(String, JsonPath)], items: &[Value]) -> (Vec<String>, Vec<Vec<String>>) {
    let headers = cols.iter().map(|(h, _)| h.clone()).collect();
    let rows = items
        .iter()
        .map(|item| {
            cols.iter()
                .map(|(_, jp)| {
                    let found = jp.find(item, true).unwrap_or_default();
                    let values: Vec<String> = found.iter().flatten().map(go_plain).collect();
                    if values.is_empty() {
                        "<none>".to_string()
                    } else {
                        values.join(",")
                    }
                })
                .collect()
        })
        .collect();
    (headers, rows)
}

/// kubectl's `RelaxedJSONPathExpression`: `.a.b`, `a.b`, `{a.b}` and `{.a.b}` all mean `{.a.b}`.
pub fn relaxed(expr: &str) -> Result<String, String> {
    if expr.is_empty() {
        return Ok(String::new());
    }
    let inner = match expr.strip_prefix('{').and_then(|e| e.strip_suffix('}')) {
        Some(inner) => inner,
        None => expr,
    };
    let inner = inner.strip_prefix('.').unwrap_or(inner);
    if inner.is_empty() || inner.contains(['{', '}']) {
        return Err("unexpected path string, expected a 'name1.name2' or '.name1.name2' or '{name1.name2}' or '{.name1.name2}'".into());
    }
    Ok(format!("{{.{inner}}}"))
}

/// The full text kubectl prints when executing a template fails.
pub fn execution_error_text(template: &str, err: &JsonPathError, data: &Value) -> String {
    format!(
        "error: error executing jsonpath {}: Error executing template: {err}. Printing more information for debugging the template:\n\ttemplate was:\n\t\t{template}\n\tobject given to jsonpath engine was:\n\t\t{}\n\n\n",
        go_quote(template),
        go_syntax(data)
    )
}

/// The text kubectl prints when a template does not parse.
pub fn parse_error_text(template: &str, err: &JsonPathError) -> String {
    format!("error: error parsing jsonpath {template}, {err}\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn format_errors_match_kubectl() {
        assert_eq!(
            OutputFormat::parse(Some("bogus"), OBJECT_FORMATS).unwrap_err().stderr,
            "error: unable to match a printer suitable for the output format \"bogus\", allowed formats are: go-template,go-template-file,json,jsonpath,jsonpath-as-json,jsonpath-file,name,template,templatefile,yaml\n"
        );
        assert_eq!(
            OutputFormat::parse(Some("jsonpath"), GET_FORMATS)
                .unwrap_err()
                .stderr,
            "error: template format specified but no template given\n"
        );
        assert_eq!(
            OutputFormat::parse(Some("jsonpath={.foo"), GET_FORMATS)
                .unwrap_err()
                .stderr,
            "error: error parsing jsonpath {.foo, unclosed action\n"
        );
        assert_eq!(
            OutputFormat::parse(Some("custom-columns=NAME"), GET_FORMATS)
                .unwrap_err()
                .stderr,
            "error: unexpected custom-columns spec: NAME, expected <header>:<json-path-expr>\n"
        );
        assert!(OutputFormat::parse(Some("wide"), OBJECT_FORMATS).is_err());
    }

    #[test]
    fn json_yaml_name() {
        let obj = json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "x"}, "spec": {"n": "y"}});
        assert_eq!(
            to_json(&obj),
            "{\n    \"apiVersion\": \"apps/v1\",\n    \"kind\": \"Deployment\",\n    \"metadata\": {\n        \"name\": \"x\"\n    },\n    \"spec\": {\n        \"n\": \"y\"\n    }\n}\n"
        );
        assert_eq!(
            to_yaml(&obj),
            "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: x\nspec:\n  n: \"y\"\n"
        );
        assert_eq!(object_ref(&obj), "deployment.apps/x");
    }

    #[test]
    fn yaml_quotes_what_yaml_1_1_would_misread() {
        let v = json!({"a": "2026-01-01T00:00:00Z", "b": "123", "c": "on", "d": "", "e": "a: b", "f": "nginx", "g": null, "h": 3, "i": "1.0"});
        assert_eq!(
            to_yaml(&v),
            "a: \"2026-01-01T00:00:00Z\"\nb: \"123\"\nc: \"on\"\nd: \"\"\ne: 'a: b'\nf: nginx\ng: null\nh: 3\ni: \"1.0\"\n"
        );
    }

    #[test]
    fn custom_columns_print() {
        let fmt = OutputFormat::parse(
            Some("custom-columns=NAME:.metadata.name,RV:{.metadata.resourceVersion},X:.spec.none"),
            GET_FORMATS,
        )
        .unwrap();
        let mut p = ObjectPrinter::new(fmt, TableOptions::default(), true);
        let items = [json!({"metadata": {"name": "a", "resourceVersion": "7"}})];
        assert_eq!(
            p.print_items(None, &items, None, 0).unwrap(),
            "NAME   RV    X\na      7     <none>\n"
        );
    }

    #[test]
    fn error_texts_wrap_like_kubectl() {
        let err = JsonPathError::Exec("foo is not found".into());
        let text = execution_error_text("{.foo}", &err, &json!({"a": 1}));
        assert_eq!(
            text,
            "error: error executing jsonpath \"{.foo}\": Error executing template: foo is not found. Printing more information for debugging the template:\n\ttemplate was:\n\t\t{.foo}\n\tobject given to jsonpath engine was:\n\t\tmap[string]interface {}{\"a\":1}\n\n\n"
        );
        assert_eq!(
            parse_error_text("{.foo", &JsonPathError::Parse("unclosed action".into())),
            "error: error parsing jsonpath {.foo, unclosed action\n"
        );
    }

    #[test]
    fn relaxed_paths() {
        assert_eq!(relaxed(".lastTimestamp").unwrap(), "{.lastTimestamp}");
        assert_eq!(relaxed("metadata.name").unwrap(), "{.metadata.name}");
        assert_eq!(relaxed("{.a.b}").unwrap(), "{.a.b}");
        assert!(relaxed("{a}{b}").is_err());
    }
}
