//! The length of a value's compact JSON encoding, as `serde_json::to_vec` would write it, counted
//! without writing it. Every write is measured against etcd's request limit
//! ([`super::limits::MAX_OBJECT_BYTES`]); counting through `serde_json` into a byte counter
//! still escapes each string byte by byte and goes through an `io::Write` per token, which made
//! the check a tenth of a whole cluster's work. This serializer follows `serde_json`'s compact
//! rules instead: strings quoted with `"`, `\`, and control characters escaped (`\n` style for
//! the five with short escapes, `\u00XX` for the rest), map keys as strings (integers and
//! booleans quoted), `null` for units and absent options and non-finite floats, an enum variant
//! with data as a one-entry object. The tests hold it to `serde_json` byte for byte.

use std::fmt;

use serde::ser::{self, Serialize};

/// The length of `value`'s compact JSON encoding, or the error `serde_json` would give (a map
/// key that is not a string, number or boolean).
pub fn json_len<T: Serialize + ?Sized>(value: &T) -> Result<usize, Error> {
    let mut counter = Counter(0);
    value.serialize(&mut counter)?;
    Ok(counter.0)
}

/// Why a value has no JSON encoding.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error(String);

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Error {}

impl ser::Error for Error {
    fn custom<M: fmt::Display>(msg: M) -> Self {
        Error(msg.to_string())
    }
}

fn key_must_be_a_string() -> Error {
    Error("key must be a string".to_string())
}

/// Bytes so far.
struct Counter(usize);

/// What escaping adds to each byte of a string (`serde_json`'s `ESCAPE` table).
const EXTRA: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut b = 0;
    while b < 0x20 {
        t[b] = 5; // \u00XX
        b += 1;
    }
    t[0x08] = 1; // \b
    t[0x09] = 1; // \t
    t[0x0a] = 1; // \n
    t[0x0c] = 1; // \f
    t[0x0d] = 1; // \r
    t[b'"' as usize] = 1;
    t[b'\\' as usize] = 1;
    t
};

/// A string's escaped length without its quotes.
fn escaped_len(s: &str) -> usize {
    s.len()
        + s.bytes()
            .map(|b| usize::from(EXTRA[usize::from(b)]))
            .sum::<usize>()
}

fn unsigned_len(mut n: u128) -> usize {
    let mut digits = 1;
    while n >= 10 {
        n /= 10;
        digits += 1;
    }
    digits
}

fn signed_len(n: i128) -> usize {
    usize::from(n < 0) + unsigned_len(n.unsigned_abs())
}

/// A finite float as `serde_json` writes it (shortest round-trip form); `null` otherwise.
fn float_len(f: f64, single: bool) -> usize {
    if !f.is_finite() {
        return 4;
    }
    let text = if single {
        serde_json::to_string(&(f as f32))
    } else {
        serde_json::to_string(&f)
    };
    text.map_or(4, |t| t.len())
}

/// Counts what a `fmt::Display` writes, escaped, for `collect_str`.
struct EscapedWriter<'a>(&'a mut usize);

impl fmt::Write for EscapedWriter<'_> {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        *self.0 += escaped_len(s);
        Ok(())
    }
}

impl Counter {
    fn add(&mut self, n: usize) {
        self.0 += n;
    }

    fn string(&mut self, s: &str) {
        self.0 += 2 + escaped_len(s);
    }

    /// `{"variant":` before an enum variant's data (the closing `}` comes after it).
    fn variant_open(&mut self, variant: &str) {
        self.add(1);
        self.string(variant);
        self.add(1);
    }
}

/// A sequence, map or struct being counted: separators between its items.
struct Compound<'a> {
    counter: &'a mut Counter,
    first: bool,
    /// Closing brackets after the closing one of the compound itself: `}` of an enum variant.
    trailing: usize,
}

impl Compound<'_> {
    fn separator(&mut self) {
        if self.first {
            self.first = false;
        } else {
            self.counter.add(1);
        }
    }

    fn close(self) {
        self.counter.add(1 + self.trailing);
    }
}

