//! Field selectors (`k8s.io/apimachinery/pkg/fields`): `spec.nodeName=node-a,status.phase!=Running`.
//!
//! A kubelet watches only the pods bound to its node (`/api/v1/pods?fieldSelector=spec.nodeName%3Dnode-a`)
//! and the watch cache indexes exactly that field. The grammar is much smaller than the label
//! selector's: comma-separated `field=value`, `field==value` or `field!=value` terms, where `\`
//! escapes `,`, `=` and `\` inside values. Parsing, escaping, printing and the error texts follow
//! `fields.ParseSelector`.

use std::fmt;

/// `=` / `==` (Equals) or `!=` (NotEquals).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FieldOp {
    Equals,
    NotEquals,
}

/// One term: `field op value` (the value unescaped).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldRequirement {
    pub field: String,
    pub op: FieldOp,
    pub value: String,
}

impl FieldRequirement {
    /// Whether an object whose `field` has `actual` (absent = `""`) satisfies the term.
    pub fn matches(&self, actual: &str) -> bool {
        match self.op {
            FieldOp::Equals => actual == self.value,
            FieldOp::NotEquals => actual != self.value,
        }
    }
}

impl fmt::Display for FieldRequirement {
    /// `field=value` / `field!=value`, the value escaped.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let op = match self.op {
            FieldOp::Equals => "=",
            FieldOp::NotEquals => "!=",
        };
        write!(f, "{}{op}{}", self.field, escape_value(&self.value))
    }
}

/// The AND of field requirements, in the order the parser sorted the terms.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct FieldSelector {
    requirements: Vec<FieldRequirement>,
}

/// A scheme's field-label conversion: `(label, value)` → the label and value to match on.
pub type FieldLabelConversion<'a> = dyn Fn(&str, &str) -> Result<(String, String), String> + 'a;

/// The term operators, tried in this order at each position (`termOperators`).
const TERM_OPERATORS: [(&str, FieldOp); 3] = [
    ("!=", FieldOp::NotEquals),
    ("==", FieldOp::Equals),
    ("=", FieldOp::Equals),
];

impl FieldSelector {
    /// `fields.ParseSelector`. The empty string selects everything.
    pub fn parse(s: &str) -> Result<FieldSelector, String> {
        let mut parts = split_terms(s);
        parts.sort_unstable();
        let mut requirements = Vec::new();
        for part in parts.into_iter().filter(|p| !p.is_empty()) {
            let Some((field, op, raw)) = split_term(part) else {
                return Err(format!(
                    "invalid selector: '{s}'; can't understand '{part}'"
                ));
            };
            requirements.push(FieldRequirement {
                field: field.to_string(),
                op,
                value: unescape_value(raw)?,
            });
        }
        Ok(FieldSelector { requirements })
    }

    /// The selector that matches everything (`fields.Everything()`).
    pub fn everything() -> Self {
        FieldSelector::default()
    }

    /// `field=value` for one field (`fields.OneTermEqualSelector`).
    pub fn one_term_equal(field: &str, value: &str) -> Self {
        FieldSelector {
            requirements: vec![FieldRequirement {
                field: field.to_string(),
                op: FieldOp::Equals,
                value: value.to_string(),
            }],
        }
    }

    pub fn is_empty(&self) -> bool {
        self.requirements.is_empty()
    }

    pub fn requirements(&self) -> &[FieldRequirement] {
        &self.requirements
    }

    /// Whether an object matches; `get(field)` is the object's value for that field, `None` for
    /// a field it does not have (compared as `""`, as `fields.Set.Get` does).
    pub fn matches(&self, get: &dyn Fn(&str) -> Option<String>) -> bool {
        self.requirements
            .iter()
            .all(|r| r.matches(get(&r.field).as_deref().unwrap_or("")))
    }

    /// `RequiresExactMatch`: `Some(v)` if the selector requires `field=v`.
    pub fn exact_value(&self, field: &str) -> Option<&str> {
        self.requirements
            .iter()
            .find(|r| r.field == field && r.op == FieldOp::Equals)
            .map(|r| r.value.as_str())
    }

    /// `Selector.Transform`: rewrites every term with `convert(field, value)` (the scheme's
    /// field-label conversion), failing on its first error. A term converted to an empty
    /// field and value is dropped.
    pub fn transform(&self, convert: &FieldLabelConversion<'_>) -> Result<FieldSelector, String> {
        let mut requirements = Vec::with_capacity(self.requirements.len());
        for r in &self.requirements {
            let (field, value) = convert(&r.field, &r.value)?;
            if field.is_empty() && value.is_empty() {
                continue;
            }
            requirements.push(FieldRequirement {
                field,
                op: r.op.clone(),
                value,
            });
        }
        Ok(FieldSelector { requirements })
    }

