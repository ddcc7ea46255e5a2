//! `resource.Quantity`: exact amounts of cpu, memory and other resources (`100m`, `128Mi`, `2`).
//!
//! The scheduler sums container requests and compares them with a node's allocatable, and
//! kubectl prints them back, so a quantity must be exact (no floating point), parse every
//! spelling Kubernetes accepts (`0.5`, `500m`, `1e3`, `1.5Gi`, `+2k`), keep the format it was
//! written in, and print the canonical form the real `String()` gives (`1.5` → `1500m`,
//! `1000` → `1k`, `1.5Gi` → `1536Mi`). Values are held in nano-units, the finest precision
//! Kubernetes keeps: smaller non-zero amounts round up to `1n`, and binary-suffixed amounts
//! are capped at 2^63-1 units, as `ParseQuantity` does. (Kubernetes keeps other amounts with
//! arbitrary precision; here they saturate beyond about 1.7 × 10^29 units.)

use serde::de::{self, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::cmp::Ordering;
use std::fmt;
use std::hash::{Hash, Hasher};

/// `ErrFormatWrong`.
pub const ERR_FORMAT_WRONG: &str =
    "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
/// `ErrNumeric`.
pub const ERR_NUMERIC: &str = "unable to parse numeric part of quantity";
/// `ErrSuffix`.
pub const ERR_SUFFIX: &str = "unable to parse quantity's suffix";

const NANOS_PER_UNIT: i128 = 1_000_000_000;
/// The cap on binary-suffixed amounts: 2^63-1 units (`maxAllowed`), in nano-units.
const MAX_BINARY_NANOS: i128 = i64::MAX as i128 * NANOS_PER_UNIT;

/// How a quantity prints (`resource.Format`), taken from the suffix it was parsed with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum QuantityFormat {
    /// `1e3`, `12e-3`.
    DecimalExponent,
    /// `Ki`, `Mi`, ... `Ei`.
    BinarySI,
    /// `n`, `u`, `m`, none, `k`, `M`, ... `E`.
    #[default]
    DecimalSI,
}

/// An exact resource amount. Equality and order compare the amount only (`1Ki == 1024`).
#[derive(Debug, Clone, Copy, Default)]
pub struct Quantity {
    nanos: i128,
    format: QuantityFormat,
    /// The text as written, when `ParseQuantity`'s fast path keeps it as the string form.
    text: Option<KeptText>,
}

/// A short ASCII string stored inline, so that `Quantity` stays `Copy`.
#[derive(Debug, Clone, Copy)]
struct KeptText {
    len: u8,
    bytes: [u8; 32],
}

impl KeptText {
    /// `None` when `s` does not fit (it is then printed in canonical form instead).
    fn new(s: &str) -> Option<KeptText> {
        let mut bytes = [0u8; 32];
        bytes.get_mut(..s.len())?.copy_from_slice(s.as_bytes());
        Some(KeptText {
            len: u8::try_from(s.len()).ok()?,
            bytes,
        })
    }

    fn as_str(&self) -> &str {
        let used = self.bytes.get(..usize::from(self.len)).unwrap_or(&[]);
        std::str::from_utf8(used).unwrap_or("")
    }
}

impl PartialEq for Quantity {
    fn eq(&self, other: &Self) -> bool {
        self.nanos == other.nanos
    }
}

impl Eq for Quantity {}

impl PartialOrd for Quantity {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Quantity {
    fn cmp(&self, other: &Self) -> Ordering {
        self.nanos.cmp(&other.nanos)
    }
}

impl Hash for Quantity {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.nanos.hash(state);
    }
}

/// The pieces `parseQuantityString` cuts a quantity into.
struct Pieces<'a> {
    positive: bool,
    /// The sign and number as written; must contain a digit.
    value: &'a str,
    /// Integer digits, leading zeros stripped.
    num: &'a str,
    /// Fraction digits.
    denom: &'a str,
    suffix: &'a str,
}

