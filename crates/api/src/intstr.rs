//! `intstr.IntOrString`: a field that holds a number or a string — a Deployment's
//! `maxSurge: 25%` or `maxSurge: 1`, a probe's `port: 8080` or `port: http`.

use serde::{Deserialize, Serialize};

/// `intstr.IntOrString` (`maxSurge: 25%` or `maxSurge: 1`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum IntOrString {
    Int(i32),
    String(String),
}

impl Default for IntOrString {
    fn default() -> Self {
        IntOrString::Int(0)
    }
}

impl IntOrString {
    /// `intstr.GetScaledValueFromIntOrPercent`: a percentage of `total`, rounded up or down.
    pub fn scaled_value(&self, total: i32, round_up: bool) -> Result<i32, String> {
        match self {
            IntOrString::Int(v) => Ok(*v),
            IntOrString::String(s) => {
                let pct = s
                    .strip_suffix('%')
                    .and_then(|p| p.parse::<i64>().ok())
                    .ok_or_else(|| {
                        "invalid value for IntOrString: invalid type: string is not a percentage"
                            .to_string()
                    })?;
                let num = pct * i64::from(total);
                let v = if round_up {
                    (num + 99).div_euclid(100)
                } else {
                    num.div_euclid(100)
                };
                Ok(v.clamp(i64::from(i32::MIN), i64::from(i32::MAX)) as i32)
            }
        }
    }
}

impl std::fmt::Display for IntOrString {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            IntOrString::Int(v) => write!(f, "{v}"),
            IntOrString::String(s) => f.write_str(s),
        }
    }
}