    /// The field names the selector mentions (the API server rejects unsupported ones).
    pub fn fields(&self) -> impl Iterator<Item = &str> {
        self.requirements.iter().map(|r| r.field.as_str())
    }
}

impl fmt::Display for FieldSelector {
    /// The canonical `String()` form: terms joined by `,`, values escaped.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, r) in self.requirements.iter().enumerate() {
            if i > 0 {
                f.write_str(",")?;
            }
            write!(f, "{r}")?;
        }
        Ok(())
    }
}

/// `runtime.DefaultMetaV1FieldSelectorConversion`: what a kind without its own field-label
/// conversion supports (`metadata.name`, `metadata.namespace`), with the real error text.
pub fn default_field_label_conversion(
    label: &str,
    value: &str,
) -> Result<(String, String), String> {
    match label {
        "metadata.name" | "metadata.namespace" => Ok((label.to_string(), value.to_string())),
        _ => Err(format!(
            "{} is not a known field selector: only \"metadata.name\", \"metadata.namespace\"",
            crate::quote::quote(label)
        )),
    }
}

/// A kind's field-label conversion over a list of supported labels (as Pods register
/// `spec.nodeName`, `status.phase`...): unknown labels fail with
/// `field label not supported: <label>`.
pub fn supported_field_label_conversion(
    supported: &[&str],
    label: &str,
    value: &str,
) -> Result<(String, String), String> {
    if supported.contains(&label) {
        Ok((label.to_string(), value.to_string()))
    } else {
        Err(format!("field label not supported: {label}"))
    }
}

/// Splits on commas not preceded by a backslash escape (`splitTerms`).
fn split_terms(s: &str) -> Vec<&str> {
    if s.is_empty() {
        return Vec::new();
    }
    let mut terms = Vec::new();
    let mut start = 0;
    let mut in_slash = false;
    for (i, c) in s.char_indices() {
        if in_slash {
            in_slash = false;
        } else if c == '\\' {
            in_slash = true;
        } else if c == ',' {
            terms.push(&s[start..i]);
            start = i + 1;
        }
    }
    terms.push(&s[start..]);
    terms
}

/// Finds the first operator, scanning left to right (`splitTerm`).
fn split_term(term: &str) -> Option<(&str, FieldOp, &str)> {
    term.char_indices().find_map(|(i, _)| {
        let rest = &term[i..];
        TERM_OPERATORS.iter().find_map(|(op, kind)| {
            rest.strip_prefix(op)
                .map(|value| (&term[..i], kind.clone(), value))
        })
    })
}

