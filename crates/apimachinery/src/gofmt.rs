//! Go's `%v` and `%#v` renderings of decoded JSON (`map[string]interface {}` and friends).
//! JSONPath prints values in these forms (a map cell is `map[a:1]`), and kubectl's jsonpath errors
//! quote the object they ran on ("object given to jsonpath engine was:
//! `map[string]interface {}{...}`"), so the console and the API server reproduce them.

use serde_json::Value;

/// Go's `%#v` of the value as `encoding/json` + unstructured decode it (ints as int64).
pub fn go_syntax(v: &Value) -> String {
    match v {
        Value::Null => "interface {}(nil)".into(),
        Value::Object(m) => {
            let inner: Vec<String> = m
                .iter()
                .map(|(k, v)| format!("{}:{}", go_quote(k), go_syntax(v)))
                .collect();
            format!("map[string]interface {{}}{{{}}}", inner.join(", "))
        }
        Value::Array(a) => {
            let inner: Vec<String> = a.iter().map(go_syntax).collect();
            format!("[]interface {{}}{{{}}}", inner.join(", "))
        }
        Value::String(s) => go_quote(s),
        other => go_plain(other),
    }
}

/// Go's `%v` of the value.
pub fn go_plain(v: &Value) -> String {
    match v {
        Value::Null => "<nil>".into(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => match n.as_i64() {
            Some(i) => i.to_string(),
            None => n.as_f64().map(go_float).unwrap_or_else(|| n.to_string()),
        },
        Value::String(s) => s.clone(),
        Value::Array(a) => format!("[{}]", a.iter().map(go_plain).collect::<Vec<_>>().join(" ")),
        Value::Object(m) => format!(
            "map[{}]",
            m.iter()
                .map(|(k, v)| format!("{k}:{}", go_plain(v)))
                .collect::<Vec<_>>()
                .join(" ")
        ),
    }
}

/// The Go type name `%v` of `value.Type()` prints for a decoded JSON value.
pub fn go_type(v: &Value) -> &'static str {
    match v {
        Value::Null => "interface {}",
        Value::Bool(_) => "bool",
        Value::Number(n) if n.is_i64() => "int64",
        Value::Number(_) => "float64",
        Value::String(_) => "string",
        Value::Array(_) => "[]interface {}",
        Value::Object(_) => "map[string]interface {}",
    }
}

/// Go's `%v` of a float64 (`strconv.FormatFloat(f, 'g', -1, 64)` with Go's exponent form).
pub fn go_float(f: f64) -> String {
    let abs = f.abs();
    if abs != 0.0 && !(1e-4..1e21).contains(&abs) {
        let s = format!("{f:e}");
        match s.split_once('e') {
            Some((mantissa, exp)) => {
                let (sign, digits) = match exp.strip_prefix('-') {
                    Some(d) => ('-', d),
                    None => ('+', exp),
                };
                format!("{mantissa}e{sign}{digits:0>2}")
            }
            None => s,
        }
    } else {
        format!("{f}")
    }
}

/// Go's `%q` of a string.
pub fn go_quote(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            '\u{7}' => out.push_str("\\a"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '\u{b}' => out.push_str("\\v"),
            c if (c as u32) < 0x20 || c as u32 == 0x7f => {
                out.push_str(&format!("\\x{:02x}", c as u32))
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Go's `net.JoinHostPort` (brackets around IPv6).
pub fn join_host_port(ip: &str, port: i64) -> String {
    if ip.contains(':') {
        format!("[{ip}]:{port}")
    } else {
        format!("{ip}:{port}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn renders_like_go() {
        let v = json!({"a": null, "b": [1, "x"], "c": {"d": true}, "e": 1.5});
        assert_eq!(
            go_syntax(&v),
            r#"map[string]interface {}{"a":interface {}(nil), "b":[]interface {}{1, "x"}, "c":map[string]interface {}{"d":true}, "e":1.5}"#
        );
        assert_eq!(go_plain(&v), "map[a:<nil> b:[1 x] c:map[d:true] e:1.5]");
        assert_eq!(go_type(&json!("s")), "string");
        assert_eq!(go_float(1e21), "1e+21");
        assert_eq!(go_float(0.5), "0.5");
        assert_eq!(go_quote("a\"b\n"), r#""a\"b\n""#);
        assert_eq!(
            go_quote("\u{7}\u{1}"),
            r#""\a\x01""#,
            "strconv.Quote's short escapes"
        );
    }
}