/// `parseQuantityString`: sign, zeros, integer digits, `.` and fraction, suffix letters,
/// an optional signed exponent.
fn split_quantity(s: &str) -> Result<Pieces<'_>, &'static str> {
    let b = s.as_bytes();
    let end = b.len();
    let mut pos = 0;
    let mut positive = true;
    match b.first() {
        Some(b'-') => {
            positive = false;
            pos = 1;
        }
        Some(b'+') => pos = 1,
        _ => {}
    }
    while pos < end && b[pos] == b'0' {
        pos += 1;
    }
    if pos >= end {
        return Ok(Pieces {
            positive,
            value: "0",
            num: "0",
            denom: "",
            suffix: "",
        });
    }
    let num_start = pos;
    while pos < end && b[pos].is_ascii_digit() {
        pos += 1;
    }
    let num = &s[num_start..pos];
    let mut denom = "";
    if pos < end && b[pos] == b'.' {
        pos += 1;
        let denom_start = pos;
        while pos < end && b[pos].is_ascii_digit() {
            pos += 1;
        }
        denom = &s[denom_start..pos];
    }
    let value = &s[..pos];
    let suffix_start = pos;
    while pos < end && b"eEinumkKMGTP".contains(&b[pos]) {
        pos += 1;
    }
    if pos < end && (b[pos] == b'-' || b[pos] == b'+') {
        pos += 1;
    }
    while pos < end && b[pos].is_ascii_digit() {
        pos += 1;
    }
    if pos < end {
        return Err(ERR_FORMAT_WRONG);
    }
    Ok(Pieces {
        positive,
        value,
        num,
        denom,
        suffix: &s[suffix_start..],
    })
}

/// The suffix as (base, exponent, format): `Mi` → (2, 20), `k` → (10, 3), `e-3` → (10, -3).
fn interpret_suffix(suffix: &str) -> Option<(u32, i64, QuantityFormat)> {
    let decimal = match suffix {
        "n" => Some(-9),
        "u" => Some(-6),
        "m" => Some(-3),
        "" => Some(0),
        "k" => Some(3),
        "M" => Some(6),
        "G" => Some(9),
        "T" => Some(12),
        "P" => Some(15),
        "E" => Some(18),
        _ => None,
    };
    if let Some(e) = decimal {
        return Some((10, e, QuantityFormat::DecimalSI));
    }
    let binary = match suffix {
        "Ki" => Some(10),
        "Mi" => Some(20),
        "Gi" => Some(30),
        "Ti" => Some(40),
        "Pi" => Some(50),
        "Ei" => Some(60),
        _ => None,
    };
    if let Some(e) = binary {
        return Some((2, e, QuantityFormat::BinarySI));
    }
    let exponent = suffix
        .strip_prefix(['e', 'E'])
        .filter(|rest| !rest.is_empty())?;
    let digits = exponent.strip_prefix(['+', '-']).unwrap_or(exponent);
    if digits.is_empty() || !digits.bytes().all(|c| c.is_ascii_digit()) {
        return None;
    }
    let e: i64 = exponent.parse().ok()?;
    Some((10, e, QuantityFormat::DecimalExponent))
}

/// Doubles a decimal digit string in place (most significant digit first).
fn double_digits(digits: &mut Vec<u8>) {
    let mut carry = 0;
    for d in digits.iter_mut().rev() {
        let v = (*d - b'0') * 2 + carry;
        *d = b'0' + v % 10;
        carry = v / 10;
    }
    if carry > 0 {
        digits.insert(0, b'0' + carry);
    }
}