/// `fields.EscapeValue`: `\` → `\\`, `,` → `\,`, `=` → `\=`.
pub fn escape_value(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if matches!(c, '\\' | ',' | '=') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// `fields.UnescapeValue`, with its errors: an unknown escape, a trailing backslash, or an
/// unescaped `,`/`=` (reported, as Go's `%v` of a rune does, by its code point).
pub fn unescape_value(s: &str) -> Result<String, String> {
    let mut out = String::with_capacity(s.len());
    let mut in_slash = false;
    for c in s.chars() {
        if in_slash {
            if !matches!(c, '\\' | ',' | '=') {
                return Err(format!(
                    "invalid field selector: invalid escape sequence: \\{c}"
                ));
            }
            out.push(c);
            in_slash = false;
            continue;
        }
        match c {
            '\\' => in_slash = true,
            ',' | '=' => {
                return Err(format!(
                    "invalid field selector: unescaped character in value: {}",
                    c as u32
                ))
            }
            c => out.push(c),
        }
    }
    if in_slash {
        return Err("invalid field selector: invalid escape sequence: \\".to_string());
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn canonical(s: &str) -> String {
        FieldSelector::parse(s)
            .map(|sel| sel.to_string())
            .unwrap_or_else(|e| format!("ERR {e}"))
    }

    #[test]
    fn parses_to_canonical_form() {
        let cases = [
            ("", ""),
            ("spec.nodeName=node-a", "spec.nodeName=node-a"),
            ("spec.nodeName==node-a", "spec.nodeName=node-a"),
            ("status.phase!=Running", "status.phase!=Running"),
            ("b=2,a=1", "a=1,b=2"),
            ("x=", "x="),
            ("a=1,,b=2", "a=1,b=2"),
            ("x=a\\,b", "x=a\\,b"),
            ("x=a\\=b\\\\c", "x=a\\=b\\\\c"),
            ("x!=", "x!="),
            ("=a", "=a"),
        ];
        for (input, want) in cases {
            assert_eq!(canonical(input), want, "input {input:?}");
        }
    }

    #[test]
    fn rejects_with_the_real_messages() {
        let cases = [
            ("x", "invalid selector: 'x'; can't understand 'x'"),
            ("a=1,x", "invalid selector: 'a=1,x'; can't understand 'x'"),
            (
                "x=a=b",
                "invalid field selector: unescaped character in value: 61",
            ),
            (
                "x=\\a",
                "invalid field selector: invalid escape sequence: \\a",
            ),
            (
                "x=a\\",
                "invalid field selector: invalid escape sequence: \\",
            ),
            (
                "x==a=b",
                "invalid field selector: unescaped character in value: 61",
            ),
        ];
        for (input, want) in cases {
            assert_eq!(canonical(input), format!("ERR {want}"), "input {input:?}");
        }
    }

    #[test]
    fn unescapes_values() {
        let s = FieldSelector::parse("metadata.name=a\\,b\\=c\\\\d").unwrap();
        assert_eq!(s.requirements()[0].value, "a,b=c\\d");
        assert_eq!(s.exact_value("metadata.name"), Some("a,b=c\\d"));
    }

    #[test]
    fn matches_fields() {
        let pod = |f: &str| match f {
            "spec.nodeName" => Some("node-a".to_string()),
            "status.phase" => Some("Running".to_string()),
            _ => None,
        };
        let yes = [
            "",
            "spec.nodeName=node-a",
            "status.phase!=Pending",
            "spec.nodeName=node-a,status.phase=Running",
            "other=",
            "other!=x",
        ];
        let no = [
            "spec.nodeName=node-b",
            "status.phase!=Running",
            "other=x",
            "spec.nodeName!=node-a",
        ];
        for s in yes {
            assert!(
                FieldSelector::parse(s).unwrap().matches(&pod),
                "{s} should match"
            );
        }
        for s in no {
            assert!(
                !FieldSelector::parse(s).unwrap().matches(&pod),
                "{s} should not match"
            );
        }
    }

    #[test]
    fn exact_value_ignores_not_equals() {
        let s = FieldSelector::parse("spec.nodeName!=a,status.phase=Running").unwrap();
        assert_eq!(s.exact_value("spec.nodeName"), None);
        assert_eq!(s.exact_value("status.phase"), Some("Running"));
        assert_eq!(
            FieldSelector::one_term_equal("spec.nodeName", "node-a").to_string(),
            "spec.nodeName=node-a"
        );
    }

    #[test]
    fn transform_converts_or_rejects_field_labels() {
        let s = FieldSelector::parse("metadata.name=web,spec.nodeName=node-a").unwrap();
        assert_eq!(
            s.transform(&default_field_label_conversion),
            Err("\"spec.nodeName\" is not a known field selector: only \"metadata.name\", \"metadata.namespace\"".to_string())
        );
        let pods = ["metadata.name", "spec.nodeName"];
        let ok = s
            .transform(&|l, v| supported_field_label_conversion(&pods, l, v))
            .unwrap();
        assert_eq!(ok, s);
        let bad = FieldSelector::parse("spec.foo=x").unwrap();
        assert_eq!(
            bad.transform(&|l, v| supported_field_label_conversion(&pods, l, v)),
            Err("field label not supported: spec.foo".to_string())
        );
        let legacy = FieldSelector::parse("spec.host=node-a,x=1")
            .unwrap()
            .transform(&|l, v| match l {
                "spec.host" => Ok(("spec.nodeName".to_string(), v.to_string())),
                _ => Ok((String::new(), String::new())),
            })
            .unwrap();
        assert_eq!(legacy.to_string(), "spec.nodeName=node-a");
    }

    proptest! {
        #[test]
        fn parse_never_panics(s in "\\PC*") {
            let _ = FieldSelector::parse(&s);
        }

        #[test]
        fn display_reparses_to_the_same_selector(s in "[a-c=!,\\\\ .]{0,20}") {
            // Terms are ordered by their raw text, so compare the re-parse as a set of terms.
            let terms = |sel: &FieldSelector| {
                let mut t: Vec<String> = sel.requirements().iter().map(|r| r.to_string()).collect();
                t.sort();
                t
            };
            if let Ok(sel) = FieldSelector::parse(&s) {
                let again = FieldSelector::parse(&sel.to_string());
                prop_assert!(again.is_ok());
                prop_assert_eq!(terms(&again.unwrap()), terms(&sel));
            }
        }

        #[test]
        fn escaping_round_trips(v in "\\PC*") {
            prop_assert_eq!(unescape_value(&escape_value(&v)), Ok(v.clone()));
            let sel = FieldSelector::one_term_equal("f", &v);
            let parsed = FieldSelector::parse(&sel.to_string()).unwrap();
            prop_assert_eq!(parsed.exact_value("f"), Some(v.as_str()));
        }
    }
}