impl<'a> Compound<'a> {
    fn open(counter: &'a mut Counter, trailing: usize) -> Self {
        counter.add(1);
        Compound {
            counter,
            first: true,
            trailing,
        }
    }
}

/// The narrower integers, each counted as its widest kind (`serialize_i128`/`u128`).
macro_rules! narrow_integers_widened {
    () => {
        fn serialize_i8(self, v: i8) -> Result<(), Error> {
            self.serialize_i128(i128::from(v))
        }
        fn serialize_i16(self, v: i16) -> Result<(), Error> {
            self.serialize_i128(i128::from(v))
        }
        fn serialize_i32(self, v: i32) -> Result<(), Error> {
            self.serialize_i128(i128::from(v))
        }
        fn serialize_i64(self, v: i64) -> Result<(), Error> {
            self.serialize_i128(i128::from(v))
        }
        fn serialize_u8(self, v: u8) -> Result<(), Error> {
            self.serialize_u128(u128::from(v))
        }
        fn serialize_u16(self, v: u16) -> Result<(), Error> {
            self.serialize_u128(u128::from(v))
        }
        fn serialize_u32(self, v: u32) -> Result<(), Error> {
            self.serialize_u128(u128::from(v))
        }
        fn serialize_u64(self, v: u64) -> Result<(), Error> {
            self.serialize_u128(u128::from(v))
        }
    };
}

impl<'a> ser::Serializer for &'a mut Counter {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = Compound<'a>;
    type SerializeTuple = Compound<'a>;
    type SerializeTupleStruct = Compound<'a>;
    type SerializeTupleVariant = Compound<'a>;
    type SerializeMap = Compound<'a>;
    type SerializeStruct = Compound<'a>;
    type SerializeStructVariant = Compound<'a>;

    narrow_integers_widened!();

    fn serialize_bool(self, v: bool) -> Result<(), Error> {
        self.add(if v { 4 } else { 5 });
        Ok(())
    }
    fn serialize_i128(self, v: i128) -> Result<(), Error> {
        self.add(signed_len(v));
        Ok(())
    }
    fn serialize_u128(self, v: u128) -> Result<(), Error> {
        self.add(unsigned_len(v));
        Ok(())
    }
    fn serialize_f32(self, v: f32) -> Result<(), Error> {
        self.add(float_len(f64::from(v), true));
        Ok(())
    }
    fn serialize_f64(self, v: f64) -> Result<(), Error> {
        self.add(float_len(v, false));
        Ok(())
    }
    fn serialize_char(self, v: char) -> Result<(), Error> {
        self.string(v.encode_utf8(&mut [0; 4]));
        Ok(())
    }
    fn serialize_str(self, v: &str) -> Result<(), Error> {
        self.string(v);
        Ok(())
    }
    fn serialize_bytes(self, v: &[u8]) -> Result<(), Error> {
        // An array of numbers.
        let mut seq = Compound::open(self, 0);
        for b in v {
            seq.separator();
            seq.counter.add(unsigned_len(u128::from(*b)));
        }
        seq.close();
        Ok(())
    }
    fn serialize_none(self) -> Result<(), Error> {
        self.add(4);
        Ok(())
    }
    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<(), Error> {
        value.serialize(self)
    }
    fn serialize_unit(self) -> Result<(), Error> {
        self.add(4);
        Ok(())
    }
    fn serialize_unit_struct(self, _name: &'static str) -> Result<(), Error> {
        self.serialize_unit()
    }
    fn serialize_unit_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
    ) -> Result<(), Error> {
        self.string(variant);
        Ok(())
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        value: &T,
    ) -> Result<(), Error> {
        value.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<(), Error> {
        self.variant_open(variant);
        value.serialize(&mut *self)?;
        self.add(1);
        Ok(())
    }
    fn serialize_seq(self, _len: Option<usize>) -> Result<Compound<'a>, Error> {
        Ok(Compound::open(self, 0))
    }
    fn serialize_tuple(self, _len: usize) -> Result<Compound<'a>, Error> {
        Ok(Compound::open(self, 0))
    }
    fn serialize_tuple_struct(
        self,
        _name: &'static str,
        _len: usize,
    ) -> Result<Compound<'a>, Error> {
        Ok(Compound::open(self, 0))
    }
    fn serialize_tuple_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        _len: usize,
    ) -> Result<Compound<'a>, Error> {
        self.variant_open(variant);
        Ok(Compound::open(self, 1))
    }
    fn serialize_map(self, _len: Option<usize>) -> Result<Compound<'a>, Error> {
        Ok(Compound::open(self, 0))
    }
    fn serialize_struct(self, _name: &'static str, _len: usize) -> Result<Compound<'a>, Error> {
        Ok(Compound::open(self, 0))
    }
    fn serialize_struct_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        _len: usize,
    ) -> Result<Compound<'a>, Error> {
        self.variant_open(variant);
        Ok(Compound::open(self, 1))
    }
    fn collect_str<T: fmt::Display + ?Sized>(self, value: &T) -> Result<(), Error> {
        let mut n = 2;
        fmt::Write::write_fmt(&mut EscapedWriter(&mut n), format_args!("{value}"))
            .map_err(|_| Error("a Display implementation returned an error".to_string()))?;
        self.add(n);
        Ok(())
    }
}