/// `digits × 10^exp10` in nano-units, rounded up; `None` beyond what an `i128` holds.
fn nanos_of(digits: &[u8], exp10: i64) -> Option<i128> {
    let len = digits.len() as i64;
    let accumulate = |ds: &[u8]| {
        ds.iter().try_fold(0i128, |n, &d| {
            n.checked_mul(10)?.checked_add(i128::from(d - b'0'))
        })
    };
    if exp10 >= 0 {
        if len + exp10 > 39 {
            return None;
        }
        let mut n = accumulate(digits)?;
        for _ in 0..exp10 {
            n = n.checked_mul(10)?;
        }
        return Some(n);
    }
    let int_len = len + exp10;
    let (int_part, frac) = if int_len <= 0 {
        (&digits[..0], digits)
    } else {
        digits.split_at(usize::try_from(int_len).unwrap_or(0))
    };
    let mut n = accumulate(int_part)?;
    if frac.iter().any(|&d| d != b'0') {
        n = n.checked_add(1)?;
    }
    Some(n)
}

/// `ParseQuantity`'s int64 fast path, taken when the digits are few and the scale at least
/// nano. It decides two visible things: a value without digits (`Mi`, `.`) is zero rather than
/// an error, and some spellings are kept verbatim as the string form (`+5n`, `1.500k`).
fn fast_path(
    text: &str,
    p: &Pieces<'_>,
    base: u32,
    exponent: i64,
    format: QuantityFormat,
) -> Option<Quantity> {
    let num = if p.num.is_empty() { "0" } else { p.num };
    let digits = (num.len() + p.denom.len()) as i64;
    let (precision, mut scale, mantissa) = if base == 10 {
        (18 - digits, exponent, 1i64)
    } else if p.denom.is_empty() {
        // Go computes `int32(float32(exponent)*3/10)`, i.e. exponent*3/10 truncated.
        let shift = u32::try_from(exponent).ok()?;
        (
            15 - num.len() as i64 - exponent * 3 / 10 - 1,
            0,
            1i64.checked_shl(shift)?,
        )
    } else {
        (-1, 0, 1)
    };
    if precision < 0 {
        return None;
    }
    scale -= p.denom.len() as i64;
    if scale < -9 {
        return None;
    }
    let shifted = format!("{num}{}", p.denom);
    let value: i64 = shifted.parse().ok()?;
    let result = value.checked_mul(mantissa)?;
    let keep = if format == QuantityFormat::BinarySI {
        exponent % 10 == 0 && value & 0x07 != 0
    } else {
        scale % 3 == 0 && !shifted.ends_with("000") && !shifted.starts_with('0')
    };
    let magnitude = 10i128
        .checked_pow(u32::try_from(scale + 9).ok()?)
        .and_then(|m| m.checked_mul(i128::from(result)))
        .unwrap_or(i128::MAX);
    Some(Quantity {
        nanos: if p.positive { magnitude } else { -magnitude },
        format,
        text: if keep { KeptText::new(text) } else { None },
    })
}

impl Quantity {
    /// `resource.ParseQuantity`.
    pub fn parse(s: &str) -> Result<Quantity, String> {
        if s.is_empty() {
            return Err(ERR_FORMAT_WRONG.to_string());
        }
        let p = split_quantity(s).map_err(str::to_string)?;
        let (base, exponent, format) =
            interpret_suffix(p.suffix).ok_or_else(|| ERR_SUFFIX.to_string())?;
        if let Some(q) = fast_path(s, &p, base, exponent, format) {
            return Ok(q);
        }
        if !p.value.bytes().any(|c| c.is_ascii_digit()) {
            return Err(ERR_NUMERIC.to_string());
        }
        let mut digits: Vec<u8> = p.num.bytes().chain(p.denom.bytes()).collect();
        let first_nonzero = digits.iter().position(|&d| d != b'0');
        let Some(first) = first_nonzero else {
            return Ok(Quantity {
                format,
                ..Quantity::default()
            });
        };
        digits.drain(..first);
        let mut exp10 = 9 - p.denom.len() as i64;
        if base == 10 {
            exp10 = exp10.saturating_add(exponent);
        } else {
            for _ in 0..exponent {
                double_digits(&mut digits);
            }
        }
        // Clamp absurd exponents: anything this large is capped, this small rounds to 1n.
        let exp10 = exp10.clamp(-1_000_000, 1_000_000);
        let mut magnitude = nanos_of(&digits, exp10).unwrap_or(i128::MAX);
        let mut format = format;
        if format == QuantityFormat::BinarySI {
            magnitude = magnitude.min(MAX_BINARY_NANOS);
            if magnitude < NANOS_PER_UNIT {
                // A binary amount below one unit is shown in decimal (`0.0001Ki` → `102400u`).
                format = QuantityFormat::DecimalSI;
            }
        }
        Ok(Quantity {
            nanos: if p.positive { magnitude } else { -magnitude },
            format,
            text: None,
        })
    }

