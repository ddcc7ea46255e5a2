//! A custom resource's Table convertor (apiextensions-apiserver's
//! `pkg/registry/customresource/tableconvertor`): `Name`, then the CustomResourceDefinition
//! version's `additionalPrinterColumns`, each cell read from the object's JSON by its JSONPath.
//! Apart from [`super::printer`], which the built-in kinds' printers share, because it reads the
//! CustomResourceDefinition's own types.

use super::apiextensions::PrinterColumn;
use super::printer::{definitions, name, text, NAME};
use serde_json::{json, Value};
use watchlab_apimachinery::duration::since;
use watchlab_apimachinery::jsonpath::JsonPath;
use watchlab_apimachinery::table::TableColumnDefinition;

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
pub fn columns(columns: &[PrinterColumn]) -> Vec<TableColumnDefinition> {
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
pub fn row(columns: &[PrinterColumn], obj: &Value, now_unix_ms: i64) -> Vec<Value> {
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
        let printer_columns = [
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
        let defs = columns(&printer_columns);
        let names: Vec<&str> = defs.iter().map(|d| d.name.as_str()).collect();
        assert_eq!(names, ["Name", "Host", "Replicas", "Missing"]);
        assert_eq!((defs[0].format.as_str(), defs[2].priority), ("name", 1));
        let item = json!({"metadata": {"name": "blog"}, "spec": {"host": "h", "replicas": 2}});
        assert_eq!(
            row(&printer_columns, &item, 0),
            [json!("blog"), json!("h"), json!(2), json!("<none>")]
        );
    }

    #[test]
    fn a_definition_without_columns_prints_its_age() {
        let item = json!({"metadata": {"name": "x", "creationTimestamp": "2026-01-01T00:00:00Z"}});
        let now = watchlab_apimachinery::client::virtual_now_unix_ms(90_000);
        assert_eq!(columns(&[])[1].name, "Age");
        assert_eq!(row(&[], &item, now), [json!("x"), json!("90s")]);
    }
}
