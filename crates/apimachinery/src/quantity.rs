//! `resource.Quantity`: stub, being filled in.

use std::fmt;

/// An exact resource amount (cpu, memory...).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Default, Hash)]
pub struct Quantity {
    nanos: i128,
}

impl Quantity {
    pub fn parse(_s: &str) -> Result<Quantity, String> {
        Ok(Quantity::default())
    }
    pub fn milli_value(&self) -> i64 {
        0
    }
    pub fn value(&self) -> i64 {
        0
    }
}

impl fmt::Display for Quantity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("0")
    }
}