    /// `n` whole units, printed in `DecimalSI`.
    pub fn from_value(n: i64) -> Quantity {
        Quantity {
            nanos: i128::from(n) * NANOS_PER_UNIT,
            format: QuantityFormat::DecimalSI,
            text: None,
        }
    }

    /// `n` thousandths of a unit (`NewMilliQuantity`), printed in `DecimalSI`.
    pub fn from_milli(n: i64) -> Quantity {
        Quantity {
            nanos: i128::from(n) * 1_000_000,
            format: QuantityFormat::DecimalSI,
            text: None,
        }
    }

    /// `n` whole units printed in the given format (`NewQuantity(n, BinarySI)` for memory).
    pub fn with_format(n: i64, format: QuantityFormat) -> Quantity {
        Quantity {
            format,
            ..Quantity::from_value(n)
        }
    }

    pub fn format(&self) -> QuantityFormat {
        self.format
    }

    pub fn is_zero(&self) -> bool {
        self.nanos == 0
    }

    /// Rounds `nanos / per` away from zero and saturates to `i64`.
    fn scaled(&self, per: i128) -> i64 {
        let q = self.nanos / per;
        let q = if self.nanos % per == 0 {
            q
        } else if self.nanos > 0 {
            q + 1
        } else {
            q - 1
        };
        i64::try_from(q).unwrap_or(if q > 0 { i64::MAX } else { i64::MIN })
    }

    /// `MilliValue()`: thousandths of a unit, rounded away from zero (`100m` → 100).
    pub fn milli_value(&self) -> i64 {
        self.scaled(1_000_000)
    }

    /// `Value()`: whole units, rounded away from zero (`100m` → 1).
    pub fn value(&self) -> i64 {
        self.scaled(NANOS_PER_UNIT)
    }

    /// The format of a sum or difference: this one's, or `other`'s when this is zero.
    fn combined_format(&self, other: &Quantity) -> QuantityFormat {
        if self.is_zero() {
            other.format
        } else {
            self.format
        }
    }

    /// The sum (`Add`), in this quantity's format (the other's if this one is zero).
    pub fn add(&self, other: &Quantity) -> Quantity {
        Quantity {
            nanos: self.nanos.saturating_add(other.nanos),
            format: self.combined_format(other),
            text: None,
        }
    }

    /// The difference (`Sub`), in this quantity's format (the other's if this one is zero).
    pub fn sub(&self, other: &Quantity) -> Quantity {
        Quantity {
            nanos: self.nanos.saturating_sub(other.nanos),
            format: self.combined_format(other),
            text: None,
        }
    }

    /// Mantissa and a multiple-of-3 decimal exponent, trailing zeros removed first
    /// (`AsCanonicalBytes`): 1500m → (1500, -3), 2000 → (2, 3).
    fn canonical_decimal(&self) -> (i128, i64) {
        let mut m = self.nanos;
        let mut e: i64 = -9;
        while m != 0 && m % 10 == 0 {
            m /= 10;
            e += 1;
        }
        match e.rem_euclid(3) {
            1 => (m.saturating_mul(10), e - 1),
            2 => (m.saturating_mul(100), e - 2),
            _ => (m, e),
        }
    }
}