impl ser::SerializeSeq for Compound<'_> {
    type Ok = ();
    type Error = Error;
    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        self.separator();
        value.serialize(&mut *self.counter)
    }
    fn end(self) -> Result<(), Error> {
        self.close();
        Ok(())
    }
}

/// Tuples of every sort are counted as sequences (JSON arrays).
macro_rules! counted_as_sequence {
    ($($trait_:ident :: $method:ident),*) => {$(
        impl ser::$trait_ for Compound<'_> {
            type Ok = ();
            type Error = Error;
            fn $method<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
                ser::SerializeSeq::serialize_element(self, value)
            }
            fn end(self) -> Result<(), Error> {
                ser::SerializeSeq::end(self)
            }
        }
    )*};
}

counted_as_sequence!(
    SerializeTuple::serialize_element,
    SerializeTupleStruct::serialize_field,
    SerializeTupleVariant::serialize_field
);

impl ser::SerializeMap for Compound<'_> {
    type Ok = ();
    type Error = Error;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<(), Error> {
        self.separator();
        key.serialize(MapKey(&mut *self.counter))?;
        self.counter.add(1); // ':'
        Ok(())
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        value.serialize(&mut *self.counter)
    }
    fn end(self) -> Result<(), Error> {
        self.close();
        Ok(())
    }
}

impl ser::SerializeStruct for Compound<'_> {
    type Ok = ();
    type Error = Error;
    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<(), Error> {
        self.separator();
        self.counter.string(key);
        self.counter.add(1);
        value.serialize(&mut *self.counter)
    }
    fn end(self) -> Result<(), Error> {
        self.close();
        Ok(())
    }
}

impl ser::SerializeStructVariant for Compound<'_> {
    type Ok = ();
    type Error = Error;
    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<(), Error> {
        ser::SerializeStruct::serialize_field(self, key, value)
    }
    fn end(self) -> Result<(), Error> {
        self.close();
        Ok(())
    }
}

/// A map key: JSON object keys are strings, so numbers and booleans are quoted (as
/// `serde_json`'s `MapKeySerializer` writes them); anything else has no encoding.
struct MapKey<'a>(&'a mut Counter);

impl MapKey<'_> {
    fn quoted(self, n: usize) -> Result<(), Error> {
        self.0.add(n + 2);
        Ok(())
    }
}

