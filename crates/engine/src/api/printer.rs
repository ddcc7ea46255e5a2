//! Server-side printing's vocabulary for the kinds' registry modules: a kind declares its Table
//! columns as `pkg/printers/internalversion` registers them (`AddHandlers`: name, type, priority)
//! and computes each object's cells from the object ([`super::resource::Rules::columns`] and
//! [`super::resource::Rules::row`]); the API server turns them into a `meta.k8s.io/v1` Table
//! (`crate::apiserver::table`). Also here: the two convertors that are not a kind's own, the
//! generic server's default (`Name`, `Created At`, k8s.io/apiserver `rest.DefaultTableConvertor`)
//! and a custom resource's (`additionalPrinterColumns` read by JSONPath, apiextensions-apiserver's
//! `tableconvertor`), and the cell helpers several kinds share.
//!
//! Cells are read from the object's JSON (as `unstructured` fields), so the page, kubectl and the
//! real kubectl all see the same text for the same stored object. Column descriptions are left
//! empty (the real ones are the API types' swagger docs).

use super::apiextensions::PrinterColumn;
use serde_json::{json, Value};
use watchlab_apimachinery::duration::since;
pub use watchlab_apimachinery::gofmt::join_host_port;
use watchlab_apimachinery::jsonpath::JsonPath;
pub use watchlab_apimachinery::labels::selector_string;
pub use watchlab_apimachinery::table::or_none;
use watchlab_apimachinery::table::TableColumnDefinition;
use watchlab_apimachinery::unstructured::{array, str_at, string};

/// One column as a printer registers it (`metav1.TableColumnDefinition` without description).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Column {
    /// As the server names it (`Name`, `Nominated Node`); kubectl upper-cases it.
    pub name: &'static str,
    /// `string`, `integer`, `date`...
    pub type_: &'static str,
    /// 0: always shown; 1: only with `-o wide`.
    pub priority: i32,
}

/// A column of a kind's printer.
pub const fn column(name: &'static str, type_: &'static str, priority: i32) -> Column {
    Column {
        name,
        type_,
        priority,
    }
}

/// The `Name` column every printer starts with (`format: name`).
pub const NAME: Column = column("Name", "string", 0);
/// The `Age` column (`metadata.creationTimestamp` as a human duration).
pub const AGE: Column = column("Age", "string", 0);

/// The wire definitions of `columns`; a column named `Name` has the `name` format.
pub fn definitions(columns: &[Column]) -> Vec<TableColumnDefinition> {
    columns
        .iter()
        .map(|c| TableColumnDefinition {
            name: c.name.to_string(),
            type_: c.type_.to_string(),
            format: if c.name == "Name" { "name" } else { "" }.to_string(),
            description: String::new(),
            priority: c.priority,
        })
        .collect()
}

/// A text cell.
pub fn text(s: impl Into<String>) -> Value {
    Value::String(s.into())
}

/// `metadata.name` as a cell.
pub fn name(obj: &Value) -> Value {
    text(string(obj, &["metadata", "name"]))
}

/// The AGE cell: `metadata.creationTimestamp` against `now_unix_ms`.
pub fn age(obj: &Value, now_unix_ms: i64) -> Value {
    text(since(
        str_at(obj, &["metadata", "creationTimestamp"]),
        now_unix_ms,
    ))
}

/// The CONTAINERS and IMAGES cells of a workload's pod template (`layoutContainerCells`).
pub fn containers_and_images(workload: &Value) -> (Value, Value) {
    let containers = array(workload, &["spec", "template", "spec", "containers"]);
    let names: Vec<String> = containers.iter().map(|c| string(c, &["name"])).collect();
    let images: Vec<String> = containers.iter().map(|c| string(c, &["image"])).collect();
    (text(names.join(",")), text(images.join(",")))
}

/// Entries a list cell shows before `+ N more...`.
const MAX_LISTED: usize = 3;

/// `first,second,third + N more...` (`listWithMoreString`), `""` for none.
pub fn listed(items: &[String]) -> String {
    let shown: Vec<&str> = items.iter().take(MAX_LISTED).map(String::as_str).collect();
    let ret = shown.join(",");
    if items.len() > MAX_LISTED {
        format!("{ret} + {} more...", items.len() - MAX_LISTED)
    } else {
        ret
    }
}

/// How many entries the map at `key` has (a ConfigMap's or Secret's DATA).
pub fn entries(obj: &Value, key: &str) -> usize {
    obj.get(key)
        .and_then(Value::as_object)
        .map_or(0, |m| m.len())
}

/// The default table convertor's columns (k8s.io/apiserver `rest.DefaultTableConvertor`), for a
/// kind without a printer of its own (CustomResourceDefinition).
pub const DEFAULT_COLUMNS: [Column; 2] = [NAME, column("Created At", "date", 0)];