impl fmt::Display for Quantity {
    /// The canonical form (`String()`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(text) = &self.text {
            return f.write_str(text.as_str());
        }
        if self.nanos == 0 {
            return f.write_str("0");
        }
        let limit = 1024 * NANOS_PER_UNIT;
        let binary = self.format == QuantityFormat::BinarySI
            && !(-limit < self.nanos && self.nanos < limit)
            && self.nanos % NANOS_PER_UNIT == 0;
        if binary {
            let mut units = self.nanos / NANOS_PER_UNIT;
            let mut times = 0;
            while units % 1024 == 0 && times < 6 {
                units /= 1024;
                times += 1;
            }
            let suffix = ["", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"]
                .get(times)
                .copied()
                .unwrap_or("");
            return write!(f, "{units}{suffix}");
        }
        let (m, e) = self.canonical_decimal();
        if self.format == QuantityFormat::DecimalExponent {
            return if e == 0 {
                write!(f, "{m}")
            } else {
                write!(f, "{m}e{e}")
            };
        }
        let suffix = match e {
            -9 => "n",
            -6 => "u",
            -3 => "m",
            0 => "",
            3 => "k",
            6 => "M",
            9 => "G",
            12 => "T",
            15 => "P",
            18 => "E",
            // Beyond `E` Kubernetes finds no suffix and prints the bare mantissa
            // (`1000E` → `1`); kept, so that what kubectl shows is reproduced.
            _ => "",
        };
        write!(f, "{m}{suffix}")
    }
}

impl std::str::FromStr for Quantity {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Quantity::parse(s)
    }
}

impl Serialize for Quantity {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.to_string())
    }
}

/// Accepts a string (`"100m"`), a JSON number (`0.5`) or `null` (zero), as `UnmarshalJSON`.
struct QuantityVisitor;

