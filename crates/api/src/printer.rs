//! Server-side printing's vocabulary for the kinds' registry modules: a kind declares its Table
//! columns as `pkg/printers/internalversion` registers them (`AddHandlers`: name, type, priority)
//! and computes each object's cells from the object ([`super::resource::Rules::columns`] and
//! [`super::resource::Rules::row`]); the API server turns them into a `meta.k8s.io/v1` Table
//! (`watchlab_engine::apiserver::table`). Also here: the convertor that is not a kind's own,
//! the generic server's default (`Name`, `Created At`, k8s.io/apiserver
//! `rest.DefaultTableConvertor`), and the cell helpers several kinds share (a custom resource's
//! convertor is [`super::custom_table`]).
//!
//! Cells are read from the object's JSON (as `unstructured` fields), so the page, kubectl and the
//! real kubectl all see the same text for the same stored object. Column descriptions are left
//! empty (the real ones are the API types' swagger docs).

use serde_json::Value;
use watchlab_apimachinery::duration::since;
pub use watchlab_apimachinery::gofmt::join_host_port;
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
    containers_and_images_at(workload, &["spec", "template", "spec"])
}

/// The CONTAINERS and IMAGES cells of the pod spec at `spec` (a CronJob's is
/// `spec.jobTemplate.spec.template.spec`).
pub fn containers_and_images_at(workload: &Value, spec: &[&str]) -> (Value, Value) {
    let path: Vec<&str> = spec.iter().copied().chain(["containers"]).collect();
    let containers = array(workload, &path);
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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

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
