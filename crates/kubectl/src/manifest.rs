//! Reading `-f` files: JSON or (multi-document) YAML, `kind: List` expanded, converted to JSON
//! objects the way kubectl's YAML-to-JSON decoder does, with kubectl's error texts
//! (`error parsing x.yaml: error converting YAML to JSON: yaml: line 3: ...`) so a broken
//! manifest fails before anything is sent.

use serde::Deserialize;
use serde_json::Value;
use std::fmt;

/// Why a manifest could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ManifestError {
    /// Not valid YAML/JSON.
    Parse { source: String, detail: String },
    /// A document without `apiVersion`/`kind`.
    Validation {
        source: String,
        missing: Vec<&'static str>,
    },
    /// The file holds no objects.
    Empty { source: String },
}

impl fmt::Display for ManifestError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ManifestError::Parse { source, detail } => {
                write!(f, "error parsing {source}: {detail}")
            }
            ManifestError::Validation { source, missing } => write!(
                f,
                "error validating \"{source}\": error validating data: [{}]; if you choose to ignore these errors, turn validation off with --validate=false",
                missing.iter().map(|m| format!("{m} not set")).collect::<Vec<_>>().join(", ")
            ),
            ManifestError::Empty { source } => write!(f, "no objects passed to apply (from {source})"),
        }
    }
}

impl std::error::Error for ManifestError {}

/// Parses a manifest file into its objects.
pub fn parse(source: &str, content: &str) -> Result<Vec<Value>, ManifestError> {
    let trimmed = content.trim_start();
    let docs: Vec<Value> = if trimmed.starts_with('{') || trimmed.starts_with('[') {
        let v: Value = serde_json::from_str(content).map_err(|e| ManifestError::Parse {
            source: source.to_string(),
            detail: format!(
                "error converting YAML to JSON: yaml: line {}: {}",
                e.line(),
                json_reason(&e)
            ),
        })?;
        vec![v]
    } else {
        let mut docs = Vec::new();
        for doc in serde_yaml_ng::Deserializer::from_str(content) {
            let v = Value::deserialize(doc).map_err(|e| ManifestError::Parse {
                source: source.to_string(),
                detail: yaml_detail(&e),
            })?;
            docs.push(v);
        }
        docs
    };
    let mut objects = Vec::new();
    for doc in docs {
        match doc {
            Value::Null => {}
            Value::Object(ref m) if m.get("kind").and_then(Value::as_str) == Some("List") => {
                if let Some(items) = m.get("items").and_then(Value::as_array) {
                    objects.extend(items.iter().cloned());
                }
            }
            Value::Object(_) => objects.push(doc),
            _ => {
                return Err(ManifestError::Parse {
                    source: source.to_string(),
                    detail: "error unmarshaling JSON: json: cannot unmarshal into Go value of type map[string]interface {}".into(),
                })
            }
        }
    }
    for obj in &objects {
        let mut missing = Vec::new();
        if obj
            .get("apiVersion")
            .and_then(Value::as_str)
            .is_none_or(str::is_empty)
        {
            missing.push("apiVersion");
        }
        if obj
            .get("kind")
            .and_then(Value::as_str)
            .is_none_or(str::is_empty)
        {
            missing.push("kind");
        }
        if !missing.is_empty() {
            return Err(ManifestError::Validation {
                source: source.to_string(),
                missing,
            });
        }
    }
    if objects.is_empty() {
        return Err(ManifestError::Empty {
            source: source.to_string(),
        });
    }
    Ok(objects)
}

/// libyaml's problem text in go-yaml's form: `error converting YAML to JSON: yaml: line 3: ...`.
fn yaml_detail(e: &serde_yaml_ng::Error) -> String {
    let text = e.to_string();
    let reason = match text.find(" at line ") {
        Some(i) => text.get(..i).unwrap_or(&text).to_string(),
        None => text.clone(),
    };
    match e.location() {
        Some(loc) => format!(
            "error converting YAML to JSON: yaml: line {}: {reason}",
            loc.line()
        ),
        None => format!("error converting YAML to JSON: yaml: {reason}"),
    }
}

fn json_reason(e: &serde_json::Error) -> String {
    let text = e.to_string();
    match text.find(" at line ") {
        Some(i) => text.get(..i).unwrap_or(&text).to_string(),
        None => text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const DEPLOY: &str = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: orders-api\nspec:\n  replicas: 3\n";

    #[test]
    fn multi_document_yaml_and_json() {
        let two = format!(
            "{DEPLOY}---\napiVersion: v1\nkind: Namespace\nmetadata:\n  name: production\n---\n"
        );
        let objs = parse("x.yaml", &two).unwrap();
        assert_eq!(objs.len(), 2);
        assert_eq!(objs[0]["spec"]["replicas"], 3);
        let json = r#"{"apiVersion":"v1","kind":"List","items":[{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"}}]}"#;
        assert_eq!(parse("x.json", json).unwrap()[0]["kind"], "Pod");
    }

    #[test]
    fn errors_like_kubectl() {
        let bad = "apiVersion: apps/v1\nkind: Deployment\nmetadata: name: x\n";
        let err = parse("orders-deploy.yaml", bad).unwrap_err().to_string();
        assert!(
            err.starts_with("error parsing orders-deploy.yaml: error converting YAML to JSON: yaml: line 3: mapping values are not allowed in this context"),
            "{err}"
        );
        let err = parse("x.yaml", "metadata:\n  name: x\n")
            .unwrap_err()
            .to_string();
        assert_eq!(err, "error validating \"x.yaml\": error validating data: [apiVersion not set, kind not set]; if you choose to ignore these errors, turn validation off with --validate=false");
        assert!(matches!(
            parse("x.yaml", "").unwrap_err(),
            ManifestError::Empty { .. }
        ));
    }
}