impl Visitor<'_> for QuantityVisitor {
    type Value = Quantity;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a quantity string or number")
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Quantity, E> {
        Quantity::parse(v.trim()).map_err(E::custom)
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Quantity, E> {
        self.visit_str(&v.to_string())
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Quantity, E> {
        self.visit_str(&v.to_string())
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Quantity, E> {
        if !v.is_finite() {
            return Err(E::custom(ERR_FORMAT_WRONG));
        }
        self.visit_str(&v.to_string())
    }

    fn visit_unit<E: de::Error>(self) -> Result<Quantity, E> {
        Ok(Quantity::default())
    }

    fn visit_none<E: de::Error>(self) -> Result<Quantity, E> {
        Ok(Quantity::default())
    }
}

impl<'de> Deserialize<'de> for Quantity {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(QuantityVisitor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn q(s: &str) -> Quantity {
        Quantity::parse(s).unwrap()
    }

    #[test]
    fn prints_the_canonical_form() {
        let cases = [
            ("0", "0"),
            ("0m", "0"),
            ("-0", "0"),
            ("00", "0"),
            ("0.0", "0"),
            ("100m", "100m"),
            ("0.1", "100m"),
            ("1.5", "1500m"),
            ("1500m", "1500m"),
            ("1000m", "1"),
            ("2", "2"),
            ("1000", "1k"),
            ("1200", "1200"),
            ("12000", "12k"),
            ("1k", "1k"),
            ("1M", "1M"),
            ("1.5M", "1500k"),
            ("5G", "5G"),
            ("1E", "1E"),
            ("1n", "1n"),
            ("1u", "1u"),
            ("10u", "10u"),
            ("0.5n", "1n"),
            ("1.1m", "1100u"),
            ("128Mi", "128Mi"),
            ("1Ki", "1Ki"),
            ("1024", "1024"),
            ("2048Ki", "2Mi"),
            ("1.5Gi", "1536Mi"),
            ("0.5Gi", "512Mi"),
            ("1.5Ki", "1536"),
            ("0.5Ki", "512"),
            ("1000Ki", "1000Ki"),
            ("1Mi", "1Mi"),
            ("1e3", "1e3"),
            ("1E3", "1E3"),
            ("1e+3", "1e+3"),
            ("1.5e3", "1500"),
            ("12e6", "12e6"),
            ("1e-3", "1e-3"),
            ("100e-3", "100e-3"),
            ("1e0", "1e0"),
            ("-1", "-1"),
            ("-100m", "-100m"),
            ("+2k", "+2k"),
            ("-1.5Gi", "-1536Mi"),
            (".5", "500m"),
            // The fast path keeps these spellings verbatim, and reads digit-less values as 0.
            ("+5n", "+5n"),
            ("0479Mi", "0479Mi"),
            ("1.500k", "1.500k"),
            ("12.345k", "12.345k"),
            ("-30401198.649T", "-30401198.649T"),
            ("1025Mi", "1025Mi"),
            ("E", "0"),
            ("Mi", "0"),
            ("-Mi", "0"),
            (".", "0"),
            ("e20", "0"),
            ("1.", "1."),
            ("1.G", "1.G"),
            ("-", "0"),
            ("+", "0"),
            ("9223372036854775807", "9223372036854775807"),
            ("9223372036854775808", "9223372036854775808"),
            ("100E", "100E"),
            ("1000E", "1"),
            ("1000000000000000000000", "1"),
            ("99999999999999999999999999", "99999999999999999999999999"),
            ("1e27", "1e27"),
            ("-1e27", "-1e27"),
            ("8Ei", "9223372036854775807"),
            ("100Ei", "9223372036854775807"),
            ("0.0001Ki", "102400u"),
            ("1.1Ki", "1126400m"),
            ("1024Ki", "1Mi"),
            ("0.1234567891", "123456790n"),
            ("1e-30", "1e-9"),
            ("4Ei", "4Ei"),
            ("1e-100", "1e-9"),
        ];
        for (input, want) in cases {
            assert_eq!(q(input).to_string(), want, "input {input:?}");
        }
    }

    #[test]
    fn a_binary_amount_off_the_1024_grid_prints_bare_and_reparses_as_decimal() {
        let x = q("437.5Ki");
        assert_eq!(x.to_string(), "448000");
        let again = q(&x.to_string());
        assert_eq!(again, x);
        assert_eq!(again.to_string(), "448k");
    }

    #[test]
    fn rejects_with_the_real_messages() {
        let cases = [
            ("", ERR_FORMAT_WRONG),
            ("abc", ERR_FORMAT_WRONG),
            ("1 Mi", ERR_FORMAT_WRONG),
            ("1Gb", ERR_FORMAT_WRONG),
            ("1.2.3", ERR_FORMAT_WRONG),
            (" 1", ERR_FORMAT_WRONG),
            ("1K", ERR_SUFFIX),
            ("1i", ERR_SUFFIX),
            ("1e", ERR_SUFFIX),
            ("1Ki2", ERR_SUFFIX),
            ("1mi", ERR_SUFFIX),
            ("Pi", ERR_NUMERIC),
            (".e-10", ERR_NUMERIC),
        ];
        for (input, want) in cases {
            assert_eq!(
                Quantity::parse(input),
                Err(want.to_string()),
                "input {input:?}"
            );
        }
    }

    #[test]
    fn values_round_away_from_zero() {
        assert_eq!(q("100m").milli_value(), 100);
        assert_eq!(q("100m").value(), 1);
        assert_eq!(q("1.5").value(), 2);
        assert_eq!(q("-1.5").value(), -2);
        assert_eq!(q("2").milli_value(), 2000);
        assert_eq!(q("1n").milli_value(), 1);
        assert_eq!(q("128Mi").value(), 128 * 1024 * 1024);
        assert_eq!(q("9E").milli_value(), i64::MAX);
        assert_eq!(q("0").value(), 0);
    }

    #[test]
    fn equality_and_order_ignore_the_format() {
        assert_eq!(q("1Ki"), q("1024"));
        assert_eq!(q("1"), q("1000m"));
        assert!(q("100m") < q("1"));
        assert!(q("1Gi") > q("1G"));
        assert!(q("-1") < q("0"));
        let mut v = [q("2"), q("500m"), q("1Ki"), q("1e3"), q("-1")];
        v.sort();
        let printed: Vec<String> = v.iter().map(|x| x.to_string()).collect();
        assert_eq!(printed, ["-1", "500m", "2", "1e3", "1Ki"]);
    }

    #[test]
    fn arithmetic_keeps_the_format() {
        let sum = q("1Gi").add(&q("512Mi"));
        assert_eq!(sum.to_string(), "1536Mi");
        // Adding to zero takes the other's format.
        assert_eq!(Quantity::default().add(&q("1Gi")).to_string(), "1Gi");
        assert_eq!(q("0").sub(&q("1Ki")).to_string(), "-1Ki");
        assert_eq!(q("1").sub(&q("250m")).to_string(), "750m");
        assert_eq!(Quantity::from_milli(1500).to_string(), "1500m");
        assert_eq!(Quantity::from_value(3).to_string(), "3");
        assert_eq!(
            Quantity::with_format(2048, QuantityFormat::BinarySI).to_string(),
            "2Ki"
        );
    }

    #[test]
    fn serde_uses_strings_and_accepts_numbers() {
        assert_eq!(serde_json::to_string(&q("100m")).unwrap(), "\"100m\"");
        let from_str: Quantity = serde_json::from_str("\"128Mi\"").unwrap();
        assert_eq!(from_str.to_string(), "128Mi");
        let from_int: Quantity = serde_json::from_str("2").unwrap();
        assert_eq!(from_int.to_string(), "2");
        let from_float: Quantity = serde_json::from_str("0.5").unwrap();
        assert_eq!(from_float.to_string(), "500m");
        let from_null: Quantity = serde_json::from_str("null").unwrap();
        assert!(from_null.is_zero());
        assert!(serde_json::from_str::<Quantity>("\"1K\"").is_err());
        assert!(serde_json::from_str::<Quantity>("true").is_err());
    }

    proptest! {
        #[test]
        fn parse_never_panics(s in "\\PC*") {
            let _ = Quantity::parse(&s);
        }

        #[test]
        fn parse_never_panics_on_quantity_alphabet(s in "[-+0-9.eEinumkKMGTP]{0,40}") {
            let _ = Quantity::parse(&s);
        }

        #[test]
        fn canonical_form_reparses_to_the_same_quantity(s in "[-+]?[0-9]{0,12}(\\.[0-9]{0,12})?(|n|u|m|k|M|G|T|P|E|Ki|Mi|Gi|Ti|Pi|Ei|e-?[0-9]{1,2})") {
            // Past `E` (10^21 units) Kubernetes drops the suffix, so stay below it.
            if let Ok(x) = Quantity::parse(&s).map_err(|_| ()).and_then(|x| {
                if x.nanos.abs() < 10i128.pow(30) { Ok(x) } else { Err(()) }
            }) {
                let printed = x.to_string();
                let again = Quantity::parse(&printed).unwrap();
                prop_assert_eq!(&again, &x);
                // The text is a fixed point from the second print on: a binary amount that is
                // no whole power of 1024 prints bare and reparses as decimal (`437.5Ki` →
                // `448000` → `448k`), exactly as resource.Quantity does.
                let settled = again.to_string();
                prop_assert_eq!(Quantity::parse(&settled).unwrap().to_string(), settled);
            }
        }

        #[test]
        fn milli_quantities_round_trip(n in -1_000_000_000_000i64..1_000_000_000_000) {
            let x = Quantity::from_milli(n);
            prop_assert_eq!(Quantity::parse(&x.to_string()), Ok(x));
            prop_assert_eq!(x.milli_value(), n);
        }

        #[test]
        fn order_matches_milli_values(a in -1_000_000i64..1_000_000, b in -1_000_000i64..1_000_000) {
            prop_assert_eq!(Quantity::from_milli(a).cmp(&Quantity::from_milli(b)), a.cmp(&b));
        }
    }
}
