//! Field selectors (`k8s.io/apimachinery/pkg/fields`): stub, being filled in.

use std::fmt;

/// `=` / `==` (Equals) or `!=` (NotEquals).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FieldOp {
    Equals,
    NotEquals,
}

/// One term: `field op value`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldRequirement {
    pub field: String,
    pub op: FieldOp,
    pub value: String,
}

/// The AND of field requirements.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct FieldSelector {
    requirements: Vec<FieldRequirement>,
}

impl FieldSelector {
    pub fn parse(_s: &str) -> Result<FieldSelector, String> {
        Ok(FieldSelector::default())
    }
    pub fn everything() -> Self {
        FieldSelector::default()
    }
    pub fn is_empty(&self) -> bool {
        self.requirements.is_empty()
    }
    pub fn requirements(&self) -> &[FieldRequirement] {
        &self.requirements
    }
    pub fn matches(&self, _get: &dyn Fn(&str) -> Option<String>) -> bool {
        true
    }
    pub fn exact_value(&self, _field: &str) -> Option<&str> {
        None
    }
}

impl fmt::Display for FieldSelector {
    fn fmt(&self, _f: &mut fmt::Formatter<'_>) -> fmt::Result {
        Ok(())
    }
}
