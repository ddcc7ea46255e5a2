//! kubectl's human-readable printer (cli-runtime `pkg/printers/tableprinter.go`): it lays out a
//! `meta.k8s.io/v1` [`Table`] whose columns and cells the API server computed, adding only
//! kubectl's client-side decorations: NAMESPACE first for `-A`, the `-L` label columns and
//! LABELS (`--show-labels`) last, `kind/` before the name column's cells (several types or
//! `--show-kind`), EVENT first for `--output-watch-events`; columns of priority above 0 only
//! with `-o wide`. Like the real `HumanReadablePrinter`, it prints the header once per column
//! set, so a `get -w` stream shows it once. A server that answers plain JSON instead of a Table
//! gets kubectl's default columns, NAME and AGE ([`default_table`]).

use serde_json::Value;
use watchlab_apimachinery::duration::since;
use watchlab_apimachinery::gofmt::go_plain;
use watchlab_apimachinery::table::{Table, TableColumnDefinition, TableRow};
use watchlab_apimachinery::unstructured::{joined_map, name, str_at, string_map};

/// What `get`'s flags ask of the layout (cli-runtime's `PrintOptions`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PrintOptions {
    /// `-o wide`: the columns of priority above 0 too.
    pub wide: bool,
    pub no_headers: bool,
    /// `-A` on a namespaced resource: a NAMESPACE column first.
    pub with_namespace: bool,
    /// `--show-labels`: a LABELS column last.
    pub show_labels: bool,
    /// `-L key1,key2`: one column per label key, before LABELS.
    pub column_labels: Vec<String>,
    /// `kind/` before the name column's cells (`pod`, `deployment.apps`), when several types
    /// are printed or `--show-kind` is given.
    pub kind: Option<String>,
}

/// Lays out Tables one after another, remembering the last column set so the header is printed
/// once (again only when the columns change), as `HumanReadablePrinter.PrintObj` does.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TablePrinter {
    options: PrintOptions,
    last_columns: Vec<TableColumnDefinition>,
    printed_headers: bool,
}

impl TablePrinter {
    pub fn new(options: PrintOptions) -> Self {
        TablePrinter {
            options,
            ..TablePrinter::default()
        }
    }

    /// The lines to lay out for `table` (the header when due, then one per row), the cells of
    /// each line in order; `event` (`ADDED`, `MODIFIED`...) adds an EVENT column first.
    pub fn lines(&mut self, table: &Table, event: Option<&str>) -> Vec<Vec<String>> {
        let mut options = self.options.clone();
        if self.printed_headers
            && (table.column_definitions.is_empty()
                || table.column_definitions == self.last_columns)
        {
            options.no_headers = true;
        }
        // A watch event's Table may leave out the columns (to save bandwidth): the last ones.
        let columns = if table.column_definitions.is_empty() {
            self.last_columns.clone()
        } else {
            if table.column_definitions != self.last_columns {
                self.last_columns = table.column_definitions.clone();
                self.printed_headers = false;
            }
            table.column_definitions.clone()
        };
        if !table.rows.is_empty() {
            self.printed_headers = true;
        }
        let (mut headers, mut rows) = visible(&columns, &table.rows, &options);
        if let Some(event) = event {
            headers.insert(0, "EVENT".into());
            for row in &mut rows {
                row.insert(0, event_type(event).into());
            }
        }
        // No header (nor anything else) for a Table without rows.
        if options.no_headers || rows.is_empty() {
            return rows;
        }
        let mut lines = Vec::with_capacity(rows.len() + 1);
        lines.push(headers);
        lines.extend(rows);
        lines
    }
}

/// The headers and the cells of `table` as printed with `options` (decorated, wide columns only
/// with `wide`, cells as text): what kubectl shows, for a page that draws it itself.
pub fn table_cells(table: &Table, options: &PrintOptions) -> (Vec<String>, Vec<Vec<String>>) {
    visible(&table.column_definitions, &table.rows, options)
}

