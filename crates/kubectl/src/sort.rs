//! `--sort-by=<jsonpath>`: kubectl's RuntimeSort. Each object's first jsonpath result is the key;
//! objects without one sort first; numbers compare numerically, strings in natural order
//! (`pod-2` before `pod-10`, as kubectl's sortorder.NaturalLess), booleans false first. A
//! Table's rows sort by their embedded objects, as kubectl's TableSorter does.

use crate::errors::CmdError;
use crate::output::{parse_error_text, relaxed};
use serde_json::Value;
use std::cmp::Ordering;
use watchlab_apimachinery::jsonpath::JsonPath;
use watchlab_apimachinery::sort;
use watchlab_apimachinery::table::TableRow;

/// Sorts `items` by the field expression (`.lastTimestamp`, `{.metadata.name}`...).
pub fn sort_items(items: &mut [Value], expr: &str) -> Result<(), CmdError> {
    let keys = sort_keys(&items.iter().collect::<Vec<_>>(), expr)?;
    sort::sort_by_position(items, |a, b| key_order(&keys[a], &keys[b]));
    Ok(())
}

/// Sorts a Table's rows by the field expression read from each row's embedded object (kubectl's
/// `TableSorter`; `get --sort-by` asks the server for `includeObject=Object` so it can).
pub fn sort_rows(rows: &mut [TableRow], expr: &str) -> Result<(), CmdError> {
    let objects: Vec<&Value> = rows
        .iter()
        .map(|r| r.object.as_ref().unwrap_or(&Value::Null))
        .collect();
    let keys = sort_keys(&objects, expr)?;
    sort::sort_by_position(rows, |a, b| key_order(&keys[a], &keys[b]));
    Ok(())
}

/// Each object's sort key, its first jsonpath result (none when it has no such field).
fn sort_keys(items: &[&Value], expr: &str) -> Result<Vec<Option<Value>>, CmdError> {
    let template = relaxed(expr).map_err(CmdError::msg)?;
    let jp =
        JsonPath::parse(&template).map_err(|e| CmdError::raw(parse_error_text(&template, &e)))?;
    let key = |item: &Value| -> Option<Value> {
        jp.find(item, true)
            .ok()?
            .into_iter()
            .next()?
            .into_iter()
            .next()
            .filter(|v| !v.is_null())
    };
    let keys: Vec<Option<Value>> = items.iter().map(|i| key(i)).collect();
    if !items.is_empty() && keys.iter().all(Option::is_none) {
        return Err(CmdError::msg(format!(
            "couldn't find any field with path \"{template}\" in the list of objects"
        )));
    }
    Ok(keys)
}

/// Objects without a key first, then by [`compare`].
fn key_order(a: &Option<Value>, b: &Option<Value>) -> Ordering {
    match (a, b) {
        (None, None) => Ordering::Equal,
        (None, Some(_)) => Ordering::Less,
        (Some(_), None) => Ordering::Greater,
        (Some(x), Some(y)) => compare(x, y),
    }
}

fn compare(a: &Value, b: &Value) -> Ordering {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => {
            let (x, y) = (x.as_f64().unwrap_or(0.0), y.as_f64().unwrap_or(0.0));
            x.partial_cmp(&y).unwrap_or(Ordering::Equal)
        }
        (Value::String(x), Value::String(y)) => natural_cmp(x, y),
        (Value::Bool(x), Value::Bool(y)) => x.cmp(y),
        _ => a.to_string().cmp(&b.to_string()),
    }
}

/// Natural string order: runs of digits compare by numeric value.
pub fn natural_cmp(a: &str, b: &str) -> Ordering {
    let (mut a, mut b) = (a, b);
    loop {
        match (a.chars().next(), b.chars().next()) {
            (None, None) => return Ordering::Equal,
            (None, Some(_)) => return Ordering::Less,
            (Some(_), None) => return Ordering::Greater,
            (Some(x), Some(y)) if x.is_ascii_digit() && y.is_ascii_digit() => {
                let da = a.len() - a.trim_start_matches(|c: char| c.is_ascii_digit()).len();
                let db = b.len() - b.trim_start_matches(|c: char| c.is_ascii_digit()).len();
                let (na, ra) = a.split_at(da);
                let (nb, rb) = b.split_at(db);
                let (ta, tb) = (na.trim_start_matches('0'), nb.trim_start_matches('0'));
                let ord = ta.len().cmp(&tb.len()).then_with(|| ta.cmp(tb));
                if ord != Ordering::Equal {
                    return ord;
                }
                (a, b) = (ra, rb);
            }
            (Some(x), Some(y)) => {
                if x != y {
                    return x.cmp(&y);
                }
                (a, b) = (&a[x.len_utf8()..], &b[y.len_utf8()..]);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn sorts_by_timestamp_missing_first() {
        let mut items = vec![
            json!({"n": 1, "lastTimestamp": "2026-01-01T00:00:09Z"}),
            json!({"n": 2, "lastTimestamp": null}),
            json!({"n": 3, "lastTimestamp": "2026-01-01T00:00:01Z"}),
        ];
        sort_items(&mut items, ".lastTimestamp").unwrap();
        let order: Vec<i64> = items.iter().map(|i| i["n"].as_i64().unwrap()).collect();
        assert_eq!(order, [2, 3, 1]);
        assert!(sort_items(&mut items, ".nope")
            .unwrap_err()
            .stderr
            .contains("couldn't find any field with path \"{.nope}\""));
    }

    #[test]
    fn natural_order() {
        assert_eq!(natural_cmp("pod-2", "pod-10"), Ordering::Less);
        assert_eq!(natural_cmp("a", "b"), Ordering::Less);
        assert_eq!(natural_cmp("x10", "x010"), Ordering::Equal);
    }
}