impl ser::Serializer for MapKey<'_> {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = ser::Impossible<(), Error>;
    type SerializeTuple = ser::Impossible<(), Error>;
    type SerializeTupleStruct = ser::Impossible<(), Error>;
    type SerializeTupleVariant = ser::Impossible<(), Error>;
    type SerializeMap = ser::Impossible<(), Error>;
    type SerializeStruct = ser::Impossible<(), Error>;
    type SerializeStructVariant = ser::Impossible<(), Error>;

    narrow_integers_widened!();

    fn serialize_str(self, v: &str) -> Result<(), Error> {
        self.0.string(v);
        Ok(())
    }
    fn serialize_char(self, v: char) -> Result<(), Error> {
        self.0.string(v.encode_utf8(&mut [0; 4]));
        Ok(())
    }
    fn serialize_bool(self, v: bool) -> Result<(), Error> {
        self.quoted(if v { 4 } else { 5 })
    }
    fn serialize_i128(self, v: i128) -> Result<(), Error> {
        self.quoted(signed_len(v))
    }
    fn serialize_u128(self, v: u128) -> Result<(), Error> {
        self.quoted(unsigned_len(v))
    }
    fn serialize_f32(self, v: f32) -> Result<(), Error> {
        if !v.is_finite() {
            return Err(Error("float key must be finite".to_string()));
        }
        self.quoted(float_len(f64::from(v), true))
    }
    fn serialize_f64(self, v: f64) -> Result<(), Error> {
        if !v.is_finite() {
            return Err(Error("float key must be finite".to_string()));
        }
        self.quoted(float_len(v, false))
    }
    fn serialize_unit_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
    ) -> Result<(), Error> {
        self.serialize_str(variant)
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        value: &T,
    ) -> Result<(), Error> {
        value.serialize(self)
    }
    fn collect_str<T: fmt::Display + ?Sized>(self, value: &T) -> Result<(), Error> {
        self.0.collect_str(value)
    }
    fn serialize_bytes(self, _v: &[u8]) -> Result<(), Error> {
        Err(key_must_be_a_string())
    }
    fn serialize_none(self) -> Result<(), Error> {
        Err(key_must_be_a_string())
    }
    fn serialize_some<T: Serialize + ?Sized>(self, _value: &T) -> Result<(), Error> {
        Err(key_must_be_a_string())
    }
    fn serialize_unit(self) -> Result<(), Error> {
        Err(key_must_be_a_string())
    }
    fn serialize_unit_struct(self, _name: &'static str) -> Result<(), Error> {
        Err(key_must_be_a_string())
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        _index: u32,
        _variant: &'static str,
        _value: &T,
    ) -> Result<(), Error> {
        Err(key_must_be_a_string())
    }
    fn serialize_seq(self, _len: Option<usize>) -> Result<Self::SerializeSeq, Error> {
        Err(key_must_be_a_string())
    }
    fn serialize_tuple(self, _len: usize) -> Result<Self::SerializeTuple, Error> {
        Err(key_must_be_a_string())
    }
    fn serialize_tuple_struct(
        self,
        _name: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeTupleStruct, Error> {
        Err(key_must_be_a_string())
    }
    fn serialize_tuple_variant(
        self,
        _name: &'static str,
        _index: u32,
        _variant: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeTupleVariant, Error> {
        Err(key_must_be_a_string())
    }
    fn serialize_map(self, _len: Option<usize>) -> Result<Self::SerializeMap, Error> {
        Err(key_must_be_a_string())
    }
    fn serialize_struct(
        self,
        _name: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeStruct, Error> {
        Err(key_must_be_a_string())
    }
    fn serialize_struct_variant(
        self,
        _name: &'static str,
        _index: u32,
        _variant: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeStructVariant, Error> {
        Err(key_must_be_a_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde::Serialize;
    use serde_json::json;
    use std::collections::BTreeMap;

    fn same_as_serde_json<T: Serialize>(value: &T) {
        let written = serde_json::to_vec(value).map(|v| v.len());
        let counted = json_len(value);
        match (written, counted) {
            (Ok(w), Ok(c)) => assert_eq!(c, w, "{}", serde_json::to_string(value).unwrap()),
            (Err(_), Err(_)) => {}
            (w, c) => panic!("serde_json {w:?}, counted {c:?}"),
        }
    }

    #[derive(Serialize)]
    enum Shape {
        Unit,
        Newtype(u8),
        Tuple(i32, String),
        Struct { a: Option<bool>, b: Vec<()> },
    }

    #[derive(Serialize)]
    struct Unit;

    #[derive(Serialize)]
    struct Everything {
        small: i8,
        big: u128,
        negative: i128,
        float: f64,
        single: f32,
        nan: f64,
        letter: char,
        quote: char,
        bytes: serde_bytes_like::Bytes,
        unit: (),
        unit_struct: Unit,
        shapes: Vec<Shape>,
        tuple: (u8, &'static str),
        int_keys: BTreeMap<i64, &'static str>,
        bool_keys: BTreeMap<bool, u8>,
        nested: serde_json::Value,
    }

    /// `serialize_bytes` (serde's own impls never call it for `Vec<u8>`).
    mod serde_bytes_like {
        pub struct Bytes(pub Vec<u8>);
        impl serde::Serialize for Bytes {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_bytes(&self.0)
            }
        }
    }

    #[test]
    fn every_kind_of_value_counts_as_serde_json_writes_it() {
        same_as_serde_json(&Everything {
            small: -7,
            big: u128::MAX,
            negative: i128::MIN,
            float: 0.1 + 0.2,
            single: 1.5e-7,
            nan: f64::NAN,
            letter: 'é',
            quote: '"',
            bytes: serde_bytes_like::Bytes(vec![0, 9, 10, 255]),
            unit: (),
            unit_struct: Unit,
            shapes: vec![
                Shape::Unit,
                Shape::Newtype(3),
                Shape::Tuple(-1, "x\ny".into()),
                Shape::Struct {
                    a: None,
                    b: vec![(), ()],
                },
                Shape::Struct {
                    a: Some(true),
                    b: vec![],
                },
            ],
            tuple: (0, "\u{1}\u{1f}\\"),
            int_keys: BTreeMap::from([(-12, "a"), (0, ""), (99, "\t")]),
            bool_keys: BTreeMap::from([(true, 1), (false, 0)]),
            nested: json!({"a": [1, -2, 3.25, null, {"b\u{7f}": "€"}], "": {}, "e": []}),
        });
        same_as_serde_json(&json!([]));
        same_as_serde_json(&json!({}));
        same_as_serde_json(&Vec::<Vec<u8>>::new());
        same_as_serde_json(&f64::INFINITY);
    }

    #[test]
    fn a_key_that_is_not_a_string_or_number_has_no_encoding() {
        let map = BTreeMap::from([(vec![1u8], 2u8)]);
        assert!(serde_json::to_vec(&map).is_err());
        assert_eq!(json_len(&map), Err(key_must_be_a_string()));
    }

    #[test]
    fn the_objects_of_a_cluster_count_as_they_are_written() {
        let mut c = crate::cluster::Cluster::new(crate::cluster::ClusterConfig::default());
        c.advance_to(crate::clock::Timestamp::from_secs(30));
        let objects = c
            .api()
            .store()
            .range_prefix("/registry/", None, None, None)
            .unwrap()
            .kvs;
        assert!(objects.len() > 20, "a cluster's worth of objects");
        for kv in &objects {
            same_as_serde_json(&kv.value.untracked());
        }
    }

    proptest! {
        #[test]
        fn any_strings_count_as_serde_json_escapes_them(
            map in proptest::collection::btree_map(any::<String>(), any::<String>(), 0..8),
            list in proptest::collection::vec("[\\x00-\\x7f]{0,12}", 0..8),
            number in any::<i64>(),
            float in any::<f64>(),
        ) {
            same_as_serde_json(&(map, list, number, float));
        }
    }
}