/// `decorateTable`, then `printTable`'s choice of columns and cell text.
fn visible(
    columns: &[TableColumnDefinition],
    rows: &[TableRow],
    options: &PrintOptions,
) -> (Vec<String>, Vec<Vec<String>>) {
    let shown: Vec<usize> = columns
        .iter()
        .enumerate()
        .filter(|(_, c)| options.wide || c.priority == 0)
        .map(|(i, _)| i)
        .collect();
    let name_column = options.kind.as_ref().and_then(|_| {
        columns
            .iter()
            .position(|c| c.format == "name" && c.type_ == "string")
    });
    let mut headers: Vec<String> = Vec::new();
    if options.with_namespace {
        headers.push("NAMESPACE".into());
    }
    headers.extend(
        shown
            .iter()
            .filter_map(|&i| columns.get(i))
            .map(|c| c.name.to_uppercase()),
    );
    headers.extend(options.column_labels.iter().map(|l| label_header(l)));
    if options.show_labels {
        headers.push("LABELS".into());
    }
    let rows = rows
        .iter()
        .map(|row| {
            // The object's metadata, as the row embeds it (`PartialObjectMetadata` by default).
            let metadata = row.object.as_ref().and_then(|o| o.get("metadata"));
            let mut cells = Vec::with_capacity(headers.len());
            if options.with_namespace {
                cells.push(
                    metadata
                        .map(|m| m_string(m, "namespace"))
                        .unwrap_or_default(),
                );
            }
            for &i in &shown {
                let text = row.cells.get(i).map(cell_text).unwrap_or_default();
                match (&options.kind, name_column) {
                    (Some(kind), Some(n)) if n == i => cells.push(format!("{kind}/{text}")),
                    _ => cells.push(text),
                }
            }
            let labels = metadata
                .map(|m| string_map(m, &["labels"]))
                .unwrap_or_default();
            for key in &options.column_labels {
                let value = labels.iter().find(|(k, _)| k == key).map(|(_, v)| v);
                cells.push(value.cloned().unwrap_or_default());
            }
            if options.show_labels {
                cells.push(if metadata.is_some() {
                    joined_map(&labels)
                } else {
                    String::new()
                });
            }
            cells
        })
        .collect();
    (headers, rows)
}

fn m_string(metadata: &Value, key: &str) -> String {
    str_at(metadata, &[key]).unwrap_or_default().to_string()
}

/// `-L app.kubernetes.io/name` prints as `NAME`: the key's last segment, upper-cased
/// (`formatLabelHeaders`).
fn label_header(key: &str) -> String {
    key.rsplit('/').next().unwrap_or(key).to_uppercase()
}

/// `formatEventType`: the known types padded to eight characters.
fn event_type(event: &str) -> &str {
    match event {
        "ADDED" => "ADDED   ",
        "MODIFIED" => "MODIFIED",
        "DELETED" => "DELETED ",
        "ERROR" => "ERROR   ",
        other => other,
    }
}

/// A cell as `printTable` writes it: a string cut at its first line break with `...`, escape
/// characters made visible (`WriteEscaped`); other values as Go's `fmt.Sprint`; null as nothing.
pub fn cell_text(cell: &Value) -> String {
    let text = match cell {
        Value::Null => return String::new(),
        Value::String(s) => match s.find(['\u{c}', '\n', '\r']) {
            Some(cut) => format!("{}...", s.get(..cut).unwrap_or_default()),
            None => s.clone(),
        },
        other => go_plain(other),
    };
    text.replace('\u{1b}', "^[")
}

