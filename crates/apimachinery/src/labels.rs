//! Label selectors (`k8s.io/apimachinery/pkg/labels`): stub, being filled in.

use std::fmt;

/// A set of labels, ordered by key.
pub type Labels = std::collections::BTreeMap<String, String>;

/// A selector operator, named as in `k8s.io/apimachinery/pkg/selection`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Operator {
    Equals,
    DoubleEquals,
    NotEquals,
    In,
    NotIn,
    Exists,
    DoesNotExist,
    GreaterThan,
    LessThan,
}

/// One term of a selector: a key, an operator and its (sorted) values.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Requirement {
    pub key: String,
    pub operator: Operator,
    pub values: Vec<String>,
}

/// A parsed label selector: the AND of its requirements, sorted by key.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct LabelSelector {
    requirements: Vec<Requirement>,
}

impl LabelSelector {
    pub fn parse(_s: &str) -> Result<LabelSelector, String> {
        Ok(LabelSelector::default())
    }
    pub fn everything() -> Self {
        LabelSelector::default()
    }
    pub fn is_empty(&self) -> bool {
        self.requirements.is_empty()
    }
    pub fn matches(&self, _labels: &Labels) -> bool {
        true
    }
    pub fn requirements(&self) -> &[Requirement] {
        &self.requirements
    }
    pub fn from_label_selector(
        _match_labels: &Labels,
        _match_expressions: &[(String, String, Vec<String>)],
    ) -> Result<LabelSelector, String> {
        Ok(LabelSelector::default())
    }
    pub fn exact_value(&self, _key: &str) -> Option<&str> {
        None
    }
}

impl fmt::Display for LabelSelector {
    fn fmt(&self, _f: &mut fmt::Formatter<'_>) -> fmt::Result {
        Ok(())
    }
}