/// The default table convertor's cells: the name and `creationTimestamp` in RFC 3339.
pub fn default_row(obj: &Value) -> Vec<Value> {
    let created = at_or_null(obj, &["metadata", "creationTimestamp"]);
    vec![name(obj), created]
}

fn at_or_null(obj: &Value, path: &[&str]) -> Value {
    watchlab_apimachinery::unstructured::at(obj, path)
        .cloned()
        .unwrap_or(Value::Null)
}

/// The column a CustomResourceDefinition version without `additionalPrinterColumns` gets (the
/// v1 defaulting's `Age`, `.metadata.creationTimestamp`).
fn default_custom_columns() -> Vec<PrinterColumn> {
    vec![PrinterColumn {
        name: "Age".into(),
        type_: "date".into(),
        json_path: ".metadata.creationTimestamp".into(),
        ..Default::default()
    }]
}

fn declared(columns: &[PrinterColumn]) -> std::borrow::Cow<'_, [PrinterColumn]> {
    if columns.is_empty() {
        std::borrow::Cow::Owned(default_custom_columns())
    } else {
        std::borrow::Cow::Borrowed(columns)
    }
}

/// A custom resource's Table columns: `Name`, then its `additionalPrinterColumns`.
pub fn custom_columns(columns: &[PrinterColumn]) -> Vec<TableColumnDefinition> {
    let mut out = definitions(&[NAME]);
    out.extend(declared(columns).iter().map(|c| TableColumnDefinition {
        name: c.name.clone(),
        type_: c.type_.clone(),
        format: c.format.clone(),
        description: c.description.clone(),
        priority: c.priority,
    }));
    out
}

/// A custom object's cells: its name, then each column's value at its JSONPath (`<none>` when
/// there is none, a `date` as an age, an `integer` as a number).
pub fn custom_row(columns: &[PrinterColumn], obj: &Value, now_unix_ms: i64) -> Vec<Value> {
    let mut row = vec![name(obj)];
    row.extend(declared(columns).iter().map(|c| {
        let found = JsonPath::parse(&format!("{{{}}}", c.json_path))
            .ok()
            .and_then(|jp| jp.execute(obj, true).ok())
            .filter(|t| !t.is_empty());
        match (found, c.type_.as_str()) {
            (None, _) => text("<none>"),
            (Some(t), "date") => text(since(Some(&t), now_unix_ms)),
            (Some(t), "integer") => t.parse::<i64>().map_or_else(|_| text(t), |n| json!(n)),
            (Some(t), _) => text(t),
        }
    }));
    row
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn custom_columns_read_their_json_paths() {
        let columns = [
            PrinterColumn {
                name: "Host".into(),
                type_: "string".into(),
                json_path: ".spec.host".into(),
                ..Default::default()
            },
            PrinterColumn {
                name: "Replicas".into(),
                type_: "integer".into(),
                json_path: ".spec.replicas".into(),
                priority: 1,
                ..Default::default()
            },
            PrinterColumn {
                name: "Missing".into(),
                type_: "string".into(),
                json_path: ".status.nothing".into(),
                ..Default::default()
            },
        ];
        let defs = custom_columns(&columns);
        let names: Vec<&str> = defs.iter().map(|d| d.name.as_str()).collect();
        assert_eq!(names, ["Name", "Host", "Replicas", "Missing"]);
        assert_eq!((defs[0].format.as_str(), defs[2].priority), ("name", 1));
        let item = json!({"metadata": {"name": "blog"}, "spec": {"host": "h", "replicas": 2}});
        assert_eq!(
            custom_row(&columns, &item, 0),
            [json!("blog"), json!("h"), json!(2), json!("<none>")]
        );
    }

    #[test]
    fn a_definition_without_columns_prints_its_age() {
        let item = json!({"metadata": {"name": "x", "creationTimestamp": "2026-01-01T00:00:00Z"}});
        let now = watchlab_apimachinery::client::virtual_now_unix_ms(90_000);
        assert_eq!(custom_columns(&[])[1].name, "Age");
        assert_eq!(custom_row(&[], &item, now), [json!("x"), json!("90s")]);
    }

    #[test]
    fn the_default_convertor_prints_name_and_creation_time() {
        let item = json!({"metadata": {"name": "x", "creationTimestamp": "2026-01-01T00:00:00Z"}});
        assert_eq!(
            definitions(&DEFAULT_COLUMNS)[1].type_,
            "date",
            "Created At is a date"
        );
        assert_eq!(
            default_row(&item),
            [json!("x"), json!("2026-01-01T00:00:00Z")]
        );
    }

    #[test]
    fn selectors_print_like_label_selector_as_selector() {
        let sel = json!({"matchLabels": {"app": "web"}, "matchExpressions": [
            {"key": "tier", "operator": "In", "values": ["b", "a"]},
            {"key": "canary", "operator": "DoesNotExist"}]});
        assert_eq!(selector_string(Some(&sel)), "!canary,app=web,tier in (a,b)");
        assert_eq!(selector_string(None), "<none>");
    }
}