/// What kubectl prints for objects the server did not answer as a Table (a server without
/// server-side printing): NAME and AGE, each row carrying its object (the default handler,
/// `printObjectMeta`; `<unknown>` for an object without a creationTimestamp).
pub fn default_table(items: &[Value], now_unix_ms: i64) -> Table {
    let column = |name: &str, format: &str| TableColumnDefinition {
        name: name.into(),
        type_: "string".into(),
        format: format.into(),
        ..TableColumnDefinition::default()
    };
    Table {
        column_definitions: vec![column("Name", "name"), column("Age", "")],
        rows: items
            .iter()
            .map(|item| {
                let created = str_at(item, &["metadata", "creationTimestamp"]);
                let age = match created {
                    Some(_) => since(created, now_unix_ms),
                    None => "<unknown>".into(),
                };
                TableRow {
                    cells: vec![Value::String(name(item)), Value::String(age)],
                    object: Some(item.clone()),
                }
            })
            .collect(),
        ..Table::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn column(name: &str, priority: i32) -> TableColumnDefinition {
        TableColumnDefinition {
            name: name.into(),
            type_: "string".into(),
            format: if name == "Name" { "name" } else { "" }.into(),
            priority,
            ..TableColumnDefinition::default()
        }
    }

    fn pods() -> Table {
        Table {
            column_definitions: vec![column("Name", 0), column("Status", 0), column("Node", 1)],
            rows: vec![TableRow {
                cells: vec![json!("web-1"), json!("Running"), json!("node-a")],
                object: Some(json!({"kind": "PartialObjectMetadata", "metadata": {
                    "name": "web-1", "namespace": "shop",
                    "labels": {"app": "web", "app.kubernetes.io/tier": "fe"}}})),
            }],
            ..Table::default()
        }
    }

    #[test]
    fn decorations_surround_the_servers_columns() {
        let mut p = TablePrinter::new(PrintOptions {
            wide: true,
            with_namespace: true,
            show_labels: true,
            column_labels: vec!["app.kubernetes.io/tier".into(), "missing".into()],
            kind: Some("pod".into()),
            ..PrintOptions::default()
        });
        assert_eq!(
            p.lines(&pods(), None),
            [
                vec![
                    "NAMESPACE",
                    "NAME",
                    "STATUS",
                    "NODE",
                    "TIER",
                    "MISSING",
                    "LABELS"
                ],
                vec![
                    "shop",
                    "pod/web-1",
                    "Running",
                    "node-a",
                    "fe",
                    "",
                    "app=web,app.kubernetes.io/tier=fe"
                ],
            ]
        );
    }

    #[test]
    fn the_header_is_printed_once_per_column_set() {
        let mut p = TablePrinter::new(PrintOptions::default());
        assert_eq!(p.lines(&pods(), Some("ADDED")).len(), 2);
        let again = p.lines(&pods(), Some("MODIFIED"));
        assert_eq!(again, [vec!["MODIFIED", "web-1", "Running"]]);
        // A watch event's Table without columns reuses the last ones.
        let bare = Table {
            column_definitions: Vec::new(),
            ..pods()
        };
        assert_eq!(p.lines(&bare, None), [vec!["web-1", "Running"]]);
        let empty = Table {
            rows: Vec::new(),
            ..pods()
        };
        assert!(TablePrinter::new(PrintOptions::default())
            .lines(&empty, None)
            .is_empty());
        let mut quiet = TablePrinter::new(PrintOptions {
            no_headers: true,
            ..PrintOptions::default()
        });
        assert_eq!(quiet.lines(&pods(), Some("ADDED"))[0][0], "ADDED   ");
    }

    #[test]
    fn cells_print_as_kubectl_writes_them() {
        assert_eq!(cell_text(&json!("a\nb")), "a...");
        assert_eq!(cell_text(&json!("\u{1b}[31m")), "^[[31m");
        assert_eq!(cell_text(&json!(3)), "3");
        assert_eq!(cell_text(&json!(1.5)), "1.5");
        assert_eq!(cell_text(&json!(true)), "true");
        assert_eq!(cell_text(&Value::Null), "");
    }

    #[test]
    fn a_plain_answer_prints_name_and_age() {
        let t = default_table(&[json!({"metadata": {"name": "x"}})], 1_767_225_600_000);
        let (headers, rows) = table_cells(&t, &PrintOptions::default());
        assert_eq!(headers, ["NAME", "AGE"]);
        assert_eq!(rows, [vec!["x", "<unknown>"]]);
    }
}
